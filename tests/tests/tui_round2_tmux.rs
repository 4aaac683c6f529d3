//! What a new user hit in the TUI (issue 36), end to end in tmux: input fields start fresh,
//! and `n` finds a chat that needs you even when the tree's filter hides it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::tmux::Tmux;
use paddock_tests::tui_env::TuiEnv;

#[test]
fn fields_start_fresh_and_n_finds_what_the_filter_hides() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "-p", "demo", "alpha chat"]);
    // Not watched: it needs you (unread).
    env.paddock_ok(&["send", "--detach", "-p", "demo", "beta chat"]);
    let tmux = env.tui("round2", (120, 35), &[]);
    tmux.wait_loaded("beta chat");

    // `/` again starts from the filter selected: typing replaces it.
    tmux.keys(&["/"]);
    tmux.keys(&["-l", "alpha"]);
    tmux.keys(&["Enter"]);
    tmux.wait_until("the filter on", |s| Tmux::status_line(s).contains("/alpha"));
    tmux.keys(&["/"]);
    tmux.keys(&["-l", "beta"]);
    let screen = tmux.wait_until("the new filter typed", |s| {
        Tmux::status_line(s).contains("/beta")
    });
    assert!(!screen.contains("alphabeta"), "{screen}");
    tmux.escape();

    // The search's query too.
    tmux.keys(&["C-f"]);
    tmux.keys(&["-l", "alpha"]);
    tmux.keys(&["Enter"]);
    // The search view with its query (the tree showed "alpha chat" already).
    tmux.wait_until("the search asked", |s| {
        s.lines()
            .any(|l| l.trim_start().starts_with("Search") && l.contains("alpha"))
    });
    tmux.escape();
    tmux.keys(&["C-f"]);
    tmux.keys(&["-l", "beta"]);
    let screen = tmux.wait_until("the new query typed", |s| {
        s.lines()
            .any(|l| l.trim_start().starts_with("Search") && l.contains("beta"))
    });
    assert!(!screen.contains("alphabeta"), "{screen}");
    tmux.escape();

    // `n` under a filter that hides the chat that needs you: found, the filter cleared.
    tmux.keys(&["/"]);
    tmux.keys(&["-l", "alpha"]);
    tmux.keys(&["Enter"]);
    tmux.wait_until("the filter on", |s| Tmux::status_line(s).contains("/alpha"));
    tmux.keys(&["n"]);
    let screen = tmux.wait_until("the cursor on the chat that needs you", |s| {
        Tmux::tree_rows(s)
            .any(|r| r.trim_start().starts_with(['›', '>']) && r.contains("beta chat"))
    });
    assert!(
        Tmux::status_line(&screen).contains("the filter hid the chat that needs you"),
        "{screen}"
    );
    tmux.keys(&["q"]);
}

/// On a first start inside a project's folder, the cursor starts on that project, not on the
/// root workspace.
#[test]
fn a_first_start_in_a_projects_folder_starts_on_that_project() {
    let env = TuiEnv::new();
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("src");
    std::fs::create_dir_all(&inner).unwrap();
    env.paddock_ok(&["project", "add", "aaa"]);
    env.paddock_ok(&[
        "project",
        "add",
        "mine",
        "--path",
        dir.path().to_str().unwrap(),
    ]);
    env.paddock_ok(&["project", "add", "zzz"]);
    let tmux = env.shell(
        "here",
        (120, 35),
        &format!(
            "cd '{}' && exec '{}'",
            inner.display(),
            paddock_tests::bins::bin("paddock").display()
        ),
    );
    let screen = tmux.wait_loaded("zzz");
    let cursor = Tmux::tree_rows(&screen)
        .find(|r| r.trim_start().starts_with(['›', '>']))
        .unwrap_or_default()
        .to_owned();
    assert!(
        cursor.contains("mine"),
        "the cursor is on {cursor:?}:\n{screen}"
    );
    tmux.keys(&["q"]);
}

/// Keys typed while `paddock` starts its daemon and reads the lists are not lost (issue
/// 36.14): held, then replayed once the tree is in. `G` typed on the first frame puts the
/// cursor on the last row (it moved over an empty list before, and nothing happened). The
/// daemon starts only once the key is typed: `paddock` starts it through a gate, a script
/// that waits on a FIFO until the test writes to it.
#[test]
fn keys_typed_while_paddock_starts_are_replayed_once_the_tree_is_in() {
    use std::os::unix::fs::PermissionsExt;
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    for title in ["one chat", "two chat", "three chat"] {
        env.paddock_ok(&["send", "-p", "demo", title]);
    }
    env.paddock_ok(&["daemon", "stop"]);
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("gate");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let gate = dir.path().join("gated-paddockd");
    std::fs::write(
        &gate,
        format!(
            "#!/bin/sh\nread _ < '{}'\nexec '{}' \"$@\"\n",
            fifo.display(),
            paddock_tests::bins::bin("paddockd").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&gate, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tmux = env.tui(
        "typeahead",
        (120, 35),
        &[("PADDOCK_DAEMON_BIN", &gate.to_string_lossy())],
    );
    tmux.wait_until("the first frame", |s| s.contains("Paddock"));
    tmux.keys(&["G"]);
    // The key is on the terminal before the daemon starts: the gate opens only now.
    std::fs::write(&fifo, "go\n").unwrap();
    let screen = tmux.wait_until("the cursor on the last row", |s| {
        let rows: Vec<&str> = Tmux::tree_rows(s)
            .filter(|r| !r.trim().is_empty())
            .collect();
        rows.last()
            .is_some_and(|r| r.trim_start().starts_with(['›', '>']))
    });
    assert!(screen.contains("three chat"), "{screen}");
    tmux.keys(&["q"]);
}
