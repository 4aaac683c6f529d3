//! Drawing the TUI: a pure function of [`App`], so a snapshot of `TestBackend` is the screen.

use paddock_proto::{ChatSummary, Origin};
use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, BorderType, HighlightSpacing, List, ListItem, ListState, Padding, Paragraph, Wrap,
};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::app::{App, Connection, Row};
use crate::format::{clean_title, project_label};

/// Below this width, origin badges show only their icon.
const NARROW: u16 = 60;

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

pub fn render(app: &App, frame: &mut Frame<'_>) {
    let [header, body, status] = layout(frame.area());
    render_header(app, frame, header);
    match &app.connection {
        Connection::Unreachable(reason) => render_unreachable(reason, frame, body),
        Connection::Connecting if !app.loaded => {
            render_message("Connecting to paddockd…", frame, body);
        }
        Connection::Connected(_) if !app.loaded => render_message("Loading…", frame, body),
        _ => render_list(app, frame, body),
    }
    render_status(app, frame, status);
}

fn render_header(app: &App, frame: &mut Frame<'_>, area: Rect) {
    let bar = Style::new().bg(Color::Blue).fg(Color::White);
    let right = match &app.connection {
        Connection::Connected(daemon) => {
            let running = app.running_count();
            let running = if running == 0 {
                String::new()
            } else {
                format!(" · {running} running")
            };
            Span::raw(format!("paddockd {}{running} ", daemon.daemon_version))
        }
        Connection::Connecting => Span::raw("connecting… "),
        Connection::Unreachable(_) => Span::raw("not connected ").fg(Color::LightRed).bold(),
    };
    frame.render_widget(Block::new().style(bar), area);
    frame.render_widget(Line::from(" Paddock").bold(), area);
    frame.render_widget(Line::from(right).alignment(Alignment::Right), area);
}

fn render_status(app: &App, frame: &mut Frame<'_>, area: Rect) {
    let line = match (&app.notice, &app.connection) {
        (Some(notice), _) => Line::from(format!(" {notice}")).fg(Color::Yellow),
        (None, Connection::Unreachable(_)) => hints(&[("r", "retry"), ("q", "quit")]),
        (None, Connection::Connecting) => hints(&[("q", "quit")]),
        (None, _) => hints(&[("j/k", "move"), ("r", "refresh"), ("q", "quit")]),
    };
    frame.render_widget(line, area);
}

fn hints(keys: &[(&str, &str)]) -> Line<'static> {
    let mut spans = vec![Span::raw(" ")];
    for (key, what) in keys {
        spans.push(Span::raw((*key).to_owned()).bold());
        spans.push(Span::raw(format!(" {what}  ")).dim());
    }
    Line::from(spans)
}

fn render_message(text: &str, frame: &mut Frame<'_>, area: Rect) {
    let [_, middle, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(area);
    frame.render_widget(Line::from(text.to_owned()).centered().dim(), middle);
}

fn render_unreachable(reason: &str, frame: &mut Frame<'_>, area: Rect) {
    let width = area.width.saturating_sub(4).min(72);
    let text = vec![
        Line::from(reason.to_owned()),
        Line::default(),
        Line::from("Press r to try again, q to quit.").dim(),
    ];
    // Borders and a column of padding on each side.
    let inner_width = usize::from(width.saturating_sub(4).max(1));
    let lines = wrapped_height(reason, inner_width) + 2;
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
        .border_type(BorderType::Rounded)
        .border_style(Style::new().fg(Color::Red))
        .padding(Padding::horizontal(1))
        .title(" paddockd cannot be reached ".bold());
    frame.render_widget(paragraph.block(block), boxed);
}

fn render_list(app: &App, frame: &mut Frame<'_>, area: Rect) {
    let rows = app.rows();
    if rows.is_empty() {
        render_message("No projects yet: paddock project add SLUG", frame, area);
        return;
    }
    // One column goes to the selection mark.
    let width = usize::from(area.width.saturating_sub(1));
    let narrow = area.width < NARROW;
    let items: Vec<ListItem<'_>> = rows
        .iter()
        .map(|row| ListItem::new(row_line(row, width, narrow)))
        .collect();
    let mut state = ListState::default()
        .with_selected(Some(app.selected))
        .with_offset(app.offset);
    let list = List::new(items)
        .highlight_symbol("›")
        .highlight_spacing(HighlightSpacing::Always)
        .highlight_style(Style::new().add_modifier(Modifier::REVERSED));
    frame.render_stateful_widget(list, area, &mut state);
}

fn row_line<'a>(row: &Row<'a>, width: usize, narrow: bool) -> Line<'a> {
    match row {
        Row::Project(project) => {
            let label = project_label(&project.slug);
            let head = format!("▾ {label}");
            let room = width.saturating_sub(head.width() + 2);
            Line::from(vec![
                Span::raw(head).bold(),
                Span::raw(format!("  {}", truncate(&project.path, room))).dim(),
            ])
        }
        Row::Empty => Line::from("    no chats").dim().italic(),
        Row::Chat(chat, depth) => chat_line(chat, *depth, width, narrow),
    }
}

fn chat_line<'a>(chat: &ChatSummary, depth: usize, width: usize, narrow: bool) -> Line<'a> {
    let mark = if chat.running {
        Span::raw("●").fg(Color::Green)
    } else if chat.unread {
        Span::raw("•").fg(Color::LightBlue)
    } else {
        Span::raw(" ")
    };
    let branch = if depth == 0 {
        String::new()
    } else {
        format!("{}└ ", "  ".repeat(depth - 1))
    };
    let star = if chat.starred { " ★" } else { "" };
    let badge = origin_badge(chat, depth > 0, narrow);
    let badge_width = badge.as_ref().map_or(0, |(text, _)| text.width() + 1);
    // "  ", the mark, " ", the branch, the title, the star, the badge.
    let fixed = 4 + branch.width() + star.width() + badge_width;
    let title = truncate(&clean_title(&chat.title), width.saturating_sub(fixed + 1));
    let mut title_span = Span::raw(title.clone());
    if chat.unread {
        title_span = title_span.bold();
    }
    if chat.archived {
        title_span = title_span.dim();
    }
    let mut spans = vec![
        Span::raw("  "),
        mark,
        Span::raw(" "),
        Span::raw(branch.clone()).dim(),
        title_span,
        Span::raw(star).fg(Color::Yellow),
    ];
    if let Some((text, color)) = badge {
        let used = fixed - badge_width + title.width();
        let pad = width.saturating_sub(used + text.width() + 1);
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::raw(text).fg(color));
        spans.push(Span::raw(" "));
    }
    Line::from(spans)
}

/// The reference's origin badges as text: human chats stay unadorned, and a nested spawned
/// chat drops its badge because the indentation already says it.
fn origin_badge(chat: &ChatSummary, nested: bool, narrow: bool) -> Option<(String, Color)> {
    let (icon, word, color) = match chat.origin {
        Origin::Human => return None,
        Origin::Spawned if nested => return None,
        Origin::Scheduled => ("⏰", "scheduled", Color::Yellow),
        Origin::Spawned => ("⑂", "spawned", Color::Magenta),
        Origin::Hook => ("⚡", "hook", Color::Cyan),
        Origin::Adopted => (">_", "adopted", Color::Green),
    };
    let levels = if chat.origin == Origin::Spawned && chat.depth > 1 {
        format!(" ·{}", chat.depth)
    } else {
        String::new()
    };
    let text = if narrow {
        format!("{icon}{levels}")
    } else {
        format!("{icon} {word}{levels}")
    };
    Some((text, color))
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

/// Cuts `text` to at most `max` columns, marking the cut with `…`.
fn truncate(text: &str, max: usize) -> String {
    if text.width() <= max {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        out.push(c);
        used += w;
    }
    if max > 0 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::truncate;

    #[test]
    fn truncation_counts_columns() {
        assert_eq!(truncate("hello", 5), "hello");
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("日本語テキスト", 7), "日本語…");
        assert_eq!(truncate("abc", 0), "");
    }
}
