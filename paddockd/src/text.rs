//! Text cut to a length for what is listed (titles, prompts, statuses): one rule everywhere.

/// The first `max` characters of `text`, with `…` added when there was more.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => {
            // Exactly as long as it needs: listings keep thousands of these.
            let mut out = String::with_capacity(at + '…'.len_utf8());
            out.push_str(&text[..at]);
            out.push('…');
            out
        }
        None => text.to_owned(),
    }
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
    }
}
