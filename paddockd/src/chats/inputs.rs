//! What a listing's rows are built from, taken and compared cheaply, so a `chat:list` whose
//! `since` is the revision built from the same inputs is answered "nothing changed" without
//! building a row.
//!
//! The inputs are the stores' snapshots (a store publishes a new `Arc` when it changes, so
//! two snapshots are the same state when they are the same `Arc`), the change counters of the
//! chat index and the run log (each raised once its change is in place, so rows read after
//! taking a counter are at least as new as it), the small live sets (running, queued for a
//! process, open in a client, waiting for an answer, parked) and the projects' folders. The
//! rows are built from the very snapshots and sets taken here; only the index and the run log
//! are read again, and those are never older than their counters.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use paddock_proto::ChatScope;

use super::ChatService;
use crate::parking::Parked;
use crate::projects::Project;
use crate::stores::{
    FirstMessage, Injection, OverlapState, QueuedMessage, RunProvenance, WorktreeRecord,
};

/// Everything a listing's rows depend on (see the module docs).
pub(super) struct Inputs {
    pub user_seen: Arc<HashMap<String, i64>>,
    pub user_unread: Arc<HashSet<String>>,
    pub archived: Arc<BTreeSet<String>>,
    pub starred: Arc<BTreeSet<String>>,
    pub detached: Arc<BTreeSet<String>>,
    pub provenance: Arc<HashMap<String, RunProvenance>>,
    pub injections: Arc<HashMap<String, Vec<Injection>>>,
    pub queued: Arc<BTreeMap<String, QueuedMessage>>,
    /// New chats whose first message claude has not written: session id → it.
    pub unwritten: Arc<BTreeMap<String, FirstMessage>>,
    /// Chats that work in a git worktree of their own: session id → it.
    pub worktrees: Arc<BTreeMap<String, WorktreeRecord>>,
    /// Chats of a project that changed the same files.
    pub overlaps: Arc<OverlapState>,
    /// Chats with a tool call waiting for a person.
    pub approvals: HashSet<String>,
    /// Chats parked on a usage limit.
    pub parked: HashMap<String, Parked>,
    /// Running chats: session id → project slug.
    pub running: HashMap<String, String>,
    /// Running chats whose turn is queued for a free claude process.
    pub waiting_process: HashSet<String>,
    /// Chats open in a client now (subscribed).
    pub watched: HashSet<String>,
    /// The listed projects, each with the folder its chats are indexed under.
    pub projects: Vec<(Project, PathBuf)>,
    index_generation: u64,
    runs_version: u64,
}

impl Inputs {
    /// The inputs as they are now, for `user`'s view of `projects`.
    pub async fn take(d: &ChatService, user: &str, projects: Vec<Project>) -> Self {
        let s = &d.state.stores;
        // The counters first: what is read after them is at least as new.
        let index_generation = d.state.listed().await.generation();
        let runs_version = d.state.runs.version();
        let hub = d.hub.snapshot().await;
        Self {
            user_seen: s.read_state.for_user(user),
            user_unread: s.unread.for_user(user),
            archived: s.archive.all(),
            starred: s.star.all(),
            detached: s.parent_detach.all(),
            provenance: s.run_provenance.all(),
            injections: s.message_provenance.all(),
            queued: s.queued.all(),
            unwritten: s.first_message.all(),
            worktrees: s.worktrees.all(),
            overlaps: s.overlaps.all(),
            approvals: d
                .state
                .approvals
                .list()
                .into_iter()
                .map(|a| a.session_id)
                .collect(),
            parked: d.state.parking.all(),
            waiting_process: hub
                .turns
                .iter()
                .filter(|t| t.running && t.waiting_process)
                .map(|t| t.session_id.clone())
                .collect(),
            running: hub
                .turns
                .into_iter()
                .filter(|t| t.running)
                .map(|t| (t.session_id, t.project_slug))
                .collect(),
            watched: hub.watched,
            projects: projects
                .into_iter()
                .map(|p| {
                    let folder = d.state.folder_of(&p);
                    (p, folder)
                })
                .collect(),
            index_generation,
            runs_version,
        }
    }

    /// The chats whose rows may differ between rows built from `old` and from `self`, by what
    /// a row shows of them besides the index's fields (those have their own versions,
    /// `chats/rows.rs`); `None` when every row may (the listed projects changed). Costs what
    /// changed: a snapshot that is the same `Arc` is not looked into.
    pub fn changed_since(&self, old: &Self) -> Option<HashSet<String>> {
        let same_projects = self.projects.len() == old.projects.len()
            && self
                .projects
                .iter()
                .zip(&old.projects)
                .all(|((a, a_folder), (b, b_folder))| a.slug == b.slug && a_folder == b_folder);
        if !same_projects {
            return None;
        }
        let mut out = HashSet::new();
        differ(&*old.user_seen, &*self.user_seen, &mut out);
        differ(&*old.user_unread, &*self.user_unread, &mut out);
        differ(&*old.archived, &*self.archived, &mut out);
        differ(&*old.starred, &*self.starred, &mut out);
        differ(&*old.detached, &*self.detached, &mut out);
        differ(&*old.provenance, &*self.provenance, &mut out);
        differ(&*old.queued, &*self.queued, &mut out);
        differ(&*old.worktrees, &*self.worktrees, &mut out);
        differ(&old.overlaps.chats, &self.overlaps.chats, &mut out);
        differ(&old.approvals, &self.approvals, &mut out);
        differ(&old.parked, &self.parked, &mut out);
        differ(&old.running, &self.running, &mut out);
        differ(&old.waiting_process, &self.waiting_process, &mut out);
        differ(&old.watched, &self.watched, &mut out);
        // `injections` and `unwritten` show in no indexed chat's row: the first places rows
        // (laid out anew each time), the second makes rows for chats not indexed yet (made
        // anew each time).
        Some(out)
    }

    /// Whether rows built from `self` are the rows of `other`.
    fn same_as(&self, other: &Self) -> bool {
        // A user with nothing stored gets a new empty snapshot each time.
        (Arc::ptr_eq(&self.user_seen, &other.user_seen)
            || (self.user_seen.is_empty() && other.user_seen.is_empty()))
            && (Arc::ptr_eq(&self.user_unread, &other.user_unread)
                || (self.user_unread.is_empty() && other.user_unread.is_empty()))
            && Arc::ptr_eq(&self.archived, &other.archived)
            && Arc::ptr_eq(&self.starred, &other.starred)
            && Arc::ptr_eq(&self.detached, &other.detached)
            && Arc::ptr_eq(&self.provenance, &other.provenance)
            && Arc::ptr_eq(&self.injections, &other.injections)
            && Arc::ptr_eq(&self.queued, &other.queued)
            && Arc::ptr_eq(&self.unwritten, &other.unwritten)
            && Arc::ptr_eq(&self.worktrees, &other.worktrees)
            && Arc::ptr_eq(&self.overlaps, &other.overlaps)
            && self.index_generation == other.index_generation
            && self.runs_version == other.runs_version
            && self.approvals == other.approvals
            && self.parked == other.parked
            && self.running == other.running
            && self.waiting_process == other.waiting_process
            && self.watched == other.watched
            && self.projects.len() == other.projects.len()
            && self
                .projects
                .iter()
                .zip(&other.projects)
                .all(|((a, a_folder), (b, b_folder))| a.slug == b.slug && a_folder == b_folder)
    }
}

/// A set or map keyed by session id, whose entries two snapshots can be compared by.
pub(super) trait Keyed {
    type Value: PartialEq;
    fn keys(&self) -> impl Iterator<Item = &String>;
    fn value(&self, key: &str) -> Option<&Self::Value>;
    fn len(&self) -> usize;
}

impl<V: PartialEq> Keyed for HashMap<String, V> {
    type Value = V;
    fn keys(&self) -> impl Iterator<Item = &String> {
        HashMap::keys(self)
    }
    fn value(&self, key: &str) -> Option<&V> {
        self.get(key)
    }
    fn len(&self) -> usize {
        HashMap::len(self)
    }
}

impl<V: PartialEq> Keyed for BTreeMap<String, V> {
    type Value = V;
    fn keys(&self) -> impl Iterator<Item = &String> {
        BTreeMap::keys(self)
    }
    fn value(&self, key: &str) -> Option<&V> {
        self.get(key)
    }
    fn len(&self) -> usize {
        BTreeMap::len(self)
    }
}

impl Keyed for HashSet<String> {
    type Value = ();
    fn keys(&self) -> impl Iterator<Item = &String> {
        self.iter()
    }
    fn value(&self, key: &str) -> Option<&()> {
        self.contains(key).then_some(&())
    }
    fn len(&self) -> usize {
        HashSet::len(self)
    }
}

impl Keyed for BTreeSet<String> {
    type Value = ();
    fn keys(&self) -> impl Iterator<Item = &String> {
        self.iter()
    }
    fn value(&self, key: &str) -> Option<&()> {
        self.contains(key).then_some(&())
    }
    fn len(&self) -> usize {
        BTreeSet::len(self)
    }
}

/// Adds to `out` the keys whose entries differ between `old` and `new` (in one and not the
/// other, or with other values). Nothing is looked at when both are the same snapshot.
pub(super) fn differ<M: Keyed>(old: &M, new: &M, out: &mut HashSet<String>) {
    if std::ptr::eq(old, new) || (old.len() == 0 && new.len() == 0) {
        return;
    }
    for key in old.keys() {
        if new.value(key) != old.value(key) {
            out.insert(key.clone());
        }
    }
    for key in new.keys() {
        if old.value(key).is_none() {
            out.insert(key.clone());
        }
    }
}

/// One listing: a user's view of a project (or of all) in a scope.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct ListingKey {
    pub user: String,
    pub project: Option<String>,
    pub scope: ChatScope,
}

/// Listings kept. Overflow: the cache is emptied, and each listing's next request builds
/// its rows once.
const MAX_KEPT: usize = 32;

/// For each listing, the inputs its newest revision was built from. Cheap to clone (one
/// cache).
#[derive(Clone, Default)]
pub struct LastBuilt {
    inner: Arc<Mutex<HashMap<ListingKey, Built>>>,
}

/// A listing's revision and the inputs it was built from.
type Built = (Arc<Inputs>, u64);

impl LastBuilt {
    /// Whether the listing's revision `since` was built from inputs the same as `now`.
    pub(super) fn unchanged(&self, key: &ListingKey, now: &Inputs, since: u64) -> bool {
        let kept = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        kept.get(key)
            .is_some_and(|(built, revision)| *revision == since && built.same_as(now))
    }

    /// Keeps that the listing's revision `revision` was built from `inputs`.
    pub(super) fn record(&self, key: ListingKey, inputs: Arc<Inputs>, revision: u64) {
        let mut kept = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= MAX_KEPT && !kept.contains_key(&key) {
            kept.clear();
        }
        kept.insert(key, (inputs, revision));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn differ_names_what_was_added_removed_or_changed_and_nothing_for_one_snapshot() {
        let mut out = HashSet::new();
        differ(&ids(&["a", "b"]), &ids(&["b", "c"]), &mut out);
        assert_eq!(out, ["a", "c"].map(String::from).into_iter().collect());

        let old: HashMap<String, i64> = [("a".into(), 1), ("b".into(), 2)].into();
        let new: HashMap<String, i64> = [("a".into(), 1), ("b".into(), 3)].into();
        let mut out = HashSet::new();
        differ(&old, &new, &mut out);
        assert_eq!(out, ["b".to_owned()].into_iter().collect());

        let same = Arc::new(ids(&["x"]));
        let mut out = HashSet::new();
        differ(&*same, &*same.clone(), &mut out);
        assert!(out.is_empty());
    }
}
