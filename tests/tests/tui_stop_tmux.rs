//! The TUI and the daemon's lifecycle, end to end in tmux: `paddock daemon stop` stays stopped
//! with a TUI open (until R, or a `daemon start` of someone else), and a daemon that dies is
//! still replaced by itself.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use paddock_tests::tui_env::TuiEnv;

/// Asserts that no daemon answers for `window`: the TUI would have started one by then.
fn stays_stopped(env: &TuiEnv, window: Duration) {
    let until = Instant::now() + window;
    while Instant::now() < until {
        assert!(
            std::os::unix::net::UnixStream::connect(env.socket()).is_err(),
            "a daemon answers on {} after `paddock daemon stop`",
            env.socket().display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn daemon_stop_stays_stopped_under_an_open_tui_and_a_crash_is_still_reconnected() {
    let env = TuiEnv::new();
    let out = env.paddock(&["send", "a chat before the stop"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let tmux = env.tui("stop", (100, 30), &[]);
    tmux.wait_loaded("a chat before the stop");

    // Stopped from another command: the TUI says so and does not start another daemon.
    let out = env.paddock(&["daemon", "stop"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let screen = tmux.wait_for("paddock daemon stop");
    assert!(screen.contains("Press R to start it"), "{screen}");
    stays_stopped(&env, Duration::from_secs(3));

    // R starts it again. The TUI is connected to it (its header names the daemon's version)
    // before the next stop: a stop that lands while its own start is still connecting is
    // no stop it was told of, so it would start another daemon.
    tmux.keys(&["R"]);
    let first = env.wait_status("the daemon R started", |_| true);
    tmux.wait_until("the TUI connected to the daemon R started", |s| {
        s.lines()
            .next()
            .is_some_and(|header| header.contains("paddockd ") && !header.contains("stopped"))
    });
    tmux.wait_loaded("a chat before the stop");

    // Stopped again, then started by hand with a setting: the setting holds (the TUI did not
    // get there first), and the TUI finds that daemon by itself.
    let out = env.paddock(&["daemon", "stop"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    tmux.wait_for("Press R to start it");
    let out = env.paddock(&["daemon", "start"], &[("PADDOCK_MAX_PROCESSES", "3")]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && said.contains("started"), "{said}");
    let status = env.wait_status("the daemon started by hand", |_| true);
    assert_eq!(status["maxProcesses"], serde_json::json!(3), "{status}");
    assert_ne!(status["pid"], first["pid"]);
    tmux.wait_until_gone("Press R to start it");
    tmux.wait_loaded("a chat before the stop");

    // A crash is not a stop: the TUI starts a new daemon by itself.
    let pid = status["pid"].as_u64().unwrap() as i32;
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    let after = env.wait_status("a new daemon after the crash", |s| {
        s["pid"].as_u64() != Some(pid as u64)
    });
    assert_ne!(after["pid"], status["pid"]);
    tmux.wait_loaded("a chat before the stop");
    assert!(!tmux.capture().contains("Press R"), "{}", tmux.capture());
    tmux.keys(&["q"]);
}
