//! Committing each project's `.chats` for durability: when the data directory is a git
//! repository of its own (not one it happens to sit in), the transcripts of a project whose
//! turns ended are committed there a moment later (`commit_chats`, on by default; the sweeper
//! commits OVERVIEW.md and CHANGELOG.md the same way). Authored changes in a project's own
//! directory are never committed by themselves: they go through the Changes view.
//!
//! Turn ends are coalesced: the first one starts a [`DEBOUNCE`] window, and every project that
//! ended a turn in it is committed once when it closes, so a burst of turns makes one commit per
//! project. Turn ends come from the journal (`turn_ends.rs`): every one, in order.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::projects::Projects;
use crate::turn_ends::{Follower, Next, TurnEnds};

/// How long after a turn's end its project's chats are committed.
pub const DEBOUNCE: Duration = Duration::from_secs(2);

/// What the committer uses: where the data is and who commits, the projects, and the
/// daemon's shutdown.
pub struct Committer {
    pub cfg: Arc<Config>,
    pub projects: Projects,
    pub shutdown: CancellationToken,
}

/// Starts the committer on `tracker` when `commit_chats` is on; it stops with the daemon.
pub fn spawn(d: Committer, turn_ends: &TurnEnds, tracker: &TaskTracker) {
    if !d.cfg.commit_chats {
        return;
    }
    // Subscribed here, before any turn can run, so no turn's end is missed.
    let rx = turn_ends.follow();
    tracker.spawn(follow(d, rx));
}

async fn follow(d: Committer, mut ends: Follower) {
    loop {
        let mut pending = BTreeSet::new();
        tokio::select! {
            () = d.shutdown.cancelled() => return,
            next = ends.next() => match next {
                Next::Ended(ev) => { pending.insert(ev.project_slug); }
                Next::Missed(missed) => {
                    // Only a wake-up: git decides what changed.
                    tracing::error!(missed, "the chats committer was stuck; {missed} turn ends were dropped");
                    continue;
                }
            },
        }
        let window = tokio::time::sleep(DEBOUNCE);
        tokio::pin!(window);
        loop {
            tokio::select! {
                () = d.shutdown.cancelled() => break,
                () = &mut window => break,
                next = ends.next() => match next {
                    Next::Ended(ev) => { pending.insert(ev.project_slug); }
                    Next::Missed(_) => {}
                },
            }
        }
        // Committed even when the daemon is stopping: the transcripts are complete by now.
        for slug in pending {
            match d.projects.get(&slug).await {
                Ok(project) => {
                    crate::git::commit_chats(&d.cfg.data_dir, &d.cfg.git_identity, &project).await
                }
                Err(e) => tracing::debug!(project = %slug, "no chats to commit: {e}"),
            }
        }
        if d.shutdown.is_cancelled() {
            return;
        }
    }
}
