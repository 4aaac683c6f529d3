//! Starting the daemon as people configure it, and `paddock doctor` reporting the daemon's own
//! world: real `paddock` and `paddockd` binaries, the fake `claude`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use paddock_tests::cli_env::CliEnv;

/// The test's world (`paddock_tests::cli_env`), with this file's helpers.
struct Env(CliEnv);

impl std::ops::Deref for Env {
    type Target = CliEnv;
    fn deref(&self) -> &CliEnv {
        &self.0
    }
}

impl Env {
    fn new() -> Self {
        Self(CliEnv::new())
    }

    /// The world's `paddock`, without credentials, with a plain screen in a UTF-8 locale.
    fn paddock(&self) -> Command {
        let mut c = self.0.paddock();
        c.env_remove("ANTHROPIC_API_KEY")
            .env_remove("ANTHROPIC_AUTH_TOKEN")
            .env_remove("CLAUDE_CODE_OAUTH_TOKEN")
            .env("NO_COLOR", "1")
            .env("LC_ALL", "C.UTF-8")
            .env_remove("PADDOCK_ASCII");
        c
    }

    /// The running daemon's pid, as `paddock daemon status --json` gives it.
    fn daemon_pid(&self) -> u64 {
        let (_, status, _) = self.output(self.paddock().args(["daemon", "status", "--json"]));
        let status: serde_json::Value = serde_json::from_str(&status).unwrap();
        status["pid"].as_u64().unwrap()
    }

    fn output(&self, cmd: &mut Command) -> (Output, String, String) {
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out, stdout, stderr)
    }
}

#[test]
fn a_boolean_written_as_1_starts_the_daemon() {
    let env = Env::new();
    let (out, stdout, stderr) = env.output(
        env.paddock()
            .env("PADDOCK_SELF_MCP", "1")
            .env("PADDOCK_SWEEPER", "off")
            .args(["ls", "--json"]),
    );
    assert!(
        out.status.success(),
        "paddock ls failed: {stderr}\n{stdout}"
    );
    // Once it listens, the daemon's stderr is its log, not the pipe of the command that
    // started it (which read its start-up reason from there, and is gone now).
    let pid = env.daemon_pid();
    let fd2 = std::fs::read_link(format!("/proc/{pid}/fd/2")).unwrap();
    assert_eq!(fd2, env.log(), "the daemon's stderr");
}

#[test]
fn a_daemon_that_cannot_start_says_why_in_the_terminal_and_the_log() {
    let env = Env::new();
    let (out, stdout, stderr) = env.output(
        env.paddock()
            .env("PADDOCK_MAX_PROCESSES", "many")
            .args(["ls"]),
    );
    assert!(!out.status.success(), "ls succeeded: {stdout}");
    for want in ["PADDOCK_MAX_PROCESSES", "many", "whole number"] {
        assert!(stderr.contains(want), "{want} missing from: {stderr}");
    }
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    let log = std::fs::read_to_string(env.log()).unwrap_or_default();
    assert!(
        log.contains("PADDOCK_MAX_PROCESSES") && log.contains("many"),
        "the log says it too: {log:?}"
    );
    // Started by hand, the same reason.
    let (out, _, stderr) = env.output(
        env.paddock()
            .env("PADDOCK_MAX_PROCESSES", "many")
            .args(["daemon", "start"]),
    );
    assert!(!out.status.success());
    assert!(stderr.contains("PADDOCK_MAX_PROCESSES"), "{stderr}");
}

/// A `claude` that only says its version.
fn versioned_claude(dir: &Path, version: &str) -> PathBuf {
    let path = dir.join(format!("claude-{version}"));
    std::fs::write(
        &path,
        format!("#!/bin/sh\necho '{version} (Claude Code)'\n"),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn doctor_reports_the_claude_the_running_daemon_would_start() {
    let env = Env::new();
    // The daemon is started with a claude that does not exist...
    let (out, _, stderr) = env.output(
        env.paddock()
            .env("PADDOCK_CLAUDE_BIN", "/nonexistent/claude")
            .env("ANTHROPIC_API_KEY", "sk-test-secret-value")
            .args(["daemon", "start"]),
    );
    assert!(out.status.success(), "{stderr}");
    // ...while the doctor's own environment has a working one: what counts is the daemon's.
    let (out, stdout, stderr) = env.output(env.paddock().args(["doctor"]));
    assert!(!out.status.success(), "doctor passed: {stdout}");
    let claude_line = stdout
        .lines()
        .find(|l| l.contains("claude") && l.contains("/nonexistent/claude"))
        .unwrap_or_else(|| {
            panic!("no claude line naming the daemon's binary:\n{stdout}\n{stderr}")
        });
    assert!(claude_line.starts_with('✗'), "{stdout}");
    assert!(stdout.contains("ANTHROPIC_API_KEY"), "{stdout}");
    assert!(
        !stdout.contains("sk-test-secret-value"),
        "never the secret: {stdout}"
    );
    assert!(
        stdout.contains(&env.log().display().to_string()),
        "{stdout}"
    );
    let (_, json, _) = env.output(env.paddock().args(["doctor", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["ok"], serde_json::json!(false));
    assert!(!json.contains("sk-test-secret-value"));
    let claude = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "claude")
        .unwrap();
    assert_eq!(claude["ok"], serde_json::json!(false), "{json}");
    assert!(
        claude["detail"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/claude"),
        "{json}"
    );
}

#[test]
fn doctor_marks_a_claude_below_the_supported_version() {
    let env = Env::new();
    let old = versioned_claude(env.dir.path(), "2.0.5");
    let (out, _, stderr) = env.output(
        env.paddock()
            .env("PADDOCK_CLAUDE_BIN", &old)
            .args(["daemon", "start"]),
    );
    assert!(out.status.success(), "{stderr}");
    let (out, stdout, _) = env.output(env.paddock().args(["doctor"]));
    assert!(!out.status.success(), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.contains("supported"))
        .unwrap_or_else(|| panic!("no supported line:\n{stdout}"));
    assert!(line.starts_with('✗') && line.contains("2.0.5"), "{stdout}");
    assert!(line.contains("2.1.197"), "{stdout}");
    assert!(
        stdout.contains("npm install -g @anthropic-ai/claude-code"),
        "{stdout}"
    );
}

#[test]
fn doctor_without_a_daemon_reports_what_one_started_now_would_see() {
    let env = Env::new();
    let new = versioned_claude(env.dir.path(), "2.1.400");
    let (_, stdout, stderr) = env.output(
        env.paddock()
            .env("PADDOCK_CLAUDE_BIN", &new)
            .env("ANTHROPIC_API_KEY", "sk-test")
            .args(["doctor"]),
    );
    assert!(stdout.contains("not running"), "{stdout}\n{stderr}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with('✓') && l.contains("2.1.400")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with('✓') && l.contains("supported")),
        "{stdout}"
    );
    // Doctor looks without starting anything.
    assert!(!env.socket().exists(), "doctor started a daemon");
    // A configuration the daemon would refuse is what doctor reports first.
    let (out, stdout, _) = env.output(
        env.paddock()
            .env("PADDOCK_MAX_PROCESSES", "many")
            .args(["doctor"]),
    );
    assert!(!out.status.success());
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with('✗') && l.contains("PADDOCK_MAX_PROCESSES")),
        "{stdout}"
    );
}

/// The daemon bounds glibc's malloc arenas (each thread's arena kept what a large chat list
/// left in it) and fixes its mmap threshold (a large answer freed is given back): started
/// without them it runs with one arena and a 128 KiB threshold; a value the user set is kept.
#[test]
fn the_daemon_runs_with_one_malloc_arena_unless_the_user_set_a_bound() {
    for (set, want) in [(None, "1"), (Some("4"), "4")] {
        let env = Env::new();
        let mut ls = env.paddock();
        ls.env_remove("MALLOC_ARENA_MAX");
        ls.env_remove("MALLOC_MMAP_THRESHOLD_");
        if let Some(v) = set {
            ls.env("MALLOC_ARENA_MAX", v);
        }
        let (out, stdout, stderr) = env.output(ls.args(["ls", "--json"]));
        assert!(
            out.status.success(),
            "paddock ls failed: {stderr}\n{stdout}"
        );
        let pid = env.daemon_pid();
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
        let bound = environ
            .split(|&b| b == 0)
            .find_map(|kv| kv.strip_prefix(b"MALLOC_ARENA_MAX="))
            .map(|v| String::from_utf8_lossy(v).into_owned());
        assert_eq!(bound.as_deref(), Some(want), "MALLOC_ARENA_MAX set {set:?}");
        let threshold = environ
            .split(|&b| b == 0)
            .find_map(|kv| kv.strip_prefix(b"MALLOC_MMAP_THRESHOLD_="));
        assert_eq!(
            threshold,
            Some(&b"131072"[..]),
            "MALLOC_ARENA_MAX set {set:?}"
        );
        let _ = env.output(env.paddock().args(["daemon", "stop"]));
    }
}
