//! The compact, immutable segment of the search index ([`Frozen`]), and the merge that makes a
//! new one from the frozen segments and the live one ([`merge`]).

use std::cmp::Ordering;
use std::ops::Range;
use std::sync::Arc;

use super::index::{Bitset, DocId, Segment};

/// The compact, immutable segment.
#[derive(Debug, Default)]
pub struct Frozen {
    /// Every token's bytes, in sorted order, concatenated.
    keys: Vec<u8>,
    /// Per token: where its bytes end in `keys`, and where its documents end in `postings`.
    ends: Vec<(u32, u32)>,
    /// Per token: its documents, ascending, as LEB128 deltas (the first from 0).
    postings: Vec<u8>,
    pairs: usize,
    /// Tokens left out because an array would have passed 4 GiB.
    dropped: usize,
}

impl Frozen {
    pub fn tokens(&self) -> usize {
        self.ends.len()
    }

    pub fn pairs(&self) -> usize {
        self.pairs
    }

    pub(super) fn key(&self, i: usize) -> &[u8] {
        let start = if i == 0 {
            0
        } else {
            self.ends[i - 1].0 as usize
        };
        &self.keys[start..self.ends[i].0 as usize]
    }

    pub(super) fn docs(&self, i: usize) -> Docs<'_> {
        let start = if i == 0 {
            0
        } else {
            self.ends[i - 1].1 as usize
        };
        Docs {
            bytes: &self.postings[start..self.ends[i].1 as usize],
            last: 0,
        }
    }

    /// The tokens equal to `token`, or starting with it when `prefix`.
    pub(super) fn range(&self, token: &str, prefix: bool) -> Range<usize> {
        let t = token.as_bytes();
        let lo = partition(self.tokens(), |i| self.key(i) < t);
        let hi = if prefix {
            partition(self.tokens(), |i| {
                let k = self.key(i);
                k < t || k.starts_with(t)
            })
        } else {
            lo + usize::from(lo < self.tokens() && self.key(lo) == t)
        };
        lo..hi.max(lo)
    }

    pub fn heap_bytes(&self) -> usize {
        self.keys.capacity() + self.ends.capacity() * 8 + self.postings.capacity()
    }

    /// Appends a token (in sorted order) with its documents (ascending, deduplicated).
    pub(super) fn push(&mut self, key: &[u8], docs: &[DocId]) {
        if docs.is_empty() {
            return;
        }
        let (posting_start, key_start) = (self.postings.len(), self.keys.len());
        let mut last = 0;
        for (i, &d) in docs.iter().enumerate() {
            put_varint(&mut self.postings, if i == 0 { d } else { d - last });
            last = d;
        }
        let (Ok(key_end), Ok(post_end)) = (
            u32::try_from(key_start + key.len()),
            u32::try_from(self.postings.len()),
        ) else {
            self.postings.truncate(posting_start);
            self.dropped += 1;
            return;
        };
        self.keys.extend_from_slice(key);
        self.ends.push((key_end, post_end));
        self.pairs += docs.len();
    }

    /// An empty segment with room for `keys` key bytes, `tokens` tokens and `postings` bytes
    /// of postings.
    pub(super) fn with_capacity(keys: usize, tokens: usize, postings: usize) -> Self {
        Frozen {
            keys: Vec::with_capacity(keys),
            ends: Vec::with_capacity(tokens),
            postings: Vec::with_capacity(postings),
            ..Frozen::default()
        }
    }

    /// Gives back the room reserved and not used.
    pub(super) fn shrink_to_fit(&mut self) {
        self.keys.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.postings.shrink_to_fit();
    }

    /// Tokens dropped so far (an array would have passed 4 GiB).
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// Counts `n` tokens dropped before they reached the segment (a builder's).
    pub(super) fn count_dropped(&mut self, n: usize) {
        self.dropped += n;
    }

    fn key_bytes(&self) -> usize {
        self.keys.len()
    }

    fn posting_bytes(&self) -> usize {
        self.postings.len()
    }
}

/// The first `i` in `0..n` for which `before(i)` is false (`before` must be monotone).
fn partition(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The documents of one frozen token.
pub(super) struct Docs<'a> {
    bytes: &'a [u8],
    /// The previous document (the first is a delta from 0).
    last: u32,
}

impl Iterator for Docs<'_> {
    type Item = DocId;
    fn next(&mut self) -> Option<DocId> {
        let mut v: u32 = 0;
        let mut shift = 0;
        loop {
            let (&b, rest) = self.bytes.split_first()?;
            self.bytes = rest;
            v |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        self.last = self.last.wrapping_add(v);
        Some(self.last)
    }
}

/// A new frozen segment with everything of the `frozen` segments and of `seg`, without the
/// documents in `dead`: one pass over every source at once, in token order (a k-way merge; a
/// build leaves a few frozen segments, an update one).
pub fn merge(frozen: &[Arc<Frozen>], seg: &Segment, dead: &Bitset) -> Frozen {
    let mut out = Frozen::with_capacity(
        frozen.iter().map(|f| f.key_bytes()).sum::<usize>() + seg.key_bytes(),
        frozen.iter().map(|f| f.tokens()).sum::<usize>() + seg.entries(),
        frozen.iter().map(|f| f.posting_bytes()).sum::<usize>() + seg.pairs() * 2,
    );
    let mut docs: Vec<DocId> = Vec::new();
    let mut live = seg.merged();
    // The next token of each frozen segment.
    let mut next = vec![0usize; frozen.len()];
    let mut key: Vec<u8> = Vec::new();
    loop {
        // The least of the sources' next tokens.
        let mut least: Option<&[u8]> = live.peek().map(str::as_bytes);
        for (f, &i) in frozen.iter().zip(&next) {
            if i < f.tokens() {
                let k = f.key(i);
                if least.is_none_or(|l| k.cmp(l) == Ordering::Less) {
                    least = Some(k);
                }
            }
        }
        let Some(least) = least else { break };
        key.clear();
        key.extend_from_slice(least);
        docs.clear();
        for (f, i) in frozen.iter().zip(next.iter_mut()) {
            if *i < f.tokens() && f.key(*i) == key.as_slice() {
                docs.extend(f.docs(*i));
                *i += 1;
            }
        }
        if live.peek().is_some_and(|k| k.as_bytes() == key.as_slice()) {
            live.next_into(&mut docs);
        }
        // Sources in document order (a build's, one reader) need neither.
        if !docs.windows(2).all(|w| w[0] < w[1]) {
            docs.sort_unstable();
            docs.dedup();
        }
        docs.retain(|&d| !dead.contains(d));
        out.push(&key, &docs);
    }
    out.shrink_to_fit();
    out.dropped += frozen.iter().map(|f| f.dropped).sum::<usize>();
    out
}
