//! The one decoder of what the Claude Code CLI writes: its stream-json stdout lines and the
//! control requests among them ([`stdout`]), and the records of its transcripts
//! ([`transcript`]), both built from the same message and content types ([`content`]).
//!
//! Every reader of the CLI's formats goes through here: the runner's translator and its
//! background-task and permission handling, the transcript renderer (and the search index that
//! reads through it), the index digests, the provenance harvest and adopt. Nothing else looks
//! into the CLI's JSON by key.
//!
//! The decoder is tolerant by construction, because the formats differ between the supported
//! releases (docs/claude-cli.md §15) and grow with every release: an unknown line type or
//! subtype decodes to an `Other` variant, unknown fields are ignored, and a field of an
//! unexpected type reads as absent. Decoding never fails on a JSON object.

pub mod content;
pub mod stdout;
pub mod transcript;

use serde_json::Value;

/// `key` of `v` as a string, if it is one.
pub(crate) fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// `key` of `v` as an owned string, if it is one.
pub(crate) fn string_of(v: &Value, key: &str) -> Option<String> {
    str_of(v, key).map(str::to_owned)
}

/// `key` of `v` as a boolean: `Some(true)` only for JSON `true`.
pub(crate) fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool) == Some(true)
}

/// `key` of `v` as an unsigned integer, if it is one.
pub(crate) fn u64_of(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}
