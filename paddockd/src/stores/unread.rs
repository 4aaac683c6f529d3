//! A user's manual "mark as unread", layered on top of read-state.
//!
//! Read-state only advances, so "show this chat as unread again" cannot be said by moving
//! it back; it is this separate per-user flag instead, cleared whenever the chat is marked
//! seen (`Stores::mark_seen`). Only flagged chats are kept. On disk:
//! `{ "<user>": ["<sessionId>", …] }`.

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use super::StoreError;
use super::json_store::JsonStore;
use super::per_user::PerUser;

type Marked = HashSet<String>;

/// Per user, the chats manually marked unread.
#[derive(Debug, Clone)]
pub struct UnreadStore {
    store: JsonStore<PerUser<Marked>>,
}

impl UnreadStore {
    /// Loads `file` (a missing file is empty; a corrupt one is moved aside).
    pub fn open(file: PathBuf) -> Self {
        Self {
            store: JsonStore::open(file),
        }
    }

    pub fn is_unread(&self, user: &str, sid: &str) -> bool {
        self.store
            .snapshot()
            .get(user)
            .is_some_and(|marked| marked.contains(sid))
    }

    /// The chats `user` marked unread: a shared snapshot.
    pub fn for_user(&self, user: &str) -> Arc<HashSet<String>> {
        self.store.snapshot().snapshot(user)
    }

    /// Marks `sids` unread (`on`) or not for `user`, in one write. Returns how many
    /// changed; writes nothing when none did.
    pub async fn set(&self, user: &str, sids: &[String], on: bool) -> Result<usize, StoreError> {
        self.store
            .update(|d| {
                let now = d.get().get(user);
                let changing: BTreeSet<&str> = sids
                    .iter()
                    .map(String::as_str)
                    .filter(|sid| now.is_some_and(|m| m.contains(*sid)) != on)
                    .collect();
                if changing.is_empty() {
                    return 0;
                }
                let all = d.edit();
                let marked = all.edit(user);
                for sid in &changing {
                    if on {
                        marked.insert((*sid).to_owned());
                    } else {
                        marked.remove(*sid);
                    }
                }
                all.prune(user, HashSet::is_empty);
                changing.len()
            })
            .await
    }

    /// Drops `sids` for every user (the chats were deleted). Returns how many flags went.
    pub async fn forget(&self, sids: &[String]) -> Result<usize, StoreError> {
        self.store
            .update(|d| {
                let users = d
                    .get()
                    .users_where(|marked| sids.iter().any(|sid| marked.contains(sid)));
                let mut removed = 0;
                for user in users {
                    let all = d.edit();
                    let marked = all.edit(&user);
                    removed += sids.iter().filter(|sid| marked.remove(*sid)).count();
                    all.prune(&user, HashSet::is_empty);
                }
                removed
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::stores::testutil::{
        assert_clean_dir, assert_private, check_corrupt_files_are_moved_aside, ids,
    };

    #[tokio::test]
    async fn corrupt_files_are_moved_aside() {
        check_corrupt_files_are_moved_aside(
            "unread-state.json",
            r#"["alice", "s1"]"#,
            UnreadStore::open,
            |s| s.for_user("alice").is_empty(),
            |s| async move { s.set("alice", &ids(["s1"]), true).await.map(drop) },
        )
        .await;
    }

    #[tokio::test]
    async fn set_is_per_user_and_counts_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("unread-state.json");
        let unread = UnreadStore::open(path.clone());
        assert_eq!(
            unread.set("alice", &ids(["s1", "s2"]), true).await.unwrap(),
            2
        );
        assert_eq!(unread.set("alice", &ids(["s1"]), true).await.unwrap(), 0);
        assert!(unread.is_unread("alice", "s1"));
        assert!(!unread.is_unread("bob", "s1"));
        assert_eq!(
            unread
                .set("alice", &ids(["s1", "s2"]), false)
                .await
                .unwrap(),
            2
        );
        assert!(unread.for_user("alice").is_empty());
        assert_private(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("alice"),
            "an emptied user stays in the file: {text}"
        );
        assert_clean_dir(dir.path());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_sets_all_land() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("unread-state.json");
        let unread = UnreadStore::open(path.clone());
        let tasks: Vec<_> = (0..50)
            .map(|i| {
                let unread = unread.clone();
                tokio::spawn(async move { unread.set("alice", &[format!("s{i}")], true).await })
            })
            .collect();
        for t in tasks {
            assert_eq!(t.await.unwrap().unwrap(), 1);
        }
        assert_eq!(UnreadStore::open(path).for_user("alice").len(), 50);
        assert_clean_dir(dir.path());
    }
}
