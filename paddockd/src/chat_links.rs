//! Each project's transcripts folder and the links that lead to it (architecture §3,
//! "Class 1 — Transcript JSONL"; the reference's `ensureProjectChats`).
//!
//! The CLI writes a project's transcripts to `<claude_home>/projects/<encoded cwd>/`
//! ([`link_path`]). paddockd makes that path a symlink to the folder that really holds them,
//! chosen by the `transcripts` config key:
//!
//! - `own` (default): `<meta_dir>/.chats`, a private real folder, so a project folder is
//!   self-contained and nothing under the user's `~/.claude` is read or written.
//! - `host`: the user's own `<host_claude_home>/projects/<encoded cwd>`, shared live with
//!   terminal `claude`. `.chats` then links to that same folder, so readers that go through
//!   `.chats` see the same files. Both links point at the folder directly; nothing is chained.
//!
//! [`ensure_project_chats`] runs on every project load. It is idempotent and self-healing, and
//! it never fails: a transcript layout problem must not stop a chat, so every step it took and
//! every problem it met goes into the [`LinkReport`] for the caller to log.
//!
//! Nothing is ever overwritten. A real folder where a link belongs has its entries moved into
//! the target (rename, or copy + fsync + remove across filesystems, keeping mtimes); an entry
//! whose name is taken at the target by different content stays where it was, and the folder
//! holding such leftovers is parked under a new name (reported) so the link can still be made.

use std::fs;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::Deserialize;

mod migrate;

use migrate::{Rename, migrate_dir};

/// Whose folder holds a project's transcripts: the `transcripts` config key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TranscriptMode {
    /// paddockd's own, in each project's `.chats` folder.
    #[default]
    Own,
    /// The user's own Claude home, shared with terminal `claude`.
    Host,
}

impl TranscriptMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Own => "own",
            Self::Host => "host",
        }
    }
}

impl std::fmt::Display for TranscriptMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for TranscriptMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "own" => Ok(Self::Own),
            "host" => Ok(Self::Host),
            _ => Err(format!("expected `own` or `host`, not {s:?}")),
        }
    }
}

/// What [`ensure_project_chats`] did, and what it could not do.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LinkReport {
    pub actions: Vec<String>,
    pub warnings: Vec<String>,
}

impl LinkReport {
    fn act(&mut self, s: String) {
        self.actions.push(s);
    }

    fn warn(&mut self, s: String) {
        self.warnings.push(s);
    }
}

/// The folder claude writes this project's transcripts to:
/// `<claude_home>/projects/<encode_cwd(agent_dir)>` (a symlink after [`ensure_project_chats`]).
/// The CLI keys transcripts by the physical cwd, so `agent_dir` is resolved when it exists.
pub fn link_path(claude_home: &Path, agent_dir: &Path) -> PathBuf {
    crate::transcripts::project_transcripts_dir(claude_home, &physical(agent_dir))
}

fn physical(dir: &Path) -> PathBuf {
    fs::canonicalize(dir)
        .or_else(|_| std::path::absolute(dir))
        .unwrap_or_else(|_| dir.to_path_buf())
}

/// A notebook's agents moved from its metadata folder `old` into `new` (`projects/layout.rs`):
/// the link the CLI used for `old` goes (the one for `new` is made by [`ensure_project_chats`]);
/// in `host` mode the user's transcript folder of `old` is renamed to that of `new`, so the
/// chats stay the project's and resume in the new folder. Never fails: see the report.
pub fn agent_dir_moved(
    claude_home: &Path,
    host_claude_home: &Path,
    mode: TranscriptMode,
    old: &Path,
    new: &Path,
) -> LinkReport {
    let mut r = LinkReport::default();
    let link = link_path(claude_home, old);
    if fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()) {
        match fs::remove_file(&link) {
            Ok(()) => r.act(format!(
                "removed the link {} (the agents run in {} now)",
                link.display(),
                new.display()
            )),
            Err(e) => r.warn(format!("cannot remove the link {}: {e}", link.display())),
        }
    }
    if mode == TranscriptMode::Host {
        let (from, to) = (
            link_path(host_claude_home, old),
            link_path(host_claude_home, new),
        );
        if from.is_dir() && !from.is_symlink() && !to.exists() && !to.is_symlink() {
            match fs::rename(&from, &to) {
                Ok(()) => r.act(format!(
                    "moved the transcripts {} to {}",
                    from.display(),
                    to.display()
                )),
                Err(e) => r.warn(format!(
                    "cannot move the transcripts {} to {}: {e}",
                    from.display(),
                    to.display()
                )),
            }
        }
    }
    r
}

/// Makes the transcripts folder of a worktree chat's directory (`<claude_home>/projects/
/// <encoded worktree>`) a link to its project's (`project_folder`, resolved: the real folder
/// in either mode), so the chat's transcripts are the project's: listed, searched and resumed
/// with it. A link already there to that folder is kept; anything else there is an error.
pub fn link_worktree(
    claude_home: &Path,
    project_folder: &Path,
    worktree_dir: &Path,
) -> io::Result<()> {
    let target = fs::canonicalize(project_folder)?;
    let link = link_path(claude_home, worktree_dir);
    match fs::read_link(&link) {
        Ok(to) if to == target => return Ok(()),
        Ok(to) => {
            return Err(io::Error::other(format!(
                "{} links to {}, not to the project's transcripts",
                link.display(),
                to.display()
            )));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    if let Some(parent) = link.parent() {
        fs::create_dir_all(parent)?;
    }
    std::os::unix::fs::symlink(&target, &link)
}

/// Makes the project's transcript layout right for `mode` (see the module doc). Idempotent and
/// self-healing; never panics or returns an error: problems are in the report's warnings.
pub fn ensure_project_chats(
    claude_home: &Path,
    host_claude_home: &Path,
    mode: TranscriptMode,
    meta_dir: &Path,
    agent_dir: &Path,
) -> LinkReport {
    ensure_with(
        claude_home,
        host_claude_home,
        mode,
        meta_dir,
        agent_dir,
        &|from, to| fs::rename(from, to),
    )
}

fn ensure_with(
    claude_home: &Path,
    host_claude_home: &Path,
    mode: TranscriptMode,
    meta_dir: &Path,
    agent_dir: &Path,
    rename: Rename<'_>,
) -> LinkReport {
    let mut r = LinkReport::default();
    let chats =
        std::path::absolute(meta_dir.join(".chats")).unwrap_or_else(|_| meta_dir.join(".chats"));
    let link = link_path(claude_home, agent_dir);
    // Leftovers of a migration are parked outside `projects/`, where the CLI (and
    // `find_session_file`) would otherwise take them for a project's transcripts.
    let link_parking = claude_home.join("unmigrated");
    let target = match mode {
        TranscriptMode::Own => {
            if !ensure_own_chats(&chats, &mut r) {
                return r;
            }
            chats
        }
        TranscriptMode::Host => {
            let target = link_path(host_claude_home, agent_dir);
            if !ensure_dir(&target, &mut r) {
                return r;
            }
            make_link(&chats, &target, meta_dir, rename, &mut r);
            target
        }
    };
    make_link(&link, &target, &link_parking, rename, &mut r);
    r
}

/// `own` mode's `.chats`: a private real folder. A symlink there is a leftover of `host` mode:
/// it is replaced (the link only, never what it points at) and reported, without reading the
/// user's folder it led to (`own` never touches `~/.claude`).
fn ensure_own_chats(chats: &Path, r: &mut LinkReport) -> bool {
    match fs::symlink_metadata(chats) {
        Ok(m) if m.file_type().is_symlink() => {
            let old = fs::read_link(chats).unwrap_or_default();
            if let Err(e) = fs::remove_file(chats) {
                r.warn(format!("cannot remove the link {}: {e}", chats.display()));
                return false;
            }
            if let Err(e) = crate::fsutil::create_private_dir(chats) {
                r.warn(format!("cannot create {}: {e}", chats.display()));
                return false;
            }
            r.warn(format!(
                "{} was a link to {} (left from transcripts = host); it is a private folder again. \
                 The transcripts there are untouched; `paddock import` brings terminal sessions in",
                chats.display(),
                old.display()
            ));
            true
        }
        Ok(m) if m.is_dir() => {
            if m.permissions().mode() & 0o777 != 0o700 {
                match fs::set_permissions(chats, fs::Permissions::from_mode(0o700)) {
                    Ok(()) => r.act(format!("made {} private (0700)", chats.display())),
                    Err(e) => r.warn(format!("cannot make {} private: {e}", chats.display())),
                }
            }
            true
        }
        Ok(_) => {
            r.warn(format!(
                "{} is a file, not a folder; move it away so the project's transcripts can be kept there",
                chats.display()
            ));
            false
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            match crate::fsutil::create_private_dir(chats) {
                Ok(()) => {
                    r.act(format!("created {}", chats.display()));
                    true
                }
                Err(e) => {
                    r.warn(format!("cannot create {}: {e}", chats.display()));
                    false
                }
            }
        }
        Err(e) => {
            r.warn(format!("cannot inspect {}: {e}", chats.display()));
            false
        }
    }
}

/// `host` mode's target: the user's folder for this directory, created (0700) if missing, as
/// the CLI itself would on a first run there. A symlink to a folder is accepted as is.
fn ensure_dir(dir: &Path, r: &mut LinkReport) -> bool {
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => true,
        Ok(_) => {
            r.warn(format!(
                "{} is not a folder; transcripts cannot be kept there",
                dir.display()
            ));
            false
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            match crate::fsutil::create_private_dir(dir) {
                Ok(()) => {
                    r.act(format!("created {}", dir.display()));
                    true
                }
                Err(e) => {
                    r.warn(format!("cannot create {}: {e}", dir.display()));
                    false
                }
            }
        }
        Err(e) => {
            r.warn(format!("cannot inspect {}: {e}", dir.display()));
            false
        }
    }
}

/// Makes `path` a symlink to `target` (an existing folder): creates it, repoints it, or
/// migrates the real folder found there into `target` first. Leftovers that could not be moved
/// without overwriting are parked in `parking` under a new name.
fn make_link(path: &Path, target: &Path, parking: &Path, rename: Rename<'_>, r: &mut LinkReport) {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            let old = fs::read_link(path).unwrap_or_default();
            if points_at(path, &old, target) {
                return;
            }
            if let Err(e) = fs::remove_file(path) {
                r.warn(format!(
                    "cannot remove the stale link {}: {e}",
                    path.display()
                ));
                return;
            }
            if symlink(target, path, r) {
                r.act(format!(
                    "repointed {} from {} to {}",
                    path.display(),
                    old.display(),
                    target.display()
                ));
            }
        }
        Ok(m) if m.is_dir() => {
            if same_dir(path, target) {
                r.warn(format!(
                    "{} and {} are the same folder; left as it is",
                    path.display(),
                    target.display()
                ));
                return;
            }
            let stats = migrate_dir(path, target, rename, r);
            if stats.moved + stats.copied + stats.duplicates > 0 {
                r.act(format!(
                    "moved {} entries from {} into {} ({} copied across filesystems, {} already there)",
                    stats.moved + stats.copied + stats.duplicates,
                    path.display(),
                    target.display(),
                    stats.copied,
                    stats.duplicates
                ));
            }
            if fs::remove_dir(path).is_err() && !park(path, parking, r) {
                return;
            }
            if symlink(target, path, r) {
                r.act(format!("linked {} to {}", path.display(), target.display()));
            }
        }
        Ok(_) => r.warn(format!(
            "{} is a file where a link to {} belongs; move it away",
            path.display(),
            target.display()
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent()
                && let Err(e) = fs::create_dir_all(parent)
            {
                r.warn(format!("cannot create {}: {e}", parent.display()));
                return;
            }
            if symlink(target, path, r) {
                r.act(format!("linked {} to {}", path.display(), target.display()));
            }
        }
        Err(e) => r.warn(format!("cannot inspect {}: {e}", path.display())),
    }
}

fn symlink(target: &Path, path: &Path, r: &mut LinkReport) -> bool {
    let target = std::path::absolute(target).unwrap_or_else(|_| target.to_path_buf());
    match std::os::unix::fs::symlink(&target, path) {
        Ok(()) => true,
        Err(e) => {
            r.warn(format!(
                "cannot link {} to {}: {e}",
                path.display(),
                target.display()
            ));
            false
        }
    }
}

/// Does the link at `path`, whose content is `content`, lead straight to `target`? Its text
/// must name `target` (relative spellings allowed), not reach it through another link, so that
/// no chain of links is left behind; and it must really arrive there (a dangling link never
/// does).
fn points_at(path: &Path, content: &Path, target: &Path) -> bool {
    let base = path.parent().unwrap_or(Path::new("/"));
    let named = crate::confine::normalize(&base.join(content));
    let target = std::path::absolute(target).unwrap_or_else(|_| target.to_path_buf());
    if named != crate::confine::normalize(&target) {
        return false;
    }
    match (fs::canonicalize(path), fs::canonicalize(&target)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Moves the folder `dir`, which still holds entries that could not be migrated, out of the way
/// as `<parking>/<name>.unmigrated-<time>`, so a link can take its place.
fn park(dir: &Path, parking: &Path, r: &mut LinkReport) -> bool {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "transcripts".into());
    if let Err(e) = fs::create_dir_all(parking) {
        r.warn(format!(
            "{} still holds files that were not moved, and {} cannot be created to park them: {e}; no link made",
            dir.display(),
            parking.display()
        ));
        return false;
    }
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let mut dest = parking.join(format!("{name}.unmigrated-{stamp}"));
    let mut n = 1;
    while fs::symlink_metadata(&dest).is_ok() {
        n += 1;
        dest = parking.join(format!("{name}.unmigrated-{stamp}-{n}"));
    }
    match fs::rename(dir, &dest) {
        Ok(()) => {
            r.warn(format!(
                "{} held files whose names were taken by different files in the target; they are kept in {}",
                dir.display(),
                dest.display()
            ));
            true
        }
        Err(e) => {
            r.warn(format!(
                "{} still holds files that were not moved, and it cannot be parked at {}: {e}; no link made",
                dir.display(),
                dest.display()
            ));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::fs::File;
    use std::time::{Duration, SystemTime};

    struct Env {
        _tmp: tempfile::TempDir,
        root: PathBuf,
        claude_home: PathBuf,
        host_home: PathBuf,
        meta_dir: PathBuf,
        agent_dir: PathBuf,
    }

    fn env() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let meta_dir = root.join("data/projects/demo");
        let agent_dir = root.join("src/demo repo");
        fs::create_dir_all(&meta_dir).unwrap();
        fs::create_dir_all(&agent_dir).unwrap();
        Env {
            claude_home: root.join("data/claude-home"),
            host_home: root.join("home/.claude"),
            meta_dir,
            agent_dir,
            root,
            _tmp: tmp,
        }
    }

    impl Env {
        fn ensure(&self, mode: TranscriptMode) -> LinkReport {
            ensure_project_chats(
                &self.claude_home,
                &self.host_home,
                mode,
                &self.meta_dir,
                &self.agent_dir,
            )
        }
        fn link(&self) -> PathBuf {
            link_path(&self.claude_home, &self.agent_dir)
        }
        fn chats(&self) -> PathBuf {
            self.meta_dir.join(".chats")
        }
        fn host_target(&self) -> PathBuf {
            link_path(&self.host_home, &self.agent_dir)
        }
    }

    fn is_link_to(path: &Path, target: &Path) -> bool {
        fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
            && fs::read_link(path).unwrap() == target
    }

    fn is_real_dir(path: &Path) -> bool {
        fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
    }

    /// A file with a known old mtime, so a move that stamps "now" is caught.
    fn old_file(path: &Path, text: &str) -> SystemTime {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        let when = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(when)
            .unwrap();
        when
    }

    fn mtime(path: &Path) -> SystemTime {
        fs::metadata(path).unwrap().modified().unwrap()
    }

    fn assert_clean(r: &LinkReport) {
        assert!(r.warnings.is_empty(), "unexpected warnings: {r:#?}");
    }

    #[test]
    fn mode_parses_and_names_the_allowed_values() {
        assert_eq!("own".parse::<TranscriptMode>(), Ok(TranscriptMode::Own));
        assert_eq!("host".parse::<TranscriptMode>(), Ok(TranscriptMode::Host));
        let err = "both".parse::<TranscriptMode>().unwrap_err();
        assert!(err.contains("own") && err.contains("host") && err.contains("both"));
        assert_eq!(TranscriptMode::default(), TranscriptMode::Own);
    }

    #[test]
    fn link_path_uses_the_physical_directory() {
        let e = env();
        let via = e.root.join("via-link");
        std::os::unix::fs::symlink(&e.agent_dir, &via).unwrap();
        assert_eq!(link_path(&e.claude_home, &via), e.link());
        let name = e.link().file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            name,
            crate::transcripts::encode_cwd(&e.agent_dir.to_string_lossy())
        );
        assert!(name.ends_with("-src-demo-repo"), "{name}");
    }

    #[test]
    fn own_mode_fresh_then_idempotent() {
        let e = env();
        let r = e.ensure(TranscriptMode::Own);
        assert_clean(&r);
        assert_eq!(r.actions.len(), 2, "{r:#?}");
        assert!(is_real_dir(&e.chats()));
        let mode = fs::metadata(e.chats()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        assert!(is_link_to(&e.link(), &e.chats()));
        // Claude writes through the link into .chats.
        fs::write(e.link().join("s.jsonl"), "{}\n").unwrap();
        assert!(e.chats().join("s.jsonl").is_file());

        let again = e.ensure(TranscriptMode::Own);
        assert_eq!(again, LinkReport::default(), "a second run must do nothing");
    }

    #[test]
    fn host_mode_fresh_then_idempotent() {
        let e = env();
        let r = e.ensure(TranscriptMode::Host);
        assert_clean(&r);
        let target = e.host_target();
        assert!(is_real_dir(&target));
        assert!(is_link_to(&e.link(), &target));
        assert!(is_link_to(&e.chats(), &target));
        fs::write(e.link().join("s.jsonl"), "{}\n").unwrap();
        assert!(e.chats().join("s.jsonl").is_file());
        assert!(target.join("s.jsonl").is_file());
        assert_eq!(e.ensure(TranscriptMode::Host), LinkReport::default());
    }

    #[test]
    fn drifted_and_dangling_links_are_repointed() {
        let e = env();
        e.ensure(TranscriptMode::Own);
        let elsewhere = e.root.join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::remove_file(e.link()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, e.link()).unwrap();
        let r = e.ensure(TranscriptMode::Own);
        assert_clean(&r);
        assert!(r.actions[0].starts_with("repointed"), "{r:#?}");
        assert!(is_link_to(&e.link(), &e.chats()));

        // Dangling: the link leads nowhere.
        fs::remove_file(e.link()).unwrap();
        std::os::unix::fs::symlink(e.root.join("gone"), e.link()).unwrap();
        let r = e.ensure(TranscriptMode::Own);
        assert_clean(&r);
        assert!(is_link_to(&e.link(), &e.chats()));

        // A relative link that does lead to .chats is left alone.
        fs::remove_file(e.link()).unwrap();
        let rel = Path::new("../../projects/demo/.chats");
        let link_parent = e.link().parent().unwrap().to_path_buf();
        // claude-home/projects/<enc> -> ../../projects/demo/.chats resolves under data/.
        assert_eq!(fs::canonicalize(link_parent.join(rel)).unwrap(), e.chats());
        std::os::unix::fs::symlink(rel, e.link()).unwrap();
        assert_eq!(e.ensure(TranscriptMode::Own), LinkReport::default());
    }

    #[test]
    fn switching_modes_moves_the_links() {
        let e = env();
        e.ensure(TranscriptMode::Own);
        fs::write(e.chats().join("own.jsonl"), "own\n").unwrap();
        // own -> host: the .chats real folder's transcripts go to the user's folder.
        let r = e.ensure(TranscriptMode::Host);
        assert_clean(&r);
        let target = e.host_target();
        assert!(is_link_to(&e.link(), &target));
        assert!(is_link_to(&e.chats(), &target));
        assert_eq!(
            fs::read_to_string(target.join("own.jsonl")).unwrap(),
            "own\n"
        );

        // host -> own: the .chats link is replaced by a private folder; the user's folder is
        // not touched, and the warning says where its transcripts are.
        let r = e.ensure(TranscriptMode::Own);
        assert!(is_real_dir(&e.chats()));
        assert!(is_link_to(&e.link(), &e.chats()));
        assert_eq!(r.warnings.len(), 1, "{r:#?}");
        assert!(r.warnings[0].contains(&target.display().to_string()));
        assert!(target.join("own.jsonl").is_file());
        assert!(!e.chats().join("own.jsonl").exists());
        assert_eq!(e.ensure(TranscriptMode::Own), LinkReport::default());
    }

    #[test]
    fn a_real_folder_is_migrated_keeping_mtimes() {
        let e = env();
        let a = e.link().join("a.jsonl");
        let when = old_file(&a, "a\n");
        old_file(&e.link().join("a/subagents/agent-x.jsonl"), "sub\n");
        let r = e.ensure(TranscriptMode::Own);
        assert_clean(&r);
        assert!(is_link_to(&e.link(), &e.chats()));
        let moved = e.chats().join("a.jsonl");
        assert_eq!(fs::read_to_string(&moved).unwrap(), "a\n");
        assert_eq!(mtime(&moved), when);
        assert_eq!(mtime(&e.chats().join("a/subagents/agent-x.jsonl")), when);
        assert!(
            r.actions.iter().any(|a| a.starts_with("moved 2 entries")),
            "{r:#?}"
        );
    }

    #[test]
    fn host_mode_migrates_a_real_chats_folder() {
        let e = env();
        let when = old_file(&e.chats().join("s.jsonl"), "mine\n");
        let r = e.ensure(TranscriptMode::Host);
        assert_clean(&r);
        let target = e.host_target();
        assert!(is_link_to(&e.chats(), &target));
        assert_eq!(mtime(&target.join("s.jsonl")), when);
    }

    #[test]
    fn a_name_collision_keeps_both() {
        let e = env();
        // Same name, different content on both sides; plus an identical duplicate, as a
        // crash between copy and remove would leave.
        old_file(&e.chats().join("c.jsonl"), "in chats\n");
        old_file(&e.chats().join("d.jsonl"), "same\n");
        old_file(&e.link().join("c.jsonl"), "in claude home\n");
        old_file(&e.link().join("d.jsonl"), "same\n");
        old_file(&e.link().join("e.jsonl"), "new\n");
        let r = e.ensure(TranscriptMode::Own);
        assert!(is_link_to(&e.link(), &e.chats()));
        assert_eq!(
            fs::read_to_string(e.chats().join("c.jsonl")).unwrap(),
            "in chats\n"
        );
        assert_eq!(
            fs::read_to_string(e.chats().join("e.jsonl")).unwrap(),
            "new\n"
        );
        // The loser is parked outside projects/, named in a warning.
        let parked: Vec<_> = fs::read_dir(e.claude_home.join("unmigrated"))
            .unwrap()
            .flatten()
            .map(|d| d.path())
            .collect();
        assert_eq!(parked.len(), 1);
        assert_eq!(
            fs::read_to_string(parked[0].join("c.jsonl")).unwrap(),
            "in claude home\n"
        );
        assert!(
            !parked[0].join("d.jsonl").exists(),
            "the identical copy is dropped"
        );
        assert_eq!(r.warnings.len(), 2, "{r:#?}");
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains(&parked[0].display().to_string()))
        );
        assert_eq!(e.ensure(TranscriptMode::Own), LinkReport::default());
    }

    #[test]
    fn broken_parents_are_warnings_not_panics() {
        let e = env();
        let file = e.root.join("a-file");
        fs::write(&file, "x").unwrap();
        // Claude home under a regular file.
        let r = ensure_project_chats(
            &file.join("claude-home"),
            &e.host_home,
            TranscriptMode::Own,
            &e.meta_dir,
            &e.agent_dir,
        );
        assert_eq!(r.warnings.len(), 1, "{r:#?}");
        assert!(is_real_dir(&e.chats()));
        // Metadata folder under a regular file, both modes.
        for mode in [TranscriptMode::Own, TranscriptMode::Host] {
            let r = ensure_project_chats(
                &e.claude_home,
                &e.host_home,
                mode,
                &file.join("meta"),
                &e.agent_dir,
            );
            assert!(!r.warnings.is_empty(), "{mode}: {r:#?}");
        }
        // Host home under a regular file: nothing can be linked, and it says so.
        let r = ensure_project_chats(
            &e.claude_home,
            &file.join(".claude"),
            TranscriptMode::Host,
            &e.meta_dir,
            &e.agent_dir,
        );
        assert_eq!(r.warnings.len(), 1, "{r:#?}");
        // A file sitting where .chats belongs.
        let other = e.root.join("other-meta");
        fs::create_dir_all(&other).unwrap();
        fs::write(other.join(".chats"), "x").unwrap();
        let r = ensure_project_chats(
            &e.claude_home,
            &e.host_home,
            TranscriptMode::Own,
            &other,
            &e.agent_dir,
        );
        assert_eq!(r.warnings.len(), 1, "{r:#?}");
    }

    #[test]
    fn the_same_folder_is_never_migrated_into_itself() {
        let e = env();
        old_file(&e.host_target().join("s.jsonl"), "x\n");
        // A misconfiguration: both homes the same folder.
        let r = ensure_project_chats(
            &e.host_home,
            &e.host_home,
            TranscriptMode::Host,
            &e.meta_dir,
            &e.agent_dir,
        );
        assert!(
            r.warnings.iter().any(|w| w.contains("same folder")),
            "{r:#?}"
        );
        assert_eq!(
            fs::read_to_string(e.host_target().join("s.jsonl")).unwrap(),
            "x\n"
        );
    }

    fn exdev(_: &Path, _: &Path) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::CrossesDevices))
    }

    #[test]
    fn cross_filesystem_migration_copies_then_removes() {
        let e = env();
        let when = old_file(&e.link().join("a.jsonl"), "a\n");
        old_file(&e.link().join("a/subagents/agent-x.jsonl"), "sub\n");
        old_file(&e.link().join("d.jsonl"), "same\n");
        old_file(&e.chats().join("d.jsonl"), "same\n");
        fs::set_permissions(e.link().join("a.jsonl"), fs::Permissions::from_mode(0o600)).unwrap();
        let r = ensure_with(
            &e.claude_home,
            &e.host_home,
            TranscriptMode::Own,
            &e.meta_dir,
            &e.agent_dir,
            &exdev,
        );
        assert_clean(&r);
        assert!(is_link_to(&e.link(), &e.chats()));
        let a = e.chats().join("a.jsonl");
        assert_eq!(fs::read_to_string(&a).unwrap(), "a\n");
        assert_eq!(mtime(&a), when);
        assert_eq!(
            fs::metadata(&a).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(mtime(&e.chats().join("a/subagents/agent-x.jsonl")), when);
        assert!(
            r.actions
                .iter()
                .any(|a| a.contains("2 copied across filesystems, 1 already there")),
            "{r:#?}"
        );
        // No temporary files left behind.
        let names: Vec<String> = fs::read_dir(e.chats())
            .unwrap()
            .flatten()
            .map(|d| d.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().all(|n| !n.contains("paddock-tmp")),
            "{names:?}"
        );
    }

    #[test]
    fn real_cross_filesystem_migration() {
        let shm = Path::new("/dev/shm");
        let e = env();
        let Ok(other) = tempfile::tempdir_in(shm) else {
            println!("note: /dev/shm is not usable here; real cross-filesystem test skipped");
            return;
        };
        if fs::metadata(other.path()).unwrap().dev() == fs::metadata(&e.root).unwrap().dev() {
            println!(
                "note: /dev/shm is on the temp dir's filesystem; real cross-filesystem test skipped"
            );
            return;
        }
        let meta_dir = other.path().join("meta");
        fs::create_dir_all(&meta_dir).unwrap();
        let when = old_file(&e.link().join("a.jsonl"), "a\n");
        old_file(&e.link().join("a/subagents/agent-x.jsonl"), "sub\n");
        let r = ensure_project_chats(
            &e.claude_home,
            &e.host_home,
            TranscriptMode::Own,
            &meta_dir,
            &e.agent_dir,
        );
        assert_clean(&r);
        let chats = meta_dir.join(".chats");
        assert!(is_link_to(&e.link(), &chats));
        assert_eq!(mtime(&chats.join("a.jsonl")), when);
        assert_eq!(
            fs::read_to_string(chats.join("a/subagents/agent-x.jsonl")).unwrap(),
            "sub\n"
        );
        assert!(
            r.actions
                .iter()
                .any(|a| a.contains("2 copied across filesystems")),
            "{r:#?}"
        );
    }
}
