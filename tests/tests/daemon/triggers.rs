//! Schedules and hooks over the socket: `trigger:set/list/remove/fire`, the scheduler, missed
//! fires at start, resume across fires and restarts, skip-while-running, the lifecycle hooks,
//! `file_changed`, a hand-broken `project.toml`, and the agents' trigger tools.

use std::path::{Path, PathBuf};
use std::time::Duration;

use paddock_proto::{
    AgentCall, Attribution, ChatAction, ChatList, ChatScope, ChatSummary, ChatUpdate, ErrorBody,
    ErrorCode, Fired, HistoryList, Origin, Reply, Request, RunStatus, RunSummary, SessionIds,
    SessionRef, TranscriptEntry, TriggerFire, TriggerInfo, TriggerList, TriggerRef, TriggerSet,
    TriggerSpec,
};
use serde_json::{Value, json};

use crate::harness::*;

const SKIPPED: &str = "its previous run is still going";

/// A daemon whose schedules may fire every second.
async fn daemon(tune: impl FnOnce(&mut paddockd::Config)) -> TestDaemon {
    TestDaemon::start_with(|c| {
        c.min_trigger_interval = Duration::from_secs(1);
        tune(c);
    })
    .await
}

/// A daemon on a data folder that outlives it (for restarts).
async fn daemon_on(data: &Path) -> TestDaemon {
    let data = data.to_path_buf();
    daemon(move |c| {
        c.claude_home = data.join("claude-home");
        c.host_claude_home = data.join("host-claude");
        c.log = data.join("paddockd.log");
        c.data_dir = data;
    })
    .await
}

fn spec(v: Value) -> TriggerSpec {
    serde_json::from_value(v).expect("a trigger spec")
}

async fn set(
    c: &mut RawClient,
    project: &str,
    name: &str,
    s: Value,
) -> Result<TriggerInfo, ErrorBody> {
    c.request(Request::TriggerSet(Box::new(TriggerSet {
        project_slug: project.into(),
        name: name.into(),
        spec: spec(s),
    })))
    .await
    .map(|r| match r {
        Reply::Trigger(t) => *t,
        other => panic!("trigger:set answered {other:?}"),
    })
}

async fn list(c: &mut RawClient, project: Option<&str>) -> Vec<TriggerInfo> {
    match c
        .request(Request::TriggerList(TriggerList {
            project_slug: project.map(str::to_owned),
        }))
        .await
    {
        Ok(Reply::Triggers(t)) => t.triggers,
        other => panic!("trigger:list: {other:?}"),
    }
}

async fn fire(c: &mut RawClient, project: &str, name: &str, message: Option<&str>) -> Fired {
    match c
        .request(Request::TriggerFire(TriggerFire {
            project_slug: project.into(),
            name: name.into(),
            message: message.map(str::to_owned),
        }))
        .await
    {
        Ok(Reply::Fired(f)) => f,
        other => panic!("trigger:fire {name}: {other:?}"),
    }
}

async fn remove(c: &mut RawClient, project: &str, name: &str) -> Result<Reply, ErrorBody> {
    c.request(Request::TriggerRemove(TriggerRef {
        project_slug: project.into(),
        name: name.into(),
    }))
    .await
}

async fn chats(c: &mut RawClient) -> Vec<ChatSummary> {
    match c
        .request(Request::ChatList(ChatList {
            project_slug: None,
            scope: ChatScope::All,
            since: None,
            full_titles: false,
        }))
        .await
    {
        Ok(Reply::Chats(chats)) => chats.chats,
        other => panic!("chat:list: {other:?}"),
    }
}

async fn runs(c: &mut RawClient) -> Vec<RunSummary> {
    match c
        .request(Request::HistoryList(HistoryList {
            project_slug: None,
            unattended: false,
            limit: Some(500),
        }))
        .await
    {
        Ok(Reply::History(h)) => h.runs,
        other => panic!("history:list: {other:?}"),
    }
}

/// Polls the chat list until `pred` holds.
async fn wait_chats(
    c: &mut RawClient,
    what: &str,
    pred: impl Fn(&[ChatSummary]) -> bool,
) -> Vec<ChatSummary> {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let now = chats(c).await;
        if pred(&now) {
            return now;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never: {what}; chats: {now:#?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Waits until no chat runs and every chat is indexed with at least one reply.
async fn wait_settled(c: &mut RawClient) -> Vec<ChatSummary> {
    wait_chats(c, "all chats settled", |all| {
        all.iter().all(|x| !x.running && x.message_count >= 2)
    })
    .await
}

fn by_trigger<'a>(all: &'a [ChatSummary], name: &str) -> Vec<&'a ChatSummary> {
    all.iter()
        .filter(|x| x.trigger.as_deref() == Some(name))
        .collect()
}

async fn transcript(c: &mut RawClient, sid: &str) -> Vec<TranscriptEntry> {
    match c
        .request(Request::ChatTranscript(SessionRef {
            session_id: sid.into(),
        }))
        .await
    {
        Ok(Reply::Transcript(t)) => t.entries,
        other => panic!("chat:transcript: {other:?}"),
    }
}

/// The user turns of a transcript: (text, attribution).
fn user_turns(entries: &[TranscriptEntry]) -> Vec<(String, Option<Attribution>)> {
    entries
        .iter()
        .filter_map(|e| match e {
            TranscriptEntry::User {
                text, attribution, ..
            } => Some((text.clone(), attribution.clone())),
            _ => None,
        })
        .collect()
}

fn runs_of<'a>(all: &'a [RunSummary], name: &str) -> Vec<&'a RunSummary> {
    all.iter()
        .filter(|r| r.trigger.as_deref() == Some(name))
        .collect()
}

#[tokio::test]
async fn set_list_remove_round_trip_and_validation() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let nightly = set(
        &mut c,
        "",
        "nightly-backup",
        json!({"kind": "schedule", "prompt": "Check the backup.", "cron": "0 2 * * *",
               "timezone": "Europe/Berlin", "missed": "run_once", "session": "resume"}),
    )
    .await
    .unwrap();
    assert_eq!(nightly.project_slug, "");
    let next = nightly.next_fire.clone().expect("a next fire");
    let next = chrono::DateTime::parse_from_rfc3339(&next).unwrap();
    assert!(next > chrono::Utc::now());
    assert!(next < chrono::Utc::now() + chrono::TimeDelta::hours(25));
    assert!(nightly.problem.is_none() && nightly.last_fire.is_none());
    set(
        &mut c,
        "",
        "review",
        json!({"kind": "hook", "prompt": "Review it.", "on": "turn_completed"}),
    )
    .await
    .unwrap();
    let inbox = set(
        &mut c,
        "",
        "inbox",
        json!({"kind": "schedule", "prompt": "Inbox.", "every": "15m", "enabled": false}),
    )
    .await
    .unwrap();
    assert!(
        inbox.next_fire.is_none(),
        "a disabled schedule never fires on its own"
    );

    let all = list(&mut c, None).await;
    let names: Vec<&str> = all.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["inbox", "nightly-backup", "review"]);
    assert!(all.iter().all(|t| t.problem.is_none()), "{all:#?}");
    assert!(all[2].next_fire.is_none(), "hooks have no next fire");
    assert_eq!(all[1].spec.timezone.as_deref(), Some("Europe/Berlin"));
    assert_eq!(list(&mut c, Some("")).await.len(), 3);
    let file = std::fs::read_to_string(d.cfg.data_dir.join("workspace/project.toml")).unwrap();
    assert!(file.contains("[triggers.nightly-backup]"), "{file}");

    // Replacing keeps one entry.
    set(
        &mut c,
        "",
        "review",
        json!({"kind": "hook", "prompt": "Review it again.", "on": "turn_failed"}),
    )
    .await
    .unwrap();
    let all = list(&mut c, Some("")).await;
    assert_eq!(all.len(), 3);
    assert_eq!(all[2].spec.prompt, "Review it again.");

    // What trigger:set refuses, and why.
    let bad = [
        (
            "x",
            json!({"kind": "schedule", "prompt": "p", "cron": "0 2 * *"}),
            "fields",
        ),
        (
            "x",
            json!({"kind": "schedule", "prompt": "p", "cron": "99 2 * * *"}),
            "cron",
        ),
        (
            "x",
            json!({"kind": "schedule", "prompt": "p", "cron": "0 2 * * *", "timezone": "Mars/Olympus"}),
            "unknown time zone \"Mars/Olympus\"",
        ),
        (
            "x",
            json!({"kind": "schedule", "prompt": "p", "cron": "0 2 * * *", "every": "15m"}),
            "not both",
        ),
        ("x", json!({"kind": "schedule", "prompt": "p"}), "cron"),
        (
            "x",
            json!({"kind": "schedule", "prompt": "p", "every": "fortnightly"}),
            "interval",
        ),
        ("x", json!({"kind": "hook", "prompt": "p"}), "needs on"),
        (
            "x",
            json!({"kind": "hook", "prompt": " ", "on": "manual"}),
            "prompt",
        ),
        (
            "Bad Name",
            json!({"kind": "hook", "prompt": "p", "on": "manual"}),
            "invalid trigger name",
        ),
    ];
    for (name, s, want) in bad {
        let err = set(&mut c, "", name, s.clone()).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument, "{s}");
        assert!(err.message.contains(want), "{s}: {}", err.message);
    }
    let err = set(
        &mut c,
        "nope",
        "x",
        json!({"kind": "hook", "prompt": "p", "on": "manual"}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(
        list(&mut c, Some("")).await.len(),
        3,
        "nothing bad was written"
    );

    assert_eq!(remove(&mut c, "", "review").await.unwrap(), Reply::Ack);
    assert_eq!(
        remove(&mut c, "", "review").await.unwrap_err().code,
        ErrorCode::NotFound
    );
    remove(&mut c, "", "inbox").await.unwrap();
    remove(&mut c, "", "nightly-backup").await.unwrap();
    assert!(list(&mut c, None).await.is_empty());
    let file = std::fs::read_to_string(d.cfg.data_dir.join("workspace/project.toml")).unwrap();
    assert!(!file.contains("triggers"), "{file}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_schedule_fires_a_scheduled_chat() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    set(
        &mut c,
        "",
        "tick",
        json!({"kind": "schedule", "prompt": "Tick tock.", "every": "1s"}),
    )
    .await
    .unwrap();
    let all = wait_chats(&mut c, "a scheduled chat", |all| {
        all.iter()
            .any(|x| x.trigger.as_deref() == Some("tick") && x.message_count >= 2)
    })
    .await;
    // No more fires from here on.
    remove(&mut c, "", "tick").await.unwrap();
    let chat = by_trigger(&all, "tick")[0].clone();
    assert_eq!(chat.origin, Origin::Scheduled);
    assert_eq!(chat.depth, 0);
    assert!(chat.parent_session_id.is_none());
    let turns = user_turns(&transcript(&mut c, &chat.session_id).await);
    assert_eq!(turns[0].0, "Tick tock.");
    assert_eq!(
        turns[0].1,
        Some(Attribution::Scheduled {
            name: "tick".into()
        })
    );
    let history = runs(&mut c).await;
    let fired = runs_of(&history, "tick");
    assert!(!fired.is_empty());
    assert!(fired.iter().all(|r| r.origin == Origin::Scheduled));
    d.stop().await.unwrap();
}

#[tokio::test]
async fn resume_accretes_into_one_chat_across_fires_and_a_restart() {
    let data = tempfile::tempdir().unwrap();
    let d = daemon_on(data.path()).await;
    let mut c = d.client().await;
    let info = set(
        &mut c,
        "",
        "standup",
        json!({"kind": "schedule", "prompt": "Daily standup.", "every": "1h", "session": "resume"}),
    )
    .await
    .unwrap();
    assert!(info.session_id.is_none(), "no chat before the first fire");
    let first = fire(&mut c, "", "standup", None).await;
    let sid = first.session_id.clone().expect("a chat");
    assert!(first.skipped.is_none());
    wait_settled(&mut c).await;
    let second = fire(&mut c, "", "standup", Some("Standup, second time.")).await;
    assert_eq!(second.session_id.as_deref(), Some(sid.as_str()));
    wait_chats(&mut c, "the second fire answered", |all| {
        all.iter().all(|x| !x.running && x.message_count >= 4)
    })
    .await;
    let listed = list(&mut c, Some("")).await;
    assert_eq!(listed[0].session_id.as_deref(), Some(sid.as_str()));
    assert_eq!(listed[0].last_status, Some(RunStatus::Completed));
    d.stop().await.unwrap();

    // A new daemon on the same data: the third fire goes into the same chat.
    let d = daemon_on(data.path()).await;
    let mut c = d.client().await;
    let third = fire(&mut c, "", "standup", None).await;
    assert_eq!(third.session_id.as_deref(), Some(sid.as_str()));
    let all = wait_chats(&mut c, "the third fire answered", |all| {
        all.iter().all(|x| !x.running && x.message_count >= 6)
    })
    .await;
    assert_eq!(all.len(), 1, "one chat for every fire: {all:#?}");
    let turns = user_turns(&transcript(&mut c, &sid).await);
    assert_eq!(turns.len(), 3, "{turns:#?}");
    assert_eq!(turns[1].0, "Standup, second time.");
    assert!(turns.iter().all(|(_, a)| *a
        == Some(Attribution::Scheduled {
            name: "standup".into()
        })));

    // The chat it owned is deleted: the next fire starts (and keeps) a new one.
    c.request(Request::ChatDelete(SessionIds {
        session_ids: vec![sid.clone()],
    }))
    .await
    .unwrap();
    let fourth = fire(&mut c, "", "standup", None).await;
    let new_sid = fourth.session_id.expect("a new chat");
    assert_ne!(new_sid, sid);
    wait_settled(&mut c).await;
    let listed = list(&mut c, Some("")).await;
    assert_eq!(listed[0].session_id.as_deref(), Some(new_sid.as_str()));
    let fifth = fire(&mut c, "", "standup", None).await;
    assert_eq!(fifth.session_id.as_deref(), Some(new_sid.as_str()));
    wait_settled(&mut c).await;
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_fire_while_the_previous_run_is_going_is_skipped_and_recorded() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    set(
        &mut c,
        "",
        "slow",
        json!({"kind": "hook", "prompt": r#"fake:[{"text":"working","chunks":1},{"hang":true}]"#,
               "on": "manual", "enabled": false}),
    )
    .await
    .unwrap();
    let first = fire(&mut c, "", "slow", None).await;
    let sid = first.session_id.expect("a chat");
    wait_chats(&mut c, "the hook chat running", |all| {
        all.iter().any(|x| x.session_id == sid && x.running)
    })
    .await;
    let again = fire(&mut c, "", "slow", None).await;
    assert_eq!(again.skipped.as_deref(), Some(SKIPPED));
    assert!(again.session_id.is_none());
    let history = runs(&mut c).await;
    let slow = runs_of(&history, "slow");
    assert_eq!(slow.len(), 2, "{slow:#?}");
    assert_eq!(slow[0].status, RunStatus::Skipped);
    assert_eq!(slow[0].origin, Origin::Hook);
    assert_eq!(slow[0].project_slug, "");
    assert_eq!(slow[1].status, RunStatus::Running);
    let listed = list(&mut c, Some("")).await;
    assert_eq!(listed[0].last_status, Some(RunStatus::Skipped));

    // Once it ends, the trigger fires again.
    c.request(Request::ChatCancel(paddock_proto::ChatCancel {
        session_id: sid.clone(),
        job_id: None,
    }))
    .await
    .unwrap();
    wait_chats(&mut c, "the hook chat stopped", |all| {
        all.iter().any(|x| x.session_id == sid && !x.running)
    })
    .await;
    let third = fire(&mut c, "", "slow", None).await;
    assert!(third.skipped.is_none());
    let other = third.session_id.expect("a new chat");
    assert_ne!(other, sid);
    wait_chats(&mut c, "the second hook chat running", |all| {
        all.iter().any(|x| x.session_id == other && x.running)
    })
    .await;
    c.request(Request::ChatCancel(paddock_proto::ChatCancel {
        session_id: other,
        job_id: None,
    }))
    .await
    .unwrap();
    d.stop().await.unwrap();
}

/// A run-log line, as the daemon writes it.
fn run_line(trigger: &str, started_at: &str) -> String {
    json!({"op": "start", "jobId": uuid::Uuid::new_v4().to_string(), "projectSlug": "",
           "sessionId": uuid::Uuid::new_v4().to_string(), "origin": "scheduled",
           "trigger": trigger, "startedAt": started_at, "status": "completed",
           "finishedAt": started_at})
    .to_string()
}

#[tokio::test]
async fn missed_fires_run_once_at_start_and_skip_drops_them() {
    let data = tempfile::tempdir().unwrap();
    let root = data.path().join("workspace");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("project.toml"),
        r#"
[triggers.a-skip]
kind = "schedule"
prompt = "Skipped catch-up."
every = "1h"

[triggers.b-never]
kind = "schedule"
prompt = "Never fired."
every = "1h"
missed = "run_once"

[triggers.zz-catchup]
kind = "schedule"
prompt = "Catching up."
every = "1h"
missed = "run_once"
"#,
    )
    .unwrap();
    let state = data.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let past = (chrono::Utc::now() - chrono::TimeDelta::hours(3)).to_rfc3339();
    std::fs::write(
        state.join("runs.jsonl"),
        format!(
            "{}\n{}\n",
            run_line("a-skip", &past),
            run_line("zz-catchup", &past)
        ),
    )
    .unwrap();

    let d = daemon_on(data.path()).await;
    let mut c = d.client().await;
    // The catch-ups run in name order: once zz-catchup's chat is there, the others were
    // looked at.
    let all = wait_chats(&mut c, "the catch-up fire", |all| {
        all.iter()
            .any(|x| x.trigger.as_deref() == Some("zz-catchup"))
    })
    .await;
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(all[0].origin, Origin::Scheduled);
    wait_settled(&mut c).await;
    let history = runs(&mut c).await;
    assert_eq!(
        runs_of(&history, "zz-catchup").len(),
        2,
        "one catch-up fire"
    );
    assert_eq!(
        runs_of(&history, "a-skip").len(),
        1,
        "skip drops missed fires"
    );
    assert!(
        runs_of(&history, "b-never").is_empty(),
        "never fired: missed nothing"
    );
    // Each is armed again, on its rhythm, in the future.
    for t in list(&mut c, Some("")).await {
        let next = chrono::DateTime::parse_from_rfc3339(t.next_fire.as_deref().unwrap()).unwrap();
        assert!(next > chrono::Utc::now(), "{t:?}");
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn lifecycle_hooks_fire_for_turns_and_never_for_their_own() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    set(
        &mut c,
        "",
        "done",
        json!({"kind": "hook", "prompt": "A turn completed: review it.", "on": "turn_completed"}),
    )
    .await
    .unwrap();
    set(
        &mut c,
        "",
        "oops",
        json!({"kind": "hook", "prompt": "A turn failed: find out why.", "on": "turn_failed"}),
    )
    .await
    .unwrap();
    let human = c.send_turn("", None, "hello").await;
    let all = wait_chats(&mut c, "the turn_completed hook chat", |all| {
        all.iter()
            .any(|x| x.trigger.as_deref() == Some("done") && x.message_count >= 2)
    })
    .await;
    let hook = by_trigger(&all, "done")[0].clone();
    assert_eq!(hook.origin, Origin::Hook);
    assert_eq!(hook.depth, 0);
    let turns = user_turns(&transcript(&mut c, &hook.session_id).await);
    assert!(turns[0].0.starts_with("A turn completed: review it."));
    assert!(turns[0].0.contains(&human.session_id), "{}", turns[0].0);
    assert_eq!(
        turns[0].1,
        Some(Attribution::Hook {
            name: "done".into()
        })
    );
    wait_settled(&mut c).await;

    // A failing turn fires the turn_failed hook, not turn_completed.
    let failing = c
        .send_turn("", None, r#"fake:[{"api_error":500,"message":"boom"}]"#)
        .await;
    wait_chats(&mut c, "the turn_failed hook chat", |all| {
        all.iter()
            .any(|x| x.trigger.as_deref() == Some("oops") && x.message_count >= 2)
    })
    .await;
    let all = wait_chats(&mut c, "all settled", |all| all.iter().all(|x| !x.running)).await;
    let oops = by_trigger(&all, "oops")[0].clone();
    let turns = user_turns(&transcript(&mut c, &oops.session_id).await);
    assert!(turns[0].0.contains(&failing.session_id), "{}", turns[0].0);

    // Neither hook fired for the hook chats' own turns (nor for the failed turn: "done").
    let history = runs(&mut c).await;
    assert_eq!(runs_of(&history, "done").len(), 1, "{history:#?}");
    assert_eq!(runs_of(&history, "oops").len(), 1, "{history:#?}");
    assert_eq!(all.len(), 4, "{all:#?}");
    d.stop().await.unwrap();
}

/// The token the daemon gave the newest process of `session` (the fake CLI never runs the
/// MCP bridge, so the test plays it).
fn token_of(d: &TestDaemon, session: &str) -> String {
    let argv = d
        .fake_argvs()
        .into_iter()
        .rev()
        .find(|argv| argv.iter().any(|a| a == session))
        .expect("a process for the chat");
    let at = argv
        .iter()
        .position(|a| a == "--mcp-config")
        .expect("--mcp-config");
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(&argv[at + 1]).unwrap()).unwrap();
    config["mcpServers"]["paddock"]["env"]["PADDOCK_AGENT_TOKEN"]
        .as_str()
        .expect("a token")
        .to_owned()
}

async fn call(c: &mut RawClient, token: &str, tool: &str, arguments: Value) -> (String, bool) {
    match c
        .request(Request::AgentCall(AgentCall {
            token: token.into(),
            server: "paddock_manage".into(),
            tool: tool.into(),
            arguments,
            tool_use_id: None,
        }))
        .await
    {
        Ok(Reply::AgentResult(r)) => (r.text, r.is_error),
        other => panic!("agent:call {tool}: {other:?}"),
    }
}

#[tokio::test]
async fn child_finished_fires_when_a_spawned_child_ends_a_turn() {
    let d = daemon(|c| c.mcp_bin = Some("/opt/paddock/bin/paddockd".into())).await;
    let mut c = d.client().await;
    set(
        &mut c,
        "",
        "children",
        json!({"kind": "hook", "prompt": "A sub-task finished: integrate it.", "on": "child_finished"}),
    )
    .await
    .unwrap();
    let parent = c.send_turn("", None, "manager").await;
    wait_settled(&mut c).await;
    assert!(
        runs_of(&runs(&mut c).await, "children").is_empty(),
        "a root chat is nobody's child"
    );
    let token = token_of(&d, &parent.session_id);
    let (text, is_error) = call(
        &mut c,
        &token,
        "create_chat",
        json!({"prompt": "child task"}),
    )
    .await;
    assert!(!is_error, "{text}");
    let child: Value = serde_json::from_str(&text).unwrap();
    let child = child["sessionId"].as_str().unwrap().to_owned();
    let all = wait_chats(&mut c, "the child_finished hook chat", |all| {
        all.iter()
            .any(|x| x.trigger.as_deref() == Some("children") && x.message_count >= 2)
    })
    .await;
    let hook = by_trigger(&all, "children")[0].clone();
    assert_eq!(hook.origin, Origin::Hook);
    let turns = user_turns(&transcript(&mut c, &hook.session_id).await);
    assert!(turns[0].0.starts_with("A sub-task finished"));
    assert!(turns[0].0.contains(&child), "{}", turns[0].0);
    assert!(turns[0].0.contains(&parent.session_id), "{}", turns[0].0);
    wait_settled(&mut c).await;
    assert_eq!(runs_of(&runs(&mut c).await, "children").len(), 1);
    d.stop().await.unwrap();
}

async fn archive(c: &mut RawClient, sid: &str) {
    c.request(Request::ChatUpdate(ChatUpdate {
        session_ids: vec![sid.to_owned()],
        action: ChatAction::Archive,
    }))
    .await
    .unwrap();
}

#[tokio::test]
async fn archived_fires_for_a_chat_archived_by_a_person_or_an_agent_never_for_its_own() {
    let d = daemon(|c| c.mcp_bin = Some("/opt/paddock/bin/paddockd".into())).await;
    let mut c = d.client().await;
    set(
        &mut c,
        "",
        "on-archive",
        json!({"kind": "hook", "prompt": "Record what the chat concluded.", "on": "archived"}),
    )
    .await
    .unwrap();
    let done = c.send_turn("", None, "a finished task").await;
    wait_settled(&mut c).await;
    assert!(
        runs_of(&runs(&mut c).await, "on-archive").is_empty(),
        "a turn is not an archive"
    );

    // A person archives it: the hook fires with the chat as context.
    archive(&mut c, &done.session_id).await;
    let all = wait_chats(&mut c, "the archived hook chat", |all| {
        all.iter()
            .any(|x| x.trigger.as_deref() == Some("on-archive") && x.message_count >= 2)
    })
    .await;
    let hook = by_trigger(&all, "on-archive")[0].clone();
    assert_eq!(hook.origin, Origin::Hook);
    let turns = user_turns(&transcript(&mut c, &hook.session_id).await);
    assert!(turns[0].0.starts_with("Record what the chat concluded."));
    assert!(
        turns[0].0.contains(&done.session_id) && turns[0].0.contains("by a person"),
        "{}",
        turns[0].0
    );
    wait_settled(&mut c).await;

    // Archiving it again changes nothing, and the hook's own chat never fires it.
    archive(&mut c, &done.session_id).await;
    archive(&mut c, &hook.session_id).await;

    // An agent archives a chat: the hook fires, naming the chat that did.
    let other = c.send_turn("", None, "another task").await;
    let manager = c.send_turn("", None, "manager").await;
    wait_settled(&mut c).await;
    let token = token_of(&d, &manager.session_id);
    let (text, is_error) = call(
        &mut c,
        &token,
        "archive_chat",
        json!({"sessionId": other.session_id}),
    )
    .await;
    assert!(!is_error, "{text}");
    let all = wait_chats(&mut c, "the second archived hook chat", |all| {
        by_trigger(all, "on-archive")
            .iter()
            .filter(|x| x.message_count >= 2)
            .count()
            >= 2
    })
    .await;
    let second = by_trigger(&all, "on-archive")
        .into_iter()
        .find(|x| x.session_id != hook.session_id)
        .expect("a second hook chat")
        .clone();
    let turns = user_turns(&transcript(&mut c, &second.session_id).await);
    assert!(
        turns[0].0.contains(&other.session_id) && turns[0].0.contains(&manager.session_id),
        "{}",
        turns[0].0
    );
    wait_settled(&mut c).await;
    assert_eq!(
        runs_of(&runs(&mut c).await, "on-archive").len(),
        2,
        "one fire per archive, none for the hook's own chat"
    );
    d.stop().await.unwrap();
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test]
async fn file_changed_fires_once_for_a_burst_of_matching_changes() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    let checkout: PathBuf = d.dir.path().join("checkout");
    c.request(Request::ProjectCreate(paddock_proto::ProjectCreate {
        slug: "web".into(),
        path: Some(checkout.to_string_lossy().into_owned()),
        ..Default::default()
    }))
    .await
    .unwrap();
    set(
        &mut c,
        "web",
        "docs",
        json!({"kind": "hook", "prompt": "The docs changed: check the links.", "on": "file_changed",
               "paths": ["docs/**/*.md"], "debounce_secs": 1}),
    )
    .await
    .unwrap();
    // The watch is set up in the background: touch a matching file until the hook fires.
    let deadline = tokio::time::Instant::now() + DEADLINE;
    let mut n = 0;
    loop {
        n += 1;
        write(&checkout.join("docs/probe.md"), &format!("probe {n}"));
        let seen = tokio::time::timeout(Duration::from_secs(3), async {
            loop {
                if chats(&mut c)
                    .await
                    .iter()
                    .any(|x| x.trigger.as_deref() == Some("docs"))
                {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
        })
        .await;
        if seen.is_ok() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the file hook never fired"
        );
    }
    wait_settled(&mut c).await;

    // A burst: two matching changes 300 ms apart, and some that do not match.
    write(&checkout.join("docs/a.md"), "a");
    write(&checkout.join("src/x.rs"), "fn main() {}");
    write(&checkout.join(".git/HEAD"), "ref: refs/heads/main");
    tokio::time::sleep(Duration::from_millis(300)).await;
    write(&checkout.join("docs/guide/b.md"), "b");
    write(&checkout.join("docs/notes.txt"), "not markdown");
    let all = wait_chats(&mut c, "the second file hook chat", |all| {
        by_trigger(all, "docs").len() == 2 && all.iter().all(|x| !x.running && x.message_count >= 2)
    })
    .await;
    let mut hooks = by_trigger(&all, "docs");
    hooks.sort_by_key(|x| x.created_at.clone());
    let second = hooks[1].clone();
    assert_eq!(second.origin, Origin::Hook);
    assert_eq!(second.project_slug, "web");
    let turns = user_turns(&transcript(&mut c, &second.session_id).await);
    let text = &turns[0].0;
    assert!(
        text.starts_with("The docs changed: check the links."),
        "{text}"
    );
    assert!(
        text.contains("docs/a.md") && text.contains("docs/guide/b.md"),
        "{text}"
    );
    for not in ["src/x.rs", ".git", "notes.txt", "probe"] {
        assert!(!text.contains(not), "{not} in {text}");
    }
    assert_eq!(
        turns[0].1,
        Some(Attribution::Hook {
            name: "docs".into()
        })
    );
    assert_eq!(
        runs_of(&runs(&mut c).await, "docs").len(),
        2,
        "one fire per burst"
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn trigger_fire_with_a_message_replaces_the_prompt_even_when_disabled() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    set(
        &mut c,
        "",
        "ci-failed",
        json!({"kind": "hook", "prompt": "Triage the failing CI run.", "on": "manual", "enabled": false}),
    )
    .await
    .unwrap();
    let fired = fire(&mut c, "", "ci-failed", Some("CI failed on main: run 4711")).await;
    let sid = fired.session_id.expect("a chat");
    wait_settled(&mut c).await;
    let entries = transcript(&mut c, &sid).await;
    let turns = user_turns(&entries);
    assert_eq!(turns[0].0, "CI failed on main: run 4711");
    assert_eq!(
        turns[0].1,
        Some(Attribution::Hook {
            name: "ci-failed".into()
        })
    );
    assert!(entries.iter().any(
        |e| matches!(e, TranscriptEntry::Assistant { text, .. } if text == "echo: CI failed on main: run 4711")
    ));
    let err = c
        .request(Request::TriggerFire(TriggerFire {
            project_slug: String::new(),
            name: "nope".into(),
            message: None,
        }))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_hand_broken_project_file_shows_problems_instead_of_failing() {
    let d = daemon(|_| {}).await;
    let mut c = d.client().await;
    c.request(Request::ProjectCreate(paddock_proto::ProjectCreate {
        slug: "broken".into(),
        path: None,
        ..Default::default()
    }))
    .await
    .unwrap();
    write(
        &d.cfg.data_dir.join("workspace/project.toml"),
        r#"
[triggers.good]
kind = "hook"
prompt = "Fine."
on = "manual"

[triggers.mars]
kind = "schedule"
prompt = "Check the docs."
cron = "*/5 * * * *"
timezone = "Mars/Olympus"

[triggers.typo]
kind = "schedule"
prompt = "Oops."
evry = "5m"
"#,
    );
    write(
        &d.cfg.data_dir.join("projects/broken/project.toml"),
        "this is [not toml",
    );
    let all = list(&mut c, None).await;
    let find = |p: &str, n: &str| {
        all.iter()
            .find(|t| t.project_slug == p && t.name == n)
            .unwrap_or_else(|| panic!("{p}/{n} not listed: {all:#?}"))
    };
    assert!(find("", "good").problem.is_none());
    assert_eq!(
        find("", "mars").problem.as_deref(),
        Some("unknown time zone \"Mars/Olympus\"")
    );
    assert!(find("", "mars").next_fire.is_none());
    assert!(
        find("", "typo")
            .problem
            .as_deref()
            .unwrap()
            .contains("evry")
    );
    assert!(find("broken", "project.toml").problem.is_some());
    // Just that project, too.
    let broken = list(&mut c, Some("broken")).await;
    assert_eq!(broken.len(), 1);
    // A trigger that cannot run is not fired; the good one is.
    let err = c
        .request(Request::TriggerFire(TriggerFire {
            project_slug: String::new(),
            name: "mars".into(),
            message: None,
        }))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(err.message.contains("Mars/Olympus"), "{}", err.message);
    assert!(fire(&mut c, "", "good", None).await.session_id.is_some());
    wait_settled(&mut c).await;
    // Setting another trigger keeps the hand-written ones as they are.
    set(
        &mut c,
        "",
        "more",
        json!({"kind": "hook", "prompt": "More.", "on": "manual"}),
    )
    .await
    .unwrap();
    let names: Vec<String> = list(&mut c, Some(""))
        .await
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["good", "mars", "more", "typo"]);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn the_trigger_tools_act_on_the_calling_chats_project() {
    let d = daemon(|c| {
        c.mcp_bin = Some("/opt/paddock/bin/paddockd".into());
        c.hooks_mcp = true;
    })
    .await;
    let mut c = d.client().await;
    c.request(Request::ProjectCreate(paddock_proto::ProjectCreate {
        slug: "web".into(),
        path: None,
        ..Default::default()
    }))
    .await
    .unwrap();
    let chat = c.send_turn("web", None, "hello").await;
    wait_settled(&mut c).await;
    let token = token_of(&d, &chat.session_id);
    let (text, is_error) = call(
        &mut c,
        &token,
        "set_trigger",
        json!({"name": "ping", "kind": "hook", "on": "manual", "prompt": "Ping."}),
    )
    .await;
    assert!(!is_error, "{text}");
    let listed = list(&mut c, Some("web")).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "ping");
    let (text, is_error) = call(&mut c, &token, "list_triggers", json!({})).await;
    assert!(!is_error && text.contains("\"ping\""), "{text}");
    let (text, is_error) = call(
        &mut c,
        &token,
        "set_trigger",
        json!({"name": "bad", "kind": "schedule", "prompt": "p", "cron": "nope"}),
    )
    .await;
    assert!(is_error && text.contains("cron"), "{text}");
    let (text, is_error) = call(&mut c, &token, "run_trigger", json!({"name": "ping"})).await;
    assert!(!is_error, "{text}");
    let fired: Value = serde_json::from_str(&text).unwrap();
    let sid = fired["sessionId"].as_str().unwrap().to_owned();
    let all = wait_settled(&mut c).await;
    let hook = all.iter().find(|x| x.session_id == sid).unwrap();
    assert_eq!(
        (hook.origin, hook.project_slug.as_str()),
        (Origin::Hook, "web")
    );
    let (text, is_error) = call(&mut c, &token, "remove_trigger", json!({"name": "ping"})).await;
    assert!(!is_error, "{text}");
    assert!(list(&mut c, Some("web")).await.is_empty());
    d.stop().await.unwrap();

    // Off by default.
    let d = daemon(|c| c.mcp_bin = Some("/opt/paddock/bin/paddockd".into())).await;
    let mut c = d.client().await;
    let chat = c.send_turn("", None, "hello").await;
    wait_settled(&mut c).await;
    let token = token_of(&d, &chat.session_id);
    let (text, is_error) = call(&mut c, &token, "list_triggers", json!({})).await;
    assert!(is_error && text.contains("not available"), "{text}");
    d.stop().await.unwrap();
}

/// Hooks never miss a turn: 500 chats wait on an approval each, one answer lets them all end
/// at once, and the `turn_completed` hook is dispatched for every one of the 500 turn ends —
/// a fire runs (and keeps running) or finds the previous one going and is recorded as skipped,
/// each naming the chat whose turn ended. With a
/// bounded broadcast (256) behind the hooks, the burst lost the turn ends the dispatcher had
/// not read in time.
#[tokio::test]
async fn a_burst_of_500_turn_ends_dispatches_the_hook_500_times() {
    const N: usize = 500;
    let d = daemon(|c| c.max_processes = N as u32 + 8).await;
    let mut c = d.client().await;
    let ask = r#"fake:[{"tool":"Bash","input":{"command":"true"},"output":"ok","ask":true},{"text":"done"}]"#;
    let mut sessions = Vec::with_capacity(N);
    for _ in 0..N {
        sessions.push(c.send_turn("", None, ask).await.session_id);
    }
    let ids = tokio::time::timeout(Duration::from_secs(120), async {
        loop {
            let Reply::Approvals(a) = c.request(Request::ApprovalList).await.unwrap() else {
                panic!("not approvals")
            };
            if a.approvals.len() == N {
                return a.approvals.into_iter().map(|x| x.id).collect::<Vec<_>>();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("every chat waits on its approval");
    // The hook is set only now, so it fires for the burst alone.
    set(
        &mut c,
        "",
        "seen",
        json!({"kind": "hook", "prompt": r#"fake:[{"hang":true}]"#, "on": "turn_completed"}),
    )
    .await
    .unwrap();
    c.request(Request::ApprovalAnswer(paddock_proto::ApprovalAnswer {
        ids,
        decision: paddock_proto::ApprovalDecision::Allow,
        message: None,
    }))
    .await
    .unwrap();
    let hook_runs = |all: &[RunSummary]| {
        all.iter()
            .filter(|r| r.trigger.as_deref() == Some("seen"))
            .count()
    };
    let seen = tokio::time::timeout(Duration::from_secs(120), async {
        loop {
            let Reply::History(h) = c
                .request(Request::HistoryList(HistoryList {
                    project_slug: None,
                    unattended: true,
                    limit: Some(500),
                }))
                .await
                .unwrap()
            else {
                panic!("not history")
            };
            if hook_runs(&h.runs) >= N {
                return h.runs;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    let runs = match seen {
        Ok(runs) => runs,
        Err(_) => {
            let Reply::History(h) = c
                .request(Request::HistoryList(HistoryList {
                    project_slug: None,
                    unattended: true,
                    limit: Some(500),
                }))
                .await
                .unwrap()
            else {
                panic!("not history")
            };
            panic!(
                "the hook was dispatched {} times for {N} turn ends",
                hook_runs(&h.runs)
            );
        }
    };
    let seen: Vec<&RunSummary> = runs
        .iter()
        .filter(|r| r.trigger.as_deref() == Some("seen"))
        .collect();
    assert_eq!(seen.len(), N);
    // Each fire names the chat whose turn ended: every one of the 500, once.
    let mut named: Vec<&str> = seen
        .iter()
        .filter_map(|r| {
            let p = r.prompt.as_deref()?;
            sessions
                .iter()
                .find(|s| p.contains(s.as_str()))
                .map(String::as_str)
        })
        .collect();
    named.sort_unstable();
    named.dedup();
    assert_eq!(named.len(), N, "every turn end fired the hook once");
    d.stop().await.unwrap();
}

/// Every client is told when a project's triggers change, whoever changed them, so a view of
/// them reads them again (`project:changed`, `what: triggers`).
#[tokio::test]
async fn a_trigger_set_or_removed_by_one_client_is_announced_to_every_client() {
    let d = daemon(|_| {}).await;
    let mut watcher = d.client().await;
    let mut c = d.client().await;
    let told = |m: &paddock_proto::ServerMessage| {
        matches!(
            m,
            paddock_proto::ServerMessage::Control(paddock_proto::ControlMessage::ProjectChanged(
                paddock_proto::ProjectChanged {
                    what: paddock_proto::ProjectPart::Triggers,
                    project_slug,
                }
            )) if project_slug.is_empty()
        )
    };
    set(
        &mut c,
        "",
        "ping",
        json!({"kind": "hook", "prompt": "p", "on": "manual"}),
    )
    .await
    .unwrap();
    let seen =
        tokio::time::timeout(DEADLINE, async { while !told(&watcher.next().await) {} }).await;
    assert!(seen.is_ok(), "no project:changed after trigger:set");
    remove(&mut c, "", "ping").await.unwrap();
    let seen =
        tokio::time::timeout(DEADLINE, async { while !told(&watcher.next().await) {} }).await;
    assert!(seen.is_ok(), "no project:changed after trigger:remove");
    d.stop().await.unwrap();
}
