//! The JSON-RPC logic of the test MCP server, shared by the stdio server (`fake-mcp`) and the
//! HTTP endpoint of the Messages API stand-in (`POST /mcp`).
//!
//! Tools: `ping` (`pong: <text>`), `echo` (`ECHO: <text>`), `add` (`a + b`) and `slow`
//! (answers `slept <seconds>` after that many seconds, at most [`MAX_SLOW_SECONDS`]).
//! Any other method, `server/discover` included, gets a -32601 error, so the CLI falls back to
//! a plain `initialize` (docs/claude-cli.md §7).

use std::time::Duration;

use serde_json::{Value, json};

/// Upper bound of the `slow` tool's sleep.
pub const MAX_SLOW_SECONDS: u64 = 30;

/// What to send back for one JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub struct McpReply {
    /// How long to wait before sending it (the `slow` tool).
    pub delay: Duration,
    pub message: Value,
}

/// The tool list of `tools/list`.
pub fn tools() -> Value {
    let text_schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    json!([
        {"name": "ping", "description": "Answers pong, with the text it was given.", "inputSchema": text_schema},
        {"name": "echo", "description": "Echo the given text back.", "inputSchema": text_schema},
        {"name": "add", "description": "Add two numbers.", "inputSchema": {"type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
        {"name": "slow", "description": "Sleep for some seconds, then answer.", "inputSchema": {"type": "object",
            "properties": {"seconds": {"type": "number"}}}},
    ])
}

/// The answer to one incoming message; `None` for notifications (no `id`).
pub fn handle(msg: &Value, server_name: &str) -> Option<McpReply> {
    let id = msg.get("id").cloned()?;
    let mut delay = Duration::ZERO;
    let result = match msg.get("method").and_then(Value::as_str) {
        Some("initialize") => json!({
            "protocolVersion": msg["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18"),
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": server_name, "version": "0.1.0"},
        }),
        Some("tools/list") => json!({"tools": tools()}),
        Some("tools/call") => {
            let args = &msg["params"]["arguments"];
            let text = args["text"].as_str().unwrap_or("");
            let answer = match msg["params"]["name"].as_str().unwrap_or("") {
                "ping" => format!("pong: {text}"),
                "echo" => format!("ECHO: {text}"),
                "add" => {
                    let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
                    format!("{sum}")
                }
                "slow" => {
                    let secs = args["seconds"].as_u64().unwrap_or(1).min(MAX_SLOW_SECONDS);
                    delay = Duration::from_secs(secs);
                    format!("slept {secs}")
                }
                other => {
                    return Some(McpReply {
                        delay,
                        message: error(id, -32602, &format!("unknown tool {other}")),
                    });
                }
            };
            json!({"content": [{"type": "text", "text": answer}], "isError": false})
        }
        Some(method) => {
            return Some(McpReply {
                delay,
                message: error(id, -32601, &format!("Method not found: {method}")),
            });
        }
        None => {
            return Some(McpReply {
                delay,
                message: error(id, -32600, "Invalid request"),
            });
        }
    };
    Some(McpReply {
        delay,
        message: json!({"jsonrpc": "2.0", "id": id, "result": result}),
    })
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_the_handshake_and_the_tools() {
        let init = handle(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25"}}),
            "mcp-echo",
        );
        let init = init.map(|r| r.message).unwrap_or_default();
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(init["result"]["serverInfo"]["name"], "mcp-echo");

        let probe = handle(
            &json!({"jsonrpc": "2.0", "id": "p", "method": "server/discover"}),
            "x",
        );
        assert_eq!(
            probe.map(|r| r.message["error"]["code"].clone()),
            Some(json!(-32601))
        );
        assert_eq!(
            handle(
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                "x"
            ),
            None
        );
        let call = |name: &str, args: Value| {
            handle(
                &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": name, "arguments": args}}),
                "x",
            )
            .map(|r| (r.delay, r.message["result"]["content"][0]["text"].clone()))
        };
        assert_eq!(
            call("echo", json!({"text": "ping"})),
            Some((Duration::ZERO, json!("ECHO: ping")))
        );
        assert_eq!(
            call("ping", json!({"text": "hi"})),
            Some((Duration::ZERO, json!("pong: hi")))
        );
        assert_eq!(
            call("slow", json!({"seconds": 2})),
            Some((Duration::from_secs(2), json!("slept 2")))
        );
    }
}
