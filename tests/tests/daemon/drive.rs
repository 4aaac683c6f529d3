//! Drive modes (reference §9): `session` keeps one `claude` per chat between turns; `batch`
//! runs one per turn and resumes the session by id; one-shot triggers always run batch.

use paddock_proto::{ProjectCreate, Reply, Request};

use crate::harness::*;

/// The fake processes started for `session`, in start order (their argv).
fn processes_of(d: &TestDaemon, session: &str) -> Vec<Vec<String>> {
    d.fake_argvs()
        .into_iter()
        .filter(|argv| argv.iter().any(|a| a == session))
        .collect()
}

async fn live_processes(c: &mut RawClient) -> u32 {
    match c.request(Request::DaemonStatus).await.unwrap() {
        Reply::Status(s) => s.live_processes,
        other => panic!("daemon:status: {other:?}"),
    }
}

/// Waits until no `claude` process is alive.
async fn none_alive(c: &mut RawClient) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while live_processes(c).await > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "a claude process is still alive"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn a_batch_project_runs_one_process_per_turn_and_resumes_by_id() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    c.request(Request::ProjectCreate(ProjectCreate {
        slug: "nightly".into(),
        path: None,
        ..Default::default()
    }))
    .await
    .unwrap();
    let toml = d.cfg.data_dir.join("projects/nightly/project.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str("drive_mode = \"batch\"\n");
    std::fs::write(&toml, text).unwrap();

    let first = c.send_turn("nightly", None, "one").await;
    let frames = c.frames_until_complete(&first.session_id).await;
    assert_eq!(text_of(&frames), "echo: one");
    none_alive(&mut c).await;
    let again = c.send_turn("nightly", Some(&first.session_id), "two").await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert_eq!(text_of(&frames), "echo: two");
    none_alive(&mut c).await;

    let procs = processes_of(&d, &first.session_id);
    assert_eq!(procs.len(), 2, "one process per turn: {procs:?}");
    assert!(
        procs
            .iter()
            .any(|argv| argv.windows(2).any(|w| w[0] == "--resume")),
        "the second turn resumes the session by id: {procs:?}"
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_session_chat_keeps_its_process_and_a_one_shot_trigger_runs_batch() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "one").await;
    c.frames_until_complete(&first.session_id).await;
    let again = c.send_turn("", Some(&first.session_id), "two").await;
    c.frames_until_complete(&again.session_id).await;
    assert_eq!(processes_of(&d, &first.session_id).len(), 1);
    assert_eq!(live_processes(&mut c).await, 1, "session mode keeps it");

    c.request(Request::TriggerSet(Box::new(paddock_proto::TriggerSet {
        project_slug: String::new(),
        name: "check".into(),
        spec: serde_json::from_value(serde_json::json!(
            {"kind": "hook", "prompt": "Check the build.", "on": "manual"}
        ))
        .unwrap(),
    })))
    .await
    .unwrap();
    let Reply::Fired(fired) = c
        .request(Request::TriggerFire(paddock_proto::TriggerFire {
            project_slug: String::new(),
            name: "check".into(),
            message: None,
        }))
        .await
        .unwrap()
    else {
        panic!("not fired")
    };
    let session = fired.session_id.expect("the trigger's chat");
    // The trigger's process goes once its turn is done; the first chat's stays.
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let done = processes_of(&d, &session).len() == 1 && live_processes(&mut c).await == 1;
        let history = match c
            .request(Request::HistoryList(paddock_proto::HistoryList {
                project_slug: None,
                unattended: true,
                limit: None,
            }))
            .await
            .unwrap()
        {
            Reply::History(h) => h,
            other => panic!("history: {other:?}"),
        };
        let finished = history
            .runs
            .iter()
            .any(|r| r.session_id == session && r.finished_at.is_some());
        if done && finished {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the one-shot trigger's process never stopped"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    d.stop().await.unwrap();
}
