//! The one task that changes the search index: it builds it at start (once the live index is
//! ready), then follows the live index's [`Touched`] events, reading each touched transcript
//! from the offset the search index stopped at.
//!
//! Queues: the `Touched` broadcast is bounded (the live index's `TOUCHED_CAPACITY`); when this
//! task lags behind it, it checks every chat instead (a stat each, and the appended lines of
//! those that grew). Touched chats are gathered for [`COALESCE`] and each is read once. The
//! build's reader threads hand their built segments over a bounded channel ([`BUILD_QUEUE`] per
//! thread): they wait while the merging falls behind. A search that wants what was touched
//! before it (`SearchIndex::settle`) ends the gathering at once and is answered once that is
//! read, the touched events already queued included (a bounded queue of waiters: when full, a
//! search does not wait).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::broadcast::{
    self,
    error::{RecvError, TryRecvError},
};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::Shared;
use super::builder::{Builder, Built};
use super::index::{self, Batch, COMMON_MIN_DOCS, Common, DocId, merge};
use super::reader::{self, Outcome, ReadState};
use super::tokens;
use crate::index::{ChatIndex, Touched};

/// How long touched chats are gathered before they are read.
const COALESCE: Duration = Duration::from_millis(50);
/// Every chat is checked this often anyway (and chats of folders no longer watched are
/// dropped): a stat each.
const SWEEP_EVERY: Duration = Duration::from_secs(600);
/// Built segments waiting to be taken in, per reader thread.
const BUILD_QUEUE: usize = 2;
/// A reader thread hands over its segment past [`CHUNK_PAIRS`](super::builder::CHUNK_PAIRS) (token, chat) pairs, or past
/// this share of the chats to read, so a search meanwhile finds what was read.
const CHUNKS_AT_LEAST: usize = 8;

/// Searches waiting for what was touched before they asked to be read (`SearchIndex::settle`).
pub(super) type SettleRx = mpsc::Receiver<oneshot::Sender<()>>;

/// The updater: builds the index at start, then reads what the live index says was touched
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
    if !build_at_start(&shared, &index, &stop).await {
        return;
    }
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
        if pending.is_empty() && !everything {
            answer(waiters);
            continue;
        }
        let work = chats_to_read(&shared, &index, pending, everything);
        let s = shared.clone();
        if let Err(e) = tokio::task::spawn_blocking(move || follow(&s, work)).await {
            warn!(error = %e, "search index: an update failed");
        }
        answer(waiters);
    }
}

/// Builds the index from every chat the live index has (on blocking threads) and logs its
/// size; `false` when the daemon stopped meanwhile.
async fn build_at_start(shared: &Arc<Shared>, index: &ChatIndex, stop: &CancellationToken) -> bool {
    let started = Instant::now();
    let (s, token, index) = (shared.clone(), stop.clone(), index.clone());
    let built = tokio::task::spawn_blocking(move || {
        // The first chat list after a restart is asked for while the live index loads, and
        // is made once it is ready, as this starts: listing every chat and making their
        // documents meanwhile slowed its rows (one malloc arena). It goes first.
        s.foreground.wait_clear(super::foreground::MAX_WAIT);
        let chats = all_chats(&index);
        let total = chats.len();
        s.total
            .store(u32::try_from(total).unwrap_or(u32::MAX), Ordering::Relaxed);
        s.started.store(true, Ordering::Release);
        build(&s, chats, &token);
        total
    })
    .await;
    if stop.is_cancelled() {
        return false;
    }
    let total = match built {
        Ok(total) => total,
        Err(e) => {
            warn!(error = %e, "search index: the build failed; searches cover what was indexed");
            shared.total.load(Ordering::Relaxed) as usize
        }
    };
    shared.built.store(true, Ordering::Release);
    let stats = shared.stats();
    info!(
        chats = total,
        threads = build_threads(),
        elapsed_ms = started.elapsed().as_millis(),
        tokens = stats.tokens,
        pairs = stats.pairs,
        index_bytes = stats.heap_bytes,
        "search index built"
    );
    true
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

/// The chats to read: the touched ones, or every chat the live index has (the others are
/// dropped from the search index).
fn chats_to_read(
    shared: &Shared,
    index: &ChatIndex,
    pending: HashSet<(PathBuf, String)>,
    everything: bool,
) -> Vec<(PathBuf, String)> {
    if !everything {
        return pending.into_iter().collect();
    }
    let live = all_chats(index);
    let known: HashSet<(&Path, &str)> = live
        .iter()
        .map(|(f, s)| (f.as_path(), s.as_str()))
        .collect();
    shared.forget_except(&known);
    live
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

fn transcript(folder: &Path, sid: &str) -> PathBuf {
    folder.join(format!("{sid}.jsonl"))
}

/// Calls `f` with every key of `text`: its indexable tokens, and the pair key of each two
/// adjacent tokens that are both `common` ([`index::pair_key`]).
fn each_key(text: &str, common: &Common, mut f: impl FnMut(&str)) {
    let mut prev = String::new();
    let mut prev_common = false;
    let mut pair = String::new();
    tokens::for_each(text, |_, _, t| {
        if !tokens::indexable(t) {
            prev_common = false;
            return;
        }
        f(t);
        let is_common = common.contains(t);
        if is_common && prev_common {
            f(index::pair_key(&mut pair, &prev, t));
        }
        if is_common {
            prev.clear();
            prev.push_str(t);
        }
        prev_common = is_common;
    });
}

/// Reads every chat from the start, on a few threads (blocking): each reader makes frozen
/// segments of the chats it reads ([`Builder`]), one thread takes them in, and they are merged
/// into one at the end.
fn build(shared: &Shared, chats: Vec<(PathBuf, String)>, stop: &CancellationToken) {
    let jobs: Vec<(DocId, PathBuf)> = {
        let mut t = shared.write();
        chats
            .iter()
            .filter_map(|(folder, sid)| {
                let f = t.folder_id(folder);
                Some((t.add_doc(sid, f)?, transcript(folder, sid)))
            })
            .collect()
    };
    let threads = build_threads().clamp(1, jobs.len().max(1));
    let chunk_chats = (jobs.len() / (threads * CHUNKS_AT_LEAST)).max(COMMON_MIN_DOCS);
    let next = AtomicUsize::new(0);
    let first = FirstTakenIn::default();
    let (tx, rx) = std::sync::mpsc::sync_channel::<(Built, Vec<Read>)>(threads * BUILD_QUEUE);
    let (jobs, next, first) = (&jobs, &next, &first);
    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            s.spawn(move || {
                background_priority();
                read_chats(shared, jobs, next, chunk_chats, stop, first, &tx);
            });
        }
        drop(tx);
        // The segments are taken in (and merged) on a thread of the build's own, at its
        // priority too.
        s.spawn(move || {
            background_priority();
            for (built, reads) in rx {
                shared.foreground.wait_clear(super::foreground::MAX_WAIT);
                let n = reads.len();
                {
                    let mut t = shared.write();
                    t.absorb_built(built);
                    for (doc, state, version) in reads {
                        match state {
                            Some(state) => {
                                if let Some(d) = t.docs.get_mut(doc as usize) {
                                    d.read = state;
                                    d.pairs_version = version;
                                }
                            }
                            // Gone or unreadable: a later touch reads it again.
                            None => t.kill_doc(doc),
                        }
                    }
                }
                shared
                    .done
                    .fetch_add(u32::try_from(n).unwrap_or(0), Ordering::Relaxed);
                first.set();
                freeze(shared, false);
            }
            first.set();
            freeze(shared, true);
        });
    });
}

/// A chat a build read: its document, how far it was read (`None`: gone or unreadable), and
/// the common set's version it was read with.
type Read = (DocId, Option<ReadState>, u32);

/// One reader thread of a build: takes the next chat until none is left, and hands over a
/// finished segment past [`CHUNK_PAIRS`](super::builder::CHUNK_PAIRS) pairs or `chunk_chats` chats.
fn read_chats(
    shared: &Shared,
    jobs: &[(DocId, PathBuf)],
    next: &AtomicUsize,
    chunk_chats: usize,
    stop: &CancellationToken,
    first: &FirstTakenIn,
    tx: &std::sync::mpsc::SyncSender<(Built, Vec<Read>)>,
) {
    let mut builder = Builder::default();
    let mut reads = Vec::new();
    loop {
        if stop.is_cancelled() {
            return;
        }
        // A request someone waits on goes first (`foreground.rs`).
        shared.foreground.wait_clear(super::foreground::MAX_WAIT);
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some((doc, path)) = jobs.get(i) else {
            break;
        };
        let common = shared.read().common.clone();
        let outcome = reader::read(path, None, |text| {
            each_key(text, &common, |key| builder.add(key, *doc));
        });
        let state = match outcome {
            Ok(Outcome::Full(state)) => Some(state),
            Ok(_) => None,
            Err(e) => {
                debug!(path = %path.display(), error = %e, "search index: cannot read a transcript");
                None
            }
        };
        reads.push((*doc, state, common.version));
        if !hand_over_if_full(
            &mut builder,
            &mut reads,
            chunk_chats,
            common.len() > 0,
            tx,
            first,
        ) {
            return;
        }
    }
    if !reads.is_empty() {
        let _ = tx.send((builder.finish(), reads));
    }
}

/// Hands `builder`'s segment over with the chats read into it when it is full
/// ([`Builder::is_full`]), and starts the next; after one read without the common words, waits
/// until the first segment is taken in ([`FirstTakenIn`]). `false`: no one takes segments any
/// more.
pub(super) fn hand_over_if_full<R>(
    builder: &mut Builder,
    read: &mut Vec<R>,
    chunk_chats: usize,
    common_known: bool,
    tx: &std::sync::mpsc::SyncSender<(Built, Vec<R>)>,
    first: &FirstTakenIn,
) -> bool {
    if !builder.is_full(chunk_chats, common_known) {
        return true;
    }
    let next = Builder::after(builder);
    let built = std::mem::replace(builder, next).finish();
    if tx.send((built, std::mem::take(read))).is_err() {
        return false;
    }
    if !common_known {
        first.wait();
    }
    true
}

/// Whether a build's first segment has been taken in: it makes the common words known (when it
/// holds enough chats), whose pairs the readers index from then on. A reader that handed over
/// a segment read without them waits for that ([`FirstTakenIn::wait`]) instead of reading on:
/// with two readers, the segments of tiny chats outran the first one's taking in, and chats
/// read meanwhile had no pairs (a phrase search then reads them all).
#[derive(Debug, Default)]
pub(super) struct FirstTakenIn {
    done: std::sync::Mutex<bool>,
    taken: std::sync::Condvar,
}

impl FirstTakenIn {
    /// The longest a reader waits: the taking in is quick; past this, it reads on regardless.
    const MAX_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

    pub(super) fn set(&self) {
        let mut done = self
            .done
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !*done {
            *done = true;
            self.taken.notify_all();
        }
    }

    pub(super) fn wait(&self) {
        let done = self
            .done
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = self
            .taken
            .wait_timeout_while(done, Self::MAX_WAIT, |done| !*done)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
    }
}

/// Lowers the calling thread's priority (nice 10): the build is background work, and must not
/// slow the chat lists and turns the daemon serves meanwhile (on two cores, it would). Only
/// for the build's own threads, which end with it: a thread cannot raise it back.
fn background_priority() {
    let tid = rustix::thread::gettid();
    if let Err(e) = rustix::process::setpriority_process(Some(tid), 10) {
        debug!(error = %e, "search index: cannot lower the build's priority");
    }
}

/// Reader threads of a build: every CPU, at most four. The build runs at a low priority
/// ([`background_priority`]) and steps aside while a chat list or a search is at work
/// (`foreground.rs`), so the daemon's requests and turns go first; on two cores, one reader
/// took 5.3 s over the bench's 10,000 chats.
pub(super) fn build_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 4))
}

/// Merges the live segment into the frozen one when it is due (or when `now`, if it has
/// anything), off the lock.
pub(super) fn freeze(shared: &Shared, now: bool) {
    let job = {
        let mut t = shared.write();
        if !now && !t.merge_due() {
            return;
        }
        t.begin_merge()
    };
    if let Some((frozen, seg, dead)) = job {
        let started = Instant::now();
        let merged = merge(&frozen, &seg, &dead);
        drop((frozen, seg));
        shared.write().postings.finish_freeze(merged);
        debug!(
            elapsed_ms = started.elapsed().as_millis(),
            "search index: segments merged"
        );
    }
}

/// Brings touched chats up to date (blocking): the lines appended since the stored offset,
/// all of a replaced transcript, nothing of a gone one.
fn follow(shared: &Shared, work: Vec<(PathBuf, String)>) {
    for (folder, sid) in work {
        let base = {
            let t = shared.read();
            t.by_sid.get(sid.as_str()).and_then(|&d| {
                let doc = t.docs.get(d as usize)?;
                (t.folders.get(doc.folder as usize).map(|f| &**f) == Some(folder.as_path()))
                    .then_some((d, doc.read))
            })
        };
        let mut found: HashSet<Box<str>> = HashSet::new();
        let path = transcript(&folder, &sid);
        let common = shared.read().common.clone();
        let outcome = reader::read(&path, base.as_ref().map(|b| &b.1), |text| {
            each_key(text, &common, |key| {
                if !found.contains(key) {
                    found.insert(key.into());
                }
            });
        });
        let mut t = shared.write();
        let doc = match outcome {
            Ok(Outcome::Unchanged) => continue,
            Ok(Outcome::Gone) => {
                if base.is_some() {
                    t.kill(&sid);
                }
                continue;
            }
            Ok(Outcome::Continued(state)) => base.map(|(d, _)| (d, state)),
            Ok(Outcome::Full(state)) => {
                let f = t.folder_id(&folder);
                let doc = t.add_doc(&sid, f);
                if let Some(d) = doc.and_then(|d| t.docs.get_mut(d as usize)) {
                    d.pairs_version = common.version;
                }
                doc.map(|d| (d, state))
            }
            Err(e) => {
                debug!(path = %path.display(), error = %e, "search index: cannot read a transcript");
                continue;
            }
        };
        let Some((doc, state)) = doc else { continue };
        if let Some(d) = t.docs.get_mut(doc as usize) {
            d.read = state;
        }
        let mut batch = Batch::default();
        for token in &found {
            batch.add(token, doc);
        }
        t.absorb(batch);
    }
    freeze(shared, false);
}
