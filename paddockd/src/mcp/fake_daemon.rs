//! A stand-in for paddockd in the MCP bridge's tests: a Unix socket on a temporary path that
//! answers `hello`, `agent:tools` and `agent:call` with canned replies and records every
//! request it got. Shared by the unit tests and `paddockd/tests/mcp_bridge.rs` (by `#[path]`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use paddock_proto::{
    Active, AgentResult, AgentTool, AgentTools, ChatEvent, ChatsChanged, ClientMessage,
    ControlMessage, ErrorBody, ErrorCode, HelloReply, HubFrame, Outcome, PROTOCOL_VERSION, Reply,
    Request, Response, Routing, ServerMessage, TextDelta,
};
use serde_json::json;

/// The only token the fake accepts.
pub const TOKEN: &str = "pdk_test_token";

/// How the fake behaves.
#[derive(Debug, Clone, Copy, Default)]
pub struct Behaviour {
    /// Push a hub frame, `chat:active` and `chats:changed` before every answer.
    pub push_events: bool,
    /// Close the connection right after answering each `agent:*` request.
    pub close_after_answer: bool,
    /// Close the connection on an `agent:*` request without answering it.
    pub close_without_answer: bool,
    /// Answer every `agent:*` request with `pong`, a reply of the wrong kind.
    pub wrong_kind: bool,
}

#[derive(Debug, Default)]
struct State {
    requests: Vec<ClientMessage>,
    connections: usize,
    closed: usize,
}

pub struct FakeDaemon {
    pub socket: PathBuf,
    state: Arc<(Mutex<State>, Condvar)>,
    stop: Arc<AtomicBool>,
    _dir: tempfile::TempDir,
}

impl FakeDaemon {
    pub fn start(behaviour: Behaviour) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("paddockd.sock");
        let listener = UnixListener::bind(&socket).unwrap();
        let state = Arc::new((Mutex::new(State::default()), Condvar::new()));
        let stop = Arc::new(AtomicBool::new(false));
        {
            let state = Arc::clone(&state);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    state.0.lock().unwrap().connections += 1;
                    let state = Arc::clone(&state);
                    std::thread::spawn(move || serve(stream, behaviour, &state));
                }
            });
        }
        Self {
            socket,
            state,
            stop,
            _dir: dir,
        }
    }

    /// Every request received so far, in order (across connections).
    pub fn requests(&self) -> Vec<ClientMessage> {
        self.state.0.lock().unwrap().requests.clone()
    }

    pub fn connections(&self) -> usize {
        self.state.0.lock().unwrap().connections
    }

    /// Waits (up to a deadline) until the fake has closed `n` connections itself.
    pub fn wait_closed(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let (lock, cvar) = &*self.state;
        let mut st = lock.lock().unwrap();
        while st.closed < n {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "the fake daemon closed {} of {n}",
                st.closed
            );
            st = cvar.wait_timeout(st, left).unwrap().0;
        }
    }
}

impl Drop for FakeDaemon {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees `stop`.
        let _ = UnixStream::connect(&self.socket);
    }
}

/// The canned tool list.
pub fn tools() -> Vec<AgentTool> {
    vec![AgentTool {
        name: "create_chat".into(),
        description: "Start a new chat (a child of this one) with a first prompt.".into(),
        input_schema: json!({"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}),
    }]
}

fn serve(stream: UnixStream, behaviour: Behaviour, state: &(Mutex<State>, Condvar)) {
    let mut writer = stream.try_clone().unwrap();
    let reader = BufReader::new(stream);
    for line in reader.lines() {
        let Ok(line) = line else { break };
        let msg: ClientMessage = match serde_json::from_str(&line) {
            Ok(m) => m,
            Err(e) => panic!("the bridge sent a line the daemon cannot read: {e}: {line}"),
        };
        state.0.lock().unwrap().requests.push(msg.clone());
        let is_agent = matches!(msg.request, Request::AgentTools(_) | Request::AgentCall(_));
        if is_agent && behaviour.close_without_answer {
            break;
        }
        if behaviour.push_events {
            for event in pushed_events() {
                writer.write_all(event.as_bytes()).unwrap();
            }
        }
        let outcome = if is_agent && behaviour.wrong_kind {
            Outcome::Ok(Reply::Pong)
        } else {
            answer(&msg.request)
        };
        let line = paddock_proto::encode(&ServerMessage::Control(ControlMessage::Response(
            Response {
                id: msg.id,
                outcome,
            },
        )))
        .unwrap();
        if writer.write_all(line.as_bytes()).is_err() {
            break;
        }
        if is_agent && behaviour.close_after_answer {
            break;
        }
    }
    let _ = writer.shutdown(std::net::Shutdown::Both);
    drop(writer);
    let (lock, cvar) = state;
    lock.lock().unwrap().closed += 1;
    cvar.notify_all();
}

fn answer(request: &Request) -> Outcome {
    let denied = || {
        Outcome::Err(ErrorBody::new(
            ErrorCode::PermissionDenied,
            "This agent token is not known to paddockd.",
        ))
    };
    match request {
        Request::Hello(h) if h.protocol_version == PROTOCOL_VERSION => {
            Outcome::Ok(Reply::Hello(HelloReply {
                protocol_version: PROTOCOL_VERSION,
                daemon_version: "0.1.0".into(),
                pid: 4242,
                user: "ana".into(),
            }))
        }
        Request::Hello(_) => Outcome::Err(ErrorBody::new(
            ErrorCode::ProtocolMismatch,
            "wrong protocol",
        )),
        Request::AgentTools(auth) if auth.token != TOKEN => denied(),
        Request::AgentTools(_) => Outcome::Ok(Reply::AgentTools(AgentTools { tools: tools() })),
        Request::AgentCall(call) if call.token != TOKEN => denied(),
        Request::AgentCall(call) if call.tool == "missing_chat" => Outcome::Err(ErrorBody::new(
            ErrorCode::NotFound,
            "No chat with session id 123.",
        )),
        Request::AgentCall(call) => Outcome::Ok(Reply::AgentResult(AgentResult {
            text: format!("{} ran with {}", call.tool, call.arguments),
            is_error: call.tool == "failing",
        })),
        _ => Outcome::Err(ErrorBody::new(ErrorCode::Internal, "not faked")),
    }
}

fn pushed_events() -> Vec<String> {
    let frame = ServerMessage::Frame(HubFrame {
        routing: Routing {
            project_slug: String::new(),
            session_id: "s-1".into(),
            job_id: "j-1".into(),
            seq: 1,
        },
        event: ChatEvent::Response(TextDelta { text: "hi".into() }),
    });
    let active = ServerMessage::Control(ControlMessage::Active(Active {
        project_slug: String::new(),
        session_id: "s-1".into(),
        job_id: "j-1".into(),
        running: true,
    }));
    let changed = ServerMessage::Control(ControlMessage::ChatsChanged(ChatsChanged {
        project_slug: "webapp".into(),
        session_id: None,
    }));
    vec![
        paddock_proto::encode(&frame).unwrap(),
        paddock_proto::encode(&active).unwrap(),
        // A pushed line this version cannot read, and a blank one: both skipped.
        "{\"type\":\"chat:something_new\",\"x\":1}\n".into(),
        "\n".into(),
        paddock_proto::encode(&changed).unwrap(),
    ]
}
