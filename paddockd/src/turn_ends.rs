//! Every turn's end, delivered to each follower — the hook dispatcher, the attention follower,
//! the sweeper and the chats committer — losslessly and in order.
//!
//! A journal in memory: the runner appends an event when a turn ends (never waiting for
//! anyone), and each follower reads from a cursor of its own, so a follower that is slow (a
//! hook firing a turn, a sweep starting) only falls behind: it still gets every event, in the
//! order the turns ended. An event is kept until every follower has read it.
//!
//! Bound and overflow policy: at most [`MAX_KEPT`] events are kept. Only a follower that is
//! stuck falls that far behind; then the oldest events are dropped, and that follower's next
//! read says how many it missed (it logs this as an error). No other event is ever missed.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

/// A turn ended: what hooks react to.
#[derive(Debug, Clone)]
pub struct TurnEnded {
    pub project_slug: String,
    pub session_id: String,
    pub job_id: String,
    pub status: paddock_proto::RunStatus,
    /// Who started the run.
    pub origin: paddock_proto::Origin,
    /// The trigger that started it, if one did (hooks never fire on their own turns).
    pub trigger: Option<String>,
    /// The chat's recorded parent (project, session), for `child_finished`.
    pub parent: Option<(String, String)>,
    /// The depth and tree the turn ran at (`lineage.rs`): a hook it sets off runs at it.
    pub lineage: Option<crate::lineage::Lineage>,
}

/// Events kept for followers that have not read them yet (see the module's overflow policy).
pub const MAX_KEPT: usize = 65_536;

/// The journal of turn ends; cheap to clone (one journal).
#[derive(Clone)]
pub struct TurnEnds {
    inner: Arc<Inner>,
}

struct Inner {
    journal: Mutex<Journal>,
    /// The number of events ever appended: followers wait on it.
    appended: watch::Sender<u64>,
    max_kept: usize,
}

#[derive(Default)]
struct Journal {
    /// The sequence number of `events[0]`.
    first: u64,
    events: VecDeque<TurnEnded>,
    /// The next sequence number of each follower, by follower id; `None`: gone.
    cursors: Vec<Option<u64>>,
}

impl Journal {
    fn end(&self) -> u64 {
        self.first + self.events.len() as u64
    }

    /// Drops what every follower has read, and the oldest beyond `max_kept`.
    fn trim(&mut self, max_kept: usize) {
        let read_by_all = self
            .cursors
            .iter()
            .flatten()
            .min()
            .copied()
            .unwrap_or_else(|| self.end());
        while self.first < read_by_all || self.events.len() > max_kept {
            if self.events.pop_front().is_none() {
                break;
            }
            self.first += 1;
        }
    }
}

/// What a follower reads next.
#[derive(Debug)]
pub enum Next {
    Ended(TurnEnded),
    /// The follower fell [`MAX_KEPT`] behind and this many events were dropped for it.
    Missed(u64),
}

impl Default for TurnEnds {
    fn default() -> Self {
        Self::with_bound(MAX_KEPT)
    }
}

impl TurnEnds {
    /// A journal that keeps at most `max_kept` unread events.
    pub fn with_bound(max_kept: usize) -> Self {
        Self {
            inner: Arc::new(Inner {
                journal: Mutex::new(Journal::default()),
                appended: watch::Sender::new(0),
                max_kept: max_kept.max(1),
            }),
        }
    }

    fn journal(&self) -> MutexGuard<'_, Journal> {
        // The journal is consistent after every statement: a panic elsewhere cannot tear it.
        self.inner
            .journal
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends a turn's end. Never waits.
    pub fn push(&self, ev: TurnEnded) {
        let end = {
            let mut j = self.journal();
            j.events.push_back(ev);
            j.trim(self.inner.max_kept);
            j.end()
        };
        self.inner.appended.send_replace(end);
    }

    /// A follower that gets every turn's end appended from now on. Make it before any turn
    /// can run so none is missed.
    pub fn follow(&self) -> Follower {
        let mut j = self.journal();
        let next = j.end();
        let id = match j.cursors.iter().position(Option::is_none) {
            Some(free) => {
                j.cursors[free] = Some(next);
                free
            }
            None => {
                j.cursors.push(Some(next));
                j.cursors.len() - 1
            }
        };
        Follower {
            ends: self.clone(),
            id,
            appended: self.inner.appended.subscribe(),
        }
    }

    /// Events kept now (for tests and the log).
    pub fn kept(&self) -> usize {
        self.journal().events.len()
    }
}

/// One follower's cursor into the journal.
pub struct Follower {
    ends: TurnEnds,
    id: usize,
    appended: watch::Receiver<u64>,
}

impl Follower {
    /// The next turn end, waiting for one. Cancel-safe: nothing is consumed until it returns.
    pub async fn next(&mut self) -> Next {
        loop {
            // Marked seen before looking, so an append after the look wakes the wait below.
            self.appended.borrow_and_update();
            if let Some(next) = self.try_next() {
                return next;
            }
            if self.appended.changed().await.is_err() {
                // The journal is gone: nothing more will come.
                std::future::pending::<()>().await;
            }
        }
    }

    /// The next turn end if one is there.
    pub fn try_next(&mut self) -> Option<Next> {
        let max_kept = self.ends.inner.max_kept;
        let mut j = self.ends.journal();
        let at = j.cursors.get(self.id).copied().flatten()?;
        if at < j.first {
            j.cursors[self.id] = Some(j.first);
            return Some(Next::Missed(j.first - at));
        }
        let ev = j.events.get(usize::try_from(at - j.first).ok()?)?.clone();
        j.cursors[self.id] = Some(at + 1);
        j.trim(max_kept);
        Some(Next::Ended(ev))
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let max_kept = self.ends.inner.max_kept;
        let mut j = self.ends.journal();
        if let Some(c) = j.cursors.get_mut(self.id) {
            *c = None;
        }
        j.trim(max_kept);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use paddock_proto::{Origin, RunStatus};
    use std::time::Duration;

    fn ended(n: usize) -> TurnEnded {
        TurnEnded {
            project_slug: String::new(),
            session_id: format!("s{n}"),
            job_id: format!("j{n}"),
            status: RunStatus::Completed,
            origin: Origin::Human,
            trigger: None,
            parent: None,
            lineage: None,
        }
    }

    /// 500 turn ends in a burst reach a slow follower and a fast one, every one, in order;
    /// then nothing is kept.
    #[tokio::test]
    async fn a_burst_reaches_every_follower_whole_and_in_order() {
        let ends = TurnEnds::default();
        let mut slow = ends.follow();
        let mut fast = ends.follow();
        let burst = {
            let ends = ends.clone();
            tokio::spawn(async move {
                for n in 0..500 {
                    ends.push(ended(n));
                }
            })
        };
        let fast_reader = tokio::spawn(async move {
            let mut got = Vec::new();
            while got.len() < 500 {
                match fast.next().await {
                    Next::Ended(e) => got.push(e.job_id),
                    Next::Missed(n) => panic!("missed {n}"),
                }
            }
            got
        });
        let mut got = Vec::new();
        while got.len() < 500 {
            match slow.next().await {
                Next::Ended(e) => got.push(e.job_id),
                Next::Missed(n) => panic!("missed {n}"),
            }
            // The slow follower does real work per event.
            tokio::task::yield_now().await;
        }
        burst.await.unwrap();
        let expected: Vec<String> = (0..500).map(|n| format!("j{n}")).collect();
        assert_eq!(got, expected);
        assert_eq!(fast_reader.await.unwrap(), expected);
        assert_eq!(ends.kept(), 0, "read by all, nothing is kept");
    }

    #[tokio::test]
    async fn a_stuck_follower_is_told_what_it_missed_and_others_are_not_held() {
        let ends = TurnEnds::with_bound(10);
        let mut stuck = ends.follow();
        let mut live = ends.follow();
        for n in 0..25 {
            ends.push(ended(n));
            assert!(matches!(live.try_next(), Some(Next::Ended(_))));
        }
        assert_eq!(ends.kept(), 10, "bounded");
        assert!(matches!(stuck.try_next(), Some(Next::Missed(15))));
        assert!(matches!(stuck.try_next(), Some(Next::Ended(e)) if e.job_id == "j15"));
        drop(stuck);
        assert_eq!(ends.kept(), 0, "a follower that is gone holds nothing");
        // A follower made later starts at the end, and a waiting one wakes on an append.
        let mut late = ends.follow();
        assert!(late.try_next().is_none());
        let waiter = tokio::spawn(async move { late.next().await });
        tokio::task::yield_now().await;
        ends.push(ended(99));
        let got = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("woken")
            .unwrap();
        assert!(matches!(got, Next::Ended(e) if e.job_id == "j99"));
    }
}
