//! Listings: chats (`paddock ls`), projects (`paddock project ls`), the daemon's status.

use std::collections::HashMap;
use std::fmt::Write as _;

use unicode_width::UnicodeWidthStr as _;

use paddock_proto::{ChatSummary, DaemonStatus, Origin, ProjectInfo};

use crate::needs::Need;

use super::{clean_title, duration, origin_label, plural, project_label};

/// Each row's nesting depth in the listing: the daemon's `level`, kept consistent with the rows
/// around it so the tree always reads right. A row is never more than one level below the row
/// above it (a filtered listing, or a parent that is not listed, would otherwise leave a branch
/// hanging under nothing); a row at level 0 whose `treeParent` is an earlier row sits under it
/// (a daemon that did not fill `level` in).
pub fn tree_depths(chats: &[ChatSummary]) -> Vec<usize> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut above: Option<usize> = None;
    chats
        .iter()
        .map(|chat| {
            let under_parent = chat
                .tree_parent
                .as_deref()
                .and_then(|parent| seen.get(parent))
                .map(|d| d + 1);
            let deepest = above.map_or(0, |d| d + 1);
            let depth = match (
                usize::try_from(chat.level).unwrap_or(usize::MAX),
                under_parent,
            ) {
                (0, Some(depth)) => depth,
                (level, _) => level,
            }
            .min(deepest);
            seen.insert(chat.session_id.as_str(), depth);
            above = Some(depth);
            depth
        })
        .collect()
}

/// How full the chat's context window is, in whole percent (`None` when unknown).
pub fn context_percent(chat: &ChatSummary) -> Option<u64> {
    usage_percent(chat.usage.as_ref()?)
}

/// How full a chat's context window is, in percent, rounded: the one figure `ls`, `usage`,
/// the tree and the chat's header show. `None` when the window's size is not known.
pub fn usage_percent(usage: &paddock_proto::ChatUsage) -> Option<u64> {
    if usage.context_limit == 0 {
        return None;
    }
    let (used, limit) = (
        u128::from(usage.context_tokens),
        u128::from(usage.context_limit),
    );
    u64::try_from((used * 100 + limit / 2) / limit).ok()
}

/// The CTX cell of `paddock ls`: `42%`; `<1%` for a little that rounds to nothing; blank when
/// unknown.
fn context_cell(chat: &ChatSummary) -> String {
    match context_percent(chat) {
        None => String::new(),
        Some(0) if chat.usage.as_ref().is_some_and(|u| u.context_tokens > 0) => "<1%".to_owned(),
        Some(p) => format!("{p}%"),
    }
}

/// The five flags of `paddock ls`: R running, U unread, S starred, A archived, then what it
/// waits for you to do, most urgent first ([`Need`]): W answer a tool call, F look at a failed
/// run, I continue a turn cut short, P wait out a usage limit.
pub fn chat_flags(chat: &ChatSummary) -> String {
    let need = Need::of(chat).and_then(Need::letter).unwrap_or('-');
    [
        (chat.running, 'R'),
        (chat.unread, 'U'),
        (chat.starred, 'S'),
        (chat.archived, 'A'),
    ]
    .iter()
    .map(|&(on, c)| if on { c } else { '-' })
    .chain([need])
    .collect()
}

/// `paddock ls`: a header and one row per chat in tree order, titles indented by depth; ids
/// as `ids` shows them; with a `width` (a terminal's), each title cut so its row fits it (to
/// [`TITLE_AT_LEAST`] columns at least).
pub fn chat_table(chats: &[ChatSummary], ids: super::IdForm, width: Option<usize>) -> String {
    let listed: Vec<&str> = chats.iter().map(|c| c.session_id.as_str()).collect();
    let shown = ids.show(&listed);
    let id_width = shown
        .iter()
        .map(|id| id.chars().count())
        .max()
        .unwrap_or(0)
        .max("SESSION".len());
    let origins: Vec<String> = chats
        .iter()
        .map(|c| match (c.fork, c.origin) {
            // A person's fork is told by being one; another origin keeps its word.
            (true, Origin::Human) => "fork".to_owned(),
            (true, _) => format!("{} fork", origin_label(c.origin, c.depth)),
            (false, _) => origin_label(c.origin, c.depth),
        })
        .collect();
    let origin_width = origins
        .iter()
        .map(|o| o.chars().count())
        .max()
        .unwrap_or(0)
        .max("scheduled".len());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:id_width$}  {:origin_width$}  FLAGS   CTX  TITLE",
        "SESSION", "ORIGIN"
    );
    for (((chat, depth), origin), id) in
        chats.iter().zip(tree_depths(chats)).zip(origins).zip(shown)
    {
        let branch = if depth == 0 {
            String::new()
        } else {
            format!("{}└ ", "  ".repeat(depth - 1))
        };
        let ctx = context_cell(chat);
        let head = format!(
            "{id:id_width$}  {origin:origin_width$}  {}  {ctx:>4}  {branch}",
            chat_flags(chat)
        );
        let mut title = clean_title(&chat.title);
        if let Some(width) = width {
            let room = width.saturating_sub(head.width()).max(TITLE_AT_LEAST);
            title = super::fit_width(&title, room, "…");
        }
        let _ = writeln!(out, "{head}{title}");
    }
    out
}

/// The fewest columns `paddock ls` cuts a title to on a narrow terminal (the row wraps then).
pub const TITLE_AT_LEAST: usize = 16;

/// The columns of the terminal stdout is, when it is one: what `paddock ls` fits its rows to.
pub fn stdout_width() -> Option<usize> {
    use std::io::IsTerminal as _;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    ratatui::crossterm::terminal::size()
        .ok()
        .map(|(cols, _)| usize::from(cols))
        .filter(|&cols| cols > 0)
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
        let shadowed = match project.shadowed_by.as_deref() {
            None => String::new(),
            Some(owner) => format!(
                "  (refused: {}'s directory; see `paddock project show {}`)",
                project_label(owner),
                project.slug
            ),
        };
        let _ = writeln!(
            out,
            "{:width$}  {}{shadowed}",
            project_label(&project.slug),
            project.path
        );
    }
    out
}

/// `paddock daemon status`.
pub fn daemon_status(status: &DaemonStatus) -> String {
    daemon_status_at(status, &chrono::Local::now())
}

/// [`daemon_status`] as of `now` (its zone is the one times are shown in).
pub fn daemon_status_at<Tz: chrono::TimeZone>(
    status: &DaemonStatus,
    now: &chrono::DateTime<Tz>,
) -> String
where
    Tz::Offset: std::fmt::Display,
{
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
    let _ = match status.agent_clients {
        0 => writeln!(out, "clients  {}", status.clients),
        agents => writeln!(
            out,
            "clients  {} (and {agents} agents' tool bridges)",
            status.clients
        ),
    };
    let _ = writeln!(
        out,
        "claude   {} of {} processes live, {} {} queued",
        status.live_processes,
        status.max_processes,
        status.queued_turns,
        plural(status.queued_turns as usize, "turn", "turns")
    );
    for spare in &status.spares {
        let _ = writeln!(
            out,
            "  spare for {}'s next new chat{} ({})",
            project_label(&spare.project_slug),
            if spare.worktree {
                ", in a spare worktree"
            } else {
                ""
            },
            if spare.ready { "ready" } else { "starting" }
        );
    }
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
            super::short_time(&turn.started_at, now)
        );
    }
    for disk in &status.low_disk {
        let _ = writeln!(
            out,
            "disk     only {} free for {} (below {}): replies may not be saved",
            crate::attachments::human_size(disk.free_bytes),
            disk.path,
            crate::attachments::human_size(disk.floor_bytes)
        );
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use paddock_proto::{ChatUsage, Origin, RunningTurn};

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
            ..ChatSummary::default()
        }
    }

    /// A row as the daemon lays it out: drawn under `parent` at `level`.
    fn under(mut chat: ChatSummary, parent: &str, level: u32) -> ChatSummary {
        chat.tree_parent = Some(parent.into());
        chat.level = level;
        chat
    }

    fn usage(context_tokens: u64, context_limit: u64) -> Option<ChatUsage> {
        Some(ChatUsage {
            context_tokens,
            context_limit,
            ..ChatUsage::default()
        })
    }

    #[test]
    fn ls_indents_children_under_their_parent() {
        let mut manager = chat("s-manager", "Manager", Origin::Human, None);
        manager.running = true;
        manager.starred = true;
        manager.usage = usage(41_873, 200_000);
        let mut child = under(
            chat("s-child", "Child task", Origin::Spawned, Some("s-manager")),
            "s-manager",
            1,
        );
        child.depth = 1;
        child.unread = true;
        child.usage = usage(200_000, 200_000);
        let mut grandchild = under(
            chat("s-grand", "Grandchild", Origin::Spawned, Some("s-child")),
            "s-child",
            2,
        );
        grandchild.depth = 2;
        // Unknown window size: no figure rather than a wrong one.
        grandchild.usage = usage(5_000, 0);
        grandchild.interrupted = true;
        // Its parent lives in another project: the daemon draws it as a root, and its badge
        // keeps the depth that the indentation cannot show.
        let mut orphan = chat("s-orphan", "Orphan", Origin::Spawned, Some("elsewhere"));
        orphan.tree_parent = None;
        orphan.depth = 3;
        orphan.archived = true;
        orphan.usage = usage(1_234, 1_000_000);
        orphan.failed = true;
        // A fork a person made, and one an agent made (`fork_chat`).
        let mut fork = under(
            chat(
                "s-fork",
                "fork of Manager",
                Origin::Human,
                Some("s-manager"),
            ),
            "s-manager",
            1,
        );
        fork.fork = true;
        fork.depth = 1;
        let mut agent_fork = chat("s-afork", "Retry", Origin::Spawned, Some("s-manager"));
        agent_fork.fork = true;
        agent_fork.depth = 1;
        let mut nightly = chat("s-nightly", "  ", Origin::Scheduled, None);
        nightly.running = true;
        nightly.waiting_approval = true;
        let table = chat_table(
            &[
                manager, child, grandchild, fork, orphan, agent_fork, nightly,
            ],
            crate::format::IdForm::Whole,
            None,
        );
        insta::assert_snapshot!(table, @r"
        SESSION    ORIGIN        FLAGS   CTX  TITLE
        s-manager  human         R-S--   21%  Manager
        s-child    spawned       -U---  100%  └ Child task
        s-grand    spawned·2     ----I          └ Grandchild
        s-fork     fork          -----        └ fork of Manager
        s-orphan   spawned·3     ---AF   <1%  Orphan
        s-afork    spawned fork  -----        Retry
        s-nightly  scheduled     R---W        (untitled)
        ");
    }

    #[test]
    fn a_pasted_title_is_one_short_line() {
        let pasted: String = (1..=2000).map(|i| format!("line {i}\n")).collect();
        let table = chat_table(
            &[chat("s-paste", &pasted, Origin::Human, None)],
            crate::format::IdForm::Whole,
            None,
        );
        let row = table.lines().nth(1).unwrap_or_default();
        assert_eq!(table.lines().count(), 2, "{table}");
        assert!(row.ends_with("line 1 line 2 line 3 line 4 line 5 line 6 line 7 line 8 line 9 line 10 line 11 line 12 line 13 line 14 line 15 line 16 l…"), "{row}");
    }

    #[test]
    fn on_a_terminal_each_row_fits_its_width() {
        let long = "a long first prompt ".repeat(10);
        let chats = [chat("s-long", &long, Origin::Human, None)];
        let table = chat_table(&chats, crate::format::IdForm::Whole, Some(60));
        let row = table.lines().nth(1).unwrap_or_default();
        assert_eq!(row.width(), 60, "{row:?}");
        assert!(row.ends_with('…'), "{row:?}");
        // Too narrow for the columns: the title keeps its least, and the row wraps.
        let table = chat_table(&chats, crate::format::IdForm::Whole, Some(20));
        let row = table.lines().nth(1).unwrap_or_default();
        assert!(row.ends_with("  a long first pr…"), "{row:?}");
    }

    #[test]
    fn ls_of_nothing_is_just_the_header() {
        assert_eq!(
            chat_table(&[], crate::format::IdForm::Whole, None),
            "SESSION  ORIGIN     FLAGS   CTX  TITLE\n"
        );
    }

    #[test]
    fn depths_follow_the_daemons_level() {
        let rows = [
            chat("a", "A", Origin::Human, None),
            under(chat("b", "B", Origin::Spawned, None), "a", 1),
            under(chat("c", "C", Origin::Spawned, None), "b", 2),
            // The level wins over what treeParent would say.
            under(chat("d", "D", Origin::Spawned, None), "a", 2),
            chat("e", "E", Origin::Human, None),
        ];
        assert_eq!(tree_depths(&rows), [0, 1, 2, 2, 0]);
    }

    #[test]
    fn depths_stay_sane_when_levels_do_not() {
        let rows = [
            // A first row cannot be nested under anything.
            under(chat("a", "A", Origin::Spawned, None), "gone", 3),
            // Never more than one level below the row above.
            under(chat("b", "B", Origin::Spawned, None), "a", 5),
            // Level 0 but drawn under an earlier row: a daemon that left level out.
            under(chat("c", "C", Origin::Spawned, None), "b", 0),
            // Level 0 and a parent that is not listed: a root.
            under(chat("d", "D", Origin::Spawned, None), "elsewhere", 0),
            chat("e", "E", Origin::Human, None),
        ];
        assert_eq!(tree_depths(&rows), [0, 1, 2, 0, 0]);
    }

    #[test]
    fn context_use_is_rounded_and_blank_when_unknown() {
        let mut c = chat("s", "S", Origin::Human, None);
        assert_eq!(context_percent(&c), None);
        c.usage = usage(41_873, 200_000);
        assert_eq!(context_percent(&c), Some(21));
        c.usage = usage(u64::MAX, 1);
        assert_eq!(context_percent(&c), None);
        c.usage = usage(10, 0);
        assert_eq!(context_percent(&c), None);
        assert_eq!(context_cell(&c), "");
        c.usage = usage(0, 200_000);
        assert_eq!(context_cell(&c), "0%");
        c.usage = usage(120, 200_000);
        assert_eq!(context_cell(&c), "<1%");
        c.usage = usage(199_999, 200_000);
        assert_eq!(context_cell(&c), "100%");
    }

    #[test]
    fn projects_show_the_root_by_name() {
        let table = project_table(&[
            ProjectInfo {
                slug: String::new(),
                path: "/data/root".into(),
                created_at: None,
                ..Default::default()
            },
            ProjectInfo {
                slug: "web".into(),
                path: "/src/web".into(),
                created_at: None,
                ..Default::default()
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
            spares: Vec::new(),
            clients: 2,
            agent_clients: 3,
            low_disk: vec![],
        };
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-29T10:05:00Z")
            .unwrap_or_default()
            .with_timezone(&chrono::Utc);
        assert_eq!(
            daemon_status_at(&status, &now),
            "\
paddockd 0.1.0 (protocol 1), pid 4242, up 1h 02m
socket   /run/paddock.sock
data     /data
clients  2 (and 3 agents' tool bridges)
claude   1 of 4 processes live, 0 turns queued
running  1 turn
  web  s1  since 10:00
"
        );
    }
}
