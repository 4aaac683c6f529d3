//! The search index end to end with a real live index: the build, appends, replaced and
//! deleted transcripts, ranking, phrases from positions, and the index on disk across restarts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::time::Duration;

use paddock_proto::SearchField;
use tokio::time::Instant;

use super::*;
use crate::index::IndexOptions;

const DEADLINE: Duration = Duration::from_secs(10);

fn sid(n: usize) -> String {
    format!("{n:08x}-0000-4000-8000-000000000000")
}

fn user(text: &str, at: &str) -> String {
    serde_json::json!({"type":"user","uuid":uuid::Uuid::new_v4().to_string(),"timestamp":at,
        "message":{"role":"user","content":text}})
    .to_string()
        + "\n"
}

fn assistant(text: &str, at: &str) -> String {
    serde_json::json!({"type":"assistant","uuid":uuid::Uuid::new_v4().to_string(),"timestamp":at,
        "message":{"id":format!("msg_{at}"),"model":"claude-sonnet-4-5",
            "content":[{"type":"text","text":text}]}})
    .to_string()
        + "\n"
}

fn append(path: &Path, text: &str) {
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
}

struct Setup {
    dir: tempfile::TempDir,
    folder: PathBuf,
    index: ChatIndex,
    search: SearchIndex,
}

/// A search index over `dir/search` following `index`, once searches cover every chat.
async fn started(dir: &Path, index: &ChatIndex) -> SearchIndex {
    let search = SearchIndex::new(dir.join("search"));
    search.start(index, &tokio_util::task::TaskTracker::new());
    let until = Instant::now() + DEADLINE;
    while !search.is_built() {
        assert!(Instant::now() < until, "the search index was not built");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    search
}

impl Setup {
    async fn new(write: impl FnOnce(&Path)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("chats");
        std::fs::create_dir_all(&folder).unwrap();
        write(&folder);
        let index = ChatIndex::open_with(
            dir.path().join("index.json"),
            IndexOptions {
                coalesce: Duration::from_millis(20),
                safety_interval: Duration::from_secs(3600),
                ..IndexOptions::default()
            },
            &tokio_util::task::TaskTracker::new(),
        );
        index.watch_folder(&folder).await.unwrap();
        let search = started(dir.path(), &index).await;
        Setup {
            dir,
            folder,
            index,
            search,
        }
    }

    /// The search index stopped and opened again over the same folder, as a restart does.
    async fn restart(&mut self) {
        self.stop().await;
        self.search = started(self.dir.path(), &self.index).await;
    }

    /// The search index stopped, its updater gone.
    async fn stop(&mut self) {
        let old = std::mem::replace(&mut self.search, SearchIndex::new(PathBuf::new()));
        let shared = Arc::downgrade(&old.shared);
        drop(old);
        // The old updater lets go of the index (its writer's lock) as it stops.
        let until = Instant::now() + DEADLINE;
        while shared.strong_count() > 0 {
            assert!(Instant::now() < until, "the old search index did not stop");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Whether the index was built from the transcripts at its start (not opened as committed).
    fn was_built(&self) -> bool {
        self.search.shared.started.load(Ordering::Acquire)
    }

    fn search_dir(&self) -> PathBuf {
        self.dir.path().join("search")
    }

    fn path(&self, n: usize) -> PathBuf {
        self.folder.join(format!("{}.jsonl", sid(n)))
    }

    /// Session ids of the hits, best first, and the total.
    fn hits(
        &self,
        q: &str,
        archived: &BTreeSet<String>,
        with_archived: bool,
    ) -> (Vec<String>, u32) {
        let slug_of = HashMap::from([(self.folder.clone(), "p".to_owned())]);
        let query = Query::parse(q);
        let cands = ranked(
            &self.search,
            &self.index,
            &slug_of,
            archived,
            with_archived,
            &query,
        );
        let v = verify_ranked(&cands, &query, 50, 2);
        (v.hits.into_iter().map(|h| h.session_id).collect(), v.total)
    }

    fn ids(&self, q: &str) -> Vec<String> {
        self.hits(q, &BTreeSet::new(), false).0
    }

    /// Polls until the search index holds `n` chats (deletions are applied by its follower,
    /// a little after the chat list forgets them).
    async fn wait_for_chats(&self, n: usize) {
        let until = Instant::now() + DEADLINE;
        while self.search.stats().chats != n {
            assert!(
                Instant::now() < until,
                "{:?}, not {n} chats",
                self.search.stats()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Polls until `q` finds exactly `want` (the live index coalesces, then the search's
    /// follower does).
    async fn wait_for(&self, q: &str, want: &[String]) {
        let until = Instant::now() + DEADLINE;
        loop {
            let got = self.ids(q);
            if got == want {
                return;
            }
            assert!(Instant::now() < until, "{q:?} found {got:?}, not {want:?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

#[tokio::test]
async fn built_at_start_then_follows_appends_replacements_and_deletions() {
    let s = Setup::new(|folder| {
        let p = |n: usize| folder.join(format!("{}.jsonl", sid(n)));
        std::fs::write(
            p(1),
            user("Why does the cookie refresh race?", "2026-01-01T10:00:00Z")
                + &assistant("Two tabs refresh at once.", "2026-01-01T10:00:01Z"),
        )
        .unwrap();
        std::fs::write(
            p(2),
            user("Fix the login page", "2026-01-02T10:00:00Z")
                + &assistant("The cookie is set twice.", "2026-01-02T10:00:01Z"),
        )
        .unwrap();
        std::fs::write(p(3), "garbage\n{\"type\":\"user\"\n\u{0}\n").unwrap();
        // Not a chat.
        std::fs::write(
            folder.join("notes.jsonl"),
            user("cookie", "2026-01-01T00:00:00Z"),
        )
        .unwrap();
    })
    .await;
    assert_eq!(s.search.progress(0), None);
    // The title match first, though older.
    assert_eq!(s.ids("cookie"), [sid(1), sid(2)]);
    assert_eq!(s.ids("cook refr"), [sid(1)]);
    assert_eq!(s.ids(r#""refresh race""#), [sid(1)]);
    assert_eq!(s.ids(r#""race refresh""#), Vec::<String>::new());
    assert_eq!(s.ids("twice"), [sid(2)]);
    assert_eq!(s.ids("garbage"), Vec::<String>::new());

    // A running chat's new turn becomes searchable.
    append(
        &s.path(2),
        &user("and what about postgres?", "2026-01-03T10:00:00Z"),
    );
    s.wait_for("postgres", &[sid(2)]).await;
    // A new chat too, half a line at a time.
    let line = assistant("the pgbouncer pool is full", "2026-01-04T10:00:00Z");
    let (head, tail) = line.split_at(20);
    append(&s.path(4), head);
    tokio::time::sleep(Duration::from_millis(100)).await;
    append(&s.path(4), tail);
    s.wait_for("pgbouncer", &[sid(4)]).await;
    // A custom title: searchable, and ranks the chat first.
    append(
        &s.path(2),
        &(serde_json::json!({"type":"custom-title","customTitle":"Cookie set twice"}).to_string()
            + "\n"),
    );
    s.wait_for("cookie", &[sid(2), sid(1)]).await;

    // Replaced: only the new text is found.
    std::fs::write(
        s.path(1),
        user("Something else entirely", "2026-01-05T10:00:00Z"),
    )
    .unwrap();
    s.wait_for("refresh", &[]).await;
    s.wait_for("entirely", &[sid(1)]).await;

    // Deleted: gone from the answers.
    std::fs::remove_file(s.path(2)).unwrap();
    s.wait_for("cookie", &[]).await;
    s.wait_for("postgres", &[]).await;
    // 1, 3 (garbage: nothing to find) and 4.
    s.wait_for_chats(3).await;
}

#[tokio::test]
async fn archived_chats_only_when_asked() {
    let s = Setup::new(|folder| {
        for n in 0..3 {
            std::fs::write(
                folder.join(format!("{}.jsonl", sid(n))),
                user(
                    &format!("deploy number {n}"),
                    &format!("2026-01-0{}T10:00:00Z", n + 1),
                ),
            )
            .unwrap();
        }
    })
    .await;
    let archived = BTreeSet::from([sid(1)]);
    assert_eq!(
        s.hits("deploy", &archived, false),
        (vec![sid(2), sid(0)], 2)
    );
    assert_eq!(
        s.hits("deploy", &archived, true),
        (vec![sid(2), sid(1), sid(0)], 3)
    );
    // A chat the chat list does not know is not found (another folder: not in `slug_of`).
    let slug_of = HashMap::from([(PathBuf::from("/elsewhere"), "x".to_owned())]);
    let q = Query::parse("deploy");
    assert!(ranked(&s.search, &s.index, &slug_of, &archived, true, &q).is_empty());
}

#[tokio::test]
async fn matches_name_the_entry_of_the_rendering() {
    let s = Setup::new(|folder| {
        let tool = serde_json::json!({"type":"assistant","timestamp":"2026-01-01T10:00:02Z",
            "message":{"id":"m2","model":"claude-sonnet-4-5","content":[
                {"type":"thinking","thinking":"flaky"},
                {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test flaky_login"}}]}})
        .to_string()
            + "\n";
        let result = serde_json::json!({"type":"user","timestamp":"2026-01-01T10:00:03Z",
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1",
                "content":"test flaky_login ... FAILED"}]}})
        .to_string()
            + "\n";
        std::fs::write(
            folder.join(format!("{}.jsonl", sid(7))),
            user("The login test is flaky", "2026-01-01T10:00:00Z")
                + &assistant("Let me run it.", "2026-01-01T10:00:01Z")
                + &tool
                + &result,
        )
        .unwrap();
    })
    .await;
    let slug_of = HashMap::from([(s.folder.clone(), "p".to_owned())]);
    let q = Query::parse("flaky");
    let cands = ranked(&s.search, &s.index, &slug_of, &BTreeSet::new(), false, &q);
    let v = verify_ranked(&cands, &q, 50, 1);
    let hit = &v.hits[0];
    let entries = crate::transcripts::render(&s.path(7)).unwrap();
    let places: Vec<(SearchField, Option<u32>)> =
        hit.matches.iter().map(|m| (m.field, m.entry)).collect();
    assert_eq!(
        places,
        [
            (SearchField::Title, None),
            (SearchField::User, Some(0)),
            (SearchField::ToolUse, Some(3)),
            (SearchField::ToolResult, Some(4)),
        ]
    );
    assert!(matches!(
        entries[3],
        paddock_proto::TranscriptEntry::ToolUse { .. }
    ));
    assert!(matches!(
        entries[4],
        paddock_proto::TranscriptEntry::ToolResult { .. }
    ));
    assert_eq!(hit.matches[2].snippet, "Bash cargo test flaky_login");
    assert_eq!(hit.matches[2].highlights, [[16, 21]]);
    assert_eq!(hit.project_slug, "p");
    assert_eq!(hit.title, "The login test is flaky");
}

/// Many chats: the build's batches and merges, and every chat found by its own word.
#[tokio::test]
async fn many_chats_each_found_by_its_own_word() {
    const N: usize = 300;
    let s = Setup::new(|folder| {
        for n in 0..N {
            let text = format!("shared words here, and the unique word uniq{n}x");
            std::fs::write(
                folder.join(format!("{}.jsonl", sid(n))),
                user(&text, "2026-01-01T10:00:00Z"),
            )
            .unwrap();
        }
    })
    .await;
    for n in [0, 1, 150, N - 1] {
        assert_eq!(s.ids(&format!("uniq{n}x")), [sid(n)]);
    }
    let (hits, total) = s.hits("shared", &BTreeSet::new(), false);
    assert_eq!((hits.len(), total), (50, N as u32));
    assert_eq!(s.search.stats().chats, N);
    // Deleted ones are dropped.
    for n in 0..10 {
        std::fs::remove_file(s.path(n)).unwrap();
    }
    s.wait_for("uniq5x", &[]).await;
    s.wait_for_chats(N - 10).await;
    assert_eq!(s.ids("uniq20x"), [sid(20)]);
    assert_eq!(s.hits("shared", &BTreeSet::new(), false).1, N as u32 - 10);
}

/// Chats that all have the words "module" and "layout", in a row only as "module layout".
async fn everywhere(chats: usize) -> Setup {
    Setup::new(|folder| {
        for n in 0..chats {
            std::fs::write(
                folder.join(format!("{}.jsonl", sid(n))),
                user(
                    &format!("Chat {n}: look at the module layout"),
                    "2026-01-01T10:00:00Z",
                ) + &assistant("The layout of the module is fine.", "2026-01-01T10:00:01Z"),
            )
            .unwrap();
        }
    })
    .await
}

/// A phrase of words every chat has is answered from the index's positions: every chat it
/// finds surely matches, so a search reads only the transcripts of its hits, and one the other
/// way round finds nothing without reading any.
#[tokio::test]
async fn a_phrase_of_common_words_is_answered_from_positions() {
    let chats = 150;
    let s = everywhere(chats).await;
    let slug_of = HashMap::from([(s.folder.clone(), "p".to_owned())]);
    let none = BTreeSet::new();
    let ranked_for = |q: &str| {
        ranked(
            &s.search,
            &s.index,
            &slug_of,
            &none,
            false,
            &Query::parse(q),
        )
    };
    assert_eq!(ranked_for("layout module").len(), chats);
    for q in [
        "\"layout module\"",
        "\"the layout module\"",
        "\"module the\"",
    ] {
        assert!(ranked_for(q).is_empty(), "{q}");
        assert_eq!(s.hits(q, &none, false), (vec![], 0), "{q}");
    }
    for q in [
        "\"module layout\"",
        "\"the module layout\"",
        "\"at the module lay",
        "module.lay",
    ] {
        let found = ranked_for(q);
        assert_eq!(found.len(), chats, "{q}");
        assert!(
            found.iter().all(|c| c.sure),
            "{q}: every chat found surely matches"
        );
        let v = verify_ranked(&found, &Query::parse(q), 10, 1);
        assert_eq!((v.hits.len(), v.total as usize), (10, chats), "{q}");
        assert_eq!(v.read, 10, "{q}: only the hits are read");
    }
    // A phrase's one-letter words are looked up too.
    assert_eq!(
        s.hits("\"at the module layout\"", &none, false).1 as usize,
        chats
    );
    assert_eq!(s.hits("\"at a module layout\"", &none, false).1, 0);
}

#[tokio::test]
async fn text_appended_after_the_build_is_found_at_once() {
    let chats = 60;
    let s = everywhere(chats).await;
    let none = BTreeSet::new();
    append(
        &s.path(chats - 1),
        &user("Now the layout module, please.", "2026-01-01T10:00:02Z"),
    );
    // The live index sees the line, then a search waits for the search index to have it.
    s.index.refresh(&s.path(chats - 1)).await;
    s.search.settle().await;
    assert_eq!(
        s.hits("\"layout module\"", &none, false).0,
        [sid(chats - 1)]
    );
}

/// A restart opens the index as committed: no build, every chat found at once, and what was
/// written while it was stopped read on.
#[tokio::test]
async fn a_restart_opens_the_index_without_a_build() {
    let mut s = everywhere(40).await;
    assert!(s.was_built());
    append(
        &s.path(3),
        &user("a lighthouse keeper", "2026-01-01T10:00:02Z"),
    );
    s.wait_for("lighthouse", &[sid(3)]).await;
    s.restart().await;
    assert!(!s.was_built(), "opened, not built again");
    assert_eq!(s.search.progress(40), None);
    assert_eq!(s.hits("\"module layout\"", &BTreeSet::new(), false).1, 40);
    assert_eq!(s.ids("lighthouse"), [sid(3)]);
    assert_eq!(s.search.stats().chats, 40);
    // Written while the search index was stopped: read on at the start.
    s.stop().await;
    append(&s.path(5), &user("a quiet harbour", "2026-01-01T10:00:03Z"));
    s.index.refresh(&s.path(5)).await;
    s.restart().await;
    s.wait_for("harbour", &[sid(5)]).await;
    assert!(!s.was_built());
}

/// An index that cannot be used is moved aside and built again, answering as before.
#[tokio::test]
async fn a_corrupt_index_is_rebuilt() {
    let mut s = everywhere(30).await;
    let meta = s.search_dir().join("meta.json");
    for garbage in [
        &b"{not json"[..],
        br#"{"index_settings":{},"segments":[],"schema":[],"opstamp":0}"#,
    ] {
        s.stop().await;
        std::fs::write(&meta, garbage).unwrap();
        s.restart().await;
        assert!(
            s.was_built(),
            "built again after {:?}",
            String::from_utf8_lossy(garbage)
        );
        assert!(s.dir.path().join("search.broken").is_dir());
        assert_eq!(s.hits("\"module layout\"", &BTreeSet::new(), false).1, 30);
    }
    // A segment file lost.
    s.stop().await;
    let seg = std::fs::read_dir(s.search_dir())
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "idx"))
        .unwrap();
    std::fs::remove_file(seg.path()).unwrap();
    s.restart().await;
    assert!(s.was_built());
    assert_eq!(s.hits("\"module layout\"", &BTreeSet::new(), false).1, 30);
}

/// A daemon killed while committing leaves the new segment's files written and `meta.json`
/// not yet replaced (tantivy swaps it last, atomically): the restart opens the last commit,
/// loses nothing it held, and does not build again.
#[tokio::test]
async fn a_commit_cut_short_loses_nothing_committed() {
    let mut s = everywhere(30).await;
    append(
        &s.path(3),
        &user("a lighthouse keeper", "2026-01-01T10:00:02Z"),
    );
    s.wait_for("lighthouse", &[sid(3)]).await;
    s.stop().await;
    // What the cut-short commit left: a segment's files under a name no commit lists, and the
    // temporary file of a meta.json being written.
    let dir = s.search_dir();
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    let segment = files
        .iter()
        .find(|p| p.extension().is_some_and(|x| x == "idx"))
        .and_then(|p| p.file_stem())
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let orphan = "0123456789abcdef0123456789abcdef";
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(ext) = name.strip_prefix(&format!("{segment}.")) {
            std::fs::copy(f, dir.join(format!("{orphan}.{ext}"))).unwrap();
        }
    }
    std::fs::write(
        dir.join(".tmpK1LLED"),
        br#"{"index_settings":{"docstore_co"#,
    )
    .unwrap();
    s.restart().await;
    assert!(!s.was_built(), "the last commit opened");
    assert_eq!(s.hits("\"module layout\"", &BTreeSet::new(), false).1, 30);
    assert_eq!(s.ids("lighthouse"), [sid(3)]);
    assert_eq!(s.search.stats().chats, 30);
}

/// A hit carries its title as the chat list shows it (cut), yet a query word past the cut
/// still counts as in the title for the ranking, and a chat with no title is named by its id.
#[tokio::test]
async fn hits_carry_the_listed_title_and_rank_by_the_whole_one() {
    let long = format!("{} zebra", "word ".repeat(100));
    let s = Setup::new(|folder| {
        let p = |n: usize| folder.join(format!("{}.jsonl", sid(n)));
        std::fs::write(p(1), user(&long, "2026-01-01T10:00:00Z")).unwrap();
        // Newer, with zebra in a reply only.
        std::fs::write(
            p(2),
            user("Something", "2026-01-02T10:00:00Z")
                + &assistant("a zebra", "2026-01-02T10:00:01Z"),
        )
        .unwrap();
        std::fs::write(p(3), assistant("zebra again", "2026-01-03T10:00:00Z")).unwrap();
    })
    .await;
    let slug_of = HashMap::from([(s.folder.clone(), "p".to_owned())]);
    let query = Query::parse("zebra");
    let cands = ranked(
        &s.search,
        &s.index,
        &slug_of,
        &BTreeSet::new(),
        false,
        &query,
    );
    let v = verify_ranked(&cands, &query, 50, 1);
    let hits: Vec<(&str, &str)> = v
        .hits
        .iter()
        .map(|h| (h.session_id.as_str(), h.title.as_str()))
        .collect();
    let listed = crate::text::cut(long.trim(), paddock_proto::TITLE_CHARS);
    let untitled = crate::index::display_title("", &sid(3));
    assert_eq!(
        hits,
        [
            (sid(1).as_str(), listed.as_str()),
            (sid(3).as_str(), untitled.as_str()),
            (sid(2).as_str(), "Something"),
        ]
    );
    assert!(listed.chars().count() == paddock_proto::TITLE_CHARS + 1);
}
