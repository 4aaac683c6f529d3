//! A private world for end-to-end tests of the `paddock` binary: the socket, data, log and
//! config of the daemon it starts all under one temporary folder, the fake `claude`, and that
//! daemon stopped when the world is dropped.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::bins::bin;

pub struct CliEnv {
    pub dir: tempfile::TempDir,
}

impl CliEnv {
    /// # Panics
    /// When no temporary folder can be made.
    #[allow(clippy::expect_used)]
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn socket(&self) -> PathBuf {
        self.path().join("run").join("paddockd.sock")
    }

    pub fn data(&self) -> PathBuf {
        self.path().join("data")
    }

    pub fn log(&self) -> PathBuf {
        self.path().join("state").join("paddockd.log")
    }

    /// `paddock` with everything pointing into the world's folder (the daemon it starts gets
    /// this environment), run there, with no stdin.
    pub fn paddock(&self) -> Command {
        let mut c = Command::new(bin("paddock"));
        c.env("PADDOCK_SOCKET", self.socket())
            .env("PADDOCK_DATA_DIR", self.data())
            .env("PADDOCK_LOG", self.log())
            .env("PADDOCK_CLAUDE_BIN", bin("fake-claude"))
            .env("PADDOCK_DAEMON_BIN", bin("paddockd"))
            .env("XDG_CONFIG_HOME", self.path().join("config"))
            .env_remove("PADDOCK_CONFIG")
            .env_remove("PADDOCK_REMOTE")
            .env_remove("PADDOCK_ALLOWED_TOOLS")
            .current_dir(self.path())
            .stdin(Stdio::null());
        c
    }

    /// # Panics
    /// When `paddock` cannot be started.
    #[allow(clippy::expect_used)]
    pub fn output(&self, args: &[&str]) -> Output {
        self.paddock().args(args).output().expect("paddock starts")
    }

    /// Runs a command that must succeed; its stdout.
    ///
    /// # Panics
    /// When it fails, with its stderr.
    pub fn run(&self, args: &[&str]) -> String {
        let out = self.output(args);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "paddock {args:?} failed: {}\n{stdout}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }

    /// Runs a command that must fail; its stderr.
    ///
    /// # Panics
    /// When it succeeds.
    pub fn fail(&self, args: &[&str]) -> String {
        let out = self.output(args);
        assert!(!out.status.success(), "paddock {args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

impl Default for CliEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for CliEnv {
    fn drop(&mut self) {
        let _ = self.paddock().args(["daemon", "stop"]).output();
    }
}
