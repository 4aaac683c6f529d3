//! Git: a project's status, diff, commit and push, whole or limited to a scope.

use serde::{Deserialize, Serialize};

use super::*;

/// Which changes of a project a git request is about: all of them, or only the files that the
/// steps of a turn, a chat, or a chat and its descendants wrote (from file provenance).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GitScope {
    /// Every change in the project's directory.
    #[default]
    Project,
    /// The files one chat's turns wrote.
    #[serde(rename_all = "camelCase")]
    Chat { session_id: String },
    /// The files a chat and every chat under it in the tree wrote.
    #[serde(rename_all = "camelCase")]
    Subtree { session_id: String },
    /// The files one turn of a chat wrote.
    #[serde(rename_all = "camelCase")]
    Turn { session_id: String, job_id: String },
}

impl GitScope {
    pub fn is_project(&self) -> bool {
        matches!(self, GitScope::Project)
    }
}

/// `git:status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitStatusRequest {
    pub project_slug: String,
    #[serde(default, skip_serializing_if = "GitScope::is_project")]
    pub scope: GitScope,
}

/// `git:diff`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitDiffRequest {
    pub project_slug: String,
    #[serde(default, skip_serializing_if = "GitScope::is_project")]
    pub scope: GitScope,
    /// One file (relative to the project's directory) instead of all of the scope's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// `git:commit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitCommitRequest {
    pub project_slug: String,
    #[serde(default, skip_serializing_if = "GitScope::is_project")]
    pub scope: GitScope,
    pub message: String,
    /// Commit only these of the scope's changed files (relative to the project's directory).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
}

/// A project's git status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitStatus {
    pub project_slug: String,
    /// False: the project's directory is not in a git repository (and the rest is empty).
    pub is_repo: bool,
    /// The checked-out branch; absent when HEAD is detached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The abbreviated commit HEAD points at; absent before the first commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The branch's upstream, e.g. `origin/main`, and how far apart they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ahead: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind: Option<u32>,
    /// The changed files (of the scope), sorted by path.
    pub files: Vec<GitFile>,
    /// Changed files left out because the scope's steps did not write them.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub hidden: u32,
    /// What the scope may be missing (incomplete steps), for a person.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The project's worktree chats, each with its work (a project's status only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub worktrees: Vec<WorktreeEntry>,
}

/// One changed file, as `git status` sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitFile {
    /// Relative to the project's directory.
    pub path: String,
    /// The path it was renamed or copied from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orig_path: Option<String>,
    /// Git's status letter in the index (`M`, `A`, `D`, `R`, `C`, `U`, `?`), `.` when unchanged.
    pub index: String,
    /// The same in the working tree.
    pub worktree: String,
}

/// A diff against HEAD.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitDiff {
    pub project_slug: String,
    pub is_repo: bool,
    /// Unified diff text, untracked files shown as added.
    pub diff: String,
    /// The files the diff covers.
    pub files: Vec<String>,
    /// The diff was cut at its bound (2 MB).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Changed files left out because the scope's steps did not write them.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub hidden: u32,
}

/// A commit made by `git:commit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitCommitted {
    pub project_slug: String,
    /// The new commit's full id.
    pub commit: String,
    pub branch: String,
    /// The files it committed, relative to the project's directory.
    pub files: Vec<String>,
}

/// `git:push`: the current branch to its upstream, or, without one, to `origin` (which then
/// becomes its upstream).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitPushRequest {
    /// The project whose directory's repository to push; `""` with `dataRoot`.
    pub project_slug: String,
    /// Push the data directory's own repository (where the sweeper commits) instead.
    #[serde(default, skip_serializing_if = "is_false")]
    pub data_root: bool,
}

/// What `git:push` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitPushed {
    pub project_slug: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub data_root: bool,
    /// The local branch pushed.
    pub branch: String,
    /// The remote's name, e.g. `origin`.
    pub remote: String,
    /// The branch on the remote, e.g. `main`.
    pub remote_branch: String,
    /// The remote branch's commit before the push (full id); absent when the push created it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The commit the remote branch is at now (full id).
    pub to: String,
    /// Nothing to push: the remote branch was already at `to`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub up_to_date: bool,
    /// The branch had no upstream; this push made the remote branch its upstream.
    #[serde(default, skip_serializing_if = "is_false")]
    pub set_upstream: bool,
}
