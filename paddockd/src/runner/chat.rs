//! One chat's task: the only owner of that chat's `claude` process.
//!
//! Every turn, whatever happens to the process (a clean result, an interrupt, a crash, a
//! hang, garbage on stdout, shutdown), ends with `chat:complete` and `EndTurn` in the hub:
//! a chat is never left "running".

use std::sync::Arc;
use std::time::Duration;

use paddock_proto::{
    ChatError, ChatEvent, Complete, ControlMessage, ErrorBody, ErrorCode, Notice, NoticeKind,
    Origin, Outcome, Reply, Response, RunStatus, Sent, ServerMessage, UserTurn,
};
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, mpsc, oneshot};
use tokio::time::Instant;

use super::background::{self, Background};
use super::process::{
    ClaudeProcess, Output, ProcessError, SessionStart, SpawnSpec, describe_exit, describe_oversize,
};
use super::settle;
use super::translate::Translator;
use super::{Cmd, Ctx, TurnRequest, permissions};
use crate::claude_format::stdout::{Control, ControlRequest, Kind, Line};
use crate::run_log::RunRecord;
use crate::stores::{Injection, RunProvenance};

/// Capacity of a chat's command queue; the coordinator waits when it is full.
pub const CHAT_QUEUE: usize = 16;

pub struct TurnJob {
    pub req: TurnRequest,
    pub new_chat: bool,
    pub reply: oneshot::Sender<Result<String, ErrorBody>>,
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
}

/// A process and the translation state that goes with it.
struct Live {
    proc: ClaudeProcess,
    translator: Translator,
    model: Option<String>,
    /// Whether this process was given the self-management tools (the depth gate).
    manage: bool,
    /// Its background tasks, which keep it alive after the turn (`background.rs`).
    background: Background,
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
        busy(job);
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

/// How a process for a turn is started, if one must be.
#[derive(Debug, Clone, Copy)]
struct Launch {
    /// The chat's transcript exists: resume it.
    on_disk: bool,
    /// Give it the self-management tools (the depth gate's decision).
    manage: bool,
}

/// How a turn ended, for the log and the run history.
#[derive(Debug)]
struct TurnEnd {
    status: RunStatus,
    cost_usd: Option<f64>,
    /// The CLI said the account's usage limit was hit (its message).
    usage_limit: Option<String>,
}

impl TurnEnd {
    fn failed() -> Self {
        Self {
            status: RunStatus::Failed,
            cost_usd: None,
            usage_limit: None,
        }
    }

    /// Takes the cost and the outcome from a turn's `chat:complete`.
    fn observe(&mut self, event: &ChatEvent) {
        if let ChatEvent::Notice(n) = event
            && n.kind == NoticeKind::UsageLimit
        {
            self.usage_limit = Some(n.message.clone());
        }
        if let ChatEvent::Complete(c) = event {
            self.cost_usd = c.cost_usd.or(self.cost_usd);
            if matches!(c.terminal_reason.as_deref(), Some("killed" | "crashed")) {
                self.status = RunStatus::Interrupted;
            } else if c.success {
                self.status = RunStatus::Completed;
            }
        }
    }
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
        }
    }

    pub async fn run(mut self) {
        loop {
            let idle_timeout = self.ctx.cfg.idle_timeout;
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
                        self.turn(*job).await;
                        self.drain_pending().await;
                    }
                    Some(ChatCmd::Cancel { reply, .. }) => {
                        let _ = reply.send(false);
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
            .chain(crate::agent::allowed_patterns(manage))
            // The user's servers and the browser: their tools are allowed, not silently denied.
            .chain(
                crate::user_mcp::extra_servers(&cfg.user_mcp, cfg.browser_mcp, &project.agent_dir)
                    .1,
            )
            .collect()
    }

    /// A permission request while no turn runs (a background subagent's tool call): an allowed
    /// tool is allowed; any other is denied at once, since the approvals inbox asks for a
    /// running turn and the subagent would otherwise wait until its process is stopped.
    async fn idle_permission(&mut self, v: &ControlRequest) {
        let Some(project) = self.last.as_ref().map(|l| l.project.clone()) else {
            return;
        };
        let allowed = self.allowed_tools(&project);
        let attachments_dir = crate::attachments::dir(&self.ctx.cfg.data_dir);
        let private = self.ctx.cfg.private_state();
        let answer = match permission_request(
            v,
            &allowed,
            &project.agent_dir,
            Some(&attachments_dir),
            &private,
        ) {
            Some(Permission::Answer(answer)) => answer,
            Some(Permission::Ask {
                request_id,
                tool,
                input,
            }) => {
                tracing::warn!(session = %self.session_id, tool, "denied a background task's tool call: no turn runs to ask in");
                let message = format!(
                    "{tool} needs approval, and paddockd asks only while a turn runs; a background task may use only the allowed tools (allowed_tools in the config or project.toml)"
                );
                permissions::answer(&request_id, &input, Some(&message))
            }
            None => return,
        };
        if let Some(live) = self.live.as_mut()
            && let Err(e) = live.proc.send(&answer)
        {
            tracing::warn!(session = %self.session_id, "cannot answer a permission request: {e}");
        }
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
                tracing::warn!(session = %self.session_id, "idle claude printed garbage: {line:.200}");
                self.stop_process("garbage on stdout").await;
            }
            Output::Oversize(len) => {
                tracing::warn!(session = %self.session_id, len, "idle claude printed an oversize line");
                self.stop_process("an oversize line on stdout").await;
            }
            Output::Closed => self.stop_process("exited while idle").await,
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
            req: TurnRequest {
                project: last.project,
                session_id: Some(self.session_id.clone()),
                message: label,
                model: None,
                attribution: None,
                origin: last.origin,
                provenance: None,
                trigger: last.trigger,
                reply_to: None,
            },
            new_chat: false,
            reply,
            unprompted: Some(first),
        };
        self.turn(job).await;
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

    async fn turn(&mut self, job: TurnJob) {
        let TurnJob {
            req,
            new_chat,
            reply,
            unprompted,
        } = job;
        let req = crate::chats::recovery_as_run(&self.ctx.state.runs, &self.session_id, req);
        let is_unprompted = unprompted.is_some();
        if !is_unprompted {
            self.last = Some(LastTurn {
                project: req.project.clone(),
                origin: req.origin,
                trigger: req.trigger.clone(),
            });
        }
        self.batch = drive_mode(&self.ctx.cfg, &req.project, req.trigger.as_deref())
            == crate::config::DriveMode::Batch;
        let hub = self.ctx.hub.clone();
        let cfg = self.ctx.cfg.clone();
        let state = self.ctx.state.clone();
        let project = req.project;
        let slug = project.slug.clone();

        let transcript = state
            .folder_of(&project)
            .join(format!("{}.jsonl", self.session_id));
        let on_disk = transcript.exists();
        if !new_chat && !on_disk && self.live.is_none() {
            let _ = reply.send(Err(ErrorBody::new(
                ErrorCode::NotFound,
                format!(
                    "no chat {} in {}; `paddock ls --all` lists the chats",
                    self.session_id,
                    if slug.is_empty() {
                        "the root workspace".to_owned()
                    } else {
                        format!("project {slug}")
                    }
                ),
            )));
            return;
        }
        let job_id = uuid::Uuid::new_v4().to_string();
        let message_id = uuid::Uuid::new_v4().to_string();
        let now = chrono::Utc::now().to_rfc3339();
        // Provenance is stamped once, when the chat is created, before anyone can list it.
        if new_chat {
            let marker = req.provenance.clone().unwrap_or(RunProvenance {
                origin: Origin::Human,
                depth: 0,
                parent_session_id: None,
                parent_project: None,
                created_at: None,
                trigger: None,
                title: None,
            });
            let marker = RunProvenance {
                created_at: marker.created_at.clone().or_else(|| Some(now.clone())),
                ..marker
            };
            if let Err(e) = state
                .stores
                .run_provenance
                .stamp(&self.session_id, marker)
                .await
            {
                tracing::warn!(session = %self.session_id, "could not record the chat's provenance: {e}");
            }
        }
        if let Some(source) = &req.attribution {
            let injection = Injection {
                text: req.message.clone(),
                source: source.clone(),
                at: now.clone(),
                message_id: Some(message_id.clone()),
            };
            if let Err(e) = state
                .stores
                .message_provenance
                .record(&self.session_id, injection)
                .await
            {
                tracing::warn!(session = %self.session_id, "could not record who injected the turn: {e}");
            }
        }
        let run = RunRecord {
            job_id: job_id.clone(),
            project_slug: slug.clone(),
            session_id: self.session_id.clone(),
            origin: req.origin,
            trigger: req.trigger.clone(),
            prompt: Some(crate::attachments::request_text(&req.message).to_owned()),
            started_at: now.clone(),
            status: RunStatus::Running,
            finished_at: None,
            cost_usd: None,
            attribution: req.attribution.clone(),
            watched: false,
        };
        if let Err(e) = state.runs.started(run).await {
            tracing::warn!(session = %self.session_id, "could not record the run in the history: {e}");
        }
        let _ = reply.send(Ok(self.session_id.clone()));

        // The asker is subscribed and gets `Sent` before the first frame of the turn.
        if let Some((client, request_id)) = req.reply_to {
            let sent = ServerMessage::Control(ControlMessage::Response(Response {
                id: request_id,
                outcome: Outcome::Ok(Reply::Sent(Sent {
                    project_slug: slug.clone(),
                    session_id: self.session_id.clone(),
                    job_id: job_id.clone(),
                    queued: self.live.is_none() && self.ctx.must_wait().await,
                })),
            }));
            let preface = paddock_proto::encode(&sent).ok().map(Arc::from);
            hub.subscribe(client, self.session_id.clone(), false, None, None, preface)
                .await;
        }
        hub.start_turn(&slug, &self.session_id, &job_id, now.clone())
            .await;
        if new_chat {
            hub.broadcast(ControlMessage::ChatsChanged(paddock_proto::ChatsChanged {
                project_slug: slug.clone(),
                session_id: Some(self.session_id.clone()),
            }))
            .await;
        }
        let sid = self.session_id.clone();
        let emit = |event: ChatEvent| {
            let hub = hub.clone();
            let sid = sid.clone();
            async move { hub.emit(&sid, event).await }
        };
        if is_unprompted {
            // No user message: say why the chat runs, in its stream.
            let message = self
                .live
                .as_ref()
                .map_or_else(String::new, |l| l.background.notice());
            emit(ChatEvent::Notice(Notice {
                kind: NoticeKind::Info,
                message,
            }))
            .await;
        } else {
            emit(ChatEvent::User(UserTurn {
                message_id: Some(message_id.clone()),
                text: req.message.clone(),
                attribution: req.attribution.clone(),
            }))
            .await;
        }

        // An adopted chat is a link to the user's own transcript: continue it in a private
        // copy, so claude's appends never alter their terminal history.
        if on_disk && self.live.is_none() {
            let path = transcript.clone();
            match tokio::task::spawn_blocking(move || crate::adopt::materialize(&path)).await {
                Ok(Ok(true)) => {
                    tracing::info!(session = %self.session_id, "continuing an adopted chat in a private copy of its transcript")
                }
                Ok(Ok(false)) => {}
                Ok(Err(e)) => {
                    tracing::warn!(session = %self.session_id, "could not copy the adopted transcript: {e}")
                }
                Err(e) => {
                    tracing::warn!(session = %self.session_id, "could not copy the adopted transcript: {e}")
                }
            }
        }

        let model = req
            .model
            .clone()
            .or_else(|| project.file.model.clone())
            .or_else(|| cfg.default_model.clone());
        // The depth gate: a person's turn always gets the self-management tools; a machine's
        // only while this chat's depth is within the limit.
        let depth = state
            .stores
            .run_provenance
            .get(&self.session_id)
            .map_or(0, |p| p.depth);
        // A person's turn: typed, queued, or a continue they asked for (a client waits on it).
        // An unprompted turn has no person behind it, whoever started the work it reports.
        let human = !is_unprompted
            && (req.reply_to.is_some()
                || (req.attribution.is_none() && req.origin == Origin::Human));
        let manage = crate::agent::grants_tools(&cfg, &project, depth, human);
        self.unattended = !human;
        if !is_unprompted {
            self.fallback_title = crate::attachments::request_text(&req.message)
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or_default()
                .chars()
                .take(80)
                .collect();
        }
        // A trigger's own approval_timeout_secs wins over the instance's (0: wait).
        let trigger_wait = req
            .trigger
            .as_ref()
            .and_then(|name| project.file.triggers.get(name))
            .and_then(|spec| spec.approval_timeout_secs);
        self.approval_wait = match trigger_wait {
            Some(0) => None,
            Some(secs) => Some(Duration::from_secs(secs)),
            None => cfg.approval_timeout,
        }
        .filter(|_| self.unattended);
        let driven = match unprompted {
            // The process runs the turn already: read it from its first line.
            Some(first) => {
                let mark = self.live.as_ref().and_then(|l| l.background.turn_started());
                self.set_idle(false).await;
                let driven = self.read_turn(&project, &job_id, Some(first)).await;
                if let Some(live) = self.live.as_mut() {
                    live.background.turn_ended(mark);
                }
                driven
            }
            None => {
                self.drive(
                    &project,
                    &job_id,
                    &message_id,
                    &req.message,
                    model,
                    Launch { on_disk, manage },
                )
                .await
            }
        };
        let end = match driven {
            Ok(end) => end,
            Err(events) => {
                let mut end = TurnEnd::failed();
                for e in events {
                    end.observe(&e);
                    emit(e).await;
                }
                end
            }
        };
        // Approvals the turn was waiting on go with it.
        if state.approvals.drop_job(&job_id) {
            hub.broadcast(ControlMessage::ApprovalsChanged(
                paddock_proto::ApprovalsChanged {
                    pending: state.approvals.count(),
                },
            ))
            .await;
        }
        // A follow-up queued while the turn ran goes next: taken atomically, so two drains
        // never send it twice; announced in the ending turn's stream.
        let follow_up = if end.status == RunStatus::Completed && !self.ctx.shutdown.is_cancelled() {
            match state.stores.queued.take(&self.session_id).await {
                Ok(q) => q,
                Err(e) => {
                    tracing::warn!(session = %self.session_id, "cannot take the queued follow-up: {e}");
                    None
                }
            }
        } else {
            None
        };
        // claude died mid-turn (or hung and was killed): say so, so a client can offer to
        // continue (`chat:continue`), unless `recovery_surface` is off.
        if end.status == RunStatus::Interrupted && !self.ctx.shutdown.is_cancelled() {
            if cfg.recovery_surface {
                emit(ChatEvent::KilledTask(paddock_proto::KilledTask {
                    task_id: None,
                    message:
                        "claude stopped before the turn finished; continue the chat to pick it up"
                            .into(),
                }))
                .await;
            }
            // Autodrive: continue it by ourselves, after a pause, a bounded number of times.
            if cfg.recovery_autodrive && self.autodrives < cfg.recovery_max_retries {
                self.autodrives += 1;
                let continue_turn = TurnRequest {
                    project: project.clone(),
                    session_id: Some(self.session_id.clone()),
                    message: crate::chats::CONTINUE_PROMPT.to_owned(),
                    model: None,
                    attribution: Some(paddock_proto::Attribution::Recovery),
                    origin: req.origin,
                    provenance: None,
                    trigger: req.trigger.clone(),
                    reply_to: None,
                };
                let (coordinator, debounce) = (self.ctx.coordinator.clone(), cfg.recovery_debounce);
                let shutdown = self.ctx.shutdown.clone();
                tokio::spawn(async move {
                    tokio::select! {
                        () = tokio::time::sleep(debounce) => {}
                        () = shutdown.cancelled() => return,
                    }
                    if let Some(tx) = coordinator.upgrade() {
                        let (reply, _) = oneshot::channel();
                        let _ = tx.send(Cmd::Send(Box::new(continue_turn), reply)).await;
                    }
                });
            }
        } else if end.status == RunStatus::Completed {
            self.autodrives = 0;
        }
        // A usage limit parks the chat until it resets (and, if configured, continues it then).
        if let Some(message) = &end.usage_limit {
            let parked = state
                .parking
                .park(&self.session_id, message, chrono::Utc::now());
            tracing::info!(session = %self.session_id, reset_at = ?parked.reset_at, "parked on a usage limit");
            if cfg.usage_limit_resume
                && let Some(at) = parked.reset_at
            {
                let wait = (at - chrono::Utc::now()).to_std().unwrap_or_default()
                    + Duration::from_secs(30);
                let resume = TurnRequest {
                    project: project.clone(),
                    session_id: Some(self.session_id.clone()),
                    message: crate::chats::CONTINUE_PROMPT.to_owned(),
                    model: None,
                    attribution: Some(paddock_proto::Attribution::Recovery),
                    origin: req.origin,
                    provenance: None,
                    trigger: req.trigger.clone(),
                    reply_to: None,
                };
                let (coordinator, shutdown) =
                    (self.ctx.coordinator.clone(), self.ctx.shutdown.clone());
                tokio::spawn(async move {
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = shutdown.cancelled() => return,
                    }
                    if let Some(tx) = coordinator.upgrade() {
                        let (reply, _) = oneshot::channel();
                        let _ = tx.send(Cmd::Send(Box::new(resume), reply)).await;
                    }
                });
            }
        } else if end.status == RunStatus::Completed {
            state.parking.unpark(&self.session_id);
        }
        if let Some(q) = &follow_up {
            emit(ChatEvent::QueuedFlushed(paddock_proto::QueuedFlushed {
                message: q.message.clone(),
            }))
            .await;
        }
        tracing::info!(session = %self.session_id, job = %job_id, ?end, "turn ended");
        let parent = state
            .stores
            .run_provenance
            .get(&self.session_id)
            .and_then(|p| p.parent_project.zip(p.parent_session_id));
        state.turn_ends.push(crate::turn_ends::TurnEnded {
            project_slug: slug.clone(),
            session_id: self.session_id.clone(),
            job_id: job_id.clone(),
            status: end.status,
            origin: req.origin,
            trigger: req.trigger.clone(),
            parent,
        });
        // A person's background task reporting back: they may be away (an unattended
        // origin's end is announced by the attention follower already; a failure too).
        if is_unprompted
            && end.status == RunStatus::Completed
            && matches!(req.origin, Origin::Human | Origin::Adopted)
        {
            let title = state
                .index
                .get(&self.session_id)
                .map(|c| c.title)
                .filter(|t| !t.trim().is_empty())
                .unwrap_or_else(|| self.fallback_title.clone());
            hub.attention(crate::attention::background_finished(
                &slug,
                &self.session_id,
                &job_id,
                req.origin,
                title,
            ))
            .await;
        }
        let watched = hub.watched(&self.session_id, &job_id).await;
        if let Err(e) = state
            .runs
            .finished(&job_id, end.status, end.cost_usd, watched)
            .await
        {
            tracing::warn!(session = %self.session_id, "could not record the run's end in the history: {e}");
        }
        // The transcript has grown: index it now rather than wait for the watcher, and before
        // the chat stops running, so a chat is always either running or indexed (a new chat is
        // found only that way) and a client that re-lists on `chat:active` sees the turn.
        state.index.refresh(&transcript).await;
        hub.end_turn(&self.session_id, &job_id).await;
        hub.broadcast(ControlMessage::ChatsChanged(paddock_proto::ChatsChanged {
            project_slug: slug,
            session_id: Some(self.session_id.clone()),
        }))
        .await;
        if let Some(q) = follow_up {
            let (reply, _) = oneshot::channel();
            self.pending.push_front(TurnJob {
                req: TurnRequest {
                    project: project.clone(),
                    session_id: Some(self.session_id.clone()),
                    message: q.message,
                    model: None,
                    attribution: None,
                    origin: Origin::Human,
                    provenance: None,
                    trigger: None,
                    reply_to: None,
                },
                new_chat: false,
                reply,
                unprompted: None,
            });
        }
        self.sync_idle().await;
    }

    /// Runs one turn to its end. `Err` carries the closing frames of a turn that failed
    /// before or outside the CLI's own `result`.
    async fn drive(
        &mut self,
        project: &crate::projects::Project,
        job_id: &str,
        message_id: &str,
        text: &str,
        model: Option<String>,
        launch: Launch,
    ) -> Result<TurnEnd, Vec<ChatEvent>> {
        let Launch { on_disk, manage } = launch;
        let cfg = self.ctx.cfg.clone();
        // The tools are fixed when claude starts: a turn that needs another grant restarts
        // the process (the chat resumes from its transcript).
        if self.live.as_ref().is_some_and(|l| l.manage != manage) {
            self.stop_process("its tools change for this turn").await;
        }
        let on_disk = on_disk
            || self
                .ctx
                .state
                .folder_of(project)
                .join(format!("{}.jsonl", self.session_id))
                .exists();
        if self.live.is_none() {
            let token = self
                .ctx
                .state
                .agents
                .issue(&self.session_id, &project.slug, manage);
            let permit = self.acquire_slot(job_id).await?;
            // Checked holding the slot, so the pool's order is that of the turns.
            if let Err(refusal) = self
                .ctx
                .releases
                .check(&cfg.claude_bin, &cfg.claude_env)
                .await
            {
                return Err(failure(NoticeKind::Info, refusal));
            }
            let spec = SpawnSpec {
                claude_bin: cfg.claude_bin.clone(),
                cwd: project.agent_dir.clone(),
                session: if on_disk {
                    SessionStart::Resume(self.session_id.clone())
                } else {
                    SessionStart::New(self.session_id.clone())
                },
                model: model.clone(),
                claude_home: cfg.claude_home.clone(),
                tmp_dir: cfg.data_dir.join("tmp"),
                max_retries: cfg.claude_max_retries,
                extra_env: cfg.claude_env.clone(),
                mcp_config: crate::agent::write_mcp_config(
                    &cfg,
                    &self.session_id,
                    &token,
                    manage,
                    &crate::user_mcp::extra_servers(
                        &cfg.user_mcp,
                        cfg.browser_mcp,
                        &project.agent_dir,
                    )
                    .0,
                )
                .map(|p| p.to_string_lossy().into_owned()),
                records: super::survivors::Records::new(&cfg.data_dir),
                stdin_stall: cfg.stdin_stall,
            };
            let proc = ClaudeProcess::spawn(&spec, permit)
                .await
                .map_err(|e| failure(NoticeKind::Crashed, e.to_string()))?;
            self.live = Some(Live {
                proc,
                translator: Translator::new(),
                model: model.clone(),
                manage,
                background: Background::default(),
            });
        } else {
            self.set_idle(false).await;
        }
        let Some(live) = self.live.as_mut() else {
            return Err(failure(NoticeKind::Crashed, "no claude process".into()));
        };
        if model.is_some() && model != live.model {
            let set = json!({"type": "control_request", "request_id": format!("model-{job_id}"),
                "request": {"subtype": "set_model", "model": model}});
            if let Err(e) = live.proc.send(&set) {
                return Err(self.lost_process(e.to_string()).await);
            }
            live.model = model;
        }
        let content =
            crate::attachments::content(text, &crate::attachments::dir(&self.ctx.cfg.data_dir));
        let msg = json!({
            "type": "user",
            "message": {"role": "user", "content": content},
            "parent_tool_use_id": null,
            "session_id": self.session_id,
            "uuid": message_id,
        });
        if let Err(e) = live.proc.send(&msg) {
            return Err(self.lost_process(e.to_string()).await);
        }
        self.read_turn(project, job_id, None).await
    }

    /// Waits for a pool permit, handling cancel and shutdown meanwhile.
    async fn acquire_slot(&mut self, job_id: &str) -> Result<OwnedSemaphorePermit, Vec<ChatEvent>> {
        if let Ok(p) = self.ctx.pool.clone().try_acquire_owned() {
            return Ok(p);
        }
        // An idle process is reaped for this turn: it waits only for that one to stop.
        if !self.ctx.ask(Cmd::Wait).await {
            let max = self.ctx.cfg.max_processes;
            self.ctx.hub
                .emit(
                    &self.session_id,
                    ChatEvent::Notice(Notice {
                        kind: NoticeKind::Info,
                        message: format!(
                            "waiting for a free claude process (all {max} are busy; max_processes sets the bound)"
                        ),
                    }),
                )
                .await;
        }
        let pool = self.ctx.pool.clone();
        let acquire = pool.acquire_owned();
        tokio::pin!(acquire);
        let result = loop {
            tokio::select! {
                permit = &mut acquire => break permit.map_err(|_| cancelled("the daemon is shutting down")),
                () = self.ctx.shutdown.cancelled() => break Err(cancelled("the daemon is shutting down")),
                cmd = self.rx.recv() => match cmd {
                    Some(ChatCmd::Cancel { job_id: want, reply }) => {
                        let hit = want.as_deref().is_none_or(|w| w == job_id);
                        let _ = reply.send(hit);
                        if hit {
                            break Err(cancelled("cancelled while waiting for a claude process"));
                        }
                    }
                    Some(ChatCmd::Turn(job)) => hold_or_refuse(&mut self.pending, &self.session_id, *job),
                    Some(ChatCmd::Reap) | None => {}
                },
            }
        };
        self.ctx.tell(Cmd::Waited).await;
        result
    }

    /// Reads the process's output until the turn's `result`, answering permission requests
    /// and handling cancel, hangs after an interrupt, crashes, garbage and shutdown.
    /// `first`: a line read already (an unprompted turn's), handled before the process's.
    async fn read_turn(
        &mut self,
        project: &crate::projects::Project,
        job_id: &str,
        mut first: Option<Line>,
    ) -> Result<TurnEnd, Vec<ChatEvent>> {
        let cfg = self.ctx.cfg.clone();
        let hub = self.ctx.hub.clone();
        let attachments_dir = crate::attachments::dir(&cfg.data_dir);
        let private = cfg.private_state();
        let allowed = self.allowed_tools(project);
        let mut deadline: Option<(Instant, &'static str)> = None;
        let mut shutting_down = false;
        let mut cancelled = false;
        let mut end = TurnEnd::failed();
        // Limbo: a turn with no output this long is hung, unless claude waits for something
        // that may take long: a person (an approval), a tool it started (a `tool_use` with no
        // result yet), a background task.
        let mut waiting_approvals = 0u32;
        let mut running_tools: std::collections::HashSet<String> = Default::default();
        let mut last_output = Instant::now();
        // Where the turn's records start, and the last reply record it will have (settle.rs).
        let transcript = self
            .ctx
            .state
            .folder_of(project)
            .join(format!("{}.jsonl", self.session_id));
        let transcript_from = settle::offset(&transcript).await;
        let mut last_reply: Option<String> = None;
        loop {
            let Some(live) = self.live.as_mut() else {
                return Err(failure(NoticeKind::Crashed, "no claude process".into()));
            };
            let waits = waiting_approvals > 0
                || !running_tools.is_empty()
                || live.background.running() > 0
                || deadline.is_some();
            let limbo_at = cfg
                .recovery_limbo
                .filter(|_| !waits)
                .map(|limbo| last_output + limbo);
            let input_failure = live.proc.input_failure();
            tokio::select! {
                // claude stopped reading its stdin: nothing more can reach it.
                why = input_failure => {
                    if let Some(live) = self.live.take() {
                        live.proc.kill().await;
                    }
                    self.set_idle(false).await;
                    return Err(failure(NoticeKind::Crashed, ProcessError::NotReading(why).to_string()));
                }
                out = next_line(&mut first, &mut live.proc) => match out {
                    Output::Line(v) => {
                        last_output = Instant::now();
                        live.background.track(&v);
                        if let Kind::ControlRequest(request) = &v.kind {
                            match permission_request(request, &allowed, &project.agent_dir, Some(&attachments_dir), &private) {
                                Some(Permission::Answer(answer)) => {
                                    if let Err(e) = live.proc.send(&answer) {
                                        return Err(self.lost_process(e.to_string()).await);
                                    }
                                }
                                // Not allowed by a rule: a person decides, in the inbox.
                                Some(Permission::Ask { request_id, tool, input }) => {
                                    let state = &self.ctx.state;
                                    let prov = state.stores.run_provenance.get(&self.session_id);
                                    let approval = paddock_proto::Approval {
                                        id: crate::approvals::Approvals::new_id(),
                                        project_slug: project.slug.clone(),
                                        session_id: self.session_id.clone(),
                                        job_id: job_id.to_owned(),
                                        title: state
                                            .index
                                            .get(&self.session_id)
                                            .map(|c| c.title)
                                            .filter(|t| !t.trim().is_empty())
                                            .unwrap_or_else(|| self.fallback_title.clone()),
                                        origin: prov.as_ref().map_or(Origin::Human, |p| p.origin),
                                        depth: prov.as_ref().map_or(0, |p| p.depth),
                                        preview: crate::approvals::preview(&tool, &input),
                                        always_rule: permissions::always_rule(&tool, &input, &project.agent_dir),
                                        tool: tool.clone(),
                                        input,
                                        asked_at: chrono::Utc::now().to_rfc3339(),
                                    };
                                    let approval_id = approval.id.clone();
                                    let attention = crate::attention::approval(&approval);
                                    let pending = state.approvals.ask(
                                        approval,
                                        request_id,
                                        self.answers_tx.clone(),
                                    );
                                    waiting_approvals += 1;
                                    // Nobody may be watching an unattended run: deny after the
                                    // configured wait (none: it waits for a person).
                                    let short_id: String = approval_id.trim_start_matches("apr_").chars().take(8).collect();
                                    if let Some(wait) = self.approval_wait {
                                        let (approvals, hub) = (state.approvals.clone(), hub.clone());
                                        tokio::spawn(async move {
                                            tokio::time::sleep(wait).await;
                                            let done = approvals.answer(
                                                &[approval_id],
                                                paddock_proto::ApprovalDecision::Deny,
                                                Some(&format!("no one answered within {}s, so paddockd denied it", wait.as_secs())),
                                            );
                                            if !done.is_empty() {
                                                hub.broadcast(ControlMessage::ApprovalsChanged(
                                                    paddock_proto::ApprovalsChanged { pending: approvals.count() },
                                                )).await;
                                            }
                                        });
                                    }
                                    hub.emit(&self.session_id, ChatEvent::Notice(Notice {
                                        kind: NoticeKind::Info,
                                        message: format!("{tool} is waiting for your approval: `paddock approvals allow {short_id}` (or deny, always; `paddock approvals` lists them), or I in the TUI"),
                                    })).await;
                                    hub.broadcast(ControlMessage::ApprovalsChanged(
                                        paddock_proto::ApprovalsChanged { pending },
                                    )).await;
                                    hub.attention(attention).await;
                                }
                                None => {}
                            }
                            continue;
                        }
                        if let Kind::Assistant(a) = &v.kind
                            && !v.subagent
                            && a.uuid.is_some()
                        {
                            last_reply.clone_from(&a.uuid);
                        }
                        let mut t = live.translator.line(&v);
                        if t.turn_over {
                            // Clients are told the turn ended once its transcript has it, and
                            // the chat list with it.
                            if let Some(uuid) = &last_reply
                                && !settle::until_written(&transcript, transcript_from, uuid, settle::BOUND).await
                            {
                                tracing::warn!(session = %self.session_id, "the transcript did not get the turn's last reply within {:?}", settle::BOUND);
                                settle::unsaved_on_low_disk(&transcript, cfg.disk_floor_bytes, &self.session_id, &mut t.events);
                            }
                            self.ctx.state.index.refresh(&transcript).await;
                        }
                        for e in t.events {
                            match &e {
                                ChatEvent::ToolStart(t) => {
                                    running_tools.insert(t.tool_use_id.clone());
                                }
                                ChatEvent::ToolCall(t) => {
                                    running_tools.remove(&t.tool_use_id);
                                }
                                _ => {}
                            }
                            end.observe(&e);
                            self.ctx.state.provenance.observe(project, &self.session_id, job_id, &e);
                            hub.emit(&self.session_id, e).await;
                        }
                        if t.turn_over {
                            if shutting_down {
                                end.status = RunStatus::Interrupted;
                            } else if cancelled && end.status != RunStatus::Completed {
                                end.status = RunStatus::Cancelled;
                            }
                            return Ok(end);
                        }
                    }
                    Output::Garbage(line) => {
                        let live = self.live.take();
                        if let Some(live) = live {
                            live.proc.kill().await;
                        }
                        self.set_idle(false).await;
                        let mut shown = line;
                        shown.truncate(200);
                        return Err(failure(NoticeKind::Crashed, format!(
                            "claude printed a line that is not stream-json, so it was stopped: {shown:?}")));
                    }
                    Output::Oversize(len) => {
                        if let Some(live) = self.live.take() {
                            live.proc.kill().await;
                        }
                        self.set_idle(false).await;
                        return Err(failure(NoticeKind::Crashed, describe_oversize(len)));
                    }
                    Output::Closed => {
                        return Err(self.lost_process("its output ended mid-turn".into()).await);
                    }
                },
                Some(answer) = self.answers_rx.recv() => {
                    waiting_approvals = waiting_approvals.saturating_sub(1);
                    last_output = Instant::now();
                    let deny = match answer.decision {
                        paddock_proto::ApprovalDecision::Deny => Some(answer.message.clone().unwrap_or_else(|| {
                            format!("the user denied {} in paddock's approvals inbox", answer.tool)
                        })),
                        _ => None,
                    };
                    if let Some(msg) = &deny {
                        hub.emit(&self.session_id, ChatEvent::Notice(Notice {
                            kind: NoticeKind::PermissionDenied, message: msg.clone() })).await;
                    }
                    let reply = permissions::answer(&answer.request_id, &answer.input, deny.as_deref());
                    if let Err(e) = live.proc.send(&reply) {
                        return Err(self.lost_process(e.to_string()).await);
                    }
                }
                cmd = self.rx.recv() => match cmd {
                    Some(ChatCmd::Cancel { job_id: want, reply }) => {
                        let hit = want.as_deref().is_none_or(|w| w == job_id);
                        cancelled |= hit;
                        if hit && deadline.is_none() {
                            self.interrupts += 1;
                            let req = json!({"type": "control_request",
                                "request_id": format!("interrupt-{}", self.interrupts),
                                "request": {"subtype": "interrupt"}});
                            if let Err(e) = live.proc.send(&req) {
                                let _ = reply.send(true);
                                return Err(self.lost_process(e.to_string()).await);
                            }
                            deadline = Some((Instant::now() + cfg.interrupt_grace, "did not stop after an interrupt"));
                        }
                        let _ = reply.send(hit);
                    }
                    Some(ChatCmd::Turn(job)) => hold_or_refuse(&mut self.pending, &self.session_id, *job),
                    Some(ChatCmd::Reap) | None => {}
                },
                () = self.ctx.shutdown.cancelled(), if !shutting_down => {
                    shutting_down = true;
                    self.interrupts += 1;
                    let req = json!({"type": "control_request",
                        "request_id": format!("interrupt-{}", self.interrupts),
                        "request": {"subtype": "interrupt"}});
                    let _ = live.proc.send(&req);
                    deadline = Some((Instant::now() + cfg.shutdown_grace, "did not stop in time for shutdown"));
                }
                () = sleep_until_opt(limbo_at) => {
                    let silent = span(cfg.recovery_limbo.unwrap_or_default());
                    if let Some(live) = self.live.take() {
                        live.proc.kill().await;
                    }
                    self.set_idle(false).await;
                    let short: String = self.session_id.chars().take(8).collect();
                    return Err(vec![
                        ChatEvent::Notice(Notice {
                            kind: NoticeKind::Interrupted,
                            // Within the 200 characters `paddock send` shows of a notice.
                            message: format!("claude gave no output for {silent} (no tool running, no approval waiting), so it was stopped as hung (recovery_limbo_ms); continue it with C in the TUI or `paddock send -c {short} continue`"),
                        }),
                        ChatEvent::Complete(Complete {
                            success: false,
                            error: Some(format!("no output for {silent}")),
                            model: None,
                            usage: None,
                            cost_usd: None,
                            duration_ms: None,
                            terminal_reason: Some("killed".into()),
                        }),
                    ]);
                }
                () = sleep_until_opt(deadline.map(|d| d.0)) => {
                    let why = deadline.map_or("timed out", |d| d.1);
                    if let Some(live) = self.live.take() {
                        live.proc.kill().await;
                    }
                    self.set_idle(false).await;
                    let mut events = vec![ChatEvent::Notice(Notice {
                        kind: NoticeKind::Interrupted,
                        message: format!("claude {why}, so it was stopped; the chat can be resumed"),
                    })];
                    events.push(ChatEvent::Complete(Complete {
                        success: false,
                        error: Some(format!("claude {why}")),
                        model: None,
                        usage: None,
                        cost_usd: None,
                        duration_ms: None,
                        terminal_reason: Some("killed".into()),
                    }));
                    return Err(events);
                }
            }
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

/// A duration as a person reads it: `5 min`, `90s`, `300ms`.
fn span(d: Duration) -> String {
    let secs = d.as_secs();
    if secs >= 60 && secs.is_multiple_of(60) {
        format!("{} min", secs / 60)
    } else if secs > 0 {
        format!("{secs}s")
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// `chat:error`, `chat:notice` and a failed `chat:complete`: how a turn that the CLI did not
/// end itself is closed.
fn failure(kind: NoticeKind, message: String) -> Vec<ChatEvent> {
    vec![
        ChatEvent::Error(ChatError {
            message: message.clone(),
        }),
        ChatEvent::Notice(Notice {
            kind,
            message: message.clone(),
        }),
        ChatEvent::Complete(Complete {
            success: false,
            error: Some(message),
            model: None,
            usage: None,
            cost_usd: None,
            duration_ms: None,
            terminal_reason: Some(match kind {
                NoticeKind::Interrupted => "cancelled".into(),
                _ => "crashed".into(),
            }),
        }),
    ]
}

fn cancelled(why: &str) -> Vec<ChatEvent> {
    vec![
        ChatEvent::Notice(Notice {
            kind: NoticeKind::Interrupted,
            message: why.to_owned(),
        }),
        ChatEvent::Complete(Complete {
            success: false,
            error: Some(why.to_owned()),
            model: None,
            usage: None,
            cost_usd: None,
            duration_ms: None,
            terminal_reason: Some("cancelled".into()),
        }),
    ]
}

fn busy(job: TurnJob) {
    let _ = job.reply.send(Err(ErrorBody::new(
        ErrorCode::Busy,
        "this chat is running a turn; wait for it to finish or cancel it with `paddock cancel SESSION`",
    )));
}

/// What to do with a control request from the CLI.
enum Permission {
    /// Answer it now (an allowed tool, or a request paddockd does not handle).
    Answer(Value),
    /// Ask a person (the approvals inbox); the turn waits.
    Ask {
        request_id: String,
        tool: String,
        input: Value,
    },
}

/// Reads a control request: an allowed tool is answered at once; any other tool is asked.
/// `None` for a request with no id (nothing to answer).
/// `attachments`: the attachments folder, whose files are read without asking; a file of
/// paddockd's own state (`private`) is denied at once.
fn permission_request(
    req: &ControlRequest,
    allowed: &[String],
    project_dir: &std::path::Path,
    attachments: Option<&std::path::Path>,
    private: &crate::confine::Private,
) -> Option<Permission> {
    let request_id = req.request_id.as_deref()?;
    let (tool, input) = match &req.request {
        Control::CanUseTool { tool_name, input } => (tool_name.as_str(), input),
        // Nothing else is expected from the CLI; say so rather than leave it waiting.
        Control::Other(subtype) => {
            return Some(Permission::Answer(json!({"type": "control_response",
                "response": {"subtype": "error", "request_id": request_id,
                    "error": format!("paddockd does not handle {subtype}")}})));
        }
    };
    let attachment =
        attachments.is_some_and(|dir| crate::attachments::reads_an_attachment(tool, input, dir));
    if let Some(why) = (!attachment)
        .then(|| permissions::never(tool, input, project_dir, private))
        .flatten()
    {
        return Some(Permission::Answer(permissions::answer(
            request_id,
            input,
            Some(&why),
        )));
    }
    if attachment || permissions::allowed(tool, input, allowed, project_dir) {
        Some(Permission::Answer(permissions::answer(
            request_id, input, None,
        )))
    } else {
        Some(Permission::Ask {
            request_id: request_id.to_owned(),
            tool: tool.to_owned(),
            input: input.clone(),
        })
    }
}

/// `first` if a line was read already, else the process's next.
async fn next_line(first: &mut Option<Line>, proc: &mut ClaudeProcess) -> Output {
    match first.take() {
        Some(v) => Output::Line(Box::new(v)),
        None => proc.next().await,
    }
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
