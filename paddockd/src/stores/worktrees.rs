//! The chats that work in a git worktree of their own: session id → where the worktree is,
//! its branch, the commit it started from and the branch it came from. Written before the
//! chat's first turn starts, so every later turn (a follow-up, a resume after the process was
//! reaped or the daemon restarted, `continue`, a queued message, a trigger) runs there too.
//! Kept after the chat is deleted when the worktree holds work (an orphan, for `worktree ls
//! --orphans` and `worktree prune`). On disk: `{ "<sessionId>": { "project": …, "path": …,
//! "branch": …, "base": …, "target": …, "ahead": …, "changedFiles": […] } }`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use paddock_proto::ChatWorktree;
use serde::{Deserialize, Serialize};

use super::StoreError;
use super::json_store::JsonStore;

/// A chat's worktree, as paddockd made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeRecord {
    /// The project whose repository it is of.
    pub project: String,
    /// What the chat's listing row carries.
    #[serde(flatten)]
    pub worktree: ChatWorktree,
    /// The project's `worktree_setup` has yet to run there (before the chat's next turn).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub setup_pending: bool,
    /// A change of the repository begun for it and not known to have ended: the next start
    /// finishes it or undoes it (`git/worktrees.rs`, `reconcile`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Pending>,
}

/// A change of a worktree's repository under way, written before it starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Pending {
    /// Its worktree and branch are being made (undone at start: the chat never began).
    Create,
    /// `commit` is being put on `into` (at start: recorded as merged when `into` has it).
    Merge {
        commit: String,
        into: String,
        #[serde(default)]
        squash: bool,
    },
    /// Its worktree and branch are being removed (finished at start).
    Discard,
}

/// The folder chat `sid` works in: its worktree joined with the project's folder below the
/// repository's top. An error says it is gone (removed by hand).
pub fn workdir(sid: &str, record: &WorktreeRecord) -> Result<PathBuf, String> {
    let record = &record.worktree;
    let dir = std::path::Path::new(&record.path).join(&record.prefix);
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(format!(
            "chat {sid} works in the worktree {}, which is gone (removed by hand?); paddockd does not make it again by itself",
            dir.display()
        ))
    }
}

/// Session id → its worktree.
#[derive(Debug, Clone)]
pub struct WorktreeStore {
    store: JsonStore<BTreeMap<String, WorktreeRecord>>,
}

impl WorktreeStore {
    /// Loads `file` (a missing file is empty; a corrupt one is moved aside).
    pub fn open(file: PathBuf) -> Self {
        Self {
            store: JsonStore::open(file),
        }
    }

    pub fn get(&self, sid: &str) -> Option<WorktreeRecord> {
        self.store.snapshot().get(sid).cloned()
    }

    pub fn all(&self) -> Arc<BTreeMap<String, WorktreeRecord>> {
        self.store.snapshot()
    }

    /// Records `sid`'s worktree.
    pub async fn set(&self, sid: &str, record: WorktreeRecord) -> Result<(), StoreError> {
        self.store
            .update(|d| {
                d.edit().insert(sid.to_owned(), record);
            })
            .await
    }

    /// Changes `sid`'s record with `f` (nothing when it has none; nothing is written when
    /// `f` leaves it as it was). Whether it had one.
    pub async fn update(
        &self,
        sid: &str,
        f: impl FnOnce(&mut ChatWorktree),
    ) -> Result<bool, StoreError> {
        self.store
            .update(|d| {
                let Some(old) = d.get().get(sid) else {
                    return false;
                };
                let mut new = old.clone();
                f(&mut new.worktree);
                if new != *old {
                    d.edit().insert(sid.to_owned(), new);
                }
                true
            })
            .await
    }

    /// Sets or clears `sid`'s pending change.
    pub async fn set_pending(&self, sid: &str, pending: Option<Pending>) -> Result<(), StoreError> {
        self.store
            .update(|d| {
                if d.get().get(sid).is_some_and(|r| r.pending != pending)
                    && let Some(r) = d.edit().get_mut(sid)
                {
                    r.pending = pending;
                }
            })
            .await
    }

    /// Marks `sid`'s setup done.
    pub async fn set_up(&self, sid: &str) -> Result<(), StoreError> {
        self.store
            .update(|d| {
                if d.get().get(sid).is_some_and(|r| r.setup_pending)
                    && let Some(r) = d.edit().get_mut(sid)
                {
                    r.setup_pending = false;
                }
            })
            .await
    }

    /// Forgets `sid`'s worktree (after it was removed).
    pub async fn remove(&self, sid: &str) -> Result<(), StoreError> {
        self.store.remove_keys(&[sid.to_owned()]).await.map(drop)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::stores::testutil::check_corrupt_files_are_moved_aside;

    fn record() -> WorktreeRecord {
        WorktreeRecord {
            project: "web".into(),
            worktree: ChatWorktree {
                path: "/data/worktrees/web/0a1b2c3d".into(),
                branch: "paddock/0a1b2c3d".into(),
                base: "3f9a2c1".into(),
                target: "main".into(),
                created_at: Some("2026-12-06T10:00:00Z".into()),
                changed_files: vec!["a.txt".into()],
                ..ChatWorktree::default()
            },
            setup_pending: true,
            pending: None,
        }
    }

    #[tokio::test]
    async fn corrupt_files_are_moved_aside() {
        check_corrupt_files_are_moved_aside(
            "worktrees.json",
            r#"{"s1": 7}"#,
            WorktreeStore::open,
            |s| s.get("s1").is_none(),
            |s| async move { s.set("s1", record()).await },
        )
        .await;
    }

    #[tokio::test]
    async fn a_record_survives_a_reload() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("worktrees.json");
        WorktreeStore::open(file.clone())
            .set("s1", record())
            .await
            .unwrap();
        let store = WorktreeStore::open(file.clone());
        assert_eq!(store.get("s1"), Some(record()));
        assert!(store.update("s1", |w| w.ahead = 2).await.unwrap());
        assert!(!store.update("s2", |w| w.ahead = 2).await.unwrap());
        assert_eq!(
            WorktreeStore::open(file.clone())
                .get("s1")
                .unwrap()
                .worktree
                .ahead,
            2
        );
        store.set_up("s1").await.unwrap();
        assert!(
            !WorktreeStore::open(file.clone())
                .get("s1")
                .unwrap()
                .setup_pending
        );
        store.remove("s1").await.unwrap();
        assert_eq!(WorktreeStore::open(file).get("s1"), None);
    }
}
