//! The tools paddockd gives its agents, behind the MCP bridge (`paddockd mcp`, `mcp/`).
//!
//! Two servers, with the reference's keys so prompts and allow-lists carry over:
//! `paddock_manage` (self-management, in tiers: read; write; projects) and `paddock`
//! (`send_file`). Every call arrives with the calling chat's token (`grants/tokens.rs`), so it is
//! attributed to that chat, and every turn a tool starts goes through [`start_turn`], the one
//! path for machine-started turns: it stamps run provenance (origin, depth, the recorded
//! parent) and message provenance, and streams through the hub like a human turn.
//!
//! The depth gate ([`grants_tools`]): a machine-started turn gets the self-management tools
//! only while its chat's depth is at most `max_spawn_depth` (the project's setting wins);
//! evaluated at the child, with ≤. A person's turn is the un-gated root: it always gets them.

mod tools;

use paddock_proto::{
    AgentAuth, AgentCall, AgentResult, AgentTools, Attribution, ErrorBody, ErrorCode, Origin,
};

use crate::handles::Daemon;
use crate::projects::Project;
use crate::runner::TurnRequest;
use crate::stores::RunProvenance;

pub use crate::grants::{FILE_SERVER, Identity, MANAGE_SERVER, grants_tools, read_tier_on};
/// A transcript's last entries as text (`read_chat`, here and on the management endpoint).
pub(crate) use tools::{create_project, render_text};

fn refused() -> ErrorBody {
    ErrorBody::new(
        ErrorCode::PermissionDenied,
        "this chat's paddock token was refused (the daemon restarted?); the tools come back with the chat's next turn",
    )
}

/// `agent:tools`: what the bridge lists.
pub fn list_tools(d: &Daemon, auth: &AgentAuth) -> Result<AgentTools, ErrorBody> {
    let who = d.state.agents.resolve(&auth.token).ok_or_else(refused)?;
    Ok(AgentTools {
        tools: tools::catalogue(&d.cfg, &auth.server, who.manage),
    })
}

/// `agent:call`: runs a tool as the chat the token names.
pub async fn call(d: &Daemon, call: AgentCall) -> Result<AgentResult, ErrorBody> {
    let who = d.state.agents.resolve(&call.token).ok_or_else(refused)?;
    let allowed = tools::catalogue(&d.cfg, &call.server, who.manage)
        .iter()
        .any(|t| t.name == call.tool);
    if !allowed {
        return Ok(AgentResult {
            text: format!(
                "{} is not available to this chat (unknown, switched off, or past the spawn-depth limit)",
                call.tool
            ),
            is_error: true,
        });
    }
    tracing::info!(session = %who.session_id, tool = %call.tool, "agent tool call");
    Ok(match tools::run(d, &who, &call).await {
        Ok(text) => AgentResult {
            text,
            is_error: false,
        },
        Err(text) => AgentResult {
            text,
            is_error: true,
        },
    })
}

/// A turn a machine starts: a spawned child's kickoff, a message from another chat, a
/// schedule or a hook firing.
#[derive(Debug, Clone)]
pub struct MachineTurn {
    pub project: Project,
    /// `None` starts a new chat.
    pub session_id: Option<String>,
    pub message: String,
    pub model: Option<String>,
    /// Who this run is, for History.
    pub origin: Origin,
    /// The new chat's provenance (ignored for an existing chat: stamped once).
    pub provenance: Option<RunProvenance>,
    /// Who injected the message (shown above it, and matched in the transcript).
    pub attribution: Option<Attribution>,
    pub trigger: Option<String>,
}

/// The one path for machine-started turns. A chat that is running queues the turn; it runs
/// when the current one ends. Returns the session id.
pub async fn start_turn(d: &Daemon, turn: MachineTurn) -> Result<String, ErrorBody> {
    d.runner
        .send(
            TurnRequest::new(turn.project, turn.session_id, turn.message)
                .model(turn.model)
                .attribution(turn.attribution)
                .origin(turn.origin)
                .provenance(turn.provenance)
                .trigger(turn.trigger),
        )
        .await
}
