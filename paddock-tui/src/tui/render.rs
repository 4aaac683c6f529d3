//! Drawing the TUI: a pure function of [`App`], so a snapshot of `TestBackend` is the screen.
//! The tree pane is drawn by [`tree_view::render_tree`].

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Padding, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

use super::app::{App, Connection, Focus};
use super::keys::Context;
use super::overlay::DrawCx;
use super::theme::{Glyph, Role, Theme};
use super::tree::{HostState, RowId};
use super::{chat_view, history, tree_view};

/// The screen's three bands: header, chat list, status line.
pub fn layout(area: Rect) -> [Rect; 3] {
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area)
}

/// How many list rows fit on a screen of this size.
pub fn list_height(area: Rect) -> usize {
    usize::from(layout(area)[1].height)
}

pub fn render(app: &mut App, frame: &mut Frame<'_>) {
    let [header, body, status] = layout(frame.area());
    app.width = frame.area().width;
    render_header(app, frame, header);
    let theme = app.theme;
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    match &app.connection {
        Connection::Unreachable(reason) => {
            let reason = reason.clone();
            render_unreachable(
                " paddockd cannot be reached ",
                &reason,
                "Press r to try again, q to quit.",
                &theme,
                frame,
                body,
            );
        }
        Connection::Stopped(message) => {
            let message = message.clone();
            render_unreachable(
                " paddockd stopped ",
                &message,
                "Press R to start it, q to quit.",
                &theme,
                frame,
                body,
            );
        }
        Connection::Connecting if !app.loaded => {
            render_message(
                &format!("Connecting to paddockd{ellipsis}"),
                &theme,
                frame,
                body,
            );
        }
        Connection::Connected(_) if !app.loaded => {
            render_message(&format!("Loading{ellipsis}"), &theme, frame, body);
        }
        _ if !app.overlays.is_empty() || app.history.is_open() => render_view(app, frame, body),
        _ => render_panes(app, frame, body),
    }
    super::status::render_status(app, frame, status);
    // The composer's path prompt lists its matches over the screen, above the status line.
    if app.overlays.is_empty()
        && app.context() == Context::PathPrompt
        && let Some(prompt) = &app.attach_prompt
    {
        prompt.render_list(&theme, frame, status, body);
    }
    // The help goes over everything, the status line included.
    let below = app.context_under_top();
    let cx = DrawCx {
        theme: &theme,
        tick: app.tick,
        tree: &app.tree,
        below,
        screen: frame.area(),
    };
    for view in app.overlays.iter_mut().filter(|v| v.over_screen()) {
        view.render(frame, cx.screen, &cx);
    }
    inert(frame.buffer_mut());
}

/// The last guard before the terminal: a cell holding a character a terminal would act on
/// (`format::is_hidden`: a control, a bidirectional override) loses it. The views lay content
/// out with it made visible (`chat_view::text::clean`, `format::clean_title`); this catches
/// what a view did not clean, so no text reaches the terminal raw (ratatui leaves out most
/// controls but draws the zero-width bidirectional ones).
pub fn inert(buf: &mut ratatui::buffer::Buffer) {
    let acts = |c: char| c.is_control() || crate::format::is_hidden(c);
    for cell in &mut buf.content {
        if cell.symbol().contains(acts) {
            let kept: String = cell.symbol().chars().filter(|&c| !acts(c)).collect();
            cell.set_symbol(if kept.is_empty() { " " } else { &kept });
        }
    }
}

/// The top view over the panes (else History) in the body.
fn render_view(app: &mut App, frame: &mut Frame<'_>, area: Rect) {
    let theme = app.theme;
    let cx = DrawCx {
        theme: &theme,
        tick: app.tick,
        tree: &app.tree,
        below: Context::Global,
        screen: frame.area(),
    };
    if let Some(view) = app.overlays.body_mut() {
        view.render(frame, area, &cx);
    } else if app.history.is_open() {
        app.history.set_tick(app.tick);
        history::render_history(&app.history, &theme, frame, area);
    } else {
        render_panes(app, frame, area);
    }
}

/// The tree and the chat side by side, or (narrow) the focused one alone.
fn render_panes(app: &mut App, frame: &mut Frame<'_>, area: Rect) {
    let theme = app.theme;
    if app.narrow() {
        if app.focus == Focus::Tree || app.chat.is_none() && app.focus != Focus::Composer {
            tree_view::render_tree(&app.tree, &theme, app.tick, frame, area, true);
        } else {
            render_chat_column(app, frame, area);
        }
        return;
    }
    let tree_width = (area.width * 2 / 5).clamp(28, 72);
    let [left, sep, right] = Layout::horizontal([
        Constraint::Length(tree_width),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(area);
    tree_view::render_tree(
        &app.tree,
        &theme,
        app.tick,
        frame,
        left,
        app.focus == Focus::Tree,
    );
    let bar = theme.glyph(Glyph::Bar);
    let column: Vec<Line<'_>> = (0..sep.height)
        .map(|_| Line::styled(bar, theme.style(Role::Dim)))
        .collect();
    frame.render_widget(Paragraph::new(column), sep);
    render_chat_column(app, frame, right);
}

/// The open chat above the composer (a hint when no chat is open).
fn render_chat_column(app: &mut App, frame: &mut Frame<'_>, area: Rect) {
    let theme = app.theme;
    let composer_shown = app.focus == Focus::Composer || app.chat.is_some();
    let composer_height = if composer_shown {
        app.composer.height(area.width).min(area.height / 2)
    } else {
        0
    };
    let [top, bottom] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(composer_height)]).areas(area);
    let down = down_host_at_cursor(app);
    match app.chat.as_mut() {
        Some(chat) => {
            chat_view::render_chat(chat, &theme, app.tick, frame, top, app.focus == Focus::Chat);
        }
        None if let Some((name, reason, last_seen)) = down => {
            let since = last_seen.map_or_else(String::new, |at| {
                format!(", last seen at {}", super::hosts::clock(at))
            });
            render_unreachable(
                &format!(" {name} is down "),
                &format!("{reason}{since}"),
                "paddock tries it again by itself (Ctrl-L: now); its chats stay in the tree, dimmed, until it is back",
                &theme,
                frame,
                top,
            );
        }
        None => {
            let dot = theme.glyph(Glyph::Dot);
            let hint = if top.width >= 44 {
                format!("Enter opens a chat {dot} N starts one {dot} ? keys")
            } else {
                "Enter opens a chat".to_owned()
            };
            render_message(&hint, &theme, frame, top);
        }
    }
    if composer_height > 0 {
        app.composer
            .render(&theme, frame, bottom, app.focus == Focus::Composer);
    }
}

/// The host the tree's cursor is on, when it is down: its name, why, and when it was last seen.
fn down_host_at_cursor(app: &App) -> Option<(String, String, Option<std::time::SystemTime>)> {
    let Some(RowId::Host(root)) = app.tree.cursor_id() else {
        return None;
    };
    let host = app.tree.hosts().iter().find(|h| &h.root == root)?;
    match &host.state {
        HostState::Down { reason, last_seen } => {
            Some((host.name.clone(), reason.clone(), *last_seen))
        }
        HostState::Up | HostState::Connecting => None,
    }
}

/// The header's left end.
const TITLE: &str = " Paddock";

fn render_header(app: &App, frame: &mut Frame<'_>, area: Rect) {
    let theme = &app.theme;
    let bar = if theme.color {
        Style::new().bg(Color::Blue).fg(Color::White)
    } else {
        theme.style(Role::Selected)
    };
    let right = match &app.connection {
        Connection::Connected(daemon) => {
            let dot = format!(" {} ", theme.glyph(Glyph::Dot));
            let mut counts = Vec::new();
            // A turn queued for a free claude process is not counted as running: it waits.
            let queued = app.tree.queued_count();
            let running = app.tree.running_count().saturating_sub(queued);
            if running > 0 {
                counts.push(format!("{running} running"));
            }
            if queued > 0 {
                counts.push(format!("{queued} queued"));
            }
            let unread = app.tree.unread_count();
            if unread > 0 {
                counts.push(format!("{unread} unread"));
            }
            if app.pending_approvals > 0 {
                counts.insert(0, format!("{} waiting (I)", app.pending_approvals));
            }
            // First: how many chats wait for you to act (`n` goes to them).
            let waiting = app.tree.waiting_count();
            if waiting > 0 {
                counts.insert(0, format!("{waiting} need you (n)"));
            }
            // First: a reply streamed now may not be saved.
            if let Some(disk) = app.low_disk.iter().min_by_key(|d| d.free_bytes) {
                counts.insert(
                    0,
                    format!(
                        "disk low: {} free",
                        crate::attachments::human_size(disk.free_bytes)
                    ),
                );
            }
            // Several hosts: how many answer, and first, which do not.
            let hosts = app.tree.hosts();
            let version = if hosts.is_empty() {
                format!("paddockd {}", daemon.daemon_version)
            } else {
                let up = hosts.iter().filter(|h| h.is_up()).count();
                format!("{up}/{} hosts", hosts.len())
            };
            for host in hosts.iter().rev() {
                match host.state {
                    HostState::Up => {}
                    HostState::Connecting => counts.insert(0, format!("{} connecting", host.name)),
                    HostState::Down { .. } => counts.insert(0, format!("{} down", host.name)),
                }
            }
            let full = [version.clone()]
                .into_iter()
                .chain(counts.iter().cloned())
                .collect::<Vec<_>>()
                .join(&dot);
            // The longest that fits beside " Paddock ": everything, the counts, the first.
            let room = usize::from(area.width).saturating_sub(TITLE.width() + 2);
            let text = [
                full,
                counts.join(&dot),
                counts.first().cloned().unwrap_or_default(),
            ]
            .into_iter()
            .find(|t| t.width() <= room)
            .unwrap_or_default();
            Span::raw(format!("{text} "))
        }
        Connection::Connecting => Span::raw(format!("connecting{} ", theme.glyph(Glyph::Ellipsis))),
        Connection::Unreachable(_) => Span::styled(
            "not connected ",
            theme.style(Role::Error).add_modifier(Modifier::BOLD),
        ),
        Connection::Stopped(_) => Span::styled(
            "paddockd stopped ",
            theme.style(Role::Warning).add_modifier(Modifier::BOLD),
        ),
    };
    frame.render_widget(Block::new().style(bar), area);
    frame.render_widget(
        Line::from(Span::styled(
            TITLE,
            Style::new().add_modifier(Modifier::BOLD),
        )),
        area,
    );
    frame.render_widget(Line::from(right).alignment(Alignment::Right), area);
}

fn render_message(text: &str, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let [_, middle, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(area);
    frame.render_widget(
        Line::styled(text.to_owned(), theme.style(Role::Dim)).centered(),
        middle,
    );
}

fn render_unreachable(
    title: &str,
    reason: &str,
    what_now: &str,
    theme: &Theme,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let width = area.width.saturating_sub(4).min(72);
    let text = vec![
        Line::from(reason.to_owned()),
        Line::default(),
        Line::styled(what_now.to_owned(), theme.style(Role::Dim)),
    ];
    // Borders and a column of padding on each side.
    let inner_width = usize::from(width.saturating_sub(4).max(1));
    let lines = wrapped_height(reason, inner_width) + 1 + wrapped_height(what_now, inner_width);
    let height = u16::try_from(lines + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    let paragraph = Paragraph::new(text).wrap(Wrap { trim: true });
    let [_, row, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(height),
        Constraint::Fill(1),
    ])
    .areas(area);
    let [_, boxed, _] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(width),
        Constraint::Fill(1),
    ])
    .areas(row);
    let block = Block::bordered()
        .border_set(theme.border())
        .border_style(theme.style(Role::Error))
        .padding(Padding::horizontal(1))
        .title(Span::styled(
            title,
            Style::new().add_modifier(Modifier::BOLD),
        ));
    frame.render_widget(paragraph.block(block), boxed);
}

/// How many lines greedy word wrapping makes of `text` at `width` columns (what the
/// paragraph's own wrapping does, closely enough to size its box).
fn wrapped_height(text: &str, width: usize) -> usize {
    let mut lines = 1;
    let mut used = 0;
    for word in text.split_whitespace() {
        let w = word.width();
        if used > 0 && used + 1 + w > width {
            lines += 1;
            used = 0;
        }
        used += if used == 0 { w } else { w + 1 };
        // A word longer than the line is broken across lines.
        while used > width {
            lines += 1;
            used -= width;
        }
    }
    lines
}
