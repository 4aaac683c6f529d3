//! The sweeper (reference §6): after a successful turn of a person, curate the project's
//! OVERVIEW.md, CHANGELOG.md and the managed section of CLAUDE.md from its newest chats.
//!
//! - [`gate`]: the activity gate (the mtime watermark) and the digest of the newest chats.
//! - [`prompt`]: the tool-less contract: the prompt and the strict parser of its markers.
//! - [`batch`]: the one `claude -p` run of a sweep.
//! - [`files`]: atomic writes, the managed section of CLAUDE.md, the curation budgets.
//!
//! One task follows `state.lifecycle`. A turn ended `completed`, started by a person
//! (`origin: human`) and by no trigger asks for a sweep of its project; machine turns never do,
//! so a sweep can never set off another. Each project has one worker that owns its sweeps, so
//! two never run at once: it waits until `sweeper_min_interval` has passed since the project's
//! last sweep (`last_swept_at`, persisted), then sweeps once for every request that came in
//! meanwhile (one trailing timer); a request arriving during a sweep is served by one more
//! sweep after it, again after the interval.
//!
//! A sweep: gate (skip when no transcript changed after the watermark), digest, one `claude -p`
//! with no tools, parse the markers, write the files. Success moves the watermark to the
//! newest transcript mtime seen and stamps `last_swept_at`; a failure (claude failed or timed
//! out, the reply's markers are missing or broken, a write failed) stamps `last_swept_at` and
//! the reason (`last_error`, which `project:overview` reports as `sweepError` until a sweep
//! succeeds), so the next turn retries the same activity. Failures are logged and reach no chat.
//! Shutdown kills a running sweep and records nothing for it.

pub mod batch;
pub mod files;
pub mod gate;
pub mod prompt;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use paddock_proto::{Origin, RunStatus};
use tokio::sync::{Notify, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::projects::{Project, Projects};
use crate::state::ChatState;

use crate::stores::SweepState;
use crate::turn_ends::{Follower, Next, TurnEnded};

use self::batch::{BatchError, BatchSpec};
use self::gate::Gate;

/// A sweep's `claude` is stopped after this long.
pub const SWEEP_TIMEOUT: Duration = Duration::from_secs(5 * 60);
/// Sweeps of different projects running at once, at most (each is one `claude`).
const MAX_CONCURRENT_SWEEPS: usize = 2;

/// Whether a turn's end asks for a sweep: a person's turn that completed. Machine turns
/// (scheduled, hook, spawned, ...) and every trigger's turn never do.
pub fn wants_sweep(ev: &TurnEnded) -> bool {
    ev.status == RunStatus::Completed && ev.origin == Origin::Human && ev.trigger.is_none()
}

/// What the sweeper needs of the daemon.
#[derive(Clone)]
pub struct Ctx {
    pub cfg: Arc<Config>,
    pub state: Arc<ChatState>,
    pub projects: Projects,
    pub shutdown: CancellationToken,
    /// Bounds the sweeps running at once across projects.
    slots: Arc<Semaphore>,
}

impl Ctx {
    pub fn new(
        cfg: Arc<Config>,
        state: Arc<ChatState>,
        projects: Projects,
        shutdown: CancellationToken,
    ) -> Self {
        Self {
            cfg,
            state,
            projects,
            shutdown,
            slots: Arc::new(Semaphore::new(MAX_CONCURRENT_SWEEPS)),
        }
    }
}

/// Starts the sweeper on `tracker` when it is configured on; it stops with the daemon.
pub fn spawn(ctx: Ctx, tracker: &TaskTracker) {
    if !ctx.cfg.sweeper {
        return;
    }
    // Subscribed here, before any turn can run, so no turn's end is missed.
    let rx = ctx.state.turn_ends.follow();
    tracker.spawn(follow(ctx, rx, tracker.clone()));
}

/// One project's pending requests: the chats whose turns asked for the next sweep, and the
/// bell that wakes its worker.
#[derive(Default)]
struct Pending {
    sessions: Mutex<BTreeSet<String>>,
    bell: Notify,
}

/// Follows turn ends and hands sweep requests to each project's worker.
async fn follow(ctx: Ctx, mut ends: Follower, tracker: TaskTracker) {
    // Owned by this task alone: project slug → its worker's pending requests.
    let mut workers: HashMap<String, Arc<Pending>> = HashMap::new();
    loop {
        let next = tokio::select! {
            () = ctx.shutdown.cancelled() => return,
            next = ends.next() => next,
        };
        let ev = match next {
            Next::Ended(ev) => ev,
            Next::Missed(missed) => {
                // Only requests are lost, and the next turn of each project asks again.
                tracing::error!(
                    missed,
                    "the sweeper was stuck so long that {missed} turn ends were dropped"
                );
                continue;
            }
        };
        if !wants_sweep(&ev) {
            continue;
        }
        let pending = workers
            .entry(ev.project_slug.clone())
            .or_insert_with(|| {
                let pending = Arc::new(Pending::default());
                tracker.spawn(worker(
                    ctx.clone(),
                    ev.project_slug.clone(),
                    pending.clone(),
                ));
                pending
            })
            .clone();
        pending
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(ev.session_id.clone());
        // At most one stored wake-up: every request until the worker takes them is one sweep.
        pending.bell.notify_one();
    }
}

/// How long until `slug` may be swept again.
fn wait_before_sweep(ctx: &Ctx, slug: &str) -> Duration {
    let Some(last) = ctx.state.stores.sweep.get(slug) else {
        return Duration::ZERO;
    };
    let since = crate::state::now_ms() - crate::state::ms_of(Some(&last.last_swept_at));
    let interval = i64::try_from(ctx.cfg.sweeper_min_interval.as_millis()).unwrap_or(i64::MAX);
    u64::try_from(interval.saturating_sub(since))
        .map(Duration::from_millis)
        .unwrap_or(Duration::ZERO)
}

/// Sweeps one project, one sweep at a time, for as long as the daemon runs.
async fn worker(ctx: Ctx, slug: String, pending: Arc<Pending>) {
    loop {
        tokio::select! {
            () = ctx.shutdown.cancelled() => return,
            () = pending.bell.notified() => {}
        }
        // The trailing timer: requests arriving while it runs join this sweep.
        tokio::select! {
            () = ctx.shutdown.cancelled() => return,
            () = tokio::time::sleep(wait_before_sweep(&ctx, &slug)) => {}
        }
        let sessions: Vec<String> = std::mem::take(
            &mut *pending
                .sessions
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
        .into_iter()
        .collect();
        if sessions.is_empty() {
            // A wake-up left over from requests the last sweep already served.
            continue;
        }
        let _slot = tokio::select! {
            () = ctx.shutdown.cancelled() => return,
            slot = ctx.slots.clone().acquire_owned() => slot,
        };
        let started = Instant::now();
        let outcome = sweep(&ctx, &slug, &sessions).await;
        log(&slug, &outcome, started.elapsed());
        if matches!(outcome, Outcome::Cancelled) {
            return;
        }
    }
}

/// What one sweep came to.
#[derive(Debug)]
pub enum Outcome {
    /// Files written (the names); the watermark moved.
    Swept {
        wrote: Vec<&'static str>,
        unchanged: Vec<&'static str>,
        newest_ms: i64,
    },
    /// Nothing changed after the watermark: no claude was run.
    NoActivity,
    /// The project has no chats.
    NoChats,
    /// The project was removed before its sweep.
    ProjectGone,
    /// The sweep failed; only `last_swept_at` moved.
    Failed(SweepError),
    /// The daemon is shutting down; nothing was recorded.
    Cancelled,
}

#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error(transparent)]
    Claude(#[from] BatchError),
    #[error("the reply was not used (nothing written): {0}")]
    Reply(#[from] prompt::ParseError),
    #[error("cannot write {path}: {source}")]
    Write {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("cannot prepare the sweep: {0}")]
    Prepare(String),
}

fn log(slug: &str, outcome: &Outcome, elapsed: Duration) {
    let elapsed_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    match outcome {
        Outcome::Swept {
            wrote, unchanged, ..
        } => tracing::info!(
            project = %slug,
            result = "swept",
            elapsed_ms,
            wrote = ?wrote,
            unchanged = ?unchanged,
            "sweep done"
        ),
        Outcome::NoActivity => tracing::info!(
            project = %slug,
            result = "skipped",
            elapsed_ms,
            "sweep skipped: no chat changed since the last sweep"
        ),
        Outcome::NoChats => tracing::info!(
            project = %slug,
            result = "skipped",
            elapsed_ms,
            "sweep skipped: the project has no chats"
        ),
        Outcome::ProjectGone => tracing::info!(
            project = %slug,
            result = "skipped",
            elapsed_ms,
            "sweep skipped: the project is gone"
        ),
        Outcome::Failed(e) => tracing::warn!(
            project = %slug,
            result = "failed",
            elapsed_ms,
            "sweep failed (the chats are unaffected; the next turn retries): {e}"
        ),
        Outcome::Cancelled => tracing::info!(
            project = %slug,
            result = "cancelled",
            elapsed_ms,
            "sweep stopped by the shutdown"
        ),
    }
}

/// Whether the project's agents run in a directory of its own (`--path`): then CLAUDE.md
/// belongs to that repository, and the sweeper leaves it alone.
pub fn repo_backed(project: &Project) -> bool {
    !project.is_notebook()
}

/// What a sweep reads before it asks claude.
struct Inputs {
    digest: gate::Digest,
    overview: String,
    changelog: String,
    claude_md: String,
}

fn read_inputs(
    project: &Project,
    chats: &[crate::index::IndexedChat],
    sessions: usize,
    budget: usize,
) -> std::io::Result<Inputs> {
    let rendered: Vec<gate::ChatDigest> = chats
        .iter()
        .take(sessions)
        .map(|c| gate::render_chat(&c.path, &c.session_id, &c.title, c.updated_at.as_deref()))
        .collect();
    Ok(Inputs {
        digest: gate::assemble(&rendered, budget),
        overview: files::read_text(&project.meta_dir.join(files::OVERVIEW_FILE))?,
        changelog: files::read_text(&project.meta_dir.join(files::CHANGELOG_FILE))?,
        claude_md: if repo_backed(project) {
            String::new()
        } else {
            files::read_text(&project.agent_dir.join(files::CLAUDE_FILE))?
        },
    })
}

/// Runs a blocking filesystem job off the async threads.
async fn blocking<T: Send + 'static>(
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, SweepError> {
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| SweepError::Prepare(e.to_string()))
}

/// One sweep of `slug`, `sessions` being the chats whose turns asked for it. Records the
/// outcome in the watermark store (see the module comment).
pub async fn sweep(ctx: &Ctx, slug: &str, sessions: &[String]) -> Outcome {
    let Ok(project) = ctx.projects.get(slug).await else {
        return Outcome::ProjectGone;
    };
    let folder = ctx.state.folder_of(&project);
    refresh_asking(ctx, &folder, sessions).await;
    let chats = ctx.state.listed().await.chats_in(&folder);
    let newest_ms = match gate_activity(ctx, slug, &chats).await {
        Ok(newest_ms) => newest_ms,
        Err(outcome) => return outcome,
    };
    let inputs = match gather_inputs(ctx, slug, &project, chats).await {
        Ok(inputs) => inputs,
        Err(outcome) => return outcome,
    };
    let repo = repo_backed(&project);
    let claude_section = claude_section(slug, &inputs.claude_md);
    let budgets =
        crate::config::curation::Budgets::for_project(ctx.cfg.curation, slug, &project.file);
    let text = sweep_prompt(slug, repo, budgets, &inputs, &claude_section);
    let parsed = match ask_claude(ctx, slug, text).await {
        Ok(parsed) => parsed,
        Err(outcome) => return outcome,
    };
    let written = {
        let project = project.clone();
        let slug = slug.to_owned();
        blocking(move || write_files(&slug, &project, repo, budgets, &parsed)).await
    };
    let (wrote, unchanged) = match written {
        Ok(Ok(w)) => w,
        Ok(Err(e)) | Err(e) => return fail(ctx, slug, e).await,
    };
    crate::git::commit_generated(&ctx.cfg.data_dir, &ctx.cfg.git_identity, &project, &wrote).await;
    save_watermark(ctx, slug, newest_ms).await;
    Outcome::Swept {
        wrote,
        unchanged,
        newest_ms,
    }
}

/// Reads the transcripts of the turns that asked for the sweep into the live index.
async fn refresh_asking(ctx: &Ctx, folder: &Path, sessions: &[String]) {
    // The turn's end is announced before the runner re-reads its transcript: read them now,
    // so the gate and the digest see the turns that asked for this sweep.
    for sid in sessions {
        ctx.state
            .live_index()
            .refresh(&folder.join(format!("{sid}.jsonl")))
            .await;
    }
}

/// The activity gate: the newest transcript mtime when some chat changed after the
/// watermark, else how the sweep ends (no chats, no activity, or failed).
async fn gate_activity(
    ctx: &Ctx,
    slug: &str,
    chats: &[crate::index::IndexedChat],
) -> Result<i64, Outcome> {
    let paths: Vec<std::path::PathBuf> = chats.iter().map(|c| c.path.clone()).collect();
    let newest = match blocking(move || gate::newest_mtime_ms(&paths)).await {
        Ok(n) => n,
        Err(e) => return Err(fail(ctx, slug, e).await),
    };
    let prior = ctx.state.stores.sweep.get(slug);
    match gate::decide(newest, prior.as_ref().map(|s| s.last_swept_mtime_ms)) {
        Gate::NoChats => Err(Outcome::NoChats),
        Gate::NoActivity { .. } => Err(Outcome::NoActivity),
        Gate::Sweep { newest_ms } => Ok(newest_ms),
    }
}

/// Reads the digest of the newest chats and the files to curate (logging a digest cut to
/// its budget); a failure ends the sweep.
async fn gather_inputs(
    ctx: &Ctx,
    slug: &str,
    project: &Project,
    chats: Vec<crate::index::IndexedChat>,
) -> Result<Inputs, Outcome> {
    let (sessions_n, budget) = (ctx.cfg.sweeper_sessions, ctx.cfg.sweeper_budget_bytes);
    let inputs = {
        let project = project.clone();
        match blocking(move || read_inputs(&project, &chats, sessions_n, budget)).await {
            Ok(Ok(inputs)) => inputs,
            Ok(Err(e)) => return Err(fail(ctx, slug, SweepError::Prepare(e.to_string())).await),
            Err(e) => return Err(fail(ctx, slug, e).await),
        }
    };
    if inputs.digest.cut_chats > 0 || inputs.digest.cut_messages > 0 {
        tracing::info!(
            project = %slug,
            cut_chats = inputs.digest.cut_chats,
            cut_messages = inputs.digest.cut_messages,
            budget,
            "sweep digest cut to its budget (oldest first)"
        );
    }
    Ok(inputs)
}

/// The managed section of CLAUDE.md as it is now; empty when its markers are broken.
fn claude_section(slug: &str, claude_md: &str) -> String {
    // A CLAUDE.md whose markers are broken is shown as having no section; it is not written.
    match files::managed_section(claude_md) {
        Ok(section) => section.unwrap_or_default(),
        Err(e) => {
            tracing::warn!(project = %slug, "{e}");
            String::new()
        }
    }
}

/// The sweep's prompt, from what was read and the curation budgets.
fn sweep_prompt(
    slug: &str,
    repo: bool,
    budgets: crate::config::curation::Budgets,
    inputs: &Inputs,
    claude_section: &str,
) -> String {
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    prompt::build(&prompt::PromptInput {
        slug,
        repo_backed: repo,
        today: &today,
        digest: &inputs.digest.text,
        overview: &inputs.overview,
        changelog: files::cut_changelog(&inputs.changelog, budgets.changelog_bytes())
            .0
            .as_str(),
        claude_section,
        budgets,
    })
}

/// Runs the one tool-less `claude -p` of the sweep and parses its reply; a failure (or the
/// shutdown) ends the sweep.
async fn ask_claude(ctx: &Ctx, slug: &str, text: String) -> Result<prompt::Reply, Outcome> {
    let cwd = ctx.cfg.data_dir.join("tmp").join("sweeper");
    if let Err(e) = crate::fsutil::create_private_dir(&cwd) {
        let e = SweepError::Prepare(format!("cannot create {}: {e}", cwd.display()));
        return Err(fail(ctx, slug, e).await);
    }
    let spec = BatchSpec {
        claude_bin: ctx.cfg.claude_bin.clone(),
        cwd,
        model: ctx.cfg.sweeper_model.clone(),
        env: crate::runner::process::ClaudeEnv::of(&ctx.cfg),
    };
    let reply = match batch::run(&spec, text, SWEEP_TIMEOUT, &ctx.shutdown).await {
        Ok(reply) => reply,
        Err(BatchError::Cancelled) => return Err(Outcome::Cancelled),
        Err(e) => return Err(fail(ctx, slug, e.into()).await),
    };
    match prompt::parse(&reply) {
        Ok(p) => Ok(p),
        Err(e) => Err(fail(ctx, slug, e.into()).await),
    }
}

/// Records a sweep that succeeded: the watermark moves to `newest_ms`, `last_swept_at` to now.
async fn save_watermark(ctx: &Ctx, slug: &str, newest_ms: i64) {
    let state = SweepState {
        last_swept_mtime_ms: newest_ms,
        last_swept_at: now_rfc3339(),
        last_error: None,
    };
    if let Err(e) = ctx.state.stores.sweep.set(slug, state).await {
        // The files are written; the next sweep redoes this one's activity.
        tracing::warn!(project = %slug, "cannot save the sweep watermark: {e}");
    }
}

fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Records a failed sweep: `last_swept_at` moves (the interval restarts) and `last_error` says
/// why (Home and `project show` report it), the watermark stays.
async fn fail(ctx: &Ctx, slug: &str, e: SweepError) -> Outcome {
    let last_swept_mtime_ms = ctx
        .state
        .stores
        .sweep
        .get(slug)
        .map_or(0, |s| s.last_swept_mtime_ms);
    let state = SweepState {
        last_swept_mtime_ms,
        last_swept_at: now_rfc3339(),
        last_error: Some(e.to_string()),
    };
    if let Err(store) = ctx.state.stores.sweep.set(slug, state).await {
        tracing::warn!(project = %slug, "cannot save the sweep time: {store}");
    }
    Outcome::Failed(e)
}

/// Writes what the reply changed, within the budgets. OVERVIEW.md and CHANGELOG.md must be
/// written for the sweep to count; a CLAUDE.md that cannot be spliced or written is logged and
/// left (the other two are in place, so the watermark still moves).
fn write_files(
    slug: &str,
    project: &Project,
    repo_backed: bool,
    budgets: crate::config::curation::Budgets,
    reply: &prompt::Reply,
) -> Result<(Vec<&'static str>, Vec<&'static str>), SweepError> {
    let mut wrote = Vec::new();
    let mut unchanged = Vec::new();
    let write = |path: std::path::PathBuf, text: &str| {
        files::write_text(&path, text).map_err(|source| SweepError::Write { path, source })
    };
    match &reply.overview {
        Some(text) => {
            let (text, cut) = files::cut_head(text, budgets.overview_bytes());
            if cut {
                tracing::info!(project = %slug, max_bytes = budgets.overview_bytes(), "the sweeper's OVERVIEW.md was over budget; its head was kept");
            }
            write(project.meta_dir.join(files::OVERVIEW_FILE), &text)?;
            wrote.push(files::OVERVIEW_FILE);
        }
        None => unchanged.push(files::OVERVIEW_FILE),
    }
    match &reply.changelog {
        Some(text) => {
            let (text, cut) = files::cut_changelog(text, budgets.changelog_bytes());
            if cut {
                tracing::info!(project = %slug, max_bytes = budgets.changelog_bytes(), "the sweeper's CHANGELOG.md was over budget; its oldest entries were dropped");
            }
            write(project.meta_dir.join(files::CHANGELOG_FILE), &text)?;
            wrote.push(files::CHANGELOG_FILE);
        }
        None => unchanged.push(files::CHANGELOG_FILE),
    }
    match &reply.claude {
        Some(_) if repo_backed => {
            tracing::info!(project = %slug, "CLAUDE.md belongs to the project's repository; the sweeper leaves it alone");
            unchanged.push(files::CLAUDE_FILE);
        }
        Some(body) => {
            let (body, cut) = files::cut_head(body, budgets.claudemd_bytes());
            if cut {
                tracing::info!(project = %slug, max_bytes = budgets.claudemd_bytes(), "the sweeper's CLAUDE.md section was over budget; its head was kept");
            }
            let path = project.agent_dir.join(files::CLAUDE_FILE);
            // Read again: a person may have edited it while claude was thinking.
            let spliced = files::read_text(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))
                .and_then(|now| files::splice(&now, &body).map_err(|e| e.to_string()));
            match spliced {
                Ok(text) => match files::write_text(&path, &text) {
                    Ok(()) => wrote.push(files::CLAUDE_FILE),
                    Err(e) => {
                        tracing::warn!(project = %slug, "cannot write {}: {e}", path.display());
                        unchanged.push(files::CLAUDE_FILE);
                    }
                },
                Err(e) => {
                    tracing::warn!(project = %slug, "{e}");
                    unchanged.push(files::CLAUDE_FILE);
                }
            }
        }
        None => unchanged.push(files::CLAUDE_FILE),
    }
    Ok((wrote, unchanged))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn ended(status: RunStatus, origin: Origin, trigger: Option<&str>) -> TurnEnded {
        TurnEnded {
            project_slug: "demo".into(),
            session_id: "s".into(),
            job_id: "j".into(),
            status,
            origin,
            trigger: trigger.map(str::to_owned),
            parent: None,
            lineage: None,
        }
    }

    #[test]
    fn only_a_persons_completed_turn_asks_for_a_sweep() {
        assert!(wants_sweep(&ended(
            RunStatus::Completed,
            Origin::Human,
            None
        )));
        for (status, origin, trigger) in [
            (RunStatus::Failed, Origin::Human, None),
            (RunStatus::Interrupted, Origin::Human, None),
            (RunStatus::Completed, Origin::Scheduled, Some("nightly")),
            (RunStatus::Completed, Origin::Hook, Some("on-save")),
            (RunStatus::Completed, Origin::Spawned, None),
            (RunStatus::Completed, Origin::Adopted, None),
            // A trigger's turn never does, whatever its origin says.
            (RunStatus::Completed, Origin::Human, Some("manual")),
        ] {
            assert!(
                !wants_sweep(&ended(status, origin, trigger)),
                "{status:?} {origin:?} {trigger:?}"
            );
        }
    }

    #[test]
    fn a_project_with_a_path_of_its_own_is_repo_backed() {
        let dir = tempfile::tempdir().unwrap();
        let projects = Projects::new(dir.path());
        let own = projects.create("own", None).unwrap();
        let repo = projects
            .create("repo", Some(&dir.path().join("checkout")))
            .unwrap();
        assert!(!repo_backed(&own));
        assert!(repo_backed(&repo));
        assert!(!repo_backed(&projects.ensure_root().unwrap()));
    }
}
