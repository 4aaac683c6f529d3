//! The figures of one `cargo xtask bench` run next to the goals they are held to (issue
//! "fast at the scale heavy users reach"): each section records what it measured here, and the
//! run ends with one table of every figure, its goal and the ratio, written to
//! `target/bench.json` as well. Nothing here asserts: a figure over its goal is reported.

use std::path::Path;

use anyhow::{Context, Result};

/// One measured figure.
#[derive(Debug, Clone)]
struct Figure {
    name: String,
    value: f64,
    unit: &'static str,
    /// The figure must be at most this (same unit), when it has a goal.
    goal: Option<f64>,
}

/// Every figure of the run, in the order measured.
#[derive(Debug, Default)]
pub struct Report {
    figures: Vec<Figure>,
}

impl Report {
    /// Records a figure with no goal (context for the others).
    pub fn note(&mut self, name: impl Into<String>, value: f64, unit: &'static str) {
        self.push(name.into(), value, unit, None);
    }

    /// Records a figure held to "at most `goal`".
    pub fn goal(&mut self, name: impl Into<String>, value: f64, unit: &'static str, goal: f64) {
        self.push(name.into(), value, unit, Some(goal));
    }

    fn push(&mut self, name: String, value: f64, unit: &'static str, goal: Option<f64>) {
        self.figures.push(Figure {
            name,
            value,
            unit,
            goal,
        });
    }

    /// The table of the figures with goals: value, goal, ratio, and whether it is met.
    pub fn print(&self) {
        println!();
        println!("goals (figures from this run; ratio = figure / goal, met when ≤ 1)");
        let mut met = 0;
        let mut held = 0;
        for f in &self.figures {
            let Some(goal) = f.goal else { continue };
            held += 1;
            let ratio = f.value / goal;
            let verdict = if f.value <= goal {
                met += 1;
                "met"
            } else {
                "over"
            };
            println!(
                "  {:<58} {:>10} {:<3} goal ≤ {:>8} {:<3}  ×{:<7.2} {verdict}",
                f.name,
                shown(f.value),
                f.unit,
                shown(goal),
                f.unit,
                ratio
            );
        }
        println!("  {met} of {held} goals met");
    }

    /// Writes every figure to `path` as JSON: `{"figures": [{name, value, unit, goal, ratio,
    /// met}]}` (`goal`, `ratio` and `met` are null for a figure without a goal).
    pub fn write(&self, path: &Path) -> Result<()> {
        let figures: Vec<serde_json::Value> = self
            .figures
            .iter()
            .map(|f| {
                serde_json::json!({
                    "name": f.name,
                    "value": finite(f.value),
                    "unit": f.unit,
                    "goal": f.goal,
                    "ratio": f.goal.map(|g| finite(f.value / g)),
                    "met": f.goal.map(|g| f.value <= g),
                })
            })
            .collect();
        let json = serde_json::to_string_pretty(&serde_json::json!({ "figures": figures }))?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(path, json).with_context(|| format!("writing {}", path.display()))?;
        println!("  the figures are in {}", path.display());
        Ok(())
    }
}

/// A figure as JSON: a number, or null when it could not be measured (NaN).
fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// A figure with as many decimals as its size needs.
fn shown(v: f64) -> String {
    if !v.is_finite() {
        "n/a".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}
