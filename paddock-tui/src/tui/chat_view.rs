//! Drawing the chat pane: a header line (title, id, running spinner, lines below) over the
//! chat's items wrapped to the pane's width.
//!
//! A chat can run to thousands of lines, so each item is wrapped once and kept
//! ([`RenderCache`]): a streamed delta re-wraps only the item it grew, a width or theme change
//! re-wraps everything, and a frame draws only the rows on screen. The cursor's highlight is
//! laid over at draw time, so moving it re-wraps nothing.

use paddock_proto::{Attribution, NoticeKind};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::chat::{ChatView, Item, ToolItem, ToolStatus, UserItem, count_lines, exit_code};
use super::theme::{Role, Theme};
use crate::attachments::Listed;
use crate::format::{clean_title, notice_label};

/// Lines of a tool's input or output shown when it is expanded; the rest is counted.
const OUTPUT_CAP: usize = 40;
/// Of a longer output, the first lines shown (the rest of the cap goes to its last lines).
const OUTPUT_HEAD: usize = 8;
/// Lines of a tool's input fields shown when it is expanded (the output matters more).
const INPUT_CAP: usize = 12;
/// Lines of an error's text shown inline.
const ERROR_CAP: usize = 6;

/// Wrapped lines per item, and where each item starts, for one width and theme.
#[derive(Debug, Default)]
pub struct RenderCache {
    width: u16,
    theme: Option<Theme>,
    /// `None`: to wrap again.
    items: Vec<Option<Rendered>>,
    /// The first row of each item, and the total row count last.
    offsets: Vec<usize>,
    offsets_valid: bool,
    /// The body height and top row of the last render.
    viewport: u16,
    top: usize,
}

#[derive(Debug)]
struct Rendered {
    /// Blank rows before the item (part of `lines`).
    gap: usize,
    lines: Vec<Line<'static>>,
}

impl RenderCache {
    pub(super) fn invalidate(&mut self, item: usize) {
        if let Some(slot) = self.items.get_mut(item) {
            *slot = None;
        }
        self.offsets_valid = false;
    }

    pub(super) fn truncate(&mut self, items: usize) {
        self.items.truncate(items);
        self.offsets_valid = false;
    }

    pub(super) fn clear(&mut self) {
        self.items.clear();
        self.offsets_valid = false;
    }

    /// The body height of the last render (a guess before the first).
    pub(super) fn viewport(&self) -> u16 {
        if self.viewport == 0 {
            20
        } else {
            self.viewport
        }
    }

    /// The item at the top of the last render.
    pub(super) fn first_visible_item(&self) -> Option<usize> {
        self.item_at_row(self.top)
    }

    /// The item at the bottom of the last render.
    pub(super) fn last_visible_item(&self) -> Option<usize> {
        let bottom = (self.top + usize::from(self.viewport)).saturating_sub(1);
        self.item_at_row(bottom)
    }

    fn item_at_row(&self, row: usize) -> Option<usize> {
        let items = self.offsets.len().checked_sub(1)?;
        if items == 0 {
            return None;
        }
        let after = self.offsets[..items].partition_point(|&start| start <= row);
        Some(after.saturating_sub(1).min(items - 1))
    }

    fn total(&self) -> usize {
        self.offsets.last().copied().unwrap_or(0)
    }
}

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
    let header = Rect { height: 1, ..area };
    let body = Rect {
        y: area.y + 1,
        height: area.height - 1,
        ..area
    };
    layout(view, theme, body.width);
    let working = working_line(view, theme, tick);
    let total = view.cache.total() + working.as_ref().map_or(0, |(gap, _)| gap + 1);
    let top = resolve_scroll(view, total, usize::from(body.height));
    let below = total.saturating_sub(top + usize::from(body.height));
    render_header(view, theme, tick, frame, header, focused, below);
    if body.height == 0 {
        return;
    }
    if view.items.is_empty() && working.is_none() {
        let line = Line::styled("No messages yet.", theme.style(Role::Dim));
        frame
            .buffer_mut()
            .set_line(body.x, body.y, &line, body.width);
        return;
    }

    let cursor_row = view
        .cursor
        .filter(|_| focused)
        .and_then(|i| Some(view.cache.offsets.get(i)? + view.cache.items.get(i)?.as_ref()?.gap));
    // The rows of the entry a search result jumped to (its gap aside).
    let jumped = view.jumped.and_then(|i| {
        let start = view.cache.offsets.get(i)? + view.cache.items.get(i)?.as_ref()?.gap;
        Some(start..*view.cache.offsets.get(i + 1)?)
    });
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
        let line = if row < cache.total() {
            cache.items.get(item).and_then(|r| {
                let r = r.as_ref()?;
                r.lines.get(row - cache.offsets[item])
            })
        } else {
            // The working line after the items, when a turn runs.
            working
                .as_ref()
                .filter(|(gap, _)| row == cache.total() + gap)
                .map(|(_, line)| line)
        };
        if let Some(line) = line {
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

/// "⠋ working…" under the items while a turn runs and no tool shows it already, with the gap
/// before it.
fn working_line(view: &ChatView, theme: &Theme, tick: u64) -> Option<(usize, Line<'static>)> {
    if !view.running() {
        return None;
    }
    let last = view.items.last();
    if matches!(last, Some(Item::Tool(t)) if t.result.is_none()) {
        return None;
    }
    let gap = match last {
        None | Some(Item::Thinking { .. } | Item::Tool(_)) => 0,
        Some(_) => 1,
    };
    let text = format!("{} working{}", theme.spinner(tick), theme.glyph("…", "..."));
    Some((gap, Line::styled(text, theme.style(Role::Running))))
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

/// From this width the chat's header shows its tokens, cost and context use.
const USAGE_HEADER_WIDTH: u16 = 60;

/// `1.3M tok · $4.87 · 48%`: what the chat list knows (nothing: `None`).
fn usage_text(u: &paddock_proto::ChatUsage, theme: &Theme) -> Option<String> {
    let mut parts = Vec::new();
    let total = u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_creation_tokens;
    if total > 0 {
        parts.push(format!("{} tok", crate::format::tokens(total)));
    }
    if u.cost_usd > 0.0 {
        parts.push(crate::format::usd(u.cost_usd));
    }
    if u.context_limit > 0 {
        let percent = u128::from(u.context_tokens) * 100 / u128::from(u.context_limit);
        parts.push(format!("{percent}%"));
    }
    let dot = format!(" {} ", theme.glyph("·", "-"));
    (!parts.is_empty()).then(|| parts.join(&dot))
}

fn render_header(
    view: &ChatView,
    theme: &Theme,
    tick: u64,
    frame: &mut Frame<'_>,
    area: Rect,
    focused: bool,
    below: usize,
) {
    let ellipsis = theme.glyph("…", "...");
    let mut right: Vec<Span<'static>> = Vec::new();
    if area.width >= USAGE_HEADER_WIDTH
        && let Some(usage) = view.usage().and_then(|u| usage_text(u, theme))
    {
        right.push(Span::styled(usage, theme.style(Role::Dim)));
    }
    if view.running() {
        if !right.is_empty() {
            right.push(Span::styled(" · ", theme.style(Role::Dim)));
        }
        right.push(Span::styled(
            format!("{} running", theme.spinner(tick)),
            theme.style(Role::Running),
        ));
    }
    if below > 0 {
        if !right.is_empty() {
            right.push(Span::styled(" · ", theme.style(Role::Dim)));
        }
        right.push(Span::styled(
            if theme.unicode {
                format!("↓{below}")
            } else {
                format!("{below} more")
            },
            theme.style(Role::Dim),
        ));
    }
    let right_width: usize = right.iter().map(Span::width).sum();
    let width = usize::from(area.width);
    let room = width.saturating_sub(right_width + usize::from(right_width > 0));

    let id: String = view.session_id().chars().take(8).collect();
    let title = if view.title().is_empty() {
        if id.is_empty() { "new chat" } else { "chat" }
    } else {
        view.title()
    };
    let title_style = if focused {
        theme.style(Role::Accent)
    } else {
        theme.style(Role::Normal).add_modifier(Modifier::BOLD)
    };
    let id_part = format!(" · {id}");
    let mut left = vec![];
    if id.is_empty() || title.width() + id_part.width() > room {
        left.push(Span::styled(fit_end(title, room, ellipsis), title_style));
    } else {
        left.push(Span::styled(title.to_owned(), title_style));
        left.push(Span::styled(id_part, theme.style(Role::Dim)));
    }
    let buf = frame.buffer_mut();
    buf.set_line(area.x, area.y, &Line::from(left), area.width);
    if right_width > 0 && right_width < width {
        let x = area.x + u16::try_from(width - right_width).unwrap_or(0);
        buf.set_line(
            x,
            area.y,
            &Line::from(right),
            u16::try_from(right_width).unwrap_or(0),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// One item's lines
// ---------------------------------------------------------------------------------------------

fn item_lines(item: &Item, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    let ellipsis = theme.glyph("…", "...");
    match item {
        Item::User(user) => user_lines(user, theme, width, out),
        Item::Assistant { text } => {
            let text = clean(text);
            if text.trim().is_empty() {
                out.push(Line::styled("(empty)", theme.style(Role::Dim)));
            } else {
                push_wrapped(
                    out,
                    text.trim_end(),
                    width,
                    &Span::raw(""),
                    &Span::raw(""),
                    theme.style(Role::Assistant),
                );
            }
        }
        Item::Thinking { text, expanded } => {
            let style = theme.style(Role::Thinking);
            let fold = theme.fold(!expanded);
            if *expanded {
                out.push(Line::styled(format!("{fold} thinking"), style));
                let indent = Span::raw("  ");
                push_wrapped(out, clean(text).trim(), width, &indent, &indent, style);
            } else {
                let n = count_lines(text.trim());
                let noun = if n == 1 { "line" } else { "lines" };
                let head = format!("{fold} thinking{ellipsis} ({n} {noun})");
                out.push(Line::styled(fit_end(&head, width, ellipsis), style));
            }
        }
        Item::Tool(tool) => tool_lines(tool, theme, width, out),
        Item::Compaction {
            pre_tokens,
            post_tokens,
        } => {
            let arrow = theme.glyph("→", "->");
            let sizes = match (pre_tokens, post_tokens) {
                (Some(pre), Some(post)) => format!(": {pre} {arrow} {post} tokens"),
                (Some(pre), None) => format!(": from {pre} tokens"),
                _ => String::new(),
            };
            marker(
                out,
                theme,
                width,
                &format!("context compacted{sizes}"),
                Role::Dim,
            );
        }
        Item::Interrupted { text } => {
            let text = clean(text);
            let text = text.trim().trim_start_matches('[').trim_end_matches(']');
            let text = if text.is_empty() { "interrupted" } else { text };
            marker(out, theme, width, text, Role::Warning);
        }
        Item::ApiError { status, text } => {
            // The CLI's text usually says "API Error: 529 ..." itself.
            let head = if text
                .trim_start()
                .to_ascii_lowercase()
                .starts_with("api error")
            {
                format!("{} ", theme.glyph("✗", "x"))
            } else {
                let status = status.map(|s| format!(" {s}")).unwrap_or_default();
                format!("{} API error{status}: ", theme.glyph("✗", "x"))
            };
            capped_message(out, theme, width, &head, text, Role::Error);
        }
        Item::Error { message } => {
            let head = format!("{} ", theme.glyph("✗", "x"));
            capped_message(out, theme, width, &head, message, Role::Error);
        }
        Item::Notice { kind, message } => {
            let (glyph, role) = match kind {
                NoticeKind::Crashed
                | NoticeKind::ApiError
                | NoticeKind::PermissionDenied
                | NoticeKind::UsageLimit => (theme.glyph("⚠", "!"), Role::Error),
                NoticeKind::Retrying | NoticeKind::Interrupted | NoticeKind::MaxTurns => {
                    (theme.glyph("⚠", "!"), Role::Warning)
                }
                NoticeKind::Info => (theme.glyph("•", "*"), Role::Dim),
            };
            // "interrupted: Interrupted. ..." says it twice.
            let label = notice_label(*kind);
            let head = if message
                .trim_start()
                .to_lowercase()
                .starts_with(&label.to_lowercase())
            {
                format!("{glyph} ")
            } else {
                format!("{glyph} {label}: ")
            };
            capped_message(out, theme, width, &head, message, role);
            chip_lines(&item.attachments(), theme, width, out);
        }
        Item::QueuedFlushed { .. } => {
            let text = format!("{} queued follow-up sent", theme.glyph("↪", "->"));
            out.push(Line::styled(
                fit_end(&text, width, ellipsis),
                theme.style(Role::Dim),
            ));
        }
        Item::KilledTask { message } => {
            let head = format!("{} background task killed: ", theme.glyph("⚠", "!"));
            capped_message(out, theme, width, &head, message, Role::Warning);
        }
    }
}

fn user_lines(user: &UserItem, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    // A background task's report, written by claude as a user row: a notice, not a message.
    if let Some(note) = crate::message::task_notification(&user.text) {
        let status = match note.status.as_str() {
            "" | "completed" => String::new(),
            other => format!(" ({other})"),
        };
        push_wrapped(
            out,
            &clean(&format!(
                "{} background task: {}{status}",
                theme.glyph("⚙", "*"),
                note.summary
            )),
            width,
            &Span::raw(""),
            &Span::raw("  "),
            theme.style(Role::Dim),
        );
        if let Some(first) = note.result.lines().find(|l| !l.trim().is_empty()) {
            push_wrapped(
                out,
                &clean(first),
                width,
                &Span::raw("  "),
                &Span::raw("  "),
                theme.style(Role::Dim),
            );
        }
        return;
    }
    if let Some(attribution) = &user.attribution {
        // The sender's title fit for one line; a blank one gives way to its session id.
        let attribution = match attribution {
            Attribution::Sent {
                from_session_id,
                from_project,
                from_title,
            } => Attribution::Sent {
                from_session_id: from_session_id.clone(),
                from_project: from_project.clone(),
                from_title: from_title
                    .as_deref()
                    .filter(|t| !t.trim().is_empty())
                    .map(clean_title),
            },
            other => other.clone(),
        };
        let (text, role) = theme.attribution(&attribution);
        push_wrapped(
            out,
            &clean(&text),
            width,
            &Span::raw(""),
            &Span::raw("  "),
            theme.style(role),
        );
    }
    let style = theme.style(Role::User);
    let text = clean(user.request());
    let text = text.trim();
    let first = Span::styled(format!("{} ", theme.glyph("›", ">")), style);
    if text.is_empty() {
        out.push(Line::from(vec![
            first,
            Span::styled("(empty)", theme.style(Role::Dim)),
        ]));
    } else {
        push_wrapped(out, text, width, &first, &Span::raw("  "), style);
    }
    if let Some(context) = user.context() {
        push_wrapped(
            out,
            &crate::message::context_note(context),
            width,
            &Span::raw("  "),
            &Span::raw("  "),
            theme.style(Role::Dim),
        );
    }
    chip_lines(
        &crate::attachments::parse_block(&user.text),
        theme,
        width,
        out,
    );
}

/// Kept files as chips under their message or notice, `📎 name (kind)` (`[+]` in ASCII),
/// as many to a row as fit; `a` on the item opens them.
fn chip_lines(list: &[Listed], theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    if list.is_empty() {
        return;
    }
    let ellipsis = theme.glyph("…", "...");
    let clip = theme.glyph("📎", "[+]");
    let indent = 2;
    let room = width.saturating_sub(indent).max(1);
    let mut row: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for item in list {
        let kind = format!(" ({})", item.kind);
        let name_room = room.saturating_sub(clip.width() + 1 + kind.width());
        let name = format!(
            "{clip} {}",
            fit_end(&clean(&item.filename), name_room, ellipsis)
        );
        let w = name.width() + kind.width();
        if !row.is_empty() && used + 2 + w > room {
            out.push(fit_spans(std::mem::take(&mut row), width, ellipsis));
            used = 0;
        }
        // The indent before the first chip of a row, the gap before the others.
        used += if row.is_empty() { 0 } else { 2 } + w;
        row.push(Span::raw("  "));
        row.push(Span::styled(name, theme.style(Role::Accent)));
        row.push(Span::styled(kind, theme.style(Role::Dim)));
    }
    if !row.is_empty() {
        out.push(fit_spans(row, width, ellipsis));
    }
}

/// A marker line across the pane: `── text ──`.
fn marker(out: &mut Vec<Line<'static>>, theme: &Theme, width: usize, text: &str, role: Role) {
    let rule = theme.glyph("──", "--");
    let full = format!("{rule} {text} {rule}");
    let text = if full.width() <= width {
        full
    } else {
        text.to_owned()
    };
    push_wrapped(
        out,
        &text,
        width,
        &Span::raw(""),
        &Span::raw(""),
        theme.style(role),
    );
}

/// `head` then the message, wrapped, its first [`ERROR_CAP`] lines.
fn capped_message(
    out: &mut Vec<Line<'static>>,
    theme: &Theme,
    width: usize,
    head: &str,
    message: &str,
    role: Role,
) {
    let message = clean(message);
    let lines: Vec<&str> = message.trim().lines().collect();
    let mut text = format!("{head}{}", lines[..lines.len().min(ERROR_CAP)].join("\n"));
    if lines.len() > ERROR_CAP {
        text.push_str(&format!(
            "\n{} {} more lines",
            theme.glyph("…", "..."),
            lines.len() - ERROR_CAP
        ));
    }
    push_wrapped(
        out,
        &text,
        width,
        &Span::raw(""),
        &Span::raw("  "),
        theme.style(role),
    );
}

// ---------------------------------------------------------------------------------------------
// Tool calls
// ---------------------------------------------------------------------------------------------

fn tool_lines(tool: &ToolItem, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    out.push(tool_head(tool, theme, width));
    // The file a `send_file` call showed, kept as a snapshot.
    if let Some(shown) = tool
        .result
        .as_ref()
        .filter(|r| !r.is_error)
        .and_then(|r| crate::attachments::snapshot_in_result(&tool.name, &r.output))
    {
        chip_lines(&[shown], theme, width, out);
    }
    if tool.expanded {
        tool_body(tool, theme, width, out);
    }
}

/// `▸ Bash cargo test · exit 1`, fitted to one row: the argument gives way first (a path
/// from its left, anything else from its right).
fn tool_head(tool: &ToolItem, theme: &Theme, width: usize) -> Line<'static> {
    let ellipsis = theme.glyph("…", "...");
    let summary = tool.summary();
    let fold = format!("{} ", theme.fold(!tool.expanded));
    let name_style = theme.style(Role::Tool).add_modifier(Modifier::BOLD);
    let status: Vec<Span<'static>> = match &summary.status {
        ToolStatus::Running => vec![Span::styled(format!(" {ellipsis}"), theme.style(Role::Dim))],
        ToolStatus::Done(what) if what.is_empty() => vec![],
        ToolStatus::Done(what) => vec![Span::styled(
            format!(" {} {what}", theme.glyph("·", "|")),
            theme.style(Role::Dim),
        )],
        ToolStatus::Failed(why) => vec![
            Span::styled(
                format!(" {} ", theme.glyph("·", "|")),
                theme.style(Role::Dim),
            ),
            Span::styled(
                format!("{} {why}", theme.glyph("✗", "x")),
                theme.style(Role::Error),
            ),
        ],
    };
    let fixed = fold.width() + summary.name.width() + status.iter().map(Span::width).sum::<usize>();
    let mut spans = vec![
        Span::styled(fold, theme.style(Role::Tool)),
        Span::styled(summary.name.clone(), name_style),
    ];
    let room = width.saturating_sub(fixed + 1);
    let arg = clean(&summary.arg);
    if !arg.is_empty() && room >= 4 {
        let arg = if summary.arg_is_path {
            fit_start(&arg, room, ellipsis)
        } else {
            fit_end(&arg, room, ellipsis)
        };
        spans.push(Span::raw(format!(" {arg}")));
    }
    spans.extend(status);
    fit_spans(spans, width, ellipsis)
}

fn tool_body(tool: &ToolItem, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    let gutter = Span::styled(theme.glyph("  │ ", "  | "), theme.style(Role::Dim));
    let dim = theme.style(Role::Dim);
    let normal = theme.style(Role::Normal);
    let input = &tool.input;
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(clean);
    // What the call was given.
    let mut show_output = true;
    match tool.name.as_str() {
        "Bash" => {
            if let Some(command) = text(input, "command") {
                let style = theme.style(Role::Accent);
                let lines: Vec<_> = command
                    .trim()
                    .lines()
                    .enumerate()
                    .map(|(i, l)| (format!("{} {l}", if i == 0 { "$" } else { " " }), style))
                    .collect();
                section(out, theme, width, &gutter, &lines, INPUT_CAP);
            }
        }
        "Edit" | "MultiEdit" => {
            let edits: Vec<&Value> = match input.get("edits").and_then(Value::as_array) {
                Some(edits) => edits.iter().collect(),
                None => vec![input],
            };
            let mut lines = Vec::new();
            for edit in edits {
                let old = text(edit, "old_string").unwrap_or_default();
                let new = text(edit, "new_string").unwrap_or_default();
                lines.extend(
                    old.lines()
                        .map(|l| (format!("- {l}"), theme.style(Role::Error))),
                );
                lines.extend(
                    new.lines()
                        .map(|l| (format!("+ {l}"), theme.style(Role::Success))),
                );
            }
            section(out, theme, width, &gutter, &lines, OUTPUT_CAP);
            show_output = tool.result.as_ref().is_some_and(|r| r.is_error);
        }
        "Write" => {
            let content = text(input, "content").unwrap_or_default();
            let lines: Vec<_> = content.lines().map(|l| (l.to_owned(), normal)).collect();
            section(out, theme, width, &gutter, &lines, OUTPUT_CAP);
            show_output = tool.result.as_ref().is_some_and(|r| r.is_error);
        }
        _ => {
            let lines = input_fields(input);
            let lines: Vec<_> = lines.into_iter().map(|l| (l, dim)).collect();
            section(out, theme, width, &gutter, &lines, INPUT_CAP);
        }
    }
    if !show_output {
        return;
    }
    // What it answered.
    match &tool.result {
        None => section(
            out,
            theme,
            width,
            &gutter,
            &[(format!("running{}", theme.glyph("…", "...")), dim)],
            1,
        ),
        Some(result) => {
            let output = clean(&result.output);
            let mut output = output.trim_end_matches('\n');
            // The head line already says `exit N`.
            if tool.name == "Bash" && result.is_error && exit_code(output).is_some() {
                output = output.split_once('\n').map_or("", |(_, rest)| rest);
            }
            if output.trim().is_empty() {
                section(
                    out,
                    theme,
                    width,
                    &gutter,
                    &[("(no output)".into(), dim)],
                    1,
                );
            } else {
                let style = if result.is_error {
                    theme.style(Role::Error)
                } else {
                    normal
                };
                let lines: Vec<_> = output.lines().map(|l| (l.to_owned(), style)).collect();
                output_section(out, theme, width, &gutter, &lines);
            }
        }
    }
}

/// A tool's input as `key: value` rows (strings on one line, anything else as JSON).
fn input_fields(input: &Value) -> Vec<String> {
    match input {
        Value::Null => vec![],
        Value::Object(map) => map
            .iter()
            .map(|(key, value)| {
                let value = match value {
                    Value::String(s) => {
                        let s = clean(s);
                        let mut lines = s.trim().lines();
                        let first = lines.next().unwrap_or_default().to_owned();
                        if lines.next().is_some() {
                            format!("{first} …")
                        } else {
                            first
                        }
                    }
                    other => other.to_string(),
                };
                format!("{key}: {value}")
            })
            .collect(),
        other => vec![other.to_string()],
    }
}

/// A tool's output behind the gutter: all of it up to [`OUTPUT_CAP`] lines, else its first
/// lines, how many were left out, and its last lines (where a command says what went wrong).
fn output_section(
    out: &mut Vec<Line<'static>>,
    theme: &Theme,
    width: usize,
    gutter: &Span<'static>,
    lines: &[(String, Style)],
) {
    if lines.len() <= OUTPUT_CAP {
        section(out, theme, width, gutter, lines, OUTPUT_CAP);
        return;
    }
    let head = OUTPUT_HEAD;
    let tail = OUTPUT_CAP - head;
    section(out, theme, width, gutter, &lines[..head], head);
    more_lines(out, theme, gutter, lines.len() - head - tail);
    section(
        out,
        theme,
        width,
        gutter,
        &lines[lines.len() - tail..],
        tail,
    );
}

fn more_lines(out: &mut Vec<Line<'static>>, theme: &Theme, gutter: &Span<'static>, more: usize) {
    let noun = if more == 1 { "line" } else { "lines" };
    out.push(Line::from(vec![
        gutter.clone(),
        Span::styled(
            format!("{} {more} more {noun}", theme.glyph("…", "...")),
            theme.style(Role::Dim),
        ),
    ]));
}

/// Rows behind the tool gutter, at most `cap` source lines, then how many were left out.
fn section(
    out: &mut Vec<Line<'static>>,
    theme: &Theme,
    width: usize,
    gutter: &Span<'static>,
    lines: &[(String, Style)],
    cap: usize,
) {
    for (line, style) in lines.iter().take(cap) {
        push_wrapped(out, line, width, gutter, gutter, *style);
    }
    if lines.len() > cap {
        more_lines(out, theme, gutter, lines.len() - cap);
    }
}

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

/// Text fit for the screen: terminal escape sequences removed, a line rewritten with `\r`
/// keeps what a terminal would show (the last part), tabs become spaces, other control
/// characters go.
pub(crate) fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line = line.rsplit('\r').next().unwrap_or(line);
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\u{1b}' => skip_escape(&mut chars),
                '\t' => out.push_str("    "),
                c if c.is_control() => {}
                c => out.push(c),
            }
        }
    }
    out
}

/// Skips the rest of an escape sequence (CSI, OSC, or a two-character one).
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => {
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
        Some(']') => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' {
                    break;
                }
                if c == '\u{1b}' {
                    chars.next();
                    break;
                }
            }
        }
        _ => {}
    }
}

/// `text` wrapped at word boundaries to `width` columns (a word longer than a row is split),
/// one entry per row; a blank line is an empty row. Leading indentation is kept.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    for line in text.split('\n') {
        wrap_line(line, width, &mut rows);
    }
    rows
}

fn wrap_line(line: &str, width: usize, rows: &mut Vec<String>) {
    let mut row = String::new();
    let mut row_width = 0;
    for token in tokens(line) {
        let word = token.trim_end_matches(' ');
        let word_width = word.width();
        if row_width + word_width <= width {
            row.push_str(token);
            row_width += token.width();
            continue;
        }
        if !row.trim().is_empty() {
            rows.push(row.trim_end().to_owned());
            row.clear();
            row_width = 0;
        }
        // The word starts a row; split it if it is wider than one.
        for c in token.chars() {
            let w = c.width().unwrap_or(0);
            if row_width + w > width && !row.is_empty() {
                if c == ' ' {
                    continue;
                }
                rows.push(row.trim_end().to_owned());
                row.clear();
                row_width = 0;
            }
            row.push(c);
            row_width += w;
        }
    }
    rows.push(row.trim_end().to_owned());
}

/// A line cut after each run of spaces: `"a  b c"` → `"a  "`, `"b "`, `"c"`.
fn tokens(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let word_end = rest.find(' ').unwrap_or(rest.len());
        let end = rest[word_end..]
            .find(|c| c != ' ')
            .map_or(rest.len(), |i| word_end + i);
        let (token, tail) = rest.split_at(end.max(1));
        rest = tail;
        Some(token)
    })
}

/// `text` wrapped behind a prefix: `first` on the first row, `rest` on the others.
fn push_wrapped(
    out: &mut Vec<Line<'static>>,
    text: &str,
    width: usize,
    first: &Span<'static>,
    rest: &Span<'static>,
    style: Style,
) {
    let prefix = first.width().max(rest.width());
    let room = width.saturating_sub(prefix).max(1);
    for (i, row) in wrap(text, room).into_iter().enumerate() {
        let prefix = if i == 0 { first } else { rest };
        let mut spans = Vec::with_capacity(2);
        if prefix.width() > 0 {
            spans.push(prefix.clone());
        }
        spans.push(Span::styled(row, style));
        out.push(Line::from(spans));
    }
}

/// `s` cut to `max` columns, `ellipsis` at the end when cut.
pub(crate) fn fit_end(s: &str, max: usize, ellipsis: &str) -> String {
    if s.width() <= max {
        return s.to_owned();
    }
    let room = max.saturating_sub(ellipsis.width());
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw > room {
            break;
        }
        out.push(c);
        w += cw;
    }
    if max >= ellipsis.width() {
        out.push_str(ellipsis);
    }
    out
}

/// `s` cut to `max` columns from the left, `ellipsis` first when cut (for paths: the file
/// name matters most).
pub(crate) fn fit_start(s: &str, max: usize, ellipsis: &str) -> String {
    if s.width() <= max {
        return s.to_owned();
    }
    let room = max.saturating_sub(ellipsis.width());
    let mut tail = Vec::new();
    let mut w = 0;
    for c in s.chars().rev() {
        let cw = c.width().unwrap_or(0);
        if w + cw > room {
            break;
        }
        tail.push(c);
        w += cw;
    }
    let mut out = ellipsis.to_owned();
    out.extend(tail.into_iter().rev());
    out
}

/// Spans cut to `max` columns, `ellipsis` at the end when cut.
pub(crate) fn fit_spans(spans: Vec<Span<'static>>, max: usize, ellipsis: &str) -> Line<'static> {
    let total: usize = spans.iter().map(Span::width).sum();
    if total <= max {
        return Line::from(spans);
    }
    let room = max.saturating_sub(ellipsis.width());
    let mut out = Vec::new();
    let mut used = 0;
    let mut last_style = Style::new();
    for span in spans {
        let w = span.width();
        last_style = span.style;
        if used + w <= room {
            used += w;
            out.push(span);
            continue;
        }
        let cut = fit_end(&span.content, room - used + ellipsis.width(), ellipsis);
        let cut = cut.strip_suffix(ellipsis).unwrap_or(&cut).to_owned();
        out.push(Span::styled(cut, span.style));
        break;
    }
    out.push(Span::styled(ellipsis.to_owned(), last_style));
    Line::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_breaks_at_words_and_splits_long_ones() {
        assert_eq!(
            wrap("hello brave new world", 11),
            ["hello brave", "new world"]
        );
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a\n\nb", 5), ["a", "", "b"]);
        assert_eq!(wrap("    indented code", 40), ["    indented code"]);
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(wrap("日本語のテキスト", 6), ["日本語", "のテキ", "スト"]);
    }

    #[test]
    fn clean_drops_escapes_and_keeps_the_last_carriage_return_part() {
        assert_eq!(clean("\u{1b}[31mred\u{1b}[0m"), "red");
        assert_eq!(clean("10%\r50%\r100%\nok\r\n"), "100%\nok\n");
        assert_eq!(clean("a\tb"), "a    b");
        assert_eq!(clean("\u{1b}]0;title\u{7}x"), "x");
    }

    #[test]
    fn fitting_cuts_at_the_right_end() {
        assert_eq!(fit_end("abcdef", 4, "…"), "abc…");
        assert_eq!(fit_start("/a/b/c/file.rs", 9, "…"), "…/file.rs");
        assert_eq!(fit_end("abc", 3, "…"), "abc");
    }
}
