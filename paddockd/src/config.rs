//! Configuration: a TOML file with every key also settable as `PADDOCK_<KEY>` in the
//! environment; the environment wins per key (DESIGN §3).
//!
//! A config file named explicitly (`--config` or `PADDOCK_CONFIG`) must exist; the default
//! file may be absent. An unknown key in the file is an error that names it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::chat_links::TranscriptMode;

pub mod curation;
mod git_identity;
mod keys;
mod load;
pub mod management;
mod paths;
mod values;
pub mod ws;
pub use git_identity::GitIdentity;
pub use keys::{KEYS, KeyDoc};
pub use paths::{projects_dir, workspace_dir, worktrees_dir};
pub use values::{FLAG_WORDS, Flag, parse_flag};

/// How long a write to claude's stdin may make no progress before claude counts as not
/// reading (and the writer gives up, closing stdin): [`Config::stdin_stall`]'s default.
pub const STDIN_STALL: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {path} does not exist (named by {by}); create it or stop naming it")]
    Missing { path: PathBuf, by: &'static str },
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("environment variable {var}={value:?}: {message}")]
    Env {
        var: String,
        value: String,
        message: String,
    },
    #[error("{0}")]
    Invalid(String),
}

/// The keys of the config file, all optional. Each one is also `PADDOCK_<KEY>` (upper case).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    socket: Option<PathBuf>,
    data_dir: Option<PathBuf>,
    log: Option<PathBuf>,
    claude_bin: Option<PathBuf>,
    claude_home: Option<PathBuf>,
    transcripts: Option<TranscriptMode>,
    host_claude_home: Option<PathBuf>,
    max_processes: Option<u32>,
    spare_processes: Option<u32>,
    spare_keep_secs: Option<u64>,
    idle_timeout_secs: Option<u64>,
    shutdown_grace_ms: Option<u64>,
    interrupt_grace_ms: Option<u64>,
    claude_max_retries: Option<u32>,
    default_model: Option<String>,
    allowed_tools: Option<Vec<String>>,
    hub_buffer_frames: Option<usize>,
    hub_linger_secs: Option<u64>,
    client_queue: Option<usize>,
    disk_floor_mb: Option<u64>,
    max_spawn_depth: Option<u32>,
    tree_chats_per_minute: Option<u32>,
    tree_turns_per_minute: Option<u32>,
    self_mcp: Option<Flag>,
    self_mcp_write: Option<Flag>,
    self_mcp_projects: Option<Flag>,
    hooks_mcp: Option<Flag>,
    recovery_surface: Option<Flag>,
    recovery_autodrive: Option<Flag>,
    recovery_debounce_ms: Option<u64>,
    recovery_max_retries: Option<u32>,
    recovery_limbo_ms: Option<u64>,
    approval_timeout_secs: Option<u64>,
    usage_limit_resume: Option<Flag>,
    sweeper: Option<Flag>,
    drive_mode: Option<DriveMode>,
    commit_chats: Option<Flag>,
    git_author_name: Option<String>,
    git_author_email: Option<String>,
    sweeper_model: Option<String>,
    sweeper_min_interval_secs: Option<u64>,
    sweeper_sessions: Option<usize>,
    sweeper_budget_bytes: Option<usize>,
    curation_overview_max_tokens: Option<usize>,
    curation_changelog_max_tokens: Option<usize>,
    curation_claudemd_max_tokens: Option<usize>,
    mcp_bin: Option<PathBuf>,
    user_mcp_config: Option<PathBuf>,
    attachments_enabled: Option<Flag>,
    attachments_max_file_mb: Option<u64>,
    attachments_max_files: Option<usize>,
    attachments_types: Option<String>,
    browser_mcp: Option<Flag>,
    ws_listen: Option<String>,
    ws_auth: Option<ws::WsAuth>,
    ws_token_file: Option<PathBuf>,
    ws_trusted_header: Option<String>,
    mcp_listen: Option<String>,
    mcp_instance_id: Option<String>,
    mcp_trusted_proxies: Option<management::Listed>,
    mcp_clients: Option<std::collections::BTreeMap<String, management::ClientFile>>,
    net_header_timeout_ms: Option<u64>,
    net_waiting_per_peer: Option<usize>,
}

/// The largest per-tree cap a setting may give (`tree_chats_per_minute`,
/// `tree_turns_per_minute`): a window holds at most this many timestamps (`tree_caps.rs`).
pub const TREE_CAP_MAX: u32 = 10_000;

/// The resolved configuration the daemon runs with.
#[derive(Debug, Clone)]
pub struct Config {
    /// The configuration file read, if any (paddockd's own state: `confine.rs`).
    pub config_file: Option<PathBuf>,
    pub socket: PathBuf,
    pub data_dir: PathBuf,
    pub log: PathBuf,
    pub claude_bin: PathBuf,
    pub claude_home: PathBuf,
    /// Whose folder a project's transcripts live in (`chat_links`).
    pub transcripts: TranscriptMode,
    /// The user's own Claude home: the source for `paddock import`, and the transcripts'
    /// home under `transcripts = host`.
    pub host_claude_home: PathBuf,
    pub max_processes: u32,
    /// Started, idle claudes kept for the next new chat of recently used projects
    /// (`runner/spare.rs`); they count against `max_processes`. 0: none.
    pub spare_processes: u32,
    /// A project unused for this long keeps no spare.
    pub spare_keep: Duration,
    pub idle_timeout: Duration,
    pub shutdown_grace: Duration,
    pub interrupt_grace: Duration,
    /// How long a write to claude's stdin may make no progress before claude counts as not
    /// reading and is stopped. Not a file key (30 s; tests shorten it).
    pub stdin_stall: Duration,
    pub claude_max_retries: u32,
    pub default_model: Option<String>,
    pub allowed_tools: Vec<String>,
    pub hub_buffer_frames: usize,
    pub hub_linger: Duration,
    pub client_queue: usize,
    /// Free bytes below which a folder's disk counts as low ([`crate::disk`]).
    pub disk_floor_bytes: u64,
    /// Extra environment for every claude process. Not a file key: for embedding the
    /// daemon (tests point the fake CLI at a state folder with it).
    pub claude_env: Vec<(String, String)>,
    /// Once listening, point stderr at the log: the pipe of the client that started the
    /// daemon (which reads the reason of a failed start from it) closes, and a later panic
    /// lands in the log. Not a file key: the binary sets it; an embedding keeps its stderr.
    pub stderr_to_log: bool,
    /// The depth gate: a machine-started turn gets the self-management tools when its chat's
    /// depth is at most this (a project's own setting wins).
    pub max_spawn_depth: u32,
    /// The per-tree caps (`tree_caps.rs`): chats created, and machine-started turns, in a
    /// spawn tree within a minute before the next waits for a person (0: no cap; a
    /// project's own setting wins).
    pub tree_chats_per_minute: u32,
    pub tree_turns_per_minute: u32,
    /// The tool tiers (each needs the one before).
    pub self_mcp: bool,
    pub self_mcp_write: bool,
    pub self_mcp_projects: bool,
    /// The triggers tier (schedules and hooks), on top of the write tier.
    pub hooks_mcp: bool,
    /// The shortest `every` a schedule may have. Not a file key: 10 s, lowered by tests that
    /// cannot wait that long.
    pub min_trigger_interval: Duration,
    /// The binary agents run as `paddockd mcp`; `None` when it cannot be found (no tools).
    pub mcp_bin: Option<PathBuf>,
    /// The user's own MCP servers, read at start (`user_mcp.rs`).
    pub user_mcp: crate::user_mcp::UserMcp,
    /// The opt-in browser MCP server for every agent.
    pub browser_mcp: bool,
    /// What a message may attach (`attachments.rs`).
    pub attachments: crate::attachments::Limits,
    /// Recovery: say when a chat's claude died mid-turn (`chat:killed_task`) and take
    /// `chat:continue`.
    pub recovery_surface: bool,
    /// Recovery: continue a chat whose claude died, by itself.
    pub recovery_autodrive: bool,
    pub recovery_debounce: Duration,
    pub recovery_max_retries: u32,
    /// A running turn silent this long (no tool running, no approval or background task
    /// waited for) is stopped as hung; `None` is off.
    pub recovery_limbo: Option<Duration>,
    /// An unattended run's approval waits at most this long, then is denied; `None`: waits.
    pub approval_timeout: Option<Duration>,
    /// Continue a chat parked on a usage limit at its reset time.
    pub usage_limit_resume: bool,
    /// Commit projects' `.chats` in the data directory's repository (`autocommit.rs`).
    pub commit_chats: bool,
    /// Who the daemon's own commits are by (`git_author_*`); unset: git's configuration.
    pub git_identity: GitIdentity,
    /// How a chat's `claude` lives (a project's `drive_mode` wins).
    pub drive_mode: DriveMode,
    /// The sweeper (`sweeper/`).
    pub sweeper: bool,
    pub sweeper_model: String,
    pub sweeper_min_interval: Duration,
    pub sweeper_sessions: usize,
    pub sweeper_budget_bytes: usize,
    /// The curation budgets (`curation_*_max_tokens`); a project's `project.toml` may override.
    pub curation: curation::Budgets,
    /// The WebSocket listener (`websocket.rs`): the `ws_*` keys.
    pub ws: ws::WsConfig,
    /// The management endpoint (`management/`): `mcp_listen` and `[mcp_clients.NAME]`.
    pub management: management::ManagementConfig,
    /// Connections to both network endpoints before they show a credential (`admission.rs`):
    /// `net_header_timeout_ms`, `net_waiting_per_peer`.
    pub net: crate::admission::Limits,
}

/// Where the configuration comes from, besides the environment.
#[derive(Debug, Default, Clone)]
pub struct Sources {
    /// `--config FILE`.
    pub config_file: Option<PathBuf>,
    /// `--socket PATH`, which wins over both file and environment.
    pub socket: Option<PathBuf>,
}

impl Config {
    /// Defaults rooted at `data_dir`, with nothing read from the environment: the base for
    /// in-process tests. Even `host_claude_home` lies under `data_dir` here, so a test never
    /// touches the real `~/.claude`; [`Config::load`] sets the real default.
    pub fn for_data_dir(data_dir: &Path, socket: &Path) -> Self {
        Self {
            config_file: None,
            socket: socket.to_path_buf(),
            data_dir: data_dir.to_path_buf(),
            log: data_dir.join("paddockd.log"),
            claude_bin: PathBuf::from("claude"),
            claude_home: data_dir.join("claude-home"),
            transcripts: TranscriptMode::Own,
            host_claude_home: data_dir.join("host-claude"),
            max_processes: 8,
            spare_processes: 1,
            spare_keep: Duration::from_secs(1800),
            idle_timeout: Duration::from_secs(600),
            shutdown_grace: Duration::from_millis(5000),
            interrupt_grace: Duration::from_millis(5000),
            stdin_stall: STDIN_STALL,
            claude_max_retries: 3,
            default_model: None,
            allowed_tools: Vec::new(),
            hub_buffer_frames: 4000,
            hub_linger: Duration::from_secs(60),
            client_queue: 8192,
            disk_floor_bytes: 256 * 1024 * 1024,
            claude_env: Vec::new(),
            stderr_to_log: false,
            max_spawn_depth: 1,
            tree_chats_per_minute: 20,
            tree_turns_per_minute: 60,
            self_mcp: true,
            self_mcp_write: true,
            self_mcp_projects: false,
            hooks_mcp: false,
            min_trigger_interval: Duration::from_secs(10),
            recovery_surface: true,
            recovery_autodrive: false,
            recovery_debounce: Duration::from_millis(5000),
            recovery_max_retries: 1,
            recovery_limbo: Some(Duration::from_secs(300)),
            approval_timeout: None,
            usage_limit_resume: false,
            // Off for embedding (tests); `Config::load` turns it on unless configured off.
            commit_chats: false,
            git_identity: GitIdentity::default(),
            drive_mode: DriveMode::Session,
            sweeper: false,
            sweeper_model: "claude-haiku-4-5".into(),
            sweeper_min_interval: Duration::from_secs(300),
            sweeper_sessions: 6,
            sweeper_budget_bytes: 48_000,
            curation: curation::Budgets::default(),
            mcp_bin: None,
            user_mcp: crate::user_mcp::UserMcp::default(),
            browser_mcp: false,
            attachments: crate::attachments::Limits::default(),
            ws: ws::WsConfig::default(),
            management: management::ManagementConfig::default(),
            net: crate::admission::Limits::default(),
        }
    }

    /// Loads the file (if any) and the environment, and resolves defaults.
    pub fn load(sources: &Sources) -> Result<Self, ConfigError> {
        Self::load_with(sources, &|k| std::env::var(k).ok())
    }

    /// Where the log goes, as far as it can be told when the configuration itself is refused:
    /// `PADDOCK_LOG`, the file's `log` if the file can be read at all, else the default. For
    /// writing down why the daemon did not start.
    pub fn log_path_hint(sources: &Sources) -> PathBuf {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        if let Some(log) = env("PADDOCK_LOG") {
            return PathBuf::from(log);
        }
        let dirs = directories::BaseDirs::new();
        let file = sources
            .config_file
            .clone()
            .or_else(|| env("PADDOCK_CONFIG").map(PathBuf::from))
            .or_else(|| {
                dirs.as_ref()
                    .map(|d| d.config_dir().join("paddock").join("config.toml"))
            });
        let from_file = file
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|text| text.parse::<toml::Table>().ok())
            .and_then(|t| t.get("log")?.as_str().map(PathBuf::from));
        if let Some(log) = from_file {
            return log;
        }
        dirs.as_ref()
            .and_then(|d| d.state_dir())
            .map(|s| s.join("paddock").join("paddockd.log"))
            .unwrap_or_else(|| {
                env("PADDOCK_DATA_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| PathBuf::from("/tmp/paddock-data"))
                    .join("paddockd.log")
            })
    }

    /// Checks the values that would make the daemon misbehave rather than fail.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.max_spawn_depth > 8 {
            return Err(ConfigError::Invalid(format!(
                "max_spawn_depth is {}; it must be between 0 and 8",
                self.max_spawn_depth
            )));
        }
        for (key, n) in [
            ("tree_chats_per_minute", self.tree_chats_per_minute),
            ("tree_turns_per_minute", self.tree_turns_per_minute),
        ] {
            if n > TREE_CAP_MAX {
                return Err(ConfigError::Invalid(format!(
                    "{key} is {n}; it must be between 0 (no cap) and {}",
                    TREE_CAP_MAX
                )));
            }
        }
        for (key, tokens) in [
            (
                "curation_overview_max_tokens",
                self.curation.overview_tokens,
            ),
            (
                "curation_changelog_max_tokens",
                self.curation.changelog_tokens,
            ),
            (
                "curation_claudemd_max_tokens",
                self.curation.claudemd_tokens,
            ),
        ] {
            curation::check(key, tokens).map_err(ConfigError::Invalid)?;
        }
        if self.max_processes == 0 {
            return Err(ConfigError::Invalid(
                "max_processes must be at least 1".into(),
            ));
        }
        if self.hub_buffer_frames == 0 {
            return Err(ConfigError::Invalid(
                "hub_buffer_frames must be at least 1".into(),
            ));
        }
        if self.client_queue < self.hub_buffer_frames + 64 {
            return Err(ConfigError::Invalid(format!(
                "client_queue ({}) must exceed hub_buffer_frames ({}) by at least 64, so a full replay fits",
                self.client_queue, self.hub_buffer_frames
            )));
        }
        // One home for both would make paddockd's own chats and the user's terminal history
        // the same folder: import would offer paddockd's chats, and host mode would link a
        // transcripts folder to itself.
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        if canon(&self.claude_home) == canon(&self.host_claude_home) {
            return Err(ConfigError::Invalid(format!(
                "claude_home and host_claude_home are both {}: paddockd needs a Claude home of its own, apart from the one terminal claude uses",
                self.claude_home.display()
            )));
        }
        self.ws
            .check()
            .map_err(|e| ConfigError::Invalid(e.to_string()))?;
        self.management
            .check()
            .map_err(|e| ConfigError::Invalid(e.to_string()))?;
        Ok(())
    }
}

/// How a chat's `claude` process lives (reference §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DriveMode {
    /// One live process per chat, kept between turns (until idle or reaped).
    #[default]
    Session,
    /// One process per turn, resumed by session id, stopped when the turn ends.
    Batch,
}

impl std::str::FromStr for DriveMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "session" => Ok(Self::Session),
            "batch" => Ok(Self::Batch),
            _ => Err(format!("expected `session` or `batch`, not {s:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::collections::HashMap;

    fn load(file: Option<&Path>, vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let sources = Sources {
            config_file: file.map(Path::to_path_buf),
            socket: None,
        };
        Config::load_with(&sources, &|k| map.get(k).cloned())
    }

    #[test]
    fn env_wins_over_file_per_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "max_processes = 3\nidle_timeout_secs = 9\n").unwrap();
        let cfg = load(
            Some(&file),
            &[("PADDOCK_MAX_PROCESSES", "5"), ("PADDOCK_DATA_DIR", "/d")],
        )
        .unwrap();
        assert_eq!(cfg.max_processes, 5);
        assert_eq!(cfg.idle_timeout, Duration::from_secs(9));
        assert_eq!(cfg.data_dir, PathBuf::from("/d"));
        assert_eq!(cfg.claude_home, PathBuf::from("/d/claude-home"));
    }

    #[test]
    fn a_silent_turn_is_bounded_by_default_and_0_turns_the_bound_off() {
        let cfg = load(None, &[]).unwrap();
        assert_eq!(cfg.recovery_limbo, Some(Duration::from_secs(300)));
        let cfg = load(None, &[("PADDOCK_RECOVERY_LIMBO_MS", "0")]).unwrap();
        assert_eq!(cfg.recovery_limbo, None);
        let cfg = load(None, &[("PADDOCK_RECOVERY_LIMBO_MS", "90000")]).unwrap();
        assert_eq!(cfg.recovery_limbo, Some(Duration::from_secs(90)));
    }

    #[test]
    fn explicit_missing_file_is_an_error() {
        let err = load(Some(Path::new("/nonexistent/paddock.toml")), &[]).unwrap_err();
        assert!(err.to_string().contains("does not exist"), "{err}");
        let err = load(None, &[("PADDOCK_CONFIG", "/nonexistent/x.toml")]).unwrap_err();
        assert!(err.to_string().contains("PADDOCK_CONFIG"), "{err}");
    }

    #[test]
    fn unknown_key_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "max_procesess = 3\n").unwrap();
        let err = load(Some(&file), &[]).unwrap_err();
        assert!(err.to_string().contains("max_procesess"), "{err}");
    }

    #[test]
    fn bad_env_value_names_the_variable() {
        let err = load(None, &[("PADDOCK_MAX_PROCESSES", "many")]).unwrap_err();
        assert!(err.to_string().contains("PADDOCK_MAX_PROCESSES"), "{err}");
    }

    #[test]
    fn booleans_read_the_same_words_in_the_environment_and_the_file() {
        // The words people write: 1/0, yes/no, on/off, in any case (issue 14).
        for (word, want) in [("1", true), ("0", false), ("Yes", true), ("OFF", false)] {
            let cfg = load(
                None,
                &[("PADDOCK_SELF_MCP", word), ("PADDOCK_SWEEPER", word)],
            )
            .unwrap();
            assert_eq!((cfg.self_mcp, cfg.sweeper), (want, want), "{word}");
        }
        let cfg = load(None, &[("PADDOCK_DANGEROUSLY_ALLOW_OPEN", "on")]).unwrap();
        assert!(cfg.ws.dangerously_allow_open);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(
            &file,
            "self_mcp = \"no\"\nsweeper = 0\nbrowser_mcp = \"On\"\ncommit_chats = false\n",
        )
        .unwrap();
        let cfg = load(Some(&file), &[]).unwrap();
        assert!(!cfg.self_mcp && !cfg.sweeper && cfg.browser_mcp && !cfg.commit_chats);
        let err = load(None, &[("PADDOCK_SELF_MCP", "maybe")])
            .unwrap_err()
            .to_string();
        for want in ["PADDOCK_SELF_MCP", "maybe", "yes or no"] {
            assert!(err.contains(want), "{want} missing from: {err}");
        }
        std::fs::write(&file, "hooks_mcp = \"maybe\"\n").unwrap();
        let err = load(Some(&file), &[]).unwrap_err().to_string();
        for want in ["hooks_mcp", "maybe", "yes or no"] {
            assert!(err.contains(want), "{want} missing from: {err}");
        }
    }

    #[test]
    fn a_bad_number_names_the_key_the_value_and_the_unit() {
        let err = load(None, &[("PADDOCK_IDLE_TIMEOUT_SECS", "10m")])
            .unwrap_err()
            .to_string();
        for want in [
            "PADDOCK_IDLE_TIMEOUT_SECS",
            "10m",
            "whole number of seconds",
        ] {
            assert!(err.contains(want), "{want} missing from: {err}");
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "# limits\nmax_processes = \"many\"\n").unwrap();
        let err = load(Some(&file), &[]).unwrap_err().to_string();
        for want in ["line 2", "max_processes", "many", "whole number"] {
            assert!(err.contains(want), "{want} missing from: {err}");
        }
    }

    #[test]
    fn allowed_tools_from_env_is_a_comma_list() {
        let cfg = load(None, &[("PADDOCK_ALLOWED_TOOLS", "Bash, Edit,,")]).unwrap();
        assert_eq!(cfg.allowed_tools, vec!["Bash", "Edit"]);
    }

    #[test]
    fn transcripts_defaults_to_own_and_takes_host() {
        assert_eq!(load(None, &[]).unwrap().transcripts, TranscriptMode::Own);
        let cfg = load(None, &[("PADDOCK_TRANSCRIPTS", "host")]).unwrap();
        assert_eq!(cfg.transcripts, TranscriptMode::Host);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "transcripts = \"host\"\n").unwrap();
        assert_eq!(
            load(Some(&file), &[]).unwrap().transcripts,
            TranscriptMode::Host
        );
        // The environment wins over the file.
        let cfg = load(Some(&file), &[("PADDOCK_TRANSCRIPTS", "own")]).unwrap();
        assert_eq!(cfg.transcripts, TranscriptMode::Own);
    }

    #[test]
    fn bad_transcripts_value_names_the_allowed_values() {
        let err = load(None, &[("PADDOCK_TRANSCRIPTS", "shared")])
            .unwrap_err()
            .to_string();
        for want in ["PADDOCK_TRANSCRIPTS", "shared", "own", "host"] {
            assert!(err.contains(want), "{want} missing from: {err}");
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "transcripts = \"Host\"\n").unwrap();
        let err = load(Some(&file), &[]).unwrap_err().to_string();
        for want in ["Host", "own", "host"] {
            assert!(err.contains(want), "{want} missing from: {err}");
        }
    }

    #[test]
    fn host_claude_home_defaults_to_the_users_and_can_be_set() {
        let cfg = load(None, &[("PADDOCK_DATA_DIR", "/d")]).unwrap();
        if let Some(dirs) = directories::BaseDirs::new() {
            assert_eq!(cfg.host_claude_home, dirs.home_dir().join(".claude"));
        }
        let cfg = load(None, &[("PADDOCK_HOST_CLAUDE_HOME", "/elsewhere/.claude")]).unwrap();
        assert_eq!(cfg.host_claude_home, PathBuf::from("/elsewhere/.claude"));
        // Tests build on for_data_dir, which must never point at the real ~/.claude.
        let cfg = Config::for_data_dir(Path::new("/d"), Path::new("/s"));
        assert_eq!(cfg.host_claude_home, PathBuf::from("/d/host-claude"));
        assert_eq!(cfg.transcripts, TranscriptMode::Own);
    }

    #[test]
    fn one_home_for_both_is_refused() {
        let err = load(
            None,
            &[
                ("PADDOCK_CLAUDE_HOME", "/x/home"),
                ("PADDOCK_HOST_CLAUDE_HOME", "/x/home"),
            ],
        )
        .unwrap_err();
        assert!(err.to_string().contains("host_claude_home"), "{err}");
    }

    #[test]
    fn websocket_keys_and_bind_safety() {
        use ws::WsAuth;
        let cfg = load(None, &[]).unwrap();
        assert_eq!(cfg.ws.listen, None);
        assert_eq!(cfg.ws.auth, WsAuth::Token);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(
            &file,
            "ws_listen = \"127.0.0.1:7777\"\nws_auth = \"trusted-header\"\nws_trusted_header = \"X-User\"\n",
        )
        .unwrap();
        let cfg = load(Some(&file), &[("PADDOCK_WS_AUTH", "none")]).unwrap();
        assert_eq!(cfg.ws.listen, Some("127.0.0.1:7777".parse().unwrap()));
        assert_eq!(cfg.ws.auth, WsAuth::None);
        assert_eq!(cfg.ws.trusted_header, "X-User");
        // The environment can turn off what the file turned on.
        let cfg = load(Some(&file), &[("PADDOCK_WS_LISTEN", "off")]).unwrap();
        assert_eq!(cfg.ws.listen, None);
        let err = load(None, &[("PADDOCK_WS_LISTEN", "localhost")]).unwrap_err();
        assert!(err.to_string().contains("127.0.0.1:7777"), "{err}");
        let err = load(None, &[("PADDOCK_WS_AUTH", "open")]).unwrap_err();
        assert!(err.to_string().contains("trusted-header"), "{err}");
        // An open non-loopback bind is refused, naming the fixes, unless the danger is accepted.
        let open = [
            ("PADDOCK_WS_LISTEN", "0.0.0.0:7777"),
            ("PADDOCK_WS_AUTH", "none"),
        ];
        let err = load(None, &open).unwrap_err().to_string();
        for want in [
            "ws_auth = token",
            "127.0.0.1:7777",
            "PADDOCK_DANGEROUSLY_ALLOW_OPEN=1",
        ] {
            assert!(err.contains(want), "{want} missing from: {err}");
        }
        let mut allowed = open.to_vec();
        allowed.push(("PADDOCK_DANGEROUSLY_ALLOW_OPEN", "1"));
        assert!(load(None, &allowed).unwrap().ws.dangerously_allow_open);
        allowed.pop();
        allowed.push(("PADDOCK_DANGEROUSLY_ALLOW_OPEN", "maybe"));
        let err = load(None, &allowed).unwrap_err().to_string();
        assert!(err.contains("PADDOCK_DANGEROUSLY_ALLOW_OPEN"), "{err}");
        // Token auth may listen anywhere.
        let cfg = load(None, &[("PADDOCK_WS_LISTEN", "0.0.0.0:7777")]).unwrap();
        assert_eq!(cfg.ws.auth, WsAuth::Token);
    }

    #[test]
    fn network_admission_keys_from_the_file_and_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.toml");
        std::fs::write(
            &file,
            "net_header_timeout_ms = 2500\nnet_waiting_per_peer = 3\n",
        )
        .unwrap();
        let cfg = load(Some(&file), &[("PADDOCK_NET_WAITING_PER_PEER", "5")]).unwrap();
        assert_eq!(cfg.net.header_timeout, Duration::from_millis(2500));
        assert_eq!(cfg.net.per_peer, 5);
        let cfg = load(None, &[]).unwrap();
        assert_eq!(cfg.net, crate::admission::Limits::default());
        for zero in [
            "PADDOCK_NET_HEADER_TIMEOUT_MS",
            "PADDOCK_NET_WAITING_PER_PEER",
        ] {
            let err = load(None, &[(zero, "0")]).unwrap_err().to_string();
            assert!(err.contains("is the default"), "{zero}: {err}");
        }
    }

    #[test]
    fn management_keys_from_the_file_and_the_environment() {
        let cfg = load(None, &[]).unwrap();
        assert_eq!(cfg.management.listen, None);
        assert!(cfg.management.clients.is_empty());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(
            &file,
            "mcp_listen = \"127.0.0.1:7778\"\n[mcp_clients.laptop]\ntoken_file = \"laptop.token\"\n\
             [mcp_clients.ci]\ntoken = \"0123456789abcdef\"\n",
        )
        .unwrap();
        let cfg = load(Some(&file), &[]).unwrap();
        assert_eq!(
            cfg.management.listen,
            Some("127.0.0.1:7778".parse().unwrap())
        );
        use management::ClientToken;
        assert_eq!(
            cfg.management.clients["laptop"],
            ClientToken::File(dir.path().join("laptop.token"))
        );
        assert_eq!(
            cfg.management.clients["ci"],
            ClientToken::Inline("0123456789abcdef".into())
        );
        assert!(
            !format!("{cfg:?}").contains("0123456789abcdef"),
            "--check-config never prints a token"
        );
        let cfg = load(Some(&file), &[("PADDOCK_MCP_LISTEN", "off")]).unwrap();
        assert_eq!(cfg.management.listen, None);
        assert!(cfg.management.allow.is_empty() && cfg.management.trusted_proxies.is_none());
        std::fs::write(
            &file,
            "mcp_instance_id = \"shop\"\nmcp_trusted_proxies = [\"10.0.0.0/8\"]\n\
             [mcp_clients.ci]\ntoken = \"0123456789abcdef\"\nallow = [\"list_*\", \"create_chat\"]\n",
        )
        .unwrap();
        let cfg = load(
            Some(&file),
            &[("PADDOCK_MCP_TRUSTED_PROXIES", "::1, 10.0.0.1")],
        )
        .unwrap();
        assert_eq!(cfg.management.instance_id.as_deref(), Some("shop"));
        assert_eq!(cfg.management.allow["ci"], ["list_*", "create_chat"]);
        assert!(cfg.management.scopes["ci"].reaches("web"));
        assert_eq!(cfg.management.trusted_proxies.map(|t| t.len()), Some(2));
        std::fs::write(
            &file,
            "[mcp_clients.ci]\ntoken = \"0123456789abcdef\"\nallow = [\"rm_rf\"]\n",
        )
        .unwrap();
        let err = load(Some(&file), &[]).unwrap_err().to_string();
        assert!(
            err.contains("mcp_clients.ci.allow") && err.contains("rm_rf"),
            "{err}"
        );
        let err = load(None, &[("PADDOCK_MCP_TRUSTED_PROXIES", "proxy.lan")]).unwrap_err();
        assert!(err.to_string().contains("proxy.lan"), "{err}");
        let err = load(None, &[("PADDOCK_MCP_LISTEN", "localhost")]).unwrap_err();
        assert!(err.to_string().contains("127.0.0.1:7778"), "{err}");
        // A listener without clients, a short token, an unknown key: refused, named.
        let err = load(None, &[("PADDOCK_MCP_LISTEN", "0.0.0.0:7778")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("[mcp_clients.laptop]"), "{err}");
        std::fs::write(&file, "[mcp_clients.ci]\ntoken = \"short\"\n").unwrap();
        let err = load(Some(&file), &[]).unwrap_err().to_string();
        assert!(err.contains("at least 16"), "{err}");
        std::fs::write(&file, "[mcp_clients.ci]\ntokn = \"0123456789abcdef\"\n").unwrap();
        let err = load(Some(&file), &[]).unwrap_err().to_string();
        assert!(err.contains("tokn"), "{err}");
        assert_eq!(
            KEYS.iter()
                .find(|k| k.key == "mcp_clients.NAME.token_file")
                .map(KeyDoc::env_name)
                .as_deref(),
            Some("(config file only)")
        );
    }

    #[test]
    fn the_parity_keys_default_and_take_values() {
        let cfg = load(None, &[]).unwrap();
        assert!(cfg.attachments.enabled);
        assert!(cfg.recovery_surface);
        assert_eq!(cfg.git_identity, GitIdentity::default());
        assert_eq!(
            (cfg.sweeper_sessions, cfg.sweeper_budget_bytes),
            (6, 48_000)
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(
            &file,
            "attachments_enabled = false\nrecovery_surface = false\ngit_author_name = \"Paddock Bot\"\n",
        )
        .unwrap();
        let cfg = load(
            Some(&file),
            &[("PADDOCK_GIT_AUTHOR_EMAIL", " bot@example.com ")],
        )
        .unwrap();
        assert!(!cfg.attachments.enabled);
        assert!(!cfg.recovery_surface);
        assert_eq!(cfg.git_identity.name.as_deref(), Some("Paddock Bot"));
        assert_eq!(cfg.git_identity.email.as_deref(), Some("bot@example.com"));
        // The environment wins, and a blank value is unset.
        let cfg = load(Some(&file), &[("PADDOCK_GIT_AUTHOR_NAME", "  ")]).unwrap();
        assert_eq!(cfg.git_identity.name, None);
        let cfg = load(Some(&file), &[("PADDOCK_ATTACHMENTS_ENABLED", "true")]).unwrap();
        assert!(cfg.attachments.enabled);
        let err = load(None, &[("PADDOCK_RECOVERY_SURFACE", "maybe")]).unwrap_err();
        assert!(
            err.to_string().contains("PADDOCK_RECOVERY_SURFACE"),
            "{err}"
        );
    }

    #[test]
    fn every_key_is_documented() {
        let documented: Vec<&str> = KEYS.iter().map(|k| k.key).collect();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        for key in &documented {
            std::fs::write(&file, format!("{key} = 1\n")).unwrap();
            let err = load(Some(&file), &[]).err().map(|e| e.to_string());
            assert!(
                !err.as_deref().unwrap_or("").contains("unknown field"),
                "{key} is documented but not a config key"
            );
        }
    }
}
