//! Deadline-bounded polling. Tests never sleep for a condition: they poll it until a deadline.

use std::time::{Duration, Instant};

/// How often a condition is re-checked.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// Polls `check` until it returns `Some`, or fails after `timeout` naming `what` was awaited.
pub async fn wait_until<T>(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Option<T>,
) -> anyhow::Result<T> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check() {
            return Ok(value);
        }
        if Instant::now() >= deadline {
            anyhow::bail!("timed out after {timeout:?} waiting for {what}");
        }
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}

/// Blocking twin of [`wait_until`] for synchronous tests.
pub fn wait_until_blocking<T>(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Option<T>,
) -> anyhow::Result<T> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check() {
            return Ok(value);
        }
        if Instant::now() >= deadline {
            anyhow::bail!("timed out after {timeout:?} waiting for {what}");
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// Whether a process with this pid still exists (a zombie counts as gone once reaped by init,
/// but a zombie of ours still counts as existing: reap children before asking).
pub fn pid_alive(pid: u32) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    let Some(pid) = rustix::process::Pid::from_raw(raw) else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => !is_zombie(raw),
        Err(err) => err != rustix::io::Errno::SRCH,
    }
}

/// A zombie has exited already; only its parent has not collected it yet.
fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            // The state letter follows the parenthesised command name.
            let rest = &stat[stat.rfind(')')? + 1..];
            rest.split_whitespace().next().map(|s| s == "Z")
        })
        .unwrap_or(false)
}
