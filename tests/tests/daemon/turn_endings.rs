//! A turn's end is said as what it is: `paddock send` and `paddock tail` following a turn
//! that another terminal cancels, or that paddockd's stop cuts, say so in words and exit with
//! the status `send --help` documents, and no text of the CLI's internals (its
//! `[ede_diagnostic]` errors, its `[Request interrupted by user]` marker) reaches the person.
//! The real Claude Code CLI, the Messages API stand-in streaming slowly.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use paddock_proto::{ChatCancel, Reply, Request};
use paddock_tests::bins::bin;
use paddock_tests::mock_api::MockApi;

use crate::depth::chats;
use crate::harness::*;
use crate::real_cli::real_daemon;

/// A `paddock` command running against the test's daemon, its stdout read as it comes.
pub(crate) struct Running {
    child: Child,
    stdout: std::sync::mpsc::Receiver<Vec<u8>>,
}

/// `paddock ARGS` against the test's daemon, started now.
pub(crate) fn paddock(d: &TestDaemon, args: &[&str]) -> Running {
    let mut child = Command::new(bin("paddock"))
        .env("PADDOCK_SOCKET", &d.socket)
        .env("XDG_CONFIG_HOME", d.dir.path().join("client-config"))
        .env_remove("PADDOCK_CONFIG")
        .env_remove("PADDOCK_REMOTE")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("paddock starts");
    let mut out = child.stdout.take().expect("its stdout");
    let (tx, stdout) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = std::io::Read::read(&mut out, &mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    Running { child, stdout }
}

impl Running {
    /// Waits until it printed something of the turn.
    pub(crate) async fn printing(&self) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        while self.stdout.try_recv().is_err() {
            assert!(tokio::time::Instant::now() < deadline, "it printed nothing");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Its exit status and stderr, once it ends.
    pub(crate) async fn ended(self) -> (Option<i32>, String) {
        let (code, _, stderr) = self.output().await;
        (code, stderr)
    }

    /// Its exit status, the rest of its stdout and its stderr, once it ends.
    pub(crate) async fn output(self) -> (Option<i32>, String, String) {
        let Self { child, stdout } = self;
        let (out, rest) = tokio::time::timeout(
            Duration::from_secs(60),
            tokio::task::spawn_blocking(move || {
                let out = child.wait_with_output();
                let rest: Vec<u8> = stdout.iter().flatten().collect();
                (out, rest)
            }),
        )
        .await
        .expect("paddock ended")
        .expect("its thread");
        let out = out.expect("its output");
        (
            out.status.code(),
            String::from_utf8_lossy(&rest).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// The session of the one chat once it runs.
pub(crate) async fn running_chat(c: &mut RawClient) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(row) = chats(c, "").await.into_iter().find(|r| r.running) {
            return row.session_id;
        }
        assert!(tokio::time::Instant::now() < deadline, "no chat ran");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn no_internals(what: &str, stderr: &str) {
    for internal in [
        "ede_diagnostic",
        "result_type",
        "[Request interrupted",
        "stop_reason",
    ] {
        assert!(
            !stderr.contains(internal),
            "{what} printed the CLI's {internal:?}: {stderr}"
        );
    }
}

#[tokio::test]
async fn real_cli_a_turn_another_terminal_cancels_is_said_cancelled() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    let send = paddock(&d, &["send", "mock:slow 100"]);
    let sid = running_chat(&mut c).await;
    let tail = paddock(&d, &["tail", &sid]);
    // The reply streams before the cancel, so both follow a turn under way.
    send.printing().await;
    tail.printing().await;
    let reply = c
        .request(Request::ChatCancel(ChatCancel {
            session_id: sid.clone(),
            job_id: None,
        }))
        .await;
    assert!(matches!(reply, Ok(Reply::Cancelled(_))), "{reply:?}");
    for (what, child) in [("send", send), ("tail", tail)] {
        let (code, stderr) = child.ended().await;
        no_internals(what, &stderr);
        assert!(
            stderr.contains("the turn was cancelled; the chat stays resumable"),
            "{what}: {stderr}"
        );
        assert_eq!(code, Some(130), "{what}: {stderr}");
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn real_cli_a_turn_paddockd_stops_is_said_cut_with_how_to_continue() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    let send = paddock(&d, &["send", "mock:slow 100"]);
    let sid = running_chat(&mut c).await;
    send.printing().await;
    drop(c);
    d.stop().await.unwrap();
    let (code, stderr) = send.ended().await;
    no_internals("send", &stderr);
    assert!(
        stderr.contains("paddockd stopped while the turn ran")
            && stderr.contains(&format!("paddock continue {}", &sid[..8])),
        "{stderr}"
    );
    assert_eq!(code, Some(75), "{stderr}");
}
