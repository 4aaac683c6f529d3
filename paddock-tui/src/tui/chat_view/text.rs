//! Text for the screen: escapes cleaned, wrapped at words, fitted to a width with an
//! ellipsis at either end.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::format::push_visible_char;

/// Text fit for the screen: every character a terminal would act on made visible by the one
/// rule of `format::visible` (an escape sequence shows as `␛[31m`, a carriage return that
/// would rewrite a line as `␍`), a CRLF line end as a newline, tabs as four spaces.
pub(crate) fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        for c in line.chars() {
            match c {
                '\t' => out.push_str("    "),
                c => push_visible_char(&mut out, c),
            }
        }
    }
    out
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
pub(super) fn push_wrapped(
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
    let mut out: String = within(s.chars(), room).collect();
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
    let tail: Vec<char> = within(s.chars().rev(), room).collect();
    let mut out = ellipsis.to_owned();
    out.extend(tail.into_iter().rev());
    out
}

/// The first of `chars` that fit in `room` columns together.
fn within(chars: impl Iterator<Item = char>, room: usize) -> impl Iterator<Item = char> {
    let mut w = 0;
    chars.take_while(move |c| {
        w += c.width().unwrap_or(0);
        w <= room
    })
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
    fn clean_shows_escapes_and_carriage_returns() {
        assert_eq!(clean("\u{1b}[31mred\u{1b}[0m"), "␛[31mred␛[0m");
        assert_eq!(clean("10%\r50%\nok\r\n"), "10%␍50%\nok\n");
        assert_eq!(clean("a\tb"), "a    b");
        assert_eq!(clean("\u{1b}]0;title\u{7}x"), "␛]0;title␇x");
        assert_eq!(clean("\u{9b}2J\u{202e}x"), "\\u{9b}2J\\u{202e}x");
    }

    #[test]
    fn fitting_cuts_at_the_right_end() {
        assert_eq!(fit_end("abcdef", 4, "…"), "abc…");
        assert_eq!(fit_start("/a/b/c/file.rs", 9, "…"), "…/file.rs");
        assert_eq!(fit_end("abc", 3, "…"), "abc");
    }
}
