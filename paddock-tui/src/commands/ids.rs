//! Short session ids on the command line. The TUI, `paddock ls` and `paddock search` show a
//! chat's id by its first eight characters, so every command that takes a SESSION also takes a
//! unique prefix of one (at least [`MIN_PREFIX`] characters): before the command runs, each such
//! argument that is not a whole id is looked up in one `chat:list` of every project (archived
//! chats too) and replaced by the id it names. A prefix that names several chats is refused
//! with the candidates; one that names none is passed on as it is, so the daemon's own "no chat"
//! error (or a chat that is starting and not listed yet) still applies.

use anyhow::anyhow;
use paddock_proto::{ChatList, ChatScope, ChatSummary, Reply, Request};

use super::{Context, Failure, unexpected};
use crate::cli::{Cmd, GitCmd};

/// The shortest prefix looked up (shorter ones go to the daemon as they are).
pub const MIN_PREFIX: usize = 4;
/// How many candidates an ambiguous prefix lists.
const SHOWN: usize = 5;

/// Replaces the short session ids in `command` with whole ones (one `chat:list` when any
/// argument needs it, none otherwise).
pub async fn resolve(ctx: &Context, command: &mut Option<Cmd>) -> anyhow::Result<()> {
    let mut args = session_args(command);
    if !args.iter().any(|a| needs_lookup(a)) {
        return Ok(());
    }
    let client = ctx.connect().await?;
    let reply = client
        .request(Request::ChatList(ChatList {
            project_slug: None,
            scope: ChatScope::All,
            since: None,
        }))
        .await?;
    let Reply::Chats(list) = reply else {
        return Err(unexpected("chat:list", &reply));
    };
    for arg in args.iter_mut() {
        if needs_lookup(arg) {
            **arg = expand(arg, &list.chats)?;
        }
    }
    Ok(())
}

/// Whether `arg` (a session id, or `SESSION:JOB` for a turn) could be a prefix to look up.
fn needs_lookup(arg: &str) -> bool {
    let session = arg.split(':').next().unwrap_or(arg);
    session.len() >= MIN_PREFIX
        && !is_whole_id(session)
        && session.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

/// A whole session id: a UUID's 36 characters.
fn is_whole_id(s: &str) -> bool {
    s.len() == 36 && s.chars().filter(|c| *c == '-').count() == 4
}

/// The whole id `arg`'s session part is a prefix of (the `:JOB` of a turn kept).
fn expand(arg: &str, chats: &[ChatSummary]) -> anyhow::Result<String> {
    let (session, rest) = match arg.split_once(':') {
        Some((session, job)) => (session, format!(":{job}")),
        None => (arg, String::new()),
    };
    let wanted = session.to_ascii_lowercase();
    let mut found: Vec<&ChatSummary> = chats
        .iter()
        .filter(|c| c.session_id.to_ascii_lowercase().starts_with(&wanted))
        .collect();
    found.dedup_by(|a, b| a.session_id == b.session_id);
    match found.as_slice() {
        [] => Ok(arg.to_owned()),
        [one] => Ok(format!("{}{rest}", one.session_id)),
        many => {
            let mut message = format!("{session} names {} chats; give more of the id:", many.len());
            for chat in many.iter().take(SHOWN) {
                message.push_str(&format!(
                    "\n  {}  {}",
                    chat.session_id,
                    crate::format::one_line(&chat.title, 60)
                ));
            }
            if many.len() > SHOWN {
                message.push_str(&format!("\n  … and {} more", many.len() - SHOWN));
            }
            Err(anyhow!(Failure::new(2, message)))
        }
    }
}

/// Every argument of `command` that names a chat.
fn session_args(command: &mut Option<Cmd>) -> Vec<&mut String> {
    let Some(command) = command else {
        return Vec::new();
    };
    match command {
        Cmd::Send(a) => a.session.iter_mut().collect(),
        Cmd::Tail(a) => vec![&mut a.session],
        Cmd::Cancel(a) => vec![&mut a.session],
        Cmd::Show(a) => vec![&mut a.session],
        Cmd::Fork(a) => vec![&mut a.session],
        Cmd::Files(a) => vec![&mut a.session],
        Cmd::Usage(a) => a.subtree.iter_mut().collect(),
        Cmd::Archive(a)
        | Cmd::Unarchive(a)
        | Cmd::Star(a)
        | Cmd::Unstar(a)
        | Cmd::Read(a)
        | Cmd::Unread(a)
        | Cmd::Detach(a)
        | Cmd::Attach(a) => a.sessions.iter_mut().collect(),
        Cmd::Delete(a) => a.sessions.iter_mut().collect(),
        Cmd::Git { action } => {
            let scope = match action {
                GitCmd::Status(a) => &mut a.scope,
                GitCmd::Diff(a) => &mut a.scope,
                GitCmd::Commit(a) => &mut a.scope,
                #[allow(unreachable_patterns)]
                _ => return Vec::new(),
            };
            scope.chat.iter_mut().chain(scope.turn.iter_mut()).collect()
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(id: &str, title: &str) -> ChatSummary {
        ChatSummary {
            session_id: id.into(),
            title: title.into(),
            ..ChatSummary::default()
        }
    }

    const A: &str = "55116c23-07c8-4dc0-b5ea-a8295ea4858a";
    const B: &str = "55116d00-1111-4222-8333-944445555666";
    const C: &str = "0aa5917f-6022-4703-8645-147e9d75eb9b";

    #[test]
    fn a_unique_prefix_becomes_its_id_and_an_ambiguous_one_lists_the_candidates() {
        let chats = [
            chat(A, "fix the build"),
            chat(B, "bisect"),
            chat(C, "hello"),
        ];
        assert_eq!(expand("0aa5917f", &chats).ok().as_deref(), Some(C));
        assert_eq!(expand("0AA5", &chats).ok().as_deref(), Some(C));
        assert_eq!(expand("55116c", &chats).ok().as_deref(), Some(A));
        // A turn keeps its job.
        assert_eq!(
            expand("0aa5917f:job-1", &chats).ok(),
            Some(format!("{C}:job-1"))
        );
        // No chat: passed on for the daemon to say so.
        assert_eq!(expand("deadbeef", &chats).ok().as_deref(), Some("deadbeef"));
        let err = expand("5511", &chats).err().map(|e| e.to_string());
        let err = err.unwrap_or_default();
        assert!(err.contains("names 2 chats"), "{err}");
        assert!(err.contains(A) && err.contains("bisect"), "{err}");
    }

    #[test]
    fn only_short_hex_ids_are_looked_up() {
        assert!(needs_lookup("55116c23"));
        assert!(needs_lookup("55116c23:job"));
        assert!(!needs_lookup(A), "a whole id");
        assert!(!needs_lookup("551"), "too short");
        assert!(!needs_lookup("not-an-id"), "not hex");
        assert!(!needs_lookup("s-manager"));
    }
}
