//! The tokenizer shared by the index, the query parser and the matcher, so the three always
//! agree on what a word is.
//!
//! A token is a maximal run of alphanumeric characters (Unicode: letters and digits of any
//! script), lowercased (Unicode lowercase, so `É` and `é` are one word). Everything else
//! separates tokens: spaces, punctuation, `_`, `-`, `.`, `/`. The index keeps only tokens of at
//! least [`MIN_CHARS`] characters and at most [`MAX_BYTES`] bytes (lowercased); the matcher sees
//! every token, so a phrase still has to match its one-letter words.

/// Shorter tokens are not indexed (`a`, `I`, `x`): they would be in every chat.
pub const MIN_CHARS: usize = 2;
/// Longer tokens are not indexed (hashes, base64): rarely searched, and they dominate memory.
pub const MAX_BYTES: usize = 64;

/// Whether a lowercased token goes into the index.
pub fn indexable(token: &str) -> bool {
    token.len() <= MAX_BYTES && token.chars().nth(MIN_CHARS - 1).is_some()
}

/// Calls `f(start, end, lowercased)` for every token of `text`, in order; `start..end` is the
/// token's byte range in `text` (not in the lowercased form, which may differ in length).
pub fn for_each(text: &str, mut f: impl FnMut(usize, usize, &str)) {
    let mut lower = String::new();
    let mut from = 0;
    while let Some((start, end)) = next(text, from, &mut lower) {
        f(start, end, &lower);
        from = end;
    }
}

/// The next token of `text` at or after byte `from`: its byte range, its lowercased form left
/// in `lower`; `None` when there is none. [`for_each`] is this in a loop; the index's tokenizer
/// calls it one token at a time.
pub fn next(text: &str, from: usize, lower: &mut String) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut start: Option<usize> = None;
    let mut i = from;
    while i < bytes.len() {
        let b = bytes[i];
        // ASCII, the common case, without decoding.
        let (c, len) = if b.is_ascii() {
            (char::from(b), 1)
        } else {
            match text.get(i..).and_then(|rest| rest.chars().next()) {
                Some(c) => (c, c.len_utf8()),
                None => break,
            }
        };
        if c.is_alphanumeric() {
            if start.is_none() {
                start = Some(i);
                lower.clear();
            }
            if b.is_ascii() {
                lower.push(char::from(b.to_ascii_lowercase()));
            } else {
                lower.extend(c.to_lowercase());
            }
        } else if let Some(s) = start {
            return Some((s, i));
        }
        i += len;
    }
    start.map(|s| (s, text.len()))
}

/// Whether `text` (a token's original form) lowercases to `want`, or to a string starting
/// with it when `prefix`. Lowercases as [`for_each`] does, without allocating.
pub fn lowercases_to(text: &str, want: &str, prefix: bool) -> bool {
    let mut lowered = text.chars().flat_map(char::to_lowercase);
    let mut want = want.chars();
    loop {
        match (want.next(), lowered.next()) {
            (None, None) => return true,
            (None, Some(_)) => return prefix,
            (Some(_), None) => return false,
            (Some(w), Some(l)) if w == l => {}
            _ => return false,
        }
    }
}

/// Every token of `text`, lowercased, with its byte range.
pub fn tokens(text: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for_each(text, |s, e, t| out.push((s, e, t.to_owned())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        tokens(text).into_iter().map(|t| t.2).collect()
    }

    #[test]
    fn splits_on_anything_not_alphanumeric_and_lowercases() {
        assert_eq!(
            words("Fix the cookie_refresh race (v2.1) in src/auth-Cookie.ts!"),
            [
                "fix", "the", "cookie", "refresh", "race", "v2", "1", "in", "src", "auth",
                "cookie", "ts"
            ]
        );
        assert_eq!(words("  "), Vec::<String>::new());
        assert_eq!(
            words("ÉCOLE Straße 東京タワー"),
            ["école", "straße", "東京タワー"]
        );
    }

    #[test]
    fn byte_ranges_are_of_the_original_text() {
        let text = "Ünïcode → ÀB ok";
        let t = tokens(text);
        assert_eq!(&text[t[0].0..t[0].1], "Ünïcode");
        assert_eq!(&text[t[1].0..t[1].1], "ÀB");
        assert_eq!(t[1].2, "àb");
        assert_eq!(&text[t[2].0..t[2].1], "ok");
        // A lowercase form longer than the original (İ → i̇) keeps the original's range.
        let t = tokens("xİy z");
        assert_eq!((t[0].0, t[0].1), (0, 4));
    }

    #[test]
    fn lowercase_comparison_without_allocating() {
        assert!(lowercases_to("Refresh", "refresh", false));
        assert!(lowercases_to("Refresh", "refr", true));
        assert!(!lowercases_to("Refresh", "refr", false));
        assert!(!lowercases_to("Ref", "refr", true));
        assert!(lowercases_to("ÉCOLE", "éc", true));
        assert!(lowercases_to("xİy", &tokens("xİy")[0].2, false));
    }

    #[test]
    fn what_is_indexed() {
        assert!(!indexable("a"));
        assert!(!indexable("é"));
        assert!(indexable("ab"));
        assert!(indexable("東京"));
        assert!(indexable(&"x".repeat(MAX_BYTES)));
        assert!(!indexable(&"x".repeat(MAX_BYTES + 1)));
    }
}
