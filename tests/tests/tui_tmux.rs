//! The TUI in a real terminal: tmux runs `paddock`, capture-pane reads the screen.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::bins::bin;
use paddock_tests::tmux::Tmux;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Calls an agent tool over the daemon's socket, as the `paddockd mcp` bridge would.
fn agent_call(socket: &Path, token: &str, tool: &str, arguments: serde_json::Value) -> String {
    use paddock_proto::{AgentCall, ClientMessage, ControlMessage, Hello, Outcome, Reply, Request};
    use std::io::{BufRead, BufReader, Write};
    let mut stream = std::os::unix::net::UnixStream::connect(socket).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let requests = [
        Request::Hello(Hello {
            protocol_version: paddock_proto::PROTOCOL_VERSION,
            client: "tmux test".into(),
        }),
        Request::AgentCall(AgentCall {
            token: token.into(),
            server: "paddock_manage".into(),
            tool: tool.into(),
            arguments,
            tool_use_id: None,
        }),
    ];
    for (id, request) in (1u64..).zip(requests) {
        let line = paddock_proto::encode(&ClientMessage { id, request }).unwrap();
        stream.write_all(line.as_bytes()).unwrap();
    }
    loop {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the daemon hung up"
        );
        if let Ok(paddock_proto::ServerMessage::Control(ControlMessage::Response(r))) =
            paddock_proto::decode(line.trim_end().as_bytes())
            && r.id == 2
        {
            return match r.outcome {
                Outcome::Ok(Reply::AgentResult(a)) => a.text,
                other => panic!("agent:call answered {other:?}"),
            };
        }
    }
}

#[test]
fn the_tui_lists_chats_sends_streams_archives_unarchives_shows_help_and_quits() {
    let dir = tempfile::tempdir().unwrap();
    let env: Vec<(&str, PathBuf)> = vec![
        ("PADDOCK_SOCKET", dir.path().join("run/paddockd.sock")),
        ("PADDOCK_DATA_DIR", dir.path().join("data")),
        ("PADDOCK_LOG", dir.path().join("paddockd.log")),
        (
            "PADDOCK_CLAUDE_BIN",
            PathBuf::from(env!("CARGO_BIN_EXE_fake-claude")),
        ),
        ("PADDOCK_DAEMON_BIN", bin("paddockd")),
        ("XDG_CONFIG_HOME", dir.path().join("config")),
    ];
    let paddock = |args: &[&str]| {
        let out = Command::new(bin("paddock"))
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env_remove("PADDOCK_CONFIG")
            .env_remove("PADDOCK_REMOTE")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    paddock(&["project", "add", "demo"]);
    paddock(&["send", "-p", "demo", "a chat about tmux panes"]);

    let tmux = Tmux {
        server: format!("paddock-test-{}", std::process::id()),
    };
    let mut shell = String::from("env -u PADDOCK_CONFIG -u PADDOCK_REMOTE");
    for (k, v) in &env {
        shell.push_str(&format!(" {k}='{}'", v.display()));
    }
    shell.push_str(&format!(" '{}'", bin("paddock").display()));
    let started = tmux
        .cmd()
        .args([
            "new-session",
            "-d",
            "-s",
            "tui",
            "-x",
            "80",
            "-y",
            "24",
            &shell,
        ])
        .status()
        .expect("tmux is installed (.ci/run installs it)");
    assert!(started.success());
    let screen = tmux.wait_for("a chat about tmux panes");
    assert!(screen.contains("demo"), "{screen}");

    // A new chat from the keyboard: N on the root workspace's row, type, Enter; the reply
    // streams into the chat pane and the chat appears in the tree.
    let keys = |keys: &[&str]| {
        let mut c = tmux.cmd();
        c.args(["send-keys", "-t", "tui"]).args(keys);
        assert!(c.status().unwrap().success());
    };
    keys(&["g", "N"]);
    tmux.wait_for("new chat");
    keys(&["-l", "hello from tmux"]);
    keys(&["Enter"]);
    let screen = tmux.wait_for("echo: hello from tmux");
    assert!(screen.contains("hello from tmux"), "{screen}");
    // Sending kept the keyboard in the composer, aimed at the new chat: Esc leaves it for
    // the chat pane, Esc again for the tree. Back in the tree, archive the chat under the
    // cursor: it leaves the active list. Esc and the next key apart: read together, a
    // terminal takes them for Alt-g.
    keys(&["Escape"]);
    tmux.wait_until("the chat pane's keys on the status line", |s| {
        Tmux::status_line(s).contains("j/k items")
    });
    keys(&["Escape"]);
    tmux.wait_until("the tree's keys on the status line", |s| {
        Tmux::status_line(s).contains("N new")
    });
    keys(&["g", "j"]);
    let before = tmux.capture();
    assert!(before.contains("hello from tmux"), "{before}");
    keys(&["a"]);
    tmux.wait_for("archived 1 chat");
    // A spawned child appears live, nested under its parent: the test plays the parent's MCP
    // bridge with the token the daemon gave its claude, and calls create_chat.
    let listing = Command::new(bin("paddock"))
        .envs(env.iter().map(|(k, v)| (k, v)))
        .args(["ls", "-p", "demo", "--json"])
        .output()
        .unwrap();
    let chats: serde_json::Value = serde_json::from_slice(&listing.stdout).unwrap();
    let parent = chats[0]["sessionId"].as_str().unwrap().to_owned();
    let config_file = dir
        .path()
        .join("data/tmp/mcp")
        .join(format!("{parent}-manage.json"));
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config_file).unwrap()).unwrap();
    let token = config["mcpServers"]["paddock_manage"]["env"]["PADDOCK_AGENT_TOKEN"]
        .as_str()
        .unwrap()
        .to_owned();
    let reply = agent_call(
        &dir.path().join("run/paddockd.sock"),
        &token,
        "create_chat",
        serde_json::json!({"prompt": "child from tmux"}),
    );
    assert!(reply.contains("sessionId"), "{reply}");
    let child_listed = |s: &str| Tmux::tree_rows(s).any(|row| row.contains("child from tmux"));
    let screen = tmux.wait_until("the child in the tree", child_listed);
    let line = Tmux::tree_rows(&screen)
        .find(|l| l.contains("child from tmux"))
        .unwrap_or_default();
    assert!(
        line.contains('└') || line.contains("`-"),
        "the child is drawn nested under its parent:\n{screen}"
    );
    // Its turn ends (the status line says so) before it is archived: that notice would
    // otherwise take the place of the archive's.
    tmux.wait_for("child from tmux: Spawned chat finished");
    // Archive it from the keyboard: it is the last chat, above its project's "Archived" group.
    keys(&["G", "k", "a"]);
    tmux.wait_for("archived 1 chat");
    // Open that group (the last row): the project's archived chats are read and shown under
    // it; A on the child unarchives it, and it leaves the group again.
    keys(&["G", "l"]);
    let screen = tmux.wait_for("Archived (1)");
    let rows: Vec<&str> = screen.lines().collect();
    let group = rows
        .iter()
        .position(|l| l.contains("Archived (1)"))
        .unwrap_or_default();
    assert!(
        rows.get(group + 1)
            .is_some_and(|l| l.contains("child from tmux")),
        "the archived child is listed under the group:\n{screen}"
    );
    // The group's count and the active list are two answers: both are waited for.
    keys(&["j", "A"]);
    tmux.wait_until("Archived (0), the child listed again", |s| {
        s.contains("Archived (0)") && child_listed(s)
    });

    // A project added and removed from another terminal comes and goes in the tree.
    paddock(&["project", "add", "scratchpad"]);
    tmux.wait_for("scratchpad");
    paddock(&["project", "rm", "scratchpad", "--delete-files"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let screen = tmux.capture();
        let rows = screen
            .lines()
            .filter(|l| l.contains("scratchpad") && l.contains("data/projects"))
            .count();
        if rows == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the removed project stays in the tree:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // The help overlay lists every key.
    keys(&["?"]);
    tmux.wait_for("Tree (here)");
    // Esc and q apart: sent together, a terminal reads them as Alt-q.
    keys(&["Escape"]);
    tmux.wait_until_gone("Tree (here)");
    keys(&["q"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let alive = tmux
            .cmd()
            .args(["has-session", "-t", "tui"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !alive {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "q did not quit:\n{}",
            tmux.capture()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = Command::new(bin("paddock"))
        .envs(env.iter().map(|(k, v)| (k, v)))
        .args(["daemon", "stop"])
        .output();
}

#[test]
fn the_files_view_lists_what_a_chat_wrote_and_blame_names_the_chat() {
    let dir = tempfile::tempdir().unwrap();
    let env: Vec<(&str, PathBuf)> = vec![
        ("PADDOCK_SOCKET", dir.path().join("run/paddockd.sock")),
        ("PADDOCK_DATA_DIR", dir.path().join("data")),
        ("PADDOCK_LOG", dir.path().join("paddockd.log")),
        (
            "PADDOCK_CLAUDE_BIN",
            PathBuf::from(env!("CARGO_BIN_EXE_fake-claude")),
        ),
        ("PADDOCK_DAEMON_BIN", bin("paddockd")),
        ("XDG_CONFIG_HOME", dir.path().join("config")),
    ];
    let paddock = |args: &[&str]| {
        let out = Command::new(bin("paddock"))
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env_remove("PADDOCK_CONFIG")
            .env_remove("PADDOCK_REMOTE")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // A chat in the root workspace writes plan.md for real (the fake's `run`).
    let workspace = dir.path().join("data/workspace/work");
    let plan = workspace.join("plan.md");
    let script = serde_json::json!([
        {"tool": "Write", "input": {"file_path": plan, "content": "step one"},
         "output": "File created successfully",
         "run": format!("printf 'step one\\nstep two\\n' > '{}'", plan.display())},
        {"text": "planned"}
    ]);
    paddock(&["send", &format!("fake:{script}")]);
    // The steps are written a moment after the turn: wait for the CLI to see them.
    let deadline = Instant::now() + Duration::from_secs(30);
    let session = loop {
        let listing = paddock(&["ls", "--json"]);
        let chats: serde_json::Value = serde_json::from_str(&listing).unwrap();
        let session = chats[0]["sessionId"].as_str().unwrap().to_owned();
        if paddock(&["files", &session]).contains("plan.md") {
            break session;
        }
        assert!(Instant::now() < deadline, "the Write was never recorded");
        std::thread::sleep(Duration::from_millis(50));
    };
    let files = paddock(&["files", &session]);
    assert!(
        files.contains("current") && files.contains("Write"),
        "{files}"
    );

    let tmux = Tmux {
        server: format!("paddock-files-{}", std::process::id()),
    };
    let mut shell = String::from("env -u PADDOCK_CONFIG -u PADDOCK_REMOTE");
    for (k, v) in &env {
        shell.push_str(&format!(" {k}='{}'", v.display()));
    }
    shell.push_str(&format!(" '{}'", bin("paddock").display()));
    tmux.start(&shell);
    tmux.wait_for("fake:[");
    let keys = |keys: &[&str]| {
        let mut c = tmux.cmd();
        c.args(["send-keys", "-t", "tui"]).args(keys);
        assert!(c.status().unwrap().success());
    };
    // The chat's row, then F: its turn and the file it wrote, current.
    keys(&["g", "j", "F"]);
    let screen = tmux.wait_loaded("plan.md");
    let row = screen
        .lines()
        .find(|l| l.contains("plan.md") && l.contains("wrote"))
        .unwrap_or_else(|| panic!("no file row:\n{screen}"));
    assert!(row.contains("Write"), "{screen}");
    // b: the blame of plan.md, both lines the chat's Write.
    keys(&["b"]);
    let screen = tmux.wait_loaded("step two");
    assert!(screen.contains("step one"), "{screen}");
    assert!(screen.contains("Write"), "{screen}");
    assert!(!screen.contains("(not recorded)"), "{screen}");
    // Each Esc apart from the next key: read together, a terminal takes them for Alt-key.
    keys(&["Escape"]);
    tmux.wait_until("the Files view's keys on the status line", |s| {
        Tmux::status_line(s).contains("turn/all")
    });
    keys(&["Escape"]);
    tmux.wait_until_gone("turn/all");
    keys(&["q"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while tmux
        .cmd()
        .args(["has-session", "-t", "tui"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        assert!(
            Instant::now() < deadline,
            "q did not quit:\n{}",
            tmux.capture()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    paddock(&["daemon", "stop"]);
}

#[test]
fn a_failed_run_nobody_watches_rings_the_terminal_with_osc_9() {
    let dir = tempfile::tempdir().unwrap();
    let env: Vec<(&str, PathBuf)> = vec![
        ("PADDOCK_SOCKET", dir.path().join("run/paddockd.sock")),
        ("PADDOCK_DATA_DIR", dir.path().join("data")),
        ("PADDOCK_LOG", dir.path().join("paddockd.log")),
        (
            "PADDOCK_CLAUDE_BIN",
            PathBuf::from(env!("CARGO_BIN_EXE_fake-claude")),
        ),
        ("PADDOCK_DAEMON_BIN", bin("paddockd")),
        ("XDG_CONFIG_HOME", dir.path().join("config")),
    ];
    let paddock = |args: &[&str]| {
        let out = Command::new(bin("paddock"))
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env_remove("PADDOCK_CONFIG")
            .env_remove("PADDOCK_REMOTE")
            .env_remove("PADDOCK_NOTIFY")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    paddock(&["send", "an earlier chat"]);

    let tmux = Tmux {
        server: format!("paddock-notify-{}", std::process::id()),
    };
    let mut shell = String::from("env -u PADDOCK_CONFIG -u PADDOCK_REMOTE -u PADDOCK_NOTIFY");
    for (k, v) in &env {
        shell.push_str(&format!(" {k}='{}'", v.display()));
    }
    shell.push_str(&format!(" '{}'", bin("paddock").display()));
    tmux.start(&shell);
    // Everything the TUI writes, escape sequences included.
    let raw = dir.path().join("pane.raw");
    let piped = tmux
        .cmd()
        .args(["pipe-pane", "-o", "-t", "tui"])
        .arg(format!("cat >> '{}'", raw.display()))
        .status()
        .unwrap();
    assert!(piped.success());
    tmux.wait_for("an earlier chat");

    // A run started and left at once: when it fails, nobody is watching it.
    let script =
        r#"fake:[{"text":"working","chunks":1,"delay_ms":500},{"api_error":500,"message":"boom"}]"#;
    paddock(&["send", "--detach", script]);
    let screen = tmux.wait_for("Run failed");
    assert!(screen.contains("Run failed"), "{screen}");
    // Inside tmux the OSC 9 travels in tmux's passthrough wrapper, then the bell.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let bytes = std::fs::read(&raw).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        if text.contains("\x1bPtmux;\x1b\x1b]9;") && text.contains("Run failed\x07\x1b\\\x07") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no OSC 9 notification in the pane's output: {:?}",
            text.chars().rev().take(400).collect::<String>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    tmux.cmd()
        .args(["send-keys", "-t", "tui", "q"])
        .status()
        .unwrap();
    paddock(&["daemon", "stop"]);
}
