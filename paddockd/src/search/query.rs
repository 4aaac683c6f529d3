//! Queries: words and `"quoted phrases"`, and finding them in a text.
//!
//! - A word matches any token that starts with it, case aside (`refr` finds `Refresh`). A word
//!   that is several tokens (`auth.ts`, `cookie_refresh`) is matched as those tokens in a row,
//!   the last one again as a start (`auth.t` finds `auth.ts`).
//! - A quoted phrase matches its tokens in a row, each whole, whatever separates them in the
//!   text (`"refresh race"` finds `refresh race`, `Refresh-Race` and `refresh\nrace`). A quote
//!   left open runs to the end of the query and its last token is matched as a start, so a
//!   query typed as you go finds something at every key.
//! - A chat matches when every term (word or phrase) is found in it: in its title or in any of
//!   its messages and tool calls, not necessarily in the same one.
//! - One-letter words are ignored (they would match nearly everything and are not indexed);
//!   inside a phrase they must still be there.

use super::tokens;

/// One word or phrase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// Lowercased tokens, in order.
    pub tokens: Vec<String>,
    /// The last token matches as a start (a word, or a phrase whose quote was left open).
    pub prefix_last: bool,
}

impl Term {
    /// The tokens the index can look up: `(token, is_prefix)`. Tokens too short or too long
    /// to be indexed are left to the matcher.
    pub fn keys(&self) -> Vec<(&str, bool)> {
        let last = self.tokens.len().saturating_sub(1);
        self.tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| tokens::indexable(t))
            .map(|(i, t)| (t.as_str(), self.prefix_last && i == last))
            .collect()
    }
}

/// A parsed query: its terms, each to be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub terms: Vec<Term>,
}

/// Where a term was found in a text: its index in [`Query::terms`] and the byte range it
/// covers (from its first token's start to its last token's end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub term: usize,
    pub start: usize,
    pub end: usize,
}

impl Query {
    /// Parses a query. Terms the index cannot look up (one-letter words, a phrase of only
    /// one-letter words) are dropped, and so are repeated terms: an empty `terms` means there
    /// is nothing to search for.
    pub fn parse(text: &str) -> Self {
        let mut terms: Vec<Term> = Vec::new();
        let mut push = |raw: &str, phrase: bool, closed: bool| {
            let toks: Vec<String> = tokens::tokens(raw).into_iter().map(|t| t.2).collect();
            if toks.is_empty() {
                return;
            }
            let term = Term {
                tokens: toks,
                prefix_last: !(phrase && closed),
            };
            // A lone one-letter word would match nearly every chat.
            let lone_short = term.tokens.len() == 1 && !tokens::indexable(&term.tokens[0]);
            if !lone_short && !term.keys().is_empty() && !terms.contains(&term) {
                terms.push(term);
            }
        };
        let mut rest = text;
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                break;
            }
            if let Some(after) = rest.strip_prefix('"') {
                match after.find('"') {
                    Some(end) => {
                        push(&after[..end], true, true);
                        rest = &after[end + 1..];
                    }
                    None => {
                        push(after, true, false);
                        break;
                    }
                }
            } else {
                let end = rest
                    .find(|c: char| c.is_whitespace() || c == '"')
                    .unwrap_or(rest.len());
                push(&rest[..end], false, false);
                rest = &rest[end..];
            }
        }
        Query { terms }
    }

    /// Every place a term is found in `text`, in text order (a term may be found many times).
    /// Nothing is allocated per token: a term's last token is compared with the token just
    /// read, and only then its earlier ones with the byte ranges of the tokens before it
    /// (kept in a small ring).
    pub fn find(&self, text: &str) -> Vec<Found> {
        let longest = self.terms.iter().map(|t| t.tokens.len()).max().unwrap_or(0);
        let mut out = Vec::new();
        if longest == 0 {
            return out;
        }
        let mut ring: Vec<(usize, usize)> = vec![(0, 0); longest];
        let mut seen = 0usize;
        tokens::for_each(text, |start, end, lower| {
            ring[seen % longest] = (start, end);
            seen += 1;
            // Terms whose last token is this one.
            for (i, term) in self.terms.iter().enumerate() {
                let k = term.tokens.len();
                let Some(last) = term.tokens.last() else {
                    continue;
                };
                let last_ok = if term.prefix_last {
                    lower.starts_with(last.as_str())
                } else {
                    lower == last
                };
                if !last_ok || k > seen {
                    continue;
                }
                let first = seen - k;
                let before_ok = term.tokens[..k - 1].iter().enumerate().all(|(j, want)| {
                    let (s, e) = ring[(first + j) % longest];
                    tokens::lowercases_to(&text[s..e], want, false)
                });
                if before_ok {
                    out.push(Found {
                        term: i,
                        start: ring[first % longest].0,
                        end,
                    });
                }
            }
        });
        out.sort_by_key(|f| (f.start, f.term));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(tokens: &[&str], prefix_last: bool) -> Term {
        Term {
            tokens: tokens.iter().map(|t| (*t).to_owned()).collect(),
            prefix_last,
        }
    }

    #[test]
    fn words_and_phrases() {
        let q = Query::parse(r#"  Cookie "refresh race"  auth.ts "#);
        assert_eq!(
            q.terms,
            [
                term(&["cookie"], true),
                term(&["refresh", "race"], false),
                term(&["auth", "ts"], true),
            ]
        );
        // A quote right after a word starts a phrase.
        let q = Query::parse(r#"fix"the bug""#);
        assert_eq!(
            q.terms,
            [term(&["fix"], true), term(&["the", "bug"], false)]
        );
    }

    #[test]
    fn unbalanced_quotes_run_to_the_end_as_a_prefix() {
        let q = Query::parse(r#"cookie "refresh ra"#);
        assert_eq!(
            q.terms,
            [term(&["cookie"], true), term(&["refresh", "ra"], true)]
        );
        assert_eq!(Query::parse(r#"""#).terms, []);
        assert_eq!(Query::parse(r#""""#).terms, []);
        assert_eq!(Query::parse(r#"a "" b"#).terms, []);
        assert_eq!(
            Query::parse(r#""abc"#).terms,
            [term(&["abc"], true)],
            "an open quote with one word is that word, as a start"
        );
    }

    #[test]
    fn short_words_repeats_and_punctuation_are_dropped() {
        assert_eq!(Query::parse("a I x -- ... ").terms, []);
        assert_eq!(
            Query::parse("ab AB ab").terms,
            [term(&["ab"], true)],
            "repeats are one term"
        );
        // In a phrase, a one-letter word stays (the matcher checks it) but is not a key.
        let q = Query::parse(r#""a cat""#);
        assert_eq!(q.terms, [term(&["a", "cat"], false)]);
        assert_eq!(q.terms[0].keys(), [("cat", false)]);
        assert_eq!(Query::parse(r#""a b""#).terms, [], "nothing to look up");
        // A word too long to be indexed cannot be found.
        assert_eq!(Query::parse(&"x".repeat(65)).terms, []);
    }

    #[test]
    fn finds_words_as_prefixes_and_phrases_in_a_row() {
        let q = Query::parse(r#"refr "cookie race""#);
        let text = "The Refresh of the cookie  race; cookie-race! Cookie races.";
        let found = q.find(text);
        let spans: Vec<(usize, &str)> = found
            .iter()
            .map(|f| (f.term, &text[f.start..f.end]))
            .collect();
        assert_eq!(
            spans,
            [(0, "Refresh"), (1, "cookie  race"), (1, "cookie-race")],
            "`races` is not the whole word `race`"
        );
        // The last token of a word is a prefix, the ones before it are whole.
        let q = Query::parse("auth.t");
        assert_eq!(q.find("see auth.ts and oauth.ts").len(), 1);
        assert!(q.find("authx.ts").is_empty());
        // A one-letter word inside a phrase must be there.
        let q = Query::parse(r#""a cat""#);
        assert_eq!(q.find("a cat").len(), 1);
        assert!(q.find("the cat").is_empty());
    }
}
