//! `paddock ls`, `paddock show`, `paddock cancel`, `paddock fork`, `paddock promote`; and finding a chat in the
//! listing, for the commands that need its project or state.

use paddock_proto::{
    ChatCancel, ChatFork, ChatList, ChatPromote, ChatScope, ChatSummary, ChatTranscript, SessionRef,
};

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::value::RawValue;

use super::output::{eprint, print, print_json, print_json_array, print_json_rows};
use super::{Context, mark_read};
use crate::cli::{ForkArgs, LsArgs, PromoteArgs, SessionArg, ShowArgs};
use crate::client::{Client, RawReply};
use crate::format::{self, ROOT_SLUG, project_label};

pub async fn ls(ctx: &Context, args: LsArgs) -> anyhow::Result<()> {
    let scope = match (args.archived, args.all) {
        (true, _) => ChatScope::Archived,
        (false, true) => ChatScope::All,
        (false, false) => ChatScope::Active,
    };
    let client = ctx.connect().await?;
    if args.all_projects {
        return ls_every_project(&client, scope, args.json, args.full_titles).await;
    }
    // No -p means the root workspace (DESIGN §6), not every project.
    let project = args.project.unwrap_or_else(|| ROOT_SLUG.to_owned());
    let request = ChatList {
        project_slug: Some(project.clone()),
        scope,
        since: None,
        full_titles: args.full_titles,
    };
    if args.json {
        let reply = client.call_raw(request).await?;
        return print_rows_of(&reply);
    }
    match client.call(request).await? {
        c if c.chats.is_empty() => {
            eprint(&format!("no chats in {}\n", project_label(&project)));
            Ok(())
        }
        c => print(&format::chat_table(
            &c.chats,
            format::IdForm::for_stdout(),
            fit_to(args.full_titles),
        )),
    }
}

/// `paddock ls -A`: every project's chats, each project's under its name (the root workspace
/// first, then by slug), in the daemon's tree order within it.
async fn ls_every_project(
    client: &crate::client::Client,
    scope: ChatScope,
    json: bool,
    full_titles: bool,
) -> anyhow::Result<()> {
    let request = ChatList {
        project_slug: None,
        scope,
        since: None,
        full_titles,
    };
    if json {
        let reply = client.call_raw(request).await?;
        return print_json_rows(&grouped_rows(&reply)?);
    }
    let chats = client.call(request).await?.chats;
    let mut by_project: BTreeMap<String, Vec<ChatSummary>> = BTreeMap::new();
    for chat in chats {
        by_project
            .entry(chat.project_slug.clone())
            .or_default()
            .push(chat);
    }
    if by_project.is_empty() {
        eprint("no chats in any project\n");
        return Ok(());
    }
    let mut out = String::new();
    for (i, (slug, chats)) in by_project.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{}\n", project_label(slug)));
        out.push_str(&format::chat_table(
            chats,
            format::IdForm::for_stdout(),
            fit_to(full_titles),
        ));
    }
    print(&out)
}

/// The rows of an every-project `chat:list` reply as the daemon wrote them, each project's
/// together (the root workspace first, then by slug), in tree order within it.
pub(super) fn grouped_rows(reply: &RawReply) -> anyhow::Result<Vec<&RawValue>> {
    let mut by_project: BTreeMap<Cow<'_, str>, Vec<&RawValue>> = BTreeMap::new();
    for row in rows_of(reply)? {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Slug<'a> {
            #[serde(borrow)]
            project_slug: Cow<'a, str>,
        }
        let slug = match project_where_written(row.get()) {
            Some(slug) => Cow::Borrowed(slug),
            None => {
                let slug: Slug<'_> = serde_json::from_str(row.get()).map_err(|e| {
                    anyhow::anyhow!("paddockd sent a chat row without its project: {e}")
                })?;
                slug.project_slug
            }
        };
        by_project.entry(slug).or_default().push(row);
    }
    let all: Vec<&RawValue> = by_project.into_values().flatten().collect();
    Ok(all)
}

/// A row's project where the daemon writes it, right after its session id
/// (`{"sessionId":"…","projectSlug":"…"`), read without decoding the row (that was half of
/// `ls -A --json`'s work); `None` when it is not there as plain text (the row is decoded).
fn project_where_written(row: &str) -> Option<&str> {
    let rest = row.strip_prefix("{\"sessionId\":\"")?;
    let (_, rest) = rest.split_once('"')?;
    let rest = rest.strip_prefix(",\"projectSlug\":\"")?;
    let (slug, _) = rest.split_once('"')?;
    (!slug.contains('\\')).then_some(slug)
}

/// The width `ls` fits its rows to: the terminal's, unless whole titles were asked for.
pub(super) fn fit_to(full_titles: bool) -> Option<usize> {
    (!full_titles).then(format::stdout_width).flatten()
}

/// `ls --json`: the rows of a `chat:list` reply laid out from its `chats` array as the daemon
/// wrote it (`kind`, then `chats`, first), not split into rows first; a reply of any other
/// shape through [`rows_of`].
fn print_rows_of(reply: &RawReply) -> anyhow::Result<()> {
    const HEAD: &str = "{\"kind\":\"chats\",\"chats\":";
    let Some(array) = reply
        .json()
        .strip_prefix(HEAD)
        .filter(|rest| rest.starts_with('['))
    else {
        return print_json_rows(&rows_of(reply)?);
    };
    let end = print_json_array(array)?;
    match array.get(end..).and_then(|rest| rest.chars().next()) {
        Some(',' | '}') => Ok(()),
        _ => Err(anyhow::anyhow!(
            "paddockd's list of chats could not be read: its rows end where the reply does not"
        )),
    }
}

/// The rows of a `chat:list` reply as the daemon wrote them.
pub(super) fn rows_of(reply: &RawReply) -> anyhow::Result<Vec<&RawValue>> {
    #[derive(serde::Deserialize)]
    struct Rows<'a> {
        #[serde(borrow)]
        chats: Vec<&'a RawValue>,
    }
    let rows: Rows<'_> = serde_json::from_str(reply.json())
        .map_err(|e| anyhow::anyhow!("paddockd's list of chats could not be read: {e}"))?;
    Ok(rows.chats)
}

pub async fn show(ctx: &Context, args: ShowArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let request = ChatTranscript(SessionRef {
        session_id: args.session.clone(),
    });
    match client.call(request).await? {
        t if args.json => print_json(&t),
        t => {
            print(&format::transcript(&t))?;
            // The user has read it now.
            mark_read(&client, &args.session).await;
            Ok(())
        }
    }
}

pub async fn fork(ctx: &Context, args: ForkArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let request = ChatFork {
        session_id: args.session,
        name: args.name,
    };
    match client.call(request).await? {
        f if args.json => print_json(&f),
        f => print(&format!("{}\n", f.session_id)),
    }
}

pub async fn promote(ctx: &Context, args: PromoteArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let request = ChatPromote {
        session_id: args.session,
        to_project: args.to,
    };
    let p = client.call(request).await?;
    if args.json {
        return print_json(&p);
    }
    if p.created_project {
        // A typo makes a project too: say how to take it back.
        let (first, from, to) = (
            p.session_ids.first().map_or("SESSION", String::as_str),
            &p.from_project,
            &p.to_project,
        );
        print(&format!(
            "made {} (no project had that slug; to take it back: `paddock promote {first} --to '{from}'`, then `paddock project rm {to} --delete-files`)\n",
            format::project_phrase(to)
        ))?;
    }
    let (first, under) = p
        .session_ids
        .split_first()
        .map_or(("", 0), |(f, r)| (f.as_str(), r.len()));
    let with = match under {
        0 => String::new(),
        1 => " and the chat under it".to_owned(),
        n => format!(" and the {n} chats under it"),
    };
    print(&format!(
        "moved chat {first}{with} from {} to {}\n",
        format::project_phrase(&p.from_project),
        format::project_phrase(&p.to_project)
    ))
}

pub async fn cancel(ctx: &Context, args: SessionArg) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let request = ChatCancel {
        session_id: args.session.clone(),
        job_id: None,
    };
    match client.call(request).await? {
        c if c.was_running => print(&format!(
            "cancelled the running turn of {}; the chat stays resumable\n",
            args.session
        )),
        _ => print(&format!("nothing was running in {}\n", args.session)),
    }
}

/// Every chat of every project, archived ones included.
pub(super) async fn every_chat(client: &Client) -> anyhow::Result<Vec<ChatSummary>> {
    let request = ChatList {
        project_slug: None,
        scope: ChatScope::All,
        since: None,
        full_titles: false,
    };
    Ok(client.call(request).await?.chats)
}

/// The listing's row of `session`, in whatever project it is; `None` when there is no such chat.
pub(super) async fn listed_chat(
    client: &Client,
    session: &str,
) -> anyhow::Result<Option<ChatSummary>> {
    let chats = every_chat(client).await?;
    Ok(chats.into_iter().find(|chat| chat.session_id == session))
}

#[cfg(test)]
mod tests {
    use super::project_where_written;

    #[test]
    fn a_rows_project_is_read_where_the_daemon_writes_it_else_the_row_is_decoded() {
        let row = r#"{"sessionId":"3f2a","projectSlug":"web","title":"t"}"#;
        assert_eq!(project_where_written(row), Some("web"));
        assert_eq!(
            project_where_written(r#"{"sessionId":"3f2a","projectSlug":"","x":1}"#),
            Some("")
        );
        // Anything else is left to the decoder: another order, escapes in the id or the slug.
        assert_eq!(
            project_where_written(r#"{"projectSlug":"web","sessionId":"3f2a"}"#),
            None
        );
        assert_eq!(
            project_where_written(r#"{"sessionId":"a\",\"projectSlug\":\"x","projectSlug":"y"}"#),
            None
        );
        assert_eq!(
            project_where_written(r#"{"sessionId":"a","projectSlug":"w\u0065b"}"#),
            None
        );
    }
}
