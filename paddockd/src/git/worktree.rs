//! A new chat's own git worktree (`chat:send`'s `isolation: "worktree"`), made before its
//! first turn: a folder paddockd owns (`<data>/worktrees/<project>/<first 8 of the session
//! id>`, outside the user's checkout) on a branch of its own (`paddock/<first 8>` unless
//! named) from the project's `HEAD` or a named base (`git worktree add -b BRANCH DEST BASE`,
//! after checking what would make it fail half-way: no repository, no commit, a branch or
//! folder that exists), recorded with the chat (`stores/worktrees.rs`: path, branch, base
//! commit, the branch the base came from). The runner then places every turn of the chat
//! there (`runner/worktree.rs`).

use std::path::{Path, PathBuf};

use paddock_proto::{ErrorBody, ErrorCode};

use super::scope::short;
use super::{Git, invalid, trimmed};
use crate::config::Config;
use crate::projects::Project;
use crate::state::ChatState;
use crate::stores::{WorktreeRecord, WorktreeStore};

/// A worktree made: the commit its branch starts from, and the branch that commit was taken
/// from (empty on a detached HEAD or a `base` that is no branch).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Added {
    pub base: String,
    pub target: String,
    /// `repo_dir` below the repository's top (`sub/`; empty at the top).
    pub prefix: String,
}

/// Adds a worktree of the repository holding `repo_dir` at `dest` (which must not exist), on a
/// new branch `branch` from `base` (default: HEAD). Blocking.
fn add_worktree(
    repo_dir: &Path,
    dest: &Path,
    branch: &str,
    base: Option<&str>,
) -> Result<Added, ErrorBody> {
    let git = Git { dir: repo_dir };
    let Some(prefix) = git.prefix()? else {
        return Err(invalid(format!(
            "{} is not in a git repository, and a worktree chat needs one: run `git init` there (and commit), or send without --worktree",
            repo_dir.display()
        )));
    };
    let base_ref = base.unwrap_or("HEAD");
    let out = git.output([
        "rev-parse",
        "-q",
        "--verify",
        &format!("{base_ref}^{{commit}}"),
    ])?;
    if !out.status.success() {
        return Err(invalid(match base {
            None => format!(
                "the repository of {} has no commit yet, and a worktree starts from one: commit first",
                repo_dir.display()
            ),
            Some(b) => format!("--base {b:?} names no commit of the repository"),
        }));
    }
    let base_sha = trimmed(&out.stdout);
    let ok_name = git.output(["check-ref-format", "--branch", branch])?;
    if !ok_name.status.success() {
        return Err(invalid(format!("{branch:?} is not a valid branch name")));
    }
    let is_branch = |name: &str| -> Result<bool, ErrorBody> {
        let out = git.output(["rev-parse", "-q", "--verify", &format!("refs/heads/{name}")])?;
        Ok(out.status.success())
    };
    if is_branch(branch)? {
        return Err(ErrorBody::new(
            ErrorCode::AlreadyExists,
            format!("the branch {branch} exists already; name another with --branch"),
        ));
    }
    if dest.exists() {
        return Err(ErrorBody::new(
            ErrorCode::AlreadyExists,
            format!(
                "{} exists already; paddockd never makes a worktree over files",
                dest.display()
            ),
        ));
    }
    let target = match base {
        None => git.branch()?.unwrap_or_default(),
        Some(b) if is_branch(b)? => b.to_owned(),
        Some(_) => String::new(),
    };
    let dest_arg = dest.as_os_str().to_string_lossy().into_owned();
    git.run([
        "worktree", "add", "--quiet", "-b", branch, &dest_arg, &base_sha,
    ])?;
    // The project's folder, in the worktree too (made when the base commit has none of it).
    let workdir = dest.join(&prefix);
    std::fs::create_dir_all(&workdir)
        .map_err(|e| invalid(format!("cannot create {}: {e}", workdir.display())))?;
    if let Err(e) = super::include::copy_included(repo_dir, &workdir) {
        // Not half made: the worktree goes again, and the error says what to fix.
        let _ = git.run(["worktree", "remove", "--force", dest_arg.as_str()]);
        let _ = git.run(["branch", "-D", branch]);
        return Err(e);
    }
    Ok(Added {
        base: base_sha,
        target,
        prefix,
    })
}

/// What a new chat asks of its worktree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Ask {
    /// Its branch; default `paddock/<first 8 of the session id>`.
    pub branch: Option<String>,
    /// What it starts from; default the project's `HEAD`.
    pub base: Option<String>,
    /// The chat whose worktree its work merges into (a child of a worktree chat).
    pub target_chat: Option<String>,
    /// What it is for, when not the branch `base` names (a fork: its source's target).
    pub target: Option<String>,
}

/// The folder of `sid`'s worktree in `project`.
pub(super) fn folder(cfg: &Config, project: &Project, sid: &str) -> PathBuf {
    let slug = if project.slug.is_empty() {
        "_root"
    } else {
        project.slug.as_str()
    };
    crate::config::worktrees_dir(&cfg.data_dir)
        .join(slug)
        .join(short(sid))
}

/// Where a new chat of `project` works, as `isolation` says (unsaid: a child of a worktree
/// chat of the same project, `parent`, works in a worktree of its own from its parent's branch
/// and merges back into it; any other chat as the project's `isolation` says): in a worktree of
/// its own, made now with the chat's id (its branch carries it; claude then starts the session
/// with that id), or `None`: the project's directory, the chat's id still to be chosen.
pub async fn new_chat(
    cfg: &Config,
    state: &ChatState,
    project: &Project,
    isolation: Option<paddock_proto::Isolation>,
    parent: Option<&str>,
) -> Result<Option<String>, ErrorBody> {
    let sid = uuid::Uuid::new_v4().to_string();
    if isolation.is_none()
        && let Some(parent) = parent
        && let Some(rec) = state.stores.worktrees.get(parent)
        && rec.project == project.slug
    {
        // The parent's uncommitted work is committed on its branch first, so the child starts
        // from all of it and its merge back applies cleanly.
        let root = PathBuf::from(&rec.worktree.path);
        let identity = cfg.git_identity.clone();
        let message = format!(
            "paddock: work of chat {} before it started a child",
            short(parent)
        );
        if root.is_dir() {
            run_blocking(move || super::merge::commit_pending(&root, &message, &identity)).await?;
        }
        let ask = Ask {
            base: Some(rec.worktree.branch.clone()),
            target_chat: Some(parent.to_owned()),
            ..Ask::default()
        };
        make(cfg, state, project, &sid, ask).await?;
        return Ok(Some(sid));
    }
    let isolation = isolation.or_else(|| {
        (project.file.isolation == Some(paddock_proto::ProjectIsolation::Worktree)).then_some(
            paddock_proto::Isolation::Worktree {
                branch: None,
                base: None,
            },
        )
    });
    let Some(paddock_proto::Isolation::Worktree { branch, base }) = isolation else {
        return Ok(None);
    };
    // A spare worktree made ahead for the project's next new chat, when it still fits.
    if base.is_none()
        && let Some(sid) = super::spare::take(state, project, branch.as_deref()).await?
    {
        return Ok(Some(sid));
    }
    let ask = Ask {
        branch,
        base,
        ..Ask::default()
    };
    make(cfg, state, project, &sid, ask).await?;
    Ok(Some(sid))
}

/// The worktree of `fork`, a fork of `source`: when `source` works in a worktree of its own, a
/// new one on a branch of its own from the source's worktree as it is now (its uncommitted and
/// untracked work included, as a commit on the fork's branch; the source's branch and index
/// are not touched), for the same target.
pub async fn fork(
    cfg: &Config,
    state: &ChatState,
    project: &Project,
    source: &str,
    fork: &str,
) -> Result<(), ErrorBody> {
    let Some(rec) = state.stores.worktrees.get(source) else {
        return Ok(());
    };
    let root = PathBuf::from(&rec.worktree.path);
    if !root.is_dir() {
        return Ok(());
    }
    let message = format!(
        "paddock: chat {}'s worktree as it was forked",
        short(source)
    );
    let base = run_blocking(move || {
        let git = Git { dir: &root };
        super::work::snapshot_commit(&git, &message)
    })
    .await?;
    let ask = Ask {
        base: Some(base),
        target_chat: rec.worktree.target_chat.clone(),
        target: Some(rec.worktree.target.clone()),
        ..Ask::default()
    };
    make(cfg, state, project, fork, ask).await?;
    Ok(())
}

/// Removes the worktree just made for `sid`, whose first turn did not start, and its record.
pub async fn undo(cfg: &Config, state: &ChatState, project: &Project, sid: &str) {
    let Some(rec) = state.stores.worktrees.get(sid) else {
        return;
    };
    let (repo, path, branch) = (
        project.home_dir().to_path_buf(),
        PathBuf::from(&rec.worktree.path),
        rec.worktree.branch.clone(),
    );
    if !path.starts_with(crate::config::worktrees_dir(&cfg.data_dir)) {
        return;
    }
    match run_blocking(move || super::discard::remove(&repo, &path, &branch)).await {
        Ok(()) => {
            if let Err(e) = state.stores.worktrees.remove(sid).await {
                tracing::warn!(session = %sid, "cannot forget an unused worktree: {e}");
            }
        }
        Err(e) => tracing::warn!(session = %sid, "cannot remove an unused worktree: {}", e.message),
    }
}

async fn run_blocking<T: Send + 'static>(
    job: impl FnOnce() -> Result<T, ErrorBody> + Send + 'static,
) -> Result<T, ErrorBody> {
    tokio::task::spawn_blocking(job).await.map_err(|e| {
        ErrorBody::new(
            ErrorCode::Internal,
            format!("the worktree's git work failed: {e}"),
        )
    })?
}

/// Makes the worktree of the new chat `sid` in `project` and records it; nothing is made or
/// recorded when it fails (the error says why and what to do). The record is written first,
/// marked as being made, so a daemon killed half-way undoes it at its next start.
async fn make(
    cfg: &Config,
    state: &ChatState,
    project: &Project,
    sid: &str,
    ask: Ask,
) -> Result<WorktreeRecord, ErrorBody> {
    make_in(cfg, state, &state.stores.worktrees, project, sid, ask).await
}

/// [`make`], recorded in `store` (the chats' worktrees, or the spares', `spare.rs`).
pub(super) async fn make_in(
    cfg: &Config,
    state: &ChatState,
    store: &WorktreeStore,
    project: &Project,
    sid: &str,
    ask: Ask,
) -> Result<WorktreeRecord, ErrorBody> {
    let dest = folder(cfg, project, sid);
    let branch = ask
        .branch
        .clone()
        .unwrap_or_else(|| format!("paddock/{}", short(sid)));
    let mut record = WorktreeRecord {
        project: project.slug.clone(),
        worktree: paddock_proto::ChatWorktree {
            path: dest.to_string_lossy().into_owned(),
            branch: branch.clone(),
            target_chat: ask.target_chat.clone(),
            created_at: Some(chrono::Utc::now().to_rfc3339()),
            ..paddock_proto::ChatWorktree::default()
        },
        setup_pending: project.file.worktree_setup.is_some(),
        pending: Some(crate::stores::Pending::Create),
    };
    let keep = |e: crate::stores::StoreError| {
        ErrorBody::new(
            ErrorCode::Internal,
            format!("cannot record the worktree: {e}"),
        )
    };
    store.set(sid, record.clone()).await.map_err(keep)?;
    crate::failpoint::reached("worktree.create.recorded").await;
    let (repo, dest_for_git, base) = (
        project.home_dir().to_path_buf(),
        dest.clone(),
        ask.base.clone(),
    );
    // One add at a time: another's half-made worktree fails this one (`ChatState::worktree_adds`).
    let one_at_a_time = state.worktree_adds.lock().await;
    let added = run_blocking(move || {
        if let Some(parent) = dest_for_git.parent() {
            crate::fsutil::create_private_dir(parent).map_err(|e| {
                ErrorBody::new(
                    ErrorCode::Internal,
                    format!("cannot create {}: {e}", parent.display()),
                )
            })?;
        }
        add_worktree(&repo, &dest_for_git, &branch, base.as_deref())
    })
    .await;
    drop(one_at_a_time);
    let added = match added {
        Ok(added) => added,
        Err(e) => {
            // add_worktree leaves nothing behind when it fails.
            if let Err(forget) = store.remove(sid).await {
                tracing::warn!(session = %sid, "cannot forget a worktree that was not made: {forget}");
            }
            return Err(e);
        }
    };
    crate::failpoint::reached("worktree.create.added").await;
    record.worktree.prefix = added.prefix;
    record.worktree.base = added.base;
    record.worktree.target = ask.target.clone().unwrap_or(added.target);
    record.pending = None;
    store.set(sid, record.clone()).await.map_err(keep)?;
    Ok(record)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    use crate::git::testing::git;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        git(dir.path(), &["add", "."]);
        git(dir.path(), &["commit", "-qm", "first"]);
        dir
    }

    #[test]
    fn a_worktree_on_its_own_branch_from_head() {
        let repo = repo();
        let out = tempfile::tempdir().unwrap();
        let dest = out.path().join("wt");
        let added = add_worktree(repo.path(), &dest, "paddock/0a1b2c3d", None).unwrap();
        assert_eq!(added.target, "main");
        assert_eq!(added.base.len(), 40);
        assert!(dest.join("a.txt").is_file());
        let again = add_worktree(
            repo.path(),
            &out.path().join("wt2"),
            "paddock/0a1b2c3d",
            None,
        )
        .unwrap_err();
        assert!(
            again.message.contains("exists already"),
            "{}",
            again.message
        );
        let taken = add_worktree(repo.path(), &dest, "other", None).unwrap_err();
        assert!(
            taken.message.contains("never makes a worktree over"),
            "{}",
            taken.message
        );
    }

    #[test]
    fn no_repository_no_commit_and_a_bad_base_are_said() {
        let plain = tempfile::tempdir().unwrap();
        let dest = plain.path().join("wt");
        let e = add_worktree(plain.path(), &dest, "b", None).unwrap_err();
        assert!(
            e.message.contains("not in a git repository"),
            "{}",
            e.message
        );
        git(plain.path(), &["init", "-q"]);
        let e = add_worktree(plain.path(), &dest, "b", None).unwrap_err();
        assert!(e.message.contains("no commit yet"), "{}", e.message);
        let repo = repo();
        let e = add_worktree(repo.path(), &dest, "b", Some("nosuch")).unwrap_err();
        assert!(e.message.contains("names no commit"), "{}", e.message);
        assert!(!dest.exists());
    }
}
