//! The chat pane's items: what one element of the chat is (a user turn, assistant text,
//! thinking, a tool call, a marker).

use paddock_proto::{Attribution, NoticeKind};
use serde_json::Value;

use crate::attachments::{self, Listed};

/// Lines of a tool's output the pane shows when the call is expanded; the rest is counted,
/// until it is expanded again ([`ToolItem::full`]).
pub const OUTPUT_CAP: usize = 40;
/// A message longer than this many rows is folded to its first [`MESSAGE_HEAD`] rows.
pub const MESSAGE_FOLD: usize = 12;
/// The rows of a folded message shown.
pub const MESSAGE_HEAD: usize = 8;

/// One element of the chat, as the pane shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    User(UserItem),
    /// Assistant text; streamed deltas are appended until the message ends.
    Assistant {
        text: String,
    },
    /// Thinking, collapsed to one line unless expanded.
    Thinking {
        text: String,
        expanded: bool,
    },
    Tool(ToolItem),
    Compaction {
        pre_tokens: Option<u64>,
        post_tokens: Option<u64>,
    },
    Interrupted {
        text: String,
    },
    /// An API failure recorded in the transcript.
    ApiError {
        status: Option<u16>,
        text: String,
    },
    /// `chat:error`, or a failed `chat:complete` that came without one.
    Error {
        message: String,
    },
    Notice {
        kind: NoticeKind,
        message: String,
    },
    QueuedFlushed {
        message: String,
    },
    KilledTask {
        message: String,
    },
}

impl Item {
    /// Whether [`ChatView::toggle_expand`] does anything on this item.
    pub fn expandable(&self) -> bool {
        matches!(self, Item::Thinking { .. } | Item::Tool(_) | Item::User(_))
    }

    /// The kept files this item names: a message's attachments (its `<paddock-attachments>`
    /// block), or the snapshot a `send_file` notice or tool result names.
    pub fn attachments(&self) -> Vec<Listed> {
        match self {
            Item::User(user) => attachments::parse_block(&user.text),
            Item::Notice { message, .. } => attachments::snapshot_in_notice(message)
                .into_iter()
                .collect(),
            Item::Tool(tool) => tool
                .result
                .as_ref()
                .filter(|r| !r.is_error)
                .and_then(|r| attachments::snapshot_in_result(&tool.name, &r.output))
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl UserItem {
    /// What the person wrote: the text without the preloaded context and the attachments
    /// block in front of it (the whole text stays in [`UserItem::text`]).
    pub fn request(&self) -> &str {
        crate::message::request(&self.text)
    }

    /// The project context preloaded in front of the message, if any.
    pub fn context(&self) -> Option<&str> {
        crate::message::split_context(&self.text).0
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct UserItem {
    /// The transcript uuid (the daemon's message id for turns it sent).
    pub uuid: Option<String>,
    pub text: String,
    /// Who injected it; `None` for a turn a person typed.
    pub attribution: Option<Attribution>,
    /// Came from the transcript rather than a live frame.
    pub hydrated: bool,
    /// When it was sent (RFC 3339), as the transcript says; `None` for a live frame.
    pub timestamp: Option<String>,
    /// The daemon's job that ran it, for a live frame; `None` when hydrated.
    pub job_id: Option<String>,
    /// A long message is drawn whole, not folded to its first lines.
    pub expanded: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolItem {
    pub tool_use_id: String,
    pub name: String,
    pub input: Value,
    /// `None` while the tool runs.
    pub result: Option<ToolResult>,
    pub expanded: bool,
    /// Expanded with all of its output, not its first and last [`OUTPUT_CAP`] lines.
    pub full: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub output: String,
    pub is_error: bool,
    /// The CLI's structured result, when the live frame carried it.
    pub detail: Option<Value>,
}
