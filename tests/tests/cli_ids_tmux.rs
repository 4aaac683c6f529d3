//! Ids as the README promises, one rule for every listing: on a terminal `paddock ls` (and
//! `usage`, `search`, `approvals`) show a session id by its first 8 characters, so a row fits
//! 80 columns (and `ls` and `usage` cut a long title to fit); piped, the whole id, for scripts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::bins::bin;
use paddock_tests::tui_env::TuiEnv;

#[test]
fn listings_show_short_ids_on_a_terminal_and_whole_ones_piped() {
    let env = TuiEnv::new();
    env.paddock_ok(&["project", "add", "demo"]);
    let mut sessions = Vec::new();
    let long = format!(
        "third chat {}",
        "with a first prompt far too long for a row ".repeat(4)
    );
    for text in ["first chat", "second chat", long.as_str()] {
        let sent = env.paddock(&["send", "-p", "demo", text], &[]);
        assert!(sent.status.success());
        let session = String::from_utf8_lossy(&sent.stderr)
            .lines()
            .find_map(|l| l.strip_prefix("session: "))
            .expect("session id on stderr")
            .trim()
            .to_owned();
        sessions.push(session);
    }

    // Piped: whole ids.
    let piped = env.paddock_ok(&["ls", "-p", "demo"]);
    for s in &sessions {
        assert!(piped.contains(s.as_str()), "{piped}");
    }

    // On a terminal 80 columns wide: short ids, and no row wraps.
    let cli = env.shell(
        "ids",
        (80, 30),
        &format!(
            "'{paddock}' ls -p demo; '{paddock}' usage -p demo; echo END; exec sleep 600",
            paddock = bin("paddock").display()
        ),
    );
    let screen = cli.wait_for("END");
    for s in &sessions {
        assert!(
            !screen.contains(s.as_str()),
            "a whole id on the terminal: {screen}"
        );
        let short = &s[..8];
        let rows: Vec<&str> = screen.lines().filter(|l| l.starts_with(short)).collect();
        assert_eq!(
            rows.len(),
            2,
            "one row in ls and one in usage for {short}: {screen}"
        );
        for row in rows {
            let title = match sessions.iter().position(|x| x == s) {
                Some(0) => "first chat",
                Some(1) => "second chat",
                _ => {
                    // Cut to fit, not wrapped onto the next line.
                    assert!(row.trim_end().ends_with('…'), "{row:?}\n{screen}");
                    "third chat"
                }
            };
            assert!(
                row.contains(title),
                "the row is whole on its line (80 columns): {row:?}\n{screen}"
            );
        }
    }
}
