//! Issue 8, search, over the real socket: chats with known text (written by the fake `claude`,
//! and "by the user's terminal claude" in the record shapes of the 2.1.332 fixtures) are found
//! with the right field and the `chat:transcript` entry to jump to; prefixes, phrases, the
//! project filter, archived chats, deletion, a chat's new turn becoming searchable, and a few
//! hundred generated transcripts, indexed at start and as they appear.

use std::path::{Path, PathBuf};
use std::time::Duration;

use paddock_proto::{
    ChatAction, ChatUpdate, ErrorBody, ErrorCode, ProjectCreate, ProjectInfo, Reply, Request,
    SearchField, SearchHit, SearchRequest, SearchResults, SessionIds, Transcript, TranscriptEntry,
};
use serde_json::{Value, json};

use crate::harness::*;

// Boxed forms of the harness's large futures (see chats.rs).
async fn req(c: &mut RawClient, request: Request) -> Result<Reply, ErrorBody> {
    Box::pin(c.request(request)).await
}

async fn client(d: &TestDaemon) -> RawClient {
    Box::pin(d.client()).await
}

async fn create_project(c: &mut RawClient, slug: &str) -> ProjectInfo {
    match req(
        c,
        Request::ProjectCreate(ProjectCreate {
            slug: slug.into(),
            path: None,
            ..Default::default()
        }),
    )
    .await
    .expect("project created")
    {
        Reply::Project(p) => p,
        other => panic!("expected project, got {other:?}"),
    }
}

fn ask(query: &str) -> SearchRequest {
    SearchRequest {
        query: query.into(),
        project_slug: None,
        limit: None,
        archived: false,
    }
}

async fn search(c: &mut RawClient, r: SearchRequest) -> Result<SearchResults, ErrorBody> {
    req(c, Request::Search(r)).await.map(|reply| match reply {
        Reply::SearchResults(s) => s,
        other => panic!("expected search_results, got {other:?}"),
    })
}

/// Searches again until `done` holds (the index follows transcripts a few tens of
/// milliseconds after they change), within the harness's deadline.
async fn search_until(
    c: &mut RawClient,
    r: SearchRequest,
    what: &str,
    done: impl Fn(&SearchResults) -> bool,
) -> SearchResults {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let got = search(c, r.clone()).await.expect("search");
        if done(&got) {
            return got;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {got:#?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn ids(r: &SearchResults) -> Vec<&str> {
    r.hits.iter().map(|h| h.session_id.as_str()).collect()
}

fn hit<'a>(r: &'a SearchResults, sid: &str) -> &'a SearchHit {
    r.hits
        .iter()
        .find(|h| h.session_id == sid)
        .unwrap_or_else(|| panic!("{sid} not found: {r:#?}"))
}

async fn transcript(c: &mut RawClient, sid: &str) -> Transcript {
    match req(
        c,
        Request::ChatTranscript(paddock_proto::SessionRef {
            session_id: sid.into(),
        }),
    )
    .await
    .expect("chat:transcript")
    {
        Reply::Transcript(t) => *t,
        other => panic!("expected transcript, got {other:?}"),
    }
}

/// Every match of a hit that names an entry points at an entry of that kind in the chat's
/// `chat:transcript`, whose text has the snippet's highlighted words.
async fn check_entries(c: &mut RawClient, hit: &SearchHit) {
    let t = transcript(c, &hit.session_id).await;
    for m in &hit.matches {
        let Some(i) = m.entry else {
            assert_eq!(m.field, SearchField::Title);
            continue;
        };
        let entry = t
            .entries
            .get(i as usize)
            .unwrap_or_else(|| panic!("no entry {i} in {:#?}", t.entries));
        let (kind, text) = match entry {
            TranscriptEntry::User { text, uuid, .. } => {
                assert_eq!(m.uuid.as_ref(), uuid.as_ref());
                (SearchField::User, text.clone())
            }
            TranscriptEntry::Assistant { text, uuid, .. } => {
                assert_eq!(m.uuid.as_ref(), uuid.as_ref());
                (SearchField::Assistant, text.clone())
            }
            TranscriptEntry::ToolUse { name, input, .. } => {
                (SearchField::ToolUse, format!("{name} {input}"))
            }
            TranscriptEntry::ToolResult { output, .. } => (SearchField::ToolResult, output.clone()),
            other => panic!("a match in an entry that is not searched: {other:?}"),
        };
        assert_eq!(m.field, kind, "entry {i}: {entry:?}");
        let chars: Vec<char> = m.snippet.chars().collect();
        for [a, b] in &m.highlights {
            let word: String = chars[*a as usize..*b as usize].iter().collect();
            let first = word.split(|ch: char| !ch.is_alphanumeric()).next().unwrap();
            assert!(
                text.to_lowercase().contains(&first.to_lowercase()),
                "{word:?} is not in entry {i}: {text:?}"
            );
        }
    }
}

/// `<claude_home>/projects/<encoded agent dir>`, where the project's transcripts are read.
fn transcripts_folder(d: &TestDaemon, agent_dir: &str) -> PathBuf {
    d.cfg
        .claude_home
        .join("projects")
        .join(paddock_tests::cwd_encoding::encode_cwd(agent_dir))
}

fn ts(at: chrono::DateTime<chrono::Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// A session as terminal `claude` writes it: a prompt, then the assistant's turns, each a text
/// or a tool call (`("tool", input, output)`), with its result.
fn terminal_transcript(
    sid: &str,
    cwd: &str,
    prompt: &str,
    answers: &[Value],
    at: chrono::DateTime<chrono::Utc>,
) -> String {
    let mut t = at;
    let mut next = || {
        t += chrono::Duration::milliseconds(700);
        ts(t)
    };
    let common = json!({"userType": "external", "entrypoint": "cli", "cwd": cwd,
        "sessionId": sid, "version": "2.1.332", "gitBranch": "HEAD", "isSidechain": false});
    let with = |mut v: Value| {
        if let (Some(o), Some(e)) = (v.as_object_mut(), common.as_object()) {
            o.extend(e.clone());
        }
        v
    };
    let mut parent = uuid::Uuid::new_v4().to_string();
    let mut lines = vec![
        json!({"type": "queue-operation", "operation": "enqueue", "timestamp": next(),
            "sessionId": sid, "content": prompt}),
        with(
            json!({"parentUuid": null, "type": "user", "uuid": parent, "timestamp": next(),
            "message": {"role": "user", "content": prompt}, "permissionMode": "default"}),
        ),
    ];
    for (n, a) in answers.iter().enumerate() {
        let uuid = uuid::Uuid::new_v4().to_string();
        let msg = format!("msg_{}_{n}", &sid[..8]);
        if let Some(text) = a.as_str() {
            lines.push(with(
                json!({"parentUuid": parent, "type": "assistant", "uuid": uuid,
                "timestamp": next(), "message": {"id": msg, "type": "message",
                "role": "assistant", "model": "claude-opus-5-5",
                "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}}),
            ));
            parent = uuid;
            continue;
        }
        let tool_id = format!("toolu_{}_{n}", &sid[..8]);
        lines.push(with(
            json!({"parentUuid": parent, "type": "assistant", "uuid": uuid,
            "timestamp": next(), "message": {"id": msg, "type": "message",
            "role": "assistant", "model": "claude-opus-5-5",
            "content": [{"type": "tool_use", "id": tool_id, "name": a["tool"],
                "input": a["input"]}],
            "usage": {"input_tokens": 10, "output_tokens": 5}}}),
        ));
        let result = uuid::Uuid::new_v4().to_string();
        lines.push(with(
            json!({"parentUuid": uuid, "type": "user", "uuid": result,
            "timestamp": next(), "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool_id, "content": a["output"]}]},
            "toolUseResult": {"stdout": a["output"]}}),
        ));
        parent = result;
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn write_chat(folder: &Path, sid: &str, text: &str) {
    std::fs::write(folder.join(format!("{sid}.jsonl")), text).unwrap();
}

fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[tokio::test]
async fn search_finds_chats_by_words_prefixes_and_phrases_with_their_entries() {
    let d = TestDaemon::start().await;
    let mut c = client(&d).await;
    let web = create_project(&mut c, "web").await;
    let api = create_project(&mut c, "api").await;

    // A chat run by paddockd (the fake claude): a text reply and a tool call.
    let script = r#"fake:[{"text":"Looking at the cookie jar first.","chunks":2},{"tool":"Bash","input":{"command":"grep -rn quokkaLatch src/auth"},"output":"src/auth/session.ts:41: quokkaLatch.release()"},{"text":"The latch is released twice.","chunks":1}]"#;
    let sent = Box::pin(c.send_turn("web", None, script)).await;
    let frames = Box::pin(c.frames_until_complete(&sent.session_id)).await;
    assert!(complete_of(&frames).success, "turn failed: {frames:#?}");
    let run = sent.session_id;

    // Chats "of the user's terminal claude", written straight into the projects' folders.
    let now = chrono::Utc::now();
    let (race, login, other) = (
        uuid::Uuid::new_v4().to_string(),
        uuid::Uuid::new_v4().to_string(),
        uuid::Uuid::new_v4().to_string(),
    );
    write_chat(
        &transcripts_folder(&d, &web.path),
        &race,
        &terminal_transcript(
            &race,
            &web.path,
            "Investigate the cookie refresh race",
            &[
                json!("Two tabs refresh the cookie at once: a refresh race."),
                json!({"tool": "Read", "input": {"file_path": "src/auth/cookie.ts"},
                    "output": "export function refreshCookie(cookie) {}"}),
                json!("Fixed by a lock around the cookie refresh."),
            ],
            now - chrono::Duration::hours(3),
        ),
    );
    write_chat(
        &transcripts_folder(&d, &web.path),
        &login,
        &terminal_transcript(
            &login,
            &web.path,
            "The login page is slow",
            &[json!(
                "The cookie is refreshed on every request, which is slow."
            )],
            now - chrono::Duration::hours(1),
        ),
    );
    write_chat(
        &transcripts_folder(&d, &api.path),
        &other,
        &terminal_transcript(
            &other,
            &api.path,
            "Rate limits for the API",
            &[json!("The refresh token endpoint needs a cookie too.")],
            now - chrono::Duration::hours(2),
        ),
    );
    let all = search_until(&mut c, ask("cookie"), "the terminal chats", |r| {
        r.hits.len() == 4 && r.indexing.is_none()
    })
    .await;
    // Title matches first (the fake's chat is titled by its script, which has the word), by
    // activity: the chat run just now, then the one of 3 h ago; then the others, 1 h, 2 h ago.
    assert_eq!(ids(&all), [run.as_str(), &race, &login, &other]);
    assert_eq!(all.total, 4);
    let h = hit(&all, &race);
    assert_eq!(h.project_slug, "web");
    assert_eq!(h.title, "Investigate the cookie refresh race");
    let fields: Vec<(SearchField, Option<u32>)> =
        h.matches.iter().map(|m| (m.field, m.entry)).collect();
    assert_eq!(
        fields,
        [
            (SearchField::Title, None),
            (SearchField::User, Some(0)),
            (SearchField::Assistant, Some(1)),
            (SearchField::ToolUse, Some(2)),
            (SearchField::ToolResult, Some(3)),
        ]
    );
    assert_eq!(h.more, 1, "the last reply has the word too");
    assert_eq!(h.matches[0].highlights, [[16, 22]]);
    assert_eq!(hit(&all, &other).project_slug, "api");
    for h in &all.hits {
        check_entries(&mut c, h).await;
    }

    // A prefix, case aside; the tool call of the fake's turn and its result.
    let r = search(&mut c, ask("quokkalat")).await.unwrap();
    assert_eq!(ids(&r), [run.as_str()]);
    let fields: Vec<SearchField> = r.hits[0].matches.iter().map(|m| m.field).collect();
    assert_eq!(
        fields,
        [
            SearchField::Title,
            SearchField::User,
            SearchField::ToolUse,
            SearchField::ToolResult
        ],
        "the script is the user's message, and so the title"
    );
    check_entries(&mut c, &r.hits[0]).await;
    let tool = &r.hits[0].matches[2];
    assert_eq!(tool.snippet, "Bash grep -rn quokkaLatch src/auth");
    assert_eq!(tool.highlights, [[14, 25]]);
    let r = search(&mut c, ask("relea twice")).await.unwrap();
    assert_eq!(ids(&r), [run.as_str()]);
    check_entries(&mut c, &r.hits[0]).await;

    // Phrases: the words in a row, whatever separates them.
    let r = search(&mut c, ask(r#""refresh race""#)).await.unwrap();
    assert_eq!((ids(&r), r.total), (vec![race.as_str()], 1));
    let r = search(&mut c, ask(r#""race refresh""#)).await.unwrap();
    assert_eq!((r.hits.len(), r.total), (0, 0));
    let r = search(&mut c, ask(r#"cookie "refresh token""#))
        .await
        .unwrap();
    assert_eq!(ids(&r), [other.as_str()]);
    // An open quote, as typed so far.
    let r = search(&mut c, ask(r#""refresh tok"#)).await.unwrap();
    assert_eq!(ids(&r), [other.as_str()]);

    // One project; the limit.
    let mut q = ask("cookie");
    q.project_slug = Some("api".into());
    let r = search(&mut c, q).await.unwrap();
    assert_eq!(ids(&r), [other.as_str()]);
    let mut q = ask("cookie");
    q.limit = Some(2);
    let r = search(&mut c, q).await.unwrap();
    assert_eq!((ids(&r), r.total), (vec![run.as_str(), &race], 4));
    let mut q = ask("cookie");
    q.project_slug = Some("nope".into());
    assert_eq!(
        search(&mut c, q).await.unwrap_err().code,
        ErrorCode::NotFound
    );

    // Archived chats only when asked, and marked.
    let archive = Request::ChatUpdate(ChatUpdate {
        session_ids: vec![login.clone()],
        action: ChatAction::Archive,
    });
    req(&mut c, archive).await.unwrap();
    let r = search(&mut c, ask("cookie")).await.unwrap();
    assert_eq!(ids(&r), [run.as_str(), &race, &other]);
    let mut q = ask("cookie");
    q.archived = true;
    let r = search(&mut c, q).await.unwrap();
    assert_eq!(r.hits.len(), 4);
    assert!(hit(&r, &login).archived);
    assert!(!hit(&r, &race).archived);

    // Deleted: gone at once.
    let delete = Request::ChatDelete(SessionIds {
        session_ids: vec![other.clone()],
    });
    req(&mut c, delete).await.unwrap();
    let r = search(&mut c, ask("cookie")).await.unwrap();
    assert_eq!(ids(&r), [run.as_str(), &race]);

    // What is no query.
    for (q, limit) in [
        ("", None),
        ("   ", None),
        ("a b \"\"", None),
        ("cookie", Some(0)),
        ("cookie", Some(501)),
    ] {
        let mut r = ask(q);
        r.limit = limit;
        let err = search(&mut c, r).await.unwrap_err();
        assert_eq!(
            err.code,
            ErrorCode::InvalidArgument,
            "{q:?} {limit:?}: {err:?}"
        );
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_new_turn_becomes_searchable() {
    let d = TestDaemon::start().await;
    let mut c = client(&d).await;
    // Once the (empty) index is built, every search reads its writes: a turn is searchable as
    // soon as its `chat:complete` was delivered, no retrying.
    search_until(&mut c, ask("walrus"), "the index built", |r| {
        r.indexing.is_none()
    })
    .await;
    let sent = Box::pin(c.send_turn("", None, "first about walruses")).await;
    let frames = Box::pin(c.frames_until_complete(&sent.session_id)).await;
    assert!(complete_of(&frames).success);
    let sid = sent.session_id;
    let r = search(&mut c, ask("walrus")).await.unwrap();
    assert_eq!(r.hits.len(), 1, "the first turn, at once: {r:#?}");
    let h = hit(&r, &sid);
    // Title (the first prompt), the prompt, and the fake's echo.
    let fields: Vec<SearchField> = h.matches.iter().map(|m| m.field).collect();
    assert_eq!(
        fields,
        [
            SearchField::Title,
            SearchField::User,
            SearchField::Assistant
        ]
    );
    check_entries(&mut c, h).await;
    assert!(
        search(&mut c, ask("narwhal"))
            .await
            .unwrap()
            .hits
            .is_empty()
    );

    // The chat's next turn: searchable once its chat:complete was delivered.
    let sent = Box::pin(c.send_turn("", Some(&sid), "now about narwhals")).await;
    let frames = Box::pin(c.frames_until_complete(&sent.session_id)).await;
    assert!(complete_of(&frames).success);
    let r = search(&mut c, ask("narwh")).await.unwrap();
    assert_eq!(r.hits.len(), 1, "the new turn, at once: {r:#?}");
    let h = hit(&r, &sid);
    let entries: Vec<u32> = h.matches.iter().filter_map(|m| m.entry).collect();
    let t = transcript(&mut c, &sid).await;
    assert_eq!(entries.len(), 2, "{h:#?}");
    assert!(
        entries
            .iter()
            .all(|&e| e as usize >= 2 && (e as usize) < t.entries.len())
    );
    check_entries(&mut c, h).await;
    // Both turns: a chat matches with its words anywhere in it.
    let r = search(&mut c, ask("walrus narwhal")).await.unwrap();
    assert_eq!(ids(&r), [sid.as_str()]);
    d.stop().await.unwrap();
}

/// The words of generated chat `n`: its own marker, and the phrase every 7th chat has.
fn generated(sid: &str, cwd: &str, n: usize, at: chrono::DateTime<chrono::Utc>) -> String {
    let phrase = if n.is_multiple_of(7) {
        "the needle haystack case"
    } else {
        "a haystack needle case"
    };
    terminal_transcript(
        sid,
        cwd,
        &format!("Generated chat {n}: look at the parser"),
        &[
            json!(format!("Working on it: {phrase}, marker gen{n}marker.")),
            json!({"tool": "Bash", "input": {"command": format!("cargo test -p gen{n}tool")},
                "output": "test result: ok. 12 passed"}),
            json!("Done."),
        ],
        at,
    )
}

/// The session id of generated chat `n`.
fn generated_sid(n: usize) -> String {
    format!("{n:08x}-0000-4000-8000-{:012x}", n * 7919)
}

/// A daemon on `data` with a project "gen" for generated chats: the daemon, a client, the
/// project and its transcripts folder.
async fn generated_project(data: &Path) -> (TestDaemon, RawClient, ProjectInfo, PathBuf) {
    let d = TestDaemon::start_with(on_data_dir(data)).await;
    let mut c = client(&d).await;
    let project = create_project(&mut c, "gen").await;
    let folder = transcripts_folder(&d, &project.path);
    (d, c, project, folder)
}

#[tokio::test]
async fn search_over_generated_chats_indexed_at_start_and_as_they_appear() {
    const AT_START: usize = 300;
    const LATER: usize = 60;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().to_path_buf();
    let (d, _, project, folder) = generated_project(&data).await;
    d.stop().await.unwrap();

    // Generated while the daemon is down: the search index is built from them at start.
    let base = chrono::Utc::now() - chrono::Duration::days(30);
    let sid = generated_sid;
    for n in 0..AT_START {
        let at = base + chrono::Duration::minutes(n as i64);
        write_chat(&folder, &sid(n), &generated(&sid(n), &project.path, n, at));
    }
    let d = TestDaemon::start_with(on_data_dir(&data)).await;
    let mut c = client(&d).await;
    let r = search_until(&mut c, ask("gen123marker"), "the build", |r| {
        r.indexing.is_none() && !r.hits.is_empty()
    })
    .await;
    assert_eq!(ids(&r), [sid(123).as_str()]);
    let m = &r.hits[0].matches[0];
    assert_eq!((m.field, m.entry), (SearchField::Assistant, Some(1)));
    check_entries(&mut c, &r.hits[0]).await;
    let r = search(&mut c, ask("gen45to")).await.unwrap();
    assert_eq!(ids(&r), [sid(45).as_str()]);
    assert_eq!(r.hits[0].matches[0].field, SearchField::ToolUse);

    // A phrase: every 7th chat, newest first, all counted.
    let mut q = ask(r#""needle haystack""#);
    q.limit = Some(500);
    let r = search(&mut c, q).await.unwrap();
    let want: Vec<String> = (0..AT_START)
        .rev()
        .filter(|n| n.is_multiple_of(7))
        .map(sid)
        .collect();
    assert_eq!(ids(&r), want.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.total as usize, want.len());
    // Words: every chat, the first 50 listed.
    let r = search(&mut c, ask("haystack needle parser")).await.unwrap();
    assert_eq!((r.hits.len(), r.total as usize), (50, AT_START));
    assert_eq!(r.hits[0].session_id, sid(AT_START - 1));

    // Generated while it runs: followed as they appear.
    for n in AT_START..AT_START + LATER {
        let at = base + chrono::Duration::minutes(n as i64);
        write_chat(&folder, &sid(n), &generated(&sid(n), &project.path, n, at));
    }
    let mut q = ask("haystack");
    q.limit = Some(500);
    search_until(&mut c, q, "the later chats", |r| {
        r.total as usize == AT_START + LATER
    })
    .await;
    let last = AT_START + LATER - 1;
    let r = search(&mut c, ask(&format!("gen{last}marker")))
        .await
        .unwrap();
    assert_eq!(ids(&r), [sid(last).as_str()]);
    // One grows: its new line is found.
    append(
        &folder.join(format!("{}.jsonl", sid(7))),
        &format!(
            "{}\n",
            json!({"type": "user", "uuid": uuid::Uuid::new_v4().to_string(),
                "timestamp": ts(chrono::Utc::now()), "sessionId": sid(7),
                "message": {"role": "user", "content": "and the zeppelin?"}})
        ),
    );
    let r = search_until(&mut c, ask("zeppelin"), "the appended line", |r| {
        r.hits.len() == 1
    })
    .await;
    assert_eq!(ids(&r), [sid(7).as_str()]);
    check_entries(&mut c, &r.hits[0]).await;
    d.stop().await.unwrap();
}

/// Issue 38: the index is persisted in the data dir. A restart opens it as committed, so the
/// first search after it is complete at once (no rebuild, no `indexing`); one that cannot be
/// used is moved aside and built again, and searches then find everything again.
#[tokio::test]
async fn a_restart_answers_at_once_and_a_corrupt_index_is_built_again() {
    const CHATS: usize = 40;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().to_path_buf();
    let (d, mut c, project, folder) = generated_project(&data).await;
    let base = chrono::Utc::now() - chrono::Duration::days(3);
    let sid = generated_sid;
    for n in 0..CHATS {
        let at = base + chrono::Duration::minutes(n as i64);
        write_chat(&folder, &sid(n), &generated(&sid(n), &project.path, n, at));
    }
    let mut every = ask("haystack");
    every.limit = Some(500);
    search_until(&mut c, every.clone(), "every chat indexed", |r| {
        r.indexing.is_none() && r.total as usize == CHATS
    })
    .await;
    d.stop().await.unwrap();
    let index = data.join("state").join("search");
    assert!(index.join("meta.json").is_file(), "the index is on disk");

    // The first request after the restart is the search: complete, nothing rebuilt.
    let d = TestDaemon::start_with(on_data_dir(&data)).await;
    let mut c = client(&d).await;
    let r = search(&mut c, every.clone()).await.unwrap();
    assert!(r.indexing.is_none(), "{r:#?}");
    assert_eq!(r.total as usize, CHATS);
    let r = search(&mut c, ask(r#""needle haystack""#)).await.unwrap();
    assert_eq!(
        r.total as usize,
        CHATS.div_ceil(7),
        "a phrase, from positions"
    );
    assert!(!data.join("state").join("search.broken").exists());
    d.stop().await.unwrap();

    // A torn meta.json: moved aside, built again, everything found again.
    std::fs::write(index.join("meta.json"), b"{\"segments\": [").unwrap();
    let d = TestDaemon::start_with(on_data_dir(&data)).await;
    let mut c = client(&d).await;
    search_until(&mut c, every, "the index built again", |r| {
        r.indexing.is_none() && r.total as usize == CHATS
    })
    .await;
    assert!(data.join("state").join("search.broken").exists());
    let r = search(&mut c, ask("gen17marker")).await.unwrap();
    assert_eq!(ids(&r), [sid(17).as_str()]);
    d.stop().await.unwrap();
}
