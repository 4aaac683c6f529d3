//! Reading only what was appended to a file since the last read: the chat index
//! (`index/scan.rs`) and the search index (`search/reader.rs`) both follow transcripts so.
//!
//! A read leaves a [`Mark`]: the offset just past the last complete line, the file's inode
//! and device, and a hash of the bytes before the offset. The next read continues from the
//! mark only when it is the same file, at least as long, and those bytes are still there;
//! a file replaced, shrunk or rewritten in place is read again from the start. A last line
//! without its newline is still being written: it is left for the next read.

use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;

/// How many bytes before the mark are checked before continuing from it, so a file
/// rewritten in place (same inode, now longer) is read again instead of continued
/// mid-garbage.
pub const TAIL: usize = 64;

/// Where a read stopped, and in which file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mark {
    /// Bytes consumed: just past a `'\n'` (or 0).
    pub offset: u64,
    pub ino: u64,
    pub dev: u64,
    /// FNV-1a of the (up to) [`TAIL`] bytes before `offset`.
    pub tail_hash: u64,
}

/// Bytes read from the file at a time (a longer line grows the buffer to hold it).
const CHUNK: usize = 64 * 1024;

/// The complete lines of a file past a [`Mark`] (or all of them), one at a time. Lines are
/// found in the read buffer itself and handed out from it: nothing is copied per line.
pub struct Appended {
    file: File,
    continued: bool,
    offset: u64,
    ino: u64,
    dev: u64,
    tail: Vec<u8>,
    /// What was read and not handed out yet is `buf[start..end]`; the rest of `buf` is room.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    bytes_read: u64,
    ended: bool,
}

impl Appended {
    /// Positioned after `base` when the file (`meta` is its metadata) is the one `base` read
    /// and still holds what it read; at the start otherwise.
    pub fn new(file: File, meta: &Metadata, base: Option<&Mark>) -> io::Result<Self> {
        let (ino, dev, size) = (meta.ino(), meta.dev(), meta.len());
        let mut file = file;
        let mut tail = Vec::with_capacity(TAIL);
        let continued = match base {
            Some(b) if (b.ino, b.dev) == (ino, dev) && size >= b.offset => {
                same_tail(&mut file, b, &mut tail)?
            }
            _ => false,
        };
        let offset = match base {
            Some(b) if continued => b.offset,
            _ => {
                file.seek(SeekFrom::Start(0))?;
                tail.clear();
                0
            }
        };
        // What is left of the file, read in one go when it is small (most transcripts are).
        let left = usize::try_from(size.saturating_sub(offset)).unwrap_or(CHUNK);
        Ok(Self {
            file,
            continued,
            offset,
            ino,
            dev,
            tail,
            buf: vec![0; left.clamp(CHUNK / 4, 4 * CHUNK) + 1],
            start: 0,
            end: 0,
            bytes_read: 0,
            ended: false,
        })
    }

    /// Whether this read goes on from the mark (rather than from the start).
    pub fn continued(&self) -> bool {
        self.continued
    }

    /// The next complete line, its newline included; `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<&[u8]>> {
        if self.ended {
            return Ok(None);
        }
        let mut searched = self.start;
        let end = loop {
            if let Some(nl) = memchr::memchr(b'\n', &self.buf[searched..self.end]) {
                break searched + nl + 1;
            }
            searched = self.end;
            let moved = self.start;
            if !self.fill()? {
                // A last line without its newline is still being written.
                self.ended = true;
                return Ok(None);
            }
            searched -= moved;
        };
        let line = &self.buf[self.start..end];
        self.start = end;
        self.offset += line.len() as u64;
        push_tail(&mut self.tail, line);
        Ok(Some(line))
    }

    /// Reads more of the file after what is in the buffer, first moving the unread part to
    /// its front (and growing the buffer when that part fills most of it); false at the end
    /// of the file.
    fn fill(&mut self) -> io::Result<bool> {
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.buf.len() - self.end < CHUNK / 4 {
            self.buf.resize(self.buf.len() + CHUNK, 0);
        }
        let n = loop {
            match self.file.read(&mut self.buf[self.end..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        self.end += n;
        self.bytes_read += n as u64;
        Ok(n > 0)
    }

    /// Bytes read from the file so far (a partial last line included).
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Where this read has got to.
    pub fn mark(&self) -> Mark {
        Mark {
            offset: self.offset,
            ino: self.ino,
            dev: self.dev,
            tail_hash: fnv1a(&self.tail),
        }
    }
}

/// Positions `reader` at `base`'s offset if the bytes before it are the ones it consumed.
fn same_tail(reader: &mut File, base: &Mark, tail: &mut Vec<u8>) -> io::Result<bool> {
    let k = base.offset.min(TAIL as u64);
    reader.seek(SeekFrom::Start(base.offset - k))?;
    tail.resize(usize::try_from(k).unwrap_or(TAIL), 0);
    match reader.read_exact(tail) {
        Ok(()) => Ok(fnv1a(tail) == base.tail_hash),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

fn push_tail(tail: &mut Vec<u8>, line: &[u8]) {
    if line.len() >= TAIL {
        tail.clear();
        tail.extend_from_slice(&line[line.len() - TAIL..]);
    } else {
        tail.extend_from_slice(line);
        let excess = tail.len().saturating_sub(TAIL);
        tail.drain(..excess);
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// For the tests of the readers built on this.
#[cfg(test)]
pub(crate) mod test_support {
    #![allow(clippy::unwrap_used)]
    use std::io::Write;
    use std::path::Path;

    /// Appends `bytes` to the file at `path`, creating it.
    pub fn append(path: &Path, bytes: &[u8]) {
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .unwrap()
            .write_all(bytes)
            .unwrap();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::test_support::append;
    use super::*;
    use std::path::Path;

    /// The lines read past `base`, whether it continued, and the new mark.
    fn read(path: &Path, base: Option<&Mark>) -> (Vec<String>, bool, Mark) {
        let file = File::open(path).unwrap();
        let meta = file.metadata().unwrap();
        let mut a = Appended::new(file, &meta, base).unwrap();
        let mut lines = Vec::new();
        while let Some(line) = a.next_line().unwrap() {
            lines.push(String::from_utf8_lossy(line).into_owned());
        }
        (lines, a.continued(), a.mark())
    }

    #[test]
    fn only_complete_appended_lines_are_read_and_a_rewrite_starts_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        append(&path, b"one\ntwo\nthr");
        let (lines, continued, mark) = read(&path, None);
        assert_eq!(lines, ["one\n", "two\n"]);
        assert!(!continued);
        assert_eq!(mark.offset, 8);

        append(&path, b"ee\n");
        let (lines, continued, mark) = read(&path, Some(&mark));
        assert_eq!(lines, ["three\n"]);
        assert!(continued);

        // Rewritten in place with other bytes before the mark: read again from the start.
        std::fs::write(&path, b"ONE\nTWO\nTHREE\nfour\n").unwrap();
        let (lines, continued, _) = read(&path, Some(&mark));
        assert_eq!(lines, ["ONE\n", "TWO\n", "THREE\n", "four\n"]);
        assert!(!continued);

        // Shrunk below the mark: from the start.
        std::fs::write(&path, b"x\n").unwrap();
        let (lines, continued, _) = read(&path, Some(&mark));
        assert_eq!(lines, ["x\n"]);
        assert!(!continued);
    }

    #[test]
    fn a_line_longer_than_the_tail_is_checked_by_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let long = format!("{}\n", "a".repeat(TAIL * 3));
        append(&path, long.as_bytes());
        let (_, _, mark) = read(&path, None);
        append(&path, b"next\n");
        let (lines, continued, _) = read(&path, Some(&mark));
        assert!(continued);
        assert_eq!(lines, ["next\n"]);
    }
}
