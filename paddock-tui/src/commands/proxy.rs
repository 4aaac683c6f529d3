//! `paddock proxy`: stdin and stdout bridged to the daemon's socket, byte for byte. This is what
//! `paddock --remote HOST` runs on HOST through ssh, so the client there speaks the daemon's JSON
//! lines over ssh's pipes.
//!
//! stdout is the protocol: nothing else is ever written to it. The two copies run on plain
//! threads with one 64 KiB buffer each, not on tokio's blocking pool: a read of stdin that never
//! returns must not keep the process from exiting once the daemon has gone.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use anyhow::{Context as _, anyhow};
use tokio::sync::mpsc;

use super::{Context, Failure};
use crate::client::{Client, connect_or_start};

/// Each copy's buffer.
const CHUNK: usize = 64 * 1024;
/// Once stdin has closed, how long the daemon gets to close its side after ours was shut.
const DRAIN: Duration = Duration::from_secs(10);

/// How one of the two copies ended.
#[derive(Debug)]
enum End {
    /// stdin closed (or could not be read): the client is done sending.
    ClientDone,
    /// stdout could not be written: the client is gone.
    ClientGone,
    /// The socket closed (its read side), or failed.
    DaemonDone(Option<std::io::Error>),
    /// The socket could not be written.
    DaemonWriteFailed(std::io::Error),
}

pub async fn run(ctx: &Context, no_start: bool) -> anyhow::Result<()> {
    if let Some(remote) = &ctx.remote {
        return Err(Failure::new(
            2,
            format!(
                "paddock proxy runs on the daemon's machine (--remote {} runs it there through ssh); run it without --remote",
                remote.host
            ),
        )
        .into());
    }
    // Reach the daemon as every command does (starting it, or replacing an idle one of another
    // protocol), then bridge a fresh connection: the client on the other end says its own hello.
    // With --no-start, only a daemon that runs already (a TUI looking for one after a stop).
    let probe = if no_start {
        Client::connect_with(&ctx.socket, ctx.start.connect.clone()).await?
    } else {
        connect_or_start(&ctx.start).await?
    };
    drop(probe);
    let socket = UnixStream::connect(&ctx.socket)
        .with_context(|| format!("cannot connect to paddockd on {}", ctx.socket.display()))?;
    bridge(socket).await
}

async fn bridge(socket: UnixStream) -> anyhow::Result<()> {
    let stdin = File::from(
        std::io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .context("cannot use stdin")?,
    );
    let stdout = File::from(
        std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .context("cannot use stdout")?,
    );
    let to_daemon = socket.try_clone().context("cannot use the socket")?;
    let (tx, mut ends) = mpsc::unbounded_channel();
    let up = tx.clone();
    std::thread::Builder::new()
        .name("proxy-up".into())
        .spawn(move || copy_up(stdin, &to_daemon, &up))
        .context("cannot start the proxy's threads")?;
    std::thread::Builder::new()
        .name("proxy-down".into())
        .spawn(move || {
            let _ = tx.send(copy_down(&socket, stdout));
        })
        .context("cannot start the proxy's threads")?;

    let mut client_done = false;
    loop {
        let end = if client_done {
            // Our side of the socket is shut: the daemon closes its own at once.
            match tokio::time::timeout(DRAIN, ends.recv()).await {
                Ok(end) => end,
                Err(_) => return Ok(()),
            }
        } else {
            ends.recv().await
        };
        match end {
            Some(End::ClientDone) => client_done = true,
            Some(End::ClientGone) | None => return Ok(()),
            Some(End::DaemonDone(_)) if client_done => return Ok(()),
            Some(End::DaemonDone(None)) => return Err(anyhow!("paddockd closed the connection")),
            Some(End::DaemonDone(Some(e)) | End::DaemonWriteFailed(e)) => {
                return Err(anyhow!("lost the connection to paddockd: {e}"));
            }
        }
    }
}

/// stdin → socket; at the end of stdin, the socket's write side is shut so the daemon sees the
/// client go. The end is reported before the shutdown, so it is always received before the
/// daemon's close that the shutdown causes.
fn copy_up(mut stdin: File, mut socket: &UnixStream, ends: &mpsc::UnboundedSender<End>) {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if let Err(e) = socket.write_all(&buf[..n]) {
            let _ = ends.send(End::DaemonWriteFailed(e));
            return;
        }
    }
    let _ = ends.send(End::ClientDone);
    let _ = socket.shutdown(std::net::Shutdown::Write);
}

/// socket → stdout, each chunk written out at once.
fn copy_down(mut socket: &UnixStream, mut stdout: File) -> End {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match socket.read(&mut buf) {
            Ok(0) => return End::DaemonDone(None),
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return End::DaemonDone(Some(e)),
        };
        if stdout.write_all(&buf[..n]).is_err() {
            return End::ClientGone;
        }
    }
}
