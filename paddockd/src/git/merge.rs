//! Bringing a worktree chat's work into its target, and its target's into it: a merge that is
//! tried first without touching any checkout (`git merge-tree --write-tree`), made as a commit
//! object, and only then put on the target's branch: by moving the branch when no checkout has
//! it, or by a fast-forward of the one checkout that does (the project's, or the parent chat's
//! worktree), after checking that none of its uncommitted changes is in a file the merge
//! changes. A conflict, or a checkout in the way, changes nothing. A rebase runs in the chat's
//! own worktree and is aborted on a conflict.
//!
//! Blocking: each function runs git.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use paddock_proto::{ErrorBody, ErrorCode};

use super::{Git, Identity, invalid, trimmed};

/// A refusal that names files.
pub(super) fn conflict(message: String, files: Vec<String>) -> ErrorBody {
    let mut e = ErrorBody::new(ErrorCode::Conflict, message);
    e.files = files;
    e
}

/// A list of files for a sentence: the first few, and how many more.
pub(super) fn some_files(files: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut out = files
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if files.len() > SHOWN {
        out.push_str(&format!(" and {} more", files.len() - SHOWN));
    }
    out
}

/// Commits everything uncommitted in the worktree at `root` (untracked files too, ignored
/// ones aside) on its branch; the commit's id, or `None` when there was nothing.
pub(super) fn commit_pending(
    root: &Path,
    message: &str,
    identity: &Identity,
) -> Result<Option<String>, ErrorBody> {
    let git = Git { dir: root };
    let status = git.run(["status", "--porcelain=v1", "-z", "--untracked-files=all"])?;
    if status.is_empty() {
        return Ok(None);
    }
    git.run(["add", "--all"])?;
    git.run_env(
        &["commit", "--quiet", "--no-verify", "-m", message],
        &[],
        identity,
    )?;
    git.head()
}

/// Where a branch is checked out: each worktree of the repository holding it.
pub(super) fn checked_out(git: &Git<'_>, branch: &str) -> Result<Vec<PathBuf>, ErrorBody> {
    let raw = git.run(["worktree", "list", "--porcelain", "-z"])?;
    let want = format!("branch refs/heads/{branch}");
    let mut out = Vec::new();
    let mut path: Option<PathBuf> = None;
    for field in raw.split(|b| *b == 0) {
        let field = String::from_utf8_lossy(field);
        if let Some(p) = field.strip_prefix("worktree ") {
            path = Some(PathBuf::from(p));
        } else if field == want
            && let Some(p) = path.take()
        {
            out.push(p);
        }
    }
    Ok(out)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// What a merge is asked to do.
pub(super) struct MergeAsk<'a> {
    /// The chat's worktree (its top) and the project's folder below it.
    pub root: &'a Path,
    pub prefix: &'a str,
    /// The chat's branch and the one it merges into.
    pub branch: &'a str,
    pub target: &'a str,
    /// The checkout where the target may be checked out: the project's (its top), or the
    /// parent chat's worktree.
    pub home: &'a Path,
    pub squash: bool,
    pub message: &'a str,
    /// The message of the commit of the chat's uncommitted work.
    pub pending_message: &'a str,
    pub identity: &'a Identity,
}

/// A merge made, or ready to be put on its target ([`prepare`], then [`apply`]).
#[derive(Debug)]
pub(super) struct Merged {
    /// The merge's commit.
    pub commit: String,
    pub files: Vec<String>,
    pub committed: Option<String>,
    pub checkout: Option<PathBuf>,
    /// The target's commit the merge is made on (what `apply` moves it from).
    pub from: String,
}

/// Merges the chat's branch into its target (see the module's documentation).
#[cfg(test)]
pub(super) fn merge(ask: &MergeAsk<'_>) -> Result<Merged, ErrorBody> {
    let merged = prepare(ask)?;
    apply(ask.root, ask.target, &merged)?;
    Ok(merged)
}

/// Everything of a merge but putting it on the target: the chat's uncommitted work committed
/// on its branch, the trial merge, the checks of the target's checkout, the merge's commit
/// (an object nothing points at yet).
pub(super) fn prepare(ask: &MergeAsk<'_>) -> Result<Merged, ErrorBody> {
    let git = Git { dir: ask.root };
    let Some(target) = git.commit_of(&format!("refs/heads/{}", ask.target))? else {
        return Err(invalid(format!(
            "the branch {} this chat merges into is gone; make it again, or discard the chat's worktree",
            ask.target
        )));
    };
    let checkout = where_to(&git, ask)?;
    let committed = commit_pending(ask.root, ask.pending_message, ask.identity)?;
    let head = git
        .head()?
        .ok_or_else(|| invalid("the chat's worktree has no commit"))?;
    // A refusal from here on says the commit of the pending work was made.
    let said = |mut e: ErrorBody| {
        if let Some(c) = &committed {
            e.message = format!(
                "{} (the chat's uncommitted work was committed on its branch first, as {})",
                e.message,
                c.get(..7).unwrap_or(c)
            );
        }
        e
    };
    let tree = trial(&git, &target, &head, ask.prefix).map_err(|e| {
        said(with_advice(
            e,
            &format!(
                "ask the chat to merge {} into its branch and resolve them, then merge again",
                ask.target
            ),
        ))
    })?;
    let target_tree = trimmed(&git.run(["rev-parse", &format!("{target}^{{tree}}")])?);
    if tree == target_tree {
        return Err(invalid(format!(
            "nothing to merge: {} holds all of this chat's work already{}",
            ask.target,
            if committed.is_some() {
                " (its uncommitted work was committed on its branch)"
            } else {
                ""
            }
        )));
    }
    let touched: Vec<String> = super::work::changed(&git, &target, &tree, "")?
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    if let Some(dir) = &checkout {
        check_checkout(dir, &target, &touched, ask.target).map_err(said)?;
    }
    let mut args = vec!["commit-tree", tree.as_str(), "-p", target.as_str()];
    if !ask.squash {
        args.extend(["-p", head.as_str()]);
    }
    args.extend(["-m", ask.message]);
    let commit = trimmed(&git.run_env(&args, &[], ask.identity)?);
    let files = touched
        .into_iter()
        .filter_map(|p| p.strip_prefix(ask.prefix).map(str::to_owned))
        .collect();
    Ok(Merged {
        commit,
        files,
        committed,
        checkout,
        from: target,
    })
}

/// Puts a prepared merge on branch `target`: the checkout that has it is fast-forwarded, or
/// the branch is moved (only from the commit the merge was made on).
pub(super) fn apply(root: &Path, target: &str, m: &Merged) -> Result<(), ErrorBody> {
    match &m.checkout {
        Some(dir) => {
            Git { dir }.run(["merge", "--ff-only", "--quiet", m.commit.as_str()])?;
        }
        None => {
            let name = format!("refs/heads/{target}");
            Git { dir: root }.run([
                "update-ref",
                "-m",
                "paddock: worktree merge",
                name.as_str(),
                m.commit.as_str(),
                m.from.as_str(),
            ])?;
        }
    }
    Ok(())
}

/// Whether branch `into` has `commit` (a merge that was put on it).
pub(super) fn has_commit(root: &Path, into: &str, commit: &str) -> Result<bool, ErrorBody> {
    let branch = format!("refs/heads/{into}");
    let out = Git { dir: root }.output(["merge-base", "--is-ancestor", commit, branch.as_str()])?;
    Ok(out.status.success())
}

/// The checkout to bring along: the home checkout when it has the target checked out, `None`
/// when none has; refused when another one has it.
fn where_to(git: &Git<'_>, ask: &MergeAsk<'_>) -> Result<Option<PathBuf>, ErrorBody> {
    let places = checked_out(git, ask.target)?;
    let mut checkout = None;
    for place in places {
        if same_dir(&place, ask.home) {
            checkout = Some(place);
        } else {
            return Err(invalid(format!(
                "the branch {} is checked out in {}, which paddockd does not update: merge there by hand (git merge {}), or check out another branch there and merge again",
                ask.target,
                place.display(),
                ask.branch
            )));
        }
    }
    Ok(checkout)
}

/// A conflict's sentence with what to do about it.
fn with_advice(mut e: ErrorBody, advice: &str) -> ErrorBody {
    if e.code == ErrorCode::Conflict {
        e.message = format!("{}: {advice}", e.message);
    }
    e
}

/// The tree of `ours` and `theirs` merged, or a conflict naming the files (nothing changed).
pub(super) fn trial(
    git: &Git<'_>,
    ours: &str,
    theirs: &str,
    prefix: &str,
) -> Result<String, ErrorBody> {
    let out = git.output([
        "merge-tree",
        "--write-tree",
        "--name-only",
        "--no-messages",
        "-z",
        ours,
        theirs,
    ])?;
    let mut fields = out.stdout.split(|b| *b == 0);
    let tree = fields
        .next()
        .map(|t| String::from_utf8_lossy(t).trim().to_owned())
        .unwrap_or_default();
    match out.status.code() {
        Some(0) => Ok(tree),
        Some(1) => {
            let mut files: Vec<String> = fields
                .map(|f| String::from_utf8_lossy(f).into_owned())
                .filter(|f| !f.is_empty())
                .map(|f| f.strip_prefix(prefix).map(str::to_owned).unwrap_or(f))
                .collect();
            files.dedup();
            Err(conflict(
                format!(
                    "the merge would conflict in {}, so nothing was merged",
                    some_files(&files)
                ),
                files,
            ))
        }
        _ => Err(super::failed(&["merge-tree"], &out)),
    }
}

/// Refuses when the checkout at `dir` is not at `target` or has uncommitted changes (or
/// untracked files) in files the merge changes.
fn check_checkout(
    dir: &Path,
    target: &str,
    touched: &[String],
    name: &str,
) -> Result<(), ErrorBody> {
    let git = Git { dir };
    if git.head()?.as_deref() != Some(target) {
        return Err(invalid(format!(
            "the checkout {} moved while merging; merge again",
            dir.display()
        )));
    }
    let raw = git.run([
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
        "--no-renames",
    ])?;
    // Porcelain paths are the repository top's, as the merge's are.
    let (_, files) = super::status::parse_status(&raw, "");
    let dirty: Vec<String> = files
        .into_iter()
        .map(|f| f.path)
        .filter(|p| touched.iter().any(|t| t == p))
        .collect();
    if dirty.is_empty() {
        return Ok(());
    }
    Err(conflict(
        format!(
            "the checkout {} (branch {name}) has uncommitted changes to {}, which the merge changes, so nothing was merged: commit or stash them there, then merge again",
            dir.display(),
            some_files(&dirty)
        ),
        dirty,
    ))
}

/// A rebase made: the target's commit the work now sits on.
#[derive(Debug)]
pub(super) struct Rebased {
    pub onto: String,
    pub committed: Option<String>,
}

/// Rebases the chat's branch (its worktree at `root`) onto `target`; on a conflict the
/// rebase is aborted and the files named.
pub(super) fn rebase(
    root: &Path,
    prefix: &str,
    target: &str,
    pending_message: &str,
    identity: &Identity,
) -> Result<Rebased, ErrorBody> {
    let git = Git { dir: root };
    let Some(onto) = git.commit_of(&format!("refs/heads/{target}"))? else {
        return Err(invalid(format!(
            "the branch {target} this chat works for is gone; there is nothing to bring it up to date with"
        )));
    };
    let committed = commit_pending(root, pending_message, identity)?;
    let editor: [(&str, &OsStr); 2] = [
        ("GIT_EDITOR", OsStr::new("true")),
        ("GIT_SEQUENCE_EDITOR", OsStr::new("true")),
    ];
    let out = git.output_env(
        ["rebase", "--quiet", "--no-autostash", onto.as_str()],
        None,
        &editor,
        identity,
    )?;
    if out.status.success() {
        return Ok(Rebased { onto, committed });
    }
    let conflicted = git
        .run(["diff", "--name-only", "-z", "--diff-filter=U"])
        .unwrap_or_default();
    let files: Vec<String> = conflicted
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .map(|f| f.strip_prefix(prefix).map(str::to_owned).unwrap_or(f))
        .collect();
    let aborted = git.output(["rebase", "--abort"])?;
    if !aborted.status.success() {
        return Err(super::failed(&["rebase", "--abort"], &aborted));
    }
    if files.is_empty() {
        return Err(super::failed(&["rebase"], &out));
    }
    Err(conflict(
        format!(
            "bringing the chat up to date with {target} would conflict in {}, so the rebase was undone{}: ask the chat to merge {target} into its branch and resolve them",
            some_files(&files),
            match &committed {
                Some(c) => format!(
                    " (the chat's uncommitted work was committed on its branch first, as {})",
                    c.get(..7).unwrap_or(c)
                ),
                None => String::new(),
            }
        ),
        files,
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    use crate::git::testing::{Setup, git, repo_with_worktree};

    fn setup() -> Setup {
        repo_with_worktree(&[])
    }

    fn identity() -> Identity {
        Identity {
            name: Some("t".into()),
            email: Some("t@t".into()),
        }
    }

    fn ask<'a>(s: &'a Setup, identity: &'a Identity, squash: bool) -> MergeAsk<'a> {
        MergeAsk {
            root: &s.wt,
            prefix: "",
            branch: "chat",
            target: "main",
            home: &s.repo,
            squash,
            message: "merge the chat",
            pending_message: "the chat's work",
            identity,
        }
    }

    #[test]
    fn a_merge_commits_the_pending_work_and_keeps_the_users_changes() {
        let s = setup();
        std::fs::write(s.wt.join("b.txt"), "b\n").unwrap();
        // The user's own uncommitted changes in the checkout, in files the merge leaves alone.
        std::fs::write(s.repo.join("a.txt"), "the user's edit\n").unwrap();
        std::fs::write(s.repo.join("mine.txt"), "mine\n").unwrap();
        let id = identity();
        let merged = merge(&ask(&s, &id, false)).unwrap();
        assert!(merged.committed.is_some());
        assert_eq!(merged.files, ["b.txt"]);
        assert_eq!(
            merged
                .checkout
                .as_deref()
                .map(|p| p.canonicalize().unwrap()),
            Some(s.repo.canonicalize().unwrap())
        );
        assert_eq!(git(&s.repo, &["rev-parse", "HEAD"]), merged.commit);
        assert_eq!(
            std::fs::read_to_string(s.repo.join("b.txt")).unwrap(),
            "b\n"
        );
        assert_eq!(
            std::fs::read_to_string(s.repo.join("a.txt")).unwrap(),
            "the user's edit\n"
        );
        assert_eq!(
            std::fs::read_to_string(s.repo.join("mine.txt")).unwrap(),
            "mine\n"
        );
        // A merge commit: both parents.
        assert_eq!(
            git(&s.repo, &["rev-list", "--parents", "-n1", "HEAD"])
                .split(' ')
                .count(),
            3
        );
        // Nothing more to merge.
        let again = merge(&ask(&s, &id, false)).unwrap_err();
        assert!(
            again.message.contains("nothing to merge"),
            "{}",
            again.message
        );
    }

    #[test]
    fn a_conflict_or_a_checkout_in_the_way_changes_nothing() {
        let s = setup();
        std::fs::write(s.wt.join("a.txt"), "the chat's a\n").unwrap();
        std::fs::write(s.repo.join("a.txt"), "main's a\n").unwrap();
        git(&s.repo, &["commit", "-qam", "main moves"]);
        let head = git(&s.repo, &["rev-parse", "HEAD"]);
        let id = identity();
        let e = merge(&ask(&s, &id, false)).unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        assert_eq!(e.files, ["a.txt"]);
        assert_eq!(git(&s.repo, &["rev-parse", "HEAD"]), head);
        assert_eq!(
            std::fs::read_to_string(s.repo.join("a.txt")).unwrap(),
            "main's a\n"
        );
        assert_eq!(git(&s.repo, &["status", "--porcelain"]), "");

        // The chat's conflicting change brought up to date is refused too, and aborted.
        let e = rebase(&s.wt, "", "main", "pending", &id).unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        assert_eq!(e.files, ["a.txt"]);
        assert!(!s.repo.join(".git/worktrees/wt/rebase-merge").exists());
        assert_eq!(git(&s.wt, &["status", "--porcelain"]), "");
    }

    #[test]
    fn uncommitted_changes_the_merge_would_overwrite_are_named() {
        let s = setup();
        std::fs::write(s.wt.join("b.txt"), "the chat's b\n").unwrap();
        std::fs::write(s.repo.join("b.txt"), "the user's b\n").unwrap();
        let head = git(&s.repo, &["rev-parse", "HEAD"]);
        let id = identity();
        let e = merge(&ask(&s, &id, false)).unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        assert_eq!(e.files, ["b.txt"]);
        assert!(e.message.contains("commit or stash"), "{}", e.message);
        assert_eq!(git(&s.repo, &["rev-parse", "HEAD"]), head);
        assert_eq!(
            std::fs::read_to_string(s.repo.join("b.txt")).unwrap(),
            "the user's b\n"
        );
    }

    #[test]
    fn a_target_checked_out_elsewhere_is_refused_and_one_checked_out_nowhere_moves() {
        let s = setup();
        std::fs::write(s.wt.join("b.txt"), "b\n").unwrap();
        let other = s.repo.parent().unwrap().join("other");
        git(&s.repo, &["checkout", "-q", "-b", "side"]);
        git(
            &s.repo,
            &["worktree", "add", "-q", other.to_str().unwrap(), "main"],
        );
        let id = identity();
        let e = merge(&ask(&s, &id, false)).unwrap_err();
        assert!(e.message.contains("is checked out in"), "{}", e.message);
        git(&s.repo, &["worktree", "remove", other.to_str().unwrap()]);
        // main is checked out nowhere now: only the branch moves.
        let merged = merge(&ask(&s, &id, true)).unwrap();
        assert!(merged.checkout.is_none());
        assert_eq!(git(&s.repo, &["rev-parse", "main"]), merged.commit);
        // A squash: one parent.
        assert_eq!(
            git(&s.repo, &["rev-list", "--parents", "-n1", "main"])
                .split(' ')
                .count(),
            2
        );
        assert!(!s.repo.join("b.txt").exists());
    }

    #[test]
    fn a_squash_merged_branch_has_no_unmerged_work() {
        let s = setup();
        std::fs::write(s.wt.join("b.txt"), "b\n").unwrap();
        let base = git(&s.repo, &["rev-parse", "HEAD"]);
        assert_eq!(
            super::super::discard::unmerged(&s.wt, "", Some("main"), &base).unwrap(),
            ["b.txt"]
        );
        let id = identity();
        merge(&ask(&s, &id, true)).unwrap();
        assert!(
            super::super::discard::unmerged(&s.wt, "", Some("main"), &base)
                .unwrap()
                .is_empty()
        );
        // New work after the merge is unmerged again.
        std::fs::write(s.wt.join("c.txt"), "c\n").unwrap();
        assert_eq!(
            super::super::discard::unmerged(&s.wt, "", Some("main"), &base).unwrap(),
            ["c.txt"]
        );
        super::super::discard::remove(&s.repo, &s.wt, "chat").unwrap();
        assert!(!s.wt.exists());
        assert_eq!(git(&s.repo, &["branch", "--list", "chat"]), "");
    }

    #[test]
    fn a_rebase_brings_the_work_onto_the_target() {
        let s = setup();
        std::fs::write(s.wt.join("b.txt"), "b\n").unwrap();
        std::fs::write(s.repo.join("t.txt"), "t\n").unwrap();
        git(&s.repo, &["add", "t.txt"]);
        git(&s.repo, &["commit", "-qm", "main moves"]);
        let id = identity();
        let done = rebase(&s.wt, "", "main", "pending", &id).unwrap();
        assert!(done.committed.is_some());
        assert_eq!(done.onto, git(&s.repo, &["rev-parse", "main"]));
        assert!(s.wt.join("t.txt").is_file() && s.wt.join("b.txt").is_file());
        assert_eq!(git(&s.wt, &["rev-parse", "HEAD~1"]), done.onto);
    }
}
