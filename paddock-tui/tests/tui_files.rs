//! The Files view (`F`) and the blame view (`b`) as `insta` snapshots on ratatui's
//! `TestBackend` at 80x24 and 40x24 (Unicode and the plain ASCII, no-color theme), built from
//! constructed `touched` and `blame` replies, and how their keys turn into requests: the chat's
//! files, a file's provenance, its blame, and Enter on a blamed line opening its chat.

use paddock_proto::{Blame, Touched};
use paddock_tui::tui::app::Action;
use paddock_tui::tui::blame_view::BlameView;
use paddock_tui::tui::files_view::FilesView;
use paddock_tui::tui::keys::Context;
use paddock_tui::tui::theme::Theme;
use paddock_tui::tui::tree::RowId;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Color;

mod fixtures;
use fixtures::files::*;

#[test]
fn files_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut files_app(Theme::default())?, 80, 24)?);
    Ok(())
}

#[test]
fn files_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut files_app(Theme::default())?, 40, 24)?);
    Ok(())
}

#[test]
fn files_plain_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut files_app(Theme::plain())?, 80, 24)?);
    Ok(())
}

#[test]
fn files_plain_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut files_app(Theme::plain())?, 40, 24)?);
    Ok(())
}

#[test]
fn files_one_turn_80x24() -> TestResult {
    let mut app = files_app(Theme::default())?;
    for _ in 0..4 {
        app.on_key(ch('j'));
    }
    app.on_key(ch('t'));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn files_error_40x24() -> TestResult {
    let mut app = race_open(Theme::default())?;
    app.on_key(ch('F'));
    app.view_mut::<FilesView>()
        .ok_or("Files did not open")?
        .set_error("no chat a3e9b1c4-6d2f-4f8a-b7c5-1e0d9f3a2b68 in project webapp".into());
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn files_nothing_touched_80x24() -> TestResult {
    let mut app = race_open(Theme::default())?;
    app.on_key(ch('F'));
    app.view_mut::<FilesView>()
        .ok_or("Files did not open")?
        .set(Touched {
            project_slug: "webapp".into(),
            session_id: RACE.into(),
            turns: Vec::new(),
            notes: Vec::new(),
        });
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn blame_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut blame_app(Theme::default())?, 80, 24)?);
    Ok(())
}

#[test]
fn blame_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut blame_app(Theme::default())?, 40, 24)?);
    Ok(())
}

#[test]
fn blame_plain_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut blame_app(Theme::plain())?, 80, 24)?);
    Ok(())
}

#[test]
fn blame_plain_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut blame_app(Theme::plain())?, 40, 24)?);
    Ok(())
}

#[test]
fn blame_scrolled_40x24() -> TestResult {
    let mut app = blame_app(Theme::default())?;
    // A short screen: the cursor on line 12 scrolls the file, and the top line names the
    // region it is in (the race chat's, from line 5).
    for _ in 0..7 {
        app.on_key(ch('j'));
    }
    insta::assert_snapshot!(screen(&mut app, 40, 12)?);
    Ok(())
}

#[test]
fn blame_error_80x24() -> TestResult {
    let mut app = files_app(Theme::default())?;
    app.on_key(ch('b'));
    app.view_mut::<BlameView>()
        .ok_or("the blame did not open")?
        .set_error("unknown request type provenance:blame".into());
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

/// The color of the cell at (`x`, the row whose text contains `needle`).
fn fg_at(screen: &TestBackend, needle: &str, x: usize) -> Option<Color> {
    let buffer = screen.buffer();
    let width = usize::from(buffer.area.width);
    buffer.content().chunks(width).find_map(|row| {
        let text: String = row.iter().map(|c| c.symbol()).collect();
        text.contains(needle).then(|| row.get(x).map(|c| c.fg))?
    })
}

#[test]
fn sources_and_statuses_are_colored_and_plain_is_ascii() -> TestResult {
    let files = screen(&mut files_app(Theme::default())?, 80, 24)?;
    // The marks: ✓ green, ✗ red, ? yellow.
    assert_eq!(fg_at(&files, "dist/bundle.js", 3), Some(Color::Green));
    assert_eq!(fg_at(&files, "wrote    docs/auth.md", 3), Some(Color::Red));
    assert_eq!(fg_at(&files, "cookie-race.spec.ts", 3), Some(Color::Yellow));
    let blame = screen(&mut blame_app(Theme::default())?, 80, 24)?;
    // Each source its own colour; the race chat's two regions share one.
    let ana = fg_at(&blame, "commit 3f9a2c1", 1);
    let race = fg_at(&blame, "Investigate", 1);
    let nightly = fg_at(&blame, "Nightly", 1);
    let ben = fg_at(&blame, "Ben Okafor", 1);
    let race_again = fg_at(&blame, "REFRESH_LOCK", 1);
    assert_eq!(ana, Some(Color::Cyan));
    assert_eq!(race, Some(Color::Green));
    assert_eq!(race_again, race);
    assert_eq!(nightly, Some(Color::Magenta));
    assert_eq!(ben, Some(Color::Yellow));
    // NO_COLOR and ASCII: not one colored cell, and only ASCII.
    for plain in [
        screen(&mut files_app(Theme::plain())?, 80, 24)?,
        screen(&mut files_app(Theme::plain())?, 40, 24)?,
        screen(&mut blame_app(Theme::plain())?, 80, 24)?,
        screen(&mut blame_app(Theme::plain())?, 40, 24)?,
    ] {
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
fn keys_open_files_provenance_and_blame_and_go_back() -> TestResult {
    let mut app = race_open(Theme::default())?;
    assert_eq!(app.context(), Context::Chat);
    // F in the chat pane: that chat's files.
    assert_eq!(
        app.on_key(ch('F')),
        Some(Action::LoadTouched {
            project_slug: "webapp".into(),
            session_id: RACE.into(),
        })
    );
    assert_eq!(app.context(), Context::Files);
    app.view_mut::<FilesView>()
        .ok_or("Files did not open")?
        .set(touched());
    // The newest turn first: the cursor starts on its first file.
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::LoadProvenance {
            project_slug: "webapp".into(),
            path: PATH.into(),
        })
    );
    assert_eq!(app.context(), Context::Provenance);
    // b in the provenance panel: the file's blame, over it.
    assert_eq!(
        app.on_key(ch('b')),
        Some(Action::LoadBlame {
            project_slug: "webapp".into(),
            path: PATH.into(),
        })
    );
    assert_eq!(app.context(), Context::Blame);
    // Global keys that would open another view under the blame do nothing there.
    assert_eq!(app.on_key(ch('H')), None);
    assert!(!app.history.is_open());
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.context(), Context::Provenance);
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.context(), Context::Files);
    // b in Files: the cursor's file.
    app.on_key(ch('j'));
    assert_eq!(
        app.on_key(ch('b')),
        Some(Action::LoadBlame {
            project_slug: "webapp".into(),
            path: "dist/bundle.js".into(),
        })
    );
    app.on_key(key(KeyCode::Esc));
    // t narrows to the cursor's turn; r reads the files again.
    assert_eq!(app.on_key(ch('t')), None);
    let only = app.view::<FilesView>().and_then(FilesView::only_turn);
    assert_eq!(only, Some("0193f5a0-1c2d-7e3f-8a4b-9c0d1e2f3a4b"));
    let reload = Some(Action::LoadTouched {
        project_slug: "webapp".into(),
        session_id: RACE.into(),
    });
    assert_eq!(app.on_key(ch('r')), reload);
    assert_eq!(
        app.on_key(KeyEvent::new(KeyCode::Char('l'), KeyModifiers::CONTROL)),
        reload
    );
    // Esc closes it: the chat pane has the keys again; F from the tree takes its cursor's chat.
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.context(), Context::Chat);
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.context(), Context::Tree);
    app.on_key(ch('j'));
    assert_eq!(
        app.on_key(ch('F')),
        Some(Action::LoadTouched {
            project_slug: "webapp".into(),
            session_id: NIGHTLY.into(),
        })
    );
    // F closes it again.
    assert_eq!(app.on_key(ch('F')), None);
    assert!(app.view::<FilesView>().is_none());
    Ok(())
}

#[test]
fn files_need_a_chat() -> TestResult {
    let mut app = app(Theme::default());
    assert!(app.tree.select(&RowId::Project("webapp".into())));
    assert_eq!(app.on_key(ch('F')), None);
    assert!(app.view::<FilesView>().is_none());
    assert_eq!(app.notice.text(), Some("put the cursor on a chat"));
    Ok(())
}

#[test]
fn enter_on_a_blamed_line_opens_its_chat() -> TestResult {
    let mut app = blame_app(Theme::default())?;
    // Line 1 is a commit's: Enter says so and stays.
    app.on_key(ch('g'));
    assert_eq!(app.on_key(key(KeyCode::Enter)), None);
    let notice = app.notice.text().unwrap_or_default().to_owned();
    assert!(notice.contains("commit 3f9a2c1"), "{notice}");
    assert_eq!(app.context(), Context::Blame);
    // Line 9 is the nightly chat's: Enter opens it in the tree and the chat pane.
    for _ in 0..8 {
        app.on_key(ch('j'));
    }
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Open {
            project_slug: "webapp".into(),
            session_id: NIGHTLY.into(),
        })
    );
    assert!(app.view::<BlameView>().is_none() && app.view::<FilesView>().is_none());
    assert_eq!(app.context(), Context::Chat);
    assert_eq!(
        app.tree.cursor_chat().map(|c| c.session_id.as_str()),
        Some(NIGHTLY)
    );
    // A chat the tree does not list: the blame stays, and says why.
    let mut app = blame_app(Theme::default())?;
    let mut unknown = blame();
    unknown.regions[1] = region(5, 7, step("0000aaaa-gone", "Deleted chat", "Edit"));
    let view = app.view_mut::<BlameView>().ok_or("no blame")?;
    view.set(Box::new(unknown));
    assert_eq!(app.on_key(key(KeyCode::Enter)), None);
    assert!(app.view::<BlameView>().is_some());
    assert!(
        app.notice
            .text()
            .is_some_and(|n| n.contains("not in the tree"))
    );
    Ok(())
}

#[test]
fn answers_for_another_file_or_chat_are_dropped() {
    let mut blame = BlameView::new("webapp".into(), PATH.into());
    assert!(!blame.is_for("webapp", "other.ts"));
    assert!(blame.blame().is_none());
    blame.set(Box::new(Blame {
        lines: Vec::new(),
        regions: Vec::new(),
        ..self::blame()
    }));
    assert!(blame.blame().is_some_and(|b| b.lines.is_empty()));
    let files = FilesView::new("webapp".into(), RACE.into(), "Race".into());
    assert!(!files.is_for("webapp", NIGHTLY));
    assert!(!files.is_for("other", RACE));
}
