//! SIGKILL of the daemon in the middle of a burst of chat-list mutations, many times over: every
//! mutation the daemon acknowledged is there after a restart, and no state file is unreadable.
//!
//! The real `paddockd` binary runs as a child process. A client pipelines a burst of
//! `chat:update` requests (archive / star / detach / read / unread on random chats) and reads
//! the acknowledgements; after a random number of them it kills the daemon with SIGKILL, so
//! the kill lands while later requests are being written to disk. The model of the expected
//! state is built from acknowledged requests only: a key touched by a request that was sent but
//! never acknowledged may hold either value.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::bins::bin;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use paddock_proto::{
    ChatAction, ChatList, ChatScope, ChatSummary, ChatUpdate, Outcome, Reply, Request,
};
use paddock_tests::sync_client::Conn;

const CHATS: usize = 12;
const ROUNDS: usize = 12;
const BURST: usize = 120;

/// A tiny deterministic generator (xorshift), so a failure can be replayed from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap()
    }
}

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("run").join("paddockd.sock")
    }

    fn start(&self) -> Child {
        Command::new(bin("paddockd"))
            .env("PADDOCK_SOCKET", self.socket())
            .env("PADDOCK_DATA_DIR", self.data())
            .env("PADDOCK_LOG", self.dir.path().join("paddockd.log"))
            .env("PADDOCK_CLAUDE_BIN", env!("CARGO_BIN_EXE_fake-claude"))
            .env(
                "PADDOCK_HOST_CLAUDE_HOME",
                self.dir.path().join("host-claude"),
            )
            .env_remove("PADDOCK_CONFIG")
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    }
}

/// A small human-started transcript, dated in the past so a chat marked read stays read.
fn transcript(sid: &str, cwd: &Path, n: usize) -> String {
    let user = serde_json::json!({
        "parentUuid": null, "isSidechain": false, "type": "user",
        "message": {"role": "user", "content": format!("chat number {n}")},
        "uuid": uuid::Uuid::new_v4().to_string(), "timestamp": "2026-01-01T10:00:00.000Z",
        "cwd": cwd, "sessionId": sid, "version": "2.1.332", "userType": "external"
    });
    let assistant = serde_json::json!({
        "parentUuid": user["uuid"], "isSidechain": false, "type": "assistant",
        "message": {"id": format!("msg_{n}"), "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "done"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 5,
                "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}},
        "uuid": uuid::Uuid::new_v4().to_string(), "timestamp": "2026-01-01T10:00:02.000Z",
        "cwd": cwd, "sessionId": sid, "version": "2.1.332", "userType": "external"
    });
    format!("{user}\n{assistant}\n")
}

/// The four observable flags of a chat, as the model and the listing see them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Flag {
    Archived,
    Starred,
    Detached,
    Unread,
}

fn op(flag: Flag, on: bool) -> ChatAction {
    match (flag, on) {
        (Flag::Archived, true) => ChatAction::Archive,
        (Flag::Archived, false) => ChatAction::Unarchive,
        (Flag::Starred, true) => ChatAction::Star,
        (Flag::Starred, false) => ChatAction::Unstar,
        (Flag::Detached, true) => ChatAction::Detach,
        (Flag::Detached, false) => ChatAction::Attach,
        (Flag::Unread, true) => ChatAction::Unread,
        (Flag::Unread, false) => ChatAction::Read,
    }
}

fn observed(c: &ChatSummary, flag: Flag) -> bool {
    match flag {
        Flag::Archived => c.archived,
        Flag::Starred => c.starred,
        Flag::Detached => c.detached,
        Flag::Unread => c.unread,
    }
}

/// What a key may hold after a crash: the last acknowledged value, plus values sent after it
/// whose acknowledgement never came.
#[derive(Debug, Clone)]
struct Expect {
    acked: bool,
    maybe: Vec<bool>,
}

#[test]
fn sigkill_mid_burst_loses_no_acknowledged_mutation_and_leaves_no_unreadable_file() {
    let env = Env {
        dir: tempfile::tempdir().unwrap(),
    };
    // The chats exist before the first start: transcripts in the root workspace's `.chats`.
    let workspace = env.data().join("workspace");
    let chats_dir = workspace.join(".chats");
    std::fs::create_dir_all(&chats_dir).unwrap();
    let cwd = std::fs::canonicalize(&workspace).unwrap();
    let ids: Vec<String> = (0..CHATS)
        .map(|_| uuid::Uuid::new_v4().to_string())
        .collect();
    for (n, sid) in ids.iter().enumerate() {
        std::fs::write(
            chats_dir.join(format!("{sid}.jsonl")),
            transcript(sid, &cwd, n),
        )
        .unwrap();
    }

    // Every chat starts unread (never seen) and with no flag set.
    let mut model: HashMap<(usize, Flag), Expect> = HashMap::new();
    for c in 0..CHATS {
        for flag in [Flag::Archived, Flag::Starred, Flag::Detached, Flag::Unread] {
            let initial = flag == Flag::Unread;
            model.insert(
                (c, flag),
                Expect {
                    acked: initial,
                    maybe: Vec::new(),
                },
            );
        }
    }

    let mut rng = Rng(0x5eed_1234_abcd_0042);
    let mut acked_total = 0usize;
    for round in 0..ROUNDS {
        let mut daemon = env.start();
        let mut conn = Conn::open(&env.socket(), "crash-safety test");
        check(&mut conn, &ids, &model, round);

        // Pipeline a burst, then read acknowledgements until a random point, then SIGKILL.
        let mut sent: Vec<(u64, usize, Flag, bool)> = Vec::new();
        for _ in 0..BURST {
            let c = rng.below(CHATS);
            let flag = [Flag::Archived, Flag::Starred, Flag::Detached, Flag::Unread][rng.below(4)];
            let on = rng.below(2) == 1;
            let id = conn.send(Request::ChatUpdate(ChatUpdate {
                session_ids: vec![ids[c].clone()],
                action: op(flag, on),
            }));
            sent.push((id, c, flag, on));
        }
        let kill_after = 1 + rng.below(BURST - 1);
        let mut acked_ids = std::collections::HashSet::new();
        while acked_ids.len() < kill_after {
            match conn.next_response() {
                Some((id, Outcome::Ok(_))) => {
                    acked_ids.insert(id);
                }
                Some((id, Outcome::Err(e))) => panic!("request {id} failed: {}", e.message),
                None => panic!("the daemon closed the connection before the kill"),
            }
        }
        rustix::process::kill_process(
            rustix::process::Pid::from_child(&daemon),
            rustix::process::Signal::KILL,
        )
        .unwrap();
        // Acknowledgements already in the socket buffer were sent before the kill: they count.
        while let Some((id, outcome)) = conn.next_response() {
            if matches!(outcome, Outcome::Ok(_)) {
                acked_ids.insert(id);
            }
        }
        daemon.wait().unwrap();
        acked_total += acked_ids.len();

        // Fold the burst into the model, in request order (one connection is served in order).
        for (id, c, flag, on) in sent {
            let e = model.get_mut(&(c, flag)).unwrap();
            if acked_ids.contains(&id) {
                e.acked = on;
                e.maybe.clear();
            } else {
                e.maybe.push(on);
            }
        }
        // A later acknowledged request settles a key only if no unacknowledged one came after
        // it; requests are processed in order, so every unacknowledged one is after the last
        // acknowledged one and `maybe` is exactly the possibly-applied suffix.
    }

    let mut daemon = env.start();
    let mut conn = Conn::open(&env.socket(), "crash-safety test");
    check(&mut conn, &ids, &model, ROUNDS);
    assert!(
        acked_total > ROUNDS,
        "the test acknowledged too little to mean anything"
    );
    // No store was found corrupt at any start: nothing was moved aside.
    let state = env.data().join("state");
    let aside: Vec<_> = std::fs::read_dir(&state)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".corrupt-"))
        .collect();
    assert!(
        aside.is_empty(),
        "state files were found corrupt: {aside:?}"
    );
    for entry in std::fs::read_dir(&state).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") {
            let bytes = std::fs::read(entry.path()).unwrap();
            serde_json::from_slice::<serde_json::Value>(&bytes)
                .unwrap_or_else(|e| panic!("{name} is unreadable: {e}"));
        }
        assert!(
            !name.contains(".tmp"),
            "a temp file was left behind: {name}"
        );
    }
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&daemon),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    daemon.wait().unwrap();
}

/// Every key holds its acknowledged value, or one of the values sent after it.
fn check(conn: &mut Conn, ids: &[String], model: &HashMap<(usize, Flag), Expect>, round: usize) {
    let chats = list(conn);
    let by_id: HashMap<&str, &ChatSummary> =
        chats.iter().map(|c| (c.session_id.as_str(), c)).collect();
    for (c, sid) in ids.iter().enumerate() {
        let chat = by_id
            .get(sid.as_str())
            .unwrap_or_else(|| panic!("round {round}: chat {sid} is missing"));
        for flag in [Flag::Archived, Flag::Starred, Flag::Detached, Flag::Unread] {
            let e = &model[&(c, flag)];
            let got = observed(chat, flag);
            assert!(
                got == e.acked || e.maybe.contains(&got),
                "round {round}: chat {c} {flag:?} is {got}, but the last acknowledged value was {} (unacknowledged after it: {:?})",
                e.acked,
                e.maybe
            );
        }
    }
}

/// Every chat of the root workspace.
fn list(conn: &mut Conn) -> Vec<ChatSummary> {
    let id = conn.send(Request::ChatList(ChatList {
        project_slug: Some(String::new()),
        scope: ChatScope::All,
        since: None,
        full_titles: false,
    }));
    match conn.reply(id) {
        Ok(Reply::Chats(c)) => c.chats,
        other => panic!("chat:list: {other:?}"),
    }
}
