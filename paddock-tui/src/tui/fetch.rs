//! What the TUI asks the daemon, typed: a [`Fetch`] reads something (at most one of each in
//! flight; its answer goes to whoever it is for: the tree, the chat pane, History, or the view
//! that asked), a [`Doing`] tags a command the user gave (its answer, or failure, is said by
//! what it was, never by matching a string).

use paddock_proto::{ChatList, ChatScope, Request, SessionRef};

use super::triggers_view::{self, Act};
use super::{browser_view, changes, history, search_view, usage_view};

/// A request the list needs answered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Fetch {
    Projects,
    AllChats,
    Chats(String),
    /// A project's archived chats (its "Archived" group in the tree): a plain full list.
    Archived(String),
    /// The open chat's transcript.
    Transcript(String),
    History,
    Approvals,
    /// The daemon's status, for the header's low-disk warning.
    Status,
    /// The Changes view's git status.
    GitStatus {
        project_slug: String,
        scope: changes::Scope,
    },
    /// The diff of one file of the Changes view's scope.
    GitDiff {
        project_slug: String,
        scope: changes::Scope,
        path: String,
    },
    /// The provenance panel's file.
    Provenance {
        project_slug: String,
        path: String,
    },
    /// The Files view's chat: what it read and wrote, per turn.
    Touched {
        project_slug: String,
        session_id: String,
    },
    /// The blame view's file.
    Blame {
        project_slug: String,
        path: String,
    },
    /// The file browser's directory.
    Listing {
        project_slug: String,
        path: String,
        hidden: bool,
    },
    /// The file browser's preview of the cursor's file.
    FileText {
        project_slug: String,
        path: String,
    },
    /// The search view's query.
    Search(search_view::Asked),
    /// The Usage view's chat list.
    Usage(usage_view::UsageScope),
    /// The Triggers view's list: a project's, or every project's.
    Triggers(Option<String>),
    /// A trigger's recent runs, for the Triggers view.
    TriggerRuns(triggers_view::TriggerId),
    /// A project's overview, for the Home view.
    Overview(String),
    /// A kept attachment, for the viewer.
    Attachment(String),
}

impl Fetch {
    pub fn request(&self) -> Request {
        match self {
            Fetch::Projects => Request::ProjectList,
            Fetch::AllChats => Request::ChatList(ChatList {
                project_slug: None,
                scope: ChatScope::Active,
                since: None,
            }),
            Fetch::Chats(slug) => Request::ChatList(ChatList {
                project_slug: Some(slug.clone()),
                scope: ChatScope::Active,
                since: None,
            }),
            Fetch::Archived(slug) => Request::ChatList(ChatList {
                project_slug: Some(slug.clone()),
                scope: ChatScope::Archived,
                since: None,
            }),
            Fetch::Transcript(sid) => Request::ChatTranscript(SessionRef {
                session_id: sid.clone(),
            }),
            Fetch::Approvals => Request::ApprovalList,
            Fetch::Status => Request::DaemonStatus,
            Fetch::GitStatus {
                project_slug,
                scope,
            } => Request::GitStatus(paddock_proto::GitStatusRequest {
                project_slug: project_slug.clone(),
                scope: scope.to_git(),
            }),
            Fetch::GitDiff {
                project_slug,
                scope,
                path,
            } => Request::GitDiff(paddock_proto::GitDiffRequest {
                project_slug: project_slug.clone(),
                scope: scope.to_git(),
                path: Some(path.clone()),
            }),
            Fetch::Provenance { project_slug, path } => {
                Request::ProvenanceFile(paddock_proto::ProvenanceFile {
                    project_slug: Some(project_slug.clone()),
                    path: path.clone(),
                })
            }
            Fetch::Touched {
                project_slug,
                session_id,
            } => Request::ProvenanceTouched(paddock_proto::ProvenanceTouched {
                project_slug: project_slug.clone(),
                session_id: session_id.clone(),
                job_id: None,
            }),
            Fetch::Blame { project_slug, path } => {
                Request::ProvenanceBlame(paddock_proto::ProvenanceFile {
                    project_slug: Some(project_slug.clone()),
                    path: path.clone(),
                })
            }
            Fetch::Listing {
                project_slug,
                path,
                hidden,
            } => Request::FilesList(paddock_proto::FilesList {
                project_slug: project_slug.clone(),
                path: path.clone(),
                hidden: *hidden,
                limit: None,
            }),
            Fetch::FileText { project_slug, path } => {
                Request::FilesRead(paddock_proto::FilesRead {
                    project_slug: project_slug.clone(),
                    path: path.clone(),
                    max_bytes: Some(browser_view::PREVIEW_BYTES),
                })
            }
            Fetch::Search(asked) => Request::Search(asked.request()),
            Fetch::Usage(scope) => Request::ChatList(usage_view::list_request(*scope)),
            Fetch::Triggers(project_slug) => Request::TriggerList(paddock_proto::TriggerList {
                project_slug: project_slug.clone(),
            }),
            Fetch::TriggerRuns(id) => Request::HistoryList(triggers_view::runs_request(id)),
            Fetch::Overview(slug) => {
                Request::ProjectOverviewRequest(paddock_proto::ProjectRef { slug: slug.clone() })
            }
            Fetch::Attachment(id) => Request::AttachmentGet(paddock_proto::AttachmentRef {
                attachment_id: id.clone(),
            }),
            Fetch::History => Request::HistoryList(paddock_proto::HistoryList {
                project_slug: None,
                unattended: false,
                limit: Some(history::FETCH_LIMIT),
            }),
        }
    }
}

/// A command the user gave (or the loop gives for them), by what it does: its answer comes back
/// with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doing {
    MarkRead,
    Update,
    Cancel,
    Fork,
    Delete,
    Continue,
    Queue,
    Answer,
    HistorySeen,
    Commit,
    Push,
    Send,
    Follow,
    Unsubscribe,
    Notifications,
    /// A trigger's fire, remove or save (the Triggers view's).
    Trigger(Act),
}

impl Doing {
    /// What it does, for "cannot …" and "… failed".
    pub fn what(self) -> &'static str {
        match self {
            Doing::MarkRead => "mark read",
            Doing::Update => "update",
            Doing::Cancel => "cancel",
            Doing::Fork => "fork",
            Doing::Delete => "delete",
            Doing::Continue => "continue",
            Doing::Queue => "queue the follow-up",
            Doing::Answer => "answer",
            Doing::HistorySeen => "history seen",
            Doing::Commit => "commit",
            Doing::Push => "push",
            Doing::Send => "send",
            Doing::Follow => "follow the chat",
            Doing::Unsubscribe => "unsubscribe",
            Doing::Notifications => "ask for notifications",
            Doing::Trigger(act) => act.what(),
        }
    }
}

/// `paddockd answered with KIND`, for a reply of the wrong kind.
pub fn unexpected(reply: &paddock_proto::Reply) -> String {
    format!(
        "paddockd answered with {}",
        crate::client::reply_kind(reply)
    )
}

/// The reply of the kind asked for (what `pick` takes out of it), or why there is none: the
/// request failed, or the daemon answered with another kind.
pub fn picked<T>(
    result: &Result<paddock_proto::Reply, String>,
    pick: impl FnOnce(&paddock_proto::Reply) -> Option<T>,
) -> Result<T, String> {
    match result {
        Ok(reply) => pick(reply).ok_or_else(|| unexpected(reply)),
        Err(reason) => Err(reason.clone()),
    }
}
