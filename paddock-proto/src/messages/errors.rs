//! Errors a request can be answered with, and the details some of them carry.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub code: ErrorCode,
    /// One sentence for a person, saying what to do.
    pub message: String,
    /// Set with `protocol_mismatch`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<Box<ProtocolMismatch>>,
    /// Set with `git_failed`: why, and what git said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitFailure>,
    /// The files the refusal is about: those a merge or rebase would conflict on (with
    /// `conflict`), or the uncommitted ones a merge would overwrite.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            mismatch: None,
            git: None,
            files: Vec::new(),
        }
    }
}

impl std::fmt::Display for ErrorBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The client and daemon speak different protocol versions.
    ProtocolMismatch,
    /// A request came before `hello`.
    HelloRequired,
    /// The line was not a valid message.
    MalformedFrame,
    /// The line exceeded the maximum length.
    FrameTooLarge,
    InvalidArgument,
    NotFound,
    AlreadyExists,
    /// The chat is running a turn and cannot take this request now.
    Busy,
    /// The daemon is shutting down.
    ShuttingDown,
    /// The peer is another user: the daemon serves only its own user.
    PermissionDenied,
    /// git ran and failed (a push the remote rejected, credentials it could not get, a remote
    /// it could not reach); the body's `git` says why and carries git's own words.
    GitFailed,
    /// Work would collide (a merge or rebase conflict, uncommitted changes a merge would
    /// overwrite, unmerged work a discard would lose): nothing was changed, `files` names the
    /// files and the message says what to do.
    Conflict,
    Internal,
}

/// Why git failed, with what it said (`error.git`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitFailure {
    pub reason: GitFailureReason,
    /// git's stderr, trimmed (empty when it said nothing).
    pub stderr: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GitFailureReason {
    /// The remote has commits the branch lacks (not a fast-forward): pull or rebase first.
    Rejected,
    /// No credentials, or they were refused (git was not allowed to prompt for them).
    Auth,
    /// git did not finish within its time limit and was stopped.
    Timeout,
    /// Anything else: git's stderr says what.
    Other,
}

/// What a client needs to act on a version mismatch (restart an idle daemon, or say what to do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProtocolMismatch {
    pub daemon_protocol: u32,
    pub daemon_version: String,
    pub pid: u32,
    /// Turns running now: a daemon with none can be restarted safely.
    pub running_turns: u32,
}
