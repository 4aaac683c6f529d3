//! A tool call's lines: its one-line head and, expanded, its input fields and output.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use unicode_width::UnicodeWidthStr;

use super::items::chip_lines;
use super::text::{clean, fit_end, fit_spans, fit_start, push_wrapped};
use crate::tui::chat::{OUTPUT_CAP, ToolItem, ToolStatus, exit_code};
use crate::tui::theme::{Glyph, Mark, Role, Theme};

/// Of a longer output, the first lines shown (the rest of the cap goes to its last lines).
const OUTPUT_HEAD: usize = 8;
/// Lines of a tool's input fields shown when it is expanded (the output matters more).
const INPUT_CAP: usize = 12;

pub(super) fn tool_lines(
    tool: &ToolItem,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
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
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    let summary = tool.summary();
    let fold = format!("{} ", theme.fold(!tool.expanded));
    let name_style = theme.style(Role::Tool).add_modifier(Modifier::BOLD);
    let status: Vec<Span<'static>> = match &summary.status {
        ToolStatus::Running => vec![Span::styled(format!(" {ellipsis}"), theme.style(Role::Dim))],
        ToolStatus::Done(what) if what.is_empty() => vec![],
        ToolStatus::Done(what) => vec![Span::styled(
            format!(" {} {}", theme.glyph(Glyph::Dot), theme.words(what)),
            theme.style(Role::Dim),
        )],
        ToolStatus::Failed(why) => vec![
            Span::styled(
                format!(" {} ", theme.glyph(Glyph::Dot)),
                theme.style(Role::Dim),
            ),
            Span::styled(
                format!("{} {}", theme.mark(Mark::Failed), theme.words(why)),
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
    let arg = clean(&theme.words(&summary.arg));
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

/// An expanded tool call's lines under its head: its input, then (when it says more) its output.
fn tool_body(tool: &ToolItem, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    let gutter = Span::styled(
        format!("  {} ", theme.glyph(Glyph::Bar)),
        theme.style(Role::Dim),
    );
    if input_lines(tool, theme, width, &gutter, out) {
        result_lines(tool, theme, width, &gutter, out);
    }
}

/// What the call was given, behind the gutter: a command, an edit's diff, a file's content,
/// else its input's fields; whether its output is worth showing too (not for an edit or a
/// write that went through: the input says it all).
fn input_lines(
    tool: &ToolItem,
    theme: &Theme,
    width: usize,
    gutter: &Span<'static>,
    out: &mut Vec<Line<'static>>,
) -> bool {
    let dim = theme.style(Role::Dim);
    let normal = theme.style(Role::Normal);
    let input = &tool.input;
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(clean);
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
                section(out, theme, width, gutter, &lines, INPUT_CAP);
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
            section(out, theme, width, gutter, &lines, OUTPUT_CAP);
            show_output = tool.result.as_ref().is_some_and(|r| r.is_error);
        }
        "Write" => {
            let content = text(input, "content").unwrap_or_default();
            let lines: Vec<_> = content.lines().map(|l| (l.to_owned(), normal)).collect();
            section(out, theme, width, gutter, &lines, OUTPUT_CAP);
            show_output = tool.result.as_ref().is_some_and(|r| r.is_error);
        }
        _ => {
            let lines = input_fields(input, theme.glyph(Glyph::Ellipsis));
            let lines: Vec<_> = lines.into_iter().map(|l| (l, dim)).collect();
            section(out, theme, width, gutter, &lines, INPUT_CAP);
        }
    }
    show_output
}

/// What the call answered, behind the gutter (`running…` while it runs).
fn result_lines(
    tool: &ToolItem,
    theme: &Theme,
    width: usize,
    gutter: &Span<'static>,
    out: &mut Vec<Line<'static>>,
) {
    let dim = theme.style(Role::Dim);
    let normal = theme.style(Role::Normal);
    match &tool.result {
        None => section(
            out,
            theme,
            width,
            gutter,
            &[(format!("running{}", theme.glyph(Glyph::Ellipsis)), dim)],
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
                section(out, theme, width, gutter, &[("(no output)".into(), dim)], 1);
            } else {
                let style = if result.is_error {
                    theme.style(Role::Error)
                } else {
                    normal
                };
                let lines: Vec<_> = output.lines().map(|l| (l.to_owned(), style)).collect();
                if tool.full {
                    section(out, theme, width, gutter, &lines, usize::MAX);
                } else {
                    output_section(out, theme, width, gutter, &lines);
                }
            }
        }
    }
}

/// A tool's input as `key: value` rows (strings on one line, anything else as JSON).
fn input_fields(input: &Value, ellipsis: &str) -> Vec<String> {
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
                            format!("{first} {ellipsis}")
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
    let more = lines.len() - head - tail;
    let noun = if more == 1 { "line" } else { "lines" };
    out.push(Line::from(vec![
        gutter.clone(),
        Span::styled(
            format!(
                "{} {more} more {noun} {} o shows all",
                theme.glyph(Glyph::Ellipsis),
                theme.glyph(Glyph::Dot)
            ),
            theme.style(Role::Dim),
        ),
    ]));
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
            format!("{} {more} more {noun}", theme.glyph(Glyph::Ellipsis)),
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
