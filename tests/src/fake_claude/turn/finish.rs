//! How a turn ends: the `result` line, and the abort sequence of an interrupt while streaming.

use serde_json::{Value, json};

use super::{BlockKind, Turn};
use crate::fake_claude::emit::{emit, new_uuid, now_timestamp};

impl Turn<'_> {
    /// Interrupt while streaming or waiting for the API (doc §9): the partial assistant text,
    /// the interrupt marker, the stream tail with `abandoned_blocks` (2.1.197: no tail).
    pub(super) fn abort_stream(&mut self) {
        let mut kept_partial = false;
        let partial_block = self
            .msg
            .as_ref()
            .and_then(|m| m.block.as_ref())
            .and_then(|b| match b.kind {
                BlockKind::Text if !b.text.is_empty() => {
                    Some(json!({"type": "text", "text": b.text}))
                }
                BlockKind::Thinking if !b.text.is_empty() => {
                    Some(json!({"type": "thinking", "thinking": b.text, "signature": ""}))
                }
                _ => None,
            });
        if let Some(block) = partial_block {
            let uuid = new_uuid();
            self.emit_assistant(&block, &uuid);
            if let Some(msg) = self.msg.as_mut() {
                msg.done.push((uuid, block));
            }
            kept_partial = true;
        }
        if let Some(msg) = self.msg.take() {
            self.output_tokens += msg.output_tokens;
            self.write_blocks(&msg, None, true);
            self.msg = Some(msg);
        }
        self.interrupt_marker("[Request interrupted by user]");
        let Some(mut msg) = self.msg.take() else {
            return;
        };
        let open = msg.block.take();
        let from_block_index = match &open {
            Some(b) if kept_partial => b.index + 1,
            Some(b) => b.index,
            None => msg.next_index,
        };
        let id = msg.id.clone();
        if self.old() {
            return;
        }
        self.msg = Some(msg);
        if let Some(b) = open {
            self.stream_event(json!({"type": "content_block_stop", "index": b.index}));
        }
        self.stream_event(json!({"type": "message_delta",
            "delta": {"stop_reason": null, "stop_sequence": null}, "usage": {"output_tokens": 0}}));
        if self.partial() {
            emit(
                &json!({"type": "stream_event", "event": {"type": "message_stop"},
                "session_id": self.sid(), "parent_tool_use_id": null, "uuid": new_uuid(),
                "api_message_id": id,
                "abandoned_blocks": {"api_message_id": id, "from_block_index": from_block_index}}),
            );
        }
        self.msg = None;
    }

    pub(super) fn interrupt_marker(&mut self, text: &str) {
        self.flush_replay();
        let uuid = new_uuid();
        let content = json!([{"type": "text", "text": text}]);
        emit(
            &json!({"type": "user", "message": {"role": "user", "content": content},
            "parent_tool_use_id": null, "session_id": self.sid(), "uuid": uuid,
            "timestamp": now_timestamp()}),
        );
        self.session.transcript.chained(
            "user",
            json!({"promptId": self.prompt_id, "message": {"role": "user", "content": content},
                   "rowSource": "harness"}),
            Some(&uuid),
        );
    }

    pub(super) fn finish_result(&mut self, kind: ResultKind) {
        self.flush_replay();
        let old = self.old();
        let session = &mut *self.session;
        session.turns += 1;
        let entry = session
            .model_usage
            .entry(self.model.clone())
            .or_insert((0, 0, 0));
        entry.0 += self.input_tokens;
        entry.1 += self.output_tokens;
        entry.2 += 1;
        let model_usage: serde_json::Map<String, Value> = session
            .model_usage
            .iter()
            .map(|(model, (input, output, turns))| {
                (
                    model.clone(),
                    json!({"inputTokens": input, "outputTokens": output,
                    "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0,
                    "webSearchRequests": 0, "costUSD": cost(*turns),
                    "contextWindow": 200_000, "maxOutputTokens": 128_000}),
                )
            })
            .collect();
        let elapsed = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let mut line = json!({
            "type": "result", "subtype": "success", "is_error": false,
            "num_turns": self.api_calls.max(1), "stop_reason": "end_turn",
            "terminal_reason": "completed", "session_id": session.session_id,
            "duration_ms": elapsed, "duration_api_ms": elapsed,
            "total_cost_usd": cost(session.turns),
            "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "service_tier": "standard"},
            "modelUsage": model_usage, "permission_denials": self.denials,
            "api_error_status": null, "result_index": session.results,
            "queued_turn_count": session.queue_len, "uuid": new_uuid(),
        });
        let is_error = match kind {
            ResultKind::Success => {
                line["result"] = json!(self.last_text);
                line["stop_reason"] = json!(self.last_stop_reason.unwrap_or("end_turn"));
                false
            }
            ResultKind::Aborted { tools } => {
                line["subtype"] = json!("error_during_execution");
                line["is_error"] = json!(true);
                line["terminal_reason"] = json!(if tools {
                    "aborted_tools"
                } else {
                    "aborted_streaming"
                });
                line["stop_reason"] = if tools {
                    json!("tool_use")
                } else {
                    Value::Null
                };
                line["errors"] = json!([
                    "[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null"
                ]);
                true
            }
            ResultKind::ApiError { status, text } => {
                line["is_error"] = json!(true);
                // 2.1.197 says the turn completed.
                line["terminal_reason"] = json!(if old { "completed" } else { "api_error" });
                line["stop_reason"] = json!("stop_sequence");
                line["api_error_status"] = json!(status);
                line["result"] = json!(text);
                true
            }
            ResultKind::ScriptError(err) => {
                line["subtype"] = json!("error_during_execution");
                line["is_error"] = json!(true);
                line["terminal_reason"] = Value::Null;
                line["stop_reason"] = Value::Null;
                line["errors"] = json!([err]);
                true
            }
        };
        line["is_error"] = json!(is_error);
        if old && let Some(fields) = line.as_object_mut() {
            fields.remove("result_index");
            fields.remove("queued_turn_count");
        }
        session.results += 1;
        session.last_is_error = Some(is_error);
        emit(&line);
        if let Some(command) = &self.command_uuid {
            let state = if is_error { "cancelled" } else { "completed" };
            self.shared.lifecycle(command, state);
        }
    }
}

pub(super) enum ResultKind {
    Success,
    Aborted { tools: bool },
    ApiError { status: u16, text: String },
    ScriptError(String),
}

/// 0.001 USD per turn, computed from the count so it prints exactly.
fn cost(turns: u32) -> f64 {
    f64::from(turns) / 1000.0
}
