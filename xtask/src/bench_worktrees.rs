//! `cargo xtask bench worktrees`: what a chat's own git worktree costs (issue 37).
//!
//! On a repository of 5,000 files (nested folders, 1–8 KB each, about 22 MB: a mid-sized
//! code base), with release builds of `paddockd` and `paddock` and the stand-in CLI:
//!
//! 1. `git worktree add -b B DIR HEAD` alone (then removed): the floor;
//! 2. `paddock send --detach` of a new chat in the project's checkout, and of one with
//!    `--worktree` (the command's whole run, until the daemon has accepted the turn);
//! 3. `paddock worktree ls --json` with 50 worktree chats.
//!
//! Each figure is the median of [`RUNS`] runs, side by side in one run.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

use crate::bench_env::{BenchEnv, Running};
use crate::report::Report;

/// Files in the large repository.
pub(crate) const FILES: usize = 5_000;
/// Worktree chats listed by `worktree ls`.
const LISTED: usize = 50;
/// Runs per figure (the median is reported).
const RUNS: usize = 5;

impl BenchEnv {
    /// How long `paddock ARGS` takes.
    fn timed(&self, args: &[&str]) -> Result<Duration> {
        Ok(self.paddock_timed(args)?.1)
    }
}

/// The daemon, stopped when dropped.
struct Daemon<'a>(&'a BenchEnv, Running);

impl Drop for Daemon<'_> {
    fn drop(&mut self) {
        let _ = self.0.stop_daemon(&mut self.1);
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<()> {
    let ok = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=bench", "-c", "user.email=bench@localhost"])
        .args(args)
        .stdout(Stdio::null())
        .status()?
        .success();
    if !ok {
        bail!("git {args:?} failed in {}", dir.display());
    }
    Ok(())
}

/// A repository of `files` files in nested folders, committed.
pub(crate) fn repository(dir: &Path, files: usize) -> Result<()> {
    if dir.join(".git").is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    git(dir, &["init", "-q", "-b", "main"])?;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..files {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let folder = dir.join(format!("src/m{:02}/p{:02}", i % 40, (i / 40) % 25));
        std::fs::create_dir_all(&folder)?;
        let size = 1024 + (seed % 7168) as usize;
        let line = format!("// file {i}: some code of a realistic size and shape\n");
        let text: String = line.repeat(size / line.len() + 1);
        std::fs::write(folder.join(format!("f{i}.rs")), &text[..size])?;
    }
    git(dir, &["add", "."])?;
    git(dir, &["commit", "-qm", "a code base"])?;
    Ok(())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub fn run(root: &Path, release: &Path, report: &mut Report) -> Result<()> {
    println!();
    println!("worktree chats (release builds; {FILES} files; medians of {RUNS} runs)");
    let dir = root.join("target").join("bench-worktrees");
    let _ = std::fs::remove_dir_all(dir.join("data"));
    let _ = std::fs::remove_dir_all(dir.join("run"));
    std::fs::create_dir_all(&dir)?;
    let big = dir.join("repo-big");
    let small = dir.join("repo-small");
    repository(&big, FILES)?;
    repository(&small, 100)?;
    let env = BenchEnv {
        release: release.to_path_buf(),
        claude: crate::bench::stand_in_wrapper(&dir)?,
        data: dir.join("data"),
        dir: dir.clone(),
        extra_env: Vec::new(),
    };

    let (daemon, _) = env.start_daemon()?;
    let _daemon = Daemon(&env, daemon);
    let big_arg = big.to_string_lossy().into_owned();
    let small_arg = small.to_string_lossy().into_owned();
    env.paddock(&["project", "add", "big", "--path", &big_arg])?;
    env.paddock(&["project", "add", "small", "--path", &small_arg])?;
    // Side by side, round after round (each round: git alone, a plain chat, a worktree chat),
    // so a machine that slows down slows all three.
    let (mut alone, mut plain, mut isolated) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..RUNS {
        let dest = dir.join(format!("alone-{i}"));
        let branch = format!("alone-{i}");
        let dest_arg = dest.to_string_lossy().into_owned();
        let t = Instant::now();
        git(
            &big,
            &[
                "worktree", "add", "--quiet", "-b", &branch, &dest_arg, "HEAD",
            ],
        )?;
        alone.push(ms(t.elapsed()));
        git(&big, &["worktree", "remove", "--force", &dest_arg])?;
        git(&big, &["branch", "-D", &branch])?;
        plain.push(ms(env.timed(&["send", "-p", "big", "--detach", "hello"])?));
        isolated.push(ms(env.timed(&[
            "send",
            "-p",
            "big",
            "--worktree",
            "--detach",
            "hello",
        ])?));
    }
    let (alone, plain, isolated) = (median(alone), median(plain), median(isolated));
    println!("  git worktree add alone                      {alone:>9.1} ms");
    println!("  new chat, the project's checkout            {plain:>9.1} ms");
    println!("  new chat in a worktree of its own           {isolated:>9.1} ms");
    report.note(
        format!("git worktree add alone, {FILES} files"),
        alone,
        "ms",
    );
    report.note("new chat start (send --detach), checkout", plain, "ms");
    report.note("new chat start (send --detach), worktree", isolated, "ms");
    report.goal(
        "worktree chat start − git worktree add alone",
        isolated - alone,
        "ms",
        100.0,
    );

    // 3. worktree ls with 50 worktree chats.
    for _ in 0..LISTED {
        env.paddock(&["send", "-p", "small", "--worktree", "--detach", "hello"])?;
    }
    let mut listed = Vec::new();
    for _ in 0..RUNS {
        listed.push(ms(env.timed(&["worktree", "ls", "--json"])?));
    }
    let listed = median(listed);
    let out = env.paddock(&["worktree", "ls", "--json"])?;
    let n = serde_json::from_str::<serde_json::Value>(&out)?["worktrees"]
        .as_array()
        .map_or(0, Vec::len);
    println!("  worktree ls --json, {n} worktree chats       {listed:>9.1} ms");
    report.goal(
        format!("worktree ls --json, {n} worktree chats"),
        listed,
        "ms",
        100.0,
    );
    Ok(())
}
