//! A new chat's first message, kept until claude has written it to the transcript.
//!
//! A chat exists for the daemon through its transcript, which the CLI writes on its own
//! schedule (docs/claude-cli.md §15): not before the process has started, nor while the turn
//! waits for a free process. A daemon killed in that window would otherwise lose the chat and
//! the person's words with it. So the message is kept here from the moment the chat is created
//! (before anyone is told its id) until a turn's end finds it on disk: meanwhile the chat is
//! listed as cut short, its transcript shows the message, and `chat:continue` sends it again
//! as the chat's first turn. On disk: `{ "<sessionId>": { "projectSlug": …, "message": … } }`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use paddock_proto::{Attribution, Origin};
use serde::{Deserialize, Serialize};

use super::StoreError;
use super::json_store::JsonStore;

/// What the chat's first turn was asked: enough to ask it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FirstMessage {
    pub project_slug: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub origin: Origin,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// RFC 3339, when the chat was created.
    pub set_at: String,
}

/// Session id → its first message, while claude has not written it.
#[derive(Debug, Clone)]
pub struct FirstMessageStore {
    store: JsonStore<BTreeMap<String, FirstMessage>>,
}

impl FirstMessageStore {
    /// Loads `file` (a missing file is empty; a corrupt one is moved aside).
    pub fn open(file: PathBuf) -> Self {
        Self {
            store: JsonStore::open(file),
        }
    }

    pub fn get(&self, sid: &str) -> Option<FirstMessage> {
        self.store.snapshot().get(sid).cloned()
    }

    pub fn all(&self) -> Arc<BTreeMap<String, FirstMessage>> {
        self.store.snapshot()
    }

    /// Keeps `first` for `sid`, replacing what was kept.
    pub async fn set(&self, sid: &str, first: FirstMessage) -> Result<(), StoreError> {
        self.store
            .update(|d| {
                d.edit().insert(sid.to_owned(), first);
            })
            .await
    }

    /// Claude has written `sid`'s first message: nothing is kept for it any more (no write
    /// when nothing was).
    pub async fn written(&self, sid: &str) -> Result<(), StoreError> {
        if self.get(sid).is_none() {
            return Ok(());
        }
        self.store
            .update(|d| {
                if d.get().contains_key(sid) {
                    d.edit().remove(sid);
                }
            })
            .await
    }

    /// Drops the first messages of deleted chats. Returns how many went.
    pub async fn forget(&self, sids: &[String]) -> Result<usize, StoreError> {
        self.store.remove_keys(sids).await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::stores::testutil::{assert_private, check_corrupt_files_are_moved_aside};

    fn first(message: &str) -> FirstMessage {
        FirstMessage {
            project_slug: "web".into(),
            message: message.into(),
            model: None,
            origin: Origin::Human,
            attribution: None,
            trigger: None,
            set_at: "2026-12-02T10:00:00Z".into(),
        }
    }

    #[tokio::test]
    async fn corrupt_files_are_moved_aside() {
        check_corrupt_files_are_moved_aside(
            "first-message.json",
            r#"{"s1": 7}"#,
            FirstMessageStore::open,
            |s| s.get("s1").is_none(),
            |s| async move { s.set("s1", first("hello")).await },
        )
        .await;
    }

    #[tokio::test]
    async fn kept_until_written_and_across_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("first-message.json");
        let store = FirstMessageStore::open(path.clone());
        store.set("s1", first("fix the build")).await.unwrap();
        store.set("s2", first("and the docs")).await.unwrap();
        assert_private(&path);
        let again = FirstMessageStore::open(path.clone());
        assert_eq!(again.get("s1").unwrap().message, "fix the build");
        again.written("s1").await.unwrap();
        again.written("s9").await.unwrap();
        assert_eq!(again.get("s1"), None);
        assert_eq!(FirstMessageStore::open(path).all().len(), 1);
    }
}
