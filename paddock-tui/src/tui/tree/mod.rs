//! The tree pane's state: projects, each with its chats nested by resolved parent; folds, the
//! cursor, marks, filters. Pure state, no I/O: the event loop feeds it the daemon's lists and
//! [`super::tree_view::render_tree`] draws it.
//!
//! # Rows
//!
//! [`TreeState::rows`] is what is on screen, top to bottom: each project's header, then its chats
//! depth-first (children under their parent, at the daemon's `level`), or a "no chats" row. A
//! folded chat hides its descendants, a folded project all its chats. The root workspace's slug
//! is `""`, a real key like any other.
//!
//! # The cursor
//!
//! The cursor is held by identity (a project slug, or a project and session id), never by index,
//! so a reload that inserts rows above it does not move it to another chat. When its row goes
//! away, it goes to the nearest row that is still there: the closest visible ancestor when the
//! chat is only hidden (folded away, filtered out), else whatever row now stands at the position
//! it had (the last row when the list got shorter).
//!
//! # Stable order
//!
//! The daemon orders root chats by activity, so a chat that gets a new message jumps to the top
//! of every list it sends. On screen, rows must not jump while you read; so each project keeps
//! the order it last showed (an order memory), and a new list is merged into it, one group of
//! siblings (the roots, or one chat's children) at a time:
//!
//! - chats already shown keep their relative order, whatever the daemon's order says now;
//! - a new chat is placed where the daemon put it relative to its neighbours: right after the
//!   nearest sibling the daemon lists before it that was already shown, or at the top of its
//!   siblings when the daemon lists it before all of them (a brand-new chat, the usual case);
//!   several new chats in a row keep the daemon's order among themselves;
//! - a chat that left the list is forgotten, and is new again if it comes back.
//!
//! A project's list is kept current by deltas: [`TreeState::set_project_listing`] applies a
//! `chat:list` answer asked with `since` (the revision of the list it holds,
//! [`TreeState::project_revision`]) to the daemon's order it holds, then merges the result as
//! above, exactly as a full list would be. A delta that does not fit (the list changed under
//! it, or it does not make one chain) is refused, and the caller asks for the full list. A full
//! list of every project ([`TreeState::set_all_chats`], at connect) is another listing: it
//! forgets the projects' revisions, so each project's next list is a full one.
//!
//! [`TreeState::reorder`] adopts the daemon's order at once (the `g` key does, before going to
//! the top); [`TreeState::reorder_on_next_load`] makes the next full load adopt it (a refresh).
//!
//! # Marks and targets
//!
//! `space` marks or unmarks the cursor's chat. `v` marks a range: after `space` marked a row,
//! from that row to the cursor at once; otherwise it drops an anchor at the cursor, the rows
//! between it and the cursor show as marked while you move, and a second `v` marks them. [`TreeState::targets`] is what an
//! action (archive, star, stop...) applies to: the marked chats, else the cursor's chat; with
//! `subtree`, each with all its descendants, folded or not.
//!
//! # Filters
//!
//! A title filter (case-insensitive substring) and "unattended only" (scheduled, spawned or
//! hook: not human, and not adopted, which the user ran personally in a terminal) keep the
//! matching chats, each with its ancestors as context rows; a project with no match is left
//! out. While a filter is on, folds are ignored so that no match is hidden.
//!
//! # Flat
//!
//! [`TreeState::set_flat`] lists each project's chats without nesting, by last activity (the
//! newest first), each one its own row: no folds, no context rows, spawned chats badged. The
//! order is kept while you read as in the tree (a chat's new activity does not move it until
//! `g` or a refresh), and the nesting is still there for subtree actions.
//!
//! # Archived chats
//!
//! The chat lists above are the active ones (`chat:list` scope `active`). Each project ends with
//! a collapsed "Archived" group row; opening it asks for the project's archived chats (scope
//! `archived`, a plain full list: [`TreeState::take_archive_requests`] says which projects to
//! fetch, [`TreeState::set_archived_chats`] takes the answer), shown under the group nested as
//! the daemon orders them (starred first), with the same stable order, folds, marks, ranges,
//! filters and flat list as the active chats. The count comes with the list: a group never
//! opened shows none. A chat in both lists for a moment (unarchived, the archived list not read
//! again yet) shows once, among the active ones; the cursor follows a chat from one list to the
//! other by identity.
//!
//! # Remembered state
//!
//! Folds come back from the client state before the chats they name are listed:
//! [`TreeState::restore_folds`] keeps them waiting, and each applies once its chat is listed
//! ([`TreeState::folds`] reports both). [`TreeState::select_when_listed`] does the same for the
//! cursor.

mod archive;
mod cursor;
mod filter;
mod folds;
mod host;
mod marks;
pub mod needs;
mod order;
mod row;
mod walk;

use std::collections::{HashMap, HashSet};

use paddock_proto::{Active, ChatSummary, Chats as Listing, ProjectInfo};

pub use host::{HostHead, HostState};
use order::Chats;
pub use row::{RowId, RowKind, TreeRow, is_unattended};

/// The tree pane's state. See the module docs.
#[derive(Debug, Default)]
pub struct TreeState {
    /// The hosts, on a client of several (none: the projects are the top level).
    hosts: Vec<HostHead>,
    projects: Vec<ProjectInfo>,
    /// By project slug (`""` is the root workspace).
    chats: HashMap<String, Chats>,
    folded_projects: HashSet<String>,
    /// Folded chats: project → session ids.
    folded_chats: HashMap<String, HashSet<String>>,
    /// Marked chats: project → session ids.
    marks: HashMap<String, HashSet<String>>,
    /// The start of an open `v` range.
    anchor: Option<RowId>,
    /// The row `space` marked last: where a `v` range starts when none is open.
    last_marked: Option<RowId>,
    cursor: Option<RowId>,
    /// The cursor's row index, kept in step with `cursor`.
    cursor_index: usize,
    /// The first row on screen: moved to follow the cursor before a frame (without walking
    /// the rows), and held within the rows there are by the frame that walks them.
    offset: std::cell::Cell<usize>,
    /// Lowercased; never empty.
    filter: Option<String>,
    unattended_only: bool,
    reorder_next: bool,
    /// Chats listed flat, by last activity, without nesting.
    flat: bool,
    /// Folded chats from the client state whose chats are not listed yet (session ids).
    pending_folds: HashSet<String>,
    /// Where the cursor goes once that row is listed (the client state's open chat).
    pending_select: Option<RowId>,
    /// The row `n` put the cursor on last, and the most urgent need there was then: while the
    /// cursor is still there and nothing more urgent came up, the next `n` goes on from it
    /// through the chats that need something; otherwise to the most urgent first.
    attention_at: Option<(RowId, crate::needs::Need)>,
    /// The revision of each project's list as held here (its `chat:list` listing), when the
    /// daemon gave one: the `since` of the next request.
    revisions: HashMap<String, u64>,
    /// Each project's archived chats, once listed (see the module docs).
    archived: HashMap<String, Chats>,
    /// Projects whose "Archived" group is open.
    archive_open: HashSet<String>,
    /// Why a project's archived chats could not be listed (until they are).
    archive_errors: HashMap<String, String>,
    /// Projects whose archived chats are to be fetched (a group opened).
    archive_requests: Vec<String>,
}

impl TreeState {
    pub fn new() -> Self {
        Self::default()
    }

    // ----- data -------------------------------------------------------------------------

    /// The projects; the archived chats of a project no longer listed are forgotten (and its
    /// group no longer read).
    pub fn set_projects(&mut self, projects: Vec<ProjectInfo>) {
        self.change(|s| {
            let known: HashSet<&str> = projects.iter().map(|p| p.slug.as_str()).collect();
            s.archive_open.retain(|slug| known.contains(slug.as_str()));
            s.archived.retain(|slug, _| known.contains(slug.as_str()));
            s.archive_errors
                .retain(|slug, _| known.contains(slug.as_str()));
            s.archive_requests
                .retain(|slug| known.contains(slug.as_str()));
            s.projects = projects;
        });
    }

    /// Replaces every project's chats with a list of all chats (grouped by project here, each
    /// group in the daemon's tree order). Adopts the daemon's order after
    /// [`TreeState::reorder_on_next_load`].
    pub fn set_all_chats(&mut self, chats: Vec<ChatSummary>) {
        let mut grouped: HashMap<String, Vec<ChatSummary>> = HashMap::new();
        for chat in chats {
            grouped
                .entry(chat.project_slug.clone())
                .or_default()
                .push(chat);
        }
        let adopt = std::mem::take(&mut self.reorder_next);
        // Another listing than the projects' own: their revisions no longer describe the
        // lists held here.
        self.revisions.clear();
        self.change(|s| {
            let old = std::mem::take(&mut s.chats);
            s.chats = grouped
                .into_iter()
                .map(|(slug, list)| {
                    let previous = if adopt { None } else { old.get(&slug) };
                    let built = Chats::build(list, previous);
                    (slug, built)
                })
                .collect();
        });
    }

    /// The revision of a project's list as held here: the `since` to ask with.
    pub fn project_revision(&self, slug: &str) -> Option<u64> {
        self.revisions.get(slug).copied()
    }

    /// Takes one project's `chat:list` answer, asked with `since`: a full list replaces the
    /// project's chats; a delta is applied to them when they are the list at `since`. False
    /// when the delta did not fit: nothing changed, the project's revision is forgotten, and
    /// the caller asks for the full list.
    pub fn set_project_listing(
        &mut self,
        slug: String,
        answer: Listing,
        since: Option<u64>,
    ) -> bool {
        let revision = answer.revision;
        let chats = if answer.delta {
            let held = self.revisions.get(&slug).copied();
            let applied = match (since, held) {
                (Some(since), Some(held)) if since == held => {
                    answer.apply_to(self.project_chats(&slug))
                }
                _ => None,
            };
            match applied {
                Some(chats) => chats,
                None => {
                    self.revisions.remove(&slug);
                    return false;
                }
            }
        } else {
            answer.chats
        };
        self.set_project_chats(slug.clone(), chats);
        if let Some(revision) = revision {
            self.revisions.insert(slug, revision);
        }
        true
    }

    /// Replaces one project's chats (in the daemon's tree order). The project's revision is
    /// forgotten (see [`TreeState::set_project_listing`]).
    pub fn set_project_chats(&mut self, slug: String, chats: Vec<ChatSummary>) {
        self.revisions.remove(&slug);
        self.change(|s| {
            let built = Chats::build(chats, s.chats.get(&slug));
            s.chats.insert(slug, built);
        });
    }

    /// Marks a chat running or idle (its place does not change). False when the chat is not
    /// listed: the caller reloads its project.
    pub fn apply_active(&mut self, active: &Active) -> bool {
        // Active chats first: a chat in both lists (just unarchived) is the active one.
        for lists in [&mut self.chats, &mut self.archived] {
            let Some(chats) = lists.get_mut(&active.project_slug) else {
                continue;
            };
            let Some(&i) = chats.by_id.get(&active.session_id) else {
                continue;
            };
            if let Some(chat) = chats.list.get_mut(i) {
                chat.running = active.running;
                return true;
            }
        }
        false
    }

    /// The hosts as they are now (a client of several hosts).
    pub fn set_hosts(&mut self, hosts: Vec<HostHead>) {
        self.change(|s| s.hosts = hosts);
    }

    pub fn hosts(&self) -> &[HostHead] {
        &self.hosts
    }

    /// What the tree holds of these hosts (that did not answer a listing of everything): their
    /// projects and chats, kept as they were.
    pub fn held_of(&self, hosts: &[String]) -> (Vec<ProjectInfo>, Vec<ChatSummary>) {
        let of = |slug: &str| {
            hosts
                .iter()
                .any(|h| crate::tui::hosts::slugs::host_of(slug) == Some(h.as_str()))
        };
        let projects = self
            .projects
            .iter()
            .filter(|p| of(&p.slug))
            .cloned()
            .collect();
        let chats = self
            .chats
            .iter()
            .filter(|(slug, _)| of(slug))
            .flat_map(|(_, c)| c.list.iter().cloned())
            .collect();
        (projects, chats)
    }

    pub fn projects(&self) -> &[ProjectInfo] {
        &self.projects
    }

    pub fn knows_project(&self, slug: &str) -> bool {
        self.projects.iter().any(|p| p.slug == slug)
    }

    /// A project's chats in the daemon's order (empty when none are loaded).
    pub fn project_chats(&self, slug: &str) -> &[ChatSummary] {
        self.chats.get(slug).map_or(&[][..], |c| c.list.as_slice())
    }

    /// A listed chat: an active one, else an archived one (when that list is read).
    pub fn chat(&self, project: &str, session_id: &str) -> Option<&ChatSummary> {
        self.locate(project, session_id)
            .map(|(chats, i, _)| &chats.list[i])
    }

    /// Where a chat is listed: its list, its index there, whether that is the archived list.
    /// A chat in both lists is the active one.
    fn locate(&self, project: &str, session_id: &str) -> Option<(&Chats, usize, bool)> {
        if let Some(chats) = self.chats.get(project)
            && let Some(&i) = chats.by_id.get(session_id)
        {
            return Some((chats, i, false));
        }
        let chats = self.archived.get(project)?;
        chats.by_id.get(session_id).map(|&i| (chats, i, true))
    }

    /// A chat of any project, by session id: active, else archived.
    pub fn find(&self, session_id: &str) -> Option<&ChatSummary> {
        self.chats
            .values()
            .chain(self.archived.values())
            .find_map(|c| c.get(session_id))
    }

    /// Chats running now, in every project.
    pub fn running_count(&self) -> usize {
        self.all_chats().filter(|c| c.running).count()
    }

    /// Running chats whose turn is queued for a free claude process, in every project.
    pub fn queued_count(&self) -> usize {
        self.all_chats()
            .filter(|c| c.running && c.waiting_process)
            .count()
    }

    /// Unread chats, in every project.
    pub fn unread_count(&self) -> usize {
        self.all_chats().filter(|c| c.unread).count()
    }

    /// The chats that wait for you to act: an answer, a failed or cut-short run, a usage limit.
    pub fn waiting_count(&self) -> usize {
        self.all_chats()
            .filter(|c| crate::needs::Need::of(c).is_some_and(crate::needs::Need::waits_for_you))
            .count()
    }

    fn all_chats(&self) -> impl Iterator<Item = &ChatSummary> {
        self.chats.values().flat_map(|c| c.list.iter())
    }

    // ----- order ------------------------------------------------------------------------

    /// Adopts the daemon's order for every project now (see the module docs).
    pub fn reorder(&mut self) {
        self.change(|s| {
            for chats in s.chats.values_mut().chain(s.archived.values_mut()) {
                *chats = Chats::build(std::mem::take(&mut chats.list), None);
            }
        });
    }

    /// Makes the next [`TreeState::set_all_chats`] adopt the daemon's order (a refresh).
    pub fn reorder_on_next_load(&mut self) {
        self.reorder_next = true;
    }

    /// Lists chats flat (by last activity) or nested.
    pub fn set_flat(&mut self, flat: bool) {
        self.change(|s| s.flat = flat);
    }

    pub fn flat(&self) -> bool {
        self.flat
    }
}

#[cfg(test)]
mod tests;
