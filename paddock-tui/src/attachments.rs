//! Attachments on the client's side (reference §8): the files a message carries to
//! `chat:send` ([`uploads`]), the early checks the TUI makes when one is picked ([`check`]),
//! and reading back what the daemon recorded — the `<paddock-attachments>` block in front of a
//! message ([`parse_block`], [`strip_block`]) and the snapshot a `send_file` notice or tool
//! result names ([`snapshot_in_notice`], [`snapshot_in_result`]).
//!
//! The daemon's limits (size, count, types) are authoritative; nothing here second-guesses
//! them, so a refusal is always the daemon's own sentence naming the setting.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use paddock_proto::AttachmentUpload;

/// The block's opening line, as the daemon writes it.
pub const OPEN: &str = "<paddock-attachments>";
/// The block's closing line.
pub const CLOSE: &str = "</paddock-attachments>";

/// A file picked to attach: checked, not read yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picked {
    /// Absolute (canonical) path on this machine.
    pub path: PathBuf,
    /// The file's name, as the user knows it.
    pub name: String,
    /// Its size when it was picked, in bytes.
    pub size: u64,
}

/// Checks that `path` is a file this process can read: the early, clear refusal before the
/// daemon sees it (a directory, a missing or unreadable file).
pub fn check(path: &Path) -> Result<Picked, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot attach {shown}: {e}"))?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        return Err(format!("cannot attach {shown}: it is {what}"));
    }
    std::fs::File::open(path).map_err(|e| format!("cannot attach {shown}: {e}"))?;
    let abs = std::fs::canonicalize(path).map_err(|e| format!("cannot attach {shown}: {e}"))?;
    let name = abs
        .file_name()
        .or_else(|| path.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{shown} names no file"))?;
    Ok(Picked {
        path: abs,
        name,
        size: meta.len(),
    })
}

/// The attachments of a message as `chat:send` takes them: by absolute path for a daemon on
/// this machine, by content (base64) for one reached with `--remote` (its disk is not ours).
pub fn uploads(remote: bool, files: &[PathBuf]) -> Result<Vec<AttachmentUpload>, String> {
    files
        .iter()
        .map(|file| {
            let picked = check(file)?;
            if remote {
                let bytes = std::fs::read(&picked.path)
                    .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
                return Ok(AttachmentUpload {
                    name: picked.name,
                    path: None,
                    data: Some(base64::engine::general_purpose::STANDARD.encode(bytes)),
                });
            }
            Ok(AttachmentUpload {
                name: picked.name,
                path: Some(picked.path.to_string_lossy().into_owned()),
                data: None,
            })
        })
        .collect()
}

/// A size as people read it: `512 B`, `12 KB`, `3.4 MB` (powers of 1024).
pub fn human_size(bytes: u64) -> String {
    const KB: u64 = 1024;
    const MB: u64 = 1024 * KB;
    const GB: u64 = 1024 * MB;
    match bytes {
        b if b < KB => format!("{b} B"),
        b if b < MB => format!("{} KB", b.div_ceil(KB)),
        b if b < 10 * MB => format!("{:.1} MB", b as f64 / MB as f64),
        b if b < GB => format!("{} MB", b / MB),
        b => format!("{:.1} GB", b as f64 / GB as f64),
    }
}

/// A kept attachment a message or notice names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// `<uuid><ext>`: what `attachment:get` takes.
    pub id: String,
    /// `image`, `pdf`, `markdown`, `code`, `text`, `html` or `file`.
    pub kind: String,
    /// The name the user or the agent gave it.
    pub filename: String,
    /// Where the daemon keeps it (on the daemon's machine); empty for a snapshot.
    pub path: String,
}

/// The files a message's `<paddock-attachments>` block lists (none without a block), read as
/// the daemon writes them: one line per file, `id\tkind\tfilename\tpath`.
pub fn parse_block(text: &str) -> Vec<Listed> {
    let Some(start) = text.find(OPEN) else {
        return Vec::new();
    };
    let Some(len) = text[start..].find(CLOSE) else {
        return Vec::new();
    };
    text[start + OPEN.len()..start + len]
        .lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let (id, kind, filename, path) = (
                fields.next()?,
                fields.next()?,
                fields.next()?,
                fields.next()?,
            );
            (plain_id(id) && !kind.is_empty()).then(|| Listed {
                id: id.to_owned(),
                kind: kind_of(id).to_owned(),
                filename: filename.to_owned(),
                path: path.to_owned(),
            })
        })
        .collect()
}

/// The request of a message that starts with an attachments block (the text itself
/// otherwise): what the person typed.
pub fn strip_block(text: &str) -> &str {
    if !text.starts_with(OPEN) {
        return text;
    }
    let marker = format!("{CLOSE}\n\n");
    match text.find(&marker) {
        Some(i) => &text[i + marker.len()..],
        None => text
            .find(CLOSE)
            .map_or(text, |i| text[i + CLOSE.len()..].trim_start_matches('\n')),
    }
}

/// The snapshot a `send_file` notice names: `file NAME (N bytes, snapshot ID):` or
/// `file NAME (N bytes, binary, snapshot ID)`.
pub fn snapshot_in_notice(message: &str) -> Option<Listed> {
    let first = message.lines().next()?;
    let at = first.find("snapshot ")?;
    let id: String = first[at + "snapshot ".len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '.')
        .collect();
    let id = id.trim_end_matches('.').to_owned();
    let shown = first
        .strip_prefix("file ")
        .and_then(|rest| rest.rfind(" (").map(|i| &rest[..i]));
    snapshot(id, shown)
}

/// The snapshot a `send_file` tool call's result names (`{"shown": NAME, "snapshot": ID}`),
/// for a chat read from its transcript, where the live notice is not kept.
pub fn snapshot_in_result(tool: &str, output: &str) -> Option<Listed> {
    if !is_send_file(tool) {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(output.trim()).ok()?;
    let id = value.get("snapshot")?.as_str()?.to_owned();
    let shown = value.get("shown").and_then(serde_json::Value::as_str);
    snapshot(id, shown)
}

/// A snapshot a notice or a tool result names, by its id and the path it was shown as (its
/// file name is the chip's; the id when there is none); `None` for an id the daemon would not
/// make.
fn snapshot(id: String, shown: Option<&str>) -> Option<Listed> {
    if !plain_id(&id) {
        return None;
    }
    let filename = shown
        .and_then(|s| Path::new(s).file_name())
        .map_or_else(|| id.clone(), |n| n.to_string_lossy().into_owned());
    Some(Listed {
        kind: kind_of(&id).to_owned(),
        id,
        filename,
        path: String::new(),
    })
}

/// Whether a tool's name is the daemon's `send_file` (as the CLI names MCP tools).
pub fn is_send_file(tool: &str) -> bool {
    tool == "send_file" || tool.ends_with("__send_file")
}

/// An id as the daemon makes them: letters, digits, `-` and `.`, not hidden.
fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
}

/// What a file is, by its extension, as the daemon guesses it: `image`, `pdf`, `markdown`,
/// `code`, `text`, `html`, `file`.
pub fn kind_of(name: &str) -> &'static str {
    let ext = Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "png" | "jpg" | "jpeg" | "gif" | "webp" => "image",
        "pdf" => "pdf",
        "md" | "markdown" | "mdx" => "markdown",
        "html" | "htm" => "html",
        "txt" | "log" | "csv" | "tsv" => "text",
        "rs" | "ts" | "tsx" | "js" | "jsx" | "py" | "go" | "rb" | "java" | "c" | "h" | "cpp"
        | "sh" | "json" | "yaml" | "yml" | "toml" | "sql" | "css" => "code",
        _ => "file",
    }
}

/// Whether a kind is text a terminal can show.
pub fn is_text_kind(kind: &str) -> bool {
    matches!(kind, "text" | "markdown" | "code" | "html")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "<paddock-attachments>\nThe user attached these files. Use the Read tool to view images and PDFs; each line is: id\\tkind\\tfilename\\tabsolute-path.\n3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c.png\timage\tbroken layout.png\t/data/attachments/3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c.png\n9d1e.log\ttext\tbuild.log\t/data/attachments/9d1e.log\n</paddock-attachments>\n\nThe layout breaks like this.";

    #[test]
    fn the_block_is_read_as_the_daemon_writes_it() {
        let listed = parse_block(BLOCK);
        assert_eq!(listed.len(), 2, "{listed:?}");
        assert_eq!(listed[0].id, "3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c.png");
        assert_eq!(listed[0].kind, "image");
        assert_eq!(listed[0].filename, "broken layout.png");
        assert_eq!(listed[1].kind, "text");
        assert_eq!(strip_block(BLOCK), "The layout breaks like this.");
        assert_eq!(strip_block("plain"), "plain");
        assert!(parse_block("plain").is_empty());
        assert!(parse_block("<paddock-attachments>\nunclosed").is_empty());
        // An id that could walk out of the folder is not taken.
        let odd = "<paddock-attachments>\n../x\tfile\tx\t/x\n</paddock-attachments>\n\nhi";
        assert!(parse_block(odd).is_empty());
    }

    #[test]
    fn send_file_snapshots_are_found_in_notices_and_results() {
        let text = snapshot_in_notice(
            "file notes/plan.md (120 bytes, snapshot 0b1c-22.md):\n# Plan\n- one",
        );
        assert_eq!(
            text,
            Some(Listed {
                id: "0b1c-22.md".into(),
                kind: "markdown".into(),
                filename: "plan.md".into(),
                path: String::new(),
            })
        );
        let binary = snapshot_in_notice("file shot.png (2048 bytes, binary, snapshot 77aa.png)");
        assert_eq!(
            binary.map(|l| (l.id, l.kind)),
            Some(("77aa.png".into(), "image".into()))
        );
        assert_eq!(
            snapshot_in_notice("Waiting for a free claude process"),
            None
        );
        let result = snapshot_in_result(
            "mcp__paddock__send_file",
            r#"{"shown":"out/report.csv","bytes":10,"snapshot":"5e5e.csv"}"#,
        );
        assert_eq!(
            result.map(|l| (l.id, l.filename)),
            Some(("5e5e.csv".into(), "report.csv".into()))
        );
        assert_eq!(snapshot_in_result("Read", r#"{"snapshot":"x.csv"}"#), None);
        assert_eq!(
            snapshot_in_result("mcp__paddock__send_file", "not json"),
            None
        );
    }

    #[test]
    fn sizes_read_like_people_write_them() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1023), "1023 B");
        assert_eq!(human_size(12 * 1024), "12 KB");
        assert_eq!(human_size(12 * 1024 + 1), "13 KB");
        assert_eq!(human_size(3_565_158), "3.4 MB");
        assert_eq!(human_size(25 * 1024 * 1024), "25 MB");
    }

    #[test]
    fn uploads_go_by_path_locally_and_by_content_remotely() -> Result<(), Box<dyn std::error::Error>>
    {
        let dir = tempfile::tempdir()?;
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "hello")?;
        let local = uploads(false, std::slice::from_ref(&file))?;
        assert_eq!(local[0].name, "notes.txt");
        assert_eq!(
            local[0].path.as_deref(),
            Some(std::fs::canonicalize(&file)?.to_string_lossy().as_ref())
        );
        assert_eq!(local[0].data, None);
        let remote = uploads(true, std::slice::from_ref(&file))?;
        assert_eq!(
            (remote[0].path.as_deref(), remote[0].data.as_deref()),
            (None, Some("aGVsbG8="))
        );
        let err = uploads(false, &[dir.path().to_path_buf()])
            .err()
            .unwrap_or_default();
        assert!(err.contains("a directory"), "{err}");
        let err = check(&dir.path().join("missing")).err().unwrap_or_default();
        assert!(err.contains("cannot attach"), "{err}");
        Ok(())
    }
}
