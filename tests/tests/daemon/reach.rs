//! A chat acts within its project: the real Claude Code CLI, scripted by the Messages API
//! stand-in, calls the self-management tools through the real MCP bridge (`paddockd mcp`)
//! naming another project or its chats, and is refused, with nothing done, until a person
//! lets its project reach the other (`reach` in project.toml, `project:update`'s `reach`).

use std::path::PathBuf;
use std::time::Duration;

use paddock_proto::{
    ChatEvent, ChatList, ChatScope, ChatSummary, ProjectCreate, ProjectUpdate, Reply, Request,
    ToolCall,
};
use paddock_tests::mock_api::MockApi;
use serde_json::{Value, json};

use crate::harness::*;
use crate::real_cli::{paddockd_bin, real_daemon};

/// Creates project `slug` with the tool rules `allow`; the directory its agents run in.
async fn project(c: &mut RawClient, slug: &str, allow: &[&str]) -> PathBuf {
    let Ok(Reply::Project(p)) = c
        .request(Request::ProjectCreate(ProjectCreate {
            slug: slug.into(),
            ..Default::default()
        }))
        .await
    else {
        panic!("project {slug} not created")
    };
    if !allow.is_empty() {
        update(
            c,
            ProjectUpdate {
                slug: slug.into(),
                allow: allow.iter().map(|r| (*r).to_owned()).collect(),
                ..Default::default()
            },
        )
        .await;
    }
    PathBuf::from(p.path)
}

async fn update(c: &mut RawClient, u: ProjectUpdate) {
    c.request(Request::ProjectUpdate(u))
        .await
        .expect("project updated");
}

async fn chats(c: &mut RawClient, slug: &str) -> Vec<ChatSummary> {
    match c
        .request(Request::ChatList(ChatList {
            project_slug: Some(slug.into()),
            scope: ChatScope::All,
            since: None,
            full_titles: false,
        }))
        .await
    {
        Ok(Reply::Chats(list)) => list.chats,
        other => panic!("chat:list: {other:?}"),
    }
}

/// A turn of chat `sid` of `project` in which the model calls paddock's tool `tool` with
/// `args`: the call as the chat saw it.
async fn tool_turn(
    c: &mut RawClient,
    project: &str,
    sid: &str,
    tool: &str,
    args: Value,
) -> ToolCall {
    let turn = c
        .send_turn(
            project,
            Some(sid),
            &format!("mock:tool mcp__paddock_manage__{tool} {args}"),
        )
        .await;
    let frames = c.frames_until_complete(&turn.session_id).await;
    frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::ToolCall(t) => Some(t.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{tool}: no tool call in {frames:#?}"))
}

/// A person's chat in `project` that has run one turn.
async fn person_chat(c: &mut RawClient, project: &str) -> String {
    let sent = c.send_turn(project, None, "hello").await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    sent.session_id
}

/// The file a Bash call of [`bash_leaving`] leaves, in the directory it runs in.
const MARKER: &str = "pwned-by-the-child";

/// A Bash call that leaves [`MARKER`] behind, as a model's reply.
fn bash_leaving() -> String {
    let bash = json!({"command": format!("touch {MARKER}"), "description": "Mark"});
    format!("mock:tool Bash {bash}")
}

/// The finding: an agent of `web` (which may not run Bash) asked for a chat in `secret`
/// (whose rules allow Bash), and that child ran Bash unasked. Now every tool that names
/// another project or its chat is refused, saying who can allow it and how, and nothing
/// happens in `secret`; once a person sets `web`'s reach, the same call works.
#[tokio::test]
async fn real_cli_agent_tools_stay_in_their_project_until_a_person_sets_its_reach() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| {
        c.mcp_bin = Some(paddockd_bin());
        c.hooks_mcp = true;
    })
    .await;
    let mut c = d.client().await;
    project(&mut c, "web", &["Write(**)"]).await;
    let marker = project(&mut c, "secret", &["Bash"]).await.join(MARKER);
    let secret_chat = person_chat(&mut c, "secret").await;
    let web_chat = person_chat(&mut c, "web").await;

    let how = "paddock project set web --reach secret";
    for (tool, args) in [
        (
            "create_chat",
            json!({"project": "secret", "prompt": bash_leaving()}),
        ),
        (
            "send_message",
            json!({"sessionId": secret_chat, "message": bash_leaving()}),
        ),
        ("read_chat", json!({"sessionId": secret_chat})),
        (
            "fork_chat",
            json!({"sessionId": secret_chat, "prompt": "go"}),
        ),
        ("archive_chat", json!({"sessionId": secret_chat})),
        ("list_chats", json!({"project": "secret"})),
        (
            "set_trigger",
            json!({"project": "secret", "name": "x", "kind": "hook", "on": "manual",
                   "prompt": bash_leaving()}),
        ),
    ] {
        let call = tool_turn(&mut c, "web", &web_chat, tool, args).await;
        assert!(call.is_error, "{tool} across projects: {}", call.output);
        assert!(
            call.output.contains("project `secret`") && call.output.contains(how),
            "{tool}: the refusal says why and who can allow it: {}",
            call.output
        );
        assert!(
            !call.output.contains("echo: hello"),
            "{tool}: nothing of secret's chat is shown: {}",
            call.output
        );
    }
    // Nothing happened in secret: no chat, no fork, no turn, not archived, no trigger.
    let rows = chats(&mut c, "secret").await;
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0].session_id, secret_chat);
    assert!(!rows[0].archived && rows[0].message_count == 2, "{rows:#?}");
    let Reply::Triggers(triggers) = c
        .request(Request::TriggerList(paddock_proto::TriggerList {
            project_slug: Some("secret".into()),
        }))
        .await
        .unwrap()
    else {
        panic!("not triggers")
    };
    assert!(triggers.triggers.is_empty(), "{triggers:#?}");
    assert!(!marker.exists(), "a Bash call ran under secret's rules");
    // list_projects lists only what web reaches.
    let listed = tool_turn(&mut c, "web", &web_chat, "list_projects", json!({})).await;
    assert!(
        !listed.is_error && listed.output.contains("\"web\"") && !listed.output.contains("secret"),
        "{}",
        listed.output
    );

    // A person lets web reach secret: the same call starts the child there, under its rules.
    update(
        &mut c,
        ProjectUpdate {
            slug: "web".into(),
            reach: vec!["secret".into()],
            ..Default::default()
        },
    )
    .await;
    let call = tool_turn(
        &mut c,
        "web",
        &web_chat,
        "create_chat",
        json!({"project": "secret", "prompt": bash_leaving()}),
    )
    .await;
    assert!(!call.is_error, "{}", call.output);
    let child: Value = serde_json::from_str(&call.output).unwrap();
    assert_eq!(child["project"], "secret", "{child}");
    paddock_tests::wait::wait_until("the child's Bash call", Duration::from_secs(60), || {
        marker.exists().then_some(())
    })
    .await
    .unwrap();
    let read = tool_turn(
        &mut c,
        "web",
        &web_chat,
        "read_chat",
        json!({"sessionId": secret_chat}),
    )
    .await;
    assert!(
        !read.is_error && read.output.contains("echo: hello"),
        "{}",
        read.output
    );
    d.stop().await.unwrap();
}

/// A chat of `project` that has run one turn (with the fake CLI), and its paddock token.
async fn chat_with_token(d: &TestDaemon, c: &mut RawClient, project: &str) -> (String, String) {
    let sent = c.send_turn(project, None, "hello").await;
    c.frames_until_complete(&sent.session_id).await;
    let config = crate::agents::mcp_config_of(d, &sent.session_id).expect("--mcp-config");
    (sent.session_id, crate::agents::token_of(&config))
}

fn slugs_listed(text: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    v.as_array()
        .expect("a list")
        .iter()
        .map(|p| p["slug"].as_str().expect("a slug").to_owned())
        .collect()
}

/// Every tool that names a project or a chat, as the MCP bridge calls it: the root workspace
/// is a project like any other, a chat is judged by its project (a prefix of its id names no
/// chat), a project is created only where a person let the chat's project reach, and the
/// setting's `""` and `"*"` work as they read.
#[tokio::test]
async fn agent_tools_reach_only_their_project_and_the_ones_it_lists() {
    let d = crate::agents::daemon(|c| {
        c.hooks_mcp = true;
        c.self_mcp_projects = true;
    })
    .await;
    let mut c = d.client().await;
    project(&mut c, "web", &[]).await;
    project(&mut c, "secret", &[]).await;
    let (root_chat, root) = chat_with_token(&d, &mut c, "").await;
    let (_, web) = chat_with_token(&d, &mut c, "web").await;
    let (secret_chat, _) = chat_with_token(&d, &mut c, "secret").await;
    let call = crate::agents::call;

    let refused = [
        ("read_chat", json!({"sessionId": root_chat}), "''"),
        (
            "unarchive_chat",
            json!({"sessionId": secret_chat}),
            "secret",
        ),
        ("list_triggers", json!({"project": "secret"}), "secret"),
        (
            "remove_trigger",
            json!({"project": "secret", "name": "x"}),
            "secret",
        ),
        (
            "run_trigger",
            json!({"project": "secret", "name": "x"}),
            "secret",
        ),
        (
            "promote_project",
            json!({"project": "secret", "repo": "/nowhere"}),
            "secret",
        ),
        ("create_project", json!({"name": "Api"}), "api"),
        ("create_chat", json!({"project": "", "prompt": "hi"}), "''"),
    ];
    for (tool, args, slug) in refused {
        let (text, is_error) = call(&mut c, &web, tool, args).await;
        let how = format!("paddock project set web --reach {slug}");
        assert!(is_error && text.contains(&how), "{tool}: {text}");
    }
    // The root workspace's chats are held the same way.
    let (text, is_error) = call(
        &mut c,
        &root,
        "create_chat",
        json!({"project": "web", "prompt": "hi"}),
    )
    .await;
    assert!(
        is_error && text.contains("paddock project set '' --reach web"),
        "{text}"
    );
    // A prefix of another project's chat names no chat: nothing is sent.
    let prefix = &secret_chat[..8];
    let (text, is_error) = call(
        &mut c,
        &web,
        "send_message",
        json!({"sessionId": prefix, "message": "hi"}),
    )
    .await;
    assert!(is_error && text.contains("no chat"), "{text}");
    // A name that is no slug is not offered as a command to run.
    let (text, is_error) = call(
        &mut c,
        &web,
        "create_chat",
        json!({"project": "x; rm -rf ~", "prompt": "hi"}),
    )
    .await;
    assert!(is_error && !text.contains("paddock project set"), "{text}");
    // Nothing but a slug is taken for one.
    for name in ["Secret", "secret ", "../secret", "*", "secret\n"] {
        let (text, is_error) = call(&mut c, &web, "list_chats", json!({"project": name})).await;
        assert!(is_error && text.contains("no project"), "{name:?}: {text}");
    }
    let (text, _) = call(&mut c, &web, "list_projects", json!({})).await;
    assert_eq!(slugs_listed(&text), ["web"]);
    assert_eq!(
        chats(&mut c, "secret").await.len(),
        1,
        "nothing was made in secret"
    );
    assert_eq!(
        chats(&mut c, "").await.len(),
        1,
        "nothing was made at the root"
    );

    // The root workspace and a project yet to be made.
    update(
        &mut c,
        ProjectUpdate {
            slug: "web".into(),
            reach: vec!["".into(), "api".into()],
            ..Default::default()
        },
    )
    .await;
    let (text, is_error) = call(&mut c, &web, "read_chat", json!({"sessionId": root_chat})).await;
    assert!(!is_error, "{text}");
    let (text, is_error) = call(&mut c, &web, "create_project", json!({"name": "Api"})).await;
    assert!(!is_error, "{text}");
    let (text, _) = call(&mut c, &web, "list_projects", json!({})).await;
    assert_eq!(slugs_listed(&text), ["", "api", "web"]);
    let (text, is_error) = call(&mut c, &web, "list_chats", json!({"project": "secret"})).await;
    assert!(
        is_error && text.contains("only itself and the root workspace, project `api`"),
        "{text}"
    );

    // "*": every project.
    update(
        &mut c,
        ProjectUpdate {
            slug: "web".into(),
            reach: vec!["*".into()],
            unreach: vec!["api".into()],
            ..Default::default()
        },
    )
    .await;
    let (text, _) = call(&mut c, &web, "list_projects", json!({})).await;
    assert_eq!(slugs_listed(&text), ["", "api", "secret", "web"]);
    let (text, is_error) = call(&mut c, &web, "list_chats", json!({"project": "secret"})).await;
    assert!(!is_error && text.contains(&secret_chat), "{text}");
    d.stop().await.unwrap();
}
