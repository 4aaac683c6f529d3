//! The incremental parser of one transcript: feed it complete lines, in file order, and it keeps
//! every field the chat list needs (docs/claude-cli.md §6).
//!
//! A [`Digest`] is plain data, persisted as is, so a transcript that grew is parsed from where
//! the last parse stopped and gives exactly what a parse of the whole file would. That is why
//! token totals are kept per model id as integers (the cost is derived from them when asked, so
//! no float is ever carried across a reload), and why the message being written is kept apart
//! from the finished ones: the CLI writes one `assistant` record per content block, all sharing
//! one `message.id`, and the last record of a message carries its final usage.
//!
//! Lines that are not JSON, records of unknown types and fields of unexpected types are
//! skipped, never fatal.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::claude_format::transcript::{Head, HeadMessage, HeadUsage, is_envelope};

use super::pricing::{Tokens, estimate_usd};

/// The context window of a model: 1M when its id carries the `[1m]` suffix, else 200k.
pub fn context_limit(model: &str) -> u64 {
    if model.contains("[1m]") {
        1_000_000
    } else {
        200_000
    }
}

/// What one transcript says so far, and where in the file it stopped.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Digest {
    /// Bytes consumed: always just past a `'\n'` (or 0). A trailing partial line is not.
    pub offset: u64,
    /// The last `custom-title` record's title (an empty one clears it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_title: Option<String>,
    /// The first prompt, untruncated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_prompt: Option<String>,
    /// The chat's one-line status: the first line of the newest assistant text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_reply: Option<String>,
    /// The first record's timestamp.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// The latest timestamp of a `user` or `assistant` record, and that instant in epoch ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_record_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_record_ms: Option<i64>,
    /// The first and the latest model of a real (not `<synthetic>`) assistant message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_model: Option<String>,
    /// User prompts (not meta, not summaries, with text, not interruptions) and real
    /// assistant messages (distinct message ids).
    pub prompts: u64,
    pub assistant_messages: u64,
    /// From the latest real assistant record: input + cache read + cache creation tokens.
    pub context_tokens: u64,
    pub context_limit: u64,
    /// Tokens of every finished message, per model id.
    pub finished: PerModel,
    /// The assistant message being written (the latest one): its final record's usage so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<CurrentMessage>,
}

/// Token totals per model, in model order. A chat has a model or two: a sorted list costs
/// a few dozen bytes where a map's first node costs some 600 (10,000 chats: 6 MB). Stored as a
/// JSON object, model → tokens.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PerModel(Vec<(String, Tokens)>);

impl PerModel {
    /// Totals per model from a list in any order (a model listed twice: added up).
    pub fn from_list(list: Vec<(String, Tokens)>) -> Self {
        let mut per = Self(Vec::with_capacity(list.len()));
        for (model, tokens) in list {
            per.add(model, &tokens);
        }
        per
    }

    /// Adds `tokens` to `model`'s total.
    pub fn add(&mut self, model: String, tokens: &Tokens) {
        match self.0.binary_search_by(|(m, _)| m.as_str().cmp(&model)) {
            Ok(at) => self.0[at].1.add(tokens),
            Err(at) => self.0.insert(at, (model, *tokens)),
        }
    }

    pub fn values(&self) -> impl Iterator<Item = &Tokens> {
        self.0.iter().map(|(_, t)| t)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Tokens)> {
        self.0.iter().map(|(m, t)| (m.as_str(), t))
    }
}

impl Serialize for PerModel {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for PerModel {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, Tokens>::deserialize(deserializer)?;
        let mut list: Vec<(String, Tokens)> = map.into_iter().collect();
        list.shrink_to_fit();
        Ok(Self(list))
    }
}

/// The latest assistant message: more records of it may follow.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CurrentMessage {
    pub id: Option<String>,
    pub model: String,
    pub tokens: Tokens,
}

impl Digest {
    /// Feeds bytes that follow [`offset`](Self::offset). Only complete lines are consumed;
    /// returns how many bytes were (the rest must be fed again once its `'\n'` arrived).
    pub fn feed(&mut self, bytes: &[u8]) -> usize {
        let mut consumed = 0;
        while let Some(nl) = bytes[consumed..].iter().position(|&b| b == b'\n') {
            self.feed_line(&bytes[consumed..consumed + nl]);
            consumed += nl + 1;
        }
        self.offset += consumed as u64;
        consumed
    }

    /// Feeds one complete line (without its `'\n'`). Does not move [`offset`](Self::offset).
    pub fn feed_line(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let Some(rec) = Head::parse(line) else {
            return;
        };
        if self.created_at.is_none()
            && let Some(ts) = &rec.timestamp
        {
            self.created_at = Some(ts.to_string());
        }
        match rec.kind.as_deref() {
            Some("user") => {
                self.touch(rec.timestamp.as_deref());
                if let Some(text) = prompt_text(&rec) {
                    self.prompts += 1;
                    if self.first_prompt.is_none() {
                        // A preloaded chat's title is its request, not the project context.
                        self.first_prompt =
                            Some(crate::attachments::request_text(&text).to_owned());
                    }
                }
            }
            Some("assistant") => {
                self.touch(rec.timestamp.as_deref());
                if let Some(message) = rec.message {
                    self.assistant(message, rec.requested_model.as_deref());
                }
            }
            Some("custom-title") => {
                if let Some(title) = rec.custom_title {
                    self.custom_title = (!title.trim().is_empty()).then(|| title.into_owned());
                }
            }
            _ => {}
        }
    }

    fn touch(&mut self, timestamp: Option<&str>) {
        let Some(ts) = timestamp else { return };
        let Ok(at) = chrono::DateTime::parse_from_rfc3339(ts) else {
            return;
        };
        let ms = at.timestamp_millis();
        if self.last_record_ms.is_none_or(|last| ms >= last) {
            self.last_record_ms = Some(ms);
            self.last_record_at = Some(ts.to_owned());
        }
    }

    fn assistant(&mut self, message: HeadMessage<'_>, requested_model: Option<&str>) {
        let Some(model) = message.model.filter(|m| !m.starts_with('<')) else {
            // `<synthetic>`: an API error the CLI wrote as a message. Not a message of the model.
            return;
        };
        if let Some(line) = message
            .content
            .and_then(|c| c.0)
            .as_deref()
            .and_then(|t| t.lines().map(str::trim).find(|l| !l.is_empty()))
        {
            self.last_reply = Some(crate::text::cut(line, STATUS_CHARS));
        }
        let id = message.id.map(Cow::into_owned);
        let same_message = matches!(&self.current, Some(c) if c.id.is_some() && c.id == id);
        if !same_message {
            if let Some(done) = self.current.take() {
                self.finished.add(done.model, &done.tokens);
            }
            self.assistant_messages += 1;
        }
        if self.first_model.is_none() {
            self.first_model = Some(model.to_string());
        }
        if self.last_model.as_deref() != Some(&*model) {
            self.last_model = Some(model.to_string());
        }
        let tokens = match (message.usage, &self.current) {
            (Some(usage), _) => tokens(usage),
            // A record without usage keeps what its message's earlier records said.
            (None, Some(current)) if same_message => current.tokens,
            (None, _) => Tokens::default(),
        };
        if message.usage.is_some() {
            self.context_tokens = tokens
                .input
                .saturating_add(tokens.cache_read)
                .saturating_add(tokens.cache_creation);
            // The `[1m]` suffix may only be on the model that was asked for.
            self.context_limit =
                context_limit(&model).max(requested_model.map_or(0, context_limit));
        }
        // The final record of a message carries its final usage: the latest one wins.
        self.current = Some(CurrentMessage {
            id,
            model: model.into_owned(),
            tokens,
        });
    }

    /// User prompts plus real assistant messages.
    pub fn message_count(&self) -> u64 {
        self.prompts + self.assistant_messages
    }

    /// Token totals, counting each message once (the current one with its latest usage).
    pub fn totals(&self) -> Tokens {
        let mut total = Tokens::default();
        for t in self.finished.values() {
            total.add(t);
        }
        if let Some(c) = &self.current {
            total.add(&c.tokens);
        }
        total
    }

    /// The estimated cost in USD (see `pricing`).
    pub fn cost_usd(&self) -> f64 {
        let finished: f64 = self
            .finished
            .iter()
            .map(|(model, t)| estimate_usd(Some(model), t))
            .sum();
        finished
            + self
                .current
                .as_ref()
                .map_or(0.0, |c| estimate_usd(Some(&c.model), &c.tokens))
    }

    /// The title the chat list shows: the custom title, else the first prompt, else "".
    pub fn title(&self) -> &str {
        self.custom_title
            .as_deref()
            .or(self.first_prompt.as_deref())
            .unwrap_or_default()
    }
}

/// The text of a user record that is a prompt: typed (see [`Head::typed_text`]), not empty,
/// not the CLI's own envelope or interruption marker.
fn prompt_text(rec: &Head<'_>) -> Option<String> {
    let text = rec.typed_text()?;
    (!text.trim().is_empty() && !is_envelope(&text)).then_some(text)
}

/// How long a chat's one-line status may be.
const STATUS_CHARS: usize = 160;

/// `text` cut to `max` characters, with `…` when cut.
fn tokens(usage: HeadUsage) -> Tokens {
    Tokens {
        input: usage.input_tokens.unwrap_or(0),
        output: usage.output_tokens.unwrap_or(0),
        cache_read: usage.cache_read_input_tokens.unwrap_or(0),
        cache_creation: usage.cache_creation_input_tokens.unwrap_or(0),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::path::{Path, PathBuf};

    /// Tokens per model add up per model, stay in model order, and are stored as the JSON
    /// object index files have always held (an index file written before reads the same).
    #[test]
    fn tokens_per_model_add_up_and_are_stored_as_an_object() {
        let t = |input| Tokens {
            input,
            ..Tokens::default()
        };
        let mut per = PerModel::default();
        per.add("sonnet".into(), &t(1));
        per.add("haiku".into(), &t(2));
        per.add("sonnet".into(), &t(4));
        let models: Vec<(&str, u64)> = per.iter().map(|(m, t)| (m, t.input)).collect();
        assert_eq!(models, [("haiku", 2), ("sonnet", 5)]);
        let json = serde_json::to_value(&per).unwrap();
        assert_eq!(json["haiku"]["input"], 2);
        assert_eq!(json["sonnet"]["input"], 5);
        let back: PerModel = serde_json::from_value(json).unwrap();
        assert_eq!(back, per);
        let old: BTreeMap<String, Tokens> = BTreeMap::from([("opus".to_owned(), t(7))]);
        let read: PerModel = serde_json::from_str(&serde_json::to_string(&old).unwrap()).unwrap();
        assert_eq!(read.values().map(|t| t.input).sum::<u64>(), 7);
    }

    /// The transcripts of every supported release's captures (tests/fixtures/claude-cli-*).
    pub(crate) fn fixture_files() -> Vec<PathBuf> {
        let mut files = Vec::new();
        for release in ["claude-cli-2.1.332", "claude-cli-2.1.197"] {
            let root = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/fixtures")
                .join(release)
                .join("transcripts");
            for dir in std::fs::read_dir(root)
                .expect("fixture transcripts")
                .flatten()
            {
                for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
                    if f.path().extension().is_some_and(|e| e == "jsonl") {
                        files.push(f.path());
                    }
                }
            }
        }
        files.sort();
        assert!(
            files.len() >= 50,
            "only {} fixture transcripts",
            files.len()
        );
        files
    }

    fn digest(bytes: &[u8]) -> Digest {
        let mut d = Digest::default();
        d.feed(bytes);
        d
    }

    fn user(text: &str, ts: &str) -> String {
        serde_json::json!({"type":"user","timestamp":ts,"message":{"role":"user","content":text}})
            .to_string()
            + "\n"
    }

    fn assistant(id: &str, model: &str, ts: &str, input: u64, output: u64) -> String {
        serde_json::json!({"type":"assistant","timestamp":ts,"message":{"id":id,"model":model,
            "content":[{"type":"text","text":"x"}],
            "usage":{"input_tokens":input,"output_tokens":output,"cache_read_input_tokens":10,"cache_creation_input_tokens":5}}})
        .to_string()
            + "\n"
    }

    #[test]
    fn digests_every_fixture() {
        let mut titled = 0;
        for path in fixture_files() {
            let bytes = std::fs::read(&path).unwrap();
            let d = digest(&bytes);
            assert_eq!(d.offset, bytes.len() as u64, "{path:?} ends with a newline");
            assert!(d.created_at.is_some(), "{path:?}");
            if !d.title().is_empty() {
                titled += 1;
            }
            if d.assistant_messages > 0 {
                let model = d.last_model.as_deref().unwrap();
                assert!(model.starts_with("claude-"), "{path:?}: {model}");
                assert_eq!(d.context_limit, 200_000);
                assert!(d.totals().output > 0, "{path:?}");
                assert!(d.cost_usd() > 0.0, "{path:?}");
            }
            assert!(d.message_count() >= d.prompts);
        }
        assert!(titled >= 50, "{titled}");

        // Spot checks against what the fixtures are known to hold.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/claude-cli-2.1.332/transcripts/-home-dev-lab-work-dir-1-x");
        let compacted =
            digest(&std::fs::read(dir.join("1a7ebc27-9338-453e-ac08-0016991ca9b2.jsonl")).unwrap());
        assert_eq!(compacted.first_prompt.as_deref(), Some("first message"));
        assert_eq!(
            compacted.created_at.as_deref(),
            Some("2026-11-29T22:52:45.215Z")
        );
        assert_eq!(compacted.assistant_messages, 2);
        assert_eq!(compacted.last_model.as_deref(), Some("claude-opus-5-5"));
        let renamed =
            digest(&std::fs::read(dir.join("7cf0e5a6-9487-4988-a4f9-3aa7cfc41539.jsonl")).unwrap());
        assert_eq!(renamed.title(), "my chat");
        // Two records of one message (text, then tool_use), then a second message.
        let tool =
            digest(&std::fs::read(dir.join("8d7d0ebf-1954-4d77-876e-598889da8d4e.jsonl")).unwrap());
        assert_eq!(tool.assistant_messages, 2);
        assert_eq!(tool.totals().output, 55 + 20);
        assert_eq!(tool.totals().input, 2696 + 2796);
        assert_eq!(tool.context_tokens, 2796);
    }

    #[test]
    fn custom_title_wins_and_the_last_one_counts() {
        let mut text = user("the first prompt\nwith two lines", "2026-01-01T00:00:00Z");
        let d = digest(text.as_bytes());
        assert_eq!(d.title(), "the first prompt\nwith two lines");
        text += "{\"type\":\"custom-title\",\"customTitle\":\"one\"}\n";
        text += "{\"type\":\"custom-title\",\"customTitle\":\"two\"}\n";
        let d = digest(text.as_bytes());
        assert_eq!(d.title(), "two");
        assert_eq!(
            d.first_prompt.as_deref(),
            Some("the first prompt\nwith two lines")
        );
    }

    #[test]
    fn counts_assistant_messages_not_records() {
        let mut text = user("go", "2026-01-01T00:00:00Z");
        text += &assistant("m1", "claude-sonnet-4-5", "2026-01-01T00:00:01Z", 100, 1);
        text += &assistant("m1", "claude-sonnet-4-5", "2026-01-01T00:00:02Z", 100, 7);
        text += "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t\",\"content\":\"ok\"}]}}\n";
        text += &assistant("m2", "claude-sonnet-4-5", "2026-01-01T00:00:03Z", 200, 3);
        text += &assistant("m2", "claude-sonnet-4-5", "2026-01-01T00:00:04Z", 200, 9);
        let d = digest(text.as_bytes());
        assert_eq!(d.prompts, 1);
        assert_eq!(d.assistant_messages, 2);
        assert_eq!(d.message_count(), 3);
        let t = d.totals();
        // Each message once, with its final record's usage.
        assert_eq!(
            (t.input, t.output, t.cache_read, t.cache_creation),
            (300, 16, 20, 10)
        );
        assert_eq!(d.context_tokens, 215);
        assert_eq!(d.last_record_at.as_deref(), Some("2026-01-01T00:00:04Z"));
    }

    #[test]
    fn a_record_without_usage_keeps_its_message_tokens() {
        let mut text = assistant("m1", "claude-sonnet-4-5", "2026-01-01T00:00:01Z", 100, 7);
        text += "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"model\":\"claude-sonnet-4-5\",\"content\":[]}}\n";
        let d = digest(text.as_bytes());
        assert_eq!((d.assistant_messages, d.totals().output), (1, 7));
    }

    #[test]
    fn prompts_exclude_meta_summaries_interrupts_and_tool_results() {
        let mut text = String::new();
        text += "{\"type\":\"user\",\"isMeta\":true,\"message\":{\"content\":\"meta\"}}\n";
        text +=
            "{\"type\":\"user\",\"isCompactSummary\":true,\"message\":{\"content\":\"summary\"}}\n";
        text += "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"[Request interrupted by user]\"}]}}\n";
        text += "{\"type\":\"user\",\"message\":{\"content\":\"<command-name>/compact</command-name>\"}}\n";
        text += "{\"type\":\"user\",\"message\":{\"content\":\"<local-command-stdout>Compacted </local-command-stdout>\"}}\n";
        text += "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"content\":[{\"type\":\"text\",\"text\":\"out\"}]}]}}\n";
        text += "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"image\"},{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}]}}\n";
        let d = digest(text.as_bytes());
        assert_eq!(d.prompts, 1);
        assert_eq!(d.first_prompt.as_deref(), Some("a\nb"));
    }

    #[test]
    fn synthetic_messages_and_garbage_are_skipped() {
        let mut text = String::from(
            "not json\n\n{\"type\":\"weird\",\"timestamp\":\"2026-01-01T00:00:00Z\"}\n[1,2]\n",
        );
        text += "{\"type\":\"user\",\"isMeta\":\"yes\"}\n";
        text += &assistant("m1", "claude-opus-4-5[1m]", "2026-01-01T00:00:01Z", 1000, 1);
        text += &assistant("e1", "<synthetic>", "2026-01-01T00:00:02Z", 0, 0);
        let d = digest(text.as_bytes());
        assert_eq!(d.created_at.as_deref(), Some("2026-01-01T00:00:00Z"));
        assert_eq!(d.assistant_messages, 1);
        assert_eq!(d.last_model.as_deref(), Some("claude-opus-4-5[1m]"));
        assert_eq!(d.context_tokens, 1015);
        assert_eq!(d.context_limit, 1_000_000);
        assert_eq!(d.last_record_at.as_deref(), Some("2026-01-01T00:00:02Z"));
    }

    #[test]
    fn a_partial_line_waits_for_its_newline() {
        let line = user("hello", "2026-01-01T00:00:00Z");
        let (head, tail) = line.split_at(line.len() / 2);
        let mut d = Digest::default();
        assert_eq!(d.feed(head.as_bytes()), 0);
        assert_eq!((d.offset, d.prompts), (0, 0));
        // The caller feeds the unconsumed bytes again with what followed.
        assert_eq!(d.feed(line.as_bytes()), line.len());
        assert_eq!((d.offset, d.prompts), (line.len() as u64, 1));
        assert_eq!(tail.as_bytes().last(), Some(&b'\n'));
    }

    /// Property: splitting any fixture at any line boundary and feeding the two parts
    /// (the second through a persisted and reloaded digest) equals one full parse.
    #[test]
    fn incremental_equals_full_at_every_line_boundary() {
        let mut splits = 0;
        for path in fixture_files() {
            let bytes = std::fs::read(&path).unwrap();
            let full = digest(&bytes);
            for (i, _) in bytes.iter().enumerate().filter(|(_, b)| **b == b'\n') {
                let cut = i + 1;
                let mut d = digest(&bytes[..cut]);
                d = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
                assert_eq!(d.offset, cut as u64);
                d.feed(&bytes[cut..]);
                assert_eq!(d, full, "{path:?} split at byte {cut}");
                assert_eq!(d.cost_usd().to_bits(), full.cost_usd().to_bits());
                splits += 1;
            }
        }
        assert!(splits > 1000, "{splits}");
    }
}
