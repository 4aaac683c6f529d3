//! Drawing the chat pane: a header line (title, id, running spinner, lines below) over the
//! chat's items wrapped to the pane's width.
//!
//! A chat can run to thousands of lines, so each item is wrapped once and kept
//! ([`RenderCache`]): a streamed delta re-wraps only the item it grew, a width or theme change
//! re-wraps everything, and a frame draws only the rows on screen. The cursor's highlight is
//! laid over at draw time, so moving it re-wraps nothing.

mod cache;
mod header;
mod items;
mod text;
mod tool;

use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::chat::{ChatView, Item};
use super::theme::{Glyph, Mark, Role, Theme};
use cache::Rendered;
use header::render_header;
use items::item_lines;

pub use cache::RenderCache;
pub(crate) use text::{clean, fit_end, fit_spans, fit_start, wrap};

/// Draws the chat pane into `area`: the header line, then the rows that fit. `tick` animates
/// the spinner; `focused` highlights the item under the cursor.
pub fn render_chat(
    view: &mut ChatView,
    theme: &Theme,
    tick: u64,
    frame: &mut Frame<'_>,
    area: Rect,
    focused: bool,
) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let (header, body) = crate::tui::areas::title_and_body(area);
    layout(view, theme, body.width);
    let tail = tail(view, theme, tick, usize::from(body.width).max(1));
    let total = view.cache.total() + tail.as_ref().map_or(0, Tail::rows);
    let top = resolve_scroll(view, total, usize::from(body.height));
    let below = total.saturating_sub(top + usize::from(body.height));
    render_header(view, theme, tick, frame, header, focused, below);
    if body.height == 0 {
        return;
    }
    if view.items.is_empty() && tail.is_none() {
        let line = Line::styled("No messages yet.", theme.style(Role::Dim));
        frame
            .buffer_mut()
            .set_line(body.x, body.y, &line, body.width);
        return;
    }

    draw_rows(view, theme, frame, body, top, tail.as_ref(), focused);
}

/// Draws the rows from `top` that fit in `body`, laying the jumped-to entry's and the
/// cursor's highlight over them.
fn draw_rows(
    view: &ChatView,
    theme: &Theme,
    frame: &mut Frame<'_>,
    body: Rect,
    top: usize,
    tail: Option<&Tail>,
    focused: bool,
) {
    let cursor_row = cursor_row(view, focused);
    let jumped = jumped_rows(view);
    let selected = theme.style(Role::Selected);
    let jumped_style = theme.style(Role::Jumped);
    let buf = frame.buffer_mut();
    let cache = &view.cache;
    let mut item = cache.item_at_row(top).unwrap_or(0);
    for (dy, row) in (top..top + usize::from(body.height)).enumerate() {
        let Ok(dy) = u16::try_from(dy) else { break };
        let y = body.y + dy;
        while item + 1 < cache.offsets.len().saturating_sub(1) && cache.offsets[item + 1] <= row {
            item += 1;
        }
        if let Some(line) = row_line(cache, item, row, tail) {
            buf.set_line(body.x, y, line, body.width);
        }
        if jumped.as_ref().is_some_and(|rows| rows.contains(&row)) {
            buf.set_style(
                Rect {
                    y,
                    height: 1,
                    ..body
                },
                jumped_style,
            );
        }
        if cursor_row == Some(row) {
            buf.set_style(
                Rect {
                    y,
                    height: 1,
                    ..body
                },
                selected,
            );
        }
    }
}

/// The row of the cursor's item (its gap aside), when the pane is focused.
fn cursor_row(view: &ChatView, focused: bool) -> Option<usize> {
    view.cursor
        .filter(|_| focused)
        .and_then(|i| Some(view.cache.offsets.get(i)? + view.cache.items.get(i)?.as_ref()?.gap))
}

/// The rows of the entry a search result jumped to (its gap aside).
fn jumped_rows(view: &ChatView) -> Option<Range<usize>> {
    view.jumped.and_then(|i| {
        let start = view.cache.offsets.get(i)? + view.cache.items.get(i)?.as_ref()?.gap;
        Some(start..*view.cache.offsets.get(i + 1)?)
    })
}

/// The line at `row`: one of item `item`'s, or one of the tail's after the items.
fn row_line<'a>(
    cache: &'a RenderCache,
    item: usize,
    row: usize,
    tail: Option<&'a Tail>,
) -> Option<&'a Line<'static>> {
    if row < cache.total() {
        cache.items.get(item).and_then(|r| {
            let r = r.as_ref()?;
            r.lines.get(row - cache.offsets[item])
        })
    } else {
        let tail = tail?;
        (row - cache.total())
            .checked_sub(tail.gap)
            .and_then(|i| tail.lines.get(i))
    }
}

/// Lines under the items that are not one of them: where the chat is now.
struct Tail {
    /// Blank rows before the lines.
    gap: usize,
    lines: Vec<Line<'static>>,
}

impl Tail {
    fn rows(&self) -> usize {
        self.gap + self.lines.len()
    }
}

/// "⠋ working…" while a turn runs and no tool shows it already ("⏸ waiting for a free
/// claude…" while it is queued for a process); once a turn was cut short, why, and the key
/// that continues it.
fn tail(view: &ChatView, theme: &Theme, tick: u64, width: usize) -> Option<Tail> {
    let last = view.items.last();
    let gap = match last {
        None | Some(Item::Thinking { .. } | Item::Tool(_)) => 0,
        Some(_) => 1,
    };
    if view.running() {
        if matches!(last, Some(Item::Tool(t)) if t.result.is_none()) {
            return None;
        }
        let ellipsis = theme.glyph(Glyph::Ellipsis);
        let line = if view.waiting_process() {
            let mark = Mark::Waiting;
            let text = format!("{} waiting for a free claude{ellipsis}", theme.mark(mark));
            Line::styled(text, theme.style(mark.role()))
        } else {
            let text = format!("{} working{ellipsis}", theme.spinner(tick));
            Line::styled(text, theme.style(Role::Running))
        };
        return Some(Tail {
            gap,
            lines: vec![line],
        });
    }
    let why = view.cut_short()?;
    let mut lines = Vec::new();
    let head = format!("{} turn cut short: ", theme.mark(Mark::Interrupted));
    items::capped_message(&mut lines, theme, width, &head, why, Role::Warning);
    lines.push(Line::styled(
        fit_end("  C continues it", width, theme.glyph(Glyph::Ellipsis)),
        theme.style(Role::Dim),
    ));
    Some(Tail {
        gap: usize::from(last.is_some()),
        lines,
    })
}

/// Wraps the items that changed and recomputes where each starts.
fn layout(view: &mut ChatView, theme: &Theme, width: u16) {
    let ChatView { items, cache, .. } = view;
    if cache.width != width || cache.theme != Some(*theme) {
        cache.width = width;
        cache.theme = Some(*theme);
        cache.items.clear();
        cache.offsets_valid = false;
    }
    cache.items.resize_with(items.len(), || None);
    let width = usize::from(width).max(1);
    for (i, slot) in cache.items.iter_mut().enumerate() {
        if slot.is_none() {
            let prev = i.checked_sub(1).and_then(|p| items.get(p));
            let gap = gap_before(prev, &items[i]);
            let mut lines = vec![Line::default(); gap];
            item_lines(&items[i], theme, width, &mut lines);
            *slot = Some(Rendered { gap, lines });
            cache.offsets_valid = false;
        }
    }
    if !cache.offsets_valid || cache.offsets.len() != items.len() + 1 {
        cache.offsets.clear();
        let mut row = 0;
        for slot in &cache.items {
            cache.offsets.push(row);
            row += slot.as_ref().map_or(0, |r| r.lines.len());
        }
        cache.offsets.push(row);
        cache.offsets_valid = true;
    }
}

/// Blank rows between two items: none inside a run of tool calls and thinking (they read as
/// one block with the text they follow), one everywhere else.
fn gap_before(prev: Option<&Item>, item: &Item) -> usize {
    match (prev, item) {
        (None, _) | (Some(Item::Thinking { .. }), _) => 0,
        (Some(Item::Tool(_)), Item::Tool(_) | Item::Thinking { .. }) => 0,
        _ => 1,
    }
}

/// Applies the scroll recorded since the last render; the top row to draw from.
fn resolve_scroll(view: &mut ChatView, total: usize, height: usize) -> usize {
    let max_top = total.saturating_sub(height);
    let cache = &view.cache;
    let scroll = &mut view.scroll;
    let anchored = |(item, row): (usize, usize)| match (
        cache.offsets.get(item),
        cache.offsets.get(item + 1),
    ) {
        (Some(&start), Some(&end)) => start + row.min(end.saturating_sub(start + 1)),
        _ => max_top,
    };
    let jumped = scroll.jump.take().and_then(|i| {
        let start = *cache.offsets.get(i)?;
        Some(start + cache.items.get(i)?.as_ref()?.gap)
    });
    let mut top = if let Some(head) = jumped {
        head
    } else if scroll.to_start {
        0
    } else if scroll.follow || scroll.from_end {
        max_top
    } else {
        anchored(scroll.anchor)
    };
    top = i64::try_from(top)
        .unwrap_or(i64::MAX)
        .saturating_add(scroll.pending)
        .clamp(0, i64::try_from(max_top).unwrap_or(i64::MAX))
        .try_into()
        .unwrap_or(0);
    if scroll.reveal
        && let Some(i) = view.cursor
        && let (Some(&start), Some(&end), Some(Some(r))) = (
            cache.offsets.get(i),
            cache.offsets.get(i + 1),
            cache.items.get(i),
        )
    {
        let head = start + r.gap;
        if head < top {
            top = head;
        } else if end > top + height {
            // Show all of it if it fits, else its first row at the top.
            top = if end - head <= height {
                end - height
            } else {
                head
            };
        }
        top = top.min(max_top);
    }
    scroll.to_start = false;
    scroll.reveal = false;
    scroll.pending = 0;
    scroll.from_end = false;
    scroll.follow = top >= max_top;
    let item = cache.item_at_row(top).unwrap_or(0);
    let start = cache.offsets.get(item).copied().unwrap_or(0);
    scroll.anchor = (item, top.saturating_sub(start));
    view.cache.top = top;
    view.cache.viewport = u16::try_from(height).unwrap_or(u16::MAX);
    top
}
