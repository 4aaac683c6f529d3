//! One rule for SESSION arguments, end to end: every command that takes a chat resolves it
//! the same way (a unique prefix of at least 4 characters, in any project), and a prefix that
//! is too short, ambiguous or unknown fails with exit status 1 and the same message whatever
//! the command.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::cli_env::CliEnv;
use paddock_tests::wait::wait_until_blocking;
use std::time::Duration;

/// The test's world (`paddock_tests::cli_env`), with this file's helpers.
struct Env(CliEnv);

impl std::ops::Deref for Env {
    type Target = CliEnv;
    fn deref(&self) -> &CliEnv {
        &self.0
    }
}

impl Env {
    fn new() -> Self {
        Self(CliEnv::new())
    }

    /// A new chat in `project`; its session id.
    fn chat(&self, project: &str, text: &str) -> String {
        let out = self.output(&["send", "-p", project, text]);
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .find_map(|l| l.strip_prefix("session: "))
            .expect("session id on stderr")
            .trim()
            .to_owned()
    }

    fn listed(&self, args: &[&str]) -> Vec<String> {
        let out = self.run(args);
        let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
        rows.as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["sessionId"].as_str().map(str::to_owned))
            .collect()
    }
}

/// Two chats whose ids share `abcd1234-...`: copies of a real transcript under new ids.
const TWIN_A: &str = "abcd1234-0000-4000-8000-00000000000a";
const TWIN_B: &str = "abcd1234-0000-4000-8000-00000000000b";

/// Every command that takes a SESSION, with `id` in its place.
fn commands(id: &str) -> Vec<Vec<String>> {
    let turn = format!("{id}:0193f4c2");
    let table: Vec<Vec<&str>> = vec![
        vec!["show", id],
        vec!["show", "--json", id],
        vec!["tail", id],
        vec!["cancel", id],
        vec!["continue", id],
        vec!["send", "-c", id, "hello"],
        vec!["archive", id],
        vec!["unarchive", id],
        vec!["star", id],
        vec!["unstar", id],
        vec!["read", id],
        vec!["unread", id],
        vec!["detach", id],
        vec!["attach", id],
        vec!["fork", id],
        vec!["files", id],
        vec!["usage", "--subtree", id],
        vec!["git", "status", "--chat", id],
        vec!["git", "diff", "--chat", id],
        vec!["git", "commit", "--chat", id, "-m", "m"],
        vec!["git", "status", "--turn", &turn],
        // Last: the chat is gone after it.
        vec!["delete", "--yes", id],
    ];
    table
        .into_iter()
        .map(|args| args.into_iter().map(str::to_owned).collect())
        .collect()
}

#[test]
fn every_session_command_resolves_an_id_the_same_way() {
    let env = Env::new();
    env.run(&["project", "add", "demo"]);
    let real = env.chat("demo", "hello");
    let root = env.chat("", "in the root workspace");
    // The twins, in demo's transcripts folder, found by the index like any chat.
    let chats = env.data().join("projects/demo/.chats");
    let transcript = std::fs::read_to_string(chats.join(format!("{real}.jsonl"))).unwrap();
    for twin in [TWIN_A, TWIN_B] {
        std::fs::write(
            chats.join(format!("{twin}.jsonl")),
            transcript.replace(&real, twin),
        )
        .unwrap();
    }
    wait_until_blocking("the twins to be listed", Duration::from_secs(90), || {
        let ids = env.listed(&["ls", "-p", "demo", "--json"]);
        (ids.iter().any(|i| i == TWIN_A) && ids.iter().any(|i| i == TWIN_B)).then_some(())
    })
    .unwrap();

    // `ls -A` lists every project's chats.
    let all = env.listed(&["ls", "-A", "--json"]);
    for id in [&real, &root, &TWIN_A.to_owned()] {
        assert!(all.contains(id), "{id} not in ls -A: {all:?}");
    }
    let text = env.run(&["ls", "-A"]);
    let (root_at, demo_at) = (text.find("(root)\n"), text.find("demo\n"));
    assert!(
        root_at.is_some() && root_at < demo_at,
        "each project under its name: {text}"
    );
    assert!(
        text.contains(&real[..8]) && text.contains(&root[..8]),
        "{text}"
    );

    // An id no chat has a prefix of.
    let unknown = ["ffff0000", "eeee0000", "dddd0000"]
        .into_iter()
        .find(|u| ![&real, &root].iter().any(|id| id.starts_with(u)))
        .unwrap();
    let cases = [
        ("too short", "abc".to_owned(), "too short"),
        ("ambiguous", "abcd".to_owned(), "names 2 chats"),
        ("unknown", unknown.to_owned(), "no chat"),
        (
            "unknown whole id",
            "ffffffff-0000-4000-8000-000000000000".to_owned(),
            "no chat",
        ),
    ];
    for (case, id, says) in &cases {
        let mut first: Option<String> = None;
        for args in commands(id) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = env.output(&args);
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            assert_eq!(
                out.status.code(),
                Some(1),
                "{case}: paddock {args:?}: {err}"
            );
            assert!(err.contains(says), "{case}: paddock {args:?}: {err}");
            assert!(
                err.contains("paddock ls -A"),
                "{case}: paddock {args:?} names the listing of every chat: {err}"
            );
            match &first {
                None => first = Some(err),
                Some(first) => assert_eq!(&err, first, "{case}: paddock {args:?}"),
            }
        }
    }
    let ambiguous = env.output(&["show", "abcd"]);
    let err = String::from_utf8_lossy(&ambiguous.stderr);
    assert!(err.contains(TWIN_A) && err.contains(TWIN_B), "{err}");

    // A unique prefix works everywhere, in any project (the root workspace's chat too).
    let short = &root[..6];
    for args in commands(short) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = env.output(&args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let resolver = ["too short", "names 2 chats", "no chat", "not a session id"];
        assert!(
            !resolver.iter().any(|r| err.contains(r)),
            "paddock {args:?}: {err}"
        );
        // git needs a repository, which the root workspace is not, and a chat whose turn
        // completed has nothing to continue: their own errors, not the id's.
        if !["git", "continue"].contains(&args[0]) {
            assert!(out.status.success(), "paddock {args:?}: {err}");
        }
    }
    // After `delete`: the id is unknown like any other.
    let out = env.output(&["show", short]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("no chat {short}")));
}
