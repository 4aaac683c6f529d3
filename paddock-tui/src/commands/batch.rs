//! `paddock archive|unarchive|star|unstar|read|unread|detach|attach` and `paddock delete`: one
//! all-or-nothing request for every named chat (and, with --subtree, every chat below them).

use std::collections::{HashMap, HashSet};
use std::io::{BufRead as _, IsTerminal as _};

use anyhow::{Context as _, anyhow};
use paddock_proto::{
    BATCH_SESSIONS_MAX, ChatAction, ChatDelete, ChatSummary, ChatUpdate, SessionIds,
};

use super::Context;
use super::chats::every_chat;
use super::output::{Failure, eprint, print};
use crate::cli::{DeleteArgs, UpdateArgs};
use crate::format;

pub async fn update(ctx: &Context, action: ChatAction, args: UpdateArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let ids = if args.subtree {
        let chats = every_chat(&client).await?;
        with_descendants(&args.sessions, &chats)?
    } else {
        unique(&args.sessions)
    };
    check_cap(ids.len(), args.subtree)?;
    let asked = ids.len();
    let request = ChatUpdate {
        session_ids: ids,
        action,
    };
    let updated = client.call(request).await?;
    say_notes(&updated.notes);
    print(&format!(
        "{}\n",
        format::update_summary(action, asked, updated.changed)
    ))
}

/// What the daemon says a person should know of a change (a worktree kept), on stderr.
fn say_notes(notes: &[String]) {
    for note in notes {
        eprint(&format!("paddock: {note}\n"));
    }
}

/// What is refused before anything else, even looking the session ids up or starting the
/// daemon: a delete a script cannot confirm, and more chats than one request may change.
pub fn precheck(command: Option<&crate::cli::Cmd>) -> anyhow::Result<()> {
    use crate::cli::Cmd;
    match command {
        Some(Cmd::Delete(args)) => {
            unconfirmable(args)?;
            check_cap(unique(&args.sessions).len(), args.subtree)
        }
        Some(
            Cmd::Archive(args)
            | Cmd::Unarchive(args)
            | Cmd::Star(args)
            | Cmd::Unstar(args)
            | Cmd::Read(args)
            | Cmd::Unread(args)
            | Cmd::Detach(args)
            | Cmd::Attach(args),
        ) => check_cap(unique(&args.sessions).len(), args.subtree),
        _ => Ok(()),
    }
}

/// A delete without --yes when stdin is not a terminal: a script cannot answer.
fn unconfirmable(args: &DeleteArgs) -> anyhow::Result<()> {
    if !args.yes && !std::io::stdin().is_terminal() {
        return Err(Failure::new(
            1,
            "not deleting without confirmation: stdin is not a terminal; add --yes to delete anyway",
        )
        .into());
    }
    Ok(())
}

pub async fn delete(ctx: &Context, args: DeleteArgs) -> anyhow::Result<()> {
    // Refuse before anything else (even starting the daemon): a script cannot answer.
    unconfirmable(&args)?;
    let ask = !args.yes;
    let client = ctx.connect().await?;
    let chats = if args.subtree || ask {
        every_chat(&client).await?
    } else {
        Vec::new()
    };
    let ids = if args.subtree {
        with_descendants(&args.sessions, &chats)?
    } else {
        unique(&args.sessions)
    };
    check_cap(ids.len(), args.subtree)?;
    if ask {
        let by_id: HashMap<&str, &ChatSummary> =
            chats.iter().map(|c| (c.session_id.as_str(), c)).collect();
        let listed = ids
            .iter()
            .map(|id| by_id.get(id.as_str()).copied().ok_or_else(|| no_chat(id)))
            .collect::<anyhow::Result<Vec<_>>>()?;
        eprint(&format::delete_confirmation(&listed));
        if !confirmed().await? {
            return Err(Failure::new(1, "not confirmed; nothing was deleted").into());
        }
    }
    let request = ChatDelete(SessionIds { session_ids: ids });
    let deleted = client.call(request).await?;
    say_notes(&deleted.notes);
    print(&format!("{}\n", format::deleted_summary(deleted.changed)))
}

/// The ids, each once, in the order given.
fn unique(ids: &[String]) -> Vec<String> {
    let mut seen = HashSet::new();
    ids.iter()
        .filter(|id| seen.insert(id.as_str()))
        .cloned()
        .collect()
}

/// The resolver's words (`ids.rs`), for a chat gone between the look-up and the listing.
fn no_chat(id: &str) -> anyhow::Error {
    anyhow!(Failure::new(
        1,
        format!("no chat {id} in any project; {}", super::ids::EVERY_CHAT)
    ))
}

/// Each named chat followed by every chat drawn below it (depth first), each once. A chat's
/// children are its `children`, and any row drawn under it (`treeParent`), so a daemon that
/// fills only one of the two still gives the whole subtree.
fn with_descendants(named: &[String], chats: &[ChatSummary]) -> anyhow::Result<Vec<String>> {
    let mut children: HashMap<&str, Vec<&str>> = HashMap::new();
    for chat in chats {
        let mine = children.entry(chat.session_id.as_str()).or_default();
        mine.extend(chat.children.iter().map(String::as_str));
        if let Some(parent) = chat.tree_parent.as_deref() {
            children
                .entry(parent)
                .or_default()
                .push(chat.session_id.as_str());
        }
    }
    let listed: HashSet<&str> = chats.iter().map(|c| c.session_id.as_str()).collect();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for id in named {
        if !listed.contains(id.as_str()) {
            return Err(no_chat(id));
        }
        // Depth first, children in order; `seen` also guards against a cycle.
        let mut stack = vec![id.as_str()];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            out.push(id.to_owned());
            if let Some(kids) = children.get(id) {
                stack.extend(kids.iter().rev());
            }
        }
    }
    Ok(out)
}

/// The daemon refuses more than [`BATCH_SESSIONS_MAX`] ids, all or nothing; say so before
/// asking, in the user's terms.
fn check_cap(n: usize, subtree: bool) -> anyhow::Result<()> {
    if n <= BATCH_SESSIONS_MAX {
        return Ok(());
    }
    let counted = if subtree {
        " (with the chats below them)"
    } else {
        ""
    };
    Err(anyhow!(
        "that is {n} chats{counted}; at most {BATCH_SESSIONS_MAX} can change at once, so nothing was changed; name fewer chats per command"
    ))
}

/// Reads the answer to the question on stderr: yes only for `y` or `yes`.
pub(super) async fn confirmed() -> anyhow::Result<bool> {
    // Off the runtime's thread: the connection keeps reading while the user thinks.
    let line = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).map(|_| line)
    })
    .await
    .context("could not read the answer")?
    .context("could not read the answer from stdin")?;
    Ok(is_yes(&line))
}

fn is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_lowercase().as_str(), "y" | "yes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, tree_parent: Option<&str>, children: &[&str]) -> ChatSummary {
        ChatSummary {
            session_id: id.into(),
            tree_parent: tree_parent.map(Into::into),
            children: children.iter().map(|c| (*c).to_owned()).collect(),
            ..ChatSummary::default()
        }
    }

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    /// a ─ b ─ d, a ─ c; e alone; x in another project under b.
    fn tree() -> Vec<ChatSummary> {
        vec![
            row("a", None, &["b", "c"]),
            row("b", Some("a"), &["d", "x"]),
            row("d", Some("b"), &[]),
            row("c", Some("a"), &[]),
            row("e", None, &[]),
            row("x", Some("b"), &[]),
        ]
    }

    #[test]
    fn subtrees_are_walked_depth_first_each_chat_once() -> anyhow::Result<()> {
        let chats = tree();
        assert_eq!(
            with_descendants(&ids(&["a"]), &chats)?,
            ["a", "b", "d", "x", "c"]
        );
        // A chat named after its ancestor is not repeated.
        assert_eq!(
            with_descendants(&ids(&["b", "e", "a", "d"]), &chats)?,
            ["b", "d", "x", "e", "a", "c"]
        );
        Ok(())
    }

    #[test]
    fn a_subtree_is_found_from_either_side_of_the_edge() -> anyhow::Result<()> {
        // Only children filled in...
        let only_children = vec![row("a", None, &["b"]), row("b", None, &[])];
        assert_eq!(with_descendants(&ids(&["a"]), &only_children)?, ["a", "b"]);
        // ...or only treeParent.
        let only_parents = vec![row("a", None, &[]), row("b", Some("a"), &[])];
        assert_eq!(with_descendants(&ids(&["a"]), &only_parents)?, ["a", "b"]);
        Ok(())
    }

    #[test]
    fn a_cycle_does_not_loop() -> anyhow::Result<()> {
        let chats = vec![row("a", Some("b"), &["b"]), row("b", Some("a"), &["a"])];
        assert_eq!(with_descendants(&ids(&["a"]), &chats)?, ["a", "b"]);
        Ok(())
    }

    #[test]
    fn an_unknown_chat_is_named() {
        let err = with_descendants(&ids(&["a", "nope"]), &tree())
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("no chat nope in any project; `paddock ls -A` lists every project's chats")
        );
    }

    #[test]
    fn a_parent_only_named_by_treeparent_is_not_a_chat() {
        let chats = vec![row("a", Some("ghost"), &[])];
        assert!(with_descendants(&ids(&["ghost"]), &chats).is_err());
    }

    #[test]
    fn ids_are_sent_once() {
        assert_eq!(unique(&ids(&["a", "b", "a", "c", "b"])), ["a", "b", "c"]);
    }

    #[test]
    fn the_cap_is_checked_before_asking() {
        assert!(check_cap(BATCH_SESSIONS_MAX, false).is_ok());
        let err = check_cap(BATCH_SESSIONS_MAX + 1, true)
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "that is 501 chats (with the chats below them); at most 500 can change at once, so nothing was changed; name fewer chats per command"
            )
        );
    }

    #[test]
    fn only_yes_means_yes() {
        for yes in ["y\n", "Y", " yes ", "YES\n"] {
            assert!(is_yes(yes), "{yes:?}");
        }
        for no in ["", "\n", "n", "no", "yep", "y es"] {
            assert!(!is_yes(no), "{no:?}");
        }
    }
}
