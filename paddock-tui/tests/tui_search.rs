//! The search view (`Ctrl-F`, `/` in the chat pane) as `insta` snapshots on ratatui's
//! `TestBackend` at 80x24 and 40x24 (Unicode and the plain ASCII, no-color theme), built from
//! constructed `search_results` replies (the daemon's index is not needed), and how its keys turn
//! into requests: typing and Enter asking the search, moving over the matches, Enter opening
//! the chat at the match's transcript entry (at the top of the chat pane, marked).

use paddock_proto::{Origin, Request, SearchField, SearchRequest, Transcript, TranscriptEntry};
use paddock_tui::tui::app::{Action, App, Focus};
use paddock_tui::tui::keys::Context;
use paddock_tui::tui::search_view::SearchView;
use paddock_tui::tui::theme::{Role, Theme};
use paddock_tui::tui::tree::RowId;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::{Color, Modifier};
use serde_json::json;

mod fixtures;
use fixtures::search::*;

#[test]
fn search_prompt_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut prompt_app(Theme::default()), 80, 24)?);
    Ok(())
}

#[test]
fn search_prompt_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut prompt_app(Theme::default()), 40, 24)?);
    Ok(())
}

#[test]
fn search_results_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut results_app(Theme::default())?, 80, 24)?);
    Ok(())
}

#[test]
fn search_results_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut results_app(Theme::default())?, 40, 24)?);
    Ok(())
}

#[test]
fn search_results_plain_80x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut results_app(Theme::plain())?, 80, 24)?);
    Ok(())
}

#[test]
fn search_results_plain_40x24() -> TestResult {
    insta::assert_snapshot!(screen(&mut results_app(Theme::plain())?, 40, 24)?);
    Ok(())
}

#[test]
fn search_indexing_80x24() -> TestResult {
    insta::assert_snapshot!(screen(
        &mut answered(Theme::default(), Ok(indexing()))?,
        80,
        24
    )?);
    Ok(())
}

#[test]
fn search_indexing_40x24() -> TestResult {
    insta::assert_snapshot!(screen(
        &mut answered(Theme::default(), Ok(indexing()))?,
        40,
        24
    )?);
    Ok(())
}

#[test]
fn search_error_80x24() -> TestResult {
    insta::assert_snapshot!(screen(
        &mut answered(Theme::default(), Err(REFUSED.into()))?,
        80,
        24
    )?);
    Ok(())
}

#[test]
fn search_error_40x24() -> TestResult {
    insta::assert_snapshot!(screen(
        &mut answered(Theme::default(), Err(REFUSED.into()))?,
        40,
        24
    )?);
    Ok(())
}

#[test]
fn search_empty_80x24() -> TestResult {
    insta::assert_snapshot!(screen(
        &mut answered(Theme::default(), Ok(empty()))?,
        80,
        24
    )?);
    Ok(())
}

#[test]
fn search_empty_40x24() -> TestResult {
    insta::assert_snapshot!(screen(
        &mut answered(Theme::default(), Ok(empty()))?,
        40,
        24
    )?);
    Ok(())
}

/// The cells of the row whose text contains `needle`, with their text.
fn row_cells(screen: &TestBackend, needle: &str) -> Option<Vec<ratatui::buffer::Cell>> {
    let buffer = screen.buffer();
    let width = usize::from(buffer.area.width);
    buffer.content().chunks(width).find_map(|row| {
        let text: String = row.iter().map(|c| c.symbol()).collect();
        text.contains(needle).then(|| row.to_vec())
    })
}

/// The text of the cells of a row that have `modifier` (or `bg`), runs joined by `|`.
fn styled_runs(
    cells: &[ratatui::buffer::Cell],
    lit: impl Fn(&ratatui::buffer::Cell) -> bool,
) -> String {
    let mut out = String::new();
    let mut prev = false;
    for cell in cells {
        let on = lit(cell);
        if on {
            if !prev && !out.is_empty() {
                out.push('|');
            }
            out.push_str(cell.symbol());
        }
        prev = on;
    }
    out
}

#[test]
fn matches_are_highlighted_in_color_and_bold_brackets_without() -> TestResult {
    let colored = screen(&mut results_app(Theme::default())?, 80, 24)?;
    let row = row_cells(&colored, "two tabs").ok_or("no assistant match row")?;
    assert_eq!(
        styled_runs(&row, |c| c.bg == Color::Yellow),
        "cookie|refresh|refresh",
        "the snippet's highlights, and nothing else"
    );
    let row = row_cells(&colored, "return refreshSession").ok_or("no output match row")?;
    assert_eq!(
        styled_runs(&row, |c| c.bg == Color::Yellow),
        "cookie|refresh"
    );
    // The scheduled chat's badge in its color.
    let nightly = row_cells(&colored, "Nightly backup check").ok_or("no nightly row")?;
    assert!(nightly.iter().any(|c| c.fg == Color::Rgb(245, 158, 11)));
    // NO_COLOR and ASCII: not one colored cell, only ASCII, the matches bracketed and bold.
    for (width, height) in [(80, 24), (40, 24)] {
        let plain = screen(&mut results_app(Theme::plain())?, width, height)?;
        assert!(
            plain
                .buffer()
                .content()
                .iter()
                .all(|c| c.fg == Color::Reset && c.bg == Color::Reset && c.symbol().is_ascii())
        );
    }
    let plain = screen(&mut results_app(Theme::plain())?, 80, 24)?;
    let row = row_cells(&plain, "backup kept").ok_or("no user match row")?;
    assert_eq!(
        styled_runs(&row, |c| c.modifier.contains(Modifier::BOLD)),
        "[cookie]|[refr]"
    );
    Ok(())
}

#[test]
fn typing_and_enter_ask_the_daemon() -> TestResult {
    let mut app = app(Theme::default());
    assert_eq!(app.on_key(ctrl('f')), None);
    assert_eq!(app.context(), Context::SearchQuery);
    // Keys that mean something elsewhere type here.
    typed(&mut app, "q?Hj x");
    app.on_key(key(KeyCode::Backspace));
    app.on_key(key(KeyCode::Backspace));
    app.on_key(key(KeyCode::Home));
    app.on_key(key(KeyCode::Delete));
    let view = app.view::<SearchView>().ok_or("no search view")?;
    assert_eq!((view.query().as_str(), view.caret()), ("?Hj", 0));
    app.on_key(ctrl('k'));
    typed(&mut app, "cookie \"refresh race\"");
    app.on_paste(" tabs\nnot this line");
    let view = app.view::<SearchView>().ok_or("no search view")?;
    assert_eq!(view.query(), "cookie \"refresh race\" tabs");
    let want = asked("cookie \"refresh race\" tabs", false);
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Search(want.clone()))
    );
    assert_eq!(app.context(), Context::Search);
    // The request the event loop sends for it.
    assert_eq!(
        Request::Search(want.request()),
        Request::Search(SearchRequest {
            query: "cookie \"refresh race\" tabs".into(),
            project_slug: None,
            limit: Some(100),
            archived: false,
        })
    );
    // The same query again refreshes; `a` asks again with archived chats.
    assert_eq!(app.on_key(ch('r')), Some(Action::Search(want.clone())));
    assert_eq!(app.on_key(ch('/')), None);
    assert_eq!(app.context(), Context::SearchQuery);
    assert_eq!(app.on_key(key(KeyCode::Enter)), Some(Action::Search(want)));
    assert_eq!(
        app.on_key(ch('a')),
        Some(Action::Search(asked("cookie \"refresh race\" tabs", true)))
    );
    let archived = asked("cookie \"refresh race\" tabs", true);
    assert!(archived.request().archived);
    // An empty query asks nothing.
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.context(), Context::SearchQuery);
    app.on_key(ctrl('u'));
    assert_eq!(app.on_key(key(KeyCode::Enter)), None);
    assert_eq!(app.context(), Context::SearchQuery);
    Ok(())
}

#[test]
fn the_open_keys_and_esc_restore_the_screen() -> TestResult {
    let mut app = app(Theme::default());
    // `/` in the tree is still its filter.
    app.on_key(ch('/'));
    assert!(app.filter_input.is_some() && app.view::<SearchView>().is_none());
    app.on_key(key(KeyCode::Esc));
    // `/` in the chat pane opens the search; Esc goes back to the chat pane.
    assert!(app.tree.select(&RowId::Chat {
        project: "webapp".into(),
        session_id: RACE.into(),
    }));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.context(), Context::Chat);
    app.on_key(ch('/'));
    assert_eq!(app.context(), Context::SearchQuery);
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.context(), Context::Chat);
    assert!(app.view::<SearchView>().is_none());
    // From the Files view, and back to it.
    app.on_key(ch('F'));
    assert_eq!(app.context(), Context::Files);
    app.on_key(ctrl('f'));
    assert_eq!(app.context(), Context::SearchQuery);
    typed(&mut app, "cookie");
    app.on_key(key(KeyCode::Enter));
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.context(), Context::Files);
    // Opening it again shows the last query and its results, the query line first.
    search_answered(&mut app, &asked("cookie", false), Ok(results()));
    app.on_key(ctrl('f'));
    let view = app.view::<SearchView>().ok_or("no search view")?;
    assert_eq!(view.query(), "cookie");
    assert!(view.results().is_some());
    assert_eq!(app.context(), Context::SearchQuery);
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.context(), Context::Search);
    // The help overlay goes over it and lists its keys first.
    app.on_key(ch('?'));
    assert_eq!(app.context(), Context::Help);
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.context(), Context::Search);
    // Keys that would open a view under it do nothing; q still quits.
    assert_eq!(app.on_key(ch('H')), None);
    assert!(!app.history.is_open());
    assert_eq!(app.on_key(ch('q')), Some(Action::Quit));
    Ok(())
}

#[test]
fn answers_to_another_search_are_dropped() -> TestResult {
    let mut app = prompt_app(Theme::default());
    app.on_key(key(KeyCode::Enter));
    search_answered(&mut app, &asked("cookie", false), Ok(results()));
    search_answered(&mut app, &asked("cookie refr", true), Ok(results()));
    let view = app.view::<SearchView>().ok_or("no search view")?;
    assert!(view.results().is_none());
    assert_eq!(view.pending(), Some(&asked("cookie refr", false)));
    Ok(())
}

#[test]
fn j_and_k_walk_the_matches() -> TestResult {
    let mut app = answered(Theme::default(), Ok(results()))?;
    let at = |app: &App| {
        app.view::<SearchView>()
            .and_then(|s| s.cursor_target())
            .map(|(hit, m)| (hit.session_id.clone(), m.map(|m| m.field)))
    };
    assert_eq!(at(&app), Some((RACE.into(), Some(SearchField::Title))));
    app.on_key(ch('j'));
    app.on_key(key(KeyCode::Down));
    assert_eq!(at(&app), Some((RACE.into(), Some(SearchField::ToolResult))));
    app.on_key(ch('j'));
    assert_eq!(at(&app), Some((NIGHTLY.into(), Some(SearchField::User))));
    app.on_key(ch('G'));
    app.on_key(ch('j'));
    assert_eq!(at(&app), Some((OLD.into(), Some(SearchField::ToolUse))));
    app.on_key(ch('k'));
    app.on_key(key(KeyCode::Up));
    assert_eq!(at(&app), Some((RACE.into(), Some(SearchField::ToolResult))));
    app.on_key(ch('g'));
    assert_eq!(at(&app), Some((RACE.into(), Some(SearchField::Title))));
    Ok(())
}

fn user(uuid: &str, text: &str) -> TranscriptEntry {
    TranscriptEntry::User {
        uuid: Some(uuid.into()),
        timestamp: Some("2026-11-03T09:13:58Z".into()),
        text: text.into(),
        attribution: None,
    }
}

fn assistant(text: &str) -> TranscriptEntry {
    TranscriptEntry::Assistant {
        uuid: None,
        timestamp: None,
        text: text.into(),
        model: None,
    }
}

/// The race chat's transcript: entry [`ENTRY`] is the assistant's explanation, far enough
/// down that the chat pane would not show it at its end or its start.
fn transcript() -> Transcript {
    let long = (1..=14)
        .map(|i| format!("Step {i}: read the session code and the test."))
        .collect::<Vec<_>>()
        .join("\n");
    Transcript {
        chat: chat(RACE, "Investigate cookie refresh race", Origin::Human),
        entries: vec![
            user(
                "u0",
                "The cookie refresh races with the login test. Find out why.",
            ),
            assistant(&long),
            TranscriptEntry::ToolUse {
                tool_use_id: "t1".into(),
                name: "Grep".into(),
                input: json!({"pattern": "refreshSession"}),
            },
            TranscriptEntry::ToolUse {
                tool_use_id: "t2".into(),
                name: "Bash".into(),
                input: json!({"command": "rg -n cookie src/auth"}),
            },
            TranscriptEntry::ToolResult {
                tool_use_id: "t2".into(),
                output: "src/auth/cookie.ts:14:    return refreshSession(session);".into(),
                is_error: false,
            },
            TranscriptEntry::ToolResult {
                tool_use_id: "t1".into(),
                output: "Found 2 files".into(),
                is_error: false,
            },
            assistant(
                "The cookie refresh race happens when two tabs refresh at once, so the second one sends a token the first one already rotated.",
            ),
            user("u1", "Fix it."),
            assistant(&long),
        ],
    }
}

#[test]
fn enter_opens_the_chat_at_the_matched_entry() -> TestResult {
    let mut app = results_app(Theme::default())?;
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Open {
            project_slug: "webapp".into(),
            session_id: RACE.into(),
        })
    );
    assert!(app.view::<SearchView>().is_none());
    assert_eq!(app.focus, Focus::Chat);
    assert_eq!(app.context(), Context::Chat);
    assert_eq!(
        app.tree.cursor_chat().map(|c| c.session_id.as_str()),
        Some(RACE)
    );
    // The transcript arrives (the event loop hydrates the pane): the entry goes to the top.
    let chat = app.chat.as_mut().ok_or("no chat open")?;
    assert_eq!(
        chat.jumped(),
        None,
        "nothing to jump to before the transcript"
    );
    chat.hydrate(&transcript());
    let item = chat
        .entry_item(ENTRY as usize)
        .ok_or("the entry has no item")?;
    // Two tool calls paired with their results: the entry is the fifth item.
    assert_eq!(item, 4);
    assert_eq!(
        chat.entry_item(4),
        Some(3),
        "a result goes to its call's item"
    );
    assert_eq!(chat.jumped(), Some(item));
    assert_eq!(chat.cursor(), Some(item));
    assert!(!chat.following());
    let shown = screen(&mut app, 80, 24)?;
    let chat = app.chat.as_ref().ok_or("no chat open")?;
    assert_eq!(chat.top_item(), Some(item));
    // The pane's first row is the entry's first, marked.
    let split =
        row_cells(&shown, "The cookie refresh race happens").ok_or("the entry is not shown")?;
    assert!(split.iter().any(|c| c.bg == Color::DarkGray));
    let rows: Vec<String> = shown
        .buffer()
        .content()
        .chunks(80)
        .map(|r| r.iter().map(|c| c.symbol()).collect())
        .collect();
    assert!(
        rows.get(2)
            .is_some_and(|r| r.contains("The cookie refresh race happens")),
        "{rows:#?}"
    );
    insta::assert_snapshot!("search_jumped_80x24", shown);
    // The next key in the pane drops the mark.
    app.on_key(ch('j'));
    assert_eq!(app.chat.as_ref().and_then(|c| c.jumped()), None);
    Ok(())
}

#[test]
fn a_tool_output_match_expands_its_call_in_an_open_chat() -> TestResult {
    let mut app = results_app(Theme::default())?;
    // The race chat is open already, its transcript read.
    app.open("webapp".into(), RACE.into());
    app.chat
        .as_mut()
        .ok_or("no chat open")?
        .hydrate(&transcript());
    app.view_mut::<SearchView>().ok_or("no search")?.move_by(1);
    // Already open: nothing to read, the jump is at once.
    assert_eq!(app.on_key(key(KeyCode::Enter)), None);
    let chat = app.chat.as_ref().ok_or("no chat open")?;
    assert_eq!(chat.jumped(), Some(3));
    assert!(matches!(
        chat.items().get(3),
        Some(paddock_tui::tui::chat::Item::Tool(t)) if t.expanded && t.name == "Bash"
    ));
    let shown = screen(&mut app, 40, 24)?;
    assert_eq!(app.chat.as_ref().and_then(|c| c.top_item()), Some(3));
    insta::assert_snapshot!("search_jumped_tool_40x24", shown);
    Ok(())
}

#[test]
fn a_title_match_or_an_unknown_entry_just_opens_the_chat() -> TestResult {
    // The title match (the cursor's first place).
    let mut app = answered(Theme::default(), Ok(results()))?;
    app.on_key(key(KeyCode::Enter));
    let chat = app.chat.as_mut().ok_or("no chat open")?;
    chat.hydrate(&transcript());
    assert_eq!(chat.jumped(), None);
    assert!(chat.following(), "the chat opens at its end as usual");
    // An entry past the transcript's end.
    let mut app = results_app(Theme::default())?;
    app.on_key(key(KeyCode::Enter));
    let chat = app.chat.as_mut().ok_or("no chat open")?;
    let mut short = transcript();
    short.entries.truncate(3);
    chat.hydrate(&short);
    assert_eq!(chat.jumped(), None);
    assert!(chat.following());
    // An archived chat the tree does not list opens all the same, with the hit's title.
    let mut app = answered(Theme::default(), Ok(results()))?;
    app.on_key(ch('G'));
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Open {
            project_slug: String::new(),
            session_id: OLD.into(),
        })
    );
    assert_eq!(
        app.chat.as_ref().map(|c| c.title()),
        Some("Old cookie experiment")
    );
    Ok(())
}

#[test]
fn the_theme_has_a_match_style_in_both_modes() {
    assert_eq!(Theme::default().style(Role::Match).bg, Some(Color::Yellow));
    assert!(
        Theme::plain()
            .style(Role::Match)
            .add_modifier
            .contains(Modifier::BOLD)
    );
}
