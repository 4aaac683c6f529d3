//! The daemon itself: the opening handshake, its status and the world its agents run in.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hello {
    pub protocol_version: u32,
    /// Free text naming the client, e.g. `paddock 0.1.0`.
    pub client: String,
}

/// The `client` of an agent's tool bridge (`paddockd mcp`): `daemon:status` counts those
/// apart from people's clients.
pub const MCP_BRIDGE_CLIENT: &str = "paddockd mcp";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelloReply {
    pub protocol_version: u32,
    pub daemon_version: String,
    pub pid: u32,
    /// The peer's user name, as the daemon resolved it from the socket credentials.
    pub user: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonStatus {
    pub daemon_version: String,
    pub protocol_version: u32,
    pub pid: u32,
    pub uptime_secs: u64,
    pub socket: String,
    pub data_dir: String,
    pub running: Vec<RunningTurn>,
    /// `claude` processes alive now, and the configured bound.
    pub live_processes: u32,
    pub max_processes: u32,
    /// Turns waiting for a free process slot.
    pub queued_turns: u32,
    /// Started, idle claudes kept for the next new chat of the projects used last (counted
    /// in `live_processes`); `ready` once the process is up.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spares: Vec<SpareProcess>,
    /// People's clients connected now (TUIs, commands, management clients).
    pub clients: u32,
    /// Agents' tool bridges connected now (one per chat process with paddock's tools).
    #[serde(default)]
    pub agent_clients: u32,
    /// The daemon's folders whose disk has less free space than `disk_floor_mb`: a turn's
    /// transcript may not be saved. Empty when there is room.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub low_disk: Vec<DiskSpace>,
}

/// A spare claude (`DaemonStatus::spares`): ready for its project's next new chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpareProcess {
    pub project_slug: String,
    /// The process has started and answered: a new chat's first message goes straight to it.
    pub ready: bool,
    /// It runs in a spare worktree, the next new worktree chat's (absent: in the project's
    /// folder).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub worktree: bool,
}

/// Free space on the disk holding one of the daemon's folders.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiskSpace {
    /// The folder (the data folder, or the Claude home the transcripts are written in).
    pub path: String,
    /// Bytes an unprivileged writer may still use there.
    pub free_bytes: u64,
    /// The configured floor (`disk_floor_mb`), in bytes.
    pub floor_bytes: u64,
}

/// `daemon:info`: what the daemon's agents run with. `paddockd info` prints the same (one
/// line of JSON, no `pid`) for a daemon that is not running, as it would start now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonInfo {
    pub daemon_version: String,
    /// The running daemon's; absent from `paddockd info`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    pub socket: String,
    pub data_dir: String,
    pub log: String,
    /// `CLAUDE_CONFIG_DIR` of the agents.
    pub claude_home: String,
    pub claude: ClaudeInfo,
    /// The credential variables set in the daemon's environment (`ANTHROPIC_API_KEY`,
    /// `ANTHROPIC_AUTH_TOKEN`, `CLAUDE_CODE_OAUTH_TOKEN`, ...): names only, never values.
    pub credentials: Vec<String>,
    /// The login file in `claudeHome` (from `claude /login`), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<String>,
    /// Free space where the data folder and the Claude home are (one entry per disk).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<DiskSpace>,
}

/// The `claude` the daemon starts, as the daemon resolves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeInfo {
    /// As configured: `claude_bin` / `PADDOCK_CLAUDE_BIN`, else `claude`.
    pub configured: String,
    /// The file that runs (a bare name looked up on the daemon's `PATH`); absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What `claude --version` said, e.g. `2.1.332`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Why there is no version: not found, did not run, did not answer in time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The oldest version this daemon supports.
    pub min_version: String,
    /// Whether `version` is at least `minVersion`; absent without a version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningTurn {
    pub project_slug: String,
    pub session_id: String,
    pub job_id: String,
    /// RFC 3339.
    pub started_at: String,
}
