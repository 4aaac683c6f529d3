//! One client connection: the peer check, the handshake, request dispatch, and the writer
//! that drains the client's bounded queues.
//!
//! Every request gets exactly one response. Malformed and oversize lines are answered with an
//! error and the connection stays usable; nothing a client sends can take the daemon down.
//!
//! The transport is generic: [`serve_client`] reads messages from a [`FrameSource`] and writes
//! lines to a [`FrameSink`]. The Unix socket ([`serve`]) reads JSON lines; the WebSocket
//! (`websocket.rs`) reads one text message per line. Everything past the framing (handshake,
//! dispatch, the bounded queues and the slow-client policy) is the same code for both.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use interprocess::local_socket::tokio::Stream;
use interprocess::local_socket::traits::StreamCommon;
use paddock_proto::{
    ClientMessage, ConnectionError, ControlMessage, ErrorBody, ErrorCode, FrameError, HelloReply,
    LineFramer, Outcome, PROTOCOL_VERSION, ProtocolMismatch, Reply, Request, Response,
    ServerMessage,
};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::handles::Daemon;
use crate::hub::{ClientId, ClientSink, Line, RESYNC_QUEUE};

mod requests;

pub async fn serve(stream: Stream, d: Arc<Daemon>) {
    let id = d.next_client_id();
    let uid = match stream.peer_creds().map(|c| c.euid()) {
        Ok(Some(uid)) => uid,
        other => {
            tracing::warn!(
                client = id,
                "cannot read peer credentials ({other:?}); refusing"
            );
            return;
        }
    };
    let me = rustix::process::geteuid().as_raw();
    if uid != me {
        tracing::warn!(client = id, uid, "refusing a connection from another user");
        let err = connection_error(ErrorBody::new(
            ErrorCode::PermissionDenied,
            format!("this paddockd belongs to uid {me}; connections from uid {uid} are refused"),
        ));
        let mut s = &stream;
        let _ = s.write_all(err.as_bytes()).await;
        let _ = s.shutdown().await;
        // Read what the peer already sent before closing: closing with unread input makes the
        // kernel reset the connection, and the peer would lose the explanation.
        let mut sink = [0u8; 4096];
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), async {
            while let Ok(n) = s.read(&mut sink).await {
                if n == 0 {
                    break;
                }
            }
        })
        .await;
        return;
    }
    let stream = Arc::new(stream);
    let source = LineSource {
        stream: stream.clone(),
        framer: LineFramer::default(),
        buf: vec![0u8; 64 * 1024],
    };
    let sink = LineSink {
        stream,
        buf: Vec::with_capacity(LINE_SINK_BUFFER),
    };
    serve_client(d, id, crate::users::name_of(uid), source, sink).await;
}

/// Where a connection's messages come from, one at a time.
pub trait FrameSource: Send {
    /// The next message (its bytes, without a line ending); a framing error to answer, after
    /// which reading goes on; or `None` once the client is gone (or the transport cannot go
    /// on). Must be cancel-safe: the connection stops waiting for it when it is closed.
    fn next_frame(&mut self) -> impl Future<Output = Option<Result<Vec<u8>, FrameError>>> + Send;
}

/// Where a connection's responses, events and frames go.
pub trait FrameSink: Send + 'static {
    /// Writes one encoded line (it ends in `\n`); may buffer until [`FrameSink::flush`].
    fn write_line(&mut self, line: &str) -> impl Future<Output = std::io::Result<()>> + Send;
    fn flush(&mut self) -> impl Future<Output = std::io::Result<()>> + Send;
    /// The connection is over; `killed`: the daemon cut it off (a client too slow to keep up),
    /// rather than the client leaving or the daemon closing after delivering everything
    /// queued. Last words, if the transport has any.
    fn finish(self, killed: bool) -> impl Future<Output = ()> + Send;
}

/// How long the writer gets, once the client has stopped sending (or its transport failed),
/// to deliver what was already queued for it: the answers to its last requests, or the error
/// that explains why its WebSocket is being closed.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Serves one client, already let in as `user`: the handshake, requests, and the writer that
/// drains its bounded queues into `out`.
pub async fn serve_client(
    d: Arc<Daemon>,
    id: ClientId,
    user: String,
    mut source: impl FrameSource,
    out: impl FrameSink,
) {
    let (frames_tx, frames_rx) = mpsc::channel(d.cfg.client_queue);
    let (resync_tx, resync_rx) = mpsc::channel(RESYNC_QUEUE);
    // Two ways for the daemon to end a connection. `kill` (this client only: too slow to keep
    // up, or past its drain grace) stops the writer at once. `closing` (every client: the
    // daemon is shutting down) only stops reading; the writer then delivers what is queued,
    // within DRAIN_GRACE, so a client is always told `daemon:stopping` before the close.
    let kill = CancellationToken::new();
    let closing = d.close_clients.child_token();
    let sink = ClientSink {
        id,
        frames: frames_tx.clone(),
        resync: resync_tx,
        kill: kill.clone(),
        agent: false,
    };
    let done = CancellationToken::new();
    let mut writer = d.tasks.spawn(write_loop(
        out,
        frames_rx,
        resync_rx,
        kill.clone(),
        done.clone(),
    ));
    let mut conn = Connection {
        id,
        user,
        d: d.clone(),
        out: frames_tx,
        sink: Some(sink),
        greeted: false,
    };
    conn.read_loop(&mut source, &kill, &closing).await;
    drop(conn);
    // Deliver what is already queued (within DRAIN_GRACE), then leave the hub. A writer stuck
    // on a client that does not read is dropped: nothing else would ever free it.
    done.cancel();
    if tokio::time::timeout(DRAIN_GRACE, &mut writer)
        .await
        .is_err()
    {
        kill.cancel();
        writer.abort();
        let _ = writer.await;
    }
    d.hub.unregister(id).await;
    kill.cancel();
    tracing::debug!(client = id, "connection closed");
}

struct Connection {
    id: ClientId,
    user: String,
    d: Arc<Daemon>,
    /// This client's frame queue, for responses. Awaiting on it applies backpressure to this
    /// client's own reads only.
    out: mpsc::Sender<Line>,
    /// Handed to the hub at a successful hello.
    sink: Option<ClientSink>,
    greeted: bool,
}

impl Connection {
    async fn read_loop(
        &mut self,
        source: &mut impl FrameSource,
        kill: &CancellationToken,
        closing: &CancellationToken,
    ) {
        loop {
            let frame = tokio::select! {
                () = kill.cancelled() => return,
                () = closing.cancelled() => return,
                f = source.next_frame() => match f {
                    Some(f) => f,
                    None => return,
                },
            };
            match frame {
                Ok(line) => self.line(&line).await,
                Err(FrameError::TooLong { len, max }) => {
                    self.send_error(ErrorBody::new(
                        ErrorCode::FrameTooLarge,
                        format!(
                            "a message of {len} bytes exceeds the {max}-byte limit; it was discarded"
                        ),
                    ))
                    .await;
                }
                Err(e) => {
                    self.send_error(ErrorBody::new(ErrorCode::MalformedFrame, e.to_string()))
                        .await
                }
            }
        }
    }

    async fn line(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let msg: ClientMessage = match paddock_proto::decode(line) {
            Ok(m) => m,
            Err(e) => {
                // Answer the request id if the line had one, so the client is not left waiting.
                let id = serde_json::from_slice::<Value>(line)
                    .ok()
                    .and_then(|v| v.get("id").and_then(Value::as_u64));
                let body = ErrorBody::new(ErrorCode::MalformedFrame, e.to_string());
                match id {
                    Some(id) => self.respond(id, Outcome::Err(body)).await,
                    None => self.send_error(body).await,
                }
                return;
            }
        };
        let id = msg.id;
        if !self.greeted && !matches!(msg.request, Request::Hello(_)) {
            let body = ErrorBody::new(
                ErrorCode::HelloRequired,
                format!("send hello first (got {})", msg.request.name()),
            );
            self.respond(id, Outcome::Err(body)).await;
            return;
        }
        if let Some(outcome) = self.dispatch(id, msg.request).await {
            self.respond(id, outcome).await;
        }
    }

    /// Answers `hello`; on success the client is registered with the hub, so the
    /// `chat:active` events for running chats follow the reply.
    async fn hello(&mut self, id: u64, hello: paddock_proto::Hello) {
        if hello.protocol_version != PROTOCOL_VERSION {
            let running = self
                .d
                .hub
                .snapshot()
                .await
                .turns
                .iter()
                .filter(|t| t.running)
                .count();
            let mut body = ErrorBody::new(
                ErrorCode::ProtocolMismatch,
                format!(
                    "this paddockd speaks protocol {PROTOCOL_VERSION} (version {}), the client {} ({}); restart the daemon with `paddock daemon restart`",
                    env!("CARGO_PKG_VERSION"),
                    hello.protocol_version,
                    hello.client
                ),
            );
            body.mismatch = Some(Box::new(ProtocolMismatch {
                daemon_protocol: PROTOCOL_VERSION,
                daemon_version: env!("CARGO_PKG_VERSION").to_owned(),
                pid: std::process::id(),
                running_turns: u32::try_from(running).unwrap_or(u32::MAX),
            }));
            self.respond(id, Outcome::Err(body)).await;
            return;
        }
        let reply = Outcome::Ok(Reply::Hello(HelloReply {
            protocol_version: PROTOCOL_VERSION,
            daemon_version: env!("CARGO_PKG_VERSION").to_owned(),
            pid: std::process::id(),
            user: self.user.clone(),
        }));
        self.greeted = true;
        self.respond(id, reply).await;
        if let Some(mut sink) = self.sink.take() {
            sink.agent = hello.client == paddock_proto::MCP_BRIDGE_CLIENT;
            self.d.hub.register(sink).await;
        }
        let pending = self.d.state.approvals.count();
        if pending > 0 {
            let msg = ServerMessage::Control(ControlMessage::ApprovalsChanged(
                paddock_proto::ApprovalsChanged { pending },
            ));
            self.send(&msg).await;
        }
    }

    async fn respond(&self, id: u64, outcome: Outcome) {
        let msg = ServerMessage::Control(ControlMessage::Response(Response { id, outcome }));
        self.send(&msg).await;
    }

    async fn send_error(&self, error: ErrorBody) {
        let msg = ServerMessage::Control(ControlMessage::Error(ConnectionError { error }));
        self.send(&msg).await;
    }

    /// Queues a line already encoded (newline included).
    async fn send_line(&self, line: String) {
        let _ = self.out.send(Arc::from(line)).await;
    }

    async fn send(&self, msg: &ServerMessage) {
        match paddock_proto::encode(msg) {
            Ok(line) => {
                let _ = self.out.send(Arc::from(line)).await;
            }
            Err(e) => tracing::error!(client = self.id, "cannot encode a response: {e}"),
        }
    }
}

fn connection_error(error: ErrorBody) -> String {
    let msg = ServerMessage::Control(ControlMessage::Error(ConnectionError { error }));
    paddock_proto::encode(&msg).unwrap_or_default()
}

/// Drains the client's queues into the sink, flushing when they run dry. On `kill` it stops at
/// once; on `done` (the client stopped sending) it writes what is queued, then stops.
async fn write_loop(
    mut out: impl FrameSink,
    mut frames: mpsc::Receiver<Line>,
    mut resync: mpsc::Receiver<Line>,
    kill: CancellationToken,
    done: CancellationToken,
) {
    let mut killed = false;
    let mut resync_open = true;
    let mut draining = false;
    'serve: loop {
        let line = if draining {
            match resync.try_recv().or_else(|_| frames.try_recv()) {
                Ok(l) => l,
                Err(_) => break,
            }
        } else {
            tokio::select! {
                () = kill.cancelled() => {
                    killed = true;
                    break;
                }
                () = done.cancelled() => {
                    draining = true;
                    continue;
                }
                l = frames.recv() => match l {
                    Some(l) => l,
                    None => break,
                },
                l = resync.recv(), if resync_open => match l {
                    Some(l) => l,
                    None => {
                        resync_open = false;
                        continue;
                    }
                },
            }
        };
        if out.write_line(&line).await.is_err() {
            break;
        }
        // Batch whatever else is already queued before paying for a flush.
        while let Ok(more) = frames.try_recv() {
            if out.write_line(&more).await.is_err() {
                break 'serve;
            }
        }
        if out.flush().await.is_err() {
            break;
        }
    }
    out.finish(killed || kill.is_cancelled()).await;
    kill.cancel();
}

/// The Unix socket's side of a connection: JSON lines in.
struct LineSource {
    stream: Arc<Stream>,
    framer: LineFramer,
    buf: Vec<u8>,
}

impl FrameSource for LineSource {
    async fn next_frame(&mut self) -> Option<Result<Vec<u8>, FrameError>> {
        loop {
            if let Some(frame) = self.framer.next_frame() {
                return Some(frame);
            }
            let mut reader = &*self.stream;
            match reader.read(&mut self.buf).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => self.framer.push(&self.buf[..n]),
            }
        }
    }
}

/// Bytes the Unix sink gathers before writing them out (a longer line is written directly).
const LINE_SINK_BUFFER: usize = 64 * 1024;

/// The Unix socket's side of a connection: JSON lines out, batched up to [`LINE_SINK_BUFFER`].
struct LineSink {
    stream: Arc<Stream>,
    buf: Vec<u8>,
}

impl FrameSink for LineSink {
    async fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        if self.buf.len() + line.len() > LINE_SINK_BUFFER {
            self.flush().await?;
        }
        if line.len() >= LINE_SINK_BUFFER {
            let mut w = &*self.stream;
            return w.write_all(line.as_bytes()).await;
        }
        self.buf.extend_from_slice(line.as_bytes());
        Ok(())
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        let mut w = &*self.stream;
        if !self.buf.is_empty() {
            w.write_all(&self.buf).await?;
            self.buf.clear();
        }
        w.flush().await
    }

    async fn finish(mut self, _killed: bool) {
        let _ = self.flush().await;
    }
}
