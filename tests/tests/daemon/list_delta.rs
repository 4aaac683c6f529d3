//! `chat:list` with `since` over the real socket: a client that keeps its list by deltas holds
//! exactly the full list after any sequence of changes (a property test over random chat-list
//! actions and turns of the fake `claude`), and a `since` the daemon cannot answer gets the
//! full list.

use paddock_proto::{
    ChatAction, ChatFork, ChatList, ChatScope, ChatSummary, ChatUpdate, Chats, ProjectCreate,
    Reply, Request, SessionIds,
};

use crate::harness::*;

/// xorshift64*: a fixed, printed seed makes a failing sequence reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n.max(1) as u64)).unwrap_or(0)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        items.get(self.below(items.len()))
    }
}

async fn req(c: &mut RawClient, request: Request) -> Reply {
    Box::pin(c.request(request))
        .await
        .unwrap_or_else(|e| panic!("request failed: {e:?}"))
}

async fn ask(c: &mut RawClient, project: &str, scope: ChatScope, since: Option<u64>) -> Chats {
    match req(
        c,
        Request::ChatList(ChatList {
            project_slug: Some(project.into()),
            scope,
            since,
            full_titles: false,
        }),
    )
    .await
    {
        Reply::Chats(chats) => chats,
        other => panic!("expected chats, got {other:?}"),
    }
}

/// A project in the data directory (built from JSON: the request's optional fields stay
/// defaulted whatever they are).
async fn create_project(c: &mut RawClient, slug: &str) {
    let create: ProjectCreate =
        serde_json::from_value(serde_json::json!({ "slug": slug })).expect("a project:create");
    req(c, Request::ProjectCreate(create)).await;
}

async fn update(c: &mut RawClient, sid: &str, action: ChatAction) {
    req(
        c,
        Request::ChatUpdate(ChatUpdate {
            session_ids: vec![sid.to_owned()],
            action,
        }),
    )
    .await;
}

/// A turn of the fake `claude` (a new chat when `session` is `None`), to its end.
async fn turn(c: &mut RawClient, project: &str, session: Option<&str>, text: &str) -> String {
    let sent = Box::pin(c.send_turn(project, session, text)).await;
    let frames = Box::pin(c.frames_until_complete(&sent.session_id)).await;
    assert!(complete_of(&frames).success, "turn failed: {frames:#?}");
    sent.session_id
}

/// A client's copy of one listing, kept by deltas.
#[derive(Debug, Clone)]
struct Held {
    scope: ChatScope,
    rows: Vec<ChatSummary>,
    revision: Option<u64>,
}

/// Rows sent in deltas and in the full lists they were checked against.
#[derive(Debug, Default)]
struct Sent {
    delta_rows: usize,
    full_rows: usize,
    checks: usize,
}

impl Held {
    async fn new(c: &mut RawClient, project: &str, scope: ChatScope) -> Self {
        let full = ask(c, project, scope, None).await;
        assert!(!full.delta);
        assert!(full.revision.is_some(), "every answer carries its revision");
        Self {
            scope,
            rows: full.chats,
            revision: full.revision,
        }
    }

    /// Brings the copy up to date with a delta, then checks it against a full list of the
    /// same revision (asked again, from the new revision, while the listing moves between the
    /// two requests).
    async fn check(&mut self, c: &mut RawClient, project: &str, what: &str, sent: &mut Sent) {
        let deadline = tokio::time::Instant::now() + DEADLINE;
        loop {
            let answer = ask(c, project, self.scope, self.revision).await;
            assert!(
                answer.delta,
                "{what}: a revision the listing issued gets a delta"
            );
            assert!(
                answer.revision >= self.revision,
                "{what}: revisions only grow"
            );
            let changed = answer.chats.len();
            let revision = answer.revision;
            self.rows = answer.apply_to(&self.rows).unwrap_or_else(|| {
                panic!("{what}: the delta does not fit the list it was asked against")
            });
            self.revision = revision;
            let full = ask(c, project, self.scope, None).await;
            assert!(!full.delta, "{what}: no since, the full list");
            if full.revision == revision {
                assert_eq!(
                    self.rows, full.chats,
                    "{what} ({:?}): the list kept by deltas is not the full list",
                    self.scope
                );
                sent.delta_rows += changed;
                sent.full_rows += full.chats.len();
                sent.checks += 1;
                // Nothing changed since: an empty delta.
                let again = ask(c, project, self.scope, self.revision).await;
                if again.revision == self.revision {
                    assert!(again.delta && again.chats.is_empty() && again.removed.is_empty());
                }
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{what}: the listing did not settle before the deadline"
            );
        }
    }
}

#[tokio::test]
async fn a_list_kept_by_deltas_is_the_full_list_after_any_changes() {
    let seed: u64 = std::env::var("DELTA_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x005e_ed11_57de_17a5);
    eprintln!("DELTA_SEED={seed}");
    let mut rng = Rng(seed | 1);
    let d = TestDaemon::start().await;
    let mut c = Box::pin(d.client()).await;
    let project = "deltas";
    create_project(&mut c, project).await;
    for i in 0..3 {
        turn(&mut c, project, None, &format!("root chat {i}")).await;
    }
    let mut active = Held::new(&mut c, project, ChatScope::Active).await;
    let mut all = Held::new(&mut c, project, ChatScope::All).await;
    // A copy left behind for a while: one delta over many changes.
    let mut behind = active.clone();
    let mut sent = Sent::default();
    const STEPS: usize = 36;
    for step in 0..STEPS {
        let ids: Vec<String> = all.rows.iter().map(|r| r.session_id.clone()).collect();
        let Some(sid) = rng.pick(&ids).cloned() else {
            turn(&mut c, project, None, "a root chat again").await;
            all.check(&mut c, project, "refill", &mut sent).await;
            continue;
        };
        let row = all
            .rows
            .iter()
            .find(|r| r.session_id == sid)
            .cloned()
            .unwrap_or_default();
        let what = match rng.below(10) {
            0 | 1 => {
                let reply = req(
                    &mut c,
                    Request::ChatFork(ChatFork {
                        session_id: sid.clone(),
                        name: Some(format!("fork {step}")),
                    }),
                )
                .await;
                assert!(matches!(reply, Reply::Forked(_)), "{reply:?}");
                "fork (a new child)"
            }
            2 => {
                let action = if row.archived {
                    ChatAction::Unarchive
                } else {
                    ChatAction::Archive
                };
                update(&mut c, &sid, action).await;
                "archive / unarchive"
            }
            3 => {
                let action = if row.starred {
                    ChatAction::Unstar
                } else {
                    ChatAction::Star
                };
                update(&mut c, &sid, action).await;
                "star / unstar"
            }
            4 | 5 => {
                // Re-parenting: the chat's level and its parent's children change.
                let with_parent: Vec<&ChatSummary> = all
                    .rows
                    .iter()
                    .filter(|r| r.parent_session_id.is_some())
                    .collect();
                match rng.pick(&with_parent) {
                    Some(child) => {
                        let action = if child.detached {
                            ChatAction::Attach
                        } else {
                            ChatAction::Detach
                        };
                        let child = child.session_id.clone();
                        update(&mut c, &child, action).await;
                        "detach / attach"
                    }
                    None => {
                        update(&mut c, &sid, ChatAction::Detach).await;
                        "detach a root"
                    }
                }
            }
            6 => {
                let action = if row.unread {
                    ChatAction::Read
                } else {
                    ChatAction::Unread
                };
                update(&mut c, &sid, action).await;
                "read / unread"
            }
            7 if ids.len() > 2 => {
                // Its forks become roots (their level changes).
                req(
                    &mut c,
                    Request::ChatDelete(SessionIds {
                        session_ids: vec![sid.clone()],
                    }),
                )
                .await;
                "delete"
            }
            8 => {
                turn(&mut c, project, Some(&sid), &format!("more work {step}")).await;
                "a turn of an existing chat"
            }
            _ => {
                turn(&mut c, project, None, &format!("a new chat {step}")).await;
                "a new chat"
            }
        };
        let what = format!("step {step}: {what} (seed {seed})");
        active.check(&mut c, project, &what, &mut sent).await;
        all.check(&mut c, project, &what, &mut sent).await;
        if step % 6 == 5 {
            behind
                .check(
                    &mut c,
                    project,
                    &format!("{what}, over six steps"),
                    &mut sent,
                )
                .await;
        }
    }
    eprintln!("{sent:?}");
    assert!(sent.checks >= 2 * STEPS);
    assert!(sent.delta_rows < sent.full_rows, "{sent:?}");
    // One root starred moves with its subtree: in the delta, only the rows whose predecessor
    // changed (it, the row after its old place, the row it now comes before).
    let mut roots: Vec<ChatSummary> = all
        .rows
        .iter()
        .skip(1)
        .filter(|r| r.level == 0 && !r.starred)
        .cloned()
        .collect();
    roots.truncate(1);
    if let Some(root) = roots.first() {
        update(&mut c, &root.session_id, ChatAction::Star).await;
        let answer = ask(&mut c, project, ChatScope::All, all.revision).await;
        assert!(answer.delta);
        assert!(
            answer.chats.len() <= 3 && answer.removed.is_empty(),
            "one chat starred: {answer:#?}"
        );
        let rows = answer.apply_to(&all.rows).expect("the delta fits");
        assert!(
            rows.iter()
                .any(|r| r.session_id == root.session_id && r.starred)
        );
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_since_the_daemon_cannot_answer_gets_the_full_list() {
    let d = TestDaemon::start().await;
    let mut c = Box::pin(d.client()).await;
    for slug in ["one", "two"] {
        create_project(&mut c, slug).await;
    }
    turn(&mut c, "one", None, "first").await;
    turn(&mut c, "one", None, "second").await;
    turn(&mut c, "two", None, "elsewhere").await;

    let full = ask(&mut c, "one", ChatScope::Active, None).await;
    let revision = full.revision.expect("a revision");
    assert!(!full.delta && full.removed.is_empty() && full.after.is_empty());
    assert_eq!(full.chats.len(), 2);
    let is_full = |answer: &Chats| {
        !answer.delta
            && answer.chats.len() == 2
            && answer.removed.is_empty()
            && answer.after.is_empty()
            && answer.revision.is_some()
    };
    // Unknown, from the future, and from before this listing existed.
    for since in [7, revision + 1, revision - 1] {
        let answer = ask(&mut c, "one", ChatScope::Active, Some(since)).await;
        assert!(is_full(&answer), "since {since}: {answer:?}");
    }
    // Another listing's revisions: another project, another scope.
    let two = ask(&mut c, "two", ChatScope::Active, None).await;
    let answer = ask(&mut c, "one", ChatScope::Active, two.revision).await;
    assert!(is_full(&answer), "{answer:?}");
    let everything = ask(&mut c, "one", ChatScope::All, None).await;
    let answer = ask(&mut c, "one", ChatScope::Active, everything.revision).await;
    assert!(is_full(&answer), "{answer:?}");
    // Its own revision: a delta (empty while nothing changed).
    let answer = ask(&mut c, "one", ChatScope::Active, Some(revision)).await;
    assert!(answer.delta, "{answer:?}");
    if answer.revision == Some(revision) {
        assert!(
            answer.chats.is_empty() && answer.removed.is_empty(),
            "{answer:?}"
        );
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_revision_of_an_earlier_daemon_run_gets_the_full_list() {
    let keep = tempfile::tempdir().unwrap();
    let data = keep.path().join("data");
    let d = TestDaemon::start_with(on_data_dir(&data)).await;
    let mut c = Box::pin(d.client()).await;
    turn(&mut c, "", None, "before the restart").await;
    let before = ask(&mut c, "", ChatScope::Active, None).await;
    assert_eq!(before.chats.len(), 1);
    drop(c);
    d.stop().await.unwrap();

    let d = TestDaemon::start_with(on_data_dir(&data)).await;
    let mut c = Box::pin(d.client()).await;
    // Chat requests wait for the start-up indexing: the chat is listed at once.
    let after = ask(&mut c, "", ChatScope::Active, before.revision).await;
    assert!(
        !after.delta,
        "a revision of another run is never answered: {after:?}"
    );
    assert_eq!(after.chats.len(), 1);
    assert!(after.revision > before.revision, "{after:?} {before:?}");
    d.stop().await.unwrap();
}

/// Asks `since` again and again (never the full list, which would move the listing on) until
/// the delta shows `sid`'s row as `shows` wants; returns the delta's revision. A listing that
/// wrongly answered "nothing changed" would never show it, and the deadline fails the test.
async fn delta_until(
    c: &mut RawClient,
    since: u64,
    sid: &str,
    what: &str,
    shows: impl Fn(&ChatSummary) -> bool,
) -> u64 {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let answer = ask(c, "one", ChatScope::Active, Some(since)).await;
        assert!(
            answer.delta,
            "{what}: a revision the listing issued gets a delta"
        );
        if answer
            .chats
            .iter()
            .any(|row| row.session_id == sid && shows(row))
        {
            return answer.revision.expect("a revision");
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: the delta since {since} never showed it: {answer:?}"
        );
        tokio::task::yield_now().await;
    }
}

/// Waits until the run log holds every run's end (it is written just after the turn's end
/// reaches the client), so that what changes next is the only change.
async fn runs_written(c: &mut RawClient) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let reply = req(
            c,
            Request::HistoryList(paddock_proto::HistoryList {
                project_slug: None,
                unattended: false,
                limit: None,
            }),
        )
        .await;
        let Reply::History(history) = reply else {
            panic!("history: {reply:?}");
        };
        if history
            .runs
            .iter()
            .all(|r| r.status != paddock_proto::RunStatus::Running)
        {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the run log never wrote the runs' ends: {history:?}"
        );
        tokio::task::yield_now().await;
    }
}

/// Follows the listing from `since` until it is at rest: two answers in a row say nothing
/// changed (the second from the inputs the first was built from). A turn's transcript may
/// still be written after its end, so the listing can move on a little first. Returns the
/// revision it rests at.
async fn at_rest(c: &mut RawClient, mut since: u64, what: &str) -> u64 {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    let mut quiet = 0;
    while quiet < 2 {
        let answer = ask(c, "one", ChatScope::Active, Some(since)).await;
        assert!(
            answer.delta,
            "{what}: a revision the listing issued gets a delta"
        );
        let revision = answer.revision.expect("a revision");
        if revision == since && answer.chats.is_empty() && answer.removed.is_empty() {
            quiet += 1;
        } else {
            quiet = 0;
            since = revision;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: the listing never came to rest: {answer:?}"
        );
    }
    since
}

#[tokio::test]
async fn nothing_changed_holds_only_until_a_turn_or_a_queued_message_changes_a_row() {
    let d = TestDaemon::start().await;
    let mut c = Box::pin(d.client()).await;
    create_project(&mut c, "one").await;
    let first = turn(&mut c, "one", None, "first").await;
    // The turn's end settles after it reaches the client (the run log, the hub's running
    // set): wait for all of it, so that what changes next is the only change.
    runs_written(&mut c).await;
    let deadline = tokio::time::Instant::now() + DEADLINE;
    let full = loop {
        let full = ask(&mut c, "one", ChatScope::Active, None).await;
        if full.chats.iter().all(|r| !r.running) {
            break full;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the turn never ended: {full:?}"
        );
        tokio::task::yield_now().await;
    };
    let at = full.revision.expect("a revision");
    let count = |rows: &[ChatSummary]| {
        rows.iter()
            .find(|r| r.session_id == first)
            .map(|r| r.message_count)
    };
    let before = count(&full.chats).expect("the first chat is listed");
    let at = at_rest(&mut c, at, "after the first turn").await;

    // One store changes, and nothing else: the chat is starred.
    update(&mut c, &first, ChatAction::Star).await;
    let at = delta_until(&mut c, at, &first, "a chat starred", |r| r.starred).await;
    let at = at_rest(&mut c, at, "with the chat starred").await;

    // What the hub knows changes: a turn starts and streams.
    let hanging = Box::pin(c.send_hanging_turn("one", "hang"))
        .await
        .session_id;
    let at = delta_until(&mut c, at, &hanging, "a turn started", |r| r.running).await;

    // A follow-up is queued on the running chat.
    let queued = req(
        &mut c,
        Request::ChatSetQueue(paddock_proto::ChatSetQueue {
            session_id: hanging.clone(),
            message: Some("next".into()),
        }),
    )
    .await;
    assert!(matches!(queued, Reply::Ack), "{queued:?}");
    let at = delta_until(&mut c, at, &hanging, "a message queued", |r| {
        r.queued.as_deref() == Some("next")
    })
    .await;

    // The index and the run log change: another turn of the first chat ends.
    let _ = Box::pin(c.send_turn("one", Some(&first), "again")).await;
    let _ = Box::pin(c.frames_until_complete(&first)).await;
    let at = delta_until(&mut c, at, &first, "a turn ended", |r| {
        r.message_count > before && !r.running
    })
    .await;
    let _ = at;
    d.stop().await.unwrap();
}
