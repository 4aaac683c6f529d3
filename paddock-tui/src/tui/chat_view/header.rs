//! The chat pane's header line: title, id, running spinner, lines below, usage.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::text::fit_end;
use crate::tui::chat::ChatView;
use crate::tui::theme::{Glyph, Mark, Role, Theme};

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
    if let Some(percent) = crate::format::usage_percent(u) {
        parts.push(format!("{percent}%"));
    }
    let dot = format!(" {} ", theme.glyph(Glyph::Dot));
    (!parts.is_empty()).then(|| parts.join(&dot))
}

pub(super) fn render_header(
    view: &ChatView,
    theme: &Theme,
    tick: u64,
    frame: &mut Frame<'_>,
    area: Rect,
    focused: bool,
    below: usize,
) {
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    let dot = format!(" {} ", theme.glyph(Glyph::Dot));
    let mut right: Vec<Span<'static>> = Vec::new();
    if area.width >= USAGE_HEADER_WIDTH
        && let Some(usage) = view.usage().and_then(|u| usage_text(u, theme))
    {
        right.push(Span::styled(usage, theme.style(Role::Dim)));
    }
    if view.running() {
        if !right.is_empty() {
            right.push(Span::styled(dot.clone(), theme.style(Role::Dim)));
        }
        // Waiting for a person's answer is not working: it says so, and where to answer.
        right.push(if view.waiting_approval() {
            Span::styled(
                format!("{} waiting for your answer (I)", theme.mark(Mark::Approval)),
                theme.style(Mark::Approval.role()),
            )
        } else if view.waiting_process() {
            Span::styled(
                format!("{} waiting for a free claude", theme.mark(Mark::Waiting)),
                theme.style(Mark::Waiting.role()),
            )
        } else {
            Span::styled(
                format!("{} running", theme.spinner(tick)),
                theme.style(Role::Running),
            )
        });
    }
    if below > 0 {
        if !right.is_empty() {
            right.push(Span::styled(dot.clone(), theme.style(Role::Dim)));
        }
        right.push(Span::styled(
            if theme.unicode {
                format!("{}{below}", theme.glyph(Glyph::Behind))
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
    // A worktree chat says on which branch it works.
    let id_part = match view.worktree_branch() {
        Some(branch) => format!("{dot}{id}{dot}{} {branch}", theme.mark(Mark::Worktree)),
        None => format!("{dot}{id}"),
    };
    let mut left = vec![];
    // A worktree chat's branch keeps its place while the title has a dozen columns left (a
    // long title is cut for it); a plain chat's id goes first when the title needs the room.
    const TITLE_MIN: usize = 12;
    let keep_id = view.worktree_branch().is_some() && id_part.width() + TITLE_MIN <= room;
    if id.is_empty() || (!keep_id && title.width() + id_part.width() > room) {
        left.push(Span::styled(fit_end(title, room, ellipsis), title_style));
    } else {
        let title_room = room - id_part.width();
        left.push(Span::styled(
            fit_end(title, title_room, ellipsis),
            title_style,
        ));
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
