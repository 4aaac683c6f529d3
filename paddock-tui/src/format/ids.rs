//! How a listing shows session ids, one rule for every listing command (`ls`, `search`,
//! `usage`, `approvals`): on a terminal, short — the first [`SHORT`] characters, longer only
//! where two listed ids share them, so every shown id is a unique prefix a command accepts
//! back; piped, and in `--json`, the whole id, for scripts.

use std::io::IsTerminal as _;

/// The characters a shown id has at least (as the README and `paddock usage` show them).
pub const SHORT: usize = 8;

/// How ids are shown: whole, or as short unique prefixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdForm {
    Whole,
    Short,
}

impl IdForm {
    /// Short on a terminal, whole when stdout goes to a file or a pipe.
    pub fn for_stdout() -> Self {
        if std::io::stdout().is_terminal() {
            Self::Short
        } else {
            Self::Whole
        }
    }

    /// Each of `ids` as shown: whole, or its shortest prefix of at least [`SHORT`]
    /// characters that no other listed id starts with (the whole id when it is a prefix of
    /// another, or shorter than that).
    pub fn show<'a>(self, ids: &[&'a str]) -> Vec<&'a str> {
        if self == Self::Whole {
            return ids.to_vec();
        }
        let mut sorted: Vec<&str> = ids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        ids.iter()
            .map(|id| {
                let at = sorted.binary_search(id).unwrap_or(0);
                let shared = [at.checked_sub(1), Some(at + 1)]
                    .into_iter()
                    .flatten()
                    .filter_map(|i| sorted.get(i))
                    .map(|other| common_prefix(id, other))
                    .max()
                    .unwrap_or(0);
                prefix(id, SHORT.max(shared + 1))
            })
            .collect()
    }
}

/// The first `chars` characters of `id` (all of it when shorter).
fn prefix(id: &str, chars: usize) -> &str {
    id.char_indices().nth(chars).map_or(id, |(at, _)| &id[..at])
}

/// How many characters `a` and `b` begin with in common.
fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_are_eight_characters_longer_only_where_two_share_them() {
        let ids = [
            "0198c3e1-aaaa-4000-8000-000000000001",
            "5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90",
            "0198c3e1-aaab-4000-8000-000000000002",
            "5f0c2d8e",
        ];
        assert_eq!(
            IdForm::Short.show(&ids),
            ["0198c3e1-aaaa", "5f0c2d8e-", "0198c3e1-aaab", "5f0c2d8e"]
        );
        assert_eq!(IdForm::Whole.show(&ids), ids.to_vec());
        assert_eq!(IdForm::Short.show(&["s1", "s2"]), ["s1", "s2"]);
    }

    #[test]
    fn every_shown_id_names_one_listed_id() {
        let ids: Vec<String> = (0..300)
            .map(|i| format!("{:08x}-{:04x}", i / 7, i * 31 % 1000))
            .collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        for (shown, id) in IdForm::Short.show(&refs).iter().zip(&refs) {
            assert!(id.starts_with(shown) && shown.len() >= SHORT);
            let named = refs.iter().filter(|o| o.starts_with(shown)).count();
            assert_eq!(named, 1, "{shown} names {named}");
        }
    }
}
