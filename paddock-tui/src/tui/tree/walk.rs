//! The rows on screen: each project's header, its chats (nested or flat, folded, filtered),
//! its "no chats" row and its "Archived" group.

use std::collections::HashMap;

use paddock_proto::ProjectInfo;

use super::TreeState;
use super::filter::{Filter, Vis};
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
        let folds = respect_folds && !filter.active();
        let mut rows = Vec::new();
        if self.hosts.is_empty() {
            for project in &self.projects {
                self.push_project(&mut rows, project, &filter, folds);
            }
        }
        // Several hosts: each host's head, then its projects; a host that is down keeps its
        // last rows, dimmed.
        for host in &self.hosts {
            let start = rows.len();
            rows.push(TreeRow::new(RowKind::Host(host), 0));
            for project in self.projects.iter().filter(|p| host.holds(&p.slug)) {
                self.push_project(&mut rows, project, &filter, folds);
            }
            if !host.is_up() {
                for row in &mut rows[start..] {
                    row.dim = true;
                }
            }
        }
        if respect_folds {
            self.mark_open_range(&mut rows);
        }
        rows
    }

    /// One project's rows: its header, its chats (or its "no chats" row), its "Archived" group
    /// and, while that is open, its archived chats; nothing when a filter matches none of them.
    fn push_project<'a>(
        &'a self,
        rows: &mut Vec<TreeRow<'a>>,
        project: &'a ProjectInfo,
        filter: &Filter<'_>,
        folds: bool,
    ) {
        let filtering = filter.active();
        let slug = project.slug.as_str();
        let chats = self.chats.get(slug);
        let vis = chats.and_then(|c| c.visibility(filter));
        let archive_open = self.archive_open.contains(slug);
        let archived = self.archived.get(slug).filter(|_| archive_open);
        let archived_vis = archived.and_then(|c| c.visibility(filter));
        let archived_match = archived_vis
            .as_ref()
            .is_some_and(|v| v.contains(&Vis::Match));
        if filtering && !vis.as_ref().is_some_and(|v| v.contains(&Vis::Match)) && !archived_match {
            return;
        }
        let mut head = TreeRow::new(RowKind::Project(project), 0);
        head.has_children = true;
        if folds && self.folded_projects.contains(slug) {
            head.folded = true;
            let list = chats.map_or(&[][..], |c| c.list.as_slice());
            for chat in list {
                head.hidden.add(chat);
            }
            rows.push(head);
            return;
        }
        rows.push(head);
        match chats.filter(|c| !c.list.is_empty()) {
            Some(chats) => {
                let list = ChatList {
                    slug,
                    chats,
                    vis: vis.as_deref(),
                    base: 0,
                    skip: None,
                };
                self.push_chats(rows, &list, folds);
            }
            None if !filtering => rows.push(TreeRow::new(RowKind::Empty { slug }, 1)),
            None => {}
        }
        // The "Archived" group: always there unfiltered; with a filter, only with a match.
        if filtering && !archived_match {
            return;
        }
        let active = chats.map(|c| &c.by_id);
        rows.push(self.archived_group(slug, active));
        if let Some(chats) = archived {
            let list = ChatList {
                slug,
                chats,
                vis: archived_vis.as_deref(),
                base: 1,
                skip: active,
            };
            self.push_chats(rows, &list, folds);
        }
    }

    /// A project's "Archived" group row; `active` names the project's active chats.
    fn archived_group<'a>(
        &'a self,
        slug: &'a str,
        active: Option<&HashMap<String, usize>>,
    ) -> TreeRow<'a> {
        let archive_open = self.archive_open.contains(slug);
        let held = self.archived.get(slug);
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
        group
    }

    /// One list's chats as rows: flat, or nested with folds when `folds`.
    fn push_chats<'a>(&'a self, rows: &mut Vec<TreeRow<'a>>, list: &ChatList<'a, '_>, folds: bool) {
        if self.flat {
            self.push_flat(rows, list);
        } else {
            self.push_nested(rows, list, folds);
        }
    }

    /// The flat list: the matches only, by last activity.
    fn push_flat<'a>(&'a self, rows: &mut Vec<TreeRow<'a>>, list: &ChatList<'a, '_>) {
        for &i in &list.chats.flat {
            if list.vis.is_some_and(|v| v[i] != Vis::Match) || list.skipped(i) {
                continue;
            }
            rows.push(self.chat_row(list, i, list.base));
        }
    }

    /// The nested list: depth-first, ancestors of matches as context, a folded chat's
    /// descendants counted on its row instead of shown.
    fn push_nested<'a>(
        &'a self,
        rows: &mut Vec<TreeRow<'a>>,
        list: &ChatList<'a, '_>,
        folds: bool,
    ) {
        let (chats, vis) = (list.chats, list.vis);
        let folded_here = self.folded_chats.get(list.slug);
        // While inside a folded chat's subtree: its level and its row.
        let mut skipping: Option<(usize, usize)> = None;
        for &i in &chats.order {
            let chat = &chats.list[i];
            let level = chats.level[i] + list.base;
            if let Some((fold_level, at)) = skipping {
                if level > fold_level {
                    if let Some(row) = rows.get_mut(at) {
                        row.hidden.add(chat);
                    }
                    continue;
                }
                skipping = None;
            }
            let shown = vis.map_or(Vis::Match, |v| v[i]);
            if shown == Vis::Hidden || list.skipped(i) {
                continue;
            }
            let mut row = self.chat_row(list, i, level);
            row.has_children = match vis {
                Some(v) => chats.children[i].iter().any(|&c| v[c] != Vis::Hidden),
                None => !chats.children[i].is_empty(),
            };
            row.context = shown == Vis::Context;
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

    /// The row of the list's chat `i` at `level`, marked if it is.
    fn chat_row<'a>(&'a self, list: &ChatList<'a, '_>, i: usize, level: usize) -> TreeRow<'a> {
        let chat = &list.chats.list[i];
        let mut row = TreeRow::new(
            RowKind::Chat {
                project: list.slug,
                chat,
            },
            level,
        );
        row.marked = self
            .marks
            .get(list.slug)
            .is_some_and(|m| m.contains(&chat.session_id));
        row.archived = list.skip.is_some();
        row
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

/// One list of a project's chats as [`TreeState::push_chats`] lays it out: `base` levels in (1
/// in the "Archived" group, whose chats `skip` names the active ones of), `vis` as the filter
/// has it.
struct ChatList<'a, 'v> {
    slug: &'a str,
    chats: &'a Chats,
    vis: Option<&'v [Vis]>,
    base: usize,
    skip: Option<&'a HashMap<String, usize>>,
}

impl ChatList<'_, '_> {
    /// Whether chat `i` is left out: an archived chat that is active too.
    fn skipped(&self, i: usize) -> bool {
        self.skip
            .is_some_and(|s| s.contains_key(&self.chats.list[i].session_id))
    }
}
