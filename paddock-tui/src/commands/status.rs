//! `paddock status`: one line for a status bar.

use paddock_proto::{ChatList, ChatScope, Reply, Request};

use super::output::{print, print_json};
use super::{Context, unexpected};
use crate::cli::StatusArgs;

/// What the line counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub running: usize,
    pub waiting: usize,
    pub unread: usize,
}

/// The plain line: only the counts that are not zero; empty when all are.
pub fn line(c: Counts) -> String {
    let mut parts = Vec::new();
    if c.running > 0 {
        parts.push(format!("{} running", c.running));
    }
    if c.waiting > 0 {
        parts.push(format!("{} waiting for you", c.waiting));
    }
    if c.unread > 0 {
        parts.push(format!("{} unread", c.unread));
    }
    parts.join(" · ")
}

/// The line with tmux colour codes: waiting stands out, running is green.
pub fn tmux_line(c: Counts) -> String {
    let mut parts = Vec::new();
    if c.waiting > 0 {
        parts.push(format!(
            "#[fg=black,bg=yellow] {} waiting #[default]",
            c.waiting
        ));
    }
    if c.running > 0 {
        parts.push(format!("#[fg=green]{} running#[default]", c.running));
    }
    if c.unread > 0 {
        parts.push(format!("#[fg=cyan]{} unread#[default]", c.unread));
    }
    parts.join(" ")
}

pub async fn run(ctx: &Context, args: StatusArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let status = match client.request(Request::DaemonStatus).await? {
        Reply::Status(s) => s,
        other => return Err(unexpected("daemon:status", &other)),
    };
    let approvals = match client.request(Request::ApprovalList).await? {
        Reply::Approvals(a) => a.approvals,
        other => return Err(unexpected("approval:list", &other)),
    };
    let chats = match client
        .request(Request::ChatList(ChatList {
            project_slug: None,
            scope: ChatScope::Active,
            since: None,
        }))
        .await?
    {
        Reply::Chats(c) => c.chats,
        other => return Err(unexpected("chat:list", &other)),
    };
    let counts = Counts {
        running: status.running.len(),
        waiting: approvals.len(),
        unread: chats.iter().filter(|c| c.unread).count(),
    };
    if args.json {
        return print_json(&serde_json::json!({
            "running": counts.running,
            "waiting": counts.waiting,
            "unread": counts.unread,
            "approvals": approvals,
        }));
    }
    let text = if args.tmux {
        tmux_line(counts)
    } else {
        line(counts)
    };
    print(&format!("{text}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_only_what_is_going_on() {
        assert_eq!(line(Counts::default()), "");
        let c = Counts {
            running: 2,
            waiting: 1,
            unread: 0,
        };
        assert_eq!(line(c), "2 running · 1 waiting for you");
        assert_eq!(
            tmux_line(c),
            "#[fg=black,bg=yellow] 1 waiting #[default] #[fg=green]2 running#[default]"
        );
    }
}
