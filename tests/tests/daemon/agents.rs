//! The agent tools over the socket: the test plays the MCP bridge (`agent:tools` /
//! `agent:call`) with the token the daemon put in each fake `claude`'s `--mcp-config`, so the
//! daemon side is exercised exactly as `paddockd mcp` drives it.

use std::time::Duration;

use paddock_proto::{
    AgentAuth, AgentCall, Attribution, ChatEvent, ChatList, ChatScope, ChatSummary, ErrorCode,
    Origin, Reply, Request, SessionRef, TranscriptEntry,
};
use serde_json::{Value, json};

use crate::harness::*;

/// A daemon whose agents get MCP config (the fake CLI never runs the bridge, so any path does).
pub(crate) async fn daemon(tune: impl FnOnce(&mut paddockd::Config)) -> TestDaemon {
    TestDaemon::start_with(|c| {
        c.mcp_bin = Some("/opt/paddock/bin/paddockd".into());
        tune(c);
    })
    .await
}

/// The `--mcp-config` the daemon gave a process of `session`, parsed (for a chat that ran in
/// one process).
pub(crate) fn mcp_config_of(d: &TestDaemon, session: &str) -> Option<Value> {
    d.fake_argvs().into_iter().rev().find_map(|argv| {
        if !argv.iter().any(|a| a == session) {
            return None;
        }
        let at = argv.iter().position(|a| a == "--mcp-config")?;
        read_config(argv.get(at + 1)?)
    })
}

/// A `--mcp-config` value: the daemon passes a 0600 file, so the token is not in argv.
fn read_config(arg: &str) -> Option<Value> {
    assert!(
        !arg.contains("pdk_"),
        "the token is on the command line: {arg}"
    );
    let text = std::fs::read_to_string(arg).ok()?;
    serde_json::from_str(&text).ok()
}

/// Every `--mcp-config` ever given to `session`'s processes (in no particular order).
fn mcp_configs_of(d: &TestDaemon, session: &str) -> Vec<Value> {
    d.fake_argvs()
        .into_iter()
        .filter(|argv| argv.iter().any(|a| a == session))
        .filter_map(|argv| {
            let at = argv.iter().position(|a| a == "--mcp-config")?;
            read_config(argv.get(at + 1)?)
        })
        .collect()
}

pub(crate) fn token_of(config: &Value) -> String {
    config["mcpServers"]["paddock"]["env"]["PADDOCK_AGENT_TOKEN"]
        .as_str()
        .expect("a token")
        .to_owned()
}

fn has_manage(config: &Value) -> bool {
    config["mcpServers"].get("paddock_manage").is_some()
}

pub(crate) async fn call(
    c: &mut RawClient,
    token: &str,
    tool: &str,
    arguments: Value,
) -> (String, bool) {
    match c
        .request(Request::AgentCall(AgentCall {
            token: token.into(),
            server: "paddock_manage".into(),
            tool: tool.into(),
            arguments,
            tool_use_id: None,
        }))
        .await
    {
        Ok(Reply::AgentResult(r)) => (r.text, r.is_error),
        other => panic!("agent:call {tool}: {other:?}"),
    }
}

async fn list(c: &mut RawClient) -> Vec<ChatSummary> {
    match c
        .request(Request::ChatList(ChatList {
            project_slug: Some(String::new()),
            scope: ChatScope::All,
            since: None,
            full_titles: false,
        }))
        .await
    {
        Ok(Reply::Chats(chats)) => chats.chats,
        other => panic!("chat:list: {other:?}"),
    }
}

/// Waits until `session` is listed and idle with at least `messages` messages.
async fn settled(c: &mut RawClient, session: &str, messages: u64) -> ChatSummary {
    tokio::time::timeout(DEADLINE, async {
        loop {
            if let Some(chat) = list(c)
                .await
                .into_iter()
                .find(|x| x.session_id == session && !x.running && x.message_count >= messages)
            {
                return chat;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("chat {session} never settled"))
}

fn session_of(text: &str) -> String {
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    v["sessionId"].as_str().expect("sessionId").to_owned()
}

#[tokio::test]
async fn a_human_chat_gets_the_tools_and_a_bad_token_is_refused() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, "hello").await;
    c.frames_until_complete(&sent.session_id).await;
    settled(&mut c, &sent.session_id, 2).await;
    let config = mcp_config_of(&d, &sent.session_id).expect("--mcp-config");
    assert!(has_manage(&config), "{config}");
    assert_eq!(
        config["mcpServers"]["paddock_manage"]["args"],
        json!(["mcp", "--server", "paddock_manage"])
    );
    let token = token_of(&config);
    let Reply::AgentTools(tools) = c
        .request(Request::AgentTools(AgentAuth {
            token: token.clone(),
            server: "paddock_manage".into(),
        }))
        .await
        .unwrap()
    else {
        panic!("not tools")
    };
    let names: Vec<&str> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    for want in [
        "list_chats",
        "read_chat",
        "create_chat",
        "fork_chat",
        "send_message",
    ] {
        assert!(names.contains(&want), "{names:?}");
    }
    assert!(
        !names.contains(&"create_project"),
        "projects tier is off by default"
    );
    let err = c
        .request(Request::AgentTools(AgentAuth {
            token: "pdk_forged".into(),
            server: "paddock_manage".into(),
        }))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::PermissionDenied);
    // read tools answer for the chat itself.
    let (text, is_error) = call(&mut c, &token, "list_chats", json!({})).await;
    assert!(!is_error && text.contains(&sent.session_id), "{text}");
    let (text, is_error) = call(
        &mut c,
        &token,
        "read_chat",
        json!({"sessionId": sent.session_id}),
    )
    .await;
    assert!(!is_error && text.contains("echo: hello"), "{text}");
    let (text, is_error) = call(&mut c, &token, "create_chat", json!({})).await;
    assert!(is_error && text.contains("prompt"), "{text}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn the_write_tier_implies_the_read_tier() {
    // self_mcp off, self_mcp_write on: the chat still gets paddock_manage, with both tiers.
    let d = daemon(|c| {
        c.self_mcp = false;
        c.self_mcp_write = true;
    })
    .await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, "hello").await;
    c.frames_until_complete(&sent.session_id).await;
    settled(&mut c, &sent.session_id, 2).await;
    let config = mcp_config_of(&d, &sent.session_id).expect("--mcp-config");
    assert!(has_manage(&config), "{config}");
    let token = token_of(&config);
    let Reply::AgentTools(tools) = c
        .request(Request::AgentTools(AgentAuth {
            token: token.clone(),
            server: "paddock_manage".into(),
        }))
        .await
        .unwrap()
    else {
        panic!("not tools")
    };
    let names: Vec<&str> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    for want in ["list_projects", "list_chats", "read_chat", "create_chat"] {
        assert!(names.contains(&want), "{want}: {names:?}");
    }
    let (text, is_error) = call(&mut c, &token, "list_chats", json!({})).await;
    assert!(!is_error && text.contains(&sent.session_id), "{text}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn spawned_chats_nest_and_the_depth_gate_stops_recursion() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let root = c.send_turn("", None, "manager").await;
    c.frames_until_complete(&root.session_id).await;
    let root_token = token_of(&mcp_config_of(&d, &root.session_id).unwrap());

    // The manager spawns a child: depth 1, which is within the default limit of 1.
    let (text, is_error) = call(
        &mut c,
        &root_token,
        "create_chat",
        json!({"prompt": "child task"}),
    )
    .await;
    assert!(!is_error, "{text}");
    let child = session_of(&text);
    let row = settled(&mut c, &child, 2).await;
    assert_eq!(row.origin, Origin::Spawned);
    assert_eq!(row.depth, 1);
    assert_eq!(
        row.parent_session_id.as_deref(),
        Some(root.session_id.as_str())
    );
    assert_eq!(row.tree_parent.as_deref(), Some(root.session_id.as_str()));
    let child_config = mcp_config_of(&d, &child).expect("the child's --mcp-config");
    assert!(
        has_manage(&child_config),
        "depth 1 ≤ 1: the child has the tools"
    );

    // The child spawns a grandchild (depth 2): it runs, without the tools.
    let child_token = token_of(&child_config);
    let (text, is_error) = call(
        &mut c,
        &child_token,
        "create_chat",
        json!({"prompt": "grandchild task"}),
    )
    .await;
    assert!(!is_error, "{text}");
    assert!(text.contains("\"hasSelfManagementTools\":false"), "{text}");
    let grandchild = session_of(&text);
    let row = settled(&mut c, &grandchild, 2).await;
    assert_eq!((row.origin, row.depth), (Origin::Spawned, 2));
    let gc_config = mcp_config_of(&d, &grandchild).expect("the grandchild's --mcp-config");
    assert!(!has_manage(&gc_config), "depth 2 > 1: no self-management");
    // Its token cannot spawn: the tree stops at the limit.
    let gc_token = token_of(&gc_config);
    let (text, is_error) = call(
        &mut c,
        &gc_token,
        "create_chat",
        json!({"prompt": "great-grandchild"}),
    )
    .await;
    assert!(is_error && text.contains("not available"), "{text}");
    let chats = list(&mut c).await;
    assert_eq!(chats.len(), 3, "{chats:?}");
    let levels: Vec<(String, u32)> = chats
        .iter()
        .map(|c| (c.session_id.clone(), c.level))
        .collect();
    assert_eq!(
        levels,
        vec![
            (root.session_id.clone(), 0),
            (child.clone(), 1),
            (grandchild.clone(), 2)
        ]
    );

    // A person who opens the grandchild gets the tools again: its process is restarted
    // with them (the chat resumes).
    let again = c.send_turn("", Some(&grandchild), "a human asks").await;
    c.frames_until_complete(&again.session_id).await;
    // Two processes ran this chat (the state files are not in start order): the machine's
    // without the tools, the person's with them.
    let configs = mcp_configs_of(&d, &grandchild);
    assert_eq!(configs.len(), 2, "{configs:?}");
    assert!(
        configs.iter().any(has_manage) && configs.iter().any(|c| !has_manage(c)),
        "the human turn runs with the tools: {configs:?}"
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_project_setting_wins_over_the_instance_depth() {
    let d = daemon(|c| c.max_spawn_depth = 3).await;
    let mut c = d.client().await;
    c.request(Request::ProjectCreate(paddock_proto::ProjectCreate {
        slug: "tight".into(),
        path: None,
        ..Default::default()
    }))
    .await
    .unwrap();
    let toml = d.cfg.data_dir.join("projects/tight/project.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str("max_spawn_depth = 0\n");
    std::fs::write(&toml, text).unwrap();
    let root = c.send_turn("tight", None, "manager").await;
    c.frames_until_complete(&root.session_id).await;
    let token = token_of(&mcp_config_of(&d, &root.session_id).unwrap());
    let (text, is_error) = call(&mut c, &token, "create_chat", json!({"prompt": "child"})).await;
    assert!(!is_error, "{text}");
    assert!(text.contains("\"hasSelfManagementTools\":false"), "{text}");
    let child = session_of(&text);
    tokio::time::timeout(DEADLINE, async {
        while mcp_config_of(&d, &child).is_none() {
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await
    .unwrap();
    assert!(!has_manage(&mcp_config_of(&d, &child).unwrap()));
    d.stop().await.unwrap();
}

#[tokio::test]
async fn send_message_reports_back_into_a_busy_parent_with_attribution_live() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let root = c.send_turn("", None, "manager").await;
    c.frames_until_complete(&root.session_id).await;
    let root_token = token_of(&mcp_config_of(&d, &root.session_id).unwrap());
    let (text, _) = call(
        &mut c,
        &root_token,
        "create_chat",
        json!({"prompt": "child task"}),
    )
    .await;
    let child = session_of(&text);
    settled(&mut c, &child, 2).await;
    let child_token = token_of(&mcp_config_of(&d, &child).unwrap());

    // A second client watches the parent; the parent is busy with a slow turn.
    let mut watcher = d.client().await;
    let slow = c
        .send_turn("", Some(&root.session_id), &slow_text("working", 10, 60))
        .await;
    watcher
        .request(Request::ChatSubscribe(paddock_proto::ChatSubscribe {
            session_id: root.session_id.clone(),
            want_replay: true,
            last_seq: None,
        }))
        .await
        .unwrap();
    let (text, is_error) = call(
        &mut c,
        &child_token,
        "send_message",
        json!({"sessionId": root.session_id, "message": "report: all done"}),
    )
    .await;
    assert!(!is_error, "{text}");
    assert!(
        text.contains("\"queued\":true"),
        "the parent was busy: {text}"
    );
    c.frames_until_complete(&slow.session_id).await;

    // The report runs after the busy turn, streams to the watcher with its attribution.
    let injected = tokio::time::timeout(DEADLINE, async {
        loop {
            if let paddock_proto::ServerMessage::Frame(f) = watcher.next().await
                && let ChatEvent::User(u) = f.event
                && u.text == "report: all done"
            {
                return u;
            }
        }
    })
    .await
    .expect("the injected turn streams live");
    match injected.attribution {
        Some(Attribution::Sent {
            from_session_id, ..
        }) => assert_eq!(from_session_id, child),
        other => panic!("attribution {other:?}"),
    }
    settled(&mut c, &root.session_id, 6).await;
    let Reply::Transcript(t) = c
        .request(Request::ChatTranscript(SessionRef {
            session_id: root.session_id.clone(),
        }))
        .await
        .unwrap()
    else {
        panic!("not a transcript")
    };
    let attributed: Vec<&TranscriptEntry> = t
        .entries
        .iter()
        .filter(|e| {
            matches!(
                e,
                TranscriptEntry::User {
                    attribution: Some(_),
                    ..
                }
            )
        })
        .collect();
    assert_eq!(attributed.len(), 1, "{:?}", t.entries);
    // The report-back does not re-parent the manager under its child.
    let chats = list(&mut c).await;
    let manager = chats
        .iter()
        .find(|x| x.session_id == root.session_id)
        .unwrap();
    assert_eq!(manager.tree_parent, None);
    assert_eq!(manager.level, 0);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn fork_archive_and_project_tools() {
    let d = daemon(|c| c.self_mcp_projects = true).await;
    let mut c = d.client().await;
    let root = c.send_turn("", None, "source chat").await;
    c.frames_until_complete(&root.session_id).await;
    settled(&mut c, &root.session_id, 2).await;
    let token = token_of(&mcp_config_of(&d, &root.session_id).unwrap());
    let (text, is_error) = call(&mut c, &token, "fork_chat", json!({"prompt": "go on"})).await;
    assert!(!is_error, "{text}");
    let fork = session_of(&text);
    let row = settled(&mut c, &fork, 4).await;
    assert_eq!((row.origin, row.depth), (Origin::Spawned, 1));
    assert_eq!(row.tree_parent.as_deref(), Some(root.session_id.as_str()));
    let (_, is_error) = call(&mut c, &token, "archive_chat", json!({"sessionId": fork})).await;
    assert!(!is_error);
    let archived = list(&mut c).await;
    assert!(archived.iter().any(|x| x.session_id == fork && x.archived));
    // A chat creates only a project its own may reach: a person names it first.
    c.request(Request::ProjectUpdate(paddock_proto::ProjectUpdate {
        slug: String::new(),
        reach: vec!["made-by-agent".into()],
        ..Default::default()
    }))
    .await
    .unwrap();
    let (text, is_error) = call(
        &mut c,
        &token,
        "create_project",
        json!({"slug": "made-by-agent"}),
    )
    .await;
    assert!(!is_error, "{text}");
    let Reply::Projects(p) = c.request(Request::ProjectList).await.unwrap() else {
        panic!("not projects")
    };
    assert!(p.projects.iter().any(|p| p.slug == "made-by-agent"));
    d.stop().await.unwrap();
}

#[tokio::test]
async fn send_file_shows_a_text_file_inline_in_the_chat() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, "hello").await;
    c.frames_until_complete(&sent.session_id).await;
    settled(&mut c, &sent.session_id, 2).await;
    let token = token_of(&mcp_config_of(&d, &sent.session_id).unwrap());
    std::fs::write(
        d.cfg.data_dir.join("workspace/work/notes.md"),
        "# Findings\nthe cache is cold\n",
    )
    .unwrap();
    c.request(Request::ChatSubscribe(paddock_proto::ChatSubscribe {
        session_id: sent.session_id.clone(),
        want_replay: false,
        last_seq: None,
    }))
    .await
    .unwrap();
    let Reply::AgentResult(r) = c
        .request(Request::AgentCall(AgentCall {
            token,
            server: "paddock".into(),
            tool: "send_file".into(),
            arguments: json!({"path": "notes.md"}),
            tool_use_id: None,
        }))
        .await
        .unwrap()
    else {
        panic!("not a result")
    };
    assert!(!r.is_error, "{}", r.text);
    let notice = tokio::time::timeout(DEADLINE, async {
        loop {
            if let paddock_proto::ServerMessage::Frame(f) = c.next().await
                && let ChatEvent::Notice(n) = f.event
            {
                return n;
            }
        }
    })
    .await
    .expect("the file is shown in the chat");
    assert!(
        notice.message.contains("notes.md") && notice.message.contains("the cache is cold"),
        "{}",
        notice.message
    );
    // What was shown is kept as an immutable snapshot, fetched by the id the result names.
    let result: Value = serde_json::from_str(&r.text).unwrap();
    let snapshot = result["snapshot"]
        .as_str()
        .expect("a snapshot id")
        .to_owned();
    assert!(notice.message.contains(&snapshot), "{}", notice.message);
    std::fs::write(
        d.cfg.data_dir.join("workspace/work/notes.md"),
        "changed later\n",
    )
    .unwrap();
    let Reply::Attachment(a) = c
        .request(Request::AttachmentGet(paddock_proto::AttachmentRef {
            attachment_id: snapshot,
        }))
        .await
        .unwrap()
    else {
        panic!("not an attachment")
    };
    assert_eq!(a.file_kind, "markdown");
    assert_eq!(a.size, 29);
    assert_eq!(
        a.data, "IyBGaW5kaW5ncwp0aGUgY2FjaGUgaXMgY29sZAo=",
        "the snapshot keeps what was shown"
    );
    d.stop().await.unwrap();
}

/// Calls `send_file` (server `paddock`) as the chat `token` names.
async fn send_file(c: &mut RawClient, token: &str, arguments: Value) -> (String, bool) {
    match c
        .request(Request::AgentCall(AgentCall {
            token: token.into(),
            server: "paddock".into(),
            tool: "send_file".into(),
            arguments,
            tool_use_id: None,
        }))
        .await
    {
        Ok(Reply::AgentResult(r)) => (r.text, r.is_error),
        other => panic!("agent:call send_file: {other:?}"),
    }
}

/// The next notice on the connection (subscribed to the chat).
async fn next_notice(c: &mut RawClient) -> String {
    tokio::time::timeout(DEADLINE, async {
        loop {
            if let paddock_proto::ServerMessage::Frame(f) = c.next().await
                && let ChatEvent::Notice(n) = f.event
            {
                return n.message;
            }
        }
    })
    .await
    .expect("a notice in the chat")
}

async fn attachment(c: &mut RawClient, id: &str) -> paddock_proto::Attachment {
    match c
        .request(Request::AttachmentGet(paddock_proto::AttachmentRef {
            attachment_id: id.into(),
        }))
        .await
    {
        Ok(Reply::Attachment(a)) => a,
        other => panic!("attachment:get: {other:?}"),
    }
}

#[tokio::test]
async fn send_file_shows_inline_content_with_its_message_as_a_snapshot() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, "hello").await;
    c.frames_until_complete(&sent.session_id).await;
    settled(&mut c, &sent.session_id, 2).await;
    let token = token_of(&mcp_config_of(&d, &sent.session_id).unwrap());
    c.request(Request::ChatSubscribe(paddock_proto::ChatSubscribe {
        session_id: sent.session_id.clone(),
        want_replay: false,
        last_seq: None,
    }))
    .await
    .unwrap();

    // An inline (virtual) file: nothing on disk, the content is the snapshot.
    let diagram = "graph TD\n  A[request] --> B[cache]\n";
    let (text, is_error) = send_file(
        &mut c,
        &token,
        json!({"content": diagram, "filename": "flow.mmd", "message": "How a request flows."}),
    )
    .await;
    assert!(!is_error, "{text}");
    let result: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(result["source"], "inline");
    assert_eq!(result["kind"], "mermaid");
    assert_eq!(result["filename"], "flow.mmd");
    assert_eq!(result["message"], "How a request flows.");
    let snapshot = result["snapshot"]
        .as_str()
        .expect("a snapshot id")
        .to_owned();
    assert!(snapshot.ends_with(".mmd"), "{snapshot}");
    assert!(!d.cfg.data_dir.join("workspace/work/flow.mmd").exists());
    let notice = next_notice(&mut c).await;
    let first = notice.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!(
            "file flow.mmd ({} bytes, snapshot {snapshot}):",
            diagram.len()
        )
    );
    assert!(notice.contains("> How a request flows."), "{notice}");
    assert!(notice.contains("A[request] --> B[cache]"), "{notice}");
    let kept = attachment(&mut c, &snapshot).await;
    assert_eq!(kept.size, diagram.len() as u64);
    use base64::Engine as _;
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(&kept.data)
            .unwrap(),
        diagram.as_bytes()
    );

    // A real file by the reference's names (file_path, filename, kind, language).
    std::fs::write(
        d.cfg.data_dir.join("workspace/work/calc.txt"),
        "fn add() {}\n",
    )
    .unwrap();
    let (text, is_error) = send_file(
        &mut c,
        &token,
        json!({"file_path": "calc.txt", "filename": "calc.rs", "kind": "code", "language": "rust"}),
    )
    .await;
    assert!(!is_error, "{text}");
    let result: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (&result["source"], &result["kind"], &result["language"]),
        (&json!("file"), &json!("code"), &json!("rust"))
    );
    assert_eq!(result["shown"], "calc.rs");
    let notice = next_notice(&mut c).await;
    assert!(
        notice.starts_with("file calc.rs (12 bytes, snapshot "),
        "{notice}"
    );

    // Refusals the model can correct.
    for (args, says) in [
        (json!({"filename": "x.md"}), "content"),
        (json!({"content": "xx", "filename": "x.png"}), "file_path"),
        (json!({"content": "xx", "kind": "slides"}), "not one of"),
        (json!({"file_path": "missing.txt"}), "missing.txt"),
    ] {
        let (text, is_error) = send_file(&mut c, &token, args.clone()).await;
        assert!(is_error && text.contains(says), "{args}: {text}");
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_child_created_with_preloaded_context_starts_from_the_projects_overview() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    c.request(Request::ProjectCreate(paddock_proto::ProjectCreate {
        slug: "web".into(),
        path: None,
        ..Default::default()
    }))
    .await
    .unwrap();
    let meta = d.cfg.data_dir.join("projects/web");
    std::fs::write(
        meta.join("OVERVIEW.md"),
        "# Web\nThe database is Postgres.\n",
    )
    .unwrap();
    std::fs::write(
        meta.join("CHANGELOG.md"),
        "# Changelog\n- Chose Postgres over SQLite.\n",
    )
    .unwrap();
    let root = c.send_turn("web", None, "manager").await;
    c.frames_until_complete(&root.session_id).await;
    let token = token_of(&mcp_config_of(&d, &root.session_id).unwrap());

    let (text, is_error) = call(
        &mut c,
        &token,
        "create_chat",
        json!({"prompt": "Add an index on users.email", "preloadContext": true}),
    )
    .await;
    assert!(!is_error, "{text}");
    let child = session_of(&text);
    let settled_row = settled_in(&mut c, "web", &child).await;
    // The title is the request, not the context.
    assert_eq!(settled_row.title, "Add an index on users.email");
    let Reply::Transcript(t) = c
        .request(Request::ChatTranscript(SessionRef {
            session_id: child.clone(),
        }))
        .await
        .unwrap()
    else {
        panic!("not a transcript")
    };
    let first = t
        .entries
        .iter()
        .find_map(|e| match e {
            TranscriptEntry::User { text, .. } => Some(text.clone()),
            _ => None,
        })
        .expect("a first prompt");
    assert_eq!(
        first,
        "<project-context>\n# Web\nThe database is Postgres.\n\n# Changelog\n- Chose Postgres over SQLite.\n</project-context>\n\nMy request:\nAdd an index on users.email"
    );
    d.stop().await.unwrap();
}

async fn list_in(c: &mut RawClient, project: &str) -> Vec<ChatSummary> {
    match c
        .request(Request::ChatList(ChatList {
            project_slug: Some(project.into()),
            scope: ChatScope::All,
            since: None,
            full_titles: false,
        }))
        .await
    {
        Ok(Reply::Chats(chats)) => chats.chats,
        other => panic!("chat:list: {other:?}"),
    }
}

/// Waits until `session` of `project` is listed, idle, with its reply.
async fn settled_in(c: &mut RawClient, project: &str, session: &str) -> ChatSummary {
    tokio::time::timeout(DEADLINE, async {
        loop {
            if let Some(chat) = list_in(c, project)
                .await
                .into_iter()
                .find(|x| x.session_id == session && !x.running && x.message_count >= 2)
            {
                return chat;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("chat {session} never settled"))
}

#[tokio::test]
async fn send_file_still_works_with_attachments_turned_off() {
    // attachments_enabled gates what a person uploads, not what an agent shows.
    let d = daemon(|c| c.attachments.enabled = false).await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, "hello").await;
    c.frames_until_complete(&sent.session_id).await;
    settled(&mut c, &sent.session_id, 2).await;
    let token = token_of(&mcp_config_of(&d, &sent.session_id).unwrap());
    let (text, is_error) = send_file(
        &mut c,
        &token,
        json!({"content": "# Notes\n", "filename": "notes.md"}),
    )
    .await;
    assert!(!is_error, "{text}");
    let result: Value = serde_json::from_str(&text).unwrap();
    let snapshot = result["snapshot"].as_str().expect("a snapshot id");
    assert_eq!(attachment(&mut c, snapshot).await.size, 8);
    d.stop().await.unwrap();
}

async fn history(c: &mut RawClient) -> paddock_proto::History {
    match c
        .request(Request::HistoryList(paddock_proto::HistoryList {
            project_slug: None,
            unattended: false,
            limit: None,
        }))
        .await
    {
        Ok(Reply::History(h)) => h,
        other => panic!("history:list: {other:?}"),
    }
}

#[tokio::test]
async fn create_chats_name_is_the_childs_title_in_the_list_and_history() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let root = c.send_turn("", None, "manager").await;
    c.frames_until_complete(&root.session_id).await;
    let token = token_of(&mcp_config_of(&d, &root.session_id).unwrap());
    let (text, is_error) = call(
        &mut c,
        &token,
        "create_chat",
        json!({"prompt": "look into the flaky login test", "name": "Login flake"}),
    )
    .await;
    assert!(!is_error, "{text}");
    let child = session_of(&text);
    let row = settled(&mut c, &child, 2).await;
    assert_eq!(row.title, "Login flake", "ls and the tree show the name");
    let runs = history(&mut c).await.runs;
    let run = runs.iter().find(|r| r.session_id == child).unwrap();
    assert_eq!(run.title, "Login flake", "History shows the name");
    d.stop().await.unwrap();
}

/// The chat `root` (with `root_token`) spawns "child task", which sends it "report: all done";
/// returns once both have settled. The child's session id.
async fn child_reports_back(
    d: &TestDaemon,
    c: &mut RawClient,
    root_token: &str,
    root: &str,
) -> String {
    let (text, _) = call(
        c,
        root_token,
        "create_chat",
        json!({"prompt": "child task"}),
    )
    .await;
    let child = session_of(&text);
    settled(c, &child, 2).await;
    let child_token = token_of(&mcp_config_of(d, &child).unwrap());
    let (text, is_error) = call(
        c,
        &child_token,
        "send_message",
        json!({"sessionId": root, "message": "report: all done"}),
    )
    .await;
    assert!(!is_error, "{text}");
    settled(c, root, 4).await;
    child
}

#[tokio::test]
async fn a_message_a_child_sends_its_parent_is_in_history_as_sent_by_the_child() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let root = c.send_turn("", None, "manager").await;
    c.frames_until_complete(&root.session_id).await;
    let root_token = token_of(&mcp_config_of(&d, &root.session_id).unwrap());
    let child = child_reports_back(&d, &mut c, &root_token, &root.session_id).await;
    let runs = history(&mut c).await.runs;
    let report = runs
        .iter()
        .find(|r| {
            r.session_id == root.session_id && r.prompt.as_deref() == Some("report: all done")
        })
        .unwrap_or_else(|| panic!("the report's run: {runs:?}"));
    // On the wire: who sent it, as the transcript's attribution says it.
    let wire = serde_json::to_value(report).unwrap();
    assert_eq!(wire["attribution"]["kind"], "sent", "{wire}");
    assert_eq!(
        wire["attribution"]["fromSessionId"],
        child.as_str(),
        "{wire}"
    );
    assert_eq!(wire["attribution"]["fromTitle"], "child task", "{wire}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn while_you_were_away_leaves_out_runs_of_a_chat_open_in_a_client() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let root = c.send_turn("", None, "manager").await;
    c.frames_until_complete(&root.session_id).await;
    let root_token = token_of(&mcp_config_of(&d, &root.session_id).unwrap());
    // A second client has the manager open while its child reports back.
    let mut watcher = d.client().await;
    watcher
        .request(Request::ChatSubscribe(paddock_proto::ChatSubscribe {
            session_id: root.session_id.clone(),
            want_replay: false,
            last_seq: None,
        }))
        .await
        .unwrap();
    let child = child_reports_back(&d, &mut c, &root_token, &root.session_id).await;
    let h = history(&mut c).await;
    let report = h
        .runs
        .iter()
        .find(|r| r.prompt.as_deref() == Some("report: all done"))
        .unwrap();
    assert!(
        !report.is_new,
        "it ran in a chat open in a client: {report:?}"
    );
    let kickoff = h.runs.iter().find(|r| r.session_id == child).unwrap();
    assert!(kickoff.is_new, "nobody had the child open: {kickoff:?}");
    assert_eq!(h.new_unattended, 1, "{h:#?}");
    d.stop().await.unwrap();
}

/// A secret beside the daemon's folders, outside every project.
fn outside_secret(d: &TestDaemon) -> std::path::PathBuf {
    let outside = d.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, "root:x:0:0:not yours\n").unwrap();
    secret
}

/// The `--mcp-config` file the daemon wrote for `session`'s process.
fn mcp_config_file_of(d: &TestDaemon, session: &str) -> String {
    d.fake_argvs()
        .into_iter()
        .rev()
        .find_map(|argv| {
            if !argv.iter().any(|a| a == session) {
                return None;
            }
            let at = argv.iter().position(|a| a == "--mcp-config")?;
            argv.get(at + 1).cloned()
        })
        .expect("an --mcp-config file")
}

#[tokio::test]
async fn send_file_reads_nothing_outside_the_project_unasked_nor_paddockds_own_state() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let mine = c.send_turn("", None, "hello").await;
    c.frames_until_complete(&mine.session_id).await;
    let other = c.send_turn("", None, "another chat").await;
    c.frames_until_complete(&other.session_id).await;
    let token = token_of(&mcp_config_of(&d, &mine.session_id).unwrap());
    let other_file = mcp_config_file_of(&d, &other.session_id);
    let other_token = token_of(&mcp_config_of(&d, &other.session_id).unwrap());
    let secret = outside_secret(&d);
    // The root workspace's agents run in <data>/workspace/work; the secret is three folders up.
    let workspace = d.cfg.data_dir.join("workspace/work");
    std::os::unix::fs::symlink(&secret, workspace.join("pwlink")).unwrap();
    let secret = secret.to_string_lossy().into_owned();
    for (path, says) in [
        (secret.as_str(), "outside"),
        ("../../../outside/secret.txt", "outside"),
        ("pwlink", "outside"),
        (other_file.as_str(), "paddockd's own state"),
    ] {
        let (text, is_error) = send_file(&mut c, &token, json!({ "file_path": path })).await;
        assert!(is_error, "{path} was sent: {text}");
        assert!(text.contains(says), "{path}: {text}");
        assert!(
            !text.contains("not yours") && !text.contains(&other_token),
            "{path}: {text}"
        );
    }
    d.stop().await.unwrap();
}

async fn pending_approvals(c: &mut RawClient, n: usize) -> Vec<paddock_proto::Approval> {
    tokio::time::timeout(DEADLINE, async {
        loop {
            let Ok(Reply::Approvals(a)) = c.request(Request::ApprovalList).await else {
                panic!("approval:list failed")
            };
            if a.approvals.len() == n {
                return a.approvals;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("never {n} pending approvals"))
}

async fn allow(c: &mut RawClient, id: &str) {
    c.request(Request::ApprovalAnswer(paddock_proto::ApprovalAnswer {
        ids: vec![id.to_owned()],
        decision: paddock_proto::ApprovalDecision::Allow,
        message: None,
    }))
    .await
    .expect("answered");
}

#[tokio::test]
async fn send_file_outside_the_project_goes_through_the_approvals_inbox() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let secret = outside_secret(&d).to_string_lossy().into_owned();
    let state = d.cfg.data_dir.join("state/runs.jsonl");
    let state = state.to_string_lossy().into_owned();
    // The CLI asks can_use_tool before each MCP call; the second call's tool then runs until
    // the turn is cancelled, the way a call waits for the bridge.
    let script = format!(
        "fake:{}",
        json!([
            {"tool": "mcp__paddock__send_file", "input": {"file_path": state}, "ask": true, "output": "x"},
            {"tool": "mcp__paddock__send_file", "input": {"file_path": secret}, "ask": true, "hang": true},
        ])
    );
    let sent = c.send_turn("", None, &script).await;

    // paddockd's own state is denied without asking anyone, and never read.
    let asked = pending_approvals(&mut c, 1).await;
    assert_eq!(asked[0].tool, "mcp__paddock__send_file");
    assert_eq!(
        asked[0].input["file_path"],
        json!(secret),
        "only the outside file is asked"
    );
    let token = token_of(&mcp_config_of(&d, &sent.session_id).unwrap());
    let (text, is_error) = send_file(&mut c, &token, json!({ "file_path": state })).await;
    assert!(is_error && text.contains("paddockd's own state"), "{text}");

    // An outside file: refused until a person allows that call, then sent once.
    assert_eq!(
        asked[0].always_rules,
        vec![format!(
            "mcp__paddock__send_file({})",
            std::fs::canonicalize(&secret).unwrap().display()
        )],
        "always allows that file, not its folder"
    );
    let (text, is_error) = send_file(&mut c, &token, json!({ "file_path": secret })).await;
    assert!(is_error && text.contains("approv"), "{text}");
    assert!(!text.contains("not yours"), "{text}");
    allow(&mut c, &asked[0].id).await;
    let (text, is_error) = send_file(&mut c, &token, json!({ "file_path": secret })).await;
    assert!(!is_error, "{text}");
    let result: Value = serde_json::from_str(&text).unwrap();
    let snapshot = result["snapshot"]
        .as_str()
        .expect("a snapshot id")
        .to_owned();
    assert_eq!(attachment(&mut c, &snapshot).await.size, 21);
    let (text, is_error) = send_file(&mut c, &token, json!({ "file_path": secret })).await;
    assert!(is_error, "one approval is one call: {text}");
    c.request(Request::ChatCancel(paddock_proto::ChatCancel {
        session_id: sent.session_id.clone(),
        job_id: None,
    }))
    .await
    .unwrap();
    c.frames_until_complete(&sent.session_id).await;
    d.stop().await.unwrap();
}
