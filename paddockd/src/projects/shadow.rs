//! Two projects on one directory (made before `project:create` refused it, or a
//! `project.toml` edited by hand): which one owns it, and what the other one says. The other
//! is kept apart ([`Project::shadowed_by`]): no chats, no turns, no links.

use std::sync::{Arc, Mutex, PoisonError};

use super::{PROJECT_FILE, Project, ProjectError, Projects};

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

/// The last whole listing, read from every `project.toml` and kept until paddockd creates,
/// edits, moves or removes a project ([`Projects::forget_kept`]): opening a project on a
/// directory of the user's own asks who else claims it, and the chat lists' news asks which
/// folder is whose after every burst of transcript changes; neither may read every project's
/// file each time. A `project.toml` edited by hand is read at the next start (as the
/// shadowed project's message says) or the next listing.
#[derive(Debug, Default)]
pub(super) struct KeptListing {
    /// Bumped by every forget, so a listing read while a change came is not kept; the
    /// listing kept.
    state: Mutex<(u64, Option<Arc<Vec<Project>>>)>,
}

impl KeptListing {
    /// The kept listing, or the generation a listing read now must match to be kept.
    fn kept(&self) -> Result<Arc<Vec<Project>>, u64> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.1.clone().ok_or(state.0)
    }

    /// Keeps `projects`, read from the files as of `generation`, unless a change came since.
    fn keep(&self, generation: u64, projects: Arc<Vec<Project>>) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.0 == generation {
            state.1 = Some(projects);
        }
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
    /// Every project as the last listing read them, while paddockd changed none since (else
    /// read now, and kept).
    pub fn list_kept(&self) -> Result<Arc<Vec<Project>>, ProjectError> {
        match self.kept.kept() {
            Ok(projects) => Ok(projects),
            Err(_) => self.list().map(Arc::new),
        }
    }

    /// The generation a whole listing starting now must match to be kept.
    pub(super) fn kept_generation(&self) -> u64 {
        self.kept.generation()
    }

    /// Keeps `projects`, a whole listing read as of `generation`.
    pub(super) fn keep_listing(&self, generation: u64, projects: &[Project]) {
        self.kept.keep(generation, Arc::new(projects.to_vec()));
    }

    /// Drops the kept listing: a project was created, edited, moved or removed.
    pub(crate) fn forget_kept(&self) {
        self.kept.forget();
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
