//! The `paddock` binary against a fake daemon: what scripts rely on — stdout, stderr, exit
//! status — for listings, a streamed turn, and failures.

mod support;

use std::process::Output;

use paddock_proto::{
    ChatEvent, ChatList, ChatScope, ChatSummary, Chats, Complete, ErrorBody, ErrorCode, HubFrame,
    MessageBoundary, Notice, NoticeKind, Origin, Reply, Request, Routing, Sent, SessionRef,
    TextDelta, ToolCall, ToolStart, UserTurn,
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
