//! `cargo xtask bench`, part two: listing 10,000 chats.
//!
//! Generates 10,000 realistic transcripts (about 1 GB: prompts, environment attachments,
//! assistant text, tool calls with large results, usage) in the root workspace of a scratch
//! data directory, then, with release builds of `paddockd` and `paddock`:
//!
//! 1. `cat` of the same bytes (warm page cache): the floor for reading every transcript;
//! 2. `paddock ls --json` with the index absent: a daemon started on the folder rebuilds the
//!    index, and the first listing waits for it;
//! 3. `paddock ls --json` with the index warm: the daemon restarted on its persisted index, the
//!    first listing after the start, and then the steady state;
//! 4. the search index, built in the background after that start: its build time and size
//!    (from the daemon's log), then `paddock search --json` for words, prefixes and phrases,
//!    rare and in every chat;
//! 5. `chat:list` over one connection, as the TUI asks it: the full list against a delta
//!    (`since`) after one chat changed (starred or unstarred), each decoded as the client does
//!    and the delta applied to the 10,000 rows held;
//! 6. the daemon's resident memory with the 10,000 chats indexed (both indexes);
//! 7. the idle daemon: its CPU and wake-ups over a minute with nobody asking anything.
//!
//! The corpus is kept in `target/bench-chats/` and reused while its parameters match.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::bench_env::BenchEnv;
use crate::report::Report;

const CHATS: usize = 10_000;
/// Bytes of tool output per tool call (the CLI stores it twice: in the result and in
/// `toolUseResult`); with the rest, a transcript is about 100 KB.
const TOOL_OUTPUT: usize = 6_000;
const TURNS: usize = 7;
const CORPUS_VERSION: &str = "chats-v1-10000x7";

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
        // No turn runs in this bench.
        claude: PathBuf::from("/bin/false"),
    };
    // 2. Index absent.
    let state = data.join("state");
    let _ = std::fs::remove_dir_all(&state);
    let (mut daemon, started) = env.start_daemon()?;
    let (out, first) = env.ls_json()?;
    let cold = started.elapsed();
    let listed = count_chats(&out)?;
    println!(
        "  index absent: daemon start → first ls --json {:>9.0} ms  ({listed} chats listed; ls alone {:.0} ms)",
        ms(cold),
        ms(first)
    );
    report.note(
        format!("index absent: daemon start → first ls --json, {CHATS} chats"),
        ms(cold),
        "ms",
    );
    let rss_cold = rss_kib(&daemon);
    env.stop_daemon(&mut daemon)?;

    // 3. Index warm.
    let log = bench.join("paddockd.log");
    let log_from = std::fs::metadata(&log).map_or(0, |m| m.len());
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
        0.2,
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
    search_figures(&env, started, &log, log_from, report)?;
    vocabulary_figures(&env, report)?;
    // 5. Deltas.
    delta_figures(&env, report)?;
    let rss = rss_kib(&daemon);
    report.goal(
        format!("daemon RSS, {CHATS} chats indexed"),
        rss.map_or(f64::NAN, |k| k as f64 / 1024.0),
        "MB",
        50.0,
    );
    println!(
        "  daemon RSS with {CHATS} chats indexed          {:>9.1} MB  (after the rebuild: {:.1} MB)",
        rss.unwrap_or(0) as f64 / 1024.0,
        rss_cold.unwrap_or(0) as f64 / 1024.0
    );
    // 6. Idle.
    idle_figures(&daemon, report);
    env.stop_daemon(&mut daemon)?;
    Ok(())
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

/// Queries of the search figures, and what each shows. The corpus's text is a 20-word lorem
/// (every chat has every word) plus `Chat N` and the module paths.
const QUERIES: &[(&str, &str)] = &[
    ("zqxj", "no candidate: the round trip"),
    ("4321", "a rare word"),
    ("\"chat 4321\"", "a rare phrase"),
    ("layout", "a word in every chat"),
    ("summ", "a prefix of words in every chat"),
    ("\"module layout\"", "a phrase in every chat"),
    ("\"layout module\"", "a phrase in none, its words in all"),
];

/// The search index with a realistic vocabulary (the corpus's is a 20-word lorem), measured
/// in-process by the release `paddockd bench-search`.
fn vocabulary_figures(env: &BenchEnv, report: &mut Report) -> Result<()> {
    let out = Command::new(env.release.join("paddockd"))
        .args(["bench-search", "--chats", &CHATS.to_string()])
        .stdin(Stdio::null())
        .output()
        .context("paddockd bench-search")?;
    if !out.status.success() {
        bail!(
            "paddockd bench-search failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    println!("  search index, a 300,000-word vocabulary (in-process):");
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        println!("    {line}");
        if let Some(secs) = line
            .split_once("built in ")
            .and_then(|(_, t)| t.trim_end_matches(" s").trim().parse::<f64>().ok())
        {
            report.goal(
                "search index build, a 300,000-word vocabulary",
                secs,
                "s",
                3.0,
            );
        }
    }
    Ok(())
}

/// Waits for the daemon's "search index built" line (logged after `from`), prints the build
/// figures, then times each of [`QUERIES`] (median of 5).
fn search_figures(
    env: &BenchEnv,
    started: Instant,
    log: &Path,
    from: u64,
    report: &mut Report,
) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(600);
    let line = loop {
        if let Some(line) = log_line_after(log, from, "search index built") {
            break line;
        }
        if Instant::now() > deadline {
            bail!("the search index was not built within 10 minutes");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let ready = started.elapsed();
    let field = |name: &str| -> f64 {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN)
    };
    println!(
        "  search index: build (after the chat list)    {:>9.0} ms  (daemon start → built {:.0} ms; {} threads)",
        field("elapsed_ms"),
        ms(ready),
        field("threads"),
    );
    report.note(
        "search index build, the corpus's vocabulary",
        field("elapsed_ms") / 1000.0,
        "s",
    );
    println!(
        "  search index: size                           {:>9.1} MB  ({:.0} tokens, {:.0} (token, chat) pairs)",
        field("index_bytes") / 1e6,
        field("tokens"),
        field("pairs"),
    );
    for (query, what) in QUERIES {
        let mut times = Vec::new();
        let mut shown = String::new();
        for _ in 0..5 {
            let (out, took) = env.search_json(query)?;
            times.push(ms(took));
            let v: serde_json::Value = serde_json::from_slice(&out).context("search --json")?;
            shown = format!(
                "total {}, {} listed",
                v["total"],
                v["hits"].as_array().map_or(0, Vec::len)
            );
        }
        times.sort_by(f64::total_cmp);
        println!(
            "  search {:<20} {:>27.0} ms  ({what}: {shown}; median of 5)",
            query, times[2]
        );
        report.goal(format!("search {query} ({what})"), times[2], "ms", 100.0);
    }
    Ok(())
}

/// The first line of `log` past byte `from` that contains `needle`.
fn log_line_after(log: &Path, from: u64, needle: &str) -> Option<String> {
    let bytes = std::fs::read(log).ok()?;
    let tail = bytes.get(usize::try_from(from).ok()?..)?;
    String::from_utf8_lossy(tail)
        .lines()
        .find(|l| l.contains(needle))
        .map(str::to_owned)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn count_chats(json: &[u8]) -> Result<usize> {
    let v: serde_json::Value = serde_json::from_slice(json).context("ls --json output")?;
    Ok(v.as_array().map_or(0, Vec::len))
}

/// A daemon the bench started: killed if the bench fails before stopping it.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn rss_kib(child: &Running) -> Option<u64> {
    let child = &child.0;
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

impl BenchEnv {
    fn start_daemon(&self) -> Result<(Running, Instant)> {
        // A daemon left from an earlier, interrupted run would answer instead.
        if self.socket().exists() {
            let mut c = Command::new(self.release.join("paddock"));
            self.envs(&mut c);
            c.args(["daemon", "stop"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()?;
        }
        let mut c = Command::new(self.release.join("paddockd"));
        self.envs(&mut c);
        let started = Instant::now();
        let child = c
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting paddockd")?;
        let mut child = Running(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.socket().exists() {
            if let Ok(Some(status)) = child.0.try_wait() {
                bail!(
                    "paddockd exited at start ({status}); see {}",
                    self.dir.join("paddockd.log").display()
                );
            }
            if Instant::now() > deadline {
                bail!("paddockd did not create its socket within 60 s");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok((child, started))
    }

    fn stop_daemon(&self, child: &mut Running) -> Result<()> {
        let mut c = Command::new(self.release.join("paddock"));
        self.envs(&mut c);
        c.args(["daemon", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()?;
        child.0.wait()?;
        Ok(())
    }

    /// Runs `paddock search --json QUERY`; its output and how long it took.
    fn search_json(&self, query: &str) -> Result<(Vec<u8>, Duration)> {
        let mut c = Command::new(self.release.join("paddock"));
        self.envs(&mut c);
        let t = Instant::now();
        let out = c
            .args(["search", "--json", query])
            .output()
            .context("paddock search")?;
        let took = t.elapsed();
        if !out.status.success() {
            bail!(
                "paddock search --json {query} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok((out.stdout, took))
    }

    /// Runs `paddock ls --json`; its output and how long it took.
    fn ls_json(&self) -> Result<(Vec<u8>, Duration)> {
        let mut c = Command::new(self.release.join("paddock"));
        self.envs(&mut c);
        let t = Instant::now();
        let out = c.args(["ls", "--json"]).output().context("paddock ls")?;
        let took = t.elapsed();
        if !out.status.success() {
            bail!(
                "paddock ls --json failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok((out.stdout, took))
    }
}

/// Generates the corpus unless a complete one is already there.
fn corpus(bench: &Path, workspace: &Path, chats: &Path) -> Result<(usize, u64)> {
    let marker = bench.join("corpus.done");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(CORPUS_VERSION) {
        return measure(chats);
    }
    let _ = std::fs::remove_dir_all(bench);
    std::fs::create_dir_all(chats)?;
    let cwd = std::fs::canonicalize(workspace)?;
    let cwd = cwd.to_string_lossy().into_owned();
    let t = Instant::now();
    let filler = lorem(TOOL_OUTPUT * 2);
    for n in 0..CHATS {
        let sid = uuid_for(n);
        let text = transcript(&sid, &cwd, n, &filler);
        std::fs::write(chats.join(format!("{sid}.jsonl")), text)?;
        if (n + 1) % 2000 == 0 {
            eprintln!(
                "  generated {} of {CHATS} transcripts ({:.0} s)",
                n + 1,
                t.elapsed().as_secs_f64()
            );
        }
    }
    std::fs::write(&marker, CORPUS_VERSION)?;
    measure(chats)
}

fn measure(chats: &Path) -> Result<(usize, u64)> {
    let mut files = 0;
    let mut bytes = 0;
    for e in std::fs::read_dir(chats)?.flatten() {
        files += 1;
        bytes += e.metadata()?.len();
    }
    Ok((files, bytes))
}

/// A stable UUID-shaped id per chat number.
fn uuid_for(n: usize) -> String {
    format!("{:08x}-0000-4000-8000-{:012x}", n, n * 7919)
}

fn lorem(len: usize) -> String {
    const WORDS: &[&str] = &[
        "fn", "let", "match", "impl", "struct", "async", "await", "return", "Result", "Option",
        "self", "String", "Vec", "pub", "use", "crate", "mod", "where", "trait", "const",
    ];
    let mut out = String::with_capacity(len + 16);
    let mut i = 0usize;
    while out.len() < len {
        out.push_str(WORDS[(i * 7 + i / 3) % WORDS.len()]);
        out.push(if i % 11 == 10 { '\n' } else { ' ' });
        i += 1;
    }
    out
}

/// One realistic transcript: a prompt, attachments, and turns of text, a tool call and its
/// large result, each assistant message with usage, as Claude Code 2.1 writes them.
fn transcript(sid: &str, cwd: &str, n: usize, filler: &str) -> String {
    use serde_json::json;
    let mut out = String::new();
    let mut push = |v: serde_json::Value| {
        out.push_str(&v.to_string());
        out.push('\n');
    };
    let mut t = 1_764_000_000_000i64 + i64::try_from(n).unwrap_or(0) * 60_000;
    let mut stamp = || {
        t += 1500;
        chrono_like(t)
    };
    let prompt = format!(
        "Chat {n}: look at the module layout and {} Then summarise what you changed.",
        &filler[..200 + n % 800]
    );
    push(
        json!({"type":"queue-operation","operation":"enqueue","timestamp":stamp(),"sessionId":sid,"content":prompt}),
    );
    let mut parent = format!("{n:08x}-1111-4000-8000-000000000000");
    push(json!({"parentUuid":null,"isSidechain":false,"type":"user",
        "message":{"role":"user","content":prompt},"uuid":parent,"timestamp":stamp(),
        "permissionMode":"default","promptSource":"sdk","userType":"external","entrypoint":"sdk-cli",
        "cwd":cwd,"sessionId":sid,"version":"2.1.332","gitBranch":"main"}));
    push(
        json!({"parentUuid":parent,"isSidechain":false,"type":"attachment",
        "attachment":{"type":"environment","snapshot":{"workingDirectory":cwd,"platform":"linux","shell":"bash"}},
        "rendered":[&filler[..2500]],"uuid":format!("{n:08x}-2222-4000-8000-000000000000"),
        "timestamp":stamp(),"cwd":cwd,"sessionId":sid,"version":"2.1.332"}),
    );
    for turn in 0..TURNS {
        let msg_id = format!("msg_{n:08x}_{turn}");
        let tool_id = format!("toolu_{n:08x}_{turn}");
        let usage = json!({"input_tokens": 3 + turn, "output_tokens": 180 + turn * 10,
            "cache_read_input_tokens": 12_000 + turn * 4_000, "cache_creation_input_tokens": 2_500});
        let a1 = format!("{n:08x}-{turn:04x}-4000-8000-00000000000a");
        push(
            json!({"parentUuid":parent,"isSidechain":false,"type":"assistant",
            "message":{"id":msg_id,"type":"message","role":"assistant","model":"claude-sonnet-4-5",
                "content":[{"type":"text","text":&filler[turn * 100..turn * 100 + 900]}],
                "stop_reason":null,"usage":usage},
            "requestId":format!("req_{n}_{turn}"),"uuid":a1,"timestamp":stamp(),
            "cwd":cwd,"sessionId":sid,"version":"2.1.332"}),
        );
        let a2 = format!("{n:08x}-{turn:04x}-4000-8000-00000000000b");
        push(
            json!({"parentUuid":a1,"isSidechain":false,"type":"assistant",
            "message":{"id":msg_id,"type":"message","role":"assistant","model":"claude-sonnet-4-5",
                "content":[{"type":"tool_use","id":tool_id,"name":"Read","input":{"file_path":format!("{cwd}/src/module_{turn}.rs")}}],
                "stop_reason":"tool_use","usage":usage},
            "requestId":format!("req_{n}_{turn}"),"uuid":a2,"timestamp":stamp(),
            "cwd":cwd,"sessionId":sid,"version":"2.1.332"}),
        );
        let r = format!("{n:08x}-{turn:04x}-4000-8000-00000000000c");
        let output = &filler[turn * 500..turn * 500 + TOOL_OUTPUT];
        push(json!({"parentUuid":a2,"isSidechain":false,"type":"user",
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":tool_id,"content":output}]},
            "toolUseResult":{"type":"text","file":{"filePath":format!("{cwd}/src/module_{turn}.rs"),"content":output,"numLines":400,"startLine":1,"totalLines":400}},
            "sourceToolAssistantUUID":a2,"uuid":r,"timestamp":stamp(),
            "cwd":cwd,"sessionId":sid,"version":"2.1.332"}));
        parent = r;
    }
    let last = format!("{n:08x}-ffff-4000-8000-00000000000d");
    push(
        json!({"parentUuid":parent,"isSidechain":false,"type":"assistant",
        "message":{"id":format!("msg_{n:08x}_end"),"type":"message","role":"assistant","model":"claude-sonnet-4-5",
            "content":[{"type":"text","text":"Done: the module layout is summarised above."}],
            "stop_reason":"end_turn","usage":{"input_tokens":2,"output_tokens":420,
                "cache_read_input_tokens":40_000,"cache_creation_input_tokens":1_200}},
        "uuid":last,"timestamp":stamp(),"cwd":cwd,"sessionId":sid,"version":"2.1.332"}),
    );
    push(json!({"type":"last-prompt","lastPrompt":"look at the module layout","leafUuid":last}));
    out
}

/// RFC 3339 (UTC, milliseconds) of an epoch-ms time, without pulling in a date crate.
fn chrono_like(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let milli = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (h, m, s) = (rem / 3600, rem / 60 % 60, rem % 60);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn dates_are_rfc3339() {
        assert_eq!(chrono_like(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(chrono_like(1_764_000_000_123), "2025-11-24T16:00:00.123Z");
    }

    #[test]
    fn a_transcript_is_about_100_kb_of_json_lines() {
        let filler = lorem(TOOL_OUTPUT * 2);
        let t = transcript(&uuid_for(7), "/tmp/x", 7, &filler);
        assert!(t.len() > 80_000 && t.len() < 140_000, "{} bytes", t.len());
        for line in t.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
            assert!(v.get("type").is_some());
        }
    }
}
