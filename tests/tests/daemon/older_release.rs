//! The daemon driving `fake-claude` in its 2.1.197 mode (`FAKE_CLAUDE_RELEASE=2.1.197`): the
//! differences of docs/claude-cli.md §15 the daemon reads, end to end. No `api_message_id` on
//! stream events (a turn's text must still stream once, not again from the `assistant` line),
//! the prompt echo after the deltas, no `command_lifecycle` lines, and transcript records written
//! about 100 ms late, the reply's after `result` (the daemon waits for it before `chat:complete`).

use paddock_proto::{ChatEvent, ChatList, ChatScope, Reply, Request, SessionRef, TranscriptEntry};
use paddock_tests::fake_claude::release::RELEASE_ENV;
use paddock_tests::fake_claude::state::read_all_states;

use crate::harness::*;

async fn daemon_2_1_197() -> TestDaemon {
    TestDaemon::start_with(|cfg| {
        cfg.claude_env
            .push((RELEASE_ENV.to_owned(), "2.1.197".to_owned()));
    })
    .await
}

#[tokio::test]
async fn with_2_1_197_a_turn_streams_once_and_is_listed_and_rendered_at_its_complete() {
    let d = Box::pin(daemon_2_1_197()).await;
    let mut c = Box::pin(d.client()).await;
    let prompt_text = "Hello there, world";
    let sent = Box::pin(c.send_turn("", None, &slow_text(prompt_text, 4, 5))).await;
    let frames = Box::pin(c.frames_until_complete(&sent.session_id)).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    // Each delta once, and nothing again from the `assistant` line.
    assert_eq!(text_of(&frames), prompt_text, "{frames:#?}");
    let deltas = frames
        .iter()
        .filter(|f| matches!(f.event, ChatEvent::Response(_)))
        .count();
    assert_eq!(deltas, 4, "{frames:#?}");
    let users = frames
        .iter()
        .filter(|f| matches!(f.event, ChatEvent::User(_)))
        .count();
    assert_eq!(users, 1, "the prompt once, echo or not: {frames:#?}");

    // Right after chat:complete, with no waiting: the chat is listed with the whole turn…
    let Reply::Chats(list) = Box::pin(c.request(Request::ChatList(ChatList {
        project_slug: Some(String::new()),
        scope: ChatScope::All,
        since: None,
        full_titles: false,
    })))
    .await
    .unwrap() else {
        panic!("not chats")
    };
    let chat = list
        .chats
        .iter()
        .find(|x| x.session_id == sent.session_id)
        .unwrap_or_else(|| panic!("the chat is listed at chat:complete: {list:#?}"));
    assert!(
        chat.message_count >= 2,
        "the whole turn is indexed: {chat:?}"
    );

    // … and its transcript has the reply.
    let Reply::Transcript(t) = Box::pin(c.request(Request::ChatTranscript(SessionRef {
        session_id: sent.session_id.clone(),
    })))
    .await
    .unwrap() else {
        panic!("not a transcript")
    };
    assert!(
        t.entries
            .iter()
            .any(|e| matches!(e, TranscriptEntry::Assistant { text, .. } if text == prompt_text)),
        "{:#?}",
        t.entries
    );

    // The fake really ran as 2.1.197.
    let states = read_all_states(&d.state_dir).unwrap();
    assert_eq!(states.len(), 1);
    assert_eq!(
        states[0].env.get(RELEASE_ENV).map(String::as_str),
        Some("2.1.197")
    );
    d.stop().await.unwrap();
}
