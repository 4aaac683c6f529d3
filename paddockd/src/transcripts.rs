//! Claude Code transcripts: where they live (docs/claude-cli.md §6) and their full rendering
//! for `paddock show`. The chat list's derived fields come from the live index (`index/`).
//!
//! Transcripts are written by the CLI, never by paddockd: this module only reads them. Lines
//! that are not JSON, and record types it does not know, are skipped, never fatal.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use paddock_proto::TranscriptEntry;
use serde_json::Value;

/// The CLI's folder name for a working directory: every UTF-16 code unit outside
/// `[A-Za-z0-9]` becomes `-`; past 200 characters, the first 200 plus `-` and the base-36
/// Java string hash of the original path.
pub fn encode_cwd(path: &str) -> String {
    let units: Vec<u16> = path.encode_utf16().collect();
    let enc: String = units
        .iter()
        .map(|&u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() => char::from(b),
            _ => '-',
        })
        .collect();
    if enc.len() <= 200 {
        return enc;
    }
    let mut h: i32 = 0;
    for &u in &units {
        h = h.wrapping_mul(31).wrapping_add(i32::from(u));
    }
    format!("{}-{}", &enc[..200], base36(h.unsigned_abs()))
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

/// The folder holding the transcripts of agents that run in `agent_dir` (a physical path).
pub fn project_transcripts_dir(claude_home: &Path, agent_dir: &Path) -> PathBuf {
    claude_home
        .join("projects")
        .join(encode_cwd(&agent_dir.to_string_lossy()))
}

/// The transcript file of a session, wherever the CLI put it.
pub fn find_session_file(claude_home: &Path, session_id: &str) -> Option<PathBuf> {
    let name = format!("{session_id}.jsonl");
    let entries = std::fs::read_dir(claude_home.join("projects")).ok()?;
    entries
        .flatten()
        .map(|e| e.path().join(&name))
        .find(|p| p.is_file())
}

/// Renders a transcript for `paddock show`. A line that is not a JSON record (not even valid
/// UTF-8) is skipped.
pub fn render(path: &Path) -> std::io::Result<Vec<TranscriptEntry>> {
    let mut reader = BufReader::new(std::fs::File::open(path)?);
    let mut out = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        render_line(&line, &mut out);
    }
    Ok(out)
}

/// Renders one line of a transcript (its `'\n'` may be there or not) into `out`, exactly as
/// [`render`] does, so the search index, which reads lines as they are appended, counts
/// entries as `chat:transcript` does. Returns the title of a `custom-title` record.
pub fn render_line(line: &[u8], out: &mut Vec<TranscriptEntry>) -> Option<String> {
    let rec = serde_json::from_slice::<Value>(line).ok()?;
    render_record(&rec, out);
    match rec.get("type").and_then(Value::as_str) {
        Some("custom-title") => str_field(&rec, "customTitle"),
        _ => None,
    }
}

fn render_record(rec: &Value, out: &mut Vec<TranscriptEntry>) {
    let uuid = str_field(rec, "uuid");
    let timestamp = str_field(rec, "timestamp");
    match rec.get("type").and_then(Value::as_str) {
        Some("user") => {
            if rec.get("isMeta").and_then(Value::as_bool) == Some(true) {
                return;
            }
            let content = rec.pointer("/message/content");
            if let Some(blocks) = content.and_then(Value::as_array) {
                for b in blocks {
                    if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                        out.push(TranscriptEntry::ToolResult {
                            tool_use_id: str_field(b, "tool_use_id").unwrap_or_default(),
                            output: content_text(b.get("content")),
                            is_error: b.get("is_error").and_then(Value::as_bool) == Some(true),
                        });
                    }
                }
            }
            if let Some(text) = user_text(rec) {
                if text.starts_with("[Request interrupted by user") {
                    out.push(TranscriptEntry::Interrupted { text });
                } else if rec.get("isCompactSummary").and_then(Value::as_bool) != Some(true) {
                    out.push(TranscriptEntry::User {
                        uuid,
                        timestamp,
                        text,
                        attribution: None,
                    });
                }
            }
        }
        Some("assistant") => {
            let model = rec
                .pointer("/message/model")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let is_api_error = rec.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true);
            let blocks = rec
                .pointer("/message/content")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let text = str_field(&b, "text").unwrap_or_default();
                        if is_api_error {
                            out.push(TranscriptEntry::ApiError {
                                status: rec
                                    .get("apiErrorStatus")
                                    .and_then(Value::as_u64)
                                    .and_then(|s| u16::try_from(s).ok()),
                                text,
                            });
                        } else {
                            out.push(TranscriptEntry::Assistant {
                                uuid: uuid.clone(),
                                timestamp: timestamp.clone(),
                                text,
                                model: model.clone(),
                            });
                        }
                    }
                    Some("thinking") => out.push(TranscriptEntry::Thinking {
                        text: str_field(&b, "thinking").unwrap_or_default(),
                    }),
                    Some("tool_use") => out.push(TranscriptEntry::ToolUse {
                        tool_use_id: str_field(&b, "id").unwrap_or_default(),
                        name: str_field(&b, "name").unwrap_or_default(),
                        input: b.get("input").cloned().unwrap_or(Value::Null),
                    }),
                    _ => {}
                }
            }
        }
        Some("system")
            if rec.get("subtype").and_then(Value::as_str) == Some("compact_boundary") =>
        {
            let meta = rec.get("compactMetadata");
            out.push(TranscriptEntry::Compaction {
                pre_tokens: meta
                    .and_then(|m| m.get("preTokens"))
                    .and_then(Value::as_u64),
                post_tokens: meta
                    .and_then(|m| m.get("postTokens"))
                    .and_then(Value::as_u64),
            });
        }
        _ => {}
    }
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The text of a user record, if it has any (tool results have none).
fn user_text(rec: &Value) -> Option<String> {
    match rec.pointer("/message/content")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// A tool result's content as text: a string, or the text of its blocks.
pub fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) if !other.is_null() => other.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// The transcript folders of every supported release's captures.
    fn fixture_dirs() -> Vec<PathBuf> {
        let mut dirs = Vec::new();
        for release in ["claude-cli-2.1.332", "claude-cli-2.1.197"] {
            let root = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/fixtures")
                .join(release)
                .join("transcripts");
            let entries = std::fs::read_dir(root).expect("tests/fixtures holds the CLI captures");
            dirs.extend(entries.flatten().map(|e| e.path()));
        }
        dirs.sort();
        dirs
    }

    #[test]
    fn encodes_like_the_cli() {
        assert_eq!(
            encode_cwd("/home/dev/lab/work dir_1.x"),
            "-home-dev-lab-work-dir-1-x"
        );
        // Every fixture folder must be the encoding of the cwd its records carry.
        let mut checked = 0;
        for dir in fixture_dirs() {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let Some(file) = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
            else {
                continue;
            };
            let text = std::fs::read_to_string(&file).unwrap();
            let cwd = text
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .find_map(|r| str_field(&r, "cwd"))
                .unwrap();
            assert_eq!(encode_cwd(&cwd), name, "cwd {cwd}");
            checked += 1;
        }
        assert!(checked >= 8, "only {checked} fixture folders checked");
    }

    #[test]
    fn renders_fixture_transcripts_without_failing() {
        let mut kinds = std::collections::BTreeSet::new();
        for dir in fixture_dirs() {
            for f in std::fs::read_dir(&dir).unwrap().flatten() {
                if f.path().extension().is_some_and(|e| e == "jsonl") {
                    for e in render(&f.path()).unwrap() {
                        let v = serde_json::to_value(&e).unwrap();
                        kinds.insert(v["kind"].as_str().unwrap().to_owned());
                    }
                }
            }
        }
        for k in [
            "user",
            "assistant",
            "tool_use",
            "tool_result",
            "interrupted",
        ] {
            assert!(
                kinds.contains(k),
                "no {k} rendered from the fixtures: {kinds:?}"
            );
        }
    }

    #[test]
    fn skips_garbage_and_unknown_records() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.jsonl");
        std::fs::write(
            &p,
            "not json\n{\"type\":\"weird\"}\n{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi there\"},\"timestamp\":\"t\"}\n",
        )
        .unwrap();
        assert_eq!(render(&p).unwrap().len(), 1);
        // A line that is not even UTF-8 is skipped like any other bad line.
        let mut bytes = b"{\"type\":\"user\",\"message\":{\"content\":\"caf\xe9\"}}\n".to_vec();
        bytes.extend_from_slice(
            b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"ok\"}}\r\n",
        );
        std::fs::write(&p, bytes).unwrap();
        assert_eq!(render(&p).unwrap().len(), 1);
    }
}
