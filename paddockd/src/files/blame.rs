//! `provenance:blame`: which chat and turn last wrote each region of a file.
//!
//! The file's versions make a timeline, oldest first: the commits of HEAD's history that
//! touched it (the last [`MAX_COMMITS`], their contents read with `git`), and every recorded
//! write of it whose bytes were kept (`versions.rs`), merged in time order (a commit at its
//! committer second, a step when it ended). Walking the timeline from an empty file, each
//! version is line-diffed against the one before: lines it kept keep who wrote them, lines it
//! inserted or changed are its own (the commit's, or the chat's step). Last, the file on disk
//! now is diffed against the last version: lines that differ were made by nothing the daemon
//! recorded (`unknown`: the user's own edits, or a write it did not see).
//!
//! A write whose bytes were not kept is left out of the walk, so its lines go to what came
//! next (a note counts them). A commit and a step in the same second are ordered by content:
//! the step goes first when the commit holds exactly what it wrote (a chat that writes, then
//! commits), else after it.

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use paddock_proto::{
    Blame, BlameCommit, BlameRegion, BlameSource, ErrorBody, ErrorCode, ProvenanceFile,
};
use similar::{Algorithm, DiffOp};

use super::provenance::{Names, Records, label, lost_notes, unknown_file};
use crate::projects::Project;
use crate::provenance::steps::{FileRecord, Role, StepRecord};
use crate::provenance::versions;

/// The largest file blamed (now, or a commit's version of it).
pub const MAX_BLAME_BYTES: u64 = 4 * 1024 * 1024;
/// Commits of the file's history read, newest first; older ones are left out (a note says so).
pub const MAX_COMMITS: usize = 200;
/// How long one line diff may search before settling for a coarser one.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

fn invalid(message: String) -> ErrorBody {
    ErrorBody::new(ErrorCode::InvalidArgument, message)
}

/// `provenance:blame`.
pub async fn blame(d: &crate::chats::ChatService, r: ProvenanceFile) -> Result<Blame, ErrorBody> {
    let (project, file) = super::provenance::resolve_file(d, &r)?;
    let state = d.state.clone();
    super::provenance::blocking(move || report(&state, &project, &file.rel, &file.path)).await
}

/// Builds the reply (blocking: runs git, reads the kept versions).
fn report(
    state: &crate::state::ChatState,
    project: &Project,
    rel: &str,
    path: &Path,
) -> Result<Blame, ErrorBody> {
    let Records { steps: all, gaps } = Records::load(&project.meta_dir);
    let Some(now) = read_now(path, rel)? else {
        return Err(no_file(&all, project, rel));
    };
    let mut notes = Vec::new();
    let (writes, mut missing) = recorded_writes(&all, rel);
    let history = history(&project.agent_dir, rel);
    notes.extend(history.note.clone());
    let timeline = merged_timeline(&project.agent_dir, rel, &history, &writes);
    let versions = timeline.iter().enumerate().filter_map(|(i, entry)| {
        let text = version_text(project, rel, &history, &writes, *entry);
        if text.is_none() {
            missing += 1;
        }
        text.map(|text| (i, text))
    });
    let lines: Vec<&str> = now.lines().collect();
    let by = walk(versions, &lines);
    notes.extend(missing_note(missing));
    let mut names = Names::new(state);
    let writers = writes.iter().map(|w| w.0.session_id.as_str());
    notes.extend(lost_notes(
        &mut names,
        &gaps,
        writers,
        "lines it wrote may show as not recorded",
    ));
    notes.extend(unscanned_note(&all));
    let regions = blame_regions(&by, &timeline, &history, &writes, &mut names);
    Ok(Blame {
        project_slug: project.slug.clone(),
        path: rel.to_owned(),
        lines: lines.into_iter().map(str::to_owned).collect(),
        regions,
        notes,
    })
}

/// A recorded write of the file: the step, its edge on the file, and when it ended (ms).
type Write<'a> = (&'a StepRecord, &'a FileRecord, i64);

/// The error for a file not on disk: gone when some step names it, else not found.
fn no_file(all: &[StepRecord], project: &Project, rel: &str) -> ErrorBody {
    let named = all.iter().any(|s| s.files.iter().any(|f| f.path == rel));
    if named {
        invalid(format!(
            "{rel} is gone from project {}: blame shows the lines of a file that exists; `paddock provenance` shows who wrote or deleted it",
            label(&project.slug)
        ))
    } else {
        unknown_file(rel, &project.slug)
    }
}

/// The recorded writes of the file, in the order they ended, and how many have no end time.
fn recorded_writes<'a>(all: &'a [StepRecord], rel: &str) -> (Vec<Write<'a>>, usize) {
    let mut writes: Vec<Write<'a>> = Vec::new();
    let mut missing = 0usize;
    for s in all {
        let Some(f) = s
            .files
            .iter()
            .rev()
            .find(|f| f.role == Role::Write && f.path == rel)
        else {
            continue;
        };
        match millis(&s.ended_at) {
            Some(at) => writes.push((s, f, at)),
            None => missing += 1,
        }
    }
    (writes, missing)
}

/// The commits and the writes merged in time order; a commit holding exactly what a write of
/// its second left goes after it.
fn merged_timeline(dir: &Path, rel: &str, history: &History, writes: &[Write<'_>]) -> Vec<Entry> {
    let commit_times: Vec<i64> = history.commits.iter().map(|c| c.secs).collect();
    let write_times: Vec<i64> = writes.iter().map(|w| w.2).collect();
    order(&commit_times, &write_times, |c, w| {
        let (Some(commit), Some(hash)) = (history.commits.get(c), writes[w].1.hash.as_deref())
        else {
            return false;
        };
        commit_content(dir, &commit.info.sha, rel)
            .is_some_and(|bytes| versions::hash_bytes(&bytes) == hash)
    })
}

/// The text of one version of the file; `None` for a write whose bytes were not kept.
fn version_text(
    project: &Project,
    rel: &str,
    history: &History,
    writes: &[Write<'_>],
    entry: Entry,
) -> Option<String> {
    match entry {
        Entry::Commit(c) => Some(
            history
                .commits
                .get(c)
                .and_then(|commit| commit_content(&project.agent_dir, &commit.info.sha, rel))
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .unwrap_or_default(),
        ),
        Entry::Step(w) => {
            let (_, f, _) = writes[w];
            if f.change == "deleted" {
                Some(String::new())
            } else {
                f.hash
                    .as_deref()
                    .and_then(|h| versions::load(&project.meta_dir, h))
                    .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            }
        }
    }
}

/// The note on writes left out of the walk because their bytes were not kept.
fn missing_note(missing: usize) -> Option<String> {
    (missing > 0).then(|| {
        format!(
            "{missing} write{} by chats {} no kept version (too large, not text, or recorded before versions were kept), so {} lines are blamed on what came next.",
            if missing == 1 { "" } else { "s" },
            if missing == 1 { "has" } else { "have" },
            if missing == 1 { "its" } else { "their" },
        )
    })
}

/// The note on the project's tool calls that had no before/after scan.
fn unscanned_note(all: &[StepRecord]) -> Option<String> {
    let unscanned = all.iter().filter(|s| s.scan.is_some()).count();
    (unscanned > 0).then(|| {
        format!(
            "{unscanned} tool call{} of this project had no before/after scan, so lines {} wrote may show as not recorded.",
            if unscanned == 1 { "" } else { "s" },
            if unscanned == 1 { "it" } else { "they" }
        )
    })
}

/// The runs of lines with one author, each named as the wire shows it.
fn blame_regions(
    by: &[Option<usize>],
    timeline: &[Entry],
    history: &History,
    writes: &[Write<'_>],
    names: &mut Names<'_>,
) -> Vec<BlameRegion> {
    regions(by)
        .into_iter()
        .map(|(start, end, who)| {
            let by = match who.and_then(|i| timeline.get(i)) {
                Some(Entry::Commit(c)) => {
                    history.commits.get(*c).map_or(BlameSource::Unknown, |c| {
                        BlameSource::Commit(c.info.clone())
                    })
                }
                Some(Entry::Step(w)) => {
                    let (s, f, _) = writes[*w];
                    BlameSource::Step(Box::new(names.file_step(s, f)))
                }
                None => BlameSource::Unknown,
            };
            BlameRegion { start, end, by }
        })
        .collect()
}

/// The file on disk now, as text; `None` when there is none.
fn read_now(path: &Path, rel: &str) -> Result<Option<String>, ErrorBody> {
    let cannot = |e: std::io::Error| {
        ErrorBody::new(
            ErrorCode::Internal,
            format!("cannot read {rel}: {e}; paddockd needs to read it to blame it"),
        )
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(cannot(e)),
    };
    if !meta.is_file() {
        return Err(invalid(format!(
            "{rel} is not a regular file: blame works on text files up to 4 MiB"
        )));
    }
    let too_large = || {
        invalid(format!(
            "{rel} is larger than 4 MiB: blame works on text files up to 4 MiB"
        ))
    };
    if meta.len() > MAX_BLAME_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    match crate::confine::open(path)
        .and_then(|f| f.take(MAX_BLAME_BYTES + 1).read_to_end(&mut bytes))
    {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(cannot(e)),
    }
    if bytes.len() as u64 > MAX_BLAME_BYTES {
        return Err(too_large());
    }
    let not_text = || {
        invalid(format!(
            "{rel} is not a text file (it has NUL bytes or is not UTF-8): blame works on text files up to 4 MiB"
        ))
    };
    if bytes.contains(&0) {
        return Err(not_text());
    }
    String::from_utf8(bytes).map(Some).map_err(|_| not_text())
}

/// Milliseconds since the epoch of an RFC 3339 time.
fn millis(at: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(at)
        .ok()
        .map(|t| t.timestamp_millis())
}

// ---------------------------------------------------------------------------------------------
// The timeline
// ---------------------------------------------------------------------------------------------

/// One version in the timeline: the `n`th commit (oldest first) or recorded write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    Commit(usize),
    Step(usize),
}

/// Merges commits (oldest first, at their committer second) with writes (in the order they
/// ended, in milliseconds), keeping each list's order. A commit's second is coarse: the writes
/// in that same second go before it up to the last one `same(commit, write)` says it holds
/// exactly, the others after it.
fn order(
    commit_secs: &[i64],
    write_millis: &[i64],
    mut same: impl FnMut(usize, usize) -> bool,
) -> Vec<Entry> {
    let mut out = Vec::with_capacity(commit_secs.len() + write_millis.len());
    let (mut c, mut w) = (0, 0);
    while c < commit_secs.len() || w < write_millis.len() {
        let commit_first = match (commit_secs.get(c), write_millis.get(w)) {
            (Some(secs), Some(ms)) => secs.saturating_mul(1000) <= *ms,
            (Some(_), None) => true,
            _ => false,
        };
        if !commit_first {
            out.push(Entry::Step(w));
            w += 1;
            continue;
        }
        let end = commit_secs[c].saturating_add(1).saturating_mul(1000);
        let window: Vec<usize> = (w..write_millis.len())
            .take_while(|&i| write_millis[i] < end)
            .collect();
        let before = window
            .iter()
            .rposition(|&i| same(c, i))
            .map_or(0, |p| p + 1);
        for &i in &window[..before] {
            out.push(Entry::Step(i));
        }
        w += before;
        out.push(Entry::Commit(c));
        c += 1;
    }
    out
}

/// Who wrote each line of `now`: `Some(i)` for the version tagged `i`, `None` for unknown.
/// `versions` come oldest first, each with its tag and its text.
fn walk(versions: impl IntoIterator<Item = (usize, String)>, now: &[&str]) -> Vec<Option<usize>> {
    let mut prev = String::new();
    let mut by: Vec<Option<usize>> = Vec::new();
    for (tag, text) in versions {
        let old: Vec<&str> = prev.lines().collect();
        let new: Vec<&str> = text.lines().collect();
        by = carry(&old, &new, &by, Some(tag));
        prev = text;
    }
    let old: Vec<&str> = prev.lines().collect();
    carry(&old, now, &by, None)
}

/// The attribution of `new`'s lines: those equal to a line of `old` keep its attribution
/// (`by`), the others are `fresh`.
fn carry(
    old: &[&str],
    new: &[&str],
    by: &[Option<usize>],
    fresh: Option<usize>,
) -> Vec<Option<usize>> {
    let mut out = vec![fresh; new.len()];
    let deadline = Instant::now() + DIFF_DEADLINE;
    for op in similar::capture_diff_slices_deadline(Algorithm::Myers, old, new, Some(deadline)) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            let kept = by.iter().skip(old_index).take(len);
            for (slot, who) in out.iter_mut().skip(new_index).take(len).zip(kept) {
                *slot = *who;
            }
        }
    }
    out
}

/// Runs of equal attribution: `(start, end, who)`, 1-based and inclusive.
fn regions(by: &[Option<usize>]) -> Vec<(u32, u32, Option<usize>)> {
    let mut out: Vec<(u32, u32, Option<usize>)> = Vec::new();
    for (i, who) in by.iter().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        match out.last_mut() {
            Some(last) if last.2 == *who => last.1 = n,
            _ => out.push((n, n, *who)),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Git
// ---------------------------------------------------------------------------------------------

struct Commit {
    info: BlameCommit,
    /// Committer time, seconds since the epoch.
    secs: i64,
}

/// The commits of HEAD's history that touched the file, oldest first.
#[derive(Default)]
struct History {
    commits: Vec<Commit>,
    /// Why commits are missing (git is not installed, failed, or the history was cut).
    note: Option<String>,
}

/// `git` in the project's directory: arguments as a vector (no shell), no optional locks, no
/// prompts, C locale, literal pathspecs.
fn git(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("git");
    c.current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("LC_ALL", "C")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .args([
            "-c",
            "core.quotepath=off",
            "-c",
            "log.showSignature=false",
            "--literal-pathspecs",
        ])
        .args(args)
        .stdin(Stdio::null());
    c
}

/// The last [`MAX_COMMITS`] commits of HEAD's history that touched `rel`.
fn history(dir: &Path, rel: &str) -> History {
    let limit = (MAX_COMMITS + 1).to_string();
    let mut out = git(
        dir,
        &[
            "log",
            "-n",
            &limit,
            "--format=%H%x00%ct%x00%an%x00%s",
            "HEAD",
            "--",
            rel,
        ],
    );
    let out = crate::child::output_within(&mut out, None, crate::git::GIT_TIMEOUT);
    let out = match out {
        Ok(out) => out,
        Err(crate::child::RunError::Spawn(e))
            if e.kind() == std::io::ErrorKind::NotFound && dir.is_dir() =>
        {
            return History {
                commits: Vec::new(),
                note: Some(
                    "The `git` program was not found on paddockd's PATH, so commits are left out and lines no chat wrote show as not recorded; install git to see them."
                        .into(),
                ),
            };
        }
        Err(e) => {
            return History {
                commits: Vec::new(),
                note: Some(format!(
                    "git could not run in {} ({e}), so commits are left out.",
                    dir.display()
                )),
            };
        }
    };
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Not a repository, or one without commits yet: no history, nothing to say.
        let quiet = [
            "not a git repository",
            "bad revision 'HEAD'",
            "unknown revision",
            "does not have any commits",
        ];
        let note = (!quiet.iter().any(|q| stderr.contains(q))).then(|| {
            format!(
                "git log failed in {} ({}), so commits are left out.",
                dir.display(),
                stderr.lines().next().unwrap_or("no message").trim()
            )
        });
        return History {
            commits: Vec::new(),
            note,
        };
    }
    let mut commits = parse_log(&String::from_utf8_lossy(&out.stdout));
    let mut note = None;
    if commits.len() > MAX_COMMITS {
        commits.truncate(MAX_COMMITS);
        note = Some(format!(
            "Only the last {MAX_COMMITS} commits that changed the file were read, so lines older than those are blamed on the oldest of them."
        ));
    }
    commits.reverse();
    History { commits, note }
}

/// `git log --format=%H%x00%ct%x00%an%x00%s` output, newest first; malformed lines are skipped.
fn parse_log(text: &str) -> Vec<Commit> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.splitn(4, '\0');
            let sha = fields.next()?;
            let secs: i64 = fields.next()?.parse().ok()?;
            let author = fields.next()?;
            let summary = fields.next().unwrap_or("");
            if sha.len() < 40 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let at = chrono::DateTime::from_timestamp(secs, 0)?
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            Some(Commit {
                info: BlameCommit {
                    sha: sha.to_owned(),
                    summary: summary.to_owned(),
                    author: author.to_owned(),
                    at,
                },
                secs,
            })
        })
        .collect()
}

/// The file's bytes in a commit: empty when the commit deleted it (or it cannot be read), `None`
/// when they are over [`MAX_BLAME_BYTES`] (then the version is empty too: none of its lines can
/// be told apart).
fn commit_content(dir: &Path, sha: &str, rel: &str) -> Option<Vec<u8>> {
    let spec = format!("{sha}:./{rel}");
    let mut child = git(dir, &["cat-file", "blob", &spec])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut bytes = Vec::new();
    let read = child
        .stdout
        .take()
        .map(|out| out.take(MAX_BLAME_BYTES + 1).read_to_end(&mut bytes));
    // Past the bound git is left writing to a closed pipe: it ends on its own.
    let status = child.wait().ok()?;
    if bytes.len() as u64 > MAX_BLAME_BYTES {
        return None;
    }
    match read {
        Some(Ok(_)) if status.success() => Some(bytes),
        _ => Some(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn text(lines: &[&str]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// Regions as `(start, end, tag)` for versions given oldest first as (tag, lines).
    fn blame_of(versions: &[(usize, &[&str])], now: &[&str]) -> Vec<(u32, u32, Option<usize>)> {
        let versions = versions.iter().map(|(tag, lines)| (*tag, text(lines)));
        regions(&walk(versions, now))
    }

    #[test]
    fn a_commit_a_chats_edit_and_a_later_hand_edit_are_told_apart() {
        let base: &[&str] = &["fn a() {", "    one();", "    two();", "}", "// end"];
        let edited: &[&str] = &["fn a() {", "    ONE();", "    two();", "}", "// end"];
        let now = ["fn a() {", "    ONE();", "    two();", "}", "// the end"];
        assert_eq!(
            blame_of(&[(0, base), (1, edited)], &now),
            [
                (1, 1, Some(0)),
                (2, 2, Some(1)),
                (3, 4, Some(0)),
                (5, 5, None)
            ]
        );
        // Lines added by hand at the top shift nothing else.
        let now = [
            "// by hand",
            "fn a() {",
            "    ONE();",
            "    two();",
            "}",
            "// end",
        ];
        assert_eq!(
            blame_of(&[(0, base), (1, edited)], &now),
            [
                (1, 1, None),
                (2, 2, Some(0)),
                (3, 3, Some(1)),
                (4, 6, Some(0))
            ]
        );
    }

    #[test]
    fn a_commit_of_what_a_step_wrote_keeps_the_steps_lines() {
        // Commit 0, then step 1 changes b, then commit 2 records it and changes c.
        let v0: &[&str] = &["a", "b", "c"];
        let v1: &[&str] = &["a", "B", "c"];
        let v2: &[&str] = &["a", "B", "C"];
        assert_eq!(
            blame_of(&[(0, v0), (1, v1), (2, v2)], &["a", "B", "C"]),
            [(1, 1, Some(0)), (2, 2, Some(1)), (3, 3, Some(2))]
        );
    }

    #[test]
    fn a_deleted_and_recreated_file_is_the_recreators() {
        let v: &[&str] = &["x", "y"];
        assert_eq!(
            blame_of(&[(0, v), (1, &[]), (2, v)], &["x", "y"]),
            [(1, 2, Some(2))]
        );
        // Nothing recorded at all: every line is unknown; an empty file has no region.
        assert_eq!(blame_of(&[], &["x", "y"]), [(1, 2, None)]);
        assert!(blame_of(&[(0, v)], &[]).is_empty());
    }

    #[test]
    fn writes_in_a_commits_second_go_before_it_when_it_holds_what_they_wrote() {
        use Entry::{Commit as C, Step as S};
        // Commit at second 10, writes at 9.5 s, 10.2 s, 10.4 s, 11.0 s.
        let writes = [9_500, 10_200, 10_400, 11_000];
        assert_eq!(
            order(&[10], &writes, |_, _| false),
            [S(0), C(0), S(1), S(2), S(3)]
        );
        // The commit holds what the write at 10.4 s left: both writes of its second come first.
        assert_eq!(
            order(&[10], &writes, |_, w| w == 2),
            [S(0), S(1), S(2), C(0), S(3)]
        );
        // A write in a later second never moves before it.
        assert_eq!(
            order(&[10], &writes, |_, w| w == 3),
            [S(0), C(0), S(1), S(2), S(3)]
        );
        assert_eq!(order(&[1, 2], &[], |_, _| true), [C(0), C(1)]);
        assert_eq!(order(&[], &[5], |_, _| true), [S(0)]);
    }

    #[test]
    fn git_log_lines_parse_and_bad_ones_are_skipped() {
        let sha = "3f9a2c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39";
        let log = format!(
            "{sha}\x001793203331\x00Ana Lima\x00Add cookie refresh\nnot a commit\n{sha}\x00soon\x00X\x00Y\n"
        );
        let commits = parse_log(&log);
        assert_eq!(commits.len(), 1);
        assert_eq!(commits[0].secs, 1_793_203_331);
        assert_eq!(
            commits[0].info,
            BlameCommit {
                sha: sha.into(),
                summary: "Add cookie refresh".into(),
                author: "Ana Lima".into(),
                at: "2026-10-28T16:02:11Z".into(),
            }
        );
    }

    fn git_in(dir: &Path, args: &[&str]) {
        let out = git(dir, args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    #[test]
    fn the_history_of_a_file_comes_from_git_oldest_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Not a repository: no commits, no note.
        let none = history(root, "a.txt");
        assert!(none.commits.is_empty() && none.note.is_none());
        git_in(root, &["init", "-q", "-b", "main"]);
        git_in(root, &["config", "user.name", "Ana Lima"]);
        git_in(root, &["config", "user.email", "ana@example.com"]);
        // No commit yet: nothing either.
        let none = history(root, "a.txt");
        assert!(
            none.commits.is_empty() && none.note.is_none(),
            "{:?}",
            none.note
        );
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.txt"), "one\n").unwrap();
        std::fs::write(root.join("sub/b.txt"), "stays\n").unwrap();
        git_in(root, &["add", "."]);
        git_in(root, &["commit", "-q", "-m", "first"]);
        std::fs::write(root.join("sub/a.txt"), "one\ntwo\n").unwrap();
        git_in(root, &["commit", "-q", "-am", "second"]);
        git_in(root, &["rm", "-q", "sub/a.txt"]);
        git_in(root, &["commit", "-q", "-m", "gone"]);
        // Relative to a directory below the repository's top.
        let sub = root.join("sub");
        let h = history(&sub, "a.txt");
        let summaries: Vec<&str> = h.commits.iter().map(|c| c.info.summary.as_str()).collect();
        assert_eq!(summaries, ["first", "second", "gone"]);
        assert_eq!(h.commits[0].info.author, "Ana Lima");
        assert_eq!(
            commit_content(&sub, &h.commits[1].info.sha, "a.txt").unwrap(),
            b"one\ntwo\n"
        );
        assert!(
            commit_content(&sub, &h.commits[2].info.sha, "a.txt")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn only_text_up_to_the_bound_is_blamed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.bin");
        std::fs::write(&file, b"a\0b").unwrap();
        let e = read_now(&file, "a.bin").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert!(
            e.message.contains("text files up to 4 MiB"),
            "{}",
            e.message
        );
        std::fs::write(&file, [0xff, 0xfe, b'a']).unwrap();
        assert_eq!(
            read_now(&file, "a.bin").unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            read_now(dir.path(), "dir").unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        assert_eq!(read_now(&dir.path().join("nope"), "nope").unwrap(), None);
        std::fs::write(&file, "a\r\nb\n").unwrap();
        let now = read_now(&file, "a.txt").unwrap().unwrap();
        assert_eq!(now.lines().collect::<Vec<_>>(), ["a", "b"]);
    }
}
