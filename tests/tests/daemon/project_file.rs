//! A hand-written `project.toml` survives the daemon's writes: `trigger:set` (add and
//! replace), `trigger:remove` and an "always" approval edit the document, so the user's
//! comments, blank lines, order and keys stay; a file that does not parse is not touched.

use std::time::Duration;

use paddock_proto::{
    ApprovalAnswer, ApprovalDecision, ErrorBody, Reply, Request, TriggerInfo, TriggerList,
    TriggerRef, TriggerSet,
};
use serde_json::{Value, json};

use crate::harness::*;

/// Comments on top, inline and between tables, keys in the user's order, and a trigger with
/// a key this version does not know (kept, and reported as broken).
const HAND: &str = r#"# Settings of the root workspace.
# Written by hand.

allowed_tools = ["Read"]   # reading is fine
max_spawn_depth = 2

# ---- triggers ----

# Every night.
[triggers.nightly]
prompt = "Check the backup."   # keep it short
kind = "schedule"
cron = "0 2 * * *"

# From a later paddock.
[triggers.future]
kind = "hook"
prompt = "Later."
on = "manual"
retries = 3   # not known here
"#;

fn file(d: &TestDaemon) -> std::path::PathBuf {
    d.cfg.data_dir.join("workspace/project.toml")
}

fn read(d: &TestDaemon) -> String {
    std::fs::read_to_string(file(d)).unwrap()
}

async fn set(c: &mut RawClient, name: &str, spec: Value) -> Result<Reply, ErrorBody> {
    c.request(Request::TriggerSet(Box::new(TriggerSet {
        project_slug: String::new(),
        name: name.into(),
        spec: serde_json::from_value(spec).unwrap(),
    })))
    .await
}

async fn remove(c: &mut RawClient, name: &str) -> Result<Reply, ErrorBody> {
    c.request(Request::TriggerRemove(TriggerRef {
        project_slug: String::new(),
        name: name.into(),
    }))
    .await
}

async fn list(c: &mut RawClient) -> Vec<TriggerInfo> {
    match c
        .request(Request::TriggerList(TriggerList {
            project_slug: Some(String::new()),
        }))
        .await
    {
        Ok(Reply::Triggers(t)) => t.triggers,
        other => panic!("trigger:list: {other:?}"),
    }
}

#[tokio::test]
async fn trigger_add_replace_and_remove_keep_a_hand_written_file() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    std::fs::write(file(&d), HAND).unwrap();

    // Add: appended as a table of its own, nothing else changes.
    set(
        &mut c,
        "inbox",
        json!({"kind": "schedule", "prompt": "Inbox.", "every": "15m"}),
    )
    .await
    .unwrap();
    let added = read(&d);
    assert_eq!(
        added,
        format!(
            "{HAND}\n[triggers.inbox]\nkind = \"schedule\"\nprompt = \"Inbox.\"\nevery = \"15m\"\n"
        )
    );
    let all = list(&mut c).await;
    let names: Vec<&str> = all.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["future", "inbox", "nightly"]);
    assert!(
        all[0].problem.as_deref().unwrap_or("").contains("retries"),
        "{all:#?}"
    );
    assert!(all[1].problem.is_none() && all[2].problem.is_none());

    // Replace: edited in place, the unchanged prompt keeps its comment.
    set(
        &mut c,
        "nightly",
        json!({"kind": "schedule", "prompt": "Check the backup.", "cron": "0 3 * * *"}),
    )
    .await
    .unwrap();
    let replaced = read(&d);
    assert_eq!(
        replaced,
        added.replace("cron = \"0 2 * * *\"", "cron = \"0 3 * * *\"")
    );
    let nightly = list(&mut c).await.into_iter().find(|t| t.name == "nightly");
    assert_eq!(nightly.unwrap().spec.cron.as_deref(), Some("0 3 * * *"));

    // Remove: the table and its own comment go; the banner above it stays.
    remove(&mut c, "nightly").await.unwrap();
    let removed = read(&d);
    assert_eq!(
        removed,
        replaced.replace(
            "# Every night.\n[triggers.nightly]\nprompt = \"Check the backup.\"   # keep it short\nkind = \"schedule\"\ncron = \"0 3 * * *\"\n\n",
            ""
        )
    );
    assert!(
        removed.contains("retries = 3   # not known here"),
        "{removed}"
    );

    // The last one gone: no `[triggers` left behind, the user's comments still there.
    remove(&mut c, "future").await.unwrap();
    remove(&mut c, "inbox").await.unwrap();
    assert_eq!(
        read(&d),
        "# Settings of the root workspace.\n# Written by hand.\n\nallowed_tools = [\"Read\"]   # reading is fine\nmax_spawn_depth = 2\n\n# ---- triggers ----\n"
    );
    assert!(list(&mut c).await.is_empty());
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_file_that_does_not_parse_is_never_rewritten() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let broken = "# mine\nallowed_tools = [\"Read\"\n\n[triggers.x]\nkind = \"hook\"\n";
    std::fs::write(file(&d), broken).unwrap();
    let err = set(
        &mut c,
        "inbox",
        json!({"kind": "hook", "prompt": "p", "on": "manual"}),
    )
    .await
    .unwrap_err();
    assert!(err.message.contains("line "), "{}", err.message);
    assert!(err.message.contains("fix it by hand"), "{}", err.message);
    let err = remove(&mut c, "x").await.unwrap_err();
    assert!(err.message.contains("fix it by hand"), "{}", err.message);
    assert_eq!(read(&d), broken);
    // Fixed by hand, it is edited again.
    let fixed = broken.replace("\"Read\"\n", "\"Read\"]\n") + "prompt = \"p\"\non = \"manual\"\n";
    std::fs::write(file(&d), &fixed).unwrap();
    remove(&mut c, "x").await.unwrap();
    assert_eq!(read(&d), "# mine\nallowed_tools = [\"Read\"]\n");
    d.stop().await.unwrap();
}

const BASH: &str = r#"fake:[{"tool":"Bash","input":{"command":"make deploy"},"output":"deployed","ask":true},{"text":"done"}]"#;

#[tokio::test]
async fn an_always_rule_joins_the_hand_written_list() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    std::fs::write(file(&d), HAND).unwrap();
    let sent = c.send_turn("", None, BASH).await;
    let pending = tokio::time::timeout(DEADLINE, async {
        loop {
            let Ok(Reply::Approvals(a)) = c.request(Request::ApprovalList).await else {
                panic!("approval:list")
            };
            if let Some(first) = a.approvals.into_iter().next() {
                return first;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await
    .expect("a pending approval");
    c.request(Request::ApprovalAnswer(ApprovalAnswer {
        ids: vec![pending.id],
        decision: ApprovalDecision::Always,
        message: None,
    }))
    .await
    .unwrap();
    c.frames_until_complete(&sent.session_id).await;
    assert_eq!(
        read(&d),
        HAND.replace(
            "allowed_tools = [\"Read\"]",
            "allowed_tools = [\"Read\", \"Bash(make deploy:*)\"]"
        )
    );
    // The rule holds: the next call is not asked.
    let again = c.send_turn("", None, BASH).await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert!(complete_of(&frames).success);
    d.stop().await.unwrap();
}
