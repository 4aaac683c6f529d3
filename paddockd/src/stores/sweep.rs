//! The sweep watermark of each project: the newest transcript modification time already
//! swept, so a sweep only looks at what changed since.
//!
//! Keyed by project slug, and the root workspace's key is the empty string: test for
//! presence with `Option`, never with `is_empty()`. On disk:
//! `{ "<slug>": { "lastSweptMtimeMs": …, "lastSweptAt": … } }`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::StoreError;
use super::json_store::JsonStore;

/// One project's sweep watermark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepState {
    /// The newest transcript mtime (epoch ms) covered by the last sweep.
    pub last_swept_mtime_ms: i64,
    /// RFC 3339: when the last sweep ran, whether it succeeded or not.
    pub last_swept_at: String,
    /// Why the last sweep failed; absent when it succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

/// Project slug → its sweep watermark.
#[derive(Debug, Clone)]
pub struct SweepStateStore {
    store: JsonStore<BTreeMap<String, SweepState>>,
}

impl SweepStateStore {
    /// Loads `file` (a missing file is empty; a corrupt one is moved aside).
    pub fn open(file: PathBuf) -> Self {
        Self {
            store: JsonStore::open(file),
        }
    }

    pub fn get(&self, slug: &str) -> Option<SweepState> {
        self.store.snapshot().get(slug).cloned()
    }

    pub fn all(&self) -> Arc<BTreeMap<String, SweepState>> {
        self.store.snapshot()
    }

    /// Records `slug`'s watermark, replacing the previous one.
    pub async fn set(&self, slug: &str, s: SweepState) -> Result<(), StoreError> {
        self.store
            .update(|d| {
                if d.get().get(slug) != Some(&s) {
                    d.edit().insert(slug.to_owned(), s);
                }
            })
            .await
    }

    /// Drops the watermark of a deleted project. Returns whether it had one.
    pub async fn remove(&self, slug: &str) -> Result<bool, StoreError> {
        self.store
            .update(|d| d.get().contains_key(slug) && d.edit().remove(slug).is_some())
            .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::stores::testutil::{
        assert_clean_dir, assert_private, check_corrupt_files_are_moved_aside,
    };

    fn at(ms: i64) -> SweepState {
        SweepState {
            last_swept_mtime_ms: ms,
            last_swept_at: "2026-01-02T03:04:05Z".to_owned(),
            last_error: None,
        }
    }

    #[tokio::test]
    async fn corrupt_files_are_moved_aside() {
        check_corrupt_files_are_moved_aside(
            "sweep-state.json",
            r#"{"": {"lastSweptAt": "2026-01-02T03:04:05Z"}}"#,
            SweepStateStore::open,
            |s| s.all().is_empty(),
            |s| async move { s.set("", at(1)).await },
        )
        .await;
    }

    #[tokio::test]
    async fn the_root_workspace_is_a_slug_like_any_other() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sweep-state.json");
        let sweep = SweepStateStore::open(path.clone());
        assert_eq!(sweep.get(""), None);
        sweep.set("", at(10)).await.unwrap();
        sweep.set("demo", at(20)).await.unwrap();
        sweep.set("", at(30)).await.unwrap();
        assert_private(&path);
        let again = SweepStateStore::open(path.clone());
        assert_eq!(again.get(""), Some(at(30)));
        assert_eq!(again.get("demo"), Some(at(20)));
        assert!(again.remove("demo").await.unwrap());
        assert!(!again.remove("demo").await.unwrap());
        assert_eq!(SweepStateStore::open(path).all().len(), 1);
        assert_clean_dir(dir.path());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_sets_all_land() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sweep-state.json");
        let sweep = SweepStateStore::open(path.clone());
        let tasks: Vec<_> = (0..50)
            .map(|i| {
                let sweep = sweep.clone();
                tokio::spawn(async move { sweep.set(&format!("p{i}"), at(i)).await })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        let again = SweepStateStore::open(path);
        assert_eq!(again.all().len(), 50);
        assert_eq!(again.get("p42"), Some(at(42)));
        assert_clean_dir(dir.path());
    }
}
