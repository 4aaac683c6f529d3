//! Crash-safe file writes: a killed daemon leaves either the old file or the new one.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Mode of every file the daemon writes: its state is nobody else's business.
const PRIVATE_FILE_MODE: u32 = 0o600;

/// Tells apart the temp files of writes running at the same time in this process (two
/// stores, or a test holding two handles on one folder), so no two writers share one.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The prefix of every temp file `write_atomic` creates for `name`; a crash can leave one
/// behind, and whoever owns `name` may remove leftovers at startup.
pub fn temp_prefix(name: &str) -> String {
    format!(".{name}.tmp-")
}

/// Writes `bytes` to `path` atomically, as a private (0600) file: a temp file in the same
/// folder, fsync, rename over the target, fsync of the folder.
///
/// Why a SIGKILL or power loss cannot tear the file: the bytes go to a temp file, which is
/// fsynced before anything else happens, so the data is on disk before any name points at
/// it; `rename` then swaps the name over in one atomic step (readers see the whole old
/// file or the whole new one), and the folder fsync makes that swap itself durable. Dying
/// at any point leaves the old file (plus maybe a stray temp file) or the new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        "{}{}-{}",
        temp_prefix(&name),
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(PRIVATE_FILE_MODE)
            .open(&tmp)?;
        // `mode` applies only when the file is created; a stale temp file of a dead
        // process with our pid may already exist with other permissions.
        f.set_permissions(std::fs::Permissions::from_mode(PRIVATE_FILE_MODE))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        std::fs::File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Removes the temp files [`write_atomic`] left in `dir` for any of `names` when their
/// writer is dead: a crash between create and rename leaves one, and it never holds anything
/// acknowledged. A temp file of a live process (another daemon on a shared folder, or this
/// one) stays. Returns how many were removed; failures are logged, never raised.
pub fn remove_stale_temps(dir: &Path, names: &[&str]) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let file = entry.file_name();
        let file = file.to_string_lossy();
        let Some(pid) = names
            .iter()
            .find_map(|name| file.strip_prefix(&temp_prefix(name)))
            .and_then(temp_writer)
        else {
            continue;
        };
        if pid == std::process::id() || process_exists(pid) {
            continue;
        }
        let path = entry.path();
        match std::fs::remove_file(&path) {
            Ok(()) => {
                removed += 1;
                tracing::info!(file = %path.display(), "removed a temp file a crashed write left");
            }
            Err(e) => {
                tracing::warn!(file = %path.display(), "cannot remove a stale temp file: {e}")
            }
        }
    }
    removed
}

/// The writer's pid in a temp file's `PID-COUNTER` suffix.
fn temp_writer(suffix: &str) -> Option<u32> {
    let (pid, counter) = suffix.split_once('-')?;
    counter.parse::<u64>().ok()?;
    pid.parse().ok()
}

fn process_exists(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

/// Creates `dir` (and parents) and restricts it to the owner (0700).
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

/// How far back a torn last line is looked for before it is given up on (the whole tail is
/// then kept and a new line started).
const TORN_TAIL_MAX: u64 = 16 * 1024 * 1024;

/// Appends `line` (which ends with `'\n'`) to a JSON-lines file and fsyncs it. A file a crash
/// left with a torn last line (no `'\n'` at its end) has that line cut off first — else the
/// record would be glued onto it and lost with it on the next read — and the loss is logged.
/// The caller serializes writers of one file.
pub fn append_line(path: &Path, line: &[u8]) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .mode(PRIVATE_FILE_MODE)
        .open(path)?;
    let len = f.metadata()?.len();
    if len > 0 {
        let mut last = [0u8; 1];
        f.seek(SeekFrom::Start(len - 1))?;
        f.read_exact(&mut last)?;
        if last[0] != b'\n' {
            // Back to the end of the last whole line.
            let start = len.saturating_sub(TORN_TAIL_MAX);
            f.seek(SeekFrom::Start(start))?;
            let mut tail = Vec::new();
            f.read_to_end(&mut tail)?;
            match tail.iter().rposition(|b| *b == b'\n') {
                Some(nl) => {
                    let keep = start + nl as u64 + 1;
                    f.set_len(keep)?;
                    tracing::warn!(
                        file = %path.display(),
                        bytes = len - keep,
                        "cut off a torn last line (a write a crash interrupted) before appending"
                    );
                }
                None if start == 0 => {
                    f.set_len(0)?;
                    tracing::warn!(file = %path.display(), bytes = len, "the file held only a torn line; it was cut off before appending");
                }
                None => {
                    f.write_all(b"\n")?;
                    tracing::warn!(file = %path.display(), "a torn last line too long to cut; a new line is started after it");
                }
            }
        }
    }
    f.write_all(line)?;
    f.sync_data()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_append_cuts_a_torn_last_line_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        append_line(&path, b"{\"n\":1}\n").unwrap();
        // A write a crash cut short.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"n\":2,\"tor")
            .unwrap();
        append_line(&path, b"{\"n\":3}\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"n\":1}\n{\"n\":3}\n"
        );
        // Only a torn line: it goes.
        std::fs::write(&path, b"{\"to").unwrap();
        append_line(&path, b"{\"n\":4}\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"n\":4}\n");
    }

    #[test]
    fn writes_a_private_file_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        std::fs::write(&path, b"old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("state.json")]);
    }
}
