//! One person's world for the TUI's end-to-end tests: a data folder, socket, log and client
//! state of its own, the fake claude, `paddock` run from the command line, and the TUI run
//! in a private tmux server. The daemon is stopped when the value drops.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::bins::bin;
use crate::tmux::Tmux;

pub struct TuiEnv {
    /// Everything the test's daemons and TUI write; removed at the end.
    _dir: tempfile::TempDir,
    pub vars: Vec<(&'static str, PathBuf)>,
}

/// Variables of the test's own shell that would point `paddock` elsewhere.
const UNSET: &[&str] = &["PADDOCK_CONFIG", "PADDOCK_REMOTE", "PADDOCK_MAX_PROCESSES"];

#[allow(clippy::expect_used, clippy::panic)]
impl TuiEnv {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let vars = vec![
            ("PADDOCK_SOCKET", dir.path().join("run/paddockd.sock")),
            ("PADDOCK_DATA_DIR", dir.path().join("data")),
            ("PADDOCK_LOG", dir.path().join("paddockd.log")),
            ("PADDOCK_CLAUDE_BIN", bin("fake-claude")),
            ("PADDOCK_DAEMON_BIN", bin("paddockd")),
            ("XDG_CONFIG_HOME", dir.path().join("config")),
            ("XDG_STATE_HOME", dir.path().join("state")),
        ];
        Self { _dir: dir, vars }
    }

    /// This world with the real Claude Code CLI ([`crate::real_claude::find_claude_bin`])
    /// answering from a Messages API stand-in at `base_url` instead of the fake claude.
    pub fn with_real_claude(mut self, base_url: &str) -> Self {
        let bin = crate::real_claude::find_claude_bin().unwrap_or_else(|e| panic!("{e}"));
        self.vars.retain(|(k, _)| *k != "PADDOCK_CLAUDE_BIN");
        self.vars.push(("PADDOCK_CLAUDE_BIN", bin));
        for (k, v) in [
            ("ANTHROPIC_BASE_URL", base_url),
            ("ANTHROPIC_API_KEY", "dummy"),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("DISABLE_TELEMETRY", "1"),
            ("DISABLE_ERROR_REPORTING", "1"),
            ("DISABLE_AUTOUPDATER", "1"),
            ("CLAUDE_CODE_MAX_RETRIES", "1"),
        ] {
            self.vars.push((k, PathBuf::from(v)));
        }
        self
    }

    pub fn socket(&self) -> &Path {
        &self.vars[0].1
    }

    pub fn data_dir(&self) -> &Path {
        &self.vars[1].1
    }

    /// `paddock ARGS` with this world's variables (and `extra`).
    pub fn paddock(&self, args: &[&str], extra: &[(&str, &str)]) -> Output {
        let mut c = Command::new(bin("paddock"));
        c.envs(self.vars.iter().map(|(k, v)| (k, v)));
        for name in UNSET {
            c.env_remove(name);
        }
        c.envs(extra.iter().copied())
            .args(args)
            .output()
            .expect("paddock runs")
    }

    /// `paddock ARGS`, which must succeed; its standard output.
    pub fn paddock_ok(&self, args: &[&str]) -> String {
        let out = self.paddock(args, &[]);
        assert!(
            out.status.success(),
            "paddock {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `paddock daemon status --json`, when a daemon answers (it never starts one).
    pub fn status(&self) -> Option<serde_json::Value> {
        let out = self.paddock(&["daemon", "status", "--json"], &[]);
        out.status
            .success()
            .then(|| serde_json::from_slice(&out.stdout).ok())
            .flatten()
    }

    /// Waits until the daemon's status satisfies `ok` (`what` names it in the failure).
    pub fn wait_status(
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

    /// Runs the TUI in a tmux window of `width`x`height`, with `extra` variables
    /// (`PADDOCK_ASCII=1`...).
    pub fn tui(&self, name: &str, (width, height): (u16, u16), extra: &[(&str, &str)]) -> Tmux {
        let tmux = Tmux {
            server: format!("paddock-{name}-{}", std::process::id()),
        };
        let shell = format!("{} '{}'", self.env_prefix(extra), bin("paddock").display());
        tmux.start_sized(&shell, width, height);
        tmux
    }

    /// Runs `command` (`sh -c`, in double quotes: quote paths with single ones) in a tmux
    /// window of `width`x`height`, with this world's variables: `paddock` commands on a real
    /// terminal, or the TUI started from another folder.
    pub fn shell(&self, name: &str, (width, height): (u16, u16), command: &str) -> Tmux {
        let tmux = Tmux {
            server: format!("paddock-{name}-{}", std::process::id()),
        };
        tmux.start_sized(
            &format!("{} sh -c \"{command}\"", self.env_prefix(&[])),
            width,
            height,
        );
        tmux
    }

    /// `env` with the variables the world unsets and sets, and `extra`.
    fn env_prefix(&self, extra: &[(&str, &str)]) -> String {
        let mut shell = String::from("env");
        for name in UNSET {
            shell.push_str(&format!(" -u {name}"));
        }
        for (k, v) in &self.vars {
            shell.push_str(&format!(" {k}='{}'", v.display()));
        }
        for (k, v) in extra {
            shell.push_str(&format!(" {k}='{v}'"));
        }
        shell
    }
}

impl Default for TuiEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for TuiEnv {
    fn drop(&mut self) {
        let _ = self.paddock(&["daemon", "stop"], &[]);
    }
}
