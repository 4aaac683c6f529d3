//! Marks (`space`), ranges (`v`) and the chats an action applies to.

use std::collections::{HashMap, HashSet};

use super::TreeState;
use super::row::{RowId, TreeRow};

impl TreeState {
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
        let chosen = self.chosen();
        let mut out = Vec::new();
        for slug in self.projects_of(&chosen) {
            let Some(set) = chosen.get(slug) else {
                continue;
            };
            self.push_targets(&mut out, slug, set, subtree);
        }
        out
    }

    /// The chosen chats by project: the marked ones and an open range's, else the cursor's.
    fn chosen(&self) -> HashMap<&str, HashSet<&str>> {
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
        if chosen.is_empty()
            && let Some(RowId::Chat {
                project,
                session_id,
            }) = &self.cursor
        {
            chosen
                .entry(project.as_str())
                .or_default()
                .insert(session_id.as_str());
        }
        chosen
    }

    /// The projects of `chosen`, in the tree's order, then those not (yet) in the project
    /// list, by slug.
    fn projects_of<'a>(&'a self, chosen: &HashMap<&'a str, HashSet<&str>>) -> Vec<&'a str> {
        let mut projects: Vec<&str> = self.projects.iter().map(|p| p.slug.as_str()).collect();
        // Chats of a project not (yet) in the project list still count.
        let mut others: Vec<&str> = chosen
            .keys()
            .copied()
            .filter(|slug| !projects.contains(slug))
            .collect();
        others.sort_unstable();
        projects.extend(others);
        projects
    }

    /// The chosen chats `set` of project `slug` (with their descendants when `subtree`), in
    /// display order: the active chats, then the archived ones.
    fn push_targets(
        &self,
        out: &mut Vec<(String, String)>,
        slug: &str,
        set: &HashSet<&str>,
        subtree: bool,
    ) {
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
}
