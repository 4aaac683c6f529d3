//! The tools paddockd gives its agents, behind the MCP bridge (`paddockd mcp`, `mcp/`).
//!
//! Two servers, with the reference's keys so prompts and allow-lists carry over:
//! `paddock_manage` (self-management, in tiers: read; write; projects) and `paddock`
//! (`send_file`). Every call arrives with the calling chat's token ([`tokens`]), so it is
//! attributed to that chat, and every turn a tool starts goes through [`start_turn`], the one
//! path for machine-started turns: it stamps run provenance (origin, depth, the recorded
//! parent) and message provenance, and streams through the hub like a human turn.
//!
//! The depth gate ([`grants_tools`]): a machine-started turn gets the self-management tools
//! only while its chat's depth is at most `max_spawn_depth` (the project's setting wins);
//! evaluated at the child, with ≤. A person's turn is the un-gated root: it always gets them.

pub mod tokens;
mod tools;

use paddock_proto::{
    AgentAuth, AgentCall, AgentResult, AgentTools, Attribution, ErrorBody, ErrorCode, Origin,
};

use crate::handles::Daemon;
use crate::projects::Project;
use crate::runner::TurnRequest;
use crate::stores::RunProvenance;

pub use tokens::{AgentTokens, Identity};
/// A transcript's last entries as text (`read_chat`, here and on the management endpoint).
pub(crate) use tools::{create_project, render_text};

/// The self-management server's key (`mcp__paddock_manage__create_chat`...).
pub const MANAGE_SERVER: &str = "paddock_manage";
/// The server of `send_file` (`mcp__paddock__send_file`).
pub const FILE_SERVER: &str = "paddock";

/// Whether the self-management server's read tier is on: `self_mcp`, or `self_mcp_write`,
/// which implies it.
pub fn read_tier_on(cfg: &crate::Config) -> bool {
    cfg.self_mcp || cfg.self_mcp_write
}

/// Whether a turn in a chat at `depth` gets the self-management tools.
pub fn grants_tools(cfg: &crate::Config, project: &Project, depth: u32, human: bool) -> bool {
    if !read_tier_on(cfg) || cfg.mcp_bin.is_none() {
        return false;
    }
    human || depth <= project.file.max_spawn_depth.unwrap_or(cfg.max_spawn_depth)
}

/// The `--mcp-config` JSON for a chat's process: `paddock` always, `paddock_manage` when
/// `manage` (when there is a bridge binary to run), then `extra` (the user's servers for the
/// project, the browser), which never replace paddock's own. `None` when there is nothing.
pub fn mcp_config(
    cfg: &crate::Config,
    token: &str,
    manage: bool,
    extra: &serde_json::Map<String, serde_json::Value>,
) -> Option<String> {
    let mut servers = serde_json::Map::new();
    for (name, spec) in extra {
        servers.insert(name.clone(), spec.clone());
    }
    let Some(bin) = cfg.mcp_bin.as_ref() else {
        return (!servers.is_empty())
            .then(|| serde_json::json!({ "mcpServers": servers }).to_string());
    };
    let server = |name: &str| {
        serde_json::json!({
            "type": "stdio",
            "command": bin,
            "args": ["mcp", "--server", name],
            "env": {
                "PADDOCK_SOCKET": cfg.socket,
                "PADDOCK_AGENT_TOKEN": token,
            },
        })
    };
    servers.insert(FILE_SERVER.into(), server(FILE_SERVER));
    if manage {
        servers.insert(MANAGE_SERVER.into(), server(MANAGE_SERVER));
    }
    Some(serde_json::json!({ "mcpServers": servers }).to_string())
}

/// Writes a chat's MCP configuration to `<data>/tmp/mcp/<session>-<grant>.json` (folder
/// 0700, file 0600; `grant` is `manage` or `file`) and returns the path for `--mcp-config`: the token stays out of `claude`'s argv,
/// where `ps` would show it. `None` when there is no bridge to run, or the file cannot be
/// written (then the chat runs without the tools, and the log says why).
pub fn write_mcp_config(
    cfg: &crate::Config,
    session_id: &str,
    token: &str,
    manage: bool,
    extra: &serde_json::Map<String, serde_json::Value>,
) -> Option<std::path::PathBuf> {
    let json = mcp_config(cfg, token, manage, extra)?;
    let dir = cfg.data_dir.join("tmp").join("mcp");
    let grant = if manage { "manage" } else { "file" };
    let path = dir.join(format!("{session_id}-{grant}.json"));
    let written = crate::fsutil::create_private_dir(&dir)
        .and_then(|()| crate::fsutil::write_atomic(&path, json.as_bytes()));
    match written {
        Ok(()) => Some(path),
        Err(e) => {
            tracing::warn!(
                session = session_id,
                "cannot write the MCP configuration, so this turn runs without paddock's tools: {e}"
            );
            None
        }
    }
}

/// The allow-list patterns the tools add for a chat's process.
pub fn allowed_patterns(manage: bool) -> Vec<String> {
    let mut out = vec![format!("mcp__{FILE_SERVER}__*")];
    if manage {
        out.push(format!("mcp__{MANAGE_SERVER}__*"));
    }
    out
}

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
