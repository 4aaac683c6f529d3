//! A minimal MCP server over stdio for tests: the user's own server in the conformance tests.
//! It answers `initialize`, `tools/list` (one tool, `ping`) and `tools/call` (`pong: <text>`),
//! and nothing else; it ends at EOF.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        // Notifications (no id) need no answer.
        let Some(id) = msg.get("id").cloned() else {
            continue;
        };
        let result = match msg.get("method").and_then(Value::as_str) {
            Some("initialize") => json!({
                "protocolVersion": msg["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake-mcp", "version": "0.1.0"},
            }),
            Some("tools/list") => json!({"tools": [{
                "name": "ping",
                "description": "Answers pong, with the text it was given.",
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
            }]}),
            Some("tools/call") => {
                let text = msg["params"]["arguments"]["text"].as_str().unwrap_or("");
                json!({"content": [{"type": "text", "text": format!("pong: {text}")}]})
            }
            _ => {
                let reply = json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": "method not found"}});
                if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
                    break;
                }
                continue;
            }
        };
        let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}
