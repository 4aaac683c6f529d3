//! The management tools: what an external client may do, as the client it authenticated as.
//!
//! A chat a client creates is a root: run provenance `{origin: human, depth: 0}` with no
//! parent (the caller is not a chat, so there is nothing to nest it under), its first message
//! the prompt as given. Turns go through [`crate::machine_turns::start_turn`], the path every turn not
//! typed into a connection takes, so a busy chat queues a message (32 at most, then the call
//! fails with a busy error the model reads). Which client created a chat is in the daemon's log;
//! neither run provenance nor message attribution has a field for it yet. A fork is drawn under
//! its source (`chat:fork`'s provenance), as a fork made in the TUI is.
//!
//! Each client may call only the tools its `allow` list names (`mcp_clients.NAME.allow`;
//! default [`super::DEFAULT_ALLOW`], the read-only ones): `tools/list` shows it only those, and
//! a call to another is answered with an error naming the tool and the key.

use paddock_proto::{AgentTool, ChatScope, Origin};
use serde_json::{Value, json};

use super::rpc::{ToolOutput, Tools};
use crate::handles::Daemon;
use crate::stores::RunProvenance;
use crate::tool_calls::{self, Acting, arg, need};
use crate::tool_catalogue::{
    Audience, LIST_DEFAULT, LIST_MAX, READ_DEFAULT, READ_MAX, client_tools, tool,
};

/// The longest title shown in `list_chats` (its first line, in characters).
const TITLE_CHARS: usize = 120;

/// The tools that start agents (which run tools on this machine) or clone repositories: the
/// log warns at start about a client allowed any of them.
pub const RISKY: &[&str] = &[
    "create_chat",
    "send_message",
    "fork_chat",
    "create_project",
    "set_trigger",
    "run_trigger",
];

/// The tool catalogue, as a client reads it.
pub fn catalogue() -> Vec<AgentTool> {
    client_tools().map(|t| t.listed(Audience::Client)).collect()
}

/// The daemon's tools, for one authenticated client.
pub struct Host<'a> {
    pub d: &'a Daemon,
    /// The client's name from `[mcp_clients.NAME]`.
    pub client: &'a str,
    /// Its `allow` entries.
    pub allow: &'a [String],
    /// Its projects and `deny` entries.
    pub scope: &'a super::Scope,
    /// This daemon's instance id.
    pub instance_id: &'a str,
    /// The client's address (the forwarded one, through a trusted proxy), for the log.
    pub from: std::net::IpAddr,
}

impl Host<'_> {
    /// The read-state user of this client (its unread marks are its own).
    fn user(&self) -> String {
        format!("mcp:{}", self.client)
    }

    /// An error naming the key to change when this client may not reach project `slug`.
    fn reach(&self, slug: &str) -> Result<(), String> {
        match self.scope.refusal(self.client, slug) {
            None => Ok(()),
            Some(why) => {
                tracing::warn!(client = %self.client, project = %slug, "management tool call refused: project outside the client's scope");
                Err(why)
            }
        }
    }

    /// The project of chat `sid`, when this client may reach it.
    async fn chat_project(&self, sid: &str) -> Result<crate::projects::Project, String> {
        let project = crate::chats::project_of(&self.d.chats, sid)
            .await
            .map_err(|e| e.message)?;
        self.reach(&project.slug)?;
        Ok(project)
    }
}

impl Tools for Host<'_> {
    fn list(&self) -> Vec<AgentTool> {
        catalogue()
            .into_iter()
            .filter(|t| self.scope.may_call(self.allow, &t.name))
            .collect()
    }

    fn instance_id(&self) -> Option<&str> {
        Some(self.instance_id)
    }

    async fn call(&self, name: &str, arguments: &Value) -> Option<ToolOutput> {
        if !tool(name).is_some_and(|t| t.client) {
            return None;
        }
        if !super::allowed(self.allow, name) {
            tracing::warn!(client = %self.client, tool = %name, "management tool call refused: not in the client's allow list");
            return Some(ToolOutput::error(format!(
                "not allowed: client {client:?} may not call {name}; add \"{name}\" to mcp_clients.{client}.allow in paddockd's config file (now {list:?}) and restart paddockd",
                client = self.client,
                list = self.allow,
            )));
        }
        if !self.scope.may_call(self.allow, name) {
            tracing::warn!(client = %self.client, tool = %name, "management tool call refused: in the client's deny list");
            return Some(ToolOutput::error(format!(
                "not allowed: client {client:?} may not call {name}: mcp_clients.{client}.deny refuses it (now {list:?}), whatever allow says; remove the entry there in paddockd's config file and restart paddockd",
                client = self.client,
                list = self.scope.deny,
            )));
        }
        tracing::info!(client = %self.client, from = %self.from, tool = %name, "management tool call");
        let out = match name {
            "list_projects" => list_projects(self),
            "list_chats" => list_chats(self, arguments).await,
            "create_chat" => create_chat(self, arguments).await,
            "send_message" => send_message(self, arguments).await,
            "read_chat" => read_chat(self, arguments).await,
            "fork_chat" => fork_chat(self, arguments).await,
            "archive_chat" => archive(self, arguments, true).await,
            "unarchive_chat" => archive(self, arguments, false).await,
            "create_project" => create_project(self, arguments).await,
            "list_triggers" | "set_trigger" | "remove_trigger" | "run_trigger" => {
                trigger_tool(self, name, arguments).await
            }
            _ => return None,
        };
        Some(match out {
            Ok(text) => ToolOutput::ok(text),
            Err(text) => ToolOutput::error(text),
        })
    }
}

/// A count argument: `default` when absent, an error when not a whole number in 1..=max.
fn count(args: &Value, key: &str, default: usize, max: usize) -> Result<usize, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| format!("{key} must be a whole number from 1 to {max}")),
    }
}

fn list_projects(h: &Host<'_>) -> Result<String, String> {
    let projects = h.d.projects.list().map_err(|e| e.to_string())?;
    let rows: Vec<Value> = projects
        .iter()
        .filter(|p| h.scope.reaches(&p.slug))
        .map(|p| json!({"slug": p.slug, "path": p.agent_dir}))
        .collect();
    Ok(Value::Array(rows).to_string())
}

async fn list_chats(h: &Host<'_>, args: &Value) -> Result<String, String> {
    let scope = match arg(args, "scope") {
        None | Some("active") => ChatScope::Active,
        Some("archived") => ChatScope::Archived,
        Some("all") => ChatScope::All,
        Some(other) => {
            return Err(format!(
                "scope {other:?} is not one of active, archived, all"
            ));
        }
    };
    let limit = count(args, "limit", LIST_DEFAULT, LIST_MAX)?;
    if let Some(slug) = arg(args, "project") {
        h.reach(slug)?;
    }
    let mut chats = crate::chats::list(&h.d.chats, &h.user(), arg(args, "project"), scope)
        .await
        .map_err(|e| e.message)?;
    chats.retain(|c| h.scope.reaches(&c.project_slug));
    let total = chats.len();
    let rows: Vec<Value> = chats
        .iter()
        .take(limit)
        .map(|c| {
            let title: String = c
                .title
                .lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(TITLE_CHARS)
                .collect();
            json!({"sessionId": c.session_id, "project": c.project_slug, "title": title,
                "origin": c.origin, "depth": c.depth, "parent": c.tree_parent,
                "running": c.running, "archived": c.archived, "updatedAt": c.updated_at})
        })
        .collect();
    Ok(json!({"chats": rows, "total": total}).to_string())
}

/// A client acts for a person: History shows its runs as theirs, with nothing injected.
const PERSON: Acting = Acting {
    origin: Origin::Human,
    attribution: None,
    cause: None,
};

async fn create_chat(h: &Host<'_>, args: &Value) -> Result<String, String> {
    let prompt = need(args, "prompt")?;
    let slug = arg(args, "project").ok_or_else(|| {
        "missing argument \"project\": a project slug (\"\" is the root workspace; list_projects lists them)".to_owned()
    })?;
    h.reach(slug)?;
    let project = h.d.project(slug).await.map_err(|e| e.message)?;
    let preload = match args.get("preloadContext") {
        None | Some(Value::Null) => false,
        Some(v) => v
            .as_bool()
            .ok_or_else(|| "preloadContext must be true or false".to_owned())?,
    };
    let message = tool_calls::first_message(&project, prompt, preload);
    let model = arg(args, "model")
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_owned);
    // A root: the caller is not a chat, so there is no parent to record (and the root
    // marker keeps the tree from inferring one).
    let root = RunProvenance::root(Origin::Human);
    let slug = project.slug.clone();
    let sid = tool_calls::start_chat(h.d, &PERSON, project, message, model, root).await?;
    tracing::info!(client = %h.client, session = %sid, project = %slug, "management client created a chat");
    Ok(json!({"sessionId": sid, "project": slug}).to_string())
}

async fn send_message(h: &Host<'_>, args: &Value) -> Result<String, String> {
    let target = need(args, "sessionId")?;
    let message = need(args, "message")?;
    let project = h.chat_project(target).await?;
    let answer = tool_calls::send_message(h.d, &PERSON, project, target, message).await?;
    tracing::info!(client = %h.client, session = %target, "management client sent a message");
    Ok(answer)
}

async fn read_chat(h: &Host<'_>, args: &Value) -> Result<String, String> {
    let sid = need(args, "sessionId")?;
    let last = count(args, "last", READ_DEFAULT, READ_MAX)?;
    h.chat_project(sid).await?;
    tool_calls::read_chat(h.d, &h.user(), sid, last).await
}

async fn fork_chat(h: &Host<'_>, args: &Value) -> Result<String, String> {
    let source = need(args, "sessionId")?;
    h.chat_project(source).await?;
    // A person's fork: drawn under its source, one level deeper (chat:fork's provenance).
    let forked =
        tool_calls::fork_chat(h.d, &PERSON, source, arg(args, "name"), arg(args, "prompt")).await?;
    tracing::info!(client = %h.client, session = %forked.session_id, source = %source, "management client forked a chat");
    Ok(
        json!({"sessionId": forked.session_id, "project": forked.project_slug, "parent": source})
            .to_string(),
    )
}

async fn archive(h: &Host<'_>, args: &Value, on: bool) -> Result<String, String> {
    let sid = need(args, "sessionId")?;
    let project = h.chat_project(sid).await?;
    // Archived by a person (the client acts for one), as chat:update's archive is.
    tool_calls::archive(h.d, project, sid, on, None).await
}

/// `create_project`, for a client confined to some projects only with a `slug` it may reach
/// (a slug derived from the name could be any).
async fn create_project(h: &Host<'_>, args: &Value) -> Result<String, String> {
    if h.scope.confined() {
        if arg(args, "slug").is_none_or(|s| s.trim().is_empty()) {
            return Err(format!(
                "client {:?} is confined to some projects (mcp_clients.{}.projects / deny_projects): give create_project a `slug` it may reach",
                h.client, h.client
            ));
        }
        // The slug the project is made with, as create_project reads it.
        h.reach(&tool_calls::new_project_slug(args)?)?;
    }
    tool_calls::create_project(h.d, args).await
}

async fn trigger_tool(h: &Host<'_>, tool: &str, args: &Value) -> Result<String, String> {
    let project = arg(args, "project")
        .ok_or_else(|| {
            "missing argument \"project\": a project slug (\"\" is the root workspace)".to_owned()
        })?
        .to_owned();
    h.reach(&project)?;
    let answer = tool_calls::triggers::call(h.d, project, tool, args, None).await;
    if tool == "run_trigger" && answer.is_ok() {
        tracing::info!(client = %h.client, "management client fired a trigger");
    }
    answer
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn management_tools_have_object_schemas_and_names_list_them() {
        let names: Vec<String> = catalogue().into_iter().map(|t| t.name).collect();
        assert_eq!(names, crate::tool_catalogue::client_tool_names());
        assert!(RISKY.iter().all(|r| names.iter().any(|n| n == r)));
        for t in catalogue() {
            assert_eq!(t.input_schema["type"], "object", "{}", t.name);
        }
    }

    #[test]
    fn management_tool_counts_are_bounded() {
        let args = json!({"n": 5, "zero": 0, "big": 5000, "text": "3"});
        assert_eq!(count(&args, "n", 1, 10), Ok(5));
        assert_eq!(count(&args, "absent", 7, 10), Ok(7));
        for bad in ["zero", "big", "text"] {
            assert!(count(&args, bad, 1, 10).unwrap_err().contains("1 to 10"));
        }
    }
}
