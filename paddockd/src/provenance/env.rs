//! Environment snapshots: what a chat's steps ran against (git HEAD, toolchain versions, root
//! lockfile hashes, the OS), taken when a session's first event comes and again
//! after an install-shaped command (the lockfiles by the sampler, at once; the probes by the
//! recorder).
//!
//! A snapshot is content-addressed: its hash is the sha256 of its canonical JSON (the fields
//! in a fixed order, maps sorted), and it is stored once as
//! `<meta dir>/.paddock/environments/<hash>.json`, shared by every step that names it. Every
//! probe is bounded: subprocesses get an argument vector (no shell) and [`PROBE_TIMEOUT`],
//! and a tool that is missing or too slow is left out.
//!
//! The toolchains' versions probed in a folder are taken as true for the sessions that start
//! there in the next [`TOOLCHAINS_FRESH`] ([`KnownToolchains`]): a hundred chats started at
//! once in one folder probe `python3 --version` once, not a hundred times (a version manager's
//! shim costs tens of milliseconds of a core each time). Git HEAD is probed every time (an
//! agent commits), and an install-shaped command probes everything anew.

use std::collections::{BTreeMap, HashMap};
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::identity::hash_file;

/// How long one probe (`git rev-parse HEAD`, `rustc --version`...) may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Root lockfiles whose bytes are hashed.
pub const LOCKFILES: &[&str] = &[
    "Cargo.lock",
    "package-lock.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "uv.lock",
    "poetry.lock",
    "requirements.txt",
    "go.sum",
    "Gemfile.lock",
];

/// Toolchains asked for their version.
const TOOLCHAINS: &[&str] = &["rustc", "node", "python3"];

/// Lockfiles are small; a larger one is left unhashed.
const MAX_LOCKFILE_BYTES: u64 = 64 * 1024 * 1024;

/// What is stored (the hash is of this, so it is not part of it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_head: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub toolchains: Toolchains,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub lockfiles: BTreeMap<String, String>,
    pub os: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_name: Option<String>,
}

impl Snapshot {
    /// Its canonical JSON and the hex sha256 of it.
    pub fn canonical(&self) -> std::io::Result<(Vec<u8>, String)> {
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        let digest = Sha256::digest(&bytes);
        let hash = digest.iter().map(|b| format!("{b:02x}")).collect();
        Ok((bytes, hash))
    }

    pub fn into_wire(self, hash: String) -> paddock_proto::Environment {
        paddock_proto::Environment {
            hash,
            git_head: self.git_head,
            toolchains: self.toolchains,
            lockfiles: self.lockfiles,
            os: self.os,
            os_name: self.os_name,
        }
    }
}

/// Where a project's environment snapshots live.
pub fn environments_dir(meta_dir: &Path) -> PathBuf {
    meta_dir.join(".paddock").join("environments")
}

fn snapshot_path(meta_dir: &Path, hash: &str) -> Option<PathBuf> {
    // Only a hex name: a hash read from a steps file must not walk out of the folder.
    (!hash.is_empty() && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| environments_dir(meta_dir).join(format!("{hash}.json")))
}

/// How the recorder completes a snapshot: [`capture`], or a slowed one in tests. The third
/// argument is the toolchains known to be in the folder, when they need no probing.
pub type Capture =
    std::sync::Arc<dyn Fn(&Path, Moment, Option<Toolchains>) -> Snapshot + Send + Sync>;

/// Toolchain → the first line of its `--version`.
pub type Toolchains = BTreeMap<String, String>;

/// How long the toolchains probed in a folder are taken as still there.
pub const TOOLCHAINS_FRESH: Duration = Duration::from_secs(60);

/// Folders whose toolchains are remembered; past it the oldest is forgotten first.
const TOOLCHAIN_FOLDERS: usize = 256;

/// The toolchains probed lately, by folder (the recorder's own: no lock).
#[derive(Debug, Default)]
pub struct KnownToolchains {
    by_dir: HashMap<PathBuf, (Instant, Toolchains)>,
}

impl KnownToolchains {
    /// What was probed in `dir` less than [`TOOLCHAINS_FRESH`] before `now`.
    pub fn fresh(&self, dir: &Path, now: Instant) -> Option<Toolchains> {
        let (at, toolchains) = self.by_dir.get(dir)?;
        (now.saturating_duration_since(*at) < TOOLCHAINS_FRESH).then(|| toolchains.clone())
    }

    /// Folders remembered.
    #[cfg(test)]
    pub fn folders(&self) -> usize {
        self.by_dir.len()
    }

    /// `toolchains` were probed in `dir` at `at`.
    pub fn remember(&mut self, dir: &Path, at: Instant, toolchains: &Toolchains) {
        if !self.by_dir.contains_key(dir) && self.by_dir.len() >= TOOLCHAIN_FOLDERS {
            self.by_dir
                .retain(|_, (probed, _)| at.saturating_duration_since(*probed) < TOOLCHAINS_FRESH);
            if self.by_dir.len() >= TOOLCHAIN_FOLDERS
                && let Some(oldest) = self
                    .by_dir
                    .iter()
                    .min_by_key(|(_, (probed, _))| *probed)
                    .map(|(d, _)| d.clone())
            {
                self.by_dir.remove(&oldest);
            }
        }
        self.by_dir
            .insert(dir.to_path_buf(), (at, toolchains.clone()));
    }
}

/// The part of a snapshot that a step's own tools change (`npm install` rewrites the
/// lockfile): taken by the sampler the moment the event comes, not when the recorder
/// catches up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Moment {
    lockfiles: BTreeMap<String, String>,
}

/// The root lockfiles' hashes in `agent_dir` now (no subprocess: fast).
pub fn moment(agent_dir: &Path) -> Moment {
    let lockfiles = LOCKFILES
        .iter()
        .filter_map(|name| {
            hash_file(&agent_dir.join(name), MAX_LOCKFILE_BYTES)
                .hash()
                .map(|h| ((*name).to_owned(), h.to_owned()))
        })
        .collect();
    Moment { lockfiles }
}

/// Completes a snapshot of `agent_dir` taken at `moment` with the probes (blocking, bounded
/// by the probes' timeouts). Git HEAD and the toolchains (unless `known`) are probed now: a
/// step rarely moves them, and probing is what makes the recorder slow.
pub fn capture(agent_dir: &Path, moment: Moment, known: Option<Toolchains>) -> Snapshot {
    let git_head = probe(agent_dir, "git", &["rev-parse", "HEAD"])
        .filter(|h| h.len() >= 7 && h.bytes().all(|b| b.is_ascii_hexdigit()));
    let toolchains = known.unwrap_or_else(|| {
        TOOLCHAINS
            .iter()
            .filter_map(|tool| {
                probe(agent_dir, tool, &["--version"]).map(|v| ((*tool).to_owned(), v))
            })
            .collect()
    });
    Snapshot {
        git_head,
        toolchains,
        lockfiles: moment.lockfiles,
        os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        os_name: os_pretty_name(),
    }
}

/// Stores a snapshot (once per content) and returns its hash.
pub fn store(meta_dir: &Path, snapshot: &Snapshot) -> std::io::Result<String> {
    let (bytes, hash) = snapshot.canonical()?;
    let path = snapshot_path(meta_dir, &hash).ok_or_else(|| std::io::Error::other("bad hash"))?;
    if !path.exists() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        crate::fsutil::write_atomic(&path, &bytes)?;
    }
    Ok(hash)
}

/// Reads a stored snapshot back; `None` when it is missing or unreadable.
pub fn load(meta_dir: &Path, hash: &str) -> Option<paddock_proto::Environment> {
    let bytes = std::fs::read(snapshot_path(meta_dir, hash)?).ok()?;
    let snapshot: Snapshot = serde_json::from_slice(&bytes).ok()?;
    Some(snapshot.into_wire(hash.to_owned()))
}

/// `PRETTY_NAME` of `/etc/os-release`.
fn os_pretty_name() -> Option<String> {
    let text = std::fs::read_to_string("/etc/os-release").ok()?;
    text.lines().find_map(|line| {
        let value = line.strip_prefix("PRETTY_NAME=")?.trim();
        let value = value.trim_matches('"').trim_matches('\'').trim();
        (!value.is_empty()).then(|| value.to_owned())
    })
}

/// The first line of a program's output, when it runs, succeeds and answers within
/// [`PROBE_TIMEOUT`]; the program is killed otherwise.
fn probe(dir: &Path, program: &str, args: &[&str]) -> Option<String> {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + PROBE_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    if !status.success() {
        return None;
    }
    let mut out = String::new();
    child
        .stdout
        .take()?
        .take(64 * 1024)
        .read_to_string(&mut out)
        .ok()?;
    let line = out.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(line.chars().take(200).collect())
}

/// Whether a shell command line installs or updates packages (`npm install`, `cargo add`,
/// `pip install`...): the environment is recaptured after it.
pub fn is_install(command: &str) -> bool {
    command
        .split(['\n', ';', '&', '|', '(', ')', '`'])
        .any(|segment| {
            let words: Vec<&str> = segment
                .split_whitespace()
                .map(|w| w.trim_matches(['"', '\'']))
                .skip_while(|w| w.contains('=') || matches!(*w, "sudo" | "env" | "exec" | "time"))
                .filter(|w| !w.starts_with('-'))
                .collect();
            let program = words
                .first()
                .map(|p| p.rsplit('/').next().unwrap_or(p))
                .unwrap_or("");
            let sub = words.get(1).copied().unwrap_or("");
            let (program, sub) = match (program, sub) {
                // `python3 -m pip install` (the `-m` is filtered out above).
                ("python" | "python3", "pip" | "pip3") => {
                    ("pip", words.get(2).copied().unwrap_or(""))
                }
                other => other,
            };
            matches!(
                (program, sub),
                ("npm", "install" | "i" | "ci" | "add")
                    | ("pnpm", "add" | "install" | "i")
                    | ("yarn", "add" | "install")
                    | ("cargo", "add" | "install" | "update")
                    | ("pip" | "pip3", "install")
                    | ("uv", "add" | "sync" | "pip")
                    | ("poetry", "add" | "install")
                    | ("go", "get")
                    | ("bundle", "install")
                    | ("apt-get" | "apt", "install")
            )
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn install_shaped_commands_are_recognised() {
        for yes in [
            "npm install",
            "npm ci",
            "cd web && npm add left-pad",
            "pnpm add -D vitest",
            "yarn install --frozen-lockfile",
            "cargo add serde --features derive",
            "cargo update",
            "cargo install ripgrep",
            "pip install -r requirements.txt",
            "python3 -m pip install requests",
            "uv sync",
            "uv pip install x",
            "poetry add httpx",
            "go get example.com/x@v1",
            "bundle install",
            "sudo apt-get install -y jq",
            "CI=1 npm ci",
            "/usr/bin/pip install x",
        ] {
            assert!(is_install(yes), "{yes}");
        }
        for no in [
            "npm test",
            "cargo build",
            "cargo test -- install",
            "echo npm install",
            "git commit -m 'cargo add'",
            "ls",
            "",
            "pip list",
            "go build ./...",
        ] {
            assert!(!is_install(no), "{no}");
        }
    }

    #[test]
    fn snapshots_are_content_addressed_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let agent = dir.path().join("agent");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(agent.join("Cargo.lock"), "version = 4\n").unwrap();
        let snap = capture(&agent, moment(&agent), None);
        assert!(snap.git_head.is_none());
        assert!(
            snap.lockfiles
                .get("Cargo.lock")
                .unwrap()
                .starts_with("sha256:")
        );
        assert_eq!(snap.lockfiles.len(), 1);
        assert!(!snap.os.is_empty());
        let hash = store(dir.path(), &snap).unwrap();
        assert_eq!(hash.len(), 64);
        assert_eq!(store(dir.path(), &snap).unwrap(), hash);
        let back = load(dir.path(), &hash).unwrap();
        assert_eq!(back.hash, hash);
        assert_eq!(back.lockfiles, snap.lockfiles);
        assert!(load(dir.path(), "../../etc/passwd").is_none());
        assert!(load(dir.path(), "00").is_none());
        // Another lockfile content: another snapshot.
        std::fs::write(agent.join("Cargo.lock"), "version = 4\n[[package]]\n").unwrap();
        assert_ne!(
            store(dir.path(), &capture(&agent, moment(&agent), None)).unwrap(),
            hash
        );
    }

    #[test]
    fn a_missing_program_is_no_probe() {
        let dir = tempfile::tempdir().unwrap();
        assert!(probe(dir.path(), "paddock-no-such-tool", &["--version"]).is_none());
    }
}
