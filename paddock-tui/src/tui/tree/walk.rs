//! The rows on screen: each project's header, its chats (nested or flat, folded, filtered),
//! its "no chats" row and its "Archived" group.

use std::collections::HashMap;

use paddock_proto::ChatSummary;

use super::TreeState;
use super::filter::Vis;
use super::order::Chats;
use super::row::{RowKind, TreeRow};

impl TreeState {
    /// The rows on screen, top to bottom.
    pub fn rows(&self) -> Vec<TreeRow<'_>> {
        self.walk(true)
    }

    /// The rows, with folds (`respect_folds`) or as if everything were unfolded. An
    /// "Archived" group's chats show while it is open, whatever `respect_folds` says.
    pub(super) fn walk(&self, respect_folds: bool) -> Vec<TreeRow<'_>> {
        let filter = self.filter_spec();
        let filtering = filter.active();
        let folds = respect_folds && !filtering;
        let mut rows = Vec::new();
        for project in &self.projects {
            let slug = project.slug.as_str();
            let chats = self.chats.get(slug);
            let vis = chats.and_then(|c| c.visibility(&filter));
            let archive_open = self.archive_open.contains(slug);
            let archived = self.archived.get(slug).filter(|_| archive_open);
            let archived_vis = archived.and_then(|c| c.visibility(&filter));
            let archived_match = archived_vis
                .as_ref()
                .is_some_and(|v| v.contains(&Vis::Match));
            if filtering
                && !vis.as_ref().is_some_and(|v| v.contains(&Vis::Match))
                && !archived_match
            {
                continue;
            }
            let mut head = TreeRow::new(RowKind::Project(project), 0);
            head.has_children = true;
            if folds && self.folded_projects.contains(slug) {
                head.folded = true;
                let list = chats.map_or(&[][..], |c| c.list.as_slice());
                head.hidden = list.len();
                head.hidden_unread = list.iter().any(|c| c.unread);
                head.hidden_running = list.iter().any(|c| c.running);
                rows.push(head);
                continue;
            }
            rows.push(head);
            match chats.filter(|c| !c.list.is_empty()) {
                Some(chats) => {
                    self.push_chats(&mut rows, slug, chats, vis.as_deref(), 0, None, folds);
                }
                None if !filtering => rows.push(TreeRow::new(RowKind::Empty { slug }, 1)),
                None => {}
            }
            // The "Archived" group: always there unfiltered; with a filter, only with a match.
            if filtering && !archived_match {
                continue;
            }
            let held = self.archived.get(slug);
            let active = chats.map(|c| &c.by_id);
            // A chat in both lists (unarchived a moment ago) counts among the active ones.
            let count = held.map(|c| {
                c.list
                    .iter()
                    .filter(|chat| !active.is_some_and(|a| a.contains_key(&chat.session_id)))
                    .count()
            });
            let error = self.archive_errors.get(slug).map(String::as_str);
            let mut group = TreeRow::new(
                RowKind::Archived {
                    slug,
                    count,
                    loading: archive_open && held.is_none() && error.is_none(),
                    error,
                },
                0,
            );
            group.has_children = true;
            group.folded = !archive_open;
            rows.push(group);
            if let Some(list) = archived {
                self.push_chats(
                    &mut rows,
                    slug,
                    list,
                    archived_vis.as_deref(),
                    1,
                    active,
                    folds,
                );
            }
        }
        if respect_folds {
            self.mark_open_range(&mut rows);
        }
        rows
    }

    /// One list's chats as rows, `base` levels in (1 in the "Archived" group, whose chats
    /// `skip` names the active ones of); `vis` as the filter has it; folds when `folds`.
    #[allow(clippy::too_many_arguments)]
    fn push_chats<'a>(
        &'a self,
        rows: &mut Vec<TreeRow<'a>>,
        slug: &'a str,
        chats: &'a Chats,
        vis: Option<&[Vis]>,
        base: usize,
        skip: Option<&HashMap<String, usize>>,
        folds: bool,
    ) {
        let archived = skip.is_some();
        let skipped = |chat: &ChatSummary| skip.is_some_and(|s| s.contains_key(&chat.session_id));
        let marked_here = self.marks.get(slug);
        if self.flat {
            for &i in &chats.flat {
                let chat = &chats.list[i];
                if vis.is_some_and(|v| v[i] != Vis::Match) || skipped(chat) {
                    continue;
                }
                let mut row = TreeRow::new(
                    RowKind::Chat {
                        project: slug,
                        chat,
                    },
                    base,
                );
                row.marked = marked_here.is_some_and(|m| m.contains(&chat.session_id));
                row.archived = archived;
                rows.push(row);
            }
            return;
        }
        let folded_here = self.folded_chats.get(slug);
        // While inside a folded chat's subtree: its level and its row.
        let mut skipping: Option<(usize, usize)> = None;
        for &i in &chats.order {
            let chat = &chats.list[i];
            let level = chats.level[i] + base;
            if let Some((fold_level, at)) = skipping {
                if level > fold_level {
                    if let Some(row) = rows.get_mut(at) {
                        row.hidden += 1;
                        row.hidden_unread |= chat.unread;
                        row.hidden_running |= chat.running;
                    }
                    continue;
                }
                skipping = None;
            }
            let shown = vis.map_or(Vis::Match, |v| v[i]);
            if shown == Vis::Hidden || skipped(chat) {
                continue;
            }
            let mut row = TreeRow::new(
                RowKind::Chat {
                    project: slug,
                    chat,
                },
                level,
            );
            row.has_children = match vis {
                Some(v) => chats.children[i].iter().any(|&c| v[c] != Vis::Hidden),
                None => !chats.children[i].is_empty(),
            };
            row.context = shown == Vis::Context;
            row.marked = marked_here.is_some_and(|m| m.contains(&chat.session_id));
            row.archived = archived;
            if folds
                && row.has_children
                && folded_here.is_some_and(|f| f.contains(&chat.session_id))
            {
                row.folded = true;
                skipping = Some((level, rows.len()));
            }
            rows.push(row);
        }
    }

    /// Shows the rows of an open `v` range as marked.
    fn mark_open_range(&self, rows: &mut [TreeRow<'_>]) {
        if let Some((lo, hi)) = self.open_range(rows) {
            for row in &mut rows[lo..=hi] {
                if row.chat().is_some() {
                    row.marked = true;
                }
            }
        }
    }

    /// The open `v` range as row indices, low to high.
    pub(super) fn open_range(&self, rows: &[TreeRow<'_>]) -> Option<(usize, usize)> {
        let anchor = self.anchor.as_ref()?;
        let at = rows.iter().position(|r| r.is(anchor))?;
        let cursor = self.cursor_index.min(rows.len().checked_sub(1)?);
        Some((at.min(cursor), at.max(cursor)))
    }
}
