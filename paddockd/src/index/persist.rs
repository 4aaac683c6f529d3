//! The chat index on disk: one JSON file, written atomically, carrying a format version.
//!
//! A file of another version, or one that does not parse, is ignored as a whole: every folder
//! is then parsed again when it is watched. **Bump [`INDEX_VERSION`] whenever what a
//! [`Digest`](super::digest::Digest) derives from a transcript changes**, or stale derived
//! fields would be kept for every unchanged file.

use std::collections::HashMap;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::scan::Entry;

pub const INDEX_VERSION: u32 = 3;

/// Entries per folder, per session id.
pub type Folders = HashMap<PathBuf, HashMap<String, Entry>>;

/// What was found at the index's path.
#[derive(Debug)]
pub enum Loaded {
    Entries(Folders),
    Missing,
    Unreadable(String),
    OtherVersion(Option<u32>),
}

#[derive(Serialize)]
struct FileRef<'a> {
    version: u32,
    folders: Vec<FolderRef<'a>>,
}

#[derive(Serialize)]
struct FolderRef<'a> {
    folder: &'a str,
    chats: &'a HashMap<String, Entry>,
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
    chats: HashMap<String, Entry>,
}

/// Reads the index file.
pub fn load(path: &Path) -> Loaded {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Loaded::Missing,
        Err(e) => return Loaded::Unreadable(e.to_string()),
    };
    match version_of(&bytes) {
        Ok(Some(INDEX_VERSION)) => {}
        Ok(version) => return Loaded::OtherVersion(version),
        Err(e) => return Loaded::Unreadable(e),
    }
    match serde_json::from_slice::<FileOwned>(&bytes) {
        Ok(file) => Loaded::Entries(
            file.folders
                .into_iter()
                .map(|f| (f.folder, f.chats))
                .collect(),
        ),
        Err(e) => Loaded::Unreadable(e.to_string()),
    }
}

/// The file's format version. [`encode`] writes it first, where it is read without a pass over
/// the whole file (14 MB with 10,000 chats: 8 ms); a file in another shape is read whole.
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

/// Serialises folders to the file format. Folders whose path is not UTF-8 are left out (JSON
/// cannot hold them); they are parsed again after a restart.
pub fn encode<'a>(
    folders: impl Iterator<Item = (&'a Path, &'a HashMap<String, Entry>)>,
) -> serde_json::Result<Vec<u8>> {
    let folders = folders
        .filter_map(|(folder, chats)| {
            Some(FolderRef {
                folder: folder.to_str()?,
                chats,
            })
        })
        .collect();
    serde_json::to_vec(&FileRef {
        version: INDEX_VERSION,
        folders,
    })
}

/// Writes the file atomically, owner-only: it holds the first prompt of every chat.
pub fn save(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
        && !dir.exists()
    {
        crate::fsutil::create_private_dir(dir)?;
    }
    crate::fsutil::write_atomic(path, bytes)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
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

    #[test]
    fn round_trip_and_refusals() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/chat-index.json");
        assert!(matches!(load(&path), Loaded::Missing));

        let mut chats = HashMap::new();
        let mut entry = Entry::default();
        entry
            .digest
            .feed(b"{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n");
        chats.insert("s1".to_owned(), entry);
        let folder = PathBuf::from("/x/y");
        save(
            &path,
            &encode(std::iter::once((folder.as_path(), &chats))).unwrap(),
        )
        .unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        match load(&path) {
            Loaded::Entries(f) => assert_eq!(f.get(&folder), Some(&chats)),
            other => panic!("{other:?}"),
        }

        std::fs::write(&path, b"{\"version\":999,\"folders\":\"whatever\"}").unwrap();
        assert!(matches!(load(&path), Loaded::OtherVersion(Some(999))));
        std::fs::write(&path, b"{\"vers").unwrap();
        assert!(matches!(load(&path), Loaded::Unreadable(_)));
        std::fs::write(
            &path,
            format!("{{\"version\":{INDEX_VERSION},\"folders\":7}}"),
        )
        .unwrap();
        assert!(matches!(load(&path), Loaded::Unreadable(_)));
    }
}
