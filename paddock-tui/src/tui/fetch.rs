//! What the TUI reads from the daemon, typed: a [`Fetch`] reads something (at most one of each
//! in flight; its answer, an [`Answer`] of the reply type its request pairs with, goes to
//! whoever it is for: the tree, the chat pane, History, or the view that asked). The commands
//! the user gives are [`Doing`](super::doing::Doing)s.

use paddock_proto::{
    ApprovalList, Approvals, Attachment, AttachmentRef, Blame, Call, ChatList, ChatScope,
    ChatTranscript, Chats, DaemonStatus, DaemonStatusRequest, FileListing, FileText, FilesList,
    FilesRead, GitDiff, GitDiffRequest, GitStatus, GitStatusRequest, History, HistoryList,
    ProjectList, ProjectOverview, ProjectOverviewRequest, ProjectRef, Projects, Provenance,
    ProvenanceBlame, ProvenanceFile, ProvenanceTouched, SearchResults, SessionRef, Touched,
    Transcript, TriggerList, Triggers,
};

use crate::client::Client;

use super::triggers_view;
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

/// The typed answer to a [`Fetch`], or why there is none: one kind per reply type, so a view
/// takes its own answer by matching it, and a reply of another kind never reaches it (the
/// client refuses it as a protocol error).
#[derive(Debug, Clone)]
pub enum Answer {
    Projects(Result<Projects, String>),
    /// For [`Fetch::AllChats`], [`Fetch::Chats`], [`Fetch::Archived`] and [`Fetch::Usage`].
    Chats(Result<Chats, String>),
    Transcript(Result<Box<Transcript>, String>),
    /// For [`Fetch::History`] and [`Fetch::TriggerRuns`].
    History(Result<History, String>),
    Approvals(Result<Approvals, String>),
    Status(Result<DaemonStatus, String>),
    GitStatus(Result<GitStatus, String>),
    GitDiff(Result<GitDiff, String>),
    Provenance(Result<Box<Provenance>, String>),
    Touched(Result<Touched, String>),
    Blame(Result<Box<Blame>, String>),
    Listing(Result<FileListing, String>),
    FileText(Result<FileText, String>),
    Search(Result<SearchResults, String>),
    Triggers(Result<Triggers, String>),
    Overview(Result<Box<ProjectOverview>, String>),
    Attachment(Result<Attachment, String>),
}

/// The typed call, its failure said as a sentence.
pub(super) async fn call<R: Call>(client: &Client, request: R) -> Result<R::Reply, String> {
    client.call(request).await.map_err(|e| e.to_string())
}

impl Fetch {
    /// The answer that says this read could not be made, and why.
    pub fn failed(&self, reason: String) -> Answer {
        match self {
            Fetch::Projects => Answer::Projects(Err(reason)),
            Fetch::AllChats | Fetch::Chats(_) | Fetch::Archived(_) | Fetch::Usage(_) => {
                Answer::Chats(Err(reason))
            }
            Fetch::Transcript(_) => Answer::Transcript(Err(reason)),
            Fetch::History | Fetch::TriggerRuns(_) => Answer::History(Err(reason)),
            Fetch::Approvals => Answer::Approvals(Err(reason)),
            Fetch::Status => Answer::Status(Err(reason)),
            Fetch::GitStatus { .. } => Answer::GitStatus(Err(reason)),
            Fetch::GitDiff { .. } => Answer::GitDiff(Err(reason)),
            Fetch::Provenance { .. } => Answer::Provenance(Err(reason)),
            Fetch::Touched { .. } => Answer::Touched(Err(reason)),
            Fetch::Blame { .. } => Answer::Blame(Err(reason)),
            Fetch::Listing { .. } => Answer::Listing(Err(reason)),
            Fetch::FileText { .. } => Answer::FileText(Err(reason)),
            Fetch::Search(_) => Answer::Search(Err(reason)),
            Fetch::Triggers(_) => Answer::Triggers(Err(reason)),
            Fetch::Overview(_) => Answer::Overview(Err(reason)),
            Fetch::Attachment(_) => Answer::Attachment(Err(reason)),
        }
    }

    /// Whether it reads something of every project (on a client of several hosts, of every
    /// host), not of one project or chat.
    pub fn of_everything(&self) -> bool {
        matches!(
            self,
            Fetch::Projects
                | Fetch::AllChats
                | Fetch::History
                | Fetch::Approvals
                | Fetch::Status
                | Fetch::Search(_)
                | Fetch::Usage(_)
                | Fetch::Triggers(None)
        )
    }

    /// Asks the daemon (a project's `chat:list` since this revision) and gives back the typed
    /// answer.
    pub async fn call(&self, client: &Client, since: Option<u64>) -> Answer {
        match self {
            Fetch::Projects => Answer::Projects(call(client, ProjectList).await),
            Fetch::AllChats => {
                Answer::Chats(call(client, chat_list(None, ChatScope::Active, None)).await)
            }
            Fetch::Chats(slug) => {
                Answer::Chats(call(client, chat_list(Some(slug), ChatScope::Active, since)).await)
            }
            Fetch::Archived(slug) => {
                Answer::Chats(call(client, chat_list(Some(slug), ChatScope::Archived, None)).await)
            }
            Fetch::Usage(scope) => {
                Answer::Chats(call(client, usage_view::list_request(*scope)).await)
            }
            Fetch::Transcript(sid) => Answer::Transcript(call(client, transcript(sid)).await),
            Fetch::History => Answer::History(call(client, history_list()).await),
            Fetch::TriggerRuns(id) => {
                Answer::History(call(client, triggers_view::runs_request(id)).await)
            }
            Fetch::Approvals => Answer::Approvals(call(client, ApprovalList).await),
            Fetch::Status => Answer::Status(call(client, DaemonStatusRequest).await),
            Fetch::GitStatus {
                project_slug,
                scope,
            } => Answer::GitStatus(call(client, git_status(project_slug, scope)).await),
            Fetch::GitDiff {
                project_slug,
                scope,
                path,
            } => Answer::GitDiff(call(client, git_diff(project_slug, scope, path)).await),
            Fetch::Provenance { project_slug, path } => {
                Answer::Provenance(call(client, file_ref(project_slug, path)).await)
            }
            Fetch::Touched {
                project_slug,
                session_id,
            } => Answer::Touched(call(client, touched(project_slug, session_id)).await),
            Fetch::Blame { project_slug, path } => {
                Answer::Blame(call(client, ProvenanceBlame(file_ref(project_slug, path))).await)
            }
            Fetch::Listing {
                project_slug,
                path,
                hidden,
            } => Answer::Listing(call(client, files_list(project_slug, path, *hidden)).await),
            Fetch::FileText { project_slug, path } => {
                Answer::FileText(call(client, files_read(project_slug, path)).await)
            }
            Fetch::Search(asked) => Answer::Search(call(client, asked.request()).await),
            Fetch::Triggers(project_slug) => {
                Answer::Triggers(call(client, trigger_list(project_slug.as_ref())).await)
            }
            Fetch::Overview(slug) => Answer::Overview(call(client, overview(slug)).await),
            Fetch::Attachment(id) => Answer::Attachment(call(client, attachment(id)).await),
        }
    }
}

/// The `chat:list` request: a project's chats (or every project's) of `scope`, changed since
/// this revision when one is given.
fn chat_list(project_slug: Option<&String>, scope: ChatScope, since: Option<u64>) -> ChatList {
    ChatList {
        project_slug: project_slug.cloned(),
        scope,
        since,
        full_titles: false,
    }
}

/// The request for a chat's transcript.
fn transcript(session_id: &str) -> ChatTranscript {
    ChatTranscript(SessionRef {
        session_id: session_id.to_owned(),
    })
}

/// The request for every project's recent runs, as many as History shows.
fn history_list() -> HistoryList {
    HistoryList {
        project_slug: None,
        unattended: false,
        limit: Some(history::FETCH_LIMIT),
    }
}

/// The request for a project's git status in a scope of the Changes view.
fn git_status(project_slug: &str, scope: &changes::Scope) -> GitStatusRequest {
    GitStatusRequest {
        project_slug: project_slug.to_owned(),
        scope: scope.to_git(),
    }
}

/// The request for the diff of one file in a scope of the Changes view.
fn git_diff(project_slug: &str, scope: &changes::Scope, path: &str) -> GitDiffRequest {
    GitDiffRequest {
        project_slug: project_slug.to_owned(),
        scope: scope.to_git(),
        path: Some(path.to_owned()),
    }
}

/// The request for what a chat read and wrote, per turn.
fn touched(project_slug: &str, session_id: &str) -> ProvenanceTouched {
    ProvenanceTouched {
        project_slug: project_slug.to_owned(),
        session_id: session_id.to_owned(),
        job_id: None,
    }
}

/// The request for a directory of a project, with or without its hidden files.
fn files_list(project_slug: &str, path: &str, hidden: bool) -> FilesList {
    FilesList {
        project_slug: project_slug.to_owned(),
        path: path.to_owned(),
        hidden,
        limit: None,
    }
}

/// The request for the start of a file, as much as the file browser's preview shows.
fn files_read(project_slug: &str, path: &str) -> FilesRead {
    FilesRead {
        project_slug: project_slug.to_owned(),
        path: path.to_owned(),
        max_bytes: Some(browser_view::PREVIEW_BYTES),
    }
}

/// The request for a project's triggers, or every project's.
fn trigger_list(project_slug: Option<&String>) -> TriggerList {
    TriggerList {
        project_slug: project_slug.cloned(),
    }
}

/// The request for a project's overview.
fn overview(slug: &str) -> ProjectOverviewRequest {
    ProjectOverviewRequest(ProjectRef {
        slug: slug.to_owned(),
    })
}

/// The request for a kept attachment.
fn attachment(attachment_id: &str) -> AttachmentRef {
    AttachmentRef {
        attachment_id: attachment_id.to_owned(),
    }
}

/// A file of a project, as `provenance:file` and `provenance:blame` name it.
fn file_ref(project_slug: &str, path: &str) -> ProvenanceFile {
    ProvenanceFile {
        project_slug: Some(project_slug.to_owned()),
        path: path.to_owned(),
    }
}

/// A view's answer (taken out of the shared [`Answer`] by reference) as it keeps it.
pub fn taken<T, U>(result: &Result<T, String>, take: impl FnOnce(&T) -> U) -> Result<U, String> {
    match result {
        Ok(reply) => Ok(take(reply)),
        Err(reason) => Err(reason.clone()),
    }
}
