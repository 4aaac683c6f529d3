//! Messages and their content blocks, as both stdout (`assistant` and `user` lines) and the
//! transcripts carry them (docs/claude-cli.md §3, §6).

use serde_json::Value;

use super::{flag, str_of, string_of, u64_of};

/// One block of a message's `content`.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    Thinking(String),
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        /// The result's content as text (see [`content_text`]).
        output: String,
        is_error: bool,
    },
    /// Images, documents, redacted thinking, and block types not known yet.
    Other,
}

impl Block {
    pub fn decode(b: &Value) -> Self {
        match str_of(b, "type") {
            Some("text") => Self::Text(string_of(b, "text").unwrap_or_default()),
            Some("thinking") => Self::Thinking(string_of(b, "thinking").unwrap_or_default()),
            Some("tool_use") => Self::ToolUse {
                id: string_of(b, "id").unwrap_or_default(),
                name: string_of(b, "name").unwrap_or_default(),
                input: b.get("input").cloned().unwrap_or(Value::Null),
            },
            Some("tool_result") => Self::ToolResult {
                tool_use_id: string_of(b, "tool_use_id").unwrap_or_default(),
                output: content_text(b.get("content")),
                is_error: flag(b, "is_error"),
            },
            _ => Self::Other,
        }
    }
}

/// A message's `content`: a plain string (a typed prompt), or blocks.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Content {
    #[default]
    None,
    Text(String),
    Blocks(Vec<Block>),
}

impl Content {
    pub fn decode(v: Option<&Value>) -> Self {
        match v {
            Some(Value::String(s)) => Self::Text(s.clone()),
            Some(Value::Array(blocks)) => Self::Blocks(blocks.iter().map(Block::decode).collect()),
            _ => Self::None,
        }
    }

    /// The blocks (a plain string is one text block).
    pub fn blocks(&self) -> Vec<Block> {
        match self {
            Self::None => Vec::new(),
            Self::Text(s) => vec![Block::Text(s.clone())],
            Self::Blocks(b) => b.clone(),
        }
    }

    /// The text: the string, or the text blocks joined by newlines; `None` without any.
    pub fn text(&self) -> Option<String> {
        match self {
            Self::None => None,
            Self::Text(s) => Some(s.clone()),
            Self::Blocks(blocks) => {
                let texts: Vec<&str> = blocks
                    .iter()
                    .filter_map(|b| match b {
                        Block::Text(t) => Some(t.as_str()),
                        _ => None,
                    })
                    .collect();
                (!texts.is_empty()).then(|| texts.join("\n"))
            }
        }
    }
}

/// Token counts of a message or a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// `None` unless `v` is an object.
    pub fn decode(v: Option<&Value>) -> Option<Self> {
        let u = v.filter(|u| u.is_object())?;
        let n = |k| u64_of(u, k).unwrap_or(0);
        Some(Self {
            input_tokens: n("input_tokens"),
            output_tokens: n("output_tokens"),
            cache_creation_input_tokens: n("cache_creation_input_tokens"),
            cache_read_input_tokens: n("cache_read_input_tokens"),
        })
    }
}

/// The `message` of an `assistant` or `user` line or record.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Message {
    /// The API's message id (`msg_…`); assistant messages only. One message is written as one
    /// record per content block, all with this id.
    pub id: Option<String>,
    /// The model; `<synthetic>` for an error the CLI wrote as a message.
    pub model: Option<String>,
    pub content: Content,
    pub usage: Option<Usage>,
    /// Why the reply stopped (`end_turn`, `tool_use`...): every record of a reply carries the
    /// reply's own, so a text record followed by a tool call says `tool_use` too.
    pub stop_reason: Option<String>,
}

impl Message {
    pub fn decode(v: Option<&Value>) -> Self {
        let Some(m) = v.filter(|m| m.is_object()) else {
            return Self::default();
        };
        Self {
            id: string_of(m, "id"),
            model: string_of(m, "model"),
            content: Content::decode(m.get("content")),
            usage: Usage::decode(m.get("usage")),
            stop_reason: string_of(m, "stop_reason"),
        }
    }
}

/// A tool result's content as text: a string, or the text of its blocks; any other JSON as
/// JSON text.
pub fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| str_of(b, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) if !other.is_null() => other.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_of_every_kind_and_unknown_ones() {
        let c = Content::decode(Some(&json!([
            {"type": "text", "text": "a"},
            {"type": "thinking", "thinking": "t"},
            {"type": "tool_use", "id": "tu", "name": "Bash", "input": {"command": "ls"}},
            {"type": "tool_result", "tool_use_id": "tu", "content": [{"type": "text", "text": "out"}], "is_error": true},
            {"type": "image", "source": {}},
            {"type": "text", "text": 5},
            "not a block"
        ])));
        let Content::Blocks(b) = &c else {
            panic!("blocks: {c:?}")
        };
        assert_eq!(b[0], Block::Text("a".into()));
        assert_eq!(b[1], Block::Thinking("t".into()));
        assert!(matches!(&b[2], Block::ToolUse { name, .. } if name == "Bash"));
        assert_eq!(
            b[3],
            Block::ToolResult {
                tool_use_id: "tu".into(),
                output: "out".into(),
                is_error: true
            }
        );
        assert_eq!(b[4], Block::Other);
        // A field of the wrong type reads as absent; a non-object block is another block.
        assert_eq!(b[5], Block::Text(String::new()));
        assert_eq!(b[6], Block::Other);
        assert_eq!(c.text().as_deref(), Some("a\n"));
    }

    #[test]
    fn content_text_of_strings_blocks_and_other_json() {
        assert_eq!(content_text(Some(&json!("x"))), "x");
        assert_eq!(
            content_text(Some(&json!([{"text": "a"}, {"text": "b"}]))),
            "a\nb"
        );
        assert_eq!(content_text(Some(&json!({"k": 1}))), r#"{"k":1}"#);
        assert_eq!(content_text(None), "");
    }
}
