//! The `Request` enum: every request a client can send, by its wire name.

use serde::{Deserialize, Serialize};

use super::*;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Request {
    /// First message on every connection.
    #[serde(rename = "hello")]
    Hello(Hello),
    #[serde(rename = "ping")]
    Ping,
    /// Start a turn: a new chat (no `sessionId`) or a turn in an existing one.
    #[serde(rename = "chat:send")]
    ChatSend(ChatSend),
    /// Run a slash command in a chat (it goes to Claude Code as user text).
    #[serde(rename = "chat:command")]
    ChatCommand(ChatCommand),
    /// Interrupt the running turn of a chat; the chat stays resumable.
    #[serde(rename = "chat:cancel")]
    ChatCancel(ChatCancel),
    /// Attach to a chat's live stream, optionally replaying the buffered frames.
    #[serde(rename = "chat:subscribe")]
    ChatSubscribe(ChatSubscribe),
    #[serde(rename = "chat:unsubscribe")]
    ChatUnsubscribe(SessionRef),
    /// Set (or clear, with `message: null`) the chat's queued follow-up message.
    #[serde(rename = "chat:set_queue")]
    ChatSetQueue(ChatSetQueue),
    /// Re-drive a chat whose turn was killed.
    #[serde(rename = "chat:continue")]
    ChatContinue(SessionRef),
    #[serde(rename = "chat:list")]
    ChatList(ChatList),
    /// The full rendering of one chat's transcript.
    #[serde(rename = "chat:transcript")]
    ChatTranscript(SessionRef),
    /// Archive, star, mark read... one or many chats (at most [`BATCH_SESSIONS_MAX`]; one bad
    /// id fails the request and changes nothing).
    #[serde(rename = "chat:update")]
    ChatUpdate(ChatUpdate),
    /// Delete chats (their transcripts and every flag they had). Refused for a running chat.
    #[serde(rename = "chat:delete")]
    ChatDelete(SessionIds),
    /// Copy a chat into a new one that records it as its parent.
    #[serde(rename = "chat:fork")]
    ChatFork(ChatFork),
    /// Recent runs across projects, by origin, with "while you were away".
    #[serde(rename = "history:list")]
    HistoryList(HistoryList),
    /// Advance this user's "runs last seen" watermark to now.
    #[serde(rename = "history:seen")]
    HistorySeen,
    /// Adopt a directory's terminal `claude` sessions into a project.
    #[serde(rename = "chat:import")]
    ChatImport(ChatImport),
    /// Schedules and hooks: of one project, or of all.
    #[serde(rename = "trigger:list")]
    TriggerList(TriggerList),
    /// Add or replace a trigger (kept in the project's `project.toml`).
    #[serde(rename = "trigger:set")]
    TriggerSet(Box<TriggerSet>),
    #[serde(rename = "trigger:remove")]
    TriggerRemove(TriggerRef),
    /// Fire a trigger now (a schedule out of turn, or a hook: the scriptable webhook).
    #[serde(rename = "trigger:fire")]
    TriggerFire(TriggerFire),
    /// The tool calls waiting for a person's answer, across every chat.
    #[serde(rename = "approval:list")]
    ApprovalList,
    /// Full-text search across every chat (titles, messages, tool calls).
    #[serde(rename = "search")]
    Search(SearchRequest),
    /// The bytes of a kept attachment (a file attached to a message, or one an agent showed
    /// with `send_file`).
    #[serde(rename = "attachment:get")]
    AttachmentGet(AttachmentRef),
    /// Ask for `attention` events on this connection (a TUI, `paddock notify`). Answered by
    /// `ack`.
    #[serde(rename = "notifications:subscribe")]
    NotificationsSubscribe,
    /// Answer pending tool calls: allow, deny, or always (allow and add a rule).
    #[serde(rename = "approval:answer")]
    ApprovalAnswer(ApprovalAnswer),
    /// From the MCP bridge of an agent: the tools its chat may use.
    #[serde(rename = "agent:tools")]
    AgentTools(AgentAuth),
    /// From the MCP bridge of an agent: call a tool as the chat the token names.
    #[serde(rename = "agent:call")]
    AgentCall(AgentCall),
    /// Who produced a file, from what, and whether it still is what they wrote.
    #[serde(rename = "provenance:file")]
    ProvenanceFile(ProvenanceFile),
    /// The files a chat's turns (or one turn) read and wrote, with each write's status now.
    #[serde(rename = "provenance:touched")]
    ProvenanceTouched(ProvenanceTouched),
    /// Which chat and turn last wrote each region of a file (from the steps and git).
    #[serde(rename = "provenance:blame")]
    ProvenanceBlame(ProvenanceFile),
    /// One directory of a project's directory: its entries (bounded), hidden ones when asked.
    #[serde(rename = "files:list")]
    FilesList(FilesList),
    /// A file of a project's directory: its text (capped), or that it is binary.
    #[serde(rename = "files:read")]
    FilesRead(FilesRead),
    /// A project's git status, whole or limited to the files a turn, chat or subtree wrote.
    #[serde(rename = "git:status")]
    GitStatus(GitStatusRequest),
    /// The diff of a project's changes against HEAD, whole or limited to a scope.
    #[serde(rename = "git:diff")]
    GitDiff(GitDiffRequest),
    /// Commit exactly a scope's changed files (other changes stay as they are).
    #[serde(rename = "git:commit")]
    GitCommit(GitCommitRequest),
    /// Push the current branch of a project (or of the data directory's repository) to its
    /// upstream; never forced.
    #[serde(rename = "git:push")]
    GitPush(GitPushRequest),
    #[serde(rename = "project:list")]
    ProjectList,
    #[serde(rename = "project:create")]
    ProjectCreate(ProjectCreate),
    /// Change a project's settings (description, status, model, drive mode, depth gate...).
    #[serde(rename = "project:update")]
    ProjectUpdate(ProjectUpdate),
    /// Unregister a project; its files are moved aside or deleted only when asked. Refused
    /// while its turns run unless `force`.
    #[serde(rename = "project:delete")]
    ProjectDelete(ProjectDelete),
    /// Make a notebook project (its files in the data directory) repo-backed: clone a
    /// repository into it and run its agents in the checkout.
    #[serde(rename = "project:promote")]
    ProjectPromote(ProjectPromote),
    /// A project's curated files (OVERVIEW.md, CHANGELOG.md) and its chat counts.
    #[serde(rename = "project:overview")]
    ProjectOverviewRequest(ProjectRef),
    #[serde(rename = "daemon:status")]
    DaemonStatus,
    /// Shut the daemon down cleanly (running turns are interrupted).
    #[serde(rename = "daemon:shutdown")]
    DaemonShutdown,
    /// The world the daemon's agents run in: the `claude` it starts and its version, the
    /// credentials in its environment (names only), its folders. For `paddock doctor`.
    #[serde(rename = "daemon:info")]
    DaemonInfo,
    /// Which chats session-id prefixes name, in every project, archived chats included: the
    /// command line's SESSION arguments, without listing every chat.
    #[serde(rename = "chat:resolve")]
    ChatResolve(ChatResolve),
}

impl Request {
    /// The wire name of the request, for logs and error messages.
    pub fn name(&self) -> &'static str {
        match self {
            Request::Hello(_) => "hello",
            Request::Ping => "ping",
            Request::ChatSend(_) => "chat:send",
            Request::ChatCommand(_) => "chat:command",
            Request::ChatCancel(_) => "chat:cancel",
            Request::ChatSubscribe(_) => "chat:subscribe",
            Request::ChatUnsubscribe(_) => "chat:unsubscribe",
            Request::ChatSetQueue(_) => "chat:set_queue",
            Request::ChatContinue(_) => "chat:continue",
            Request::ChatList(_) => "chat:list",
            Request::ChatTranscript(_) => "chat:transcript",
            Request::ProjectList => "project:list",
            Request::ProjectCreate(_) => "project:create",
            Request::ProjectUpdate(_) => "project:update",
            Request::ProjectDelete(_) => "project:delete",
            Request::ProjectPromote(_) => "project:promote",
            Request::ProjectOverviewRequest(_) => "project:overview",
            Request::DaemonStatus => "daemon:status",
            Request::DaemonShutdown => "daemon:shutdown",
            Request::DaemonInfo => "daemon:info",
            Request::ChatResolve(_) => "chat:resolve",
            Request::ChatUpdate(_) => "chat:update",
            Request::ChatDelete(_) => "chat:delete",
            Request::ChatFork(_) => "chat:fork",
            Request::HistoryList(_) => "history:list",
            Request::HistorySeen => "history:seen",
            Request::ChatImport(_) => "chat:import",
            Request::TriggerList(_) => "trigger:list",
            Request::TriggerSet(_) => "trigger:set",
            Request::TriggerRemove(_) => "trigger:remove",
            Request::TriggerFire(_) => "trigger:fire",
            Request::ApprovalList => "approval:list",
            Request::NotificationsSubscribe => "notifications:subscribe",
            Request::Search(_) => "search",
            Request::AttachmentGet(_) => "attachment:get",
            Request::ApprovalAnswer(_) => "approval:answer",
            Request::AgentTools(_) => "agent:tools",
            Request::AgentCall(_) => "agent:call",
            Request::ProvenanceFile(_) => "provenance:file",
            Request::ProvenanceTouched(_) => "provenance:touched",
            Request::ProvenanceBlame(_) => "provenance:blame",
            Request::FilesList(_) => "files:list",
            Request::FilesRead(_) => "files:read",
            Request::GitStatus(_) => "git:status",
            Request::GitDiff(_) => "git:diff",
            Request::GitCommit(_) => "git:commit",
            Request::GitPush(_) => "git:push",
        }
    }
}
