//! The steps file: append-only JSON lines, one per tool call, at
//! `<project meta dir>/.paddock/provenance/<sessionId>/steps.jsonl`.
//!
//! Each line is written whole and fsynced before the next; a torn last line (a crash mid-write)
//! is skipped when reading, as is any other line that does not parse (with a warning).

use std::path::{Path, PathBuf};

use paddock_proto::FileEdge;
use serde::{Deserialize, Serialize};

/// Where a project's provenance records live, under its metadata folder.
pub fn provenance_dir(meta_dir: &Path) -> PathBuf {
    meta_dir.join(".paddock").join("provenance")
}

/// One session's steps file.
pub fn steps_path(meta_dir: &Path, session_id: &str) -> PathBuf {
    provenance_dir(meta_dir)
        .join(session_id)
        .join("steps.jsonl")
}

/// One line of a steps file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Line {
    Step(Box<StepRecord>),
    /// Events of this session were dropped (the recorder's queue was full): the steps around
    /// here are incomplete.
    Gap {
        at: String,
        dropped: u64,
    },
}

/// One tool call of a turn and the files it touched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepRecord {
    /// `<jobId>:<n>`, n counting the turn's tool calls from 1.
    pub step_id: String,
    pub session_id: String,
    pub job_id: String,
    pub tool_use_id: String,
    pub tool: String,
    /// RFC 3339 UTC with milliseconds, so the strings sort in time order.
    pub started_at: String,
    pub ended_at: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// The turn ended before the tool's result arrived.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_result: bool,
    /// The tool's arguments as JSON, cut at the preview bound.
    pub args_preview: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub args_truncated: bool,
    #[serde(default)]
    pub files: Vec<FileRecord>,
    /// File edges left out beyond the per-step bound.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub truncated_edges: u32,
    /// `sandbox-too-large` or `scan-failed` when the before/after scan could not attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<String>,
    /// Another opaque call of the same project ran at the same time: the scan may blame this
    /// step for its effects.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overlapped: bool,
    /// The hash of the environment snapshot the step started in (`env.rs`); absent in steps
    /// recorded before environments were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// A subagent's call, harvested from its transcript when it finished (`harvest.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specialist: Option<paddock_proto::Specialist>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Read,
    Write,
}

/// One file edge of a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRecord {
    /// Relative to the project's directory (absolute when outside it).
    pub path: String,
    pub role: Role,
    pub edge: FileEdge,
    /// `wrote`, `read`, or a scan's `created` / `modified` / `deleted`.
    pub change: String,
    /// `sha256:HEX` right after the write, or at read time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// The file was over the hashing bound.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unhashed: bool,
}

/// Appends one line and fsyncs it (a torn last line a crash left is cut off first).
pub fn append(path: &Path, line: &Line) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut bytes = serde_json::to_vec(line).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    crate::fsutil::append_line(path, &bytes)
}

/// Reads a steps file; a missing file is empty. Unparseable lines are skipped (a torn last
/// line silently, others with a warning).
pub fn read(path: &Path) -> std::io::Result<Vec<Line>> {
    let text = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let complete = text.ends_with(b"\n");
    let pieces: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
    let last = pieces.len().saturating_sub(1);
    let mut out = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        if piece.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Line>(piece) {
            Ok(line) => out.push(line),
            Err(_) if i == last && !complete => {}
            Err(e) => {
                tracing::warn!(file = %path.display(), line = i + 1, "skipping an unreadable provenance line: {e}");
            }
        }
    }
    Ok(out)
}

/// Every session's lines under a project's provenance folder, by session id.
pub fn read_project(meta_dir: &Path) -> Vec<(String, Vec<Line>)> {
    let dir = provenance_dir(meta_dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let Some(session) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        match read(&entry.path().join("steps.jsonl")) {
            Ok(lines) => out.push((session, lines)),
            Err(e) => {
                tracing::warn!(session, "cannot read the provenance steps: {e}");
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::io::Write as _;

    pub(crate) fn step(n: u32) -> StepRecord {
        StepRecord {
            step_id: format!("job:{n}"),
            session_id: "s".into(),
            job_id: "job".into(),
            tool_use_id: format!("toolu_{n}"),
            tool: "Write".into(),
            started_at: "2026-11-03T09:00:00.000Z".into(),
            ended_at: "2026-11-03T09:00:01.000Z".into(),
            is_error: false,
            no_result: false,
            args_preview: "{}".into(),
            args_truncated: false,
            files: vec![FileRecord {
                path: "a.txt".into(),
                role: Role::Write,
                edge: FileEdge::Observed,
                change: "wrote".into(),
                hash: Some("sha256:00".into()),
                unhashed: false,
            }],
            truncated_edges: 0,
            scan: None,
            overlapped: false,
            environment: None,
            specialist: None,
        }
    }

    #[test]
    fn steps_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = steps_path(dir.path(), "s");
        let lines = vec![
            Line::Step(Box::new(step(1))),
            Line::Gap {
                at: "2026-11-03T09:00:02.000Z".into(),
                dropped: 3,
            },
            Line::Step(Box::new(step(2))),
        ];
        for line in &lines {
            append(&path, line).unwrap();
        }
        assert_eq!(read(&path).unwrap(), lines);
        let project = read_project(dir.path());
        assert_eq!(project.len(), 1);
        assert_eq!(project[0].0, "s");
        assert_eq!(project[0].1, lines);
    }

    #[test]
    fn a_torn_last_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = steps_path(dir.path(), "s");
        append(&path, &Line::Step(Box::new(step(1)))).unwrap();
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(br#"{"kind":"step","stepId":"job:2","sess"#)
            .unwrap();
        drop(file);
        assert_eq!(read(&path).unwrap(), vec![Line::Step(Box::new(step(1)))]);
        // The next append cuts the torn line off first, so its own record is not glued onto it.
        append(&path, &Line::Step(Box::new(step(3)))).unwrap();
        assert_eq!(
            read(&path).unwrap(),
            vec![Line::Step(Box::new(step(1))), Line::Step(Box::new(step(3)))]
        );
    }

    #[test]
    fn a_step_without_an_environment_still_loads() {
        let old = r#"{"kind":"step","stepId":"job:1","sessionId":"s","jobId":"job","toolUseId":"t","tool":"Bash","startedAt":"a","endedAt":"b","argsPreview":"{}"}"#;
        let Line::Step(step) = serde_json::from_str::<Line>(old).unwrap() else {
            panic!("not a step");
        };
        assert_eq!(step.environment, None);
        let mut with = step.clone();
        with.environment = Some("ab".into());
        let text = serde_json::to_string(&Line::Step(with.clone())).unwrap();
        assert!(text.contains(r#""environment":"ab""#));
        assert_eq!(
            serde_json::from_str::<Line>(&text).unwrap(),
            Line::Step(with)
        );
    }

    #[test]
    fn a_missing_file_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(&dir.path().join("nope.jsonl")).unwrap().is_empty());
        assert!(read_project(dir.path()).is_empty());
    }
}
