//! Spare claudes (`runner/spare.rs`): a started, idle `claude` kept for the next new chat of
//! the project used last, used only when it was started exactly as that chat would start one.

use paddock_proto::{HistoryList, Reply, Request, RunSummary, SpareProcess};

use crate::harness::*;

async fn status(c: &mut RawClient) -> paddock_proto::DaemonStatus {
    match c.request(Request::DaemonStatus).await.unwrap() {
        Reply::Status(s) => s,
        other => panic!("daemon:status: {other:?}"),
    }
}

/// Waits until the daemon's spares are `want`.
async fn spares_until(c: &mut RawClient, want: &[SpareProcess]) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let now = status(c).await.spares;
        if now == want {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "spares are {now:?}, not {want:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

fn ready(project: &str) -> SpareProcess {
    SpareProcess {
        project_slug: project.into(),
        ready: true,
        worktree: false,
    }
}

/// The session ids of every fake claude started, in no order.
fn started_sessions(d: &TestDaemon) -> Vec<String> {
    d.fake_argvs()
        .into_iter()
        .filter_map(|argv| {
            let at = argv.iter().position(|a| a == "--session-id")?;
            argv.get(at + 1).cloned()
        })
        .collect()
}

/// The session id of the one spare started and not (yet) a chat.
fn spare_session(d: &TestDaemon, chats: &[&str]) -> String {
    let spares: Vec<String> = started_sessions(d)
        .into_iter()
        .filter(|s| !chats.contains(&s.as_str()))
        .collect();
    assert_eq!(spares.len(), 1, "one spare: {spares:?}");
    spares.into_iter().next().unwrap()
}

/// A change that makes a spare wrong, and what it is called.
type Change<'a> = (&'static str, Box<dyn Fn() + 'a>);

async fn history(c: &mut RawClient) -> Vec<RunSummary> {
    let list = Request::HistoryList(HistoryList {
        project_slug: None,
        unattended: false,
        limit: None,
    });
    match c.request(list).await.unwrap() {
        Reply::History(h) => h.runs,
        other => panic!("history: {other:?}"),
    }
}

/// How many processes were started with `session` in their arguments.
fn processes_for(d: &TestDaemon, session: &str) -> usize {
    d.fake_argvs()
        .iter()
        .filter(|argv| argv.iter().any(|a| a == session))
        .count()
}

#[tokio::test]
async fn the_next_new_chat_takes_the_spare_and_nothing_of_it_shows_before() {
    let d = TestDaemon::start_with(|c| c.spare_processes = 1).await;
    let mut c = d.client().await;
    assert!(status(&mut c).await.spares.is_empty(), "none before a use");
    let first = c.send_turn("", None, "one").await;
    c.frames_until_complete(&first.session_id).await;
    spares_until(&mut c, &[ready("")]).await;
    let spare = spare_session(&d, &[&first.session_id]);

    // Nothing of it is a chat: no transcript, no row, no run.
    let transcript = d
        .cfg
        .claude_home
        .join("projects")
        .read_dir()
        .unwrap()
        .flatten()
        .any(|dir| dir.path().join(format!("{spare}.jsonl")).exists());
    assert!(!transcript, "a spare writes no transcript");
    let rows = chats_of(&mut c, "").await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(history(&mut c).await.iter().all(|r| r.session_id != spare));
    assert_eq!(
        status(&mut c).await.live_processes,
        2,
        "it counts in the pool"
    );

    // The next new chat is the spare: its session id, no second process.
    let second = c.send_turn("", None, "two").await;
    assert_eq!(second.session_id, spare);
    let frames = c.frames_until_complete(&second.session_id).await;
    assert_eq!(text_of(&frames), "echo: two");
    assert_eq!(processes_for(&d, &spare), 1, "the spare's process ran it");
    // An ordinary new chat now: its row, its run, its transcript.
    let rows = chats_until(&mut c, "", "two chats", |rows| rows.len() == 2).await;
    assert!(
        rows.iter()
            .any(|r| r.session_id == spare && r.title == "two")
    );
    assert!(
        history(&mut c)
            .await
            .iter()
            .any(|r| r.session_id == spare && r.origin == paddock_proto::Origin::Human)
    );
    // And another spare is made for the one after.
    spares_until(&mut c, &[ready("")]).await;
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_spare_started_for_other_settings_is_never_used() {
    // The daemon runs its own copy of the fake, so the binary can be replaced.
    let bins = tempfile::tempdir().unwrap();
    let bin = bins.path().join("claude");
    std::fs::copy(fake_claude(), &bin).unwrap();
    let run = bin.clone();
    let d = TestDaemon::start_with(move |c| {
        c.spare_processes = 1;
        c.claude_bin = run;
    })
    .await;
    let mut c = d.client().await;
    let mut known: Vec<String> = Vec::new();
    let first = c.send_turn("", None, "one").await;
    c.frames_until_complete(&first.session_id).await;
    known.push(first.session_id.clone());
    let workspace = d.cfg.data_dir.join("workspace");
    let toml = workspace.join("project.toml");
    let changes: Vec<Change<'_>> = vec![
        (
            "the project's settings",
            Box::new(|| {
                let mut text = std::fs::read_to_string(&toml).unwrap_or_default();
                text.push_str("\nmodel = \"claude-other-1\"\n");
                std::fs::write(&toml, text).unwrap();
            }),
        ),
        (
            "the claude binary (upgraded in place)",
            Box::new(|| {
                let next = bins.path().join("claude.new");
                std::fs::copy(fake_claude(), &next).unwrap();
                std::fs::rename(&next, &bin).unwrap();
            }),
        ),
        (
            "CLAUDE.md",
            Box::new(|| std::fs::write(workspace.join("work/CLAUDE.md"), "Say hi.\n").unwrap()),
        ),
    ];
    for (what, change) in changes {
        spares_until(&mut c, &[ready("")]).await;
        let spare = spare_session(&d, &known.iter().map(String::as_str).collect::<Vec<_>>());
        change();
        let next = c.send_turn("", None, "again").await;
        c.frames_until_complete(&next.session_id).await;
        known.push(next.session_id.clone());
        assert_eq!(
            next.session_id, spare,
            "the new chat has the spare's session id"
        );
        assert_eq!(
            processes_for(&d, &spare),
            2,
            "after a change of {what}, the spare was stopped and the chat started afresh"
        );
    }
    // A model asked for by the message.
    spares_until(&mut c, &[ready("")]).await;
    let spare = spare_session(&d, &known.iter().map(String::as_str).collect::<Vec<_>>());
    let reply = c
        .request(Request::ChatSend(paddock_proto::ChatSend {
            project_slug: String::new(),
            session_id: None,
            message: "on another model".into(),
            model: Some("claude-third-2".into()),
            preload_context: false,
            attachments: Vec::new(),
            isolation: None,
        }))
        .await
        .unwrap();
    let Reply::Sent(sent) = reply else {
        panic!("{reply:?}")
    };
    c.frames_until_complete(&sent.session_id).await;
    let argvs: Vec<Vec<String>> = d
        .fake_argvs()
        .into_iter()
        .filter(|a| a.iter().any(|x| x == &sent.session_id))
        .collect();
    assert_eq!(
        sent.session_id, spare,
        "the new chat has the spare's session id"
    );
    assert_eq!(
        argvs.len(),
        2,
        "the spare, then a process for the chat: {argvs:?}"
    );
    assert!(
        argvs.iter().any(|argv| argv
            .windows(2)
            .any(|w| w[0] == "--model" && w[1] == "claude-third-2")),
        "the chat's process was started on the model asked for: {argvs:?}"
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_dead_spare_is_replaced_never_used() {
    let d = TestDaemon::start_with(|c| c.spare_processes = 1).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "one").await;
    c.frames_until_complete(&first.session_id).await;
    spares_until(&mut c, &[ready("")]).await;
    let dead = spare_session(&d, &[&first.session_id]);
    let pid = d.fake_pid_for(&dead).unwrap();
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid as i32).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    wait_gone(pid).await;
    // Replaced by another.
    let deadline = tokio::time::Instant::now() + DEADLINE;
    let replacement = loop {
        let spares: Vec<String> = started_sessions(&d)
            .into_iter()
            .filter(|s| s != &first.session_id && s != &dead)
            .collect();
        if !spares.is_empty() && status(&mut c).await.spares == [ready("")] {
            break spares[0].clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "no new spare");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let next = c.send_turn("", None, "two").await;
    assert_ne!(next.session_id, dead, "a dead spare is never used");
    assert_eq!(next.session_id, replacement);
    let frames = c.frames_until_complete(&next.session_id).await;
    assert_eq!(text_of(&frames), "echo: two");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn with_the_pool_full_no_spare_is_kept_and_a_turn_reaps_the_spare_first() {
    // One slot: the chat's idle process holds it, so there is no room for a spare.
    let d = TestDaemon::start_with(|c| {
        c.spare_processes = 1;
        c.max_processes = 1;
    })
    .await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "one").await;
    c.frames_until_complete(&first.session_id).await;
    let s = status(&mut c).await;
    assert!(s.spares.is_empty(), "{:?}", s.spares);
    assert!(started_sessions(&d).len() == 1, "no spare was started");
    d.stop().await.unwrap();

    // Two slots: the chat's process and a spare. Another chat's turn needs a slot: the
    // spare goes, the idle chat keeps its process.
    let d = TestDaemon::start_with(|c| {
        c.spare_processes = 1;
        c.max_processes = 2;
    })
    .await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "one").await;
    c.frames_until_complete(&first.session_id).await;
    spares_until(&mut c, &[ready("")]).await;
    let spare = spare_session(&d, &[&first.session_id]);
    let spare_pid = d.fake_pid_for(&spare).unwrap();
    let keeper = d.fake_pid_for(&first.session_id).unwrap();
    create_project(&mut c, "other", &d.dir.path().join("other")).await;
    let other = c.send_turn("other", None, "elsewhere").await;
    assert_ne!(other.session_id, spare, "a spare is its own project's");
    c.frames_until_complete(&other.session_id).await;
    wait_gone(spare_pid).await;
    assert!(!process_gone(keeper), "the idle chat kept its process");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn spares_stop_with_the_daemon_and_none_are_made_when_turned_off() {
    let d = TestDaemon::start_with(|c| c.spare_processes = 1).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "one").await;
    c.frames_until_complete(&first.session_id).await;
    spares_until(&mut c, &[ready("")]).await;
    let spare = spare_session(&d, &[&first.session_id]);
    let pid = d.fake_pid_for(&spare).unwrap();
    d.stop().await.unwrap();
    assert!(process_gone(pid), "the spare did not outlive the daemon");

    let d = TestDaemon::start_with(|c| c.spare_processes = 0).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "one").await;
    c.frames_until_complete(&first.session_id).await;
    let second = c.send_turn("", None, "two").await;
    c.frames_until_complete(&second.session_id).await;
    assert!(status(&mut c).await.spares.is_empty());
    assert_eq!(
        started_sessions(&d).len(),
        2,
        "no spare with spare_processes = 0"
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_spare_is_not_kept_past_spare_keep() {
    let d = TestDaemon::start_with(|c| {
        c.spare_processes = 1;
        c.spare_keep = std::time::Duration::from_millis(600);
    })
    .await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "one").await;
    c.frames_until_complete(&first.session_id).await;
    let deadline = tokio::time::Instant::now() + DEADLINE;
    let pid = loop {
        let spare = started_sessions(&d)
            .into_iter()
            .find(|s| s != &first.session_id);
        if let Some(pid) = spare.and_then(|s| d.fake_pid_for(&s)) {
            break pid;
        }
        assert!(tokio::time::Instant::now() < deadline, "no spare started");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    wait_gone(pid).await;
    spares_until(&mut c, &[]).await;
    d.stop().await.unwrap();
}
