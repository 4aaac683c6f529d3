//! The session hub (architecture §4 "SessionHub"): fan-out, buffering and re-attach.
//!
//! One task owns all hub state; everyone else holds a [`Hub`] handle and sends commands.
//! Each turn's frames are stamped with a per-session monotonic `seq`, serialised once, kept in
//! a bounded buffer for replay, and offered to every subscriber with `try_send`: the hub never
//! waits on a client. A client whose queue is full loses that subscription and is sent
//! `chat:resync` (reason `slow_client`) on its separate resync queue; a client whose resync
//! queue is full too is disconnected.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use paddock_proto::{
    Active, ApprovalsChanged, ChatEvent, ChatsChanged, ControlMessage, HubFrame, Outcome, Reply,
    RequestId, Response, Resync, ResyncReason, Routing, RunningTurn, Sent, ServerMessage,
    Subscribed,
};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// A connected client, as a process-unique number.
pub type ClientId = u64;

/// A serialised line, shared by every client it goes to.
pub type Line = Arc<str>;

/// Capacity of the hub's command queue. Senders wait when it is full (backpressure on the
/// producers: runners and connections); the hub itself never waits on anyone.
const COMMAND_QUEUE: usize = 4096;

/// The hub's view of one client: where its lines go.
#[derive(Clone)]
pub struct ClientSink {
    pub id: ClientId,
    /// Frames, responses and broadcast events, in order. Bounded (config `client_queue`);
    /// overflow drops the subscription that overflowed and queues a resync.
    pub frames: mpsc::Sender<Line>,
    /// The priority lane: `chat:resync` lines, and control events that found `frames` full.
    /// Bounded (`RESYNC_QUEUE`); overflow disconnects the client.
    pub resync: mpsc::Sender<Line>,
    /// Cancelled to disconnect the client.
    pub kill: CancellationToken,
}

/// Capacity of a client's resync queue.
pub const RESYNC_QUEUE: usize = 64;

/// What is known about a running or lingering turn.
#[derive(Debug, Clone)]
pub struct TurnInfo {
    pub project_slug: String,
    pub session_id: String,
    pub job_id: String,
    pub started_at: String,
    pub running: bool,
}

/// A turn that starts, as the runner tells the hub: what the hub records, and who asked for
/// it.
#[derive(Debug, Clone)]
pub struct TurnStart<'a> {
    pub project_slug: &'a str,
    pub session_id: &'a str,
    pub job_id: &'a str,
    pub started_at: String,
    /// The connection whose request started the turn: it is subscribed to the chat first,
    /// with the answer to its request ahead of the turn's frames.
    pub asker: Option<Asker>,
}

/// The client that asked for a turn, and how its request is answered.
#[derive(Debug, Clone, Copy)]
pub struct Asker {
    pub client: ClientId,
    pub request_id: RequestId,
    /// The turn waits for a free `claude` process.
    pub queued: bool,
}

#[derive(Debug, Clone, Default)]
pub struct HubSnapshot {
    pub turns: Vec<TurnInfo>,
    pub clients: u32,
    /// Chats some client is subscribed to now: open in it, read as their turns stream.
    pub watched: HashSet<String>,
}

enum Command {
    Register(ClientSink),
    Unregister(ClientId),
    Subscribe {
        client: ClientId,
        session_id: String,
        want_replay: bool,
        last_seq: Option<u64>,
        /// Answer this request id with `Subscribed` ahead of the replay.
        request_id: Option<RequestId>,
        /// A line to deliver ahead of everything else (the `Sent` reply of a `chat:send`).
        preface: Option<Line>,
    },
    Unsubscribe {
        client: ClientId,
        session_id: String,
    },
    StartTurn {
        project_slug: String,
        session_id: String,
        job_id: String,
        started_at: String,
    },
    Emit {
        session_id: String,
        event: ChatEvent,
    },
    EndTurn {
        session_id: String,
        job_id: String,
    },
    Broadcast(ControlMessage),
    /// The client asked for `attention` events.
    Notify(ClientId),
    Attention(paddock_proto::Attention),
    Snapshot(oneshot::Sender<HubSnapshot>),
    /// Whether some client was subscribed to the turn `job_id` at any time while it ran.
    Watched {
        session_id: String,
        job_id: String,
        reply: oneshot::Sender<bool>,
    },
}

/// `attention` ids remembered, so each event is sent once; the oldest are forgotten first.
pub const ATTENTION_MEMORY: usize = 1024;

/// A handle to the hub task.
#[derive(Clone)]
pub struct Hub {
    tx: mpsc::Sender<Command>,
}

#[derive(Debug, Clone, Copy)]
pub struct HubLimits {
    /// Frames kept per turn (architecture §4: 4000).
    pub buffer_frames: usize,
    /// How long a finished turn stays replayable (§4: 60 s).
    pub linger: Duration,
}

impl Hub {
    /// Starts the hub task on `tasks`; it ends when every handle is dropped.
    pub fn spawn(limits: HubLimits, tasks: &TaskTracker) -> Self {
        let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
        tasks.spawn(HubTask::new(limits).run(rx));
        Self { tx }
    }

    async fn send(&self, cmd: Command) {
        // The hub task only stops once every handle is gone, so a failed send means the
        // daemon is tearing down; there is nobody left to tell.
        let _ = self.tx.send(cmd).await;
    }

    pub async fn register(&self, sink: ClientSink) {
        self.send(Command::Register(sink)).await;
    }

    pub async fn unregister(&self, client: ClientId) {
        self.send(Command::Unregister(client)).await;
    }

    /// Subscribes a client to a chat's frames; `request_id` is answered with `Subscribed`
    /// ahead of the replay.
    pub async fn subscribe(
        &self,
        client: ClientId,
        session_id: String,
        want_replay: bool,
        last_seq: Option<u64>,
        request_id: Option<RequestId>,
    ) {
        self.send(Command::Subscribe {
            client,
            session_id,
            want_replay,
            last_seq,
            request_id,
            preface: None,
        })
        .await;
    }

    pub async fn unsubscribe(&self, client: ClientId, session_id: String) {
        self.send(Command::Unsubscribe { client, session_id }).await;
    }

    /// A turn starts: its asker (if a connection asked) is subscribed with the `Sent` answer
    /// to its request first, then the turn is recorded and announced (`chat:active`).
    pub async fn start_turn(&self, turn: TurnStart<'_>) {
        if let Some(asker) = turn.asker {
            let sent = ServerMessage::Control(ControlMessage::Response(Response {
                id: asker.request_id,
                outcome: Outcome::Ok(Reply::Sent(Sent {
                    project_slug: turn.project_slug.to_owned(),
                    session_id: turn.session_id.to_owned(),
                    job_id: turn.job_id.to_owned(),
                    queued: asker.queued,
                })),
            }));
            self.send(Command::Subscribe {
                client: asker.client,
                session_id: turn.session_id.to_owned(),
                want_replay: false,
                last_seq: None,
                request_id: None,
                preface: paddock_proto::encode(&sent).ok().map(Arc::from),
            })
            .await;
        }
        self.send(Command::StartTurn {
            project_slug: turn.project_slug.to_owned(),
            session_id: turn.session_id.to_owned(),
            job_id: turn.job_id.to_owned(),
            started_at: turn.started_at,
        })
        .await;
    }

    pub async fn emit(&self, session_id: &str, event: ChatEvent) {
        self.send(Command::Emit {
            session_id: session_id.to_owned(),
            event,
        })
        .await;
    }

    pub async fn end_turn(&self, session_id: &str, job_id: &str) {
        self.send(Command::EndTurn {
            session_id: session_id.to_owned(),
            job_id: job_id.to_owned(),
        })
        .await;
    }

    pub async fn broadcast(&self, msg: ControlMessage) {
        self.send(Command::Broadcast(msg)).await;
    }

    /// A project's chat list changed (a chat started, ended, was renamed, archived, moved…):
    /// every client re-lists it. `session_id` names the chat when one chat changed.
    pub async fn chats_changed(&self, project_slug: &str, session_id: Option<&str>) {
        self.broadcast(ControlMessage::ChatsChanged(ChatsChanged {
            project_slug: project_slug.to_owned(),
            session_id: session_id.map(str::to_owned),
        }))
        .await;
    }

    /// The approvals inbox changed; `pending` approvals wait now.
    pub async fn approvals_changed(&self, pending: u32) {
        self.broadcast(ControlMessage::ApprovalsChanged(ApprovalsChanged {
            pending,
        }))
        .await;
    }

    /// From now on, `attention` events go to this client too.
    pub async fn notify(&self, client: ClientId) {
        self.send(Command::Notify(client)).await;
    }

    /// A chat needs the user: delivered once per id to the clients that asked, unless some
    /// client is subscribed to the chat (watching it).
    pub async fn attention(&self, attention: paddock_proto::Attention) {
        self.send(Command::Attention(attention)).await;
    }

    pub async fn snapshot(&self) -> HubSnapshot {
        let (tx, rx) = oneshot::channel();
        self.send(Command::Snapshot(tx)).await;
        rx.await.unwrap_or_default()
    }

    /// Whether a client had the chat open (was subscribed) at any time while the turn
    /// `job_id` ran: a run someone watched is not news in "while you were away".
    pub async fn watched(&self, session_id: &str, job_id: &str) -> bool {
        let (reply, rx) = oneshot::channel();
        self.send(Command::Watched {
            session_id: session_id.to_owned(),
            job_id: job_id.to_owned(),
            reply,
        })
        .await;
        rx.await.unwrap_or(false)
    }
}

struct Turn {
    info: TurnInfo,
    /// Some client was subscribed while it ran.
    watched: bool,
    /// `(seq, line)`, oldest first; at most `buffer_frames` long.
    frames: VecDeque<(u64, Line)>,
}

#[derive(Default)]
struct Session {
    /// The seq the next frame gets; seqs start at 1.
    next_seq: u64,
    turn: Option<Turn>,
    subscribers: HashSet<ClientId>,
}

struct HubTask {
    limits: HubLimits,
    sessions: HashMap<String, Session>,
    clients: BTreeMap<ClientId, ClientSink>,
    /// Lingering turns to evict: `(when, session, job)`.
    evictions: BinaryHeap<Reverse<(Instant, String, String)>>,
    /// Clients that asked for `attention` events.
    notified: HashSet<ClientId>,
    /// `attention` ids already handled (sent, or skipped because someone watched), oldest
    /// first; at most [`ATTENTION_MEMORY`].
    attended: VecDeque<String>,
}

fn line_of(msg: &ServerMessage) -> Option<Line> {
    match paddock_proto::encode(msg) {
        Ok(s) => Some(Arc::from(s)),
        Err(e) => {
            tracing::error!("dropping a message that cannot be encoded: {e}");
            None
        }
    }
}

impl HubTask {
    fn new(limits: HubLimits) -> Self {
        Self {
            limits,
            sessions: HashMap::new(),
            clients: BTreeMap::new(),
            evictions: BinaryHeap::new(),
            notified: HashSet::new(),
            attended: VecDeque::new(),
        }
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        loop {
            let next_eviction = self.evictions.peek().map(|Reverse((at, _, _))| *at);
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd),
                    None => break,
                },
                () = sleep_until_opt(next_eviction) => self.evict_due(),
            }
        }
    }

    fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Register(sink) => {
                let id = sink.id;
                self.clients.insert(id, sink);
                let running: Vec<Line> = self
                    .sessions
                    .values()
                    .filter_map(|s| s.turn.as_ref())
                    .filter(|t| t.info.running)
                    .filter_map(|t| line_of(&active_msg(&t.info, true)))
                    .collect();
                for line in running {
                    self.deliver_control(id, line);
                }
            }
            Command::Unregister(id) => self.drop_client(id),
            Command::Subscribe {
                client,
                session_id,
                want_replay,
                last_seq,
                request_id,
                preface,
            } => self.subscribe(
                client,
                session_id,
                want_replay,
                last_seq,
                request_id,
                preface,
            ),
            Command::Unsubscribe { client, session_id } => {
                if let Some(s) = self.sessions.get_mut(&session_id) {
                    s.subscribers.remove(&client);
                }
            }
            Command::StartTurn {
                project_slug,
                session_id,
                job_id,
                started_at,
            } => {
                let info = TurnInfo {
                    project_slug,
                    session_id: session_id.clone(),
                    job_id,
                    started_at,
                    running: true,
                };
                let line = line_of(&active_msg(&info, true));
                let session = self.session(&session_id);
                session.turn = Some(Turn {
                    info,
                    watched: !session.subscribers.is_empty(),
                    frames: VecDeque::new(),
                });
                if let Some(line) = line {
                    self.broadcast_line(line);
                }
            }
            Command::Emit { session_id, event } => self.emit(&session_id, event),
            Command::EndTurn { session_id, job_id } => {
                let linger = self.limits.linger;
                let Some(turn) = self
                    .sessions
                    .get_mut(&session_id)
                    .and_then(|s| s.turn.as_mut())
                    .filter(|t| t.info.job_id == job_id)
                else {
                    return;
                };
                turn.info.running = false;
                let line = line_of(&active_msg(&turn.info, false));
                self.evictions
                    .push(Reverse((Instant::now() + linger, session_id, job_id)));
                if let Some(line) = line {
                    self.broadcast_line(line);
                }
            }
            Command::Broadcast(msg) => {
                if let Some(line) = line_of(&ServerMessage::Control(msg)) {
                    self.broadcast_line(line);
                }
            }
            Command::Notify(client) => {
                if self.clients.contains_key(&client) {
                    self.notified.insert(client);
                }
            }
            Command::Attention(attention) => self.attention(attention),
            Command::Snapshot(reply) => {
                let turns = self
                    .sessions
                    .values()
                    .filter_map(|s| s.turn.as_ref())
                    .map(|t| t.info.clone())
                    .collect();
                let watched = self
                    .sessions
                    .iter()
                    .filter(|(_, s)| !s.subscribers.is_empty())
                    .map(|(sid, _)| sid.clone())
                    .collect();
                let _ = reply.send(HubSnapshot {
                    turns,
                    clients: u32::try_from(self.clients.len()).unwrap_or(u32::MAX),
                    watched,
                });
            }
            Command::Watched {
                session_id,
                job_id,
                reply,
            } => {
                let watched = self
                    .sessions
                    .get(&session_id)
                    .and_then(|s| s.turn.as_ref())
                    .is_some_and(|t| t.info.job_id == job_id && t.watched);
                let _ = reply.send(watched);
            }
        }
    }

    fn session(&mut self, session_id: &str) -> &mut Session {
        self.sessions
            .entry(session_id.to_owned())
            .or_insert_with(|| Session {
                next_seq: 1,
                ..Session::default()
            })
    }

    fn emit(&mut self, session_id: &str, event: ChatEvent) {
        let buffer_frames = self.limits.buffer_frames;
        let session = self.session(session_id);
        let Some(turn) = session.turn.as_mut() else {
            tracing::warn!(
                session_id,
                event = event.name(),
                "frame for a chat with no turn"
            );
            return;
        };
        let seq = session.next_seq;
        let frame = HubFrame {
            routing: Routing {
                project_slug: turn.info.project_slug.clone(),
                session_id: session_id.to_owned(),
                job_id: turn.info.job_id.clone(),
                seq,
            },
            event,
        };
        let Some(line) = line_of(&ServerMessage::Frame(frame)) else {
            return;
        };
        session.next_seq += 1;
        turn.frames.push_back((seq, line.clone()));
        while turn.frames.len() > buffer_frames {
            turn.frames.pop_front();
        }
        let subscribers: Vec<ClientId> = session.subscribers.iter().copied().collect();
        for client in subscribers {
            self.deliver_frame(client, session_id, line.clone());
        }
    }

    fn subscribe(
        &mut self,
        client: ClientId,
        session_id: String,
        want_replay: bool,
        last_seq: Option<u64>,
        request_id: Option<RequestId>,
        preface: Option<Line>,
    ) {
        if !self.clients.contains_key(&client) {
            return;
        }
        let session = self.session(&session_id);
        session.subscribers.insert(client);
        if let Some(turn) = session.turn.as_mut().filter(|t| t.info.running) {
            turn.watched = true;
        }
        let next_seq = session.next_seq;
        let (running, job_id) = match &session.turn {
            Some(t) => (t.info.running, Some(t.info.job_id.clone())),
            None => (false, None),
        };
        let mut replay: Vec<Line> = Vec::new();
        let mut resync = None;
        if want_replay {
            let oldest = session
                .turn
                .as_ref()
                .and_then(|t| t.frames.front().map(|(seq, _)| *seq))
                .unwrap_or(next_seq);
            match last_seq {
                Some(last) if last >= next_seq => resync = Some(ResyncReason::UnknownSeq),
                Some(last) if last + 1 < oldest => resync = Some(ResyncReason::AgedOut),
                _ => {
                    let from = last_seq.map_or(0, |l| l + 1);
                    if let Some(turn) = &session.turn {
                        replay.extend(
                            turn.frames
                                .iter()
                                .filter(|(seq, _)| *seq >= from)
                                .map(|(_, l)| l.clone()),
                        );
                    }
                }
            }
        }
        if let Some(line) = preface {
            self.deliver_frame(client, &session_id, line);
        }
        if let Some(id) = request_id {
            let reply = ServerMessage::Control(ControlMessage::Response(Response {
                id,
                outcome: Outcome::Ok(Reply::Subscribed(Subscribed {
                    session_id: session_id.clone(),
                    running,
                    job_id,
                    replayed: replay.len() as u64,
                    next_seq,
                })),
            }));
            if let Some(line) = line_of(&reply) {
                self.deliver_frame(client, &session_id, line);
            }
        }
        for line in replay {
            self.deliver_frame(client, &session_id, line);
        }
        if let Some(reason) = resync {
            self.send_resync(client, &session_id, reason);
        }
    }

    /// Offers a line of `session_id`'s stream to one client, applying the overflow policy.
    fn deliver_frame(&mut self, client: ClientId, session_id: &str, line: Line) {
        let Some(sink) = self.clients.get(&client) else {
            return;
        };
        match sink.frames.try_send(line) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::warn!(
                    client,
                    session_id,
                    "client too slow; dropping its subscription"
                );
                if let Some(s) = self.sessions.get_mut(session_id) {
                    s.subscribers.remove(&client);
                }
                self.send_resync(client, session_id, ResyncReason::SlowClient);
            }
            Err(mpsc::error::TrySendError::Closed(_)) => self.drop_client(client),
        }
    }

    /// Offers a control line (not tied to one subscription). When the client's frame queue
    /// is full it goes on the small priority lane instead; a client that cannot take it there
    /// either is hopelessly behind and is disconnected.
    fn deliver_control(&mut self, client: ClientId, line: Line) {
        let Some(sink) = self.clients.get(&client) else {
            return;
        };
        use mpsc::error::TrySendError;
        let refused = match sink.frames.try_send(line) {
            Ok(()) => return,
            Err(TrySendError::Full(line)) => sink.resync.try_send(line).err(),
            Err(e @ TrySendError::Closed(_)) => Some(e),
        };
        match refused {
            None => {}
            // The client went away; its connection task is ending already.
            Some(TrySendError::Closed(_)) => {
                tracing::debug!(client, "client closed; dropping it");
                self.drop_client(client);
            }
            Some(TrySendError::Full(_)) => {
                tracing::warn!(
                    client,
                    "client cannot take control events; disconnecting it"
                );
                self.drop_client(client);
            }
        }
    }

    fn send_resync(&mut self, client: ClientId, session_id: &str, reason: ResyncReason) {
        let msg = ServerMessage::Control(ControlMessage::Resync(Resync {
            session_id: session_id.to_owned(),
            reason,
        }));
        let Some(line) = line_of(&msg) else { return };
        let Some(sink) = self.clients.get(&client) else {
            return;
        };
        match sink.resync.try_send(line) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Closed(_)) => {
                tracing::debug!(client, "client closed; dropping it");
                self.drop_client(client);
            }
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::warn!(client, "client's resync queue is full; disconnecting it");
                self.drop_client(client);
            }
        }
    }

    fn broadcast_line(&mut self, line: Line) {
        let ids: Vec<ClientId> = self.clients.keys().copied().collect();
        for id in ids {
            self.deliver_control(id, line.clone());
        }
    }

    fn attention(&mut self, attention: paddock_proto::Attention) {
        if self.attended.contains(&attention.id) {
            return;
        }
        if self.attended.len() >= ATTENTION_MEMORY {
            self.attended.pop_front();
        }
        self.attended.push_back(attention.id.clone());
        let watched = self
            .sessions
            .get(&attention.session_id)
            .is_some_and(|s| !s.subscribers.is_empty());
        if watched {
            return;
        }
        let Some(line) = line_of(&ServerMessage::Control(ControlMessage::Attention(
            attention,
        ))) else {
            return;
        };
        let ids: Vec<ClientId> = self.notified.iter().copied().collect();
        for id in ids {
            self.deliver_control(id, line.clone());
        }
    }

    fn drop_client(&mut self, client: ClientId) {
        self.notified.remove(&client);
        if let Some(sink) = self.clients.remove(&client) {
            sink.kill.cancel();
        }
        for s in self.sessions.values_mut() {
            s.subscribers.remove(&client);
        }
    }

    fn evict_due(&mut self) {
        let now = Instant::now();
        while let Some(Reverse((at, _, _))) = self.evictions.peek() {
            if *at > now {
                break;
            }
            let Some(Reverse((_, session_id, job_id))) = self.evictions.pop() else {
                break;
            };
            if let Some(s) = self.sessions.get_mut(&session_id) {
                // A newer turn may have started meanwhile: evict only the one that lingered.
                if s.turn
                    .as_ref()
                    .is_some_and(|t| t.info.job_id == job_id && !t.info.running)
                {
                    s.turn = None;
                }
            }
        }
    }
}

fn active_msg(info: &TurnInfo, running: bool) -> ServerMessage {
    ServerMessage::Control(ControlMessage::Active(Active {
        project_slug: info.project_slug.clone(),
        session_id: info.session_id.clone(),
        job_id: info.job_id.clone(),
        running,
    }))
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl TurnInfo {
    pub fn to_running_turn(&self) -> RunningTurn {
        RunningTurn {
            project_slug: self.project_slug.clone(),
            session_id: self.session_id.clone(),
            job_id: self.job_id.clone(),
            started_at: self.started_at.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use paddock_proto::TextDelta;

    fn sink(id: ClientId, cap: usize) -> (ClientSink, mpsc::Receiver<Line>, mpsc::Receiver<Line>) {
        let (ftx, frx) = mpsc::channel(cap);
        let (rtx, rrx) = mpsc::channel(RESYNC_QUEUE);
        (
            ClientSink {
                id,
                frames: ftx,
                resync: rtx,
                kill: CancellationToken::new(),
            },
            frx,
            rrx,
        )
    }

    fn turn_start() -> TurnStart<'static> {
        TurnStart {
            project_slug: "p",
            session_id: "s",
            job_id: "j",
            started_at: "now".into(),
            asker: None,
        }
    }

    fn decode(line: &Line) -> ServerMessage {
        paddock_proto::decode(line.trim_end().as_bytes()).unwrap()
    }

    fn seq_of(line: &Line) -> Option<u64> {
        match decode(line) {
            ServerMessage::Frame(f) => Some(f.routing.seq),
            ServerMessage::Control(_) => None,
        }
    }

    fn text(n: usize) -> ChatEvent {
        ChatEvent::Response(TextDelta {
            text: format!("t{n}"),
        })
    }

    /// What `f` logs at WARN or above, through a subscriber of its own.
    fn warnings_of(f: impl FnOnce()) -> String {
        #[derive(Clone, Default)]
        struct Buf(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Buf {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buf = Buf::default();
        let writer = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::WARN)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, f);
        let bytes = buf.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn a_client_that_closed_is_dropped_quietly_and_a_stuck_one_loudly() {
        let line: Line = Arc::from("{}\n");
        // Closed: the client went away; nothing to warn about.
        let mut hub = HubTask::new(HubLimits {
            buffer_frames: 4,
            linger: Duration::from_secs(1),
        });
        let (gone, frx, rrx) = sink(1, 1);
        drop((frx, rrx));
        hub.clients.insert(1, gone);
        let logged = warnings_of(|| hub.deliver_control(1, line.clone()));
        assert!(!hub.clients.contains_key(&1));
        assert_eq!(logged, "");
        let (gone, frx, rrx) = sink(2, 1);
        drop((frx, rrx));
        hub.clients.insert(2, gone);
        let logged = warnings_of(|| hub.send_resync(2, "s", ResyncReason::SlowClient));
        assert!(!hub.clients.contains_key(&2));
        assert_eq!(logged, "");
        // Full on both lanes: hopelessly behind, which is worth a warning.
        let (stuck, _frx, _rrx) = sink(3, 1);
        for _ in 0..RESYNC_QUEUE {
            stuck.resync.try_send(line.clone()).unwrap();
        }
        stuck.frames.try_send(line.clone()).unwrap();
        hub.clients.insert(3, stuck);
        let logged = warnings_of(|| hub.deliver_control(3, line.clone()));
        assert!(!hub.clients.contains_key(&3));
        assert!(logged.contains("cannot take control events"), "{logged}");
    }

    #[tokio::test(start_paused = true)]
    async fn replay_from_last_seq_and_aged_out_resync() {
        let hub = Hub::spawn(
            HubLimits {
                buffer_frames: 4,
                linger: Duration::from_secs(60),
            },
            &TaskTracker::new(),
        );
        hub.start_turn(turn_start()).await;
        for n in 0..6 {
            hub.emit("s", text(n)).await;
        }
        // seqs 1..=6 were emitted; the buffer holds 3..=6.
        let (c, mut frx, mut rrx) = sink(1, 100);
        hub.register(c).await;
        hub.subscribe(1, "s".into(), true, Some(3), Some(9)).await;
        let _ = hub.snapshot().await;
        let mut got = Vec::new();
        while let Ok(l) = frx.try_recv() {
            got.push(l);
        }
        // chat:active for the running turn, the Subscribed reply, then seqs 4..=6.
        let seqs: Vec<u64> = got.iter().filter_map(seq_of).collect();
        assert_eq!(seqs, vec![4, 5, 6]);
        assert!(rrx.try_recv().is_err());

        let (c2, _frx2, mut rrx2) = sink(2, 100);
        hub.register(c2).await;
        hub.subscribe(2, "s".into(), true, Some(1), None).await;
        let _ = hub.snapshot().await;
        match decode(&rrx2.try_recv().unwrap()) {
            ServerMessage::Control(ControlMessage::Resync(r)) => {
                assert_eq!(r.reason, ResyncReason::AgedOut)
            }
            other => panic!("expected resync, got {other:?}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn slow_client_gets_resync_and_others_are_unaffected() {
        let hub = Hub::spawn(
            HubLimits {
                buffer_frames: 100,
                linger: Duration::from_secs(60),
            },
            &TaskTracker::new(),
        );
        let (slow, _slow_frames, mut slow_resync) = sink(1, 3);
        let (fast, mut fast_frames, _) = sink(2, 1000);
        hub.register(slow).await;
        hub.register(fast).await;
        hub.subscribe(1, "s".into(), false, None, None).await;
        hub.subscribe(2, "s".into(), false, None, None).await;
        hub.start_turn(turn_start()).await;
        for n in 0..50 {
            hub.emit("s", text(n)).await;
        }
        let _ = hub.snapshot().await;
        let seqs: Vec<u64> = std::iter::from_fn(|| fast_frames.try_recv().ok())
            .filter_map(|l| seq_of(&l))
            .collect();
        assert_eq!(seqs, (1..=50).collect::<Vec<_>>());
        match decode(&slow_resync.try_recv().unwrap()) {
            ServerMessage::Control(ControlMessage::Resync(r)) => {
                assert_eq!(r.reason, ResyncReason::SlowClient)
            }
            other => panic!("expected resync, got {other:?}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn finished_turn_lingers_then_is_evicted() {
        let hub = Hub::spawn(
            HubLimits {
                buffer_frames: 10,
                linger: Duration::from_secs(60),
            },
            &TaskTracker::new(),
        );
        hub.start_turn(turn_start()).await;
        hub.emit("s", text(1)).await;
        hub.end_turn("s", "j").await;
        assert_eq!(hub.snapshot().await.turns.len(), 1);
        tokio::time::sleep(Duration::from_secs(61)).await;
        assert!(hub.snapshot().await.turns.is_empty());
        // seq stays monotonic across turns of one session.
        let (c, mut frx, _r) = sink(1, 100);
        hub.register(c).await;
        hub.subscribe(1, "s".into(), false, None, None).await;
        hub.start_turn(TurnStart {
            job_id: "j2",
            ..turn_start()
        })
        .await;
        hub.emit("s", text(2)).await;
        let _ = hub.snapshot().await;
        let seqs: Vec<u64> = std::iter::from_fn(|| frx.try_recv().ok())
            .filter_map(|l| seq_of(&l))
            .collect();
        assert_eq!(seqs, vec![2]);
    }
}
