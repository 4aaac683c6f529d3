//! The TUI as a person uses it in the field, end to end in tmux (issue 17's journeys): the
//! keys act where the person is looking, and the screen is current.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::tmux::Tmux;
use paddock_tests::tui_env::TuiEnv;

/// SIGKILLs the daemon and waits for the TUI to have started another.
fn kill_the_daemon(env: &TuiEnv) {
    let status = env.wait_status("the daemon", |_| true);
    let pid = status["pid"].as_u64().unwrap() as i32;
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    env.wait_status("a new daemon after the crash", |s| {
        s["pid"].as_u64() != Some(pid as u64)
    });
}

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

/// A turn that streams a few words, then waits for ever (until its claude is killed). The
/// escaped spaces keep the prompt from matching what streams.
const STALLED_TURN: &str =
    r#"fake:[{"text":"partial\u0020words\u0020streamed","chunks":1},{"hang":true}]"#;

#[test]
fn after_a_daemon_crash_the_pane_keeps_what_streamed_and_says_the_turn_was_cut_short() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "-p", "demo", "an older chat"]);
    let tmux = env.tui("cutshort", (120, 35), &[]);
    tmux.wait_loaded("an older chat");
    tmux.keys(&["N"]);
    tmux.wait_for("new chat");
    tmux.keys(&["-l", STALLED_TURN]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("partial words streamed");
    // The CLI has written the message to the transcript once the reply streams.

    // The daemon dies mid-turn; the TUI starts another and reads the chat again.
    kill_the_daemon(&env);
    let screen = tmux.wait_for("turn cut short");
    assert!(
        screen.contains("partial words streamed"),
        "what had streamed is gone:\n{screen}"
    );
    assert!(screen.contains("paddockd stopped while it ran"), "{screen}");
    assert!(screen.contains("C continues it"), "{screen}");

    // C, from the chat pane, continues it; the notice goes with the new turn.
    tmux.keys(&["Escape"]);
    tmux.keys(&["C"]);
    tmux.wait_until_gone("turn cut short");
    tmux.keys(&["q"]);
}

#[test]
fn a_new_chat_waiting_for_claude_when_the_daemon_dies_is_kept_and_c_sends_it() {
    let env = TuiEnv::new();
    // One claude at a time, and it is busy: the next chat waits for it.
    let out = env.paddock(
        &["project", "add", "demo"],
        &[("PADDOCK_MAX_PROCESSES", "1")],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    env.paddock_ok(&["send", "--detach", "-p", "demo", r#"fake:[{"hang":true}]"#]);
    let tmux = env.tui("unwritten", (120, 35), &[]);
    tmux.wait_loaded("demo");
    tmux.keys(&["N"]);
    tmux.wait_for("new chat");
    tmux.keys(&["-l", "summarise the build log"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("free claude");

    kill_the_daemon(&env);
    // The chat and its words are still there, and it says how to go on.
    let screen = tmux.wait_for("turn cut short");
    assert!(screen.contains("› summarise the build log"), "{screen}");
    assert!(screen.contains("C continues it"), "{screen}");
    tmux.keys(&["Escape"]);
    tmux.keys(&["C"]);
    let screen = tmux.wait_for("echo: summarise the build log");
    assert!(!screen.contains("turn cut short"), "{screen}");
    tmux.keys(&["q"]);
}

/// The tree row that holds `title`.
fn row_of(screen: &str, title: &str) -> String {
    Tmux::tree_rows(screen)
        .find(|row| row.contains(title))
        .unwrap_or_default()
        .to_owned()
}

/// Whether a tree row is drawn nested under the row above (the branch mark).
fn nested(row: &str) -> bool {
    row.contains('└') || row.contains("`-")
}

#[test]
fn d_detaches_a_chat_from_its_parent_and_d_again_attaches_it() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "-p", "demo", "the parent chat"]);
    let listing: serde_json::Value =
        serde_json::from_str(&env.paddock_ok(&["ls", "-p", "demo", "--json"])).unwrap();
    let parent = listing[0]["sessionId"].as_str().unwrap().to_owned();
    env.paddock_ok(&["fork", &parent, "--name", "the forked child"]);
    let tmux = env.tui("detach", (120, 35), &[]);
    tmux.wait_until("the fork nested under its source", |s| {
        nested(&row_of(s, "the forked child"))
    });

    // The fork is the last chat, above the project's "Archived" group.
    tmux.keys(&["G", "k"]);
    tmux.wait_until("the cursor on the fork", |s| {
        cursor_row(s).contains("the forked child")
    });
    tmux.keys(&["d"]);
    let screen = tmux.wait_until("the fork drawn as a root", |s| {
        let row = row_of(s, "the forked child");
        !row.is_empty() && !nested(&row)
    });
    assert!(
        Tmux::status_line(&screen).contains("1 chat changed"),
        "{screen}"
    );
    assert!(
        cursor_row(&screen).contains("the forked child"),
        "the cursor left the chat:\n{screen}"
    );

    // d again undoes it: the fork is drawn under its source again.
    tmux.keys(&["d"]);
    let screen = tmux.wait_until("the fork nested again", |s| {
        nested(&row_of(s, "the forked child"))
    });
    assert!(
        Tmux::status_line(&screen).contains("1 chat changed"),
        "{screen}"
    );
    tmux.keys(&["q"]);
}

#[test]
fn under_ascii_and_no_color_the_screen_is_ascii_with_a_chat_and_its_composer_open() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "-p", "demo", "the parent chat"]);
    let listing: serde_json::Value =
        serde_json::from_str(&env.paddock_ok(&["ls", "-p", "demo", "--json"])).unwrap();
    let parent = listing[0]["sessionId"].as_str().unwrap().to_owned();
    env.paddock_ok(&["fork", &parent, "--name", "the forked child"]);
    env.paddock_ok(&["star", &parent]);
    let tmux = env.tui(
        "ascii",
        (120, 35),
        &[("PADDOCK_ASCII", "1"), ("NO_COLOR", "1")],
    );
    tmux.wait_until("the fork nested under its source", |s| {
        nested(&row_of(s, "the forked child"))
    });
    // The fork open in the chat pane, the keyboard in its composer.
    tmux.keys(&["G", "k", "i"]);
    let screen = tmux.wait_for("reply to the forked child");
    let wide: Vec<char> = screen.chars().filter(|c| !c.is_ascii()).collect();
    assert!(wide.is_empty(), "not ASCII: {wide:?}\n{screen}");
    tmux.keys(&["Escape"]);
    tmux.keys(&["Escape"]);
    tmux.keys(&["?"]);
    let screen = tmux.wait_for("Keys");
    let wide: Vec<char> = screen.chars().filter(|c| !c.is_ascii()).collect();
    assert!(wide.is_empty(), "not ASCII in the help: {wide:?}\n{screen}");
    tmux.keys(&["q"]);
}
