//! The follow-up message queued on a chat, sent when its current turn ends.
//!
//! The daemon is the authority, so every client sees the same slot. Draining is
//! [`QueuedMessageStore::take`]: read and delete under the writer lock, so of two drains
//! racing (a turn ending and a client's edit, say) exactly one gets the message and it is
//! never sent twice. On disk: `{ "<sessionId>": { "message": …, "setAt": … } }`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::StoreError;
use super::json_store::JsonStore;

/// A chat's queued follow-up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueuedMessage {
    pub message: String,
    /// RFC 3339, stamped by the daemon.
    pub set_at: String,
}

/// Session id → its queued follow-up.
#[derive(Debug, Clone)]
pub struct QueuedMessageStore {
    store: JsonStore<BTreeMap<String, QueuedMessage>>,
}

impl QueuedMessageStore {
    /// Loads `file` (a missing file is empty; a corrupt one is moved aside).
    pub fn open(file: PathBuf) -> Self {
        Self {
            store: JsonStore::open(file),
        }
    }

    /// Every queued follow-up (for listings): a snapshot that a change replaces.
    pub fn all(&self) -> std::sync::Arc<BTreeMap<String, QueuedMessage>> {
        self.store.snapshot()
    }

    pub fn get(&self, sid: &str) -> Option<QueuedMessage> {
        self.store.snapshot().get(sid).cloned()
    }

    /// Queues `message` on `sid`, replacing what was queued; `None` clears the slot.
    pub async fn set(&self, sid: &str, message: Option<String>) -> Result<(), StoreError> {
        self.store
            .update(|d| match message {
                Some(message) => {
                    let set_at =
                        chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
                    d.edit()
                        .insert(sid.to_owned(), QueuedMessage { message, set_at });
                }
                None => {
                    if d.get().contains_key(sid) {
                        d.edit().remove(sid);
                    }
                }
            })
            .await
    }

    /// Removes and returns `sid`'s queued message, atomically: concurrent takes of one
    /// message give it to exactly one caller. Returns it only once the removal is on disk.
    pub async fn take(&self, sid: &str) -> Result<Option<QueuedMessage>, StoreError> {
        self.store
            .update(|d| {
                if !d.get().contains_key(sid) {
                    return None;
                }
                d.edit().remove(sid)
            })
            .await
    }

    /// Drops the queued messages of deleted chats. Returns how many went.
    pub async fn forget(&self, sids: &[String]) -> Result<usize, StoreError> {
        self.store.remove_keys(sids).await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::stores::testutil::{
        assert_clean_dir, assert_private, check_corrupt_files_are_moved_aside,
    };

    #[tokio::test]
    async fn corrupt_files_are_moved_aside() {
        check_corrupt_files_are_moved_aside(
            "queued-message.json",
            r#"{"s1": "just a string"}"#,
            QueuedMessageStore::open,
            |s| s.get("s1").is_none(),
            |s| async move { s.set("s1", Some("next".into())).await },
        )
        .await;
    }

    #[tokio::test]
    async fn set_replaces_and_none_clears() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("queued-message.json");
        let q = QueuedMessageStore::open(path.clone());
        q.set("s1", Some("first".into())).await.unwrap();
        q.set("s1", Some("second".into())).await.unwrap();
        q.set("s2", Some("other".into())).await.unwrap();
        assert_eq!(q.get("s1").unwrap().message, "second");
        assert!(chrono::DateTime::parse_from_rfc3339(&q.get("s1").unwrap().set_at).is_ok());
        q.set("s1", None).await.unwrap();
        assert_eq!(q.get("s1"), None);
        assert_private(&path);
        let again = QueuedMessageStore::open(path.clone());
        assert_eq!(again.get("s1"), None);
        assert_eq!(again.get("s2").unwrap().message, "other");
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .contains("\"setAt\"")
        );
        assert_clean_dir(dir.path());
    }

    #[tokio::test]
    async fn take_removes_durably() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("queued-message.json");
        let q = QueuedMessageStore::open(path.clone());
        q.set("s1", Some("go on".into())).await.unwrap();
        assert_eq!(q.take("s1").await.unwrap().unwrap().message, "go on");
        assert_eq!(q.take("s1").await.unwrap(), None);
        assert_eq!(QueuedMessageStore::open(path).get("s1"), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_takes_give_the_message_to_exactly_one() {
        let dir = tempfile::tempdir().unwrap();
        let q = QueuedMessageStore::open(dir.path().join("queued-message.json"));
        for round in 0..20 {
            q.set("s1", Some(format!("m{round}"))).await.unwrap();
            let (a, b) = tokio::join!(
                tokio::spawn({
                    let q = q.clone();
                    async move { q.take("s1").await }
                }),
                tokio::spawn({
                    let q = q.clone();
                    async move { q.take("s1").await }
                }),
            );
            let got: Vec<_> = [a.unwrap().unwrap(), b.unwrap().unwrap()]
                .into_iter()
                .flatten()
                .collect();
            assert_eq!(got.len(), 1, "round {round}: {got:?}");
            assert_eq!(got[0].message, format!("m{round}"));
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_sets_all_land() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("queued-message.json");
        let q = QueuedMessageStore::open(path.clone());
        let tasks: Vec<_> = (0..50)
            .map(|i| {
                let q = q.clone();
                tokio::spawn(async move { q.set(&format!("s{i}"), Some(format!("m{i}"))).await })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        let again = QueuedMessageStore::open(path);
        for i in 0..50 {
            assert_eq!(
                again.get(&format!("s{i}")).unwrap().message,
                format!("m{i}")
            );
        }
        assert_clean_dir(dir.path());
    }
}
