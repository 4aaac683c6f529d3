//! Depth follows the message: a turn started by a chat's message runs at the sender's depth
//! for the depth gate, so a child cannot walk around the gate by messaging its root. The real
//! Claude Code CLI, scripted by the Messages API stand-in, runs the loop of issue 35: a child
//! messages its root, whose turn spawns again, and so on.

use std::time::Duration;

use paddock_proto::{ChatList, ChatScope, ChatSummary, Reply, Request};
use paddock_tests::mock_api::MockApi;

use crate::harness::*;
use crate::real_cli::{paddockd_bin, real_daemon};

pub(crate) async fn chats(c: &mut RawClient, slug: &str) -> Vec<ChatSummary> {
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

/// More chats than this and the loop was not stopped.
const RUNAWAY: usize = 8;

/// The finding: the root, messaged by its child, spawned again at depth 1, and so on (87
/// chats in 40 s). Now the root's turn runs at its sender's depth (1), so the chat it
/// spawns is at depth 2, past the default limit: that child has no self-management tools,
/// its message back is refused by the CLI, and the loop stops at three chats.
#[tokio::test]
async fn real_cli_a_child_messaging_its_root_does_not_spawn_without_end() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| c.mcp_bin = Some(paddockd_bin())).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "hello").await;
    let root = first.session_id.clone();
    c.frames_until_complete(&root).await;
    let turn = c
        .send_turn("", Some(&root), &format!("mock:loop-spawn {root}"))
        .await;
    c.frames_until_complete(&turn.session_id).await;

    // Poll until the loop settles: a chat at depth 2 exists and nothing runs.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    let rows = loop {
        let rows = chats(&mut c, "").await;
        assert!(
            rows.len() <= RUNAWAY,
            "the loop did not stop: {} chats: {:#?}",
            rows.len(),
            rows.iter()
                .map(|r| (&r.session_id, r.depth, &r.parent_session_id))
                .collect::<Vec<_>>()
        );
        if rows.iter().any(|r| r.depth == 2) && rows.iter().all(|r| !r.running) {
            break rows;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the loop never settled: {rows:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut depths: Vec<(u32, Option<&str>)> = rows
        .iter()
        .map(|r| (r.depth, r.parent_session_id.as_deref()))
        .collect();
    depths.sort_unstable();
    assert_eq!(
        depths,
        [
            (0, None),
            (1, Some(root.as_str())),
            (2, Some(root.as_str()))
        ],
        "the root, its child, and the chat the root's messaged turn spawned (the tree still \
         shows who made it): {rows:#?}"
    );
    // The last child got no self-management tools: its send_message never reached the root,
    // whose last turn is the one the first child's message started.
    let deepest = rows.iter().find(|r| r.depth == 2).unwrap();
    let show = match c
        .request(Request::ChatTranscript(paddock_proto::SessionRef {
            session_id: deepest.session_id.clone(),
        }))
        .await
    {
        Ok(Reply::Transcript(t)) => t,
        other => panic!("transcript: {other:?}"),
    };
    let tool_results: Vec<String> = show
        .entries
        .iter()
        .filter_map(|e| match e {
            paddock_proto::TranscriptEntry::ToolResult {
                output, is_error, ..
            } => Some(format!("{is_error}: {output}")),
            _ => None,
        })
        .collect();
    assert!(
        tool_results.iter().all(|r| r.starts_with("true")),
        "the depth-2 child's send_message was not run: {tool_results:#?}"
    );
    d.stop().await.unwrap();
}

/// The approvals pending now.
async fn pending(c: &mut RawClient) -> Vec<paddock_proto::Approval> {
    match c.request(Request::ApprovalList).await {
        Ok(Reply::Approvals(a)) => a.approvals,
        other => panic!("approval:list: {other:?}"),
    }
}

/// Polls until one approval is pending: it.
async fn one_pending(c: &mut RawClient) -> paddock_proto::Approval {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let mut now = pending(c).await;
        if let Some(a) = now.pop() {
            return a;
        }
        assert!(tokio::time::Instant::now() < deadline, "no approval came");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Past the cap a tree's next `create_chat` waits in the inbox as a `cap` approval; allowing
/// it lifts the cap and the chat is made; denying the next one gives the agent an error.
#[tokio::test]
async fn real_cli_past_the_tree_cap_a_create_chat_waits_for_a_person() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| {
        c.mcp_bin = Some(paddockd_bin());
        c.tree_chats_per_minute = 2;
    })
    .await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "hello").await;
    let root = first.session_id.clone();
    c.frames_until_complete(&root).await;
    let create = r#"mock:tool mcp__paddock_manage__create_chat {"prompt": "hi"}"#;
    for _ in 0..2 {
        let t = c.send_turn("", Some(&root), create).await;
        c.frames_until_complete(&t.session_id).await;
    }
    assert_eq!(chats(&mut c, "").await.len(), 3);
    assert!(pending(&mut c).await.is_empty());

    // The third waits; a person allows it: the chat is made.
    let t = c.send_turn("", Some(&root), create).await;
    let a = one_pending(&mut c).await;
    assert_eq!(a.kind, paddock_proto::ApprovalKind::Cap, "{a:#?}");
    assert_eq!(
        a.preview.as_deref(),
        Some("paused: the tree hit its cap (2 chats created in the last minute, limit 2)")
    );
    assert_eq!(a.session_id, root);
    c.request(Request::ApprovalAnswer(paddock_proto::ApprovalAnswer {
        ids: vec![a.id.clone()],
        decision: paddock_proto::ApprovalDecision::Allow,
        message: None,
    }))
    .await
    .unwrap();
    c.frames_until_complete(&t.session_id).await;
    assert_eq!(chats(&mut c, "").await.len(), 4, "allowed: made");

    // The lift counted that one: one more is made, the next waits, and is denied.
    let t = c.send_turn("", Some(&root), create).await;
    c.frames_until_complete(&t.session_id).await;
    assert_eq!(chats(&mut c, "").await.len(), 5);
    let t = c.send_turn("", Some(&root), create).await;
    let a = one_pending(&mut c).await;
    c.request(Request::ApprovalAnswer(paddock_proto::ApprovalAnswer {
        ids: vec![a.id],
        decision: paddock_proto::ApprovalDecision::Deny,
        message: Some("enough".into()),
    }))
    .await
    .unwrap();
    let frames = c.frames_until_complete(&t.session_id).await;
    let call = frames
        .iter()
        .find_map(|f| match &f.event {
            paddock_proto::ChatEvent::ToolCall(t) => Some(t.clone()),
            _ => None,
        })
        .expect("the tool call");
    assert!(
        call.is_error
            && call.output.contains("paused: the tree hit its cap")
            && call.output.contains("enough"),
        "{call:#?}"
    );
    assert_eq!(chats(&mut c, "").await.len(), 5, "denied: nothing made");
    d.stop().await.unwrap();
}

/// A loop through a hook: a hook on `turn_completed` starts a new chat that messages a
/// person's chat, whose turn's end fires the hook again. Each new chat was a tree of its own
/// and the hook's fire was counted nowhere, so the loop went on without end. Now the hook's
/// fire counts against the tree of the turn that set it off, its chat works in that tree,
/// and past the cap the fire waits in the inbox on the chat that set it off. (X's messaged
/// turn is slow, so the hook's chat has ended when X's turn ends and the fire is not skipped.)
#[tokio::test]
async fn real_cli_a_loop_through_a_hook_stops_at_the_tree_cap() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| {
        c.mcp_bin = Some(paddockd_bin());
        c.tree_turns_per_minute = 4;
    })
    .await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "hello").await;
    let x = first.session_id.clone();
    c.frames_until_complete(&x).await;
    let prompt = format!(
        r#"mock:tool mcp__paddock_manage__send_message {{"sessionId": "{x}", "message": "mock:slow 5"}}"#
    );
    let set = c
        .request(Request::TriggerSet(Box::new(paddock_proto::TriggerSet {
            project_slug: String::new(),
            name: "loop".into(),
            spec: serde_json::from_value(serde_json::json!({
                "kind": "hook", "on": "turn_completed", "session": "new", "prompt": prompt,
            }))
            .unwrap(),
        })))
        .await;
    assert!(matches!(set, Ok(Reply::Trigger(_))), "{set:?}");

    // A person's turn ends: the hook fires (1), its chat messages X (2), X's turn ends: the
    // hook fires (3), its chat messages X (4), X's turn ends: the third fire is past the cap.
    let t = c.send_turn("", Some(&x), "hi").await;
    c.frames_until_complete(&t.session_id).await;
    let a = tokio::time::timeout(Duration::from_secs(120), async {
        loop {
            let rows = chats(&mut c, "").await;
            assert!(
                rows.len() <= RUNAWAY,
                "the loop did not stop: {} chats",
                rows.len()
            );
            if let Some(a) = pending(&mut c).await.pop() {
                return a;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the hook's loop reached no cap");
    assert_eq!(a.kind, paddock_proto::ApprovalKind::Cap, "{a:#?}");
    assert_eq!(a.tool, "hook loop", "{a:#?}");
    assert_eq!(a.session_id, x, "on the chat whose turn set it off");
    assert_eq!(
        a.preview.as_deref(),
        Some("paused: the tree hit its cap (4 machine-started turns in the last minute, limit 4)")
    );
    let rows = chats(&mut c, "").await;
    assert_eq!(rows.len(), 3, "X and the hook's two chats: {rows:#?}");

    // Denied: nothing more runs, and the run log says the fire was skipped.
    c.request(Request::ApprovalAnswer(paddock_proto::ApprovalAnswer {
        ids: vec![a.id],
        decision: paddock_proto::ApprovalDecision::Deny,
        message: None,
    }))
    .await
    .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let runs = match c
            .request(Request::HistoryList(paddock_proto::HistoryList {
                project_slug: None,
                unattended: false,
                limit: Some(100),
            }))
            .await
        {
            Ok(Reply::History(h)) => h.runs,
            other => panic!("history:list: {other:?}"),
        };
        if runs.iter().any(|r| {
            r.trigger.as_deref() == Some("loop")
                && r.status == paddock_proto::RunStatus::Skipped
                && r.session_id == x
        }) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no skipped fire: {runs:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(chats(&mut c, "").await.len(), 3, "denied: no chat made");
    assert!(pending(&mut c).await.is_empty());
    d.stop().await.unwrap();
}

/// A new chat whose first turn messages another names itself in the turn it sent: "↩ sent by
/// <its first prompt>", not its bare id, though its own transcript is not written yet (issue
/// 36, from the hand walk: `paddock show` and the TUI said `sent by 94f4e9cc-…`).
#[tokio::test]
async fn real_cli_a_new_chats_message_names_its_sender_by_title() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| c.mcp_bin = Some(paddockd_bin())).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "the receiving chat").await;
    let x = first.session_id.clone();
    c.frames_until_complete(&x).await;
    let prompt = format!(
        r#"mock:tool mcp__paddock_manage__send_message {{"sessionId": "{x}", "message": "a word from the sender"}}"#
    );
    let y = c.send_turn("", None, &prompt).await;
    c.frames_until_complete(&y.session_id).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let attribution = loop {
        let Ok(Reply::Transcript(t)) = c
            .request(Request::ChatTranscript(paddock_proto::SessionRef {
                session_id: x.clone(),
            }))
            .await
        else {
            panic!("no transcript")
        };
        let sent = t.entries.iter().find_map(|e| match e {
            paddock_proto::TranscriptEntry::User {
                attribution: Some(a @ paddock_proto::Attribution::Sent { .. }),
                ..
            } => Some(a.clone()),
            _ => None,
        });
        if let Some(sent) = sent {
            break sent;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no sent turn in X: {t:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let paddock_proto::Attribution::Sent { from_title, .. } = attribution else {
        unreachable!()
    };
    assert!(
        from_title
            .as_deref()
            .is_some_and(|t| t.starts_with("mock:tool mcp__paddock_manage__send_message")),
        "{from_title:?}"
    );
    d.stop().await.unwrap();
}
