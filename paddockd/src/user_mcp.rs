//! The user's own MCP servers (reference §5): read once at start from their Claude
//! configuration (`~/.claude.json`: the top-level `mcpServers`, and those registered under
//! `projects.<absolute dir>.mcpServers`), and handed to the agents of the project running in
//! that directory through the same `--mcp-config` file as paddock's own servers. Each one's
//! tools are restated as allowed (`mcp__<name>__*`), so none is silently denied. Paddock's own
//! servers (`paddock`, `paddock_manage`, and `playwright` when `browser_mcp` is on) are never
//! overridden: a user server with one of the first two names is left out, with a warning, and
//! the browser replaces a user `playwright`.
//!
//! Also the opt-in browser server (§8, `browser_mcp`): Playwright's MCP server with a headless
//! browser, for every project.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The names paddock's own servers use (the browser's, `playwright`, replaces a user server of
/// that name only when `browser_mcp` is on).
pub const RESERVED: &[&str] = &["paddock", "paddock_manage"];

/// The browser server's name (its tools are `mcp__playwright__*`).
pub const BROWSER_SERVER: &str = "playwright";

/// The servers read from the user's configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserMcp {
    /// For every project.
    global: BTreeMap<String, Value>,
    /// For the project whose directory is the key (as the user's configuration spells it).
    per_dir: BTreeMap<PathBuf, BTreeMap<String, Value>>,
}

impl UserMcp {
    /// Reads `path`; a missing file is no servers, an unreadable or malformed one is no
    /// servers with a warning (the daemon starts anyway).
    pub fn load(path: &Path) -> Self {
        match std::fs::read(path) {
            Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                Ok(v) => {
                    let mcp = Self::from_value(&v);
                    let n =
                        mcp.global.len() + mcp.per_dir.values().map(BTreeMap::len).sum::<usize>();
                    tracing::info!(path = %path.display(), servers = n, "read your MCP servers");
                    mcp
                }
                Err(e) => {
                    tracing::warn!(path = %path.display(), "your Claude configuration is not valid JSON, so your MCP servers are not passed to agents: {e}");
                    Self::default()
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::default(),
            Err(e) => {
                tracing::warn!(path = %path.display(), "cannot read your Claude configuration, so your MCP servers are not passed to agents: {e}");
                Self::default()
            }
        }
    }

    /// From the configuration's JSON.
    pub fn from_value(v: &Value) -> Self {
        let servers = |v: Option<&Value>| -> BTreeMap<String, Value> {
            v.and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter(|(_, spec)| valid(spec))
                .filter(|(name, _)| {
                    let ours = RESERVED.contains(&name.as_str());
                    if ours {
                        tracing::warn!(server = %name, "your MCP server has the name of one of paddock's own, so agents do not get it; rename it to pass it on");
                    }
                    !ours
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        let global = servers(v.get("mcpServers"));
        let per_dir = v
            .get("projects")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(dir, p)| (PathBuf::from(dir), servers(p.get("mcpServers"))))
            .filter(|(_, s)| !s.is_empty())
            .collect();
        Self { global, per_dir }
    }

    /// The servers for agents running in `agent_dir`: the global ones, and those registered
    /// for that directory (which win on a name clash).
    pub fn servers_for(&self, agent_dir: &Path) -> BTreeMap<String, Value> {
        let mut out = self.global.clone();
        let canon = std::fs::canonicalize(agent_dir).ok();
        for (dir, servers) in &self.per_dir {
            let same = dir == agent_dir
                || canon
                    .as_deref()
                    .is_some_and(|c| std::fs::canonicalize(dir).is_ok_and(|d| d == c));
            if same {
                out.extend(servers.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        out
    }
}

/// A server spec Claude Code can start: a command (stdio) or a URL (http / sse).
fn valid(spec: &Value) -> bool {
    spec.get("command").and_then(Value::as_str).is_some()
        || spec.get("url").and_then(Value::as_str).is_some()
}

/// The browser server's spec: Playwright's MCP server, headless, a fresh profile per run.
pub fn browser_server() -> Value {
    serde_json::json!({
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "@playwright/mcp@latest", "--headless", "--isolated"],
    })
}

/// The extra servers (the user's for this directory, and the browser when on) as an
/// `mcpServers` map, and the allow-list patterns for their tools.
pub fn extra_servers(
    user: &UserMcp,
    browser: bool,
    agent_dir: &Path,
) -> (Map<String, Value>, Vec<String>) {
    let mut servers: Map<String, Value> = user.servers_for(agent_dir).into_iter().collect();
    if browser {
        servers.insert(BROWSER_SERVER.into(), browser_server());
    }
    let patterns = servers.keys().map(|n| format!("mcp__{n}__*")).collect();
    (servers, patterns)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    fn config() -> Value {
        json!({
            "numStartups": 12,
            "mcpServers": {
                "search": {"type": "stdio", "command": "search-mcp", "args": ["--fast"]},
                "paddock": {"command": "not-ours"},
                "playwright": {"command": "my-playwright"},
                "broken": {"type": "stdio"},
            },
            "projects": {
                "/home/ana/src/web": {"mcpServers": {
                    "db": {"command": "db-mcp", "env": {"DB": "web"}},
                    "search": {"type": "http", "url": "http://localhost:9000/mcp"},
                }},
                "/home/ana/src/other": {"allowedTools": []},
            }
        })
    }

    #[test]
    fn global_servers_reach_every_project_and_a_directorys_own_win_there() {
        let m = UserMcp::from_value(&config());
        let web = m.servers_for(Path::new("/home/ana/src/web"));
        assert_eq!(
            web.keys().collect::<Vec<_>>(),
            ["db", "playwright", "search"]
        );
        assert_eq!(web["search"]["url"], "http://localhost:9000/mcp");
        let other = m.servers_for(Path::new("/home/ana/src/other"));
        assert_eq!(other.keys().collect::<Vec<_>>(), ["playwright", "search"]);
        assert_eq!(other["search"]["command"], "search-mcp");
    }

    #[test]
    fn paddocks_names_and_servers_without_a_command_or_url_are_left_out() {
        let m = UserMcp::from_value(&config());
        let all = m.servers_for(Path::new("/elsewhere"));
        assert!(!all.contains_key("paddock"));
        assert!(!all.contains_key("broken"));
    }

    #[test]
    fn the_browser_is_added_and_every_server_is_allowed() {
        let m = UserMcp::from_value(&config());
        let (servers, patterns) = extra_servers(&m, true, Path::new("/home/ana/src/web"));
        assert_eq!(
            servers.keys().collect::<Vec<_>>(),
            ["db", "playwright", "search"]
        );
        assert_eq!(servers["playwright"]["command"], "npx", "the browser wins");
        let (mine, _) = extra_servers(&m, false, Path::new("/home/ana/src/web"));
        assert_eq!(mine["playwright"]["command"], "my-playwright");
        assert_eq!(
            patterns,
            ["mcp__db__*", "mcp__playwright__*", "mcp__search__*"]
        );
        let (none, allowed) = extra_servers(&UserMcp::default(), false, Path::new("/x"));
        assert!(none.is_empty() && allowed.is_empty());
    }

    #[test]
    fn a_missing_or_broken_file_is_no_servers() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            UserMcp::load(&dir.path().join("none.json")),
            UserMcp::default()
        );
        std::fs::write(dir.path().join("bad.json"), "{not json").unwrap();
        assert_eq!(
            UserMcp::load(&dir.path().join("bad.json")),
            UserMcp::default()
        );
    }
}
