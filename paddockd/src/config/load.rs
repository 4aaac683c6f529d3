//! Reading the configuration: the file, then the environment over it (`PADDOCK_<KEY>` wins per
//! key), area by area, then the checks of [`Config::validate`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{
    Config, ConfigError, FLAG_WORDS, FileConfig, Flag, GitIdentity, Sources, management,
    parse_flag, values, ws,
};

impl Config {
    /// As [`Config::load`], reading variables through `env` (tests pass a map).
    pub fn load_with(
        sources: &Sources,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let env = |k: &str| env(k).filter(|v| !v.is_empty());
        let dirs = directories::BaseDirs::new();
        let (file_path, explicit) = match (&sources.config_file, env("PADDOCK_CONFIG")) {
            (Some(p), _) => (Some(p.clone()), Some("--config")),
            (None, Some(p)) => (Some(PathBuf::from(p)), Some("PADDOCK_CONFIG")),
            (None, None) => (
                dirs.as_ref()
                    .map(|d| d.config_dir().join("paddock").join("config.toml")),
                None,
            ),
        };
        let mut file = match &file_path {
            Some(path) => read_file(path, explicit)?,
            None => FileConfig::default(),
        };
        let mut cfg = places(sources, &env, dirs.as_ref(), &mut file)?;
        cfg.config_file = file_path.clone();
        processes_and_queues(&mut cfg, &env, &mut file)?;
        tool_tiers(&mut cfg, &env, &mut file)?;
        recovery(&mut cfg, &env, &mut file)?;
        curation_and_commits(&mut cfg, &env, &mut file)?;
        attachments_and_mcp(&mut cfg, &env, dirs.as_ref(), &mut file)?;
        network(&mut cfg, &env, &mut file)?;
        let home = dirs.as_ref().map(directories::BaseDirs::home_dir);
        management_clients(&mut cfg, &env, file_path.as_deref(), home, &mut file)?;
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Where things are: the data directory, the log, the socket, the claude binary and homes.
fn places(
    sources: &Sources,
    env: &dyn Fn(&str) -> Option<String>,
    dirs: Option<&directories::BaseDirs>,
    file: &mut FileConfig,
) -> Result<Config, ConfigError> {
    let data_dir = pick_path(env, "data_dir", file.data_dir.take())?.unwrap_or_else(|| {
        dirs.map(|d| d.data_dir().join("paddock"))
            .unwrap_or_else(|| PathBuf::from("/tmp/paddock-data"))
    });
    let log = pick_path(env, "log", file.log.take())?.unwrap_or_else(|| {
        dirs.and_then(|d| {
            d.state_dir()
                .map(|s| s.join("paddock").join("paddockd.log"))
        })
        .unwrap_or_else(|| data_dir.join("paddockd.log"))
    });
    let socket = match &sources.socket {
        Some(s) => s.clone(),
        None => pick_path(env, "socket", file.socket.take())?
            .unwrap_or_else(paddock_proto::paths::default_socket_path),
    };
    let mut cfg = Config::for_data_dir(&data_dir, &socket);
    cfg.log = log;
    if let Some(bin) = pick_path(env, "claude_bin", file.claude_bin.take())? {
        cfg.claude_bin = bin;
    }
    if let Some(home) = pick_path(env, "claude_home", file.claude_home.take())? {
        cfg.claude_home = home;
    }
    if let Some(mode) = pick(env, "transcripts", file.transcripts.take())? {
        cfg.transcripts = mode;
    }
    match pick_path(env, "host_claude_home", file.host_claude_home.take())? {
        Some(home) => cfg.host_claude_home = home,
        None => {
            if let Some(d) = dirs {
                cfg.host_claude_home = d.home_dir().join(".claude");
            }
        }
    }
    Ok(cfg)
}

/// The process pool, its timeouts and retries, the tools claude may use, the hub's and the
/// clients' queues, the disk floor.
fn processes_and_queues(
    cfg: &mut Config,
    env: &dyn Fn(&str) -> Option<String>,
    file: &mut FileConfig,
) -> Result<(), ConfigError> {
    if let Some(n) = pick(env, "max_processes", file.max_processes.take())? {
        cfg.max_processes = n;
    }
    if let Some(n) = pick(env, "spare_processes", file.spare_processes.take())? {
        cfg.spare_processes = n;
    }
    if let Some(s) = pick(env, "spare_keep_secs", file.spare_keep_secs.take())? {
        cfg.spare_keep = Duration::from_secs(s);
    }
    if let Some(s) = pick(env, "idle_timeout_secs", file.idle_timeout_secs.take())? {
        cfg.idle_timeout = Duration::from_secs(s);
    }
    if let Some(ms) = pick(env, "shutdown_grace_ms", file.shutdown_grace_ms.take())? {
        cfg.shutdown_grace = Duration::from_millis(ms);
    }
    if let Some(ms) = pick(env, "interrupt_grace_ms", file.interrupt_grace_ms.take())? {
        cfg.interrupt_grace = Duration::from_millis(ms);
    }
    if let Some(n) = pick(env, "claude_max_retries", file.claude_max_retries.take())? {
        cfg.claude_max_retries = n;
    }
    cfg.default_model = pick(env, "default_model", file.default_model.take())?;
    if let Some(v) = env("PADDOCK_ALLOWED_TOOLS") {
        cfg.allowed_tools = v
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
    } else if let Some(tools) = file.allowed_tools.take() {
        cfg.allowed_tools = tools;
    }
    if let Some(n) = pick(env, "hub_buffer_frames", file.hub_buffer_frames.take())? {
        cfg.hub_buffer_frames = n;
    }
    if let Some(s) = pick(env, "hub_linger_secs", file.hub_linger_secs.take())? {
        cfg.hub_linger = Duration::from_secs(s);
    }
    if let Some(n) = pick(env, "client_queue", file.client_queue.take())? {
        cfg.client_queue = n;
    }
    if let Some(mb) = pick(env, "disk_floor_mb", file.disk_floor_mb.take())? {
        cfg.disk_floor_bytes = mb.saturating_mul(1024 * 1024);
    }
    Ok(())
}

/// The self-management tool tiers and the spawn depth.
fn tool_tiers(
    cfg: &mut Config,
    env: &dyn Fn(&str) -> Option<String>,
    file: &mut FileConfig,
) -> Result<(), ConfigError> {
    if let Some(n) = pick(env, "max_spawn_depth", file.max_spawn_depth.take())? {
        cfg.max_spawn_depth = n;
    }
    if let Some(n) = pick(
        env,
        "tree_chats_per_minute",
        file.tree_chats_per_minute.take(),
    )? {
        cfg.tree_chats_per_minute = n;
    }
    if let Some(n) = pick(
        env,
        "tree_turns_per_minute",
        file.tree_turns_per_minute.take(),
    )? {
        cfg.tree_turns_per_minute = n;
    }
    if let Some(b) = pick_flag(env, "self_mcp", file.self_mcp.take())? {
        cfg.self_mcp = b;
    }
    if let Some(b) = pick_flag(env, "self_mcp_write", file.self_mcp_write.take())? {
        cfg.self_mcp_write = b;
    }
    if let Some(b) = pick_flag(env, "self_mcp_projects", file.self_mcp_projects.take())? {
        cfg.self_mcp_projects = b;
    }
    if let Some(b) = pick_flag(env, "hooks_mcp", file.hooks_mcp.take())? {
        cfg.hooks_mcp = b;
    }
    Ok(())
}

/// Recovering interrupted turns, unanswered approvals.
fn recovery(
    cfg: &mut Config,
    env: &dyn Fn(&str) -> Option<String>,
    file: &mut FileConfig,
) -> Result<(), ConfigError> {
    if let Some(b) = pick_flag(env, "recovery_autodrive", file.recovery_autodrive.take())? {
        cfg.recovery_autodrive = b;
    }
    if let Some(b) = pick_flag(env, "recovery_surface", file.recovery_surface.take())? {
        cfg.recovery_surface = b;
    }
    if let Some(ms) = pick(
        env,
        "recovery_debounce_ms",
        file.recovery_debounce_ms.take(),
    )? {
        cfg.recovery_debounce = Duration::from_millis(ms);
    }
    if let Some(n) = pick(
        env,
        "recovery_max_retries",
        file.recovery_max_retries.take(),
    )? {
        cfg.recovery_max_retries = n;
    }
    if let Some(ms) = pick(env, "recovery_limbo_ms", file.recovery_limbo_ms.take())? {
        cfg.recovery_limbo = (ms > 0).then(|| Duration::from_millis(ms));
    }
    if let Some(s) = pick(
        env,
        "approval_timeout_secs",
        file.approval_timeout_secs.take(),
    )? {
        cfg.approval_timeout = (s > 0).then(|| Duration::from_secs(s));
    }
    Ok(())
}

/// The sweeper and what it curates, committing chats, the git identity, how a chat's claude
/// lives, resuming after a usage limit.
fn curation_and_commits(
    cfg: &mut Config,
    env: &dyn Fn(&str) -> Option<String>,
    file: &mut FileConfig,
) -> Result<(), ConfigError> {
    cfg.sweeper = pick_flag(env, "sweeper", file.sweeper.take())?.unwrap_or(true);
    cfg.commit_chats = pick_flag(env, "commit_chats", file.commit_chats.take())?.unwrap_or(true);
    let identity_part = |key: &str, file: Option<String>| {
        pick::<String>(env, key, file)
            .map(|v| v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()))
    };
    cfg.git_identity = GitIdentity {
        name: identity_part("git_author_name", file.git_author_name.take())?,
        email: identity_part("git_author_email", file.git_author_email.take())?,
    };
    if let Some(mode) = pick(env, "drive_mode", file.drive_mode.take())? {
        cfg.drive_mode = mode;
    }
    if let Some(b) = pick_flag(env, "usage_limit_resume", file.usage_limit_resume.take())? {
        cfg.usage_limit_resume = b;
    }
    if let Some(m) = pick(env, "sweeper_model", file.sweeper_model.take())? {
        cfg.sweeper_model = m;
    }
    if let Some(s) = pick(
        env,
        "sweeper_min_interval_secs",
        file.sweeper_min_interval_secs.take(),
    )? {
        cfg.sweeper_min_interval = Duration::from_secs(s);
    }
    if let Some(n) = pick(env, "sweeper_sessions", file.sweeper_sessions.take())? {
        cfg.sweeper_sessions = n;
    }
    if let Some(n) = pick(
        env,
        "sweeper_budget_bytes",
        file.sweeper_budget_bytes.take(),
    )? {
        cfg.sweeper_budget_bytes = n;
    }
    if let Some(n) = pick(
        env,
        "curation_overview_max_tokens",
        file.curation_overview_max_tokens.take(),
    )? {
        cfg.curation.overview_tokens = n;
    }
    if let Some(n) = pick(
        env,
        "curation_changelog_max_tokens",
        file.curation_changelog_max_tokens.take(),
    )? {
        cfg.curation.changelog_tokens = n;
    }
    if let Some(n) = pick(
        env,
        "curation_claudemd_max_tokens",
        file.curation_claudemd_max_tokens.take(),
    )? {
        cfg.curation.claudemd_tokens = n;
    }
    Ok(())
}

/// The MCP bridge and the browser, attachments, the user's own MCP servers.
fn attachments_and_mcp(
    cfg: &mut Config,
    env: &dyn Fn(&str) -> Option<String>,
    dirs: Option<&directories::BaseDirs>,
    file: &mut FileConfig,
) -> Result<(), ConfigError> {
    cfg.mcp_bin = pick_path(env, "mcp_bin", file.mcp_bin.take())?.or_else(|| {
        // The running binary, when it is paddockd (not an embedding test binary).
        std::env::current_exe()
            .ok()
            .filter(|p| p.file_name().is_some_and(|n| n == "paddockd"))
    });
    cfg.browser_mcp = pick_flag(env, "browser_mcp", file.browser_mcp.take())?.unwrap_or(false);
    if let Some(b) = pick_flag(env, "attachments_enabled", file.attachments_enabled.take())? {
        cfg.attachments.enabled = b;
    }
    if let Some(mb) = pick(
        env,
        "attachments_max_file_mb",
        file.attachments_max_file_mb.take(),
    )? {
        cfg.attachments.max_file_bytes = mb.saturating_mul(1024 * 1024);
    }
    if let Some(n) = pick(
        env,
        "attachments_max_files",
        file.attachments_max_files.take(),
    )? {
        cfg.attachments.max_files = n;
    }
    if let Some(types) = pick::<String>(env, "attachments_types", file.attachments_types.take())? {
        cfg.attachments.types = crate::attachments::Limits::parse_types(&types);
    }
    let user_mcp = pick_path(env, "user_mcp_config", file.user_mcp_config.take())?
        .or_else(|| dirs.map(|d| d.home_dir().join(".claude.json")));
    if let Some(path) = user_mcp.filter(|p| p.as_os_str() != "off" && !p.as_os_str().is_empty()) {
        cfg.user_mcp = crate::user_mcp::UserMcp::load(&path);
    }
    Ok(())
}

/// The WebSocket and management listeners, and the bounds on connections before their
/// credential.
fn network(
    cfg: &mut Config,
    env: &dyn Fn(&str) -> Option<String>,
    file: &mut FileConfig,
) -> Result<(), ConfigError> {
    match pick::<String>(env, "ws_listen", file.ws_listen.take())? {
        Some(addr) if addr.trim() == "off" => cfg.ws.listen = None,
        Some(addr) => {
            cfg.ws.listen = Some(addr.trim().parse().map_err(|_| {
                ConfigError::Invalid(format!(
                    "ws_listen {addr:?} is not an IP address and port; write one such as 127.0.0.1:7777 or [::1]:7777 (or off)"
                ))
            })?);
        }
        None => {}
    }
    if let Some(auth) = pick(env, "ws_auth", file.ws_auth.take())? {
        cfg.ws.auth = auth;
    }
    cfg.ws.token_file = pick_path(env, "ws_token_file", file.ws_token_file.take())?;
    if let Some(h) = pick::<String>(env, "ws_trusted_header", file.ws_trusted_header.take())? {
        cfg.ws.trusted_header = h;
    }
    if let Some(v) = env(ws::ALLOW_OPEN_ENV) {
        cfg.ws.dangerously_allow_open = match parse_flag(&v) {
            Some(b) => b,
            None => {
                return Err(ConfigError::Env {
                    var: ws::ALLOW_OPEN_ENV.into(),
                    value: v,
                    message: format!("expected {FLAG_WORDS}"),
                });
            }
        };
    }
    match pick::<String>(env, "mcp_listen", file.mcp_listen.take())? {
        Some(addr) if addr.trim() == "off" => cfg.management.listen = None,
        Some(addr) => {
            cfg.management.listen = Some(addr.trim().parse().map_err(|_| {
                ConfigError::Invalid(format!(
                    "mcp_listen {addr:?} is not an IP address and port; write one such as 127.0.0.1:7778 or [::1]:7778 (or off)"
                ))
            })?);
        }
        None => {}
    }
    if let Some(ms) = pick(
        env,
        "net_header_timeout_ms",
        file.net_header_timeout_ms.take(),
    )? {
        if ms == 0 {
            return Err(ConfigError::Invalid(
                "net_header_timeout_ms must be above 0; 10000 (10 s) is the default".into(),
            ));
        }
        cfg.net.header_timeout = Duration::from_millis(ms);
    }
    if let Some(n) = pick(
        env,
        "net_waiting_per_peer",
        file.net_waiting_per_peer.take(),
    )? {
        if n == 0 {
            return Err(ConfigError::Invalid(
                "net_waiting_per_peer must be at least 1; 16 is the default".into(),
            ));
        }
        cfg.net.per_peer = n;
    }
    Ok(())
}

/// The management endpoint's instance id, trusted proxies and clients (`[mcp_clients.NAME]`,
/// whose token files are read relative to the config file).
fn management_clients(
    cfg: &mut Config,
    env: &dyn Fn(&str) -> Option<String>,
    file_path: Option<&Path>,
    home: Option<&Path>,
    file: &mut FileConfig,
) -> Result<(), ConfigError> {
    if let Some(id) = pick::<String>(env, "mcp_instance_id", file.mcp_instance_id.take())? {
        cfg.management.instance_id = Some(id.trim().to_owned()).filter(|i| !i.is_empty());
    }
    if let Some(listed) = pick(env, "mcp_trusted_proxies", file.mcp_trusted_proxies.take())? {
        cfg.management.trusted_proxies = Some(
            management::trusted_from(&listed).map_err(|e| ConfigError::Invalid(e.to_string()))?,
        );
    }
    if let Some(tables) = file.mcp_clients.take() {
        cfg.management.allow = management::allow_from_file(&tables)
            .map_err(|e| ConfigError::Invalid(e.to_string()))?;
        cfg.management.scopes = management::scopes_from_file(&tables)
            .map_err(|e| ConfigError::Invalid(e.to_string()))?;
        cfg.management.clients =
            management::clients_from_file(tables, file_path.and_then(Path::parent), home)
                .map_err(|e| ConfigError::Invalid(e.to_string()))?;
    }
    Ok(())
}

fn read_file(path: &Path, explicit: Option<&'static str>) -> Result<FileConfig, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return match explicit {
                Some(by) => Err(ConfigError::Missing {
                    path: path.to_path_buf(),
                    by,
                }),
                None => Ok(FileConfig::default()),
            };
        }
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        message: {
            let said = values::plain_numbers(e.message());
            match values::locate(&text, e.span()) {
                Some(at) => format!("{at}: {said}"),
                None => said,
            }
        },
    })
}

fn env_var(key: &str) -> String {
    format!("PADDOCK_{}", key.to_ascii_uppercase())
}

/// The environment's value for `key` if set (parsed), else the file's.
fn pick<T: std::str::FromStr>(
    env: &dyn Fn(&str) -> Option<String>,
    key: &str,
    file: Option<T>,
) -> Result<Option<T>, ConfigError>
where
    T::Err: std::fmt::Display,
{
    let var = env_var(key);
    match env(&var) {
        Some(value) => value
            .trim()
            .parse()
            .map(Some)
            .map_err(|e: T::Err| ConfigError::Env {
                var,
                message: values::explain::<T>(key, &e.to_string()),
                value,
            }),
        None => Ok(file),
    }
}

/// [`pick`] for a yes/no key: every boolean reads the same words ([`Flag`]), in the
/// environment and the file alike.
fn pick_flag(
    env: &dyn Fn(&str) -> Option<String>,
    key: &str,
    file: Option<Flag>,
) -> Result<Option<bool>, ConfigError> {
    Ok(pick::<Flag>(env, key, file)?.map(|Flag(b)| b))
}

fn pick_path(
    env: &dyn Fn(&str) -> Option<String>,
    key: &str,
    file: Option<PathBuf>,
) -> Result<Option<PathBuf>, ConfigError> {
    Ok(env(&env_var(key)).map(PathBuf::from).or(file))
}
