//! The client against a fake daemon on a temp socket: hello, requests and responses, pushed
//! events in order, and every way the conversation can go wrong surfacing as its typed error.

mod support;

use std::time::Duration;

use paddock_proto::{
    ChatEvent, ChatSend, DaemonStatusRequest, ErrorBody, ErrorCode, HubFrame, Ping, ProjectInfo,
    ProjectList, Projects, ProtocolMismatch, Reply, Request, Routing, Sent, TextDelta, UserTurn,
};
use paddock_proto::{ChatSubscribe, Resync, ResyncReason, Subscribed};
use paddock_tui::client::{
    Client, ClientError, Event, Follow, Followed, StartOptions, connect_or_start,
};
use support::{DEADLINE, FakeDaemon, TestResult};

fn frame(seq: u64, event: ChatEvent) -> HubFrame {
    HubFrame {
        routing: Routing {
            project_slug: String::new(),
            session_id: "s-1".into(),
            job_id: "j-1".into(),
            seq,
        },
        event,
    }
}

fn user(text: &str) -> ChatEvent {
    ChatEvent::User(UserTurn {
        message_id: None,
        text: text.into(),
        attribution: None,
    })
}

fn delta(text: &str) -> ChatEvent {
    ChatEvent::Response(TextDelta { text: text.into() })
}

#[tokio::test]
async fn hello_then_a_call_and_its_typed_reply() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let (client, conn) = tokio::join!(Client::connect(&daemon.socket), daemon.accept_hello());
    let (client, mut conn) = (client?, conn?);
    assert_eq!(client.daemon().pid, 4242);
    assert_eq!(client.daemon().daemon_version, "9.9.9-fake");

    let projects = Projects {
        projects: vec![ProjectInfo {
            slug: String::new(),
            path: "/data/root".into(),
            created_at: None,
            ..Default::default()
        }],
    };
    let expected = projects.clone();
    let fake = async move {
        let msg = conn.recv().await?;
        assert_eq!(msg.request, Request::ProjectList);
        conn.reply(msg.id, Reply::Projects(projects)).await?;
        TestResult::Ok(conn)
    };
    let (reply, conn) = tokio::join!(client.call(ProjectList), fake);
    conn?;
    assert_eq!(reply?, expected);
    Ok(())
}

#[tokio::test]
async fn frames_pushed_before_a_response_are_queued_before_it_returns() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let (client, conn) = tokio::join!(Client::connect(&daemon.socket), daemon.accept_hello());
    let (mut client, mut conn) = (client?, conn?);
    let mut events = client.take_events().ok_or("events already taken")?;
    assert!(client.take_events().is_none(), "events are taken once");

    let sent = Sent {
        project_slug: String::new(),
        session_id: "s-1".into(),
        job_id: "j-1".into(),
        queued: false,
    };
    let fake = async {
        let msg = conn.recv().await?;
        assert!(matches!(msg.request, Request::ChatSend(_)));
        conn.push_frame(frame(1, user("hi"))).await?;
        conn.reply(msg.id, Reply::Sent(sent.clone())).await?;
        conn.push_frame(frame(2, delta("Hello"))).await?;
        TestResult::Ok(())
    };
    let send = client.call(ChatSend {
        project_slug: String::new(),
        session_id: None,
        message: "hi".into(),
        model: None,
        preload_context: false,
        attachments: Vec::new(),
        isolation: None,
    });
    let (reply, fake) = tokio::join!(send, fake);
    fake?;
    assert_eq!(reply?, sent);
    // The frame written before the response is already queued: no waiting needed.
    assert_eq!(events.try_recv(), Some(Event::Frame(frame(1, user("hi")))));
    let next = tokio::time::timeout(DEADLINE, events.recv()).await?;
    assert_eq!(next, Some(Event::Frame(frame(2, delta("Hello")))));
    Ok(())
}

#[tokio::test]
async fn a_protocol_mismatch_is_a_typed_error_with_the_details() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let details = ProtocolMismatch {
        daemon_protocol: 99,
        daemon_version: "99.0.0".into(),
        pid: 777,
        running_turns: 3,
    };
    let fake = async {
        let mut conn = daemon.accept().await?;
        let hello = conn.recv().await?;
        let mut body = ErrorBody::new(ErrorCode::ProtocolMismatch, "speak protocol 99");
        body.mismatch = Some(Box::new(details.clone()));
        conn.refuse(hello.id, body).await?;
        TestResult::Ok(conn)
    };
    let (client, conn) = tokio::join!(Client::connect(&daemon.socket), fake);
    let _conn = conn?;
    match client {
        Err(ClientError::ProtocolMismatch(got)) => assert_eq!(got, details),
        other => panic!("expected a protocol mismatch, got {other:?}"),
    }
    Ok(())
}

#[tokio::test]
async fn a_busy_daemon_of_another_protocol_is_not_restarted() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let details = ProtocolMismatch {
        daemon_protocol: 99,
        daemon_version: "99.0.0".into(),
        pid: 777,
        running_turns: 2,
    };
    let fake = async {
        let mut conn = daemon.accept().await?;
        let hello = conn.recv().await?;
        let mut body = ErrorBody::new(ErrorCode::ProtocolMismatch, "speak protocol 99");
        body.mismatch = Some(Box::new(details.clone()));
        conn.refuse(hello.id, body).await?;
        TestResult::Ok(conn)
    };
    let mut opts = StartOptions::new(daemon.socket.clone());
    opts.daemon_bin = "/nonexistent/paddockd".into();
    let (client, conn) = tokio::join!(connect_or_start(&opts), fake);
    let _conn = conn?;
    let err = client
        .err()
        .ok_or("connected to a busy mismatched daemon")?;
    assert!(matches!(&err, ClientError::RestartNeeded(d) if *d == details));
    assert_eq!(
        err.to_string(),
        "paddockd (protocol 99, version 99.0.0, pid 777) is running 2 turns; run `paddock daemon restart` when they finish"
    );
    Ok(())
}

#[tokio::test]
async fn a_reply_of_the_wrong_kind_is_a_protocol_error() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let (client, conn) = tokio::join!(Client::connect(&daemon.socket), daemon.accept_hello());
    let (client, mut conn) = (client?, conn?);
    let fake = async move {
        let msg = conn.recv().await?;
        conn.reply(msg.id, Reply::Ack).await?;
        TestResult::Ok(conn)
    };
    let (reply, conn) = tokio::join!(client.call(ProjectList), fake);
    conn?;
    match reply {
        Err(ClientError::Protocol(what)) => {
            assert_eq!(what, "project:list was answered with ack");
        }
        other => return Err(format!("expected a protocol error, got {other:?}").into()),
    }
    Ok(())
}

#[tokio::test]
async fn a_daemon_error_body_reaches_the_caller() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let (client, conn) = tokio::join!(Client::connect(&daemon.socket), daemon.accept_hello());
    let (client, mut conn) = (client?, conn?);
    let fake = async {
        let msg = conn.recv().await?;
        conn.refuse(
            msg.id,
            ErrorBody::new(ErrorCode::NotFound, "There is no chat s-9."),
        )
        .await?;
        TestResult::Ok(())
    };
    let (reply, fake) = tokio::join!(client.call(ProjectList), fake);
    fake?;
    let err = reply.err().ok_or("the request succeeded")?;
    assert_eq!(err.code(), Some(ErrorCode::NotFound));
    assert_eq!(err.to_string(), "There is no chat s-9.");
    Ok(())
}

#[tokio::test]
async fn the_daemon_closing_mid_request_is_connection_lost_not_a_hang() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let (client, conn) = tokio::join!(Client::connect(&daemon.socket), daemon.accept_hello());
    let (mut client, mut conn) = (client?, conn?);
    let mut events = client.take_events().ok_or("events already taken")?;
    let fake = async move {
        let _request = conn.recv().await?;
        drop(conn);
        TestResult::Ok(())
    };
    let request = tokio::time::timeout(DEADLINE, client.call(DaemonStatusRequest));
    let (reply, fake) = tokio::join!(request, fake);
    fake?;
    assert!(
        matches!(reply?, Err(ClientError::ConnectionLost { .. })),
        "expected connection lost"
    );
    // Later requests fail at once, and the event stream ends.
    let again = tokio::time::timeout(DEADLINE, client.call(Ping)).await?;
    assert!(matches!(again, Err(ClientError::ConnectionLost { .. })));
    assert_eq!(tokio::time::timeout(DEADLINE, events.recv()).await?, None);
    Ok(())
}

#[tokio::test]
async fn an_unanswered_request_times_out() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let (client, conn) = tokio::join!(Client::connect(&daemon.socket), daemon.accept_hello());
    let (mut client, mut conn) = (client?, conn?);
    client.set_request_timeout(Duration::from_millis(100));
    let (reply, received) = tokio::join!(client.call(Ping), conn.recv());
    received?;
    assert!(matches!(
        reply,
        Err(ClientError::Timeout {
            request: "ping",
            ..
        })
    ));
    Ok(())
}

#[tokio::test]
async fn an_unreadable_response_fails_its_request_at_once() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let (client, conn) = tokio::join!(Client::connect(&daemon.socket), daemon.accept_hello());
    let (client, mut conn) = (client?, conn?);
    let fake = async {
        let msg = conn.recv().await?;
        let line = format!(
            "{{\"type\":\"response\",\"id\":{},\"ok\":{{\"kind\":\"from_the_future\"}}}}\n",
            msg.id
        );
        conn.send_raw(&line).await?;
        TestResult::Ok(())
    };
    let request = tokio::time::timeout(DEADLINE, client.call(Ping));
    let (reply, fake) = tokio::join!(request, fake);
    fake?;
    assert!(matches!(reply?, Err(ClientError::Protocol(_))));
    Ok(())
}

#[tokio::test]
async fn nothing_listening_is_not_running() -> TestResult {
    let dir = tempfile::tempdir()?;
    let missing = dir.path().join("missing.sock");
    assert!(matches!(
        Client::connect(&missing).await,
        Err(ClientError::NotRunning { .. })
    ));
    // A stale socket file that nobody accepts on counts the same.
    let stale = dir.path().join("stale.sock");
    drop(std::os::unix::net::UnixListener::bind(&stale)?);
    assert!(stale.exists());
    assert!(matches!(
        Client::connect(&stale).await,
        Err(ClientError::NotRunning { .. })
    ));
    Ok(())
}

#[tokio::test]
async fn a_daemon_that_cannot_be_run_says_how_to_fix_it() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut opts = StartOptions::new(dir.path().join("paddockd.sock"));
    opts.daemon_bin = dir.path().join("no-such-paddockd");
    let err = connect_or_start(&opts)
        .await
        .err()
        .ok_or("connected to nothing")?;
    let text = err.to_string();
    assert!(text.contains("could not run"), "{text}");
    assert!(text.contains("PADDOCK_DAEMON_BIN"), "{text}");
    Ok(())
}

#[tokio::test]
async fn a_daemon_that_exits_at_startup_without_a_word_says_how_to_see_why() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut opts = StartOptions::new(dir.path().join("paddockd.sock"));
    opts.daemon_bin = failing_daemon();
    opts.log_path = Some(dir.path().join("paddockd.log"));
    let err = tokio::time::timeout(DEADLINE, connect_or_start(&opts))
        .await?
        .err()
        .ok_or("connected to nothing")?;
    let text = err.to_string();
    assert!(text.contains("exited at startup"), "{text}");
    assert!(text.contains("paddock daemon start --foreground"), "{text}");
    // A log that does not exist is not pointed at (it would explain nothing).
    assert!(!text.contains("paddockd.log"), "{text}");
    // One that does is.
    std::fs::write(dir.path().join("paddockd.log"), "")?;
    let err = tokio::time::timeout(DEADLINE, connect_or_start(&opts))
        .await?
        .err()
        .ok_or("connected to nothing")?;
    assert!(err.to_string().contains("paddockd.log"), "{err}");
    Ok(())
}

#[tokio::test]
async fn a_daemon_that_cannot_start_is_reported_in_its_own_words() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut opts = StartOptions::new(dir.path().join("paddockd.sock"));
    // The daemon is run as `BIN --socket PATH`: `sh` takes `--socket` for an option it does not
    // know, says so on stderr and exits, a stand-in for paddockd refusing its configuration.
    opts.daemon_bin = "sh".into();
    let err = tokio::time::timeout(DEADLINE, connect_or_start(&opts))
        .await?
        .err()
        .ok_or("connected to nothing")?;
    let text = err.to_string();
    assert!(text.starts_with("paddockd did not start: "), "{text}");
    assert!(!text.contains("without saying why"), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");
    Ok(())
}

/// A "paddockd" that exits at once with status 1: `false` from PATH (a script written by the
/// test could hit ETXTBSY when another test thread forks while it is open for writing).
fn failing_daemon() -> std::path::PathBuf {
    std::path::PathBuf::from("false")
}

#[tokio::test]
async fn an_idle_daemon_of_another_protocol_is_stopped_and_replaced() -> TestResult {
    use std::os::unix::process::ExitStatusExt;
    // The "old daemon": a process to be stopped, and a socket that answers until it is gone.
    let mut old = tokio::process::Command::new("sleep").arg("30").spawn()?;
    let pid = old.id().ok_or("sleep exited already")?;
    let daemon = FakeDaemon::bind()?;
    let socket = daemon.socket.clone();
    let fake = async move {
        let mut conn = daemon.accept().await?;
        let hello = conn.recv().await?;
        let mut body = ErrorBody::new(ErrorCode::ProtocolMismatch, "speak protocol 99");
        body.mismatch = Some(Box::new(ProtocolMismatch {
            daemon_protocol: 99,
            daemon_version: "99.0.0".into(),
            pid,
            running_turns: 0,
        }));
        conn.refuse(hello.id, body).await?;
        // Serve until the process is told to stop, as a real daemon would.
        let status = tokio::time::timeout(DEADLINE, old.wait()).await??;
        drop(daemon);
        TestResult::Ok(status)
    };
    let mut opts = StartOptions::new(socket);
    // The replacement fails at once, which ends the test quickly with a clear error.
    opts.daemon_bin = failing_daemon();
    let (client, status) = tokio::join!(
        tokio::time::timeout(DEADLINE, connect_or_start(&opts)),
        fake
    );
    assert_eq!(status?.signal(), Some(15), "the old daemon got SIGTERM");
    let err = client?.err().ok_or("connected to nothing")?;
    assert!(err.to_string().contains("exited at startup"), "{err}");
    Ok(())
}

fn resync(reason: ResyncReason) -> paddock_proto::ServerMessage {
    paddock_proto::ServerMessage::Control(paddock_proto::ControlMessage::Resync(Resync {
        session_id: "s-1".into(),
        reason,
    }))
}

fn subscribed(replayed: u64) -> Reply {
    Reply::Subscribed(Subscribed {
        session_id: "s-1".into(),
        running: true,
        job_id: Some("j-1".into()),
        replayed,
        next_seq: 4,
    })
}

/// Follows s-1 for `n` items: frame seqs as numbers, notices as 0.
async fn follow_items(
    client: &Client,
    events: &mut paddock_tui::client::Events,
    n: usize,
) -> TestResult<Vec<u64>> {
    let mut follow = Follow::new(client, events, "s-1".into());
    let mut items = Vec::new();
    for _ in 0..n {
        match tokio::time::timeout(DEADLINE, follow.next()).await?? {
            Followed::Frame(f) => items.push(f.routing.seq),
            Followed::Notice(_) => items.push(0),
        }
    }
    Ok(items)
}

#[tokio::test]
async fn following_resubscribes_after_a_resync_and_drops_repeats() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let (client, conn) = tokio::join!(Client::connect(&daemon.socket), daemon.accept_hello());
    let (mut client, mut conn) = (client?, conn?);
    let mut events = client.take_events().ok_or("events already taken")?;
    let fake = async {
        conn.push_frame(frame(1, user("hi"))).await?;
        conn.push_frame(frame(2, delta("Hel"))).await?;
        conn.send(&resync(ResyncReason::SlowClient)).await?;
        let msg = conn.recv().await?;
        assert_eq!(
            msg.request,
            Request::ChatSubscribe(ChatSubscribe {
                session_id: "s-1".into(),
                want_replay: true,
                last_seq: Some(2),
            })
        );
        conn.reply(msg.id, subscribed(2)).await?;
        // A repeat of the last frame seen, then the new one.
        conn.push_frame(frame(2, delta("Hel"))).await?;
        conn.push_frame(frame(3, delta("lo"))).await?;
        TestResult::Ok(())
    };
    let (items, fake) = tokio::join!(follow_items(&client, &mut events, 3), fake);
    fake?;
    assert_eq!(items?, [1, 2, 3]);
    Ok(())
}

#[tokio::test]
async fn following_past_an_aged_out_range_says_so_and_replays_what_is_left() -> TestResult {
    let daemon = FakeDaemon::bind()?;
    let (client, conn) = tokio::join!(Client::connect(&daemon.socket), daemon.accept_hello());
    let (mut client, mut conn) = (client?, conn?);
    let mut events = client.take_events().ok_or("events already taken")?;
    let fake = async {
        conn.push_frame(frame(1, user("hi"))).await?;
        conn.push_frame(frame(2, delta("Hel"))).await?;
        conn.send(&resync(ResyncReason::AgedOut)).await?;
        let msg = conn.recv().await?;
        assert!(
            matches!(&msg.request, Request::ChatSubscribe(s) if s.want_replay && s.last_seq.is_none()),
            "{msg:?}"
        );
        conn.reply(msg.id, subscribed(3)).await?;
        for (seq, event) in [(1, user("hi")), (2, delta("Hel")), (3, delta("lo"))] {
            conn.push_frame(frame(seq, event)).await?;
        }
        TestResult::Ok(())
    };
    let (items, fake) = tokio::join!(follow_items(&client, &mut events, 4), fake);
    fake?;
    assert_eq!(
        items?,
        [1, 2, 0, 3],
        "a notice, then only the frame not seen before"
    );
    Ok(())
}
