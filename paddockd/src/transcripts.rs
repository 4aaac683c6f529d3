//! Claude Code transcripts: where they live (docs/claude-cli.md §6) and their full rendering
//! for `paddock show`. The chat list's derived fields come from the live index (`index/`).
//!
//! Transcripts are written by the CLI, never by paddockd: this module only reads them. Lines
//! that are not JSON, and record types it does not know, are skipped, never fatal.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use paddock_proto::TranscriptEntry;

use crate::claude_format::content::Block;
use crate::claude_format::transcript::{
    Record, RecordKind, interrupted_words, is_interrupt_marker,
};

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
/// What a turn cut short before its reply is shown as (in place of the CLI's placeholder).
pub const NO_REPLY: &str = "no reply: the turn was cut short";

/// The CLI's `<synthetic>` "No response requested." (docs/claude-cli.md §6).
fn is_no_reply_placeholder(model: Option<&str>, text: &str) -> bool {
    model == Some("<synthetic>") && text.trim() == "No response requested."
}

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
    let rec = Record::parse(line)?;
    render_record(&rec, out);
    match rec.kind {
        RecordKind::CustomTitle(title) => Some(title),
        _ => None,
    }
}

fn render_record(rec: &Record, out: &mut Vec<TranscriptEntry>) {
    match &rec.kind {
        RecordKind::User { is_meta: true, .. } => {}
        RecordKind::User {
            message,
            is_compact_summary,
            ..
        } => {
            for b in message.content.blocks() {
                if let Block::ToolResult {
                    tool_use_id,
                    output,
                    is_error,
                } = b
                {
                    out.push(TranscriptEntry::ToolResult {
                        tool_use_id,
                        output,
                        is_error,
                    });
                }
            }
            if let Some(text) = message.content.text() {
                if is_interrupt_marker(&text) {
                    out.push(TranscriptEntry::Interrupted {
                        text: interrupted_words(&text).to_owned(),
                    });
                } else if !is_compact_summary {
                    out.push(TranscriptEntry::User {
                        uuid: rec.uuid.clone(),
                        timestamp: rec.timestamp.clone(),
                        text,
                        attribution: None,
                    });
                }
            }
        }
        RecordKind::Assistant { message, api_error } => {
            for b in message.content.blocks() {
                match b {
                    Block::Text(text) => match api_error {
                        Some(status) => out.push(TranscriptEntry::ApiError {
                            status: *status,
                            text,
                        }),
                        // The placeholder the CLI writes, when a session is resumed, for a
                        // turn that never got its reply (claude was killed mid-turn): that is
                        // what it says, not something the model said. Right after the
                        // interruption's own marker it is the same cut, said once.
                        None if is_no_reply_placeholder(message.model.as_deref(), &text) => {
                            if !matches!(out.last(), Some(TranscriptEntry::Interrupted { .. })) {
                                out.push(TranscriptEntry::Interrupted {
                                    text: NO_REPLY.to_owned(),
                                });
                            }
                        }
                        None => out.push(TranscriptEntry::Assistant {
                            uuid: rec.uuid.clone(),
                            timestamp: rec.timestamp.clone(),
                            text,
                            model: message.model.clone(),
                        }),
                    },
                    Block::Thinking(text) => out.push(TranscriptEntry::Thinking { text }),
                    Block::ToolUse { id, name, input } => out.push(TranscriptEntry::ToolUse {
                        tool_use_id: id,
                        name,
                        input,
                    }),
                    _ => {}
                }
            }
        }
        RecordKind::CompactBoundary {
            pre_tokens,
            post_tokens,
        } => out.push(TranscriptEntry::Compaction {
            pre_tokens: *pre_tokens,
            post_tokens: *post_tokens,
        }),
        _ => {}
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
    fn the_clis_no_reply_placeholder_is_shown_as_a_turn_cut_short() {
        let mut out = Vec::new();
        render_line(
            br#"{"type":"assistant","uuid":"a1","message":{"model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"No response requested."}]}}"#,
            &mut out,
        );
        render_line(
            br#"{"type":"assistant","uuid":"a2","message":{"model":"claude-opus-5-5","role":"assistant","content":[{"type":"text","text":"No response requested."}]}}"#,
            &mut out,
        );
        assert_eq!(
            out[0],
            TranscriptEntry::Interrupted {
                text: NO_REPLY.to_owned()
            }
        );
        assert!(
            matches!(&out[1], TranscriptEntry::Assistant { text, .. } if text == "No response requested."),
            "a model that says so is quoted: {out:?}"
        );
    }

    /// A turn stopped mid-way, then continued: the CLI writes `[Request interrupted by user]`,
    /// and on resuming its "No response requested." placeholder. One cut, said once (from
    /// the hand walk of issue 36: `paddock show` drew two "interrupted" lines).
    #[test]
    fn an_interruption_and_its_placeholder_are_one_cut() {
        let mut out = Vec::new();
        for line in [
            &br#"{"type":"user","uuid":"u1","message":{"role":"user","content":"mock:slow 100"}}"#[..],
            br#"{"type":"user","uuid":"u2","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#,
            br#"{"type":"assistant","uuid":"a1","message":{"model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"No response requested."}]}}"#,
        ] {
            render_line(line, &mut out);
        }
        let cuts = out
            .iter()
            .filter(|e| matches!(e, TranscriptEntry::Interrupted { .. }))
            .count();
        assert_eq!(cuts, 1, "{out:?}");
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
                .filter_map(|l| Record::parse(l.as_bytes()))
                .find_map(|r| r.cwd)
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
