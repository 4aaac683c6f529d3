//! A measurement for `cargo xtask bench` (through the hidden `paddockd bench-search`): the
//! index's memory and candidate times with a realistic vocabulary, which the bench corpus (a
//! 20-word lorem) does not have. Each chat holds 3,000 word occurrences drawn log-uniformly
//! from 300,000 words, in a row (so the pairs of common words are indexed as the updater
//! indexes them), plus 200 tokens unique to it (hashes, ids).

use std::path::Path;
use std::time::Instant;

use super::index;
use super::query::Query;

/// Word occurrences per chat.
const WORDS: usize = 3_000;
/// The vocabulary the words are drawn from.
const VOCABULARY: f64 = 300_000.0;
/// Tokens unique to each chat.
const UNIQUE: usize = 200;
/// Pairs buffered before a batch goes into the index (as the updater does).
const BATCH_PAIRS: usize = 200_000;

/// Builds an index of `chats` generated chats and returns the figures as lines: tokens,
/// (token, chat) pairs, heap size and build time, then the candidates of a few queries.
pub fn large_vocabulary(chats: u32) -> Vec<String> {
    let started = Instant::now();
    let mut t = index::Table::default();
    let folder = t.folder_id(Path::new("/chats"));
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut batch = index::Batch::default();
    for n in 0..chats {
        let Some(doc) = t.add_doc(&format!("{n:08x}-0000-4000-8000-000000000000"), folder) else {
            continue;
        };
        let common = t.common.clone();
        let (mut prev, mut pair) = (String::new(), String::new());
        for _ in 0..WORDS {
            let rank = (VOCABULARY.powf(next()) - 1.0) as u64;
            let word = format!("w{rank:x}ord");
            batch.add(&word, doc);
            if common.contains(&word) {
                if common.contains(&prev) {
                    batch.add(index::pair_key(&mut pair, &prev, &word), doc);
                }
                prev = word;
            } else {
                prev.clear();
            }
        }
        if let Some(d) = t.docs.get_mut(doc as usize) {
            d.pairs_version = common.version;
        }
        for k in 0..UNIQUE {
            batch.add(&format!("{:012x}", u64::from(n) * 1000 + k as u64), doc);
        }
        if batch.pairs > BATCH_PAIRS {
            t.absorb(std::mem::take(&mut batch));
            if t.merge_due() {
                merge(&mut t);
            }
        }
    }
    t.absorb(batch);
    merge(&mut t);
    let p = t.postings.stats();
    let mut lines = vec![format!(
        "{chats} chats: {} tokens ({} common), {} pairs, {:.1} MB, built in {:.1} s",
        p.frozen_tokens,
        t.common.len(),
        p.frozen_pairs,
        t.heap_bytes() as f64 / 1e6,
        started.elapsed().as_secs_f64()
    )];
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

fn merge(t: &mut index::Table) {
    if let Some((frozen, segment, dead)) = t.begin_merge() {
        let merged = index::merge(&frozen, &segment, &dead);
        t.postings.finish_freeze(merged);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small run: its figures, and a token unique to one chat found in that chat alone.
    #[test]
    fn the_measurement_indexes_every_chat() {
        let lines = large_vocabulary(20);
        assert!(lines[0].starts_with("20 chats: "), "{lines:?}");
        assert_eq!(lines.len(), 7, "{lines:?}");
        let unique = lines
            .iter()
            .find(|l| l.starts_with("candidates of 00000000000a:"))
            .cloned()
            .unwrap_or_default();
        assert!(unique.contains(": 1 chats in "), "{lines:?}");
    }
}
