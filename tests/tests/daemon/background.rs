//! Background Agent calls (docs/claude-cli.md §12): the CLI ends the turn at once, then runs
//! one more turn by itself when the task finishes. paddockd turns that output into an
//! unprompted, daemon-started turn (a job, `chat:active`, frames to every subscriber, a run,
//! unread), and keeps the process alive for it: no batch stop, no idle reaping meanwhile.

use std::time::Duration;

use paddock_proto::{
    Active, AttentionKind, ChatAction, ChatEvent, ChatList, ChatScope, ChatSetQueue, ChatSubscribe,
    ChatUpdate, ControlMessage, ErrorCode, HistoryList, Origin, Reply, Request, RunStatus,
    RunSummary, ServerMessage,
};

use crate::harness::*;

/// A turn that launches a background task finishing `delay_ms` later, then says `started`.
fn launching(description: &str, delay_ms: u64, reply_delay_ms: u64) -> String {
    format!(
        "fake:{}",
        serde_json::json!([
            {"background": description, "delay_ms": delay_ms, "reply_delay_ms": reply_delay_ms},
            {"text": "started"}
        ])
    )
}

/// The `chat:active` messages of `session` among `messages`.
fn actives_in(messages: &[ServerMessage], session: &str) -> Vec<Active> {
    messages
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Control(ControlMessage::Active(a)) if a.session_id == session => {
                Some(a.clone())
            }
            _ => None,
        })
        .collect()
}

async fn history(c: &mut RawClient) -> Vec<RunSummary> {
    match c
        .request(Request::HistoryList(HistoryList {
            project_slug: None,
            unattended: false,
            limit: None,
        }))
        .await
        .unwrap()
    {
        Reply::History(h) => h.runs,
        other => panic!("history: {other:?}"),
    }
}

async fn unread(c: &mut RawClient, project: &str, session: &str) -> bool {
    let Reply::Chats(list) = c
        .request(Request::ChatList(ChatList {
            project_slug: Some(project.into()),
            scope: ChatScope::All,
            since: None,
            full_titles: false,
        }))
        .await
        .unwrap()
    else {
        panic!("not chats")
    };
    list.chats
        .into_iter()
        .find(|x| x.session_id == session)
        .is_some_and(|x| x.unread)
}

async fn live_processes(c: &mut RawClient) -> u32 {
    match c.request(Request::DaemonStatus).await.unwrap() {
        Reply::Status(s) => s.live_processes,
        other => panic!("daemon:status: {other:?}"),
    }
}

/// Polls until no `claude` process is alive.
async fn none_alive(c: &mut RawClient) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while live_processes(c).await > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "a claude process is still alive"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// The fake processes started for `session`.
fn processes_of(d: &TestDaemon, session: &str) -> usize {
    d.fake_argvs()
        .into_iter()
        .filter(|argv| argv.iter().any(|a| a == session))
        .count()
}

#[tokio::test]
async fn the_turn_claude_runs_after_a_background_task_streams_to_subscribers_and_is_recorded() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let first = c
        .send_turn("", None, &launching("scan the repo", 600, 0))
        .await;
    let sid = first.session_id.clone();
    let frames = c.frames_until_complete(&sid).await;
    assert!(complete_of(&frames).success);
    assert_eq!(text_of(&frames), "started");
    assert!(
        frames.iter().any(|f| matches!(&f.event,
            ChatEvent::ToolCall(t) if t.name == "Agent")),
        "the Agent call's async result ends its tool call: {frames:?}"
    );

    // A second client attaches between the turns; the chat is read.
    let mut tail = d.client().await;
    tail.request(Request::ChatSubscribe(ChatSubscribe {
        session_id: sid.clone(),
        want_replay: false,
        last_seq: None,
    }))
    .await
    .unwrap();
    c.request(Request::ChatUpdate(ChatUpdate {
        session_ids: vec![sid.clone()],
        action: ChatAction::Read,
    }))
    .await
    .unwrap();

    // The task finishes: claude's own turn reaches both subscribers, under a new job.
    let second = c.frames_until_complete(&sid).await;
    let done = complete_of(&second);
    assert!(done.success, "{done:?}");
    assert_eq!(text_of(&second), "background done: scan the repo");
    let job = &second[0].routing.job_id;
    assert_ne!(job, &first.job_id, "a turn of its own");
    assert!(second.iter().all(|f| &f.routing.job_id == job));
    assert!(
        second.iter().any(|f| matches!(&f.event,
            ChatEvent::Notice(n) if n.message.contains("scan the repo"))),
        "the stream says why the chat runs: {second:?}"
    );
    assert!(
        !second.iter().any(|f| matches!(f.event, ChatEvent::User(_))),
        "no user message"
    );
    let tailed = tail.frames_until_complete(&sid).await;
    assert!(tailed.iter().all(|f| &f.routing.job_id == job));
    assert_eq!(text_of(&tailed), "background done: scan the repo");
    // A client attaching now gets the turn replayed.
    let mut late = d.client().await;
    late.request(Request::ChatSubscribe(ChatSubscribe {
        session_id: sid.clone(),
        want_replay: true,
        last_seq: None,
    }))
    .await
    .unwrap();
    let replayed = late.frames_until_complete(&sid).await;
    assert!(replayed.iter().all(|f| &f.routing.job_id == job));
    assert_eq!(text_of(&replayed), "background done: scan the repo");

    // chat:active went running → idle twice.
    let mut seen: Vec<ServerMessage> = c.pending.drain(..).collect();
    let deadline = tokio::time::Instant::now() + DEADLINE;
    let actives = loop {
        let actives = actives_in(&seen, &sid);
        if actives.len() >= 4 {
            break actives;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "chat:active {actives:?}"
        );
        if let Some(m) = c.try_next(Duration::from_millis(50)).await {
            seen.push(m);
        }
    };
    let runs: Vec<(String, bool)> = actives
        .iter()
        .map(|a| (a.job_id.clone(), a.running))
        .collect();
    assert_eq!(
        runs,
        [
            (first.job_id.clone(), true),
            (first.job_id.clone(), false),
            (job.clone(), true),
            (job.clone(), false)
        ]
    );

    // The run log has both; the second under the first's origin, named after the task.
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let runs = history(&mut c).await;
        let mine: Vec<_> = runs.iter().filter(|r| r.session_id == sid).collect();
        let finished = mine
            .iter()
            .filter(|r| r.status == RunStatus::Completed)
            .count();
        if finished == 2 {
            let bg = mine
                .iter()
                .find(|r| &r.job_id == job)
                .expect("the unprompted run");
            assert_eq!(bg.origin, Origin::Human);
            assert_eq!(
                bg.prompt.as_deref(),
                Some("(background task finished: scan the repo)")
            );
            assert!(bg.cost_usd.is_some_and(|c| c > 0.0), "{bg:?}");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "runs: {mine:?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    // What claude said on its own is news for the user who read the chat before.
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while !unread(&mut c, "", &sid).await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the chat is not unread"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(processes_of(&d, &sid), 1, "the same process ran both");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_follow_up_sent_during_claudes_own_turn_is_queued_and_sent_after_it() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let first = c
        .send_turn("", None, &launching("long job", 100, 300))
        .await;
    let sid = first.session_id.clone();
    c.frames_until_complete(&sid).await;

    // Wait for claude's own turn to start.
    let deadline = tokio::time::Instant::now() + DEADLINE;
    let job = loop {
        let m = tokio::time::timeout_at(deadline, c.next())
            .await
            .expect("claude's own turn starts");
        if let ServerMessage::Control(ControlMessage::Active(a)) = m
            && a.session_id == sid
            && a.running
            && a.job_id != first.job_id
        {
            break a.job_id;
        }
    };
    // A person's message now is refused as busy (a client queues it instead), like during
    // any running turn.
    let busy = c
        .request(Request::ChatSend(paddock_proto::ChatSend {
            project_slug: String::new(),
            session_id: Some(sid.clone()),
            message: "next please".into(),
            model: None,
            preload_context: false,
            attachments: Vec::new(),
            isolation: None,
        }))
        .await
        .expect_err("busy while claude's own turn runs");
    assert_eq!(busy.code, ErrorCode::Busy);
    c.request(Request::ChatSetQueue(ChatSetQueue {
        session_id: sid.clone(),
        message: Some("next please".into()),
    }))
    .await
    .unwrap();

    let own = c.frames_until_complete(&sid).await;
    assert!(own.iter().all(|f| f.routing.job_id == job));
    assert_eq!(text_of(&own), "background done: long job");
    let next = c.frames_until_complete(&sid).await;
    assert!(
        next.iter().any(|f| f.routing.job_id == job
            && matches!(&f.event, ChatEvent::QueuedFlushed(q) if q.message == "next please")),
        "the follow-up is announced at the end of claude's own turn: {next:?}"
    );
    assert!(
        next.iter()
            .any(|f| matches!(&f.event, ChatEvent::User(u) if u.text == "next please"))
    );
    assert_eq!(text_of(&next), "echo: next please");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn batch_mode_keeps_the_process_until_the_background_tasks_turn_is_in() {
    let d = TestDaemon::start_with(|c| c.drive_mode = paddockd::config::DriveMode::Batch).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, &launching("batch job", 800, 0)).await;
    let sid = first.session_id.clone();
    c.frames_until_complete(&sid).await;
    // Stopping the process now would kill the task: its turn could never come.
    let own = c.frames_until_complete(&sid).await;
    assert!(complete_of(&own).success);
    assert_eq!(text_of(&own), "background done: batch job");
    // Then the batch process goes, as after any batch turn.
    none_alive(&mut c).await;
    assert_eq!(processes_of(&d, &sid), 1);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn the_idle_timeout_waits_for_background_tasks() {
    let d = TestDaemon::start_with(|cfg| cfg.idle_timeout = Duration::from_millis(150)).await;
    let mut c = d.client().await;
    let first = c
        .send_turn("", None, &launching("slow task", 1500, 0))
        .await;
    let sid = first.session_id.clone();
    c.frames_until_complete(&sid).await;
    // Ten idle timeouts pass while the task runs; the process is kept for it.
    let own = c.frames_until_complete(&sid).await;
    assert!(complete_of(&own).success);
    assert_eq!(text_of(&own), "background done: slow task");
    // Nothing holds it any more: the idle timeout stops it.
    none_alive(&mut c).await;
    assert_eq!(processes_of(&d, &sid), 1);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_person_who_left_is_told_when_their_background_task_reports_back() {
    let d = TestDaemon::start().await;
    let mut listener = d.client().await;
    assert_eq!(
        listener
            .request(Request::NotificationsSubscribe)
            .await
            .unwrap(),
        Reply::Ack
    );
    let mut sender = d.client().await;
    let first = sender
        .send_turn("", None, &launching("report", 1000, 0))
        .await;
    sender.frames_until_complete(&first.session_id).await;
    drop(sender);
    let deadline = tokio::time::Instant::now() + DEADLINE;
    let attention = loop {
        let m = tokio::time::timeout_at(deadline, listener.next())
            .await
            .expect("an attention");
        if let ServerMessage::Control(ControlMessage::Attention(a)) = m {
            break a;
        }
    };
    assert_eq!(attention.kind, AttentionKind::Finished);
    assert_eq!(attention.session_id, first.session_id);
    assert_eq!(attention.body, "Background task finished");
    assert_ne!(attention.job_id.as_deref(), Some(first.job_id.as_str()));
    d.stop().await.unwrap();
}

/// The real CLI against the Messages API stand-in: a background Agent call's turn ends at
/// once; the turn the CLI runs by itself when the subagent finishes reaches the chat's client
/// as a turn of its own, and both are in the run log.
#[tokio::test]
async fn real_cli_background_agent_reports_back_in_a_turn_of_its_own() {
    let api = paddock_tests::mock_api::MockApi::start().await.unwrap();
    let d = crate::real_cli::real_daemon(&api, |c| c.allowed_tools = vec!["Agent".into()]).await;
    let mut c = d.client().await;
    let prompt = format!(
        "mock:tool Agent {}",
        serde_json::json!({"description": "Say hi", "prompt": "hi from the background",
                           "subagent_type": "general-purpose", "run_in_background": true})
    );
    let sent = c.send_turn("", None, &prompt).await;
    let sid = sent.session_id.clone();
    let first = c.frames_until_complete(&sid).await;
    assert!(complete_of(&first).success, "{first:#?}");
    let own = c.frames_until_complete(&sid).await;
    assert!(complete_of(&own).success, "{own:#?}");
    let job = own[0].routing.job_id.clone();
    assert_ne!(job, sent.job_id, "a turn of its own");
    assert!(own.iter().all(|f| f.routing.job_id == job));
    assert!(!text_of(&own).is_empty(), "claude's own reply: {own:#?}");
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let runs = history(&mut c).await;
        let done = runs
            .iter()
            .filter(|r| r.session_id == sid && r.status == RunStatus::Completed)
            .count();
        if done == 2 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "runs: {runs:#?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    d.stop().await.unwrap();
}

/// A background subagent asking for a tool while no turn runs is answered at once: an allowed
/// tool is allowed, any other denied (there is no turn to ask a person in), never left waiting.
#[tokio::test]
async fn a_background_subagents_permission_request_between_turns_is_answered() {
    let d = TestDaemon::start_with(|cfg| cfg.allowed_tools = vec!["Read".into()]).await;
    let mut c = d.client().await;
    let script = |tool: &str| {
        format!(
            "fake:{}",
            serde_json::json!([{"background": "look", "delay_ms": 200, "ask": tool},
                               {"text": "started"}])
        )
    };
    let first = c.send_turn("", None, &script("Read")).await;
    let sid = first.session_id.clone();
    c.frames_until_complete(&sid).await;
    let own = c.frames_until_complete(&sid).await;
    assert_eq!(text_of(&own), "background done: look [Read: allow]");

    let again = c.send_turn("", Some(&sid), &script("Bash")).await;
    c.frames_until_complete(&again.session_id).await;
    let own = c.frames_until_complete(&sid).await;
    assert_eq!(text_of(&own), "background done: look [Bash: deny]");
    d.stop().await.unwrap();
}
