//! Chat listings and transcripts, answered from the transcripts the CLI wrote.
//!
//! This first slice scans each project's transcripts folder on request; the persisted live
//! index replaces the scan when chats number in the thousands.

use std::collections::HashSet;

use paddock_proto::{ChatScope, ChatSummary, ErrorBody, ErrorCode, Origin, Transcript};

use crate::daemon::{Daemon, project_error};
use crate::projects::Project;
use crate::transcripts;

/// The chats of one project (`Some(slug)`, `""` being the root workspace) or of all.
pub async fn list(
    d: &Daemon,
    _user: &str,
    project_slug: Option<&str>,
    scope: ChatScope,
) -> Result<Vec<ChatSummary>, ErrorBody> {
    let projects = match project_slug {
        Some(slug) => vec![d.project(slug)?],
        None => d.projects.list().map_err(project_error)?,
    };
    let running = running_sessions(d).await;
    let claude_home = d.cfg.claude_home.clone();
    let chats = tokio::task::spawn_blocking(move || {
        projects
            .iter()
            .flat_map(|p| summaries(&claude_home, p, &running))
            .collect::<Vec<_>>()
    })
    .await
    .map_err(|e| ErrorBody::new(ErrorCode::Internal, format!("listing chats failed: {e}")))?;
    // Nothing is archived before the archive store exists, so `archived` lists nothing.
    Ok(match scope {
        ChatScope::All => chats,
        ChatScope::Active => chats.into_iter().filter(|c| !c.archived).collect(),
        ChatScope::Archived => chats.into_iter().filter(|c| c.archived).collect(),
    })
}

async fn running_sessions(d: &Daemon) -> HashSet<String> {
    d.hub
        .snapshot()
        .await
        .turns
        .into_iter()
        .filter(|t| t.running)
        .map(|t| t.session_id)
        .collect()
}

fn summaries(
    claude_home: &std::path::Path,
    project: &Project,
    running: &HashSet<String>,
) -> Vec<ChatSummary> {
    let dir = transcripts::project_transcripts_dir(claude_home, &project.agent_dir);
    transcripts::list_chats(&dir)
        .into_iter()
        .map(|m| summary(project, m, running))
        .collect()
}

fn summary(project: &Project, m: transcripts::ChatMeta, running: &HashSet<String>) -> ChatSummary {
    ChatSummary {
        running: running.contains(&m.session_id),
        session_id: m.session_id,
        project_slug: project.slug.clone(),
        title: m.title,
        origin: Origin::Human,
        depth: 0,
        parent_session_id: None,
        parent_project: None,
        created_at: m.created_at,
        updated_at: m.updated_at,
        model: m.model,
        message_count: m.message_count,
        unread: false,
        archived: false,
        starred: false,
        ..ChatSummary::default()
    }
}

/// The full rendering of one chat.
pub async fn transcript(
    d: &Daemon,
    _user: &str,
    session_id: &str,
) -> Result<Transcript, ErrorBody> {
    let not_found = || {
        ErrorBody::new(
            ErrorCode::NotFound,
            format!("no chat {session_id}; `paddock ls` lists the chats"),
        )
    };
    let path =
        transcripts::find_session_file(&d.cfg.claude_home, session_id).ok_or_else(not_found)?;
    let projects = d.projects.list().map_err(project_error)?;
    let folder = path.parent().map(std::path::Path::to_path_buf);
    let project = projects
        .into_iter()
        .find(|p| {
            Some(transcripts::project_transcripts_dir(
                &d.cfg.claude_home,
                &p.agent_dir,
            )) == folder
        })
        .ok_or_else(not_found)?;
    let running = running_sessions(d).await;
    let sid = session_id.to_owned();
    tokio::task::spawn_blocking(move || {
        let meta = transcripts::read_meta(&path).unwrap_or_default();
        let mtime = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        let entries = transcripts::render(&path).map_err(|e| {
            ErrorBody::new(
                ErrorCode::Internal,
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        let mut chat = summary(
            &project,
            transcripts::ChatMeta {
                session_id: sid,
                ..meta
            },
            &running,
        );
        chat.updated_at = mtime.map(|t| chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339());
        Ok(Transcript { chat, entries })
    })
    .await
    .map_err(|e| {
        ErrorBody::new(
            ErrorCode::Internal,
            format!("reading the transcript failed: {e}"),
        )
    })?
}

fn not_yet() -> ErrorBody {
    ErrorBody::new(ErrorCode::Internal, "this request is being built")
}

pub async fn update(
    _d: &Daemon,
    _user: &str,
    _u: paddock_proto::ChatUpdate,
) -> Result<paddock_proto::Updated, ErrorBody> {
    Err(not_yet())
}

pub async fn delete(_d: &Daemon, _ids: Vec<String>) -> Result<paddock_proto::Updated, ErrorBody> {
    Err(not_yet())
}

pub async fn fork(
    _d: &Daemon,
    _f: paddock_proto::ChatFork,
) -> Result<paddock_proto::Forked, ErrorBody> {
    Err(not_yet())
}

pub async fn import(
    _d: &Daemon,
    _i: paddock_proto::ChatImport,
) -> Result<paddock_proto::Imported, ErrorBody> {
    Err(not_yet())
}
