//! `paddock continue` end to end: a chat whose turn was cut short (its claude died mid-turn)
//! is picked up by a new turn, followed to its end like `paddock send`'s (or, with --detach,
//! just started); a chat with nothing to continue, and a daemon that does not offer it, fail
//! with one line that says what to do instead.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use paddock_tests::cli_env::CliEnv;
use paddock_tests::wait::wait_until_blocking;

const DEADLINE: Duration = Duration::from_secs(60);
/// A turn whose claude dies after its first word, with no result: the turn is cut short.
const CRASH: &str = r#"fake:[{"text":"partial","chunks":1},{"crash":3}]"#;
/// What the fake claude answers the recovery turn's message with.
const PICKED_UP: &str = "echo: Your previous turn was cut short";

/// The listing's row of `session` (every project, archived too); `null` when it is not listed.
fn row(env: &CliEnv, session: &str) -> serde_json::Value {
    let listed: serde_json::Value =
        serde_json::from_str(&env.run(&["ls", "-A", "--all", "--json"])).unwrap();
    listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["sessionId"] == session)
        .cloned()
        .unwrap_or_default()
}

/// Waits until the chat's row says `field` is `value` (a flag left out counts as false).
fn wait_row(env: &CliEnv, session: &str, field: &str, value: bool) {
    let what = format!("the chat's {field} to be {value}");
    wait_until_blocking(&what, DEADLINE, || {
        (row(env, session)[field].as_bool().unwrap_or(false) == value).then_some(())
    })
    .unwrap();
}

/// Waits until the chat's row says its last turn was cut short.
fn wait_cut_short(env: &CliEnv, session: &str) {
    wait_row(env, session, "interrupted", true);
}

/// `paddock continue` on a chat with nothing to continue: refused, naming the way on.
fn nothing_to_continue(env: &CliEnv, session: &str) {
    let err = fails(env, &["continue", session]);
    assert!(err.contains("nothing to continue"), "{err}");
    assert!(err.contains(&format!("paddock send -c {session}")), "{err}");
}

/// `paddock` `args`, which must fail with exit status 1; its stderr.
fn fails(env: &CliEnv, args: &[&str]) -> String {
    let out = env.output(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "paddock {args:?}: {err}");
    err
}

#[test]
fn continue_picks_up_a_chat_cut_short_and_follows_the_new_turn_to_its_end() {
    let env = CliEnv::new();
    let session = env.run(&["send", "--detach", CRASH]).trim().to_owned();
    wait_cut_short(&env, &session);

    // A unique prefix names it, as for every command; the reply streams to stdout.
    let out = env.output(&["continue", &session[..8]]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "paddock continue: {stderr}\n{stdout}");
    assert!(stdout.starts_with(PICKED_UP), "{stdout}");
    assert!(stderr.contains(&format!("session: {session}")), "{stderr}");
    assert!(row(&env, &session)["interrupted"] != true, "picked up");

    // Its last turn completed: nothing to continue, and the way to go on instead.
    nothing_to_continue(&env, &session);

    // Cut short again: --detach --json starts the turn and prints what started.
    env.run(&["send", "--detach", "-c", &session, CRASH]);
    wait_cut_short(&env, &session);
    let started: serde_json::Value =
        serde_json::from_str(&env.run(&["continue", "--detach", "--json", &session])).unwrap();
    assert_eq!(started["sessionId"], session.as_str(), "{started}");
    assert!(started["jobId"].as_str().is_some_and(|j| !j.is_empty()));
    // The turn it started runs to its end without anyone following it.
    let tailed = env.run(&["tail", "--wait", &session]);
    assert!(tailed.contains(PICKED_UP), "{tailed}");
}

#[test]
fn continue_refuses_a_running_chat_and_a_cancelled_one_says_how_to_go_on() {
    let env = CliEnv::new();
    let hang = r#"fake:[{"text":"working","chunks":1},{"hang":true}]"#;
    let session = env.run(&["send", "--detach", hang]).trim().to_owned();
    wait_row(&env, &session, "running", true);
    let err = fails(&env, &["continue", &session]);
    assert!(err.contains("is running"), "{err}");
    assert!(err.contains(&format!("paddock tail {session}")), "{err}");

    env.run(&["cancel", &session]);
    wait_row(&env, &session, "running", false);
    // A cancelled turn was not cut short: the person stopped it, and sends the next message.
    nothing_to_continue(&env, &session);
}

#[test]
fn a_daemon_that_does_not_offer_continue_is_named_with_its_key() {
    let env = CliEnv::new();
    let started = env
        .paddock()
        .env("PADDOCK_RECOVERY_SURFACE", "off")
        .args(["daemon", "start"])
        .output()
        .unwrap();
    assert!(
        started.status.success(),
        "{}",
        String::from_utf8_lossy(&started.stderr)
    );
    let session = env.run(&["send", "--detach", CRASH]).trim().to_owned();
    wait_cut_short(&env, &session);
    let err = fails(&env, &["continue", &session]);
    for key in ["recovery_surface", "PADDOCK_RECOVERY_SURFACE"] {
        assert!(err.contains(key), "{key}: {err}");
    }
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(row(&env, &session)["interrupted"] == true, "not picked up");
}

/// paddockd killed mid-turn (SIGKILL: no goodbye, its claude goes with it): `paddock send`
/// says the turn was cut short and how to pick it up, with the exit status of a cut turn
/// (issue 36.1), not "the turn may still be running" and a `paddock tail` that finds nothing.
#[test]
fn a_daemon_killed_mid_turn_is_a_cut_turn_to_continue() {
    let env = CliEnv::new();
    let hang = r#"fake:[{"text":"working","chunks":1},{"hang":true}]"#;
    let mut send = env
        .paddock()
        .args(["send", hang])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // What send prints, as it prints it: the kill comes after the reply's first words.
    let printed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let reader = {
        let (printed, mut stdout) = (printed.clone(), send.stdout.take().unwrap());
        std::thread::spawn(move || {
            let mut buf = [0u8; 256];
            while let Ok(n) = std::io::Read::read(&mut stdout, &mut buf) {
                if n == 0 {
                    break;
                }
                printed.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        })
    };
    wait_until_blocking("the reply's first words", DEADLINE, || {
        printed
            .lock()
            .unwrap()
            .starts_with(b"working")
            .then_some(())
    })
    .unwrap();
    let session = wait_until_blocking("a running turn", DEADLINE, || {
        let listed: serde_json::Value =
            serde_json::from_str(&env.run(&["ls", "-A", "--json"])).ok()?;
        listed.as_array()?.iter().find_map(|r| {
            (r["running"] == true).then(|| r["sessionId"].as_str().unwrap_or_default().to_owned())
        })
    })
    .unwrap();
    let status: serde_json::Value =
        serde_json::from_str(&env.run(&["daemon", "status", "--json"])).unwrap();
    let pid = status["pid"]
        .as_u64()
        .expect("the daemon's pid")
        .to_string();
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = send.wait_with_output().unwrap();
    reader.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(75), "{err}");
    // The reply's line is ended before the cut is said (on a terminal the two share it).
    let said = String::from_utf8_lossy(&printed.lock().unwrap()).into_owned();
    assert!(
        said.starts_with("working") && said.ends_with('\n'),
        "{said:?}"
    );
    assert!(err.contains("cut short"), "{err}");
    assert!(
        err.contains(&format!("paddock continue {session}")),
        "{err}"
    );
}
