//! The search engine underneath: a tantivy index in the data folder (`<data>/state/search/`).
//!
//! - **Documents.** One document is some of one chat's texts: all of a transcript when it is read
//!   from the start, the texts of the lines appended since when it is read on. A document holds
//!   the chat's key ([`chat_key`], a fast field and a term, to map found documents to chats and
//!   to delete a chat) and each text as one value of `text`, with positions: a phrase is found
//!   inside one text, never across two (tantivy leaves a gap between values).
//! - **Words.** The tokenizer is the matcher's own ([`super::tokens::for_each`]), so the index and
//!   the reading of transcripts always agree on what a word is; every token is indexed, one
//!   letter ones too (a phrase's `a` is looked up), but for those longer than
//!   [`tokens::MAX_BYTES`] (hashes, base64), which keep their place so the words around them
//!   are not made adjacent.
//! - **Commits.** A commit's payload is what was read of each chat ([`Payload`]), so the index
//!   and how far it has read are one atomic step: after a kill, the index is as of its last
//!   commit, and the transcripts are read on from exactly there.
//! - **Opening.** A folder that cannot be opened, whose schema differs, or whose payload is not of
//!   this [`FORMAT`] is moved aside (`search.broken`) and an empty index made in its place, with
//!   the reason, for the updater to build again in the background.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::Digest as _;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use super::reader::ReadState;
use super::tokens;

/// The layout this build writes: the schema, the tokenizer and the payload. A folder of
/// another is rebuilt.
pub const FORMAT: u32 = 1;
/// The writer's memory per indexing thread: what it buffers before it writes a segment
/// (tantivy's least). Its pages are taken as documents come and given back at each commit.
pub const WRITER_BUDGET_BYTES: usize = 15 * 1024 * 1024;
/// Indexing threads at most: a build from nothing uses both cores of a small devbox (the
/// writer's memory is then at most twice [`WRITER_BUDGET_BYTES`]); following transcripts
/// keeps one of them busy at a time.
const INDEX_THREADS: usize = 2;
/// Segments merged at once in the background.
const MERGE_THREADS: usize = 1;
const TOKENIZER: &str = "paddock_words";

/// Why the engine could not be opened or written.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("the search index {}: {source}", path.display())]
    Tantivy {
        path: PathBuf,
        source: tantivy::TantivyError,
    },
    #[error("cannot make the search index folder {}: {source}", path.display())]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Chats by key: a key is already a hash (of the session id), so it is its own.
pub type KeyMap<V> = std::collections::HashMap<u64, V, BuildHasherDefault<KeyHash>>;
/// Chat keys, hashed as [`KeyMap`] does.
pub type KeySet = std::collections::HashSet<u64, BuildHasherDefault<KeyHash>>;

/// The hasher of [`KeyMap`]: a chat key (the start of a SHA-256) as it is.
#[derive(Debug, Default, Clone, Copy)]
pub struct KeyHash(u64);

impl std::hash::Hasher for KeyHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys are hashed here; anything else is folded in byte by byte.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A chat's key in the index: the first 8 bytes of its session id's SHA-256 (stable across
/// builds, unlike a hasher's seed).
pub fn chat_key(session_id: &str) -> u64 {
    let digest = sha2::Sha256::digest(session_id.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(bytes)
}

/// What was read of each chat, as of a commit (the commit's payload).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payload {
    pub format: u32,
    /// The transcript folders, named once.
    pub folders: Vec<PathBuf>,
    /// Each chat: session id, its folder (an index in `folders`), and where reading it stopped
    /// (offset, inode, device, hash of the bytes before the offset).
    pub chats: Vec<(String, u32, u64, u64, u64, u64)>,
}

/// One chat the index holds: where its transcript is and how far it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadChat {
    pub folder: PathBuf,
    pub mark: ReadState,
}

impl Payload {
    /// The payload of `chats` (session id → what was read).
    pub fn of(chats: &HashMap<String, ReadChat>) -> Self {
        let mut folders: Vec<PathBuf> = Vec::new();
        let mut folder_ids: HashMap<&Path, u32> = HashMap::new();
        let mut out = Vec::with_capacity(chats.len());
        for (sid, c) in chats {
            let id = *folder_ids.entry(&c.folder).or_insert_with(|| {
                folders.push(c.folder.clone());
                u32::try_from(folders.len() - 1).unwrap_or(u32::MAX)
            });
            let m = &c.mark;
            out.push((sid.clone(), id, m.offset, m.ino, m.dev, m.tail_hash));
        }
        Payload {
            format: FORMAT,
            folders,
            chats: out,
        }
    }

    /// The chats it names (session id → what was read); chats of a folder it does not list are
    /// left out.
    pub fn chats(&self) -> HashMap<String, ReadChat> {
        self.chats
            .iter()
            .filter_map(|(sid, folder, offset, ino, dev, tail_hash)| {
                let folder = self.folders.get(*folder as usize)?.clone();
                let mark = ReadState {
                    offset: *offset,
                    ino: *ino,
                    dev: *dev,
                    tail_hash: *tail_hash,
                };
                Some((sid.clone(), ReadChat { folder, mark }))
            })
            .collect()
    }
}

/// How the index was found at start.
#[derive(Debug)]
pub enum Opened {
    /// As last committed: these chats are in it, read this far.
    Committed(Payload),
    /// Empty: there was none, or (`reason`) the one there could not be used and was moved aside.
    Empty { reason: Option<String> },
}

/// The fields of the schema.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub chat: Field,
    pub text: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let chat = b.add_u64_field("chat", INDEXED | FAST);
    let text = b.add_text_field(
        "text",
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        ),
    );
    (b.build(), Fields { chat, text })
}

/// The index as searches see it: as of the last commit.
#[derive(Clone)]
pub struct Searchable {
    reader: IndexReader,
    pub fields: Fields,
}

impl Searchable {
    pub fn searcher(&self) -> tantivy::Searcher {
        self.reader.searcher()
    }
}

/// The index: the writer (the updater's alone) and a reader for the searches.
pub struct Engine {
    pub fields: Fields,
    reader: IndexReader,
    writer: IndexWriter,
    dir: PathBuf,
}

impl Engine {
    /// Opens the index in `dir`, or makes an empty one: see the module's doc on what is moved
    /// aside. Blocking.
    pub fn open(dir: &Path) -> Result<(Engine, Opened), EngineError> {
        let (schema, fields) = schema();
        let (index, opened) = match existing(dir, &schema, fields.text) {
            Ok(Some((index, payload))) => (index, Opened::Committed(payload)),
            Ok(None) => (create(dir, &schema)?, Opened::Empty { reason: None }),
            Err(reason) => {
                let aside = dir.with_extension("broken");
                let _ = std::fs::remove_dir_all(&aside);
                if let Err(e) = std::fs::rename(dir, &aside) {
                    tracing::debug!(error = %e, "search index: cannot move the old index aside");
                    let _ = std::fs::remove_dir_all(dir);
                }
                (
                    create(dir, &schema)?,
                    Opened::Empty {
                        reason: Some(reason),
                    },
                )
            }
        };
        let tantivy = |source| EngineError::Tantivy {
            path: dir.to_owned(),
            source,
        };
        index.tokenizers().register(TOKENIZER, Words);
        let options = tantivy::indexer::IndexWriterOptions::builder()
            .memory_budget_per_thread(WRITER_BUDGET_BYTES)
            .num_worker_threads(
                std::thread::available_parallelism().map_or(1, |n| n.get().min(INDEX_THREADS)),
            )
            .num_merge_threads(MERGE_THREADS)
            .build();
        let writer = index.writer_with_options(options).map_err(tantivy)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(tantivy)?;
        Ok((
            Engine {
                fields,
                reader,
                writer,
                dir: dir.to_owned(),
            },
            opened,
        ))
    }

    /// Adds one document of `session_id`'s texts (nothing for none). Seen at the next commit.
    pub fn add<'a>(
        &self,
        session_id: &str,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), EngineError> {
        let mut doc = TantivyDocument::default();
        doc.add_u64(self.fields.chat, chat_key(session_id));
        let mut any = false;
        for t in texts {
            doc.add_text(self.fields.text, t);
            any = true;
        }
        if any {
            self.writer
                .add_document(doc)
                .map_err(|source| self.error(source))?;
        }
        Ok(())
    }

    /// Deletes every document of `session_id` added before now. Seen at the next commit.
    pub fn delete(&self, session_id: &str) {
        self.writer
            .delete_term(Term::from_field_u64(self.fields.chat, chat_key(session_id)));
    }

    /// Commits what was added and deleted with `payload` (what is read of every chat), and
    /// lets the searches see it. Blocking (it waits for the segment to be written and synced).
    pub fn commit(&mut self, payload: &Payload) -> Result<(), EngineError> {
        let text = serde_json::to_string(payload).unwrap_or_default();
        let mut prepared = self
            .writer
            .prepare_commit()
            .map_err(|source| EngineError::Tantivy {
                path: self.dir.clone(),
                source,
            })?;
        prepared.set_payload(&text);
        prepared.commit().map_err(|source| EngineError::Tantivy {
            path: self.dir.clone(),
            source,
        })?;
        self.reader.reload().map_err(|source| self.error(source))
    }

    /// What searches read the index through: it sees each commit.
    pub fn searcher_source(&self) -> Searchable {
        Searchable {
            reader: self.reader.clone(),
            fields: self.fields,
        }
    }

    fn error(&self, source: tantivy::TantivyError) -> EngineError {
        EngineError::Tantivy {
            path: self.dir.clone(),
            source,
        }
    }
}

/// The index in `dir` with its payload; `Ok(None)` when there is none, `Err(reason)` when there
/// is one that cannot be used.
fn existing(
    dir: &Path,
    schema: &Schema,
    text_field: Field,
) -> Result<Option<(Index, Payload)>, String> {
    if !dir.join("meta.json").exists() {
        return Ok(None);
    }
    let index = Index::open_in_dir(dir).map_err(|e| format!("it cannot be opened: {e}"))?;
    if index.schema() != *schema {
        return Err("its schema is of another version".into());
    }
    let metas = index
        .load_metas()
        .map_err(|e| format!("its metadata cannot be read: {e}"))?;
    let Some(text) = metas.payload else {
        return Err("it has no record of what it read".into());
    };
    let payload: Payload =
        serde_json::from_str(&text).map_err(|e| format!("its record cannot be read: {e}"))?;
    if payload.format != FORMAT {
        return Err(format!(
            "it is of format {}, this paddockd writes {FORMAT}",
            payload.format
        ));
    }
    // Every segment's files must be there and readable: a torn copy fails here, not later.
    let searcher = index
        .reader()
        .map_err(|e| format!("it cannot be read: {e}"))?
        .searcher();
    for seg in searcher.segment_readers() {
        seg.inverted_index(text_field)
            .map_err(|e| format!("a segment cannot be read: {e}"))?;
    }
    Ok(Some((index, payload)))
}

fn create(dir: &Path, schema: &Schema) -> Result<Index, EngineError> {
    std::fs::create_dir_all(dir).map_err(|source| EngineError::Folder {
        path: dir.to_owned(),
        source,
    })?;
    Index::create_in_dir(dir, schema.clone()).map_err(|source| EngineError::Tantivy {
        path: dir.to_owned(),
        source,
    })
}

/// The tokenizer: [`tokens::next`]'s tokens, lowercased, each at its place; those longer than
/// [`tokens::MAX_BYTES`] are left out but keep their place. One token at a time, into one
/// buffer: no allocation per token.
#[derive(Clone, Default)]
struct Words;

struct WordStream<'a> {
    text: &'a str,
    from: usize,
    /// The next token's position.
    position: usize,
    token: Token,
}

impl Tokenizer for Words {
    type TokenStream<'a> = WordStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        WordStream {
            text,
            from: 0,
            position: 0,
            token: Token::default(),
        }
    }
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        while let Some((start, end)) = tokens::next(self.text, self.from, &mut self.token.text) {
            self.from = end;
            let position = self.position;
            self.position += 1;
            if self.token.text.len() <= tokens::MAX_BYTES {
                self.token.offset_from = start;
                self.token.offset_to = end;
                self.token.position = position;
                self.token.position_length = 1;
                return true;
            }
        }
        false
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}
