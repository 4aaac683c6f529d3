//! Committing each project's `.chats` for durability: when the data directory is a git
//! repository of its own (not one it happens to sit in), the transcripts of a project whose
//! turns ended are committed there a moment later (`commit_chats`, on by default; the sweeper
//! commits OVERVIEW.md and CHANGELOG.md the same way). Authored changes in a project's own
//! directory are never committed by themselves: they go through the Changes view.
//!
//! Turn ends are coalesced: the first one starts a [`DEBOUNCE`] window, and every project that
//! ended a turn in it is committed once when it closes, so a burst of turns makes one commit per
//! project. **Overflow policy**: the lifecycle broadcast is bounded; when this task lags it
//! only loses wake-ups, which the next turn end makes up for (git decides what changed).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast;
use tokio_util::task::TaskTracker;

use crate::daemon::Daemon;
use crate::state::TurnEnded;

/// How long after a turn's end its project's chats are committed.
pub const DEBOUNCE: Duration = Duration::from_secs(2);

/// Starts the committer on `tracker` when `commit_chats` is on; it stops with the daemon.
pub fn spawn(d: &Arc<Daemon>, tracker: &TaskTracker) {
    if !d.cfg.commit_chats {
        return;
    }
    // Subscribed here, before any turn can run, so no turn's end is missed.
    let rx = d.state.lifecycle.subscribe();
    tracker.spawn(follow(d.clone(), rx));
}

async fn follow(d: Arc<Daemon>, mut rx: broadcast::Receiver<TurnEnded>) {
    loop {
        let mut pending = BTreeSet::new();
        tokio::select! {
            () = d.shutdown.cancelled() => return,
            ev = rx.recv() => match ev {
                Ok(ev) => { pending.insert(ev.project_slug); }
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::debug!(missed, "the chats committer fell behind the turn ends");
                    continue;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
        }
        let window = tokio::time::sleep(DEBOUNCE);
        tokio::pin!(window);
        loop {
            tokio::select! {
                () = d.shutdown.cancelled() => break,
                () = &mut window => break,
                ev = rx.recv() => match ev {
                    Ok(ev) => { pending.insert(ev.project_slug); }
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => break,
                },
            }
        }
        // Committed even when the daemon is stopping: the transcripts are complete by now.
        for slug in pending {
            match d.project(&slug) {
                Ok(project) => {
                    crate::git::commit_chats(&d.cfg.data_dir, &d.cfg.git_identity, &project).await
                }
                Err(e) => tracing::debug!(project = %slug, "no chats to commit: {}", e.message),
            }
        }
        if d.shutdown.is_cancelled() {
            return;
        }
    }
}
