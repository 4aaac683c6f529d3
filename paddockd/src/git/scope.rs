//! Scopes: the chats a scope covers and the files their turns wrote (from file provenance).

use std::path::Path;

use paddock_proto::{ErrorBody, GitScope};

use crate::chats::ChatService;
use crate::projects::Project;
use crate::provenance::steps::{self, Line, Role};

use super::{ScopeFiles, internal, invalid, label};

/// The chats a scope covers, after checking they are the project's.
pub(super) async fn scope_sessions(
    d: &ChatService,
    user: &str,
    project: &Project,
    scope: &GitScope,
) -> Result<Option<(Vec<String>, Option<String>)>, ErrorBody> {
    let (sid, job) = match scope {
        GitScope::Project => return Ok(None),
        GitScope::Chat { session_id } | GitScope::Subtree { session_id } => (session_id, None),
        GitScope::Turn { session_id, job_id } => (session_id, Some(job_id.clone())),
    };
    let owner = crate::chats::project_of(d, sid).await?;
    if owner.slug != project.slug {
        return Err(invalid(format!(
            "chat {sid} belongs to project {}, not {}",
            label(&owner.slug),
            label(&project.slug)
        )));
    }
    let sessions = match scope {
        GitScope::Subtree { .. } => crate::chats::subtree(d, user, &project.slug, sid).await?,
        _ => vec![sid.clone()],
    };
    Ok(Some((sessions, job)))
}

/// The files the steps of `sessions` (of one turn, when `job` is given) wrote inside the
/// project's directory (blocking: reads the steps files).
pub(super) fn written_files(meta_dir: &Path, sessions: &[String], job: Option<&str>) -> ScopeFiles {
    let mut out = ScopeFiles::default();
    for sid in sessions {
        let lines = match steps::read(&steps::steps_path(meta_dir, sid)) {
            Ok(lines) => lines,
            Err(e) => {
                out.notes.push(format!(
                    "The steps of chat {} could not be read ({e}), so its files are missing here.",
                    short(sid)
                ));
                continue;
            }
        };
        let mut gap = false;
        let mut unscanned = 0;
        for line in lines {
            match line {
                Line::Gap { .. } => gap = true,
                Line::Step(step) => {
                    if job.is_some_and(|j| j != step.job_id) {
                        continue;
                    }
                    if step.scan.is_some() {
                        unscanned += 1;
                    }
                    for f in &step.files {
                        if f.role == Role::Write && !f.path.starts_with('/') && !f.path.is_empty() {
                            out.paths.insert(f.path.clone());
                        }
                    }
                }
            }
        }
        if gap {
            out.notes.push(format!(
                "Some tool calls of chat {} were not recorded (the recorder fell behind), so files it wrote may be missing here.",
                short(sid)
            ));
        }
        if unscanned > 0 {
            out.notes.push(format!(
                "{unscanned} tool call{} of chat {} had no before/after scan, so files {} wrote may be missing here.",
                if unscanned == 1 { "" } else { "s" },
                short(sid),
                if unscanned == 1 { "it" } else { "they" }
            ));
        }
    }
    out
}

pub(super) fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// The project and the scope's files (`None`: the whole project).
pub(super) async fn resolve(
    d: &ChatService,
    user: &str,
    slug: &str,
    scope: &GitScope,
) -> Result<(Project, Option<ScopeFiles>), ErrorBody> {
    let project = d.project(slug).await?;
    let Some((sessions, job)) = scope_sessions(d, user, &project, scope).await? else {
        return Ok((project, None));
    };
    // A chat that works in a worktree of its own: its work is everything changed there, so
    // the view is of that worktree, whole (nothing of other chats, nothing of the checkout).
    if let GitScope::Chat { session_id } = scope
        && let Some(record) = d.state.stores.worktrees.get(session_id)
    {
        let dir = crate::stores::workdir(session_id, &record).map_err(invalid)?;
        return Ok((project.in_worktree(&dir), None));
    }
    let meta = project.meta_dir.clone();
    let files = blocking(move || Ok(written_files(&meta, &sessions, job.as_deref()))).await?;
    Ok((project, Some(files)))
}

/// A worktree chat's work, where to read it.
#[derive(Debug, Clone)]
pub(super) struct WorkView {
    pub root: std::path::PathBuf,
    pub prefix: String,
    pub target: Option<String>,
    pub base: String,
}

/// The work of the chat a `Chat` scope names, when it works in a worktree of its own.
pub(super) async fn work_view(
    d: &ChatService,
    scope: &GitScope,
) -> Result<Option<WorkView>, ErrorBody> {
    let GitScope::Chat { session_id } = scope else {
        return Ok(None);
    };
    view_of(d, session_id)
}

/// Chat `sid`'s work, when it works in a worktree of its own.
fn view_of(d: &ChatService, sid: &str) -> Result<Option<WorkView>, ErrorBody> {
    let Some(record) = d.state.stores.worktrees.get(sid) else {
        return Ok(None);
    };
    crate::stores::workdir(sid, &record).map_err(invalid)?;
    let target = super::worktrees::target_branch(d, &record);
    Ok(Some(WorkView {
        root: record.worktree.path.clone().into(),
        prefix: record.worktree.prefix.clone(),
        target,
        base: record.worktree.base.clone(),
    }))
}

/// The chats of a subtree scope that work in worktrees of their own, each with its work:
/// their changes are in those worktrees, not the checkout the scope's other chats share.
pub(super) async fn subtree_views(
    d: &ChatService,
    user: &str,
    project: &str,
    scope: &GitScope,
) -> Result<Vec<(String, WorkView)>, ErrorBody> {
    let GitScope::Subtree { session_id } = scope else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for sid in crate::chats::subtree(d, user, project, session_id).await? {
        if let Some(view) = view_of(d, &sid)? {
            out.push((sid, view));
        }
    }
    Ok(out)
}

pub(super) async fn blocking<T: Send + 'static>(
    job: impl FnOnce() -> Result<T, ErrorBody> + Send + 'static,
) -> Result<T, ErrorBody> {
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| internal(format!("the git request failed: {e}")))?
}
