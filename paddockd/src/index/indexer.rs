//! The indexer: the one task that changes the index. It serves the handles' commands, gathers
//! file events for `coalesce` and then reads each named file once (from its stored offset),
//! reconciles every folder every `safety_interval` in case events were lost, and persists at
//! most `persist_debounce` after a change.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant as StdInstant;

use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::task::TaskTracker;
use tracing::{debug, info, warn};

use super::persist::{self, Loaded};
use super::scan::{self, Entry, ScanKind, Scanned, Stamp};
use super::watch::{self, Overflow, Resolution, Watches};
use super::{INDEX_VERSION, IndexError, IndexEvent, IndexOptions, Shared, Touched, view};

/// A transcript read in a reconcile counts towards a progress line every this many.
const PROGRESS_EVERY: usize = 1000;
/// A reconcile that read at least this many transcripts is logged at info level.
const LOUD_RECONCILE: usize = 100;

pub(super) enum Command {
    Watch {
        folder: PathBuf,
        reply: oneshot::Sender<Result<(), IndexError>>,
    },
    Unwatch {
        folder: PathBuf,
    },
    Refresh {
        path: PathBuf,
        reply: oneshot::Sender<()>,
    },
}

/// Starts the indexer on `tasks`; it ends when every handle (the command sender) is dropped.
pub(super) fn spawn(
    shared: Arc<Shared>,
    options: IndexOptions,
    commands: mpsc::Receiver<Command>,
    tasks: &TaskTracker,
) {
    let own = tasks.clone();
    tasks.spawn(async move {
        Indexer::start(shared, options, commands, own)
            .await
            .run()
            .await;
    });
}

struct Indexer {
    shared: Arc<Shared>,
    options: IndexOptions,
    commands: mpsc::Receiver<Command>,
    /// Where the background writes of the index file run.
    tasks: TaskTracker,
    /// Paths named by file events, from the notify thread (bounded; see `Watches::new`).
    fs_events: mpsc::Receiver<Vec<PathBuf>>,
    overflow: Arc<Overflow>,
    watches: Watches,
    /// Watched folders, as the caller gave them, and where they really are.
    folders: HashMap<PathBuf, Resolution>,
    batch: HashSet<PathBuf>,
    batch_due: Option<Instant>,
    persist_due: Option<Instant>,
    seen_generation: u64,
    /// The index file was missing or unusable: the first reconciles rebuild it, loudly.
    rebuilding: bool,
}

impl Indexer {
    async fn start(
        shared: Arc<Shared>,
        options: IndexOptions,
        commands: mpsc::Receiver<Command>,
        tasks: TaskTracker,
    ) -> Self {
        let path = shared.state_file.clone();
        let loaded = tokio::task::spawn_blocking(move || persist::load(&path))
            .await
            .unwrap_or_else(|e| Loaded::Unreadable(e.to_string()));
        let file = shared.state_file.display().to_string();
        let rebuilding = match loaded {
            Loaded::Entries { folders, from_json } => {
                let chats: usize = folders.values().map(HashMap::len).sum();
                if from_json {
                    info!(
                        file,
                        folders = folders.len(),
                        chats,
                        "chat index loaded from an earlier release's JSON file; it is written again in the binary format"
                    );
                } else {
                    info!(file, folders = folders.len(), chats, "chat index loaded");
                }
                shared.write_tables().cold = folders;
                // From JSON it is not what the file holds: the next write makes the binary one.
                if !from_json {
                    shared.loaded().await;
                }
                false
            }
            Loaded::Missing => {
                info!(
                    file,
                    "chat index: no index file yet; building it as folders are watched"
                );
                true
            }
            Loaded::Unreadable(error) => {
                warn!(file, error, "chat index unreadable; rebuilding it");
                true
            }
            Loaded::OtherVersion(found) => {
                info!(
                    file,
                    ?found,
                    expected = INDEX_VERSION,
                    "chat index of another format version; rebuilding it"
                );
                true
            }
        };
        let (tx, fs_events) = mpsc::channel(options.fs_queue.max(1));
        let overflow = Arc::new(Overflow::default());
        let watches = Watches::new(tx, overflow.clone());
        let seen_generation = shared.generation.load(Ordering::SeqCst);
        Indexer {
            shared,
            options,
            commands,
            tasks,
            fs_events,
            overflow,
            watches,
            folders: HashMap::new(),
            batch: HashSet::new(),
            batch_due: None,
            persist_due: None,
            seen_generation,
            rebuilding,
        }
    }

    async fn run(mut self) {
        let period = self.options.safety_interval;
        let mut safety = tokio::time::interval_at(Instant::now() + period, period);
        safety.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            let batch_due = self.batch_due;
            let persist_due = self.persist_due;
            tokio::select! {
                biased;
                cmd = self.commands.recv() => match cmd {
                    Some(cmd) => self.command(cmd).await,
                    None => break,
                },
                Some(paths) = self.fs_events.recv() => self.gather(paths),
                () = self.overflow.wake.notified() => self.gather(Vec::new()),
                () = sleep_until(batch_due) => self.process_batch().await,
                _ = safety.tick() => self.reconcile_all().await,
                () = sleep_until(persist_due) => {
                    self.persist_due = None;
                    let shared = self.shared.clone();
                    self.tasks.spawn(async move {
                        if let Err(e) = shared.persist().await {
                            warn!(error = %e, "chat index: cannot persist");
                        }
                    });
                }
            }
            let generation = self.shared.generation.load(Ordering::SeqCst);
            if generation != self.seen_generation {
                self.seen_generation = generation;
                self.persist_due
                    .get_or_insert_with(|| Instant::now() + self.options.persist_debounce);
            }
        }
        debug!("chat index: indexer stopped");
    }

    async fn command(&mut self, cmd: Command) {
        match cmd {
            Command::Watch { folder, reply } => {
                let result = self.watch(folder).await;
                let _ = reply.send(result);
            }
            Command::Unwatch { folder } => {
                if self.shared.write_tables().live.remove(&folder).is_some() {
                    self.shared.changed();
                }
                self.folders.remove(&folder);
                self.sync_watches();
            }
            Command::Refresh { path, reply } => {
                self.refresh(&path).await;
                let _ = reply.send(());
            }
        }
    }

    async fn watch(&mut self, folder: PathBuf) -> Result<(), IndexError> {
        let initial = {
            let mut tables = self.shared.write_tables();
            if tables.live.contains_key(&folder) {
                None
            } else {
                let cold = tables.cold.remove(&folder);
                let was_cold = cold.is_some();
                tables.live.insert(folder.clone(), cold.unwrap_or_default());
                Some(was_cold)
            }
        };
        match initial {
            // Listed now; the file holds its chats already.
            Some(true) => self.shared.listed_again(),
            // A new folder: the file is to hold it (even empty).
            Some(false) => self.shared.changed(),
            None => {}
        }
        let initial = initial.is_some();
        self.reconcile(&folder, initial).await
    }

    /// Gathers file events; they are acted on once `coalesce` has passed since the first.
    fn gather(&mut self, paths: Vec<PathBuf>) {
        self.batch.extend(paths);
        while let Ok(more) = self.fs_events.try_recv() {
            self.batch.extend(more);
        }
        self.batch_due
            .get_or_insert_with(|| Instant::now() + self.options.coalesce);
    }

    async fn process_batch(&mut self) {
        self.batch_due = None;
        let paths = std::mem::take(&mut self.batch);
        let (all, dirs) = self.overflow.take();
        if all {
            self.reconcile_all().await;
            return;
        }
        let mut by_dir: HashMap<&Path, Vec<&PathBuf>> = HashMap::new();
        for (folder, res) in &self.folders {
            if let Some(dir) = &res.dir {
                by_dir.entry(dir).or_default().push(folder);
            }
        }
        let mut reconciles: HashSet<PathBuf> = self
            .folders
            .iter()
            .filter(|(_, res)| {
                dirs.iter().any(|d| res.involves_dir(d))
                    || paths.iter().any(|p| res.is_folder_event(p))
            })
            .map(|(folder, _)| folder.clone())
            .collect();
        let mut files: HashMap<PathBuf, Vec<(String, PathBuf)>> = HashMap::new();
        for p in &paths {
            let (Some(dir), Some(sid)) = (p.parent(), p.file_name().and_then(scan::session_id_of))
            else {
                continue;
            };
            for folder in by_dir.get(dir).into_iter().flatten() {
                if !reconciles.contains(*folder) {
                    files
                        .entry((*folder).clone())
                        .or_default()
                        .push((sid.clone(), p.clone()));
                }
            }
        }
        drop(by_dir);
        for folder in reconciles.drain() {
            if let Err(e) = self.reconcile(&folder, false).await {
                warn!(error = %e, "chat index: reconcile failed");
            }
        }
        for (folder, list) in files {
            self.check_files(folder, list).await;
        }
    }

    async fn refresh(&mut self, path: &Path) {
        let (Some(parent), Some(sid)) = (
            path.parent(),
            path.file_name().and_then(scan::session_id_of),
        ) else {
            debug!(path = %path.display(), "chat index: refresh of a file that is no transcript");
            return;
        };
        let p = parent.to_path_buf();
        let real = tokio::task::spawn_blocking(move || std::fs::canonicalize(p).ok())
            .await
            .ok()
            .flatten();
        let targets: Vec<(PathBuf, bool)> = self
            .folders
            .iter()
            .filter(|(folder, res)| {
                folder.as_path() == parent
                    || res.dir.as_deref() == Some(parent)
                    || (real.is_some() && res.dir == real)
            })
            .map(|(folder, res)| (folder.clone(), res.dir.is_some()))
            .collect();
        if targets.is_empty() {
            debug!(path = %path.display(), "chat index: refresh outside every watched folder");
        }
        for (folder, exists) in targets {
            if exists {
                self.check_files(folder, vec![(sid.clone(), path.to_path_buf())])
                    .await;
            } else if let Err(e) = self.reconcile(&folder, false).await {
                warn!(error = %e, "chat index: reconcile failed");
            }
        }
    }

    async fn reconcile_all(&mut self) {
        let folders: Vec<PathBuf> = self.folders.keys().cloned().collect();
        for folder in folders {
            if let Err(e) = self.reconcile(&folder, false).await {
                warn!(error = %e, "chat index: reconcile failed");
            }
        }
    }

    /// Re-resolves `folder`, watches what it needs, then reconciles its files.
    async fn reconcile(&mut self, folder: &Path, initial: bool) -> Result<(), IndexError> {
        // Watch before listing, so nothing written in between is missed; resolve again after
        // watching in case the folder appeared or was repointed before the watch took.
        let mut res = resolve(folder).await;
        for _ in 0..4 {
            self.folders.insert(folder.to_path_buf(), res.clone());
            self.sync_watches();
            let again = resolve(folder).await;
            if again == res {
                break;
            }
            res = again;
        }
        if self.folders.get(folder) != Some(&res) {
            self.folders.insert(folder.to_path_buf(), res.clone());
            self.sync_watches();
        }
        let dir = res.dir.clone();
        let shared = self.shared.clone();
        let folder = folder.to_path_buf();
        let threads = match self.options.parse_threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(8)),
            n => n,
        };
        let loud = self.rebuilding && initial;
        tokio::task::spawn_blocking(move || {
            reconcile_folder(&shared, &folder, dir.as_deref(), initial, threads, loud)
        })
        .await
        .unwrap_or_else(|e| Err(IndexError::Task(e.to_string())))
    }

    async fn check_files(&mut self, folder: PathBuf, files: Vec<(String, PathBuf)>) {
        let shared = self.shared.clone();
        let _ = tokio::task::spawn_blocking(move || check_files(&shared, &folder, files)).await;
    }

    fn sync_watches(&mut self) {
        let desired: HashSet<PathBuf> = self
            .folders
            .values()
            .flat_map(|res| {
                res.dir
                    .iter()
                    .cloned()
                    .chain(res.anchors.iter().map(|(dir, _)| dir.clone()))
            })
            .collect();
        self.watches.sync(&desired);
    }
}

async fn resolve(folder: &Path) -> Resolution {
    let folder = folder.to_path_buf();
    tokio::task::spawn_blocking(move || watch::resolve(&folder))
        .await
        .unwrap_or_default()
}

async fn sleep_until(due: Option<Instant>) {
    match due {
        Some(due) => tokio::time::sleep_until(due).await,
        None => std::future::pending().await,
    }
}

/// Brings one folder's entries in line with its files (blocking).
/// Each transcript's stamp (`None`: gone, or not a file), on up to `threads` threads: at start,
/// with 10,000 transcripts, one thread took 20 ms of the first chat list's wait.
fn stamps_of(
    listing: Vec<(String, PathBuf)>,
    threads: usize,
) -> Vec<(String, PathBuf, Option<Stamp>)> {
    let stamp = |(sid, path): (String, PathBuf)| {
        let stamp = std::fs::metadata(&path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| Stamp::of(&m));
        (sid, path, stamp)
    };
    // Below this many files a thread, a thread costs more than it saves.
    on_threads(listing, threads, 512, |item| Some(stamp(item)))
}

/// What `f` makes of each item (its `None`s left out), in the items' order, on up to
/// `threads` threads with at least `per_thread` items each. The threads take the items a few
/// at a time as they go, so one given the larger files does not leave the other idle at the
/// end. A thread that panicked panics here too: its part silently missing would read as
/// transcripts gone.
fn on_threads<T: Send, U: Send>(
    items: Vec<T>,
    threads: usize,
    per_thread: usize,
    f: impl Fn(T) -> Option<U> + Sync,
) -> Vec<U> {
    /// Items a thread takes at a time.
    const BATCH: usize = 8;
    let threads = threads.clamp(1, items.len() / per_thread.max(1) + 1);
    if threads == 1 {
        return items.into_iter().filter_map(f).collect();
    }
    let queue = std::sync::Mutex::new(items.into_iter().enumerate());
    let (f, queue) = (&f, &queue);
    let mut done: Vec<(usize, U)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(move || {
                    let mut out = Vec::new();
                    loop {
                        let batch: Vec<(usize, T)> = queue
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .by_ref()
                            .take(BATCH)
                            .collect();
                        if batch.is_empty() {
                            return out;
                        }
                        out.extend(
                            batch
                                .into_iter()
                                .filter_map(|(n, item)| Some((n, f(item)?))),
                        );
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    done.sort_unstable_by_key(|(n, _)| *n);
    done.into_iter().map(|(_, u)| u).collect()
}

fn reconcile_folder(
    shared: &Shared,
    folder: &Path,
    dir: Option<&Path>,
    initial: bool,
    threads: usize,
    loud: bool,
) -> Result<(), IndexError> {
    let started = StdInstant::now();
    let listing = match dir {
        Some(dir) => scan::list_folder(dir).map_err(|source| IndexError::Folder {
            path: folder.to_path_buf(),
            source,
        })?,
        None => Vec::new(),
    };
    let stamps = stamps_of(listing, threads);
    let (todo, gone) = {
        let tables = shared.read_tables();
        let Some(existing) = tables.live.get(folder) else {
            return Ok(()); // unwatched meanwhile
        };
        let present: HashSet<&str, foldhash::fast::RandomState> = stamps
            .iter()
            .filter(|(_, _, stamp)| stamp.is_some())
            .map(|(sid, _, _)| sid.as_str())
            .collect();
        let gone: Vec<String> = existing
            .keys()
            .filter(|sid| !present.contains(sid.as_str()))
            .cloned()
            .collect();
        let todo: Vec<(String, PathBuf, Option<Entry>)> = stamps
            .into_iter()
            .filter_map(|(sid, path, stamp)| {
                let stamp = stamp?;
                match existing.get(&sid) {
                    Some(e) if e.stamp == stamp => None,
                    e => {
                        let base = e.cloned();
                        Some((sid, path, base))
                    }
                }
            })
            .collect();
        (todo, gone)
    };
    let read = todo.len();
    if loud && read > 0 {
        info!(folder = %folder.display(), transcripts = read, "chat index: reading transcripts");
    }
    let mut updates = scan_all(shared, folder, todo, threads);
    let removed = gone.len();
    updates.extend(gone.into_iter().map(|sid| (sid, None)));
    let chats = shared.apply(folder, updates, !initial);
    shared.reconciles.fetch_add(1, Ordering::Relaxed);
    let elapsed_ms = started.elapsed().as_millis();
    if loud || read >= LOUD_RECONCILE {
        info!(folder = %folder.display(), chats, read, removed, elapsed_ms, "chat index: folder indexed");
    } else {
        debug!(folder = %folder.display(), chats, read, removed, elapsed_ms, "chat index: folder reconciled");
    }
    Ok(())
}

/// Reads the named files of one folder from their stored offsets (blocking).
fn check_files(shared: &Shared, folder: &Path, mut files: Vec<(String, PathBuf)>) {
    files.sort();
    files.dedup_by(|a, b| a.0 == b.0);
    let mut updates = Vec::new();
    for (sid, path) in files {
        let base = {
            let tables = shared.read_tables();
            let Some(chats) = tables.live.get(folder) else {
                return;
            };
            chats.get(&sid).cloned()
        };
        match scan::scan(&path, base.as_ref()) {
            Ok(Some(scanned)) => {
                if scanned.kind != ScanKind::Unchanged {
                    shared.count(&scanned);
                    updates.push((sid, Some(scanned.entry)));
                }
            }
            Ok(None) => {
                if base.is_some() {
                    updates.push((sid, None));
                }
            }
            Err(e) => {
                debug!(path = %path.display(), error = %e, "chat index: cannot read transcript")
            }
        }
    }
    if !updates.is_empty() {
        shared.apply(folder, updates, true);
    }
}

/// Reads `todo` on up to `threads` threads, with a progress line every `PROGRESS_EVERY`.
fn scan_all(
    shared: &Shared,
    folder: &Path,
    todo: Vec<(String, PathBuf, Option<Entry>)>,
    threads: usize,
) -> Vec<(String, Option<Entry>)> {
    let total = todo.len();
    let done = AtomicUsize::new(0);
    let work = |(sid, path, base): (String, PathBuf, Option<Entry>)| {
        let result = match scan::scan(&path, base.as_ref()) {
            Ok(Some(scanned)) => {
                shared.count(&scanned);
                Some((sid, Some(scanned.entry)))
            }
            Ok(None) => Some((sid, None)),
            Err(e) => {
                debug!(path = %path.display(), error = %e, "chat index: cannot read transcript");
                None
            }
        };
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(PROGRESS_EVERY) {
            info!(folder = %folder.display(), "chat index: {n}/{total} transcripts read");
        }
        result
    };
    on_threads(todo, threads, 64, work)
}

impl Shared {
    fn count(&self, scanned: &Scanned) {
        match scanned.kind {
            ScanKind::Full => self.full_parses.fetch_add(1, Ordering::Relaxed),
            ScanKind::Continued => self.continued_parses.fetch_add(1, Ordering::Relaxed),
            ScanKind::Unchanged => 0,
        };
        self.bytes_read
            .fetch_add(scanned.bytes_read, Ordering::Relaxed);
    }

    /// Applies new entries (`None`: removed) to a live folder; sends change events when `emit`.
    /// Returns how many chats the folder has.
    fn apply(&self, folder: &Path, updates: Vec<(String, Option<Entry>)>, emit: bool) -> usize {
        let mut events = Vec::new();
        let mut touched = Vec::new();
        let want_touched = self.touched.receiver_count() > 0;
        let mut changed = false;
        let count = {
            let mut tables = self.write_tables();
            let Some(chats) = tables.live.get_mut(folder) else {
                return 0;
            };
            for (sid, entry) in updates {
                match entry {
                    Some(mut entry) => {
                        entry.version = self.versions.fetch_add(1, Ordering::Relaxed) + 1;
                        let shows_change = emit
                            && chats.get(&sid).is_none_or(|old| {
                                view(folder, &sid, old) != view(folder, &sid, &entry)
                            });
                        if shows_change {
                            events.push(IndexEvent::Changed {
                                folder: folder.to_path_buf(),
                                session_id: sid.clone(),
                            });
                        }
                        if want_touched {
                            touched.push(Touched {
                                folder: folder.to_path_buf(),
                                session_id: sid.clone(),
                                gone: false,
                            });
                        }
                        chats.insert(sid, entry);
                        changed = true;
                    }
                    None => {
                        if chats.remove(&sid).is_some() {
                            changed = true;
                            if want_touched {
                                touched.push(Touched {
                                    folder: folder.to_path_buf(),
                                    session_id: sid.clone(),
                                    gone: true,
                                });
                            }
                            events.push(IndexEvent::Removed {
                                folder: folder.to_path_buf(),
                                session_id: sid,
                            });
                        }
                    }
                }
            }
            chats.len()
        };
        if changed {
            self.changed();
        }
        for t in touched {
            // No receiver is fine; one that lags is told so by the channel.
            let _ = self.touched.send(t);
        }
        if emit {
            for event in events {
                // No receiver is fine: nobody is listening.
                let _ = self.events.send(event);
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::on_threads;

    #[test]
    fn work_on_threads_keeps_the_order_and_a_panic_is_not_lost() {
        let items: Vec<u32> = (0..5000).collect();
        let f = |n: u32| n.is_multiple_of(3).then_some(n * 2);
        let one: Vec<u32> = items.iter().copied().filter_map(f).collect();
        for threads in [1, 2, 3, 8] {
            assert_eq!(on_threads(items.clone(), threads, 64, f), one);
        }
        let panicked = std::panic::catch_unwind(|| {
            on_threads((0..100).collect::<Vec<u32>>(), 4, 1, |n| {
                assert_ne!(n, 77, "a failing item");
                Some(n)
            })
        });
        assert!(panicked.is_err(), "the panic reaches the caller");
    }
}
