//! A turn ends for clients only once its transcript holds it.
//!
//! The CLI writes a turn's records to its transcript on its own schedule: 2.1.332 has the reply's
//! `assistant` record on disk when it prints `result`; 2.1.197 writes each record about 100 ms
//! after making it, unless `CLAUDE_CODE_EAGER_FLUSH` is set, which paddockd sets for every
//! claude (`process.rs`): then it writes them before `result` too (docs/claude-cli.md §15). A
//! `chat:complete` sent at `result` would let a client that asks at once (`paddock send … &&
//! paddock show …`, a re-list on `chat:active`) read a transcript without the turn, and a new
//! chat would be missing from the list. So the runner notes the uuid of the turn's last
//! `assistant` line (the transcript record carries the same uuid in every supported release)
//! and, at `result`, looks for that uuid in the bytes appended since the turn began: at once,
//! then at every write to the transcript's folder (a watch, not a timer), within [`BOUND`].

use std::io::SeekFrom;
use std::path::Path;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use paddock_proto::{ChatEvent, Notice, NoticeKind};
use tokio::io::{AsyncReadExt, AsyncSeekExt};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The longest a turn's end waits for its transcript. A CLI that never writes the record (a
/// session without persistence) costs a turn this much once.
pub const BOUND: Duration = Duration::from_secs(3);

/// How often the file is looked at when its folder cannot be watched, and how long a watched
/// wait goes without looking (a write the watch missed is still found).
const POLL: Duration = Duration::from_millis(10);
const WATCHED_POLL: Duration = Duration::from_millis(250);

/// The size of `path` now (0 when it does not exist yet): where a turn's records will start.
pub async fn offset(path: &Path) -> u64 {
    tokio::fs::metadata(path).await.map_or(0, |m| m.len())
}

/// Waits until `uuid` appears in `path` past `from`, at most `bound`. Whether it did.
pub async fn until_written(path: &Path, from: u64, uuid: &str, bound: Duration) -> bool {
    let deadline = Instant::now() + bound;
    let needle = uuid.as_bytes();
    let mut at = from;
    let mut carry: Vec<u8> = Vec::new();
    let mut watch: Option<FolderWatch> = None;
    loop {
        if let Ok(found) = scan(path, &mut at, &mut carry, needle).await
            && found
        {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        // Not there at the first look: watch the folder (made once), then look again.
        let watch = match &mut watch {
            Some(w) => w,
            None => {
                let w = watch.insert(FolderWatch::new(path));
                if w.watching() {
                    continue;
                }
                w
            }
        };
        watch.changed(deadline).await;
    }
}

/// Writes in a transcript's folder, as a wake-up: the events themselves are not read.
struct FolderWatch {
    /// Dropped with the wait, which stops watching.
    watcher: Option<notify::RecommendedWatcher>,
    rx: mpsc::Receiver<()>,
}

impl FolderWatch {
    /// Watches `path`'s folder; without a watch (none can be made) the wait polls.
    fn new(path: &Path) -> Self {
        // One pending wake-up is enough: overflow is dropped, the next look reads everything.
        let (tx, rx) = mpsc::channel(1);
        let watcher = path.parent().and_then(|folder| {
            let mut w = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
                // Reading the file (this wait's own looks) is no news.
                if !res.is_ok_and(|e| crate::index::changes_nothing(&e.kind)) {
                    let _ = tx.try_send(());
                }
            })
            .ok()?;
            w.watch(folder, RecursiveMode::NonRecursive).ok()?;
            Some(w)
        });
        Self { watcher, rx }
    }

    fn watching(&self) -> bool {
        self.watcher.is_some()
    }

    /// Until something was written in the folder, or the next look is due (never past
    /// `deadline`).
    async fn changed(&mut self, deadline: Instant) {
        let every = if self.watching() { WATCHED_POLL } else { POLL };
        let until = deadline.min(Instant::now() + every);
        if self.watching() {
            let _ = tokio::time::timeout_at(until, self.rx.recv()).await;
        } else {
            tokio::time::sleep_until(until).await;
        }
    }
}

/// Reads what was appended past `at`, looking for `needle` (also across the previous read's
/// end, kept in `carry`).
async fn scan(
    path: &Path,
    at: &mut u64,
    carry: &mut Vec<u8>,
    needle: &[u8],
) -> std::io::Result<bool> {
    let mut file = tokio::fs::File::open(path).await?;
    let len = file.metadata().await?.len();
    if len < *at {
        // Replaced or truncated: read it again from the start.
        *at = 0;
        carry.clear();
    }
    if len == *at {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(*at)).await?;
    let mut buf = std::mem::take(carry);
    let before = buf.len();
    (&mut file).take(len - *at).read_to_end(&mut buf).await?;
    *at += (buf.len() - before) as u64;
    let found = buf.windows(needle.len()).any(|w| w == needle);
    let keep = needle.len().saturating_sub(1).min(buf.len());
    *carry = buf.split_off(buf.len() - keep);
    Ok(found)
}

/// When a turn's reply did not reach its transcript and the disk holding it is below the
/// floor, the reply was most likely lost to a full disk (`claude` does not say so): the turn
/// is ended as failed, with a notice ahead of its `chat:complete` saying what was not saved.
pub fn unsaved_on_low_disk(
    transcript: &Path,
    floor_bytes: u64,
    session_id: &str,
    events: &mut Vec<ChatEvent>,
) {
    let folder = transcript.parent().unwrap_or(transcript);
    let Some(disk) = crate::disk::space(folder, floor_bytes) else {
        return;
    };
    if disk.free_bytes >= disk.floor_bytes {
        return;
    }
    let message = format!(
        "this turn's reply was not saved: the disk holding {} is full ({} free, below {}), so claude could not write the chat's transcript, and the reply shown here will be missing from `paddock show`; free some space (`df -h {}`), then send your message again (`paddock send -c {session_id} …`)",
        folder.display(),
        crate::disk::human(disk.free_bytes),
        crate::disk::human(disk.floor_bytes),
        folder.display(),
    );
    tracing::error!(session = session_id, "{message}");
    let at = events
        .iter()
        .position(|e| matches!(e, ChatEvent::Complete(_)))
        .unwrap_or(events.len());
    events.insert(
        at,
        ChatEvent::Notice(Notice {
            kind: NoticeKind::Info,
            message,
        }),
    );
    for e in events.iter_mut() {
        if let ChatEvent::Complete(c) = e {
            c.success = false;
            c.error = Some("the turn's reply was not saved: the disk is full".into());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::Write;

    #[tokio::test]
    async fn finds_a_record_written_after_the_wait_began_and_gives_up_at_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, b"{\"uuid\":\"old\"}\n").unwrap();
        let from = offset(&path).await;
        let p = path.clone();
        let writer = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
            // In two writes, the uuid split between them.
            f.write_all(b"{\"type\":\"assistant\",\"uuid\":\"abc-")
                .unwrap();
            f.flush().unwrap();
            tokio::time::sleep(Duration::from_millis(30)).await;
            f.write_all(b"def\"}\n").unwrap();
        });
        assert!(until_written(&path, from, "abc-def", Duration::from_secs(5)).await);
        writer.await.unwrap();
        // Only bytes past `from` count.
        assert!(!until_written(&path, from, "old", Duration::from_millis(30)).await);
        assert!(!until_written(&dir.path().join("none"), 0, "x", Duration::from_millis(30)).await);
    }
}
