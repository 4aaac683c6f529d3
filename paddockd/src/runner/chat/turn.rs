//! A turn, from its request to its end, as the list of its steps; the steps before claude
//! runs (finding the chat, recording the run, telling the clients, the turn's settings)
//! are here.

use std::path::PathBuf;
use std::time::Duration;

use paddock_proto::{ChatEvent, Notice, NoticeKind, Origin, RunStatus, UserTurn};

use super::ending::TurnEnd;
use super::launch::Launch;
use super::{ChatTask, LastTurn, TurnJob, drive_mode};
use crate::claude_format::stdout::Line;
use crate::hub::{Asker, TurnStart};
use crate::run_log::RunRecord;
use crate::runner::{Refused, TurnRequest};
use crate::stores::{Injection, RunProvenance};

/// One turn: its request and what it runs under.
pub(super) struct Turn {
    pub(super) req: TurnRequest,
    pub(super) job_id: String,
    pub(super) message_id: String,
    /// When it started (RFC 3339).
    pub(super) started_at: String,
    pub(super) transcript: PathBuf,
    /// The chat's transcript existed when the turn started.
    pub(super) on_disk: bool,
    pub(super) new_chat: bool,
    /// The CLI started it by itself: no message is sent, it is read from its first line.
    pub(super) unprompted: bool,
}

impl Turn {
    pub(super) fn slug(&self) -> &str {
        &self.req.project.slug
    }
}

impl ChatTask {
    /// Runs one turn. Whatever happens, it ends with `chat:complete` and `EndTurn`.
    pub(super) async fn turn(&mut self, job: TurnJob) {
        let TurnJob {
            req,
            new_chat,
            reply,
            unprompted,
        } = job;
        let req =
            crate::runner::request::recovery_as_run(&self.ctx.state.runs, &self.session_id, req);
        self.remember(&req, unprompted.is_some());
        let turn = match self.open_turn(req, new_chat, unprompted.is_some()) {
            Ok(turn) => turn,
            Err(refusal) => {
                let _ = reply.send(Err(refusal));
                return;
            }
        };
        self.record_start(&turn).await;
        let _ = reply.send(Ok(self.session_id.clone()));
        self.announce(&turn).await;
        self.copy_adopted_transcript(&turn).await;
        let launch = self.configure(&turn);
        self.keep_streamed(&turn);
        let end = self.run_to_end(&turn, unprompted, launch).await;
        self.end_streamed(&end);
        self.drop_approvals(&turn.job_id).await;
        let follow_up = self.take_follow_up(&end).await;
        self.recover(&turn, &end).await;
        self.park_on_usage_limit(&turn, &end);
        self.announce_follow_up(follow_up.as_ref()).await;
        self.record_end(&turn, &end).await;
        self.close(&turn).await;
        self.queue_follow_up(&turn, follow_up);
        self.sync_idle().await;
        // A quiet moment: the coordinator may start a spare now (`runner/spare.rs`).
        self.ctx.tell(crate::runner::Cmd::TurnOver).await;
    }

    /// A prompted turn's reply is kept as it streams, until the transcript has it.
    fn keep_streamed(&mut self, turn: &Turn) {
        if !turn.unprompted {
            self.ctx.state.streamed.begin(&turn.message_id);
            self.streaming = Some(turn.message_id.clone());
        }
    }

    /// A completed turn's reply is in the transcript; one cut short keeps what streamed.
    fn end_streamed(&mut self, end: &TurnEnd) {
        if let Some(message_id) = self.streaming.take() {
            let cut_short = end.status != RunStatus::Completed;
            self.ctx
                .state
                .streamed
                .done(&self.session_id, &message_id, cut_short);
        }
    }

    /// What the next unprompted turn inherits (a prompted turn's project, origin and
    /// trigger), and whether the process lives for this turn only (batch mode).
    fn remember(&mut self, req: &TurnRequest, unprompted: bool) {
        if !unprompted {
            self.last = Some(LastTurn {
                project: req.project.clone(),
                origin: req.origin,
                trigger: req.trigger.clone(),
            });
        }
        self.batch = drive_mode(&self.ctx.cfg, &req.project, req.trigger.as_deref())
            == crate::config::DriveMode::Batch;
    }

    /// The turn's ids and transcript; refused when the chat it continues does not exist.
    fn open_turn(
        &self,
        req: TurnRequest,
        new_chat: bool,
        unprompted: bool,
    ) -> Result<Turn, Refused> {
        let transcript = self
            .ctx
            .state
            .folder_of(&req.project)
            .join(format!("{}.jsonl", self.session_id));
        let on_disk = transcript.exists();
        if !new_chat && !on_disk && self.live.is_none() {
            if self
                .ctx
                .state
                .stores
                .first_message
                .get(&self.session_id)
                .is_some()
            {
                return Err(Refused::FirstUnwritten(self.session_id.clone()));
            }
            let slug = &req.project.slug;
            return Err(Refused::NoChat {
                session_id: self.session_id.clone(),
                where_: if slug.is_empty() {
                    "the root workspace".to_owned()
                } else {
                    format!("project {slug}")
                },
            });
        }
        Ok(Turn {
            req,
            job_id: uuid::Uuid::new_v4().to_string(),
            message_id: uuid::Uuid::new_v4().to_string(),
            started_at: chrono::Utc::now().to_rfc3339(),
            transcript,
            on_disk,
            new_chat,
            unprompted,
        })
    }

    /// Records what is known before the turn runs: a new chat's provenance, who injected
    /// the message, and the run in the history.
    async fn record_start(&self, turn: &Turn) {
        let state = &self.ctx.state;
        let req = &turn.req;
        // Provenance is stamped once, when the chat is created, before anyone can list it.
        if turn.new_chat {
            let marker = req
                .provenance
                .clone()
                .unwrap_or_else(|| RunProvenance::root(Origin::Human));
            let marker = RunProvenance {
                created_at: marker
                    .created_at
                    .clone()
                    .or_else(|| Some(turn.started_at.clone())),
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
            let first = crate::stores::FirstMessage {
                project_slug: turn.slug().to_owned(),
                message: req.message.clone(),
                model: req.model.clone(),
                origin: req.origin,
                attribution: req.attribution.clone(),
                trigger: req.trigger.clone(),
                set_at: turn.started_at.clone(),
            };
            if let Err(e) = state
                .stores
                .first_message
                .set(&self.session_id, first)
                .await
            {
                tracing::warn!(session = %self.session_id, "could not keep the chat's first message: {e}");
            }
        }
        if let Some(source) = &req.attribution {
            let injection = Injection {
                text: req.message.clone(),
                source: source.clone(),
                at: turn.started_at.clone(),
                message_id: Some(turn.message_id.clone()),
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
            job_id: turn.job_id.clone(),
            project_slug: turn.slug().to_owned(),
            session_id: self.session_id.clone(),
            origin: req.origin,
            trigger: req.trigger.clone(),
            prompt: Some(crate::attachments::request_text(&req.message).to_owned()),
            started_at: turn.started_at.clone(),
            status: RunStatus::Running,
            finished_at: None,
            cost_usd: None,
            attribution: req.attribution.clone(),
            watched: false,
            reason: None,
        };
        if let Err(e) = state.runs.started(run).await {
            tracing::warn!(session = %self.session_id, "could not record the run in the history: {e}");
        }
    }

    /// Tells the clients the turn started: the asker's `Sent` (it is subscribed first),
    /// `chat:active`, a new chat in the list, and the turn's first frame (the user's message,
    /// or why an unprompted turn runs).
    async fn announce(&self, turn: &Turn) {
        let hub = &self.ctx.hub;
        let slug = turn.slug();
        let asker = match turn.req.reply_to {
            Some((client, request_id)) => Some(Asker {
                client,
                request_id,
                queued: self.live.is_none() && self.ctx.must_wait().await,
            }),
            None => None,
        };
        hub.start_turn(TurnStart {
            project_slug: slug,
            session_id: &self.session_id,
            job_id: &turn.job_id,
            started_at: turn.started_at.clone(),
            asker,
        })
        .await;
        if turn.new_chat {
            hub.chats_changed(slug, Some(&self.session_id)).await;
        }
        let first = if turn.unprompted {
            // No user message: say why the chat runs, in its stream.
            let message = self
                .live
                .as_ref()
                .map_or_else(String::new, |l| l.background.notice());
            ChatEvent::Notice(Notice {
                kind: NoticeKind::Info,
                message,
            })
        } else {
            ChatEvent::User(UserTurn {
                message_id: Some(turn.message_id.clone()),
                text: turn.req.message.clone(),
                attribution: turn.req.attribution.clone(),
            })
        };
        self.emit(first).await;
    }

    /// An adopted chat is a link to the user's own transcript: continue it in a private
    /// copy, so claude's appends never alter their terminal history.
    async fn copy_adopted_transcript(&self, turn: &Turn) {
        if !turn.on_disk || self.live.is_some() {
            return;
        }
        let path = turn.transcript.clone();
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

    /// The turn's settings: its model, whether it gets the self-management tools (the depth
    /// gate), whether a person is behind it, how long its tool calls wait for an answer, and
    /// what the inbox calls the chat meanwhile.
    fn configure(&mut self, turn: &Turn) -> Launch {
        let cfg = &self.ctx.cfg;
        let req = &turn.req;
        let project = &req.project;
        let model = super::launch::model_of(req.model.clone(), project, cfg);
        // The depth gate: a person's turn always gets the self-management tools; a machine's
        // only while its depth is within the limit. Depth follows the message: a turn another
        // chat's message (or a hook it set off) started runs at the sender's turn's depth
        // when that is deeper than this chat's, in the sender's tree (`lineage.rs`).
        let state = &self.ctx.state;
        let own = crate::lineage::own(&state.stores.run_provenance, &self.session_id);
        let lineage = crate::lineage::of_turn(own, req.cause.as_ref());
        let depth = lineage.depth;
        state.lineages.set(&self.session_id, lineage, &turn.job_id);
        // A person's turn: typed, queued, or a continue they asked for (a client waits on it).
        // An unprompted turn has no person behind it, whoever started the work it reports.
        let human = !turn.unprompted
            && (req.reply_to.is_some()
                || (req.attribution.is_none() && req.origin == Origin::Human));
        let manage = crate::grants::grants_tools(cfg, project, depth, human);
        self.unattended = !human;
        if !turn.unprompted {
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
        Launch {
            on_disk: turn.on_disk,
            manage,
            model,
        }
    }

    /// A new worktree's setup (`worktree_setup`), before its chat's first turn: what it said
    /// as a notice, or the turn's failure.
    async fn set_up_worktree(
        &mut self,
        project: &crate::projects::Project,
    ) -> Result<(), Vec<ChatEvent>> {
        match crate::runner::worktree::setup(&self.ctx.state, &self.session_id, project).await {
            Ok(None) => Ok(()),
            Ok(Some(said)) => {
                self.emit(ChatEvent::Notice(Notice {
                    kind: NoticeKind::Info,
                    message: said,
                }))
                .await;
                Ok(())
            }
            Err(why) => Err(super::ending::setup_failed(why)),
        }
    }

    /// Runs the turn until it ends: an unprompted one is read from the line that started
    /// it; any other is sent to claude (started for it if need be). A turn that failed
    /// outside claude's own `result` is closed with frames of ours.
    async fn run_to_end(
        &mut self,
        turn: &Turn,
        unprompted: Option<Line>,
        launch: Launch,
    ) -> TurnEnd {
        let project = &turn.req.project;
        let driven = match unprompted {
            // The process runs the turn already: read it from its first line.
            Some(first) => {
                let mark = self.live.as_ref().and_then(|l| l.background.turn_started());
                self.set_idle(false).await;
                let driven = self.read_turn(project, &turn.job_id, Some(first)).await;
                if let Some(live) = self.live.as_mut() {
                    live.background.turn_ended(mark);
                }
                driven
            }
            None => match self.set_up_worktree(project).await {
                Ok(()) => {
                    self.drive(
                        project,
                        &turn.job_id,
                        &turn.message_id,
                        &turn.req.message,
                        launch,
                    )
                    .await
                }
                Err(events) => Err(events),
            },
        };
        let mut end = match driven {
            Ok(end) => end,
            Err(events) => {
                let mut end = TurnEnd::failed();
                for e in events {
                    end.observe(&e);
                    self.emit(e).await;
                }
                end
            }
        };
        if self.ctx.shutdown.is_cancelled() {
            end.stopped_by_shutdown();
        }
        end
    }
}
