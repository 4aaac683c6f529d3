//! The Changes view (`D`) and the provenance panel as `insta` snapshots on ratatui's
//! `TestBackend` at 80x24 and 40x24 (Unicode and the plain ASCII, no-color theme), and how
//! their keys turn into requests: the scope cycling, the diff of the cursor's file, the
//! provenance of a file, a commit with the message typed on the bottom line, and a push (`P`).

use paddock_proto::GitPushed;
use paddock_tui::tui::app::Action;
use paddock_tui::tui::changes::{ChangesView, Scope};
use paddock_tui::tui::keys::Context;
use paddock_tui::tui::theme::Theme;
use paddock_tui::tui::tree::RowId;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Color;

mod fixtures;
use fixtures::changes::*;

#[test]
fn changes_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut changes_app(Theme::default()), 80, 24)?);
    Ok(())
}

#[test]
fn changes_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut changes_app(Theme::default()), 40, 24)?);
    Ok(())
}

#[test]
fn changes_plain_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut changes_app(Theme::plain()), 80, 24)?);
    Ok(())
}

#[test]
fn changes_plain_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut changes_app(Theme::plain()), 40, 24)?);
    Ok(())
}

#[test]
fn changes_not_a_repo_80x24() -> TestResult {
    let mut app = app(Theme::default());
    let mut view = ChangesView::new("webapp".into(), Some(RACE.into()), "Investigate".into());
    view.set_status(not_a_repo());
    app.show(view);
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn changes_not_a_repo_plain_40x24() -> TestResult {
    let mut app = app(Theme::plain());
    let mut view = ChangesView::new("webapp".into(), None, String::new());
    view.set_status(not_a_repo());
    app.show(view);
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn changes_commit_message_80x24() -> TestResult {
    let mut app = changes_app(Theme::default());
    app.on_key(ch('c'));
    for c in "Fix the cookie refresh race".chars() {
        app.on_key(ch(c));
    }
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

/// `P` pushes the project: `pushing…` on the status line, then what the push did.
#[test]
fn changes_pushed_80x24() -> TestResult {
    let mut app = changes_app(Theme::default());
    if let Some(view) = app.view_mut::<ChangesView>() {
        view.set_status(status());
    }
    assert_eq!(
        app.on_key(ch('P')),
        Some(Action::Push {
            project_slug: "webapp".into(),
        })
    );
    insta::assert_snapshot!("changes_pushing_80x24", screen(&mut app, 80, 24)?);
    app.push_answered(Ok(&pushed()));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

fn pushed() -> GitPushed {
    GitPushed {
        project_slug: "webapp".into(),
        data_root: false,
        branch: "main".into(),
        remote: "origin".into(),
        remote_branch: "main".into(),
        from: Some("3f9a2c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39".into()),
        to: "8d1e4b7a0c9f2e3d5b6a7c8e9f0a1b2c3d4e5f60".into(),
        up_to_date: false,
        set_upstream: false,
    }
}

#[test]
fn p_pushes_once_at_a_time_and_says_what_came_of_it() -> TestResult {
    let mut app = changes_app(Theme::default());
    assert_eq!(
        app.on_key(ch('P')),
        Some(Action::Push {
            project_slug: "webapp".into(),
        })
    );
    assert_eq!(app.notice.text(), Some("pushing webapp…"));
    // A second P while the first is under way does nothing.
    assert_eq!(app.on_key(ch('P')), None);
    app.push_answered(Err(
        "origin has commits that main does not (fetch first): pull (or rebase) first, then push again; nothing was pushed",
    ));
    let notice = app.notice.text().unwrap_or_default().to_owned();
    assert!(
        notice.starts_with("push failed: origin has commits") && notice.contains("pull"),
        "{notice}"
    );
    // Answered: P pushes again.
    assert!(app.on_key(ch('P')).is_some());
    let mut first = pushed();
    first.from = None;
    first.set_upstream = true;
    app.push_answered(Ok(&first));
    assert_eq!(
        app.notice.text(),
        Some("Pushed main to origin/main (new branch at 8d1e4b7); main now tracks origin/main")
    );
    app.on_key(ch('P'));
    let mut same = pushed();
    same.up_to_date = true;
    app.push_answered(Ok(&same));
    assert_eq!(
        app.notice.text(),
        Some("origin/main is up to date with main (8d1e4b7); nothing to push")
    );
    assert_eq!(app.context(), Context::Changes);
    Ok(())
}

#[test]
fn provenance_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut with_provenance(Theme::default()), 80, 24)?);
    Ok(())
}

#[test]
fn provenance_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut with_provenance(Theme::default()), 40, 24)?);
    Ok(())
}

#[test]
fn provenance_plain_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut with_provenance(Theme::plain()), 80, 24)?);
    Ok(())
}

#[test]
fn provenance_plain_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut with_provenance(Theme::plain()), 40, 24)?);
    Ok(())
}

/// The color of the first cell of the row whose text starts with `prefix`.
fn row_fg(screen: &TestBackend, prefix: &str) -> Option<Color> {
    let buffer = screen.buffer();
    let width = usize::from(buffer.area.width);
    buffer.content().chunks(width).find_map(|row| {
        let text: String = row.iter().map(|c| c.symbol()).collect();
        text.starts_with(prefix).then(|| row[0].fg)
    })
}

#[test]
fn diff_lines_and_statuses_are_colored() -> TestResult {
    let colored = screen(&mut changes_app(Theme::default()), 80, 24)?;
    assert_eq!(row_fg(&colored, "+  if"), Some(Color::Green));
    assert_eq!(row_fg(&colored, "-  if"), Some(Color::Red));
    let panel = screen(&mut with_provenance(Theme::default()), 80, 24)?;
    let stale = panel
        .buffer()
        .content()
        .iter()
        .find(|c| c.symbol() == "S")
        .map(|c| c.fg);
    assert_eq!(stale, Some(Color::Red), "Stale is red");
    // NO_COLOR: not one colored cell, and only ASCII.
    for plain in [
        screen(&mut changes_app(Theme::plain()), 80, 24)?,
        screen(&mut with_provenance(Theme::plain()), 80, 24)?,
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
fn keys_open_scope_diff_provenance_and_commit() -> TestResult {
    let mut app = app(Theme::default());
    assert!(app.tree.select(&RowId::Chat {
        project: "webapp".into(),
        session_id: RACE.into(),
    }));
    // D on the cursor's chat: its changes.
    assert_eq!(
        app.on_key(ch('D')),
        Some(Action::LoadChanges {
            project_slug: "webapp".into(),
            scope: Scope::Chat(RACE.into()),
        })
    );
    assert_eq!(app.context(), Context::Changes);
    // s: the subtree, then the project, then the chat again.
    assert_eq!(
        app.on_key(ch('s')),
        Some(Action::LoadChanges {
            project_slug: "webapp".into(),
            scope: Scope::Subtree(RACE.into()),
        })
    );
    app.on_key(ch('s'));
    assert_eq!(
        app.on_key(ch('s')),
        Some(Action::LoadChanges {
            project_slug: "webapp".into(),
            scope: Scope::Chat(RACE.into()),
        })
    );
    let view = app.view_mut::<ChangesView>().ok_or("Changes is not open")?;
    view.set_status(status());
    assert_eq!(view.wanted_diff(), Some("src/auth/cookie.ts"));
    // j: the next file's diff.
    assert_eq!(
        app.on_key(ch('j')),
        Some(Action::LoadDiff {
            project_slug: "webapp".into(),
            scope: Scope::Chat(RACE.into()),
            path: "src/auth/session.ts".into(),
        })
    );
    // Enter: the file's provenance; Esc back to Changes.
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::LoadProvenance {
            project_slug: "webapp".into(),
            path: "src/auth/session.ts".into(),
        })
    );
    assert_eq!(app.context(), Context::Provenance);
    assert_eq!(app.on_key(ch('j')), None);
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.context(), Context::Changes);
    // c: a message line; q types, Esc cancels, nothing is sent.
    app.on_key(ch('c'));
    assert_eq!(app.on_key(ch('q')), None);
    assert_eq!(app.on_key(key(KeyCode::Esc)), None);
    assert_eq!(app.context(), Context::Changes);
    app.on_key(ch('c'));
    app.on_paste("Fix the race\nignored");
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Commit {
            project_slug: "webapp".into(),
            scope: Scope::Chat(RACE.into()),
            message: "Fix the race".into(),
        })
    );
    // D closes it; the tree has the keys again.
    assert_eq!(app.on_key(ch('D')), None);
    assert!(app.view::<ChangesView>().is_none());
    assert_eq!(app.context(), Context::Tree);
    Ok(())
}

#[test]
fn changes_open_on_the_open_chat_from_the_chat_pane() -> TestResult {
    let mut app = app(Theme::default());
    assert!(app.tree.select(&RowId::Chat {
        project: "webapp".into(),
        session_id: RACE.into(),
    }));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.context(), Context::Chat);
    // The cursor moves on in the tree; the chat pane's chat is what D is about.
    app.tree.move_by(-1);
    assert_eq!(
        app.on_key(ch('D')),
        Some(Action::LoadChanges {
            project_slug: "webapp".into(),
            scope: Scope::Chat(RACE.into()),
        })
    );
    let label = app.view::<ChangesView>().map(ChangesView::scope_label);
    assert_eq!(
        label.as_deref(),
        Some("chat \"Investigate cookie refresh race\"")
    );
    // Esc closes it and the chat pane has the keys again.
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.context(), Context::Chat);
    Ok(())
}

#[test]
fn on_a_project_row_the_scope_is_the_project() -> TestResult {
    let mut app = app(Theme::default());
    assert!(app.tree.select(&RowId::Project("webapp".into())));
    assert_eq!(
        app.on_key(ch('D')),
        Some(Action::LoadChanges {
            project_slug: "webapp".into(),
            scope: Scope::Project,
        })
    );
    // s stays on the project: there is no chat to narrow to.
    app.on_key(ch('s'));
    assert_eq!(
        app.view::<ChangesView>().map(|c| c.scope().clone()),
        Some(Scope::Project)
    );
    Ok(())
}
