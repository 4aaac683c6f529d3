//! Harvesting subagents: the tool calls of Claude Code's Agent tool run in a child session whose
//! events never reach the chat's stream (the runner drops lines with a `parent_tool_use_id`), so
//! the recorder reads them from the child's transcript once it has finished:
//! `<transcripts>/<sessionId>/subagents/agent-<id>.jsonl`, with `agent-<id>.meta.json` beside it
//! (`agentType`, `description`, `model`, `spawnDepth`, `finished`).
//!
//! Each child tool call becomes a step of the turn that made the Agent call, marked with the
//! [`Specialist`] that made it. As the file-provenance document says: child files are inspected
//! at harvest, not during the write, so a harvested hash that still matches leaves the file
//! *unverified* (`identity::status`); writes are `wrote` (no created/modified guess); opaque child
//! calls (Bash...) have no scan baseline of their own (`no-baseline`: the lead's scan around the
//! Agent call is the evidence for them); nested subagents (spawn depth over one) are not
//! harvested. Spawned child *chats* need no harvest: they run through the daemon, and their
//! steps are recorded live under their own session.
//!
//! Bounds: at most [`MAX_AGENTS`] subagents per harvest and [`MAX_TRANSCRIPT_BYTES`] read per
//! transcript; the steps of a longer transcript end with what fitted.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead as _, Read as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use paddock_proto::{FileEdge, Specialist};
use serde_json::Value;

use crate::claude_format::content::Block;
use crate::claude_format::transcript::{Record, RecordKind, SubagentMeta};

use super::identity::Hashed;
use super::steps::{self, FileRecord, Line, Role, StepRecord};
use super::{Kind, Limits, abs_path, kind_of, named_paths, preview, rel_path};

/// Subagents harvested at most per turn event.
pub const MAX_AGENTS: usize = 64;
/// Bytes of one subagent transcript read at most.
pub const MAX_TRANSCRIPT_BYTES: u64 = 64 * 1024 * 1024;

/// How long an Agent call's subagent may take to finish before the harvester forgets it.
pub const PENDING_TTL: Duration = Duration::from_secs(6 * 3600);

/// How long a subagent its meta file calls finished may keep a transcript that has not ended
/// before it is harvested as it stands. The CLI marks the meta file at once but writes the
/// transcript's last records from a buffer, later (docs/claude-cli.md §6); a subagent that
/// stopped on an error never writes a closing reply.
pub const FINISHED_GRACE: Duration = Duration::from_secs(20);

/// Where a harvest happens, and the turn an Agent call was made in (its subagent's steps
/// belong to that turn).
#[derive(Debug, Clone)]
pub struct Turn {
    pub meta_dir: PathBuf,
    pub agent_dir: PathBuf,
    /// The project's transcripts folder (the daemon's link to it).
    pub transcripts: PathBuf,
    pub session_id: String,
    pub job_id: String,
    pub environment: Option<String>,
}

/// The subagents already harvested, per session (loaded from the steps file the first time a
/// session is seen, so a restart does not harvest twice), and the Agent calls whose subagents
/// are still to harvest: a foreground subagent has finished when its call returns, a
/// background one (the CLI's default) later, found by the recorder's periodic pass. Only
/// subagents of Agent calls the recorder saw are harvested; pending calls are not persisted, so
/// a background subagent still running when the daemon stops is not harvested, and one that
/// has not finished after [`PENDING_TTL`] is given up.
pub struct Harvester {
    done: HashMap<String, HashSet<String>>,
    /// Session → Agent call id → the turn that made it, and when.
    pending: HashMap<String, HashMap<String, (Turn, Instant)>>,
    /// Session → agent id → when its meta file was first seen finished while its transcript
    /// had not ended (dropped with the session's last pending call).
    settling: HashMap<String, HashMap<String, Instant>>,
    grace: Duration,
}

impl Default for Harvester {
    fn default() -> Self {
        Self::with_grace(FINISHED_GRACE)
    }
}

impl Harvester {
    /// A harvester that waits `grace` (not [`FINISHED_GRACE`]) for a finished subagent's
    /// transcript to end.
    pub fn with_grace(grace: Duration) -> Self {
        Self {
            done: HashMap::new(),
            pending: HashMap::new(),
            settling: HashMap::new(),
            grace,
        }
    }

    /// After an Agent call returned (`agent_call`) or a turn ended (`None`): harvests the
    /// finished subagents of the session's pending calls; returns how many steps were recorded.
    pub fn harvest(&mut self, turn: &Turn, agent_call: Option<&str>, limits: Limits) -> usize {
        if let Some(id) = agent_call {
            self.pending
                .entry(turn.session_id.clone())
                .or_default()
                .insert(id.to_owned(), (turn.clone(), Instant::now()));
        }
        self.harvest_session(&turn.session_id, Some(turn), limits)
    }

    /// The periodic pass: every session with pending calls; forgets calls pending too long.
    pub fn harvest_pending(&mut self, limits: Limits) -> usize {
        for calls in self.pending.values_mut() {
            calls.retain(|_, (_, since)| since.elapsed() < PENDING_TTL);
        }
        self.pending.retain(|_, calls| !calls.is_empty());
        let pending = &self.pending;
        self.settling
            .retain(|session, _| pending.contains_key(session));
        let sessions: Vec<String> = self.pending.keys().cloned().collect();
        sessions
            .iter()
            .map(|s| self.harvest_session(s, None, limits))
            .sum()
    }

    /// Whether some subagent is still to harvest.
    pub fn has_pending(&self) -> bool {
        self.pending.values().any(|calls| !calls.is_empty())
    }

    fn harvest_session(&mut self, session: &str, current: Option<&Turn>, limits: Limits) -> usize {
        let Some(pending) = self.pending.get_mut(session).filter(|p| !p.is_empty()) else {
            return 0;
        };
        // Any pending call's turn knows the session's folders.
        let Some(place) = current
            .cloned()
            .or_else(|| pending.values().next().map(|(t, _)| t.clone()))
        else {
            return 0;
        };
        let steps_file = steps::steps_path(&place.meta_dir, session);
        let done = self
            .done
            .entry(session.to_owned())
            .or_insert_with(|| recorded_agents(&steps_file));
        let folder = place.transcripts.join(session).join("subagents");
        let settling = self.settling.entry(session.to_owned()).or_default();
        let mut recorded = 0;
        for finished in finished_agents(&folder, done, settling, self.grace) {
            let Finished {
                id: agent_id,
                meta,
                transcript,
            } = finished;
            // The turn of the call that started it; a subagent of a call not seen (one before
            // a restart, or one still to come) waits. Without a call id: the current turn.
            let turn = match &meta.tool_use_id {
                Some(call) => match pending.remove(call) {
                    Some((turn, _)) => turn,
                    None => continue,
                },
                None => place.clone(),
            };
            done.insert(agent_id.clone());
            settling.remove(&agent_id);
            if meta.spawn_depth > 1 {
                continue;
            }
            let sub = match transcript {
                Ok(sub) => sub,
                Err(e) => {
                    tracing::warn!(session = %session, agent = %agent_id, "cannot harvest a subagent's transcript: {e}");
                    continue;
                }
            };
            let specialist = Specialist {
                agent_id: agent_id.clone(),
                name: meta.agent_type.unwrap_or_else(|| "subagent".into()),
                description: meta.description,
                model: meta.model.or(sub.model),
            };
            for (n, call) in sub.calls.into_iter().enumerate() {
                let record = step(&turn, &specialist, n + 1, call, limits);
                if let Err(e) = steps::append(&steps_file, &Line::Step(Box::new(record))) {
                    tracing::warn!(session = %session, "cannot record a subagent's step: {e}");
                    break;
                }
                recorded += 1;
            }
        }
        recorded
    }
}

/// The agent ids a steps file already holds harvested steps of.
fn recorded_agents(steps_file: &Path) -> HashSet<String> {
    steps::read(steps_file)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|line| match line {
            Line::Step(s) => s.specialist.map(|sp| sp.agent_id),
            Line::Gap { .. } => None,
        })
        .collect()
}

/// A finished subagent: its id, its meta file, and its transcript as read to tell.
struct Finished {
    id: String,
    meta: SubagentMeta,
    transcript: std::io::Result<Subagent>,
}

/// The finished subagents in a `subagents/` folder that are not in `done`, in name order, at
/// most [`MAX_AGENTS`]; each meta file and transcript read once.
///
/// Finished: its transcript ends with a reply that stopped for no tool, unless its meta file
/// says it is still running; or its meta file has said it finished for `grace` (the transcript's
/// last records come later than the meta file's mark; `settling` holds since when).
fn finished_agents(
    folder: &Path,
    done: &HashSet<String>,
    settling: &mut HashMap<String, Instant>,
    grace: Duration,
) -> Vec<Finished> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let id = name.strip_prefix("agent-")?.strip_suffix(".meta.json")?;
            (!done.contains(id)).then(|| id.to_owned())
        })
        .collect();
    ids.sort();
    let mut found = Vec::new();
    for id in ids {
        if found.len() >= MAX_AGENTS {
            break;
        }
        let meta = SubagentMeta::read(&folder.join(format!("agent-{id}.meta.json")));
        if meta.finished == Some(false) {
            continue;
        }
        let transcript = read_subagent(&folder.join(format!("agent-{id}.jsonl")));
        let ended = transcript.as_ref().is_ok_and(|s| s.ended);
        if ended
            || (meta.finished == Some(true)
                && settling
                    .entry(id.clone())
                    .or_insert_with(Instant::now)
                    .elapsed()
                    >= grace)
        {
            found.push(Finished {
                id,
                meta,
                transcript,
            });
        }
    }
    found
}

/// One tool call of a subagent, from its transcript.
#[derive(Debug, Clone, PartialEq)]
struct Call {
    tool_use_id: String,
    tool: String,
    input: Value,
    started_at: String,
    /// When its result was recorded; `None`: no result in the transcript.
    ended_at: Option<String>,
    is_error: bool,
}

/// What a subagent's transcript says.
struct Subagent {
    /// Its tool calls, in order.
    calls: Vec<Call>,
    /// The model of its first reply.
    model: Option<String>,
    /// Its last message is a reply that stopped for no tool call: it has finished.
    ended: bool,
}

/// Reads a subagent's transcript. Lines that do not parse (a torn last line, a record type this
/// daemon does not know) are skipped.
fn read_subagent(path: &Path) -> std::io::Result<Subagent> {
    let file = std::fs::File::open(path)?;
    let reader = std::io::BufReader::new(file.take(MAX_TRANSCRIPT_BYTES));
    let mut calls: Vec<Call> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut model = None;
    let mut ended = false;
    for line in reader.lines() {
        let Ok(line) = line else { break };
        let Some(record) = Record::parse(line.as_bytes()) else {
            continue;
        };
        let at = record.timestamp.clone().unwrap_or_default();
        let blocks = record.blocks();
        match &record.kind {
            RecordKind::Assistant { message, .. } if record.is_model_reply() => {
                if model.is_none() {
                    model.clone_from(&message.model);
                }
                // A reply is written a record per block, each with the reply's stop reason.
                ended = message.stop_reason.as_deref() != Some("tool_use")
                    && !blocks.iter().any(|b| matches!(b, Block::ToolUse { .. }));
            }
            RecordKind::User { .. } => ended = false,
            _ => {}
        }
        for block in blocks {
            match block {
                Block::ToolUse { id, name, input } => {
                    if id.is_empty() || name.is_empty() || by_id.contains_key(&id) {
                        continue;
                    }
                    by_id.insert(id.clone(), calls.len());
                    calls.push(Call {
                        tool_use_id: id,
                        tool: name,
                        input,
                        started_at: at.clone(),
                        ended_at: None,
                        is_error: false,
                    });
                }
                Block::ToolResult {
                    tool_use_id,
                    is_error,
                    ..
                } => {
                    let Some(&i) = by_id.get(&tool_use_id) else {
                        continue;
                    };
                    if let Some(call) = calls.get_mut(i) {
                        call.ended_at = Some(at.clone());
                        call.is_error = is_error;
                    }
                }
                _ => {}
            }
        }
    }
    Ok(Subagent {
        calls,
        model,
        ended,
    })
}

/// The step of one subagent call: its named files, hashed now (at harvest).
fn step(turn: &Turn, specialist: &Specialist, n: usize, call: Call, limits: Limits) -> StepRecord {
    let mut files = Vec::new();
    let mut scan = None;
    let ok = !call.is_error && call.ended_at.is_some();
    match kind_of(&call.tool) {
        Kind::Writes if ok => {
            for raw in named_paths(&call.tool, &call.input) {
                let path = rel_path(&turn.agent_dir, &raw);
                // Kept as a version too, for blame.
                let hashed = super::versions::keep(
                    &turn.meta_dir,
                    &abs_path(&turn.agent_dir, &path),
                    limits.max_hash_bytes,
                );
                files.push(FileRecord {
                    path,
                    role: Role::Write,
                    edge: FileEdge::Observed,
                    change: "wrote".into(),
                    hash: hashed.hash().map(str::to_owned),
                    unhashed: hashed == Hashed::TooLarge,
                });
            }
        }
        Kind::Reads if ok => {
            for raw in named_paths(&call.tool, &call.input) {
                files.push(FileRecord {
                    path: rel_path(&turn.agent_dir, &raw),
                    role: Role::Read,
                    edge: FileEdge::Observed,
                    change: "read".into(),
                    // What it read then is not known: the bytes may have changed since.
                    hash: None,
                    unhashed: false,
                });
            }
        }
        Kind::Opaque => scan = Some("no-baseline".to_owned()),
        _ => {}
    }
    let truncated_edges = files.len().saturating_sub(limits.max_edges);
    files.truncate(limits.max_edges);
    let (args_preview, args_truncated) = preview(&call.input, limits.max_preview);
    StepRecord {
        step_id: format!("{}:{}:{n}", turn.job_id, specialist.agent_id),
        session_id: turn.session_id.clone(),
        job_id: turn.job_id.clone(),
        tool_use_id: call.tool_use_id,
        tool: call.tool,
        ended_at: call
            .ended_at
            .clone()
            .unwrap_or_else(|| call.started_at.clone()),
        started_at: call.started_at,
        is_error: call.is_error,
        no_result: call.ended_at.is_none(),
        args_preview,
        args_truncated,
        files,
        truncated_edges: u32::try_from(truncated_edges).unwrap_or(u32::MAX),
        scan,
        overlapped: false,
        environment: turn.environment.clone(),
        specialist: Some(specialist.clone()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    fn write_lines(path: &Path, lines: &[Value]) {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(path, text).unwrap();
    }

    /// A subagent transcript in the CLI's record shape (docs/claude-cli.md §6): a Write, a
    /// Read, a Bash, and a tool call whose result never came.
    fn subagent(folder: &Path, id: &str, depth: u64, finished: bool, file: &Path) {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::write(
            folder.join(format!("agent-{id}.meta.json")),
            json!({"agentType": "general-purpose", "description": "Write the notes",
                   "toolUseId": format!("toolu_{id}"), "spawnDepth": depth, "model": "claude-opus-5-5",
                   "finished": finished})
            .to_string(),
        )
        .unwrap();
        let at = |s: u32| format!("2026-11-29T22:55:{s:02}.000Z");
        let assistant = |s: u32, id: &str, name: &str, input: Value| {
            json!({"type": "assistant", "isSidechain": true, "agentId": id, "timestamp": at(s),
                   "message": {"role": "assistant", "content": [
                       {"type": "tool_use", "id": format!("toolu_{s}"), "name": name, "input": input}]}})
        };
        let result = |s: u32, of: u32, is_error: bool| {
            json!({"type": "user", "isSidechain": true, "timestamp": at(s),
                   "message": {"role": "user", "content": [
                       {"type": "tool_result", "tool_use_id": format!("toolu_{of}"), "content": "ok", "is_error": is_error}]}})
        };
        write_lines(
            &folder.join(format!("agent-{id}.jsonl")),
            &[
                json!({"type": "user", "isSidechain": true, "timestamp": at(0), "message": {"role": "user", "content": "task"}}),
                assistant(1, id, "Write", json!({"file_path": file, "content": "hi"})),
                result(2, 1, false),
                assistant(3, id, "Read", json!({"file_path": "README.md"})),
                result(4, 3, false),
                assistant(5, id, "Bash", json!({"command": "make notes"})),
                result(6, 5, false),
                assistant(7, id, "Edit", json!({"file_path": "never.txt"})),
                json!("a torn line"),
            ],
        );
    }

    #[test]
    fn finished_first_level_subagents_are_harvested_once_with_their_name_and_model() {
        let dir = tempfile::tempdir().unwrap();
        let (meta, agent, transcripts) = (
            dir.path().join("meta"),
            dir.path().join("work"),
            dir.path().join("transcripts"),
        );
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(agent.join("notes.md"), "hi").unwrap();
        let folder = transcripts.join("sess").join("subagents");
        subagent(&folder, "a1", 1, true, &agent.join("notes.md"));
        subagent(&folder, "a2", 2, true, &agent.join("nested.md"));
        subagent(&folder, "a3", 1, false, &agent.join("running.md"));
        let turn = Turn {
            meta_dir: meta.clone(),
            agent_dir: agent.clone(),
            transcripts: transcripts.clone(),
            session_id: "sess".into(),
            job_id: "job".into(),
            environment: Some("envhash".into()),
        };
        // These transcripts end mid-call, as a subagent's that stopped on an error does: one
        // finished by its meta file is harvested as it stands after the grace, none here.
        let mut h = Harvester::with_grace(Duration::ZERO);
        let limits = Limits::default();
        // Nested: not harvested. Still running: waits.
        assert_eq!(h.harvest(&turn, Some("toolu_a2"), limits), 0);
        assert_eq!(h.harvest(&turn, Some("toolu_a3"), limits), 0);
        assert_eq!(h.harvest(&turn, Some("toolu_a1"), limits), 4);
        // Harvested once, also by a new recorder (a daemon restart).
        assert_eq!(h.harvest(&turn, None, limits), 0);
        assert_eq!(
            Harvester::default().harvest(&turn, Some("toolu_a1"), limits),
            0
        );
        // No Agent call seen: nothing to harvest.
        assert_eq!(Harvester::default().harvest(&turn, None, limits), 0);

        let steps: Vec<StepRecord> = steps::read(&steps::steps_path(&meta, "sess"))
            .unwrap()
            .into_iter()
            .filter_map(|l| match l {
                Line::Step(s) => Some(*s),
                Line::Gap { .. } => None,
            })
            .collect();
        let tools: Vec<&str> = steps.iter().map(|s| s.tool.as_str()).collect();
        assert_eq!(tools, ["Write", "Read", "Bash", "Edit"]);
        let write = &steps[0];
        let sp = write.specialist.as_ref().unwrap();
        assert_eq!(
            (sp.agent_id.as_str(), sp.name.as_str(), sp.model.as_deref()),
            ("a1", "general-purpose", Some("claude-opus-5-5"))
        );
        assert_eq!(sp.description.as_deref(), Some("Write the notes"));
        assert_eq!(write.step_id, "job:a1:1");
        assert_eq!(write.started_at, "2026-11-29T22:55:01.000Z");
        assert_eq!(write.ended_at, "2026-11-29T22:55:02.000Z");
        assert_eq!(write.environment.as_deref(), Some("envhash"));
        let f = &write.files[0];
        assert_eq!((f.path.as_str(), f.change.as_str()), ("notes.md", "wrote"));
        assert_eq!(f.edge, FileEdge::Observed);
        assert!(f.hash.as_deref().is_some_and(|h| h.starts_with("sha256:")));
        assert_eq!(steps[1].files[0].role, Role::Read);
        assert_eq!(steps[2].scan.as_deref(), Some("no-baseline"));
        assert!(steps[2].files.is_empty());
        // The Edit never got its result: no file edge.
        assert!(steps[3].no_result && steps[3].files.is_empty());

        // a3 (a background subagent) finishes later: the periodic pass takes it, into the
        // turn that made its Agent call.
        assert!(h.has_pending());
        subagent(&folder, "a3", 1, true, &agent.join("running.md"));
        assert_eq!(h.harvest_pending(limits), 4);
        assert!(!h.has_pending());
        let last = steps::read(&steps::steps_path(&meta, "sess")).unwrap();
        let Some(Line::Step(s)) = last.last() else {
            panic!("no step")
        };
        assert_eq!((s.job_id.as_str(), s.step_id.as_str()), ("job", "job:a3:4"));
    }

    /// What 2.1.332 was seen doing (docs/claude-cli.md §6): it writes `finished: true` into the
    /// meta file at once, but the transcript's last records later, from its write buffer; under
    /// load the buffer can lag the Agent call's result. A harvest then must wait for the
    /// transcript to end, not record a subagent with none of its calls and forget it.
    #[test]
    fn a_finished_subagent_whose_transcript_lags_is_harvested_once_it_has_caught_up() {
        let dir = tempfile::tempdir().unwrap();
        let agent = dir.path().join("work");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(agent.join("notes.md"), "hi").unwrap();
        let folder = dir
            .path()
            .join("transcripts")
            .join("sess")
            .join("subagents");
        std::fs::create_dir_all(&folder).unwrap();
        let turn = Turn {
            meta_dir: dir.path().join("meta"),
            agent_dir: agent.clone(),
            transcripts: dir.path().join("transcripts"),
            session_id: "sess".into(),
            job_id: "job".into(),
            environment: None,
        };
        let meta = |finished: Option<bool>| {
            let mut m =
                json!({"agentType": "general-purpose", "toolUseId": "toolu_b1", "spawnDepth": 1});
            if let Some(f) = finished {
                m["finished"] = json!(f);
            }
            std::fs::write(folder.join("agent-b1.meta.json"), m.to_string()).unwrap();
        };
        let reply = |content: Value, stop: &str| {
            json!({"type": "assistant", "isSidechain": true, "timestamp": "2026-12-05T16:00:01.000Z",
                   "message": {"role": "assistant", "model": "claude-opus-5-5", "stop_reason": stop,
                               "content": [content]}})
        };
        let prompt = json!({"type": "user", "isSidechain": true, "timestamp": "2026-12-05T16:00:00.000Z",
                            "message": {"role": "user", "content": "task"}});
        let preamble = reply(
            json!({"type": "text", "text": "I will write it."}),
            "tool_use",
        );
        let write = reply(
            json!({"type": "tool_use", "id": "toolu_w", "name": "Write",
                   "input": {"file_path": agent.join("notes.md"), "content": "hi"}}),
            "tool_use",
        );
        let result = json!({"type": "user", "isSidechain": true, "timestamp": "2026-12-05T16:00:02.000Z",
                            "message": {"role": "user", "content": [
                                {"type": "tool_result", "tool_use_id": "toolu_w", "content": "ok"}]}});
        let done = reply(json!({"type": "text", "text": "Done."}), "end_turn");
        let transcript = folder.join("agent-b1.jsonl");
        let mut h = Harvester::default();
        let limits = Limits::default();

        // Running (no `finished` yet), its reply's text written before the reply's tool call:
        // that text ends no turn (the reply stopped for a tool).
        meta(None);
        write_lines(&transcript, &[prompt.clone(), preamble.clone()]);
        assert_eq!(h.harvest(&turn, Some("toolu_b1"), limits), 0);
        // Finished by its meta file, while its transcript lacks the Write's result and the
        // closing reply (harvested now, the Write would have no result, so no file).
        meta(Some(true));
        write_lines(
            &transcript,
            &[prompt.clone(), preamble.clone(), write.clone()],
        );
        assert_eq!(h.harvest(&turn, None, limits), 0);
        assert!(h.has_pending(), "the call still waits for its subagent");
        // The transcript catches up: the next pass records its Write.
        write_lines(&transcript, &[prompt, preamble, write, result, done]);
        assert_eq!(h.harvest_pending(limits), 1);
        assert!(!h.has_pending());
        let steps = steps::read(&steps::steps_path(&turn.meta_dir, "sess")).unwrap();
        let [Line::Step(s)] = steps.as_slice() else {
            panic!("one step: {steps:?}")
        };
        assert_eq!(s.tool, "Write");
        assert_eq!(s.files[0].path, "notes.md");
    }

    #[test]
    fn no_subagents_folder_harvests_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let turn = Turn {
            meta_dir: dir.path().to_path_buf(),
            agent_dir: dir.path().to_path_buf(),
            transcripts: dir.path().join("none"),
            session_id: "s".into(),
            job_id: "j".into(),
            environment: None,
        };
        assert_eq!(
            Harvester::default().harvest(&turn, Some("toolu_lead"), Limits::default()),
            0
        );
    }
}
