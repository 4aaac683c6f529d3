//! File identity (a sha256 of the bytes) and the status of a file against its latest
//! recorded write.

use std::io::Read as _;
use std::path::Path;

use paddock_proto::FileStatus;
use sha2::{Digest as _, Sha256};

use super::steps::FileRecord;

/// What hashing a file gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hashed {
    /// `sha256:HEX`.
    Hash(String),
    /// Larger than the hashing bound.
    TooLarge,
    /// No such file (or not a regular file).
    Missing,
    Unreadable(String),
}

impl Hashed {
    pub fn hash(&self) -> Option<&str> {
        match self {
            Hashed::Hash(h) => Some(h),
            _ => None,
        }
    }
}

/// Hashes a regular file of at most `max_bytes` bytes.
pub fn hash_file(path: &Path, max_bytes: u64) -> Hashed {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Hashed::Missing,
        Err(e) => return Hashed::Unreadable(e.to_string()),
    };
    if !meta.is_file() {
        return Hashed::Missing;
    }
    if meta.len() > max_bytes {
        return Hashed::TooLarge;
    }
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return Hashed::Unreadable(e.to_string()),
    };
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                total += n as u64;
                if total > max_bytes {
                    return Hashed::TooLarge;
                }
                hasher.update(&buf[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Hashed::Unreadable(e.to_string()),
        }
    }
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(7 + 64);
    hex.push_str("sha256:");
    for b in digest {
        hex.push_str(&format!("{b:02x}"));
    }
    Hashed::Hash(hex)
}

/// The status of a file whose latest recorded write is `latest` (made by `tool`), given what
/// hashing it now gave.
///
/// `harvested`: the write was a subagent's, hashed when its transcript was harvested rather than
/// right after the write, so a match proves nothing about what the write left (unverified).
pub fn status(
    latest: Option<(&FileRecord, &str)>,
    harvested: bool,
    now: &Hashed,
) -> (FileStatus, String) {
    let Some((write, tool)) = latest else {
        return (
            FileStatus::Unverified,
            "no recorded step wrote it: a file you made, or one that was there before".into(),
        );
    };
    if write.change == "deleted" {
        return match now {
            Hashed::Missing => (
                FileStatus::Current,
                format!("{tool} deleted it, and it is still gone"),
            ),
            _ => (
                FileStatus::Stale,
                format!("{tool} deleted it, and it has been made again since"),
            ),
        };
    }
    let Some(recorded) = write.hash.as_deref() else {
        let why = if write.unhashed {
            "it was too large to hash"
        } else {
            "no hash was recorded"
        };
        return (
            FileStatus::Unverified,
            format!("{tool} wrote it last, but {why}"),
        );
    };
    match now {
        Hashed::Hash(h) if h == recorded && harvested => (
            FileStatus::Unverified,
            format!(
                "a subagent's {tool} wrote it last; the bytes match the hash taken when its work was harvested, not at the write"
            ),
        ),
        Hashed::Hash(h) if h == recorded => (
            FileStatus::Current,
            format!("the bytes on disk match the hash recorded when {tool} wrote it"),
        ),
        Hashed::Hash(_) => (
            FileStatus::Stale,
            format!("the bytes on disk differ from the hash recorded when {tool} wrote it"),
        ),
        Hashed::Missing => (
            FileStatus::Stale,
            format!("{tool} wrote it last, and it is gone now"),
        ),
        Hashed::TooLarge => (
            FileStatus::Unverified,
            "it is now too large to hash".to_owned(),
        ),
        Hashed::Unreadable(e) => (FileStatus::Unverified, format!("it cannot be read: {e}")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::provenance::steps::Role;
    use paddock_proto::FileEdge;

    fn write(hash: Option<&str>, change: &str) -> FileRecord {
        FileRecord {
            path: "a.txt".into(),
            role: Role::Write,
            edge: FileEdge::Observed,
            change: change.into(),
            hash: hash.map(str::to_owned),
            unhashed: false,
        }
    }

    #[test]
    fn hashes_are_sha256_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "abc").unwrap();
        assert_eq!(
            hash_file(&path, 1024),
            Hashed::Hash(
                "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".into()
            )
        );
        assert_eq!(hash_file(&path, 2), Hashed::TooLarge);
        assert_eq!(hash_file(&dir.path().join("nope"), 10), Hashed::Missing);
    }

    #[test]
    fn statuses_compare_the_bytes_now_with_the_latest_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "abc").unwrap();
        let now = hash_file(&path, 1024);
        let h = now.hash().unwrap().to_owned();

        let current = write(Some(&h), "wrote");
        assert_eq!(
            status(Some((&current, "Edit")), false, &now).0,
            FileStatus::Current
        );

        std::fs::write(&path, "abd").unwrap();
        let changed = hash_file(&path, 1024);
        assert_eq!(
            status(Some((&current, "Edit")), false, &changed).0,
            FileStatus::Stale
        );
        assert_eq!(
            status(Some((&current, "Edit")), false, &Hashed::Missing).0,
            FileStatus::Stale
        );

        let unhashed = write(None, "modified");
        assert_eq!(
            status(Some((&unhashed, "Bash")), false, &changed).0,
            FileStatus::Unverified
        );
        assert_eq!(status(None, false, &changed).0, FileStatus::Unverified);
        assert_eq!(
            status(
                Some((&current, "Edit")),
                false,
                &Hashed::Unreadable("denied".into())
            )
            .0,
            FileStatus::Unverified
        );

        let deleted = write(None, "deleted");
        assert_eq!(
            status(Some((&deleted, "Bash")), false, &Hashed::Missing).0,
            FileStatus::Current
        );
        assert_eq!(
            status(Some((&deleted, "Bash")), false, &changed).0,
            FileStatus::Stale
        );
    }

    #[test]
    fn a_harvested_write_whose_hash_matches_is_unverified_and_stale_once_it_differs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "abc").unwrap();
        let now = hash_file(&path, 1024);
        let harvested = write(Some(now.hash().unwrap()), "wrote");
        let (status_now, why) = status(Some((&harvested, "Write")), true, &now);
        assert_eq!(status_now, FileStatus::Unverified);
        assert!(why.contains("harvested"), "{why}");
        std::fs::write(&path, "abd").unwrap();
        let changed = hash_file(&path, 1024);
        assert_eq!(
            status(Some((&harvested, "Write")), true, &changed).0,
            FileStatus::Stale
        );
    }
}
