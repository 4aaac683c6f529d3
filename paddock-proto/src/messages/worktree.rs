//! Worktree chats (a chat in a git worktree of its own): the list of them, and merging one
//! back, bringing one up to date, throwing one away, pruning those whose chat is gone.

use serde::{Deserialize, Serialize};

use super::*;

/// The latest merge of a worktree chat's work into its target.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeMergeRecord {
    /// The commit that brought the work into the target.
    pub commit: String,
    /// The target branch it went into.
    pub into: String,
    /// One commit with the work's changes, not a merge commit.
    #[serde(default, skip_serializing_if = "is_false")]
    pub squash: bool,
    /// RFC 3339.
    pub at: String,
}

/// `worktree:list`: the worktree chats of a project (absent: of every project).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeList {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
    /// Only the worktrees whose chat was deleted.
    #[serde(default, skip_serializing_if = "is_false")]
    pub orphans: bool,
}

/// One worktree paddockd made for a chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeEntry {
    pub session_id: String,
    pub project_slug: String,
    /// The chat's title; absent when the chat is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its chat was deleted: `worktree prune` removes it unless it holds unmerged work.
    #[serde(default, skip_serializing_if = "is_false")]
    pub orphan: bool,
    pub worktree: ChatWorktree,
    /// Other chats of the project that changed some of the same files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overlaps: Vec<ChatOverlap>,
}

/// The worktree chats.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Worktrees {
    pub worktrees: Vec<WorktreeEntry>,
}

/// `worktree:merge`: bring a worktree chat's work into its target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeMerge {
    pub session_id: String,
    /// One commit with the work's changes instead of a merge commit.
    #[serde(default, skip_serializing_if = "is_false")]
    pub squash: bool,
    /// The commit's message (default: names the chat and its title).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A merge made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeMerged {
    pub session_id: String,
    /// The branch the work went into.
    pub into: String,
    /// The new commit on it.
    pub commit: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub squash: bool,
    /// The files it changed in the target, relative to the project's folder.
    pub files: Vec<String>,
    /// The chat's uncommitted work was committed on its branch first (that commit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub committed: Option<String>,
    /// The checkout updated to the new commit (the target's, or its parent chat's worktree);
    /// absent when the target is checked out nowhere (only the branch moved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkout: Option<String>,
}

/// `worktree:rebase`: bring a worktree chat up to date with its target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeRebase {
    pub session_id: String,
}

/// A chat brought up to date with its target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeRebased {
    pub session_id: String,
    /// The target branch and the commit of it the chat's work now sits on.
    pub onto: String,
    pub base: String,
    /// The chat's uncommitted work was committed on its branch first (that commit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub committed: Option<String>,
}

/// `worktree:discard`: remove a chat's worktree and its branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeDiscard {
    pub session_id: String,
    /// Also when its branch holds work its target lacks.
    #[serde(default, skip_serializing_if = "is_false")]
    pub force: bool,
    /// Only check: answer what would be removed (or the refusal), removing nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dry_run: bool,
}

/// A worktree removed with its branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeDiscarded {
    pub session_id: String,
    pub path: String,
    pub branch: String,
    /// The branch's work was not in its target (removed with `force`): these files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lost: Vec<String>,
}

/// `worktree:prune`: remove the worktrees whose chat was deleted and that hold no unmerged
/// work (of a project; absent: every project).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreePrune {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
}

/// What `worktree:prune` removed, and what it kept and why.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreePruned {
    pub removed: Vec<WorktreeEntry>,
    pub kept: Vec<WorktreeKept>,
}

/// An orphan worktree `worktree:prune` left alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeKept {
    #[serde(flatten)]
    pub entry: WorktreeEntry,
    /// Why, and what to do.
    pub reason: String,
}
