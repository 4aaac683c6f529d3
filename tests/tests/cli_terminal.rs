//! Nothing from content controls the terminal: a reply, a tool's output, a title or a prompt
//! holding escape sequences (OSC 52 writing the clipboard, OSC 0 setting the title, a clear
//! screen, a colour, an 8-bit CSI, a carriage return rewriting a line, a bidi override) reaches
//! the real `paddock` commands' output with those characters made visible, never raw; `--json`
//! keeps them as JSON escapes, every one of them (serde leaves DEL, C1 and bidi raw).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::cli_env::CliEnv;
use paddock_tests::wait::wait_until_blocking;
use std::process::Output;
use std::time::Duration;

/// What an attacker's text carries: the clipboard written, the window retitled, the screen
/// cleared, a colour, an 8-bit CSI, a line rewritten by a carriage return, text reversed, DEL.
const PAYLOAD: &str =
    "A\x1b]52;c;cHduZWQ=\x07B\x1b]0;pwned\x07C\x1b[2JD\x1b[31mE\u{9b}2JF\rG\u{202e}H\x7fI";

/// The same, as every command shows it.
const SHOWN: &str = "A␛]52;c;cHduZWQ=␇B␛]0;pwned␇C␛[2JD␛[31mE\\u{9b}2JF␍G\\u{202e}H␡I";

/// Where `bytes` holds something a terminal would act on: C0 but newline and tab (a carriage
/// return only before a newline), DEL, C1 or a bidi override; `None` when nothing.
fn raw_control(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let acts = match c {
            '\n' | '\t' => false,
            '\r' => chars.peek().is_none_or(|&(_, next)| next != '\n'),
            c => {
                c.is_control()
                    || ('\u{202a}'..='\u{202e}').contains(&c)
                    || ('\u{2066}'..='\u{2069}').contains(&c)
            }
        };
        if acts {
            let around: String = text[at..].chars().take(40).collect();
            return Some(format!("{c:?} at byte {at}: {around:?}"));
        }
    }
    None
}

/// Fails when a command's stdout or stderr holds a raw control; its stdout.
fn clean_output(what: &str, out: &Output) -> String {
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        if let Some(found) = raw_control(bytes) {
            panic!("`paddock {what}` wrote a raw control on {stream}: {found}");
        }
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether a string in `value` holds `text`.
fn holds(value: &serde_json::Value, text: &str) -> bool {
    match value {
        serde_json::Value::String(s) => s.contains(text),
        serde_json::Value::Array(a) => a.iter().any(|v| holds(v, text)),
        serde_json::Value::Object(o) => o.values().any(|v| holds(v, text)),
        _ => false,
    }
}

fn session_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .expect("session id on stderr")
        .trim()
        .to_owned()
}

#[test]
fn replies_tool_output_and_titles_reach_the_cli_with_controls_made_visible() {
    let env = CliEnv::new();
    env.run(&["project", "add", "demo"]);

    // The fake claude echoes the prompt: the reply and the title carry the payload.
    let prompt = format!("hello {PAYLOAD}");
    let sent = env.output(&["send", "-p", "demo", &prompt]);
    let reply = clean_output("send", &sent);
    assert!(reply.contains(SHOWN), "send: {reply:?}");
    let session = session_of(&sent);

    // A tool call whose command and output carry it too.
    let script = serde_json::json!([
        {"tool": "Bash", "input": {"command": format!("printf '{PAYLOAD}'")}, "output": format!("out {PAYLOAD}")},
        {"text": format!("done {PAYLOAD}")},
    ]);
    let sent = env.output(&["send", "-c", &session, &format!("fake:{script}")]);
    let said = clean_output("send -c", &sent);
    assert!(said.contains(&format!("done {SHOWN}")), "send -c: {said:?}");
    assert!(
        String::from_utf8_lossy(&sent.stderr).contains(&format!("printf '{SHOWN}'")),
        "the tool call on stderr: {:?}",
        String::from_utf8_lossy(&sent.stderr)
    );

    let shown = clean_output("show", &env.output(&["show", &session]));
    for part in [
        format!("hello {SHOWN}"),
        format!("out {SHOWN}"),
        format!("done {SHOWN}"),
    ] {
        assert!(shown.contains(&part), "show lacks {part:?}: {shown:?}");
    }

    let listed = clean_output("ls", &env.output(&["ls", "-p", "demo"]));
    assert!(
        listed.contains("hello A␛]52;c;cHduZWQ=␇B"),
        "ls: {listed:?}"
    );

    clean_output("history", &env.output(&["history"]));

    // Search finds the chat once the index has read it.
    let found = wait_until_blocking(
        "the search index to hold the chat",
        Duration::from_secs(30),
        || {
            let out = env.output(&["search", "cHduZWQ"]);
            let text = clean_output("search", &out);
            text.contains("␛]52;c;").then_some(text)
        },
    )
    .unwrap();
    assert!(found.contains("demo"), "search: {found:?}");

    // JSON keeps the text, escaped as JSON escapes it: C0 by serde, and DEL, the 8-bit CSI
    // and the bidi override too (serde writes them raw), so `--json` on a terminal is safe.
    for args in [
        &["show", "--json", session.as_str()][..],
        &["ls", "--json", "-p", "demo"],
        &["ls", "-A", "--json"],
        &["history", "--json"],
        &["search", "--json", "cHduZWQ"],
    ] {
        let what = args.join(" ");
        let json = clean_output(&what, &env.output(args));
        assert!(
            json.contains("\\u001b]52;c;cHduZWQ=\\u0007"),
            "{what}: {json:?}"
        );
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert!(holds(&value, PAYLOAD), "{what}: the same text: {json:?}");
    }
}
