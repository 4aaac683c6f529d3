//! The tree's rows: what a row names ([`RowId`]), what it shows ([`RowKind`]), and how it is
//! drawn ([`TreeRow`]).

use paddock_proto::{ChatSummary, Origin, ProjectInfo};

use super::host::HostHead;
use super::needs::Hidden;

/// A row's identity, stable across reloads.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RowId {
    /// A host's head (on a client of several hosts), by its root workspace (`NAME:`).
    Host(String),
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
            RowId::Host(slug)
            | RowId::Project(slug)
            | RowId::Empty(slug)
            | RowId::Archived(slug) => slug,
            RowId::Chat { project, .. } => project,
        }
    }
}

/// What a row shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RowKind<'a> {
    /// A host (on a client of several): its name and whether it is up.
    Host(&'a HostHead),
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
    /// What the fold hides, counted.
    pub hidden: Hidden,
    /// A chat shown inside its project's "Archived" group (its level counts the group).
    pub archived: bool,
    /// Of a host that is down: its last known state, drawn dimmed.
    pub dim: bool,
}

impl<'a> TreeRow<'a> {
    pub(super) fn new(kind: RowKind<'a>, level: usize) -> Self {
        Self {
            kind,
            level,
            has_children: false,
            folded: false,
            marked: false,
            context: false,
            hidden: Hidden::default(),
            archived: false,
            dim: false,
        }
    }

    pub fn id(&self) -> RowId {
        match self.kind {
            RowKind::Host(h) => RowId::Host(h.root.clone()),
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
            (RowKind::Host(h), RowId::Host(root)) => h.root == *root,
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
            RowKind::Host(h) => &h.root,
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
