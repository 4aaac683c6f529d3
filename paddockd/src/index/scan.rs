//! Reading transcript files for the index: which files are chats, whether one changed, and
//! bringing an entry up to date by reading only what was appended since.

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::digest::Digest;
use crate::appended::{Appended, Mark};

/// What identifies one version of a file: if none of these changed, neither did the file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub size: u64,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i64,
    pub ino: u64,
    pub dev: u64,
}

impl Stamp {
    pub fn of(meta: &Metadata) -> Self {
        Stamp {
            size: meta.len(),
            mtime_ns: meta
                .mtime()
                .saturating_mul(1_000_000_000)
                .saturating_add(meta.mtime_nsec()),
            ino: meta.ino(),
            dev: meta.dev(),
        }
    }

    pub fn mtime_ms(&self) -> i64 {
        self.mtime_ns.div_euclid(1_000_000)
    }
}

/// One folder's entries by session id. Hashed with foldhash: loading, reconciling and listing
/// 10,000 chats hash each id several times, and SipHash's rounds on 36-byte ids cost more than
/// the rest of a lookup. (Ids are file names in the user's own folders, not input from others.)
pub type Chats = std::collections::HashMap<String, Entry, foldhash::fast::RandomState>;

/// One transcript in the index: the file version it was read at, and what it says.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub stamp: Stamp,
    /// FNV-1a of the last (up to) [`crate::appended::TAIL`] bytes before `digest.offset`.
    pub tail_hash: u64,
    /// Boxed: a digest is some 400 bytes inline, and the index's tables hold an entry per
    /// slot, a third of them empty (with 10,000 chats the table was 6.6 MB; boxed, 2 MB less
    /// resident in all).
    pub digest: Box<Digest>,
    /// Set by the index each time it puts the entry in place (never persisted; 0 as loaded):
    /// a chat whose version is the same has the same row (`chats/rows.rs`).
    #[serde(skip)]
    pub version: u64,
}

/// How [`scan`] brought an entry up to date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanKind {
    /// Same stamp: nothing read.
    Unchanged,
    /// Read from the stored offset.
    Continued,
    /// New, replaced, shrunk or rewritten: read from the start.
    Full,
}

#[derive(Debug)]
pub struct Scanned {
    pub entry: Entry,
    pub kind: ScanKind,
    pub bytes_read: u64,
}

/// The session id of a transcript file name, `<uuid>.jsonl`; `None` for anything else
/// (subagent folders, `.meta.json`, editor droppings).
pub fn session_id_of(name: &OsStr) -> Option<String> {
    let stem = name.to_str()?.strip_suffix(".jsonl")?;
    (stem.len() == 36 && uuid::Uuid::try_parse(stem).is_ok()).then(|| stem.to_owned())
}

/// The transcripts in `dir`: (session id, path). A missing folder has none.
pub fn list_folder(dir: &Path) -> io::Result<Vec<(String, PathBuf)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    Ok(entries
        .flatten()
        .filter_map(|e| Some((session_id_of(&e.file_name())?, e.path())))
        .collect())
}

/// Brings `base` up to date with the file at `path`: nothing read when its stamp is unchanged,
/// the appended lines when it grew, everything when it was replaced. `Ok(None)` if it is gone.
pub fn scan(path: &Path, base: Option<&Entry>) -> io::Result<Option<Scanned>> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(None);
    }
    let stamp = Stamp::of(&meta);
    if let Some(base) = base
        && base.stamp == stamp
    {
        return Ok(Some(Scanned {
            entry: base.clone(),
            kind: ScanKind::Unchanged,
            bytes_read: 0,
        }));
    }
    let mark = base.map(|b| Mark {
        offset: b.digest.offset,
        ino: b.stamp.ino,
        dev: b.stamp.dev,
        tail_hash: b.tail_hash,
    });
    let mut lines = Appended::new(file, &meta, mark.as_ref())?;
    let (mut digest, kind) = match base {
        Some(base) if lines.continued() => (base.digest.clone(), ScanKind::Continued),
        _ => (Box::default(), ScanKind::Full),
    };
    while let Some(line) = lines.next_line()? {
        digest.feed_line(line.strip_suffix(b"\n").unwrap_or(line));
    }
    let end = lines.mark();
    digest.offset = end.offset;
    Ok(Some(Scanned {
        entry: Entry {
            stamp,
            tail_hash: end.tail_hash,
            digest,
            version: 0,
        },
        kind,
        bytes_read: lines.bytes_read(),
    }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::appended::test_support::append;
    use std::io::Write;

    fn prompt(text: &str) -> String {
        format!("{{\"type\":\"user\",\"message\":{{\"content\":\"{text}\"}}}}\n")
    }

    #[test]
    fn names_of_chats() {
        assert!(session_id_of(OsStr::new("6f3cdd17-5e09-4be9-8abc-8cbd8d333102.jsonl")).is_some());
        assert!(session_id_of(OsStr::new("6f3cdd17-5e09-4be9-8abc-8cbd8d333102")).is_none());
        assert!(session_id_of(OsStr::new("agent-abb2fcc5ce70e42c4.jsonl")).is_none());
        assert!(session_id_of(OsStr::new("6f3cdd175e094be98abc8cbd8d333102.jsonl")).is_none());
    }

    #[test]
    fn partial_lines_wait_and_appends_continue_from_the_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        let first = prompt("one");
        append(&path, first.as_bytes());
        append(&path, b"{\"type\":\"user\",\"message\":{\"con");
        let s = scan(&path, None).unwrap().unwrap();
        assert_eq!(s.kind, ScanKind::Full);
        assert_eq!(s.entry.digest.offset, first.len() as u64);
        assert_eq!(s.entry.digest.prompts, 1);

        let again = scan(&path, Some(&s.entry)).unwrap().unwrap();
        assert_eq!(again.kind, ScanKind::Unchanged);

        append(&path, b"tent\":\"two\"}}\n");
        let s2 = scan(&path, Some(&s.entry)).unwrap().unwrap();
        assert_eq!(s2.kind, ScanKind::Continued);
        assert_eq!(s2.entry.digest.prompts, 2);
        assert_eq!(
            s2.entry.digest.offset,
            std::fs::metadata(&path).unwrap().len()
        );
        assert_eq!(s2.entry, scan(&path, None).unwrap().unwrap().entry);
    }

    #[test]
    fn rewritten_replaced_and_shrunk_files_are_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        append(&path, prompt("aaaa").as_bytes());
        let base = scan(&path, None).unwrap().unwrap().entry;

        // Same inode, rewritten longer: the tail check catches it.
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all(prompt("bbbb").as_bytes()).unwrap();
        f.write_all(prompt("cccc").as_bytes()).unwrap();
        drop(f);
        let s = scan(&path, Some(&base)).unwrap().unwrap();
        assert_eq!(s.kind, ScanKind::Full);
        assert_eq!(s.entry.digest.first_prompt.as_deref(), Some("bbbb"));

        // Shrunk.
        std::fs::write(&path, prompt("d")).unwrap();
        let s2 = scan(&path, Some(&s.entry)).unwrap().unwrap();
        assert_eq!((s2.kind, s2.entry.digest.prompts), (ScanKind::Full, 1));

        // Replaced by another file (new inode), longer.
        let other = dir.path().join("b.jsonl");
        std::fs::write(&other, prompt("e").repeat(3)).unwrap();
        std::fs::rename(&other, &path).unwrap();
        let s3 = scan(&path, Some(&s2.entry)).unwrap().unwrap();
        assert_eq!((s3.kind, s3.entry.digest.prompts), (ScanKind::Full, 3));

        std::fs::remove_file(&path).unwrap();
        assert!(scan(&path, Some(&s3.entry)).unwrap().is_none());
    }
}
