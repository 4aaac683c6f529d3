//! Spare claudes: a started, idle `claude` kept ready for the next new chat of a project used
//! lately, so that chat's first message goes to a process that is already up (starting the
//! CLI is nearly all of a bare `claude -p`'s time to its first token).
//!
//! The coordinator keeps the book here: which projects were used last, which has a spare (its
//! session id is the next new chat's), which should have one now. A spare is a chat task
//! whose process was started as that project's next new chat would be (`chat/spare.rs`), and
//! nothing else: the CLI writes no transcript before the first message, so there is no row,
//! no run, no history until it is used. Whether it fits is decided where it is used: a chat
//! task whose spare was started for other settings (the project's settings, the model, the
//! claude binary, the environment, the folder, CLAUDE.md) stops it and starts cold.
//!
//! Bounds: at most `spare_processes` spares, for the projects used last within `spare_keep`;
//! each holds a pool slot taken only when one is free and no turn waits (never waited for);
//! spares are the first reaped when a turn needs a slot; one unused for `spare_keep` stops; one
//! that died is replaced, at most [`DEATHS_TOLERATED`] times in a row per project. Spares are
//! started only when a turn has just ended, so starting one never slows a turn's start.
//!
//! A project whose chats work in worktrees of their own (`isolation = "worktree"`) gets its
//! spare in a spare worktree: the book publishes the projects that want one
//! ([`Spares::plan`]'s `worktrees`, sent on a watch), the git layer keeps a worktree ready for
//! each (`git/spare.rs`) and asks for a spare process in it (`Runner::warm_in`), and the new
//! chat that takes that worktree takes its process too (its session id is the worktree's).

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::projects::Project;

/// Projects remembered as used (most recent first).
const USED_KEPT: usize = 16;
/// A project whose spares died this many times in a row gets none until a spare of it lives
/// to be used or to be stopped.
pub(super) const DEATHS_TOLERATED: u32 = 3;

/// One project's spare.
#[derive(Debug, Clone)]
struct Slot {
    session_id: String,
    /// Its `initialize` was answered.
    ready: bool,
    /// It runs in a spare worktree.
    worktree: bool,
}

/// Whether `project`'s new chats work in worktrees of their own: its spare is in a spare
/// worktree.
pub(super) fn in_worktrees(project: &Project) -> bool {
    project.file.isolation == Some(paddock_proto::ProjectIsolation::Worktree)
}

/// A spare as `daemon:status` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpareInfo {
    pub project_slug: String,
    pub ready: bool,
    /// It runs in a spare worktree.
    pub worktree: bool,
}

/// The coordinator's book of spares.
#[derive(Debug, Default)]
pub(super) struct Spares {
    /// By project slug.
    slots: HashMap<String, Slot>,
    /// Projects used lately, most recent first, each once.
    used: Vec<(Project, Instant)>,
    /// Spares of a project that died in a row.
    deaths: HashMap<String, u32>,
}

impl Spares {
    /// `project` (seen from its own folder) was just used (a turn was asked there).
    pub(super) fn used(&mut self, project: Project, now: Instant) {
        self.used.retain(|(p, _)| p.slug != project.slug);
        self.used.insert(0, (project, now));
        self.used.truncate(USED_KEPT);
    }

    /// Takes `slug`'s spare for a new chat in the project's folder: its session id. A spare in
    /// a spare worktree is not one (the chat that takes it takes its worktree, `take_id`).
    pub(super) fn take(&mut self, slug: &str) -> Option<String> {
        if self.slots.get(slug)?.worktree {
            return None;
        }
        self.slots.remove(slug).map(|s| s.session_id)
    }

    /// Takes the spare `session_id` for the new chat of that id (one that took the spare's
    /// worktree); the project it was for.
    pub(super) fn take_id(&mut self, session_id: &str) -> Option<String> {
        let slug = self.slug_of(session_id)?;
        self.slots.remove(&slug);
        Some(slug)
    }

    /// Every spare's session id.
    pub(super) fn all(&self) -> Vec<String> {
        self.slots.values().map(|s| s.session_id.clone()).collect()
    }

    /// Whether `session_id` is a spare's.
    pub(super) fn holds(&self, session_id: &str) -> bool {
        self.slots.values().any(|s| s.session_id == session_id)
    }

    fn slug_of(&self, session_id: &str) -> Option<String> {
        self.slots
            .iter()
            .find(|(_, s)| s.session_id == session_id)
            .map(|(slug, _)| slug.clone())
    }

    /// `slug`'s spare is `session_id` now, in a spare worktree or not; the spare it had
    /// before, which is to be stopped.
    pub(super) fn add(&mut self, slug: &str, session_id: String, worktree: bool) -> Option<String> {
        let slot = Slot {
            session_id,
            ready: false,
            worktree,
        };
        self.slots
            .insert(slug.to_owned(), slot)
            .map(|old| old.session_id)
    }

    /// Whether `project` wants a spare in its worktree `session_id` now: it is among those
    /// `plan` publishes, and its spare is not that one already.
    pub(super) fn wants_in_worktree(
        &self,
        project: &Project,
        session_id: &str,
        now: Instant,
        limit: usize,
        keep: Duration,
    ) -> bool {
        let plan = self.plan(now, limit, keep);
        plan.worktrees.iter().any(|p| p.slug == project.slug)
            && self
                .slots
                .get(&project.slug)
                .is_none_or(|s| s.session_id != session_id)
    }

    pub(super) fn ready(&mut self, session_id: &str) {
        if let Some(slot) = self.slots.values_mut().find(|s| s.session_id == session_id) {
            slot.ready = true;
        }
    }

    /// A spare's process is gone; a death counts against its project.
    pub(super) fn gone(&mut self, session_id: &str, died: bool) {
        let Some(slug) = self.slug_of(session_id) else {
            return;
        };
        self.slots.remove(&slug);
        if died {
            *self.deaths.entry(slug).or_default() += 1;
        } else {
            self.deaths.remove(&slug);
        }
    }

    /// A spare of `slug` served a chat: it lived.
    pub(super) fn served(&mut self, slug: &str) {
        self.deaths.remove(slug);
    }

    /// What to do now, with at most `limit` spares for projects used within `keep`: the
    /// projects to start one for in their own folders (most recently used first), those that
    /// want one in a spare worktree, and the spares no longer wanted (their session ids, a
    /// spare of the wrong kind among them), which are stopped first.
    pub(super) fn plan(&self, now: Instant, limit: usize, keep: Duration) -> Plan {
        let wanted: Vec<&Project> = self
            .used
            .iter()
            .filter(|(p, at)| {
                now.saturating_duration_since(*at) < keep
                    && self.deaths.get(&p.slug).copied().unwrap_or(0) < DEATHS_TOLERATED
            })
            .map(|(p, _)| p)
            .take(limit)
            .collect();
        let surplus = self
            .slots
            .iter()
            .filter(|(slug, slot)| {
                !wanted
                    .iter()
                    .any(|p| &p.slug == *slug && in_worktrees(p) == slot.worktree)
            })
            .map(|(_, s)| s.session_id.clone())
            .collect();
        let (worktrees, folders): (Vec<&Project>, Vec<&Project>) =
            wanted.into_iter().partition(|p| in_worktrees(p));
        let start = folders
            .into_iter()
            .filter(|p| !self.slots.contains_key(&p.slug))
            .cloned()
            .collect();
        let worktrees = worktrees.into_iter().cloned().collect();
        Plan {
            start,
            worktrees,
            surplus,
        }
    }

    /// The spares, for `daemon:status`.
    pub(super) fn info(&self) -> Vec<SpareInfo> {
        let mut out: Vec<SpareInfo> = self
            .slots
            .iter()
            .map(|(slug, s)| SpareInfo {
                project_slug: slug.clone(),
                ready: s.ready,
                worktree: s.worktree,
            })
            .collect();
        out.sort_by(|a, b| a.project_slug.cmp(&b.project_slug));
        out
    }
}

/// What [`Spares::plan`] says to do.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Projects to start a spare for, in their own folders.
    pub(super) start: Vec<Project>,
    /// Projects that want a spare in a spare worktree (those that have one included).
    pub(super) worktrees: Vec<Project>,
    pub(super) surplus: Vec<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn project(slug: &str) -> Project {
        Project {
            slug: slug.into(),
            meta_dir: "/m".into(),
            agent_dir: format!("/w/{slug}").into(),
            file: Default::default(),
            shadowed_by: None,
            worktree_of: None,
        }
    }

    fn slugs(ps: &[Project]) -> Vec<&str> {
        ps.iter().map(|p| p.slug.as_str()).collect()
    }

    #[test]
    fn the_projects_used_last_get_the_spares_and_the_rest_are_stopped() {
        let t0 = Instant::now();
        let keep = Duration::from_secs(60);
        let mut s = Spares::default();
        s.used(project("a"), t0);
        s.used(project("b"), t0);
        let plan = s.plan(t0, 1, keep);
        assert_eq!(slugs(&plan.start), ["b"]);
        s.add("b", "sb".into(), false);
        assert!(s.holds("sb"));
        // a is used again: b's spare is surplus, a wants one.
        s.used(project("a"), t0);
        let plan = s.plan(t0, 1, keep);
        assert_eq!(slugs(&plan.start), ["a"]);
        assert_eq!(plan.surplus, ["sb"]);
        // With two allowed, both keep one.
        let plan = s.plan(t0, 2, keep);
        assert_eq!(slugs(&plan.start), ["a"]);
        assert!(plan.surplus.is_empty());
        // Past `keep`, nobody wants one.
        let plan = s.plan(t0 + keep, 2, keep);
        assert!(plan.start.is_empty());
        assert_eq!(plan.surplus, ["sb"]);
        assert_eq!(s.take("b").as_deref(), Some("sb"));
        assert!(!s.holds("sb"));
    }

    #[test]
    fn a_project_whose_spares_keep_dying_gets_none() {
        let t0 = Instant::now();
        let keep = Duration::from_secs(60);
        let mut s = Spares::default();
        s.used(project("a"), t0);
        for n in 0..DEATHS_TOLERATED {
            assert_eq!(slugs(&s.plan(t0, 1, keep).start), ["a"], "death {n}");
            s.add("a", format!("s{n}"), false);
            s.gone(&format!("s{n}"), true);
        }
        assert!(s.plan(t0, 1, keep).start.is_empty());
        s.served("a");
        assert_eq!(slugs(&s.plan(t0, 1, keep).start), ["a"]);
    }

    #[test]
    fn a_project_of_worktree_chats_wants_its_spare_in_a_worktree() {
        let t0 = Instant::now();
        let keep = Duration::from_secs(60);
        let mut s = Spares::default();
        let mut wt = project("w");
        wt.file.isolation = Some(paddock_proto::ProjectIsolation::Worktree);
        s.used(project("a"), t0);
        s.used(wt.clone(), t0);
        let plan = s.plan(t0, 2, keep);
        assert_eq!(slugs(&plan.start), ["a"]);
        assert_eq!(slugs(&plan.worktrees), ["w"]);
        // Its spare worktree's process is wanted once, and not beyond the limit.
        assert!(s.wants_in_worktree(&wt, "sw", t0, 2, keep));
        assert_eq!(s.add("w", "sw".into(), true), None);
        assert!(!s.wants_in_worktree(&wt, "sw", t0, 2, keep));
        // Another worktree (HEAD moved) replaces it.
        assert!(s.wants_in_worktree(&wt, "sw2", t0, 2, keep));
        assert_eq!(s.add("w", "sw2".into(), true).as_deref(), Some("sw"));
        // A chat kept in the project's folder does not take it.
        assert_eq!(s.take("w"), None);
        assert!(s.holds("sw2"));
        assert_eq!(s.take_id("sw2").as_deref(), Some("w"));
        // A folder spare of a project that turned to worktrees is surplus.
        s.add("w", "sf".into(), false);
        assert_eq!(s.plan(t0, 2, keep).surplus, ["sf"]);
        // Beyond the limit, no longer wanted.
        s.used(project("a"), t0);
        assert!(!s.wants_in_worktree(&wt, "sw3", t0, 1, keep));
    }
}
