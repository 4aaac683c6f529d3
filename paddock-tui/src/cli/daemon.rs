//! `paddock daemon`, `paddock status` and `paddock doctor`: the daemon and its health.

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum DaemonCmd {
    /// Start paddockd in the background, if it is not running already
    Start {
        /// Run paddockd in this terminal instead (replacing this process), to watch its output
        #[arg(long)]
        foreground: bool,
    },
    /// Stop paddockd (running turns are interrupted; their chats stay resumable)
    Stop,
    /// Show whether paddockd runs, its version, and what it is doing; exits 1 if it is not running
    Status {
        /// Print the status as one JSON object
        #[arg(long)]
        json: bool,
    },
    /// Stop paddockd and start it again (also one that speaks another protocol version)
    Restart {
        /// Run the new paddockd in this terminal instead (replacing this process)
        #[arg(long)]
        foreground: bool,
    },
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print the checks as one JSON object (see the description for its shape)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// tmux colour codes, for status-right
    #[arg(long, conflicts_with = "json")]
    pub tmux: bool,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}
