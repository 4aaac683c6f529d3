//! `send_file`: a file shown to the user in the chat (inline content or a real file), kept as
//! a snapshot in the attachment store; a file outside the project waits for an approval.

use serde_json::{Value, json};

use crate::agent::Identity;
use crate::handles::Daemon;

use crate::tool_calls::arg;

/// How many lines of a text file `send_file` shows inline.
pub(super) const SEND_FILE_LINES: usize = 60;

/// The largest file (or inline content) `send_file` shows.
pub(super) const SEND_FILE_MAX: u64 = 1024 * 1024;

/// The renderers a sent file may ask for (the reference's `kind`).
pub(super) use crate::tool_catalogue::SEND_FILE_KINDS;

/// The file's extension, lower-cased, without the dot.
pub(super) fn extension_of(name: &str) -> String {
    std::path::Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// The renderer a file's name suggests.
pub(super) fn infer_kind(name: &str) -> &'static str {
    match extension_of(name).as_str() {
        "mmd" | "mermaid" => "mermaid",
        "mp4" | "webm" | "mov" | "m4v" => "video",
        "svg" | "avif" => "image",
        _ => match crate::attachments::kind_of(name) {
            "image" => "image",
            "pdf" => "pdf",
            "markdown" => "markdown",
            "html" => "html",
            "code" => "code",
            _ => "text",
        },
    }
}

/// The language a code file's name suggests.
pub(super) fn infer_language(name: &str) -> Option<&'static str> {
    Some(match extension_of(name).as_str() {
        "rs" => "rust",
        "ts" => "typescript",
        "tsx" => "tsx",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "jsx",
        "py" => "python",
        "go" => "go",
        "rb" => "ruby",
        "java" => "java",
        "c" | "h" => "c",
        "cpp" | "cc" | "hpp" => "cpp",
        "sh" | "bash" | "zsh" => "bash",
        "json" => "json",
        "yaml" | "yml" => "yaml",
        "toml" => "toml",
        "sql" => "sql",
        "css" => "css",
        _ => return None,
    })
}

/// An argument that is a non-blank string, under its name or its alias.
pub(super) fn arg_or<'a>(args: &'a Value, key: &str, alias: &str) -> Option<&'a str> {
    [key, alias]
        .into_iter()
        .filter_map(|k| arg(args, k))
        .find(|v| !v.trim().is_empty())
}

/// `send_file`: an inline file (`content`) or a real one (`file_path`, alias `path`), kept as
/// a snapshot in the attachment store and shown in the chat as a notice.
pub(super) async fn send_file(d: &Daemon, who: &Identity, args: &Value) -> Result<String, String> {
    let filename = arg_or(args, "filename", "name");
    let message = arg(args, "message")
        .map(str::trim)
        .filter(|m| !m.is_empty());
    let kind_arg = kind_asked(args)?;
    let (shown, bytes, source) = what_to_show(d, who, args, filename, kind_arg)?;
    let kind = kind_arg.unwrap_or_else(|| infer_kind(&shown));
    let language = (kind == "code")
        .then(|| {
            arg(args, "language")
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .or_else(|| infer_language(&shown).map(str::to_owned))
        })
        .flatten();
    let size = bytes.len();
    let snapshot = keep_snapshot(d, &shown, &bytes)?;
    let notice = notice_of(&shown, kind, &snapshot.id, message, bytes);
    d.hub
        .emit(
            &who.session_id,
            paddock_proto::ChatEvent::Notice(paddock_proto::Notice {
                kind: paddock_proto::NoticeKind::Info,
                message: notice,
            }),
        )
        .await;
    let mut result = json!({
        "shown": shown,
        "filename": shown,
        "bytes": size,
        "snapshot": snapshot.id,
        "kind": kind,
        "source": source,
    });
    if let Some(language) = language {
        result["language"] = json!(language);
    }
    if let Some(message) = message {
        result["message"] = json!(message);
    }
    Ok(result.to_string())
}

/// The renderer the call asked for, if it named one (a known one).
fn kind_asked(args: &Value) -> Result<Option<&'static str>, String> {
    match arg(args, "kind").map(str::trim).filter(|k| !k.is_empty()) {
        None => Ok(None),
        Some(k) => SEND_FILE_KINDS
            .into_iter()
            .find(|known| *known == k)
            .map(Some)
            .ok_or_else(|| format!("kind {k:?} is not one of {}", SEND_FILE_KINDS.join(", "))),
    }
}

/// The name shown, the bytes and where they came from (`inline` or `file`): the call's
/// `content`, or the real file it names, within the size limit.
fn what_to_show(
    d: &Daemon,
    who: &Identity,
    args: &Value,
    filename: Option<&str>,
    kind_arg: Option<&'static str>,
) -> Result<(String, Vec<u8>, &'static str), String> {
    match (arg(args, "content"), arg_or(args, "file_path", "path")) {
        (Some(content), _) => {
            let shown = filename.unwrap_or("snippet.txt").to_owned();
            if content.len() as u64 > SEND_FILE_MAX {
                return Err(format!(
                    "the content is {} bytes; send_file shows files up to {SEND_FILE_MAX} bytes",
                    content.len()
                ));
            }
            let kind = kind_arg.unwrap_or_else(|| infer_kind(&shown));
            if matches!(kind, "image" | "video" | "pdf") {
                return Err(format!(
                    "inline content cannot be a {kind}; save it to a file and pass file_path"
                ));
            }
            Ok((shown, content.as_bytes().to_vec(), "inline"))
        }
        (None, Some(raw)) => {
            let bytes = read_real_file(d, who, raw)?;
            Ok((filename.unwrap_or(raw).to_owned(), bytes, "file"))
        }
        (None, None) => Err(
            "send_file needs either content (an inline file, with a filename) or file_path (a real file)"
                .into(),
        ),
    }
}

/// An immutable snapshot of what was shown, for `paddock attachment` and the TUI.
fn keep_snapshot(
    d: &Daemon,
    shown: &str,
    bytes: &[u8],
) -> Result<crate::attachments::Stored, String> {
    let folder = crate::attachments::dir(&d.cfg.data_dir);
    crate::fsutil::create_private_dir(&folder)
        .map_err(|e| format!("cannot keep a snapshot of {shown}: {e}"))
        .and_then(|()| {
            let base = std::path::Path::new(shown)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(shown);
            crate::attachments::keep(&folder, base, bytes).map_err(|e| e.message)
        })
}

/// The chat's notice: a first line naming the file and its snapshot (clients read it), then
/// the note, then a text file's first lines, or nothing for anything else.
fn notice_of(
    shown: &str,
    kind: &str,
    snapshot_id: &str,
    message: Option<&str>,
    bytes: Vec<u8>,
) -> String {
    let size = bytes.len();
    let note: String = message
        .map(|m| m.lines().map(|l| format!("> {l}\n")).collect())
        .unwrap_or_default();
    let media = matches!(kind, "image" | "video" | "pdf");
    match String::from_utf8(bytes) {
        Ok(text) if !media => {
            let total = text.lines().count();
            let mut head: Vec<&str> = text.lines().take(SEND_FILE_LINES).collect();
            let more = total.saturating_sub(head.len());
            let tail = format!("… {more} more lines");
            if more > 0 {
                head.push(&tail);
            }
            format!(
                "file {shown} ({size} bytes, snapshot {snapshot_id}):\n{note}{}",
                head.join("\n")
            )
        }
        text => format!(
            "file {shown} ({size} bytes, {}, snapshot {snapshot_id})\n{note}",
            if text.is_ok() { kind } else { "binary" },
        )
        .trim_end()
        .to_owned(),
    }
}

/// The bytes of a real file `send_file` was given: relative paths are the project's. A file
/// inside the project's directory (symlinks resolved) is read at once; one outside only when a
/// scoped rule allows it or a person allowed this call in the approvals inbox (the CLI asks
/// before the call, `permissions.rs`); paddockd's own state never (`confine.rs`).
pub(super) fn read_real_file(d: &Daemon, who: &Identity, raw: &str) -> Result<Vec<u8>, String> {
    use crate::confine::{Naming, Place};
    let project = d
        .projects
        .get_blocking(&who.project_slug)
        .map_err(|e| e.to_string())?;
    let private = d.cfg.private_state();
    let path = match crate::confine::locate(&private, &project.agent_dir, raw, Naming::Agent) {
        Ok(Place::Inside(c)) => c.path,
        Ok(Place::Outside(path)) => {
            if !outside_allowed(d, who, &project, &private, &path) {
                return Err(format!(
                    "{raw} is outside project {} ({}) and no one approved sending it; a send_file of a file outside the project waits for a person's approval in paddock's approvals inbox, so send a file inside the project, or call send_file again to ask",
                    if project.slug.is_empty() {
                        "(root)"
                    } else {
                        project.slug.as_str()
                    },
                    project.agent_dir.display()
                ));
            }
            path
        }
        Err(crate::confine::Refused::Io { source, .. }) => {
            return Err(format!(
                "cannot read {raw}: {source}; a relative path is from {}",
                project.agent_dir.display()
            ));
        }
        Err(e) => return Err(e.to_string()),
    };
    let meta = std::fs::metadata(&path).map_err(|e| {
        format!(
            "cannot read {raw} ({}): {e}; a relative path is from {}",
            path.display(),
            project.agent_dir.display()
        )
    })?;
    if !meta.is_file() {
        return Err(format!("{raw} is not a file"));
    }
    if meta.len() > SEND_FILE_MAX {
        return Err(format!(
            "{raw} is {} bytes; send_file shows files up to {SEND_FILE_MAX} bytes",
            meta.len()
        ));
    }
    let mut bytes = Vec::new();
    crate::confine::open(&path)
        .and_then(|f| {
            use std::io::Read as _;
            f.take(SEND_FILE_MAX + 1).read_to_end(&mut bytes)
        })
        .map_err(|e| format!("cannot read {raw}: {e}"))?;
    if bytes.len() as u64 > SEND_FILE_MAX {
        return Err(format!(
            "{raw} grew past {SEND_FILE_MAX} bytes while it was read; send_file shows files up to that"
        ));
    }
    Ok(bytes)
}

/// Whether a file outside the project (`path`, resolved) may be sent: a scoped rule of the
/// configuration or the project names it, or a person allowed this chat's call for it (the
/// grant is used up).
pub(super) fn outside_allowed(
    d: &Daemon,
    who: &Identity,
    project: &crate::projects::Project,
    private: &crate::confine::Private,
    path: &std::path::Path,
) -> bool {
    use crate::confine::{Naming, Place};
    use crate::permissions::{self, SEND_FILE};
    let rules: Vec<String> = d
        .cfg
        .allowed_tools
        .iter()
        .chain(project.file.allowed_tools.iter())
        .cloned()
        .collect();
    let resolved = json!({ "file_path": path });
    if permissions::allowed(SEND_FILE, &resolved, &rules, &project.agent_dir) {
        return true;
    }
    d.state.approvals.take_grant(&who.session_id, |input| {
        permissions::send_file_path(input).is_some_and(|raw| {
            matches!(
                crate::confine::locate(private, &project.agent_dir, raw, Naming::Agent),
                Ok(Place::Outside(p)) if p == path
            )
        })
    })
}
