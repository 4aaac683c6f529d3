//! The worktree chats' requests (`worktree:list`, `merge`, `rebase`, `discard`, `prune`), the
//! clean-up when such a chat is archived or deleted, and keeping each record's work (ahead,
//! behind, changed files) current: after each of its turns, after each request here, and at
//! start, when a folder removed by hand is found and marked on its chat (never made again).
//!
//! A record's target is its parent chat's branch when it has a parent chat (its checkout is the
//! parent's worktree), else the branch it was made from (its checkout is the project's, if that
//! has the branch checked out).

use std::path::{Path, PathBuf};

use paddock_proto::{
    ErrorBody, ErrorCode, WorktreeDiscard, WorktreeDiscarded, WorktreeEntry, WorktreeList,
    WorktreeMerge, WorktreeMergeRecord, WorktreeMerged, WorktreePrune, WorktreePruned,
    WorktreeRebase, WorktreeRebased, Worktrees,
};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::merge::{MergeAsk, conflict, some_files};
use super::scope::{blocking, short};
use super::{Git, internal, invalid, label, trimmed};
use crate::chats::ChatService;
use crate::stores::{Pending, WorktreeRecord};
use crate::turn_ends::{Follower, Next, TurnEnds};

/// The record named by `sid` (a session id, or a prefix naming one record).
fn record(d: &ChatService, sid: &str) -> Result<(String, WorktreeRecord), ErrorBody> {
    let all = d.state.stores.worktrees.all();
    if let Some(r) = all.get(sid) {
        return Ok((sid.to_owned(), r.clone()));
    }
    let mut found = all
        .iter()
        .filter(|(k, _)| k.starts_with(sid) && sid.len() >= 4);
    match (found.next(), found.next()) {
        (Some((k, r)), None) => Ok((k.clone(), r.clone())),
        (Some(_), Some(_)) => Err(invalid(format!(
            "{sid} names more than one worktree chat; give more of the session id"
        ))),
        _ => Err(ErrorBody::new(
            ErrorCode::NotFound,
            format!(
                "chat {sid} has no worktree of its own (it works in its project's directory, or its worktree was discarded); `paddock worktree ls` lists those that have one"
            ),
        )),
    }
}

/// Where a record's work goes.
struct Destination {
    /// The target branch (`None`: none, or gone).
    branch: Option<String>,
    /// The checkout that may have it checked out.
    home: PathBuf,
}

/// The branch a record's work is for: its parent chat's, or the one it was made from.
pub(super) fn target_branch(d: &ChatService, rec: &WorktreeRecord) -> Option<String> {
    if let Some(parent) = &rec.worktree.target_chat
        && let Some(p) = d.state.stores.worktrees.get(parent)
    {
        return Some(p.worktree.branch.clone());
    }
    (!rec.worktree.target.is_empty()).then(|| rec.worktree.target.clone())
}

async fn destination(d: &ChatService, rec: &WorktreeRecord) -> Result<Destination, ErrorBody> {
    if let Some(parent) = &rec.worktree.target_chat
        && let Some(p) = d.state.stores.worktrees.get(parent)
    {
        return Ok(Destination {
            branch: Some(p.worktree.branch.clone()),
            home: PathBuf::from(&p.worktree.path),
        });
    }
    let project = d.project(&rec.project).await?;
    let dir = project.home_dir().to_path_buf();
    let home = blocking(move || {
        let git = Git { dir: &dir };
        Ok(trimmed(&git.run(["rev-parse", "--show-toplevel"])?))
    })
    .await?;
    Ok(Destination {
        branch: target_branch(d, rec),
        home: PathBuf::from(home),
    })
}

async fn refuse_running(d: &ChatService, sid: &str, what: &str) -> Result<(), ErrorBody> {
    if d.hub.running().await.contains_key(sid) {
        return Err(ErrorBody::new(
            ErrorCode::Busy,
            format!(
                "chat {} is running a turn; {what} once it has ended (or cancel it: paddock cancel {})",
                short(sid),
                short(sid)
            ),
        ));
    }
    Ok(())
}

/// After a change of `sid`'s worktree or its project's repository: every worktree chat of the
/// project read again (a merge moves others' targets, a child's merge changes its parent's
/// work), its overlaps worked out again, and the clients told.
async fn changed(d: &ChatService, slug: &str, sid: &str) {
    refresh_project(d, slug).await;
    d.hub.chats_changed(slug, Some(sid)).await;
    d.hub
        .project_changed(slug, paddock_proto::ProjectPart::Git)
        .await;
}

fn store_error(e: impl std::fmt::Display) -> ErrorBody {
    internal(format!("cannot record the worktree: {e}"))
}

/// Reads every worktree chat of project `slug` again, then the project's overlaps.
pub async fn refresh_project(d: &ChatService, slug: &str) {
    let sids: Vec<String> = d
        .state
        .stores
        .worktrees
        .all()
        .iter()
        .filter(|(_, r)| r.project == slug && r.pending.is_none())
        .map(|(sid, _)| sid.clone())
        .collect();
    for sid in &sids {
        if let Err(e) = refresh(d, sid).await {
            tracing::warn!(session = %sid, "cannot read a worktree chat's work: {e}");
        }
    }
    if !sids.is_empty() {
        d.hub.chats_changed(slug, None).await;
    }
    super::overlap::refresh_project(d, slug).await;
}

/// Reads the work of `sid`'s worktree again into its record (or marks its folder missing).
pub async fn refresh(d: &ChatService, sid: &str) -> Result<(), ErrorBody> {
    let Some(rec) = d.state.stores.worktrees.get(sid) else {
        return Ok(());
    };
    let root = PathBuf::from(&rec.worktree.path);
    if !root.is_dir() {
        d.state
            .stores
            .worktrees
            .update(sid, |w| w.missing = true)
            .await
            .map_err(store_error)?;
        return Ok(());
    }
    let dest = destination(d, &rec).await?;
    let (prefix, base) = (rec.worktree.prefix.clone(), rec.worktree.base.clone());
    let work =
        blocking(move || super::work::work(&root, &prefix, dest.branch.as_deref(), &base)).await?;
    d.state
        .stores
        .worktrees
        .update(sid, |w| {
            w.missing = false;
            w.ahead = work.ahead;
            w.behind = work.behind;
            w.changed_files = work.paths();
        })
        .await
        .map_err(store_error)?;
    Ok(())
}

/// The worktree chats of a project, with their titles (for its git status).
pub(super) async fn of_project(d: &ChatService, slug: &str) -> Vec<WorktreeEntry> {
    let request = WorktreeList {
        project_slug: Some(slug.to_owned()),
        orphans: false,
    };
    list(d, request)
        .await
        .map(|w| w.worktrees)
        .unwrap_or_default()
}

/// `chat:fork` (and an agent's `fork_chat`): the fork, and when its source works in a worktree
/// of its own, the fork's own worktree from the source's as it is. A fork whose worktree cannot
/// be made is deleted again (it must not work in the shared checkout instead), and the error
/// says why.
pub async fn fork_chat(
    d: &ChatService,
    f: paddock_proto::ChatFork,
    origin: paddock_proto::Origin,
    acting_depth: u32,
) -> Result<paddock_proto::Forked, ErrorBody> {
    let source = f.session_id.clone();
    let forked = crate::chats::fork_as(d, f, origin, acting_depth).await?;
    if d.state.stores.worktrees.get(&source).is_none() {
        return Ok(forked);
    }
    let project = d.project(&forked.project_slug).await?;
    if let Err(e) =
        super::worktree::fork(&d.cfg, &d.state, &project, &source, &forked.session_id).await
    {
        if let Err(undo) = crate::chats::delete(d, vec![forked.session_id.clone()]).await {
            tracing::warn!(session = %forked.session_id, "cannot delete a fork whose worktree failed: {}", undo.message);
        }
        return Err(ErrorBody::new(
            e.code,
            format!(
                "the fork's worktree could not be made, so the fork was not kept: {}",
                e.message
            ),
        ));
    }
    if let Err(e) = refresh(d, &forked.session_id).await {
        tracing::warn!(session = %forked.session_id, "cannot read the fork's work: {e}");
    }
    changed(d, &forked.project_slug, &forked.session_id).await;
    Ok(forked)
}

/// `worktree:list`. Titles and orphans come from the index, as any label of one chat does;
/// no listing is built.
pub async fn list(d: &ChatService, r: WorktreeList) -> Result<Worktrees, ErrorBody> {
    let all = d.state.stores.worktrees.all();
    let overlaps = d.state.stores.overlaps.all();
    let mut worktrees = Vec::new();
    for (sid, rec) in all.iter() {
        if r.project_slug.as_ref().is_some_and(|p| *p != rec.project) {
            continue;
        }
        let orphan = crate::chats::project_of(d, sid).await.is_err();
        if r.orphans && !orphan {
            continue;
        }
        worktrees.push(WorktreeEntry {
            session_id: sid.clone(),
            project_slug: rec.project.clone(),
            title: (!orphan).then(|| d.state.title_now(sid)).flatten(),
            orphan,
            worktree: rec.worktree.clone(),
            overlaps: overlaps
                .chats
                .get(sid)
                .map(|o| o.with.clone())
                .unwrap_or_default(),
        });
    }
    Ok(Worktrees { worktrees })
}

/// A merge's commit message: the one asked for, else the chat's id, branch and title.
fn merge_message(
    d: &ChatService,
    rec: &WorktreeRecord,
    sid: &str,
    asked: Option<String>,
) -> String {
    if let Some(m) = asked {
        return m;
    }
    let title = d.state.title_now(sid).unwrap_or_default();
    format!(
        "paddock: chat {} ({}){}{title}",
        short(sid),
        rec.worktree.branch,
        if title.is_empty() { "" } else { ": " }
    )
}

/// `worktree:merge`. The merge's commit is made first; the record then says it is being put
/// on its target (a daemon killed from there on records it as merged at its next start when
/// the target has it), and says it is merged once it is.
pub async fn merge(d: &ChatService, r: WorktreeMerge) -> Result<WorktreeMerged, ErrorBody> {
    let (sid, rec) = record(d, &r.session_id)?;
    refuse_running(d, &sid, "merge it").await?;
    let dest = destination(d, &rec).await?;
    let Some(into) = dest.branch.clone() else {
        return Err(invalid(format!(
            "chat {} was made from no branch (a detached HEAD or a commit), so it has no target to merge into; merge its branch {} by hand",
            short(&sid),
            rec.worktree.branch
        )));
    };
    let message = merge_message(d, &rec, &sid, r.message.clone());
    let pending = format!("paddock: uncommitted work of chat {}", short(&sid));
    let identity = d.cfg.git_identity.clone();
    let (w, squash, into_) = (rec.worktree.clone(), r.squash, into.clone());
    let merged = blocking(move || {
        let root = PathBuf::from(&w.path);
        super::merge::prepare(&MergeAsk {
            root: &root,
            prefix: &w.prefix,
            branch: &w.branch,
            target: &into_,
            home: &dest.home,
            squash,
            message: &message,
            pending_message: &pending,
            identity: &identity,
        })
    })
    .await?;
    let underway = Pending::Merge {
        commit: merged.commit.clone(),
        into: into.clone(),
        squash: r.squash,
    };
    let stores = &d.state.stores;
    stores
        .worktrees
        .set_pending(&sid, Some(underway))
        .await
        .map_err(store_error)?;
    crate::failpoint::reached("worktree.merge.prepared").await;
    let (root, into_, m) = (PathBuf::from(&rec.worktree.path), into.clone(), merged);
    let applied = blocking(move || super::merge::apply(&root, &into_, &m).map(|()| m)).await;
    let merged = match applied {
        Ok(m) => m,
        Err(e) => {
            if let Err(forget) = stores.worktrees.set_pending(&sid, None).await {
                tracing::warn!(session = %sid, "cannot clear a merge that failed: {forget}");
            }
            return Err(e);
        }
    };
    crate::failpoint::reached("worktree.merge.applied").await;
    record_merge(d, &sid, &merged.commit, &into, r.squash).await?;
    changed(d, &rec.project, &sid).await;
    Ok(WorktreeMerged {
        session_id: sid,
        into,
        commit: merged.commit,
        squash: r.squash,
        files: merged.files,
        committed: merged.committed,
        checkout: merged.checkout.map(|p| p.to_string_lossy().into_owned()),
    })
}

/// Records that `commit` brought `sid`'s work into `into`, and reads its work again.
async fn record_merge(
    d: &ChatService,
    sid: &str,
    commit: &str,
    into: &str,
    squash: bool,
) -> Result<(), ErrorBody> {
    let mark = WorktreeMergeRecord {
        commit: commit.to_owned(),
        into: into.to_owned(),
        squash,
        at: chrono::Utc::now().to_rfc3339(),
    };
    let worktrees = &d.state.stores.worktrees;
    worktrees
        .update(sid, |w| w.merged = Some(mark))
        .await
        .map_err(store_error)?;
    worktrees
        .set_pending(sid, None)
        .await
        .map_err(store_error)?;
    if let Err(e) = refresh(d, sid).await {
        tracing::warn!(session = %sid, "cannot read the merged chat's work again: {e}");
    }
    Ok(())
}

/// `worktree:rebase`.
pub async fn rebase(d: &ChatService, r: WorktreeRebase) -> Result<WorktreeRebased, ErrorBody> {
    let (sid, rec) = record(d, &r.session_id)?;
    refuse_running(d, &sid, "bring it up to date").await?;
    let dest = destination(d, &rec).await?;
    let Some(onto) = dest.branch else {
        return Err(invalid(format!(
            "chat {} was made from no branch, so there is nothing to bring it up to date with",
            short(&sid)
        )));
    };
    let pending = format!("paddock: uncommitted work of chat {}", short(&sid));
    let identity = d.cfg.git_identity.clone();
    let (w, onto_) = (rec.worktree.clone(), onto.clone());
    let done = blocking(move || {
        super::merge::rebase(Path::new(&w.path), &w.prefix, &onto_, &pending, &identity)
    })
    .await;
    // A refusal may still have committed the pending work: the record follows either way.
    if let Err(e) = refresh(d, &sid).await {
        tracing::warn!(session = %sid, "cannot read the chat's work again: {e}");
    }
    let done = done?;
    d.state
        .stores
        .worktrees
        .update(&sid, |w| w.base = done.onto.clone())
        .await
        .map_err(store_error)?;
    changed(d, &rec.project, &sid).await;
    Ok(WorktreeRebased {
        session_id: sid,
        onto,
        base: done.onto,
        committed: done.committed,
    })
}

/// Files of `rec`'s work its target lacks.
async fn unmerged(d: &ChatService, rec: &WorktreeRecord) -> Result<Vec<String>, ErrorBody> {
    let root = PathBuf::from(&rec.worktree.path);
    if !root.is_dir() {
        // Its folder is gone: what is left is its branch's commits.
        return Ok(Vec::new());
    }
    let dest = destination(d, rec).await?;
    let (prefix, base) = (rec.worktree.prefix.clone(), rec.worktree.base.clone());
    blocking(move || super::discard::unmerged(&root, &prefix, dest.branch.as_deref(), &base)).await
}

/// Removes `sid`'s worktree and branch, then its record. The record says first that it is
/// being removed: a daemon killed half-way finishes it at its next start.
async fn remove(d: &ChatService, sid: &str, rec: &WorktreeRecord) -> Result<(), ErrorBody> {
    let path = PathBuf::from(&rec.worktree.path);
    let owned = crate::config::worktrees_dir(&d.cfg.data_dir);
    if !path.starts_with(&owned) {
        return Err(invalid(format!(
            "{} is not a worktree paddockd made (it is outside {}); paddockd removes only its own",
            path.display(),
            owned.display()
        )));
    }
    let worktrees = &d.state.stores.worktrees;
    worktrees
        .set_pending(sid, Some(Pending::Discard))
        .await
        .map_err(store_error)?;
    crate::failpoint::reached("worktree.discard.marked").await;
    let project = d.project(&rec.project).await?;
    let repo = project.home_dir().to_path_buf();
    let branch = rec.worktree.branch.clone();
    let removed = blocking(move || super::discard::remove(&repo, &path, &branch)).await;
    if let Err(e) = removed {
        if let Err(forget) = worktrees.set_pending(sid, None).await {
            tracing::warn!(session = %sid, "cannot clear a discard that failed: {forget}");
        }
        return Err(e);
    }
    worktrees.remove(sid).await.map_err(store_error)?;
    changed(d, &rec.project, sid).await;
    Ok(())
}

/// `worktree:discard`.
pub async fn discard(d: &ChatService, r: WorktreeDiscard) -> Result<WorktreeDiscarded, ErrorBody> {
    let (sid, rec) = record(d, &r.session_id)?;
    refuse_running(d, &sid, "discard its worktree").await?;
    let lost = unmerged(d, &rec).await?;
    if !lost.is_empty() && !r.force {
        return Err(conflict(
            format!(
                "chat {}'s branch {} has work its target lacks ({}); nothing was removed: merge it first (paddock worktree merge {}), or discard it anyway with --force",
                short(&sid),
                rec.worktree.branch,
                some_files(&lost),
                short(&sid)
            ),
            lost,
        ));
    }
    if !r.dry_run {
        remove(d, &sid, &rec).await?;
    }
    Ok(WorktreeDiscarded {
        session_id: sid,
        path: rec.worktree.path,
        branch: rec.worktree.branch,
        lost,
    })
}

/// `worktree:prune`.
pub async fn prune(d: &ChatService, r: WorktreePrune) -> Result<WorktreePruned, ErrorBody> {
    let orphans = list(
        d,
        WorktreeList {
            project_slug: r.project_slug,
            orphans: true,
        },
    )
    .await?;
    let mut out = WorktreePruned::default();
    for entry in orphans.worktrees {
        let Some(rec) = d.state.stores.worktrees.get(&entry.session_id) else {
            continue;
        };
        let kept = |reason: String| paddock_proto::WorktreeKept {
            entry: entry.clone(),
            reason,
        };
        match unmerged(d, &rec).await {
            Ok(lost) if lost.is_empty() => match remove(d, &entry.session_id, &rec).await {
                Ok(()) => out.removed.push(entry),
                Err(e) => out.kept.push(kept(e.message)),
            },
            Ok(lost) => out.kept.push(kept(format!(
                "its branch {} has work its target lacks ({}): merge it by hand, or `paddock worktree discard {} --force`",
                rec.worktree.branch,
                some_files(&lost),
                short(&entry.session_id)
            ))),
            Err(e) => out.kept.push(kept(e.message)),
        }
    }
    Ok(out)
}

/// After chats were deleted or archived: a worktree with no work is removed with its branch;
/// one with work is kept, and a sentence for each says so.
pub async fn tidy(d: &ChatService, ids: &[String], deleted: bool) -> Vec<String> {
    let mut notes = Vec::new();
    let running = d.hub.running().await;
    for sid in ids {
        let Some(rec) = d.state.stores.worktrees.get(sid) else {
            continue;
        };
        if running.contains_key(sid) {
            notes.push(format!(
                "chat {} is running a turn, so its worktree is kept; `paddock worktree discard {}` removes it once the turn has ended",
                short(sid),
                short(sid)
            ));
            continue;
        }
        match unmerged(d, &rec).await {
            Ok(lost) if lost.is_empty() => {
                if let Err(e) = remove(d, sid, &rec).await {
                    notes.push(format!(
                        "chat {}'s worktree could not be removed: {}",
                        short(sid),
                        e.message
                    ));
                }
            }
            Ok(lost) => notes.push(format!(
                "chat {}'s worktree {} holds work its target lacks ({}); it is kept: {}",
                short(sid),
                rec.worktree.branch,
                some_files(&lost),
                if deleted {
                    "`paddock worktree ls --orphans` lists it, and `paddock worktree discard --force` removes it"
                } else {
                    "merge it (paddock worktree merge) or discard it (paddock worktree discard --force)"
                }
            )),
            Err(e) => notes.push(format!(
                "chat {}'s worktree was kept: its work could not be read ({})",
                short(sid),
                e.message
            )),
        }
    }
    notes
}

/// Keeps every record's work current: all of them now (and a folder removed by hand marked
/// missing), then each chat's after each of its turns; and each project's overlaps
/// (`overlap.rs`) after its worktree chats' turns and each time the provenance recorder has
/// caught up with one of its turns (a shared-checkout chat's files are known then).
pub fn spawn_refresher(
    d: ChatService,
    turn_ends: &TurnEnds,
    shutdown: CancellationToken,
    tracker: &TaskTracker,
) {
    let ends = turn_ends.follow();
    let recorded = d.state.provenance.recorded();
    tracker.spawn(follow(d, ends, recorded, shutdown));
}

async fn follow(
    d: ChatService,
    mut ends: Follower,
    mut recorded: tokio::sync::broadcast::Receiver<String>,
    shutdown: CancellationToken,
) {
    use tokio::sync::broadcast::error::RecvError;
    reconcile(&d).await;
    let all = d.state.stores.worktrees.all();
    let mut projects = std::collections::BTreeSet::new();
    for (sid, rec) in all.iter() {
        if shutdown.is_cancelled() {
            return;
        }
        match refresh(&d, sid).await {
            Ok(()) => d.hub.chats_changed(&rec.project, Some(sid)).await,
            Err(e) => {
                tracing::warn!(session = %sid, project = %label(&rec.project), "cannot read a worktree chat's work: {e}")
            }
        }
        projects.insert(rec.project.clone());
    }
    for slug in projects {
        super::overlap::refresh_project(&d, &slug).await;
    }
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            next = ends.next() => match next {
                Next::Ended(ev) => after_turn(&d, &ev.project_slug, &ev.session_id).await,
                Next::Missed(missed) => {
                    tracing::error!(missed, "the worktree refresher was stuck; {missed} turn ends were dropped");
                }
            },
            slug = recorded.recv() => match slug {
                Ok(slug) => super::overlap::refresh_project(&d, &slug).await,
                Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => std::future::pending::<()>().await,
            },
        }
    }
}

/// At start: each change a killed daemon left half done is finished or undone — a worktree
/// being made is removed with its branch (its chat never began), a merge is recorded when its
/// target has the merge's commit (and forgotten when not: nothing moved), a discard is
/// finished. Folders removed by hand are marked `missing` by the refresh that follows.
async fn reconcile(d: &ChatService) {
    let all = d.state.stores.worktrees.all();
    for (sid, rec) in all.iter() {
        let Some(pending) = &rec.pending else {
            continue;
        };
        let done = match pending {
            Pending::Create => undo_create(d, sid, rec).await,
            Pending::Merge {
                commit,
                into,
                squash,
            } => finish_merge(d, sid, rec, commit, into, *squash).await,
            Pending::Discard => remove(d, sid, rec).await,
        };
        match done {
            Ok(()) => {
                tracing::info!(session = %sid, "a worktree change cut short by a stop was settled: {pending:?}")
            }
            Err(e) => {
                tracing::warn!(session = %sid, "a worktree change cut short by a stop could not be settled ({pending:?}): {}", e.message)
            }
        }
    }
}

/// A worktree whose making was cut short: its folder and the branch checked out there go
/// (a branch no worktree of ours has is left alone: it may be the user's), then the record.
async fn undo_create(d: &ChatService, sid: &str, rec: &WorktreeRecord) -> Result<(), ErrorBody> {
    let path = PathBuf::from(&rec.worktree.path);
    let project = d.project(&rec.project).await?;
    let repo = project.home_dir().to_path_buf();
    let owned = crate::config::worktrees_dir(&d.cfg.data_dir);
    if path.starts_with(&owned) {
        let branch = rec.worktree.branch.clone();
        blocking(move || super::discard::remove_unused(Some(&repo), &path, &branch)).await?;
    }
    d.state
        .stores
        .worktrees
        .remove(sid)
        .await
        .map_err(store_error)
}

/// A merge cut short after its commit was made: recorded when its target has it.
async fn finish_merge(
    d: &ChatService,
    sid: &str,
    rec: &WorktreeRecord,
    commit: &str,
    into: &str,
    squash: bool,
) -> Result<(), ErrorBody> {
    let project = d.project(&rec.project).await?;
    let (repo, into_, commit_) = (
        project.home_dir().to_path_buf(),
        into.to_owned(),
        commit.to_owned(),
    );
    let landed = blocking(move || super::merge::has_commit(&repo, &into_, &commit_)).await?;
    if landed {
        return record_merge(d, sid, commit, into, squash).await;
    }
    d.state
        .stores
        .worktrees
        .set_pending(sid, None)
        .await
        .map_err(store_error)
}

/// A turn of `sid` ended: its worktree's work read again, and its project's overlaps.
async fn after_turn(d: &ChatService, slug: &str, sid: &str) {
    if d.state.stores.worktrees.get(sid).is_none() {
        return;
    }
    match refresh(d, sid).await {
        Ok(()) => d.hub.chats_changed(slug, Some(sid)).await,
        Err(e) => tracing::warn!(session = %sid, "cannot read a worktree chat's work: {e}"),
    }
    super::overlap::refresh_project(d, slug).await;
}
