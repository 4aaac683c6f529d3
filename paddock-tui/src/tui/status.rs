//! The status line: a filter being typed, a question waiting for `y`, the composer's path
//! prompt; else what is in force in the tree (marks, the filter, unattended only, flat), always
//! in its own place at the start, then the message (`notice.rs` decides how long it stays), else
//! the key hints of what has the keyboard (the top view's own, History's, or the focused pane's).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Stylize};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use std::time::Instant;

use super::app::{App, Connection, Focus};
use super::keys::Context;
use super::notice::Kind;
use super::theme::{Glyph, Role, Theme};
use super::tree_view;

pub(super) fn render_status(app: &App, frame: &mut Frame<'_>, area: Rect) {
    let theme = &app.theme;
    if let Some(filter) = &app.filter_input {
        let text = if app.filter_selected {
            Span::raw(filter.clone()).reversed()
        } else {
            Span::raw(filter.clone())
        };
        let line = Line::from(vec![
            Span::raw(" /").bold(),
            text,
            Span::raw(theme.glyph(Glyph::TextCursor)).dim(),
            Span::raw(format!(
                "  enter keep {} esc clear",
                theme.glyph(Glyph::Dot)
            ))
            .dim(),
        ]);
        frame.render_widget(line, area);
        return;
    }
    if let Some(prompt) = &app.move_prompt {
        render_move(prompt, theme, frame, area);
        return;
    }
    if let Some(confirm) = &app.confirm {
        // The question, cut so that its answer always shows.
        let tail = "? y/N";
        let room = usize::from(area.width).saturating_sub(tail.width() + 1);
        let question = tree_view::truncate(&theme.words(&confirm.question), room, theme);
        let style = theme.style(Role::Warning).add_modifier(Modifier::BOLD);
        let line = Line::from(vec![
            Span::styled(format!(" {question}"), style),
            Span::styled(tail, style),
        ]);
        frame.render_widget(line, area);
        return;
    }
    if app.overlays.is_empty()
        && app.context() == Context::PathPrompt
        && let Some(prompt) = &app.attach_prompt
    {
        prompt.render(theme, frame, area);
        return;
    }
    // What is in force in the tree is drawn first, whatever follows: a message or key hints.
    let state = tree_state(app);
    let line = match (app.notice.shown(Instant::now()), &app.connection) {
        (Some((text, kind)), _) => message(&state, text, kind, theme),
        (None, Connection::Unreachable(_)) => hints(&[], &[("ctrl-l", "retry now"), ("q", "quit")]),
        (None, Connection::Stopped(_)) => hints(&[], &[("R", "start paddockd"), ("q", "quit")]),
        (None, Connection::Connecting) => hints(&[], &[("q", "quit")]),
        (None, _) if app.overlays.top().is_some() => hints(
            &state,
            &app.overlays.top().map(|v| v.hints()).unwrap_or_default(),
        ),
        (None, _) if app.history.is_open() => hints(
            &state,
            &[
                ("enter", "open"),
                ("U", "unattended/all"),
                ("esc", "close"),
                ("?", "keys"),
            ],
        ),
        (None, _) => pane_hints(app, &state),
    };
    frame.render_widget(line, area);
}

/// The message after what is in force: an error in its colour (with how to dismiss it), a
/// state that lasts as a warning, information plain.
fn message(state: &[String], text: &str, kind: &Kind, theme: &Theme) -> Line<'static> {
    let mut spans = state_spans(state);
    // Words made elsewhere (a daemon's sentence, "forking …") in this theme's glyphs.
    let text = theme.words(text).into_owned();
    match kind {
        Kind::Error => {
            spans.push(Span::styled(text, theme.style(Role::Error)));
            spans.push(Span::raw("  esc dismisses").dim());
        }
        Kind::While(_) => spans.push(Span::styled(text, theme.style(Role::Warning))),
        Kind::Info => spans.push(Span::raw(text)),
    }
    Line::from(spans)
}

/// The start of the status line: what is in force, in bold.
fn state_spans(state: &[String]) -> Vec<Span<'static>> {
    let mut spans = vec![Span::raw(" ")];
    for s in state {
        spans.push(Span::raw(format!("{s}  ")).bold());
    }
    spans
}

/// The status line: what is in force (marks, filters), then key hints.
fn hints(state: &[String], keys: &[(&str, &str)]) -> Line<'static> {
    let mut spans = state_spans(state);
    for (key, what) in keys {
        spans.push(Span::raw((*key).to_owned()).bold());
        spans.push(Span::raw(format!(" {what}  ")).dim());
    }
    Line::from(spans)
}

/// The hints of the focused pane.
fn pane_hints(app: &App, state: &[String]) -> Line<'static> {
    match app.focus {
        Focus::Composer => {
            // A new chat's own choice first: where it works (Alt-p, preloading, is in `?`).
            let new_chat = matches!(
                app.composer.target(),
                crate::tui::composer::Target::NewChat { .. }
            );
            let mut keys = vec![("enter", "send")];
            if new_chat {
                keys.push(("alt-w", "worktree"));
            }
            keys.extend([("alt-enter", "newline"), ("ctrl-o", "model")]);
            if new_chat {
                // Esc before what a narrow line can lose.
                keys.push(("esc", "leave"));
            }
            keys.push(("ctrl-t", "attach"));
            if !app.composer.attachments().is_empty() {
                keys.push(("alt-t", "drop file"));
            }
            if !new_chat {
                keys.push(("esc", "leave"));
            }
            hints(state, &keys)
        }
        Focus::Chat => {
            let mut keys = vec![("j/k", "items"), ("o", "expand")];
            if app
                .chat
                .as_ref()
                .is_some_and(|c| !c.cursor_attachments().is_empty())
            {
                keys.push(("a", "view file"));
            }
            keys.extend([
                ("i", "write"),
                ("J", "sender"),
                ("x", "cancel"),
                ("tab", "tree"),
                ("?", "keys"),
            ]);
            hints(state, &keys)
        }
        Focus::Tree => tree_hints(app, state),
    }
}

/// What is in force in the tree: a pending `S`, an open range, the marks, the filter,
/// unattended only, the flat list.
fn tree_state(app: &App) -> Vec<String> {
    let tree = &app.tree;
    let mut state = Vec::new();
    let marked = tree.marked_count();
    if app.subtree_pending {
        state.push("subtree:".to_owned());
    }
    if tree.range_open() {
        state.push("range: v to mark".to_owned());
    }
    if marked > 0 {
        state.push(format!("{marked} marked"));
    }
    if let Some(filter) = tree.filter() {
        state.push(format!("/{filter}"));
    }
    if tree.unattended_only() {
        state.push("unattended".to_owned());
    }
    if tree.flat() {
        state.push("flat".to_owned());
    }
    state
}

/// The tree's hints: the keys for the cursor's row (or the marks), after what is in force.
fn tree_hints(app: &App, state: &[String]) -> Line<'static> {
    let tree = &app.tree;
    let marked = tree.marked_count();
    let on_group = tree.cursor_on_group();
    let keys: &[(&str, &str)] = if marked > 0 || tree.range_open() {
        &[
            ("a", "archive"),
            ("s", "star"),
            ("esc", "clear"),
            ("?", "keys"),
        ]
    } else if on_group {
        &[
            ("j/k", "move"),
            ("h/l", "hide/show archived"),
            ("?", "keys"),
        ]
    } else if tree.cursor_on_archived_chat() {
        &[
            ("j/k", "move"),
            ("enter", "open"),
            ("A", "unarchive"),
            ("X", "delete"),
            ("?", "keys"),
        ]
    } else {
        &[
            ("j/k", "move"),
            ("enter", "open"),
            ("N", "new"),
            ("h/l", "fold"),
            ("H", "history"),
            ("?", "keys"),
        ]
    };
    hints(state, keys)
}

/// The move prompt (`M`): the question and the line, then what Tab, Enter and Esc do when
/// there is room for them, or why Enter did not take the line.
fn render_move(prompt: &super::app::MovePrompt, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let asked = prompt.question();
    let question = theme.words(&asked);
    let width = usize::from(area.width);
    let used = 1 + question.width() + prompt.input.width() + 1;
    let tail = match &prompt.error {
        Some(e) => Span::styled(format!("  {e}"), theme.style(Role::Error)),
        None if prompt.new_project => {
            Span::styled("  a new project".to_owned(), theme.style(Role::Warning))
        }
        None if prompt.not_a_slug => Span::styled(
            "  not a slug: lower-case letters, digits, - _ .".to_owned(),
            theme.style(Role::Error),
        ),
        None => {
            let dot = theme.glyph(Glyph::Dot);
            let hints = format!("  tab projects {dot} enter move {dot} esc leave it");
            let hints = if used + hints.width() <= width {
                hints
            } else {
                String::new()
            };
            Span::raw(hints).dim()
        }
    };
    let room = width.saturating_sub(prompt.input.width() + tail.content.width() + 2);
    let question = tree_view::truncate(&question, room, theme);
    let line = Line::from(vec![
        Span::raw(format!(" {question}")).bold(),
        Span::raw(prompt.input.clone()),
        Span::raw(theme.glyph(Glyph::TextCursor)).dim(),
        tail,
    ]);
    frame.render_widget(line, area);
}
