//! The one chat a resuming schedule or trigger keeps firing into.
//!
//! A schedule with `resume_session` (or a trigger whose run resumes) owns one chat across
//! fires and restarts; this maps its key to that chat's session id. Two instances:
//! `schedule-sessions.json` keyed by `"<project>\0<schedule>"`, `trigger-sessions.json`
//! keyed by `"<project>\0<trigger>"` (NUL occurs in neither part; the root workspace's
//! project is ""). Use [`binding_key`] to build keys. On disk: `{ "<key>": "<sessionId>" }`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::StoreError;
use super::json_store::JsonStore;

/// The key of `name` (a schedule or a trigger) in `project`.
pub fn binding_key(project: &str, name: &str) -> String {
    format!("{project}\0{name}")
}

/// Schedule or trigger key → the session id of the chat it owns.
#[derive(Debug, Clone)]
pub struct SessionBindingStore {
    store: JsonStore<BTreeMap<String, String>>,
}

impl SessionBindingStore {
    /// Loads `file` (a missing file is empty; a corrupt one is moved aside).
    pub fn open(file: PathBuf) -> Self {
        Self {
            store: JsonStore::open(file),
        }
    }

    pub fn get(&self, key: &str) -> Option<String> {
        self.store.snapshot().get(key).cloned()
    }

    /// Binds `key` to `sid`, replacing an earlier binding.
    pub async fn bind(&self, key: &str, sid: &str) -> Result<(), StoreError> {
        self.store
            .update(|d| {
                if d.get().get(key).map(String::as_str) != Some(sid) {
                    d.edit().insert(key.to_owned(), sid.to_owned());
                }
            })
            .await
    }

    /// Removes `key`'s binding. Returns whether there was one.
    pub async fn unbind(&self, key: &str) -> Result<bool, StoreError> {
        self.store
            .update(|d| d.get().contains_key(key) && d.edit().remove(key).is_some())
            .await
    }

    /// Removes every binding to one of `sids` (the chats were deleted, so the next fire
    /// starts a new chat). Returns how many went.
    pub async fn forget(&self, sids: &[String]) -> Result<usize, StoreError> {
        self.store
            .update(|d| {
                let bound_to_gone = |sid: &String| sids.contains(sid);
                if !d.get().values().any(bound_to_gone) {
                    return 0;
                }
                let all = d.edit();
                let before = all.len();
                all.retain(|_, sid| !bound_to_gone(sid));
                before - all.len()
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
        for file in ["schedule-sessions.json", "trigger-sessions.json"] {
            check_corrupt_files_are_moved_aside(
                file,
                r#"{"demo\u0000nightly": 42}"#,
                SessionBindingStore::open,
                |s| s.get(&binding_key("demo", "nightly")).is_none(),
                |s| async move { s.bind(&binding_key("demo", "nightly"), "s1").await },
            )
            .await;
        }
    }

    #[tokio::test]
    async fn bind_unbind_and_the_root_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("schedule-sessions.json");
        let b = SessionBindingStore::open(path.clone());
        let root = binding_key("", "nightly");
        let demo = binding_key("demo", "nightly");
        b.bind(&root, "s1").await.unwrap();
        b.bind(&demo, "s2").await.unwrap();
        b.bind(&root, "s3").await.unwrap();
        assert_eq!(b.get(&root).as_deref(), Some("s3"));
        assert_private(&path);
        let again = SessionBindingStore::open(path.clone());
        assert_eq!(again.get(&root).as_deref(), Some("s3"));
        assert_eq!(again.get(&demo).as_deref(), Some("s2"));
        assert!(again.unbind(&root).await.unwrap());
        assert!(!again.unbind(&root).await.unwrap());
        assert_eq!(SessionBindingStore::open(path).get(&root), None);
        assert_clean_dir(dir.path());
    }

    #[tokio::test]
    async fn forget_unbinds_deleted_chats() {
        let dir = tempfile::tempdir().unwrap();
        let b = SessionBindingStore::open(dir.path().join("trigger-sessions.json"));
        b.bind(&binding_key("", "a"), "s1").await.unwrap();
        b.bind(&binding_key("", "b"), "s1").await.unwrap();
        b.bind(&binding_key("", "c"), "s2").await.unwrap();
        assert_eq!(b.forget(&ids(["s1"])).await.unwrap(), 2);
        assert_eq!(b.get(&binding_key("", "a")), None);
        assert_eq!(b.get(&binding_key("", "c")).as_deref(), Some("s2"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_binds_all_land() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trigger-sessions.json");
        let b = SessionBindingStore::open(path.clone());
        let tasks: Vec<_> = (0..50)
            .map(|i| {
                let b = b.clone();
                tokio::spawn(async move {
                    b.bind(&binding_key("p", &format!("t{i}")), &format!("s{i}"))
                        .await
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        let again = SessionBindingStore::open(path);
        for i in 0..50 {
            assert_eq!(
                again.get(&binding_key("p", &format!("t{i}"))),
                Some(format!("s{i}"))
            );
        }
        assert_clean_dir(dir.path());
    }
}
