//! `M` in the TUI, end to end in tmux (issue 37.9): a root chat is moved to a new project by
//! typing its slug on the status line, and the tree shows it there.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::tmux::Tmux;
use paddock_tests::tui_env::TuiEnv;

#[test]
fn m_moves_a_root_chat_to_a_new_project_and_the_tree_follows_it() {
    let env = TuiEnv::new();
    env.paddock_ok(&["send", "plan the quokka enclosure"]);
    let sid = env.paddock_ok(&["ls", "--json"]);
    let rows: serde_json::Value = serde_json::from_str(&sid).unwrap();
    let sid = rows[0]["sessionId"].as_str().unwrap().to_owned();

    let tmux = env.tui("promote", (100, 30), &[]);
    tmux.wait_loaded("plan the quokka enclosure");
    // The cursor from the root workspace's row down to the chat.
    tmux.keys(&["j"]);
    tmux.wait_until("the cursor on the chat", |s| {
        Tmux::tree_rows(s).any(|r| r.contains("›") && r.contains("plan the quokka"))
    });
    tmux.keys(&["M"]);
    let screen = tmux.wait_for("to project:");
    assert!(
        Tmux::status_line(&screen).contains("move “plan the quokka enclosure” to project:"),
        "{screen}"
    );
    tmux.keys(&["-l", "zoo"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("to project zoo (a new project)");
    // The tree lists it under its new project, and no longer under the root workspace, once
    // both lists come in; and paddockd agrees.
    let moved = |s: &str| {
        let rows: Vec<&str> = Tmux::tree_rows(s).collect();
        let Some(at) = rows.iter().position(|r| r.contains("zoo")) else {
            return false;
        };
        let quokka = |r: &&&str| r.contains("plan the quokka");
        rows[at..].iter().any(|r| quokka(&r)) && !rows[..at].iter().any(|r| quokka(&r))
    };
    tmux.wait_until("the chat under zoo only", moved);
    let listed: serde_json::Value =
        serde_json::from_str(&env.paddock_ok(&["ls", "-p", "zoo", "--json"])).unwrap();
    assert_eq!(listed[0]["sessionId"], sid.as_str(), "{listed}");
    tmux.keys(&["q"]);
}
