//! From candidates to hits: ranking, then reading the candidates' transcripts (rendered as
//! `chat:transcript` renders them) to find where each matches, with snippets.
//!
//! The index says which chats have every word, and of those which surely have each phrase
//! too (its pairs of common words, [`Candidate::sure`]); only the transcript says where, and
//! whether the other phrases' words are in a row. Candidates are read best first, on a few
//! threads, until `limit` hits are confirmed — and, for a query with a phrase, on until
//! [`COUNT_BUDGET`] has passed, to count the candidates the index is not sure of (those it is
//! sure of are counted unread). Nothing is read past [`HARD_BUDGET`]. `total` is the chats
//! confirmed plus the candidates not read: exact when every candidate not sure was read, else
//! an upper bound (close to exact for words, whose candidates all match but for a renamed
//! chat's old title).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use paddock_proto::{SearchField, SearchHit, SearchMatch, TranscriptEntry};

use super::query::Query;
use super::reader::entry_text;
use super::snippet::snippet;
use crate::transcripts;

/// Matches listed per chat; the rest are counted in `more`.
pub const MATCHES_PER_CHAT: usize = 5;
/// How long a phrase query reads on to count its matches once its hits are found.
pub const COUNT_BUDGET: Duration = Duration::from_millis(500);
/// Nothing is read past this, hits found or not.
pub const HARD_BUDGET: Duration = Duration::from_secs(3);

/// A chat the index found, with what ranking and the hit need.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub session_id: String,
    pub project_slug: String,
    /// As the chat list shows it.
    pub title: String,
    pub updated_at: String,
    pub activity_ms: i64,
    pub archived: bool,
    /// Its transcripts folder (shared by every candidate of the folder: a path each was most
    /// of what a search of a word every chat has held).
    pub folder: Arc<Path>,
    /// How many of the query's terms the title has.
    pub title_terms: usize,
    /// The index says it matches (each phrase by its pairs): it is read only for its hit.
    pub sure: bool,
}

impl Candidate {
    /// Its transcript.
    pub fn path(&self) -> PathBuf {
        self.folder.join(format!("{}.jsonl", self.session_id))
    }
}

/// Best first: more of the query in the title, then the most recent activity. The order is
/// found on indices and the candidates moved once (sorting 10,000 of them in place moved
/// each some fourteen times: milliseconds of copying).
pub fn rank(cands: &mut Vec<Candidate>) {
    let mut order: Vec<usize> = (0..cands.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        let (a, b) = (&cands[a], &cands[b]);
        b.title_terms
            .cmp(&a.title_terms)
            .then(b.activity_ms.cmp(&a.activity_ms))
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    let mut slots: Vec<Option<Candidate>> = cands.drain(..).map(Some).collect();
    cands.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// Where a chat matches: its first [`MATCHES_PER_CHAT`] matches (the title first, then the
/// transcript's entries in order) and how many more; `None` when some term is nowhere in it
/// (or its transcript cannot be read).
pub fn verify(c: &Candidate, query: &Query) -> Option<(Vec<SearchMatch>, u32)> {
    let entries = transcripts::render(&c.path()).ok()?;
    verify_entries(&c.title, &entries, query)
}

/// [`verify`] on a title and rendered entries.
pub fn verify_entries(
    title: &str,
    entries: &[TranscriptEntry],
    query: &Query,
) -> Option<(Vec<SearchMatch>, u32)> {
    let mut seen = vec![false; query.terms.len()];
    let mut matches = Vec::new();
    let mut count = 0u32;
    let mut take = |field: SearchField, entry: Option<usize>, uuid: Option<&String>, text: &str| {
        let found = query.find(text);
        if found.is_empty() {
            return;
        }
        for f in &found {
            seen[f.term] = true;
        }
        count += 1;
        if matches.len() < MATCHES_PER_CHAT {
            let (snippet, highlights) = snippet(text, &found);
            matches.push(SearchMatch {
                field,
                entry: entry.and_then(|e| u32::try_from(e).ok()),
                uuid: uuid.cloned(),
                snippet,
                highlights,
            });
        }
    };
    take(SearchField::Title, None, None, title);
    for (i, e) in entries.iter().enumerate() {
        let Some((field, text)) = entry_text(e) else {
            continue;
        };
        let uuid = match e {
            TranscriptEntry::User { uuid, .. } | TranscriptEntry::Assistant { uuid, .. } => {
                uuid.as_ref()
            }
            _ => None,
        };
        take(field, Some(i), uuid, &text);
    }
    if !seen.iter().all(|&s| s) {
        return None;
    }
    let more = count.saturating_sub(u32::try_from(matches.len()).unwrap_or(0));
    Some((matches, more))
}

/// How a ranked verification went.
#[derive(Debug)]
pub struct Verified {
    pub hits: Vec<SearchHit>,
    pub total: u32,
    /// Candidates read, and not read (counted in `total` as matching).
    pub read: usize,
    pub unread: usize,
}

/// Reads the ranked candidates best first on `threads` threads (see the module's rules).
pub fn verify_ranked(cands: &[Candidate], query: &Query, limit: usize, threads: usize) -> Verified {
    let has_phrase = query.terms.iter().any(|t| t.tokens.len() > 1);
    let hits_known = AtomicBool::new(false);
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    /// A candidate read: where it matches, if it does.
    type Read = Option<(Vec<SearchMatch>, u32)>;
    struct Progress {
        /// Per candidate, once read.
        results: Vec<Option<Read>>,
        /// Candidates 0..prefix are all read; `prefix_hits` of them match.
        prefix: usize,
        prefix_hits: usize,
    }
    let progress = Mutex::new(Progress {
        results: vec![None; cands.len()],
        prefix: 0,
        prefix_hits: 0,
    });
    let work = || {
        loop {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(c) = cands.get(i) else {
                return;
            };
            // Counting: a chat the index says matches is counted without reading it.
            if c.sure && hits_known.load(Ordering::Relaxed) {
                continue;
            }
            let result = verify(c, query);
            let mut p = progress
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            p.results[i] = Some(result);
            while let Some(Some(r)) = p.results.get(p.prefix) {
                let hit = r.is_some();
                p.prefix += 1;
                p.prefix_hits += usize::from(hit);
            }
            let elapsed = started.elapsed();
            let known = p.prefix_hits >= limit;
            if known {
                hits_known.store(true, Ordering::Relaxed);
            }
            if (known && (!has_phrase || elapsed >= COUNT_BUDGET)) || elapsed >= HARD_BUDGET {
                stop.store(true, Ordering::Relaxed);
            }
        }
    };
    let threads = threads.clamp(1, cands.len().max(1));
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(work);
            }
        });
    }
    let p = progress
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut hits = Vec::new();
    let (mut confirmed, mut read) = (0usize, 0usize);
    for (c, r) in cands.iter().zip(p.results) {
        let Some(r) = r else { continue };
        read += 1;
        let Some((matches, more)) = r else { continue };
        confirmed += 1;
        if hits.len() < limit {
            hits.push(SearchHit {
                project_slug: c.project_slug.clone(),
                session_id: c.session_id.clone(),
                title: c.title.clone(),
                updated_at: c.updated_at.clone(),
                archived: c.archived,
                matches,
                more,
            });
        }
    }
    let unread = cands.len() - read;
    Verified {
        hits,
        total: u32::try_from(confirmed + unread).unwrap_or(u32::MAX),
        read,
        unread,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn cand(sid: &str, title_terms: usize, activity_ms: i64) -> Candidate {
        Candidate {
            session_id: sid.into(),
            project_slug: String::new(),
            title: sid.into(),
            updated_at: String::new(),
            activity_ms,
            archived: false,
            folder: Arc::from(Path::new("/nonexistent")),
            title_terms,
            sure: false,
        }
    }

    #[test]
    fn title_matches_first_then_the_most_recent() {
        let mut c = vec![
            cand("old", 0, 100),
            cand("new", 0, 900),
            cand("titled-old", 1, 50),
            cand("titled-both", 2, 10),
            cand("titled-new", 1, 500),
        ];
        rank(&mut c);
        let order: Vec<&str> = c.iter().map(|c| c.session_id.as_str()).collect();
        assert_eq!(
            order,
            ["titled-both", "titled-new", "titled-old", "new", "old"]
        );
    }

    fn user(text: &str) -> TranscriptEntry {
        TranscriptEntry::User {
            uuid: Some(format!("u-{text}")),
            timestamp: None,
            text: text.into(),
            attribution: None,
        }
    }

    #[test]
    fn matches_are_entries_in_order_with_the_title_first() {
        let entries = vec![
            user("the cookie"),
            TranscriptEntry::Thinking {
                text: "cookie refresh".into(),
            },
            TranscriptEntry::ToolUse {
                tool_use_id: "t".into(),
                name: "Bash".into(),
                input: serde_json::json!({"command": "grep -r refresh src"}),
            },
            TranscriptEntry::ToolResult {
                tool_use_id: "t".into(),
                output: "nothing".into(),
                is_error: false,
            },
            TranscriptEntry::Assistant {
                uuid: Some("a1".into()),
                timestamp: None,
                text: "Refreshing the cookie now".into(),
                model: None,
            },
        ];
        let q = Query::parse("cookie refr");
        let (m, more) = verify_entries("Cookie refresh race", &entries, &q).unwrap();
        let got: Vec<(SearchField, Option<u32>, Option<&str>)> = m
            .iter()
            .map(|m| (m.field, m.entry, m.uuid.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (SearchField::Title, None, None),
                (SearchField::User, Some(0), Some("u-the cookie")),
                (SearchField::ToolUse, Some(2), None),
                (SearchField::Assistant, Some(4), Some("a1")),
            ],
            "thinking is not searched; the entry is the rendering's index"
        );
        assert_eq!(more, 0);
        assert_eq!(m[2].snippet, "Bash grep -r refresh src");
        assert_eq!(m[3].highlights, [[0, 10], [15, 21]]);
        // Every term must be somewhere; a phrase must be in a row.
        assert!(verify_entries("x", &entries, &Query::parse("cookie missing")).is_none());
        assert!(verify_entries("x", &entries, &Query::parse(r#""cookie refresh""#)).is_none());
        // More than five matching places: five listed, the rest counted.
        let many: Vec<TranscriptEntry> = (0..8).map(|i| user(&format!("cookie {i}"))).collect();
        let (m, more) = verify_entries("t", &many, &Query::parse("cookie")).unwrap();
        assert_eq!((m.len(), more), (MATCHES_PER_CHAT, 3));
    }

    #[test]
    fn ranked_verification_keeps_rank_order_and_counts() {
        let dir = tempfile::tempdir().unwrap();
        let mut cands = Vec::new();
        for i in 0..40 {
            let p = dir.path().join(format!("{i:02}.jsonl"));
            let text = if i % 2 == 0 {
                "cookie refresh race"
            } else {
                "cookie race refresh"
            };
            std::fs::write(
                &p,
                format!("{{\"type\":\"user\",\"message\":{{\"content\":\"{text}\"}}}}\n"),
            )
            .unwrap();
            let mut c = cand(&format!("{i:02}"), 0, 1000 - i);
            c.folder = Arc::from(dir.path());
            cands.push(c);
        }
        rank(&mut cands);
        for threads in [1, 3] {
            let v = verify_ranked(&cands, &Query::parse(r#""refresh race""#), 5, threads);
            let ids: Vec<&str> = v.hits.iter().map(|h| h.session_id.as_str()).collect();
            assert_eq!(ids, ["00", "02", "04", "06", "08"]);
            assert_eq!(
                (v.total, v.unread),
                (20, 0),
                "a phrase reads every candidate"
            );
            let v = verify_ranked(&cands, &Query::parse("cookie"), 5, threads);
            assert_eq!(v.hits.len(), 5);
            assert_eq!(v.total, 40, "words: the unread candidates count");
            assert!(v.read >= 5, "{v:?}");
            // One reader stops at the fifth hit. With three, a reader descheduled on an early
            // candidate holds the known prefix back while the others read on, so under load
            // they may read every candidate: early stopping is only certain with one.
            if threads == 1 {
                assert!(v.read < 40, "{v:?}");
            }
        }
        // A chat whose transcript is gone is no hit.
        let mut gone = cands[..3].to_vec();
        gone[1].folder = Arc::from(dir.path().join("missing").as_path());
        let v = verify_ranked(&gone, &Query::parse("cookie"), 50, 2);
        assert_eq!((v.hits.len(), v.total), (2, 2));
    }
}
