//! Small text helpers shared by the fake CLI and the Messages API stand-in.

/// Splits `text` into at most `n` non-empty pieces of near-equal length (in chars), in order.
/// An empty text gives no pieces.
pub fn split_chunks(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let n = n.clamp(1, chars.len().max(1));
    if chars.is_empty() {
        return Vec::new();
    }
    let base = chars.len() / n;
    let extra = chars.len() % n;
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let len = base + usize::from(i < extra);
        out.push(chars[start..start + len].iter().collect());
        start += len;
    }
    out
}

/// A short random hex id (24 chars), for message, request and tool ids.
pub fn short_id() -> String {
    let mut s = uuid::Uuid::new_v4().simple().to_string();
    s.truncate(24);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_text() {
        assert_eq!(split_chunks("echo: hello", 3), ["echo", ": he", "llo"]);
        assert_eq!(split_chunks("ab", 3), ["a", "b"]);
        assert!(split_chunks("", 3).is_empty());
        assert_eq!(split_chunks("é😀x", 0), ["é😀x"]);
        assert_eq!(split_chunks("abcdef", 3).concat(), "abcdef");
    }
}
