//! The approvals inbox: a tool no rule allows waits for a person; every client sees it; an
//! answer (allow, deny, always) reaches the waiting turn; a turn that ends takes its approvals.

use std::time::Duration;

use paddock_proto::{
    Approval, ApprovalAnswer, ApprovalDecision, ChatCancel, ChatEvent, ControlMessage, ErrorCode,
    Reply, Request, ServerMessage,
};

use crate::harness::*;

const BASH: &str = r#"fake:[{"tool":"Bash","input":{"command":"make deploy"},"output":"deployed","ask":true},{"text":"done"}]"#;

async fn pending(c: &mut RawClient) -> Vec<Approval> {
    let Reply::Approvals(a) = c.request(Request::ApprovalList).await.unwrap() else {
        panic!("not approvals")
    };
    a.approvals
}

async fn wait_pending(c: &mut RawClient, n: usize) -> Vec<Approval> {
    tokio::time::timeout(DEADLINE, async {
        loop {
            let list = pending(c).await;
            if list.len() == n {
                return list;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("never {n} pending approvals"))
}

async fn answer(c: &mut RawClient, ids: Vec<String>, decision: ApprovalDecision) -> Reply {
    c.request(Request::ApprovalAnswer(ApprovalAnswer {
        ids,
        decision,
        message: None,
    }))
    .await
    .unwrap()
}

#[tokio::test]
async fn allow_reaches_the_waiting_turn_and_every_client_hears_of_it() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let mut watcher = d.client().await;
    let sent = c.send_turn("", None, BASH).await;
    // The watcher is told an approval is pending.
    let changed = tokio::time::timeout(DEADLINE, async {
        loop {
            if let ServerMessage::Control(ControlMessage::ApprovalsChanged(a)) =
                watcher.next().await
            {
                return a;
            }
        }
    })
    .await
    .expect("approvals:changed");
    assert_eq!(changed.pending, 1);
    // A client that connects now hears of it at once.
    let mut late = d.client().await;
    let at_connect = tokio::time::timeout(DEADLINE, async {
        loop {
            if let ServerMessage::Control(ControlMessage::ApprovalsChanged(a)) = late.next().await {
                return a;
            }
        }
    })
    .await
    .expect("approvals:changed at connect");
    assert_eq!(at_connect.pending, 1);

    let list = wait_pending(&mut watcher, 1).await;
    assert_eq!(list[0].tool, "Bash");
    assert_eq!(list[0].origin, paddock_proto::Origin::Human);
    let reply = answer(
        &mut watcher,
        vec![list[0].id.clone()],
        ApprovalDecision::Allow,
    )
    .await;
    assert_eq!(
        reply,
        Reply::Updated(paddock_proto::Updated {
            changed: 1,
            notes: Vec::new()
        })
    );
    let frames = c.frames_until_complete(&sent.session_id).await;
    let call = frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::ToolCall(t) => Some(t.clone()),
            _ => None,
        })
        .expect("the tool ran");
    assert!(!call.is_error, "{call:?}");
    assert!(complete_of(&frames).success);
    assert!(pending(&mut c).await.is_empty());
    d.stop().await.unwrap();
}

#[tokio::test]
async fn always_adds_a_rule_so_the_next_call_is_not_asked() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, BASH).await;
    let list = wait_pending(&mut c, 1).await;
    answer(&mut c, vec![list[0].id.clone()], ApprovalDecision::Always).await;
    c.frames_until_complete(&sent.session_id).await;
    let toml = std::fs::read_to_string(d.cfg.data_dir.join("workspace/project.toml")).unwrap();
    assert!(
        toml.contains(&format!("{:?}", list[0].always_rules[0])),
        "{toml}"
    );
    assert!(!toml.contains("\"Bash\""), "never the whole tool: {toml}");
    // The next Bash call in a new chat runs without asking.
    let again = c.send_turn("", None, BASH).await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert!(complete_of(&frames).success);
    assert!(pending(&mut c).await.is_empty());
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_cancelled_turn_takes_its_approvals_and_answers_are_validated() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, BASH).await;
    let list = wait_pending(&mut c, 1).await;
    // All-or-nothing: one unknown id answers none.
    let err = c
        .request(Request::ApprovalAnswer(ApprovalAnswer {
            ids: vec![list[0].id.clone(), "apr_nope".into()],
            decision: ApprovalDecision::Allow,
            message: None,
        }))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(pending(&mut c).await.len(), 1, "nothing was answered");
    let err = c
        .request(Request::ApprovalAnswer(ApprovalAnswer {
            ids: vec![],
            decision: ApprovalDecision::Allow,
            message: None,
        }))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    // Cancel: the turn ends and its approval goes.
    c.request(Request::ChatCancel(ChatCancel {
        session_id: sent.session_id.clone(),
        job_id: None,
    }))
    .await
    .unwrap();
    c.frames_until_complete(&sent.session_id).await;
    wait_pending(&mut c, 0).await;
    d.stop().await.unwrap();
}
