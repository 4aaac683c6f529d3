//! The activity gate (is there anything new since the last sweep?) and the digest of the
//! newest chats the sweeper reads.
//!
//! The gate compares the newest modification time of the project's transcripts (the chats the
//! index knows) with the project's watermark, `last_swept_mtime_ms`: a sweep runs only when a
//! transcript changed after it. A successful sweep moves the watermark to the newest mtime it
//! saw; a failed one leaves it, so the next turn retries the same activity.
//!
//! The digest renders each chat compactly (user and assistant text on one line each, a tool
//! call as one line, its output left out) and fits them all in a byte budget by cutting the
//! oldest first: older chats go before newer ones, and within a chat its earliest messages go.
//! What was cut is said at the top, so the model knows it sees part of the story.

use std::path::{Path, PathBuf};

use paddock_proto::TranscriptEntry;
use serde_json::Value;

use super::files::prefix_within;

/// The longest line one message becomes in the digest.
pub const MAX_ENTRY_BYTES: usize = 1200;
/// The most messages of one chat the digest shows (its latest).
pub const MAX_ENTRIES_PER_CHAT: usize = 40;
/// The longest summary of a tool call's input.
const MAX_TOOL_INPUT_BYTES: usize = 160;
/// Room kept for the line that says how many of a chat's messages were cut.
const CUT_LINE_BYTES: usize = 48;
/// Below this much room left, an older chat is left out rather than shown as a stub.
const MIN_CHAT_BYTES: usize = 200;

/// What the gate decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// The project has no chats yet.
    NoChats,
    /// Nothing changed after the watermark.
    NoActivity { newest_ms: i64, watermark_ms: i64 },
    /// Sweep; on success the watermark becomes `newest_ms`.
    Sweep { newest_ms: i64 },
}

/// The gate's decision from the newest transcript mtime and the stored watermark.
pub fn decide(newest_ms: Option<i64>, watermark_ms: Option<i64>) -> Gate {
    match (newest_ms, watermark_ms) {
        (None, _) => Gate::NoChats,
        (Some(newest_ms), Some(watermark_ms)) if newest_ms <= watermark_ms => Gate::NoActivity {
            newest_ms,
            watermark_ms,
        },
        (Some(newest_ms), _) => Gate::Sweep { newest_ms },
    }
}

/// The newest modification time (epoch ms) of `paths`; files that vanished are ignored.
pub fn newest_mtime_ms(paths: &[PathBuf]) -> Option<i64> {
    paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok()?.modified().ok())
        .map(|t| chrono::DateTime::<chrono::Utc>::from(t).timestamp_millis())
        .max()
}

/// One chat, rendered for the digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatDigest {
    pub session_id: String,
    pub title: String,
    pub updated_at: Option<String>,
    /// One line per message, oldest first.
    pub lines: Vec<String>,
}

/// Renders the transcript at `path` (unreadable lines and files give fewer lines, never an
/// error: a sweep works with what it can read).
pub fn render_chat(
    path: &Path,
    session_id: &str,
    title: &str,
    updated_at: Option<&str>,
) -> ChatDigest {
    let entries = crate::transcripts::render(path).unwrap_or_default();
    ChatDigest {
        session_id: session_id.to_owned(),
        title: one_line(title, 100),
        updated_at: updated_at.map(str::to_owned),
        lines: entries.iter().filter_map(entry_line).collect(),
    }
}

/// Whitespace folded to single spaces, cut to `max` bytes with an ellipsis.
fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.len() <= max {
        return flat;
    }
    format!("{}…", prefix_within(&flat, max.saturating_sub(3)))
}

/// One message as one digest line; `None` for what the digest leaves out.
fn entry_line(entry: &TranscriptEntry) -> Option<String> {
    let line = match entry {
        TranscriptEntry::User { text, .. } => format!("user: {}", one_line(text, MAX_ENTRY_BYTES)),
        TranscriptEntry::Assistant { text, .. } => {
            format!("assistant: {}", one_line(text, MAX_ENTRY_BYTES))
        }
        TranscriptEntry::ToolUse { name, input, .. } => match tool_summary(input) {
            Some(s) => format!("[tool {name}: {s}]"),
            None => format!("[tool {name}]"),
        },
        TranscriptEntry::ToolResult {
            is_error: true,
            output,
            ..
        } => format!("[tool failed: {}]", one_line(output, MAX_TOOL_INPUT_BYTES)),
        TranscriptEntry::Interrupted { .. } => "[interrupted by the user]".to_owned(),
        TranscriptEntry::ApiError { text, .. } => {
            format!("[API error: {}]", one_line(text, MAX_TOOL_INPUT_BYTES))
        }
        _ => return None,
    };
    (!line.ends_with(": ")).then_some(line)
}

/// The telling part of a tool call's input: its command, path, pattern, ... or the whole input.
fn tool_summary(input: &Value) -> Option<String> {
    const KEYS: &[&str] = &[
        "command",
        "file_path",
        "path",
        "pattern",
        "url",
        "query",
        "description",
        "prompt",
    ];
    let text = KEYS
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str).map(str::to_owned))
        .or_else(|| match input {
            Value::Null => None,
            Value::Object(o) if o.is_empty() => None,
            other => Some(other.to_string()),
        })?;
    Some(one_line(&text, MAX_TOOL_INPUT_BYTES))
}

/// The digest text, and what was cut to fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    pub text: String,
    /// Messages left out of chats that are shown (their earliest).
    pub cut_messages: usize,
    /// Chats left out entirely (the oldest).
    pub cut_chats: usize,
}

fn chat_header(chat: &ChatDigest) -> String {
    let title = if chat.title.is_empty() {
        "(untitled)"
    } else {
        chat.title.as_str()
    };
    match &chat.updated_at {
        Some(at) => format!(
            "## Chat \"{title}\" ({}, last active {at})",
            chat.session_id
        ),
        None => format!("## Chat \"{title}\" ({})", chat.session_id),
    }
}

/// Fits `chats` (newest first) in `budget` bytes, cutting the oldest first.
pub fn assemble(chats: &[ChatDigest], budget: usize) -> Digest {
    let mut blocks: Vec<String> = Vec::new();
    let mut used = 0usize;
    let mut cut_messages = 0usize;
    let mut cut_chats = 0usize;
    let mut cut_notes: Vec<String> = Vec::new();
    for (i, chat) in chats.iter().enumerate() {
        let header = chat_header(chat);
        let room = budget.saturating_sub(used);
        if room < header.len() + 1 + MIN_CHAT_BYTES.min(budget / 4) {
            cut_chats = chats.len() - i;
            let names: Vec<String> = chats[i..]
                .iter()
                .map(|c| format!("\"{}\"", one_line(&c.title, 40)))
                .collect();
            cut_notes.push(format!(
                "{cut_chats} older chat(s) left out: {}",
                names.join(", ")
            ));
            break;
        }
        let mut left = room - header.len() - 1;
        let whole: usize = chat.lines.iter().map(|l| l.len() + 1).sum();
        if chat.lines.len() > MAX_ENTRIES_PER_CHAT || whole > left {
            // Room for the line that says what was cut.
            left = left.saturating_sub(CUT_LINE_BYTES);
        }
        // The latest messages first, back to the earliest that fits.
        let newest_first = chat.lines.iter().rev().take(MAX_ENTRIES_PER_CHAT);
        let mut kept: Vec<&str> = Vec::new();
        for line in newest_first {
            if line.len() + 1 > left {
                break;
            }
            left -= line.len() + 1;
            kept.push(line);
        }
        kept.reverse();
        let dropped = chat.lines.len() - kept.len();
        let mut block = header;
        block.push('\n');
        if dropped > 0 {
            cut_messages += dropped;
            cut_notes.push(format!(
                "the first {dropped} message(s) of \"{}\"",
                one_line(&chat.title, 40)
            ));
            block.push_str(&format!("(… {dropped} earlier message(s) cut)\n"));
        }
        for line in kept {
            block.push_str(line);
            block.push('\n');
        }
        // The block and the blank line that separates it from the next.
        used += block.len() + 1;
        blocks.push(block);
    }
    let mut text = String::new();
    if !cut_notes.is_empty() {
        text.push_str(&format!(
            "(Cut to fit {budget} bytes, oldest first: {}.)\n\n",
            cut_notes.join("; ")
        ));
    }
    text.push_str(&blocks.join("\n"));
    Digest {
        text,
        cut_messages,
        cut_chats,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn the_gate_sweeps_only_after_the_watermark() {
        assert_eq!(decide(None, None), Gate::NoChats);
        assert_eq!(decide(None, Some(5)), Gate::NoChats);
        assert_eq!(decide(Some(5), None), Gate::Sweep { newest_ms: 5 });
        assert_eq!(decide(Some(6), Some(5)), Gate::Sweep { newest_ms: 6 });
        assert_eq!(
            decide(Some(5), Some(5)),
            Gate::NoActivity {
                newest_ms: 5,
                watermark_ms: 5
            }
        );
        assert!(matches!(decide(Some(4), Some(5)), Gate::NoActivity { .. }));
    }

    #[test]
    fn newest_mtime_ignores_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        let b = dir.path().join("b.jsonl");
        std::fs::write(&a, "x").unwrap();
        std::fs::write(&b, "y").unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000);
        std::fs::File::options()
            .write(true)
            .open(&a)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let newest = newest_mtime_ms(&[a.clone(), b.clone(), dir.path().join("gone.jsonl")]);
        let b_ms = chrono::DateTime::<chrono::Utc>::from(
            std::fs::metadata(&b).unwrap().modified().unwrap(),
        )
        .timestamp_millis();
        assert_eq!(newest, Some(b_ms));
        assert_eq!(newest_mtime_ms(&[a]), Some(1_000_000));
        assert_eq!(newest_mtime_ms(&[]), None);
    }

    #[test]
    fn messages_become_one_line_each_and_tool_output_is_left_out() {
        let lines: Vec<String> = [
            TranscriptEntry::User {
                uuid: None,
                timestamp: None,
                text: "please\n\n  fix   the build".into(),
                attribution: None,
            },
            TranscriptEntry::Thinking { text: "hmm".into() },
            TranscriptEntry::ToolUse {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": "cargo build\n--release", "timeout": 5}),
            },
            TranscriptEntry::ToolResult {
                tool_use_id: "t1".into(),
                output: "lots of output".into(),
                is_error: false,
            },
            TranscriptEntry::ToolUse {
                tool_use_id: "t2".into(),
                name: "Mystery".into(),
                input: json!({"a": 1}),
            },
            TranscriptEntry::Assistant {
                uuid: None,
                timestamp: None,
                text: "x".repeat(5000),
                model: None,
            },
        ]
        .iter()
        .filter_map(entry_line)
        .collect();
        assert_eq!(lines[0], "user: please fix the build");
        assert_eq!(lines[1], "[tool Bash: cargo build --release]");
        assert_eq!(lines[2], "[tool Mystery: {\"a\":1}]");
        assert!(lines[3].starts_with("assistant: xxx") && lines[3].ends_with('…'));
        assert!(lines[3].len() <= "assistant: ".len() + MAX_ENTRY_BYTES);
        assert_eq!(lines.len(), 4, "thinking and tool output are left out");
    }

    fn chat(n: usize, messages: usize) -> ChatDigest {
        ChatDigest {
            session_id: format!("s{n}"),
            title: format!("chat {n}"),
            updated_at: None,
            lines: (0..messages)
                .map(|m| format!("user: chat {n} message {m} {}", "z".repeat(40)))
                .collect(),
        }
    }

    #[test]
    fn the_digest_fits_its_budget_cutting_the_oldest_first() {
        // Everything fits: nothing is said to be cut.
        let all = assemble(&[chat(2, 3), chat(1, 3)], 10_000);
        assert_eq!((all.cut_chats, all.cut_messages), (0, 0));
        assert!(!all.text.contains("Cut to fit"));
        assert!(all.text.find("chat 2").unwrap() < all.text.find("chat 1").unwrap());

        // Three chats of 30 messages (~65 bytes each) in 1500 bytes: the newest chat keeps
        // its latest messages, the older ones go.
        let chats = [chat(3, 30), chat(2, 30), chat(1, 30)];
        let d = assemble(&chats, 1500);
        assert!(d.text.len() <= 1500 + 300, "{}", d.text.len());
        assert!(
            d.text.contains("chat 3 message 29"),
            "the latest message is kept"
        );
        assert!(!d.text.contains("chat 3 message 0 "), "the earliest is cut");
        assert!(d.cut_messages > 0);
        assert!(d.cut_chats >= 1);
        assert!(
            !d.text.contains("chat 1 message"),
            "the oldest chat goes first"
        );
        assert!(
            d.text.starts_with("(Cut to fit 1500 bytes, oldest first:"),
            "{}",
            d.text
        );
        assert!(d.text.contains("older chat(s) left out: "), "{}", d.text);
        // The body (after the note) is within the budget.
        let body = d.text.split_once(")\n\n").unwrap().1;
        assert!(body.len() <= 1500, "{}", body.len());

        // A chat longer than the per-chat cap shows only its latest messages.
        let long = assemble(&[chat(1, MAX_ENTRIES_PER_CHAT + 5)], 1_000_000);
        assert_eq!(long.cut_messages, 5);
        assert!(long.text.contains("(… 5 earlier message(s) cut)"));
    }
}
