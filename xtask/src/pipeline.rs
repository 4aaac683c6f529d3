//! `cargo xtask test` and `cargo xtask ci`: the README's "run all tests", and what CI runs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

/// The environment variable the conformance tests read the real `claude` binary from.
pub const CLAUDE_BIN_ENV: &str = "PADDOCK_TEST_CLAUDE_BIN";

/// The cargo that runs us (`$CARGO`), else `cargo` on PATH.
fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        s.push(' ');
        s.push_str(&arg.to_string_lossy());
    }
    s
}

/// Runs a command to completion with inherited stdio; an error if it fails.
fn run(mut cmd: Command) -> Result<()> {
    let what = describe(&cmd);
    eprintln!("xtask: $ {what}");
    let status = cmd
        .status()
        .with_context(|| format!("could not start `{what}`"))?;
    if !status.success() {
        bail!("`{what}` failed ({status})");
    }
    Ok(())
}

fn cargo_in(root: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(cargo());
    cmd.current_dir(root).args(args);
    cmd
}

/// The Claude Code release the whole suite runs against (`.ci/install-claude.sh`'s default).
pub const MAIN_CLAUDE_VERSION: &str = "2.1.332";

/// The older supported release (what npm installs on Node 18/20): the tests that drive the
/// real CLI run a second time against it.
pub const OLDER_CLAUDE_VERSION: &str = "2.1.197";

/// The nextest filter of the tests that drive the real CLI: the conformance tests and the
/// daemon tests named `real_cli…` (tests/tests/daemon/real_cli.rs and provenance.rs), and the
/// TUI in tmux over the real CLI (tests/tests/tui_real_cli_tmux.rs).
pub const REAL_CLI_FILTER: &str = "package(paddock-tests) & (binary(cli_conformance) | binary(tui_real_cli_tmux) | (binary(daemon) & test(real_cli)))";

/// Installs a Claude Code release (`.ci/install-claude.sh VERSION`, quick when it is already
/// there) and returns the path of its binary: the script's last line on stdout.
pub fn install_claude(root: &Path, version: &str) -> Result<PathBuf> {
    let script = root.join(".ci").join("install-claude.sh");
    let mut cmd = Command::new("bash");
    cmd.arg(&script)
        .arg(version)
        .current_dir(root)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    let what = describe(&cmd);
    eprintln!("xtask: $ {what}");
    let out = cmd
        .output()
        .with_context(|| format!("could not start `{what}` (is bash installed?)"))?;
    if !out.status.success() {
        bail!(
            "`{what}` failed ({}); it installs the Claude Code CLI the conformance tests need",
            out.status
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let Some(last) = stdout.lines().rev().map(str::trim).find(|l| !l.is_empty()) else {
        bail!("`{what}` printed no binary path");
    };
    let bin = PathBuf::from(last);
    if !bin.is_file() {
        bail!(
            "`{what}` named {} as the claude binary, but there is no such file",
            bin.display()
        );
    }
    Ok(bin)
}

/// `cargo xtask test`: every test in the workspace against Claude Code
/// [`MAIN_CLAUDE_VERSION`], then the tests that drive the real CLI ([`REAL_CLI_FILTER`])
/// again against [`OLDER_CLAUDE_VERSION`]. Every run happens even if an earlier one fails, so
/// one run shows every failure; the error names the release of each failed run.
pub fn test(root: &Path) -> Result<()> {
    let claude = install_claude(root, MAIN_CLAUDE_VERSION)?;
    let older = install_claude(root, OLDER_CLAUDE_VERSION)?;
    eprintln!("xtask: {CLAUDE_BIN_ENV}={}", claude.display());

    let mut failed = Vec::new();
    // The end-to-end tests run the paddock and paddockd binaries, which nextest does not
    // build for another package's tests.
    run(cargo_in(root, &["build", "--workspace", "--bins"]))?;
    let mut nextest = cargo_in(root, &["nextest", "run", "--workspace", "--no-fail-fast"]);
    nextest.env(CLAUDE_BIN_ENV, &claude);
    if let Err(e) = run(nextest) {
        failed.push(e.context(format!("with Claude Code {MAIN_CLAUDE_VERSION}")));
    }
    eprintln!(
        "xtask: the real-CLI tests again with Claude Code {OLDER_CLAUDE_VERSION}: {CLAUDE_BIN_ENV}={}",
        older.display()
    );
    let mut older_run = cargo_in(
        root,
        &[
            "nextest",
            "run",
            "--workspace",
            "--no-fail-fast",
            "-E",
            REAL_CLI_FILTER,
        ],
    );
    older_run.env(CLAUDE_BIN_ENV, &older);
    if let Err(e) = run(older_run) {
        failed.push(e.context(format!("with Claude Code {OLDER_CLAUDE_VERSION}")));
    }
    // nextest does not run doctests.
    let mut doc = cargo_in(root, &["test", "--doc", "--workspace"]);
    doc.env(CLAUDE_BIN_ENV, &claude);
    if let Err(e) = run(doc) {
        failed.push(e.context("doctests"));
    }
    match failed.len() {
        0 => Ok(()),
        _ => bail!(
            "{}",
            failed
                .iter()
                .map(|e| format!("{e:#}"))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    }
}

/// `cargo xtask ci`: formatting, lints with warnings denied, then [`test`].
pub fn ci(root: &Path) -> Result<()> {
    run(cargo_in(root, &["fmt", "--all", "--check"]))
        .context("formatting differs; run `cargo fmt --all`")?;
    run(cargo_in(
        root,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    ))?;
    test(root)
}
