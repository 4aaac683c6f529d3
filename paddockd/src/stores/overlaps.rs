//! Chats of a project that changed the same files: per chat, the other chats and the files
//! they share (worked out per project by `git/overlap.rs` after each turn), and the pairs
//! already said in a notification, so each pair is said once, when it first overlaps.
//! On disk: `{ "chats": { "<sessionId>": { "project": …, "with": [{sessionId, files}] } },
//! "said": ["<a>|<b>", …] }`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use paddock_proto::ChatOverlap;
use serde::{Deserialize, Serialize};

use super::StoreError;
use super::json_store::JsonStore;

/// One chat's overlaps.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Overlaps {
    pub project: String,
    pub with: Vec<ChatOverlap>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct OverlapState {
    #[serde(default)]
    pub chats: BTreeMap<String, Overlaps>,
    /// Pairs said already (`a|b`, `a` < `b`).
    #[serde(default)]
    pub said: BTreeSet<String>,
}

/// Who overlaps with whom.
#[derive(Debug, Clone)]
pub struct OverlapStore {
    store: JsonStore<OverlapState>,
}

/// The key of the pair `a`, `b`.
fn pair(a: &str, b: &str) -> String {
    if a < b {
        format!("{a}|{b}")
    } else {
        format!("{b}|{a}")
    }
}

impl OverlapStore {
    /// Loads `file` (a missing file is empty; a corrupt one is moved aside).
    pub fn open(file: PathBuf) -> Self {
        Self {
            store: JsonStore::open(file),
        }
    }

    pub fn all(&self) -> Arc<OverlapState> {
        self.store.snapshot()
    }

    /// Replaces project `slug`'s overlaps with `now` (session id → its overlaps). Returns
    /// whether any chat's overlaps changed, and the pairs that overlap now and were never
    /// said, each once as (a, b, files), which are marked said. A pair that stops overlapping
    /// may be said again when it starts again.
    pub async fn set_project(
        &self,
        slug: &str,
        now: BTreeMap<String, Vec<ChatOverlap>>,
    ) -> Result<(bool, Vec<(String, String, Vec<String>)>), StoreError> {
        self.store
            .update(|d| {
                let old = d.get();
                let mut pairs_now = BTreeMap::new();
                for (sid, with) in &now {
                    for o in with {
                        pairs_now
                            .entry(pair(sid, &o.session_id))
                            .or_insert_with(|| {
                                (sid.clone(), o.session_id.clone(), o.files.clone())
                            });
                    }
                }
                let same = old
                    .chats
                    .iter()
                    .filter(|(_, o)| o.project == slug)
                    .map(|(sid, o)| (sid, &o.with))
                    .eq(now.iter().filter(|(_, w)| !w.is_empty()));
                let new: Vec<(String, String, Vec<String>)> = pairs_now
                    .iter()
                    .filter(|(k, _)| !old.said.contains(*k))
                    .map(|(_, v)| v.clone())
                    .collect();
                // Pairs of this project said before and no longer overlapping may be said again.
                let in_project: BTreeSet<&String> = old
                    .chats
                    .iter()
                    .filter(|(_, o)| o.project == slug)
                    .map(|(sid, _)| sid)
                    .collect();
                let stale: Vec<String> = old
                    .said
                    .iter()
                    .filter(|k| {
                        !pairs_now.contains_key(*k)
                            && k.split('|').any(|s| in_project.contains(&s.to_owned()))
                    })
                    .cloned()
                    .collect();
                if same && new.is_empty() && stale.is_empty() {
                    return (false, new);
                }
                let state = d.edit();
                state.chats.retain(|_, o| o.project != slug);
                for (sid, with) in now {
                    if !with.is_empty() {
                        state.chats.insert(
                            sid,
                            Overlaps {
                                project: slug.to_owned(),
                                with,
                            },
                        );
                    }
                }
                for k in &stale {
                    state.said.remove(k);
                }
                for k in pairs_now.keys() {
                    state.said.insert(k.clone());
                }
                (!same, new)
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn with(other: &str, files: &[&str]) -> Vec<ChatOverlap> {
        vec![ChatOverlap {
            session_id: other.into(),
            files: files.iter().map(|f| (*f).to_owned()).collect(),
        }]
    }

    #[tokio::test]
    async fn a_pair_is_said_once_while_it_overlaps() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("overlaps.json");
        let store = OverlapStore::open(file.clone());
        let both = BTreeMap::from([
            ("a".to_owned(), with("b", &["x.rs"])),
            ("b".to_owned(), with("a", &["x.rs"])),
        ]);
        let (changed, said) = store.set_project("web", both.clone()).await.unwrap();
        assert!(changed);
        assert_eq!(
            said,
            [("a".to_owned(), "b".to_owned(), vec!["x.rs".to_owned()])]
        );
        assert_eq!(
            store.set_project("web", both.clone()).await.unwrap(),
            (false, vec![])
        );
        // Another project's overlaps are its own.
        store
            .set_project("api", BTreeMap::from([("c".to_owned(), with("d", &["y"]))]))
            .await
            .unwrap();
        let reloaded = OverlapStore::open(file);
        assert_eq!(reloaded.all().chats["a"].with, with("b", &["x.rs"]));
        assert_eq!(reloaded.all().chats["c"].project, "api");
        // Gone, then back: said again.
        assert_eq!(
            store.set_project("web", BTreeMap::new()).await.unwrap(),
            (true, vec![])
        );
        assert!(!store.all().chats.contains_key("a"));
        assert_eq!(store.set_project("web", both).await.unwrap().1.len(), 1);
    }
}
