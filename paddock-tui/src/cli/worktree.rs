//! `paddock worktree`: the chats that work in a git worktree of their own, and merging,
//! updating, discarding and pruning them.

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum WorktreeCmd {
    /// The worktree chats: branch, target, commits ahead and behind, changed files
    #[command(
        long_about = "\
List the chats that work in a git worktree of their own (`paddock send --worktree`, or a \
project whose isolation is worktree): per chat its id, project, branch, the branch its work is \
for (its target; `chat 7ce589bd`, say, for a child that merges into its parent chat's worktree), how \
many commits it is ahead of and behind that target, how many files its work changes (committed, \
uncommitted and untracked, against where it started), its title, and marks: `merged` once \
merged, `missing` when its folder was removed by hand, `orphan` when its chat was deleted.

--orphans lists only the worktrees whose chat was deleted (kept because they hold unmerged \
work, or made before the chat was); `paddock worktree prune` removes those without unmerged \
work.

--json prints {worktrees: [{sessionId, projectSlug, title, orphan, worktree: {path, prefix, \
branch, base, target, targetChat, createdAt, ahead, behind, changedFiles, merged: {commit, into, \
squash, at}, missing}, overlaps: [{sessionId, files}]}]}. A key whose value is false, empty or \
unknown is left out (title of a deleted chat, orphan, prefix at the repository's top, targetChat, \
merged, missing, overlaps, squash).",
        after_help = "\
Examples:
  paddock worktree ls
  paddock worktree ls -p web --json | jq -r '.worktrees[] | select(.worktree.ahead > 0) | .sessionId'
  paddock worktree ls --orphans"
    )]
    Ls(WorktreeLsArgs),
    /// Bring a worktree chat's work into its target, safely (tried first; a conflict changes nothing)
    #[command(
        long_about = "\
Merge a worktree chat's work into its target: the branch it was made from (in the project's \
checkout, when that has it checked out), or for a child of a worktree chat its parent's \
worktree. First the chat's uncommitted work is committed on its branch. Then the merge is tried \
without touching any checkout (git merge-tree); only a clean result is applied, as a merge \
commit (--squash: one commit with the work's changes) that the target's checkout is \
fast-forwarded to, or that the branch is moved to when no checkout has it.

Refused, changing nothing, with the files named: a conflict (bring the chat up to date with \
`paddock worktree rebase` first, or ask the chat to resolve it); uncommitted changes in the \
target's checkout to files the merge changes (commit or stash them); the target checked out in \
another worktree (merge there by hand); a turn of the chat running. Your other uncommitted \
changes in the checkout are kept as they are.

Prints the new commit, the branch it went into and the files it changed. Exit status 1 on a \
refusal. --json prints {sessionId, into, commit, squash, files, committed, checkout}; squash, \
committed (no uncommitted work) and checkout (the branch was moved, no checkout has it) are left \
out when false or absent.",
        after_help = "\
Examples:
  paddock worktree merge 7ce589bd
  paddock worktree merge 7ce589bd --squash -m 'Fix the cookie refresh race'"
    )]
    Merge(WorktreeMergeArgs),
    /// Bring a worktree chat up to date with its target (a rebase; a conflict changes nothing)
    #[command(
        long_about = "\
Rebase a worktree chat's branch onto its target's current commit, so its work sits on what \
the target holds now. The chat's uncommitted work is committed on its branch first. On a \
conflict the rebase is aborted and the files named (exit status 1): ask the chat to merge the \
target and resolve them. Refused while a turn of the chat runs.

--json prints {sessionId, onto, base, committed}.",
        after_help = "\
Examples:
  paddock worktree rebase 7ce589bd"
    )]
    Rebase(WorktreeChatArgs),
    /// Remove a worktree chat's worktree and branch (asks first; never loses unmerged work silently)
    #[command(
        long_about = "\
Remove a chat's worktree folder and its branch. The chat itself stays (its transcript, its \
history); its next message runs in the project's directory.

Refused, removing nothing, when the branch holds work its target lacks, judged by content (a \
branch merged with --squash, or whose changes were made on the target some other way, counts as \
merged): the files are named; --force removes it anyway. A terminal is asked y/N first; a script \
passes --yes. Refused while a turn of the chat runs. paddockd only ever removes worktrees and \
branches it made.

SESSION may also name a chat that was deleted (its worktree an orphan): `paddock worktree ls \
--orphans` lists them.",
        after_help = "\
Examples:
  paddock worktree discard 7ce589bd
  paddock worktree discard 7ce589bd --force --yes"
    )]
    Discard(WorktreeDiscardArgs),
    /// Remove the worktrees of deleted chats that hold no unmerged work
    #[command(
        long_about = "\
Remove every worktree whose chat was deleted and whose branch holds no work its target lacks, \
with its branch; list those kept and why (unmerged work: merge it by hand, or discard it with \
--force). Worktrees of chats that exist are never pruned.

--json prints {removed: [entry], kept: [entry with reason]}, entries as `worktree ls --json`.",
        after_help = "\
Examples:
  paddock worktree prune
  paddock worktree prune -p web --json"
    )]
    Prune(WorktreePruneArgs),
}

#[derive(Debug, Args)]
pub struct WorktreeLsArgs {
    /// Only this project's [default: every project's]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Only the worktrees whose chat was deleted
    #[arg(long)]
    pub orphans: bool,
    /// Print the list as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct WorktreeMergeArgs {
    /// The chat (a session id, or a unique prefix of one)
    pub session: String,
    /// One commit with the work's changes instead of a merge commit
    #[arg(long)]
    pub squash: bool,
    /// The commit's message [default: names the chat, its branch and its title]
    #[arg(short = 'm', long = "message", value_name = "MESSAGE")]
    pub message: Option<String>,
    /// Print the merge as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct WorktreeChatArgs {
    /// The chat (a session id, or a unique prefix of one)
    pub session: String,
    /// Print the result as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct WorktreeDiscardArgs {
    /// The chat (a session id, or a unique prefix of one; a deleted chat's too)
    pub session: String,
    /// Also when its branch holds work its target lacks (that work is lost)
    #[arg(long)]
    pub force: bool,
    /// Do not ask first (what a script passes)
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Print what was removed as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct WorktreePruneArgs {
    /// Only this project's [default: every project's]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Print what was removed and kept as one JSON object
    #[arg(long)]
    pub json: bool,
}
