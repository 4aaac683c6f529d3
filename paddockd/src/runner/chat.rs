//! One chat's task: the only owner of that chat's `claude` process.
//!
//! Every turn, whatever happens to the process (a clean result, an interrupt, a crash, a
//! hang, garbage on stdout, shutdown), ends with `chat:complete` and `EndTurn` in the hub:
//! a chat is never left "running".

//!
//! The task's loop and what it does between turns are here; a turn's steps are in `turn.rs`
//! (its start), `launch.rs` (a process for it), `read.rs` (claude's output until the
//! turn's `result`), `approvals.rs` (tool calls a person decides) and `ending.rs` (what
//! follows its end: recovery, a usage limit, the queued follow-up, the run's record).

mod approvals;
mod ending;
mod launch;
mod read;
mod spare;
pub(super) use spare::forget_grant;
mod turn;

use std::sync::Arc;
use std::time::Duration;

use paddock_proto::{ChatEvent, NoticeKind, Origin};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::background::{self, Background};
use super::process::{ClaudeProcess, Output, describe_exit};
use super::translate::Translator;
use super::{Cmd, Ctx, TurnRequest};
use crate::claude_format::stdout::{Kind, Line};
use ending::failure;

/// Capacity of a chat's command queue; the coordinator waits when it is full.
pub const CHAT_QUEUE: usize = 16;

pub struct TurnJob {
    pub req: TurnRequest,
    pub new_chat: bool,
    pub reply: oneshot::Sender<Result<String, super::Refused>>,
    /// A turn the CLI started by itself (a background task's notification): its first stdout
    /// line. No message is sent; the turn is read from this line to its `result`.
    pub unprompted: Option<Line>,
}

pub enum ChatCmd {
    Turn(Box<TurnJob>),
    Cancel {
        job_id: Option<String>,
        reply: oneshot::Sender<bool>,
    },
    /// Stop the process if it is idle (the pool needs the slot).
    Reap,
    /// Stop the process now unless background tasks hold it (the chat moves to another
    /// project, whose folder its next turn runs in); answers whether none is left.
    Release(oneshot::Sender<bool>),
    /// Start a spare for this project's next new chat (`spare.rs`): this task's first command.
    Warm(Box<crate::projects::Project>),
}

/// A process and the translation state that goes with it.
struct Live {
    proc: ClaudeProcess,
    translator: Translator,
    model: Option<String>,
    /// Whether this process was given the self-management tools (the depth gate).
    manage: bool,
    /// The folder it works in (the project's, or the chat's worktree).
    cwd: std::path::PathBuf,
    /// Its background tasks, which keep it alive after the turn (`background.rs`).
    background: Background,
    /// Started as a spare and not used yet: the fingerprint of how (`spare.rs`).
    spare: Option<u64>,
}

pub struct ChatTask {
    session_id: String,
    ctx: Arc<Ctx>,
    rx: mpsc::Receiver<ChatCmd>,
    live: Option<Live>,
    interrupts: u64,
    /// Machine-started turns (a message from another chat, a schedule) that arrived while a
    /// turn ran: they run, in order, when it ends. Bounded by [`PENDING_MAX`].
    pending: std::collections::VecDeque<TurnJob>,
    /// Answers from the approvals inbox for this chat's waiting tool calls (bounded by
    /// [`crate::approvals::ANSWER_QUEUE`]).
    answers_tx: mpsc::Sender<crate::approvals::Answer>,
    answers_rx: mpsc::Receiver<crate::approvals::Answer>,
    /// The running turn ran without a person (a schedule, a hook, another chat): its tool
    /// calls wait for an answer at most `approval_timeout` (its trigger's setting wins).
    unattended: bool,
    /// How long this turn's tool calls wait in the inbox; `None`: until answered.
    approval_wait: Option<Duration>,
    /// What to call the chat in the inbox before its transcript is indexed: the running
    /// turn's first line.
    fallback_title: String,
    /// Continues autodrive made in a row (reset by a turn that completes).
    autodrives: u32,
    /// The last turn ran in batch mode: stop the process once the queue is empty (and its
    /// background tasks are done).
    batch: bool,
    /// What the last turn ran for: the project, origin and trigger an unprompted turn of the
    /// same process is recorded under.
    last: Option<LastTurn>,
    /// What the coordinator was last told: the live process is idle (reapable).
    told_idle: bool,
    /// The running prompted turn's message id: its reply's text is kept as it streams
    /// (`streamed.rs`).
    streaming: Option<String>,
    /// This task holds a spare, not a chat (`spare.rs`): until a turn comes.
    spare: Option<spare::SpareTask>,
}

/// What an unprompted turn inherits from the turn before it.
#[derive(Clone)]
struct LastTurn {
    project: crate::projects::Project,
    origin: Origin,
    trigger: Option<String>,
}

/// Machine turns a busy chat holds; one more is refused as busy.
const PENDING_MAX: usize = 32;

/// A turn that arrives while another runs: a machine's waits its turn (its sender is told it
/// was accepted); a person's is refused as busy, so they can choose to cancel.
fn hold_or_refuse(
    pending: &mut std::collections::VecDeque<TurnJob>,
    session_id: &str,
    job: TurnJob,
) {
    if job.req.reply_to.is_some() || pending.len() >= PENDING_MAX {
        busy(session_id, job);
        return;
    }
    let TurnJob {
        req,
        new_chat,
        reply,
        unprompted,
    } = job;
    let _ = reply.send(Ok(session_id.to_owned()));
    let (reply, _) = oneshot::channel();
    pending.push_back(TurnJob {
        req,
        new_chat,
        reply,
        unprompted,
    });
}

/// A turn's drive mode: a one-shot trigger's run (`session = "new"`) is batch; otherwise the
/// project's `drive_mode`, else the instance's.
pub fn drive_mode(
    cfg: &crate::config::Config,
    project: &crate::projects::Project,
    trigger: Option<&str>,
) -> crate::config::DriveMode {
    let one_shot = trigger
        .and_then(|t| project.file.triggers.get(t))
        .is_some_and(|spec| spec.session == paddock_proto::SessionPolicy::New);
    if one_shot {
        return crate::config::DriveMode::Batch;
    }
    project.file.drive_mode.unwrap_or(cfg.drive_mode)
}

impl ChatTask {
    pub fn new(session_id: String, ctx: Arc<Ctx>, rx: mpsc::Receiver<ChatCmd>) -> Self {
        let (answers_tx, answers_rx) = mpsc::channel(crate::approvals::ANSWER_QUEUE);
        Self {
            answers_tx,
            answers_rx,
            unattended: false,
            approval_wait: None,
            fallback_title: String::new(),
            autodrives: 0,
            session_id,
            ctx,
            rx,
            live: None,
            interrupts: 0,
            pending: std::collections::VecDeque::new(),
            batch: false,
            last: None,
            told_idle: false,
            streaming: None,
            spare: None,
        }
    }

    pub async fn run(mut self) {
        loop {
            // A spare whose process is gone is over: the coordinator is told, and drops this
            // task (a new chat that took it meanwhile starts claude afresh here).
            if self.spare.is_some() && self.live.is_none() {
                self.spare_gone().await;
            }
            let idle_timeout = match self.spare {
                Some(_) => self.ctx.cfg.spare_keep,
                None => self.ctx.cfg.idle_timeout,
            };
            let now = Instant::now();
            // A background task just finished: the CLI is about to run the turn reporting
            // it. Messages (commands, held turns) wait for it to start, briefly, so one is
            // not answered after that turn (`background::DEFER_MESSAGES`).
            let defer = self.defer_until(now);
            if defer.is_none() && !self.pending.is_empty() {
                self.drain_pending().await;
                continue;
            }
            // Background tasks keep the process: no batch stop, no idle reaping, no reaping
            // for the pool while they run or the turn reporting one is still owed (bounded:
            // `background::MAX_WAIT`, `background::NOTIFY_GRACE`).
            let hold = self.hold_until(now);
            // Batch: the process lives for the turn (and the turns its background tasks
            // owe) only; the next one resumes the session by id in a new process.
            if self.batch && self.live.is_some() && hold.is_none() {
                self.stop_process("batch mode: one claude per turn").await;
            }
            self.sync_idle().await;
            let idle_at = hold.map_or(now + idle_timeout, |h| h.max(now + idle_timeout));
            tokio::select! {
                () = self.ctx.shutdown.cancelled() => break,
                () = sleep_until_opt(defer) => {}
                cmd = self.rx.recv(), if defer.is_none() => match cmd {
                    None => break,
                    Some(ChatCmd::Turn(job)) => {
                        // A spare becomes the chat.
                        self.spare = None;
                        self.turn(*job).await;
                        self.drain_pending().await;
                    }
                    Some(ChatCmd::Cancel { reply, .. }) => {
                        let _ = reply.send(false);
                    }
                    Some(ChatCmd::Warm(project)) => self.warm(*project).await,
                    Some(ChatCmd::Release(reply)) => {
                        let free = self.hold_until(Instant::now()).is_none();
                        if free && self.live.is_some() {
                            self.told_idle = false;
                            self.stop_process("the chat moves to another project").await;
                        }
                        let _ = reply.send(free);
                    }
                    Some(ChatCmd::Reap) => {
                        // The coordinator no longer counts this process as idle.
                        self.told_idle = false;
                        if self.hold_until(Instant::now()).is_none() {
                            self.stop_process("the pool needed its slot").await;
                        } else {
                            tracing::debug!(session = %self.session_id, "not reaped: background tasks run");
                        }
                    }
                },
                () = tokio::time::sleep_until(idle_at), if self.live.is_some() => {
                    if self.hold_until(Instant::now()).is_none() {
                        self.stop_process("idle timeout").await;
                    }
                }
                () = sleep_until_opt(hold.filter(|_| self.batch)) => {}
                out = next_output(&mut self.live) => self.idle_output(out).await,
            }
        }
        if let Some(live) = self.live.take() {
            live.proc.stop(Duration::from_secs(2)).await;
        }
    }

    /// Runs the turns held while one ran, in order; stops while a message should wait for
    /// the turn a finished background task owes (the loop runs the rest after it).
    async fn drain_pending(&mut self) {
        loop {
            if self.defer_until(Instant::now()).is_some() {
                return;
            }
            let Some(next) = self.pending.pop_front() else {
                return;
            };
            self.turn(next).await;
        }
    }

    /// Until when a new message waits (see `background::DEFER_MESSAGES`).
    fn defer_until(&self, now: Instant) -> Option<Instant> {
        self.live
            .as_ref()
            .and_then(|l| l.background.defer_until(now))
    }

    /// Until when the live process's background work keeps it (see `background.rs`).
    fn hold_until(&self, now: Instant) -> Option<Instant> {
        self.live
            .as_ref()
            .and_then(|l| l.background.hold_until(now))
    }

    /// Tells the coordinator whether this chat's process is idle (reapable for the pool).
    async fn set_idle(&mut self, idle: bool) {
        self.told_idle = idle;
        self.ctx
            .tell(Cmd::Idle {
                session_id: self.session_id.clone(),
                idle,
            })
            .await;
    }

    /// Between turns: a live process is idle unless its background work holds it.
    async fn sync_idle(&mut self) {
        let idle = self.live.is_some() && self.hold_until(Instant::now()).is_none();
        if idle != self.told_idle {
            self.set_idle(idle).await;
        }
    }

    /// The tool rules this chat's process is answered by: the instance's and the project's
    /// allowed tools, the agent tools it was given, the user's MCP servers and the browser.
    fn allowed_tools(&self, project: &crate::projects::Project) -> Vec<String> {
        let cfg = &self.ctx.cfg;
        let manage = self.live.as_ref().is_some_and(|l| l.manage);
        cfg.allowed_tools
            .iter()
            .chain(project.file.allowed_tools.iter())
            .cloned()
            .chain(crate::grants::allowed_patterns(manage))
            // The user's servers and the browser: their tools are allowed, not silently denied.
            .chain(
                crate::user_mcp::extra_servers(&cfg.user_mcp, cfg.browser_mcp, &project.agent_dir)
                    .1,
            )
            .collect()
    }

    /// Output while no turn runs: background task bookkeeping, a subagent's lines, or the
    /// start of a turn the CLI runs by itself (a background task finished), which becomes an
    /// unprompted turn; a dead or babbling process is let go.
    async fn idle_output(&mut self, out: Output) {
        match out {
            Output::Line(v) => {
                if let Some(live) = self.live.as_mut() {
                    live.background.track(&v);
                }
                if let Kind::ControlRequest(request) = &v.kind {
                    self.idle_permission(request).await;
                    return;
                }
                if v.kind == Kind::ControlResponse && self.spare.is_some() {
                    self.spare_answered().await;
                    return;
                }
                if background::starts_turn(&v)
                    && !self.ctx.shutdown.is_cancelled()
                    && let Some(last) = self.last.clone()
                {
                    self.unprompted(last, *v).await;
                    self.drain_pending().await;
                    return;
                }
                let kind = v.type_name();
                tracing::debug!(session = %self.session_id, kind, "output while idle");
            }
            Output::Garbage(line) => {
                self.spare_died();
                tracing::warn!(session = %self.session_id, "idle claude printed garbage: {line:.200}");
                self.stop_process("garbage on stdout").await;
            }
            Output::Oversize(len) => {
                self.spare_died();
                tracing::warn!(session = %self.session_id, len, "idle claude printed an oversize line");
                self.stop_process("an oversize line on stdout").await;
            }
            Output::Closed => {
                self.spare_died();
                self.stop_process("exited while idle").await;
            }
        }
    }

    /// A turn the CLI started by itself: it runs as a daemon-started turn (a job id, a run,
    /// `chat:active`, frames to every subscriber, `chat:complete`), recorded under the origin
    /// and trigger of the turn before it: the work it reports was started by that turn.
    async fn unprompted(&mut self, last: LastTurn, first: Line) {
        let label = self
            .live
            .as_ref()
            .map(|l| l.background.label())
            .unwrap_or_default();
        tracing::info!(session = %self.session_id, "claude started a turn by itself: {label}");
        let (reply, _) = oneshot::channel();
        let job = TurnJob {
            req: TurnRequest::new(last.project, Some(self.session_id.clone()), label)
                .origin(last.origin)
                .trigger(last.trigger)
                // At the lineage of the turn before it, whose work it reports.
                .cause(
                    self.ctx
                        .state
                        .lineages
                        .get(&self.session_id)
                        .map(|t| t.lineage),
                ),
            new_chat: false,
            reply,
            unprompted: Some(first),
        };
        self.turn(job).await;
    }

    /// A spare's process failed by itself: it is to be replaced.
    fn spare_died(&mut self) {
        if let Some(spare) = self.spare.as_mut() {
            spare.died = true;
        }
    }

    /// What the chat is called: its indexed title, else the running turn's first line.
    fn title(&self) -> String {
        self.ctx
            .state
            .live_index()
            .get(&self.session_id)
            .map(|c| c.title)
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| self.fallback_title.clone())
    }

    /// Sends one event to the chat's subscribers.
    async fn emit(&self, event: ChatEvent) {
        if let Some(message_id) = &self.streaming {
            let kept = &self.ctx.state.streamed;
            match &event {
                ChatEvent::Response(d) => kept.text(&self.session_id, message_id, &d.text),
                ChatEvent::MessageBoundary(_) => kept.boundary(&self.session_id, message_id),
                _ => {}
            }
        }
        self.ctx.hub.emit(&self.session_id, event).await;
    }

    /// Kills the process mid-turn (it cannot finish the turn) and lets the pool know.
    async fn kill_process(&mut self) {
        if let Some(live) = self.live.take() {
            live.proc.kill().await;
        }
        self.set_idle(false).await;
    }

    async fn stop_process(&mut self, why: &str) {
        if let Some(live) = self.live.take() {
            let running = live.background.running();
            if running > 0 {
                tracing::warn!(session = %self.session_id, running, "stopping claude with background tasks still running: {why}");
            } else {
                tracing::info!(session = %self.session_id, "stopping claude: {why}");
            }
            self.set_idle(false).await;
            live.proc.stop(Duration::from_secs(2)).await;
        }
    }

    /// The process died or stopped answering: reap it and describe why.
    async fn lost_process(&mut self, context: String) -> Vec<ChatEvent> {
        let Some(live) = self.live.take() else {
            return failure(NoticeKind::Crashed, context);
        };
        self.set_idle(false).await;
        let (status, stderr) = live.proc.stop(Duration::from_secs(2)).await;
        failure(
            NoticeKind::Crashed,
            format!("{} ({context})", describe_exit(status, &stderr)),
        )
    }
}

fn busy(session_id: &str, job: TurnJob) {
    let _ = job
        .reply
        .send(Err(super::Refused::Busy(session_id.to_owned())));
}

async fn next_output(live: &mut Option<Live>) -> Output {
    match live {
        Some(l) => l.proc.next().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
