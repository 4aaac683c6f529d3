//! One item's lines: user turns (with their attachment chips), assistant text, thinking,
//! markers and capped error messages.

use paddock_proto::{Attribution, NoticeKind};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::text::{clean, fit_end, fit_spans, push_wrapped};
use super::tool::tool_lines;
use crate::attachments::Listed;
use crate::format::{clean_title, compaction_sizes, notice_label, task_status};
use crate::tui::chat::{Item, MESSAGE_FOLD, MESSAGE_HEAD, UserItem, count_lines};
use crate::tui::theme::{Glyph, Mark, Role, Theme};

/// Lines of an error's text shown inline.
const ERROR_CAP: usize = 6;

pub(super) fn item_lines(item: &Item, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    match item {
        Item::User(user) => user_lines(user, theme, width, out),
        Item::Assistant { text } => assistant_lines(text, theme, width, out),
        Item::Thinking { text, expanded } => thinking_lines(text, *expanded, theme, width, out),
        Item::Tool(tool) => tool_lines(tool, theme, width, out),
        Item::Compaction {
            pre_tokens,
            post_tokens,
        } => {
            let sizes = compaction_sizes(*pre_tokens, *post_tokens, theme.glyph(Glyph::Arrow));
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
            let head = api_error_head(*status, text, theme);
            capped_message(out, theme, width, &head, text, Role::Error);
        }
        Item::Error { message } => {
            let head = format!("{} ", theme.mark(Mark::Failed));
            capped_message(out, theme, width, &head, message, Role::Error);
        }
        Item::Notice { kind, message } => {
            notice_lines(*kind, message, theme, width, out);
            chip_lines(&item.attachments(), theme, width, out);
        }
        Item::QueuedFlushed { .. } => {
            let text = format!("{} queued follow-up sent", theme.mark(Mark::Flushed));
            out.push(Line::styled(
                fit_end(&text, width, ellipsis),
                theme.style(Role::Dim),
            ));
        }
        Item::KilledTask { message } => {
            let head = format!("{} background task killed: ", theme.mark(Mark::Interrupted));
            capped_message(out, theme, width, &head, message, Role::Warning);
        }
    }
}

fn assistant_lines(text: &str, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
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

/// Thinking: its text when expanded, else one line saying how long it is.
fn thinking_lines(
    text: &str,
    expanded: bool,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    let style = theme.style(Role::Thinking);
    let fold = theme.fold(!expanded);
    if expanded {
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

/// What goes before an API error's text: the status, unless the text says it already.
fn api_error_head(status: Option<u16>, text: &str, theme: &Theme) -> String {
    // The CLI's text usually says "API Error: 529 ..." itself.
    if text
        .trim_start()
        .to_ascii_lowercase()
        .starts_with("api error")
    {
        format!("{} ", theme.mark(Mark::Failed))
    } else {
        let status = status.map(|s| format!(" {s}")).unwrap_or_default();
        format!("{} API error{status}: ", theme.mark(Mark::Failed))
    }
}

/// A notice: its glyph and colour by kind, its label unless the message starts with it.
fn notice_lines(
    kind: NoticeKind,
    message: &str,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    let (glyph, role) = match kind {
        NoticeKind::Crashed
        | NoticeKind::ApiError
        | NoticeKind::PermissionDenied
        | NoticeKind::UsageLimit => (theme.mark(Mark::WARNING), Role::Error),
        NoticeKind::Retrying | NoticeKind::Interrupted | NoticeKind::MaxTurns => {
            (theme.mark(Mark::WARNING), Role::Warning)
        }
        NoticeKind::Info => (theme.mark(Mark::Info), Role::Dim),
    };
    // "interrupted: Interrupted. ..." says it twice.
    let label = notice_label(kind);
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
}

fn user_lines(user: &UserItem, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    // A background task's report, written by claude as a user row: a notice, not a message.
    if let Some(note) = crate::message::task_notification(&user.text) {
        task_report_lines(&note, theme, width, out);
        return;
    }
    if let Some(attribution) = &user.attribution {
        attribution_lines(attribution, theme, width, out);
    }
    let style = theme.style(Role::User);
    let text = clean(user.request());
    let text = text.trim();
    let first = Span::styled(format!("{} ", theme.glyph(Glyph::Prompt)), style);
    if text.is_empty() {
        out.push(Line::from(vec![
            first,
            Span::styled("(empty)", theme.style(Role::Dim)),
        ]));
    } else {
        let mut rows = Vec::new();
        push_wrapped(&mut rows, text, width, &first, &Span::raw("  "), style);
        fold_rows(rows, user.expanded, theme, out);
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

/// A long message's rows: its first [`MESSAGE_HEAD`] and how many more, unless `expanded` (a
/// 2,000-line paste is not drawn whole until asked for).
fn fold_rows(
    mut rows: Vec<Line<'static>>,
    expanded: bool,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    if expanded || rows.len() <= MESSAGE_FOLD {
        out.append(&mut rows);
        return;
    }
    let more = rows.len() - MESSAGE_HEAD;
    rows.truncate(MESSAGE_HEAD);
    out.append(&mut rows);
    out.push(Line::styled(
        format!(
            "  {} {more} more lines {} o shows all",
            theme.glyph(Glyph::Ellipsis),
            theme.glyph(Glyph::Dot)
        ),
        theme.style(Role::Dim),
    ));
}

/// A background task's report (a user row claude wrote): a notice line and its result's first
/// line.
fn task_report_lines(
    note: &crate::message::TaskNotification,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    let status = task_status(&note.status);
    push_wrapped(
        out,
        &clean(&format!(
            "{} background task: {}{status}",
            theme.mark(Mark::Task),
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
}

/// Who injected a turn, on a line above it.
fn attribution_lines(
    attribution: &Attribution,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
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

/// Kept files as chips under their message or notice, `📎 name (kind)` (`[+]` in ASCII),
/// as many to a row as fit; `a` on the item opens them.
pub(super) fn chip_lines(
    list: &[Listed],
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    if list.is_empty() {
        return;
    }
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    let clip = theme.mark(Mark::Attached);
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
    let rule = theme.glyph(Glyph::Rule).repeat(2);
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
pub(super) fn capped_message(
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
            theme.glyph(Glyph::Ellipsis),
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
