//! A turn's lineage: the depth the depth gate judges it at, and the tree it belongs to.
//!
//! Depth follows the message, not the recipient: a turn a chat's message started runs at the
//! deeper of its own chat's depth and the depth of the sender's turn that sent it, so a child
//! cannot walk around the gate by messaging its root. A chat that turn creates is one level
//! below the turn, not below its chat. A hook or trigger a chat's turn set off runs at that
//! turn's lineage the same way. The tree is the root chat of the spawn tree the work came from
//! (its recorded parents, `parent_session_id`), and a message carries it along: the per-tree
//! caps (`tree_caps.rs`) count against it. The chat's recorded provenance (its parent, its own
//! depth) is untouched: the tree still shows who made and who messaged each chat.
//!
//! What each chat's latest turn runs at is kept in memory ([`Lineages`]): one entry per chat
//! that has run a turn since the daemon started (as the tokens are), set when the turn starts,
//! read by the tools the turn calls.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::stores::RunProvenanceStore;

/// Recorded parents followed at most this far to find a chat's root (a cycle stops sooner).
const MAX_HOPS: usize = 64;

/// The depth a turn runs at, and the root chat of its tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lineage {
    pub depth: u32,
    /// The session id of the tree's root chat.
    pub tree: String,
}

/// A chat's latest turn: its lineage and its job id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnLineage {
    pub lineage: Lineage,
    pub job_id: String,
}

/// Every chat's latest turn lineage; cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Lineages {
    inner: Arc<Mutex<HashMap<String, TurnLineage>>>,
}

impl Lineages {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TurnLineage>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Chat `session_id` runs turn `job_id` at `lineage` now.
    pub fn set(&self, session_id: &str, lineage: Lineage, job_id: &str) {
        self.lock().insert(
            session_id.to_owned(),
            TurnLineage {
                lineage,
                job_id: job_id.to_owned(),
            },
        );
    }

    /// The latest turn of chat `session_id`, when it has run one since the daemon started.
    pub fn get(&self, session_id: &str) -> Option<TurnLineage> {
        self.lock().get(session_id).cloned()
    }

    /// What chat `session_id` acts at now: its latest turn's lineage, else its own depth
    /// and root.
    pub fn current(&self, provenance: &RunProvenanceStore, session_id: &str) -> Lineage {
        self.get(session_id)
            .map_or_else(|| own(provenance, session_id), |t| t.lineage)
    }
}

/// A chat's own lineage: its recorded depth, and the root of its recorded parents.
pub fn own(provenance: &RunProvenanceStore, session_id: &str) -> Lineage {
    Lineage {
        depth: provenance.get(session_id).map_or(0, |p| p.depth),
        tree: root_of(|sid| provenance.get(sid)?.parent_session_id, session_id),
    }
}

/// The root of `session_id`'s tree, following `parent` (at most [`MAX_HOPS`], stopping at a
/// cycle).
pub fn root_of(parent: impl Fn(&str) -> Option<String>, session_id: &str) -> String {
    let mut at = session_id.to_owned();
    let mut seen = vec![at.clone()];
    for _ in 0..MAX_HOPS {
        match parent(&at) {
            Some(p) if !seen.contains(&p) => {
                seen.push(p.clone());
                at = p;
            }
            _ => break,
        }
    }
    at
}

/// The lineage of a turn in a chat whose own lineage is `own`, started by `cause` (the turn
/// of the chat that sent the message, or set off the trigger): the deeper depth of the two,
/// in the cause's tree.
pub fn of_turn(own: Lineage, cause: Option<&Lineage>) -> Lineage {
    match cause {
        Some(c) => Lineage {
            depth: own.depth.max(c.depth),
            tree: c.tree.clone(),
        },
        None => own,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parents(edges: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let edges: HashMap<String, String> = edges
            .iter()
            .map(|(c, p)| ((*c).to_owned(), (*p).to_owned()))
            .collect();
        move |sid| edges.get(sid).cloned()
    }

    #[test]
    fn the_root_is_found_through_recorded_parents_and_a_cycle_stops_the_walk() {
        let tree = parents(&[("c", "b"), ("b", "a")]);
        assert_eq!(root_of(&tree, "c"), "a");
        assert_eq!(root_of(&tree, "a"), "a");
        let cycle = parents(&[("x", "y"), ("y", "x")]);
        assert_eq!(root_of(&cycle, "x"), "y");
    }

    #[test]
    fn a_messaged_turn_runs_at_the_deeper_of_its_chat_and_its_sender() {
        let root = Lineage {
            depth: 0,
            tree: "r".into(),
        };
        let child = Lineage {
            depth: 1,
            tree: "r".into(),
        };
        assert_eq!(of_turn(root.clone(), Some(&child)), child, "up the tree");
        let deep = Lineage {
            depth: 3,
            tree: "r".into(),
        };
        assert_eq!(
            of_turn(deep.clone(), Some(&root)).depth,
            3,
            "never shallower"
        );
        let other = Lineage {
            depth: 0,
            tree: "h".into(),
        };
        assert_eq!(
            of_turn(other, Some(&child)),
            child,
            "a hook's chat works in the tree that set it off"
        );
        assert_eq!(of_turn(root.clone(), None), root, "a person's turn");
    }
}
