//! The WebSocket listener: auth in the upgrade, bind safety, the protocol one message per text
//! message, and the socket's error handling and slow-client policy over it.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use paddock_proto::{
    ChatAction, ChatEvent, ChatSubscribe, ChatUpdate, ClientMessage, ControlMessage, ErrorCode,
    HubFrame, Outcome, PROTOCOL_VERSION, Reply, Request, ResyncReason, ServerMessage,
};
use paddockd::config::ws::WsAuth;
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderValue, StatusCode};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use crate::harness::*;

/// The address the daemon's WebSocket listener bound (it listens on port 0).
async fn ws_addr(d: &TestDaemon) -> SocketAddr {
    let bound = d.cfg.ws.bound.clone();
    paddock_tests::wait::wait_until("the WebSocket listener", DEADLINE, || bound.get().copied())
        .await
        .unwrap()
}

async fn ws_daemon(auth: WsAuth) -> TestDaemon {
    TestDaemon::start_with(move |c| {
        c.ws.listen = Some("127.0.0.1:0".parse().unwrap());
        c.ws.auth = auth;
    })
    .await
}

fn generated_token(d: &TestDaemon) -> String {
    std::fs::read_to_string(d.cfg.data_dir.join(paddockd::config::ws::TOKEN_FILE))
        .unwrap()
        .trim()
        .to_owned()
}

/// What the client reads: a protocol message, or the daemon's close.
#[derive(Debug)]
enum In {
    Msg(Box<ServerMessage>),
    Close(Option<CloseFrame>),
}

struct WsClient {
    ws: WebSocketStream<TcpStream>,
    next_id: u64,
    pending: std::collections::VecDeque<ServerMessage>,
}

impl WsClient {
    /// Upgrades with `headers` on `path`; a refused upgrade gives its status and body.
    async fn connect(
        addr: SocketAddr,
        path: &str,
        headers: &[(&str, &str)],
    ) -> Result<Self, (StatusCode, String)> {
        let mut req = format!("ws://{addr}{path}").into_client_request().unwrap();
        for (k, v) in headers {
            req.headers_mut().insert(
                tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        let tcp = TcpStream::connect(addr).await.unwrap();
        // The daemon's lines may be longer than the client library's default limit.
        let config = WebSocketConfig::default()
            .max_message_size(None)
            .max_frame_size(None);
        match tokio_tungstenite::client_async_with_config(req, tcp, Some(config)).await {
            Ok((ws, _)) => Ok(Self {
                ws,
                next_id: 1,
                pending: Default::default(),
            }),
            Err(WsError::Http(resp)) => {
                let body = resp
                    .body()
                    .as_ref()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .unwrap_or_default();
                Err((resp.status(), body))
            }
            Err(e) => panic!("upgrade failed: {e}"),
        }
    }

    async fn send_text(&mut self, text: &str) {
        self.ws.send(Message::text(text)).await.unwrap();
    }

    async fn send(&mut self, request: Request) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let line = paddock_proto::encode(&ClientMessage { id, request }).unwrap();
        // One message per text message, without the newline.
        self.send_text(line.trim_end()).await;
        id
    }

    /// The next protocol message or close, within the deadline.
    async fn next_in(&mut self) -> In {
        if let Some(m) = self.pending.pop_front() {
            return In::Msg(Box::new(m));
        }
        loop {
            let msg = tokio::time::timeout(DEADLINE, self.ws.next())
                .await
                .expect("a message before the deadline");
            match msg {
                Some(Ok(Message::Text(t))) => {
                    assert!(!t.as_str().ends_with('\n'), "one line, no newline: {t}");
                    return In::Msg(Box::new(paddock_proto::decode(t.as_bytes()).unwrap()));
                }
                Some(Ok(Message::Close(frame))) => return In::Close(frame),
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(other)) => panic!("unexpected WebSocket message {other:?}"),
                Some(Err(e)) => panic!("WebSocket read: {e}"),
                None => return In::Close(None),
            }
        }
    }

    async fn next(&mut self) -> ServerMessage {
        match self.next_in().await {
            In::Msg(m) => *m,
            In::Close(f) => panic!("closed: {f:?}"),
        }
    }

    async fn response(&mut self, id: u64) -> Result<Reply, paddock_proto::ErrorBody> {
        let mut kept = Vec::new();
        let result = loop {
            match self.next().await {
                ServerMessage::Control(ControlMessage::Response(r)) if r.id == id => {
                    break match r.outcome {
                        Outcome::Ok(reply) => Ok(reply),
                        Outcome::Err(e) => Err(e),
                    };
                }
                other => kept.push(other),
            }
        };
        kept.extend(self.pending.drain(..));
        self.pending = kept.into();
        result
    }

    async fn request(&mut self, request: Request) -> Result<Reply, paddock_proto::ErrorBody> {
        let id = self.send(request).await;
        self.response(id).await
    }

    async fn hello(&mut self) -> paddock_proto::HelloReply {
        let reply = self
            .request(Request::Hello(paddock_proto::Hello {
                protocol_version: PROTOCOL_VERSION,
                client: "websocket-tests".into(),
            }))
            .await
            .expect("hello accepted");
        match reply {
            Reply::Hello(h) => h,
            other => panic!("expected hello, got {other:?}"),
        }
    }

    /// The next connection-level error's code.
    async fn connection_error(&mut self) -> ErrorCode {
        loop {
            if let ServerMessage::Control(ControlMessage::Error(e)) = self.next().await {
                return e.error.code;
            }
        }
    }

    async fn frames_until_complete(&mut self, session: &str) -> Vec<HubFrame> {
        let mut out = Vec::new();
        let mut kept = Vec::new();
        loop {
            match self.next().await {
                ServerMessage::Frame(f) if f.routing.session_id == session => {
                    let done = matches!(f.event, ChatEvent::Complete(_));
                    out.push(f);
                    if done {
                        kept.extend(self.pending.drain(..));
                        self.pending = kept.into();
                        return out;
                    }
                }
                other => kept.push(other),
            }
        }
    }

    async fn send_turn(&mut self, session: Option<&str>, message: &str) -> paddock_proto::Sent {
        let reply = self
            .request(Request::ChatSend(paddock_proto::ChatSend {
                project_slug: String::new(),
                session_id: session.map(str::to_owned),
                message: message.into(),
                model: None,
                preload_context: false,
                attachments: Vec::new(),
                isolation: None,
            }))
            .await
            .expect("turn accepted");
        match reply {
            Reply::Sent(s) => s,
            other => panic!("expected Sent, got {other:?}"),
        }
    }

    /// Reads until the daemon closes the connection; its close frame.
    async fn closed(&mut self) -> Option<CloseFrame> {
        loop {
            if let In::Close(f) = self.next_in().await {
                return f;
            }
        }
    }
}

fn me() -> String {
    paddockd::users::name_of(rustix::process::geteuid().as_raw())
}

#[tokio::test]
async fn websocket_token_auth_then_a_streamed_turn_and_close_at_shutdown() {
    let d = ws_daemon(WsAuth::Token).await;
    let addr = ws_addr(&d).await;
    // The token was made at the first start, private to the user.
    let token_file = d.cfg.data_dir.join(paddockd::config::ws::TOKEN_FILE);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "ws-token mode {mode:o}");
    let token = generated_token(&d);

    // No token, a wrong one, one in the wrong scheme: 401 with a body saying what to do.
    let (status, body) = WsClient::connect(addr, "/", &[]).await.err().unwrap();
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body.contains("Authorization: Bearer"), "{body}");
    let wrong = format!("Bearer {}x", token);
    let (status, body) = WsClient::connect(addr, "/", &[("Authorization", &wrong)])
        .await
        .err()
        .unwrap();
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body.contains("wrong token"), "{body}");
    let basic = format!("Basic {token}");
    let (status, _) = WsClient::connect(addr, "/", &[("Authorization", &basic)])
        .await
        .err()
        .unwrap();
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = WsClient::connect(addr, "/?token=nope-nope-nope-nope", &[])
        .await
        .err()
        .unwrap();
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // The right token in the query (browsers), then in the header.
    let mut q = WsClient::connect(addr, &format!("/ws?token={token}"), &[])
        .await
        .unwrap();
    assert_eq!(q.hello().await.user, me());
    assert_eq!(q.request(Request::Ping).await.unwrap(), Reply::Pong);

    let bearer = format!("Bearer {token}");
    let mut c = WsClient::connect(addr, "/", &[("Authorization", &bearer)])
        .await
        .unwrap();
    // Requests before hello are refused, as on the socket.
    assert_eq!(
        c.request(Request::Ping).await.unwrap_err().code,
        ErrorCode::HelloRequired
    );
    let hello = c.hello().await;
    assert_eq!(hello.user, me());
    assert_eq!(hello.protocol_version, PROTOCOL_VERSION);

    // A turn streamed with the fake claude: every frame a text message, seqs from 1.
    let sent = c
        .send_turn(None, &slow_text("Hello over a WebSocket", 4, 5))
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert_eq!(text_of(&frames), "Hello over a WebSocket");
    assert!(complete_of(&frames).success);
    let seqs: Vec<u64> = frames.iter().map(|f| f.routing.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    // The socket's clients see the same chat.
    let mut unix = d.client().await;
    let Reply::Chats(list) = unix
        .request(Request::ChatList(paddock_proto::ChatList {
            project_slug: Some(String::new()),
            scope: Default::default(),
            since: None,
            full_titles: false,
        }))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert!(list.chats.iter().any(|c| c.session_id == sent.session_id));

    // Shutdown closes the WebSocket with "going away".
    d.stop().await.unwrap();
    let frame = c.closed().await.expect("a close frame");
    assert_eq!(frame.code, CloseCode::Away);
}

#[tokio::test]
async fn websocket_token_from_a_named_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, "  a-token-of-our-own-choosing\n").unwrap();
    let named = file.clone();
    let d = TestDaemon::start_with(move |c| {
        c.ws.listen = Some("127.0.0.1:0".parse().unwrap());
        c.ws.token_file = Some(named);
    })
    .await;
    let addr = ws_addr(&d).await;
    assert!(
        !d.cfg
            .data_dir
            .join(paddockd::config::ws::TOKEN_FILE)
            .exists()
    );
    let mut c = WsClient::connect(
        addr,
        "/",
        &[("Authorization", "Bearer a-token-of-our-own-choosing")],
    )
    .await
    .unwrap();
    c.hello().await;
    // Percent-encoded in the query, as a browser's URLSearchParams writes it.
    let mut q = WsClient::connect(addr, "/?token=a%2Dtoken-of-our-own-choosing", &[])
        .await
        .unwrap();
    q.hello().await;
    d.stop().await.unwrap();
}

#[tokio::test]
async fn websocket_trusted_header_names_the_user() {
    let d = TestDaemon::start_with(|c| {
        c.ws.listen = Some("127.0.0.1:0".parse().unwrap());
        c.ws.auth = WsAuth::TrustedHeader;
    })
    .await;
    let addr = ws_addr(&d).await;
    // Without the proxy's header: 401.
    let (status, body) = WsClient::connect(addr, "/", &[]).await.err().unwrap();
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body.contains("proxy"), "{body}");
    // A page of another origin, through the proxy with the user's cookie: refused.
    let (status, _) = WsClient::connect(
        addr,
        "/",
        &[
            ("X-Forwarded-User", "alice"),
            ("Origin", "https://evil.example"),
        ],
    )
    .await
    .err()
    .unwrap();
    assert_eq!(status, StatusCode::FORBIDDEN);
    // A token is no way in here.
    let (status, _) = WsClient::connect(addr, "/?token=whatever-whatever", &[])
        .await
        .err()
        .unwrap();
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let mut alice = WsClient::connect(addr, "/", &[("X-Forwarded-User", "alice")])
        .await
        .unwrap();
    assert_eq!(alice.hello().await.user, "alice");
    let mut bob = WsClient::connect(
        addr,
        "/",
        &[
            ("x-forwarded-user", "bob"),
            ("Origin", &format!("http://{addr}")),
        ],
    )
    .await
    .unwrap();
    assert_eq!(bob.hello().await.user, "bob");

    // Read state is per user: what alice marks, bob does not see, and the other way round.
    let sent = alice.send_turn(None, "hello from alice").await;
    alice.frames_until_complete(&sent.session_id).await;
    let session = sent.session_id.clone();
    let unread = async |c: &mut WsClient| {
        let Reply::Chats(list) = c
            .request(Request::ChatList(paddock_proto::ChatList {
                project_slug: Some(String::new()),
                scope: Default::default(),
                since: None,
                full_titles: false,
            }))
            .await
            .unwrap()
        else {
            panic!()
        };
        list.chats
            .iter()
            .find(|c| c.session_id == session)
            .map(|c| c.unread)
    };
    // The chat reaches the index shortly after the turn.
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while unread(&mut alice).await.is_none() {
        assert!(tokio::time::Instant::now() < deadline, "chat never listed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mark = async |c: &mut WsClient, action: ChatAction| {
        c.request(Request::ChatUpdate(ChatUpdate {
            session_ids: vec![session.clone()],
            action,
        }))
        .await
        .unwrap();
    };
    mark(&mut alice, ChatAction::Read).await;
    mark(&mut bob, ChatAction::Read).await;
    mark(&mut alice, ChatAction::Unread).await;
    assert_eq!(unread(&mut alice).await, Some(true));
    assert_eq!(unread(&mut bob).await, Some(false));
    mark(&mut bob, ChatAction::Unread).await;
    mark(&mut alice, ChatAction::Read).await;
    assert_eq!(unread(&mut alice).await, Some(false));
    assert_eq!(unread(&mut bob).await, Some(true));
    d.stop().await.unwrap();
}

/// A daemon configuration for `run` directly (these daemons must not start, or are checked
/// by hand): the test harness's defaults in `dir`.
fn run_config(dir: &Path) -> paddockd::Config {
    let mut cfg =
        paddockd::Config::for_data_dir(&dir.join("data"), &dir.join("run").join("paddockd.sock"));
    cfg.claude_bin = fake_claude();
    cfg
}

/// The `ws_*` settings as the real loader reads them from these environment variables.
fn ws_from_env(vars: &[(&str, &str)]) -> Result<paddockd::config::ws::WsConfig, String> {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let sources = paddockd::config::Sources {
        config_file: Some(dir.path().join("empty.toml")),
        socket: Some(dir.path().join("s.sock")),
    };
    std::fs::write(dir.path().join("empty.toml"), "").unwrap();
    let data = dir.path().to_string_lossy().into_owned();
    let lookup = |k: &str| match k {
        "PADDOCK_DATA_DIR" => Some(data.clone()),
        _ => map.get(k).cloned(),
    };
    paddockd::Config::load_with(&sources, &lookup)
        .map(|c| c.ws)
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn websocket_bind_refusals() {
    // An open bind without authentication: the loader refuses, naming every fix.
    let open = [
        ("PADDOCK_WS_LISTEN", "0.0.0.0:0"),
        ("PADDOCK_WS_AUTH", "none"),
    ];
    let err = ws_from_env(&open).unwrap_err();
    for want in [
        "ws_listen = 0.0.0.0:0 with ws_auth = none",
        "ws_auth = token",
        "127.0.0.1:0",
        "PADDOCK_DANGEROUSLY_ALLOW_OPEN=1",
    ] {
        assert!(err.contains(want), "{want} missing from: {err}");
    }
    // So does `run`, for a configuration built by hand.
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = run_config(dir.path());
    cfg.ws.listen = Some("0.0.0.0:0".parse().unwrap());
    cfg.ws.auth = WsAuth::None;
    let err = paddockd::run(cfg.clone(), async {}).await.unwrap_err();
    assert!(
        format!("{err:#}").contains("PADDOCK_DANGEROUSLY_ALLOW_OPEN"),
        "{err:#}"
    );
    // Trusted headers on an open bind: refused too.
    cfg.ws.auth = WsAuth::TrustedHeader;
    let err = paddockd::run(cfg.clone(), async {}).await.unwrap_err();
    assert!(format!("{err:#}").contains("X-Forwarded-User"), "{err:#}");
    let err = ws_from_env(&[
        ("PADDOCK_WS_LISTEN", "[::]:0"),
        ("PADDOCK_WS_AUTH", "trusted-header"),
    ])
    .unwrap_err();
    assert!(err.contains("reverse proxy"), "{err}");

    // A port already taken: a clear start-up error.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mut cfg = run_config(dir.path());
    cfg.ws.listen = Some(taken.local_addr().unwrap());
    let err = paddockd::run(cfg, async {}).await.unwrap_err();
    let err = format!("{err:#}");
    assert!(
        err.contains("cannot listen for WebSockets") && err.contains("choose another ws_listen"),
        "{err}"
    );
    drop(taken);

    // With the danger accepted (for this load only), it starts and lets anyone in.
    let mut allowed = open.to_vec();
    allowed.push(("PADDOCK_DANGEROUSLY_ALLOW_OPEN", "1"));
    let ws = ws_from_env(&allowed).unwrap();
    assert!(ws.dangerously_allow_open);
    let d = TestDaemon::start_with(move |c| c.ws = ws).await;
    let addr = ws_addr(&d).await;
    assert!(addr.ip().is_unspecified(), "{addr}");
    let local: SocketAddr = ([127, 0, 0, 1], addr.port()).into();
    let mut c = WsClient::connect(local, "/", &[]).await.unwrap();
    assert_eq!(c.hello().await.user, me());
    d.stop().await.unwrap();
}

#[tokio::test]
async fn websocket_open_on_loopback_refuses_other_origins() {
    let d = ws_daemon(WsAuth::None).await;
    let addr = ws_addr(&d).await;
    let mut c = WsClient::connect(addr, "/", &[]).await.unwrap();
    c.hello().await;
    // Another page in the user's browser may not drive the daemon...
    let (status, _) = WsClient::connect(addr, "/", &[("Origin", "http://localhost:3000")])
        .await
        .err()
        .unwrap();
    assert_eq!(status, StatusCode::FORBIDDEN);
    // ...nor a site whose name was made to resolve to 127.0.0.1 (DNS rebinding).
    let (status, _) = WsClient::connect(
        addr,
        "/",
        &[
            ("Host", "rebound.example:7777"),
            ("Origin", "http://rebound.example:7777"),
        ],
    )
    .await
    .err()
    .unwrap();
    assert_eq!(status, StatusCode::FORBIDDEN);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn websocket_idle_connections_do_not_hold_up_an_upgrade() {
    let d = ws_daemon(WsAuth::Token).await;
    let addr = ws_addr(&d).await;
    let bearer = format!("Bearer {}", generated_token(&d));
    // More connections that never send an upgrade than any fixed number of handshake slots,
    // from 20 addresses (5 each, under the per-address limit), all held open.
    let idle = idle_connections(addr, 100, 20).await;
    let mut c = tokio::time::timeout(
        DEADLINE,
        WsClient::connect(addr, "/", &[("Authorization", &bearer)]),
    )
    .await
    .expect("upgraded before the deadline")
    .unwrap();
    c.hello().await;
    assert_eq!(c.request(Request::Ping).await.unwrap(), Reply::Pong);
    // Let in while every idle connection is still open, not after they were timed out.
    let closed = idle.iter().filter(|s| closed_by_server(s)).count();
    assert_eq!(closed, 0, "{closed} idle connections were closed first");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn websocket_closes_a_connection_that_does_not_upgrade_in_time() {
    let d = TestDaemon::start_with(|c| {
        c.ws.listen = Some("127.0.0.1:0".parse().unwrap());
        c.net.header_timeout = Duration::from_millis(300);
    })
    .await;
    let addr = ws_addr(&d).await;
    let mut idle = TcpStream::connect(addr).await.unwrap();
    closed_without_a_word(&mut idle).await;
    // A client that upgrades at once is let in.
    let bearer = format!("Bearer {}", generated_token(&d));
    let mut c = WsClient::connect(addr, "/", &[("Authorization", &bearer)])
        .await
        .unwrap();
    c.hello().await;
    d.stop().await.unwrap();
}

#[tokio::test]
async fn websocket_malformed_binary_and_oversize_messages() {
    let d = ws_daemon(WsAuth::Token).await;
    let addr = ws_addr(&d).await;
    let bearer = format!("Bearer {}", generated_token(&d));
    let mut c = WsClient::connect(addr, "/", &[("Authorization", &bearer)])
        .await
        .unwrap();
    c.hello().await;
    // Not JSON: a connection-level malformed_frame, and the connection goes on.
    c.send_text("this is not json").await;
    assert_eq!(c.connection_error().await, ErrorCode::MalformedFrame);
    // Two messages in one text message: malformed too.
    c.send_text("{\"id\":5,\"type\":\"ping\"}\n{\"id\":6,\"type\":\"ping\"}")
        .await;
    assert_eq!(c.connection_error().await, ErrorCode::MalformedFrame);
    // An unknown type with an id is answered for that id.
    c.send_text("{\"id\":77,\"type\":\"no:such\"}").await;
    assert_eq!(
        c.response(77).await.unwrap_err().code,
        ErrorCode::MalformedFrame
    );
    // A binary message: malformed_frame, the connection goes on.
    c.ws.send(Message::binary(b"{\"id\":8,\"type\":\"ping\"}".to_vec()))
        .await
        .unwrap();
    assert_eq!(c.connection_error().await, ErrorCode::MalformedFrame);
    assert_eq!(c.request(Request::Ping).await.unwrap(), Reply::Pong);
    // A message at the limit is read (and is malformed); one past it gets frame_too_large,
    // then the connection is closed with 1009: unlike a socket line, the rest of a
    // WebSocket message cannot be skipped.
    c.send_text(&"x".repeat(paddock_proto::MAX_LINE_BYTES))
        .await;
    assert_eq!(c.connection_error().await, ErrorCode::MalformedFrame);
    c.send_text(&"x".repeat(paddock_proto::MAX_LINE_BYTES + 10))
        .await;
    assert_eq!(c.connection_error().await, ErrorCode::FrameTooLarge);
    let frame = c.closed().await.expect("a close frame");
    assert_eq!(frame.code, CloseCode::Size);
    drop(c);
    // Other clients are not disturbed.
    let mut other = WsClient::connect(addr, "/", &[("Authorization", &bearer)])
        .await
        .unwrap();
    other.hello().await;
    assert_eq!(other.request(Request::Ping).await.unwrap(), Reply::Pong);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn websocket_client_that_never_reads_is_resynced_without_slowing_others() {
    let d = TestDaemon::start_with(|c| {
        c.ws.listen = Some("127.0.0.1:0".parse().unwrap());
        c.hub_buffer_frames = 64;
        c.client_queue = 128;
    })
    .await;
    let addr = ws_addr(&d).await;
    let bearer = format!("Bearer {}", generated_token(&d));
    let mut stalled = WsClient::connect(addr, "/", &[("Authorization", &bearer)])
        .await
        .unwrap();
    stalled.hello().await;
    let mut a = d.client().await;
    let first = a.send_turn("", None, "warm up").await;
    a.frames_until_complete(&first.session_id).await;
    let id = stalled
        .send(Request::ChatSubscribe(ChatSubscribe {
            session_id: first.session_id.clone(),
            want_replay: false,
            last_seq: None,
        }))
        .await;
    stalled.response(id).await.unwrap();
    // Two turns of 6 MB each (a 3 MB user frame and 300 deltas of 10 KB): far more than TCP's
    // buffers on both sides (4 MB at most here) and the client's queue. The stalled client
    // reads nothing now.
    let text = "y".repeat(10_000 * 300);
    for _ in 0..2 {
        let sent = a
            .send_turn("", Some(&first.session_id), &slow_text(&text, 300, 0))
            .await;
        let frames = a.frames_until_complete(&sent.session_id).await;
        assert_eq!(text_of(&frames).len(), text.len());
        assert!(complete_of(&frames).success);
    }
    // Now it reads: it was dropped from the stream and told to resync.
    let mut resync = None;
    while resync.is_none() {
        match stalled.next_in().await {
            In::Msg(m) => {
                if let ServerMessage::Control(ControlMessage::Resync(r)) = *m {
                    resync = Some(r.reason);
                }
            }
            In::Close(f) => panic!("closed: {f:?}"),
        }
    }
    assert_eq!(resync, Some(ResyncReason::SlowClient));
    assert_eq!(stalled.request(Request::Ping).await.unwrap(), Reply::Pong);
    d.stop().await.unwrap();
}
