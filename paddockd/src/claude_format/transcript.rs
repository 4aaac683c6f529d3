//! The records of a transcript, `<claude-home>/projects/<enc-cwd>/<session>.jsonl`
//! (docs/claude-cli.md §6): one JSON object per line, written by the CLI and never by paddockd.
//!
//! [`Record::decode`] reads a whole record (for rendering, adopt, the provenance harvest);
//! [`Head`] reads only the few fields the live index needs and skips the rest unparsed, since
//! the index reads every byte of every transcript.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::content::{Block, Message};
use super::{flag, str_of, string_of, u64_of};

/// One transcript record.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub uuid: Option<String>,
    pub timestamp: Option<String>,
    /// The working directory the CLI ran in.
    pub cwd: Option<String>,
    /// `isSidechain`, when the record says.
    pub sidechain: Option<bool>,
    pub kind: RecordKind,
}

/// What a record is.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordKind {
    User {
        message: Message,
        /// `isMeta`: context the CLI added, not typed by anyone.
        is_meta: bool,
        /// `isCompactSummary`: the summary a compaction wrote.
        is_compact_summary: bool,
    },
    Assistant {
        message: Message,
        /// `isApiErrorMessage`: an API error written as a message, with its HTTP status.
        api_error: Option<Option<u16>>,
    },
    /// `custom-title`: the title set with `/rename` (an empty one clears it).
    CustomTitle(String),
    CompactBoundary {
        pre_tokens: Option<u64>,
        post_tokens: Option<u64>,
    },
    /// Any other record (`summary`, `file-history-snapshot`, other `system` subtypes, …).
    Other,
}

impl Record {
    /// Decodes one line; `None` for a line that is not a JSON object.
    pub fn parse(line: &[u8]) -> Option<Self> {
        let v = serde_json::from_slice::<Value>(line).ok()?;
        v.is_object().then(|| Self::decode(&v))
    }

    pub fn decode(v: &Value) -> Self {
        let kind = match str_of(v, "type") {
            Some("user") => RecordKind::User {
                message: Message::decode(v.get("message")),
                is_meta: flag(v, "isMeta"),
                is_compact_summary: flag(v, "isCompactSummary"),
            },
            Some("assistant") => RecordKind::Assistant {
                message: Message::decode(v.get("message")),
                api_error: flag(v, "isApiErrorMessage")
                    .then(|| u64_of(v, "apiErrorStatus").and_then(|s| u16::try_from(s).ok())),
            },
            Some("custom-title") => {
                RecordKind::CustomTitle(string_of(v, "customTitle").unwrap_or_default())
            }
            Some("system") if str_of(v, "subtype") == Some("compact_boundary") => {
                let meta = v.get("compactMetadata").unwrap_or(&Value::Null);
                RecordKind::CompactBoundary {
                    pre_tokens: u64_of(meta, "preTokens"),
                    post_tokens: u64_of(meta, "postTokens"),
                }
            }
            _ => RecordKind::Other,
        };
        Self {
            uuid: string_of(v, "uuid"),
            timestamp: string_of(v, "timestamp"),
            cwd: string_of(v, "cwd"),
            sidechain: v.get("isSidechain").and_then(Value::as_bool),
            kind,
        }
    }

    /// The message of a user or assistant record.
    pub fn message(&self) -> Option<&Message> {
        match &self.kind {
            RecordKind::User { message, .. } | RecordKind::Assistant { message, .. } => {
                Some(message)
            }
            _ => None,
        }
    }

    /// The content blocks of a user or assistant record (none for other records).
    pub fn blocks(&self) -> Vec<Block> {
        self.message()
            .map(|m| m.content.blocks())
            .unwrap_or_default()
    }

    /// The text of a user record that someone typed: not meta, not a compaction summary, with
    /// text (tool results alone have none). Interruption markers and slash-command envelopes
    /// are included: see [`is_envelope`].
    pub fn typed_text(&self) -> Option<String> {
        match &self.kind {
            RecordKind::User {
                message,
                is_meta: false,
                is_compact_summary: false,
            } => message.content.text(),
            _ => None,
        }
    }

    /// Whether this is an assistant message of a real model (not `<synthetic>`).
    pub fn is_model_reply(&self) -> bool {
        matches!(&self.kind, RecordKind::Assistant { message, .. }
            if message.model.as_deref().is_some_and(|m| !m.starts_with('<')))
    }
}

/// The `subagents/agent-<id>.meta.json` file the CLI writes beside a session's transcript for
/// each subagent (docs/claude-cli.md §12).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SubagentMeta {
    /// The Agent tool call that started it.
    pub tool_use_id: Option<String>,
    /// 1 for a subagent of the chat itself, more for a subagent's own subagents.
    pub spawn_depth: u64,
    pub agent_type: Option<String>,
    pub description: Option<String>,
    /// The model; 2.1.197 does not name it here (its transcript's replies do).
    pub model: Option<String>,
    /// `finished`; `None` where the release does not write it (2.1.197): then a subagent has
    /// finished when its transcript ends with a reply that calls no tool.
    pub finished: Option<bool>,
}

impl SubagentMeta {
    /// Reads the file; one that is missing or not JSON reads as an unfinished subagent.
    pub fn read(path: &std::path::Path) -> Self {
        let v = std::fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .unwrap_or(Value::Null);
        let text = |k| string_of(&v, k).filter(|s| !s.is_empty());
        Self {
            tool_use_id: text("toolUseId"),
            spawn_depth: u64_of(&v, "spawnDepth").unwrap_or(1),
            agent_type: text("agentType"),
            description: text("description"),
            model: text("model"),
            finished: v.get("finished").and_then(Value::as_bool),
        }
    }
}

/// Whether a user text is the CLI's own rather than a prompt: an interruption marker, or the
/// envelope it writes around a slash command and its local output (`<command-name>/compact…`,
/// `<local-command-stdout>…`).
pub fn is_envelope(text: &str) -> bool {
    let t = text.trim_start();
    ["[Request interrupted", "<command-", "<local-command-"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// Whether a user text is the marker the CLI writes when a turn was interrupted.
pub fn is_interrupt_marker(text: &str) -> bool {
    text.starts_with("[Request interrupted by user")
}

/// What an interrupt marker means, in words a person reads (the marker itself is the CLI's
/// own text, and says "by user" whoever stopped the turn).
pub fn interrupted_words(marker: &str) -> &'static str {
    if marker.contains("tool use") {
        "the turn was stopped during a tool call"
    } else {
        "the turn was stopped before it finished"
    }
}

/// The CLI's `errors` of a failed `result` that a person can read: its diagnostics
/// (`[ede_diagnostic] result_type=user …`) are its internals, not a reason.
pub fn readable_errors(errors: &[String]) -> Option<String> {
    let readable: Vec<&str> = errors
        .iter()
        .map(|e| e.trim())
        .filter(|e| !e.is_empty() && !e.starts_with("[ede_diagnostic]"))
        .collect();
    (!readable.is_empty()).then(|| readable.join("; "))
}

/// The fields of a record the live index reads; everything else is skipped unparsed, and the
/// strings are borrowed from the line where JSON escaping allows.
#[derive(Deserialize)]
pub struct Head<'a> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "isMeta", default)]
    pub is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary", default)]
    pub is_compact_summary: Option<bool>,
    #[serde(rename = "customTitle", borrow, default)]
    pub custom_title: Option<Cow<'a, str>>,
    #[serde(rename = "requestedModel", borrow, default)]
    pub requested_model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub message: Option<HeadMessage<'a>>,
}

impl<'a> Head<'a> {
    /// `None` for a line that is not a record.
    pub fn parse(line: &'a [u8]) -> Option<Self> {
        serde_json::from_slice(line).ok()
    }

    /// As [`Record::typed_text`].
    pub fn typed_text(&self) -> Option<String> {
        if self.kind.as_deref() != Some("user")
            || self.is_meta == Some(true)
            || self.is_compact_summary == Some(true)
        {
            return None;
        }
        self.message.as_ref()?.content.as_ref()?.0.clone()
    }
}

/// The message fields [`Head`] reads.
#[derive(Deserialize)]
pub struct HeadMessage<'a> {
    #[serde(borrow, default)]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub model: Option<Cow<'a, str>>,
    #[serde(default)]
    pub content: Option<ContentText>,
    #[serde(default)]
    pub usage: Option<HeadUsage>,
}

/// A message's usage as [`Head`] reads it.
#[derive(Deserialize, Clone, Copy)]
pub struct HeadUsage {
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
}

/// The text of a message's content: the string, or its `text` blocks joined by newlines.
/// Other blocks (tool results, images, tool input) are skipped without being built.
pub struct ContentText(pub Option<String>);

#[derive(Deserialize)]
struct TextBlock<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

impl<'de> Deserialize<'de> for ContentText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContentText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("message content")
            }
            fn visit_str<E>(self, s: &str) -> Result<ContentText, E> {
                Ok(ContentText(Some(s.to_owned())))
            }
            fn visit_string<E>(self, s: String) -> Result<ContentText, E> {
                Ok(ContentText(Some(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ContentText, A::Error> {
                let mut text: Option<String> = None;
                while let Some(block) = seq.next_element::<TextBlock<'de>>()? {
                    if block.kind.as_deref() != Some("text") {
                        continue;
                    }
                    let Some(t) = block.text else { continue };
                    match &mut text {
                        Some(acc) => {
                            acc.push('\n');
                            acc.push_str(&t);
                        }
                        None => text = Some(t.into_owned()),
                    }
                }
                Ok(ContentText(text))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ContentText, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ContentText(None))
            }
            fn visit_unit<E>(self) -> Result<ContentText, E> {
                Ok(ContentText(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<ContentText, E> {
                Ok(ContentText(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<ContentText, E> {
                Ok(ContentText(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<ContentText, E> {
                Ok(ContentText(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<ContentText, E> {
                Ok(ContentText(None))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::path::Path;

    /// Both decoders agree on every record of every captured transcript of every release.
    #[test]
    fn head_and_record_agree_on_every_captured_record() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let mut records = 0;
        let mut stack: Vec<std::path::PathBuf> = std::fs::read_dir(&root)
            .unwrap()
            .flatten()
            .map(|e| e.path().join("transcripts"))
            .collect();
        while let Some(p) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&p) else {
                continue;
            };
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|x| x != "jsonl") {
                    continue;
                }
                let bytes = std::fs::read(&path).unwrap();
                for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                    let (Some(head), Some(rec)) = (Head::parse(line), Record::parse(line)) else {
                        continue;
                    };
                    assert_eq!(head.typed_text(), rec.typed_text(), "{}", path.display());
                    assert_eq!(
                        head.message.as_ref().and_then(|m| m.id.as_deref()),
                        rec.message().and_then(|m| m.id.as_deref())
                    );
                    records += 1;
                }
            }
        }
        assert!(records > 200, "only {records} records");
    }

    #[test]
    fn odd_records_are_other_not_errors() {
        assert_eq!(Record::parse(b"[1,2]"), None);
        assert_eq!(Record::parse(b"not json"), None);
        let r = Record::parse(br#"{"type":"assistant","isApiErrorMessage":true,"apiErrorStatus":529,"message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error"}]}}"#).unwrap();
        assert!(matches!(
            r.kind,
            RecordKind::Assistant {
                api_error: Some(Some(529)),
                ..
            }
        ));
        assert!(!r.is_model_reply());
        let r = Record::parse(br#"{"type":"queue-operation","x":{}}"#).unwrap();
        assert_eq!(r.kind, RecordKind::Other);
    }
}
