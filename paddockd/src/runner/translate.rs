//! Translates the CLI's stream-json stdout (docs/claude-cli.md §3), decoded by
//! [`claude_format::stdout`](crate::claude_format::stdout), into chat frames.
//!
//! Text arrives as `stream_event` deltas; the complete `assistant` line that follows each
//! block is used only for what the deltas did not carry (tool inputs, synthetic API error
//! messages, a block that streamed nothing). Unknown types and subtypes are ignored.

use std::collections::{HashMap, HashSet};

use paddock_proto::{
    ChatEvent, Complete, Ended, MessageBoundary, Notice, NoticeKind, TextDelta, ToolCall,
    ToolStart, Usage,
};
use serde_json::Value;

use crate::claude_format::content::{Block, Content};
use crate::claude_format::stdout::{
    Assistant, Event, Kind, Line, StreamEvent, System, TurnResult, User,
};
use crate::claude_format::transcript::{interrupted_words, is_interrupt_marker, readable_errors};

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
    /// The id of the message being streamed, from its `message_start`: 2.1.197 names it
    /// nowhere else in the stream.
    streaming: Option<String>,
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

    /// Translates one decoded line.
    pub fn line(&mut self, line: &Line) -> Translated {
        let mut out = Translated::default();
        // Subagent traffic (parent_tool_use_id set) belongs to the Agent tool call, not the chat.
        if line.subagent {
            return out;
        }
        match &line.kind {
            Kind::System(s) => self.system(s, &mut out),
            Kind::StreamEvent(e) => self.stream_event(e, &mut out),
            Kind::Assistant(a) => self.assistant(a, &mut out),
            Kind::User(u) => self.user(u, &mut out),
            Kind::Result(r) => self.result(r, &mut out),
            _ => {}
        }
        out
    }

    fn system(&mut self, s: &System, out: &mut Translated) {
        match s {
            System::Init { model: Some(m) } => self.model = Some(m.clone()),
            System::ApiRetry {
                attempt,
                max_retries,
                retry_delay_ms,
                error_status,
                error,
            } => {
                let status =
                    error_status.map_or_else(|| "connection".to_owned(), |s| s.to_string());
                let what = error.as_deref().unwrap_or("error");
                out.events.push(notice(
                    NoticeKind::Retrying,
                    format!(
                        "API {status} ({what}); retry {attempt} of {max_retries} in {:.1} s",
                        *retry_delay_ms as f64 / 1000.0
                    ),
                ));
            }
            System::PermissionDenied { message } => {
                let msg = message.as_deref().unwrap_or("a tool call was denied");
                out.events
                    .push(notice(NoticeKind::PermissionDenied, msg.to_owned()));
            }
            System::CompactBoundary => {
                out.events
                    .push(notice(NoticeKind::Info, "context compacted".to_owned()));
            }
            _ => {}
        }
    }

    fn stream_event(&mut self, e: &StreamEvent, out: &mut Translated) {
        if let Event::MessageStart { message_id } = &e.event {
            self.streaming = message_id.clone().or_else(|| e.message_id.clone());
            return;
        }
        // The line's own id where the release writes one, else the one its message started with.
        let msg_id = e.message_id.clone().or_else(|| self.streaming.clone());
        match &e.event {
            Event::TextDelta(t) => {
                self.mark_streamed(msg_id);
                out.events
                    .push(ChatEvent::Response(TextDelta { text: t.clone() }));
            }
            Event::ThinkingDelta(t) => {
                self.mark_streamed(msg_id);
                out.events
                    .push(ChatEvent::Thinking(TextDelta { text: t.clone() }));
            }
            Event::MessageStop => {
                self.streaming = None;
                out.events.push(ChatEvent::MessageBoundary(MessageBoundary {
                    message_id: msg_id,
                }));
            }
            _ => {}
        }
    }

    fn mark_streamed(&mut self, msg_id: Option<String>) {
        if let Some(id) = msg_id {
            self.streamed.insert(id);
        }
    }

    fn assistant(&mut self, a: &Assistant, out: &mut Translated) {
        let streamed = a
            .message
            .id
            .as_ref()
            .is_some_and(|id| self.streamed.contains(id));
        for b in a.message.content.blocks() {
            match b {
                Block::ToolUse { id, name, input } => {
                    self.tools.insert(id.clone(), (name.clone(), input.clone()));
                    out.events.push(ChatEvent::ToolStart(ToolStart {
                        tool_use_id: id,
                        name,
                        input,
                    }));
                }
                Block::Text(text) if a.is_api_error => {
                    let kind = if is_usage_limit(&text) {
                        NoticeKind::UsageLimit
                    } else {
                        NoticeKind::ApiError
                    };
                    out.events.push(notice(kind, text));
                }
                Block::Text(text) if !streamed => {
                    out.events.push(ChatEvent::Response(TextDelta { text }));
                }
                _ => {}
            }
        }
    }

    fn user(&mut self, u: &User, out: &mut Translated) {
        // Our own prompt echoed back (`--replay-user-messages`): the daemon already sent
        // `chat:user` when it wrote the message.
        if u.is_replay {
            return;
        }
        match &u.message.content {
            Content::Blocks(blocks) => {
                for b in blocks {
                    match b {
                        Block::ToolResult {
                            tool_use_id,
                            output,
                            is_error,
                        } => {
                            let (name, input) = self.tools.remove(tool_use_id).unwrap_or_default();
                            let mut output = output.clone();
                            truncate(&mut output, MAX_TOOL_OUTPUT);
                            out.events.push(ChatEvent::ToolCall(ToolCall {
                                tool_use_id: tool_use_id.clone(),
                                name,
                                input,
                                output,
                                is_error: *is_error,
                                detail: u.tool_use_result.as_ref().filter(|d| small(d)).cloned(),
                            }));
                        }
                        Block::Text(t) => interrupt_marker(t, out),
                        _ => {}
                    }
                }
            }
            Content::Text(s) => interrupt_marker(s, out),
            Content::None => {}
        }
    }

    fn result(&mut self, r: &TurnResult, out: &mut Translated) {
        let cost = r.total_cost_usd.map(|t| (t - self.cost_so_far).max(0.0));
        if let Some(t) = r.total_cost_usd {
            self.cost_so_far = t;
        }
        self.context_window = r.context_window.or(self.context_window);
        let usage = r.usage.map(|u| Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cache_creation_input_tokens: u.cache_creation_input_tokens,
            cache_read_input_tokens: u.cache_read_input_tokens,
            context_tokens: None,
            context_window: self.context_window,
        });
        let error = r.is_error.then(|| match r.result.as_deref() {
            Some(res) if !res.is_empty() => res.to_owned(),
            _ => readable_errors(&r.errors).unwrap_or_else(|| match r.terminal_reason.as_deref() {
                Some(t) if t.starts_with("aborted") => {
                    "the turn was stopped before it finished".to_owned()
                }
                Some(t) => t.replace('_', " "),
                None => "the turn failed".to_owned(),
            }),
        });
        out.events.push(ChatEvent::Complete(Complete {
            success: !r.is_error,
            ended: Some(if r.is_error {
                Ended::Failed
            } else {
                Ended::Done
            }),
            error,
            model: self.model.clone(),
            usage,
            cost_usd: cost,
            duration_ms: r.duration_ms,
            terminal_reason: r.terminal_reason.clone(),
        }));
        out.turn_over = true;
        out.failed = r.is_error;
        self.streamed.clear();
        self.streaming = None;
    }
}

fn interrupt_marker(text: &str, out: &mut Translated) {
    if is_interrupt_marker(text) {
        out.events.push(notice(
            NoticeKind::Interrupted,
            interrupted_words(text).to_owned(),
        ));
    }
}

fn notice(kind: NoticeKind, message: String) -> ChatEvent {
    ChatEvent::Notice(Notice { kind, message })
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

    /// The supported releases whose captures the tests read.
    const RELEASES: [&str; 2] = ["2.1.197", "2.1.332"];

    fn fixture(name: &str) -> Vec<Value> {
        fixture_of("2.1.332", name)
    }

    fn fixture_of(release: &str, name: &str) -> Vec<Value> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../tests/fixtures/claude-cli-{release}/stdout"))
            .join(format!("{name}.jsonl"));
        let text = std::fs::read_to_string(&p).expect("tests/fixtures holds the CLI captures");
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    fn run(name: &str) -> Vec<ChatEvent> {
        translate(&fixture(name))
    }

    fn translate(lines: &[Value]) -> Vec<ChatEvent> {
        let mut t = Translator::new();
        lines
            .iter()
            .flat_map(|l| t.line(&Line::decode(l)).events)
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

    /// With every release: 2.1.197 names the streamed message only in `message_start`.
    #[test]
    fn streamed_text_is_not_doubled() {
        for release in RELEASES {
            let lines = fixture_of(release, "b_partial");
            let ev = translate(&lines);
            let complete = ev
                .iter()
                .filter(|e| matches!(e, ChatEvent::Complete(_)))
                .count();
            assert_eq!(complete, 1, "{release}");
            let text = text_of(&ev);
            assert!(!text.is_empty(), "{release}");
            let line = lines.into_iter().find(|l| l["type"] == "result").unwrap();
            assert_eq!(text, line["result"].as_str().unwrap(), "{release}");
            let boundary = ev.iter().find_map(|e| match e {
                ChatEvent::MessageBoundary(b) => Some(b.message_id.clone()),
                _ => None,
            });
            assert!(
                boundary.flatten().is_some_and(|id| id.starts_with("msg_")),
                "{release}: the boundary names the message"
            );
        }
    }

    #[test]
    fn tool_call_is_start_then_result() {
        for release in RELEASES {
            let lines = fixture_of(release, "b_partial_tool");
            let ev = translate(&lines);
            let names: Vec<&str> = ev.iter().map(ChatEvent::name).collect();
            let start = names.iter().position(|n| *n == "chat:tool_start").unwrap();
            let call = names.iter().position(|n| *n == "chat:tool_call").unwrap();
            assert!(start < call, "{release}");
            let ChatEvent::ToolCall(c) = &ev[call] else {
                unreachable!()
            };
            assert_eq!(c.name, "Bash", "{release}");
            assert_eq!(c.output, "all-good", "{release}");
            assert!(!c.is_error, "{release}");
            let result = lines.iter().find(|l| l["type"] == "result").unwrap();
            assert_eq!(
                text_of(&ev),
                result["result"].as_str().unwrap(),
                "{release}: once"
            );
            assert!(matches!(ev.last(), Some(ChatEvent::Complete(c)) if c.success));
        }
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
        for release in RELEASES {
            api_errors_of(release);
        }
    }

    fn api_errors_of(release: &str) {
        let mut any = false;
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../tests/fixtures/claude-cli-{release}/stdout"));
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with("i_") || !name.ends_with(".jsonl") {
                continue;
            }
            let lines = fixture_of(release, name.trim_end_matches(".jsonl"));
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
            let ev = translate(&lines);
            assert!(
                ev.iter()
                    .any(|e| matches!(e, ChatEvent::Notice(n) if n.kind == NoticeKind::ApiError)),
                "{release} {name}: no api error notice"
            );
            assert!(
                matches!(ev.last(), Some(ChatEvent::Complete(c)) if !c.success && c.error.is_some()),
                "{release} {name}"
            );
            any = true;
        }
        assert!(any, "{release}: no failing API error fixture found");
    }

    #[test]
    fn cost_is_per_turn_not_cumulative() {
        let mut t = Translator::new();
        let r = |total: f64| serde_json::json!({"type":"result","is_error":false,"total_cost_usd":total});
        let c1 = t.line(&Line::decode(&r(0.5))).events;
        let c2 = t.line(&Line::decode(&r(0.75))).events;
        let cost = |ev: &[ChatEvent]| match ev.last() {
            Some(ChatEvent::Complete(c)) => c.cost_usd.unwrap(),
            _ => panic!("no complete"),
        };
        assert!((cost(&c1) - 0.5).abs() < 1e-9);
        assert!((cost(&c2) - 0.25).abs() < 1e-9);
    }
}
