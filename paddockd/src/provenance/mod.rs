//! File provenance: which chat's tool calls produced which file, from what, and whether the
//! file still is what they wrote.
//!
//! The runner hands every event of a turn to [`Provenance::observe`], which never waits: the
//! event goes into a bounded queue ([`QUEUE`] events) read by the recorder, a thread of its
//! own (its scans, hashes and fsyncs block). **Overflow policy**: when the queue is full the
//! event is dropped and the chat is marked incomplete (a `gap` line in its steps file, and a
//! note in every reply about the files it touched); the turn is never slowed.
//!
//! The recorder turns `chat:tool_start` + `chat:tool_call` pairs into steps (`steps.rs`):
//! Edit / Write / NotebookEdit name the files they wrote (observed, hashed right after the
//! call), Read / Grep / Glob what they read; other tools that are not known to be read-only
//! get a before/after scan of the project's directory (`scan.rs`) and inferred edges.
//! `provenance:file` reads the steps back: status (`identity.rs`), producers, readers, and
//! the lineage (`lineage.rs`). Each step names the environment it started in (`env.rs`): a
//! snapshot taken when the recorder first sees a session, and again after an install-shaped
//! Bash command.
//!
//! Each observed or inferred write also keeps the bytes it left (`versions.rs`: text up to 1 MiB,
//! content-addressed under `.paddock/versions/`), which `provenance:blame` (`blame.rs`) walks.

pub mod blame;
pub mod env;
pub mod harvest;
pub mod identity;
pub mod lineage;
pub mod scan;
pub mod steps;
pub mod touched;
pub mod versions;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use paddock_proto::{
    ChatEvent, ErrorBody, ErrorCode, FileEdge, FileStep, Lineage, LineageNode, ProvenanceFile,
};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::projects::Project;
use identity::{Hashed, hash_file};
use scan::{ScanError, Snapshot};
use steps::{FileRecord, Line, Role, StepRecord};

/// Events the recorder may fall behind by; past that, events are dropped (see the module).
pub const QUEUE: usize = 4096;

/// The document's bounds, and the visible results they give.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Files one scan may see; more: `sandbox-too-large`.
    pub max_scan_files: usize,
    /// Bytes hashed per file; more: `unhashed`.
    pub max_hash_bytes: u64,
    /// File edges per step; more: counted in `truncatedEdges`.
    pub max_edges: usize,
    /// Bytes of a tool's arguments kept as its preview.
    pub max_preview: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_scan_files: 20_000,
            max_hash_bytes: 512 * 1024 * 1024,
            max_edges: 200,
            max_preview: 4 * 1024,
        }
    }
}

/// Tools that name the files they write.
const WRITE_TOOLS: &[&str] = &["Edit", "MultiEdit", "Write", "NotebookEdit"];
/// Tools that name what they read.
const READ_TOOLS: &[&str] = &["Read", "NotebookRead", "Grep", "Glob", "LS"];
/// Tools known not to touch the project's files: no scan.
const QUIET_TOOLS: &[&str] = &[
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "TodoRead",
    "BashOutput",
    "KillShell",
    "KillBash",
    "ExitPlanMode",
    "AskUserQuestion",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Writes,
    Reads,
    Quiet,
    Opaque,
}

/// Claude Code's subagent tool (`Task` in older CLIs).
fn is_agent_tool(tool: &str) -> bool {
    matches!(tool, "Agent" | "Task")
}

fn kind_of(tool: &str) -> Kind {
    if WRITE_TOOLS.contains(&tool) {
        Kind::Writes
    } else if READ_TOOLS.contains(&tool) {
        Kind::Reads
    } else if QUIET_TOOLS.contains(&tool) || tool.starts_with("mcp__paddock") {
        Kind::Quiet
    } else {
        Kind::Opaque
    }
}

/// What the recorder's queue carries.
#[derive(Debug)]
enum Msg {
    Event(Box<Observed>),
    /// Time to look for background subagents that have finished (`harvest.rs`).
    Tick,
    /// Answered once every message sent before it has been handled ([`Provenance::settle`]).
    Barrier(tokio::sync::oneshot::Sender<()>),
}

/// How often the recorder looks for finished background subagents (only while some are
/// pending).
pub const HARVEST_EVERY: std::time::Duration = std::time::Duration::from_secs(3);

/// What the runner hands over.
#[derive(Debug)]
struct Observed {
    slug: String,
    meta_dir: PathBuf,
    agent_dir: PathBuf,
    session_id: String,
    job_id: String,
    /// The project's transcripts folder, for harvesting subagents (Agent calls, turn ends).
    transcripts: Option<PathBuf>,
    what: What,
}

#[derive(Debug)]
enum What {
    Start {
        tool_use_id: String,
        tool: String,
    },
    Call {
        tool_use_id: String,
        tool: String,
        input: Value,
        is_error: bool,
    },
    TurnEnd,
}

/// The recorder's handle, shared through the chat state.
pub struct Provenance {
    tx: mpsc::Sender<Msg>,
    /// Events dropped per session since the recorder last wrote a gap line for it.
    dropped: Arc<Mutex<HashMap<String, u64>>>,
    /// Sessions that lost events since the daemon started (for replies).
    incomplete: Arc<Mutex<HashSet<String>>>,
    limits: Limits,
    /// The daemon's Claude home, where the transcripts (and subagents) are.
    claude_home: PathBuf,
}

impl Provenance {
    /// Starts the recorder thread.
    pub fn start(limits: Limits, claude_home: &Path) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE);
        let dropped = Arc::new(Mutex::new(HashMap::new()));
        let incomplete = Arc::new(Mutex::new(HashSet::new()));
        let recorder = Recorder {
            limits,
            open: HashMap::new(),
            counters: HashMap::new(),
            dropped: dropped.clone(),
            envs: HashMap::new(),
            harvester: harvest::Harvester::default(),
        };
        let spawned = std::thread::Builder::new()
            .name("provenance".into())
            .spawn(move || recorder.run(rx));
        if let Err(e) = spawned {
            tracing::warn!("cannot start the provenance recorder, so no steps are recorded: {e}");
        }
        // The ticker holds only a weak sender: it ends with the recorder's handle. A full queue
        // skips a tick (the next one comes).
        let weak = tx.downgrade();
        let ticker = std::thread::Builder::new()
            .name("provenance-tick".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(HARVEST_EVERY);
                    let Some(tx) = weak.upgrade() else { break };
                    if let Err(mpsc::error::TrySendError::Closed(_)) = tx.try_send(Msg::Tick) {
                        break;
                    }
                }
            });
        if let Err(e) = ticker {
            tracing::warn!(
                "cannot start the provenance ticker, so background subagents are harvested only at turn ends: {e}"
            );
        }
        Self {
            tx,
            dropped,
            incomplete,
            limits,
            claude_home: claude_home.to_path_buf(),
        }
    }

    /// Waits (up to `within`) until the recorder has handled every event handed to it so far:
    /// its writes under the projects' folders are done (a project being deleted).
    pub async fn settle(&self, within: std::time::Duration) {
        let (done, handled) = tokio::sync::oneshot::channel();
        let settled = async {
            if self.tx.send(Msg::Barrier(done)).await.is_ok() {
                let _ = handled.await;
            }
        };
        if tokio::time::timeout(within, settled).await.is_err() {
            tracing::warn!("the provenance recorder did not catch up in time");
        }
    }

    /// Hands a turn's event to the recorder without waiting (only tool events and the turn's
    /// end matter). A full queue drops it and marks the chat's steps incomplete.
    pub fn observe(&self, project: &Project, session_id: &str, job_id: &str, event: &ChatEvent) {
        let what = match event {
            ChatEvent::ToolStart(t) => What::Start {
                tool_use_id: t.tool_use_id.clone(),
                tool: t.name.clone(),
            },
            ChatEvent::ToolCall(t) => What::Call {
                tool_use_id: t.tool_use_id.clone(),
                tool: t.name.clone(),
                input: t.input.clone(),
                is_error: t.is_error,
            },
            ChatEvent::Complete(_) => What::TurnEnd,
            _ => return,
        };
        let transcripts = match &what {
            What::Call { tool, .. } if is_agent_tool(tool) => true,
            What::TurnEnd => true,
            _ => false,
        }
        .then(|| crate::chat_links::link_path(&self.claude_home, &project.agent_dir));
        let observed = Observed {
            slug: project.slug.clone(),
            meta_dir: project.meta_dir.clone(),
            agent_dir: project.agent_dir.clone(),
            session_id: session_id.to_owned(),
            job_id: job_id.to_owned(),
            transcripts,
            what,
        };
        if let Err(mpsc::error::TrySendError::Full(Msg::Event(o))) =
            self.tx.try_send(Msg::Event(Box::new(observed)))
        {
            if let Ok(mut d) = self.dropped.lock() {
                *d.entry(o.session_id.clone()).or_default() += 1;
            }
            if let Ok(mut i) = self.incomplete.lock() {
                i.insert(o.session_id);
            }
        }
    }

    /// Whether events of this session were dropped since the daemon started.
    fn lost_events(&self, session_id: &str) -> bool {
        self.incomplete.lock().is_ok_and(|i| i.contains(session_id))
    }
}

// ---------------------------------------------------------------------------------------------
// The recorder
// ---------------------------------------------------------------------------------------------

/// A tool call whose result has not come yet.
struct Open {
    slug: String,
    meta_dir: PathBuf,
    agent_dir: PathBuf,
    session_id: String,
    job_id: String,
    step_id: String,
    tool: String,
    started_at: String,
    /// The before-scan of an opaque call.
    baseline: Option<Result<Snapshot, ScanError>>,
    overlapped: bool,
    /// Files other steps of the project wrote (observed) while this one ran: not its effects.
    written_elsewhere: HashSet<String>,
    /// The environment the step started in.
    environment: Option<String>,
}

/// A session's current environment.
struct SessionEnv {
    agent_dir: PathBuf,
    hash: Option<String>,
}

struct Recorder {
    limits: Limits,
    open: HashMap<String, Open>,
    /// Tool calls per turn, for step ids.
    counters: HashMap<String, u32>,
    dropped: Arc<Mutex<HashMap<String, u64>>>,
    /// The environment each session's next steps run in, by session.
    envs: HashMap<String, SessionEnv>,
    harvester: harvest::Harvester,
}

/// RFC 3339 UTC with milliseconds: such strings sort in time order.
fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Recorder {
    fn run(mut self, mut rx: mpsc::Receiver<Msg>) {
        while let Some(msg) = rx.blocking_recv() {
            let o = match msg {
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
            // An opaque call's baseline first: the tool is already running, and a chat's first
            // event waits for its environment snapshot (toolchain probes take a while).
            let baseline = match &o.what {
                What::Start { tool, .. } if kind_of(tool) == Kind::Opaque => {
                    Some(scan::scan(&o.agent_dir, self.limits.max_scan_files))
                }
                _ => None,
            };
            self.ensure_env(&o);
            match o.what {
                What::Start {
                    ref tool_use_id,
                    ref tool,
                    ..
                } => {
                    let (id, tool) = (tool_use_id.clone(), tool.clone());
                    self.start(&o, id, tool, baseline);
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
                    self.finish(open, tool_use_id, input, is_error, false);
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
                            self.finish(open, &id, &Value::Null, true, true);
                        }
                    }
                    self.counters.remove(&o.job_id);
                    // Background subagents finish after their Agent call returned.
                    self.harvest(&o, None);
                }
            }
        }
    }

    /// Records the tool calls of the session's subagents that have finished (`harvest.rs`).
    fn harvest(&mut self, o: &Observed, agent_call: Option<&str>) {
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
    fn write_gap(&self, o: &Observed) {
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
    fn ensure_env(&mut self, o: &Observed) {
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
        let hash = recorded.or_else(|| snapshot(&o.meta_dir, &o.agent_dir));
        self.envs.insert(
            o.session_id.clone(),
            SessionEnv {
                agent_dir: o.agent_dir.clone(),
                hash,
            },
        );
    }

    /// After an install-shaped command: a new snapshot for every session in that directory.
    fn recapture(&mut self, meta_dir: &Path, agent_dir: &Path) {
        let hash = snapshot(meta_dir, agent_dir);
        for env in self.envs.values_mut() {
            if env.agent_dir == agent_dir {
                env.hash.clone_from(&hash);
            }
        }
    }

    fn new_open(
        &mut self,
        o: &Observed,
        tool: String,
        baseline: Option<Result<Snapshot, ScanError>>,
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
            started_at: now(),
            baseline,
            overlapped: false,
            written_elsewhere: HashSet::new(),
            environment: self.envs.get(&o.session_id).and_then(|e| e.hash.clone()),
        }
    }

    /// A tool call started; `baseline`: an opaque call's before-scan, when already taken.
    fn start(
        &mut self,
        o: &Observed,
        tool_use_id: String,
        tool: String,
        baseline: Option<Result<Snapshot, ScanError>>,
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
            _ => opaque.then(|| scan::scan(&o.agent_dir, self.limits.max_scan_files)),
        };
        let mut open = self.new_open(o, tool, baseline);
        open.overlapped = overlapped;
        self.open.insert(tool_use_id, open);
    }

    fn finish(
        &mut self,
        open: Open,
        tool_use_id: &str,
        input: &Value,
        is_error: bool,
        no_result: bool,
    ) {
        let limits = self.limits;
        let mut files = Vec::new();
        let mut scan_result = None;
        match kind_of(&open.tool) {
            Kind::Writes if !is_error => {
                for raw in named_paths(&open.tool, input) {
                    let path = rel_path(&open.agent_dir, &raw);
                    let abs = abs_path(&open.agent_dir, &path);
                    // Only the project's own files are kept (blame reads no others).
                    let hashed = if path.starts_with('/') {
                        hash_file(&abs, limits.max_hash_bytes)
                    } else {
                        versions::keep(&open.meta_dir, &abs, limits.max_hash_bytes)
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
            }
            Kind::Reads if !is_error => {
                for raw in named_paths(&open.tool, input) {
                    let path = rel_path(&open.agent_dir, &raw);
                    let hashed =
                        hash_file(&abs_path(&open.agent_dir, &path), limits.max_hash_bytes);
                    files.push(FileRecord {
                        path,
                        role: Role::Read,
                        edge: FileEdge::Observed,
                        change: "read".into(),
                        hash: hashed.hash().map(str::to_owned),
                        unhashed: hashed == Hashed::TooLarge,
                    });
                }
            }
            Kind::Opaque => {
                let after = scan::scan(&open.agent_dir, limits.max_scan_files);
                match (&open.baseline, after.as_ref()) {
                    (Some(Ok(before)), Ok(after)) => {
                        let changed = scan::diff(before, after);
                        let written: HashSet<&str> =
                            changed.iter().map(|(p, _)| p.as_str()).collect();
                        for (path, change) in &changed {
                            if open.written_elsewhere.contains(path) {
                                continue;
                            }
                            let hashed = match change {
                                scan::Change::Deleted => Hashed::Missing,
                                _ => versions::keep(
                                    &open.meta_dir,
                                    &open.agent_dir.join(path),
                                    limits.max_hash_bytes,
                                ),
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
                        if open.tool == "Bash" {
                            let command =
                                input.get("command").and_then(Value::as_str).unwrap_or("");
                            for path in command_files(command, &open.agent_dir) {
                                if before.files.contains_key(&path)
                                    && !written.contains(path.as_str())
                                {
                                    files.push(FileRecord {
                                        path,
                                        role: Role::Read,
                                        edge: FileEdge::Inferred,
                                        change: "read".into(),
                                        hash: None,
                                        unhashed: false,
                                    });
                                }
                            }
                        }
                    }
                    (Some(Err(e)), _) | (_, Err(e)) => scan_result = Some(e.label().to_owned()),
                    // No baseline (the start was lost): nothing to compare with.
                    (None, Ok(_)) => scan_result = Some("scan-failed".to_owned()),
                }
            }
            _ => {}
        }
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
            ended_at: now(),
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
            self.recapture(&meta_dir, &agent_dir);
        }
    }
}

/// Captures and stores a snapshot of `agent_dir`; its hash, or `None` (with a warning) when
/// it cannot be stored.
fn snapshot(meta_dir: &Path, agent_dir: &Path) -> Option<String> {
    let snap = env::capture(agent_dir);
    match env::store(meta_dir, &snap) {
        Ok(hash) => Some(hash),
        Err(e) => {
            tracing::warn!(dir = %agent_dir.display(), "cannot store an environment snapshot: {e}");
            None
        }
    }
}

/// The files a write or read tool names in its input.
fn named_paths(tool: &str, input: &Value) -> Vec<String> {
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
fn preview(input: &Value, max: usize) -> (String, bool) {
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
fn command_files(command: &str, agent_dir: &Path) -> Vec<String> {
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

/// A path as recorded: relative to the project's directory (`/`-separated, `.` and `..`
/// resolved lexically) when inside it, else absolute.
pub fn rel_path(agent_dir: &Path, raw: &str) -> String {
    let joined = agent_dir.join(raw);
    let clean = normalize(&joined);
    let inside = |dir: &Path| {
        clean
            .strip_prefix(normalize(dir))
            .ok()
            .map(Path::to_path_buf)
    };
    let rel = inside(agent_dir).or_else(|| {
        std::fs::canonicalize(agent_dir)
            .ok()
            .and_then(|canon| inside(&canon))
    });
    match rel {
        Some(rel) => rel
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .collect::<Vec<_>>()
            .join("/"),
        None => clean.to_string_lossy().into_owned(),
    }
}

fn abs_path(agent_dir: &Path, recorded: &str) -> PathBuf {
    agent_dir.join(recorded)
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The request
// ---------------------------------------------------------------------------------------------

fn invalid(message: String) -> ErrorBody {
    ErrorBody::new(ErrorCode::InvalidArgument, message)
}

/// `provenance:file`.
pub async fn file(
    d: &crate::handles::Daemon,
    r: ProvenanceFile,
) -> Result<paddock_proto::Provenance, ErrorBody> {
    let (project, file) = resolve_file(d, &r)?;
    let state = d.state.clone();
    let private = d.cfg.private_state();
    blocking(move || report(&state, &private, &project, &file)).await
}

/// Runs a query that reads files and hashes off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorBody> + Send + 'static,
) -> Result<T, ErrorBody> {
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        ErrorBody::new(
            ErrorCode::Internal,
            format!("the provenance query failed: {e}"),
        )
    })?
}

/// The project a file request is about, and the file in it: confined like every path a
/// request names (`confine.rs`): nothing outside the project's directory, symlinks resolved,
/// and never paddockd's own state.
pub(crate) fn resolve_file(
    d: &crate::handles::Daemon,
    r: &ProvenanceFile,
) -> Result<(Project, crate::confine::Confined), ErrorBody> {
    let project = match &r.project_slug {
        Some(slug) => d.project(slug)?,
        None => project_holding(d, &r.path)?,
    };
    let not_a_file = || {
        invalid(format!(
            "{} is not a file inside project {} ({})",
            r.path,
            label(&project.slug),
            project.agent_dir.display()
        ))
    };
    let confined = crate::confine::in_project(
        &d.cfg.private_state(),
        &project.agent_dir,
        &r.path,
        crate::confine::Naming::Lexical,
    )
    .map_err(|e| match e {
        crate::confine::Refused::Outside { .. } => not_a_file(),
        other => {
            let mut body = ErrorBody::from(other);
            body.message = format!("{} (project {})", body.message, label(&project.slug));
            body
        }
    })?;
    if confined.rel.is_empty() {
        return Err(not_a_file());
    }
    Ok((project, confined))
}

/// A file of the project named as steps record it, hashed when it is confined to the project
/// (`confine.rs`); an outside or private one is not read.
pub(crate) fn hash_in_project(
    private: &crate::confine::Private,
    project: &Project,
    recorded: &str,
    max_bytes: u64,
) -> Hashed {
    match crate::confine::in_project(
        private,
        &project.agent_dir,
        recorded,
        crate::confine::Naming::Lexical,
    ) {
        Ok(c) => hash_file(&c.path, max_bytes),
        Err(e) => Hashed::Unreadable(e.to_string()),
    }
}

/// The project whose directory holds an absolute path (the deepest one).
fn project_holding(d: &crate::handles::Daemon, path: &str) -> Result<Project, ErrorBody> {
    let p = Path::new(path);
    if !p.is_absolute() {
        return Err(invalid(format!(
            "{path} is relative: name the project (-p) or give an absolute path"
        )));
    }
    let projects = d.projects.list().map_err(crate::handles::project_error)?;
    projects
        .into_iter()
        .filter(|proj| !rel_path(&proj.agent_dir, path).starts_with('/'))
        .max_by_key(|proj| proj.agent_dir.components().count())
        .ok_or_else(|| invalid(format!("{path} is in no project's directory")))
}

/// Every recorded step of a project, in the order they ended, and the events each session
/// lost (from its gap lines).
pub(crate) struct Records {
    pub steps: Vec<StepRecord>,
    pub gaps: BTreeMap<String, u64>,
}

impl Records {
    pub(crate) fn load(meta_dir: &Path) -> Self {
        let mut gaps: BTreeMap<String, u64> = BTreeMap::new();
        let mut all: Vec<StepRecord> = Vec::new();
        for (session, lines) in steps::read_project(meta_dir) {
            for line in lines {
                match line {
                    Line::Step(s) => all.push(*s),
                    Line::Gap { dropped, .. } => {
                        *gaps.entry(session.clone()).or_default() += dropped;
                    }
                }
            }
        }
        // Time order; ties keep file order.
        all.sort_by(|a, b| a.ended_at.cmp(&b.ended_at));
        Self { steps: all, gaps }
    }
}

/// Chat titles and models for the steps of a reply, looked up once per chat.
pub(crate) struct Names<'a> {
    state: &'a crate::state::ChatState,
    seen: HashMap<String, (Option<String>, Option<String>)>,
}

impl<'a> Names<'a> {
    pub(crate) fn new(state: &'a crate::state::ChatState) -> Self {
        Self {
            state,
            seen: HashMap::new(),
        }
    }

    fn of(&mut self, session: &str) -> &(Option<String>, Option<String>) {
        let state = self.state;
        self.seen.entry(session.to_owned()).or_insert_with(|| {
            state
                .index
                .get(session)
                .map_or((None, None), |c| (Some(c.title), c.model))
        })
    }

    pub(crate) fn title(&mut self, session: &str) -> Option<String> {
        self.of(session).0.clone()
    }

    /// A step's edge on a file, as the wire shows it.
    pub(crate) fn file_step(&mut self, s: &StepRecord, f: &FileRecord) -> FileStep {
        let (title, model) = self.of(&s.session_id).clone();
        FileStep {
            session_id: s.session_id.clone(),
            job_id: s.job_id.clone(),
            step_id: s.step_id.clone(),
            title,
            tool: s.tool.clone(),
            at: s.ended_at.clone(),
            edge: f.edge,
            change: f.change.clone(),
            hash: f.hash.clone(),
            environment: s.environment.clone(),
            model: s
                .specialist
                .as_ref()
                .and_then(|sp| sp.model.clone())
                .or(model),
            specialist: s.specialist.clone(),
        }
    }
}

/// Builds the reply from the project's steps (blocking: reads files and hashes).
fn report(
    state: &crate::state::ChatState,
    private: &crate::confine::Private,
    project: &Project,
    file: &crate::confine::Confined,
) -> Result<paddock_proto::Provenance, ErrorBody> {
    let rel = file.rel.as_str();
    let Records { steps: all, gaps } = Records::load(&project.meta_dir);
    let limits = state.provenance.limits;
    let now = hash_file(&file.path, limits.max_hash_bytes);
    let touching = |role: Role| -> Vec<(&StepRecord, &FileRecord)> {
        all.iter()
            .rev()
            .flat_map(|s| {
                s.files
                    .iter()
                    .filter(|f| f.role == role && f.path == rel)
                    .map(move |f| (s, f))
            })
            .collect()
    };
    let writes = touching(Role::Write);
    let reads = touching(Role::Read);
    if writes.is_empty() && reads.is_empty() && now == Hashed::Missing {
        return Err(ErrorBody::new(
            ErrorCode::NotFound,
            format!(
                "{rel} does not exist in project {} and no chat's steps name it",
                label(&project.slug)
            ),
        ));
    }
    let mut names = Names::new(state);
    let mut file_step = |s: &StepRecord, f: &FileRecord| names.file_step(s, f);
    let (status, status_reason) = identity::status(
        writes.first().map(|(s, f)| (*f, s.tool.as_str())),
        writes.first().is_some_and(|(s, _)| s.specialist.is_some()),
        &now,
    );
    let producers: Vec<FileStep> = writes.iter().map(|(s, f)| file_step(s, f)).collect();
    let readers: Vec<FileStep> = reads.iter().map(|(s, f)| file_step(s, f)).collect();
    let walk = lineage::walk(&all, rel, lineage::BOUNDS);
    // Inputs nobody recorded writing are compared with what was read before the file was made.
    let until = walk
        .nodes
        .first()
        .and_then(|n| n.producer)
        .map(|(s, _)| s.ended_at.as_str());
    let nodes: Vec<LineageNode> = walk
        .nodes
        .iter()
        .map(|n| LineageNode {
            path: n.path.clone(),
            hops: n.hops,
            producer: n.producer.map(|(s, f)| file_step(s, f)),
            inputs: n.inputs.clone(),
            missing_origin: n.producer.is_none(),
            changed_since_use: n.hops > 0
                && changed_since_use(private, project, &all, n, until, limits.max_hash_bytes),
        })
        .collect();
    let mut notes = Vec::new();
    if nodes.iter().any(|n| n.changed_since_use) {
        notes.push(
            "Some inputs of this file have changed since it was made from them (marked in the lineage).".into(),
        );
    }
    let mut involved: Vec<&str> = writes
        .iter()
        .chain(reads.iter())
        .map(|(s, _)| s.session_id.as_str())
        .collect();
    involved.sort_unstable();
    involved.dedup();
    for session in gaps.keys() {
        if !involved.contains(&session.as_str()) {
            involved.push(session);
        }
    }
    for session in involved {
        if gaps.contains_key(session) || state.provenance.lost_events(session) {
            let name = names
                .title(session)
                .map_or_else(String::new, |t| format!(" ({t})"));
            notes.push(format!(
                "Some tool calls of chat {}{name} were not recorded (the recorder fell behind), so its steps are incomplete.",
                short(session)
            ));
        }
    }
    let unscanned: BTreeMap<&str, usize> =
        all.iter()
            .filter_map(|s| s.scan.as_deref())
            .fold(BTreeMap::new(), |mut m, label| {
                *m.entry(label).or_default() += 1;
                m
            });
    for (label, n) in unscanned {
        notes.push(format!(
            "{n} tool call{} of this project had no before/after scan ({label}), so files {} wrote may have no record.",
            if n == 1 { "" } else { "s" },
            if n == 1 { "it" } else { "they" }
        ));
    }
    let mut env_hashes: Vec<&str> = Vec::new();
    let named = producers
        .iter()
        .chain(readers.iter())
        .chain(
            nodes
                .iter()
                .filter_map(|n: &LineageNode| n.producer.as_ref()),
        )
        .filter_map(|s| s.environment.as_deref());
    for hash in named {
        if !env_hashes.contains(&hash) {
            env_hashes.push(hash);
        }
    }
    let mut environments = Vec::new();
    for hash in env_hashes {
        match env::load(&project.meta_dir, hash) {
            Some(e) => environments.push(e),
            None => notes.push(format!(
                "The environment snapshot {} is missing or unreadable.",
                short(hash)
            )),
        }
    }
    if writes.iter().any(|(s, _)| s.overlapped) {
        notes.push(
            "A step that wrote this file ran alongside other tool calls of the project, so its attribution is inferred from a shared scan.".into(),
        );
    }
    Ok(paddock_proto::Provenance {
        project_slug: project.slug.clone(),
        path: rel.to_owned(),
        status,
        status_reason,
        current_hash: now.hash().map(str::to_owned),
        producers,
        readers,
        lineage: Lineage {
            nodes,
            truncated: walk.truncated,
        },
        notes,
        environments,
    })
}

/// Whether an input's bytes now differ from the version the lineage used: the hash its
/// producing step recorded or, for a file no step wrote, the hash of its latest read at or
/// before `until` (when the file asked about was written). Unknown (no hash, unreadable,
/// outside the project) is not a change.
fn changed_since_use(
    private: &crate::confine::Private,
    project: &Project,
    all: &[StepRecord],
    node: &lineage::Node<'_>,
    until: Option<&str>,
    max_hash_bytes: u64,
) -> bool {
    let recorded = match node.producer {
        Some((_, f)) => f.hash.as_deref(),
        None => all
            .iter()
            .rev()
            .filter(|s| until.is_none_or(|u| s.ended_at.as_str() <= u))
            .flat_map(|s| s.files.iter().rev())
            .find(|f| f.role == Role::Read && f.path == node.path && f.hash.is_some())
            .and_then(|f| f.hash.as_deref()),
    };
    let Some(recorded) = recorded else {
        return false;
    };
    if node.path.starts_with('/') {
        return false;
    }
    match hash_in_project(private, project, &node.path, max_hash_bytes) {
        Hashed::Hash(now) => now != recorded,
        Hashed::Missing => true,
        Hashed::TooLarge | Hashed::Unreadable(_) => false,
    }
}

/// A slug for people: the root workspace is `(root)`.
fn label(slug: &str) -> &str {
    if slug.is_empty() { "(root)" } else { slug }
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn paths_are_recorded_relative_to_the_project() {
        let dir = Path::new("/home/ana/web");
        assert_eq!(rel_path(dir, "/home/ana/web/src/a.ts"), "src/a.ts");
        assert_eq!(rel_path(dir, "src/./b/../a.ts"), "src/a.ts");
        assert_eq!(rel_path(dir, "/etc/passwd"), "/etc/passwd");
        assert_eq!(rel_path(dir, "../other/x"), "/home/ana/other/x");
    }

    #[test]
    fn tools_are_classified() {
        assert_eq!(kind_of("Edit"), Kind::Writes);
        assert_eq!(kind_of("Read"), Kind::Reads);
        assert_eq!(kind_of("Bash"), Kind::Opaque);
        assert_eq!(kind_of("Task"), Kind::Opaque);
        assert_eq!(kind_of("mcp__paddock_manage__create_chat"), Kind::Quiet);
        assert_eq!(kind_of("WebFetch"), Kind::Quiet);
    }

    #[test]
    fn previews_are_cut_at_the_bound() {
        let input = serde_json::json!({"command": "é".repeat(3000)});
        let (text, cut) = preview(&input, 4096);
        assert!(cut);
        assert!(text.len() <= 4096);
        let (text, cut) = preview(&serde_json::json!({"a": 1}), 4096);
        assert_eq!((text.as_str(), cut), ("{\"a\":1}", false));
    }

    #[test]
    fn command_lines_name_files() {
        let dir = Path::new("/p");
        assert_eq!(
            command_files("cat data/in.csv | sort > out.csv; echo $HOME *.txt -n", dir),
            ["cat", "data/in.csv", "sort", "out.csv", "echo"]
        );
    }

    fn observed(dir: &Path, what: What) -> Observed {
        Observed {
            slug: "p".into(),
            meta_dir: dir.to_path_buf(),
            agent_dir: dir.to_path_buf(),
            session_id: "s".into(),
            job_id: "job".into(),
            transcripts: None,
            what,
        }
    }

    fn recorder(limits: Limits) -> Recorder {
        Recorder {
            limits,
            open: HashMap::new(),
            counters: HashMap::new(),
            dropped: Arc::default(),
            envs: HashMap::new(),
            harvester: harvest::Harvester::default(),
        }
    }

    fn play(r: &mut Recorder, dir: &Path, id: &str, tool: &str, input: Value, act: impl FnOnce()) {
        let start = observed(
            dir,
            What::Start {
                tool_use_id: id.into(),
                tool: tool.into(),
            },
        );
        r.start(&start, id.into(), tool.into(), None);
        act();
        let open = r.open.remove(id).unwrap();
        r.finish(open, id, &input, false, false);
    }

    fn steps_of(dir: &Path) -> Vec<StepRecord> {
        steps::read(&steps::steps_path(dir, "s"))
            .unwrap()
            .into_iter()
            .filter_map(|l| match l {
                Line::Step(s) => Some(*s),
                Line::Gap { .. } => None,
            })
            .collect()
    }

    #[test]
    fn the_recorder_records_observed_and_inferred_edges() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("in.csv"), "1,2").unwrap();
        let mut r = recorder(Limits::default());
        let file = root.join("a.txt");
        play(
            &mut r,
            root,
            "t1",
            "Write",
            serde_json::json!({"file_path": file}),
            || {
                std::fs::write(&file, "hello").unwrap();
            },
        );
        play(
            &mut r,
            root,
            "t2",
            "Bash",
            serde_json::json!({"command": "sort in.csv > out.csv"}),
            || {
                std::fs::write(root.join("out.csv"), "1\n2").unwrap();
            },
        );
        let steps = steps_of(root);
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].step_id, "job:1");
        assert_eq!(steps[0].files[0].path, "a.txt");
        assert_eq!(steps[0].files[0].edge, FileEdge::Observed);
        assert!(
            steps[0].files[0]
                .hash
                .as_deref()
                .unwrap()
                .starts_with("sha256:")
        );
        let bash = &steps[1];
        assert_eq!(bash.step_id, "job:2");
        let out = bash.files.iter().find(|f| f.path == "out.csv").unwrap();
        assert_eq!(
            (out.role, out.edge, out.change.as_str()),
            (Role::Write, FileEdge::Inferred, "created")
        );
        let input = bash.files.iter().find(|f| f.path == "in.csv").unwrap();
        assert_eq!((input.role, input.edge), (Role::Read, FileEdge::Inferred));
        assert!(bash.scan.is_none());
    }

    #[test]
    fn a_tree_over_the_scan_bound_is_too_large_and_edges_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut r = recorder(Limits {
            max_scan_files: 5,
            max_edges: 3,
            ..Limits::default()
        });
        play(
            &mut r,
            root,
            "t1",
            "Bash",
            serde_json::json!({"command": "touch f1 f2 f3 f4"}),
            || {
                for i in 1..=4 {
                    std::fs::write(root.join(format!("f{i}")), "x").unwrap();
                }
            },
        );
        play(
            &mut r,
            root,
            "t2",
            "Bash",
            serde_json::json!({"command": "touch f5 f6"}),
            || {
                for i in 5..=6 {
                    std::fs::write(root.join(format!("f{i}")), "x").unwrap();
                }
            },
        );
        let steps = steps_of(root);
        assert_eq!(steps[0].files.len(), 3);
        assert_eq!(steps[0].truncated_edges, 1);
        assert_eq!(steps[1].scan.as_deref(), Some("sandbox-too-large"));
        assert!(steps[1].files.is_empty());
    }

    #[test]
    fn steps_name_their_environment_and_an_install_recaptures_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("package-lock.json"), "{}").unwrap();
        let mut r = recorder(Limits::default());
        r.ensure_env(&observed(root, What::TurnEnd));
        let first = r.envs["s"].hash.clone().unwrap();
        play(
            &mut r,
            root,
            "t1",
            "Bash",
            serde_json::json!({"command": "npm install left-pad"}),
            || std::fs::write(root.join("package-lock.json"), "{\"v\":2}").unwrap(),
        );
        play(
            &mut r,
            root,
            "t2",
            "Bash",
            serde_json::json!({"command": "npm test"}),
            || {},
        );
        let steps = steps_of(root);
        assert_eq!(steps[0].environment.as_deref(), Some(first.as_str()));
        let second = steps[1].environment.clone().unwrap();
        assert_ne!(second, first);
        let (a, b) = (
            env::load(root, &first).unwrap(),
            env::load(root, &second).unwrap(),
        );
        assert_ne!(
            a.lockfiles["package-lock.json"],
            b.lockfiles["package-lock.json"]
        );
        // A recorder that restarts picks the session's environment up from its steps.
        let mut again = recorder(Limits::default());
        again.ensure_env(&observed(root, What::TurnEnd));
        assert_eq!(again.envs["s"].hash.as_deref(), Some(second.as_str()));
    }

    #[test]
    fn overlapping_opaque_calls_are_marked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut r = recorder(Limits::default());
        let a = observed(root, What::TurnEnd);
        r.start(&a, "t1".into(), "Bash".into(), None);
        r.start(&a, "t2".into(), "Bash".into(), None);
        let t1 = r.open.remove("t1").unwrap();
        r.finish(t1, "t1", &Value::Null, false, false);
        // The turn ends before t2's result.
        let open = r.open.remove("t2").unwrap();
        r.finish(open, "t2", &Value::Null, true, true);
        let steps = steps_of(root);
        assert!(steps.iter().all(|s| s.overlapped));
        assert!(steps[1].no_result);
    }
}
