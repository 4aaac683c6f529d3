//! `cargo xtask bench`: prints latency figures (never asserted anywhere).
//!
//! 1. A plain Unix-socket echo round trip, the floor any local IPC pays.
//! 2. The added latency from a `claude` stdout line to a client frame: paddockd runs
//!    in-process and drives a stand-in CLI (`xtask bench-claude`, behind a wrapper script)
//!    that stamps each text delta with the wall-clock time it was written; every attached
//!    client subtracts that stamp from its receive time. Measured with 1 and 10 clients.
//! 3. `LineFramer` throughput: one 50 MB line (a large tool result from `claude`) and 50 MB of
//!    short lines, each fed in 16 KiB reads as paddockd reads claude's stdout.
//! 4. The TUI with 100,000 chats: first frame, frame time, key press → frame, memory
//!    ([`crate::bench_tui`]).
//! 5. Listing 10,000 chats, next to `cat` of the same bytes, search, deltas, memory and the
//!    idle daemon ([`crate::bench_chats`]).
//! 6. 100 chats streaming at once to 10 clients, from a daemon process of its own
//!    ([`crate::bench_streaming`]).
//! 7. Worktree chats: a new one's start next to `git worktree add` alone and a plain chat's,
//!    and `worktree ls` of 50 ([`crate::bench_worktrees`]).
//! 8. A chat's first token and its turn's end with the real CLI ([`crate::bench_start`]).
//! 9. One client over three hosts: the merged `ls`, and what a hanging host costs
//!    ([`crate::bench_hosts`]).
//!
//! Every figure is measured in release builds: run from a dev build, `cargo xtask bench`
//! builds and runs itself in release. The run ends with each figure next to its goal
//! ([`crate::report`]) and writes them to `target/bench.json`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use paddock_proto::{
    ChatEvent, ChatSend, ChatSubscribe, ClientMessage, ControlMessage, Hello, LineFramer, Outcome,
    PROTOCOL_VERSION, Reply, Request, ServerMessage,
};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

use crate::report::Report;

const ECHO_ROUNDS: usize = 2000;
const DELTAS: usize = 1000;
const INTERVAL_US: u64 = 500;

pub(crate) fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

pub(crate) struct Stats(pub(crate) Vec<f64>);

impl Stats {
    /// The `p` quantile (0 to 1) of the samples, µs; NaN with none.
    pub(crate) fn percentile(&self, p: f64) -> f64 {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        let Some(last) = v.len().checked_sub(1) else {
            return f64::NAN;
        };
        v[((last as f64) * p).round() as usize]
    }

    pub(crate) fn line(mut self, name: &str) -> String {
        self.0.sort_by(f64::total_cmp);
        let n = self.0.len();
        if n == 0 {
            return format!("{name:<44} no samples");
        }
        let pct = |p: f64| self.0[((n as f64 - 1.0) * p).round() as usize];
        let mean = self.0.iter().sum::<f64>() / n as f64;
        format!(
            "{name:<44} n={n:<6} mean {mean:>8.1} µs   p50 {:>8.1} µs   p99 {:>8.1} µs   max {:>8.1} µs",
            pct(0.5),
            pct(0.99),
            pct(1.0)
        )
    }
}

/// A part of the bench, to run alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Part {
    /// The socket echo, one chat streaming to 1 and 10 clients, the line framer.
    Latency,
    /// 100 chats streaming at once to 10 clients.
    Streaming,
    /// The TUI with 100,000 chats.
    Tui,
    /// Listing and searching 10,000 chats, memory, the idle daemon.
    Chats,
    /// A worktree chat's start, and `worktree ls` of 50.
    Worktrees,
    /// A chat's first token with the real CLI (bare, new, with a spare, follow-up), and the
    /// time from a turn's last token to its end.
    Start,
    /// One client over three hosts: the merged `ls`, and a hanging host's cost.
    Hosts,
}

impl Part {
    fn name(self) -> &'static str {
        match self {
            Part::Latency => "latency",
            Part::Streaming => "streaming",
            Part::Tui => "tui",
            Part::Chats => "chats",
            Part::Worktrees => "worktrees",
            Part::Start => "start",
            Part::Hosts => "hosts",
        }
    }
}

/// Runs the `parts` of the bench (every part when empty).
pub fn run(parts: &[Part]) -> Result<()> {
    if cfg!(debug_assertions) {
        return run_in_release(parts);
    }
    let wanted = |p: Part| parts.is_empty() || parts.contains(&p);
    let root = crate::workspace_root();
    let release = crate::bench_chats::build_release(&root)?;
    let mut report = Report::default();
    let rt = tokio::runtime::Runtime::new().context("tokio runtime")?;
    rt.block_on(async {
        let dir = tempfile::tempdir()?;
        println!("paddock bench (release builds; every figure measured in this run)");
        if wanted(Part::Latency) {
            latency(dir.path(), &mut report).await?;
        }
        if wanted(Part::Streaming) {
            crate::bench_streaming::run(&release, dir.path(), &mut report).await?;
        }
        Ok::<_, anyhow::Error>(())
    })?;
    if wanted(Part::Tui) {
        crate::bench_tui::run(&mut report)?;
    }
    if wanted(Part::Chats) {
        crate::bench_chats::run(&root, &release, &mut report)?;
    }
    if wanted(Part::Worktrees) {
        crate::bench_worktrees::run(&root, &release, &mut report)?;
    }
    if wanted(Part::Start) {
        crate::bench_start::run(&root, &release, &mut report)?;
    }
    if wanted(Part::Hosts) {
        crate::bench_hosts::run(&root, &release, &mut report)?;
    }
    report.print();
    if parts.is_empty() {
        report.write(&root.join("target").join("bench.json"))
    } else {
        println!("(a part run alone: target/bench.json, which holds one whole run, is unchanged)");
        Ok(())
    }
}

/// The socket echo, one chat to 1 and 10 clients, and the line framer.
async fn latency(dir: &Path, report: &mut Report) -> Result<()> {
    let echo = echo(dir).await?;
    let echo_p99 = echo.percentile(0.99);
    println!("{}", echo.line("unix socket echo round trip"));
    report.note("unix socket echo round trip p99", echo_p99 / 1000.0, "ms");
    for clients in [1usize, 10] {
        let s = hub_latency(dir, clients).await?;
        let p99 = s.percentile(0.99);
        println!(
            "{}",
            s.line(&format!(
                "claude stdout → client frame, {clients:>2} client(s)"
            ))
        );
        report.note(
            format!("stdout → frame p99, 1 chat, {clients} client(s)"),
            p99 / 1000.0,
            "ms",
        );
    }
    for line in framing() {
        println!("{line}");
    }
    Ok(())
}

/// Builds the bench in release and runs it there: dev-build figures say little.
fn run_in_release(parts: &[Part]) -> Result<()> {
    println!("building the bench in release (the figures are release figures)…");
    let status = std::process::Command::new(env!("CARGO"))
        .current_dir(crate::workspace_root())
        .args([
            "run",
            "--release",
            "--quiet",
            "--package",
            "xtask",
            "--",
            "bench",
        ])
        .args(parts.iter().map(|p| p.name()))
        .status()
        .context("cargo run --release --package xtask -- bench")?;
    if !status.success() {
        bail!("the release bench failed ({status})");
    }
    Ok(())
}

/// A `claude` for paddockd to start in `root`: a script that runs this binary's stand-in CLI
/// ([`claude_stand_in`]).
pub(crate) fn stand_in_wrapper(root: &Path) -> Result<PathBuf> {
    let wrapper = root.join("claude");
    let xtask = std::env::current_exe().context("xtask's own path")?;
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec '{}' bench-claude \"$@\"\n",
            xtask.display()
        ),
    )?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(wrapper)
}

/// Waits until every process of `pids` has been quiet (under 2% of a core) for a second;
/// false when they were still busy after `limit`.
pub(crate) fn wait_quiet(pids: &[u32], limit: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    let used = || -> Option<f64> { pids.iter().map(|&p| cpu_seconds(p)).sum() };
    let mut last = used();
    loop {
        std::thread::sleep(std::time::Duration::from_secs(1));
        let now = used();
        if let (Some(a), Some(b)) = (last, now)
            && b - a < 0.02 * pids.len() as f64
        {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        last = now;
    }
}

/// The CPU time a process has used, user and system, in seconds (`/proc/PID/stat`, whose
/// times are in clock ticks of 1/100 s on Linux).
pub(crate) fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) as f64 / 100.0)
}

/// Framing figures: bytes through a [`LineFramer`] in 16 KiB pushes, as MB/s.
fn framing() -> Vec<String> {
    const TOTAL: usize = 50 * 1000 * 1000;
    const READ: usize = 16 * 1024;
    let mut long = vec![b'x'; TOTAL];
    long.push(b'\n');
    let short_line = b"{\"type\":\"stream_event\",\"delta\":\"0123456789abcdef\"}\n";
    let short: Vec<u8> = short_line
        .iter()
        .copied()
        .cycle()
        .take(TOTAL / short_line.len() * short_line.len())
        .collect();
    [("one 50 MB line", long), ("50 MB of 51-byte lines", short)]
        .into_iter()
        .map(|(name, bytes)| {
            let mut framer = LineFramer::new(64 * 1024 * 1024);
            let t = Instant::now();
            let mut lines = 0usize;
            for piece in bytes.chunks(READ) {
                framer.push(piece);
                while let Some(frame) = framer.next_frame() {
                    lines += usize::from(frame.is_ok());
                }
            }
            let secs = t.elapsed().as_secs_f64();
            format!(
                "{:<44} {lines:>9} line(s) in {:>8.1} ms   {:>8.0} MB/s",
                format!("LineFramer, {name}, 16 KiB reads"),
                secs * 1e3,
                bytes.len() as f64 / 1e6 / secs.max(1e-9)
            )
        })
        .collect()
}

async fn echo(dir: &Path) -> Result<Stats> {
    let path = dir.join("echo.sock");
    let listener = UnixListener::bind(&path)?;
    tokio::spawn(async move {
        if let Ok((s, _)) = listener.accept().await {
            let (r, mut w) = s.into_split();
            let mut lines = BufReader::new(r).lines();
            while let Ok(Some(mut l)) = lines.next_line().await {
                l.push('\n');
                if w.write_all(l.as_bytes()).await.is_err() {
                    break;
                }
            }
        }
    });
    let s = UnixStream::connect(&path).await?;
    let (r, mut w) = s.into_split();
    let mut lines = BufReader::new(r).lines();
    let msg = "{\"type\":\"chat:response\",\"text\":\"0123456789abcdef\"}\n";
    let mut out = Vec::with_capacity(ECHO_ROUNDS);
    for _ in 0..ECHO_ROUNDS {
        let t = Instant::now();
        w.write_all(msg.as_bytes()).await?;
        lines.next_line().await?.context("echo closed")?;
        out.push(t.elapsed().as_secs_f64() * 1e6);
    }
    Ok(Stats(out))
}

pub(crate) struct Conn {
    stream: UnixStream,
    framer: LineFramer,
    id: u64,
}

impl Conn {
    pub(crate) async fn open(socket: &Path) -> Result<Self> {
        let mut c = Self {
            stream: UnixStream::connect(socket).await?,
            framer: LineFramer::new(paddock_proto::MAX_SERVER_LINE_BYTES),
            id: 0,
        };
        c.request(Request::Hello(Hello {
            protocol_version: PROTOCOL_VERSION,
            client: "xtask bench".into(),
        }))
        .await?;
        Ok(c)
    }

    pub(crate) async fn send(&mut self, request: Request) -> Result<u64> {
        self.id += 1;
        let line = paddock_proto::encode(&ClientMessage {
            id: self.id,
            request,
        })?;
        self.stream.write_all(line.as_bytes()).await?;
        Ok(self.id)
    }

    pub(crate) async fn next(&mut self) -> Result<ServerMessage> {
        let mut buf = [0u8; 65536];
        loop {
            if let Some(line) = self.framer.next_frame() {
                return Ok(paddock_proto::decode_server(&line?)?);
            }
            let n = tokio::time::timeout(Duration::from_secs(30), self.stream.read(&mut buf))
                .await
                .context("daemon went quiet")??;
            if n == 0 {
                bail!("daemon closed the connection");
            }
            self.framer.push(&buf[..n]);
        }
    }

    pub(crate) async fn request(&mut self, request: Request) -> Result<Reply> {
        let id = self.send(request).await?;
        loop {
            if let ServerMessage::Control(ControlMessage::Response(r)) = self.next().await?
                && r.id == id
            {
                return match r.outcome {
                    Outcome::Ok(reply) => Ok(reply),
                    Outcome::Err(e) => bail!("{}", e.message),
                };
            }
        }
    }

    /// Latencies of the stamped deltas until `chat:complete`.
    pub(crate) async fn collect(&mut self, session: &str) -> Result<Vec<f64>> {
        let mut out = Vec::with_capacity(DELTAS);
        loop {
            if let ServerMessage::Frame(f) = self.next().await?
                && f.routing.session_id == session
            {
                match f.event {
                    ChatEvent::Response(d) => {
                        if let Ok(stamp) = d.text.trim().parse::<u128>() {
                            out.push(now_ns().saturating_sub(stamp) as f64 / 1000.0);
                        }
                    }
                    ChatEvent::Complete(_) => return Ok(out),
                    _ => {}
                }
            }
        }
    }
}

async fn hub_latency(dir: &Path, clients: usize) -> Result<Stats> {
    let root = dir.join(format!("hub-{clients}"));
    std::fs::create_dir_all(&root)?;
    let wrapper = stand_in_wrapper(&root)?;
    let socket = root.join("run").join("paddockd.sock");
    let mut cfg = paddockd::Config::for_data_dir(&root.join("data"), &socket);
    cfg.claude_bin = wrapper;
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let daemon = tokio::spawn(paddockd::run(cfg, async {
        let _ = stop_rx.await;
    }));
    let deadline = Instant::now() + Duration::from_secs(10);
    while UnixStream::connect(&socket).await.is_err() {
        if Instant::now() > deadline {
            bail!("paddockd did not start");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut conns = Vec::new();
    for _ in 0..clients {
        conns.push(Conn::open(&socket).await?);
    }
    // A warm-up turn creates the chat (and its process); everyone subscribes to it.
    let Reply::Sent(sent) = conns[0]
        .request(Request::ChatSend(ChatSend {
            project_slug: String::new(),
            session_id: None,
            message: "bench 1 0".into(),
            model: None,
            preload_context: false,
            attachments: Vec::new(),
            isolation: None,
        }))
        .await?
    else {
        bail!("unexpected reply to chat:send");
    };
    conns[0].collect(&sent.session_id).await?;
    for c in conns.iter_mut().skip(1) {
        c.request(Request::ChatSubscribe(ChatSubscribe {
            session_id: sent.session_id.clone(),
            want_replay: false,
            last_seq: None,
        }))
        .await?;
    }
    conns[0]
        .send(Request::ChatSend(ChatSend {
            project_slug: String::new(),
            session_id: Some(sent.session_id.clone()),
            message: format!("bench {DELTAS} {INTERVAL_US}"),
            model: None,
            preload_context: false,
            attachments: Vec::new(),
            isolation: None,
        }))
        .await?;
    let mut tasks = Vec::new();
    for mut c in conns {
        let sid = sent.session_id.clone();
        tasks.push(tokio::spawn(async move { c.collect(&sid).await }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await??);
    }
    let _ = stop_tx.send(());
    daemon.await??;
    Ok(Stats(all))
}

/// The stand-in CLI: for each user message `bench N INTERVAL_US` on stdin, N text deltas
/// whose text is the wall-clock time (ns) at which each was written, then a `result`.
pub fn claude_stand_in() -> Result<()> {
    use std::io::{BufRead, Write};
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            bail!("bench-claude: not JSON: {line}");
        };
        // A spare's `initialize` (paddockd's spares, runner/spare.rs) is answered.
        if v["type"] == "control_request" {
            let id = v["request_id"].clone();
            writeln!(
                out,
                "{}",
                serde_json::json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":{}}})
            )?;
            out.flush()?;
            continue;
        }
        if v["type"] != "user" {
            continue;
        }
        let text = v["message"]["content"].as_str().unwrap_or("bench 1 0");
        let mut parts = text.split_whitespace().skip(1);
        let n: usize = parts.next().and_then(|s| s.parse().ok()).unwrap_or(1);
        let interval: u64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        writeln!(
            out,
            "{}",
            serde_json::json!({"type":"system","subtype":"init","model":"bench"})
        )?;
        for _ in 0..n {
            if interval > 0 {
                std::thread::sleep(Duration::from_micros(interval));
            }
            let ev = serde_json::json!({"type":"stream_event","parent_tool_use_id":null,"api_message_id":"m",
                "event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":now_ns().to_string()}}});
            writeln!(out, "{ev}")?;
            out.flush()?;
        }
        writeln!(
            out,
            "{}",
            serde_json::json!({"type":"result","subtype":"success","is_error":false,"result":"","total_cost_usd":0.0})
        )?;
        out.flush()?;
    }
    Ok(())
}
