//! `paddock daemon start|stop|status|restart`.

use std::os::unix::process::CommandExt;
use std::process::Command;

use anyhow::Context as _;
use paddock_proto::{DaemonShutdown, DaemonStatusRequest};

use super::Context;
use super::output::{Failure, print, print_json};
use crate::cli::DaemonCmd;
use crate::client::{Client, ClientError, RemoteOptions, stop_daemon, wait_until_stopped};
use crate::format;

pub async fn run(ctx: &Context, action: DaemonCmd) -> anyhow::Result<()> {
    if let Some(remote) = &ctx.remote {
        return on_far_side(remote, action).await;
    }
    match action {
        DaemonCmd::Start { foreground: true } => exec_foreground(ctx),
        DaemonCmd::Start { foreground: false } => start(ctx).await,
        DaemonCmd::Stop => stop(ctx).await,
        DaemonCmd::Status { json } => status(ctx, json).await,
        DaemonCmd::Restart { foreground } => {
            stop_quietly(ctx).await?;
            if foreground {
                exec_foreground(ctx)
            } else {
                let client = ctx.connect().await?;
                let d = client.daemon();
                print(&format!(
                    "paddockd {} restarted (pid {}) on {}\n",
                    d.daemon_version,
                    d.pid,
                    ctx.socket.display()
                ))
            }
        }
    }
}

/// Under `--remote`, the daemon's lifecycle is the far side's business: these run `paddock daemon
/// ...` there through ssh (it knows the daemon's pid and socket; this machine knows neither).
async fn on_far_side(remote: &RemoteOptions, action: DaemonCmd) -> anyhow::Result<()> {
    let words: &[&str] = match action {
        DaemonCmd::Start { foreground: true } | DaemonCmd::Restart { foreground: true } => {
            return Err(Failure::new(
                2,
                format!(
                    "--foreground runs paddockd in this terminal, which --remote cannot do; run it on {} itself: `ssh -t {} paddock daemon start --foreground`",
                    remote.host, remote.host
                ),
            )
            .into());
        }
        DaemonCmd::Start { foreground: false } => &["daemon", "start"],
        DaemonCmd::Stop => &["daemon", "stop"],
        DaemonCmd::Status { json: false } => &["daemon", "status"],
        DaemonCmd::Status { json: true } => &["daemon", "status", "--json"],
        DaemonCmd::Restart { foreground: false } => &["daemon", "restart"],
    };
    super::on_far_side(remote, words).await
}

/// Replaces this process with `paddockd` in the foreground, so its output and exit status are
/// the user's to see.
fn exec_foreground(ctx: &Context) -> anyhow::Result<()> {
    let bin = &ctx.start.daemon_bin;
    let err = Command::new(bin).arg("--socket").arg(&ctx.socket).exec();
    Err(err).with_context(|| {
        format!(
            "could not run {}; set PADDOCK_DAEMON_BIN to the paddockd binary or put paddockd on PATH",
            bin.display()
        )
    })
}

async fn start(ctx: &Context) -> anyhow::Result<()> {
    let (client, verb) = match Client::connect_with(&ctx.socket, ctx.start.connect.clone()).await {
        Ok(client) => (client, "is already running"),
        Err(ClientError::NotRunning { .. } | ClientError::ProtocolMismatch(_)) => {
            (ctx.connect().await?, "started")
        }
        Err(e) => return Err(e.into()),
    };
    let d = client.daemon();
    print(&format!(
        "paddockd {} {verb} (pid {}) on {}\n",
        d.daemon_version,
        d.pid,
        ctx.socket.display()
    ))
}

async fn stop(ctx: &Context) -> anyhow::Result<()> {
    match stop_quietly(ctx).await? {
        Some(pid) => print(&format!("paddockd stopped (pid {pid})\n")),
        None => print(&format!(
            "paddockd is not running on {}\n",
            ctx.socket.display()
        )),
    }
}

/// Stops whatever daemon answers on the socket, whatever protocol it speaks; the pid it had.
async fn stop_quietly(ctx: &Context) -> anyhow::Result<Option<u32>> {
    match Client::connect_with(&ctx.socket, ctx.start.connect.clone()).await {
        Ok(client) => {
            let pid = client.daemon().pid;
            match client.call(DaemonShutdown).await {
                // The daemon may close the connection before its answer gets out.
                Ok(_) | Err(ClientError::ConnectionLost { .. }) => {}
                Err(e) => return Err(e.into()),
            }
            drop(client);
            wait_until_stopped(&ctx.socket, Some(pid), ctx.start.stop_timeout).await?;
            Ok(Some(pid))
        }
        Err(ClientError::ProtocolMismatch(details)) => {
            stop_daemon(&ctx.start, details.pid).await?;
            Ok(Some(details.pid))
        }
        Err(ClientError::NotRunning { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Inspects without starting: asking a daemon that was just started how it is doing would
/// only hide that none was running.
async fn status(ctx: &Context, json: bool) -> anyhow::Result<()> {
    let client = match Client::connect_with(&ctx.socket, ctx.start.connect.clone()).await {
        Ok(client) => client,
        Err(ClientError::NotRunning { .. }) => {
            return Err(Failure::new(
                1,
                format!(
                    "paddockd is not running on {}; start it with `paddock daemon start`",
                    ctx.socket.display()
                ),
            )
            .into());
        }
        Err(ClientError::ProtocolMismatch(d)) => {
            return Err(Failure::new(
                1,
                format!(
                    "paddockd (protocol {}, version {}, pid {}) is running but speaks another protocol than this paddock; run `paddock daemon restart` once its {} running turns finish",
                    d.daemon_protocol, d.daemon_version, d.pid, d.running_turns
                ),
            )
            .into());
        }
        Err(e) => return Err(e.into()),
    };
    match client.call(DaemonStatusRequest).await? {
        status if json => print_json(&status),
        status => print(&format::daemon_status(&status)),
    }
}
