//! Full-text search across every chat: a word index of the transcripts, kept current as they
//! grow.
//!
//! - [`tokens`]: what a word is (alphanumeric runs, lowercased), shared by everything below.
//! - [`reader`]: what of a transcript is searchable (the texts of the entries `chat:transcript`
//!   renders, plus custom titles) and reading it incrementally from a stored byte offset.
//! - [`index`]: the inverted index, token → chats, in a compact frozen segment ([`frozen`])
//!   plus a small live one merged into it now and then; dead chats are dropped at merges.
//!   [`builder`] makes a build's chats straight into frozen segments.
//! - [`updater`]: the one task that writes the index: the build at start (after the live chat
//!   index is ready, so it never delays the chat list), then the transcripts the live index
//!   reports as read, each read on from where the search index stopped.
//! - [`query`], [`verify`], [`snippet`]: a query's terms → candidate chats from the postings
//!   (an AND of each word's prefix range and each phrase's tokens, a phrase of common words
//!   by its adjacent pairs) → ranked (title matches, then recent activity) → their
//!   transcripts read, best first, to find the matches.
//! - [`measure`]: the index with a realistic vocabulary, for `cargo xtask bench`.
//!
//! The index is in memory only: it is rebuilt at every start (`cargo xtask bench` measures the
//! time and the memory at 10,000 chats), and searches answer meanwhile with what is indexed
//! so far and the build's progress.

mod builder;
mod foreground;
mod frozen;
mod index;
mod measure;
mod query;
mod reader;
mod snippet;
mod tokens;
mod updater;
mod verify;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Instant;

use paddock_proto::{ErrorBody, ErrorCode, SearchProgress, SearchRequest, SearchResults};
use tokio_util::sync::{CancellationToken, DropGuard};
use tokio_util::task::TaskTracker;

pub use foreground::Serving;
pub use measure::large_vocabulary;
pub use query::Query;

use crate::index::ChatIndex;
use index::Table;
use verify::{Candidate, rank, verify_ranked};

/// Chats per answer unless `limit` says otherwise, and the most it may say.
pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 500;
/// Searches reading transcripts at once; more wait their turn (each connection sends one
/// request at a time, so the waiters are bounded by the connections).
const CONCURRENT_SEARCHES: usize = 2;

/// The search index. Cheap to clone; its task stops when the last clone is dropped.
#[derive(Clone)]
pub struct SearchIndex {
    shared: Arc<Shared>,
    stop: CancellationToken,
    _guard: Arc<DropGuard>,
    /// Searches that want every transcript touched so far read first ([`SearchIndex::settle`]);
    /// bounded at [`SETTLE_QUEUE`]: when full, a search does not wait (those queued already
    /// wait for the same reading).
    settle: tokio::sync::mpsc::Sender<tokio::sync::oneshot::Sender<()>>,
    settle_rx: Arc<std::sync::Mutex<Option<updater::SettleRx>>>,
}

/// Searches waiting for the updater at once (see [`SearchIndex::settle`]).
const SETTLE_QUEUE: usize = 64;
/// The longest a search waits for the updater to read what was touched before it.
const SETTLE_BOUND: std::time::Duration = std::time::Duration::from_secs(2);

pub(crate) struct Shared {
    table: RwLock<Table>,
    /// The build has listed the chats (`total` is set) / has finished.
    started: AtomicBool,
    built: AtomicBool,
    /// Chats read by the build so far, of `total`.
    done: AtomicU32,
    total: AtomicU32,
    launched: AtomicBool,
    searches: tokio::sync::Semaphore,
    /// Requests at work, which the build steps aside for.
    foreground: Arc<foreground::Foreground>,
}

/// Sizes of the index, for logs and the bench.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Chats indexed (live documents).
    pub chats: usize,
    /// Document slots, dead ones included.
    pub docs: usize,
    /// Distinct tokens (frozen segment, plus the live one's, which may repeat them).
    pub tokens: usize,
    /// (token, chat) pairs.
    pub pairs: usize,
    /// Estimated heap bytes of the whole index.
    pub heap_bytes: usize,
}

impl Shared {
    fn read(&self) -> RwLockReadGuard<'_, Table> {
        self.table.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Table> {
        self.table.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn stats(&self) -> SearchStats {
        let t = self.read();
        let p = t.postings.stats();
        SearchStats {
            chats: t.by_sid.len(),
            docs: t.docs.len(),
            tokens: p.frozen_tokens + p.live_tokens,
            pairs: p.frozen_pairs + p.live_pairs,
            heap_bytes: t.heap_bytes(),
        }
    }

    /// Forgets the chats not in `known` (folder, session id): chats of folders no longer
    /// watched, and any whose removal was missed.
    fn forget_except(&self, known: &HashSet<(&Path, &str)>) {
        let mut t = self.write();
        let gone: Vec<Box<str>> = t
            .by_sid
            .iter()
            .filter(|&(sid, &d)| {
                let folder = t
                    .docs
                    .get(d as usize)
                    .and_then(|doc| t.folders.get(doc.folder as usize));
                folder.is_none_or(|f| !known.contains(&(&**f, &**sid)))
            })
            .map(|(sid, _)| sid.clone())
            .collect();
        for sid in gone {
            t.kill(&sid);
        }
    }
}

impl Default for SearchIndex {
    fn default() -> Self {
        Self::new()
    }
}

impl SearchIndex {
    /// An empty index; [`SearchIndex::start`] builds it and keeps it current.
    pub fn new() -> Self {
        let stop = CancellationToken::new();
        let (settle, settle_rx) = tokio::sync::mpsc::channel(SETTLE_QUEUE);
        SearchIndex {
            settle,
            settle_rx: Arc::new(std::sync::Mutex::new(Some(settle_rx))),
            shared: Arc::new(Shared {
                table: RwLock::new(Table::default()),
                started: AtomicBool::new(false),
                built: AtomicBool::new(false),
                done: AtomicU32::new(0),
                total: AtomicU32::new(0),
                launched: AtomicBool::new(false),
                searches: tokio::sync::Semaphore::new(CONCURRENT_SEARCHES),
                foreground: Arc::default(),
            }),
            _guard: Arc::new(stop.clone().drop_guard()),
            stop,
        }
    }

    /// Marks a request someone waits on (a chat list) at work until the guard is dropped:
    /// the build steps aside for it meanwhile (`foreground.rs`).
    pub fn serving(&self) -> Serving {
        self.shared.foreground.enter()
    }

    /// Builds the index from every chat `index` lists now, in the background, then follows
    /// it. Call it once the live index is ready (later calls do nothing); within a runtime.
    /// The updater runs on `tasks` and stops with the last clone.
    pub fn start(&self, index: &ChatIndex, tasks: &TaskTracker) {
        if self.shared.launched.swap(true, Ordering::AcqRel) {
            return;
        }
        // Subscribed before listing, so nothing written in between is missed.
        let touched = index.subscribe_touched();
        let settle = self
            .settle_rx
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        tasks.spawn(updater::run(
            self.shared.clone(),
            index.clone(),
            touched,
            settle,
            self.stop.clone(),
        ));
    }

    /// Waits (at most [`SETTLE_BOUND`]) until the updater has read every transcript the live
    /// index touched before now: a search after a turn's `chat:complete` finds its text. Does
    /// not wait while the index is being built (a search then covers what is indexed).
    pub async fn settle(&self) {
        if !self.is_built() {
            return;
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.settle.try_send(tx).is_err() {
            return;
        }
        let _ = tokio::time::timeout(SETTLE_BOUND, rx).await;
    }

    /// Whether the build has finished.
    pub fn is_built(&self) -> bool {
        self.shared.built.load(Ordering::Acquire)
    }

    /// How far the build has come; `None` once it is done. Before it starts (the live index
    /// is still being built), `total` is `chats_now`.
    pub fn progress(&self, chats_now: usize) -> Option<SearchProgress> {
        if self.is_built() {
            return None;
        }
        if !self.shared.started.load(Ordering::Acquire) {
            return Some(SearchProgress {
                done: 0,
                total: u32::try_from(chats_now).unwrap_or(u32::MAX),
            });
        }
        Some(SearchProgress {
            done: self.shared.done.load(Ordering::Relaxed),
            total: self.shared.total.load(Ordering::Relaxed),
        })
    }

    pub fn stats(&self) -> SearchStats {
        self.shared.stats()
    }

    /// The chats (folder, session id) that have every term of `query` by the index, each
    /// with whether it surely matches ([`Table::candidates`]).
    fn candidates(&self, query: &Query) -> Vec<(Arc<Path>, String, bool)> {
        let t = self.shared.read();
        let (found, sure) = t.candidates(query);
        found
            .iter()
            .filter_map(|d| {
                let doc = t.docs.get(d as usize)?;
                let folder = t.folders.get(doc.folder as usize)?;
                Some((folder.clone(), doc.session_id.to_string(), sure.contains(d)))
            })
            .collect()
    }
}

/// The chats that match `query` by the index, as the chat list knows them (a chat it no
/// longer lists is left out: deleted chats are gone at once), in the folders of `slug_of`,
/// archived ones only with `include_archived`; best first.
fn ranked(
    search: &SearchIndex,
    index: &ChatIndex,
    slug_of: &HashMap<PathBuf, String>,
    archived: &BTreeSet<String>,
    include_archived: bool,
    query: &Query,
) -> Vec<Candidate> {
    let found = search.candidates(query);
    let kept: Vec<&(Arc<Path>, String, bool)> = found
        .iter()
        .filter(|(folder, _, _)| slug_of.contains_key(&**folder))
        .collect();
    let wanted: Vec<(&Path, &str)> = kept
        .iter()
        .map(|(folder, sid, _)| (&**folder, sid.as_str()))
        .collect();
    // Each candidate's title as the chat list shows it (cut), and how many of the query's
    // terms its whole title has; nothing else of the chat is copied.
    let glances = index.glance_in(&wanted, |g| {
        // Borrowed, not copied whole: 10,000 first prompts copied here left the heap 4 MB
        // larger after a search of a word every chat has.
        let fallback;
        let title = match g.title.trim() {
            "" => {
                fallback = crate::index::display_title(g.title, g.session_id);
                fallback.as_str()
            }
            trimmed => trimmed,
        };
        let title_terms = query
            .find(title)
            .iter()
            .map(|f| f.term)
            .collect::<HashSet<_>>()
            .len();
        let cut = crate::text::cut(title, paddock_proto::TITLE_CHARS);
        (cut, title_terms, g.updated_at, g.last_activity_ms)
    });
    let mut cands: Vec<Candidate> = Vec::with_capacity(wanted.len());
    for ((&(folder, sid), glance), (shared_folder, _, sure)) in wanted.iter().zip(glances).zip(kept)
    {
        let Some((title, title_terms, updated_at, activity_ms)) = glance else {
            continue;
        };
        let is_archived = archived.contains(sid);
        if is_archived && !include_archived {
            continue;
        }
        cands.push(Candidate {
            session_id: sid.to_owned(),
            project_slug: slug_of.get(folder).cloned().unwrap_or_default(),
            title,
            updated_at: updated_at.unwrap_or_default(),
            activity_ms,
            archived: is_archived,
            folder: shared_folder.clone(),
            title_terms,
            sure: *sure,
        });
    }
    rank(&mut cands);
    cands
}

fn invalid(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorCode::InvalidArgument, message)
}

/// A search request, checked: how many hits at most, and the words.
pub struct Asked {
    limit: usize,
    query: Query,
}

/// Where a search looks: the transcript folders of the projects asked about (folder → the
/// project's slug), and which chats are archived (searched only with `include_archived`).
pub struct Scope {
    pub folders: HashMap<PathBuf, String>,
    pub archived: Arc<BTreeSet<String>>,
    pub include_archived: bool,
}

/// Checks a `search` request (its limit, its words), once the index has read what was
/// touched before it (read your writes).
pub async fn ask(search: &SearchIndex, r: &SearchRequest) -> Result<Asked, ErrorBody> {
    let limit = match r.limit {
        None => DEFAULT_LIMIT,
        Some(n) if (1..=MAX_LIMIT).contains(&n) => n,
        Some(n) => {
            return Err(invalid(format!(
                "limit {n} is out of range: give 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})"
            )));
        }
    };
    if r.query.trim().is_empty() {
        return Err(invalid("the query is empty: give words to search for"));
    }
    search.settle().await;
    let query = Query::parse(&r.query);
    if query.terms.is_empty() {
        return Err(invalid(format!(
            "nothing to search for in {:?}: words need at least two letters or digits",
            r.query
        )));
    }
    Ok(Asked {
        limit: limit as usize,
        query,
    })
}

/// Runs a checked search over `scope`: candidates from the word index, ranked, then read to
/// verify and to cut snippets.
pub async fn run(
    search: &SearchIndex,
    index: &ChatIndex,
    asked: Asked,
    scope: &Scope,
    text: String,
) -> Result<SearchResults, ErrorBody> {
    let started = Instant::now();
    let Asked { limit, query } = asked;
    let cands = ranked(
        search,
        index,
        &scope.folders,
        &scope.archived,
        scope.include_archived,
        &query,
    );
    let candidates = cands.len();
    let _permit = search.shared.searches.acquire().await.ok();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let verified =
        tokio::task::spawn_blocking(move || verify_ranked(&cands, &query, limit, threads))
            .await
            .map_err(|e| ErrorBody::new(ErrorCode::Internal, format!("the search failed: {e}")))?;
    tracing::debug!(
        query = %text,
        candidates,
        read = verified.read,
        unread = verified.unread,
        hits = verified.hits.len(),
        elapsed_ms = started.elapsed().as_millis(),
        "search"
    );
    Ok(SearchResults {
        query: text,
        hits: verified.hits,
        total: verified.total,
        indexing: search.progress(index.len()),
    })
}

#[cfg(test)]
mod tests;
