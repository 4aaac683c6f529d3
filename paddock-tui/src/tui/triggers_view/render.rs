//! Drawing the Triggers view: its title, the list (or a trigger's runs), the form, and the
//! last part (a question, what an action came to, the `add` syntax).

use super::*;
use crate::tui::theme::{Glyph, Mark};

/// Draws the view into `area`: its title, the triggers (or a trigger's runs, or what it waits
/// for), and at the bottom the question, what the last action came to, or how to add one.
/// Moves the view's first line so the cursor's trigger shows.
pub fn render_triggers(view: &mut TriggersView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let width = usize::from(area.width);
    render_title(view, theme, frame, Rect { height: 1, ..area });
    let footer = footer_lines(view, theme, width);
    let footer_height = u16::try_from(footer.len())
        .unwrap_or(0)
        .min(area.height.saturating_sub(2));
    let body = Rect {
        y: area.y + 1,
        height: area.height.saturating_sub(1 + footer_height),
        ..area
    };
    if footer_height > 0 {
        let at = Rect {
            y: area.y + area.height - footer_height,
            height: footer_height,
            ..area
        };
        let skip = footer.len().saturating_sub(usize::from(footer_height));
        let shown: Vec<Line<'static>> = footer.into_iter().skip(skip).collect();
        frame.render_widget(Paragraph::new(shown), at);
    }
    if body.height == 0 {
        return;
    }
    let now = view.now();
    let height = usize::from(body.height);
    let (lines, cursor) = match &view.runs {
        Some(runs) => run_lines(runs, theme, width, &now),
        None => body_lines(view, theme, width, &now),
    };
    let top = match &view.runs {
        Some(runs) => runs.top,
        None => view.top,
    };
    let top = scroll_to(top, cursor, lines.len(), height);
    match view.runs.as_mut() {
        Some(runs) => runs.top = top,
        None => view.top = top,
    }
    let shown: Vec<Line<'static>> = lines.into_iter().skip(top).take(height).collect();
    frame.render_widget(Paragraph::new(shown), body);
}

/// ` Triggers · webapp` (or every project, or the trigger whose runs show), and the scope key
/// at the right.
fn render_title(view: &TriggersView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let width = usize::from(area.width);
    let dot = theme.glyph(Glyph::Dot);
    let what = match (&view.runs, view.asked()) {
        (Some(runs), _) => format!(
            " {} {} {dot} recent runs",
            theme.mark(Mark::Cursor),
            runs.trigger.name
        ),
        (None, Some(slug)) => format!(" {dot} {}", project_label(&slug)),
        (None, None) => format!(" {dot} every project"),
    };
    let right = match (&view.runs, &view.project) {
        (None, Some(project)) => {
            let key = label_for(Context::Triggers, Command::CycleScope).unwrap_or("a");
            let other = if view.every {
                format!(" {} only ", project_label(project))
            } else {
                " every project ".to_owned()
            };
            Some(Line::from(vec![
                Span::styled(key.to_owned(), Style::new().add_modifier(Modifier::BOLD)),
                Span::styled(other, theme.style(Role::Dim)),
            ]))
        }
        _ => None,
    };
    let head = Span::styled(" Triggers", theme.style(Role::Accent));
    let right_width = right.as_ref().map_or(0, Line::width);
    let room = width.saturating_sub(head.width() + right_width + 1);
    let show_right = right.is_some() && room >= 12;
    let room = if show_right {
        room
    } else {
        width.saturating_sub(head.width())
    };
    let left = Line::from(vec![
        head,
        Span::styled(fit(&what, room, theme), theme.style(Role::Normal)),
    ]);
    if let Some(right) = right.filter(|_| show_right) {
        frame.render_widget(right.right_aligned(), area);
    }
    frame.render_widget(left, area);
}

/// The last lines: the question waiting for `y`, else what the last action came to, else how
/// to add a trigger (wrapped, at most [`FOOTER_MAX`]).
fn footer_lines(view: &TriggersView, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    if let Some(form) = &view.form {
        return form_lines(form, theme, width);
    }
    let line = if let Some(confirm) = &view.confirm {
        Line::styled(
            format!(" {}", question(confirm)),
            theme.style(Role::Warning).add_modifier(Modifier::BOLD),
        )
    } else if let Some(said) = &view.said {
        Line::styled(
            format!(" {}", theme.words(&said.text)),
            theme.style(said.role),
        )
    } else if view.runs.is_some() {
        return Vec::new();
    } else {
        let project = match view.asked().or_else(|| view.project.clone()) {
            Some(slug) if !slug.is_empty() => format!(" -p {slug}"),
            _ => String::new(),
        };
        Line::styled(
            format!(
                " Add one: paddock trigger add NAME{project} --cron '0 2 * * *' | --every 15m | \
                 --on EVENT --prompt TEXT"
            ),
            theme.style(Role::Dim),
        )
    };
    let mut lines = wrap_lines(vec![line], width);
    lines.truncate(FOOTER_MAX);
    lines
}

/// The add form: a heading, a line per field (the focused one's label bold, with a cursor), and
/// what is wrong when saving failed.
fn form_lines(form: &Form, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let dim = theme.style(Role::Dim);
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::styled(
        format!(
            " New trigger in {}{}",
            project_label(&form.project),
            if form.sending { " (saving)" } else { "" }
        ),
        theme.style(Role::Accent),
    )];
    const LABELS: [&str; FIELDS] = ["name", "when", "prompt", "session"];
    const HINTS: [&str; 3] = [
        "lower-case letters, digits, - and _",
        "0 2 * * * [ZONE] | every 15m | on EVENT | manual",
        "what each fire tells the chat",
    ];
    let room = width.saturating_sub(1 + 8 + 1);
    for (i, label) in LABELS.iter().enumerate() {
        let focused = i == form.focus;
        let mut spans = vec![Span::styled(
            format!(" {label:<7} "),
            if focused { bold } else { dim },
        )];
        match form.text.get(i) {
            Some(text) if text.is_empty() && !focused => {
                spans.push(Span::styled(fit(HINTS[i], room, theme), dim));
            }
            Some(text) => {
                let cursor = if focused {
                    theme.glyph(Glyph::TextCursor)
                } else {
                    ""
                };
                let shown: String = {
                    let chars: Vec<char> = text.chars().collect();
                    let keep = room.saturating_sub(2);
                    if chars.len() > keep {
                        let tail: String = chars[chars.len() - keep..].iter().collect();
                        format!("{}{tail}", theme.glyph(Glyph::Cut))
                    } else {
                        text.clone()
                    }
                };
                spans.push(Span::raw(shown));
                spans.push(Span::styled(cursor, dim));
                if text.is_empty() && focused {
                    spans.push(Span::styled(
                        format!(" {}", fit(HINTS[i], room.saturating_sub(2), theme)),
                        dim,
                    ));
                }
            }
            None => {
                let mark = if form.resume { "[x]" } else { "[ ]" };
                spans.push(Span::raw(mark));
                spans.push(Span::styled(
                    " resume one chat across fires (space)",
                    if focused {
                        theme.style(Role::Normal)
                    } else {
                        dim
                    },
                ));
            }
        }
        lines.push(Line::from(spans));
    }
    if let Some(error) = &form.error {
        lines.extend(wrap_lines(
            vec![Line::styled(
                format!(
                    " {} {}",
                    theme.mark(Mark::Failed),
                    theme.words(&one_line(error, 300))
                ),
                theme.style(Role::Error),
            )],
            width,
        ));
    }
    lines.truncate(FORM_MAX);
    lines
}

/// The icon of a schedule or a hook, in its colour.
fn kind_icon(kind: TriggerKind, theme: &Theme) -> Span<'static> {
    match kind {
        TriggerKind::Schedule => {
            Span::styled(theme.mark(Mark::Scheduled), theme.style(Role::Scheduled))
        }
        TriggerKind::Hook => Span::styled(theme.mark(Mark::Hook), theme.style(Role::Hook)),
    }
}

/// The session mode in words: `new chat per fire`, `resumes chat c71d4e2a` (the chat it owns).
fn session_words(t: &TriggerInfo) -> String {
    match (t.spec.session, &t.session_id) {
        (SessionPolicy::New, _) => "new chat per fire".to_owned(),
        (SessionPolicy::Resume, Some(id)) => {
            format!("resumes chat {}", id.chars().take(8).collect::<String>())
        }
        (SessionPolicy::Resume, None) => "resumes one chat".to_owned(),
    }
}

/// A run status in its colour.
fn status_role(status: RunStatus) -> Role {
    match status {
        RunStatus::Running => Role::Running,
        RunStatus::Completed => Role::Success,
        RunStatus::Failed => Role::Error,
        RunStatus::Cancelled | RunStatus::Interrupted | RunStatus::Skipped => Role::Warning,
    }
}

/// The lines under the title, and the range of lines of the cursor's trigger.
fn body_lines(
    view: &TriggersView,
    theme: &Theme,
    width: usize,
    now: &DateTime<FixedOffset>,
) -> (Vec<Line<'static>>, Option<(usize, usize)>) {
    if let Some(reason) = &view.error {
        return (wrap_lines(error_lines(reason, theme), width), None);
    }
    let Some(triggers) = &view.triggers else {
        let ellipsis = theme.glyph(Glyph::Ellipsis);
        return (
            vec![Line::styled(
                format!(" Reading the triggers{ellipsis}"),
                theme.style(Role::Dim),
            )],
            None,
        );
    };
    if triggers.is_empty() {
        return (wrap_lines(no_triggers_lines(view, theme), width), None);
    }
    let mut lines = Vec::new();
    let mut cursor = None;
    for (i, t) in triggers.iter().enumerate() {
        let start = lines.len();
        let at_cursor = i == view.cursor;
        lines.extend(wrap_lines(
            vec![trigger_head(view, t, at_cursor, theme)],
            width,
        ));
        lines.extend(wrap_lines(trigger_details(t, at_cursor, theme, now), width));
        if at_cursor {
            cursor = Some((start, lines.len()));
        }
    }
    (lines, cursor)
}

/// The lines saying the triggers could not be read, and which key tries again.
fn error_lines(reason: &str, theme: &Theme) -> Vec<Line<'static>> {
    let key = label_for(Context::Triggers, Command::Refresh).unwrap_or("r");
    vec![
        Line::styled(
            format!(" The triggers could not be read: {reason}"),
            theme.style(Role::Error),
        ),
        Line::default(),
        Line::styled(format!(" {key} tries again."), theme.style(Role::Dim)),
    ]
}

/// The lines saying there are no triggers here, and (for one project) which key shows every
/// project's.
fn no_triggers_lines(view: &TriggersView, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        match view.asked() {
            Some(slug) => format!(" No triggers in {}.", project_label(&slug)),
            None => " No triggers in any project.".to_owned(),
        },
        theme.style(Role::Normal),
    )];
    if view.asked().is_some() {
        let key = label_for(Context::Triggers, Command::CycleScope).unwrap_or("a");
        lines.push(Line::styled(
            format!(" {key} shows every project's."),
            theme.style(Role::Dim),
        ));
    }
    lines
}

/// A trigger's first line: its kind, its name, its project (when every project's are listed),
/// which chat it runs in, and whether it is disabled; marked when it is under the cursor.
fn trigger_head(
    view: &TriggersView,
    t: &TriggerInfo,
    at_cursor: bool,
    theme: &Theme,
) -> Line<'static> {
    let dim = theme.style(Role::Dim);
    let dot = format!(" {} ", theme.glyph(Glyph::Dot));
    let cursor_mark = theme.mark(Mark::Cursor);
    let mut head = vec![
        Span::raw(if at_cursor { cursor_mark } else { " " }),
        kind_icon(t.spec.kind, theme),
        Span::raw(" "),
        Span::styled(t.name.clone(), Style::new().add_modifier(Modifier::BOLD)),
    ];
    if view.every {
        head.push(Span::styled(
            format!("{dot}{}", project_label(&t.project_slug)),
            dim,
        ));
    }
    head.push(Span::styled(format!("{dot}{}", session_words(t)), dim));
    if !t.spec.enabled {
        head.push(Span::styled(
            format!("{dot}disabled"),
            theme.style(Role::Warning),
        ));
    }
    let head = Line::from(head);
    if at_cursor {
        head.style(theme.style(Role::Selected))
    } else {
        head
    }
}

/// The lines under a trigger's first one: when it fires (and next, for a schedule), how it last
/// fired, why it cannot run, and its prompt when it is under the cursor.
fn trigger_details(
    t: &TriggerInfo,
    at_cursor: bool,
    theme: &Theme,
    now: &DateTime<FixedOffset>,
) -> Vec<Line<'static>> {
    let dim = theme.style(Role::Dim);
    let dot = format!(" {} ", theme.glyph(Glyph::Dot));
    let mut when = vec![Span::raw(format!("   {}", trigger_when(&t.spec)))];
    let next = next_fire(t, now);
    if t.spec.kind == TriggerKind::Schedule && next != "-" {
        when.push(Span::styled(format!("{dot}next {next}"), dim));
    }
    let mut more = vec![Line::from(when), last_fire_line(t, theme, now)];
    if let Some(problem) = &t.problem {
        more.push(Line::styled(
            format!(
                "   {} cannot run: {}",
                theme.mark(Mark::Failed),
                theme.words(&one_line(problem, 200))
            ),
            theme.style(Role::Error),
        ));
    }
    if at_cursor {
        more.push(Line::styled(
            format!("   prompt: {}", theme.words(&one_line(&t.spec.prompt, 200))),
            dim,
        ));
    }
    more
}

/// When a trigger last fired and how that run ended, or that it never fired.
fn last_fire_line(t: &TriggerInfo, theme: &Theme, now: &DateTime<FixedOffset>) -> Line<'static> {
    let dim = theme.style(Role::Dim);
    let mut last = vec![Span::raw("   ")];
    match (&t.last_fire, t.last_status) {
        (None, None) => last.push(Span::styled("never fired", dim)),
        (at, status) => {
            last.push(Span::styled(
                match at {
                    Some(at) => format!("last {} ", short_time(at, now)),
                    None => "last ".to_owned(),
                },
                dim,
            ));
            if let Some(status) = status {
                last.push(Span::styled(
                    status_name(status),
                    theme.style(status_role(status)),
                ));
            }
        }
    }
    Line::from(last)
}

/// A trigger's runs, newest first, and the cursor's line.
fn run_lines(
    runs: &Runs,
    theme: &Theme,
    width: usize,
    now: &DateTime<FixedOffset>,
) -> (Vec<Line<'static>>, Option<(usize, usize)>) {
    let dim = theme.style(Role::Dim);
    if let Some(reason) = &runs.error {
        let lines = vec![
            Line::styled(
                format!(" The runs could not be read: {reason}"),
                theme.style(Role::Error),
            ),
            Line::default(),
            Line::styled(" r tries again; Esc goes back to the triggers.", dim),
        ];
        return (wrap_lines(lines, width), None);
    }
    let Some(list) = &runs.runs else {
        let ellipsis = theme.glyph(Glyph::Ellipsis);
        return (
            vec![Line::styled(format!(" Reading History{ellipsis}"), dim)],
            None,
        );
    };
    if list.is_empty() {
        let lines = vec![
            Line::styled(
                format!(" History has no runs of {} yet.", runs.trigger.name),
                theme.style(Role::Normal),
            ),
            Line::styled(" Esc goes back to the triggers.", dim),
        ];
        return (wrap_lines(lines, width), None);
    }
    let cursor_mark = theme.mark(Mark::Cursor);
    // The time, the status, the duration (from 60 columns), then the title in what is left.
    let time_cols = list
        .iter()
        .map(|r| short_time(&r.started_at, now).width())
        .max()
        .unwrap_or(5);
    let status_cols = list
        .iter()
        .map(|r| status_name(r.status).len())
        .max()
        .unwrap_or(7);
    let took_cols = if width >= 60 { 8 } else { 0 };
    let used = 1 + time_cols + 1 + status_cols + 1 + if took_cols > 0 { took_cols + 1 } else { 0 };
    let mut lines = Vec::new();
    for (i, run) in list.iter().enumerate() {
        let at_cursor = i == runs.cursor;
        let time = short_time(&run.started_at, now);
        let status = status_name(run.status);
        let title = fit(&clean_title(&run.title), width.saturating_sub(used), theme);
        let mut spans = vec![
            Span::raw(if at_cursor { cursor_mark } else { " " }),
            Span::raw(format!("{time:time_cols$} ")),
            Span::styled(
                format!("{status:status_cols$} "),
                theme.style(status_role(run.status)),
            ),
        ];
        if took_cols > 0 {
            spans.push(Span::styled(
                format!("{:>took_cols$} ", run_duration(run, now)),
                dim,
            ));
        }
        spans.push(Span::raw(title));
        let line = Line::from(spans);
        lines.push(if at_cursor {
            line.style(theme.style(Role::Selected))
        } else {
            line
        });
    }
    let at = runs.cursor.min(lines.len().saturating_sub(1));
    (lines, Some((at, at + 1)))
}
