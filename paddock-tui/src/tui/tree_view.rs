//! Drawing the tree pane: a pure function of [`TreeState`], through a [`Theme`] so the ASCII
//! and `NO_COLOR` fallbacks hold.
//!
//! A chat row, left to right: the cursor column, the mark column, the indentation (two columns
//! a level, the last one the branch glyph, hanging under the parent's fold marker), the fold
//! marker, the running spinner, the interrupted mark or the unread mark, the title (bold when unread, dim when
//! archived or shown only as a filter match's ancestor), how many chats a fold hides, the star;
//! then, right-aligned, the origin badge and the context window's use (`42%`). Below
//! [`NARROW`] columns badges drop their word and the usage column goes.

use paddock_proto::ChatSummary;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::theme::{Glyph, Mark, Role, Theme};
use super::tree::{HostHead, HostState, RowKind, TreeRow, TreeState};
use crate::format::{clean_title, context_percent, project_label};
use crate::needs::Need;

/// Below this width, origin badges show only their icon and context usage is hidden.
pub const NARROW: u16 = 60;

/// The columns of the usage cell (`100%`).
const USAGE_WIDTH: usize = 4;

/// Draws the tree pane into `area`; `tick` steps the running spinner, `focused` highlights the
/// cursor's row (an unfocused pane only shows the cursor mark).
pub fn render_tree(
    state: &TreeState,
    theme: &Theme,
    tick: u64,
    frame: &mut Frame<'_>,
    area: Rect,
    focused: bool,
) {
    if area.is_empty() {
        return;
    }
    let rows = state.rows();
    if rows.is_empty() {
        let text = if state.filtering() {
            "No chat matches the filter"
        } else {
            "No projects yet: paddock project add SLUG"
        };
        render_centered(text, theme, frame, area);
        return;
    }
    let height = usize::from(area.height);
    let offset = state.view_offset(height, rows.len());
    state.drawn_at(offset);
    let look = Look {
        theme,
        tick,
        width: usize::from(area.width),
        narrow: area.width < NARROW,
        usage_column: area.width >= NARROW
            && rows
                .iter()
                .any(|r| r.chat().and_then(context_percent).is_some()),
    };
    let cursor = state.cursor_index();
    for (n, row) in rows.iter().enumerate().skip(offset).take(height) {
        let Ok(dy) = u16::try_from(n - offset) else {
            break;
        };
        let line_area = Rect {
            y: area.y + dy,
            height: 1,
            ..area
        };
        let line = look.row(row, n == cursor, focused);
        frame.render_widget(line, line_area);
    }
}

/// A one-line message in the middle of the pane.
fn render_centered(text: &str, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let [_, middle, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(area);
    let text = truncate(text, usize::from(area.width), theme);
    frame.render_widget(
        Line::styled(text, theme.style(Role::Dim)).centered(),
        middle,
    );
}

/// What every row is drawn with.
struct Look<'t> {
    theme: &'t Theme,
    tick: u64,
    width: usize,
    narrow: bool,
    /// Whether to keep a column for context usage (wide, and some chat has it).
    usage_column: bool,
}

impl Look<'_> {
    fn row(&self, row: &TreeRow<'_>, is_cursor: bool, focused: bool) -> Line<'static> {
        let t = self.theme;
        let mut spans = vec![
            Span::raw(if is_cursor { t.mark(Mark::Cursor) } else { " " }),
            if row.marked {
                Span::styled(t.mark(Mark::Selected), t.style(Role::Marked))
            } else {
                Span::raw(" ")
            },
        ];
        // The cursor and mark columns.
        let used = 2;
        match row.kind {
            RowKind::Host(host) => self.host(host, used, &mut spans),
            RowKind::Project(project) => {
                self.project(row, &project.slug, &project.path, used, &mut spans)
            }
            RowKind::Chat { chat, .. } => self.chat(row, chat, used, &mut spans),
            RowKind::Empty { .. } => spans.push(Span::styled(
                "      no chats",
                t.style(Role::Dim).add_modifier(Modifier::ITALIC),
            )),
            RowKind::Archived {
                count,
                loading,
                error,
                ..
            } => self.archived_group(row, count, loading, error, used, &mut spans),
        }
        let mut line = Line::from(spans);
        if row.dim {
            line = line.patch_style(Style::new().add_modifier(Modifier::DIM));
        }
        if is_cursor && focused {
            line.style(t.style(Role::Selected))
        } else if row.marked {
            line.style(t.style(Role::Marked))
        } else {
            line
        }
    }

    /// A host's head: its name, and how it is (connecting, or down since when and why).
    fn host(&self, host: &HostHead, used: usize, spans: &mut Vec<Span<'static>>) {
        let t = self.theme;
        let head = format!("@ {}", host.name);
        let room = self.width.saturating_sub(used + head.width() + 2);
        spans.push(Span::styled(
            head,
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        ));
        let (note, role) = match &host.state {
            HostState::Up => return,
            HostState::Connecting => (format!("connecting{}", t.glyph(Glyph::Ellipsis)), Role::Dim),
            HostState::Down { reason, last_seen } => {
                let since = last_seen.map_or_else(String::new, |at| {
                    format!(" (last seen {})", crate::tui::hosts::clock(at))
                });
                (format!("down{since}: {reason}"), Role::Error)
            }
        };
        if room > 2 {
            spans.push(Span::styled(
                format!("  {}", truncate(&note, room, t)),
                t.style(role),
            ));
        }
    }

    fn project(
        &self,
        row: &TreeRow<'_>,
        slug: &str,
        path: &str,
        mut used: usize,
        spans: &mut Vec<Span<'static>>,
    ) {
        let t = self.theme;
        // Under its host's head, a project is named without the host.
        let local = crate::tui::hosts::slugs::local_of(slug);
        let head = format!("{} {}", t.fold(row.folded), project_label(local));
        used += head.width();
        spans.push(Span::styled(
            head,
            Style::new().add_modifier(Modifier::BOLD),
        ));
        if let Some(hint) = self.hidden_hint(row, " (", ")") {
            used += hint.width();
            spans.push(hint);
        }
        let room = self.width.saturating_sub(used + 3);
        if room > 1 {
            spans.push(Span::styled(
                format!("  {}", truncate(path, room, t)),
                t.style(Role::Dim),
            ));
        }
    }

    /// The "Archived" group row: `▸ Archived (3)`, the count once the list was read; open,
    /// `loading…` until it is, or why it could not be read.
    fn archived_group(
        &self,
        row: &TreeRow<'_>,
        count: Option<usize>,
        loading: bool,
        error: Option<&str>,
        used: usize,
        spans: &mut Vec<Span<'static>>,
    ) {
        let t = self.theme;
        let mut head = format!("  {} Archived", t.fold(row.folded));
        if let Some(n) = count {
            head.push_str(&format!(" ({n})"));
        }
        let head = truncate(&head, self.width.saturating_sub(used), t);
        let room = self.width.saturating_sub(used + head.width());
        spans.push(Span::styled(head, t.style(Role::Dim)));
        let note = if let Some(reason) = error {
            Some((format!("  cannot list them: {reason}"), Role::Error))
        } else if loading {
            Some((format!("  loading{}", t.glyph(Glyph::Ellipsis)), Role::Dim))
        } else {
            None
        };
        if let Some((note, role)) = note.filter(|_| room > 2) {
            spans.push(Span::styled(truncate(&note, room, t), t.style(role)));
        }
    }

    fn chat(
        &self,
        row: &TreeRow<'_>,
        chat: &ChatSummary,
        used: usize,
        spans: &mut Vec<Span<'static>>,
    ) {
        let t = self.theme;
        let indent = self.chat_indent(row);
        let fold = self.fold_cell(row);
        let status = self.status_mark(chat);
        let prefix = used + indent.width() + fold.width() + status.width() + 1;

        let hint = self.hidden_hint(row, " +", "");
        let star = chat
            .starred
            .then(|| Span::styled(format!(" {}", t.mark(Mark::Star)), t.style(Role::Star)));
        let right = self.right_part(row, chat);
        let right_width: usize = right.iter().map(Span::width).sum();
        let extras = hint.as_ref().map_or(0, Span::width) + star.as_ref().map_or(0, Span::width);
        // A column between the title and the right part.
        let gap = usize::from(!right.is_empty());
        let room = self
            .width
            .saturating_sub(prefix + extras + right_width + gap);
        let title = truncate(&clean_title(&chat.title), room, t);
        let title_style = self.title_style(row, chat);
        let status_line = self.status_line(chat, room.saturating_sub(title.width()));
        let status_width = status_line.as_ref().map_or(0, Span::width);
        let pad = self
            .width
            .saturating_sub(prefix + title.width() + status_width + extras + right_width);

        spans.push(Span::styled(indent, t.style(Role::Dim)));
        spans.push(Span::raw(fold));
        spans.push(status);
        spans.push(Span::raw(" "));
        spans.push(Span::styled(title, title_style));
        spans.extend(status_line);
        spans.extend(hint);
        spans.extend(star);
        if !right.is_empty() {
            spans.push(Span::raw(" ".repeat(pad)));
            spans.extend(right);
        }
    }

    /// A chat row's indentation: two columns a level, the last one the branch glyph.
    fn chat_indent(&self, row: &TreeRow<'_>) -> String {
        let mut indent = String::from("  ");
        if row.level > 0 {
            indent.push_str(&"  ".repeat(row.level - 1));
            indent.push_str(&self.theme.branch());
        }
        indent
    }

    /// The fold marker of a chat with children, or two blank columns.
    fn fold_cell(&self, row: &TreeRow<'_>) -> String {
        if row.has_children {
            format!("{} ", self.theme.fold(row.folded))
        } else {
            "  ".to_owned()
        }
    }

    /// The mark of what the chat needs from you (`needs.rs`, most urgent first), else the
    /// waiting mark of a turn queued for a free claude process, else the running spinner, else
    /// a blank.
    fn status_mark(&self, chat: &ChatSummary) -> Span<'static> {
        let t = self.theme;
        let mark = match Need::of(chat) {
            Some(Need::Approval) => Mark::Approval,
            Some(Need::Failed) => Mark::Failed,
            Some(Need::Interrupted) => Mark::Interrupted,
            Some(Need::Parked) => Mark::Waiting,
            // Queued for a free claude process: it waits, it does not turn yet.
            _ if chat.running && chat.waiting_process => Mark::Waiting,
            _ if chat.running => {
                return Span::styled(t.spinner(self.tick), t.style(Role::Running));
            }
            Some(Need::Unread) => Mark::Unread,
            None => return Span::raw(" "),
        };
        Span::styled(t.mark(mark), t.style(mark.role()))
    }

    /// The right-aligned part: the badge, the usage cell, a column of margin (empty if neither).
    fn right_part(&self, row: &TreeRow<'_>, chat: &ChatSummary) -> Vec<Span<'static>> {
        let t = self.theme;
        // Nested under another chat (in the "Archived" group, one level is the group's).
        let nested = row.level > usize::from(row.archived);
        let badge = t.badge(chat.origin, chat.depth, nested, self.narrow);
        let usage = self.usage_column.then(|| usage_cell(chat, t));
        let mut right: Vec<Span<'static>> = Vec::new();
        if let Some(badge) = badge {
            right.push(badge);
        }
        if chat.fork {
            if !right.is_empty() {
                right.push(Span::raw(" "));
            }
            right.push(t.fork_badge(self.narrow));
        }
        if !chat.overlaps.is_empty() {
            if !right.is_empty() {
                right.push(Span::raw(" "));
            }
            right.push(t.overlap_badge(self.narrow));
        }
        if let Some(usage) = usage {
            if !right.is_empty() {
                right.push(Span::raw(" "));
            }
            right.push(usage);
        }
        if !right.is_empty() {
            right.push(Span::raw(" "));
        }
        right
    }

    /// The title's style: bold when unread, dim when archived or only a match's ancestor.
    fn title_style(&self, row: &TreeRow<'_>, chat: &ChatSummary) -> Style {
        let mut title_style = Style::new();
        if chat.unread {
            title_style = title_style.add_modifier(Modifier::BOLD);
        }
        if chat.archived || row.context {
            title_style = title_style.patch(self.theme.style(Role::Dim));
        }
        title_style
    }

    /// The chat's one-line status, dim after the title, where `spare` columns leave room for it.
    fn status_line(&self, chat: &ChatSummary, spare: usize) -> Option<Span<'static>> {
        let t = self.theme;
        chat.status
            .as_deref()
            .filter(|_| !self.narrow && spare >= 16)
            .map(|line| {
                let dash = format!(" {} ", t.glyph(Glyph::Dash));
                let text = truncate(&clean_title(line), spare - dash.width(), t);
                Span::styled(format!("{dash}{text}"), t.style(Role::Dim))
            })
    }

    /// How many chats a fold hides (`open`N`close`), then what they hold: how many wait for
    /// you, run, failed, are unread (`+5 ◉1 ✗1 •3`), in the style of the most urgent.
    fn hidden_hint(&self, row: &TreeRow<'_>, open: &str, close: &str) -> Option<Span<'static>> {
        if !row.folded {
            return None;
        }
        let (t, h) = (self.theme, row.hidden);
        let mut text = format!("{open}{}{close}", h.chats);
        let mut role = None;
        for (count, mark) in [
            (h.waiting, Mark::Approval),
            (h.failed, Mark::Failed),
            (h.running, Mark::Running),
            (h.unread, Mark::Unread),
        ] {
            if count > 0 {
                text.push_str(&format!(" {}{count}", t.mark(mark)));
                role.get_or_insert(mark.role());
            }
        }
        Some(Span::styled(text, t.style(role.unwrap_or(Role::Dim))))
    }
}

/// The context usage cell, right-aligned in [`USAGE_WIDTH`] columns: `42%`, `<1%` for a little
/// that rounds to nothing, blank when unknown. Nearly full windows stand out.
fn usage_cell(chat: &ChatSummary, theme: &Theme) -> Span<'static> {
    let percent = context_percent(chat);
    let text = match percent {
        None => String::new(),
        Some(0) if chat.usage.as_ref().is_some_and(|u| u.context_tokens > 0) => "<1%".to_owned(),
        Some(p) => format!("{p}%"),
    };
    let role = match percent {
        Some(p) if p >= 90 => Role::Error,
        Some(p) if p >= 75 => Role::Warning,
        _ => Role::Dim,
    };
    Span::styled(format!("{text:>USAGE_WIDTH$}"), theme.style(role))
}

/// Cuts `text` to at most `max` columns, marking the cut with `…` (`~` in ASCII).
pub fn truncate(text: &str, max: usize, theme: &Theme) -> String {
    crate::format::fit_width(text, max, theme.glyph(Glyph::Cut))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_counts_columns() {
        let t = Theme::default();
        assert_eq!(truncate("hello", 5, &t), "hello");
        assert_eq!(truncate("hello world", 6, &t), "hello…");
        assert_eq!(truncate("日本語テキスト", 7, &t), "日本語…");
        assert_eq!(truncate("abc", 0, &t), "");
        assert_eq!(truncate("hello world", 6, &Theme::plain()), "hello~");
    }

    #[test]
    fn usage_reads_as_ls_does() {
        let t = Theme::plain();
        let mut chat = ChatSummary::default();
        assert_eq!(usage_cell(&chat, &t).content, "    ");
        chat.usage = Some(paddock_proto::ChatUsage {
            context_tokens: 84_000,
            context_limit: 200_000,
            ..Default::default()
        });
        assert_eq!(usage_cell(&chat, &t).content, " 42%");
        chat.usage = Some(paddock_proto::ChatUsage {
            context_tokens: 10,
            context_limit: 200_000,
            ..Default::default()
        });
        assert_eq!(usage_cell(&chat, &t).content, " <1%");
    }
}
