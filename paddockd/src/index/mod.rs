//! The live chat index: what the chat list shows of every transcript, kept in memory, persisted,
//! and updated incrementally, so listing 10,000 chats reads no transcript.
//!
//! - [`digest`] parses a transcript incrementally (complete lines only) into the derived fields.
//! - [`scan`] decides whether a file changed (size, mtime, inode) and reads only what was
//!   appended since the stored offset.
//! - [`watch`] resolves watched folders (symlinks, folders that do not exist yet) and runs the
//!   `notify` watcher.
//! - [`indexer`] is the one task that owns every change to the index: it reconciles folders,
//!   coalesces file events, reconciles everything every minute in case events were lost, and
//!   persists (debounced).
//! - [`persist`] is the file format (versioned; a missing, corrupt or other-version file means a
//!   rebuild, logged with progress).
//! - [`pricing`] estimates the cost.
//!
//! Readers ([`ChatIndex::chats_in`], [`ChatIndex::get`]) take a read lock and never do IO.

mod codec;
mod digest;
mod indexer;
mod persist;
pub mod pricing;
mod scan;
mod watch;
pub use watch::changes_nothing;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::task::TaskTracker;

pub use digest::{Digest, context_limit};
pub use persist::INDEX_VERSION;
use scan::{Chats, Entry};

/// One chat as the chat list shows it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct IndexedChat {
    pub session_id: String,
    /// The transcript, under the watched folder as it was given (not symlink-resolved).
    pub path: PathBuf,
    /// The watched folder it belongs to.
    pub folder: PathBuf,
    /// The custom title if one was set, else the untruncated first prompt, else "".
    pub title: String,
    pub custom_title: Option<String>,
    pub first_prompt: Option<String>,
    /// The one-line status: the first line of the newest assistant text.
    pub last_reply: Option<String>,
    /// The first record's timestamp.
    pub created_at: Option<String>,
    /// The latest `user`/`assistant` record's timestamp, else the file's mtime.
    pub updated_at: Option<String>,
    /// `updated_at` in epoch milliseconds.
    pub last_activity_ms: i64,
    /// The latest real (not `<synthetic>`) assistant model.
    pub model: Option<String>,
    /// The first real assistant model.
    pub first_model: Option<String>,
    /// User prompts plus assistant messages (not records: one message spans several).
    pub message_count: u64,
    pub usage: ChatUsage,
}

/// Tokens and cost of one chat.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ChatUsage {
    /// The latest real assistant record's input + cache read + cache creation tokens.
    pub context_tokens: u64,
    /// 200k, or 1M for `[1m]` models.
    pub context_limit: u64,
    /// Totals, each message counted once with its final usage.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_creation_tokens: u64,
    /// An estimate from [`pricing`]'s table, not a bill.
    pub cost_usd: f64,
}

/// What changed in the index. The initial reconcile of [`ChatIndex::watch_folder`] sends none
/// (its result is there when the call returns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexEvent {
    /// A chat appeared, or what the list shows of it changed.
    Changed {
        folder: PathBuf,
        session_id: String,
    },
    Removed {
        folder: PathBuf,
        session_id: String,
    },
}

/// A transcript the index read (new or grown, replaced...) or dropped, whether or not what the
/// list shows of it changed: for readers of the transcripts' text (the search index), which
/// follow the files without watching them again. Sent for every folder reconcile too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    pub folder: PathBuf,
    pub session_id: String,
    /// The transcript is gone (deleted, or no longer a chat).
    pub gone: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("cannot read the transcripts folder {}: {source}", path.display())]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the chat index {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the chat indexer has stopped")]
    Stopped,
    #[error("a chat index task failed: {0}")]
    Task(String),
}

/// Tuning; the defaults suit the daemon.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// How long file events are gathered before the files they name are read.
    pub coalesce: Duration,
    /// Changes are persisted at most this long after they happen.
    pub persist_debounce: Duration,
    /// Every folder is reconciled this often, in case file events were lost.
    pub safety_interval: Duration,
    /// Capacity of the queue from the notify thread to the indexer.
    pub fs_queue: usize,
    /// Threads reading transcripts in a reconcile; 0 means the CPUs, at most 8.
    pub parse_threads: usize,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            coalesce: Duration::from_millis(100),
            persist_debounce: Duration::from_secs(2),
            safety_interval: Duration::from_secs(60),
            fs_queue: 4096,
            parse_threads: 0,
        }
    }
}

/// Counters, for logs and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Transcripts read from the start.
    pub full_parses: u64,
    /// Transcripts read from their stored offset.
    pub continued_parses: u64,
    pub bytes_read: u64,
    /// Folder reconciles (a stat of every transcript).
    pub reconciles: u64,
    /// Index files written.
    pub persists: u64,
}

/// The live chat index. Cheap to clone; the indexer task stops when the last clone is dropped.
#[derive(Clone)]
pub struct ChatIndex {
    inner: Arc<Handle>,
}

struct Handle {
    shared: Arc<Shared>,
    commands: mpsc::Sender<indexer::Command>,
    /// The daemon's tracked tasks: the indexer runs there, and a command that cannot wait.
    tasks: TaskTracker,
}

/// State shared by the handles and the indexer task. Only the indexer changes `tables`
/// (besides [`ChatIndex::unwatch_folder`], which only removes a folder).
struct Shared {
    tables: RwLock<Tables>,
    events: broadcast::Sender<IndexEvent>,
    touched: broadcast::Sender<Touched>,
    state_file: PathBuf,
    /// Bumped on every change to what the index lists (`tables.live`).
    generation: AtomicU64,
    /// Bumped on every change to what the index file holds: all of `generation`'s but a
    /// folder's chats moving from cold to live as it is watched (the file holds both).
    content: AtomicU64,
    /// The last [`Entry::version`] given.
    versions: AtomicU64,
    /// Serialises writes of the index file; holds the `content` last written (or loaded).
    persisted: tokio::sync::Mutex<Option<u64>>,
    full_parses: AtomicU64,
    continued_parses: AtomicU64,
    bytes_read: AtomicU64,
    reconciles: AtomicU64,
    persists: AtomicU64,
}

#[derive(Default)]
struct Tables {
    /// Watched folders (keyed as the caller gave them) → session id → entry.
    live: HashMap<PathBuf, Chats>,
    /// Loaded from the index file, for folders not watched (yet) in this run: the starting
    /// point of their first reconcile, and persisted again as they are.
    cold: HashMap<PathBuf, Chats>,
}

/// Capacity of the change-event broadcast. A receiver that lags gets `Lagged` and should
/// treat it as "everything changed".
const EVENT_CAPACITY: usize = 1024;
/// Capacity of the [`Touched`] broadcast; a receiver that lags gets `Lagged` and should check
/// every transcript (a stat each).
const TOUCHED_CAPACITY: usize = 4096;
/// Capacity of the command queue to the indexer: callers of the async methods wait.
const COMMAND_CAPACITY: usize = 256;

impl ChatIndex {
    /// Opens the index persisted at `state_file` (e.g. `<data>/state/chat-index.json`) and
    /// starts the indexer task; must be called within a tokio runtime. A missing, corrupt or
    /// other-version file is logged and means every watched folder is parsed again, with
    /// progress in the log.
    /// The index persisted at `state_file`; its indexer runs on `tasks`.
    pub fn open(state_file: PathBuf, tasks: &TaskTracker) -> Self {
        Self::open_with(state_file, IndexOptions::default(), tasks)
    }

    pub fn open_with(state_file: PathBuf, options: IndexOptions, tasks: &TaskTracker) -> Self {
        let (events, _) = broadcast::channel(EVENT_CAPACITY);
        let (touched, _) = broadcast::channel(TOUCHED_CAPACITY);
        let shared = Arc::new(Shared {
            tables: RwLock::new(Tables::default()),
            events,
            touched,
            state_file,
            generation: AtomicU64::new(0),
            content: AtomicU64::new(0),
            versions: AtomicU64::new(0),
            persisted: tokio::sync::Mutex::new(None),
            full_parses: AtomicU64::new(0),
            continued_parses: AtomicU64::new(0),
            bytes_read: AtomicU64::new(0),
            reconciles: AtomicU64::new(0),
            persists: AtomicU64::new(0),
        });
        let (commands, rx) = mpsc::channel(COMMAND_CAPACITY);
        indexer::spawn(shared.clone(), options, rx, tasks);
        ChatIndex {
            inner: Arc::new(Handle {
                shared,
                commands,
                tasks: tasks.clone(),
            }),
        }
    }

    /// Adds a transcripts folder and reconciles it now: unchanged files (same size, mtime,
    /// inode) keep their entries, grown ones are read from their stored offset, replaced or
    /// shrunk ones are read again, vanished ones removed. Then watches it (non-recursively:
    /// `<sid>/subagents/` are not chats). The folder may be a symlink (its target is watched,
    /// and the link itself, to follow a repointing) or may not exist yet (it is watched for).
    /// Idempotent: calling it again reconciles again.
    pub async fn watch_folder(&self, folder: &Path) -> Result<(), IndexError> {
        let (reply, done) = oneshot::channel();
        self.command(indexer::Command::Watch {
            folder: folder.to_path_buf(),
            reply,
        })
        .await?;
        done.await.map_err(|_| IndexError::Stopped)?
    }

    /// Stops watching a folder and forgets its chats (they are no longer persisted either).
    pub fn unwatch_folder(&self, folder: &Path) {
        let removed = self
            .inner
            .shared
            .write_tables()
            .live
            .remove(folder)
            .is_some();
        if removed {
            self.inner.shared.changed();
        }
        let cmd = indexer::Command::Unwatch {
            folder: folder.to_path_buf(),
        };
        // Overflow policy: this cannot wait, so a full queue's send is handed to a task.
        if let Err(mpsc::error::TrySendError::Full(cmd)) = self.inner.commands.try_send(cmd) {
            let tx = self.inner.commands.clone();
            self.inner.tasks.spawn(async move { tx.send(cmd).await });
        }
    }

    /// Forgets the persisted entries of every folder not watched in this run (folders of
    /// projects removed while the daemon was down), so they are no longer persisted. Call it
    /// once every folder that should be watched is.
    pub fn forget_unwatched(&self) {
        let mut tables = self.inner.shared.write_tables();
        if !tables.cold.is_empty() {
            tables.cold.clear();
            drop(tables);
            self.inner.shared.changed();
        }
    }

    /// A counter of the changes to the watched folders' chats, raised after each change is
    /// in place: what was read after taking it is at least as new as it.
    pub fn generation(&self) -> u64 {
        self.inner.shared.generation.load(Ordering::SeqCst)
    }

    /// The chats of one watched folder, newest first. From memory: no IO.
    pub fn chats_in(&self, folder: &Path) -> Vec<IndexedChat> {
        let tables = self.inner.shared.read_tables();
        let Some(chats) = tables.live.get(folder) else {
            return Vec::new();
        };
        let mut out: Vec<IndexedChat> = chats.iter().map(|(sid, e)| view(folder, sid, e)).collect();
        drop(tables);
        out.sort_by(|a, b| {
            b.last_activity_ms
                .cmp(&a.last_activity_ms)
                .then_with(|| a.session_id.cmp(&b.session_id))
        });
        out
    }

    /// One chat, from whichever watched folder has it. From memory: no IO.
    pub fn get(&self, session_id: &str) -> Option<IndexedChat> {
        let tables = self.inner.shared.read_tables();
        tables
            .live
            .iter()
            .find_map(|(folder, chats)| chats.get(session_id).map(|e| view(folder, session_id, e)))
    }

    /// The chats whose session ids start with `prefix` (without case), by id, at most `limit`,
    /// and how many start with it in all. From memory: no IO.
    pub fn starting_with(&self, prefix: &str, limit: usize) -> (Vec<IndexedChat>, usize) {
        let prefix = prefix.to_ascii_lowercase();
        let tables = self.inner.shared.read_tables();
        let mut found: Vec<(&PathBuf, &String, &Entry)> = tables
            .live
            .iter()
            .flat_map(|(folder, chats)| chats.iter().map(move |(sid, e)| (folder, sid, e)))
            .filter(|(_, sid, _)| {
                sid.get(..prefix.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(&prefix))
            })
            .collect();
        found.sort_by(|a, b| a.1.cmp(b.1));
        found.dedup_by(|a, b| a.1 == b.1);
        let total = found.len();
        let chats = found
            .into_iter()
            .take(limit)
            .map(|(folder, sid, e)| view(folder, sid, e))
            .collect();
        (chats, total)
    }

    /// The chats of one watched folder, newest first as [`ChatIndex::chats_in`], each with its
    /// [`Entry::version`]: a chat whose version did not change shows the same. No IO, and no
    /// chat is copied.
    pub fn versions_in(&self, folder: &Path) -> Vec<(String, u64)> {
        let tables = self.inner.shared.read_tables();
        let Some(chats) = tables.live.get(folder) else {
            return Vec::new();
        };
        let mut out: Vec<(i64, &String, u64)> = chats
            .iter()
            .map(|(sid, e)| (activity_ms(e), sid, e.version))
            .collect();
        out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        out.into_iter()
            .map(|(_, sid, version)| (sid.clone(), version))
            .collect()
    }

    /// Chats by (watched folder, session id), each `None` when that folder does not have it.
    /// One lock for all of them; no IO.
    pub fn get_in(&self, wanted: &[(&Path, &str)]) -> Vec<Option<IndexedChat>> {
        self.each_in(wanted, view)
    }

    /// What `f` makes of each chat asked for, from a [`Glance`] at it (its title borrowed,
    /// nothing else copied): for a search, which ranks every candidate and needs only this of
    /// each. [`ChatIndex::get_in`] copies the whole chat (its first prompt twice), which for
    /// 10,000 candidates made some 20 MB the daemon then kept.
    pub fn glance_in<T>(
        &self,
        wanted: &[(&Path, &str)],
        mut f: impl FnMut(Glance<'_>) -> T,
    ) -> Vec<Option<T>> {
        self.each_in(wanted, |_, sid, entry| f(glance(sid, entry)))
    }

    /// What `f` makes of each chat asked for, from [`Facts`] about it (borrowed, nothing
    /// copied) and its entry's version: a listing's rows are made of these.
    pub fn facts_in<T>(
        &self,
        wanted: &[(&Path, &str)],
        mut f: impl FnMut(Facts<'_>, u64) -> T,
    ) -> Vec<Option<T>> {
        self.each_in(wanted, |_, sid, entry| {
            let d = &entry.digest;
            let facts = Facts {
                glance: glance(sid, entry),
                created_at: d.created_at.as_deref(),
                model: d.last_model.as_deref(),
                message_count: d.message_count(),
                usage: usage(d),
                last_reply: d.last_reply.as_deref(),
            };
            f(facts, entry.version)
        })
    }

    /// What `f` makes of each chat asked for (by watched folder and session id), `None` where
    /// that folder does not have it. One lock for all of them; no IO.
    fn each_in<T>(
        &self,
        wanted: &[(&Path, &str)],
        mut f: impl FnMut(&Path, &str, &Entry) -> T,
    ) -> Vec<Option<T>> {
        let tables = self.inner.shared.read_tables();
        // Chats asked for come folder by folder: the folder's table is looked up again only
        // when the folder changes (hashing a path is dear next to the rest).
        let mut last = None;
        wanted
            .iter()
            .map(|&(folder, sid)| {
                let table = match last {
                    Some((f, table)) if f == folder.as_os_str() => table,
                    _ => {
                        let table = tables.live.get(folder);
                        last = Some((folder.as_os_str(), table));
                        table
                    }
                };
                Some(f(folder, sid, table?.get(sid)?))
            })
            .collect()
    }

    /// How many chats the watched folders have.
    pub fn len(&self) -> usize {
        self.inner
            .shared
            .read_tables()
            .live
            .values()
            .map(HashMap::len)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The watched folders.
    pub fn folders(&self) -> Vec<PathBuf> {
        self.inner
            .shared
            .read_tables()
            .live
            .keys()
            .cloned()
            .collect()
    }

    /// Reads one transcript now (e.g. right after a turn ends), sending a change event if what
    /// the list shows changed. A path outside every watched folder is ignored.
    pub async fn refresh(&self, path: &Path) {
        let (reply, done) = oneshot::channel();
        let cmd = indexer::Command::Refresh {
            path: path.to_path_buf(),
            reply,
        };
        if self.command(cmd).await.is_ok() {
            let _ = done.await;
        }
    }

    /// Change events. Bounded: a receiver that lags gets `Lagged` and should treat it as
    /// "everything changed".
    pub fn subscribe(&self) -> broadcast::Receiver<IndexEvent> {
        self.inner.shared.events.subscribe()
    }

    /// Every transcript read or dropped from now on ([`Touched`]). Bounded
    /// (`TOUCHED_CAPACITY`): a receiver that lags gets `Lagged` and should check every chat.
    pub fn subscribe_touched(&self) -> broadcast::Receiver<Touched> {
        self.inner.shared.touched.subscribe()
    }

    /// Persists now, atomically, if anything changed since the last write. The indexer also
    /// persists by itself at most `persist_debounce` after a change; call this at shutdown.
    pub async fn flush(&self) -> Result<(), IndexError> {
        self.inner.shared.persist().await
    }

    pub fn stats(&self) -> IndexStats {
        let s = &self.inner.shared;
        IndexStats {
            full_parses: s.full_parses.load(Ordering::Relaxed),
            continued_parses: s.continued_parses.load(Ordering::Relaxed),
            bytes_read: s.bytes_read.load(Ordering::Relaxed),
            reconciles: s.reconciles.load(Ordering::Relaxed),
            persists: s.persists.load(Ordering::Relaxed),
        }
    }

    async fn command(&self, cmd: indexer::Command) -> Result<(), IndexError> {
        self.inner
            .commands
            .send(cmd)
            .await
            .map_err(|_| IndexError::Stopped)
    }
}

impl Shared {
    fn read_tables(&self) -> std::sync::RwLockReadGuard<'_, Tables> {
        self.tables.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_tables(&self) -> std::sync::RwLockWriteGuard<'_, Tables> {
        self.tables.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn changed(&self) {
        self.content.fetch_add(1, Ordering::SeqCst);
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// A change to what the index lists that the file already holds (a folder watched again,
    /// its chats as loaded).
    fn listed_again(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// The index file holds the index as it is now (it was just loaded from it).
    async fn loaded(&self) {
        *self.persisted.lock().await = Some(self.content.load(Ordering::SeqCst));
    }

    /// Writes the index file if it is behind.
    async fn persist(self: &Arc<Self>) -> Result<(), IndexError> {
        let mut persisted = self.persisted.lock().await;
        let generation = self.content.load(Ordering::SeqCst);
        if *persisted == Some(generation) {
            return Ok(());
        }
        let bytes = {
            let tables = self.read_tables();
            persist::encode(
                tables
                    .live
                    .iter()
                    .chain(tables.cold.iter())
                    .map(|(f, c)| (f.as_path(), c)),
            )
        };
        let path = self.state_file.clone();
        let result = tokio::task::spawn_blocking(move || persist::save(&path, &bytes))
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        result.map_err(|source| IndexError::Write {
            path: self.state_file.clone(),
            source,
        })?;
        *persisted = Some(generation);
        self.persists.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// What the list shows of one entry.
/// [`IndexedChat::last_activity_ms`] of an entry, as [`view`] has it.
fn activity_ms(entry: &Entry) -> i64 {
    match (&entry.digest.last_record_at, entry.digest.last_record_ms) {
        (Some(_), Some(ms)) => ms,
        _ => entry.stamp.mtime_ms(),
    }
}

/// A chat as [`ChatIndex::glance_in`] shows it.
pub struct Glance<'a> {
    pub session_id: &'a str,
    pub custom_title: Option<&'a str>,
    /// The custom title if one was set, else the untruncated first prompt, else "".
    pub title: &'a str,
    pub updated_at: Option<String>,
    pub last_activity_ms: i64,
}

impl IndexedChat {
    /// The chat as [`ChatIndex::facts_in`] shows it, borrowed from this copy.
    pub fn facts(&self) -> Facts<'_> {
        Facts {
            glance: Glance {
                session_id: &self.session_id,
                custom_title: self.custom_title.as_deref(),
                title: &self.title,
                updated_at: self.updated_at.clone(),
                last_activity_ms: self.last_activity_ms,
            },
            created_at: self.created_at.as_deref(),
            model: self.model.as_deref(),
            message_count: self.message_count,
            usage: self.usage.clone(),
            last_reply: self.last_reply.as_deref(),
        }
    }
}

/// A chat as [`ChatIndex::facts_in`] shows it: what a listing's row is made of.
pub struct Facts<'a> {
    pub glance: Glance<'a>,
    pub created_at: Option<&'a str>,
    pub model: Option<&'a str>,
    pub message_count: u64,
    pub usage: ChatUsage,
    pub last_reply: Option<&'a str>,
}

/// `updatedAt` of a chat and that instant in epoch ms: its latest `user`/`assistant` record's,
/// else the file's mtime.
fn activity(entry: &Entry) -> (Option<String>, i64) {
    let d = &entry.digest;
    match (&d.last_record_at, d.last_record_ms) {
        (Some(at), Some(ms)) => (Some(at.clone()), ms),
        _ => {
            let ms = entry.stamp.mtime_ms();
            let at = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
            (at, ms)
        }
    }
}

/// A chat's [`Glance`], borrowed from its entry.
fn glance<'a>(session_id: &'a str, entry: &'a Entry) -> Glance<'a> {
    let (updated_at, last_activity_ms) = activity(entry);
    Glance {
        session_id,
        custom_title: entry.digest.custom_title.as_deref(),
        title: entry.digest.title(),
        updated_at,
        last_activity_ms,
    }
}

fn view(folder: &Path, session_id: &str, entry: &Entry) -> IndexedChat {
    let d = &entry.digest;
    let (updated_at, last_activity_ms) = activity(entry);
    IndexedChat {
        session_id: session_id.to_owned(),
        path: folder.join(format!("{session_id}.jsonl")),
        folder: folder.to_path_buf(),
        title: d.title().to_owned(),
        custom_title: d.custom_title.clone(),
        first_prompt: d.first_prompt.clone(),
        last_reply: d.last_reply.clone(),
        created_at: d.created_at.clone(),
        updated_at,
        last_activity_ms,
        model: d.last_model.clone(),
        first_model: d.first_model.clone(),
        message_count: d.message_count(),
        usage: usage(d),
    }
}

/// A chat's usage as the list shows it: the last context, the totals, the cost.
fn usage(d: &Digest) -> ChatUsage {
    let totals = d.totals();
    ChatUsage {
        context_tokens: d.context_tokens,
        context_limit: if d.context_limit == 0 {
            200_000
        } else {
            d.context_limit
        },
        input_tokens: totals.input,
        output_tokens: totals.output,
        cache_read_tokens: totals.cache_read,
        cache_creation_tokens: totals.cache_creation,
        cost_usd: d.cost_usd(),
    }
}

/// A chat's title: its custom title or first prompt, on one line; its id when it has neither.
pub fn display_title(title: &str, sid: &str) -> String {
    let t = title.trim();
    if t.is_empty() {
        format!("Chat {}", sid.get(..8).unwrap_or(sid))
    } else {
        t.to_owned()
    }
}

#[cfg(test)]
mod tests;
