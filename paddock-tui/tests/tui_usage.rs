//! The Usage view (`$`) as `insta` snapshots on ratatui's `TestBackend` at 80x24 and 40x24
//! (colours, and the plain ASCII, no-colour theme), built from constructed chat lists (no
//! daemon), and how its keys turn into requests: `$` reading the active chats, `a` moving the
//! scope to archived and all (each a `chat:list` of that scope), `s` narrowing to a subtree,
//! Enter opening a chat.

use paddock_proto::{ChatList, ChatScope};
use paddock_tui::tui::app::{Action, Focus};
use paddock_tui::tui::keys::Context;
use paddock_tui::tui::theme::Theme;
use paddock_tui::tui::usage_view::{UsageScope, UsageView, list_request};
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Color;

mod fixtures;
use fixtures::usage::*;

#[test]
fn usage_80x24() -> TestResult {
    let mut app = usage_app(Theme::default())?;
    app.on_key(ch('j'));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn usage_40x24() -> TestResult {
    let mut app = usage_app(Theme::default())?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn usage_plain_80x24() -> TestResult {
    let mut app = usage_app(Theme::plain())?;
    app.on_key(ch('j'));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn usage_plain_40x24() -> TestResult {
    let mut app = usage_app(Theme::plain())?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn usage_all_80x24() -> TestResult {
    let mut app = usage_app(Theme::default())?;
    app.on_key(ch('a'));
    app.on_key(ch('a'));
    usage_answered(&mut app, UsageScope::All, Ok(all()));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn usage_subtree_80x24() -> TestResult {
    let mut app = usage_app(Theme::default())?;
    // The cursor on the costliest chat, the manager: its subtree, archived chats left out.
    let action = app.on_key(ch('s'));
    assert_eq!(action, Some(Action::LoadUsage(UsageScope::All)));
    usage_answered(&mut app, UsageScope::All, Ok(all()));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn usage_subtree_40x24() -> TestResult {
    let mut app = usage_app(Theme::default())?;
    app.on_key(ch('s'));
    usage_answered(&mut app, UsageScope::All, Ok(all()));
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn usage_reading_and_failed_40x24() -> TestResult {
    let mut app = app(Theme::default());
    app.on_key(ch('$'));
    let reading = format!("{}", screen(&mut app, 40, 24)?);
    assert!(reading.contains("Reading the chat list…"), "{reading}");
    usage_answered(
        &mut app,
        UsageScope::Active,
        Err("paddockd: the chat list is not ready yet".into()),
    );
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn usage_empty_archived_80x24() -> TestResult {
    let mut app = usage_app(Theme::default())?;
    app.on_key(ch('a'));
    usage_answered(&mut app, UsageScope::Archived, Ok(Vec::new()));
    let text = format!("{}", screen(&mut app, 80, 24)?);
    assert!(text.contains("No archived chats."), "{text}");
    assert!(
        text.contains("a counts active, archived or all chats."),
        "{text}"
    );
    Ok(())
}

#[test]
fn the_scope_key_asks_for_that_scope() -> TestResult {
    let mut app = usage_app(Theme::default())?;
    assert_eq!(app.context(), Context::Usage);
    let asked: Vec<Option<Action>> = (0..3).map(|_| app.on_key(ch('a'))).collect();
    assert_eq!(
        asked,
        [
            Some(Action::LoadUsage(UsageScope::Archived)),
            Some(Action::LoadUsage(UsageScope::All)),
            Some(Action::LoadUsage(UsageScope::Active)),
        ]
    );
    // The requests: every project's chats of that scope.
    let want = [
        (UsageScope::Active, ChatScope::Active),
        (UsageScope::Archived, ChatScope::Archived),
        (UsageScope::All, ChatScope::All),
    ];
    for (scope, proto) in want {
        assert_eq!(
            list_request(scope),
            ChatList {
                project_slug: None,
                scope: proto,
                since: None,
                full_titles: false,
            }
        );
    }
    // An answer to a list no longer wanted is dropped: the view still reads the active list.
    usage_answered(&mut app, UsageScope::All, Ok(all()));
    let usage = app.view::<UsageView>().ok_or("usage closed")?;
    assert!(usage.report().is_none());
    assert_eq!(usage.pending(), Some(UsageScope::Active));
    // r reads again; Esc (or $) closes.
    usage_answered(&mut app, UsageScope::Active, Ok(active()));
    assert_eq!(
        app.on_key(ch('r')),
        Some(Action::LoadUsage(UsageScope::Active))
    );
    assert_eq!(app.on_key(key(KeyCode::Esc)), None);
    assert!(app.view::<UsageView>().is_none());
    app.on_key(ch('$'));
    assert!(app.view::<UsageView>().is_some());
    app.on_key(ch('$'));
    assert!(app.view::<UsageView>().is_none());
    Ok(())
}

#[test]
fn the_figures_are_those_of_paddock_usage() -> TestResult {
    let app = usage_app(Theme::default())?;
    let report = app
        .view::<UsageView>()
        .and_then(|u| u.report())
        .ok_or("no report")?;
    assert_eq!(report, &paddock_tui::format::usage_report(&active()));
    assert_eq!(report.total.chats, 5);
    assert_eq!(report.total.measured, 4);
    assert_eq!(report.chats[0].session_id, "s-manager", "costliest first");
    Ok(())
}

#[test]
fn enter_opens_the_chat_and_closes_the_view() -> TestResult {
    let mut app = usage_app(Theme::default())?;
    app.on_key(ch('j'));
    app.on_key(ch('j'));
    let action = app.on_key(key(KeyCode::Enter));
    assert_eq!(
        action,
        Some(Action::Open {
            project_slug: "webapp".into(),
            session_id: "s-logs".into(),
        })
    );
    assert!(app.view::<UsageView>().is_none());
    assert_eq!(app.focus, Focus::Chat);
    assert_eq!(
        app.tree.cursor_chat().map(|c| c.session_id.as_str()),
        Some("s-logs")
    );
    Ok(())
}

#[test]
fn plain_usage_has_no_colour_and_only_ascii() -> TestResult {
    for (width, height) in [(80, 24), (40, 24)] {
        let mut app = usage_app(Theme::plain())?;
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
fn the_chat_header_shows_its_tokens_cost_and_context() -> TestResult {
    let mut app = app(Theme::default());
    app.tree.select(&paddock_tui::tui::tree::RowId::Chat {
        project: "webapp".into(),
        session_id: "s-manager".into(),
    });
    app.on_key(key(KeyCode::Enter));
    let text = format!("{}", screen(&mut app, 120, 24)?);
    assert!(text.contains("1.3M tok · $4.87 · 48%"), "{text}");
    // The list moves on (a turn ended): the header follows.
    let mut chats = active();
    if let Some(u) = chats[0].usage.as_mut() {
        u.cost_usd = 5.5;
    }
    app.set_project_chats("webapp".into(), chats.into_iter().take(3).collect());
    let text = format!("{}", screen(&mut app, 120, 24)?);
    assert!(text.contains("1.3M tok · $5.50 · 48%"), "{text}");
    // Narrow: left out.
    let text = format!("{}", screen(&mut app, 40, 24)?);
    assert!(!text.contains("tok"), "{text}");
    Ok(())
}
