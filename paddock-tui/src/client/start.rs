//! Finding, starting and stopping the daemon, so every command can assume one answers
//! (DESIGN §6: "every subcommand starts the daemon if none answers on the socket").

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use rustix::io::Errno;
use rustix::process::{Pid, Signal, kill_process, test_kill_process};
use tokio::net::UnixStream;
use tokio::time::Instant;

use super::connection::{Client, ConnectOptions};
use super::error::ClientError;

/// After the started daemon has exited because another holds the lock (it won the race), how
/// long that other daemon still gets to answer before we report the exit.
const EXIT_GRACE: Duration = Duration::from_secs(2);
const FIRST_BACKOFF: Duration = Duration::from_millis(20);
const MAX_BACKOFF: Duration = Duration::from_millis(500);

/// Where the daemon is and how patiently to wait for it.
#[derive(Debug, Clone)]
pub struct StartOptions {
    pub socket: PathBuf,
    /// The `paddockd` to run when none answers.
    pub daemon_bin: PathBuf,
    /// Where that daemon logs, for the message when it does not come up.
    pub log_path: Option<PathBuf>,
    pub start_timeout: Duration,
    pub stop_timeout: Duration,
    pub connect: ConnectOptions,
}

impl StartOptions {
    /// The defaults: the daemon from [`daemon_binary`], its log from [`daemon_log_path`], 10 s
    /// to come up and 10 s to go away.
    pub fn new(socket: PathBuf) -> Self {
        Self {
            socket,
            daemon_bin: daemon_binary(),
            log_path: daemon_log_path(),
            start_timeout: Duration::from_secs(10),
            stop_timeout: Duration::from_secs(10),
            connect: ConnectOptions::default(),
        }
    }
}

/// The daemon binary: `$PADDOCK_DAEMON_BIN`, else a `paddockd` beside this executable (an
/// install or a cargo target dir keeps the two together), else `paddockd` on `PATH`.
pub fn daemon_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("PADDOCK_DAEMON_BIN").filter(|b| !b.is_empty()) {
        return PathBuf::from(bin);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("paddockd")))
        .filter(|beside| beside.is_file())
        .unwrap_or_else(|| PathBuf::from("paddockd"))
}

/// The daemon's log file by DESIGN §3: `$PADDOCK_LOG`, else `$XDG_STATE_HOME/paddock/paddockd.log`.
pub fn daemon_log_path() -> Option<PathBuf> {
    if let Some(log) = std::env::var_os("PADDOCK_LOG").filter(|l| !l.is_empty()) {
        return Some(PathBuf::from(log));
    }
    let dirs = directories::ProjectDirs::from("", "", "paddock")?;
    Some(dirs.state_dir()?.join("paddockd.log"))
}

/// Connects to the daemon, starting it when nothing answers, and replacing an idle daemon that
/// speaks another protocol version (a busy one is left alone: see [`ClientError::RestartNeeded`]).
/// This is the one place a client starts the daemon; a daemon that does not come up is
/// reported with what it said on its way down.
pub async fn connect_or_start(opts: &StartOptions) -> Result<Client, ClientError> {
    match Client::connect_with(&opts.socket, opts.connect.clone()).await {
        Err(ClientError::NotRunning { .. }) => {
            let started = start_daemon(opts)?;
            wait_for_daemon(opts, started).await
        }
        Err(ClientError::ProtocolMismatch(details)) if details.running_turns == 0 => {
            stop_daemon(opts, details.pid).await?;
            let started = start_daemon(opts)?;
            wait_for_daemon(opts, started).await
        }
        Err(ClientError::ProtocolMismatch(details)) => Err(ClientError::RestartNeeded(details)),
        other => other,
    }
}

/// The most of a starting daemon's stderr kept to explain its failure.
const STDERR_TAIL: usize = 8 * 1024;

/// A daemon this client started, with what it writes to stderr while it starts.
pub struct Started {
    child: Child,
    stderr: StderrTail,
}

/// The end of a child's stderr, read by a thread into a bounded buffer until the pipe closes:
/// paddockd points its stderr at its log once it listens, so the pipe lives only as long as
/// the start-up (and the thread drains it meanwhile, so the daemon never blocks on it).
#[derive(Clone, Default)]
struct StderrTail {
    shared: std::sync::Arc<TailShared>,
}

#[derive(Default)]
struct TailShared {
    tail: std::sync::Mutex<Tail>,
    /// Notified when the pipe closes.
    closed: std::sync::Condvar,
}

#[derive(Default)]
struct Tail {
    bytes: Vec<u8>,
    closed: bool,
}

impl StderrTail {
    fn follow(pipe: impl std::io::Read + Send + 'static) -> Self {
        let tail = StderrTail::default();
        let writer = tail.clone();
        std::thread::spawn(move || {
            let mut pipe = pipe;
            let mut buf = [0u8; 4096];
            loop {
                let n = match std::io::Read::read(&mut pipe, &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let mut tail = writer.lock();
                tail.bytes.extend_from_slice(&buf[..n]);
                let over = tail.bytes.len().saturating_sub(STDERR_TAIL);
                tail.bytes.drain(..over);
            }
            writer.lock().closed = true;
            writer.shared.closed.notify_all();
        });
        tail
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tail> {
        // Bytes and a flag: nothing a panic could leave half-done.
        self.shared
            .tail
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What was written, once the pipe closed (or after `wait`, whatever came by then).
    fn text(&self, wait: Duration) -> String {
        let tail = self.lock();
        let (tail, _) = self
            .shared
            .closed
            .wait_timeout_while(tail, wait, |t| !t.closed)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        String::from_utf8_lossy(&tail.bytes).into_owned()
    }
}

/// Spawns the daemon detached from this terminal: its own process group (so Ctrl-C here does
/// not reach it), no stdin or stdout (it logs to its file), and stderr to a pipe this client
/// reads, so a daemon that cannot start says why here.
pub fn start_daemon(opts: &StartOptions) -> Result<Started, ClientError> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new(&opts.daemon_bin)
        .arg("--socket")
        .arg(&opts.socket)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| {
            ClientError::Lifecycle(format!(
                "could not run {}: {e}; set PADDOCK_DAEMON_BIN to the paddockd binary or put paddockd on PATH",
                opts.daemon_bin.display()
            ))
        })?;
    let stderr = match child.stderr.take() {
        Some(pipe) => StderrTail::follow(pipe),
        None => StderrTail::default(),
    };
    Ok(Started { child, stderr })
}

/// Polls the socket until the daemon we started answers, backing off, within the deadline.
async fn wait_for_daemon(opts: &StartOptions, started: Started) -> Result<Client, ClientError> {
    let Started { mut child, stderr } = started;
    let deadline = Instant::now() + opts.start_timeout;
    let mut backoff = FIRST_BACKOFF;
    let mut exited: Option<(ExitStatus, Instant)> = None;
    loop {
        match Client::connect_with(&opts.socket, opts.connect.clone()).await {
            Ok(client) => {
                reap_in_background(child);
                return Ok(client);
            }
            Err(ClientError::ProtocolMismatch(details)) => {
                reap_in_background(child);
                return Err(ClientError::Lifecycle(format!(
                    "the paddockd at {} speaks protocol {} (version {}) but this paddock speaks {}; install matching builds or point PADDOCK_DAEMON_BIN at the right paddockd",
                    opts.daemon_bin.display(),
                    details.daemon_protocol,
                    details.daemon_version,
                    paddock_proto::PROTOCOL_VERSION
                )));
            }
            Err(_) => {}
        }
        let now = Instant::now();
        if exited.is_none()
            && let Ok(Some(status)) = child.try_wait()
        {
            exited = Some((status, now));
        }
        // A daemon that lost the lock race leaves the other to answer; any other exit is final.
        let gave_up_on_exit = exited.is_some_and(|(status, at)| {
            status.code() != Some(i32::from(paddock_proto::EXIT_ALREADY_RUNNING))
                || now >= at + EXIT_GRACE
        });
        if now >= deadline || gave_up_on_exit {
            if exited.is_none() {
                reap_in_background(child);
            }
            let said = match exited {
                // It has exited: its stderr closes with it (bar a child of its own holding it).
                Some(_) => stderr.text(Duration::from_millis(500)),
                None => stderr.text(Duration::ZERO),
            };
            return Err(ClientError::Lifecycle(start_failure(
                opts,
                exited.map(|(status, _)| status),
                &said,
            )));
        }
        tokio::time::sleep(backoff.min(deadline - now)).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

fn start_failure(opts: &StartOptions, exit: Option<ExitStatus>, stderr: &str) -> String {
    // paddockd's own words: "paddockd: <reason>" on its last line.
    let reason = stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map(|l| l.strip_prefix("paddockd: ").unwrap_or(l).to_owned());
    let log = opts
        .log_path
        .as_ref()
        .filter(|log| log.is_file())
        .map(|log| format!("; its log is {}", log.display()))
        .unwrap_or_default();
    match (exit, reason) {
        (Some(_), Some(reason)) => format!("paddockd did not start: {reason}{log}"),
        (Some(status), None) => format!(
            "paddockd exited at startup ({status}) without saying why{log}; run `paddock daemon start --foreground` (or `{} --socket {}`) to see it in this terminal",
            opts.daemon_bin.display(),
            opts.socket.display()
        ),
        (None, said) => format!(
            "paddockd did not answer on {} within {}s{}{log}; run `paddock daemon start --foreground` to see what it does",
            opts.socket.display(),
            opts.start_timeout.as_secs(),
            said.map(|s| format!(" (it said: {s})")).unwrap_or_default()
        ),
    }
}

/// Waits for a started daemon in a thread, so it does not linger as a zombie of a long-lived
/// client (the TUI) once it exits.
fn reap_in_background(mut child: Child) {
    std::thread::spawn(move || {
        let _ = child.wait();
    });
}

/// Whether anything accepts connections on the socket.
pub async fn socket_answers(socket: &Path) -> bool {
    UnixStream::connect(socket).await.is_ok()
}

/// Stops the daemon with this pid (SIGTERM: it shuts down cleanly) and waits until it is gone.
pub async fn stop_daemon(opts: &StartOptions, pid: u32) -> Result<(), ClientError> {
    let Some(target) = to_pid(pid) else {
        return Err(ClientError::Lifecycle(format!(
            "paddockd reported pid {pid}, which cannot be signalled; stop it by hand"
        )));
    };
    match kill_process(target, Signal::TERM) {
        Ok(()) | Err(Errno::SRCH) => {}
        Err(e) => {
            return Err(ClientError::Lifecycle(format!(
                "could not stop paddockd (pid {pid}): {e}; stop it with `kill {pid}`"
            )));
        }
    }
    wait_until_stopped(&opts.socket, Some(pid), opts.stop_timeout).await
}

/// Polls until the daemon is gone, so a new daemon does not find the old one still holding its
/// lock: its process, when the pid is known (the lock goes with it; a daemon answering on the
/// socket by then is a new one, started meanwhile by a client that reconnected, such as a TUI
/// here or through `paddock proxy`), else until nothing answers on the socket.
pub async fn wait_until_stopped(
    socket: &Path,
    pid: Option<u32>,
    timeout: Duration,
) -> Result<(), ClientError> {
    let deadline = Instant::now() + timeout;
    let mut backoff = FIRST_BACKOFF;
    loop {
        let gone = match pid.and_then(to_pid) {
            Some(pid) => !process_exists(pid),
            None => !socket_answers(socket).await,
        };
        if gone {
            return Ok(());
        }
        let now = Instant::now();
        if now >= deadline {
            let who = pid.map_or_else(|| "paddockd".to_owned(), |p| format!("paddockd (pid {p})"));
            let how = pid.map_or_else(String::new, |p| format!("; stop it with `kill {p}`"));
            return Err(ClientError::Lifecycle(format!(
                "{who} was still running {}s after it was asked to stop{how}",
                timeout.as_secs()
            )));
        }
        tokio::time::sleep(backoff.min(deadline - now)).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

fn to_pid(pid: u32) -> Option<Pid> {
    Pid::from_raw(i32::try_from(pid).ok()?)
}

fn process_exists(pid: Pid) -> bool {
    // EPERM means it exists but belongs to someone else: still alive.
    !matches!(test_kill_process(pid), Err(Errno::SRCH))
}
