//! The inverted index: every token of every chat → the chats (documents) that have it.
//!
//! Two segments, like a small log-structured merge tree:
//!
//! - [`Frozen`] (`frozen.rs`): the bulk, immutable and compact. Tokens sorted and concatenated in one byte
//!   array; each token's documents as ascending delta-varint bytes in another; one pair of
//!   `u32` ends per token. About 8 bytes per token plus its bytes, and one to two bytes per
//!   (token, chat) pair.
//! - [`Segment`]: what was added since (appends to running chats, new chats, the batches of a
//!   build), one sorted run per batch (sorted by the thread that read it), so it too can be
//!   looked up by prefix, a binary search per run. When it holds more than a
//!   quarter of the frozen pairs (at least [`FREEZE_MIN_PAIRS`]), it is merged into a new frozen
//!   segment, off the lock ([`Postings::begin_freeze`], [`merge`], [`Postings::finish_freeze`]);
//!   the growing threshold keeps the merges' total cost linear-logarithmic.
//!
//! A document whose transcript was replaced or deleted is marked dead ([`Bitset`]) and its
//! postings are dropped at the next merge; a replaced transcript is indexed again as a new
//! document. Both segments are sorted by bytes, so a word's prefix is one contiguous range.
//!
//! Besides the tokens, the adjacent pairs of common tokens are keys too (`"module layout"`,
//! [`Common`]), so a phrase of words that are in nearly every chat is looked up, not read.

use std::collections::HashMap;
use std::sync::Arc;

pub use super::frozen::{Frozen, merge};

/// A document: one transcript as read once from its start.
pub type DocId = u32;

/// The live segment is merged into the frozen one past this many pairs (or a quarter of the
/// frozen pairs, if more).
pub const FREEZE_MIN_PAIRS: usize = 1 << 20;

/// A set of document ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bitset {
    words: Vec<u64>,
}

impl Bitset {
    pub fn with_len(n: usize) -> Self {
        Bitset {
            words: vec![0; n.div_ceil(64)],
        }
    }

    pub fn insert(&mut self, id: DocId) {
        let (w, b) = (id as usize / 64, id % 64);
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << b;
    }

    pub fn contains(&self, id: DocId) -> bool {
        self.words
            .get(id as usize / 64)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    /// Keeps only the ids also in `other`.
    pub fn and(&mut self, other: &Bitset) {
        for (i, w) in self.words.iter_mut().enumerate() {
            *w &= other.words.get(i).copied().unwrap_or(0);
        }
    }

    /// Removes the ids in `other`.
    pub fn and_not(&mut self, other: &Bitset) {
        for (w, o) in self.words.iter_mut().zip(&other.words) {
            *w &= !o;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = DocId> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let base = u32::try_from(i * 64).unwrap_or(u32::MAX);
            BitIter(w).map(move |b| base + b)
        })
    }

    fn heap_bytes(&self) -> usize {
        self.words.capacity() * 8
    }
}

struct BitIter(u64);

impl Iterator for BitIter {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(b)
    }
}

/// One batch's tokens, sorted by their bytes, each with its documents (ascending).
type Run = Vec<(Box<str>, Vec<DocId>)>;

/// The mutable segment: the runs of the batches absorbed since the last merge, each sorted, so
/// absorbing one costs a push (its sort was done off the lock, [`Batch::seal`]) and a lookup
/// costs a binary search per run. A token may be in several runs; merges gather, sort and
/// deduplicate its documents.
#[derive(Debug, Default)]
pub struct Segment {
    runs: Vec<Run>,
    pairs: usize,
    key_bytes: usize,
    /// (token, run) entries over the runs.
    entries: usize,
}

impl Segment {
    /// Adds every token of `batch` for its documents.
    pub fn absorb(&mut self, mut batch: Batch) {
        batch.seal();
        if batch.run.is_empty() {
            return;
        }
        self.pairs += batch.pairs;
        self.entries += batch.run.len();
        self.key_bytes += batch.run.iter().map(|(k, _)| k.len()).sum::<usize>();
        self.runs.push(batch.run);
    }

    /// The documents of every token equal to `token` (or starting with it when `prefix`),
    /// run by run.
    fn range<'a>(&'a self, token: &'a str, prefix: bool) -> impl Iterator<Item = &'a [DocId]> + 'a {
        self.runs.iter().flat_map(move |run| {
            let lo = run.partition_point(|(k, _)| &**k < token);
            run[lo..]
                .iter()
                .take_while(move |(k, _)| {
                    if prefix {
                        k.starts_with(token)
                    } else {
                        &**k == token
                    }
                })
                .map(|(_, docs)| docs.as_slice())
        })
    }

    /// Every token not below `lo` in order, once, with its documents of each run it is in.
    pub(super) fn merged_from(&self, lo: Option<&[u8]>) -> Merged<'_> {
        let mut heap = std::collections::BinaryHeap::new();
        for (r, run) in self.runs.iter().enumerate() {
            let from = lo.map_or(0, |lo| run.partition_point(|(k, _)| k.as_bytes() < lo));
            if let Some((k, _)) = run.get(from) {
                heap.push(std::cmp::Reverse((&**k, r, from)));
            }
        }
        Merged {
            runs: &self.runs,
            heap,
        }
    }

    pub(super) fn key_bytes(&self) -> usize {
        self.key_bytes
    }

    pub(super) fn entries(&self) -> usize {
        self.entries
    }

    pub(super) fn pairs(&self) -> usize {
        self.pairs
    }

    /// An estimate: the keys and postings, plus each entry's box and vector.
    pub fn heap_bytes(&self) -> usize {
        self.key_bytes
            + self
                .runs
                .iter()
                .flat_map(|run| run.iter().map(|(_, v)| v.capacity() * 4))
                .sum::<usize>()
            + self.entries * (16 + 24)
    }
}

/// [`Segment::merged`]: a k-way merge of the runs.
pub(super) struct Merged<'a> {
    runs: &'a [Run],
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(&'a str, usize, usize)>>,
}

impl<'a> Merged<'a> {
    /// The next token, with its documents appended to `docs`.
    pub(super) fn next_into(&mut self, docs: &mut Vec<DocId>) -> Option<&'a str> {
        let std::cmp::Reverse((key, _, _)) = *self.heap.peek()?;
        while let Some(&std::cmp::Reverse((k, r, i))) = self.heap.peek() {
            if k != key {
                break;
            }
            self.heap.pop();
            let run = &self.runs[r];
            if let Some((_, d)) = run.get(i) {
                docs.extend_from_slice(d);
            }
            if let Some((next, _)) = run.get(i + 1) {
                self.heap.push(std::cmp::Reverse((&**next, r, i + 1)));
            }
        }
        Some(key)
    }

    pub(super) fn peek(&self) -> Option<&'a str> {
        self.heap.peek().map(|std::cmp::Reverse((k, _, _))| *k)
    }
}

/// Tokens of a few documents, gathered off the lock (a reader thread's batch).
#[derive(Debug, Default)]
pub struct Batch {
    map: HashMap<Box<str>, Vec<DocId>, FastHash>,
    /// The map's tokens once sorted ([`Batch::seal`]).
    run: Run,
    pub pairs: usize,
    /// Documents added, and the last one.
    docs: usize,
    last_doc: Option<DocId>,
}

impl Batch {
    /// Records that `doc` has `token`. A document's tokens must be added together (before the
    /// next document's), which is what lets a repeat be dropped by looking at the last entry.
    pub fn add(&mut self, token: &str, doc: DocId) {
        if self.last_doc != Some(doc) {
            self.last_doc = Some(doc);
            self.docs += 1;
        }
        match self.map.get_mut(token) {
            Some(v) => {
                if v.last() != Some(&doc) {
                    v.push(doc);
                    self.pairs += 1;
                }
            }
            None => {
                self.map.insert(token.into(), vec![doc]);
                self.pairs += 1;
            }
        }
    }

    /// Sorts the tokens added, for the segment (a reader thread does it before it hands the
    /// batch over, so the lock is not held for it). Nothing may be added after.
    pub fn seal(&mut self) {
        if self.map.is_empty() {
            return;
        }
        let mut run: Run = std::mem::take(&mut self.map).into_iter().collect();
        run.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        if self.run.is_empty() {
            self.run = run;
        } else {
            // Sealed twice: keep one sorted run.
            self.run.append(&mut run);
            self.run.sort_by(|a, b| a.0.cmp(&b.0));
        }
    }
}

/// A hasher for the batches' maps: FxHash's multiply-rotate over 8 bytes at a time, several
/// times faster than the default on short keys. Keys are tokens of the user's own transcripts,
/// not input an attacker chooses to flood a map with.
#[derive(Debug, Default, Clone, Copy)]
pub struct FastHash;

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(0)
    }
}

#[derive(Debug)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            self.0 = (self.0.rotate_left(5) ^ little_endian(rest)).wrapping_mul(K);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Up to eight bytes as a little-endian number, read without a call to `memcpy` (for a short
/// token, that call cost as much as hashing it).
pub fn little_endian(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |w, &b| (w << 8) | u64::from(b))
}

/// The segments, and those being merged into a new frozen one meanwhile.
#[derive(Debug, Default)]
pub struct Postings {
    frozen: Arc<Frozen>,
    /// Frozen segments a build made (`builder.rs`), waiting for the next merge.
    built: Vec<Arc<Frozen>>,
    /// The segments being merged into a new frozen one: still looked up until it is.
    freezing: Option<Freezing>,
    live: Segment,
}

/// What a merge under way takes in besides the frozen segment.
#[derive(Debug)]
struct Freezing {
    built: Vec<Arc<Frozen>>,
    live: Arc<Segment>,
}

/// Built segments kept apart before a merge is due: each is one more binary search a lookup
/// (only while a build runs). A build hands over at least 8 segments per reader thread (four
/// at most) and merges them all once at its end; with 8 here, a merge came due just before
/// that end too (half a second of the 300,000-word bench's 3.1 s).
pub const MAX_BUILT: usize = 40;

/// What [`merge`] takes: the frozen segments (the current one first) and the live one.
pub type MergeJob = (Vec<Arc<Frozen>>, Arc<Segment>);

impl Postings {
    /// Adds the documents of every token equal to `token` (or starting with it) to `out`.
    pub fn lookup(&self, token: &str, prefix: bool, out: &mut Bitset) {
        let building = self.freezing.iter().flat_map(|f| &f.built);
        for frozen in [&self.frozen]
            .into_iter()
            .chain(&self.built)
            .chain(building)
        {
            for i in frozen.range(token, prefix) {
                for d in frozen.docs(i) {
                    out.insert(d);
                }
            }
        }
        let freezing = self.freezing.as_ref().map(|f| &*f.live);
        let segments = freezing.into_iter().chain([&self.live]);
        for seg in segments {
            for docs in seg.range(token, prefix) {
                for &d in docs {
                    out.insert(d);
                }
            }
        }
    }

    pub fn absorb(&mut self, batch: Batch) {
        self.live.absorb(batch);
    }

    /// Adds a frozen segment a build made; it is merged with the others at the next merge.
    pub fn absorb_built(&mut self, frozen: Frozen) {
        if frozen.tokens() > 0 || frozen.dropped() > 0 {
            self.built.push(Arc::new(frozen));
        }
    }

    /// Whether the live segment is due to be merged, or the built ones are too many.
    pub fn should_freeze(&self) -> bool {
        self.freezing.is_none()
            && (self.built.len() > MAX_BUILT
                || (self.live.pairs > 0
                    && self.live.pairs >= FREEZE_MIN_PAIRS.max(self.frozen.pairs() / 4)))
    }

    /// Starts a merge: the live and built segments become the ones being frozen (still looked
    /// up) and a new live one takes the additions. Returns what [`merge`] needs; `None` if a
    /// merge is under way, or if there is nothing to merge and not `dead_to_drop`.
    pub fn begin_freeze(&mut self, dead_to_drop: bool) -> Option<MergeJob> {
        let nothing = self.live.pairs == 0 && self.built.is_empty();
        if self.freezing.is_some() || (nothing && !dead_to_drop) {
            return None;
        }
        let live = Arc::new(std::mem::take(&mut self.live));
        let built = std::mem::take(&mut self.built);
        let mut frozen = Vec::with_capacity(built.len() + 1);
        frozen.push(self.frozen.clone());
        frozen.extend(built.iter().cloned());
        self.freezing = Some(Freezing {
            built,
            live: live.clone(),
        });
        Some((frozen, live))
    }

    /// Ends a merge with its result.
    pub fn finish_freeze(&mut self, frozen: Frozen) {
        self.frozen = Arc::new(frozen);
        self.freezing = None;
    }

    pub fn stats(&self) -> PostingStats {
        let seg = |s: &Segment| (s.entries, s.pairs, s.heap_bytes());
        let (lt, lp, lb) = seg(&self.live);
        let (ft, fp, fb) = self.freezing.as_ref().map_or((0, 0, 0), |f| seg(&f.live));
        let building = self.freezing.iter().flat_map(|f| &f.built);
        let frozen: Vec<&Arc<Frozen>> = [&self.frozen]
            .into_iter()
            .chain(&self.built)
            .chain(building)
            .collect();
        PostingStats {
            frozen_tokens: frozen.iter().map(|f| f.tokens()).sum(),
            frozen_pairs: frozen.iter().map(|f| f.pairs()).sum(),
            live_tokens: lt + ft,
            live_pairs: lp + fp,
            heap_bytes: frozen.iter().map(|f| f.heap_bytes()).sum::<usize>() + lb + fb,
            dropped_tokens: frozen.iter().map(|f| f.dropped()).sum(),
        }
    }
}

/// Sizes of the postings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PostingStats {
    pub frozen_tokens: usize,
    pub frozen_pairs: usize,
    pub live_tokens: usize,
    pub live_pairs: usize,
    pub heap_bytes: usize,
    pub dropped_tokens: usize,
}

/// What the index holds of one document.
#[derive(Debug, Clone)]
pub struct Doc {
    pub session_id: Box<str>,
    /// Index into [`Table::folders`].
    pub folder: u32,
    pub read: super::reader::ReadState,
    /// The [`Common::version`] its text was read with (the oldest, when read in parts): which
    /// adjacent pairs it has keys for (those of two tokens common by then). 0 until read.
    pub pairs_version: u32,
}

/// The documents and their postings.
#[derive(Debug, Default)]
pub struct Table {
    pub docs: Vec<Doc>,
    /// Session id → its live document.
    pub by_sid: HashMap<Box<str>, DocId>,
    pub folders: Vec<std::sync::Arc<std::path::Path>>,
    pub dead: Bitset,
    /// Documents that died since the last merge began.
    pub dead_since_merge: usize,
    pub postings: Postings,
    /// The tokens whose adjacent pairs are indexed.
    pub common: Arc<Common>,
}

/// The tokens found in most chats ("common"), whose adjacent pairs are indexed too, as the key
/// `"first second"` (a space is in no token): a phrase of them, which the word postings say
/// nearly every chat may have, is looked up by its pairs instead of being read in every chat.
/// Pairs of rarer tokens are not kept: their words alone leave few chats to read, and they
/// would multiply the index (most pairs of a real vocabulary are of a rare word).
///
/// A token becomes common when a build batch of at least [`COMMON_MIN_DOCS`] chats has it in
/// half of them, and stays common. A chat has pair keys for two tokens only if both were
/// common when its text was read: each token keeps the version of the set it joined, each
/// document the version it was read with ([`Doc::pairs_version`]).
#[derive(Debug, Default)]
pub struct Common {
    /// Token → the version of the set it joined.
    since: HashMap<Box<str>, u32, FastHash>,
    pub version: u32,
}

/// A batch must hold this many chats to make tokens common.
pub const COMMON_MIN_DOCS: usize = 16;

impl Common {
    pub fn contains(&self, token: &str) -> bool {
        self.since.contains_key(token)
    }

    /// The first version of the set with both `a` and `b`: documents read with it or a
    /// later one have their pair keys. `None` when one is not common.
    fn pair_since(&self, a: &str, b: &str) -> Option<u32> {
        Some(self.since.get(a)?.max(self.since.get(b)?).to_owned())
    }

    pub fn len(&self) -> usize {
        self.since.len()
    }
}

/// The key of an adjacent pair of tokens, in `buf`.
pub fn pair_key<'a>(buf: &'a mut String, first: &str, second: &str) -> &'a str {
    buf.clear();
    buf.push_str(first);
    buf.push(' ');
    buf.push_str(second);
    buf
}

impl Table {
    /// Adds a batch's postings, and makes common the tokens it has in half its chats (when it
    /// has enough of them to tell; see [`Common`]).
    pub fn absorb(&mut self, mut batch: Batch) {
        batch.seal();
        if batch.docs >= COMMON_MIN_DOCS {
            let frequent = batch
                .run
                .iter()
                .filter(|(_, docs)| docs.len() * 2 >= batch.docs)
                .map(|(token, _)| &**token);
            self.make_common(frequent);
        }
        self.postings.absorb(batch);
    }

    /// Adds a build's frozen segment, and makes common the tokens it has in half its chats
    /// (as [`Table::absorb`] does a batch's).
    pub fn absorb_built(&mut self, built: super::builder::Built) {
        if built.docs >= COMMON_MIN_DOCS {
            self.make_common(built.frequent.iter().map(|t| &**t));
        }
        self.postings.absorb_built(built.frozen);
    }

    /// Makes these tokens common (pair keys are no tokens), in a new version of the set.
    fn make_common<'a>(&mut self, frequent: impl Iterator<Item = &'a str>) {
        let new: Vec<&str> = frequent
            .filter(|token| !token.contains(' ') && !self.common.contains(token))
            .collect();
        if !new.is_empty() {
            let version = self.common.version + 1;
            let mut since = self.common.since.clone();
            since.extend(new.into_iter().map(|t| (Box::from(t), version)));
            self.common = Arc::new(Common { since, version });
        }
    }

    /// The id of a folder, added if new.
    pub fn folder_id(&mut self, folder: &std::path::Path) -> u32 {
        match self.folders.iter().position(|f| **f == *folder) {
            Some(i) => u32::try_from(i).unwrap_or(u32::MAX),
            None => {
                self.folders.push(std::sync::Arc::from(folder));
                u32::try_from(self.folders.len() - 1).unwrap_or(u32::MAX)
            }
        }
    }

    /// A new document for a chat, replacing (killing) its previous one. `None` when the ids
    /// ran out (4 billion documents).
    pub fn add_doc(&mut self, session_id: &str, folder: u32) -> Option<DocId> {
        let id = DocId::try_from(self.docs.len()).ok()?;
        self.kill(session_id);
        self.docs.push(Doc {
            session_id: session_id.into(),
            folder,
            read: super::reader::ReadState::default(),
            pairs_version: 0,
        });
        self.by_sid.insert(session_id.into(), id);
        Some(id)
    }

    /// Forgets a chat: its document is dead (its postings go at the next merge).
    pub fn kill(&mut self, session_id: &str) {
        if let Some(old) = self.by_sid.remove(session_id) {
            self.dead.insert(old);
            self.dead_since_merge += 1;
            if let Some(d) = self.docs.get_mut(old as usize) {
                // The slot stays (ids are positions); its id string is not needed any more.
                d.session_id = Box::from("");
            }
        }
    }

    /// Forgets the chat of a document, if that document is still the chat's.
    pub fn kill_doc(&mut self, doc: DocId) {
        let sid = match self.docs.get(doc as usize) {
            Some(d) if self.by_sid.get(&d.session_id) == Some(&doc) => d.session_id.clone(),
            _ => return,
        };
        self.kill(&sid);
    }

    /// Whether a merge is due: the live segment is large, or many documents died since the
    /// last one (their postings are dropped by merges only).
    pub fn merge_due(&self) -> bool {
        self.postings.should_freeze() || self.dead_since_merge > (self.by_sid.len() / 4).max(64)
    }

    /// Starts a merge (see [`Postings::begin_freeze`]), with the dead documents to drop.
    pub fn begin_merge(&mut self) -> Option<(Vec<Arc<Frozen>>, Arc<Segment>, Bitset)> {
        let dead_to_drop = self.dead_since_merge > 0;
        let (frozen, seg) = self.postings.begin_freeze(dead_to_drop)?;
        self.dead_since_merge = 0;
        Some((frozen, seg, self.dead.clone()))
    }

    /// The live documents that have every term of `query` by the index, and those of them
    /// that surely match: that have each phrase too, by its pair keys (a closed two-word
    /// phrase of common tokens, in a chat with their pair keys), so reading them is needed only
    /// for their snippets. A phrase's adjacent pairs of common tokens are looked up as pairs,
    /// so a chat with those pair keys that has the words but never in a row is not a candidate.
    pub fn candidates(&self, query: &super::query::Query) -> (Bitset, Bitset) {
        let n = self.docs.len();
        let mut all: Option<Bitset> = None;
        for term in &query.terms {
            for (token, prefix) in term.keys() {
                let mut bits = Bitset::with_len(n);
                self.postings.lookup(token, prefix, &mut bits);
                match &mut all {
                    None => all = Some(bits),
                    Some(a) => a.and(&bits),
                }
            }
        }
        let mut all = all.unwrap_or_else(|| Bitset::with_len(n));
        all.and_not(&self.dead);
        // Candidates a phrase's pairs cannot confirm.
        let mut unsure = Bitset::with_len(n);
        let mut buf = String::new();
        for term in &query.terms {
            let k = term.tokens.len();
            if k < 2 {
                continue;
            }
            let confirms = k == 2 && !term.prefix_last;
            let mut looked_up = false;
            for (i, pair) in term.tokens.windows(2).enumerate() {
                let [a, b] = pair else { continue };
                // A last token matched as a start has no pair key of its own.
                let open = term.prefix_last && i + 2 == k;
                let Some(since) = self.common.pair_since(a, b).filter(|_| !open) else {
                    continue;
                };
                looked_up = true;
                let mut has = Bitset::with_len(n);
                self.postings
                    .lookup(pair_key(&mut buf, a, b), false, &mut has);
                let mut drop = Bitset::with_len(n);
                for d in all.iter() {
                    let covered = self
                        .docs
                        .get(d as usize)
                        .is_some_and(|doc| doc.pairs_version >= since);
                    if !covered {
                        unsure.insert(d);
                    } else if !has.contains(d) {
                        drop.insert(d);
                    }
                }
                all.and_not(&drop);
            }
            if !(confirms && looked_up) {
                unsure = all.clone();
            }
        }
        let mut sure = all.clone();
        sure.and_not(&unsure);
        (all, sure)
    }

    /// An estimate of the memory the index holds.
    pub fn heap_bytes(&self) -> usize {
        let docs = self.docs.capacity() * std::mem::size_of::<Doc>()
            + self.docs.iter().map(|d| d.session_id.len()).sum::<usize>();
        let by_sid = self.by_sid.capacity() * (16 + 4 + 8) + self.by_sid.len() * 36;
        docs + by_sid + self.dead.heap_bytes() + self.postings.stats().heap_bytes
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::query::Query;
    use super::*;

    fn batch(docs: &[(DocId, &[&str])]) -> Batch {
        let mut b = Batch::default();
        for (d, tokens) in docs {
            for t in *tokens {
                b.add(t, *d);
            }
        }
        b
    }

    fn found(p: &Postings, token: &str, prefix: bool) -> Vec<DocId> {
        let mut bits = Bitset::default();
        p.lookup(token, prefix, &mut bits);
        bits.iter().collect()
    }

    #[test]
    fn bitsets() {
        let mut a = Bitset::with_len(10);
        for i in [0, 3, 64, 200] {
            a.insert(i);
        }
        assert_eq!(a.iter().collect::<Vec<_>>(), [0, 3, 64, 200]);
        assert!(a.contains(200) && !a.contains(199) && !a.contains(100_000));
        let mut b = Bitset::default();
        b.insert(3);
        b.insert(200);
        let mut c = a.clone();
        c.and(&b);
        assert_eq!(c.iter().collect::<Vec<_>>(), [3, 200]);
        a.and_not(&b);
        assert_eq!(a.iter().collect::<Vec<_>>(), [0, 64]);
    }

    #[test]
    fn prefix_and_exact_lookups_across_segments() {
        let mut p = Postings::default();
        p.absorb(batch(&[
            (0, &["refresh", "race", "cookie"]),
            (1, &["refract", "cookies"]),
            (2, &["ref", "reference"]),
        ]));
        let check = |p: &Postings| {
            assert_eq!(found(p, "refr", true), [0, 1]);
            assert_eq!(found(p, "ref", true), [0, 1, 2]);
            assert_eq!(found(p, "ref", false), [2]);
            assert_eq!(found(p, "cookie", true), [0, 1]);
            assert_eq!(found(p, "cookie", false), [0]);
            assert_eq!(found(p, "cookiez", true), Vec::<DocId>::new());
            assert_eq!(found(p, "a", true), Vec::<DocId>::new());
            assert_eq!(found(p, "zzz", true), Vec::<DocId>::new());
        };
        check(&p);
        // Frozen, then more added live (a running chat's append, a new chat).
        let (f, s) = p.begin_freeze(false).unwrap();
        check(&p);
        let merged = merge(&f, &s, &Bitset::default());
        p.finish_freeze(merged);
        assert_eq!(p.stats().frozen_tokens, 7);
        assert_eq!(p.stats().live_pairs, 0);
        check(&p);
        p.absorb(batch(&[(1, &["refresh"]), (3, &["rebase"])]));
        assert_eq!(found(&p, "refr", true), [0, 1]);
        assert_eq!(found(&p, "re", true), [0, 1, 2, 3]);
        // A second merge keeps everything, deduplicated and sorted.
        let (f, s) = p.begin_freeze(false).unwrap();
        p.finish_freeze(merge(&f, &s, &Bitset::default()));
        assert_eq!(found(&p, "refresh", false), [0, 1]);
        assert_eq!(p.stats().frozen_pairs, 9);
    }

    #[test]
    fn a_token_in_several_runs_is_found_in_each_and_merged_once() {
        let mut p = Postings::default();
        p.absorb(batch(&[(3, &["cookie", "race"]), (4, &["cookie"])]));
        p.absorb(batch(&[(1, &["cookie"]), (2, &["crumb"])]));
        p.absorb(batch(&[(3, &["cookie"])]));
        assert_eq!(found(&p, "cookie", false), [1, 3, 4]);
        assert_eq!(found(&p, "c", true), [1, 2, 3, 4]);
        let (frozen, seg) = p.begin_freeze(false).unwrap();
        let merged = merge(&frozen, &seg, &Bitset::default());
        p.finish_freeze(merged);
        assert_eq!(p.stats().frozen_tokens, 3);
        assert_eq!(found(&p, "cookie", false), [1, 3, 4]);
        assert_eq!(found(&p, "crumb", true), [2]);
    }

    /// A build's frozen segments: found before they are merged, while, and after, together
    /// with the frozen and live ones; the merge keeps each token once with every chat.
    #[test]
    fn built_segments_are_looked_up_and_merged_with_the_others() {
        let built = |docs: &[(DocId, &[&str])]| {
            let mut b = super::super::builder::Builder::default();
            for (d, tokens) in docs {
                for t in *tokens {
                    b.add(t, *d);
                }
            }
            b.finish().frozen
        };
        let mut p = Postings::default();
        p.absorb(batch(&[(0, &["cookie", "alpha"])]));
        let (f, s) = p.begin_freeze(false).unwrap();
        p.finish_freeze(merge(&f, &s, &Bitset::default()));
        p.absorb_built(built(&[(1, &["cookie", "beta"]), (2, &["cookies"])]));
        p.absorb_built(built(&[(3, &["cookie"]), (4, &["alpha", "gamma"])]));
        p.absorb(batch(&[(5, &["cookie"])]));
        let check = |p: &Postings| {
            assert_eq!(found(p, "cookie", false), [0, 1, 3, 5]);
            assert_eq!(found(p, "cookie", true), [0, 1, 2, 3, 5]);
            assert_eq!(found(p, "alpha", false), [0, 4]);
            assert_eq!(found(p, "gamma", true), [4]);
        };
        check(&p);
        assert!(
            !p.should_freeze(),
            "a few built segments wait for the build's end"
        );
        let (f, s) = p.begin_freeze(false).unwrap();
        assert_eq!(f.len(), 3, "the frozen segment and the two built ones");
        check(&p);
        let mut dead = Bitset::default();
        dead.insert(4);
        p.finish_freeze(merge(&f, &s, &dead));
        assert_eq!(found(&p, "alpha", false), [0]);
        assert_eq!(found(&p, "gamma", true), Vec::<DocId>::new());
        assert_eq!(found(&p, "cookie", false), [0, 1, 3, 5]);
        let stats = p.stats();
        assert_eq!((stats.frozen_tokens, stats.live_pairs), (4, 0));
    }

    #[test]
    fn dead_documents_are_dropped_at_merges() {
        let mut p = Postings::default();
        p.absorb(batch(&[
            (0, &["alpha", "beta"]),
            (1, &["alpha"]),
            (2, &["gamma"]),
        ]));
        let mut dead = Bitset::default();
        dead.insert(0);
        dead.insert(2);
        let (f, s) = p.begin_freeze(false).unwrap();
        p.finish_freeze(merge(&f, &s, &dead));
        assert_eq!(found(&p, "alpha", false), [1]);
        assert_eq!(found(&p, "beta", false), Vec::<DocId>::new());
        assert_eq!(
            p.stats().frozen_tokens,
            1,
            "tokens with no live document go"
        );
    }

    #[test]
    fn large_ids_and_gaps_round_trip_through_varints() {
        let ids: Vec<DocId> = vec![0, 1, 127, 128, 300, 16_384, 2_000_000, u32::MAX - 1];
        let mut b = Batch::default();
        for &d in &ids {
            b.add("tok", d);
        }
        let mut p = Postings::default();
        p.absorb(b);
        let (f, s) = p.begin_freeze(false).unwrap();
        let merged = merge(&f, &s, &Bitset::default());
        assert_eq!(merged.docs(0).collect::<Vec<_>>(), ids);
    }

    #[test]
    fn candidates_are_the_and_of_the_terms_without_dead_chats() {
        let mut t = Table::default();
        let folder = t.folder_id(std::path::Path::new("/f"));
        let a = t.add_doc("a", folder).unwrap();
        let b = t.add_doc("b", folder).unwrap();
        let c = t.add_doc("c", folder).unwrap();
        t.postings.absorb(batch(&[
            (a, &["cookie", "refresh", "race"]),
            (b, &["cookie", "refreshed"]),
            (c, &["cookie", "race", "refresh"]),
        ]));
        let ids = |t: &Table, q: &str| t.candidates(&Query::parse(q)).0.iter().collect::<Vec<_>>();
        assert_eq!(ids(&t, "cook refr"), [a, b, c]);
        assert_eq!(
            ids(&t, r#"cookie "refresh race""#),
            [a, c],
            "a phrase needs all its words"
        );
        assert_eq!(ids(&t, "race nothing"), Vec::<DocId>::new());
        // Replaced: the chat's new document is searched, the old one is not.
        let c2 = t.add_doc("c", folder).unwrap();
        t.postings.absorb(batch(&[(c2, &["other"])]));
        assert_eq!(ids(&t, "race"), [a]);
        assert_eq!(ids(&t, "other"), [c2]);
        t.kill("a");
        assert_eq!(ids(&t, "race"), Vec::<DocId>::new());
        assert_eq!(t.by_sid.len(), 2);
    }
}
