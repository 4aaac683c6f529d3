//! When each user last saw each chat (epoch milliseconds), so unread follows a user
//! across clients.
//!
//! Monotonic: the value means "the latest moment this user viewed this chat", so it only
//! ever advances; an older or equal time is a no-op. Marking a chat unread again is the
//! manual override in `unread.rs`, never a step back here. On disk:
//! `{ "<user>": { "<sessionId>": <ms> } }`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::StoreError;
use super::json_store::JsonStore;
use super::per_user::PerUser;

type Seen = HashMap<String, i64>;

/// Per user, per chat: when the user last saw it.
#[derive(Debug, Clone)]
pub struct ReadStateStore {
    store: JsonStore<PerUser<Seen>>,
}

impl ReadStateStore {
    /// Loads `file` (a missing file is empty; a corrupt one is moved aside).
    pub fn open(file: PathBuf) -> Self {
        Self {
            store: JsonStore::open(file),
        }
    }

    pub fn last_seen(&self, user: &str, sid: &str) -> Option<i64> {
        self.store
            .snapshot()
            .get(user)
            .and_then(|seen| seen.get(sid).copied())
    }

    /// Everything `user` has seen: a shared snapshot, cheap however many chats there are.
    pub fn for_user(&self, user: &str) -> Arc<HashMap<String, i64>> {
        self.store.snapshot().snapshot(user)
    }

    /// Advances `user`'s last-seen time of `sids` to `at_ms`, in one write. Chats already
    /// seen at or after `at_ms` keep their time; writes nothing when none advanced.
    pub async fn advance(&self, user: &str, sids: &[String], at_ms: i64) -> Result<(), StoreError> {
        self.store
            .update(|d| {
                let behind = |seen: &Seen, sid: &str| seen.get(sid).is_none_or(|&t| t < at_ms);
                let advancing: Vec<&String> = match d.get().get(user) {
                    Some(seen) => sids.iter().filter(|sid| behind(seen, sid)).collect(),
                    None => sids.iter().collect(),
                };
                if advancing.is_empty() {
                    return;
                }
                let seen = d.edit().edit(user);
                for sid in advancing {
                    seen.insert(sid.clone(), at_ms);
                }
            })
            .await
    }

    /// Drops `sids` for every user (the chats were deleted). Returns how many entries went.
    pub async fn forget(&self, sids: &[String]) -> Result<usize, StoreError> {
        self.store
            .update(|d| {
                let users = d
                    .get()
                    .users_where(|seen| sids.iter().any(|sid| seen.contains_key(sid)));
                let mut removed = 0;
                for user in users {
                    let all = d.edit();
                    let seen = all.edit(&user);
                    removed += sids
                        .iter()
                        .filter(|sid| seen.remove(*sid).is_some())
                        .count();
                    all.prune(&user, HashMap::is_empty);
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
            "read-state.json",
            r#"{"alice": {"s1": "yesterday"}}"#,
            ReadStateStore::open,
            |s| s.for_user("alice").is_empty(),
            |s| async move { s.advance("alice", &ids(["s1"]), 5).await },
        )
        .await;
    }

    #[tokio::test]
    async fn only_advances_and_is_per_user() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("read-state.json");
        let rs = ReadStateStore::open(path.clone());
        rs.advance("alice", &ids(["s1", "s2"]), 100).await.unwrap();
        rs.advance("alice", &ids(["s1"]), 50).await.unwrap();
        rs.advance("alice", &ids(["s2"]), 200).await.unwrap();
        rs.advance("bob", &ids(["s1"]), 10).await.unwrap();
        assert_eq!(rs.last_seen("alice", "s1"), Some(100));
        assert_eq!(rs.last_seen("alice", "s2"), Some(200));
        assert_eq!(rs.last_seen("bob", "s1"), Some(10));
        assert_eq!(rs.last_seen("bob", "s2"), None);
        assert_eq!(rs.last_seen("", "s1"), None);

        // A step back writes nothing at all.
        std::fs::remove_file(&path).unwrap();
        rs.advance("alice", &ids(["s1", "s2"]), 100).await.unwrap();
        assert!(!path.exists());
        rs.advance("alice", &ids(["s1"]), 101).await.unwrap();
        assert_private(&path);

        let again = ReadStateStore::open(path);
        let alice = again.for_user("alice");
        assert_eq!(alice.len(), 2);
        assert_eq!(alice.get("s1"), Some(&101));
        assert_eq!(again.for_user("bob").get("s1"), Some(&10));
        assert_clean_dir(dir.path());
    }

    #[tokio::test]
    async fn for_user_is_a_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let rs = ReadStateStore::open(dir.path().join("read-state.json"));
        rs.advance("alice", &ids(["s1"]), 1).await.unwrap();
        let before = rs.for_user("alice");
        rs.advance("alice", &ids(["s1", "s2"]), 2).await.unwrap();
        assert_eq!(before.get("s1"), Some(&1));
        assert_eq!(before.get("s2"), None);
        assert_eq!(rs.for_user("alice").get("s2"), Some(&2));
    }

    #[tokio::test]
    async fn forget_drops_the_chat_for_every_user() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("read-state.json");
        let rs = ReadStateStore::open(path.clone());
        rs.advance("alice", &ids(["s1", "s2"]), 1).await.unwrap();
        rs.advance("bob", &ids(["s1"]), 1).await.unwrap();
        assert_eq!(rs.forget(&ids(["s1", "nope"])).await.unwrap(), 2);
        assert_eq!(rs.last_seen("alice", "s1"), None);
        assert_eq!(rs.last_seen("alice", "s2"), Some(1));
        let text = std::fs::read_to_string(path).unwrap();
        assert!(
            !text.contains("bob"),
            "an emptied user stays in the file: {text}"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_advances_all_land() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("read-state.json");
        let rs = ReadStateStore::open(path.clone());
        let tasks: Vec<_> = (0..50)
            .map(|i| {
                let rs = rs.clone();
                let user = if i % 2 == 0 { "alice" } else { "bob" };
                tokio::spawn(async move { rs.advance(user, &[format!("s{i}")], i).await })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        let again = ReadStateStore::open(path);
        assert_eq!(again.for_user("alice").len(), 25);
        assert_eq!(again.for_user("bob").len(), 25);
        assert_eq!(again.last_seen("bob", "s49"), Some(49));
        assert_clean_dir(dir.path());
    }
}
