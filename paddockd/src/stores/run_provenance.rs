//! How each chat came to exist: its origin, spawn depth and, when known, the chat that
//! created it.
//!
//! Stamped once, at creation, and never overwritten: resuming, waking or messaging a chat
//! later must not rewrite where it came from, so `stamp` inserts only when absent. The
//! spawn-depth gate and the nested chat list read it. On disk:
//! `{ "<sessionId>": { "origin": "spawned", "depth": 1, "parentSessionId": … } }`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use paddock_proto::Origin;
use serde::{Deserialize, Serialize};

use super::StoreError;
use super::json_store::JsonStore;

/// A chat's creation marker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunProvenance {
    pub origin: Origin,
    /// Spawn hops from the root a human, a schedule or a hook started (0 = a root).
    pub depth: u32,
    /// The chat that created this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    /// The parent's project slug (it may be another project; "" is the root workspace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_project: Option<String>,
    /// RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// The schedule or hook that fired it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// The title it was given when it was created (`create_chat`'s `name`). A custom title in
    /// the transcript (`/rename`) wins over it; it wins over the first prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A fork: a copy of the parent chat (`chat:fork`, `fork_chat`), not a new chat it started.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fork: bool,
}

impl RunProvenance {
    /// The marker of a root chat that `origin` started: no parent, depth 0, nothing else
    /// known (the marker keeps the tree from inferring a parent).
    pub fn root(origin: Origin) -> Self {
        Self {
            origin,
            depth: 0,
            parent_session_id: None,
            parent_project: None,
            created_at: None,
            trigger: None,
            title: None,
            fork: false,
        }
    }
}

/// Session id → its creation marker.
#[derive(Debug, Clone)]
pub struct RunProvenanceStore {
    store: JsonStore<HashMap<String, RunProvenance>>,
}

impl RunProvenanceStore {
    /// Loads `file` (a missing file is empty; a corrupt one is moved aside).
    pub fn open(file: PathBuf) -> Self {
        Self {
            store: JsonStore::open(file),
        }
    }

    pub fn get(&self, sid: &str) -> Option<RunProvenance> {
        self.store.snapshot().get(sid).cloned()
    }

    pub fn all(&self) -> Arc<HashMap<String, RunProvenance>> {
        self.store.snapshot()
    }

    /// Records `p` for `sid` unless the chat already has provenance. Returns whether it
    /// was recorded; writes nothing when not.
    pub async fn stamp(&self, sid: &str, p: RunProvenance) -> Result<bool, StoreError> {
        self.store
            .update(|d| {
                if d.get().contains_key(sid) {
                    return false;
                }
                d.edit().insert(sid.to_owned(), p);
                true
            })
            .await
    }

    /// [`stamp`](Self::stamp) for many chats in one write (import). The first marker of a
    /// session listed twice wins. Returns how many were recorded.
    pub async fn stamp_many(
        &self,
        items: Vec<(String, RunProvenance)>,
    ) -> Result<usize, StoreError> {
        self.store
            .update(|d| {
                let fresh: Vec<(String, RunProvenance)> = items
                    .into_iter()
                    .filter(|(sid, _)| !d.get().contains_key(sid))
                    .collect();
                if fresh.is_empty() {
                    return 0;
                }
                let all = d.edit();
                let mut recorded = 0;
                for (sid, p) in fresh {
                    if let std::collections::hash_map::Entry::Vacant(slot) = all.entry(sid) {
                        slot.insert(p);
                        recorded += 1;
                    }
                }
                recorded
            })
            .await
    }

    /// Chats that moved to project `to` (`chat:promote`): every marker naming one of them as
    /// its parent names `to` as the parent's project. Returns how many changed; writes nothing
    /// when none did, so a finished move asked again changes nothing.
    pub async fn moved(&self, sids: &[String], to: &str) -> Result<usize, StoreError> {
        let stale = |p: &RunProvenance| {
            p.parent_session_id
                .as_ref()
                .is_some_and(|s| sids.contains(s))
                && p.parent_project.as_deref() != Some(to)
        };
        self.store
            .update(|d| {
                let ids: Vec<String> = d
                    .get()
                    .iter()
                    .filter(|(_, p)| stale(p))
                    .map(|(sid, _)| sid.clone())
                    .collect();
                if ids.is_empty() {
                    return 0;
                }
                let all = d.edit();
                for sid in &ids {
                    if let Some(p) = all.get_mut(sid) {
                        p.parent_project = Some(to.to_owned());
                    }
                }
                ids.len()
            })
            .await
    }

    /// Drops the markers of deleted chats. Returns how many went.
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

    fn spawned(parent: &str) -> RunProvenance {
        RunProvenance {
            origin: Origin::Spawned,
            depth: 1,
            parent_session_id: Some(parent.to_owned()),
            parent_project: Some(String::new()),
            created_at: Some("2026-01-02T03:04:05Z".to_owned()),
            trigger: None,
            title: None,
            fork: false,
        }
    }

    fn human() -> RunProvenance {
        RunProvenance::root(Origin::Human)
    }

    #[tokio::test]
    async fn corrupt_files_are_moved_aside() {
        check_corrupt_files_are_moved_aside(
            "run-provenance.json",
            r#"{"s1": {"origin": "teleported", "depth": 0}}"#,
            RunProvenanceStore::open,
            |s| s.all().is_empty(),
            |s| async move { s.stamp("s1", human()).await.map(drop) },
        )
        .await;
    }

    #[tokio::test]
    async fn stamp_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run-provenance.json");
        let store = RunProvenanceStore::open(path.clone());
        assert!(store.stamp("s1", spawned("p")).await.unwrap());
        std::fs::remove_file(&path).unwrap();
        assert!(!store.stamp("s1", human()).await.unwrap());
        assert!(!path.exists(), "a refused stamp wrote the file");
        assert_eq!(store.get("s1"), Some(spawned("p")));

        let n = store
            .stamp_many(vec![
                ("s1".into(), human()),
                ("s2".into(), human()),
                ("s2".into(), spawned("x")),
            ])
            .await
            .unwrap();
        assert_eq!(n, 1);
        assert_eq!(store.get("s2"), Some(human()));
        assert_private(&path);

        let again = RunProvenanceStore::open(path.clone());
        assert_eq!(
            again.get("s1"),
            Some(spawned("p")),
            "the root workspace parent \"\" survives"
        );
        assert_eq!(again.all().len(), 2);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"parentSessionId\""), "{text}");
        assert!(
            !text.contains("trigger"),
            "absent fields are left out: {text}"
        );
        assert_clean_dir(dir.path());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_stamps_all_land_and_only_the_first_wins() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run-provenance.json");
        let store = RunProvenanceStore::open(path.clone());
        let tasks: Vec<_> = (0..50)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    let a = store
                        .stamp(&format!("s{i}"), spawned(&format!("p{i}")))
                        .await;
                    let b = store.stamp(&format!("s{i}"), human()).await;
                    (a.unwrap(), b.unwrap())
                })
            })
            .collect();
        for t in tasks {
            assert_eq!(t.await.unwrap(), (true, false));
        }
        let again = RunProvenanceStore::open(path);
        assert_eq!(again.all().len(), 50);
        assert_eq!(again.get("s7"), Some(spawned("p7")));
        assert_clean_dir(dir.path());
    }
}
