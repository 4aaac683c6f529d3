//! The file browser (`B`) as `insta` snapshots on ratatui's `TestBackend` at 80x24 and 40x24
//! (Unicode and the plain ASCII, no-color theme), built from constructed `file_listing` and
//! `file_text` replies, and how its keys turn into requests: a directory's listing, the cursor
//! file's preview, its provenance and blame; a stale answer is dropped.

use paddock_proto::{FileEntry, FileListing, FileText, HelloReply, ProjectInfo};
use paddock_tui::tui::app::{Action, App};
use paddock_tui::tui::browser_view::BrowserView;
use paddock_tui::tui::keys::Context;
use paddock_tui::tui::render;
use paddock_tui::tui::theme::Theme;
use paddock_tui::tui::tree::RowId;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Color;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn app(theme: Theme) -> App {
    let mut app = App::with_theme(theme);
    app.set_connected(HelloReply {
        protocol_version: 1,
        daemon_version: "0.1.0".into(),
        pid: 4242,
        user: "me".into(),
    });
    app.set_projects(vec![ProjectInfo {
        slug: "webapp".into(),
        path: "/home/me/src/webapp".into(),
        created_at: None,
        ..Default::default()
    }]);
    app.set_all_chats(vec![]);
    app
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

fn entry(name: &str, dir: bool, size: u64) -> FileEntry {
    FileEntry {
        name: name.into(),
        dir,
        symlink: false,
        outside: false,
        size,
        mtime: Some("2026-11-03T09:14:31Z".into()),
    }
}

fn top() -> FileListing {
    let mut escape = entry("secrets.env", false, 0);
    escape.symlink = true;
    escape.outside = true;
    escape.mtime = None;
    FileListing {
        project_slug: "webapp".into(),
        path: String::new(),
        entries: vec![
            entry("docs", true, 0),
            entry("src", true, 0),
            entry("README.md", false, 1_204),
            entry("package.json", false, 812),
            escape,
        ],
        truncated: false,
    }
}

fn src() -> FileListing {
    FileListing {
        project_slug: "webapp".into(),
        path: "src".into(),
        entries: vec![
            entry("auth", true, 0),
            entry("index.ts", false, 2_417),
            entry("logo.png", false, 48_213),
        ],
        truncated: true,
    }
}

fn text(path: &str, body: &str) -> FileText {
    FileText {
        project_slug: "webapp".into(),
        path: path.into(),
        size: body.len() as u64,
        mtime: None,
        text: body.into(),
        binary: false,
        truncated: false,
    }
}

const README: &str = "# webapp\n\nThe shop's web front end.\n\n\tnpm install\n\tnpm run dev\n";

/// `B` on the project, its top listed, the cursor on README.md and its preview in.
fn browser_app(theme: Theme) -> Result<App, Box<dyn std::error::Error>> {
    let mut app = app(theme);
    if !app.tree.select(&RowId::Project("webapp".into())) {
        return Err("the project is not in the tree".into());
    }
    let asked = app.on_key(ch('B'));
    if asked.is_none() {
        return Err("B asked for nothing".into());
    }
    let view = app
        .view_mut::<BrowserView>()
        .ok_or("the browser did not open")?;
    view.set(top());
    for _ in 0..2 {
        app.on_key(ch('j'));
    }
    app.view_mut::<BrowserView>().ok_or("closed")?.set_preview(
        "webapp",
        "README.md",
        Ok(text("README.md", README)),
    );
    Ok(app)
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
