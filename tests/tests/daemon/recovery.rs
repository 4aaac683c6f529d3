//! Recovery: a chat whose `claude` died mid-turn is marked interrupted, `chat:killed_task`
//! says so, and `chat:continue` picks it up with a recovery-attributed turn; after a daemon
//! restart, chats that were running show as interrupted.

use paddock_proto::{
    Attribution, ChatEvent, ChatList, ChatScope, ChatSummary, Reply, Request, ServerMessage,
    SessionRef, TranscriptEntry,
};

use crate::harness::*;

async fn row(c: &mut RawClient, session: &str) -> ChatSummary {
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
    list.chats
        .into_iter()
        .find(|x| x.session_id == session)
        .unwrap_or_else(|| panic!("{session} is not listed"))
}

async fn transcript_of(c: &mut RawClient, session: &str) -> Box<paddock_proto::Transcript> {
    let Reply::Transcript(t) = c
        .request(Request::ChatTranscript(SessionRef {
            session_id: session.to_owned(),
        }))
        .await
        .unwrap()
    else {
        panic!("not a transcript")
    };
    t
}

/// Polls until the chat shows as interrupted (its turn has fully ended).
async fn interrupted_soon(c: &mut RawClient, session: &str) -> ChatSummary {
    tokio::time::timeout(DEADLINE, async {
        loop {
            let chat = row(c, session).await;
            if chat.interrupted {
                return chat;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{session} never showed as interrupted"))
}

/// `chat:continue` of `sid`, answered like `chat:send`: the turn's frames and its user turn.
async fn continue_turn(
    c: &mut RawClient,
    sid: &str,
) -> (Vec<paddock_proto::HubFrame>, paddock_proto::UserTurn) {
    let id = c
        .send(Request::ChatContinue(SessionRef {
            session_id: sid.to_owned(),
        }))
        .await;
    match c.response(id).await {
        Ok(Reply::Sent(s)) => assert_eq!(s.session_id, sid),
        other => panic!("chat:continue: {other:?}"),
    }
    let frames = c.frames_until_complete(sid).await;
    let user = frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::User(u) => Some(u.clone()),
            _ => None,
        })
        .expect("the continue turn");
    (frames, user)
}

#[tokio::test]
async fn a_crashed_turn_is_interrupted_and_continue_picks_it_up() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let sent = c
        .send_turn(
            "",
            None,
            r#"fake:[{"text":"partial","chunks":1},{"crash":3}]"#,
        )
        .await;
    let sid = sent.session_id.clone();
    c.frames_until_complete(&sid).await;
    // chat:killed_task follows the failed turn's end.
    let killed = tokio::time::timeout(DEADLINE, async {
        loop {
            if let ServerMessage::Frame(f) = c.next().await
                && let ChatEvent::KilledTask(k) = f.event
            {
                return k;
            }
        }
    })
    .await
    .expect("chat:killed_task");
    assert!(killed.message.contains("continue"), "{killed:?}");
    let chat = interrupted_soon(&mut c, &sid).await;
    // Why it stopped is kept with the chat, for a client that opens it later.
    let why = chat.interrupted_reason.clone().unwrap_or_default();
    assert!(why.contains("exit"), "{chat:?}");
    assert!(killed.message.starts_with(&why), "{killed:?} / {why}");

    // chat:continue: answered like chat:send, the turn carries the recovery attribution.
    let (frames, user) = continue_turn(&mut c, &sid).await;
    assert_eq!(user.attribution, Some(Attribution::Recovery));
    assert!(complete_of(&frames).success);
    assert!(!row(&mut c, &sid).await.interrupted, "picked up");
    let t = transcript_of(&mut c, &sid).await;
    assert!(
        t.entries.iter().any(|e| matches!(
            e,
            TranscriptEntry::User {
                attribution: Some(Attribution::Recovery),
                ..
            }
        )),
        "the transcript shows ⚠ continued: {:?}",
        t.entries
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn continue_after_the_users_cancel_is_not_labelled_as_a_killed_task() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let sent = c
        .send_turn(
            "",
            None,
            r#"fake:[{"text":"working","chunks":1},{"hang":true}]"#,
        )
        .await;
    let sid = sent.session_id.clone();
    loop {
        if let ServerMessage::Frame(f) = c.next().await
            && matches!(f.event, ChatEvent::Response(_))
        {
            break;
        }
    }
    c.request(Request::ChatCancel(paddock_proto::ChatCancel {
        session_id: sid.clone(),
        job_id: None,
    }))
    .await
    .unwrap();
    c.frames_until_complete(&sid).await;
    // `C`: the person continues the turn they stopped. No task was killed.
    let (_, user) = continue_turn(&mut c, &sid).await;
    assert_ne!(
        user.attribution,
        Some(Attribution::Recovery),
        "a cancel is not a terminated task"
    );
    assert!(
        !user.text.contains("process running it stopped"),
        "{}",
        user.text
    );
    let t = transcript_of(&mut c, &sid).await;
    assert!(
        !t.entries.iter().any(|e| matches!(
            e,
            TranscriptEntry::User {
                attribution: Some(Attribution::Recovery),
                ..
            }
        )),
        "{:?}",
        t.entries
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn chats_running_when_the_daemon_stopped_show_as_interrupted_after_a_restart() {
    // The data folder outlives both daemons.
    let keep = tempfile::tempdir().unwrap();
    let data = keep.path().to_path_buf();
    let d = TestDaemon::start_with(on_data_dir(&data)).await;
    let mut c = d.client().await;
    let sent = c.send_hanging_turn("", "busy").await;
    let stopping = tokio::spawn(d.stop());
    c.frames_until_complete(&sent.session_id).await;
    stopping.await.unwrap().unwrap();
    drop(c);

    let d = TestDaemon::start_with(on_data_dir(&data)).await;
    let mut c = d.client().await;
    let chat = row(&mut c, &sent.session_id).await;
    assert!(chat.interrupted, "{chat:?}");
    assert!(!chat.running);
    assert_eq!(
        chat.interrupted_reason.as_deref(),
        Some("paddockd was stopped while it ran"),
        "{chat:?}"
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_silent_turn_is_stopped_as_hung_and_autodrive_continues_it() {
    let d = TestDaemon::start_with(|c| {
        c.recovery_limbo = Some(std::time::Duration::from_millis(400));
        c.recovery_autodrive = true;
        c.recovery_debounce = std::time::Duration::from_millis(100);
        c.recovery_max_retries = 1;
    })
    .await;
    let mut c = d.client().await;
    let sent = c
        .send_turn(
            "",
            None,
            r#"fake:[{"text":"thinking","chunks":1},{"hang":true}]"#,
        )
        .await;
    let sid = sent.session_id.clone();
    let frames = c.frames_until_complete(&sid).await;
    assert!(!complete_of(&frames).success);
    assert!(
        frames
            .iter()
            .any(|f| matches!(&f.event, ChatEvent::Notice(n) if n.message.contains("no output"))),
        "the hang is named"
    );
    // Autodrive continues it once, attributed to recovery.
    let continued = tokio::time::timeout(DEADLINE, async {
        loop {
            if let ServerMessage::Frame(f) = c.next().await
                && let ChatEvent::User(u) = f.event
            {
                return u;
            }
        }
    })
    .await
    .expect("autodrive continues the chat");
    assert_eq!(continued.attribution, Some(Attribution::Recovery));
    let frames = c.frames_until_complete(&sid).await;
    assert!(complete_of(&frames).success);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn an_unattended_tool_call_is_denied_when_no_one_answers_in_time() {
    // The instance waits forever; the trigger's own setting (1 s) wins.
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let script = r#"fake:[{"tool":"Bash","input":{"command":"make deploy"},"output":"deployed","ask":true},{"text":"done"}]"#;
    c.request(Request::TriggerSet(Box::new(paddock_proto::TriggerSet {
        project_slug: String::new(),
        name: "deploy".into(),
        spec: paddock_proto::TriggerSpec {
            kind: paddock_proto::TriggerKind::Hook,
            prompt: script.into(),
            cron: None,
            every: None,
            timezone: None,
            missed: paddock_proto::MissedPolicy::Skip,
            on: Some(paddock_proto::HookEvent::Manual),
            paths: vec![],
            debounce_secs: None,
            session: paddock_proto::SessionPolicy::New,
            model: None,
            enabled: true,
            approval_timeout_secs: Some(1),
        },
    })))
    .await
    .unwrap();
    let Reply::Fired(fired) = c
        .request(Request::TriggerFire(paddock_proto::TriggerFire {
            project_slug: String::new(),
            name: "deploy".into(),
            message: None,
        }))
        .await
        .unwrap()
    else {
        panic!("not fired")
    };
    let sid = fired.session_id.expect("a hook chat");
    c.request(Request::ChatSubscribe(paddock_proto::ChatSubscribe {
        session_id: sid.clone(),
        want_replay: true,
        last_seq: None,
    }))
    .await
    .unwrap();
    let frames = c.frames_until_complete(&sid).await;
    let call = frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::ToolCall(t) => Some(t.clone()),
            _ => None,
        })
        .expect("the tool call ended");
    assert!(call.is_error, "{call:?}");
    assert!(call.output.contains("no one answered"), "{}", call.output);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_usage_limit_parks_the_chat_until_a_turn_completes() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let sent = c
        .send_turn(
            "",
            None,
            r#"fake:[{"api_error":429,"message":"You've hit your session limit · resets 3pm (UTC)"}]"#,
        )
        .await;
    let sid = sent.session_id.clone();
    let frames = c.frames_until_complete(&sid).await;
    assert!(frames.iter().any(|f| matches!(
        &f.event,
        ChatEvent::Notice(n) if n.kind == paddock_proto::NoticeKind::UsageLimit
    )));
    let parked = tokio::time::timeout(DEADLINE, async {
        loop {
            let chat = row(&mut c, &sid).await;
            if let Some(p) = chat.parked {
                return p;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
    })
    .await
    .expect("the chat is parked");
    assert!(parked.contains("resets 3pm"), "{parked}");
    // A turn that completes unparks it.
    let again = c.send_turn("", Some(&sid), "still there?").await;
    c.frames_until_complete(&again.session_id).await;
    tokio::time::timeout(DEADLINE, async {
        while row(&mut c, &sid).await.parked.is_some() {
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
    })
    .await
    .expect("unparked");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn recovery_surface_off_says_nothing_and_refuses_continue_naming_the_key() {
    let d = TestDaemon::start_with(|c| c.recovery_surface = false).await;
    let mut c = d.client().await;
    let sent = c
        .send_turn(
            "",
            None,
            r#"fake:[{"text":"partial","chunks":1},{"crash":3}]"#,
        )
        .await;
    let sid = sent.session_id.clone();
    c.frames_until_complete(&sid).await;
    // Still marked interrupted: only the notice and the affordance are off.
    interrupted_soon(&mut c, &sid).await;
    let mut seen = Vec::new();
    while let Some(m) = c.try_next(std::time::Duration::from_millis(300)).await {
        seen.push(m);
    }
    assert!(
        !seen.iter().any(|m| matches!(
            m,
            ServerMessage::Frame(f) if matches!(f.event, ChatEvent::KilledTask(_))
        )),
        "no chat:killed_task: {seen:?}"
    );
    let err = c
        .request(Request::ChatContinue(SessionRef {
            session_id: sid.clone(),
        }))
        .await
        .unwrap_err();
    for want in ["recovery_surface", "PADDOCK_RECOVERY_SURFACE"] {
        assert!(err.message.contains(want), "{want}: {}", err.message);
    }
    assert!(row(&mut c, &sid).await.interrupted, "not picked up");
    d.stop().await.unwrap();
}

/// A new chat the daemon stopped before claude wrote a word of it (it waited for a free
/// process) is not lost: listed as cut short, its message shown, and `chat:continue` sends that
/// message as its first turn; a reply to it before that is refused, naming the way out.
#[tokio::test]
async fn a_new_chat_that_never_reached_claude_survives_a_restart_and_continue_sends_its_message() {
    let keep = tempfile::tempdir().unwrap();
    let data = keep.path().to_path_buf();
    fn tune(data: std::path::PathBuf) -> impl FnOnce(&mut paddockd::Config) {
        move |c: &mut paddockd::Config| {
            on_data_dir(&data)(c);
            c.max_processes = 1;
        }
    }
    let d = TestDaemon::start_with(tune(data.clone())).await;
    let mut c = d.client().await;
    let busy = c
        .send_turn(
            "",
            None,
            r#"fake:[{"text":"busy","chunks":1},{"hang":true}]"#,
        )
        .await;
    loop {
        if let ServerMessage::Frame(f) = c.next().await
            && f.routing.session_id == busy.session_id
            && matches!(f.event, ChatEvent::Response(_))
        {
            break;
        }
    }
    const WORDS: &str = "the words of a chat that waited for a free claude";
    let waiting = c.send_turn("", None, WORDS).await;
    loop {
        if let ServerMessage::Frame(f) = c.next().await
            && f.routing.session_id == waiting.session_id
            && matches!(&f.event, ChatEvent::Notice(n) if n.message.contains("free claude"))
        {
            break;
        }
    }
    let stopping = tokio::spawn(d.stop());
    c.frames_until_complete(&waiting.session_id).await;
    stopping.await.unwrap().unwrap();
    drop(c);

    let d = TestDaemon::start_with(tune(data.clone())).await;
    let mut c = d.client().await;
    let sid = waiting.session_id.clone();
    let chat = row(&mut c, &sid).await;
    assert!(chat.interrupted && !chat.running, "{chat:?}");
    assert_eq!(
        chat.interrupted_reason.as_deref(),
        Some("paddockd was stopped while it ran")
    );
    assert!(chat.title.starts_with("the words of a chat"), "{chat:?}");
    let t = transcript_of(&mut c, &sid).await;
    assert!(
        matches!(t.entries.as_slice(), [TranscriptEntry::User { text, .. }] if text == WORDS),
        "{:?}",
        t.entries
    );
    let err = c
        .request(Request::ChatSend(paddock_proto::ChatSend {
            project_slug: String::new(),
            session_id: Some(sid.clone()),
            message: "a reply".into(),
            model: None,
            preload_context: false,
            attachments: Vec::new(),
            isolation: None,
        }))
        .await
        .unwrap_err();
    assert!(err.message.contains("continue the chat"), "{}", err.message);

    let (frames, user) = continue_turn(&mut c, &sid).await;
    assert_eq!(user.text, WORDS, "the first message, asked again");
    assert!(complete_of(&frames).success, "{frames:?}");
    let chat = row(&mut c, &sid).await;
    assert!(!chat.interrupted, "{chat:?}");
    assert_eq!(chat.message_count, 2, "{chat:?}");
    // Written now: a reply goes the usual way.
    let sent = c.send_turn("", Some(&sid), "and then?").await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:?}");
    d.stop().await.unwrap();
}

/// A chat whose tool call waits for a person says so in its row (and its row changes when it is
/// asked and answered); a chat whose last run failed says so too.
#[tokio::test]
async fn a_chat_row_says_it_waits_for_an_answer_and_that_its_run_failed() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let ask = serde_json::json!([
        {"tool": "Bash", "input": {"command": "rm -rf build"}, "output": "ok", "ask": true},
        {"text": "done"}
    ]);
    let sent = c.send_turn("", None, &format!("fake:{ask}")).await;
    let sid = sent.session_id.clone();
    let asking = tokio::time::timeout(DEADLINE, async {
        loop {
            let chat = row(&mut c, &sid).await;
            if chat.waiting_approval {
                return chat;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
    })
    .await
    .expect("the row never said it waits for an answer");
    assert!(asking.running, "{asking:?}");
    let Reply::Approvals(list) = c.request(Request::ApprovalList).await.unwrap() else {
        panic!("not approvals")
    };
    let id = list.approvals[0].id.clone();
    c.request(Request::ApprovalAnswer(paddock_proto::ApprovalAnswer {
        ids: vec![id],
        decision: paddock_proto::ApprovalDecision::Allow,
        message: None,
    }))
    .await
    .unwrap();
    c.frames_until_complete(&sid).await;
    let chat = row(&mut c, &sid).await;
    assert!(!chat.waiting_approval && !chat.failed, "{chat:?}");

    // A turn that fails (the API refused it after the CLI's retries) marks the row failed.
    let sent = c
        .send_turn(
            "",
            None,
            r#"fake:[{"api_error":529,"message":"Overloaded"}]"#,
        )
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    let failed = tokio::time::timeout(DEADLINE, async {
        loop {
            let chat = row(&mut c, &sent.session_id).await;
            if chat.failed {
                return chat;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the row never said the run failed: {frames:?}"));
    assert!(!failed.interrupted && !failed.running, "{failed:?}");
    d.stop().await.unwrap();
}
