//! The sampler: the thread that looks at the disk the moment an event comes, before the
//! recorder (which probes toolchains, hashes and fsyncs) gets to it. A step must describe
//! what its tool saw and left, not what the folder held when the recorder caught up: under
//! load, or behind a session's first environment probe, the recorder can be seconds late.
//!
//! For each event it takes, in order: the project's file stamps at an opaque call's start
//! (its baseline) and at its end (the call's result, or the turn's end for calls that never
//! got one); the lockfile hashes at a session's first event and right after an
//! install-shaped command. It does nothing slow besides those bounded scans.
//!
//! **Queue**: it hands every message on to the recorder through a bounded queue
//! ([`super::QUEUE`]); when that is full the sampler waits, so the runner's queue in front of
//! it fills and drops events (the overflow policy of `mod.rs`).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::mpsc;

use super::scan::{self, ScanError, Snapshot};
use super::{Kind, Limits, Msg, Observed, What, env, kind_of};

/// What the sampler saw when the event came.
#[derive(Debug, Default)]
pub(super) struct Sampled {
    /// The project's files: an opaque call's baseline (at its start) or its effects (at its
    /// result or the turn's end; shared by every call the turn's end closes).
    pub(super) scan: Option<Arc<Result<Snapshot, ScanError>>>,
    /// The lockfiles at a session's first event (its environment, unless one is recorded).
    pub(super) session_start: Option<env::Moment>,
    /// The lockfiles right after an install-shaped command (the next steps' environment).
    pub(super) after_install: Option<env::Moment>,
}

pub(super) struct Sampler {
    pub(super) limits: Limits,
    /// Opaque calls started and not yet ended: tool_use id → job.
    pub(super) open: HashMap<String, String>,
    /// Sessions whose first event was sampled.
    pub(super) seen: HashSet<String>,
}

impl Sampler {
    pub(super) fn new(limits: Limits) -> Self {
        Self {
            limits,
            open: HashMap::new(),
            seen: HashSet::new(),
        }
    }

    pub(super) fn run(mut self, mut rx: mpsc::Receiver<Msg>, tx: mpsc::Sender<Msg>) {
        while let Some(mut msg) = rx.blocking_recv() {
            if let Msg::Event(o) = &mut msg {
                self.sample(o);
            }
            if tx.blocking_send(msg).is_err() {
                break;
            }
        }
    }

    /// Attaches what the disk holds now to the event.
    pub(super) fn sample(&mut self, o: &mut Observed) {
        if self.seen.insert(o.session_id.clone()) {
            o.sampled.session_start = Some(env::moment(&o.agent_dir));
        }
        let scan_now = |limits: Limits| Arc::new(scan::scan(&o.agent_dir, limits.max_scan_files));
        match &o.what {
            What::Start { tool_use_id, tool } if kind_of(tool) == Kind::Opaque => {
                self.open.insert(tool_use_id.clone(), o.job_id.clone());
                o.sampled.scan = Some(scan_now(self.limits));
            }
            What::Start { .. } => {}
            What::Call {
                tool_use_id,
                tool,
                input,
                ..
            } => {
                let opaque =
                    self.open.remove(tool_use_id).is_some() || kind_of(tool) == Kind::Opaque;
                if opaque {
                    o.sampled.scan = Some(scan_now(self.limits));
                }
                if tool == "Bash"
                    && input
                        .get("command")
                        .and_then(Value::as_str)
                        .is_some_and(env::is_install)
                {
                    o.sampled.after_install = Some(env::moment(&o.agent_dir));
                }
            }
            What::TurnEnd => {
                let before = self.open.len();
                self.open.retain(|_, job| *job != o.job_id);
                if self.open.len() < before {
                    o.sampled.scan = Some(scan_now(self.limits));
                }
            }
        }
    }
}
