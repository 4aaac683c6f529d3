//! The chat commands: `ls`, `send`, `tail`, `show`, `fork`, `archive` and the other
//! updates, `delete`, `search`, `history`, `import`, `usage` and `attachment`.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub struct AttachmentArgs {
    /// The attachment's id (`<uuid><ext>`)
    pub id: String,
    /// Write to this file instead of stdout
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct UsageArgs {
    /// Only this project's chats [default: every project]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Only this chat and the chats under it in the tree
    #[arg(long, value_name = "SESSION")]
    pub subtree: Option<String>,
    /// Only archived chats
    #[arg(long, conflicts_with = "all")]
    pub archived: bool,
    /// Active and archived chats
    #[arg(long)]
    pub all: bool,
    /// How many of the costliest chats to list
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// Print the report as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct LsArgs {
    /// The project [default: the root workspace]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// List only archived chats
    #[arg(long, conflicts_with = "all")]
    pub archived: bool,
    /// List active and archived chats
    #[arg(long)]
    pub all: bool,
    /// Every project's chats, project by project (the root workspace first)
    #[arg(short = 'A', long, conflicts_with = "project")]
    pub all_projects: bool,
    /// Print one JSON array of chat objects
    #[arg(long)]
    pub json: bool,
    /// Each chat's whole title: without it a title over 200 characters, such as a long pasted
    /// first prompt, is cut there and ends in "…" (with --json), and on a terminal each title
    /// is cut to fit the row in its width
    #[arg(long)]
    pub full_titles: bool,
}

#[derive(Debug, Args)]
pub struct SendArgs {
    /// The project of a new chat [default: the root workspace; with -c, the chat's own project]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Continue this chat instead of starting a new one
    #[arg(short = 'c', long = "session", value_name = "SESSION")]
    pub session: Option<String>,
    /// The model for a new chat (e.g. `sonnet`, `opus`) [default: the daemon's]
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Return once the turn is accepted, printing the session id to stdout
    #[arg(long)]
    pub detach: bool,
    /// With -c, when the chat is running a turn: queue the message as its follow-up, sent
    /// when that turn ends well (after a queued one already there; every client shows it),
    /// then stream the follow-up's reply. Without it a running chat refuses the message
    #[arg(long, requires = "session", conflicts_with_all = ["attach", "model", "detach"])]
    pub queue: bool,
    /// Start the new chat from the project's curated context: its OVERVIEW.md and the end of
    /// its CHANGELOG.md go before the message (when it has an overview)
    #[arg(long, conflicts_with = "session")]
    pub preload: bool,
    /// Start the new chat in a git worktree of its own: a folder paddockd owns, on a branch
    /// of its own from the project's HEAD, so its edits never meet another chat's (the
    /// project must be in a git repository with a commit); the default when the project's
    /// isolation is worktree (`paddock project set SLUG --isolation worktree`)
    #[arg(long, conflicts_with = "session")]
    pub worktree: bool,
    /// Start the new chat in the project's directory, though its isolation is worktree
    #[arg(long, conflicts_with_all = ["session", "worktree"])]
    pub no_worktree: bool,
    /// The worktree's branch [default: paddock/<first 8 of the session id>] (implies --worktree)
    #[arg(long, value_name = "NAME", conflicts_with_all = ["session", "no_worktree"])]
    pub branch: Option<String>,
    /// What the worktree starts from: a commit, branch or tag [default: the project's HEAD]
    /// (implies --worktree)
    #[arg(long, value_name = "REF", conflicts_with_all = ["session", "no_worktree"])]
    pub base: Option<String>,
    /// Attach a file to the message (repeatable): images and PDFs reach the model as they are,
    /// other files it reads; the daemon keeps a copy (limits: attachments_* in its config)
    #[arg(short = 'a', long = "attach", value_name = "FILE")]
    pub attach: Vec<PathBuf>,
    /// Print every frame of the turn as one JSON line instead of the reply text (with
    /// --detach: the accepted turn, {projectSlug, sessionId, jobId, queued})
    #[arg(long)]
    pub json: bool,
    /// The message; `-` reads it from stdin (so does no TEXT when stdin is not a terminal)
    #[arg(value_name = "TEXT")]
    pub text: Vec<String>,
}

#[derive(Debug, Args)]
pub struct TailArgs {
    /// The chat's session id, or a unique prefix of it (the 8 characters `paddock ls` shows)
    pub session: String,
    /// Print every frame as one JSON line
    #[arg(long)]
    pub json: bool,
    /// When nothing is running or replayable, wait for the chat's next turn and follow it
    /// (by default tail says so and exits)
    #[arg(long, overrides_with = "no_wait")]
    pub wait: bool,
    /// The default (return at once when nothing is running); kept so older scripts still work
    #[arg(long, hide = true, overrides_with = "wait")]
    pub no_wait: bool,
}

#[derive(Debug, Args)]
pub struct SessionArg {
    /// The chat's session id, or a unique prefix of it (the 8 characters `paddock ls` shows)
    pub session: String,
}

#[derive(Debug, Args)]
pub struct ContinueArgs {
    /// The chat's session id, or a unique prefix of it (the 8 characters `paddock ls` shows)
    pub session: String,
    /// Return once the turn is accepted, printing the session id to stdout
    #[arg(long)]
    pub detach: bool,
    /// Print every frame of the turn as one JSON line instead of the reply text (with
    /// --detach: the accepted turn, {projectSlug, sessionId, jobId, queued})
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The chat's session id, or a unique prefix of it (the 8 characters `paddock ls` shows)
    pub session: String,
    /// Print the transcript as one JSON object
    #[arg(long)]
    pub json: bool,
}

/// The chats of `archive`, `star`, `read`, `detach` and the like.
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// The chats' session ids or unique prefixes of them (at most 500 in all)
    #[arg(value_name = "SESSION", required = true)]
    pub sessions: Vec<String>,
    /// Also every chat below each named one (its children, their children...), in any project
    #[arg(long)]
    pub subtree: bool,
}

#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// The chats' session ids or unique prefixes of them (at most 500 in all)
    #[arg(value_name = "SESSION", required = true)]
    pub sessions: Vec<String>,
    /// Also every chat below each named one (its children, their children...), in any project
    #[arg(long)]
    pub subtree: bool,
    /// Do not ask for confirmation (required when stdin is not a terminal)
    #[arg(short = 'y', long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ForkArgs {
    /// The chat to fork
    pub session: String,
    /// The fork's title [default: "fork of" and the chat's title]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Print {projectSlug, sessionId} of the new chat as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PromoteArgs {
    /// The chat to move (the chats under it go with it)
    pub session: String,
    /// The project to move it to: a slug (made if no project has it), '' for the root workspace
    #[arg(long, value_name = "SLUG")]
    pub to: String,
    /// Print {fromProject, toProject, sessionIds} as one JSON object (createdProject: true when it made the project)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words to find (each as the start of a word) and "quoted phrases"
    #[arg(value_name = "QUERY", required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// Only this project's chats [default: every project]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Archived chats too
    #[arg(long)]
    pub archived: bool,
    /// At most this many chats, best first [default: 50; at most 500]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=500))]
    pub limit: Option<u32>,
    /// Print the daemon's reply as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Only this project's runs [default: every project]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Only the runs that ran without you: scheduled, spawned and hook runs
    #[arg(long)]
    pub unattended: bool,
    /// At most this many runs, newest first [default: 100; at most 500]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=500))]
    pub limit: Option<u32>,
    /// Print the history as one JSON object (never marks the runs seen)
    #[arg(long)]
    pub json: bool,
    /// Leave the new runs marked new, so "while you were away" shows again next time
    #[arg(long)]
    pub keep_unseen: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The project the chats join [default: the root workspace]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// The directory whose `claude` sessions to adopt [default: the project's directory]
    #[arg(long, value_name = "DIR")]
    pub path: Option<PathBuf>,
    /// Say what would be adopted and skipped; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print the outcome as one JSON object, skipped sessions included
    #[arg(long)]
    pub json: bool,
}
