//! What each of a chat's tools does, as that chat (the catalogue is `tool_catalogue.rs`), and
//! which of them the tiers let it see.
//!
//! A chat acts within its project: a tool that names another project, or a chat of another
//! project, is refused unless the chat's project's `reach` setting names that project
//! ([`reach`], the rule of the management endpoint's clients); `list_projects` lists only
//! what is reached.
//!
//! Results are text the model reads: JSON objects for what a program would parse (ids),
//! plain sentences for errors, which come back as `isError` results rather than protocol
//! errors so the model can correct itself.

use paddock_proto::{AgentCall, AgentTool, Attribution, ChatScope, Origin};
use serde_json::{Value, json};

use super::Identity;
use crate::handles::Daemon;
use crate::lineage::Lineage;
use crate::stores::RunProvenance;
use crate::tool_calls::{self, Acting, arg, need};
use crate::tool_catalogue::{Audience, READ_DEFAULT, TOOLS, Tier};
use crate::tree_caps::Counted;

mod cap;
mod reach;
mod send_file;

use reach::Reaching;
use send_file::send_file;

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
    TOOLS
        .iter()
        .filter(|t| {
            t.chat.is_some_and(|c| {
                c.server == server
                    && match c.tier {
                        None => true,
                        Some(tier) => manage && tier_on(cfg, tier),
                    }
            })
        })
        .map(|t| t.listed(Audience::Chat))
        .collect()
}

/// Runs a tool the caller may use. `Err` is a message for the model. A tool naming another
/// project, or a chat of one, acts only where the caller's project reaches ([`Reaching`]).
pub async fn run(d: &Daemon, who: &Identity, call: &AgentCall) -> Result<String, String> {
    let args = &call.arguments;
    if call.tool == "send_file" {
        return send_file(d, who, args).await;
    }
    let reach = Reaching::of(d, who).await;
    match call.tool.as_str() {
        "list_projects" => list_projects(d, &reach),
        "list_chats" => list_chats(d, who, &reach, args).await,
        "read_chat" => {
            let sid = need(args, "sessionId")?;
            let last = args
                .get("last")
                .and_then(Value::as_u64)
                .map_or(READ_DEFAULT, |n| usize::try_from(n).unwrap_or(READ_DEFAULT));
            reach.chat(d, sid).await?;
            tool_calls::read_chat(d, "agent", sid, last).await
        }
        "create_chat" => create_chat(d, who, &reach, args).await,
        "fork_chat" => fork_chat(d, who, &reach, args).await,
        "send_message" => {
            let target = need(args, "sessionId")?;
            let message = need(args, "message")?;
            if target == who.session_id {
                return Err("send_message goes to another chat, not this one".into());
            }
            let project = reach.chat(d, target).await?;
            let lineage = lineage(d, who);
            cap::admit(d, who, &lineage, &[Counted::Turns], &call.tool, args).await?;
            let acting = acting(d, who, &lineage);
            tool_calls::send_message(d, &acting, project, target, message).await
        }
        "archive_chat" | "unarchive_chat" => {
            let sid = need(args, "sessionId")?;
            let project = reach.chat(d, sid).await?;
            let on = call.tool == "archive_chat";
            tool_calls::archive(d, project, sid, on, Some(&who.session_id)).await
        }
        "create_project" => {
            if reach.confined() {
                let slug = tool_calls::new_project_slug(args)?;
                reach.new_project(&slug)?;
            }
            tool_calls::create_project(d, args).await
        }
        "promote_project" => promote_project(d, who, &reach, args).await,
        "list_triggers" | "set_trigger" | "remove_trigger" | "run_trigger" => {
            let project = arg(args, "project").unwrap_or(&who.project_slug).to_owned();
            reach.project(&project)?;
            if call.tool != "run_trigger" {
                return tool_calls::triggers::call(d, project, &call.tool, args, None).await;
            }
            // A fire the agent asks for is a machine-started turn of its tree.
            let lineage = lineage(d, who);
            cap::admit(d, who, &lineage, &[Counted::Turns], &call.tool, args).await?;
            tool_calls::triggers::call(d, project, &call.tool, args, Some(&lineage)).await
        }
        other => Err(format!("unknown tool {other}")),
    }
}

/// `list_projects`: each project this chat's project reaches, with its slug and directory,
/// then the settings that are set (name, summary, area, status, repo, ...), as `project:list`
/// carries them.
fn list_projects(d: &Daemon, reach: &Reaching) -> Result<String, String> {
    let projects = d.projects.list().map_err(|e| e.to_string())?;
    let rows: Vec<Value> = projects
        .iter()
        .filter(|p| reach.reaches(&p.slug))
        .map(|p| {
            serde_json::to_value(p.info())
                .unwrap_or_else(|_| json!({"slug": p.slug, "path": p.agent_dir}))
        })
        .collect();
    Ok(Value::Array(rows).to_string())
}

/// `list_chats`: a project's chats (this chat's by default) in tree order.
async fn list_chats(
    d: &Daemon,
    who: &Identity,
    reach: &Reaching,
    args: &Value,
) -> Result<String, String> {
    let project = arg(args, "project").unwrap_or(&who.project_slug).to_owned();
    reach.project(&project)?;
    let scope = match arg(args, "scope") {
        Some("archived") => ChatScope::Archived,
        Some("all") => ChatScope::All,
        _ => ChatScope::Active,
    };
    let chats = crate::chats::list(&d.chats, "agent", Some(&project), scope)
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

/// `promote_project`: this chat's project unless `project` names another it reaches.
async fn promote_project(
    d: &Daemon,
    who: &Identity,
    reach: &Reaching,
    args: &Value,
) -> Result<String, String> {
    let slug = arg(args, "project")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .unwrap_or(&who.project_slug)
        .to_owned();
    reach.project(&slug)?;
    let repo = need(args, "repo")?.trim().to_owned();
    let p =
        crate::project_ops::promote(&d.project_ops, paddock_proto::ProjectPromote { slug, repo })
            .await
            .map_err(|e| format!("Error promoting project: {}", e.message))?;
    Ok(json!({"promoted": true, "slug": p.slug, "path": p.path, "repo": p.repo}).to_string())
}

/// A chat's tool acts as that chat: its turns are spawned, "↩ sent by <its title>", and run
/// at the depth and in the tree of the turn that called it (`lineage.rs`).
fn acting(d: &Daemon, who: &Identity, lineage: &Lineage) -> Acting {
    Acting {
        cause: Some(lineage.clone()),
        origin: Origin::Spawned,
        attribution: Some(Attribution::Sent {
            from_session_id: who.session_id.clone(),
            from_project: who.project_slug.clone(),
            from_title: d
                .state
                .title_now(&who.session_id)
                .map(|t| crate::text::cut(t.lines().next().unwrap_or_default(), 80)),
        }),
    }
}

/// The calling chat's turn: its depth and tree (`lineage.rs`).
fn lineage(d: &Daemon, who: &Identity) -> Lineage {
    d.state
        .lineages
        .current(&d.state.stores.run_provenance, &who.session_id)
}

fn depth_of(d: &Daemon, sid: &str) -> u32 {
    d.state
        .stores
        .run_provenance
        .get(sid)
        .map_or(0, |p| p.depth)
}

/// `create_chat`: a child of this chat, one level deeper, in this chat's project by default
/// (another only when this chat's project reaches it).
async fn create_chat(
    d: &Daemon,
    who: &Identity,
    reach: &Reaching,
    args: &Value,
) -> Result<String, String> {
    let prompt = need(args, "prompt")?;
    let slug = arg(args, "project").unwrap_or(&who.project_slug);
    reach.project(slug)?;
    let project = d.project(slug).await.map_err(|e| e.message)?;
    // One level below the calling turn, which may run deeper than its chat (`lineage.rs`).
    let lineage = lineage(d, who);
    let depth = lineage.depth + 1;
    let preload = args
        .get("preloadContext")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let provenance = RunProvenance {
        origin: Origin::Spawned,
        depth,
        parent_session_id: Some(who.session_id.clone()),
        parent_project: Some(who.project_slug.clone()),
        created_at: None,
        trigger: None,
        title: arg(args, "name")
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty()),
        fork: false,
    };
    let counted = [Counted::Chats, Counted::Turns];
    cap::admit(d, who, &lineage, &counted, "create_chat", args).await?;
    let message = tool_calls::first_message(&project, prompt, preload);
    let model = arg(args, "model").map(str::to_owned);
    let sid = tool_calls::start_chat(
        d,
        &acting(d, who, &lineage),
        project.clone(),
        message,
        model,
        provenance,
    )
    .await?;
    let tools = super::grants_tools(&d.cfg, &project, depth, false);
    Ok(
        json!({"sessionId": sid, "project": project.slug, "depth": depth,
        "hasSelfManagementTools": tools})
        .to_string(),
    )
}

/// `fork_chat`: this chat by default (another only in a project this chat's reaches: the
/// fork is made in its source's project).
async fn fork_chat(
    d: &Daemon,
    who: &Identity,
    reach: &Reaching,
    args: &Value,
) -> Result<String, String> {
    let source = arg(args, "sessionId").unwrap_or(&who.session_id);
    reach.chat(d, source).await?;
    let lineage = lineage(d, who);
    let prompt = arg(args, "prompt").filter(|p| !p.trim().is_empty());
    let counted: &[Counted] = if prompt.is_some() {
        &[Counted::Chats, Counted::Turns]
    } else {
        &[Counted::Chats]
    };
    cap::admit(d, who, &lineage, counted, "fork_chat", args).await?;
    let forked = tool_calls::fork_chat(
        d,
        &acting(d, who, &lineage),
        source,
        arg(args, "name"),
        prompt,
    )
    .await?;
    let depth = depth_of(d, &forked.session_id);
    Ok(
        json!({"sessionId": forked.session_id, "project": forked.project_slug, "depth": depth})
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::send_file::{arg_or, infer_kind, infer_language};
    use super::*;
    use crate::tool_catalogue::{FILE_SERVER, MANAGE_SERVER};

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
