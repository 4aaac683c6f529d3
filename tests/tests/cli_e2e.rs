//! The `paddock` command line end to end: real binaries, a daemon the client starts itself,
//! the fake `claude`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::bins::bin;
use paddock_tests::wait::wait_until_blocking;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use paddock_proto::{ChatEvent, ServerMessage};

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("run").join("paddockd.sock")
    }

    fn paddock(&self) -> Command {
        let mut c = Command::new(bin("paddock"));
        c.env("PADDOCK_SOCKET", self.socket())
            .env("PADDOCK_DATA_DIR", self.dir.path().join("data"))
            .env("PADDOCK_LOG", self.dir.path().join("paddockd.log"))
            .env("PADDOCK_CLAUDE_BIN", env!("CARGO_BIN_EXE_fake-claude"))
            .env("PADDOCK_DAEMON_BIN", bin("paddockd"))
            .env_remove("PADDOCK_CONFIG")
            .env_remove("PADDOCK_REMOTE")
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .stdin(Stdio::null());
        c
    }

    fn run(&self, args: &[&str]) -> (String, String) {
        let out = self.paddock().args(args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success(),
            "paddock {args:?} failed: {stderr}\n{stdout}"
        );
        (stdout, stderr)
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = self.paddock().args(["daemon", "stop"]).output();
    }
}

fn frames(json_lines: &str) -> Vec<paddock_proto::HubFrame> {
    json_lines
        .lines()
        .filter_map(|l| serde_json::from_str::<ServerMessage>(l).ok())
        .filter_map(|m| match m {
            ServerMessage::Frame(f) => Some(f),
            ServerMessage::Control(_) => None,
        })
        .collect()
}

#[test]
fn send_streams_and_tail_sees_the_same_seq_numbered_frames() {
    let env = Env::new();
    env.run(&["project", "add", "demo"]);
    let script =
        r#"fake:[{"text":"one two three four five six seven eight","chunks":16,"delay_ms":60}]"#;
    let mut send = env
        .paddock()
        .args(["send", "-p", "demo", "--json", script])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The session id reaches stderr as soon as the turn is accepted.
    let mut stderr = BufReader::new(send.stderr.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(30);
    let session = loop {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "send ended early");
        if let Some(id) = line.trim().strip_prefix("session: ") {
            break id.to_owned();
        }
        assert!(Instant::now() < deadline);
    };
    let tail = env
        .paddock()
        .args(["tail", "--json", &session])
        .output()
        .unwrap();
    assert!(
        tail.status.success(),
        "{}",
        String::from_utf8_lossy(&tail.stderr)
    );
    let mut send_out = String::new();
    send.stdout
        .take()
        .unwrap()
        .read_to_string(&mut send_out)
        .unwrap();
    assert!(send.wait().unwrap().success());
    let sent = frames(&send_out);
    let tailed = frames(&String::from_utf8_lossy(&tail.stdout));
    assert!(matches!(sent.last().map(|f| &f.event), Some(ChatEvent::Complete(c)) if c.success));
    assert_eq!(
        tailed.last(),
        sent.last(),
        "both end with the same chat:complete"
    );
    assert!(tailed.len() >= 2);
    // tail replays the running turn, so it holds every frame send saw, with the same seqs.
    assert_eq!(tailed, sent);

    let (ls, _) = env.run(&["ls", "-p", "demo", "--json"]);
    let chats: serde_json::Value = serde_json::from_str(&ls).unwrap();
    assert_eq!(chats[0]["sessionId"], session.as_str());
    let (show, _) = env.run(&["show", &session]);
    assert!(show.contains("one two three"), "{show}");
    let (_, _) = env.run(&["cancel", &session]);
    env.run(&["daemon", "stop"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while env.socket().exists() {
        assert!(Instant::now() < deadline, "socket still there after stop");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn plain_send_prints_the_reply_text_and_continues_a_chat() {
    let env = Env::new();
    let first = env.paddock().args(["send", "hello"]).output().unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&first.stdout).trim(), "echo: hello");
    let err = String::from_utf8_lossy(&first.stderr);
    let session = err
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .expect("session id on stderr")
        .trim()
        .to_owned();
    let (out, _) = env.run(&["send", "-c", &session, "again"]);
    assert_eq!(out.trim(), "echo: again");
    // A failing turn exits non-zero with a reason.
    let bad = env
        .paddock()
        .args(["send", "-c", &session, r#"fake:[{"crash":4}]"#])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("status 4"));
    // Unknown project: a clear one-line error.
    let missing = env
        .paddock()
        .args(["send", "-p", "nope", "hi"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("paddock project add nope"));
}

/// The eight characters the TUI and `paddock ls` show are enough to name a chat, in any
/// project (a prefix two chats share is refused: see `commands::ids`' unit tests).
#[test]
fn a_short_session_id_names_its_chat_anywhere() {
    let env = Env::new();
    env.run(&["project", "add", "demo"]);
    let mut sessions = Vec::new();
    for i in 0..3 {
        let out = env
            .paddock()
            .args(["send", "-p", "demo", &format!("chat {i}")])
            .output()
            .unwrap();
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let session = err
            .lines()
            .find_map(|l| l.strip_prefix("session: "))
            .expect("session id on stderr")
            .trim()
            .to_owned();
        sessions.push(session);
    }
    let first = &sessions[0];
    let (shown, _) = env.run(&["show", &first[..8]]);
    assert!(shown.contains(first.as_str()), "{shown}");
    assert!(shown.contains("echo: chat 0"), "{shown}");
    let (out, _) = env.run(&["send", "-c", &first[..8], "again"]);
    assert_eq!(out.trim(), "echo: again");
    env.run(&["star", &first[..6]]);
    let (listed, _) = env.run(&["ls", "-p", "demo", "--json"]);
    let rows: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let starred = rows
        .as_array()
        .or_else(|| rows["chats"].as_array())
        .unwrap()
        .iter()
        .find(|r| r["sessionId"] == first.as_str())
        .map(|r| r["starred"] == true);
    assert_eq!(starred, Some(true), "{listed}");
    // An id no chat has: the daemon's own error.
    let out = env.paddock().args(["show", "ffffffff"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no chat ffffffff"));
}

#[test]
fn sigterm_during_a_turn_stops_the_daemon_and_leaves_no_process() {
    let env = Env::new();
    let state = env.dir.path().join("fake-state");
    std::fs::create_dir_all(&state).unwrap();
    let script = r#"fake:[{"child":"sleep 600"},{"text":"busy","chunks":1},{"hang":true}]"#;
    let out = env
        .paddock()
        .env("FAKE_CLAUDE_STATE_DIR", &state)
        .args(["send", "--detach", script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The fake records its pid and its child's once they exist.
    let deadline = Instant::now() + Duration::from_secs(20);
    let pids: Vec<u32> = loop {
        let pids: Vec<u32> = std::fs::read_dir(&state)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .filter_map(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .flat_map(|v| {
                let mut p = vec![v["pid"].as_u64()];
                p.extend(
                    v["children"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|c| c.as_u64()),
                );
                p
            })
            .flatten()
            .map(|p| p as u32)
            .collect();
        if pids.len() >= 2 {
            break pids;
        }
        assert!(
            Instant::now() < deadline,
            "fake claude never started its child"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let (status, _) = env.run(&["daemon", "status", "--json"]);
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    let daemon_pid = status["pid"].as_u64().expect("pid in status") as i32;
    assert_eq!(status["running"].as_array().map(Vec::len), Some(1));
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(daemon_pid).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let gone = |pid: u32| !paddock_tests::wait::pid_alive(pid);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !(gone(daemon_pid as u32) && pids.iter().all(|p| gone(*p)) && !env.socket().exists()) {
        assert!(
            Instant::now() < deadline,
            "after SIGTERM: daemon gone {}, processes {:?}, socket {}",
            gone(daemon_pid as u32),
            pids.iter().map(|p| (*p, gone(*p))).collect::<Vec<_>>(),
            env.socket().exists()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn notify_announces_a_failed_run_nobody_watches_and_usage_sums_the_chats() {
    let env = Env::new();
    env.run(&["send", "hello there"]);
    let mut notify = env
        .paddock()
        .args(["notify", "--once"])
        .env("PADDOCK_NOTIFY", "osc777")
        .env_remove("TMUX")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Subscribed once it says it is waiting.
    let mut stderr = BufReader::new(notify.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(line.contains("waiting for chats that need you"), "{line}");

    let script =
        r#"fake:[{"text":"working","chunks":1,"delay_ms":300},{"api_error":500,"message":"boom"}]"#;
    env.run(&["send", "--detach", script]);
    let status = wait_until_blocking(
        "paddock notify --once to return",
        Duration::from_secs(30),
        || notify.try_wait().unwrap(),
    )
    .unwrap();
    assert!(status.success());
    let mut out = String::new();
    notify
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(out.starts_with("\x1b]777;notify;"), "{out:?}");
    assert!(out.contains("Run failed\x07\x07"), "{out:?}");
    assert!(out.trim_end().ends_with("— Run failed"), "{out:?}");

    // Two chats, both in the root workspace.
    let (json, _) = env.run(&["usage", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["total"]["chats"], 2, "{report:#}");
    assert_eq!(report["chats"].as_array().unwrap().len(), 2);
    let (text, _) = env.run(&["usage"]);
    assert!(text.starts_with("2 chats ("), "{text}");
}

#[test]
fn send_attaches_a_file_and_attachment_fetches_the_kept_copy() {
    let env = Env::new();
    let file = env.dir.path().join("trace.log");
    std::fs::write(&file, "panic at main.rs:12\n").unwrap();
    let (out, _) = env.run(&[
        "send",
        "--attach",
        &file.to_string_lossy(),
        "why does it panic?",
    ]);
    assert!(out.contains("<paddock-attachments>"), "{out}");
    assert!(out.contains("\ttrace.log\t"), "{out}");
    let id = out
        .lines()
        .find(|l| l.contains("\ttrace.log\t"))
        .and_then(|l| l.split('\t').next())
        .map(|s| s.trim_start_matches("echo: ").to_owned())
        .unwrap();
    // The kept copy does not follow the original.
    std::fs::write(&file, "changed\n").unwrap();
    let copy = env.dir.path().join("copy.log");
    env.run(&["attachment", &id, "-o", &copy.to_string_lossy()]);
    assert_eq!(
        std::fs::read_to_string(&copy).unwrap(),
        "panic at main.rs:12\n"
    );
    let (stdout, _) = env.run(&["attachment", &id]);
    assert_eq!(stdout, "panic at main.rs:12\n");
    let out = env
        .paddock()
        .args(["attachment", "nope.txt"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no attachment nope.txt"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `paddock ls --json` carries a long pasted first prompt as a title of 200 characters and
/// "…"; `--full-titles` gives the whole of it, with and without `-A`.
#[test]
fn ls_json_cuts_a_long_title_and_full_titles_gives_it_whole() {
    let env = Env::new();
    let prompt: String = (1..=40)
        .map(|i| format!("line {i} of a pasted log, kept whole only when asked"))
        .collect::<Vec<_>>()
        .join("\n");
    env.run(&["send", &prompt]);
    let title = |args: &[&str]| -> String {
        let (out, _) = env.run(args);
        let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
        rows[0]["title"].as_str().unwrap().to_owned()
    };
    let cut = title(&["ls", "--json"]);
    assert_eq!(cut.chars().count(), 201, "{cut}");
    assert!(cut.ends_with('…'), "{cut}");
    let kept: String = prompt.chars().take(200).collect();
    assert_eq!(cut, format!("{kept}…"));
    assert_eq!(title(&["ls", "--json", "--full-titles"]), prompt);
    assert_eq!(title(&["ls", "-A", "--json", "--full-titles"]), prompt);
    assert_eq!(title(&["ls", "-A", "--json"]), cut);
}

/// `paddock ls --json` passes the daemon's rows through without decoding them, and prints
/// exactly what decoding them and printing them would: the same layout, fields and order,
/// the tree fields of a fork and its source included; `-A` lists the root workspace's rows
/// first, then each project's, each in its own listing's order.
#[test]
fn ls_json_prints_the_rows_as_their_decoded_form_prints() {
    let env = Env::new();
    env.run(&["project", "add", "demo"]);
    env.run(&["send", "-p", "demo", "the \"quoted\" parent {chat}"]);
    env.run(&["send", "in the root workspace"]);
    let (listed, _) = env.run(&["ls", "-p", "demo", "--json"]);
    let rows: Vec<paddock_proto::ChatSummary> = serde_json::from_str(&listed).unwrap();
    env.run(&["fork", &rows[0].session_id, "--name", "the fork"]);

    let printed = |args: &[&str]| -> (String, Vec<paddock_proto::ChatSummary>) {
        let (out, _) = env.run(args);
        let rows: Vec<paddock_proto::ChatSummary> = serde_json::from_str(&out).unwrap();
        let decoded = serde_json::to_string_pretty(&rows).unwrap() + "\n";
        assert_eq!(
            out, decoded,
            "paddock {args:?} prints its rows as decoded rows print"
        );
        (out, rows)
    };
    let (_, demo) = printed(&["ls", "-p", "demo", "--json"]);
    assert_eq!(demo.len(), 2, "{demo:?}");
    assert_eq!(demo[0].children, vec![demo[1].session_id.clone()]);
    assert_eq!(
        demo[1].tree_parent.as_deref(),
        Some(demo[0].session_id.as_str())
    );
    assert_eq!(demo[1].level, 1);
    let (_, root) = printed(&["ls", "--json"]);
    let (_, all) = printed(&["ls", "-A", "--json"]);
    let ids = |rows: &[paddock_proto::ChatSummary]| -> Vec<String> {
        rows.iter().map(|r| r.session_id.clone()).collect()
    };
    assert_eq!(ids(&all), [ids(&root), ids(&demo)].concat());
    printed(&["ls", "-A", "--all", "--json", "--full-titles"]);
}
