//! Client state: what the TUI remembers between runs, in a small JSON file that is never
//! authoritative for anything the daemon owns (reference §3, class 2). Losing it costs a draft
//! or a fold, nothing more.
//!
//! The file is `$XDG_STATE_HOME/paddock/tui.json` (`~/.local/state/paddock/tui.json` without
//! it). It holds, per daemon the TUI talks to (a [`target_key`]: this machine's socket, or the
//! `--remote` host and its socket, so two daemons never mix drafts):
//!
//! - per chat, the composer's draft and the model chosen with Ctrl-O (a new chat's under
//!   `new:SLUG`), each stamped with when it last changed;
//! - the folded projects and chats (by session id), and the projects whose "Archived" group
//!   is open;
//! - nested or flat chat list;
//! - the last view: the pane that had the keyboard and the open chat;
//!
//! and, for every target, the theme the user chose with `T`.
//!
//! It is bounded: at most [`MAX_CHATS`] chats (the oldest dropped first), a chat the daemon
//! no longer lists is forgotten after [`FORGET_AFTER_SECS`], folds and targets are capped.
//! Writes are atomic (a temporary file, fsync, rename) and merge into what is on disk, so a
//! second TUI on another daemon keeps its part. [`SaveTimer`] spaces them out: a change is on
//! disk within [`SAVE_EVERY`], and typing writes at most that often. A file that does not parse
//! is moved aside (`tui.json.corrupt-<time>`) and the TUI starts afresh with a notice; nothing
//! about this file is ever fatal.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::io::{self, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::theme::ThemeChoice;
use crate::commands::Context;

/// The file's format.
pub const VERSION: u32 = 1;
/// At most this many chats keep a draft or a model.
pub const MAX_CHATS: usize = 500;
/// At most this many folded chats are remembered.
pub const MAX_FOLDED: usize = 2_000;
/// At most this many daemons are remembered (the least recently used dropped first).
pub const MAX_TARGETS: usize = 16;
/// A chat the daemon stopped listing (deleted, or archived) is forgotten after this long.
pub const FORGET_AFTER_SECS: u64 = 14 * 24 * 3_600;
/// A draft longer than this is kept cut to it.
pub const MAX_DRAFT_BYTES: usize = 256 * 1024;
/// Changes are written at most this often, and at the latest this long after they happen.
pub const SAVE_EVERY: Duration = Duration::from_secs(1);

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StateFile {
    pub version: u32,
    /// The theme chosen with `T`; `None`: as the environment says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<ThemeChoice>,
    /// By [`target_key`].
    pub targets: BTreeMap<String, TargetPrefs>,
}

/// What is remembered about one daemon's chats.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TargetPrefs {
    /// By session id, or `new:SLUG` for a new chat in a project.
    pub chats: BTreeMap<String, ChatPrefs>,
    pub folded_projects: Vec<String>,
    /// Session ids.
    pub folded_chats: Vec<String>,
    /// Projects whose "Archived" group is open.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub open_archives: Vec<String>,
    /// The chat list flat (by last activity), not nested.
    pub flat: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view: Option<LastView>,
    /// When this TUI last ran against the daemon (seconds since the epoch).
    pub used_at: u64,
}

/// One chat's draft and model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ChatPrefs {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draft: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// A new chat in a project (`new:SLUG`) starts with its overview and changelog
    /// preloaded (Alt-p in the composer).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub preload: bool,
    /// When it last changed (seconds since the epoch).
    pub at: u64,
    /// Since when the daemon's list has not had the chat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_since: Option<u64>,
}

impl ChatPrefs {
    fn is_empty(&self) -> bool {
        self.draft.is_none() && self.model.is_none() && !self.preload
    }
}

/// The pane that had the keyboard and the open chat.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LastView {
    pub pane: Pane,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat: Option<OpenChat>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pane {
    #[default]
    Tree,
    Chat,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpenChat {
    pub project_slug: String,
    pub session_id: String,
}

/// The key of a new chat's draft in a project.
pub fn new_chat_key(project_slug: &str) -> String {
    format!("new:{project_slug}")
}

/// Seconds since the epoch, now.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

// ---------------------------------------------------------------------------------------------
// The state in memory
// ---------------------------------------------------------------------------------------------

/// The TUI's remembered state for the daemon it talks to, as it changes. Every change bumps
/// [`Prefs::revision`], which the event loop watches to schedule a write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prefs {
    target: TargetPrefs,
    theme: Option<ThemeChoice>,
    /// The theme was chosen in this run (only then is it written over the file's).
    theme_chosen: bool,
    revision: u64,
}

impl Prefs {
    pub fn new(target: TargetPrefs, theme: Option<ThemeChoice>) -> Self {
        Self {
            target,
            theme,
            theme_chosen: false,
            revision: 0,
        }
    }

    /// Counts changes.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn target(&self) -> &TargetPrefs {
        &self.target
    }

    pub fn theme(&self) -> Option<ThemeChoice> {
        self.theme
    }

    /// The theme to write: `Some` when chosen in this run.
    pub fn chosen_theme(&self) -> Option<Option<ThemeChoice>> {
        self.theme_chosen.then_some(self.theme)
    }

    fn bump(&mut self) {
        self.revision = self.revision.wrapping_add(1);
    }

    pub fn draft(&self, key: &str) -> Option<&str> {
        self.target.chats.get(key)?.draft.as_deref()
    }

    pub fn model(&self, key: &str) -> Option<&str> {
        self.target.chats.get(key)?.model.as_deref()
    }

    /// Keeps (or, blank, drops) a chat's draft.
    pub fn set_draft(&mut self, key: &str, text: &str, now: u64) {
        let text = if text.trim().is_empty() {
            None
        } else {
            Some(cut(text, MAX_DRAFT_BYTES).to_owned())
        };
        self.update_chat(key, now, |c| c.draft = text);
    }

    /// Whether a new chat in a project (`new:SLUG`) starts with its context preloaded.
    pub fn preload(&self, key: &str) -> bool {
        self.target.chats.get(key).is_some_and(|c| c.preload)
    }

    /// Keeps (or, off, drops) the preload choice for a project's new chats.
    pub fn set_preload(&mut self, key: &str, preload: bool, now: u64) {
        self.update_chat(key, now, |c| c.preload = preload);
    }

    /// Keeps (or, `None`: the daemon's default, drops) a chat's model.
    pub fn set_model(&mut self, key: &str, model: Option<&str>, now: u64) {
        let model = model.map(str::to_owned);
        self.update_chat(key, now, |c| c.model = model);
    }

    /// A new chat got its session id: the model chosen for it goes with it.
    pub fn carry_model(&mut self, from: &str, to: &str, now: u64) {
        if let Some(model) = self.model(from).map(str::to_owned) {
            self.set_model(to, Some(&model), now);
        }
    }

    fn update_chat(&mut self, key: &str, now: u64, f: impl FnOnce(&mut ChatPrefs)) {
        let old = self.target.chats.get(key).cloned().unwrap_or_default();
        let mut new = old.clone();
        f(&mut new);
        if new.draft == old.draft && new.model == old.model && new.preload == old.preload {
            return;
        }
        new.at = now;
        if new.is_empty() {
            self.target.chats.remove(key);
        } else {
            self.target.chats.insert(key.to_owned(), new);
            bound_chats(&mut self.target.chats, key);
        }
        self.bump();
    }

    /// The folded projects and chats, as the tree has them now.
    pub fn set_folds(&mut self, mut projects: Vec<String>, mut chats: Vec<String>) {
        projects.sort_unstable();
        chats.sort_unstable();
        chats.truncate(MAX_FOLDED);
        if self.target.folded_projects != projects || self.target.folded_chats != chats {
            self.target.folded_projects = projects;
            self.target.folded_chats = chats;
            self.bump();
        }
    }

    /// The projects whose "Archived" group is open, as the tree has them now.
    pub fn set_open_archives(&mut self, mut slugs: Vec<String>) {
        slugs.sort_unstable();
        slugs.truncate(MAX_FOLDED);
        if self.target.open_archives != slugs {
            self.target.open_archives = slugs;
            self.bump();
        }
    }

    pub fn set_flat(&mut self, flat: bool) {
        if self.target.flat != flat {
            self.target.flat = flat;
            self.bump();
        }
    }

    pub fn set_view(&mut self, view: Option<LastView>) {
        if self.target.view != view {
            self.target.view = view;
            self.bump();
        }
    }

    /// The user chose a theme.
    pub fn set_theme(&mut self, theme: Option<ThemeChoice>) {
        self.theme_chosen = true;
        if self.theme != theme {
            self.theme = theme;
            self.bump();
        }
    }

    /// The daemon's full list of chats arrived (`listed`: their session ids): a chat it has
    /// not listed for [`FORGET_AFTER_SECS`] is forgotten. New chats' drafts are kept.
    pub fn listed<'a>(&mut self, listed: impl IntoIterator<Item = &'a str>, now: u64) {
        let listed: HashSet<&str> = listed.into_iter().collect();
        let before = self.target.chats.clone();
        self.target.chats.retain(|key, chat| {
            if key.starts_with("new:") || listed.contains(key.as_str()) {
                chat.missing_since = None;
                return true;
            }
            let since = *chat.missing_since.get_or_insert(now);
            now.saturating_sub(since) < FORGET_AFTER_SECS
        });
        if self.target.chats != before {
            self.bump();
        }
    }

    /// What to write for this target (stamped as used now).
    pub fn to_write(&self, now: u64) -> TargetPrefs {
        let mut target = self.target.clone();
        target.used_at = now;
        target
    }
}

/// Drops the chats changed longest ago (never `keep`) until at most [`MAX_CHATS`] are left.
fn bound_chats(chats: &mut BTreeMap<String, ChatPrefs>, keep: &str) {
    let excess = chats.len().saturating_sub(MAX_CHATS);
    if excess == 0 {
        return;
    }
    let mut by_age: Vec<(u64, String)> = chats
        .iter()
        .filter(|(k, _)| k.as_str() != keep)
        .map(|(k, c)| (c.at, k.clone()))
        .collect();
    by_age.sort_unstable();
    for (_, key) in by_age.into_iter().take(excess) {
        chats.remove(&key);
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

// ---------------------------------------------------------------------------------------------
// When to write
// ---------------------------------------------------------------------------------------------

/// Spaces writes out: the first change schedules a write [`SaveTimer::every`] later, changes
/// meanwhile join it. So a change is on disk within that time (a crash loses at most that much
/// typing), and a stream of changes writes at most that often. The clock is passed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveTimer {
    every: Duration,
    due: Option<Instant>,
}

impl Default for SaveTimer {
    fn default() -> Self {
        Self::new(SAVE_EVERY)
    }
}

impl SaveTimer {
    pub fn new(every: Duration) -> Self {
        Self { every, due: None }
    }

    pub fn every(&self) -> Duration {
        self.every
    }

    /// Something changed at `now`.
    pub fn changed(&mut self, now: Instant) {
        if self.due.is_none() {
            self.due = Some(now + self.every);
        }
    }

    /// When the next write is due, if one is.
    pub fn due(&self) -> Option<Instant> {
        self.due
    }

    /// Whether a write is due at `now` (it is then taken: the caller writes).
    pub fn take_due(&mut self, now: Instant) -> bool {
        if self.due.is_some_and(|due| due <= now) {
            self.due = None;
            return true;
        }
        false
    }

    /// Written (on quit, say): nothing is due any more.
    pub fn clear(&mut self) {
        self.due = None;
    }
}

// ---------------------------------------------------------------------------------------------
// The file
// ---------------------------------------------------------------------------------------------

/// Where the file is: `$XDG_STATE_HOME/paddock/tui.json`, else
/// `~/.local/state/paddock/tui.json`; `None` without a home.
pub fn default_path() -> Option<PathBuf> {
    let dirs = directories::BaseDirs::new()?;
    let state = dirs
        .state_dir()
        .map_or_else(|| dirs.home_dir().join(".local/state"), Path::to_path_buf);
    Some(state.join("paddock").join("tui.json"))
}

/// Which daemon the TUI talks to: `local:SOCKET`, or `ssh:HOST:SOCKET` under `--remote` (an
/// empty socket: the far side's default).
pub fn target_key(ctx: &Context) -> String {
    match &ctx.remote {
        Some(remote) => format!(
            "ssh:{}:{}",
            remote.host,
            remote
                .socket
                .as_deref()
                .map(Path::display)
                .map(|d| d.to_string())
                .unwrap_or_default()
        ),
        None => format!("local:{}", ctx.socket.display()),
    }
}

/// The file as read, and what the user should be told about it.
#[derive(Debug, Default)]
pub struct Loaded {
    pub file: StateFile,
    pub notice: Option<String>,
}

/// Reads the file. Missing: empty. Unreadable: empty, with a notice. Not valid: moved aside
/// (`NAME.corrupt-<time>`) and empty, with a notice. Never an error.
pub fn load(path: &Path) -> Loaded {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Loaded::default(),
        Err(e) => {
            return Loaded {
                file: StateFile::default(),
                notice: Some(format!(
                    "cannot read the TUI state {}: {e}; starting without it",
                    path.display()
                )),
            };
        }
    };
    match serde_json::from_slice::<StateFile>(&bytes) {
        Ok(file) => Loaded { file, notice: None },
        Err(e) => {
            let aside = aside_path(path, unix_now());
            let moved = fs::rename(path, &aside);
            let notice = match moved {
                Ok(()) => format!(
                    "the TUI state {} was not valid ({e}); moved aside to {}",
                    path.display(),
                    aside.display()
                ),
                Err(m) => format!(
                    "the TUI state {} was not valid ({e}) and cannot be moved aside ({m}); it will be replaced",
                    path.display()
                ),
            };
            Loaded {
                file: StateFile::default(),
                notice: Some(notice),
            }
        }
    }
}

/// `tui.json.corrupt-<secs>`.
fn aside_path(path: &Path, now: u64) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".corrupt-{now}"));
    path.with_file_name(name)
}

/// The file's part for `key`, in a file as [`load`] read it.
pub fn target_of(file: &StateFile, key: &str) -> TargetPrefs {
    file.targets.get(key).cloned().unwrap_or_default()
}

/// Writes this target's part (and the theme, when `theme` is `Some`) into the file, keeping
/// the other targets that are there now; atomically.
pub fn save(
    path: &Path,
    key: &str,
    target: &TargetPrefs,
    theme: Option<Option<ThemeChoice>>,
) -> io::Result<()> {
    // What is there now (another TUI's targets); a file that does not parse is replaced.
    let mut file = fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<StateFile>(&b).ok())
        .unwrap_or_default();
    file.version = VERSION;
    if let Some(theme) = theme {
        file.theme = theme;
    }
    file.targets.insert(key.to_owned(), target.clone());
    if file.targets.len() > MAX_TARGETS {
        let mut by_use: Vec<(u64, String)> = file
            .targets
            .iter()
            .filter(|(k, _)| k.as_str() != key)
            .map(|(k, t)| (t.used_at, k.clone()))
            .collect();
        by_use.sort_unstable();
        let excess = file.targets.len() - MAX_TARGETS;
        for (_, k) in by_use.into_iter().take(excess) {
            file.targets.remove(&k);
        }
    }
    let mut bytes = serde_json::to_vec_pretty(&file).map_err(io::Error::other)?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Writes `bytes` to `path` through a temporary file in the same folder (0600), fsynced, then
/// renamed over it; the folder is created 0700 when missing.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
        return written;
    }
    // The rename itself, durable; a folder that cannot be opened still has the file.
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    fn sample() -> TargetPrefs {
        let mut prefs = Prefs::default();
        prefs.set_draft("s-1", "half a thought\nsecond line", 100);
        prefs.set_model("s-1", Some("opus"), 100);
        prefs.set_draft(&new_chat_key("web"), "a new chat", 101);
        prefs.set_folds(vec!["infra".into()], vec!["s-2".into(), "s-1".into()]);
        prefs.set_flat(true);
        prefs.set_view(Some(LastView {
            pane: Pane::Chat,
            chat: Some(OpenChat {
                project_slug: "web".into(),
                session_id: "s-1".into(),
            }),
        }));
        prefs.to_write(200)
    }

    #[test]
    fn the_file_round_trips() -> TestResult {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("state/paddock/tui.json");
        let target = sample();
        save(
            &path,
            "local:/a.sock",
            &target,
            Some(Some(ThemeChoice::Plain)),
        )?;
        let loaded = load(&path);
        assert_eq!(loaded.notice, None);
        assert_eq!(loaded.file.version, VERSION);
        assert_eq!(loaded.file.theme, Some(ThemeChoice::Plain));
        let back = target_of(&loaded.file, "local:/a.sock");
        assert_eq!(back, target);
        assert_eq!(back.folded_chats, ["s-1", "s-2"], "sorted");
        let prefs = Prefs::new(back, loaded.file.theme);
        assert_eq!(prefs.draft("s-1"), Some("half a thought\nsecond line"));
        assert_eq!(prefs.model("s-1"), Some("opus"));
        assert_eq!(prefs.draft("new:web"), Some("a new chat"));
        // Another daemon's part is kept by the next write; the theme is left alone unless
        // chosen.
        save(&path, "ssh:devbox:", &TargetPrefs::default(), None)?;
        let loaded = load(&path);
        assert_eq!(loaded.file.targets.len(), 2);
        assert_eq!(loaded.file.theme, Some(ThemeChoice::Plain));
        assert_eq!(target_of(&loaded.file, "local:/a.sock"), target);
        // Private: the folder 0700, the file 0600.
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(fs::metadata(&path)?.permissions().mode() & 0o777, 0o600);
        let parent = path.parent().ok_or("no parent")?;
        assert_eq!(fs::metadata(parent)?.permissions().mode() & 0o777, 0o700);
        // No temporary file is left behind.
        let names: Vec<String> = fs::read_dir(parent)?
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["tui.json"]);
        Ok(())
    }

    #[test]
    fn a_missing_file_is_empty_and_quiet() {
        let loaded = load(Path::new("/nonexistent/paddock/tui.json"));
        assert_eq!(loaded.file, StateFile::default());
        assert_eq!(loaded.notice, None);
    }

    #[test]
    fn a_corrupt_file_is_moved_aside_with_a_notice() -> TestResult {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("tui.json");
        fs::write(&path, b"{\"targets\": {\"local:/a\": {\"flat\": \"yes\"")?;
        let loaded = load(&path);
        assert_eq!(loaded.file, StateFile::default());
        let notice = loaded.notice.ok_or("no notice")?;
        assert!(notice.contains("was not valid"), "{notice}");
        assert!(notice.contains("moved aside to"), "{notice}");
        assert!(!path.exists(), "moved");
        let aside: Vec<String> = fs::read_dir(dir.path())?
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(aside.len(), 1);
        assert!(aside[0].starts_with("tui.json.corrupt-"), "{aside:?}");
        // The next write starts a good file.
        save(&path, "local:/a", &sample(), None)?;
        assert_eq!(load(&path).notice, None);
        // Unknown fields (a newer client's) are not corruption.
        fs::write(
            &path,
            br#"{"version": 9, "future": [1], "targets": {"local:/a": {"flat": true, "x": 1}}}"#,
        )?;
        let loaded = load(&path);
        assert_eq!(loaded.notice, None);
        assert!(target_of(&loaded.file, "local:/a").flat);
        Ok(())
    }

    #[test]
    fn blank_drafts_and_default_models_are_not_kept() {
        let mut prefs = Prefs::default();
        prefs.set_draft("s", "hello", 1);
        let rev = prefs.revision();
        prefs.set_draft("s", "hello", 2);
        assert_eq!(prefs.revision(), rev, "no change, no write");
        prefs.set_draft("s", "  \n ", 3);
        assert_eq!(prefs.draft("s"), None);
        assert!(prefs.target().chats.is_empty());
        prefs.set_model("s", Some("haiku"), 4);
        prefs.set_model("s", None, 5);
        assert!(prefs.target().chats.is_empty());
        prefs.set_model(&new_chat_key("web"), Some("opus"), 6);
        prefs.carry_model("new:web", "s-new", 7);
        assert_eq!(prefs.model("s-new"), Some("opus"));
    }

    #[test]
    fn drafts_are_bounded_and_forgotten_after_their_chat_goes() {
        let mut prefs = Prefs::default();
        for i in 0..(MAX_CHATS as u64 + 20) {
            prefs.set_draft(&format!("s-{i}"), "text", i);
        }
        assert_eq!(prefs.target().chats.len(), MAX_CHATS);
        assert_eq!(prefs.draft("s-0"), None, "the oldest went first");
        assert!(prefs.draft(&format!("s-{}", MAX_CHATS + 19)).is_some());

        let mut prefs = Prefs::default();
        prefs.set_draft("gone", "x", 1);
        prefs.set_draft("here", "y", 1);
        prefs.set_draft("new:web", "z", 1);
        prefs.listed(["here"], 1_000);
        assert!(prefs.draft("gone").is_some(), "not at once");
        prefs.listed(["here"], 1_000 + FORGET_AFTER_SECS - 1);
        assert!(prefs.draft("gone").is_some());
        prefs.listed(["here"], 1_000 + FORGET_AFTER_SECS);
        assert_eq!(prefs.draft("gone"), None, "after a while");
        assert!(prefs.draft("here").is_some());
        assert!(prefs.draft("new:web").is_some());
        // A chat that comes back starts over.
        prefs.set_draft("back", "w", 2);
        prefs.listed(["here"], 5_000);
        prefs.listed(["here", "back"], 5_000 + FORGET_AFTER_SECS);
        prefs.listed(["here"], 5_000 + FORGET_AFTER_SECS + 1);
        assert!(prefs.draft("back").is_some());
    }

    #[test]
    fn a_huge_draft_is_cut_at_a_character() {
        let mut prefs = Prefs::default();
        let text = "é".repeat(MAX_DRAFT_BYTES);
        prefs.set_draft("s", &text, 1);
        let kept = prefs.draft("s").unwrap_or_default();
        assert!(kept.len() <= MAX_DRAFT_BYTES && kept.len() > MAX_DRAFT_BYTES - 2);
        assert!(kept.chars().all(|c| c == 'é'));
    }

    #[test]
    fn targets_are_capped_by_last_use() -> TestResult {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("tui.json");
        for i in 0..(MAX_TARGETS as u64 + 3) {
            let target = TargetPrefs {
                used_at: 100 + i,
                ..TargetPrefs::default()
            };
            save(&path, &format!("local:/{i}"), &target, None)?;
        }
        let file = load(&path).file;
        assert_eq!(file.targets.len(), MAX_TARGETS);
        assert!(!file.targets.contains_key("local:/0"));
        assert!(
            file.targets
                .contains_key(&format!("local:/{}", MAX_TARGETS + 2))
        );
        Ok(())
    }

    #[test]
    fn writes_wait_at_most_the_interval_and_are_spaced_by_it() {
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let mut timer = SaveTimer::new(Duration::from_secs(1));
        assert_eq!(timer.due(), None);
        assert!(!timer.take_due(at(5_000)), "nothing changed");
        // Typing: the first key schedules a write a second later; the next keys join it.
        timer.changed(at(0));
        timer.changed(at(300));
        timer.changed(at(900));
        assert_eq!(timer.due(), Some(at(1_000)));
        assert!(!timer.take_due(at(999)));
        assert!(timer.take_due(at(1_000)));
        assert_eq!(timer.due(), None);
        // Still typing: the next write a second after the first key since.
        timer.changed(at(1_100));
        assert_eq!(timer.due(), Some(at(2_100)));
        // Typing stops at 1.5 s: on disk by 2.1 s, within a second.
        timer.changed(at(1_500));
        assert!(timer.take_due(at(2_100)));
        assert!(!timer.take_due(at(9_000)), "nothing more to write");
        // Quit writes at once.
        timer.changed(at(10_000));
        timer.clear();
        assert_eq!(timer.due(), None);
    }

    #[test]
    fn the_target_is_the_socket_or_the_remote_host() -> TestResult {
        let local = Context::new(Some(PathBuf::from("/run/user/1000/paddock/paddockd.sock")));
        assert_eq!(
            target_key(&local),
            "local:/run/user/1000/paddock/paddockd.sock"
        );
        let remote = Context {
            remote: Some(crate::client::RemoteOptions::new("devbox", None, None)?),
            ..Context::new(None)
        };
        assert_eq!(target_key(&remote), "ssh:devbox:");
        Ok(())
    }
}
