//! A worktree chat's work: what its worktree holds that its base did not, where the base is
//! the merge-base of its branch with its target (so a target that moved on, or a merge already
//! made, brings nothing of its own in). Committed, uncommitted and untracked changes alike are
//! the work: they are read from a snapshot of the worktree (a tree written through a private
//! index), so neither the worktree's index nor its branch is touched by looking.
//!
//! Blocking: each function runs git in the worktree's folder.

use std::ffi::OsStr;
use std::path::Path;

use paddock_proto::ErrorBody;

use super::{Git, internal, trimmed};

/// A worktree's work, against its target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Work {
    /// The commit the work is measured from.
    pub base: String,
    /// The branch's commit.
    pub head: String,
    /// The worktree as it is now, as a tree.
    pub snapshot: String,
    pub ahead: u32,
    pub behind: u32,
    /// Changed files (`A`, `M`, `D`, `T`), relative to the project's folder.
    pub files: Vec<(char, String)>,
}

impl Work {
    pub(super) fn paths(&self) -> Vec<String> {
        self.files.iter().map(|(_, p)| p.clone()).collect()
    }
}

/// The worktree at `root` written as a tree, as it is: its branch's commit with every change,
/// staged or not, and its untracked files (ignored ones aside). A copy of its index is used,
/// so the worktree's own index stays as it was.
pub(super) fn snapshot(git: &Git<'_>) -> Result<String, ErrorBody> {
    let index =
        trimmed(&git.run(["rev-parse", "--path-format=absolute", "--git-path", "index"])?);
    let private = private_index_path(Path::new(&index));
    let _cleanup = RemoveOnDrop(&private);
    match std::fs::copy(&index, &private) {
        Ok(_) => {}
        // A worktree with nothing checked out has no index yet: start from an empty one.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(internal(format!(
                "cannot copy the worktree's index {index}: {e}"
            )));
        }
    }
    let env: [(&str, &OsStr); 1] = [("GIT_INDEX_FILE", private.as_os_str())];
    let identity = super::Identity::default();
    git.run_env(&["add", "--all"], &env, &identity)?;
    Ok(trimmed(&git.run_env(&["write-tree"], &env, &identity)?))
}

/// Who the snapshot commits (a worktree as it is, for a fork or a trial merge) are by,
/// whatever git's configuration says.
const SNAPSHOT_IDENTITY: [(&str, &str); 4] = [
    ("GIT_AUTHOR_NAME", "paddockd"),
    ("GIT_AUTHOR_EMAIL", "paddockd@localhost"),
    ("GIT_COMMITTER_NAME", "paddockd"),
    ("GIT_COMMITTER_EMAIL", "paddockd@localhost"),
];

/// The worktree as it is, as a commit on top of its branch's (no branch moves to it); its id.
pub(super) fn snapshot_commit(git: &Git<'_>, message: &str) -> Result<String, ErrorBody> {
    let head = git
        .head()?
        .ok_or_else(|| internal(format!("the worktree {} has no commit", git.dir.display())))?;
    let tree = snapshot(git)?;
    commit_tree(git, &tree, &head, message)
}

/// A commit of `tree` on `parent` by paddockd; its id.
pub(super) fn commit_tree(
    git: &Git<'_>,
    tree: &str,
    parent: &str,
    message: &str,
) -> Result<String, ErrorBody> {
    let env: Vec<(&str, &OsStr)> = SNAPSHOT_IDENTITY
        .iter()
        .map(|(k, v)| (*k, OsStr::new(v)))
        .collect();
    Ok(trimmed(&git.run_env(
        &["commit-tree", tree, "-p", parent, "-m", message],
        &env,
        &super::Identity::default(),
    )?))
}

/// A private index beside `index`, named for this process and moment.
fn private_index_path(index: &Path) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = format!("index.paddock-snapshot.{}.{n}", std::process::id());
    index.with_file_name(name)
}

struct RemoveOnDrop<'a>(&'a Path);

impl Drop for RemoveOnDrop<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.0);
        let lock = self.0.with_extension(
            self.0
                .extension()
                .map(|e| format!("{}.lock", e.to_string_lossy()))
                .unwrap_or_else(|| "lock".to_owned()),
        );
        let _ = std::fs::remove_file(lock);
    }
}

/// The work of the worktree at `root` (the project's folder below its top: `prefix`) against
/// `target` (a branch; `None` or a branch that is gone: against `recorded_base`).
pub(super) fn work(
    root: &Path,
    prefix: &str,
    target: Option<&str>,
    recorded_base: &str,
) -> Result<Work, ErrorBody> {
    let git = Git { dir: root };
    let head = git
        .head()?
        .ok_or_else(|| internal(format!("the worktree {} has no commit", root.display())))?;
    let target_commit = match target {
        Some(t) => git.commit_of(&format!("refs/heads/{t}"))?,
        None => None,
    };
    let (base, ahead, behind) = match &target_commit {
        Some(t) => {
            let out = git.output(["merge-base", head.as_str(), t.as_str()])?;
            let base = if out.status.success() {
                trimmed(&out.stdout)
            } else {
                recorded_base.to_owned()
            };
            let range = format!("{t}...{head}");
            let counts = trimmed(&git.run(["rev-list", "--left-right", "--count", &range])?);
            let mut parts = counts
                .split_whitespace()
                .map(|n| n.parse::<u32>().unwrap_or(0));
            let behind = parts.next().unwrap_or(0);
            let ahead = parts.next().unwrap_or(0);
            (base, ahead, behind)
        }
        None => {
            let range = format!("{recorded_base}..{head}");
            let ahead = trimmed(&git.run(["rev-list", "--count", &range])?)
                .parse()
                .unwrap_or(0);
            (recorded_base.to_owned(), ahead, 0)
        }
    };
    let snapshot = snapshot(&git)?;
    let files = changed(&git, &base, &snapshot, prefix)?;
    Ok(Work {
        base,
        head,
        snapshot,
        ahead,
        behind,
        files,
    })
}

/// The files that differ between two tree-ishes, below `prefix` (made relative to it).
pub(super) fn changed(
    git: &Git<'_>,
    from: &str,
    to: &str,
    prefix: &str,
) -> Result<Vec<(char, String)>, ErrorBody> {
    let raw = git.run([
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--name-status",
        from,
        to,
    ])?;
    let mut out = Vec::new();
    let mut fields = raw.split(|b| *b == 0);
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        let Some(&letter) = status.first() else {
            break;
        };
        let path = String::from_utf8_lossy(path);
        if let Some(rel) = path.strip_prefix(prefix) {
            out.push((char::from(letter), rel.to_owned()));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    use crate::git::testing::git;

    #[test]
    fn work_is_committed_uncommitted_and_untracked_against_the_merge_base() {
        let crate::git::testing::Setup { _dir, repo, wt } =
            crate::git::testing::repo_with_worktree(&[(".gitignore", "*.log\n")]);
        let base = git(&repo, &["rev-parse", "HEAD"]);
        // Committed on the chat's branch, changed and staged, untracked, ignored.
        std::fs::write(wt.join("c.txt"), "c\n").unwrap();
        git(&wt, &["add", "c.txt"]);
        git(&wt, &["commit", "-qm", "c"]);
        std::fs::write(wt.join("a.txt"), "a2\n").unwrap();
        std::fs::write(wt.join("s.txt"), "s\n").unwrap();
        git(&wt, &["add", "s.txt"]);
        std::fs::write(wt.join("u.txt"), "u\n").unwrap();
        std::fs::write(wt.join("x.log"), "ignored\n").unwrap();
        // The target moves on with a file of its own: not the chat's work.
        std::fs::write(repo.join("t.txt"), "t\n").unwrap();
        git(&repo, &["add", "t.txt"]);
        git(&repo, &["commit", "-qm", "t"]);
        let status_before = git(&wt, &["status", "--porcelain"]);
        let w = work(&wt, "", Some("main"), &base).unwrap();
        assert_eq!(w.base, base);
        assert_eq!((w.ahead, w.behind), (1, 1));
        assert_eq!(
            w.files,
            [
                ('M', "a.txt".to_owned()),
                ('A', "c.txt".to_owned()),
                ('A', "s.txt".to_owned()),
                ('A', "u.txt".to_owned()),
            ]
        );
        // Looking changed nothing: the index and the branch are as they were.
        assert_eq!(git(&wt, &["status", "--porcelain"]), status_before);
        let leftovers: Vec<_> = std::fs::read_dir(repo.join(".git/worktrees/wt"))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains("paddock"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        // No target: against the recorded base.
        let alone = work(&wt, "", None, &base).unwrap();
        assert_eq!((alone.ahead, alone.files.len()), (1, 4));
    }
}
