//! What the stand-in answers: the directive found in the last user message, turned into the
//! SSE frames of one streamed message (or an error status).

use std::time::Duration;

use serde_json::{Value, json};

use super::http::Frame;
use crate::text::{short_id, split_chunks};

/// Spacing of `mock:slow` deltas.
const SLOW_DELTA_SPACING: Duration = Duration::from_millis(200);

/// The Anthropic error `type` for an HTTP status.
pub(super) fn error_type(status: u16) -> &'static str {
    match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    }
}

pub(super) enum Reply {
    Stream(Vec<Frame>),
    /// An HTTP error with an Anthropic-style body; `retry_after` adds that header (seconds).
    Error {
        status: u16,
        retry_after: Option<u32>,
    },
    /// Waits, then sends the inner reply (`mock:hang`).
    Delayed(Duration, Box<Reply>),
    /// Sends these frames, then drops the connection without ending the stream (`mock:broken`).
    Broken(Vec<Frame>),
}

/// A rough token count: a quarter of the body's JSON length.
pub(super) fn estimate_tokens(body: &Value) -> u64 {
    (body.to_string().len() as u64 / 4).max(1)
}

/// What the last user message asks for.
#[derive(Debug, PartialEq)]
enum Directive {
    Echo(String),
    ToolSaid(String),
    Tool {
        name: String,
        input: Value,
    },
    Slow(u32),
    Error(u16),
    /// Fails the first `times` attempts of this message with `status`, then echoes.
    Fail {
        status: u16,
        times: u32,
        text: String,
    },
    /// Cuts the first attempt's stream after one delta, then echoes.
    Broken,
    /// Waits this many seconds before answering.
    Hang(u64),
    /// A text block `Running it.`, then a tool call.
    TextTool {
        name: String,
        input: Value,
    },
    Thinking,
}

/// Picks the reply from the last `user` message of a Messages API request body.
fn directive_for(body: &Value) -> Directive {
    let last_user = body["messages"]
        .as_array()
        .and_then(|msgs| msgs.iter().rev().find(|m| m["role"] == "user"));
    let Some(last_user) = last_user else {
        return Directive::Echo(String::new());
    };
    let content = &last_user["content"];
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            let results: Vec<String> = blocks
                .iter()
                .filter(|b| b["type"] == "tool_result")
                .map(|b| tool_result_text(&b["content"]))
                .collect();
            if !results.is_empty() {
                return Directive::ToolSaid(results.join("\n"));
            }
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect();
            texts
                .iter()
                .rev()
                .find(|t| !t.trim_start().starts_with("<system-reminder>"))
                .or(texts.last())
                .map(|t| (*t).to_owned())
                .unwrap_or_default()
        }
        _ => String::new(),
    };
    parse_directive(&text)
}

fn tool_result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn parse_directive(text: &str) -> Directive {
    let trimmed = text.trim();
    let Some(rest) = trimmed.strip_prefix("mock:") else {
        return Directive::Echo(text.to_owned());
    };
    let rest = rest.trim_start();
    let (cmd, args) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(c, a)| (c, a.trim()));
    match cmd {
        "tool" | "text-tool" => {
            let (name, input) = args
                .split_once(char::is_whitespace)
                .map_or((args, ""), |(n, i)| (n, i.trim()));
            // The JSON value after the name; text after it (a hook's event line) is ignored.
            let input = if input.is_empty() {
                Ok(json!({}))
            } else {
                serde_json::Deserializer::from_str(input)
                    .into_iter::<Value>()
                    .next()
                    .unwrap_or(Ok(json!({})))
            };
            match input {
                Ok(input) if !name.is_empty() && cmd == "tool" => Directive::Tool {
                    name: name.to_owned(),
                    input,
                },
                Ok(input) if !name.is_empty() => Directive::TextTool {
                    name: name.to_owned(),
                    input,
                },
                _ => Directive::Echo(format!("mock: bad tool directive: {args}")),
            }
        }
        "slow" => Directive::Slow(args.parse().unwrap_or(10)),
        "error" => Directive::Error(args.parse().unwrap_or(500)),
        "fail" => {
            let mut words = args.split_whitespace();
            let status = words.next().and_then(|w| w.parse().ok()).unwrap_or(529);
            let times = words.next().and_then(|w| w.parse().ok()).unwrap_or(1);
            let text = words.collect::<Vec<_>>().join(" ");
            Directive::Fail {
                status,
                times,
                text,
            }
        }
        "broken" => Directive::Broken,
        "hang" => Directive::Hang(args.parse().unwrap_or(30)),
        "thinking" => Directive::Thinking,
        "loop-spawn" if !args.is_empty() => Directive::Tool {
            name: "mcp__paddock_manage__create_chat".into(),
            input: json!({"prompt": format!("mock:loop-back {args}")}),
        },
        "loop-back" if !args.is_empty() => Directive::Tool {
            name: "mcp__paddock_manage__send_message".into(),
            input: json!({"sessionId": args, "message": format!("mock:loop-spawn {args}")}),
        },
        _ => Directive::Echo(text.to_owned()),
    }
}

/// What identifies repeated attempts of one request (`mock:fail`, `mock:broken`): the last
/// user message, which a retry sends unchanged.
pub(super) fn attempt_key(body: &Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|msgs| msgs.iter().rev().find(|m| m["role"] == "user"))
        .map(|m| m["content"].to_string())
        .unwrap_or_default()
}

/// Builds the SSE frames (or error) for a request body; `attempt` counts earlier requests
/// with the same [`attempt_key`] (0 for the first).
pub(super) fn choose_reply(body: &Value, attempt: u32) -> Reply {
    let model = body["model"]
        .as_str()
        .unwrap_or("claude-opus-5-5")
        .to_owned();
    let mut msg = SseMessage::new(&model, estimate_tokens(body));
    match directive_for(body) {
        Directive::Error(status) => {
            return Reply::Error {
                status,
                retry_after: None,
            };
        }
        Directive::Fail {
            status,
            times,
            text,
        } => {
            if attempt < times {
                return Reply::Error {
                    status,
                    retry_after: (status == 429).then_some(1),
                };
            }
            let text = if text.is_empty() {
                "ok after failures".to_owned()
            } else {
                text
            };
            msg.text(&text, 3, Duration::ZERO);
        }
        Directive::Broken => {
            let text = "answer after a broken stream";
            if attempt == 0 {
                let mut frames = msg.frames;
                frames.push(frame(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ));
                frames.push(frame(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "answer a"}}),
                ));
                return Reply::Broken(frames);
            }
            msg.text(text, 4, Duration::ZERO);
        }
        Directive::Hang(secs) => {
            msg.text(&format!("echo: waited {secs}s"), 3, Duration::ZERO);
            return Reply::Delayed(
                Duration::from_secs(secs),
                Box::new(Reply::Stream(msg.finish("end_turn"))),
            );
        }
        Directive::TextTool { name, input } => {
            msg.text("Running it.", 1, Duration::ZERO);
            msg.tool_use(&name, &input);
            return Reply::Stream(msg.finish("tool_use"));
        }
        Directive::Echo(text) => msg.text(&format!("echo: {text}"), 3, Duration::ZERO),
        Directive::ToolSaid(text) => msg.text(&format!("tool said: {text}"), 3, Duration::ZERO),
        Directive::Slow(n) => {
            let n = n.max(1);
            let text: String = (1..=n).map(|i| format!("tick{i} ")).collect();
            msg.text(&text, n as usize, SLOW_DELTA_SPACING);
        }
        Directive::Thinking => {
            msg.thinking("Let me think about this. The answer is simple.");
            msg.text("thought about it", 3, Duration::ZERO);
        }
        Directive::Tool { name, input } => {
            msg.tool_use(&name, &input);
            return Reply::Stream(msg.finish("tool_use"));
        }
    }
    Reply::Stream(msg.finish("end_turn"))
}

/// Accumulates the SSE frames of one streamed message.
struct SseMessage {
    frames: Vec<Frame>,
    index: usize,
    output_tokens: u64,
}

impl SseMessage {
    fn new(model: &str, input_tokens: u64) -> Self {
        let start = json!({"type": "message_start", "message": {
            "id": format!("msg_mock_{}", short_id()), "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "service_tier": "standard"}}});
        let frames = vec![
            frame("message_start", start),
            frame("ping", json!({"type": "ping"})),
        ];
        Self {
            frames,
            index: 0,
            output_tokens: 1,
        }
    }

    fn block(&mut self, start: Value, deltas: Vec<(Duration, Value)>) {
        let index = self.index;
        self.frames.push(frame(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for (delay, delta) in deltas {
            self.output_tokens += 1;
            self.frames.push(Frame {
                delay,
                event: "content_block_delta",
                data: json!({"type": "content_block_delta", "index": index, "delta": delta}),
            });
        }
        self.frames.push(frame(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        self.index += 1;
    }

    fn text(&mut self, text: &str, pieces: usize, spacing: Duration) {
        let deltas = split_chunks(text, pieces)
            .into_iter()
            .map(|t| (spacing, json!({"type": "text_delta", "text": t})))
            .collect();
        self.block(json!({"type": "text", "text": ""}), deltas);
    }

    fn thinking(&mut self, thinking: &str) {
        let mut deltas: Vec<(Duration, Value)> = split_chunks(thinking, 2)
            .into_iter()
            .map(|t| {
                (
                    Duration::ZERO,
                    json!({"type": "thinking_delta", "thinking": t}),
                )
            })
            .collect();
        deltas.push((
            Duration::ZERO,
            json!({"type": "signature_delta", "signature": format!("mocksig{}", short_id())}),
        ));
        self.block(
            json!({"type": "thinking", "thinking": "", "signature": ""}),
            deltas,
        );
    }

    fn tool_use(&mut self, name: &str, input: &Value) {
        let deltas = split_chunks(&input.to_string(), 3)
            .into_iter()
            .map(|p| {
                (
                    Duration::ZERO,
                    json!({"type": "input_json_delta", "partial_json": p}),
                )
            })
            .collect();
        self.block(
            json!({"type": "tool_use", "id": format!("toolu_mock_{}", short_id()), "name": name, "input": {}}),
            deltas,
        );
    }

    fn finish(mut self, stop_reason: &str) -> Vec<Frame> {
        self.frames.push(frame(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                   "usage": {"output_tokens": self.output_tokens}}),
        ));
        self.frames
            .push(frame("message_stop", json!({"type": "message_stop"})));
        self.frames
    }
}

fn frame(event: &'static str, data: Value) -> Frame {
    Frame {
        delay: Duration::ZERO,
        event,
        data,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn body_with(content: Value) -> Value {
        json!({"model": "m", "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
            {"role": "system", "content": "env block"},
            {"role": "user", "content": content}]})
    }

    #[test]
    fn directives_come_from_the_last_user_message() {
        assert_eq!(
            directive_for(&body_with(json!("hello"))),
            Directive::Echo("hello".into())
        );
        assert_eq!(
            directive_for(&body_with(json!([
                {"type": "text", "text": "real text"},
                {"type": "text", "text": "<system-reminder>\nnoise\n</system-reminder>"}]))),
            Directive::Echo("real text".into())
        );
        assert_eq!(
            directive_for(&body_with(
                json!([{"type": "tool_result", "tool_use_id": "t", "content": "all-good"}])
            )),
            Directive::ToolSaid("all-good".into())
        );
        assert_eq!(
            directive_for(&body_with(
                json!([{"type": "tool_result", "tool_use_id": "t",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
            )),
            Directive::ToolSaid("a\nb".into())
        );
    }

    #[test]
    fn directive_parser_is_tolerant() {
        assert_eq!(parse_directive("  mock:slow 7 \n"), Directive::Slow(7));
        assert_eq!(parse_directive("mock: error 529"), Directive::Error(529));
        assert_eq!(parse_directive("mock:thinking"), Directive::Thinking);
        assert_eq!(parse_directive("mock:hang 5"), Directive::Hang(5));
        assert_eq!(parse_directive("mock:broken"), Directive::Broken);
        assert_eq!(
            parse_directive("mock:fail 429 1 ok after 429"),
            Directive::Fail {
                status: 429,
                times: 1,
                text: "ok after 429".into()
            }
        );
        assert_eq!(
            parse_directive("mock:text-tool Bash {}"),
            Directive::TextTool {
                name: "Bash".into(),
                input: json!({})
            }
        );
        assert_eq!(
            parse_directive("mock:tool Bash {\"command\": \"echo all-good\"}"),
            Directive::Tool {
                name: "Bash".into(),
                input: json!({"command": "echo all-good"})
            }
        );
        assert_eq!(
            parse_directive("mock:tool Bash {\"command\": \"ls\"}\n\nEvent: a turn completed."),
            Directive::Tool {
                name: "Bash".into(),
                input: json!({"command": "ls"})
            },
            "a hook's event line after the JSON"
        );
        assert_eq!(
            parse_directive("mock:loop-spawn s1"),
            Directive::Tool {
                name: "mcp__paddock_manage__create_chat".into(),
                input: json!({"prompt": "mock:loop-back s1"})
            }
        );
        assert_eq!(
            parse_directive("mock:loop-back s1"),
            Directive::Tool {
                name: "mcp__paddock_manage__send_message".into(),
                input: json!({"sessionId": "s1", "message": "mock:loop-spawn s1"})
            }
        );
        assert!(matches!(
            parse_directive("mock:tool Bash {oops"),
            Directive::Echo(_)
        ));
    }
}
