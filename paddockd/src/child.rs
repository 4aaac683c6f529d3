//! Running a short-lived helper program (git) to completion within a time limit, from blocking
//! code: its output is read while it runs (no pipe can fill up and stall it), its input is
//! written from a thread of its own, and when the limit passes its whole process group (a
//! commit hook and what it started, too) is killed.

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Why a program gave no output.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Spawn(std::io::Error),
    #[error("it did not finish within {} s and was stopped", .0.as_secs())]
    TimedOut(Duration),
    #[error("waiting for it failed: {0}")]
    Wait(std::io::Error),
}

/// Runs `cmd` to its end (whatever its exit status) with `input` on stdin, or kills it after
/// `limit`.
pub fn output_within(
    cmd: &mut Command,
    input: Option<&[u8]>,
    limit: Duration,
) -> Result<Output, RunError> {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .process_group(0);
    let mut child = cmd.spawn().map_err(RunError::Spawn)?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        let bytes = bytes.to_vec();
        // A program that exits early closes its end; its exit status tells the story.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    let stdout = reader(child.stdout.take());
    let stderr = reader(child.stderr.take());
    let deadline = Instant::now() + limit;
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Ok(None) => {
                let pgid = i32::try_from(child.id())
                    .ok()
                    .and_then(rustix::process::Pid::from_raw);
                if let Some(pgid) = pgid {
                    let _ =
                        rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
                }
                let _ = child.kill();
                let _ = child.wait();
                // The readers end when the last holder of the pipes is gone; not waited for.
                return Err(RunError::TimedOut(limit));
            }
            Err(e) => return Err(RunError::Wait(e)),
        }
    };
    Ok(Output {
        status,
        stdout: joined(stdout),
        stderr: joined(stderr),
    })
}

fn reader(pipe: Option<impl std::io::Read + Send + 'static>) -> Option<JoinHandle<Vec<u8>>> {
    let mut pipe = pipe?;
    Some(std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = pipe.read_to_end(&mut out);
        out
    }))
}

fn joined(handle: Option<JoinHandle<Vec<u8>>>) -> Vec<u8> {
    handle.and_then(|h| h.join().ok()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn output_and_input_round_trip_beyond_a_pipe_buffer() {
        let big = vec![b'x'; 1024 * 1024];
        let out = output_within(
            Command::new("cat").arg("-"),
            Some(&big),
            Duration::from_secs(30),
        )
        .unwrap();
        assert!(out.status.success());
        assert_eq!(out.stdout.len(), big.len());
    }

    #[test]
    fn a_program_that_hangs_is_stopped_with_its_children() {
        let err = output_within(
            Command::new("sh").args(["-c", "sleep 30 & sleep 30"]),
            None,
            Duration::from_millis(200),
        )
        .unwrap_err();
        assert!(matches!(err, RunError::TimedOut(_)), "{err}");
        assert!(err.to_string().contains("did not finish"));
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let err = output_within(
            &mut Command::new("paddock-no-such-program"),
            None,
            Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(
            matches!(&err, RunError::Spawn(e) if e.kind() == std::io::ErrorKind::NotFound),
            "{err}"
        );
    }
}
