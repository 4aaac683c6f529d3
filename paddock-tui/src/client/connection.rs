//! [`Client`]: one connection to paddockd, shared by reference; a reader task and a writer task
//! own the two halves of the transport: the Unix socket, or an ssh child's stdout and stdin
//! (`--remote`, see [`super::remote`]). Both carry the same JSON lines.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use paddock_proto::{
    Call, ClientMessage, ControlMessage, FromReply, Hello, HelloReply, LineFramer, Outcome,
    PROTOCOL_VERSION, Reply, Request, RequestId, ServerMessage, decode_server, encode,
};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::error::ClientError;
use super::events::{self, EVENT_QUEUE_CAPACITY, Event, EventSink, Events};
use super::raw::RawReply;

/// Knobs of a connection; the defaults suit an interactive command.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// How long the connect plus hello may take before the daemon counts as wedged.
    pub hello_timeout: Duration,
    /// How long any later request may wait for its response.
    pub request_timeout: Duration,
    /// The `client` text sent in hello.
    pub client_name: String,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            hello_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            client_name: format!("paddock {}", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// What a pending request receives: the daemon's outcome, or why it could not be read.
type Answer = Result<Outcome, String>;

/// What a request waiting for its reply as written receives: the response's line.
type RawAnswer = Result<Vec<u8>, String>;

/// A request waiting for its response.
#[derive(Debug)]
enum Waiter {
    Decoded(oneshot::Sender<Answer>),
    /// [`Client::call_raw`]: the line is not decoded.
    Raw(oneshot::Sender<RawAnswer>),
}

/// The half of a transport the client reads the daemon's lines from.
pub type Reader = Box<dyn AsyncRead + Send + Unpin>;
/// The half of a transport the client writes its request lines to.
pub type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// State shared by the client handle and its reader/writer tasks.
#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    pending: HashMap<RequestId, Waiter>,
    /// How many of `pending` are [`Waiter::Raw`].
    raw: usize,
    /// Why the connection ended, once it has: later requests fail at once with it.
    closed: Option<String>,
    /// The daemon said it is stopping on purpose (`daemon:stopping`): why the close will be.
    stopping: Option<String>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock cannot leave the map half-updated; carry on.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn register(&self, id: RequestId, waiter: Waiter) -> Result<(), ClientError> {
        let mut state = self.lock();
        if let Some(reason) = &state.closed {
            return Err(ClientError::ConnectionLost {
                reason: reason.clone(),
            });
        }
        if matches!(waiter, Waiter::Raw(_)) {
            state.raw += 1;
        }
        if let Some(Waiter::Raw(_)) = state.pending.insert(id, waiter) {
            state.raw -= 1;
        }
        Ok(())
    }

    /// The waiter of `id`, taken out of the pending ones.
    fn take(&self, id: RequestId) -> Option<Waiter> {
        let mut state = self.lock();
        let waiter = state.pending.remove(&id);
        if let Some(Waiter::Raw(_)) = waiter {
            state.raw -= 1;
        }
        waiter
    }

    fn complete(&self, id: RequestId, answer: Answer) {
        // No waiter: the request timed out or was dropped; its late answer means nothing.
        match self.take(id) {
            Some(Waiter::Decoded(tx)) => {
                let _ = tx.send(answer);
            }
            Some(Waiter::Raw(tx)) => {
                let _ = tx.send(Err(answer
                    .err()
                    .unwrap_or_else(|| "a reply was decoded".into())));
            }
            None => {}
        }
    }

    /// Hands `line` as it is to its request when that waits for it so ([`Client::call_raw`]);
    /// gives it back when no request does.
    fn complete_raw(&self, line: Vec<u8>) -> Option<Vec<u8>> {
        if self.lock().raw == 0 {
            return Some(line);
        }
        let Some(id) = super::raw::response_id(&line) else {
            return Some(line);
        };
        let mut state = self.lock();
        if !matches!(state.pending.get(&id), Some(Waiter::Raw(_))) {
            return Some(line);
        }
        state.raw -= 1;
        if let Some(Waiter::Raw(tx)) = state.pending.remove(&id) {
            let _ = tx.send(Ok(line));
        }
        None
    }

    fn forget(&self, id: RequestId) {
        self.take(id);
    }

    fn stopping(&self, message: String) {
        self.lock().stopping = Some(message);
    }

    /// Ends the connection: every waiting request fails with `reason` (dropping their senders),
    /// or with the daemon's own word when it said it was stopping.
    fn close(&self, reason: String) {
        let mut state = self.lock();
        if state.closed.is_none() {
            state.closed = Some(state.stopping.clone().unwrap_or(reason));
        }
        state.pending.clear();
        state.raw = 0;
    }

    fn lost(&self) -> ClientError {
        let reason = self
            .lock()
            .closed
            .clone()
            .unwrap_or_else(|| "paddockd closed the connection".to_owned());
        ClientError::ConnectionLost { reason }
    }
}

/// Removes a request's waiter however its future ends (answered, timed out, or dropped).
struct PendingGuard<'a> {
    shared: &'a Shared,
    id: RequestId,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.shared.forget(self.id);
    }
}

/// A connection to paddockd after a successful hello.
#[derive(Debug)]
pub struct Client {
    shared: Arc<Shared>,
    /// Whole lines to the writer task, so a dropped request never leaves half a line behind.
    lines: mpsc::Sender<String>,
    next_id: AtomicU64,
    hello: HelloReply,
    events: Option<Events>,
    socket: PathBuf,
    /// The ssh host under `--remote`.
    remote: Option<String>,
    request_timeout: Duration,
    tasks: Vec<JoinHandle<()>>,
    /// The ssh child carrying a remote connection; killed when the client is dropped.
    child: Option<tokio::process::Child>,
}

impl Drop for Client {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        // Dropping it kills it (`kill_on_drop`); say so explicitly anyway.
        if let Some(child) = &mut self.child {
            let _ = child.start_kill();
        }
    }
}

impl Client {
    /// Connects to the daemon on `socket` and says hello.
    pub async fn connect(socket: &Path) -> Result<Client, ClientError> {
        Self::connect_with(socket, ConnectOptions::default()).await
    }

    pub async fn connect_with(socket: &Path, opts: ConnectOptions) -> Result<Client, ClientError> {
        let hello_timeout = opts.hello_timeout;
        match tokio::time::timeout(hello_timeout, Self::handshake(socket, opts)).await {
            Ok(result) => result,
            Err(_) => Err(ClientError::Timeout {
                request: "hello",
                after: hello_timeout,
            }),
        }
    }

    async fn handshake(socket: &Path, opts: ConnectOptions) -> Result<Client, ClientError> {
        let stream = UnixStream::connect(socket).await.map_err(|source| {
            let socket = socket.to_path_buf();
            match source.kind() {
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => {
                    ClientError::NotRunning { socket, source }
                }
                _ => ClientError::Connect { socket, source },
            }
        })?;
        let (read, write) = stream.into_split();
        let mut client = Client::over(
            Box::new(read),
            Box::new(write),
            socket.to_path_buf(),
            None,
            opts.request_timeout,
        );
        client.hello(opts.client_name).await?;
        Ok(client)
    }

    /// A client speaking over any byte transport (its reader and writer tasks started), not
    /// yet greeted: [`Client::hello`] is the first request it must make. `remote` is the ssh
    /// host, when the transport goes through one; it names the far end in errors.
    pub(crate) fn over(
        read: Reader,
        write: Writer,
        socket: PathBuf,
        remote: Option<String>,
        request_timeout: Duration,
    ) -> Client {
        let peer = match &remote {
            Some(host) => format!("ssh {host}"),
            None => "paddockd".to_owned(),
        };
        let shared = Arc::new(Shared::default());
        let (sink, events) = events::channel(EVENT_QUEUE_CAPACITY);
        // A short queue: requests are small and the transport drains it quickly.
        let (lines, lines_rx) = mpsc::channel(64);
        let tasks = vec![
            tokio::spawn(read_loop(read, shared.clone(), sink, peer.clone())),
            tokio::spawn(write_loop(write, lines_rx, shared.clone(), peer)),
        ];
        Client {
            shared,
            lines,
            next_id: AtomicU64::new(1),
            hello: HelloReply {
                protocol_version: 0,
                daemon_version: String::new(),
                pid: 0,
                user: String::new(),
            },
            events: Some(events),
            socket,
            remote,
            request_timeout,
            tasks,
            child: None,
        }
    }

    /// Says hello (the first request on every connection) and keeps the daemon's answer.
    pub(crate) async fn hello(&mut self, client_name: String) -> Result<(), ClientError> {
        let hello = Hello {
            protocol_version: PROTOCOL_VERSION,
            client: client_name,
        };
        self.hello = self.call(hello).await?;
        Ok(())
    }

    /// Ties the process carrying the transport (ssh) and the tasks serving it to this client:
    /// they end when it is dropped.
    pub(crate) fn own(&mut self, child: tokio::process::Child, tasks: Vec<JoinHandle<()>>) {
        self.child = Some(child);
        self.tasks.extend(tasks);
    }

    /// The daemon's answer to hello (its version and pid).
    pub fn daemon(&self) -> &HelloReply {
        &self.hello
    }

    /// The daemon's socket: under `--remote`, the far side's (empty for its default).
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The ssh host this client reaches the daemon through, under `--remote`.
    pub fn remote(&self) -> Option<&str> {
        self.remote.as_deref()
    }

    pub fn set_request_timeout(&mut self, timeout: Duration) {
        self.request_timeout = timeout;
    }

    /// The pushed events, taken once by whoever consumes them. Until then they are queued
    /// (and, past the queue's capacity, dropped as described in [`super::Events`]).
    pub fn take_events(&mut self) -> Option<Events> {
        self.events.take()
    }

    /// Sends a request and waits for its typed reply: the way to ask the daemon something.
    /// A reply of another kind than the request's is a [`ClientError::Protocol`].
    pub async fn call<R: Call>(&self, request: R) -> Result<R::Reply, ClientError> {
        self.call_within(request, self.request_timeout).await
    }

    /// [`Client::call`] with its own time limit, for a request known to take long (a
    /// `git:push` may run up to the daemon's 120 s git limit).
    pub async fn call_within<R: Call>(
        &self,
        request: R,
        limit: Duration,
    ) -> Result<R::Reply, ClientError> {
        let reply = self.request_within(request.into(), limit).await?;
        R::Reply::from_reply(reply).map_err(|other| {
            ClientError::Protocol(format!("{} was answered with {}", R::NAME, other.kind()))
        })
    }

    /// [`Client::call`] for a command that passes the reply on as the daemon wrote it: the
    /// reply is checked to be the request's kind, and is not decoded.
    pub async fn call_raw<R: Call>(&self, request: R) -> Result<RawReply, ClientError> {
        let request: Request = request.into();
        let name = request.name();
        let line = self
            .exchange(request, self.request_timeout, Waiter::Raw)
            .await?;
        super::raw::reply(line, <R::Reply as FromReply>::KIND, name)
    }

    /// How long to wait for a `git:push`: the daemon stops git after 120 s, and answers then.
    pub const PUSH_TIMEOUT: Duration = Duration::from_secs(150);

    /// Sends a request and waits, up to `limit`, for its one response, of whatever kind: the
    /// exchange under [`Client::call_within`], which checks the kind.
    async fn request_within(
        &self,
        request: Request,
        limit: Duration,
    ) -> Result<Reply, ClientError> {
        let outcome = self.exchange(request, limit, Waiter::Decoded).await?;
        match outcome {
            Outcome::Ok(reply) => Ok(reply),
            Outcome::Err(body) => Err(ClientError::from_body(body)),
        }
    }

    /// Sends `request` and waits, up to `limit`, for what its waiter (`waiter` of the sending
    /// half) receives.
    async fn exchange<T>(
        &self,
        request: Request,
        limit: Duration,
        waiter: fn(oneshot::Sender<Result<T, String>>) -> Waiter,
    ) -> Result<T, ClientError> {
        let name = request.name();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let line = encode(&ClientMessage { id, request }).map_err(ClientError::Encode)?;
        let (tx, rx) = oneshot::channel();
        self.shared.register(id, waiter(tx))?;
        let _guard = PendingGuard {
            shared: &self.shared,
            id,
        };
        let exchange = async {
            self.lines
                .send(line)
                .await
                .map_err(|_| self.shared.lost())?;
            match rx.await {
                Ok(Ok(answer)) => Ok(answer),
                Ok(Err(unreadable)) => Err(ClientError::Protocol(unreadable)),
                Err(_) => Err(self.shared.lost()),
            }
        };
        tokio::time::timeout(limit, exchange)
            .await
            .map_err(|_| ClientError::Timeout {
                request: name,
                after: limit,
            })?
    }
}

async fn write_loop(
    mut write: Writer,
    mut lines: mpsc::Receiver<String>,
    shared: Arc<Shared>,
    peer: String,
) {
    while let Some(line) = lines.recv().await {
        // A pipe (ssh's stdin) buffers nothing of its own, but flush for any transport that does.
        let written = async {
            write.write_all(line.as_bytes()).await?;
            write.flush().await
        };
        if let Err(e) = written.await {
            shared.close(format!("could not write to {peer}: {e}"));
            return;
        }
    }
}

async fn read_loop(mut read: Reader, shared: Arc<Shared>, sink: EventSink, peer: String) {
    let mut framer = LineFramer::new(paddock_proto::MAX_SERVER_LINE_BYTES);
    let mut buf = vec![0u8; 64 * 1024];
    let reason = loop {
        match read.read(&mut buf).await {
            Ok(0) => break format!("{peer} closed the connection"),
            Ok(n) => framer.push(&buf[..n]),
            Err(e) => break format!("could not read from {peer}: {e}"),
        }
        while let Some(line) = framer.next_frame() {
            match line {
                Ok(line) => dispatch(line, &shared, &sink),
                Err(e) => sink.push(Event::Undecodable(e.to_string())),
            }
        }
    };
    shared.close(reason);
}

fn dispatch(line: Vec<u8>, shared: &Shared, sink: &EventSink) {
    let Some(line) = shared.complete_raw(line) else {
        return;
    };
    let line = line.as_slice();
    match decode_server(line) {
        Ok(ServerMessage::Frame(frame)) => sink.push(Event::Frame(frame)),
        Ok(ServerMessage::Control(control)) => match control {
            ControlMessage::Response(response) => {
                shared.complete(response.id, Ok(response.outcome))
            }
            ControlMessage::Error(err) => sink.push(Event::DaemonError(err.error)),
            ControlMessage::Active(active) => sink.push(Event::Active(active)),
            ControlMessage::Resync(resync) => sink.push(Event::Resync(resync)),
            ControlMessage::ChatsChanged(changed) => sink.push(Event::ChatsChanged(changed)),
            ControlMessage::ApprovalsChanged(a) => sink.push(Event::ApprovalsChanged(a)),
            ControlMessage::ProjectChanged(p) => sink.push(Event::ProjectChanged(p)),
            ControlMessage::Attention(a) => sink.push(Event::Attention(a)),
            ControlMessage::Stopping(stopping) => {
                // The close that follows is this, not a crash: say so to waiting requests.
                shared.stopping(stopping.message.clone());
                sink.push(Event::Stopping(stopping));
            }
        },
        Err(e) => {
            // A response we cannot decode must still end its request, or it would wait for
            // its timeout: salvage the id when the line is at least JSON.
            let value: Option<serde_json::Value> = serde_json::from_slice(line).ok();
            let id = value.as_ref().and_then(|v| {
                (v.get("type")?.as_str()? == "response")
                    .then(|| v.get("id")?.as_u64())
                    .flatten()
            });
            match id {
                Some(id) => shared.complete(id, Err(e.to_string())),
                None => sink.push(Event::Undecodable(e.to_string())),
            }
        }
    }
}
