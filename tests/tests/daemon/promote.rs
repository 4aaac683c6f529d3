//! `chat:promote` over the socket (issue 37.9): a chat moves to another project with the chats
//! under it, keeping its id, provenance, flags, children and history, and resumes there;
//! nothing is copied, nothing left behind; a running chat is refused and nothing changes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use paddock_proto::{
    ChatAction, ChatFork, ChatPromote, ChatSummary, ChatUpdate, ErrorBody, ErrorCode, HistoryList,
    ProjectCreate, Promoted, Reply, Request, SearchRequest,
};
use paddock_tests::cwd_encoding::encode_cwd;
use serde_json::json;

use crate::agents::{call, daemon, mcp_config_of, token_of};
use crate::harness::*;

fn idle(rows: &[ChatSummary], sid: &str, messages: u64) -> bool {
    rows.iter()
        .any(|r| r.session_id == sid && !r.running && r.message_count >= messages)
}

async fn promote(c: &mut RawClient, sid: &str, to: &str) -> Result<Promoted, ErrorBody> {
    let reply = Box::pin(c.request(Request::ChatPromote(ChatPromote {
        session_id: sid.into(),
        to_project: to.into(),
    })))
    .await?;
    match reply {
        Reply::Promoted(p) => Ok(p),
        other => panic!("expected promoted, got {other:?}"),
    }
}

/// Every file named `name` under `root` (a project's transcript folder is a link to its
/// `.chats`: links are followed, each real folder read once).
fn find_all(root: &Path, name: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if !seen.insert(std::fs::canonicalize(&dir).unwrap_or(dir.clone())) {
            continue;
        }
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == name) {
                out.push(p);
            }
        }
    }
    out
}

async fn project_path(c: &mut RawClient, slug: &str) -> String {
    match Box::pin(c.request(Request::ProjectList)).await {
        Ok(Reply::Projects(p)) => {
            p.projects
                .into_iter()
                .find(|p| p.slug == slug)
                .unwrap_or_else(|| panic!("no project {slug}"))
                .path
        }
        other => panic!("project:list: {other:?}"),
    }
}

#[tokio::test]
async fn a_chat_moves_with_its_subtree_keeps_what_it_had_and_resumes_there() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    Box::pin(c.request(Request::ProjectCreate(ProjectCreate {
        slug: "scratch".into(),
        ..Default::default()
    })))
    .await
    .expect("project made");
    let root = c
        .send_turn("scratch", None, "plan the quokka login service")
        .await
        .session_id;
    c.frames_until_complete(&root).await;
    chats_until(&mut c, "scratch", "the root idle", |r| idle(r, &root, 2)).await;
    // A child the root's agent spawned, and a fork of the root: both under it.
    let token = token_of(&mcp_config_of(&d, &root).expect("--mcp-config"));
    let (text, is_error) = call(
        &mut c,
        &token,
        "create_chat",
        json!({"prompt": "write the wombat tests"}),
    )
    .await;
    assert!(!is_error, "{text}");
    let child = serde_json::from_str::<serde_json::Value>(&text).unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let Ok(Reply::Forked(fork)) = Box::pin(c.request(Request::ChatFork(ChatFork {
        session_id: root.clone(),
        name: None,
    })))
    .await
    else {
        panic!("fork")
    };
    let fork = fork.session_id;
    chats_until(&mut c, "scratch", "three chats idle", |r| {
        idle(r, &child, 2) && idle(r, &fork, 2) && idle(r, &root, 2)
    })
    .await;
    Box::pin(c.request(Request::ChatUpdate(ChatUpdate {
        session_ids: vec![root.clone()],
        action: ChatAction::Star,
    })))
    .await
    .expect("starred");
    let scratch_dir = encode_cwd(&project_path(&mut c, "scratch").await);

    let p = promote(&mut c, &root, "login").await.expect("moved");
    assert_eq!(
        (
            p.from_project.as_str(),
            p.to_project.as_str(),
            p.created_project
        ),
        ("scratch", "login", true)
    );
    assert_eq!(p.session_ids[0], root, "the chat named first");
    assert_eq!(
        p.session_ids.iter().cloned().collect::<BTreeSet<_>>(),
        BTreeSet::from([root.clone(), child.clone(), fork.clone()])
    );

    // Listed in the new project at once, as they were; nothing left in the old.
    let moved = chats_of(&mut c, "login").await;
    let row = |sid: &str| {
        moved
            .iter()
            .find(|r| r.session_id == sid)
            .unwrap_or_else(|| panic!("{sid} not in login: {moved:#?}"))
            .clone()
    };
    assert!(row(&root).starred, "flags go with it");
    assert_eq!(row(&root).message_count, 2);
    for sid in [&child, &fork] {
        let r = row(sid);
        assert_eq!(r.tree_parent.as_deref(), Some(root.as_str()), "{r:#?}");
        assert_eq!(r.parent_project.as_deref(), Some("login"), "{r:#?}");
        assert_eq!(r.depth, 1);
    }
    assert_eq!(row(&child).origin, paddock_proto::Origin::Spawned);
    assert!(chats_of(&mut c, "scratch").await.is_empty());
    // Moved, not copied: each transcript once, in the new project's folder.
    let login_dir = encode_cwd(&project_path(&mut c, "login").await);
    for sid in [&root, &child, &fork] {
        let found = find_all(&d.cfg.claude_home, &format!("{sid}.jsonl"));
        assert_eq!(found.len(), 1, "{found:?}");
        let folder = found[0].parent().unwrap().file_name().unwrap();
        assert_eq!(folder.to_string_lossy(), login_dir, "{found:?}");
        assert_ne!(folder.to_string_lossy(), scratch_dir);
    }
    // History: the runs are the new project's.
    let Ok(Reply::History(h)) = Box::pin(c.request(Request::HistoryList(HistoryList {
        project_slug: Some("login".into()),
        ..Default::default()
    })))
    .await
    else {
        panic!("history")
    };
    let ran: BTreeSet<String> = h.runs.iter().map(|r| r.session_id.clone()).collect();
    assert!(ran.contains(&root) && ran.contains(&child), "{ran:?}");

    // It resumes there: a new claude in the new project's folder, the same session.
    let before = d.fake_cwds().len();
    let sent = c.send_turn("login", Some(&root), "and now the emu").await;
    assert_eq!(sent.project_slug, "login");
    c.frames_until_complete(&root).await;
    let moved = chats_until(&mut c, "login", "the resumed turn", |r| idle(r, &root, 4)).await;
    assert!(moved.iter().any(|r| r.session_id == root && r.starred));
    let cwds = d.fake_cwds();
    assert!(cwds.len() > before, "a new claude ran: {cwds:?}");
    let login_path = project_path(&mut c, "login").await;
    assert!(cwds.contains(&login_path), "{cwds:?}");
    assert_eq!(
        find_all(&d.cfg.claude_home, &format!("{root}.jsonl")).len(),
        1,
        "one transcript still"
    );
    // Search finds it in its new project only.
    for (project, want) in [
        ("login", vec![root.clone(), fork.clone()]),
        ("scratch", vec![]),
    ] {
        let Ok(Reply::SearchResults(r)) = Box::pin(c.request(Request::Search(SearchRequest {
            query: "quokka".into(),
            project_slug: Some(project.into()),
            limit: None,
            archived: false,
        })))
        .await
        else {
            panic!("search")
        };
        let found: BTreeSet<String> = r.hits.iter().map(|h| h.session_id.clone()).collect();
        assert_eq!(found, want.into_iter().collect(), "{project}: {r:#?}");
    }

    // And back, into an existing project (the root workspace): not made again.
    let back = promote(&mut c, &root, "").await.expect("moved back");
    assert!(!back.created_project);
    assert_eq!(back.session_ids.len(), 3);
    assert!(chats_of(&mut c, "login").await.is_empty());
    assert_eq!(chats_of(&mut c, "").await.len(), 3);
}

#[tokio::test]
async fn a_move_is_refused_while_a_turn_runs_and_nothing_changes() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let idle_chat = c.send_turn("", None, "hello").await.session_id;
    c.frames_until_complete(&idle_chat).await;
    chats_until(&mut c, "", "idle", |r| idle(r, &idle_chat, 2)).await;
    let running = c.send_hanging_turn("", "working").await.session_id;

    let e = promote(&mut c, &running, "web").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::Busy, "{e:?}");
    assert!(e.message.contains("nothing was moved"), "{}", e.message);
    let e = promote(&mut c, &idle_chat, "").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert!(e.message.contains("already"), "{}", e.message);
    let e = promote(&mut c, "00000000-0000-4000-8000-000000000000", "web")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound, "{e:?}");
    let e = promote(&mut c, "not-an-id", "web").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument, "{e:?}");
    // No project was made for the refused moves, and both chats are where they were.
    let Ok(Reply::Projects(p)) = Box::pin(c.request(Request::ProjectList)).await else {
        panic!()
    };
    assert!(p.projects.iter().all(|p| p.slug != "web"), "{p:#?}");
    let now = chats_of(&mut c, "").await;
    assert_eq!(now.len(), 2, "{now:#?}");
}

/// With the real CLI: a chat moved while its claude is still up resumes in the new project's
/// folder with its history (the CLI finds the transcript where the move put it), and its
/// turns are written to that one transcript.
#[tokio::test]
async fn real_cli_a_moved_chat_resumes_in_its_new_project_with_its_history() {
    let api = paddock_tests::mock_api::MockApi::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let d = crate::real_cli::real_daemon(&api, on_data_dir(data.path())).await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, "remember the quokka").await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    let sid = sent.session_id;
    chats_until(&mut c, "", "idle", |r| idle(r, &sid, 2)).await;

    let p = promote(&mut c, &sid, "zoo").await.expect("moved");
    assert_eq!(p.session_ids, std::slice::from_ref(&sid));
    let again = c.send_turn("zoo", Some(&sid), "what did I ask?").await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert_eq!(text_of(&frames), "echo: what did I ask?", "{frames:#?}");
    let last = api.message_requests().pop().expect("a request");
    assert!(
        last.body.to_string().contains("remember the quokka"),
        "the resumed request carries the earlier turn: {}",
        last.body
    );
    let rows = chats_until(&mut c, "zoo", "the second turn listed", |r| {
        idle(r, &sid, 4)
    })
    .await;
    assert_eq!(rows.len(), 1, "{rows:#?}");
    let found = find_all(&d.cfg.claude_home, &format!("{sid}.jsonl"));
    assert_eq!(found.len(), 1, "one transcript: {found:?}");
    let folder = found[0].parent().unwrap().file_name().unwrap();
    assert_eq!(
        folder.to_string_lossy(),
        encode_cwd(&project_path(&mut c, "zoo").await)
    );
    assert!(chats_of(&mut c, "").await.is_empty());
    d.stop().await.unwrap();
}

/// A continue asked before the move (recovery's, after a turn stopped as hung) runs where
/// the chat is now, resuming its one transcript there.
#[tokio::test]
async fn a_continue_asked_before_the_move_runs_in_the_new_project() {
    let d = TestDaemon::start_with(|c| {
        c.recovery_limbo = Some(std::time::Duration::from_millis(400));
        c.recovery_autodrive = true;
        c.recovery_debounce = std::time::Duration::from_secs(3);
        c.recovery_max_retries = 1;
    })
    .await;
    let mut c = d.client().await;
    let script = r#"fake:[{"text":"thinking","chunks":1},{"hang":true}]"#;
    let sid = c.send_turn("", None, script).await.session_id;
    let frames = c.frames_until_complete(&sid).await;
    assert!(!complete_of(&frames).success, "stopped as hung");
    chats_until(&mut c, "", "the hung chat listed", |r| {
        r.iter().any(|x| x.session_id == sid && !x.running)
    })
    .await;
    // Moved while recovery's continue waits for its turn.
    promote(&mut c, &sid, "elsewhere").await.expect("moved");
    let frames = c.frames_until_complete(&sid).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    let moved = chats_until(&mut c, "elsewhere", "the continue listed", |r| {
        r.iter()
            .any(|x| x.session_id == sid && !x.running && x.message_count >= 3)
    })
    .await;
    assert_eq!(moved.len(), 1);
    assert!(chats_of(&mut c, "").await.is_empty(), "nothing left behind");
    let found = find_all(&d.cfg.claude_home, &format!("{sid}.jsonl"));
    assert_eq!(found.len(), 1, "one transcript: {found:?}");
    let here = project_path(&mut c, "elsewhere").await;
    assert_eq!(d.fake_cwds().iter().filter(|w| **w == here).count(), 1);
}
