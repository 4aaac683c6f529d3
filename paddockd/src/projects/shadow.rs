//! Two projects on one directory (made before `project:create` refused it, or a
//! `project.toml` edited by hand): which one owns it, and what the other one says. The other
//! is kept apart ([`Project::shadowed_by`]): no chats, no turns, no links.

use super::{PROJECT_FILE, Project};

/// The project among `others` that owns `project`'s directory, when it is not `project`
/// itself: the root workspace, a notebook or a clone own theirs outright (it is inside their
/// folder); among projects on a directory of the user's own, the one created first (then by
/// slug).
pub(super) fn owner_among(project: &Project, others: &[Project]) -> Option<String> {
    let rank = |p: &Project| (p.has_own_dir(), p.file.created_at.clone(), p.slug.clone());
    let mine = rank(project);
    others
        .iter()
        .filter(|other| other.slug != project.slug && other.agent_dir == project.agent_dir)
        .filter(|other| rank(other) < mine)
        .min_by_key(|other| rank(other))
        .map(|other| other.slug.clone())
}

impl Project {
    /// Why this project cannot run, when another one owns its directory.
    pub fn shadow_problem(&self) -> Option<String> {
        let owner = self.shadowed_by.as_ref()?;
        let owner = if owner.is_empty() {
            "the root workspace".to_owned()
        } else {
            format!("project {owner}")
        };
        Some(format!(
            "project {} runs in {}, which is {owner}'s directory, and a directory belongs to one project; give {} another `path` in {} and restart paddockd, or remove it (`paddock project rm {}` leaves {owner}'s chats alone)",
            self.slug,
            self.agent_dir.display(),
            self.slug,
            self.meta_dir.join(PROJECT_FILE).display(),
            self.slug,
        ))
    }
}
