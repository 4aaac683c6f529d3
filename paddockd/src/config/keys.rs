//! Every configuration key, documented once: its name, environment variable, default and
//! meaning, for `paddockd --help`, the man page and the configuration reference.

/// One documented configuration key: its name, env variable, default and meaning.
pub struct KeyDoc {
    pub key: &'static str,
    pub default: &'static str,
    pub about: &'static str,
}

impl KeyDoc {
    /// Its environment variable; a key inside a table (`mcp_clients.NAME.token_file`) has
    /// none.
    pub fn env_name(&self) -> String {
        if self.key.contains('.') {
            return "(config file only)".into();
        }
        format!("PADDOCK_{}", self.key.to_ascii_uppercase())
    }
}

/// Every key, for `--help`, the man page and the config reference.
pub const KEYS: &[KeyDoc] = &[
    KeyDoc {
        key: "socket",
        default: "$XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock",
        about: "the Unix socket clients connect to",
    },
    KeyDoc {
        key: "data_dir",
        default: "$XDG_DATA_HOME/paddock",
        about: "projects, sidecar state and the daemon's own Claude home",
    },
    KeyDoc {
        key: "log",
        default: "$XDG_STATE_HOME/paddock/paddockd.log",
        about: "the log file (0600); RUST_LOG sets the level",
    },
    KeyDoc {
        key: "claude_bin",
        default: "claude on PATH",
        about: "the Claude Code CLI to run",
    },
    KeyDoc {
        key: "claude_home",
        default: "<data_dir>/claude-home",
        about: "CLAUDE_CONFIG_DIR for the agents; never the user's ~/.claude",
    },
    KeyDoc {
        key: "transcripts",
        default: "own",
        about: "where a project's transcripts live: own (its .chats folder) or host (host_claude_home, shared with terminal claude)",
    },
    KeyDoc {
        key: "host_claude_home",
        default: "$HOME/.claude",
        about: "your own Claude home, where terminal claude keeps its history (read by `paddock import`; written only with transcripts = host)",
    },
    KeyDoc {
        key: "max_processes",
        default: "8",
        about: "most claude processes alive at once; further turns wait in a queue",
    },
    KeyDoc {
        key: "spare_processes",
        default: "1",
        about: "started, idle claudes kept ready for the next new chat of the projects used last (counted in max_processes, the first stopped when a turn needs a slot); a project whose chats work in worktrees gets its spare in a spare worktree made ahead at HEAD; 0 keeps none",
    },
    KeyDoc {
        key: "spare_keep_secs",
        default: "1800",
        about: "a project unused for this long keeps no spare claude",
    },
    KeyDoc {
        key: "idle_timeout_secs",
        default: "600",
        about: "an idle chat's claude process is stopped after this long (resumed on the next turn)",
    },
    KeyDoc {
        key: "shutdown_grace_ms",
        default: "5000",
        about: "on shutdown, how long running turns get to stop before their processes are killed",
    },
    KeyDoc {
        key: "interrupt_grace_ms",
        default: "5000",
        about: "how long claude gets to end a turn after an interrupt before it is killed",
    },
    KeyDoc {
        key: "claude_max_retries",
        default: "3",
        about: "CLAUDE_CODE_MAX_RETRIES for the agents (the CLI retries some errors for minutes otherwise)",
    },
    KeyDoc {
        key: "default_model",
        default: "the CLI's default",
        about: "the model for chats that do not choose one",
    },
    KeyDoc {
        key: "allowed_tools",
        default: "none",
        about: "tools every project's agents may use without asking (comma-separated in the environment); a project's project.toml adds more",
    },
    KeyDoc {
        key: "hub_buffer_frames",
        default: "4000",
        about: "frames kept per running turn for replay to reconnecting clients",
    },
    KeyDoc {
        key: "hub_linger_secs",
        default: "60",
        about: "how long a finished turn's frames stay replayable",
    },
    KeyDoc {
        key: "disk_floor_mb",
        default: "256",
        about: "free space (MB) below which the disk holding the data folder or the Claude home counts as low: `paddock status`, `paddock doctor` and the TUI header say so, and a turn whose transcript was not saved is reported",
    },
    KeyDoc {
        key: "client_queue",
        default: "8192",
        about: "frames queued per client before it is treated as slow and sent chat:resync",
    },
    KeyDoc {
        key: "max_spawn_depth",
        default: "1",
        about: "spawn depth (0-8) up to which a machine-started turn gets the self-management tools; a turn a chat's message started runs at its sender's depth; a project's max_spawn_depth wins",
    },
    KeyDoc {
        key: "tree_chats_per_minute",
        default: "20",
        about: "chats a spawn tree may create in a minute (0-10000, 0: no cap); the next waits in the approvals inbox until a person allows or denies it; a project's tree_chats_per_minute wins",
    },
    KeyDoc {
        key: "tree_turns_per_minute",
        default: "60",
        about: "machine-started turns (spawned, messaged, hooks a chat's turn set off) a spawn tree may start in a minute (0-10000, 0: no cap); the next waits in the approvals inbox; a project's tree_turns_per_minute wins",
    },
    KeyDoc {
        key: "self_mcp",
        default: "true",
        about: "give agents the read tier of the paddock_manage tools (list_projects, list_chats, read_chat)",
    },
    KeyDoc {
        key: "self_mcp_write",
        default: "true",
        about: "also the write tier (create_chat, fork_chat, send_message, archive_chat, unarchive_chat); implies self_mcp",
    },
    KeyDoc {
        key: "self_mcp_projects",
        default: "false",
        about: "also create_project; needs self_mcp_write",
    },
    KeyDoc {
        key: "hooks_mcp",
        default: "false",
        about: "also the trigger tools (list_triggers, set_trigger, remove_trigger, run_trigger): agents can schedule and hook chats; needs self_mcp_write",
    },
    KeyDoc {
        key: "recovery_surface",
        default: "true",
        about: "tell clients when a chat's claude died mid-turn (chat:killed_task) and take chat:continue to pick it up; off: neither (autodrive still continues by itself when on)",
    },
    KeyDoc {
        key: "recovery_autodrive",
        default: "false",
        about: "continue a chat by itself when its claude died mid-turn (after recovery_debounce_ms, at most recovery_max_retries times in a row)",
    },
    KeyDoc {
        key: "recovery_debounce_ms",
        default: "5000",
        about: "how long autodrive waits before continuing a chat",
    },
    KeyDoc {
        key: "recovery_max_retries",
        default: "1",
        about: "how many times in a row autodrive continues one chat",
    },
    KeyDoc {
        key: "recovery_limbo_ms",
        default: "300000 (5 min)",
        about: "a running turn with no output from claude for this long is stopped as hung (then shown interrupted, to continue); a running tool, an approval wait or a background task is not silence; 0: never",
    },
    KeyDoc {
        key: "approval_timeout_secs",
        default: "0 (wait)",
        about: "an unattended run's tool call waiting in the approvals inbox longer than this is denied; a trigger's approval_timeout_secs wins",
    },
    KeyDoc {
        key: "usage_limit_resume",
        default: "false",
        about: "continue a chat parked on a usage limit by itself at the reset time the CLI named",
    },
    KeyDoc {
        key: "sweeper",
        default: "true",
        about: "after a successful turn of yours, curate the project's OVERVIEW.md, CHANGELOG.md and the managed section of CLAUDE.md",
    },
    KeyDoc {
        key: "drive_mode",
        default: "session",
        about: "how claude runs a chat: session (one live process per chat, kept between turns) or batch (one process per turn, resumed by id); a project's project.toml may say otherwise, and one-shot triggers always use batch",
    },
    KeyDoc {
        key: "commit_chats",
        default: "true",
        about: "when the data directory is a git repository of its own, commit each project's .chats (its transcripts) a moment after its turns end",
    },
    KeyDoc {
        key: "git_author_name",
        default: "git's own user.name",
        about: "the name the daemon's commits (git:commit, the curated files, the chats) are authored and committed by (GIT_AUTHOR_NAME and GIT_COMMITTER_NAME)",
    },
    KeyDoc {
        key: "git_author_email",
        default: "git's own user.email",
        about: "the email the daemon's commits are authored and committed by (GIT_AUTHOR_EMAIL and GIT_COMMITTER_EMAIL)",
    },
    KeyDoc {
        key: "sweeper_model",
        default: "claude-haiku-4-5",
        about: "the model the sweeper runs",
    },
    KeyDoc {
        key: "sweeper_min_interval_secs",
        default: "300",
        about: "the least time between two sweeps of one project",
    },
    KeyDoc {
        key: "sweeper_sessions",
        default: "6",
        about: "how many of the newest chats the sweeper's digest covers (the latest 40 messages of each)",
    },
    KeyDoc {
        key: "sweeper_budget_bytes",
        default: "48000",
        about: "the most transcript text the sweeper's digest holds, a hard bound (over it, older chats and earlier messages go first)",
    },
    KeyDoc {
        key: "curation_overview_max_tokens",
        default: "2000",
        about: "the sweeper's budget for OVERVIEW.md, in tokens (4 bytes each; over it, the head is kept); a project's project.toml may set its own",
    },
    KeyDoc {
        key: "curation_changelog_max_tokens",
        default: "8000",
        about: "the sweeper's budget for CHANGELOG.md, in tokens (4 bytes each; over it, the oldest entries go); a project's project.toml may set its own",
    },
    KeyDoc {
        key: "curation_claudemd_max_tokens",
        default: "6000",
        about: "the sweeper's budget for the curated section of CLAUDE.md, in tokens (4 bytes each; over it, the head is kept); a project's project.toml may set its own",
    },
    KeyDoc {
        key: "mcp_bin",
        default: "this paddockd",
        about: "the paddockd binary agents run as their MCP bridge (`paddockd mcp`)",
    },
    KeyDoc {
        key: "attachments_enabled",
        default: "true",
        about: "whether a message may attach files at all (off: chat:send with attachments is refused; an agent's send_file still works)",
    },
    KeyDoc {
        key: "attachments_max_file_mb",
        default: "25",
        about: "the largest file a message may attach, in MB",
    },
    KeyDoc {
        key: "attachments_max_files",
        default: "10",
        about: "how many files one message may attach",
    },
    KeyDoc {
        key: "attachments_types",
        default: "*",
        about: "what may be attached: * for anything, or kinds and extensions (image, pdf, text, code, markdown, html, file, .csv)",
    },
    KeyDoc {
        key: "user_mcp_config",
        default: "$HOME/.claude.json",
        about: "your Claude configuration, read once at start: its MCP servers (top-level, and those registered for a project's directory) are passed to that project's agents, their tools allowed (off: none)",
    },
    KeyDoc {
        key: "browser_mcp",
        default: "false",
        about: "give every agent a headless browser: Playwright's MCP server (npx @playwright/mcp), its tools allowed",
    },
    KeyDoc {
        key: "ws_listen",
        default: "off",
        about: "also serve the protocol over WebSocket on this address and port (e.g. 127.0.0.1:7777; off: not at all); a non-loopback address needs ws_auth = token unless PADDOCK_DANGEROUSLY_ALLOW_OPEN=1",
    },
    KeyDoc {
        key: "ws_auth",
        default: "token",
        about: "how WebSocket clients authenticate: token (Authorization: Bearer, or ?token=), trusted-header (an authenticating reverse proxy's ws_trusted_header names the user), or none",
    },
    KeyDoc {
        key: "ws_token_file",
        default: "<data_dir>/ws-token, made (0600) at the first start",
        about: "the file holding the WebSocket token (at least 16 characters)",
    },
    KeyDoc {
        key: "ws_trusted_header",
        default: "X-Forwarded-User",
        about: "with ws_auth = trusted-header, the header your proxy sets to the signed-in user",
    },
    KeyDoc {
        key: "mcp_listen",
        default: "off",
        about: "serve the management MCP endpoint (Streamable HTTP, POST /mcp) on this address and port for external clients (e.g. 127.0.0.1:7778; off: not at all); every request needs a client's token, so it needs at least one [mcp_clients.NAME]",
    },
    KeyDoc {
        key: "mcp_clients.NAME.token_file",
        default: "none",
        about: "a management client called NAME (letters, digits, - and _) and the file holding its token (at least 16 characters), read at start; ~/ is your home, a relative path is next to the config file",
    },
    KeyDoc {
        key: "mcp_clients.NAME.token",
        default: "none",
        about: "instead of token_file, NAME's token in the config file itself (at least 16 characters)",
    },
    KeyDoc {
        key: "mcp_clients.NAME.allow",
        default: "[\"list_*\", \"read_chat\"]",
        about: "the management tools NAME may call: tool names, \"*\" for all, or a prefix ending in * (the default is the read-only ones); tools/list shows NAME only these",
    },
    KeyDoc {
        key: "mcp_clients.NAME.deny",
        default: "[]",
        about: "management tools NAME may not call whatever allow says (names, \"*\", or a prefix ending in *); tools/list leaves them out",
    },
    KeyDoc {
        key: "mcp_clients.NAME.projects",
        default: "[\"*\"]",
        about: "the project slugs NAME may reach (\"\" is the root workspace, \"*\" every project, [] none): list_projects and list_chats show only these, and a tool naming another project or its chat is refused",
    },
    KeyDoc {
        key: "mcp_clients.NAME.deny_projects",
        default: "[]",
        about: "project slugs NAME may not reach, whatever projects says",
    },
    KeyDoc {
        key: "mcp_trusted_proxies",
        default: "127.0.0.1/8, ::1",
        about: "the addresses (or CIDR blocks; a TOML list or comma-separated) of TLS-terminating proxies in front of the management endpoint: their X-Forwarded-Proto: https lets a request from another machine in (plaintext from another machine is refused), and their X-Forwarded-For names the client in the log",
    },
    KeyDoc {
        key: "net_header_timeout_ms",
        default: "10000",
        about: "how long a new connection to ws_listen or mcp_listen has to send its request head (the WebSocket upgrade, a management request) before it is closed",
    },
    KeyDoc {
        key: "net_waiting_per_peer",
        default: "16",
        about: "connections one address (an IPv6 /64) may have waiting for their request head on ws_listen or mcp_listen; another one closes its oldest (256 of all peers together, the same way)",
    },
    KeyDoc {
        key: "mcp_instance_id",
        default: "generated",
        about: "this daemon's id for management clients (in initialize's serverInfo; a token pdk_ID_SECRET works only at instance ID); default: a random one made at the first start and kept in <data>/instance-id",
    },
];
