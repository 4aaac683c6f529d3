//! Throwing a worktree away without losing work: what of its work its target lacks, judged by
//! content (a trial merge of the worktree as it is into the target: a branch merged, squashed
//! or whose changes were made again there leaves nothing), and removing the worktree and its
//! branch, checked afterwards (a folder still there is an error, never "removed").
//!
//! Blocking: each function runs git.

use std::path::Path;

use paddock_proto::ErrorBody;

use super::{Git, internal};

/// The files of the worktree's work (see `work.rs`) that `target` lacks; empty when it has no
/// work or all of it is in the target already.
pub(super) fn unmerged(
    root: &Path,
    prefix: &str,
    target: Option<&str>,
    recorded_base: &str,
) -> Result<Vec<String>, ErrorBody> {
    let w = super::work::work(root, prefix, target, recorded_base)?;
    if w.files.is_empty() {
        return Ok(Vec::new());
    }
    let git = Git { dir: root };
    let Some(t) = target
        .map(|t| git.commit_of(&format!("refs/heads/{t}")))
        .transpose()?
        .flatten()
    else {
        return Ok(w.paths());
    };
    let snap =
        super::work::commit_tree(&git, &w.snapshot, &w.head, "paddock: the worktree as it is")?;
    let merged = match super::merge::trial(&git, &t, &snap, prefix) {
        Ok(tree) => tree,
        // It conflicts with the target: none of it is in there as it is.
        Err(e) if e.code == paddock_proto::ErrorCode::Conflict => return Ok(w.paths()),
        Err(e) => return Err(e),
    };
    Ok(super::work::changed(&git, &t, &merged, prefix)?
        .into_iter()
        .map(|(_, p)| p)
        .collect())
}

/// Removes a worktree paddockd made at `path` and did not finish (cut short by a stop) or that
/// no chat took (a spare): with its `branch` when the worktree has it checked out; else (never
/// made that far, or a branch no worktree of ours has: it may be the user's) only its folder,
/// and git forgets it. `repo_dir` is `None` when its project is gone and git cannot say whose
/// it is: the folder goes.
pub(super) fn remove_unused(
    repo_dir: Option<&Path>,
    path: &Path,
    branch: &str,
) -> Result<(), ErrorBody> {
    if let Some(repo) = repo_dir {
        let ours = super::merge::checked_out(&Git { dir: repo }, branch)?
            .iter()
            .any(|p| p == path || p.canonicalize().ok() == path.canonicalize().ok());
        if ours {
            return remove(repo, path, branch);
        }
    }
    if path.exists() {
        std::fs::remove_dir_all(path)
            .map_err(|e| internal(format!("cannot remove {}: {e}", path.display())))?;
    }
    match repo_dir {
        Some(repo) => Git { dir: repo }.run(["worktree", "prune"]).map(drop),
        None => Ok(()),
    }
}

/// Removes the worktree at `path` of the repository holding `repo_dir`, and its `branch`.
/// A folder removed by hand is forgotten by git; a branch deleted by hand is no error.
pub(super) fn remove(repo_dir: &Path, path: &Path, branch: &str) -> Result<(), ErrorBody> {
    let git = Git { dir: repo_dir };
    let path_arg = path.to_string_lossy().into_owned();
    if path.exists() {
        git.run(["worktree", "remove", "--force", path_arg.as_str()])?;
    } else {
        git.run(["worktree", "prune"])?;
    }
    if path.exists() {
        return Err(internal(format!(
            "git said it removed the worktree {}, but the folder is still there; remove it by hand (rm -r), then run `git worktree prune` in the project",
            path.display()
        )));
    }
    crate::failpoint::reached_blocking("worktree.discard.removed");
    if git.commit_of(&format!("refs/heads/{branch}"))?.is_some() {
        git.run(["branch", "-D", branch])?;
    }
    Ok(())
}
