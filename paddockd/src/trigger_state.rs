//! What the trigger tasks (the scheduler, the hook dispatcher, the file watcher) share with
//! the requests that change triggers: the armed schedules, the re-arm signal, and one lock
//! per trigger so a trigger fires once at a time. The tasks themselves are `triggers/`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, Utc};
use paddock_proto::TriggerSpec;

use crate::trigger_spec::When;

/// An armed schedule.
#[derive(Debug, Clone)]
pub struct ArmedSchedule {
    pub project: String,
    pub name: String,
    pub spec: TriggerSpec,
    pub when: When,
    pub next: DateTime<Utc>,
}

/// Binding key → armed schedule.
pub type Armed = HashMap<String, ArmedSchedule>;

/// The daemon's handle on its triggers: the armed schedules, the re-arm signal the tasks
/// wait on, the per-trigger fire locks, and the archives the `archived` hooks hear of.
/// Cheap to clone.
#[derive(Clone, Default)]
pub struct Triggers {
    inner: Arc<Inner>,
}

/// A chat just archived (it was not before), for the `archived` hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Archived {
    pub session_id: String,
    pub project_slug: String,
    /// The chat whose agent archived it (`archive_chat`); `None` for a person.
    pub by: Option<String>,
}

/// Archives waiting for the hook task. Overflow policy: the archiving request waits for room
/// (hooks fire in order, none is dropped); the hook task only starts turns, so it drains fast.
pub const ARCHIVED_QUEUE: usize = 256;

/// The archives queue: the sender for whoever archives, the receiver for the hook task.
struct ArchivedQueue {
    tx: tokio::sync::mpsc::Sender<Archived>,
    rx: Mutex<Option<tokio::sync::mpsc::Receiver<Archived>>>,
}

impl Default for ArchivedQueue {
    fn default() -> Self {
        let (tx, rx) = tokio::sync::mpsc::channel(ARCHIVED_QUEUE);
        Self {
            tx,
            rx: Mutex::new(Some(rx)),
        }
    }
}

#[derive(Default)]
struct Inner {
    archived: ArchivedQueue,
    armed: Mutex<Armed>,
    /// Bumped when triggers changed; the scheduler and the file watcher reload.
    generation: tokio::sync::watch::Sender<u64>,
    /// One fire of a trigger at a time (binding key → its lock).
    firing: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl Triggers {
    pub fn new() -> Self {
        Self::default()
    }

    /// Tells the `archived` hooks of chats just archived (session, project slug), `by` the
    /// chat whose agent archived them (`None`: a person). They fire in the background, in
    /// order; see [`ARCHIVED_QUEUE`] for a full queue.
    pub async fn archived(&self, chats: &[(String, String)], by: Option<&str>) {
        for (session_id, project_slug) in chats {
            let archived = Archived {
                session_id: session_id.clone(),
                project_slug: project_slug.clone(),
                by: by.map(str::to_owned),
            };
            if self.inner.archived.tx.send(archived).await.is_err() {
                // The hook task is gone: the daemon is shutting down.
                return;
            }
        }
    }

    /// The archives, for the one hook task that fires them (`None` once taken).
    pub(crate) fn take_archived(&self) -> Option<tokio::sync::mpsc::Receiver<Archived>> {
        self.inner
            .archived
            .rx
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    pub(crate) fn armed(&self) -> MutexGuard<'_, Armed> {
        self.inner
            .armed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.generation.subscribe()
    }

    /// Tells the scheduler and the file watcher that triggers changed (a trigger set or
    /// removed, a project created).
    pub fn rearm(&self) {
        self.inner
            .generation
            .send_modify(|g| *g = g.wrapping_add(1));
    }

    pub(crate) async fn begin_fire(&self, key: &str) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = self
            .inner
            .firing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key.to_owned())
            .or_default()
            .clone();
        lock.lock_owned().await
    }
}
