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

use std::collections::{HashMap, HashSet};

use paddock_proto::{Active, ChatSummary, Chats as Listing, Origin, ProjectInfo};

use crate::format::tree_depths;

/// A row's identity, stable across reloads.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RowId {
    Project(String),
    Chat {
        project: String,
        session_id: String,
    },
    /// The "no chats" row of a project.
    Empty(String),
    /// The "Archived" group row at the end of a project's chats.
    Archived(String),
}

impl RowId {
    /// The project the row belongs to.
    pub fn project(&self) -> &str {
        match self {
            RowId::Project(slug) | RowId::Empty(slug) | RowId::Archived(slug) => slug,
            RowId::Chat { project, .. } => project,
        }
    }
}

/// What a row shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RowKind<'a> {
    Project(&'a ProjectInfo),
    Chat {
        project: &'a str,
        chat: &'a ChatSummary,
    },
    /// A project with no chats says so, so it does not look like a loading glitch.
    Empty {
        slug: &'a str,
    },
    /// A project's archived chats, folded behind one row: how many (once listed), whether the
    /// list is being read, why it could not be.
    Archived {
        slug: &'a str,
        count: Option<usize>,
        loading: bool,
        error: Option<&'a str>,
    },
}

/// One line of the tree pane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeRow<'a> {
    pub kind: RowKind<'a>,
    /// Nesting: 0 for a project and for a root chat, the daemon's `level` for a nested chat; 1
    /// for a "no chats" row.
    pub level: usize,
    /// A project always (its chats, or the "no chats" row); a chat with children (while a
    /// filter is on, with children shown).
    pub has_children: bool,
    /// Folded (its children hidden). Never while a filter is on.
    pub folded: bool,
    /// Marked with `space`, or inside an open `v` range.
    pub marked: bool,
    /// Shown only as the ancestor of a filter match.
    pub context: bool,
    /// How many chats the fold hides.
    pub hidden: usize,
    /// Whether a chat the fold hides is unread.
    pub hidden_unread: bool,
    /// Whether a chat the fold hides is running.
    pub hidden_running: bool,
    /// A chat shown inside its project's "Archived" group (its level counts the group).
    pub archived: bool,
}

impl<'a> TreeRow<'a> {
    fn new(kind: RowKind<'a>, level: usize) -> Self {
        Self {
            kind,
            level,
            has_children: false,
            folded: false,
            marked: false,
            context: false,
            hidden: 0,
            hidden_unread: false,
            hidden_running: false,
            archived: false,
        }
    }

    pub fn id(&self) -> RowId {
        match self.kind {
            RowKind::Project(p) => RowId::Project(p.slug.clone()),
            RowKind::Chat { project, chat } => RowId::Chat {
                project: project.to_owned(),
                session_id: chat.session_id.clone(),
            },
            RowKind::Empty { slug } => RowId::Empty(slug.to_owned()),
            RowKind::Archived { slug, .. } => RowId::Archived(slug.to_owned()),
        }
    }

    /// Whether this row is the one `id` names.
    pub fn is(&self, id: &RowId) -> bool {
        match (self.kind, id) {
            (RowKind::Project(p), RowId::Project(slug)) => p.slug == *slug,
            (
                RowKind::Chat { project, chat },
                RowId::Chat {
                    project: p,
                    session_id,
                },
            ) => project == p && chat.session_id == *session_id,
            (RowKind::Empty { slug }, RowId::Empty(s))
            | (RowKind::Archived { slug, .. }, RowId::Archived(s)) => slug == s,
            _ => false,
        }
    }

    /// The chat on this row, if it is a chat row.
    pub fn chat(&self) -> Option<&'a ChatSummary> {
        match self.kind {
            RowKind::Chat { chat, .. } => Some(chat),
            _ => None,
        }
    }

    /// The project this row belongs to.
    pub fn project(&self) -> &'a str {
        match self.kind {
            RowKind::Project(p) => &p.slug,
            RowKind::Chat { project, .. } => project,
            RowKind::Empty { slug } | RowKind::Archived { slug, .. } => slug,
        }
    }
}

/// Whether a chat of this origin ran without the user: scheduled, spawned and hook chats.
/// Written as an exclusion list on purpose (as the reference's History does): an adopted chat
/// is badged, but the user ran it personally in a terminal, so it is not unattended work.
pub fn is_unattended(origin: Origin) -> bool {
    match origin {
        Origin::Scheduled | Origin::Spawned | Origin::Hook => true,
        Origin::Human | Origin::Adopted => false,
    }
}

/// One project's chats: the daemon's list, and the order and nesting they are shown in.
#[derive(Debug, Default)]
struct Chats {
    /// In the daemon's order.
    list: Vec<ChatSummary>,
    /// Display order: indices into `list`, depth-first.
    order: Vec<usize>,
    /// The flat display order: indices into `list`, by last activity (newest first).
    flat: Vec<usize>,
    /// Per index into `list`: nesting level, parent, children (in display order).
    level: Vec<usize>,
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    /// Session id → index into `list`.
    by_id: HashMap<String, usize>,
    /// Lowercased titles, for the filter.
    title_lower: Vec<String>,
}

impl Chats {
    /// Lays out `list` (the daemon's tree order), keeping the display order of `previous` for
    /// the chats it showed (see the module docs); `None` adopts the daemon's order.
    fn build(list: Vec<ChatSummary>, previous: Option<&Chats>) -> Self {
        let n = list.len();
        // The daemon's nesting, made consistent (a row is never more than one level below the
        // row above it); each row's parent is the nearest row above it one level up.
        let depths = tree_depths(&list);
        let mut parent = vec![None; n];
        let mut stack: Vec<usize> = Vec::new();
        for (i, &depth) in depths.iter().enumerate() {
            stack.truncate(depth);
            parent[i] = stack.last().copied();
            stack.push(i);
        }
        let mut roots = Vec::new();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, p) in parent.iter().enumerate() {
            match p {
                Some(p) => children[*p].push(i),
                None => roots.push(i),
            }
        }
        let rank: HashMap<&str, usize> = previous
            .map(|prev| {
                prev.order
                    .iter()
                    .enumerate()
                    .map(|(pos, &i)| (prev.list[i].session_id.as_str(), pos))
                    .collect()
            })
            .unwrap_or_default();
        if !rank.is_empty() {
            roots = merge_order(&roots, &list, &rank);
            for group in &mut children {
                if group.len() > 1 {
                    *group = merge_order(group, &list, &rank);
                }
            }
        }
        let flat = flat_order(&list, previous);
        let mut order = Vec::with_capacity(n);
        let mut level = vec![0; n];
        let mut todo: Vec<(usize, usize)> = roots.iter().rev().map(|&i| (i, 0)).collect();
        while let Some((i, l)) = todo.pop() {
            order.push(i);
            level[i] = l;
            todo.extend(children[i].iter().rev().map(|&c| (c, l + 1)));
        }
        let by_id = list
            .iter()
            .enumerate()
            .map(|(i, c)| (c.session_id.clone(), i))
            .collect();
        let title_lower = list.iter().map(|c| c.title.to_lowercase()).collect();
        Self {
            list,
            order,
            flat,
            level,
            parent,
            children,
            by_id,
            title_lower,
        }
    }

    fn get(&self, session_id: &str) -> Option<&ChatSummary> {
        self.by_id.get(session_id).and_then(|&i| self.list.get(i))
    }

    /// Which chats a filter shows: `None` without a filter.
    fn visibility(&self, filter: &Filter<'_>) -> Option<Vec<Vis>> {
        if !filter.active() {
            return None;
        }
        let mut vis = vec![Vis::Hidden; self.list.len()];
        for (i, chat) in self.list.iter().enumerate() {
            if !filter.matches(chat, &self.title_lower[i]) {
                continue;
            }
            vis[i] = Vis::Match;
            // Parents come before children in the daemon's list, so an ancestor already shown
            // has had its own ancestors shown.
            let mut up = self.parent[i];
            while let Some(a) = up {
                if vis[a] != Vis::Hidden {
                    break;
                }
                vis[a] = Vis::Context;
                up = self.parent[a];
            }
        }
        Some(vis)
    }
}

/// The chats by last activity, the newest first (the daemon's order among equals, a chat
/// without a time last); the chats `previous` showed flat keep that order (see
/// [`merge_order`]).
fn flat_order(list: &[ChatSummary], previous: Option<&Chats>) -> Vec<usize> {
    let at = |c: &ChatSummary| {
        c.updated_at
            .as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.timestamp_millis())
    };
    let times: Vec<Option<i64>> = list.iter().map(at).collect();
    let mut by_time: Vec<usize> = (0..list.len()).collect();
    // Newest first; `None` sorts below every time.
    by_time.sort_by(|&a, &b| times[b].cmp(&times[a]).then(a.cmp(&b)));
    let rank: HashMap<&str, usize> = previous
        .map(|prev| {
            prev.flat
                .iter()
                .enumerate()
                .map(|(pos, &i)| (prev.list[i].session_id.as_str(), pos))
                .collect()
        })
        .unwrap_or_default();
    if rank.is_empty() {
        by_time
    } else {
        merge_order(&by_time, list, &rank)
    }
}

/// Orders one group of siblings: those in `rank` (shown before) by it, each new one right after
/// the nearest sibling the daemon lists before it that was shown before, or at the top.
fn merge_order(group: &[usize], list: &[ChatSummary], rank: &HashMap<&str, usize>) -> Vec<usize> {
    let rank_of = |i: usize| rank.get(list[i].session_id.as_str()).copied();
    let mut known: Vec<(usize, usize)> = group
        .iter()
        .filter_map(|&i| rank_of(i).map(|r| (r, i)))
        .collect();
    known.sort_unstable();
    // New chats by the known sibling they follow (`None`: the top).
    let mut after: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    let mut anchor = None;
    for &i in group {
        if rank_of(i).is_some() {
            anchor = Some(i);
        } else {
            after.entry(anchor).or_default().push(i);
        }
    }
    let mut out = Vec::with_capacity(group.len());
    out.extend(after.remove(&None).unwrap_or_default());
    for (_, i) in known {
        out.push(i);
        out.extend(after.remove(&Some(i)).unwrap_or_default());
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Vis {
    Hidden,
    /// An ancestor of a match.
    Context,
    Match,
}

/// The filters in force.
struct Filter<'a> {
    title: Option<&'a str>,
    unattended_only: bool,
}

impl Filter<'_> {
    fn active(&self) -> bool {
        self.title.is_some() || self.unattended_only
    }

    fn matches(&self, chat: &ChatSummary, title_lower: &str) -> bool {
        self.title.is_none_or(|t| title_lower.contains(t))
            && (!self.unattended_only || is_unattended(chat.origin))
    }
}

/// The tree pane's state. See the module docs.
#[derive(Debug, Default)]
pub struct TreeState {
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
    /// The first row on screen.
    offset: usize,
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

    // ----- archived chats -----------------------------------------------------------------

    /// Takes a project's `chat:list` answer for scope `archived` (or why it failed). A failure
    /// keeps the list held, if any.
    pub fn set_archived_chats(&mut self, slug: String, answer: Result<Vec<ChatSummary>, String>) {
        match answer {
            Ok(list) => {
                self.archive_errors.remove(&slug);
                let adopt = self.reorder_next;
                self.change(|s| {
                    let previous = if adopt { None } else { s.archived.get(&slug) };
                    let built = Chats::build(list, previous);
                    s.archived.insert(slug, built);
                });
            }
            Err(reason) => {
                self.archive_errors.insert(slug, reason);
            }
        }
    }

    /// Opens a project's "Archived" group and asks for its chats.
    pub fn open_archive(&mut self, slug: &str) {
        self.archive_open.insert(slug.to_owned());
        if !self.archive_requests.iter().any(|s| s == slug) {
            self.archive_requests.push(slug.to_owned());
        }
        self.fix_cursor();
    }

    /// Folds a project's "Archived" group (its list is kept, and its count shown).
    pub fn close_archive(&mut self, slug: &str) {
        self.archive_open.remove(slug);
        self.fix_cursor();
    }

    pub fn archive_is_open(&self, slug: &str) -> bool {
        self.archive_open.contains(slug)
    }

    /// The projects whose archived chats were asked for since the last call (a group opened).
    pub fn take_archive_requests(&mut self) -> Vec<String> {
        std::mem::take(&mut self.archive_requests)
    }

    /// Whether a project's archived chats are followed: its group is open, or was read (the
    /// count shown): read again on `chats:changed`, a reconnect, a refresh.
    pub fn follows_archive(&self, slug: &str) -> bool {
        self.archive_open.contains(slug) || self.archived.contains_key(slug)
    }

    /// Every project whose archived chats are followed (see [`TreeState::follows_archive`]).
    pub fn followed_archives(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .archive_open
            .iter()
            .chain(self.archived.keys())
            .cloned()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The projects whose "Archived" group is open, for the client state.
    pub fn open_archives(&self) -> Vec<String> {
        let mut out: Vec<String> = self.archive_open.iter().cloned().collect();
        out.sort_unstable();
        out
    }

    /// Opens the groups the client state remembers open (the loop reads them once connected,
    /// see [`TreeState::followed_archives`]).
    pub fn restore_open_archives(&mut self, slugs: Vec<String>) {
        self.change(|s| s.archive_open.extend(slugs));
    }

    /// Chats running now, in every project.
    pub fn running_count(&self) -> usize {
        self.all_chats().filter(|c| c.running).count()
    }

    /// Unread chats, in every project.
    pub fn unread_count(&self) -> usize {
        self.all_chats().filter(|c| c.unread).count()
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

    // ----- rows -------------------------------------------------------------------------

    /// The rows on screen, top to bottom.
    pub fn rows(&self) -> Vec<TreeRow<'_>> {
        self.walk(true)
    }

    /// The rows, with folds (`respect_folds`) or as if everything were unfolded. An
    /// "Archived" group's chats show while it is open, whatever `respect_folds` says.
    fn walk(&self, respect_folds: bool) -> Vec<TreeRow<'_>> {
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
    fn open_range(&self, rows: &[TreeRow<'_>]) -> Option<(usize, usize)> {
        let anchor = self.anchor.as_ref()?;
        let at = rows.iter().position(|r| r.is(anchor))?;
        let cursor = self.cursor_index.min(rows.len().checked_sub(1)?);
        Some((at.min(cursor), at.max(cursor)))
    }

    fn filter_spec(&self) -> Filter<'_> {
        Filter {
            title: self.filter.as_deref(),
            unattended_only: self.unattended_only,
        }
    }

    // ----- cursor -----------------------------------------------------------------------

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
    fn change(&mut self, f: impl FnOnce(&mut Self)) {
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

    fn fix_cursor(&mut self) {
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
        let at = found.unwrap_or(self.cursor_index.min(last));
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

    // ----- remembered state -------------------------------------------------------------

    /// Lists chats flat (by last activity) or nested.
    pub fn set_flat(&mut self, flat: bool) {
        self.change(|s| s.flat = flat);
    }

    pub fn flat(&self) -> bool {
        self.flat
    }

    /// The folded projects and chats (session ids), those still waiting for their chat
    /// included, for the client state.
    pub fn folds(&self) -> (Vec<String>, Vec<String>) {
        let projects = self.folded_projects.iter().cloned().collect();
        let chats = self
            .folded_chats
            .values()
            .flatten()
            .chain(&self.pending_folds)
            .cloned()
            .collect();
        (projects, chats)
    }

    /// Folds projects and chats from the client state; a chat not listed yet is folded when
    /// it is.
    pub fn restore_folds(&mut self, projects: Vec<String>, chats: Vec<String>) {
        self.change(|s| {
            s.folded_projects.extend(projects);
            s.pending_folds.extend(chats);
        });
    }

    /// Forgets the folds still waiting for chats that were not listed (a full list came).
    pub fn drop_pending_folds(&mut self) {
        self.pending_folds.clear();
    }

    /// Puts the cursor on a row now if it is listed, else once it is.
    pub fn select_when_listed(&mut self, id: RowId) {
        if !self.select(&id) {
            self.pending_select = Some(id);
        }
    }

    // ----- folding ----------------------------------------------------------------------

    /// Folds a project or a chat with children (the cursor moves up to it if it was inside).
    pub fn fold(&mut self, id: &RowId) {
        match id {
            RowId::Project(slug) => {
                self.folded_projects.insert(slug.clone());
            }
            RowId::Chat {
                project,
                session_id,
            } => {
                let has_children = self
                    .locate(project, session_id)
                    .is_some_and(|(c, i, _)| !c.children[i].is_empty());
                if has_children {
                    self.folded_chats
                        .entry(project.clone())
                        .or_default()
                        .insert(session_id.clone());
                }
            }
            RowId::Archived(slug) => {
                let slug = slug.clone();
                self.close_archive(&slug);
            }
            RowId::Empty(_) => return,
        }
        self.fix_cursor();
    }

    pub fn unfold(&mut self, id: &RowId) {
        match id {
            RowId::Project(slug) => {
                self.folded_projects.remove(slug);
            }
            RowId::Chat {
                project,
                session_id,
            } => {
                if let Some(set) = self.folded_chats.get_mut(project) {
                    set.remove(session_id);
                }
            }
            RowId::Archived(slug) => {
                let slug = slug.clone();
                self.open_archive(&slug);
            }
            RowId::Empty(_) => return,
        }
        self.fix_cursor();
    }

    pub fn is_folded(&self, id: &RowId) -> bool {
        match id {
            RowId::Project(slug) => self.folded_projects.contains(slug),
            RowId::Chat {
                project,
                session_id,
            } => self
                .folded_chats
                .get(project)
                .is_some_and(|s| s.contains(session_id)),
            RowId::Archived(slug) => !self.archive_open.contains(slug),
            RowId::Empty(_) => false,
        }
    }

    /// Folds or unfolds the cursor's row; whether anything changed.
    pub fn toggle_fold(&mut self) -> bool {
        let Some(row) = self.cursor_row() else {
            return false;
        };
        if !row.has_children || self.filtering() {
            return false;
        }
        let id = row.id();
        if self.is_folded(&id) {
            self.unfold(&id);
        } else {
            self.fold(&id);
        }
        true
    }

    /// `h`: folds the cursor's row when it is open and has children, else moves to its parent
    /// (a root chat's parent is its project's header).
    pub fn fold_or_parent(&mut self) {
        let Some(row) = self.cursor_row() else {
            return;
        };
        if row.has_children && !row.folded && !self.filtering() {
            let id = row.id();
            self.fold(&id);
            return;
        }
        let parent = match row.kind {
            RowKind::Project(_) => return,
            RowKind::Empty { slug } | RowKind::Archived { slug, .. } => {
                RowId::Project(slug.to_owned())
            }
            RowKind::Chat { project, chat } => self
                .locate(project, &chat.session_id)
                .and_then(|(c, i, _)| {
                    let p = c.parent[i]?;
                    Some(RowId::Chat {
                        project: project.to_owned(),
                        session_id: c.list[p].session_id.clone(),
                    })
                })
                .unwrap_or_else(|| {
                    if row.archived {
                        RowId::Archived(project.to_owned())
                    } else {
                        RowId::Project(project.to_owned())
                    }
                }),
        };
        self.select(&parent);
    }

    /// `l`: unfolds the cursor's row when it is folded, else moves to its first child.
    pub fn unfold_or_child(&mut self) {
        let Some(row) = self.cursor_row() else {
            return;
        };
        if row.folded {
            let id = row.id();
            self.unfold(&id);
        } else if row.has_children {
            self.move_by(1);
        }
    }

    // ----- marks ------------------------------------------------------------------------

    /// `space`: marks or unmarks the cursor's chat; whether it was a chat.
    pub fn toggle_mark(&mut self) -> bool {
        let Some(RowId::Chat {
            project,
            session_id,
        }) = self.cursor.clone()
        else {
            return false;
        };
        let set = self.marks.entry(project.clone()).or_default();
        if set.remove(&session_id) {
            self.last_marked = None;
        } else {
            set.insert(session_id);
            self.last_marked = self.cursor.clone();
        }
        if set.is_empty() {
            self.marks.remove(&project);
        }
        true
    }

    /// `v`: marks the chats from the row `space` marked last to the cursor; without one, opens
    /// a range at the cursor, or marks the chats between its anchor and the cursor and closes
    /// it.
    pub fn toggle_range(&mut self) {
        if self.anchor.is_none() {
            match self.last_marked.take() {
                Some(from) if Some(&from) != self.cursor.as_ref() => self.anchor = Some(from),
                _ => {
                    self.anchor = self.cursor.clone();
                    return;
                }
            }
        }
        let rows = self.rows();
        let in_range: Vec<RowId> = match self.open_range(&rows) {
            Some((lo, hi)) => rows[lo..=hi]
                .iter()
                .filter(|r| r.chat().is_some())
                .map(TreeRow::id)
                .collect(),
            None => Vec::new(),
        };
        drop(rows);
        for id in in_range {
            if let RowId::Chat {
                project,
                session_id,
            } = id
            {
                self.marks.entry(project).or_default().insert(session_id);
            }
        }
        self.anchor = None;
    }

    /// Whether a `v` range is open.
    pub fn range_open(&self) -> bool {
        self.anchor.is_some()
    }

    /// Unmarks everything and closes an open range.
    pub fn clear_marks(&mut self) {
        self.marks.clear();
        self.anchor = None;
        self.last_marked = None;
    }

    pub fn marked_count(&self) -> usize {
        self.marks.values().map(HashSet::len).sum()
    }

    /// What an action applies to, as (project, session id) in display order: the marked chats
    /// (and an open range), else the cursor's chat; with `subtree`, each with all its
    /// descendants, folded or not.
    pub fn targets(&self, subtree: bool) -> Vec<(String, String)> {
        let mut chosen: HashMap<&str, HashSet<&str>> = HashMap::new();
        for (project, set) in &self.marks {
            chosen
                .entry(project.as_str())
                .or_default()
                .extend(set.iter().map(String::as_str));
        }
        let rows = self.rows();
        if let Some((lo, hi)) = self.open_range(&rows) {
            for row in &rows[lo..=hi] {
                if let Some(chat) = row.chat() {
                    chosen
                        .entry(row.project())
                        .or_default()
                        .insert(chat.session_id.as_str());
                }
            }
        }
        if chosen.is_empty() {
            match &self.cursor {
                Some(RowId::Chat {
                    project,
                    session_id,
                }) => {
                    chosen
                        .entry(project.as_str())
                        .or_default()
                        .insert(session_id.as_str());
                }
                _ => return Vec::new(),
            }
        }
        let mut out = Vec::new();
        let mut projects: Vec<&str> = self.projects.iter().map(|p| p.slug.as_str()).collect();
        // Chats of a project not (yet) in the project list still count.
        let mut others: Vec<&str> = chosen
            .keys()
            .copied()
            .filter(|slug| !projects.contains(slug))
            .collect();
        others.sort_unstable();
        projects.extend(others);
        for slug in projects {
            let Some(set) = chosen.get(slug) else {
                continue;
            };
            let active = self.chats.get(slug);
            // The active chats, then the archived ones (those not active too).
            for (chats, archived) in [(active, false), (self.archived.get(slug), true)] {
                let Some(chats) = chats else {
                    continue;
                };
                // Within a chosen chat's subtree: its level.
                let mut inside: Option<usize> = None;
                for &i in &chats.order {
                    let level = chats.level[i];
                    let chat = &chats.list[i];
                    if archived && active.is_some_and(|a| a.by_id.contains_key(&chat.session_id)) {
                        continue;
                    }
                    if inside.is_some_and(|l| level > l) {
                        out.push((slug.to_owned(), chat.session_id.clone()));
                        continue;
                    }
                    inside = None;
                    if set.contains(chat.session_id.as_str()) {
                        out.push((slug.to_owned(), chat.session_id.clone()));
                        if subtree {
                            inside = Some(level);
                        }
                    }
                }
            }
        }
        out
    }

    // ----- filters ----------------------------------------------------------------------

    /// Shows only chats whose title contains `filter` (any case), with their ancestors. `None`
    /// or a blank filter shows everything.
    pub fn set_filter(&mut self, filter: Option<String>) {
        let filter = filter
            .filter(|f| !f.trim().is_empty())
            .map(|f| f.to_lowercase());
        self.change(|s| s.filter = filter);
    }

    pub fn filter(&self) -> Option<&str> {
        self.filter.as_deref()
    }

    /// Shows only scheduled, spawned and hook chats ([`is_unattended`]), with their ancestors.
    pub fn set_unattended_only(&mut self, on: bool) {
        self.change(|s| s.unattended_only = on);
    }

    pub fn unattended_only(&self) -> bool {
        self.unattended_only
    }

    /// Whether a filter hides chats now.
    pub fn filtering(&self) -> bool {
        self.filter_spec().active()
    }

    // ----- attention --------------------------------------------------------------------

    /// `n`: moves the cursor to the next chat needing attention (unread), wrapping around and
    /// unfolding what hides it; whether the cursor moved.
    pub fn next_attention(&mut self) -> bool {
        let target = {
            let rows = self.walk(false);
            let start = self
                .cursor
                .as_ref()
                .and_then(|id| rows.iter().position(|r| r.is(id)))
                .unwrap_or(rows.len().saturating_sub(1));
            let n = rows.len();
            (1..=n)
                .map(|step| &rows[(start + step) % n])
                .find(|r| !r.context && !r.archived && r.chat().is_some_and(|c| c.unread))
                .map(TreeRow::id)
        };
        match target {
            Some(id) if self.cursor.as_ref() != Some(&id) => self.select(&id),
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
        self.offset
    }

    /// The first row to show in `height` rows so that the cursor is on screen, scrolling as
    /// little as possible from the current offset.
    pub fn view_offset(&self, height: usize, rows: usize) -> usize {
        let height = height.max(1);
        let cursor = self.cursor_index;
        let mut offset = self.offset;
        if cursor < offset {
            offset = cursor;
        } else if cursor >= offset + height {
            offset = cursor + 1 - height;
        }
        offset.min(rows.saturating_sub(height))
    }

    /// Keeps the cursor within the `height` rows on screen (call before drawing).
    pub fn scroll_into_view(&mut self, height: usize) {
        let rows = self.rows().len();
        self.offset = self.view_offset(height, rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(slug: &str) -> ProjectInfo {
        ProjectInfo {
            slug: slug.into(),
            path: format!("/src/{slug}"),
            created_at: None,
            ..Default::default()
        }
    }

    fn chat(project: &str, id: &str, origin: Origin) -> ChatSummary {
        ChatSummary {
            session_id: id.into(),
            project_slug: project.into(),
            title: format!("Title {id}"),
            origin,
            ..ChatSummary::default()
        }
    }

    fn under(mut c: ChatSummary, parent: &str, level: u32) -> ChatSummary {
        c.tree_parent = Some(parent.into());
        c.level = level;
        c.depth = level;
        c
    }

    /// Root workspace: a → (a1 → a11, a2), b; project "web": w. Project "empty" has none.
    fn state() -> TreeState {
        let mut s = TreeState::new();
        s.set_projects(vec![project(""), project("web"), project("empty")]);
        s.set_all_chats(vec![
            chat("", "a", Origin::Human),
            under(chat("", "a1", Origin::Spawned), "a", 1),
            under(chat("", "a11", Origin::Spawned), "a1", 2),
            under(chat("", "a2", Origin::Spawned), "a", 1),
            chat("", "b", Origin::Scheduled),
            chat("web", "w", Origin::Human),
        ]);
        s
    }

    fn names(s: &TreeState) -> Vec<String> {
        s.rows()
            .iter()
            .map(|r| match r.kind {
                RowKind::Project(p) => format!("[{}]", p.slug),
                RowKind::Chat { chat, .. } => {
                    format!("{}{}", "  ".repeat(r.level), chat.session_id)
                }
                RowKind::Empty { slug } => format!("({slug} empty)"),
                RowKind::Archived { slug, count, .. } => match count {
                    Some(n) => format!("<{slug} archived {n}>"),
                    None => format!("<{slug} archived>"),
                },
            })
            .collect()
    }

    fn id(session: &str) -> RowId {
        RowId::Chat {
            project: String::new(),
            session_id: session.into(),
        }
    }

    fn cursor_on(s: &TreeState) -> String {
        match s.cursor_id() {
            Some(RowId::Chat { session_id, .. }) => session_id.clone(),
            Some(RowId::Project(slug)) => format!("[{slug}]"),
            Some(RowId::Empty(slug)) => format!("({slug} empty)"),
            Some(RowId::Archived(slug)) => format!("<{slug} archived>"),
            None => "none".into(),
        }
    }

    #[test]
    fn rows_nest_chats_under_projects() {
        let s = state();
        assert_eq!(
            names(&s),
            [
                "[]",
                "a",
                "  a1",
                "    a11",
                "  a2",
                "b",
                "< archived>",
                "[web]",
                "w",
                "<web archived>",
                "[empty]",
                "(empty empty)",
                "<empty archived>"
            ]
        );
        let rows = s.rows();
        assert!(rows[1].has_children && !rows[2].folded && !rows[3].has_children);
        assert_eq!(cursor_on(&s), "[]", "the cursor starts on the first row");
        assert_eq!(s.cursor_project().as_deref(), Some(""));
    }

    #[test]
    fn folding_hides_children_and_h_l_navigate() {
        let mut s = state();
        s.fold(&id("a1"));
        assert_eq!(names(&s)[1..5], ["a", "  a1", "  a2", "b"]);
        let rows = s.rows();
        assert!(rows[2].folded);
        assert_eq!(rows[2].hidden, 1);
        drop(rows);
        s.unfold(&id("a1"));
        assert_eq!(names(&s).len(), 13);

        // h on a leaf moves to its parent; on an open parent folds it; again moves up.
        assert!(s.select(&id("a11")));
        s.fold_or_parent();
        assert_eq!(cursor_on(&s), "a1");
        s.fold_or_parent();
        assert!(s.is_folded(&id("a1")));
        assert_eq!(cursor_on(&s), "a1");
        s.fold_or_parent();
        assert_eq!(cursor_on(&s), "a");
        s.fold_or_parent(); // folds a
        assert_eq!(names(&s)[1..3], ["a", "b"]);
        s.fold_or_parent(); // a root chat's parent is its project
        assert_eq!(cursor_on(&s), "[]");
        // l unfolds a folded row, then goes to its first child.
        assert!(s.select(&id("a")));
        s.unfold_or_child();
        assert!(!s.is_folded(&id("a")));
        s.unfold_or_child();
        assert_eq!(cursor_on(&s), "a1");
        // A fold hiding the cursor moves it up to the folded row.
        assert!(s.select(&id("a11")));
        s.fold(&id("a"));
        assert_eq!(cursor_on(&s), "a");
        // toggle_fold at the cursor; a project folds too.
        assert!(s.toggle_fold());
        assert!(!s.is_folded(&id("a")));
        s.to_top();
        assert!(s.toggle_fold());
        assert_eq!(names(&s)[..2], ["[]", "[web]"]);
        assert_eq!(s.rows()[0].hidden, 5);
        // Leaves do not fold.
        s.fold(&id("b"));
        assert!(!s.is_folded(&id("b")));
    }

    #[test]
    fn the_cursor_stays_on_its_chat_across_reloads() {
        let mut s = state();
        assert!(s.select(&RowId::Chat {
            project: "web".into(),
            session_id: "w".into()
        }));
        let before = s.cursor_index();
        // New chats above it.
        let mut root = s.project_chats("").to_vec();
        root.insert(0, chat("", "new1", Origin::Human));
        root.insert(0, chat("", "new2", Origin::Human));
        s.set_project_chats(String::new(), root);
        assert_eq!(cursor_on(&s), "w");
        assert_eq!(s.cursor_index(), before + 2);
        // Its chat goes away: the row now at its place takes the cursor.
        assert!(s.select(&id("a2")));
        let at = s.cursor_index();
        let root: Vec<_> = s
            .project_chats("")
            .iter()
            .filter(|c| c.session_id != "a2")
            .cloned()
            .collect();
        s.set_project_chats(String::new(), root);
        assert_eq!(s.cursor_index(), at);
        assert_eq!(cursor_on(&s), "b");
        // The last row goes away: the cursor stays on the last row.
        s.to_bottom();
        s.set_projects(vec![project(""), project("web")]);
        assert_eq!(cursor_on(&s), "<web archived>");
    }

    #[test]
    fn rows_do_not_jump_when_the_daemon_reorders() {
        let mut s = state();
        assert!(s.select(&id("b")));
        // b gets a message: the daemon now lists it first.
        let mut list = s.project_chats("").to_vec();
        let b = list.remove(4);
        list.insert(0, b);
        s.set_project_chats(String::new(), list.clone());
        assert_eq!(
            names(&s)[..6],
            ["[]", "a", "  a1", "    a11", "  a2", "b"],
            "b stays where it was"
        );
        assert_eq!(cursor_on(&s), "b");
        // The same through a full load.
        let mut all = list.clone();
        all.push(chat("web", "w", Origin::Human));
        s.set_all_chats(all);
        assert_eq!(names(&s)[5], "b");
        // Children keep their order too.
        let mut list = s.project_chats("").to_vec();
        let a2 = list.remove(4); // [b, a, a1, a11, a2]
        list.insert(2, a2); // a's children now a2, a1
        s.set_project_chats(String::new(), list.clone());
        assert_eq!(names(&s)[1..6], ["a", "  a1", "    a11", "  a2", "b"]);
        // reorder adopts the daemon's order.
        s.reorder();
        assert_eq!(names(&s)[1..6], ["b", "a", "  a2", "  a1", "    a11"]);
        assert_eq!(cursor_on(&s), "b", "the cursor follows its chat");
    }

    #[test]
    fn a_refresh_adopts_the_daemon_order_on_the_next_full_load() {
        let mut s = state();
        let mut all: Vec<ChatSummary> = s.project_chats("").to_vec();
        let b = all.remove(4);
        all.insert(0, b);
        all.push(chat("web", "w", Origin::Human));
        s.set_all_chats(all.clone());
        assert_eq!(names(&s)[5], "b");
        s.reorder_on_next_load();
        s.set_all_chats(all);
        assert_eq!(names(&s)[1], "b");
    }

    #[test]
    fn new_chats_appear_where_the_daemon_puts_them() {
        let mut s = state();
        // The daemon: [n1, b, a, a1, a11, n2(child of a), a2, n3] -- b moved up, new n1 on top,
        // n2 a new child after a1's subtree, n3 a new root after a.
        let list = vec![
            chat("", "n1", Origin::Human),
            chat("", "b", Origin::Scheduled),
            chat("", "a", Origin::Human),
            under(chat("", "a1", Origin::Spawned), "a", 1),
            under(chat("", "a11", Origin::Spawned), "a1", 2),
            under(chat("", "n2", Origin::Spawned), "a", 1),
            under(chat("", "a2", Origin::Spawned), "a", 1),
            chat("", "n3", Origin::Human),
        ];
        s.set_project_chats(String::new(), list);
        assert_eq!(
            names(&s)[..11],
            [
                "[]",
                "n1",
                "a",
                "  a1",
                "    a11",
                "  n2",
                "  a2",
                "n3",
                "b",
                "< archived>",
                "[web]"
            ]
        );
        // A new first child goes to the top of its parent's children.
        let mut list = s.project_chats("").to_vec();
        list.insert(3, under(chat("", "n4", Origin::Spawned), "a", 1));
        s.set_project_chats(String::new(), list);
        assert_eq!(names(&s)[2..5], ["a", "  n4", "  a1"]);
    }

    #[test]
    fn marks_ranges_and_targets() {
        let mut s = state();
        // Nothing marked: the cursor's chat; a project row targets nothing.
        assert!(s.targets(false).is_empty());
        assert!(s.select(&id("a1")));
        assert_eq!(s.targets(false), [(String::new(), "a1".to_owned())]);
        assert_eq!(
            s.targets(true),
            [
                (String::new(), "a1".to_owned()),
                (String::new(), "a11".to_owned())
            ]
        );
        // space marks; a second space unmarks.
        assert!(s.toggle_mark());
        assert!(s.select(&RowId::Chat {
            project: "web".into(),
            session_id: "w".into()
        }));
        assert!(s.toggle_mark());
        assert_eq!(s.marked_count(), 2);
        assert_eq!(
            s.targets(false),
            [
                (String::new(), "a1".to_owned()),
                ("web".to_owned(), "w".to_owned())
            ]
        );
        assert!(s.toggle_mark());
        assert_eq!(s.marked_count(), 1);
        s.clear_marks();
        // v from a11 to b marks the chats in between (and shows them marked while open).
        assert!(s.select(&id("a11")));
        s.toggle_range();
        assert!(s.range_open());
        s.move_by(2);
        let marked: Vec<_> = s
            .rows()
            .iter()
            .filter(|r| r.marked)
            .filter_map(|r| r.chat().map(|c| c.session_id.clone()))
            .collect();
        assert_eq!(marked, ["a11", "a2", "b"]);
        assert_eq!(s.targets(false).len(), 3, "an open range counts");
        s.toggle_range();
        assert!(!s.range_open());
        assert_eq!(s.marked_count(), 3);
        // A range across a project header skips it.
        s.clear_marks();
        s.toggle_range();
        s.move_by(3); // b → the archived group → [web] → w
        s.toggle_range();
        assert_eq!(
            s.targets(false),
            [
                (String::new(), "b".to_owned()),
                ("web".to_owned(), "w".to_owned())
            ]
        );
        // Right after space, v marks from that row to the cursor at once.
        s.clear_marks();
        assert!(s.select(&id("a1")));
        s.toggle_mark();
        s.move_by(3); // a11, a2, b
        s.toggle_range();
        assert!(!s.range_open());
        let marked: Vec<_> = s.targets(false).into_iter().map(|(_, id)| id).collect();
        assert_eq!(marked, ["a1", "a11", "a2", "b"]);
        // With subtrees, a marked parent brings its folded descendants, once each.
        s.clear_marks();
        assert!(s.select(&id("a")));
        s.toggle_mark();
        assert!(s.select(&id("a1")));
        s.toggle_mark();
        s.fold(&id("a"));
        let subtree: Vec<_> = s.targets(true).into_iter().map(|(_, id)| id).collect();
        assert_eq!(subtree, ["a", "a1", "a11", "a2"]);
        // Marks of chats that went away are forgotten.
        s.set_project_chats(String::new(), vec![chat("", "b", Origin::Scheduled)]);
        assert_eq!(s.marked_count(), 0);
        s.clear_marks();
        assert!(!s.range_open());
    }

    #[test]
    fn the_filter_keeps_ancestors_for_context() {
        let mut s = state();
        s.fold(&id("a"));
        s.set_filter(Some("TITLE A11".into()));
        assert_eq!(
            names(&s),
            ["[]", "a", "  a1", "    a11"],
            "folds are ignored"
        );
        let rows = s.rows();
        assert!(rows[1].context && rows[2].context && !rows[3].context);
        assert!(!rows[1].folded);
        drop(rows);
        assert!(s.filtering());
        s.set_filter(Some("  ".into()));
        assert!(!s.filtering(), "a blank filter is no filter");
        s.set_filter(Some("nothing like it".into()));
        assert!(s.rows().is_empty());
        assert_eq!(s.cursor_id(), None);
        s.set_filter(None);
        assert_eq!(names(&s).len(), 10, "a is still folded");
    }

    #[test]
    fn unattended_only_leaves_human_and_adopted_out() {
        let mut s = TreeState::new();
        s.set_projects(vec![project("")]);
        s.set_all_chats(vec![
            chat("", "h", Origin::Human),
            under(chat("", "sp", Origin::Spawned), "h", 1),
            chat("", "ad", Origin::Adopted),
            chat("", "sc", Origin::Scheduled),
            chat("", "hk", Origin::Hook),
        ]);
        s.set_unattended_only(true);
        assert!(s.unattended_only());
        assert_eq!(names(&s), ["[]", "h", "  sp", "sc", "hk"]);
        assert!(s.rows()[1].context, "the human parent is context");
        assert!(!is_unattended(Origin::Adopted));
        s.set_unattended_only(false);
        assert_eq!(names(&s).len(), 7);
    }

    #[test]
    fn next_attention_wraps_and_unfolds() {
        let mut s = state();
        let mut list = s.project_chats("").to_vec();
        list[2].unread = true; // a11
        s.set_project_chats(String::new(), list);
        let mut web = s.project_chats("web").to_vec();
        web[0].unread = true;
        s.set_project_chats("web".into(), web);
        assert_eq!(s.unread_count(), 2);
        s.fold(&id("a"));
        assert!(s.next_attention());
        assert_eq!(cursor_on(&s), "a11");
        assert!(!s.is_folded(&id("a")), "unfolded to show it");
        assert!(s.next_attention());
        assert_eq!(cursor_on(&s), "w");
        assert!(s.next_attention(), "wraps around");
        assert_eq!(cursor_on(&s), "a11");
        // The only unread chat, under the cursor: nowhere to go.
        let mut web = s.project_chats("web").to_vec();
        web[0].unread = false;
        s.set_project_chats("web".into(), web);
        assert!(!s.next_attention());
    }

    #[test]
    fn moving_active_and_scrolling() {
        let mut s = state();
        s.move_by(-3);
        assert_eq!(s.cursor_index(), 0, "stops at the top");
        s.move_by(3);
        assert_eq!(cursor_on(&s), "a11");
        s.to_bottom();
        assert_eq!(cursor_on(&s), "<empty archived>");
        assert_eq!(s.cursor_project().as_deref(), Some("empty"));
        assert!(s.cursor_chat().is_none());
        s.move_by(5);
        assert_eq!(s.cursor_index(), 12, "stops at the bottom");

        let active = |session: &str, running| Active {
            project_slug: String::new(),
            session_id: session.into(),
            job_id: "j".into(),
            running,
        };
        assert!(s.apply_active(&active("b", true)));
        assert_eq!(s.running_count(), 1);
        assert!(!s.apply_active(&active("zz", true)));
        assert!(s.knows_project(""));

        s.scroll_into_view(4);
        assert_eq!(s.offset(), 9);
        s.move_by(-2);
        s.scroll_into_view(4);
        assert_eq!(s.offset(), 9, "no scrolling while the cursor is visible");
        s.to_top();
        s.scroll_into_view(4);
        assert_eq!(s.offset(), 0);
        assert_eq!(s.view_offset(4, 10), 0);
    }

    #[test]
    fn the_root_workspace_slug_is_a_real_key() {
        let mut s = TreeState::new();
        s.set_projects(vec![project("")]);
        assert_eq!(names(&s), ["[]", "( empty)", "< archived>"]);
        s.set_project_chats(String::new(), vec![chat("", "x", Origin::Human)]);
        assert_eq!(names(&s), ["[]", "x", "< archived>"]);
        assert!(s.select(&id("x")));
        assert_eq!(s.cursor_project().as_deref(), Some(""));
        assert_eq!(s.cursor_chat().map(|c| c.session_id.as_str()), Some("x"));
    }

    // ----- archived chats ---------------------------------------------------------------

    /// The root workspace's archived chats as the daemon lists them: y (starred), x → x1.
    fn archived_list() -> Vec<ChatSummary> {
        let mut y = chat("", "y", Origin::Human);
        y.starred = true;
        let list = vec![
            y,
            chat("", "x", Origin::Human),
            under(chat("", "x1", Origin::Spawned), "x", 1),
        ];
        list.into_iter()
            .map(|mut c| {
                c.archived = true;
                c
            })
            .collect()
    }

    fn group(slug: &str) -> RowId {
        RowId::Archived(slug.into())
    }

    #[test]
    fn the_archived_group_is_read_when_opened_and_nests_its_chats() {
        let mut s = state();
        assert!(s.select(&group("")));
        assert!(s.is_folded(&group("")));
        assert!(s.take_archive_requests().is_empty());
        assert!(!s.follows_archive(""));
        // l opens it: its chats are asked for, once, and it says so until they come.
        s.unfold_or_child();
        assert_eq!(s.take_archive_requests(), [""]);
        assert!(s.take_archive_requests().is_empty(), "asked once");
        assert!(matches!(
            s.rows()[6].kind,
            RowKind::Archived {
                loading: true,
                count: None,
                ..
            }
        ));
        s.set_archived_chats(String::new(), Ok(archived_list()));
        assert_eq!(
            names(&s)[5..11],
            ["b", "< archived 3>", "  y", "  x", "    x1", "[web]"]
        );
        let rows = s.rows();
        assert!(rows[7].archived && rows[8].has_children && !rows[5].archived);
        drop(rows);
        assert!(s.follows_archive(""));
        assert_eq!(s.open_archives(), [""]);
        assert_eq!(s.followed_archives(), [""]);
        // h on a root archived chat goes to the group; h there folds it, its count kept.
        assert!(s.select(&id("y")));
        s.fold_or_parent();
        assert_eq!(cursor_on(&s), "< archived>");
        s.fold_or_parent();
        assert_eq!(names(&s)[5..8], ["b", "< archived 3>", "[web]"]);
        assert!(s.follows_archive(""), "a count shown is kept current");
        assert!(s.open_archives().is_empty());
        assert!(s.take_archive_requests().is_empty(), "folding asks nothing");
        // Going to an archived chat opens its group.
        assert!(s.select(&id("x1")));
        assert_eq!(cursor_on(&s), "x1");
        assert_eq!(s.chat("", "x1").map(|c| c.archived), Some(true));
        // Marks, ranges and subtrees reach archived chats, after the active ones.
        s.toggle_mark();
        assert!(s.select(&id("b")));
        s.toggle_mark();
        assert_eq!(
            s.targets(false),
            [
                (String::new(), "b".to_owned()),
                (String::new(), "x1".to_owned())
            ]
        );
        s.clear_marks();
        assert!(s.select(&id("x")));
        assert_eq!(
            s.targets(true),
            [
                (String::new(), "x".to_owned()),
                (String::new(), "x1".to_owned())
            ]
        );
        // x unarchived: listed active before the archived list is read again, it shows once,
        // among the active chats, and the cursor goes with it.
        let mut list = s.project_chats("").to_vec();
        list.push(chat("", "x", Origin::Human));
        s.set_project_chats(String::new(), list);
        assert_eq!(cursor_on(&s), "x");
        assert!(s.cursor_row().is_some_and(|r| !r.archived));
        let shown = names(&s);
        assert_eq!(
            shown.iter().filter(|n| n.trim() == "x").count(),
            1,
            "{shown:?}"
        );
        assert!(shown.contains(&"< archived 2>".to_owned()), "{shown:?}");
        // A running archived chat is marked in place (no reload asked).
        assert!(s.apply_active(&Active {
            project_slug: String::new(),
            session_id: "x1".into(),
            job_id: "j".into(),
            running: true,
        }));
        assert_eq!(s.chat("", "x1").map(|c| c.running), Some(true));
        // A failed read is said on the group; the list held stays.
        s.set_archived_chats(String::new(), Err("the daemon is busy".into()));
        assert!(s.rows().iter().any(|r| matches!(
            r.kind,
            RowKind::Archived {
                error: Some("the daemon is busy"),
                count: Some(2),
                ..
            }
        )));
    }

    #[test]
    fn filters_and_the_flat_list_reach_into_an_open_archived_group() {
        let mut s = state();
        s.open_archive("");
        s.set_archived_chats(String::new(), Ok(archived_list()));
        // A match in the archive only: the project shows, with the group and the match's
        // ancestor as context; groups with no match are left out.
        s.set_filter(Some("title x1".into()));
        assert_eq!(names(&s), ["[]", "< archived 3>", "  x", "    x1"]);
        // A closed group is not searched.
        s.close_archive("");
        assert!(s.rows().is_empty());
        s.set_filter(None);
        s.open_archive("");
        s.set_flat(true);
        assert_eq!(
            names(&s)[..10],
            [
                "[]",
                "a",
                "a1",
                "a11",
                "a2",
                "b",
                "< archived 3>",
                "  y",
                "  x",
                "  x1"
            ]
        );
        // Remembered open: the group is read again once connected; a project gone is
        // forgotten.
        let mut s = state();
        s.restore_open_archives(vec!["web".into(), "gone".into()]);
        s.set_projects(vec![project(""), project("web"), project("empty")]);
        assert!(s.archive_is_open("web"));
        assert_eq!(s.followed_archives(), ["web"]);
        assert!(s.rows().iter().any(|r| matches!(
            r.kind,
            RowKind::Archived {
                slug: "web",
                loading: true,
                ..
            }
        )));
    }

    // ----- deltas -----------------------------------------------------------------------

    /// The root workspace's daemon list: a → (a1 → a11, a2), b.
    fn root_list() -> Vec<ChatSummary> {
        vec![
            chat("", "a", Origin::Human),
            under(chat("", "a1", Origin::Spawned), "a", 1),
            under(chat("", "a11", Origin::Spawned), "a1", 2),
            under(chat("", "a2", Origin::Spawned), "a", 1),
            chat("", "b", Origin::Scheduled),
        ]
    }

    fn full(chats: Vec<ChatSummary>, revision: u64) -> Listing {
        Listing {
            chats,
            revision: Some(revision),
            ..Listing::default()
        }
    }

    fn delta(rows: Vec<(ChatSummary, Option<&str>)>, removed: &[&str], revision: u64) -> Listing {
        let (chats, after) = rows
            .into_iter()
            .map(|(c, a)| (c, a.map(str::to_owned)))
            .unzip();
        Listing {
            chats,
            revision: Some(revision),
            delta: true,
            removed: removed.iter().map(|r| (*r).to_owned()).collect(),
            after,
        }
    }

    /// The state with the root workspace's list taken from a full answer at revision 10.
    fn listed() -> TreeState {
        let mut s = state();
        assert_eq!(
            s.project_revision(""),
            None,
            "the full list of all is another listing"
        );
        assert!(s.set_project_listing(String::new(), full(root_list(), 10), None));
        assert_eq!(s.project_revision(""), Some(10));
        s
    }

    fn daemon_order(s: &TreeState) -> Vec<&str> {
        s.project_chats("")
            .iter()
            .map(|c| c.session_id.as_str())
            .collect()
    }

    #[test]
    fn a_delta_updates_the_rows_and_keeps_the_order_on_screen() {
        let mut s = listed();
        let before = names(&s);
        // b got a new message: the daemon lists it first now, a after it.
        let mut b = chat("", "b", Origin::Scheduled);
        b.title = "B, renamed".into();
        let d = delta(
            vec![(b, None), (chat("", "a", Origin::Human), Some("b"))],
            &[],
            11,
        );
        assert!(s.set_project_listing(String::new(), d, Some(10)));
        assert_eq!(s.project_revision(""), Some(11));
        assert_eq!(daemon_order(&s), ["b", "a", "a1", "a11", "a2"]);
        assert_eq!(names(&s), before, "rows do not jump while you read");
        assert_eq!(
            s.chat("", "b").map(|c| c.title.as_str()),
            Some("B, renamed")
        );
        // `g` adopts the daemon's order, as after a full list.
        s.reorder();
        assert_eq!(
            names(&s),
            [
                "[]",
                "b",
                "a",
                "  a1",
                "    a11",
                "  a2",
                "< archived>",
                "[web]",
                "w",
                "<web archived>",
                "[empty]",
                "(empty empty)",
                "<empty archived>"
            ]
        );
    }

    #[test]
    fn a_delta_brings_new_chats_and_drops_removed_ones() {
        let mut s = listed();
        // a2 archived away (b now follows a11); a new chat n at the top.
        let d = delta(
            vec![
                (chat("", "n", Origin::Human), None),
                (chat("", "a", Origin::Human), Some("n")),
                (chat("", "b", Origin::Scheduled), Some("a11")),
            ],
            &["a2"],
            12,
        );
        assert!(s.set_project_listing(String::new(), d, Some(10)));
        assert_eq!(daemon_order(&s), ["n", "a", "a1", "a11", "b"]);
        assert_eq!(
            names(&s),
            [
                "[]",
                "n",
                "a",
                "  a1",
                "    a11",
                "b",
                "< archived>",
                "[web]",
                "w",
                "<web archived>",
                "[empty]",
                "(empty empty)",
                "<empty archived>"
            ]
        );
        // a1's new children come in a later delta too.
        let d = delta(
            vec![
                (
                    under(chat("", "a12", Origin::Spawned), "a1", 2),
                    Some("a11"),
                ),
                (chat("", "b", Origin::Scheduled), Some("a12")),
            ],
            &[],
            13,
        );
        assert!(s.set_project_listing(String::new(), d, Some(12)));
        assert_eq!(daemon_order(&s), ["n", "a", "a1", "a11", "a12", "b"]);
        assert!(names(&s).contains(&"    a12".to_owned()));
    }

    #[test]
    fn a_delta_that_does_not_fit_is_refused_and_the_next_list_is_full() {
        let mut s = listed();
        let before = names(&s);
        // Asked since a revision that is not the one held.
        let d = delta(vec![(chat("", "n", Origin::Human), None)], &[], 12);
        assert!(!s.set_project_listing(String::new(), d.clone(), Some(9)));
        assert_eq!(s.project_revision(""), None);
        assert_eq!(names(&s), before);
        // Nothing held to apply it to.
        assert!(!s.set_project_listing(String::new(), d, Some(10)));
        // A delta that does not chain: a11 is removed, and a2, listed after it, is not in
        // the delta: nothing says where it goes.
        let mut s = listed();
        let broken = delta(vec![], &["a11"], 11);
        assert!(!s.set_project_listing(String::new(), broken, Some(10)));
        assert_eq!(s.project_revision(""), None);
        assert_eq!(daemon_order(&s), ["a", "a1", "a11", "a2", "b"]);
        // The full list after it is taken.
        assert!(s.set_project_listing(String::new(), full(root_list(), 14), None));
        assert_eq!(s.project_revision(""), Some(14));
    }

    #[test]
    fn a_list_of_every_project_forgets_the_revisions() {
        let mut s = listed();
        s.set_all_chats(root_list());
        assert_eq!(s.project_revision(""), None);
        let mut s = listed();
        s.set_project_chats(String::new(), root_list());
        assert_eq!(s.project_revision(""), None);
    }

    #[test]
    fn a_full_answer_without_a_revision_leaves_none() {
        let mut s = listed();
        let old_daemon = Listing {
            chats: root_list(),
            ..Listing::default()
        };
        assert!(s.set_project_listing(String::new(), old_daemon, Some(10)));
        assert_eq!(s.project_revision(""), None);
    }
}
