//! In-process daemon tests over a real socket, with the fake `claude`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod agents;
mod approvals;
mod away;
mod background;
mod blame;
mod chats;
mod confine;
mod depth;
mod disk;
mod drive;
mod files;
mod git;
mod git_push;
mod harness;
mod lifecycle;
mod list_delta;
mod management;
mod misbehaving;
mod notifications;
mod older_release;
mod project_file;
mod projects;
mod promote;
mod provenance;
mod queue;
mod reach;
mod real_cli;
mod recovery;
mod releases;
mod search;
mod spare_worktrees;
mod spares;
mod sweeper;
mod terminal;
mod tool_rules;
mod triggers;
mod turn_endings;
mod websocket;
mod workspace_walls;
mod worktrees;

use std::time::Duration;

use harness::*;
use paddock_proto::{
    ChatEvent, ChatSubscribe, ControlMessage, ErrorCode, NoticeKind, Reply, Request, ResyncReason,
    ServerMessage,
};

#[tokio::test]
async fn handshake_then_requests_and_version_mismatch() {
    let d = TestDaemon::start().await;
    let mut c = RawClient::connect(&d.socket).await;
    // Anything before hello is refused, with the request's id.
    let err = c.request(Request::Ping).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::HelloRequired);
    // A client speaking another protocol gets the details it needs to act.
    let err = c
        .request(Request::Hello(paddock_proto::Hello {
            protocol_version: paddock_proto::PROTOCOL_VERSION + 1,
            client: "future".into(),
        }))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::ProtocolMismatch);
    let mismatch = err.mismatch.expect("mismatch details");
    assert_eq!(mismatch.daemon_protocol, paddock_proto::PROTOCOL_VERSION);
    assert_eq!(mismatch.pid, std::process::id());
    assert_eq!(mismatch.running_turns, 0);
    match c.hello().await {
        Reply::Hello(h) => {
            assert_eq!(
                h.user,
                paddockd::users::name_of(rustix::process::geteuid().as_raw())
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(c.request(Request::Ping).await.unwrap(), Reply::Pong);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn malformed_and_oversize_lines_get_errors_and_the_connection_survives() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    c.write_raw(b"this is not json\n").await;
    match c.next().await {
        ServerMessage::Control(ControlMessage::Error(e)) => {
            assert_eq!(e.error.code, ErrorCode::MalformedFrame)
        }
        other => panic!("{other:?}"),
    }
    // An unknown request type with an id is answered for that id.
    c.write_raw(b"{\"id\":77,\"type\":\"no:such\"}\n").await;
    let err = c.response(77).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::MalformedFrame);
    // A line past the limit is discarded as it streams in, then reported once.
    let big = vec![b'x'; paddock_proto::MAX_LINE_BYTES + 10];
    c.write_raw(&big).await;
    c.write_raw(b"\n").await;
    match c.next().await {
        ServerMessage::Control(ControlMessage::Error(e)) => {
            assert_eq!(e.error.code, ErrorCode::FrameTooLarge)
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(c.request(Request::Ping).await.unwrap(), Reply::Pong);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn projects_create_and_list_with_the_root_workspace() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let ext = d.dir.path().join("checkout");
    let created = c
        .request(Request::ProjectCreate(paddock_proto::ProjectCreate {
            slug: "demo".into(),
            path: Some(ext.to_string_lossy().into_owned()),
            ..Default::default()
        }))
        .await
        .unwrap();
    let Reply::Project(p) = created else { panic!() };
    assert_eq!(
        p.path,
        std::fs::canonicalize(&ext).unwrap().to_string_lossy()
    );
    let dup = c
        .request(Request::ProjectCreate(paddock_proto::ProjectCreate {
            slug: "demo".into(),
            path: None,
            ..Default::default()
        }))
        .await
        .unwrap_err();
    assert_eq!(dup.code, ErrorCode::AlreadyExists);
    let Reply::Projects(list) = c.request(Request::ProjectList).await.unwrap() else {
        panic!()
    };
    let slugs: Vec<&str> = list.projects.iter().map(|p| p.slug.as_str()).collect();
    assert_eq!(slugs, vec!["", "demo"]);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_streamed_turn_then_a_second_turn_in_the_same_chat() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let sent = c
        .send_turn("", None, &slow_text("Hello there, world", 4, 5))
        .await;
    assert!(!sent.queued);
    let frames = c.frames_until_complete(&sent.session_id).await;
    let seqs: Vec<u64> = frames.iter().map(|f| f.routing.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert!(matches!(&frames[0].event, ChatEvent::User(u) if u.text.contains("Hello there")));
    assert!(frames.iter().all(|f| f.routing.job_id == sent.job_id));
    assert_eq!(text_of(&frames), "Hello there, world");
    let deltas = frames
        .iter()
        .filter(|f| matches!(f.event, ChatEvent::Response(_)))
        .count();
    assert_eq!(deltas, 4, "text arrives as it streams, in chunks");
    assert!(complete_of(&frames).success);

    // The second turn goes into the live process; seq keeps counting.
    let again = c.send_turn("", Some(&sent.session_id), "second").await;
    assert_eq!(again.session_id, sent.session_id);
    let frames2 = c.frames_until_complete(&sent.session_id).await;
    assert!(frames2[0].routing.seq > *seqs.last().unwrap());
    assert_eq!(text_of(&frames2), "echo: second");
    assert_eq!(d.fake_argvs().len(), 1, "one process served both turns");
    assert!(d.fake_argvs()[0].iter().any(|a| a == "--session-id"));

    // The chat is listed with its first prompt as title, and its transcript renders.
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
        panic!()
    };
    assert_eq!(chats.chats.len(), 1);
    assert_eq!(chats.chats[0].session_id, sent.session_id);
    assert!(chats.chats[0].title.contains("Hello there"));
    let Reply::Transcript(t) = c
        .request(Request::ChatTranscript(paddock_proto::SessionRef {
            session_id: sent.session_id.clone(),
        }))
        .await
        .unwrap()
    else {
        panic!()
    };
    let kinds: Vec<String> = t
        .entries
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| *k == "user").count(),
        2,
        "{kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|k| *k == "assistant").count(),
        2,
        "{kinds:?}"
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn two_clients_see_the_same_frames_with_the_same_seqs() {
    let d = TestDaemon::start().await;
    let mut a = d.client().await;
    let mut b = d.client().await;
    let sent = a
        .send_turn("", None, &slow_text(&"abcdefghij".repeat(4), 20, 20))
        .await;
    // B learns of the running chat from chat:active, then attaches with replay.
    loop {
        if let ServerMessage::Control(ControlMessage::Active(act)) = b.next().await
            && act.session_id == sent.session_id
            && act.running
        {
            break;
        }
    }
    let id = b
        .send(Request::ChatSubscribe(ChatSubscribe {
            session_id: sent.session_id.clone(),
            want_replay: true,
            last_seq: None,
        }))
        .await;
    let Reply::Subscribed(sub) = b.response(id).await.unwrap() else {
        panic!()
    };
    assert!(sub.running);
    let fa = a.frames_until_complete(&sent.session_id).await;
    let fb = b.frames_until_complete(&sent.session_id).await;
    assert_eq!(fa, fb, "both clients received identical frames");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn reconnect_with_last_seq_replays_exactly_the_rest() {
    let d = TestDaemon::start().await;
    let mut a = d.client().await;
    let sent = a
        .send_turn("", None, &slow_text(&"0123456789".repeat(3), 30, 15))
        .await;
    let mut seen = Vec::new();
    while seen.len() < 5 {
        if let ServerMessage::Frame(f) = a.next().await {
            seen.push(f);
        }
    }
    let last = seen.last().unwrap().routing.seq;
    drop(a);
    let mut b = d.client().await;
    let id = b
        .send(Request::ChatSubscribe(ChatSubscribe {
            session_id: sent.session_id.clone(),
            want_replay: true,
            last_seq: Some(last),
        }))
        .await;
    b.response(id).await.unwrap();
    let rest = b.frames_until_complete(&sent.session_id).await;
    let seqs: Vec<u64> = seen
        .iter()
        .chain(rest.iter())
        .map(|f| f.routing.seq)
        .collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "no gap and no duplicate"
    );
    let all: Vec<_> = seen.into_iter().chain(rest).collect();
    assert_eq!(text_of(&all), "0123456789".repeat(3));
    d.stop().await.unwrap();
}

#[tokio::test]
async fn an_aged_out_range_gives_resync() {
    let d = TestDaemon::start_with(|c| {
        c.hub_buffer_frames = 8;
        c.client_queue = 200;
    })
    .await;
    let mut a = d.client().await;
    let sent = a
        .send_turn("", None, &slow_text(&"x".repeat(40), 40, 0))
        .await;
    a.frames_until_complete(&sent.session_id).await;
    let mut b = d.client().await;
    let id = b
        .send(Request::ChatSubscribe(ChatSubscribe {
            session_id: sent.session_id.clone(),
            want_replay: true,
            last_seq: Some(2),
        }))
        .await;
    let Reply::Subscribed(sub) = b.response(id).await.unwrap() else {
        panic!()
    };
    assert_eq!(sub.replayed, 0);
    loop {
        if let ServerMessage::Control(ControlMessage::Resync(r)) = b.next().await {
            assert_eq!(r.reason, ResyncReason::AgedOut);
            assert_eq!(r.session_id, sent.session_id);
            break;
        }
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_client_that_never_reads_does_not_slow_the_others() {
    let d = TestDaemon::start_with(|c| {
        c.hub_buffer_frames = 64;
        c.client_queue = 128;
    })
    .await;
    let mut stalled = d.client().await;
    let mut a = d.client().await;
    let first = a.send_turn("", None, "warm up").await;
    a.frames_until_complete(&first.session_id).await;
    let id = stalled
        .send(Request::ChatSubscribe(ChatSubscribe {
            session_id: first.session_id.clone(),
            want_replay: false,
            last_seq: None,
        }))
        .await;
    loop {
        // Make sure the subscription is in place before the big turn starts.
        if let Some(ServerMessage::Control(ControlMessage::Response(r))) =
            stalled.try_next(DEADLINE).await
            && r.id == id
        {
            break;
        }
    }
    // 600 frames of ~2 KB: far more than the stalled client's socket buffer and queue.
    // The stalled client reads nothing from here on.
    let text = "y".repeat(2000 * 600);
    let sent = a
        .send_turn("", Some(&first.session_id), &slow_text(&text, 600, 0))
        .await;
    let frames = a.frames_until_complete(&sent.session_id).await;
    assert_eq!(text_of(&frames).len(), text.len());
    assert!(complete_of(&frames).success);
    // Now it reads: it was dropped from the stream and told to resync.
    let mut resync = None;
    while let Some(m) = stalled.try_next(Duration::from_secs(2)).await {
        if let ServerMessage::Control(ControlMessage::Resync(r)) = m {
            resync = Some(r.reason);
            break;
        }
    }
    assert_eq!(resync, Some(ResyncReason::SlowClient));
    d.stop().await.unwrap();
}

#[tokio::test]
async fn cancel_interrupts_the_turn_and_the_chat_stays_usable() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let sent = c.send_hanging_turn("", "working").await;
    let reply = c
        .request(Request::ChatCancel(paddock_proto::ChatCancel {
            session_id: sent.session_id.clone(),
            job_id: None,
        }))
        .await
        .unwrap();
    assert_eq!(
        reply,
        Reply::Cancelled(paddock_proto::Cancelled { was_running: true })
    );
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(!complete_of(&frames).success);
    assert!(
        frames
            .iter()
            .any(|f| matches!(&f.event, ChatEvent::Notice(n) if n.kind == NoticeKind::Interrupted))
    );
    let again = c.send_turn("", Some(&sent.session_id), "after").await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert_eq!(text_of(&frames), "echo: after");
    let idle = c
        .request(Request::ChatCancel(paddock_proto::ChatCancel {
            session_id: sent.session_id.clone(),
            job_id: None,
        }))
        .await
        .unwrap();
    assert_eq!(
        idle,
        Reply::Cancelled(paddock_proto::Cancelled { was_running: false })
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_crash_mid_turn_ends_the_turn_with_error_and_notice_then_resumes() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let sent = c
        .send_turn(
            "",
            None,
            r#"fake:[{"text":"partial","chunks":1},{"stderr":"boom: out of cheese"},{"crash":3}]"#,
        )
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    let names: Vec<&str> = frames.iter().map(|f| f.event.name()).collect();
    let err = names
        .iter()
        .position(|n| *n == "chat:error")
        .expect("chat:error");
    let notice = names
        .iter()
        .position(|n| *n == "chat:notice")
        .expect("chat:notice");
    assert!(err < notice && notice < names.len() - 1, "{names:?}");
    let complete = complete_of(&frames);
    assert!(!complete.success);
    let msg = complete.error.clone().unwrap();
    assert!(msg.contains("status 3"), "{msg}");
    assert!(msg.contains("out of cheese"), "{msg}");
    // The next turn starts a new process that resumes the chat.
    let again = c
        .send_turn("", Some(&sent.session_id), "still there?")
        .await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert_eq!(text_of(&frames), "echo: still there?");
    let argvs = d.fake_argvs();
    assert_eq!(argvs.len(), 2);
    assert!(argvs.iter().any(|a| a.iter().any(|x| x == "--resume")));
    d.stop().await.unwrap();
}

#[tokio::test]
async fn garbage_on_stdout_ends_the_turn_and_is_reported() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let sent = c
        .send_turn(
            "",
            None,
            r#"fake:[{"garbage":"%%% not json %%%"},{"hang":true}]"#,
        )
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(
        frames.iter().any(
            |f| matches!(&f.event, ChatEvent::Error(e) if e.message.contains("not stream-json"))
        )
    );
    assert!(
        frames
            .iter()
            .any(|f| matches!(&f.event, ChatEvent::Notice(n) if n.kind == NoticeKind::Crashed))
    );
    assert!(!complete_of(&frames).success);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn an_oversize_stdout_line_ends_the_turn_naming_the_limit() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    // Past the 64 MiB a stdout line may have; the text after it must not be shown as if
    // nothing was lost.
    let over = 64 * 1024 * 1024 + 4096;
    let script = format!(r#"fake:[{{"long_line":{over}}},{{"text":"after the long line"}}]"#);
    let sent = c.send_turn("", None, &script).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    let error = frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::Error(e) => Some(e.message.clone()),
            _ => None,
        })
        .expect("chat:error");
    assert!(error.contains(&format!("line of {over} bytes")), "{error}");
    assert!(error.contains("limit of 64 MiB"), "{error}");
    assert!(
        frames
            .iter()
            .any(|f| matches!(&f.event, ChatEvent::Notice(n) if n.kind == NoticeKind::Crashed))
    );
    assert!(!complete_of(&frames).success);
    assert!(!text_of(&frames).contains("after the long line"));
    // The chat goes on with a new process.
    let again = c
        .send_turn("", Some(&sent.session_id), "still there?")
        .await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert_eq!(text_of(&frames), "echo: still there?");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn permission_requests_are_answered_from_the_project_settings() {
    let d = TestDaemon::start_with(|c| c.allowed_tools = vec!["Read".into()]).await;
    let mut c = d.client().await;
    let script = r#"fake:[{"tool":"Read","input":{"file_path":"/etc/hostname"},"output":"ok","ask":true},
        {"tool":"Bash","input":{"command":"rm -rf /"},"output":"never","ask":true},{"text":"done"}]"#;
    let sent = c.send_turn("", None, script).await;
    // Read is allowed by a rule; Bash is not, so it waits in the approvals inbox.
    let mut inbox = d.client().await;
    let approval = tokio::time::timeout(DEADLINE, async {
        loop {
            let Reply::Approvals(a) = inbox.request(Request::ApprovalList).await.unwrap() else {
                panic!("not approvals")
            };
            if let Some(first) = a.approvals.into_iter().next() {
                return first;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await
    .expect("Bash waits for an answer");
    assert_eq!(approval.tool, "Bash");
    assert_eq!(approval.session_id, sent.session_id);
    assert_eq!(
        approval.preview.as_deref(),
        Some("$ rm -rf /\n⚠ / (outside the project)"),
        "the command, and the path it names outside the project"
    );
    inbox
        .request(Request::ApprovalAnswer(paddock_proto::ApprovalAnswer {
            ids: vec![approval.id.clone()],
            decision: paddock_proto::ApprovalDecision::Deny,
            message: Some("not on this machine".into()),
        }))
        .await
        .unwrap();
    let frames = c.frames_until_complete(&sent.session_id).await;
    let calls: Vec<&paddock_proto::ToolCall> = frames
        .iter()
        .filter_map(|f| match &f.event {
            ChatEvent::ToolCall(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 2);
    assert!(!calls[0].is_error, "Read is allowed");
    assert!(calls[1].is_error, "Bash is denied");
    assert!(
        calls[1].output.contains("not on this machine"),
        "{}",
        calls[1].output
    );
    // The deny is said where the call said it waits (chat:answered), with its reason.
    assert!(frames.iter().any(|f| matches!(&f.event,
        ChatEvent::Answered(a) if a.decision == paddock_proto::ApprovalDecision::Deny
            && a.message.contains("not on this machine"))));
    assert!(complete_of(&frames).success);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn the_pool_bound_queues_turns_and_reaps_idle_processes() {
    let d = TestDaemon::start_with(|c| c.max_processes = 1).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, &slow_text("first chat", 2, 50)).await;
    let second = c.send_turn("", None, "second chat").await;
    assert!(second.queued, "no free process slot");
    let f1 = c.frames_until_complete(&first.session_id).await;
    assert!(complete_of(&f1).success);
    let f2 = c.frames_until_complete(&second.session_id).await;
    assert_eq!(text_of(&f2), "echo: second chat");
    assert!(f2.iter().any(|f| matches!(&f.event, ChatEvent::Notice(n) if n.message.contains("waiting for a free claude process"))));
    let Reply::Status(s) = c.request(Request::DaemonStatus).await.unwrap() else {
        panic!()
    };
    assert_eq!(s.max_processes, 1);
    assert!(s.live_processes <= 1);
    // The first chat's process was reaped to make room.
    let first_pid = d.fake_pid_for(&first.session_id).unwrap();
    harness::wait_gone(first_pid).await;
    d.stop().await.unwrap();
}

/// The row of a chat, read with `chat:list` until `pred` holds for it (or the deadline passes).
async fn row_until(
    c: &mut RawClient,
    sid: &str,
    pred: impl Fn(&paddock_proto::ChatSummary) -> bool,
) -> paddock_proto::ChatSummary {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let Reply::Chats(chats) = c
            .request(Request::ChatList(paddock_proto::ChatList::default()))
            .await
            .unwrap()
        else {
            panic!("chat:list answers with chats")
        };
        let row = chats.chats.into_iter().find(|r| r.session_id == sid);
        match row {
            Some(row) if pred(&row) => return row,
            row => assert!(
                tokio::time::Instant::now() < deadline,
                "the row never came to what was expected: {row:#?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// A turn queued for a free claude process is drawn so (`waitingProcess`), not as one that
/// runs: the row says it while it waits and stops saying it once it has a process.
#[tokio::test]
async fn a_turn_queued_for_a_free_process_says_so_in_its_row() {
    let d = TestDaemon::start_with(|c| c.max_processes = 1).await;
    let mut c = d.client().await;
    let mut lister = d.client().await;
    let first = c.send_hanging_turn("", "working").await;
    let second = c.send_turn("", None, "second chat").await;
    assert!(second.queued, "no free process slot");
    let waiting = row_until(&mut lister, &second.session_id, |r| r.waiting_process).await;
    assert!(waiting.running, "a queued turn is a running one");
    let busy = row_until(&mut lister, &first.session_id, |r| r.running).await;
    assert!(!busy.waiting_process, "the chat holding the process runs");

    c.request(Request::ChatCancel(paddock_proto::ChatCancel {
        session_id: first.session_id.clone(),
        job_id: None,
    }))
    .await
    .unwrap();
    let frames = c.frames_until_complete(&second.session_id).await;
    assert_eq!(text_of(&frames), "echo: second chat");
    let done = row_until(&mut lister, &second.session_id, |r| !r.running).await;
    assert!(!done.waiting_process, "{done:#?}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn an_idle_process_is_reaped_for_a_turn_without_a_waiting_notice() {
    let d = TestDaemon::start_with(|c| c.max_processes = 1).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "first chat").await;
    assert!(complete_of(&c.frames_until_complete(&first.session_id).await).success);
    // The first chat's turn has ended (`chat:active` false): its process is idle.
    loop {
        if let ServerMessage::Control(paddock_proto::ControlMessage::Active(a)) = c.next().await
            && a.session_id == first.session_id
            && !a.running
        {
            break;
        }
    }
    let first_pid = d.fake_pid_for(&first.session_id).unwrap();
    // The only process is idle: the next chat's turn takes its slot, it does not wait.
    let second = c.send_turn("", None, "second chat").await;
    assert!(
        !second.queued,
        "an idle process can be reaped: nothing waits"
    );
    let f2 = c.frames_until_complete(&second.session_id).await;
    assert_eq!(text_of(&f2), "echo: second chat");
    let waits: Vec<_> = f2
        .iter()
        .filter(|f| matches!(&f.event, ChatEvent::Notice(n) if n.message.contains("waiting for a free claude process")))
        .collect();
    assert!(waits.is_empty(), "no turn waited: {waits:?}");
    harness::wait_gone(first_pid).await;
    d.stop().await.unwrap();
}

#[tokio::test]
async fn shutdown_during_a_turn_ends_it_and_leaves_no_process() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let sent = c
        .send_turn(
            "",
            None,
            r#"fake:[{"child":"sleep 600"},{"text":"busy","chunks":1},{"hang":true}]"#,
        )
        .await;
    loop {
        if let ServerMessage::Frame(f) = c.next().await
            && matches!(f.event, ChatEvent::Response(_))
        {
            break;
        }
    }
    let pids = d.fake_pids();
    assert_eq!(pids.len(), 2, "fake-claude and its child: {pids:?}");
    let socket = d.socket.clone();
    let stopping = tokio::spawn(d.stop());
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(!complete_of(&frames).success);
    stopping.await.unwrap().unwrap();
    for pid in pids {
        assert!(
            harness::process_gone(pid),
            "process {pid} outlived the daemon"
        );
    }
    assert!(!socket.exists(), "socket file removed");
}

#[tokio::test]
async fn one_daemon_per_socket_and_stale_sockets_are_replaced() {
    let d = TestDaemon::start().await;
    let mut cfg = d.cfg.clone();
    cfg.data_dir = d.dir.path().join("other-data");
    cfg.claude_home = cfg.data_dir.join("claude-home");
    let err = paddockd::run(cfg.clone(), std::future::pending())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("already serving"), "{err}");
    d.stop().await.unwrap();
    // A leftover socket file that nothing answers on is replaced.
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("run").join("paddockd.sock");
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(socket.exists());
    let mut cfg = paddockd::Config::for_data_dir(&dir.path().join("data"), &socket);
    cfg.claude_bin = fake_claude();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(paddockd::run(cfg, async {
        let _ = rx.await;
    }));
    harness::wait_for_socket(&socket).await;
    let mut c = RawClient::connect(&socket).await;
    c.hello().await;
    let _ = tx.send(());
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn socket_and_folder_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let d = TestDaemon::start().await;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&d.socket), 0o600);
    assert_eq!(mode(d.socket.parent().unwrap()), 0o700);
    d.stop().await.unwrap();
}

/// Even with the folder and socket opened up by hand, another user's connection is refused by
/// the peer-credential check. Needs root (to act as `nobody`) and setpriv.
#[tokio::test]
async fn another_users_connection_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    if rustix::process::geteuid().as_raw() != 0 {
        panic!("this test acts as another user and must run as root (CI does)");
    }
    let d = TestDaemon::start().await;
    let open = |p: &std::path::Path, mode| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    open(d.dir.path(), 0o755);
    open(d.socket.parent().unwrap(), 0o755);
    open(&d.socket, 0o666);
    let script = format!(
        "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({:?})\n\
         s.sendall(b'{{\"id\":1,\"type\":\"hello\",\"protocolVersion\":1,\"client\":\"x\"}}\\n')\n\
         data = b''\nwhile True:\n    chunk = s.recv(4096)\n    if not chunk: break\n    data += chunk\n\
         print(data.decode())\n",
        d.socket.to_string_lossy()
    );
    let out = tokio::process::Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "/usr/bin/python3",
            "-c",
            &script,
        ])
        .output()
        .await
        .expect("setpriv (util-linux) is installed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("are refused"), "{stdout}");
    assert!(
        !stdout.contains("\"kind\":\"hello\""),
        "no hello for a stranger: {stdout}"
    );
    d.stop().await.unwrap();
}
