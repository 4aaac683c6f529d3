//! One turn of `fake-claude`: system/init, the replayed prompt, the scripted steps as API
//! messages (stream events + one `assistant` line per block), tool results, and the `result`.

use std::cell::Cell;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::watch;

mod background;
mod finish;
mod tool;

use self::finish::ResultKind;
use super::emit::{emit, emit_raw, emit_stderr, new_uuid, now_timestamp};
use super::script::{Step, steps_for};
use super::{Session, Shared, api_key_source};
use crate::text::{short_id, split_chunks};

/// Built-in tools listed in `system/init`.
const TOOLS: &[&str] = &[
    "Task",
    "Bash",
    "Edit",
    "Read",
    "Write",
    "Glob",
    "Grep",
    "TodoWrite",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
];

/// Plays one user message as a turn.
pub(crate) async fn run_turn(
    session: &mut Session,
    shared: &Shared,
    message: Value,
    interrupt: watch::Receiver<bool>,
) {
    let mut turn = Turn {
        model: shared.model(),
        session,
        shared,
        interrupt,
        started: Instant::now(),
        msg: None,
        status_sent: false,
        api_calls: 0,
        input_tokens: 0,
        output_tokens: 0,
        last_text: String::new(),
        last_stop_reason: None,
        denials: Vec::new(),
        retries: 0,
        tool_running: None,
        prompt_id: new_uuid(),
        prompt_tokens: 0,
        command_uuid: None,
        replay: Cell::new(None),
    };
    if message["type"] == background::DONE {
        turn.background_done(message).await;
    } else {
        turn.play(message).await;
    }
}

/// How a turn ended early.
enum End {
    /// An interrupt arrived (while streaming, waiting, or in a tool: see `tool_running`).
    Interrupted,
    ApiError {
        status: u16,
        text: String,
    },
}

type Flow = Result<(), End>;

#[derive(Clone, Copy, PartialEq)]
enum BlockKind {
    Text,
    Thinking,
    ToolUse,
}

/// The content block being streamed.
struct OpenBlock {
    index: usize,
    kind: BlockKind,
    /// Text streamed so far (text/thinking).
    text: String,
}

/// An API message being streamed.
struct OpenMsg {
    id: String,
    request_id: String,
    next_index: usize,
    input_tokens: u64,
    output_tokens: u64,
    block: Option<OpenBlock>,
    /// Completed blocks: (stdout/transcript uuid, block JSON). Written to the transcript when
    /// the message completes, like the real CLI.
    done: Vec<(String, Value)>,
}

struct Turn<'a> {
    session: &'a mut Session,
    shared: &'a Shared,
    interrupt: watch::Receiver<bool>,
    model: String,
    started: Instant,
    msg: Option<OpenMsg>,
    /// The turn's first `system/status requesting` went out already.
    status_sent: bool,
    api_calls: u32,
    input_tokens: u64,
    output_tokens: u64,
    last_text: String,
    last_stop_reason: Option<&'static str>,
    denials: Vec<Value>,
    retries: u32,
    /// Id of the tool use whose tool is "running" (or waiting for permission).
    tool_running: Option<String>,
    prompt_id: String,
    prompt_tokens: u64,
    /// The prompt's `uuid` when the host gave one (enables `command_lifecycle` lines).
    command_uuid: Option<String>,
    /// 2.1.197: the `--replay-user-messages` echo not printed yet. It goes out just before the
    /// turn's first `assistant` or `user` line (or its `result`), after the reply's deltas.
    replay: Cell<Option<Value>>,
}

impl Turn<'_> {
    fn partial(&self) -> bool {
        self.session.opts.include_partial_messages
    }

    fn sid(&self) -> String {
        self.session.session_id.clone()
    }

    /// Whether the fake imitates 2.1.197 (`FAKE_CLAUDE_RELEASE`).
    fn old(&self) -> bool {
        self.shared.release.is_2_1_197()
    }

    /// Prints the held-back prompt echo (2.1.197), if any.
    fn flush_replay(&self) {
        if let Some(line) = self.replay.take() {
            emit(&line);
        }
    }

    fn interrupted(&self) -> bool {
        *self.interrupt.borrow()
    }

    /// Waits `d`; true if an interrupt came first.
    async fn pause(&self, d: Duration) -> bool {
        if self.interrupted() {
            return true;
        }
        if d.is_zero() {
            return false;
        }
        let mut rx = self.interrupt.clone();
        tokio::select! {
            () = tokio::time::sleep(d) => self.interrupted(),
            _ = rx.wait_for(|v| *v) => true,
        }
    }

    /// Waits until interrupted (or killed).
    async fn hang(&self) {
        let mut rx = self.interrupt.clone();
        if rx.wait_for(|v| *v).await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    async fn play(&mut self, message: Value) {
        let content = message["message"]["content"].clone();
        let text = prompt_text(&content);
        self.command_uuid = message["uuid"].as_str().map(str::to_owned);
        let uuid = self.command_uuid.clone().unwrap_or_else(new_uuid);
        if let Some(command) = &self.command_uuid {
            self.shared.dequeue(command);
            self.shared.lifecycle(command, "started");
        }
        self.prompt_tokens = 100 + text.chars().count() as u64;

        if let Err(err) = self.session.transcript.open() {
            emit_stderr(&format!(
                "fake-claude: cannot create transcript {}: {err}",
                self.session.transcript.path().display()
            ));
        }
        self.session
            .transcript
            .plain(json!({"type": "queue-operation", "operation": "enqueue",
            "timestamp": now_timestamp(), "content": text}));
        self.session
            .transcript
            .plain(json!({"type": "queue-operation", "operation": "dequeue",
            "timestamp": now_timestamp()}));

        self.emit_init();
        if self.partial() {
            self.emit_status();
            self.status_sent = true;
        }
        if self.session.opts.replay_user_messages {
            let line = json!({"type": "user", "message": {"role": "user", "content": content},
                "session_id": self.sid(), "parent_tool_use_id": null, "uuid": uuid,
                "timestamp": now_timestamp(), "isReplay": true});
            if self.old() {
                self.replay.set(Some(line));
            } else {
                emit(&line);
            }
        }
        let permission_mode = self.shared.permission_mode();
        self.session.transcript.chained(
            "user",
            json!({"promptId": self.prompt_id, "message": {"role": "user", "content": content},
                   "permissionMode": permission_mode, "promptSource": "sdk", "turnOrigin": "sdk"}),
            Some(&uuid),
        );

        let steps = match steps_for(&text) {
            Ok(steps) => steps,
            Err(err) => {
                emit_stderr(&err);
                self.finish_result(ResultKind::ScriptError(err));
                return;
            }
        };
        self.run_steps(steps, &text).await;
    }

    /// Plays the steps to the turn's `result`. `text`: the prompt, for `last-prompt`.
    async fn run_steps(&mut self, steps: Vec<Step>, text: &str) {
        let mut flow = Ok(());
        for step in steps {
            flow = self.step(step).await;
            if flow.is_err() {
                break;
            }
        }
        match flow {
            Ok(()) => {
                if self.msg.is_some() {
                    self.close_message("end_turn");
                }
                self.write_last_prompt(text);
                self.finish_result(ResultKind::Success);
            }
            Err(End::Interrupted) => {
                if let Some(tool_use_id) = self.tool_running.take() {
                    self.abort_tool(&tool_use_id);
                    self.finish_result(ResultKind::Aborted { tools: true });
                } else {
                    self.abort_stream();
                    self.finish_result(ResultKind::Aborted { tools: false });
                }
                self.write_last_prompt(text);
            }
            Err(End::ApiError {
                status,
                text: error_text,
            }) => {
                self.write_last_prompt(text);
                self.finish_result(ResultKind::ApiError {
                    status,
                    text: error_text,
                });
            }
        }
    }

    fn write_last_prompt(&mut self, text: &str) {
        let leaf = self.session.transcript.last_uuid().map(str::to_owned);
        self.session
            .transcript
            .plain(json!({"type": "last-prompt", "lastPrompt": text, "leafUuid": leaf}));
    }

    fn emit_init(&self) {
        let mut tools: Vec<String> = TOOLS.iter().map(|t| (*t).to_owned()).collect();
        for allowed in &self.session.opts.allowed_tools {
            if allowed.starts_with("mcp__") && !allowed.contains('*') && !tools.contains(allowed) {
                tools.push(allowed.clone());
            }
        }
        let mut line = json!({
            "type": "system", "subtype": "init", "cwd": self.session.cwd,
            "session_id": self.sid(), "tools": tools, "mcp_servers": [], "model": self.model,
            "permissionMode": self.shared.permission_mode(), "slash_commands": ["compact", "clear"],
            "apiKeySource": api_key_source(),
            "claude_code_version": self.shared.release.version(),
            "output_style": "default", "agents": [], "skills": [], "plugins": [],
            "uuid": new_uuid(),
        });
        if !self.old() {
            line["capabilities"] = json!(["interrupt_receipt_v1"]);
        }
        emit(&line);
    }

    fn emit_status(&self) {
        let mut line = json!({"type": "system", "subtype": "status", "status": "requesting",
                              "session_id": self.sid(), "uuid": new_uuid()});
        if let Some(command) = self.command_uuid.as_ref().filter(|_| !self.old()) {
            line["user_message_uuids"] = json!([command]);
        }
        emit(&line);
    }

    fn stream_event(&self, event: Value) {
        if !self.partial() {
            return;
        }
        let Some(msg) = &self.msg else {
            return;
        };
        let mut line = json!({"type": "stream_event", "event": event, "session_id": self.sid(),
            "parent_tool_use_id": null, "uuid": new_uuid()});
        // 2.1.197: the message id only in `message_start`'s `event.message.id`.
        if !self.old() {
            line["api_message_id"] = json!(msg.id);
        }
        if line["event"]["type"] == "message_start" {
            line["ttft_ms"] = json!(1);
            if !self.old() {
                line["thinking_display"] = json!("updates");
            }
        }
        emit(&line);
    }

    fn start_usage(&self) -> Value {
        let input = self.msg.as_ref().map_or(0, |m| m.input_tokens);
        json!({"input_tokens": input, "output_tokens": 1, "cache_creation_input_tokens": 0,
               "cache_read_input_tokens": 0, "service_tier": "standard"})
    }

    /// Starts an API message unless one is open.
    fn ensure_message(&mut self) {
        if self.msg.is_some() {
            return;
        }
        if self.partial() && !self.status_sent {
            self.emit_status();
        }
        self.status_sent = false;
        self.api_calls += 1;
        let input_tokens = self.prompt_tokens + u64::from(self.api_calls - 1) * 50;
        self.input_tokens += input_tokens;
        self.msg = Some(OpenMsg {
            id: format!("msg_fake_{}", short_id()),
            request_id: format!("req_fake_{}", short_id()),
            next_index: 0,
            input_tokens,
            output_tokens: 1,
            block: None,
            done: Vec::new(),
        });
        let message = json!({"id": self.msg.as_ref().map(|m| m.id.clone()), "type": "message",
            "role": "assistant", "model": self.model, "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": self.start_usage()});
        self.stream_event(json!({"type": "message_start", "message": message}));
    }

    fn start_block(&mut self, kind: BlockKind, start: Value) {
        let Some(msg) = self.msg.as_mut() else {
            return;
        };
        let index = msg.next_index;
        msg.next_index += 1;
        msg.block = Some(OpenBlock {
            index,
            kind,
            text: String::new(),
        });
        self.stream_event(
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        );
    }

    fn delta(&mut self, delta: Value, piece: &str) {
        let Some(msg) = self.msg.as_mut() else {
            return;
        };
        msg.output_tokens += 1;
        let index = msg.block.as_ref().map_or(0, |b| b.index);
        if let Some(block) = msg.block.as_mut() {
            block.text.push_str(piece);
        }
        self.stream_event(json!({"type": "content_block_delta", "index": index, "delta": delta}));
    }

    /// The complete `assistant` line for the open block, then its `content_block_stop`
    /// (the real CLI's order).
    fn complete_block(&mut self, block_json: Value) -> String {
        self.complete_block_with(block_json, None)
    }

    /// [`Turn::complete_block`], printing `between` after the `assistant` line and before
    /// `content_block_stop`: where 2.1.197 puts a `can_use_tool` request.
    fn complete_block_with(&mut self, block_json: Value, between: Option<&Value>) -> String {
        let uuid = new_uuid();
        self.emit_assistant(&block_json, &uuid);
        if let Some(line) = between {
            emit(line);
        }
        let Some(msg) = self.msg.as_mut() else {
            return uuid;
        };
        let index = msg.block.take().map_or(0, |b| b.index);
        msg.done.push((uuid.clone(), block_json));
        self.stream_event(json!({"type": "content_block_stop", "index": index}));
        uuid
    }

    fn emit_assistant(&self, block_json: &Value, uuid: &str) {
        let Some(msg) = &self.msg else {
            return;
        };
        self.flush_replay();
        let mut line = json!({"type": "assistant", "message": {"id": msg.id, "type": "message",
            "role": "assistant", "model": self.model, "content": [block_json],
            "stop_reason": null, "stop_sequence": null, "usage": self.start_usage(),
            "context_management": null},
            "parent_tool_use_id": null, "session_id": self.sid(), "uuid": uuid,
            "request_id": msg.request_id});
        if !self.old() {
            line["timestamp"] = json!(now_timestamp());
        }
        emit(&line);
    }

    /// Ends the open message: `message_delta`, `message_stop`, and the transcript records of
    /// its blocks (with the final stop reason and usage).
    fn close_message(&mut self, stop_reason: &'static str) {
        self.close_message_with(stop_reason, None);
    }

    /// [`Turn::close_message`], printing `between` after `message_delta` and before
    /// `message_stop`: where the real CLI puts a `can_use_tool` request.
    fn close_message_with(&mut self, stop_reason: &'static str, between: Option<&Value>) {
        let Some(msg) = self.msg.as_ref() else {
            return;
        };
        let output_tokens = msg.output_tokens;
        self.stream_event(json!({"type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": null},
            "usage": {"output_tokens": output_tokens}}));
        if let Some(line) = between {
            emit(line);
        }
        self.stream_event(json!({"type": "message_stop"}));
        if let Some(msg) = self.msg.take() {
            self.output_tokens += msg.output_tokens;
            self.write_blocks(&msg, Some(stop_reason), false);
        }
        self.last_stop_reason = Some(stop_reason);
    }

    fn write_blocks(&mut self, msg: &OpenMsg, stop_reason: Option<&str>, aborted: bool) {
        for (index, (uuid, block)) in msg.done.iter().enumerate() {
            let mut fields = json!({
                "message": {"id": msg.id, "type": "message", "role": "assistant",
                    "model": self.model, "content": [block], "stop_reason": stop_reason,
                    "stop_sequence": null,
                    "usage": {"input_tokens": msg.input_tokens, "output_tokens": msg.output_tokens,
                              "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                              "service_tier": "standard"}},
                "apiBlockIndex": index, "requestId": msg.request_id,
                "requestedModel": self.model, "madeBy": "model",
            });
            if aborted {
                fields["isAbortedMidStream"] = json!(true);
            }
            self.session
                .transcript
                .chained("assistant", fields, Some(uuid));
        }
    }

    async fn step(&mut self, step: Step) -> Flow {
        if self.interrupted() {
            return Err(End::Interrupted);
        }
        match step {
            Step::Text {
                text,
                chunks,
                delay_ms,
            } => self.text_block(&text, chunks, delay_ms).await,
            Step::Thinking {
                thinking,
                chunks,
                delay_ms,
            } => self.thinking_block(&thinking, chunks, delay_ms).await,
            Step::Tool(tool) => self.tool(tool).await,
            Step::Background(bg) => {
                self.background(bg);
                Ok(())
            }
            Step::Retry { status } => {
                self.retry(status);
                Ok(())
            }
            Step::ApiError { status, message } => Err(self.api_error(status, &message)),
            Step::Sleep { ms } => {
                if self.pause(Duration::from_millis(ms)).await {
                    Err(End::Interrupted)
                } else {
                    Ok(())
                }
            }
            Step::Hang => {
                self.hang().await;
                Err(End::Interrupted)
            }
            Step::Crash { code } => std::process::exit(code),
            Step::Garbage { text } => {
                emit_raw(&text);
                Ok(())
            }
            Step::LongLine { bytes } => {
                let head = r#"{"type":"system","subtype":"fake_padding","padding":""#;
                let tail = r#""}"#;
                let mut line = String::with_capacity(bytes);
                line.push_str(head);
                line.extend(std::iter::repeat_n(
                    'x',
                    bytes.saturating_sub(head.len() + tail.len()),
                ));
                line.push_str(tail);
                emit_raw(&line);
                Ok(())
            }
            Step::Child { command } => {
                self.spawn_child(&command);
                Ok(())
            }
            Step::Stderr { text } => {
                emit_stderr(&text);
                Ok(())
            }
        }
    }

    async fn text_block(&mut self, text: &str, chunks: usize, delay_ms: u64) -> Flow {
        self.ensure_message();
        self.start_block(BlockKind::Text, json!({"type": "text", "text": ""}));
        for piece in split_chunks(text, chunks) {
            if self.pause(Duration::from_millis(delay_ms)).await {
                return Err(End::Interrupted);
            }
            self.delta(json!({"type": "text_delta", "text": piece}), &piece);
        }
        self.complete_block(json!({"type": "text", "text": text}));
        self.last_text = text.to_owned();
        Ok(())
    }

    async fn thinking_block(&mut self, thinking: &str, chunks: usize, delay_ms: u64) -> Flow {
        self.ensure_message();
        self.start_block(
            BlockKind::Thinking,
            json!({"type": "thinking", "thinking": "", "signature": ""}),
        );
        let mut estimated = 0u64;
        for piece in split_chunks(thinking, chunks) {
            if self.pause(Duration::from_millis(delay_ms)).await {
                return Err(End::Interrupted);
            }
            if self.partial() {
                let delta = (piece.chars().count() as u64).div_ceil(4);
                estimated += delta;
                emit(&json!({"type": "system", "subtype": "thinking_tokens",
                    "estimated_tokens": estimated, "estimated_tokens_delta": delta,
                    "session_id": self.sid(), "uuid": new_uuid()}));
            }
            self.delta(json!({"type": "thinking_delta", "thinking": piece}), &piece);
        }
        let signature = format!("fakesig_{}", short_id());
        self.delta(
            json!({"type": "signature_delta", "signature": signature}),
            "",
        );
        self.complete_block(
            json!({"type": "thinking", "thinking": thinking, "signature": signature}),
        );
        Ok(())
    }

    fn retry(&mut self, status: u16) {
        self.retries += 1;
        let max_retries = std::env::var("CLAUDE_CODE_MAX_RETRIES")
            .ok()
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(10);
        emit(
            &json!({"type": "system", "subtype": "api_retry", "attempt": self.retries,
            "max_retries": max_retries, "retry_delay_ms": 0, "error_status": status,
            "error": error_name(status), "session_id": self.sid(), "uuid": new_uuid()}),
        );
        self.session.transcript.chained(
            "system",
            json!({"subtype": "api_error", "level": "error",
                "error": {"status": status, "formatted": format!("{status} fake error")},
                "retryInMs": 0, "retryAttempt": self.retries, "maxRetries": max_retries}),
            None,
        );
    }

    fn api_error(&mut self, status: u16, message: &str) -> End {
        if self.msg.is_some() {
            self.close_message("end_turn");
        }
        let text = format!("API Error: {status} {message}");
        let uuid = new_uuid();
        let message_json = json!({"id": new_uuid(), "container": null, "model": "<synthetic>",
            "role": "assistant", "stop_reason": "stop_sequence", "stop_sequence": "",
            "type": "message",
            "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0},
            "content": [{"type": "text", "text": text}], "context_management": null});
        self.flush_replay();
        let mut line = json!({"type": "assistant", "message": message_json,
            "parent_tool_use_id": null, "session_id": self.sid(), "uuid": uuid,
            "error": error_name(status)});
        // 2.1.197 marks the synthetic line only with `error`.
        if !self.old() {
            line["timestamp"] = json!(now_timestamp());
            line["is_api_error_message"] = json!(true);
            line["api_error_status"] = json!(status);
        }
        emit(&line);
        self.session.transcript.chained(
            "assistant",
            json!({"message": message_json, "isApiErrorMessage": true,
                   "apiErrorStatus": status, "error": error_name(status)}),
            Some(&uuid),
        );
        End::ApiError { status, text }
    }

    fn spawn_child(&mut self, command: &str) {
        // No setsid/process_group: the child stays in fake-claude's process group, so a host
        // that kills the group kills it too.
        match std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
        {
            Ok(child) => {
                self.shared.add_child(child.id());
                self.session.children.push(child);
            }
            Err(err) => emit_stderr(&format!(
                "fake-claude: cannot spawn child {command:?}: {err}"
            )),
        }
    }
}

/// The `error` name the CLI reports for an HTTP status.
fn error_name(status: u16) -> &'static str {
    match status {
        400 => "invalid_request",
        401 => "authentication_failed",
        429 => "rate_limit",
        529 => "overloaded",
        500..=599 => "server_error",
        _ => "unknown",
    }
}

/// The prompt text of a user message: a string, or its text blocks joined by newlines.
fn prompt_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
