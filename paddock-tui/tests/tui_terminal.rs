//! Nothing from content controls the terminal in the TUI: a title, a prompt, a reply, a tool's
//! call and output and a notice holding escape sequences, a carriage return, C1 controls and
//! bidi overrides are drawn with those characters made visible, and no cell of the screen holds
//! one (ratatui writes a cell's symbol to the terminal as it is).

use paddock_proto::{ChatEvent, Notice, NoticeKind, Transcript, TranscriptEntry};
use paddock_tui::tui::render;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::Style;
use serde_json::json;

mod fixtures;
use fixtures::attach::*;

/// The clipboard written, the title set, the screen cleared, a colour, an 8-bit CSI, a line
/// rewritten, text reversed, DEL.
const PAYLOAD: &str =
    "A\x1b]52;c;eA==\x07B\x1b]0;pwned\x07C\x1b[2JD\x1b[31mE\u{9b}2JF\rG\u{202e}H\x7fI";

/// What a terminal would act on: a control (newline and tab included: a cell never holds one)
/// or a bidi override.
fn acts(c: char) -> bool {
    c.is_control()
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// The screen's cells that hold what a terminal would act on, and the screen as text.
fn scan(buffer: &Buffer) -> (Vec<String>, String) {
    let mut bad = Vec::new();
    let mut text = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            let symbol = buffer[(x, y)].symbol();
            if symbol.contains(acts) {
                bad.push(format!("({x},{y}) {symbol:?}"));
            }
            text.push_str(symbol);
        }
        text.push('\n');
    }
    (bad, text)
}

#[test]
fn a_chat_and_its_title_with_escapes_draw_them_visible_and_no_cell_holds_one() -> TestResult {
    let mut app = connected(paddock_tui::tui::theme::Theme::default());
    let mut chats = vec![summary(false)];
    chats[0].title = format!("T {PAYLOAD}");
    app.set_all_chats(chats.clone());
    compose(&mut app, SESSION)?;
    app.on_key(key(KeyCode::Esc));
    let chat = app.chat.as_mut().ok_or("no chat opened")?;
    chat.hydrate(&Transcript {
        chat: chats[0].clone(),
        entries: vec![
            TranscriptEntry::User {
                uuid: Some("u1".into()),
                timestamp: None,
                text: format!("U {PAYLOAD}"),
                attribution: None,
            },
            TranscriptEntry::Assistant {
                uuid: Some("a1".into()),
                timestamp: None,
                text: format!("R {PAYLOAD}"),
                model: None,
            },
            TranscriptEntry::ToolUse {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": format!("printf '{PAYLOAD}'")}),
            },
            TranscriptEntry::ToolResult {
                tool_use_id: "t1".into(),
                output: format!("O {PAYLOAD}"),
                is_error: false,
            },
        ],
    });
    chat.apply(&frame(
        1,
        ChatEvent::Notice(Notice {
            kind: NoticeKind::Info,
            message: format!("N {PAYLOAD}"),
        }),
    ));
    chat.set_running(false);
    chat.set_cursor(Some(2));
    app.on_key(key(KeyCode::Enter));
    let backend = screen(&mut app, 200, 40)?;
    let (bad, text) = scan(backend.buffer());
    assert!(
        bad.is_empty(),
        "cells a terminal would act on: {bad:?}\n{text}"
    );
    let shown = "A␛]52;c;eA==␇B␛]0;pwned␇C␛[2JD␛[31mE\\u{9b}2JF␍G\\u{202e}H␡I";
    for part in ["U ", "R ", "O ", "N ", "$ printf '"] {
        assert!(
            text.contains(&format!("{part}{shown}")),
            "{part:?} is not drawn visible:\n{text}"
        );
    }
    // A title is one line: its carriage return is whitespace, and shows as a space.
    assert!(
        text.contains(&format!("T {}", shown.replace('␍', " "))),
        "the title is not drawn visible:\n{text}"
    );
    Ok(())
}

/// What a view draws without cleaning it still reaches no terminal: the frame's last sweep
/// takes out the controls ratatui leaves in (a bidi override rides on the cell before it).
#[test]
fn the_last_sweep_leaves_no_cell_a_terminal_would_act_on() {
    let mut buffer = Buffer::empty(Rect::new(0, 0, 20, 1));
    let line = ratatui::text::Line::raw("ab\u{202e}cd\u{2067}e\u{1b}[2J");
    ratatui::widgets::Widget::render(&line, buffer.area, &mut buffer);
    assert!(!scan(&buffer).0.is_empty(), "ratatui keeps bidi overrides");
    render::inert(&mut buffer);
    let (bad, text) = scan(&buffer);
    assert!(bad.is_empty(), "{bad:?}");
    assert!(text.starts_with("abcde[2J"), "{text:?}");
    buffer[(0, 0)].set_symbol("\x1b");
    buffer[(1, 0)]
        .set_style(Style::default())
        .set_symbol("x\u{9b}");
    render::inert(&mut buffer);
    assert_eq!(buffer[(0, 0)].symbol(), " ");
    assert_eq!(buffer[(1, 0)].symbol(), "x");
}
