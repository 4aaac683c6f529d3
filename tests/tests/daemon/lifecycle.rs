//! What the daemon says about itself: `daemon:info` (the world its agents run in) and
//! `daemon:stopping` (a stop on purpose, told to every client before the connections close).

use std::path::PathBuf;

use paddock_proto::{ControlMessage, Reply, Request, ServerMessage, StopReason};

use crate::harness::*;

#[tokio::test]
async fn info_names_the_claude_the_daemon_starts_and_its_version() {
    let d =
        TestDaemon::start_with(|cfg| cfg.claude_bin = PathBuf::from("/nonexistent/claude")).await;
    let mut c = d.client().await;
    let Ok(Reply::Info(info)) = c.request(Request::DaemonInfo).await else {
        panic!("daemon:info is answered by info");
    };
    assert_eq!(info.pid, Some(std::process::id()));
    assert_eq!(info.claude.configured, "/nonexistent/claude");
    assert_eq!(info.claude.path, None);
    assert_eq!(info.claude.version, None);
    assert!(
        info.claude
            .error
            .as_deref()
            .is_some_and(|e| e.contains("/nonexistent/claude")),
        "{info:?}"
    );
    assert_eq!(
        info.claude.min_version,
        paddockd::claude_version::MIN_CLAUDE_VERSION
    );
    assert_eq!(info.data_dir, d.cfg.data_dir.to_string_lossy());
    d.stop().await.unwrap();

    // The fake claude answers --version as the real one does.
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let Ok(Reply::Info(info)) = c.request(Request::DaemonInfo).await else {
        panic!("daemon:info is answered by info");
    };
    assert_eq!(info.claude.version.as_deref(), Some("2.1.332"), "{info:?}");
    assert_eq!(info.claude.supported, Some(true));
    d.stop().await.unwrap();
}

/// Every message until the daemon closes the connection.
async fn until_closed(c: &mut RawClient) -> Vec<ServerMessage> {
    let mut seen = Vec::new();
    while let Some(m) = c.try_next(DEADLINE).await {
        seen.push(m);
    }
    seen
}

fn stopping_reason(seen: &[ServerMessage]) -> Option<StopReason> {
    seen.iter().find_map(|m| match m {
        ServerMessage::Control(ControlMessage::Stopping(s)) => Some(s.reason),
        _ => None,
    })
}

#[tokio::test]
async fn a_stop_on_purpose_is_told_to_every_client_before_the_close() {
    let d = TestDaemon::start().await;
    let mut asker = d.client().await;
    let mut watcher = d.client().await;
    assert_eq!(asker.request(Request::DaemonShutdown).await, Ok(Reply::Ack));
    let seen = until_closed(&mut watcher).await;
    assert_eq!(
        stopping_reason(&seen),
        Some(StopReason::Requested),
        "{seen:?}"
    );
    d.stop().await.unwrap();

    // A signal (the harness's stop is what SIGTERM does) says so too.
    let d = TestDaemon::start().await;
    let mut watcher = d.client().await;
    let stopped = tokio::spawn(d.stop());
    let seen = until_closed(&mut watcher).await;
    assert_eq!(stopping_reason(&seen), Some(StopReason::Signal), "{seen:?}");
    stopped.await.unwrap().unwrap();
}

/// The close at a stop drains each client's queue first: a client that was not reading when
/// the daemon stopped (its socket full, many answers still queued) still gets them all, and
/// `daemon:stopping`, before the end. A stop cut the writers off at once before, so a client
/// whose writer had not yet run lost the stopping notice and took the stop for a crash (the
/// TUI then started a new daemon).
#[tokio::test]
async fn a_client_behind_on_its_reads_at_a_stop_still_gets_everything_queued_and_the_stopping() {
    let d = TestDaemon::start_with(|c| c.client_queue = 50_000).await;
    let mut asker = d.client().await;
    let mut behind = d.client().await;
    // Far more answers than the socket holds, and none read yet.
    let pings = 20_000;
    for _ in 0..pings {
        behind.send(Request::Ping).await;
    }
    assert_eq!(asker.request(Request::DaemonShutdown).await, Ok(Reply::Ack));
    let seen = until_closed(&mut behind).await;
    assert_eq!(
        stopping_reason(&seen),
        Some(StopReason::Requested),
        "{} messages before the close",
        seen.len()
    );
    d.stop().await.unwrap();
}
