//! `cargo xtask bench`: prints latency figures (never asserted anywhere).
//!
//! 1. A plain Unix-socket echo round trip, the floor any local IPC pays.
//! 2. The added latency from a `claude` stdout line to a client frame: paddockd runs
//!    in-process and drives a stand-in CLI (`xtask bench-claude`, behind a wrapper script)
//!    that stamps each text delta with the wall-clock time it was written; every attached
//!    client subtracts that stamp from its receive time. Measured with 1 and 10 clients.
//! 3. The TUI with 10,000 chats: first frame, frame time, key press → frame, memory
//!    ([`crate::bench_tui`]).
//! 4. Listing 10,000 chats, next to `cat` of the same bytes ([`crate::bench_chats`]).
//! 5. `LineFramer` throughput: one 50 MB line (a large tool result from `claude`) and 50 MB of
//!    short lines, each fed in 16 KiB reads as paddockd reads claude's stdout.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use paddock_proto::{
    ChatEvent, ChatSend, ChatSubscribe, ClientMessage, ControlMessage, Hello, LineFramer, Outcome,
    PROTOCOL_VERSION, Reply, Request, ServerMessage,
};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

const ECHO_ROUNDS: usize = 2000;
const DELTAS: usize = 1000;
const INTERVAL_US: u64 = 500;

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

struct Stats(Vec<f64>);

impl Stats {
    fn line(mut self, name: &str) -> String {
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

pub fn run() -> Result<()> {
    let rt = tokio::runtime::Runtime::new().context("tokio runtime")?;
    rt.block_on(async {
        let dir = tempfile::tempdir()?;
        let profile = if cfg!(debug_assertions) {
            "dev"
        } else {
            "release"
        };
        println!("paddock bench ({profile} build; both figures measured in this run)");
        println!(
            "{}",
            echo(dir.path()).await?.line("unix socket echo round trip")
        );
        for clients in [1usize, 10] {
            let s = hub_latency(dir.path(), clients).await?;
            println!(
                "{}",
                s.line(&format!(
                    "claude stdout → client frame, {clients:>2} client(s)"
                ))
            );
        }
        for line in framing() {
            println!("{line}");
        }
        Ok::<_, anyhow::Error>(())
    })?;
    crate::bench_tui::run()?;
    crate::bench_chats::run(&crate::workspace_root())
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

struct Conn {
    stream: UnixStream,
    framer: LineFramer,
    id: u64,
}

impl Conn {
    async fn open(socket: &Path) -> Result<Self> {
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

    async fn send(&mut self, request: Request) -> Result<u64> {
        self.id += 1;
        let line = paddock_proto::encode(&ClientMessage {
            id: self.id,
            request,
        })?;
        self.stream.write_all(line.as_bytes()).await?;
        Ok(self.id)
    }

    async fn next(&mut self) -> Result<ServerMessage> {
        let mut buf = [0u8; 65536];
        loop {
            if let Some(line) = self.framer.next_frame() {
                return Ok(paddock_proto::decode(&line?)?);
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

    async fn request(&mut self, request: Request) -> Result<Reply> {
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
    async fn collect(&mut self, session: &str) -> Result<Vec<f64>> {
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
