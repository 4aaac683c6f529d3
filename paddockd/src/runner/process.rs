//! One `claude` process in stream-json mode (docs/claude-cli.md §13): spawning it with the
//! right flags and environment, writing JSON lines to it, reading its stdout as lines, and
//! stopping it without leaving anything behind.
//!
//! Each process leads its own process group, so the tools it started (a Bash command, an MCP
//! server) go down with it.
//!
//! Nothing here blocks the chat task on claude: stdin is written by a writer task of its own,
//! fed through a bounded queue, so a claude that stops reading cannot keep its chat from
//! hearing a cancel or the shutdown; a write that makes no progress for `Config::stdin_stall` ends
//! the writer, and the chat sees it through [`ClaudeProcess::input_failure`].

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use paddock_proto::{FrameError, LineFramer};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::{OwnedSemaphorePermit, mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::task::TaskTracker;

use crate::claude_format::stdout::Line;

/// The longest stdout line accepted from the CLI (tool results can be large), 64 MiB. A longer
/// line is discarded as it streams in and ends the turn ([`Output::Oversize`]).
const MAX_STDOUT_LINE: usize = 64 * 1024 * 1024;
/// Lines of stderr kept to explain a crash.
const STDERR_TAIL: usize = 20;
/// Lines waiting for claude's stdin. Overflow: `send` fails (claude is not reading), and the
/// chat treats the process as lost.
const STDIN_QUEUE: usize = 64;
/// Bytes written to stdin at a time, each within the stall bound.
const STDIN_CHUNK: usize = 64 * 1024;

/// How a chat's process is to start.
#[derive(Debug, Clone)]
pub enum SessionStart {
    /// A new chat: `--session-id`.
    New(String),
    /// An existing chat: `--resume`.
    Resume(String),
}

impl SessionStart {
    pub fn id(&self) -> &str {
        match self {
            Self::New(id) | Self::Resume(id) => id,
        }
    }
}

#[derive(Debug, Clone)]
pub struct SpawnSpec {
    pub claude_bin: PathBuf,
    pub cwd: PathBuf,
    pub session: SessionStart,
    pub model: Option<String>,
    pub env: ClaudeEnv,
    /// `--mcp-config` JSON: the MCP bridges to paddockd's agent tools.
    pub mcp_config: Option<String>,
    /// `--append-system-prompt`: the project's CLAUDE.md, which claude does not read itself
    /// (`claude_md.rs`).
    pub instructions: Option<String>,
    /// Where the live process is recorded until its group is stopped (`survivors.rs`).
    pub records: super::survivors::Records,
    /// How long a write to its stdin may make no progress (`Config::stdin_stall`).
    pub stdin_stall: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error(
        "cannot start {bin}: {source}; install Claude Code (npm install -g @anthropic-ai/claude-code) or set claude_bin / PADDOCK_CLAUDE_BIN"
    )]
    Spawn {
        bin: PathBuf,
        source: std::io::Error,
    },
    /// The folder claude is to run in is not there (removed behind paddock's back).
    #[error(
        "the folder this chat's claude runs in, {}, is gone; create it again (mkdir -p {}) or remove the project (paddock project rm)",
        .0.display(),
        .0.display()
    )]
    NoFolder(PathBuf),
    #[error("claude's {0} pipe is missing")]
    Pipe(&'static str),
    #[error("writing to claude failed: {0}")]
    Write(std::io::Error),
    #[error(
        "claude stopped reading its input ({0}); it was stopped, and the chat can be continued"
    )]
    NotReading(String),
}

/// What came out of stdout.
#[derive(Debug)]
pub enum Output {
    /// A JSON object, decoded (boxed: a line is far larger than the other variants).
    Line(Box<Line>),
    /// A line that is not JSON: the process is not speaking the protocol.
    Garbage(String),
    /// A line longer than [`MAX_STDOUT_LINE`] (its length), discarded: what it carried is lost.
    Oversize(usize),
    /// stdout closed: the process is exiting.
    Closed,
}

pub struct ClaudeProcess {
    child: Child,
    /// The writer task's queue; `None` once stdin is to be closed.
    stdin: Option<mpsc::Sender<Vec<u8>>>,
    writer: JoinHandle<()>,
    /// Why the writer gave up, once it has.
    input_failed: watch::Receiver<Option<String>>,
    stdout: ChildStdout,
    framer: LineFramer,
    stderr: JoinHandle<Vec<String>>,
    pid: Option<u32>,
    records: super::survivors::Records,
    /// The pool slot this process occupies; released when the process is dropped.
    _permit: OwnedSemaphorePermit,
}

/// The environment every claude the daemon starts runs in (a chat's and the sweeper's).
#[derive(Debug, Clone)]
pub struct ClaudeEnv {
    /// `CLAUDE_CONFIG_DIR`.
    pub claude_home: PathBuf,
    /// `CLAUDE_CODE_TMPDIR`.
    pub tmp_dir: PathBuf,
    /// `CLAUDE_CODE_MAX_RETRIES`.
    pub max_retries: u32,
    /// The configured extra variables (`claude_env`).
    pub extra_env: Vec<(String, String)>,
}

impl ClaudeEnv {
    /// The configuration's: its claude home, the data directory's `tmp`, its retries and
    /// extra variables.
    pub fn of(cfg: &crate::config::Config) -> Self {
        Self {
            claude_home: cfg.claude_home.clone(),
            tmp_dir: cfg.data_dir.join("tmp"),
            max_retries: cfg.claude_max_retries,
            extra_env: cfg.claude_env.clone(),
        }
    }
}

/// `claude` in `cwd` with `env`, no auto-update and not a nested session, loading only its
/// user settings (paddockd's own Claude home: never the settings, hooks or MCP servers of the
/// folder it runs in, `claude_md.rs`); piped stdio, its own process group, killed when dropped.
pub fn claude_command(bin: &Path, cwd: &Path, env: &ClaudeEnv) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(bin);
    cmd.args(["--setting-sources", "user"]);
    cmd.current_dir(cwd)
        .env("CLAUDE_CONFIG_DIR", &env.claude_home)
        .env("CLAUDE_CODE_TMPDIR", &env.tmp_dir)
        .env("CLAUDE_CODE_MAX_RETRIES", env.max_retries.to_string())
        .env("DISABLE_AUTOUPDATER", "1")
        // Transcript records are written before `result`, not up to 100 ms after it
        // (2.1.197; 2.1.332 does so anyway): a turn ends when it ends (`settle.rs`).
        .env("CLAUDE_CODE_EAGER_FLUSH", "1")
        // Set when the daemon itself was started from inside Claude Code; the agents are
        // not nested sessions.
        .env_remove("CLAUDECODE")
        .envs(env.extra_env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    cmd
}

impl ClaudeProcess {
    /// Starts claude from the forker thread (`forker.rs`), set to die with the daemon
    /// (`death_signal.rs`), and records it (`survivors.rs`).
    /// Starts claude; its stderr reader and stdin writer run on `tasks`, so the daemon's
    /// shutdown waits for them (they end when the process's pipes close).
    pub async fn spawn(
        spec: &SpawnSpec,
        permit: OwnedSemaphorePermit,
        tasks: &TaskTracker,
    ) -> Result<Self, ProcessError> {
        let mut cmd = claude_command(&spec.claude_bin, &spec.cwd, &spec.env);
        cmd.args([
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--replay-user-messages",
            "--permission-prompt-tool",
            "stdio",
        ]);
        match &spec.session {
            SessionStart::New(id) => cmd.args(["--session-id", id]),
            SessionStart::Resume(id) => cmd.args(["--resume", id]),
        };
        if let Some(model) = &spec.model {
            cmd.args(["--model", model]);
        }
        if let Some(config) = &spec.mcp_config {
            cmd.args(["--mcp-config", config]);
        }
        if let Some(text) = &spec.instructions {
            cmd.args(["--append-system-prompt", text]);
        }
        let mut child = super::forker::spawn(cmd).await.map_err(|source| {
            // Both come back as "not found": say which is missing.
            if !spec.cwd.is_dir() {
                ProcessError::NoFolder(spec.cwd.clone())
            } else {
                ProcessError::Spawn {
                    bin: spec.claude_bin.clone(),
                    source,
                }
            }
        })?;
        let pid = child.id();
        if let Some(pid) = pid {
            let (records, session) = (spec.records.clone(), spec.session.id().to_owned());
            let recorded = tokio::task::spawn_blocking(move || records.record(pid, &session)).await;
            match recorded {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(pid, "cannot record the claude process: {e}"),
                Err(e) => tracing::warn!(pid, "cannot record the claude process: {e}"),
            }
        }
        let stdin = child.stdin.take().ok_or(ProcessError::Pipe("stdin"))?;
        let stdout = child.stdout.take().ok_or(ProcessError::Pipe("stdout"))?;
        let stderr = child.stderr.take().ok_or(ProcessError::Pipe("stderr"))?;
        let stderr = tasks.spawn(async move {
            let mut tail = VecDeque::with_capacity(STDERR_TAIL);
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(pid, "claude stderr: {line}");
                if tail.len() == STDERR_TAIL {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
            tail.into_iter().collect()
        });
        let (stdin_tx, stdin_rx) = mpsc::channel(STDIN_QUEUE);
        let (failed_tx, input_failed) = watch::channel(None);
        let writer = tasks.spawn(write_stdin(
            stdin,
            stdin_rx,
            failed_tx,
            spec.stdin_stall,
            pid,
        ));
        tracing::info!(pid, session = ?spec.session, cwd = %spec.cwd.display(), "started claude");
        Ok(Self {
            child,
            stdin: Some(stdin_tx),
            writer,
            input_failed,
            stdout,
            framer: LineFramer::new(MAX_STDOUT_LINE),
            stderr,
            pid,
            records: spec.records.clone(),
            _permit: permit,
        })
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Queues one message as a JSON line for claude's stdin, without waiting for claude to
    /// read it. Never anything else: a non-JSON line kills the CLI. Fails when the writer gave
    /// up (claude stopped reading, or exited) or [`STDIN_QUEUE`] lines wait already.
    pub fn send(&mut self, msg: &Value) -> Result<(), ProcessError> {
        if let Some(why) = self.input_failed.borrow().clone() {
            return Err(ProcessError::NotReading(why));
        }
        let stdin = self
            .stdin
            .as_ref()
            .ok_or_else(|| ProcessError::Write(std::io::ErrorKind::BrokenPipe.into()))?;
        let mut line = msg.to_string();
        line.push('\n');
        stdin.try_send(line.into_bytes()).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => {
                ProcessError::NotReading(format!("{STDIN_QUEUE} messages are waiting for it"))
            }
            mpsc::error::TrySendError::Closed(_) => {
                ProcessError::Write(std::io::ErrorKind::BrokenPipe.into())
            }
        })
    }

    /// Resolves once the writer gave up on claude's stdin, with why; pending until then. The
    /// future borrows nothing, so it can be raced against reading stdout.
    pub fn input_failure(&self) -> impl std::future::Future<Output = String> + Send + 'static {
        let mut failed = self.input_failed.clone();
        async move {
            let why = failed
                .wait_for(Option::is_some)
                .await
                .map(|why| why.clone().unwrap_or_default());
            match why {
                Ok(why) => why,
                // The writer ended without a failure: stdin was closed on purpose.
                Err(_) => std::future::pending().await,
            }
        }
    }

    /// The next stdout line. Cancel-safe: a line is only consumed once it is returned.
    pub async fn next(&mut self) -> Output {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match self.framer.next_frame() {
                Some(Ok(line)) => {
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return match serde_json::from_slice::<Value>(&line) {
                        Ok(v) if v.is_object() => Output::Line(Box::new(Line::decode(&v))),
                        _ => Output::Garbage(String::from_utf8_lossy(&line).into_owned()),
                    };
                }
                Some(Err(FrameError::TooLong { len, .. })) => {
                    tracing::warn!(pid = self.pid, len, "claude printed an oversize line");
                    return Output::Oversize(len);
                }
                Some(Err(e)) => return Output::Garbage(e.to_string()),
                None => {}
            }
            match self.stdout.read(&mut buf).await {
                Ok(0) | Err(_) => return Output::Closed,
                Ok(n) => self.framer.push(&buf[..n]),
            }
        }
    }

    /// Waits for the process to exit, up to `grace`, then kills its whole group. Returns the
    /// exit status (if it could be had) and the last lines of stderr. Stdin is closed once
    /// the lines queued for it are written (the CLI finishes the current turn and exits).
    pub async fn stop(mut self, grace: Duration) -> (Option<ExitStatus>, Vec<String>) {
        self.stdin = None;
        let status = match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(Ok(status)) => Some(status),
            _ => {
                self.signal_group(rustix::process::Signal::KILL);
                self.child.wait().await.ok()
            }
        };
        // A write stuck on a pipe nobody reads any more ends with it.
        self.writer.abort();
        // Whatever the CLI left in its group (a tool's child) goes too.
        self.signal_group(rustix::process::Signal::KILL);
        if let Some(pid) = self.pid {
            self.records.forget(pid);
        }
        let tail = finish_stderr(self.stderr).await;
        tracing::info!(pid = self.pid, ?status, "claude stopped");
        (status, tail)
    }

    /// Kills the group at once and reaps the process.
    pub async fn kill(self) -> (Option<ExitStatus>, Vec<String>) {
        self.signal_group(rustix::process::Signal::KILL);
        self.stop(Duration::from_secs(5)).await
    }

    fn signal_group(&self, sig: rustix::process::Signal) {
        let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) else {
            return;
        };
        if let Some(pgid) = rustix::process::Pid::from_raw(pid) {
            // ESRCH (group already gone) is the expected outcome after a clean exit.
            let _ = rustix::process::kill_process_group(pgid, sig);
        }
    }
}

/// Writes the queued lines to claude's stdin in order, each chunk within `stall`.
/// A stalled write says so on `failed` (claude stopped reading) and ends, closing stdin; a
/// failed one (claude exited: its stdout's end tells why) just ends. Ends too when the
/// queue's sender is dropped, once the lines queued before are written.
async fn write_stdin(
    mut stdin: ChildStdin,
    mut lines: mpsc::Receiver<Vec<u8>>,
    failed: watch::Sender<Option<String>>,
    stall: Duration,
    pid: Option<u32>,
) {
    while let Some(line) = lines.recv().await {
        for chunk in line.chunks(STDIN_CHUNK) {
            match tokio::time::timeout(stall, stdin.write_all(chunk)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    tracing::debug!(pid, "claude's stdin is closed: {e}");
                    return;
                }
                Err(_) => {
                    let why = format!("a write to its stdin made no progress for {stall:?}");
                    tracing::warn!(pid, "claude: {why}");
                    failed.send_replace(Some(why));
                    return;
                }
            }
        }
        if let Err(e) = stdin.flush().await {
            tracing::debug!(pid, "claude's stdin is closed: {e}");
            return;
        }
    }
}

async fn finish_stderr(task: JoinHandle<Vec<String>>) -> Vec<String> {
    match tokio::time::timeout(Duration::from_secs(2), task).await {
        Ok(Ok(tail)) => tail,
        _ => Vec::new(),
    }
}

/// Says why a turn ended at an oversize stdout line, and how to go on.
pub fn describe_oversize(len: usize) -> String {
    format!(
        "claude printed a stdout line of {len} bytes, over paddockd's limit of {} MiB for one line, so the line was dropped and claude stopped; send a message to continue the chat, asking for less output at once (a large file read in parts)",
        MAX_STDOUT_LINE / (1024 * 1024)
    )
}

/// Describes an exit for a person.
pub fn describe_exit(status: Option<ExitStatus>, stderr: &[String]) -> String {
    use std::os::unix::process::ExitStatusExt;
    let how = match status {
        Some(s) => match (s.code(), s.signal()) {
            (Some(code), _) => format!("claude exited with status {code}"),
            (None, Some(sig)) => format!("claude was killed by signal {sig}"),
            _ => "claude exited".to_owned(),
        },
        None => "claude exited (status unknown)".to_owned(),
    };
    let tail: Vec<&str> = stderr
        .iter()
        .map(String::as_str)
        .filter(|l| !l.trim().is_empty())
        .collect();
    match tail.len() {
        0 => how,
        n => format!("{how}: {}", tail[n.saturating_sub(3)..].join(" | ")),
    }
}

/// Whether the CLI would treat `path` as the user's own Claude home.
pub fn is_users_claude_home(path: &Path) -> bool {
    let Some(home) = std::env::var_os("HOME") else {
        return false;
    };
    let theirs = Path::new(&home).join(".claude");
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(path) == canon(&theirs)
}
