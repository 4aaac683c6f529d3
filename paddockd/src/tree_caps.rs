//! The per-tree caps: how many chats a spawn tree may create, and how many machine-started
//! turns it may start, in a minute. A tree is every chat under one root chat (`lineage.rs`).
//!
//! Past a cap the call does not run: it waits in the approvals inbox (`paused_calls.rs`) as a
//! `cap` approval,
//! "paused: the tree hit its cap (N chats created in the last minute, limit M)", with a notice
//! in the calling chat and an attention item, as a tool approval has. A person's `allow` lifts
//! the cap (the tree's windows start again, this call counted) and the call runs; `deny`, or
//! no answer within `approval_timeout_secs` of an unattended run, gives the call an error the
//! agent reads. A runaway loop therefore stops within a minute at most, and visibly.
//!
//! Bounded: a window holds at most its limit of timestamps (`config::TREE_CAP_MAX` at most: a call
//! past the limit waits rather than being recorded), stamps older than [`WINDOW`] are dropped
//! at each check, and at most [`MAX_TREES`] trees are kept: past that, trees with nothing in
//! the last minute are dropped first, then the one whose latest stamp is oldest.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// The span the caps count over.
pub const WINDOW: Duration = Duration::from_secs(60);
/// Trees whose windows are kept at once.
pub const MAX_TREES: usize = 4096;

/// What a cap counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// Chats created (`create_chat`, `fork_chat`).
    Chats,
    /// Machine-started turns (a new chat's first, a message, a hook a turn set off).
    Turns,
}

/// The limits that apply to a call (0: no cap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub chats: u32,
    pub turns: u32,
}

impl Limits {
    /// The limits of a call made in `project`: its own settings, else the instance's.
    pub fn of(cfg: &crate::Config, project: &crate::projects::Project) -> Self {
        Self {
            chats: project
                .file
                .tree_chats_per_minute
                .unwrap_or(cfg.tree_chats_per_minute),
            turns: project
                .file
                .tree_turns_per_minute
                .unwrap_or(cfg.tree_turns_per_minute),
        }
    }

    fn of_kind(self, counted: Counted) -> u32 {
        match counted {
            Counted::Chats => self.chats,
            Counted::Turns => self.turns,
        }
    }
}

/// A cap a call would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exceeded {
    pub counted: Counted,
    /// How many the tree made in the last minute.
    pub count: usize,
    pub limit: u32,
}

impl Exceeded {
    /// What the inbox, the chat's notice and the agent are told.
    pub fn reason(&self) -> String {
        let what = match self.counted {
            Counted::Chats => "chats created",
            Counted::Turns => "machine-started turns",
        };
        format!(
            "paused: the tree hit its cap ({} {what} in the last minute, limit {})",
            self.count, self.limit
        )
    }
}

#[derive(Debug, Default)]
struct Windows {
    chats: VecDeque<Instant>,
    turns: VecDeque<Instant>,
}

impl Windows {
    fn of(&mut self, counted: Counted) -> &mut VecDeque<Instant> {
        match counted {
            Counted::Chats => &mut self.chats,
            Counted::Turns => &mut self.turns,
        }
    }

    fn forget_before(&mut self, now: Instant) {
        for w in [&mut self.chats, &mut self.turns] {
            while w.front().is_some_and(|t| now.duration_since(*t) >= WINDOW) {
                w.pop_front();
            }
        }
    }

    fn latest(&self) -> Option<Instant> {
        self.chats.back().max(self.turns.back()).copied()
    }
}

/// The windows of every tree; cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct TreeCaps {
    trees: Arc<Mutex<HashMap<String, Windows>>>,
}

impl TreeCaps {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Windows>> {
        self.trees.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts a call of tree `tree` that makes each of `counted` at `now`, when no cap of
    /// `limits` is reached; else the first cap reached, and nothing is counted.
    pub fn admit(
        &self,
        tree: &str,
        counted: &[Counted],
        limits: Limits,
        now: Instant,
    ) -> Result<(), Exceeded> {
        let mut trees = self.lock();
        if !trees.contains_key(tree) {
            make_room(&mut trees, now);
        }
        let windows = trees.entry(tree.to_owned()).or_default();
        windows.forget_before(now);
        for &c in counted {
            let limit = limits.of_kind(c);
            let count = windows.of(c).len();
            if limit > 0 && count >= limit as usize {
                return Err(Exceeded {
                    counted: c,
                    count,
                    limit,
                });
            }
        }
        for &c in counted {
            if limits.of_kind(c) > 0 {
                windows.of(c).push_back(now);
            }
        }
        Ok(())
    }

    /// A person lifted tree `tree`'s cap: its windows start again, with this call counted.
    pub fn lift(&self, tree: &str, counted: &[Counted], now: Instant) {
        let mut trees = self.lock();
        let windows = trees.entry(tree.to_owned()).or_default();
        *windows = Windows::default();
        for &c in counted {
            windows.of(c).push_back(now);
        }
    }

    /// How many trees are kept.
    pub fn trees(&self) -> usize {
        self.lock().len()
    }
}

/// Makes room for one more tree: drops the trees with nothing in the last minute, then,
/// when still full, the one whose latest stamp is oldest.
fn make_room(trees: &mut HashMap<String, Windows>, now: Instant) {
    if trees.len() < MAX_TREES {
        return;
    }
    trees.retain(|_, w| {
        w.forget_before(now);
        w.latest().is_some()
    });
    while trees.len() >= MAX_TREES {
        let oldest = trees
            .iter()
            .min_by_key(|(_, w)| w.latest())
            .map(|(k, _)| k.clone());
        match oldest {
            Some(k) => {
                trees.remove(&k);
            }
            None => break,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const LIMITS: Limits = Limits { chats: 3, turns: 5 };

    #[tokio::test(start_paused = true)]
    async fn past_the_cap_a_call_is_refused_until_the_minute_has_passed() {
        let caps = TreeCaps::default();
        let both = [Counted::Chats, Counted::Turns];
        for _ in 0..3 {
            assert_eq!(caps.admit("r", &both, LIMITS, Instant::now()), Ok(()));
            tokio::time::advance(Duration::from_secs(1)).await;
        }
        let over = caps.admit("r", &both, LIMITS, Instant::now());
        assert_eq!(
            over,
            Err(Exceeded {
                counted: Counted::Chats,
                count: 3,
                limit: 3
            })
        );
        assert_eq!(
            over.unwrap_err().reason(),
            "paused: the tree hit its cap (3 chats created in the last minute, limit 3)"
        );
        assert_eq!(
            caps.admit("other", &both, LIMITS, Instant::now()),
            Ok(()),
            "another tree has its own window"
        );
        // The refused call counted nothing: two turns are still left.
        for _ in 0..2 {
            assert_eq!(
                caps.admit("r", &[Counted::Turns], LIMITS, Instant::now()),
                Ok(())
            );
        }
        assert!(matches!(
            caps.admit("r", &[Counted::Turns], LIMITS, Instant::now()),
            Err(Exceeded {
                counted: Counted::Turns,
                count: 5,
                ..
            })
        ));
        // The first stamp is 60 s old one minute after it: one chat may be made again.
        tokio::time::advance(Duration::from_secs(57)).await;
        assert_eq!(
            caps.admit("r", &[Counted::Chats], LIMITS, Instant::now()),
            Ok(())
        );
        assert!(
            caps.admit("r", &[Counted::Chats], LIMITS, Instant::now())
                .is_err()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_lift_starts_the_window_again_with_the_call_counted() {
        let caps = TreeCaps::default();
        let one = Limits { chats: 2, turns: 0 };
        let chats = [Counted::Chats];
        caps.admit("r", &chats, one, Instant::now()).unwrap();
        caps.admit("r", &chats, one, Instant::now()).unwrap();
        assert!(caps.admit("r", &chats, one, Instant::now()).is_err());
        caps.lift("r", &chats, Instant::now());
        assert_eq!(caps.admit("r", &chats, one, Instant::now()), Ok(()));
        assert!(caps.admit("r", &chats, one, Instant::now()).is_err());
        // 0 is no cap, and nothing is kept for it.
        for _ in 0..100 {
            caps.admit("r", &[Counted::Turns], one, Instant::now())
                .unwrap();
        }
        assert!(caps.lock()["r"].turns.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn the_trees_kept_are_bounded() {
        let caps = TreeCaps::default();
        for i in 0..MAX_TREES {
            caps.admit(&format!("t{i}"), &[Counted::Chats], LIMITS, Instant::now())
                .unwrap();
        }
        assert_eq!(caps.trees(), MAX_TREES);
        tokio::time::advance(Duration::from_secs(1)).await;
        caps.admit("new", &[Counted::Chats], LIMITS, Instant::now())
            .unwrap();
        assert_eq!(caps.trees(), MAX_TREES, "the oldest made way");
        tokio::time::advance(WINDOW).await;
        caps.admit("newer", &[Counted::Chats], LIMITS, Instant::now())
            .unwrap();
        assert_eq!(
            caps.trees(),
            1,
            "trees with nothing in the window are dropped"
        );
    }
}
