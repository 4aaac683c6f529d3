//! The versions store: a copy of the bytes each recorded write left, so `provenance:blame`
//! (`blame.rs`) can tell which lines each write changed.
//!
//! Content-addressed at `<meta dir>/.paddock/versions/<hex sha256>`, the same sha256 the step
//! records as `sha256:<hex>`, so a step finds its version by its hash and identical contents are
//! kept once. Only text is kept (no NUL byte) of at most [`MAX_VERSION_BYTES`]: the store grows
//! by at most 1 MiB per distinct content a chat wrote, never by the same content twice. Each
//! copy is written atomically (temp file, fsync, rename) and never rewritten.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::identity::{Hashed, hash_file};

/// The largest file whose bytes are kept.
pub const MAX_VERSION_BYTES: u64 = 1024 * 1024;

/// Where a project's kept versions live.
pub fn versions_dir(meta_dir: &Path) -> PathBuf {
    meta_dir.join(".paddock").join("versions")
}

/// The file a hash (`sha256:HEX` or `HEX`) is kept in; `None` for anything but 64 hex digits,
/// so a hash read from a steps file cannot walk out of the folder.
fn version_path(meta_dir: &Path, hash: &str) -> Option<PathBuf> {
    let hex = hash.strip_prefix("sha256:").unwrap_or(hash);
    (hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| versions_dir(meta_dir).join(hex.to_ascii_lowercase()))
}

/// `sha256:HEX` of some bytes, as [`hash_file`] gives it for a file.
pub fn hash_bytes(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(7 + 64);
    hex.push_str("sha256:");
    for b in digest {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// Whether bytes are kept: text (no NUL byte) of at most [`MAX_VERSION_BYTES`].
fn keepable(bytes: &[u8]) -> bool {
    bytes.len() as u64 <= MAX_VERSION_BYTES && !bytes.contains(&0)
}

/// Hashes the file a write left, as [`hash_file`] does, and keeps its bytes when they are
/// keepable: one read for a small file; a larger one is only hashed. Failing to keep them is
/// logged, never an error (the step is recorded all the same).
pub fn keep(meta_dir: &Path, path: &Path, max_hash_bytes: u64) -> Hashed {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Hashed::Missing,
        Err(e) => return Hashed::Unreadable(e.to_string()),
    };
    if !meta.is_file() {
        return Hashed::Missing;
    }
    if meta.len() > MAX_VERSION_BYTES || meta.len() > max_hash_bytes {
        return hash_file(path, max_hash_bytes);
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    let read = std::fs::File::open(path)
        .and_then(|f| f.take(MAX_VERSION_BYTES + 1).read_to_end(&mut bytes));
    match read {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Hashed::Missing,
        Err(e) => return Hashed::Unreadable(e.to_string()),
    }
    // It grew since the stat: hash it whole, and keep nothing.
    if bytes.len() as u64 > MAX_VERSION_BYTES || bytes.len() as u64 > max_hash_bytes {
        return hash_file(path, max_hash_bytes);
    }
    let hash = hash_bytes(&bytes);
    if keepable(&bytes)
        && let Err(e) = store(meta_dir, &hash, &bytes)
    {
        tracing::warn!(file = %path.display(), "cannot keep the version a write left: {e}");
    }
    Hashed::Hash(hash)
}

/// Stores bytes under their hash, unless they are there already.
fn store(meta_dir: &Path, hash: &str, bytes: &[u8]) -> std::io::Result<()> {
    let path = version_path(meta_dir, hash).ok_or_else(|| std::io::Error::other("bad hash"))?;
    if path.exists() {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::fsutil::write_atomic(&path, bytes)
}

/// The kept bytes of a hash (`sha256:HEX` or `HEX`); `None` when none were kept, or what is
/// there is not what the hash names.
pub fn load(meta_dir: &Path, hash: &str) -> Option<Vec<u8>> {
    let bytes = std::fs::read(version_path(meta_dir, hash)?).ok()?;
    let want = hash.strip_prefix("sha256:").unwrap_or(hash);
    let got = hash_bytes(&bytes);
    got.strip_prefix("sha256:")
        .is_some_and(|h| h.eq_ignore_ascii_case(want))
        .then_some(bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn a_small_text_write_is_hashed_like_hash_file_and_kept_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "one\ntwo\n").unwrap();
        let kept = keep(dir.path(), &file, 1024);
        assert_eq!(kept, hash_file(&file, 1024));
        let hash = kept.hash().unwrap();
        assert_eq!(load(dir.path(), hash).unwrap(), b"one\ntwo\n");
        // Again: nothing new is written.
        let entries = || std::fs::read_dir(versions_dir(dir.path())).unwrap().count();
        assert_eq!(entries(), 1);
        assert_eq!(keep(dir.path(), &file, 1024), kept);
        assert_eq!(entries(), 1);
        // The bare hex names it too; anything else names nothing.
        assert!(load(dir.path(), hash.strip_prefix("sha256:").unwrap()).is_some());
        assert!(load(dir.path(), "sha256:../../etc/passwd").is_none());
    }

    #[test]
    fn binary_large_and_missing_files_are_hashed_but_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("a.bin");
        std::fs::write(&bin, b"a\0b").unwrap();
        let kept = keep(dir.path(), &bin, 1024);
        assert_eq!(kept, hash_file(&bin, 1024));
        assert!(load(dir.path(), kept.hash().unwrap()).is_none());

        let big = dir.path().join("big.txt");
        let text = "x".repeat(usize::try_from(MAX_VERSION_BYTES).unwrap() + 1);
        std::fs::write(&big, &text).unwrap();
        let kept = keep(dir.path(), &big, u64::MAX);
        assert_eq!(kept, hash_file(&big, u64::MAX));
        assert!(load(dir.path(), kept.hash().unwrap()).is_none());
        assert_eq!(keep(dir.path(), &big, 10), Hashed::TooLarge);

        assert_eq!(
            keep(dir.path(), &dir.path().join("nope"), 10),
            Hashed::Missing
        );
        assert_eq!(keep(dir.path(), dir.path(), 10), Hashed::Missing);
    }

    #[test]
    fn a_kept_version_that_does_not_match_its_hash_is_not_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "abc").unwrap();
        let hash = keep(dir.path(), &file, 1024).hash().unwrap().to_owned();
        let stored = version_path(dir.path(), &hash).unwrap();
        std::fs::write(&stored, "tampered").unwrap();
        assert!(load(dir.path(), &hash).is_none());
    }
}
