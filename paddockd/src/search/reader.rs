//! What of a transcript is searchable, and reading it incrementally: like the live index
//! (`index/scan.rs`), the search index keeps per transcript the byte offset it has read to and
//! reads only complete lines appended since; a file replaced, shrunk or rewritten in place is
//! read again from the start.
//!
//! The searchable texts are those of the entries `chat:transcript` shows, built by the same
//! function ([`transcripts::render_line`]), so a chat the index finds for a word is a chat
//! whose rendering has it: user and assistant text, tool calls (the tool's name and the
//! string values of its input) and tool results, plus `custom-title` records. Thinking,
//! compaction summaries, interruptions and API errors are not searched.

use std::borrow::Cow;
use std::fs::File;
use std::io;
use std::path::Path;

use paddock_proto::{SearchField, TranscriptEntry};
use serde_json::Value;

use crate::appended::Appended;
use crate::transcripts;

/// Where reading a transcript stopped, and which file it was.
pub use crate::appended::Mark as ReadState;

/// How a read went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The file is gone (or is not a file).
    Gone,
    /// Nothing new (the state is unchanged).
    Unchanged,
    /// Read on from the stored offset: the texts given are new ones of the same chat.
    Continued(ReadState),
    /// Read from the start (new, replaced, shrunk or rewritten): the texts given are all of it.
    Full(ReadState),
}

/// Reads `path` beyond `base` (from the start without one, or when the file is not the one
/// `base` read), calling `text` with every searchable text of the complete lines read. Lines
/// that are not JSON records are skipped.
pub fn read(
    path: &Path,
    base: Option<&ReadState>,
    mut text: impl FnMut(&str),
) -> io::Result<Outcome> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Outcome::Gone),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(Outcome::Gone);
    }
    let mut lines = Appended::new(file, &meta, base)?;
    let continued = lines.continued();
    if let Some(b) = base
        && continued
        && meta.len() == b.offset
    {
        return Ok(Outcome::Unchanged);
    }
    let mut entries = Vec::new();
    while let Some(line) = lines.next_line()? {
        entries.clear();
        if let Some(title) = transcripts::render_line(line, &mut entries) {
            text(&title);
        }
        for e in &entries {
            if let Some((_, t)) = entry_text(e) {
                text(&t);
            }
        }
    }
    let state = lines.mark();
    Ok(if continued {
        Outcome::Continued(state)
    } else {
        Outcome::Full(state)
    })
}

/// The searchable text of a transcript entry, and the field it counts as; `None` for entries
/// that are not searched.
pub fn entry_text(e: &TranscriptEntry) -> Option<(SearchField, Cow<'_, str>)> {
    match e {
        TranscriptEntry::User { text, .. } => Some((SearchField::User, Cow::Borrowed(text))),
        TranscriptEntry::Assistant { text, .. } => {
            Some((SearchField::Assistant, Cow::Borrowed(text)))
        }
        TranscriptEntry::ToolUse { name, input, .. } => {
            Some((SearchField::ToolUse, Cow::Owned(tool_use_text(name, input))))
        }
        TranscriptEntry::ToolResult { output, .. } => {
            Some((SearchField::ToolResult, Cow::Borrowed(output)))
        }
        TranscriptEntry::Thinking { .. }
        | TranscriptEntry::Compaction { .. }
        | TranscriptEntry::Interrupted { .. }
        | TranscriptEntry::ApiError { .. } => None,
    }
}

/// A tool call as text: the tool's name, then every string value of its input, in order, one
/// per line (`Bash` + `cargo test -p web`; `Edit` + the path, the old and the new text).
pub fn tool_use_text(name: &str, input: &Value) -> String {
    fn strings(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push('\n');
                out.push_str(s);
            }
            Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
            Value::Object(map) => map.values().for_each(|i| strings(i, out)),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    let mut out = name.to_owned();
    strings(input, &mut out);
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::appended::test_support::append;

    fn texts(path: &Path, base: Option<&ReadState>) -> (Outcome, Vec<String>) {
        let mut out = Vec::new();
        let o = read(path, base, |t| out.push(t.to_owned())).unwrap();
        (o, out)
    }

    fn state(o: Outcome) -> ReadState {
        match o {
            Outcome::Continued(s) | Outcome::Full(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_searchable_text_and_only_complete_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        let lines = [
            r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"why is the build slow"}}"#,
            "not json at all",
            r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hidden"},{"type":"text","text":"Let me look"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo build --timings","timeout":60}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"Finished in 93s"}]}]}}"#,
            r#"{"type":"user","isMeta":true,"message":{"content":"meta text"}}"#,
            r#"{"type":"custom-title","customTitle":"Slow build"}"#,
        ];
        append(&p, (lines.join("\n") + "\n").as_bytes());
        let partial = br#"{"type":"user","message":{"content":"half a li"#;
        append(&p, partial);
        let (o, t) = texts(&p, None);
        assert_eq!(
            t,
            [
                "why is the build slow",
                "Let me look",
                "Bash\ncargo build --timings",
                "Finished in 93s",
                "Slow build"
            ]
        );
        let s = state(o);
        assert!(matches!(o, Outcome::Full(_)));
        assert_eq!(
            s.offset,
            std::fs::metadata(&p).unwrap().len() - partial.len() as u64,
            "the partial line is left"
        );
        // Nothing new beyond the partial line: read on, nothing given.
        let (o, t) = texts(&p, Some(&s));
        assert!(matches!(o, Outcome::Continued(_)) && t.is_empty(), "{o:?}");
        append(&p, b"ne\"}}\n");
        let (o, t) = texts(&p, Some(&s));
        assert!(matches!(o, Outcome::Continued(_)));
        assert_eq!(t, ["half a line"]);
        let s2 = state(o);
        assert_eq!(texts(&p, Some(&s2)).0, Outcome::Unchanged);
    }

    #[test]
    fn replaced_shrunk_and_gone_files_are_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        let line = |t: &str| format!("{{\"type\":\"user\",\"message\":{{\"content\":\"{t}\"}}}}\n");
        append(&p, line("first").as_bytes());
        let s = state(texts(&p, None).0);
        // Rewritten in place, longer: the bytes before the offset differ.
        std::fs::write(&p, line("other") + &line("second")).unwrap();
        let (o, t) = texts(&p, Some(&s));
        assert!(matches!(o, Outcome::Full(_)));
        assert_eq!(t, ["other", "second"]);
        // Shrunk.
        std::fs::write(&p, line("x")).unwrap();
        let (o, t) = texts(&p, Some(&state(o)));
        assert!(matches!(o, Outcome::Full(_)));
        assert_eq!(t, ["x"]);
        std::fs::remove_file(&p).unwrap();
        assert_eq!(texts(&p, Some(&state(o))).0, Outcome::Gone);
    }

    #[test]
    fn entry_indexes_match_the_rendering() {
        // Every entry that has text gives exactly one, in rendering order.
        let dir = tempfile::tempdir().unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let releases = ["claude-cli-2.1.332", "claude-cli-2.1.197"];
        let dirs = releases.iter().flat_map(|release| {
            std::fs::read_dir(fixtures.join(release).join("transcripts"))
                .unwrap()
                .flatten()
        });
        let mut checked = 0;
        for d in dirs {
            for f in std::fs::read_dir(d.path()).unwrap().flatten() {
                if f.path().extension().is_none_or(|e| e != "jsonl") {
                    continue;
                }
                let copy = dir.path().join("c.jsonl");
                std::fs::copy(f.path(), &copy).unwrap();
                let rendered: Vec<String> = transcripts::render(&copy)
                    .unwrap()
                    .iter()
                    .filter_map(|e| entry_text(e).map(|(_, t)| t.into_owned()))
                    .collect();
                let mut read_texts = Vec::new();
                let mut titles = 0;
                read(&copy, None, |t| read_texts.push(t.to_owned())).unwrap();
                let text = std::fs::read_to_string(&copy).unwrap();
                for l in text.lines() {
                    if l.contains("\"custom-title\"") {
                        titles += 1;
                    }
                }
                assert_eq!(
                    read_texts.len(),
                    rendered.len() + titles,
                    "{}",
                    f.path().display()
                );
                checked += 1;
            }
        }
        assert!(checked >= 8);
    }
}
