//! Schedules and hooks: chats that start on a timer or in reaction to an event.
//!
//! A trigger lives in its project's `project.toml` as `[triggers.NAME]` (the root workspace
//! has one too); the file is the only truth, re-read when it changes through the daemon and
//! every [`schedule::RESCAN`] for hand edits. A trigger that cannot run (a bad cron, an
//! unknown time zone, an entry or a whole file that does not parse) is reported by
//! `trigger:list` with its `problem`, and never takes anything else down.
//!
//! - [`spec`]: checking a trigger, parsing `every`, reading the `[triggers]` table.
//! - [`schedule`]: next fire times and the scheduler task (missed fires at start).
//! - [`hooks`]: the lifecycle dispatcher (`turn_completed`, `turn_failed`,
//!   `child_finished`) and the file watcher (`file_changed`, debounced per hook).
//! - [`fire`]: firing, new chat or resume, skip-if-running, recording.
//! - [`capped`]: a hook a chat's turn set off counts against that turn's tree's cap.
//!
//! Every fire goes through [`crate::machine_turns::start_turn`], so triggered chats stream through
//! the hub and show up in every client like a person's.

mod capped;
pub mod fire;
mod hooks;
pub mod schedule;

use std::sync::Arc;

use paddock_proto::{
    ErrorBody, ErrorCode, Fired, SessionPolicy, TriggerFire, TriggerInfo, TriggerKind, TriggerList,
    TriggerRef, TriggerSet, TriggerSpec, Triggers as TriggersReply,
};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::hub::Hub;
use crate::projects::Projects;
use crate::projects::project_error;
use crate::projects::{Project, ProjectError};
use crate::runner::Runner;
use crate::state::ChatState;
use crate::stores::binding_key;
pub use crate::trigger_spec as spec;
pub use crate::trigger_state::Triggers;
use spec::{Entry, When};

/// What the trigger tasks and requests use: the configuration, the projects and their
/// `project.toml`, the chat state (bindings, run log, turn ends), the armed schedules, the
/// hub (which chats run) and the runner to start turns, the shutdown and its task tracker.
#[derive(Clone)]
pub struct Ctx {
    pub cfg: Arc<Config>,
    pub projects: Projects,
    pub state: Arc<ChatState>,
    pub triggers: Triggers,
    pub hub: Hub,
    pub runner: Runner,
    pub shutdown: CancellationToken,
    /// Where a fire paused at its tree's cap waits (`capped.rs`), so shutdown waits for it.
    pub tasks: TaskTracker,
}

impl Ctx {
    /// What starting a fired turn needs.
    pub fn starter(&self) -> crate::machine_turns::Starter<'_> {
        crate::machine_turns::Starter {
            cfg: &self.cfg,
            state: &self.state,
            runner: &self.runner,
        }
    }

    /// A project by slug, as a protocol error if missing.
    pub async fn project(&self, slug: &str) -> Result<Project, ErrorBody> {
        self.projects.get(slug).await.map_err(project_error)
    }
}

/// A trigger that can run, with its project.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub project: Project,
    pub name: String,
    pub spec: TriggerSpec,
    /// When a schedule fires.
    pub when: Option<When>,
}

impl Loaded {
    pub fn key(&self) -> String {
        binding_key(&self.project.slug, &self.name)
    }
}

/// The runnable triggers of one project (none when its file does not load).
fn load_project(d: &Ctx, project: &Project) -> Vec<Loaded> {
    spec::read_entries(
        &d.projects.file_path(&project.slug),
        d.cfg.min_trigger_interval,
    )
    .into_iter()
    .filter(|e| e.problem.is_none())
    .map(|e| Loaded {
        project: project.clone(),
        name: e.name,
        spec: e.spec,
        when: e.when,
    })
    .collect()
}

/// The runnable triggers of every project.
fn load_all(d: &Ctx) -> Vec<Loaded> {
    let slugs = match d.projects.slugs() {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!("cannot list the projects for their triggers: {e}");
            return Vec::new();
        }
    };
    slugs
        .iter()
        .filter_map(|slug| d.projects.get_blocking(slug).ok())
        .flat_map(|p| load_project(d, &p))
        .collect()
}

/// Starts the scheduler, the lifecycle dispatcher and the file watcher on `tracker`. They
/// stop when the daemon shuts down.
pub fn spawn(d: Arc<Ctx>, tracker: &TaskTracker) {
    // Subscribed here, before any turn can run, so no turn's end is missed.
    let lifecycle = d.state.turn_ends.follow();
    tracker.spawn(schedule::run(d.clone()));
    tracker.spawn(hooks::lifecycle(d.clone(), lifecycle));
    tracker.spawn(hooks::files(d.clone()));
    if let Some(archives) = d.triggers.take_archived() {
        tracker.spawn(hooks::archives(d.clone(), archives));
    }
}

fn invalid(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorCode::InvalidArgument, message)
}

fn where_(slug: &str) -> String {
    if slug.is_empty() {
        "the root workspace".into()
    } else {
        format!("project {slug}")
    }
}

/// No trigger `name` in project `slug`: says which projects have one by that name, if any.
fn not_found(d: &Ctx, slug: &str, name: &str) -> ErrorBody {
    let elsewhere: Vec<String> = d
        .projects
        .slugs()
        .unwrap_or_default()
        .into_iter()
        .filter(|other| other != slug)
        .filter(|other| entries_for_list(d, other).iter().any(|e| e.name == name))
        .map(|other| {
            if other.is_empty() {
                "the root workspace (no -p)".to_owned()
            } else {
                format!("project {other} (-p {other})")
            }
        })
        .collect();
    let hint = if elsewhere.is_empty() {
        "`paddock trigger ls` lists them".to_owned()
    } else {
        format!("{} has one", elsewhere.join(", "))
    };
    ErrorBody::new(
        ErrorCode::NotFound,
        format!("no trigger {name:?} in {}; {hint}", where_(slug)),
    )
}

/// The entries of one project's file as `trigger:list` shows them; a project whose file
/// does not load shows that as a problem.
fn entries_for_list(d: &Ctx, slug: &str) -> Vec<Entry> {
    let path = d.projects.file_path(slug);
    let mut entries = spec::read_entries(&path, d.cfg.min_trigger_interval);
    if let Err(e) = d.projects.get_blocking(slug)
        && !entries.iter().any(|x| x.name == spec::FILE_PROBLEM_NAME)
    {
        let why = format!("the project does not load: {e}");
        for x in &mut entries {
            x.when = None;
            x.problem.get_or_insert_with(|| why.clone());
        }
        entries.insert(0, spec::file_problem(why));
    }
    entries
}

/// What the daemon knows of a trigger.
fn info(d: &Ctx, slug: &str, e: Entry) -> TriggerInfo {
    let key = binding_key(slug, &e.name);
    let last = d.state.runs.latest_for_trigger(slug, &e.name);
    let next_fire = match &e.when {
        Some(when) if e.spec.enabled && e.problem.is_none() => {
            let armed = d.triggers.armed().get(&key).map(|a| a.next);
            armed
                .or_else(|| {
                    let now = chrono::Utc::now();
                    let anchor = schedule::last_fire(d, slug, &e.name).unwrap_or(now);
                    schedule::upcoming(when, anchor, now)
                })
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        }
        _ => None,
    };
    let session_id = (e.spec.session == SessionPolicy::Resume)
        .then(|| fire::bindings(d, e.spec.kind).get(&key))
        .flatten();
    TriggerInfo {
        project_slug: slug.to_owned(),
        name: e.name,
        spec: e.spec,
        next_fire,
        last_fire: last.as_ref().map(|r| r.started_at.clone()),
        last_status: last.map(|r| r.status),
        session_id,
        problem: e.problem,
    }
}

/// `trigger:list`: one project's triggers, or every project's.
pub async fn list(d: &Ctx, r: TriggerList) -> Result<TriggersReply, ErrorBody> {
    let slugs = match r.project_slug {
        Some(slug) => match d.projects.get(&slug).await {
            Ok(_) | Err(ProjectError::Corrupt { .. }) => vec![slug],
            Err(e) => return Err(project_error(e)),
        },
        None => d.projects.slugs().map_err(project_error)?,
    };
    let mut triggers = Vec::new();
    for slug in slugs {
        for e in entries_for_list(d, &slug) {
            triggers.push(info(d, &slug, e));
        }
    }
    Ok(TriggersReply { triggers })
}

/// Brings the armed schedules up to date and wakes the tasks (after triggers or projects
/// changed).
pub(crate) fn rearm(d: &Ctx) {
    schedule::sync(d, &d.triggers, &load_all(d), chrono::Utc::now());
    d.triggers.rearm();
}

/// `trigger:set`: adds or replaces a trigger in `project.toml`.
pub async fn set(d: &Ctx, r: TriggerSet) -> Result<TriggerInfo, ErrorBody> {
    if !spec::valid_name(&r.name) {
        return Err(invalid(spec::name_problem(&r.name)));
    }
    let project = d.project(&r.project_slug).await?;
    spec::validate(&r.spec, d.cfg.min_trigger_interval).map_err(invalid)?;
    let (name, trigger) = (r.name.clone(), r.spec.clone());
    let slug = project.slug.clone();
    d.projects
        .blocking(move |projects| {
            projects.edit_file(&slug, |file| {
                crate::projects::edit::set_trigger(file, &name, &trigger)
            })
        })
        .await
        .map_err(project_error)?
        .map_err(|e| match e {
            crate::projects::edit::EditError::TriggersNotATable => invalid(e.to_string()),
            crate::projects::edit::EditError::Serialize(_) => {
                ErrorBody::new(ErrorCode::Internal, e.to_string())
            }
        })?;
    // The chat a trigger owns stays with it while it resumes, as the same kind.
    let key = binding_key(&project.slug, &r.name);
    for kind in [TriggerKind::Schedule, TriggerKind::Hook] {
        if (r.spec.session == SessionPolicy::New || kind != r.spec.kind)
            && let Err(e) = fire::bindings(d, kind).unbind(&key).await
        {
            tracing::warn!(project = %project.slug, trigger = %r.name, "could not unbind the trigger's chat: {e}");
        }
    }
    d.triggers.armed().remove(&key);
    rearm(d);
    tracing::info!(project = %project.slug, trigger = %r.name, kind = ?r.spec.kind, "trigger set");
    d.hub
        .project_changed(&project.slug, paddock_proto::ProjectPart::Triggers)
        .await;
    let entry = entries_for_list(d, &project.slug)
        .into_iter()
        .find(|e| e.name == r.name)
        .ok_or_else(|| not_found(d, &project.slug, &r.name))?;
    Ok(info(d, &project.slug, entry))
}

/// `trigger:remove`: deletes a trigger and lets go of the chat it owned.
pub async fn remove(d: &Ctx, r: TriggerRef) -> Result<(), ErrorBody> {
    let project = d.project(&r.project_slug).await?;
    let name = r.name.clone();
    let slug = project.slug.clone();
    let existed = d
        .projects
        .blocking(move |projects| {
            projects.edit_file(&slug, |file| {
                crate::projects::edit::remove_trigger(file, &name)
            })
        })
        .await
        .map_err(project_error)?;
    if !existed {
        return Err(not_found(d, &project.slug, &r.name));
    }
    let key = binding_key(&project.slug, &r.name);
    for kind in [TriggerKind::Schedule, TriggerKind::Hook] {
        if let Err(e) = fire::bindings(d, kind).unbind(&key).await {
            tracing::warn!(project = %project.slug, trigger = %r.name, "could not unbind the trigger's chat: {e}");
        }
    }
    d.triggers.armed().remove(&key);
    rearm(d);
    tracing::info!(project = %project.slug, trigger = %r.name, "trigger removed");
    d.hub
        .project_changed(&project.slug, paddock_proto::ProjectPart::Triggers)
        .await;
    Ok(())
}

/// `trigger:fire`: fires a trigger now, even a disabled one; `message` replaces its prompt.
/// `cause`: the turn of the agent that called `run_trigger` (counted against its tree's cap
/// already), whose depth and tree the fire's turn runs at.
pub async fn fire(
    d: &Ctx,
    r: TriggerFire,
    cause: Option<&crate::lineage::Lineage>,
) -> Result<Fired, ErrorBody> {
    let project = d.project(&r.project_slug).await?;
    let entry = spec::read_entries(
        &d.projects.file_path(&project.slug),
        d.cfg.min_trigger_interval,
    )
    .into_iter()
    .find(|e| e.name == r.name)
    .ok_or_else(|| not_found(d, &project.slug, &r.name))?;
    if let Some(problem) = entry.problem {
        return Err(invalid(format!(
            "trigger {:?} cannot run: {problem}; fix it with `paddock trigger add` or in project.toml",
            r.name
        )));
    }
    fire::fire(d, &project, &r.name, &entry.spec, r.message, cause).await
}
