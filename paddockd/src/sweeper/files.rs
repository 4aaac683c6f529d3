//! The files a sweep curates, their budgets ([`Budgets`]), and the managed section of CLAUDE.md.
//!
//! OVERVIEW.md and CHANGELOG.md live in the project's metadata folder and are replaced whole;
//! CLAUDE.md lives in the agent directory and only the part between [`BEGIN`] and [`END`] is
//! ours: everything around it is kept byte for byte. Every write is atomic
//! ([`crate::fsutil::write_atomic`]), so a killed daemon leaves the old file or the new one.
//!
//! The budgets are a backstop: the prompt asks the model to stay under them, and what it returns
//! over budget is cut here (and the cut logged), so the files every new chat reads stay small.

use std::path::Path;

use crate::config::curation::{Budgets, MAX_BUDGET_TOKENS, MIN_BUDGET_TOKENS, check};
pub use crate::config::curation::{CHANGELOG_FILE, CLAUDE_FILE, OVERVIEW_FILE};

impl Budgets {
    /// The instance's budgets with a project's overrides, each checked: one out of range is
    /// logged and the instance's value used.
    pub fn for_project(
        instance: Budgets,
        slug: &str,
        file: &crate::projects::ProjectFile,
    ) -> Budgets {
        let pick = |key: &str, over: Option<usize>, base: usize| match over {
            Some(n) if check(key, n).is_ok() => n,
            Some(n) => {
                tracing::warn!(project = %slug, "project.toml: {key} = {n} is out of range ({MIN_BUDGET_TOKENS}-{MAX_BUDGET_TOKENS}); using {base}");
                base
            }
            None => base,
        };
        Budgets {
            overview_tokens: pick(
                "curation_overview_max_tokens",
                file.curation_overview_max_tokens,
                instance.overview_tokens,
            ),
            changelog_tokens: pick(
                "curation_changelog_max_tokens",
                file.curation_changelog_max_tokens,
                instance.changelog_tokens,
            ),
            claudemd_tokens: pick(
                "curation_claudemd_max_tokens",
                file.curation_claudemd_max_tokens,
                instance.claudemd_tokens,
            ),
        }
    }
}

/// The line that opens the managed section of CLAUDE.md.
pub const BEGIN: &str = "<!-- paddock:curated:begin (kept by paddock's sweeper: what is between these markers is rewritten) -->";
/// The line that closes it.
pub const END: &str = "<!-- paddock:curated:end -->";
/// How a marker line is recognised (the text after it may differ between versions).
const BEGIN_PREFIX: &str = "<!-- paddock:curated:begin";
const END_PREFIX: &str = "<!-- paddock:curated:end";

/// The note left where older CHANGELOG entries were cut.
const CHANGELOG_CUT_NOTE: &str = "_Older entries were dropped to keep this file small._";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpliceError {
    #[error(
        "CLAUDE.md has {begins} begin and {ends} end markers of the curated section (or the end comes first); fix them by hand, the sweeper leaves the file alone until then"
    )]
    Malformed { begins: usize, ends: usize },
}

/// A file's text; a missing file is empty.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e),
    }
}

/// Replaces `path` whole, atomically.
pub fn write_text(path: &Path, text: &str) -> std::io::Result<()> {
    crate::fsutil::write_atomic(path, text.as_bytes())
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub fn prefix_within(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `text` ending with one newline.
fn with_newline(text: &str) -> String {
    format!("{}\n", text.trim_end())
}

/// Keeps the head of `text` within `max` bytes, cut at a line end when one is near. Returns
/// the text (ending with a newline) and whether anything was cut.
pub fn cut_head(text: &str, max: usize) -> (String, bool) {
    let text = text.trim_end();
    if text.len() < max {
        return (with_newline(text), false);
    }
    let head = prefix_within(text, max.saturating_sub(1));
    let head = match head.rfind('\n') {
        Some(i) if i > head.len() / 2 => &head[..i],
        _ => head,
    };
    (with_newline(head), true)
}

/// Keeps CHANGELOG.md within `max` bytes: it is newest first (`## ` sections at the top), so
/// the preamble and the first whole sections that fit are kept, and a note says older ones went.
pub fn cut_changelog(text: &str, max: usize) -> (String, bool) {
    let text = text.trim_end();
    if text.len() < max {
        return (with_newline(text), false);
    }
    let mut blocks: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if line.starts_with("## ") && !current.trim().is_empty() {
            blocks.push(std::mem::take(&mut current));
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        blocks.push(current);
    }
    // The kept text, a blank line, the note and its newline.
    let room = max.saturating_sub(CHANGELOG_CUT_NOTE.len() + 3);
    let mut out = String::new();
    for block in &blocks {
        if out.len() + block.len() > room {
            break;
        }
        out.push_str(block);
    }
    if out.is_empty() {
        // Not even the first block fits: keep its head.
        let (head, _) = cut_head(text, room);
        out = head;
    }
    (
        format!("{}\n\n{CHANGELOG_CUT_NOTE}\n", out.trim_end()),
        true,
    )
}

/// Where the markers are: (index of the begin line, index of the end line), by line.
fn marker_lines(lines: &[&str]) -> Result<Option<(usize, usize)>, SpliceError> {
    let begins: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_start().starts_with(BEGIN_PREFIX))
        .collect();
    let ends: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_start().starts_with(END_PREFIX))
        .collect();
    match (begins.as_slice(), ends.as_slice()) {
        ([], []) => Ok(None),
        ([b], [e]) if b < e => Ok(Some((*b, *e))),
        _ => Err(SpliceError::Malformed {
            begins: begins.len(),
            ends: ends.len(),
        }),
    }
}

/// The body of the managed section (between the markers), if the file has one.
pub fn managed_section(claude_md: &str) -> Result<Option<String>, SpliceError> {
    let lines: Vec<&str> = claude_md.lines().collect();
    Ok(marker_lines(&lines)?.map(|(b, e)| lines[b + 1..e].join("\n").trim().to_owned()))
}

/// CLAUDE.md with its managed section's body replaced by `body`: everything outside the
/// markers is kept as it was. A file without markers gets the section appended; an absent or
/// empty file becomes just the section.
pub fn splice(claude_md: &str, body: &str) -> Result<String, SpliceError> {
    let section = format!("{BEGIN}\n{}\n{END}", body.trim());
    let lines: Vec<&str> = claude_md.split('\n').collect();
    match marker_lines(&lines)? {
        None if claude_md.trim().is_empty() => Ok(format!("{section}\n")),
        None => Ok(format!("{}\n\n{section}\n", claude_md.trim_end())),
        Some((b, e)) => {
            let before = lines[..b].join("\n");
            let after = lines[e + 1..].join("\n");
            let mut out = before;
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&section);
            out.push('\n');
            out.push_str(&after);
            if !out.ends_with('\n') {
                out.push('\n');
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_managed_section_is_replaced_and_the_rest_kept_byte_for_byte() {
        let human = "# My project\n\nHand-written rules.\n  indented line\n";
        let first = splice(human, "- fact one").unwrap();
        assert!(first.starts_with(human.trim_end()), "{first}");
        assert_eq!(
            managed_section(&first).unwrap().as_deref(),
            Some("- fact one")
        );
        // Text after the section, too, survives a second splice untouched.
        let with_tail = format!("{first}\n## Written below by hand\n\nkeep me\n");
        let second = splice(&with_tail, "- fact two\n- fact three").unwrap();
        assert!(second.starts_with(human.trim_end()));
        assert!(
            second.ends_with("## Written below by hand\n\nkeep me\n"),
            "{second}"
        );
        assert!(!second.contains("fact one"));
        assert_eq!(
            managed_section(&second).unwrap().as_deref(),
            Some("- fact two\n- fact three")
        );
        assert_eq!(second.matches(BEGIN).count(), 1);
        assert_eq!(second.matches(END).count(), 1);
        // Splicing the same body again changes nothing.
        assert_eq!(splice(&second, "- fact two\n- fact three").unwrap(), second);
    }

    #[test]
    fn an_absent_file_becomes_the_section_alone() {
        let out = splice("", "body").unwrap();
        assert_eq!(out, format!("{BEGIN}\nbody\n{END}\n"));
        assert_eq!(managed_section("# nothing managed\n").unwrap(), None);
    }

    #[test]
    fn broken_markers_are_refused_rather_than_guessed() {
        for broken in [
            format!("a\n{BEGIN}\nb\n"),
            format!("a\n{END}\nb\n"),
            format!("{END}\nx\n{BEGIN}\n"),
            format!("{BEGIN}\n{BEGIN}\nx\n{END}\n"),
        ] {
            assert!(splice(&broken, "new").is_err(), "{broken}");
            assert!(managed_section(&broken).is_err(), "{broken}");
        }
    }

    #[test]
    fn head_budget_cuts_on_a_line_and_says_so() {
        let text = "line one\nline two\nline three\n";
        assert_eq!(cut_head(text, 100), (text.to_owned(), false));
        let (cut, was_cut) = cut_head(text, 20);
        assert!(was_cut);
        assert_eq!(cut, "line one\nline two\n");
        // Never inside a character.
        let (cut, _) = cut_head(&"é".repeat(10), 6);
        assert!(cut.len() <= 6, "{cut:?}");
        assert!(cut.trim_end().chars().all(|c| c == 'é'));
    }

    #[test]
    fn changelog_budget_keeps_the_newest_sections() {
        let mut text = String::from("# Changelog\n\n");
        for day in (1..=30).rev() {
            text.push_str(&format!(
                "## 2026-01-{day:02}\n- change {day} {}\n\n",
                "x".repeat(60)
            ));
        }
        let (cut, was_cut) = cut_changelog(&text, 600);
        assert!(was_cut);
        assert!(cut.len() <= 600, "{}", cut.len());
        assert!(cut.starts_with("# Changelog\n\n## 2026-01-30\n"), "{cut}");
        assert!(!cut.contains("2026-01-01"), "the oldest went first");
        assert!(cut.ends_with(&format!("{CHANGELOG_CUT_NOTE}\n")));
        // Whole sections only: every kept heading still has its bullet.
        assert_eq!(cut.matches("## ").count(), cut.matches("- change").count());
        assert_eq!(cut_changelog("small\n", 600), ("small\n".to_owned(), false));
    }
}
