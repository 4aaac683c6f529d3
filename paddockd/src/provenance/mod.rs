//! File provenance: which chat's tool calls produced which file, from what, and whether the
//! file still is what they wrote.
//!
//! The runner hands every event of a turn to [`Provenance::observe`], which never waits: the
//! event goes into a bounded queue ([`QUEUE`] events) read by the sampler (`sampler.rs`), a
//! thread that at once takes what the disk holds (an opaque call's scans, the lockfiles) and
//! hands the event on to the recorder, a thread of its own (its probes, hashes and fsyncs
//! block, and may fall seconds behind). **Overflow policy**: when the queue is full the
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
//!
//! Here: the handle the runner observes through; `sampler.rs` is the sampler thread,
//! `recorder.rs` the recorder thread,
//! `request.rs` answers `provenance:file`, `paths.rs` says how paths are recorded.

pub mod env;
pub mod harvest;
pub mod identity;
pub mod lineage;
mod paths;
mod recorder;
mod sampler;
pub mod scan;
pub mod steps;
pub mod versions;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use paddock_proto::ChatEvent;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::projects::Project;

use paths::abs_path;
pub use paths::rel_path;
use recorder::{Recorder, named_paths, preview};

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
    /// When the event came (RFC 3339): a step's start and end, however late the recorder
    /// gets to it.
    at: String,
    /// What the disk held when the event came (`sampler.rs`).
    sampled: sampler::Sampled,
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
    /// A project's slug each time a turn's steps are all recorded. Bounded
    /// ([`RECORDED_QUEUE`]); a listener that falls behind loses the oldest and is told so.
    recorded: tokio::sync::broadcast::Sender<String>,
}

/// Turn ends whose recording a listener may be behind on before it loses the oldest.
const RECORDED_QUEUE: usize = 64;

impl Provenance {
    /// The limits it records within (hashing, queue).
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Starts the recorder thread.
    pub fn start(limits: Limits, claude_home: &Path) -> Self {
        Self::start_with(limits, claude_home, Arc::new(env::capture))
    }

    /// Starts the recorder thread, probing environments with `capture`.
    fn start_with(limits: Limits, claude_home: &Path, capture: env::Capture) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE);
        let (sampled_tx, sampled_rx) = mpsc::channel(QUEUE);
        let dropped = Arc::new(Mutex::new(HashMap::new()));
        let incomplete = Arc::new(Mutex::new(HashSet::new()));
        let sampler = sampler::Sampler::new(limits);
        let spawned = std::thread::Builder::new()
            .name("provenance-sampler".into())
            .spawn(move || sampler.run(rx, sampled_tx));
        if let Err(e) = spawned {
            tracing::warn!("cannot start the provenance sampler, so no steps are recorded: {e}");
        }
        let (recorded, _) = tokio::sync::broadcast::channel(RECORDED_QUEUE);
        let recorder = Recorder {
            limits,
            open: HashMap::new(),
            counters: HashMap::new(),
            dropped: dropped.clone(),
            envs: HashMap::new(),
            harvester: harvest::Harvester::default(),
            capture,
            toolchains: env::KnownToolchains::default(),
            recorded: recorded.clone(),
        };
        let spawned = std::thread::Builder::new()
            .name("provenance".into())
            .spawn(move || recorder.run(sampled_rx));
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
            recorded,
        }
    }

    /// The projects whose chats' steps were just recorded, a slug per turn end: what a view of
    /// the files a chat read and wrote follows (the recorder catches up after the turn ends).
    pub fn recorded(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.recorded.subscribe()
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
            at: recorder::now(),
            sampled: sampler::Sampled::default(),
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
    pub fn lost_events(&self, session_id: &str) -> bool {
        self.incomplete.lock().is_ok_and(|i| i.contains(session_id))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use paddock_proto::FileEdge;

    use super::recorder::{Ended, command_files};
    use super::steps::{Line, Role, StepRecord};
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
    fn a_path_through_a_link_is_recorded_where_it_leads() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let dir = base.join("web");
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::create_dir_all(base.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(base.join("elsewhere"), dir.join("out")).unwrap();
        assert_eq!(
            rel_path(&dir, "out/pwned.txt"),
            base.join("elsewhere/pwned.txt").to_string_lossy()
        );
        assert_eq!(rel_path(&dir, "src/new.rs"), "src/new.rs");
        let files = command_files("cat out/x src/a.rs", &dir);
        assert!(files.contains(&"src/a.rs".to_owned()), "{files:?}");
        assert!(
            !files.iter().any(|f| f.contains("out")),
            "a word through the link is no file of the project: {files:?}"
        );
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
            at: recorder::now(),
            sampled: sampler::Sampled::default(),
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
            capture: Arc::new(env::capture),
            toolchains: env::KnownToolchains::default(),
            recorded: tokio::sync::broadcast::channel(1).0,
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
        r.finish(open, id, &input, false, false, Ended::default());
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

    /// Sessions that start in one folder within a minute share the toolchains probed for the
    /// first (each still gets its own git HEAD probe); an install-shaped command probes anew.
    #[test]
    fn toolchains_are_probed_once_for_sessions_starting_together_and_again_after_an_install() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let probed = Arc::new(Mutex::new(Vec::new()));
        let mut r = recorder(Limits::default());
        let seen = probed.clone();
        r.capture = Arc::new(move |dir: &Path, moment: env::Moment, known| {
            seen.lock().unwrap().push(known.is_none());
            env::capture(dir, moment, known)
        });
        for sid in ["s1", "s2", "s3"] {
            let mut o = observed(root, What::TurnEnd);
            o.session_id = sid.into();
            r.ensure_env(&mut o);
        }
        assert_eq!(*probed.lock().unwrap(), [true, false, false]);
        let hashes: HashSet<_> = r.envs.values().map(|e| e.hash.clone()).collect();
        assert_eq!(hashes.len(), 1, "one environment: {hashes:?}");
        r.recapture(root, root, env::moment(root));
        assert_eq!(*probed.lock().unwrap(), [true, false, false, true]);
        // Another folder is probed for itself.
        let other = root.join("other");
        std::fs::create_dir_all(&other).unwrap();
        let mut o = observed(&other, What::TurnEnd);
        o.session_id = "s4".into();
        r.ensure_env(&mut o);
        assert_eq!(*probed.lock().unwrap(), [true, false, false, true, true]);
    }

    #[test]
    fn known_toolchains_go_stale_and_stay_bounded() {
        let mut known = env::KnownToolchains::default();
        let t0 = std::time::Instant::now();
        let tools = env::Toolchains::from([("rustc".to_owned(), "rustc 1.95.0".to_owned())]);
        known.remember(Path::new("/a"), t0, &tools);
        assert_eq!(known.fresh(Path::new("/a"), t0), Some(tools.clone()));
        assert_eq!(known.fresh(Path::new("/b"), t0), None);
        assert_eq!(
            known.fresh(Path::new("/a"), t0 + env::TOOLCHAINS_FRESH),
            None
        );
        for i in 0..1000 {
            known.remember(&PathBuf::from(format!("/d{i}")), t0, &tools);
        }
        assert!(known.folders() <= 256, "{}", known.folders());
        assert_eq!(known.fresh(Path::new("/d999"), t0), Some(tools));
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
        r.ensure_env(&mut observed(root, What::TurnEnd));
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
        again.ensure_env(&mut observed(root, What::TurnEnd));
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
        r.finish(t1, "t1", &Value::Null, false, false, Ended::default());
        // The turn ends before t2's result.
        let open = r.open.remove("t2").unwrap();
        r.finish(open, "t2", &Value::Null, true, true, Ended::default());
        let steps = steps_of(root);
        assert!(steps.iter().all(|s| s.overlapped));
        assert!(steps[1].no_result);
    }

    /// The recorder handing over to slow work (here an environment probe held until
    /// released) does not move what the steps saw: the project's files at an opaque call's
    /// start and the lockfiles at a session's first event are taken when the events come.
    #[tokio::test]
    async fn what_a_step_saw_is_taken_when_it_happens_not_when_the_recorder_catches_up() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::write(root.join("package-lock.json"), "{}").unwrap();
        let lock_before = identity::hash_file(&root.join("package-lock.json"), u64::MAX)
            .hash()
            .unwrap()
            .to_owned();
        let (release, held) = std::sync::mpsc::channel::<()>();
        let held = Mutex::new(held);
        let capture: env::Capture = Arc::new(move |dir: &Path, moment: env::Moment, known| {
            if let Ok(held) = held.lock() {
                let _ = held.recv_timeout(std::time::Duration::from_secs(20));
            }
            env::capture(dir, moment, known)
        });
        let p = Provenance::start_with(Limits::default(), &root, capture);
        let hand = |what: What| {
            p.tx.try_send(Msg::Event(Box::new(observed(&root, what))))
                .unwrap();
        };
        let file = root.join("a.txt");
        std::fs::write(&file, "hello").unwrap();
        hand(What::Start {
            tool_use_id: "t1".into(),
            tool: "Write".into(),
        });
        hand(What::Call {
            tool_use_id: "t1".into(),
            tool: "Write".into(),
            input: serde_json::json!({"file_path": file}),
            is_error: false,
        });
        let before_t2 = recorder::now();
        hand(What::Start {
            tool_use_id: "t2".into(),
            tool: "Bash".into(),
        });
        let after_t2 = recorder::now();
        // The command runs for a while, then writes a file and updates the lockfile.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        std::fs::write(root.join("out.csv"), "1\n2").unwrap();
        std::fs::write(root.join("package-lock.json"), "{\"v\":2}").unwrap();
        hand(What::Call {
            tool_use_id: "t2".into(),
            tool: "Bash".into(),
            input: serde_json::json!({"command": "make"}),
            is_error: false,
        });
        hand(What::TurnEnd);
        release.send(()).unwrap();
        p.settle(std::time::Duration::from_secs(20)).await;

        let steps = steps_of(&root);
        assert_eq!(steps.len(), 2, "{steps:#?}");
        let wrote: Vec<&str> = steps[1].files.iter().map(|f| f.path.as_str()).collect();
        assert!(wrote.contains(&"out.csv"), "{steps:#?}");
        let env = env::load(&root, steps[0].environment.as_deref().unwrap()).unwrap();
        assert_eq!(env.lockfiles["package-lock.json"], lock_before);
        // Its times are the events' too: the recorder was held until after t2 ended.
        assert!(
            before_t2 <= steps[1].started_at && steps[1].started_at <= after_t2,
            "{before_t2} <= {} <= {after_t2}",
            steps[1].started_at
        );
        assert!(steps[1].ended_at <= recorder::now() && steps[0].ended_at <= before_t2);
    }
}
