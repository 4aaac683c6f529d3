//! The successful answer to a request, `Reply`, one kind per row of the table below, and
//! [`FromReply`]: how a typed reply is taken out of it (the other half of [`Call`]).

use serde::{Deserialize, Serialize};

use super::*;

/// A typed reply: one kind of [`Reply`], taken out of the wire enum.
pub trait FromReply: Sized {
    /// The reply's kind on the wire (its `kind`).
    const KIND: &'static str;

    /// The typed reply, or the reply itself when it is of another kind.
    // The reply is handed back as it came (the typed replies are as large).
    #[allow(clippy::result_large_err)]
    fn from_reply(reply: Reply) -> Result<Self, Reply>;
}

/// `ack`: the request was carried out; nothing more to say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ack;

/// `pong`: the answer to `ping`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pong;

/// Defines [`Reply`] from one row per kind: `"kind" Variant(Payload)`, or `"kind" Variant = Marker`
/// for a kind with no payload; every row also implements [`FromReply`] for its payload (marker).
macro_rules! replies {
    ($(
        $(#[doc = $doc:literal])*
        $kind:literal $variant:ident $(($payload:ty))? $(= $marker:ident)?;
    )*) => {
        /// The successful answer to a request.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind")]
        pub enum Reply {
            $(
                $(#[doc = $doc])*
                #[serde(rename = $kind)]
                $variant $(($payload))?,
            )*
        }

        impl Reply {
            /// The reply's kind on the wire, for logs and "answered with" errors.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Reply::$variant { .. } => $kind,)*
                }
            }
        }

        impl Reply {
            /// Decodes a reply of kind `kind` from `json`, the reply's whole object (its `kind`
            /// and the payload's fields), straight into the payload: the derived decoding of an
            /// internally tagged enum first copies the object into an intermediate tree, which
            /// for a chat list of 10,000 rows costs more than the decoding itself. `None` for a
            /// kind this build does not know.
            pub fn decode_kind(kind: &str, json: &str) -> Option<Result<Self, serde_json::Error>> {
                Some(match kind {
                    $($kind => replies!(@decode json $variant $(($payload))? $(= $marker)?),)*
                    _ => return None,
                })
            }
        }

        $(replies!(@from $kind $variant $(($payload))? $(= $marker)?);)*
    };
    (@decode $json:ident $variant:ident ($payload:ty)) => {
        serde_json::from_str::<$payload>($json).map(Reply::$variant)
    };
    (@decode $json:ident $variant:ident = $marker:ident) => {
        Ok(Reply::$variant)
    };
    (@from $kind:literal $variant:ident ($payload:ty)) => {
        impl FromReply for $payload {
            const KIND: &'static str = $kind;

            #[allow(clippy::result_large_err)]
            fn from_reply(reply: Reply) -> Result<Self, Reply> {
                match reply {
                    Reply::$variant(payload) => Ok(payload),
                    other => Err(other),
                }
            }
        }
    };
    (@from $kind:literal $variant:ident = $marker:ident) => {
        impl FromReply for $marker {
            const KIND: &'static str = $kind;

            #[allow(clippy::result_large_err)]
            fn from_reply(reply: Reply) -> Result<Self, Reply> {
                match reply {
                    Reply::$variant => Ok($marker),
                    other => Err(other),
                }
            }
        }
    };
}

replies! {
    "hello" Hello(HelloReply);
    "pong" Pong = Pong;
    /// The request was carried out; nothing more to say.
    "ack" Ack = Ack;
    /// A turn was accepted (`queued` when it waits for a free `claude` slot).
    "sent" Sent(Sent);
    "cancelled" Cancelled(Cancelled);
    "subscribed" Subscribed(Subscribed);
    "chats" Chats(Chats);
    "transcript" Transcript(Box<Transcript>);
    "projects" Projects(Projects);
    "project" Project(ProjectInfo);
    /// `project:delete`: what was done.
    "project_deleted" ProjectDeleted(ProjectDeleted);
    /// `project:overview`.
    "project_overview" ProjectOverview(Box<ProjectOverview>);
    "status" Status(DaemonStatus);
    /// `daemon:info`.
    "info" Info(Box<DaemonInfo>);
    /// `chat:resolve`.
    "resolved" Resolved(Resolved);
    /// `chat:update` / `chat:delete`: how many chats changed.
    "updated" Updated(Updated);
    /// `chat:fork`: the new chat.
    "forked" Forked(Forked);
    /// `chat:promote`: the chats moved.
    "promoted" Promoted(Promoted);
    "history" History(History);
    "imported" Imported(Imported);
    "triggers" Triggers(Triggers);
    "trigger" Trigger(Box<TriggerInfo>);
    /// `trigger:fire`: the chat it started or resumed, or why it did not.
    "fired" Fired(Fired);
    "approvals" Approvals(Approvals);
    /// `agent:tools`: what the MCP bridge lists in `tools/list`.
    "agent_tools" AgentTools(AgentTools);
    /// `agent:call`: the tool's answer, as the MCP bridge returns it.
    "agent_result" AgentResult(AgentResult);
    /// `provenance:file`: a file's status, producers, readers and lineage.
    "provenance" Provenance(Box<Provenance>);
    /// `provenance:touched`: a chat's files, turn by turn.
    "touched" Touched(Touched);
    /// `search`: the chats that match, best first.
    "search_results" SearchResults(SearchResults);
    /// `attachment:get`: a kept attachment's bytes.
    "attachment" Attachment(Attachment);
    /// `provenance:blame`: a file's lines and who last wrote each region.
    "blame" Blame(Box<Blame>);
    /// `files:list`: one directory's entries.
    "file_listing" FileListing(FileListing);
    /// `files:read`: a file's text.
    "file_text" FileText(FileText);
    /// `git:status`.
    "git_status" GitStatus(GitStatus);
    /// `git:diff`.
    "git_diff" GitDiff(GitDiff);
    /// `git:commit`: the new commit.
    "git_committed" GitCommitted(GitCommitted);
    /// The worktree chats (`worktree:list`).
    "worktrees" Worktrees(Worktrees);
    "worktree_merged" WorktreeMerged(WorktreeMerged);
    "worktree_rebased" WorktreeRebased(WorktreeRebased);
    "worktree_discarded" WorktreeDiscarded(WorktreeDiscarded);
    "worktree_pruned" WorktreePruned(WorktreePruned);
    /// `git:push`: what was pushed, or that the remote was up to date.
    "git_pushed" GitPushed(GitPushed);
}
