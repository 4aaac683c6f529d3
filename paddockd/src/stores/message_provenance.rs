//! Who injected each machine-added user turn of a chat (a schedule, another chat, a hook,
//! recovery), in the order they were injected.
//!
//! paddockd sends each user message with its own uuid, which the CLI keeps as the transcript
//! record's uuid, so an injection records that `messageId` and matches its row exactly. An
//! injection without one (recorded before the message was sent) is matched by its exact text,
//! in order, to the chat's user messages when the transcript is read. The first injection sent by another chat is also the fallback
//! parent edge of a chat whose run provenance has none. On disk:
//! `{ "<sessionId>": [ { "text": …, "source": { "kind": "sent", … }, "at": … } ] }`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use paddock_proto::Attribution;
use serde::{Deserialize, Serialize};

use super::StoreError;
use super::json_store::JsonStore;

/// One machine-injected user turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Injection {
    /// The injected text, as sent to the chat.
    pub text: String,
    pub source: Attribution,
    /// RFC 3339.
    pub at: String,
    /// The uuid the daemon gave the user message (the transcript row's uuid).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
}

/// Session id → its injections, oldest first.
#[derive(Debug, Clone)]
pub struct MessageProvenanceStore {
    store: JsonStore<HashMap<String, Vec<Injection>>>,
}

impl MessageProvenanceStore {
    /// Loads `file` (a missing file is empty; a corrupt one is moved aside).
    pub fn open(file: PathBuf) -> Self {
        Self {
            store: JsonStore::open(file),
        }
    }

    pub fn list(&self, sid: &str) -> Vec<Injection> {
        self.store.snapshot().get(sid).cloned().unwrap_or_default()
    }

    pub fn all(&self) -> Arc<HashMap<String, Vec<Injection>>> {
        self.store.snapshot()
    }

    /// Appends `inj` to `sid`'s injections.
    pub async fn record(&self, sid: &str, inj: Injection) -> Result<(), StoreError> {
        self.store
            .update(|d| d.edit().entry(sid.to_owned()).or_default().push(inj))
            .await
    }

    /// `(project, session)` of the chat that sent `sid` its first message from another
    /// chat, if any. The project may be "" (the root workspace).
    pub fn parent_chat(&self, sid: &str) -> Option<(String, String)> {
        self.store
            .snapshot()
            .get(sid)?
            .iter()
            .find_map(|inj| match &inj.source {
                Attribution::Sent {
                    from_session_id,
                    from_project,
                    ..
                } => Some((from_project.clone(), from_session_id.clone())),
                _ => None,
            })
    }

    /// Drops the injections of deleted chats. Returns how many chats had some.
    /// Chats that moved to project `to` (`chat:promote`): the messages they sent name `to` as
    /// their project. Returns how many changed; writes nothing when none did.
    pub async fn moved(&self, sids: &[String], to: &str) -> Result<usize, StoreError> {
        let stale = |inj: &Injection| {
            matches!(&inj.source, Attribution::Sent { from_session_id, from_project, .. }
                if sids.contains(from_session_id) && from_project != to)
        };
        self.store
            .update(|d| {
                let keys: Vec<String> = d
                    .get()
                    .iter()
                    .filter(|(_, injections)| injections.iter().any(stale))
                    .map(|(sid, _)| sid.clone())
                    .collect();
                let mut changed = 0;
                if keys.is_empty() {
                    return changed;
                }
                let all = d.edit();
                for key in &keys {
                    for inj in all.get_mut(key).into_iter().flatten() {
                        if stale(inj)
                            && let Attribution::Sent { from_project, .. } = &mut inj.source
                        {
                            *from_project = to.to_owned();
                            changed += 1;
                        }
                    }
                }
                changed
            })
            .await
    }

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

    fn inj(text: &str, source: Attribution) -> Injection {
        Injection {
            text: text.to_owned(),
            source,
            at: "2026-01-02T03:04:05Z".to_owned(),
            message_id: None,
        }
    }

    fn sent(project: &str, sid: &str) -> Attribution {
        Attribution::Sent {
            from_session_id: sid.to_owned(),
            from_project: project.to_owned(),
            from_title: None,
        }
    }

    #[tokio::test]
    async fn corrupt_files_are_moved_aside() {
        check_corrupt_files_are_moved_aside(
            "message-provenance.json",
            r#"{"s1": [{"text": "hi", "source": {"kind": "carrier_pigeon"}, "at": "x"}]}"#,
            MessageProvenanceStore::open,
            |s| s.all().is_empty(),
            |s| async move { s.record("s1", inj("hi", Attribution::Recovery)).await },
        )
        .await;
    }

    #[tokio::test]
    async fn records_in_order_and_finds_the_parent_chat() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("message-provenance.json");
        let store = MessageProvenanceStore::open(path.clone());
        let scheduled = Attribution::Scheduled {
            name: "nightly".into(),
        };
        store
            .record("s1", inj("one", scheduled.clone()))
            .await
            .unwrap();
        assert_eq!(store.parent_chat("s1"), None);
        store
            .record("s1", inj("two", sent("", "root-chat")))
            .await
            .unwrap();
        store
            .record("s1", inj("three", sent("demo", "later")))
            .await
            .unwrap();
        assert_private(&path);

        let again = MessageProvenanceStore::open(path);
        let texts: Vec<_> = again.list("s1").into_iter().map(|i| i.text).collect();
        assert_eq!(texts, ["one", "two", "three"]);
        assert_eq!(again.list("s1")[0].source, scheduled);
        assert_eq!(
            again.parent_chat("s1"),
            Some((String::new(), "root-chat".to_owned())),
            "the root workspace \"\" is a project like any other"
        );
        assert!(again.list("nope").is_empty());
        assert_clean_dir(dir.path());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_records_all_land() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("message-provenance.json");
        let store = MessageProvenanceStore::open(path.clone());
        let tasks: Vec<_> = (0..50)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    store
                        .record(
                            &format!("s{}", i % 5),
                            inj(&format!("m{i}"), Attribution::Recovery),
                        )
                        .await
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        let again = MessageProvenanceStore::open(path);
        assert_eq!(again.all().values().map(Vec::len).sum::<usize>(), 50);
        assert_eq!(again.list("s3").len(), 10);
        assert_clean_dir(dir.path());
    }
}
