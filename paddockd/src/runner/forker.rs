//! The one thread every `claude` is forked from.
//!
//! Linux sends the parent-death signal (`death_signal.rs`) when the thread that forked the
//! child ends. Tokio's blocking pool retires idle threads after seconds, so `spawn_blocking`
//! would kill a chat's claude some time after it started; the runtime's worker threads live
//! as long as the runtime, but `block_in_place` anywhere in the daemon (or a dependency) hands
//! a worker's core to a new thread and lets the old one retire the same way. So the fork
//! happens here: a thread started once, holding a queue whose sender is never dropped, so it
//! runs until the process exits. The process is registered with the asking runtime (its
//! handle is entered for the fork), so waiting on it and `kill_on_drop` work as usual.

use std::sync::{OnceLock, mpsc};

use tokio::process::{Child, Command};
use tokio::sync::oneshot;

struct Fork {
    cmd: Command,
    runtime: tokio::runtime::Handle,
    reply: oneshot::Sender<std::io::Result<Child>>,
}

/// The forker's queue. Unbounded, but each sender waits for its own answer, so it holds at
/// most one request per chat task starting a process. Process-wide on purpose, the one static
/// the daemon keeps: the thread must outlive every daemon in the process (tests run several),
/// and it holds no state of theirs, only the forks they ask for.
static FORKER: OnceLock<mpsc::Sender<Fork>> = OnceLock::new();

fn forker() -> std::io::Result<mpsc::Sender<Fork>> {
    if let Some(tx) = FORKER.get() {
        return Ok(tx.clone());
    }
    let (tx, rx) = mpsc::channel::<Fork>();
    std::thread::Builder::new()
        .name("paddockd-forker".into())
        .spawn(move || {
            while let Ok(Fork {
                mut cmd,
                runtime,
                reply,
            }) = rx.recv()
            {
                let _entered = runtime.enter();
                let _ = reply.send(cmd.spawn());
            }
        })?;
    // Two chats racing here: the loser's thread ends with its dropped sender.
    Ok(FORKER.get_or_init(|| tx).clone())
}

/// Starts `cmd` from the forker thread, set to die with the daemon (`death_signal.rs`): how
/// every `claude` paddockd runs is started (a chat's, the sweeper's).
pub async fn spawn(mut cmd: Command) -> std::io::Result<Child> {
    super::death_signal::die_with_parent(&mut cmd);
    let (reply, answer) = oneshot::channel();
    let fork = Fork {
        cmd,
        runtime: tokio::runtime::Handle::current(),
        reply,
    };
    forker()?
        .send(fork)
        .map_err(|_| std::io::Error::other("the thread that starts claude is gone"))?;
    answer
        .await
        .map_err(|_| std::io::Error::other("the thread that starts claude is gone"))?
}
