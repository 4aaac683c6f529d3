//! The bridge's connection to paddockd: a plain blocking Unix socket, `hello` first, then one
//! request at a time matched to its response by id.
//!
//! A reader thread owns the read half for the connection's whole life. It forwards responses
//! (and connection-level errors) to the requester and drops everything else the daemon pushes
//! (hub frames, `chat:active`, `chats:changed`), so pushed events never pile up in the socket
//! while the bridge is idle and the daemon never sees it as a slow client. When the daemon goes
//! away the reader notices at once, and the next request connects again first.

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use paddock_proto::{
    AgentAuth, AgentCall, AgentResult, AgentTool, AgentToolsRequest, Call, ClientMessage,
    ControlMessage, ErrorBody, ErrorCode, FromReply, Hello, HelloReply, LineFramer,
    MAX_SERVER_LINE_BYTES, Outcome, PROTOCOL_VERSION, Reply, Request, RequestId, ServerMessage,
};

/// Why a request to the daemon did not produce its reply.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("paddockd is not reachable at {}: {source}", socket.display())]
    Unreachable {
        socket: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("the connection to paddockd was lost")]
    Lost,
    #[error(
        "the connection to paddockd was lost while the call ran; it may or may not have taken effect"
    )]
    LostDuringCall,
    #[error("paddockd did not answer `{what}` within {} s", timeout.as_secs_f32())]
    Timeout {
        what: &'static str,
        timeout: Duration,
    },
    /// The daemon answered with an error (`permission_denied` for a token it does not know).
    #[error("{0}")]
    Refused(ErrorBody),
    #[error("paddockd answered `{what}` with an unexpected `{kind}` reply")]
    Unexpected {
        what: &'static str,
        kind: &'static str,
    },
    #[error("paddockd's answer could not be read: {0}")]
    Unreadable(String),
}

impl DaemonError {
    /// The daemon's error code, when it answered with one.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            DaemonError::Refused(body) => Some(body.code),
            _ => None,
        }
    }
}

/// How long the bridge waits for the daemon. `None`: as long as it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Connecting is immediate on a Unix socket; this bounds the `hello` answer.
    pub hello: Option<Duration>,
    /// `agent:tools`: the CLI lists tools at start-up and should not hang on it.
    pub tools: Option<Duration>,
    /// `agent:call`: a tool may legitimately take long; the CLI has its own timeout.
    pub call: Option<Duration>,
    /// A write to the daemon (requests are small; a daemon that reads nothing is stuck).
    pub write: Option<Duration>,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            hello: Some(Duration::from_secs(10)),
            tools: Some(Duration::from_secs(30)),
            call: None,
            write: Some(Duration::from_secs(30)),
        }
    }
}

/// A lazily connected, self-reconnecting client of paddockd for `agent:*` requests.
#[derive(Debug)]
pub struct DaemonClient {
    socket: PathBuf,
    timeouts: Timeouts,
    conn: Option<Connection>,
    next_id: RequestId,
}

impl DaemonClient {
    /// No connection is made until the first request.
    pub fn new(socket: impl Into<PathBuf>, timeouts: Timeouts) -> Self {
        Self {
            socket: socket.into(),
            timeouts,
            conn: None,
            next_id: 1,
        }
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// `agent:tools`: the tools the token's chat may use on this server.
    pub fn tools(&mut self, auth: &AgentAuth) -> Result<Vec<AgentTool>, DaemonError> {
        let tools = self.call_as(AgentToolsRequest(auth.clone()), self.timeouts.tools, true)?;
        Ok(tools.tools)
    }

    /// `agent:call`: runs one tool as the token's chat. Not retried once it may have reached
    /// the daemon, so a call never runs twice.
    pub fn call(&mut self, call: AgentCall) -> Result<AgentResult, DaemonError> {
        self.call_as(call, self.timeouts.call, false)
    }

    /// One request, answered with the reply type it is paired with.
    fn call_as<R: Call>(
        &mut self,
        request: R,
        timeout: Option<Duration>,
        idempotent: bool,
    ) -> Result<R::Reply, DaemonError> {
        let reply = self.request(request.into(), R::NAME, timeout, idempotent)?;
        typed::<R::Reply>(R::NAME, reply)
    }

    /// Sends one request and waits for its reply, connecting first when there is no live
    /// connection. A connection found dead (the daemon restarted since the last request) is
    /// replaced once; a request that may have reached the daemon is sent again only when
    /// `idempotent`.
    fn request(
        &mut self,
        request: Request,
        what: &'static str,
        timeout: Option<Duration>,
        idempotent: bool,
    ) -> Result<Reply, DaemonError> {
        let mut retried = false;
        loop {
            if self.conn.as_ref().is_none_or(|c| !c.is_alive()) {
                self.conn = None;
                let id = self.take_id();
                self.conn = Some(Connection::open(&self.socket, id, &self.timeouts)?);
            }
            let id = self.take_id();
            let Some(conn) = self.conn.as_mut() else {
                return Err(DaemonError::Lost);
            };
            let msg = ClientMessage {
                id,
                request: request.clone(),
            };
            if conn.send(&msg).is_err() {
                // Nothing reached the daemon: safe to send again on a new connection.
                self.conn = None;
                if retried {
                    return Err(DaemonError::Lost);
                }
                retried = true;
                continue;
            }
            match conn.wait(id, what, timeout) {
                Ok(reply) => return Ok(reply),
                Err(DaemonError::Lost) => {
                    self.conn = None;
                    if !idempotent {
                        return Err(DaemonError::LostDuringCall);
                    }
                    if retried {
                        return Err(DaemonError::Lost);
                    }
                    retried = true;
                }
                Err(e @ (DaemonError::Timeout { .. } | DaemonError::Unreadable(_))) => {
                    // The connection's state is unknown now: start afresh next time.
                    self.conn = None;
                    return Err(e);
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn take_id(&mut self) -> RequestId {
        let id = self.next_id;
        self.next_id += 1;
        id
    }
}

/// What the reader thread hands to the requester.
#[derive(Debug)]
enum Incoming {
    Response(RequestId, Outcome),
    /// A response whose body this version cannot read.
    Unreadable(RequestId, String),
    /// A connection-level error (our line was oversize or unreadable): it concerns the one
    /// request in flight.
    ConnectionError(ErrorBody),
}

#[derive(Debug)]
struct Connection {
    stream: UnixStream,
    incoming: Receiver<Incoming>,
    closed: Arc<AtomicBool>,
    reader: Option<JoinHandle<()>>,
}

impl Connection {
    /// Connects and says `hello`.
    fn open(socket: &Path, hello_id: RequestId, timeouts: &Timeouts) -> Result<Self, DaemonError> {
        let unreachable = |source| DaemonError::Unreachable {
            socket: socket.to_path_buf(),
            source,
        };
        let stream = UnixStream::connect(socket).map_err(unreachable)?;
        stream
            .set_write_timeout(timeouts.write)
            .map_err(unreachable)?;
        let read_half = stream.try_clone().map_err(unreachable)?;
        let (tx, rx) = mpsc::channel();
        let closed = Arc::new(AtomicBool::new(false));
        let reader = std::thread::Builder::new()
            .name("paddockd-reader".into())
            .spawn({
                let closed = Arc::clone(&closed);
                move || read_loop(read_half, &tx, &closed)
            })
            .map_err(unreachable)?;
        let mut conn = Self {
            stream,
            incoming: rx,
            closed,
            reader: Some(reader),
        };
        let hello = ClientMessage {
            id: hello_id,
            request: Request::Hello(Hello {
                protocol_version: PROTOCOL_VERSION,
                client: paddock_proto::MCP_BRIDGE_CLIENT.into(),
            }),
        };
        conn.send(&hello).map_err(unreachable)?;
        let reply = conn.wait(hello_id, "hello", timeouts.hello)?;
        typed::<HelloReply>("hello", reply)?;
        Ok(conn)
    }

    fn is_alive(&self) -> bool {
        !self.closed.load(Ordering::Acquire)
    }

    fn send(&mut self, msg: &ClientMessage) -> io::Result<()> {
        let line = paddock_proto::encode(msg).map_err(io::Error::other)?;
        self.stream.write_all(line.as_bytes())?;
        self.stream.flush()
    }

    /// The reply to request `id`; responses to other ids (a request given up on) are skipped.
    fn wait(
        &mut self,
        id: RequestId,
        what: &'static str,
        timeout: Option<Duration>,
    ) -> Result<Reply, DaemonError> {
        let deadline = timeout.map(|t| (Instant::now() + t, t));
        loop {
            let next = match deadline {
                Some((at, t)) => self
                    .incoming
                    .recv_timeout(at.saturating_duration_since(Instant::now()))
                    .map_err(|e| match e {
                        RecvTimeoutError::Timeout => DaemonError::Timeout { what, timeout: t },
                        RecvTimeoutError::Disconnected => DaemonError::Lost,
                    }),
                None => self.incoming.recv().map_err(|_| DaemonError::Lost),
            }?;
            match next {
                Incoming::Response(got, outcome) if got == id => {
                    return match outcome {
                        Outcome::Ok(reply) => Ok(reply),
                        Outcome::Err(body) => Err(DaemonError::Refused(body)),
                    };
                }
                Incoming::Unreadable(got, why) if got == id => {
                    return Err(DaemonError::Unreadable(why));
                }
                Incoming::ConnectionError(body) => return Err(DaemonError::Refused(body)),
                Incoming::Response(..) | Incoming::Unreadable(..) => {}
            }
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        // Wakes the reader thread out of its blocking read.
        let _ = self.stream.shutdown(Shutdown::Both);
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

/// Reads the daemon's lines until the connection ends; forwards what a request waits for.
fn read_loop(mut stream: UnixStream, tx: &Sender<Incoming>, closed: &AtomicBool) {
    let mut framer = LineFramer::new(MAX_SERVER_LINE_BYTES);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        framer.push(&buf[..n]);
        while let Some(frame) = framer.next_frame() {
            let Ok(line) = frame else { continue };
            if let Some(incoming) = classify(&line)
                && tx.send(incoming).is_err()
            {
                break;
            }
        }
    }
    // Set before the channel closes, so a requester that sees `Lost` also sees the flag.
    closed.store(true, Ordering::Release);
}

/// What a request could be waiting for in one line from the daemon; `None` for pushed events
/// and blank lines.
fn classify(line: &[u8]) -> Option<Incoming> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    match paddock_proto::decode_server(line) {
        Ok(ServerMessage::Control(ControlMessage::Response(r))) => {
            Some(Incoming::Response(r.id, r.outcome))
        }
        Ok(ServerMessage::Control(ControlMessage::Error(e))) => {
            Some(Incoming::ConnectionError(e.error))
        }
        Ok(_) => None,
        Err(e) => {
            // A response this version cannot read still ends its request.
            #[derive(serde::Deserialize)]
            struct Head {
                #[serde(rename = "type")]
                kind: String,
                id: Option<RequestId>,
            }
            match serde_json::from_slice::<Head>(line) {
                Ok(Head { kind, id: Some(id) }) if kind == "response" => {
                    Some(Incoming::Unreadable(id, e.to_string()))
                }
                _ => None,
            }
        }
    }
}

/// The typed reply `R` out of the daemon's answer to `what`; another kind is a protocol error.
fn typed<R: FromReply>(what: &'static str, reply: Reply) -> Result<R, DaemonError> {
    R::from_reply(reply).map_err(|other| DaemonError::Unexpected {
        what,
        kind: other.kind(),
    })
}
