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
    first_value(json, depth, out, |_| ());
}

/// Appends the JSON value `json` begins with, laid out as if it began `depth` levels deep,
/// and a newline: `paddock ls --json`'s rows straight from the reply's `chats` array, which
/// is not split into rows first (that was a third of the command's work). `each` is called
/// with `out` after each element of it (to write out what is there so far). Returns how long
/// the value is in `json`; `None` when it does not end (what came is in `out` regardless).
pub fn array_text(json: &str, out: &mut String, each: impl FnMut(&mut String)) -> Option<usize> {
    let end = first_value(json, 0, out, each)?;
    out.push('\n');
    Some(end)
}

/// The one pass of [`value_at`] and [`array_text`]: lays out the value `json` begins with,
/// `depth` levels deep, calling `each` after each of its elements (or members), and returns
/// where the value ends (`None`: it does not, or a bracket closes what was not opened).
fn first_value(
    json: &str,
    base: usize,
    out: &mut String,
    mut each: impl FnMut(&mut String),
) -> Option<usize> {
    let bytes = json.as_bytes();
    let mut depth = base;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                let end = string_end(bytes, i)?;
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
                    continue;
                }
            }
            b'}' | b']' => {
                if depth == base {
                    return None;
                }
                depth -= 1;
                newline(depth, out);
                out.push(char::from(b));
                i += 1;
            }
            b',' => {
                out.push(',');
                newline(depth, out);
                i = skip_space(bytes, i + 1);
                if depth == base + 1 {
                    each(out);
                }
                continue;
            }
            b':' => {
                out.push_str(": ");
                i = skip_space(bytes, i + 1);
                continue;
            }
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
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
        // A string, a scalar or a closing bracket ended a value: the whole one, at `base`.
        if depth == base {
            return Some(i);
        }
    }
    None
}

/// Where the string starting at `start` (its opening quote) ends: just past its closing quote
/// (`None`: it does not end).
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while let Some(rest) = bytes.get(i..) {
        match memchr::memchr2(b'"', b'\\', rest) {
            Some(n) if rest.get(n) == Some(&b'\\') => i += n + 2,
            Some(n) => return Some(i + n + 1),
            None => break,
        }
    }
    None
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

    #[test]
    fn an_array_is_laid_out_from_its_text_and_its_end_found() {
        let rows = vec![
            ChatSummary {
                session_id: "s1".into(),
                title: "a ] and a } in \"a\" title, \\".into(),
                children: vec!["s2".into()],
                ..ChatSummary::default()
            },
            ChatSummary {
                session_id: "s2".into(),
                level: 1,
                ..ChatSummary::default()
            },
        ];
        let array = serde_json::to_string(&rows).expect("encodes");
        let pretty = serde_json::to_string_pretty(&rows).expect("encodes") + "\n";
        for (text, rows_json, want) in [
            (format!("{array},\"revision\":3}}"), array.clone(), pretty),
            ("[]}".to_owned(), "[]".to_owned(), "[]\n".to_owned()),
        ] {
            let (mut out, mut written, mut chunks) = (String::new(), String::new(), 0);
            let end = array_text(&text, &mut out, |out| {
                chunks += 1;
                written.push_str(&std::mem::take(out));
            });
            written.push_str(&out);
            assert_eq!(end, Some(rows_json.len()));
            assert_eq!(written, want);
            if rows_json.len() > 2 {
                assert_eq!(chunks, 1, "called between the two rows");
            }
        }
        // An array cut anywhere does not end; a bracket closing nothing ends nothing.
        for cut in 0..array.len() {
            let mut out = String::new();
            assert_eq!(array_text(&array[..cut], &mut out, |_| ()), None, "{cut}");
        }
        assert_eq!(array_text("]", &mut String::new(), |_| ()), None);
    }
}
