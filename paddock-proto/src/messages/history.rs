//! Run history ("while you were away") and adopting terminal `claude` sessions.

use serde::{Deserialize, Serialize};

use super::*;

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryList {
    /// `None`: every project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
    /// Only runs that ran without the user (not `human`, not `adopted`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub unattended: bool,
    /// At most this many runs, newest first (default 100, at most 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatImport {
    pub project_slug: String,
    /// The directory whose terminal sessions to adopt; default: the project's own directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Report what would be adopted, change nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dry_run: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    pub runs: Vec<RunSummary>,
    /// When this user last looked at the history (RFC 3339), if ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<String>,
    /// Unattended runs that finished since then: "while you were away".
    pub new_unattended: u32,
    /// Listed unattended runs that wait for a person now (a tool call's approval, or a
    /// paused call): they count in "while you were away" too.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub waiting: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One run: a turn the daemon ran, or an adopted chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub job_id: String,
    pub project_slug: String,
    pub session_id: String,
    /// The chat's title now.
    pub title: String,
    /// Who started this run.
    pub origin: Origin,
    /// The chat's spawn depth.
    pub depth: u32,
    /// The schedule or hook that fired it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    pub status: RunStatus,
    /// RFC 3339.
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The prompt, cut to 200 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Who injected the run's message, as the transcript labels it: another chat (`sent`,
    /// with the sender's title then), a schedule, a hook, recovery. Absent for a person's
    /// turn and for runs recorded before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
    /// Unattended and finished since the user last looked.
    pub is_new: bool,
    /// Running, and waiting for a person: a call of it is in the approvals inbox.
    #[serde(default, skip_serializing_if = "is_false")]
    pub waiting: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Completed,
    Failed,
    Cancelled,
    /// The daemon stopped (or was killed) while it ran.
    Interrupted,
    /// A trigger fired while its previous run was still going: nothing ran.
    Skipped,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Imported {
    pub project_slug: String,
    /// The directory whose sessions were looked at.
    pub path: String,
    pub adopted: Vec<String>,
    pub skipped: Vec<ImportSkip>,
    pub dry_run: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportSkip {
    pub session_id: String,
    /// sidechain, already_present, empty, slash_command_only, unreadable, other_directory
    pub reason: String,
}
