//! When a chat needs the user: turns the daemon's own events into `attention` messages, which
//! the hub sends once each to the clients that asked (`notifications:subscribe`), unless some
//! client is watching the chat (`hub.rs`). Clients turn them into desktop notifications.
//!
//! - An unattended run (scheduled, hook, spawned) that finished: `finished`.
//! - A turn claude ran by itself after a person's background task finished: `finished`
//!   (sent by the runner, [`background_finished`]).
//! - Any run that failed: `failed` (a person's own run too: they may have detached).
//! - A tool call waiting for approval: `approval` (sent by the runner when it asks, see
//!   [`approval`]).
//!
//! - Two chats of a project that changed the same files: `overlap`, once per pair (sent by
//!   `git/overlap.rs`), even to a client watching one of them (it does not show the other).
//!
//! Cancelled, interrupted and skipped runs need nobody. Turn ends come from the journal
//! (`turn_ends.rs`): every one, in order; its overflow policy is the journal's.

use std::sync::Arc;

use paddock_proto::{Attention, AttentionKind, Origin, RunStatus};
use tokio_util::task::TaskTracker;

use tokio_util::sync::CancellationToken;

use crate::hub::Hub;
use crate::state::ChatState;
use crate::turn_ends::{Follower, Next, TurnEnded};

/// Starts the follower on `tracker`; it stops at `shutdown`. It reads the chats' titles from
/// `state` and hands the hub what needs the user.
pub fn spawn(hub: Hub, state: Arc<ChatState>, shutdown: CancellationToken, tracker: &TaskTracker) {
    // Subscribed here, before any turn can run, so no turn's end is missed.
    let rx = state.turn_ends.follow();
    tracker.spawn(follow(hub, state, shutdown, rx));
}

async fn follow(hub: Hub, state: Arc<ChatState>, shutdown: CancellationToken, mut ends: Follower) {
    loop {
        let next = tokio::select! {
            () = shutdown.cancelled() => return,
            next = ends.next() => next,
        };
        let ev = match next {
            Next::Ended(ev) => ev,
            Next::Missed(missed) => {
                tracing::error!(
                    missed,
                    "{missed} turn ends were dropped unchecked for notifications"
                );
                continue;
            }
        };
        let title = title_of(&state, &ev.session_id);
        if let Some(attention) = of_turn(&ev, title, now()) {
            hub.attention(attention).await;
        }
    }
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The chat's title, or its short id.
fn title_of(state: &ChatState, session_id: &str) -> String {
    state
        .title_now(session_id)
        .unwrap_or_else(|| format!("chat {}", session_id.get(..8).unwrap_or(session_id)))
}

/// `Scheduled run`, `Hook run (ci-failed)`, `Spawned chat`, `Run`.
fn run_label(ev: &TurnEnded) -> String {
    let base = match ev.origin {
        Origin::Scheduled => "Scheduled run",
        Origin::Hook => "Hook run",
        Origin::Spawned => "Spawned chat",
        Origin::Human | Origin::Adopted => "Run",
    };
    match &ev.trigger {
        Some(name) => format!("{base} ({name})"),
        None => base.to_owned(),
    }
}

/// The attention a turn's end calls for, if any.
fn of_turn(ev: &TurnEnded, title: String, at: String) -> Option<Attention> {
    let unattended = !matches!(ev.origin, Origin::Human | Origin::Adopted);
    let (kind, what) = match ev.status {
        RunStatus::Completed if unattended => (AttentionKind::Finished, "finished"),
        RunStatus::Failed => (AttentionKind::Failed, "failed"),
        _ => return None,
    };
    Some(Attention {
        id: format!("run:{}", ev.job_id),
        kind,
        project_slug: ev.project_slug.clone(),
        session_id: ev.session_id.clone(),
        job_id: Some(ev.job_id.clone()),
        origin: ev.origin,
        title,
        body: format!("{} {what}", run_label(ev)),
        at,
    })
}

/// The attention for a turn claude ran by itself after a person's background task finished
/// (sent by the runner: the turn ended, nobody watched it start).
pub fn background_finished(
    project_slug: &str,
    session_id: &str,
    job_id: &str,
    origin: Origin,
    title: String,
) -> Attention {
    Attention {
        id: format!("run:{job_id}"),
        kind: AttentionKind::Finished,
        project_slug: project_slug.to_owned(),
        session_id: session_id.to_owned(),
        job_id: Some(job_id.to_owned()),
        origin,
        title,
        body: "Background task finished".to_owned(),
        at: now(),
    }
}

/// The attention for a tool call that waits for approval.
pub fn approval(a: &paddock_proto::Approval) -> Attention {
    let what = a
        .preview
        .as_deref()
        .and_then(|p| p.lines().next())
        .map(|l| l.trim().trim_start_matches("$ "));
    let body = match what {
        Some(line) if !line.is_empty() => {
            let line: String = line.chars().take(120).collect();
            format!("{} needs your approval: {line}", a.tool)
        }
        _ => format!("{} needs your approval", a.tool),
    };
    Attention {
        id: format!("approval:{}", a.id),
        kind: AttentionKind::Approval,
        project_slug: a.project_slug.clone(),
        session_id: a.session_id.clone(),
        job_id: Some(a.job_id.clone()),
        origin: a.origin,
        title: a.title.clone(),
        body,
        at: a.asked_at.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(origin: Origin, status: RunStatus, trigger: Option<&str>) -> TurnEnded {
        TurnEnded {
            project_slug: "web".into(),
            session_id: "s1".into(),
            job_id: "j1".into(),
            status,
            origin,
            trigger: trigger.map(str::to_owned),
            parent: None,
            lineage: None,
        }
    }

    #[test]
    fn unattended_ends_and_failures_need_the_user_a_persons_success_does_not() {
        let a = of_turn(
            &ended(Origin::Scheduled, RunStatus::Completed, Some("nightly")),
            "Backup".into(),
            "t".into(),
        );
        let a = a.map(|a| (a.kind, a.id, a.body));
        assert_eq!(
            a,
            Some((
                AttentionKind::Finished,
                "run:j1".to_owned(),
                "Scheduled run (nightly) finished".to_owned()
            ))
        );
        let failed = of_turn(
            &ended(Origin::Human, RunStatus::Failed, None),
            "x".into(),
            "t".into(),
        );
        assert_eq!(
            failed.map(|a| (a.kind, a.body)),
            Some((AttentionKind::Failed, "Run failed".to_owned()))
        );
        assert!(
            of_turn(
                &ended(Origin::Human, RunStatus::Completed, None),
                "x".into(),
                "t".into()
            )
            .is_none()
        );
        for quiet in [
            RunStatus::Cancelled,
            RunStatus::Interrupted,
            RunStatus::Skipped,
        ] {
            assert!(of_turn(&ended(Origin::Hook, quiet, None), "x".into(), "t".into()).is_none());
        }
        let spawned = of_turn(
            &ended(Origin::Spawned, RunStatus::Completed, None),
            "x".into(),
            "t".into(),
        );
        assert_eq!(
            spawned.map(|a| a.body),
            Some("Spawned chat finished".to_owned())
        );
    }
}
