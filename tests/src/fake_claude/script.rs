//! The scripted behaviour of one `fake-claude` turn.
//!
//! A user message whose text starts with `fake:` carries a JSON array of steps after the prefix;
//! any other text gets the single step `{"text": "echo: <text>", "chunks": 3}`.
//!
//! | step | effect |
//! |---|---|
//! | `{"text":"…","chunks":N,"delay_ms":D}` | a streamed text block (N deltas, D ms before each) |
//! | `{"thinking":"…","chunks":N,"delay_ms":D}` | a streamed thinking block with a signature |
//! | `{"tool":"Bash","input":{…},"output":"…","is_error":false,"ask":false,"delay_ms":D,"hang":false,"tool_use_result":…}` | a `tool_use` block ending the API message, then the `user` tool_result line. `ask` first sends `can_use_tool` and waits for the host (skipped when `--allowedTools` names the tool or a matching `prefix*`; without `--permission-prompt-tool stdio` the tool is refused with `system/permission_denied`); `delay_ms`/`hang` make the tool run for a while / until interrupted; `"run":"CMD"` then runs `sh -c CMD` in the working directory for real (and waits for it) before the result, so the tool's effect is on disk (e.g. a `Write` whose file appears); `"id":"toolu_…"` sets the `tool_use` id |
//! | `{"background":"DESCRIPTION","prompt":"…","delay_ms":D,"reply":"…","reply_delay_ms":R,"id":"toolu_…"}` | an `Agent` call with `run_in_background: true`, as the real CLI prints it (docs/claude-cli.md §12): the `tool_use` block ending the API message, `system/background_tasks_changed`, `system/task_started {is_backgrounded: true}`, and at once the async `tool_result` (`tool_use_result.isAsync`); the turn goes on to its `result`. D ms later (the subagent "runs") the process prints, with no new user message, `task_updated`, `task_notification`, `background_tasks_changed` (the tasks left), then ONE MORE TURN: `system/init`, the streamed `reply` (default `background done: DESCRIPTION`; R ms before each of its 3 chunks, interruptible) and a second `result`. The process does not exit (`-p`, or stdin closed) before such a turn has run. `"ask":"TOOL"`: when the task finishes, before its lines, the subagent asks `can_use_tool` for TOOL (no turn runs then) and waits for the host; the reply then ends with ` [TOOL: allow]` or ` [TOOL: deny]` |
//! | `{"retry":529}` | a `system/api_retry` line |
//! | `{"api_error":529,"message":"…"}` | synthetic API-error assistant line; the turn ends (`is_error:true`, `terminal_reason:"api_error"`) |
//! | `{"sleep_ms":N}` | wait (interruptible) |
//! | `{"hang":true}` | wait until interrupted or killed |
//! | `{"crash":CODE}` | exit at once with CODE, no result |
//! | `{"garbage":"TEXT"}` | TEXT as a raw stdout line |
//! | `{"long_line":N}` | one stream-json line of N bytes (newline excluded): a `system` line of an unknown subtype padded with `x` |
//! | `{"child":"CMD"}` | spawn `sh -c CMD` in fake-claude's process group and go on |
//! | `{"stderr":"TEXT"}` | TEXT on stderr |

use serde_json::Value;

/// Prefix of a scripted user message.
pub const SCRIPT_PREFIX: &str = "fake:";

/// Chunks of the default echo reply.
pub const DEFAULT_CHUNKS: usize = 3;

/// One scripted step.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Text {
        text: String,
        chunks: usize,
        delay_ms: u64,
    },
    Thinking {
        thinking: String,
        chunks: usize,
        delay_ms: u64,
    },
    Tool(ToolStep),
    Background(BackgroundStep),
    Retry {
        status: u16,
    },
    ApiError {
        status: u16,
        message: String,
    },
    Sleep {
        ms: u64,
    },
    Hang,
    Crash {
        code: i32,
    },
    Garbage {
        text: String,
    },
    LongLine {
        bytes: usize,
    },
    Child {
        command: String,
    },
    Stderr {
        text: String,
    },
}

/// A scripted tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolStep {
    pub name: String,
    pub input: Value,
    pub output: String,
    pub is_error: bool,
    pub ask: bool,
    /// How long the tool "runs" before its result.
    pub delay_ms: u64,
    /// The tool never finishes on its own.
    pub hang: bool,
    /// Overrides the `tool_use_result` value of the result line.
    pub tool_use_result: Option<Value>,
    /// A shell command run for real before the result (the tool's effect on disk).
    pub run: Option<String>,
    /// The `tool_use` id (default: a new `toolu_fake_…`).
    pub id: Option<String>,
}

/// A scripted background Agent call.
#[derive(Debug, Clone, PartialEq)]
pub struct BackgroundStep {
    pub description: String,
    pub prompt: String,
    /// How long the subagent "runs" before its notification.
    pub delay_ms: u64,
    /// The text of the turn that reports it.
    pub reply: String,
    /// Pause before each chunk of the reply.
    pub reply_delay_ms: u64,
    /// The `tool_use` id (default: a new `toolu_fake_…`).
    pub id: Option<String>,
    /// A tool the subagent asks permission for when it finishes.
    pub ask: Option<String>,
}

/// The steps for a user message text.
pub fn steps_for(text: &str) -> Result<Vec<Step>, String> {
    match text.trim_start().strip_prefix(SCRIPT_PREFIX) {
        Some(script) => parse_steps(script),
        None => Ok(vec![Step::Text {
            text: format!("echo: {text}"),
            chunks: DEFAULT_CHUNKS,
            delay_ms: 0,
        }]),
    }
}

/// Parses a JSON array of steps.
pub fn parse_steps(script: &str) -> Result<Vec<Step>, String> {
    let value: Value = serde_json::from_str(script.trim())
        .map_err(|e| format!("fake: script is not JSON: {e}"))?;
    let steps = value
        .as_array()
        .ok_or_else(|| "fake: script must be a JSON array of steps".to_owned())?;
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| parse_step(s).map_err(|e| format!("fake: step {i}: {e}")))
        .collect()
}

fn parse_step(step: &Value) -> Result<Step, String> {
    let obj = step
        .as_object()
        .ok_or_else(|| format!("not an object: {step}"))?;
    let str_of = |key: &str| obj.get(key).and_then(Value::as_str).map(str::to_owned);
    let u64_of = |key: &str| obj.get(key).and_then(Value::as_u64);
    let chunks = u64_of("chunks")
        .map_or(DEFAULT_CHUNKS, |n| {
            usize::try_from(n).unwrap_or(DEFAULT_CHUNKS)
        })
        .max(1);
    let delay_ms = u64_of("delay_ms").unwrap_or(0);
    let status_of = |key: &str| -> Result<u16, String> {
        u64_of(key)
            .and_then(|n| u16::try_from(n).ok())
            .ok_or_else(|| format!("{key} needs an HTTP status number"))
    };

    if let Some(text) = str_of("text") {
        return Ok(Step::Text {
            text,
            chunks,
            delay_ms,
        });
    }
    if let Some(thinking) = str_of("thinking") {
        return Ok(Step::Thinking {
            thinking,
            chunks,
            delay_ms,
        });
    }
    if let Some(name) = str_of("tool") {
        return Ok(Step::Tool(ToolStep {
            name,
            input: obj
                .get("input")
                .cloned()
                .unwrap_or_else(|| Value::Object(Default::default())),
            output: str_of("output").unwrap_or_default(),
            is_error: obj
                .get("is_error")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            ask: obj.get("ask").and_then(Value::as_bool).unwrap_or(false),
            delay_ms,
            hang: obj.get("hang").and_then(Value::as_bool).unwrap_or(false),
            tool_use_result: obj.get("tool_use_result").cloned(),
            run: str_of("run"),
            id: str_of("id"),
        }));
    }
    if let Some(description) = str_of("background") {
        return Ok(Step::Background(BackgroundStep {
            prompt: str_of("prompt").unwrap_or_else(|| format!("subagent task: {description}")),
            reply: str_of("reply").unwrap_or_else(|| format!("background done: {description}")),
            reply_delay_ms: u64_of("reply_delay_ms").unwrap_or(0),
            delay_ms,
            id: str_of("id"),
            ask: str_of("ask"),
            description,
        }));
    }
    if obj.contains_key("retry") {
        return Ok(Step::Retry {
            status: status_of("retry")?,
        });
    }
    if obj.contains_key("api_error") {
        let status = status_of("api_error")?;
        return Ok(Step::ApiError {
            status,
            message: str_of("message").unwrap_or_else(|| format!("fake {status}")),
        });
    }
    if let Some(ms) = u64_of("sleep_ms") {
        return Ok(Step::Sleep { ms });
    }
    if obj.get("hang").and_then(Value::as_bool) == Some(true) {
        return Ok(Step::Hang);
    }
    if let Some(code) = obj.get("crash").and_then(Value::as_i64) {
        return Ok(Step::Crash {
            code: i32::try_from(code).map_err(|_| "crash code out of range".to_owned())?,
        });
    }
    if let Some(text) = str_of("garbage") {
        return Ok(Step::Garbage { text });
    }
    if let Some(n) = u64_of("long_line") {
        return Ok(Step::LongLine {
            bytes: usize::try_from(n).map_err(|_| "long_line out of range".to_owned())?,
        });
    }
    if let Some(command) = str_of("child") {
        return Ok(Step::Child { command });
    }
    if let Some(text) = str_of("stderr") {
        return Ok(Step::Stderr { text });
    }
    Err(format!("unknown step {step}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_text_echoes_in_three_chunks() {
        assert_eq!(
            steps_for("hello").unwrap_or_default(),
            [Step::Text {
                text: "echo: hello".into(),
                chunks: 3,
                delay_ms: 0
            }]
        );
    }

    #[test]
    fn parses_every_step_kind() {
        let steps = steps_for(
            r#"fake:[{"text":"a","chunks":5,"delay_ms":7},{"thinking":"t"},
               {"tool":"Bash","input":{"command":"ls"},"output":"x","ask":true},
               {"retry":529},{"api_error":500,"message":"boom"},{"sleep_ms":3},{"hang":true},
               {"crash":3},{"garbage":"g"},{"child":"sleep 1"},{"stderr":"e"},
               {"background":"scan","delay_ms":5}]"#,
        )
        .unwrap_or_default();
        assert_eq!(steps.len(), 12);
        assert_eq!(
            steps[11],
            Step::Background(BackgroundStep {
                description: "scan".into(),
                prompt: "subagent task: scan".into(),
                delay_ms: 5,
                reply: "background done: scan".into(),
                reply_delay_ms: 0,
                id: None,
                ask: None,
            })
        );
        assert_eq!(
            steps[0],
            Step::Text {
                text: "a".into(),
                chunks: 5,
                delay_ms: 7
            }
        );
        let Step::Tool(tool) = &steps[2] else {
            panic!("not a tool: {:?}", steps[2]);
        };
        assert!(tool.ask && !tool.is_error);
        assert_eq!(tool.input, json!({"command": "ls"}));
        assert_eq!(
            steps[4],
            Step::ApiError {
                status: 500,
                message: "boom".into()
            }
        );
        assert_eq!(steps[6], Step::Hang);
        assert_eq!(steps[7], Step::Crash { code: 3 });
    }

    #[test]
    fn bad_scripts_are_errors() {
        assert!(steps_for("fake:[{\"nope\":1}]").is_err());
        assert!(steps_for("fake: not json").is_err());
        assert!(steps_for("fake:{}").is_err());
    }
}
