//! What a turn streamed, kept until the transcript has it.
//!
//! The CLI writes an assistant message to the transcript only once the message is whole
//! (docs/claude-cli.md §15), so a daemon killed mid-reply (or stopped, or a claude that
//! crashed) leaves the streamed words nowhere but in the screens of the clients that were
//! attached. This keeps them: each text delta of a prompted turn is appended, as it is sent
//! to the clients, to `state/streamed/<sessionId>/<messageId>.jsonl`, named after the id the
//! daemon gave the turn's message (which the CLI uses as its record's uuid). A turn that
//! completes removes its file; a turn cut short keeps it, and the chat's transcript
//! (`chat:transcript`, so `paddock show` and a client that opens the chat later) shows what
//! had streamed after that message, marked as cut short ([`merge`]).
//!
//! Lines: `{"text":"…"}` for a delta, `{"boundary":true}` where one assistant message ends
//! and the next begins. A torn last line (the daemon killed mid-write) is skipped.
//!
//! **Queue**: one writer thread appends; the runner hands it deltas through a bounded queue of
//! [`QUEUE`] entries and never waits. When the queue is full the delta is not kept (the
//! clients still get it) and the loss is logged; what the file then holds is still shown.
//!
//! **Gathering**: after writing, the writer lets deltas gather for [`GATHER`] before it writes
//! again, one write per turn's file for all that came meanwhile: a hundred chats streaming
//! cost a few hundred writes a second, not one write (and one wake-up of the writer) per
//! delta. A daemon killed loses at most that long of a reply's text.

use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use paddock_proto::TranscriptEntry;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

/// Deltas waiting for the writer before more are dropped from the kept copy (a hundred chats
/// streaming queue about a thousand in one [`GATHER`]).
pub const QUEUE: usize = 8192;

/// How long deltas gather between two writes of the writer.
pub const GATHER: std::time::Duration = std::time::Duration::from_millis(50);

/// How long reading the kept text waits for the writer to write what it gathered.
const SYNC_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

/// What closes the text that was kept of a reply cut short.
pub const CUT_SHORT: &str = "cut short: the rest of this reply was never written";

#[derive(Debug)]
enum Msg {
    Text {
        sid: String,
        message_id: String,
        text: String,
    },
    Boundary {
        sid: String,
        message_id: String,
    },
    /// The turn is over: its file goes, unless it was cut short.
    Done {
        sid: String,
        message_id: String,
        keep: bool,
    },
    /// The chats were deleted.
    Forget(Vec<String>),
    /// Write what was gathered, then answer.
    Sync(std::sync::mpsc::SyncSender<()>),
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Line {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    boundary: bool,
}

/// The handle the runner writes through and `chat:transcript` reads through.
#[derive(Debug, Clone)]
pub struct Streamed {
    dir: PathBuf,
    tx: mpsc::Sender<Msg>,
    /// Turns streaming now (message ids): their text is the live turn's, not a kept one.
    open: Arc<Mutex<HashSet<String>>>,
    /// The writer thread, woken from its gathering by [`Streamed::sync`].
    writer: Option<std::thread::Thread>,
}

/// The text one turn had streamed when it was cut short.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// The id of the turn's user message (its transcript record's uuid).
    pub message_id: String,
    /// The turn's assistant messages, in order.
    pub messages: Vec<String>,
}

impl Streamed {
    /// Starts the writer thread, keeping files under `dir`.
    pub fn start(dir: PathBuf) -> Self {
        Self::start_gathering(dir, GATHER)
    }

    /// Starts the writer thread, writing at most once per `gather`.
    fn start_gathering(dir: PathBuf, gather: std::time::Duration) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE);
        let writer = Writer {
            dir: dir.clone(),
            files: HashMap::new(),
            gather,
        };
        let spawned = std::thread::Builder::new()
            .name("streamed-writer".into())
            .spawn(move || writer.run(rx));
        let writer = match spawned {
            Ok(handle) => Some(handle.thread().clone()),
            Err(e) => {
                tracing::warn!(
                    "cannot start the writer of streamed text, so a reply cut short keeps only what the transcript has: {e}"
                );
                None
            }
        };
        Self {
            dir,
            tx,
            open: Arc::new(Mutex::new(HashSet::new())),
            writer,
        }
    }

    /// Waits (blocking, at most `timeout`) until what was handed to the writer is written:
    /// before the kept text is read, and at the daemon's stop. Whether it was.
    pub fn sync(&self, timeout: std::time::Duration) -> bool {
        let Some(writer) = &self.writer else {
            return false;
        };
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        if self.tx.try_send(Msg::Sync(tx)).is_err() {
            return false;
        }
        writer.unpark();
        rx.recv_timeout(timeout).is_ok()
    }

    fn send(&self, msg: Msg) {
        match self.tx.try_send(msg) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(m)) => {
                tracing::warn!(
                    "the writer of streamed text is {QUEUE} behind; not kept: {:.60?}",
                    m
                );
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {}
        }
    }

    fn open_set(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A prompted turn starts streaming its reply to `message_id`.
    pub fn begin(&self, message_id: &str) {
        self.open_set().insert(message_id.to_owned());
    }

    /// A text delta of the turn's reply.
    pub fn text(&self, sid: &str, message_id: &str, text: &str) {
        if text.is_empty() {
            return;
        }
        self.send(Msg::Text {
            sid: sid.to_owned(),
            message_id: message_id.to_owned(),
            text: text.to_owned(),
        });
    }

    /// One assistant message of the turn ended.
    pub fn boundary(&self, sid: &str, message_id: &str) {
        self.send(Msg::Boundary {
            sid: sid.to_owned(),
            message_id: message_id.to_owned(),
        });
    }

    /// The turn ended: `cut_short` keeps what it streamed.
    pub fn done(&self, sid: &str, message_id: &str, cut_short: bool) {
        self.open_set().remove(message_id);
        self.send(Msg::Done {
            sid: sid.to_owned(),
            message_id: message_id.to_owned(),
            keep: cut_short,
        });
    }

    /// The chats were deleted: what was kept of them goes.
    pub fn forget(&self, sids: &[String]) {
        if !sids.is_empty() {
            self.send(Msg::Forget(sids.to_vec()));
        }
    }

    /// What was kept of `sid`'s turns cut short (not of a turn streaming now). Blocking: it
    /// first lets the writer write what it gathered.
    pub fn kept(&self, sid: &str) -> Vec<Kept> {
        let dir = self.dir.join(sid);
        // A chat with no folder has nothing kept (the writer makes the folder with the first
        // text it is handed): most chats, read without waiting on the writer.
        if !dir.is_dir() {
            return Vec::new();
        }
        self.sync(SYNC_TIMEOUT);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        let open = self.open_set().clone();
        let mut kept: Vec<(std::time::SystemTime, Kept)> = entries
            .flatten()
            .filter_map(|e| {
                let path = e.path();
                let message_id = path.file_stem()?.to_str()?.to_owned();
                if path.extension()? != "jsonl" || open.contains(&message_id) {
                    return None;
                }
                let modified = e.metadata().and_then(|m| m.modified()).ok()?;
                let messages = read_messages(&path)?;
                Some((
                    modified,
                    Kept {
                        message_id,
                        messages,
                    },
                ))
            })
            .collect();
        kept.sort_by_key(|(modified, _)| *modified);
        kept.into_iter().map(|(_, k)| k).collect()
    }
}

/// A kept file's messages (empty ones left out); `None` when it cannot be read.
fn read_messages(path: &Path) -> Option<Vec<String>> {
    let bytes = std::fs::read(path).ok()?;
    let mut messages = vec![String::new()];
    for line in bytes.split(|b| *b == b'\n') {
        let Ok(l) = serde_json::from_slice::<Line>(line) else {
            continue;
        };
        if let Some(text) = l.text
            && let Some(last) = messages.last_mut()
        {
            last.push_str(&text);
        }
        if l.boundary {
            messages.push(String::new());
        }
    }
    messages.retain(|m| !m.trim().is_empty());
    Some(messages)
}

/// The writer thread: appends deltas to their turn's file, kept open while the turn streams.
struct Writer {
    dir: PathBuf,
    files: HashMap<String, Open>,
    /// How long deltas gather between writes ([`GATHER`]).
    gather: std::time::Duration,
}

/// A turn's file and the lines gathered for it since the last write.
struct Open {
    file: std::fs::File,
    pending: Vec<u8>,
}

impl Open {
    /// Writes the lines gathered (they are gone from `pending` either way).
    fn write_pending(&mut self) -> std::io::Result<()> {
        let written = self.file.write_all(&self.pending);
        self.pending.clear();
        written
    }
}

impl Writer {
    fn run(mut self, mut rx: mpsc::Receiver<Msg>) {
        while let Some(msg) = rx.blocking_recv() {
            self.handle_logged(msg);
            loop {
                while let Ok(msg) = rx.try_recv() {
                    self.handle_logged(msg);
                }
                if !self.write_pending() {
                    break;
                }
                // What comes meanwhile is written together, without waking this thread
                // (unless someone waits for it: `Streamed::sync` unparks it).
                std::thread::park_timeout(self.gather);
            }
        }
        self.write_pending();
    }

    fn handle_logged(&mut self, msg: Msg) {
        if let Err(e) = self.handle(msg) {
            tracing::warn!("cannot keep a turn's streamed text: {e}");
        }
    }

    /// Writes what was gathered for each file; whether there was anything.
    fn write_pending(&mut self) -> bool {
        let mut wrote = false;
        for (message_id, open) in &mut self.files {
            if open.pending.is_empty() {
                continue;
            }
            wrote = true;
            if let Err(e) = open.write_pending() {
                tracing::warn!(message_id, "cannot keep a turn's streamed text: {e}");
            }
        }
        wrote
    }

    fn handle(&mut self, msg: Msg) -> std::io::Result<()> {
        match msg {
            Msg::Text {
                sid,
                message_id,
                text,
            } => self.append(
                &sid,
                &message_id,
                &Line {
                    text: Some(text),
                    boundary: false,
                },
            ),
            Msg::Boundary { sid, message_id } => {
                if !self.files.contains_key(&message_id) {
                    return Ok(());
                }
                self.append(
                    &sid,
                    &message_id,
                    &Line {
                        text: None,
                        boundary: true,
                    },
                )
            }
            Msg::Done {
                sid,
                message_id,
                keep,
            } => {
                let open = self.files.remove(&message_id);
                if keep {
                    if let Some(mut open) = open {
                        open.write_pending()?;
                    }
                    return Ok(());
                }
                let dir = self.dir.join(&sid);
                match std::fs::remove_file(dir.join(format!("{message_id}.jsonl"))) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
                // The folder goes with its last file (not when others are kept).
                let _ = std::fs::remove_dir(&dir);
                Ok(())
            }
            Msg::Sync(answer) => {
                self.write_pending();
                let _ = answer.try_send(());
                Ok(())
            }
            Msg::Forget(sids) => {
                for sid in sids {
                    match std::fs::remove_dir_all(self.dir.join(&sid)) {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                        _ => {}
                    }
                }
                Ok(())
            }
        }
    }

    fn append(&mut self, sid: &str, message_id: &str, line: &Line) -> std::io::Result<()> {
        let open = match self.files.entry(message_id.to_owned()) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let dir = self.dir.join(sid);
                crate::fsutil::create_private_dir(&self.dir)?;
                crate::fsutil::create_private_dir(&dir)?;
                let f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .mode(0o600)
                    .open(dir.join(format!("{message_id}.jsonl")))?;
                v.insert(Open {
                    file: f,
                    pending: Vec::new(),
                })
            }
        };
        serde_json::to_writer(&mut open.pending, line).map_err(std::io::Error::other)?;
        open.pending.push(b'\n');
        Ok(())
    }
}

/// Puts what was kept of each turn cut short into its place in the transcript: after the
/// turn's message and what the transcript has of its reply, where the CLI's "no reply"
/// placeholder stands if it wrote one, then a line saying the reply was cut short. A message
/// the transcript has whole (the kept text is all of it, or the start of it) is not repeated.
/// A turn whose message the transcript lacks (the chat's first, never written) goes last.
pub fn merge(entries: &mut Vec<TranscriptEntry>, kept: Vec<Kept>) {
    for k in kept {
        let at = entries.iter().position(
            |e| matches!(e, TranscriptEntry::User { uuid: Some(u), .. } if *u == k.message_id),
        );
        let (start, end) = match at {
            Some(i) => {
                let end = entries[i + 1..]
                    .iter()
                    .position(|e| matches!(e, TranscriptEntry::User { .. }))
                    .map_or(entries.len(), |n| i + 1 + n);
                (i + 1, end)
            }
            None => (entries.len(), entries.len()),
        };
        let span = &entries[start..end];
        let written: Vec<&str> = span
            .iter()
            .filter_map(|e| match e {
                TranscriptEntry::Assistant { text, .. } => Some(text.trim()),
                _ => None,
            })
            .collect();
        let missing: Vec<String> = k
            .messages
            .into_iter()
            .filter(|m| !written.iter().any(|w| w.starts_with(m.trim())))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let placeholder = span.iter().position(|e| {
            matches!(e, TranscriptEntry::Interrupted { text } if text == crate::transcripts::NO_REPLY)
        });
        let mut insert: Vec<TranscriptEntry> = missing
            .into_iter()
            .map(|text| TranscriptEntry::Assistant {
                uuid: None,
                timestamp: None,
                text,
                model: None,
            })
            .collect();
        insert.push(TranscriptEntry::Interrupted {
            text: CUT_SHORT.to_owned(),
        });
        match placeholder {
            Some(p) => {
                entries.splice(start + p..=start + p, insert);
            }
            None => {
                entries.splice(end..end, insert);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn user(uuid: &str, text: &str) -> TranscriptEntry {
        TranscriptEntry::User {
            uuid: Some(uuid.into()),
            timestamp: None,
            text: text.into(),
            attribution: None,
        }
    }

    fn said(text: &str) -> TranscriptEntry {
        TranscriptEntry::Assistant {
            uuid: None,
            timestamp: None,
            text: text.into(),
            model: None,
        }
    }

    fn kept(id: &str, messages: &[&str]) -> Kept {
        Kept {
            message_id: id.into(),
            messages: messages.iter().map(|m| (*m).to_owned()).collect(),
        }
    }

    fn cut() -> TranscriptEntry {
        TranscriptEntry::Interrupted {
            text: CUT_SHORT.into(),
        }
    }

    #[test]
    fn a_reply_cut_short_goes_after_its_message_and_what_was_written_of_it() {
        let mut entries = vec![
            user("m1", "count"),
            said("first message, written"),
            TranscriptEntry::Interrupted {
                text: crate::transcripts::NO_REPLY.into(),
            },
            user("m2", "go on"),
            said("done"),
        ];
        merge(
            &mut entries,
            vec![kept("m1", &["first message, written", "tick1 tick2"])],
        );
        assert_eq!(
            entries,
            vec![
                user("m1", "count"),
                said("first message, written"),
                said("tick1 tick2"),
                cut(),
                user("m2", "go on"),
                said("done"),
            ]
        );
    }

    #[test]
    fn without_a_placeholder_it_closes_the_turn_and_a_whole_reply_is_not_repeated() {
        let mut entries = vec![user("m1", "count"), said("tick1 tick2 tick3")];
        merge(&mut entries, vec![kept("m1", &["tick1 tick2"])]);
        assert_eq!(
            entries,
            vec![user("m1", "count"), said("tick1 tick2 tick3")]
        );
        merge(&mut entries, vec![kept("m9", &["never written"])]);
        assert_eq!(entries[2], said("never written"));
        assert_eq!(entries[3], cut());
        let mut entries = vec![user("m1", "count"), user("m2", "again")];
        merge(&mut entries, vec![kept("m1", &["tick1"])]);
        assert_eq!(
            entries,
            vec![
                user("m1", "count"),
                said("tick1"),
                cut(),
                user("m2", "again")
            ]
        );
    }

    fn wait_for(mut f: impl FnMut() -> bool) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !f() {
            assert!(std::time::Instant::now() < deadline, "timed out");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    #[test]
    fn a_completed_turn_leaves_nothing_and_one_cut_short_keeps_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let s = Streamed::start(dir.path().join("streamed"));
        s.begin("m1");
        s.text("s1", "m1", "tick1 ");
        s.text("s1", "m1", "tick2");
        s.boundary("s1", "m1");
        s.text("s1", "m1", "next");
        wait_for(|| {
            read_messages(&dir.path().join("streamed/s1/m1.jsonl")).is_some_and(|m| m.len() == 2)
        });
        assert!(s.kept("s1").is_empty(), "a turn streaming now is not kept");
        s.done("s1", "m1", true);
        assert_eq!(s.kept("s1"), vec![kept("m1", &["tick1 tick2", "next"])]);

        s.begin("m2");
        s.text("s1", "m2", "all of it");
        s.done("s1", "m2", false);
        s.forget(&[]);
        wait_for(|| !dir.path().join("streamed/s1/m2.jsonl").exists());
        assert_eq!(s.kept("s1").len(), 1);
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(dir.path().join("streamed/s1/m1.jsonl"))
                .unwrap()
                .permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        s.forget(&["s1".to_owned()]);
        wait_for(|| !dir.path().join("streamed/s1").exists());
    }

    /// Deltas that come while the writer gathers wait for its next write, but whoever reads
    /// the kept text (or stops the daemon) has them written at once.
    #[test]
    fn gathered_deltas_are_written_when_the_kept_text_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let s = Streamed::start_gathering(
            dir.path().join("streamed"),
            std::time::Duration::from_secs(3600),
        );
        let file = dir.path().join("streamed/s1/m1.jsonl");
        s.begin("m1");
        s.text("s1", "m1", "tick1 ");
        // The first is written at once; the writer then gathers for an hour.
        wait_for(|| read_messages(&file).is_some_and(|m| m.len() == 1));
        s.text("s1", "m1", "tick2 ");
        s.text("s1", "m1", "tick3");
        assert!(
            s.sync(std::time::Duration::from_secs(20)),
            "the writer answers"
        );
        assert_eq!(
            read_messages(&file),
            Some(vec!["tick1 tick2 tick3".to_owned()])
        );
        s.text("s1", "m1", " tick4");
        s.done("s1", "m1", true);
        assert_eq!(s.kept("s1"), vec![kept("m1", &["tick1 tick2 tick3 tick4"])]);
    }

    #[test]
    fn a_torn_last_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.jsonl");
        std::fs::write(&p, "{\"text\":\"tick1\"}\n{\"text\":\"ti").unwrap();
        assert_eq!(read_messages(&p), Some(vec!["tick1".to_owned()]));
    }
}
