//! The run log: one record per turn the daemon ran, for the History view.
//!
//! `state/runs.jsonl` is append-only: a `start` line when a turn begins and an `end` line when
//! it ends, each written with one `write` call on an `O_APPEND` file and fsynced before the
//! call returns. A daemon killed mid-write leaves at most one torn last line, which the next
//! load skips. A run whose `end` line never came was cut short by the daemon stopping: it loads
//! as `interrupted`. The log keeps the newest [`KEEP`] runs; when the file holds twice that, it
//! is rewritten (atomically) with only those.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use paddock_proto::{Attribution, Origin, RunStatus};
use serde::{Deserialize, Serialize};

/// Runs kept in memory and, after compaction, on disk.
pub const KEEP: usize = 10_000;
/// Prompts are kept cut to this many characters.
const PROMPT_CHARS: usize = 200;

/// One run, as the History view shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    pub job_id: String,
    pub project_slug: String,
    pub session_id: String,
    pub origin: Origin,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    pub started_at: String,
    pub status: RunStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Who injected the run's message (another chat, a schedule, a hook, recovery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
    /// A client had the chat open while it ran: someone saw it, so it is not news.
    #[serde(default, skip_serializing_if = "is_false")]
    pub watched: bool,
    /// Why a run that did not finish was cut short (an interrupted run's cause, in words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Why a run with no end line stopped: the daemon went away while it ran.
pub const DAEMON_DIED: &str = "paddockd stopped while it ran (killed, crashed or restarted)";

/// How a run ended, for [`RunLog::finished`].
#[derive(Debug, Clone)]
pub struct RunEnd {
    pub status: RunStatus,
    pub cost_usd: Option<f64>,
    /// A client had the chat open while it ran.
    pub watched: bool,
    /// Why it was cut short, when it was.
    pub reason: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A line of the log.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Line {
    Start(RunRecord),
    #[serde(rename_all = "camelCase")]
    End {
        job_id: String,
        status: RunStatus,
        finished_at: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
        #[serde(default, skip_serializing_if = "is_false")]
        watched: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Chats moved to another project (`chat:promote`): their runs are that project's.
    #[serde(rename_all = "camelCase")]
    Moved {
        session_ids: Vec<String>,
        project_slug: String,
    },
}

#[derive(Debug, thiserror::Error)]
#[error("run log {path}: {source}; check the data directory's permissions and free space")]
pub struct RunLogError {
    path: PathBuf,
    source: std::io::Error,
}

struct State {
    /// Oldest first.
    runs: VecDeque<RunRecord>,
    /// Lines in the file now.
    lines: usize,
    /// Changes made to `runs` in this run of the daemon (see [`RunLog::version`]).
    version: u64,
}

/// A handle to the run log; cheap to clone.
#[derive(Clone)]
pub struct RunLog {
    path: Arc<PathBuf>,
    state: Arc<Mutex<State>>,
    keep: usize,
}

impl RunLog {
    /// Loads the log (missing: empty; unreadable lines skipped with a warning).
    pub fn open(path: PathBuf) -> Self {
        Self::with_capacity(path, KEEP)
    }

    /// [`RunLog::open`], keeping the newest `keep` runs.
    pub fn with_capacity(path: PathBuf, keep: usize) -> Self {
        let keep = keep.max(1);
        let (runs, lines) = load(&path, keep);
        Self {
            path: Arc::new(path),
            state: Arc::new(Mutex::new(State {
                runs,
                lines,
                version: 0,
            })),
            keep,
        }
    }

    /// Records that a turn started.
    pub async fn started(&self, mut run: RunRecord) -> Result<(), RunLogError> {
        run.prompt = run.prompt.map(|p| crate::text::cut(&p, PROMPT_CHARS));
        run.status = RunStatus::Running;
        run.finished_at = None;
        let line = Line::Start(run.clone());
        let keep = self.keep;
        self.append(line, move |runs| {
            runs.push_back(run);
            while runs.len() > keep {
                runs.pop_front();
            }
        })
        .await
    }

    /// Records that a turn ended.
    pub async fn finished(&self, job_id: &str, end: RunEnd) -> Result<(), RunLogError> {
        let finished_at = chrono::Utc::now().to_rfc3339();
        let line = Line::End {
            job_id: job_id.to_owned(),
            status: end.status,
            finished_at: finished_at.clone(),
            cost_usd: end.cost_usd,
            watched: end.watched,
            reason: end.reason.clone(),
        };
        let job = job_id.to_owned();
        self.append(line, move |runs| {
            if let Some(r) = runs.iter_mut().rev().find(|r| r.job_id == job) {
                r.status = end.status;
                r.finished_at = Some(finished_at);
                r.cost_usd = end.cost_usd;
                r.watched = end.watched;
                r.reason = end.reason;
            }
        })
        .await
    }

    /// Records that chats moved to project `to`: their runs, past and to come, are its.
    /// Asked again (a move finished after a crash), it changes nothing more.
    pub async fn moved(&self, session_ids: &[String], to: &str) -> Result<(), RunLogError> {
        let line = Line::Moved {
            session_ids: session_ids.to_vec(),
            project_slug: to.to_owned(),
        };
        let (ids, to) = (session_ids.to_vec(), to.to_owned());
        self.append(line, move |runs| relabel(runs.iter_mut(), &ids, &to))
            .await
    }

    /// Records a fire that did not run (a trigger whose previous run was still going): one
    /// line, already finished, with status `skipped`.
    pub async fn skipped(&self, mut run: RunRecord) -> Result<(), RunLogError> {
        run.prompt = run.prompt.map(|p| crate::text::cut(&p, PROMPT_CHARS));
        run.status = RunStatus::Skipped;
        run.finished_at = Some(run.started_at.clone());
        run.cost_usd = None;
        let line = Line::Start(run.clone());
        let keep = self.keep;
        self.append(line, move |runs| {
            runs.push_back(run);
            while runs.len() > keep {
                runs.pop_front();
            }
        })
        .await
    }

    /// A counter of the changes to the runs, raised under the same lock as each change: equal
    /// versions mean equal runs, so a listing built from them can be reused.
    pub fn version(&self) -> u64 {
        self.lock().version
    }

    /// The runs, newest first.
    pub fn recent(&self) -> Vec<RunRecord> {
        self.lock().runs.iter().rev().cloned().collect()
    }

    /// The newest run the trigger `name` of project `project` started (or skipped).
    pub fn latest_for_trigger(&self, project: &str, name: &str) -> Option<RunRecord> {
        self.lock()
            .runs
            .iter()
            .rev()
            .find(|r| r.project_slug == project && r.trigger.as_deref() == Some(name))
            .cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes one line (durably), then applies `change` to memory; compacts when the file has
    /// grown to twice what is kept. Serialized by the state lock, held on a blocking thread.
    async fn append(
        &self,
        line: Line,
        change: impl FnOnce(&mut VecDeque<RunRecord>) + Send + 'static,
    ) -> Result<(), RunLogError> {
        let this = self.clone();
        let path = self.path.clone();
        let res = tokio::task::spawn_blocking(move || {
            let mut state = this.lock();
            let mut bytes = serde_json::to_vec(&line).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            crate::fsutil::append_line(&path, &bytes)?;
            state.lines += 1;
            change(&mut state.runs);
            state.version += 1;
            if state.lines > 2 * this.keep {
                compact(&path, &mut state)?;
            }
            Ok(())
        })
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        res.map_err(|source| RunLogError {
            path: self.path.to_path_buf(),
            source,
        })
    }
}

fn load(path: &Path, keep: usize) -> (VecDeque<RunRecord>, usize) {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (VecDeque::new(), 0),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the run log; history starts empty");
            return (VecDeque::new(), 0);
        }
    };
    let mut runs: Vec<RunRecord> = Vec::new();
    let mut by_job: HashMap<String, usize> = HashMap::new();
    let (mut lines, mut bad) = (0usize, 0usize);
    for line in BufReader::new(file).split(b'\n') {
        let Ok(line) = line else { break };
        lines += 1;
        match serde_json::from_slice::<Line>(&line) {
            Ok(Line::Start(run)) => {
                by_job.insert(run.job_id.clone(), runs.len());
                runs.push(run);
            }
            Ok(Line::End {
                job_id,
                status,
                finished_at,
                cost_usd,
                watched,
                reason,
            }) => {
                if let Some(r) = by_job.get(&job_id).and_then(|&i| runs.get_mut(i)) {
                    r.status = status;
                    r.finished_at = Some(finished_at);
                    r.cost_usd = cost_usd;
                    r.watched = watched;
                    r.reason = reason;
                }
            }
            Ok(Line::Moved {
                session_ids,
                project_slug,
            }) => relabel(runs.iter_mut(), &session_ids, &project_slug),
            Err(_) => bad += 1,
        }
    }
    if bad > 0 {
        tracing::warn!(path = %path.display(), skipped = bad, "skipped unreadable run-log lines (a torn write from a killed daemon)");
    }
    // Nothing runs before the daemon starts: a run with no end was cut short.
    for r in &mut runs {
        if r.status == RunStatus::Running {
            r.status = RunStatus::Interrupted;
            r.reason = Some(DAEMON_DIED.to_owned());
        }
    }
    let skip = runs.len().saturating_sub(keep);
    (runs.into_iter().skip(skip).collect(), lines)
}

/// The runs of `session_ids` made `to`'s.
fn relabel<'a>(runs: impl Iterator<Item = &'a mut RunRecord>, session_ids: &[String], to: &str) {
    for r in runs.filter(|r| session_ids.contains(&r.session_id)) {
        r.project_slug = to.to_owned();
    }
}

fn compact(path: &Path, state: &mut State) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    for run in &state.runs {
        let finished = run.finished_at.clone().map(|at| Line::End {
            job_id: run.job_id.clone(),
            status: run.status,
            finished_at: at,
            cost_usd: run.cost_usd,
            watched: run.watched,
            reason: run.reason.clone(),
        });
        for line in std::iter::once(Line::Start(run.clone())).chain(finished) {
            serde_json::to_writer(&mut bytes, &line).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
        }
    }
    crate::fsutil::write_atomic(path, &bytes)?;
    state.lines = bytes.iter().filter(|&&b| b == b'\n').count();
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::io::Write as _;

    fn run(job: &str) -> RunRecord {
        RunRecord {
            job_id: job.into(),
            project_slug: String::new(),
            session_id: format!("s-{job}"),
            origin: Origin::Scheduled,
            trigger: Some("nightly".into()),
            prompt: Some("x".repeat(500)),
            started_at: "2026-11-29T10:00:00Z".into(),
            status: RunStatus::Running,
            finished_at: None,
            cost_usd: None,
            attribution: None,
            watched: false,
            reason: None,
        }
    }

    fn end(status: RunStatus, cost_usd: Option<f64>, watched: bool) -> RunEnd {
        RunEnd {
            status,
            cost_usd,
            watched,
            reason: None,
        }
    }

    /// A crash mid-write leaves a torn last line; the next run's record must not be glued onto
    /// it (and lost with it at the next load).
    #[tokio::test]
    async fn a_record_after_a_torn_tail_survives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.jsonl");
        let log = RunLog::open(path.clone());
        log.started(run("a")).await.unwrap();
        drop(log);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(br#"{"kind":"start","run":{"jobId":"to"#)
            .unwrap();
        drop(f);
        let log = RunLog::open(path.clone());
        log.started(run("b")).await.unwrap();
        drop(log);
        let ids: Vec<String> = RunLog::open(path)
            .recent()
            .into_iter()
            .map(|r| r.job_id)
            .collect();
        assert_eq!(ids, ["b", "a"]);
    }

    /// A chat moved to another project takes its runs, past and later, in memory, after a
    /// restart and after the log is compacted.
    #[tokio::test]
    async fn a_moved_chats_runs_are_its_new_projects() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.jsonl");
        let log = RunLog::with_capacity(path.clone(), 2);
        log.started(run("a")).await.unwrap();
        log.started(run("b")).await.unwrap();
        log.moved(&["s-a".to_owned()], "web").await.unwrap();
        let slugs = |log: &RunLog| -> Vec<(String, String)> {
            log.recent()
                .into_iter()
                .map(|r| (r.job_id, r.project_slug))
                .collect()
        };
        let want = [
            ("b".to_owned(), String::new()),
            ("a".to_owned(), "web".to_owned()),
        ];
        assert_eq!(slugs(&log), want);
        drop(log);
        let log = RunLog::with_capacity(path.clone(), 2);
        assert_eq!(slugs(&log), want);
        // Asked again after a crash: nothing more changes.
        log.moved(&["s-a".to_owned()], "web").await.unwrap();
        assert_eq!(slugs(&log), want);
        // Compacted (the file holds more than twice what is kept): still the new project's.
        log.finished("b", end(RunStatus::Completed, None, false))
            .await
            .unwrap();
        drop(log);
        assert_eq!(slugs(&RunLog::with_capacity(path, 2)), want);
    }

    #[tokio::test]
    async fn records_and_reloads_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.jsonl");
        let log = RunLog::open(path.clone());
        log.started(run("a")).await.unwrap();
        log.started(run("b")).await.unwrap();
        log.finished("a", end(RunStatus::Completed, Some(0.5), true))
            .await
            .unwrap();
        let recent = log.recent();
        assert_eq!(recent[0].job_id, "b");
        assert_eq!(recent[1].status, RunStatus::Completed);
        assert_eq!(recent[1].prompt.as_ref().unwrap().chars().count(), 201);

        // A torn last line, as a SIGKILL mid-write leaves it.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"{\"op\":\"end\",\"jobId\":\"b\",\"sta")
            .unwrap();
        drop(f);
        let again = RunLog::open(path);
        let recent = again.recent();
        assert_eq!(recent.len(), 2);
        assert_eq!(
            recent[0].status,
            RunStatus::Interrupted,
            "b never ended: the daemon stopped"
        );
        assert_eq!(
            recent[0].reason.as_deref(),
            Some(DAEMON_DIED),
            "and that is why it stopped"
        );
        assert_eq!(recent[1].status, RunStatus::Completed);
        assert_eq!(recent[1].cost_usd, Some(0.5));
        assert!(recent[1].watched, "a watched run stays watched");
        assert!(!recent[0].watched);
    }

    #[tokio::test]
    async fn skipped_runs_are_recorded_finished_and_found_per_trigger() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.jsonl");
        let log = RunLog::open(path.clone());
        log.started(run("a")).await.unwrap();
        let mut other = run("o");
        other.project_slug = "demo".into();
        log.started(other).await.unwrap();
        let mut skip = run("b");
        skip.started_at = "2026-11-29T10:05:00Z".into();
        log.skipped(skip).await.unwrap();
        let latest = log.latest_for_trigger("", "nightly").unwrap();
        assert_eq!(latest.job_id, "b");
        assert_eq!(latest.status, RunStatus::Skipped);
        assert_eq!(latest.finished_at.as_deref(), Some("2026-11-29T10:05:00Z"));
        assert_eq!(
            log.latest_for_trigger("demo", "nightly").unwrap().job_id,
            "o"
        );
        assert!(log.latest_for_trigger("", "other").is_none());
        // After a restart: the skipped run stays skipped; the running one was interrupted.
        let again = RunLog::open(path);
        assert_eq!(
            again.latest_for_trigger("", "nightly").unwrap().status,
            RunStatus::Skipped
        );
        assert_eq!(again.recent()[2].status, RunStatus::Interrupted);
    }

    #[tokio::test]
    async fn compacts_to_the_newest_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.jsonl");
        const KEEP: usize = 20;
        let log = RunLog::with_capacity(path.clone(), KEEP);
        for i in 0..(KEEP + 10) {
            let mut r = run(&i.to_string());
            r.prompt = None;
            log.started(r).await.unwrap();
        }
        for i in 0..(KEEP + 10) {
            log.finished(&i.to_string(), end(RunStatus::Completed, None, false))
                .await
                .unwrap();
        }
        let reloaded = RunLog::with_capacity(path.clone(), KEEP).recent();
        assert_eq!(reloaded.len(), KEEP);
        assert_eq!(reloaded[0].job_id, (KEEP + 9).to_string());
        assert!(reloaded.iter().all(|r| r.status == RunStatus::Completed));
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert!(lines <= 2 * KEEP + 1, "{lines} lines");
    }
}
