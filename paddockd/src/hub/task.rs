//! The hub's owner task: every subscription, replay buffer and client sink, changed only by
//! the commands the [`Hub`](super::Hub) handles send, one at a time. It never waits on a
//! client: a frame is offered with `try_send`, and a client whose queue is full is resynced or
//! dropped (the policy is in the module above).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use paddock_proto::{
    Active, ChatEvent, ControlMessage, HubFrame, Outcome, Reply, Response, Resync, ResyncReason,
    Routing, ServerMessage, Subscribed,
};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{
    ATTENTION_MEMORY, ClientId, ClientSink, Command, HubLimits, HubSnapshot, Line, Subscription,
    TurnInfo,
};

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

pub(super) struct HubTask {
    limits: HubLimits,
    sessions: HashMap<String, Session>,
    pub(super) clients: BTreeMap<ClientId, ClientSink>,
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
    pub(super) fn new(limits: HubLimits) -> Self {
        Self {
            limits,
            sessions: HashMap::new(),
            clients: BTreeMap::new(),
            evictions: BinaryHeap::new(),
            notified: HashSet::new(),
            attended: VecDeque::new(),
        }
    }

    pub(super) async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
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
            Command::Register(sink) => self.register(sink),
            Command::Unregister(id) => self.drop_client(id),
            Command::Subscribe(subscription) => self.subscribe(subscription),
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
            } => self.start_turn(TurnInfo {
                project_slug,
                session_id,
                job_id,
                started_at,
                running: true,
                waiting_process: false,
            }),
            Command::Emit { session_id, event } => self.emit(&session_id, event),
            Command::EndTurn { session_id, job_id } => self.end_turn(session_id, job_id),
            Command::WaitingProcess {
                session_id,
                job_id,
                waiting,
            } => self.waiting_process(&session_id, &job_id, waiting),
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
                let _ = reply.send(self.snapshot());
            }
            Command::Watched {
                session_id,
                job_id,
                reply,
            } => {
                let _ = reply.send(self.watched(&session_id, &job_id));
            }
        }
    }

    /// A new client: it is told at once which chats are running (`chat:active`).
    fn register(&mut self, sink: ClientSink) {
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

    /// A turn starts: its buffer replaces the chat's last one, and every client hears of it.
    fn start_turn(&mut self, info: TurnInfo) {
        let line = line_of(&active_msg(&info, true));
        let session = self.session(&info.session_id);
        session.turn = Some(Turn {
            info,
            watched: !session.subscribers.is_empty(),
            frames: VecDeque::new(),
        });
        if let Some(line) = line {
            self.broadcast_line(line);
        }
    }

    /// Turn `job_id` waits for a free claude process, or has one now: the chat's row changed.
    fn waiting_process(&mut self, session_id: &str, job_id: &str, waiting: bool) {
        let Some(turn) = self
            .sessions
            .get_mut(session_id)
            .and_then(|s| s.turn.as_mut())
            .filter(|t| t.info.job_id == job_id && t.info.waiting_process != waiting)
        else {
            return;
        };
        turn.info.waiting_process = waiting;
        let changed = ControlMessage::ChatsChanged(paddock_proto::ChatsChanged {
            project_slug: turn.info.project_slug.clone(),
            session_id: Some(session_id.to_owned()),
        });
        if let Some(line) = line_of(&ServerMessage::Control(changed)) {
            self.broadcast_line(line);
        }
    }

    /// Turn `job_id` ended: it lingers, replayable, until its eviction is due, and every
    /// client hears it stopped.
    fn end_turn(&mut self, session_id: String, job_id: String) {
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
        turn.info.waiting_process = false;
        let line = line_of(&active_msg(&turn.info, false));
        self.evictions
            .push(Reverse((Instant::now() + linger, session_id, job_id)));
        if let Some(line) = line {
            self.broadcast_line(line);
        }
    }

    /// The turns known, the clients connected, the chats someone has open.
    fn snapshot(&self) -> HubSnapshot {
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
        let agents = self.clients.values().filter(|s| s.agent).count();
        HubSnapshot {
            turns,
            clients: u32::try_from(self.clients.len() - agents).unwrap_or(u32::MAX),
            agent_clients: u32::try_from(agents).unwrap_or(u32::MAX),
            watched,
        }
    }

    /// Whether some client had the chat open while turn `job_id` ran.
    fn watched(&self, session_id: &str, job_id: &str) -> bool {
        self.sessions
            .get(session_id)
            .and_then(|s| s.turn.as_ref())
            .is_some_and(|t| t.info.job_id == job_id && t.watched)
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

    fn subscribe(&mut self, subscription: Subscription) {
        let Subscription {
            client,
            session_id,
            want_replay,
            last_seq,
            request_id,
            preface,
        } = subscription;
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
    pub(super) fn deliver_control(&mut self, client: ClientId, line: Line) {
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

    pub(super) fn send_resync(&mut self, client: ClientId, session_id: &str, reason: ResyncReason) {
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
        // An overlap names another chat, which the one in view does not show: it is said
        // even to a person watching.
        let watched = attention.kind != paddock_proto::AttentionKind::Overlap
            && self
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
