//! The MCP server itself: one JSON-RPC line in, at most one line out. Lifecycle methods are
//! answered here; `tools/list` and `tools/call` become `agent:tools` and `agent:call` on the
//! daemon, always with this chat's token.

use serde::Serialize;
use serde_json::{Map, Value};

use paddock_proto::{AgentAuth, AgentCall, AgentTool, ErrorCode};

use super::Options;
use super::daemon::{DaemonClient, DaemonError, Timeouts};
use super::jsonrpc::{self, Id, Incoming};

/// The MCP protocol versions this server speaks, newest first. An `initialize` asking for one
/// of them gets it; anything else gets the newest.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] =
    &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// What the model reads when the daemon refuses the chat's token.
pub const TOKEN_REFUSED: &str = "this chat's paddock token was refused";

/// One MCP server (`paddock_manage` or `paddock`) speaking for one chat.
#[derive(Debug)]
pub struct Bridge {
    server: String,
    token: String,
    daemon: DaemonClient,
}

impl Bridge {
    pub fn new(options: Options) -> Self {
        Self::with_timeouts(options, Timeouts::default())
    }

    pub fn with_timeouts(options: Options, timeouts: Timeouts) -> Self {
        Self {
            daemon: DaemonClient::new(options.socket, timeouts),
            server: options.server,
            token: options.token,
        }
    }

    /// Handles one input line (without its newline) and returns the answer line (without its
    /// newline), or `None` when the line gets no answer (a notification, a blank line).
    pub fn handle_line(&mut self, line: &[u8]) -> Option<String> {
        match jsonrpc::parse(line) {
            Incoming::Request { id, method, params } => Some(self.request(&id, &method, &params)),
            // `notifications/initialized`, `notifications/cancelled` (a call cannot be taken
            // back from the daemon once sent) and anything else: nothing to answer.
            Incoming::Notification { .. } | Incoming::Blank => None,
            Incoming::Invalid { id, code, message } => {
                Some(jsonrpc::error_line(&id, code, &message))
            }
        }
    }

    fn request(&mut self, id: &Id, method: &str, params: &Value) -> String {
        match method {
            "initialize" => jsonrpc::result_line(id, &self.initialize(params)),
            "ping" => jsonrpc::result_line(id, &Map::new()),
            "tools/list" => jsonrpc::result_line(
                id,
                &ToolsList {
                    tools: self.tools(),
                },
            ),
            "tools/call" => match CallParams::read(params) {
                Ok(call) => jsonrpc::result_line(id, &self.call(call)),
                Err(message) => jsonrpc::error_line(id, jsonrpc::INVALID_PARAMS, &message),
            },
            // `server/discover` included: the CLI then falls back to `initialize`.
            _ => jsonrpc::error_line(
                id,
                jsonrpc::METHOD_NOT_FOUND,
                &format!("Method not found: {method}"),
            ),
        }
    }

    fn initialize(&self, params: &Value) -> InitializeResult<'_> {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        let protocol_version = asked
            .and_then(|v| SUPPORTED_PROTOCOL_VERSIONS.iter().find(|s| **s == v))
            .copied()
            .unwrap_or(SUPPORTED_PROTOCOL_VERSIONS[0]);
        InitializeResult {
            protocol_version,
            capabilities: Capabilities {
                tools: ToolsCapability {
                    list_changed: false,
                },
            },
            server_info: ServerInfo {
                name: &self.server,
                version: env!("CARGO_PKG_VERSION"),
            },
        }
    }

    /// The chat's tools; none (and a line on stderr) when the daemon cannot say.
    fn tools(&mut self) -> Vec<AgentTool> {
        let auth = AgentAuth {
            token: self.token.clone(),
            server: self.server.clone(),
        };
        match self.daemon.tools(&auth) {
            Ok(tools) => tools,
            Err(e) => {
                let why = match e.code() {
                    Some(ErrorCode::PermissionDenied) => TOKEN_REFUSED.to_owned(),
                    _ => e.to_string(),
                };
                eprintln!("paddockd mcp: no tools for `{}`: {why}", self.server);
                Vec::new()
            }
        }
    }

    fn call(&mut self, params: CallParams) -> CallToolResult {
        let call = AgentCall {
            token: self.token.clone(),
            server: self.server.clone(),
            tool: params.name,
            arguments: params.arguments,
            tool_use_id: params.tool_use_id,
        };
        let tool = call.tool.clone();
        match self.daemon.call(call) {
            Ok(result) => CallToolResult::text(result.text, result.is_error),
            Err(e) => CallToolResult::text(failure_text(&tool, &e), true),
        }
    }
}

/// One line the model can read about a call that did not reach its tool.
fn failure_text(tool: &str, e: &DaemonError) -> String {
    match e {
        DaemonError::Refused(body) if body.code == ErrorCode::PermissionDenied => {
            TOKEN_REFUSED.to_owned()
        }
        DaemonError::Refused(body) => format!("paddockd refused `{tool}`: {}", body.message),
        DaemonError::Unreachable { source, .. } => {
            format!("paddockd is not reachable: {source}")
        }
        other => other.to_string(),
    }
}

/// `tools/call`'s params, as far as the bridge reads them.
#[derive(Debug)]
struct CallParams {
    name: String,
    arguments: Value,
    tool_use_id: Option<String>,
}

impl CallParams {
    fn read(params: &Value) -> Result<Self, String> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| {
                "Invalid params: tools/call needs `name`, the tool to call".to_owned()
            })?;
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(a) => a.clone(),
        };
        let tool_use_id = params
            .get("_meta")
            .and_then(|m| m.get("claudecode/toolUseId"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok(Self {
            name: name.to_owned(),
            arguments,
            tool_use_id,
        })
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult<'a> {
    protocol_version: &'static str,
    capabilities: Capabilities,
    server_info: ServerInfo<'a>,
}

#[derive(Serialize)]
struct Capabilities {
    tools: ToolsCapability,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolsCapability {
    list_changed: bool,
}

#[derive(Serialize)]
struct ServerInfo<'a> {
    name: &'a str,
    version: &'static str,
}

/// `AgentTool` already has the MCP shape: `name`, `description`, `inputSchema`.
#[derive(Serialize)]
struct ToolsList {
    tools: Vec<AgentTool>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallToolResult {
    content: Vec<TextContent>,
    is_error: bool,
}

impl CallToolResult {
    fn text(text: String, is_error: bool) -> Self {
        Self {
            content: vec![TextContent { kind: "text", text }],
            is_error,
        }
    }
}

#[derive(Serialize)]
struct TextContent {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}
