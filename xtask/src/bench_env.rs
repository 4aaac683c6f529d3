//! The world a bench's release `paddockd` and `paddock` run in: its socket, data, log and
//! configuration under one folder, and the `claude` they start.

use std::path::PathBuf;
use std::process::Command;

pub struct BenchEnv {
    pub release: PathBuf,
    /// The bench's folder: socket, log, configuration.
    pub dir: PathBuf,
    /// The daemon's data folder.
    pub data: PathBuf,
    /// The `claude` the daemon starts (`/bin/false` where no turn runs).
    pub claude: PathBuf,
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
            .env("XDG_CONFIG_HOME", self.dir.join("config"));
    }
}
