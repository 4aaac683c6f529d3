//! `paddock provenance`: the status first, then producers and readers newest first, then the
//! lineage as an indented tree.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use chrono::{DateTime, TimeZone};
use paddock_proto::{Environment, FileEdge, FileStatus, FileStep, LineageNode, Provenance};

use super::{clean_title, one_line, project_label, short_time};

/// Longest chat title shown in a step line.
const TITLE_MAX: usize = 48;

fn status_word(status: FileStatus) -> &'static str {
    match status {
        FileStatus::Current => "current",
        FileStatus::Stale => "stale",
        FileStatus::Unverified => "unverified",
    }
}

fn edge_word(edge: FileEdge) -> &'static str {
    match edge {
        FileEdge::Observed => "observed",
        FileEdge::Inferred => "inferred",
    }
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// `Write in “Fix the login test” (5f0c2d8e, turn 0193f4c2, step 3)`.
fn step_label(step: &FileStep) -> String {
    let title = step.title.as_deref().map_or_else(
        || "an unknown chat".to_owned(),
        |t| format!("“{}”", one_line(&clean_title(t), TITLE_MAX)),
    );
    let n = step.step_id.rsplit(':').next().unwrap_or(&step.step_id);
    let by = step.specialist.as_ref().map_or_else(String::new, |sp| {
        let model = sp
            .model
            .as_deref()
            .map_or_else(String::new, |m| format!(" ({m})"));
        format!(" by subagent {}{model}", sp.name)
    });
    format!(
        "{}{by} in {title} ({}, turn {}, step {n})",
        step.tool,
        short(&step.session_id),
        short(&step.job_id)
    )
}

fn step_line<Tz: TimeZone>(step: &FileStep, now: &DateTime<Tz>) -> String
where
    Tz::Offset: std::fmt::Display,
{
    format!(
        "  {:<12} {:<8} {:<8} {}\n",
        short_time(&step.at, now),
        step.change,
        edge_word(step.edge),
        step_label(step)
    )
}

/// `1.95` from `rustc 1.95.0 (…)`, `22.11` from `v22.11.0`, `3.12` from `Python 3.12.7`.
fn short_version(line: &str) -> &str {
    let word = line
        .split_whitespace()
        .find(|w| {
            w.trim_start_matches('v')
                .starts_with(|c: char| c.is_ascii_digit())
        })
        .unwrap_or(line)
        .trim_start_matches('v');
    let mut dots = word.match_indices('.').map(|(i, _)| i);
    match (dots.next(), dots.next()) {
        (Some(_), Some(second)) => &word[..second],
        _ => word,
    }
}

/// `environment 5b1f0e7c: git 3f9a2c1, rustc 1.95, node 22.11, 1 lockfile, Ubuntu 24.04 LTS`.
fn environment_line(env: &Environment) -> String {
    let mut parts = Vec::new();
    if let Some(head) = &env.git_head {
        parts.push(format!("git {}", head.get(..7).unwrap_or(head)));
    }
    for (tool, version) in &env.toolchains {
        parts.push(format!("{tool} {}", short_version(version)));
    }
    match env.lockfiles.len() {
        0 => {}
        1 => parts.extend(env.lockfiles.keys().cloned()),
        n => parts.push(format!("{n} lockfiles")),
    }
    parts.push(env.os_name.clone().unwrap_or_else(|| env.os.clone()));
    format!("environment {}: {}", short(&env.hash), parts.join(", "))
}

/// The whole report.
pub fn provenance<Tz: TimeZone>(p: &Provenance, now: &DateTime<Tz>) -> String
where
    Tz::Offset: std::fmt::Display,
{
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({}): {} — {}",
        p.path,
        project_label(&p.project_slug),
        status_word(p.status),
        p.status_reason
    );
    if let Some(hash) = &p.current_hash {
        let _ = writeln!(out, "  now {hash}");
    }
    if p.producers.is_empty() {
        out.push_str("\nNo chat wrote it.\n");
    } else {
        out.push_str("\nWritten by (newest first):\n");
        for step in &p.producers {
            out.push_str(&step_line(step, now));
            let env = step
                .environment
                .as_deref()
                .and_then(|h| p.environments.iter().find(|e| e.hash == h));
            if let Some(env) = env {
                let _ = writeln!(out, "               {}", environment_line(env));
            }
        }
    }
    if !p.readers.is_empty() {
        out.push_str("\nRead by (newest first):\n");
        for step in &p.readers {
            out.push_str(&step_line(step, now));
        }
    }
    if !p.lineage.nodes.is_empty() {
        out.push_str("\nLineage:\n");
        lineage(&mut out, &p.lineage.nodes);
        if p.lineage.truncated {
            out.push_str("  … the walk stopped at its bounds (60 files, 12 hops): there is more\n");
        }
    }
    if !p.notes.is_empty() {
        out.push_str("\nNotes:\n");
        for note in &p.notes {
            let _ = writeln!(out, "  {note}");
        }
    }
    out
}

/// The nodes as a tree from the first (the file), each input under the node that used it;
/// a file reached before is named again but not expanded.
fn lineage(out: &mut String, nodes: &[LineageNode]) {
    let by_path: HashMap<&str, &LineageNode> = nodes.iter().map(|n| (n.path.as_str(), n)).collect();
    let mut shown = HashSet::new();
    if let Some(root) = nodes.first() {
        node(out, root, &by_path, &mut shown, 1);
    }
}

fn node<'a>(
    out: &mut String,
    n: &'a LineageNode,
    by_path: &HashMap<&str, &'a LineageNode>,
    shown: &mut HashSet<&'a str>,
    depth: usize,
) {
    shown.insert(n.path.as_str());
    let indent = "  ".repeat(depth);
    let from = match &n.producer {
        Some(step) => format!("← {}", step_label(step)),
        None if n.missing_origin => "← no recorded step: made by you, or there before".to_owned(),
        None => String::new(),
    };
    let changed = if n.changed_since_use {
        "  (changed since use)"
    } else {
        ""
    };
    let _ = writeln!(out, "{indent}{}  {from}{changed}", n.path);
    for input in &n.inputs {
        match by_path.get(input.as_str()) {
            Some(child) if !shown.contains(input.as_str()) => {
                node(out, child, by_path, shown, depth + 1);
            }
            Some(_) => {
                let _ = writeln!(out, "{indent}  {input}  (shown above)");
            }
            None => {
                let _ = writeln!(out, "{indent}  {input}  (not walked)");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::Lineage;

    fn step(tool: &str, change: &str, edge: FileEdge) -> FileStep {
        FileStep {
            session_id: "5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90".into(),
            job_id: "0193f4c2-7a1e-7c3d-9b2a-5e8f1d0c4a67".into(),
            step_id: "0193f4c2-7a1e-7c3d-9b2a-5e8f1d0c4a67:3".into(),
            title: Some("Fix the login test".into()),
            tool: tool.into(),
            at: "2026-11-03T09:14:31Z".into(),
            edge,
            change: change.into(),
            hash: None,
            environment: None,
            model: None,
            specialist: None,
        }
    }

    fn subagent_step() -> FileStep {
        let mut s = step("Write", "wrote", FileEdge::Observed);
        s.step_id = "0193f4c2-7a1e-7c3d-9b2a-5e8f1d0c4a67:a77:2".into();
        s.model = Some("claude-haiku-4-5".into());
        s.specialist = Some(paddock_proto::Specialist {
            agent_id: "a77".into(),
            name: "general-purpose".into(),
            description: Some("Write the notes".into()),
            model: Some("claude-haiku-4-5".into()),
        });
        s
    }

    #[test]
    fn the_report_reads_status_producers_then_a_lineage_tree() {
        let p = Provenance {
            project_slug: "web".into(),
            path: "src/a.ts".into(),
            status: FileStatus::Stale,
            status_reason: "the bytes on disk differ".into(),
            current_hash: Some("sha256:ab".into()),
            producers: vec![step("Edit", "wrote", FileEdge::Observed)],
            readers: vec![step("Read", "read", FileEdge::Observed)],
            lineage: Lineage {
                nodes: vec![
                    LineageNode {
                        path: "src/a.ts".into(),
                        hops: 0,
                        producer: Some(step("Edit", "wrote", FileEdge::Observed)),
                        inputs: vec![
                            "notes.md".into(),
                            "spec.md".into(),
                            "src/a.ts".into(),
                            "far.txt".into(),
                        ],
                        missing_origin: false,
                        changed_since_use: false,
                    },
                    LineageNode {
                        path: "notes.md".into(),
                        hops: 1,
                        producer: Some(subagent_step()),
                        inputs: vec![],
                        missing_origin: false,
                        changed_since_use: true,
                    },
                    LineageNode {
                        path: "spec.md".into(),
                        hops: 1,
                        producer: None,
                        inputs: vec![],
                        missing_origin: true,
                        changed_since_use: false,
                    },
                ],
                truncated: true,
            },
            notes: vec!["Some steps are missing.".into()],
            environments: vec![],
        };
        let now = chrono::Utc
            .with_ymd_and_hms(2026, 11, 3, 12, 0, 0)
            .single()
            .unwrap_or_default();
        let text = provenance(&p, &now);
        let expected = "\
src/a.ts (web): stale — the bytes on disk differ
  now sha256:ab

Written by (newest first):
  09:14        wrote    observed Edit in “Fix the login test” (5f0c2d8e, turn 0193f4c2, step 3)

Read by (newest first):
  09:14        read     observed Read in “Fix the login test” (5f0c2d8e, turn 0193f4c2, step 3)

Lineage:
  src/a.ts  ← Edit in “Fix the login test” (5f0c2d8e, turn 0193f4c2, step 3)
    notes.md  ← Write by subagent general-purpose (claude-haiku-4-5) in “Fix the login test” (5f0c2d8e, turn 0193f4c2, step 2)  (changed since use)
    spec.md  ← no recorded step: made by you, or there before
    src/a.ts  (shown above)
    far.txt  (not walked)
  … the walk stopped at its bounds (60 files, 12 hops): there is more

Notes:
  Some steps are missing.
";
        assert_eq!(text, expected);
    }

    #[test]
    fn a_producer_shows_its_environment() {
        let mut edit = step("Edit", "wrote", FileEdge::Observed);
        edit.environment = Some("5b1f0e7c2a9d4c38".into());
        let env = Environment {
            hash: "5b1f0e7c2a9d4c38".into(),
            git_head: Some("3f9a2c1d8e7b6a5f".into()),
            toolchains: [
                ("node".to_owned(), "v22.11.0".to_owned()),
                (
                    "rustc".to_owned(),
                    "rustc 1.95.0 (abcdef 2026-10-30)".to_owned(),
                ),
            ]
            .into_iter()
            .collect(),
            lockfiles: [("Cargo.lock".to_owned(), "sha256:00".to_owned())]
                .into_iter()
                .collect(),
            os: "linux x86_64".into(),
            os_name: None,
        };
        let p = Provenance {
            project_slug: "web".into(),
            path: "src/a.ts".into(),
            status: FileStatus::Current,
            status_reason: "it matches".into(),
            current_hash: None,
            producers: vec![edit],
            readers: vec![],
            lineage: Lineage {
                nodes: vec![],
                truncated: false,
            },
            notes: vec![],
            environments: vec![env],
        };
        let now = chrono::Utc
            .with_ymd_and_hms(2026, 11, 3, 12, 0, 0)
            .single()
            .unwrap_or_default();
        let text = provenance(&p, &now);
        assert!(
            text.contains(
                "\n               environment 5b1f0e7c: git 3f9a2c1, node 22.11, rustc 1.95, Cargo.lock, linux x86_64\n"
            ),
            "{text}"
        );
        assert_eq!(short_version("Python 3.12.7"), "3.12");
        assert_eq!(short_version("weird"), "weird");
    }
}
