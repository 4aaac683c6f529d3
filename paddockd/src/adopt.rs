//! Adopting terminal `claude` sessions (`paddock import`): a directory's existing sessions
//! come into a project as origin `adopted`, without copying or altering the user's files.
//!
//! - [`discover`] reads the user's transcript folder for the directory
//!   (`<host_claude_home>/projects/<encoded cwd>`) and sorts its sessions into adoptable ones
//!   and skipped ones, each with a [`SkipReason`].
//! - [`place`] makes a session visible to paddockd with a symlink in the project's transcripts
//!   folder, pointing at the user's file. Nothing is copied, so a session the user continues in
//!   a terminal stays current in paddockd.
//! - [`materialize`] runs before paddockd resumes a chat: claude appends to its transcript, and
//!   through the link that would write into the user's own history. So the link is replaced by
//!   a private copy first; from then on the two histories diverge, each in its owner's folder.
//!
//! Only the session's `.jsonl` is linked, never its `<session>/` folder (subagent transcripts,
//! tool outputs): a resumed claude writes there too, and a folder link would lead those writes
//! into the user's folder.

use std::collections::HashSet;
use std::fs::{self, File, FileTimes, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use crate::claude_format::transcript::{Record, RecordKind};

/// A terminal session that can be adopted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adoptable {
    pub session_id: String,
    /// The user's transcript file (absolute).
    pub source: PathBuf,
    /// The directory the session ran in, as its records say.
    pub cwd: String,
    pub mtime: SystemTime,
    /// The session's custom title, else its first prompt that is not a slash command
    /// (whitespace collapsed, at most [`TITLE_MAX_CHARS`] characters).
    pub title: String,
}

/// Why [`discover`] did not offer a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// A subagent's transcript, not a chat.
    Sidechain,
    /// The project already has a chat with this id.
    AlreadyPresent,
    /// No user prompt in it.
    Empty,
    /// Nothing but slash commands (`/mcp`, `/model`, ...) that no model answered.
    SlashCommandOnly,
    /// The file could not be read.
    Unreadable,
    /// It ran in another directory whose encoded name is the same (the encoding is lossy).
    OtherDirectory,
}

pub const TITLE_MAX_CHARS: usize = 200;

/// Terminal sessions for `dir` under `host_claude_home/projects/`: the folder named
/// `encode_cwd(physical dir)`. Sessions whose records' `cwd` is a different directory are
/// skipped (the encoding is lossy); sidechain transcripts, transcripts with no user prompt,
/// slash-command-only ones, unreadable ones and ids in `present` are skipped with a reason.
///
/// Adoptable sessions come newest first; skipped ones by id. Reading never changes a file.
pub fn discover(
    host_claude_home: &Path,
    dir: &Path,
    present: &HashSet<String>,
) -> (Vec<Adoptable>, Vec<(String, SkipReason)>) {
    let dir = fs::canonicalize(dir)
        .or_else(|_| std::path::absolute(dir))
        .unwrap_or_else(|_| dir.to_path_buf());
    let home = std::path::absolute(host_claude_home).unwrap_or_else(|_| host_claude_home.into());
    let folder = crate::transcripts::project_transcripts_dir(&home, &dir);
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    let Ok(entries) = fs::read_dir(&folder) else {
        return (found, skipped);
    };
    let dir_str = dir.to_string_lossy().into_owned();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(stem) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".jsonl"))
        else {
            continue;
        };
        // A folder named *.jsonl is nothing of the CLI's.
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let id = stem.to_owned();
        let is_session_id = uuid::Uuid::parse_str(&id).is_ok();
        // Older CLIs kept subagent transcripts beside the sessions, as agent-<id>.jsonl.
        if !is_session_id && id.starts_with("agent-") {
            skipped.push((id, SkipReason::Sidechain));
            continue;
        }
        if !is_session_id {
            continue;
        }
        if present.contains(&id) {
            skipped.push((id, SkipReason::AlreadyPresent));
            continue;
        }
        let (scan, mtime) = match File::open(&path).and_then(|f| {
            let mtime = f.metadata()?.modified()?;
            Ok((Scan::read(f)?, mtime))
        }) {
            Ok(v) => v,
            Err(_) => {
                skipped.push((id, SkipReason::Unreadable));
                continue;
            }
        };
        if scan.sidechain {
            skipped.push((id, SkipReason::Sidechain));
            continue;
        }
        if let Some(cwd) = &scan.cwd
            && *cwd != dir_str
            && fs::canonicalize(cwd).ok().as_ref() != Some(&dir)
        {
            skipped.push((id, SkipReason::OtherDirectory));
            continue;
        }
        if scan.prompts == 0 {
            skipped.push((id, SkipReason::Empty));
            continue;
        }
        if scan.title_prompt.is_none() && !scan.answered {
            skipped.push((id, SkipReason::SlashCommandOnly));
            continue;
        }
        let title = scan
            .custom_title
            .or(scan.title_prompt)
            .or(scan.first_command)
            .unwrap_or_default();
        found.push(Adoptable {
            session_id: id,
            source: path,
            cwd: scan.cwd.unwrap_or_else(|| dir_str.clone()),
            mtime,
            title: one_line(&title),
        });
    }
    found.sort_by(|a, b| {
        b.mtime
            .cmp(&a.mtime)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    skipped.sort();
    (found, skipped)
}

/// What one pass over a transcript learns.
#[derive(Debug, Default)]
struct Scan {
    /// The first record's `cwd`: where the session started.
    cwd: Option<String>,
    sidechain: bool,
    /// User prompts, slash commands included.
    prompts: usize,
    /// The first prompt that is not a slash command.
    title_prompt: Option<String>,
    first_command: Option<String>,
    /// A model answered something (a slash command that reached the model counts).
    answered: bool,
    custom_title: Option<String>,
}

impl Scan {
    fn read(file: File) -> io::Result<Self> {
        let mut scan = Self::default();
        let mut seen_sidechain_flag = false;
        let mut reader = BufReader::new(file);
        let mut line = Vec::new();
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line)? == 0 {
                return Ok(scan);
            }
            // Most of a transcript is big records we have no use for (api-request blobs,
            // attachments); parse only what can matter.
            let wanted = scan.cwd.is_none()
                || !seen_sidechain_flag
                || contains(&line, br#""type":"user""#)
                || contains(&line, br#""type":"assistant""#)
                || contains(&line, br#""type":"custom-title""#);
            if !wanted {
                continue;
            }
            let Some(rec) = Record::parse(&line) else {
                continue;
            };
            if scan.cwd.is_none() {
                scan.cwd.clone_from(&rec.cwd);
            }
            if !seen_sidechain_flag && let Some(s) = rec.sidechain {
                seen_sidechain_flag = true;
                scan.sidechain = s;
            }
            match &rec.kind {
                RecordKind::User { .. } => scan.user(&rec),
                RecordKind::Assistant { .. } => scan.answered |= rec.is_model_reply(),
                RecordKind::CustomTitle(title) => {
                    scan.custom_title = Some(title.clone()).filter(|t| !t.trim().is_empty());
                }
                _ => {}
            }
        }
    }

    fn user(&mut self, rec: &Record) {
        let Some(text) = rec.typed_text().filter(|t| !t.trim().is_empty()) else {
            return;
        };
        if text.starts_with("[Request interrupted") {
            return;
        }
        self.prompts += 1;
        if is_command(&text) {
            if self.first_command.is_none() {
                self.first_command = command_name(&text);
            }
        } else if self.title_prompt.is_none() {
            self.title_prompt = Some(text);
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A slash command as the CLI records it (the `<command-name>` envelope, its local output),
/// or typed bare: `/word` ending at whitespace, so `/data/x is big` is a prompt, not a command.
fn is_command(text: &str) -> bool {
    let t = text.trim_start();
    if [
        "<command-name>",
        "<command-message>",
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<local-command-caveat>",
    ]
    .iter()
    .any(|p| t.starts_with(p))
    {
        return true;
    }
    let Some(rest) = t.strip_prefix('/') else {
        return false;
    };
    let word_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || ":_-".contains(c)))
        .unwrap_or(rest.len());
    rest.starts_with(|c: char| c.is_ascii_alphabetic())
        && rest[word_end..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace)
}

/// `/model` out of `<command-name>/model</command-name>...` or `/model sonnet`.
fn command_name(text: &str) -> Option<String> {
    let t = text.trim_start();
    let t = t.strip_prefix("<command-name>").unwrap_or(t);
    let name: String = t
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '<')
        .collect();
    name.starts_with('/').then_some(name)
}

fn one_line(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match collapsed.char_indices().nth(TITLE_MAX_CHARS) {
        Some((i, _)) => format!("{}…", &collapsed[..i]),
        None => collapsed,
    }
}

/// Makes an adopted session visible to paddockd without copying it: a symlink
/// `<transcripts_dir>/<sid>.jsonl` → the user's file. Never overwrites an existing file; placing
/// the same session twice is a no-op (as is placing into the user's own folder itself, which
/// is where `transcripts = host` keeps a project's chats).
pub fn place(a: &Adoptable, transcripts_dir: &Path) -> io::Result<()> {
    if uuid::Uuid::parse_str(&a.session_id).is_err() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{:?} is not a session id", a.session_id),
        ));
    }
    let source = std::path::absolute(&a.source)?;
    let source_meta = fs::metadata(&source)?;
    if !source_meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a transcript file", source.display()),
        ));
    }
    let dest = transcripts_dir.join(format!("{}.jsonl", a.session_id));
    match std::os::unix::fs::symlink(&source, &dest) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match fs::metadata(&dest) {
            Ok(m) if m.dev() == source_meta.dev() && m.ino() == source_meta.ino() => Ok(()),
            _ => Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} already exists and is not {}; left as it is",
                    dest.display(),
                    source.display()
                ),
            )),
        },
        Err(e) => Err(e),
    }
}

/// Called before paddockd resumes a chat: if its transcript is a symlink to a file outside
/// its own folder (an adopted chat), replaces the link with a private copy (0600, times kept)
/// so claude's appends never alter the user's own history. Returns true if it copied. Safe to
/// call on anything: a regular file, a missing file or a link within the folder → false.
///
/// The copy is written beside the link and renamed over it, so a reader sees the link or the
/// whole copy. If the user's file does not end in a newline (a terminal claude mid-write),
/// the copy gets one, so claude's first append starts a line of its own.
pub fn materialize(transcript: &Path) -> io::Result<bool> {
    let link_meta = match fs::symlink_metadata(transcript) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    if !link_meta.file_type().is_symlink() {
        return Ok(false);
    }
    let dir = match transcript.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let source = fs::canonicalize(transcript).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "{} links to {}, which cannot be opened: {e}",
                transcript.display(),
                fs::read_link(transcript).unwrap_or_default().display()
            ),
        )
    })?;
    if source.starts_with(fs::canonicalize(dir)?) {
        return Ok(false);
    }
    let name = transcript
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".{name}.adopt-tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut input = File::open(&source)?;
        let meta = input.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a transcript file", source.display()),
            ));
        }
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        let copied = io::copy(&mut input, &mut out)?;
        if copied > 0 && !ends_with_newline(&tmp)? {
            out.write_all(b"\n")?;
        }
        out.set_times(
            FileTimes::new()
                .set_accessed(meta.accessed()?)
                .set_modified(meta.modified()?),
        )?;
        out.sync_all()?;
        drop(out);
        fs::rename(&tmp, transcript)?;
        File::open(dir)?.sync_all()
    })();
    match result {
        Ok(()) => Ok(true),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

fn ends_with_newline(path: &Path) -> io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = File::open(path)?;
    f.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    f.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::{Value, json};
    use std::time::Duration;

    const A: &str = "7cf0e5a6-9487-4988-a4f9-3aa7cfc41539";
    const B: &str = "08c4a7f2-4304-48e8-b085-677da97a52ef";
    const C: &str = "5c952fde-aa32-4a70-97ea-9d5a3a231c2e";
    const D: &str = "32e31085-3016-46c3-acbb-8c546fde0233";
    const E: &str = "34eb7556-d2c7-44e5-9dee-c9192eb048fe";
    const F: &str = "7fa53b44-ee24-47fb-a82c-19bf0da6f5ef";
    const G: &str = "cf371199-dd85-4a1e-ba5e-d9cf7b1b9af2";
    const H: &str = "ef396aac-4c8e-4a36-a3a4-3e4bbf7bb8d7";

    /// Records shaped like the CLI 2.1.332 captures in tests/fixtures.
    fn user(cwd: &str, sid: &str, content: Value, sidechain: bool) -> String {
        json!({"parentUuid":null,"isSidechain":sidechain,"promptId":"74a995ab-2e41-4638-9dc1-209554ac3ce7",
            "type":"user","message":{"role":"user","content":content},
            "uuid":"05865ac4-e81a-4e4a-b710-6097dce6a0ba","timestamp":"2026-11-29T22:52:43.136Z",
            "permissionMode":"default","userType":"external","entrypoint":"cli","cwd":cwd,
            "sessionId":sid,"version":"2.1.332","gitBranch":"HEAD"})
        .to_string()
    }

    fn meta_user(cwd: &str, sid: &str, text: &str) -> String {
        let mut v: Value = serde_json::from_str(&user(cwd, sid, json!(text), false)).unwrap();
        v["isMeta"] = json!(true);
        v.to_string()
    }

    fn assistant(cwd: &str, sid: &str, text: &str) -> String {
        json!({"parentUuid":"05865ac4-e81a-4e4a-b710-6097dce6a0ba","isSidechain":false,
            "message":{"id":"msg_mock_4e6af6f507ef4aa69501","type":"message","role":"assistant",
                "model":"claude-opus-5-5","content":[{"type":"text","text":text}],
                "stop_reason":"end_turn","stop_sequence":null},
            "requestId":"req_mock_af7d9a71d571","type":"assistant",
            "uuid":"b54c4253-2497-49d2-b202-0122fcd1d273","timestamp":"2026-11-29T22:52:43.338Z",
            "userType":"external","entrypoint":"cli","cwd":cwd,"sessionId":sid,
            "version":"2.1.332","gitBranch":"HEAD"})
        .to_string()
    }

    fn queue_op(sid: &str, text: &str) -> String {
        json!({"type":"queue-operation","operation":"enqueue","timestamp":"2026-11-29T22:52:42.628Z",
            "sessionId":sid,"content":text})
        .to_string()
    }

    struct Env {
        _tmp: tempfile::TempDir,
        root: PathBuf,
        home: PathBuf,
        dir: PathBuf,
        cwd: String,
    }

    fn env() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let dir = root.join("work/my repo");
        fs::create_dir_all(&dir).unwrap();
        Env {
            home: root.join("home/.claude"),
            cwd: dir.to_string_lossy().into_owned(),
            dir,
            root,
            _tmp: tmp,
        }
    }

    impl Env {
        fn folder(&self) -> PathBuf {
            crate::transcripts::project_transcripts_dir(&self.home, &self.dir)
        }
        /// Writes a session with the given lines and an mtime `age` seconds in the past.
        fn session(&self, sid: &str, lines: &[String], age: u64) -> PathBuf {
            let path = self.folder().join(format!("{sid}.jsonl"));
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(
                &path,
                lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
            )
            .unwrap();
            let when = SystemTime::now() - Duration::from_secs(age);
            File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
            path
        }
        fn chat(&self, sid: &str, prompt: &str, age: u64) -> PathBuf {
            let c = &self.cwd;
            self.session(
                sid,
                &[
                    queue_op(sid, prompt),
                    user(c, sid, json!(prompt), false),
                    assistant(c, sid, &format!("echo: {prompt}")),
                ],
                age,
            )
        }
    }

    fn snapshot(path: &Path) -> (Vec<u8>, SystemTime) {
        (
            fs::read(path).unwrap(),
            fs::metadata(path).unwrap().modified().unwrap(),
        )
    }

    #[test]
    fn discover_finds_sessions_newest_first() {
        let e = env();
        e.chat(A, "older chat", 100);
        let newer = e.chat(B, "newer\n  chat   here", 10);
        // A custom title wins over the first prompt.
        let c = &e.cwd;
        e.session(
            C,
            &[
                user(c, C, json!([{"type":"text","text":"block prompt"}]), false),
                assistant(c, C, "ok"),
                json!({"type":"custom-title","customTitle":"my chat","sessionId":C}).to_string(),
            ],
            50,
        );
        let (found, skipped) = discover(&e.home, &e.dir, &HashSet::new());
        assert!(skipped.is_empty(), "{skipped:?}");
        let ids: Vec<&str> = found.iter().map(|a| a.session_id.as_str()).collect();
        assert_eq!(ids, vec![B, C, A]);
        assert_eq!(found[0].title, "newer chat here");
        assert_eq!(found[0].source, newer);
        assert_eq!(found[0].cwd, e.cwd);
        assert_eq!(found[1].title, "my chat");
        assert_eq!(found[2].title, "older chat");
        // Through a symlinked path to the same directory: the physical path decides.
        let via = e.root.join("via");
        std::os::unix::fs::symlink(&e.dir, &via).unwrap();
        assert_eq!(discover(&e.home, &via, &HashSet::new()).0.len(), 3);
        // A directory with no folder: nothing, and no error.
        assert_eq!(
            discover(&e.home, &e.root.join("nowhere"), &HashSet::new()),
            (vec![], vec![])
        );
    }

    #[test]
    fn each_skip_reason() {
        let e = env();
        let c = &e.cwd;
        e.chat(A, "keep me", 10);
        // AlreadyPresent.
        e.chat(B, "already in paddock", 10);
        // Sidechain: a session-named file whose records are a subagent's, and the old layout.
        e.session(C, &[user(c, C, json!("subagent task"), true)], 10);
        e.session(
            "agent-abb2fcc5ce70e42c4",
            &[user(c, C, json!("x"), true)],
            10,
        );
        // Empty: nothing at all, or only bookkeeping and meta rows.
        e.session(D, &[], 10);
        e.session(
            E,
            &[queue_op(E, "x"), meta_user(c, E, "<local-command-caveat>x")],
            10,
        );
        // SlashCommandOnly: /mcp and its output, no model answer.
        e.session(
            F,
            &[
                meta_user(c, F, "<local-command-caveat>The command below was run directly"),
                user(c, F, json!("<command-name>/mcp</command-name>\n            <command-message>mcp</command-message>\n            <command-args></command-args>"), false),
                user(c, F, json!("<local-command-stdout>No MCP servers configured</local-command-stdout>"), false),
            ],
            10,
        );
        // Unreadable: a link to nothing.
        std::os::unix::fs::symlink(e.root.join("gone"), e.folder().join(format!("{G}.jsonl")))
            .unwrap();
        // OtherDirectory: `/work/my-repo` encodes like `/work/my repo`.
        let other = e.root.join("work/my-repo");
        let o = other.to_string_lossy().into_owned();
        e.session(
            H,
            &[user(&o, H, json!("hi"), false), assistant(&o, H, "hi")],
            10,
        );
        // Not sessions at all: ignored.
        fs::write(e.folder().join("notes.txt"), "x").unwrap();
        fs::create_dir_all(e.folder().join(A).join("subagents")).unwrap();

        let present: HashSet<String> = [B.to_owned()].into();
        let (found, skipped) = discover(&e.home, &e.dir, &present);
        assert_eq!(
            found
                .iter()
                .map(|a| a.session_id.as_str())
                .collect::<Vec<_>>(),
            vec![A]
        );
        let mut want = vec![
            (B.to_owned(), SkipReason::AlreadyPresent),
            (C.to_owned(), SkipReason::Sidechain),
            ("agent-abb2fcc5ce70e42c4".to_owned(), SkipReason::Sidechain),
            (D.to_owned(), SkipReason::Empty),
            (E.to_owned(), SkipReason::Empty),
            (F.to_owned(), SkipReason::SlashCommandOnly),
            (G.to_owned(), SkipReason::Unreadable),
            (H.to_owned(), SkipReason::OtherDirectory),
        ];
        want.sort();
        assert_eq!(skipped, want);
        // The other directory sees H and not A.
        fs::create_dir_all(&other).unwrap();
        let (found, _) = discover(&e.home, &other, &HashSet::new());
        assert_eq!(
            found
                .iter()
                .map(|a| a.session_id.as_str())
                .collect::<Vec<_>>(),
            vec![H]
        );
    }

    #[test]
    fn commands_with_a_real_prompt_or_an_answer_are_chats() {
        let e = env();
        let c = &e.cwd;
        // A /model switch followed by a prompt (as in the fixtures).
        e.session(
            A,
            &[
                user(
                    c,
                    A,
                    json!(
                        "<command-name>/model</command-name>\n<command-args>sonnet</command-args>"
                    ),
                    false,
                ),
                user(c, A, json!("after model switch"), false),
            ],
            10,
        );
        // A prompt-type command the model answered.
        e.session(
            B,
            &[
                user(c, B, json!("/review the auth refactor"), false),
                assistant(c, B, "reviewing"),
            ],
            20,
        );
        let (found, skipped) = discover(&e.home, &e.dir, &HashSet::new());
        assert!(skipped.is_empty(), "{skipped:?}");
        assert_eq!(found[0].title, "after model switch");
        assert_eq!(found[1].title, "/review");
        assert!(is_command("/mcp"));
        assert!(!is_command("/data/projects/foo is big"));
        assert!(!is_command("what does / mean"));
    }

    #[test]
    fn discover_reads_the_cli_fixtures() {
        // The real captures, copied in as the user's own Claude home.
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/claude-cli-2.1.332/transcripts/-home-dev-lab-work-dir-1-x");
        let tmp = tempfile::tempdir().unwrap();
        let folder = tmp.path().join("projects/-home-dev-lab-work-dir-1-x");
        fs::create_dir_all(&folder).unwrap();
        let mut sessions = 0;
        for f in fs::read_dir(&fixtures).unwrap().flatten() {
            if f.path().extension().is_some_and(|x| x == "jsonl") {
                fs::copy(f.path(), folder.join(f.file_name())).unwrap();
                sessions += 1;
            }
        }
        // The directory need not exist: its absolute path is what the CLI encoded.
        let (found, skipped) = discover(
            tmp.path(),
            Path::new("/home/dev/lab/work dir_1.x"),
            &[B.to_owned()].into(),
        );
        assert_eq!(found.len() + skipped.len(), sessions);
        assert!(skipped.contains(&(B.to_owned(), SkipReason::AlreadyPresent)));
        let a = found.iter().find(|f| f.session_id == A).unwrap();
        assert_eq!(a.title, "my chat");
        assert_eq!(a.cwd, "/home/dev/lab/work dir_1.x");
    }

    #[test]
    fn place_links_without_touching_the_source() {
        let e = env();
        let src = e.chat(A, "hello", 3600);
        let before = snapshot(&src);
        let chats = e.root.join("project/.chats");
        fs::create_dir_all(&chats).unwrap();
        let (found, _) = discover(&e.home, &e.dir, &HashSet::new());
        place(&found[0], &chats).unwrap();
        let dest = chats.join(format!("{A}.jsonl"));
        assert_eq!(fs::read_link(&dest).unwrap(), src);
        assert_eq!(fs::read(&dest).unwrap(), before.0);
        assert_eq!(snapshot(&src), before);
        // Again: a no-op. Into the user's own folder (host mode): a no-op too.
        place(&found[0], &chats).unwrap();
        place(&found[0], &e.folder()).unwrap();
        assert_eq!(snapshot(&src), before);
        assert!(fs::symlink_metadata(&src).unwrap().is_file());
        // Now visible as present.
        assert!(chats.join(format!("{A}.jsonl")).is_file());
        // Never over another file.
        let other = Adoptable {
            session_id: B.into(),
            ..found[0].clone()
        };
        fs::write(chats.join(format!("{B}.jsonl")), "mine\n").unwrap();
        let err = place(&other, &chats).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(
            fs::read_to_string(chats.join(format!("{B}.jsonl"))).unwrap(),
            "mine\n"
        );
        // Never outside the folder.
        let sneaky = Adoptable {
            session_id: "../escape".into(),
            ..found[0].clone()
        };
        assert_eq!(
            place(&sneaky, &chats).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
    }

    #[test]
    fn materialize_replaces_the_link_with_a_private_copy() {
        let e = env();
        let src = e.chat(A, "hello", 3600);
        let before = snapshot(&src);
        let chats = e.root.join("project/.chats");
        fs::create_dir_all(&chats).unwrap();
        let (found, _) = discover(&e.home, &e.dir, &HashSet::new());
        place(&found[0], &chats).unwrap();
        let t = chats.join(format!("{A}.jsonl"));

        assert!(materialize(&t).unwrap());
        let m = fs::symlink_metadata(&t).unwrap();
        assert!(m.is_file());
        assert_eq!(m.mode() & 0o777, 0o600);
        assert_eq!(snapshot(&t), before, "same bytes, same mtime");
        // claude appends to the copy; the user's file does not move.
        let mut f = OpenOptions::new().append(true).open(&t).unwrap();
        f.write_all(assistant(&e.cwd, A, "more").as_bytes())
            .unwrap();
        drop(f);
        assert_eq!(snapshot(&src), before);
        assert_ne!(fs::read(&t).unwrap(), before.0);
        // Anything else: nothing to do.
        assert!(!materialize(&t).unwrap());
        assert!(!materialize(&chats.join("missing.jsonl")).unwrap());
        let inner = chats.join(format!("{B}.jsonl"));
        std::os::unix::fs::symlink(&t, &inner).unwrap();
        assert!(!materialize(&inner).unwrap());
        // No temp files left.
        let names: Vec<String> = fs::read_dir(&chats)
            .unwrap()
            .flatten()
            .map(|d| d.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.contains("adopt-tmp")), "{names:?}");
    }

    #[test]
    fn materialize_ends_a_half_written_line_and_reports_a_dangling_link() {
        let e = env();
        let src = e.root.join("user.jsonl");
        fs::write(&src, "{\"type\":\"user\"}\n{\"type\":\"assis").unwrap();
        let t = e.root.join("chats/s.jsonl");
        fs::create_dir_all(t.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&src, &t).unwrap();
        assert!(materialize(&t).unwrap());
        assert_eq!(
            fs::read_to_string(&t).unwrap(),
            "{\"type\":\"user\"}\n{\"type\":\"assis\n"
        );
        assert_eq!(
            fs::read_to_string(&src).unwrap(),
            "{\"type\":\"user\"}\n{\"type\":\"assis"
        );
        let dangling = e.root.join("chats/d.jsonl");
        std::os::unix::fs::symlink(e.root.join("gone.jsonl"), &dangling).unwrap();
        assert!(materialize(&dangling).is_err());
        assert!(
            fs::symlink_metadata(&dangling).is_ok(),
            "the link is left as it was"
        );
    }
}
