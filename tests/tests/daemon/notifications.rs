//! `attention` events: a client that asked (`notifications:subscribe`) is told when a chat needs
//! the user — an unattended run finished, a run failed, a tool call waits for approval — once,
//! and not while some client watches the chat.

use paddock_proto::{
    Attention, AttentionKind, ControlMessage, Origin, Reply, Request, ServerMessage, TriggerFire,
    TriggerSet,
};

use crate::harness::*;

/// The next `attention` this client receives (other messages are skipped).
async fn next_attention(c: &mut RawClient) -> Attention {
    loop {
        if let ServerMessage::Control(ControlMessage::Attention(a)) = c.next().await {
            return a;
        }
    }
}

async fn subscribe(c: &mut RawClient) {
    assert_eq!(
        c.request(Request::NotificationsSubscribe).await.unwrap(),
        Reply::Ack
    );
}

/// A script that writes a little, waits, then fails with an API error.
fn failing_slowly(ms: u64) -> String {
    format!(
        r#"fake:[{{"text":"working","chunks":1,"delay_ms":{ms}}},{{"api_error":500,"message":"boom"}}]"#
    )
}

#[tokio::test]
async fn failures_and_unattended_runs_reach_subscribed_clients_once_unless_watched() {
    let d = TestDaemon::start().await;
    let mut listener = d.client().await;
    subscribe(&mut listener).await;

    // A run someone watches to its end: nobody is told.
    let mut watcher = d.client().await;
    let watched = watcher.send_turn("", None, &failing_slowly(0)).await;
    let frames = watcher.frames_until_complete(&watched.session_id).await;
    assert!(!complete_of(&frames).success);

    // A run whose sender left: the failure needs the user.
    let mut sender = d.client().await;
    let left = sender.send_turn("", None, &failing_slowly(1500)).await;
    drop(sender);
    let a = next_attention(&mut listener).await;
    assert_eq!(
        a.id,
        format!("run:{}", left.job_id),
        "the watched run is not announced"
    );
    assert_eq!(a.kind, AttentionKind::Failed);
    assert_eq!(a.session_id, left.session_id);
    assert_eq!(a.body, "Run failed");
    assert!(!a.title.is_empty());

    // A hook run: it finishing unattended needs the user.
    listener
        .request(Request::TriggerSet(Box::new(TriggerSet {
            project_slug: String::new(),
            name: "review".into(),
            spec: serde_json::from_value(serde_json::json!(
                {"kind": "hook", "prompt": "Review the diff.", "on": "manual"}
            ))
            .unwrap(),
        })))
        .await
        .unwrap();
    let Reply::Fired(fired) = listener
        .request(Request::TriggerFire(TriggerFire {
            project_slug: String::new(),
            name: "review".into(),
            message: None,
        }))
        .await
        .unwrap()
    else {
        panic!("not fired")
    };
    let a = next_attention(&mut listener).await;
    assert_eq!(a.kind, AttentionKind::Finished, "{a:#?}");
    assert_eq!(a.origin, Origin::Hook);
    assert_eq!(a.body, "Hook run (review) finished");
    assert_eq!(Some(a.session_id.clone()), fired.session_id);

    // A client that did not ask is never told; a second listener is told the next one too.
    let mut quiet = d.client().await;
    let mut second = d.client().await;
    subscribe(&mut second).await;
    let mut sender = d.client().await;
    let again = sender.send_turn("", None, &failing_slowly(1500)).await;
    drop(sender);
    for c in [&mut listener, &mut second] {
        let a = next_attention(c).await;
        assert_eq!(a.id, format!("run:{}", again.job_id));
    }
    // Its queue is in order: whatever the hub sent it came before this answer.
    assert_eq!(quiet.request(Request::Ping).await.unwrap(), Reply::Pong);
    while let Some(m) = quiet.try_next(std::time::Duration::from_millis(0)).await {
        assert!(
            !matches!(m, ServerMessage::Control(ControlMessage::Attention(_))),
            "{m:?}"
        );
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_tool_call_waiting_for_approval_is_announced() {
    let d = TestDaemon::start().await;
    let mut listener = d.client().await;
    subscribe(&mut listener).await;
    let mut sender = d.client().await;
    let script = r#"fake:[{"tool":"Bash","input":{"command":"rm -rf build"},"output":"","ask":true},{"text":"done"}]"#;
    let sent = sender.send_turn("", None, script).await;
    drop(sender);
    let a = next_attention(&mut listener).await;
    assert_eq!(a.kind, AttentionKind::Approval, "{a:#?}");
    assert!(a.id.starts_with("approval:"), "{}", a.id);
    assert_eq!(a.session_id, sent.session_id);
    assert_eq!(a.body, "Bash needs your approval: rm -rf build");
    d.stop().await.unwrap();
}
