//! The session hub (architecture §4 "SessionHub"): fan-out, buffering and re-attach.
//!
//! One task owns all hub state; everyone else holds a [`Hub`] handle and sends commands.
//! Each turn's frames are stamped with a per-session monotonic `seq`, serialised once, kept in
//! a bounded buffer for replay, and offered to every subscriber with `try_send`: the hub never
//! waits on a client. A client whose queue is full loses that subscription and is sent
//! `chat:resync` (reason `slow_client`) on its separate resync queue; a client whose resync
//! queue is full too is disconnected.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use paddock_proto::{
    ApprovalsChanged, ChatEvent, ChatsChanged, ControlMessage, Outcome, Reply, RequestId, Response,
    RunningTurn, Sent, ServerMessage,
};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

mod task;

/// A connected client, as a process-unique number.
pub type ClientId = u64;

/// A serialised line, shared by every client it goes to: its `String` moved in, not copied (a
/// listing is one line of megabytes).
pub type Line = Arc<String>;

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
    /// An agent's tool bridge (`paddockd mcp`), not a person's client: counted apart.
    pub agent: bool,
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
    /// Queued for a free claude process: every one `max_processes` allows is busy.
    pub waiting_process: bool,
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
    /// People's clients (TUIs, commands, management clients).
    pub clients: u32,
    /// Agents' tool bridges.
    pub agent_clients: u32,
    /// Chats some client is subscribed to now: open in it, read as their turns stream.
    pub watched: HashSet<String>,
}

/// A client asks for a chat's frames.
struct Subscription {
    client: ClientId,
    session_id: String,
    want_replay: bool,
    last_seq: Option<u64>,
    /// Answer this request id with `Subscribed` ahead of the replay.
    request_id: Option<RequestId>,
    /// A line to deliver ahead of everything else (the `Sent` reply of a `chat:send`).
    preface: Option<Line>,
}

enum Command {
    Register(ClientSink),
    Unregister(ClientId),
    Subscribe(Subscription),
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
    /// Turn `job_id` started or stopped waiting for a free claude process.
    WaitingProcess {
        session_id: String,
        job_id: String,
        waiting: bool,
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
        tasks.spawn(task::HubTask::new(limits).run(rx));
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
        self.send(Command::Subscribe(Subscription {
            client,
            session_id,
            want_replay,
            last_seq,
            request_id,
            preface: None,
        }))
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
            self.send(Command::Subscribe(Subscription {
                client: asker.client,
                session_id: turn.session_id.to_owned(),
                want_replay: false,
                last_seq: None,
                request_id: None,
                preface: paddock_proto::encode(&sent).ok().map(Arc::from),
            }))
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

    /// Turn `job_id` waits for a free claude process (`waiting`), or has one now: its chat's
    /// row says so, and every client re-lists it (`chats:changed`).
    pub async fn waiting_process(&self, session_id: &str, job_id: &str, waiting: bool) {
        self.send(Command::WaitingProcess {
            session_id: session_id.to_owned(),
            job_id: job_id.to_owned(),
            waiting,
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

    /// A project's triggers or git state changed: every client is told, to read it again.
    pub async fn project_changed(&self, project_slug: &str, what: paddock_proto::ProjectPart) {
        self.broadcast(ControlMessage::ProjectChanged(
            paddock_proto::ProjectChanged {
                project_slug: project_slug.to_owned(),
                what,
            },
        ))
        .await;
    }

    /// The approvals in `touched` were asked or answered: the inbox changed, and so did the rows
    /// of their chats (a chat waiting for a person is drawn so).
    pub async fn approvals_changed_for(&self, pending: u32, touched: &[paddock_proto::Approval]) {
        self.approvals_changed(pending).await;
        let mut seen = std::collections::HashSet::new();
        for a in touched {
            if seen.insert((&a.project_slug, &a.session_id)) {
                self.chats_changed(&a.project_slug, Some(&a.session_id))
                    .await;
            }
        }
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

    /// The chats running a turn now, each with its project's slug.
    pub async fn running(&self) -> HashMap<String, String> {
        self.snapshot()
            .await
            .turns
            .into_iter()
            .filter(|t| t.running)
            .map(|t| (t.session_id, t.project_slug))
            .collect()
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
    use paddock_proto::{ResyncReason, TextDelta};

    fn sink(id: ClientId, cap: usize) -> (ClientSink, mpsc::Receiver<Line>, mpsc::Receiver<Line>) {
        let (ftx, frx) = mpsc::channel(cap);
        let (rtx, rrx) = mpsc::channel(RESYNC_QUEUE);
        (
            ClientSink {
                id,
                frames: ftx,
                resync: rtx,
                kill: CancellationToken::new(),
                agent: false,
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
        let line: Line = Arc::new("{}\n".to_owned());
        // Closed: the client went away; nothing to warn about.
        let mut hub = task::HubTask::new(HubLimits {
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
