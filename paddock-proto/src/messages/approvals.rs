//! Tool calls waiting for a person, and the answers to them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::*;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalAnswer {
    /// 1 to 500 approval ids; all-or-nothing on validation.
    pub ids: Vec<String>,
    pub decision: ApprovalDecision,
    /// Told to the agent with a denial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    Allow,
    Deny,
    /// Allow, and add the approval's `alwaysRules` to the project's allowed tools, so a call
    /// they cover is not asked again.
    Always,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Approvals {
    pub approvals: Vec<Approval>,
}

/// A tool call waiting for a person: what it is, and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    pub id: String,
    pub project_slug: String,
    pub session_id: String,
    pub job_id: String,
    /// The chat's title, and its origin and depth (for the badge).
    pub title: String,
    pub origin: Origin,
    pub depth: u32,
    /// The tool, e.g. `Bash`, `Edit`, `mcp__paddock_manage__create_chat`.
    pub tool: String,
    pub input: Value,
    /// A short preview: the command, or a diff of an edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// RFC 3339.
    pub asked_at: String,
    /// The rules an `always` answer adds to the project's `allowedTools`, exactly as written
    /// there: what makes this call allowed next time and nothing wider (`Bash(mkdir:*)` and
    /// `Write(build/**)` for `mkdir -p build && echo x > build/a`; `Read(/home/ana/notes.txt)`,
    /// the one file, outside the project; a bare tool name for a tool without an input to
    /// scope). Empty when no rule can cover the call: `alwaysWhyNot` says why, and `always`
    /// then allows this call only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub always_rules: Vec<String>,
    /// Why no rule can cover the call (a command substitution, a path that leads into
    /// paddockd's own state, …); absent when `alwaysRules` has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always_why_not: Option<String>,
    /// What waits: a tool call no rule allows (`tool`, the default, left out), or a call
    /// paused because its spawn tree hit a cap (`cap`: `preview` says which; `allow` lifts the
    /// cap and the call runs, `deny` gives the agent an error).
    #[serde(default, skip_serializing_if = "ApprovalKind::is_tool")]
    pub kind: ApprovalKind,
}

/// What an [`Approval`] waits on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalKind {
    /// A tool call no rule allows (`can_use_tool`).
    #[default]
    Tool,
    /// A self-management call paused by its spawn tree's per-minute cap.
    Cap,
}

impl ApprovalKind {
    /// Whether it is the default, [`ApprovalKind::Tool`] (not written on the wire).
    #[must_use]
    pub fn is_tool(&self) -> bool {
        *self == Self::Tool
    }
}
