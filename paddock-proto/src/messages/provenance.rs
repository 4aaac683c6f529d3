//! File provenance: who produced a file, from what, and whether it still is what they
//! wrote; the files a chat touched; blame; lineage.

use serde::{Deserialize, Serialize};

/// `provenance:file`: one file of a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProvenanceFile {
    /// The project; absent: the project whose directory holds `path` (then `path` must be
    /// absolute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
    /// Relative to the project's directory, or absolute inside it.
    pub path: String,
}

/// Whether a file still is what its latest recorded write left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    /// The bytes on disk match the hash recorded at the latest write.
    Current,
    /// They differ (or the file is gone).
    Stale,
    /// No identity to check: no recorded write, no hash, or the file could not be read.
    Unverified,
}

/// How a step's effect on a file is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileEdge {
    /// The tool named the file (Edit, Write, Read...).
    Observed,
    /// A before/after scan or the command line suggests it.
    Inferred,
}

/// A file's provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    pub project_slug: String,
    /// Relative to the project's directory.
    pub path: String,
    pub status: FileStatus,
    /// Why the status is what it is, for a person.
    pub status_reason: String,
    /// `sha256:HEX` of the bytes on disk now, when the file could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_hash: Option<String>,
    /// The steps that wrote the file, newest first.
    pub producers: Vec<FileStep>,
    /// The steps that read it, newest first.
    pub readers: Vec<FileStep>,
    pub lineage: Lineage,
    /// What the records may be missing (dropped events, scans that failed), for a person.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The environments the steps above ran in (each once), by the `environment` they name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub environments: Vec<Environment>,
}

/// A snapshot of a project's environment, taken when a chat's first turn starts and again
/// after an install-shaped command; content-addressed, so steps with the same environment
/// share one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Environment {
    /// Hex sha256 of the snapshot's canonical JSON (every field below).
    pub hash: String,
    /// `git rev-parse HEAD` in the project's directory, when it is a repository with a commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_head: Option<String>,
    /// Tool name (`rustc`, `node`, `python3`) to the first line of its `--version`; tools
    /// that are missing or too slow to answer are left out.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub toolchains: std::collections::BTreeMap<String, String>,
    /// Root lockfile name (`Cargo.lock`, `package-lock.json`...) to `sha256:HEX` of its bytes.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub lockfiles: std::collections::BTreeMap<String, String>,
    /// `OS ARCH`, e.g. `linux x86_64`.
    pub os: String,
    /// `PRETTY_NAME` of `/etc/os-release`, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_name: Option<String>,
}

/// One step (one tool call of a chat's turn) touching a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileStep {
    pub session_id: String,
    pub job_id: String,
    pub step_id: String,
    /// The chat's title, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool, e.g. `Edit`, `Bash`.
    pub tool: String,
    /// When the tool call ended (RFC 3339).
    pub at: String,
    pub edge: FileEdge,
    /// `created`, `modified` or `deleted` (scan-inferred writes), `wrote` or `read`.
    pub change: String,
    /// `sha256:HEX` recorded right after the write (or at read time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// The hash of the environment the step started in (one of the reply's `environments`);
    /// absent for steps recorded before environments were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// The chat's model, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The step is a subagent's tool call (the Agent tool), harvested from its transcript when
    /// it finished: who it was. Its hashes were taken at harvest, not at the write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specialist: Option<Specialist>,
}

/// A subagent (Claude Code's Agent tool) whose tool calls were harvested into its chat's steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Specialist {
    /// The CLI's agent id (`agent-<id>.jsonl` in the session's `subagents/` folder).
    pub agent_id: String,
    /// Its agent type, e.g. `general-purpose`.
    pub name: String,
    /// What the lead asked of it (the Agent call's `description`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// `provenance:touched`: a chat's files, or one turn's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProvenanceTouched {
    pub project_slug: String,
    pub session_id: String,
    /// Only this turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
}

/// Whether a step read or wrote a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileRole {
    Read,
    Write,
}

/// A chat's files, turn by turn (oldest turn first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Touched {
    pub project_slug: String,
    pub session_id: String,
    pub turns: Vec<TouchedTurn>,
    /// What the records may be missing (dropped events, scans that failed), for a person.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The files one turn touched: each path once per role, the last step's edge and change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TouchedTurn {
    pub job_id: String,
    /// When its first recorded step started (RFC 3339).
    pub started_at: String,
    pub files: Vec<TouchedFile>,
    /// The first line of the turn's prompt (at most 80 characters), when the run log has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The project whose files the turn touched, when it is not the chat's now (the chat was
    /// moved since, `chat:promote`): its paths are relative to that project's directory, and
    /// its statuses are checked there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TouchedFile {
    /// Relative to the project's directory (absolute when outside it).
    pub path: String,
    pub role: FileRole,
    pub edge: FileEdge,
    /// `wrote`, `read`, or a scan's `created` / `modified` / `deleted`.
    pub change: String,
    /// The tool of the turn's last step on this file.
    pub tool: String,
    /// For writes: whether the file still is what this turn left (`current`), has changed
    /// since (`stale`), or cannot be checked (`unverified`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<FileStatus>,
    /// The write was a subagent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specialist: Option<Specialist>,
}

/// `provenance:blame`: a file's lines, and for each region who last wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Blame {
    pub project_slug: String,
    /// Relative to the project's directory.
    pub path: String,
    /// The file's lines now, without their line ends.
    pub lines: Vec<String>,
    /// Consecutive, covering every line once, in order.
    pub regions: Vec<BlameRegion>,
    /// What the answer may be missing (versions not kept, dropped events), for a person.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Lines `start..=end` (1-based) and who last wrote them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlameRegion {
    pub start: u32,
    pub end: u32,
    pub by: BlameSource,
}

/// Who last wrote a region of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BlameSource {
    /// A step of a chat's turn.
    Step(Box<FileStep>),
    /// A commit, for lines no recorded step changed since.
    Commit(BlameCommit),
    /// Changed by nothing the daemon recorded: the user's own edits, or a write it did not see.
    Unknown,
}

/// A commit, as `provenance:blame` names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlameCommit {
    /// The full hash.
    pub sha: String,
    pub summary: String,
    pub author: String,
    /// RFC 3339.
    pub at: String,
}

/// The walk from a file to the steps and inputs that produced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lineage {
    /// The file first, then what it came from, breadth first; one version per path.
    pub nodes: Vec<LineageNode>,
    /// The walk stopped at its bounds (60 nodes, 12 hops): more inputs exist.
    pub truncated: bool,
}

/// One file version in a lineage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineageNode {
    pub path: String,
    /// Hops from the file asked about.
    pub hops: u32,
    /// The step that produced this version (at or before the step that used it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producer: Option<FileStep>,
    /// The paths this version came from (each is a node of its own, unless the walk stopped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    /// No recorded step produced it: a file the user made, or one that was there before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missing_origin: bool,
    /// Changed since use: the file's bytes now differ from this version (the one the lineage
    /// used), so the files made from it were made from something that is no longer there.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub changed_since_use: bool,
}
