use paddock_proto::Origin;

use super::*;

fn project(slug: &str) -> ProjectInfo {
    ProjectInfo {
        slug: slug.into(),
        path: format!("/src/{slug}"),
        created_at: None,
        ..Default::default()
    }
}

fn chat(project: &str, id: &str, origin: Origin) -> ChatSummary {
    ChatSummary {
        session_id: id.into(),
        project_slug: project.into(),
        title: format!("Title {id}"),
        origin,
        ..ChatSummary::default()
    }
}

fn under(mut c: ChatSummary, parent: &str, level: u32) -> ChatSummary {
    c.tree_parent = Some(parent.into());
    c.level = level;
    c.depth = level;
    c
}

/// Root workspace: a → (a1 → a11, a2), b; project "web": w. Project "empty" has none.
fn state() -> TreeState {
    let mut s = TreeState::new();
    s.set_projects(vec![project(""), project("web"), project("empty")]);
    s.set_all_chats(vec![
        chat("", "a", Origin::Human),
        under(chat("", "a1", Origin::Spawned), "a", 1),
        under(chat("", "a11", Origin::Spawned), "a1", 2),
        under(chat("", "a2", Origin::Spawned), "a", 1),
        chat("", "b", Origin::Scheduled),
        chat("web", "w", Origin::Human),
    ]);
    s
}

fn names(s: &TreeState) -> Vec<String> {
    s.rows()
        .iter()
        .map(|r| match r.kind {
            RowKind::Host(h) => format!("@{}{}", h.name, if r.dim { " dim" } else { "" }),
            RowKind::Project(p) => format!("[{}]", p.slug),
            RowKind::Chat { chat, .. } => {
                format!("{}{}", "  ".repeat(r.level), chat.session_id)
            }
            RowKind::Empty { slug } => format!("({slug} empty)"),
            RowKind::Archived { slug, count, .. } => match count {
                Some(n) => format!("<{slug} archived {n}>"),
                None => format!("<{slug} archived>"),
            },
        })
        .collect()
}

fn id(session: &str) -> RowId {
    RowId::Chat {
        project: String::new(),
        session_id: session.into(),
    }
}

fn cursor_on(s: &TreeState) -> String {
    match s.cursor_id() {
        Some(RowId::Chat { session_id, .. }) => session_id.clone(),
        Some(RowId::Host(root)) => format!("@{root}"),
        Some(RowId::Project(slug)) => format!("[{slug}]"),
        Some(RowId::Empty(slug)) => format!("({slug} empty)"),
        Some(RowId::Archived(slug)) => format!("<{slug} archived>"),
        None => "none".into(),
    }
}

#[test]
fn rows_nest_chats_under_projects() {
    let s = state();
    assert_eq!(
        names(&s),
        [
            "[]",
            "a",
            "  a1",
            "    a11",
            "  a2",
            "b",
            "< archived>",
            "[web]",
            "w",
            "<web archived>",
            "[empty]",
            "(empty empty)",
            "<empty archived>"
        ]
    );
    let rows = s.rows();
    assert!(rows[1].has_children && !rows[2].folded && !rows[3].has_children);
    assert_eq!(cursor_on(&s), "[]", "the cursor starts on the first row");
    assert_eq!(s.cursor_project().as_deref(), Some(""));
}

#[test]
fn folding_hides_children_and_h_l_navigate() {
    let mut s = state();
    s.fold(&id("a1"));
    assert_eq!(names(&s)[1..5], ["a", "  a1", "  a2", "b"]);
    let rows = s.rows();
    assert!(rows[2].folded);
    assert_eq!(rows[2].hidden.chats, 1);
    drop(rows);
    s.unfold(&id("a1"));
    assert_eq!(names(&s).len(), 13);

    // h on a leaf moves to its parent; on an open parent folds it; again moves up.
    assert!(s.select(&id("a11")));
    s.fold_or_parent();
    assert_eq!(cursor_on(&s), "a1");
    s.fold_or_parent();
    assert!(s.is_folded(&id("a1")));
    assert_eq!(cursor_on(&s), "a1");
    s.fold_or_parent();
    assert_eq!(cursor_on(&s), "a");
    s.fold_or_parent(); // folds a
    assert_eq!(names(&s)[1..3], ["a", "b"]);
    s.fold_or_parent(); // a root chat's parent is its project
    assert_eq!(cursor_on(&s), "[]");
    // l unfolds a folded row, then goes to its first child.
    assert!(s.select(&id("a")));
    s.unfold_or_child();
    assert!(!s.is_folded(&id("a")));
    s.unfold_or_child();
    assert_eq!(cursor_on(&s), "a1");
    // A fold hiding the cursor moves it up to the folded row.
    assert!(s.select(&id("a11")));
    s.fold(&id("a"));
    assert_eq!(cursor_on(&s), "a");
    // toggle_fold at the cursor; a project folds too.
    assert!(s.toggle_fold());
    assert!(!s.is_folded(&id("a")));
    s.to_top();
    assert!(s.toggle_fold());
    assert_eq!(names(&s)[..2], ["[]", "[web]"]);
    assert_eq!(s.rows()[0].hidden.chats, 5);
    // Leaves do not fold.
    s.fold(&id("b"));
    assert!(!s.is_folded(&id("b")));
}

#[test]
fn the_cursor_stays_on_its_chat_across_reloads() {
    let mut s = state();
    assert!(s.select(&RowId::Chat {
        project: "web".into(),
        session_id: "w".into()
    }));
    let before = s.cursor_index();
    // New chats above it.
    let mut root = s.project_chats("").to_vec();
    root.insert(0, chat("", "new1", Origin::Human));
    root.insert(0, chat("", "new2", Origin::Human));
    s.set_project_chats(String::new(), root);
    assert_eq!(cursor_on(&s), "w");
    assert_eq!(s.cursor_index(), before + 2);
    // Its chat goes away: the row now at its place takes the cursor.
    assert!(s.select(&id("a2")));
    let at = s.cursor_index();
    let root: Vec<_> = s
        .project_chats("")
        .iter()
        .filter(|c| c.session_id != "a2")
        .cloned()
        .collect();
    s.set_project_chats(String::new(), root);
    assert_eq!(s.cursor_index(), at);
    assert_eq!(cursor_on(&s), "b");
    // The last row goes away: the cursor stays on the last row.
    s.to_bottom();
    s.set_projects(vec![project(""), project("web")]);
    assert_eq!(cursor_on(&s), "<web archived>");
}

#[test]
fn rows_do_not_jump_when_the_daemon_reorders() {
    let mut s = state();
    assert!(s.select(&id("b")));
    // b gets a message: the daemon now lists it first.
    let mut list = s.project_chats("").to_vec();
    let b = list.remove(4);
    list.insert(0, b);
    s.set_project_chats(String::new(), list.clone());
    assert_eq!(
        names(&s)[..6],
        ["[]", "a", "  a1", "    a11", "  a2", "b"],
        "b stays where it was"
    );
    assert_eq!(cursor_on(&s), "b");
    // The same through a full load.
    let mut all = list.clone();
    all.push(chat("web", "w", Origin::Human));
    s.set_all_chats(all);
    assert_eq!(names(&s)[5], "b");
    // Children keep their order too.
    let mut list = s.project_chats("").to_vec();
    let a2 = list.remove(4); // [b, a, a1, a11, a2]
    list.insert(2, a2); // a's children now a2, a1
    s.set_project_chats(String::new(), list.clone());
    assert_eq!(names(&s)[1..6], ["a", "  a1", "    a11", "  a2", "b"]);
    // reorder adopts the daemon's order.
    s.reorder();
    assert_eq!(names(&s)[1..6], ["b", "a", "  a2", "  a1", "    a11"]);
    assert_eq!(cursor_on(&s), "b", "the cursor follows its chat");
}

#[test]
fn a_refresh_adopts_the_daemon_order_on_the_next_full_load() {
    let mut s = state();
    let mut all: Vec<ChatSummary> = s.project_chats("").to_vec();
    let b = all.remove(4);
    all.insert(0, b);
    all.push(chat("web", "w", Origin::Human));
    s.set_all_chats(all.clone());
    assert_eq!(names(&s)[5], "b");
    s.reorder_on_next_load();
    s.set_all_chats(all);
    assert_eq!(names(&s)[1], "b");
}

#[test]
fn new_chats_appear_where_the_daemon_puts_them() {
    let mut s = state();
    // The daemon: [n1, b, a, a1, a11, n2(child of a), a2, n3] -- b moved up, new n1 on top,
    // n2 a new child after a1's subtree, n3 a new root after a.
    let list = vec![
        chat("", "n1", Origin::Human),
        chat("", "b", Origin::Scheduled),
        chat("", "a", Origin::Human),
        under(chat("", "a1", Origin::Spawned), "a", 1),
        under(chat("", "a11", Origin::Spawned), "a1", 2),
        under(chat("", "n2", Origin::Spawned), "a", 1),
        under(chat("", "a2", Origin::Spawned), "a", 1),
        chat("", "n3", Origin::Human),
    ];
    s.set_project_chats(String::new(), list);
    assert_eq!(
        names(&s)[..11],
        [
            "[]",
            "n1",
            "a",
            "  a1",
            "    a11",
            "  n2",
            "  a2",
            "n3",
            "b",
            "< archived>",
            "[web]"
        ]
    );
    // A new first child goes to the top of its parent's children.
    let mut list = s.project_chats("").to_vec();
    list.insert(3, under(chat("", "n4", Origin::Spawned), "a", 1));
    s.set_project_chats(String::new(), list);
    assert_eq!(names(&s)[2..5], ["a", "  n4", "  a1"]);
}

#[test]
fn marks_ranges_and_targets() {
    let mut s = state();
    // Nothing marked: the cursor's chat; a project row targets nothing.
    assert!(s.targets(false).is_empty());
    assert!(s.select(&id("a1")));
    assert_eq!(s.targets(false), [(String::new(), "a1".to_owned())]);
    assert_eq!(
        s.targets(true),
        [
            (String::new(), "a1".to_owned()),
            (String::new(), "a11".to_owned())
        ]
    );
    // space marks; a second space unmarks.
    assert!(s.toggle_mark());
    assert!(s.select(&RowId::Chat {
        project: "web".into(),
        session_id: "w".into()
    }));
    assert!(s.toggle_mark());
    assert_eq!(s.marked_count(), 2);
    assert_eq!(
        s.targets(false),
        [
            (String::new(), "a1".to_owned()),
            ("web".to_owned(), "w".to_owned())
        ]
    );
    assert!(s.toggle_mark());
    assert_eq!(s.marked_count(), 1);
    s.clear_marks();
    // v from a11 to b marks the chats in between (and shows them marked while open).
    assert!(s.select(&id("a11")));
    s.toggle_range();
    assert!(s.range_open());
    s.move_by(2);
    let marked: Vec<_> = s
        .rows()
        .iter()
        .filter(|r| r.marked)
        .filter_map(|r| r.chat().map(|c| c.session_id.clone()))
        .collect();
    assert_eq!(marked, ["a11", "a2", "b"]);
    assert_eq!(s.targets(false).len(), 3, "an open range counts");
    s.toggle_range();
    assert!(!s.range_open());
    assert_eq!(s.marked_count(), 3);
    // A range across a project header skips it.
    s.clear_marks();
    s.toggle_range();
    s.move_by(3); // b → the archived group → [web] → w
    s.toggle_range();
    assert_eq!(
        s.targets(false),
        [
            (String::new(), "b".to_owned()),
            ("web".to_owned(), "w".to_owned())
        ]
    );
    // Right after space, v marks from that row to the cursor at once.
    s.clear_marks();
    assert!(s.select(&id("a1")));
    s.toggle_mark();
    s.move_by(3); // a11, a2, b
    s.toggle_range();
    assert!(!s.range_open());
    let marked: Vec<_> = s.targets(false).into_iter().map(|(_, id)| id).collect();
    assert_eq!(marked, ["a1", "a11", "a2", "b"]);
    // With subtrees, a marked parent brings its folded descendants, once each.
    s.clear_marks();
    assert!(s.select(&id("a")));
    s.toggle_mark();
    assert!(s.select(&id("a1")));
    s.toggle_mark();
    s.fold(&id("a"));
    let subtree: Vec<_> = s.targets(true).into_iter().map(|(_, id)| id).collect();
    assert_eq!(subtree, ["a", "a1", "a11", "a2"]);
    // Marks of chats that went away are forgotten.
    s.set_project_chats(String::new(), vec![chat("", "b", Origin::Scheduled)]);
    assert_eq!(s.marked_count(), 0);
    s.clear_marks();
    assert!(!s.range_open());
}

#[test]
fn the_filter_keeps_ancestors_for_context() {
    let mut s = state();
    s.fold(&id("a"));
    s.set_filter(Some("TITLE A11".into()));
    assert_eq!(
        names(&s),
        ["[]", "a", "  a1", "    a11"],
        "folds are ignored"
    );
    let rows = s.rows();
    assert!(rows[1].context && rows[2].context && !rows[3].context);
    assert!(!rows[1].folded);
    drop(rows);
    assert!(s.filtering());
    s.set_filter(Some("  ".into()));
    assert!(!s.filtering(), "a blank filter is no filter");
    s.set_filter(Some("nothing like it".into()));
    assert!(s.rows().is_empty());
    assert_eq!(s.cursor_id(), None);
    s.set_filter(None);
    assert_eq!(names(&s).len(), 10, "a is still folded");
}

#[test]
fn unattended_only_leaves_human_and_adopted_out() {
    let mut s = TreeState::new();
    s.set_projects(vec![project("")]);
    s.set_all_chats(vec![
        chat("", "h", Origin::Human),
        under(chat("", "sp", Origin::Spawned), "h", 1),
        chat("", "ad", Origin::Adopted),
        chat("", "sc", Origin::Scheduled),
        chat("", "hk", Origin::Hook),
    ]);
    s.set_unattended_only(true);
    assert!(s.unattended_only());
    assert_eq!(names(&s), ["[]", "h", "  sp", "sc", "hk"]);
    assert!(s.rows()[1].context, "the human parent is context");
    assert!(!is_unattended(Origin::Adopted));
    s.set_unattended_only(false);
    assert_eq!(names(&s).len(), 7);
}

#[test]
fn next_attention_wraps_and_unfolds() {
    let mut s = state();
    let mut list = s.project_chats("").to_vec();
    list[2].unread = true; // a11
    s.set_project_chats(String::new(), list);
    let mut web = s.project_chats("web").to_vec();
    web[0].unread = true;
    s.set_project_chats("web".into(), web);
    assert_eq!(s.unread_count(), 2);
    s.fold(&id("a"));
    assert!(s.next_attention());
    assert_eq!(cursor_on(&s), "a11");
    assert!(!s.is_folded(&id("a")), "unfolded to show it");
    assert!(s.next_attention());
    assert_eq!(cursor_on(&s), "w");
    assert!(s.next_attention(), "wraps around");
    assert_eq!(cursor_on(&s), "a11");
    // The only unread chat, under the cursor: nowhere to go.
    let mut web = s.project_chats("web").to_vec();
    web[0].unread = false;
    s.set_project_chats("web".into(), web);
    assert!(!s.next_attention());
}

#[test]
fn moving_active_and_scrolling() {
    let mut s = state();
    s.move_by(-3);
    assert_eq!(s.cursor_index(), 0, "stops at the top");
    s.move_by(3);
    assert_eq!(cursor_on(&s), "a11");
    s.to_bottom();
    assert_eq!(cursor_on(&s), "<empty archived>");
    assert_eq!(s.cursor_project().as_deref(), Some("empty"));
    assert!(s.cursor_chat().is_none());
    s.move_by(5);
    assert_eq!(s.cursor_index(), 12, "stops at the bottom");

    let active = |session: &str, running| Active {
        project_slug: String::new(),
        session_id: session.into(),
        job_id: "j".into(),
        running,
    };
    assert!(s.apply_active(&active("b", true)));
    assert_eq!(s.running_count(), 1);
    assert!(!s.apply_active(&active("zz", true)));
    assert!(s.knows_project(""));

    s.scroll_into_view(4);
    assert_eq!(s.offset(), 9);
    s.move_by(-2);
    s.scroll_into_view(4);
    assert_eq!(s.offset(), 9, "no scrolling while the cursor is visible");
    s.to_top();
    s.scroll_into_view(4);
    assert_eq!(s.offset(), 0);
    assert_eq!(s.view_offset(4, 10), 0);
}

#[test]
fn the_root_workspace_slug_is_a_real_key() {
    let mut s = TreeState::new();
    s.set_projects(vec![project("")]);
    assert_eq!(names(&s), ["[]", "( empty)", "< archived>"]);
    s.set_project_chats(String::new(), vec![chat("", "x", Origin::Human)]);
    assert_eq!(names(&s), ["[]", "x", "< archived>"]);
    assert!(s.select(&id("x")));
    assert_eq!(s.cursor_project().as_deref(), Some(""));
    assert_eq!(s.cursor_chat().map(|c| c.session_id.as_str()), Some("x"));
}

// ----- archived chats ---------------------------------------------------------------

/// The root workspace's archived chats as the daemon lists them: y (starred), x → x1.
fn archived_list() -> Vec<ChatSummary> {
    let mut y = chat("", "y", Origin::Human);
    y.starred = true;
    let list = vec![
        y,
        chat("", "x", Origin::Human),
        under(chat("", "x1", Origin::Spawned), "x", 1),
    ];
    list.into_iter()
        .map(|mut c| {
            c.archived = true;
            c
        })
        .collect()
}

fn group(slug: &str) -> RowId {
    RowId::Archived(slug.into())
}

#[test]
fn the_archived_group_is_read_when_opened_and_nests_its_chats() {
    let mut s = state();
    assert!(s.select(&group("")));
    assert!(s.is_folded(&group("")));
    assert!(s.take_archive_requests().is_empty());
    assert!(!s.follows_archive(""));
    // l opens it: its chats are asked for, once, and it says so until they come.
    s.unfold_or_child();
    assert_eq!(s.take_archive_requests(), [""]);
    assert!(s.take_archive_requests().is_empty(), "asked once");
    assert!(matches!(
        s.rows()[6].kind,
        RowKind::Archived {
            loading: true,
            count: None,
            ..
        }
    ));
    s.set_archived_chats(String::new(), Ok(archived_list()));
    assert_eq!(
        names(&s)[5..11],
        ["b", "< archived 3>", "  y", "  x", "    x1", "[web]"]
    );
    let rows = s.rows();
    assert!(rows[7].archived && rows[8].has_children && !rows[5].archived);
    drop(rows);
    assert!(s.follows_archive(""));
    assert_eq!(s.open_archives(), [""]);
    assert_eq!(s.followed_archives(), [""]);
    // h on a root archived chat goes to the group; h there folds it, its count kept.
    assert!(s.select(&id("y")));
    s.fold_or_parent();
    assert_eq!(cursor_on(&s), "< archived>");
    s.fold_or_parent();
    assert_eq!(names(&s)[5..8], ["b", "< archived 3>", "[web]"]);
    assert!(s.follows_archive(""), "a count shown is kept current");
    assert!(s.open_archives().is_empty());
    assert!(s.take_archive_requests().is_empty(), "folding asks nothing");
    // Going to an archived chat opens its group.
    assert!(s.select(&id("x1")));
    assert_eq!(cursor_on(&s), "x1");
    assert_eq!(s.chat("", "x1").map(|c| c.archived), Some(true));
    // Marks, ranges and subtrees reach archived chats, after the active ones.
    s.toggle_mark();
    assert!(s.select(&id("b")));
    s.toggle_mark();
    assert_eq!(
        s.targets(false),
        [
            (String::new(), "b".to_owned()),
            (String::new(), "x1".to_owned())
        ]
    );
    s.clear_marks();
    assert!(s.select(&id("x")));
    assert_eq!(
        s.targets(true),
        [
            (String::new(), "x".to_owned()),
            (String::new(), "x1".to_owned())
        ]
    );
    // x unarchived: listed active before the archived list is read again, it shows once,
    // among the active chats, and the cursor goes with it.
    let mut list = s.project_chats("").to_vec();
    list.push(chat("", "x", Origin::Human));
    s.set_project_chats(String::new(), list);
    assert_eq!(cursor_on(&s), "x");
    assert!(s.cursor_row().is_some_and(|r| !r.archived));
    let shown = names(&s);
    assert_eq!(
        shown.iter().filter(|n| n.trim() == "x").count(),
        1,
        "{shown:?}"
    );
    assert!(shown.contains(&"< archived 2>".to_owned()), "{shown:?}");
    // A running archived chat is marked in place (no reload asked).
    assert!(s.apply_active(&Active {
        project_slug: String::new(),
        session_id: "x1".into(),
        job_id: "j".into(),
        running: true,
    }));
    assert_eq!(s.chat("", "x1").map(|c| c.running), Some(true));
    // A failed read is said on the group; the list held stays.
    s.set_archived_chats(String::new(), Err("the daemon is busy".into()));
    assert!(s.rows().iter().any(|r| matches!(
        r.kind,
        RowKind::Archived {
            error: Some("the daemon is busy"),
            count: Some(2),
            ..
        }
    )));
}

#[test]
fn filters_and_the_flat_list_reach_into_an_open_archived_group() {
    let mut s = state();
    s.open_archive("");
    s.set_archived_chats(String::new(), Ok(archived_list()));
    // A match in the archive only: the project shows, with the group and the match's
    // ancestor as context; groups with no match are left out.
    s.set_filter(Some("title x1".into()));
    assert_eq!(names(&s), ["[]", "< archived 3>", "  x", "    x1"]);
    // A closed group is not searched.
    s.close_archive("");
    assert!(s.rows().is_empty());
    s.set_filter(None);
    s.open_archive("");
    s.set_flat(true);
    assert_eq!(
        names(&s)[..10],
        [
            "[]",
            "a",
            "a1",
            "a11",
            "a2",
            "b",
            "< archived 3>",
            "  y",
            "  x",
            "  x1"
        ]
    );
    // Remembered open: the group is read again once connected; a project gone is
    // forgotten.
    let mut s = state();
    s.restore_open_archives(vec!["web".into(), "gone".into()]);
    s.set_projects(vec![project(""), project("web"), project("empty")]);
    assert!(s.archive_is_open("web"));
    assert_eq!(s.followed_archives(), ["web"]);
    assert!(s.rows().iter().any(|r| matches!(
        r.kind,
        RowKind::Archived {
            slug: "web",
            loading: true,
            ..
        }
    )));
}

// ----- deltas -----------------------------------------------------------------------

/// The root workspace's daemon list: a → (a1 → a11, a2), b.
fn root_list() -> Vec<ChatSummary> {
    vec![
        chat("", "a", Origin::Human),
        under(chat("", "a1", Origin::Spawned), "a", 1),
        under(chat("", "a11", Origin::Spawned), "a1", 2),
        under(chat("", "a2", Origin::Spawned), "a", 1),
        chat("", "b", Origin::Scheduled),
    ]
}

fn full(chats: Vec<ChatSummary>, revision: u64) -> Listing {
    Listing {
        chats,
        revision: Some(revision),
        ..Listing::default()
    }
}

fn delta(rows: Vec<(ChatSummary, Option<&str>)>, removed: &[&str], revision: u64) -> Listing {
    let (chats, after) = rows
        .into_iter()
        .map(|(c, a)| (c, a.map(str::to_owned)))
        .unzip();
    Listing {
        chats,
        revision: Some(revision),
        delta: true,
        removed: removed.iter().map(|r| (*r).to_owned()).collect(),
        after,
    }
}

/// The state with the root workspace's list taken from a full answer at revision 10.
fn listed() -> TreeState {
    let mut s = state();
    assert_eq!(
        s.project_revision(""),
        None,
        "the full list of all is another listing"
    );
    assert!(s.set_project_listing(String::new(), full(root_list(), 10), None));
    assert_eq!(s.project_revision(""), Some(10));
    s
}

fn daemon_order(s: &TreeState) -> Vec<&str> {
    s.project_chats("")
        .iter()
        .map(|c| c.session_id.as_str())
        .collect()
}

#[test]
fn a_delta_updates_the_rows_and_keeps_the_order_on_screen() {
    let mut s = listed();
    let before = names(&s);
    // b got a new message: the daemon lists it first now, a after it.
    let mut b = chat("", "b", Origin::Scheduled);
    b.title = "B, renamed".into();
    let d = delta(
        vec![(b, None), (chat("", "a", Origin::Human), Some("b"))],
        &[],
        11,
    );
    assert!(s.set_project_listing(String::new(), d, Some(10)));
    assert_eq!(s.project_revision(""), Some(11));
    assert_eq!(daemon_order(&s), ["b", "a", "a1", "a11", "a2"]);
    assert_eq!(names(&s), before, "rows do not jump while you read");
    assert_eq!(
        s.chat("", "b").map(|c| c.title.as_str()),
        Some("B, renamed")
    );
    // `g` adopts the daemon's order, as after a full list.
    s.reorder();
    assert_eq!(
        names(&s),
        [
            "[]",
            "b",
            "a",
            "  a1",
            "    a11",
            "  a2",
            "< archived>",
            "[web]",
            "w",
            "<web archived>",
            "[empty]",
            "(empty empty)",
            "<empty archived>"
        ]
    );
}

#[test]
fn a_delta_brings_new_chats_and_drops_removed_ones() {
    let mut s = listed();
    // a2 archived away (b now follows a11); a new chat n at the top.
    let d = delta(
        vec![
            (chat("", "n", Origin::Human), None),
            (chat("", "a", Origin::Human), Some("n")),
            (chat("", "b", Origin::Scheduled), Some("a11")),
        ],
        &["a2"],
        12,
    );
    assert!(s.set_project_listing(String::new(), d, Some(10)));
    assert_eq!(daemon_order(&s), ["n", "a", "a1", "a11", "b"]);
    assert_eq!(
        names(&s),
        [
            "[]",
            "n",
            "a",
            "  a1",
            "    a11",
            "b",
            "< archived>",
            "[web]",
            "w",
            "<web archived>",
            "[empty]",
            "(empty empty)",
            "<empty archived>"
        ]
    );
    // a1's new children come in a later delta too.
    let d = delta(
        vec![
            (
                under(chat("", "a12", Origin::Spawned), "a1", 2),
                Some("a11"),
            ),
            (chat("", "b", Origin::Scheduled), Some("a12")),
        ],
        &[],
        13,
    );
    assert!(s.set_project_listing(String::new(), d, Some(12)));
    assert_eq!(daemon_order(&s), ["n", "a", "a1", "a11", "a12", "b"]);
    assert!(names(&s).contains(&"    a12".to_owned()));
}

#[test]
fn a_delta_that_does_not_fit_is_refused_and_the_next_list_is_full() {
    let mut s = listed();
    let before = names(&s);
    // Asked since a revision that is not the one held.
    let d = delta(vec![(chat("", "n", Origin::Human), None)], &[], 12);
    assert!(!s.set_project_listing(String::new(), d.clone(), Some(9)));
    assert_eq!(s.project_revision(""), None);
    assert_eq!(names(&s), before);
    // Nothing held to apply it to.
    assert!(!s.set_project_listing(String::new(), d, Some(10)));
    // A delta that does not chain: a11 is removed, and a2, listed after it, is not in
    // the delta: nothing says where it goes.
    let mut s = listed();
    let broken = delta(vec![], &["a11"], 11);
    assert!(!s.set_project_listing(String::new(), broken, Some(10)));
    assert_eq!(s.project_revision(""), None);
    assert_eq!(daemon_order(&s), ["a", "a1", "a11", "a2", "b"]);
    // The full list after it is taken.
    assert!(s.set_project_listing(String::new(), full(root_list(), 14), None));
    assert_eq!(s.project_revision(""), Some(14));
}

#[test]
fn a_list_of_every_project_forgets_the_revisions() {
    let mut s = listed();
    s.set_all_chats(root_list());
    assert_eq!(s.project_revision(""), None);
    let mut s = listed();
    s.set_project_chats(String::new(), root_list());
    assert_eq!(s.project_revision(""), None);
}

#[test]
fn a_full_answer_without_a_revision_leaves_none() {
    let mut s = listed();
    let old_daemon = Listing {
        chats: root_list(),
        ..Listing::default()
    };
    assert!(s.set_project_listing(String::new(), old_daemon, Some(10)));
    assert_eq!(s.project_revision(""), None);
}

/// `n` goes to what waits for you, most urgent first, before what is merely unread; a fold
/// counts what it hides; the header's count is of chats that wait for you.
#[test]
fn next_attention_goes_by_urgency_and_folds_roll_up_what_they_hide() {
    let mut s = state();
    let mut list = s.project_chats("").to_vec();
    // a: unread; a1: parked; a11: failed; a2: running, asking; b: cut short.
    list[0].unread = true;
    list[1].parked = Some("limit".into());
    list[2].failed = true;
    list[3].running = true;
    list[3].waiting_approval = true;
    list[4].interrupted = true;
    s.set_project_chats(String::new(), list);
    assert_eq!(s.waiting_count(), 4, "unread is not waiting");
    let mut visited = Vec::new();
    for _ in 0..5 {
        assert!(s.next_attention());
        let on = cursor_on(&s);
        // Each need answered in turn, as a person would.
        let mut list = s.project_chats("").to_vec();
        for c in list.iter_mut().filter(|c| c.session_id == on) {
            (c.waiting_approval, c.failed, c.interrupted, c.parked) = (false, false, false, None);
            c.unread = false;
        }
        s.set_project_chats(String::new(), list);
        visited.push(on);
    }
    assert_eq!(visited, ["a2", "a11", "b", "a1", "a"]);
    assert_eq!(s.waiting_count(), 0);

    // Folded, a parent counts what it hides.
    let mut list = s.project_chats("").to_vec();
    list[2].failed = true;
    list[3].waiting_approval = true;
    list[3].unread = true;
    s.set_project_chats(String::new(), list);
    s.fold(&id("a"));
    let h = s
        .rows()
        .into_iter()
        .find(|r| r.chat().is_some_and(|c| c.session_id == "a"))
        .map(|r| r.hidden)
        .unwrap_or_default();
    assert_eq!(
        (h.chats, h.waiting, h.failed, h.running, h.unread),
        (3, 1, 1, 1, 1)
    );
}

#[test]
fn the_cursor_steps_over_a_no_chats_row() {
    let mut s = state();
    s.to_bottom();
    s.move_by(-1);
    assert_eq!(
        cursor_on(&s),
        "[empty]",
        "k from the group skips the no chats row"
    );
    s.move_by(1);
    assert_eq!(
        cursor_on(&s),
        "<empty archived>",
        "j from the header skips it too"
    );

    // A project whose last chat goes away: the cursor does not land on its "no chats" row.
    let mut s = TreeState::new();
    s.set_projects(vec![project("")]);
    s.set_project_chats(String::new(), vec![chat("", "x", Origin::Human)]);
    assert!(s.select(&id("x")));
    s.set_project_chats(String::new(), vec![]);
    assert_eq!(names(&s), ["[]", "( empty)", "< archived>"]);
    assert_ne!(cursor_on(&s), "( empty)");

    // A project with nothing but its header, no-chats row and group: j and k stay off it.
    s.to_top();
    s.move_by(1);
    assert_eq!(cursor_on(&s), "< archived>");
    s.move_by(-1);
    assert_eq!(cursor_on(&s), "[]");
}

#[test]
fn from_an_unread_chat_n_goes_first_to_what_waits_for_you() {
    let mut s = state();
    let mut list = s.project_chats("").to_vec();
    // a and b unread; a2 asks for an answer.
    list[0].unread = true;
    list[4].unread = true;
    s.set_project_chats(String::new(), list.clone());
    assert!(s.select(&id("a")));
    list[3].running = true;
    list[3].waiting_approval = true;
    s.set_project_chats(String::new(), list);
    assert!(s.next_attention());
    assert_eq!(
        cursor_on(&s),
        "a2",
        "the answer waits before the next unread"
    );
    assert!(s.next_attention());
    assert_eq!(cursor_on(&s), "a", "then the unread ones, in screen order");
    assert!(s.next_attention());
    assert_eq!(cursor_on(&s), "b");
}

#[test]
fn n_goes_on_through_needs_left_unanswered_and_turns_to_one_asked_meanwhile() {
    let mut s = state();
    let mut list = s.project_chats("").to_vec();
    // a: unread; a11: failed; a2: asks for an answer; b: unread.
    list[0].unread = true;
    list[2].failed = true;
    list[3].running = true;
    list[3].waiting_approval = true;
    list[4].unread = true;
    s.set_project_chats(String::new(), list.clone());
    let mut visited = Vec::new();
    for _ in 0..5 {
        assert!(s.next_attention());
        visited.push(cursor_on(&s));
    }
    assert_eq!(visited, ["a2", "a11", "a", "b", "a2"], "nothing answered");

    // On an unread chat that n put the cursor on, an answer asked for meanwhile comes first.
    list[3].waiting_approval = false;
    s.set_project_chats(String::new(), list.clone());
    assert!(s.next_attention());
    assert!(s.next_attention());
    assert_eq!(cursor_on(&s), "a");
    list[3].waiting_approval = true;
    s.set_project_chats(String::new(), list);
    assert!(s.next_attention());
    assert_eq!(cursor_on(&s), "a2");
}

#[test]
fn hosts_head_their_projects_and_a_host_that_is_down_keeps_its_rows_dimmed() {
    use super::{HostHead, HostState};
    let mut s = TreeState::new();
    s.set_projects(vec![project("a:"), project("b:web")]);
    s.set_all_chats(vec![
        chat("a:", "c1", Origin::Human),
        chat("b:web", "c2", Origin::Human),
    ]);
    let up = |name: &str| HostHead::new(name, HostState::Up);
    s.set_hosts(vec![up("a"), up("b")]);
    assert_eq!(
        names(&s),
        [
            "@a",
            "[a:]",
            "c1",
            "<a: archived>",
            "@b",
            "[b:web]",
            "c2",
            "<b:web archived>"
        ]
    );
    let down = HostHead::new(
        "b",
        HostState::Down {
            reason: "gone".into(),
            last_seen: None,
        },
    );
    s.set_hosts(vec![up("a"), down]);
    let rows = s.rows();
    let dimmed: Vec<bool> = rows.iter().map(|r| r.dim).collect();
    assert_eq!(dimmed, [false, false, false, false, true, true, true, true]);
    // What the tree holds of the host that is down, to keep when only the others answer.
    let (projects, chats) = s.held_of(&["b".to_owned()]);
    assert_eq!(projects.len(), 1);
    assert_eq!(chats[0].session_id, "c2");
}
