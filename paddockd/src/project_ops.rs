//! The project requests that need the running daemon (`project:create`, `project:update`,
//! `project:delete`, `project:promote`, `project:overview`): the filesystem work of
//! [`crate::projects::Projects`] off the async threads, then what the daemon keeps about a project
//! brought in line: its `.chats` link and its index watch, its triggers, the clients' lists.
//!
//! Creating, promoting and deleting take the registry's one lifecycle lock
//! ([`crate::projects::Projects::one_lifecycle_change`]), so two of them never work on the same folders
//! at once (two promotes cloning into one checkout, a delete under a clone).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use paddock_proto::{
    ChatScope, ErrorBody, ErrorCode, ProjectCreate, ProjectDelete, ProjectDeleted, ProjectFiles,
    ProjectInfo, ProjectOverview, ProjectPromote, ProjectRef, ProjectUpdate,
};

use crate::chats::ChatService;
use crate::projects::{NewProject, Project, project_error};
use crate::runner::Runner;

/// The project service. Its handles: the chat service (the configuration, the chat state,
/// the projects and the hub are reached through it, and a project's overview lists its
/// chats), the runner (a delete stops the project's turns) and the triggers (re-armed when
/// a project comes or goes).
#[derive(Clone)]
pub struct ProjectService {
    pub chats: ChatService,
    pub runner: Runner,
    pub schedules: std::sync::Arc<crate::triggers::Ctx>,
}

/// How long a forced delete waits for the project's interrupted turns to end.
const CANCEL_WAIT: Duration = Duration::from_secs(30);

/// How long a delete waits for the provenance recorder to write what it was handed.
const SETTLE_WAIT: Duration = Duration::from_secs(10);

/// The most of a curated file read before it is cut (they are written within budgets far
/// below this; a hand-edited one may not be).
const READ_MAX: u64 = 1024 * 1024;

fn internal(what: &str, e: impl std::fmt::Display) -> ErrorBody {
    ErrorBody::new(ErrorCode::Internal, format!("{what}: {e}"))
}

/// Tells every client a project's chat list changed (it appeared, went, or moved).
async fn announce(d: &ProjectService, slug: &str) {
    d.chats.hub.chats_changed(slug, None).await;
}

/// `project:create` (and the agents' `create_project`).
pub async fn create(d: &ProjectService, p: ProjectCreate) -> Result<ProjectInfo, ErrorBody> {
    let _one = d.chats.projects.one_lifecycle_change().await;
    // Its agents would read (and claude reads its own directory without asking) what is there.
    if let Some(path) = &p.path
        && let Err(e @ crate::confine::Refused::Private(_)) =
            crate::confine::readable(&d.chats.cfg.private_state(), path)
    {
        return Err(ErrorBody::new(
            paddock_proto::ErrorCode::InvalidArgument,
            format!("{e}, so no project may run there; give another --path"),
        ));
    }
    let new = NewProject {
        path: p.path.map(PathBuf::from),
        repo: p.repo,
        name: p.name,
        summary: p.summary,
        area: p.area,
        status: p.status,
        clone_limit: None,
    };
    let slug = p.slug;
    let project = d
        .chats
        .projects
        .blocking(move |projects| projects.create_with(&slug, &new))
        .await
        .map_err(project_error)?;
    d.chats.state.attach_project(&d.chats.cfg, &project).await;
    crate::triggers::rearm(&d.schedules);
    announce(d, &project.slug).await;
    Ok(project.info())
}

/// `project:update`.
pub async fn update(d: &ProjectService, u: ProjectUpdate) -> Result<ProjectInfo, ErrorBody> {
    let project = d
        .chats
        .projects
        .blocking(move |projects| projects.update(&u))
        .await
        .map_err(project_error)?;
    announce(d, &project.slug).await;
    Ok(project.info())
}

/// The project's turns running now.
async fn running_in(d: &ProjectService, slug: &str) -> Vec<String> {
    d.chats
        .hub
        .running()
        .await
        .into_iter()
        .filter(|(_, s)| s == slug)
        .map(|(sid, _)| sid)
        .collect()
}

/// Removes the link in the daemon's Claude home at `link` when it is one (never a folder, and
/// never what it points to). Whether one was removed.
fn remove_link(link: &Path) -> bool {
    if !link.is_symlink() {
        return false;
    }
    match std::fs::remove_file(link) {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(link = %link.display(), "cannot remove a transcripts link: {e}");
            false
        }
    }
}

/// `project:delete`.
pub async fn delete(d: &ProjectService, r: ProjectDelete) -> Result<ProjectDeleted, ErrorBody> {
    if r.slug.is_empty() {
        return Err(ErrorBody::new(
            ErrorCode::InvalidArgument,
            "the root workspace cannot be deleted",
        ));
    }
    let _one = d.chats.projects.one_lifecycle_change().await;
    let project = d.chats.project(&r.slug).await?;
    let files = files_to_remove(d, &project, r.files)?;
    let mut done = Vec::new();
    let interrupted = stop_running_turns(d, &r.slug, r.force).await?;
    if let Some(n) = interrupted {
        done.push(format!(
            "Interrupted {n} running turn{}.",
            if n == 1 { "" } else { "s" }
        ));
    }
    let cancelled = interrupted.unwrap_or(0);
    // The recorder's writes for those turns (steps, environments) land before the folder goes.
    d.chats.state.provenance.settle(SETTLE_WAIT).await;
    let folder = d.chats.state.folder_of(&project);
    let chats =
        u32::try_from(d.chats.state.listed().await.chats_in(&folder).len()).unwrap_or(u32::MAX);
    let triggers = u32::try_from(project.file.triggers.len()).unwrap_or(u32::MAX);
    let links = forget_chats(d, &project, &folder);
    // The folder itself.
    let moved = {
        let project = project.clone();
        d.chats
            .projects
            .blocking(move |projects| projects.remove_folder(&project, files))
            .await
            .map_err(project_error)
    };
    let moved_to = match moved {
        Ok(m) => m,
        Err(e) => {
            // Nothing was moved: the project stays as it was.
            d.chats.state.attach_project(&d.chats.cfg, &project).await;
            return Err(e);
        }
    };
    remove_late_records(d, &project).await;
    done.extend(deleted_lines(
        d,
        &project,
        chats,
        triggers,
        moved_to.as_deref(),
    ));
    if links > 0 {
        tracing::info!(project = %r.slug, links, "removed the project's transcripts links");
    }
    if let Err(e) = d.chats.state.stores.sweep.remove(&r.slug).await {
        tracing::warn!(project = %r.slug, "cannot forget the project's sweep watermark: {e}");
    }
    crate::triggers::rearm(&d.schedules);
    announce(d, &r.slug).await;
    tracing::info!(project = %r.slug, chats, triggers, cancelled, moved_to = ?moved_to, "project deleted");
    Ok(ProjectDeleted {
        slug: r.slug,
        path: project.agent_dir.to_string_lossy().into_owned(),
        path_kept: project.agent_dir.exists(),
        moved_to: moved_to.map(|p| p.to_string_lossy().into_owned()),
        chats,
        triggers,
        cancelled_turns: cancelled,
        done,
    })
}

/// What happens to the project's data folder: as asked, or to the trash for a project whose
/// files are elsewhere (its own directory); a notebook must say. Never a delete that would take
/// the project's own directory with it.
fn files_to_remove(
    d: &ProjectService,
    project: &Project,
    asked: Option<ProjectFiles>,
) -> Result<ProjectFiles, ErrorBody> {
    let own_dir = project.has_own_dir();
    let files = match (asked, own_dir) {
        (Some(f), _) => f,
        (None, true) => ProjectFiles::Trash,
        (None, false) => {
            return Err(ErrorBody::new(
                ErrorCode::InvalidArgument,
                format!(
                    "project {:?} keeps its files in {}; say what to do with them: `--trash` moves the folder to {} (restorable), `--delete-files` deletes it",
                    project.slug,
                    project.meta_dir.display(),
                    d.chats.projects.trash_dir().display()
                ),
            ));
        }
    };
    if own_dir && files == ProjectFiles::Delete && project.agent_dir.starts_with(&project.meta_dir)
    {
        return Err(ErrorBody::new(
            ErrorCode::InvalidArgument,
            format!(
                "{} (the project's own directory) is inside its data folder; use `--trash` so it is not deleted",
                project.agent_dir.display()
            ),
        ));
    }
    Ok(files)
}

/// The project's running turns: refused without `force`, else interrupted and waited for
/// (at most [`CANCEL_WAIT`]); how many were interrupted, `None` when none was running.
async fn stop_running_turns(
    d: &ProjectService,
    slug: &str,
    force: bool,
) -> Result<Option<u32>, ErrorBody> {
    let running = running_in(d, slug).await;
    if running.is_empty() {
        return Ok(None);
    }
    if !force {
        return Err(ErrorBody::new(
            ErrorCode::Busy,
            format!(
                "project {slug:?} has {} running turn(s); wait for them, or force the delete (`--force`) to interrupt them; nothing was changed",
                running.len()
            ),
        ));
    }
    let mut cancelled = 0u32;
    for sid in &running {
        if d.runner.cancel(sid.clone(), None).await {
            cancelled += 1;
        }
    }
    let deadline = tokio::time::Instant::now() + CANCEL_WAIT;
    while !running_in(d, slug).await.is_empty() {
        if tokio::time::Instant::now() >= deadline {
            return Err(ErrorBody::new(
                ErrorCode::Busy,
                format!(
                    "project {slug:?}'s interrupted turns did not end within {} s; nothing was deleted, try again",
                    CANCEL_WAIT.as_secs()
                ),
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(Some(cancelled))
}

/// The index forgets the project's chats, and the links to them go (a host-mode link's
/// folder, the user's own history, stays); how many links were removed.
fn forget_chats(d: &ProjectService, project: &Project, folder: &Path) -> u32 {
    d.chats.state.live_index().unwatch_folder(folder);
    let meta_link = crate::chat_links::link_path(&d.chats.cfg.claude_home, &project.meta_dir);
    let mut links = 0;
    for link in [folder.to_path_buf(), meta_link] {
        if remove_link(&link) {
            links += 1;
        }
    }
    links
}

/// A late provenance write (a background subagent harvested after the settle) may have made
/// the data folder again: it holds no project.toml then, only those records, which go too.
async fn remove_late_records(d: &ProjectService, project: &Project) {
    d.chats.state.provenance.settle(SETTLE_WAIT).await;
    if project.meta_dir.is_dir()
        && !project
            .meta_dir
            .join(crate::projects::PROJECT_FILE)
            .exists()
    {
        tracing::warn!(project = %project.slug, "removing provenance records written after the delete");
        if let Err(e) = std::fs::remove_dir_all(&project.meta_dir) {
            tracing::warn!(project = %project.slug, "cannot remove {}: {e}", project.meta_dir.display());
        }
    }
}

/// What the delete did, in sentences for the person who asked.
fn deleted_lines(
    d: &ProjectService,
    project: &Project,
    chats: u32,
    triggers: u32,
    moved_to: Option<&Path>,
) -> Vec<String> {
    let own_dir = project.has_own_dir();
    let what = format!(
        "{}{} chat{}, OVERVIEW.md, CHANGELOG.md and project.toml with {} trigger{}",
        match (&project.file.repo, own_dir) {
            (_, true) => String::new(),
            (Some(repo), false) => format!("its clone of {repo} with whatever was not pushed, "),
            (None, false) => "its files, ".to_owned(),
        },
        chats,
        if chats == 1 { "" } else { "s" },
        triggers,
        if triggers == 1 { "" } else { "s" }
    );
    let mut lines = vec![match moved_to {
        Some(to) => format!(
            "Moved {} ({what}) to {}; to restore the project, move it back and restart paddockd.",
            project.meta_dir.display(),
            to.display()
        ),
        None => format!("Deleted {} ({what}).", project.meta_dir.display()),
    }];
    if own_dir {
        lines.push(format!(
            "Left {} as it is: it is your own directory.",
            project.agent_dir.display()
        ));
    }
    if d.chats.cfg.transcripts == crate::chat_links::TranscriptMode::Host {
        lines.push(
            "The transcripts stay in your own ~/.claude (host mode); only paddock's links to them were removed.".to_owned(),
        );
    }
    lines
}

/// `project:promote` (and the agents' `promote_project`).
pub async fn promote(d: &ProjectService, r: ProjectPromote) -> Result<ProjectInfo, ErrorBody> {
    promote_within(d, r, crate::projects::repo::CLONE_LIMIT).await
}

async fn promote_within(
    d: &ProjectService,
    r: ProjectPromote,
    limit: Duration,
) -> Result<ProjectInfo, ErrorBody> {
    if d.chats.cfg.transcripts == crate::chat_links::TranscriptMode::Host {
        return Err(ErrorBody::new(
            ErrorCode::InvalidArgument,
            "in host mode a project's chats are your terminal history for its directory, which a promotion would leave behind; create a new project with the repository instead (`paddock project add SLUG --repo URL`)",
        ));
    }
    let _one = d.chats.projects.one_lifecycle_change().await;
    // Turns running now (the asking agent's own, say) go on in the old directory, and so does
    // a `claude` kept alive idle; each writes through the old link into the same `.chats`.
    let before = d.chats.project(&r.slug).await?;
    let old_folder = d.chats.state.folder_of(&before);
    let (slug, repo) = (r.slug.clone(), r.repo);
    let project: Project = d
        .chats
        .projects
        .blocking(move |projects| projects.promote(&slug, &repo, limit))
        .await
        .map_err(project_error)?;
    // The chats stay in `.chats`; the link for the new directory leads there too. The old link
    // stays: a `claude` still alive idle in the old directory writes through it (the next
    // turn of its chat), into the same `.chats`. Only the new folder is indexed.
    d.chats.state.live_index().unwatch_folder(&old_folder);
    d.chats.state.attach_project(&d.chats.cfg, &project).await;
    crate::triggers::rearm(&d.schedules);
    announce(d, &project.slug).await;
    Ok(project.info())
}

/// Reads at most [`READ_MAX`] bytes of a file; `None` when it does not exist.
/// One that leads out of the project's folder (`confine::open_own`) is not read, and the log
/// says why.
fn read_capped(path: &Path) -> std::io::Result<Option<String>> {
    let file = match crate::confine::open_own(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            tracing::warn!("not reading {}: {e}", path.display());
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    file.take(READ_MAX).read_to_end(&mut bytes)?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// The start of `text` within `max` bytes, cut at a line's end; whether it was cut.
fn head_lines(text: String, max: usize) -> (String, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text[..end].rfind('\n').map_or(end, |at| at + 1);
    (text[..cut].to_owned(), true)
}

/// `project:overview`.
pub async fn overview(
    d: &ProjectService,
    user: &str,
    r: ProjectRef,
) -> Result<ProjectOverview, ErrorBody> {
    let project = d.chats.project(&r.slug).await?;
    let meta = project.meta_dir.clone();
    let (overview, changelog) = tokio::task::spawn_blocking(move || {
        let read = |name: &str| read_capped(&meta.join(name));
        Ok::<_, std::io::Error>((
            read(crate::config::curation::OVERVIEW_FILE)?,
            read(crate::config::curation::CHANGELOG_FILE)?,
        ))
    })
    .await
    .map_err(|e| internal("the project task failed", e))?
    .map_err(|e| internal("cannot read the project's curated files", e))?;
    let (overview, overview_truncated) = match overview {
        Some(text) => {
            let (text, cut) = head_lines(text, paddock_proto::OVERVIEW_MAX_BYTES);
            (Some(text), cut)
        }
        None => (None, false),
    };
    let (changelog, changelog_truncated) = match changelog {
        Some(text) => {
            let (text, cut) =
                crate::sweeper::files::cut_changelog(&text, paddock_proto::CHANGELOG_MAX_BYTES);
            (Some(text), cut)
        }
        None => (None, false),
    };
    let chats = crate::chats::list(&d.chats, user, Some(&r.slug), ChatScope::Active).await?;
    let count = |f: fn(&paddock_proto::ChatSummary) -> bool| {
        u32::try_from(chats.iter().filter(|c| f(c)).count()).unwrap_or(u32::MAX)
    };
    let sweep = d.chats.state.stores.sweep.get(&r.slug);
    Ok(ProjectOverview {
        project: project.info(),
        overview,
        overview_truncated,
        changelog,
        changelog_truncated,
        chats: count(|_| true),
        running: count(|c| c.running),
        unread: count(|c| c.unread),
        swept_at: sweep.as_ref().map(|s| s.last_swept_at.clone()),
        sweep_error: sweep.and_then(|s| s.last_error),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overview_is_cut_at_a_line_end() {
        let text = "line one\nline two\nline three\n".to_owned();
        assert_eq!(head_lines(text.clone(), 100), (text.clone(), false));
        assert_eq!(
            head_lines(text.clone(), 12),
            ("line one\n".to_owned(), true)
        );
        assert_eq!(head_lines("ééé".to_owned(), 3), ("é".to_owned(), true));
    }
}
