//! The TUI's screens as `insta` snapshots on ratatui's `TestBackend` (80x24 and 40x24), and
//! how its state answers keys and daemon news.

use paddock_proto::{Active, ChatSummary, HelloReply, Origin, ProjectInfo};
use paddock_tui::tui::app::{Action, App, Connection, Row};
use paddock_tui::tui::render;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn project(slug: &str, path: &str) -> ProjectInfo {
    ProjectInfo {
        slug: slug.into(),
        path: path.into(),
        created_at: None,
    }
}

fn chat(project: &str, id: &str, title: &str, origin: Origin) -> ChatSummary {
    ChatSummary {
        session_id: id.into(),
        project_slug: project.into(),
        title: title.into(),
        origin,
        depth: 0,
        parent_session_id: None,
        parent_project: None,
        created_at: None,
        updated_at: None,
        model: None,
        message_count: 4,
        running: false,
        unread: false,
        archived: false,
        starred: false,
        ..ChatSummary::default()
    }
}

/// A spawned chat, drawn under its parent at `depth` as the daemon lays it out.
fn child(mut c: ChatSummary, parent: &str, depth: u32) -> ChatSummary {
    c.parent_session_id = Some(parent.into());
    c.parent_project = Some(c.project_slug.clone());
    c.depth = depth;
    c.tree_parent = Some(parent.into());
    c.level = depth;
    c
}

/// A workspace with a fan-out tree, every origin, and a project with no chats.
fn canned() -> App {
    let mut app = App::new();
    app.set_connected(HelloReply {
        protocol_version: 1,
        daemon_version: "0.1.0".into(),
        pid: 4242,
        user: "me".into(),
    });
    app.set_projects(vec![
        project("", "/home/me/.local/share/paddock/root"),
        project("web", "/home/me/src/web"),
        project("infra", "/home/me/src/infra"),
    ]);
    let mut manager = chat("", "s-manager", "Fix the flaky build", Origin::Human);
    manager.running = true;
    manager.starred = true;
    let mut logs = child(
        chat("", "s-logs", "Investigate CI logs", Origin::Spawned),
        "s-manager",
        1,
    );
    logs.unread = true;
    let bisect = child(
        chat(
            "",
            "s-bisect",
            "Bisect the failing commit between v1.2 and v1.3",
            Origin::Spawned,
        ),
        "s-logs",
        2,
    );
    let nightly = chat(
        "",
        "s-nightly",
        "Nightly dependency audit",
        Origin::Scheduled,
    );
    let hook = chat("", "s-hook", "Triage new issues", Origin::Hook);
    let adopted = chat(
        "",
        "s-adopted",
        "Refactor notes from the terminal",
        Origin::Adopted,
    );
    let mut landing = chat(
        "web",
        "s-landing",
        "Redesign the landing page",
        Origin::Human,
    );
    landing.unread = true;
    // Its parent lives in another project: it stands at the top level, badge and all.
    let mut stray = child(
        chat(
            "web",
            "s-stray",
            "Audit the web bundle size",
            Origin::Spawned,
        ),
        "s-elsewhere",
        2,
    );
    // The parent is not in this listing, so the daemon draws it as a root.
    stray.tree_parent = None;
    stray.level = 0;
    app.set_all_chats(vec![
        manager, logs, bisect, nightly, hook, adopted, landing, stray,
    ]);
    app
}

fn screen(
    app: &mut App,
    width: u16,
    height: u16,
) -> Result<TestBackend, Box<dyn std::error::Error>> {
    let mut terminal = Terminal::new(TestBackend::new(width, height))?;
    terminal.draw(|frame| {
        app.scroll_into_view(render::list_height(frame.area()));
        render::render(app, frame);
    })?;
    Ok(terminal.backend().clone())
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn chat_list_80x24() -> TestResult {
    let mut app = canned();
    app.selected = 2;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn chat_list_40x24() -> TestResult {
    let mut app = canned();
    app.selected = 2;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn unreachable_80x24() -> TestResult {
    let mut app = App::new();
    app.set_unreachable(
        "paddockd exited at startup (exit status: 1); its log is /home/me/.local/state/paddock/paddockd.log; run `paddock daemon start --foreground` to see the error in this terminal".into(),
    );
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn unreachable_40x24() -> TestResult {
    let mut app = App::new();
    app.set_unreachable("paddockd is not running on /run/user/1000/paddock/paddockd.sock".into());
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn connecting_80x24() -> TestResult {
    let mut app = App::new();
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn keys_move_refresh_and_quit() {
    let mut app = canned();
    let rows = app.rows().len();
    assert_eq!(app.on_key(key(KeyCode::Char('j'))), None);
    assert_eq!(app.on_key(key(KeyCode::Down)), None);
    assert_eq!(app.selected, 2);
    assert_eq!(app.on_key(key(KeyCode::Char('k'))), None);
    assert_eq!(app.on_key(key(KeyCode::Up)), None);
    assert_eq!(app.on_key(key(KeyCode::Up)), None);
    assert_eq!(app.selected, 0, "stops at the top");
    app.on_key(key(KeyCode::Char('G')));
    assert_eq!(app.selected, rows - 1);
    app.on_key(key(KeyCode::Char('j')));
    assert_eq!(app.selected, rows - 1, "stops at the bottom");
    assert_eq!(app.on_key(key(KeyCode::Char('r'))), Some(Action::Refresh));
    assert_eq!(app.on_key(key(KeyCode::Char('q'))), Some(Action::Quit));
    assert_eq!(app.on_key(key(KeyCode::Esc)), Some(Action::Quit));
    assert_eq!(
        app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Some(Action::Quit)
    );
}

#[test]
fn the_selected_chat_stays_selected_across_reloads() {
    let mut app = canned();
    app.selected = 8; // "Redesign the landing page" in web
    assert!(matches!(app.rows()[8], Row::Chat(c, _) if c.session_id == "s-landing"));
    // A new root chat arrives above it.
    let mut root = app.chats.get("").cloned().unwrap_or_default();
    root.insert(0, chat("", "s-new", "A new chat", Origin::Human));
    app.set_project_chats(String::new(), root);
    assert!(matches!(app.rows()[app.selected], Row::Chat(c, _) if c.session_id == "s-landing"));
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
    assert_eq!(app.running_count(), 1);
    assert!(app.apply_active(&active("s-landing", true)));
    assert_eq!(app.running_count(), 2);
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
fn scrolling_keeps_the_selection_on_screen() {
    let mut app = canned();
    let rows = app.rows().len();
    app.selected = rows - 1;
    app.scroll_into_view(4);
    assert_eq!(app.offset, rows - 4);
    app.selected = rows - 3;
    app.scroll_into_view(4);
    assert_eq!(
        app.offset,
        rows - 4,
        "no scrolling while the selection is visible"
    );
    app.selected = 0;
    app.scroll_into_view(4);
    assert_eq!(app.offset, 0);
}
