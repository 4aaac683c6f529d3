//! Attachments (reference §8): files a person attaches to a message, and files an agent shows
//! with `send_file`, kept as immutable copies in `<data>/attachments/<uuid><ext>` (folder 0700,
//! files 0600, written once, never changed).
//!
//! A message with attachments carries a block in front of its text, the single source both
//! the agent and the clients read:
//!
//! ```text
//! <paddock-attachments>
//! The user attached these files. Use the Read tool to view images and PDFs; each line is: id\tkind\tfilename\tabsolute-path.
//! 3f2a…e1.png\timage\tscreenshot.png\t/home/ana/.local/share/paddock/attachments/3f2a…e1.png
//! </paddock-attachments>
//!
//! <the message>
//! ```
//!
//! When the message goes to `claude`, the images and PDFs it lists are also sent as content
//! blocks (`image` / `document`, base64), the way the Messages API takes them, so the model
//! sees them at once; other files it reads with the Read tool, which is allowed for files in
//! the attachments folder without asking.
//!
//! Limits (config): `attachments_max_file_mb` per file, `attachments_max_files` per message,
//! `attachments_types` (`*`, or kinds and extensions: `image, pdf, .csv`) — hygiene, not a
//! security boundary. `attachments_enabled = false` refuses every upload; it does not touch
//! `send_file`, which is the agent showing a file, not a person attaching one (as the
//! reference gates only its upload endpoint).

use std::path::{Path, PathBuf};

use base64::Engine as _;
use paddock_proto::{AttachmentUpload, ErrorBody, ErrorCode};
use serde_json::{Value, json};

pub const OPEN: &str = "<paddock-attachments>";
pub const CLOSE: &str = "</paddock-attachments>";
const HEADER: &str = "The user attached these files. Use the Read tool to view images and PDFs; each line is: id\\tkind\\tfilename\\tabsolute-path.";

/// The attachments folder.
pub fn dir(data_dir: &Path) -> PathBuf {
    data_dir.join("attachments")
}

/// The limits on what may be attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// `attachments_enabled`: off, a message may attach nothing (an agent's `send_file`
    /// still works: it is not an upload).
    pub enabled: bool,
    pub max_file_bytes: u64,
    pub max_files: usize,
    /// `None`: any type; else kinds (`image`, `pdf`, `text`...) and extensions (`.csv`).
    pub types: Option<Vec<String>>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            enabled: true,
            max_file_bytes: 25 * 1024 * 1024,
            max_files: 10,
            types: None,
        }
    }
}

impl Limits {
    /// From `attachments_types`: `*` (or empty) is any type.
    pub fn parse_types(value: &str) -> Option<Vec<String>> {
        let list: Vec<String> = value
            .split(',')
            .map(|s| s.trim().to_ascii_lowercase())
            .filter(|s| !s.is_empty())
            .collect();
        (!list.is_empty() && !list.iter().any(|s| s == "*")).then_some(list)
    }

    fn allows(&self, name: &str) -> bool {
        let Some(types) = &self.types else {
            return true;
        };
        let ext = extension(name);
        let kind = kind_of(name);
        types
            .iter()
            .any(|t| *t == kind || (!ext.is_empty() && *t == ext))
    }
}

/// `.png` (lowercase) or "".
fn extension(name: &str) -> String {
    Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| format!(".{}", e.to_ascii_lowercase()))
        .unwrap_or_default()
}

/// What a file is, by its extension: `image`, `pdf`, `markdown`, `code`, `text`, `html`, `file`.
pub fn kind_of(name: &str) -> &'static str {
    match extension(name).as_str() {
        ".png" | ".jpg" | ".jpeg" | ".gif" | ".webp" => "image",
        ".pdf" => "pdf",
        ".md" | ".markdown" | ".mdx" => "markdown",
        ".html" | ".htm" => "html",
        ".txt" | ".log" | ".csv" | ".tsv" => "text",
        ".rs" | ".ts" | ".tsx" | ".js" | ".jsx" | ".py" | ".go" | ".rb" | ".java" | ".c" | ".h"
        | ".cpp" | ".sh" | ".json" | ".yaml" | ".yml" | ".toml" | ".sql" | ".css" => "code",
        _ => "file",
    }
}

/// The media type the Messages API wants for an image or PDF block.
fn media_type(name: &str) -> Option<&'static str> {
    match extension(name).as_str() {
        ".png" => Some("image/png"),
        ".jpg" | ".jpeg" => Some("image/jpeg"),
        ".gif" => Some("image/gif"),
        ".webp" => Some("image/webp"),
        ".pdf" => Some("application/pdf"),
        _ => None,
    }
}

/// One kept attachment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// `<uuid><ext>`, also the file's name in the folder.
    pub id: String,
    pub kind: &'static str,
    pub filename: String,
    pub path: PathBuf,
}

fn invalid(message: String) -> ErrorBody {
    ErrorBody::new(ErrorCode::InvalidArgument, message)
}

/// A file name as a single safe line (no tabs or line ends, at most 200 characters).
fn clean_name(name: &str) -> String {
    let cleaned: String = name.chars().filter(|c| !c.is_control()).take(200).collect();
    let base = Path::new(&cleaned)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_owned();
    if base.trim().is_empty() {
        "file".to_owned()
    } else {
        base
    }
}

/// Checks the uploads against the limits and keeps a copy of each (blocking: reads and
/// writes files). Nothing is kept when one of them is refused.
pub fn store(
    data_dir: &Path,
    limits: &Limits,
    private: &crate::confine::Private,
    uploads: &[AttachmentUpload],
) -> Result<Vec<Stored>, ErrorBody> {
    if !limits.enabled && !uploads.is_empty() {
        return Err(invalid(
            "attachments are turned off on this daemon (attachments_enabled = false, PADDOCK_ATTACHMENTS_ENABLED); send the message without them".into(),
        ));
    }
    if uploads.len() > limits.max_files {
        return Err(invalid(format!(
            "{} files attached; a message takes at most {} (attachments_max_files)",
            uploads.len(),
            limits.max_files
        )));
    }
    let mut files: Vec<(String, Vec<u8>)> = Vec::with_capacity(uploads.len());
    for u in uploads {
        let name = clean_name(&u.name);
        if !limits.allows(&name) {
            return Err(invalid(format!(
                "{name} is a {} file, which this daemon does not take (attachments_types)",
                kind_of(&name)
            )));
        }
        let bytes = match (&u.path, &u.data) {
            (Some(path), None) => {
                if !Path::new(path).is_absolute() {
                    return Err(invalid(format!(
                        "attachment path {path} is relative; give an absolute path"
                    )));
                }
                // From anywhere a person names, but never paddockd's own state.
                let p = crate::confine::readable(private, path).map_err(|e| match e {
                    crate::confine::Refused::Io { source, .. } => {
                        invalid(format!("cannot read the attachment {path}: {source}"))
                    }
                    other => invalid(format!("the attachment {other}")),
                })?;
                let p = p.as_path();
                let meta = std::fs::metadata(p)
                    .map_err(|e| invalid(format!("cannot read the attachment {path}: {e}")))?;
                if !meta.is_file() {
                    return Err(invalid(format!("the attachment {path} is not a file")));
                }
                if meta.len() > limits.max_file_bytes {
                    return Err(too_large(&name, meta.len(), limits));
                }
                let mut bytes = Vec::new();
                crate::confine::open(p)
                    .and_then(|f| {
                        use std::io::Read as _;
                        f.take(limits.max_file_bytes.saturating_add(1))
                            .read_to_end(&mut bytes)
                    })
                    .map_err(|e| invalid(format!("cannot read the attachment {path}: {e}")))?;
                bytes
            }
            (None, Some(data)) => {
                // Base64 is 4/3 of the bytes: refuse before decoding something huge.
                let approx = (data.len() as u64).saturating_mul(3) / 4;
                if approx > limits.max_file_bytes + 3 {
                    return Err(too_large(&name, approx, limits));
                }
                base64::engine::general_purpose::STANDARD
                    .decode(data.trim())
                    .map_err(|e| {
                        invalid(format!("the attachment {name} is not valid base64: {e}"))
                    })?
            }
            _ => {
                return Err(invalid(format!(
                    "the attachment {name} needs exactly one of path or data"
                )));
            }
        };
        if bytes.len() as u64 > limits.max_file_bytes {
            return Err(too_large(&name, bytes.len() as u64, limits));
        }
        files.push((name, bytes));
    }
    let folder = dir(data_dir);
    crate::fsutil::create_private_dir(&folder)
        .map_err(|e| internal(format!("cannot make {}: {e}", folder.display())))?;
    let mut out = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        out.push(keep(&folder, &name, &bytes)?);
    }
    Ok(out)
}

fn internal(message: String) -> ErrorBody {
    ErrorBody::new(ErrorCode::Internal, message)
}

fn too_large(name: &str, bytes: u64, limits: &Limits) -> ErrorBody {
    invalid(format!(
        "{name} is {:.1} MB; an attachment may be at most {} MB (attachments_max_file_mb)",
        bytes as f64 / 1_048_576.0,
        limits.max_file_bytes / 1_048_576
    ))
}

/// Writes one immutable copy (0600) into `folder`.
pub fn keep(folder: &Path, name: &str, bytes: &[u8]) -> Result<Stored, ErrorBody> {
    let id = format!("{}{}", uuid::Uuid::new_v4(), extension(name));
    let path = folder.join(&id);
    crate::fsutil::write_atomic(&path, bytes)
        .map_err(|e| internal(format!("cannot keep the attachment {name}: {e}")))?;
    Ok(Stored {
        id,
        kind: kind_of(name),
        filename: name.to_owned(),
        path,
    })
}

/// The message with its attachments' block in front (the message itself when there are none).
pub fn wrap(stored: &[Stored], message: &str) -> String {
    if stored.is_empty() {
        return message.to_owned();
    }
    let mut out = format!("{OPEN}\n{HEADER}\n");
    for s in stored {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\n",
            s.id,
            s.kind,
            s.filename,
            s.path.display()
        ));
    }
    out.push_str(CLOSE);
    out.push_str("\n\n");
    out.push_str(message);
    out
}

/// The attachments a message's block lists (none when it has no block). The block may sit
/// inside the preload wrapper.
pub fn parse(text: &str) -> Vec<Stored> {
    let Some(start) = text.find(OPEN) else {
        return Vec::new();
    };
    let Some(len) = text[start..].find(CLOSE) else {
        return Vec::new();
    };
    text[start + OPEN.len()..start + len]
        .lines()
        .filter_map(|line| {
            let mut f = line.split('\t');
            let (id, kind, filename, path) = (f.next()?, f.next()?, f.next()?, f.next()?);
            (!kind.is_empty()).then(|| Stored {
                id: id.to_owned(),
                kind: kind_of(id),
                filename: filename.to_owned(),
                path: PathBuf::from(path),
            })
        })
        .collect()
}

/// What the person asked in a message as sent to `claude`: without the preload wrapper and
/// the attachments block in front of it. Titles and the run log show this.
pub fn request_text(message: &str) -> &str {
    strip(crate::preload::strip(message))
}

/// The request inside a message with an attachments block.
pub fn strip(text: &str) -> &str {
    if !text.starts_with(OPEN) {
        return text;
    }
    let marker = format!("{CLOSE}\n\n");
    match text.find(&marker) {
        Some(i) => &text[i + marker.len()..],
        None => text,
    }
}

/// The `content` of the user message sent to `claude`: the text alone, or (when it lists
/// images or PDFs kept in `folder`) the text then one base64 block per such file. A file that
/// cannot be read is left to the Read tool (the block still names its path).
pub fn content(text: &str, folder: &Path) -> Value {
    let blocks: Vec<Value> = parse(text)
        .into_iter()
        .filter(|s| s.path.parent() == Some(folder))
        .filter_map(|s| {
            let media = media_type(&s.id)?;
            let bytes = std::fs::read(&s.path).ok()?;
            let data = base64::engine::general_purpose::STANDARD.encode(bytes);
            let kind = if media == "application/pdf" {
                "document"
            } else {
                "image"
            };
            Some(json!({"type": kind, "source": {"type": "base64", "media_type": media, "data": data}}))
        })
        .collect();
    if blocks.is_empty() {
        return Value::String(text.to_owned());
    }
    let mut all = vec![json!({"type": "text", "text": text})];
    all.extend(blocks);
    Value::Array(all)
}

/// The largest attachment `attachment:get` sends (base64 makes it a third bigger on the wire).
pub const MAX_GET_BYTES: u64 = 64 * 1024 * 1024;

/// `attachment:get` (blocking: reads the file).
pub fn get(data_dir: &Path, id: &str) -> Result<paddock_proto::Attachment, ErrorBody> {
    let plain = !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    let not_found = || {
        ErrorBody::new(
            ErrorCode::NotFound,
            format!(
                "no attachment {id}; its id is in the message's attachment block or the send_file notice"
            ),
        )
    };
    if !plain {
        return Err(not_found());
    }
    let path = dir(data_dir).join(id);
    let meta = std::fs::metadata(&path).map_err(|_| not_found())?;
    if !meta.is_file() {
        return Err(not_found());
    }
    if meta.len() > MAX_GET_BYTES {
        return Err(invalid(format!(
            "attachment {id} is {} bytes, more than the {MAX_GET_BYTES} attachment:get sends; read {} on the daemon's machine",
            meta.len(),
            path.display()
        )));
    }
    let bytes =
        std::fs::read(&path).map_err(|e| internal(format!("cannot read attachment {id}: {e}")))?;
    Ok(paddock_proto::Attachment {
        id: id.to_owned(),
        file_kind: kind_of(id).to_owned(),
        size: bytes.len() as u64,
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

/// Whether a tool call only reads a kept attachment (allowed without asking).
pub fn reads_an_attachment(tool: &str, input: &Value, folder: &Path) -> bool {
    if tool != "Read" {
        return false;
    }
    let Some(path) = input.get("file_path").and_then(Value::as_str) else {
        return false;
    };
    let p = Path::new(path);
    p.is_absolute()
        && p.parent() == Some(folder)
        && !path.contains("/../")
        && p.file_name().is_some()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn upload(name: &str, data: &[u8]) -> AttachmentUpload {
        AttachmentUpload {
            name: name.into(),
            path: None,
            data: Some(base64::engine::general_purpose::STANDARD.encode(data)),
        }
    }

    #[test]
    fn uploads_are_kept_and_listed_in_front_of_the_message() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("notes.csv");
        std::fs::write(&src, "a,b\n").unwrap();
        let stored = store(
            dir.path(),
            &Limits::default(),
            &crate::confine::Private::default(),
            &[
                upload("shot.png", b"\x89PNG fake"),
                AttachmentUpload {
                    name: "notes.csv".into(),
                    path: Some(src.to_string_lossy().into_owned()),
                    data: None,
                },
            ],
        )
        .unwrap();
        assert_eq!(stored.len(), 2);
        assert_eq!(stored[0].kind, "image");
        assert!(stored[0].id.ends_with(".png"));
        assert_eq!(std::fs::read(&stored[0].path).unwrap(), b"\x89PNG fake");
        let text = wrap(&stored, "What is in these?");
        assert!(
            text.starts_with("<paddock-attachments>\nThe user attached"),
            "{text}"
        );
        assert_eq!(strip(&text), "What is in these?");
        let parsed = parse(&text);
        assert_eq!(parsed, stored);

        // The image goes as a block, the CSV is left to the Read tool.
        let content = content(&text, &super::dir(dir.path()));
        let blocks = content.as_array().unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0]["type"], "text");
        assert_eq!(blocks[1]["type"], "image");
        assert_eq!(blocks[1]["source"]["media_type"], "image/png");
        assert_eq!(
            content_of_plain(&super::dir(dir.path())),
            Value::String("plain".into())
        );
        let read = json!({"file_path": stored[1].path});
        assert!(reads_an_attachment("Read", &read, &super::dir(dir.path())));
        assert!(!reads_an_attachment(
            "Read",
            &json!({"file_path": "/etc/passwd"}),
            &super::dir(dir.path())
        ));
        assert!(!reads_an_attachment(
            "Write",
            &read,
            &super::dir(dir.path())
        ));
    }

    fn content_of_plain(folder: &Path) -> Value {
        content("plain", folder)
    }

    #[test]
    fn limits_refuse_with_the_setting_to_change() {
        let dir = tempfile::tempdir().unwrap();
        let small = Limits {
            enabled: true,
            max_file_bytes: 4,
            max_files: 1,
            types: Limits::parse_types("image, .csv"),
        };
        let err = store(
            dir.path(),
            &small,
            &crate::confine::Private::default(),
            &[upload("a.png", b"12345")],
        )
        .unwrap_err();
        assert!(
            err.message.contains("attachments_max_file_mb"),
            "{}",
            err.message
        );
        let err = store(
            dir.path(),
            &small,
            &crate::confine::Private::default(),
            &[upload("a.png", b"1"), upload("b.png", b"2")],
        )
        .unwrap_err();
        assert!(
            err.message.contains("attachments_max_files"),
            "{}",
            err.message
        );
        let err = store(
            dir.path(),
            &small,
            &crate::confine::Private::default(),
            &[upload("run.sh", b"1")],
        )
        .unwrap_err();
        assert!(err.message.contains("attachments_types"), "{}", err.message);
        assert!(
            store(
                dir.path(),
                &small,
                &crate::confine::Private::default(),
                &[upload("ok.csv", b"1")]
            )
            .is_ok()
        );
        let err = store(
            dir.path(),
            &Limits::default(),
            &crate::confine::Private::default(),
            &[AttachmentUpload {
                name: "x".into(),
                path: Some("relative.txt".into()),
                data: None,
            }],
        )
        .unwrap_err();
        assert!(err.message.contains("absolute"), "{}", err.message);
        assert_eq!(Limits::parse_types("*"), None);
        assert_eq!(Limits::parse_types(""), None);
    }

    #[test]
    fn a_kept_file_comes_back_by_id_and_odd_ids_are_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let stored = store(
            dir.path(),
            &Limits::default(),
            &crate::confine::Private::default(),
            &[upload("n.txt", b"hello")],
        )
        .unwrap();
        let got = get(dir.path(), &stored[0].id).unwrap();
        assert_eq!((got.file_kind.as_str(), got.size), ("text", 5));
        assert_eq!(
            base64::engine::general_purpose::STANDARD
                .decode(got.data)
                .unwrap(),
            b"hello"
        );
        for bad in ["", "../secret", "a/b", ".hidden", "missing.txt"] {
            assert_eq!(
                get(dir.path(), bad).unwrap_err().code,
                ErrorCode::NotFound,
                "{bad}"
            );
        }
    }

    #[test]
    fn names_are_one_safe_line() {
        assert_eq!(clean_name("../../etc/pa\tss\nwd"), "passwd");
        assert_eq!(clean_name(""), "file");
    }
}
