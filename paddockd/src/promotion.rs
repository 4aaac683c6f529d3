//! `chat:promote`: a chat, with the chats under it in its project's tree, moved to another
//! project (a new one when no project has the slug).
//!
//! A chat belongs to the project whose transcript folder holds its transcript, so a move is a
//! rename of each transcript (and of the subagent folder beside it) into the target's folder:
//! nothing is copied, nothing of the chat is left behind. The files it changed stay where they
//! are, in the project it left, and so do their file-provenance steps (facts about that
//! project's files, which its blame and provenance views read); its turns in the new project
//! record theirs there. The sidecar stores are keyed by session id, so flags, read state,
//! queued follow-ups and run provenance go with the chats as they are; what names a project
//! is changed: the History runs (`run_log.rs`), the markers of children in other projects
//! and the messages the chats sent (`Stores::moved`), the chat's tool token. A schedule or
//! hook of the project left no longer continues a moved chat.
//!
//! # Crash safety
//!
//! Before the first rename a journal (`state/promotions/<session id>.json`) says what moves
//! where; it is removed after the last change. Each step can be done again: a rename whose
//! source is gone and whose target is there is done, and the stores' changes write nothing
//! the second time. A daemon killed part way finds the journal at its next start, before any
//! turn, and finishes the move ([`finish_left`]). A rename that fails (another file system,
//! permissions) is undone, and the request fails naming it.
//!
//! While a move runs its chats are held (`state::Moving`): no turn starts in them.

use std::path::{Path, PathBuf};

use paddock_proto::{ChatPromote, ErrorBody, ErrorCode, ProjectCreate, Promoted};
use serde::{Deserialize, Serialize};

use crate::chat_links::TranscriptMode;
use crate::project_ops::ProjectService;
use crate::projects::{Project, project_error};
use crate::state::ChatState;

/// What a move does, written before its first rename and removed after its last change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Journal {
    from_project: String,
    to_project: String,
    /// The projects' transcript folders.
    from_folder: PathBuf,
    to_folder: PathBuf,
    /// The chat named first, then those under it, parents before their children.
    session_ids: Vec<String>,
}

fn journal_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("state").join("promotions")
}

fn refused(code: ErrorCode, message: String) -> ErrorBody {
    ErrorBody::new(code, message)
}

/// A project as a sentence names it.
fn label(slug: &str) -> String {
    format!("project {}", crate::projects::label(slug))
}

/// `chat:promote`.
pub async fn promote(
    d: &ProjectService,
    user: &str,
    r: ChatPromote,
) -> Result<Promoted, ErrorBody> {
    let c = &d.chats;
    if c.cfg.transcripts == TranscriptMode::Host {
        return Err(refused(
            ErrorCode::InvalidArgument,
            "in host mode a chat's transcript is your own terminal claude history, kept by its directory, which a move would take from it; nothing was moved".to_owned(),
        ));
    }
    let sid = r.session_id;
    if uuid::Uuid::parse_str(&sid).is_err() {
        return Err(refused(
            ErrorCode::InvalidArgument,
            format!("{sid:?} is not a session id (a UUID); `paddock ls` lists them"),
        ));
    }
    let (from, _) = crate::chats::locate(c, &sid, &c.hub.running().await).await?;
    if from.slug == r.to_project {
        return Err(refused(
            ErrorCode::InvalidArgument,
            format!(
                "chat {sid} is in {} already; nothing was moved",
                label(&from.slug)
            ),
        ));
    }
    let target = c
        .projects
        .list()
        .map_err(project_error)?
        .into_iter()
        .find(|p| p.slug == r.to_project);
    for p in std::iter::once(&from).chain(target.as_ref()) {
        if let Some(problem) = p.shadow_problem() {
            return Err(refused(
                ErrorCode::InvalidArgument,
                format!("{problem}; nothing was moved"),
            ));
        }
    }
    let ids = crate::chats::subtree(c, user, &from.slug, &sid).await?;
    let Some(_held) = c.state.moving.hold(&ids) else {
        return Err(refused(
            ErrorCode::Busy,
            format!("chat {sid} (or one under it) is being moved already; nothing else was moved"),
        ));
    };
    movable(d, &ids).await?;
    let (to, created) = match target {
        Some(p) => (p, false),
        None => (create_target(d, &r.to_project).await?, true),
    };
    let journal = Journal {
        from_project: from.slug.clone(),
        to_project: to.slug.clone(),
        from_folder: c.state.folder_of(&from),
        to_folder: c.state.folder_of(&to),
        session_ids: ids.clone(),
    };
    run(&c.cfg.data_dir, &c.state, &journal).await?;
    c.state.moving.moved(&ids, &to);
    for slug in [&from.slug, &to.slug] {
        c.hub.chats_changed(slug, None).await;
        crate::git::refresh_overlaps(c, slug).await;
    }
    tracing::info!(from = %from.slug, to = %to.slug, chats = ?ids, "chats moved");
    Ok(Promoted {
        from_project: from.slug,
        to_project: to.slug,
        session_ids: ids,
        created_project: created,
    })
}

/// Refuses, changing nothing, when one of the chats cannot move now; otherwise stops their
/// idle `claude`s (their next turns start in the target's folder).
async fn movable(d: &ProjectService, ids: &[String]) -> Result<(), ErrorBody> {
    let c = &d.chats;
    let index = c.state.listed().await;
    let running = c.hub.running().await;
    // A chat under the one named is named as such.
    let which = |id: &str| match ids.first() {
        Some(first) if first != id => format!("chat {id}, under {first},"),
        _ => format!("chat {id}"),
    };
    for id in ids {
        if running.contains_key(id) {
            return Err(refused(
                ErrorCode::Busy,
                format!(
                    "{} is running a turn; move it once it is idle (`paddock tail {id}` follows it, `paddock approvals` lists what it waits for, `paddock cancel {id}` stops it); nothing was moved",
                    which(id)
                ),
            ));
        }
        if c.state.stores.worktrees.get(id).is_some() {
            return Err(refused(
                ErrorCode::InvalidArgument,
                format!(
                    "{} works in its own worktree of this project's repository; merge or discard it first (`paddock worktree merge {id}`, `paddock worktree discard {id}`); nothing was moved",
                    which(id)
                ),
            ));
        }
        if index.get(id).is_none() {
            return Err(refused(
                ErrorCode::InvalidArgument,
                format!(
                    "{} has a first message claude has not written yet; continue it (`paddock continue {id}`) or delete it, then move it; nothing was moved",
                    which(id)
                ),
            ));
        }
    }
    for id in ids {
        if !d.runner.release(id.clone()).await {
            return Err(refused(
                ErrorCode::Busy,
                format!(
                    "chat {id}'s claude still runs background tasks; move it once they end (`paddock tail {id}`); nothing was moved"
                ),
            ));
        }
    }
    // A turn that started before the chats were held.
    if let Some(id) = c.hub.running().await.keys().find(|s| ids.contains(s)) {
        return Err(refused(
            ErrorCode::Busy,
            format!("chat {id} started a turn; move it once it is idle; nothing was moved"),
        ));
    }
    Ok(())
}

/// Makes the project a move names when none has the slug, as `project:create` would.
async fn create_target(d: &ProjectService, slug: &str) -> Result<Project, ErrorBody> {
    crate::project_ops::create(
        d,
        ProjectCreate {
            slug: slug.to_owned(),
            path: None,
            repo: None,
            name: None,
            summary: None,
            area: None,
            status: None,
        },
    )
    .await
    .map_err(|mut e| {
        e.message = format!(
            "cannot make project {slug:?} to move the chat to: {}",
            e.message
        );
        e
    })?;
    d.chats
        .projects
        .list()
        .map_err(project_error)?
        .into_iter()
        .find(|p| p.slug == slug)
        .ok_or_else(|| {
            refused(
                ErrorCode::Internal,
                format!("project {slug} was made but is not listed; nothing was moved"),
            )
        })
}

/// Does a move: the journal, the renames, the stores, the index; then forgets the journal.
async fn run(data_dir: &Path, state: &ChatState, j: &Journal) -> Result<(), ErrorBody> {
    let internal = |what: &str, e: std::io::Error| {
        refused(
            ErrorCode::Internal,
            format!("cannot {what}: {e}; nothing was moved"),
        )
    };
    let dir = journal_dir(data_dir);
    let first = j.session_ids.first().cloned().unwrap_or_default();
    let path = dir.join(format!("{first}.json"));
    let bytes = serde_json::to_vec_pretty(j).map_err(std::io::Error::other);
    bytes
        .and_then(|b| {
            crate::fsutil::create_private_dir(&dir)?;
            crate::fsutil::write_atomic(&path, &b)
        })
        .map_err(|e| internal("write the move's journal", e))?;
    crate::failpoint::reached("promote.journal").await;
    let files = j.clone();
    let renamed = tokio::task::spawn_blocking(move || rename_all(&files))
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)));
    if let Err(e) = renamed {
        let back = j.clone();
        let undone = tokio::task::spawn_blocking(move || undo_all(&back))
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        return match undone {
            Ok(()) => {
                let _ = std::fs::remove_file(&path);
                Err(internal("move the transcripts", e))
            }
            // The journal stays: the next start tries again.
            Err(u) => Err(refused(
                ErrorCode::Internal,
                format!(
                    "cannot move the transcripts ({e}), nor put them back ({u}); paddockd finishes the move at its next start"
                ),
            )),
        };
    }
    crate::failpoint::reached("promote.renamed").await;
    finish(state, j).await.map_err(|e| {
        refused(
            ErrorCode::Internal,
            format!("{e}; paddockd finishes the move at its next start"),
        )
    })?;
    if let Err(e) = std::fs::remove_file(&path) {
        tracing::warn!(path = %path.display(), "cannot remove a finished move's journal: {e}");
    }
    Ok(())
}

/// What names a project, changed for the moved chats; then the index reads both folders.
async fn finish(state: &ChatState, j: &Journal) -> Result<(), String> {
    let (ids, to) = (&j.session_ids, &j.to_project);
    state
        .stores
        .moved(ids, to)
        .await
        .map_err(|e| format!("the moved chats' records: {e}"))?;
    state
        .runs
        .moved(ids, to)
        .await
        .map_err(|e| format!("the moved chats' runs: {e}"))?;
    for id in ids {
        state.agents.moved(id, to);
        let file = format!("{id}.jsonl");
        state.live_index().refresh(&j.from_folder.join(&file)).await;
        state.live_index().refresh(&j.to_folder.join(&file)).await;
    }
    Ok(())
}

/// Each chat's renames: its transcript, its subagent folder.
fn renames(j: &Journal) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for id in &j.session_ids {
        let file = format!("{id}.jsonl");
        out.push((j.from_folder.join(&file), j.to_folder.join(&file)));
        out.push((j.from_folder.join(id), j.to_folder.join(id)));
    }
    out
}

/// Renames `from` to `to` unless that is done already (or there is nothing to move). Never
/// over something: a target that is there while the source is too is an error.
fn rename_once(from: &Path, to: &Path) -> std::io::Result<()> {
    let exists = |p: &Path| p.symlink_metadata().is_ok();
    match (exists(from), exists(to)) {
        (false, _) => Ok(()),
        (true, true) => Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("{} is there already", to.display()),
        )),
        (true, false) => {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::rename(from, to)
        }
    }
}

fn rename_all(j: &Journal) -> std::io::Result<()> {
    for (n, (from, to)) in renames(j).iter().enumerate() {
        rename_once(from, to).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("{} → {}: {e}", from.display(), to.display()),
            )
        })?;
        if n == 0 {
            crate::failpoint::reached_blocking("promote.first_renamed");
        }
    }
    Ok(())
}

fn undo_all(j: &Journal) -> std::io::Result<()> {
    for (from, to) in renames(j).iter().rev() {
        rename_once(to, from)?;
    }
    Ok(())
}

/// At start, before any turn: finishes each move a killed daemon left half done.
pub async fn finish_left(data_dir: &Path, state: &ChatState) {
    let dir = journal_dir(data_dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let journal = match std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<Journal>(&b).map_err(|e| e.to_string()))
        {
            Ok(j) => j,
            Err(e) => {
                tracing::error!(path = %path.display(), "cannot read a move's journal ({e}); it is left there for a person to look at");
                continue;
            }
        };
        let files = journal.clone();
        let done = tokio::task::spawn_blocking(move || rename_all(&files))
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        if let Err(e) = done {
            tracing::error!(path = %path.display(), "cannot finish moving chats {:?} to {}: {e}; the journal is kept and tried again at the next start", journal.session_ids, label(&journal.to_project));
            continue;
        }
        match finish(state, &journal).await {
            Ok(()) => {
                let _ = std::fs::remove_file(&path);
                tracing::info!(chats = ?journal.session_ids, to = %journal.to_project, "finished a move a stopped daemon left half done");
            }
            Err(e) => {
                tracing::error!(path = %path.display(), "cannot finish a move's records ({e}); tried again at the next start")
            }
        }
    }
}
