//! File-system watching for the index: where a watched folder really is, which directories to
//! watch for it, and the `notify` watcher feeding the indexer's bounded queue.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;
use tracing::{debug, warn};

/// Where a watched folder really is, and where to look for it moving or appearing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolution {
    /// The real folder (symlinks resolved), if it exists.
    pub dir: Option<PathBuf>,
    /// `(directory, name)`: an event on `directory/name` means the folder may have been
    /// repointed (a symlink's parent) or created (the nearest existing ancestor of a missing
    /// folder). Directories here are resolved too, like the paths `notify` reports.
    pub anchors: Vec<(PathBuf, OsString)>,
}

impl Resolution {
    /// Whether an event on `path` concerns the folder itself rather than a file in it.
    pub fn is_folder_event(&self, path: &Path) -> bool {
        self.dir.as_deref() == Some(path)
            || self
                .anchors
                .iter()
                .any(|(dir, name)| path.parent() == Some(dir) && path.file_name() == Some(name))
    }

    /// Whether an overflowed event in directory `dir` may have concerned this folder.
    pub fn involves_dir(&self, dir: &Path) -> bool {
        self.dir.as_deref() == Some(dir) || self.anchors.iter().any(|(d, _)| d == dir)
    }
}

/// Resolves `folder` now (blocking).
pub fn resolve(folder: &Path) -> Resolution {
    let dir = std::fs::canonicalize(folder).ok().filter(|d| d.is_dir());
    let mut anchors = Vec::new();
    let link = std::fs::symlink_metadata(folder)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false);
    let mut target = folder.to_path_buf();
    if link && let (Some(parent), Some(name)) = (folder.parent(), folder.file_name()) {
        let parent = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
        if let Ok(to) = std::fs::read_link(folder) {
            target = parent.join(to);
        }
        anchors.push((parent, name.to_os_string()));
    }
    if dir.is_none() {
        // Watch the nearest existing ancestor for the next component to appear.
        let mut child = target.as_path();
        while let (Some(parent), Some(name)) = (child.parent(), child.file_name()) {
            if let Ok(real) = std::fs::canonicalize(parent) {
                anchors.push((real, name.to_os_string()));
                break;
            }
            child = parent;
        }
    }
    Resolution { dir, anchors }
}

/// Events the notify thread could not queue, for the indexer to catch up on.
#[derive(Default)]
pub struct Overflow {
    dirs: Mutex<HashSet<PathBuf>>,
    all: AtomicBool,
    pub wake: tokio::sync::Notify,
}

impl Overflow {
    fn mark_dirs(&self, paths: Vec<PathBuf>) {
        let mut dirs = self.dirs.lock().unwrap_or_else(PoisonError::into_inner);
        for p in paths {
            if let Some(parent) = p.parent() {
                dirs.insert(parent.to_path_buf());
            }
            dirs.insert(p);
        }
        drop(dirs);
        self.wake.notify_one();
    }

    pub fn mark_all(&self) {
        self.all.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }

    /// Takes what overflowed: (everything?, the directories involved).
    pub fn take(&self) -> (bool, HashSet<PathBuf>) {
        let all = self.all.swap(false, Ordering::SeqCst);
        let dirs = std::mem::take(&mut *self.dirs.lock().unwrap_or_else(PoisonError::into_inner));
        (all, dirs)
    }
}

/// Whether a file event is only an open or a read (ours included): it changes nothing. The
/// one rule of the index's watch and of a turn's transcript settle (`runner/settle.rs`).
pub fn changes_nothing(kind: &EventKind) -> bool {
    matches!(kind, EventKind::Access(access) if *access != AccessKind::Close(AccessMode::Write))
}

/// The `notify` watcher and the directories it watches (with their identity, to notice a
/// directory deleted and created again: inotify drops the watch of a deleted directory).
pub struct Watches {
    watcher: Option<RecommendedWatcher>,
    current: HashMap<PathBuf, (u64, u64)>,
    /// Directories that could not be watched, so each is warned about once.
    failed: HashSet<PathBuf>,
}

impl Watches {
    /// Starts the watcher. Events go to `tx` (bounded).
    ///
    /// Overflow policy: the notify thread never blocks. When the queue is full the event is
    /// dropped and the directories of its paths are marked dirty in `overflow`; the indexer
    /// reconciles every folder involved (a stat per file; only changed files are read) as soon
    /// as it catches up. Rescan requests (the kernel queue overflowed) and watcher errors mark
    /// every folder dirty.
    pub fn new(tx: mpsc::Sender<Vec<PathBuf>>, overflow: Arc<Overflow>) -> Self {
        let handler = move |res: notify::Result<notify::Event>| match res {
            Ok(event) => {
                if event.need_rescan() {
                    overflow.mark_all();
                    return;
                }
                if changes_nothing(&event.kind) || event.paths.is_empty() {
                    return;
                }
                match tx.try_send(event.paths) {
                    Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => {}
                    Err(mpsc::error::TrySendError::Full(paths)) => overflow.mark_dirs(paths),
                }
            }
            Err(e) => {
                debug!(error = %e, "chat index: watcher error; reconciling every folder");
                overflow.mark_all();
            }
        };
        let watcher = match notify::recommended_watcher(handler) {
            Ok(w) => Some(w),
            Err(e) => {
                warn!(error = %e, "chat index: cannot watch files; changes show up at the periodic reconcile only");
                None
            }
        };
        Watches {
            watcher,
            current: HashMap::new(),
            failed: HashSet::new(),
        }
    }

    /// Watches exactly `desired` (non-recursively), re-adding any directory replaced since.
    pub fn sync(&mut self, desired: &HashSet<PathBuf>) {
        let Some(watcher) = self.watcher.as_mut() else {
            return;
        };
        let stale: Vec<PathBuf> = self
            .current
            .keys()
            .filter(|p| !desired.contains(*p))
            .cloned()
            .collect();
        self.failed.retain(|p| desired.contains(p));
        for p in stale {
            self.current.remove(&p);
            let _ = watcher.unwatch(&p);
        }
        for p in desired {
            let id = std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
            let known = self.current.get(p).copied();
            if id.is_some() && id == known {
                continue;
            }
            if known.is_some() {
                self.current.remove(p);
                let _ = watcher.unwatch(p);
            }
            let Some(id) = id else { continue };
            match watcher.watch(p, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    self.failed.remove(p);
                    self.current.insert(p.clone(), id);
                }
                Err(e) => {
                    if self.failed.insert(p.clone()) {
                        warn!(dir = %p.display(), error = %e, "chat index: cannot watch; relying on the periodic reconcile");
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn resolves_links_and_missing_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let real = root.join("real");
        std::fs::create_dir(&real).unwrap();
        let plain = resolve(&real);
        assert_eq!(plain.dir.as_deref(), Some(real.as_path()));
        assert!(plain.anchors.is_empty());

        let link = root.join("project/.chats");
        std::fs::create_dir(root.join("project")).unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let linked = resolve(&link);
        assert_eq!(linked.dir.as_deref(), Some(real.as_path()));
        assert_eq!(
            linked.anchors,
            vec![(root.join("project"), ".chats".into())]
        );
        assert!(linked.is_folder_event(&link));

        let missing = root.join("a/b/c");
        let r = resolve(&missing);
        assert_eq!(r.dir, None);
        assert_eq!(r.anchors, vec![(root.clone(), "a".into())]);
        assert!(r.is_folder_event(&root.join("a")));
        assert!(r.involves_dir(&root));

        // A link to a folder that does not exist yet: its parent and the target's ancestor.
        let dangling = root.join("project/.later");
        std::os::unix::fs::symlink(root.join("later/x"), &dangling).unwrap();
        let r = resolve(&dangling);
        assert_eq!(r.dir, None);
        assert_eq!(
            r.anchors,
            vec![
                (root.join("project"), ".later".into()),
                (root.clone(), "later".into())
            ]
        );
    }
}
