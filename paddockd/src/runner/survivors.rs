//! No claude of an earlier run keeps running one of our chats. Every live `claude` has a
//! record in `state/claude-processes/PID.json` (its pid, which is also its process group,
//! its start time and the boot it started in), written when it starts and removed once it
//! and its group are stopped. A daemon that was killed leaves its records behind; the next
//! start ([`Records::stop_survivors`], before any turn can run) kills each group still alive
//! whose identity matches, so a chat never has two claudes.
//!
//! The parent-death signal (`death_signal.rs`) kills the leader with the daemon; the records
//! cover what it cannot: the tools in its group (a Bash command, an MCP server), which the
//! signal does not reach, and a claude started by a daemon without the signal.

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How long the start-up sweep waits for the groups it killed to be gone.
const SWEEP_WAIT: Duration = Duration::from_secs(5);

/// One live claude, as recorded when it started.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// The process id, which is also its process group's id.
    pub pid: i32,
    /// Its start time in clock ticks since boot (`/proc/PID/stat` field 22): a pid reused by
    /// another process has another start time.
    pub start_ticks: u64,
    /// `/proc/sys/kernel/random/boot_id` when it started: no record outlives a reboot.
    pub boot_id: String,
    pub session_id: String,
    /// The daemon that started it, and that daemon's start time: a record of a daemon still
    /// running (another one on the same data directory) is not a survivor.
    #[serde(default)]
    pub daemon_pid: i32,
    #[serde(default)]
    pub daemon_start_ticks: u64,
}

/// The folder of the records of one data directory.
#[derive(Debug, Clone)]
pub struct Records {
    dir: PathBuf,
}

impl Records {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            dir: data_dir.join("state").join("claude-processes"),
        }
    }

    fn path(&self, pid: i32) -> PathBuf {
        self.dir.join(format!("{pid}.json"))
    }

    /// Records a claude that just started (crash-safe: a whole file or none).
    pub fn record(&self, pid: u32, session_id: &str) -> std::io::Result<()> {
        let pid = i32::try_from(pid).map_err(std::io::Error::other)?;
        let start_ticks = proc_stat(pid)
            .map(|s| s.start_ticks)
            .ok_or_else(|| std::io::Error::other(format!("no /proc entry for {pid}")))?;
        let daemon_pid = rustix::process::getpid().as_raw_nonzero().get();
        let record = Record {
            pid,
            start_ticks,
            boot_id: boot_id(),
            session_id: session_id.to_owned(),
            daemon_pid,
            daemon_start_ticks: proc_stat(daemon_pid).map_or(0, |s| s.start_ticks),
        };
        crate::fsutil::create_private_dir(&self.dir)?;
        let bytes = serde_json::to_vec(&record).map_err(std::io::Error::other)?;
        crate::fsutil::write_atomic(&self.path(pid), &bytes)
    }

    /// Forgets a claude whose group was stopped.
    pub fn forget(&self, pid: u32) {
        let Ok(pid) = i32::try_from(pid) else { return };
        if let Err(e) = std::fs::remove_file(self.path(pid))
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(pid, "cannot remove the record of a stopped claude: {e}");
        }
    }

    /// Kills every recorded claude group still alive whose daemon is gone, waits (a few
    /// seconds at most) for them to be gone and removes the records. A group counts as ours
    /// when its leader is the recorded process (same start time), or when a member started
    /// after it carries this daemon's `CLAUDE_CONFIG_DIR` in its environment (the leader is
    /// gone, its tools are not). Returns the sessions whose claude was stopped.
    pub async fn stop_survivors(&self, claude_home: &Path) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let boot = boot_id();
        let procs = all_processes();
        let marker = [b"CLAUDE_CONFIG_DIR=", claude_home.as_os_str().as_bytes()].concat();
        let mut stopped = Vec::new();
        let mut groups = Vec::new();
        let me = rustix::process::getpid().as_raw_nonzero().get();
        for entry in entries.flatten() {
            let path = entry.path();
            let record = std::fs::read(&path)
                .ok()
                .and_then(|b| serde_json::from_slice::<Record>(&b).ok());
            // A temp file a crash left, or a record nobody can read: nothing to act on.
            let Some(record) = record else {
                let _ = std::fs::remove_file(&path);
                continue;
            };
            // (This process is no other daemon: in-process restarts, as tests do them.)
            let owner_alive = record.daemon_pid != me
                && procs.iter().any(|p| {
                    p.pid == record.daemon_pid && p.start_ticks == record.daemon_start_ticks
                });
            if owner_alive {
                // Another daemon on this data directory runs it; its record is its own.
                continue;
            }
            if record.boot_id == boot {
                let leader = procs
                    .iter()
                    .find(|p| p.pid == record.pid && p.start_ticks == record.start_ticks);
                let member = procs.iter().any(|p| {
                    p.pgid == record.pid
                        && p.start_ticks >= record.start_ticks
                        && environ_has(p.pid, &marker)
                });
                if leader.is_some() || member {
                    tracing::warn!(pid = record.pid, session = %record.session_id,
                        "stopping a claude an earlier paddockd left running");
                    if let Some(pid) = rustix::process::Pid::from_raw(record.pid) {
                        let _ =
                            rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                        if leader.is_some_and(|l| l.pgid != record.pid) {
                            let _ =
                                rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                        }
                    }
                    groups.push(record.pid);
                    stopped.push(record.session_id.clone());
                }
            }
            let _ = std::fs::remove_file(&path);
        }
        let deadline = tokio::time::Instant::now() + SWEEP_WAIT;
        while !groups.is_empty() {
            let left: Vec<Proc> = all_processes()
                .into_iter()
                .filter(|p| groups.contains(&p.pgid) || groups.contains(&p.pid))
                .collect();
            if left.is_empty() {
                break;
            }
            if tokio::time::Instant::now() >= deadline {
                tracing::warn!(
                    "{} process(es) of an earlier paddockd's claude did not go within {SWEEP_WAIT:?}",
                    left.len()
                );
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        stopped
    }
}

/// What `/proc/PID/stat` says of a process.
#[derive(Debug, Clone, Copy)]
struct Proc {
    pid: i32,
    pgid: i32,
    start_ticks: u64,
}

/// The live (not zombie) process `pid`.
fn proc_stat(pid: i32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is parenthesised and may hold anything; the fields follow its end.
    let fields: Vec<&str> = stat
        .get(stat.rfind(')')? + 1..)?
        .split_whitespace()
        .collect();
    // Field 3 is the state, 5 the process group, 22 the start time (proc(5)).
    if *fields.first()? == "Z" {
        return None;
    }
    Some(Proc {
        pid,
        pgid: fields.get(2)?.parse().ok()?,
        start_ticks: fields.get(19)?.parse().ok()?,
    })
}

fn all_processes() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(proc_stat)
        .collect()
}

/// Whether `pid`'s environment has exactly this `NAME=value` entry.
fn environ_has(pid: i32, entry: &[u8]) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|b| *b == 0).any(|e| e == entry))
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_own_stat() {
        let me = i32::try_from(std::process::id()).unwrap_or_default();
        let stat = proc_stat(me);
        assert!(stat.is_some_and(|s| s.pid == me && s.start_ticks > 0));
    }
}
