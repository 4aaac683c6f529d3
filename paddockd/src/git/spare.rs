//! Spare worktrees: for a project whose chats work in worktrees of their own, a worktree made
//! ahead for its next new chat, with a spare `claude` started in it, so that chat starts as
//! fast as a plain one (`git worktree add` of a large repository takes a second or more).
//!
//! The runner's book says which projects want one (`runner/spare.rs`: the same bounds as a
//! spare process, `spare_processes` and `spare_keep`, published after each turn); the keeper
//! here makes a worktree for each (at the project's `HEAD`, on the branch `paddock/<first 8>`,
//! in the folder the chat will keep, recorded in `Stores::spare_worktrees`, never with the
//! chats), asks the runner for a spare process in it (`Runner::warm_in`), and removes the
//! spares of projects that no longer want one, and those whose `HEAD` moved.
//!
//! A new worktree chat with no `--base` takes its project's spare ([`take`]) when it still
//! fits: made from the commit `HEAD` is at now, on the branch checked out now, with the same
//! `.worktreeinclude` files. Its branch is renamed when the chat names one, its record moves to
//! the chats' worktrees, and its session id is the chat's, so the runner gives the chat the
//! spare process too. A spare that no longer fits is set aside for removal and the chat's
//! worktree is made as without one. Spares are not chats: `worktree ls`, `prune` and the orphans
//! never see them, and the start of the daemon removes those a stop left behind.

use std::path::PathBuf;
use std::sync::PoisonError;

use paddock_proto::{ErrorBody, ErrorCode};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::scope::blocking;
use super::scope::short;
use super::worktree::{Ask, make_in};
use super::{Git, invalid};
use crate::chats::ChatService;
use crate::config::Config;
use crate::projects::Project;
use crate::runner::Runner;
use crate::state::ChatState;
use crate::stores::{Pending, WorktreeRecord};

/// Starts the keeper: the spares a stop left behind are removed, then the runner's wishes
/// are followed until shutdown.
pub fn spawn_keeper(
    d: ChatService,
    runner: Runner,
    shutdown: CancellationToken,
    tracker: &TaskTracker,
) {
    let mut wanted = runner.spare_worktrees_wanted();
    tracker.spawn(async move {
        reconcile(&d).await;
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                changed = wanted.changed() => if changed.is_err() {
                    return;
                },
            }
            let projects = wanted.borrow_and_update().clone();
            keep(&d, &runner, &projects, &shutdown).await;
        }
    });
}

/// At start: the spare worktrees of the last run are removed (a spare's record that a new
/// chat took just before a stop is only forgotten: the worktree is that chat's).
async fn reconcile(d: &ChatService) {
    let all = d.state.stores.spare_worktrees.all();
    for (sid, rec) in all.iter() {
        if d.state.stores.worktrees.get(sid).is_none() {
            remove(d, sid, rec).await;
        } else if let Err(e) = d.state.stores.spare_worktrees.remove(sid).await {
            tracing::warn!(session = %sid, "cannot forget a spare worktree a chat took: {e}");
        }
    }
}

/// One spare worktree, with its spare process asked for, for each project in `wanted`; the
/// others removed.
async fn keep(d: &ChatService, runner: &Runner, wanted: &[Project], shutdown: &CancellationToken) {
    let state = &d.state;
    // The projects as they are now (one removed since wants none).
    let mut projects = Vec::with_capacity(wanted.len());
    for w in wanted {
        if let Ok(project) = d.project(&w.slug).await {
            projects.push(project);
        }
    }
    let all = state.stores.spare_worktrees.all();
    for (sid, rec) in all.iter() {
        let unwanted = !projects.iter().any(|p| p.slug == rec.project);
        // Set aside by a chat that found it stale, or no longer wanted.
        let stale = rec.pending == Some(Pending::Discard);
        if stale || (unwanted && rec.pending.is_none() && set_aside(state, sid).await) {
            remove(d, sid, rec).await;
        }
    }
    for project in &projects {
        if shutdown.is_cancelled() {
            return;
        }
        let sid = match spare_of(state, &project.slug) {
            Some((sid, rec)) if fits(state, project, &sid, &rec).await => Some(sid),
            Some((sid, rec)) => {
                if set_aside(state, &sid).await {
                    remove(d, &sid, &rec).await;
                }
                make_spare(&d.cfg, state, project).await
            }
            None => make_spare(&d.cfg, state, project).await,
        };
        let Some(sid) = sid else {
            continue;
        };
        let Some(rec) = state.stores.spare_worktrees.get(&sid) else {
            continue;
        };
        match crate::stores::workdir(&sid, &rec) {
            Ok(dir) => runner.warm_in(project.in_worktree(&dir), sid).await,
            Err(e) => tracing::warn!(session = %sid, "a spare worktree is gone: {e}"),
        }
    }
}

/// Makes a spare worktree for `project`: its session id, or none (a project that cannot have
/// one, no repository or no commit, simply gets none; the log says why).
async fn make_spare(cfg: &Config, state: &ChatState, project: &Project) -> Option<String> {
    let sid = uuid::Uuid::new_v4().to_string();
    let home = project.home_dir().to_path_buf();
    let included = blocking(move || super::include::stamp(&home)).await;
    let included = match included {
        Ok(stamp) => stamp,
        Err(e) => {
            tracing::debug!(project = %project.slug, "no spare worktree: {}", e.message);
            return None;
        }
    };
    state
        .spare_worktrees
        .included
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(sid.clone(), included);
    let made = make_in(
        cfg,
        state,
        &state.stores.spare_worktrees,
        project,
        &sid,
        Ask::default(),
    )
    .await;
    match made {
        Ok(_) => {
            tracing::info!(session = %sid, project = %project.slug, "spare worktree made");
            Some(sid)
        }
        Err(e) => {
            forget_stamp(state, &sid);
            tracing::debug!(project = %project.slug, "no spare worktree: {}", e.message);
            None
        }
    }
}

/// `slug`'s spare worktree, when one is made and not being made or removed.
fn spare_of(state: &ChatState, slug: &str) -> Option<(String, WorktreeRecord)> {
    state
        .stores
        .spare_worktrees
        .all()
        .iter()
        .find(|(_, r)| r.project == slug && r.pending.is_none())
        .map(|(sid, r)| (sid.clone(), r.clone()))
}

/// Whether the spare `sid` of `project` is what a worktree made now would be: from the commit
/// `HEAD` is at, for the branch checked out, with the same ignored files copied, and its folder
/// still there.
async fn fits(state: &ChatState, project: &Project, sid: &str, rec: &WorktreeRecord) -> bool {
    let Some(included) = state
        .spare_worktrees
        .included
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(sid)
        .copied()
    else {
        return false;
    };
    let home = project.home_dir().to_path_buf();
    let (base, target) = (rec.worktree.base.clone(), rec.worktree.target.clone());
    let path = PathBuf::from(&rec.worktree.path);
    blocking(move || {
        let git = Git { dir: &home };
        let same = git.head()?.as_deref() == Some(base.as_str())
            && git.branch()?.unwrap_or_default() == target
            && super::include::stamp(&home)? == included
            && path.is_dir();
        Ok(same)
    })
    .await
    .unwrap_or(false)
}

/// Marks the spare `sid` as being removed, so no chat takes it; false when a chat took it
/// meanwhile.
async fn set_aside(state: &ChatState, sid: &str) -> bool {
    let _turn = state.spare_worktrees.turn.lock().await;
    if state.stores.spare_worktrees.get(sid).is_none() {
        return false;
    }
    if let Err(e) = state
        .stores
        .spare_worktrees
        .set_pending(sid, Some(Pending::Discard))
        .await
    {
        tracing::warn!(session = %sid, "cannot set a spare worktree aside: {e}");
        return false;
    }
    true
}

/// Removes the spare worktree `sid` (its folder, its branch when the worktree has it checked
/// out, then its record); what cannot be removed is said in the log and tried again at the
/// next start.
async fn remove(d: &ChatService, sid: &str, rec: &WorktreeRecord) {
    let path = PathBuf::from(&rec.worktree.path);
    let owned = crate::config::worktrees_dir(&d.cfg.data_dir);
    if path.starts_with(&owned) {
        // The repository it was added to: the project's, or (a project removed since) the one
        // the worktree names.
        let repo = match d.project(&rec.project).await {
            Ok(p) => Some(p.home_dir().to_path_buf()),
            Err(_) => repository_of(&path).await,
        };
        let branch = rec.worktree.branch.clone();
        let removed =
            blocking(move || super::discard::remove_unused(repo.as_deref(), &path, &branch)).await;
        if let Err(e) = removed {
            tracing::warn!(session = %sid, "cannot remove a spare worktree: {}", e.message);
            return;
        }
    }
    forget(&d.state, sid).await;
}

/// The checkout of the repository the worktree at `path` belongs to, as git says.
async fn repository_of(path: &std::path::Path) -> Option<PathBuf> {
    let path = path.to_path_buf();
    blocking(move || {
        let out =
            Git { dir: &path }.run(["rev-parse", "--path-format=absolute", "--git-common-dir"])?;
        let common = PathBuf::from(String::from_utf8_lossy(&out).trim());
        Ok(common.parent().map(PathBuf::from))
    })
    .await
    .ok()
    .flatten()
}

async fn forget(state: &ChatState, sid: &str) {
    forget_stamp(state, sid);
    if let Err(e) = state.stores.spare_worktrees.remove(sid).await {
        tracing::warn!(session = %sid, "cannot forget a spare worktree: {e}");
    }
}

fn forget_stamp(state: &ChatState, sid: &str) {
    state
        .spare_worktrees
        .included
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(sid);
}

/// The new worktree chat of `project` takes its spare worktree, if it has one that fits
/// ([`fits`]): renamed to `branch` when named, recorded as the chat's; the chat's session id.
/// `None`: no spare fits (one that does not is set aside for the keeper to remove), and the
/// chat's worktree is made as without one.
pub(super) async fn take(
    state: &ChatState,
    project: &Project,
    branch: Option<&str>,
) -> Result<Option<String>, ErrorBody> {
    let turn = state.spare_worktrees.turn.lock().await;
    let Some((sid, mut rec)) = spare_of(state, &project.slug) else {
        return Ok(None);
    };
    if !fits(state, project, &sid, &rec).await {
        drop(turn);
        set_aside(state, &sid).await;
        tracing::info!(session = %sid, "a spare worktree no longer fits (HEAD moved, or the included files changed); the chat's worktree is made anew");
        return Ok(None);
    }
    if let Some(name) = branch
        && name != rec.worktree.branch
    {
        let (home, from, to) = (
            project.home_dir().to_path_buf(),
            rec.worktree.branch.clone(),
            name.to_owned(),
        );
        blocking(move || rename_branch(&home, &from, &to)).await?;
        rec.worktree.branch = name.to_owned();
    }
    rec.worktree.created_at = Some(chrono::Utc::now().to_rfc3339());
    rec.setup_pending = project.file.worktree_setup.is_some();
    let keep = |e: crate::stores::StoreError| {
        ErrorBody::new(
            ErrorCode::Internal,
            format!("cannot record the worktree: {e}"),
        )
    };
    state.stores.worktrees.set(&sid, rec).await.map_err(keep)?;
    forget(state, &sid).await;
    tracing::info!(session = %sid, project = %project.slug, "a new chat takes the spare worktree {}", short(&sid));
    Ok(Some(sid))
}

/// Renames a spare's branch to the one its chat names (refused, as a worktree made for it
/// would be, when the name is not a branch name or is taken).
fn rename_branch(home: &std::path::Path, from: &str, to: &str) -> Result<(), ErrorBody> {
    let git = Git { dir: home };
    if !git
        .output(["check-ref-format", "--branch", to])?
        .status
        .success()
    {
        return Err(invalid(format!("{to:?} is not a valid branch name")));
    }
    if git.commit_of(&format!("refs/heads/{to}"))?.is_some() {
        return Err(ErrorBody::new(
            ErrorCode::AlreadyExists,
            format!("the branch {to} exists already; name another with --branch"),
        ));
    }
    git.run(["branch", "-m", from, to]).map(drop)
}
