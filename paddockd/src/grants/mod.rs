//! What a chat's `claude` is given of paddock's own tools: the two MCP servers (`paddock`
//! with `send_file`; `paddock_manage`, the self-management tiers), the token each call
//! carries ([`tokens`]), the depth gate ([`grants_tools`]), and the `--mcp-config` file that
//! hands them over. What the tools do is `agent/`.

pub mod tokens;

use crate::projects::Project;

pub use tokens::{AgentTokens, Identity};

/// The servers' keys (`mcp__paddock_manage__create_chat`, `mcp__paddock__send_file`).
pub use crate::tool_catalogue::{FILE_SERVER, MANAGE_SERVER};

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

/// Removes what [`write_mcp_config`] wrote for `session_id` (both grants), if anything.
pub fn remove_mcp_config(cfg: &crate::Config, session_id: &str) {
    let dir = cfg.data_dir.join("tmp").join("mcp");
    for grant in ["manage", "file"] {
        let _ = std::fs::remove_file(dir.join(format!("{session_id}-{grant}.json")));
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
