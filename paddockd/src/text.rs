//! Text cut to a length for what is listed (titles, prompts, statuses): one rule everywhere.

/// The first `max` characters of `text`, with `…` added when there was more.
pub fn cut(text: &str, max: usize) -> String {
    match cut_at(text, max) {
        Some(at) => {
            // Exactly as long as it needs: listings keep thousands of these.
            let mut out = String::with_capacity(at + '…'.len_utf8());
            out.push_str(&text[..at]);
            out.push('…');
            out
        }
        None => text.to_owned(),
    }
}

/// Where [`cut`] cuts `text` (a byte offset at a character boundary); `None` when it is
/// short enough whole.
pub fn cut_at(text: &str, max: usize) -> Option<usize> {
    // A character is a byte at least: a text of `max` bytes has `max` characters at most.
    if text.len() <= max {
        return None;
    }
    text.char_indices().nth(max).map(|(at, _)| at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_characters_not_bytes_and_marks_the_cut() {
        assert_eq!(cut("héllo", 5), "héllo");
        assert_eq!(cut("héllo", 2), "hé…");
        assert_eq!(cut("", 0), "");
        assert_eq!(cut("ab", 0), "…");
        assert_eq!(cut_at("héllo", 5), None);
        assert_eq!(cut_at("héllo", 2), Some(3));
        assert_eq!(cut_at("hé", 1), Some(1));
    }
}
