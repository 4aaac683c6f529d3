//! The TUI and the daemon's lifecycle, end to end in tmux: `paddock daemon stop` stays stopped
//! with a TUI open (until R, or a `daemon start` of someone else), and a daemon that dies is
//! still replaced by itself.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use paddock_tests::bins::bin;
use paddock_tests::tmux::Tmux;

struct Env {
    /// Everything the test's daemons and TUI write; removed at the end.
    _dir: tempfile::TempDir,
    vars: Vec<(&'static str, PathBuf)>,
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let vars = vec![
            ("PADDOCK_SOCKET", dir.path().join("run/paddockd.sock")),
            ("PADDOCK_DATA_DIR", dir.path().join("data")),
            ("PADDOCK_LOG", dir.path().join("paddockd.log")),
            (
                "PADDOCK_CLAUDE_BIN",
                PathBuf::from(env!("CARGO_BIN_EXE_fake-claude")),
            ),
            ("PADDOCK_DAEMON_BIN", bin("paddockd")),
            ("XDG_CONFIG_HOME", dir.path().join("config")),
            ("XDG_STATE_HOME", dir.path().join("state")),
        ];
        Self { _dir: dir, vars }
    }

    fn socket(&self) -> &Path {
        &self.vars[0].1
    }

    fn paddock(&self, args: &[&str], extra: &[(&str, &str)]) -> Output {
        Command::new(bin("paddock"))
            .envs(self.vars.iter().map(|(k, v)| (k, v)))
            .env_remove("PADDOCK_CONFIG")
            .env_remove("PADDOCK_REMOTE")
            .env_remove("PADDOCK_MAX_PROCESSES")
            .envs(extra.iter().copied())
            .args(args)
            .output()
            .unwrap()
    }

    /// `paddock daemon status --json`, when a daemon answers (it never starts one).
    fn status(&self) -> Option<serde_json::Value> {
        let out = self.paddock(&["daemon", "status", "--json"], &[]);
        out.status
            .success()
            .then(|| serde_json::from_slice(&out.stdout).ok())
            .flatten()
    }

    fn wait_status(
        &self,
        what: &str,
        ok: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.status().filter(|s| ok(s)) {
                return status;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Asserts that no daemon answers for `window`: the TUI would have started one by then.
    fn stays_stopped(&self, window: Duration) {
        let until = Instant::now() + window;
        while Instant::now() < until {
            assert!(
                std::os::unix::net::UnixStream::connect(self.socket()).is_err(),
                "a daemon answers on {} after `paddock daemon stop`",
                self.socket().display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = self.paddock(&["daemon", "stop"], &[]);
    }
}

#[test]
fn daemon_stop_stays_stopped_under_an_open_tui_and_a_crash_is_still_reconnected() {
    let env = Env::new();
    let out = env.paddock(&["send", "a chat before the stop"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let tmux = Tmux {
        server: format!("paddock-stop-{}", std::process::id()),
    };
    let mut shell =
        String::from("env -u PADDOCK_CONFIG -u PADDOCK_REMOTE -u PADDOCK_MAX_PROCESSES");
    for (k, v) in &env.vars {
        shell.push_str(&format!(" {k}='{}'", v.display()));
    }
    shell.push_str(&format!(" '{}'", bin("paddock").display()));
    tmux.start(&shell);
    tmux.wait_loaded("a chat before the stop");

    // Stopped from another command: the TUI says so and does not start another daemon.
    let out = env.paddock(&["daemon", "stop"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let screen = tmux.wait_for("paddock daemon stop");
    assert!(screen.contains("Press R to start it"), "{screen}");
    env.stays_stopped(Duration::from_secs(3));

    // R starts it again. The TUI is connected to it (its header names the daemon's version)
    // before the next stop: a stop that lands while its own start is still connecting is
    // no stop it was told of, so it would start another daemon.
    tmux.keys(&["R"]);
    let first = env.wait_status("the daemon R started", |_| true);
    tmux.wait_until("the TUI connected to the daemon R started", |s| {
        s.lines()
            .next()
            .is_some_and(|header| header.contains("paddockd ") && !header.contains("stopped"))
    });
    tmux.wait_loaded("a chat before the stop");

    // Stopped again, then started by hand with a setting: the setting holds (the TUI did not
    // get there first), and the TUI finds that daemon by itself.
    let out = env.paddock(&["daemon", "stop"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    tmux.wait_for("Press R to start it");
    let out = env.paddock(&["daemon", "start"], &[("PADDOCK_MAX_PROCESSES", "3")]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && said.contains("started"), "{said}");
    let status = env.wait_status("the daemon started by hand", |_| true);
    assert_eq!(status["maxProcesses"], serde_json::json!(3), "{status}");
    assert_ne!(status["pid"], first["pid"]);
    tmux.wait_until_gone("Press R to start it");
    tmux.wait_loaded("a chat before the stop");

    // A crash is not a stop: the TUI starts a new daemon by itself.
    let pid = status["pid"].as_u64().unwrap() as i32;
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    let after = env.wait_status("a new daemon after the crash", |s| {
        s["pid"].as_u64() != Some(pid as u64)
    });
    assert_ne!(after["pid"], status["pid"]);
    tmux.wait_loaded("a chat before the stop");
    assert!(!tmux.capture().contains("Press R"), "{}", tmux.capture());
    tmux.keys(&["q"]);
}
