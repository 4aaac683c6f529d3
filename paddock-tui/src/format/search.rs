//! `paddock search`: one block per chat (short session id, project, when, title), then its
//! matches, indented, each with its field and a one-line snippet whose matched parts are
//! marked: in bold on a terminal, else in [brackets].

use std::fmt::Write as _;

use chrono::{DateTime, TimeZone};
use paddock_proto::{SearchField, SearchHit, SearchMatch, SearchResults};

use super::{Style, Styled, clean_title, project_label, short_time};

/// How the matched parts of a snippet are marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Highlight {
    /// Terminal bold (ANSI `ESC[1m` … `ESC[22m`): stdout is a terminal and `NO_COLOR` is unset.
    Bold,
    /// `[` … `]`: output to a file or a pipe, or `NO_COLOR`.
    Brackets,
}

impl Highlight {
    /// Bold on a terminal without `NO_COLOR` (any non-empty value), brackets otherwise.
    pub fn for_stdout(is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> Self {
        if is_terminal && no_color.is_none_or(|v| v.is_empty()) {
            Highlight::Bold
        } else {
            Highlight::Brackets
        }
    }

    fn open(self, out: &mut Styled) {
        match self {
            Highlight::Bold => out.style(Style::Bold),
            Highlight::Brackets => out.content("["),
        }
    }

    fn close(self, out: &mut Styled) {
        match self {
            Highlight::Bold => out.style(Style::NotBold),
            Highlight::Brackets => out.content("]"),
        }
    }
}

/// A field as the results name it.
pub fn field_name(field: SearchField) -> &'static str {
    match field {
        SearchField::Title => "title",
        SearchField::User => "user",
        SearchField::Assistant => "assistant",
        SearchField::ToolUse => "tool call",
        SearchField::ToolResult => "tool result",
    }
}

/// `text` with the `[start, end)` character ranges of `highlights` marked, its characters made
/// visible one by one (so the ranges keep their meaning). Ranges out of order, overlapping or
/// past the end are clamped, never a panic.
pub fn highlighted(text: &str, highlights: &[[u32; 2]], style: Highlight) -> Styled {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Styled::new();
    let mut at = 0usize;
    let content = |out: &mut Styled, part: &[char]| part.iter().for_each(|&c| out.content_char(c));
    for &[start, end] in highlights {
        let start = (start as usize).clamp(at, chars.len());
        let end = (end as usize).clamp(start, chars.len());
        if end == start {
            continue;
        }
        content(&mut out, &chars[at..start]);
        style.open(&mut out);
        content(&mut out, &chars[start..end]);
        style.close(&mut out);
        at = end;
    }
    content(&mut out, &chars[at..]);
    out
}

/// The chats and their matches, blocks separated by blank lines. Times in `now`'s zone.
pub fn search_results<Tz: TimeZone>(
    results: &SearchResults,
    now: &DateTime<Tz>,
    style: Highlight,
    ids: super::IdForm,
) -> Styled
where
    Tz::Offset: std::fmt::Display,
{
    let mut out = Styled::new();
    let listed: Vec<&str> = results.hits.iter().map(|h| h.session_id.as_str()).collect();
    for (i, (hit, id)) in results.hits.iter().zip(ids.show(&listed)).enumerate() {
        if i > 0 {
            out.content("\n");
        }
        hit_block(&mut out, hit, id, now, style);
    }
    out
}

fn hit_block<Tz: TimeZone>(
    out: &mut Styled,
    hit: &SearchHit,
    short: &str,
    now: &DateTime<Tz>,
    style: Highlight,
) where
    Tz::Offset: std::fmt::Display,
{
    let archived = if hit.archived { "  (archived)" } else { "" };
    let _ = writeln!(
        out,
        "{short}  {}  {}  {}{archived}",
        project_label(&hit.project_slug),
        short_time(&hit.updated_at, now),
        clean_title(&hit.title),
    );
    let width = hit
        .matches
        .iter()
        .map(|m| field_name(m.field).len())
        .max()
        .unwrap_or(0);
    for m in &hit.matches {
        let _ = write!(out, "    {:width$}  ", field_name(m.field));
        snippet(out, m, style);
        out.content("\n");
    }
    if hit.more > 0 {
        let _ = writeln!(
            out,
            "    … {} more {}",
            hit.more,
            if hit.more == 1 { "match" } else { "matches" }
        );
    }
}

/// A match's snippet on one line (the daemon sends one line; a newline in it is a space, and
/// every other character a terminal would act on is made visible), its matches marked.
fn snippet(out: &mut Styled, m: &SearchMatch, style: Highlight) {
    let one_line: String = m
        .snippet
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .collect();
    out.append(highlighted(&one_line, &m.highlights, style));
}

/// What stderr says after the results: how many matched beyond those shown, and whether the
/// index is still being built. Empty when there is nothing to say.
pub fn search_notes(results: &SearchResults) -> String {
    let mut out = String::new();
    let shown = results.hits.len();
    let total = results.total as usize;
    if shown == 0 {
        let _ = writeln!(out, "no chats match {:?}", results.query);
    } else if total > shown {
        let _ = writeln!(
            out,
            "{shown} of {total} matching chats shown (--limit N shows up to 500)"
        );
    }
    if let Some(p) = results.indexing {
        let _ = writeln!(
            out,
            "the search index is still being built ({} of {} chats read): results may be missing",
            p.done, p.total
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;
    use paddock_proto::SearchProgress;

    fn now() -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339("2026-11-03T10:00:00+01:00").unwrap_or_default()
    }

    fn results() -> SearchResults {
        SearchResults {
            query: "cookie \"refresh race\"".into(),
            hits: vec![
                SearchHit {
                    project_slug: "webapp".into(),
                    session_id: "a3e9b1c4-6d2f-4f8a-b7c5-1e0d9f3a2b68".into(),
                    title: "Investigate cookie refresh race".into(),
                    updated_at: "2026-11-03T08:20:11Z".into(),
                    archived: false,
                    matches: vec![
                        SearchMatch {
                            field: SearchField::Title,
                            entry: None,
                            uuid: None,
                            snippet: "Investigate cookie refresh race".into(),
                            highlights: vec![[12, 18], [19, 31]],
                        },
                        SearchMatch {
                            field: SearchField::ToolResult,
                            entry: Some(7),
                            uuid: None,
                            snippet: "…Café: the cookie refresh race\u{1b}[2J happens…".into(),
                            highlights: vec![[11, 17], [18, 30]],
                        },
                    ],
                    more: 3,
                },
                SearchHit {
                    project_slug: String::new(),
                    session_id: "c71d4e2a".into(),
                    title: "Old\nnotes".into(),
                    updated_at: "2025-02-01T00:00:00Z".into(),
                    archived: true,
                    matches: vec![SearchMatch {
                        field: SearchField::User,
                        entry: Some(0),
                        uuid: Some("u".into()),
                        snippet: "cookie refresh race".into(),
                        highlights: vec![[0, 6], [7, 19]],
                    }],
                    more: 1,
                },
            ],
            total: 5,
            indexing: Some(SearchProgress {
                done: 2400,
                total: 10000,
            }),
        }
    }

    #[test]
    fn blocks_per_chat_with_marked_matches() {
        let text = search_results(
            &results(),
            &now(),
            Highlight::Brackets,
            crate::format::IdForm::Short,
        );
        assert_eq!(
            text.as_str(),
            "\
a3e9b1c4  webapp  09:20  Investigate cookie refresh race
    title        Investigate [cookie] [refresh race]
    tool result  …Café: the [cookie] [refresh race]␛[2J happens…
    … 3 more matches

c71d4e2a  (root)  2025-02-01  Old notes  (archived)
    user  [cookie] [refresh race]
    … 1 more match
"
        );
        let bold = search_results(
            &results(),
            &now(),
            Highlight::Bold,
            crate::format::IdForm::Short,
        );
        let bold = bold.as_str();
        assert!(bold.contains("Investigate \x1b[1mcookie\x1b[22m \x1b[1mrefresh race\x1b[22m"));
        assert_eq!(
            bold.matches('\x1b').count(),
            12,
            "only our own escapes: {bold:?}"
        );
    }

    #[test]
    fn highlights_are_characters_and_bad_ranges_are_clamped() {
        assert_eq!(
            highlighted("naïve café", &[[6, 10]], Highlight::Brackets).as_str(),
            "naïve [café]"
        );
        assert_eq!(
            highlighted(
                "abc",
                &[[2, 1], [1, 2], [0, 9], [5, 7]],
                Highlight::Brackets
            )
            .as_str(),
            "a[b][c]"
        );
        assert_eq!(highlighted("", &[[0, 3]], Highlight::Bold).as_str(), "");
        // A character made visible as several keeps the ranges on the characters they name.
        assert_eq!(
            highlighted("\u{9b}2J ab", &[[4, 5]], Highlight::Brackets).as_str(),
            "\\u{9b}2J [a]b"
        );
    }

    #[test]
    fn bold_only_on_a_terminal_without_no_color() {
        use std::ffi::OsStr;
        assert_eq!(Highlight::for_stdout(true, None), Highlight::Bold);
        assert_eq!(
            Highlight::for_stdout(true, Some(OsStr::new(""))),
            Highlight::Bold
        );
        assert_eq!(
            Highlight::for_stdout(true, Some(OsStr::new("1"))),
            Highlight::Brackets
        );
        assert_eq!(Highlight::for_stdout(false, None), Highlight::Brackets);
    }

    #[test]
    fn notes_say_what_was_left_out() {
        let r = results();
        assert_eq!(
            search_notes(&r),
            "2 of 5 matching chats shown (--limit N shows up to 500)\n\
             the search index is still being built (2400 of 10000 chats read): results may be missing\n"
        );
        let none = SearchResults {
            query: "zebra".into(),
            hits: vec![],
            total: 0,
            indexing: None,
        };
        assert_eq!(search_notes(&none), "no chats match \"zebra\"\n");
    }
}
