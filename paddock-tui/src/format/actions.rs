//! What the chat-changing commands say: `archive`, `star`, `read`, `detach`... (one line on how
//! many chats changed), `delete` (its question and its answer) and `import`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use paddock_proto::{ChatAction, ChatSummary, Imported};

use super::{clean_title, count, plural, project_label};

/// What an action did, and the state a chat it did not change was already in.
fn action_words(action: ChatAction) -> (&'static str, &'static str) {
    match action {
        ChatAction::Archive => ("archived", "already archived"),
        ChatAction::Unarchive => ("unarchived", "not archived"),
        ChatAction::Star => ("starred", "already starred"),
        ChatAction::Unstar => ("unstarred", "not starred"),
        ChatAction::Read => ("marked read", "already read"),
        ChatAction::Unread => ("marked unread", "already unread"),
        ChatAction::Detach => ("detached", "already detached"),
        ChatAction::Attach => ("attached", "not detached"),
    }
}

/// One line: how many of the `asked` chats the action changed (`changed`, the daemon's count).
pub fn update_summary(action: ChatAction, asked: usize, changed: u32) -> String {
    let (done, already) = action_words(action);
    let changed = usize::try_from(changed).unwrap_or(usize::MAX);
    // "marked 3 chats read" reads better than "marked read 3 chats".
    let (verb, state) = match action {
        ChatAction::Read | ChatAction::Unread => done.split_once(' ').unwrap_or((done, "")),
        _ => (done, ""),
    };
    let phrase = |chats: String| {
        if state.is_empty() {
            format!("{verb} {chats}")
        } else {
            format!("{verb} {chats} {state}")
        }
    };
    if changed == 0 {
        return match asked {
            1 => format!("nothing changed: the chat was {already}"),
            n => format!("nothing changed: the {n} chats were {already}"),
        };
    }
    if changed >= asked {
        return phrase(count(changed, "chat", "chats"));
    }
    let others = asked - changed;
    format!(
        "{}; {} {} {already}",
        phrase(format!("{changed} of {asked} chats")),
        if others == 1 {
            "the other"
        } else {
            "the others"
        },
        plural(others, "was", "were"),
    )
}

/// The question `paddock delete` asks, listing what would go.
pub fn delete_confirmation(chats: &[&ChatSummary]) -> String {
    let id_width = chats
        .iter()
        .map(|c| c.session_id.chars().count())
        .max()
        .unwrap_or(0);
    let project_width = chats
        .iter()
        .map(|c| project_label(&c.project_slug).chars().count())
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "delete {} for good (transcripts and flags)?\n",
        count(chats.len(), "chat", "chats")
    );
    for chat in chats {
        let running = if chat.running { "  (running)" } else { "" };
        let _ = writeln!(
            out,
            "  {:id_width$}  {:project_width$}  {}{running}",
            chat.session_id,
            project_label(&chat.project_slug),
            clean_title(&chat.title),
        );
    }
    out.push_str("[y/N] ");
    out
}

/// `paddock delete`'s answer.
pub fn deleted_summary(changed: u32) -> String {
    format!(
        "deleted {}",
        count(
            usize::try_from(changed).unwrap_or(usize::MAX),
            "chat",
            "chats"
        )
    )
}

/// `paddock import`: what was (or would be) adopted, one id a line, and per reason how many
/// sessions were skipped.
pub fn import_summary(imported: &Imported) -> String {
    let project = project_label(&imported.project_slug);
    let mut out = String::new();
    let n = imported.adopted.len();
    match (n, imported.dry_run) {
        (0, true) => {
            let _ = writeln!(out, "would adopt nothing from {}", imported.path);
        }
        (0, false) => {
            let _ = writeln!(out, "nothing to adopt from {}", imported.path);
        }
        (_, true) => {
            let _ = writeln!(
                out,
                "would adopt {} from {} into {project} (dry run: nothing changed)",
                count(n, "chat", "chats"),
                imported.path
            );
        }
        (_, false) => {
            let _ = writeln!(
                out,
                "adopted {} from {} into {project}",
                count(n, "chat", "chats"),
                imported.path
            );
        }
    }
    for id in &imported.adopted {
        let _ = writeln!(out, "  {id}");
    }
    if !imported.skipped.is_empty() {
        let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
        for skip in &imported.skipped {
            *reasons.entry(skip.reason.as_str()).or_default() += 1;
        }
        let mut reasons: Vec<(&str, usize)> = reasons.into_iter().collect();
        // The most common reason first; ties in name order.
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let list: Vec<String> = reasons
            .iter()
            .map(|(reason, n)| format!("{n} {}", skip_reason(reason)))
            .collect();
        let verb = if imported.dry_run {
            "would skip"
        } else {
            "skipped"
        };
        let _ = writeln!(
            out,
            "{verb} {}: {}",
            count(imported.skipped.len(), "session", "sessions"),
            list.join(", ")
        );
    }
    out
}

/// A skip reason in words; one this client does not know is shown as it came.
fn skip_reason(reason: &str) -> String {
    match reason {
        "sidechain" => "sub-agent sidechain".to_owned(),
        "already_present" => "already imported".to_owned(),
        "empty" => "empty".to_owned(),
        "slash_command_only" => "only slash commands".to_owned(),
        "unreadable" => "unreadable".to_owned(),
        "other_directory" => "of another directory".to_owned(),
        other => other.replace('_', " "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::{ImportSkip, Origin};

    #[test]
    fn every_action_says_what_it_did() {
        let lines: Vec<String> = [
            ChatAction::Archive,
            ChatAction::Unarchive,
            ChatAction::Star,
            ChatAction::Unstar,
            ChatAction::Read,
            ChatAction::Unread,
            ChatAction::Detach,
            ChatAction::Attach,
        ]
        .into_iter()
        .flat_map(|action| {
            [
                update_summary(action, 3, 3),
                update_summary(action, 1, 1),
                update_summary(action, 3, 2),
                update_summary(action, 4, 1),
                update_summary(action, 1, 0),
                update_summary(action, 2, 0),
            ]
        })
        .collect();
        insta::assert_snapshot!(lines.join("\n"), @r"
        archived 3 chats
        archived 1 chat
        archived 2 of 3 chats; the other was already archived
        archived 1 of 4 chats; the others were already archived
        nothing changed: the chat was already archived
        nothing changed: the 2 chats were already archived
        unarchived 3 chats
        unarchived 1 chat
        unarchived 2 of 3 chats; the other was not archived
        unarchived 1 of 4 chats; the others were not archived
        nothing changed: the chat was not archived
        nothing changed: the 2 chats were not archived
        starred 3 chats
        starred 1 chat
        starred 2 of 3 chats; the other was already starred
        starred 1 of 4 chats; the others were already starred
        nothing changed: the chat was already starred
        nothing changed: the 2 chats were already starred
        unstarred 3 chats
        unstarred 1 chat
        unstarred 2 of 3 chats; the other was not starred
        unstarred 1 of 4 chats; the others were not starred
        nothing changed: the chat was not starred
        nothing changed: the 2 chats were not starred
        marked 3 chats read
        marked 1 chat read
        marked 2 of 3 chats read; the other was already read
        marked 1 of 4 chats read; the others were already read
        nothing changed: the chat was already read
        nothing changed: the 2 chats were already read
        marked 3 chats unread
        marked 1 chat unread
        marked 2 of 3 chats unread; the other was already unread
        marked 1 of 4 chats unread; the others were already unread
        nothing changed: the chat was already unread
        nothing changed: the 2 chats were already unread
        detached 3 chats
        detached 1 chat
        detached 2 of 3 chats; the other was already detached
        detached 1 of 4 chats; the others were already detached
        nothing changed: the chat was already detached
        nothing changed: the 2 chats were already detached
        attached 3 chats
        attached 1 chat
        attached 2 of 3 chats; the other was not detached
        attached 1 of 4 chats; the others were not detached
        nothing changed: the chat was not detached
        nothing changed: the 2 chats were not detached
        ");
    }

    #[test]
    fn a_daemon_counting_more_than_asked_is_taken_at_its_word() {
        assert_eq!(
            update_summary(ChatAction::Archive, 2, 5),
            "archived 5 chats"
        );
    }

    #[test]
    fn delete_asks_listing_the_chats() {
        let mut a = ChatSummary {
            session_id: "s-1".into(),
            project_slug: String::new(),
            title: "Fix the\nbuild".into(),
            origin: Origin::Human,
            ..ChatSummary::default()
        };
        let mut b = a.clone();
        b.session_id = "s-child".into();
        b.project_slug = "web".into();
        b.title = String::new();
        b.running = true;
        a.starred = true;
        insta::assert_snapshot!(delete_confirmation(&[&a, &b]), @r"
        delete 2 chats for good (transcripts and flags)?
          s-1      (root)  Fix the build
          s-child  web     (untitled)  (running)
        [y/N]
        ");
        assert_eq!(deleted_summary(1), "deleted 1 chat");
        assert_eq!(deleted_summary(2), "deleted 2 chats");
    }

    fn imported(adopted: &[&str], skipped: &[(&str, &str)], dry_run: bool) -> Imported {
        Imported {
            project_slug: "webapp".into(),
            path: "/home/ana/src/webapp".into(),
            adopted: adopted.iter().map(|s| (*s).to_owned()).collect(),
            skipped: skipped
                .iter()
                .map(|(id, reason)| ImportSkip {
                    session_id: (*id).into(),
                    reason: (*reason).into(),
                })
                .collect(),
            dry_run,
        }
    }

    #[test]
    fn import_lists_the_adopted_and_counts_the_skipped() {
        let skipped = [
            ("k1", "empty"),
            ("k2", "already_present"),
            ("k3", "empty"),
            ("k4", "sidechain"),
            ("k5", "from_the_future"),
        ];
        insta::assert_snapshot!(import_summary(&imported(&["s-a", "s-b"], &skipped, false)), @r"
        adopted 2 chats from /home/ana/src/webapp into webapp
          s-a
          s-b
        skipped 5 sessions: 2 empty, 1 already imported, 1 from the future, 1 sub-agent sidechain
        ");
        insta::assert_snapshot!(import_summary(&imported(&["s-a"], &[("k", "other_directory")], true)), @r"
        would adopt 1 chat from /home/ana/src/webapp into webapp (dry run: nothing changed)
          s-a
        would skip 1 session: 1 of another directory
        ");
        assert_eq!(
            import_summary(&imported(&[], &[], false)),
            "nothing to adopt from /home/ana/src/webapp\n"
        );
        assert_eq!(
            import_summary(&imported(&[], &[("k", "slash_command_only")], true)),
            "would adopt nothing from /home/ana/src/webapp\nwould skip 1 session: 1 only slash commands\n"
        );
    }
}
