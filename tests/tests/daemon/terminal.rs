//! Nothing from content controls the terminal, with the real Claude Code CLI: its Bash tool
//! prints OSC 52 (the clipboard), OSC 0 (the title), a clear screen and an 8-bit CSI, the
//! Messages API stand-in answers with that output, and the real `paddock send` and
//! `paddock show` against this daemon print it with those characters made visible.

use std::process::{Command, Output, Stdio};

use paddock_tests::bins::bin;
use paddock_tests::mock_api::MockApi;

use crate::harness::*;
use crate::real_cli::real_daemon;

/// `paddock ARGS` against the test's daemon.
async fn paddock(d: &TestDaemon, args: &[&str]) -> Output {
    let mut cmd = Command::new(bin("paddock"));
    cmd.env("PADDOCK_SOCKET", &d.socket)
        .env("XDG_CONFIG_HOME", d.dir.path().join("client-config"))
        .env_remove("PADDOCK_CONFIG")
        .env_remove("PADDOCK_REMOTE")
        .args(args)
        .stdin(Stdio::null());
    tokio::task::spawn_blocking(move || cmd.output().expect("paddock runs"))
        .await
        .expect("the command's thread")
}

/// The first character a terminal would act on in `bytes` (C0 but newline and tab, DEL, C1,
/// a bidi override), with what follows it.
fn raw_control(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let at = text.find(|c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    })?;
    Some(text[at..].chars().take(40).collect())
}

fn clean_stdout(what: &str, out: &Output) -> String {
    assert!(
        out.status.success(),
        "paddock {what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        if let Some(found) = raw_control(bytes) {
            panic!("`paddock {what}` wrote a raw control on {stream}: {found:?}");
        }
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn real_cli_tool_output_with_escapes_reaches_send_and_show_made_visible() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| c.allowed_tools = vec!["Bash".into()]).await;
    let command = r"printf 'out \033]52;c;cHduZWQ=\007 \033]0;pwned\007 \033[2J \302\2332J end\n'";
    let prompt = format!(
        "mock:tool Bash {}",
        serde_json::json!({"command": command, "description": "Print"})
    );

    let sent = paddock(&d, &["send", &prompt]).await;
    let reply = clean_stdout("send", &sent);
    let shown = "out ␛]52;c;cHduZWQ=␇ ␛]0;pwned␇ ␛[2J \\u{9b}2J end";
    assert!(reply.contains(shown), "send: {reply:?}");
    let session = String::from_utf8_lossy(&sent.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .expect("session id on stderr")
        .trim()
        .to_owned();

    // The real CLI did pass the raw characters on: the transcript holds them (JSON-escaped).
    let json = paddock(&d, &["show", "--json", &session]).await;
    let json = String::from_utf8_lossy(&json.stdout);
    assert!(json.contains("\\u001b]52;c;cHduZWQ=\\u0007"), "{json}");

    let show = clean_stdout("show", &paddock(&d, &["show", &session]).await);
    assert!(show.contains(shown), "show: {show:?}");
    d.stop().await.unwrap();
}
