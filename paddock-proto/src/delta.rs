//! Applying a `chat:list` delta ([`Chats::delta`]) to the list it was asked against.
//!
//! The rule every client follows (docs/PROTOCOL.md, `chats`): the new list is the previous one
//! without `removed` and without the rows in `chats`, with each row of `chats` put right after
//! the row its `after` names. A row not in the delta kept its predecessor, so the whole list is
//! a chain; a delta that does not make one chain covering every row does not fit the previous
//! list, and the client asks for the full list instead.

use std::collections::{HashMap, HashSet};

use crate::{ChatSummary, Chats};

impl Chats {
    /// The whole list this answer describes: `chats` itself for a full answer; for a delta,
    /// `previous` (the list as of the `since` that was asked) with the delta applied. `None`
    /// when the delta does not fit `previous` (then ask again without `since`).
    pub fn apply_to(self, previous: &[ChatSummary]) -> Option<Vec<ChatSummary>> {
        if !self.delta {
            return Some(self.chats);
        }
        if self.after.len() != self.chats.len() {
            return None;
        }
        let changed: HashSet<&str> = self.chats.iter().map(|c| c.session_id.as_str()).collect();
        let removed: HashSet<&str> = self.removed.iter().map(String::as_str).collect();
        // Each row of the new list by the id of the row before it (`None`: the first).
        let mut next: HashMap<Option<&str>, &ChatSummary> =
            HashMap::with_capacity(previous.len() + self.chats.len());
        let mut before: Option<&str> = None;
        for row in previous {
            let sid = row.session_id.as_str();
            if !changed.contains(sid)
                && !removed.contains(sid)
                && next.insert(before, row).is_some()
            {
                return None;
            }
            before = Some(sid);
        }
        for (row, after) in self.chats.iter().zip(&self.after) {
            if next.insert(after.as_deref(), row).is_some() {
                return None;
            }
        }
        let mut out = Vec::with_capacity(next.len());
        let mut at: Option<&str> = None;
        while let Some(row) = next.remove(&at) {
            out.push(row.clone());
            at = Some(row.session_id.as_str());
        }
        next.is_empty().then_some(out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn row(sid: &str, title: &str) -> ChatSummary {
        ChatSummary {
            session_id: sid.into(),
            title: title.into(),
            ..ChatSummary::default()
        }
    }

    fn ids(rows: &[ChatSummary]) -> Vec<&str> {
        rows.iter().map(|r| r.session_id.as_str()).collect()
    }

    fn delta(chats: Vec<(ChatSummary, Option<&str>)>, removed: &[&str]) -> Chats {
        let (chats, after): (Vec<_>, Vec<_>) = chats
            .into_iter()
            .map(|(c, a)| (c, a.map(str::to_owned)))
            .unzip();
        Chats {
            chats,
            revision: Some(9),
            delta: true,
            removed: removed.iter().map(|s| (*s).to_owned()).collect(),
            after,
        }
    }

    #[test]
    fn a_full_answer_replaces_the_list() {
        let full = Chats {
            chats: vec![row("b", "B")],
            revision: Some(3),
            ..Chats::default()
        };
        let got = full.apply_to(&[row("a", "A")]).unwrap();
        assert_eq!(ids(&got), ["b"]);
    }

    #[test]
    fn a_changed_row_moves_and_the_rest_keep_their_order() {
        let previous = [row("a", "A"), row("b", "B"), row("c", "C"), row("d", "D")];
        // c got activity and moved to the top: c (first), d (now after b) change; a (now
        // after c) changes too.
        let d = delta(
            vec![
                (row("c", "C2"), None),
                (row("a", "A"), Some("c")),
                (row("d", "D"), Some("b")),
            ],
            &[],
        );
        let got = d.apply_to(&previous).unwrap();
        assert_eq!(ids(&got), ["c", "a", "b", "d"]);
        assert_eq!(got[0].title, "C2");
    }

    #[test]
    fn removed_rows_go_and_new_rows_come_in_their_place() {
        let previous = [row("a", "A"), row("b", "B"), row("c", "C")];
        let d = delta(
            vec![(row("n", "N"), Some("a")), (row("c", "C"), Some("n"))],
            &["b"],
        );
        let got = d.apply_to(&previous).unwrap();
        assert_eq!(ids(&got), ["a", "n", "c"]);
    }

    #[test]
    fn an_empty_delta_keeps_the_list() {
        let previous = [row("a", "A"), row("b", "B")];
        let got = delta(vec![], &[]).apply_to(&previous).unwrap();
        assert_eq!(got, previous);
        let got = delta(vec![], &["a", "b"]).apply_to(&previous).unwrap();
        assert!(got.is_empty());
    }

    #[test]
    fn a_delta_that_does_not_fit_is_refused() {
        let previous = [row("a", "A"), row("b", "B"), row("c", "C")];
        // b is removed but c, after it, is not in the delta: c's place is unknown.
        assert!(delta(vec![], &["b"]).apply_to(&previous).is_none());
        // Two rows claim the same place.
        assert!(
            delta(vec![(row("n", "N"), Some("a"))], &[])
                .apply_to(&previous)
                .is_none()
        );
        // A row after one that is not there.
        assert!(
            delta(vec![(row("n", "N"), Some("zz"))], &[])
                .apply_to(&previous)
                .is_none()
        );
        // `after` and `chats` of different lengths.
        let mut bad = delta(vec![(row("a", "A"), None)], &[]);
        bad.after.clear();
        assert!(bad.apply_to(&previous).is_none());
    }
}
