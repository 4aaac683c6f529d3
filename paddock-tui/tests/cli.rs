//! The `paddock` binary against a fake daemon: what scripts rely on — stdout, stderr, exit
//! status — for listings, a streamed turn, and failures.

mod support;

use std::process::Output;

use paddock_proto::{
    ChatAction, ChatEvent, ChatFork, ChatImport, ChatList, ChatScope, ChatSummary, ChatUpdate,
    Chats, Complete, ErrorBody, ErrorCode, Fired, Forked, History, HistoryList, HookEvent,
    HubFrame, ImportSkip, Imported, MessageBoundary, MissedPolicy, Notice, NoticeKind, Origin,
    Reply, Request, Routing, RunStatus, RunSummary, Sent, SessionIds, SessionPolicy, SessionRef,
    Subscribed, TextDelta, ToolCall, ToolStart, Transcript, TriggerFire, TriggerInfo, TriggerKind,
    TriggerList, TriggerRef, TriggerSpec, Triggers, Updated, UserTurn,
};
use support::{DEADLINE, FakeDaemon, TestResult};

/// Runs `paddock ARGS` on the fake's socket; it can never start a real daemon.
async fn paddock(daemon: &FakeDaemon, args: &[&str]) -> TestResult<Output> {
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_paddock"))
        .arg("--socket")
        .arg(&daemon.socket)
        .args(args)
        .env("PADDOCK_DAEMON_BIN", "/nonexistent/paddockd")
        .stdin(std::process::Stdio::null())
        .output();
    Ok(tokio::time::timeout(DEADLINE, run).await??)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn summary(id: &str, title: &str) -> ChatSummary {
    ChatSummary {
        session_id: id.into(),
        project_slug: String::new(),
        title: title.into(),
        origin: Origin::Human,
        depth: 0,
        parent_session_id: None,
        parent_project: None,
        created_at: None,
        updated_at: None,
        model: None,
        message_count: 2,
        running: true,
        unread: false,
        archived: false,
        starred: false,
        ..ChatSummary::default()
    }
}

#[tokio::test]
async fn ls_json_is_the_array_of_chats_of_the_root_workspace() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let chats = vec![summary("s-1", "First"), summary("s-2", "Second")];
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        // No -p means the root workspace, whose key is "" (not "every project").
        assert_eq!(
            msg.request,
            Request::ChatList(ChatList {
                project_slug: Some(String::new()),
                scope: ChatScope::Active,
                since: None,
                full_titles: false,
            })
        );
        conn.reply(
            msg.id,
            Reply::Chats(Chats {
                chats: chats.clone(),
                ..Chats::default()
            }),
        )
        .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &["ls", "--json"]), fake);
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed: Vec<ChatSummary> = serde_json::from_slice(&out.stdout)?;
    assert_eq!(printed, chats);
    Ok(())
}

fn frame(seq: u64, event: ChatEvent) -> HubFrame {
    HubFrame {
        routing: Routing {
            project_slug: "web".into(),
            session_id: "s-new".into(),
            job_id: "j-1".into(),
            seq,
        },
        event,
    }
}

#[tokio::test]
async fn send_streams_the_reply_and_fails_with_the_turn() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        let Request::ChatSend(send) = &msg.request else {
            return Err(format!("expected chat:send, got {msg:?}").into());
        };
        assert_eq!(send.project_slug, "web");
        assert_eq!(send.message, "fix it please");
        assert_eq!(send.session_id, None);
        conn.reply(
            msg.id,
            Reply::Sent(Sent {
                project_slug: "web".into(),
                session_id: "s-new".into(),
                job_id: "j-1".into(),
                queued: false,
            }),
        )
        .await?;
        let frames = [
            ChatEvent::User(UserTurn {
                message_id: None,
                text: "fix it please".into(),
                attribution: None,
            }),
            ChatEvent::Response(TextDelta {
                text: "On it".into(),
            }),
            ChatEvent::Response(TextDelta { text: ".".into() }),
            ChatEvent::ToolStart(ToolStart {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: serde_json::json!({"command": "make"}),
            }),
            ChatEvent::MessageBoundary(MessageBoundary { message_id: None }),
            ChatEvent::ToolCall(ToolCall {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: serde_json::json!({"command": "make"}),
                output: "ok".into(),
                is_error: false,
                detail: None,
            }),
            ChatEvent::Notice(Notice {
                kind: NoticeKind::ApiError,
                message: "The API is overloaded.".into(),
            }),
            ChatEvent::Complete(Complete {
                success: false,
                ended: None,
                error: None,
                model: None,
                usage: None,
                cost_usd: None,
                duration_ms: None,
                terminal_reason: Some("api_error".into()),
            }),
        ];
        for (seq, event) in (1..).zip(frames) {
            conn.push_frame(frame(seq, event)).await?;
        }
        // The user watched the reply: the chat is marked read.
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatUpdate(ChatUpdate {
                session_ids: vec!["s-new".into()],
                action: ChatAction::Read,
            })
        );
        conn.reply(
            msg.id,
            Reply::Updated(Updated {
                changed: 1,
                notes: Vec::new(),
            }),
        )
        .await?;
        TestResult::Ok(conn)
    };
    let (out, fake) = tokio::join!(
        paddock(&daemon, &["send", "-p", "web", "fix", "it", "please"]),
        fake
    );
    let _conn = fake?;
    let out = out?;
    assert_eq!(text(&out.stdout), "On it.\n");
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("session: s-new\n"), "{stderr}");
    assert!(stderr.contains("  → Bash: make\n"), "{stderr}");
    assert!(
        stderr.ends_with("paddock: the turn failed: The API is overloaded.\n"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1));
    Ok(())
}

/// A finished turn's frames for `paddock tail`: the user's message, a reply, its end.
fn finished_turn(session: &str, job: &str, first_seq: u64, reply: &str) -> Vec<HubFrame> {
    let events = [
        ChatEvent::User(UserTurn {
            message_id: None,
            text: "go".into(),
            attribution: None,
        }),
        ChatEvent::Response(TextDelta { text: reply.into() }),
        ChatEvent::Complete(Complete {
            success: true,
            ended: None,
            error: None,
            model: None,
            usage: None,
            cost_usd: None,
            duration_ms: None,
            terminal_reason: None,
        }),
    ];
    (first_seq..)
        .zip(events)
        .map(|(seq, event)| HubFrame {
            routing: Routing {
                project_slug: String::new(),
                session_id: session.into(),
                job_id: job.into(),
                seq,
            },
            event,
        })
        .collect()
}

/// Answers `tail`'s chat:subscribe: nothing running, `replayed` frames of replay to follow.
async fn answer_subscribe(conn: &mut support::FakeConn, replayed: u64) -> TestResult {
    let msg = conn.recv().await?;
    let Request::ChatSubscribe(sub) = &msg.request else {
        return Err(format!("expected chat:subscribe, got {msg:?}").into());
    };
    assert!(sub.want_replay);
    conn.reply(
        msg.id,
        Reply::Subscribed(Subscribed {
            session_id: sub.session_id.clone(),
            running: false,
            job_id: None,
            replayed,
            next_seq: replayed + 1,
        }),
    )
    .await
}

/// Answers the session-id look-up every command taking a SESSION makes first (one
/// chat:resolve of its arguments, on a connection of its own) as a daemon holding `chats` would.
async fn answer_lookup(daemon: &FakeDaemon, chats: Vec<ChatSummary>) -> TestResult {
    let mut conn = daemon.accept_hello().await?;
    let msg = conn.recv().await?;
    let Request::ChatResolve(r) = &msg.request else {
        return Err(format!("expected chat:resolve, got {msg:?}").into());
    };
    let prefixes = r
        .prefixes
        .iter()
        .map(|p| paddock_proto::ResolvedPrefix {
            prefix: p.clone(),
            chats: chats
                .iter()
                .filter(|c| {
                    c.session_id
                        .to_ascii_lowercase()
                        .starts_with(&p.to_ascii_lowercase())
                })
                .map(|c| paddock_proto::ResolvedChat {
                    session_id: c.session_id.clone(),
                    project_slug: c.project_slug.clone(),
                    title: c.title.clone(),
                })
                .collect(),
            more: 0,
        })
        .collect();
    conn.reply(
        msg.id,
        Reply::Resolved(paddock_proto::Resolved { prefixes }),
    )
    .await
}

/// Answers `tail`'s chat:list with `session`, idle.
async fn answer_idle_listing(conn: &mut support::FakeConn, session: &str) -> TestResult {
    let msg = conn.recv().await?;
    if !matches!(msg.request, Request::ChatList(_)) {
        return Err(format!("expected chat:list, got {msg:?}").into());
    }
    let mut idle = summary(session, "Idle");
    idle.running = false;
    conn.reply(
        msg.id,
        Reply::Chats(Chats {
            chats: vec![idle],
            ..Chats::default()
        }),
    )
    .await
}

#[tokio::test]
async fn tail_of_an_idle_chat_says_so_and_succeeds() -> TestResult {
    // The default, and --no-wait (kept for older scripts), are the same.
    for args in [
        &["tail", "sess-1"][..],
        &["tail", "--no-wait", "sess-1"][..],
    ] {
        let daemon = FakeDaemon::bind()?;
        let fake = async {
            answer_lookup(&daemon, vec![summary("sess-1", "")]).await?;
            let mut conn = daemon.accept_hello().await?;
            answer_subscribe(&mut conn, 0).await?;
            answer_idle_listing(&mut conn, "sess-1").await?;
            TestResult::Ok(conn)
        };
        let (out, fake) = tokio::join!(paddock(&daemon, args), fake);
        let _conn = fake?;
        let out = out?;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), "");
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with("nothing is running in sess-1"),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    Ok(())
}

#[tokio::test]
async fn tail_replays_a_turn_that_just_ended_to_its_end() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        answer_lookup(&daemon, vec![summary("sess-1", "")]).await?;
        let mut conn = daemon.accept_hello().await?;
        answer_subscribe(&mut conn, 3).await?;
        for f in finished_turn("sess-1", "j-1", 1, "all done") {
            conn.push_frame(f).await?;
        }
        TestResult::Ok(conn)
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &["tail", "sess-1"]), fake);
    let _conn = fake?;
    let out = out?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "> go\n\nall done\n");
    Ok(())
}

#[tokio::test]
async fn tail_wait_follows_the_next_turn() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        answer_lookup(&daemon, vec![summary("sess-1", "")]).await?;
        let mut conn = daemon.accept_hello().await?;
        answer_subscribe(&mut conn, 0).await?;
        answer_idle_listing(&mut conn, "sess-1").await?;
        for f in finished_turn("sess-1", "j-2", 1, "next turn") {
            conn.push_frame(f).await?;
        }
        TestResult::Ok(conn)
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &["tail", "--wait", "sess-1"]), fake);
    let _conn = fake?;
    let out = out?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "> go\n\nnext turn\n");
    assert!(
        text(&out.stderr).starts_with("waiting for the next turn of sess-1"),
        "{}",
        text(&out.stderr)
    );
    Ok(())
}

#[tokio::test]
async fn a_refused_request_is_one_line_on_stderr_and_a_failure() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        answer_lookup(&daemon, vec![summary("sess-9", "")]).await?;
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatTranscript(SessionRef {
                session_id: "sess-9".into()
            })
        );
        conn.refuse(
            msg.id,
            ErrorBody::new(ErrorCode::NotFound, "There is no chat sess-9."),
        )
        .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &["show", "sess-9"]), fake);
    fake?;
    let out = out?;
    assert_eq!(text(&out.stderr), "paddock: There is no chat sess-9.\n");
    assert!(out.stdout.is_empty());
    assert_eq!(out.status.code(), Some(1));
    Ok(())
}

#[tokio::test]
async fn status_of_no_daemon_fails_without_starting_one() -> TestResult {
    let dir = tempfile::tempdir()?;
    let socket = dir.path().join("none.sock");
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_paddock"))
        .arg("daemon")
        .arg("status")
        .env("PADDOCK_SOCKET", &socket)
        .env("PADDOCK_DAEMON_BIN", "/nonexistent/paddockd")
        .output();
    let out = tokio::time::timeout(DEADLINE, out).await??;
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("paddock: paddockd is not running on "),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    Ok(())
}

#[tokio::test]
async fn doctor_json_is_one_object_and_fails_like_the_report() -> TestResult {
    let dir = tempfile::tempdir()?;
    // With no daemon running, doctor asks `paddockd info` what one would see: here a stand-in
    // reporting a claude that is not there.
    let data = dir.path().join("data");
    let info = serde_json::json!({
        "daemonVersion": "0.1.0", "socket": dir.path().join("none.sock"), "dataDir": data,
        "log": dir.path().join("paddockd.log"), "claudeHome": data.join("claude-home"),
        "claude": {"configured": "/x/no-such-claude", "error": "/x/no-such-claude does not exist",
                   "minVersion": "2.1.197"},
        "credentials": []
    });
    let paddockd = dir.path().join("paddockd");
    std::fs::write(&paddockd, format!("#!/bin/sh\necho '{info}'\n"))?;
    std::fs::set_permissions(
        &paddockd,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )?;
    let doctor = |daemon_bin: &std::path::Path| {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_paddock"))
            .args(["doctor", "--json"])
            .env("PADDOCK_SOCKET", dir.path().join("none.sock"))
            .env("PADDOCK_DAEMON_BIN", daemon_bin)
            .output()
    };
    let out = tokio::time::timeout(DEADLINE, doctor(&paddockd)).await??;
    // claude is required and missing: exit 1, as without --json.
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(report["ok"], serde_json::json!(false), "{report}");
    assert_eq!(report["info"]["claude"]["configured"], "/x/no-such-claude");
    let checks = report["checks"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = checks.iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "daemon",
            "claude",
            "supported",
            "login",
            "data",
            "socket",
            "log",
            "git",
            "tmux"
        ]
    );
    for c in &checks {
        assert!(c["ok"].is_boolean() && c["required"].is_boolean(), "{c}");
        assert!(c["detail"].is_string(), "{c}");
        assert!(c["fix"].is_string() || c["fix"].is_null(), "{c}");
    }
    let claude = &checks[1];
    assert_eq!(claude["ok"], serde_json::json!(false));
    assert!(
        claude["fix"]
            .as_str()
            .is_some_and(|f| f.contains("PADDOCK_CLAUDE_BIN"))
    );
    let daemon = &checks[0];
    assert_eq!(
        (daemon["ok"].as_bool(), daemon["required"].as_bool()),
        (Some(false), Some(false)),
        "no daemon is not fatal: {daemon}"
    );
    assert!(
        !dir.path().join("none.sock").exists(),
        "nothing was started"
    );
    // No paddockd to ask: that is what is missing.
    let out = tokio::time::timeout(
        DEADLINE,
        doctor(std::path::Path::new("/nonexistent/paddockd")),
    )
    .await??;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let checks = report["checks"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = checks.iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(names, ["daemon", "paddockd", "git", "tmux"], "{report}");
    assert!(
        checks[1]["fix"]
            .as_str()
            .is_some_and(|f| f.contains("PADDOCK_DAEMON_BIN")),
        "{report}"
    );
    Ok(())
}

#[tokio::test]
async fn a_usage_mistake_is_one_line() -> TestResult {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_paddock"))
        .args(["ls", "--archived", "--all"])
        .env("PADDOCK_DAEMON_BIN", "/nonexistent/paddockd")
        .output();
    let out = tokio::time::timeout(DEADLINE, out).await??;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "paddock: the argument '--archived' cannot be used with '--all'; see `paddock ls --help`\n"
    );
    Ok(())
}

/// `chat:list` of every chat in every project, archived ones included (what --subtree walks).
fn list_everything() -> Request {
    Request::ChatList(ChatList {
        project_slug: None,
        scope: ChatScope::All,
        since: None,
        full_titles: false,
    })
}

/// m ─ c1 ─ g, m ─ c2 (c2 in another project); o alone.
fn family() -> Vec<ChatSummary> {
    let mut m = summary("sess-m", "Manager");
    m.children = vec!["sess-c1".into(), "sess-c2".into()];
    let mut c1 = summary("sess-c1", "Child one");
    c1.tree_parent = Some("sess-m".into());
    c1.level = 1;
    c1.children = vec!["sess-g".into()];
    let mut g = summary("sess-g", "Grandchild");
    g.tree_parent = Some("sess-c1".into());
    g.level = 2;
    let mut c2 = summary("sess-c2", "Child two");
    c2.project_slug = "web".into();
    c2.tree_parent = Some("sess-m".into());
    c2.level = 1;
    vec![m, c1, g, c2, summary("sess-o", "Other")]
}

#[tokio::test]
async fn archive_subtree_is_one_request_for_the_whole_family() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        answer_lookup(&daemon, family()).await?;
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(msg.request, list_everything());
        conn.reply(
            msg.id,
            Reply::Chats(Chats {
                chats: family(),
                ..Chats::default()
            }),
        )
        .await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatUpdate(ChatUpdate {
                session_ids: vec![
                    "sess-m".into(),
                    "sess-c1".into(),
                    "sess-g".into(),
                    "sess-c2".into()
                ],
                action: ChatAction::Archive,
            })
        );
        // One of them was archived already.
        conn.reply(
            msg.id,
            Reply::Updated(Updated {
                changed: 3,
                notes: Vec::new(),
            }),
        )
        .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(&daemon, &["archive", "--subtree", "sess-m", "sess-g"]),
        fake
    );
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "archived 3 of 4 chats; the other was already archived\n"
    );
    Ok(())
}

#[tokio::test]
async fn star_without_subtree_sends_the_ids_as_given_and_says_when_nothing_changed() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        answer_lookup(&daemon, vec![summary("sess-1", ""), summary("sess-2", "")]).await?;
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatUpdate(ChatUpdate {
                session_ids: vec!["sess-1".into(), "sess-2".into()],
                action: ChatAction::Star,
            })
        );
        conn.reply(
            msg.id,
            Reply::Updated(Updated {
                changed: 0,
                notes: Vec::new(),
            }),
        )
        .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(&daemon, &["star", "sess-1", "sess-2", "sess-1"]),
        fake
    );
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "nothing changed: the 2 chats were already starred\n"
    );
    Ok(())
}

#[tokio::test]
async fn an_unknown_chat_in_a_subtree_changes_nothing() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    // The look-up finds no sess-typo: nothing more is asked, nothing is changed.
    let fake = answer_lookup(&daemon, family());
    let (out, fake) = tokio::join!(
        paddock(&daemon, &["detach", "--subtree", "sess-m", "sess-typo"]),
        fake
    );
    fake?;
    let out = out?;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "paddock: no chat sess-typo in any project; `paddock ls -A` lists every project's chats\n"
    );
    Ok(())
}

#[tokio::test]
async fn too_many_chats_are_refused_before_asking_the_daemon() -> TestResult {
    // Refused before connecting (before the ids are looked up): nothing accepts on this socket.
    let daemon = FakeDaemon::bind()?;
    let ids: Vec<String> = (0..501).map(|i| format!("sess-{i}")).collect();
    let mut args = vec!["unarchive"];
    args.extend(ids.iter().map(String::as_str));
    let out = paddock(&daemon, &args).await?;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "paddock: that is 501 chats; at most 500 can change at once, so nothing was changed; name fewer chats per command\n"
    );
    Ok(())
}

#[tokio::test]
async fn delete_from_a_script_needs_yes() -> TestResult {
    // Refused before connecting: nothing listens on this socket, and nothing is started.
    let daemon = FakeDaemon::bind()?;
    let out = paddock(&daemon, &["delete", "sess-1"]).await?;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "paddock: not deleting without confirmation: stdin is not a terminal; add --yes to delete anyway\n"
    );
    assert!(out.stdout.is_empty());
    Ok(())
}

#[tokio::test]
async fn delete_yes_subtree_deletes_the_family() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        answer_lookup(&daemon, family()).await?;
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(msg.request, list_everything());
        conn.reply(
            msg.id,
            Reply::Chats(Chats {
                chats: family(),
                ..Chats::default()
            }),
        )
        .await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatDelete(SessionIds {
                session_ids: vec!["sess-c1".into(), "sess-g".into()],
            })
        );
        conn.reply(
            msg.id,
            Reply::Updated(Updated {
                changed: 2,
                notes: Vec::new(),
            }),
        )
        .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(&daemon, &["delete", "--yes", "--subtree", "sess-c1"]),
        fake
    );
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "deleted 2 chats\n");
    Ok(())
}

#[tokio::test]
async fn fork_prints_the_new_session_id() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        answer_lookup(&daemon, vec![summary("sess-1", "")]).await?;
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatFork(ChatFork {
                session_id: "sess-1".into(),
                name: Some("Try B".into()),
            })
        );
        conn.reply(
            msg.id,
            Reply::Forked(Forked {
                project_slug: "web".into(),
                session_id: "s-fork".into(),
            }),
        )
        .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(&daemon, &["fork", "sess-1", "--name", "Try B"]),
        fake
    );
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "s-fork\n");
    Ok(())
}

#[tokio::test]
async fn show_marks_the_chat_read_after_printing_it() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        answer_lookup(&daemon, vec![summary("sess-1", "")]).await?;
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        conn.reply(
            msg.id,
            Reply::Transcript(Box::new(Transcript {
                chat: summary("sess-1", "First"),
                entries: Vec::new(),
            })),
        )
        .await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatUpdate(ChatUpdate {
                session_ids: vec!["sess-1".into()],
                action: ChatAction::Read,
            })
        );
        // A daemon that cannot mark it does not fail the command.
        conn.refuse(
            msg.id,
            ErrorBody::new(ErrorCode::Internal, "this request is being built"),
        )
        .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &["show", "sess-1"]), fake);
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("First\n"));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    Ok(())
}

fn history_reply(new_unattended: u32) -> History {
    History {
        runs: vec![RunSummary {
            job_id: "j-1".into(),
            project_slug: String::new(),
            session_id: "sess-1".into(),
            title: "Nightly backup check".into(),
            origin: Origin::Scheduled,
            depth: 0,
            trigger: Some("nightly".into()),
            status: RunStatus::Completed,
            started_at: "2026-11-02T02:00:01Z".into(),
            finished_at: Some("2026-11-02T02:01:37Z".into()),
            cost_usd: Some(0.04),
            prompt: None,
            attribution: None,
            is_new: new_unattended > 0,
            waiting: false,
        }],
        last_seen: Some("2026-11-01T18:30:00Z".into()),
        new_unattended,
        waiting: 0,
    }
}

#[tokio::test]
async fn history_lists_every_project_then_marks_the_runs_seen() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::HistoryList(HistoryList {
                project_slug: None,
                unattended: true,
                limit: Some(20),
            })
        );
        conn.reply(msg.id, Reply::History(history_reply(1))).await?;
        let msg = conn.recv().await?;
        assert_eq!(msg.request, Request::HistorySeen);
        conn.reply(msg.id, Reply::Ack).await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(&daemon, &["history", "--unattended", "--limit", "20"]),
        fake
    );
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(
        lines[0].starts_with("while you were away: 1 unattended run finished since "),
        "{stdout}"
    );
    assert_eq!(lines[1], "");
    assert!(lines[2].starts_with("  WHEN "), "{stdout}");
    assert!(lines[3].starts_with("* "), "{stdout}");
    assert!(
        lines[3].contains(" scheduled  completed  1m 36s  (root)   Nightly backup check"),
        "{stdout}"
    );
    Ok(())
}

#[tokio::test]
async fn history_json_is_the_reply_and_marks_nothing_seen() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::HistoryList(HistoryList {
                project_slug: Some("web".into()),
                unattended: false,
                limit: None,
            })
        );
        conn.reply(msg.id, Reply::History(history_reply(1))).await?;
        // No history:seen (--json; and with -p, neither would the table): the client just goes.
        assert!(conn.recv().await.is_err());
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &["history", "-p", "web", "--json"]), fake);
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed: History = serde_json::from_slice(&out.stdout)?;
    assert_eq!(printed, history_reply(1));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(value["newUnattended"], 1);
    assert_eq!(value["lastSeen"], "2026-11-01T18:30:00Z");
    Ok(())
}

#[tokio::test]
async fn history_of_one_project_does_not_mark_every_project_seen() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        conn.reply(msg.id, Reply::History(history_reply(1))).await?;
        assert!(conn.recv().await.is_err());
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &["history", "-p", ""]), fake);
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("while you were away: "));
    Ok(())
}

#[tokio::test]
async fn history_keep_unseen_leaves_the_watermark() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        conn.reply(msg.id, Reply::History(history_reply(0))).await?;
        assert!(conn.recv().await.is_err());
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &["history", "--keep-unseen"]), fake);
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("  WHEN "));
    Ok(())
}

#[tokio::test]
async fn import_sends_an_absolute_path_and_summarises() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let cwd = std::env::current_dir()?;
    let expected_path = cwd.join("old-web").to_string_lossy().into_owned();
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatImport(ChatImport {
                project_slug: "web".into(),
                path: Some(expected_path.clone()),
                dry_run: true,
            })
        );
        conn.reply(
            msg.id,
            Reply::Imported(Imported {
                project_slug: "web".into(),
                path: expected_path.clone(),
                adopted: vec!["s-a".into()],
                skipped: vec![
                    ImportSkip {
                        session_id: "s-b".into(),
                        reason: "empty".into(),
                    },
                    ImportSkip {
                        session_id: "s-c".into(),
                        reason: "empty".into(),
                    },
                ],
                dry_run: true,
            }),
        )
        .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(
            &daemon,
            &["import", "-p", "web", "--path", "old-web", "--dry-run"]
        ),
        fake
    );
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!(
            "would adopt 1 chat from {expected_path} into web (dry run: nothing changed)\n  s-a\nwould skip 2 sessions: 2 empty\n"
        )
    );
    Ok(())
}

/// `paddock ARGS` on the fake's socket, with `input` on its stdin.
async fn paddock_with_stdin(daemon: &FakeDaemon, args: &[&str], input: &str) -> TestResult<Output> {
    use tokio::io::AsyncWriteExt as _;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_paddock"))
        .arg("--socket")
        .arg(&daemon.socket)
        .args(args)
        .env("PADDOCK_DAEMON_BIN", "/nonexistent/paddockd")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    stdin.write_all(input.as_bytes()).await?;
    drop(stdin);
    Ok(tokio::time::timeout(DEADLINE, child.wait_with_output()).await??)
}

/// The golden `request.trigger_set`'s trigger, as the daemon would answer it.
fn nightly() -> TriggerInfo {
    TriggerInfo {
        project_slug: String::new(),
        name: "nightly-backup".into(),
        spec: TriggerSpec {
            kind: TriggerKind::Schedule,
            prompt: "Check last night's backup and report anything odd.".into(),
            cron: Some("0 2 * * *".into()),
            every: None,
            timezone: Some("Europe/Berlin".into()),
            missed: MissedPolicy::RunOnce,
            on: None,
            paths: Vec::new(),
            debounce_secs: None,
            session: SessionPolicy::Resume,
            model: None,
            enabled: true,
            approval_timeout_secs: None,
        },
        next_fire: Some("2026-11-04T01:00:00Z".into()),
        last_fire: None,
        last_status: None,
        session_id: None,
        problem: None,
    }
}

#[tokio::test]
async fn trigger_add_sends_the_spec_and_says_it_replaced_one() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        // First a look at the project's triggers, to tell "added" from "replaced"...
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::TriggerList(TriggerList {
                project_slug: Some(String::new()),
            })
        );
        let mut old = nightly();
        old.spec.cron = Some("0 3 * * *".into());
        conn.reply(
            msg.id,
            Reply::Triggers(Triggers {
                triggers: vec![old],
            }),
        )
        .await?;
        // ...then the trigger itself: the golden request.
        let msg = conn.recv().await?;
        assert_eq!(
            serde_json::to_value(&msg)?,
            serde_json::json!({
                "id": msg.id,
                "type": "trigger:set",
                "projectSlug": "",
                "name": "nightly-backup",
                "spec": {
                    "kind": "schedule",
                    "prompt": "Check last night's backup and report anything odd.",
                    "cron": "0 2 * * *",
                    "timezone": "Europe/Berlin",
                    "missed": "run_once",
                    "session": "resume"
                }
            })
        );
        conn.reply(msg.id, Reply::Trigger(Box::new(nightly())))
            .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(
            &daemon,
            &[
                "trigger",
                "add",
                "nightly-backup",
                "--cron",
                "0 2 * * *",
                "--tz",
                "Europe/Berlin",
                "--missed",
                "run_once",
                "--resume",
                "--prompt",
                "Check last night's backup and report anything odd.",
            ]
        ),
        fake
    );
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0], "replaced schedule nightly-backup in (root)",
        "{stdout}"
    );
    assert_eq!(lines[1], "  when      0 2 * * * Europe/Berlin", "{stdout}");
    // The next fire in local time, whatever zone the test runs in.
    assert!(lines[2].starts_with("  next      "), "{stdout}");
    assert!(lines[2].ends_with(')'), "{stdout}");
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    Ok(())
}

#[tokio::test]
async fn trigger_add_reads_the_prompt_from_stdin_and_prints_json() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        // A daemon that cannot list (yet): the set goes ahead all the same.
        conn.refuse(
            msg.id,
            ErrorBody::new(ErrorCode::Internal, "triggers are being built"),
        )
        .await?;
        let msg = conn.recv().await?;
        let Request::TriggerSet(set) = &msg.request else {
            panic!("not trigger:set: {msg:?}");
        };
        assert_eq!(set.project_slug, "web");
        assert_eq!(set.spec.kind, TriggerKind::Hook);
        assert_eq!(set.spec.on, Some(HookEvent::FileChanged));
        assert_eq!(set.spec.paths, ["docs/**/*.md"]);
        assert_eq!(set.spec.prompt, "The docs changed:\ncheck the links.\n");
        let info = TriggerInfo {
            project_slug: "web".into(),
            name: set.name.clone(),
            spec: set.spec.clone(),
            next_fire: None,
            last_fire: None,
            last_status: None,
            session_id: None,
            problem: None,
        };
        conn.reply(msg.id, Reply::Trigger(Box::new(info))).await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock_with_stdin(
            &daemon,
            &[
                "trigger",
                "add",
                "docs",
                "-p",
                "web",
                "--on",
                "file_changed",
                "--path",
                "docs/**/*.md",
                "--json",
                "-",
            ],
            "The docs changed:\ncheck the links.\n",
        ),
        fake
    );
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(value["projectSlug"], "web");
    assert_eq!(value["name"], "docs");
    assert_eq!(value["spec"]["on"], "file_changed");
    Ok(())
}

#[tokio::test]
async fn trigger_add_refused_is_one_line() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        conn.reply(msg.id, Reply::Triggers(Triggers { triggers: vec![] }))
            .await?;
        let msg = conn.recv().await?;
        conn.refuse(
            msg.id,
            ErrorBody::new(
                ErrorCode::InvalidArgument,
                "unknown time zone \"Mars/Olympus\"",
            ),
        )
        .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(
            &daemon,
            &[
                "trigger",
                "add",
                "x",
                "--cron",
                "* * * * *",
                "--tz",
                "Mars/Olympus",
                "--prompt",
                "p",
            ]
        ),
        fake
    );
    fake?;
    let out = out?;
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        text(&out.stderr),
        "paddock: unknown time zone \"Mars/Olympus\"\n"
    );
    Ok(())
}

#[tokio::test]
async fn trigger_ls_lists_every_project_as_a_table_or_the_reply() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let mut broken = nightly();
    broken.project_slug = "web".into();
    broken.name = "docs-check".into();
    broken.spec.timezone = Some("Mars/Olympus".into());
    broken.next_fire = None;
    broken.problem = Some("unknown time zone \"Mars/Olympus\"".into());
    let reply = Triggers {
        triggers: vec![nightly(), broken],
    };
    let fake = async {
        for _ in 0..2 {
            let mut conn = daemon.accept_hello().await?;
            let msg = conn.recv().await?;
            assert_eq!(
                msg.request,
                Request::TriggerList(TriggerList { project_slug: None })
            );
            conn.reply(msg.id, Reply::Triggers(reply.clone())).await?;
        }
        TestResult::Ok(())
    };
    let run = async {
        let table = paddock(&daemon, &["trigger", "ls"]).await?;
        let json = paddock(&daemon, &["trigger", "ls", "--json"]).await?;
        TestResult::Ok((table, json))
    };
    let (out, fake) = tokio::join!(run, fake);
    fake?;
    let (table, json) = out?;
    assert!(table.status.success(), "{}", text(&table.stderr));
    let stdout = text(&table.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(
        lines[0].starts_with("PROJECT  NAME            KIND      WHEN"),
        "{stdout}"
    );
    assert!(lines[1].starts_with("(root)   nightly-backup  schedule  0 2 * * * Europe/Berlin"));
    assert!(lines[2].starts_with("web      docs-check      schedule  0 2 * * * Mars/Olympus"));
    assert_eq!(
        lines[3],
        "         ! cannot run: unknown time zone \"Mars/Olympus\""
    );
    assert!(json.status.success(), "{}", text(&json.stderr));
    let printed: Triggers = serde_json::from_slice(&json.stdout)?;
    assert_eq!(printed, reply);
    Ok(())
}

#[tokio::test]
async fn trigger_ls_of_a_project_without_any_says_so_on_stderr() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::TriggerList(TriggerList {
                project_slug: Some(String::new())
            })
        );
        conn.reply(msg.id, Reply::Triggers(Triggers { triggers: vec![] }))
            .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &["trigger", "ls", "-p", ""]), fake);
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert_eq!(text(&out.stderr), "no triggers in (root)\n");
    Ok(())
}

#[tokio::test]
async fn trigger_rm_removes_and_says_so() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::TriggerRemove(TriggerRef {
                project_slug: "webapp".into(),
                name: "docs-changed".into(),
            })
        );
        conn.reply(msg.id, Reply::Ack).await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(&daemon, &["trigger", "rm", "docs-changed", "-p", "webapp"]),
        fake
    );
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "removed trigger docs-changed from webapp\n"
    );
    Ok(())
}

#[tokio::test]
async fn trigger_fire_prints_the_session_or_a_skip_and_succeeds_both_ways() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        // The golden `request.trigger_fire`.
        assert_eq!(
            msg.request,
            Request::TriggerFire(TriggerFire {
                project_slug: "webapp".into(),
                name: "ci-failed".into(),
                message: Some("CI failed on main: https://ci.example/run/4711".into()),
            })
        );
        conn.reply(
            msg.id,
            Reply::Fired(Fired {
                session_id: Some("s-ci".into()),
                skipped: None,
            }),
        )
        .await?;
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::TriggerFire(TriggerFire {
                project_slug: String::new(),
                name: "nightly".into(),
                message: None,
            })
        );
        conn.reply(
            msg.id,
            Reply::Fired(Fired {
                session_id: None,
                skipped: Some("its previous run is still going".into()),
            }),
        )
        .await?;
        TestResult::Ok(())
    };
    let run = async {
        let ran = paddock(
            &daemon,
            &[
                "trigger",
                "fire",
                "ci-failed",
                "-p",
                "webapp",
                "--message",
                "CI failed on main: https://ci.example/run/4711",
            ],
        )
        .await?;
        let skipped = paddock(&daemon, &["trigger", "fire", "nightly"]).await?;
        TestResult::Ok((ran, skipped))
    };
    let (out, fake) = tokio::join!(run, fake);
    fake?;
    let (ran, skipped) = out?;
    assert!(ran.status.success(), "{}", text(&ran.stderr));
    assert_eq!(text(&ran.stdout), "s-ci\n");
    assert!(ran.stderr.is_empty(), "{}", text(&ran.stderr));
    assert_eq!(skipped.status.code(), Some(0), "{}", text(&skipped.stderr));
    assert!(skipped.stdout.is_empty(), "{}", text(&skipped.stdout));
    assert_eq!(
        text(&skipped.stderr),
        "skipped: its previous run is still going\n"
    );
    Ok(())
}

#[tokio::test]
async fn trigger_fire_message_from_stdin_and_json() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::TriggerFire(TriggerFire {
                project_slug: "web".into(),
                name: "ci".into(),
                message: Some("the log\n".into()),
            })
        );
        conn.reply(
            msg.id,
            Reply::Fired(Fired {
                session_id: None,
                skipped: Some("still going".into()),
            }),
        )
        .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock_with_stdin(
            &daemon,
            &["trigger", "fire", "ci", "-p", "web", "--json", "-"],
            "the log\n"
        ),
        fake
    );
    fake?;
    let out = out?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(value, serde_json::json!({"skipped": "still going"}));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    Ok(())
}

#[tokio::test]
async fn an_empty_message_fires_nothing() -> TestResult {
    // Nothing answers on this socket: the command must fail before it looks for a daemon.
    let daemon = FakeDaemon::bind()?;
    let out = paddock_with_stdin(&daemon, &["trigger", "fire", "ci", "-"], " \n").await?;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "paddock: the message is empty; nothing was fired\n"
    );
    let out = paddock_with_stdin(
        &daemon,
        &["trigger", "add", "x", "--every", "1h", "--prompt", "-"],
        "",
    )
    .await?;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "paddock: the prompt is empty; nothing was saved\n"
    );
    Ok(())
}
