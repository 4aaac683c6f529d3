//! A turn's read loop: claude's output until the turn's `result`, with what can happen
//! meanwhile (a permission request, an answer from the inbox, a cancel, shutdown, a hang, a
//! crash, garbage on stdout). Each event is one named step.

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Duration;

use paddock_proto::{ChatEvent, Complete, Ended, Notice, NoticeKind, RunStatus};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::ending::{TurnEnd, failure};
use super::{ChatCmd, ChatTask, hold_or_refuse, sleep_until_opt};
use crate::claude_format::stdout::{Kind, Line};
use crate::runner::process::{ClaudeProcess, Output, ProcessError, describe_oversize};
use crate::runner::settle;

/// What one event of the read loop leads to: go on reading, or the turn is over.
pub(super) type Step = ControlFlow<Result<TurnEnd, Vec<ChatEvent>>>;

/// What a turn's read loop keeps track of.
pub(super) struct Reading {
    /// The tool rules the turn's permission requests are answered by.
    pub(super) allowed: Vec<String>,
    pub(super) attachments_dir: PathBuf,
    pub(super) private: crate::confine::Private,
    /// When the turn must have ended (after an interrupt, at shutdown), and what to say if
    /// it has not.
    deadline: Option<(Instant, &'static str)>,
    shutting_down: bool,
    cancelled: bool,
    end: TurnEnd,
    /// Limbo: a turn with no output this long is hung, unless claude waits for something
    /// that may take long: a person (an approval), a tool it started (a `tool_use` with no
    /// result yet), a background task.
    pub(super) waiting_approvals: u32,
    /// The notice each waiting call's request (by the CLI's request id) was announced with.
    pub(super) asked: std::collections::HashMap<String, String>,
    running_tools: HashSet<String>,
    pub(super) last_output: Instant,
    /// Where the turn's records start, and the last reply record it will have (settle.rs).
    transcript: PathBuf,
    transcript_from: u64,
    last_reply: Option<String>,
}

impl Reading {
    /// When the turn counts as hung, unless it waits for something.
    fn limbo_at(&self, limbo: Option<Duration>, background_running: usize) -> Option<Instant> {
        let waits = self.waiting_approvals > 0
            || !self.running_tools.is_empty()
            || background_running > 0
            || self.deadline.is_some();
        limbo
            .filter(|_| !waits)
            .map(|limbo| self.last_output + limbo)
    }

    /// Follows the tools that run and the turn's outcome.
    fn observe(&mut self, event: &ChatEvent) {
        match event {
            ChatEvent::ToolStart(t) => {
                self.running_tools.insert(t.tool_use_id.clone());
            }
            ChatEvent::ToolCall(t) => {
                self.running_tools.remove(&t.tool_use_id);
            }
            _ => {}
        }
        self.end.observe(event);
    }

    /// A turn claude ended unsuccessfully after a cancel or in paddockd's shutdown is said as
    /// that, not as the CLI's own account of being interrupted.
    fn say_end(&self, c: &mut Complete) {
        if c.success {
            return;
        }
        if self.shutting_down {
            c.ended = Some(Ended::Cut);
            c.error = Some(super::ending::STOPPED.to_owned());
        } else if self.cancelled {
            c.ended = Some(Ended::Cancelled);
            c.error = Some("the turn was cancelled".to_owned());
        }
    }

    /// How the turn ended, once claude sent its `result`.
    fn outcome(&mut self) -> TurnEnd {
        // A turn the shutdown stopped is marked so by `run_to_end` (`stopped_by_shutdown`).
        let mut end = std::mem::replace(&mut self.end, TurnEnd::failed());
        if self.cancelled && end.status != RunStatus::Completed {
            end.status = RunStatus::Cancelled;
        }
        end
    }
}

impl ChatTask {
    /// Reads the process's output until the turn's `result`, answering permission requests
    /// and handling cancel, hangs after an interrupt, crashes, garbage and shutdown.
    /// `first`: a line read already (an unprompted turn's), handled before the process's.
    pub(super) async fn read_turn(
        &mut self,
        project: &crate::projects::Project,
        job_id: &str,
        mut first: Option<Line>,
    ) -> Result<TurnEnd, Vec<ChatEvent>> {
        let mut r = self.start_reading(project).await;
        let limbo = self.ctx.cfg.recovery_limbo;
        loop {
            let Some(live) = self.live.as_mut() else {
                return Err(failure(NoticeKind::Crashed, "no claude process".into()));
            };
            let limbo_at = r.limbo_at(limbo, live.background.running());
            let deadline = r.deadline.map(|d| d.0);
            let input_failure = live.proc.input_failure();
            let step = tokio::select! {
                // claude stopped reading its stdin: nothing more can reach it.
                why = input_failure => self.crashed(ProcessError::NotReading(why).to_string()).await,
                out = next_line(&mut first, &mut live.proc) => match out {
                    Output::Line(v) => self.on_line(&mut r, project, job_id, *v).await,
                    Output::Garbage(mut shown) => {
                        shown.truncate(200);
                        self.crashed(format!("claude printed a line that is not stream-json, so it was stopped: {shown:?}")).await
                    }
                    Output::Oversize(len) => self.crashed(describe_oversize(len)).await,
                    Output::Closed => ControlFlow::Break(Err(self.lost_process("its output ended mid-turn".into()).await)),
                },
                Some(answer) = self.answers_rx.recv() => self.on_answer(&mut r, answer).await,
                cmd = self.rx.recv() => self.on_command(&mut r, job_id, cmd).await,
                () = self.ctx.shutdown.cancelled(), if !r.shutting_down => self.on_shutdown(&mut r),
                () = sleep_until_opt(limbo_at) => self.hung().await,
                () = sleep_until_opt(deadline) => self.overdue(&r).await,
            };
            if let ControlFlow::Break(result) = step {
                return result;
            }
        }
    }

    /// The read loop's state at the turn's start.
    async fn start_reading(&self, project: &crate::projects::Project) -> Reading {
        let cfg = &self.ctx.cfg;
        let transcript = self
            .ctx
            .state
            .folder_of(project)
            .join(format!("{}.jsonl", self.session_id));
        let transcript_from = settle::offset(&transcript).await;
        Reading {
            allowed: self.allowed_tools(project),
            attachments_dir: crate::attachments::dir(&cfg.data_dir),
            private: cfg.private_state(),
            deadline: None,
            shutting_down: false,
            cancelled: false,
            end: TurnEnd::failed(),
            waiting_approvals: 0,
            asked: std::collections::HashMap::new(),
            running_tools: HashSet::new(),
            last_output: Instant::now(),
            transcript,
            transcript_from,
            last_reply: None,
        }
    }

    /// A line of claude's: a permission request is answered (or asked); anything else is
    /// translated into frames for the chat's clients. Its `result` ends the turn.
    async fn on_line(
        &mut self,
        r: &mut Reading,
        project: &crate::projects::Project,
        job_id: &str,
        v: Line,
    ) -> Step {
        let Some(live) = self.live.as_mut() else {
            return ControlFlow::Break(Err(failure(
                NoticeKind::Crashed,
                "no claude process".into(),
            )));
        };
        r.last_output = Instant::now();
        live.background.track(&v);
        if let Kind::ControlRequest(request) = &v.kind {
            return self
                .on_permission_request(r, project, job_id, request)
                .await;
        }
        if let Kind::Assistant(a) = &v.kind
            && !v.subagent
            && a.uuid.is_some()
        {
            r.last_reply.clone_from(&a.uuid);
        }
        let mut t = live.translator.line(&v);
        if t.turn_over {
            self.settle_transcript(r, &mut t.events).await;
        }
        for mut e in t.events {
            if let ChatEvent::Complete(c) = &mut e {
                r.say_end(c);
            }
            r.observe(&e);
            self.ctx
                .state
                .provenance
                .observe(project, &self.session_id, job_id, &e);
            self.emit(e).await;
        }
        if !t.turn_over {
            return ControlFlow::Continue(());
        }
        ControlFlow::Break(Ok(r.outcome()))
    }

    /// Clients are told the turn ended once its transcript has it, and the chat list with
    /// it; a reply the transcript did not get on a full disk is said to be unsaved.
    async fn settle_transcript(&self, r: &Reading, events: &mut Vec<ChatEvent>) {
        if let Some(uuid) = &r.last_reply
            && !settle::until_written(&r.transcript, r.transcript_from, uuid, settle::BOUND).await
        {
            tracing::warn!(session = %self.session_id, "the transcript did not get the turn's last reply within {:?}", settle::BOUND);
            settle::unsaved_on_low_disk(
                &r.transcript,
                self.ctx.cfg.disk_floor_bytes,
                &self.session_id,
                events,
            );
        }
        self.ctx.state.live_index().refresh(&r.transcript).await;
    }

    /// A command while the turn runs: a cancel interrupts claude (it has
    /// `interrupt_grace` to stop); a turn is held or refused.
    async fn on_command(&mut self, r: &mut Reading, job_id: &str, cmd: Option<ChatCmd>) -> Step {
        match cmd {
            Some(ChatCmd::Cancel {
                job_id: want,
                reply,
            }) => {
                let hit = want.as_deref().is_none_or(|w| w == job_id);
                r.cancelled |= hit;
                if hit && r.deadline.is_none() {
                    let req = self.interrupt_request();
                    if let Some(live) = self.live.as_mut()
                        && let Err(e) = live.proc.send(&req)
                    {
                        let _ = reply.send(true);
                        return ControlFlow::Break(Err(self.lost_process(e.to_string()).await));
                    }
                    r.deadline = Some((
                        Instant::now() + self.ctx.cfg.interrupt_grace,
                        "did not stop after an interrupt",
                    ));
                }
                let _ = reply.send(hit);
            }
            Some(ChatCmd::Turn(job)) => hold_or_refuse(&mut self.pending, &self.session_id, *job),
            // A turn runs: its process cannot be let go now.
            Some(ChatCmd::Release(reply)) => {
                let _ = reply.send(false);
            }
            Some(ChatCmd::Reap | ChatCmd::Warm(_)) | None => {}
        }
        ControlFlow::Continue(())
    }

    /// Shutdown: claude is interrupted and has `shutdown_grace` to end the turn.
    fn on_shutdown(&mut self, r: &mut Reading) -> Step {
        r.shutting_down = true;
        let req = self.interrupt_request();
        if let Some(live) = self.live.as_mut() {
            let _ = live.proc.send(&req);
        }
        r.deadline = Some((
            Instant::now() + self.ctx.cfg.shutdown_grace,
            "did not stop in time for shutdown",
        ));
        ControlFlow::Continue(())
    }

    /// The next interrupt request for claude's stdin.
    fn interrupt_request(&mut self) -> Value {
        self.interrupts += 1;
        json!({"type": "control_request",
            "request_id": format!("interrupt-{}", self.interrupts),
            "request": {"subtype": "interrupt"}})
    }

    /// claude cannot go on (it stopped reading, printed garbage or an oversize line): it is
    /// killed and the turn fails with `message`.
    async fn crashed(&mut self, message: String) -> Step {
        self.kill_process().await;
        ControlFlow::Break(Err(failure(NoticeKind::Crashed, message)))
    }

    /// No output for `recovery_limbo` while claude waited for nothing: it is killed as hung.
    async fn hung(&mut self) -> Step {
        let silent = span(self.ctx.cfg.recovery_limbo.unwrap_or_default());
        self.kill_process().await;
        let short: String = self.session_id.chars().take(8).collect();
        ControlFlow::Break(Err(vec![
            ChatEvent::Notice(Notice {
                kind: NoticeKind::Interrupted,
                // Within the 200 characters `paddock send` shows of a notice.
                message: format!(
                    "claude gave no output for {silent} (no tool running, no approval waiting), so it was stopped as hung (recovery_limbo_ms); continue it with C in the TUI or `paddock continue {short}`"
                ),
            }),
            killed(format!("no output for {silent}")),
        ]))
    }

    /// claude did not end the turn by its deadline (after an interrupt, at shutdown).
    async fn overdue(&mut self, r: &Reading) -> Step {
        let why = r.deadline.map_or("timed out", |d| d.1);
        self.kill_process().await;
        ControlFlow::Break(Err(vec![
            ChatEvent::Notice(Notice {
                kind: NoticeKind::Interrupted,
                message: format!("claude {why}, so it was stopped; the chat can be resumed"),
            }),
            killed(format!("claude {why}")),
        ]))
    }
}

/// The failed `chat:complete` of a turn whose process was killed.
fn killed(error: String) -> ChatEvent {
    ChatEvent::Complete(Complete {
        success: false,
        ended: Some(Ended::Cut),
        error: Some(error),
        model: None,
        usage: None,
        cost_usd: None,
        duration_ms: None,
        terminal_reason: Some("killed".into()),
    })
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

/// `first` if a line was read already, else the process's next.
async fn next_line(first: &mut Option<Line>, proc: &mut ClaudeProcess) -> Output {
    match first.take() {
        Some(v) => Output::Line(Box::new(v)),
        None => proc.next().await,
    }
}
