//! The TUI's screens as `insta` snapshots on ratatui's `TestBackend` (80x24 and 40x24): the
//! tree pane (a fan-out, every origin badge, running / unread / star / usage, folds, marks,
//! filters, scrolling, the plain ASCII + `NO_COLOR` theme) and the connection screens; and how
//! the state answers keys and daemon news.

use paddock_proto::{Active, ChatSummary, HelloReply, Origin};
use paddock_tui::tui::app::{Action, App, Connection};
use paddock_tui::tui::theme::Theme;
use paddock_tui::tui::tree::RowId;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier};

mod fixtures;
use fixtures::tree::*;

#[test]
fn tree_80x24() -> TestResult {
    let mut app = canned();
    on_logs(&mut app)?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn tree_40x24() -> TestResult {
    let mut app = canned();
    on_logs(&mut app)?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn tree_plain_80x24() -> TestResult {
    let mut app = canned_with(Theme::plain());
    on_logs(&mut app)?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn tree_plain_40x24() -> TestResult {
    let mut app = canned_with(Theme::plain());
    on_logs(&mut app)?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

/// `s-logs` folded (its running child behind it), and the `web` project folded.
fn folded() -> Result<App, Box<dyn std::error::Error>> {
    let mut app = canned();
    on_logs(&mut app)?;
    press(&mut app, "h");
    app.tree.fold(&RowId::Project("web".into()));
    Ok(app)
}

#[test]
fn folded_80x24() -> TestResult {
    let mut app = folded()?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn folded_40x24() -> TestResult {
    let mut app = folded()?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

/// `space` then `v` three rows down marks four chats; then an open `v` range of two chats
/// across a project header.
fn marked() -> Result<App, Box<dyn std::error::Error>> {
    let mut app = canned();
    on_logs(&mut app)?;
    press(&mut app, " jjjv");
    press(&mut app, "jjv");
    press(&mut app, "jj");
    Ok(app)
}

#[test]
fn marked_80x24() -> TestResult {
    let mut app = marked()?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn marked_40x24() -> TestResult {
    let mut app = marked()?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

/// A filter matching two nested chats and a root: the nested ones come with their ancestors;
/// `web` has no match and is left out.
fn filtered() -> App {
    let mut app = canned();
    app.tree.set_filter(Some("TE".into()));
    app
}

#[test]
fn filter_80x24() -> TestResult {
    let mut app = filtered();
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn filter_40x24() -> TestResult {
    let mut app = filtered();
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn unattended_only_80x24() -> TestResult {
    let mut app = canned();
    press(&mut app, "U");
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn no_match_40x24() -> TestResult {
    let mut app = canned();
    app.tree.set_filter(Some("nothing like it".into()));
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

/// Forty chats: the cursor at the bottom scrolls the list.
fn many() -> App {
    let mut app = connected(Theme::default());
    app.set_projects(vec![project("", "/root"), project("big", "/src/big")]);
    let chats = (1..=40)
        .map(|n| {
            chat(
                "big",
                &format!("s-{n}"),
                &format!("Chat number {n}"),
                Origin::Human,
            )
        })
        .collect();
    app.set_all_chats(chats);
    app.set_project_chats(String::new(), Vec::new());
    press(&mut app, "G");
    app
}

#[test]
fn scrolled_80x24() -> TestResult {
    let mut app = many();
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn scrolled_back_up_40x24() -> TestResult {
    let mut app = many();
    screen(&mut app, 40, 24)?;
    // Up to the row just above the screen: the list scrolls by one.
    for _ in 0..22 {
        app.on_key(key(KeyCode::Up));
    }
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn unreachable_80x24() -> TestResult {
    let mut app = App::with_theme(Theme::default());
    app.set_unreachable(
        "paddockd exited at startup (exit status: 1); its log is /home/me/.local/state/paddock/paddockd.log; run `paddock daemon start --foreground` to see the error in this terminal".into(),
    );
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn unreachable_40x24() -> TestResult {
    let mut app = App::with_theme(Theme::default());
    app.set_unreachable("paddockd is not running on /run/user/1000/paddock/paddockd.sock".into());
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn unreachable_plain_40x24() -> TestResult {
    let mut app = App::with_theme(Theme::plain());
    app.set_unreachable("paddockd is not running on /run/user/1000/paddock/paddockd.sock".into());
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn stopped_on_purpose_80x24() -> TestResult {
    let mut app = App::with_theme(Theme::default());
    app.set_stopped("paddockd was stopped (paddock daemon stop)".into());
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    // R (and r) ask for a daemon again; so does Ctrl-L.
    assert_eq!(
        app.on_key(KeyEvent::new(KeyCode::Char('R'), KeyModifiers::SHIFT)),
        Some(Action::Refresh)
    );
    Ok(())
}

#[test]
fn stopped_on_purpose_40x24() -> TestResult {
    let mut app = App::with_theme(Theme::default());
    app.set_stopped("paddockd was stopped (paddock daemon stop)".into());
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn connecting_80x24() -> TestResult {
    let mut app = App::with_theme(Theme::default());
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn the_plain_theme_draws_ascii_without_color() -> TestResult {
    for mut app in [canned_with(Theme::plain()), {
        let mut app = App::with_theme(Theme::plain());
        app.set_unreachable("gone".into());
        app
    }] {
        press(&mut app, "j v j");
        for width in [80, 40] {
            let backend = screen(&mut app, width, 24)?;
            for cell in backend.buffer().content() {
                assert!(cell.symbol().is_ascii(), "not ASCII: {:?}", cell.symbol());
                assert_eq!(cell.fg, Color::Reset, "a foreground color");
                assert_eq!(cell.bg, Color::Reset, "a background color");
            }
        }
    }
    Ok(())
}

#[test]
fn the_cursor_row_is_highlighted_and_unread_titles_are_bold() -> TestResult {
    let mut app = canned();
    on_logs(&mut app)?;
    let backend = screen(&mut app, 80, 24)?;
    let buffer = backend.buffer();
    // Row 3 is the cursor's ("Investigate CI logs"), reversed across the tree pane.
    for x in 0..28 {
        assert!(buffer[(x, 3)].modifier.contains(Modifier::REVERSED));
    }
    // Row 7 is "Triage new issues", unread: its title is bold.
    let title_x = (0..80u16)
        .find(|&x| buffer[(x, 7)].symbol() == "T")
        .ok_or("no title on row 7")?;
    assert!(buffer[(title_x, 7)].modifier.contains(Modifier::BOLD));
    Ok(())
}

#[test]
fn keys_move_fold_mark_and_quit() {
    let mut app = canned();
    let rows = app.tree.rows().len();
    assert_eq!(app.on_key(key(KeyCode::Char('j'))), None);
    assert_eq!(app.on_key(key(KeyCode::Down)), None);
    assert_eq!(app.tree.cursor_index(), 2);
    assert_eq!(cursor_session(&app).as_deref(), Some("s-logs"));
    assert_eq!(app.on_key(key(KeyCode::Char('k'))), None);
    assert_eq!(app.on_key(key(KeyCode::Up)), None);
    assert_eq!(app.on_key(key(KeyCode::Up)), None);
    assert_eq!(app.tree.cursor_index(), 0, "stops at the top");
    app.on_key(KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT));
    assert_eq!(app.tree.cursor_index(), rows - 1);
    app.on_key(key(KeyCode::Char('j')));
    assert_eq!(app.tree.cursor_index(), rows - 1, "stops at the bottom");
    app.on_key(key(KeyCode::Char('g')));
    assert_eq!(app.tree.cursor_index(), 0);

    // h folds, h again goes to the parent, l unfolds.
    press(&mut app, "jj");
    press(&mut app, "h");
    assert!(app.tree.is_folded(&chat_id("", "s-logs")));
    press(&mut app, "h");
    assert_eq!(cursor_session(&app).as_deref(), Some("s-manager"));
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Right));
    assert!(!app.tree.is_folded(&chat_id("", "s-logs")));
    app.on_key(key(KeyCode::Left));
    assert!(app.tree.is_folded(&chat_id("", "s-logs")));

    // space and v mark; Esc clears.
    press(&mut app, " j ");
    assert_eq!(app.tree.marked_count(), 2);
    assert_eq!(app.tree.targets(true).len(), 3, "with s-logs' folded child");
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.tree.marked_count(), 0);
    press(&mut app, "vjv");
    assert_eq!(app.tree.marked_count(), 2);
    app.on_key(key(KeyCode::Esc));

    // n goes to the next unread chat; U shows only unattended chats.
    press(&mut app, "gn");
    assert_eq!(cursor_session(&app).as_deref(), Some("s-logs"));
    press(&mut app, "n");
    assert_eq!(cursor_session(&app).as_deref(), Some("s-hook"));
    app.on_key(KeyEvent::new(KeyCode::Char('U'), KeyModifiers::SHIFT));
    assert!(app.tree.unattended_only());
    assert_eq!(cursor_session(&app).as_deref(), Some("s-hook"));
    press(&mut app, "U");
    assert!(!app.tree.unattended_only());

    assert_eq!(
        app.on_key(key(KeyCode::Char('r'))),
        Some(Action::Update {
            action: paddock_proto::ChatAction::Read,
            session_ids: vec!["s-hook".into()],
        }),
        "r marks the cursor's chat read"
    );
    assert_eq!(
        app.on_key(KeyEvent::new(KeyCode::Char('l'), KeyModifiers::CONTROL)),
        Some(Action::Refresh)
    );
    assert_eq!(app.on_key(key(KeyCode::Char('q'))), Some(Action::Quit));
    assert_eq!(
        app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Some(Action::Quit)
    );
    assert_eq!(app.on_key(key(KeyCode::Esc)), None, "Esc does not quit");
}

#[test]
fn the_cursor_and_the_order_stay_put_across_reloads() {
    let mut app = canned();
    assert!(app.tree.select(&chat_id("web", "s-landing")));
    let at = app.tree.cursor_index();
    // A new root chat arrives above it, and the adopted chat gets a message (the daemon
    // lists it first now).
    let mut root = app.tree.project_chats("").to_vec();
    let adopted = root.remove(6);
    root.insert(0, adopted);
    root.insert(0, chat("", "s-new", "A new chat", Origin::Human));
    app.set_project_chats(String::new(), root);
    assert_eq!(cursor_session(&app).as_deref(), Some("s-landing"));
    assert_eq!(app.tree.cursor_index(), at + 1, "one row more above it");
    let titles: Vec<String> = app
        .tree
        .rows()
        .iter()
        .filter_map(|r| r.chat().map(|c| c.session_id.clone()))
        .take(3)
        .collect();
    assert_eq!(titles, ["s-new", "s-manager", "s-logs"], "s-adopted stays");
    // g adopts the daemon's order.
    press(&mut app, "g");
    let first = app
        .tree
        .rows()
        .get(2)
        .and_then(|r| r.chat())
        .map(|c| c.session_id.clone());
    assert_eq!(first.as_deref(), Some("s-adopted"));
}

#[test]
fn chat_active_updates_in_place_or_asks_for_a_reload() {
    let mut app = canned();
    let active = |session: &str, running| Active {
        project_slug: "web".into(),
        session_id: session.into(),
        job_id: "j".into(),
        running,
    };
    assert_eq!(app.running_count(), 2);
    assert!(app.apply_active(&active("s-landing", true)));
    assert_eq!(app.running_count(), 3);
    assert!(
        !app.apply_active(&active("s-unknown", true)),
        "unknown chats need a reload"
    );
    assert!(app.knows_project(""), "the root workspace is a real key");
    assert!(!app.knows_project("nope"));
    assert_eq!(
        app.connection,
        Connection::Connected(HelloReply {
            protocol_version: 1,
            daemon_version: "0.1.0".into(),
            pid: 4242,
            user: "me".into(),
        })
    );
}

#[test]
fn scrolling_keeps_the_cursor_on_screen() {
    let mut app = canned();
    let rows = app.tree.rows().len();
    app.tree.to_bottom();
    app.scroll_into_view(4);
    assert_eq!(app.tree.offset(), rows - 4);
    app.tree.move_by(-2);
    app.scroll_into_view(4);
    assert_eq!(
        app.tree.offset(),
        rows - 4,
        "no scrolling while the cursor is visible"
    );
    app.tree.to_top();
    app.scroll_into_view(4);
    assert_eq!(app.tree.offset(), 0);
}

#[test]
fn every_size_draws() -> TestResult {
    for theme in [Theme::default(), Theme::plain()] {
        let mut app = canned_with(theme);
        press(&mut app, "jjv");
        for width in [1, 2, 5, 9, 12, 20, 33, 40, 59, 60, 61, 80, 120] {
            for height in [1, 2, 3, 5, 24] {
                screen(&mut app, width, height)?;
            }
        }
    }
    Ok(())
}

/// The whole screen with a chat open: tree and chat side by side at 80 columns, the chat
/// alone (with its composer) at 40; Tab goes back to the tree, which then shows alone.
fn with_open_chat() -> Result<App, Box<dyn std::error::Error>> {
    use paddock_proto::{Attribution, Transcript, TranscriptEntry};
    let mut app = canned();
    on_logs(&mut app)?;
    let action = app.on_key(key(KeyCode::Enter));
    assert!(
        matches!(action, Some(Action::Open { ref session_id, .. }) if session_id == "s-logs"),
        "{action:?}"
    );
    let chat = app.chat.as_mut().ok_or("no chat opened")?;
    chat.hydrate(&Transcript {
        chat: chat_row("s-logs"),
        entries: vec![
            TranscriptEntry::User {
                uuid: Some("u1".into()),
                timestamp: None,
                text: "Find out why CI fails on main.".into(),
                attribution: Some(Attribution::Sent {
                    from_session_id: "s-manager".into(),
                    from_project: String::new(),
                    from_title: Some("Fix the flaky build".into()),
                }),
            },
            TranscriptEntry::Assistant {
                uuid: Some("a1".into()),
                timestamp: None,
                text: "The integration job times out after 10 minutes.".into(),
                model: None,
            },
        ],
    });
    Ok(app)
}

fn chat_row(id: &str) -> ChatSummary {
    chat("", id, "Investigate CI logs", Origin::Spawned)
}

#[test]
fn open_chat_80x24() -> TestResult {
    let mut app = with_open_chat()?;
    insta::assert_debug_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn open_chat_40x24() -> TestResult {
    let mut app = with_open_chat()?;
    insta::assert_debug_snapshot!(screen(&mut app, 40, 24)?);
    // Tab: the tree, alone in a narrow pane.
    app.on_key(key(KeyCode::Tab));
    let backend = screen(&mut app, 40, 24)?;
    let text = format!("{backend:?}");
    assert!(text.contains("Fix the flaky build"), "{text}");
    assert!(!text.contains("times out"), "{text}");
    Ok(())
}

/// `J` acts on what is visible: with no item cursor drawn (no `g` pressed), it opens the chat
/// that the `↩ sent by …` line names.
#[test]
fn j_opens_the_sender_the_chat_shows_without_an_item_cursor() -> TestResult {
    let mut app = with_open_chat()?;
    let text = format!("{:?}", screen(&mut app, 80, 24)?);
    assert!(text.contains("sent by Fix the flaky build"), "{text}");
    let action = app.on_key(KeyEvent::new(KeyCode::Char('J'), KeyModifiers::SHIFT));
    assert!(
        matches!(action, Some(Action::Open { ref session_id, .. }) if session_id == "s-manager"),
        "{action:?}"
    );
    Ok(())
}

#[test]
fn an_interrupted_chat_is_marked_and_c_continues_it() -> TestResult {
    let mut app = canned();
    let mut chats: Vec<ChatSummary> = app.tree.project_chats("web").to_vec();
    chats[0].interrupted = true;
    chats[0].unread = false;
    let sid = chats[0].session_id.clone();
    app.set_project_chats("web".into(), chats);
    assert!(app.tree.select(&chat_id("web", &sid)));
    let text = format!("{:?}", screen(&mut app, 80, 24)?);
    let line = text
        .lines()
        .find(|l| l.contains("Redesign"))
        .ok_or("no row")?
        .to_owned();
    assert!(line.contains('⚠'), "{line}");
    assert_eq!(
        app.on_key(KeyEvent::new(KeyCode::Char('C'), KeyModifiers::SHIFT)),
        Some(Action::Continue { session_id: sid })
    );
    Ok(())
}

/// A chat whose turn is queued for a free claude process shows the waiting mark, not the
/// spinner of one that runs; once it has a process, the spinner.
#[test]
fn a_chat_queued_for_a_free_process_is_marked_waiting() -> TestResult {
    let mut app = canned();
    let mut chats: Vec<ChatSummary> = app.tree.project_chats("web").to_vec();
    chats[0].running = true;
    chats[0].waiting_process = true;
    chats[0].unread = false;
    app.set_project_chats("web".into(), chats.clone());
    let row = |app: &mut App| -> Result<String, Box<dyn std::error::Error>> {
        let text = format!("{:?}", screen(app, 80, 24)?);
        Ok(text
            .lines()
            .find(|l| l.contains("Redesign"))
            .ok_or("no row")?
            .to_owned())
    };
    let line = row(&mut app)?;
    assert!(line.contains('⏸'), "{line}");
    assert!(!line.contains('⠋'), "{line}");
    // The header counts it as queued, not as running.
    let text = format!("{:?}", screen(&mut app, 120, 24)?);
    let header = text
        .lines()
        .find(|l| l.contains("paddockd"))
        .unwrap_or_default();
    assert!(header.contains("1 queued"), "{header}");
    assert!(
        header.contains("2 running"),
        "the manager and the bisect run: {header}"
    );
    chats[0].waiting_process = false;
    app.set_project_chats("web".into(), chats);
    let line = row(&mut app)?;
    assert!(line.contains('⠋') && !line.contains('⏸'), "{line}");
    Ok(())
}

/// `n` (which the header names when chats wait for you) works from the chat pane too: it
/// opens the next chat that needs you, so the pane shows what the tree's cursor is on.
#[test]
fn n_in_the_chat_pane_opens_the_next_chat_that_needs_you() -> TestResult {
    let mut app = with_open_chat()?;
    assert_eq!(app.focus, paddock_tui::tui::app::Focus::Chat);
    // The open chat is being read.
    let mut root: Vec<ChatSummary> = app.tree.project_chats("").to_vec();
    for c in root.iter_mut().filter(|c| c.session_id == "s-logs") {
        c.unread = false;
    }
    app.set_project_chats(String::new(), root);
    let mut chats: Vec<ChatSummary> = app.tree.project_chats("web").to_vec();
    chats[0].running = true;
    chats[0].waiting_approval = true;
    let sid = chats[0].session_id.clone();
    app.set_project_chats("web".into(), chats);
    let action = app.on_key(key(KeyCode::Char('n')));
    assert!(
        matches!(action, Some(Action::Open { ref session_id, .. }) if *session_id == sid),
        "{action:?}"
    );
    assert_eq!(
        app.tree.cursor_chat().map(|c| c.session_id.clone()),
        Some(sid)
    );
    Ok(())
}

/// From the chat pane, `n` goes on from the chat the pane shows, wherever the tree's cursor was
/// left.
#[test]
fn n_in_the_chat_pane_goes_on_from_the_chat_it_shows() -> TestResult {
    let mut app = with_open_chat()?;
    let mut root: Vec<ChatSummary> = app.tree.project_chats("").to_vec();
    for c in &mut root {
        c.unread = false;
        if c.session_id == "s-tests" {
            (c.running, c.waiting_approval) = (true, true);
        }
    }
    app.set_project_chats(String::new(), root);
    let mut web: Vec<ChatSummary> = app.tree.project_chats("web").to_vec();
    for c in &mut web {
        c.unread = false;
    }
    web[0].running = true;
    web[0].waiting_approval = true;
    app.set_project_chats("web".into(), web);
    // The tree's cursor was left below s-tests; the pane shows s-logs, above it.
    assert!(app.tree.select(&chat_id("", "s-nightly")));
    let action = app.on_key(key(KeyCode::Char('n')));
    assert!(
        matches!(action, Some(Action::Open { ref session_id, .. }) if session_id == "s-tests"),
        "{action:?}"
    );
    Ok(())
}

/// `C` follows one rule in the tree and in the chat pane (and in `paddock continue`): only a
/// chat whose last turn was cut short, and that runs nothing now, has something to continue.
#[test]
fn c_in_the_chat_pane_continues_only_a_chat_cut_short() -> TestResult {
    let shift_c = KeyEvent::new(KeyCode::Char('C'), KeyModifiers::SHIFT);
    let mut app = with_open_chat()?;
    assert_eq!(app.focus, paddock_tui::tui::app::Focus::Chat);
    assert_eq!(app.on_key(shift_c), None, "a chat that ended well");
    let said = app.notice.text().unwrap_or_default().to_owned();
    assert!(said.contains("not cut short"), "{said}");

    let mut chats: Vec<ChatSummary> = app.tree.project_chats("").to_vec();
    let logs = chats
        .iter_mut()
        .find(|c| c.session_id == "s-logs")
        .ok_or("no s-logs row")?;
    logs.interrupted = true;
    app.set_project_chats(String::new(), chats);
    assert_eq!(
        app.on_key(shift_c),
        Some(Action::Continue {
            session_id: "s-logs".into()
        })
    );
    Ok(())
}

/// What a key asks the daemon to do to the chat under the cursor.
fn update_of(app: &mut App, c: char) -> Option<paddock_proto::ChatAction> {
    match app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)) {
        Some(Action::Update { action, .. }) => Some(action),
        _ => None,
    }
}

#[test]
fn each_tree_toggle_is_undone_by_its_own_key_or_the_one_help_names() -> TestResult {
    use paddock_proto::ChatAction as A;
    let mut app = canned();
    on_logs(&mut app)?;
    // Attached, unstarred, unread: d detaches, s stars, r marks read, u marks unread.
    assert_eq!(update_of(&mut app, 'd'), Some(A::Detach));
    assert_eq!(update_of(&mut app, 's'), Some(A::Star));
    assert_eq!(update_of(&mut app, 'r'), Some(A::Read));
    assert_eq!(update_of(&mut app, 'u'), Some(A::Unread));
    assert_eq!(update_of(&mut app, 'a'), Some(A::Archive));
    // Detached and starred (as the daemon answers): the same keys undo them.
    let mut chats: Vec<ChatSummary> = app.tree.project_chats("").to_vec();
    for c in chats.iter_mut().filter(|c| c.session_id == "s-logs") {
        c.detached = true;
        c.starred = true;
    }
    app.set_project_chats(String::new(), chats);
    on_logs(&mut app)?;
    assert_eq!(
        update_of(&mut app, 'd'),
        Some(A::Attach),
        "d again attaches"
    );
    assert_eq!(update_of(&mut app, 's'), Some(A::Unstar), "s again unstars");
    // The help says what undoes what.
    let help = |key: &str| {
        paddock_tui::tui::keys::bindings_in(paddock_tui::tui::keys::Context::Tree)
            .find(|b| b.label == key)
            .map(|b| b.help)
            .unwrap_or_default()
    };
    assert!(help("d").contains("again"), "{}", help("d"));
    assert!(help("s").contains("again"), "{}", help("s"));
    assert!(help("u").contains("r undoes"), "{}", help("u"));
    assert!(help("r").contains("u undoes"), "{}", help("r"));
    assert!(help("a").contains("A undoes"), "{}", help("a"));
    assert!(help("A").contains("a undoes"), "{}", help("A"));
    Ok(())
}

#[test]
fn a_chat_status_shows_dim_after_its_title_when_there_is_room() -> TestResult {
    let mut app = canned();
    let mut chats: Vec<ChatSummary> = app.tree.project_chats("web").to_vec();
    chats[0].status = Some("Moved the hero image; the CTA is next.".into());
    app.set_project_chats("web".into(), chats);
    let wide = format!("{:?}", screen(&mut app, 160, 24)?);
    assert!(wide.contains("— Moved the hero"), "{wide}");
    let narrow = format!("{:?}", screen(&mut app, 40, 24)?);
    assert!(!narrow.contains("Moved the hero"), "{narrow}");
    Ok(())
}

// ----- archived chats, fork, delete ---------------------------------------------------------

/// The cursor on the root workspace's "Archived" group, never opened: no count.
fn archive_folded() -> Result<App, Box<dyn std::error::Error>> {
    let mut app = canned();
    if !app.tree.select(&archive_of("")) {
        return Err("no Archived group".into());
    }
    Ok(app)
}

#[test]
fn archived_folded_80x24() -> TestResult {
    let mut app = archive_folded()?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn archived_folded_40x24() -> TestResult {
    let mut app = archive_folded()?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn archived_open_80x24() -> TestResult {
    let mut app = archive_open(Theme::default())?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn archived_open_40x24() -> TestResult {
    let mut app = archive_open(Theme::default())?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn archived_open_plain_80x24() -> TestResult {
    let mut app = archive_open(Theme::plain())?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn archived_open_plain_40x24() -> TestResult {
    let mut app = archive_open(Theme::plain())?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn the_archived_group_opens_reads_and_unarchives() -> TestResult {
    let mut app = archive_folded()?;
    // Enter on the group opens it too, and asks for its chats; it says so until they come.
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::LoadArchived(vec![String::new()]))
    );
    let text = format!("{:?}", screen(&mut app, 80, 24)?);
    assert!(text.contains("Archived  loading…"), "{text}");
    app.set_archived_chats(String::new(), Ok(archived_rows()));
    // A on the archived child unarchives it; S A its parent's whole subtree.
    assert!(app.tree.select(&chat_id("", "s-old-child")));
    assert_eq!(
        app.on_key(key(KeyCode::Char('A'))),
        Some(Action::Update {
            action: paddock_proto::ChatAction::Unarchive,
            session_ids: vec!["s-old-child".into()],
        })
    );
    assert!(app.tree.select(&chat_id("", "s-old-parent")));
    press(&mut app, "S");
    assert_eq!(
        app.on_key(key(KeyCode::Char('A'))),
        Some(Action::Update {
            action: paddock_proto::ChatAction::Unarchive,
            session_ids: vec!["s-old-parent".into(), "s-old-child".into()],
        })
    );
    // A selection across both lists: the active chats first.
    press(&mut app, " ");
    assert!(app.tree.select(&chat_id("web", "s-landing")));
    press(&mut app, " ");
    assert_eq!(
        app.on_key(key(KeyCode::Char('A'))),
        Some(Action::Update {
            action: paddock_proto::ChatAction::Unarchive,
            session_ids: vec!["s-old-parent".into(), "s-landing".into()],
        })
    );
    app.on_key(key(KeyCode::Esc));
    // Unarchived, the chat moves to the active list and the cursor goes with it.
    assert!(app.tree.select(&chat_id("", "s-old-pinned")));
    let mut active = app.tree.project_chats("").to_vec();
    let mut back = archived_rows().remove(0);
    back.archived = false;
    active.insert(0, back);
    app.set_project_chats(String::new(), active);
    assert_eq!(cursor_session(&app).as_deref(), Some("s-old-pinned"));
    assert!(app.tree.cursor_row().is_some_and(|r| !r.archived));
    let text = format!("{:?}", screen(&mut app, 80, 24)?);
    assert!(text.contains("Archived (2)"), "{text}");
    // h folds the archived parent, again goes up to the group, again folds the group (its
    // count stays); l opens it and reads it again.
    assert!(app.tree.select(&chat_id("", "s-old-parent")));
    press(&mut app, "h");
    assert!(app.tree.is_folded(&chat_id("", "s-old-parent")));
    press(&mut app, "h");
    assert_eq!(app.tree.cursor_id(), Some(&archive_of("")));
    assert_eq!(press_one(&mut app, 'h'), None);
    assert!(app.tree.is_folded(&archive_of("")));
    let text = format!("{:?}", screen(&mut app, 80, 24)?);
    assert!(text.contains("▸ Archived (2)"), "{text}");
    assert_eq!(
        press_one(&mut app, 'l'),
        Some(Action::LoadArchived(vec![String::new()]))
    );
    // A failed read is said.
    app.set_archived_chats(String::new(), Err("paddockd is busy".into()));
    assert_eq!(
        app.notice.text(),
        Some("cannot list the archived chats: paddockd is busy")
    );
    Ok(())
}

fn press_one(app: &mut App, c: char) -> Option<Action> {
    app.on_key(key(KeyCode::Char(c)))
}

#[test]
fn f_forks_and_the_cursor_goes_to_the_fork_once_listed() -> TestResult {
    let mut app = canned();
    on_logs(&mut app)?;
    assert_eq!(
        press_one(&mut app, 'f'),
        Some(Action::Fork {
            session_id: "s-logs".into()
        })
    );
    assert_eq!(app.notice.text(), Some("forking “Investigate CI logs”…"));
    app.forked(String::new(), "s-fork".into());
    assert_eq!(
        cursor_session(&app).as_deref(),
        Some("s-logs"),
        "not listed yet"
    );
    // Listed: nested under its source (after its older child), and the cursor is on it.
    let mut root = app.tree.project_chats("").to_vec();
    let at = root
        .iter()
        .position(|c| c.session_id == "s-bisect")
        .ok_or("no s-bisect")?;
    let fork = child(
        chat("", "s-fork", "Investigate CI logs", Origin::Human),
        "s-logs",
        2,
    );
    root.insert(at + 1, fork);
    app.set_project_chats(String::new(), root);
    assert_eq!(cursor_session(&app).as_deref(), Some("s-fork"));
    assert_eq!(app.tree.cursor_row().map(|r| r.level), Some(2));
    // Not on a chat: nothing to fork.
    app.tree.to_top();
    assert_eq!(press_one(&mut app, 'f'), None);
    Ok(())
}

#[test]
fn x_asks_first_and_only_y_deletes() -> TestResult {
    let mut app = canned();
    on_logs(&mut app)?;
    assert_eq!(press_one(&mut app, 'X'), None);
    assert_eq!(
        app.confirm.as_ref().map(|c| c.question.as_str()),
        Some("delete “Investigate CI logs”")
    );
    // Anything but y refuses, and is not taken as the key it is (q does not quit).
    for refusal in [
        key(KeyCode::Char('n')),
        key(KeyCode::Esc),
        key(KeyCode::Enter),
        key(KeyCode::Char('Y')),
        KeyEvent::new(KeyCode::Char('y'), KeyModifiers::CONTROL),
        key(KeyCode::Char('q')),
    ] {
        if app.confirm.is_none() {
            press(&mut app, "X");
        }
        assert!(app.confirm.is_some());
        assert_eq!(app.on_key(refusal), None, "{refusal:?}");
        assert!(app.confirm.is_none());
        assert_eq!(app.notice.text(), Some("nothing deleted (only y deletes)"));
    }
    assert_eq!(cursor_session(&app).as_deref(), Some("s-logs"));
    // S X: the subtree, with how many run.
    assert!(app.tree.select(&chat_id("", "s-manager")));
    press(&mut app, "SX");
    assert_eq!(
        app.confirm.as_ref().map(|c| c.question.as_str()),
        Some(
            "delete 4 chats (2 running): “Fix the flaky build”, “Investigate CI logs”, “Bisect the failing comm…”, +1 more"
        )
    );
    assert_eq!(
        press_one(&mut app, 'y'),
        Some(Action::Delete {
            session_ids: vec![
                "s-manager".into(),
                "s-logs".into(),
                "s-bisect".into(),
                "s-tests".into()
            ]
        })
    );
    assert_eq!(app.notice.text(), Some("deleting 4 chats…"));
    app.deleted(4);
    assert_eq!(app.notice.text(), Some("deleted 4 chats"));
    // The selection: two chats.
    press(&mut app, " j ");
    assert_eq!(press_one(&mut app, 'X'), None);
    assert_eq!(
        app.confirm.as_ref().map(|c| c.question.as_str()),
        Some("delete 2 chats (1 running): “Fix the flaky build”, “Investigate CI logs”")
    );
    app.on_key(key(KeyCode::Esc));
    assert!(app.confirm.is_none());
    assert_eq!(app.tree.marked_count(), 2, "a refusal keeps the selection");
    // The open chat deleted: the chat pane closes.
    let mut app = with_open_chat()?;
    app.on_key(key(KeyCode::Tab));
    press(&mut app, "X");
    assert!(press_one(&mut app, 'y').is_some());
    app.deleted(1);
    assert!(app.chat.is_none());
    // Not on a chat: nothing is asked.
    app.tree.to_top();
    assert_eq!(press_one(&mut app, 'X'), None);
    assert!(app.confirm.is_none());
    Ok(())
}

#[test]
fn confirm_delete_80x24() -> TestResult {
    let mut app = confirming(Theme::default())?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn confirm_delete_40x24() -> TestResult {
    let mut app = confirming(Theme::default())?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn confirm_delete_plain_80x24() -> TestResult {
    let mut app = confirming(Theme::plain())?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn confirm_delete_plain_40x24() -> TestResult {
    let mut app = confirming(Theme::plain())?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn always_in_the_inbox_says_the_rule_it_adds() -> TestResult {
    let mut app = canned();
    assert!(matches!(
        app.on_key(key(KeyCode::Char('I'))),
        Some(Action::LoadApprovals)
    ));
    let approval = paddock_proto::Approval {
        id: "apr_3f9c1a2b".into(),
        project_slug: "webapp".into(),
        session_id: "s-logs".into(),
        job_id: "j".into(),
        title: "Investigate CI logs".into(),
        origin: Origin::Human,
        depth: 0,
        tool: "Bash".into(),
        input: serde_json::json!({"command": "mkdir -p tmp"}),
        preview: Some("$ mkdir -p tmp".into()),
        asked_at: "2026-11-03T09:14:02Z".into(),
        always_rules: vec!["Bash(mkdir:*)".into()],
        always_why_not: None,
        kind: paddock_proto::ApprovalKind::Tool,
    };
    app.set_approvals(vec![approval]);
    let action = app.on_key(key(KeyCode::Char('a')));
    assert!(
        matches!(
            &action,
            Some(Action::Answer { ids, decision: paddock_proto::ApprovalDecision::Always })
                if ids == &["apr_3f9c1a2b".to_owned()]
        ),
        "{action:?}"
    );
    assert_eq!(
        app.notice.text(),
        Some("always adds Bash(mkdir:*) to project webapp")
    );
    Ok(())
}

/// A disk below the daemon's floor leads the header: a reply streamed now may not be saved.
#[test]
fn the_header_says_the_disk_is_low_first() -> TestResult {
    let mut app = canned();
    app.pending_approvals = 1;
    app.low_disk = vec![paddock_proto::DiskSpace {
        path: "/home/me/.local/share/paddock".into(),
        free_bytes: 3 << 20,
        floor_bytes: 256 << 20,
    }];
    let backend = screen(&mut app, 80, 24)?;
    let header: String = (0..80)
        .map(|x| backend.buffer()[(x, 0)].symbol().to_owned())
        .collect();
    assert!(
        header.contains("disk low: 3.0 MB free · 1 waiting (I)"),
        "{header}"
    );
    // Narrow: the warning is what stays.
    let backend = screen(&mut app, 40, 24)?;
    let header: String = (0..40)
        .map(|x| backend.buffer()[(x, 0)].symbol().to_owned())
        .collect();
    assert!(header.contains("disk low: 3.0 MB free"), "{header}");
    Ok(())
}

/// An error on the status line stays through other keys until Esc; information goes at the
/// next key.
#[test]
fn an_error_stays_until_esc_and_information_goes_at_the_next_key() -> TestResult {
    let mut app = with_open_chat()?;
    assert_eq!(app.focus, paddock_tui::tui::app::Focus::Chat);
    app.notice.error("send failed: paddockd went away");
    press(&mut app, "jk");
    assert_eq!(app.notice.text(), Some("send failed: paddockd went away"));
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.notice.text(), None, "dismissed");
    app.notice.info("1 chat changed");
    press(&mut app, "j");
    assert_eq!(app.notice.text(), None, "information goes at the next key");
    Ok(())
}

/// Esc on an error only dismisses it: the key does not also do what it does under the
/// message (clear the tree's filter, leave the pane).
#[test]
fn esc_on_an_error_dismisses_it_and_keeps_the_filter() -> TestResult {
    let mut app = canned();
    press(&mut app, "/");
    press(&mut app, "fix");
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.tree.filter(), Some("fix"));
    app.notice.error("archive failed: paddockd went away");
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.notice.text(), None, "dismissed");
    assert_eq!(app.tree.filter(), Some("fix"), "the filter stays");
    // The next Esc does what it does.
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.tree.filter(), None);
    Ok(())
}

/// A new connection (a restarted daemon) starts with no approvals waiting until it says some
/// do: the count the last daemon left does not stay in the header.
#[test]
fn a_reconnect_forgets_the_last_daemons_approval_count() -> TestResult {
    let mut app = canned();
    app.pending_approvals = 1;
    app.set_connected(paddock_proto::HelloReply {
        protocol_version: 1,
        daemon_version: "0.1.0".into(),
        pid: 4243,
        user: "me".into(),
    });
    assert_eq!(app.pending_approvals, 0);
    Ok(())
}

/// `g` in the chat pane goes to its start with the cursor on the first item, so a key that
/// acts on the cursor's item (`o`) acts at once.
#[test]
fn g_in_the_chat_pane_puts_the_cursor_on_the_first_item() -> TestResult {
    let mut app = with_open_chat()?;
    assert_eq!(app.focus, paddock_tui::tui::app::Focus::Chat);
    press(&mut app, "g");
    assert_eq!(app.chat.as_ref().and_then(|c| c.cursor()), Some(0));
    Ok(())
}

/// A fork carries its mark in the tree (issue 36.6), in both themes, wide and narrow; its
/// source does not.
#[test]
fn a_fork_is_marked_in_the_tree() -> TestResult {
    for (theme, mark) in [(Theme::default(), "⋔"), (Theme::plain(), "-<")] {
        let mut app = connected(theme);
        app.set_projects(vec![project("", "/home/me/root")]);
        let mut source = chat("", "s-src", "Fix the flaky build", Origin::Human);
        source.children = vec!["s-fork".into()];
        let mut fork = child(
            chat("", "s-fork", "fork of Fix the flaky build", Origin::Human),
            "s-src",
            1,
        );
        fork.fork = true;
        app.set_all_chats(vec![source, fork]);
        for width in [160, 40] {
            let backend = screen(&mut app, width, 12)?;
            let buffer = backend.buffer();
            let rows: Vec<String> = (0..buffer.area.height)
                .map(|y| {
                    (0..buffer.area.width)
                        .map(|x| buffer[(x, y)].symbol())
                        .collect()
                })
                .collect();
            let tree = |row: &String| row.split(['│', '|']).next().unwrap_or_default().to_owned();
            let fork_row = rows.iter().map(tree).find(|r| r.contains("fork of"));
            let fork_row = fork_row.ok_or("no fork row")?;
            assert!(fork_row.contains(mark), "{width}: {fork_row:?}");
            let source_row = rows
                .iter()
                .map(tree)
                .find(|r| r.contains("Fix the") && !r.contains("fork of"))
                .ok_or("no source row")?;
            assert!(!source_row.contains(mark), "{width}: {source_row:?}");
        }
    }
    Ok(())
}

/// `n` under a filter takes the chats the filter hides in their turn (issue 36.2, from the
/// hand walk): with two shown chats cut short and a hidden unread one, `n` went ⚠ → ⚠ → ⚠
/// and never reached the unread chat; now the third `n` goes there, clearing the filter.
#[test]
fn n_under_a_filter_reaches_a_hidden_chat_in_its_turn() -> TestResult {
    let mut app = connected(Theme::default());
    app.set_projects(vec![project("", "/home/me/root")]);
    let mut one = chat("", "s-one", "slow one", Origin::Human);
    one.interrupted = true;
    let mut two = chat("", "s-two", "slow two", Origin::Human);
    two.interrupted = true;
    let mut hello = chat("", "s-hello", "hello", Origin::Human);
    hello.unread = true;
    app.set_all_chats(vec![one, two, hello]);
    press(&mut app, "/slow");
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.tree.filter(), Some("slow"));
    let mut visited = Vec::new();
    for _ in 0..3 {
        press(&mut app, "n");
        visited.push(cursor_session(&app).unwrap_or_default());
    }
    assert_eq!(visited, ["s-one", "s-two", "s-hello"]);
    assert_eq!(
        app.tree.filter(),
        None,
        "the filter cleared for the hidden chat"
    );
    Ok(())
}

/// Esc on the filter line puts the cursor back on the row it was on (from the hand walk of
/// issue 36: it was left on `(root)` or a project row, wherever the filter had moved it).
#[test]
fn esc_on_the_filter_puts_the_cursor_back() -> TestResult {
    for typed in ["/xyz", "/rerun", "/"] {
        let mut app = canned();
        on_logs(&mut app)?;
        press(&mut app, typed);
        app.on_key(key(KeyCode::Esc));
        assert_eq!(app.tree.filter(), None);
        assert_eq!(
            cursor_session(&app).as_deref(),
            Some("s-logs"),
            "after {typed:?} and Esc"
        );
    }
    // Enter keeps the filter, and Esc later does not jump back to before it.
    let mut app = canned();
    on_logs(&mut app)?;
    press(&mut app, "/rerun");
    app.on_key(key(KeyCode::Enter));
    let kept = cursor_session(&app);
    assert_eq!(app.tree.filter(), Some("rerun"));
    assert_ne!(kept.as_deref(), Some("s-logs"), "the filter hid it");
    Ok(())
}

#[test]
fn m_moves_a_root_chat_to_the_project_typed_or_tabbed_to() -> TestResult {
    let mut app = canned();
    on_logs(&mut app)?;
    // Under another chat: it moves with its root, so only the root is offered.
    assert_eq!(press_one(&mut app, 'M'), None);
    assert!(app.move_prompt.is_none());
    assert!(
        app.notice
            .text()
            .is_some_and(|t| t.starts_with("only a root chat moves")),
        "{:?}",
        app.notice.text()
    );
    // A chat under it runs: refused at once, in the TUI's keys.
    assert!(app.tree.select(&chat_id("", "s-manager")));
    assert_eq!(press_one(&mut app, 'M'), None);
    assert!(app.move_prompt.is_none());
    assert_eq!(
        app.notice.text(),
        Some("it is running a turn: move it once it is idle (x stops a turn)")
    );
    let mut root = app.tree.project_chats("").to_vec();
    for c in &mut root {
        c.running = false;
    }
    app.set_project_chats(String::new(), root);
    assert_eq!(press_one(&mut app, 'M'), None);
    let question = app.move_prompt.as_ref().map(|p| p.question());
    assert_eq!(
        question.as_deref(),
        Some("move “Fix the flaky build” and the 3 chats under it to project: ")
    );
    // Enter with nothing typed, or its own project: the prompt stays, saying why.
    assert_eq!(app.on_key(key(KeyCode::Enter)), None);
    assert!(app.move_prompt.as_ref().is_some_and(|p| p.error.is_some()));
    press(&mut app, "(root)");
    assert_eq!(app.on_key(key(KeyCode::Enter)), None);
    assert_eq!(
        app.move_prompt.as_ref().and_then(|p| p.error.as_deref()),
        Some("it is in (root) already")
    );
    for _ in 0.."(root)".len() {
        app.on_key(key(KeyCode::Backspace));
    }
    // Tab goes through the other projects: `web` here.
    press(&mut app, "w");
    app.on_key(key(KeyCode::Tab));
    assert_eq!(
        app.move_prompt.as_ref().map(|p| p.input.as_str()),
        Some("web")
    );
    insta::assert_snapshot!("move_prompt_80x24", screen(&mut app, 80, 24)?);
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Promote {
            session_id: "s-manager".into(),
            to_project: "web".into()
        })
    );
    assert!(app.move_prompt.is_none());
    assert_eq!(
        app.notice.text(),
        Some("moving “Fix the flaky build” to project web…")
    );
    app.promoted(paddock_proto::Promoted {
        from_project: String::new(),
        to_project: "web".into(),
        session_ids: ["s-manager", "s-logs", "s-bisect", "s-tests"]
            .map(String::from)
            .to_vec(),
        created_project: false,
    });
    assert_eq!(
        app.notice.text(),
        Some("moved “Fix the flaky build” with the 3 chats under it to project web")
    );
    // Esc leaves it where it is; a slug no project has is taken as it is (a new project).
    assert!(app.tree.select(&chat_id("", "s-manager")));
    press(&mut app, "Mx");
    app.on_key(key(KeyCode::Esc));
    assert!(app.move_prompt.is_none());
    assert_eq!(app.notice.text(), Some("nothing was moved"));
    // No slug: said in the prompt, which stays; a new slug is said to make a project.
    press(&mut app, "MBad Slug");
    assert!(
        app.move_prompt
            .as_ref()
            .is_some_and(|p| p.not_a_slug && !p.new_project),
        "said while typing: {:?}",
        app.move_prompt
    );
    assert_eq!(app.on_key(key(KeyCode::Enter)), None);
    assert!(
        app.move_prompt
            .as_ref()
            .and_then(|p| p.error.as_deref())
            .is_some_and(|e| e.starts_with("a slug is 1-64 lower-case")),
        "{:?}",
        app.move_prompt
    );
    app.on_key(key(KeyCode::Esc));
    press(&mut app, "Mnew-home");
    assert!(app.move_prompt.as_ref().is_some_and(|p| p.new_project));
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Promote {
            session_id: "s-manager".into(),
            to_project: "new-home".into()
        })
    );
    // Refused by the daemon: the prompt opens again with the reason.
    app.promote_failed("paddockd is busy");
    assert_eq!(
        app.move_prompt
            .as_ref()
            .map(|p| (p.input.as_str(), p.error.as_deref())),
        Some(("new-home", Some("paddockd is busy")))
    );
    app.on_key(key(KeyCode::Esc));
    assert!(app.move_prompt.is_none());
    Ok(())
}

/// The composer of a new chat names Alt-w (its worktree or the checkout) on the status line,
/// and keeps Esc in sight at 80 columns; a reply's composer does not offer it.
#[test]
fn a_new_chats_composer_hints_its_worktree_key() -> TestResult {
    let status_line = |app: &mut App| -> Result<String, Box<dyn std::error::Error>> {
        let backend = screen(app, 80, 24)?;
        let buf = backend.buffer();
        let y = buf.area.height - 1;
        Ok((0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect())
    };
    let mut app = canned();
    app.tree.to_top();
    press(&mut app, "N");
    let line = status_line(&mut app)?;
    assert!(line.contains("alt-w worktree"), "{line}");
    assert!(line.contains("esc leave"), "{line}");
    let mut app = canned();
    on_logs(&mut app)?;
    press(&mut app, "i");
    let line = status_line(&mut app)?;
    assert!(!line.contains("alt-w"), "{line}");
    assert!(line.contains("enter send"), "{line}");
    Ok(())
}

/// The open chat moved to another project (by `M`, or `paddock promote` elsewhere): once the
/// lists say so, the pane is that project's, and what it sends goes there.
#[test]
fn the_open_chat_follows_its_move_to_another_project() -> TestResult {
    let mut app = with_open_chat()?;
    let mut root = app.tree.project_chats("").to_vec();
    let at = root
        .iter()
        .position(|c| c.session_id == "s-logs")
        .ok_or("no s-logs")?;
    let mut moved = root.remove(at);
    (moved.project_slug, moved.tree_parent, moved.level) = ("web".into(), None, 0);
    app.set_project_chats(String::new(), root);
    let mut web = app.tree.project_chats("web").to_vec();
    web.push(moved);
    app.set_project_chats("web".into(), web);
    assert_eq!(app.chat.as_ref().map(|c| c.project_slug()), Some("web"));
    app.on_key(key(KeyCode::Tab));
    press(&mut app, "ihello");
    let sent = app.on_key(key(KeyCode::Enter));
    assert!(
        matches!(&sent, Some(Action::Send { project_slug, session_id: Some(s), .. })
            if project_slug == "web" && s == "s-logs"),
        "{sent:?}"
    );
    Ok(())
}

/// Two hosts: each one's projects under its row, the one that is down kept, dimmed, saying so;
/// the header counts the hosts that answer and names the one that does not.
fn two_hosts(theme: Theme) -> App {
    use paddock_tui::tui::tree::{HostHead, HostState};
    let mut app = connected(theme);
    app.set_projects(vec![
        project("devbox:", "/home/me/.local/share/paddock/root"),
        project("devbox:web", "/home/me/src/web"),
        project("gpubox:train", "/srv/train"),
    ]);
    let mut running = chat("devbox:web", "s-web", "Fix the login test", Origin::Human);
    running.running = true;
    let mut unread = chat(
        "gpubox:train",
        "s-train",
        "Tune the learning rate",
        Origin::Scheduled,
    );
    unread.unread = true;
    app.set_all_chats(vec![
        chat("devbox:", "s-root", "Plan the week", Origin::Human),
        running,
        unread,
    ]);
    app.tree.set_hosts(vec![
        HostHead::new("devbox", HostState::Up),
        HostHead::new(
            "gpubox",
            HostState::Down {
                reason: "ssh: connect to host gpubox port 22: Connection refused".into(),
                last_seen: None,
            },
        ),
    ]);
    app
}

#[test]
fn two_hosts_one_down_80x24() -> TestResult {
    let mut app = two_hosts(Theme::default());
    let shot = screen(&mut app, 80, 24)?;
    // The rows of the host that is down are dimmed.
    let buffer = shot.buffer();
    let row = |y: u16| (0..80).map(|x| buffer[(x, y)].symbol()).collect::<String>();
    let y = (0..24)
        .find(|&y| row(y).contains("Tune the"))
        .ok_or("no gpubox chat")?;
    let x = (0..80)
        .find(|&x| buffer[(x, y)].symbol() == "T")
        .ok_or("no title")?;
    assert!(buffer[(x, y)].modifier.contains(Modifier::DIM), "{shot:?}");
    let y = (0..24)
        .find(|&y| row(y).contains("Fix the"))
        .ok_or("no devbox chat")?;
    let x = (0..80)
        .find(|&x| buffer[(x, y)].symbol() == "F")
        .ok_or("no title")?;
    assert!(!buffer[(x, y)].modifier.contains(Modifier::DIM), "{shot:?}");
    insta::assert_snapshot!(shot);
    Ok(())
}

#[test]
fn two_hosts_one_down_plain_40x24() -> TestResult {
    let mut app = two_hosts(Theme::plain());
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

/// The cursor on the row of a host that is down: beside the tree, why, and what happens next.
#[test]
fn a_host_that_is_down_says_why_beside_the_tree_80x24() -> TestResult {
    let mut app = two_hosts(Theme::default());
    app.tree.select(&RowId::Host("gpubox:".into()));
    let shot = screen(&mut app, 80, 24)?;
    let text = format!("{shot:?}");
    assert!(text.contains("gpubox is down"), "{text}");
    insta::assert_snapshot!(shot);
    Ok(())
}
