//! From a query to the chats that have every one of its terms, by the index alone.
//!
//! Each term becomes one tantivy query: a whole word a term query, a word's start a prefix
//! (the range of the term dictionary it starts), several tokens a phrase over positions (its
//! last one a start when the term is a word or an open quote). A term's chats are the chat keys
//! of the documents it matches; the chats of the query are those every term has, each term in
//! any document of the chat (a chat's texts may be in several documents).
//!
//! The answer is exact, but for a token longer than [`tokens::MAX_BYTES`] (not indexed): it is
//! left out of its term, which then only narrows the chats down, and [`Matching::sure`] is
//! false so that the transcripts are read to confirm.

use std::collections::HashSet;

use tantivy::query::{EnableScoring, PhrasePrefixQuery, PhraseQuery, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocSet, Searcher, TERMINATED, Term as TantivyTerm};

use super::engine::Fields;
use super::query::{Query, Term};
use super::tokens;

/// The chats a query matches.
#[derive(Debug, Default)]
pub struct Matching {
    /// Their keys ([`super::engine::chat_key`]).
    pub chats: HashSet<u64>,
    /// Whether each of them surely matches (no token was left out).
    pub sure: bool,
}

/// The chats of `searcher`'s index that have every term of `query`.
pub fn matching(searcher: &Searcher, fields: Fields, query: &Query) -> tantivy::Result<Matching> {
    let mut sure = true;
    let mut found: Option<HashSet<u64>> = None;
    for term in &query.terms {
        let Some((q, whole)) = term_query(searcher, fields, term)? else {
            sure = false;
            continue;
        };
        sure &= whole;
        let chats = chats_of(searcher, q.as_ref(), found.as_ref())?;
        if chats.is_empty() {
            return Ok(Matching { chats, sure: true });
        }
        found = Some(chats);
    }
    Ok(Matching {
        chats: found.unwrap_or_default(),
        sure,
    })
}

/// The tantivy query of one term, and whether it is the whole term (no token left out);
/// `None` when none of its tokens is indexed.
fn term_query(
    searcher: &Searcher,
    fields: Fields,
    term: &Term,
) -> tantivy::Result<Option<(Box<dyn tantivy::query::Query>, bool)>> {
    let last = term.tokens.len().saturating_sub(1);
    let kept: Vec<(usize, &str)> = term
        .tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.len() <= tokens::MAX_BYTES)
        .map(|(i, t)| (i, t.as_str()))
        .collect();
    let whole = kept.len() == term.tokens.len();
    let prefix = term.prefix_last && kept.last().is_some_and(|&(i, _)| i == last);
    let at = |(i, t): (usize, &str)| (i, TantivyTerm::from_field_text(fields.text, t));
    // A prefix query takes room for as many words as it may stand for: as many as the
    // segment with most of them has.
    let expansions = match kept.last() {
        Some((_, last)) if prefix => expansions(searcher, fields, last)?,
        _ => 0,
    };
    let q: Box<dyn tantivy::query::Query> = match kept.as_slice() {
        [] => return Ok(None),
        [(_, t)] if !prefix => Box::new(TermQuery::new(
            TantivyTerm::from_field_text(fields.text, t),
            IndexRecordOption::Basic,
        )),
        [only] => {
            let mut q = PhrasePrefixQuery::new_with_offset(vec![at(*only)]);
            q.set_max_expansions(expansions);
            Box::new(q)
        }
        _ if prefix => {
            let mut q = PhrasePrefixQuery::new_with_offset(kept.iter().copied().map(at).collect());
            q.set_max_expansions(expansions);
            Box::new(q)
        }
        _ => Box::new(PhraseQuery::new_with_offset(
            kept.iter().copied().map(at).collect(),
        )),
    };
    Ok(Some((q, whole)))
}

/// The most words starting with `prefix` that one segment has (at least 1).
fn expansions(searcher: &Searcher, fields: Fields, prefix: &str) -> tantivy::Result<u32> {
    let mut most = 1u32;
    for seg in searcher.segment_readers() {
        let inverted = seg.inverted_index(fields.text)?;
        let mut words = inverted
            .terms()
            .range()
            .ge(prefix.as_bytes())
            .into_stream()?;
        let mut n = 0u32;
        while words.advance() && words.key().starts_with(prefix.as_bytes()) {
            n = n.saturating_add(1);
        }
        most = most.max(n);
    }
    Ok(most)
}

/// The chats of the documents `q` matches, only those in `within` when given.
fn chats_of(
    searcher: &Searcher,
    q: &dyn tantivy::query::Query,
    within: Option<&HashSet<u64>>,
) -> tantivy::Result<HashSet<u64>> {
    let weight = q.weight(EnableScoring::disabled_from_searcher(searcher))?;
    let mut chats = HashSet::new();
    for seg in searcher.segment_readers() {
        let keys = seg.fast_fields().u64("chat")?;
        let alive = seg.alive_bitset();
        let mut docs = weight.scorer(seg, 1.0)?;
        let mut doc = docs.doc();
        while doc != TERMINATED {
            if alive.is_none_or(|a| a.is_alive(doc))
                && let Some(key) = keys.first(doc)
                && within.is_none_or(|w| w.contains(&key))
            {
                chats.insert(key);
            }
            doc = docs.advance();
        }
    }
    Ok(chats)
}
