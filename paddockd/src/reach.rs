//! Which projects an actor may act on: one rule for the two actors that name projects and
//! chats in their calls. A management client reaches what its `mcp_clients.NAME.projects`
//! lists, less its `deny_projects` (`config/management.rs`); a chat's tools reach its own
//! project and the ones its project's `reach` setting lists (`agent/tools/reach.rs`).
//!
//! Enumerating filters (a listing shows only what is reached) and addressing refuses (a call
//! naming another project, or a chat of one, is answered with why, and nothing is done). A
//! chat is judged by the project it is in, found from its full id, the id the call then acts
//! on. `""` is the root workspace, a slug like any other; `"*"` is every project.

/// The projects an actor reaches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// The slugs reached; `None` is every project.
    pub projects: Option<Vec<String>>,
    /// Slugs refused whatever `projects` says (`"*"`: every one).
    pub deny: Vec<String>,
}

/// The entry of a list that means every project.
pub const EVERY: &str = "*";

fn names(list: &[String], slug: &str) -> bool {
    list.iter().any(|e| e == EVERY || e == slug)
}

impl Reach {
    /// Reaching what `projects` lists (`None`, or a list holding `"*"`: every project), less
    /// what `deny` lists.
    pub fn listed(projects: Option<Vec<String>>, deny: Vec<String>) -> Self {
        Self {
            projects: projects.filter(|list| !list.iter().any(|e| e == EVERY)),
            deny,
        }
    }

    /// What the chats of project `slug` reach: that project, and those its `reach` setting
    /// lists (`"*"`: every project).
    pub fn of_project(slug: &str, reach: &[String]) -> Self {
        let mut projects = vec![slug.to_owned()];
        projects.extend(reach.iter().filter(|e| *e != slug).cloned());
        Self::listed(Some(projects), Vec::new())
    }

    /// Whether project `slug` is reached.
    pub fn reaches(&self, slug: &str) -> bool {
        !names(&self.deny, slug) && self.projects.as_deref().is_none_or(|l| names(l, slug))
    }

    /// Whether `slug` is refused by the deny list (rather than left out of the projects).
    pub fn denies(&self, slug: &str) -> bool {
        names(&self.deny, slug)
    }

    /// Whether some project is not reached (a list, or a deny list).
    pub fn confined(&self) -> bool {
        self.projects.is_some() || !self.deny.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_project_reaches_itself_and_what_it_lists() {
        let web = Reach::of_project("web", &[]);
        assert!(web.reaches("web") && web.confined());
        assert!(
            !web.reaches("secret") && !web.reaches(""),
            "not even the root workspace"
        );
        let web = Reach::of_project("web", &list(&["secret", ""]));
        assert!(web.reaches("secret") && web.reaches("") && !web.reaches("api"));
        let root = Reach::of_project("", &[]);
        assert!(
            root.reaches("") && !root.reaches("web"),
            "the root is a project like any other"
        );
        let every = Reach::of_project("web", &list(&["*"]));
        assert!(every.reaches("api") && every.reaches("") && !every.confined());
    }

    #[test]
    fn a_deny_list_wins() {
        let r = Reach::listed(None, list(&["secret"]));
        assert!(r.reaches("web") && !r.reaches("secret") && r.denies("secret") && r.confined());
        let none = Reach::listed(Some(Vec::new()), Vec::new());
        assert!(!none.reaches("") && !none.reaches("web"));
        assert!(!Reach::listed(Some(list(&["*"])), list(&["*"])).reaches("web"));
        assert!(!Reach::default().confined() && Reach::default().reaches("x"));
    }
}
