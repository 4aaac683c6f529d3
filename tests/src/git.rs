//! Running git in a test's repository, as a test identity (no git configuration needed).

use std::path::Path;

/// Runs git in `dir`; its stdout.
///
/// # Panics
/// When git fails, with its output.
#[allow(clippy::expect_used)]
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}
