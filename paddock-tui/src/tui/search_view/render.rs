//! Drawing the search view: the query line, the results with their snippets, and the words
//! they are made of.

use super::*;
use crate::tui::theme::{Glyph, Mark};

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

/// A match's field as a word of at most [`FIELD`] columns.
pub fn field_word(field: SearchField) -> &'static str {
    match field {
        SearchField::Title => "title",
        SearchField::User => "user",
        SearchField::Assistant => "claude",
        SearchField::ToolUse => "tool",
        SearchField::ToolResult => "output",
    }
}

/// When a chat was last active, against `now`: `now`, `5m ago`, `3h ago`, `2d ago`, then the
/// day (`Nov 02`, another year `2025-10-28`). A time that does not parse shows nothing.
pub fn ago(rfc3339: &str, now: &DateTime<FixedOffset>) -> String {
    let Ok(at) = DateTime::parse_from_rfc3339(rfc3339) else {
        return String::new();
    };
    let secs = now.signed_duration_since(at).num_seconds();
    match secs {
        ..60 if secs >= 0 => "now".to_owned(),
        60..3_600 => format!("{}m ago", secs / 60),
        3_600..86_400 => format!("{}h ago", secs / 3_600),
        86_400..604_800 => format!("{}d ago", secs / 86_400),
        _ => {
            let at = at.with_timezone(&now.timezone());
            let format = if at.year() == now.year() {
                "%b %d"
            } else {
                "%Y-%m-%d"
            };
            at.format(format).to_string()
        }
    }
}

/// `2,400`.
pub fn thousands(n: u32) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A snippet in at most `room` columns, its highlighted parts styled (and, without color,
/// `[bracketed]`). A snippet too long is cut so that its first highlight shows, with some of
/// what comes before it. Offsets past the end, or backwards, are ignored.
pub fn snippet_spans(
    snippet: &str,
    highlights: &[[u32; 2]],
    room: usize,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let (chars, lit) = lit_chars(snippet, highlights);
    let cells = snippet_cells(&chars, &lit, theme);
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    let ell = ellipsis.width();
    let from = if cells_width(&cells) > room {
        cut_start(&cells, room, ell)
    } else {
        0
    };
    let lead = from > 0;
    let mut budget = room.saturating_sub(if lead { ell } else { 0 });
    let rest = &cells[from..];
    let fits = cells_width(rest) <= budget;
    if !fits {
        budget = budget.saturating_sub(ell);
    }
    let mut spans = Vec::new();
    if lead {
        spans.push(Span::styled(ellipsis, theme.style(Role::Dim)));
    }
    spans.extend(styled_runs(fitting(rest, budget), theme));
    if !fits {
        spans.push(Span::styled(ellipsis, theme.style(Role::Dim)));
    }
    spans
}

/// The snippet's chars on one line (a newline or a tab as a space, anything else a terminal
/// would act on made visible, as `format::visible` shows it), and for each whether a highlight
/// covers it; the highlights' offsets count the snippet's own chars.
fn lit_chars(snippet: &str, highlights: &[[u32; 2]]) -> (Vec<char>, Vec<bool>) {
    let covered = |i: usize| {
        highlights.iter().any(|[start, end]| {
            usize::try_from(*start).is_ok_and(|s| s <= i)
                && usize::try_from(*end).is_ok_and(|e| i < e)
        })
    };
    let mut chars = Vec::with_capacity(snippet.len());
    let mut lit = Vec::with_capacity(snippet.len());
    let mut shown = String::new();
    for (i, c) in snippet.chars().enumerate() {
        shown.clear();
        match c {
            '\n' | '\t' => shown.push(' '),
            c => crate::format::push_visible_char(&mut shown, c),
        }
        let on = covered(i);
        for c in shown.chars() {
            chars.push(c);
            lit.push(on);
        }
    }
    (chars, lit)
}

/// The cells to draw, each a char and whether it is highlighted: the snippet's chars (the
/// daemon's `…` as `...` in ASCII), and brackets around each highlighted run without color.
fn snippet_cells(chars: &[char], lit: &[bool], theme: &Theme) -> Vec<(char, bool)> {
    let brackets = !theme.color;
    let mut cells: Vec<(char, bool)> = Vec::with_capacity(chars.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        let on = lit[i];
        let was = i > 0 && lit[i - 1];
        if brackets && on && !was {
            cells.push(('[', true));
        }
        if brackets && !on && was {
            cells.push((']', true));
        }
        if c == '…' && !theme.unicode {
            cells.extend([('.', on); 3]);
        } else {
            cells.push((c, on));
        }
    }
    if brackets && lit.last().copied().unwrap_or(false) {
        cells.push((']', true));
    }
    cells
}

/// How many columns the cells take.
fn cells_width(cells: &[(char, bool)]) -> usize {
    cells.iter().map(|(c, _)| c.width().unwrap_or(0)).sum()
}

/// Where a snippet too long for `room` starts: early enough to show the first highlight with
/// a quarter of the room before it, or at its start when the highlight shows from there.
fn cut_start(cells: &[(char, bool)], room: usize, ell: usize) -> usize {
    let first = cells.iter().position(|(_, on)| *on);
    let first_end = first.map(|f| {
        f + cells[f..]
            .iter()
            .position(|(_, on)| !*on)
            .unwrap_or(cells.len() - f)
    });
    if let (Some(first), Some(first_end)) = (first, first_end)
        && cells_width(&cells[..first_end]) + ell > room
    {
        let before = room / 4;
        let mut at = first;
        while at > 0 && cells_width(&cells[at - 1..first]) <= before {
            at -= 1;
        }
        return at;
    }
    0
}

/// The cells from the start that fit in `budget` columns.
fn fitting(cells: &[(char, bool)], budget: usize) -> Vec<(char, bool)> {
    let mut shown: Vec<(char, bool)> = Vec::new();
    let mut used = 0;
    for &(c, on) in cells {
        let w = c.width().unwrap_or(0);
        if used + w > budget {
            break;
        }
        shown.push((c, on));
        used += w;
    }
    shown
}

/// One span per run of highlighted or plain cells, styled as such.
fn styled_runs(shown: Vec<(char, bool)>, theme: &Theme) -> Vec<Span<'static>> {
    let normal = theme.style(Role::Normal);
    let lit_style = theme.style(Role::Match);
    let mut spans = Vec::new();
    let mut run = String::new();
    let mut run_on = false;
    for (c, on) in shown {
        if on != run_on && !run.is_empty() {
            let style = if run_on { lit_style } else { normal };
            spans.push(Span::styled(std::mem::take(&mut run), style));
        }
        run_on = on;
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, if run_on { lit_style } else { normal }));
    }
    spans
}

// ---------------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------------

/// Draws the view into `area`: the query line, the header, then the results (or what the view
/// waits for). Moves the view's first line so the cursor's match shows.
pub fn render_search(view: &mut SearchView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let width = usize::from(area.width);
    frame.render_widget(query_line(view, theme, width), Rect { height: 1, ..area });
    let mut head = header_lines(view, theme);
    head.push(Line::default());
    let head = wrap_lines(head, width);
    let head_height = u16::try_from(head.len())
        .unwrap_or(u16::MAX)
        .min(area.height - 1);
    let head_area = Rect {
        y: area.y + 1,
        height: head_height,
        ..area
    };
    frame.render_widget(Paragraph::new(head), head_area);
    let list = Rect {
        y: head_area.y + head_height,
        height: area.height - 1 - head_height,
        ..area
    };
    if list.height == 0 {
        return;
    }
    let message = body_message(view, theme);
    if !message.is_empty() {
        frame.render_widget(Paragraph::new(wrap_lines(message, width)), list);
        return;
    }
    let (lines, cursor) = list_lines(view, theme, width);
    let height = usize::from(list.height);
    view.top = scroll_to(view.top, cursor, lines.len(), height);
    let shown: Vec<Line<'static>> = lines.into_iter().skip(view.top).take(height).collect();
    frame.render_widget(Paragraph::new(shown), list);
}

/// ` Search  cookie "refresh race"▏` with the caret when editing, `archived too` at the right.
pub(super) fn query_line(view: &SearchView, theme: &Theme, width: usize) -> Line<'static> {
    let label = Span::styled(" Search ", theme.style(Role::Accent));
    let right = view
        .archived
        .then(|| Span::styled(" archived too ", theme.style(Role::Warning)));
    let right_w = right.as_ref().map_or(0, Span::width);
    let room = width.saturating_sub(label.width() + 1 + right_w).max(1);
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    // The part of the query that fits, keeping the caret (one cell past the end) in view.
    let caret = view.caret.min(view.query.len());
    let col = |from: usize, to: usize| -> usize {
        view.query[from..to]
            .iter()
            .map(|c| c.width().unwrap_or(0))
            .sum()
    };
    let mut from = 0;
    while from < caret && col(from, caret) + 1 + if from > 0 { ellipsis.width() } else { 0 } > room
    {
        from += 1;
    }
    let lead = if from > 0 { ellipsis } else { "" };
    let mut spans = vec![label, Span::raw(" ")];
    if !lead.is_empty() {
        spans.push(Span::styled(lead, theme.style(Role::Dim)));
    }
    let budget = room.saturating_sub(lead.width());
    let mut used = 0;
    let mut before = String::new();
    let mut at = String::new();
    let mut after = String::new();
    for (i, &c) in view.query.iter().enumerate().skip(from) {
        let w = c.width().unwrap_or(0);
        if used + w > budget {
            break;
        }
        used += w;
        match i.cmp(&caret) {
            std::cmp::Ordering::Less => before.push(c),
            std::cmp::Ordering::Equal => at.push(c),
            std::cmp::Ordering::Greater => after.push(c),
        }
    }
    // A selected query shows selected: typing replaces it.
    let normal = if view.editing && view.selected {
        theme.style(Role::Selected)
    } else {
        theme.style(Role::Normal)
    };
    spans.push(Span::styled(before, normal));
    if view.editing {
        if at.is_empty() {
            at.push(' ');
        }
        spans.push(Span::styled(at, theme.style(Role::Selected)));
    } else {
        spans.push(Span::styled(at, normal));
    }
    spans.push(Span::styled(after, normal));
    if view.editing && view.query.is_empty() {
        spans.push(Span::styled(
            fit("words, or \"a phrase\"", room.saturating_sub(1), theme),
            theme.style(Role::Dim),
        ));
    }
    if let Some(right) = right {
        let used: usize = spans.iter().map(Span::width).sum();
        spans.push(Span::raw(" ".repeat(width.saturating_sub(used + right_w))));
        spans.push(right);
    }
    Line::from(spans)
}

/// How many chats matched (and, while the index is being built, how far it has come).
pub(super) fn header_lines(view: &SearchView, theme: &Theme) -> Vec<Line<'static>> {
    let dim = theme.style(Role::Dim);
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    let mut lines = Vec::new();
    let Some(results) = &view.results else {
        if view.loading {
            lines.push(Line::styled(format!(" Searching{ellipsis}"), dim));
        }
        return lines;
    };
    // The count (the body says when nothing matched), what was searched, a refresh running.
    let shown = u32::try_from(results.hits.len()).unwrap_or(u32::MAX);
    let mut parts = Vec::new();
    match results.total {
        0 => {}
        1 => parts.push("1 chat".to_owned()),
        n if shown < n => parts.push(format!(
            "the first {} of {} chats",
            thousands(shown),
            thousands(n)
        )),
        n => parts.push(format!("{} chats", thousands(n))),
    }
    if view.asked.as_ref().is_some_and(|a| a.archived) {
        parts.push("archived ones too".to_owned());
    }
    if view.loading {
        parts.push(format!("searching{ellipsis}"));
    }
    if !parts.is_empty() {
        let dot = format!(" {} ", theme.glyph(Glyph::Dot));
        lines.push(Line::styled(format!(" {}", parts.join(&dot)), dim));
    }
    if let Some(p) = results.indexing {
        lines.push(Line::styled(
            format!(
                " indexing {}/{} chats {} results so far",
                thousands(p.done),
                thousands(p.total),
                theme.glyph(Glyph::Dash),
            ),
            theme.style(Role::Warning),
        ));
    }
    lines
}

/// What the body says instead of a list: how to search, the failure, no match. Empty when
/// there is a list to draw.
fn body_message(view: &SearchView, theme: &Theme) -> Vec<Line<'static>> {
    let dim = theme.style(Role::Dim);
    if let Some(reason) = &view.error {
        let key = label_for(Context::Search, Command::Refresh).unwrap_or("r");
        return vec![
            Line::styled(
                format!(" Search failed: {reason}"),
                theme.style(Role::Error),
            ),
            Line::default(),
            Line::styled(format!(" {key} tries again."), dim),
        ];
    }
    let Some(results) = &view.results else {
        if view.asked.is_some() {
            return vec![Line::default()];
        }
        return vec![
            Line::styled(
                " Each word finds the words it starts (refr finds refresh); \"quoted phrases\" are found as they are.",
                dim,
            ),
            Line::styled(
                " Enter searches the titles, messages and tool calls of every chat.",
                dim,
            ),
        ];
    };
    if !results.hits.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![Line::styled(
        if results.indexing.is_some() {
            " No chat indexed so far matches."
        } else {
            " No chat matches."
        },
        theme.style(Role::Normal),
    )];
    if !view.asked.as_ref().is_some_and(|a| a.archived) {
        let key = label_for(Context::Search, Command::ToggleArchived).unwrap_or("a");
        lines.push(Line::styled(
            format!(" {key} searches archived chats too."),
            dim,
        ));
    }
    lines
}

/// A chat's row: badge, title, and at the right its project and last activity.
fn hit_line(view: &SearchView, hit: &SearchHit, theme: &Theme, width: usize) -> Line<'static> {
    let now = view.now();
    let narrow = width < NARROW;
    let badge = view
        .origins
        .get(&hit.session_id)
        .and_then(|&(origin, depth)| theme.badge(origin, depth, false, narrow));
    let dot = theme.glyph(Glyph::Dot);
    let when = ago(&hit.updated_at, &now);
    let project = project_label(&hit.project_slug).into_owned();
    let mut parts = vec![project];
    if hit.archived {
        parts.push("archived".to_owned());
    }
    parts.push(when);
    let parts: Vec<String> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    let title = clean_title(&hit.title);
    let badge_w = badge.as_ref().map_or(0, |b| b.width() + 1);
    // The right part as long as the title keeps most of the row: all of it, then without the
    // project, then the time alone, then nothing.
    let title_min = title.width().min(width * 3 / 5);
    let candidates = [
        parts.clone(),
        parts.iter().skip(1).cloned().collect(),
        parts.last().cloned().into_iter().collect(),
        vec![],
    ];
    let right = candidates
        .iter()
        .map(|p| p.join(&format!(" {dot} ")))
        .find(|r| {
            let r_w = if r.is_empty() { 0 } else { r.width() + 2 };
            width.saturating_sub(2 + badge_w + r_w) >= title_min
        })
        .unwrap_or_default();
    let right_w = if right.is_empty() {
        0
    } else {
        right.width() + 1
    };
    let room = width.saturating_sub(2 + badge_w + right_w + 1);
    let title = fit(&title, room, theme);
    let mut spans = vec![Span::raw("  ")];
    if let Some(badge) = badge {
        spans.push(badge);
        spans.push(Span::raw(" "));
    }
    let used: usize = spans.iter().map(Span::width).sum::<usize>() + title.width();
    spans.push(Span::styled(
        title,
        theme
            .style(Role::Normal)
            .add_modifier(ratatui::style::Modifier::BOLD),
    ));
    if !right.is_empty() {
        spans.push(Span::raw(" ".repeat(width.saturating_sub(used + right_w))));
        spans.push(Span::styled(format!("{right} "), theme.style(Role::Dim)));
    }
    Line::from(spans)
}

/// A match's row: the cursor, the field, the snippet.
fn match_line(m: &SearchMatch, theme: &Theme, width: usize, cursor: bool) -> Line<'static> {
    let mark = if cursor {
        theme.mark(Mark::Cursor)
    } else {
        " "
    };
    let word = field_word(m.field);
    let field = format!("{word}{}", " ".repeat(FIELD.saturating_sub(word.width())));
    let mut spans = vec![
        Span::raw(format!(" {mark} ")),
        Span::styled(field, theme.style(Role::Dim)),
        Span::raw(" "),
    ];
    let used: usize = spans.iter().map(Span::width).sum();
    spans.extend(snippet_spans(
        &m.snippet,
        &m.highlights,
        width.saturating_sub(used + 1),
        theme,
    ));
    let line = Line::from(spans);
    if cursor {
        line.style(theme.style(Role::Selected))
    } else {
        line
    }
}

/// The list's lines, and the lines the cursor's target takes (with its chat's row when it is
/// the chat's first).
fn list_lines(
    view: &SearchView,
    theme: &Theme,
    width: usize,
) -> (Vec<Line<'static>>, Option<(usize, usize)>) {
    let Some(results) = &view.results else {
        return (Vec::new(), None);
    };
    let mut lines = Vec::new();
    let mut cursor_range = None;
    let mut target = 0;
    for hit in &results.hits {
        let hit_at = lines.len();
        lines.push(hit_line(view, hit, theme, width));
        if hit.matches.is_empty() {
            let cursor = target == view.cursor;
            let line = Line::styled(
                format!(
                    " {} (no match listed)",
                    if cursor {
                        theme.mark(Mark::Cursor)
                    } else {
                        " "
                    }
                ),
                theme.style(Role::Dim),
            );
            lines.push(if cursor {
                line.style(theme.style(Role::Selected))
            } else {
                line
            });
            if cursor {
                cursor_range = Some((hit_at, lines.len()));
            }
            target += 1;
        }
        for (i, m) in hit.matches.iter().enumerate() {
            let cursor = target == view.cursor;
            let start = lines.len();
            lines.push(match_line(m, theme, width, cursor));
            if cursor {
                cursor_range = Some((if i == 0 { hit_at } else { start }, lines.len()));
            }
            target += 1;
        }
        if hit.more > 0 {
            lines.push(Line::styled(
                format!("     +{} more", thousands(hit.more)),
                theme.style(Role::Dim),
            ));
        }
    }
    (lines, cursor_range)
}
