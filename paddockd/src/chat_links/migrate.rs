//! Moving a folder's entries into another without ever overwriting, across filesystems too:
//! the migration step of [`super::ensure_project_chats`].

use std::fs::{self, File, FileTimes, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use super::LinkReport;

/// Moves one path to another on the same filesystem; `fs::rename` except in tests, which
/// inject a failing one to drive the cross-filesystem path.
pub(super) type Rename<'a> = &'a dyn Fn(&Path, &Path) -> io::Result<()>;

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct MigrateStats {
    /// Renamed in place.
    pub moved: usize,
    /// Copied across filesystems, then removed from the source.
    pub copied: usize,
    /// Already at the destination with the same content; the source copy was removed.
    pub duplicates: usize,
    /// Left in the source: the name was taken, or moving failed.
    pub kept: usize,
}

impl MigrateStats {
    fn add(&mut self, o: Self) {
        self.moved += o.moved;
        self.copied += o.copied;
        self.duplicates += o.duplicates;
        self.kept += o.kept;
    }
}

/// Moves every entry of the folder `from` into the existing folder `to`, never overwriting.
pub(super) fn migrate_dir(
    from: &Path,
    to: &Path,
    rename: Rename<'_>,
    r: &mut LinkReport,
) -> MigrateStats {
    let mut stats = MigrateStats::default();
    let entries = match fs::read_dir(from) {
        Ok(e) => e,
        Err(e) => {
            r.warn(format!("cannot read {}: {e}", from.display()));
            stats.kept += 1;
            return stats;
        }
    };
    for entry in entries {
        match entry {
            Ok(entry) => stats.add(move_entry(
                &entry.path(),
                &to.join(entry.file_name()),
                rename,
                r,
            )),
            Err(e) => {
                r.warn(format!("cannot read {}: {e}", from.display()));
                stats.kept += 1;
            }
        }
    }
    stats
}

/// Moves one file, link or folder to `dst`, which must not be overwritten. Rename first;
/// across filesystems, copy (mtimes and modes kept, fsync'd) and then remove the source.
fn move_entry(src: &Path, dst: &Path, rename: Rename<'_>, r: &mut LinkReport) -> MigrateStats {
    let kept = MigrateStats {
        kept: 1,
        ..MigrateStats::default()
    };
    let src_meta = match fs::symlink_metadata(src) {
        Ok(m) => m,
        Err(e) => {
            r.warn(format!("cannot inspect {}: {e}", src.display()));
            return kept;
        }
    };
    match fs::symlink_metadata(dst) {
        Ok(dst_meta) => {
            return merge_into_existing(src, &src_meta, dst, &dst_meta, rename, r);
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            r.warn(format!("cannot inspect {}: {e}", dst.display()));
            return kept;
        }
    }
    match rename(src, dst) {
        Ok(()) => {
            return MigrateStats {
                moved: 1,
                ..MigrateStats::default()
            };
        }
        Err(e) if e.kind() == io::ErrorKind::CrossesDevices => {}
        Err(e) => {
            r.warn(format!(
                "cannot move {} to {}: {e}; left in place",
                src.display(),
                dst.display()
            ));
            return kept;
        }
    }
    let ft = src_meta.file_type();
    if ft.is_dir() {
        copy_dir_across(src, &src_meta, dst, rename, r)
    } else if ft.is_file() || ft.is_symlink() {
        copy_file_across(src, ft, dst, r)
    } else {
        r.warn(format!(
            "{} is not a file, link or folder; left in place",
            src.display()
        ));
        kept
    }
}

/// Across filesystems, a folder: makes `dst` (its mode kept), moves the entries into it, keeps
/// its times, and removes the source once every entry has left it.
fn copy_dir_across(
    src: &Path,
    src_meta: &fs::Metadata,
    dst: &Path,
    rename: Rename<'_>,
    r: &mut LinkReport,
) -> MigrateStats {
    if let Err(e) =
        fs::create_dir(dst).and_then(|()| fs::set_permissions(dst, src_meta.permissions()))
    {
        r.warn(format!("cannot create {}: {e}", dst.display()));
        return MigrateStats {
            kept: 1,
            ..MigrateStats::default()
        };
    }
    let inner = migrate_dir(src, dst, rename, r);
    set_times(dst, src_meta);
    if inner.kept > 0 {
        return inner;
    }
    copied(src, fs::remove_dir(src), r)
}

/// Across filesystems, a file or a link: copies it to `dst` without overwriting, then
/// removes the source.
fn copy_file_across(src: &Path, ft: fs::FileType, dst: &Path, r: &mut LinkReport) -> MigrateStats {
    let copy = if ft.is_file() {
        copy_file_no_clobber(src, dst)
    } else {
        fs::read_link(src).and_then(|t| std::os::unix::fs::symlink(t, dst))
    };
    if let Err(e) = copy {
        r.warn(format!(
            "cannot copy {} to {}: {e}; left in place",
            src.display(),
            dst.display()
        ));
        return MigrateStats {
            kept: 1,
            ..MigrateStats::default()
        };
    }
    copied(src, fs::remove_file(src), r)
}

/// One entry copied across; `removed` is how removing its source went (a failure is warned
/// of, and the copy still counts).
fn copied(src: &Path, removed: std::io::Result<()>, r: &mut LinkReport) -> MigrateStats {
    if let Err(e) = removed {
        r.warn(format!(
            "copied {} but cannot remove it: {e}",
            src.display()
        ));
    }
    MigrateStats {
        copied: 1,
        ..MigrateStats::default()
    }
}

/// `dst` already exists: merge folders, drop a source file that is already there byte for
/// byte, keep everything else where it is.
fn merge_into_existing(
    src: &Path,
    src_meta: &fs::Metadata,
    dst: &Path,
    dst_meta: &fs::Metadata,
    rename: Rename<'_>,
    r: &mut LinkReport,
) -> MigrateStats {
    let kept = MigrateStats {
        kept: 1,
        ..MigrateStats::default()
    };
    let same_inode = src_meta.dev() == dst_meta.dev() && src_meta.ino() == dst_meta.ino();
    if same_inode {
        // A hard link or the same folder reached twice: removing the source would remove it.
        r.warn(format!(
            "{} and {} are the same file; left as it is",
            src.display(),
            dst.display()
        ));
        return kept;
    }
    if src_meta.is_dir() && dst_meta.is_dir() {
        let mut inner = migrate_dir(src, dst, rename, r);
        if inner.kept == 0 && fs::remove_dir(src).is_err() {
            inner.kept += 1;
        }
        return inner;
    }
    if src_meta.is_file() && dst_meta.is_file() && same_contents(src, dst).unwrap_or(false) {
        return match fs::remove_file(src) {
            Ok(()) => MigrateStats {
                duplicates: 1,
                ..MigrateStats::default()
            },
            Err(e) => {
                r.warn(format!("cannot remove {}: {e}", src.display()));
                kept
            }
        };
    }
    r.warn(format!(
        "{} was not moved: {} already exists with different content (both kept)",
        src.display(),
        dst.display()
    ));
    kept
}

fn same_contents(a: &Path, b: &Path) -> io::Result<bool> {
    let (mut fa, mut fb) = (File::open(a)?, File::open(b)?);
    if fa.metadata()?.len() != fb.metadata()?.len() {
        return Ok(false);
    }
    let (mut ba, mut bb) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let n = fa.read(&mut ba)?;
        if n == 0 {
            return Ok(fb.read(&mut bb[..1])? == 0);
        }
        fb.read_exact(&mut bb[..n])?;
        if ba[..n] != bb[..n] {
            return Ok(false);
        }
    }
}

/// Copies a regular file to `dst` without ever overwriting it: into a temporary file beside
/// `dst` (same mode, same times, fsync'd), then hard-linked into place, which fails if `dst`
/// appeared meanwhile. A crash leaves either no `dst` or a complete one.
fn copy_file_no_clobber(src: &Path, dst: &Path) -> io::Result<()> {
    let dir = dst.parent().unwrap_or(Path::new("."));
    let name = dst
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.paddock-tmp-{}", std::process::id()));
    let result = (|| {
        let mut input = File::open(src)?;
        let meta = input.metadata()?;
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(meta.permissions().mode() & 0o7777)
            .open(&tmp)?;
        io::copy(&mut input, &mut out)?;
        out.set_times(
            FileTimes::new()
                .set_accessed(meta.accessed()?)
                .set_modified(meta.modified()?),
        )?;
        out.sync_all()?;
        drop(out);
        match fs::hard_link(&tmp, dst) {
            Ok(()) => fs::remove_file(&tmp)?,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e),
            // A filesystem without hard links: a checked rename is the best left.
            Err(_) if fs::symlink_metadata(dst).is_err() => fs::rename(&tmp, dst)?,
            Err(e) => return Err(e),
        }
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn set_times(path: &Path, meta: &fs::Metadata) {
    let times = match (meta.accessed(), meta.modified()) {
        (Ok(a), Ok(m)) => FileTimes::new().set_accessed(a).set_modified(m),
        _ => return,
    };
    // Best effort: a folder's mtime is only cosmetic.
    let _ = File::open(path).and_then(|f| f.set_times(times));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn exdev(_: &Path, _: &Path) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::CrossesDevices))
    }

    #[test]
    fn cross_filesystem_copy_never_overwrites() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src.jsonl");
        let dst = tmp.path().join("dst.jsonl");
        fs::write(&src, "new").unwrap();
        fs::write(&dst, "old").unwrap();
        assert!(copy_file_no_clobber(&src, &dst).is_err());
        assert_eq!(fs::read_to_string(&dst).unwrap(), "old");
        let mut r = LinkReport::default();
        let stats = move_entry(&src, &dst, &exdev, &mut r);
        assert_eq!(stats.kept, 1);
        assert_eq!(fs::read_to_string(&src).unwrap(), "new");
        assert_eq!(fs::read_to_string(&dst).unwrap(), "old");
    }
}
