//! "While you were away" counts what waits for you: an unattended run whose tool call waits
//! in the approvals inbox is listed by `paddock history --unattended` as waiting for you (not
//! as running) and counted in the banner. The real CLI makes the call.

use std::time::Duration;

use paddock_proto::{Reply, Request, TriggerFire, TriggerSet};

use crate::depth::chats;
use crate::real_cli::real_daemon;
use crate::turn_endings::paddock;

#[tokio::test]
async fn real_cli_a_trigger_run_waiting_on_an_approval_is_listed_as_waiting_for_you() {
    let api = paddock_tests::mock_api::MockApi::start().await.unwrap();
    let d = real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    let set = c
        .request(Request::TriggerSet(Box::new(TriggerSet {
            project_slug: String::new(),
            name: "nightly".into(),
            spec: serde_json::from_value(serde_json::json!({
                "kind": "hook", "on": "manual", "session": "new",
                "prompt": r#"mock:tool Bash {"command": "touch made-by-night"}"#,
            }))
            .unwrap(),
        })))
        .await;
    assert!(matches!(set, Ok(Reply::Trigger(_))), "{set:?}");
    let fired = c
        .request(Request::TriggerFire(TriggerFire {
            project_slug: String::new(),
            name: "nightly".into(),
            message: None,
        }))
        .await;
    assert!(matches!(fired, Ok(Reply::Fired(_))), "{fired:?}");
    // Its Bash call waits for a person.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !chats(&mut c, "").await.iter().any(|r| r.waiting_approval) {
        assert!(tokio::time::Instant::now() < deadline, "nothing asked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let (code, stdout, stderr) = paddock(&d, &["history", "--unattended"]).output().await;
    assert_eq!(code, Some(0), "{stderr}");
    let row = stdout
        .lines()
        .find(|l| l.contains("hook"))
        .unwrap_or_else(|| panic!("the run is listed: {stdout}"));
    assert!(
        row.contains("waiting for you") && !row.contains("running"),
        "{row}"
    );
    assert!(
        stdout.contains("while you were away: 1 waits for you"),
        "the banner counts it: {stdout}"
    );
    let (_, json, _) = paddock(&d, &["history", "--unattended", "--json"])
        .output()
        .await;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["waiting"], 1, "{json}");
    assert_eq!(v["runs"][0]["waiting"], true, "{json}");
    d.stop().await.unwrap();
}
