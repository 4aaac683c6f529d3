//! Full-text search across every chat: a tantivy index of the transcripts in the data folder,
//! kept current as they grow.
//!
//! - [`tokens`]: what a word is (alphanumeric runs, lowercased), shared by the index, the query
//!   parser and the matcher.
//! - [`reader`]: what of a transcript is searchable (the texts of the entries `chat:transcript`
//!   renders, plus custom titles) and reading it incrementally from a stored byte offset.
//! - [`engine`]: the tantivy index: its schema and tokenizer, documents of a chat's texts,
//!   commits that carry how far each chat was read, opening it (or moving an unusable one
//!   aside).
//! - [`updater`]: the one task that writes the index: it opens it at start (complete at once)
//!   or builds it in the background, then reads the transcripts the live index reports as
//!   touched, each from where the index stopped, and commits.
//! - [`query`], [`lookup`], [`verify`], [`snippet`]: a query's terms → the chats that have every
//!   one, from the index (positions for phrases) → ranked (title matches, then recent
//!   activity) → the best ones' transcripts read for their matches and snippets.

mod engine;
mod foreground;
mod lookup;
mod query;
mod reader;
mod snippet;
mod tokens;
mod updater;
mod verify;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Instant;

use paddock_proto::{ErrorBody, ErrorCode, SearchProgress, SearchRequest, SearchResults};
use tokio_util::sync::{CancellationToken, DropGuard};
use tokio_util::task::TaskTracker;

pub use engine::WRITER_BUDGET_BYTES;
pub use foreground::Serving;
pub use query::Query;

use crate::index::ChatIndex;
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
/// How long a search waits for the index to be opened at start (it takes milliseconds; the
/// bound is for a disk that hangs).
const OPEN_BOUND: std::time::Duration = std::time::Duration::from_secs(5);

/// A chat the index has, as a search names it.
struct Known {
    folder: Arc<Path>,
    session_id: Box<str>,
}

pub(crate) struct Shared {
    /// Where the index lives.
    dir: PathBuf,
    /// The index as of its last commit, once it is open.
    searchable: RwLock<Option<engine::Searchable>>,
    /// Chat key → the chat, for every chat the index has (set by the updater as it reads).
    known: RwLock<engine::KeyMap<Known>>,
    /// The index is open / has every chat (opened as committed, or built).
    started: AtomicBool,
    built: AtomicBool,
    /// The updater follows the live index (after it brought the index up to date at start).
    following: AtomicBool,
    /// The index was opened: searches cover what it committed (every chat when it was
    /// opened as committed), or it is being built. Searches wait for it (`SearchIndex::opened`).
    opened: tokio::sync::watch::Sender<bool>,
    /// The index being opened since the daemon started (`SearchIndex::open_early`), for the
    /// updater to take.
    early: std::sync::Mutex<Option<updater::Early>>,
    /// Chats read by a build so far, of `total`.
    done: AtomicU32,
    total: AtomicU32,
    launched: AtomicBool,
    searches: tokio::sync::Semaphore,
    /// Requests at work, which the build steps aside for.
    foreground: Arc<foreground::Foreground>,
}

/// Sizes of the index, for logs and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Chats indexed.
    pub chats: usize,
    /// Documents searches see (live ones, as of the last commit).
    pub docs: u64,
    /// Segments searches see.
    pub segments: usize,
}

impl Shared {
    /// The index being opened early, if it was.
    fn take_early(&self) -> Option<updater::Early> {
        self.early
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    fn stats(&self) -> SearchStats {
        let chats = self
            .known
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        let searcher = self.searcher();
        SearchStats {
            chats,
            docs: searcher.as_ref().map_or(0, |(s, _)| s.num_docs()),
            segments: searcher
                .as_ref()
                .map_or(0, |(s, _)| s.segment_readers().len()),
        }
    }

    fn set_searcher(&self, s: engine::Searchable) {
        *self
            .searchable
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(s);
    }

    fn searcher(&self) -> Option<(tantivy::Searcher, engine::Fields)> {
        let s = self
            .searchable
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        s.as_ref().map(|s| (s.searcher(), s.fields))
    }

    fn known(&self) -> std::sync::RwLockWriteGuard<'_, engine::KeyMap<Known>> {
        self.known.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// The index has `sid`, in `folder`.
    fn publish(&self, sid: &str, folder: &Path) {
        let key = engine::chat_key(sid);
        let mut known = self.known();
        if known.get(&key).is_some_and(|k| &*k.folder == folder) {
            return;
        }
        known.insert(
            key,
            Known {
                folder: folder.into(),
                session_id: sid.into(),
            },
        );
    }

    /// The index has every chat of `chats` (at start).
    fn publish_all(&self, chats: &HashMap<String, engine::ReadChat>) {
        let mut folders: HashMap<&Path, Arc<Path>> = HashMap::new();
        let mut known = self.known();
        for (sid, c) in chats {
            let folder = folders
                .entry(&c.folder)
                .or_insert_with(|| c.folder.as_path().into())
                .clone();
            known.insert(
                engine::chat_key(sid),
                Known {
                    folder,
                    session_id: sid.as_str().into(),
                },
            );
        }
    }

    fn unpublish(&self, sid: &str) {
        self.known().remove(&engine::chat_key(sid));
    }
}

impl SearchIndex {
    /// An index in `dir` (made there if there is none); [`SearchIndex::start`] opens it and
    /// keeps it current.
    pub fn new(dir: PathBuf) -> Self {
        let stop = CancellationToken::new();
        let (settle, settle_rx) = tokio::sync::mpsc::channel(SETTLE_QUEUE);
        SearchIndex {
            settle,
            settle_rx: Arc::new(std::sync::Mutex::new(Some(settle_rx))),
            shared: Arc::new(Shared {
                dir,
                searchable: RwLock::new(None),
                known: RwLock::new(engine::KeyMap::default()),
                started: AtomicBool::new(false),
                built: AtomicBool::new(false),
                following: AtomicBool::new(false),
                opened: tokio::sync::watch::channel(false).0,
                early: std::sync::Mutex::new(None),
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

    /// Starts opening the index now, while the live index loads: the updater
    /// ([`SearchIndex::start`]) goes on from it, and a search after a restart is complete as
    /// soon as chats can be listed. Later calls do nothing.
    pub fn open_early(&self) {
        let mut early = self
            .shared
            .early
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if early.is_none() && !self.shared.launched.load(Ordering::Acquire) {
            *early = updater::open_early(self.shared.clone());
        }
    }

    /// Opens the index (or builds it from every chat `index` lists now) in the background,
    /// then follows `index`. Call it once the live index is ready (later calls do nothing);
    /// within a runtime. The updater runs on `tasks` and stops with the last clone.
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

    /// Waits (at most [`SETTLE_BOUND`]) until the updater has read and committed every
    /// transcript the live index touched before now: a search after a turn's `chat:complete`
    /// finds its text. Does not wait while the index is opened or built (a search then covers
    /// what is committed).
    pub async fn settle(&self) {
        if !self.shared.following.load(Ordering::Acquire) {
            return;
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.settle.try_send(tx).is_err() {
            return;
        }
        let _ = tokio::time::timeout(SETTLE_BOUND, rx).await;
    }

    /// Waits (at most [`OPEN_BOUND`]) until the updater has opened the index, once it was
    /// started: the first search after a restart answers from the index committed, complete,
    /// rather than racing its opening.
    pub async fn opened(&self) {
        if !self.shared.launched.load(Ordering::Acquire) {
            return;
        }
        let mut rx = self.shared.opened.subscribe();
        let _ = tokio::time::timeout(OPEN_BOUND, rx.wait_for(|opened| *opened)).await;
    }

    /// Whether searches cover every chat: the index was opened as committed, or built.
    pub fn is_built(&self) -> bool {
        self.shared.built.load(Ordering::Acquire)
    }

    /// How far the build has come; `None` once searches cover every chat. Before it starts,
    /// `total` is `chats_now`.
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
    /// with whether it surely matches ([`lookup::Matching::sure`]).
    fn candidates(&self, query: &Query) -> Vec<Found> {
        let Some((searcher, fields)) = self.shared.searcher() else {
            return Vec::new();
        };
        let found = match lookup::matching(&searcher, fields, query) {
            Ok(found) => found,
            Err(e) => {
                tracing::warn!(error = %e, "search index: a lookup failed");
                return Vec::new();
            }
        };
        let known = self
            .shared
            .known
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        found
            .chats
            .iter()
            .filter_map(|key| known.get(key))
            .map(|k| (k.folder.clone(), k.session_id.to_string(), found.sure))
            .collect()
    }
}

/// A chat the index says matches: its folder, its session id, and whether that is sure.
type Found = (Arc<Path>, String, bool);

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
    // The folders in scope, each looked up once (a search has a few; hashing a path per
    // chat cost milliseconds over 10,000 chats).
    let mut scope: Vec<(Arc<Path>, Option<&String>)> = Vec::new();
    // Each chat kept: (its folder, id, sure), its project's slug, archived.
    let mut kept: Vec<(Found, &String, bool)> = Vec::new();
    for chat in found {
        let (folder, sid, _) = &chat;
        let same = |f: &Arc<Path>| Arc::ptr_eq(f, folder) || f.as_os_str() == folder.as_os_str();
        let slug = match scope.iter().find(|(f, _)| same(f)) {
            Some((_, slug)) => *slug,
            None => {
                let slug = slug_of.get(&**folder);
                scope.push((folder.clone(), slug));
                slug
            }
        };
        let Some(slug) = slug else { continue };
        let is_archived = archived.contains(sid.as_str());
        if is_archived && !include_archived {
            continue;
        }
        kept.push((chat, slug, is_archived));
    }
    let wanted: Vec<(&Path, &str)> = kept
        .iter()
        .map(|((folder, sid, _), _, _)| (&**folder, sid.as_str()))
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
        let title_terms = query.terms_in(title);
        let cut = crate::text::cut(title, paddock_proto::TITLE_CHARS);
        (cut, title_terms, g.updated_at, g.last_activity_ms)
    });
    let mut cands: Vec<Candidate> = Vec::with_capacity(wanted.len());
    for (((folder, sid, sure), slug, is_archived), glance) in kept.into_iter().zip(glances) {
        let Some((title, title_terms, updated_at, activity_ms)) = glance else {
            continue;
        };
        cands.push(Candidate {
            session_id: sid,
            project_slug: slug.clone(),
            title,
            updated_at: updated_at.unwrap_or_default(),
            activity_ms,
            archived: is_archived,
            folder,
            title_terms,
            sure,
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
    search.opened().await;
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
    let ranked_ms = started.elapsed().as_millis();
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
        ranked_ms,
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
