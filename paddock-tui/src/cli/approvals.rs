//! `paddock approvals` and `paddock notify`: tool calls waiting for a person.

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ApprovalsArgs {
    #[command(subcommand)]
    pub action: Option<ApprovalsCmd>,
    /// Print one JSON array of the pending approvals
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum ApprovalsCmd {
    /// Run the calls once
    Allow(ApprovalIds),
    /// Refuse the calls; the agent is told (with --message, why)
    Deny {
        #[command(flatten)]
        ids: ApprovalIds,
        /// What the agent is told
        #[arg(long, value_name = "TEXT")]
        message: Option<String>,
    },
    /// Run the calls, and add the rule each one shows to its project's allowed tools
    Always(ApprovalIds),
}

#[derive(Debug, Args)]
pub struct ApprovalIds {
    /// Approval ids, or unique prefixes of them (`paddock approvals` lists them)
    #[arg(value_name = "ID", required = true)]
    pub ids: Vec<String>,
}

#[derive(Debug, Args)]
pub struct NotifyArgs {
    /// Exit after the first announcement (for scripts: wait until something needs you)
    #[arg(long)]
    pub once: bool,
}
