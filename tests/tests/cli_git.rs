//! `paddock git push` and `paddock git commit --push` end to end: real binaries, a daemon the
//! client starts itself, a local bare repository as the remote (no network).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::bins::bin;
use std::path::Path;
use std::process::{Command, Output, Stdio};

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn paddock(&self, args: &[&str]) -> Output {
        Command::new(bin("paddock"))
            .args(args)
            .env(
                "PADDOCK_SOCKET",
                self.dir.path().join("run").join("paddockd.sock"),
            )
            .env("PADDOCK_DATA_DIR", self.dir.path().join("data"))
            .env("PADDOCK_LOG", self.dir.path().join("paddockd.log"))
            .env("PADDOCK_CLAUDE_BIN", env!("CARGO_BIN_EXE_fake-claude"))
            .env("PADDOCK_DAEMON_BIN", bin("paddockd"))
            .env_remove("PADDOCK_CONFIG")
            .env_remove("PADDOCK_REMOTE")
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// Runs paddock, which must succeed; its stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.paddock(args);
        assert!(
            out.status.success(),
            "paddock {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = self.paddock(&["daemon", "stop"]);
    }
}

/// Runs git in `dir`; its stdout, trimmed.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn identity(dir: &Path) {
    git(dir, &["config", "user.name", "Ana Test"]);
    git(dir, &["config", "user.email", "ana@example.com"]);
}

#[test]
fn commit_push_then_push_up_to_date_then_a_refused_push_quoting_git() {
    let env = Env::new();
    let root = env.dir.path();
    let (work, remote, other) = (
        root.join("web"),
        root.join("remote.git"),
        root.join("other"),
    );
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&remote).unwrap();
    git(&remote, &["init", "-q", "--bare", "-b", "main"]);
    git(&work, &["init", "-q", "-b", "main"]);
    identity(&work);
    let url = remote.to_string_lossy().into_owned();
    git(&work, &["remote", "add", "origin", &url]);
    env.ok(&["project", "add", "web", "--path", &work.to_string_lossy()]);

    // Commit, then the first push: to origin, which becomes the upstream.
    std::fs::write(work.join("a.txt"), "one\n").unwrap();
    let out = env.ok(&["git", "commit", "-p", "web", "-m", "First", "--push"]);
    let head = git(&work, &["rev-parse", "HEAD"]);
    assert!(out.starts_with("Committed "), "{out}");
    assert!(
        out.contains(&format!(
            "Pushed main to origin/main (new branch at {})",
            &head[..7]
        )),
        "{out}"
    );
    assert!(out.contains("main now tracks origin/main"), "{out}");
    assert_eq!(git(&remote, &["rev-parse", "main"]), head);

    let out = env.ok(&["git", "push", "-p", "web"]);
    assert!(out.contains("is up to date"), "{out}");
    let json: serde_json::Value =
        serde_json::from_str(&env.ok(&["git", "push", "-p", "web", "--json"])).unwrap();
    assert_eq!(json["upToDate"], true);
    assert_eq!(json["to"], head.as_str());

    // Another clone pushes first: refused, git quoted, exit status 1.
    git(root, &["clone", "-q", &url, &other.to_string_lossy()]);
    identity(&other);
    std::fs::write(other.join("b.txt"), "theirs\n").unwrap();
    git(&other, &["add", "b.txt"]);
    git(&other, &["commit", "-q", "-m", "Theirs"]);
    git(&other, &["push", "-q", "origin", "main"]);
    let theirs = git(&other, &["rev-parse", "HEAD"]);
    std::fs::write(work.join("a.txt"), "two\n").unwrap();
    let out = env.paddock(&["git", "commit", "-p", "web", "-m", "Second", "--push"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.starts_with("Committed "),
        "the commit is made: {stdout}"
    );
    assert!(stderr.contains("git said:"), "{stderr}");
    assert!(stderr.contains("failed to push some refs"), "{stderr}");
    assert!(
        stderr
            .trim_end()
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("paddock: ") && l.contains("pull")),
        "{stderr}"
    );
    assert_eq!(git(&remote, &["rev-parse", "main"]), theirs);
}
