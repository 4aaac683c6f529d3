//! The index end to end: real files, real `notify` events, the persisted file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::broadcast;
use tokio::time::{Instant, timeout};

use super::*;

const DEADLINE: Duration = Duration::from_secs(10);

fn options() -> IndexOptions {
    IndexOptions {
        coalesce: Duration::from_millis(20),
        persist_debounce: Duration::from_millis(50),
        safety_interval: Duration::from_secs(3600),
        ..IndexOptions::default()
    }
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/claude-cli-2.1.332/transcripts/-home-dev-lab-work-dir-1-x")
}

/// Copies the fixture folder's transcripts (and one subagents folder, which is no chat).
fn copy_fixtures(to: &Path) -> usize {
    std::fs::create_dir_all(to).unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(fixture_dir()).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "jsonl") {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            n += 1;
        }
    }
    let sub = to.join("6f3cdd17-5e09-4be9-8abc-8cbd8d333102/subagents");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("agent-a1.jsonl"), prompt_line("sub")).unwrap();
    std::fs::write(to.join("notes.jsonl"), prompt_line("not a chat")).unwrap();
    n
}

fn prompt_line(text: &str) -> String {
    serde_json::json!({"type":"user","timestamp":"2026-01-01T00:00:00.000Z",
        "message":{"role":"user","content":text}})
    .to_string()
        + "\n"
}

fn assistant_line(id: &str, ts: &str) -> String {
    serde_json::json!({"type":"assistant","timestamp":ts,"message":{"id":id,"model":"claude-sonnet-4-5",
        "content":[{"type":"text","text":"ok"}],
        "usage":{"input_tokens":100,"output_tokens":10,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}})
    .to_string()
        + "\n"
}

fn append(path: &Path, text: &str) {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
}

fn sid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Waits, with a deadline, until `cond` holds, waking on index events.
async fn wait_until(
    rx: &mut broadcast::Receiver<IndexEvent>,
    what: &str,
    mut cond: impl FnMut() -> bool,
) {
    let deadline = Instant::now() + DEADLINE;
    while !cond() {
        let left = deadline.saturating_duration_since(Instant::now());
        match timeout(left, rx.recv()).await {
            Ok(Ok(_) | Err(broadcast::error::RecvError::Lagged(_))) => {}
            Ok(Err(broadcast::error::RecvError::Closed)) => panic!("index events closed: {what}"),
            Err(_) => panic!("timed out waiting for {what}"),
        }
    }
}

#[tokio::test]
async fn watch_folder_indexes_fixtures_and_skips_non_chats() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("proj");
    let n = copy_fixtures(&folder);
    let index = ChatIndex::open_with(
        tmp.path().join("state/index.json"),
        options(),
        &TaskTracker::new(),
    );
    index.watch_folder(&folder).await.unwrap();
    let chats = index.chats_in(&folder);
    assert_eq!(chats.len(), n);
    assert_eq!(index.stats().full_parses, n as u64);
    assert!(
        chats
            .windows(2)
            .all(|w| w[0].last_activity_ms >= w[1].last_activity_ms)
    );
    let renamed = index.get("7cf0e5a6-9487-4988-a4f9-3aa7cfc41539").unwrap();
    assert_eq!(renamed.title, "my chat");
    assert_eq!(renamed.folder, folder);
    assert_eq!(
        renamed.path,
        folder.join("7cf0e5a6-9487-4988-a4f9-3aa7cfc41539.jsonl")
    );
    let tool = index.get("8d7d0ebf-1954-4d77-876e-598889da8d4e").unwrap();
    assert_eq!(tool.message_count, 3);
    assert_eq!(tool.model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(tool.usage.output_tokens, 75);
    assert_eq!(tool.usage.context_tokens, 2796);
    assert_eq!(tool.usage.context_limit, 200_000);
    assert!(tool.usage.cost_usd > 0.0);
    // Idempotent: watching again reads nothing.
    index.watch_folder(&folder).await.unwrap();
    assert_eq!(index.stats().full_parses, n as u64);
    assert_eq!(index.chats_in(&folder), chats);
    index.unwatch_folder(&folder);
    assert!(index.chats_in(&folder).is_empty());
    assert!(index.get("7cf0e5a6-9487-4988-a4f9-3aa7cfc41539").is_none());
}

#[tokio::test]
async fn an_appended_transcript_shows_up_through_notify() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("proj");
    std::fs::create_dir_all(&folder).unwrap();
    let index = ChatIndex::open_with(
        tmp.path().join("index.json"),
        options(),
        &TaskTracker::new(),
    );
    index.watch_folder(&folder).await.unwrap();
    let mut rx = index.subscribe();

    let id = sid();
    let path = folder.join(format!("{id}.jsonl"));
    append(&path, &prompt_line("hello from a terminal claude"));
    wait_until(&mut rx, "the new chat", || index.get(&id).is_some()).await;
    let chat = index.get(&id).unwrap();
    assert_eq!(chat.title, "hello from a terminal claude");
    assert_eq!(chat.message_count, 1);

    // A partial line is not consumed; the rest of it completes the record.
    let line = assistant_line("msg_1", "2026-01-01T00:00:05.000Z");
    let (head, tail) = line.split_at(40);
    append(&path, head);
    let before = index.stats().continued_parses;
    // Reading the partial line changes nothing the list shows.
    index.refresh(&path).await;
    assert!(index.stats().continued_parses > before);
    assert_eq!(index.get(&id).unwrap().message_count, 1);
    append(&path, tail);
    wait_until(&mut rx, "the assistant message", || {
        index.get(&id).is_some_and(|c| c.message_count == 2)
    })
    .await;
    let chat = index.get(&id).unwrap();
    assert_eq!(chat.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(chat.updated_at.as_deref(), Some("2026-01-01T00:00:05.000Z"));

    std::fs::remove_file(&path).unwrap();
    wait_until(&mut rx, "the removal", || index.get(&id).is_none()).await;
}

#[tokio::test]
async fn refresh_reads_a_file_now_and_sends_an_event() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("proj");
    std::fs::create_dir_all(&folder).unwrap();
    let index = ChatIndex::open_with(
        tmp.path().join("index.json"),
        IndexOptions {
            coalesce: Duration::from_secs(3600),
            ..options()
        },
        &TaskTracker::new(),
    );
    index.watch_folder(&folder).await.unwrap();
    let mut rx = index.subscribe();
    let id = sid();
    let path = folder.join(format!("{id}.jsonl"));
    append(&path, &prompt_line("one"));
    index.refresh(&path).await;
    assert_eq!(index.get(&id).unwrap().title, "one");
    assert_eq!(
        rx.try_recv().unwrap(),
        IndexEvent::Changed {
            folder: folder.clone(),
            session_id: id.clone()
        }
    );
    // Nothing new: no event.
    index.refresh(&path).await;
    assert!(rx.try_recv().is_err());
}

#[tokio::test]
async fn a_symlinked_folder_is_followed_and_repointed() {
    let tmp = tempfile::tempdir().unwrap();
    let (real1, real2) = (tmp.path().join("real1"), tmp.path().join("real2"));
    std::fs::create_dir_all(&real1).unwrap();
    std::fs::create_dir_all(&real2).unwrap();
    let (a, b) = (sid(), sid());
    append(&real1.join(format!("{a}.jsonl")), &prompt_line("in one"));
    append(&real2.join(format!("{b}.jsonl")), &prompt_line("in two"));
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let link = project.join(".chats");
    std::os::unix::fs::symlink(&real1, &link).unwrap();

    let index = ChatIndex::open_with(
        tmp.path().join("index.json"),
        options(),
        &TaskTracker::new(),
    );
    index.watch_folder(&link).await.unwrap();
    let mut rx = index.subscribe();
    let chats = index.chats_in(&link);
    assert_eq!(chats.len(), 1);
    assert_eq!(chats[0].path, link.join(format!("{a}.jsonl")));

    // Written through the real path: the resolved folder is what is watched.
    append(&real1.join(format!("{a}.jsonl")), &prompt_line("more"));
    wait_until(&mut rx, "the append", || {
        index.get(&a).is_some_and(|c| c.message_count == 2)
    })
    .await;

    // Repointed atomically, like `ln -sfn`.
    let tmp_link = project.join(".chats.tmp");
    std::os::unix::fs::symlink(&real2, &tmp_link).unwrap();
    std::fs::rename(&tmp_link, &link).unwrap();
    wait_until(&mut rx, "the repointed link", || {
        let ids: Vec<String> = index
            .chats_in(&link)
            .into_iter()
            .map(|c| c.session_id)
            .collect();
        ids == vec![b.clone()]
    })
    .await;
    // And the new target is watched.
    let c = sid();
    append(&real2.join(format!("{c}.jsonl")), &prompt_line("new"));
    wait_until(&mut rx, "a chat in the new target", || {
        index.get(&c).is_some()
    })
    .await;
}

#[tokio::test]
async fn a_folder_that_appears_later_is_picked_up() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("projects/-home-dev-x");
    let index = ChatIndex::open_with(
        tmp.path().join("index.json"),
        options(),
        &TaskTracker::new(),
    );
    index.watch_folder(&folder).await.unwrap();
    assert!(index.chats_in(&folder).is_empty());
    let mut rx = index.subscribe();
    std::fs::create_dir_all(&folder).unwrap();
    let id = sid();
    append(&folder.join(format!("{id}.jsonl")), &prompt_line("first"));
    wait_until(&mut rx, "the chat in the new folder", || {
        index.get(&id).is_some()
    })
    .await;
}

#[tokio::test]
async fn an_overflowing_event_queue_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("proj");
    std::fs::create_dir_all(&folder).unwrap();
    let index = ChatIndex::open_with(
        tmp.path().join("index.json"),
        IndexOptions {
            fs_queue: 1,
            coalesce: Duration::from_millis(200),
            ..options()
        },
        &TaskTracker::new(),
    );
    index.watch_folder(&folder).await.unwrap();
    let mut rx = index.subscribe();
    for i in 0..200 {
        append(
            &folder.join(format!("{}.jsonl", sid())),
            &prompt_line(&format!("chat {i}")),
        );
    }
    wait_until(&mut rx, "200 chats", || {
        index.chats_in(&folder).len() == 200
    })
    .await;
}

#[tokio::test]
async fn reloading_the_persisted_index_reads_nothing_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("proj");
    let n = copy_fixtures(&folder);
    let state = tmp.path().join("state/chat-index.bin");

    let first = ChatIndex::open_with(state.clone(), options(), &TaskTracker::new());
    first.watch_folder(&folder).await.unwrap();
    first.flush().await.unwrap();
    assert_eq!(first.stats().persists, 1);
    let chats = first.chats_in(&folder);
    drop(first);

    let second = ChatIndex::open_with(state.clone(), options(), &TaskTracker::new());
    second.watch_folder(&folder).await.unwrap();
    assert_eq!(second.stats().full_parses, 0);
    assert_eq!(second.stats().continued_parses, 0);
    assert_eq!(second.chats_in(&folder), chats);
    assert_eq!(chats.len(), n);
    // Nothing changed: the file is not written again (with 10,000 chats it is 14 MB).
    second.flush().await.unwrap();
    assert_eq!(second.stats().persists, 0);

    // Grown while nobody watched: read from the stored offset only.
    let grown = "8d7d0ebf-1954-4d77-876e-598889da8d4e";
    append(
        &folder.join(format!("{grown}.jsonl")),
        &prompt_line("after restart"),
    );
    second.flush().await.unwrap();
    drop(second);
    let third = ChatIndex::open_with(state, options(), &TaskTracker::new());
    third.watch_folder(&folder).await.unwrap();
    assert_eq!(third.stats().full_parses, 0);
    assert_eq!(third.stats().continued_parses, 1);
    assert_eq!(third.get(grown).unwrap().message_count, 4);
}

#[tokio::test]
async fn folders_not_watched_again_are_kept_until_forgotten() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for f in [&a, &b] {
        std::fs::create_dir_all(f).unwrap();
        append(&f.join(format!("{}.jsonl", sid())), &prompt_line("x"));
    }
    let state = tmp.path().join("chat-index.bin");
    let first = ChatIndex::open_with(state.clone(), options(), &TaskTracker::new());
    first.watch_folder(&a).await.unwrap();
    first.watch_folder(&b).await.unwrap();
    first.flush().await.unwrap();
    drop(first);

    let folders_on_disk = || match persist::load(&state) {
        persist::Loaded::Entries { folders: f, .. } => {
            let mut v: Vec<PathBuf> = f.into_keys().collect();
            v.sort();
            v
        }
        other => panic!("{other:?}"),
    };
    let second = ChatIndex::open_with(state.clone(), options(), &TaskTracker::new());
    second.watch_folder(&a).await.unwrap();
    second.flush().await.unwrap();
    assert_eq!(folders_on_disk(), vec![a.clone(), b.clone()]);
    assert!(
        second.chats_in(&b).is_empty(),
        "b is not watched in this run"
    );
    second.forget_unwatched();
    second.flush().await.unwrap();
    assert_eq!(folders_on_disk(), vec![a.clone()]);
}

/// An upgrade from a release that kept the index as JSON: its entries are used (no transcript
/// parsed again), and the first write leaves the binary file in its place, even when nothing
/// changed.
#[tokio::test]
async fn an_earlier_releases_json_index_is_used_and_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("proj");
    let n = copy_fixtures(&folder) as u64;
    let state = tmp.path().join("chat-index.bin");
    let first = ChatIndex::open_with(state.clone(), options(), &TaskTracker::new());
    first.watch_folder(&folder).await.unwrap();
    first.flush().await.unwrap();
    drop(first);
    let persist::Loaded::Entries {
        folders,
        from_json: false,
    } = persist::load(&state)
    else {
        panic!("no index written")
    };
    let json = tmp.path().join("chat-index.json");
    let v3 = serde_json::json!({"version": 3, "folders": folders
        .iter()
        .map(|(f, chats)| serde_json::json!({"folder": f, "chats": chats}))
        .collect::<Vec<_>>()});
    std::fs::write(&json, serde_json::to_vec(&v3).unwrap()).unwrap();
    std::fs::remove_file(&state).unwrap();

    let upgraded = ChatIndex::open_with(state.clone(), options(), &TaskTracker::new());
    upgraded.watch_folder(&folder).await.unwrap();
    assert_eq!(
        upgraded.stats().full_parses,
        0,
        "no transcript parsed again"
    );
    assert_eq!(upgraded.chats_in(&folder).len() as u64, n);
    upgraded.flush().await.unwrap();
    assert!(
        matches!(
            persist::load(&state),
            persist::Loaded::Entries { folders: f, from_json: false } if f == folders
        ),
        "the binary file holds what the JSON one did"
    );
    assert!(!json.exists(), "the JSON file is gone");
}

#[tokio::test]
async fn a_corrupt_or_other_version_index_is_rebuilt() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("proj");
    let n = copy_fixtures(&folder) as u64;
    let state = tmp.path().join("chat-index.bin");
    let mut other_version = super::codec::MAGIC.to_vec();
    other_version.extend_from_slice(&(INDEX_VERSION + 1).to_le_bytes());
    let mut cut = super::codec::MAGIC.to_vec();
    cut.extend_from_slice(&INDEX_VERSION.to_le_bytes());
    cut.extend_from_slice(&[1, 0]);
    for junk in [
        b"{\"version\":1,\"folders\":[{\"folder\":".to_vec(),
        b"\x00\x01garbage".to_vec(),
        other_version,
        cut,
    ] {
        std::fs::write(&state, &junk).unwrap();
        let index = ChatIndex::open_with(state.clone(), options(), &TaskTracker::new());
        index.watch_folder(&folder).await.unwrap();
        assert_eq!(index.stats().full_parses, n, "after {junk:?}");
        index.flush().await.unwrap();
        assert!(matches!(
            persist::load(&state),
            persist::Loaded::Entries {
                from_json: false,
                ..
            }
        ));
    }
}

#[tokio::test]
async fn changes_are_persisted_without_a_flush() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("proj");
    std::fs::create_dir_all(&folder).unwrap();
    let id = sid();
    append(&folder.join(format!("{id}.jsonl")), &prompt_line("kept"));
    let state = tmp.path().join("chat-index.bin");
    let index = ChatIndex::open_with(state.clone(), options(), &TaskTracker::new());
    index.watch_folder(&folder).await.unwrap();
    let deadline = Instant::now() + DEADLINE;
    // The debounce is 50 ms; poll for the file with a deadline.
    loop {
        if let persist::Loaded::Entries { folders: f, .. } = persist::load(&state)
            && f.get(&folder).is_some_and(|c| c.contains_key(&id))
        {
            break;
        }
        assert!(Instant::now() < deadline, "index never persisted");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Not a benchmark with assertions: prints how long reconciling 10,000 small transcripts takes
/// with no index (every file read) and with a warm one (a stat per file).
#[tokio::test(flavor = "multi_thread")]
async fn measure_reconciling_ten_thousand_transcripts() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("proj");
    std::fs::create_dir_all(&folder).unwrap();
    let body = prompt_line("a generated chat")
        + &assistant_line("msg_1", "2026-01-01T00:00:01.000Z")
        + &assistant_line("msg_1", "2026-01-01T00:00:02.000Z")
        + &prompt_line("and a follow-up")
        + &assistant_line("msg_2", "2026-01-01T00:00:03.000Z");
    for _ in 0..10_000 {
        std::fs::write(folder.join(format!("{}.jsonl", sid())), &body).unwrap();
    }
    let state = tmp.path().join("chat-index.bin");

    let cold = ChatIndex::open_with(state.clone(), options(), &TaskTracker::new());
    let started = std::time::Instant::now();
    cold.watch_folder(&folder).await.unwrap();
    let cold_ms = started.elapsed().as_millis();
    assert_eq!(cold.chats_in(&folder).len(), 10_000);
    let started = std::time::Instant::now();
    cold.flush().await.unwrap();
    let flush_ms = started.elapsed().as_millis();
    let started = std::time::Instant::now();
    let listed = cold.chats_in(&folder).len();
    let list_ms = started.elapsed().as_millis();
    drop(cold);

    let warm = ChatIndex::open_with(state.clone(), options(), &TaskTracker::new());
    let started = std::time::Instant::now();
    warm.watch_folder(&folder).await.unwrap();
    let warm_ms = started.elapsed().as_millis();
    assert_eq!(warm.stats().full_parses, 0);
    let started = std::time::Instant::now();
    warm.watch_folder(&folder).await.unwrap();
    let again_ms = started.elapsed().as_millis();
    let size = std::fs::metadata(&state).unwrap().len();
    println!(
        "10,000 transcripts: cold reconcile {cold_ms} ms, warm reconcile after reload {warm_ms} ms \
         (includes loading the {size}-byte index), warm reconcile in memory {again_ms} ms, \
         persist {flush_ms} ms, chats_in of {listed} chats {list_ms} ms"
    );
}
