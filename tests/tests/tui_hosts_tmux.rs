//! The TUI over several hosts (issue 40), in tmux, with the real binaries: two daemons stand in
//! for two devboxes behind a stand-in for ssh ([`FakeHosts`]). One tree shows both hosts'
//! chats, a turn streams on each, an approval of the second host is answered from the one
//! inbox, and a host that goes away stays on screen dimmed until it is back, with no key
//! pressed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::fake_hosts::FakeHosts;
use paddock_tests::tmux::Tmux;

/// The tree row the cursor is on.
fn cursor_row(screen: &str) -> String {
    Tmux::tree_rows(screen)
        .find(|row| row.trim_start().starts_with(['›', '>']))
        .unwrap_or_default()
        .to_owned()
}

/// Moves the cursor with `key` until its row holds `what`.
fn move_to(tmux: &Tmux, key: &str, what: &str) {
    for _ in 0..30 {
        let screen = tmux.capture();
        if cursor_row(&screen).contains(what) {
            return;
        }
        tmux.keys(&[key]);
        tmux.wait_until("the cursor to move", |s| s != screen);
    }
    panic!("the cursor never reached {what:?}:\n{}", tmux.capture());
}

#[test]
fn one_tree_over_two_hosts_streams_answers_and_keeps_a_host_that_went_away() {
    let env = FakeHosts::new();
    let both = "a,b";
    env.new_chat(both, "a", "hello from a");
    let on_b = env.new_chat(both, "b", "hello from b");
    let tmux = env.tui("hosts", both, (120, 35));
    let screen = tmux.wait_for("hello from b");
    assert!(
        screen.contains("@ a") && screen.contains("@ b") && screen.contains("hello from a"),
        "{screen}"
    );
    assert!(screen.contains("2/2 hosts"), "{screen}");

    // A turn on each host, from the tree: a new chat on a's root workspace, then on b's (from
    // b's own row: a host's row starts a chat in its root workspace).
    tmux.keys(&["g"]);
    move_to(&tmux, "j", "(root)");
    tmux.keys(&["N"]);
    tmux.wait_for("new chat");
    tmux.keys(&["-l", "streamed on a"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("echo: streamed on a");
    tmux.escape();
    tmux.keys(&["Escape"]);
    tmux.keys(&["G"]);
    move_to(&tmux, "k", "@ b");
    tmux.keys(&["N"]);
    tmux.wait_for("new chat");
    tmux.keys(&["-l", "streamed on b"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("echo: streamed on b");
    tmux.escape();
    // Each went to its own host.
    let (a_chats, _) = env.ok("a", &["ls", "--json"]);
    let (b_chats, _) = env.ok("b", &["ls", "--json"]);
    assert!(a_chats.contains("streamed on a") && !a_chats.contains("streamed on b"));
    assert!(b_chats.contains("streamed on b") && !b_chats.contains("streamed on a"));

    // An approval asked on the second host, allowed from the one inbox.
    tmux.keys(&["I"]);
    tmux.wait_for("Approvals");
    let ask = serde_json::json!([
        {"tool": "Bash", "input": {"command": "rm -rf build"}, "output": "ok", "ask": true},
        {"text": "done after the approval"}
    ]);
    env.ok(
        both,
        &["send", "--detach", "-c", &on_b, &format!("fake:{ask}")],
    );
    tmux.wait_for("$ rm -rf build");
    tmux.keys(&["y"]);
    tmux.wait_until_gone("$ rm -rf build");
    let (shown, _) = env.ok(both, &["show", &on_b]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut shown = shown;
    while !shown.contains("done after the approval") {
        assert!(std::time::Instant::now() < deadline, "{shown}");
        std::thread::sleep(std::time::Duration::from_millis(50));
        shown = env.ok(both, &["show", &on_b]).0;
    }
    tmux.keys(&["Escape"]);
    tmux.wait_until_gone("Approvals");

    // b goes away (its daemon killed, its ssh refusing): a still works, b's rows stay, dimmed,
    // said down with when it was last seen.
    let pid = env.daemon_pid("b");
    env.refuse("b", true);
    let _ = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status();
    let screen = tmux.wait_for("b  down (last seen");
    assert!(screen.contains("hello from b"), "{screen}");
    assert!(screen.contains("1/2 hosts"), "{screen}");
    env.ok("a", &["send", "-p", "a:", "said while b was away"]);
    tmux.wait_for("said while b was away");
    // Back by itself once its ssh answers (its daemon started again), no key pressed.
    env.refuse("b", false);
    let screen = tmux.wait_until("b back", |s| s.contains("2/2 hosts"));
    assert!(!screen.contains("down (last seen"), "{screen}");
    assert!(screen.contains("hello from b"), "{screen}");
    tmux.keys(&["q"]);
}
