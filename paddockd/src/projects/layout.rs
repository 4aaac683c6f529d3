//! A notebook project's folder: paddockd's own files at its top, the agents' files in `work/`.
//!
//! A notebook (a project with neither `path` nor `repo`, and the root workspace) keeps
//! everything in its metadata folder `<data>/projects/<slug>/`. Its agents used to run in that
//! folder itself, beside `project.toml` (its tool rules), `.chats/` (every transcript) and
//! `.paddock/` (provenance): an agent could read and rewrite its own rules and the other chats.
//! Now they run in [`WORK_DIR`] inside it, and what is at the top is paddockd's
//! (`confine::Private` refuses it to every tool, whatever the rules say).
//!
//! [`ensure`] brings a folder of the older layout over, at start, before anything runs in it:
//!
//! 1. every entry at the top that is not paddockd's ([`OWN`]) is renamed into [`STAGING`];
//! 2. the marker [`MARKER`] is written (atomically): from here on the top holds only
//!    paddockd's files, and what is in [`STAGING`] is the agents';
//! 3. [`STAGING`] is renamed [`WORK_DIR`].
//!
//! Each step is a rename or an atomic write, so a daemon killed at any point leaves every entry
//! whole in one place, and the next start goes on from where it stopped (no marker: step 1
//! again, for what is left at the top; a marker and [`STAGING`]: step 3). Nothing is copied,
//! nothing deleted. An entry whose name is already taken in [`STAGING`] (a file made at the
//! top by hand between two interrupted starts) stays where it is, and is reported.

use std::path::{Path, PathBuf};

/// The folder a notebook's agents run in, inside its metadata folder.
pub const WORK_DIR: &str = "work";

/// Where the agents' files are gathered before they become [`WORK_DIR`] (paddockd's: a
/// dot-name, which an older layout's agents never used for it).
pub const STAGING: &str = ".paddock-work.new";

/// Says the folder has the layout of this module, relative to the metadata folder.
pub const MARKER: &str = ".paddock/layout";

/// What the marker holds.
const MARKER_TEXT: &str = "agents run in work/; the rest of this folder is paddockd's\n";

/// paddockd's own entries at the top of a metadata folder (and the temp files of its atomic
/// writes of the files among them).
pub const OWN: &[&str] = &[
    crate::projects::PROJECT_FILE,
    crate::config::curation::OVERVIEW_FILE,
    crate::config::curation::CHANGELOG_FILE,
    "CLAUDE.notebook.md",
    ".chats",
    ".paddock",
    STAGING,
];

/// Whether `name`, at the top of a metadata folder, is paddockd's.
fn is_own(name: &str) -> bool {
    OWN.contains(&name)
        || OWN
            .iter()
            .any(|f| name.starts_with(&crate::fsutil::temp_prefix(f)))
}

/// What [`ensure`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Moved {
    /// Entries moved into the agents' folder by this call.
    pub moved: Vec<String>,
    /// Entries left at the top: their name is taken in the agents' folder.
    pub left: Vec<String>,
    /// Whether this call finished a move (the folder had the older layout, or a move was cut).
    pub finished: bool,
}

/// Makes `meta_dir` (a notebook's metadata folder, which exists) have this layout, going on
/// from wherever an earlier call stopped. A folder with the layout already is left alone but
/// for making [`WORK_DIR`] again if it was removed.
pub fn ensure(meta_dir: &Path) -> std::io::Result<Moved> {
    let marker = meta_dir.join(MARKER);
    let staging = meta_dir.join(STAGING);
    let work = meta_dir.join(WORK_DIR);
    let mut out = Moved::default();
    if !marker.exists() {
        // Step 1 (again, after a kill: what is still at the top).
        std::fs::create_dir_all(&staging)?;
        for entry in std::fs::read_dir(meta_dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let Some(text) = name.to_str() else {
                // Not a name paddockd ever writes: the agents'.
                move_in(meta_dir, &staging, &name, &mut out)?;
                continue;
            };
            if !is_own(text) {
                move_in(meta_dir, &staging, &name, &mut out)?;
            }
        }
        sync_dir(&staging)?;
        sync_dir(meta_dir)?;
        // Step 2.
        std::fs::create_dir_all(marker.parent().unwrap_or(meta_dir))?;
        crate::fsutil::write_atomic(&marker, MARKER_TEXT.as_bytes())?;
        out.finished = true;
    }
    // Step 3.
    if staging.is_dir() {
        if work.exists() || work.is_symlink() {
            return Err(std::io::Error::other(format!(
                "{} and {} both exist; move the files of {} into {} by hand",
                staging.display(),
                work.display(),
                staging.display(),
                work.display()
            )));
        }
        std::fs::rename(&staging, &work)?;
        sync_dir(meta_dir)?;
        out.finished = true;
    }
    if !work.is_dir() {
        std::fs::create_dir_all(&work)?;
    }
    Ok(out)
}

/// Makes a new notebook's folder have this layout from the start.
pub fn create(meta_dir: &Path) -> std::io::Result<PathBuf> {
    let work = meta_dir.join(WORK_DIR);
    std::fs::create_dir_all(&work)?;
    let marker = meta_dir.join(MARKER);
    std::fs::create_dir_all(marker.parent().unwrap_or(meta_dir))?;
    crate::fsutil::write_atomic(&marker, MARKER_TEXT.as_bytes())?;
    Ok(work)
}

fn move_in(
    meta_dir: &Path,
    staging: &Path,
    name: &std::ffi::OsStr,
    out: &mut Moved,
) -> std::io::Result<()> {
    let to = staging.join(name);
    let shown = name.to_string_lossy().into_owned();
    if to.exists() || to.is_symlink() {
        out.left.push(shown);
        return Ok(());
    }
    std::fs::rename(meta_dir.join(name), to)?;
    out.moved.push(shown);
    Ok(())
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// An older notebook: paddockd's files and the agents' side by side.
    fn older(meta: &Path) {
        for (name, text) in [
            ("project.toml", "model = \"m\"\n"),
            ("OVERVIEW.md", "o"),
            ("CHANGELOG.md", "c"),
            ("CLAUDE.md", "rules"),
            ("notes.md", "n"),
            (".env", "KEY=1"),
            (".project.toml.tmp-1-2", "torn"),
        ] {
            std::fs::write(meta.join(name), text).unwrap();
        }
        for dir in [
            ".chats",
            ".paddock/provenance/s",
            "src/deep",
            ".git",
            "work",
        ] {
            std::fs::create_dir_all(meta.join(dir)).unwrap();
        }
        std::fs::write(meta.join(".chats/s.jsonl"), "{}\n").unwrap();
        std::fs::write(meta.join("src/deep/a.rs"), "fn a() {}").unwrap();
        std::fs::write(meta.join("work/todo.txt"), "the user's own work/ folder").unwrap();
        std::os::unix::fs::symlink("/etc", meta.join("etc-link")).unwrap();
    }

    fn assert_moved(meta: &Path) {
        let w = meta.join(WORK_DIR);
        assert_eq!(
            std::fs::read_to_string(w.join("CLAUDE.md")).unwrap(),
            "rules"
        );
        assert_eq!(std::fs::read_to_string(w.join("notes.md")).unwrap(), "n");
        assert_eq!(std::fs::read_to_string(w.join(".env")).unwrap(), "KEY=1");
        assert!(w.join(".git").is_dir());
        assert_eq!(
            std::fs::read_to_string(w.join("src/deep/a.rs")).unwrap(),
            "fn a() {}"
        );
        assert_eq!(
            std::fs::read_to_string(w.join("work/todo.txt")).unwrap(),
            "the user's own work/ folder"
        );
        assert!(w.join("etc-link").is_symlink());
        for own in [
            "project.toml",
            "OVERVIEW.md",
            "CHANGELOG.md",
            ".chats/s.jsonl",
            ".paddock/provenance/s",
            ".project.toml.tmp-1-2",
        ] {
            assert!(meta.join(own).exists(), "{own} stays at the top");
        }
        let mut top: Vec<String> = std::fs::read_dir(meta)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        top.sort();
        assert_eq!(
            top,
            [
                ".chats",
                ".paddock",
                ".project.toml.tmp-1-2",
                "CHANGELOG.md",
                "OVERVIEW.md",
                "project.toml",
                "work"
            ]
        );
    }

    #[test]
    fn an_older_notebook_moves_its_agents_files_into_work_and_keeps_paddocks_at_the_top() {
        let dir = tempfile::tempdir().unwrap();
        let meta = dir.path();
        older(meta);
        let moved = ensure(meta).unwrap();
        assert!(moved.finished);
        assert!(moved.left.is_empty());
        assert_eq!(moved.moved.len(), 7, "{:?}", moved.moved);
        assert_moved(meta);
        // Once moved, nothing more happens.
        std::fs::write(meta.join(WORK_DIR).join("new.md"), "x").unwrap();
        assert_eq!(ensure(meta).unwrap(), Moved::default());
        assert_moved_again(meta);
    }

    fn assert_moved_again(meta: &Path) {
        assert!(meta.join(WORK_DIR).join("new.md").is_file());
        assert!(!meta.join(STAGING).exists());
    }

    #[test]
    fn a_move_cut_at_any_step_is_finished_by_the_next_start() {
        // Cut in step 1: some entries moved, the rest still at the top.
        let dir = tempfile::tempdir().unwrap();
        let meta = dir.path();
        older(meta);
        std::fs::create_dir(meta.join(STAGING)).unwrap();
        std::fs::rename(meta.join("notes.md"), meta.join(STAGING).join("notes.md")).unwrap();
        std::fs::rename(meta.join("work"), meta.join(STAGING).join("work")).unwrap();
        let moved = ensure(meta).unwrap();
        assert!(moved.finished);
        assert_eq!(moved.moved.len(), 5, "{:?}", moved.moved);
        assert_moved(meta);

        // Cut between steps 2 and 3: the marker is written, the staging folder not renamed.
        let dir = tempfile::tempdir().unwrap();
        let meta = dir.path();
        older(meta);
        let staging = meta.join(STAGING);
        std::fs::create_dir(&staging).unwrap();
        for name in [
            "CLAUDE.md",
            "notes.md",
            ".env",
            ".git",
            "src",
            "work",
            "etc-link",
        ] {
            std::fs::rename(meta.join(name), staging.join(name)).unwrap();
        }
        std::fs::write(meta.join(MARKER), MARKER_TEXT).unwrap();
        let moved = ensure(meta).unwrap();
        assert!(moved.finished && moved.moved.is_empty());
        assert_moved(meta);
    }

    #[test]
    fn a_name_taken_in_the_staging_folder_stays_at_the_top_and_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let meta = dir.path();
        std::fs::write(meta.join("project.toml"), "").unwrap();
        std::fs::create_dir(meta.join(STAGING)).unwrap();
        std::fs::write(meta.join(STAGING).join("a.md"), "moved before the kill").unwrap();
        std::fs::write(meta.join("a.md"), "made again by hand").unwrap();
        let moved = ensure(meta).unwrap();
        assert_eq!(moved.left, ["a.md"]);
        assert_eq!(
            std::fs::read_to_string(meta.join("work/a.md")).unwrap(),
            "moved before the kill"
        );
        assert_eq!(
            std::fs::read_to_string(meta.join("a.md")).unwrap(),
            "made again by hand"
        );
    }

    #[test]
    fn a_new_notebook_has_the_layout_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let work = create(dir.path()).unwrap();
        assert_eq!(work, dir.path().join(WORK_DIR));
        assert!(work.is_dir());
        assert_eq!(ensure(dir.path()).unwrap(), Moved::default());
    }
}
