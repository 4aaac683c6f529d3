//! The tool catalogue (names, descriptions, argument schemas, tiers) and what each tool does.
//!
//! Results are text the model reads: JSON objects for what a program would parse (ids),
//! plain sentences for errors, which come back as `isError` results rather than protocol
//! errors so the model can correct itself.

use std::fmt::Write as _;

use paddock_proto::{
    AgentCall, AgentTool, Attribution, ChatFork, ChatScope, Origin, TranscriptEntry,
};
use serde_json::{Value, json};

use super::{FILE_SERVER, Identity, MANAGE_SERVER, MachineTurn, start_turn};
use crate::handles::Daemon;
use crate::stores::RunProvenance;

mod send_file;
pub(crate) mod triggers;

use send_file::{SEND_FILE_KINDS, send_file};

/// The tiers a tool belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tier {
    Read,
    Write,
    Projects,
    Triggers,
}

struct Spec {
    server: &'static str,
    name: &'static str,
    tier: Option<Tier>,
    description: &'static str,
    schema: fn() -> Value,
}

const SPECS: &[Spec] = &[
    Spec {
        server: MANAGE_SERVER,
        name: "list_projects",
        tier: Some(Tier::Read),
        description: "List the projects: slug, directory, and the settings that are set (name, summary, area, status, repo for a repo-backed project, model, driveMode, maxSpawnDepth). The root workspace's slug is \"\".",
        schema: || json!({"type": "object", "properties": {}}),
    },
    Spec {
        server: MANAGE_SERVER,
        name: "list_chats",
        tier: Some(Tier::Read),
        description: "List the chats of a project (default: this chat's project) in tree order: id, title, origin, depth, parent, running.",
        schema: || {
            json!({"type": "object", "properties": {
                "project": {"type": "string", "description": "project slug; \"\" is the root workspace"},
                "scope": {"type": "string", "enum": ["active", "archived", "all"]}
            }})
        },
    },
    Spec {
        server: MANAGE_SERVER,
        name: "read_chat",
        tier: Some(Tier::Read),
        description: "Read a chat's transcript (the last messages, as text).",
        schema: || {
            json!({"type": "object", "properties": {
                "sessionId": {"type": "string"},
                "last": {"type": "integer", "description": "how many entries from the end (default 40)"}
            }, "required": ["sessionId"]})
        },
    },
    Spec {
        server: MANAGE_SERVER,
        name: "create_chat",
        tier: Some(Tier::Write),
        description: "Start a new chat, a child of this one, with a first prompt. It runs on its own; it can report back with send_message. Returns its sessionId.",
        schema: || {
            json!({"type": "object", "properties": {
                "prompt": {"type": "string", "description": "the child's first message"},
                "project": {"type": "string", "description": "project slug (default: this chat's)"},
                "name": {"type": "string", "description": "a title for the child"},
                "model": {"type": "string"},
                "preloadContext": {"type": "boolean", "description": "prepend the project's OVERVIEW.md and the end of its CHANGELOG.md to the prompt"}
            }, "required": ["prompt"]})
        },
    },
    Spec {
        server: MANAGE_SERVER,
        name: "fork_chat",
        tier: Some(Tier::Write),
        description: "Copy a chat (default: this one) into a new chat that continues from its history, optionally with a first prompt. Returns its sessionId.",
        schema: || {
            json!({"type": "object", "properties": {
                "sessionId": {"type": "string", "description": "the chat to fork (default: this chat)"},
                "name": {"type": "string"},
                "prompt": {"type": "string"}
            }})
        },
    },
    Spec {
        server: MANAGE_SERVER,
        name: "send_message",
        tier: Some(Tier::Write),
        description: "Send a message into another chat (for example your parent, to report back). If that chat is busy, the message waits for its current turn to end.",
        schema: || {
            json!({"type": "object", "properties": {
                "sessionId": {"type": "string"},
                "message": {"type": "string"}
            }, "required": ["sessionId", "message"]})
        },
    },
    Spec {
        server: MANAGE_SERVER,
        name: "archive_chat",
        tier: Some(Tier::Write),
        description: "Archive a chat (it leaves the active list; nothing is deleted).",
        schema: || json!({"type": "object", "properties": {"sessionId": {"type": "string"}}, "required": ["sessionId"]}),
    },
    Spec {
        server: MANAGE_SERVER,
        name: "unarchive_chat",
        tier: Some(Tier::Write),
        description: "Bring an archived chat back to the active list.",
        schema: || json!({"type": "object", "properties": {"sessionId": {"type": "string"}}, "required": ["sessionId"]}),
    },
    Spec {
        server: MANAGE_SERVER,
        name: "create_project",
        tier: Some(Tier::Projects),
        description: "Create a project: a notebook (a new folder in paddock's data), a folder of your own (`path`), or a repo-backed project (`repo`: the repository is cloned and the project's agents work in the clone). Returns the new project's slug and directory.",
        schema: || {
            json!({"type": "object", "properties": {
                "name": {"type": "string", "description": "Display name for the new project (required, unless `slug` is given)."},
                "slug": {"type": "string", "description": "Optional slug: lower-case letters, digits, '-', '_' or '.'. Omit to derive it from `name`."},
                "repo": {"type": "string", "description": "Optional git URL (https://, ssh://, git://, file://, git@host:owner/repo) or absolute path of a repository to clone; the project is then repo-backed. Omit for a notebook project."},
                "summary": {"type": "string", "description": "Optional one-line description of the project."},
                "area": {"type": "string", "description": "Optional area (group) the project is filed under."},
                "status": {"type": "string", "enum": ["idea", "active", "paused", "blocked", "done", "abandoned"], "description": "Optional initial status."},
                "path": {"type": "string", "description": "Optional directory the project's agents run in (created if missing; with `repo`, it must be new or empty). Default: a new folder in paddock's data."}
            }})
        },
    },
    Spec {
        server: MANAGE_SERVER,
        name: "promote_project",
        tier: Some(Tier::Projects),
        description: "Turn a notebook project (its files in paddock's data) into a repo-backed one in place: the repository is cloned into the project's folder and its agents work in the clone from their next start. Its chats, OVERVIEW.md and CHANGELOG.md stay. A failed clone leaves the project as it was.",
        schema: || {
            json!({"type": "object", "properties": {
                "project": {"type": "string", "description": "Slug of the notebook project to promote. Omit to promote this chat's project."},
                "repo": {"type": "string", "description": "Git URL (https://, ssh://, git://, file://, git@host:owner/repo) or absolute path of the repository to clone. Required."}
            }, "required": ["repo"]})
        },
    },
    Spec {
        server: MANAGE_SERVER,
        name: "list_triggers",
        tier: Some(Tier::Triggers),
        description: "List the schedules and hooks of a project (default: this chat's project): their settings, next and last fire, the chat a resuming trigger owns, and any problem.",
        schema: || {
            json!({"type": "object", "properties": {
                "project": {"type": "string", "description": "project slug; \"\" is the root workspace"}
            }})
        },
    },
    Spec {
        server: MANAGE_SERVER,
        name: "set_trigger",
        tier: Some(Tier::Triggers),
        description: "Add or replace a trigger of a project (default: this chat's project). A schedule (kind \"schedule\") fires on a five-field cron (with an optional IANA timezone) or every interval (e.g. \"15m\"); a hook (kind \"hook\") fires on turn_completed, turn_failed, child_finished, file_changed (with paths globs and debounce_secs), archived (a chat of the project was archived) or manual (run_trigger only). Each fire starts a chat with the prompt, or with session \"resume\" continues the one chat the trigger owns.",
        schema: || {
            json!({"type": "object", "properties": {
                "name": {"type": "string", "description": "lower-case letters, digits, '-' and '_'"},
                "project": {"type": "string"},
                "kind": {"type": "string", "enum": ["schedule", "hook"]},
                "prompt": {"type": "string", "description": "what the started chat is told"},
                "cron": {"type": "string", "description": "schedule: minute hour day-of-month month day-of-week"},
                "every": {"type": "string", "description": "schedule: an interval such as 30m, 2h, 1d"},
                "timezone": {"type": "string", "description": "schedule with cron: IANA name, default UTC"},
                "missed": {"type": "string", "enum": ["skip", "run_once"]},
                "on": {"type": "string", "enum": ["turn_completed", "turn_failed", "child_finished", "file_changed", "archived", "manual"]},
                "paths": {"type": "array", "items": {"type": "string"}},
                "debounce_secs": {"type": "integer"},
                "session": {"type": "string", "enum": ["new", "resume"]},
                "model": {"type": "string"},
                "enabled": {"type": "boolean"}
            }, "required": ["name", "kind", "prompt"]})
        },
    },
    Spec {
        server: MANAGE_SERVER,
        name: "remove_trigger",
        tier: Some(Tier::Triggers),
        description: "Remove a trigger of a project (default: this chat's project).",
        schema: || {
            json!({"type": "object", "properties": {
                "name": {"type": "string"},
                "project": {"type": "string"}
            }, "required": ["name"]})
        },
    },
    Spec {
        server: MANAGE_SERVER,
        name: "run_trigger",
        tier: Some(Tier::Triggers),
        description: "Fire a trigger now (even a disabled one), optionally with a message instead of its prompt. Returns the chat it started or resumed, or why it was skipped (its previous run still going).",
        schema: || {
            json!({"type": "object", "properties": {
                "name": {"type": "string"},
                "project": {"type": "string"},
                "message": {"type": "string"}
            }, "required": ["name"]})
        },
    },
    Spec {
        server: FILE_SERVER,
        name: "send_file",
        tier: None,
        description: "Show a file to the user in this chat; what is shown is kept as an immutable snapshot. Two ways: pass `content` with a `filename` for an inline file that need not exist on disk (a snippet, a Markdown or Mermaid block; the name can be illustrative, e.g. example.tsx), or pass `file_path` for a real file (relative to your working directory, or absolute). `kind` picks how it is rendered (inferred from the filename when omitted), `language` is a hint for code, `message` a short note shown with the file. Prefer this to pasting long content into your reply.",
        schema: || {
            json!({"type": "object", "properties": {
                "content": {"type": "string", "description": "the text of an inline file; give this or file_path"},
                "file_path": {"type": "string", "description": "a real file, relative to your working directory or absolute; give this or content. A file outside your project directory is sent only if the user approves it"},
                "filename": {"type": "string", "description": "the name shown (default: file_path's, or snippet.txt for content)"},
                "kind": {"type": "string", "enum": SEND_FILE_KINDS, "description": "the renderer; inferred from the filename when omitted"},
                "language": {"type": "string", "description": "a language hint for the code kind, e.g. python"},
                "message": {"type": "string", "description": "a short note shown with the file"},
                "path": {"type": "string", "description": "the same as file_path"},
                "name": {"type": "string", "description": "the same as filename"}
            }})
        },
    },
];

/// Whether a tier is on. Each tier rides on the one below it, and turning a tier on implies
/// the ones below (reference §8: `self_mcp_write` "implies read").
fn tier_on(cfg: &crate::Config, tier: Tier) -> bool {
    match tier {
        Tier::Read => super::read_tier_on(cfg),
        Tier::Write => cfg.self_mcp_write,
        Tier::Projects => cfg.self_mcp_write && cfg.self_mcp_projects,
        Tier::Triggers => cfg.self_mcp_write && cfg.hooks_mcp,
    }
}

/// The tools of `server` a chat may use (`manage`: its process got the self-management tools).
pub fn catalogue(cfg: &crate::Config, server: &str, manage: bool) -> Vec<AgentTool> {
    SPECS
        .iter()
        .filter(|s| s.server == server)
        .filter(|s| match s.tier {
            None => true,
            Some(t) => manage && tier_on(cfg, t),
        })
        .map(|s| AgentTool {
            name: s.name.to_owned(),
            description: s.description.to_owned(),
            input_schema: (s.schema)(),
        })
        .collect()
}

fn arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

fn need<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    arg(args, key)
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| format!("missing argument {key:?}"))
}

/// `create_project`: the reference's arguments (`name` required, `slug` derived from it when
/// absent, `repo`, `summary`, `area`, `status`), plus `path`.
pub(crate) async fn create_project(d: &Daemon, args: &Value) -> Result<String, String> {
    let text = |key: &str| {
        arg(args, key)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let name = text("name");
    let slug = match (text("slug"), &name) {
        (Some(slug), _) => slug,
        (None, Some(name)) => {
            let slug = slugify(name);
            if slug.is_empty() {
                return Err(format!(
                    "Error: cannot make a slug of {name:?}; give `slug` (lower-case letters, digits and '-')"
                ));
            }
            slug
        }
        (None, None) => {
            return Err("Error: `name` is required (the project's display name).".into());
        }
    };
    let status = match text("status") {
        Some(s) => Some(
            s.to_ascii_lowercase()
                .parse::<paddock_proto::ProjectStatus>()
                .map_err(|e| format!("Error: {e}"))?,
        ),
        None => None,
    };
    let p = crate::project_ops::create(
        d,
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

/// Runs a tool the caller may use. `Err` is a message for the model.
pub async fn run(d: &Daemon, who: &Identity, call: &AgentCall) -> Result<String, String> {
    let args = &call.arguments;
    match call.tool.as_str() {
        "list_projects" => {
            let projects = d.projects.list().map_err(|e| e.to_string())?;
            let rows: Vec<Value> = projects
                .iter()
                .map(|p| {
                    // The slug and directory, then the settings that are set (name, summary,
                    // area, status, repo, ...), as `project:list` carries them.
                    serde_json::to_value(p.info())
                        .unwrap_or_else(|_| json!({"slug": p.slug, "path": p.agent_dir}))
                })
                .collect();
            Ok(Value::Array(rows).to_string())
        }
        "list_chats" => {
            let project = arg(args, "project").unwrap_or(&who.project_slug).to_owned();
            let scope = match arg(args, "scope") {
                Some("archived") => ChatScope::Archived,
                Some("all") => ChatScope::All,
                _ => ChatScope::Active,
            };
            let chats = crate::chats::list(d, "agent", Some(&project), scope)
                .await
                .map_err(|e| e.message)?;
            let rows: Vec<Value> = chats
                .iter()
                .map(|c| {
                    json!({"sessionId": c.session_id, "title": c.title, "origin": c.origin,
                        "depth": c.depth, "parent": c.tree_parent, "running": c.running,
                        "archived": c.archived})
                })
                .collect();
            Ok(Value::Array(rows).to_string())
        }
        "read_chat" => {
            let sid = need(args, "sessionId")?;
            let last = args
                .get("last")
                .and_then(Value::as_u64)
                .map_or(40, |n| usize::try_from(n).unwrap_or(40));
            let t = crate::chats::transcript(d, "agent", sid)
                .await
                .map_err(|e| e.message)?;
            Ok(render_text(&t.chat.title, &t.entries, last))
        }
        "create_chat" => create_chat(d, who, args).await,
        "fork_chat" => fork_chat(d, who, args).await,
        "send_message" => {
            let target = need(args, "sessionId")?;
            let message = need(args, "message")?;
            if target == who.session_id {
                return Err("send_message goes to another chat, not this one".into());
            }
            let running = crate::chats::running_sessions(d).await;
            let (project, _) = crate::chats::locate(d, target, &running)
                .await
                .map_err(|e| e.message)?;
            let sid = start_turn(
                d,
                MachineTurn {
                    project,
                    session_id: Some(target.to_owned()),
                    message: message.to_owned(),
                    model: None,
                    origin: Origin::Spawned,
                    provenance: None,
                    attribution: Some(sent_by(d, who)),
                    trigger: None,
                },
            )
            .await
            .map_err(|e| e.message)?;
            let queued = running.contains_key(target);
            Ok(json!({"sessionId": sid, "queued": queued}).to_string())
        }
        "archive_chat" | "unarchive_chat" => {
            let sid = need(args, "sessionId")?;
            let on = call.tool == "archive_chat";
            let running = crate::chats::running_sessions(d).await;
            let (project, _) = crate::chats::locate(d, sid, &running)
                .await
                .map_err(|e| e.message)?;
            crate::chats::archive_one(d, project, sid, on, Some(&who.session_id)).await?;
            Ok(json!({"sessionId": sid, "archived": on}).to_string())
        }
        "create_project" => create_project(d, args).await,
        "promote_project" => {
            let slug = arg(args, "project")
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .unwrap_or(&who.project_slug)
                .to_owned();
            let repo = need(args, "repo")?.trim().to_owned();
            let p = crate::project_ops::promote(d, paddock_proto::ProjectPromote { slug, repo })
                .await
                .map_err(|e| format!("Error promoting project: {}", e.message))?;
            Ok(
                json!({"promoted": true, "slug": p.slug, "path": p.path, "repo": p.repo})
                    .to_string(),
            )
        }
        "list_triggers" | "set_trigger" | "remove_trigger" | "run_trigger" => {
            trigger_tool(d, who, &call.tool, args).await
        }
        "send_file" => send_file(d, who, args).await,
        other => Err(format!("unknown tool {other}")),
    }
}

/// The attribution of a turn this chat injects elsewhere: "↩ sent by <its title>".
fn sent_by(d: &Daemon, who: &Identity) -> Attribution {
    Attribution::Sent {
        from_session_id: who.session_id.clone(),
        from_project: who.project_slug.clone(),
        from_title: d.state.title_now(&who.session_id).map(|t| {
            t.lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(80)
                .collect()
        }),
    }
}

fn depth_of(d: &Daemon, sid: &str) -> u32 {
    d.state
        .stores
        .run_provenance
        .get(sid)
        .map_or(0, |p| p.depth)
}

async fn create_chat(d: &Daemon, who: &Identity, args: &Value) -> Result<String, String> {
    let prompt = need(args, "prompt")?;
    let slug = arg(args, "project").unwrap_or(&who.project_slug);
    let project = d.project(slug).await.map_err(|e| e.message)?;
    let depth = depth_of(d, &who.session_id) + 1;
    let preload = args
        .get("preloadContext")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let message = if preload {
        crate::preload::compose(&project.meta_dir, prompt)
    } else {
        prompt.to_owned()
    };
    let sid = start_turn(
        d,
        MachineTurn {
            project: project.clone(),
            session_id: None,
            message,
            model: arg(args, "model").map(str::to_owned),
            origin: Origin::Spawned,
            provenance: Some(RunProvenance {
                origin: Origin::Spawned,
                depth,
                parent_session_id: Some(who.session_id.clone()),
                parent_project: Some(who.project_slug.clone()),
                created_at: None,
                trigger: None,
                title: arg(args, "name")
                    .map(|n| n.trim().to_owned())
                    .filter(|n| !n.is_empty()),
            }),
            attribution: Some(sent_by(d, who)),
            trigger: None,
        },
    )
    .await
    .map_err(|e| e.message)?;
    let tools = super::grants_tools(&d.cfg, &project, depth, false);
    Ok(
        json!({"sessionId": sid, "project": project.slug, "depth": depth,
        "hasSelfManagementTools": tools})
        .to_string(),
    )
}

async fn fork_chat(d: &Daemon, who: &Identity, args: &Value) -> Result<String, String> {
    let source = arg(args, "sessionId").unwrap_or(&who.session_id).to_owned();
    let forked = crate::chats::fork_as(
        d,
        ChatFork {
            session_id: source,
            name: arg(args, "name").map(str::to_owned),
        },
        Origin::Spawned,
    )
    .await
    .map_err(|e| e.message)?;
    if let Some(prompt) = arg(args, "prompt").filter(|p| !p.trim().is_empty()) {
        let project = d
            .project(&forked.project_slug)
            .await
            .map_err(|e| e.message)?;
        start_turn(
            d,
            MachineTurn {
                project,
                session_id: Some(forked.session_id.clone()),
                message: prompt.to_owned(),
                model: None,
                origin: Origin::Spawned,
                provenance: None,
                attribution: Some(sent_by(d, who)),
                trigger: None,
            },
        )
        .await
        .map_err(|e| e.message)?;
    }
    let depth = depth_of(d, &forked.session_id);
    Ok(
        json!({"sessionId": forked.session_id, "project": forked.project_slug, "depth": depth})
            .to_string(),
    )
}

/// The trigger tools, on the calling chat's project unless `project` names another.
async fn trigger_tool(
    d: &Daemon,
    who: &Identity,
    tool: &str,
    args: &Value,
) -> Result<String, String> {
    let project = arg(args, "project").unwrap_or(&who.project_slug).to_owned();
    triggers::call(d, project, tool, args).await
}

/// The largest char boundary of `s` at or below `max` (`String::truncate` panics elsewhere).
fn floor_char_boundary(s: &str, max: usize) -> usize {
    (0..=max.min(s.len()))
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0)
}

/// A transcript as plain text for `read_chat`: the last `last` entries.
pub(crate) fn render_text(title: &str, entries: &[TranscriptEntry], last: usize) -> String {
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
    use super::send_file::{arg_or, infer_kind, infer_language};
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
    fn send_file_infers_the_kind_and_language_from_the_name() {
        for (name, kind) in [
            ("flow.mmd", "mermaid"),
            ("README.md", "markdown"),
            ("main.rs", "code"),
            ("page.html", "html"),
            ("shot.PNG", "image"),
            ("demo.webm", "video"),
            ("spec.pdf", "pdf"),
            ("notes.txt", "text"),
            ("Makefile", "text"),
        ] {
            assert_eq!(infer_kind(name), kind, "{name}");
        }
        assert_eq!(infer_language("example.tsx"), Some("tsx"));
        assert_eq!(infer_language("notes.txt"), None);
        let args = json!({"path": "a.md", "file_path": "  ", "name": "shown.md"});
        assert_eq!(
            arg_or(&args, "file_path", "path"),
            Some("a.md"),
            "a blank key falls back"
        );
        assert_eq!(arg_or(&args, "filename", "name"), Some("shown.md"));
    }

    #[test]
    fn tiers_gate_the_catalogue() {
        let mut cfg =
            crate::Config::for_data_dir(std::path::Path::new("/d"), std::path::Path::new("/s"));
        let names = |cfg: &crate::Config, manage| {
            catalogue(cfg, MANAGE_SERVER, manage)
                .into_iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
        };
        assert!(names(&cfg, true).contains(&"create_chat".to_owned()));
        assert!(
            !names(&cfg, true).contains(&"create_project".to_owned()),
            "projects tier off by default"
        );
        assert!(
            !names(&cfg, true).contains(&"set_trigger".to_owned()),
            "triggers tier off by default"
        );
        cfg.hooks_mcp = true;
        for t in [
            "list_triggers",
            "set_trigger",
            "remove_trigger",
            "run_trigger",
        ] {
            assert!(names(&cfg, true).contains(&t.to_owned()), "{t}");
        }
        assert!(names(&cfg, false).is_empty(), "past the depth gate: none");
        cfg.self_mcp_write = false;
        assert_eq!(
            names(&cfg, true),
            ["list_projects", "list_chats", "read_chat"]
        );
        cfg.self_mcp = false;
        assert!(names(&cfg, true).is_empty());
        // The write tier implies the read tier.
        cfg.self_mcp_write = true;
        let with_write = names(&cfg, true);
        for t in ["list_projects", "list_chats", "read_chat", "create_chat"] {
            assert!(with_write.contains(&t.to_owned()), "{t}: {with_write:?}");
        }
        // send_file is always there.
        assert_eq!(catalogue(&cfg, FILE_SERVER, false).len(), 1);
    }
}
