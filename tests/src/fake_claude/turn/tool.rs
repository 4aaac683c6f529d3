//! Scripted tool calls: the `tool_use` block, the optional `can_use_tool` round trip, the
//! tool result, and what an interrupt during a tool prints.

use std::time::Duration;

use serde_json::{Value, json};

use super::{BlockKind, End, Flow, Turn};
use crate::fake_claude::emit::{emit, new_uuid, now_timestamp};
use crate::fake_claude::script::ToolStep;
use crate::text::{short_id, split_chunks};

/// The text the real CLI puts in a tool result when an interrupt stops the tool.
const INTERRUPTED_TOOL_TEXT: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

/// Tool result when stdin closes while a permission prompt waits.
const PERMISSION_STREAM_CLOSED: &str = "Tool permission request failed: AbortError: Tool permission stream closed before response received";

impl Turn<'_> {
    pub(super) async fn tool(&mut self, tool: ToolStep) -> Flow {
        let tool_use_id = tool
            .id
            .clone()
            .unwrap_or_else(|| format!("toolu_fake_{}", short_id()));
        self.ensure_message();
        self.start_block(
            BlockKind::ToolUse,
            json!({"type": "tool_use", "id": tool_use_id, "name": tool.name, "input": {}}),
        );
        for piece in split_chunks(&tool.input.to_string(), 3) {
            self.delta(
                json!({"type": "input_json_delta", "partial_json": piece}),
                "",
            );
        }
        // Like the real CLI: an allow-listed tool is never asked about, and without
        // `--permission-prompt-tool stdio` a tool that needs permission is refused.
        let ask = tool.ask && !self.tool_allowed(&tool.name);
        let prompt_tool = self.session.opts.permission_prompt_tool.as_deref() == Some("stdio");
        let mut waiter = None;
        let mut request = None;
        if ask && prompt_tool {
            let request_id = new_uuid();
            waiter = self.shared.wait_permission(&request_id);
            if waiter.is_some() {
                request = Some(permission_request(&tool, &tool_use_id, &request_id));
            }
        }
        // The `can_use_tool` request: 2.1.197 prints it right after the `assistant` line,
        // 2.1.332 between `message_delta` and `message_stop`.
        let (after_assistant, before_stop) = if self.old() {
            (request.as_ref(), None)
        } else {
            (None, request.as_ref())
        };
        let assistant_uuid = self.complete_block_with(
            json!({"type": "tool_use", "id": tool_use_id, "name": tool.name, "input": tool.input}),
            after_assistant,
        );
        self.tool_running = Some(tool_use_id.clone());
        self.close_message_with("tool_use", before_stop);
        if ask && !prompt_tool {
            let message = format!(
                "Claude requested permissions to use {}, but you haven't granted it yet.",
                tool.name
            );
            // 2.1.197 prints no `permission_denied` line, only the error tool result.
            if !self.old() {
                emit(&json!({"type": "system", "subtype": "permission_denied",
                    "tool_name": tool.name, "tool_use_id": tool_use_id, "message": message,
                    "uuid": new_uuid(), "session_id": self.sid()}));
            }
            self.denials.push(json!({"tool_name": tool.name,
                "tool_use_id": tool_use_id, "tool_input": tool.input}));
            self.tool_result(ToolResult {
                tool_use_id: &tool_use_id,
                assistant_uuid: &assistant_uuid,
                content: json!(message),
                is_error: true,
                tool_use_result: json!(format!("Error: {message}")),
                meta: json!({"id": tool_use_id, "non_execution_kind": "user-rejected",
                    "permission_decision": {"decision": "reject", "source": "config"}}),
            });
            self.tool_running = None;
            return Ok(());
        }
        if ask {
            let permission = match waiter {
                Some(answer) => self.await_permission(answer).await?,
                None => Permission::StreamClosed,
            };
            match permission {
                Permission::Allow => {}
                Permission::Deny(message) => {
                    self.denials.push(json!({"tool_name": tool.name,
                        "tool_use_id": tool_use_id, "tool_input": tool.input}));
                    self.tool_result(ToolResult {
                        tool_use_id: &tool_use_id,
                        assistant_uuid: &assistant_uuid,
                        content: json!(message),
                        is_error: true,
                        tool_use_result: json!(format!("Error: {message}")),
                        meta: json!({"id": tool_use_id, "non_execution_kind": "permission-rule",
                            "permission_decision": {"decision": "reject", "source": "user_reject"}}),
                    });
                    self.tool_running = None;
                    return Ok(());
                }
                Permission::StreamClosed => {
                    self.tool_result(ToolResult {
                        tool_use_id: &tool_use_id,
                        assistant_uuid: &assistant_uuid,
                        content: json!(PERMISSION_STREAM_CLOSED),
                        is_error: true,
                        tool_use_result: json!(format!("Error: {PERMISSION_STREAM_CLOSED}")),
                        meta: json!({"id": tool_use_id}),
                    });
                    self.tool_running = None;
                    return Ok(());
                }
            }
        }
        if self.pause(Duration::from_millis(tool.delay_ms)).await {
            return Err(End::Interrupted);
        }
        if tool.hang {
            self.hang().await;
            return Err(End::Interrupted);
        }
        if let Some(command) = &tool.run {
            // The tool's effect, for real: what a Write or a Bash would have left on disk.
            let status = tokio::process::Command::new("sh")
                .args(["-c", command])
                .status()
                .await;
            if !matches!(&status, Ok(s) if s.success()) {
                eprintln!("fake-claude: run {command:?} failed: {status:?}");
            }
        }
        let (content, tool_use_result) = tool_output(&tool);
        let decision = if ask {
            json!({"decision": "accept", "source": "user_temporary"})
        } else {
            json!({"decision": "accept", "source": "config", "reason_type": "rule"})
        };
        self.tool_result(ToolResult {
            tool_use_id: &tool_use_id,
            assistant_uuid: &assistant_uuid,
            content,
            is_error: tool.is_error,
            tool_use_result,
            meta: json!({"id": tool_use_id, "permission_decision": decision}),
        });
        self.tool_running = None;
        Ok(())
    }

    /// Whether `--allowedTools` covers the tool: its exact name, or a `prefix*` pattern.
    fn tool_allowed(&self, name: &str) -> bool {
        self.session.opts.allowed_tools.iter().any(|rule| {
            rule == name
                || rule
                    .strip_suffix('*')
                    .is_some_and(|prefix| name.starts_with(prefix))
        })
    }

    /// Waits for the host's answer to a `can_use_tool` request (or an interrupt).
    async fn await_permission(
        &mut self,
        answer: tokio::sync::oneshot::Receiver<Value>,
    ) -> Result<Permission, End> {
        let mut rx = self.interrupt.clone();
        let response = tokio::select! {
            answer = answer => answer,
            _ = rx.wait_for(|v| *v) => return Err(End::Interrupted),
        };
        let Ok(response) = response else {
            return Ok(Permission::StreamClosed);
        };
        if response["subtype"] == "error" {
            let error = response["error"].as_str().unwrap_or("permission error");
            return Ok(Permission::Deny(error.to_owned()));
        }
        let decision = &response["response"];
        if decision["behavior"] == "allow" {
            Ok(Permission::Allow)
        } else {
            let message = decision["message"].as_str().unwrap_or("Permission denied");
            Ok(Permission::Deny(message.to_owned()))
        }
    }

    pub(super) fn tool_result(&mut self, r: ToolResult<'_>) {
        self.flush_replay();
        let uuid = new_uuid();
        let content = json!([{"tool_use_id": r.tool_use_id, "type": "tool_result", "content": r.content,
                     "is_error": r.is_error}]);
        let mut line = json!({"type": "user", "message": {"role": "user", "content": content},
            "parent_tool_use_id": null, "session_id": self.sid(), "uuid": uuid,
            "timestamp": now_timestamp(), "tool_use_result": r.tool_use_result});
        // 2.1.197 has no `tool_result_meta`.
        if !self.old() {
            line["tool_result_meta"] = json!([r.meta]);
        }
        emit(&line);
        self.session.transcript.chained(
            "user",
            json!({"promptId": self.prompt_id, "message": {"role": "user", "content": content},
                "toolUseResult": r.tool_use_result, "sourceToolAssistantUUID": r.assistant_uuid}),
            Some(&uuid),
        );
    }

    /// Interrupt while a tool runs (doc §9): an error tool result, then the tool-use marker.
    pub(super) fn abort_tool(&mut self, tool_use_id: &str) {
        self.flush_replay();
        let uuid = new_uuid();
        let content = json!([{"type": "tool_result", "content": INTERRUPTED_TOOL_TEXT,
                              "is_error": true, "tool_use_id": tool_use_id}]);
        let mut line = json!({"type": "user", "message": {"role": "user", "content": content},
            "parent_tool_use_id": null, "session_id": self.sid(), "uuid": uuid,
            "timestamp": now_timestamp(), "tool_use_result": "User rejected tool use"});
        if !self.old() {
            line["tool_result_meta"] =
                json!([{"id": tool_use_id, "non_execution_kind": "user-rejected"}]);
        }
        emit(&line);
        self.session.transcript.chained(
            "user",
            json!({"promptId": self.prompt_id, "message": {"role": "user", "content": content},
                   "toolUseResult": "User rejected tool use"}),
            Some(&uuid),
        );
        self.interrupt_marker("[Request interrupted by user for tool use]");
    }
}

/// The `can_use_tool` control request for a tool call (doc §4 shape).
fn permission_request(tool: &ToolStep, tool_use_id: &str, request_id: &str) -> Value {
    let description = tool.input["description"]
        .as_str()
        .map_or_else(|| format!("Use {}", tool.name), str::to_owned);
    let mut request = json!({"subtype": "can_use_tool", "tool_name": tool.name,
        "display_name": tool.name, "input": tool.input, "description": description,
        "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": tool.name}],
            "behavior": "allow", "destination": "localSettings"}],
        "tool_use_id": tool_use_id});
    if let Some(server) = tool
        .name
        .strip_prefix("mcp__")
        .and_then(|r| r.split("__").next())
    {
        request["mcp_server"] = json!({"name": server, "source": "dynamic"});
    }
    json!({"type": "control_request", "request_id": request_id, "request": request})
}

enum Permission {
    Allow,
    Deny(String),
    StreamClosed,
}

pub(super) struct ToolResult<'a> {
    pub tool_use_id: &'a str,
    pub assistant_uuid: &'a str,
    pub content: Value,
    pub is_error: bool,
    pub tool_use_result: Value,
    pub meta: Value,
}

/// The tool_result `content` and `tool_use_result` of a scripted tool, shaped like the real
/// CLI's: Bash gets a stdout/stderr object (a string on error), MCP tools a text block array.
fn tool_output(tool: &ToolStep) -> (Value, Value) {
    let output = tool.output.as_str();
    let (content, result) = if tool.name.starts_with("mcp__") {
        let blocks = json!([{"type": "text", "text": output}]);
        (blocks.clone(), blocks)
    } else if tool.is_error {
        (json!(output), json!(format!("Error: {output}")))
    } else if tool.name == "Bash" {
        (
            json!(output),
            json!({"stdout": output, "stderr": "", "interrupted": false,
                               "isImage": false, "noOutputExpected": false}),
        )
    } else {
        (json!(output), json!(output))
    };
    (content, tool.tool_use_result.clone().unwrap_or(result))
}
