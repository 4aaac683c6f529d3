//! The TUI in tmux over the real Claude Code CLI (answering from the Messages API stand-in),
//! for what only a real turn makes: a turn another chat sent, through the paddock tools.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use paddock_tests::git::git;
use paddock_tests::mock_api::MockApi;
use paddock_tests::tmux::Tmux;
use paddock_tests::tui_env::TuiEnv;

/// Chat Y's turn calls `send_message` into chat X; X's turn says `↩ sent by …`.
/// `J` in X's pane opens Y from that line without moving an item cursor first (issue 36.8),
/// and History at 60 columns shows the sent-by chip as its icon alone, so titles keep their
/// room (issue 36.12).
#[test]
fn real_cli_j_opens_the_sender_and_history_at_60_columns_keeps_titles() {
    let api = MockApi::start_blocking().unwrap();
    let env = TuiEnv::new().with_real_claude(&api.base_url());
    env.paddock_ok(&["project", "add", "demo"]);
    env.paddock_ok(&["send", "-p", "demo", "the receiving chat"]);
    let rows = |env: &TuiEnv| -> Vec<serde_json::Value> {
        serde_json::from_str(&env.paddock_ok(&["ls", "-p", "demo", "--json"])).unwrap()
    };
    let x = rows(&env)[0]["sessionId"].as_str().unwrap().to_owned();
    let prompt = format!(
        r#"mock:tool mcp__paddock_manage__send_message {{"sessionId": "{x}", "message": "a word from the sender"}}"#
    );
    env.paddock_ok(&["send", "-p", "demo", &prompt]);
    // X's sent turn ends on its own.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let listed = rows(&env);
        let row = listed
            .iter()
            .find(|r| r["sessionId"] == x.as_str())
            .unwrap();
        if row["messageCount"].as_u64().unwrap_or(0) >= 4 && row["running"] == false {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "X's sent turn never ended: {row}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    let tmux = env.tui("sender", (120, 35), &[]);
    tmux.wait_loaded("the receiving chat");
    // X needs you (its turn ran unwatched): `n` goes there, Enter opens it.
    tmux.keys(&["n"]);
    tmux.wait_until("the cursor on X", |s| {
        Tmux::tree_rows(s)
            .any(|r| r.trim_start().starts_with(['›', '>']) && r.contains("the receiving chat"))
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("sent by");
    tmux.keys(&["J"]);
    let screen = tmux.wait_until("Y open in the chat pane", |s| {
        s.lines().any(|l| {
            l.split_once('│')
                .is_some_and(|(_, pane)| pane.contains("mock:tool"))
        })
    });
    assert!(
        !Tmux::status_line(&screen).contains("no chat sent"),
        "{screen}"
    );
    tmux.keys(&["q"]);

    // It opens on Y's chat, as it was left (one pane at 60 columns); History is a key away.
    let narrow = env.tui("history60", (60, 20), &[]);
    narrow.wait_for("Paddock");
    narrow.keys(&["H"]);
    let screen = narrow.wait_until("the sent turn in History", |s| {
        s.lines().any(|l| l.contains('↩'))
    });
    assert!(
        !screen.contains("sent by chat"),
        "the chip whole:\n{screen}"
    );
    assert!(
        screen
            .lines()
            .any(|l| l.contains('↩') && l.contains("the receiving")),
        "the title cut short:\n{screen}"
    );
    narrow.keys(&["q"]);
}

/// Issue 37 in the TUI: the new-chat composer says where the chat will work and Alt-w turns
/// it to a worktree of its own; two worktree chats that wrote the same file are both marked
/// `⇄` in the tree before any merge; the Changes view of a worktree chat is its own work
/// (its file, not the user's uncommitted one in the checkout).
#[test]
fn real_cli_worktree_composer_overlap_mark_and_changes() {
    let api = MockApi::start_blocking().unwrap();
    let env = TuiEnv::new().with_real_claude(&api.base_url());
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(repo.path().join("README.md"), "hello\n").unwrap();
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "first"]);
    std::fs::write(repo.path().join("mine.txt"), "the user's\n").unwrap();
    let dir = repo.path().to_str().unwrap();
    env.paddock_ok(&["project", "add", "demo", "--path", dir]);
    env.paddock_ok(&["project", "set", "demo", "--allow", "Write(**)"]);
    let write = |content: &str| {
        format!(r#"mock:tool Write {{"file_path":"shared.txt","content":"{content}"}}"#)
    };

    let tmux = env.tui("worktrees", (120, 35), &[]);
    tmux.wait_loaded("demo");
    let cursor_row = |s: &str| {
        Tmux::tree_rows(s)
            .find(|r| r.trim_start().starts_with(['›', '>']))
            .map(str::to_owned)
    };
    // Down, one row at a time (each move seen before the next), to the project.
    for _ in 0..6 {
        let was = cursor_row(&tmux.capture());
        if was.as_deref().is_some_and(|r| r.contains("demo")) {
            break;
        }
        tmux.keys(&["j"]);
        tmux.wait_until("the cursor to move", |s| cursor_row(s) != was);
    }
    tmux.keys(&["N"]);
    tmux.wait_for("new chat in demo");
    tmux.keys(&["M-w"]);
    tmux.wait_for("new chat in demo · ⎇ worktree");
    tmux.paste(&write("from the TUI"));
    tmux.keys(&["Enter"]);
    env.paddock_ok(&["send", "-p", "demo", "--worktree", &write("from the CLI")]);
    // Both wrote shared.txt, each in its own worktree: both rows are marked.
    let screen = tmux.wait_until("two rows marked as overlapping", |s| {
        Tmux::tree_rows(s).filter(|r| r.contains('⇄')).count() == 2
    });
    assert!(!repo.path().join("shared.txt").exists(), "{screen}");
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&env.paddock_ok(&["ls", "-p", "demo", "--json"])).unwrap();
    assert!(
        rows.iter()
            .all(|r| r["worktree"]["changedFiles"] == serde_json::json!(["shared.txt"])),
        "{rows:#?}"
    );

    // The open chat's Changes: its own file, not the user's.
    // Escape is seen before D is sent: an Escape and a letter read together are Alt+letter.
    tmux.keys(&["Escape"]);
    tmux.wait_until("the chat pane's hints", |s| {
        Tmux::status_line(s).contains("items")
    });
    tmux.keys(&["D"]);
    let screen = tmux.wait_until("the Changes view", |s| {
        Tmux::status_line(s).contains("provenance") && s.contains("shared.txt")
    });
    assert!(!screen.contains("mine.txt"), "{screen}");
    tmux.wait_until("its diff", |s| {
        s.contains("+from the TUI") || s.contains("+from the CLI")
    });
    tmux.keys(&["q"]);
}
