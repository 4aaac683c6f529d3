//! The CLI's stream-json stdout, one decoded line at a time (docs/claude-cli.md §3, §4, §15).
//!
//! Differences between the supported releases are absorbed here or noted where a reader must
//! know them: 2.1.197 puts no `api_message_id` on `stream_event` lines (the message id is only
//! in `message_start`'s `message.id`), echoes the user message after the reply's deltas rather
//! than before them, and writes no `command_lifecycle` lines.

use serde_json::Value;

use super::content::{Message, Usage};
use super::{flag, str_of, string_of, u64_of};

/// One stdout line.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// `parent_tool_use_id`: the line belongs to a subagent's conversation (an Agent tool
    /// call), not to the chat's own.
    pub subagent: bool,
    pub kind: Kind,
}

/// What a stdout line is.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    System(System),
    StreamEvent(StreamEvent),
    Assistant(Assistant),
    User(User),
    Result(TurnResult),
    ControlRequest(ControlRequest),
    ControlResponse,
    /// Another line type (`command_lifecycle`, …), by its `type`.
    Other(String),
}

impl Line {
    /// Decodes a JSON object the CLI printed. Never fails: see the module's tolerance rules.
    pub fn decode(v: &Value) -> Self {
        let subagent = v.get("parent_tool_use_id").is_some_and(|p| !p.is_null());
        let kind = match str_of(v, "type") {
            Some("system") => Kind::System(System::decode(v)),
            Some("stream_event") => Kind::StreamEvent(StreamEvent::decode(v)),
            Some("assistant") => {
                let message = Message::decode(v.get("message"));
                // 2.1.332 flags it; 2.1.197 only names the error (`"error": "server_error"`)
                // on a message of the `<synthetic>` model.
                let synthetic = message.model.as_deref().is_some_and(|m| m.starts_with('<'));
                let is_api_error = flag(v, "is_api_error_message")
                    || flag(v, "isApiErrorMessage")
                    || (synthetic && str_of(v, "error").is_some());
                Kind::Assistant(Assistant {
                    message,
                    is_api_error,
                    uuid: string_of(v, "uuid"),
                })
            }
            Some("user") => {
                let result = v.get("tool_use_result");
                let launched = result.filter(|r| flag(r, "isAsync")).and_then(|r| {
                    Some(Task {
                        id: Some(string_of(r, "agentId")?),
                        description: string_of(r, "description"),
                    })
                });
                Kind::User(User {
                    message: Message::decode(v.get("message")),
                    is_replay: flag(v, "isReplay"),
                    uuid: string_of(v, "uuid"),
                    tool_use_result: result.cloned(),
                    launched,
                })
            }
            Some("result") => Kind::Result(TurnResult::decode(v)),
            Some("control_request") => Kind::ControlRequest(ControlRequest::decode(v)),
            Some("control_response") => Kind::ControlResponse,
            other => Kind::Other(other.unwrap_or("?").to_owned()),
        };
        Self { subagent, kind }
    }

    /// The line's `type`, for the log.
    pub fn type_name(&self) -> &str {
        match &self.kind {
            Kind::System(_) => "system",
            Kind::StreamEvent(_) => "stream_event",
            Kind::Assistant(_) => "assistant",
            Kind::User(_) => "user",
            Kind::Result(_) => "result",
            Kind::ControlRequest(_) => "control_request",
            Kind::ControlResponse => "control_response",
            Kind::Other(t) => t,
        }
    }
}

/// A `system` line, by subtype.
#[derive(Debug, Clone, PartialEq)]
pub enum System {
    /// Begins every turn of a stream-json process.
    Init {
        model: Option<String>,
    },
    ApiRetry {
        attempt: u64,
        max_retries: u64,
        retry_delay_ms: u64,
        /// The HTTP status; `None` for a connection error.
        error_status: Option<u64>,
        error: Option<String>,
    },
    PermissionDenied {
        message: Option<String>,
    },
    CompactBoundary,
    /// The whole list of running background tasks.
    BackgroundTasksChanged {
        tasks: Vec<Task>,
    },
    TaskStarted {
        task: Task,
        is_backgrounded: bool,
    },
    TaskNotification {
        task_id: Option<String>,
        summary: Option<String>,
    },
    /// Another subtype (`status`, `thinking_tokens`, `session_title_changed`, …).
    Other(String),
}

/// A background task as `system` lines name it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Task {
    pub id: Option<String>,
    pub description: Option<String>,
}

impl Task {
    fn decode(v: &Value) -> Self {
        Self {
            id: string_of(v, "task_id"),
            description: string_of(v, "description"),
        }
    }
}

impl System {
    fn decode(v: &Value) -> Self {
        match str_of(v, "subtype") {
            Some("init") => Self::Init {
                model: string_of(v, "model"),
            },
            Some("api_retry") => Self::ApiRetry {
                attempt: u64_of(v, "attempt").unwrap_or(0),
                max_retries: u64_of(v, "max_retries").unwrap_or(0),
                retry_delay_ms: u64_of(v, "retry_delay_ms").unwrap_or(0),
                error_status: u64_of(v, "error_status"),
                error: string_of(v, "error"),
            },
            Some("permission_denied") => Self::PermissionDenied {
                message: string_of(v, "message"),
            },
            Some("compact_boundary") => Self::CompactBoundary,
            Some("background_tasks_changed") => Self::BackgroundTasksChanged {
                tasks: v
                    .get("tasks")
                    .and_then(Value::as_array)
                    .map(|t| t.iter().map(Task::decode).collect())
                    .unwrap_or_default(),
            },
            Some("task_started") => Self::TaskStarted {
                task: Task::decode(v),
                is_backgrounded: flag(v, "is_backgrounded"),
            },
            Some("task_notification") => Self::TaskNotification {
                task_id: string_of(v, "task_id"),
                summary: string_of(v, "summary"),
            },
            other => Self::Other(other.unwrap_or("?").to_owned()),
        }
    }
}

/// A `stream_event` line (with `--include-partial-messages`).
#[derive(Debug, Clone, PartialEq)]
pub struct StreamEvent {
    /// `api_message_id`: on every line from 2.1.198 on; absent in 2.1.197, where only
    /// [`Event::MessageStart`] carries the id.
    pub message_id: Option<String>,
    pub event: Event,
}

/// The API streaming event a `stream_event` line wraps.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `message_start`, with the message's id (`event.message.id`).
    MessageStart {
        message_id: Option<String>,
    },
    TextDelta(String),
    ThinkingDelta(String),
    MessageStop,
    /// Block starts and stops, tool-input and signature deltas, `message_delta`, and event
    /// types not known yet.
    Other,
}

impl StreamEvent {
    fn decode(v: &Value) -> Self {
        let ev = v.get("event").unwrap_or(&Value::Null);
        let delta = ev.get("delta").unwrap_or(&Value::Null);
        let event = match (str_of(ev, "type"), str_of(delta, "type")) {
            (Some("message_start"), _) => Event::MessageStart {
                message_id: ev.get("message").and_then(|m| string_of(m, "id")),
            },
            (Some("content_block_delta"), Some("text_delta")) => match str_of(delta, "text") {
                Some(t) => Event::TextDelta(t.to_owned()),
                None => Event::Other,
            },
            (Some("content_block_delta"), Some("thinking_delta")) => {
                match str_of(delta, "thinking") {
                    Some(t) => Event::ThinkingDelta(t.to_owned()),
                    None => Event::Other,
                }
            }
            (Some("message_stop"), _) => Event::MessageStop,
            _ => Event::Other,
        };
        Self {
            message_id: string_of(v, "api_message_id"),
            event,
        }
    }
}

/// An `assistant` line: one content block of a message (all blocks of one message share its id).
#[derive(Debug, Clone, PartialEq)]
pub struct Assistant {
    pub message: Message,
    /// A synthetic message holding an API error (`<synthetic>` model).
    pub is_api_error: bool,
    /// The uuid of the transcript record the CLI writes for this line (the same in every
    /// supported release).
    pub uuid: Option<String>,
}

/// A `user` line: tool results, an interrupt marker, or the echo of a message written to stdin.
#[derive(Debug, Clone, PartialEq)]
pub struct User {
    pub message: Message,
    /// The echo of our own message (`--replay-user-messages`).
    pub is_replay: bool,
    pub uuid: Option<String>,
    /// The tool's structured result (`tool_use_result`), passed on as is.
    pub tool_use_result: Option<Value>,
    /// The background task an Agent call launched (`tool_use_result.isAsync`, its
    /// `agentId`): the one sign of a background task in every release, since 2.1.197 marks
    /// no `task_started` as backgrounded and prints no `background_tasks_changed`.
    pub launched: Option<Task>,
}

/// The `result` line that ends every turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnResult {
    /// `is_error`; a result without one is taken as failed.
    pub is_error: bool,
    /// `result`: the reply's text, or the error.
    pub result: Option<String>,
    pub errors: Vec<String>,
    /// Cumulative per process, not per turn.
    pub total_cost_usd: Option<f64>,
    pub usage: Option<Usage>,
    /// The context window of the (first) model in `modelUsage`.
    pub context_window: Option<u64>,
    pub terminal_reason: Option<String>,
    pub duration_ms: Option<u64>,
}

impl TurnResult {
    fn decode(v: &Value) -> Self {
        Self {
            is_error: v.get("is_error").and_then(Value::as_bool).unwrap_or(true),
            result: string_of(v, "result"),
            errors: v
                .get("errors")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            total_cost_usd: v.get("total_cost_usd").and_then(Value::as_f64),
            usage: Usage::decode(v.get("usage")),
            context_window: v
                .get("modelUsage")
                .and_then(Value::as_object)
                .and_then(|mu| mu.values().find_map(|m| u64_of(m, "contextWindow"))),
            terminal_reason: string_of(v, "terminal_reason"),
            duration_ms: u64_of(v, "duration_ms"),
        }
    }
}

/// A `control_request` the CLI sends us (docs/claude-cli.md §4, §8).
#[derive(Debug, Clone, PartialEq)]
pub struct ControlRequest {
    /// `None`: nothing can be answered.
    pub request_id: Option<String>,
    pub request: Control,
}

/// What a control request asks.
#[derive(Debug, Clone, PartialEq)]
pub enum Control {
    /// May this tool run with this input (`--permission-prompt-tool stdio`)?
    CanUseTool { tool_name: String, input: Value },
    /// Another subtype, by name.
    Other(String),
}

impl ControlRequest {
    fn decode(v: &Value) -> Self {
        let req = v.get("request").unwrap_or(&Value::Null);
        let request = match str_of(req, "subtype") {
            Some("can_use_tool") => Control::CanUseTool {
                tool_name: string_of(req, "tool_name").unwrap_or_default(),
                input: req.get("input").cloned().unwrap_or(Value::Null),
            },
            other => Control::Other(other.unwrap_or("?").to_owned()),
        };
        Self {
            request_id: string_of(v, "request_id"),
            request,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;
    use std::path::Path;

    /// Every capture of every supported release decodes, and no line of a known type is read
    /// as another.
    #[test]
    fn every_captured_line_of_every_release_decodes_to_its_type() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let mut lines = 0;
        for release in std::fs::read_dir(&root).unwrap().flatten() {
            let stdout = release.path().join("stdout");
            let Ok(files) = std::fs::read_dir(&stdout) else {
                continue;
            };
            for f in files.flatten() {
                if f.path().extension().is_none_or(|e| e != "jsonl") {
                    continue;
                }
                let text = std::fs::read_to_string(f.path()).unwrap();
                for l in text.lines() {
                    let Ok(v) = serde_json::from_str::<Value>(l) else {
                        continue;
                    };
                    let line = Line::decode(&v);
                    assert_eq!(
                        line.type_name(),
                        v["type"].as_str().unwrap_or("?"),
                        "{}: {l:.200}",
                        f.path().display()
                    );
                    lines += 1;
                }
            }
        }
        assert!(lines > 400, "only {lines} captured lines");
    }

    #[test]
    fn the_message_id_of_a_stream_comes_from_either_release() {
        let new = Line::decode(&json!({"type":"stream_event","api_message_id":"msg_1",
            "event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"hi"}}}));
        let Kind::StreamEvent(e) = new.kind else {
            panic!()
        };
        assert_eq!(e.message_id.as_deref(), Some("msg_1"));
        assert_eq!(e.event, Event::TextDelta("hi".into()));
        let old = Line::decode(&json!({"type":"stream_event",
            "event":{"type":"message_start","message":{"id":"msg_2","content":[]}}}));
        let Kind::StreamEvent(e) = old.kind else {
            panic!()
        };
        assert_eq!(e.message_id, None);
        assert_eq!(
            e.event,
            Event::MessageStart {
                message_id: Some("msg_2".into())
            }
        );
    }

    #[test]
    fn an_api_error_message_of_either_release_is_one() {
        let new = json!({"type":"assistant","is_api_error_message":true,"error":"server_error",
            "message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error: 500"}]}});
        let old = json!({"type":"assistant","error":"server_error","uuid":"u",
            "message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error: 500"}]}});
        let reply = json!({"type":"assistant","message":{"model":"claude-x","content":[]}});
        let is_error =
            |v: &Value| matches!(Line::decode(v).kind, Kind::Assistant(a) if a.is_api_error);
        assert!(is_error(&new));
        assert!(is_error(&old));
        assert!(!is_error(&reply));
    }

    #[test]
    fn unknown_types_and_wrong_field_types_are_tolerated() {
        let l = Line::decode(&json!({"type":"command_lifecycle","x":1}));
        assert_eq!(l.kind, Kind::Other("command_lifecycle".into()));
        let l = Line::decode(&json!({"no_type": true}));
        assert_eq!(l.kind, Kind::Other("?".into()));
        let l = Line::decode(&json!({"type":"system","subtype":"brand_new"}));
        assert_eq!(l.kind, Kind::System(System::Other("brand_new".into())));
        // A result with fields of odd types still ends the turn, as failed without is_error.
        let l = Line::decode(&json!({"type":"result","is_error":"yes","usage":5,"errors":[1,"e"]}));
        let Kind::Result(r) = l.kind else { panic!() };
        assert!(r.is_error);
        assert_eq!(r.usage, None);
        assert_eq!(r.errors, vec!["e".to_owned()]);
        let l = Line::decode(&json!({"type":"assistant","parent_tool_use_id":"tu","message":"x"}));
        assert!(l.subagent);
        assert!(matches!(l.kind, Kind::Assistant(a) if a.message == Message::default()));
        let l = Line::decode(&json!({"type":"control_request","request":{"subtype":"hook"}}));
        assert_eq!(
            l.kind,
            Kind::ControlRequest(ControlRequest {
                request_id: None,
                request: Control::Other("hook".into())
            })
        );
    }
}
