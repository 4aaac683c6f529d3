//! Checks every store's tests share.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::StoreError;

/// Session ids from string literals.
pub(crate) fn ids<const N: usize>(sids: [&str; N]) -> Vec<String> {
    sids.iter().map(|s| (*s).to_owned()).collect()
}

/// The `NAME.corrupt-*` copies beside `name` in `dir`, sorted.
pub(crate) fn asides(dir: &Path, name: &str) -> Vec<PathBuf> {
    let prefix = format!("{name}.corrupt-");
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// No temp file is left in `dir`.
pub(crate) fn assert_clean_dir(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            !name.contains(".tmp-"),
            "a temp file was left behind: {name}"
        );
    }
}

/// `path` is a regular file only its owner can read or write.
pub(crate) fn assert_private(path: &Path) {
    let meta = std::fs::metadata(path).unwrap();
    assert!(meta.is_file(), "{} is not a file", path.display());
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o600,
        "{} is not 0600",
        path.display()
    );
}

/// The corruption contract, for one store: a file that is not JSON, and one that is JSON
/// of the wrong shape, each load as empty, are moved aside as `NAME.corrupt-<UTC time>`
/// with their bytes intact, and the next write creates a fresh private file without
/// touching the copy.
pub(crate) async fn check_corrupt_files_are_moved_aside<S, Fut>(
    file: &str,
    wrong_shape: &str,
    open: impl Fn(PathBuf) -> S,
    is_empty: impl Fn(&S) -> bool,
    write: impl Fn(S) -> Fut,
) where
    Fut: Future<Output = Result<(), StoreError>>,
{
    for bad in ["{\"half", wrong_shape] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(file);
        std::fs::write(&path, bad).unwrap();

        let store = open(path.clone());
        assert!(is_empty(&store), "{file}: {bad:?} did not load as empty");
        assert!(!path.exists(), "{file}: {bad:?} was left in place");
        let moved = asides(dir.path(), file);
        assert_eq!(moved.len(), 1, "{file}: {moved:?}");
        let suffix = moved[0]
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_start_matches(&format!("{file}.corrupt-"))
            .to_owned();
        assert!(
            chrono::NaiveDateTime::parse_from_str(&suffix, "%Y%m%dT%H%M%SZ").is_ok(),
            "{file}: aside suffix {suffix:?} is not a UTC time like 20261129T235959Z"
        );
        assert_eq!(std::fs::read(&moved[0]).unwrap(), bad.as_bytes());

        write(store).await.unwrap();
        assert_private(&path);
        assert_eq!(std::fs::read(&moved[0]).unwrap(), bad.as_bytes());
        assert_eq!(asides(dir.path(), file), moved);
        assert_clean_dir(dir.path());
        assert!(
            !is_empty(&open(path.clone())),
            "{file}: the fresh file did not reload"
        );
    }
}
