//! What follows a turn's end: its approvals go, a queued follow-up is taken, a turn claude
//! did not finish is offered (or driven) to continue, a usage limit parks the chat, and the
//! run's end is recorded and announced. Also how a turn the CLI did not end itself is
//! closed (`failure`, `cancelled`).

use std::time::Duration;

use paddock_proto::{ChatError, ChatEvent, Complete, Ended, Notice, NoticeKind, Origin, RunStatus};
use tokio::sync::oneshot;

use super::turn::Turn;
use super::{ChatTask, TurnJob};
use crate::runner::{Cmd, TurnRequest};
use crate::stores::QueuedMessage;

/// Why a turn that paddockd's own shutdown cut short stopped (the run's history).
const SHUT_DOWN: &str = "paddockd was stopped while it ran";
/// What the turn's followers are told when paddockd's shutdown cuts it (they add how to
/// continue it).
pub(super) const STOPPED: &str = "paddockd stopped while the turn ran";

/// How a turn ended, for the log and the run history.
#[derive(Debug)]
pub(super) struct TurnEnd {
    pub(super) status: RunStatus,
    cost_usd: Option<f64>,
    /// The CLI said the account's usage limit was hit (its message).
    usage_limit: Option<String>,
    /// Why an interrupted turn was cut short, in words.
    pub(super) reason: Option<String>,
}

impl TurnEnd {
    pub(super) fn failed() -> Self {
        Self {
            status: RunStatus::Failed,
            cost_usd: None,
            usage_limit: None,
            reason: None,
        }
    }

    /// The daemon is stopping and the turn did not finish (claude was interrupted for it, it
    /// waited for a free process, or claude could not end it in time): it was cut short, to
    /// continue after the restart. The one place a shutdown's turn is marked.
    pub(super) fn stopped_by_shutdown(&mut self) {
        if matches!(self.status, RunStatus::Failed | RunStatus::Cancelled) {
            self.status = RunStatus::Interrupted;
            self.reason = Some(SHUT_DOWN.to_owned());
        }
    }

    /// Takes the cost and the outcome from a turn's `chat:complete`.
    pub(super) fn observe(&mut self, event: &ChatEvent) {
        if let ChatEvent::Notice(n) = event
            && n.kind == NoticeKind::UsageLimit
        {
            self.usage_limit = Some(n.message.clone());
        }
        if let ChatEvent::Complete(c) = event {
            self.cost_usd = c.cost_usd.or(self.cost_usd);
            if matches!(
                c.terminal_reason.as_deref(),
                Some("killed" | "crashed" | SETUP_FAILED)
            ) {
                self.status = RunStatus::Interrupted;
                self.reason.clone_from(&c.error);
            } else if c.success {
                self.status = RunStatus::Completed;
            }
        }
    }
}

impl ChatTask {
    /// Approvals the turn was waiting on go with it.
    pub(super) async fn drop_approvals(&self, job_id: &str) {
        let approvals = &self.ctx.state.approvals;
        if approvals.drop_job(job_id) {
            self.ctx.hub.approvals_changed(approvals.count()).await;
        }
    }

    /// A follow-up queued while the turn ran goes next: taken atomically, so two drains
    /// never send it twice.
    pub(super) async fn take_follow_up(&self, end: &TurnEnd) -> Option<QueuedMessage> {
        if end.status != RunStatus::Completed || self.ctx.shutdown.is_cancelled() {
            return None;
        }
        match self.ctx.state.stores.queued.take(&self.session_id).await {
            Ok(q) => q,
            Err(e) => {
                tracing::warn!(session = %self.session_id, "cannot take the queued follow-up: {e}");
                None
            }
        }
    }

    /// claude died mid-turn (or hung and was killed): say so, so a client can offer to
    /// continue (`chat:continue`), unless `recovery_surface` is off; with autodrive, continue
    /// it by ourselves, after a pause, a bounded number of times.
    pub(super) async fn recover(&mut self, turn: &Turn, end: &TurnEnd) {
        let cfg = self.ctx.cfg.clone();
        if end.status == RunStatus::Completed {
            self.autodrives = 0;
        }
        if end.status != RunStatus::Interrupted || self.ctx.shutdown.is_cancelled() {
            return;
        }
        if cfg.recovery_surface {
            let why = end
                .reason
                .as_deref()
                .unwrap_or("claude stopped before the turn finished");
            self.emit(ChatEvent::KilledTask(paddock_proto::KilledTask {
                task_id: None,
                message: format!("{why}; continue the chat to pick it up"),
            }))
            .await;
        }
        if cfg.recovery_autodrive && self.autodrives < cfg.recovery_max_retries {
            self.autodrives += 1;
            self.send_later(cfg.recovery_debounce, self.continuation(turn));
        }
    }

    /// A usage limit parks the chat until it resets (and, if configured, continues it then).
    pub(super) fn park_on_usage_limit(&self, turn: &Turn, end: &TurnEnd) {
        let parking = &self.ctx.state.parking;
        let Some(message) = &end.usage_limit else {
            if end.status == RunStatus::Completed {
                parking.unpark(&self.session_id);
            }
            return;
        };
        let parked = parking.park(&self.session_id, message, chrono::Utc::now());
        tracing::info!(session = %self.session_id, reset_at = ?parked.reset_at, "parked on a usage limit");
        if self.ctx.cfg.usage_limit_resume
            && let Some(at) = parked.reset_at
        {
            let wait =
                (at - chrono::Utc::now()).to_std().unwrap_or_default() + Duration::from_secs(30);
            self.send_later(wait, self.continuation(turn));
        }
    }

    /// The turn that continues this one: recorded under its origin and trigger.
    fn continuation(&self, turn: &Turn) -> TurnRequest {
        TurnRequest::continuing(turn.req.project.clone(), self.session_id.clone())
            .origin(turn.req.origin)
            .trigger(turn.req.trigger.clone())
            .cause(turn.req.cause.clone())
    }

    /// Sends `req` to the coordinator after `wait`, unless the daemon shuts down first.
    fn send_later(&self, wait: Duration, req: TurnRequest) {
        let (coordinator, shutdown) = (self.ctx.coordinator.clone(), self.ctx.shutdown.clone());
        self.ctx.tracker.spawn(async move {
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = shutdown.cancelled() => return,
            }
            if let Some(tx) = coordinator.upgrade() {
                let (reply, _) = oneshot::channel();
                let _ = tx.send(Cmd::Send(Box::new(req), reply)).await;
            }
        });
    }

    /// The follow-up is announced in the ending turn's stream.
    pub(super) async fn announce_follow_up(&self, follow_up: Option<&QueuedMessage>) {
        if let Some(q) = follow_up {
            self.emit(ChatEvent::QueuedFlushed(paddock_proto::QueuedFlushed {
                message: q.message.clone(),
            }))
            .await;
        }
    }

    /// Records the turn's end: the log, the turn-end followers, a person's background task
    /// reporting back, and the run's history.
    pub(super) async fn record_end(&self, turn: &Turn, end: &TurnEnd) {
        let (state, hub) = (&self.ctx.state, &self.ctx.hub);
        let (job_id, origin) = (&turn.job_id, turn.req.origin);
        tracing::info!(session = %self.session_id, job = %job_id, ?end, "turn ended");
        let parent = state
            .stores
            .run_provenance
            .get(&self.session_id)
            .and_then(|p| p.parent_project.zip(p.parent_session_id));
        state.turn_ends.push(crate::turn_ends::TurnEnded {
            project_slug: turn.slug().to_owned(),
            session_id: self.session_id.clone(),
            job_id: job_id.clone(),
            status: end.status,
            origin,
            trigger: turn.req.trigger.clone(),
            parent,
            lineage: state
                .lineages
                .get(&self.session_id)
                .filter(|t| t.job_id == *job_id)
                .map(|t| t.lineage),
        });
        // A person's background task reporting back: they may be away (an unattended
        // origin's end is announced by the attention follower already; a failure too).
        if turn.unprompted
            && end.status == RunStatus::Completed
            && matches!(origin, Origin::Human | Origin::Adopted)
        {
            hub.attention(crate::attention::background_finished(
                turn.slug(),
                &self.session_id,
                job_id,
                origin,
                self.title(),
            ))
            .await;
        }
        let watched = hub.watched(&self.session_id, job_id).await;
        let run_end = crate::run_log::RunEnd {
            status: end.status,
            cost_usd: end.cost_usd,
            watched,
            reason: end.reason.clone(),
        };
        if let Err(e) = state.runs.finished(job_id, run_end).await {
            tracing::warn!(session = %self.session_id, "could not record the run's end in the history: {e}");
        }
    }

    /// The transcript has grown: index it now rather than wait for the watcher, and before
    /// the chat stops running, so a chat is always either running or indexed (a new chat is
    /// found only that way) and a client that re-lists on `chat:active` sees the turn.
    pub(super) async fn close(&self, turn: &Turn) {
        let hub = &self.ctx.hub;
        self.ctx.state.live_index().refresh(&turn.transcript).await;
        self.forget_first_message_once_written(turn).await;
        hub.end_turn(&self.session_id, &turn.job_id).await;
        hub.chats_changed(turn.slug(), Some(&self.session_id)).await;
    }

    /// A new chat's first message is kept until claude has written it (`stores::first_message`):
    /// the transcript holds the turn's message, by the uuid the daemon gave it.
    async fn forget_first_message_once_written(&self, turn: &Turn) {
        let store = &self.ctx.state.stores.first_message;
        if store.get(&self.session_id).is_none() {
            return;
        }
        let written = tokio::fs::read(&turn.transcript).await.is_ok_and(|bytes| {
            let id = turn.message_id.as_bytes();
            bytes.windows(id.len()).any(|w| w == id)
        });
        if written && let Err(e) = store.written(&self.session_id).await {
            tracing::warn!(session = %self.session_id, "could not drop the chat's kept first message: {e}");
        }
    }

    /// The follow-up runs next, as a person's turn.
    pub(super) fn queue_follow_up(&mut self, turn: &Turn, follow_up: Option<QueuedMessage>) {
        if let Some(q) = follow_up {
            let (reply, _) = oneshot::channel();
            self.pending.push_front(TurnJob {
                req: TurnRequest::new(
                    turn.req.project.clone(),
                    Some(self.session_id.clone()),
                    q.message,
                ),
                new_chat: false,
                reply,
                unprompted: None,
            });
        }
    }
}

/// `chat:error`, `chat:notice` and a failed `chat:complete`: how a turn that the CLI did not
/// end itself is closed.
pub(super) fn failure(kind: NoticeKind, message: String) -> Vec<ChatEvent> {
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
            ended: Some(match kind {
                NoticeKind::Interrupted => Ended::Cancelled,
                _ => Ended::Cut,
            }),
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

/// A turn whose worktree's setup failed before claude was asked: said once (`chat:complete`'s
/// error is the sentence), and cut short, so continuing it (or the next message) runs the
/// setup again and then asks claude.
pub(super) fn setup_failed(why: String) -> Vec<ChatEvent> {
    vec![ChatEvent::Complete(Complete {
        success: false,
        ended: Some(Ended::Cut),
        error: Some(why),
        model: None,
        usage: None,
        cost_usd: None,
        duration_ms: None,
        terminal_reason: Some(SETUP_FAILED.into()),
    })]
}

/// The `terminal_reason` of a turn whose worktree's setup failed.
const SETUP_FAILED: &str = "setup_failed";

/// A turn whose claude could not start (no binary, no folder): it failed, said once (no
/// notice: `chat:complete`'s error is the sentence), and continuing would not help.
pub(super) fn not_started(message: String) -> Vec<ChatEvent> {
    vec![ChatEvent::Complete(Complete {
        success: false,
        ended: Some(Ended::Failed),
        error: Some(message),
        model: None,
        usage: None,
        cost_usd: None,
        duration_ms: None,
        terminal_reason: Some("not_started".into()),
    })]
}

/// A turn stopped before claude ran it: cancelled while waiting, or cut by the shutdown.
pub(super) fn stopped_early(ended: Ended, why: &str) -> Vec<ChatEvent> {
    vec![
        ChatEvent::Notice(Notice {
            kind: NoticeKind::Interrupted,
            message: why.to_owned(),
        }),
        ChatEvent::Complete(Complete {
            success: false,
            ended: Some(ended),
            error: Some(why.to_owned()),
            model: None,
            usage: None,
            cost_usd: None,
            duration_ms: None,
            terminal_reason: Some("cancelled".into()),
        }),
    ]
}
