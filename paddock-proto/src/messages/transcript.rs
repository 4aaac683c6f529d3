//! A chat's transcript, rendered element by element.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::*;

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
