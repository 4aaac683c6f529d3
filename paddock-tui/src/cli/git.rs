//! `paddock git`: a project's changes, whole or a chat's, and pushing them.

use clap::{Args, Subcommand};

/// A git command's project and scope.
#[derive(Debug, Args)]
pub struct GitScopeArgs {
    /// The project [default: the chat's, with --chat or --turn; else the root workspace]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Only the files this chat's tool calls wrote
    #[arg(long, value_name = "SESSION", conflicts_with = "turn")]
    pub chat: Option<String>,
    /// With --chat: also the files of every chat below it (its children, their children...)
    #[arg(long, requires = "chat")]
    pub subtree: bool,
    /// Only the files one turn wrote: the chat's session id and the turn's job id
    #[arg(long, value_name = "SESSION:JOB")]
    pub turn: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum GitCmd {
    /// The branch, how far it is from its upstream, and the changed files
    #[command(
        long_about = "\
Show the branch, the abbreviated HEAD, the upstream and how far ahead and behind it is, then one \
line per changed file in git's short format: two status letters (the index's, then the working \
tree's: M modified, A added, D deleted, R renamed, U unmerged, ?? untracked) and the path, \
relative to the project's directory. A scoped status lists only the scope's files and says how \
many other changed files it left out. A directory outside any repository says so (exit status 0).

--json prints the daemon's reply as one object: {projectSlug, isRepo, branch, head, upstream, \
ahead, behind, files: [{path, origPath, index, worktree}] (`.` where unchanged), hidden, notes}.",
        after_help = "\
Examples:
  paddock git status -p web
  paddock git status --chat SESSION --subtree
  paddock git status --turn SESSION:JOB --json | jq -r '.files[].path'"
    )]
    Status(GitStatusArgs),
    /// The diff of the changes against HEAD, untracked files shown as added
    #[command(
        long_about = "\
Print the unified diff of the changes against HEAD (staged and unstaged together; untracked \
files as added), limited to the scope's files, or to PATH. Plain text on stdout, for a pager or \
a file. The diff is cut at 2 MB, which is said on stderr.

--json prints {projectSlug, isRepo, diff, files, truncated, hidden}.",
        after_help = "\
Examples:
  paddock git diff -p web | less -R
  paddock git diff --chat SESSION src/auth/cookie.ts
  paddock git diff --turn SESSION:JOB > turn.patch"
    )]
    Diff(GitDiffArgs),
    /// Commit the scope's changed files (only those; other changes stay as they are)
    #[command(
        long_about = "\
Stage and commit exactly the scope's changed files, or the PATHs given (each must be one of \
them), with the message. Other changes, staged or not, are left as they were. The author is your \
git configuration (user.name and user.email); without one the error says how to set it.

Refused with a reason: an empty message, nothing to commit, a detached HEAD, or a merge or \
rebase in progress. Prints the new commit's short id, its branch and the files.

With --push, the branch is then pushed as `paddock git push` does; a push that fails leaves the \
commit made (exit status 1).

--json prints {projectSlug, commit, branch, files}; with --push, {committed: that, pushed: \
what `paddock git push --json` prints}.",
        after_help = "\
Examples:
  paddock git commit --chat SESSION -m 'Fix the cookie refresh race'
  paddock git commit --chat SESSION --subtree -m 'Nightly clean-up'
  paddock git commit -p web -m 'Docs' docs/API.md --push"
    )]
    Commit(GitCommitArgs),
    /// Push the branch to its upstream (the first time, to origin, which becomes the upstream)
    #[command(
        long_about = "\
Push the project's checked-out branch to its upstream. A branch with no upstream goes to the \
branch of the same name on `origin`, which becomes its upstream; with no `origin` either, the \
error says how to add one. Never forced. With --data-root, the data directory's own repository \
(where paddockd commits the curated files and the chats) is pushed instead.

git runs without prompts (no terminal, no askpass program, ssh in batch mode), so missing \
credentials fail at once with git's message: set up a credential helper or an ssh agent. It is \
stopped after 120 s.

Prints the branch, the remote branch and the commits it moved between, or that it was up to \
date. Refused with a reason: a detached HEAD, a branch with no commits, no remote. When git \
fails (the remote has commits the branch lacks: pull or rebase first; credentials; an \
unreachable remote) the error says why and quotes git (exit status 1).

--json prints {projectSlug, dataRoot, branch, remote, remoteBranch, from, to, upToDate, \
setUpstream}.",
        after_help = "\
Examples:
  paddock git push -p web
  paddock git push --data-root
  paddock git push -p web --json | jq -r .to"
    )]
    Push(GitPushArgs),
}

#[derive(Debug, Args)]
pub struct GitStatusArgs {
    #[command(flatten)]
    pub scope: GitScopeArgs,
    /// Print the status as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct GitDiffArgs {
    #[command(flatten)]
    pub scope: GitScopeArgs,
    /// One file, relative to the project's directory
    pub path: Option<String>,
    /// Print the diff and what it covers as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct GitCommitArgs {
    #[command(flatten)]
    pub scope: GitScopeArgs,
    /// The commit message
    #[arg(short = 'm', long = "message", value_name = "MESSAGE", required = true)]
    pub message: String,
    /// Only these of the scope's changed files, relative to the project's directory
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
    /// Then push the branch to its upstream, as `paddock git push` does
    #[arg(long)]
    pub push: bool,
    /// Print the new commit as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct GitPushArgs {
    /// The project [default: the root workspace]
    #[arg(
        short = 'p',
        long = "project",
        value_name = "SLUG",
        conflicts_with = "data_root"
    )]
    pub project: Option<String>,
    /// Push the data directory's own repository (where paddockd commits its files) instead
    #[arg(long)]
    pub data_root: bool,
    /// Print what was pushed as one JSON object
    #[arg(long)]
    pub json: bool,
}
