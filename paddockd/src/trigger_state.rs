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
/// wait on, and the per-trigger fire locks. Cheap to clone.
#[derive(Clone, Default)]
pub struct Triggers {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
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
