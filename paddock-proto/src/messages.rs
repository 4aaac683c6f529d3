//! Every message of the protocol. Field names are camelCase on the wire, in the reference's
//! spelling (`sessionId`, `projectSlug`, `jobId`, `seq`, `wantReplay`, `lastSeq`).
//!
//! The root workspace's project slug is the empty string: it is a real key, never "absent".

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A request id, chosen by the client, echoed in the one response it gets.
pub type RequestId = u64;

// ---------------------------------------------------------------------------------------------
// Client → daemon
// ---------------------------------------------------------------------------------------------

/// One line from a client: an id and a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientMessage {
    pub id: RequestId,
    #[serde(flatten)]
    pub request: Request,
}

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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hello {
    pub protocol_version: u32,
    /// Free text naming the client, e.g. `paddock 0.1.0`.
    pub client: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSend {
    /// The project; `""` is the root workspace.
    pub project_slug: String,
    /// `None` starts a new chat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Prepend the project's OVERVIEW.md and CHANGELOG.md tail to a new chat's first prompt.
    #[serde(default, skip_serializing_if = "is_false")]
    pub preload_context: bool,
    /// Files to attach to the message (within the daemon's limits on size, count and type).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<AttachmentUpload>,
}

/// `attachment:get`: which kept attachment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentRef {
    /// `<uuid><ext>`, as the message's attachment block or the `send_file` notice names it.
    pub attachment_id: String,
}

/// A kept attachment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub id: String,
    /// `image`, `pdf`, `markdown`, `code`, `text`, `html` or `file` (by its extension).
    pub file_kind: String,
    pub size: u64,
    /// The bytes, base64 (standard alphabet, padded).
    pub data: String,
}

/// A file attached to a message: a path on the daemon's machine, or the bytes themselves
/// (base64, from a client on another machine). The daemon keeps an immutable copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentUpload {
    /// The file's name as the user knows it (`screenshot.png`).
    pub name: String,
    /// An absolute path the daemon reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The bytes, base64 (standard alphabet, padded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatCommand {
    pub project_slug: String,
    pub session_id: String,
    /// The slash command, e.g. `/compact`.
    pub command: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatCancel {
    pub session_id: String,
    /// When given, cancel only if this job is still the running one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSubscribe {
    pub session_id: String,
    /// Replay buffered frames. False on a fresh view that hydrates from the transcript.
    #[serde(default)]
    pub want_replay: bool,
    /// The last seq the client saw; replay starts at `lastSeq + 1`. `None` with
    /// `wantReplay` replays everything the running turn's buffer still holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seq: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    pub session_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSetQueue {
    pub session_id: String,
    /// `None` clears the slot.
    pub message: Option<String>,
}

/// The most chats one batch request may name.
pub const BATCH_SESSIONS_MAX: usize = 500;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatUpdate {
    pub session_ids: Vec<String>,
    pub action: ChatAction,
}

/// What `chat:update` does to each chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatAction {
    Archive,
    Unarchive,
    Star,
    Unstar,
    /// Mark seen now (for the asking user); clears a manual unread.
    Read,
    /// Flag unread again (for the asking user).
    Unread,
    /// Make the chat a root of the tree, whatever its recorded or inferred parent.
    Detach,
    /// Undo `detach`.
    Attach,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionIds {
    pub session_ids: Vec<String>,
}

/// `chat:resolve`: 1 to 500 prefixes of session ids (compared without case).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatResolve {
    pub prefixes: Vec<String>,
}

/// The chats each prefix of a `chat:resolve` names, in its order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resolved {
    pub prefixes: Vec<ResolvedPrefix>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedPrefix {
    pub prefix: String,
    /// The chats whose ids start with it, by id; at most 6 (a whole id names one).
    pub chats: Vec<ResolvedChat>,
    /// How many more start with it.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub more: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedChat {
    pub session_id: String,
    pub project_slug: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatFork {
    pub session_id: String,
    /// The fork's title; default: the source's title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryList {
    /// `None`: every project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
    /// Only runs that ran without the user (not `human`, not `adopted`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub unattended: bool,
    /// At most this many runs, newest first (default 100, at most 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatImport {
    pub project_slug: String,
    /// The directory whose terminal sessions to adopt; default: the project's own directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Report what would be adopted, change nothing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dry_run: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerList {
    /// `None`: every project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerRef {
    pub project_slug: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerSet {
    pub project_slug: String,
    pub name: String,
    pub spec: TriggerSpec,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerFire {
    pub project_slug: String,
    pub name: String,
    /// Replaces the trigger's prompt for this fire (e.g. a webhook's payload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A schedule or a hook, as `project.toml` holds it (`[triggers.NAME]`) and the wire carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub struct TriggerSpec {
    pub kind: TriggerKind,
    /// What the started (or resumed) chat is told.
    pub prompt: String,
    /// Schedule: five-field cron, e.g. `0 2 * * 1-5`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cron: Option<String>,
    /// Schedule: an interval instead of cron, e.g. `15m`, `2h`, `1d`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<String>,
    /// Schedule: the cron's time zone (IANA name, e.g. `Europe/Berlin`); default UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Schedule: what to do about fires missed while the daemon was down.
    #[serde(default, skip_serializing_if = "MissedPolicy::is_default")]
    pub missed: MissedPolicy,
    /// Hook: the event that fires it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<HookEvent>,
    /// Hook `file_changed`: glob patterns relative to the project's directory (default: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Hook `file_changed`: quiet time before firing, in seconds (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debounce_secs: Option<u64>,
    /// `new`: every fire starts a chat. `resume`: fires accrete into the one chat the trigger
    /// owns, across fires and daemon restarts.
    #[serde(default, skip_serializing_if = "SessionPolicy::is_default")]
    pub session: SessionPolicy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// How long a tool call of this trigger's runs waits in the approvals inbox before it is
    /// denied; `0` waits for a person. Default: the instance's `approval_timeout_secs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_timeout_secs: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerKind {
    Schedule,
    Hook,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissedPolicy {
    /// Fires missed while the daemon was down are dropped.
    #[default]
    Skip,
    /// One catch-up fire at start when any was missed.
    RunOnce,
}

impl MissedPolicy {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionPolicy {
    #[default]
    New,
    Resume,
}

impl SessionPolicy {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookEvent {
    /// A turn in one of the project's chats completed.
    TurnCompleted,
    /// A turn in one of the project's chats failed.
    TurnFailed,
    /// A spawned chat finished a turn (its parent is told).
    ChildFinished,
    /// A file under the project's directory changed.
    FileChanged,
    /// Only `paddock trigger fire` (the scriptable webhook).
    Manual,
    /// One of the project's chats was archived, by a person or an agent (the reference's
    /// `onArchive`).
    Archived,
}

/// A trigger and what the daemon knows of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerInfo {
    pub project_slug: String,
    pub name: String,
    pub spec: TriggerSpec,
    /// A schedule's next fire (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_fire: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_fire: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_status: Option<RunStatus>,
    /// The chat a `resume` trigger owns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Why the trigger cannot run (a bad cron, an unknown time zone), if it cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalAnswer {
    /// 1 to 500 approval ids; all-or-nothing on validation.
    pub ids: Vec<String>,
    pub decision: ApprovalDecision,
    /// Told to the agent with a denial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    Allow,
    Deny,
    /// Allow, and add the approval's `alwaysRule` to the project's allowed tools, so a call
    /// it covers is not asked again.
    Always,
}

/// Who an MCP bridge speaks for: the per-chat token the daemon handed to that chat's `claude`,
/// and which of its servers (`paddock_manage` for self-management, `paddock` for `send_file`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentAuth {
    pub token: String,
    pub server: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCall {
    pub token: String,
    pub server: String,
    /// The tool's name without the `mcp__<server>__` prefix, e.g. `create_chat`.
    pub tool: String,
    #[serde(default)]
    pub arguments: Value,
    /// The CLI's `tool_use` id of the call, when it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatScope {
    #[default]
    Active,
    Archived,
    All,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatList {
    /// `None` lists every project's chats; `Some("")` only the root workspace's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
    #[serde(default)]
    pub scope: ChatScope,
    /// The `revision` of an earlier answer to this same listing (same project, scope and
    /// user): the answer then holds only what changed since, when the daemon can still tell
    /// ([`Chats::delta`]). `None`: the full list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectCreate {
    pub slug: String,
    /// Where the project's agents run. `None`: a new folder in the data directory (with
    /// `repo`: the checkout inside it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A git URL (`https://`, `ssh://`, `git://`, `file://`, `git@host:owner/repo`) or an
    /// absolute path of a repository to clone: the project is then repo-backed, its agents
    /// running in the clone (in `path`, which must not exist or be empty, else in a folder
    /// named after the repository inside the project's data folder). A failed clone leaves
    /// nothing behind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// A display name (the slug when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// One line saying what the project is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The area (group) the project is filed under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ProjectStatus>,
}

/// A project's lifecycle status, as the reference's `project.yaml` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectStatus {
    Idea,
    Active,
    Paused,
    Blocked,
    Done,
    Abandoned,
}

impl ProjectStatus {
    pub const ALL: [ProjectStatus; 6] = [
        ProjectStatus::Idea,
        ProjectStatus::Active,
        ProjectStatus::Paused,
        ProjectStatus::Blocked,
        ProjectStatus::Done,
        ProjectStatus::Abandoned,
    ];

    /// The wire (and `project.toml`) spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ProjectStatus::Idea => "idea",
            ProjectStatus::Active => "active",
            ProjectStatus::Paused => "paused",
            ProjectStatus::Blocked => "blocked",
            ProjectStatus::Done => "done",
            ProjectStatus::Abandoned => "abandoned",
        }
    }
}

impl std::str::FromStr for ProjectStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProjectStatus::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| {
                let all: Vec<&str> = ProjectStatus::ALL.iter().map(|s| s.as_str()).collect();
                format!("unknown status {s:?}; one of {}", all.join(", "))
            })
    }
}

/// How a project's chats run `claude`: one process kept per chat, or one per turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectDriveMode {
    Session,
    Batch,
}

/// A present field that may be `null`: absent leaves the setting as it is (`None`), `null`
/// clears it back to its default (`Some(None)`), a value sets it.
fn set_or_clear<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// `project:update`: each field absent is left as it is, `null` clears the setting (the
/// instance's default applies again), a value sets it. Written into `project.toml` as an
/// edit: comments, order and other keys stay as they were.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectUpdate {
    pub slug: String,
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub name: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub summary: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub area: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub status: Option<Option<ProjectStatus>>,
    /// The model for chats that do not choose one.
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub model: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub drive_mode: Option<Option<ProjectDriveMode>>,
    /// The depth gate for the project's chats, 0-8.
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_spawn_depth: Option<Option<u32>>,
    /// Rules to add to the project's `allowedTools` (a rule already there is kept once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Rules to remove from the project's `allowedTools`, exactly as listed; one that is not
    /// there fails the update (nothing is changed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disallow: Vec<String>,
}

/// What `project:delete` does with the project's folder in the data directory (its
/// `project.toml`, OVERVIEW.md, CHANGELOG.md, `.chats` and, for a notebook project, its
/// files). A directory of the user's own (`path`) is never moved or deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectFiles {
    /// Moved aside to `<data>/trash/<slug>-<time>/`, whole: restorable by moving it back
    /// (and restarting paddockd).
    Trash,
    /// Deleted.
    Delete,
}

/// `project:delete`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectDelete {
    pub slug: String,
    /// Interrupt the project's running turns (and wait for them to end) instead of refusing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub force: bool,
    /// Absent: a project whose agents run in a directory of the user's own is unregistered
    /// (its data folder moved to the trash); one whose files live in the data directory is
    /// refused, naming the two choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<ProjectFiles>,
}

/// `project:promote`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectPromote {
    /// The notebook project (not the root workspace, not one with a directory of its own).
    pub slug: String,
    /// The repository to clone (as for `project:create`).
    pub repo: String,
}

/// One project, by slug (`""`: the root workspace).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRef {
    pub slug: String,
}

// ---------------------------------------------------------------------------------------------
// Daemon → client
// ---------------------------------------------------------------------------------------------

/// Anything the daemon writes: a hub frame, or a control message (responses included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ServerMessage {
    Frame(HubFrame),
    Control(ControlMessage),
}

/// The Routing payload carried by every hub frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Routing {
    pub project_slug: String,
    pub session_id: String,
    pub job_id: String,
    /// Stamped by the hub: monotonic per session for the daemon's lifetime, starting at 1.
    pub seq: u64,
}

/// One frame of a chat's live stream, as the session hub fans it out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HubFrame {
    #[serde(flatten)]
    pub routing: Routing,
    #[serde(flatten)]
    pub event: ChatEvent,
}

/// The chat stream's frame set (architecture §4), plus `chat:user` and `chat:thinking`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ChatEvent {
    /// A user turn entered the chat: typed by a person, or injected by a machine (then
    /// `attribution` says by whom). Every attached client sees it live.
    #[serde(rename = "chat:user")]
    User(UserTurn),
    /// A text delta of the assistant's reply.
    #[serde(rename = "chat:response")]
    Response(TextDelta),
    /// A thinking delta (clients show it collapsed).
    #[serde(rename = "chat:thinking")]
    Thinking(TextDelta),
    #[serde(rename = "chat:tool_start")]
    ToolStart(ToolStart),
    #[serde(rename = "chat:tool_call")]
    ToolCall(ToolCall),
    /// The end of one assistant message.
    #[serde(rename = "chat:message_boundary")]
    MessageBoundary(MessageBoundary),
    /// The turn is over. Always the last frame of a turn.
    #[serde(rename = "chat:complete")]
    Complete(Complete),
    /// The turn failed; a `chat:notice` says why in words and a `chat:complete` follows.
    #[serde(rename = "chat:error")]
    Error(ChatError),
    #[serde(rename = "chat:notice")]
    Notice(Notice),
    /// A queued follow-up was sent automatically as the next turn.
    #[serde(rename = "chat:queued_flushed")]
    QueuedFlushed(QueuedFlushed),
    /// A background task the chat awaited was killed; `chat:continue` re-drives it.
    #[serde(rename = "chat:killed_task")]
    KilledTask(KilledTask),
}

impl ChatEvent {
    pub fn name(&self) -> &'static str {
        match self {
            ChatEvent::User(_) => "chat:user",
            ChatEvent::Response(_) => "chat:response",
            ChatEvent::Thinking(_) => "chat:thinking",
            ChatEvent::ToolStart(_) => "chat:tool_start",
            ChatEvent::ToolCall(_) => "chat:tool_call",
            ChatEvent::MessageBoundary(_) => "chat:message_boundary",
            ChatEvent::Complete(_) => "chat:complete",
            ChatEvent::Error(_) => "chat:error",
            ChatEvent::Notice(_) => "chat:notice",
            ChatEvent::QueuedFlushed(_) => "chat:queued_flushed",
            ChatEvent::KilledTask(_) => "chat:killed_task",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserTurn {
    /// The transcript uuid of the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    pub text: String,
    /// `None` for a message a person typed; who injected it otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextDelta {
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolStart {
    pub tool_use_id: String,
    pub name: String,
    #[serde(default)]
    pub input: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub tool_use_id: String,
    pub name: String,
    #[serde(default)]
    pub input: Value,
    /// The tool result as text.
    pub output: String,
    pub is_error: bool,
    /// The CLI's structured result (`tool_use_result`), when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageBoundary {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Complete {
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// This turn's cost (the CLI reports a per-process total; the daemon takes differences).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The CLI's `terminal_reason` (`completed`, `aborted_streaming`, `api_error`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_reason: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// Tokens in the context window after the turn, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// The model's context window, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatError {
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// The `claude` process crashed, exited, or printed something that is not the protocol.
    Crashed,
    /// The Messages API failed (after the CLI's own retries).
    ApiError,
    /// The API is being retried.
    Retrying,
    /// The turn was interrupted.
    Interrupted,
    /// A tool call was refused by the permission settings.
    PermissionDenied,
    UsageLimit,
    MaxTurns,
    /// Anything else worth showing inline.
    Info,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    pub kind: NoticeKind,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedFlushed {
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KilledTask {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    pub message: String,
}

/// Who injected a machine-added user turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Attribution {
    /// ⏰ scheduled by NAME
    Scheduled { name: String },
    /// ↩ sent by another chat
    #[serde(rename_all = "camelCase")]
    Sent {
        from_session_id: String,
        from_project: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from_title: Option<String>,
    },
    /// ⚡ triggered by hook NAME
    Hook { name: String },
    /// ⚠ continued after a background task was terminated
    Recovery,
}

/// Messages that are not hub frames: responses, and events with no seq.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ControlMessage {
    #[serde(rename = "response")]
    Response(Response),
    /// A connection-level error not tied to a request (a malformed or oversize line).
    #[serde(rename = "error")]
    Error(ConnectionError),
    /// A chat started or stopped running. Sent to every client, and at connect for every
    /// running chat.
    #[serde(rename = "chat:active")]
    Active(Active),
    /// The frames this client needed are gone (aged out of the buffer, or dropped because
    /// the client read too slowly): re-read the transcript, then subscribe again.
    #[serde(rename = "chat:resync")]
    Resync(Resync),
    /// The chat list of a project changed (a chat was created, renamed, archived...).
    #[serde(rename = "chats:changed")]
    ChatsChanged(ChatsChanged),
    /// The pending approvals changed (one was asked, answered, or dropped with its turn).
    /// Sent to every client, and at connect when any is pending.
    #[serde(rename = "approvals:changed")]
    ApprovalsChanged(ApprovalsChanged),
    /// A chat needs the user: an unattended run finished or failed, a run failed, or a tool call
    /// waits for approval. Sent once per event, only to clients that asked
    /// (`notifications:subscribe`), and not at all while some client is subscribed to the chat.
    #[serde(rename = "attention")]
    Attention(Attention),
    /// The daemon is shutting down on purpose (`daemon:shutdown`, or SIGTERM/SIGINT), sent to
    /// every client before it interrupts turns and closes connections. A client that got it
    /// does not start a new daemon by itself; a connection lost without it was a crash.
    #[serde(rename = "daemon:stopping")]
    Stopping(Stopping),
}

/// `daemon:stopping`: why the daemon is going away.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stopping {
    pub reason: StopReason,
    /// One sentence for a person, e.g. `paddockd was stopped (paddock daemon stop)`.
    pub message: String,
}

/// What stopped the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// A client asked (`daemon:shutdown`: `paddock daemon stop` or `restart`).
    Requested,
    /// A signal (SIGTERM, SIGINT): systemd, `kill`, Ctrl-C in its terminal.
    Signal,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    pub id: RequestId,
    #[serde(flatten)]
    pub outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Outcome {
    #[serde(rename = "ok")]
    Ok(Reply),
    #[serde(rename = "error")]
    Err(ErrorBody),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionError {
    pub error: ErrorBody,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Active {
    pub project_slug: String,
    pub session_id: String,
    pub job_id: String,
    pub running: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resync {
    pub session_id: String,
    pub reason: ResyncReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResyncReason {
    /// The requested range is older than what the buffer still holds.
    AgedOut,
    /// This client's queue overflowed and its subscription was dropped.
    SlowClient,
    /// `lastSeq` is ahead of anything this daemon sent (it restarted).
    UnknownSeq,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatsChanged {
    pub project_slug: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalsChanged {
    /// How many approvals are pending now.
    pub pending: u32,
}

/// `search`: words to find in every chat's title, messages and tool calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchRequest {
    /// Words (each must appear, case-insensitively, as the start of a word: `refr` finds
    /// `refresh`) and `"quoted phrases"` (which must appear as they are, case aside).
    pub query: String,
    /// Only this project's chats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
    /// At most this many chats (default 50, at most 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// Archived chats too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub archived: bool,
}

/// The chats that match a search, best first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    pub query: String,
    pub hits: Vec<SearchHit>,
    /// How many chats matched in all (`hits` may stop at the limit).
    pub total: u32,
    /// The index is still being built (at start, or after it was found missing): the results
    /// cover the chats indexed so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexing: Option<SearchProgress>,
}

/// How far an index build has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchProgress {
    pub done: u32,
    pub total: u32,
}

/// One chat that matches, with where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub project_slug: String,
    pub session_id: String,
    pub title: String,
    /// RFC 3339, the chat's last activity.
    pub updated_at: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub archived: bool,
    /// The first matches in the chat, in transcript order (at most 5).
    pub matches: Vec<SearchMatch>,
    /// Matches beyond those.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub more: u32,
}

/// Where a search matched in a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchField {
    Title,
    User,
    Assistant,
    ToolUse,
    ToolResult,
}

/// One place a search matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchMatch {
    pub field: SearchField,
    /// The entry of `chat:transcript` this match is in (its index in `entries`), to jump to;
    /// absent for the title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<u32>,
    /// The transcript record's uuid, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// One line around the match (at most about 160 characters).
    pub snippet: String,
    /// The matched parts of `snippet`, as `[start, end)` character offsets.
    pub highlights: Vec<[u32; 2]>,
}

/// Why a chat needs the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionKind {
    /// An unattended run (scheduled, hook, spawned) finished.
    Finished,
    /// A run failed.
    Failed,
    /// A tool call waits for approval.
    Approval,
}

/// `attention`: a chat needs the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attention {
    /// Stable per event (`run:<jobId>`, `approval:<id>`): clients drop one they have seen.
    pub id: String,
    pub kind: AttentionKind,
    pub project_slug: String,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    /// Who started the run (for a badge).
    pub origin: Origin,
    /// The chat's title.
    pub title: String,
    /// One line for a person, e.g. `Scheduled run finished` or `Bash needs your approval: cargo test`.
    pub body: String,
    /// RFC 3339.
    pub at: String,
}

// ---------------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------------

/// The successful answer to a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reply {
    Hello(HelloReply),
    Pong,
    /// The request was carried out; nothing more to say.
    Ack,
    /// A turn was accepted (`queued` when it waits for a free `claude` slot).
    Sent(Sent),
    Cancelled(Cancelled),
    Subscribed(Subscribed),
    Chats(Chats),
    Transcript(Box<Transcript>),
    Projects(Projects),
    Project(ProjectInfo),
    /// `project:delete`: what was done.
    ProjectDeleted(ProjectDeleted),
    /// `project:overview`.
    ProjectOverview(Box<ProjectOverview>),
    Status(DaemonStatus),
    /// `daemon:info`.
    Info(Box<DaemonInfo>),
    /// `chat:resolve`.
    Resolved(Resolved),
    /// `chat:update` / `chat:delete`: how many chats changed.
    Updated(Updated),
    /// `chat:fork`: the new chat.
    Forked(Forked),
    History(History),
    Imported(Imported),
    Triggers(Triggers),
    Trigger(Box<TriggerInfo>),
    /// `trigger:fire`: the chat it started or resumed, or why it did not.
    Fired(Fired),
    Approvals(Approvals),
    /// `agent:tools`: what the MCP bridge lists in `tools/list`.
    AgentTools(AgentTools),
    /// `agent:call`: the tool's answer, as the MCP bridge returns it.
    AgentResult(AgentResult),
    /// `provenance:file`: a file's status, producers, readers and lineage.
    Provenance(Box<Provenance>),
    /// `provenance:touched`: a chat's files, turn by turn.
    Touched(Touched),
    /// `search`: the chats that match, best first.
    SearchResults(SearchResults),
    /// `attachment:get`: a kept attachment's bytes.
    Attachment(Attachment),
    /// `provenance:blame`: a file's lines and who last wrote each region.
    Blame(Box<Blame>),
    /// `files:list`: one directory's entries.
    FileListing(FileListing),
    /// `files:read`: a file's text.
    FileText(FileText),
    /// `git:status`.
    GitStatus(GitStatus),
    /// `git:diff`.
    GitDiff(GitDiff),
    /// `git:commit`: the new commit.
    GitCommitted(GitCommitted),
    /// `git:push`: what was pushed, or that the remote was up to date.
    GitPushed(GitPushed),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Approvals {
    pub approvals: Vec<Approval>,
}

/// A tool call waiting for a person: what it is, and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    pub id: String,
    pub project_slug: String,
    pub session_id: String,
    pub job_id: String,
    /// The chat's title, and its origin and depth (for the badge).
    pub title: String,
    pub origin: Origin,
    pub depth: u32,
    /// The tool, e.g. `Bash`, `Edit`, `mcp__paddock_manage__create_chat`.
    pub tool: String,
    pub input: Value,
    /// A short preview: the command, or a diff of an edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// RFC 3339.
    pub asked_at: String,
    /// The rule an `always` answer adds to the project's `allowedTools`, scoped to this kind
    /// of call (`Bash(mkdir:*)`, `Edit(src/**)`, a bare tool name for a tool without an input
    /// to scope); absent when none can be scoped, and `always` then allows this call only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always_rule: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Triggers {
    pub triggers: Vec<TriggerInfo>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fired {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Set when the fire was skipped (its previous run still going).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentTools {
    pub tools: Vec<AgentTool>,
}

/// One MCP tool: name, description and JSON schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentResult {
    /// The text the model reads.
    pub text: String,
    pub is_error: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Updated {
    /// Chats whose state actually changed (already-archived chats do not count).
    pub changed: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Forked {
    pub project_slug: String,
    pub session_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    pub runs: Vec<RunSummary>,
    /// When this user last looked at the history (RFC 3339), if ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<String>,
    /// Unattended runs that finished since then: "while you were away".
    pub new_unattended: u32,
}

/// One run: a turn the daemon ran, or an adopted chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub job_id: String,
    pub project_slug: String,
    pub session_id: String,
    /// The chat's title now.
    pub title: String,
    /// Who started this run.
    pub origin: Origin,
    /// The chat's spawn depth.
    pub depth: u32,
    /// The schedule or hook that fired it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    pub status: RunStatus,
    /// RFC 3339.
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The prompt, cut to 200 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Who injected the run's message, as the transcript labels it: another chat (`sent`,
    /// with the sender's title then), a schedule, a hook, recovery. Absent for a person's
    /// turn and for runs recorded before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
    /// Unattended and finished since the user last looked.
    pub is_new: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Completed,
    Failed,
    Cancelled,
    /// The daemon stopped (or was killed) while it ran.
    Interrupted,
    /// A trigger fired while its previous run was still going: nothing ran.
    Skipped,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Imported {
    pub project_slug: String,
    /// The directory whose sessions were looked at.
    pub path: String,
    pub adopted: Vec<String>,
    pub skipped: Vec<ImportSkip>,
    pub dry_run: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportSkip {
    pub session_id: String,
    /// sidechain, already_present, empty, slash_command_only, unreadable, other_directory
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelloReply {
    pub protocol_version: u32,
    pub daemon_version: String,
    pub pid: u32,
    /// The peer's user name, as the daemon resolved it from the socket credentials.
    pub user: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    pub project_slug: String,
    pub session_id: String,
    pub job_id: String,
    /// True when the turn waits for a free `claude` process slot.
    pub queued: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cancelled {
    /// False when nothing was running.
    pub was_running: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscribed {
    pub session_id: String,
    pub running: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    /// How many buffered frames follow this reply as replay.
    pub replayed: u64,
    /// The seq the next live frame will carry.
    pub next_seq: u64,
}

/// The answer to `chat:list`: the full list, or (`delta`) what changed since the asked revision.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Chats {
    /// The full list in tree order; in a delta, only the rows that changed (or appeared) since
    /// `since`, in tree order.
    pub chats: Vec<ChatSummary>,
    /// This listing's revision now: send it back as `since` for a delta. Revisions never repeat
    /// across daemon runs. `None` from a daemon that does not keep them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    /// True: `chats` holds only the changed rows and `removed` the ids that left the listing;
    /// false: `chats` is the whole list.
    #[serde(default, skip_serializing_if = "is_false")]
    pub delta: bool,
    /// In a delta: the ids no longer in this listing (archived away, deleted, moved).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// In a delta, one per row of `chats`: the session id of the row listed just before it in
    /// the whole list (`None`: it is first). A row not in `chats` kept its predecessor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<Option<String>>,
}

/// How a chat came to exist (its run provenance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    #[default]
    Human,
    Scheduled,
    Spawned,
    Hook,
    Adopted,
}

/// One row of a chat list, in tree order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSummary {
    pub session_id: String,
    pub project_slug: String,
    pub title: String,
    pub origin: Origin,
    pub depth: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_project: Option<String>,
    /// RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub message_count: u64,
    pub running: bool,
    pub unread: bool,
    pub archived: bool,
    pub starred: bool,
    /// Explicitly detached from its parent (drawn as a root).
    #[serde(default, skip_serializing_if = "is_false")]
    pub detached: bool,
    /// The schedule or hook that started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// Where the chat is drawn: the resolved parent (recorded, else inferred), when that
    /// parent is in this listing. `None`: a root row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_parent: Option<String>,
    /// Nesting level in this listing (0 for a root row).
    #[serde(default)]
    pub level: u32,
    /// Direct children in this listing, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<ChatUsage>,
    /// The follow-up queued to be sent when the running turn ends (`chat:set_queue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued: Option<String>,
    /// Its last turn was cut short (its `claude` died, or the daemon stopped): `chat:continue`
    /// picks it up.
    #[serde(default, skip_serializing_if = "is_false")]
    pub interrupted: bool,
    /// Parked on a usage limit: the CLI's message, with its reset time when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parked: Option<String>,
    /// A one-line status, refreshed after each turn: the first line of the newest reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// Tokens and cost of a chat, from its transcript.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatUsage {
    /// Tokens in the context window after the latest message.
    pub context_tokens: u64,
    pub context_limit: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_creation_tokens: u64,
    /// Estimated from the token counts and the model's list price.
    pub cost_usd: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    pub chat: ChatSummary,
    pub entries: Vec<TranscriptEntry>,
}

/// One rendered element of a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TranscriptEntry {
    #[serde(rename_all = "camelCase")]
    User {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        uuid: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timestamp: Option<String>,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attribution: Option<Attribution>,
    },
    #[serde(rename_all = "camelCase")]
    Assistant {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        uuid: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timestamp: Option<String>,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    Thinking {
        text: String,
    },
    #[serde(rename_all = "camelCase")]
    ToolUse {
        tool_use_id: String,
        name: String,
        input: Value,
    },
    #[serde(rename_all = "camelCase")]
    ToolResult {
        tool_use_id: String,
        output: String,
        is_error: bool,
    },
    #[serde(rename_all = "camelCase")]
    Compaction {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pre_tokens: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        post_tokens: Option<u64>,
    },
    Interrupted {
        text: String,
    },
    #[serde(rename_all = "camelCase")]
    ApiError {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
        text: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Projects {
    pub projects: Vec<ProjectInfo>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectInfo {
    /// `""` is the root workspace.
    pub slug: String,
    /// The directory its agents run in.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// The settings `project:update` changes, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ProjectStatus>,
    /// The repository a repo-backed project was cloned from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_mode: Option<ProjectDriveMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_spawn_depth: Option<u32>,
    /// The project's own tool rules (`allowed_tools` in its `project.toml`), on top of the
    /// instance's: calls they match run without asking.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// Set when another project (this slug; `""` the root workspace) owns `path`: this one
    /// shows no chats and runs no turns until its `path` changes (a directory belongs to one
    /// project).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<String>,
}

/// What `project:delete` did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectDeleted {
    pub slug: String,
    /// The directory its agents ran in, and whether it is still there (a directory of the
    /// user's own always is).
    pub path: String,
    pub path_kept: bool,
    /// Where its data folder went: the trash folder, or absent when it was deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
    /// Its chats (their transcripts went with the data folder; in `host` mode they stay in
    /// `~/.claude`).
    pub chats: u32,
    /// Its triggers, which no longer fire.
    pub triggers: u32,
    /// Running turns interrupted (with `force`).
    pub cancelled_turns: u32,
    /// What was done, one sentence each, for a person.
    pub done: Vec<String>,
}

/// `project:overview`: the project, its curated files and its chat counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectOverview {
    pub project: ProjectInfo,
    /// OVERVIEW.md; absent before the first sweep wrote it. Cut at [`OVERVIEW_MAX_BYTES`]
    /// (at a line's end, `overviewTruncated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overview: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub overview_truncated: bool,
    /// CHANGELOG.md (newest entries first); absent before the first sweep wrote it. Over
    /// [`CHANGELOG_MAX_BYTES`], the newest whole entries that fit are kept
    /// (`changelogTruncated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub changelog_truncated: bool,
    /// The project's chats that are not archived, those running a turn now, and those
    /// unread by this user.
    pub chats: u32,
    pub running: u32,
    pub unread: u32,
    /// When the sweeper last ran (RFC 3339); with `sweepError`, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swept_at: Option<String>,
    /// Why the last sweep failed (the files are as an earlier sweep left them); absent when it
    /// succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep_error: Option<String>,
}

/// The most of OVERVIEW.md `project:overview` carries.
pub const OVERVIEW_MAX_BYTES: usize = 64 * 1024;
/// The most of CHANGELOG.md `project:overview` carries.
pub const CHANGELOG_MAX_BYTES: usize = 32 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonStatus {
    pub daemon_version: String,
    pub protocol_version: u32,
    pub pid: u32,
    pub uptime_secs: u64,
    pub socket: String,
    pub data_dir: String,
    pub running: Vec<RunningTurn>,
    /// `claude` processes alive now, and the configured bound.
    pub live_processes: u32,
    pub max_processes: u32,
    /// Turns waiting for a free process slot.
    pub queued_turns: u32,
    pub clients: u32,
    /// The daemon's folders whose disk has less free space than `disk_floor_mb`: a turn's
    /// transcript may not be saved. Empty when there is room.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub low_disk: Vec<DiskSpace>,
}

/// Free space on the disk holding one of the daemon's folders.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiskSpace {
    /// The folder (the data folder, or the Claude home the transcripts are written in).
    pub path: String,
    /// Bytes an unprivileged writer may still use there.
    pub free_bytes: u64,
    /// The configured floor (`disk_floor_mb`), in bytes.
    pub floor_bytes: u64,
}

/// `daemon:info`: what the daemon's agents run with. `paddockd info` prints the same (one
/// line of JSON, no `pid`) for a daemon that is not running, as it would start now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonInfo {
    pub daemon_version: String,
    /// The running daemon's; absent from `paddockd info`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    pub socket: String,
    pub data_dir: String,
    pub log: String,
    /// `CLAUDE_CONFIG_DIR` of the agents.
    pub claude_home: String,
    pub claude: ClaudeInfo,
    /// The credential variables set in the daemon's environment (`ANTHROPIC_API_KEY`,
    /// `ANTHROPIC_AUTH_TOKEN`, `CLAUDE_CODE_OAUTH_TOKEN`, ...): names only, never values.
    pub credentials: Vec<String>,
    /// The login file in `claudeHome` (from `claude /login`), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<String>,
    /// Free space where the data folder and the Claude home are (one entry per disk).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<DiskSpace>,
}

/// The `claude` the daemon starts, as the daemon resolves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeInfo {
    /// As configured: `claude_bin` / `PADDOCK_CLAUDE_BIN`, else `claude`.
    pub configured: String,
    /// The file that runs (a bare name looked up on the daemon's `PATH`); absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What `claude --version` said, e.g. `2.1.332`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Why there is no version: not found, did not run, did not answer in time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The oldest version this daemon supports.
    pub min_version: String,
    /// Whether `version` is at least `minVersion`; absent without a version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningTurn {
    pub project_slug: String,
    pub session_id: String,
    pub job_id: String,
    /// RFC 3339.
    pub started_at: String,
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub code: ErrorCode,
    /// One sentence for a person, saying what to do.
    pub message: String,
    /// Set with `protocol_mismatch`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<ProtocolMismatch>,
    /// Set with `git_failed`: why, and what git said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitFailure>,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            mismatch: None,
            git: None,
        }
    }
}

impl std::fmt::Display for ErrorBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The client and daemon speak different protocol versions.
    ProtocolMismatch,
    /// A request came before `hello`.
    HelloRequired,
    /// The line was not a valid message.
    MalformedFrame,
    /// The line exceeded the maximum length.
    FrameTooLarge,
    InvalidArgument,
    NotFound,
    AlreadyExists,
    /// The chat is running a turn and cannot take this request now.
    Busy,
    /// The daemon is shutting down.
    ShuttingDown,
    /// The peer is another user: the daemon serves only its own user.
    PermissionDenied,
    /// git ran and failed (a push the remote rejected, credentials it could not get, a remote
    /// it could not reach); the body's `git` says why and carries git's own words.
    GitFailed,
    Internal,
}

/// Why git failed, with what it said (`error.git`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitFailure {
    pub reason: GitFailureReason,
    /// git's stderr, trimmed (empty when it said nothing).
    pub stderr: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GitFailureReason {
    /// The remote has commits the branch lacks (not a fast-forward): pull or rebase first.
    Rejected,
    /// No credentials, or they were refused (git was not allowed to prompt for them).
    Auth,
    /// git did not finish within its time limit and was stopped.
    Timeout,
    /// Anything else: git's stderr says what.
    Other,
}

/// What a client needs to act on a version mismatch (restart an idle daemon, or say what to do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProtocolMismatch {
    pub daemon_protocol: u32,
    pub daemon_version: String,
    pub pid: u32,
    /// Turns running now: a daemon with none can be restarted safely.
    pub running_turns: u32,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_true(b: &bool) -> bool {
    *b
}

fn yes() -> bool {
    true
}

// ---------------------------------------------------------------------------------------------
// File provenance
// ---------------------------------------------------------------------------------------------

/// `provenance:file`: one file of a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProvenanceFile {
    /// The project; absent: the project whose directory holds `path` (then `path` must be
    /// absolute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
    /// Relative to the project's directory, or absolute inside it.
    pub path: String,
}

/// Whether a file still is what its latest recorded write left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    /// The bytes on disk match the hash recorded at the latest write.
    Current,
    /// They differ (or the file is gone).
    Stale,
    /// No identity to check: no recorded write, no hash, or the file could not be read.
    Unverified,
}

/// How a step's effect on a file is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileEdge {
    /// The tool named the file (Edit, Write, Read...).
    Observed,
    /// A before/after scan or the command line suggests it.
    Inferred,
}

/// A file's provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    pub project_slug: String,
    /// Relative to the project's directory.
    pub path: String,
    pub status: FileStatus,
    /// Why the status is what it is, for a person.
    pub status_reason: String,
    /// `sha256:HEX` of the bytes on disk now, when the file could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_hash: Option<String>,
    /// The steps that wrote the file, newest first.
    pub producers: Vec<FileStep>,
    /// The steps that read it, newest first.
    pub readers: Vec<FileStep>,
    pub lineage: Lineage,
    /// What the records may be missing (dropped events, scans that failed), for a person.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The environments the steps above ran in (each once), by the `environment` they name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub environments: Vec<Environment>,
}

/// A snapshot of a project's environment, taken when a chat's first turn starts and again
/// after an install-shaped command; content-addressed, so steps with the same environment
/// share one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Environment {
    /// Hex sha256 of the snapshot's canonical JSON (every field below).
    pub hash: String,
    /// `git rev-parse HEAD` in the project's directory, when it is a repository with a commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_head: Option<String>,
    /// Tool name (`rustc`, `node`, `python3`) to the first line of its `--version`; tools
    /// that are missing or too slow to answer are left out.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub toolchains: std::collections::BTreeMap<String, String>,
    /// Root lockfile name (`Cargo.lock`, `package-lock.json`...) to `sha256:HEX` of its bytes.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub lockfiles: std::collections::BTreeMap<String, String>,
    /// `OS ARCH`, e.g. `linux x86_64`.
    pub os: String,
    /// `PRETTY_NAME` of `/etc/os-release`, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_name: Option<String>,
}

/// One step (one tool call of a chat's turn) touching a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileStep {
    pub session_id: String,
    pub job_id: String,
    pub step_id: String,
    /// The chat's title, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool, e.g. `Edit`, `Bash`.
    pub tool: String,
    /// When the tool call ended (RFC 3339).
    pub at: String,
    pub edge: FileEdge,
    /// `created`, `modified` or `deleted` (scan-inferred writes), `wrote` or `read`.
    pub change: String,
    /// `sha256:HEX` recorded right after the write (or at read time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// The hash of the environment the step started in (one of the reply's `environments`);
    /// absent for steps recorded before environments were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// The chat's model, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The step is a subagent's tool call (the Agent tool), harvested from its transcript when
    /// it finished: who it was. Its hashes were taken at harvest, not at the write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specialist: Option<Specialist>,
}

/// A subagent (Claude Code's Agent tool) whose tool calls were harvested into its chat's steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Specialist {
    /// The CLI's agent id (`agent-<id>.jsonl` in the session's `subagents/` folder).
    pub agent_id: String,
    /// Its agent type, e.g. `general-purpose`.
    pub name: String,
    /// What the lead asked of it (the Agent call's `description`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// `provenance:touched`: a chat's files, or one turn's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProvenanceTouched {
    pub project_slug: String,
    pub session_id: String,
    /// Only this turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
}

/// Whether a step read or wrote a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileRole {
    Read,
    Write,
}

/// A chat's files, turn by turn (oldest turn first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Touched {
    pub project_slug: String,
    pub session_id: String,
    pub turns: Vec<TouchedTurn>,
    /// What the records may be missing (dropped events, scans that failed), for a person.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The files one turn touched: each path once per role, the last step's edge and change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TouchedTurn {
    pub job_id: String,
    /// When its first recorded step started (RFC 3339).
    pub started_at: String,
    pub files: Vec<TouchedFile>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TouchedFile {
    /// Relative to the project's directory (absolute when outside it).
    pub path: String,
    pub role: FileRole,
    pub edge: FileEdge,
    /// `wrote`, `read`, or a scan's `created` / `modified` / `deleted`.
    pub change: String,
    /// The tool of the turn's last step on this file.
    pub tool: String,
    /// For writes: whether the file still is what this turn left (`current`), has changed
    /// since (`stale`), or cannot be checked (`unverified`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<FileStatus>,
    /// The write was a subagent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specialist: Option<Specialist>,
}

/// `provenance:blame`: a file's lines, and for each region who last wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Blame {
    pub project_slug: String,
    /// Relative to the project's directory.
    pub path: String,
    /// The file's lines now, without their line ends.
    pub lines: Vec<String>,
    /// Consecutive, covering every line once, in order.
    pub regions: Vec<BlameRegion>,
    /// What the answer may be missing (versions not kept, dropped events), for a person.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Lines `start..=end` (1-based) and who last wrote them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlameRegion {
    pub start: u32,
    pub end: u32,
    pub by: BlameSource,
}

/// Who last wrote a region of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BlameSource {
    /// A step of a chat's turn.
    Step(Box<FileStep>),
    /// A commit, for lines no recorded step changed since.
    Commit(BlameCommit),
    /// Changed by nothing the daemon recorded: the user's own edits, or a write it did not see.
    Unknown,
}

/// A commit, as `provenance:blame` names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlameCommit {
    /// The full hash.
    pub sha: String,
    pub summary: String,
    pub author: String,
    /// RFC 3339.
    pub at: String,
}

/// The walk from a file to the steps and inputs that produced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lineage {
    /// The file first, then what it came from, breadth first; one version per path.
    pub nodes: Vec<LineageNode>,
    /// The walk stopped at its bounds (60 nodes, 12 hops): more inputs exist.
    pub truncated: bool,
}

/// One file version in a lineage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineageNode {
    pub path: String,
    /// Hops from the file asked about.
    pub hops: u32,
    /// The step that produced this version (at or before the step that used it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producer: Option<FileStep>,
    /// The paths this version came from (each is a node of its own, unless the walk stopped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    /// No recorded step produced it: a file the user made, or one that was there before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missing_origin: bool,
    /// Changed since use: the file's bytes now differ from this version (the one the lineage
    /// used), so the files made from it were made from something that is no longer there.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub changed_since_use: bool,
}

// ---------------------------------------------------------------------------------------------
// Project files
// ---------------------------------------------------------------------------------------------

/// `files:list`: one directory of a project's directory. Paths are relative to the project's
/// directory; `..`, absolute paths and symlinks leading out of it are refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilesList {
    pub project_slug: String,
    /// The directory, relative to the project's directory; `""` is the project's directory.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// Also list entries whose names start with a dot (`.git` among them).
    #[serde(default, skip_serializing_if = "is_false")]
    pub hidden: bool,
    /// At most this many entries (the daemon's default and cap: [`FILES_LIST_MAX`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// The most entries `files:list` answers with.
pub const FILES_LIST_MAX: u32 = 2000;

/// One directory's entries: directories first, then files, each by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileListing {
    pub project_slug: String,
    /// The directory listed, relative to the project's directory (`""` for its top).
    pub path: String,
    pub entries: Vec<FileEntry>,
    /// More entries than the limit: the rest were left out.
    #[serde(default, skip_serializing_if = "is_false")]
    pub truncated: bool,
}

/// One entry of a directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    pub name: String,
    /// A directory (to list), or else a file (to read).
    #[serde(default, skip_serializing_if = "is_false")]
    pub dir: bool,
    /// A symbolic link (described by what it points at when that is inside the project).
    #[serde(default, skip_serializing_if = "is_false")]
    pub symlink: bool,
    /// A symlink leading out of the project's directory, or to nothing: neither listed nor read.
    #[serde(default, skip_serializing_if = "is_false")]
    pub outside: bool,
    /// Bytes (0 for a directory).
    pub size: u64,
    /// Last modified (RFC 3339), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime: Option<String>,
}

/// `files:read`: a file of a project's directory, confined as `files:list` is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilesRead {
    pub project_slug: String,
    /// Relative to the project's directory.
    pub path: String,
    /// At most this many bytes of text (the daemon's default and cap: [`FILES_READ_MAX`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
}

/// The most bytes of text `files:read` answers with (1 MiB).
pub const FILES_READ_MAX: u64 = 1024 * 1024;

/// A file's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileText {
    pub project_slug: String,
    /// Relative to the project's directory.
    pub path: String,
    /// The whole file's size in bytes.
    pub size: u64,
    /// Last modified (RFC 3339), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime: Option<String>,
    /// The text (UTF-8), cut at the cap; empty when `binary`.
    pub text: String,
    /// Not text (a NUL byte, or not UTF-8): `text` is empty.
    #[serde(default, skip_serializing_if = "is_false")]
    pub binary: bool,
    /// The file is longer than the cap: `text` is its beginning (cut at a character boundary).
    #[serde(default, skip_serializing_if = "is_false")]
    pub truncated: bool,
}

// ---------------------------------------------------------------------------------------------
// Git
// ---------------------------------------------------------------------------------------------

/// Which changes of a project a git request is about: all of them, or only the files that the
/// steps of a turn, a chat, or a chat and its descendants wrote (from file provenance).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GitScope {
    /// Every change in the project's directory.
    #[default]
    Project,
    /// The files one chat's turns wrote.
    #[serde(rename_all = "camelCase")]
    Chat { session_id: String },
    /// The files a chat and every chat under it in the tree wrote.
    #[serde(rename_all = "camelCase")]
    Subtree { session_id: String },
    /// The files one turn of a chat wrote.
    #[serde(rename_all = "camelCase")]
    Turn { session_id: String, job_id: String },
}

impl GitScope {
    pub fn is_project(&self) -> bool {
        matches!(self, GitScope::Project)
    }
}

/// `git:status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitStatusRequest {
    pub project_slug: String,
    #[serde(default, skip_serializing_if = "GitScope::is_project")]
    pub scope: GitScope,
}

/// `git:diff`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitDiffRequest {
    pub project_slug: String,
    #[serde(default, skip_serializing_if = "GitScope::is_project")]
    pub scope: GitScope,
    /// One file (relative to the project's directory) instead of all of the scope's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// `git:commit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitCommitRequest {
    pub project_slug: String,
    #[serde(default, skip_serializing_if = "GitScope::is_project")]
    pub scope: GitScope,
    pub message: String,
    /// Commit only these of the scope's changed files (relative to the project's directory).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
}

/// A project's git status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitStatus {
    pub project_slug: String,
    /// False: the project's directory is not in a git repository (and the rest is empty).
    pub is_repo: bool,
    /// The checked-out branch; absent when HEAD is detached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The abbreviated commit HEAD points at; absent before the first commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The branch's upstream, e.g. `origin/main`, and how far apart they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ahead: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind: Option<u32>,
    /// The changed files (of the scope), sorted by path.
    pub files: Vec<GitFile>,
    /// Changed files left out because the scope's steps did not write them.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub hidden: u32,
    /// What the scope may be missing (incomplete steps), for a person.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

/// One changed file, as `git status` sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitFile {
    /// Relative to the project's directory.
    pub path: String,
    /// The path it was renamed or copied from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orig_path: Option<String>,
    /// Git's status letter in the index (`M`, `A`, `D`, `R`, `C`, `U`, `?`), `.` when unchanged.
    pub index: String,
    /// The same in the working tree.
    pub worktree: String,
}

/// A diff against HEAD.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitDiff {
    pub project_slug: String,
    pub is_repo: bool,
    /// Unified diff text, untracked files shown as added.
    pub diff: String,
    /// The files the diff covers.
    pub files: Vec<String>,
    /// The diff was cut at its bound (2 MB).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Changed files left out because the scope's steps did not write them.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub hidden: u32,
}

/// A commit made by `git:commit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitCommitted {
    pub project_slug: String,
    /// The new commit's full id.
    pub commit: String,
    pub branch: String,
    /// The files it committed, relative to the project's directory.
    pub files: Vec<String>,
}

/// `git:push`: the current branch to its upstream, or, without one, to `origin` (which then
/// becomes its upstream).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitPushRequest {
    /// The project whose directory's repository to push; `""` with `dataRoot`.
    pub project_slug: String,
    /// Push the data directory's own repository (where the sweeper commits) instead.
    #[serde(default, skip_serializing_if = "is_false")]
    pub data_root: bool,
}

/// What `git:push` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitPushed {
    pub project_slug: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub data_root: bool,
    /// The local branch pushed.
    pub branch: String,
    /// The remote's name, e.g. `origin`.
    pub remote: String,
    /// The branch on the remote, e.g. `main`.
    pub remote_branch: String,
    /// The remote branch's commit before the push (full id); absent when the push created it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The commit the remote branch is at now (full id).
    pub to: String,
    /// Nothing to push: the remote branch was already at `to`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub up_to_date: bool,
    /// The branch had no upstream; this push made the remote branch its upstream.
    #[serde(default, skip_serializing_if = "is_false")]
    pub set_upstream: bool,
}
