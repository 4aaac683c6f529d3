//! `paddock show`: a transcript as plain text, with an attribution line above every
//! machine-injected user turn (the quiet default: a person's own turns carry none).

use std::fmt::Write as _;

use paddock_proto::{Transcript, TranscriptEntry};

use super::{
    attribution_line, clean_title, compaction_sizes, one_line, project_label, task_status,
    tool_summary,
};

/// How many characters of a tool result or thinking block to show on its one line.
const PREVIEW: usize = 100;

pub fn transcript(t: &Transcript) -> String {
    let mut out = header(t);
    // Consecutive tool lines form one indented block; a blank line separates everything else.
    let mut in_tools = false;
    for entry in &t.entries {
        let is_tool = matches!(
            entry,
            TranscriptEntry::ToolUse { .. } | TranscriptEntry::ToolResult { .. }
        );
        if !(is_tool && in_tools) {
            out.push('\n');
        }
        in_tools = is_tool;
        push_entry(&mut out, entry);
    }
    out
}

/// The chat's title, then what it is: session, project, origin, parent, model.
fn header(t: &Transcript) -> String {
    let chat = &t.chat;
    let mut out = String::new();
    let _ = writeln!(out, "{}", clean_title(&chat.title));
    let mut about = format!(
        "session {} · project {} · {}",
        chat.session_id,
        project_label(&chat.project_slug),
        chat.origin.wire_name()
    );
    if let Some(parent) = &chat.parent_session_id {
        let _ = write!(about, " from {parent}");
    }
    if let Some(model) = &chat.model {
        let _ = write!(about, " · {model}");
    }
    let _ = writeln!(out, "{about}");
    out
}

fn push_entry(out: &mut String, entry: &TranscriptEntry) {
    match entry {
        TranscriptEntry::User {
            text, attribution, ..
        } => {
            if let Some(attribution) = attribution {
                let _ = writeln!(out, "{}", attribution_line(attribution));
            }
            push_user(out, text);
        }
        TranscriptEntry::Assistant { text, model, .. } => {
            match model {
                Some(model) => {
                    let _ = writeln!(out, "▌assistant ({model})");
                }
                None => {
                    let _ = writeln!(out, "▌assistant");
                }
            }
            push_body(out, text);
        }
        TranscriptEntry::Thinking { text } => {
            let _ = writeln!(out, "  (thinking) {}", one_line(text, PREVIEW));
        }
        TranscriptEntry::ToolUse { name, input, .. } => {
            let _ = writeln!(out, "  → {}", tool_summary(name, input));
        }
        TranscriptEntry::ToolResult {
            output, is_error, ..
        } => {
            let _ = writeln!(out, "  {}", tool_result(output, *is_error));
        }
        TranscriptEntry::Compaction {
            pre_tokens,
            post_tokens,
        } => {
            let sizes = compaction_sizes(*pre_tokens, *post_tokens, "→");
            let _ = writeln!(out, "── context compacted{sizes} ──");
        }
        TranscriptEntry::Interrupted { text } => {
            let _ = writeln!(out, "── interrupted: {} ──", one_line(text, PREVIEW));
        }
        TranscriptEntry::ApiError { status, text } => {
            let status = status.map(|s| format!(" {s}")).unwrap_or_default();
            let _ = writeln!(out, "── API error{status}: {} ──", one_line(text, PREVIEW));
        }
    }
}

/// A user turn: a background task's report as one marker line, else the message with its
/// preloaded context and its attachments.
fn push_user(out: &mut String, text: &str) {
    if let Some(note) = crate::message::task_notification(text) {
        let status = task_status(&note.status);
        let _ = writeln!(out, "── background task: {}{status} ──", note.summary);
        if !note.result.is_empty() {
            let _ = writeln!(out, "  {}", one_line(&note.result, PREVIEW));
        }
        return;
    }
    let _ = writeln!(out, "▌user");
    let (context, _) = crate::message::split_context(text);
    push_body(out, crate::message::request(text));
    if let Some(context) = context {
        let _ = writeln!(out, "  {}", crate::message::context_note(context));
    }
    for file in crate::attachments::parse_block(text) {
        let _ = writeln!(
            out,
            "  attached {} ({}): paddock attachment {}",
            file.filename, file.kind, file.id
        );
    }
}

/// A tool result on one line: its first line and how many more it has.
fn tool_result(output: &str, is_error: bool) -> String {
    let mark = if is_error { "✗" } else { "←" };
    let output = output.trim();
    let more = match output.lines().count() {
        0 | 1 => String::new(),
        2 => " (+1 line)".to_owned(),
        n => format!(" (+{} lines)", n - 1),
    };
    let first = match output.lines().next() {
        Some(first) => one_line(first, PREVIEW),
        None => "(no output)".to_owned(),
    };
    format!("{mark} {first}{more}")
}

fn push_body(out: &mut String, text: &str) {
    let text = text.trim_end();
    if text.is_empty() {
        out.push_str("(empty)\n");
    } else {
        out.push_str(text);
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::chats::tests::chat;
    use paddock_proto::{Attribution, Origin};
    use serde_json::json;

    #[test]
    fn every_entry_kind_renders() {
        let mut summary = chat("s-1", "Fix the build", Origin::Spawned, Some("s-0"));
        summary.project_slug = "web".into();
        summary.model = Some("claude-sonnet-4-5".into());
        let t = Transcript {
            chat: summary,
            entries: vec![
                TranscriptEntry::User {
                    uuid: None,
                    timestamp: None,
                    text: "Please fix the build".into(),
                    attribution: Some(Attribution::Sent {
                        from_session_id: "s-0".into(),
                        from_project: "web".into(),
                        from_title: Some("Manager".into()),
                    }),
                },
                TranscriptEntry::Thinking {
                    text: "The build fails because\nof a typo".into(),
                },
                TranscriptEntry::Assistant {
                    uuid: None,
                    timestamp: None,
                    text: "Let me look.".into(),
                    model: Some("claude-sonnet-4-5".into()),
                },
                TranscriptEntry::ToolUse {
                    tool_use_id: "t1".into(),
                    name: "Bash".into(),
                    input: json!({"command": "cargo build"}),
                },
                TranscriptEntry::ToolResult {
                    tool_use_id: "t1".into(),
                    output: "error[E0425]: cannot find value `x`\n --> src/main.rs:2:5\n".into(),
                    is_error: true,
                },
                TranscriptEntry::ToolUse {
                    tool_use_id: "t2".into(),
                    name: "Edit".into(),
                    input: json!({"file_path": "src/main.rs"}),
                },
                TranscriptEntry::ToolResult {
                    tool_use_id: "t2".into(),
                    output: "".into(),
                    is_error: false,
                },
                TranscriptEntry::Compaction {
                    pre_tokens: Some(120_000),
                    post_tokens: Some(8_000),
                },
                TranscriptEntry::User {
                    uuid: None,
                    timestamp: None,
                    text: "thanks\n".into(),
                    attribution: None,
                },
                TranscriptEntry::Interrupted {
                    text: "[Request interrupted by user]".into(),
                },
                TranscriptEntry::ApiError {
                    status: Some(529),
                    text: "Overloaded".into(),
                },
            ],
        };
        assert_eq!(
            transcript(&t),
            "\
Fix the build
session s-1 · project web · spawned from s-0 · claude-sonnet-4-5

↩ sent by Manager
▌user
Please fix the build

  (thinking) The build fails because…

▌assistant (claude-sonnet-4-5)
Let me look.

  → Bash: cargo build
  ✗ error[E0425]: cannot find value `x` (+1 line)
  → Edit: src/main.rs
  ← (no output)

── context compacted: 120000 → 8000 tokens ──

▌user
thanks

── interrupted: [Request interrupted by user] ──

── API error 529: Overloaded ──
"
        );
    }

    #[test]
    fn a_preloaded_message_with_files_shows_its_request_and_names_the_files() {
        let text = "<project-context>\n# Overview\nA web app.\n</project-context>\n\nMy request:\n\
                    <paddock-attachments>\nThe user attached these files.\n\
                    a1b2c3d4-0000-4000-8000-000000000000.png\timage\tshot.png\t/d/a.png\n\
                    </paddock-attachments>\n\nWhy is the hero cut off?";
        let t = Transcript {
            chat: paddock_proto::ChatSummary {
                session_id: "s-1".into(),
                project_slug: "web".into(),
                title: "Why is the hero cut off?".into(),
                ..paddock_proto::ChatSummary::default()
            },
            entries: vec![TranscriptEntry::User {
                uuid: None,
                timestamp: None,
                text: text.into(),
                attribution: None,
            }],
        };
        let shown = transcript(&t);
        assert!(
            shown.ends_with(
                "▌user\nWhy is the hero cut off?\n  project context preloaded (2 lines)\n  \
                 attached shot.png (image): paddock attachment \
                 a1b2c3d4-0000-4000-8000-000000000000.png\n"
            ),
            "{shown}"
        );
    }

    #[test]
    fn a_background_tasks_report_is_a_notice_not_the_users_message() {
        let t = Transcript {
            chat: paddock_proto::ChatSummary {
                session_id: "s-1".into(),
                title: "Run it in the background".into(),
                ..paddock_proto::ChatSummary::default()
            },
            entries: vec![TranscriptEntry::User {
                uuid: None,
                timestamp: None,
                text: "<task-notification>\n<task-id>a3f7</task-id>\n<status>failed</status>\n\
                       <summary>Agent \"Bisect\" finished</summary>\n<result>no bad commit\nfound</result>\n\
                       </task-notification>"
                    .into(),
                attribution: None,
            }],
        };
        let shown = transcript(&t);
        assert!(
            shown.ends_with(
                "── background task: Agent \"Bisect\" finished (failed) ──\n  no bad commit…\n"
            ),
            "{shown}"
        );
        assert!(!shown.contains("▌user"), "{shown}");
    }
}
