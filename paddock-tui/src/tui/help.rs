//! The help overlay (`?`): every binding of [`keys::bindings`](super::keys::bindings), grouped
//! by context with the current one first, then the legend of the marks, in a centered box that
//! scrolls when it does not fit.
//!
//! The lines are laid out here (the key column, then the words wrapped beside it), so the
//! dispatcher can clamp its scroll with [`help_max_scroll`] for the same area.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Padding, Paragraph};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::keys::{Command, Context, bindings_in, label_for};
use super::theme::{Glyph, Mark, Role, Theme};

/// The widest the box gets.
const MAX_WIDTH: u16 = 72;
/// The key column never takes more than this; a longer label gets a line of its own.
const KEY_COLUMN_MAX: usize = 17;

/// The contexts in the order the overlay lists them: `current` first, then the global keys,
/// then the rest.
pub fn context_order(current: Context) -> Vec<Context> {
    let mut order = vec![current];
    if current != Context::Global {
        order.push(Context::Global);
    }
    order.extend(
        Context::ALL
            .into_iter()
            .filter(|c| *c != current && *c != Context::Global),
    );
    order
}

/// The box the overlay takes in `area`: centered, at most [`MAX_WIDTH`] wide, with a margin
/// when there is room for one.
pub fn help_area(area: Rect) -> Rect {
    let width = if area.width >= 48 {
        area.width.saturating_sub(4).min(MAX_WIDTH)
    } else {
        area.width
    };
    // A small screen gives the keys every line.
    let height = if area.height >= 30 {
        area.height.saturating_sub(2)
    } else {
        area.height
    };
    let [row] = Layout::vertical([Constraint::Length(height)])
        .flex(Flex::Center)
        .areas(area);
    let [boxed] = Layout::horizontal([Constraint::Length(width)])
        .flex(Flex::Center)
        .areas(row);
    boxed
}

/// The inside of the box: borders and a column of padding on each side.
fn inner(boxed: Rect) -> Rect {
    Block::bordered()
        .padding(Padding::horizontal(1))
        .inner(boxed)
}

/// The overlay's text at `width` columns.
pub fn help_lines(theme: &Theme, context: Context, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width).max(1);
    let labels = |c: Context| bindings_in(c).map(|b| b.label_for(theme.unicode));
    let widest = Context::ALL
        .into_iter()
        .flat_map(labels)
        .map(|l| l.width())
        .max()
        .unwrap_or(0);
    // A third of the width at most, so the words keep room; longer labels get a line.
    let key_w = widest.min(KEY_COLUMN_MAX).min(width / 3).max(1);
    let words_w = width.saturating_sub(key_w + 2).max(1);
    let key_style = theme.style(Role::Accent);
    let heading = theme.style(Role::Normal).add_modifier(Modifier::BOLD);
    let dim = theme.style(Role::Dim);

    let mut lines = Vec::new();
    for (i, c) in context_order(context).into_iter().enumerate() {
        if i > 0 {
            lines.push(Line::default());
        }
        let mut title = vec![Span::styled(c.title().to_owned(), heading)];
        if c == context {
            title.push(Span::styled(" (here)", dim));
        }
        lines.push(Line::from(title));
        if c.is_text_entry() {
            for l in wrap("Other keys type text.", width) {
                lines.push(Line::styled(l, dim));
            }
        }
        for b in bindings_in(c) {
            let label = b.label_for(theme.unicode);
            let words = wrap(b.help, words_w);
            let indent = " ".repeat(key_w + 2);
            let mut words = words.into_iter();
            if label.width() > key_w {
                // The label alone, the words under it in their column.
                lines.push(Line::styled(
                    truncate(&label, width, theme.glyph(Glyph::Ellipsis)),
                    key_style,
                ));
            } else {
                let pad = " ".repeat(key_w - label.width() + 2);
                let first = words.next().unwrap_or_default();
                lines.push(Line::from(vec![
                    Span::styled(label, key_style),
                    Span::raw(pad),
                    Span::raw(first),
                ]));
            }
            for rest in words {
                lines.push(Line::from(format!("{indent}{rest}")));
            }
        }
    }
    lines.push(Line::default());
    lines.extend(legend_lines(theme, key_w, width));
    lines
}

/// The legend: every mark the screens draw (from the one vocabulary, in this theme's glyphs),
/// in the key column, and what it means beside it.
fn legend_lines(theme: &Theme, key_w: usize, width: usize) -> Vec<Line<'static>> {
    let heading = theme.style(Role::Normal).add_modifier(Modifier::BOLD);
    let words_w = width.saturating_sub(key_w + 2).max(1);
    let indent = " ".repeat(key_w + 2);
    let mut lines = vec![Line::styled("Marks", heading)];
    for mark in Mark::ALL {
        let glyph = theme.mark(mark);
        let pad = " ".repeat(key_w.saturating_sub(glyph.width()) + 2);
        let mut words = wrap(mark.meaning(), words_w).into_iter();
        lines.push(Line::from(vec![
            Span::styled(glyph, theme.style(mark.role())),
            Span::raw(pad),
            Span::raw(words.next().unwrap_or_default()),
        ]));
        for rest in words {
            lines.push(Line::from(format!("{indent}{rest}")));
        }
    }
    lines
}

/// How many lines the overlay's text takes when drawn in `area` (the whole screen).
pub fn help_height(theme: &Theme, context: Context, area: Rect) -> usize {
    help_lines(theme, context, inner(help_area(area)).width).len()
}

/// The largest useful scroll for the overlay in `area`: scroll past it and the last line
/// would leave the box.
pub fn help_max_scroll(theme: &Theme, context: Context, area: Rect) -> u16 {
    let shown = usize::from(inner(help_area(area)).height);
    let total = help_height(theme, context, area);
    u16::try_from(total.saturating_sub(shown)).unwrap_or(u16::MAX)
}

/// Draws the overlay over whatever is in `area`, scrolled down `scroll` lines (clamped).
pub fn render_help(
    theme: &Theme,
    context: Context,
    frame: &mut Frame<'_>,
    area: Rect,
    scroll: u16,
) {
    let boxed = help_area(area);
    let text_area = inner(boxed);
    let lines = help_lines(theme, context, text_area.width);
    let max = lines.len().saturating_sub(usize::from(text_area.height));
    let scroll = usize::from(scroll).min(max);
    let more_below = scroll < max;

    let close = label_for(Context::Help, Command::Back).unwrap_or("Esc");
    let mut bottom = Vec::new();
    if more_below {
        let down = bindings_in(Context::Help)
            .find(|b| b.command == Command::Down)
            .map_or_else(|| "j".to_owned(), |b| b.label_for(theme.unicode));
        bottom.push(Span::styled(
            format!(" {down} more "),
            theme.style(Role::Accent),
        ));
    }
    bottom.push(Span::styled(
        format!(" {close} close "),
        theme.style(Role::Dim),
    ));
    let block = Block::bordered()
        .border_set(theme.border())
        .padding(Padding::horizontal(1))
        .title(Span::styled(" Keys ", theme.style(Role::Accent)))
        .title_bottom(Line::from(bottom).right_aligned());
    frame.render_widget(Clear, boxed);
    let visible: Vec<Line<'static>> = lines.into_iter().skip(scroll).collect();
    frame.render_widget(Paragraph::new(visible).block(block), boxed);
}

/// Greedy word wrapping at `width` columns; a word longer than a line is broken.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split_whitespace() {
        let w = word.width();
        if used > 0 && used + 1 + w > width {
            lines.push(std::mem::take(&mut line));
            used = 0;
        }
        if used > 0 {
            line.push(' ');
            used += 1;
        }
        for c in word.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > width && used > 0 {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            line.push(c);
            used += cw;
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Cuts `text` to at most `max` columns ([`crate::format::fit_width`]).
pub(crate) use crate::format::fit_width as truncate;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::keys::bindings;

    #[test]
    fn wrapping_keeps_words_whole() {
        assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(truncate("hello world", 6, "…"), "hello…");
        assert_eq!(truncate("hello world", 6, "..."), "hel...");
        assert_eq!(truncate("short", 6, "…"), "short");
    }

    #[test]
    fn the_current_context_comes_first() {
        assert_eq!(
            context_order(Context::Chat),
            [
                Context::Chat,
                Context::Global,
                Context::Tree,
                Context::Composer,
                Context::History,
                Context::Inbox,
                Context::Changes,
                Context::Provenance,
                Context::Files,
                Context::Blame,
                Context::Browser,
                Context::SearchQuery,
                Context::Search,
                Context::Usage,
                Context::Triggers,
                Context::Home,
                Context::PathPrompt,
                Context::Attachment,
                Context::Help
            ]
        );
        assert_eq!(context_order(Context::Global).len(), Context::ALL.len());
    }

    #[test]
    fn every_binding_is_listed_at_every_width() {
        for width in [36, 68] {
            for theme in [Theme::default(), Theme::plain()] {
                let text: Vec<String> = help_lines(&theme, Context::Tree, width)
                    .iter()
                    .map(|l| l.to_string())
                    .collect();
                for line in &text {
                    assert!(line.width() <= usize::from(width), "{line:?} at {width}");
                }
                let all = text.join("\n");
                for b in bindings() {
                    assert!(all.contains(&b.label_for(theme.unicode)), "{}", b.label);
                    let first_word = b.help.split_whitespace().next().unwrap_or_default();
                    assert!(all.contains(first_word), "{}", b.help);
                }
            }
        }
    }

    #[test]
    fn the_scroll_reaches_the_last_line() {
        let t = Theme::default();
        let small = Rect::new(0, 0, 80, 24);
        let max = help_max_scroll(&t, Context::Tree, small);
        let shown = usize::from(inner(help_area(small)).height);
        assert!(max > 0, "every key does not fit on 24 lines");
        assert_eq!(
            usize::from(max) + shown,
            help_height(&t, Context::Tree, small)
        );
        assert_eq!(
            help_max_scroll(&t, Context::Tree, Rect::new(0, 0, 80, 480)),
            0
        );
    }
}
