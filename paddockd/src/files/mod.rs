//! The file browser's requests: `files:list` and `files:read` (here), and what is known of a
//! file's making: `provenance:file` ([`provenance`]), `provenance:blame` ([`blame`]) and
//! `provenance:touched` ([`touched`]), read from the records `crate::provenance` keeps.
//!
//! Every path is relative to the project's directory and confined to it: an absolute path or a
//! `..` component is refused before the filesystem is touched, and the path is then resolved
//! (symlinks followed) and refused unless it still lies inside the project's directory, so a
//! symlink never leads a client out of the project. Listings are bounded (at most
//! [`FILES_LIST_MAX`] entries, `truncated` past that), and so is a read ([`FILES_READ_MAX`] bytes
//! of text; a file that is not text is answered as `binary`, without its bytes).

pub mod blame;
pub mod provenance;
pub mod touched;

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::confine::{Naming, Private};
use std::time::SystemTime;

use paddock_proto::{
    ErrorBody, ErrorCode, FILES_LIST_MAX, FILES_READ_MAX, FileEntry, FileListing, FileText,
    FilesList, FilesRead,
};

/// Entries of one directory looked at before the listing stops (and says `truncated`).
const SCAN_MAX: usize = 50_000;
/// Bytes looked at for a NUL to call a file binary.
const SNIFF: usize = 8 * 1024;

/// `files:list`.
pub async fn list(d: &crate::chats::ChatService, r: FilesList) -> Result<FileListing, ErrorBody> {
    let project = d.project(&r.project_slug).await?;
    let root = project.agent_dir.clone();
    let slug = project.slug.clone();
    let private = d.cfg.private_state();
    run(move || {
        let limit = r.limit.unwrap_or(FILES_LIST_MAX).min(FILES_LIST_MAX) as usize;
        let (root, dir, rel) = confine(&private, &root, &r.path)?;
        let meta = std::fs::metadata(&dir).map_err(|e| io_error(&rel, &e))?;
        if !meta.is_dir() {
            return Err(invalid(format!("{rel} is not a directory")));
        }
        let (entries, truncated) = list_dir(&private, &root, &dir, &rel, r.hidden, limit)
            .map_err(|e| io_error(&rel, &e))?;
        Ok(FileListing {
            project_slug: slug,
            path: rel,
            entries,
            truncated,
        })
    })
    .await
}

/// `files:read`.
pub async fn read(d: &crate::chats::ChatService, r: FilesRead) -> Result<FileText, ErrorBody> {
    let project = d.project(&r.project_slug).await?;
    let root = project.agent_dir.clone();
    let slug = project.slug.clone();
    let private = d.cfg.private_state();
    run(move || {
        let cap = r.max_bytes.unwrap_or(FILES_READ_MAX).min(FILES_READ_MAX);
        let (_, file, rel) = confine(&private, &root, &r.path)?;
        if rel.is_empty() {
            return Err(invalid("name a file of the project".to_owned()));
        }
        let meta = std::fs::metadata(&file).map_err(|e| io_error(&rel, &e))?;
        if meta.is_dir() {
            return Err(invalid(format!("{rel} is a directory")));
        }
        if !meta.is_file() {
            return Err(invalid(format!("{rel} is not a regular file")));
        }
        let f = crate::confine::open(&file).map_err(|e| io_error(&rel, &e))?;
        let mut buf = Vec::new();
        f.take(cap.saturating_add(1))
            .read_to_end(&mut buf)
            .map_err(|e| io_error(&rel, &e))?;
        let truncated = buf.len() as u64 > cap;
        buf.truncate(usize::try_from(cap).unwrap_or(usize::MAX));
        let (text, binary) = as_text(buf, truncated);
        Ok(FileText {
            project_slug: slug,
            path: rel,
            size: meta.len(),
            mtime: mtime(meta.modified().ok()),
            text,
            binary,
            truncated: truncated && !binary,
        })
    })
    .await
}

/// The text of `buf` (cut at its last whole character when the file went on), or that it is
/// binary: a NUL in its first [`SNIFF`] bytes, or bytes that are not UTF-8.
fn as_text(mut buf: Vec<u8>, truncated: bool) -> (String, bool) {
    if buf.iter().take(SNIFF).any(|b| *b == 0) {
        return (String::new(), true);
    }
    match std::str::from_utf8(&buf) {
        Ok(_) => {}
        // A character cut by the cap: keep what comes before it.
        Err(e) if truncated && e.error_len().is_none() => buf.truncate(e.valid_up_to()),
        Err(_) => return (String::new(), true),
    }
    match String::from_utf8(buf) {
        Ok(s) => (s, false),
        Err(_) => (String::new(), true),
    }
}

/// The project's directory, the target of `rel` inside it, and `rel` normalized (`""` for
/// the top), by the one confinement of every path a request names (`confine.rs`).
fn confine(
    private: &Private,
    root: &Path,
    rel: &str,
) -> Result<(PathBuf, PathBuf, String), ErrorBody> {
    let c = crate::confine::in_project(private, root, rel, Naming::Relative)?;
    Ok((c.root, c.path, c.rel))
}

/// One directory's entries, directories first, then by name; at most `limit`.
fn list_dir(
    private: &Private,
    root: &Path,
    dir: &Path,
    rel: &str,
    hidden: bool,
    limit: usize,
) -> std::io::Result<(Vec<FileEntry>, bool)> {
    let mut entries = Vec::new();
    let mut truncated = false;
    for (seen, entry) in std::fs::read_dir(dir)?.enumerate() {
        if seen >= SCAN_MAX {
            truncated = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        if !hidden && name.starts_with('.') {
            continue;
        }
        let Ok(ft) = entry.file_type() else { continue };
        let symlink = ft.is_symlink();
        // A symlink is described by its target, when that is inside the project.
        let meta = if symlink {
            let named = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            crate::confine::in_project(private, root, &named, Naming::Relative)
                .ok()
                .and_then(|c| std::fs::metadata(c.path).ok())
        } else {
            entry.metadata().ok()
        };
        let outside = symlink && meta.is_none();
        let dir = meta.as_ref().is_some_and(|m| m.is_dir());
        entries.push(FileEntry {
            name,
            dir,
            symlink,
            outside,
            size: meta.as_ref().filter(|m| !m.is_dir()).map_or(0, |m| m.len()),
            mtime: mtime(meta.as_ref().and_then(|m| m.modified().ok())),
        });
    }
    entries.sort_by(|a, b| b.dir.cmp(&a.dir).then_with(|| a.name.cmp(&b.name)));
    if entries.len() > limit {
        entries.truncate(limit);
        truncated = true;
    }
    Ok((entries, truncated))
}

fn mtime(t: Option<SystemTime>) -> Option<String> {
    t.map(|t| {
        chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    })
}

fn invalid(message: String) -> ErrorBody {
    ErrorBody::new(ErrorCode::InvalidArgument, message)
}

fn io_error(rel: &str, e: &std::io::Error) -> ErrorBody {
    let shown = if rel.is_empty() { "." } else { rel };
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            ErrorBody::new(ErrorCode::NotFound, format!("{shown}: no such file"))
        }
        std::io::ErrorKind::PermissionDenied => {
            invalid(format!("{shown} cannot be read: permission denied"))
        }
        _ => invalid(format!("{shown} cannot be read: {e}")),
    }
}

async fn run<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorBody> + Send + 'static,
) -> Result<T, ErrorBody> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ErrorBody::new(ErrorCode::Internal, format!("the file request failed: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_cut_inside_a_character_keeps_what_comes_before() {
        let (t, bin) = as_text("aé".as_bytes()[..2].to_vec(), true);
        assert_eq!((t.as_str(), bin), ("a", false));
        let (_, bin) = as_text(vec![b'a', 0xff, b'b'], false);
        assert!(bin);
        let (_, bin) = as_text(vec![b'a', 0, b'b'], false);
        assert!(bin);
    }
}
