//! Full-text search across every chat.

use serde::{Deserialize, Serialize};

use super::*;

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
    /// As the chat list shows it: cut to [`crate::TITLE_CHARS`] characters (and `…`).
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
