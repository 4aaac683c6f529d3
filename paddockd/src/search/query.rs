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

impl Term {
    /// Whether the term can be in `text`: each of its ASCII tokens is in it somewhere, case
    /// aside (a byte search, much cheaper than reading the text token by token). A text with
    /// one of the characters a byte search misses ([`lowers_to_ascii_letters`]) is not ruled
    /// out, nor is any text for a token that is not ASCII.
    pub fn may_be_in(&self, text: &str) -> bool {
        self.tokens.iter().all(|token| {
            !token.is_ascii()
                || find_ignoring_ascii_case(text.as_bytes(), token.as_bytes()).is_some()
                || lowers_to_ascii_letters(text)
        })
    }
}

/// Whether `text` holds one of the two characters that are not ASCII but lowercase to ASCII
/// letters (`İ` to `i` and a combining dot, the Kelvin sign `K` to `k`), which a byte search
/// for ASCII words would miss.
fn lowers_to_ascii_letters(text: &str) -> bool {
    !text.is_ascii() && (text.contains('\u{130}') || text.contains('\u{212A}'))
}

/// Where `needle` (ASCII, lowercase) first is in `hay`, ASCII case aside.
fn find_ignoring_ascii_case(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let Some((&first, rest)) = needle.split_first() else {
        return Some(0);
    };
    let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    let mut from = 0;
    while from + needle.len() <= hay.len() {
        let at = from + memchr::memchr2(lower, upper, &hay[from..=hay.len() - needle.len()])?;
        if hay[at + 1..at + needle.len()].eq_ignore_ascii_case(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Where the token that goes on at byte `from` of `text` ends (`from` itself when none does).
fn token_end(text: &str, from: usize) -> usize {
    text[from..]
        .char_indices()
        .find(|(_, c)| !c.is_alphanumeric())
        .map_or(text.len(), |(i, _)| from + i)
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
    /// A text that holds none of the terms' tokens anywhere, even inside other words, is not
    /// read token by token at all ([`Term::may_be_in`]); one that does is read as
    /// [`Query::find_in_tokens`] says.
    pub fn find(&self, text: &str) -> Vec<Found> {
        if !self.terms.iter().any(|t| t.may_be_in(text)) {
            return Vec::new();
        }
        self.find_by_bytes(text)
            .unwrap_or_else(|| self.find_in_tokens(text))
    }

    /// [`Query::find`] for a query of single ASCII words (the common query), by a byte search
    /// for each word and a look at the characters around each place it is: a word is found
    /// where a token starts with it (ends with it too, when it is not a prefix). `None` where
    /// that would not be exact: a term of several tokens or not ASCII, or a text holding one
    /// of the two characters that lowercase to ASCII letters (see [`Term::may_be_in`]).
    fn find_by_bytes(&self, text: &str) -> Option<Vec<Found>> {
        let mut out = Vec::new();
        self.each_by_bytes(text, false, |f| out.push(f))?;
        out.sort_by_key(|f| (f.start, f.term));
        Some(out)
    }

    /// How many of the terms `text` has (a title's, for the ranking): as [`Query::find`] would
    /// count them, but stopping at each term's first place and copying nothing where the
    /// byte search applies.
    pub fn terms_in(&self, text: &str) -> usize {
        if !self.terms.iter().any(|t| t.may_be_in(text)) {
            return 0;
        }
        if self.terms.len() <= 64 {
            let mut seen = 0u64;
            if self
                .each_by_bytes(text, true, |f| seen |= 1u64 << f.term)
                .is_some()
            {
                return seen.count_ones() as usize;
            }
        }
        let mut terms: Vec<usize> = self.find_in_tokens(text).iter().map(|f| f.term).collect();
        terms.sort_unstable();
        terms.dedup();
        terms.len()
    }

    /// The places of [`Query::find_by_bytes`], each given to `f` (term by term, each term's
    /// in text order; only its first with `first_only`); `None` where the byte search does not
    /// apply.
    fn each_by_bytes(&self, text: &str, first_only: bool, mut f: impl FnMut(Found)) -> Option<()> {
        let ascii = |t: &Term| t.tokens.iter().all(|token| token.is_ascii());
        if !self.terms.iter().all(ascii) || lowers_to_ascii_letters(text) {
            return None;
        }
        let bytes = text.as_bytes();
        let mut lower = String::new();
        for (i, term) in self.terms.iter().enumerate() {
            let Some((first, rest)) = term.tokens.split_first() else {
                continue;
            };
            let needle = first.as_bytes();
            let mut from = 0;
            while let Some(found) = find_ignoring_ascii_case(&bytes[from..], needle) {
                // An ASCII byte is a character of its own: `at` is a character boundary.
                let at = from + found;
                from = at + 1;
                if text[..at]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
                {
                    continue;
                }
                let mut end = token_end(text, at + needle.len());
                let whole = rest.is_empty() && term.prefix_last;
                if !whole && end != at + needle.len() {
                    continue;
                }
                // A phrase: the tokens after this one, read one by one.
                let mut phrase = true;
                for (j, want) in rest.iter().enumerate() {
                    let last = j + 1 == rest.len();
                    phrase = match tokens::next(text, end, &mut lower) {
                        Some((_, e))
                            if lower == *want
                                || (last
                                    && term.prefix_last
                                    && lower.starts_with(want.as_str())) =>
                        {
                            end = e;
                            true
                        }
                        _ => false,
                    };
                    if !phrase {
                        break;
                    }
                }
                if !phrase {
                    continue;
                }
                f(Found {
                    term: i,
                    start: at,
                    end,
                });
                if first_only {
                    break;
                }
                // Phrases may overlap ("x1 x1" twice in "x1 x1 x1"); words may not.
                if rest.is_empty() {
                    from = end;
                }
            }
        }
        Some(())
    }

    /// [`Query::find`], token by token. Nothing is allocated per token: a term's last token
    /// is compared with the token just read, and only then its earlier ones with the byte
    /// ranges of the tokens before it (kept in a small ring).
    fn find_in_tokens(&self, text: &str) -> Vec<Found> {
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

    /// The ranking's count of a title's terms is the number of distinct terms `find` finds.
    #[test]
    fn terms_in_counts_what_find_finds() {
        for q in [
            "layout",
            "lay module",
            "\"module layout\"",
            "the of and",
            "x1 ÉCOLE",
        ] {
            let q = Query::parse(q);
            for text in [
                "",
                "The LAYOUT of the module",
                "module layout, layout module",
                "x1 and école",
                "a \u{212A}ITE flies by the module",
            ] {
                let mut want: Vec<usize> = q.find(text).iter().map(|f| f.term).collect();
                want.sort_unstable();
                want.dedup();
                assert_eq!(q.terms_in(text), want.len(), "{q:?} in {text:?}");
            }
        }
    }

    /// The byte search only rules out texts the token-by-token reading finds nothing in,
    /// the two characters that lowercase to ASCII letters included.
    #[test]
    fn a_text_ruled_out_by_its_bytes_holds_no_term() {
        let queries = [
            "layout",
            "summ",
            "\"summ\"",
            "x1",
            "layout summ",
            "\"module layout\"",
            "kite",
            "wi",
            "\"istanbul\"",
            "auth.ts",
            "ÉCOLE",
            "x1 z9",
            "\"the module\"",
            "\"module lay",
            "\"x1 x1\"",
            "\"of the\" layout",
            "\"a kite\"",
        ];
        let texts = [
            "",
            "nothing here",
            "The LAYOUT of the module",
            "module\nLayout",
            "a \u{212A}ITE flies",
            "W\u{130} then",
            "\u{130}STANBUL",
            "Auth.TS and école",
            "X1 Z9",
            "lay out",
            "épée → layou",
            "élayout layoutish LAYOUT. layout",
            "xlayout layout_2 layoutΩ Layoutä",
            "summary summ SUMMARIES sum",
            "9x1 x1x1 x1",
            "x1 x1, X1-x1",
            "of the module of THE Module layouts",
            "the-module; the  modules",
            "a \u{212A}ITE, a kite, A KITE",
        ];
        for q in queries {
            let q = Query::parse(q);
            for text in texts {
                let slow = q.find_in_tokens(text);
                assert_eq!(q.find(text), slow, "{q:?} in {text:?}");
                if !slow.is_empty() {
                    assert!(q.terms.iter().any(|t| t.may_be_in(text)), "{q:?} {text:?}");
                }
            }
        }
        let q = Query::parse("kite");
        assert!(!q.terms[0].may_be_in("a kit, a bite"));
        assert!(q.terms[0].may_be_in("a \u{212A}ITE"));
        assert!(!q.find("a \u{212A}ITE").is_empty());
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
