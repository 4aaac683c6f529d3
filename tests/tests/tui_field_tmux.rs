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

/// The TUI at 120x35 with the tree's cursor on the last chat of the last project, `title`.
fn on_last_chat(env: &TuiEnv, name: &str, title: &str) -> Tmux {
    let tmux = env.tui(name, (120, 35), &[]);
    tmux.wait_loaded(title);
    tmux.keys(&["G", "k"]);
    tmux.wait_until("the cursor on the chat", |s| cursor_row(s).contains(title));
    tmux
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
    tmux.escape();
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

    // `paddock ls` flags it as waiting for you to continue it.
    let ls = env.paddock_ok(&["ls", "-A"]);
    let row = ls.lines().find(|l| l.contains("fake:")).unwrap_or_default();
    let flags = row.split_whitespace().nth(2).unwrap_or_default();
    assert!(flags.len() == 5 && flags.ends_with('I'), "{ls}");

    // A client that opens the chat only now gets the words from the daemon, which kept them.
    let again = env.tui("cutshort-again", (120, 35), &[]);
    again.wait_loaded("an older chat");
    // N on the first row started it in the root workspace: the first chat there.
    again.keys(&["g", "j"]);
    again.wait_until("the cursor on the cut-short chat", |s| {
        cursor_row(s).contains("fake:")
    });
    again.keys(&["Enter"]);
    let screen = again.wait_for("cut short: the rest of this reply was never written");
    assert!(
        screen.contains("partial words streamed"),
        "the daemon did not keep what had streamed:\n{screen}"
    );
    again.keys(&["q"]);

    // C, from the chat pane, continues it; the notice goes with the new turn.
    tmux.escape();
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
    tmux.escape();
    tmux.keys(&["C"]);
    let screen = tmux.wait_for("echo: summarise the build log");
    assert!(!screen.contains("turn cut short"), "{screen}");
    tmux.keys(&["q"]);
}

/// Which of `titles` the lines name, in their order.
fn named<'a>(lines: impl Iterator<Item = &'a str>, titles: &[&str]) -> Vec<String> {
    lines
        .filter_map(|line| titles.iter().find(|t| line.contains(*t)))
        .map(|t| (*t).to_owned())
        .collect()
}

/// The tree rows that name one of `titles`, in screen order.
fn rows_named(screen: &str, titles: &[&str]) -> Vec<String> {
    named(Tmux::tree_rows(screen), titles)
}

#[test]
fn children_are_in_one_order_in_the_tree_ls_and_the_archived_group() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "-p", "demo", "the source chat"]);
    let ls = env.paddock_ok(&["ls", "-p", "demo", "--json"]);
    let rows: serde_json::Value = serde_json::from_str(&ls).unwrap();
    let source = rows[0]["sessionId"].as_str().unwrap().to_owned();
    let tmux = env.tui("order", (120, 35), &[]);
    tmux.wait_loaded("the source chat");
    let titles = ["fork one", "fork two", "fork three"];
    let mut forks = Vec::new();
    for title in titles {
        let id = env.paddock_ok(&["fork", "--name", title, &source]);
        forks.push(id.trim().to_owned());
        tmux.wait_for(title);
    }
    // Each fork gets a turn, the last one last: activity does not reorder children.
    for id in &forks {
        env.paddock_ok(&["send", "-c", id, "go on"]);
    }
    let screen = tmux.wait_for("fork three");
    assert_eq!(rows_named(&screen, &titles), titles, "{screen}");
    let ls = env.paddock_ok(&["ls", "-p", "demo"]);
    assert_eq!(named(ls.lines(), &titles), titles, "{ls}");

    // Archived without their parent, they keep that order in the Archived group.
    let mut archive = vec!["archive"];
    archive.extend(forks.iter().map(String::as_str));
    env.paddock_ok(&archive);
    tmux.wait_until_gone("fork one");
    tmux.keys(&["G"]);
    tmux.wait_until("the cursor on the Archived group", |s| {
        Tmux::tree_rows(s)
            .filter(|r| r.contains("Archived"))
            .last()
            .is_some_and(|r| r.trim_start().starts_with(['›', '>']))
    });
    tmux.keys(&["l"]);
    let screen = tmux.wait_for("fork three");
    assert_eq!(rows_named(&screen, &titles), titles, "{screen}");
    let ls = env.paddock_ok(&["ls", "-p", "demo", "--archived"]);
    assert_eq!(named(ls.lines(), &titles), titles, "{ls}");
    tmux.keys(&["q"]);
}

/// The status line's last line (the message or the hints).
fn status(tmux: &Tmux) -> String {
    Tmux::status_line(&tmux.capture()).to_owned()
}

#[test]
fn status_messages_go_when_they_are_over_and_the_filter_stays_in_view() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "-p", "demo", "a chat to star"]);
    let tmux = on_last_chat(&env, "status", "a chat to star");

    // Information goes at the next key...
    tmux.keys(&["s"]);
    tmux.wait_until("the star said", |s| {
        Tmux::status_line(s).contains("starred 1 chat")
    });
    tmux.keys(&["j"]);
    tmux.wait_until("the message gone at the next key", |s| {
        !Tmux::status_line(s).contains("starred")
    });
    // ... or by itself after a few seconds.
    tmux.keys(&["k", "s"]);
    tmux.wait_until("the unstar said", |s| {
        Tmux::status_line(s).contains("unstarred 1 chat")
    });
    tmux.wait_until("the message gone by itself", |s| {
        !Tmux::status_line(s).contains("unstarred")
    });

    // The filter stays in view while a message shows.
    tmux.keys(&["/"]);
    tmux.keys(&["-l", "star"]);
    tmux.keys(&["Enter"]);
    tmux.wait_until("the filter on the status line", |s| {
        Tmux::status_line(s).contains("/star")
    });
    tmux.keys(&["s"]);
    let line = tmux.wait_until("the star said", |s| {
        Tmux::status_line(s).contains("starred 1 chat")
    });
    assert!(Tmux::status_line(&line).contains("/star"), "{line}");
    tmux.keys(&["Escape"]);
    tmux.wait_until("the filter cleared", |s| {
        !Tmux::status_line(s).contains("/star")
    });

    // A tool call waiting for you is said until it is answered, here or elsewhere.
    let ask = serde_json::json!([
        {"tool": "Bash", "input": {"command": "rm -rf build"}, "output": "ok", "ask": true},
        {"text": "done"}
    ]);
    env.paddock_ok(&["send", "--detach", "-p", "demo", &format!("fake:{ask}")]);
    tmux.wait_until("the approval said", |s| {
        Tmux::status_line(s).contains("needs your approval")
    });
    tmux.keys(&["j", "k"]);
    assert!(
        status(&tmux).contains("needs your approval"),
        "{}",
        tmux.capture()
    );
    let pending: serde_json::Value =
        serde_json::from_str(&env.paddock_ok(&["approvals", "--json"])).unwrap();
    let id = pending[0]["id"].as_str().unwrap().to_owned();
    env.paddock_ok(&["approvals", "deny", &id]);
    tmux.wait_until("the approval no longer said", |s| {
        !Tmux::status_line(s).contains("needs your approval")
    });
    tmux.keys(&["q"]);
}

#[test]
fn a_2000_line_paste_folds_in_the_pane_and_o_shows_it_all() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "-p", "demo", "an older chat"]);
    let tmux = on_last_chat(&env, "paste", "an older chat");
    tmux.keys(&["Enter"]);
    tmux.wait_for("echo: an older chat");
    tmux.keys(&["i"]);
    let paste: String = (1..=2000).map(|i| format!("pasted line {i}\n")).collect();
    tmux.paste(&paste);
    tmux.wait_for("pasted line 2000");
    tmux.keys(&["Enter"]);
    // (The fake claude echoes it all back, so the pane follows the reply to its end.)
    tmux.wait_until("the message sent and echoed", |s| {
        s.contains("Write a message") && s.contains("pasted line 2000")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_until("the chat pane's hints", |s| {
        Tmux::status_line(s).contains("j/k")
    });
    // Live: folded to its first lines, with how many more.
    tmux.keys(&["g"]);
    let screen = tmux.wait_for("1992 more lines");
    assert!(screen.contains("› pasted line 1"), "{screen}");
    assert!(screen.contains("pasted line 8"), "{screen}");
    assert!(!screen.contains("pasted line 9 "), "{screen}");
    // o on it (g put the cursor on the first message; then its reply, then the paste) shows
    // it all.
    tmux.keys(&["j", "j", "o"]);
    tmux.wait_until_gone("1992 more lines");
    tmux.wait_for("pasted line 20");
    tmux.keys(&["q"]);
}

/// `git ARGS` in `dir`, which must succeed.
fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn triggers_history_and_changes_follow_what_another_terminal_does() {
    let env = TuiEnv::new();
    let work = env.data_dir().parent().unwrap().join("web");
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "-q", "-b", "main"]);
    git(&work, &["config", "user.name", "Ana Test"]);
    git(&work, &["config", "user.email", "ana@example.com"]);
    env.paddock_ok(&["project", "add", "web", "--path", &work.to_string_lossy()]);
    env.paddock_ok(&["send", "-p", "web", "a first chat"]);
    let tmux = on_last_chat(&env, "live", "a first chat");

    // Triggers: added and removed elsewhere, shown without closing the view.
    tmux.keys(&["Z"]);
    tmux.wait_for("No triggers in web.");
    env.paddock_ok(&[
        "trigger", "add", "ping", "-p", "web", "--on", "manual", "--prompt", "ping",
    ]);
    tmux.wait_for("never fired");
    env.paddock_ok(&["trigger", "rm", "ping", "-p", "web"]);
    tmux.wait_for("No triggers in web.");
    tmux.keys(&["Escape"]);
    tmux.wait_until_gone("No triggers in web.");

    // History: a run started elsewhere is listed while the view is open.
    tmux.keys(&["H"]);
    tmux.wait_for("History · unattended runs");
    tmux.keys(&["U"]);
    tmux.wait_for("a first chat");
    env.paddock_ok(&["send", "-p", "web", "a run from another terminal"]);
    tmux.wait_for("a run from another terminal");
    tmux.keys(&["Escape"]);
    tmux.wait_until_gone("History ·");

    // Changes of the project: a commit made elsewhere empties the list.
    std::fs::write(work.join("notes.txt"), "one\n").unwrap();
    // The cursor is wherever the views left it: above the project or below it.
    for _ in 0..8 {
        let screen = tmux.capture();
        let rows: Vec<&str> = Tmux::tree_rows(&screen).collect();
        let at = rows
            .iter()
            .position(|r| r.trim_start().starts_with(['›', '>']));
        let web = rows.iter().position(|r| r.contains("web  "));
        let (Some(at), Some(web)) = (at, web) else {
            panic!("no cursor or no project row:\n{screen}");
        };
        if at == web {
            break;
        }
        let row = cursor_row(&screen);
        tmux.keys(&[if at < web { "j" } else { "k" }]);
        tmux.wait_until("the cursor moved", |s| cursor_row(s) != row);
    }
    tmux.wait_until("the cursor on the project", |s| {
        cursor_row(s).contains("web  ")
    });
    tmux.keys(&["D"]);
    tmux.wait_for("notes.txt");
    env.paddock_ok(&["git", "commit", "-p", "web", "-m", "Add notes"]);
    tmux.wait_until_gone("notes.txt");
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
    let screen = tmux.wait_until("the fork nested under its source", |s| {
        nested(&row_of(s, "the forked child"))
    });
    // Told from its source (issue 36.6): the fork's mark on its row, none on the source's.
    assert!(
        row_of(&screen, "the forked child").contains('⋔'),
        "{screen}"
    );
    assert!(
        !row_of(&screen, "the parent chat").contains('⋔'),
        "{screen}"
    );

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
        Tmux::status_line(&screen).contains("detached 1 chat"),
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
        Tmux::status_line(&screen).contains("attached 1 chat"),
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
    let screen = tmux.wait_until("the fork nested under its source", |s| {
        nested(&row_of(s, "the forked child"))
    });
    // The fork's mark in ASCII.
    assert!(
        row_of(&screen, "the forked child").contains("-<"),
        "{screen}"
    );
    // The fork open in the chat pane, the keyboard in its composer.
    tmux.keys(&["G", "k", "i"]);
    let screen = tmux.wait_until("the fork's composer", |s| {
        s.contains("reply to the forked child") && Tmux::status_line(s).contains("newline")
    });
    let wide: Vec<char> = screen.chars().filter(|c| !c.is_ascii()).collect();
    assert!(wide.is_empty(), "not ASCII: {wide:?}\n{screen}");
    tmux.escape();
    tmux.escape();
    tmux.keys(&["?"]);
    let screen = tmux.wait_for("Keys");
    let wide: Vec<char> = screen.chars().filter(|c| !c.is_ascii()).collect();
    assert!(wide.is_empty(), "not ASCII in the help: {wide:?}\n{screen}");
    tmux.keys(&["q"]);
}

#[test]
fn a_chat_waiting_for_an_answer_stands_out_and_n_goes_there_first() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "--detach", "-p", "demo", "an unread chat"]);
    let ask = serde_json::json!([
        {"tool": "Bash", "input": {"command": "rm -rf build"}, "output": "ok", "ask": true},
        {"text": "done"}
    ]);
    env.paddock_ok(&["send", "--detach", "-p", "demo", &format!("fake:{ask}")]);
    let tmux = env.tui("needs", (120, 35), &[]);
    tmux.wait_loaded("an unread chat");
    // The detached chat is unread once the index has its transcript: until then it is listed
    // as a chat starting, with nothing to read (and `n` would have nowhere to go after the
    // asking chat).
    let screen = tmux.wait_until("the header's count and the unread mark", |s| {
        s.lines().next().is_some_and(|h| h.contains("1 need you"))
            && Tmux::tree_rows(s).any(|r| r.contains("an unread chat") && r.contains('•'))
    });
    let asking = Tmux::tree_rows(&screen)
        .find(|r| r.contains("fake:"))
        .unwrap_or_default()
        .to_owned();
    assert!(
        asking.contains('◉'),
        "the asking chat's mark: {asking}\n{screen}"
    );
    // n: the chat that waits for an answer first, then the unread one.
    tmux.keys(&["g", "n"]);
    tmux.wait_until("the cursor on the asking chat", |s| {
        cursor_row(s).contains("fake:")
    });
    tmux.keys(&["n"]);
    tmux.wait_until("the cursor on the unread chat", |s| {
        cursor_row(s).contains("an unread chat")
    });
    tmux.keys(&["q"]);
}

#[test]
fn approvals_home_usage_and_the_chat_pane_follow_what_another_terminal_does() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "-p", "demo", "a first chat"]);
    let ls: serde_json::Value =
        serde_json::from_str(&env.paddock_ok(&["ls", "-p", "demo", "--json"])).unwrap();
    let first = ls[0]["sessionId"].as_str().unwrap().to_owned();
    let tmux = on_last_chat(&env, "live2", "a first chat");

    // Approvals: a tool call asked elsewhere shows in the open inbox, and goes when answered
    // elsewhere.
    tmux.keys(&["I"]);
    tmux.wait_for("Approvals");
    let ask = serde_json::json!([
        {"tool": "Bash", "input": {"command": "rm -rf build"}, "output": "ok", "ask": true},
        {"text": "done"}
    ]);
    env.paddock_ok(&["send", "--detach", "-p", "demo", &format!("fake:{ask}")]);
    tmux.wait_for("$ rm -rf build");
    let pending: serde_json::Value =
        serde_json::from_str(&env.paddock_ok(&["approvals", "--json"])).unwrap();
    let id = pending[0]["id"].as_str().unwrap().to_owned();
    env.paddock_ok(&["approvals", "deny", &id]);
    tmux.wait_until_gone("$ rm -rf build");
    tmux.keys(&["Escape"]);
    tmux.wait_until_gone("Approvals");

    // Home: the project's counts follow a chat started elsewhere.
    tmux.keys(&["O"]);
    tmux.wait_for("Home · demo");
    tmux.wait_for("2 chats");
    env.paddock_ok(&["send", "-p", "demo", "a third chat"]);
    tmux.wait_for("3 chats");
    tmux.keys(&["Escape"]);
    tmux.wait_until_gone("Home · demo");

    // Usage: a chat started elsewhere is counted.
    tmux.keys(&["$"]);
    tmux.wait_for("Usage");
    env.paddock_ok(&["send", "-p", "demo", "a fourth chat"]);
    tmux.wait_for("a fourth chat");
    tmux.keys(&["Escape"]);
    tmux.wait_until_gone(" Usage");

    // The chat pane: a turn sent elsewhere streams into the open chat (the oldest, drawn last:
    // new chats come in above the rows already shown).
    tmux.keys(&["G", "k"]);
    tmux.wait_until("the cursor on the first chat", |s| {
        cursor_row(s).contains("a first chat")
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("echo: a first chat");
    env.paddock_ok(&["send", "-c", &first, "said from elsewhere"]);
    tmux.wait_for("echo: said from elsewhere");
    tmux.keys(&["q"]);
}

#[test]
fn the_files_view_follows_a_turn_sent_from_another_terminal() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "-p", "demo", "a chat that writes"]);
    let ls: serde_json::Value =
        serde_json::from_str(&env.paddock_ok(&["ls", "-p", "demo", "--json"])).unwrap();
    let sid = ls[0]["sessionId"].as_str().unwrap().to_owned();
    let tmux = on_last_chat(&env, "files", "a chat that writes");
    tmux.keys(&["F"]);
    tmux.wait_for(" Files ");
    let file = env.data_dir().join("projects/demo/notes-from-elsewhere.md");
    let write = serde_json::json!([{
        "tool": "Write",
        "input": {"file_path": file, "content": "hello"},
        "output": "File created successfully",
        "run": format!("printf hello > '{}'", file.display()),
    }]);
    env.paddock_ok(&["send", "-c", &sid, &format!("fake:{write}")]);
    tmux.wait_for("notes-from-elsewhere.md");
    tmux.keys(&["q"]);
}
