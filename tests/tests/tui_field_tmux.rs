//! The TUI as a person uses it in the field, end to end in tmux (issue 17's journeys): the
//! keys act where the person is looking, and the screen is current.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::tmux::Tmux;
use paddock_tests::tui_env::TuiEnv;

/// A turn that streams for a few seconds (the fake claude's script).
const SLOW_TURN: &str =
    r#"fake:[{"text":"working on it, step by step, until done","chunks":12,"delay_ms":250}]"#;

/// The tree row under the cursor (marked `›`, or `>` in ASCII).
fn cursor_row(screen: &str) -> String {
    Tmux::tree_rows(screen)
        .find(|row| row.trim_start().starts_with(['›', '>']))
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn after_a_new_chat_is_sent_the_composer_keeps_the_keyboard_and_the_cursor_follows() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "-p", "demo", "an older chat"]);
    let tmux = env.tui("focus", (120, 35), &[]);
    tmux.wait_loaded("an older chat");

    // N on the project, a message, Enter: the new chat opens and streams.
    tmux.keys(&["G", "k"]);
    tmux.wait_until("the cursor on the older chat", |s| {
        cursor_row(s).contains("an older chat")
    });
    tmux.keys(&["N"]);
    tmux.wait_for("new chat");
    tmux.keys(&["-l", SLOW_TURN]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("working on it");

    // The next words typed are text in the composer, aimed at the new chat: `x` does not
    // cancel the turn, `a` archives nothing.
    tmux.keys(&["-l", "xa and more"]);
    tmux.wait_for("xa and more");
    tmux.wait_until("the tree's cursor on the new chat", |s| {
        cursor_row(s).contains("fake:")
    });
    let screen = tmux.wait_for("until done");
    assert!(
        !screen.contains("stopped") && !screen.contains("interrupted"),
        "typing cancelled the turn:\n{screen}"
    );
    assert!(screen.contains("an older chat"), "{screen}");

    // Tab leaves for the tree: the cursor is on the chat the pane shows, so `a` would act
    // on it.
    tmux.keys(&["Escape"]);
    tmux.keys(&["Tab"]);
    let screen = tmux.wait_until("the cursor on the new chat", |s| {
        cursor_row(s).contains("fake:")
    });
    assert!(!cursor_row(&screen).contains("older"), "{screen}");
    tmux.keys(&["q"]);
}
