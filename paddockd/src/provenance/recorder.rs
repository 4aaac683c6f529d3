//! The recorder: the thread that turns a turn's tool calls into steps (observed writes and
//! reads, scanned effects of opaque calls), with the environment each step ran in.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use paddock_proto::FileEdge;
use serde_json::Value;
use tokio::sync::mpsc;

use super::identity::{Hashed, hash_file};
use super::scan::{ScanError, Snapshot};
use super::steps::{FileRecord, Line, Role, StepRecord};

use super::{
    Kind, Limits, Msg, Observed, What, abs_path, env, harvest, is_agent_tool, kind_of, rel_path,
    scan, steps, versions,
};

/// A tool call whose result has not come yet.
pub(super) struct Open {
    pub(super) slug: String,
    pub(super) meta_dir: PathBuf,
    pub(super) agent_dir: PathBuf,
    pub(super) session_id: String,
    pub(super) job_id: String,
    pub(super) step_id: String,
    pub(super) tool: String,
    pub(super) started_at: String,
    /// The before-scan of an opaque call.
    pub(super) baseline: Option<Arc<Result<Snapshot, ScanError>>>,
    pub(super) overlapped: bool,
    /// Files other steps of the project wrote (observed) while this one ran: not its effects.
    pub(super) written_elsewhere: HashSet<String>,
    /// The environment the step started in.
    pub(super) environment: Option<String>,
}

/// What the sampler saw when a call ended: the project's files (an opaque call's effects)
/// and, after an install-shaped command, the lockfiles. Taken now when missing.
#[derive(Default)]
pub(super) struct Ended {
    pub(super) after: Option<Arc<Result<Snapshot, ScanError>>>,
    pub(super) moment: Option<env::Moment>,
    /// When the call ended (the event's time); now when missing.
    pub(super) at: Option<String>,
}

/// A session's current environment.
pub(super) struct SessionEnv {
    pub(super) agent_dir: PathBuf,
    pub(super) hash: Option<String>,
}

pub(super) struct Recorder {
    pub(super) limits: Limits,
    pub(super) open: HashMap<String, Open>,
    /// Tool calls per turn, for step ids.
    pub(super) counters: HashMap<String, u32>,
    pub(super) dropped: Arc<Mutex<HashMap<String, u64>>>,
    /// The environment each session's next steps run in, by session.
    pub(super) envs: HashMap<String, SessionEnv>,
    pub(super) harvester: harvest::Harvester,
    /// How an environment is probed (`env::capture`; slowed down in tests).
    pub(super) capture: env::Capture,
    /// The toolchains probed lately in each folder, for the next session there.
    pub(super) toolchains: env::KnownToolchains,
    /// Told the project's slug once a turn's steps are all recorded (see
    /// [`super::Provenance::recorded`]).
    pub(super) recorded: tokio::sync::broadcast::Sender<String>,
}

/// RFC 3339 UTC with milliseconds: such strings sort in time order.
pub(super) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Recorder {
    pub(super) fn run(mut self, mut rx: mpsc::Receiver<Msg>) {
        while let Some(msg) = rx.blocking_recv() {
            let mut o = match msg {
                Msg::Event(o) => *o,
                Msg::Tick => {
                    if self.harvester.has_pending() {
                        let n = self.harvester.harvest_pending(self.limits);
                        if n > 0 {
                            tracing::debug!(steps = n, "harvested background subagent steps");
                        }
                    }
                    continue;
                }
                Msg::Barrier(done) => {
                    let _ = done.send(());
                    continue;
                }
            };
            self.write_gap(&o);
            self.ensure_env(&mut o);
            let sampled = o.sampled.scan.take();
            match o.what {
                What::Start {
                    ref tool_use_id,
                    ref tool,
                } => {
                    let (id, tool) = (tool_use_id.clone(), tool.clone());
                    self.start(&o, id, tool, sampled);
                }
                What::Call {
                    ref tool_use_id,
                    ref tool,
                    ref input,
                    is_error,
                } => {
                    let open = match self.open.remove(tool_use_id) {
                        Some(open) => open,
                        // The start was dropped or came before a restart: no baseline.
                        None => self.new_open(&o, tool.clone(), None),
                    };
                    let effects = Ended {
                        after: sampled,
                        moment: o.sampled.after_install.take(),
                        at: Some(o.at.clone()),
                    };
                    self.finish(open, tool_use_id, input, is_error, false, effects);
                    if is_agent_tool(tool) {
                        let id = tool_use_id.clone();
                        self.harvest(&o, Some(&id));
                    }
                }
                What::TurnEnd => {
                    let ids: Vec<String> = self
                        .open
                        .iter()
                        .filter(|(_, open)| open.job_id == o.job_id)
                        .map(|(id, _)| id.clone())
                        .collect();
                    for id in ids {
                        if let Some(open) = self.open.remove(&id) {
                            let effects = Ended {
                                after: sampled.clone(),
                                moment: None,
                                at: Some(o.at.clone()),
                            };
                            self.finish(open, &id, &Value::Null, true, true, effects);
                        }
                    }
                    self.counters.remove(&o.job_id);
                    // Background subagents finish after their Agent call returned.
                    self.harvest(&o, None);
                    // No one listening is no error.
                    let _ = self.recorded.send(o.slug.clone());
                }
            }
        }
    }

    /// Records the tool calls of the session's subagents that have finished (`harvest.rs`).
    pub(super) fn harvest(&mut self, o: &Observed, agent_call: Option<&str>) {
        let Some(transcripts) = &o.transcripts else {
            return;
        };
        let environment = self.envs.get(&o.session_id).and_then(|e| e.hash.clone());
        let turn = harvest::Turn {
            meta_dir: o.meta_dir.clone(),
            agent_dir: o.agent_dir.clone(),
            transcripts: transcripts.clone(),
            session_id: o.session_id.clone(),
            job_id: o.job_id.clone(),
            environment,
        };
        let n = self.harvester.harvest(&turn, agent_call, self.limits);
        if n > 0 {
            tracing::debug!(session = %o.session_id, steps = n, "harvested subagent steps");
        }
    }

    /// Persists that events of this session were dropped, before its next step.
    pub(super) fn write_gap(&self, o: &Observed) {
        let dropped = self
            .dropped
            .lock()
            .ok()
            .and_then(|mut d| d.remove(&o.session_id));
        if let Some(dropped) = dropped {
            let line = Line::Gap { at: now(), dropped };
            if let Err(e) = steps::append(&steps::steps_path(&o.meta_dir, &o.session_id), &line) {
                tracing::warn!(session = %o.session_id, "cannot record lost provenance events: {e}");
            }
        }
    }

    /// The first event of a session the recorder has not seen: its environment is the one its
    /// last recorded step names, or (a new chat, or steps from before environments) a new
    /// snapshot.
    pub(super) fn ensure_env(&mut self, o: &mut Observed) {
        if self.envs.contains_key(&o.session_id) {
            return;
        }
        let recorded = steps::read(&steps::steps_path(&o.meta_dir, &o.session_id))
            .ok()
            .and_then(|lines| {
                lines.into_iter().rev().find_map(|l| match l {
                    Line::Step(s) => s.environment,
                    Line::Gap { .. } => None,
                })
            });
        let hash = recorded.or_else(|| {
            // The lockfiles as the sampler saw them at this first event.
            let moment = o.sampled.session_start.take();
            let moment = moment.unwrap_or_else(|| env::moment(&o.agent_dir));
            self.snapshot(&o.meta_dir, &o.agent_dir, moment, false)
        });
        self.envs.insert(
            o.session_id.clone(),
            SessionEnv {
                agent_dir: o.agent_dir.clone(),
                hash,
            },
        );
    }

    /// Captures and stores a snapshot of `agent_dir` (the toolchains probed anew when `fresh`
    /// or not probed there lately); its hash, or `None` (with a warning) when it cannot be
    /// stored.
    fn snapshot(
        &mut self,
        meta_dir: &Path,
        agent_dir: &Path,
        moment: env::Moment,
        fresh: bool,
    ) -> Option<String> {
        let now = std::time::Instant::now();
        let known = (!fresh)
            .then(|| self.toolchains.fresh(agent_dir, now))
            .flatten();
        let probed = known.is_none();
        let snap = (self.capture)(agent_dir, moment, known);
        if probed {
            self.toolchains.remember(agent_dir, now, &snap.toolchains);
        }
        match env::store(meta_dir, &snap) {
            Ok(hash) => Some(hash),
            Err(e) => {
                tracing::warn!(dir = %agent_dir.display(), "cannot store an environment snapshot: {e}");
                None
            }
        }
    }

    /// After an install-shaped command: a new snapshot for every session in that directory.
    pub(super) fn recapture(&mut self, meta_dir: &Path, agent_dir: &Path, moment: env::Moment) {
        let hash = self.snapshot(meta_dir, agent_dir, moment, true);
        for env in self.envs.values_mut() {
            if env.agent_dir == agent_dir {
                env.hash.clone_from(&hash);
            }
        }
    }

    pub(super) fn new_open(
        &mut self,
        o: &Observed,
        tool: String,
        baseline: Option<Arc<Result<Snapshot, ScanError>>>,
    ) -> Open {
        let n = self.counters.entry(o.job_id.clone()).or_default();
        *n += 1;
        Open {
            slug: o.slug.clone(),
            meta_dir: o.meta_dir.clone(),
            agent_dir: o.agent_dir.clone(),
            session_id: o.session_id.clone(),
            job_id: o.job_id.clone(),
            step_id: format!("{}:{n}", o.job_id),
            tool,
            started_at: o.at.clone(),
            baseline,
            overlapped: false,
            written_elsewhere: HashSet::new(),
            environment: self.envs.get(&o.session_id).and_then(|e| e.hash.clone()),
        }
    }

    /// A tool call started; `baseline`: an opaque call's before-scan, when the sampler took
    /// it (else it is taken now).
    pub(super) fn start(
        &mut self,
        o: &Observed,
        tool_use_id: String,
        tool: String,
        baseline: Option<Arc<Result<Snapshot, ScanError>>>,
    ) {
        let opaque = kind_of(&tool) == Kind::Opaque;
        let mut overlapped = false;
        if opaque {
            for other in self.open.values_mut() {
                if other.slug == o.slug && other.baseline.is_some() {
                    other.overlapped = true;
                    overlapped = true;
                }
            }
        }
        let baseline = match baseline {
            Some(b) if opaque => Some(b),
            _ => opaque.then(|| Arc::new(scan::scan(&o.agent_dir, self.limits.max_scan_files))),
        };
        let mut open = self.new_open(o, tool, baseline);
        open.overlapped = overlapped;
        self.open.insert(tool_use_id, open);
    }

    /// Records a finished tool call as a step: the files it touched, by the kind of call,
    /// then the step line; after an install-shaped command the next steps get a new snapshot.
    pub(super) fn finish(
        &mut self,
        open: Open,
        tool_use_id: &str,
        input: &Value,
        is_error: bool,
        no_result: bool,
        ended: Ended,
    ) {
        let limits = self.limits;
        let (mut files, scan_result) = match kind_of(&open.tool) {
            Kind::Writes if !is_error => (self.observed_writes(&open, input), None),
            Kind::Reads if !is_error => (observed_reads(&open, input, limits.max_hash_bytes), None),
            Kind::Opaque => scanned_effects(&open, input, ended.after, limits),
            _ => (Vec::new(), None),
        };
        let truncated_edges = files.len().saturating_sub(limits.max_edges);
        files.truncate(limits.max_edges);
        let (args_preview, args_truncated) = preview(input, limits.max_preview);
        let installed = open.tool == "Bash"
            && !no_result
            && input
                .get("command")
                .and_then(Value::as_str)
                .is_some_and(env::is_install);
        let (meta_dir, agent_dir) = (open.meta_dir.clone(), open.agent_dir.clone());
        let record = StepRecord {
            step_id: open.step_id,
            session_id: open.session_id.clone(),
            job_id: open.job_id,
            tool_use_id: tool_use_id.to_owned(),
            tool: open.tool,
            started_at: open.started_at,
            ended_at: ended.at.unwrap_or_else(now),
            is_error,
            no_result,
            args_preview,
            args_truncated,
            files,
            truncated_edges: u32::try_from(truncated_edges).unwrap_or(u32::MAX),
            scan: scan_result,
            overlapped: open.overlapped,
            environment: open.environment,
            specialist: None,
        };
        let path = steps::steps_path(&open.meta_dir, &open.session_id);
        if let Err(e) = steps::append(&path, &Line::Step(Box::new(record))) {
            tracing::warn!(session = %open.session_id, "cannot record a provenance step: {e}");
        }
        // The step keeps the environment it started in; the next ones get the new one.
        if installed {
            let moment = ended.moment.unwrap_or_else(|| env::moment(&agent_dir));
            self.recapture(&meta_dir, &agent_dir, moment);
        }
    }

    /// The files a write tool names, their bytes kept when they are the project's own; each
    /// is marked as written elsewhere for the project's other calls running now.
    fn observed_writes(&mut self, open: &Open, input: &Value) -> Vec<FileRecord> {
        let max_hash_bytes = self.limits.max_hash_bytes;
        let mut files = Vec::new();
        for raw in named_paths(&open.tool, input) {
            let path = rel_path(&open.agent_dir, &raw);
            let abs = abs_path(&open.agent_dir, &path);
            // Only the project's own files are kept (blame reads no others).
            let hashed = if path.starts_with('/') {
                hash_file(&abs, max_hash_bytes)
            } else {
                versions::keep(&open.meta_dir, &abs, max_hash_bytes)
            };
            files.push(FileRecord {
                path: path.clone(),
                role: Role::Write,
                edge: FileEdge::Observed,
                change: "wrote".into(),
                hash: hashed.hash().map(str::to_owned),
                unhashed: hashed == Hashed::TooLarge,
            });
            // Not the effect of the project's other calls running now.
            for other in self.open.values_mut() {
                if other.slug == open.slug {
                    other.written_elsewhere.insert(path.clone());
                }
            }
        }
        files
    }
}

/// The files a read tool names, hashed.
fn observed_reads(open: &Open, input: &Value, max_hash_bytes: u64) -> Vec<FileRecord> {
    named_paths(&open.tool, input)
        .into_iter()
        .map(|raw| {
            let path = rel_path(&open.agent_dir, &raw);
            let hashed = hash_file(&abs_path(&open.agent_dir, &path), max_hash_bytes);
            FileRecord {
                path,
                role: Role::Read,
                edge: FileEdge::Observed,
                change: "read".into(),
                hash: hashed.hash().map(str::to_owned),
                unhashed: hashed == Hashed::TooLarge,
            }
        })
        .collect()
}

/// What an opaque call changed, from its before and after scans, and the files its Bash
/// command names that it read; or, with no two scans to compare, why (the step's scan label).
fn scanned_effects(
    open: &Open,
    input: &Value,
    after: Option<Arc<Result<Snapshot, ScanError>>>,
    limits: Limits,
) -> (Vec<FileRecord>, Option<String>) {
    let after =
        after.unwrap_or_else(|| Arc::new(scan::scan(&open.agent_dir, limits.max_scan_files)));
    let before = open.baseline.as_deref();
    match (before, after.as_ref()) {
        (Some(Ok(before)), Ok(after)) => {
            let changed = scan::diff(before, after);
            let mut files = scanned_writes(open, &changed, limits.max_hash_bytes);
            if open.tool == "Bash" {
                let written: HashSet<&str> = changed.iter().map(|(p, _)| p.as_str()).collect();
                files.extend(command_reads(open, input, before, &written));
            }
            (files, None)
        }
        (Some(Err(e)), _) | (_, Err(e)) => (Vec::new(), Some(e.label().to_owned())),
        // No baseline (the start was lost): nothing to compare with.
        (None, Ok(_)) => (Vec::new(), Some("scan-failed".to_owned())),
    }
}

/// The scanned changes as inferred writes, bytes kept, leaving out what other calls wrote.
fn scanned_writes(
    open: &Open,
    changed: &[(String, scan::Change)],
    max_hash_bytes: u64,
) -> Vec<FileRecord> {
    let mut files = Vec::new();
    for (path, change) in changed {
        if open.written_elsewhere.contains(path) {
            continue;
        }
        let hashed = match change {
            scan::Change::Deleted => Hashed::Missing,
            _ => versions::keep(&open.meta_dir, &open.agent_dir.join(path), max_hash_bytes),
        };
        files.push(FileRecord {
            path: path.clone(),
            role: Role::Write,
            edge: FileEdge::Inferred,
            change: change.name().into(),
            hash: hashed.hash().map(str::to_owned),
            unhashed: hashed == Hashed::TooLarge,
        });
    }
    files
}

/// The files a Bash command names that existed before it and that it did not change: reads.
fn command_reads(
    open: &Open,
    input: &Value,
    before: &Snapshot,
    written: &HashSet<&str>,
) -> Vec<FileRecord> {
    let command = input.get("command").and_then(Value::as_str).unwrap_or("");
    command_files(command, &open.agent_dir)
        .into_iter()
        .filter(|path| before.files.contains_key(path) && !written.contains(path.as_str()))
        .map(|path| FileRecord {
            path,
            role: Role::Read,
            edge: FileEdge::Inferred,
            change: "read".into(),
            hash: None,
            unhashed: false,
        })
        .collect()
}

/// The files a write or read tool names in its input.
pub(super) fn named_paths(tool: &str, input: &Value) -> Vec<String> {
    let keys: &[&str] = match tool {
        "NotebookEdit" | "NotebookRead" => &["notebook_path"],
        "Grep" | "Glob" | "LS" => &["path"],
        _ => &["file_path"],
    };
    keys.iter()
        .filter_map(|k| input.get(*k).and_then(Value::as_str))
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The tool's arguments as JSON, cut at `max` bytes on a character boundary.
pub(super) fn preview(input: &Value, max: usize) -> (String, bool) {
    let mut text = input.to_string();
    if text.len() <= max {
        return (text, false);
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    (text, true)
}

/// Words of a command line that look like file names, relative to the project's directory.
/// Globs, variables and anything outside the directory are left out: this is no complete
/// input trace.
pub(super) fn command_files(command: &str, agent_dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for word in command.split(|c: char| c.is_whitespace() || ";|&<>()'\"`=,".contains(c)) {
        if word.is_empty() || word.starts_with('-') || word.contains(['$', '*', '?', '[', '{']) {
            continue;
        }
        let path = rel_path(agent_dir, word);
        if !path.starts_with('/') && !path.starts_with("..") && !out.contains(&path) {
            out.push(path);
        }
        if out.len() >= 200 {
            break;
        }
    }
    out
}
