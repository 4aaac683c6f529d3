//! `cargo xtask bench`, part two: listing and searching 10,000 chats.
//!
//! Generates 10,000 realistic transcripts ([`crate::bench_corpus`]: about 0.75 GB of prompts,
//! environment attachments, assistant text, tool calls with large results, usage, in prose of a
//! realistic vocabulary) in the root workspace of a scratch data directory, then, with release
//! builds of `paddockd` and `paddock`:
//!
//! 1. `cat` of the same bytes (warm page cache): the floor for reading every transcript;
//! 2. `paddock ls --json` with no index: a daemon started on the folder builds the chat list,
//!    and the first listing waits for it; then the search index, built in the background
//!    ([`crate::bench_search`]);
//! 3. `paddock ls --json` with the index warm: the daemon restarted on its persisted index, the
//!    first listing after the start, and then the steady state;
//! 4. `paddock search --json` for every query shape, and a new message found
//!    ([`crate::bench_search`]);
//! 5. `chat:list` over one connection, as the TUI asks it: the full list against a delta
//!    (`since`) after one chat changed (starred or unstarred), each decoded as the client does
//!    and the delta applied to the 10,000 rows held;
//! 6. the daemon's memory with the 10,000 chats indexed (both indexes), private beside resident;
//! 7. the idle daemon: its CPU and wake-ups over a minute with nobody asking anything;
//! 8. a restart: the first complete search answer.
//!
//! The corpus is kept in `target/bench-chats/` and reused while its parameters match.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::bench_corpus::{CHATS, Vocabulary, corpus};
use crate::bench_env::{BenchEnv, Running};
use crate::bench_search;
use crate::report::Report;

/// Builds the release `paddockd` and `paddock` the bench runs; the folder they are in.
pub fn build_release(root: &Path) -> Result<PathBuf> {
    let status = Command::new(env!("CARGO"))
        .current_dir(root)
        .args([
            "build",
            "--release",
            "--quiet",
            "--bin",
            "paddockd",
            "--bin",
            "paddock",
        ])
        .status()
        .context("cargo build --release")?;
    if !status.success() {
        bail!("building the release binaries failed");
    }
    Ok(root.join("target").join("release"))
}

pub fn run(root: &Path, release: &Path, report: &mut Report) -> Result<()> {
    println!();
    println!("listing {CHATS} chats (release builds; figures from this run)");
    let release = release.to_path_buf();
    let bench = root.join("target").join("bench-chats");
    let data = bench.join("data");
    let workspace = data.join("workspace");
    let chats = workspace.join(".chats");
    let (files, bytes) = corpus(&bench, &workspace, &chats)?;
    println!(
        "  corpus: {files} transcripts, {:.2} GB in {}",
        bytes as f64 / 1e9,
        chats.display()
    );

    // 1. cat of the same bytes, the page cache warmed by a first pass.
    let cat = || -> Result<Duration> {
        let t = Instant::now();
        let ok = Command::new("sh")
            .args(["-c", "cat \"$1\"/*.jsonl > /dev/null", "sh"])
            .arg(&chats)
            .status()?
            .success();
        if !ok {
            bail!("cat failed");
        }
        Ok(t.elapsed())
    };
    cat()?;
    let cat_time = cat()?;
    report.note("cat of every transcript", ms(cat_time), "ms");
    println!(
        "  cat of every transcript (warm cache)         {:>9.0} ms  ({:.2} GB/s)",
        ms(cat_time),
        bytes as f64 / 1e9 / cat_time.as_secs_f64()
    );

    let env = BenchEnv {
        release: release.clone(),
        dir: bench.clone(),
        data: data.clone(),
        // One turn runs, to the stand-in, so the memory is measured with a spare.
        claude: crate::bench::stand_in_wrapper(&bench)?,
        extra_env: Vec::new(),
    };
    // 2. Index absent: the chat list and the search index both built from nothing.
    let state = data.join("state");
    let _ = std::fs::remove_dir_all(&state);
    let log = bench.join("paddockd.log");
    let log_from = std::fs::metadata(&log).map_or(0, |m| m.len());
    let (mut daemon, started) = env.start_daemon()?;
    let (out, first) = env.ls_json()?;
    let cold = started.elapsed();
    let listed = count_chats(&out)?;
    println!(
        "  index absent: daemon start → first ls --json {:>9.0} ms  ({listed} chats listed; ls alone {:.0} ms)",
        ms(cold),
        ms(first)
    );
    report.goal(
        format!("first ls --json with no index (built from nothing), {CHATS} chats, × cat"),
        ms(cold) / ms(cat_time),
        "×",
        1.0,
    );
    let built = bench_search::build_figures(&log, log_from, started, report)?;
    let rss_cold = (daemon.rss_kib(), daemon.private_kib());
    bench_search::settle_figure(&daemon, built)?;
    env.stop_daemon(&mut daemon)?;

    // 3. Index warm.
    let (mut daemon, started) = env.start_daemon()?;
    let (out, first) = env.ls_json()?;
    let warm_start = started.elapsed();
    let listed = count_chats(&out)?;
    println!(
        "  index warm:   daemon start → first ls --json {:>9.0} ms  ({listed} chats; ls alone {:.0} ms)",
        ms(warm_start),
        ms(first)
    );
    report.goal(
        "first ls --json after a restart (index persisted), × cat",
        ms(warm_start) / ms(cat_time),
        "×",
        0.15,
    );
    let mut steady = Vec::new();
    for _ in 0..5 {
        steady.push(ms(env.ls_json()?.1));
    }
    steady.sort_by(f64::total_cmp);
    println!(
        "  index warm:   ls --json, steady state        {:>9.0} ms  (median of 5; {:.1} MB of JSON)",
        steady[2],
        out.len() as f64 / 1e6
    );
    report.goal(
        format!("ls -p P --json, steady, {CHATS} chats, × cat"),
        steady[2] / ms(cat_time),
        "×",
        0.1,
    );
    // 4. Search.
    let vocabulary = Vocabulary::new();
    bench_search::query_figures(&env, &vocabulary, report)?;
    bench_search::message_figure(&env, &chats, report)?;
    // 5. Deltas.
    delta_figures(&env, report)?;
    // 6. Idle, with no turn run yet.
    idle_figures(&daemon, report);
    // 7. Memory, with a spare claude kept for the root workspace's next new chat (a turn
    // there makes one; the stand-in writes no transcript, so there are still 10,000 chats).
    env.paddock(&["send", "-p", "", "bench 1 0"])?;
    spare_ready(&env)?;
    bench_search::memory_figures(&daemon, report);
    println!(
        "  daemon memory when the build ended           {:>9.1} MB private  (RSS {:.1} MB)",
        rss_cold.1.unwrap_or(0) as f64 / 1024.0,
        rss_cold.0.unwrap_or(0) as f64 / 1024.0
    );
    env.stop_daemon(&mut daemon)?;
    // 8. A restart: searches complete at once.
    let mut daemon = bench_search::restart_figure(&env, &vocabulary, report)?;
    env.stop_daemon(&mut daemon)?;
    Ok(())
}

/// Waits until `paddock daemon status --json` lists a ready spare.
fn spare_ready(env: &BenchEnv) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status: serde_json::Value =
            serde_json::from_str(&env.paddock(&["daemon", "status", "--json"])?)?;
        let ready = status["spares"]
            .as_array()
            .is_some_and(|s| s.iter().any(|s| s["ready"] == true));
        if ready {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("no spare claude was ready within 60 s: {status}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// How long the idle daemon is watched.
const IDLE: Duration = Duration::from_secs(60);

/// The idle daemon with every chat indexed: its CPU and its threads' wake-ups (context
/// switches, voluntary and not) over [`IDLE`], with no client asking anything.
fn idle_figures(daemon: &Running, report: &mut Report) {
    let pid = daemon.0.id();
    let (cpu_before, switches) = (crate::bench::cpu_seconds(pid), context_switches(pid));
    std::thread::sleep(IDLE);
    let secs = IDLE.as_secs_f64();
    let cpu = match (cpu_before, crate::bench::cpu_seconds(pid)) {
        (Some(a), Some(b)) => (b - a) / secs * 100.0,
        _ => f64::NAN,
    };
    let wakeups = match (switches, context_switches(pid)) {
        (Some(a), Some(b)) => b.saturating_sub(a) as f64 / secs,
        _ => f64::NAN,
    };
    println!(
        "  idle daemon, {CHATS} chats, over {:.0} s          {cpu:>9.2} % CPU  ({wakeups:.1} wake-ups a second, all threads)",
        secs
    );
    report.goal(format!("idle daemon CPU, {CHATS} chats"), cpu, "%", 0.5);
    report.note(
        format!("idle daemon wake-ups, {CHATS} chats"),
        wakeups,
        "/s",
    );
}

/// Context switches of every thread of `pid` so far (`/proc/PID/task/*/status`).
fn context_switches(pid: u32) -> Option<u64> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = 0;
    for task in tasks.flatten() {
        let Ok(status) = std::fs::read_to_string(task.path().join("status")) else {
            continue;
        };
        total += status
            .lines()
            .filter_map(|l| {
                l.strip_prefix("voluntary_ctxt_switches:")
                    .or_else(|| l.strip_prefix("nonvoluntary_ctxt_switches:"))
            })
            .filter_map(|v| v.trim().parse::<u64>().ok())
            .sum::<u64>();
    }
    Some(total)
}

/// One connection to the daemon, speaking the protocol as the client library does (each
/// answer decoded as a [`paddock_proto::ServerMessage`]).
struct Raw {
    reader: std::io::BufReader<std::os::unix::net::UnixStream>,
    writer: std::os::unix::net::UnixStream,
    next: u64,
}

impl Raw {
    fn connect(socket: &Path) -> Result<Self> {
        let writer = std::os::unix::net::UnixStream::connect(socket)
            .with_context(|| format!("connecting to {}", socket.display()))?;
        let reader = std::io::BufReader::new(writer.try_clone()?);
        let mut raw = Self {
            reader,
            writer,
            next: 1,
        };
        raw.request(paddock_proto::Request::Hello(paddock_proto::Hello {
            protocol_version: paddock_proto::PROTOCOL_VERSION,
            client: "xtask bench".into(),
        }))?;
        Ok(raw)
    }

    /// Sends a request; its reply, the bytes of the answer's line, and the times from the
    /// request's write to the answer's line read (the daemon's work and the transfer), and to
    /// the answer decoded.
    fn request(
        &mut self,
        request: paddock_proto::Request,
    ) -> Result<(paddock_proto::Reply, usize, Timing)> {
        use paddock_proto::{ControlMessage, Outcome, ServerMessage};
        use std::io::{BufRead, Write};
        let id = self.next;
        self.next += 1;
        let line = paddock_proto::encode(&paddock_proto::ClientMessage { id, request })?;
        let t = Instant::now();
        self.writer.write_all(line.as_bytes())?;
        let mut buf = String::new();
        loop {
            buf.clear();
            if self.reader.read_line(&mut buf)? == 0 {
                bail!("paddockd closed the connection");
            }
            let read = t.elapsed();
            let msg = paddock_proto::decode_server(buf.trim_end().as_bytes())?;
            if let ServerMessage::Control(ControlMessage::Response(r)) = msg
                && r.id == id
            {
                let took = Timing {
                    read: ms(read),
                    decoded: ms(t.elapsed()),
                };
                return match r.outcome {
                    Outcome::Ok(reply) => Ok((reply, buf.len(), took)),
                    Outcome::Err(e) => bail!("paddockd: {}", e.message),
                };
            }
        }
    }

    fn list(&mut self, since: Option<u64>) -> Result<(paddock_proto::Chats, usize, Timing)> {
        let (reply, bytes, took) =
            self.request(paddock_proto::Request::ChatList(paddock_proto::ChatList {
                project_slug: Some(String::new()),
                scope: paddock_proto::ChatScope::Active,
                since,
                full_titles: false,
            }))?;
        match reply {
            paddock_proto::Reply::Chats(c) => Ok((c, bytes, took)),
            other => bail!("chat:list answered with {other:?}"),
        }
    }
}

/// Milliseconds from a request's write to its answer's line read, and to it decoded.
#[derive(Debug, Clone, Copy)]
struct Timing {
    read: f64,
    decoded: f64,
}

/// The medians of a figure's runs: read, decoded.
fn medians(runs: &[Timing]) -> (f64, f64) {
    (
        median(runs.iter().map(|t| t.read).collect()),
        median(runs.iter().map(|t| t.decoded).collect()),
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The full `chat:list` against a delta after one chat changed, on one connection (median
/// of 5 each).
fn delta_figures(env: &BenchEnv, report: &mut Report) -> Result<()> {
    let mut raw = Raw::connect(&env.socket())?;
    let (mut held, _, _) = raw.list(None)?;
    let mut full = Vec::new();
    let mut full_bytes = 0;
    for _ in 0..5 {
        let (answer, bytes, took) = raw.list(None)?;
        full.push(took);
        full_bytes = bytes;
        held = answer;
    }
    let rows = held.chats.len();
    let (read, decoded) = medians(&full);
    report.note(
        format!("chat:list full, {rows} rows: request → answer read"),
        read,
        "ms",
    );
    report.goal(
        format!("chat:list full, {rows} rows: the client's decode"),
        decoded - read,
        "ms",
        50.0,
    );
    println!(
        "  chat:list, full                              {read:>9.1} ms  (decoded {decoded:.1} ms; {rows} rows, {:.1} MB; one connection, median of 5)",
        full_bytes as f64 / 1e6
    );
    let mut revision = held.revision;
    let mut list = held.chats;
    let Some(target) = list.get(rows / 2).map(|c| c.session_id.clone()) else {
        bail!("no chat to change");
    };
    let (mut same, mut delta, mut apply_ms) = (Vec::new(), Vec::new(), Vec::new());
    let (mut delta_bytes, mut delta_rows) = (0, 0);
    for round in 0..5 {
        let (answer, _, took) = raw.list(revision)?;
        if !answer.delta {
            bail!("a delta was expected: the revision is this listing's");
        }
        same.push(took);
        revision = answer.revision;
        // One chat changes: starred (it moves to the top), then unstarred.
        let action = if round % 2 == 0 {
            paddock_proto::ChatAction::Star
        } else {
            paddock_proto::ChatAction::Unstar
        };
        raw.request(paddock_proto::Request::ChatUpdate(
            paddock_proto::ChatUpdate {
                session_ids: vec![target.clone()],
                action,
            },
        ))?;
        let (answer, bytes, took) = raw.list(revision)?;
        if !answer.delta {
            bail!("a delta was expected after one change");
        }
        delta.push(took);
        delta_bytes = bytes;
        delta_rows = answer.chats.len() + answer.removed.len();
        revision = answer.revision;
        let t = Instant::now();
        list = answer
            .apply_to(&list)
            .context("the delta does not fit the list held")?;
        apply_ms.push(ms(t.elapsed()));
    }
    if list.len() != rows {
        bail!(
            "the list kept by deltas has {} rows, not {rows}",
            list.len()
        );
    }
    let (read, decoded) = medians(&same);
    report.goal(
        format!("chat:list since, nothing changed, {rows} rows"),
        decoded,
        "ms",
        2.0,
    );
    println!(
        "  chat:list since, nothing changed             {read:>9.1} ms  (decoded {decoded:.1} ms; median of 5)"
    );
    let (read, decoded) = medians(&delta);
    report.note(
        format!("chat:list since, one chat changed, {rows} rows"),
        decoded,
        "ms",
    );
    println!(
        "  chat:list since, one chat changed            {read:>9.1} ms  (decoded {decoded:.1} ms; {delta_rows} rows, {delta_bytes} bytes; applied to {rows} rows in {:.1} ms; median of 5)",
        median(apply_ms)
    );
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn count_chats(json: &[u8]) -> Result<usize> {
    let v: serde_json::Value = serde_json::from_slice(json).context("ls --json output")?;
    Ok(v.as_array().map_or(0, Vec::len))
}
