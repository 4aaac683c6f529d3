//! A turn's live frames as text (`paddock send`, `paddock tail`): the reply on stdout as its
//! deltas arrive, tool calls and notices as one-liners on stderr, so `> reply.txt` captures
//! exactly the reply.

use std::collections::HashSet;

use paddock_proto::{ChatEvent, ToolCall, UserTurn};

use super::{attribution_line, notice_label, one_line, tool_summary};

/// How much of a notice or error is printed: the daemon's say what happened and what to do,
/// so they are printed whole unless something pathological comes through.
const ADVICE_MAX: usize = 2000;

/// A piece of output and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    Stdout(String),
    Stderr(String),
}

/// Turns frames into output, remembering just enough to lay it out (line starts, gaps between
/// assistant messages, which tools were already announced).
#[derive(Debug, Default)]
pub struct StreamPrinter {
    /// Show the user turns too (`tail`); `send` does not echo what the user just typed.
    echo_user: bool,
    /// Whether stdout ends at the start of a line (true before anything is printed).
    mid_line: bool,
    /// A message ended; the next text starts after a blank line.
    gap_pending: bool,
    /// Anything went to stdout yet.
    printed: bool,
    announced_tools: HashSet<String>,
    /// An error not printed yet: the notice that usually follows may say the same sentence,
    /// and then only the notice is printed.
    pending_error: Option<String>,
}

impl StreamPrinter {
    pub fn new(echo_user: bool) -> Self {
        Self {
            echo_user,
            ..Self::default()
        }
    }

    pub fn frame(&mut self, event: &ChatEvent) -> Vec<Out> {
        let mut out = Vec::new();
        let repeated = matches!(
            (event, &self.pending_error),
            (ChatEvent::Notice(n), Some(e)) if n.message == *e
        );
        if repeated {
            self.pending_error = None;
        } else {
            self.flush_error(&mut out);
        }
        match event {
            ChatEvent::User(turn) => {
                if self.echo_user {
                    self.user_turn(&mut out, turn);
                }
            }
            ChatEvent::Response(delta) => {
                if !delta.text.is_empty() {
                    if self.gap_pending {
                        self.end_line(&mut out);
                        self.gap(&mut out);
                    }
                    self.stdout(&mut out, delta.text.clone());
                }
            }
            // Thinking stays out of a script's way; `paddock show` and the TUI show it.
            ChatEvent::Thinking(_) => {}
            ChatEvent::ToolStart(tool) => {
                self.announced_tools.insert(tool.tool_use_id.clone());
                self.stderr(
                    &mut out,
                    format!("  → {}\n", tool_summary(&tool.name, &tool.input)),
                );
            }
            ChatEvent::ToolCall(call) => self.tool_call(&mut out, call),
            ChatEvent::MessageBoundary(_) => {
                self.end_line(&mut out);
                self.gap_pending = self.printed;
            }
            ChatEvent::Complete(_) => self.end_line(&mut out),
            ChatEvent::Error(err) => self.pending_error = Some(err.message.clone()),
            ChatEvent::Notice(notice) => {
                let what = notice_label(notice.kind);
                self.stderr(
                    &mut out,
                    format!("! {what}: {}\n", one_line(&notice.message, ADVICE_MAX)),
                );
            }
            ChatEvent::Answered(a) => {
                let line = if a.decision == paddock_proto::ApprovalDecision::Deny {
                    format!(
                        "! permission denied: {}\n",
                        one_line(&a.message, ADVICE_MAX)
                    )
                } else {
                    format!("  {}\n", one_line(&a.message, ADVICE_MAX))
                };
                self.stderr(&mut out, line);
            }
            ChatEvent::QueuedFlushed(q) => {
                self.stderr(
                    &mut out,
                    format!("  (queued message sent: {})\n", one_line(&q.message, 80)),
                );
            }
            ChatEvent::KilledTask(k) => {
                self.stderr(
                    &mut out,
                    format!("! background task killed: {}\n", one_line(&k.message, 200)),
                );
            }
        }
        out
    }

    /// A user turn, echoed as a quote (with who injected it) after a blank line.
    fn user_turn(&mut self, out: &mut Vec<Out>, turn: &UserTurn) {
        self.end_line(out);
        self.gap(out);
        let mut text = String::new();
        if let Some(attribution) = &turn.attribution {
            text.push_str(&attribution_line(attribution));
            text.push('\n');
        }
        for line in turn.text.trim_end().lines() {
            text.push_str("> ");
            text.push_str(line);
            text.push('\n');
        }
        self.stdout(out, text);
        self.gap_pending = true;
    }

    /// A finished tool call: announced if its start was not, and why it failed if it did.
    fn tool_call(&mut self, out: &mut Vec<Out>, call: &ToolCall) {
        if self.announced_tools.insert(call.tool_use_id.clone()) {
            self.stderr(
                out,
                format!("  → {}\n", tool_summary(&call.name, &call.input)),
            );
        }
        if call.is_error {
            let output = call.output.trim();
            let why = if output.is_empty() {
                "failed".to_owned()
            } else {
                one_line(output, 100)
            };
            self.stderr(out, format!("  ✗ {}: {why}\n", call.name));
        }
    }

    /// What is owed at the very end (a final newline after an unterminated reply).
    pub fn finish(&mut self) -> Vec<Out> {
        let mut out = Vec::new();
        self.flush_error(&mut out);
        self.end_line(&mut out);
        out
    }

    /// Prints the error held back, if any (no notice said it).
    fn flush_error(&mut self, out: &mut Vec<Out>) {
        if let Some(message) = self.pending_error.take() {
            self.stderr(
                out,
                format!("! error: {}\n", one_line(&message, ADVICE_MAX)),
            );
        }
    }

    fn stdout(&mut self, out: &mut Vec<Out>, text: String) {
        self.mid_line = !text.ends_with('\n');
        self.printed = true;
        self.gap_pending = false;
        out.push(Out::Stdout(text));
    }

    /// Stderr lines interleave with stdout on a terminal: start them on a fresh line.
    fn stderr(&mut self, out: &mut Vec<Out>, text: String) {
        self.end_line(out);
        out.push(Out::Stderr(text));
    }

    fn end_line(&mut self, out: &mut Vec<Out>) {
        if self.mid_line {
            out.push(Out::Stdout("\n".to_owned()));
            self.mid_line = false;
        }
    }

    fn gap(&mut self, out: &mut Vec<Out>) {
        if self.printed {
            out.push(Out::Stdout("\n".to_owned()));
        }
        self.gap_pending = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::{
        Attribution, ChatError, Complete, MessageBoundary, Notice, NoticeKind, TextDelta, ToolCall,
        ToolStart, UserTurn,
    };
    use serde_json::json;

    fn run(printer: &mut StreamPrinter, events: &[ChatEvent]) -> (String, String) {
        let (mut stdout, mut stderr) = (String::new(), String::new());
        let mut all: Vec<Out> = events.iter().flat_map(|e| printer.frame(e)).collect();
        all.extend(printer.finish());
        for out in all {
            match out {
                Out::Stdout(s) => stdout.push_str(&s),
                Out::Stderr(s) => stderr.push_str(&s),
            }
        }
        (stdout, stderr)
    }

    fn text(t: &str) -> ChatEvent {
        ChatEvent::Response(TextDelta { text: t.into() })
    }

    fn boundary() -> ChatEvent {
        ChatEvent::MessageBoundary(MessageBoundary { message_id: None })
    }

    fn complete(success: bool) -> ChatEvent {
        ChatEvent::Complete(Complete {
            success,
            ended: None,
            error: None,
            model: None,
            usage: None,
            cost_usd: None,
            duration_ms: None,
            terminal_reason: None,
        })
    }

    fn turn() -> Vec<ChatEvent> {
        vec![
            ChatEvent::User(UserTurn {
                message_id: None,
                text: "check the build".into(),
                attribution: Some(Attribution::Scheduled {
                    name: "nightly".into(),
                }),
            }),
            text("Let me "),
            text("check."),
            ChatEvent::ToolStart(ToolStart {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": "cargo build"}),
            }),
            boundary(),
            ChatEvent::ToolCall(ToolCall {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": "cargo build"}),
                output: "error: could not compile\nmore".into(),
                is_error: true,
                detail: None,
            }),
            // A call whose start was never seen is still announced once.
            ChatEvent::ToolCall(ToolCall {
                tool_use_id: "t2".into(),
                name: "Read".into(),
                input: json!({"file_path": "src/lib.rs"}),
                output: "fn main() {}".into(),
                is_error: false,
                detail: None,
            }),
            text("The build is broken."),
            boundary(),
            complete(true),
        ]
    }

    #[test]
    fn send_prints_the_reply_on_stdout_and_tools_on_stderr() {
        let (stdout, stderr) = run(&mut StreamPrinter::new(false), &turn());
        assert_eq!(stdout, "Let me check.\n\nThe build is broken.\n");
        assert_eq!(
            stderr,
            "  → Bash: cargo build\n  ✗ Bash: error: could not compile…\n  → Read: src/lib.rs\n"
        );
    }

    #[test]
    fn tail_also_shows_the_user_turn_with_its_attribution() {
        let (stdout, _) = run(&mut StreamPrinter::new(true), &turn());
        assert_eq!(
            stdout,
            "⏰ scheduled by nightly\n> check the build\n\nLet me check.\n\nThe build is broken.\n"
        );
    }

    #[test]
    fn an_error_and_a_notice_saying_the_same_print_once() {
        let said = "the folder this chat's claude runs in, /gone, is gone";
        let events = [
            ChatEvent::Error(ChatError {
                message: said.into(),
            }),
            ChatEvent::Notice(Notice {
                kind: NoticeKind::Crashed,
                message: said.into(),
            }),
            complete(false),
        ];
        let (_, stderr) = run(&mut StreamPrinter::new(false), &events);
        assert_eq!(stderr, format!("! claude stopped: {said}\n"));
        // An error no notice follows is printed all the same.
        let alone = [
            ChatEvent::Error(ChatError {
                message: "boom".into(),
            }),
            complete(false),
        ];
        let (_, stderr) = run(&mut StreamPrinter::new(false), &alone);
        assert_eq!(stderr, "! error: boom\n");
    }

    #[test]
    fn failures_are_reported_on_stderr() {
        let events = [
            text("partial"),
            ChatEvent::Error(ChatError {
                message: "claude exited".into(),
            }),
            ChatEvent::Notice(Notice {
                kind: NoticeKind::Crashed,
                message: "claude exited with status 1".into(),
            }),
            complete(false),
        ];
        let (stdout, stderr) = run(&mut StreamPrinter::new(false), &events);
        assert_eq!(stdout, "partial\n");
        assert_eq!(
            stderr,
            "! error: claude exited\n! claude stopped: claude exited with status 1\n"
        );
    }
}
