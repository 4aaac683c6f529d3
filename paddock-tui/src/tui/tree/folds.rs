//! Folding projects, chats and the "Archived" group, and the folds the client state
//! remembers.

use super::TreeState;
use super::row::{RowId, RowKind};

impl TreeState {
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
            RowId::Empty(_) | RowId::Host(_) => return,
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
            RowId::Empty(_) | RowId::Host(_) => return,
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
            RowId::Empty(_) | RowId::Host(_) => false,
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
            RowKind::Host(_) | RowKind::Project(_) => return,
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
}
