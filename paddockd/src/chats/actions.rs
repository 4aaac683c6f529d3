//! What a client or an agent does to chats: flags in batches (`chat:update`), delete, fork,
//! import of terminal sessions, and the queued follow-up.

use super::*;

/// Checks a batch of session ids: 1 to [`BATCH_SESSIONS_MAX`], each a UUID and a known chat.
/// All-or-nothing: the first bad id fails the whole request. Returns the distinct ids with
/// their projects.
async fn validate_batch(
    d: &ChatService,
    ids: &[String],
    running: &HashMap<String, String>,
) -> Result<Vec<(String, Project)>, ErrorBody> {
    if ids.is_empty() || ids.len() > BATCH_SESSIONS_MAX {
        return Err(ErrorBody::new(
            ErrorCode::InvalidArgument,
            format!(
                "name 1 to {BATCH_SESSIONS_MAX} chats per request (got {}); nothing was changed",
                ids.len()
            ),
        ));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for id in ids {
        if uuid::Uuid::parse_str(id).is_err() {
            return Err(ErrorBody::new(
                ErrorCode::InvalidArgument,
                format!("{id:?} is not a session id (a UUID); nothing was changed"),
            ));
        }
        if seen.insert(id.clone()) {
            let (project, _) = locate(d, id, running).await.map_err(|mut e| {
                e.message = format!("{}; nothing was changed", e.message);
                e
            })?;
            out.push((id.clone(), project));
        }
    }
    Ok(out)
}

/// Tells every client which projects' chat lists changed.
async fn announce(d: &ChatService, chats: &[(String, Project)]) {
    let mut by_project: HashMap<&str, Vec<&str>> = HashMap::new();
    for (sid, p) in chats {
        by_project.entry(&p.slug).or_default().push(sid);
    }
    for (slug, sids) in by_project {
        d.hub
            .chats_changed(slug, (sids.len() == 1).then(|| sids[0]))
            .await;
    }
}

fn store_error(e: impl std::fmt::Display) -> ErrorBody {
    ErrorBody::new(ErrorCode::Internal, e.to_string())
}

/// `chat:update`: archive, star, read... on one or many chats.
pub async fn update(d: &ChatService, user: &str, u: ChatUpdate) -> Result<Updated, ErrorBody> {
    let chats = validate_batch(d, &u.session_ids, &d.hub.running().await).await?;
    let ids: Vec<String> = chats.iter().map(|(s, _)| s.clone()).collect();
    let s = &d.state.stores;
    // The chats this archives (not those archived already): the `archived` hooks' events.
    let newly_archived: Vec<(String, String)> = match u.action {
        ChatAction::Archive => chats
            .iter()
            .filter(|(sid, _)| !s.archive.contains(sid))
            .map(|(sid, p)| (sid.clone(), p.slug.clone()))
            .collect(),
        _ => Vec::new(),
    };
    let changed = match u.action {
        ChatAction::Archive => s.archive.set(&ids, true).await,
        ChatAction::Unarchive => s.archive.set(&ids, false).await,
        ChatAction::Star => s.star.set(&ids, true).await,
        ChatAction::Unstar => s.star.set(&ids, false).await,
        ChatAction::Detach => s.parent_detach.set(&ids, true).await,
        ChatAction::Attach => s.parent_detach.set(&ids, false).await,
        ChatAction::Unread => s.unread.set(user, &ids, true).await,
        ChatAction::Read => s.mark_seen(user, &ids, now_ms()).await.map(|()| ids.len()),
    }
    .map_err(store_error)?;
    announce(d, &chats).await;
    d.triggers.archived(&newly_archived, None).await;
    Ok(Updated {
        changed: u32::try_from(changed).unwrap_or(u32::MAX),
        notes: Vec::new(),
    })
}

/// `chat:delete`: removes transcripts the daemon owns (an adopted chat's link, never the
/// user's own file) and forgets every flag of the chats.
pub async fn delete(d: &ChatService, ids: Vec<String>) -> Result<Updated, ErrorBody> {
    if d.cfg.transcripts == crate::chat_links::TranscriptMode::Host {
        return Err(ErrorBody::new(
            ErrorCode::InvalidArgument,
            "in host mode the transcripts are your own terminal claude history, which paddockd does not delete; archive the chats instead",
        ));
    }
    let running = d.hub.running().await;
    let chats = validate_batch(d, &ids, &running).await?;
    if let Some((sid, _)) = chats.iter().find(|(sid, _)| running.contains_key(sid)) {
        return Err(ErrorBody::new(
            ErrorCode::Busy,
            format!(
                "chat {sid} is running a turn; cancel it first (`paddock cancel {sid}`); nothing was deleted"
            ),
        ));
    }
    let index = d.state.listed().await;
    let paths: Vec<PathBuf> = chats
        .iter()
        .filter_map(|(sid, _)| index.get(sid).map(|c| c.path))
        .collect();
    let removed = tokio::task::spawn_blocking(move || {
        let mut n = 0u32;
        for path in paths {
            match remove_transcript(&path) {
                Ok(()) => n += 1,
                Err(e) => tracing::warn!(path = %path.display(), "cannot delete a transcript: {e}"),
            }
        }
        n
    })
    .await
    .unwrap_or(0);
    let ids: Vec<String> = chats.iter().map(|(s, _)| s.clone()).collect();
    d.state.stores.forget(&ids).await.map_err(store_error)?;
    d.state.streamed.forget(&ids);
    for (sid, _) in &chats {
        if let Some(c) = index.get(sid) {
            d.state.live_index().refresh(&c.path).await;
        }
    }
    announce(d, &chats).await;
    Ok(Updated {
        changed: removed,
        notes: Vec::new(),
    })
}

/// Removes a transcript file (a symlink is removed, never its target) and the chat's
/// subagent folder beside it.
fn remove_transcript(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let side = path.with_extension("");
    if side.is_dir() && !side.is_symlink() {
        std::fs::remove_dir_all(&side)?;
    }
    Ok(())
}

/// How much of its source's title an unnamed fork's title quotes.
const FORK_TITLE_CHARS: usize = 60;

/// `chat:fork`: copies a chat into a new one that records the source as its parent.
pub async fn fork(d: &ChatService, f: ChatFork) -> Result<Forked, ErrorBody> {
    fork_as(d, f, Origin::Human, 0).await
}

/// A fork made by `origin` (`spawned` when an agent forks with `fork_chat`), one level below the deeper of its source and `acting_depth` (the
/// depth of the turn that asked: a chat's tool forks at its turn's depth, `lineage.rs`).
pub async fn fork_as(
    d: &ChatService,
    f: ChatFork,
    origin: Origin,
    acting_depth: u32,
) -> Result<Forked, ErrorBody> {
    if uuid::Uuid::parse_str(&f.session_id).is_err() {
        return Err(ErrorBody::new(
            ErrorCode::InvalidArgument,
            format!("{:?} is not a session id (a UUID)", f.session_id),
        ));
    }
    let (project, indexed) = locate(d, &f.session_id, &d.hub.running().await).await?;
    let Some(source) = indexed else {
        return Err(ErrorBody::new(
            ErrorCode::Busy,
            "the chat has no transcript yet; fork it once its first turn has been written",
        ));
    };
    let new_id = uuid::Uuid::new_v4().to_string();
    let dest = source.path.with_file_name(format!("{new_id}.jsonl"));
    let source_prov = d.state.stores.run_provenance.get(&f.session_id);
    // Unnamed, it says what it is: the source's title would tell the two apart by id alone.
    let name = f
        .name
        .clone()
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| {
            let title = crate::state::chat_title(&source, source_prov.as_ref());
            let line = title.lines().next().unwrap_or_default();
            let shown = crate::index::display_title(line, &f.session_id);
            format!("fork of {}", crate::text::cut(&shown, FORK_TITLE_CHARS))
        });
    let (src, old, new) = (source.path.clone(), f.session_id.clone(), new_id.clone());
    let dest_for_copy = dest.clone();
    tokio::task::spawn_blocking(move || copy_as_fork(&src, &dest_for_copy, &old, &new, &name))
        .await
        .map_err(store_error)?
        .map_err(|e| {
            ErrorBody::new(
                ErrorCode::Internal,
                format!("cannot write the fork's transcript: {e}"),
            )
        })?;
    let depth = source_prov.map_or(0, |p| p.depth).max(acting_depth);
    let stamped = d
        .state
        .stores
        .run_provenance
        .stamp(
            &new_id,
            RunProvenance {
                origin,
                depth: depth + 1,
                parent_session_id: Some(f.session_id.clone()),
                parent_project: Some(project.slug.clone()),
                created_at: Some(chrono::Utc::now().to_rfc3339()),
                trigger: None,
                title: None,
                fork: true,
            },
        )
        .await;
    if let Err(e) = stamped {
        let _ = std::fs::remove_file(&dest);
        return Err(store_error(e));
    }
    d.state.live_index().refresh(&dest).await;
    announce(d, &[(new_id.clone(), project.clone())]).await;
    Ok(Forked {
        project_slug: project.slug,
        session_id: new_id,
    })
}

/// Writes `dest` as a copy of `src` whose records carry the new session id, then a
/// custom-title record naming the fork (it wins over a title the source was renamed to).
/// Lines that are not JSON are copied as they are.
fn copy_as_fork(src: &Path, dest: &Path, old: &str, new: &str, name: &str) -> std::io::Result<()> {
    use std::io::{BufRead, Write};
    use std::os::unix::fs::OpenOptionsExt;
    let input = std::io::BufReader::new(std::fs::File::open(src)?);
    let mut out = Vec::new();
    for line in input.split(b'\n') {
        let line = line?;
        if line.is_empty() {
            continue;
        }
        match serde_json::from_slice::<serde_json::Value>(&line) {
            Ok(mut v) => {
                if v.get("sessionId").and_then(serde_json::Value::as_str) == Some(old) {
                    v["sessionId"] = serde_json::Value::String(new.to_owned());
                }
                serde_json::to_writer(&mut out, &v).map_err(std::io::Error::other)?;
            }
            Err(_) => out.extend_from_slice(&line),
        }
        out.push(b'\n');
    }
    let rec = serde_json::json!({"type": "custom-title", "customTitle": name, "sessionId": new});
    serde_json::to_writer(&mut out, &rec).map_err(std::io::Error::other)?;
    out.push(b'\n');
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(dest)?;
    f.write_all(&out)?;
    f.sync_all()
}

/// `chat:import`: adopts a directory's terminal `claude` sessions into a project.
pub async fn import(d: &ChatService, user: &str, i: ChatImport) -> Result<Imported, ErrorBody> {
    let project = d.project(&i.project_slug).await?;
    if let Some(problem) = project.shadow_problem() {
        return Err(ErrorBody::new(ErrorCode::InvalidArgument, problem));
    }
    let dir = import_dir(&project, i.path.as_deref())?;
    let (found, mut skipped) = discover_sessions(d, &dir).await?;
    let adopted = if i.dry_run {
        found.iter().map(|a| a.session_id.clone()).collect()
    } else {
        adopt_found(d, user, &project, &found, &mut skipped).await?
    };
    Ok(Imported {
        project_slug: project.slug,
        path: dir.to_string_lossy().into_owned(),
        adopted,
        skipped,
        dry_run: i.dry_run,
    })
}

/// The directory to import from: the one named, else the project's; it must be a directory.
fn import_dir(project: &Project, path: Option<&str>) -> Result<PathBuf, ErrorBody> {
    let dir = match path {
        Some(p) => PathBuf::from(p),
        None => project.agent_dir.clone(),
    };
    if !dir.is_dir() {
        return Err(ErrorBody::new(
            ErrorCode::InvalidArgument,
            format!("{} is not a directory", dir.display()),
        ));
    }
    Ok(std::fs::canonicalize(&dir).unwrap_or(dir))
}

/// The directory's sessions paddockd can adopt, and those it skips with the reason's name.
async fn discover_sessions(
    d: &ChatService,
    dir: &Path,
) -> Result<(Vec<crate::adopt::Adoptable>, Vec<ImportSkip>), ErrorBody> {
    let provenance = d.state.stores.run_provenance.all();
    // Chats paddockd already knows (it started them, or adopted them before).
    let present: HashSet<String> = provenance.keys().cloned().collect();
    let host = d.cfg.host_claude_home.clone();
    let dir_for_scan = dir.to_path_buf();
    let (found, skipped) =
        tokio::task::spawn_blocking(move || crate::adopt::discover(&host, &dir_for_scan, &present))
            .await
            .map_err(store_error)?;
    let skipped = skipped
        .into_iter()
        .map(|(session_id, reason)| ImportSkip {
            session_id,
            reason: serde_json::to_value(reason)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
        })
        .collect();
    Ok((found, skipped))
}

/// Places the found sessions in the project's folder, stamps them adopted and read, and
/// announces them; returns the adopted ids.
async fn adopt_found(
    d: &ChatService,
    user: &str,
    project: &Project,
    found: &[crate::adopt::Adoptable],
    skipped: &mut Vec<ImportSkip>,
) -> Result<Vec<String>, ErrorBody> {
    let folder = d.state.folder_of(project);
    let (stamps, adopted) = place_found(found, &folder, skipped).await?;
    d.state
        .stores
        .run_provenance
        .stamp_many(stamps)
        .await
        .map_err(store_error)?;
    // Your own history is not news: adopted chats start out read.
    d.state
        .stores
        .mark_seen(user, &adopted, now_ms())
        .await
        .map_err(store_error)?;
    d.state.attach_project(&d.cfg, project).await;
    for sid in &adopted {
        d.state
            .live_index()
            .refresh(&folder.join(format!("{sid}.jsonl")))
            .await;
    }
    let chats: Vec<(String, Project)> = adopted
        .iter()
        .map(|s| (s.clone(), project.clone()))
        .collect();
    announce(d, &chats).await;
    Ok(adopted)
}

/// Links each found session into `folder`: the placed ones with their adopted stamp, and
/// their ids; one that cannot be placed is skipped as unreadable.
async fn place_found(
    found: &[crate::adopt::Adoptable],
    folder: &Path,
    skipped: &mut Vec<ImportSkip>,
) -> Result<(Vec<(String, RunProvenance)>, Vec<String>), ErrorBody> {
    let mut stamps = Vec::new();
    let mut adopted = Vec::new();
    for a in found {
        let placed = {
            let (a, folder) = (a.clone(), folder.to_path_buf());
            tokio::task::spawn_blocking(move || place_if_needed(&a, &folder)).await
        };
        match placed {
            Ok(Ok(())) => {
                stamps.push((a.session_id.clone(), adopted_stamp(a)));
                adopted.push(a.session_id.clone());
            }
            Ok(Err(e)) => {
                tracing::warn!(session = %a.session_id, "cannot adopt: {e}");
                skipped.push(ImportSkip {
                    session_id: a.session_id.clone(),
                    reason: "unreadable".into(),
                });
            }
            Err(e) => return Err(store_error(e)),
        }
    }
    Ok((stamps, adopted))
}

/// The run provenance of an adopted session: a root, created when its transcript was last
/// written.
fn adopted_stamp(a: &crate::adopt::Adoptable) -> RunProvenance {
    RunProvenance {
        origin: Origin::Adopted,
        depth: 0,
        parent_session_id: None,
        parent_project: None,
        created_at: Some(chrono::DateTime::<chrono::Utc>::from(a.mtime).to_rfc3339()),
        trigger: None,
        title: None,
        fork: false,
    }
}

/// Links an adoptable session into the project's folder, unless that folder already holds it
/// (host mode shares the user's folder).
fn place_if_needed(a: &crate::adopt::Adoptable, folder: &Path) -> std::io::Result<()> {
    let dest = folder.join(format!("{}.jsonl", a.session_id));
    if let (Ok(x), Ok(y)) = (
        std::fs::canonicalize(&dest),
        std::fs::canonicalize(&a.source),
    ) && x == y
    {
        return Ok(());
    }
    crate::adopt::place(a, folder)
}

/// `chat:set_queue`: sets (or clears) the follow-up sent when the chat's running turn ends.
pub async fn set_queue(d: &ChatService, q: paddock_proto::ChatSetQueue) -> Result<(), ErrorBody> {
    if uuid::Uuid::parse_str(&q.session_id).is_err() {
        return Err(ErrorBody::new(
            ErrorCode::InvalidArgument,
            format!("{:?} is not a session id (a UUID)", q.session_id),
        ));
    }
    let project = super::project_of(d, &q.session_id).await?;
    let message = q.message.filter(|m| !m.trim().is_empty());
    d.state
        .stores
        .queued
        .set(&q.session_id, message)
        .await
        .map_err(store_error)?;
    announce(d, &[(q.session_id.clone(), project)]).await;
    Ok(())
}

/// Archives one chat of `project` (or, `on` false, brings it back), for a tool: the store,
/// the news to every client, and for a chat newly archived its project's `archived` hooks
/// (`by`: the chat whose tool asked, when one did).
pub(crate) async fn archive_one(
    d: &ChatService,
    project: Project,
    sid: &str,
    on: bool,
    by: Option<&str>,
) -> Result<(), String> {
    let newly = on && !d.state.stores.archive.contains(sid);
    d.state
        .stores
        .archive
        .set(&[sid.to_owned()], on)
        .await
        .map_err(|e| e.to_string())?;
    let slug = project.slug.clone();
    d.hub.chats_changed(&project.slug, Some(sid)).await;
    if newly {
        d.triggers.archived(&[(sid.to_owned(), slug)], by).await;
    }
    Ok(())
}
