//! Every request a client can send, each paired with the reply it is answered with.
//!
//! One table below defines, per request: its wire name, its [`Request`] variant, the
//! parameters that variant carries, the type a caller sends it as (a [`Call`]) and the typed
//! reply the daemon answers it with (a [`FromReply`]). `Request`, [`Request::name`] and the
//! pairs all come from it, so they cannot disagree.
//!
//! A request's call type is its parameters' type, unless that type is shared by several
//! requests or is a bare reference (then a newtype named after the request wraps it, `as
//! Name`) or the request carries nothing (then a unit marker stands for it, `= Name`).
//! A name that is already a reply's gets `Request` appended, as `GitStatusRequest` has.

use serde::{Deserialize, Serialize};

use super::*;

/// A request paired with its reply: what `Client::call` sends.
pub trait Call: Into<Request> {
    /// The request's wire name (its `type`).
    const NAME: &'static str;
    /// What the daemon answers it with, when it does not refuse it.
    type Reply: FromReply;
}

/// Defines [`Request`] and the [`Call`] pairs from one row per request:
/// `"wire" Variant(Params) -> Reply;`, `"wire" Variant(Params) as Wrapper -> Reply;` or
/// `"wire" Variant = Marker -> Reply;` (see the module's documentation).
macro_rules! requests {
    ($(
        $(#[doc = $doc:literal])*
        $wire:literal $variant:ident $(($($params:tt)+))? $(as $wrapper:ident)? $(= $marker:ident)?
            -> $reply:ty;
    )*) => {
        /// What a client asks, tagged on the wire by its name (`type`).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "type")]
        pub enum Request {
            $(
                $(#[doc = $doc])*
                #[serde(rename = $wire)]
                $variant $(($($params)+))?,
            )*
        }

        impl Request {
            /// The wire name of the request, for logs and error messages.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Request::$variant { .. } => $wire,)*
                }
            }
        }

        $(requests!(@call $wire $variant [$($($params)+)?] [$($wrapper)?] [$($marker)?] $reply);)*

        /// Every pair, as (wire name, reply kind, "take the typed reply out of this one").
        #[cfg(test)]
        pub(crate) const PAIRS: &[(&str, &str, fn(Reply) -> Result<(), Reply>)] = &[
            $(($wire, <$reply as FromReply>::KIND, take::<$reply>),)*
        ];
    };
    (@call $wire:literal $variant:ident [] [] [$marker:ident] $reply:ty) => {
        #[doc = concat!("`", $wire, "`, which carries nothing, as a [`Call`]: see [`Request::", stringify!($variant), "`].")]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $marker;

        impl From<$marker> for Request {
            fn from(_: $marker) -> Self {
                Request::$variant
            }
        }

        requests!(@pair $wire $marker => $reply);
    };
    (@call $wire:literal $variant:ident [Box<$params:ty>] [] [] $reply:ty) => {
        impl From<$params> for Request {
            fn from(params: $params) -> Self {
                Request::$variant(Box::new(params))
            }
        }

        requests!(@pair $wire $params => $reply);
    };
    (@call $wire:literal $variant:ident [$params:ty] [$wrapper:ident] [] $reply:ty) => {
        #[doc = concat!("`", $wire, "` as a [`Call`]: see [`Request::", stringify!($variant), "`].")]
        #[derive(Debug, Clone, PartialEq)]
        pub struct $wrapper(pub $params);

        impl From<$wrapper> for Request {
            fn from(call: $wrapper) -> Self {
                Request::$variant(call.0)
            }
        }

        requests!(@pair $wire $wrapper => $reply);
    };
    (@call $wire:literal $variant:ident [$params:ty] [] [] $reply:ty) => {
        impl From<$params> for Request {
            fn from(params: $params) -> Self {
                Request::$variant(params)
            }
        }

        requests!(@pair $wire $params => $reply);
    };
    (@pair $wire:literal $call:ty => $reply:ty) => {
        impl Call for $call {
            const NAME: &'static str = $wire;
            type Reply = $reply;
        }
    };
}

requests! {
    /// First message on every connection.
    "hello" Hello(Hello) -> HelloReply;
    "ping" Ping = Ping -> Pong;
    /// Start a turn: a new chat (no `sessionId`) or a turn in an existing one.
    "chat:send" ChatSend(ChatSend) -> Sent;
    /// Run a slash command in a chat (it goes to Claude Code as user text).
    "chat:command" ChatCommand(ChatCommand) -> Sent;
    /// Interrupt the running turn of a chat; the chat stays resumable.
    "chat:cancel" ChatCancel(ChatCancel) -> Cancelled;
    /// Attach to a chat's live stream, optionally replaying the buffered frames.
    "chat:subscribe" ChatSubscribe(ChatSubscribe) -> Subscribed;
    "chat:unsubscribe" ChatUnsubscribe(SessionRef) as ChatUnsubscribe -> Ack;
    /// Set (or clear, with `message: null`) the chat's queued follow-up message.
    "chat:set_queue" ChatSetQueue(ChatSetQueue) -> Ack;
    /// Re-drive a chat whose turn was killed.
    "chat:continue" ChatContinue(SessionRef) as ChatContinue -> Sent;
    "chat:list" ChatList(ChatList) -> Chats;
    /// The full rendering of one chat's transcript.
    "chat:transcript" ChatTranscript(SessionRef) as ChatTranscript -> Box<Transcript>;
    /// Archive, star, mark read... one or many chats (at most [`BATCH_SESSIONS_MAX`]; one bad
    /// id fails the request and changes nothing).
    "chat:update" ChatUpdate(ChatUpdate) -> Updated;
    /// Delete chats (their transcripts and every flag they had). Refused for a running chat.
    "chat:delete" ChatDelete(SessionIds) as ChatDelete -> Updated;
    /// Copy a chat into a new one that records it as its parent.
    "chat:fork" ChatFork(ChatFork) -> Forked;
    /// Move a chat and the chats under it in its project to another project (a new one when
    /// no project has the slug): transcripts, provenance, flags and history go with them; the
    /// chats resume there. Refused while one of them runs, or has a worktree.
    "chat:promote" ChatPromote(ChatPromote) -> Promoted;
    /// Recent runs across projects, by origin, with "while you were away".
    "history:list" HistoryList(HistoryList) -> History;
    /// Advance this user's "runs last seen" watermark to now.
    "history:seen" HistorySeen = HistorySeen -> Ack;
    /// Adopt a directory's terminal `claude` sessions into a project.
    "chat:import" ChatImport(ChatImport) -> Imported;
    /// Schedules and hooks: of one project, or of all.
    "trigger:list" TriggerList(TriggerList) -> Triggers;
    /// Add or replace a trigger (kept in the project's `project.toml`).
    "trigger:set" TriggerSet(Box<TriggerSet>) -> Box<TriggerInfo>;
    "trigger:remove" TriggerRemove(TriggerRef) as TriggerRemove -> Ack;
    /// Fire a trigger now (a schedule out of turn, or a hook: the scriptable webhook).
    "trigger:fire" TriggerFire(TriggerFire) -> Fired;
    /// The tool calls waiting for a person's answer, across every chat.
    "approval:list" ApprovalList = ApprovalList -> Approvals;
    /// Full-text search across every chat (titles, messages, tool calls).
    "search" Search(SearchRequest) -> SearchResults;
    /// The bytes of a kept attachment (a file attached to a message, or one an agent showed
    /// with `send_file`).
    "attachment:get" AttachmentGet(AttachmentRef) -> Attachment;
    /// Ask for `attention` events on this connection (a TUI, `paddock notify`). Answered by
    /// `ack`.
    "notifications:subscribe" NotificationsSubscribe = NotificationsSubscribe -> Ack;
    /// Answer pending tool calls: allow, deny, or always (allow and add a rule).
    "approval:answer" ApprovalAnswer(ApprovalAnswer) -> Updated;
    /// From the MCP bridge of an agent: the tools its chat may use.
    "agent:tools" AgentTools(AgentAuth) as AgentToolsRequest -> AgentTools;
    /// From the MCP bridge of an agent: call a tool as the chat the token names.
    "agent:call" AgentCall(AgentCall) -> AgentResult;
    /// Who produced a file, from what, and whether it still is what they wrote.
    "provenance:file" ProvenanceFile(ProvenanceFile) -> Box<Provenance>;
    /// The files a chat's turns (or one turn) read and wrote, with each write's status now.
    "provenance:touched" ProvenanceTouched(ProvenanceTouched) -> Touched;
    /// Which chat and turn last wrote each region of a file (from the steps and git).
    "provenance:blame" ProvenanceBlame(ProvenanceFile) as ProvenanceBlame -> Box<Blame>;
    /// One directory of a project's directory: its entries (bounded), hidden ones when asked.
    "files:list" FilesList(FilesList) -> FileListing;
    /// A file of a project's directory: its text (capped), or that it is binary.
    "files:read" FilesRead(FilesRead) -> FileText;
    /// A project's git status, whole or limited to the files a turn, chat or subtree wrote.
    "git:status" GitStatus(GitStatusRequest) -> GitStatus;
    /// The diff of a project's changes against HEAD, whole or limited to a scope.
    "git:diff" GitDiff(GitDiffRequest) -> GitDiff;
    /// Commit exactly a scope's changed files (other changes stay as they are).
    "git:commit" GitCommit(GitCommitRequest) -> GitCommitted;
    /// Push the current branch of a project (or of the data directory's repository) to its
    /// upstream; never forced.
    "git:push" GitPush(GitPushRequest) -> GitPushed;
    /// The worktree chats of a project or of every project (`orphans`: those whose chat was
    /// deleted), each with its branch, base, target and work.
    "worktree:list" WorktreeList(WorktreeList) -> Worktrees;
    /// Bring a worktree chat's work into its target: its uncommitted work committed on its
    /// branch, a trial merge that touches no checkout, then the merge; refused, changing
    /// nothing, on a conflict (the files named), a turn running, or a target checkout whose
    /// uncommitted changes the merge would touch.
    "worktree:merge" WorktreeMerge(WorktreeMerge) -> WorktreeMerged;
    /// Bring a worktree chat up to date with its target (a rebase); on a conflict nothing
    /// changes and the files are named.
    "worktree:rebase" WorktreeRebase(WorktreeRebase) -> WorktreeRebased;
    /// Remove a worktree chat's worktree and branch; refused without `force` when the branch
    /// holds work its target lacks (by content: a squash-merged branch counts as merged).
    "worktree:discard" WorktreeDiscard(WorktreeDiscard) -> WorktreeDiscarded;
    /// Remove the worktrees whose chat was deleted and that hold no unmerged work.
    "worktree:prune" WorktreePrune(WorktreePrune) -> WorktreePruned;
    "project:list" ProjectList = ProjectList -> Projects;
    "project:create" ProjectCreate(ProjectCreate) -> ProjectInfo;
    /// Change a project's settings (description, status, model, drive mode, depth gate...).
    "project:update" ProjectUpdate(ProjectUpdate) -> ProjectInfo;
    /// Unregister a project; its files are moved aside or deleted only when asked. Refused
    /// while its turns run unless `force`.
    "project:delete" ProjectDelete(ProjectDelete) -> ProjectDeleted;
    /// Make a notebook project (its files in the data directory) repo-backed: clone a
    /// repository into it and run its agents in the checkout.
    "project:promote" ProjectPromote(ProjectPromote) -> ProjectInfo;
    /// A project's curated files (OVERVIEW.md, CHANGELOG.md) and its chat counts.
    "project:overview" ProjectOverviewRequest(ProjectRef) as ProjectOverviewRequest -> Box<ProjectOverview>;
    "daemon:status" DaemonStatus = DaemonStatusRequest -> DaemonStatus;
    /// Shut the daemon down cleanly (running turns are interrupted).
    "daemon:shutdown" DaemonShutdown = DaemonShutdown -> Ack;
    /// The world the daemon's agents run in: the `claude` it starts and its version, the
    /// credentials in its environment (names only), its folders. For `paddock doctor`.
    "daemon:info" DaemonInfo = DaemonInfoRequest -> Box<DaemonInfo>;
    /// Which chats session-id prefixes name, in every project, archived chats included: the
    /// command line's SESSION arguments, without listing every chat.
    "chat:resolve" ChatResolve(ChatResolve) -> Resolved;
}

/// Takes a typed reply out of `reply`, dropping it: one pair's check, for [`PAIRS`].
#[cfg(test)]
#[allow(clippy::result_large_err)]
fn take<R: FromReply>(reply: Reply) -> Result<(), Reply> {
    R::from_reply(reply).map(drop)
}

#[cfg(test)]
mod tests;
