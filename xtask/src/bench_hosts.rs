//! `cargo xtask bench hosts`: one client over several hosts (issue 40).
//!
//! Three daemons stand in for three devboxes, each with 2,000 chats of the bench's corpus (its
//! own 2,000: ids are unique across hosts), reached the way `--remote` reaches a devbox: through
//! ssh, here a stand-in that runs the remote words with the host's own socket and data (what
//! sshd and the far side's environment would do), so every figure pays for the same pipes.
//! Side by side, round after round:
//!
//! 1. `paddock --remote hN ls -A --json` of each host alone;
//! 2. `paddock --remote h0,h1,h2 ls -A --json`: the three at once, merged (goal: ≤ 1.2× the
//!    slowest host alone);
//! 3. the same with a fourth host whose ssh hangs, and `PADDOCK_HOST_TIMEOUT=1`: its cost is
//!    the deadline (goal: ≤ the deadline + 100 ms).
//!
//! The limit beside the merged figure: the CPU the whole machine spent on it (the client, the
//! ssh stand-ins, the far sides' `paddock proxy` and the daemons all run here), spread over this
//! machine's cores, is as fast as it can be, as a ratio to the slowest host alone. On devboxes
//! the daemons and proxies run on their own machines, and only the client's share is here.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::bench_corpus::{corpus, uuid_for};
use crate::report::Report;

/// Chats per host.
const PER_HOST: usize = 2_000;
const HOSTS: [&str; 3] = ["h0", "h1", "h2"];
/// Rounds (the median is reported).
const RUNS: usize = 7;
/// The deadline of the hanging-host figure.
const HANG_TIMEOUT: Duration = Duration::from_secs(1);

/// A stand-in for ssh: drops ssh's options, then runs the remote words with the host's own
/// socket, data, log and configuration under `FAKE_HOSTS`; a host named `hang…` never answers.
/// The one the tests of several hosts use.
const FAKE_SSH: &str = include_str!("../../tests/src/fake_ssh_hosts.sh");

struct Hosts {
    release: PathBuf,
    dir: PathBuf,
}

impl Hosts {
    fn paddock(&self, remote: &str, args: &[&str]) -> Command {
        let mut c = Command::new(self.release.join("paddock"));
        c.env("PADDOCK_REMOTE", remote)
            .env("PADDOCK_SSH", self.dir.join("fake-ssh"))
            .env("FAKE_HOSTS", &self.dir)
            .env("PADDOCK_REMOTE_PADDOCK", self.release.join("paddock"))
            .env("PADDOCK_DAEMON_BIN", self.release.join("paddockd"))
            .env("PADDOCK_CLAUDE_BIN", "/bin/false")
            // This machine's daemon is never used: its socket is nowhere.
            .env("PADDOCK_SOCKET", self.dir.join("local/paddockd.sock"))
            .env("XDG_CONFIG_HOME", self.dir.join("local/config"))
            .env_remove("PADDOCK_CONFIG")
            .env_remove("PADDOCK_CLIENT_CONFIG")
            .env_remove("PADDOCK_HOST_TIMEOUT")
            .args(args)
            .stdin(Stdio::null());
        c
    }

    /// `ls -A --json` over `remote`: how long, and how many rows.
    fn ls(&self, remote: &str, timeout: Option<Duration>) -> Result<(Duration, usize)> {
        let mut c = self.paddock(remote, &["ls", "-A", "--json"]);
        if let Some(t) = timeout {
            c.env("PADDOCK_HOST_TIMEOUT", t.as_secs_f64().to_string());
        }
        let t = Instant::now();
        let out = c.output().context("running paddock ls")?;
        let took = t.elapsed();
        if !out.status.success() {
            bail!(
                "paddock --remote {remote} ls failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let rows = out
            .stdout
            .windows(12)
            .filter(|w| w == b"\"sessionId\":")
            .count();
        Ok((took, rows))
    }
}

pub fn run(root: &Path, release: &Path, report: &mut Report) -> Result<()> {
    println!();
    println!(
        "one client over {} hosts of {PER_HOST} chats each (release builds; through an ssh stand-in)",
        HOSTS.len()
    );
    // The chats of the `chats` part's corpus, 2,000 to a host.
    let bench = root.join("target").join("bench-chats");
    let corpus_chats = bench.join("data").join("workspace").join(".chats");
    corpus(&bench, &bench.join("data").join("workspace"), &corpus_chats)?;
    let dir = root.join("target").join("bench-hosts");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let ssh = dir.join("fake-ssh");
    std::fs::write(&ssh, FAKE_SSH)?;
    std::fs::set_permissions(
        &ssh,
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
    )?;
    for (h, host) in HOSTS.iter().enumerate() {
        let chats = dir.join(host).join("data").join("workspace").join(".chats");
        std::fs::create_dir_all(&chats)?;
        for n in h * PER_HOST..(h + 1) * PER_HOST {
            let name = format!("{}.jsonl", uuid_for(n));
            std::fs::hard_link(corpus_chats.join(&name), chats.join(&name))
                .or_else(|_| std::fs::copy(corpus_chats.join(&name), chats.join(&name)).map(|_| ()))
                .with_context(|| format!("linking {name}"))?;
        }
    }
    let hosts = Hosts {
        release: release.to_path_buf(),
        dir: dir.clone(),
    };
    let result = measure(&hosts, report);
    for host in HOSTS {
        let _ = hosts.paddock(host, &["daemon", "stop"]).output();
    }
    result
}

fn measure(hosts: &Hosts, report: &mut Report) -> Result<()> {
    // Each host's daemon started and its index built (the far side's `paddock proxy` starts it).
    for host in HOSTS {
        let (_, rows) = hosts.ls(host, None)?;
        if rows != PER_HOST {
            bail!("host {host} listed {rows} chats, not {PER_HOST}");
        }
    }
    // A daemon indexes its chats' messages for search after it starts, and merges the index's
    // segments after that; the figures are of hosts at rest, as devboxes mostly are: a search
    // answers once that index is complete, then each daemon is let go quiet.
    let mut pids = Vec::new();
    for host in HOSTS {
        let out = hosts
            .paddock(host, &["search", "--json", "lighthouse"])
            .output()
            .context("running paddock search")?;
        if !out.status.success() {
            bail!(
                "paddock --remote {host} search failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let out = hosts
            .paddock(host, &["daemon", "status", "--json"])
            .output()
            .context("running paddock daemon status")?;
        let status: serde_json::Value = serde_json::from_slice(&out.stdout)
            .with_context(|| format!("host {host}'s daemon status"))?;
        pids.extend(status["pid"].as_u64().and_then(|p| u32::try_from(p).ok()));
    }
    if !crate::bench::wait_quiet(&pids, Duration::from_secs(120)) {
        bail!("the hosts' daemons were still busy 2 minutes after their index was complete");
    }
    let all = HOSTS.join(",");
    let hang = format!("{all},hang");
    let mut single: Vec<Vec<f64>> = vec![Vec::new(); HOSTS.len()];
    let mut merged = Vec::new();
    let mut hung = Vec::new();
    for _ in 0..RUNS {
        for (i, host) in HOSTS.iter().enumerate() {
            single[i].push(ms(hosts.ls(host, None)?.0));
        }
        let (t, rows) = hosts.ls(&all, None)?;
        if rows != PER_HOST * HOSTS.len() {
            bail!("the merged listing has {rows} chats");
        }
        merged.push(ms(t));
        let (t, rows) = hosts.ls(&hang, Some(HANG_TIMEOUT))?;
        if rows != PER_HOST * HOSTS.len() {
            bail!("the listing with a hanging host has {rows} chats");
        }
        hung.push(ms(t));
    }
    // The limit: the merged listing again, round after round with nothing between, the
    // machine's busy time counted over all of them (its ticks are too coarse for one).
    let busy = machine_busy_ms();
    let started = Instant::now();
    for _ in 0..RUNS {
        hosts.ls(&all, None)?;
    }
    let wall = ms(started.elapsed()) / RUNS as f64;
    let merged_cpu = busy
        .zip(machine_busy_ms())
        .map(|(before, after)| (after - before) / RUNS as f64);
    let single: Vec<f64> = single.into_iter().map(median).collect();
    let slowest = single.iter().copied().fold(0.0, f64::max);
    let merged = median(merged);
    let hung = median(hung);
    for (host, t) in HOSTS.iter().zip(&single) {
        println!("  ls -A --json, {host} alone ({PER_HOST} chats)           {t:>9.1} ms");
    }
    println!(
        "  ls -A --json, the {} hosts at once, merged        {merged:>9.1} ms  ({:.2}× the slowest alone)",
        HOSTS.len(),
        merged / slowest
    );
    if let Some(cpu) = merged_cpu {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        println!(
            "  the limit: the machine's CPU for it, {cpu:.0} ms, over {cores:.0} cores = {:.1} ms ({:.2}× the slowest alone; the cores were {:.0} % busy)",
            cpu / cores,
            cpu / cores / slowest,
            100.0 * cpu / (cores * wall)
        );
    }
    println!(
        "  the same and a host whose ssh hangs (deadline {:.0} ms) {hung:>7.1} ms",
        ms(HANG_TIMEOUT)
    );
    report.goal(
        format!("ls --json over 3 hosts of {PER_HOST} chats / the slowest host alone"),
        merged / slowest,
        "×",
        1.2,
    );
    report.goal(
        "ls --json with a hanging host − its deadline (host_timeout)",
        hung - ms(HANG_TIMEOUT),
        "ms",
        100.0,
    );
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The CPU time the whole machine has spent busy so far, in ms: `/proc/stat`'s first line,
/// every state but idle and iowait, in ticks of 1/100 s.
fn machine_busy_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let ticks: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .take(8)
        .filter_map(|f| f.parse().ok())
        .collect();
    let idle = ticks.get(3)? + ticks.get(4)?;
    Some((ticks.iter().sum::<u64>() - idle) as f64 * 10.0)
}
