//! A per-chat on/off flag: archived, starred, detached from its parent.
//!
//! Only chats with the flag on are kept, as a sorted JSON array of session ids, so turning
//! a flag off removes the chat from the file.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use super::StoreError;
use super::json_store::JsonStore;

/// The set of chats (session ids) that have one flag on.
#[derive(Debug, Clone)]
pub struct FlagStore {
    store: JsonStore<BTreeSet<String>>,
}

impl FlagStore {
    /// Loads `file` (a missing file is empty; a corrupt one is moved aside).
    pub fn open(file: PathBuf) -> Self {
        Self {
            store: JsonStore::open(file),
        }
    }

    pub fn contains(&self, sid: &str) -> bool {
        self.store.snapshot().contains(sid)
    }

    /// Every chat with the flag on.
    pub fn all(&self) -> Arc<BTreeSet<String>> {
        self.store.snapshot()
    }

    /// Turns the flag on or off for `sids`, in one write. Returns how many changed; writes
    /// nothing when none did.
    pub async fn set(&self, sids: &[String], on: bool) -> Result<usize, StoreError> {
        self.store
            .update(|d| {
                // A set, so an id listed twice counts once.
                let changing: BTreeSet<&str> = sids
                    .iter()
                    .map(String::as_str)
                    .filter(|sid| d.get().contains(*sid) != on)
                    .collect();
                if changing.is_empty() {
                    return 0;
                }
                let set = d.edit();
                for sid in &changing {
                    if on {
                        set.insert((*sid).to_owned());
                    } else {
                        set.remove(*sid);
                    }
                }
                changing.len()
            })
            .await
    }

    /// Turns the flag off for chats that no longer exist. Returns how many had it on.
    pub async fn forget(&self, sids: &[String]) -> Result<usize, StoreError> {
        self.set(sids, false).await
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
            "archive-state.json",
            r#"{"s1": true}"#,
            FlagStore::open,
            |s| s.all().is_empty(),
            |s| async move { s.set(&ids(["s1"]), true).await.map(drop) },
        )
        .await;
    }

    #[tokio::test]
    async fn set_counts_changes_and_writes_only_when_something_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("star-state.json");
        let flags = FlagStore::open(path.clone());
        assert_eq!(flags.set(&ids(["b", "a", "a"]), true).await.unwrap(), 2);
        assert!(flags.contains("a") && flags.contains("b"));
        assert_eq!(
            std::fs::read_to_string(&path)
                .unwrap()
                .split_whitespace()
                .collect::<String>(),
            r#"["a","b"]"#,
            "stored as a sorted array"
        );
        std::fs::remove_file(&path).unwrap();
        assert_eq!(flags.set(&ids(["a"]), true).await.unwrap(), 0);
        assert_eq!(flags.set(&ids(["zzz"]), false).await.unwrap(), 0);
        assert!(!path.exists(), "a no-op wrote the file");
        assert_eq!(flags.set(&ids(["a", "zzz"]), false).await.unwrap(), 1);
        assert!(!flags.contains("a"));
        assert_private(&path);
        assert_eq!(
            FlagStore::open(path).all().iter().collect::<Vec<_>>(),
            vec!["b"]
        );
        assert_clean_dir(dir.path());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_sets_all_land() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("archive-state.json");
        let flags = FlagStore::open(path.clone());
        let tasks: Vec<_> = (0..50)
            .map(|i| {
                let flags = flags.clone();
                tokio::spawn(async move { flags.set(&[format!("s{i}")], true).await })
            })
            .collect();
        for t in tasks {
            assert_eq!(t.await.unwrap().unwrap(), 1);
        }
        assert_eq!(flags.all().len(), 50);
        assert_eq!(FlagStore::open(path).all().len(), 50);
        assert_clean_dir(dir.path());
    }
}
