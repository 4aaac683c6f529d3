//! `paddock status`: one line for a status bar.

use paddock_proto::{
    Approval, ApprovalList, ChatList, ChatScope, ChatSummary, DaemonStatus, DaemonStatusRequest,
    DiskSpace,
};

use super::Context;
use super::output::{print, print_json};
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

/// What the line says about disks below the floor: a reply written there may not be saved.
pub fn disk_part(low: &[DiskSpace]) -> Option<String> {
    let tightest = low.iter().min_by_key(|d| d.free_bytes)?;
    Some(format!(
        "disk low: {} free for {}",
        crate::attachments::human_size(tightest.free_bytes),
        tightest.path
    ))
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
    let (status, approvals, chats) = gather(&ctx.connect().await?).await?;
    let counts = Counts {
        running: status.running.len(),
        waiting: approvals.len(),
        unread: chats.iter().filter(|c| c.unread).count(),
    };
    print_status(counts, &approvals, &status.low_disk, &[], &args)
}

/// The status as `--json` prints it (with the approvals waiting, and on a client of several
/// hosts the hosts that did not answer), or the line.
pub fn print_status<A: serde::Serialize>(
    counts: Counts,
    approvals: &[A],
    low_disk: &[DiskSpace],
    down: &[String],
    args: &StatusArgs,
) -> anyhow::Result<()> {
    if args.json {
        let mut json = serde_json::json!({
            "running": counts.running,
            "waiting": counts.waiting,
            "unread": counts.unread,
            "approvals": approvals,
            "lowDisk": low_disk,
        });
        if !down.is_empty() {
            json["down"] = down.into();
        }
        return print_json(&json);
    }
    print(&format!(
        "{}\n",
        status_line(counts, low_disk, down, args.tmux)
    ))
}

/// What the line counts, asked of one daemon: its running turns, its inbox, its chats.
pub async fn gather(
    client: &crate::client::Client,
) -> anyhow::Result<(DaemonStatus, Vec<Approval>, Vec<ChatSummary>)> {
    let status = client.call(DaemonStatusRequest).await?;
    let approvals = client.call(ApprovalList).await?.approvals;
    let chats = client
        .call(ChatList {
            project_slug: None,
            scope: ChatScope::Active,
            since: None,
            full_titles: false,
        })
        .await?
        .chats;
    Ok((status, approvals, chats))
}

/// What the line says about hosts that did not answer: `gpubox down`.
fn down_part(down: &[String]) -> Option<String> {
    (!down.is_empty()).then(|| format!("{} down", down.join(", ")))
}

/// The line: plain, or with tmux's colour codes.
fn status_line(counts: Counts, low_disk: &[DiskSpace], down: &[String], tmux: bool) -> String {
    let disk = disk_part(low_disk);
    let down = down_part(down);
    if tmux {
        let mut parts = Vec::new();
        if let Some(d) = disk {
            parts.push(format!("#[fg=white,bg=red] {d} #[default]"));
        }
        if let Some(d) = down {
            parts.push(format!("#[fg=red]{d}#[default]"));
        }
        parts.push(tmux_line(counts));
        parts.retain(|p| !p.is_empty());
        parts.join(" ")
    } else {
        [disk, down, Some(line(counts))]
            .into_iter()
            .flatten()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_low_disk_names_the_tightest() {
        let disk = |path: &str, free_bytes| DiskSpace {
            path: path.into(),
            free_bytes,
            floor_bytes: 256 << 20,
        };
        assert_eq!(disk_part(&[]), None);
        assert_eq!(
            disk_part(&[disk("/data", 90 << 20), disk("/home/me/.claude", 3 << 20)]).as_deref(),
            Some("disk low: 3.0 MB free for /home/me/.claude")
        );
    }

    #[test]
    fn a_host_down_is_on_the_line() {
        let c = Counts {
            running: 1,
            waiting: 0,
            unread: 0,
        };
        let down = ["gpubox".to_owned()];
        assert_eq!(status_line(c, &[], &down, false), "gpubox down · 1 running");
        assert_eq!(
            status_line(c, &[], &down, true),
            "#[fg=red]gpubox down#[default] #[fg=green]1 running#[default]"
        );
        assert_eq!(status_line(Counts::default(), &[], &[], true), "");
    }

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
