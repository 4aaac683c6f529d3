//! Queued follow-ups: one durable slot per chat, set or cleared from any client, sent by the
//! daemon when the running turn ends (`chat:queued_flushed`), once.

use paddock_proto::{ChatEvent, ChatList, ChatScope, ChatSetQueue, Reply, Request, ServerMessage};

use crate::harness::*;

async fn queued_of(c: &mut RawClient, session: &str) -> Option<String> {
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
        .and_then(|x| x.queued)
}

#[tokio::test]
async fn a_queued_follow_up_is_sent_once_when_the_turn_ends() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "hello").await;
    let sid = first.session_id.clone();
    c.frames_until_complete(&sid).await;

    // A slow turn runs; a second client queues a follow-up, and can clear and set it again.
    let slow = c
        .send_turn("", Some(&sid), &slow_text("working", 10, 50))
        .await;
    let mut other = d.client().await;
    for message in [Some("first thought"), None, Some("then run the tests")] {
        let reply = other
            .request(Request::ChatSetQueue(ChatSetQueue {
                session_id: sid.clone(),
                message: message.map(str::to_owned),
            }))
            .await
            .unwrap();
        assert_eq!(reply, Reply::Ack);
    }
    assert_eq!(
        queued_of(&mut other, &sid).await.as_deref(),
        Some("then run the tests"),
        "every client sees the queued follow-up"
    );

    // The running turn ends: the follow-up is announced in its stream, then runs as a turn.
    c.frames_until_complete(&slow.session_id).await;
    let flushed = tokio::time::timeout(DEADLINE, async {
        loop {
            if let ServerMessage::Frame(f) = c.next().await {
                match f.event {
                    ChatEvent::QueuedFlushed(q) => return q.message,
                    _ => continue,
                }
            }
        }
    })
    .await;
    let message = flushed.expect("chat:queued_flushed follows the ending turn");
    assert_eq!(message, "then run the tests");
    let next = tokio::time::timeout(DEADLINE, async {
        loop {
            if let ServerMessage::Frame(f) = c.next().await
                && let ChatEvent::User(u) = f.event
            {
                return u;
            }
        }
    })
    .await
    .expect("the follow-up runs as the next turn");
    assert_eq!(next.text, "then run the tests");
    assert!(next.attribution.is_none(), "a person queued it");
    c.frames_until_complete(&sid).await;
    assert_eq!(
        queued_of(&mut c, &sid).await,
        None,
        "the slot is empty again"
    );

    // It was sent once: the transcript holds it once.
    let Reply::Transcript(t) = c
        .request(Request::ChatTranscript(paddock_proto::SessionRef {
            session_id: sid.clone(),
        }))
        .await
        .unwrap()
    else {
        panic!("not a transcript")
    };
    let sends = t
        .entries
        .iter()
        .filter(|e| matches!(e, paddock_proto::TranscriptEntry::User { text, .. } if text == "then run the tests"))
        .count();
    assert_eq!(sends, 1, "{:?}", t.entries);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn set_queue_validates_the_chat() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let err = c
        .request(Request::ChatSetQueue(ChatSetQueue {
            session_id: "not-a-uuid".into(),
            message: Some("x".into()),
        }))
        .await
        .unwrap_err();
    assert_eq!(err.code, paddock_proto::ErrorCode::InvalidArgument);
    let err = c
        .request(Request::ChatSetQueue(ChatSetQueue {
            session_id: uuid::Uuid::new_v4().to_string(),
            message: Some("x".into()),
        }))
        .await
        .unwrap_err();
    assert_eq!(err.code, paddock_proto::ErrorCode::NotFound);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_chat_row_carries_a_one_line_status_refreshed_after_each_turn() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "first question").await;
    let sid = first.session_id.clone();
    c.frames_until_complete(&sid).await;
    let status_of = |want: &'static str| {
        let sid = sid.clone();
        move |chats: Vec<paddock_proto::ChatSummary>| {
            chats
                .into_iter()
                .find(|x| x.session_id == sid)
                .and_then(|x| x.status)
                .filter(|s| s == want)
        }
    };
    for (turn, want) in [
        (None, "echo: first question"),
        (Some("second question"), "echo: second question"),
    ] {
        if let Some(text) = turn {
            c.send_turn("", Some(&sid), text).await;
            c.frames_until_complete(&sid).await;
        }
        let check = status_of(want);
        tokio::time::timeout(DEADLINE, async {
            loop {
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
                if check(list.chats).is_some() {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(25)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("the status never became {want:?}"));
    }
    d.stop().await.unwrap();
}

/// `paddock send -c S` while S runs a turn: refused with S's id and `--queue` named (it said
/// `SESSION` literally); `--queue` queues it, another client sees it on the chat's row, and
/// the command streams the follow-up's reply when the running turn ends. The real CLI.
#[tokio::test]
async fn real_cli_send_queue_queues_a_follow_up_every_client_sees_and_streams_it() {
    use crate::turn_endings::{paddock, running_chat};
    let api = paddock_tests::mock_api::MockApi::start().await.unwrap();
    let d = crate::real_cli::real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    let first = paddock(&d, &["send", "mock:slow 15"]);
    let sid = running_chat(&mut c).await;
    first.printing().await;

    let (code, stderr) = paddock(&d, &["send", "-c", &sid, "too soon"]).ended().await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        !stderr.contains("SESSION") && stderr.contains(&format!("paddock send -c {sid} --queue")),
        "{stderr}"
    );

    let queued = paddock(&d, &["send", "-c", &sid, "--queue", "after you"]);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while queued_of(&mut c, &sid).await.as_deref() != Some("after you") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no client sees it queued"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (code, stderr) = first.ended().await;
    assert_eq!(code, Some(0), "the first turn: {stderr}");
    let (code, stdout, stderr) = queued.output().await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("queued: sent when the running turn ends"),
        "{stderr}"
    );
    assert!(stdout.contains("echo: after you"), "{stdout:?}");
    assert_eq!(
        queued_of(&mut c, &sid).await,
        None,
        "sent once, the slot is empty"
    );
    d.stop().await.unwrap();
}
