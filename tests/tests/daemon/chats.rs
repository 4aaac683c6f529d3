//! Issue 3 (chats) over the real socket: chat lists from the live index, flags and read state,
//! batch validation, the nested tree with provenance and attribution, fork, delete, history
//! and import. The fake `claude` writes transcripts like the real CLI; transcripts "written by
//! the user's terminal claude" are written here in the record shapes of
//! `tests/fixtures/claude-cli-2.1.332/transcripts/`.

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use paddock_proto::{
    Attribution, ChatAction, ChatEvent, ChatFork, ChatImport, ChatList, ChatScope, ChatSummary,
    ChatUpdate, ChatsChanged, ControlMessage, ErrorBody, ErrorCode, History, HistoryList, HubFrame,
    Imported, Origin, ProjectCreate, ProjectInfo, Reply, Request, RunStatus, ServerMessage,
    SessionIds, SessionRef, Transcript, TranscriptEntry,
};
use serde_json::{Value, json};

use crate::harness::*;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

// The harness's futures are large (a 64 KiB read buffer each, nested); in a debug build every
// `.await` of one in a long test body costs that much of the test thread's stack. These boxed
// forms keep the test bodies' frames small.

async fn req(c: &mut RawClient, request: Request) -> Result<Reply, ErrorBody> {
    Box::pin(c.request(request)).await
}

async fn next_msg(c: &mut RawClient) -> ServerMessage {
    Box::pin(c.next()).await
}

async fn client(d: &TestDaemon) -> RawClient {
    Box::pin(d.client()).await
}

async fn create_project(c: &mut RawClient, slug: &str, path: Option<&Path>) -> ProjectInfo {
    let reply = req(
        c,
        Request::ProjectCreate(ProjectCreate {
            slug: slug.into(),
            path: path.map(|p| p.to_string_lossy().into_owned()),
            ..Default::default()
        }),
    )
    .await
    .expect("project created");
    match reply {
        Reply::Project(p) => p,
        other => panic!("expected project, got {other:?}"),
    }
}

async fn list(c: &mut RawClient, project: &str, scope: ChatScope) -> Vec<ChatSummary> {
    let reply = req(
        c,
        Request::ChatList(ChatList {
            project_slug: Some(project.into()),
            scope,
            since: None,
            full_titles: false,
        }),
    )
    .await
    .expect("chat:list");
    match reply {
        Reply::Chats(chats) => chats.chats,
        other => panic!("expected chats, got {other:?}"),
    }
}

fn find<'a>(rows: &'a [ChatSummary], sid: &str) -> &'a ChatSummary {
    rows.iter()
        .find(|r| r.session_id == sid)
        .unwrap_or_else(|| panic!("{sid} is not listed: {rows:#?}"))
}

fn listed(rows: &[ChatSummary], sid: &str) -> bool {
    rows.iter().any(|r| r.session_id == sid)
}

/// One chat's row, whatever its flags.
async fn row(c: &mut RawClient, project: &str, sid: &str) -> ChatSummary {
    find(&list(c, project, ChatScope::All).await, sid).clone()
}

async fn transcript(c: &mut RawClient, sid: &str) -> Result<Transcript, ErrorBody> {
    req(
        c,
        Request::ChatTranscript(SessionRef {
            session_id: sid.into(),
        }),
    )
    .await
    .map(|reply| match reply {
        Reply::Transcript(t) => *t,
        other => panic!("expected transcript, got {other:?}"),
    })
}

async fn update(c: &mut RawClient, ids: &[&str], action: ChatAction) -> Result<u32, ErrorBody> {
    req(
        c,
        Request::ChatUpdate(ChatUpdate {
            session_ids: ids.iter().map(|s| (*s).to_owned()).collect(),
            action,
        }),
    )
    .await
    .map(|reply| match reply {
        Reply::Updated(u) => u.changed,
        other => panic!("expected updated, got {other:?}"),
    })
}

async fn delete(c: &mut RawClient, ids: &[&str]) -> Result<u32, ErrorBody> {
    req(
        c,
        Request::ChatDelete(SessionIds {
            session_ids: ids.iter().map(|s| (*s).to_owned()).collect(),
        }),
    )
    .await
    .map(|reply| match reply {
        Reply::Updated(u) => u.changed,
        other => panic!("expected updated, got {other:?}"),
    })
}

async fn history(c: &mut RawClient, list: HistoryList) -> History {
    match req(c, Request::HistoryList(list)).await.expect("history") {
        Reply::History(h) => h,
        other => panic!("expected history, got {other:?}"),
    }
}

async fn import(c: &mut RawClient, project: &str, dry_run: bool) -> Imported {
    let reply = req(
        c,
        Request::ChatImport(ChatImport {
            project_slug: project.into(),
            path: None,
            dry_run,
        }),
    )
    .await
    .expect("chat:import");
    match reply {
        Reply::Imported(i) => i,
        other => panic!("expected imported, got {other:?}"),
    }
}

/// Sends a turn and waits for its `chat:complete`, then for the chat to be listed as it is
/// now; returns the session id and the frames.
async fn turn(
    c: &mut RawClient,
    project: &str,
    session: Option<&str>,
    message: &str,
) -> (String, Vec<HubFrame>) {
    let sent = Box::pin(c.send_turn(project, session, message)).await;
    let frames = Box::pin(c.frames_until_complete(&sent.session_id)).await;
    assert!(complete_of(&frames).success, "turn failed: {frames:#?}");
    settle_after_turn(c, project, &sent.session_id).await;
    (sent.session_id, frames)
}

/// The message id the daemon gave a turn's user message (its transcript uuid).
fn user_message_id(frames: &[HubFrame]) -> String {
    frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::User(u) => u.message_id.clone(),
            _ => None,
        })
        .expect("chat:user with a message id")
}

/// Starts a turn that runs until cancelled, and waits until it is visibly under way.
async fn start_hanging_turn(c: &mut RawClient, project: &str) -> String {
    let script = r#"fake:[{"text":"working","chunks":1},{"hang":true}]"#;
    let sent = Box::pin(c.send_turn(project, None, script)).await;
    // Messages that are not ours are kept for later reads, in order.
    let mut kept = Vec::new();
    loop {
        match next_msg(c).await {
            ServerMessage::Frame(f)
                if f.routing.session_id == sent.session_id
                    && matches!(f.event, ChatEvent::Response(_)) =>
            {
                break;
            }
            other => kept.push(other),
        }
    }
    kept.extend(c.pending.drain(..));
    c.pending = kept.into();
    sent.session_id
}

async fn cancel(c: &mut RawClient, project: &str, sid: &str) {
    let reply = req(
        c,
        Request::ChatCancel(paddock_proto::ChatCancel {
            session_id: sid.into(),
            job_id: None,
        }),
    )
    .await
    .expect("chat:cancel");
    assert_eq!(
        reply,
        Reply::Cancelled(paddock_proto::Cancelled { was_running: true })
    );
    let frames = Box::pin(c.frames_until_complete(sid)).await;
    assert!(!complete_of(&frames).success);
    settle_after_turn(c, project, sid).await;
}

/// The next `chats:changed` for `project` (others are dropped), within the deadline.
async fn next_changed(c: &mut RawClient, project: &str) -> ChatsChanged {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match Box::pin(c.try_next(left)).await {
            Some(ServerMessage::Control(ControlMessage::ChatsChanged(ch)))
                if ch.project_slug == project =>
            {
                return ch;
            }
            Some(_) => {}
            None => panic!("no chats:changed for project {project:?} before the deadline"),
        }
    }
}

/// Waits for the `chats:changed` that names `sid` in `project`.
async fn changed_for(c: &mut RawClient, project: &str, sid: &str) {
    loop {
        if next_changed(c, project).await.session_id.as_deref() == Some(sid) {
            return;
        }
    }
}

/// Waits for a chat to stop running (by then its transcript is indexed) and for
/// the `chats:changed` the end of the turn sends, so later events are about later changes.
async fn settle_after_turn(c: &mut RawClient, project: &str, sid: &str) {
    loop {
        if let ServerMessage::Control(ControlMessage::Active(a)) = next_msg(c).await
            && a.session_id == sid
            && !a.running
        {
            break;
        }
    }
    changed_for(c, project, sid).await;
}

/// Re-lists `project` after every `chats:changed` for it until `done` holds: event-driven,
/// bounded by the deadline of [`next_changed`].
async fn list_until(
    c: &mut RawClient,
    project: &str,
    what: &str,
    done: impl Fn(&[ChatSummary]) -> bool,
) -> Vec<ChatSummary> {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let rows = list(c, project, ChatScope::All).await;
        if done(&rows) {
            return rows;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {rows:#?}"
        );
        next_changed(c, project).await;
    }
}

/// `<claude_home>/projects/<encoded agent dir>`: where claude writes the project's
/// transcripts, computed independently of the daemon.
fn transcripts_link(d: &TestDaemon, agent_dir: &str) -> PathBuf {
    d.cfg
        .claude_home
        .join("projects")
        .join(paddock_tests::cwd_encoding::encode_cwd(agent_dir))
}

fn meta_dir(d: &TestDaemon, slug: &str) -> PathBuf {
    d.cfg.data_dir.join("projects").join(slug)
}

fn state_file(data: &Path, name: &str) -> PathBuf {
    data.join("state").join(name)
}

fn read_json(path: &Path) -> Value {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).expect("a store file is JSON"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    }
}

fn write_json(path: &Path, v: &Value) {
    std::fs::write(path, serde_json::to_vec_pretty(v).unwrap()).unwrap();
}

fn ts(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// A session as terminal `claude` writes it (the record shapes of the 2.1.332 fixtures): the
/// queue operations, the prompt, the assistant's answer with its usage, the last-prompt marker.
fn terminal_transcript(
    sid: &str,
    cwd: &str,
    prompt: &str,
    answer: &str,
    at: chrono::DateTime<chrono::Utc>,
) -> String {
    let user_uuid = uuid::Uuid::new_v4().to_string();
    let answer_uuid = uuid::Uuid::new_v4().to_string();
    let t0 = ts(at);
    let t1 = ts(at + chrono::Duration::milliseconds(400));
    let t2 = ts(at + chrono::Duration::milliseconds(2100));
    let common = |mut v: Value| {
        let extra = json!({"userType": "external", "entrypoint": "cli", "cwd": cwd,
            "sessionId": sid, "version": "2.1.332", "gitBranch": "HEAD"});
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        v
    };
    let records = [
        json!({"type": "queue-operation", "operation": "enqueue", "timestamp": t0,
            "sessionId": sid, "content": prompt}),
        json!({"type": "queue-operation", "operation": "dequeue", "timestamp": t0,
            "sessionId": sid}),
        common(json!({"parentUuid": null, "isSidechain": false,
            "promptId": uuid::Uuid::new_v4().to_string(), "type": "user",
            "message": {"role": "user", "content": prompt}, "uuid": user_uuid, "timestamp": t1,
            "permissionMode": "default", "promptSource": "cli", "turnOrigin": "cli"})),
        common(json!({"parentUuid": user_uuid, "isSidechain": false,
            "message": {"id": format!("msg_{}", &answer_uuid[..8]), "type": "message",
                "role": "assistant", "model": "claude-opus-5-5",
                "content": [{"type": "text", "text": answer}], "stop_reason": "end_turn",
                "stop_sequence": null,
                "usage": {"input_tokens": 2581, "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0, "output_tokens": 10,
                    "service_tier": "standard"}},
            "apiBlockIndex": 0, "requestId": format!("req_{}", &answer_uuid[..8]),
            "requestedModel": "claude-opus-5-5", "type": "assistant", "uuid": answer_uuid,
            "timestamp": t2, "madeBy": "model"})),
        json!({"type": "last-prompt", "lastPrompt": prompt, "leafUuid": answer_uuid,
            "sessionId": sid}),
    ];
    records.iter().map(|r| format!("{r}\n")).collect()
}

fn custom_title_record(sid: &str, title: &str) -> String {
    format!(
        "{}\n",
        json!({"type": "custom-title", "customTitle": title, "sessionId": sid})
    )
}

fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn user_attributions(t: &Transcript) -> Vec<(String, Option<Attribution>)> {
    t.entries
        .iter()
        .filter_map(|e| match e {
            TranscriptEntry::User {
                text, attribution, ..
            } => Some((text.clone(), attribution.clone())),
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// 1. A new chat is listed from the index, renders, and lives behind the project's link
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_new_chat_is_listed_with_its_derived_fields_and_renders() {
    let d = TestDaemon::start().await;
    let mut c = client(&d).await;
    let project = create_project(&mut c, "alpha", None).await;
    let prompt = (1..=8)
        .map(|i| {
            format!(
                "Line {i} of a long prompt: find out why the login test fails one run in five, \
                 and keep every detail of this line."
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(prompt.chars().count() > 300);
    let (sid, frames) = turn(&mut c, "alpha", None, &prompt).await;
    assert_eq!(text_of(&frames), format!("echo: {prompt}"));

    let rows = list(&mut c, "alpha", ChatScope::Active).await;
    assert_eq!(rows.len(), 1, "{rows:#?}");
    let r = &rows[0];
    assert_eq!(r.session_id, sid);
    assert_eq!(r.project_slug, "alpha");
    // A row carries the first 200 characters of a long title; asked for, the whole of it.
    let cut: String = prompt.chars().take(paddock_proto::TITLE_CHARS).collect();
    assert_eq!(
        r.title,
        format!("{cut}…"),
        "the title cut at 200 characters"
    );
    let whole = req(
        &mut c,
        Request::ChatList(ChatList {
            project_slug: Some("alpha".into()),
            scope: ChatScope::Active,
            since: None,
            full_titles: true,
        }),
    )
    .await
    .expect("chat:list");
    let Reply::Chats(whole) = whole else {
        panic!("expected chats, got {whole:?}");
    };
    assert_eq!(
        whole.chats[0].title, prompt,
        "with fullTitles, the untruncated first prompt"
    );
    assert_eq!(r.origin, Origin::Human);
    assert_eq!(r.depth, 0);
    assert_eq!(r.parent_session_id, None);
    assert_eq!(r.message_count, 2, "one prompt and one assistant message");
    assert_eq!(
        r.model.as_deref(),
        Some(paddock_tests::fake_claude::DEFAULT_MODEL)
    );
    assert!(!r.running);
    assert!(r.unread, "the user has not seen the answer yet");
    assert!(!r.archived && !r.starred && !r.detached);
    assert_eq!((r.level, r.tree_parent.as_deref()), (0, None));
    assert!(r.created_at.is_some() && r.updated_at.is_some());
    let usage = r.usage.as_ref().expect("usage from the transcript");
    assert!(usage.context_tokens > 0, "{usage:?}");
    assert_eq!(usage.context_limit, 200_000);
    assert!(
        usage.input_tokens > 0 && usage.output_tokens > 0,
        "{usage:?}"
    );
    assert!(usage.cost_usd > 0.0, "{usage:?}");
    // Listing every project shows it too; another project does not.
    let Reply::Chats(everything) = req(
        &mut c,
        Request::ChatList(ChatList {
            project_slug: None,
            scope: ChatScope::Active,
            since: None,
            full_titles: false,
        }),
    )
    .await
    .unwrap() else {
        panic!()
    };
    assert!(listed(&everything.chats, &sid));
    assert!(!listed(&list(&mut c, "", ChatScope::All).await, &sid));

    let t = transcript(&mut c, &sid).await.unwrap();
    assert_eq!(t.chat.session_id, sid);
    assert_eq!(t.chat.title, prompt);
    match t.entries.as_slice() {
        [
            TranscriptEntry::User {
                text: user,
                attribution: None,
                ..
            },
            TranscriptEntry::Assistant {
                text: answer,
                model,
                ..
            },
        ] => {
            assert_eq!(user, &prompt);
            assert_eq!(answer, &format!("echo: {prompt}"));
            assert_eq!(
                model.as_deref(),
                Some(paddock_tests::fake_claude::DEFAULT_MODEL)
            );
        }
        other => panic!("unexpected entries: {other:#?}"),
    }
    let missing = transcript(&mut c, &uuid::Uuid::new_v4().to_string())
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);

    // claude wrote through `<claude_home>/projects/<encoded agent dir>`, a link to the
    // project's own `.chats` folder (transcripts = own).
    let link = transcripts_link(&d, &project.path);
    let chats = meta_dir(&d, "alpha").join(".chats");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "{} is a symlink",
        link.display()
    );
    assert_eq!(
        std::fs::canonicalize(&link).unwrap(),
        std::fs::canonicalize(&chats).unwrap()
    );
    let chats_meta = std::fs::symlink_metadata(&chats).unwrap();
    assert!(chats_meta.is_dir(), ".chats is a real folder");
    assert!(chats.join(format!("{sid}.jsonl")).is_file());
    d.stop().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// 2. Flags, scopes, read state, and chats:changed to every client
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn flags_scopes_and_read_state_are_announced_to_every_client() {
    let d = TestDaemon::start().await;
    let mut a = client(&d).await;
    let mut b = client(&d).await;
    create_project(&mut a, "flags", None).await;
    let (sid, _) = turn(&mut a, "flags", None, "flag me").await;
    settle_after_turn(&mut b, "flags", &sid).await;

    // Each action: how many chats changed, then B hears about it, then the list shows it.
    let steps: [(ChatAction, u32); 12] = [
        (ChatAction::Archive, 1),
        (ChatAction::Archive, 0),
        (ChatAction::Unarchive, 1),
        (ChatAction::Unarchive, 0),
        (ChatAction::Star, 1),
        (ChatAction::Star, 0),
        (ChatAction::Unstar, 1),
        (ChatAction::Detach, 1),
        (ChatAction::Detach, 0),
        (ChatAction::Attach, 1),
        (ChatAction::Attach, 0),
        (ChatAction::Archive, 1),
    ];
    for (action, want) in steps {
        let changed = update(&mut a, &[&sid], action).await.unwrap();
        assert_eq!(changed, want, "{action:?}");
        changed_for(&mut b, "flags", &sid).await;
        let r = row(&mut a, "flags", &sid).await;
        match action {
            ChatAction::Archive => assert!(r.archived),
            ChatAction::Unarchive => assert!(!r.archived),
            ChatAction::Star => assert!(r.starred),
            ChatAction::Unstar => assert!(!r.starred),
            ChatAction::Detach => assert!(r.detached),
            ChatAction::Attach => assert!(!r.detached),
            _ => unreachable!(),
        }
        // Scopes: active hides archived chats, archived shows only them, all shows both.
        let active = list(&mut a, "flags", ChatScope::Active).await;
        let archived = list(&mut a, "flags", ChatScope::Archived).await;
        let all = list(&mut a, "flags", ChatScope::All).await;
        assert_eq!(listed(&active, &sid), !r.archived, "{action:?}");
        assert_eq!(listed(&archived, &sid), r.archived, "{action:?}");
        assert!(listed(&all, &sid));
    }
    assert_eq!(update(&mut a, &[&sid], ChatAction::Unarchive).await, Ok(1));
    changed_for(&mut b, "flags", &sid).await;

    // Read state: the answer is unread; read clears it; unread flags it again (and again is a
    // no-op); read clears the manual flag; another turn makes it unread again.
    assert!(row(&mut a, "flags", &sid).await.unread);
    assert_eq!(update(&mut a, &[&sid], ChatAction::Read).await, Ok(1));
    changed_for(&mut b, "flags", &sid).await;
    assert!(!row(&mut a, "flags", &sid).await.unread);
    assert_eq!(update(&mut a, &[&sid], ChatAction::Unread).await, Ok(1));
    changed_for(&mut b, "flags", &sid).await;
    assert!(row(&mut a, "flags", &sid).await.unread);
    assert_eq!(update(&mut a, &[&sid], ChatAction::Unread).await, Ok(0));
    changed_for(&mut b, "flags", &sid).await;
    assert_eq!(update(&mut a, &[&sid], ChatAction::Read).await, Ok(1));
    changed_for(&mut b, "flags", &sid).await;
    assert!(!row(&mut a, "flags", &sid).await.unread);
    // Streamed with pauses, so the new records are clearly later than the read.
    turn(
        &mut a,
        "flags",
        Some(&sid),
        &slow_text("more to read", 3, 10),
    )
    .await;
    assert!(row(&mut a, "flags", &sid).await.unread, "a new answer");
    settle_after_turn(&mut b, "flags", &sid).await;

    // One request over two projects: each project hears about its own chat.
    let (root_sid, _) = turn(&mut a, "", None, "a root workspace chat").await;
    settle_after_turn(&mut b, "", &root_sid).await;
    assert_eq!(
        update(&mut a, &[&sid, &root_sid], ChatAction::Star).await,
        Ok(2)
    );
    let mut heard = BTreeSet::new();
    while heard.len() < 2 {
        if let ServerMessage::Control(ControlMessage::ChatsChanged(ch)) = next_msg(&mut b).await {
            heard.insert((ch.project_slug, ch.session_id));
        }
    }
    assert_eq!(
        heard,
        BTreeSet::from([
            ("".to_owned(), Some(root_sid.clone())),
            ("flags".to_owned(), Some(sid.clone())),
        ])
    );
    assert!(row(&mut a, "", &root_sid).await.starred);
    assert!(row(&mut a, "flags", &sid).await.starred);
    d.stop().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// 3. Batch validation is all-or-nothing
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn batch_updates_are_validated_all_or_nothing() {
    let d = TestDaemon::start().await;
    let mut c = client(&d).await;
    let (sid, _) = turn(&mut c, "", None, "batch target").await;
    let unknown = || uuid::Uuid::new_v4().to_string();
    let archived = |rows: &[ChatSummary]| find(rows, &sid).archived;

    let too_many: Vec<String> = std::iter::once(sid.clone())
        .chain((0..500).map(|_| unknown()))
        .collect();
    let refs: Vec<&str> = too_many.iter().map(String::as_str).collect();
    assert_eq!(refs.len(), 501);
    let err = update(&mut c, &refs, ChatAction::Archive)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");
    // 500 is within the limit: this one fails on the unknown ids instead.
    let err = update(&mut c, &refs[..500], ChatAction::Archive)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err:?}");

    let err = update(&mut c, &[], ChatAction::Archive).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");

    let err = update(&mut c, &[&sid, "not-a-uuid"], ChatAction::Archive)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");
    assert!(err.message.contains("not-a-uuid"), "{}", err.message);

    let other = unknown();
    let err = update(&mut c, &[&sid, &other], ChatAction::Archive)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err:?}");
    let err = update(&mut c, &[&other, &sid], ChatAction::Star)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err:?}");

    let rows = list(&mut c, "", ChatScope::All).await;
    assert!(!archived(&rows), "a failed batch changed nothing");
    assert!(!find(&rows, &sid).starred, "a failed batch changed nothing");
    let state = d.cfg.data_dir.join("state");
    for file in ["archive-state.json", "star-state.json"] {
        let text = std::fs::read_to_string(state.join(file)).unwrap_or_default();
        assert!(!text.contains(&sid), "{file}: {text}");
    }

    // Duplicates are fine and count once.
    assert_eq!(
        update(&mut c, &[&sid, &sid], ChatAction::Archive).await,
        Ok(1)
    );
    assert!(archived(&list(&mut c, "", ChatScope::All).await));
    d.stop().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// 4. The live index follows transcripts written by the user's terminal claude
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn the_live_index_follows_a_transcript_written_outside_the_daemon() {
    let d = TestDaemon::start().await;
    let mut c = client(&d).await;
    let project = create_project(&mut c, "live", None).await;
    // The creation's own announcement, so the next one is the index's.
    next_changed(&mut c, "live").await;
    assert!(list(&mut c, "live", ChatScope::All).await.is_empty());

    let folder = transcripts_link(&d, &project.path);
    let sid = uuid::Uuid::new_v4().to_string();
    let path = folder.join(format!("{sid}.jsonl"));
    let at = chrono::Utc::now() - chrono::Duration::minutes(5);
    std::fs::write(
        &path,
        terminal_transcript(
            &sid,
            &project.path,
            "Why is the build slow?\nIt got worse last week.",
            "Let me look at the build log.",
            at,
        ),
    )
    .unwrap();
    let changed = next_changed(&mut c, "live").await;
    assert_eq!(changed.project_slug, "live");
    let rows = list_until(&mut c, "live", "the terminal chat to be listed", |rows| {
        listed(rows, &sid)
    })
    .await;
    let r = find(&rows, &sid);
    assert_eq!(r.title, "Why is the build slow?\nIt got worse last week.");
    assert_eq!(r.message_count, 2);
    assert_eq!(r.model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!((r.origin, r.depth), (Origin::Human, 0));
    assert!(r.unread);
    assert_eq!(r.usage.as_ref().map(|u| u.context_tokens), Some(2581));

    // A rename in the terminal (`/rename`) lands as a custom-title record.
    append(
        &path,
        &custom_title_record(&sid, "Slow build investigation"),
    );
    list_until(&mut c, "live", "the custom title", |rows| {
        rows.iter()
            .any(|r| r.session_id == sid && r.title == "Slow build investigation")
    })
    .await;

    // claude is mid-write: half a record, no newline. Nothing breaks, the chat stays listed.
    let next_prompt = json!({"parentUuid": null, "isSidechain": false, "type": "user",
        "message": {"role": "user", "content": "and the tests too?"},
        "uuid": uuid::Uuid::new_v4().to_string(), "timestamp": ts(chrono::Utc::now()),
        "userType": "external", "entrypoint": "cli", "cwd": project.path, "sessionId": sid})
    .to_string();
    let (head, tail) = next_prompt.split_at(next_prompt.len() / 2);
    append(&path, head);
    let rows = list(&mut c, "live", ChatScope::All).await;
    let r = find(&rows, &sid);
    assert_eq!(r.title, "Slow build investigation");
    assert_eq!(r.message_count, 2, "half a line is not a record");
    let t = transcript(&mut c, &sid).await.unwrap();
    assert_eq!(user_attributions(&t).len(), 1);
    // The rest of the line arrives: the record is read whole, from where the index stopped.
    append(&path, &format!("{tail}\n"));
    let rows = list_until(&mut c, "live", "the completed record", |rows| {
        rows.iter()
            .any(|r| r.session_id == sid && r.message_count == 3)
    })
    .await;
    assert_eq!(find(&rows, &sid).title, "Slow build investigation");
    let t = transcript(&mut c, &sid).await.unwrap();
    let users: Vec<String> = user_attributions(&t).into_iter().map(|u| u.0).collect();
    assert_eq!(
        users,
        [
            "Why is the build slow?\nIt got worse last week.",
            "and the tests too?"
        ]
    );
    d.stop().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// 5. Attribution of injected turns, inferred parents, the report-back trap, detach
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn injected_turns_are_attributed_and_chats_nest_by_provenance() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().to_path_buf();

    // First run: the chats, as a person would have typed them.
    let d = TestDaemon::start_with(on_data_dir(&data)).await;
    let mut c = client(&d).await;
    let (manager, _) = turn(&mut c, "", None, "Manager: fix the flaky login test").await;
    let (child, _) = turn(
        &mut c,
        "",
        None,
        "Child kickoff: investigate the cookie refresh race",
    )
    .await;
    let (spawned, _) = turn(&mut c, "", None, "Spawned kickoff: check the CI logs").await;
    let (recorded, _) = turn(&mut c, "", None, "A chat with a recorded parent").await;
    let report = "Report from the child: the race is in the cookie refresh";
    turn(&mut c, "", Some(&manager), report).await;
    let scheduled_text = "Summarise last night's backup log and flag anything unusual.";
    let hook_text = "CI failed on main: job `e2e` (run 4812). Look at the log.";
    let recovery_text = "The background task you were waiting on was terminated. Continue.";
    let sent_text = "Please also check the session cookie expiry.";
    let twice = "Same words twice";
    let (chat, _) = turn(&mut c, "", None, scheduled_text).await;
    let mut twice_id = String::new();
    for text in [
        "Summarise last night's backup log, please.",
        sent_text,
        hook_text,
        recovery_text,
        twice,
        twice,
    ] {
        let (_, frames) = turn(&mut c, "", Some(&chat), text).await;
        twice_id = user_message_id(&frames);
    }
    drop(c);
    d.stop().await.unwrap();

    // Seed what issue 5's injections would have recorded.
    let at = "2026-11-29T10:00:00Z";
    let sent_by = |sid: &str, title: &str| json!({"kind": "sent", "fromSessionId": sid, "fromProject": "", "fromTitle": title});
    let injections = json!({
        chat.clone(): [
            {"text": scheduled_text, "source": {"kind": "scheduled", "name": "nightly-backup"},
             "at": at},
            {"text": sent_text, "source": sent_by(&manager, "Manager"), "at": at},
            {"text": hook_text, "source": {"kind": "hook", "name": "ci-failure"}, "at": at},
            {"text": recovery_text, "source": {"kind": "recovery"}, "at": at},
            // Recorded with the message id: only that row, not the typed one with the same
            // words.
            {"text": twice, "source": {"kind": "hook", "name": "twice"}, "at": at,
             "messageId": twice_id},
        ],
        child.clone(): [
            {"text": "Child kickoff: investigate the cookie refresh race",
             "source": sent_by(&manager, "Manager"), "at": at},
        ],
        spawned.clone(): [
            {"text": "Spawned kickoff: check the CI logs",
             "source": sent_by(&manager, "Manager"), "at": at},
        ],
        // The report-back: the manager received a turn from its own child.
        manager.clone(): [
            {"text": report, "source": sent_by(&child, "Child"), "at": at},
        ],
    });
    write_json(&state_file(&data, "message-provenance.json"), &injections);
    let prov_path = state_file(&data, "run-provenance.json");
    let mut prov = read_json(&prov_path);
    for sid in [&manager, &child, &spawned, &recorded, &chat] {
        assert_eq!(
            prov[sid.as_str()]["origin"],
            "human",
            "stamped at creation: {prov}"
        );
        assert_eq!(prov[sid.as_str()]["depth"], 0);
    }
    let map = prov.as_object_mut().unwrap();
    // A chat from before edges were recorded: no provenance at all.
    map.remove(&child);
    // A spawned chat whose edge was never recorded.
    map.insert(spawned.clone(), json!({"origin": "spawned", "depth": 1}));
    // A chat with a recorded edge.
    map.insert(
        recorded.clone(),
        json!({"origin": "spawned", "depth": 1, "parentSessionId": manager, "parentProject": ""}),
    );
    write_json(&prov_path, &prov);

    // Second run on the same data.
    let d = TestDaemon::start_with(on_data_dir(&data)).await;
    let mut c = client(&d).await;

    let t = transcript(&mut c, &chat).await.unwrap();
    let got = user_attributions(&t);
    let want: Vec<(String, Option<Attribution>)> = vec![
        (
            scheduled_text.into(),
            Some(Attribution::Scheduled {
                name: "nightly-backup".into(),
            }),
        ),
        ("Summarise last night's backup log, please.".into(), None),
        (
            sent_text.into(),
            Some(Attribution::Sent {
                from_session_id: manager.clone(),
                from_project: String::new(),
                from_title: Some("Manager".into()),
            }),
        ),
        (
            hook_text.into(),
            Some(Attribution::Hook {
                name: "ci-failure".into(),
            }),
        ),
        (recovery_text.into(), Some(Attribution::Recovery)),
        (twice.into(), None),
        (
            twice.into(),
            Some(Attribution::Hook {
                name: "twice".into(),
            }),
        ),
    ];
    assert_eq!(got, want);
    let t = transcript(&mut c, &manager).await.unwrap();
    assert_eq!(
        user_attributions(&t),
        vec![
            ("Manager: fix the flaky login test".into(), None),
            (
                report.into(),
                Some(Attribution::Sent {
                    from_session_id: child.clone(),
                    from_project: String::new(),
                    from_title: Some("Child".into()),
                })
            ),
        ]
    );
    let t = transcript(&mut c, &child).await.unwrap();
    assert!(matches!(
        user_attributions(&t).as_slice(),
        [(_, Some(Attribution::Sent { from_session_id, .. }))] if *from_session_id == manager
    ));
    assert_eq!(t.chat.tree_parent.as_deref(), Some(manager.as_str()));

    // The tree: the child and the spawned chat hang under the manager by inference, the
    // recorded one by its edge; the manager, a human root, is not re-parented under the
    // child that reported back to it.
    let rows = list(&mut c, "", ChatScope::Active).await;
    let m = find(&rows, &manager);
    assert_eq!((m.tree_parent.as_deref(), m.level), (None, 0), "{rows:#?}");
    assert_eq!(
        m.children.iter().cloned().collect::<BTreeSet<_>>(),
        BTreeSet::from([child.clone(), spawned.clone(), recorded.clone()])
    );
    let at_m = rows.iter().position(|r| r.session_id == manager).unwrap();
    let following: BTreeSet<String> = rows[at_m + 1..at_m + 4]
        .iter()
        .map(|r| r.session_id.clone())
        .collect();
    assert_eq!(
        following,
        m.children.iter().cloned().collect(),
        "children right after their parent"
    );
    for kid in [&child, &spawned, &recorded] {
        let r = find(&rows, kid);
        assert_eq!(r.tree_parent.as_deref(), Some(manager.as_str()), "{r:#?}");
        assert_eq!(r.level, 1);
    }
    let ch = find(&rows, &child);
    assert_eq!(
        (ch.origin, ch.depth, ch.parent_session_id.as_deref()),
        (Origin::Human, 0, None),
        "no provenance: the edge is inferred"
    );
    let sp = find(&rows, &spawned);
    assert_eq!(
        (sp.origin, sp.depth, sp.parent_session_id.as_deref()),
        (Origin::Spawned, 1, None)
    );
    let rc = find(&rows, &recorded);
    assert_eq!(rc.parent_session_id.as_deref(), Some(manager.as_str()));
    assert_eq!(rc.parent_project.as_deref(), Some(""));
    let other = find(&rows, &chat);
    assert_eq!((other.tree_parent.as_deref(), other.level), (None, 0));
    assert!(other.children.is_empty());

    // Detach wins over a recorded edge (kept, just not drawn) and over an inferred one.
    assert_eq!(
        update(&mut c, &[&recorded, &child], ChatAction::Detach).await,
        Ok(2)
    );
    let rows = list(&mut c, "", ChatScope::Active).await;
    let rc = find(&rows, &recorded);
    assert!(rc.detached);
    assert_eq!((rc.tree_parent.as_deref(), rc.level), (None, 0));
    assert_eq!(
        rc.parent_session_id.as_deref(),
        Some(manager.as_str()),
        "the recorded edge stays"
    );
    assert_eq!(find(&rows, &child).tree_parent, None);
    assert_eq!(find(&rows, &manager).children, vec![spawned.clone()]);
    assert_eq!(
        update(&mut c, &[&recorded], ChatAction::Attach).await,
        Ok(1)
    );
    let rows = list(&mut c, "", ChatScope::Active).await;
    assert_eq!(
        find(&rows, &recorded).tree_parent.as_deref(),
        Some(manager.as_str())
    );

    // A parent that is archived (not in the listing) leaves its children at the top level.
    update(&mut c, &[&manager], ChatAction::Archive)
        .await
        .unwrap();
    let rows = list(&mut c, "", ChatScope::Active).await;
    for kid in [&spawned, &recorded] {
        let r = find(&rows, kid);
        assert_eq!((r.tree_parent.as_deref(), r.level), (None, 0));
    }
    d.stop().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// 6. Fork
// ---------------------------------------------------------------------------------------------

/// `n` forks of `source`, made one after the other; their session ids.
async fn forks_of(c: &mut RawClient, source: &str, n: usize) -> Vec<String> {
    let mut made = Vec::new();
    for i in 0..n {
        let Reply::Forked(f) = req(
            c,
            Request::ChatFork(ChatFork {
                session_id: source.to_owned(),
                name: Some(format!("fork {i}")),
            }),
        )
        .await
        .unwrap() else {
            panic!()
        };
        made.push(f.session_id);
    }
    made
}

/// One order: a chat's children are listed oldest first, by when the daemon made each one. A
/// fork copies its source's transcript, first timestamp included, so that time cannot order
/// them (they tied, and fell back to the order of their random ids).
#[tokio::test]
async fn forks_are_listed_in_the_order_they_were_made() {
    let d = TestDaemon::start().await;
    let mut c = client(&d).await;
    create_project(&mut c, "order", None).await;
    let (source, _) = turn(&mut c, "order", None, "The source").await;
    let made = forks_of(&mut c, &source, 5).await;
    for scope in [ChatScope::Active, ChatScope::All] {
        let rows = list(&mut c, "order", scope).await;
        let listed: Vec<&str> = rows[1..].iter().map(|r| r.session_id.as_str()).collect();
        assert_eq!(listed, made, "{scope:?}: {rows:#?}");
        assert_eq!(rows[0].children, made, "{scope:?}");
        let created: Vec<&str> = rows[1..]
            .iter()
            .map(|r| r.created_at.as_deref().unwrap_or(""))
            .collect();
        assert!(created.is_sorted(), "{created:?}");
    }
    d.stop().await.unwrap();
}

/// The Archived group is drawn in the one order too: children archived without their parent
/// keep the order they had under it, whatever their activity (it used to be newest first).
#[tokio::test]
async fn archived_children_keep_the_order_they_had_under_their_parent() {
    let d = TestDaemon::start().await;
    let mut c = client(&d).await;
    create_project(&mut c, "order", None).await;
    let (source, _) = turn(&mut c, "order", None, "The source").await;
    let made = forks_of(&mut c, &source, 3).await;
    // C has the newest activity, A the oldest.
    for sid in &made {
        turn(&mut c, "order", Some(sid), "go on").await;
    }
    let ids: Vec<&str> = made.iter().map(String::as_str).collect();
    assert_eq!(update(&mut c, &ids, ChatAction::Archive).await.unwrap(), 3);
    let archived = list(&mut c, "order", ChatScope::Archived).await;
    let listed: Vec<&str> = archived.iter().map(|r| r.session_id.as_str()).collect();
    assert_eq!(listed, ids, "{archived:#?}");
    let all = list(&mut c, "order", ChatScope::All).await;
    let in_all: Vec<&str> = all
        .iter()
        .map(|r| r.session_id.as_str())
        .filter(|s| ids.contains(s))
        .collect();
    assert_eq!(in_all, ids);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_fork_is_drawn_under_its_source_and_can_be_continued() {
    let d = TestDaemon::start().await;
    let mut c = client(&d).await;
    create_project(&mut c, "forks", None).await;
    let (source, _) = turn(&mut c, "forks", None, "Try to fix the login test").await;
    let fork = |name: Option<&str>| {
        Request::ChatFork(ChatFork {
            session_id: source.clone(),
            name: name.map(str::to_owned),
        })
    };
    let Reply::Forked(named) = req(&mut c, fork(Some("Login test: the retry approach")))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(named.project_slug, "forks");
    let Reply::Forked(plain) = req(&mut c, fork(None)).await.unwrap() else {
        panic!()
    };

    let rows = list(&mut c, "forks", ChatScope::Active).await;
    assert_eq!(rows.len(), 3, "{rows:#?}");
    assert_eq!(
        rows[0].session_id, source,
        "the source first, then its forks"
    );
    let s = &rows[0];
    assert_eq!(
        s.children.iter().cloned().collect::<BTreeSet<_>>(),
        BTreeSet::from([named.session_id.clone(), plain.session_id.clone()])
    );
    for f in [&named.session_id, &plain.session_id] {
        let r = find(&rows, f);
        assert_eq!(r.tree_parent.as_deref(), Some(source.as_str()));
        assert_eq!(r.level, 1);
        assert_eq!(r.depth, s.depth + 1);
        assert_eq!(r.parent_session_id.as_deref(), Some(source.as_str()));
        assert_eq!(r.parent_project.as_deref(), Some("forks"));
        assert_eq!(r.message_count, s.message_count, "a copy of the transcript");
    }
    assert_eq!(
        find(&rows, &named.session_id).title,
        "Login test: the retry approach"
    );
    // Unnamed, a fork says what it is (issue 36.6): told from its source at a glance.
    assert_eq!(
        find(&rows, &plain.session_id).title,
        "fork of Try to fix the login test"
    );
    assert!(!s.fork, "the source is no fork: {s:#?}");
    assert!(find(&rows, &named.session_id).fork);
    assert!(find(&rows, &plain.session_id).fork);

    // The fork resumes like any chat, and the source is untouched.
    let (_, frames) = turn(
        &mut c,
        "forks",
        Some(&named.session_id),
        "now try retrying the request",
    )
    .await;
    assert_eq!(text_of(&frames), "echo: now try retrying the request");
    assert!(
        d.fake_argvs().iter().any(|a| a
            .windows(2)
            .any(|w| w[0] == "--resume" && w[1] == named.session_id)),
        "{:?}",
        d.fake_argvs()
    );
    let rows = list(&mut c, "forks", ChatScope::Active).await;
    let f = find(&rows, &named.session_id);
    assert_eq!(f.message_count, 4);
    assert_eq!(f.title, "Login test: the retry approach");
    assert_eq!(
        (f.depth, f.parent_session_id.as_deref()),
        (1, Some(source.as_str())),
        "provenance survives the turn"
    );
    assert_eq!(find(&rows, &source).message_count, 2);
    let t = transcript(&mut c, &named.session_id).await.unwrap();
    let users: Vec<String> = user_attributions(&t).into_iter().map(|u| u.0).collect();
    assert_eq!(
        users,
        ["Try to fix the login test", "now try retrying the request"]
    );

    // A fork of the fork is one level deeper.
    let Reply::Forked(deeper) = req(
        &mut c,
        Request::ChatFork(ChatFork {
            session_id: named.session_id.clone(),
            name: None,
        }),
    )
    .await
    .unwrap() else {
        panic!()
    };
    let r = row(&mut c, "forks", &deeper.session_id).await;
    assert_eq!((r.depth, r.level), (2, 2));
    assert_eq!(r.tree_parent.as_deref(), Some(named.session_id.as_str()));
    assert_eq!(
        r.title, "fork of Login test: the retry approach",
        "a renamed source is quoted by its name"
    );

    let bad = req(
        &mut c,
        Request::ChatFork(ChatFork {
            session_id: uuid::Uuid::new_v4().to_string(),
            name: None,
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(bad.code, ErrorCode::NotFound);
    d.stop().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// 7. Delete
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn delete_removes_the_transcript_and_every_flag_and_refuses_a_running_chat() {
    let d = TestDaemon::start().await;
    let mut c = client(&d).await;
    let project = create_project(&mut c, "del", None).await;
    let folder = transcripts_link(&d, &project.path);
    let (gone, _) = turn(&mut c, "del", None, "delete me").await;
    let (kept, _) = turn(&mut c, "del", None, "keep me").await;
    update(&mut c, &[&gone], ChatAction::Archive).await.unwrap();
    update(&mut c, &[&gone], ChatAction::Star).await.unwrap();
    update(&mut c, &[&gone], ChatAction::Unread).await.unwrap();
    let file = folder.join(format!("{gone}.jsonl"));
    assert!(file.is_file());

    // Validation first, all-or-nothing.
    let err = delete(&mut c, &[]).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    let err = delete(&mut c, &[&gone, "not-a-uuid"]).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    let unknown = uuid::Uuid::new_v4().to_string();
    let err = delete(&mut c, &[&gone, &unknown]).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(file.is_file(), "a failed batch deleted nothing");

    assert_eq!(delete(&mut c, &[&gone, &gone]).await, Ok(1));
    assert!(!file.exists());
    let rows = list(&mut c, "del", ChatScope::All).await;
    assert!(!listed(&rows, &gone));
    assert!(listed(&rows, &kept));
    assert_eq!(
        transcript(&mut c, &gone).await.unwrap_err().code,
        ErrorCode::NotFound
    );
    // A deleted chat is gone for every request, so nothing can flag it again.
    let err = update(&mut c, &[&gone], ChatAction::Star)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let err = delete(&mut c, &[&gone]).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let state = d.cfg.data_dir.join("state");
    for f in [
        "archive-state.json",
        "star-state.json",
        "unread-state.json",
        "read-state.json",
        "run-provenance.json",
    ] {
        let text = std::fs::read_to_string(state.join(f)).unwrap_or_default();
        assert!(
            !text.contains(&gone),
            "{f} still names the deleted chat: {text}"
        );
    }
    // Should the same id ever come back, it inherits nothing.
    std::fs::write(
        &file,
        terminal_transcript(
            &gone,
            &project.path,
            "the same id again",
            "fresh",
            chrono::Utc::now() - chrono::Duration::minutes(1),
        ),
    )
    .unwrap();
    let rows = list_until(&mut c, "del", "the re-used id to be listed", |rows| {
        listed(rows, &gone)
    })
    .await;
    let r = find(&rows, &gone);
    assert!(!r.archived && !r.starred, "{r:#?}");
    assert_eq!(r.title, "the same id again");

    // A running chat cannot be deleted, and a batch naming it deletes nothing.
    let running = start_hanging_turn(&mut c, "del").await;
    let err = delete(&mut c, &[&running]).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Busy, "{err:?}");
    let err = delete(&mut c, &[&kept, &running]).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Busy, "{err:?}");
    assert!(folder.join(format!("{kept}.jsonl")).is_file());
    assert!(listed(&list(&mut c, "del", ChatScope::All).await, &kept));
    cancel(&mut c, "del", &running).await;
    assert_eq!(delete(&mut c, &[&running, &kept]).await, Ok(2));
    let rows = list(&mut c, "del", ChatScope::All).await;
    assert!(
        !listed(&rows, &running) && !listed(&rows, &kept),
        "{rows:#?}"
    );
    d.stop().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// 8. History
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn history_lists_runs_and_what_ran_while_you_were_away() {
    let data = tempfile::tempdir().unwrap();
    let data_dir = data.path().to_path_buf();
    let d = TestDaemon::start_with(on_data_dir(&data_dir)).await;
    let mut c = client(&d).await;
    create_project(&mut c, "hist", None).await;
    let (first, _) = turn(&mut c, "hist", None, "first run").await;
    let hanging = start_hanging_turn(&mut c, "hist").await;
    cancel(&mut c, "hist", &hanging).await;
    turn(&mut c, "hist", Some(&first), "second run in the same chat").await;
    let (root_chat, _) = turn(&mut c, "", None, "a run in the root workspace").await;

    let h = history(&mut c, HistoryList::default()).await;
    let got: Vec<(&str, &str, Option<&str>, RunStatus)> = h
        .runs
        .iter()
        .map(|r| {
            (
                r.project_slug.as_str(),
                r.session_id.as_str(),
                r.prompt.as_deref(),
                r.status,
            )
        })
        .collect();
    let hang_prompt = r#"fake:[{"text":"working","chunks":1},{"hang":true}]"#;
    assert_eq!(
        got,
        vec![
            (
                "",
                root_chat.as_str(),
                Some("a run in the root workspace"),
                RunStatus::Completed
            ),
            (
                "hist",
                first.as_str(),
                Some("second run in the same chat"),
                RunStatus::Completed
            ),
            (
                "hist",
                hanging.as_str(),
                Some(hang_prompt),
                RunStatus::Cancelled
            ),
            (
                "hist",
                first.as_str(),
                Some("first run"),
                RunStatus::Completed
            ),
        ],
        "newest first"
    );
    for r in &h.runs {
        assert_eq!((r.origin, r.depth), (Origin::Human, 0));
        assert!(!r.is_new, "a person's own run is never news");
        assert!(r.finished_at.is_some());
    }
    assert_eq!(h.runs[1].title, "first run", "the chat's title");
    assert_eq!(h.runs[3].title, "first run");
    assert_eq!(h.new_unattended, 0);
    assert!(h.last_seen.is_none());
    let only_hist = history(
        &mut c,
        HistoryList {
            project_slug: Some("hist".into()),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(only_hist.runs.len(), 3);
    let unattended = history(
        &mut c,
        HistoryList {
            unattended: true,
            ..Default::default()
        },
    )
    .await;
    assert!(unattended.runs.is_empty(), "{unattended:#?}");
    drop(c);
    d.stop().await.unwrap();

    // While the daemon was down: a schedule ran (as issue 5 will record it), and a run's end
    // never made it to the log.
    let now = chrono::Utc::now();
    let scheduled_sid = uuid::Uuid::new_v4().to_string();
    let lines = [
        json!({"op": "start", "jobId": "job-scheduled", "projectSlug": "hist",
            "sessionId": scheduled_sid, "origin": "scheduled", "trigger": "nightly-backup",
            "prompt": "Check last night's backup.", "startedAt": now.to_rfc3339(),
            "status": "running"}),
        json!({"op": "end", "jobId": "job-scheduled", "status": "completed",
            "finishedAt": now.to_rfc3339(), "costUsd": 0.0412}),
        json!({"op": "start", "jobId": "job-cut-short", "projectSlug": "hist",
            "sessionId": first, "origin": "human", "prompt": "cut short",
            "startedAt": "2020-01-01T00:00:00Z", "status": "running"}),
    ];
    append(
        &state_file(&data_dir, "runs.jsonl"),
        &lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    );

    let d = TestDaemon::start_with(on_data_dir(&data_dir)).await;
    let mut c = client(&d).await;
    let h = history(&mut c, HistoryList::default()).await;
    assert_eq!(h.runs.len(), 6);
    let s = &h.runs[0];
    assert_eq!(s.job_id, "job-scheduled");
    assert_eq!(s.origin, Origin::Scheduled);
    assert_eq!(s.trigger.as_deref(), Some("nightly-backup"));
    assert_eq!(s.status, RunStatus::Completed);
    assert_eq!(s.cost_usd, Some(0.0412));
    assert!(s.is_new, "it ran while you were away");
    assert_eq!(h.new_unattended, 1);
    let cut = h.runs.last().unwrap();
    assert_eq!(cut.job_id, "job-cut-short");
    assert_eq!(cut.status, RunStatus::Interrupted, "no end line");
    assert_eq!(cut.title, "first run");
    assert!(h.runs[1..5].iter().all(|r| !r.is_new));

    let unattended = history(
        &mut c,
        HistoryList {
            unattended: true,
            ..Default::default()
        },
    )
    .await;
    let jobs: Vec<&str> = unattended.runs.iter().map(|r| r.job_id.as_str()).collect();
    assert_eq!(jobs, ["job-scheduled"]);
    assert_eq!(unattended.new_unattended, 1);
    let limited = history(
        &mut c,
        HistoryList {
            limit: Some(2),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(limited.runs.len(), 2);
    assert_eq!(limited.new_unattended, 1);

    assert_eq!(req(&mut c, Request::HistorySeen).await.unwrap(), Reply::Ack);
    let h = history(&mut c, HistoryList::default()).await;
    assert!(h.runs.iter().all(|r| !r.is_new), "{h:#?}");
    assert_eq!(h.new_unattended, 0);
    assert!(h.last_seen.is_some());
    d.stop().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// 9. Import
// ---------------------------------------------------------------------------------------------

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/claude-cli-2.1.332/transcripts/-home-dev-lab-work-dir-1-x")
        .join(name)
}

/// Bytes and mtime of a file, to show it was not touched.
fn fingerprint(path: &Path) -> (Vec<u8>, i64, i64) {
    let meta = std::fs::metadata(path).unwrap();
    (
        std::fs::read(path).unwrap(),
        meta.mtime(),
        meta.mtime_nsec(),
    )
}

#[tokio::test]
async fn import_adopts_terminal_sessions_without_touching_the_users_files() {
    let d = TestDaemon::start().await;
    let mut c = client(&d).await;
    let checkout = d.dir.path().join("checkout");
    std::fs::create_dir_all(&checkout).unwrap();
    let project = create_project(&mut c, "imp", Some(&checkout)).await;
    let dir = project.path.clone();

    // The user's own history for that directory: a real CLI transcript (its cwd made this
    // directory), a renamed session, and one with no prompt.
    let host = d
        .cfg
        .host_claude_home
        .join("projects")
        .join(paddock_tests::cwd_encoding::encode_cwd(&dir));
    std::fs::create_dir_all(&host).unwrap();
    let tool_sid = "8d7d0ebf-1954-4d77-876e-598889da8d4e";
    let fixture_text = std::fs::read_to_string(fixture(&format!("{tool_sid}.jsonl"))).unwrap();
    let fixture_cwd = serde_json::to_string("/home/dev/lab/work dir_1.x").unwrap();
    assert!(fixture_text.contains(&fixture_cwd));
    let user_tool = host.join(format!("{tool_sid}.jsonl"));
    std::fs::write(
        &user_tool,
        fixture_text.replace(&fixture_cwd, &serde_json::to_string(&dir).unwrap()),
    )
    .unwrap();
    let renamed_sid = uuid::Uuid::new_v4().to_string();
    let user_renamed = host.join(format!("{renamed_sid}.jsonl"));
    std::fs::write(
        &user_renamed,
        terminal_transcript(
            &renamed_sid,
            &dir,
            "Add rate limiting to the API",
            "I'll start with the login endpoint.",
            chrono::Utc::now() - chrono::Duration::days(3),
        ) + &custom_title_record(&renamed_sid, "Rate limiting"),
    )
    .unwrap();
    let empty_sid = uuid::Uuid::new_v4().to_string();
    std::fs::write(
        host.join(format!("{empty_sid}.jsonl")),
        format!(
            "{}\n",
            json!({"type": "queue-operation", "operation": "enqueue",
                "timestamp": ts(chrono::Utc::now()), "sessionId": empty_sid, "content": ""})
        ),
    )
    .unwrap();
    let before = [fingerprint(&user_tool), fingerprint(&user_renamed)];
    let folder = transcripts_link(&d, &dir);
    let both = BTreeSet::from([tool_sid.to_owned(), renamed_sid.clone()]);

    // A dry run reports and changes nothing.
    let dry = import(&mut c, "imp", true).await;
    assert!(dry.dry_run);
    assert_eq!(dry.path, dir);
    assert_eq!(dry.adopted.iter().cloned().collect::<BTreeSet<_>>(), both);
    assert_eq!(dry.skipped.len(), 1);
    assert_eq!(
        (
            dry.skipped[0].session_id.as_str(),
            dry.skipped[0].reason.as_str()
        ),
        (empty_sid.as_str(), "empty")
    );
    assert!(list(&mut c, "imp", ChatScope::All).await.is_empty());
    for sid in &both {
        assert!(std::fs::symlink_metadata(folder.join(format!("{sid}.jsonl"))).is_err());
    }
    let prov = read_json(&state_file(&d.cfg.data_dir, "run-provenance.json"));
    assert!(both.iter().all(|s| prov.get(s).is_none()), "{prov}");

    let done = import(&mut c, "imp", false).await;
    assert!(!done.dry_run);
    assert_eq!(done.adopted.iter().cloned().collect::<BTreeSet<_>>(), both);
    let rows = list(&mut c, "imp", ChatScope::All).await;
    assert_eq!(rows.len(), 2, "{rows:#?}");
    for r in &rows {
        assert_eq!((r.origin, r.depth), (Origin::Adopted, 0), "{r:#?}");
        assert!(!r.unread, "your own history is not news");
        assert_eq!(r.level, 0);
    }
    assert_eq!(find(&rows, tool_sid).title, "please run bash");
    assert_eq!(find(&rows, &renamed_sid).title, "Rate limiting");
    assert_eq!(find(&rows, &renamed_sid).message_count, 2);
    let t = transcript(&mut c, tool_sid).await.unwrap();
    assert!(
        t.entries
            .iter()
            .any(|e| matches!(e, TranscriptEntry::ToolUse { name, .. } if name == "Bash"))
    );
    assert_eq!(
        [fingerprint(&user_tool), fingerprint(&user_renamed)],
        before,
        "the user's files are untouched"
    );

    let again = import(&mut c, "imp", false).await;
    assert!(again.adopted.is_empty(), "{again:#?}");
    let skipped: BTreeSet<(String, String)> = again
        .skipped
        .iter()
        .map(|s| (s.session_id.clone(), s.reason.clone()))
        .collect();
    assert_eq!(
        skipped,
        BTreeSet::from([
            (tool_sid.to_owned(), "already_present".to_owned()),
            (renamed_sid.clone(), "already_present".to_owned()),
            (empty_sid.clone(), "empty".to_owned()),
        ])
    );

    // History: adopted chats are runs of their own kind, never unattended.
    let h = history(&mut c, HistoryList::default()).await;
    let adopted: BTreeSet<String> = h
        .runs
        .iter()
        .filter(|r| r.origin == Origin::Adopted)
        .map(|r| r.session_id.clone())
        .collect();
    assert_eq!(adopted, both);
    assert!(h.runs.iter().all(|r| !r.is_new));
    let unattended = history(
        &mut c,
        HistoryList {
            unattended: true,
            ..Default::default()
        },
    )
    .await;
    assert!(unattended.runs.is_empty(), "{unattended:#?}");
    assert_eq!(unattended.new_unattended, 0);

    // Continuing an adopted chat here works in a private copy; the user's file stays as it was.
    let (_, frames) = turn(
        &mut c,
        "imp",
        Some(&renamed_sid),
        "continue with the signup endpoint",
    )
    .await;
    assert_eq!(text_of(&frames), "echo: continue with the signup endpoint");
    assert_eq!(
        [fingerprint(&user_tool), fingerprint(&user_renamed)],
        before,
        "the user's files are untouched"
    );
    let ours = folder.join(format!("{renamed_sid}.jsonl"));
    let meta = std::fs::symlink_metadata(&ours).unwrap();
    assert!(meta.is_file(), "a private copy, no longer a link");
    assert!(
        std::fs::read_to_string(&ours)
            .unwrap()
            .contains("continue with the signup endpoint")
    );
    let r = row(&mut c, "imp", &renamed_sid).await;
    assert_eq!(r.message_count, 4);
    assert_eq!((r.origin, r.depth), (Origin::Adopted, 0), "stamped once");
    assert_eq!(r.title, "Rate limiting");
    let h = history(
        &mut c,
        HistoryList {
            project_slug: Some("imp".into()),
            ..Default::default()
        },
    )
    .await;
    assert!(
        h.runs
            .iter()
            .any(|r| r.session_id == renamed_sid && r.origin == Origin::Adopted),
        "{h:#?}"
    );
    d.stop().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// 10. Provenance is stamped once
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn provenance_is_stamped_once_and_later_turns_leave_it_alone() {
    let data = tempfile::tempdir().unwrap();
    let data_dir = data.path().to_path_buf();
    let d = TestDaemon::start_with(on_data_dir(&data_dir)).await;
    let mut c = client(&d).await;
    let prov_path = state_file(&data_dir, "run-provenance.json");
    let (sid, _) = turn(&mut c, "", None, "stamp me once").await;
    let stamped = read_json(&prov_path)[sid.as_str()].clone();
    assert_eq!(stamped["origin"], "human");
    assert_eq!(stamped["depth"], 0);
    assert!(stamped["createdAt"].is_string(), "{stamped}");
    let first = row(&mut c, "", &sid).await;

    turn(&mut c, "", Some(&sid), &slow_text("a second turn", 2, 5)).await;
    assert_eq!(read_json(&prov_path)[sid.as_str()], stamped);
    let second = row(&mut c, "", &sid).await;
    assert_eq!(
        (second.origin, second.depth, &second.created_at),
        (first.origin, first.depth, &first.created_at)
    );
    assert_eq!(second.message_count, 4);

    // A chat a schedule started stays scheduled when a person continues it.
    let (sched, _) = turn(&mut c, "", None, "nightly report").await;
    drop(c);
    d.stop().await.unwrap();
    let mut prov = read_json(&prov_path);
    let marker = json!({"origin": "scheduled", "depth": 0, "createdAt": "2026-11-29T02:00:01Z",
        "trigger": "nightly-backup"});
    prov[sched.as_str()] = marker.clone();
    write_json(&prov_path, &prov);
    let d = TestDaemon::start_with(on_data_dir(&data_dir)).await;
    let mut c = client(&d).await;
    turn(&mut c, "", Some(&sched), "thanks, now fix it").await;
    assert_eq!(read_json(&prov_path)[sched.as_str()], marker);
    assert_eq!(read_json(&prov_path)[sid.as_str()], stamped);
    let r = row(&mut c, "", &sched).await;
    assert_eq!((r.origin, r.depth), (Origin::Scheduled, 0));
    assert_eq!(r.trigger.as_deref(), Some("nightly-backup"));
    let h = history(&mut c, HistoryList::default()).await;
    assert_eq!(h.runs[0].session_id, sched);
    assert_eq!(
        h.runs[0].origin,
        Origin::Human,
        "the run is the person's; the chat stays scheduled"
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn attached_files_are_kept_listed_before_the_message_and_fetched_back() {
    use base64::Engine as _;
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let shot = d.dir.path().join("shot.png");
    std::fs::write(&shot, b"\x89PNG not really").unwrap();
    let reply = c
        .request(Request::ChatSend(paddock_proto::ChatSend {
            project_slug: String::new(),
            session_id: None,
            message: "What is wrong here?".into(),
            model: None,
            preload_context: false,
            attachments: vec![
                paddock_proto::AttachmentUpload {
                    name: "shot.png".into(),
                    path: Some(shot.to_string_lossy().into_owned()),
                    data: None,
                },
                paddock_proto::AttachmentUpload {
                    name: "build.log".into(),
                    path: None,
                    data: Some(base64::engine::general_purpose::STANDARD.encode("error: boom\n")),
                },
            ],
            isolation: None,
        }))
        .await
        .unwrap();
    let Reply::Sent(sent) = reply else {
        panic!("not sent: {reply:?}")
    };
    let frames = c.frames_until_complete(&sent.session_id).await;
    let echoed = text_of(&frames);
    assert!(
        echoed.starts_with("echo: <paddock-attachments>\n"),
        "{echoed}"
    );
    assert!(
        echoed.ends_with("</paddock-attachments>\n\nWhat is wrong here?"),
        "{echoed}"
    );
    // The log's line names its kept copy; fetch it back.
    let line = echoed
        .lines()
        .find(|l| l.contains("\tbuild.log\t"))
        .expect("the log is listed");
    let id = line.split('\t').next().unwrap().to_owned();
    assert!(line.starts_with(&id) && line.contains("\ttext\t"), "{line}");
    let Reply::Attachment(a) = c
        .request(Request::AttachmentGet(paddock_proto::AttachmentRef {
            attachment_id: id,
        }))
        .await
        .unwrap()
    else {
        panic!("not an attachment")
    };
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(a.data)
            .unwrap(),
        b"error: boom\n"
    );
    // The chat's title is the request.
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let Reply::Chats(chats) = c
            .request(Request::ChatList(paddock_proto::ChatList {
                project_slug: Some(String::new()),
                scope: Default::default(),
                since: None,
                full_titles: false,
            }))
            .await
            .unwrap()
        else {
            panic!("not chats")
        };
        if chats
            .chats
            .iter()
            .any(|r| r.session_id == sent.session_id && r.title == "What is wrong here?")
        {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{:#?}", chats.chats);
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    // History shows the request too, not the block.
    let runs = history(&mut c, HistoryList::default()).await;
    let run = runs
        .runs
        .iter()
        .find(|r| r.session_id == sent.session_id)
        .expect("the run is in the history");
    assert_eq!(run.prompt.as_deref(), Some("What is wrong here?"));
    // Over the limit: refused, naming the setting; nothing is sent.
    let err = c
        .request(Request::ChatSend(paddock_proto::ChatSend {
            project_slug: String::new(),
            session_id: None,
            message: "too many".into(),
            model: None,
            preload_context: false,
            attachments: (0..11)
                .map(|i| paddock_proto::AttachmentUpload {
                    name: format!("{i}.txt"),
                    path: None,
                    data: Some("eA==".into()),
                })
                .collect(),
            isolation: None,
        }))
        .await
        .unwrap_err();
    assert_eq!(err.code, paddock_proto::ErrorCode::InvalidArgument);
    assert!(
        err.message.contains("attachments_max_files"),
        "{}",
        err.message
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn attachments_turned_off_refuse_a_message_with_files_naming_the_key() {
    let d = TestDaemon::start_with(|c| c.attachments.enabled = false).await;
    let mut c = d.client().await;
    let err = c
        .request(Request::ChatSend(paddock_proto::ChatSend {
            project_slug: String::new(),
            session_id: None,
            message: "Look at this".into(),
            model: None,
            preload_context: false,
            attachments: vec![paddock_proto::AttachmentUpload {
                name: "a.txt".into(),
                path: None,
                data: Some("eA==".into()),
            }],
            isolation: None,
        }))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    for want in ["attachments_enabled", "PADDOCK_ATTACHMENTS_ENABLED"] {
        assert!(err.message.contains(want), "{want}: {}", err.message);
    }
    // Nothing was kept, and no chat started.
    let kept = std::fs::read_dir(d.cfg.data_dir.join("attachments"))
        .map(|r| r.count())
        .unwrap_or(0);
    assert_eq!(kept, 0);
    let Reply::Chats(list) = c
        .request(Request::ChatList(ChatList {
            project_slug: Some(String::new()),
            scope: ChatScope::All,
            since: None,
            full_titles: false,
        }))
        .await
        .unwrap()
    else {
        panic!("not chats")
    };
    assert!(list.chats.is_empty(), "{:?}", list.chats);
    // A message without files still goes.
    let sent = c.send_turn("", None, "plain").await;
    assert!(complete_of(&c.frames_until_complete(&sent.session_id).await).success);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_chat_open_in_a_client_stays_read_while_its_turn_streams() {
    let d = TestDaemon::start().await;
    let mut c = client(&d).await;
    let (sid, _) = turn(&mut c, "", None, "first").await;
    update(&mut c, &[&sid], ChatAction::Read).await.unwrap();
    let before = row(&mut c, "", &sid).await;
    assert!(!before.unread);
    // The asker is subscribed to the chat: it is open there while the turn streams.
    let script = r#"fake:[{"text":"working","chunks":1},{"hang":true}]"#;
    Box::pin(c.send_turn("", Some(&sid), script)).await;
    let mid = tokio::time::timeout(DEADLINE, async {
        loop {
            let r = row(&mut c, "", &sid).await;
            if r.running && r.message_count > before.message_count {
                return r;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
    })
    .await
    .expect("the new turn is indexed while it runs");
    assert!(!mid.unread, "open in a client: read as it streams");
    d.stop().await.unwrap();
}
