//! Run history across projects: every turn the daemon ran (from the run log) and every adopted
//! chat, with its origin, and "while you were away".
//!
//! Unattended is an exclusion list: a run is unattended unless a person drove it, here
//! (`human`) or in their own terminal before it was imported (`adopted`). Written as a total
//! match so a new origin forces a decision; it must never become `origin != human`, or the
//! first import would report a whole back-catalogue as work done while you were away.

use std::collections::HashMap;

use paddock_proto::{ErrorBody, ErrorCode, History, HistoryList, Origin, RunStatus, RunSummary};

use crate::index::ChatIndex;
use crate::projects::Projects;
use crate::projects::project_error;
use crate::run_log::RunRecord;
use crate::state::{ChatState, ms_of, now_ms};
use crate::stores::RunProvenance;

/// The read-state key of a user's "runs last seen" watermark. Not a UUID, so it can never
/// collide with a chat.
pub const RUNS_SEEN_KEY: &str = "__runs__";
const LIMIT_DEFAULT: u32 = 100;
const LIMIT_MAX: u32 = 500;

/// Did this origin run without the user?
pub fn is_unattended(origin: Origin) -> bool {
    match origin {
        Origin::Human | Origin::Adopted => false,
        Origin::Scheduled | Origin::Spawned | Origin::Hook => true,
    }
}

/// `history:list`: the turns the daemon ran and the adopted chats, newest first, filtered
/// and cut as the request asks, with the count of unattended runs new since last seen.
pub async fn list(
    state: &ChatState,
    projects: &Projects,
    user: &str,
    req: HistoryList,
) -> Result<History, ErrorBody> {
    if let Some(slug) = &req.project_slug {
        projects.get(slug).await.map_err(project_error)?;
    }
    let last_seen = state.stores.read_state.last_seen(user, RUNS_SEEN_KEY);
    let seen_ms = last_seen.unwrap_or(0);
    let provenance = state.stores.run_provenance.all();
    let index = state.listed().await;
    let mut runs: Vec<RunSummary> = state
        .runs
        .recent()
        .into_iter()
        .map(|r| {
            let depth = provenance.get(&r.session_id).map_or(0, |p| p.depth);
            let title = title_of(state, index, &r.session_id);
            turn_summary(r, title, depth, seen_ms)
        })
        .collect();
    runs.extend(adopted_runs(state, projects, index, &provenance)?);
    if let Some(slug) = &req.project_slug {
        runs.retain(|r| &r.project_slug == slug);
    }
    if req.unattended {
        runs.retain(|r| is_unattended(r.origin));
    }
    runs.sort_by(|a, b| {
        ms_of(Some(&b.started_at))
            .cmp(&ms_of(Some(&a.started_at)))
            .then_with(|| b.job_id.cmp(&a.job_id))
    });
    // A running run whose call waits in the inbox waits for a person.
    let asking: std::collections::HashSet<String> = state
        .approvals
        .list()
        .into_iter()
        .map(|a| a.job_id)
        .collect();
    for run in &mut runs {
        run.waiting = run.status == RunStatus::Running && asking.contains(&run.job_id);
    }
    let new_unattended =
        u32::try_from(runs.iter().filter(|r| r.is_new).count()).unwrap_or(u32::MAX);
    let waiting = u32::try_from(
        runs.iter()
            .filter(|r| r.waiting && is_unattended(r.origin))
            .count(),
    )
    .unwrap_or(u32::MAX);
    let limit = req.limit.unwrap_or(LIMIT_DEFAULT).clamp(1, LIMIT_MAX);
    runs.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok(History {
        runs,
        last_seen: last_seen.and_then(|ms| {
            chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms).map(|t| t.to_rfc3339())
        }),
        new_unattended,
        waiting,
    })
}

/// A chat's title as a list shows it (its id when it has none).
fn title_of(state: &ChatState, index: &ChatIndex, sid: &str) -> String {
    crate::index::display_title(&state.title_in(index, sid).unwrap_or_default(), sid)
}

/// A turn of the run log as the list shows it; new when it ran unattended and unwatched,
/// and finished after `seen_ms`.
fn turn_summary(r: RunRecord, title: String, depth: u32, seen_ms: i64) -> RunSummary {
    // A run cut short by a daemon stop has no end time: it counts from its start.
    let finished = r
        .finished_at
        .as_deref()
        .or((r.status == RunStatus::Interrupted).then_some(r.started_at.as_str()))
        .map(|t| ms_of(Some(t)));
    RunSummary {
        title,
        attribution: r.attribution,
        // A skipped fire did nothing, and a run in a chat a client had open was
        // seen: listed, but not news.
        is_new: is_unattended(r.origin)
            && !r.watched
            && !matches!(r.status, RunStatus::Running | RunStatus::Skipped)
            && finished.is_some_and(|f| f > seen_ms),
        waiting: false,
        job_id: r.job_id,
        project_slug: r.project_slug,
        session_id: r.session_id,
        origin: r.origin,
        depth,
        trigger: r.trigger,
        status: r.status,
        started_at: r.started_at,
        finished_at: r.finished_at,
        cost_usd: r.cost_usd,
        prompt: r.prompt,
    }
}

/// The adopted chats of the projects, as runs of their own kind: a person drove them in a
/// terminal.
fn adopted_runs(
    state: &ChatState,
    projects: &Projects,
    index: &ChatIndex,
    provenance: &HashMap<String, RunProvenance>,
) -> Result<Vec<RunSummary>, ErrorBody> {
    let slug_of_folder: HashMap<std::path::PathBuf, String> = projects
        .list()
        .map_err(crate::projects::project_error)?
        .iter()
        .map(|p| (state.folder_of(p), p.slug.clone()))
        .collect();
    let mut runs = Vec::new();
    for (sid, p) in provenance {
        if p.origin != Origin::Adopted {
            continue;
        }
        let Some(chat) = index.get(sid) else {
            continue;
        };
        let Some(slug) = slug_of_folder.get(&chat.folder) else {
            continue;
        };
        runs.push(RunSummary {
            job_id: format!("adopted-{sid}"),
            project_slug: slug.clone(),
            session_id: sid.clone(),
            title: title_of(state, index, sid),
            origin: Origin::Adopted,
            depth: 0,
            trigger: None,
            status: RunStatus::Completed,
            started_at: chat
                .created_at
                .clone()
                .or_else(|| p.created_at.clone())
                .unwrap_or_default(),
            finished_at: chat.updated_at.clone(),
            cost_usd: Some(chat.usage.cost_usd).filter(|c| *c > 0.0),
            prompt: chat
                .first_prompt
                .as_deref()
                .map(|p| crate::text::cut(p, 200)),
            attribution: None,
            is_new: false,
            waiting: false,
        });
    }
    Ok(runs)
}

/// Advances this user's "runs last seen" watermark to now.
pub async fn seen(state: &ChatState, user: &str) -> Result<(), ErrorBody> {
    state
        .stores
        .read_state
        .advance(user, &[RUNS_SEEN_KEY.to_owned()], now_ms())
        .await
        .map_err(|e| ErrorBody::new(ErrorCode::Internal, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unattended_is_an_exclusion_list() {
        assert!(!is_unattended(Origin::Human));
        assert!(!is_unattended(Origin::Adopted), "imported history is yours");
        assert!(is_unattended(Origin::Scheduled));
        assert!(is_unattended(Origin::Spawned));
        assert!(is_unattended(Origin::Hook));
    }
}
