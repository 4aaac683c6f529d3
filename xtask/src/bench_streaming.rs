//! `cargo xtask bench`, the many-chats stream: 100 chats streaming at once to 10 clients.
//!
//! The release `paddockd` runs as its own process (so its CPU is its own), with 100 stand-in
//! CLIs (`xtask bench-claude`) that stamp each text delta with the wall-clock time it was
//! written. Every client is subscribed to every chat and subtracts the stamp from its
//! receive time; the daemon's CPU is read from `/proc` over the streaming.

use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use paddock_proto::{ChatEvent, ChatSend, ChatSubscribe, Reply, Request, ServerMessage};

use crate::bench::{Conn, Stats, cpu_seconds, now_ns, stand_in_wrapper};
use crate::report::Report;

const CHATS: usize = 100;
const CLIENTS: usize = 10;
/// Text deltas per chat, one every [`INTERVAL_US`]: about 100 a second per chat, as fast
/// as a model streams.
const DELTAS: usize = 200;
const INTERVAL_US: u64 = 10_000;

pub async fn run(release: &Path, dir: &Path, report: &mut Report) -> Result<()> {
    let root = dir.join("streaming");
    std::fs::create_dir_all(&root)?;
    let wrapper = stand_in_wrapper(&root)?;
    let socket = root.join("run").join("paddockd.sock");
    let mut daemon = Command::new(release.join("paddockd"))
        .env("PADDOCK_SOCKET", &socket)
        .env("PADDOCK_DATA_DIR", root.join("data"))
        .env("PADDOCK_LOG", root.join("paddockd.log"))
        .env("PADDOCK_HOST_CLAUDE_HOME", root.join("host-claude"))
        .env("PADDOCK_CLAUDE_BIN", &wrapper)
        .env("PADDOCK_MAX_PROCESSES", CHATS.to_string())
        .env_remove("PADDOCK_CONFIG")
        .env("XDG_CONFIG_HOME", root.join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting paddockd")?;
    let result = measure(&socket, daemon.id(), report).await;
    let _ = daemon.kill();
    let _ = daemon.wait();
    result
}

async fn measure(socket: &Path, pid: u32, report: &mut Report) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while tokio::net::UnixStream::connect(socket).await.is_err() {
        if Instant::now() > deadline {
            bail!("paddockd did not start within 30 s");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut conns = Vec::new();
    for _ in 0..CLIENTS {
        conns.push(Conn::open(socket).await?);
    }
    // A warm-up turn creates each chat and its process.
    let mut sessions = Vec::new();
    for _ in 0..CHATS {
        let Reply::Sent(sent) = conns[0].request(send(None, "bench 1 0")).await? else {
            bail!("unexpected reply to chat:send");
        };
        conns[0].collect(&sent.session_id).await?;
        sessions.push(sent.session_id);
    }
    for c in conns.iter_mut().skip(1) {
        for sid in &sessions {
            c.request(Request::ChatSubscribe(ChatSubscribe {
                session_id: sid.clone(),
                want_replay: false,
                last_seq: None,
            }))
            .await?;
        }
    }
    let (cpu_before, started) = (cpu_seconds(pid), Instant::now());
    for sid in &sessions {
        conns[0]
            .send(send(Some(sid), &format!("bench {DELTAS} {INTERVAL_US}")))
            .await?;
    }
    let mut tasks = Vec::new();
    for mut c in conns {
        let all: HashSet<String> = sessions.iter().cloned().collect();
        tasks.push(tokio::spawn(async move { collect_all(&mut c, all).await }));
    }
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await??);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = match (cpu_before, cpu_seconds(pid)) {
        (Some(a), Some(b)) => (b - a) / elapsed * 100.0,
        _ => f64::NAN,
    };
    let stats = Stats(latencies);
    let p99 = stats.percentile(0.99);
    println!(
        "{}",
        stats.line(&format!(
            "claude stdout → frame, {CHATS} chats × {CLIENTS} clients"
        ))
    );
    println!(
        "{:<44} {cpu:>8.0} % of one core over {elapsed:.1} s ({:.0} frames a second to the clients)",
        "paddockd CPU while they stream",
        (CHATS * DELTAS * CLIENTS) as f64 / elapsed
    );
    report.goal(
        format!("stdout → frame p99, {CHATS} chats streaming, {CLIENTS} clients"),
        p99 / 1000.0,
        "ms",
        1.0,
    );
    report.goal("paddockd CPU, 100 chats streaming", cpu, "%", 50.0);
    Ok(())
}

/// `chat:send` of `message` in the root workspace: to `session`, or a new chat.
pub(crate) fn send(session: Option<&str>, message: &str) -> Request {
    send_in("", session, message)
}

/// `chat:send` of `message` in `project`: to `session`, or a new chat.
pub(crate) fn send_in(project: &str, session: Option<&str>, message: &str) -> Request {
    Request::ChatSend(ChatSend {
        project_slug: project.into(),
        session_id: session.map(str::to_owned),
        message: message.into(),
        model: None,
        preload_context: false,
        attachments: Vec::new(),
        isolation: None,
    })
}

/// Latencies of every stamped delta of `sessions` until each has completed.
async fn collect_all(c: &mut Conn, mut sessions: HashSet<String>) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(DELTAS * sessions.len());
    while !sessions.is_empty() {
        if let ServerMessage::Frame(f) = c.next().await? {
            match f.event {
                ChatEvent::Response(d) => {
                    if let Ok(stamp) = d.text.trim().parse::<u128>() {
                        out.push(now_ns().saturating_sub(stamp) as f64 / 1000.0);
                    }
                }
                ChatEvent::Complete(_) => {
                    sessions.remove(&f.routing.session_id);
                }
                _ => {}
            }
        }
    }
    Ok(out)
}
