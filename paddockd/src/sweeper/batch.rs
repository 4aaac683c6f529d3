//! One tool-less `claude -p` run: the prompt on stdin, one JSON `result` on stdout.
//!
//! Not a chat: it does not take a slot of the chat pool, writes no transcript
//! (`--no-session-persistence`, so the sweep never shows up as a chat or as activity), has no
//! tools (`--tools ""` with `--strict-mcp-config`: the first alone still mounts MCP servers from
//! settings), and runs in a folder of the daemon's own (`<data>/tmp/sweeper`), not in the
//! project: a curator that only returns text needs nothing from the project's directory, and
//! the project's own hooks and settings must not run for it. The environment is the runner's
//! (`runner/process.rs`): the daemon's `CLAUDE_CONFIG_DIR`, a private `CLAUDE_CODE_TMPDIR`,
//! bounded retries, no auto-updater, plus `claude_env`.
//!
//! The process leads its own group; a timeout or the daemon's shutdown kills the group.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio_util::sync::CancellationToken;

use crate::claude_format::stdout::{Kind, Line, TurnResult};

/// The most stdout kept (the reply is a few KB; anything past this is not a sweep reply).
const MAX_STDOUT: u64 = 8 * 1024 * 1024;
/// Lines of stderr kept to explain a failure.
const STDERR_TAIL: usize = 10;

/// How to run it.
#[derive(Debug, Clone)]
pub struct BatchSpec {
    pub claude_bin: PathBuf,
    pub cwd: PathBuf,
    pub model: String,
    pub env: crate::runner::process::ClaudeEnv,
}

#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error("cannot start {bin}: {source}")]
    Spawn {
        bin: PathBuf,
        source: std::io::Error,
    },
    #[error("claude's {0} pipe is missing")]
    Pipe(&'static str),
    #[error("claude took longer than {0:?} and was stopped")]
    Timeout(Duration),
    #[error("the daemon is shutting down")]
    Cancelled,
    #[error("{0}")]
    Exit(String),
    #[error("claude reported an error: {0}")]
    Reported(String),
    #[error("claude printed no result")]
    NoResult,
}

/// The arguments of a sweep run (the prompt goes on stdin).
pub fn args(model: &str) -> Vec<String> {
    [
        "-p",
        "--output-format",
        "json",
        "--model",
        model,
        "--no-session-persistence",
        "--strict-mcp-config",
        "--tools",
        "",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect()
}

/// Runs claude once with `prompt`, and returns the text of its result.
pub async fn run(
    spec: &BatchSpec,
    prompt: String,
    timeout: Duration,
    shutdown: &CancellationToken,
) -> Result<String, BatchError> {
    let mut cmd = crate::runner::process::claude_command(&spec.claude_bin, &spec.cwd, &spec.env);
    cmd.args(args(&spec.model));
    // Like a chat's claude: it dies with the daemon.
    let mut child =
        crate::runner::forker::spawn(cmd)
            .await
            .map_err(|source| BatchError::Spawn {
                bin: spec.claude_bin.clone(),
                source,
            })?;
    let pid = child.id();
    let mut stdin = child.stdin.take().ok_or(BatchError::Pipe("stdin"))?;
    let stdout = child.stdout.take().ok_or(BatchError::Pipe("stdout"))?;
    let stderr = child.stderr.take().ok_or(BatchError::Pipe("stderr"))?;
    tracing::debug!(pid, cwd = %spec.cwd.display(), "started the sweeper's claude");

    let write = async move {
        // A CLI that exits without reading its prompt shows up as its exit status.
        let _ = stdin.write_all(prompt.as_bytes()).await;
        let _ = stdin.shutdown().await;
    };
    let read = async move {
        let mut out = Vec::new();
        let _ = stdout.take(MAX_STDOUT).read_to_end(&mut out).await;
        String::from_utf8_lossy(&out).into_owned()
    };
    let tail = async move {
        let mut tail = VecDeque::with_capacity(STDERR_TAIL);
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if tail.len() == STDERR_TAIL {
                tail.pop_front();
            }
            tail.push_back(line);
        }
        Vec::from(tail)
    };
    let work = async {
        let ((), out, err) = tokio::join!(write, read, tail);
        let status = child.wait().await;
        (out, err, status)
    };
    enum Ended {
        Done(String, Vec<String>, std::io::Result<ExitStatus>),
        Timeout,
        Cancelled,
    }
    let ended = {
        tokio::pin!(work);
        tokio::select! {
            (out, err, status) = &mut work => Ended::Done(out, err, status),
            () = tokio::time::sleep(timeout) => Ended::Timeout,
            () = shutdown.cancelled() => Ended::Cancelled,
        }
    };
    let (out, err, status) = match ended {
        Ended::Done(out, err, status) => (out, err, status.ok()),
        Ended::Timeout => {
            kill(pid, &mut child).await;
            return Err(BatchError::Timeout(timeout));
        }
        Ended::Cancelled => {
            kill(pid, &mut child).await;
            return Err(BatchError::Cancelled);
        }
    };
    // Whatever the CLI left in its group goes too.
    signal_group(pid);
    outcome(&out, status, &err)
}

/// What a finished run amounts to.
fn outcome(
    stdout: &str,
    status: Option<ExitStatus>,
    stderr: &[String],
) -> Result<String, BatchError> {
    let result = result_line(stdout);
    if let Some(r) = result.as_ref().filter(|r| r.is_error) {
        return Err(BatchError::Reported(error_text(r)));
    }
    if !status.is_some_and(|s| s.success()) {
        return Err(BatchError::Exit(crate::runner::process::describe_exit(
            status, stderr,
        )));
    }
    result.and_then(|r| r.result).ok_or(BatchError::NoResult)
}

/// The `result` on stdout: with `--output-format json` the whole output (an array of
/// messages when `--verbose` is on); a CLI that streams lines prints it last.
fn result_line(stdout: &str) -> Option<TurnResult> {
    let result = |v: &Value| match Line::decode(v).kind {
        Kind::Result(r) => Some(r),
        _ => None,
    };
    match serde_json::from_str::<Value>(stdout.trim()) {
        Ok(Value::Array(items)) => return items.iter().rev().find_map(result),
        Ok(v) if v.is_object() => {
            if let Some(r) = result(&v) {
                return Some(r);
            }
        }
        _ => {}
    }
    stdout.lines().rev().find_map(|line| {
        let v: Value = serde_json::from_str(line.trim()).ok()?;
        result(&v)
    })
}

fn error_text(result: &TurnResult) -> String {
    if let Some(text) = result.result.as_deref()
        && !text.trim().is_empty()
    {
        return text.trim().to_owned();
    }
    Some(result.errors.join("; "))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "no details".to_owned())
}

async fn kill(pid: Option<u32>, child: &mut tokio::process::Child) {
    signal_group(pid);
    let _ = child.kill().await;
}

fn signal_group(pid: Option<u32>) {
    let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) else {
        return;
    };
    if let Some(pgid) = rustix::process::Pid::from_raw(pid) {
        // ESRCH (the group is gone already) is the usual outcome after a clean exit.
        let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::os::unix::process::ExitStatusExt as _;

    fn ok() -> Option<ExitStatus> {
        Some(ExitStatus::from_raw(0))
    }

    #[test]
    fn the_result_is_the_last_result_line() {
        let out = "{\"type\":\"system\"}\nnot json\n{\"type\":\"result\",\"is_error\":false,\"result\":\"hi\\nthere\"}\n";
        assert_eq!(outcome(out, ok(), &[]).unwrap(), "hi\nthere");
        let err = outcome(
            "{\"type\":\"result\",\"is_error\":true,\"result\":\"API Error: 529\"}",
            Some(ExitStatus::from_raw(1 << 8)),
            &[],
        )
        .unwrap_err();
        assert!(err.to_string().contains("API Error: 529"), "{err}");
        let err = outcome("", Some(ExitStatus::from_raw(3 << 8)), &["boom".into()]).unwrap_err();
        assert!(err.to_string().contains("status 3"), "{err}");
        assert!(err.to_string().contains("boom"), "{err}");
        assert!(matches!(
            outcome("{}", ok(), &[]),
            Err(BatchError::NoResult)
        ));
        // One pretty-printed object, or the array `--verbose` gives.
        let pretty = "{\n  \"type\": \"result\",\n  \"is_error\": false,\n  \"result\": \"a\"\n}\n";
        assert_eq!(outcome(pretty, ok(), &[]).unwrap(), "a");
        let array =
            "[{\"type\":\"system\"},{\"type\":\"result\",\"is_error\":false,\"result\":\"b\"}]";
        assert_eq!(outcome(array, ok(), &[]).unwrap(), "b");
    }

    #[test]
    fn no_tools_no_mcp_no_transcript() {
        let a = args("m");
        assert!(a.windows(2).any(|w| w == ["--tools", ""]));
        assert!(a.windows(2).any(|w| w == ["--model", "m"]));
        assert!(a.windows(2).any(|w| w == ["--output-format", "json"]));
        assert!(a.contains(&"--strict-mcp-config".to_owned()));
        assert!(a.contains(&"--no-session-persistence".to_owned()));
        assert!(
            !a.iter()
                .any(|x| x == "--mcp-config" || x == "--allowedTools")
        );
    }
}
