//! A prompted turn's start: a claude process for it (a pool slot, the release check, the
//! spawn), its model, and the user's message on its stdin.

use paddock_proto::{ChatEvent, Ended, Notice, NoticeKind};
use serde_json::json;
use tokio::sync::OwnedSemaphorePermit;

use super::ending::{STOPPED, TurnEnd, failure, not_started, stopped_early};
use super::{ChatCmd, ChatTask, Live, hold_or_refuse};
use crate::runner::Cmd;
use crate::runner::background::Background;
use crate::runner::process::{ClaudeEnv, ClaudeProcess, SessionStart, SpawnSpec};
use crate::runner::translate::Translator;

/// How a process for a turn is started, if one must be.
#[derive(Debug, Clone)]
pub(super) struct Launch {
    /// The chat's transcript exists: resume it.
    pub(super) on_disk: bool,
    /// Give it the self-management tools (the depth gate's decision).
    pub(super) manage: bool,
    /// The model the turn runs on (`None`: the CLI's default).
    pub(super) model: Option<String>,
}

impl Launch {
    /// How a person's new chat in `project` starts: no transcript, the self-management tools
    /// when they are on, the project's model (else the instance's).
    pub(super) fn new_chat(
        cfg: &crate::config::Config,
        project: &crate::projects::Project,
    ) -> Self {
        Self {
            on_disk: false,
            manage: crate::grants::grants_tools(cfg, project, 0, true),
            model: model_of(None, project, cfg),
        }
    }
}

/// The model a turn runs on: the one it asked for, else the project's, else the instance's
/// (`None`: the CLI's default).
pub(super) fn model_of(
    asked: Option<String>,
    project: &crate::projects::Project,
    cfg: &crate::config::Config,
) -> Option<String> {
    asked
        .or_else(|| project.file.model.clone())
        .or_else(|| cfg.default_model.clone())
}

impl ChatTask {
    /// Runs one turn to its end. `Err` carries the closing frames of a turn that failed
    /// before or outside the CLI's own `result`.
    pub(super) async fn drive(
        &mut self,
        project: &crate::projects::Project,
        job_id: &str,
        message_id: &str,
        text: &str,
        launch: Launch,
    ) -> Result<TurnEnd, Vec<ChatEvent>> {
        // A spare started for other settings is not used (`spare.rs`).
        self.check_spare(project, &launch).await;
        // The tools are fixed when claude starts: a turn that needs another grant restarts
        // the process (the chat resumes from its transcript).
        if self
            .live
            .as_ref()
            .is_some_and(|l| l.manage != launch.manage)
        {
            self.stop_process("its tools change for this turn").await;
        }
        // Nor can its folder change: a chat whose worktree was discarded (or archived away)
        // works in the project's folder from its next turn, in a process started there.
        if self
            .live
            .as_ref()
            .is_some_and(|l| l.cwd != project.agent_dir)
        {
            self.stop_process("the folder it works in changed").await;
        }
        if self.live.is_none() {
            self.start_process(project, job_id, &launch).await?;
        } else {
            self.set_idle(false).await;
        }
        self.set_model(job_id, launch.model).await?;
        self.send_message(message_id, text).await?;
        self.read_turn(project, job_id, None).await
    }

    /// Starts claude for the turn, holding a pool slot: resuming the chat if its transcript
    /// exists, with the agent tools the turn was granted.
    async fn start_process(
        &mut self,
        project: &crate::projects::Project,
        job_id: &str,
        launch: &Launch,
    ) -> Result<(), Vec<ChatEvent>> {
        let permit = self.acquire_slot(job_id).await?;
        // Checked holding the slot, so the pool's order is that of the turns.
        if let Err(refusal) = self.release_check().await {
            return Err(failure(NoticeKind::Info, refusal));
        }
        let instructions = self.instructions(project).await;
        self.spawn_live(project, launch, permit, instructions)
            .await
            .map_err(|e| not_started(e.to_string()))
    }

    /// Whether the configured claude binary's release may run (`release.rs`).
    pub(super) async fn release_check(&self) -> Result<(), String> {
        let cfg = &self.ctx.cfg;
        self.ctx
            .releases
            .check(&cfg.claude_bin, &cfg.claude_env)
            .await
    }

    /// The project's CLAUDE.md as claude is given it (`claude_md.rs`), read on the blocking
    /// pool.
    pub(super) async fn instructions(&self, project: &crate::projects::Project) -> Option<String> {
        let (agent_dir, private) = (project.agent_dir.clone(), self.ctx.cfg.private_state());
        tokio::task::spawn_blocking(move || crate::claude_md::system_prompt(&agent_dir, &private))
            .await
            .unwrap_or_else(|e| {
                tracing::warn!("cannot read the project's CLAUDE.md: {e}");
                None
            })
    }

    /// Spawns the chat's claude in `permit`'s pool slot: resuming the chat if its transcript
    /// exists, with the agent tools `launch` grants and `instructions` as its CLAUDE.md.
    pub(super) async fn spawn_live(
        &mut self,
        project: &crate::projects::Project,
        launch: &Launch,
        permit: OwnedSemaphorePermit,
        instructions: Option<String>,
    ) -> Result<(), crate::runner::process::ProcessError> {
        let cfg = self.ctx.cfg.clone();
        let on_disk = launch.on_disk
            || self
                .ctx
                .state
                .folder_of(project)
                .join(format!("{}.jsonl", self.session_id))
                .exists();
        let token = self
            .ctx
            .state
            .agents
            .issue(&self.session_id, &project.slug, launch.manage);
        let mcp_config = self.mcp_config(project, &token, launch.manage).await;
        let spec = SpawnSpec {
            claude_bin: cfg.claude_bin.clone(),
            cwd: project.agent_dir.clone(),
            session: if on_disk {
                SessionStart::Resume(self.session_id.clone())
            } else {
                SessionStart::New(self.session_id.clone())
            },
            model: launch.model.clone(),
            env: ClaudeEnv::of(&cfg),
            mcp_config,
            instructions,
            records: crate::runner::survivors::Records::new(&cfg.data_dir),
            stdin_stall: cfg.stdin_stall,
        };
        let proc = ClaudeProcess::spawn(&spec, permit, &self.ctx.tracker).await?;
        self.live = Some(Live {
            proc,
            translator: Translator::new(),
            model: launch.model.clone(),
            manage: launch.manage,
            cwd: project.agent_dir.clone(),
            background: Background::default(),
            spare: None,
        });
        Ok(())
    }

    /// Writes the chat's MCP configuration (reading the user's servers too) on the blocking
    /// pool; the path for `--mcp-config`, or `None` (the chat runs without the tools).
    async fn mcp_config(
        &self,
        project: &crate::projects::Project,
        token: &str,
        manage: bool,
    ) -> Option<String> {
        let cfg = self.ctx.cfg.clone();
        let (session_id, token, agent_dir) = (
            self.session_id.clone(),
            token.to_owned(),
            project.agent_dir.clone(),
        );
        let written = tokio::task::spawn_blocking(move || {
            let extra =
                crate::user_mcp::extra_servers(&cfg.user_mcp, cfg.browser_mcp, &agent_dir).0;
            crate::grants::write_mcp_config(&cfg, &session_id, &token, manage, &extra)
        })
        .await;
        match written {
            Ok(path) => path.map(|p| p.to_string_lossy().into_owned()),
            Err(e) => {
                tracing::warn!(session = %self.session_id, "cannot write the MCP configuration: {e}");
                None
            }
        }
    }

    /// Switches the live process to the turn's model, if it names another.
    async fn set_model(
        &mut self,
        job_id: &str,
        model: Option<String>,
    ) -> Result<(), Vec<ChatEvent>> {
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
        Ok(())
    }

    /// Writes the user's message (with its attachments) to claude's stdin.
    async fn send_message(&mut self, message_id: &str, text: &str) -> Result<(), Vec<ChatEvent>> {
        let content =
            crate::attachments::content(text, &crate::attachments::dir(&self.ctx.cfg.data_dir));
        let msg = json!({
            "type": "user",
            "message": {"role": "user", "content": content},
            "parent_tool_use_id": null,
            "session_id": self.session_id,
            "uuid": message_id,
        });
        let Some(live) = self.live.as_mut() else {
            return Err(failure(NoticeKind::Crashed, "no claude process".into()));
        };
        if let Err(e) = live.proc.send(&msg) {
            return Err(self.lost_process(e.to_string()).await);
        }
        Ok(())
    }

    /// Waits for a pool permit, handling cancel and shutdown meanwhile.
    async fn acquire_slot(&mut self, job_id: &str) -> Result<OwnedSemaphorePermit, Vec<ChatEvent>> {
        if let Ok(p) = self.ctx.pool.clone().try_acquire_owned() {
            return Ok(p);
        }
        // An idle process is reaped for this turn: it waits only for that one to stop, and
        // its row does not say it waits. Otherwise the row says so until a slot is free.
        let queued = !self.ctx.ask(Cmd::Wait).await;
        if queued {
            self.ctx
                .hub
                .waiting_process(&self.session_id, job_id, true)
                .await;
            let busy = match self.ctx.cfg.max_processes {
                1 => "the only one is busy".to_owned(),
                max => format!("all {max} are busy"),
            };
            self.emit(ChatEvent::Notice(Notice {
                kind: NoticeKind::Info,
                message: format!(
                    "waiting for a free claude process ({busy}; max_processes sets the bound)"
                ),
            }))
            .await;
        }
        let pool = self.ctx.pool.clone();
        let acquire = pool.acquire_owned();
        tokio::pin!(acquire);
        let result = loop {
            tokio::select! {
                permit = &mut acquire => break permit.map_err(|_| stopped_early(Ended::Cut, STOPPED)),
                () = self.ctx.shutdown.cancelled() => break Err(stopped_early(Ended::Cut, STOPPED)),
                cmd = self.rx.recv() => match cmd {
                    Some(ChatCmd::Cancel { job_id: want, reply }) => {
                        let hit = want.as_deref().is_none_or(|w| w == job_id);
                        let _ = reply.send(hit);
                        if hit {
                            break Err(stopped_early(Ended::Cancelled, "cancelled while waiting for a claude process"));
                        }
                    }
                    Some(ChatCmd::Turn(job)) => hold_or_refuse(&mut self.pending, &self.session_id, *job),
                    // A turn runs: its process cannot be let go now.
                    Some(ChatCmd::Release(reply)) => {
                        let _ = reply.send(false);
                    }
                    Some(ChatCmd::Reap | ChatCmd::Warm(_)) | None => {}
                },
            }
        };
        self.ctx.tell(Cmd::Waited).await;
        if queued {
            self.ctx
                .hub
                .waiting_process(&self.session_id, job_id, false)
                .await;
        }
        result
    }
}
