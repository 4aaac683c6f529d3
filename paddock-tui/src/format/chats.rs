//! Listings: chats (`paddock ls`), projects (`paddock project ls`), the daemon's status.

use std::collections::HashMap;
use std::fmt::Write as _;

use paddock_proto::{ChatSummary, DaemonStatus, ProjectInfo};

use super::{clean_title, origin_name, project_label};

/// Each row's nesting depth in the listing: one more than its parent's when the parent is an
/// earlier row, else 0 — so a spawned chat whose parent is not listed (another project,
/// archived, filtered out) stands at the top level instead of hanging under nothing.
pub fn tree_depths(chats: &[ChatSummary]) -> Vec<usize> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    chats
        .iter()
        .map(|chat| {
            let depth = chat
                .tree_parent
                .as_deref()
                .and_then(|parent| seen.get(parent))
                .map_or(0, |d| d + 1);
            seen.insert(chat.session_id.as_str(), depth);
            depth
        })
        .collect()
}

/// The four flags of `paddock ls`: R running, U unread, S starred, A archived.
pub fn chat_flags(chat: &ChatSummary) -> String {
    [
        (chat.running, 'R'),
        (chat.unread, 'U'),
        (chat.starred, 'S'),
        (chat.archived, 'A'),
    ]
    .iter()
    .map(|&(on, c)| if on { c } else { '-' })
    .collect()
}

/// `paddock ls`: a header and one row per chat in tree order, titles indented by depth.
pub fn chat_table(chats: &[ChatSummary]) -> String {
    let id_width = chats
        .iter()
        .map(|c| c.session_id.chars().count())
        .max()
        .unwrap_or(0)
        .max("SESSION".len());
    let mut out = String::new();
    let _ = writeln!(out, "{:id_width$}  {:9}  FLAGS  TITLE", "SESSION", "ORIGIN");
    for (chat, depth) in chats.iter().zip(tree_depths(chats)) {
        let branch = if depth == 0 {
            String::new()
        } else {
            format!("{}└ ", "  ".repeat(depth - 1))
        };
        let _ = writeln!(
            out,
            "{:id_width$}  {:9}  {}   {branch}{}",
            chat.session_id,
            origin_name(chat.origin),
            chat_flags(chat),
            clean_title(&chat.title),
        );
    }
    out
}

/// `paddock project ls`: slug and directory.
pub fn project_table(projects: &[ProjectInfo]) -> String {
    let width = projects
        .iter()
        .map(|p| project_label(&p.slug).chars().count())
        .max()
        .unwrap_or(0)
        .max("PROJECT".len());
    let mut out = String::new();
    let _ = writeln!(out, "{:width$}  PATH", "PROJECT");
    for project in projects {
        let _ = writeln!(
            out,
            "{:width$}  {}",
            project_label(&project.slug),
            project.path
        );
    }
    out
}

/// `paddock daemon status`.
pub fn daemon_status(status: &DaemonStatus) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "paddockd {} (protocol {}), pid {}, up {}",
        status.daemon_version,
        status.protocol_version,
        status.pid,
        duration(status.uptime_secs)
    );
    let _ = writeln!(out, "socket   {}", status.socket);
    let _ = writeln!(out, "data     {}", status.data_dir);
    let _ = writeln!(out, "clients  {}", status.clients);
    let _ = writeln!(
        out,
        "claude   {} of {} processes live, {} {} queued",
        status.live_processes,
        status.max_processes,
        status.queued_turns,
        plural(status.queued_turns as usize, "turn", "turns")
    );
    let _ = writeln!(
        out,
        "running  {} {}",
        status.running.len(),
        plural(status.running.len(), "turn", "turns")
    );
    for turn in &status.running {
        let _ = writeln!(
            out,
            "  {}  {}  since {}",
            project_label(&turn.project_slug),
            turn.session_id,
            turn.started_at
        );
    }
    out
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// A duration for people: the two largest units.
fn duration(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, _) => format!("{m}m {s:02}s"),
        (0, _, _) => format!("{h}h {m:02}m"),
        _ => format!("{d}d {h}h"),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use paddock_proto::{Origin, RunningTurn};

    pub(crate) fn chat(id: &str, title: &str, origin: Origin, parent: Option<&str>) -> ChatSummary {
        ChatSummary {
            session_id: id.into(),
            project_slug: String::new(),
            title: title.into(),
            origin,
            depth: 0,
            parent_session_id: parent.map(Into::into),
            parent_project: parent.map(|_| String::new()),
            created_at: None,
            updated_at: None,
            model: None,
            message_count: 3,
            running: false,
            unread: false,
            archived: false,
            starred: false,
            tree_parent: parent.map(Into::into),
            ..ChatSummary::default()
        }
    }

    #[test]
    fn ls_indents_children_under_their_parent() {
        let mut manager = chat("s-manager", "Manager", Origin::Human, None);
        manager.running = true;
        manager.starred = true;
        let mut child = chat("s-child", "Child task", Origin::Spawned, Some("s-manager"));
        child.depth = 1;
        child.unread = true;
        let mut grandchild = chat("s-grand", "Grandchild", Origin::Spawned, Some("s-child"));
        grandchild.depth = 2;
        // Its parent lives in another project: it stands at the top level.
        let mut orphan = chat("s-orphan", "Orphan", Origin::Spawned, Some("elsewhere"));
        orphan.depth = 1;
        orphan.archived = true;
        let nightly = chat("s-nightly", "  ", Origin::Scheduled, None);
        let table = chat_table(&[manager, child, grandchild, orphan, nightly]);
        assert_eq!(
            table,
            "\
SESSION    ORIGIN     FLAGS  TITLE
s-manager  human      R-S-   Manager
s-child    spawned    -U--   └ Child task
s-grand    spawned    ----     └ Grandchild
s-orphan   spawned    ---A   Orphan
s-nightly  scheduled  ----   (untitled)
"
        );
    }

    #[test]
    fn ls_of_nothing_is_just_the_header() {
        assert_eq!(chat_table(&[]), "SESSION  ORIGIN     FLAGS  TITLE\n");
    }

    #[test]
    fn projects_show_the_root_by_name() {
        let table = project_table(&[
            ProjectInfo {
                slug: String::new(),
                path: "/data/root".into(),
                created_at: None,
            },
            ProjectInfo {
                slug: "web".into(),
                path: "/src/web".into(),
                created_at: None,
            },
        ]);
        assert_eq!(
            table,
            "PROJECT  PATH\n(root)   /data/root\nweb      /src/web\n"
        );
    }

    #[test]
    fn status_reads_like_a_sentence() {
        let status = DaemonStatus {
            daemon_version: "0.1.0".into(),
            protocol_version: 1,
            pid: 4242,
            uptime_secs: 3725,
            socket: "/run/paddock.sock".into(),
            data_dir: "/data".into(),
            running: vec![RunningTurn {
                project_slug: "web".into(),
                session_id: "s1".into(),
                job_id: "j1".into(),
                started_at: "2026-11-29T10:00:00Z".into(),
            }],
            live_processes: 1,
            max_processes: 4,
            queued_turns: 0,
            clients: 2,
        };
        assert_eq!(
            daemon_status(&status),
            "\
paddockd 0.1.0 (protocol 1), pid 4242, up 1h 02m
socket   /run/paddock.sock
data     /data
clients  2
claude   1 of 4 processes live, 0 turns queued
running  1 turn
  web  s1  since 2026-11-29T10:00:00Z
"
        );
    }

    #[test]
    fn durations() {
        assert_eq!(duration(42), "42s");
        assert_eq!(duration(312), "5m 12s");
        assert_eq!(duration(90_061), "1d 1h");
    }
}
