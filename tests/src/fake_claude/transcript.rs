//! The session transcript `$CLAUDE_CONFIG_DIR/projects/<encoded cwd>/<sessionId>.jsonl`, written
//! the way Claude Code writes it (docs/claude-cli.md §6): created at the first turn, mode 0600,
//! appended incrementally, `user`/`assistant`/`system` records chained by `parentUuid`.
//!
//! Imitating 2.1.197 ([`Release::V2_1_197`]), each record reaches the disk [`DEFERRED_WRITE`]
//! after the CLI made it, on a writer thread (which creates the file then): the message about
//! 100 ms after the reply began streaming, the reply's `assistant` record about 100 ms after its
//! `result` (docs/claude-cli.md §15, "Transcripts"). Dropping the transcript waits for what is
//! still owed, so a process that ends normally (stdin closed, `-p`, SIGINT) leaves every record
//! on disk; one that exits at once (`end_session`, SIGTERM, a `crash` step) may not.

use std::fs::File;
use std::io::{BufRead as _, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::emit::now_timestamp;
use super::release::Release;
use crate::cwd_encoding::encode_cwd;

/// How long after making a record 2.1.197 writes it (observed: 60-100 ms).
pub const DEFERRED_WRITE: Duration = Duration::from_millis(100);

/// Record types that take part in the `uuid`/`parentUuid` chain.
const CHAIN_TYPES: &[&str] = &["user", "assistant", "attachment", "system"];

/// `$CLAUDE_CONFIG_DIR`, or `~/.claude` when unset.
pub fn config_dir() -> PathBuf {
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let home = std::env::var_os("HOME").unwrap_or_else(|| "/".into());
            Path::new(&home).join(".claude")
        }
    }
}

/// `<config>/projects/<encoded cwd>/<session>.jsonl`.
pub fn transcript_path(config: &Path, cwd: &str, session_id: &str) -> PathBuf {
    config
        .join("projects")
        .join(encode_cwd(cwd))
        .join(format!("{session_id}.jsonl"))
}

/// Finds `<config>/projects/*/<session>.jsonl`.
pub fn find_transcript(config: &Path, session_id: &str) -> Option<PathBuf> {
    let file = format!("{session_id}.jsonl");
    std::fs::read_dir(config.join("projects"))
        .ok()?
        .flatten()
        .map(|d| d.path().join(&file))
        .find(|p| p.is_file())
}

/// An append-only transcript writer.
pub struct Transcript {
    path: PathBuf,
    file: Option<File>,
    session_id: String,
    cwd: String,
    /// The uuid of the last chained record: the next record's `parentUuid`.
    last_uuid: Option<String>,
    /// When false (`--no-session-persistence`) nothing is written.
    enabled: bool,
    /// `version` of every chained record.
    version: &'static str,
    /// 2.1.197's schedule: records wait here for the turn's end.
    deferred: Option<Deferred>,
}

/// The thread that writes each record when it is due.
struct Deferred {
    tx: Option<mpsc::Sender<(Instant, Vec<String>)>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Deferred {
    fn start(path: PathBuf) -> Self {
        let (tx, rx) = mpsc::channel::<(Instant, Vec<String>)>();
        let thread = std::thread::spawn(move || {
            // Ends when the sender is dropped and every batch is written.
            for (due, lines) in rx {
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
                if let Err(err) = append_lines(&path, &lines) {
                    eprintln!(
                        "fake-claude: cannot write transcript {}: {err}",
                        path.display()
                    );
                }
            }
        });
        Self {
            tx: Some(tx),
            thread: Some(thread),
        }
    }

    /// `line` goes to disk [`DEFERRED_WRITE`] from now.
    fn push(&self, line: String) {
        if let Some(tx) = &self.tx {
            let _ = tx.send((Instant::now() + DEFERRED_WRITE, vec![line]));
        }
    }
}

impl Drop for Deferred {
    fn drop(&mut self) {
        drop(self.tx.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `FAKE_CLAUDE_DISK_FULL=1`: every transcript write fails as on a full disk (ENOSPC), as the
/// real CLI's do there — it prints nothing about it on stdout and its turn still succeeds.
fn disk_full() -> bool {
    std::env::var_os("FAKE_CLAUDE_DISK_FULL").is_some_and(|v| v == "1")
}

/// Appends `lines` to `path`, creating it (mode 0600) and its folder if needed.
fn append_lines(path: &Path, lines: &[String]) -> std::io::Result<()> {
    if disk_full() {
        return Err(std::io::Error::from_raw_os_error(28));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    let mut text = String::new();
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    file.write_all(text.as_bytes())
}

impl Transcript {
    /// A transcript at `path` that will be created (or appended to) by the first write, on the
    /// schedule of `release`.
    pub fn new(
        path: PathBuf,
        session_id: &str,
        cwd: &str,
        enabled: bool,
        release: Release,
    ) -> Self {
        let last_uuid = if enabled {
            last_chain_uuid(&path)
        } else {
            None
        };
        let deferred = (enabled && release.is_2_1_197()).then(|| Deferred::start(path.clone()));
        Self {
            path,
            file: None,
            session_id: session_id.to_owned(),
            cwd: cwd.to_owned(),
            last_uuid,
            enabled,
            version: release.version(),
            deferred,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn last_uuid(&self) -> Option<&str> {
        self.last_uuid.as_deref()
    }

    /// Opens (creating with mode 0600) the file. Called when the first turn starts; with
    /// 2.1.197's schedule the writer thread creates it instead, with the first record.
    pub fn open(&mut self) -> std::io::Result<()> {
        if !self.enabled || self.file.is_some() || self.deferred.is_some() {
            return Ok(());
        }
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&self.path)?;
        self.file = Some(file);
        Ok(())
    }

    /// Appends a chained record: fills `parentUuid`, `isSidechain`, `uuid` (unless given),
    /// `timestamp` and the common fields, then returns the record's uuid.
    pub fn chained(&mut self, kind: &str, mut fields: Value, uuid: Option<&str>) -> String {
        let uuid = uuid.map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned);
        let mut record = json!({
            "parentUuid": self.last_uuid,
            "isSidechain": false,
            "type": kind,
            "uuid": uuid,
            "timestamp": now_timestamp(),
            "userType": "external",
            "entrypoint": "sdk-cli",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
        });
        if let (Some(rec), Some(extra)) = (record.as_object_mut(), fields.as_object_mut()) {
            rec.append(extra);
        }
        self.write(&record);
        self.last_uuid = Some(uuid.clone());
        uuid
    }

    /// Appends a bookkeeping record (not chained): `sessionId` is added.
    pub fn plain(&mut self, mut record: Value) {
        if let Some(rec) = record.as_object_mut() {
            rec.insert("sessionId".into(), json!(self.session_id));
        }
        self.write(&record);
    }

    fn write(&mut self, record: &Value) {
        if !self.enabled {
            return;
        }
        if disk_full() {
            eprintln!(
                "fake-claude: cannot write transcript {}: No space left on device (os error 28)",
                self.path.display()
            );
            return;
        }
        if let Some(deferred) = self.deferred.as_ref() {
            deferred.push(record.to_string());
            return;
        }
        if self.file.is_none()
            && let Err(err) = self.open()
        {
            eprintln!(
                "fake-claude: cannot open transcript {}: {err}",
                self.path.display()
            );
            return;
        }
        if let Some(file) = self.file.as_mut() {
            let mut line = record.to_string();
            line.push('\n');
            if let Err(err) = file.write_all(line.as_bytes()) {
                eprintln!(
                    "fake-claude: cannot write transcript {}: {err}",
                    self.path.display()
                );
            }
        }
    }
}

/// The uuid of the last chained record of an existing transcript.
fn last_chain_uuid(path: &Path) -> Option<String> {
    let file = File::open(path).ok()?;
    let mut last = None;
    for line in std::io::BufReader::new(file).lines().map_while(Result::ok) {
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let chained = v["type"].as_str().is_some_and(|t| CHAIN_TYPES.contains(&t));
        if chained && let Some(u) = v["uuid"].as_str() {
            last = Some(u.to_owned());
        }
    }
    last
}

/// Copies a transcript for `--fork-session`: every record, `sessionId` rewritten, same uuids.
pub fn fork_copy(from: &Path, to: &Path, new_session: &str) -> std::io::Result<()> {
    let text = std::fs::read_to_string(from)?;
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(to)?;
    for line in text.lines() {
        let line = match serde_json::from_str::<Value>(line) {
            Ok(mut v) => {
                if v.get("sessionId").is_some() {
                    v["sessionId"] = json!(new_session);
                }
                v.to_string()
            }
            Err(_) => line.to_owned(),
        };
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(())
}
