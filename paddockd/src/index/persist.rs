//! The chat index on disk: one binary file (`codec.rs`), written atomically, carrying a format
//! version.
//!
//! A file of another version, or one that does not decode, is ignored as a whole: every folder
//! is then parsed again when it is watched. **Bump [`INDEX_VERSION`] whenever what a
//! [`Digest`](super::digest::Digest) derives from a transcript changes**, or stale derived
//! fields would be kept for every unchanged file.
//!
//! Releases before the binary file kept the index as JSON (`chat-index.json`, version 3, the
//! same fields): when the binary file is missing, that one is read instead, so an upgrade
//! parses no transcript again; the next write replaces it.

use std::collections::HashMap;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::codec;
use super::scan::Chats;

pub const INDEX_VERSION: u32 = 4;

/// The version of the JSON file of earlier releases, and its name beside the binary one.
const JSON_VERSION: u32 = 3;
const JSON_FILE: &str = "chat-index.json";

/// Entries per folder, per session id.
pub type Folders = HashMap<PathBuf, Chats>;

/// What was found at the index's path.
#[derive(Debug)]
pub enum Loaded {
    /// `from_json`: read from an earlier release's JSON file, to be written again in the
    /// binary format.
    Entries {
        folders: Folders,
        from_json: bool,
    },
    Missing,
    Unreadable(String),
    OtherVersion(Option<u32>),
}

#[derive(Deserialize)]
struct VersionOnly {
    version: Option<u32>,
}

#[derive(Deserialize)]
struct FileOwned {
    folders: Vec<FolderOwned>,
}

#[derive(Deserialize)]
struct FolderOwned {
    folder: PathBuf,
    chats: Chats,
}

/// Reads the index file, or, when it is missing, an earlier release's JSON file beside it.
pub fn load(path: &Path) -> Loaded {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return load_json(&json_path(path)),
        Err(e) => return Loaded::Unreadable(e.to_string()),
    };
    match codec::version_of(&bytes) {
        Ok(INDEX_VERSION) => {}
        Ok(version) => return Loaded::OtherVersion(Some(version)),
        Err(e) => return Loaded::Unreadable(e.to_string()),
    }
    match codec::decode(&bytes) {
        Ok(folders) => Loaded::Entries {
            folders,
            from_json: false,
        },
        Err(e) => Loaded::Unreadable(e.to_string()),
    }
}

/// Where an earlier release kept the index: `chat-index.json` beside `path`.
fn json_path(path: &Path) -> PathBuf {
    path.with_file_name(JSON_FILE)
}

/// Reads an earlier release's JSON index file.
fn load_json(path: &Path) -> Loaded {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Loaded::Missing,
        Err(e) => return Loaded::Unreadable(e.to_string()),
    };
    match version_of(&bytes) {
        Ok(Some(JSON_VERSION)) => {}
        Ok(version) => return Loaded::OtherVersion(version),
        Err(e) => return Loaded::Unreadable(e),
    }
    match serde_json::from_slice::<FileOwned>(&bytes) {
        Ok(file) => Loaded::Entries {
            folders: file
                .folders
                .into_iter()
                .map(|f| (f.folder, f.chats))
                .collect(),
            from_json: true,
        },
        Err(e) => Loaded::Unreadable(e.to_string()),
    }
}

/// The JSON file's format version, read from its prefix where the earlier releases wrote
/// it, else from a pass over the whole file.
fn version_of(bytes: &[u8]) -> Result<Option<u32>, String> {
    if let Some(rest) = bytes.strip_prefix(b"{\"version\":") {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if let (Some(b','), Some(version)) = (
            rest.get(digits),
            std::str::from_utf8(rest.get(..digits).unwrap_or_default())
                .ok()
                .and_then(|d| d.parse().ok()),
        ) {
            return Ok(Some(version));
        }
    }
    serde_json::from_slice::<VersionOnly>(bytes)
        .map(|v| v.version)
        .map_err(|e| e.to_string())
}

/// Serialises folders to the file format (`codec.rs`).
pub fn encode<'a>(folders: impl Iterator<Item = (&'a Path, &'a Chats)>) -> Vec<u8> {
    codec::encode(INDEX_VERSION, folders)
}

/// Writes the file atomically, owner-only: it holds the first prompt of every chat. An
/// earlier release's JSON file beside it, read at start, goes.
pub fn save(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
        && !dir.exists()
    {
        crate::fsutil::create_private_dir(dir)?;
    }
    crate::fsutil::write_atomic(path, bytes)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    match std::fs::remove_file(json_path(path)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn the_version_is_read_where_it_is_written_and_anywhere_else() {
        assert_eq!(version_of(b"{\"version\":3,\"folders\":[]}"), Ok(Some(3)));
        assert_eq!(version_of(b"{\"folders\":[], \"version\": 2}"), Ok(Some(2)));
        assert_eq!(
            version_of(b"{\"version\":12345678901234,\"folders\":[]}").ok(),
            None
        );
        assert_eq!(version_of(b"{\"folders\":[]}"), Ok(None));
        assert!(version_of(b"{\"version\":3").is_err());
        assert!(version_of(b"not json").is_err());
    }

    fn chats() -> Chats {
        let mut entry = super::super::scan::Entry::default();
        entry
            .digest
            .feed(b"{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n");
        Chats::from_iter([("s1".to_owned(), entry)])
    }

    #[test]
    fn round_trip_and_refusals() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/chat-index.bin");
        assert!(matches!(load(&path), Loaded::Missing));

        let chats = chats();
        let folder = PathBuf::from("/x/y");
        save(&path, &encode(std::iter::once((folder.as_path(), &chats)))).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        match load(&path) {
            Loaded::Entries {
                folders,
                from_json: false,
            } => assert_eq!(folders.get(&folder), Some(&chats)),
            other => panic!("{other:?}"),
        }

        let other = codec::encode(999, std::iter::once((folder.as_path(), &chats)));
        std::fs::write(&path, other).unwrap();
        assert!(matches!(load(&path), Loaded::OtherVersion(Some(999))));
        std::fs::write(&path, b"{\"version\":4}").unwrap();
        assert!(matches!(load(&path), Loaded::Unreadable(_)));
        let mut cut = encode(std::iter::once((folder.as_path(), &chats)));
        cut.truncate(cut.len() - 3);
        std::fs::write(&path, cut).unwrap();
        assert!(matches!(load(&path), Loaded::Unreadable(e) if e.contains("ends in the middle")));
    }

    /// An upgrade from a release that kept the index as JSON: that file is read (no transcript
    /// parsed again), and goes once the binary file is written.
    #[test]
    fn an_earlier_releases_json_file_is_read_then_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("chat-index.bin");
        let json = dir.path().join("chat-index.json");
        let chats = chats();
        let v3 = serde_json::json!({"version": 3, "folders": [{"folder": "/x/y", "chats": chats}]});
        std::fs::write(&json, serde_json::to_vec(&v3).unwrap()).unwrap();
        match load(&path) {
            Loaded::Entries {
                folders,
                from_json: true,
            } => assert_eq!(folders.get(Path::new("/x/y")), Some(&chats)),
            other => panic!("{other:?}"),
        }
        save(&path, &encode(std::iter::once((Path::new("/x/y"), &chats)))).unwrap();
        assert!(!json.exists(), "the JSON file is gone");
        assert!(matches!(
            load(&path),
            Loaded::Entries {
                from_json: false,
                ..
            }
        ));

        std::fs::remove_file(&path).unwrap();
        std::fs::write(&json, b"{\"version\":2,\"folders\":[]}").unwrap();
        assert!(matches!(load(&path), Loaded::OtherVersion(Some(2))));
        std::fs::write(&json, b"{\"vers").unwrap();
        assert!(matches!(load(&path), Loaded::Unreadable(_)));
        std::fs::write(&json, b"{\"version\":3,\"folders\":7}").unwrap();
        assert!(matches!(load(&path), Loaded::Unreadable(_)));
    }
}
