//! `paddockd`'s command line.

use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "paddockd",
    version,
    about = "The Paddock daemon: runs Claude Code agent chats per project and streams them to clients",
    long_about = "paddockd owns projects, chats and their provenance, streams every turn live to any number of \
attached clients (with replay on reconnect), and drives a bounded pool of real `claude` processes.\n\n\
You rarely start it yourself: every `paddock` command starts it when nothing answers on the socket. \
It runs in the foreground until SIGTERM or SIGINT (or `paddock daemon stop`), then interrupts running \
turns, stops every claude process and removes its socket.",
    after_long_help = after_help(),
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true
)]
pub struct Args {
    /// Without a subcommand paddockd runs the daemon.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The Unix socket to listen on [env: PADDOCK_SOCKET]
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// The config file; when named it must exist [env: PADDOCK_CONFIG]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Accepted for symmetry with `paddock daemon start --foreground`: paddockd always runs
    /// in the foreground.
    #[arg(long, hide = true)]
    pub foreground: bool,
    /// Log to stderr instead of the log file.
    #[arg(long)]
    pub log_stderr: bool,
    /// Print the resolved configuration and exit.
    #[arg(long)]
    pub check_config: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The MCP bridge paddockd gives its agents; not for people.
    #[command(
        hide = true,
        long_about = "The MCP bridge paddockd gives its agents; not for people.\n\n\
paddockd names this command in the --mcp-config of every `claude` it runs. It speaks MCP \
(newline-delimited JSON-RPC) on stdin and stdout and forwards tools/list and tools/call to the \
daemon as agent:tools and agent:call, with the chat's token from PADDOCK_AGENT_TOKEN (never on \
the command line). It exits 0 at the end of stdin or on SIGINT/SIGTERM, and 2 when the token or \
the socket is missing."
    )]
    Mcp(McpArgs),
    /// What a daemon started now would see; for `paddock doctor` when none is running.
    #[command(
        hide = true,
        long_about = "What a daemon started now would see, for `paddock doctor` when none is running: \
the configuration is loaded as a start would load it (a value it would refuse is the error, on \
stderr, exit 1), then the claude binary is resolved and asked its version, and the result is \
printed as one line of JSON (the `daemon:info` reply's object, without a pid)."
    )]
    Info {
        /// The socket a daemon would listen on [env: PADDOCK_SOCKET]
        #[arg(long, value_name = "PATH")]
        socket: Option<PathBuf>,
    },
}

/// `paddockd mcp`'s arguments. The token comes only from `PADDOCK_AGENT_TOKEN`.
#[derive(Debug, Clone, clap::Args)]
pub struct McpArgs {
    /// The MCP server to serve: paddock_manage (self-management) or paddock (send_file)
    #[arg(long, value_name = "NAME")]
    pub server: String,
    /// The daemon's socket [env: PADDOCK_SOCKET]
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
}

fn after_help() -> String {
    let mut s = String::from(
        "Configuration: a TOML file ($XDG_CONFIG_HOME/paddock/config.toml unless --config or PADDOCK_CONFIG \
names one), every key also settable in the environment; the environment wins per key. Yes/no keys take \
1 or 0, true or false, yes or no, on or off, in any case, in both. A value paddockd refuses is named, \
with the variable or the file's line, in the terminal of the command that started it and in its log.\n\nKeys:\n",
    );
    for k in crate::config::KEYS {
        s.push_str(&format!(
            "  {:<20} {:<28} {}\n  {:<20} default: {}\n",
            k.key,
            k.env_name(),
            k.about,
            "",
            k.default
        ));
    }
    s
}

/// The clap command, for man pages and completions.
pub fn command() -> clap::Command {
    Args::command()
}
