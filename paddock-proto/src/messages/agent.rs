//! The MCP bridge of an agent: the tools its chat may use, and calling them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
