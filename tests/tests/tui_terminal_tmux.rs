//! Nothing from content controls a real terminal: a chat whose prompt and reply carry OSC 0
//! (the window title), OSC 52 (the clipboard) and a clear screen, and a file attached to it
//! that carries them too, shown by `paddock show`, `paddock attachment` and the TUI in tmux, leaves the pane's title alone, writes none of those sequences, and shows
//! them as text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::bins::bin;
use paddock_tests::tmux::Tmux;
use paddock_tests::tui_env::TuiEnv;

const PROMPT: &str = "hello \x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[31mthere";
const SHOWN: &str = "hello ␛]0;pwned␇␛]52;c;cHduZWQ=␇␛[2J␛[31mthere";

fn pane_title(tmux: &Tmux) -> String {
    let out = tmux
        .cmd()
        .args(["display-message", "-p", "-t", "tui", "#{pane_title}"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Records everything the pane's program writes to `file`.
fn record(tmux: &Tmux, file: &std::path::Path) {
    let piped = tmux
        .cmd()
        .args(["pipe-pane", "-o", "-t", "tui"])
        .arg(format!("cat >> '{}'", file.display()))
        .status()
        .unwrap();
    assert!(piped.success());
}

/// Fails when what was written holds the sequences of the payload.
fn assert_raw_clean(file: &std::path::Path) {
    let raw = std::fs::read(file).unwrap_or_default();
    let raw = String::from_utf8_lossy(&raw);
    for seq in ["\x1b]0;pwned", "\x1b]52;", "\x1b[2J\x1b[31m"] {
        assert!(!raw.contains(seq), "the terminal was sent {seq:?}");
    }
}

#[test]
fn escapes_in_a_chat_change_nothing_in_a_real_terminal() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    let sent = env.paddock(&["send", "-p", "demo", PROMPT], &[]);
    assert!(sent.status.success());
    let session = String::from_utf8_lossy(&sent.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .expect("session id on stderr")
        .trim()
        .to_owned();
    let dir = tempfile::tempdir().unwrap();

    // A file carrying the same, attached to a message: `paddock attachment` shows it.
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, format!("file {PROMPT}\n")).unwrap();
    let file_arg = file.display().to_string();
    env.paddock_ok(&["send", "-c", &session, "-a", &file_arg, "see the file"]);
    let json = env.paddock_ok(&["show", "--json", &session]);
    let attachment = json
        .split("\\n")
        .find(|l| l.contains("\\tnotes.txt\\t"))
        .and_then(|l| l.split("\\t").next())
        .expect("the message names its attachment")
        .to_owned();

    // `paddock show` and `paddock attachment` in a pane of their own once the pane is
    // recorded (the test makes `go`), then a marker; the pane stays.
    let cli = Tmux {
        server: format!("paddock-show-{}", std::process::id()),
    };
    let go = dir.path().join("go");
    let mut shell = String::from("env -u PADDOCK_CONFIG -u PADDOCK_REMOTE");
    for (k, v) in &env.vars {
        shell.push_str(&format!(" {k}='{}'", v.display()));
    }
    shell.push_str(&format!(
        " sh -c \"echo READY; while [ ! -e '{}' ]; do sleep 0.05; done; '{paddock}' show {session}; '{paddock}' attachment {attachment}; echo END; exec sleep 600\"",
        go.display(),
        paddock = bin("paddock").display()
    ));
    cli.start_sized(&shell, 160, 30);
    cli.wait_for("READY");
    let shown_raw = dir.path().join("show.raw");
    record(&cli, &shown_raw);
    std::fs::write(&go, "").unwrap();
    let screen = cli.wait_for("END");
    assert!(screen.contains(&format!("echo: {SHOWN}")), "{screen}");
    assert!(screen.contains(&format!("file {SHOWN}")), "{screen}");
    assert!(!pane_title(&cli).contains("pwned"), "{}", pane_title(&cli));
    assert_raw_clean(&shown_raw);

    // The TUI: the title in the tree, the reply in the chat pane.
    let tui = env.tui("terminal", (160, 30), &[]);
    let tui_raw = dir.path().join("tui.raw");
    record(&tui, &tui_raw);
    tui.wait_loaded("hello ␛]0;pwned␇");
    tui.keys(&["G", "k", "Enter"]);
    let screen = tui.wait_for(&format!("echo: {SHOWN}"));
    assert!(screen.contains(SHOWN), "{screen}");
    assert!(!pane_title(&tui).contains("pwned"), "{}", pane_title(&tui));
    tui.keys(&["q"]);
    assert_raw_clean(&tui_raw);
}
