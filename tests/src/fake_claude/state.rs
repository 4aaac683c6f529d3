//! The `FAKE_CLAUDE_STATE_DIR` side channel: each `fake-claude` process writes
//! `<dir>/<pid>.json` (argv, cwd, selected env, child pids) and appends every stdin line it
//! receives to `<dir>/<pid>.stdin.jsonl`. Tests read both to check what the daemon passed and
//! that nothing was left running.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Environment variable naming the state directory.
pub const STATE_DIR_ENV: &str = "FAKE_CLAUDE_STATE_DIR";

/// Environment variables recorded when set: these exact names, plus any name starting with one
/// of [`RECORDED_ENV_PREFIXES`]. A variable missing from [`FakeState::env`] was not set.
pub const RECORDED_ENV_NAMES: &[&str] = &[
    "HOME",
    "PATH",
    "TMPDIR",
    "SHELL",
    "USER",
    "LANG",
    "IS_SANDBOX",
    "NO_COLOR",
    "TERM",
];

/// Prefixes of recorded environment variables (`CLAUDE_CONFIG_DIR`, `CLAUDE_CODE_TMPDIR`,
/// `CLAUDE_CODE_MAX_RETRIES`, `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`, `DISABLE_TELEMETRY`, …).
pub const RECORDED_ENV_PREFIXES: &[&str] = &[
    "CLAUDE",
    "ANTHROPIC",
    "DISABLE_",
    "PADDOCK",
    "FAKE_CLAUDE",
    "MCP",
];

/// What one `fake-claude` process recorded about itself.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct FakeState {
    pub pid: u32,
    /// The full argv, program name first.
    pub argv: Vec<String>,
    pub cwd: String,
    pub env: BTreeMap<String, String>,
    /// Pids of processes started by `child` steps.
    pub children: Vec<u32>,
    /// The session id this process works on (set once known).
    #[serde(default)]
    pub session_id: Option<String>,
    /// When the process started, in nanoseconds since the Unix epoch: the order processes
    /// started in. Pids are no order: they wrap (at 32768 on many machines) in a long run.
    #[serde(default)]
    pub started_ns: u64,
}

impl FakeState {
    /// The state of the current process.
    pub fn current(session_id: Option<String>) -> Self {
        let env = std::env::vars()
            .filter(|(k, _)| {
                RECORDED_ENV_NAMES.contains(&k.as_str())
                    || RECORDED_ENV_PREFIXES.iter().any(|p| k.starts_with(p))
            })
            .collect();
        Self {
            pid: std::process::id(),
            argv: std::env::args().collect(),
            cwd: std::env::current_dir()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
            env,
            children: Vec::new(),
            session_id,
            started_ns: now_ns(),
        }
    }

    /// The order processes started in: by start time, then pid.
    pub fn start_order(&self) -> (u64, u32) {
        (self.started_ns, self.pid)
    }

    /// Whether argv holds `flag` immediately followed by `value`.
    pub fn has_arg_pair(&self, flag: &str, value: &str) -> bool {
        self.argv.windows(2).any(|w| w[0] == flag && w[1] == value)
    }

    /// The values following every occurrence of `flag` in argv.
    pub fn arg_values(&self, flag: &str) -> Vec<&str> {
        self.argv
            .windows(2)
            .filter(|w| w[0] == flag)
            .map(|w| w[1].as_str())
            .collect()
    }
}

fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// `<dir>/<pid>.json`.
pub fn state_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}.json"))
}

/// `<dir>/<pid>.stdin.jsonl`.
pub fn stdin_log_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}.stdin.jsonl"))
}

/// Writes the state file atomically (temp file + rename), so readers never see half a file.
pub fn write_state(dir: &Path, state: &FakeState) -> std::io::Result<()> {
    let path = state_path(dir, state.pid);
    let tmp = dir.join(format!(".{}.json.tmp", state.pid));
    let json = serde_json::to_vec_pretty(state).map_err(std::io::Error::other)?;
    std::fs::write(&tmp, json)?;
    std::fs::rename(&tmp, &path)
}

/// Appends one received stdin line.
pub fn append_stdin(dir: &Path, pid: u32, line: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(stdin_log_path(dir, pid))?;
    f.write_all(line.as_bytes())?;
    f.write_all(b"\n")
}

/// Reads one process's state.
pub fn read_state(dir: &Path, pid: u32) -> anyhow::Result<FakeState> {
    let path = state_path(dir, pid);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
    Ok(serde_json::from_str(&text)?)
}

/// Reads every state file in `dir`, in the order the processes started.
pub fn read_all_states(dir: &Path) -> anyhow::Result<Vec<FakeState>> {
    let mut states = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(pid) = name
            .strip_suffix(".json")
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        states.push(read_state(dir, pid)?);
    }
    states.sort_by_key(FakeState::start_order);
    Ok(states)
}

/// The raw stdin lines one process received, in order.
pub fn read_stdin_log(dir: &Path, pid: u32) -> anyhow::Result<Vec<String>> {
    let path = stdin_log_path(dir, pid);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text.lines().map(str::to_owned).collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(anyhow::anyhow!("reading {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn processes_are_listed_in_the_order_they_started_even_when_pids_wrap() {
        let dir = tempfile::tempdir().unwrap();
        // The pid counter wrapped between the two: the later process has the smaller pid.
        for (pid, started_ns) in [(32_000, 1_000), (300, 2_000)] {
            let st = FakeState {
                pid,
                started_ns,
                ..FakeState::default()
            };
            write_state(dir.path(), &st).unwrap();
        }
        let pids: Vec<u32> = read_all_states(dir.path())
            .unwrap()
            .iter()
            .map(|s| s.pid)
            .collect();
        assert_eq!(pids, [32_000, 300]);
    }
}
