//! `paddock blame`: each line of a file with who last wrote it in a left gutter (a chat's step,
//! a commit, or nothing recorded), named on the first line of each region only.

use std::fmt::Write as _;

use paddock_proto::{Blame, BlameSource};
use unicode_width::{UnicodeWidthChar as _, UnicodeWidthStr as _};

use super::clean_title;

/// Columns of a chat's title in the gutter.
const TITLE_COLS: usize = 24;
/// Columns of a commit's author in the gutter.
const AUTHOR_COLS: usize = 20;

/// `text` cut to `cols` columns, `…` at the end when cut.
fn fit(text: &str, cols: usize) -> String {
    if text.width() <= cols {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > cols {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// `text` padded with spaces to `cols` columns.
fn pad(text: &str, cols: usize) -> String {
    let mut out = text.to_owned();
    out.push_str(&" ".repeat(cols.saturating_sub(text.width())));
    out
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// Who wrote a region: `a3e9b1c4 Investigate cookie ref… Edit`, `commit 3f9a2c1 Ana Lima`,
/// or `(not recorded)`.
fn gutter(by: &BlameSource) -> String {
    match by {
        BlameSource::Step(step) => {
            let title = step
                .title
                .as_deref()
                .map_or_else(|| "(unknown chat)".to_owned(), clean_title);
            format!(
                "{} {} {}",
                short(&step.session_id),
                pad(&fit(&title, TITLE_COLS), TITLE_COLS),
                step.tool
            )
        }
        BlameSource::Commit(commit) => format!(
            "commit {} {}",
            commit.sha.get(..7).unwrap_or(&commit.sha),
            fit(&clean_title(&commit.author), AUTHOR_COLS)
        ),
        BlameSource::Unknown => "(not recorded)".to_owned(),
    }
}

/// The whole file, one line per line: the gutter, the line number, the text; then the notes.
pub fn blame(b: &Blame) -> String {
    let mut out = String::new();
    if b.lines.is_empty() {
        let _ = writeln!(out, "{} is empty.", b.path);
    }
    let labels: Vec<String> = b.regions.iter().map(|r| gutter(&r.by)).collect();
    let cols = labels.iter().map(|l| l.width()).max().unwrap_or(0);
    let digits = b.lines.len().max(1).to_string().len();
    for (region, label) in b.regions.iter().zip(&labels) {
        for n in region.start..=region.end {
            let Some(text) = usize::try_from(n)
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| b.lines.get(i))
            else {
                continue;
            };
            let left = if n == region.start {
                label.as_str()
            } else {
                ""
            };
            let _ = writeln!(out, "{}  {n:>digits$} │ {text}", pad(left, cols));
        }
    }
    if !b.notes.is_empty() {
        out.push_str("\nNotes:\n");
        for note in &b.notes {
            let _ = writeln!(out, "  {note}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::{BlameCommit, BlameRegion, FileEdge, FileStep};

    fn step(title: Option<&str>, tool: &str) -> BlameSource {
        BlameSource::Step(Box::new(FileStep {
            session_id: "a3e9b1c4-6d2f-4f8a-b7c5-1e0d9f3a2b68".into(),
            job_id: "0193f4c2-7a1e-7c3d-9b2a-5e8f1d0c4a67".into(),
            step_id: "0193f4c2-7a1e-7c3d-9b2a-5e8f1d0c4a67:3".into(),
            title: title.map(str::to_owned),
            tool: tool.into(),
            at: "2026-11-03T09:14:31Z".into(),
            edge: FileEdge::Observed,
            change: "wrote".into(),
            hash: None,
            environment: None,
            model: None,
            specialist: None,
        }))
    }

    fn region(start: u32, end: u32, by: BlameSource) -> BlameRegion {
        BlameRegion { start, end, by }
    }

    #[test]
    fn each_region_is_named_on_its_first_line() {
        let commit = BlameSource::Commit(BlameCommit {
            sha: "3f9a2c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39".into(),
            summary: "Add cookie refresh".into(),
            author: "Ana Lima".into(),
            at: "2026-10-28T16:02:11Z".into(),
        });
        let lines: Vec<String> = (1..=10).map(|n| format!("line {n}")).collect();
        let b = Blame {
            project_slug: "webapp".into(),
            path: "src/auth/cookie.ts".into(),
            lines,
            regions: vec![
                region(1, 2, commit),
                region(3, 4, step(Some("Investigate cookie refresh race"), "Edit")),
                region(5, 5, BlameSource::Unknown),
                region(6, 10, step(None, "Write")),
            ],
            notes: vec!["1 write by chats has no kept version.".into()],
        };
        let expected = "\
commit 3f9a2c1 Ana Lima                   1 │ line 1
                                          2 │ line 2
a3e9b1c4 Investigate cookie refr… Edit    3 │ line 3
                                          4 │ line 4
(not recorded)                            5 │ line 5
a3e9b1c4 (unknown chat)           Write   6 │ line 6
                                          7 │ line 7
                                          8 │ line 8
                                          9 │ line 9
                                         10 │ line 10

Notes:
  1 write by chats has no kept version.
";
        assert_eq!(blame(&b), expected);
    }

    #[test]
    fn an_empty_file_says_so_and_wide_titles_fit_their_columns() {
        let b = Blame {
            project_slug: String::new(),
            path: "empty.txt".into(),
            lines: vec![],
            regions: vec![],
            notes: vec![],
        };
        assert_eq!(blame(&b), "empty.txt is empty.\n");
        let g = gutter(&step(Some("日本語のとても長いチャットの題名です"), "Edit"));
        assert_eq!(g.width(), 8 + 1 + TITLE_COLS + 1 + 4, "{g}");
        assert!(g.contains('…'));
    }
}
