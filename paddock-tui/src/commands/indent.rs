//! JSON as the daemon wrote it, laid out for `--json` without decoding it: the same text
//! `serde_json::to_string_pretty` gives for the decoded value (two-space indent, `": "`,
//! `[]` and `{}` for empty ones), made by one pass over the bytes. Strings, numbers and
//! literals are copied as they are: the daemon writes them as serde_json does, so a value
//! decoded and encoded again would come out the same.

use serde_json::value::RawValue;

/// Appends `values` laid out as one pretty JSON array, and a newline; `each` is called with
/// `out` after each value (to write out what is there so far).
pub fn array(values: &[&RawValue], out: &mut String, mut each: impl FnMut(&mut String)) {
    if values.is_empty() {
        out.push_str("[]\n");
        return;
    }
    out.push('[');
    for (i, value) in values.iter().enumerate() {
        out.push_str(if i == 0 { "\n  " } else { ",\n  " });
        value_at(value.get(), 1, out);
        each(out);
    }
    out.push_str("\n]\n");
}

/// Appends `json`, one valid JSON value, laid out as if it began `depth` levels deep.
pub fn value_at(json: &str, depth: usize, out: &mut String) {
    let bytes = json.as_bytes();
    let mut depth = depth;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                let end = string_end(bytes, i);
                out.push_str(json.get(i..end).unwrap_or_default());
                i = end;
            }
            b'{' | b'[' => {
                let close = if b == b'{' { b'}' } else { b']' };
                let next = skip_space(bytes, i + 1);
                if bytes.get(next) == Some(&close) {
                    out.push(char::from(b));
                    out.push(char::from(close));
                    i = next + 1;
                } else {
                    depth += 1;
                    out.push(char::from(b));
                    newline(depth, out);
                    i = next;
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(depth, out);
                out.push(char::from(b));
                i += 1;
            }
            b',' => {
                out.push(',');
                newline(depth, out);
                i = skip_space(bytes, i + 1);
            }
            b':' => {
                out.push_str(": ");
                i = skip_space(bytes, i + 1);
            }
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => {
                // A number or a literal: up to the next structural byte or space.
                let end = bytes
                    .get(i..)
                    .and_then(|rest| {
                        rest.iter().position(|c| {
                            matches!(c, b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r')
                        })
                    })
                    .map_or(bytes.len(), |n| i + n);
                out.push_str(json.get(i..end).unwrap_or_default());
                i = end;
            }
        }
    }
}

/// Where the string starting at `start` (its opening quote) ends: just past its closing quote.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while let Some(rest) = bytes.get(i..) {
        match memchr::memchr2(b'"', b'\\', rest) {
            Some(n) if rest.get(n) == Some(&b'\\') => i += n + 2,
            Some(n) => return i + n + 1,
            None => break,
        }
    }
    bytes.len()
}

fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

fn newline(depth: usize, out: &mut String) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use paddock_proto::{ChatSummary, ChatUsage};

    fn laid_out(value: &serde_json::Value) -> String {
        let compact = serde_json::to_string(value).expect("encodes");
        let mut out = String::new();
        value_at(&compact, 0, &mut out);
        out
    }

    #[test]
    fn a_value_is_laid_out_as_serde_json_lays_it_out() {
        let values = [
            serde_json::json!({}),
            serde_json::json!([]),
            serde_json::json!("a \"quoted\" \\ string, with: {braces} [and] ✓ \u{1b}"),
            serde_json::json!({"a": [], "b": {}, "c": [1, -2.5e-7, true, null, "x"],
                "d": {"e": {"f": [[], [{}], [[1]]]}}, "g\"h": "\\\\", "": 0.161_006_999_999_999_98}),
            serde_json::json!([{"k": "v"}, [], 3]),
        ];
        for value in values {
            assert_eq!(
                laid_out(&value),
                serde_json::to_string_pretty(&value).expect("encodes")
            );
        }
        // Whitespace between tokens is dropped, not copied.
        let mut out = String::new();
        value_at(" { \"a\" : [ 1 , 2 ] , \"b\" : { } } ", 0, &mut out);
        assert_eq!(out, "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}");
    }

    #[test]
    fn rows_are_laid_out_as_the_decoded_rows_print() {
        let rows = vec![
            ChatSummary {
                session_id: "s1".into(),
                title: "fix: the \"parser\", [then] {the} rest\nnext line".into(),
                children: vec!["s2".into(), "s3".into()],
                usage: Some(ChatUsage {
                    cost_usd: 0.161_006_999_999_999_98,
                    ..ChatUsage::default()
                }),
                ..ChatSummary::default()
            },
            ChatSummary {
                session_id: "s2".into(),
                tree_parent: Some("s1".into()),
                level: 1,
                ..ChatSummary::default()
            },
        ];
        let compact = serde_json::to_string(&rows).expect("encodes");
        let raw: Vec<&RawValue> = serde_json::from_str(&compact).expect("decodes");
        let (mut out, mut written) = (String::new(), String::new());
        array(&raw, &mut out, |out| written.push_str(&std::mem::take(out)));
        written.push_str(&out);
        assert_eq!(
            written,
            serde_json::to_string_pretty(&rows).expect("encodes") + "\n"
        );
        let mut none = String::new();
        array(&[], &mut none, |_| ());
        assert_eq!(none, "[]\n");
    }
}
