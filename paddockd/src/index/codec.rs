//! The index file's binary encoding: what [`super::persist`] writes and reads.
//!
//! The file is a cache of what the transcripts say, read whole at every start before the
//! first listing can be answered, so it is read by copying bytes, not by parsing text: with
//! 10,000 chats the JSON it replaced (14 MB) took some 25 ms to parse; this takes a few.
//!
//! Layout, every integer little-endian:
//!
//! ```text
//! file    = MAGIC  version:u32  folders:u32  folder*
//! folder  = path:bytes  chats:u32  (session_id:str  entry)*
//! entry   = size:u64 mtime_ns:i64 ino:u64 dev:u64  tail_hash:u64  digest
//! digest  = offset:u64  custom_title:opt<str>  first_prompt:opt<str>  last_reply:opt<str>
//!           created_at:opt<str>  last_record_at:opt<str>  last_record_ms:opt<i64>
//!           first_model:opt<str>  last_model:opt<str>  prompts:u64  assistant_messages:u64
//!           context_tokens:u64  context_limit:u64  finished:u32 (model:str tokens)*
//!           current:opt<(id:opt<str> model:str tokens)>
//! tokens  = input:u64 output:u64 cache_read:u64 cache_creation:u64
//! bytes   = len:u32 byte*        str = bytes, UTF-8        opt<T> = 0 | 1 T
//! ```
//!
//! A folder's path is its bytes as the system has them (not necessarily UTF-8). Decoding
//! checks every length against what is left and every string's UTF-8, and fails on anything
//! else (a file cut short, bytes past the end): never a panic, never an allocation larger
//! than the file. The encoder destructures each struct whole, so a field added to one does
//! not compile until it is written here too (and [`super::persist::INDEX_VERSION`] bumped).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::PathBuf;

use super::digest::{CurrentMessage, Digest, PerModel};
use super::persist::Folders;
use super::pricing::Tokens;
use super::scan::{Chats, Entry, Stamp};

/// What a binary index file starts with.
pub const MAGIC: &[u8; 8] = b"PDKIDX\0\n";

/// Why a file could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("the file ends in the middle of {0}")]
    Short(&'static str),
    #[error("{0} is not UTF-8")]
    NotUtf8(&'static str),
    #[error("a marker byte of {0} is neither 0 nor 1")]
    BadMarker(&'static str),
    #[error("{0} bytes follow the last folder")]
    Trailing(usize),
    #[error("not an index file (no {MAGIC:?} at its start)")]
    NoMagic,
}

/// The version a file says it has, from its first bytes.
pub fn version_of(bytes: &[u8]) -> Result<u32, DecodeError> {
    let rest = bytes.strip_prefix(MAGIC).ok_or(DecodeError::NoMagic)?;
    Reader { bytes: rest }.u32("the version")
}

/// The whole file: [`MAGIC`], `version`, then every folder's entries.
pub fn encode<'a>(
    version: u32,
    folders: impl Iterator<Item = (&'a std::path::Path, &'a Chats)>,
) -> Vec<u8> {
    let folders: Vec<_> = folders.collect();
    let chats: usize = folders.iter().map(|(_, c)| c.len()).sum();
    // About what an entry takes with a first prompt of a few hundred bytes.
    let mut w = Writer(Vec::with_capacity(64 + chats * 768));
    w.0.extend_from_slice(MAGIC);
    w.u32(version);
    w.len(folders.len());
    for (folder, chats) in folders {
        w.bytes(folder.as_os_str().as_bytes());
        w.len(chats.len());
        for (sid, entry) in chats {
            w.bytes(sid.as_bytes());
            w.entry(entry);
        }
    }
    w.0
}

/// Every folder's entries of a file [`encode`] wrote (its version already checked).
pub fn decode(bytes: &[u8]) -> Result<Folders, DecodeError> {
    let rest = bytes.strip_prefix(MAGIC).ok_or(DecodeError::NoMagic)?;
    let mut r = Reader { bytes: rest };
    r.u32("the version")?;
    let n = r.count("the folder count", 8)?;
    let mut folders = Folders::with_capacity(n);
    for _ in 0..n {
        let folder = PathBuf::from(OsStr::from_bytes(r.bytes("a folder")?));
        // An entry takes well over 100 bytes.
        let chats = r.count("a chat count", 100)?;
        let mut entries = Chats::with_capacity_and_hasher(chats, Default::default());
        for _ in 0..chats {
            let sid = r.string("a session id")?;
            entries.insert(sid, r.entry()?);
        }
        folders.insert(folder, entries);
    }
    match r.bytes.len() {
        0 => Ok(folders),
        left => Err(DecodeError::Trailing(left)),
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    /// A count; one past `u32::MAX` cannot happen (no such file is read back whole).
    fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }

    /// Bytes with their length; longer than 4 GiB they are cut there.
    fn bytes(&mut self, b: &[u8]) {
        let b = b.get(..u32::MAX as usize).unwrap_or(b);
        self.len(b.len());
        self.0.extend_from_slice(b);
    }

    fn opt_str(&mut self, s: Option<&String>) {
        match s {
            None => self.0.push(0),
            Some(s) => {
                self.0.push(1);
                self.bytes(s.as_bytes());
            }
        }
    }

    fn tokens(&mut self, t: &Tokens) {
        let Tokens {
            input,
            output,
            cache_read,
            cache_creation,
        } = *t;
        for v in [input, output, cache_read, cache_creation] {
            self.u64(v);
        }
    }

    fn entry(&mut self, e: &Entry) {
        let Entry {
            stamp,
            tail_hash,
            digest,
            // Never persisted: set each time the index puts the entry in place.
            version: _,
        } = e;
        let Stamp {
            size,
            mtime_ns,
            ino,
            dev,
        } = *stamp;
        self.u64(size);
        self.i64(mtime_ns);
        self.u64(ino);
        self.u64(dev);
        self.u64(*tail_hash);
        let Digest {
            offset,
            custom_title,
            first_prompt,
            last_reply,
            created_at,
            last_record_at,
            last_record_ms,
            first_model,
            last_model,
            prompts,
            assistant_messages,
            context_tokens,
            context_limit,
            finished,
            current,
        } = &**digest;
        self.u64(*offset);
        for s in [
            custom_title,
            first_prompt,
            last_reply,
            created_at,
            last_record_at,
        ] {
            self.opt_str(s.as_ref());
        }
        match last_record_ms {
            None => self.0.push(0),
            Some(ms) => {
                self.0.push(1);
                self.i64(*ms);
            }
        }
        self.opt_str(first_model.as_ref());
        self.opt_str(last_model.as_ref());
        for v in [prompts, assistant_messages, context_tokens, context_limit] {
            self.u64(*v);
        }
        self.len(finished.iter().count());
        for (model, tokens) in finished.iter() {
            self.bytes(model.as_bytes());
            self.tokens(tokens);
        }
        match current {
            None => self.0.push(0),
            Some(CurrentMessage { id, model, tokens }) => {
                self.0.push(1);
                self.opt_str(id.as_ref());
                self.bytes(model.as_bytes());
                self.tokens(tokens);
            }
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], DecodeError> {
        let (head, rest) = self
            .bytes
            .split_first_chunk::<N>()
            .ok_or(DecodeError::Short(what))?;
        self.bytes = rest;
        Ok(*head)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        self.take::<4>(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        self.take::<8>(what).map(u64::from_le_bytes)
    }

    fn i64(&mut self, what: &'static str) -> Result<i64, DecodeError> {
        self.take::<8>(what).map(i64::from_le_bytes)
    }

    /// A count of items each at least `least` bytes long: one the rest of the file cannot
    /// hold is a file cut short (and no room is reserved for it).
    fn count(&mut self, what: &'static str, least: usize) -> Result<usize, DecodeError> {
        let n = self.u32(what)? as usize;
        if n.saturating_mul(least) > self.bytes.len() {
            return Err(DecodeError::Short(what));
        }
        Ok(n)
    }

    fn bytes(&mut self, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let n = self.u32(what)? as usize;
        if n > self.bytes.len() {
            return Err(DecodeError::Short(what));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn string(&mut self, what: &'static str) -> Result<String, DecodeError> {
        std::str::from_utf8(self.bytes(what)?)
            .map(str::to_owned)
            .map_err(|_| DecodeError::NotUtf8(what))
    }

    /// Whether an optional value follows.
    fn marker(&mut self, what: &'static str) -> Result<bool, DecodeError> {
        match self.take::<1>(what)? {
            [0] => Ok(false),
            [1] => Ok(true),
            _ => Err(DecodeError::BadMarker(what)),
        }
    }

    fn opt_str(&mut self, what: &'static str) -> Result<Option<String>, DecodeError> {
        if self.marker(what)? {
            self.string(what).map(Some)
        } else {
            Ok(None)
        }
    }

    fn tokens(&mut self) -> Result<Tokens, DecodeError> {
        Ok(Tokens {
            input: self.u64("token counts")?,
            output: self.u64("token counts")?,
            cache_read: self.u64("token counts")?,
            cache_creation: self.u64("token counts")?,
        })
    }

    fn entry(&mut self) -> Result<Entry, DecodeError> {
        let stamp = Stamp {
            size: self.u64("a stamp")?,
            mtime_ns: self.i64("a stamp")?,
            ino: self.u64("a stamp")?,
            dev: self.u64("a stamp")?,
        };
        let tail_hash = self.u64("a tail hash")?;
        let offset = self.u64("an offset")?;
        let custom_title = self.opt_str("a custom title")?;
        let first_prompt = self.opt_str("a first prompt")?;
        let last_reply = self.opt_str("a last reply")?;
        let created_at = self.opt_str("a creation time")?;
        let last_record_at = self.opt_str("a last record time")?;
        let last_record_ms = if self.marker("a last record time")? {
            Some(self.i64("a last record time")?)
        } else {
            None
        };
        let first_model = self.opt_str("a model")?;
        let last_model = self.opt_str("a model")?;
        let prompts = self.u64("a count of prompts")?;
        let assistant_messages = self.u64("a count of replies")?;
        let context_tokens = self.u64("a context size")?;
        let context_limit = self.u64("a context limit")?;
        let models = self.count("token totals", 36)?;
        let mut finished = Vec::with_capacity(models);
        for _ in 0..models {
            finished.push((self.string("a model")?, self.tokens()?));
        }
        let current = if self.marker("the current message")? {
            Some(CurrentMessage {
                id: self.opt_str("a message id")?,
                model: self.string("a model")?,
                tokens: self.tokens()?,
            })
        } else {
            None
        };
        Ok(Entry {
            stamp,
            tail_hash,
            digest: Box::new(Digest {
                offset,
                custom_title,
                first_prompt,
                last_reply,
                created_at,
                last_record_at,
                last_record_ms,
                first_model,
                last_model,
                prompts,
                assistant_messages,
                context_tokens,
                context_limit,
                finished: PerModel::from_list(finished),
                current,
            }),
            version: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::path::Path;

    use super::*;

    /// An entry with every field set, strings with quotes, newlines and non-ASCII.
    fn full_entry() -> Entry {
        let tokens = |n: u64| Tokens {
            input: n,
            output: n + 1,
            cache_read: n + 2,
            cache_creation: n + 3,
        };
        let mut finished = PerModel::default();
        finished.add("claude-sonnet-4-5".into(), &tokens(10));
        finished.add("claude-haiku-4-5".into(), &tokens(20));
        Entry {
            stamp: Stamp {
                size: 111_850,
                mtime_ns: -5,
                ino: u64::MAX,
                dev: 65_024,
            },
            tail_hash: 1_462_334_151_435_525_642,
            digest: Box::new(Digest {
                offset: 111_850,
                custom_title: Some("my \"chat\"".into()),
                first_prompt: Some("look at the parser\n{module} — é 🦀".into()),
                last_reply: Some("Done.".into()),
                created_at: Some("2025-11-25T04:05:01.500Z".into()),
                last_record_at: Some("2025-11-25T04:05:37.500Z".into()),
                last_record_ms: Some(1_764_043_537_500),
                first_model: Some("claude-sonnet-4-5".into()),
                last_model: Some("claude-haiku-4-5".into()),
                prompts: 3,
                assistant_messages: 8,
                context_tokens: 41_202,
                context_limit: 200_000,
                finished,
                current: Some(CurrentMessage {
                    id: Some("msg_1".into()),
                    model: "claude-haiku-4-5".into(),
                    tokens: tokens(30),
                }),
            }),
            version: 0,
        }
    }

    fn sample() -> Folders {
        let mut a = Chats::default();
        a.insert("s1".to_owned(), full_entry());
        a.insert("s2".to_owned(), Entry::default());
        let mut folders = Folders::new();
        folders.insert(PathBuf::from("/home/ana/web"), a);
        folders.insert(
            PathBuf::from(OsStr::from_bytes(b"/tmp/not-utf8-\xff")),
            Chats::default(),
        );
        folders
    }

    fn encoded(folders: &Folders) -> Vec<u8> {
        encode(7, folders.iter().map(|(f, c)| (f.as_path(), c)))
    }

    #[test]
    fn every_field_and_every_folder_comes_back() {
        let folders = sample();
        let bytes = encoded(&folders);
        assert_eq!(version_of(&bytes), Ok(7));
        assert_eq!(decode(&bytes).unwrap(), folders);
    }

    #[test]
    fn a_file_cut_anywhere_or_with_more_after_it_is_refused() {
        let bytes = encoded(&sample());
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer), Err(DecodeError::Trailing(1)));
        assert_eq!(decode(b"{\"version\":3}"), Err(DecodeError::NoMagic));
    }

    #[test]
    fn corrupt_lengths_markers_and_text_are_refused_without_a_panic() {
        let folders = sample();
        let bytes = encoded(&folders);
        // Every byte flipped in turn: an error or some other value, never a panic.
        for at in MAGIC.len()..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0xff;
            let _ = decode(&bad);
        }
        // A huge count is a short file, not a huge allocation.
        let mut huge = MAGIC.to_vec();
        huge.extend_from_slice(&1u32.to_le_bytes());
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(decode(&huge), Err(DecodeError::Short(_))));
        // A session id that is not UTF-8.
        let mut chats = Chats::default();
        chats.insert("s\u{e9}".to_owned(), Entry::default());
        let mut bytes = encode(1, std::iter::once((Path::new("/x"), &chats)));
        let at = bytes
            .windows(3)
            .position(|w| w == "s\u{e9}".as_bytes())
            .unwrap();
        bytes[at + 1] = 0xff;
        assert_eq!(decode(&bytes), Err(DecodeError::NotUtf8("a session id")));
    }
}
