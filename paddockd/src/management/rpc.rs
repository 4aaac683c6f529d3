//! The MCP side of the endpoint: one HTTP body (a JSON-RPC message, or a batch of them) in,
//! what to answer out. Lifecycle methods are answered here; `tools/list` and `tools/call` go to
//! a [`Tools`] (the daemon's, in `tools.rs`; a stub in the tests).
//!
//! Errors the model should read (a chat that does not exist, a busy chat's full queue) are
//! tool results with `isError: true`; protocol errors (no such method or tool, unusable params,
//! a body that is not JSON-RPC) are JSON-RPC errors.

use serde_json::{Map, Value, json};

use paddock_proto::AgentTool;

use crate::mcp::SUPPORTED_PROTOCOL_VERSIONS;
use crate::mcp::jsonrpc::{self, Id, Incoming};

/// The most messages one batch may hold; a longer batch is refused whole (400).
pub const MAX_BATCH: usize = 32;

/// What a tool call came to: text for the model, and whether it is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub text: String,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn ok(text: String) -> Self {
        Self {
            text,
            is_error: false,
        }
    }

    pub fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: true,
        }
    }
}

/// The tools behind the endpoint.
pub trait Tools {
    fn list(&self) -> Vec<AgentTool>;
    /// This daemon's instance id, reported in `initialize`'s `serverInfo`.
    fn instance_id(&self) -> Option<&str> {
        None
    }
    /// Runs `name`; `None` when there is no such tool.
    fn call(
        &self,
        name: &str,
        arguments: &Value,
    ) -> impl std::future::Future<Output = Option<ToolOutput>> + Send;
}

/// What to answer a POST with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Only notifications or responses came: 202, no body.
    Accepted,
    /// A JSON body: the response (or the array of them), or an error with no id.
    Json { bad_request: bool, body: String },
}

/// Answers one POST body.
pub async fn answer(body: &[u8], tools: &impl Tools) -> Answer {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return refused(
                jsonrpc::PARSE_ERROR,
                &format!("Parse error: the body is not JSON: {e}"),
            );
        }
    };
    match value {
        Value::Array(items) => {
            if items.is_empty() {
                return refused(jsonrpc::INVALID_REQUEST, "Invalid Request: an empty batch");
            }
            if items.len() > MAX_BATCH {
                return refused(
                    jsonrpc::INVALID_REQUEST,
                    &format!(
                        "Invalid Request: a batch of {} messages; send at most {MAX_BATCH} at once",
                        items.len()
                    ),
                );
            }
            let mut answers = Vec::new();
            for item in items {
                if let Some((line, _)) = one(item, tools).await {
                    answers.push(line);
                }
            }
            if answers.is_empty() {
                Answer::Accepted
            } else {
                Answer::Json {
                    bad_request: false,
                    body: format!("[{}]", answers.join(",")),
                }
            }
        }
        single => match one(single, tools).await {
            None => Answer::Accepted,
            Some((body, invalid)) => Answer::Json {
                bad_request: invalid,
                body,
            },
        },
    }
}

fn refused(code: i64, message: &str) -> Answer {
    Answer::Json {
        bad_request: true,
        body: jsonrpc::error_line(&Id::null(), code, message),
    }
}

/// A JSON-RPC response from the client (it answers nothing this server asked, so it is taken
/// and dropped).
fn is_response(v: &Value) -> bool {
    v.get("method").is_none() && (v.get("result").is_some() || v.get("error").is_some())
}

/// One message's answer, and whether the message was not JSON-RPC at all; `None` for a
/// notification or a response.
async fn one(message: Value, tools: &impl Tools) -> Option<(String, bool)> {
    if is_response(&message) {
        return None;
    }
    match jsonrpc::from_value(message) {
        Incoming::Request { id, method, params } => {
            Some((request(&id, &method, &params, tools).await, false))
        }
        // `notifications/initialized`, `notifications/cancelled` (a call that started a turn
        // cannot be taken back) and anything else: nothing to answer.
        Incoming::Notification { .. } | Incoming::Blank => None,
        Incoming::Invalid { id, code, message } => {
            Some((jsonrpc::error_line(&id, code, &message), true))
        }
    }
}

async fn request(id: &Id, method: &str, params: &Value, tools: &impl Tools) -> String {
    match method {
        "initialize" => jsonrpc::result_line(id, &initialize(params, tools.instance_id())),
        "ping" => jsonrpc::result_line(id, &Map::new()),
        "tools/list" => jsonrpc::result_line(id, &json!({ "tools": tools.list() })),
        "tools/call" => {
            let Some(name) = params
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
            else {
                return jsonrpc::error_line(
                    id,
                    jsonrpc::INVALID_PARAMS,
                    "Invalid params: tools/call needs `name`, the tool to call",
                );
            };
            let arguments = match params.get("arguments") {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(a @ Value::Object(_)) => a.clone(),
                Some(_) => {
                    return jsonrpc::error_line(
                        id,
                        jsonrpc::INVALID_PARAMS,
                        "Invalid params: `arguments` must be an object",
                    );
                }
            };
            match tools.call(name, &arguments).await {
                Some(out) => jsonrpc::result_line(
                    id,
                    &json!({
                        "content": [{"type": "text", "text": out.text}],
                        "isError": out.is_error,
                    }),
                ),
                None => jsonrpc::error_line(
                    id,
                    jsonrpc::INVALID_PARAMS,
                    &format!("Unknown tool: {name} (tools/list lists them)"),
                ),
            }
        }
        _ => jsonrpc::error_line(
            id,
            jsonrpc::METHOD_NOT_FOUND,
            &format!("Method not found: {method}"),
        ),
    }
}

/// What the model is told about the server at `initialize`.
const INSTRUCTIONS: &str = "Paddock's management endpoint: list the projects and their chats, \
start a chat in a project (a root chat, run by the daemon's own Claude Code), send a message into \
a chat (queued if it is busy), read a chat's latest messages, and, where this client is allowed, \
fork and archive chats, create projects and manage their triggers (tools/list shows what this \
client may call). Chats run on their own; read_chat shows how far one got.";

fn initialize(params: &Value, instance_id: Option<&str>) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = asked
        .and_then(|v| SUPPORTED_PROTOCOL_VERSIONS.iter().find(|s| **s == v))
        .copied()
        .unwrap_or(SUPPORTED_PROTOCOL_VERSIONS[0]);
    let mut server = json!({"name": "paddockd", "version": env!("CARGO_PKG_VERSION")});
    if let Some(id) = instance_id {
        server["instanceId"] = json!(id);
    }
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": server,
        "instructions": INSTRUCTIONS,
    })
}

/// Whether an `MCP-Protocol-Version` header names a version this server speaks.
pub fn supported_version(v: &str) -> bool {
    SUPPORTED_PROTOCOL_VERSIONS.contains(&v.trim())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    struct Stub;

    impl Tools for Stub {
        fn list(&self) -> Vec<AgentTool> {
            vec![AgentTool {
                name: "echo".into(),
                description: "says it back".into(),
                input_schema: json!({"type": "object"}),
            }]
        }

        async fn call(&self, name: &str, arguments: &Value) -> Option<ToolOutput> {
            (name == "echo").then(|| match arguments.get("text").and_then(Value::as_str) {
                Some(t) => ToolOutput::ok(t.to_owned()),
                None => ToolOutput::error("no text"),
            })
        }
    }

    async fn json_of(body: &str) -> (bool, Value) {
        match answer(body.as_bytes(), &Stub).await {
            Answer::Json { bad_request, body } => {
                (bad_request, serde_json::from_str(&body).unwrap())
            }
            Answer::Accepted => panic!("accepted: {body}"),
        }
    }

    #[tokio::test]
    async fn management_rpc_lifecycle_and_tools() {
        let (bad, v) = json_of(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        )
        .await;
        assert!(!bad);
        assert_eq!(v["id"], 1);
        assert_eq!(v["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(v["result"]["capabilities"]["tools"]["listChanged"], false);
        assert_eq!(v["result"]["serverInfo"]["name"], "paddockd");
        let (_, v) = json_of(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#).await;
        assert_eq!(
            v["result"]["protocolVersion"],
            SUPPORTED_PROTOCOL_VERSIONS[0]
        );
        assert_eq!(
            answer(
                br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                &Stub
            )
            .await,
            Answer::Accepted
        );
        let (_, v) = json_of(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#).await;
        assert_eq!(v, json!({"jsonrpc":"2.0","id":"p","result":{}}));
        let (_, v) = json_of(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#).await;
        assert_eq!(v["result"]["tools"][0]["name"], "echo");
        assert_eq!(v["result"]["tools"][0]["inputSchema"]["type"], "object");
        let (_, v) = json_of(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
        )
        .await;
        assert_eq!(
            v["result"],
            json!({"content":[{"type":"text","text":"hi"}],"isError":false})
        );
        let (_, v) =
            json_of(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo"}}"#)
                .await;
        assert_eq!(v["result"]["isError"], true);
        let (_, v) =
            json_of(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}"#)
                .await;
        assert_eq!(v["error"]["code"], jsonrpc::INVALID_PARAMS);
        let (_, v) = json_of(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":[1]}}"#).await;
        assert_eq!(v["error"]["code"], jsonrpc::INVALID_PARAMS);
        let (_, v) = json_of(r#"{"jsonrpc":"2.0","id":7,"method":"resources/list"}"#).await;
        assert_eq!(v["error"]["code"], jsonrpc::METHOD_NOT_FOUND);
    }

    #[tokio::test]
    async fn management_rpc_batches_and_bad_bodies() {
        let (bad, v) = json_of(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]"#,
        )
        .await;
        assert!(!bad);
        let ids: Vec<&Value> = v.as_array().unwrap().iter().map(|a| &a["id"]).collect();
        assert_eq!(ids, [&json!(1), &json!(2)]);
        assert_eq!(
            answer(
                br#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
                &Stub
            )
            .await,
            Answer::Accepted
        );
        // A response from the client is taken and dropped.
        assert_eq!(
            answer(br#"{"jsonrpc":"2.0","id":9,"result":{}}"#, &Stub).await,
            Answer::Accepted
        );
        let (bad, v) = json_of("[]").await;
        assert!(bad);
        assert_eq!(v["error"]["code"], jsonrpc::INVALID_REQUEST);
        let big = format!(
            "[{}]",
            vec![r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#; MAX_BATCH + 1].join(",")
        );
        let (bad, v) = json_of(&big).await;
        assert!(bad);
        assert!(v["error"]["message"].as_str().unwrap().contains("at most"));
        let (bad, v) = json_of("{not json").await;
        assert!(bad);
        assert_eq!(v["error"]["code"], jsonrpc::PARSE_ERROR);
        assert_eq!(v["id"], Value::Null);
        let (bad, v) = json_of(r#"{"jsonrpc":"2.0","id":1}"#).await;
        assert!(bad);
        assert_eq!(v["error"]["code"], jsonrpc::INVALID_REQUEST);
        let (bad, _) = json_of("7").await;
        assert!(bad);
        assert!(supported_version("2025-06-18"));
        assert!(!supported_version("2030-01-01"));
    }
}
