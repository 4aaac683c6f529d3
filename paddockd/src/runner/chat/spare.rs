//! A spare: this task's `claude` started as the next new chat of its project would be, before
//! that chat exists (the coordinator keeps the book, `runner/spare.rs`).
//!
//! The process is spawned with the chat's session id and told nothing but `initialize`, whose
//! answer says it is up: the CLI prints nothing and writes no transcript before the first
//! message (docs/claude-cli.md §15), so nothing of a spare is a chat until it is used. When a
//! new chat's turn comes, its process is used only if it was started exactly as that turn would
//! start one ([`fingerprint`]): otherwise it is stopped and the chat starts cold.

use std::hash::{Hash, Hasher};
use std::os::unix::fs::MetadataExt as _;

use serde_json::json;

use super::ChatTask;
use super::launch::Launch;
use crate::config::Config;
use crate::projects::Project;
use crate::runner::Cmd;

/// What this task is while it holds a spare (`ChatTask::spare`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SpareTask {
    /// `initialize` was answered: the process is up.
    pub(super) ready: bool,
    /// The process died (or could not be started): it is replaced, never used.
    pub(super) died: bool,
}

/// The request id of the spare's `initialize`.
const INITIALIZE_ID: &str = "spare-initialize";

impl ChatTask {
    /// Starts this task's process as a spare for `project`'s next new chat, in a pool slot
    /// that is free now (none is waited for). With no free slot, or a binary that may not
    /// run, there is no spare: the task ends and says so.
    pub(super) async fn warm(&mut self, project: Project) {
        let mut spare = SpareTask::default();
        let Ok(permit) = self.ctx.pool.clone().try_acquire_owned() else {
            self.spare = Some(spare);
            return;
        };
        if let Err(why) = self.release_check().await {
            tracing::debug!(session = %self.session_id, "no spare: {why}");
            self.spare = Some(spare);
            return;
        }
        let launch = Launch::new_chat(&self.ctx.cfg, &project);
        let (print, instructions) = self.print(&project, &launch).await;
        match self
            .spawn_live(&project, &launch, permit, instructions)
            .await
        {
            Ok(()) => {
                let init = json!({"type": "control_request", "request_id": INITIALIZE_ID,
                    "request": {"subtype": "initialize"}});
                if let Some(live) = self.live.as_mut() {
                    live.spare = print;
                    spare.died = live.proc.send(&init).is_err();
                }
                tracing::info!(session = %self.session_id, project = %project.slug, "spare claude started");
            }
            Err(e) => {
                tracing::warn!(session = %self.session_id, "cannot start a spare claude: {e}");
                spare.died = true;
            }
        }
        self.spare = Some(spare);
    }

    /// The spare's `initialize` was answered: it is ready, and the coordinator is told.
    pub(super) async fn spare_answered(&mut self) {
        if let Some(spare) = self.spare.as_mut()
            && !spare.ready
        {
            spare.ready = true;
            let session_id = self.session_id.clone();
            self.ctx.tell(Cmd::SpareReady { session_id }).await;
        }
    }

    /// The spare's process is gone (died, idle past `spare_keep`, reaped for the pool): the
    /// coordinator forgets it (dropping this task, unless a new chat took it meanwhile), and
    /// replaces one that died.
    pub(super) async fn spare_gone(&mut self) {
        let died = self.spare.take().is_some_and(|s| s.died);
        // Dropped by the coordinator, which forgot the grant then (its id may be a new
        // spare's now).
        if !self.rx.is_closed() {
            forget_grant(&self.ctx, &self.session_id);
        }
        let session_id = self.session_id.clone();
        self.ctx.tell(Cmd::SpareGone { session_id, died }).await;
    }

    /// Before a turn's first message: a process started as a spare is used only if it was
    /// started exactly as this turn would start one; otherwise it is stopped (the turn starts
    /// claude afresh).
    pub(super) async fn check_spare(&mut self, project: &Project, launch: &Launch) {
        let Some(started) = self.live.as_mut().and_then(|l| l.spare.take()) else {
            return;
        };
        if self.print(project, launch).await.0 == Some(started) {
            tracing::info!(session = %self.session_id, "a spare claude takes the new chat");
        } else {
            self.stop_process("its spare was started for other settings")
                .await;
        }
    }

    /// How `launch` would start claude in `project` now ([`fingerprint`]), with the project's
    /// CLAUDE.md as claude is given it: read, and the binary looked at, on the blocking pool.
    /// `None` for the print when that failed: such a spare is never used.
    async fn print(&self, project: &Project, launch: &Launch) -> (Option<u64>, Option<String>) {
        let (cfg, project, launch) = (self.ctx.cfg.clone(), project.clone(), launch.clone());
        let private = cfg.private_state();
        tokio::task::spawn_blocking(move || {
            let instructions = crate::claude_md::system_prompt(&project.agent_dir, &private);
            let print = fingerprint(&cfg, &project, &launch, instructions.as_deref());
            (Some(print), instructions)
        })
        .await
        .unwrap_or_else(|e| {
            tracing::warn!("cannot read the project's CLAUDE.md: {e}");
            (None, None)
        })
    }
}

/// A spare's agent token and MCP configuration: gone with it.
pub(in crate::runner) fn forget_grant(ctx: &super::Ctx, session_id: &str) {
    ctx.state.agents.revoke(session_id);
    crate::grants::remove_mcp_config(&ctx.cfg, session_id);
}

/// Everything a new chat's process is started from, hashed: the claude binary (its path and
/// the file's identity, so an upgrade in place counts), the folder, the model, the tools
/// granted, the environment, CLAUDE.md as given, the project's settings and the user's MCP
/// servers for the folder. Two equal prints start the same process.
fn fingerprint(
    cfg: &Config,
    project: &Project,
    launch: &Launch,
    instructions: Option<&str>,
) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    cfg.claude_bin.hash(&mut h);
    let path_var = std::env::var_os("PATH");
    let binary = crate::info::resolve(&cfg.claude_bin, path_var.as_deref())
        .ok()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| (m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec()));
    binary.hash(&mut h);
    project.agent_dir.hash(&mut h);
    launch.model.hash(&mut h);
    launch.manage.hash(&mut h);
    format!("{:?}", crate::runner::process::ClaudeEnv::of(cfg)).hash(&mut h);
    instructions.hash(&mut h);
    format!("{:?}", project.file).hash(&mut h);
    let servers =
        crate::user_mcp::extra_servers(&cfg.user_mcp, cfg.browser_mcp, &project.agent_dir).0;
    serde_json::Value::Object(servers).to_string().hash(&mut h);
    h.finish()
}
