//! The build's side of the index: many chats read from their start (every chat, when the daemon
//! starts) made straight into a [`Frozen`] segment, without the live segment's per-token boxes,
//! vectors and string sorts.
//!
//! A [`Builder`] numbers each token the first time it sees it (its bytes appended to one arena,
//! found again through an open-addressing table of numbers) and records each (token, chat) pair
//! as two numbers; [`Builder::finish`] sorts the tokens by their bytes once, places every
//! chat under its token by a counting sort, and writes the frozen segment in one pass. Every
//! buffer is a few large arrays, given back whole when the builder is dropped (no heap of
//! small blocks is left behind). A build makes one such segment per few million pairs; the
//! index merges them into one (`frozen.rs`).

use super::frozen::Frozen;
use std::hash::{BuildHasher, Hasher};

use super::index::{COMMON_MIN_DOCS, DocId, FastHash, little_endian};

/// A build segment is finished past this many (token, chat) pairs: about 50 MB of buffers.
pub const CHUNK_PAIRS: usize = 1 << 22;

/// Tokens of many chats, numbered, with their (token, chat) pairs; see the module docs.
#[derive(Debug, Default)]
pub struct Builder {
    /// Every token's bytes, in the order first seen, concatenated.
    arena: Vec<u8>,
    /// Per token, in one place so that a token seen again costs one cache line.
    terms: Vec<Term>,
    /// The tokens by hash ([`Slot`]); linear probing, at most half full.
    slots: Vec<Slot>,
    /// (token, chat) pairs, in the order recorded.
    pairs: Vec<(u32, DocId)>,
    docs: usize,
    last_doc: Option<DocId>,
    /// Tokens left out: the arena would have passed 4 GiB.
    dropped: usize,
}

/// A slot of the table: a token's number (plus one; 0 for an empty slot), a check (the low
/// half of its hash, its length in the lowest byte) and its first eight bytes, so that a
/// token of at most eight bytes is found without looking anywhere else.
#[derive(Debug, Default, Clone, Copy)]
struct Slot {
    prefix: u64,
    check: u32,
    plus_one: u32,
}

/// One token of a [`Builder`].
#[derive(Debug, Clone, Copy)]
struct Term {
    /// Its first eight bytes ([`prefix`]).
    prefix: u64,
    /// Its bytes in the arena.
    start: u32,
    len: u32,
    /// 1 + the last chat it was recorded for (0: none yet).
    last: u32,
    /// The chats it was recorded for.
    count: u32,
}

/// What [`Builder::finish`] makes.
#[derive(Debug, Default)]
pub struct Built {
    pub frozen: Frozen,
    /// The tokens in at least half of the chats recorded (when there were
    /// [`COMMON_MIN_DOCS`] or more).
    pub frequent: Vec<Box<str>>,
    /// Chats recorded.
    pub docs: usize,
}

impl Builder {
    /// A builder whose table starts as large as `previous`'s ended (the next segment of the
    /// same build has about as many tokens): it is not grown again token by token.
    pub fn after(previous: &Builder) -> Builder {
        Builder {
            slots: vec![Slot::default(); previous.slots.len()],
            terms: Vec::with_capacity(previous.terms.len()),
            arena: Vec::with_capacity(previous.arena.len()),
            pairs: Vec::with_capacity(previous.pairs.len()),
            ..Builder::default()
        }
    }

    /// Records that `doc` has `token`. A chat's tokens must be recorded together (before the
    /// next chat's), as for `Batch::add`.
    pub fn add(&mut self, token: &str, doc: DocId) {
        if self.last_doc != Some(doc) {
            self.last_doc = Some(doc);
            self.docs += 1;
        }
        let Some(id) = self.id(token.as_bytes()) else {
            self.dropped += 1;
            return;
        };
        let term = &mut self.terms[id as usize];
        if term.last != doc.wrapping_add(1) {
            term.last = doc.wrapping_add(1);
            term.count += 1;
            self.pairs.push((id, doc));
        }
    }

    /// Whether the segment is to be finished now: past [`CHUNK_PAIRS`] pairs or `chats` chats,
    /// or, while no token is `common_known` yet, past [`COMMON_MIN_DOCS`] chats, so that the
    /// chats read after it have their pair keys.
    pub fn is_full(&self, chats: usize, common_known: bool) -> bool {
        (self.docs >= COMMON_MIN_DOCS && !common_known)
            || self.pairs.len() >= CHUNK_PAIRS
            || self.docs >= chats
    }

    fn key(&self, id: u32) -> &[u8] {
        let t = &self.terms[id as usize];
        &self.arena[t.start as usize..(t.start + t.len) as usize]
    }

    /// The number of a token, given one if new; `None` when the arena is full.
    fn id(&mut self, token: &[u8]) -> Option<u32> {
        if self.slots.len() < 2 * (self.terms.len() + 1) {
            self.grow();
        }
        let h = hash(token);
        let first = prefix(token);
        let check = (h as u32 & !0xff) | token.len().min(0xff) as u32;
        let mask = self.slots.len() - 1;
        let mut at = (h >> 32) as usize & mask;
        loop {
            let slot = self.slots[at];
            if slot.plus_one == 0 {
                break;
            }
            if slot.check == check
                && slot.prefix == first
                && (token.len() <= 8 || self.key(slot.plus_one - 1) == token)
            {
                return Some(slot.plus_one - 1);
            }
            at = (at + 1) & mask;
        }
        let id = u32::try_from(self.terms.len()).ok()?;
        let start = u32::try_from(self.arena.len()).ok()?;
        let len = u32::try_from(token.len()).ok()?;
        start.checked_add(len)?;
        self.arena.extend_from_slice(token);
        self.terms.push(Term {
            prefix: first,
            start,
            len,
            last: 0,
            count: 0,
        });
        self.slots[at] = Slot {
            prefix: first,
            check,
            plus_one: id + 1,
        };
        Some(id)
    }

    /// Doubles the table (at least 1,024 slots) and places every token again.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(1 << 10);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        let mask = size - 1;
        for slot in old.into_iter().filter(|s| s.plus_one != 0) {
            let mut at = (hash(self.key(slot.plus_one - 1)) >> 32) as usize & mask;
            while self.slots[at].plus_one != 0 {
                at = (at + 1) & mask;
            }
            self.slots[at] = slot;
        }
    }

    /// The frozen segment of everything recorded (see the module docs), and the frequent
    /// tokens.
    pub fn finish(self) -> Built {
        let n = self.terms.len();
        // The tokens in byte order: by their first eight bytes as a number, then whole.
        let mut order: Vec<(u64, u32)> = (0..n as u32)
            .map(|id| (self.terms[id as usize].prefix, id))
            .collect();
        order.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| self.key(a.1).cmp(self.key(b.1))));
        // Where each token's chats go: a counting sort by its place in that order.
        let mut start = vec![0u32; n + 1];
        for (place, &(_, id)) in order.iter().enumerate() {
            start[place + 1] = start[place] + self.terms[id as usize].count;
        }
        let mut rank = vec![0u32; n];
        for (place, &(_, id)) in order.iter().enumerate() {
            rank[id as usize] = place as u32;
        }
        let mut cursor = start.clone();
        let mut docs = vec![0 as DocId; self.pairs.len()];
        for &(id, doc) in &self.pairs {
            let c = &mut cursor[rank[id as usize] as usize];
            docs[*c as usize] = doc;
            *c += 1;
        }
        drop((cursor, rank));
        let mut frozen = Frozen::with_capacity(self.arena.len(), n, self.pairs.len() * 2);
        for (place, &(_, id)) in order.iter().enumerate() {
            let chats = &mut docs[start[place] as usize..start[place + 1] as usize];
            // Chats are recorded in order by one reader; a merge of two readers' is not.
            if !chats.is_sorted() {
                chats.sort_unstable();
            }
            frozen.push(self.key(id), chats);
        }
        frozen.shrink_to_fit();
        frozen.count_dropped(self.dropped);
        let frequent = if self.docs >= COMMON_MIN_DOCS {
            (0..n as u32)
                .filter(|&id| self.terms[id as usize].count as usize * 2 >= self.docs)
                .filter_map(|id| std::str::from_utf8(self.key(id)).ok().map(Box::from))
                .collect()
        } else {
            Vec::new()
        };
        Built {
            frozen,
            frequent,
            docs: self.docs,
        }
    }
}

/// The first eight bytes of a token as a big-endian number (zeros past its end): ordered as
/// the tokens are, up to ties, since no token holds a zero byte.
fn prefix(key: &[u8]) -> u64 {
    match key.first_chunk::<8>() {
        Some(eight) => u64::from_be_bytes(*eight),
        // Read as little-endian, then turned: the first byte on top, zeros below the last.
        None => little_endian(key).swap_bytes(),
    }
}

/// The batches' hash ([`FastHash`]) of a token's bytes.
fn hash(bytes: &[u8]) -> u64 {
    let mut h = FastHash.build_hasher();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::index::{Batch, Bitset, Segment, merge};
    use super::*;

    /// Every token with its chats, as a frozen segment lists them.
    fn listed(f: &Frozen) -> Vec<(String, Vec<DocId>)> {
        (0..f.tokens())
            .map(|i| {
                (
                    String::from_utf8_lossy(f.key(i)).into_owned(),
                    f.docs(i).collect(),
                )
            })
            .collect()
    }

    /// The same chats through the live segment's batches and a merge.
    fn through_a_batch(chats: &[(DocId, Vec<String>)]) -> Frozen {
        let mut batch = Batch::default();
        for (doc, tokens) in chats {
            for t in tokens {
                batch.add(t, *doc);
            }
        }
        let mut seg = Segment::default();
        seg.absorb(batch);
        merge(&[], &seg, &Bitset::default())
    }

    #[test]
    fn a_built_segment_is_what_a_batch_and_a_merge_make() {
        // Tokens that share long prefixes (ties of the first eight bytes), repeats within a
        // chat, non-ASCII tokens, pair keys, chats out of order, and enough tokens to grow the
        // table several times.
        let mut chats: Vec<(DocId, Vec<String>)> = Vec::new();
        for doc in [5u32, 0, 1, 2, 300, 7, 1_000_000] {
            let mut tokens: Vec<String> = (0..3_000)
                .map(|i| format!("tok{:09}", (i * (doc as usize + 3)) % 4_001))
                .collect();
            tokens.extend(["café".into(), "module layout".into(), "tok".into()]);
            tokens.push(format!("only{doc}"));
            chats.push((doc, tokens));
        }
        let mut b = Builder::default();
        for (doc, tokens) in &chats {
            for t in tokens {
                b.add(t, *doc);
            }
        }
        let built = b.finish();
        assert_eq!(built.docs, 7);
        let want = listed(&through_a_batch(&chats));
        assert_eq!(listed(&built.frozen), want);
        assert_eq!(
            built.frozen.pairs(),
            want.iter().map(|(_, d)| d.len()).sum::<usize>()
        );
        assert!(built.frequent.is_empty(), "fewer chats than it takes");
    }

    #[test]
    fn tokens_in_half_the_chats_are_frequent() {
        let mut b = Builder::default();
        for doc in 0..COMMON_MIN_DOCS as DocId {
            b.add("everywhere", doc);
            b.add("everywhere", doc);
            if doc % 2 == 0 {
                b.add("half", doc);
            }
            if doc % 3 == 0 {
                b.add("third", doc);
            }
        }
        let mut frequent = b.finish().frequent;
        frequent.sort();
        assert_eq!(frequent, [Box::from("everywhere"), Box::from("half")]);
    }

    #[test]
    fn an_empty_builder_makes_an_empty_segment() {
        let built = Builder::default().finish();
        assert_eq!((built.frozen.tokens(), built.docs), (0, 0));
    }
}
