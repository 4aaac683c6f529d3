//! Hub frames: one frame of a chat's live stream, with its routing and the chat event it
//! carries.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// A call that waited in the approvals inbox was answered: its waiting notice (`asked`)
    /// now says the answer (`message`).
    #[serde(rename = "chat:answered")]
    Answered(Answered),
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
            ChatEvent::Answered(_) => "chat:answered",
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

/// How a turn ended, the one way every client says it: `send`'s exit status, the TUI's line,
/// a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// It finished.
    Done,
    /// It failed: `error` says why, in words (never the CLI's internals).
    Failed,
    /// A person (or a client) cancelled it; the chat stays resumable.
    Cancelled,
    /// It was cut short: paddockd stopped, or its `claude` died or hung; `paddock continue`
    /// goes on with it.
    Cut,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Complete {
    pub success: bool,
    /// How the turn ended (absent from a daemon older than protocol 3's `ended`: then
    /// `success` and `error` are all there is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<Ended>,
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
#[serde(rename_all = "camelCase")]
pub struct Answered {
    pub tool: String,
    pub decision: crate::ApprovalDecision,
    /// The `chat:notice` that said the call waits, word for word: a client showing it shows
    /// `message` in its place.
    pub asked: String,
    /// The answer in words: `Bash: allowed by you`, `Bash: denied by you: not now`.
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
    /// ⚠ continued after its last turn was cut short
    Recovery,
}
