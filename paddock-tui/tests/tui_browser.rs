//! The file browser (`B`) as `insta` snapshots on ratatui's `TestBackend` at 80x24 and 40x24
//! (Unicode and the plain ASCII, no-color theme), built from constructed `file_listing` and
//! `file_text` replies, and how its keys turn into requests: a directory's listing, the cursor
//! file's preview, its provenance and blame; a stale answer is dropped.

use paddock_tui::tui::app::Action;
use paddock_tui::tui::browser_view::BrowserView;
use paddock_tui::tui::keys::Context;
use paddock_tui::tui::theme::Theme;
use paddock_tui::tui::tree::RowId;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Color;

mod fixtures;
use fixtures::browser::*;

#[test]
fn browser_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut browser_app(Theme::default())?, 80, 24)?);
    Ok(())
}

#[test]
fn browser_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut browser_app(Theme::default())?, 40, 24)?);
    Ok(())
}

#[test]
fn browser_plain_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut browser_app(Theme::plain())?, 80, 24)?);
    Ok(())
}

#[test]
fn browser_plain_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut browser_app(Theme::plain())?, 40, 24)?);
    Ok(())
}

/// Down in `src/`: a truncated listing, a binary file's preview.
#[test]
fn browser_subdirectory_binary_80x24() -> TestResult {
    let mut app = browser_app(Theme::default())?;
    app.on_key(ch('k'));
    app.on_key(key(KeyCode::Enter));
    let view = app.view_mut::<BrowserView>().ok_or("closed")?;
    view.set(src());
    app.on_key(key(KeyCode::End));
    let mut png = text("src/logo.png", "");
    png.size = 48_213;
    png.binary = true;
    app.view_mut::<BrowserView>()
        .ok_or("closed")?
        .set_preview("webapp", "src/logo.png", Ok(png));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn browser_error_40x24() -> TestResult {
    let mut app = app(Theme::default());
    app.tree.select(&RowId::Project("webapp".into()));
    app.on_key(ch('B'));
    app.view_mut::<BrowserView>()
        .ok_or("the browser did not open")?
        .set_error("the project's directory /home/me/src/webapp cannot be read".into());
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn plain_is_ascii_without_colour() -> TestResult {
    for plain in [
        screen(&mut browser_app(Theme::plain())?, 80, 24)?,
        screen(&mut browser_app(Theme::plain())?, 40, 24)?,
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
fn keys_list_descend_preview_and_open_provenance_and_blame() -> TestResult {
    let mut app = app(Theme::default());
    app.tree.select(&RowId::Project("webapp".into()));
    assert_eq!(
        app.on_key(ch('B')),
        Some(Action::LoadListing {
            project_slug: "webapp".into(),
            path: String::new(),
            hidden: false,
        })
    );
    assert_eq!(app.context(), Context::Browser);
    app.view_mut::<BrowserView>().ok_or("closed")?.set(top());
    // Moving onto a file asks for its preview; onto a directory, nothing.
    assert_eq!(app.on_key(ch('j')), None);
    assert_eq!(
        app.on_key(ch('j')),
        Some(Action::LoadFileText {
            project_slug: "webapp".into(),
            path: "README.md".into(),
        })
    );
    // p: the provenance panel over the browser; Esc back; b: the blame.
    assert_eq!(
        app.on_key(ch('p')),
        Some(Action::LoadProvenance {
            project_slug: "webapp".into(),
            path: "README.md".into(),
        })
    );
    assert_eq!(app.context(), Context::Provenance);
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.context(), Context::Browser);
    assert_eq!(
        app.on_key(ch('b')),
        Some(Action::LoadBlame {
            project_slug: "webapp".into(),
            path: "README.md".into(),
        })
    );
    assert_eq!(app.context(), Context::Blame);
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.context(), Context::Browser);
    // A symlink leading out: no preview, no provenance.
    app.on_key(ch('G'));
    assert_eq!(app.on_key(ch('p')), None);
    // Into src/ (l), then up again (Backspace): the cursor back on src.
    app.on_key(ch('g'));
    app.on_key(ch('j'));
    assert_eq!(
        app.on_key(ch('l')),
        Some(Action::LoadListing {
            project_slug: "webapp".into(),
            path: "src".into(),
            hidden: false,
        })
    );
    let view = app.view_mut::<BrowserView>().ok_or("closed")?;
    // The answer for the top, late, is not src's: dropped by whoever routes it.
    assert!(!view.is_for("webapp", "", false));
    assert!(view.is_for("webapp", "src", false));
    view.set(src());
    assert_eq!(
        app.on_key(key(KeyCode::Backspace)),
        Some(Action::LoadListing {
            project_slug: "webapp".into(),
            path: String::new(),
            hidden: false,
        })
    );
    let view = app.view_mut::<BrowserView>().ok_or("closed")?;
    view.set(top());
    assert_eq!(
        view.cursor_entry().map(|e| e.name.as_str()),
        Some("src"),
        "the cursor comes back to the directory just left"
    );
    // `.`: dotfiles too, listed again.
    assert_eq!(
        app.on_key(ch('.')),
        Some(Action::LoadListing {
            project_slug: "webapp".into(),
            path: String::new(),
            hidden: true,
        })
    );
    // Esc closes it, B again opens it afresh; B in it closes it too.
    app.on_key(key(KeyCode::Esc));
    assert!(app.view::<BrowserView>().is_none());
    assert_eq!(app.context(), Context::Tree);
    app.on_key(ch('B'));
    assert!(app.view::<BrowserView>().is_some());
    app.on_key(ch('B'));
    assert!(app.view::<BrowserView>().is_none());
    Ok(())
}

#[test]
fn a_stale_preview_is_not_shown() -> TestResult {
    let mut app = browser_app(Theme::default())?;
    // The cursor moves on to package.json before README.md's preview comes again.
    app.on_key(ch('j'));
    app.view_mut::<BrowserView>().ok_or("closed")?.set_preview(
        "webapp",
        "README.md",
        Ok(text("README.md", "STALE TEXT\n")),
    );
    let shown = screen(&mut app, 80, 24)?;
    let all: String = shown
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    assert!(!all.contains("STALE TEXT"));
    assert!(all.contains("Reading"));
    Ok(())
}
