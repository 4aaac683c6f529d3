//! `git commit` of exactly the given paths, refusing a detached HEAD or a merge in progress.

use std::collections::BTreeSet;
use std::path::Path;

use paddock_proto::{ErrorBody, GitCommitted};

use super::{Git, Identity, ScopeFiles, changes, failed, internal, invalid, label, trimmed};

pub(super) fn identity_help(dir: &Path) -> String {
    format!(
        "git has no identity to commit as; set yours with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com` (or without --global, inside {})",
        dir.display()
    )
}

pub(super) fn is_identity_error(stderr: &str) -> bool {
    stderr.contains("Please tell me who you are")
        || stderr.contains("auto-detection is disabled")
        || stderr.contains("empty ident name")
        || stderr.contains("unable to auto-detect email")
}

/// Refuses a detached HEAD or a merge / rebase in progress; the branch otherwise.
pub(super) fn committable_branch(git: &Git<'_>) -> Result<String, ErrorBody> {
    let Some(branch) = git.branch()? else {
        return Err(invalid(format!(
            "HEAD is detached in {}; check out a branch before committing",
            git.dir.display()
        )));
    };
    let merging = git
        .output(["rev-parse", "-q", "--verify", "MERGE_HEAD"])?
        .status
        .success();
    let rebasing = ["rebase-merge", "rebase-apply"].iter().any(|name| {
        git.run(["rev-parse", "--git-path", name])
            .is_ok_and(|p| git.dir.join(trimmed(&p)).exists())
    });
    if merging || rebasing {
        return Err(invalid(format!(
            "a {} is in progress in {}; finish or abort it before committing",
            if merging { "merge" } else { "rebase" },
            git.dir.display()
        )));
    }
    Ok(branch)
}

/// Stages `paths` (relative to the git directory) and commits exactly them.
pub(super) fn commit_paths(
    git: &Git<'_>,
    message: &str,
    paths: &[String],
    identity: &Identity,
) -> Result<String, ErrorBody> {
    let mut list = Vec::new();
    for p in paths {
        list.extend_from_slice(p.as_bytes());
        list.push(0);
    }
    let add = ["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"];
    let out = git.output_with(add, Some(&list))?;
    if !out.status.success() {
        return Err(failed(&add, &out));
    }
    let commit = [
        "-c",
        "user.useConfigOnly=true",
        "commit",
        "--only",
        "--quiet",
        "-m",
        message,
        "--pathspec-from-file=-",
        "--pathspec-file-nul",
    ];
    let out = git.output_as(commit, Some(&list), identity)?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        if is_identity_error(&stderr) {
            return Err(invalid(identity_help(git.dir)));
        }
        return Err(failed(&["commit"], &out));
    }
    git.head()?
        .ok_or_else(|| internal("git commit succeeded but HEAD names no commit"))
}

pub(super) fn commit_blocking(
    slug: &str,
    dir: &Path,
    scope: Option<&ScopeFiles>,
    message: &str,
    wanted: &[String],
    identity: &Identity,
) -> Result<GitCommitted, ErrorBody> {
    let git = Git { dir };
    let Some(prefix) = git.prefix()? else {
        return Err(invalid(format!(
            "{} is not in a git repository; run `git init` there first",
            dir.display()
        )));
    };
    let branch = committable_branch(&git)?;
    let changes = changes(&git, &prefix, scope)?;
    let changed: BTreeSet<String> = changes
        .files
        .iter()
        .flat_map(|f| std::iter::once(f.path.clone()).chain(f.orig_path.clone()))
        .collect();
    let paths: Vec<String> = if wanted.is_empty() {
        changed.into_iter().collect()
    } else {
        let mut out = Vec::new();
        for w in wanted {
            let p = crate::provenance::rel_path(dir, w);
            if !changed.contains(&p) {
                return Err(invalid(format!(
                    "{p} is not one of the {} changed files; `paddock git status` lists them",
                    if scope.is_some() {
                        "scope's"
                    } else {
                        "project's"
                    }
                )));
            }
            out.push(p);
        }
        out
    };
    if paths.is_empty() {
        return Err(invalid(if changes.hidden > 0 {
            format!(
                "nothing to commit in this scope ({} other changed file{} of project {} belong to no step of it)",
                changes.hidden,
                if changes.hidden == 1 { "" } else { "s" },
                label(slug)
            )
        } else {
            format!("nothing to commit in project {}", label(slug))
        }));
    }
    let commit = commit_paths(&git, message, &paths, identity)?;
    Ok(GitCommitted {
        project_slug: slug.to_owned(),
        commit,
        branch,
        files: paths,
    })
}
