//! The tools paddockd gives its agents, behind the MCP bridge (`paddockd mcp`, `mcp/`).
//!
//! Two servers, with the reference's keys so prompts and allow-lists carry over:
//! `paddock_manage` (self-management, in tiers: read; write; projects) and `paddock`
//! (`send_file`). Every call arrives with the calling chat's token (`grants/tokens.rs`), so it is
//! attributed to that chat, and every turn a tool starts goes through `machine_turns::start_turn`, the one
//! path for machine-started turns: it stamps run provenance (origin, depth, the recorded
//! parent) and message provenance, and streams through the hub like a human turn.
//!
//! The depth gate ([`grants_tools`]): a machine-started turn gets the self-management tools
//! only while its chat's depth is at most `max_spawn_depth` (the project's setting wins);
//! evaluated at the child, with ≤. A person's turn is the un-gated root: it always gets them.

mod tools;

use paddock_proto::{AgentAuth, AgentCall, AgentResult, AgentTools, ErrorBody, ErrorCode};

use crate::handles::Daemon;
pub use crate::machine_turns::{MachineTurn, start_turn};

pub use crate::grants::{FILE_SERVER, Identity, MANAGE_SERVER, grants_tools, read_tier_on};

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
