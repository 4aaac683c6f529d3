//! The runner: one task per chat that owns the chat's `claude` process, and a coordinator
//! that routes turns to them and keeps the pool bound.
//!
//! The pool is a semaphore of `max_processes` permits; a live process holds one. A turn that
//! finds no free permit has the coordinator reap the least recently used idle process for it;
//! only when none is idle does it wait (fairly, first come first served) and say so. Idle processes are also reaped after
//! `idle_timeout`; the next turn of that chat resumes it with `--resume`. A spare (`spare.rs`)
//! is a process started ahead for a project's next new chat; spares are the first reaped.

mod background;
mod chat;
mod death_signal;
pub(crate) mod forker;
pub mod process;
mod release;
mod request;
mod settle;
mod spare;
pub mod survivors;
pub mod translate;
mod worktree;

use std::collections::HashMap;
use std::sync::Arc;

use paddock_proto::{Attribution, Origin, RequestId};
use tokio::sync::{Semaphore, mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::hub::{ClientId, Hub};
use crate::projects::Project;
use crate::state::ChatState;
use crate::stores::RunProvenance;

pub use spare::SpareInfo;

/// Why the runner did not start a turn. The request layer turns it into the wire's error
/// (`From<Refused> for ErrorBody`, in `handles.rs`); each message says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// The project shares its folder with another; its transcripts would land in the
    /// owner's folder.
    #[error("{0}")]
    Shadowed(String),
    #[error("{0:?} is not a session id (a UUID); `paddock ls` lists them")]
    NotASession(String),
    #[error("no chat {session_id} in {where_}; `paddock ls --all` lists the chats")]
    NoChat { session_id: String, where_: String },
    #[error(
        "chat {0}'s first message never reached claude (paddockd stopped first, or its worktree's setup failed); continue the chat (`paddock continue {0}`, C on it in the TUI) to send that message again, then reply"
    )]
    FirstUnwritten(String),
    #[error(
        "chat {0} is running a turn: `paddock send -c {0} --queue ...` sends your message when it ends (`paddock tail {0}` follows it, `paddock cancel {0}` stops it)"
    )]
    Busy(String),
    #[error("paddockd is shutting down; try again once it has restarted")]
    ShuttingDown,
    /// The chat's worktree could not be made, or is gone (`worktree.rs`).
    #[error("{0}")]
    Worktree(String),
    /// The chat is being moved to another project (`chat:promote`).
    #[error(
        "chat {0} is being moved to another project; send again in a moment (`paddock ls --all` shows where it is)"
    )]
    Moving(String),
}

/// A turn to run.
#[derive(Debug)]
pub struct TurnRequest {
    pub project: Project,
    /// `None` starts a new chat.
    pub session_id: Option<String>,
    pub message: String,
    pub model: Option<String>,
    /// Who injected the message; `None` for a person.
    pub attribution: Option<Attribution>,
    /// Who started this run (the History view's origin): `Human` for a person's turn.
    pub origin: Origin,
    /// What to stamp as a new chat's run provenance; `None` stamps a human-started root.
    /// Ignored for an existing chat: provenance is stamped once, at creation.
    pub provenance: Option<RunProvenance>,
    /// The schedule or hook that fired the run.
    pub trigger: Option<String>,
    /// The turn that started this one (the sender of its message, or the turn that set off
    /// its hook): the turn runs at that turn's depth for the gate, in its tree
    /// (`lineage.rs`). `None`: the chat's own.
    pub cause: Option<crate::lineage::Lineage>,
    /// The connection and request that asked: it is subscribed and gets the `Sent` reply
    /// ahead of the turn's first frame.
    pub reply_to: Option<(ClientId, RequestId)>,
    /// `session_id`'s first turn, asked again: claude never wrote it, so the turn starts the
    /// session (`--session-id`) rather than resume it.
    pub fresh_session: bool,
}

#[derive(Debug, Clone, Default)]
pub struct RunnerStatus {
    pub live_processes: u32,
    pub max_processes: u32,
    pub queued_turns: u32,
    /// The spares kept now (counted in `live_processes`).
    pub spares: Vec<SpareInfo>,
}

/// Shared, read-only context of every chat task.
struct Ctx {
    cfg: Arc<Config>,
    /// The releases of the claude binaries started so far (`release.rs`).
    releases: Arc<release::Releases>,
    hub: Hub,
    state: Arc<ChatState>,
    pool: Arc<Semaphore>,
    coordinator: mpsc::WeakSender<Cmd>,
    shutdown: CancellationToken,
    /// Where a chat's timers (an approval's wait, a later continue) are spawned, so shutdown
    /// waits for them (each ends at shutdown).
    tracker: TaskTracker,
}

impl Ctx {
    async fn tell(&self, cmd: Cmd) {
        if let Some(tx) = self.coordinator.upgrade() {
            let _ = tx.send(cmd).await;
        }
    }

    /// Asks the coordinator a yes-or-no question (no answer: no).
    async fn ask(&self, cmd: impl FnOnce(oneshot::Sender<bool>) -> Cmd) -> bool {
        let (tx, rx) = oneshot::channel();
        self.tell(cmd(tx)).await;
        rx.await.unwrap_or(false)
    }

    /// Whether a turn that needs a process has to wait for one: no pool permit is free and
    /// no idle process can be reaped for it.
    async fn must_wait(&self) -> bool {
        self.pool.available_permits() == 0 && !self.ask(Cmd::HasIdle).await
    }
}

enum Cmd {
    Send(Box<TurnRequest>, oneshot::Sender<Result<String, Refused>>),
    Cancel {
        session_id: String,
        job_id: Option<String>,
        reply: oneshot::Sender<bool>,
    },
    /// A chat's process became idle (`true`) or busy / gone (`false`).
    Idle {
        session_id: String,
        idle: bool,
    },
    /// A turn found no free pool permit: reap the least recently idle process for it, and
    /// answer whether one was (then the turn only waits for it to stop, and says nothing).
    Wait(oneshot::Sender<bool>),
    /// A turn that sent `Wait` got its permit or gave up.
    Waited,
    /// Whether an idle process could be reaped now.
    HasIdle(oneshot::Sender<bool>),
    /// Stop a chat's idle process (`Runner::release`).
    Release {
        session_id: String,
        reply: oneshot::Sender<bool>,
    },
    Status(oneshot::Sender<RunnerStatus>),
    /// A turn ended: a quiet moment to start spares.
    TurnOver,
    /// A spare answered `initialize`.
    SpareReady {
        session_id: String,
    },
    /// A spare's process is gone (`died`: by itself, not stopped).
    SpareGone {
        session_id: String,
        died: bool,
    },
    /// A spare worktree is ready (`Runner::warm_in`): start its spare process, if its project
    /// still wants one.
    WarmIn {
        project: Box<Project>,
        session_id: String,
    },
}

/// Capacity of the coordinator's queue; senders wait when it is full.
const COMMAND_QUEUE: usize = 1024;

/// A handle to the coordinator.
#[derive(Clone)]
pub struct Runner {
    tx: mpsc::Sender<Cmd>,
    /// What placing a turn in its chat's worktree reads (`worktree.rs`).
    cfg: Arc<Config>,
    state: Arc<ChatState>,
    /// The projects that want a spare in a spare worktree (`spare.rs`).
    wanted_worktrees: watch::Receiver<Vec<Project>>,
}

impl Runner {
    /// Starts the coordinator. Chat tasks are spawned on `tracker`, so shutdown can wait for
    /// every process to be stopped.
    pub fn spawn(
        cfg: Arc<Config>,
        hub: Hub,
        state: Arc<ChatState>,
        shutdown: CancellationToken,
        tracker: TaskTracker,
    ) -> Self {
        let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
        let (wanted_tx, wanted_worktrees) = watch::channel(Vec::new());
        let max = usize::try_from(cfg.max_processes).unwrap_or(1);
        let (runner_cfg, runner_state) = (cfg.clone(), state.clone());
        let ctx = Arc::new(Ctx {
            cfg,
            releases: Arc::new(release::Releases::new(tracker.clone())),
            hub,
            state,
            pool: Arc::new(Semaphore::new(max)),
            coordinator: tx.downgrade(),
            shutdown,
            tracker: tracker.clone(),
        });
        // The configured binary's release is asked now, so the first turn need not wait.
        let warm = ctx.clone();
        tracker.spawn(async move {
            warm.releases
                .warm(&warm.cfg.claude_bin, &warm.cfg.claude_env)
                .await;
        });
        let coordinator = Coordinator {
            ctx,
            chats: HashMap::new(),
            idle: HashMap::new(),
            tick: 0,
            waiting: 0,
            spares: spare::Spares::default(),
            wanted_worktrees: wanted_tx,
            tracker: tracker.clone(),
        };
        tracker.spawn(coordinator.run(rx));
        Self {
            tx,
            cfg: runner_cfg,
            state: runner_state,
            wanted_worktrees,
        }
    }

    /// Starts a turn; returns the session id. The `Sent` reply reaches `reply_to` through the
    /// hub, ahead of the turn's frames.
    pub async fn send(&self, req: TurnRequest) -> Result<String, Refused> {
        // Its transcripts would land in the directory owner's folder.
        if let Some(problem) = req.project.shadow_problem() {
            return Err(Refused::Shadowed(problem));
        }
        // Its transcript is being renamed into another project's folder.
        if let Some(sid) = req.session_id.as_deref()
            && self.state.moving.holds(sid)
        {
            return Err(Refused::Moving(sid.to_owned()));
        }
        // A worktree chat's turn runs in its worktree.
        let req = worktree::place(&self.cfg, &self.state, req)?;
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Cmd::Send(Box::new(req), tx)).await.is_err() {
            return Err(Refused::ShuttingDown);
        }
        rx.await.unwrap_or(Err(Refused::ShuttingDown))
    }

    /// Interrupts a chat's running turn; false when nothing was running.
    pub async fn cancel(&self, session_id: String, job_id: Option<String>) -> bool {
        let (tx, rx) = oneshot::channel();
        let cmd = Cmd::Cancel {
            session_id,
            job_id,
            reply: tx,
        };
        if self.tx.send(cmd).await.is_err() {
            return false;
        }
        rx.await.unwrap_or(false)
    }

    /// Stops a chat's `claude` if it has one and no background task holds it; waits for the
    /// turn a running chat is in. False when a background task holds it (or shutdown came).
    pub async fn release(&self, session_id: String) -> bool {
        let (tx, rx) = oneshot::channel();
        if self
            .tx
            .send(Cmd::Release {
                session_id,
                reply: tx,
            })
            .await
            .is_err()
        {
            return false;
        }
        rx.await.unwrap_or(false)
    }

    /// The projects that want their spare in a spare worktree, as the book says after each
    /// turn: the git layer keeps one ready for each (and removes the others), then calls
    /// [`Runner::warm_in`].
    pub fn spare_worktrees_wanted(&self) -> watch::Receiver<Vec<Project>> {
        self.wanted_worktrees.clone()
    }

    /// Starts a spare process in a spare worktree made for `project`'s next new chat
    /// (`project` seen from it; `session_id` the worktree's and that chat's), if the project
    /// still wants one there and a pool slot is free; a spare the project had before is
    /// stopped.
    pub async fn warm_in(&self, project: Project, session_id: String) {
        let cmd = Cmd::WarmIn {
            project: Box::new(project),
            session_id,
        };
        let _ = self.tx.send(cmd).await;
    }

    pub async fn status(&self) -> RunnerStatus {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Cmd::Status(tx)).await.is_err() {
            return RunnerStatus::default();
        }
        rx.await.unwrap_or_default()
    }
}

struct ChatHandle {
    tx: mpsc::Sender<chat::ChatCmd>,
}

struct Coordinator {
    ctx: Arc<Ctx>,
    chats: HashMap<String, ChatHandle>,
    /// Chats whose process is alive and idle, with when they became idle (a tick).
    idle: HashMap<String, u64>,
    tick: u64,
    /// Turns waiting for a pool permit.
    waiting: u32,
    spares: spare::Spares,
    /// Where the book publishes the projects that want a spare worktree.
    wanted_worktrees: watch::Sender<Vec<Project>>,
    tracker: TaskTracker,
}

impl Coordinator {
    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        loop {
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
                () = self.ctx.shutdown.cancelled() => break,
            }
        }
        // Dropping the chat handles lets every chat task finish once its process is stopped.
        for session_id in self.spares.all() {
            chat::forget_grant(&self.ctx, &session_id);
        }
        self.chats.clear();
    }

    async fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Send(req, reply) => self.send(*req, reply).await,
            Cmd::Cancel {
                session_id,
                job_id,
                reply,
            } => match self.chats.get(&session_id) {
                Some(chat) => {
                    let cmd = chat::ChatCmd::Cancel { job_id, reply };
                    if let Err(mpsc::error::SendError(chat::ChatCmd::Cancel { reply, .. })) =
                        chat.tx.send(cmd).await
                    {
                        let _ = reply.send(false);
                    }
                }
                None => {
                    let _ = reply.send(false);
                }
            },
            Cmd::Idle { session_id, idle } => {
                if idle {
                    self.tick += 1;
                    self.idle.insert(session_id, self.tick);
                    if self.waiting > 0 {
                        self.reap_one().await;
                    }
                } else {
                    self.idle.remove(&session_id);
                }
            }
            Cmd::Wait(reaped) => {
                self.waiting += 1;
                let _ = reaped.send(self.reap_one().await);
            }
            Cmd::Waited => self.waiting = self.waiting.saturating_sub(1),
            Cmd::Release { session_id, reply } => match self.chats.get(&session_id) {
                Some(chat) => {
                    self.idle.remove(&session_id);
                    if let Err(mpsc::error::SendError(chat::ChatCmd::Release(reply))) =
                        chat.tx.send(chat::ChatCmd::Release(reply)).await
                    {
                        let _ = reply.send(true);
                    }
                }
                None => {
                    let _ = reply.send(true);
                }
            },
            Cmd::HasIdle(reply) => {
                let _ = reply.send(!self.idle.is_empty());
            }
            Cmd::Status(reply) => {
                let max = self.ctx.cfg.max_processes;
                let free = u32::try_from(self.ctx.pool.available_permits()).unwrap_or(max);
                let _ = reply.send(RunnerStatus {
                    live_processes: max.saturating_sub(free),
                    max_processes: max,
                    queued_turns: self.waiting,
                    spares: self.spares.info(),
                });
            }
            Cmd::TurnOver => self.refill(),
            Cmd::WarmIn {
                project,
                session_id,
            } => self.warm_in(*project, session_id),
            Cmd::SpareReady { session_id } => self.spares.ready(&session_id),
            Cmd::SpareGone { session_id, died } => {
                // Taken for a chat meanwhile: the task is that chat's now.
                if self.spares.holds(&session_id) {
                    self.spares.gone(&session_id, died);
                    self.chats.remove(&session_id);
                    self.idle.remove(&session_id);
                    if died {
                        self.refill();
                    }
                }
            }
        }
    }

    /// Starts the spares the book wants now and stops those it no longer wants (`spare.rs`).
    /// A spare is started only in a free pool slot while no turn waits for one.
    fn refill(&mut self) {
        let cfg = &self.ctx.cfg;
        let limit = usize::try_from(cfg.spare_processes).unwrap_or(usize::MAX);
        let plan = self
            .spares
            .plan(tokio::time::Instant::now(), limit, cfg.spare_keep);
        for session_id in plan.surplus {
            self.drop_spare(&session_id);
        }
        self.wanted_worktrees.send_replace(plan.worktrees);
        for project in plan.start {
            if !self.start_spare(&project, uuid::Uuid::new_v4().to_string(), false) {
                break;
            }
        }
    }

    /// Stops the spare `session_id`: its task ends once its handle is dropped, stopping its
    /// process; its grant goes now, so a spare started again under that id (its worktree is
    /// still wanted) is not touched by this one's end.
    fn drop_spare(&mut self, session_id: &str) {
        self.spares.gone(session_id, false);
        self.forget(session_id);
    }

    fn forget(&mut self, session_id: &str) {
        self.chats.remove(session_id);
        self.idle.remove(session_id);
        chat::forget_grant(&self.ctx, session_id);
    }

    /// Starts a spare process for `project`'s next new chat `session_id` (in a spare worktree:
    /// `project` is seen from it), replacing the spare it had; false, and none started, while
    /// a turn waits for a pool slot, none is free, or the daemon stops.
    fn start_spare(&mut self, project: &Project, session_id: String, worktree: bool) -> bool {
        let busy = self.waiting > 0 || self.ctx.pool.available_permits() == 0;
        if busy || self.ctx.shutdown.is_cancelled() {
            return false;
        }
        let (tx, rx) = mpsc::channel(chat::CHAT_QUEUE);
        self.tracker
            .spawn(chat::ChatTask::new(session_id.clone(), self.ctx.clone(), rx).run());
        // A new task's queue is empty: this cannot fail.
        let _ = tx.try_send(chat::ChatCmd::Warm(Box::new(project.clone())));
        self.chats.insert(session_id.clone(), ChatHandle { tx });
        if let Some(old) = self.spares.add(&project.slug, session_id.clone(), worktree)
            && old != session_id
        {
            self.forget(&old);
        }
        true
    }

    /// `Runner::warm_in`: a spare process in the spare worktree `session_id`, when its project
    /// still wants one there and no task has that id yet (a new chat took the worktree first).
    fn warm_in(&mut self, project: Project, session_id: String) {
        let cfg = &self.ctx.cfg;
        let limit = usize::try_from(cfg.spare_processes).unwrap_or(usize::MAX);
        let now = tokio::time::Instant::now();
        let wanted = self.spares.wants_in_worktree(
            &project.at_home(),
            &session_id,
            now,
            limit,
            cfg.spare_keep,
        );
        if wanted && !self.chats.contains_key(&session_id) {
            self.start_spare(&project, session_id, true);
        }
    }

    async fn send(
        &mut self,
        mut req: TurnRequest,
        reply: oneshot::Sender<Result<String, Refused>>,
    ) {
        // A new chat that took a spare worktree takes the spare process started in it.
        if let Some(sid) = req.session_id.as_deref()
            && req.fresh_session
            && let Some(slug) = self.spares.take_id(sid)
        {
            self.spares.served(&slug);
            self.idle.remove(sid);
        }
        // A turn asked before its chat moved to another project runs where the chat is now.
        if let Some(to) = req
            .session_id
            .as_deref()
            .and_then(|sid| self.ctx.state.moving.moved_to(sid))
            && to.slug != req.project.slug
        {
            req.project = to;
        }
        // The project was used: it may get a spare (`spare.rs`).
        self.spares
            .used(req.project.at_home(), tokio::time::Instant::now());
        let session_id = match &req.session_id {
            Some(id) => {
                if uuid::Uuid::parse_str(id).is_err() {
                    let _ = reply.send(Err(Refused::NotASession(id.clone())));
                    return;
                }
                id.clone()
            }
            // A new chat takes its project's spare: its process is up already.
            None => self
                .take_spare(&req.project.slug)
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        };
        let handle = self.chats.entry(session_id.clone()).or_insert_with(|| {
            let (tx, rx) = mpsc::channel(chat::CHAT_QUEUE);
            self.tracker
                .spawn(chat::ChatTask::new(session_id.clone(), self.ctx.clone(), rx).run());
            ChatHandle { tx }
        });
        let job = chat::ChatCmd::Turn(Box::new(chat::TurnJob {
            new_chat: req.session_id.is_none() || req.fresh_session,
            req,
            reply,
            unprompted: None,
        }));
        if let Err(mpsc::error::SendError(chat::ChatCmd::Turn(job))) = handle.tx.send(job).await {
            let _ = job.reply.send(Err(Refused::ShuttingDown));
        }
    }

    /// `slug`'s spare for a new chat, if it has one whose task still runs.
    fn take_spare(&mut self, slug: &str) -> Option<String> {
        let session_id = self.spares.take(slug)?;
        let alive = self
            .chats
            .get(&session_id)
            .is_some_and(|c| !c.tx.is_closed());
        if !alive {
            self.chats.remove(&session_id);
            return None;
        }
        self.spares.served(slug);
        self.idle.remove(&session_id);
        Some(session_id)
    }

    /// Frees a pool permit by stopping a spare, else the least recently idle process; false
    /// when no process is idle.
    async fn reap_one(&mut self) -> bool {
        let spare = self.idle.keys().find(|s| self.spares.holds(s)).cloned();
        let Some(session_id) = spare.or_else(|| {
            self.idle
                .iter()
                .min_by_key(|(_, tick)| **tick)
                .map(|(s, _)| s.clone())
        }) else {
            return false;
        };
        self.idle.remove(&session_id);
        match self.chats.get(&session_id) {
            Some(chat) => chat.tx.send(chat::ChatCmd::Reap).await.is_ok(),
            None => false,
        }
    }
}
