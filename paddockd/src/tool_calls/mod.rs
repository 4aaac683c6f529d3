//! What the MCP tools do that a chat's tools (`agent/tools.rs`) and a management client's
//! (`management/tools.rs`) share: reading the arguments, starting a chat, sending into one,
//! forking, archiving, reading a transcript as text, creating a project, and the trigger
//! tools ([`triggers`]).
//!
//! Each surface decides first who acts and where: a chat acts as itself (its turns are
//! `spawned`, attributed to it, nested under it, in its project unless it names another); a
//! client acts for a person (`human`, root chats, only in the projects it may reach). The
//! [`Acting`] it passes in carries that. Results are text the model reads: JSON for what a
//! program would parse, plain sentences for errors.

pub(crate) mod triggers;

use std::fmt::Write as _;

use paddock_proto::{Attribution, ChatFork, Forked, Origin, TranscriptEntry};
use serde_json::{Value, json};

use crate::handles::Daemon;
use crate::machine_turns::{MachineTurn, start_turn};
use crate::projects::Project;
use crate::stores::RunProvenance;

/// Who a tool's turns are, as History and the transcript show them.
#[derive(Debug, Clone)]
pub struct Acting {
    pub origin: Origin,
    /// Shown above an injected message ("↩ sent by …"); `None` for a person's.
    pub attribution: Option<Attribution>,
    /// The acting chat's turn, whose depth and tree the turns it starts run at
    /// (`lineage.rs`); `None` for a person's.
    pub cause: Option<crate::lineage::Lineage>,
}

impl Acting {
    /// A turn of `message` in chat `session_id` of `project` (`None`: a new chat), as this
    /// actor, with the daemon's model and no new provenance.
    fn turn(&self, project: Project, session_id: Option<String>, message: String) -> MachineTurn {
        MachineTurn {
            project,
            session_id,
            message,
            model: None,
            origin: self.origin,
            provenance: None,
            attribution: self.attribution.clone(),
            trigger: None,
            cause: self.cause.clone(),
        }
    }
}

/// A string argument.
pub fn arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// A string argument that must be there and not blank.
pub fn need<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    arg(args, key)
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| format!("missing argument {key:?} (a non-empty string)"))
}

/// A new chat's first message: `prompt`, after the project's curated context when `preload`.
pub fn first_message(project: &Project, prompt: &str, preload: bool) -> String {
    if preload {
        crate::preload::compose(&project.meta_dir, prompt)
    } else {
        prompt.to_owned()
    }
}

/// Starts a new chat in `project` with `message`, stamped with `provenance`; its session id.
pub async fn start_chat(
    d: &Daemon,
    acting: &Acting,
    project: Project,
    message: String,
    model: Option<String>,
    provenance: RunProvenance,
) -> Result<String, String> {
    let turn = MachineTurn {
        model,
        provenance: Some(provenance),
        ..acting.turn(project, None, message)
    };
    start_turn(d.starter(), turn).await.map_err(|e| e.message)
}

/// Sends `message` into chat `target` of `project` (queued behind a running turn): its
/// session id and whether it waits.
pub async fn send_message(
    d: &Daemon,
    acting: &Acting,
    project: Project,
    target: &str,
    message: &str,
) -> Result<String, String> {
    let running = d.hub.running().await;
    let sid = continue_chat(d, acting, project, target, message).await?;
    let queued = running.contains_key(target);
    Ok(json!({"sessionId": sid, "queued": queued}).to_string())
}

/// A turn in an existing chat.
async fn continue_chat(
    d: &Daemon,
    acting: &Acting,
    project: Project,
    session_id: &str,
    message: &str,
) -> Result<String, String> {
    let turn = acting.turn(project, Some(session_id.to_owned()), message.to_owned());
    start_turn(d.starter(), turn).await.map_err(|e| e.message)
}

/// Forks chat `source` (titled `name`), then starts the fork's first turn with `prompt` when
/// there is one.
pub async fn fork_chat(
    d: &Daemon,
    acting: &Acting,
    source: &str,
    name: Option<&str>,
    prompt: Option<&str>,
) -> Result<Forked, String> {
    let forked = crate::git::fork_chat(
        &d.chats,
        ChatFork {
            session_id: source.to_owned(),
            name: name.map(str::to_owned),
        },
        acting.origin,
        acting.cause.as_ref().map_or(0, |c| c.depth),
    )
    .await
    .map_err(|e| e.message)?;
    if let Some(prompt) = prompt.filter(|p| !p.trim().is_empty()) {
        let project = d
            .project(&forked.project_slug)
            .await
            .map_err(|e| e.message)?;
        continue_chat(d, acting, project, &forked.session_id, prompt).await?;
    }
    Ok(forked)
}

/// Archives chat `sid` of `project` (or, `on` false, brings it back); `by` is the chat whose
/// tool asked, when one did.
pub async fn archive(
    d: &Daemon,
    project: Project,
    sid: &str,
    on: bool,
    by: Option<&str>,
) -> Result<String, String> {
    crate::chats::archive_one(&d.chats, project, sid, on, by).await?;
    Ok(json!({"sessionId": sid, "archived": on}).to_string())
}

/// `read_chat`: the last `last` entries of chat `sid` as text, read as `user`.
pub async fn read_chat(d: &Daemon, user: &str, sid: &str, last: usize) -> Result<String, String> {
    let t = crate::chats::transcript(&d.chats, user, sid)
        .await
        .map_err(|e| e.message)?;
    Ok(render_text(&t.chat.title, &t.entries, last))
}

/// A text argument, trimmed, when not blank.
fn text(args: &Value, key: &str) -> Option<String> {
    arg(args, key)
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

/// The slug `create_project` gives the new project: `slug`, else one derived from `name`.
pub fn new_project_slug(args: &Value) -> Result<String, String> {
    match (text(args, "slug"), text(args, "name")) {
        (Some(slug), _) => Ok(slug),
        (None, Some(name)) => {
            let slug = slugify(&name);
            if slug.is_empty() {
                return Err(format!(
                    "Error: cannot make a slug of {name:?}; give `slug` (lower-case letters, digits and '-')"
                ));
            }
            Ok(slug)
        }
        (None, None) => Err("Error: `name` is required (the project's display name).".into()),
    }
}

/// `create_project`: the reference's arguments (`name` required, `slug` derived from it when
/// absent, `repo`, `summary`, `area`, `status`), plus `path`.
pub async fn create_project(d: &Daemon, args: &Value) -> Result<String, String> {
    let text = |key: &str| text(args, key);
    let name = text("name");
    let slug = new_project_slug(args)?;
    let status = match text("status") {
        Some(s) => Some(
            s.to_ascii_lowercase()
                .parse::<paddock_proto::ProjectStatus>()
                .map_err(|e| format!("Error: {e}"))?,
        ),
        None => None,
    };
    let p = crate::project_ops::create(
        &d.project_ops,
        paddock_proto::ProjectCreate {
            slug,
            path: text("path"),
            repo: text("repo"),
            name,
            summary: text("summary"),
            area: text("area"),
            status,
        },
    )
    .await
    .map_err(|e| format!("Error creating project: {}", e.message))?;
    Ok(json!({
        "created": true,
        "slug": p.slug,
        "path": p.path,
        "name": p.name,
        "repo": p.repo,
        "summary": p.summary,
        "area": p.area,
        "status": p.status,
    })
    .to_string())
}

/// A slug from a display name: lower-case letters and digits, other runs as one '-'.
fn slugify(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out.trim_end_matches('-').chars().take(64).collect();
    out.trim_end_matches('-').to_owned()
}

/// The largest char boundary of `s` at or below `max` (`String::truncate` panics elsewhere).
fn floor_char_boundary(s: &str, max: usize) -> usize {
    (0..=max.min(s.len()))
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0)
}

/// A transcript as plain text for `read_chat`: the last `last` entries.
pub fn render_text(title: &str, entries: &[TranscriptEntry], last: usize) -> String {
    let mut out = format!("# {}\n", title.lines().next().unwrap_or_default());
    let skip = entries.len().saturating_sub(last);
    for e in &entries[skip..] {
        let _ = match e {
            TranscriptEntry::User {
                text, attribution, ..
            } => match attribution {
                Some(_) => writeln!(out, "\n[injected] user: {text}"),
                None => writeln!(out, "\nuser: {text}"),
            },
            TranscriptEntry::Assistant { text, .. } => writeln!(out, "\nassistant: {text}"),
            TranscriptEntry::ToolUse { name, input, .. } => {
                let mut shown = input.to_string();
                shown.truncate(floor_char_boundary(&shown, 300));
                writeln!(out, "tool {name}: {shown}")
            }
            TranscriptEntry::ToolResult {
                output, is_error, ..
            } => {
                let mut shown = output.clone();
                shown.truncate(floor_char_boundary(&shown, 500));
                writeln!(
                    out,
                    "result{}: {shown}",
                    if *is_error { " (error)" } else { "" }
                )
            }
            TranscriptEntry::Thinking { .. } => Ok(()),
            TranscriptEntry::Compaction { .. } => writeln!(out, "(compacted)"),
            TranscriptEntry::Interrupted { text } => writeln!(out, "({text})"),
            TranscriptEntry::ApiError { text, .. } => writeln!(out, "(api error: {text})"),
        };
    }
    const MAX: usize = 20_000;
    if out.len() > MAX {
        let cut = out.len() - MAX;
        let start = (cut..out.len())
            .find(|&i| out.is_char_boundary(i))
            .unwrap_or(0);
        out = format!("(…earlier text cut…)\n{}", &out[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_chat_cuts_long_tool_text_on_char_boundaries() {
        let entries = vec![TranscriptEntry::ToolResult {
            tool_use_id: "t".into(),
            output: "é".repeat(400),
            is_error: false,
        }];
        let text = render_text("t", &entries, 10);
        assert!(text.contains(&"é".repeat(250)), "{text}");
        assert!(!text.contains(&"é".repeat(251)), "{text}");
    }

    #[test]
    fn a_slug_is_made_of_a_name() {
        assert_eq!(slugify("My  New Project!"), "my-new-project");
        assert_eq!(slugify("---"), "");
    }
}
