//! Crash-safe JSON sidecar stores: the durable state the daemon owns that is not part of
//! a transcript (flags, read-state, provenance, queued messages, bindings, the sweep
//! watermark, first messages claude has not written yet, worktrees, overlaps). Fourteen files
//! in the state folder,
//! one store each:
//!
//! | store | file | keyed by |
//! |---|---|---|
//! | [`Stores::archive`] | `archive-state.json` | session id |
//! | [`Stores::star`] | `star-state.json` | session id |
//! | [`Stores::parent_detach`] | `parent-detach.json` | session id |
//! | [`Stores::read_state`] | `read-state.json` | user, session id |
//! | [`Stores::unread`] | `unread-state.json` | user, session id |
//! | [`Stores::run_provenance`] | `run-provenance.json` | session id |
//! | [`Stores::message_provenance`] | `message-provenance.json` | session id |
//! | [`Stores::queued`] | `queued-message.json` | session id |
//! | [`Stores::first_message`] | `first-message.json` | session id |
//! | [`Stores::schedule_sessions`] | `schedule-sessions.json` | project `\0` schedule |
//! | [`Stores::trigger_sessions`] | `trigger-sessions.json` | project `\0` trigger |
//! | [`Stores::sweep`] | `sweep-state.json` | project slug ("" = root workspace) |
//! | [`Stores::worktrees`] | `worktrees.json` | session id (kept after the chat is deleted) |
//! | [`Stores::overlaps`] | `overlaps.json` | session id (replaced per project) |
//!
//! # The pattern (`json_store.rs`)
//!
//! Each store is the whole file held in memory as an immutable snapshot (`Arc<T>`).
//! Reads clone the `Arc` and never wait for IO. Mutations of one store are serialized;
//! each builds the next state, writes the whole file, and only then publishes it. A
//! mutation returns once its change is on disk (acknowledged = durable), and one whose
//! write failed returns the error and leaves the in-memory state as it was.
//!
//! # Why a crash cannot tear a file
//!
//! Every write goes through [`crate::fsutil::write_atomic`]: the new contents go to a
//! temp file in the same folder, which is fsynced; a `rename` swaps it over the old file
//! in one atomic step; the folder is fsynced so the swap survives power loss. A SIGKILL at
//! any instant therefore leaves either the old file or the new one, never a mix. A temp
//! file orphaned by such a kill is removed the next time the store opens.
//!
//! # Corrupt files
//!
//! A missing file is an empty store. A file that is not valid JSON of the expected shape
//! (or cannot be read) is moved aside as `NAME.corrupt-<UTC time>`, e.g.
//! `read-state.json.corrupt-20261129T235959Z`, with a warning, and the store starts
//! empty: the daemon keeps working and the bytes are kept for a human to look at, never
//! silently overwritten.
//!
//! Files are 0600 in a 0700 folder. Per-chat stores are keyed by session id alone;
//! [`Stores::forget`] clears a deleted chat everywhere so a future id cannot inherit it.

mod bindings;
mod error;
mod first_message;
mod flags;
mod json_store;
mod message_provenance;
mod overlaps;
mod per_user;
mod queued;
mod read_state;
mod run_provenance;
mod sweep;
#[cfg(test)]
mod testutil;
mod unread;
mod worktrees;

use std::path::Path;

pub use bindings::{SessionBindingStore, binding_key};
pub use error::StoreError;
pub use first_message::{FirstMessage, FirstMessageStore};
pub use flags::FlagStore;
pub use message_provenance::{Injection, MessageProvenanceStore};
pub use overlaps::{OverlapState, OverlapStore};
pub use queued::{QueuedMessage, QueuedMessageStore};
pub use read_state::ReadStateStore;
pub use run_provenance::{RunProvenance, RunProvenanceStore};
pub use sweep::{SweepState, SweepStateStore};
pub use unread::UnreadStore;
pub use worktrees::{Pending, WorktreeRecord, WorktreeStore, workdir};

/// Every sidecar store of one state folder. Cheap to clone (handles).
#[derive(Debug, Clone)]
pub struct Stores {
    /// Archived chats.
    pub archive: FlagStore,
    /// Starred chats.
    pub star: FlagStore,
    /// Chats explicitly detached from their parent (checked before any parent edge).
    pub parent_detach: FlagStore,
    pub read_state: ReadStateStore,
    /// Manual "mark as unread", layered on `read_state`.
    pub unread: UnreadStore,
    pub run_provenance: RunProvenanceStore,
    pub message_provenance: MessageProvenanceStore,
    pub queued: QueuedMessageStore,
    /// A new chat's first message, until claude has written it.
    pub first_message: FirstMessageStore,
    /// `"<project>\0<schedule>"` → the chat a resuming schedule fires into.
    pub schedule_sessions: SessionBindingStore,
    /// `"<project>\0<trigger>"` → the chat a resuming trigger fires into.
    pub trigger_sessions: SessionBindingStore,
    pub sweep: SweepStateStore,
    /// Chats that work in a git worktree of their own.
    pub worktrees: WorktreeStore,
    /// Worktrees made ahead for a project's next new chat (`git/spare.rs`): no chat's yet,
    /// so never listed, pruned or merged; removed at start.
    pub spare_worktrees: WorktreeStore,
    /// Chats of a project that changed the same files.
    pub overlaps: OverlapStore,
}

impl Stores {
    /// Creates `state_dir` (0700) if needed and loads every store. Missing or corrupt
    /// files do not fail (see the module docs); only failing to create the folder does.
    pub fn open(state_dir: &Path) -> Result<Stores, StoreError> {
        crate::fsutil::create_private_dir(state_dir).map_err(|source| StoreError::CreateDir {
            path: state_dir.to_path_buf(),
            source,
        })?;
        let file = |name: &str| state_dir.join(name);
        Ok(Stores {
            archive: FlagStore::open(file("archive-state.json")),
            star: FlagStore::open(file("star-state.json")),
            parent_detach: FlagStore::open(file("parent-detach.json")),
            read_state: ReadStateStore::open(file("read-state.json")),
            unread: UnreadStore::open(file("unread-state.json")),
            run_provenance: RunProvenanceStore::open(file("run-provenance.json")),
            message_provenance: MessageProvenanceStore::open(file("message-provenance.json")),
            queued: QueuedMessageStore::open(file("queued-message.json")),
            first_message: FirstMessageStore::open(file("first-message.json")),
            schedule_sessions: SessionBindingStore::open(file("schedule-sessions.json")),
            trigger_sessions: SessionBindingStore::open(file("trigger-sessions.json")),
            sweep: SweepStateStore::open(file("sweep-state.json")),
            worktrees: WorktreeStore::open(file("worktrees.json")),
            spare_worktrees: WorktreeStore::open(file("spare-worktrees.json")),
            overlaps: OverlapStore::open(file("overlaps.json")),
        })
    }

    /// `user` saw `session_ids` at `at_ms`: read-state advances (never back) and any
    /// manual unread flag on them is cleared.
    ///
    /// Two files, read-state first: if clearing the flag fails the call errors with the
    /// chats already marked seen but still flagged, and retrying is harmless.
    pub async fn mark_seen(
        &self,
        user: &str,
        session_ids: &[String],
        at_ms: i64,
    ) -> Result<(), StoreError> {
        self.read_state.advance(user, session_ids, at_ms).await?;
        self.unread.set(user, session_ids, false).await?;
        Ok(())
    }

    /// Chats moved to project `to` (`chat:promote`): their children's markers and the messages
    /// they sent name `to`; schedules and hooks of the project they left no longer continue
    /// them. Idempotent: asked again after a crash, it changes only what was left.
    pub async fn moved(&self, session_ids: &[String], to: &str) -> Result<(), StoreError> {
        if session_ids.is_empty() {
            return Ok(());
        }
        tokio::try_join!(
            self.run_provenance.moved(session_ids, to),
            self.message_provenance.moved(session_ids, to),
            self.schedule_sessions.forget(session_ids),
            self.trigger_sessions.forget(session_ids),
        )?;
        Ok(())
    }

    /// Removes `session_ids` from every per-chat store (the chats were deleted), so a
    /// future chat can never inherit their flags, provenance or bindings. The sweep
    /// watermark is per project and is left alone. Injections other chats received
    /// *from* these chats are history and stay.
    pub async fn forget(&self, session_ids: &[String]) -> Result<(), StoreError> {
        if session_ids.is_empty() {
            return Ok(());
        }
        // Different files, so the writes can run side by side. Each store's commit runs
        // to its end even if a sibling fails first and this future is dropped.
        tokio::try_join!(
            self.archive.forget(session_ids),
            self.star.forget(session_ids),
            self.parent_detach.forget(session_ids),
            self.read_state.forget(session_ids),
            self.unread.forget(session_ids),
            self.run_provenance.forget(session_ids),
            self.message_provenance.forget(session_ids),
            self.queued.forget(session_ids),
            self.first_message.forget(session_ids),
            self.schedule_sessions.forget(session_ids),
            self.trigger_sessions.forget(session_ids),
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::os::unix::fs::PermissionsExt;

    use paddock_proto::{Attribution, Origin};

    use super::testutil::{asides, assert_clean_dir, assert_private, ids};
    use super::*;

    const FILES: [&str; 12] = [
        "archive-state.json",
        "star-state.json",
        "parent-detach.json",
        "read-state.json",
        "unread-state.json",
        "run-provenance.json",
        "message-provenance.json",
        "queued-message.json",
        "first-message.json",
        "schedule-sessions.json",
        "trigger-sessions.json",
        "sweep-state.json",
    ];

    /// Puts `sid` in every per-chat store, and a sweep watermark for the root workspace.
    async fn fill(stores: &Stores, sid: &str) {
        let sids = [sid.to_owned()];
        stores.archive.set(&sids, true).await.unwrap();
        stores.star.set(&sids, true).await.unwrap();
        stores.parent_detach.set(&sids, true).await.unwrap();
        stores.read_state.advance("alice", &sids, 1).await.unwrap();
        stores.unread.set("alice", &sids, true).await.unwrap();
        let p = RunProvenance::root(Origin::Human);
        stores.run_provenance.stamp(sid, p).await.unwrap();
        let inj = Injection {
            text: "hi".into(),
            source: Attribution::Recovery,
            at: "2026-01-02T03:04:05Z".into(),
            message_id: None,
        };
        stores.message_provenance.record(sid, inj).await.unwrap();
        stores.queued.set(sid, Some("next".into())).await.unwrap();
        let first = FirstMessage {
            project_slug: String::new(),
            message: "hi".into(),
            model: None,
            origin: Origin::Human,
            attribution: None,
            trigger: None,
            set_at: "2026-01-02T03:04:05Z".into(),
        };
        stores.first_message.set(sid, first).await.unwrap();
        let key = binding_key("", &format!("for-{sid}"));
        stores.schedule_sessions.bind(&key, sid).await.unwrap();
        stores.trigger_sessions.bind(&key, sid).await.unwrap();
        let watermark = SweepState {
            last_swept_mtime_ms: 1,
            last_swept_at: "2026-01-02T03:04:05Z".into(),
            last_error: None,
        };
        stores.sweep.set("", watermark).await.unwrap();
    }

    fn holds(stores: &Stores, sid: &str) -> Vec<&'static str> {
        let key = binding_key("", &format!("for-{sid}"));
        [
            ("archive", stores.archive.contains(sid)),
            ("star", stores.star.contains(sid)),
            ("parent_detach", stores.parent_detach.contains(sid)),
            (
                "read_state",
                stores.read_state.last_seen("alice", sid).is_some(),
            ),
            ("unread", stores.unread.is_unread("alice", sid)),
            ("run_provenance", stores.run_provenance.get(sid).is_some()),
            (
                "message_provenance",
                !stores.message_provenance.list(sid).is_empty(),
            ),
            ("queued", stores.queued.get(sid).is_some()),
            ("first_message", stores.first_message.get(sid).is_some()),
            (
                "schedule_sessions",
                stores.schedule_sessions.get(&key).is_some(),
            ),
            (
                "trigger_sessions",
                stores.trigger_sessions.get(&key).is_some(),
            ),
        ]
        .into_iter()
        .filter_map(|(name, held)| held.then_some(name))
        .collect()
    }

    #[tokio::test]
    async fn open_creates_a_private_folder_and_every_file_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("deep").join("state");
        let stores = Stores::open(&state).unwrap();
        let mode = std::fs::metadata(&state).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        fill(&stores, "s1").await;
        for name in FILES {
            assert_private(&state.join(name));
        }
        assert_eq!(std::fs::read_dir(&state).unwrap().count(), FILES.len());
        assert_clean_dir(&state);
    }

    #[tokio::test]
    async fn open_fails_only_when_the_folder_cannot_be_made() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, b"").unwrap();
        let err = Stores::open(&blocker.join("state")).unwrap_err();
        assert!(matches!(err, StoreError::CreateDir { .. }), "{err}");
        assert!(err.to_string().contains("state"), "{err}");
    }

    #[tokio::test]
    async fn every_corrupt_file_is_moved_aside_and_the_rest_load() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        fill(&Stores::open(&state).unwrap(), "s1").await;
        std::fs::write(state.join("star-state.json"), b"{\"half").unwrap();
        std::fs::write(state.join("queued-message.json"), b"[]").unwrap();
        let stores = Stores::open(&state).unwrap();
        assert_eq!(
            holds(&stores, "s1"),
            [
                "archive",
                "parent_detach",
                "read_state",
                "unread",
                "run_provenance",
                "message_provenance",
                "first_message",
                "schedule_sessions",
                "trigger_sessions"
            ]
        );
        assert_eq!(asides(&state, "star-state.json").len(), 1);
        assert_eq!(asides(&state, "queued-message.json").len(), 1);
    }

    #[tokio::test]
    async fn mark_seen_advances_read_state_and_clears_manual_unread() {
        let dir = tempfile::tempdir().unwrap();
        let stores = Stores::open(dir.path()).unwrap();
        stores
            .read_state
            .advance("alice", &ids(["s1"]), 100)
            .await
            .unwrap();
        stores
            .unread
            .set("alice", &ids(["s1", "s2"]), true)
            .await
            .unwrap();
        stores.unread.set("bob", &ids(["s1"]), true).await.unwrap();

        stores.mark_seen("alice", &ids(["s1"]), 50).await.unwrap();
        assert_eq!(
            stores.read_state.last_seen("alice", "s1"),
            Some(100),
            "never back"
        );
        assert!(
            !stores.unread.is_unread("alice", "s1"),
            "cleared even by an older time"
        );
        assert!(stores.unread.is_unread("alice", "s2"));
        assert!(
            stores.unread.is_unread("bob", "s1"),
            "another user's flag stays"
        );

        stores.mark_seen("alice", &ids(["s2"]), 200).await.unwrap();
        let again = Stores::open(dir.path()).unwrap();
        assert_eq!(again.read_state.last_seen("alice", "s2"), Some(200));
        assert!(again.unread.for_user("alice").is_empty());
    }

    #[tokio::test]
    async fn forget_removes_a_chat_from_every_store() {
        let dir = tempfile::tempdir().unwrap();
        let stores = Stores::open(dir.path()).unwrap();
        fill(&stores, "gone").await;
        fill(&stores, "kept").await;
        assert_eq!(holds(&stores, "gone").len(), 11);

        stores.forget(&ids(["gone"])).await.unwrap();
        assert!(
            holds(&stores, "gone").is_empty(),
            "{:?}",
            holds(&stores, "gone")
        );
        assert_eq!(holds(&stores, "kept").len(), 11);
        assert!(
            stores.sweep.get("").is_some(),
            "the watermark is per project"
        );

        let again = Stores::open(dir.path()).unwrap();
        assert!(holds(&again, "gone").is_empty());
        assert_eq!(holds(&again, "kept").len(), 11);
        assert_clean_dir(dir.path());
    }
}
