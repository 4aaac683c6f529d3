//! Every MCP tool paddockd offers, in one table: its name, who may be offered it (a chat, on
//! which of its two servers and in which tier; an external client of the management
//! endpoint), and how it is described to each, with its arguments' schema.
//!
//! The two audiences read different words because the same tool acts differently for them: a
//! chat's `create_chat` starts a child of that chat in its own project by default, a client's
//! starts a root chat in the project it names. A chat's tools act only on the projects its
//! own project reaches, a client's on those its `projects` names (`reach.rs`). What a tool
//! does is in `tool_calls/` (the parts both share), `agent/tools.rs` (as a chat) and
//! `management/tools.rs` (as a client).

use paddock_proto::AgentTool;
use serde_json::{Value, json};

/// The self-management server a chat's tools are on (the reference's key).
pub const MANAGE_SERVER: &str = "paddock_manage";
/// The server of the tools every chat has (`send_file`).
pub const FILE_SERVER: &str = "paddock";

/// The kinds `send_file` renders, as its schema lists them.
pub const SEND_FILE_KINDS: [&str; 8] = [
    "markdown", "mermaid", "code", "text", "html", "image", "video", "pdf",
];

/// Rows `list_chats` gives a client by default, and at most.
pub const LIST_DEFAULT: usize = 100;
pub const LIST_MAX: usize = 1000;
/// Entries `read_chat` gives by default, and at most for a client.
pub const READ_DEFAULT: usize = 40;
pub const READ_MAX: usize = 200;

/// Who reads a tool's description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// A chat's claude, through the MCP bridge: it acts as that chat.
    Chat,
    /// An external client of the management endpoint: it acts for a person.
    Client,
}

/// The self-management tiers a chat's tool belongs to (each configured on its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    Read,
    Write,
    Projects,
    Triggers,
}

/// How a chat is offered a tool.
#[derive(Debug, Clone, Copy)]
pub struct ForChat {
    pub server: &'static str,
    /// `None`: every chat has it, whatever the tiers and the depth gate say.
    pub tier: Option<Tier>,
}

/// One tool.
pub struct Tool {
    pub name: &'static str,
    /// Offered to chats, and how.
    pub chat: Option<ForChat>,
    /// Offered to the management endpoint's clients.
    pub client: bool,
    /// What it does, as a chat reads it.
    pub about: &'static str,
    /// What it does, as a client reads it, where the words differ.
    pub about_client: Option<&'static str>,
    /// Its arguments, as each audience may give them.
    pub schema: fn(Audience) -> Value,
}

impl Tool {
    /// The tool as `tools/list` shows it to `audience`.
    pub fn listed(&self, audience: Audience) -> AgentTool {
        let about = match audience {
            Audience::Chat => self.about,
            Audience::Client => self.about_client.unwrap_or(self.about),
        };
        AgentTool {
            name: self.name.to_owned(),
            description: about.to_owned(),
            input_schema: (self.schema)(audience),
        }
    }
}

const fn manage(tier: Tier) -> Option<ForChat> {
    Some(ForChat {
        server: MANAGE_SERVER,
        tier: Some(tier),
    })
}

/// An object schema of `properties`, with `required` keys.
fn object(properties: Value, required: &[&str]) -> Value {
    if required.is_empty() {
        json!({"type": "object", "properties": properties})
    } else {
        json!({"type": "object", "properties": properties, "required": required})
    }
}

/// `required`, with `project` first for a client, who has no chat's project to default to.
fn with_project<'a>(audience: Audience, required: &[&'a str]) -> Vec<&'a str> {
    let mut keys = Vec::with_capacity(required.len() + 1);
    if audience == Audience::Client {
        keys.push("project");
    }
    keys.extend_from_slice(required);
    keys
}

fn session_only(_: Audience) -> Value {
    object(json!({"sessionId": {"type": "string"}}), &["sessionId"])
}

fn no_arguments(_: Audience) -> Value {
    object(json!({}), &[])
}

fn list_chats_schema(audience: Audience) -> Value {
    match audience {
        Audience::Chat => object(
            json!({
                "project": {"type": "string", "description": "project slug (default: this chat's; \"\" is the root workspace); another project only when this chat's project reaches it"},
                "scope": {"type": "string", "enum": ["active", "archived", "all"]}
            }),
            &[],
        ),
        Audience::Client => object(
            json!({
                "project": {"type": "string", "description": "a project slug (\"\" is the root workspace); default: every project"},
                "scope": {"type": "string", "enum": ["active", "archived", "all"], "description": "default: active"},
                "limit": {"type": "integer", "minimum": 1, "maximum": LIST_MAX, "description": format!("at most this many chats (default {LIST_DEFAULT})")}
            }),
            &[],
        ),
    }
}

fn read_chat_schema(audience: Audience) -> Value {
    let last = match audience {
        Audience::Chat => {
            json!({"type": "integer", "description": format!("how many entries from the end (default {READ_DEFAULT})")})
        }
        Audience::Client => {
            json!({"type": "integer", "minimum": 1, "maximum": READ_MAX, "description": format!("how many entries from the end (default {READ_DEFAULT})")})
        }
    };
    object(
        json!({"sessionId": {"type": "string"}, "last": last}),
        &["sessionId"],
    )
}

fn create_chat_schema(audience: Audience) -> Value {
    let preload = json!({"type": "boolean", "description": "prepend the project's OVERVIEW.md and the end of its CHANGELOG.md to the prompt"});
    match audience {
        Audience::Chat => object(
            json!({
                "prompt": {"type": "string", "description": "the child's first message"},
                "project": {"type": "string", "description": "project slug (default: this chat's); another project only when this chat's project reaches it (list_projects lists those)"},
                "name": {"type": "string", "description": "a title for the child"},
                "model": {"type": "string"},
                "preloadContext": preload
            }),
            &["prompt"],
        ),
        Audience::Client => object(
            json!({
                "project": {"type": "string", "description": "project slug (\"\" is the root workspace; list_projects lists them)"},
                "prompt": {"type": "string", "description": "the chat's first message"},
                "model": {"type": "string", "description": "default: the daemon's"},
                "preloadContext": preload
            }),
            &["project", "prompt"],
        ),
    }
}

fn fork_chat_schema(audience: Audience) -> Value {
    match audience {
        Audience::Chat => object(
            json!({
                "sessionId": {"type": "string", "description": "the chat to fork (default: this chat)"},
                "name": {"type": "string"},
                "prompt": {"type": "string"}
            }),
            &[],
        ),
        Audience::Client => object(
            json!({
                "sessionId": {"type": "string", "description": "the chat to fork"},
                "name": {"type": "string", "description": "the fork's title"},
                "prompt": {"type": "string", "description": "a first message for the fork"}
            }),
            &["sessionId"],
        ),
    }
}

fn send_message_schema(_: Audience) -> Value {
    object(
        json!({"sessionId": {"type": "string"}, "message": {"type": "string"}}),
        &["sessionId", "message"],
    )
}

fn create_project_schema(audience: Audience) -> Value {
    let status = ["idea", "active", "paused", "blocked", "done", "abandoned"];
    let properties = match audience {
        Audience::Chat => json!({
            "name": {"type": "string", "description": "Display name for the new project (required, unless `slug` is given)."},
            "slug": {"type": "string", "description": "Optional slug: lower-case letters, digits, '-', '_' or '.'. Omit to derive it from `name`."},
            "repo": {"type": "string", "description": "Optional git URL (https://, ssh://, git://, file://, git@host:owner/repo) or absolute path of a repository to clone; the project is then repo-backed. Omit for a notebook project."},
            "summary": {"type": "string", "description": "Optional one-line description of the project."},
            "area": {"type": "string", "description": "Optional area (group) the project is filed under."},
            "status": {"type": "string", "enum": status, "description": "Optional initial status."},
            "path": {"type": "string", "description": "Optional directory the project's agents run in (created if missing; with `repo`, it must be new or empty). Default: a new folder in paddock's data."}
        }),
        Audience::Client => json!({
            "name": {"type": "string", "description": "display name (required unless `slug` is given)"},
            "slug": {"type": "string", "description": "lower-case letters, digits, '-', '_' or '.'; default: derived from name"},
            "repo": {"type": "string", "description": "a git URL or absolute path of a repository to clone"},
            "summary": {"type": "string"},
            "area": {"type": "string"},
            "status": {"type": "string", "enum": status},
            "path": {"type": "string", "description": "the directory the project's agents run in"}
        }),
    };
    object(properties, &[])
}

fn promote_project_schema(_: Audience) -> Value {
    object(
        json!({
            "project": {"type": "string", "description": "Slug of the notebook project to promote (one this chat's project reaches). Omit to promote this chat's project."},
            "repo": {"type": "string", "description": "Git URL (https://, ssh://, git://, file://, git@host:owner/repo) or absolute path of the repository to clone. Required."}
        }),
        &["repo"],
    )
}

/// A trigger tool's `project`: a chat's defaults to its own, and may name only one its
/// project reaches.
fn trigger_project() -> Value {
    json!({"type": "string", "description": "project slug; \"\" is the root workspace (a chat: default its own, another only when its project reaches it)"})
}

fn list_triggers_schema(audience: Audience) -> Value {
    object(
        json!({"project": trigger_project()}),
        &with_project(audience, &[]),
    )
}

fn set_trigger_schema(audience: Audience) -> Value {
    object(
        json!({
            "name": {"type": "string", "description": "lower-case letters, digits, '-' and '_'"},
            "project": trigger_project(),
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
        }),
        &with_project(audience, &["name", "kind", "prompt"]),
    )
}

fn remove_trigger_schema(audience: Audience) -> Value {
    object(
        json!({"name": {"type": "string"}, "project": trigger_project()}),
        &with_project(audience, &["name"]),
    )
}

fn run_trigger_schema(audience: Audience) -> Value {
    object(
        json!({
            "name": {"type": "string"},
            "project": trigger_project(),
            "message": {"type": "string"}
        }),
        &with_project(audience, &["name"]),
    )
}

fn send_file_schema(_: Audience) -> Value {
    object(
        json!({
            "content": {"type": "string", "description": "the text of an inline file; give this or file_path"},
            "file_path": {"type": "string", "description": "a real file, relative to your working directory or absolute; give this or content. A file outside your project directory is sent only if the user approves it"},
            "filename": {"type": "string", "description": "the name shown (default: file_path's, or snippet.txt for content)"},
            "kind": {"type": "string", "enum": SEND_FILE_KINDS, "description": "the renderer; inferred from the filename when omitted"},
            "language": {"type": "string", "description": "a language hint for the code kind, e.g. python"},
            "message": {"type": "string", "description": "a short note shown with the file"},
            "path": {"type": "string", "description": "the same as file_path"},
            "name": {"type": "string", "description": "the same as filename"}
        }),
        &[],
    )
}

/// Every tool, in the order `tools/list` shows them.
pub const TOOLS: &[Tool] = &[
    Tool {
        name: "list_projects",
        chat: manage(Tier::Read),
        client: true,
        about: "List the projects this chat's tools may act on (this chat's project, and those its `reach` setting names): slug, directory, and the settings that are set (name, summary, area, status, repo for a repo-backed project, model, driveMode, maxSpawnDepth, reach). The root workspace's slug is \"\".",
        about_client: Some(
            "List Paddock's projects: slug and directory. The root workspace's slug is \"\".",
        ),
        schema: no_arguments,
    },
    Tool {
        name: "list_chats",
        chat: manage(Tier::Read),
        client: true,
        about: "List the chats of a project (default: this chat's project) in tree order: id, title, origin, depth, parent, running.",
        about_client: Some(
            "List chats in tree order (newest activity first): sessionId, project, title, origin, depth, parent, running, archived, updatedAt.",
        ),
        schema: list_chats_schema,
    },
    Tool {
        name: "create_chat",
        chat: manage(Tier::Write),
        client: true,
        about: "Start a new chat, a child of this one, with a first prompt. It runs on its own; it can report back with send_message. Returns its sessionId.",
        about_client: Some(
            "Start a new chat in a project with a first prompt. It runs on its own in Paddock (a root chat, not nested under any other); read_chat shows its progress. Returns its sessionId.",
        ),
        schema: create_chat_schema,
    },
    Tool {
        name: "send_message",
        chat: manage(Tier::Write),
        client: true,
        about: "Send a message into another chat (for example your parent, to report back). If that chat is busy, the message waits for its current turn to end.",
        about_client: Some(
            "Send a message into an existing chat: a new turn. If the chat is running, the message waits for the current turn to end (queued: true).",
        ),
        schema: send_message_schema,
    },
    Tool {
        name: "read_chat",
        chat: manage(Tier::Read),
        client: true,
        about: "Read a chat's transcript (the last messages, as text).",
        about_client: Some(
            "Read the end of a chat's transcript as text (user and assistant messages, tool calls and results, shortened).",
        ),
        schema: read_chat_schema,
    },
    Tool {
        name: "fork_chat",
        chat: manage(Tier::Write),
        client: true,
        about: "Copy a chat (default: this one) into a new chat that continues from its history, optionally with a first prompt. Returns its sessionId.",
        about_client: Some(
            "Copy a chat into a new chat that continues from its history (drawn under its source in the tree), optionally with a first prompt that starts a turn. Returns its sessionId.",
        ),
        schema: fork_chat_schema,
    },
    Tool {
        name: "archive_chat",
        chat: manage(Tier::Write),
        client: true,
        about: "Archive a chat (it leaves the active list; nothing is deleted).",
        about_client: None,
        schema: session_only,
    },
    Tool {
        name: "unarchive_chat",
        chat: manage(Tier::Write),
        client: true,
        about: "Bring an archived chat back to the active list.",
        about_client: None,
        schema: session_only,
    },
    Tool {
        name: "create_project",
        chat: manage(Tier::Projects),
        client: true,
        about: "Create a project: a notebook (a new folder in paddock's data), a folder of your own (`path`), or a repo-backed project (`repo`: the repository is cloned and the project's agents work in the clone). Only a slug this chat's project may reach already (its `reach` setting, which a person sets) can be created. Returns the new project's slug and directory.",
        about_client: Some(
            "Create a project: a notebook (a new folder in Paddock's data), a folder of your own (`path`), or a repo-backed project (`repo`, cloned). Returns its slug and directory.",
        ),
        schema: create_project_schema,
    },
    Tool {
        name: "promote_project",
        chat: manage(Tier::Projects),
        client: false,
        about: "Turn a notebook project (its files in paddock's data) into a repo-backed one in place: the repository is cloned into the project's folder and its agents work in the clone from their next start. Its chats, OVERVIEW.md and CHANGELOG.md stay. A failed clone leaves the project as it was.",
        about_client: None,
        schema: promote_project_schema,
    },
    Tool {
        name: "list_triggers",
        chat: manage(Tier::Triggers),
        client: true,
        about: "List the schedules and hooks of a project (default: this chat's project): their settings, next and last fire, the chat a resuming trigger owns, and any problem.",
        about_client: Some(
            "List a project's schedules and hooks: settings, next and last fire, the chat a resuming trigger owns, any problem.",
        ),
        schema: list_triggers_schema,
    },
    Tool {
        name: "set_trigger",
        chat: manage(Tier::Triggers),
        client: true,
        about: "Add or replace a trigger of a project (default: this chat's project). A schedule (kind \"schedule\") fires on a five-field cron (with an optional IANA timezone) or every interval (e.g. \"15m\"); a hook (kind \"hook\") fires on turn_completed, turn_failed, child_finished, file_changed (with paths globs and debounce_secs), archived (a chat of the project was archived) or manual (run_trigger only). Each fire starts a chat with the prompt, or with session \"resume\" continues the one chat the trigger owns.",
        about_client: Some(
            "Add or replace a trigger of a project: a schedule (kind \"schedule\", cron or every) or a hook (kind \"hook\", on an event). Each fire starts a chat with the prompt, or with session \"resume\" continues the chat the trigger owns.",
        ),
        schema: set_trigger_schema,
    },
    Tool {
        name: "remove_trigger",
        chat: manage(Tier::Triggers),
        client: true,
        about: "Remove a trigger of a project (default: this chat's project).",
        about_client: Some("Remove a trigger of a project."),
        schema: remove_trigger_schema,
    },
    Tool {
        name: "run_trigger",
        chat: manage(Tier::Triggers),
        client: true,
        about: "Fire a trigger now (even a disabled one), optionally with a message instead of its prompt. Returns the chat it started or resumed, or why it was skipped (its previous run still going).",
        about_client: Some(
            "Fire a trigger now (even a disabled one), optionally with a message instead of its prompt. Returns the chat it started or resumed, or why it was skipped.",
        ),
        schema: run_trigger_schema,
    },
    Tool {
        name: "send_file",
        chat: Some(ForChat {
            server: FILE_SERVER,
            tier: None,
        }),
        client: false,
        about: "Show a file to the user in this chat; what is shown is kept as an immutable snapshot. Two ways: pass `content` with a `filename` for an inline file that need not exist on disk (a snippet, a Markdown or Mermaid block; the name can be illustrative, e.g. example.tsx), or pass `file_path` for a real file (relative to your working directory, or absolute). `kind` picks how it is rendered (inferred from the filename when omitted), `language` is a hint for code, `message` a short note shown with the file. Prefer this to pasting long content into your reply.",
        about_client: None,
        schema: send_file_schema,
    },
];

/// A tool by name.
pub fn tool(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The tools a management client may be offered, in catalogue order (what `allow` entries
/// are checked against).
pub fn client_tools() -> impl Iterator<Item = &'static Tool> {
    TOOLS.iter().filter(|t| t.client)
}

/// Their names.
pub fn client_tool_names() -> Vec<&'static str> {
    client_tools().map(|t| t.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_an_object_and_names_are_unique() {
        for t in TOOLS {
            for audience in [Audience::Chat, Audience::Client] {
                assert_eq!((t.schema)(audience)["type"], "object", "{}", t.name);
            }
            assert_eq!(TOOLS.iter().filter(|o| o.name == t.name).count(), 1);
        }
    }

    #[test]
    fn a_client_names_the_project_a_chat_may_leave_out() {
        let required = |name: &str, audience| {
            (tool(name).map(|t| (t.schema)(audience)))
                .and_then(|s| s.get("required").cloned())
                .unwrap_or_default()
        };
        for name in [
            "list_triggers",
            "set_trigger",
            "remove_trigger",
            "run_trigger",
        ] {
            assert_eq!(required(name, Audience::Client)[0], "project", "{name}");
            let chat = required(name, Audience::Chat);
            assert!(
                !chat
                    .as_array()
                    .is_some_and(|r| r.iter().any(|k| k == "project")),
                "{name}: {chat}"
            );
        }
    }
}
