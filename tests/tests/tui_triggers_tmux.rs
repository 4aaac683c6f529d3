//! The Triggers and Home views in a real terminal against a real paddockd (and the fake
//! claude): tmux runs `paddock`, capture-pane reads the screen. A manual hook added with
//! `paddock trigger add` is listed by `Z`, fired after `y` (its run completes and the list shows
//! it), its runs listed and its chat opened, then removed after `y`; the form (`n`) adds one;
//! `O` shows the project's Home.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::bins::bin;
use paddock_tests::tmux::Tmux;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn triggers_are_listed_fired_and_removed_and_home_shows_the_project() {
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
        ("XDG_STATE_HOME", dir.path().join("state")),
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
    paddock(&["project", "add", "demo"]);
    paddock(&[
        "trigger",
        "add",
        "ping",
        "-p",
        "demo",
        "--on",
        "manual",
        "--prompt",
        "ping from a trigger",
    ]);

    let tmux = Tmux {
        server: format!("paddock-triggers-{}", std::process::id()),
    };
    let mut shell = String::from("env -u PADDOCK_CONFIG -u PADDOCK_REMOTE");
    for (k, v) in &env {
        shell.push_str(&format!(" {k}='{}'", v.display()));
    }
    shell.push_str(&format!(" '{}'", bin("paddock").display()));
    tmux.start(&shell);
    tmux.wait_for("demo");

    // Z on the first row (the root workspace): none there; a shows every project's.
    tmux.keys(&["g", "Z"]);
    tmux.wait_for("No triggers in (root).");
    tmux.keys(&["a"]);
    let screen = tmux.wait_for("ping");
    assert!(screen.contains("Triggers · every project"), "{screen}");
    assert!(screen.contains("manual"), "{screen}");
    assert!(screen.contains("never fired"), "{screen}");

    // f asks; any other key says no; f then y fires, and the run's end shows in the list.
    tmux.keys(&["f"]);
    tmux.wait_for("Fire ping in demo now? y fires it.");
    tmux.keys(&["n"]);
    tmux.wait_for("ping was not fired.");
    tmux.keys(&["f"]);
    tmux.wait_for("Fire ping in demo now?");
    tmux.keys(&["y"]);
    tmux.wait_for("Fired ping: it runs in chat");
    tmux.wait_for("completed");

    // Enter: a new-chat trigger's runs; Enter on the run opens its chat.
    tmux.keys(&["Enter"]);
    // The runs come after the view's title: Enter before them has no run to open.
    tmux.wait_until("the run under the runs' title", |s| {
        s.contains("ping · recent runs")
            && s.lines()
                .any(|l| l.contains("completed") && l.contains("ping from a trigger"))
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("echo: ping from a trigger");

    // O from the chat: the project's Home.
    tmux.keys(&["O"]);
    tmux.wait_for("Home · demo");
    // project:overview: the counts, and no curated files before a sweep.
    let home = tmux.wait_for("1 chat · ");
    assert!(home.contains("No OVERVIEW.md yet"), "{home}");
    tmux.keys(&["Escape"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while tmux.capture().contains("Home · demo") {
        assert!(Instant::now() < deadline, "Esc did not close Home");
        std::thread::sleep(Duration::from_millis(50));
    }

    // Z from the chat is its project's; d asks, naming it, and y removes it.
    tmux.keys(&["Z"]);
    tmux.wait_for("Triggers · demo");
    // The list arrives after the view opens: d acts on the row a person sees.
    tmux.wait_for("›⚡ ping");
    tmux.keys(&["d"]);
    tmux.wait_for("Remove ping from demo's project.toml? y removes it.");
    tmux.keys(&["y"]);
    tmux.wait_for("Removed ping from demo.");
    tmux.wait_for("No triggers in demo.");
    assert!(
        !paddock(&["trigger", "ls", "-p", "demo"]).contains("ping"),
        "the trigger is gone from the daemon too"
    );

    // n: the form adds one (trigger:set); it is listed, and the daemon has it.
    tmux.keys(&["n"]);
    tmux.wait_for("New trigger in demo");
    tmux.keys(&["-l", "pong"]);
    tmux.keys(&["Tab"]);
    tmux.keys(&["-l", "every 1h"]);
    tmux.keys(&["Tab"]);
    tmux.keys(&["-l", "pong from the form"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("Saved pong in demo: every 1h.");
    tmux.wait_for("next ");
    assert!(
        paddock(&["trigger", "ls", "-p", "demo"]).contains("every 1h"),
        "the daemon has the trigger the form saved"
    );

    // Esc and q apart: sent together, a terminal reads them as Alt-q.
    tmux.keys(&["Escape"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while tmux.capture().contains("Triggers ·") {
        assert!(Instant::now() < deadline, "Esc did not close the view");
        std::thread::sleep(Duration::from_millis(50));
    }
    tmux.keys(&["q"]);
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
