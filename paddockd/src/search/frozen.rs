//! The compact, immutable segment of the search index ([`Frozen`]), and the merge that makes a
//! new one from the frozen segments and the live one ([`merge`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
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

    /// Appends `other`, whose tokens all sort after this one's. Past 4 GiB in an array, its
    /// tokens are dropped (and counted).
    fn append(&mut self, other: Frozen) {
        let (key_base, post_base) = (self.keys.len(), self.postings.len());
        let (Ok(k), Ok(p), Ok(_), Ok(_)) = (
            u32::try_from(key_base),
            u32::try_from(post_base),
            u32::try_from(key_base + other.keys.len()),
            u32::try_from(post_base + other.postings.len()),
        ) else {
            self.dropped += other.tokens() + other.dropped;
            return;
        };
        self.keys.extend_from_slice(&other.keys);
        self.postings.extend_from_slice(&other.postings);
        self.ends
            .extend(other.ends.iter().map(|&(ke, pe)| (ke + k, pe + p)));
        self.pairs += other.pairs;
        self.dropped += other.dropped;
    }

    /// Tokens dropped so far (an array would have passed 4 GiB).
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// Counts `n` tokens dropped before they reached the segment (a builder's).
    pub(super) fn count_dropped(&mut self, n: usize) {
        self.dropped += n;
    }

    /// Key bytes, tokens and postings bytes of the tokens `from..to`.
    fn span(&self, from: usize, to: usize) -> (usize, usize, usize) {
        let end = |i: usize| {
            i.checked_sub(1)
                .and_then(|j| self.ends.get(j))
                .map_or((0, 0), |&(k, p)| (k as usize, p as usize))
        };
        let ((k0, p0), (k1, p1)) = (end(from), end(to));
        (k1 - k0, to - from, p1 - p0)
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

/// Merges as large as this (postings bytes in) or larger are split by key range over
/// threads; below it a thread costs more than it saves.
const PARALLEL_FROM: usize = 4 << 20;

/// A range of tokens: from `.0` (or the first), below `.1` (or to the last).
type KeyRange<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// A new frozen segment with everything of the `frozen` segments and of `seg`, without the
/// documents in `dead`: one pass over every source at once, in token order (a k-way merge; a
/// build leaves a few dozen frozen segments, an update one). A large merge is cut into key
/// ranges of about equal postings, merged on the build's threads, and joined.
pub fn merge(frozen: &[Arc<Frozen>], seg: &Segment, dead: &Bitset) -> Frozen {
    let bytes = frozen.iter().map(|f| f.posting_bytes()).sum::<usize>() + seg.pairs() * 2;
    let threads = if bytes < PARALLEL_FROM {
        1
    } else {
        super::updater::build_threads()
    };
    merge_on(frozen, seg, dead, threads)
}

/// [`merge`] on `threads` threads (the calling one among them).
pub(super) fn merge_on(
    frozen: &[Arc<Frozen>],
    seg: &Segment,
    dead: &Bitset,
    threads: usize,
) -> Frozen {
    let bounds = split_points(frozen, threads);
    let ranges: Vec<KeyRange<'_>> = (0..=bounds.len())
        .map(|i| {
            let lo = i
                .checked_sub(1)
                .and_then(|j| bounds.get(j))
                .map(Vec::as_slice);
            (lo, bounds.get(i).map(Vec::as_slice))
        })
        .collect();
    let mut parts: Vec<Frozen> = std::thread::scope(|s| {
        let others: Vec<_> = ranges
            .iter()
            .skip(1)
            .map(|&(lo, hi)| {
                let spawned = std::thread::Builder::new()
                    .name("search-merge".into())
                    .spawn_scoped(s, move || merge_range(frozen, seg, dead, lo, hi));
                (lo, hi, spawned.ok())
            })
            .collect();
        let (lo, hi) = ranges.first().copied().unwrap_or((None, None));
        let mut parts = vec![merge_range(frozen, seg, dead, lo, hi)];
        for (lo, hi, handle) in others {
            // A range whose thread did not start, or ended in a panic, is merged here.
            parts.push(match handle.map(|h| h.join()) {
                Some(Ok(part)) => part,
                _ => merge_range(frozen, seg, dead, lo, hi),
            });
        }
        parts
    });
    let dropped = frozen.iter().map(|f| f.dropped).sum::<usize>();
    if parts.len() == 1
        && let Some(mut only) = parts.pop()
    {
        only.dropped += dropped;
        return only;
    }
    let mut out = Frozen::with_capacity(
        parts.iter().map(|p| p.keys.len()).sum(),
        parts.iter().map(Frozen::tokens).sum(),
        parts.iter().map(|p| p.postings.len()).sum(),
    );
    for part in parts {
        out.append(part);
    }
    out.dropped += dropped;
    out
}

/// Up to `parts - 1` keys that cut the merge into ranges of about equal postings: keys of the
/// frozen segment with the most postings, at even shares of its postings bytes.
fn split_points(frozen: &[Arc<Frozen>], parts: usize) -> Vec<Vec<u8>> {
    let Some(largest) = frozen.iter().max_by_key(|f| f.posting_bytes()) else {
        return Vec::new();
    };
    let total = largest.posting_bytes();
    let mut bounds: Vec<Vec<u8>> = Vec::new();
    for share in 1..parts {
        let at = total / parts * share;
        let i = partition(largest.tokens(), |i| (largest.ends[i].1 as usize) < at);
        if i == 0 || i >= largest.tokens() {
            continue;
        }
        let key = largest.key(i);
        if bounds.last().is_none_or(|b| b.as_slice() < key) {
            bounds.push(key.to_vec());
        }
    }
    bounds
}

/// The merge of the tokens in `lo..hi` (`None`: unbounded).
fn merge_range(
    frozen: &[Arc<Frozen>],
    seg: &Segment,
    dead: &Bitset,
    lo: Option<&[u8]>,
    hi: Option<&[u8]>,
) -> Frozen {
    let below = |k: &[u8], bound: Option<&[u8]>| bound.is_none_or(|b| k < b);
    // Each frozen segment's tokens in the range; the least next key of every source on a heap.
    let mut next: Vec<(usize, usize)> = frozen
        .iter()
        .map(|f| {
            let from = lo.map_or(0, |lo| partition(f.tokens(), |i| f.key(i) < lo));
            let to = hi.map_or(f.tokens(), |hi| partition(f.tokens(), |i| f.key(i) < hi));
            (from, to.max(from))
        })
        .collect();
    let mut heap: BinaryHeap<Reverse<(&[u8], usize)>> = frozen
        .iter()
        .zip(&next)
        .enumerate()
        .filter(|(_, (_, (from, to)))| from < to)
        .map(|(n, (f, (from, _)))| Reverse((f.key(*from), n)))
        .collect();
    let mut live = seg.merged_from(lo);
    // Room for every source's tokens in the range (the live segment's all, split evenly).
    let (mut keys, mut tokens, mut postings) = (0, 0, 0);
    for (f, &(from, to)) in frozen.iter().zip(&next) {
        let (k, t, p) = f.span(from, to);
        (keys, tokens, postings) = (keys + k, tokens + t, postings + p);
    }
    let ranges = if lo.is_some() || hi.is_some() { 2 } else { 1 };
    let mut out = Frozen::with_capacity(
        keys + seg.key_bytes() / ranges,
        tokens + seg.entries() / ranges,
        postings + seg.pairs() * 2 / ranges,
    );
    let mut docs: Vec<DocId> = Vec::new();
    let mut key: Vec<u8> = Vec::new();
    loop {
        let live_key = live.peek().map(str::as_bytes).filter(|k| below(k, hi));
        let least = match (heap.peek(), live_key) {
            (Some(Reverse((f, _))), Some(l)) => (*f).min(l),
            (Some(Reverse((f, _))), None) => *f,
            (None, Some(l)) => l,
            (None, None) => break,
        };
        key.clear();
        key.extend_from_slice(least);
        docs.clear();
        while let Some(&Reverse((k, n))) = heap.peek() {
            if k != key.as_slice() {
                break;
            }
            heap.pop();
            let (f, (i, to)) = (&frozen[n], &mut next[n]);
            docs.extend(f.docs(*i));
            *i += 1;
            if *i < *to {
                heap.push(Reverse((f.key(*i), n)));
            }
        }
        if live_key.is_some_and(|k| k == key.as_slice()) {
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
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::super::builder::Builder;
    use super::super::index::Batch;
    use super::*;

    fn listed(f: &Frozen) -> Vec<(Vec<u8>, Vec<DocId>)> {
        (0..f.tokens())
            .map(|i| (f.key(i).to_vec(), f.docs(i).collect()))
            .collect()
    }

    /// Built segments sharing tokens, a live segment with tokens of its own and of theirs, and
    /// dead documents: cut into key ranges on threads, the merge is the one-thread merge.
    #[test]
    fn a_merge_cut_into_key_ranges_equals_the_merge_in_one_piece() {
        let mut frozen = Vec::new();
        for s in 0..6u32 {
            let mut b = Builder::default();
            for d in s * 50..(s + 1) * 50 {
                for t in [
                    format!("w{:02}", d % 97),
                    format!("x{d}"),
                    "common".into(),
                    format!("p{}", d % 7),
                ] {
                    b.add(&t, d);
                }
            }
            frozen.push(Arc::new(b.finish().frozen));
        }
        let mut seg = Segment::default();
        let mut batch = Batch::default();
        for d in 300..320 {
            for t in [format!("w{:02}", d % 97), "common".into(), "zz".into()] {
                batch.add(&t, d);
            }
        }
        seg.absorb(batch);
        let mut dead = Bitset::with_len(320);
        dead.insert(5);
        dead.insert(301);

        let one = merge_on(&frozen, &seg, &dead, 1);
        assert!(split_points(&frozen, 4).len() >= 2, "the merge is cut");
        for threads in [2, 3, 4, 7] {
            let cut = merge_on(&frozen, &seg, &dead, threads);
            assert_eq!(listed(&cut), listed(&one), "{threads} threads");
            assert_eq!(
                (cut.tokens(), cut.pairs(), cut.dropped()),
                (one.tokens(), one.pairs(), one.dropped())
            );
        }
        let common = listed(&one)
            .into_iter()
            .find(|(k, _)| k == b"common")
            .unwrap()
            .1;
        assert_eq!(common.len(), 318, "every chat but the two dead");
        assert_eq!(listed(&one).last().unwrap().0, b"zz");
    }
}
