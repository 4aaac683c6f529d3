//! Several hosts on one machine, for the tests of a client of several hosts: a stand-in for
//! ssh runs the remote words as sshd would, with the host name choosing that host's socket,
//! data and log (so `paddock proxy` on "each host" starts and reaches its own daemon). Hosts
//! named `hang…` never answer (ssh stuck connecting); hosts named `refuse…` fail as ssh does
//! when nothing listens, and so does any host while [`FakeHosts::refuse`] says so; hosts named
//! `old…` run a paddock of another protocol. Every daemon is stopped when the value drops.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use crate::bins::bin;
use crate::tmux::Tmux;

/// The stand-in for ssh (`fake_ssh_hosts.sh`, which the bench's hosts part runs too).
const FAKE_SSH: &str = include_str!("fake_ssh_hosts.sh");

pub struct FakeHosts {
    dir: tempfile::TempDir,
}

impl FakeHosts {
    pub fn new() -> Self {
        let env = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        let ssh = env.path("fake-ssh");
        std::fs::write(&ssh, FAKE_SSH).unwrap();
        std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();
        env
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `paddock` on this machine, whose hosts are `hosts` (given as `--remote a,b`).
    pub fn paddock(&self, hosts: &str) -> Command {
        let mut c = Command::new(bin("paddock"));
        // This machine's own daemon must never be started: its socket is nowhere usable.
        c.env("PADDOCK_SOCKET", self.path("local/paddockd.sock"))
            .env("PADDOCK_DATA_DIR", self.path("local/data"))
            .env("PADDOCK_CLAUDE_BIN", bin("fake-claude"))
            .env("PADDOCK_DAEMON_BIN", bin("paddockd"))
            .env_remove("PADDOCK_CONFIG")
            .env_remove("PADDOCK_CLIENT_CONFIG")
            .env_remove("PADDOCK_HOST_TIMEOUT")
            .env("PADDOCK_REMOTE", hosts)
            .env("PADDOCK_REMOTE_PADDOCK", bin("paddock"))
            .env("XDG_CONFIG_HOME", self.path("local/config"))
            .env("PADDOCK_SSH", self.path("fake-ssh"))
            .env("FAKE_HOSTS", self.path("hosts"))
            .stdin(Stdio::null());
        c
    }

    pub fn run(&self, hosts: &str, args: &[&str]) -> Output {
        let mut c = self.paddock(hosts);
        c.args(args);
        c.output().unwrap()
    }

    pub fn ok(&self, hosts: &str, args: &[&str]) -> (String, String) {
        let out = self.run(hosts, args);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success(),
            "paddock {args:?} on {hosts} failed ({}): {stderr}\n{stdout}",
            out.status
        );
        (stdout, stderr)
    }

    /// A new chat on `host`'s root workspace; its session id.
    pub fn new_chat(&self, hosts: &str, host: &str, text: &str) -> String {
        let project = format!("{host}:");
        let (out, err) = self.ok(hosts, &["send", "-p", &project, text]);
        assert_eq!(out.trim(), format!("echo: {text}"));
        err.lines()
            .find_map(|l| l.strip_prefix("session: "))
            .expect("the session id on stderr")
            .trim()
            .to_owned()
    }
}

impl Drop for FakeHosts {
    fn drop(&mut self) {
        // Whatever the test left in the client's configuration (a broken one, say), the hosts
        // are reached by their ssh names with an empty one.
        let empty = self.path("drop-client.toml");
        let _ = std::fs::write(&empty, b"");
        for host in ["a", "b", "c"] {
            self.refuse(host, false);
            let _ = self
                .paddock(host)
                .env("PADDOCK_CLIENT_CONFIG", &empty)
                .args(["daemon", "stop"])
                .output();
        }
        // This machine's, if a test started it (`daemon` is about this machine).
        let _ = self.paddock("").args(["daemon", "stop"]).output();
    }
}

impl FakeHosts {
    /// Makes `host`'s ssh refuse (as when its machine is down), or answer again.
    pub fn refuse(&self, host: &str, refuse: bool) {
        let marker = self.path("hosts").join(host).join("refuse");
        if refuse {
            std::fs::create_dir_all(marker.parent().unwrap()).unwrap();
            std::fs::write(&marker, b"").unwrap();
        } else {
            let _ = std::fs::remove_file(&marker);
        }
    }

    /// The pid of `host`'s daemon.
    pub fn daemon_pid(&self, host: &str) -> u32 {
        let (out, _) = self.ok(host, &["daemon", "status", "--json"]);
        let status: serde_json::Value = serde_json::from_str(&out).unwrap();
        u32::try_from(status["pid"].as_u64().unwrap()).unwrap()
    }

    /// The TUI over `hosts`, in a tmux window of `width`x`height`.
    pub fn tui(&self, name: &str, hosts: &str, (width, height): (u16, u16)) -> Tmux {
        let tmux = Tmux {
            server: format!("paddock-{name}-{}", std::process::id()),
        };
        let mut c = self.paddock(hosts);
        c.env("XDG_STATE_HOME", self.path("local/state"));
        let shell = crate::tmux::shell_line(&c);
        tmux.start_sized(&shell, width, height);
        tmux
    }
}

impl Default for FakeHosts {
    fn default() -> Self {
        Self::new()
    }
}
