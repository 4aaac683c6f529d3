//! Two projects on one directory (made before `project:create` refused it, or a
//! `project.toml` edited by hand): which one owns it, and what the other one says. The other
//! is kept apart ([`Project::shadowed_by`]): no chats, no turns, no links.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use super::{PROJECT_FILE, Project, ProjectError, Projects};

/// A project's claim on its directory: what [`owner_among`] compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Claim {
    slug: String,
    agent_dir: PathBuf,
    /// Who wins a shared directory: the lowest (a project inside its own folder before one on
    /// the user's, then the one created first, then by slug).
    rank: (bool, Option<String>, String),
}

impl Claim {
    pub(super) fn of(p: &Project) -> Self {
        Self {
            slug: p.slug.clone(),
            agent_dir: p.agent_dir.clone(),
            rank: (p.has_own_dir(), p.file.created_at.clone(), p.slug.clone()),
        }
    }
}

/// The project among `others` that owns `project`'s directory, when it is not `project`
/// itself: the root workspace, a notebook or a clone own theirs outright (it is inside their
/// folder); among projects on a directory of the user's own, the one created first (then by
/// slug).
pub(super) fn owner_among(project: &Claim, others: &[Claim]) -> Option<String> {
    others
        .iter()
        .filter(|other| other.slug != project.slug && other.agent_dir == project.agent_dir)
        .filter(|other| other.rank < project.rank)
        .min_by_key(|other| &other.rank)
        .map(|other| other.slug.clone())
}

/// Every project's claim, read from every `project.toml` once and kept until paddockd
/// creates, edits or removes a project ([`Projects::forget_claims`]): opening a project on a
/// directory of the user's own asks who else claims it, and that must not read every other
/// project's file each time. A `project.toml` edited by hand is read at the next start (as
/// the shadowed project's message says) or the next listing. The last whole listing is kept
/// beside them, for what only needs to know which folder is whose ([`Projects::list_kept`]).
#[derive(Debug, Default)]
pub(super) struct ClaimCache {
    /// Bumped by every forget, so a read that raced a change is not kept.
    state: Mutex<(u64, Option<Arc<Vec<Claim>>>)>,
    /// The last whole listing, and the generation it was read at.
    listed: Mutex<Option<(u64, Arc<Vec<Project>>)>>,
}

impl ClaimCache {
    /// The kept claims, or the generation a read made now must match to be kept.
    fn kept(&self) -> Result<Arc<Vec<Claim>>, u64> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.1.clone().ok_or(state.0)
    }

    /// Keeps `claims`, read from the files as of `generation`, unless a change came since.
    fn keep(&self, generation: u64, claims: Arc<Vec<Claim>>) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.0 == generation {
            state.1 = Some(claims);
        }
    }

    /// Keeps a whole listing read as of `generation`.
    fn keep_listed(&self, generation: u64, projects: Vec<Project>) {
        *self.listed.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((generation, Arc::new(projects)));
    }

    /// The kept listing, when nothing changed since it was read.
    fn listed(&self) -> Option<Arc<Vec<Project>>> {
        let now = self.generation();
        self.listed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .filter(|(generation, _)| *generation == now)
            .map(|(_, projects)| projects.clone())
    }

    fn generation(&self) -> u64 {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).0
    }

    fn forget(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.0 += 1;
        state.1 = None;
    }
}

impl Projects {
    /// Every project's claim: kept, else read from every project's file (and kept).
    pub(super) fn claims(&self) -> Arc<Vec<Claim>> {
        match self.claim_cache.kept() {
            Ok(claims) => claims,
            Err(generation) => {
                let claims: Vec<Claim> = self
                    .slugs()
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|s| self.load(&s).ok())
                    .map(|p| Claim::of(&p))
                    .collect();
                let claims = Arc::new(claims);
                self.claim_cache.keep(generation, claims.clone());
                claims
            }
        }
    }

    /// Keeps `projects` (every project, just read) as the claims, unless a change came since
    /// `generation`; their owners.
    pub(super) fn owners_of(&self, generation: u64, projects: &[Project]) -> Vec<Option<String>> {
        let claims: Arc<Vec<Claim>> = Arc::new(projects.iter().map(Claim::of).collect());
        self.claim_cache.keep(generation, claims.clone());
        projects
            .iter()
            .zip(claims.iter())
            .map(|(p, claim)| {
                p.has_own_dir()
                    .then(|| owner_among(claim, &claims))
                    .flatten()
            })
            .collect()
    }

    /// The generation a full read starting now must match to be kept.
    pub(super) fn claims_generation(&self) -> u64 {
        self.claim_cache.generation()
    }

    /// Every project as the last listing read them, while paddockd changed none since (else
    /// read now): for what asks which folder is whose, often (each burst of transcript
    /// changes), and must not read every project's file each time.
    pub fn list_kept(&self) -> Result<Arc<Vec<Project>>, ProjectError> {
        match self.claim_cache.listed() {
            Some(projects) => Ok(projects),
            None => self.list().map(Arc::new),
        }
    }

    /// Keeps `projects`, a whole listing read as of `generation`.
    pub(super) fn keep_listed(&self, generation: u64, projects: &[Project]) {
        self.claim_cache.keep_listed(generation, projects.to_vec());
    }

    /// Drops the kept claims: a project was created, edited, moved or removed.
    pub(crate) fn forget_claims(&self) {
        self.claim_cache.forget();
    }
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::*;

    /// A FIFO in place of `file`, with a writer that counts who opens it to read (each let go
    /// at once, with nothing to read); the count, and the switch that ends the count.
    fn counted_fifo(file: &std::path::Path) -> (Arc<AtomicUsize>, Arc<AtomicBool>) {
        std::fs::remove_file(file).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(file)
            .status()
            .unwrap();
        assert!(made.success());
        let (reads, done) = (
            Arc::new(AtomicUsize::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let (f, r, stop) = (file.to_path_buf(), reads.clone(), done.clone());
        // Opening a FIFO to write returns when someone opens it to read; the thread ends with
        // the test's process once the FIFO is gone.
        std::thread::spawn(move || {
            while std::fs::OpenOptions::new().write(true).open(&f).is_ok()
                && !stop.load(Ordering::SeqCst)
            {
                r.fetch_add(1, Ordering::SeqCst);
            }
        });
        (reads, done)
    }

    /// Opening a project on a directory of the user's own asks who else claims it from the
    /// kept claims, and a listing for which folder is whose is the kept one: neither reads
    /// another project's file (issue 36.14; it read every one, each time).
    #[test]
    fn opening_a_project_on_its_own_directory_reads_no_other_projects_file() {
        let data = tempfile::tempdir().unwrap();
        let own = tempfile::tempdir().unwrap();
        let store = Projects::new(data.path());
        store.create("web", Some(own.path())).unwrap();
        store.create("other", None).unwrap();
        store.list().unwrap();
        let (reads, done) = counted_fifo(&store.file_path("other"));
        let web = store.get_blocking("web").unwrap();
        let kept = store.list_kept().unwrap();
        let read = reads.load(Ordering::SeqCst);
        done.store(true, Ordering::SeqCst);
        std::fs::remove_file(store.file_path("other")).unwrap();
        assert_eq!(read, 0, "another project's file was opened {read} times");
        assert_eq!(web.shadowed_by, None);
        assert_eq!(kept.len(), 3, "the root, web and other");
        // A change paddockd makes is seen: the kept claims and listing are dropped.
        store.create("third", None).unwrap();
        assert!(store.list_kept().unwrap().iter().any(|p| p.slug == "third"));
    }
}
