//! A measurement for `cargo xtask bench` (through the hidden `paddockd bench-search`): the
//! index's memory and candidate times with a realistic vocabulary, which the bench corpus (a
//! 20-word lorem) does not have. Each chat holds 3,000 word occurrences drawn log-uniformly
//! from 300,000 words, in a row (so the pairs of common words are indexed as the updater
//! indexes them), plus 200 tokens unique to it (hashes, ids). The chats go through the build's
//! own path: a [`Builder`] per chunk of chats, taken into the table, merged at the end.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use super::builder::{Builder, Built};
use super::index;
use super::query::Query;
use super::updater::{FirstTakenIn, build_threads, hand_over_if_full};

/// Word occurrences per chat.
const WORDS: usize = 3_000;
/// The vocabulary the words are drawn from.
const VOCABULARY: f64 = 300_000.0;
/// Tokens unique to each chat.
const UNIQUE: usize = 200;
/// Chats per built segment at most (the updater makes at least 8 segments of a build).
const CHUNK_CHATS: usize = 1_250;

/// Builds an index of `chats` generated chats and returns the figures as lines: tokens,
/// (token, chat) pairs, heap size and build time, then the candidates of a few queries. The
/// chats are made on as many threads as the daemon's build reads on ([`build_threads`]), each
/// with its own builder, and taken into the table on this one, as the updater does.
pub fn large_vocabulary(chats: u32) -> Vec<String> {
    let draw = LogUniform::new();
    let started = Instant::now();
    let mut t = index::Table::default();
    let folder = t.folder_id(Path::new("/chats"));
    let docs: Vec<(u32, index::DocId)> = (0..chats)
        .filter_map(|n| {
            Some((
                n,
                t.add_doc(&format!("{n:08x}-0000-4000-8000-000000000000"), folder)?,
            ))
        })
        .collect();
    let threads = build_threads().clamp(1, docs.len().max(1));
    let common = std::sync::RwLock::new(t.common.clone());
    let next = AtomicUsize::new(0);
    let first = FirstTakenIn::default();
    let (tx, rx) = std::sync::mpsc::sync_channel::<(Built, Vec<Read>)>(threads * 2);
    let (docs, next, common, draw, first) = (&docs, &next, &common, &draw, &first);
    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            s.spawn(move || make_chats(docs, next, common, draw, first, &tx));
        }
        drop(tx);
        for (built, read) in rx {
            t.absorb_built(built);
            for (doc, version) in read {
                if let Some(d) = t.docs.get_mut(doc as usize) {
                    d.pairs_version = version;
                }
            }
            if let Ok(mut c) = common.write() {
                *c = t.common.clone();
            }
            first.set();
            if t.merge_due() {
                let _ = merge(&mut t);
            }
        }
    });
    let merging = Instant::now();
    let segments = merge(&mut t);
    let merged = merging.elapsed();
    let p = t.postings.stats();
    let mut lines = vec![format!(
        "{chats} chats: {} tokens ({} common), {} pairs, {:.1} MB, built in {:.1} s",
        p.frozen_tokens,
        t.common.len(),
        p.frozen_pairs,
        t.heap_bytes() as f64 / 1e6,
        started.elapsed().as_secs_f64()
    )];
    lines.push(format!(
        "the last merge: {segments} segments in {:.2} s on {} threads",
        merged.as_secs_f64(),
        build_threads()
    ));
    for q in [
        "w1ord",
        "w1ord w2ord",
        "w3",
        "\"w1ord w2ord\"",
        "\"w2ord w1ord\"",
        "00000000000a",
    ] {
        let t0 = Instant::now();
        let found = t.candidates(&Query::parse(q)).0.iter().count();
        lines.push(format!(
            "candidates of {q}: {found} chats in {:.2} ms",
            t0.elapsed().as_secs_f64() * 1e3
        ));
    }
    lines
}

/// One build thread's share of the chats: each taken from `next`, its words drawn with a
/// generator of the chat's own (so a chat is the same whichever thread makes it), added to
/// this thread's builder, whose segments go to `tx` (with the chats they hold, each with the
/// common set's version it was made with) as the updater's readers send theirs.
fn make_chats(
    docs: &[(u32, index::DocId)],
    next: &AtomicUsize,
    common: &std::sync::RwLock<std::sync::Arc<index::Common>>,
    draw: &LogUniform,
    first: &FirstTakenIn,
    tx: &std::sync::mpsc::SyncSender<(Built, Vec<Read>)>,
) {
    let mut builder = Builder::default();
    let mut read: Vec<Read> = Vec::new();
    let (mut unique, mut prev, mut pair, mut buf) =
        (String::new(), String::new(), String::new(), [0u8; 24]);
    while let Some(&(n, doc)) = docs.get(next.fetch_add(1, Ordering::Relaxed)) {
        let common = match common.read() {
            Ok(c) => c.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        let mut seed =
            0x2545_f491_4f6c_dd1d_u64 ^ (u64::from(n) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut random = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        prev.clear();
        for _ in 0..WORDS {
            let word = word(draw.rank(random()), &mut buf);
            builder.add(word, doc);
            if common.contains(word) {
                if common.contains(&prev) {
                    builder.add(index::pair_key(&mut pair, &prev, word), doc);
                }
                prev.clear();
                prev.push_str(word);
            } else {
                prev.clear();
            }
        }
        for k in 0..UNIQUE {
            use std::fmt::Write;
            unique.clear();
            let _ = write!(unique, "{:012x}", u64::from(n) * 1000 + k as u64);
            builder.add(&unique, doc);
        }
        read.push((doc, common.version));
        // As the updater: a first small segment makes the common words known.
        if !hand_over_if_full(
            &mut builder,
            &mut read,
            CHUNK_CHATS,
            common.len() > 0,
            tx,
            first,
        ) {
            return;
        }
    }
    let _ = tx.send((builder.finish(), read));
}

/// A chat made, and the version of the common set it was made with.
type Read = (index::DocId, u32);

/// The word of a rank, `w{rank:x}ord`, written in `buf` (as a tokenizer hands the index a
/// word it just read: looking it up in a table of 300,000 strings made each word a cache
/// miss, which text read in order does not have).
fn word(rank: usize, buf: &mut [u8; 24]) -> &str {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digits = (usize::BITS - rank.leading_zeros()).div_ceil(4).max(1) as usize;
    buf[0] = b'w';
    for i in 0..digits {
        buf[digits - i] = HEX[(rank >> (4 * i)) & 0xf];
    }
    buf[digits + 1..digits + 4].copy_from_slice(b"ord");
    std::str::from_utf8(&buf[..digits + 4]).unwrap_or("")
}

/// Draws a word's rank log-uniformly from the vocabulary: `VOCABULARY^u - 1` for a uniform
/// `u`, by a table of that curve at 4,096 points and a straight line between them (`powf`
/// for each of 30 million words took a second; drawing the words is not the index's work).
struct LogUniform {
    points: Vec<f64>,
}

impl LogUniform {
    const STEPS: usize = 4_096;

    fn new() -> Self {
        let points = (0..=Self::STEPS)
            .map(|i| VOCABULARY.powf(i as f64 / Self::STEPS as f64) - 1.0)
            .collect();
        Self { points }
    }

    fn rank(&self, u: f64) -> usize {
        let x = u * Self::STEPS as f64;
        let i = (x as usize).min(Self::STEPS - 1);
        let (lo, hi) = (self.points[i], self.points[i + 1]);
        (lo + (hi - lo) * (x - i as f64)) as usize
    }
}

/// Merges every segment into one; how many there were (the live one counted).
fn merge(t: &mut index::Table) -> usize {
    let Some((frozen, segment, dead)) = t.begin_merge() else {
        return 0;
    };
    let merged = index::merge(&frozen, &segment, &dead);
    t.postings.finish_freeze(merged);
    frozen.len() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small run: its figures, and a token unique to one chat found in that chat alone.
    #[test]
    fn the_measurement_indexes_every_chat() {
        let lines = large_vocabulary(20);
        assert!(lines[0].starts_with("20 chats: "), "{lines:?}");
        assert_eq!(lines.len(), 8, "{lines:?}");
        let unique = lines
            .iter()
            .find(|l| l.starts_with("candidates of 00000000000a:"))
            .cloned()
            .unwrap_or_default();
        assert!(unique.contains(": 1 chats in "), "{lines:?}");
    }
}
