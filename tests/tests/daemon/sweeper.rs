//! The sweeper: a person's turn curates OVERVIEW.md, CHANGELOG.md and CLAUDE.md's managed
//! section; NOCHANGE; a reply without markers or a failing claude writes nothing and keeps the
//! watermark; the activity gate; the debounce; repo-backed projects; machine turns; shutdown.
//!
//! The fake claude answers a sweep from the file named by `FAKE_CLAUDE_SWEEP_REPLY` and records
//! the prompt it got (`tests/src/fake_claude/batch.rs`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use paddock_proto::{
    ChatList, ChatScope, HistoryList, Reply, Request, RunStatus, TriggerFire, TriggerSet,
};
use paddock_tests::fake_claude::state::FakeState;
use serde_json::{Value, json};

use crate::harness::*;

/// The reply file, beside the daemon's data folder.
fn reply_file(d: &TestDaemon) -> PathBuf {
    d.dir.path().join("sweep-reply.txt")
}

/// A daemon with the sweeper on, answering sweeps from [`reply_file`].
async fn daemon(interval: Duration, tune: impl FnOnce(&mut paddockd::Config)) -> TestDaemon {
    TestDaemon::start_with(|c| {
        c.sweeper = true;
        c.sweeper_min_interval = interval;
        c.min_trigger_interval = Duration::from_secs(1);
        let reply = c.data_dir.parent().unwrap().join("sweep-reply.txt");
        c.claude_env.push((
            "FAKE_CLAUDE_SWEEP_REPLY".into(),
            reply.to_string_lossy().into_owned(),
        ));
        tune(c);
    })
    .await
}

fn answer(d: &TestDaemon, reply: &str) {
    std::fs::write(reply_file(d), reply).unwrap();
}

fn reply(overview: &str, changelog: &str, claude: &str) -> String {
    format!(
        "<<<OVERVIEW>>>\n{overview}\n<<<CHANGELOG>>>\n{changelog}\n<<<CLAUDE>>>\n{claude}\n<<<END>>>\n"
    )
}

async fn create_project(c: &mut RawClient, slug: &str, path: Option<&Path>) {
    c.request(Request::ProjectCreate(paddock_proto::ProjectCreate {
        slug: slug.into(),
        path: path.map(|p| p.to_string_lossy().into_owned()),
        ..Default::default()
    }))
    .await
    .unwrap();
}

/// A person's turn, to its end.
async fn turn(c: &mut RawClient, project: &str, text: &str) -> String {
    let sent = c.send_turn(project, None, text).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success);
    sent.session_id
}

fn meta_dir(d: &TestDaemon, slug: &str) -> PathBuf {
    d.cfg.data_dir.join("projects").join(slug)
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The project's entry in `sweep-state.json`: (watermark, last swept at).
fn sweep_state(d: &TestDaemon, slug: &str) -> Option<(i64, String)> {
    let text = read(&d.cfg.data_dir.join("state").join("sweep-state.json"))?;
    let v: Value = serde_json::from_str(&text).ok()?;
    let s = v.get(slug)?;
    Some((
        s["lastSweptMtimeMs"].as_i64()?,
        s["lastSweptAt"].as_str()?.to_owned(),
    ))
}

/// Polls the project's sweep state until `pred` holds.
async fn wait_state(
    d: &TestDaemon,
    slug: &str,
    what: &str,
    pred: impl Fn(&(i64, String)) -> bool,
) -> (i64, String) {
    paddock_tests::wait::wait_until(what, DEADLINE, || sweep_state(d, slug).filter(|s| pred(s)))
        .await
        .unwrap()
}

/// The fake processes that were sweeps (one-shot, no transcript), in the order they started.
fn sweeps(d: &TestDaemon) -> Vec<FakeState> {
    paddock_tests::fake_claude::state::read_all_states(&d.state_dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|s| s.argv.iter().any(|a| a == "--no-session-persistence"))
        .collect()
}

/// The prompt a sweep process received.
fn prompt_of(d: &TestDaemon, s: &FakeState) -> String {
    let path = paddock_tests::fake_claude::batch::prompt_path(&d.state_dir, s.pid);
    read(&path).unwrap_or_else(|| panic!("no prompt recorded at {}", path.display()))
}

async fn chat_count(c: &mut RawClient, project: &str) -> usize {
    match c
        .request(Request::ChatList(ChatList {
            project_slug: Some(project.into()),
            scope: ChatScope::All,
            since: None,
            full_titles: false,
        }))
        .await
    {
        Ok(Reply::Chats(chats)) => chats.chats.len(),
        other => panic!("chat:list: {other:?}"),
    }
}

/// Waits `window` and asserts no sweep started meanwhile. Only for "nothing happens": what
/// does happen is always polled for.
async fn no_sweep_within(d: &TestDaemon, window: Duration, why: &str) {
    let deadline = tokio::time::Instant::now() + window;
    while tokio::time::Instant::now() < deadline {
        assert!(sweeps(d).is_empty(), "{why}: {:?}", sweeps(d));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_persons_turn_curates_the_three_files_and_keeps_the_rest_of_claude_md() {
    let d = daemon(Duration::from_secs(300), |_| {}).await;
    answer(
        &d,
        &reply(
            "# Demo\n\nA demo that stores data in Postgres.",
            "# Changelog\n\n## 2026-02-03\n- Chose Postgres.",
            "## Curated notes\n- The database is Postgres.",
        ),
    );
    let mut c = d.client().await;
    create_project(&mut c, "demo", None).await;
    let meta = meta_dir(&d, "demo");
    let human = "# Demo rules\n\nWritten by hand: always run the tests.\n";
    std::fs::write(meta.join("work/CLAUDE.md"), human).unwrap();

    turn(&mut c, "demo", "We decided to use Postgres for storage.").await;
    let (watermark, _) = wait_state(&d, "demo", "the sweep to succeed", |s| s.0 > 0).await;

    assert_eq!(
        read(&meta.join("OVERVIEW.md")).unwrap(),
        "# Demo\n\nA demo that stores data in Postgres.\n"
    );
    assert_eq!(
        read(&meta.join("CHANGELOG.md")).unwrap(),
        "# Changelog\n\n## 2026-02-03\n- Chose Postgres.\n"
    );
    let claude = read(&meta.join("work/CLAUDE.md")).unwrap();
    assert!(
        claude.starts_with(human.trim_end()),
        "the hand-written part is kept: {claude}"
    );
    assert!(claude.contains("<!-- paddock:curated:begin"), "{claude}");
    assert!(
        claude.contains(
            "## Curated notes\n- The database is Postgres.\n<!-- paddock:curated:end -->"
        ),
        "{claude}"
    );

    // One tool-less run of the sweeper's model, no transcript, outside the project.
    let runs = sweeps(&d);
    assert_eq!(runs.len(), 1, "{runs:?}");
    let run = &runs[0];
    assert!(run.has_arg_pair("--tools", ""), "{:?}", run.argv);
    assert!(
        run.has_arg_pair("--model", "claude-haiku-4-5"),
        "{:?}",
        run.argv
    );
    assert!(run.argv.iter().any(|a| a == "--strict-mcp-config"));
    assert!(
        !run.argv
            .iter()
            .any(|a| a == "--mcp-config" || a == "--input-format")
    );
    assert_eq!(
        run.env.get("CLAUDE_CONFIG_DIR").map(PathBuf::from),
        Some(d.cfg.claude_home.clone())
    );
    assert!(
        Path::new(&run.cwd).ends_with("tmp/sweeper"),
        "the sweep runs in the daemon's own folder: {}",
        run.cwd
    );
    // The prompt holds the turn's digest and the current files.
    let prompt = prompt_of(&d, run);
    assert!(
        prompt.contains("user: We decided to use Postgres for storage."),
        "{prompt}"
    );
    assert!(prompt.contains("<<<OVERVIEW>>>") && prompt.contains("<<<END>>>"));
    assert!(prompt.contains("project \"demo\""));
    // The sweep is not a chat, and is not activity: the watermark is the turn's transcript.
    assert_eq!(chat_count(&mut c, "demo").await, 1);
    let transcript = std::fs::read_dir(meta.join(".chats"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    let mtime = chrono::DateTime::<chrono::Utc>::from(
        std::fs::metadata(&transcript).unwrap().modified().unwrap(),
    )
    .timestamp_millis();
    assert_eq!(watermark, mtime);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn the_curation_budgets_come_from_the_config_and_the_project_and_are_enforced() {
    // The instance: overview 300 tokens, changelog 400; the project: overview 150 tokens
    // (600 bytes at 4 bytes a token) and the CLAUDE.md section 100 (400 bytes).
    let d = daemon(Duration::from_secs(300), |c| {
        c.curation.overview_tokens = 300;
        c.curation.changelog_tokens = 400;
    })
    .await;
    let overview: String = (0..100)
        .map(|i| format!("- overview fact {i:03}\n"))
        .collect();
    let section: String = (0..100)
        .map(|i| format!("- durable note {i:03}\n"))
        .collect();
    answer(
        &d,
        &reply(
            &format!("# Demo\n{overview}"),
            "# Changelog\n\n## 2026-02-03\n- One entry.",
            &format!("## Curated notes\n{section}"),
        ),
    );
    let mut c = d.client().await;
    create_project(&mut c, "demo", None).await;
    let meta = meta_dir(&d, "demo");
    let toml_path = meta.join("project.toml");
    let mut toml = read(&toml_path).unwrap_or_default();
    toml.push_str("curation_overview_max_tokens = 150\ncuration_claudemd_max_tokens = 100\n");
    std::fs::write(&toml_path, toml).unwrap();

    turn(&mut c, "demo", "Record the facts.").await;
    wait_state(&d, "demo", "the sweep to succeed", |s| s.0 > 0).await;
    let written = read(&meta.join("OVERVIEW.md")).unwrap();
    assert!(
        written.len() <= 600 && written.starts_with("# Demo\n- overview fact 000\n"),
        "the project's overview budget is enforced ({} bytes): {written}",
        written.len()
    );
    assert!(!written.contains("fact 099"), "{written}");
    let claude = read(&meta.join("work/CLAUDE.md")).unwrap();
    let body = claude
        .split_once("-->\n")
        .and_then(|(_, rest)| rest.split_once("<!-- paddock:curated:end"))
        .map(|(body, _)| body)
        .unwrap_or_else(|| panic!("no managed section: {claude}"));
    assert!(body.len() <= 400, "{} bytes: {body}", body.len());
    assert!(body.contains("- durable note 000"), "{body}");
    // The prompt states the budgets it enforces: the project's, else the instance's.
    let prompt = prompt_of(&d, &sweeps(&d)[0]);
    for want in [
        "OVERVIEW.md 150 tokens",
        "CHANGELOG.md 400 tokens",
        "CLAUDE.md 100 tokens",
        "a token counts as 4 bytes",
    ] {
        assert!(prompt.contains(want), "{want} missing: {prompt}");
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn nochange_leaves_its_file_alone() {
    let d = daemon(Duration::from_secs(300), |_| {}).await;
    answer(&d, &reply("# New overview", "NOCHANGE", "NOCHANGE"));
    let mut c = d.client().await;
    create_project(&mut c, "demo", None).await;
    let meta = meta_dir(&d, "demo");
    let changelog = "# Changelog\n\n## 2026-01-01\n- Hand-kept entry.\n";
    std::fs::write(meta.join("CHANGELOG.md"), changelog).unwrap();

    turn(&mut c, "demo", "Small follow-up.").await;
    wait_state(&d, "demo", "the sweep to succeed", |s| s.0 > 0).await;
    assert_eq!(read(&meta.join("OVERVIEW.md")).unwrap(), "# New overview\n");
    assert_eq!(read(&meta.join("CHANGELOG.md")).unwrap(), changelog);
    assert!(
        !meta.join("work/CLAUDE.md").exists(),
        "NOCHANGE does not create CLAUDE.md"
    );
    // The current CHANGELOG was shown to the model.
    let prompt = prompt_of(&d, &sweeps(&d)[0]);
    assert!(prompt.contains("- Hand-kept entry."), "{prompt}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_reply_without_markers_writes_nothing_and_the_next_turn_retries() {
    let d = daemon(Duration::from_millis(300), |_| {}).await;
    answer(&d, "I have updated OVERVIEW.md and CHANGELOG.md for you.");
    let mut c = d.client().await;
    create_project(&mut c, "demo", None).await;
    let meta = meta_dir(&d, "demo");

    turn(&mut c, "demo", "First turn.").await;
    let (watermark, failed_at) = wait_state(&d, "demo", "the failed sweep's time", |_| true).await;
    assert_eq!(watermark, 0, "the watermark does not move");
    assert!(!meta.join("OVERVIEW.md").exists());
    assert!(!meta.join("CHANGELOG.md").exists());
    assert!(!meta.join("work/CLAUDE.md").exists());

    // A sound reply next time: the next turn's sweep covers both turns.
    answer(&d, &reply("# Fixed", "NOCHANGE", "NOCHANGE"));
    turn(&mut c, "demo", "Second turn.").await;
    let (watermark, at) = wait_state(&d, "demo", "the retry to succeed", |s| s.0 > 0).await;
    assert!(watermark > 0 && at != failed_at);
    assert_eq!(read(&meta.join("OVERVIEW.md")).unwrap(), "# Fixed\n");
    let runs = sweeps(&d);
    assert_eq!(runs.len(), 2);
    let prompt = prompt_of(&d, &runs[1]);
    assert!(
        prompt.contains("user: First turn.") && prompt.contains("user: Second turn."),
        "{prompt}"
    );
    d.stop().await.unwrap();
}

/// `project:overview` as it is on the wire.
async fn overview_json(c: &mut RawClient, slug: &str) -> Value {
    match c
        .request(Request::ProjectOverviewRequest(paddock_proto::ProjectRef {
            slug: slug.into(),
        }))
        .await
    {
        Ok(Reply::ProjectOverview(o)) => serde_json::to_value(&o).unwrap(),
        other => panic!("project:overview: {other:?}"),
    }
}

/// Polls `project:overview` until `pred` holds. The state file is not what to wait on here:
/// a store publishes a change once it is on disk, so the file is a moment ahead of what the
/// daemon answers (this test once read the old error after the file had the new state).
async fn wait_overview(
    c: &mut RawClient,
    slug: &str,
    what: &str,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let o = overview_json(c, slug).await;
        if pred(&o) {
            return o;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {o}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_failed_sweep_is_reported_as_failed_with_its_reason() {
    let d = daemon(Duration::from_millis(300), |_| {}).await;
    answer(&d, "I have updated OVERVIEW.md and CHANGELOG.md for you.");
    let mut c = d.client().await;
    create_project(&mut c, "demo", None).await;
    turn(&mut c, "demo", "First turn.").await;
    let o = wait_overview(&mut c, "demo", "the failed sweep", |o| {
        o["sweepError"].is_string()
    })
    .await;
    assert!(
        o["sweepError"]
            .as_str()
            .is_some_and(|e| e.contains("<<<OVERVIEW>>>")),
        "the failure and its reason: {o}"
    );
    // A sound sweep clears it.
    answer(&d, &reply("# Fixed", "NOCHANGE", "NOCHANGE"));
    turn(&mut c, "demo", "Second turn.").await;
    wait_state(&d, "demo", "the retry to succeed", |s| s.0 > 0).await;
    let o = wait_overview(&mut c, "demo", "the error to be cleared", |o| {
        o.get("sweepError").is_none()
    })
    .await;
    assert!(o["sweptAt"].is_string(), "{o}");
    assert_eq!(o["overview"], "# Fixed\n", "{o}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_failing_claude_moves_only_the_sweep_time() {
    let d = daemon(Duration::from_millis(300), |_| {}).await;
    answer(&d, &reply("# One", "# Changelog\n\n- one", "NOCHANGE"));
    let mut c = d.client().await;
    create_project(&mut c, "demo", None).await;
    let meta = meta_dir(&d, "demo");
    turn(&mut c, "demo", "First.").await;
    let (watermark, swept_at) = wait_state(&d, "demo", "the first sweep", |s| s.0 > 0).await;

    answer(&d, r#"fake:[{"stderr":"sweeper exploded"},{"crash":3}]"#);
    turn(&mut c, "demo", "Second.").await;
    let (after, failed_at) =
        wait_state(&d, "demo", "the failed sweep's time", |s| s.1 != swept_at).await;
    assert_eq!(
        after, watermark,
        "the watermark stays, so the next turn retries"
    );
    assert!(paddockd::state::ms_of(Some(&failed_at)) > paddockd::state::ms_of(Some(&swept_at)));
    assert_eq!(read(&meta.join("OVERVIEW.md")).unwrap(), "# One\n");
    assert_eq!(sweeps(&d).len(), 2);
    // The chat itself is untouched by the failure.
    let again = turn(&mut c, "demo", "Third.").await;
    assert!(!again.is_empty());
    d.stop().await.unwrap();
}

#[tokio::test]
async fn the_activity_gate_skips_a_project_with_nothing_new() {
    // The watermark of "quiet" is ahead of any transcript: nothing there is new.
    let d = daemon(Duration::from_millis(100), |c| {
        let state = c.data_dir.join("state");
        std::fs::create_dir_all(&state).unwrap();
        let ahead = chrono::Utc::now().timestamp_millis() + 86_400_000;
        std::fs::write(
            state.join("sweep-state.json"),
            json!({"quiet": {"lastSweptMtimeMs": ahead, "lastSweptAt": "2000-01-01T00:00:00.000Z"}})
                .to_string(),
        )
        .unwrap();
    })
    .await;
    answer(&d, &reply("# Busy", "NOCHANGE", "NOCHANGE"));
    let mut c = d.client().await;
    create_project(&mut c, "quiet", None).await;
    create_project(&mut c, "busy", None).await;
    let before = sweep_state(&d, "quiet").unwrap();

    turn(&mut c, "quiet", "Nothing new here.").await;
    // A project with new activity is swept (the sweeper is alive)...
    turn(&mut c, "busy", "Something new.").await;
    wait_state(&d, "busy", "the busy project's sweep", |s| s.0 > 0).await;
    // ... and the quiet one was not: no claude ran for it and its state did not move.
    let runs = sweeps(&d);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert!(prompt_of(&d, &runs[0]).contains("project \"busy\""));
    assert_eq!(sweep_state(&d, "quiet").unwrap(), before);
    assert!(!meta_dir(&d, "quiet").join("OVERVIEW.md").exists());
    d.stop().await.unwrap();
}

#[tokio::test]
async fn turns_in_quick_succession_are_swept_once_after_the_interval() {
    // Long enough that two turns end inside it on a loaded 2-core machine (at 2 s, a third
    // turn slowed by a whole suite running beside it once ended after the trailing sweep).
    let interval = Duration::from_secs(5);
    let d = daemon(interval, |_| {}).await;
    answer(&d, &reply("# Overview", "NOCHANGE", "NOCHANGE"));
    let mut c = d.client().await;
    create_project(&mut c, "demo", None).await;

    // The first sweep of a project runs at once.
    turn(&mut c, "demo", "Turn one.").await;
    let (first_mark, first_at) = wait_state(&d, "demo", "the first sweep", |s| s.0 > 0).await;
    assert_eq!(sweeps(&d).len(), 1);

    // Two more turns inside the interval: one trailing sweep covers both.
    turn(&mut c, "demo", "Turn two.").await;
    turn(&mut c, "demo", "Turn three.").await;
    let (second_mark, second_at) =
        wait_state(&d, "demo", "the trailing sweep", |s| s.0 > first_mark).await;
    let runs = sweeps(&d);
    assert_eq!(runs.len(), 2, "one sweep for both turns: {runs:?}");
    let prompt = prompt_of(&d, &runs[1]);
    assert!(
        prompt.contains("user: Turn two.") && prompt.contains("user: Turn three."),
        "{prompt}"
    );
    let gap = paddockd::state::ms_of(Some(&second_at)) - paddockd::state::ms_of(Some(&first_at));
    assert!(
        gap >= interval.as_millis() as i64,
        "at least the interval between two sweeps: {gap} ms"
    );
    assert!(second_mark > first_mark);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_repo_backed_projects_claude_md_is_left_alone() {
    let d = daemon(Duration::from_secs(300), |_| {}).await;
    answer(
        &d,
        &reply(
            "# Repo overview",
            "NOCHANGE",
            "## Curated notes\n- would be wrong here",
        ),
    );
    let mut c = d.client().await;
    let checkout = d.dir.path().join("checkout");
    std::fs::create_dir_all(&checkout).unwrap();
    let upstream = "# Upstream CLAUDE.md\n\nOwned by the repository.\n";
    std::fs::write(checkout.join("CLAUDE.md"), upstream).unwrap();
    create_project(&mut c, "repo", Some(&checkout)).await;

    turn(&mut c, "repo", "Work in the repo.").await;
    wait_state(&d, "repo", "the sweep", |s| s.0 > 0).await;
    let meta = meta_dir(&d, "repo");
    assert_eq!(
        read(&meta.join("OVERVIEW.md")).unwrap(),
        "# Repo overview\n"
    );
    assert_eq!(read(&checkout.join("CLAUDE.md")).unwrap(), upstream);
    assert!(!meta.join("CLAUDE.md").exists());
    assert!(
        !checkout.join("OVERVIEW.md").exists(),
        "curated files stay in the metadata folder"
    );
    let prompt = prompt_of(&d, &sweeps(&d)[0]);
    assert!(prompt.contains("belongs to its own repository"), "{prompt}");
    assert!(!prompt.contains("Owned by the repository."));
    d.stop().await.unwrap();
}

#[tokio::test]
async fn scheduled_and_hook_turns_do_not_ask_for_sweeps() {
    let d = daemon(Duration::from_secs(300), |_| {}).await;
    answer(&d, &reply("# Overview", "NOCHANGE", "NOCHANGE"));
    let mut c = d.client().await;
    create_project(&mut c, "demo", None).await;
    for (name, spec) in [
        (
            "nightly",
            json!({"kind": "schedule", "prompt": "Scheduled work.", "every": "1h"}),
        ),
        (
            "on-demand",
            json!({"kind": "hook", "prompt": "Hooked work.", "on": "manual"}),
        ),
    ] {
        c.request(Request::TriggerSet(Box::new(TriggerSet {
            project_slug: "demo".into(),
            name: name.into(),
            spec: serde_json::from_value(spec).unwrap(),
        })))
        .await
        .unwrap();
        c.request(Request::TriggerFire(TriggerFire {
            project_slug: "demo".into(),
            name: name.into(),
            message: None,
        }))
        .await
        .unwrap();
    }
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let Ok(Reply::History(h)) = c
            .request(Request::HistoryList(HistoryList {
                project_slug: Some("demo".into()),
                unattended: false,
                limit: None,
            }))
            .await
        else {
            panic!("history:list")
        };
        let done = h
            .runs
            .iter()
            .filter(|r| r.trigger.is_some() && r.status == RunStatus::Completed)
            .count();
        if done == 2 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "runs: {:#?}",
            h.runs
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    no_sweep_within(
        &d,
        Duration::from_secs(1),
        "a machine turn asked for a sweep",
    )
    .await;
    assert_eq!(sweep_state(&d, "demo"), None);

    // A person's turn does.
    turn(&mut c, "demo", "My own turn.").await;
    wait_state(&d, "demo", "the sweep", |s| s.0 > 0).await;
    assert_eq!(sweeps(&d).len(), 1);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn shutdown_kills_a_running_sweep_and_records_nothing() {
    let d = daemon(Duration::from_secs(300), |_| {}).await;
    answer(&d, r#"fake:[{"hang":true}]"#);
    let mut c = d.client().await;
    create_project(&mut c, "demo", None).await;
    turn(&mut c, "demo", "Start a sweep that never ends.").await;
    let pid = paddock_tests::wait::wait_until("the sweep to start", DEADLINE, || {
        sweeps(&d).first().map(|s| s.pid)
    })
    .await
    .unwrap();
    let state_file = d.cfg.data_dir.join("state").join("sweep-state.json");
    d.stop().await.unwrap();
    assert!(process_gone(pid), "the sweep's claude outlived the daemon");
    let recorded = read(&state_file).unwrap_or_default();
    assert!(!recorded.contains("\"demo\""), "{recorded}");
}

#[tokio::test]
async fn the_digest_covers_the_six_newest_chats() {
    // The reference's shape: its 6 newest sessions, within a byte budget.
    let defaults = paddockd::Config::for_data_dir(Path::new("/d"), Path::new("/s"));
    assert_eq!(
        (defaults.sweeper_sessions, defaults.sweeper_budget_bytes),
        (6, 48_000)
    );
    let d = daemon(Duration::from_secs(2), |_| {}).await;
    answer(&d, &reply("# Overview", "NOCHANGE", "NOCHANGE"));
    let mut c = d.client().await;
    create_project(&mut c, "demo", None).await;
    for n in 1..=7 {
        turn(&mut c, "demo", &format!("Topic number {n}.")).await;
    }
    // The sweep that saw the last chat covers the six newest and leaves the first out.
    let prompt = paddock_tests::wait::wait_until("a sweep of the seventh chat", DEADLINE, || {
        sweeps(&d)
            .iter()
            .filter_map(|s| {
                let path = paddock_tests::fake_claude::batch::prompt_path(&d.state_dir, s.pid);
                read(&path)
            })
            .find(|p| p.contains("user: Topic number 7."))
    })
    .await
    .unwrap();
    for n in 2..=7 {
        assert!(
            prompt.contains(&format!("user: Topic number {n}.")),
            "chat {n}: {prompt}"
        );
    }
    assert!(
        !prompt.contains("user: Topic number 1."),
        "the seventh-newest chat is left out: {prompt}"
    );
    d.stop().await.unwrap();
}
