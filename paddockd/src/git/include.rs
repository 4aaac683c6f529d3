//! A new worktree's share of the project's ignored files: those the project names in
//! `.worktreeinclude` (gitignore syntax, in the project's folder; `.env`, `node_modules/`) and
//! git ignores are copied from the project's folder into the same place of the worktree, so a
//! chat there can build and run without a fresh install. Files git tracks or that are merely
//! untracked are not copied (the worktree has the tracked ones; the others are the user's).
//! Symbolic links are copied as links, never followed.
//!
//! Blocking.

use std::path::Path;

use paddock_proto::ErrorBody;

use super::{Git, internal};

/// The file naming what to copy.
pub const INCLUDE_FILE: &str = ".worktreeinclude";

/// Copies what `.worktreeinclude` names from `from` (the project's folder) into `to` (the
/// same folder of the new worktree); the paths copied, relative to `from`.
pub(super) fn copy_included(from: &Path, to: &Path) -> Result<Vec<String>, ErrorBody> {
    let mut copied = Vec::new();
    for rel in named(from)? {
        let clean = rel.trim_end_matches('/');
        copy(&from.join(clean), &to.join(clean)).map_err(|e| {
            internal(format!(
                "cannot copy {clean} into the new worktree ({INCLUDE_FILE}): {e}"
            ))
        })?;
        copied.push(rel);
    }
    Ok(copied)
}

/// A stamp of what [`copy_included`] would copy from `from` now: the paths and, below them,
/// every entry's kind, size and modification time. Equal stamps copy the same files.
pub(super) fn stamp(from: &Path) -> Result<u64, ErrorBody> {
    use std::hash::{Hash as _, Hasher as _};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for rel in named(from)? {
        rel.hash(&mut h);
        stamp_of(&from.join(rel.trim_end_matches('/')), &mut h);
    }
    Ok(h.finish())
}

fn stamp_of(path: &Path, h: &mut impl std::hash::Hasher) {
    use std::hash::Hash as _;
    use std::os::unix::fs::MetadataExt as _;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        0u8.hash(h);
        return;
    };
    (meta.mode(), meta.len(), meta.mtime(), meta.mtime_nsec()).hash(h);
    if meta.is_dir()
        && let Ok(entries) = std::fs::read_dir(path)
    {
        let mut names: Vec<std::ffi::OsString> = entries
            .filter_map(|e| e.ok().map(|e| e.file_name()))
            .collect();
        names.sort();
        for name in names {
            name.hash(h);
            stamp_of(&path.join(&name), h);
        }
    }
}

/// The paths `.worktreeinclude` names in `from` that git ignores (a folder with its `/`).
fn named(from: &Path) -> Result<Vec<String>, ErrorBody> {
    let list = from.join(INCLUDE_FILE);
    if !list.is_file() {
        return Ok(Vec::new());
    }
    let git = Git { dir: from };
    let exclude = format!("--exclude-from={}", list.display());
    let named = git.run([
        "ls-files",
        "--others",
        "--ignored",
        exclude.as_str(),
        "--directory",
        "-z",
    ])?;
    if named.is_empty() {
        return Ok(Vec::new());
    }
    // Of those, only what git ignores: named exactly, or inside an ignored folder.
    let ignored = git.run([
        "ls-files",
        "--others",
        "--ignored",
        "--exclude-standard",
        "--directory",
        "-z",
    ])?;
    let ignored: Vec<&[u8]> = ignored
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .collect();
    let kept = named.split(|b| *b == 0).filter(|p| {
        !p.is_empty()
            && ignored
                .iter()
                .any(|i| i == p || (i.ends_with(b"/") && p.starts_with(i)))
    });
    Ok(kept
        .map(|rel| String::from_utf8_lossy(rel).into_owned())
        .collect())
}

/// Copies a file, a link (as a link) or a folder (with everything in it).
fn copy(from: &Path, to: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(from)?;
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(from)?;
        return std::os::unix::fs::symlink(target, to);
    }
    if meta.is_dir() {
        std::fs::create_dir_all(to)?;
        std::fs::set_permissions(to, meta.permissions())?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            copy(&entry.path(), &to.join(entry.file_name()))?;
        }
        return Ok(());
    }
    std::fs::copy(from, to).map(drop)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn ignored_files_the_project_names_are_copied_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("node_modules/a")).unwrap();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .current_dir(&repo)
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(repo.join(".gitignore"), "node_modules/\n.env\n*.log\n").unwrap();
        std::fs::write(repo.join(INCLUDE_FILE), ".env\nnode_modules/\nsecret.txt\n").unwrap();
        std::fs::write(repo.join("node_modules/a/i.js"), "x").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", repo.join("node_modules/link")).unwrap();
        std::fs::write(repo.join(".env"), "KEY=1\n").unwrap();
        std::fs::write(repo.join("secret.txt"), "untracked, not ignored\n").unwrap();
        std::fs::write(repo.join("x.log"), "ignored, not named\n").unwrap();
        let to = dir.path().join("wt");
        std::fs::create_dir(&to).unwrap();
        let mut copied = copy_included(&repo, &to).unwrap();
        copied.sort();
        assert_eq!(copied, [".env", "node_modules/"]);
        assert_eq!(std::fs::read_to_string(to.join(".env")).unwrap(), "KEY=1\n");
        assert!(to.join("node_modules/a/i.js").is_file());
        assert_eq!(
            std::fs::read_link(to.join("node_modules/link")).unwrap(),
            Path::new("/etc/passwd")
        );
        assert!(!to.join("secret.txt").exists() && !to.join("x.log").exists());
        // The stamp follows what would be copied, and only that.
        let before = stamp(&repo).unwrap();
        assert_eq!(stamp(&repo).unwrap(), before);
        std::fs::write(repo.join("secret.txt"), "changed, not copied\n").unwrap();
        assert_eq!(stamp(&repo).unwrap(), before);
        std::fs::write(repo.join("node_modules/a/i.js"), "changed").unwrap();
        assert_ne!(stamp(&repo).unwrap(), before);
        // No list: nothing.
        std::fs::remove_file(repo.join(INCLUDE_FILE)).unwrap();
        assert!(
            copy_included(&repo, &dir.path().join("none"))
                .unwrap()
                .is_empty()
        );
    }
}
