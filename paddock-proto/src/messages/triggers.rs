//! Triggers: schedules and hooks, as `project.toml` holds them, and firing them.

use serde::{Deserialize, Serialize};

use super::*;

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerList {
    /// `None`: every project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerRef {
    pub project_slug: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerSet {
    pub project_slug: String,
    pub name: String,
    pub spec: TriggerSpec,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerFire {
    pub project_slug: String,
    pub name: String,
    /// Replaces the trigger's prompt for this fire (e.g. a webhook's payload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A schedule or a hook, as `project.toml` holds it (`[triggers.NAME]`) and the wire carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub struct TriggerSpec {
    pub kind: TriggerKind,
    /// What the started (or resumed) chat is told.
    pub prompt: String,
    /// Schedule: five-field cron, e.g. `0 2 * * 1-5`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cron: Option<String>,
    /// Schedule: an interval instead of cron, e.g. `15m`, `2h`, `1d`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<String>,
    /// Schedule: the cron's time zone (IANA name, e.g. `Europe/Berlin`); default UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Schedule: what to do about fires missed while the daemon was down.
    #[serde(default, skip_serializing_if = "MissedPolicy::is_default")]
    pub missed: MissedPolicy,
    /// Hook: the event that fires it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<HookEvent>,
    /// Hook `file_changed`: glob patterns relative to the project's directory (default: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Hook `file_changed`: quiet time before firing, in seconds (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debounce_secs: Option<u64>,
    /// `new`: every fire starts a chat. `resume`: fires accrete into the one chat the trigger
    /// owns, across fires and daemon restarts.
    #[serde(default, skip_serializing_if = "SessionPolicy::is_default")]
    pub session: SessionPolicy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// How long a tool call of this trigger's runs waits in the approvals inbox before it is
    /// denied; `0` waits for a person. Default: the instance's `approval_timeout_secs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_timeout_secs: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerKind {
    Schedule,
    Hook,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissedPolicy {
    /// Fires missed while the daemon was down are dropped.
    #[default]
    Skip,
    /// One catch-up fire at start when any was missed.
    RunOnce,
}

impl MissedPolicy {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionPolicy {
    #[default]
    New,
    Resume,
}

impl SessionPolicy {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookEvent {
    /// A turn in one of the project's chats completed.
    TurnCompleted,
    /// A turn in one of the project's chats failed.
    TurnFailed,
    /// A spawned chat finished a turn (its parent is told).
    ChildFinished,
    /// A file under the project's directory changed.
    FileChanged,
    /// Only `paddock trigger fire` (the scriptable webhook).
    Manual,
    /// One of the project's chats was archived, by a person or an agent (the reference's
    /// `onArchive`).
    Archived,
}

/// A trigger and what the daemon knows of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerInfo {
    pub project_slug: String,
    pub name: String,
    pub spec: TriggerSpec,
    /// A schedule's next fire (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_fire: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_fire: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_status: Option<RunStatus>,
    /// The chat a `resume` trigger owns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Why the trigger cannot run (a bad cron, an unknown time zone), if it cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Triggers {
    pub triggers: Vec<TriggerInfo>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fired {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Set when the fire was skipped (its previous run still going).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}
