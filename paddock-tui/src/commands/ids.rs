//! SESSION arguments: one rule for every command that takes a chat. The TUI, `paddock ls` and
//! `paddock search` show a chat's id by its first eight characters, so a SESSION is a session
//! id or a unique prefix of one (at least [`MIN_PREFIX`] characters, git's rule), looked up with
//! one `chat:resolve` (every project, archived chats too; the daemon answers from memory,
//! however many chats there are) before the command runs. Each such
//! argument is replaced by the whole id it names; one that is too short, names several chats
//! or names none fails the command with exit status 1 and the same message whatever the
//! command, ending with where to find every chat ([`EVERY_CHAT`]).

use anyhow::anyhow;
use paddock_proto::{ChatResolve, ResolvedChat, ResolvedPrefix};

use super::{Context, Failure};
use crate::cli::{Cmd, GitCmd};

/// The shortest prefix that names a chat.
pub const MIN_PREFIX: usize = 4;
/// How many candidates an ambiguous prefix lists.
const SHOWN: usize = 5;
/// The hint every failure to find a chat ends with.
pub const EVERY_CHAT: &str = "`paddock ls -A` lists every project's chats";

/// Replaces the session arguments of `command` with the whole ids they name (one
/// `chat:resolve` when the command takes any).
pub async fn resolve(ctx: &Context, command: &mut Option<Cmd>) -> anyhow::Result<()> {
    let Some(command) = command.as_mut() else {
        return Ok(());
    };
    let mut args = session_args(command);
    if args.is_empty() {
        return Ok(());
    }
    // Said before any connection: a short one is wrong whatever the daemon holds.
    for arg in &args {
        too_short(session_part(arg).0)?;
    }
    let client = ctx.connect().await?;
    let prefixes: Vec<String> = args.iter().map(|a| session_part(a).0.to_owned()).collect();
    let resolved = client.call(ChatResolve { prefixes }).await?;
    if resolved.prefixes.len() != args.len() {
        return Err(anyhow!(
            "paddockd resolved {} of {} session arguments",
            resolved.prefixes.len(),
            args.len()
        ));
    }
    for (arg, found) in args.iter_mut().zip(&resolved.prefixes) {
        **arg = expand(arg, found)?;
    }
    Ok(())
}

/// On a client of several hosts: replaces the session arguments of `command` with the whole
/// ids they name on whichever host has them (one `chat:resolve` per host, all at once), and
/// gives that host; `None` when the command takes no chat. A prefix that names chats on two
/// hosts is refused naming both, as are chats of one command on different hosts.
pub async fn resolve_across<'a>(
    hosts: &'a crate::hosts::Hosts,
    command: &mut Cmd,
) -> anyhow::Result<Option<&'a crate::hosts::Host>> {
    let mut args = session_args(command);
    if args.is_empty() {
        return Ok(None);
    }
    for arg in &args {
        too_short(session_part(arg).0)?;
    }
    let prefixes: Vec<String> = args.iter().map(|a| session_part(a).0.to_owned()).collect();
    let answers = super::fleet::resolve_on_each(hosts, prefixes).await?;
    let mut chosen: Option<&str> = None;
    for (i, arg) in args.iter_mut().enumerate() {
        let session = session_part(arg).0.to_owned();
        let (host, resolved) = host_of(&session, &answers, i)?;
        if let Some(before) = chosen
            && before != host
        {
            return Err(failure(format!(
                "the chats named are on different hosts ({before} and {host}); give each host's chats in a command of their own"
            )));
        }
        chosen = Some(host);
        **arg = expand(arg, resolved)?;
    }
    Ok(chosen.and_then(|name| hosts.get(name)))
}

/// The host whose chats the `i`th prefix `session` names, by what each host resolved: one
/// host, or the one that has it as a whole id; none, or several, is the command's failure.
fn host_of<'a>(
    session: &str,
    answers: &'a [(String, Vec<ResolvedPrefix>)],
    i: usize,
) -> anyhow::Result<(&'a str, &'a ResolvedPrefix)> {
    let found: Vec<(&str, &ResolvedPrefix)> = answers
        .iter()
        .filter_map(|(host, resolved)| Some((host.as_str(), resolved.get(i)?)))
        .filter(|(_, r)| !r.chats.is_empty() || r.more > 0)
        .collect();
    match found.as_slice() {
        [] => Err(failure(format!(
            "no chat {session} on any host that answered; {EVERY_CHAT}"
        ))),
        [one] => Ok(*one),
        many => {
            // A whole id on one host wins over prefixes of others' ids.
            let exact: Vec<&(&str, &ResolvedPrefix)> = many
                .iter()
                .filter(|(_, r)| {
                    r.chats
                        .iter()
                        .any(|c| c.session_id.eq_ignore_ascii_case(session))
                })
                .collect();
            if let [one] = exact.as_slice() {
                return Ok(**one);
            }
            let mut message = format!(
                "{session} names chats on {}; give more of the id:",
                many.iter()
                    .map(|(h, _)| *h)
                    .collect::<Vec<_>>()
                    .join(" and ")
            );
            for (h, r) in many {
                for chat in r.chats.iter().take(SHOWN) {
                    message.push_str(&format!(
                        "\n  {} ({h}:{}) {}",
                        chat.session_id,
                        crate::format::project_label(&chat.project_slug),
                        crate::format::one_line(&chat.title, 60)
                    ));
                }
            }
            Err(failure(message))
        }
    }
}

/// `arg`'s session id part, and the `:JOB` of a turn (`SESSION:JOB`) after it.
fn session_part(arg: &str) -> (&str, &str) {
    match arg.find(':') {
        Some(at) => (&arg[..at], &arg[at..]),
        None => (arg, ""),
    }
}

fn failure(message: String) -> anyhow::Error {
    anyhow!(Failure::new(1, message))
}

fn too_short(session: &str) -> anyhow::Result<()> {
    if session.chars().count() >= MIN_PREFIX {
        return Ok(());
    }
    Err(failure(format!(
        "{session:?} is too short for a session id: give at least {MIN_PREFIX} characters of it; {EVERY_CHAT}"
    )))
}

/// The whole id `arg`'s session part names (the `:JOB` of a turn kept), by what the daemon
/// found for it.
fn expand(arg: &str, resolved: &ResolvedPrefix) -> anyhow::Result<String> {
    let (session, rest) = session_part(arg);
    too_short(session)?;
    let found: Vec<&ResolvedChat> = resolved.chats.iter().collect();
    let total = found.len() + resolved.more as usize;
    // A whole id names its chat even when another's starts with it.
    if let Some(exact) = found
        .iter()
        .find(|c| c.session_id.eq_ignore_ascii_case(session))
    {
        return Ok(format!("{}{rest}", exact.session_id));
    }
    match found.as_slice() {
        [] => Err(failure(format!(
            "no chat {session} in any project; {EVERY_CHAT}"
        ))),
        [one] if total == 1 => Ok(format!("{}{rest}", one.session_id)),
        many => {
            let mut message = format!("{session} names {total} chats; give more of the id:");
            for chat in many.iter().take(SHOWN) {
                message.push_str(&format!(
                    "\n  {} ({}) {}",
                    chat.session_id,
                    crate::format::project_label(&chat.project_slug),
                    crate::format::one_line(&chat.title, 60)
                ));
            }
            if total > SHOWN {
                message.push_str(&format!("\n  … and {} more", total - SHOWN));
            }
            message.push_str(&format!(";\n{EVERY_CHAT}"));
            Err(failure(message))
        }
    }
}

/// Every argument of `command` that names a chat.
fn session_args(command: &mut Cmd) -> Vec<&mut String> {
    match command {
        Cmd::Send(a) => a.session.iter_mut().collect(),
        Cmd::Tail(a) => vec![&mut a.session],
        Cmd::Cancel(a) => vec![&mut a.session],
        Cmd::Continue(a) => vec![&mut a.session],
        Cmd::Show(a) => vec![&mut a.session],
        Cmd::Fork(a) => vec![&mut a.session],
        Cmd::Promote(a) => vec![&mut a.session],
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
        // `worktree merge|rebase|discard` may name a deleted chat's worktree (an orphan):
        // paddockd resolves those prefixes among the worktrees itself.
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(id: &str, title: &str) -> ResolvedChat {
        ResolvedChat {
            session_id: id.into(),
            project_slug: String::new(),
            title: title.into(),
        }
    }

    /// What the daemon answers for `arg`'s session part, given these chats.
    fn resolved(arg: &str, chats: &[ResolvedChat]) -> ResolvedPrefix {
        let prefix = session_part(arg).0.to_ascii_lowercase();
        ResolvedPrefix {
            prefix: prefix.clone(),
            chats: chats
                .iter()
                .filter(|c| c.session_id.to_ascii_lowercase().starts_with(&prefix))
                .cloned()
                .collect(),
            more: 0,
        }
    }

    #[test]
    fn a_prefix_on_two_hosts_is_refused_naming_both() {
        let answers = |arg: &str| {
            vec![
                ("a".to_owned(), vec![resolved(arg, &[chat(A, "on a")])]),
                ("b".to_owned(), vec![resolved(arg, &[chat(B, "on b")])]),
                ("c".to_owned(), vec![resolved(arg, &[chat(C, "on c")])]),
            ]
        };
        let both = answers("5511");
        let err = host_of("5511", &both, 0).err().map(|e| e.to_string());
        let err = err.unwrap_or_default();
        assert!(err.starts_with("5511 names chats on a and b;"), "{err}");
        assert!(
            err.contains(A) && err.contains(B) && !err.contains(C),
            "{err}"
        );
        let one = answers("55116d");
        assert_eq!(host_of("55116d", &one, 0).ok().map(|(h, _)| h), Some("b"));
        let none = answers("ffff");
        assert!(host_of("ffff", &none, 0).is_err());
    }

    const A: &str = "55116c23-07c8-4dc0-b5ea-a8295ea4858a";
    const B: &str = "55116d00-1111-4222-8333-944445555666";
    const C: &str = "0aa5917f-6022-4703-8645-147e9d75eb9b";

    #[test]
    fn a_unique_prefix_becomes_its_id_and_anything_else_fails_the_same_way() {
        let chats = [
            chat(A, "fix the build"),
            chat(B, "bisect"),
            chat(C, "hello"),
        ];
        let ok = |arg: &str| expand(arg, &resolved(arg, &chats)).ok();
        let err = |arg: &str| {
            let e = expand(arg, &resolved(arg, &chats))
                .err()
                .unwrap_or_else(|| anyhow!("none"));
            let code = e.downcast_ref::<Failure>().map(|f| f.code);
            (code, e.to_string())
        };
        assert_eq!(ok("0aa5917f").as_deref(), Some(C));
        assert_eq!(ok("0AA5").as_deref(), Some(C));
        assert_eq!(ok("55116c").as_deref(), Some(A));
        assert_eq!(ok(A).as_deref(), Some(A), "a whole id");
        // A turn keeps its job.
        assert_eq!(ok("0aa5917f:job-1"), Some(format!("{C}:job-1")));

        let (code, e) = err("5511");
        assert_eq!(code, Some(1));
        assert!(e.contains("names 2 chats"), "{e}");
        assert!(e.contains(A) && e.contains("bisect"), "{e}");
        assert!(e.ends_with(EVERY_CHAT), "{e}");

        let (code, e) = err("deadbeef");
        assert_eq!(code, Some(1));
        assert_eq!(e, format!("no chat deadbeef in any project; {EVERY_CHAT}"));
        let (_, e) = err("not-an-id");
        assert!(e.starts_with("no chat not-an-id in any project"), "{e}");

        let (code, e) = err("0aa");
        assert_eq!(code, Some(1));
        assert!(e.contains("too short"), "{e}");
        assert!(e.ends_with(EVERY_CHAT), "{e}");
        let (_, turn) = err("0aa:job");
        assert_eq!(turn, e, "a turn's session part, the same message");

        // Past the six the daemon shows, the count is the daemon's.
        let many = ResolvedPrefix {
            prefix: "5511".into(),
            chats: vec![chat(A, "fix the build")],
            more: 9,
        };
        let e = expand("5511", &many)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.contains("names 10 chats") && e.contains("… and 5 more"),
            "{e}"
        );
    }
}
