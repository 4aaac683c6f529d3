//! `cargo xtask <command>`: project automation (see `cargo xtask --help`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use xtask::{bench, docs, pipeline, workspace_root};

#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    about = "Project automation for the paddock workspace"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Regenerate the man pages and shell completions under man/ (committed; a test checks them)
    Man {
        /// Write here instead of man/
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Write nothing; fail if the files are not up to date
        #[arg(long)]
        check: bool,
    },
    /// Regenerate only the shell completions (man/completions/)
    Completions {
        /// Write here instead of man/
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Run every test: installs the pinned Claude Code CLI, then nextest and the doctests
    Test,
    /// What CI runs: cargo fmt --check, clippy with warnings denied, then `test`
    Ci,
    /// Measure every figure in release and print each next to its goal (target/bench.json)
    Bench {
        /// Run only these parts (latency, streaming, tui, chats); a part run alone prints its
        /// figures but leaves target/bench.json, which holds one whole run, as it was
        #[arg(value_enum, value_name = "PART")]
        parts: Vec<bench::Part>,
    },
    /// The stand-in CLI the bench drives (not for people)
    #[command(hide = true)]
    BenchClaude {
        /// The flags paddockd passes to claude, ignored
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        _args: Vec<String>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let root = workspace_root();
    match cli.command {
        Cmd::Man { out, check } => {
            let dir = out.unwrap_or_else(|| root.join("man"));
            if check {
                let problems = docs::diff(&docs::read_generated(&dir)?, &docs::all()?);
                if problems.is_empty() {
                    eprintln!("{} is up to date", dir.display());
                    return Ok(());
                }
                anyhow::bail!(
                    "{} is stale (run `cargo xtask man`):\n  {}",
                    dir.display(),
                    problems.join("\n  ")
                );
            }
            let changes = docs::write(&dir, &docs::all()?, |_| true)?;
            report(&dir, &changes);
            Ok(())
        }
        Cmd::Completions { out } => {
            let dir = out.unwrap_or_else(|| root.join("man"));
            let changes = docs::write(&dir, &docs::completions(), docs::is_completion)?;
            report(&dir, &changes);
            Ok(())
        }
        Cmd::Test => pipeline::test(&root),
        Cmd::Ci => pipeline::ci(&root),
        Cmd::Bench { parts } => bench::run(&parts),
        Cmd::BenchClaude { .. } => bench::claude_stand_in(),
    }
}

fn report(dir: &std::path::Path, changes: &docs::Changes) {
    for rel in &changes.written {
        eprintln!("wrote {}", dir.join(rel).display());
    }
    for rel in &changes.removed {
        eprintln!("removed {}", dir.join(rel).display());
    }
    if changes.written.is_empty() && changes.removed.is_empty() {
        eprintln!("{} is up to date", dir.display());
    }
}
