//! Firing a trigger: the one way a schedule tick, a hook event, `trigger:fire` and the
//! `run_trigger` tool start a turn.
//!
//! The turn goes through [`crate::machine_turns::start_turn`] with origin `scheduled` or `hook`,
//! the trigger's name, and attribution "⏰ scheduled by NAME" / "⚡ triggered by hook NAME".
//! `session = "new"` starts a root chat per fire (depth 0, no parent, provenance naming the
//! trigger); `"resume"` sends every fire into the one chat the trigger owns (bound in
//! `schedule-sessions.json` / `trigger-sessions.json`), creating and binding it on the first
//! fire and again when the bound chat is gone.
//!
//! A fire while the trigger's previous run is still going (its run is still running, or the
//! chat it owns, or for `new` the last chat it started, is running) does not run: it is
//! recorded in the run log as `skipped`. Fires of one trigger are serialized, so two at
//! the same instant cannot both start.

use std::collections::HashMap;

use paddock_proto::{
    Attribution, ErrorBody, ErrorCode, Fired, Origin, RunStatus, SessionPolicy, TriggerKind,
    TriggerSpec,
};

use super::Ctx;
use crate::lineage::Lineage;
use crate::machine_turns::{MachineTurn, start_turn};
use crate::projects::Project;
use crate::run_log::RunRecord;
use crate::stores::{RunProvenance, SessionBindingStore, binding_key};

/// What `trigger:fire` answers, and the run log says, for a skipped fire.
pub const SKIPPED: &str = "its previous run is still going";

fn origin_of(kind: TriggerKind) -> Origin {
    match kind {
        TriggerKind::Schedule => Origin::Scheduled,
        TriggerKind::Hook => Origin::Hook,
    }
}

fn attribution_of(kind: TriggerKind, name: &str) -> Attribution {
    match kind {
        TriggerKind::Schedule => Attribution::Scheduled { name: name.into() },
        TriggerKind::Hook => Attribution::Hook { name: name.into() },
    }
}

/// Where a trigger of `kind` keeps the chat it owns.
pub fn bindings(d: &Ctx, kind: TriggerKind) -> &SessionBindingStore {
    match kind {
        TriggerKind::Schedule => &d.state.stores.schedule_sessions,
        TriggerKind::Hook => &d.state.stores.trigger_sessions,
    }
}

/// Fires `name` of `project` now. `message` replaces the prompt for this fire. `cause` is
/// the turn that set it off (a chat's turn ending, its archive, its `run_trigger`): the
/// fire's turn runs at that turn's depth, in its tree (`lineage.rs`); `None` for a schedule,
/// a file change or a person.
pub async fn fire(
    d: &Ctx,
    project: &Project,
    name: &str,
    spec: &TriggerSpec,
    message: Option<String>,
    cause: Option<&Lineage>,
) -> Result<Fired, ErrorBody> {
    let slug = project.slug.as_str();
    let key = binding_key(slug, name);
    let message = message
        .filter(|m| !m.trim().is_empty())
        .unwrap_or_else(|| spec.prompt.clone());
    let store = bindings(d, spec.kind);
    let resume = spec.session == SessionPolicy::Resume;

    // One fire of a trigger at a time: the check and the start are one step, so a second
    // fire at the same instant waits, then finds the first one running.
    let _firing = d.triggers.begin_fire(&key).await;
    if let Some(sid) = going(d, slug, name, spec).await {
        tracing::info!(project = slug, trigger = name, session = %sid, "trigger fire skipped: {SKIPPED}");
        record_skipped(d, slug, name, spec.kind, sid, message, None).await;
        return Ok(skipped());
    }
    let owned = if resume { store.get(&key) } else { None };
    let turn = |session_id: Option<String>| {
        let mut turn = machine_turn(project, name, spec, &message, session_id);
        turn.cause = cause.cloned();
        turn
    };
    if let Some(sid) = owned
        && let Some(sid) =
            fire_into_owned(d, store, &key, name, &sid, turn(Some(sid.clone()))).await?
    {
        return Ok(started(sid));
    }
    let sid = start_turn(d.starter(), turn(None)).await?;
    tracing::info!(project = slug, trigger = name, session = %sid, "trigger fired a new chat");
    if resume && let Err(e) = store.bind(&key, &sid).await {
        tracing::warn!(project = slug, trigger = name, session = %sid, "could not remember the trigger's chat (the next fire starts another): {e}");
    }
    Ok(started(sid))
}

/// The chat of trigger `name`'s previous run when that run is still going (a fire now is
/// skipped).
pub(super) async fn going(d: &Ctx, slug: &str, name: &str, spec: &TriggerSpec) -> Option<String> {
    let running = d.hub.running().await;
    let last = d.state.runs.latest_for_trigger(slug, name);
    let owned = (spec.session == SessionPolicy::Resume)
        .then(|| bindings(d, spec.kind).get(&binding_key(slug, name)))
        .flatten();
    still_going(last.as_ref(), owned.as_deref(), &running)
}

/// The chat of the trigger's previous run when that run is still going: the last run is
/// running (or its chat is), or the chat the trigger owns is running.
fn still_going(
    last: Option<&RunRecord>,
    owned: Option<&str>,
    running: &HashMap<String, String>,
) -> Option<String> {
    last.filter(|r| r.status == RunStatus::Running || running.contains_key(&r.session_id))
        .map(|r| r.session_id.clone())
        .or_else(|| {
            owned
                .filter(|sid| running.contains_key(*sid))
                .map(str::to_owned)
        })
}

/// Records a skipped fire in the run log, in the chat whose run is still going (or, with
/// `reason`, the chat whose turn set it off).
pub(super) async fn record_skipped(
    d: &Ctx,
    slug: &str,
    name: &str,
    kind: TriggerKind,
    session_id: String,
    message: String,
    reason: Option<String>,
) {
    let record = RunRecord {
        job_id: uuid::Uuid::new_v4().to_string(),
        project_slug: slug.to_owned(),
        session_id,
        origin: origin_of(kind),
        trigger: Some(name.to_owned()),
        prompt: Some(message),
        started_at: chrono::Utc::now().to_rfc3339(),
        status: RunStatus::Skipped,
        finished_at: None,
        cost_usd: None,
        attribution: None,
        watched: false,
        reason,
    };
    if let Err(e) = d.state.runs.skipped(record).await {
        tracing::warn!(
            project = slug,
            trigger = name,
            "could not record the skipped fire: {e}"
        );
    }
}

/// The turn a fire starts: in `session_id`, or (`None`) in a new root chat whose provenance
/// names the trigger.
fn machine_turn(
    project: &Project,
    name: &str,
    spec: &TriggerSpec,
    message: &str,
    session_id: Option<String>,
) -> MachineTurn {
    let origin = origin_of(spec.kind);
    MachineTurn {
        project: project.clone(),
        provenance: session_id.is_none().then(|| RunProvenance {
            origin,
            depth: 0,
            parent_session_id: None,
            parent_project: None,
            created_at: None,
            trigger: Some(name.to_owned()),
            title: None,
            fork: false,
        }),
        session_id,
        message: message.to_owned(),
        model: spec.model.clone(),
        origin,
        attribution: Some(attribution_of(spec.kind, name)),
        trigger: Some(name.to_owned()),
        cause: None,
    }
}

/// Starts `turn` in `owned`, the chat the trigger owns: its session id, or `None` when that
/// chat is gone (then it is unbound, and the fire starts a new one).
async fn fire_into_owned(
    d: &Ctx,
    store: &SessionBindingStore,
    key: &str,
    name: &str,
    owned: &str,
    turn: MachineTurn,
) -> Result<Option<String>, ErrorBody> {
    let slug = turn.project.slug.clone();
    let slug = slug.as_str();
    match start_turn(d.starter(), turn).await {
        Ok(sid) => {
            tracing::info!(project = slug, trigger = name, session = %sid, "trigger fired into its chat");
            Ok(Some(sid))
        }
        Err(e) if e.code == ErrorCode::NotFound => {
            tracing::info!(project = slug, trigger = name, session = %owned, "the trigger's chat is gone; starting a new one");
            if let Err(e) = store.unbind(key).await {
                tracing::warn!(
                    project = slug,
                    trigger = name,
                    "could not unbind the gone chat: {e}"
                );
            }
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

fn started(session_id: String) -> Fired {
    Fired {
        session_id: Some(session_id),
        skipped: None,
    }
}

fn skipped() -> Fired {
    Fired {
        session_id: None,
        skipped: Some(SKIPPED.into()),
    }
}

/// [`fire`] for the background tasks: the outcome goes to the log.
pub async fn fire_logged(
    d: &Ctx,
    project: &Project,
    name: &str,
    spec: &TriggerSpec,
    message: Option<String>,
    cause: Option<&Lineage>,
) {
    if let Err(e) = fire(d, project, name, spec, message, cause).await {
        if e.code == ErrorCode::ShuttingDown {
            tracing::info!(project = %project.slug, trigger = name, "trigger not fired: the daemon is stopping");
        } else {
            tracing::warn!(project = %project.slug, trigger = name, "trigger fire failed: {}", e.message);
        }
    }
}
