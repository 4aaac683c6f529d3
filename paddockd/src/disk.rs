//! Free space where paddockd's data goes. `claude` writes transcripts with no way to tell
//! paddockd that a write failed, so a full disk would lose a turn's reply silently; the daemon
//! looks at free space instead: in `daemon:status`/`daemon:info` (so `paddock status`, the TUI
//! header and `paddock doctor` can say it is low) and when a turn's transcript did not get its
//! reply (so the turn ends saying what was not saved).

use std::path::{Path, PathBuf};

use paddock_proto::DiskSpace;

/// Bytes an unprivileged writer may still use on the disk holding `path` (the nearest folder
/// that exists, for a path not made yet).
pub fn free_bytes(path: &Path) -> std::io::Result<u64> {
    read_at(path).map(|(_, free)| free)
}

/// The folder whose disk was read for `path` (it, or its nearest parent that exists), and
/// the bytes free there.
fn read_at(path: &Path) -> std::io::Result<(&Path, u64)> {
    let mut at = path;
    loop {
        match rustix::fs::statvfs(at) {
            Ok(stat) => return Ok((at, stat.f_bavail.saturating_mul(stat.f_frsize))),
            Err(e) if e == rustix::io::Errno::NOENT => match at.parent() {
                Some(parent) => at = parent,
                None => return Err(e.into()),
            },
            Err(e) => return Err(e.into()),
        }
    }
}

/// The disk of one folder, with the configured floor.
pub fn space(path: &Path, floor_bytes: u64) -> Option<DiskSpace> {
    match free_bytes(path) {
        Ok(free_bytes) => Some(DiskSpace {
            path: path.to_string_lossy().into_owned(),
            free_bytes,
            floor_bytes,
        }),
        Err(e) => {
            tracing::debug!(path = %path.display(), "cannot read the free space: {e}");
            None
        }
    }
}

/// Free space on each disk among `folders` (one entry per disk: the first folder of each).
pub fn all(folders: &[PathBuf], floor_bytes: u64) -> Vec<DiskSpace> {
    use std::os::unix::fs::MetadataExt;
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for dir in folders {
        let dev = std::fs::metadata(dir).map(|m| m.dev()).ok();
        if dev.is_some() && seen.contains(&dev) {
            continue;
        }
        seen.push(dev);
        out.extend(space(dir, floor_bytes));
    }
    out
}

/// The disks among `folders` below the floor.
pub fn low(folders: &[PathBuf], floor_bytes: u64) -> Vec<DiskSpace> {
    all(folders, floor_bytes)
        .into_iter()
        .filter(|d| d.free_bytes < d.floor_bytes)
        .collect()
}

/// `bytes` as people write sizes: `512 B`, `3.4 MB`, `12 GB`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value >= 10.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_folder_not_made_yet_reads_its_nearest_parent_and_sizes_read_like_people_write_them() {
        // Read where the folder will be: the free space itself changes with every other
        // writer on the machine, so only where it was read is compared.
        let dir = tempfile::tempdir().unwrap();
        let not_yet = dir.path().join("a/b/c");
        let (read, free) = read_at(&not_yet).unwrap();
        assert_eq!(read, dir.path());
        assert!(free > 0);
        assert_eq!(human(512), "512 B");
        assert_eq!(human(3 * 1024 * 1024 + 400 * 1024), "3.4 MB");
        assert_eq!(human(12 * 1024 * 1024 * 1024), "12 GB");
    }
}
