//! A full disk is said, not hidden: `claude` cannot save a turn's reply there and says nothing.

use paddock_proto::{ChatEvent, NoticeKind, Reply, Request};

use crate::harness::*;

#[tokio::test]
async fn a_reply_a_full_disk_kept_out_of_the_transcript_ends_the_turn_saying_so() {
    let data = tempfile::tempdir().unwrap();
    let d = TestDaemon::start_with(on_data_dir(data.path())).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "hello").await;
    let frames = c.frames_until_complete(&first.session_id).await;
    assert!(complete_of(&frames).success);
    let status = match c.request(Request::DaemonStatus).await.unwrap() {
        Reply::Status(s) => s,
        other => panic!("expected status, got {other:?}"),
    };
    assert!(status.low_disk.is_empty(), "{:?}", status.low_disk);
    drop(c);
    d.stop().await.unwrap();

    // The same chat continued while every transcript write fails, with a floor no disk meets.
    let on_data = on_data_dir(data.path());
    let d = TestDaemon::start_with(|cfg| {
        on_data(cfg);
        cfg.disk_floor_bytes = u64::MAX;
        cfg.claude_env
            .push(("FAKE_CLAUDE_DISK_FULL".into(), "1".into()));
    })
    .await;
    let mut c = d.client().await;
    let sent = c
        .send_turn("", Some(&first.session_id), "second question")
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert_eq!(
        text_of(&frames),
        "echo: second question",
        "the reply still streams"
    );
    let notice = frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::Notice(n) if n.kind == NoticeKind::Info => Some(n.message.clone()),
            _ => None,
        })
        .expect("a notice that the reply was not saved");
    assert!(notice.contains("is full"), "{notice}");
    assert!(notice.contains("reply was not saved"), "{notice}");
    assert!(
        notice.contains(&format!("paddock send -c {} …", first.session_id)),
        "{notice}"
    );
    let done = complete_of(&frames);
    assert!(!done.success, "a turn whose reply was lost did not succeed");
    assert!(done.error.as_deref().unwrap_or("").contains("disk is full"));

    let status = match c.request(Request::DaemonStatus).await.unwrap() {
        Reply::Status(s) => s,
        other => panic!("expected status, got {other:?}"),
    };
    assert!(!status.low_disk.is_empty(), "status names the low disk");
    assert_eq!(status.low_disk[0].floor_bytes, u64::MAX);
    d.stop().await.unwrap();
}
