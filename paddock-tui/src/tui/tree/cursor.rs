//! The cursor, held by identity (see the module docs of [`super`]): moving it, keeping it on
//! its row across changes, the next chat needing attention, and scrolling.

use paddock_proto::ChatSummary;

use super::TreeState;
use super::row::{RowId, RowKind, TreeRow};

impl TreeState {
    /// The cursor's row index in [`TreeState::rows`].
    pub fn cursor_index(&self) -> usize {
        self.cursor_index
    }

    pub fn cursor_id(&self) -> Option<&RowId> {
        self.cursor.as_ref()
    }

    pub fn cursor_row(&self) -> Option<TreeRow<'_>> {
        let id = self.cursor.as_ref()?;
        let rows = self.rows();
        rows.get(self.cursor_index)
            .filter(|r| r.is(id))
            .or_else(|| rows.iter().find(|r| r.is(id)))
            .copied()
    }

    /// Whether the cursor is on a project's "Archived" group row.
    pub fn cursor_on_group(&self) -> bool {
        matches!(self.cursor, Some(RowId::Archived(_)))
    }

    /// Whether the cursor is on an archived chat (inside its project's "Archived" group).
    /// Asked without walking the rows, as the status line does every frame.
    pub fn cursor_on_archived_chat(&self) -> bool {
        match &self.cursor {
            Some(RowId::Chat {
                project,
                session_id,
            }) => self
                .locate(project, session_id)
                .is_some_and(|(_, _, archived)| archived),
            _ => false,
        }
    }

    /// The chat under the cursor, if the cursor is on a chat.
    pub fn cursor_chat(&self) -> Option<&ChatSummary> {
        match self.cursor.as_ref()? {
            RowId::Chat {
                project,
                session_id,
            } => self.chat(project, session_id),
            _ => None,
        }
    }

    /// The project of the cursor's row (a project header, a chat, a "no chats" row).
    pub fn cursor_project(&self) -> Option<String> {
        self.cursor.as_ref().map(|id| id.project().to_owned())
    }

    /// Puts the cursor on a row, if it is on screen (after unfolding its ancestors for a chat).
    pub fn select(&mut self, id: &RowId) -> bool {
        self.reveal(id);
        let rows = self.rows();
        let Some(at) = rows.iter().position(|r| r.is(id)) else {
            return false;
        };
        drop(rows);
        self.cursor = Some(id.clone());
        self.cursor_index = at;
        true
    }

    /// Moves the cursor `delta` rows down (up when negative), stopping at either end.
    pub fn move_by(&mut self, delta: isize) {
        let rows = self.rows();
        let Some(last) = rows.len().checked_sub(1) else {
            return;
        };
        let to = self.cursor_index.saturating_add_signed(delta).min(last);
        let to = settle(&rows, to, delta >= 0);
        self.cursor = Some(rows[to].id());
        self.cursor_index = to;
        // The user moved: a remembered cursor waiting for its row gives way.
        self.pending_select = None;
    }

    pub fn to_top(&mut self) {
        self.move_by(isize::MIN);
    }

    pub fn to_bottom(&mut self) {
        self.move_by(isize::MAX);
    }

    /// Runs a change, then puts the cursor back on its row (see the module docs) and forgets
    /// marks, folds and the range anchor of chats that went away.
    pub(super) fn change(&mut self, f: impl FnOnce(&mut Self)) {
        f(self);
        self.apply_pending();
        self.prune();
        self.fix_cursor();
        self.apply_pending_select();
    }

    /// Folds from the client state whose chats are listed now.
    fn apply_pending(&mut self) {
        if self.pending_folds.is_empty() {
            return;
        }
        for (slug, chats) in self.chats.iter().chain(&self.archived) {
            for chat in &chats.list {
                if self.pending_folds.remove(&chat.session_id) {
                    self.folded_chats
                        .entry(slug.clone())
                        .or_default()
                        .insert(chat.session_id.clone());
                }
            }
        }
    }

    fn apply_pending_select(&mut self) {
        let Some(id) = self.pending_select.take() else {
            return;
        };
        if !self.select(&id) {
            self.pending_select = Some(id);
        }
    }

    fn prune(&mut self) {
        let (chats, archived) = (&self.chats, &self.archived);
        let exists = |project: &str, id: &str| {
            [chats, archived]
                .iter()
                .any(|lists| lists.get(project).is_some_and(|c| c.by_id.contains_key(id)))
        };
        for (project, set) in self.marks.iter_mut().chain(self.folded_chats.iter_mut()) {
            set.retain(|id| exists(project, id));
        }
        self.marks.retain(|_, set| !set.is_empty());
        self.folded_chats.retain(|_, set| !set.is_empty());
        for slot in [&mut self.anchor, &mut self.last_marked] {
            if let Some(RowId::Chat {
                project,
                session_id,
            }) = slot
                && !exists(project, session_id)
            {
                *slot = None;
            }
        }
    }

    pub(super) fn fix_cursor(&mut self) {
        let rows = self.rows();
        let Some(last) = rows.len().checked_sub(1) else {
            self.cursor = None;
            self.cursor_index = 0;
            return;
        };
        let found = self.cursor.as_ref().and_then(|id| {
            rows.iter()
                .position(|r| r.is(id))
                .or_else(|| self.visible_ancestor(id, &rows))
        });
        let at = found.unwrap_or_else(|| settle(&rows, self.cursor_index.min(last), false));
        let id = rows[at].id();
        drop(rows);
        self.cursor = Some(id);
        self.cursor_index = at;
    }

    /// For a chat that exists but is not on screen: the row of its nearest ancestor that is
    /// (a chat, else its project).
    fn visible_ancestor(&self, id: &RowId, rows: &[TreeRow<'_>]) -> Option<usize> {
        let RowId::Chat {
            project,
            session_id,
        } = id
        else {
            return None;
        };
        let (chats, i, archived) = self.locate(project, session_id)?;
        let mut up = chats.parent[i];
        while let Some(a) = up {
            let ancestor = &chats.list[a];
            let found = rows.iter().position(|r| {
                r.chat()
                    .is_some_and(|c| c.session_id == ancestor.session_id && r.project() == project)
            });
            if found.is_some() {
                return found;
            }
            up = chats.parent[a];
        }
        let group = RowId::Archived(project.clone());
        archived
            .then(|| rows.iter().position(|r| r.is(&group)))
            .flatten()
            .or_else(|| {
                rows.iter()
                    .position(|r| matches!(r.kind, RowKind::Project(p) if p.slug == *project))
            })
    }

    /// Puts the cursor on a row now if it is listed, else once it is.
    pub fn select_when_listed(&mut self, id: RowId) {
        if self.select(&id) {
            // An older wish must not take the cursor away later.
            self.pending_select = None;
        } else {
            self.pending_select = Some(id);
        }
    }

    /// `n`: moves the cursor to the next chat that needs you (most urgent first, then unread),
    /// wrapping around and unfolding what hides it; whether the cursor moved.
    pub fn next_attention(&mut self) -> bool {
        let (target, most) = {
            let rows = self.walk(false);
            let start = self
                .cursor
                .as_ref()
                .and_then(|id| rows.iter().position(|r| r.is(id)))
                .unwrap_or(rows.len().saturating_sub(1));
            // The chats that need something (`needs.rs`), most urgent first and in screen
            // order within each need. `n` walks that list on from the cursor's place in it
            // while the cursor is where the last `n` put it and nothing more urgent than what
            // was there then has come up; otherwise (the cursor moved, it is on none of them,
            // or an answer was asked for meanwhile) it goes to the first of the most urgent
            // after the cursor. So what waits for you comes before what is merely unread, and
            // needs left unanswered do not keep `n` from the rest.
            let need = |r: &TreeRow<'_>| {
                (!r.context && !r.archived)
                    .then(|| r.chat().and_then(crate::needs::Need::of))
                    .flatten()
            };
            let mut order: Vec<(crate::needs::Need, usize)> = rows
                .iter()
                .enumerate()
                .filter_map(|(i, r)| need(r).map(|n| (n, i)))
                .collect();
            order.sort_unstable();
            let most = order.first().map(|&(n, _)| n);
            let cycling = matches!(
                &self.attention_at,
                Some((at, then)) if self.cursor.as_ref() == Some(at) && most >= Some(*then)
            );
            let here = cycling
                .then(|| order.iter().position(|&(_, i)| i == start))
                .flatten();
            let next = match here {
                Some(k) => order.get((k + 1) % order.len()),
                None => order.first().and_then(|&(most, _)| {
                    order
                        .iter()
                        .filter(|(n, _)| *n == most)
                        .find(|(_, i)| *i > start)
                        .or_else(|| order.first())
                }),
            };
            (next.map(|&(_, i)| rows[i].id()), most)
        };
        match (target, most) {
            (Some(id), Some(most)) if self.cursor.as_ref() != Some(&id) => {
                let moved = self.select(&id);
                self.attention_at = moved.then_some((id, most));
                moved
            }
            _ => false,
        }
    }

    /// Unfolds whatever hides a row: its project and its chat ancestors.
    fn reveal(&mut self, id: &RowId) {
        let RowId::Chat {
            project,
            session_id,
        } = id
        else {
            return;
        };
        self.folded_projects.remove(project);
        let Some((chats, i, archived)) = self.locate(project, session_id) else {
            return;
        };
        let mut ancestors = Vec::new();
        let mut up = chats.parent[i];
        while let Some(a) = up {
            ancestors.push(chats.list[a].session_id.clone());
            up = chats.parent[a];
        }
        if archived {
            self.archive_open.insert(project.clone());
        }
        if let Some(folded) = self.folded_chats.get_mut(project) {
            for a in &ancestors {
                folded.remove(a);
            }
        }
    }

    // ----- scrolling --------------------------------------------------------------------

    /// The first row on screen.
    pub fn offset(&self) -> usize {
        self.offset.get()
    }

    /// The first row to show in `height` rows of `rows` so that the cursor is on screen,
    /// scrolling as little as possible from the current offset.
    pub fn view_offset(&self, height: usize, rows: usize) -> usize {
        let height = height.max(1);
        let cursor = self.cursor_index;
        let mut offset = self.offset.get();
        if cursor < offset {
            offset = cursor;
        } else if cursor >= offset + height {
            offset = cursor + 1 - height;
        }
        offset.min(rows.saturating_sub(height))
    }

    /// Keeps the cursor within the `height` rows on screen (call before drawing). The rows
    /// are not walked for it: drawing them holds the offset within them ([`Self::drawn_at`]).
    pub fn scroll_into_view(&mut self, height: usize) {
        self.offset.set(self.view_offset(height, usize::MAX));
    }

    /// The frame drew the rows from `offset` (the view's offset, held within its rows).
    pub fn drawn_at(&self, offset: usize) {
        self.offset.set(offset);
    }
}

/// The row the cursor may rest on nearest `at`: a "no chats" row says something but offers
/// nothing to act on, so the cursor steps over it, on in the direction it moved and back the
/// other way at the end of the tree.
fn settle(rows: &[TreeRow<'_>], at: usize, forward: bool) -> usize {
    let rests = |i: &usize| !matches!(rows[*i].kind, RowKind::Empty { .. });
    let found = if forward {
        (at..rows.len())
            .find(rests)
            .or_else(|| (0..at).rev().find(rests))
    } else {
        (0..=at)
            .rev()
            .find(rests)
            .or_else(|| (at + 1..rows.len()).find(rests))
    };
    found.unwrap_or(at)
}
