//! The world a bench's release `paddockd` and `paddock` run in: its socket, data, log and
//! configuration under one folder, and the `claude` they start.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

pub struct BenchEnv {
    pub release: PathBuf,
    /// The bench's folder: socket, log, configuration.
    pub dir: PathBuf,
    /// The daemon's data folder.
    pub data: PathBuf,
    /// The `claude` the daemon starts (`/bin/false` where no turn runs).
    pub claude: PathBuf,
    /// More of the daemon's environment (the real CLI's offline settings, its configuration).
    pub extra_env: Vec<(String, String)>,
}

impl BenchEnv {
    pub fn socket(&self) -> PathBuf {
        self.dir.join("run").join("paddockd.sock")
    }

    /// Points a `paddock` or `paddockd` command into the world.
    pub fn envs(&self, c: &mut Command) {
        c.env("PADDOCK_SOCKET", self.socket())
            .env("PADDOCK_DATA_DIR", &self.data)
            .env("PADDOCK_LOG", self.dir.join("paddockd.log"))
            .env("PADDOCK_HOST_CLAUDE_HOME", self.dir.join("host-claude"))
            .env("PADDOCK_CLAUDE_BIN", &self.claude)
            .env("PADDOCK_DAEMON_BIN", self.release.join("paddockd"))
            .env_remove("PADDOCK_CONFIG")
            .env("XDG_CONFIG_HOME", self.dir.join("config"))
            .envs(self.extra_env.iter().map(|(k, v)| (k, v)));
    }

    /// Starts the release `paddockd`, and waits for its socket; when it was started.
    pub fn start_daemon(&self) -> Result<(Running, Instant)> {
        // A daemon left from an earlier, interrupted run would answer instead.
        if self.socket().exists() {
            let _ = self.paddock(&["daemon", "stop"]);
        }
        let mut c = Command::new(self.release.join("paddockd"));
        self.envs(&mut c);
        let started = Instant::now();
        let child = c
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting paddockd")?;
        let mut child = Running(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.socket().exists() {
            if let Ok(Some(status)) = child.0.try_wait() {
                bail!(
                    "paddockd exited at start ({status}); see {}",
                    self.dir.join("paddockd.log").display()
                );
            }
            if Instant::now() > deadline {
                bail!("paddockd did not create its socket within 60 s");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok((child, started))
    }

    pub fn stop_daemon(&self, child: &mut Running) -> Result<()> {
        // Stopped whether or not the command says so: the wait below is what counts.
        let _ = self.paddock(&["daemon", "stop"]);
        child.0.wait()?;
        Ok(())
    }

    /// `paddock ARGS`, which must succeed: its stdout, and how long the whole command took.
    pub fn paddock_timed(&self, args: &[&str]) -> Result<(Vec<u8>, Duration)> {
        let mut c = Command::new(self.release.join("paddock"));
        self.envs(&mut c);
        let t = Instant::now();
        let out = c
            .args(args)
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("running paddock {args:?}"))?;
        let took = t.elapsed();
        if !out.status.success() {
            bail!(
                "paddock {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok((out.stdout, took))
    }

    /// `paddock ARGS`, which must succeed; its stdout.
    pub fn paddock(&self, args: &[&str]) -> Result<String> {
        let (out, _) = self.paddock_timed(args)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// `paddock search --json QUERY`: its output and how long it took.
    pub fn search_json(&self, query: &str) -> Result<(Vec<u8>, Duration)> {
        self.paddock_timed(&["search", "--json", query])
    }

    /// `paddock ls --json`: its output and how long it took.
    pub fn ls_json(&self) -> Result<(Vec<u8>, Duration)> {
        self.paddock_timed(&["ls", "--json"])
    }
}

/// A daemon the bench started: killed if the bench fails before stopping it.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

impl Running {
    /// Its resident memory, KiB: every page it has in RAM, the page cache's mapped pages of
    /// files (the search index) among them.
    pub fn rss_kib(&self) -> Option<u64> {
        self.status_kib("VmRSS:")
    }

    /// Its private (anonymous) memory, KiB: what it allocated itself, which no other process
    /// and no file holds.
    pub fn private_kib(&self) -> Option<u64> {
        self.status_kib("RssAnon:")
    }

    fn status_kib(&self, field: &str) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.0.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }
}
