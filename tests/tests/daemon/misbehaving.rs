//! Claudes that misbehave cannot wedge a chat or outlive their stop: one that never reads its
//! stdin (a message larger than the pipe's buffer stalls the write), one that goes silent.
//! Each stand-in is a shell script written by the test; its process group has a second
//! member, so a stop that kills only the leader is caught.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use paddock_proto::{ChatCancel, ChatEvent, Reply, Request};
use paddock_tests::wait::wait_until;

use crate::harness::*;

/// A `claude` that answers `--version`, then starts a member of its process group (`sleep`)
/// and becomes `sleep` itself: it never reads stdin and never prints. Each start writes the
/// leader's and the member's pids to `pids` (one line: `LEADER MEMBER`).
fn deaf_claude(dir: &Path) -> (PathBuf, PathBuf) {
    let bin = dir.join("claude");
    let pids = dir.join("pids");
    let script = format!(
        "#!/bin/sh\n\
         if [ \"$1\" = --version ]; then echo '2.1.332 (Claude Code)'; exit 0; fi\n\
         sleep 600 &\n\
         echo \"$$ $!\" >> '{}'\n\
         exec sleep 600\n",
        pids.display()
    );
    std::fs::write(&bin, script).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    (bin, pids)
}

/// The pids of the `n`th start of the stand-in (from 1): its leader and its member.
async fn started(pids: &Path, n: usize) -> Vec<u32> {
    wait_until("the stand-in claude to start", DEADLINE, || {
        let text = std::fs::read_to_string(pids).ok()?;
        let all: Vec<u32> = text
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
        (all.len() >= 2 * n).then(|| all[2 * (n - 1)..2 * n].to_vec())
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn a_claude_that_stops_reading_cannot_wedge_its_chat() {
    let bin_dir = tempfile::tempdir().unwrap();
    let (bin, pids) = deaf_claude(bin_dir.path());
    let d = TestDaemon::start_with(move |c| {
        c.claude_bin = bin;
        c.interrupt_grace = std::time::Duration::from_millis(500);
    })
    .await;
    let mut c = d.client().await;
    // Far over the 64 KiB a pipe holds: the write to claude's stdin cannot finish.
    let big = "D".repeat(1_000_000);
    let sent = c.send_turn("", None, &big).await;
    let group = started(&pids, 1).await;

    // The cancel is answered (the chat task is not stuck in the write) ...
    let answer = c
        .request(Request::ChatCancel(ChatCancel {
            session_id: sent.session_id.clone(),
            job_id: None,
        }))
        .await;
    assert!(
        matches!(answer, Ok(Reply::Cancelled(ref c)) if c.was_running),
        "{answer:?}"
    );
    // ... and the turn ends: the chat leaves `running`.
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(!complete_of(&frames).success);
    // Every member of the stopped claude's process group is gone.
    for pid in &group {
        wait_gone(*pid).await;
    }

    // The next turn (a new process, the same deafness) is ended by the daemon's stop.
    c.send_turn("", None, &big).await;
    let group = started(&pids, 2).await;
    d.stop().await.unwrap();
    for pid in &group {
        wait_gone(*pid).await;
    }
}

#[tokio::test]
async fn a_silent_claude_is_stopped_and_the_notice_says_how_to_continue() {
    let bin_dir = tempfile::tempdir().unwrap();
    let (bin, pids) = deaf_claude(bin_dir.path());
    let d = TestDaemon::start_with(move |c| {
        c.claude_bin = bin;
        c.recovery_limbo = Some(std::time::Duration::from_millis(300));
    })
    .await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, "hello?").await;
    let group = started(&pids, 1).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(!complete_of(&frames).success);
    let notice = frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::Notice(n) if n.message.contains("no output") => Some(n.message.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no notice names the silence: {frames:#?}"));
    let short: String = sent.session_id.chars().take(8).collect();
    for part in [
        "300ms",
        "C in the TUI",
        &format!("`paddock continue {short}`"),
    ] {
        assert!(notice.contains(part), "{part:?} in {notice}");
    }
    for pid in &group {
        wait_gone(*pid).await;
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_running_tool_is_not_silence() {
    let d = TestDaemon::start_with(|c| {
        c.recovery_limbo = Some(std::time::Duration::from_millis(300));
    })
    .await;
    let mut c = d.client().await;
    // The tool runs five times the silence bound before its result.
    let script = r#"fake:[{"tool":"Bash","input":{"command":"make"},"output":"built","delay_ms":1500},{"text":"done","chunks":1}]"#;
    let sent = c.send_turn("", None, script).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    assert_eq!(text_of(&frames), "done");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_write_claude_does_not_take_ends_the_turn() {
    let bin_dir = tempfile::tempdir().unwrap();
    let (bin, pids) = deaf_claude(bin_dir.path());
    let d = TestDaemon::start_with(move |c| {
        c.claude_bin = bin;
        c.stdin_stall = std::time::Duration::from_millis(300);
    })
    .await;
    let mut c = d.client().await;
    // Nobody cancels: the stalled write itself ends the turn.
    let sent = c.send_turn("", None, &"D".repeat(1_000_000)).await;
    let group = started(&pids, 1).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(!complete_of(&frames).success);
    assert!(
        frames.iter().any(|f| matches!(&f.event,
            ChatEvent::Notice(n) if n.message.contains("stopped reading its input"))),
        "the notice says why: {frames:#?}"
    );
    for pid in &group {
        wait_gone(*pid).await;
    }
    d.stop().await.unwrap();
}
