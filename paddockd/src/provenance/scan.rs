//! The bounded before/after scan of a project's directory around an opaque tool call: a
//! snapshot of every file's mtime and size, and the difference of two snapshots.

use std::collections::BTreeMap;
use std::path::Path;

/// Directories never scanned, besides every hidden one (a name starting with `.`).
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "__pycache__"];

/// Why a scan could not attribute.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScanError {
    /// More files than the bound.
    #[error("sandbox-too-large")]
    TooLarge,
    #[error("scan-failed")]
    Failed(String),
}

impl ScanError {
    /// The visible result recorded on the step.
    pub fn label(&self) -> &'static str {
        match self {
            ScanError::TooLarge => "sandbox-too-large",
            ScanError::Failed(_) => "scan-failed",
        }
    }
}

/// What a file looked like: enough to notice a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub mtime_ns: i128,
    pub size: u64,
}

/// Every regular file under the root, by path relative to it (`/`-separated).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub files: BTreeMap<String, Stamp>,
}

/// What happened to a file between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    Created,
    Modified,
    Deleted,
}

impl Change {
    pub fn name(self) -> &'static str {
        match self {
            Change::Created => "created",
            Change::Modified => "modified",
            Change::Deleted => "deleted",
        }
    }
}

/// Whether a directory entry is left out of scans.
pub fn skipped_dir(name: &str) -> bool {
    name.starts_with('.') || SKIPPED_DIRS.contains(&name)
}

/// Snapshots `root`, stopping with [`ScanError::TooLarge`] past `max_files` files. Symbolic
/// links are not followed; subfolders that cannot be read are left out.
pub fn scan(root: &Path, max_files: usize) -> Result<Snapshot, ScanError> {
    let mut snap = Snapshot::default();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    let mut first = true;
    while let Some((dir, prefix)) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if first => return Err(ScanError::Failed(e.to_string())),
            Err(_) => continue,
        };
        first = false;
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            let rel = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            if meta.is_dir() {
                if !skipped_dir(&name) {
                    stack.push((entry.path(), rel));
                }
            } else if meta.is_file() {
                if snap.files.len() >= max_files {
                    return Err(ScanError::TooLarge);
                }
                snap.files.insert(rel, stamp_of(&meta));
            }
        }
    }
    Ok(snap)
}

fn stamp_of(meta: &std::fs::Metadata) -> Stamp {
    use std::os::unix::fs::MetadataExt as _;
    Stamp {
        mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        size: meta.size(),
    }
}

/// The files created, modified or deleted from `before` to `after`, in path order.
pub fn diff(before: &Snapshot, after: &Snapshot) -> Vec<(String, Change)> {
    let mut out = Vec::new();
    for (path, stamp) in &after.files {
        match before.files.get(path) {
            None => out.push((path.clone(), Change::Created)),
            Some(old) if old != stamp => out.push((path.clone(), Change::Modified)),
            Some(_) => {}
        }
    }
    for path in before.files.keys() {
        if !after.files.contains_key(path) {
            out.push((path.clone(), Change::Deleted));
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn the_diff_names_created_modified_and_deleted_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("keep.txt"), "same").unwrap();
        std::fs::write(root.join("change.txt"), "one").unwrap();
        std::fs::write(root.join("gone.txt"), "bye").unwrap();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        for skipped in [".git", "node_modules", "target", ".chats", ".paddock"] {
            std::fs::create_dir_all(root.join(skipped)).unwrap();
        }
        let before = scan(root, 100).unwrap();
        assert_eq!(before.files.len(), 3);

        std::fs::write(root.join("change.txt"), "three").unwrap();
        std::fs::remove_file(root.join("gone.txt")).unwrap();
        std::fs::write(root.join("sub/new.txt"), "hi").unwrap();
        for skipped in [".git", "node_modules", "target", ".chats", ".paddock"] {
            std::fs::write(root.join(skipped).join("x"), "ignored").unwrap();
        }
        let after = scan(root, 100).unwrap();
        assert_eq!(
            diff(&before, &after),
            vec![
                ("change.txt".to_owned(), Change::Modified),
                ("gone.txt".to_owned(), Change::Deleted),
                ("sub/new.txt".to_owned(), Change::Created),
            ]
        );
    }

    #[test]
    fn a_tree_over_the_bound_is_too_large() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..6 {
            std::fs::write(dir.path().join(format!("f{i}")), "x").unwrap();
        }
        assert_eq!(scan(dir.path(), 6).unwrap().files.len(), 6);
        assert_eq!(scan(dir.path(), 5), Err(ScanError::TooLarge));
        assert_eq!(ScanError::TooLarge.label(), "sandbox-too-large");
    }

    #[test]
    fn a_missing_root_is_a_failed_scan() {
        let dir = tempfile::tempdir().unwrap();
        let err = scan(&dir.path().join("nope"), 10).unwrap_err();
        assert_eq!(err.label(), "scan-failed");
    }
}
