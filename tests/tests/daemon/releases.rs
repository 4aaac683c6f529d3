//! The claude binary's release is checked before it runs a turn: one older than the supported
//! minimum is refused with a notice naming the minimum and how to upgrade, and the same path
//! upgraded in place is checked again.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use paddock_proto::{ChatEvent, NoticeKind};

use crate::harness::*;

/// A `claude` that reports `version` and is otherwise the fake.
fn claude_reporting(path: &Path, version: &str) {
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo '{version} (Claude Code)'; exit 0; fi\nexec '{}' \"$@\"\n",
        fake_claude().display()
    );
    // Written beside and renamed over, as an upgrade replaces a binary.
    let tmp = path.with_extension("new");
    std::fs::write(&tmp, script).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[tokio::test]
async fn a_release_below_the_minimum_is_refused_and_an_upgrade_is_checked_again() {
    let bin_dir = tempfile::tempdir().unwrap();
    let claude = bin_dir.path().join("claude");
    claude_reporting(&claude, "2.1.150");
    let bin = claude.clone();
    let d = TestDaemon::start_with(move |c| c.claude_bin = bin).await;
    let mut c = d.client().await;

    let sent = c.send_turn("", None, "hello").await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    let notice = frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::Notice(n) if n.kind == NoticeKind::Info => Some(n.message.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no notice: {frames:#?}"));
    for part in [
        "2.1.150",
        "2.1.197",
        "npm install -g @anthropic-ai/claude-code",
    ] {
        assert!(notice.contains(part), "{part} in {notice}");
    }
    let done = complete_of(&frames);
    assert!(!done.success);
    assert!(d.fake_pids().is_empty(), "no turn ran on the old release");

    // Upgraded in place: the next turn checks again and runs.
    claude_reporting(&claude, "2.1.332");
    let sent = c.send_turn("", None, "hello again").await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert_eq!(text_of(&frames), "echo: hello again");
    assert!(complete_of(&frames).success);
    d.stop().await.unwrap();
}
