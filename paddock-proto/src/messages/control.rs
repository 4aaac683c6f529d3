//! Control events: pushed by the daemon without a `seq` (activity, resyncs, list changes,
//! attention notices, shutdown).

use serde::{Deserialize, Serialize};

use super::*;

/// `daemon:stopping`: why the daemon is going away.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stopping {
    pub reason: StopReason,
    /// One sentence for a person, e.g. `paddockd was stopped (paddock daemon stop)`.
    pub message: String,
}

/// What stopped the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// A client asked (`daemon:shutdown`: `paddock daemon stop` or `restart`).
    Requested,
    /// A signal (SIGTERM, SIGINT): systemd, `kill`, Ctrl-C in its terminal.
    Signal,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Active {
    pub project_slug: String,
    pub session_id: String,
    pub job_id: String,
    pub running: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resync {
    pub session_id: String,
    pub reason: ResyncReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResyncReason {
    /// The requested range is older than what the buffer still holds.
    AgedOut,
    /// This client's queue overflowed and its subscription was dropped.
    SlowClient,
    /// `lastSeq` is ahead of anything this daemon sent (it restarted).
    UnknownSeq,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatsChanged {
    pub project_slug: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// Something of a project other than its chats changed, by any client or agent: views that
/// show it read it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectChanged {
    pub project_slug: String,
    pub what: ProjectPart,
}

/// What of a project changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectPart {
    /// Its schedules and hooks (added, changed, removed, enabled, disabled).
    Triggers,
    /// Its git state (a commit or a push through paddockd).
    Git,
    /// What its chats read and wrote: a turn's steps were all recorded (after the turn ended).
    Files,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalsChanged {
    /// How many approvals are pending now.
    pub pending: u32,
}

/// Why a chat needs the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionKind {
    /// An unattended run (scheduled, hook, spawned) finished.
    Finished,
    /// A run failed.
    Failed,
    /// A tool call waits for approval.
    Approval,
    /// Two chats of a project changed the same files (said once per pair, when it starts).
    Overlap,
}

/// `attention`: a chat needs the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attention {
    /// Stable per event (`run:<jobId>`, `approval:<id>`): clients drop one they have seen.
    pub id: String,
    pub kind: AttentionKind,
    pub project_slug: String,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    /// Who started the run (for a badge).
    pub origin: Origin,
    /// The chat's title.
    pub title: String,
    /// One line for a person, e.g. `Scheduled run finished` or `Bash needs your approval: cargo test`.
    pub body: String,
    /// RFC 3339.
    pub at: String,
}
