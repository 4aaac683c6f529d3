//! The one task that changes the search index. At start it opens the index in the data folder
//! ([`Engine::open`]): one committed before is complete at once, and every chat the live index
//! has is read on from where the index stopped (a stat and a 64-byte look each, for those that
//! did not grow); an empty one (new, or moved aside as unusable) is built from every chat, in
//! the background, committed as it goes, with its progress counted for `indexing`. Then it
//! follows the live index's [`Touched`] events, reading each touched transcript from where the
//! index stopped, and commits.
//!
//! Queues: the `Touched` broadcast is bounded (the live index's `TOUCHED_CAPACITY`); when this
//! task lags behind it, it checks every chat instead (a stat each, and the appended lines of
//! those that grew). Touched chats are gathered for [`COALESCE`] and each is read once. A search
//! that wants what was touched before it (`SearchIndex::settle`) ends the gathering at once and
//! is answered once that is read and committed, the touched events already queued included (a
//! bounded queue of waiters: when full, a search does not wait).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tokio::sync::broadcast::{
    self,
    error::{RecvError, TryRecvError},
};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::Shared;
use super::engine::{Engine, Opened, Payload, ReadChat};
use super::reader::{self, Outcome};
use crate::index::{ChatIndex, Touched};

/// How long touched chats are gathered before they are read.
const COALESCE: Duration = Duration::from_millis(50);
/// Every chat is checked this often anyway (and chats of folders no longer watched are
/// dropped): a stat each.
const SWEEP_EVERY: Duration = Duration::from_secs(600);
/// A build commits what it has read this often, so that searches meanwhile find it and a
/// build cut short by a stop goes on from there at the next start.
const BUILD_COMMIT_EVERY: Duration = Duration::from_secs(2);

/// Searches waiting for what was touched before they asked to be read (`SearchIndex::settle`).
pub(super) type SettleRx = mpsc::Receiver<oneshot::Sender<()>>;

/// The updater: opens (or builds) the index, then reads what the live index says was touched
/// (every chat when it fell behind, or at each sweep), answering the searches that wait.
pub(super) async fn run(
    shared: Arc<Shared>,
    index: ChatIndex,
    mut touched: broadcast::Receiver<Touched>,
    settle: Option<SettleRx>,
    stop: CancellationToken,
) {
    let Some(mut settle) = settle else {
        return;
    };
    let Some(mut writer) = open(&shared, &index, &stop).await else {
        return;
    };
    shared.following.store(true, Ordering::Release);
    let mut sweep =
        tokio::time::interval_at(tokio::time::Instant::now() + SWEEP_EVERY, SWEEP_EVERY);
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let Some(Gathered {
            pending,
            everything,
            waiters,
        }) = gather(&mut touched, &mut sweep, &mut settle, &stop).await
        else {
            return;
        };
        if !pending.is_empty() || everything {
            let live = everything.then(|| all_chats(&index));
            let work = match &live {
                Some(live) => live.clone(),
                None => pending.into_iter().collect(),
            };
            let s = shared.clone();
            let followed = tokio::task::spawn_blocking(move || {
                writer.follow(&s, work, live.as_deref());
                writer.commit();
                writer
            })
            .await;
            match followed {
                Ok(w) => writer = w,
                Err(e) => {
                    warn!(error = %e, "search index: an update failed; searches answer from what was committed until paddockd restarts");
                    answer(waiters);
                    return;
                }
            }
        }
        answer(waiters);
    }
}

/// The index opened ([`open_engine`]) on a thread of its own, started before the live index is
/// ready (`SearchIndex::open_early`): the updater takes it from there.
pub(super) type Early = oneshot::Receiver<Option<(Writer, bool)>>;

/// Starts opening the index at once, on a thread of its own at a low priority.
pub(super) fn open_early(shared: Arc<Shared>) -> Option<Early> {
    spawn_background(move || open_engine(&shared))
}

/// Opens the index ([`Engine::open`]): one committed before answers searches at once,
/// complete; whether it was. Searches waiting for the opening go on after it, whatever came of
/// it. `None` when the index cannot be had at all (logged: searches then find nothing).
fn open_engine(s: &Shared) -> Option<(Writer, bool)> {
    let opened = Engine::open(&s.dir);
    let (engine, opened) = match opened {
        Ok(x) => x,
        Err(e) => {
            warn!(error = %e, "search index: cannot open it; searches find nothing until paddockd restarts");
            s.built.store(true, Ordering::Release);
            s.opened.send_replace(true);
            return None;
        }
    };
    s.set_searcher(engine.searcher_source());
    let mut w = Writer::new(engine);
    let committed = match opened {
        Opened::Committed(payload) => {
            w.chats = payload.chats();
            s.publish_all(&w.chats);
            s.built.store(true, Ordering::Release);
            info!(chats = w.chats.len(), "search index opened");
            true
        }
        Opened::Empty { reason } => {
            if let Some(reason) = reason {
                warn!(%reason, "search index: the one on disk cannot be used; building it again in the background");
            }
            false
        }
    };
    s.opened.send_replace(true);
    Some((w, committed))
}

/// Brings the index opened early (or opens it now) up to date with every chat the live index
/// has (reading on, or building it from nothing); `None` when the daemon stopped meanwhile or
/// the index cannot be had at all.
async fn open(shared: &Arc<Shared>, index: &ChatIndex, stop: &CancellationToken) -> Option<Writer> {
    let started = Instant::now();
    let early = shared.take_early();
    let opened = match early {
        Some(rx) => rx.await.ok().flatten(),
        None => {
            let s = shared.clone();
            on_background_thread(move || open_engine(&s))
                .await
                .flatten()
        }
    };
    shared.opened.send_replace(true);
    let (mut w, committed) = opened?;
    let (s, idx, token) = (shared.clone(), index.clone(), stop.clone());
    // On a thread of its own at a low priority: tantivy's indexing and merging threads,
    // started by the writer there, inherit it.
    let done = on_background_thread(move || {
        // The first chat list after a restart is asked for while the live index loads, and
        // is made once it is ready, as this starts: it goes first.
        s.foreground.wait_clear(super::foreground::MAX_WAIT);
        let live = all_chats(&idx);
        if committed {
            w.follow(&s, live.clone(), Some(&live));
        } else {
            w.build(&s, live, &token);
        }
        w.commit();
        Some((w, !committed))
    })
    .await
    .flatten();
    // Searches waiting for the opening go on, whatever came of it.
    shared.opened.send_replace(true);
    let (w, built) = done?;
    if stop.is_cancelled() {
        return None;
    }
    shared.built.store(true, Ordering::Release);
    let stats = shared.stats();
    info!(
        chats = stats.chats,
        documents = stats.docs,
        segments = stats.segments,
        elapsed_ms = started.elapsed().as_millis(),
        "{}",
        if built {
            "search index built"
        } else {
            "search index up to date"
        }
    );
    Some(w)
}

/// Runs `f` on a new thread at a low priority ([`background_priority`]); `None` if it panicked.
async fn on_background_thread<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    spawn_background(f)?.await.ok()
}

/// Runs `f` on a new thread at a low priority; its result comes on the receiver (none if it
/// panicked). `None` when the thread cannot be started (logged).
fn spawn_background<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<oneshot::Receiver<T>> {
    let (tx, rx) = oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("search-index".into())
        .spawn(move || {
            background_priority();
            let _ = tx.send(f());
        });
    match spawned {
        Ok(_) => Some(rx),
        Err(e) => {
            warn!(error = %e, "search index: cannot start its thread");
            None
        }
    }
}

/// The index's writer and what it has read of each chat.
pub(super) struct Writer {
    engine: Engine,
    /// Session id → where its transcript is and how far it was read (as committed, plus what
    /// was read since).
    chats: HashMap<String, ReadChat>,
    /// Something was added or deleted since the last commit.
    dirty: bool,
}

impl Writer {
    fn new(engine: Engine) -> Self {
        Writer {
            engine,
            chats: HashMap::new(),
            dirty: false,
        }
    }

    /// Reads every chat of `chats` from the start (blocking), committing every
    /// [`BUILD_COMMIT_EVERY`]; counts them in the progress.
    fn build(&mut self, shared: &Shared, chats: Vec<(PathBuf, String)>, stop: &CancellationToken) {
        shared.total.store(
            u32::try_from(chats.len()).unwrap_or(u32::MAX),
            Ordering::Relaxed,
        );
        shared.started.store(true, Ordering::Release);
        let mut last_commit = Instant::now();
        for (folder, sid) in chats {
            if stop.is_cancelled() {
                return;
            }
            // A request someone waits on goes first (`foreground.rs`).
            shared.foreground.wait_clear(super::foreground::MAX_WAIT);
            self.read(shared, &folder, &sid);
            shared.done.fetch_add(1, Ordering::Relaxed);
            if last_commit.elapsed() >= BUILD_COMMIT_EVERY {
                self.commit();
                last_commit = Instant::now();
            }
        }
    }

    /// Brings the chats of `work` up to date (blocking); with `live` (every chat there is),
    /// drops the chats it does not have.
    fn follow(
        &mut self,
        shared: &Shared,
        work: Vec<(PathBuf, String)>,
        live: Option<&[(PathBuf, String)]>,
    ) {
        if let Some(live) = live {
            let known: HashSet<&str> = live.iter().map(|(_, s)| s.as_str()).collect();
            let gone: Vec<String> = self
                .chats
                .keys()
                .filter(|sid| !known.contains(sid.as_str()))
                .cloned()
                .collect();
            for sid in gone {
                self.forget(shared, &sid);
            }
        }
        for (folder, sid) in work {
            self.read(shared, &folder, &sid);
        }
    }

    /// Reads one transcript on from where the index stopped (all of it when it is new, or
    /// replaced), and adds what it read; forgets a chat whose transcript is gone.
    fn read(&mut self, shared: &Shared, folder: &Path, sid: &str) {
        let path = folder.join(format!("{sid}.jsonl"));
        let base = self.chats.get(sid).map(|c| c.mark);
        let mut texts: Vec<String> = Vec::new();
        let outcome = reader::read(&path, base.as_ref(), |t| texts.push(t.to_owned()));
        let mark = match outcome {
            Ok(Outcome::Unchanged) => None,
            Ok(Outcome::Gone) => {
                // Only where the index has it: a chat moved to another folder is gone from
                // this one, not gone.
                if self.chats.get(sid).is_some_and(|c| c.folder == folder) {
                    self.forget(shared, sid);
                }
                return;
            }
            Ok(Outcome::Continued(mark)) => Some(mark),
            Ok(Outcome::Full(mark)) => {
                if base.is_some() {
                    self.engine.delete(sid);
                }
                Some(mark)
            }
            Err(e) => {
                debug!(path = %path.display(), error = %e, "search index: cannot read a transcript");
                return;
            }
        };
        if let Some(mark) = mark {
            if let Err(e) = self.engine.add(sid, texts.iter().map(String::as_str)) {
                warn!(error = %e, "search index: cannot add a chat's text");
                return;
            }
            self.dirty = true;
            self.chats.insert(
                sid.to_owned(),
                ReadChat {
                    folder: folder.to_owned(),
                    mark,
                },
            );
            shared.publish(sid, folder);
        } else if let Some(c) = self.chats.get_mut(sid)
            && c.folder != folder
        {
            // Moved here, the same file: nothing to read again.
            c.folder = folder.to_owned();
            self.dirty = true;
            shared.publish(sid, folder);
        }
    }

    fn forget(&mut self, shared: &Shared, sid: &str) {
        self.engine.delete(sid);
        self.chats.remove(sid);
        shared.unpublish(sid);
        self.dirty = true;
    }

    /// Commits what changed, with what was read of every chat (blocking).
    fn commit(&mut self) {
        if !self.dirty {
            return;
        }
        let started = Instant::now();
        match self.engine.commit(&Payload::of(&self.chats)) {
            Ok(()) => {
                self.dirty = false;
                debug!(
                    chats = self.chats.len(),
                    elapsed_ms = started.elapsed().as_millis(),
                    "search index: committed"
                );
            }
            Err(e) => {
                warn!(error = %e, "search index: cannot commit; trying again at the next change")
            }
        }
    }
}

/// The touched chats gathered for one read, and the searches waiting for it.
#[derive(Default)]
struct Gathered {
    pending: HashSet<(PathBuf, String)>,
    /// Every chat is to be checked: this task fell behind, or it is time for a sweep.
    everything: bool,
    waiters: Vec<oneshot::Sender<()>>,
}

impl Gathered {
    /// Takes in one touched event; `false` when the live index is gone.
    fn take(&mut self, ev: Result<Touched, RecvError>) -> bool {
        match ev {
            Ok(t) => {
                self.pending.insert((t.folder, t.session_id));
                true
            }
            Err(RecvError::Lagged(n)) => {
                debug!(
                    missed = n,
                    "search index: fell behind the chat index; checking every chat"
                );
                self.everything = true;
                true
            }
            Err(RecvError::Closed) => false,
        }
    }
}

/// Waits for a touched chat, the sweep's tick or a waiting search, gathers touched chats for
/// [`COALESCE`] (a waiting search ends that at once), then takes in what is queued already;
/// `None` when the daemon stops or the live index is gone.
async fn gather(
    touched: &mut broadcast::Receiver<Touched>,
    sweep: &mut tokio::time::Interval,
    settle: &mut SettleRx,
    stop: &CancellationToken,
) -> Option<Gathered> {
    let mut g = Gathered::default();
    let first = tokio::select! {
        () = stop.cancelled() => return None,
        ev = touched.recv() => Some(ev),
        _ = sweep.tick() => Some(Err(RecvError::Lagged(0))),
        Some(w) = settle.recv() => {
            g.waiters.push(w);
            None
        }
    };
    if let Some(first) = first {
        if !g.take(first) {
            return None;
        }
        let window = tokio::time::sleep(COALESCE);
        tokio::pin!(window);
        loop {
            tokio::select! {
                () = stop.cancelled() => return None,
                () = &mut window => break,
                ev = touched.recv() => if !g.take(ev) { break },
                // A search waits: read now rather than at the window's end.
                Some(w) = settle.recv() => {
                    g.waiters.push(w);
                    break;
                }
            }
        }
    }
    // What is queued already was touched before the waiters asked: it goes in too.
    loop {
        match touched.try_recv() {
            Ok(t) => {
                g.take(Ok(t));
            }
            Err(TryRecvError::Lagged(n)) => {
                g.take(Err(RecvError::Lagged(n)));
            }
            Err(TryRecvError::Empty | TryRecvError::Closed) => break,
        }
    }
    Some(g)
}

/// Tells the waiting searches that what they waited for is read.
fn answer(waiters: Vec<oneshot::Sender<()>>) {
    for w in waiters {
        let _ = w.send(());
    }
}

/// Every chat the live index has: (folder, session id).
fn all_chats(index: &ChatIndex) -> Vec<(PathBuf, String)> {
    index
        .folders()
        .into_iter()
        .flat_map(|folder| {
            // Ids only (newest first): a copy of every chat whole, made when the index is
            // ready, slowed the first chat list after a restart.
            index
                .versions_in(&folder)
                .into_iter()
                .map(move |(sid, _)| (folder.clone(), sid))
        })
        .collect()
}

/// Lowers the calling thread's priority (nice 10): the index's own threads do background
/// work, and must not slow the chat lists and turns the daemon serves meanwhile (on two cores,
/// they would). Only for threads of the index's own, which keep it: a thread cannot raise it
/// back.
fn background_priority() {
    let tid = rustix::thread::gettid();
    if let Err(e) = rustix::process::setpriority_process(Some(tid), 10) {
        debug!(error = %e, "search index: cannot lower its threads' priority");
    }
}
