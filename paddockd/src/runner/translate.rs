//! Translates the CLI's stream-json stdout (docs/claude-cli.md §3) into chat frames.
//!
//! Text arrives as `stream_event` deltas; the complete `assistant` line that follows each
//! block is used only for what the deltas did not carry (tool inputs, synthetic API error
//! messages, a block that streamed nothing). Unknown types and subtypes are ignored.

use std::collections::{HashMap, HashSet};

use paddock_proto::{
    ChatEvent, Complete, MessageBoundary, Notice, NoticeKind, TextDelta, ToolCall, ToolStart, Usage,
};
use serde_json::Value;

/// Longest tool output forwarded in a frame; the transcript keeps the whole of it.
const MAX_TOOL_OUTPUT: usize = 64 * 1024;

/// What one stdout line meant.
#[derive(Debug, Default)]
pub struct Translated {
    pub events: Vec<ChatEvent>,
    /// The line was the turn's `result`: the turn is over.
    pub turn_over: bool,
    /// `is_error` of the result, when `turn_over`.
    pub failed: bool,
}

/// Per-process translation state (the CLI's cost is cumulative per process).
#[derive(Debug, Default)]
pub struct Translator {
    model: Option<String>,
    /// Tool names and inputs by tool_use id, for `chat:tool_call`.
    tools: HashMap<String, (String, Value)>,
    /// API message ids that streamed text or thinking deltas.
    streamed: HashSet<String>,
    /// The process's cumulative cost at the end of the previous turn.
    cost_so_far: f64,
    /// The context window of the model, from `modelUsage`.
    context_window: Option<u64>,
}

impl Translator {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// Translates one parsed line.
    pub fn line(&mut self, v: &Value) -> Translated {
        let mut out = Translated::default();
        // Subagent traffic (parent_tool_use_id set) belongs to the Agent tool call, not the chat.
        if v.get("parent_tool_use_id").is_some_and(|p| !p.is_null()) {
            return out;
        }
        match v.get("type").and_then(Value::as_str) {
            Some("system") => self.system(v, &mut out),
            Some("stream_event") => self.stream_event(v, &mut out),
            Some("assistant") => self.assistant(v, &mut out),
            Some("user") => self.user(v, &mut out),
            Some("result") => self.result(v, &mut out),
            _ => {}
        }
        out
    }

    fn system(&mut self, v: &Value, out: &mut Translated) {
        match v.get("subtype").and_then(Value::as_str) {
            Some("init") => {
                if let Some(m) = v.get("model").and_then(Value::as_str) {
                    self.model = Some(m.to_owned());
                }
            }
            Some("api_retry") => {
                let attempt = v.get("attempt").and_then(Value::as_u64).unwrap_or(0);
                let max = v.get("max_retries").and_then(Value::as_u64).unwrap_or(0);
                let delay = v.get("retry_delay_ms").and_then(Value::as_u64).unwrap_or(0);
                let status = v
                    .get("error_status")
                    .and_then(Value::as_u64)
                    .map_or_else(|| "connection".to_owned(), |s| s.to_string());
                let what = v.get("error").and_then(Value::as_str).unwrap_or("error");
                out.events.push(notice(
                    NoticeKind::Retrying,
                    format!(
                        "API {status} ({what}); retry {attempt} of {max} in {:.1} s",
                        delay as f64 / 1000.0
                    ),
                ));
            }
            Some("permission_denied") => {
                let msg = v
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("a tool call was denied");
                out.events
                    .push(notice(NoticeKind::PermissionDenied, msg.to_owned()));
            }
            Some("compact_boundary") => {
                out.events
                    .push(notice(NoticeKind::Info, "context compacted".to_owned()));
            }
            _ => {}
        }
    }

    fn stream_event(&mut self, v: &Value, out: &mut Translated) {
        let Some(ev) = v.get("event") else { return };
        let msg_id = v
            .get("api_message_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match ev.get("type").and_then(Value::as_str) {
            Some("content_block_delta") => {
                let delta = ev.get("delta");
                let text = |k| {
                    delta
                        .and_then(|d| d.get(k))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                };
                match delta.and_then(|d| d.get("type")).and_then(Value::as_str) {
                    Some("text_delta") => {
                        if let Some(t) = text("text") {
                            self.mark_streamed(msg_id);
                            out.events.push(ChatEvent::Response(TextDelta { text: t }));
                        }
                    }
                    Some("thinking_delta") => {
                        if let Some(t) = text("thinking") {
                            self.mark_streamed(msg_id);
                            out.events.push(ChatEvent::Thinking(TextDelta { text: t }));
                        }
                    }
                    _ => {}
                }
            }
            Some("message_stop") => out.events.push(ChatEvent::MessageBoundary(MessageBoundary {
                message_id: msg_id,
            })),
            _ => {}
        }
    }

    fn mark_streamed(&mut self, msg_id: Option<String>) {
        if let Some(id) = msg_id {
            self.streamed.insert(id);
        }
    }

    fn assistant(&mut self, v: &Value, out: &mut Translated) {
        let msg = v.get("message");
        let msg_id = msg
            .and_then(|m| m.get("id"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let streamed = self.streamed.contains(msg_id);
        let is_api_error = v.get("is_api_error_message").and_then(Value::as_bool) == Some(true);
        let blocks = msg
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for b in blocks {
            match b.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    let id = str_of(&b, "id");
                    let name = str_of(&b, "name");
                    let input = b.get("input").cloned().unwrap_or(Value::Null);
                    self.tools.insert(id.clone(), (name.clone(), input.clone()));
                    out.events.push(ChatEvent::ToolStart(ToolStart {
                        tool_use_id: id,
                        name,
                        input,
                    }));
                }
                Some("text") if is_api_error => {
                    let text = str_of(&b, "text");
                    let kind = if is_usage_limit(&text) {
                        NoticeKind::UsageLimit
                    } else {
                        NoticeKind::ApiError
                    };
                    out.events.push(notice(kind, text));
                }
                Some("text") if !streamed => {
                    out.events.push(ChatEvent::Response(TextDelta {
                        text: str_of(&b, "text"),
                    }));
                }
                _ => {}
            }
        }
    }

    fn user(&mut self, v: &Value, out: &mut Translated) {
        // Our own prompt echoed back (`--replay-user-messages`): the daemon already sent
        // `chat:user` when it wrote the message.
        if v.get("isReplay").and_then(Value::as_bool) == Some(true) {
            return;
        }
        let content = v.pointer("/message/content");
        match content {
            Some(Value::Array(blocks)) => {
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("tool_result") => {
                            let id = str_of(b, "tool_use_id");
                            let (name, input) = self.tools.remove(&id).unwrap_or_default();
                            let mut output = crate::transcripts::content_text(b.get("content"));
                            truncate(&mut output, MAX_TOOL_OUTPUT);
                            out.events.push(ChatEvent::ToolCall(ToolCall {
                                tool_use_id: id,
                                name,
                                input,
                                output,
                                is_error: b.get("is_error").and_then(Value::as_bool) == Some(true),
                                detail: v.get("tool_use_result").filter(|d| small(d)).cloned(),
                            }));
                        }
                        Some("text") => interrupt_marker(str_of(b, "text"), out),
                        _ => {}
                    }
                }
            }
            Some(Value::String(s)) => interrupt_marker(s.clone(), out),
            _ => {}
        }
    }

    fn result(&mut self, v: &Value, out: &mut Translated) {
        let is_error = v.get("is_error").and_then(Value::as_bool).unwrap_or(true);
        let total = v.get("total_cost_usd").and_then(Value::as_f64);
        let cost = total.map(|t| (t - self.cost_so_far).max(0.0));
        if let Some(t) = total {
            self.cost_so_far = t;
        }
        if let Some(mu) = v.get("modelUsage").and_then(Value::as_object) {
            self.context_window = mu
                .values()
                .find_map(|m| m.get("contextWindow").and_then(Value::as_u64))
                .or(self.context_window);
        }
        let usage = v.get("usage").map(|u| {
            let n = |k| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            Usage {
                input_tokens: n("input_tokens"),
                output_tokens: n("output_tokens"),
                cache_creation_input_tokens: n("cache_creation_input_tokens"),
                cache_read_input_tokens: n("cache_read_input_tokens"),
                context_tokens: None,
                context_window: self.context_window,
            }
        });
        let terminal_reason = v
            .get("terminal_reason")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let error = is_error.then(|| {
            let errors: Vec<&str> = v
                .get("errors")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            match v.get("result").and_then(Value::as_str) {
                Some(r) if !r.is_empty() => r.to_owned(),
                _ if !errors.is_empty() => errors.join("; "),
                _ => match terminal_reason.as_deref() {
                    Some(r) if r.starts_with("aborted") => "interrupted".to_owned(),
                    Some(r) => r.replace('_', " "),
                    None => "the turn failed".to_owned(),
                },
            }
        });
        out.events.push(ChatEvent::Complete(Complete {
            success: !is_error,
            error,
            model: self.model.clone(),
            usage,
            cost_usd: cost,
            duration_ms: v.get("duration_ms").and_then(Value::as_u64),
            terminal_reason,
        }));
        out.turn_over = true;
        out.failed = is_error;
        self.streamed.clear();
    }
}

fn interrupt_marker(text: String, out: &mut Translated) {
    if text.starts_with("[Request interrupted by user") {
        out.events.push(notice(NoticeKind::Interrupted, text));
    }
}

fn notice(kind: NoticeKind, message: String) -> ChatEvent {
    ChatEvent::Notice(Notice { kind, message })
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn small(v: &Value) -> bool {
    v.to_string().len() <= MAX_TOOL_OUTPUT
}

fn truncate(s: &mut String, max: usize) {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str("\n… (truncated; the transcript has the full output)");
    }
}

/// Whether a synthetic message says the account's usage (session) limit was hit, as the
/// reference matches it: "usage limit" / "session limit", or "hit your … limit", in any case.
pub fn is_usage_limit(text: &str) -> bool {
    let t = text.to_lowercase();
    t.contains("usage limit")
        || t.contains("session limit")
        || t.find("hit your").is_some_and(|i| t[i..].contains("limit"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::path::Path;

    fn fixture(name: &str) -> Vec<Value> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/claude-cli-2.1.332/stdout")
            .join(format!("{name}.jsonl"));
        let text = std::fs::read_to_string(&p).expect("tests/fixtures holds the CLI captures");
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    fn run(name: &str) -> Vec<ChatEvent> {
        let mut t = Translator::new();
        fixture(name)
            .iter()
            .flat_map(|l| t.line(l).events)
            .collect()
    }

    fn text_of(events: &[ChatEvent]) -> String {
        events
            .iter()
            .filter_map(|e| match e {
                ChatEvent::Response(d) => Some(d.text.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn streamed_text_is_not_doubled() {
        let ev = run("b_partial");
        let complete = ev
            .iter()
            .filter(|e| matches!(e, ChatEvent::Complete(_)))
            .count();
        assert_eq!(complete, 1);
        let text = text_of(&ev);
        assert!(!text.is_empty());
        let line = fixture("b_partial")
            .into_iter()
            .find(|l| l["type"] == "result")
            .unwrap();
        assert_eq!(text, line["result"].as_str().unwrap());
    }

    #[test]
    fn tool_call_is_start_then_result() {
        let ev = run("b_partial_tool");
        let names: Vec<&str> = ev.iter().map(ChatEvent::name).collect();
        let start = names.iter().position(|n| *n == "chat:tool_start").unwrap();
        let call = names.iter().position(|n| *n == "chat:tool_call").unwrap();
        assert!(start < call);
        let ChatEvent::ToolCall(c) = &ev[call] else {
            unreachable!()
        };
        assert_eq!(c.name, "Bash");
        assert_eq!(c.output, "all-good");
        assert!(!c.is_error);
        assert_eq!(text_of(&ev), "Bash said: all-good");
        assert!(matches!(ev.last(), Some(ChatEvent::Complete(c)) if c.success));
    }

    #[test]
    fn unstreamed_text_comes_from_the_assistant_line() {
        let ev = run("a_hello");
        assert_eq!(text_of(&ev), "echo: hello");
    }

    #[test]
    fn usage_limits_are_told_apart_from_other_api_errors() {
        assert!(is_usage_limit("You've hit your session limit · resets 3pm"));
        assert!(is_usage_limit(
            "Claude usage limit reached. Your limit will reset at 5pm."
        ));
        assert!(!is_usage_limit("API Error: 529 overloaded"));
    }

    #[test]
    fn api_error_is_a_notice_and_a_failed_complete() {
        let mut any = false;
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/claude-cli-2.1.332/stdout");
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with("i_") || !name.ends_with(".jsonl") {
                continue;
            }
            let lines = fixture(name.trim_end_matches(".jsonl"));
            // Only the stream-json captures (`--output-format json` prints the result alone).
            if lines.first().is_none_or(|l| l["type"] != "system") {
                continue;
            }
            let Some(result) = lines.iter().find(|l| l["type"] == "result") else {
                continue;
            };
            if result["is_error"] != true {
                continue;
            }
            let ev = run(name.trim_end_matches(".jsonl"));
            assert!(
                ev.iter()
                    .any(|e| matches!(e, ChatEvent::Notice(n) if n.kind == NoticeKind::ApiError)),
                "{name}: no api error notice"
            );
            assert!(
                matches!(ev.last(), Some(ChatEvent::Complete(c)) if !c.success && c.error.is_some()),
                "{name}"
            );
            any = true;
        }
        assert!(any, "no failing API error fixture found");
    }

    #[test]
    fn cost_is_per_turn_not_cumulative() {
        let mut t = Translator::new();
        let r = |total: f64| serde_json::json!({"type":"result","is_error":false,"total_cost_usd":total});
        let c1 = t.line(&r(0.5)).events;
        let c2 = t.line(&r(0.75)).events;
        let cost = |ev: &[ChatEvent]| match ev.last() {
            Some(ChatEvent::Complete(c)) => c.cost_usd.unwrap(),
            _ => panic!("no complete"),
        };
        assert!((cost(&c1) - 0.5).abs() < 1e-9);
        assert!((cost(&c2) - 0.25).abs() < 1e-9);
    }
}
