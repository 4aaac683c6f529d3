//! What a key asks the event loop to do ([`Action`]): the app decides, the loop carries it out
//! (a request to the daemon, a file written) and feeds the answer back in.

use std::path::PathBuf;
use std::sync::Arc;

use paddock_proto::ChatAction;

use super::changes::Scope;
use super::search_view::Asked;
use super::triggers_view::{Act, TriggerId};
use super::usage_view::UsageScope;

/// What the event loop should do after a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Reload everything (and reconnect when the daemon was unreachable).
    Refresh,
    /// Show this chat: read its transcript, then follow its stream.
    Open {
        project_slug: String,
        session_id: String,
    },
    /// Archive, star, read... these chats.
    Update {
        action: ChatAction,
        session_ids: Vec<String>,
    },
    /// Interrupt the running turns of these chats.
    Stop {
        session_ids: Vec<String>,
    },
    /// Send a message: a new chat (`session_id` None) or a turn, with these files attached
    /// (absolute paths on this machine; the loop sends their bytes under `--remote`).
    Send {
        project_slug: String,
        session_id: Option<String>,
        text: String,
        model: Option<String>,
        attachments: Vec<PathBuf>,
        /// A new chat: the project's overview and changelog go before the message.
        preload: bool,
        /// A new chat: in a git worktree of its own (`Some(true)`) or the project's
        /// directory (`Some(false)`); `None` for a reply (it works where it began).
        worktree: Option<bool>,
    },
    /// Re-drive a chat whose last turn was cut short.
    Continue {
        session_id: String,
    },
    /// Set (or clear) the follow-up the daemon sends when the chat's turn ends.
    SetQueue {
        session_id: String,
        message: Option<String>,
    },
    /// Load the History view's runs.
    LoadHistory,
    /// Read the pending approvals (the inbox opened, or they changed).
    LoadApprovals,
    /// Answer pending approvals.
    Answer {
        ids: Vec<String>,
        decision: paddock_proto::ApprovalDecision,
    },
    /// The user has looked at History: advance their watermark.
    HistorySeen,
    /// Read the git status of a project's scope (the Changes view opened, or its scope moved).
    LoadChanges {
        project_slug: String,
        scope: Scope,
    },
    /// Read the diff of one file of the scope.
    LoadDiff {
        project_slug: String,
        scope: Scope,
        path: String,
    },
    /// Commit the scope's changed files with this message.
    Commit {
        project_slug: String,
        scope: Scope,
        message: String,
    },
    /// Push the project's branch to its upstream (`git:push`).
    Push {
        project_slug: String,
    },
    /// Read a file's provenance (the panel opened).
    LoadProvenance {
        project_slug: String,
        path: String,
    },
    /// Read the files a chat read and wrote, per turn (the Files view opened, or reloads).
    LoadTouched {
        project_slug: String,
        session_id: String,
    },
    /// Read a file's blame (the blame view opened).
    LoadBlame {
        project_slug: String,
        path: String,
    },
    /// List a directory of a project for the file browser (`files:list`).
    LoadListing {
        project_slug: String,
        path: String,
        hidden: bool,
    },
    /// Read a file of a project for the browser's preview (`files:read`).
    LoadFileText {
        project_slug: String,
        path: String,
    },
    /// Search every chat (the search view's query ran).
    Search(Asked),
    /// Read the chat list of this scope for the Usage view.
    LoadUsage(UsageScope),
    /// Read the triggers of this project (`None`: every project's) for the Triggers view.
    LoadTriggers(Option<String>),
    /// Read a trigger's recent runs (History of its project).
    LoadTriggerRuns(TriggerId),
    /// Fire or remove a trigger (confirmed in the Triggers view).
    Trigger(Act, TriggerId),
    /// Add or replace a trigger (the Triggers view's form).
    SaveTrigger(Box<paddock_proto::TriggerSet>),
    /// Read a project's overview for the Home view.
    LoadOverview(String),
    /// Read a kept attachment for the viewer (`attachment:get`).
    LoadAttachment(String),
    /// Read these projects' archived chats (their "Archived" group opened).
    LoadArchived(Vec<String>),
    /// Copy a chat into a new one, nested under it (`chat:fork`).
    Fork {
        session_id: String,
    },
    /// Move a chat and the chats under it to another project (`chat:promote`).
    Promote {
        session_id: String,
        to_project: String,
    },
    /// Delete these chats (`chat:delete`); only ever after a [`Confirm`] answered `y`.
    Delete {
        session_ids: Vec<String>,
    },
    /// Write an attachment's bytes to a new file (the viewer's save).
    SaveAttachment {
        path: PathBuf,
        bytes: Arc<[u8]>,
    },
}
