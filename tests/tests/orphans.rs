//! No claude outlives paddockd: the real daemon binary SIGKILLed mid-turn takes its claude
//! with it (the parent-death signal), and the next start stops what an earlier daemon left
//! running: the tools in the dead claude's process group, and a claude recorded in
//! `state/claude-processes/` that ignored the signal (or was started by a daemon without it).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use paddock_proto::{ChatList, ChatScope, ChatSend, Reply, Request};
use paddock_tests::bins::bin;
use paddock_tests::sync_client::Conn;
use paddock_tests::wait::{pid_alive, wait_until_blocking};

const DEADLINE: Duration = Duration::from_secs(30);

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let env = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(env.fake_state()).unwrap();
        env
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("run").join("paddockd.sock")
    }

    fn fake_state(&self) -> PathBuf {
        self.dir.path().join("fake-state")
    }

    /// The real daemon binary with the fake claude; listening when this returns.
    fn start(&self) -> Child {
        let child = Command::new(bin("paddockd"))
            .env("PADDOCK_SOCKET", self.socket())
            .env("PADDOCK_DATA_DIR", self.data())
            .env("PADDOCK_LOG", self.dir.path().join("paddockd.log"))
            .env("PADDOCK_CLAUDE_BIN", bin("fake-claude"))
            .env("PADDOCK_SWEEPER", "off")
            .env("FAKE_CLAUDE_STATE_DIR", self.fake_state())
            .env(
                "PADDOCK_HOST_CLAUDE_HOME",
                self.dir.path().join("host-claude"),
            )
            .env_remove("PADDOCK_CONFIG")
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_until_blocking("the daemon's socket", DEADLINE, || {
            UnixStream::connect(self.socket()).ok()
        })
        .unwrap();
        child
    }

    /// The fake claude's pid and the pids of its `child` steps, once it has started them.
    fn fake_claude(&self) -> (u32, Vec<u32>) {
        wait_until_blocking("the fake claude and its child", DEADLINE, || {
            std::fs::read_dir(self.fake_state())
                .ok()?
                .flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .find_map(|e| {
                    let v: serde_json::Value =
                        serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok()?;
                    let children: Vec<u32> = v["children"]
                        .as_array()?
                        .iter()
                        .filter_map(|c| c.as_u64().and_then(|p| u32::try_from(p).ok()))
                        .collect();
                    let pid = u32::try_from(v["pid"].as_u64()?).ok()?;
                    (!children.is_empty()).then_some((pid, children))
                })
        })
        .unwrap()
    }
}

fn kill(pid: u32) {
    if let Some(pid) = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
}

/// `chat:send` of `message` as a new chat of the root workspace: its `Sent`.
fn send_new(conn: &mut Conn, message: impl Into<String>) -> paddock_proto::Sent {
    let reply = conn.request(Request::ChatSend(ChatSend {
        project_slug: String::new(),
        session_id: None,
        message: message.into(),
        model: None,
        preload_context: false,
        attachments: Vec::new(),
        isolation: None,
    }));
    let Reply::Sent(sent) = reply else {
        panic!("chat:send: {reply:?}")
    };
    sent
}

/// Stops a daemon as `paddock daemon stop`'s signal does, and reaps it.
fn stop(mut daemon: Child) {
    if let Some(pid) = rustix::process::Pid::from_raw(i32::try_from(daemon.id()).unwrap()) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
    wait_until_blocking("the daemon to stop", DEADLINE, || {
        daemon.try_wait().ok().flatten()
    })
    .unwrap();
}

#[test]
fn a_claude_dies_with_its_killed_daemon_and_the_restart_stops_its_tools() {
    let env = Env::new();
    let mut daemon = env.start();
    let mut conn = Conn::open(&env.socket(), "orphans test");
    // A turn that starts a tool process in claude's group, then runs until stopped.
    let sent = send_new(
        &mut conn,
        r#"fake:[{"child":"sleep 120"},{"text":"working","chunks":1},{"hang":true}]"#,
    );
    let (claude, tools) = env.fake_claude();

    daemon.kill().unwrap();
    daemon.wait().unwrap();
    // The claude goes with the daemon, mid-turn.
    let gone = wait_until_blocking("the orphaned claude to die", DEADLINE, || {
        (!pid_alive(claude)).then_some(())
    });
    if gone.is_err() {
        kill(claude);
        tools.iter().copied().for_each(kill);
    }
    gone.unwrap();

    // Its tool, which no parent-death signal reaches, is stopped by the next start.
    let daemon = env.start();
    for tool in &tools {
        let gone = wait_until_blocking("the dead claude's tool to be stopped", DEADLINE, || {
            (!pid_alive(*tool)).then_some(())
        });
        if gone.is_err() {
            kill(*tool);
        }
        assert!(
            gone.is_ok(),
            "tool process {tool} of the killed claude outlived the restart"
        );
    }
    // The chat shows as cut short, and why.
    let mut conn = Conn::open(&env.socket(), "orphans test");
    let list = root_chats(&mut conn);
    let chat = list
        .chats
        .iter()
        .find(|c| c.session_id == sent.session_id)
        .unwrap_or_else(|| panic!("{} is not listed: {list:?}", sent.session_id));
    assert!(chat.interrupted, "{chat:?}");
    assert!(
        chat.interrupted_reason
            .as_deref()
            .is_some_and(|r| r.starts_with("paddockd stopped while it ran")),
        "{chat:?}"
    );
    drop(conn);
    stop(daemon);
    assert!(
        std::fs::read_dir(env.data().join("state").join("claude-processes"))
            .map(|d| d.count())
            .unwrap_or(0)
            == 0,
        "no claude is recorded once the daemon stopped"
    );
}

/// The root workspace's chats, archived ones too.
fn root_chats(conn: &mut Conn) -> paddock_proto::Chats {
    let reply = conn.request(Request::ChatList(ChatList {
        project_slug: Some(String::new()),
        scope: ChatScope::All,
        since: None,
        full_titles: false,
    }));
    let Reply::Chats(list) = reply else {
        panic!("chat:list: {reply:?}")
    };
    list
}

/// `/proc/PID/stat`'s start time (field 22).
fn start_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let rest = &stat[stat.rfind(')').unwrap() + 1..];
    rest.split_whitespace().nth(19).unwrap().parse().unwrap()
}

#[test]
fn a_start_stops_a_recorded_claude_an_earlier_daemon_left_running() {
    let env = Env::new();
    // A claude a daemon without the parent-death signal started, recorded in the state
    // file as every claude is; it leads its own process group, with a tool in it.
    let claude_home = env.data().join("claude-home");
    let mut survivor = Command::new("sh")
        .args(["-c", "sleep 120 & exec sleep 120"])
        .env("CLAUDE_CONFIG_DIR", &claude_home)
        .process_group(0)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let pid = survivor.id();
    let records = env.data().join("state").join("claude-processes");
    std::fs::create_dir_all(&records).unwrap();
    let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    let record = serde_json::json!({
        "pid": pid,
        "startTicks": start_ticks(pid),
        "bootId": boot_id.trim(),
        "sessionId": uuid::Uuid::new_v4().to_string(),
    });
    std::fs::write(records.join(format!("{pid}.json")), record.to_string()).unwrap();
    // Another record whose pid now belongs to someone else (the test itself): left alone.
    let me = std::process::id();
    let stale = serde_json::json!({
        "pid": me, "startTicks": start_ticks(me) + 1, "bootId": boot_id.trim(),
        "sessionId": uuid::Uuid::new_v4().to_string(),
    });
    std::fs::write(records.join(format!("{me}.json")), stale.to_string()).unwrap();

    // A claude of a daemon that still runs (another one on this data directory; the test
    // plays it): not a survivor.
    let mut owned = Command::new("sleep")
        .arg("120")
        .env("CLAUDE_CONFIG_DIR", &claude_home)
        .process_group(0)
        .spawn()
        .unwrap();
    let owned_pid = owned.id();
    let owned_record = serde_json::json!({
        "pid": owned_pid, "startTicks": start_ticks(owned_pid), "bootId": boot_id.trim(),
        "sessionId": uuid::Uuid::new_v4().to_string(),
        "daemonPid": me, "daemonStartTicks": start_ticks(me),
    });
    std::fs::write(
        records.join(format!("{owned_pid}.json")),
        owned_record.to_string(),
    )
    .unwrap();

    let daemon = env.start();
    // The daemon answers once the sweep is done: it runs before any request is served.
    Conn::open(&env.socket(), "orphans test");
    let gone = wait_until_blocking("the survivor to be stopped", DEADLINE, || {
        survivor.try_wait().ok().flatten()
    });
    if gone.is_err() {
        let _ = survivor.kill();
    }
    let kept = owned.try_wait().unwrap().is_none();
    let _ = owned.kill();
    let _ = owned.wait();
    gone.unwrap();
    assert!(kept, "the running daemon's claude was left alone");
    stop(daemon);
    let left: Vec<String> = std::fs::read_dir(&records)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        left,
        [format!("{owned_pid}.json")],
        "the survivor's and the stale record are gone, the live daemon's is kept"
    );
}

/// A reply the daemon's death cut short mid-stream is not lost with it: what had streamed is
/// in the chat's transcript after the restart (for a client that opens the chat only then,
/// and for `paddock show`), closed by a line saying it was cut short.
#[test]
fn what_had_streamed_before_the_daemon_was_killed_is_in_the_transcript_after_the_restart() {
    let env = Env::new();
    let mut daemon = env.start();
    let mut conn = Conn::open(&env.socket(), "orphans test");
    let ticks: Vec<String> = (1..=60).map(|n| format!("tick{n} ")).collect();
    let script = serde_json::json!([{"text": ticks.concat(), "chunks": 60, "delay_ms": 150}]);
    let sent = send_new(&mut conn, format!("fake:{script}"));
    // The daemon dies once it has kept a few ticks, long before the reply is whole.
    let kept = env
        .data()
        .join("state")
        .join("streamed")
        .join(&sent.session_id);
    wait_until_blocking("the first ticks to be kept", DEADLINE, || {
        std::fs::read_dir(&kept)
            .ok()?
            .flatten()
            .any(|f| kept_text(&f.path()).contains("tick3"))
            .then_some(())
    })
    .unwrap();
    daemon.kill().unwrap();
    daemon.wait().unwrap();

    let daemon = env.start();
    let mut conn = Conn::open(&env.socket(), "orphans test");
    let reply = conn.request(Request::ChatTranscript(paddock_proto::SessionRef {
        session_id: sent.session_id.clone(),
    }));
    let Reply::Transcript(t) = reply else {
        panic!("chat:transcript: {reply:?}")
    };
    let said = t
        .entries
        .iter()
        .position(|e| {
            matches!(e, paddock_proto::TranscriptEntry::Assistant { text, .. }
                if text.starts_with("tick1 tick2 tick3"))
        })
        .unwrap_or_else(|| panic!("what had streamed is not in the transcript: {t:?}"));
    assert!(
        !t.entries.iter().any(|e| matches!(e,
            paddock_proto::TranscriptEntry::Assistant { text, .. } if text.contains("tick60"))),
        "the reply was cut short long before its end: {t:?}"
    );
    assert!(
        matches!(&t.entries.get(said + 1),
            Some(paddock_proto::TranscriptEntry::Interrupted { text }) if text.contains("cut short")),
        "{t:?}"
    );
    assert!(t.chat.interrupted, "{:?}", t.chat);
    drop(conn);
    stop(daemon);
}

/// The text a kept file of streamed deltas holds (its lines' `text` fields, joined).
fn kept_text(path: &std::path::Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_owned))
        .collect()
}

/// The fake claudes started with `--session-id`, and their pids.
fn started(env: &Env) -> Vec<(String, u32)> {
    std::fs::read_dir(env.fake_state())
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| {
            let v: serde_json::Value =
                serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok()?;
            let argv: Vec<&str> = v["argv"]
                .as_array()?
                .iter()
                .filter_map(|a| a.as_str())
                .collect();
            let at = argv.iter().position(|a| *a == "--session-id")?;
            let pid = u32::try_from(v["pid"].as_u64()?).ok()?;
            Some(((*argv.get(at + 1)?).to_owned(), pid))
        })
        .collect()
}

/// A spare claude (`runner/spare.rs`) is a claude like any other: SIGKILLing the daemon takes
/// it along, and the restarted daemon lists no chat of it.
#[test]
fn a_spare_dies_with_its_killed_daemon_and_is_never_a_chat() {
    let env = Env::new();
    let mut daemon = env.start();
    let mut conn = Conn::open(&env.socket(), "orphans test");
    let sent = send_new(&mut conn, "hello");
    // The turn ends, and a spare is made for the next new chat.
    let spare = wait_until_blocking("a ready spare", DEADLINE, || {
        let Reply::Status(s) = conn.request(Request::DaemonStatus) else {
            return None;
        };
        if !s.spares.iter().any(|s| s.ready) {
            return None;
        }
        started(&env)
            .into_iter()
            .find(|(sid, _)| *sid != sent.session_id)
    })
    .unwrap();
    drop(conn);
    daemon.kill().unwrap();
    daemon.wait().unwrap();
    let gone = wait_until_blocking("the spare to die with the daemon", DEADLINE, || {
        (!pid_alive(spare.1)).then_some(())
    });
    if gone.is_err() {
        kill(spare.1);
    }
    gone.unwrap();

    let daemon = env.start();
    let mut conn = Conn::open(&env.socket(), "orphans test");
    let list = root_chats(&mut conn);
    let listed: Vec<&str> = list.chats.iter().map(|c| c.session_id.as_str()).collect();
    assert_eq!(
        listed,
        [sent.session_id.as_str()],
        "the spare {} is no chat",
        spare.0
    );
    drop(conn);
    stop(daemon);
}
