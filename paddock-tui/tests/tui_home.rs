//! The Home view (`O`) as `insta` snapshots on ratatui's `TestBackend` at 80x24 and 40x24
//! (colours, and the plain ASCII, no-colour theme), built from a constructed
//! `project:overview` answer and the tree's chats (no daemon), and its key flows: `O` reading
//! the cursor's project, the running and unread chats on top (Enter opens one), scrolling,
//! an answer for another project dropped, a failure shown in the view.

use chrono::DateTime;
use paddock_proto::ProjectOverview;
use paddock_tui::tui::app::{Action, Focus};
use paddock_tui::tui::home_view::HomeView;
use paddock_tui::tui::keys::Context;
use paddock_tui::tui::theme::Theme;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Color;

mod fixtures;
use fixtures::home::*;

#[test]
fn home_80x24() -> TestResult {
    let mut app = home_app(Theme::default())?;
    app.on_key(ch('j'));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn home_40x24() -> TestResult {
    let mut app = home_app(Theme::default())?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn home_plain_80x24() -> TestResult {
    let mut app = home_app(Theme::plain())?;
    app.on_key(ch('j'));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn home_plain_40x24() -> TestResult {
    let mut app = home_app(Theme::plain())?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn home_scrolled_80x24() -> TestResult {
    let mut app = home_app(Theme::default())?;
    app.on_key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn home_failed_40x24() -> TestResult {
    let mut app = app(Theme::default());
    app.on_key(ch('O'));
    let reading = text(&mut app, 40, 24)?;
    assert!(
        reading.contains("Reading the project's overview…"),
        "{reading}"
    );
    let home = app.view_mut::<HomeView>().ok_or("Home closed")?;
    home.answer(
        "webapp",
        Err("project:overview is not implemented yet".into()),
    );
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn no_curated_files_yet() -> TestResult {
    let mut app = app(Theme::default());
    app.on_key(ch('O'));
    let home = app.view_mut::<HomeView>().ok_or("Home closed")?;
    home.answer(
        "webapp",
        Ok(Box::new(ProjectOverview {
            project: project("webapp", "/home/me/src/webapp"),
            chats: 4,
            running: 1,
            unread: 2,
            ..ProjectOverview::default()
        })),
    );
    let page = text(&mut app, 80, 40)?;
    assert!(page.contains("Home · webapp"), "{page}");
    assert!(page.contains("No OVERVIEW.md yet"), "{page}");
    assert!(page.contains("No CHANGELOG.md yet."), "{page}");
    assert!(!page.contains("swept"), "{page}");
    Ok(())
}

#[test]
fn running_and_unread_chats_come_first_and_open() -> TestResult {
    let mut app = home_app(Theme::default())?;
    assert_eq!(app.context(), Context::Home);
    let page = text(&mut app, 80, 24)?;
    let rate = page.find("Add rate limiting").ok_or("no running chat")?;
    let login = page.find("Fix the flaky login").ok_or("no unread chat")?;
    assert!(rate < login, "running before unread:\n{page}");
    assert!(
        !page.contains("Cookie experiment"),
        "read and idle: not listed"
    );
    assert!(!page.contains("Write release notes"), "another project's");
    app.on_key(ch('j'));
    app.on_key(ch('j'));
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Open {
            project_slug: "webapp".into(),
            session_id: "s-ci".into(),
        })
    );
    assert!(app.view::<HomeView>().is_none());
    assert_eq!(app.focus, Focus::Chat);
    // From the chat pane, O is the open chat's project; r reads again; O closes.
    assert_eq!(
        app.on_key(ch('O')),
        Some(Action::LoadOverview("webapp".into()))
    );
    assert_eq!(
        app.on_key(ch('r')),
        Some(Action::LoadOverview("webapp".into()))
    );
    assert_eq!(app.on_key(ch('O')), None);
    assert!(app.view::<HomeView>().is_none());
    Ok(())
}

#[test]
fn another_projects_answer_is_dropped() -> TestResult {
    let mut app = app(Theme::default());
    app.on_key(ch('O'));
    let home = app.view_mut::<HomeView>().ok_or("Home closed")?;
    assert!(!home.answer("", Ok(overview())));
    assert!(home.overview().is_none());
    let page = text(&mut app, 80, 24)?;
    assert!(page.contains("Reading the project's overview…"), "{page}");
    Ok(())
}

#[test]
fn plain_home_has_no_colour_and_only_ascii() -> TestResult {
    for (width, height) in [(80, 24), (40, 24)] {
        let mut app = home_app(Theme::plain())?;
        let plain = screen(&mut app, width, height)?;
        assert!(
            plain
                .buffer()
                .content()
                .iter()
                .all(|c| c.fg == Color::Reset && c.bg == Color::Reset && c.symbol().is_ascii())
        );
    }
    Ok(())
}

#[test]
fn a_failed_sweep_is_shown_as_failed_with_its_reason() -> TestResult {
    let mut app = app(Theme::default());
    app.on_key(ch('O'));
    let home = app.view_mut::<HomeView>().ok_or("Home closed")?;
    home.set_clock(DateTime::parse_from_rfc3339("2026-11-03T19:00:00+01:00").ok());
    let mut o = overview();
    o.swept_at = Some("2026-11-03T17:35:00Z".into());
    o.sweep_error = Some(
        "the reply was not used (nothing written): the marker <<<OVERVIEW>>> is missing".into(),
    );
    home.answer("webapp", Ok(o));
    let page = text(&mut app, 120, 40)?;
    assert!(page.contains("sweep failed 18:35"), "{page}");
    assert!(!page.contains("swept 18:35"), "{page}");
    assert!(
        page.contains("The last sweep failed: the reply was not used (nothing written): the marker <<<OVERVIEW>>> is missing"),
        "{page}"
    );
    Ok(())
}
