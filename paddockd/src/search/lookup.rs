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

use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::{EnableScoring, PhrasePrefixQuery, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, DocSet, Searcher, SegmentReader, TERMINATED, Term as TantivyTerm};

use super::engine::{Fields, KeySet};
use super::query::{Query, Term};
use super::tokens;

/// The chats a query matches.
#[derive(Debug, Default)]
pub struct Matching {
    /// Their keys ([`super::engine::chat_key`]).
    pub chats: KeySet,
    /// Whether each of them surely matches (no token was left out).
    pub sure: bool,
}

/// The chats of `searcher`'s index that have every term of `query`.
pub fn matching(searcher: &Searcher, fields: Fields, query: &Query) -> tantivy::Result<Matching> {
    let mut sure = true;
    let mut found: Option<KeySet> = None;
    for term in &query.terms {
        let Some((q, whole)) = term_query(searcher, fields, term)? else {
            sure = false;
            continue;
        };
        sure &= whole;
        let chats = match q {
            Lookup::Query(q) => chats_of(searcher, q.as_ref(), found.as_ref())?,
            Lookup::Phrase(words) => phrase_chats(searcher, fields, &words, found.as_ref())?,
        };
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
) -> tantivy::Result<Option<(Lookup, bool)>> {
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
        _ => {
            return Ok(Some((
                Lookup::Phrase(kept.iter().copied().map(at).collect()),
                whole,
            )));
        }
    };
    Ok(Some((Lookup::Query(q), whole)))
}

/// How a term is looked up.
enum Lookup {
    /// By a tantivy query: words, prefixes, a phrase ending in a prefix.
    Query(Box<dyn tantivy::query::Query>),
    /// A phrase of whole words, each with its place in the phrase: [`phrase_chats`].
    Phrase(Vec<(usize, TantivyTerm)>),
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
    within: Option<&KeySet>,
) -> tantivy::Result<KeySet> {
    let weight = q.weight(EnableScoring::disabled_from_searcher(searcher))?;
    let mut chats = KeySet::default();
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

/// The chats with `words` in a row (each at its place in the phrase) in one of their documents,
/// only those in `within` when given. Documents with every word are found by leapfrogging the
/// words' postings; the places are read only for a document whose chat is wanted and not found
/// yet, and compared until the first place the phrase is at ([`phrase_at`]): tantivy's phrase
/// query intersects every place of every word in every document, which for the most common
/// words took 60 ms over 10,000 chats. Large segments are read on two threads, each a half.
fn phrase_chats(
    searcher: &Searcher,
    fields: Fields,
    words: &[(usize, TantivyTerm)],
    within: Option<&KeySet>,
) -> tantivy::Result<KeySet> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    let mut chats = KeySet::default();
    for seg in searcher.segment_readers() {
        let max = seg.max_doc();
        let parts = if max >= SPLIT_FROM { threads as u32 } else { 1 };
        let ranges: Vec<(DocId, DocId)> = (0..parts)
            .map(|i| {
                (
                    max / parts * i,
                    if i + 1 == parts {
                        max
                    } else {
                        max / parts * (i + 1)
                    },
                )
            })
            .collect();
        let found: Vec<tantivy::Result<KeySet>> = if ranges.len() == 1 {
            vec![phrase_in(seg, fields, words, within, ranges[0])]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = ranges
                    .iter()
                    .map(|&range| s.spawn(move || phrase_in(seg, fields, words, within, range)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(tantivy::TantivyError::InternalError(
                                "a phrase lookup thread panicked".into(),
                            ))
                        })
                    })
                    .collect()
            })
        };
        for part in found {
            chats.extend(part?);
        }
    }
    Ok(chats)
}

/// Places stepped over one by one before [`phrase_at`] searches a list.
const STEPS: usize = 8;

/// Segments with fewer documents are read on one thread.
const SPLIT_FROM: u32 = 1024;

/// [`phrase_chats`] over the documents `from..to` of one segment.
fn phrase_in(
    seg: &SegmentReader,
    fields: Fields,
    words: &[(usize, TantivyTerm)],
    within: Option<&KeySet>,
    (from, to): (DocId, DocId),
) -> tantivy::Result<KeySet> {
    let mut chats = KeySet::default();
    let inverted = seg.inverted_index(fields.text)?;
    let mut postings: Vec<(SegmentPostings, u32)> = Vec::with_capacity(words.len());
    for (place, word) in words {
        match inverted.read_postings(word, IndexRecordOption::WithFreqsAndPositions)? {
            Some(p) => postings.push((p, u32::try_from(*place).unwrap_or(u32::MAX))),
            // A word the segment does not have: no document of it has the phrase.
            None => return Ok(chats),
        }
    }
    // The rarest word leads.
    postings.sort_by_key(|(p, _)| p.size_hint());
    let keys = seg.fast_fields().u64("chat")?;
    let alive = seg.alive_bitset();
    let mut places: Vec<(Vec<u32>, u32)> = postings.iter().map(|(_, o)| (Vec::new(), *o)).collect();
    let Some(((lead, _), rest)) = postings.split_first_mut() else {
        return Ok(chats);
    };
    let mut doc = if from > 0 {
        lead.seek(from)
    } else {
        lead.doc()
    };
    'docs: while doc < to {
        for (p, _) in rest.iter_mut() {
            let at = p.seek(doc);
            if at > doc {
                doc = lead.seek(at);
                continue 'docs;
            }
        }
        if alive.is_none_or(|a| a.is_alive(doc))
            && let Some(key) = keys.first(doc)
            && within.is_none_or(|w| w.contains(&key))
            && !chats.contains(&key)
        {
            places[0].0.clear();
            lead.positions(&mut places[0].0);
            for ((p, _), (buf, _)) in rest.iter_mut().zip(places[1..].iter_mut()) {
                p.positions(buf);
            }
            if phrase_at(&places) {
                chats.insert(key);
            }
        }
        doc = lead.advance();
    }
    Ok(chats)
}

/// Whether there is a place `x` with `x + offset` among each list's places (each sorted):
/// each place of the shortest list is a candidate, the others stepped through alongside it
/// (each only forward), stopping at the first candidate every list has.
fn phrase_at(lists: &[(Vec<u32>, u32)]) -> bool {
    let Some(lead) = (0..lists.len()).min_by_key(|&i| lists[i].0.len()) else {
        return false;
    };
    let (lead_places, lead_offset) = &lists[lead];
    let mut others: Vec<(&[u32], u32)> = lists
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != lead)
        .map(|(_, (places, offset))| (places.as_slice(), *offset))
        .collect();
    'candidates: for &p in lead_places {
        let Some(x) = p.checked_sub(*lead_offset) else {
            continue;
        };
        for (places, offset) in &mut others {
            let want = x + *offset;
            // A few steps forward, then a binary search of the rest for a long way.
            let mut skip = 0;
            while skip < STEPS && places.get(skip).is_some_and(|&q| q < want) {
                skip += 1;
            }
            if skip == STEPS {
                skip += places[skip..].partition_point(|&q| q < want);
            }
            *places = &places[skip..];
            match places.first() {
                None => return false,
                Some(&q) if q != want => continue 'candidates,
                Some(_) => {}
            }
        }
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_is_where_every_word_is_at_its_place() {
        let at = |lists: &[(&[u32], u32)]| {
            phrase_at(
                &lists
                    .iter()
                    .map(|(l, o)| (l.to_vec(), *o))
                    .collect::<Vec<_>>(),
            )
        };
        // "b c" at 5: b at 5, c at 6.
        assert!(at(&[(&[1, 5, 9], 0), (&[3, 6], 1)]));
        assert!(!at(&[(&[1, 5, 9], 0), (&[3, 7], 1)]));
        // Three words, the match late.
        assert!(at(&[
            (&[0, 4, 8, 20], 0),
            (&[1, 9, 21], 1),
            (&[2, 3, 22], 2)
        ]));
        assert!(!at(&[(&[0, 4, 8, 20], 0), (&[1, 9, 21], 1), (&[3, 23], 2)]));
        // Offsets need not start at 0, nor be in order of the lists.
        assert!(at(&[(&[7], 2), (&[5], 0)]));
        // A word twice in the phrase ("x1 x1"): two places in a row.
        assert!(at(&[(&[3, 4], 0), (&[3, 4], 1)]));
        assert!(!at(&[(&[3, 5], 0), (&[3, 5], 1)]));
        assert!(!at(&[(&[], 0), (&[1], 1)]));
    }
}
