//! Snippets: one line of a text around where a query matched, with the matched parts as
//! character offsets into that line.

use super::query::Found;

/// Characters of text in a snippet (the `…` marks come on top).
pub const WIDTH: usize = 160;
/// Characters shown before the first match, when the text has them.
const BEFORE: usize = 48;
/// How far the start may move forward to begin at a word.
const SNAP: usize = 12;
const ELLIPSIS: char = '…';

/// A one-line snippet of `text` around the first of `found` (sorted by start; byte ranges into
/// `text`), and the `[start, end)` character offsets of every match within it. Whitespace and
/// control characters collapse into single spaces; `…` marks text left out at either end.
pub fn snippet(text: &str, found: &[Found]) -> (String, Vec<[u32; 2]>) {
    let anchor = found.first().map_or(0, |f| f.start);
    let start = window_start(text, anchor);
    let end = window_end(text, start);
    let mut out = String::new();
    // (byte offset in `text`, char offset in `out`) for every char of the window; a collapsed
    // space maps to where its single space goes (just after the previous character).
    let mut map: Vec<(usize, usize)> = Vec::new();
    let mut chars = 0usize;
    if start > 0 {
        out.push(ELLIPSIS);
        chars += 1;
    }
    let body = chars;
    let mut pending_space = false;
    for (i, c) in text[start..end].char_indices() {
        let at = start + i;
        if is_space(c) {
            pending_space = chars > body;
            map.push((at, chars));
            continue;
        }
        if pending_space {
            out.push(' ');
            chars += 1;
            pending_space = false;
        }
        map.push((at, chars));
        out.push(c);
        chars += 1;
    }
    let visible = chars;
    if text[end..].chars().any(|c| !is_space(c)) {
        out.push(ELLIPSIS);
    }
    let char_at = |byte: usize| -> usize {
        // The char at `byte`, or, past the window, the end of the visible text.
        let i = map.partition_point(|&(b, _)| b < byte);
        map.get(i).map_or(visible, |&(_, c)| c.min(visible))
    };
    let mut highlights: Vec<[u32; 2]> = Vec::new();
    for f in found {
        if f.end <= start || f.start >= end {
            continue;
        }
        let s = char_at(f.start.max(start));
        let e = char_at(f.end.min(end));
        if e > s {
            let pair = [to_u32(s), to_u32(e)];
            match highlights.last_mut() {
                Some(last) if last[1] >= pair[0] => last[1] = last[1].max(pair[1]),
                _ => highlights.push(pair),
            }
        }
    }
    (out, highlights)
}

fn is_space(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// Where the window ends: after [`WIDTH`] shown characters (collapsed spaces counting one),
/// moved back to the end of a word when one is near.
fn window_end(text: &str, start: usize) -> usize {
    let mut shown = 0usize;
    let mut pending_space = false;
    // The byte where the latest run of spaces began, and how much was shown before it.
    let mut last_gap: Option<(usize, usize)> = None;
    for (i, c) in text[start..].char_indices() {
        let at = start + i;
        if is_space(c) {
            if shown > 0 && !pending_space {
                last_gap = Some((at, shown));
            }
            pending_space = shown > 0;
            continue;
        }
        let need = shown + usize::from(pending_space) + 1;
        if need > WIDTH {
            return match last_gap {
                Some((gap, before)) if shown - before <= SNAP => gap,
                _ => at,
            };
        }
        shown = need;
        pending_space = false;
    }
    text.len()
}

/// Where the window starts: up to [`BEFORE`] characters before `anchor`, moved forward to the
/// start of a word when one is near.
fn window_start(text: &str, anchor: usize) -> usize {
    let before: Vec<(usize, char)> = text[..anchor].char_indices().rev().take(BEFORE).collect();
    let Some(&(first, _)) = before.last() else {
        return anchor;
    };
    if first == 0 || before.len() < BEFORE {
        return 0;
    }
    // `before` runs backwards: its tail is the window's first characters.
    let ahead = before.iter().rev().take(SNAP);
    let mut prev_space = false;
    for &(i, c) in ahead {
        if prev_space && !c.is_whitespace() {
            return i;
        }
        prev_space = c.is_whitespace();
    }
    first
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::query::Query;
    use super::*;

    /// The snippet and its highlighted parts, as text.
    fn shown(query: &str, text: &str) -> (String, Vec<String>) {
        let found = Query::parse(query).find(text);
        let (s, h) = snippet(text, &found);
        let chars: Vec<char> = s.chars().collect();
        let parts = h
            .iter()
            .map(|[a, b]| chars[*a as usize..*b as usize].iter().collect())
            .collect();
        (s, parts)
    }

    #[test]
    fn a_short_text_is_shown_whole_on_one_line() {
        let (s, parts) = shown(
            r#"cookie "refresh race""#,
            "Investigate the cookie\n\n refresh   race\tnow",
        );
        assert_eq!(s, "Investigate the cookie refresh race now");
        assert_eq!(parts, ["cookie", "refresh race"]);
    }

    #[test]
    fn offsets_are_characters_not_bytes() {
        let text = "Ünïcödé → le café crème brûlée, encore un café";
        let (s, parts) = shown("café brûl", text);
        assert_eq!(s, text);
        assert_eq!(parts, ["café", "brûlée", "café"]);
        let found = Query::parse("café").find(text);
        let (_, h) = snippet(text, &found);
        // "Ünïcödé → le " is 13 characters (and 18 bytes).
        assert_eq!(h[0], [13, 17]);
    }

    #[test]
    fn a_long_text_is_cut_around_the_first_match_with_ellipses() {
        let head = "word ".repeat(100);
        let tail = " more".repeat(100);
        let text = format!("{head}the cookie refresh race happens{tail}");
        let (s, parts) = shown("cookie", &text);
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        let n = s.chars().count();
        assert!((WIDTH - SNAP..=WIDTH + 2).contains(&n), "{n} chars: {s}");
        assert!(s.ends_with("more…"), "it ends at a word: {s}");
        assert_eq!(parts, ["cookie"]);
        let at = s.find("cookie").unwrap();
        let before = s[..at].chars().count();
        assert!((30..=60).contains(&before), "{before} chars before: {s}");
        // It starts at a word.
        assert!(s.starts_with("…word "), "{s}");
        // Matches past the window are not highlighted.
        let (s, parts) = shown("cookie mor", &text);
        assert_eq!(parts.len(), 1 + s.matches("more").count());
        assert!(
            parts.iter().all(|p| p == "cookie" || p == "more"),
            "{parts:?}"
        );
    }

    #[test]
    fn multi_byte_text_near_the_cut() {
        let text = format!(
            "{}東京タワー {}",
            "あい ".repeat(100),
            "うえお ".repeat(100)
        );
        let (s, parts) = shown("東京", &text);
        assert_eq!(parts, ["東京タワー"]);
        assert!(s.starts_with('…') && s.ends_with('…'));
        assert!(s.chars().count() <= WIDTH + 2);
        let found = Query::parse("東京").find(&text);
        let (_, h) = snippet(&text, &found);
        let at = s.chars().position(|c| c == '東').unwrap();
        assert_eq!(h, [[to_u32(at), to_u32(at + 5)]]);
    }

    #[test]
    fn no_match_shows_the_start() {
        let (s, h) = snippet("just some text", &[]);
        assert_eq!((s.as_str(), h.len()), ("just some text", 0));
    }
}
