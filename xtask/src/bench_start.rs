//! `cargo xtask bench start`: how soon a chat answers, and how soon its turn ends (issue 39).
//!
//! With the real Claude Code CLI against the Messages API stand-in (`mock-anthropic`, release
//! build), which answers at once, so every figure is the CLI's and paddock's own time. The CLI
//! is the release npm installs on Node 20 (2.1.197) when `.ci/install-claude.sh` put it in the
//! tools folder, else 2.1.332 there, else `claude` on `PATH`; `PADDOCK_BENCH_CLAUDE_BIN` names
//! another. Side by side, round after round (so a machine that slows down slows every figure):
//!
//! 1. the bare `claude -p "…"`: from its start to its first text delta on stdout;
//! 2. a new chat through paddockd with no spare (`spare_processes = 0`): from `chat:send` on
//!    the socket to the first `chat:response`;
//! 3. the same with a spare ready (`spare_processes = 1`, the default);
//! 4. a follow-up in a chat whose claude is warm;
//! 5. from a turn's last `chat:response` to its `chat:complete` (on the socket), from the
//!    last bytes of the reply on `paddock send -c`'s stdout to the command's exit, and from
//!    the last `chat:response` (on the socket) to the TUI's header no longer counting the chat
//!    as running (the release `paddock` in a tmux pane; skipped without tmux). The time is that
//!    of the TUI's last write to its terminal before the screen read that found it idle: tmux
//!    copies every write to a pipe (`pipe-pane`) whose bytes the bench stamps as they come, so
//!    the figure is the TUI's, not how often the bench reads the screen;
//! 6. a new chat of a project whose chats work in worktrees (`isolation = "worktree"`, a
//!    repository of 5,000 files, `bench_worktrees::repository`), with no spare (the first
//!    daemon: `git worktree add` on the chat's path) and with a spare worktree ready (a third
//!    daemon, so the root's spare and this one do not take turns), next to the new chat with a
//!    spare of 3.
//!
//! Each figure is the median of [`RUNS`] rounds.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use paddock_proto::{ChatEvent, ControlMessage, Outcome, Reply, Request, ServerMessage};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

use crate::bench::Conn;
use crate::bench_env::{BenchEnv, Running};
use crate::report::Report;

/// Rounds (the median is reported).
const RUNS: usize = 7;
/// The longest a spare may take to be up, and a turn to end.
const PATIENCE: Duration = Duration::from_secs(60);

/// The Claude Code CLI the bench runs: `PADDOCK_BENCH_CLAUDE_BIN`, else the installed 2.1.197,
/// else 2.1.332, else `claude` on `PATH`.
fn claude_bin() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os("PADDOCK_BENCH_CLAUDE_BIN") {
        return Some(bin.into());
    }
    let tools = std::env::var_os("PADDOCK_TOOLS_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/paddock-tools")));
    for release in ["2.1.197", "2.1.332"] {
        let bin = tools
            .as_ref()
            .map(|t| t.join(format!("claude-{release}/node_modules/.bin/claude")));
        if let Some(bin) = bin.filter(|b| b.exists()) {
            return Some(bin);
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("claude"))
        .find(|b| b.exists())
}

/// The stand-in for the Messages API, killed when dropped.
struct StandIn {
    child: tokio::process::Child,
    port: u16,
}

impl StandIn {
    async fn start(root: &Path) -> Result<Self> {
        let status = std::process::Command::new(env!("CARGO"))
            .current_dir(root)
            .args(["build", "--release", "--quiet", "-p", "paddock-tests"])
            .args(["--bin", "mock-anthropic"])
            .status()
            .context("cargo build --release --bin mock-anthropic")?;
        if !status.success() {
            bail!("building the Messages API stand-in failed");
        }
        let mut child = tokio::process::Command::new(root.join("target/release/mock-anthropic"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("starting mock-anthropic")?;
        let stdout = child.stdout.take().context("the stand-in's stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).await?;
        let port = line
            .trim()
            .strip_prefix("LISTENING ")
            .and_then(|p| p.parse().ok())
            .with_context(|| format!("the stand-in said {line:?}"))?;
        Ok(Self { child, port })
    }

    /// What a claude needs to run offline against it (docs/claude-cli.md §1).
    fn env(&self) -> Vec<(String, String)> {
        [
            (
                "ANTHROPIC_BASE_URL",
                format!("http://127.0.0.1:{}", self.port),
            ),
            ("ANTHROPIC_API_KEY", "bench-key".to_owned()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
            ("DISABLE_TELEMETRY", "1".to_owned()),
            ("DISABLE_ERROR_REPORTING", "1".to_owned()),
            ("DISABLE_AUTOUPDATER", "1".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// The bare CLI's time to its first text delta, in a fresh `CLAUDE_CONFIG_DIR` under `dir`.
async fn bare_first_token(claude: &Path, dir: &Path, api: &StandIn, n: usize) -> Result<f64> {
    let home = dir.join(format!("bare-home-{n}"));
    let tmp = dir.join("bare-tmp");
    let work = dir.join("bare-work");
    for d in [&home, &tmp, &work] {
        std::fs::create_dir_all(d)?;
    }
    let started = Instant::now();
    let mut child = tokio::process::Command::new(claude)
        .args(["-p", "--output-format", "stream-json", "--verbose"])
        .args(["--include-partial-messages", &format!("hello {n}")])
        .current_dir(&work)
        .envs(api.env())
        .env("CLAUDE_CONFIG_DIR", &home)
        .env("CLAUDE_CODE_TMPDIR", &tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .context("starting the bare claude")?;
    let stdout = child.stdout.take().context("claude's stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let mut first = None;
    while let Some(line) = tokio::time::timeout(PATIENCE, lines.next_line()).await?? {
        if first.is_none() && line.contains("\"text_delta\"") {
            first = Some(ms(started.elapsed()));
        }
    }
    child.wait().await?;
    first.context("the bare claude printed no text")
}

/// One turn seen on the socket.
struct Turn {
    session_id: String,
    first_token: f64,
    /// From the last `chat:response` to `chat:complete`.
    end_after_last: f64,
}

/// Sends `message` (to `session`, or a new chat of the root workspace) and reads the turn to
/// its end.
async fn turn(conn: &mut Conn, session: Option<&str>, message: &str) -> Result<Turn> {
    turn_in(conn, "", session, message).await
}

/// [`turn`] in `project`.
async fn turn_in(
    conn: &mut Conn,
    project: &str,
    session: Option<&str>,
    message: &str,
) -> Result<Turn> {
    let started = Instant::now();
    let id = conn
        .send(crate::bench_streaming::send_in(project, session, message))
        .await?;
    // The turn's frames by its job: the connection also hears the chat's other turns.
    let (mut session_id, mut job_id) = (None, None);
    let (mut first, mut last) = (None, None);
    loop {
        match tokio::time::timeout(PATIENCE, conn.next()).await?? {
            ServerMessage::Control(ControlMessage::Response(r)) if r.id == id => match r.outcome {
                Outcome::Ok(Reply::Sent(sent)) => {
                    session_id = Some(sent.session_id);
                    job_id = Some(sent.job_id);
                }
                Outcome::Ok(other) => bail!("chat:send answered {other:?}"),
                Outcome::Err(e) => bail!("chat:send: {}", e.message),
            },
            ServerMessage::Frame(f) if Some(&f.routing.job_id) == job_id.as_ref() => {
                match f.event {
                    ChatEvent::Response(_) => {
                        let now = Instant::now();
                        first.get_or_insert(now);
                        last = Some(now);
                    }
                    ChatEvent::Complete(c) => {
                        let done = Instant::now();
                        if !c.success {
                            bail!("the turn failed: {:?}", c.error);
                        }
                        let (Some(first), Some(last), Some(session_id)) = (first, last, session_id)
                        else {
                            bail!("the turn ended without a reply");
                        };
                        return Ok(Turn {
                            session_id,
                            first_token: ms(first - started),
                            end_after_last: ms(done - last),
                        });
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

/// Waits until the daemon has a ready spare for the root workspace.
async fn spare_ready(conn: &mut Conn) -> Result<()> {
    spare_ready_in(conn, "").await
}

/// Waits until the daemon has a ready spare for `project`.
async fn spare_ready_in(conn: &mut Conn, project: &str) -> Result<()> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Reply::Status(s) = conn.request(Request::DaemonStatus).await?
            && s.spares
                .iter()
                .any(|s| s.project_slug == project && s.ready)
        {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("no spare was ready within {PATIENCE:?}");
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// `paddock send -c SESSION MESSAGE`: from the stdout read that completed the reply
/// (`echo: MESSAGE`, the stand-in's) to the command's exit.
async fn send_exit_after_reply(env: &BenchEnv, session: &str, message: &str) -> Result<f64> {
    let mut c = std::process::Command::new(env.release.join("paddock"));
    env.envs(&mut c);
    let mut child = tokio::process::Command::from(c)
        .args(["send", "-c", session, message])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .context("paddock send -c")?;
    let mut stdout = child.stdout.take().context("paddock's stdout")?;
    let want = format!("echo: {message}");
    let (mut seen, mut buf, mut replied) = (Vec::new(), [0u8; 4096], None);
    loop {
        let n = tokio::time::timeout(PATIENCE, stdout.read(&mut buf)).await??;
        if n == 0 {
            break;
        }
        seen.extend_from_slice(&buf[..n]);
        if replied.is_none() && String::from_utf8_lossy(&seen).contains(&want) {
            replied = Some(Instant::now());
        }
    }
    let status = child.wait().await?;
    let exited = Instant::now();
    if !status.success() {
        bail!("paddock send -c failed ({status})");
    }
    let replied = replied.with_context(|| {
        format!(
            "paddock send -c printed no {want:?}: {:?}",
            String::from_utf8_lossy(&seen)
        )
    })?;
    Ok(ms(exited - replied))
}

/// The release TUI in a private tmux server, killed when dropped.
struct TuiPane {
    server: String,
    /// When each write of the TUI to its terminal reached tmux, in order (from `pipe-pane`).
    writes: std::sync::Arc<std::sync::Mutex<Vec<Instant>>>,
}

impl TuiPane {
    /// Starts `paddock` (the TUI) in `env`'s world; `None` without tmux.
    async fn start(env: &BenchEnv) -> Result<Option<Self>> {
        let pane = Self {
            server: format!("paddock-bench-{}", std::process::id()),
            writes: Default::default(),
        };
        let mut c = std::process::Command::new("tmux");
        c.args(["-L", &pane.server, "-f", "/dev/null", "new-session", "-d"])
            .args(["-s", "tui", "-x", "160", "-y", "45"]);
        let mut world = std::process::Command::new("true");
        env.envs(&mut world);
        for (k, v) in world.get_envs() {
            if let Some(v) = v {
                c.arg("-e")
                    .arg(format!("{}={}", k.to_string_lossy(), v.to_string_lossy()));
            }
        }
        c.arg(env.release.join("paddock"));
        match c.stdout(Stdio::null()).stderr(Stdio::null()).status() {
            Ok(s) if s.success() => {}
            _ => return Ok(None),
        }
        // Up once its header is drawn.
        let deadline = Instant::now() + PATIENCE;
        while !pane.screen().await?.contains("paddock") {
            if Instant::now() > deadline {
                bail!("the TUI drew nothing within {PATIENCE:?}");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        pane.stamp_writes(&env.dir).await?;
        Ok(Some(pane))
    }

    /// Has tmux copy the TUI's output into a FIFO, and stamps each piece as it arrives.
    async fn stamp_writes(&self, dir: &Path) -> Result<()> {
        let fifo = dir.join("tui-output.fifo");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status()?;
        if !made.success() {
            bail!("mkfifo {} failed", fifo.display());
        }
        // Read and write, so the read end never sees an end while tmux's `cat` starts.
        let mut rx = tokio::net::unix::pipe::OpenOptions::new()
            .read_write(true)
            .open_receiver(&fifo)
            .with_context(|| format!("open {}", fifo.display()))?;
        let writes = self.writes.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n) = rx.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut w) = writes.lock() {
                    w.push(Instant::now());
                }
            }
        });
        let piped = std::process::Command::new("tmux")
            .args(["-L", &self.server, "pipe-pane", "-O", "-t", "tui"])
            .arg(format!("exec cat > '{}'", fifo.display()))
            .status()?;
        if !piped.success() {
            bail!("tmux pipe-pane failed");
        }
        Ok(())
    }

    /// The last write of the TUI that reached tmux after `after` and no later than `by`.
    fn last_write(&self, after: Instant, by: Instant) -> Option<Instant> {
        let writes = self.writes.lock().ok()?;
        writes
            .iter()
            .rev()
            .find(|&&t| t <= by)
            .filter(|&&t| t > after)
            .copied()
    }

    async fn screen(&self) -> Result<String> {
        let out = tokio::process::Command::new("tmux")
            .args(["-L", &self.server, "capture-pane", "-p", "-t", "tui"])
            .output()
            .await?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Whether the header counts a chat as running.
    async fn running(&self) -> Result<bool> {
        Ok(self
            .screen()
            .await?
            .lines()
            .take(2)
            .any(|l| l.contains(" running")))
    }
}

impl Drop for TuiPane {
    fn drop(&mut self) {
        let _ = std::process::Command::new("tmux")
            .args(["-L", &self.server, "kill-server"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// A turn of `session` streamed slowly (the stand-in's `mock:slow 5`: `tick1 ` … `tick5 `, 200 ms
/// apart, so the TUI surely draws it running): from its last `chat:response` on the socket (the
/// one that completes `tick5`) to the TUI's last write before the end of the first screen read
/// that began after it and shows the chat no longer running (that write drew it idle, or one before it
/// did: the figure errs long, never short). The screen is read every 100 ms while the reply
/// streams and every 2 ms after its last token: reading it that often all along keeps tmux too
/// busy to draw.
///
/// Also gives this turn's own last `chat:response` → `chat:complete` on the socket, the part
/// of the figure that is not the TUI's.
async fn tui_end_after_last(pane: &TuiPane, conn: &mut Conn, session: &str) -> Result<(f64, f64)> {
    let (tx, rx) = tokio::sync::watch::channel(None::<Instant>);
    let rx_last = rx.clone();
    let watch = async {
        let mut seen_running = false;
        let deadline = Instant::now() + PATIENCE;
        loop {
            let began = Instant::now();
            let running = pane.running().await?;
            seen_running |= running;
            let last = *rx.borrow();
            if let Some(last) = last
                && began >= last
                && !running
            {
                if !seen_running {
                    bail!(
                        "the TUI never showed the turn running:\n{}",
                        pane.screen().await?
                    );
                }
                // No write seen (no `pipe-pane`): the read's end, which errs long.
                let read = Instant::now();
                let drawn = pane.last_write(last, read).unwrap_or(read);
                return Ok(ms(drawn - last));
            }
            if Instant::now() > deadline {
                bail!("the TUI still shows the turn running after {PATIENCE:?}");
            }
            let pause = if last.is_some() { 2 } else { 100 };
            tokio::time::sleep(Duration::from_millis(pause)).await;
        }
    };
    let drive = async {
        let id = conn
            .send(crate::bench_streaming::send(Some(session), "mock:slow 5"))
            .await?;
        // The turn's frames by its job: the connection also hears the chat's other turns.
        let (mut text, mut job_id) = (String::new(), None);
        loop {
            match tokio::time::timeout(PATIENCE, conn.next()).await?? {
                ServerMessage::Control(ControlMessage::Response(r)) if r.id == id => {
                    match r.outcome {
                        Outcome::Ok(Reply::Sent(sent)) => job_id = Some(sent.job_id),
                        Outcome::Ok(other) => bail!("chat:send answered {other:?}"),
                        Outcome::Err(e) => bail!("chat:send: {}", e.message),
                    }
                }
                ServerMessage::Frame(f) if Some(&f.routing.job_id) == job_id.as_ref() => {
                    match f.event {
                        ChatEvent::Response(d) => {
                            text.push_str(&d.text);
                            if text.contains("tick5") && tx.borrow().is_none() {
                                let _ = tx.send(Some(Instant::now()));
                            }
                        }
                        ChatEvent::Complete(_) if tx.borrow().is_some() => {
                            return Ok::<_, anyhow::Error>(Instant::now());
                        }
                        ChatEvent::Complete(_) => bail!("the turn ended with no tick5: {text:?}"),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
    };
    let (watched, driven) = tokio::join!(watch, drive);
    let completed = driven?;
    let last = (*rx_last.borrow()).context("no last token")?;
    Ok((watched?, ms(completed - last)))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// A daemon of the bench, with its own world under `dir`.
fn world(release: &Path, dir: &Path, claude: &Path, api: &StandIn, spares: u32) -> BenchEnv {
    let _ = std::fs::remove_dir_all(dir);
    let mut extra_env = api.env();
    extra_env.push(("PADDOCK_SPARE_PROCESSES".into(), spares.to_string()));
    // Every chat of the run keeps its process: room for them and the spare.
    extra_env.push(("PADDOCK_MAX_PROCESSES".into(), "64".into()));
    BenchEnv {
        release: release.to_path_buf(),
        dir: dir.to_path_buf(),
        data: dir.join("data"),
        claude: claude.to_path_buf(),
        extra_env,
    }
}

pub fn run(root: &Path, release: &Path, report: &mut Report) -> Result<()> {
    println!();
    let Some(claude) = claude_bin() else {
        println!(
            "a chat's first token: skipped, no Claude Code CLI (bash .ci/install-claude.sh installs it)"
        );
        return Ok(());
    };
    let version = std::process::Command::new(&claude)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    println!(
        "a chat's first token and its turn's end (release builds; Claude Code {version}; the stand-in answers at once; medians of {RUNS} rounds)"
    );
    let rt = tokio::runtime::Runtime::new().context("tokio runtime")?;
    rt.block_on(rounds(root, release, &claude, report))
}

async fn rounds(root: &Path, release: &Path, claude: &Path, report: &mut Report) -> Result<()> {
    let api = StandIn::start(root).await?;
    let dir = root.join("target").join("bench-start");
    let cold = world(release, &dir.join("cold"), claude, &api, 0);
    let warm = world(release, &dir.join("warm"), claude, &api, 1);
    let trees = world(release, &dir.join("trees"), claude, &api, 1);
    // A project whose chats work in worktrees, on a repository of 5,000 files (made anew:
    // no worktree or branch of an earlier run).
    let repo = dir.join("repo-big");
    let _ = std::fs::remove_dir_all(&repo);
    crate::bench_worktrees::repository(&repo, crate::bench_worktrees::FILES)?;
    let (cold_daemon, _) = cold.start_daemon()?;
    let (warm_daemon, _) = warm.start_daemon()?;
    let (trees_daemon, _) = trees.start_daemon()?;
    for env in [&cold, &trees] {
        let path = repo.to_string_lossy().into_owned();
        env.paddock(&["project", "add", "big", "--path", &path])?;
        env.paddock(&["project", "set", "big", "--isolation", "worktree"])?;
    }
    let stop = |env: &BenchEnv, mut d: Running| {
        let _ = env.stop_daemon(&mut d);
    };
    let measured = async {
        let mut cold_conn = Conn::open(&cold.socket()).await?;
        let mut warm_conn = Conn::open(&warm.socket()).await?;
        let mut trees_conn = Conn::open(&trees.socket()).await?;
        // Warm-up: the binary in the page cache, each daemon's first use of the project.
        bare_first_token(claude, &dir, &api, 0).await?;
        turn(&mut cold_conn, None, "warm up").await?;
        turn(&mut warm_conn, None, "warm up").await?;
        turn_in(&mut cold_conn, "big", None, "warm up").await?;
        turn_in(&mut trees_conn, "big", None, "warm up").await?;
        let pane = TuiPane::start(&warm).await?;
        let mut f: [Vec<f64>; 10] = Default::default();
        for n in 1..=RUNS {
            spare_ready(&mut warm_conn).await?;
            f[0].push(bare_first_token(claude, &dir, &api, n).await?);
            f[1].push(
                turn(&mut cold_conn, None, &format!("cold {n}"))
                    .await?
                    .first_token,
            );
            spare_ready(&mut warm_conn).await?;
            let new = turn(&mut warm_conn, None, &format!("spare {n}")).await?;
            f[2].push(new.first_token);
            spare_ready(&mut warm_conn).await?;
            let follow = turn(&mut warm_conn, Some(&new.session_id), &format!("again {n}")).await?;
            f[3].push(follow.first_token);
            f[4].push(follow.end_after_last);
            f[5].push(send_exit_after_reply(&warm, &new.session_id, &format!("cli {n}")).await?);
            if let Some(pane) = &pane {
                let (to_tui, to_complete) =
                    tui_end_after_last(pane, &mut warm_conn, &new.session_id).await?;
                f[6].push(to_tui);
                f[9].push(to_complete);
            }
            let tree = turn_in(&mut cold_conn, "big", None, &format!("tree {n}")).await?;
            f[7].push(tree.first_token);
            spare_ready_in(&mut trees_conn, "big").await?;
            let tree = turn_in(&mut trees_conn, "big", None, &format!("spare tree {n}")).await?;
            f[8].push(tree.first_token);
        }
        Ok::<_, anyhow::Error>(f.map(median))
    }
    .await;
    stop(&cold, cold_daemon);
    stop(&warm, warm_daemon);
    stop(&trees, trees_daemon);
    let [
        bare,
        cold_new,
        spare_new,
        follow,
        to_complete,
        to_exit,
        to_tui,
        tree_cold,
        tree_spare,
        tui_turn_complete,
    ] = measured?;
    println!("  bare claude -p, start → first token             {bare:>9.1} ms");
    println!(
        "  new chat, no spare, send → first token          {cold_new:>9.1} ms  ({:.2}× bare)",
        cold_new / bare
    );
    println!(
        "  new chat, a spare ready, send → first token     {spare_new:>9.1} ms  ({:.2}× bare)",
        spare_new / bare
    );
    println!(
        "  follow-up, warm claude, send → first token      {follow:>9.1} ms  ({:.2}× bare)",
        follow / bare
    );
    let files = crate::bench_worktrees::FILES;
    println!("  worktree chat ({files} files), no spare → first token {tree_cold:>7.1} ms");
    println!(
        "  worktree chat, a spare worktree ready → first token {tree_spare:>5.1} ms  ({:+.1} ms on a new chat with a spare)",
        tree_spare - spare_new
    );
    println!("  last token → chat:complete on the socket        {to_complete:>9.1} ms");
    println!("  last token → paddock send -c exits              {to_exit:>9.1} ms");
    if to_tui.is_nan() {
        println!("  last token → the TUI shows it idle: skipped (no tmux)");
    } else {
        println!(
            "  last token → the TUI shows it idle              {to_tui:>9.1} ms  (that turn's chat:complete on the socket: {tui_turn_complete:.1} ms)"
        );
    }
    report.note("bare claude -p first token", bare, "ms");
    report.note(
        "new chat first token, no spare / bare claude -p",
        cold_new / bare,
        "×",
    );
    report.goal(
        "new chat first token, a spare / bare claude -p",
        spare_new / bare,
        "×",
        0.2,
    );
    report.note("follow-up first token / bare claude -p", follow / bare, "×");
    report.note(
        format!("worktree chat first token, {files} files, no spare"),
        tree_cold,
        "ms",
    );
    report.goal(
        "worktree chat first token, a spare worktree − new chat's, a spare",
        tree_spare - spare_new,
        "ms",
        100.0,
    );
    report.note("last token → chat:complete (socket)", to_complete, "ms");
    if !to_tui.is_nan() {
        report.goal("last token → the TUI shows it idle", to_tui, "ms", 20.0);
    }
    report.goal(
        "last token → turn ended (send -c exits)",
        to_exit,
        "ms",
        20.0,
    );
    Ok(())
}
