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
    tmux.keys(&["Escape"]);

    // The search's query too.
    tmux.keys(&["C-f"]);
    tmux.keys(&["-l", "alpha"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("alpha chat");
    tmux.keys(&["Escape"]);
    tmux.keys(&["C-f"]);
    tmux.keys(&["-l", "beta"]);
    let screen = tmux.wait_until("the new query typed", |s| {
        s.lines()
            .any(|l| l.trim_start().starts_with("Search") && l.contains("beta"))
    });
    assert!(!screen.contains("alphabeta"), "{screen}");
    tmux.keys(&["Escape"]);

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
