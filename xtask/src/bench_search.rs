//! `cargo xtask bench`, search over the 10,000 chats of [`crate::bench_corpus`]: every figure is
//! a whole `paddock search --json` command against a release daemon, as a user runs it.
//!
//! 1. the index built from nothing, in the background after a start with none (from the
//!    daemon's log: "search index built"), and its segments merged after it (the daemon quiet);
//! 2. every query shape the search language has, on prose of a realistic vocabulary: a word in
//!    every chat, a rare word, prefixes, several common words, a phrase of the most common words
//!    and the same words in an order found nowhere;
//! 3. a message appended to a transcript: the time from its line written to the first search
//!    that finds it;
//! 4. a restart: the time from the daemon's start to the first complete answer (the index is
//!    opened as committed, not rebuilt).

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::bench_corpus::{CHATS, Vocabulary};
use crate::bench_env::{BenchEnv, Running};
use crate::report::Report;

/// Every query shape must answer within this, the whole command (ms).
const QUERY_GOAL: f64 = 50.0;

/// The queries timed, each with what it shows.
fn queries(vocabulary: &Vocabulary) -> Vec<(String, String)> {
    let common = |ranks: &[usize]| -> String {
        ranks
            .iter()
            .map(|&r| vocabulary.word(r))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let rare = vocabulary.word(40_000);
    let made = vocabulary.word(2_000);
    let prefix = &made[..made.len().min(3)];
    vec![
        ("zqxj".into(), "a word in no chat: the round trip".into()),
        (common(&[0]), "the most common word, in every chat".into()),
        ("layout".into(), "a word in every chat".into()),
        (rare.into(), "a rare word (rank 40,000)".into()),
        ("\"chat 4321\"".into(), "a rare phrase".into()),
        ("th".into(), "a prefix of the most common words".into()),
        (prefix.into(), "a prefix of made-up words".into()),
        (common(&[2, 5, 9]), "three common words".into()),
        (
            format!("\"{}\"", common(&[0, 1, 2])),
            "a phrase of the three most common words".into(),
        ),
        (
            format!("\"{}\"", common(&[5, 4, 3, 2, 1, 0])),
            "the six most common words in an order found nowhere".into(),
        ),
        ("\"module layout\"".into(), "a phrase in every chat".into()),
    ]
}

/// Waits for the daemon started at `started` to log "search index built" (after byte `from`
/// of its log) and reports the build.
pub fn build_figures(
    log: &Path,
    from: u64,
    started: Instant,
    report: &mut Report,
) -> Result<Instant> {
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
    let secs = field("elapsed_ms") / 1000.0;
    println!(
        "  search index: built from nothing             {:>9.1} s   (daemon start → built {:.1} s; {} chats, {} documents, {} segments)",
        secs,
        ready.as_secs_f64(),
        field("chats"),
        field("documents"),
        field("segments"),
    );
    report.goal(
        format!("search index build from nothing, {CHATS} chats"),
        secs,
        "s",
        20.0,
    );
    Ok(Instant::now())
}

/// Waits until the daemon has been quiet (under 2% of a core) for a second, as it is once the
/// index's segments written by the build are merged in the background; prints how long that
/// took. A daemon stopped before would merge them again at its next start.
pub fn settle_figure(daemon: &Running, built: Instant) -> Result<()> {
    if !crate::bench::wait_quiet(&[daemon.0.id()], Duration::from_secs(300)) {
        bail!("the daemon was still busy 5 minutes after the search index was built");
    }
    println!(
        "  search index: merged, the daemon quiet        {:>9.1} s   (after the build, less the quiet second)",
        built.elapsed().as_secs_f64() - 1.0
    );
    Ok(())
}

/// Times each query shape (median of 5 whole commands).
pub fn query_figures(env: &BenchEnv, vocabulary: &Vocabulary, report: &mut Report) -> Result<()> {
    for (query, what) in queries(vocabulary) {
        let mut times = Vec::new();
        let mut shown = String::new();
        for _ in 0..5 {
            let (out, took) = env.search_json(&query)?;
            times.push(ms(took));
            let v: serde_json::Value = serde_json::from_slice(&out).context("search --json")?;
            if v.get("indexing").is_some() {
                bail!(
                    "search {query}: the index is still being built; the figure would not be complete"
                );
            }
            shown = format!(
                "total {}, {} listed",
                v["total"],
                v["hits"].as_array().map_or(0, Vec::len)
            );
        }
        times.sort_by(f64::total_cmp);
        println!(
            "  search {:<30} {:>17.0} ms  ({what}: {shown}; median of 5)",
            query, times[2]
        );
        report.goal(
            format!("search {query} ({what})"),
            times[2],
            "ms",
            QUERY_GOAL,
        );
    }
    Ok(())
}

/// Appends a message with a word no chat has to chat 1234's transcript, then searches for the
/// word until it is found: the time from the line written to the answer that has it.
pub fn message_figure(env: &BenchEnv, chats: &Path, report: &mut Report) -> Result<()> {
    let word = format!("quixotic{}", std::process::id());
    let line = crate::bench_corpus::assistant_line(1234, &format!("A new {word} message."));
    let path = chats.join(format!("{}.jsonl", crate::bench_corpus::uuid_for(1234)));
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    let written = Instant::now();
    file.write_all(line.as_bytes())?;
    let deadline = written + Duration::from_secs(30);
    let mut searches = 0;
    let found = loop {
        let (out, _) = env.search_json(&word)?;
        searches += 1;
        let v: serde_json::Value = serde_json::from_slice(&out).context("search --json")?;
        if v["total"] == 1 {
            break written.elapsed();
        }
        if Instant::now() > deadline {
            bail!("a message written 30 s ago is not found by search");
        }
    };
    println!(
        "  search: a new message found                  {:>9.0} ms  (from its line written; {searches} searches)",
        ms(found)
    );
    report.goal(
        "search: a message searchable after its line is written",
        ms(found),
        "ms",
        1000.0,
    );
    Ok(())
}

/// Starts the daemon on its persisted index and searches at once, until an answer is complete:
/// the time from the start to that answer. The daemon is returned running.
pub fn restart_figure(
    env: &BenchEnv,
    vocabulary: &Vocabulary,
    report: &mut Report,
) -> Result<Running> {
    let query = vocabulary.word(40_000).to_owned();
    let (daemon, started) = env.start_daemon()?;
    let mut searches = 0;
    let (alone, total) = loop {
        let (out, took) = env.search_json(&query)?;
        searches += 1;
        let v: serde_json::Value = serde_json::from_slice(&out).context("search --json")?;
        if v.get("indexing").is_none() {
            break (took, v["total"].clone());
        }
        if started.elapsed() > Duration::from_secs(600) {
            bail!("searches were still incomplete 10 minutes after a restart");
        }
    };
    let first = started.elapsed();
    println!(
        "  search after a restart: start → complete     {:>9.0} ms  (search {query}: total {total}; {searches} searches, the last {:.0} ms)",
        ms(first),
        ms(alone)
    );
    report.goal(
        "search: daemon start → first complete answer (index persisted)",
        ms(first),
        "ms",
        100.0,
    );
    Ok(daemon)
}

/// The daemon's memory after the searches: private (anonymous) beside resident.
pub fn memory_figures(daemon: &Running, report: &mut Report) {
    let mb = |k: Option<u64>| k.map_or(f64::NAN, |k| k as f64 / 1024.0);
    let (private, rss) = (mb(daemon.private_kib()), mb(daemon.rss_kib()));
    println!(
        "  daemon memory, {CHATS} chats and a spare, after searching {private:>9.1} MB private  (RSS {rss:.1} MB, with the index's mapped pages; the spare's own claude not counted)"
    );
    report.goal(
        format!("daemon private memory, {CHATS} chats and a spare, after searching"),
        private,
        "MB",
        50.0,
    );
    report.note(
        format!("daemon RSS, {CHATS} chats, after searching"),
        rss,
        "MB",
    );
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
