//! The `paddock` binary against a fake daemon: what scripts rely on — stdout, stderr, exit
//! status — for listings, a streamed turn, and failures.

mod support;

use std::process::Output;

use paddock_proto::{
    ChatAction, ChatEvent, ChatFork, ChatImport, ChatList, ChatScope, ChatSummary, ChatUpdate,
    Chats, Complete, ErrorBody, ErrorCode, Forked, History, HistoryList, HubFrame, ImportSkip,
    Imported, MessageBoundary, Notice, NoticeKind, Origin, Reply, Request, Routing, RunStatus,
    RunSummary, Sent, SessionIds, SessionRef, TextDelta, ToolCall, ToolStart, Transcript, Updated,
    UserTurn,
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
            })
        );
        conn.reply(
            msg.id,
            Reply::Chats(Chats {
                chats: chats.clone(),
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
        conn.reply(msg.id, Reply::Updated(Updated { changed: 1 }))
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

#[tokio::test]
async fn a_refused_request_is_one_line_on_stderr_and_a_failure() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatTranscript(SessionRef {
                session_id: "s-9".into()
            })
        );
        conn.refuse(
            msg.id,
            ErrorBody::new(ErrorCode::NotFound, "There is no chat s-9."),
        )
        .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &["show", "s-9"]), fake);
    fake?;
    let out = out?;
    assert_eq!(text(&out.stderr), "paddock: There is no chat s-9.\n");
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
async fn a_usage_mistake_is_one_line() -> TestResult {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_paddock"))
        .args(["ls", "--archived", "--all"])
        .env("PADDOCK_DAEMON_BIN", "/nonexistent/paddockd")
        .output();
    let out = tokio::time::timeout(DEADLINE, out).await??;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "paddock: the argument '--archived' cannot be used with '--all'; see `paddock --help`\n"
    );
    Ok(())
}

/// `chat:list` of every chat in every project, archived ones included (what --subtree walks).
fn list_everything() -> Request {
    Request::ChatList(ChatList {
        project_slug: None,
        scope: ChatScope::All,
    })
}

/// m ─ c1 ─ g, m ─ c2 (c2 in another project); o alone.
fn family() -> Vec<ChatSummary> {
    let mut m = summary("s-m", "Manager");
    m.children = vec!["s-c1".into(), "s-c2".into()];
    let mut c1 = summary("s-c1", "Child one");
    c1.tree_parent = Some("s-m".into());
    c1.level = 1;
    c1.children = vec!["s-g".into()];
    let mut g = summary("s-g", "Grandchild");
    g.tree_parent = Some("s-c1".into());
    g.level = 2;
    let mut c2 = summary("s-c2", "Child two");
    c2.project_slug = "web".into();
    c2.tree_parent = Some("s-m".into());
    c2.level = 1;
    vec![m, c1, g, c2, summary("s-o", "Other")]
}

#[tokio::test]
async fn archive_subtree_is_one_request_for_the_whole_family() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(msg.request, list_everything());
        conn.reply(msg.id, Reply::Chats(Chats { chats: family() }))
            .await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatUpdate(ChatUpdate {
                session_ids: vec!["s-m".into(), "s-c1".into(), "s-g".into(), "s-c2".into()],
                action: ChatAction::Archive,
            })
        );
        // One of them was archived already.
        conn.reply(msg.id, Reply::Updated(Updated { changed: 3 }))
            .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(&daemon, &["archive", "--subtree", "s-m", "s-g"]),
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
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatUpdate(ChatUpdate {
                session_ids: vec!["s-1".into(), "s-2".into()],
                action: ChatAction::Star,
            })
        );
        conn.reply(msg.id, Reply::Updated(Updated { changed: 0 }))
            .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &["star", "s-1", "s-2", "s-1"]), fake);
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
    let fake = async {
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(msg.request, list_everything());
        conn.reply(msg.id, Reply::Chats(Chats { chats: family() }))
            .await?;
        // Nothing more is asked: the connection just closes.
        assert!(conn.recv().await.is_err());
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(&daemon, &["detach", "--subtree", "s-m", "s-typo"]),
        fake
    );
    fake?;
    let out = out?;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "paddock: no chat s-typo; `paddock ls -p SLUG --all` lists a project's chats\n"
    );
    Ok(())
}

#[tokio::test]
async fn too_many_chats_are_refused_before_asking_the_daemon() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let ids: Vec<String> = (0..501).map(|i| format!("s-{i}")).collect();
    let mut args = vec!["unarchive"];
    args.extend(ids.iter().map(String::as_str));
    let fake = async {
        let conn = daemon.accept_hello().await;
        let mut conn = conn?;
        assert!(conn.recv().await.is_err());
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(paddock(&daemon, &args), fake);
    fake?;
    let out = out?;
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
    let out = paddock(&daemon, &["delete", "s-1"]).await?;
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
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(msg.request, list_everything());
        conn.reply(msg.id, Reply::Chats(Chats { chats: family() }))
            .await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatDelete(SessionIds {
                session_ids: vec!["s-c1".into(), "s-g".into()],
            })
        );
        conn.reply(msg.id, Reply::Updated(Updated { changed: 2 }))
            .await?;
        TestResult::Ok(())
    };
    let (out, fake) = tokio::join!(
        paddock(&daemon, &["delete", "--yes", "--subtree", "s-c1"]),
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
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatFork(ChatFork {
                session_id: "s-1".into(),
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
    let (out, fake) = tokio::join!(paddock(&daemon, &["fork", "s-1", "--name", "Try B"]), fake);
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
        let mut conn = daemon.accept_hello().await?;
        let msg = conn.recv().await?;
        conn.reply(
            msg.id,
            Reply::Transcript(Box::new(Transcript {
                chat: summary("s-1", "First"),
                entries: Vec::new(),
            })),
        )
        .await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatUpdate(ChatUpdate {
                session_ids: vec!["s-1".into()],
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
    let (out, fake) = tokio::join!(paddock(&daemon, &["show", "s-1"]), fake);
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
            session_id: "s-1".into(),
            title: "Nightly backup check".into(),
            origin: Origin::Scheduled,
            depth: 0,
            trigger: Some("nightly".into()),
            status: RunStatus::Completed,
            started_at: "2026-11-02T02:00:01Z".into(),
            finished_at: Some("2026-11-02T02:01:37Z".into()),
            cost_usd: Some(0.04),
            prompt: None,
            is_new: new_unattended > 0,
        }],
        last_seen: Some("2026-11-01T18:30:00Z".into()),
        new_unattended,
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
