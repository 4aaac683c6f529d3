//! The git view of a project: status, diff and commit, whole or limited to the files a turn, a
//! chat or a subtree of chats wrote (from file provenance, `provenance/steps.rs`), and push; and
//! the automatic commit of the sweeper's files when the data directory is a repository.
//!
//! Everything runs the `git` binary in the project's directory: arguments as a vector (never a
//! shell), `GIT_TERMINAL_PROMPT=0`, `core.quotepath=off`, literal pathspecs, and porcelain v1
//! `-z` output. Only changes inside the project's directory are shown (also when the
//! repository's top is above it), with paths relative to that directory. A directory outside
//! any repository is `isRepo: false`, not an error.
//!
//! The requests are here; `run.rs` runs git, `status.rs`, `diff.rs`, `commit.rs` and
//! `push.rs` do one git operation each, `scope.rs` finds the files of a scope, and
//! `generated.rs` makes the daemon's own commits in the data directory. A chat may work in a
//! git worktree of its own: `worktree.rs` makes it (`include.rs` copies the ignored files the
//! project names into it), `work.rs` reads its work against its
//! target, `merge.rs` merges and rebases it, `discard.rs` removes it, `overlap.rs` finds chats
//! that changed the same files, and `worktrees.rs`
//! answers the `worktree:*` requests and keeps each record's work current.

use paddock_proto::{
    ErrorBody, ErrorCode, GitCommitRequest, GitCommitted, GitDiff, GitDiffRequest, GitPushRequest,
    GitPushed, GitStatus, GitStatusRequest,
};

use crate::chats::ChatService;

/// The most diff text one reply carries.
pub const DIFF_MAX_BYTES: usize = 2 * 1024 * 1024;

fn invalid(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorCode::InvalidArgument, message)
}

fn internal(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorCode::Internal, message)
}

/// A slug for people: the root workspace is `(root)`.
use crate::projects::label;

mod commit;
mod diff;
mod discard;
mod generated;
mod include;
mod merge;
mod overlap;
mod push;
mod run;
mod scope;
mod spare;
mod status;
mod work;
mod worktree;
mod worktrees;

/// git for the git modules' tests: a test identity, stdout as text, a failure a panic.
#[cfg(test)]
pub(crate) mod testing {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::path::Path;

    pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// A repository on `main` with a.txt (and `files`) committed, and a chat's worktree on
    /// branch `chat` beside it.
    pub(crate) struct Setup {
        pub(crate) _dir: tempfile::TempDir,
        pub(crate) repo: std::path::PathBuf,
        pub(crate) wt: std::path::PathBuf,
    }

    pub(crate) fn repo_with_worktree(files: &[(&str, &str)]) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        std::fs::write(repo.join("a.txt"), "a\n").unwrap();
        for (name, text) in files {
            std::fs::write(repo.join(name), text).unwrap();
        }
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-qm", "first"]);
        let wt = dir.path().join("wt");
        git(
            &repo,
            &["worktree", "add", "-q", "-b", "chat", wt.to_str().unwrap()],
        );
        Setup {
            _dir: dir,
            repo,
            wt,
        }
    }
}

use commit::{commit_blocking, commit_paths, committable_branch};
use diff::diff_blocking;
pub use generated::{commit_chats, commit_generated};
pub use overlap::refresh_project as refresh_overlaps;
use push::push_blocking;
pub use run::{GIT_TIMEOUT, Identity};
use run::{Git, failed, trimmed};
use scope::{blocking, resolve};
pub use spare::spawn_keeper as spawn_spare_worktree_keeper;
pub use status::ScopeFiles;
use status::{changes, status_blocking};
pub use worktree::{new_chat as new_chat_worktree, undo as undo_new_worktree};
pub use worktrees::{
    discard as worktree_discard, fork_chat, list as worktree_list, merge as worktree_merge,
    prune as worktree_prune, rebase as worktree_rebase,
    spawn_refresher as spawn_worktree_refresher, tidy as tidy_worktrees,
};

// ---------------------------------------------------------------------------------------------
// The requests
// ---------------------------------------------------------------------------------------------

/// `git:status`.
pub async fn status(
    d: &ChatService,
    user: &str,
    r: GitStatusRequest,
) -> Result<GitStatus, ErrorBody> {
    let (project, scope) = resolve(d, user, &r.project_slug, &r.scope).await?;
    let view = scope::work_view(d, &r.scope).await?;
    let (slug, dir) = (project.slug.clone(), project.agent_dir.clone());
    let mut status = blocking(move || {
        let mut status = status_blocking(&slug, &dir, scope.as_ref())?;
        // A worktree chat's branch is measured against its target, not an upstream.
        if let Some(view) = view {
            let work = work::work(&view.root, &view.prefix, view.target.as_deref(), &view.base)?;
            status.upstream = view.target;
            status.ahead = Some(work.ahead);
            status.behind = Some(work.behind);
        }
        Ok(status)
    })
    .await?;
    if r.scope.is_project() {
        status.worktrees = worktrees::of_project(d, &project.slug).await;
    } else if matches!(r.scope, paddock_proto::GitScope::Subtree { .. }) {
        // The subtree's chats in worktrees of their own: their work is there.
        let views = scope::subtree_views(d, user, &project.slug, &r.scope).await?;
        status.worktrees = worktrees::of_project(d, &project.slug)
            .await
            .into_iter()
            .filter(|w| views.iter().any(|(sid, _)| *sid == w.session_id))
            .collect();
    }
    Ok(status)
}

/// `git:diff`.
pub async fn diff(d: &ChatService, user: &str, r: GitDiffRequest) -> Result<GitDiff, ErrorBody> {
    let (project, scope) = resolve(d, user, &r.project_slug, &r.scope).await?;
    if let Some(view) = scope::work_view(d, &r.scope).await? {
        return blocking(move || diff::diff_work(&project.slug, &view, r.path.as_deref())).await;
    }
    let views = scope::subtree_views(d, user, &project.slug, &r.scope).await?;
    blocking(move || {
        let path = r.path.as_deref();
        let shared = diff_blocking(&project.slug, &project.agent_dir, scope.as_ref(), path);
        if views.is_empty() {
            return shared;
        }
        // A subtree's chats in worktrees of their own: each one's work, from its worktree.
        let mut found = match path {
            None => Some(shared?),
            // One file: from whichever of them changed it.
            Some(_) => shared.ok().filter(|d| !d.files.is_empty()),
        };
        for (_, view) in &views {
            match (diff::diff_work(&project.slug, view, path), &mut found) {
                (Ok(more), Some(diff)) => diff::append(diff, more),
                (Ok(more), None) => found = Some(more),
                (Err(e), _) if path.is_none() => return Err(e),
                (Err(_), _) => {}
            }
        }
        found.ok_or_else(|| {
            invalid(format!(
                "{} is not among the files this subtree's chats changed",
                path.unwrap_or_default()
            ))
        })
    })
    .await
}

/// `git:commit`.
pub async fn commit(
    d: &ChatService,
    user: &str,
    r: GitCommitRequest,
) -> Result<GitCommitted, ErrorBody> {
    if r.message.trim().is_empty() {
        return Err(invalid("a commit needs a message"));
    }
    let (project, scope) = resolve(d, user, &r.project_slug, &r.scope).await?;
    let identity = d.cfg.git_identity.clone();
    let slug = project.slug.clone();
    let committed = blocking(move || {
        commit_blocking(
            &project.slug,
            &project.agent_dir,
            scope.as_ref(),
            &r.message,
            &r.paths,
            &identity,
        )
    })
    .await?;
    d.hub
        .project_changed(&slug, paddock_proto::ProjectPart::Git)
        .await;
    // A commit on a worktree chat's branch moves its count of commits ahead.
    worktrees::refresh_project(d, &slug).await;
    Ok(committed)
}

/// `git:push`: a project's repository, or (`dataRoot`) the data directory's own.
pub async fn push(d: &ChatService, r: GitPushRequest) -> Result<GitPushed, ErrorBody> {
    if r.data_root {
        if !r.project_slug.is_empty() {
            return Err(invalid(
                "with dataRoot the project slug must be empty: the data directory's repository is pushed",
            ));
        }
        let dir = d.cfg.data_dir.clone();
        return blocking(move || push_blocking("", &dir, true)).await;
    }
    let project = d.project(&r.project_slug).await?;
    let slug = project.slug.clone();
    let pushed = blocking(move || push_blocking(&project.slug, &project.agent_dir, false)).await?;
    d.hub
        .project_changed(&slug, paddock_proto::ProjectPart::Git)
        .await;
    Ok(pushed)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::path::Path;

    use super::diff::append_capped;
    use super::generated::commit_generated_blocking;
    use super::push::{PushLine, batch_ssh_command, is_auth_error, parse_push};
    use super::status::{BranchLine, parse_branch, parse_status};
    use super::*;

    #[test]
    fn branch_lines_parse() {
        assert_eq!(
            parse_branch("main...origin/main [ahead 2, behind 1]"),
            BranchLine {
                branch: Some("main".into()),
                upstream: Some("origin/main".into()),
                ahead: Some(2),
                behind: Some(1),
            }
        );
        assert_eq!(
            parse_branch("main...origin/main"),
            BranchLine {
                branch: Some("main".into()),
                upstream: Some("origin/main".into()),
                ahead: Some(0),
                behind: Some(0),
            }
        );
        assert_eq!(parse_branch("dev...origin/dev [gone]").ahead, None);
        assert_eq!(parse_branch("HEAD (no branch)"), BranchLine::default());
        assert_eq!(
            parse_branch("No commits yet on main").branch.as_deref(),
            Some("main")
        );
        assert_eq!(parse_branch("topic").branch.as_deref(), Some("topic"));
    }

    #[test]
    fn porcelain_entries_parse_relative_to_the_directory() {
        let raw = b"## main\0 M sub/a.txt\0?? sub/new dir/b c.txt\0R  sub/to.txt\0sub/from.txt\0";
        let (branch, files) = parse_status(raw, "sub/");
        assert_eq!(branch.branch.as_deref(), Some("main"));
        let got: Vec<(&str, &str, &str, Option<&str>)> = files
            .iter()
            .map(|f| {
                (
                    f.path.as_str(),
                    f.index.as_str(),
                    f.worktree.as_str(),
                    f.orig_path.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("a.txt", ".", "M", None),
                ("new dir/b c.txt", "?", "?", None),
                ("to.txt", "R", ".", Some("from.txt")),
            ]
        );
    }

    #[test]
    fn push_porcelain_lines_parse() {
        let out = "To ../remote.git\n \trefs/heads/main:refs/heads/main\te02b76d..5782b7d\nDone\n";
        assert_eq!(
            parse_push(out),
            Some(PushLine {
                flag: ' ',
                summary: "e02b76d..5782b7d".into(),
            })
        );
        let out = "To ../remote.git\n!\trefs/heads/main:refs/heads/main\t[rejected] (non-fast-forward)\nDone\n";
        let line = parse_push(out).unwrap();
        assert_eq!(line.flag, '!');
        assert_eq!(line.summary, "[rejected] (non-fast-forward)");
        let out = "*\trefs/heads/main:refs/heads/main\t[new branch]\n";
        assert_eq!(parse_push(out).unwrap().flag, '*');
        assert_eq!(parse_push("Done\n"), None);
    }

    #[test]
    fn credential_failures_are_recognised() {
        assert!(is_auth_error(
            "fatal: could not read Username for 'https://github.com': terminal prompts disabled"
        ));
        assert!(is_auth_error(
            "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository."
        ));
        assert!(is_auth_error("Host key verification failed."));
        assert!(!is_auth_error(
            "fatal: '../nowhere' does not appear to be a git repository"
        ));
    }

    #[test]
    fn ssh_runs_in_batch_mode() {
        let dir = repo();
        let git = Git { dir: dir.path() };
        if std::env::var_os("GIT_SSH_COMMAND").is_none() && std::env::var_os("GIT_SSH").is_none() {
            assert_eq!(
                batch_ssh_command(&git).as_deref(),
                Some("ssh -o BatchMode=yes")
            );
            git_in(dir.path(), &["config", "core.sshCommand", "ssh -i /k"]);
            assert_eq!(
                batch_ssh_command(&git).as_deref(),
                Some("ssh -i /k -o BatchMode=yes")
            );
        }
    }

    fn git_in(dir: &Path, args: &[&str]) {
        let out = Git { dir }.run(args);
        assert!(out.is_ok(), "git {args:?}: {out:?}");
    }

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        git_in(dir.path(), &["init", "-q", "-b", "main"]);
        git_in(dir.path(), &["config", "user.name", "Ana Test"]);
        git_in(dir.path(), &["config", "user.email", "ana@example.com"]);
        dir
    }

    #[test]
    fn a_plain_directory_is_not_a_repository() {
        let dir = tempfile::tempdir().unwrap();
        let s = status_blocking("p", dir.path(), None).unwrap();
        assert!(!s.is_repo && s.files.is_empty());
    }

    #[test]
    fn status_diff_and_commit_of_a_scope() {
        let dir = repo();
        let root = dir.path();
        std::fs::write(root.join("base.txt"), "one\n").unwrap();
        git_in(root, &["add", "base.txt"]);
        git_in(root, &["commit", "-q", "-m", "base"]);
        std::fs::write(root.join("base.txt"), "two\n").unwrap();
        std::fs::write(root.join("new.txt"), "fresh\n").unwrap();
        std::fs::write(root.join("other.txt"), "by hand\n").unwrap();
        let scope = ScopeFiles {
            paths: ["base.txt", "new.txt"].map(str::to_owned).into(),
            notes: vec![],
        };
        let s = status_blocking("p", root, Some(&scope)).unwrap();
        assert_eq!(s.branch.as_deref(), Some("main"));
        let paths: Vec<&str> = s.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["base.txt", "new.txt"]);
        assert_eq!(s.hidden, 1);
        let d = diff_blocking("p", root, Some(&scope), None).unwrap();
        assert!(d.diff.contains("-one\n+two"), "{}", d.diff);
        assert!(d.diff.contains("+fresh"), "{}", d.diff);
        assert!(!d.diff.contains("by hand"));
        let err = diff_blocking("p", root, Some(&scope), Some("other.txt")).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        let c =
            commit_blocking("p", root, Some(&scope), "scoped", &[], &Identity::default()).unwrap();
        assert_eq!(c.files, ["base.txt", "new.txt"]);
        let after = status_blocking("p", root, None).unwrap();
        let left: Vec<&str> = after.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(left, ["other.txt"]);
        let err = commit_blocking("p", root, Some(&scope), "again", &[], &Identity::default())
            .unwrap_err();
        assert!(err.message.contains("nothing to commit"), "{}", err.message);
    }

    #[test]
    fn a_diff_is_cut_at_its_bound() {
        let dir = repo();
        let root = dir.path();
        std::fs::write(root.join("big.txt"), "line\n".repeat(1000)).unwrap();
        let git = Git { dir: root };
        let mut out = Vec::new();
        let cut = append_capped(
            &git,
            ["diff", "--no-index", "--", "/dev/null", "big.txt"],
            &mut out,
            1000,
        )
        .unwrap();
        assert!(cut);
        assert!(out.len() <= 1000 && out.ends_with(b"\n"));
    }

    #[test]
    fn generated_files_are_committed_alone_in_a_data_root_repository() {
        let dir = repo();
        let root = dir.path();
        let meta = root.join("projects").join("web");
        std::fs::create_dir_all(&meta).unwrap();
        std::fs::write(root.join("staged.txt"), "staged\n").unwrap();
        git_in(root, &["add", "staged.txt"]);
        std::fs::write(meta.join("OVERVIEW.md"), "# Web\n").unwrap();
        let id = commit_generated_blocking(
            root,
            &[meta.join("OVERVIEW.md")],
            "paddock: curate web",
            &Identity::default(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(id.len(), 40);
        let shown = Git { dir: root }
            .run(["show", "--name-only", "--format=%s", "HEAD"])
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&shown).trim(),
            "paddock: curate web\n\nprojects/web/OVERVIEW.md"
        );
        // The other staged change is still staged, and a second run has nothing to do.
        let s = status_blocking("", root, None).unwrap();
        assert_eq!(s.files[0].path, "staged.txt");
        assert_eq!(s.files[0].index, "A");
        assert!(
            commit_generated_blocking(
                root,
                &[meta.join("OVERVIEW.md")],
                "paddock: curate web",
                &Identity::default(),
            )
            .unwrap()
            .is_none()
        );
    }
}
