//! A one-line path prompt with Tab completion over this machine's filesystem: what Ctrl-T in
//! the composer opens to attach a file, and what `s` in the attachment viewer opens to save
//! one.
//!
//! A path is relative to the TUI's working directory, `~/` is the home directory. Tab
//! completes the longest prefix the matching names share (a single match completes whole, a
//! directory with its `/`); when nothing more can be completed and several names match, Tab
//! lists them in a small popup above the prompt, and further Tabs (Shift-Tab: backwards) cycle
//! through the list, putting each name in the line. Enter on a directory in the list opens it;
//! otherwise Enter hands the path to the owner, which may refuse it with a message shown in
//! the prompt ([`PathPrompt::set_error`]) and the prompt stays open. Hidden files are listed
//! only when the name typed starts with a dot.
//!
//! Completion reads directories as it is asked (a Tab), on the TUI's thread: local and
//! quick, and nothing else in the TUI waits on it.

use std::path::{Path, PathBuf};

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear};
use unicode_width::UnicodeWidthStr;

use super::chat_view::{fit_end, fit_start};
use super::theme::{Glyph, Role, Theme};

/// At most this many matches show in the popup at once.
const LIST_ROWS: usize = 8;

/// One name that matches what was typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub is_dir: bool,
}

impl Candidate {
    /// The name as the line shows it: a directory ends with `/`.
    pub fn shown(&self) -> String {
        if self.is_dir {
            format!("{}/", self.name)
        } else {
            self.name.clone()
        }
    }
}

/// What Tab makes of a line: the line completed as far as the matches agree, and the matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The line up to its last `/` (kept as typed).
    pub dir_part: String,
    /// The line after it, completed.
    pub line: String,
    pub matches: Vec<Candidate>,
}

/// The path a line names: `~` and `~/...` in the home directory, a relative one under `base`.
pub fn expand(line: &str, base: &Path, home: Option<&Path>) -> PathBuf {
    match (line, home) {
        ("~", Some(home)) => home.to_path_buf(),
        (l, Some(home)) if l.starts_with("~/") => home.join(&l[2..]),
        (l, _) if Path::new(l).is_absolute() => PathBuf::from(l),
        (l, _) => base.join(l),
    }
}

/// The names in the line's directory that start with what follows its last `/`, sorted, and
/// the line completed as far as they agree (a single match whole, a directory with its `/`).
/// A directory that cannot be read has no matches.
pub fn complete(line: &str, base: &Path, home: Option<&Path>) -> Completion {
    // `~` alone is the home directory: complete it to `~/`.
    if line == "~" && home.is_some() {
        return Completion {
            dir_part: String::new(),
            line: "~/".to_owned(),
            matches: vec![Candidate {
                name: "~".to_owned(),
                is_dir: true,
            }],
        };
    }
    let (dir_part, prefix) = match line.rfind('/') {
        Some(i) => line.split_at(i + 1),
        None => ("", line),
    };
    let dir = if dir_part.is_empty() {
        base.to_path_buf()
    } else {
        expand(dir_part, base, home)
    };
    let mut matches: Vec<Candidate> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| {
                    let name = entry.file_name().into_string().ok()?;
                    let shown = name.starts_with(prefix)
                        && (prefix.starts_with('.') || !name.starts_with('.'));
                    shown.then(|| Candidate {
                        is_dir: entry.path().is_dir(),
                        name,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    matches.sort_by(|a, b| a.name.cmp(&b.name));
    let completed = match matches.as_slice() {
        [] => prefix.to_owned(),
        [one] => one.shown(),
        many => common_prefix(many.iter().map(|c| c.name.as_str())),
    };
    // A common prefix never shortens what was typed.
    let completed = if completed.len() < prefix.len() {
        prefix.to_owned()
    } else {
        completed
    };
    Completion {
        dir_part: dir_part.to_owned(),
        line: format!("{dir_part}{completed}"),
        matches,
    }
}

/// The longest start every name shares (whole characters).
fn common_prefix<'a>(mut names: impl Iterator<Item = &'a str>) -> String {
    let Some(first) = names.next() else {
        return String::new();
    };
    let mut len = first.len();
    for name in names {
        len = first
            .char_indices()
            .zip(name.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(len);
    }
    first[..len].to_owned()
}

/// The popup's matches and which one the line holds.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listing {
    dir_part: String,
    matches: Vec<Candidate>,
    selected: Option<usize>,
}

/// What a key did to the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptOutcome {
    /// Still editing.
    Editing,
    /// Esc: the prompt is done with, nothing taken.
    Cancelled,
    /// Enter: this path (expanded; the owner checks it).
    Submit(PathBuf),
}

/// The prompt's state.
#[derive(Debug, Clone)]
pub struct PathPrompt {
    /// What the path is for, shown before it (`attach`, `save as`).
    label: &'static str,
    /// What Enter does, for the hint (`attach`, `save`).
    verb: &'static str,
    line: String,
    /// A byte offset into `line`, on a character boundary.
    cursor: usize,
    base: PathBuf,
    home: Option<PathBuf>,
    listing: Option<Listing>,
    error: Option<String>,
}

impl PathPrompt {
    /// A prompt for `label` (`attach`), Enter doing `verb`, relative paths under `base`, `~`
    /// in `home`, the line starting as `line`.
    pub fn new(
        label: &'static str,
        verb: &'static str,
        line: &str,
        base: PathBuf,
        home: Option<PathBuf>,
    ) -> Self {
        Self {
            label,
            verb,
            line: line.to_owned(),
            cursor: line.len(),
            base,
            home,
            listing: None,
            error: None,
        }
    }

    /// With the process's working directory and the user's home directory.
    pub fn here(label: &'static str, verb: &'static str, line: &str) -> Self {
        let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let home = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf());
        Self::new(label, verb, line, base, home)
    }

    pub fn line(&self) -> &str {
        &self.line
    }

    /// The matches listed in the popup (empty when it is closed).
    pub fn listed(&self) -> Vec<String> {
        self.listing
            .as_ref()
            .map(|l| l.matches.iter().map(Candidate::shown).collect())
            .unwrap_or_default()
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Refuses the path given: the message shows in the prompt, which stays open.
    pub fn set_error(&mut self, message: String) {
        self.error = Some(message);
    }

    /// The path the line names now.
    pub fn path(&self) -> PathBuf {
        expand(self.line.trim(), &self.base, self.home.as_deref())
    }

    fn set_line(&mut self, line: String) {
        self.cursor = line.len();
        self.line = line;
    }

    /// Tab (`back`: Shift-Tab): completes, lists, or moves through the listed matches.
    pub fn complete(&mut self, back: bool) {
        self.error = None;
        if let Some(listing) = self.listing.as_mut() {
            let n = listing.matches.len();
            if n == 0 {
                self.listing = None;
                return;
            }
            let next = match (listing.selected, back) {
                (None, false) => 0,
                (None, true) => n - 1,
                (Some(i), false) => (i + 1) % n,
                (Some(i), true) => (i + n - 1) % n,
            };
            listing.selected = Some(next);
            let line = format!("{}{}", listing.dir_part, listing.matches[next].shown());
            self.set_line(line);
            return;
        }
        let done = complete(&self.line, &self.base, self.home.as_deref());
        if done.line != self.line {
            self.set_line(done.line);
        } else if done.matches.len() > 1 {
            self.listing = Some(Listing {
                dir_part: done.dir_part,
                matches: done.matches,
                selected: None,
            });
        } else if done.matches.is_empty() {
            self.error = Some(format!("nothing matches {}", self.line));
        }
    }

    /// Enter: the path, or (on a directory picked from the list) into that directory.
    pub fn submit(&mut self) -> PromptOutcome {
        self.error = None;
        if let Some(listing) = self.listing.take()
            && let Some(picked) = listing.selected.and_then(|i| listing.matches.get(i))
            && picked.is_dir
        {
            return PromptOutcome::Editing;
        }
        if self.line.trim().is_empty() {
            self.error = Some("type a path (Tab completes it)".to_owned());
            return PromptOutcome::Editing;
        }
        PromptOutcome::Submit(self.path())
    }

    /// A key that edits the line (typing, moving, deleting). Others do nothing.
    pub fn edit_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let before = self.line.clone();
        match key.code {
            KeyCode::Char('a') if ctrl => self.cursor = 0,
            KeyCode::Char('e') if ctrl => self.cursor = self.line.len(),
            KeyCode::Char('u') if ctrl => {
                self.line.replace_range(..self.cursor, "");
                self.cursor = 0;
            }
            KeyCode::Char('k') if ctrl => self.line.truncate(self.cursor),
            KeyCode::Char('w') if ctrl => self.delete_component(),
            KeyCode::Backspace if alt => self.delete_component(),
            KeyCode::Char(c) if !ctrl && !alt => {
                self.line.insert(self.cursor, c);
                self.cursor += c.len_utf8();
            }
            KeyCode::Backspace => {
                if let Some(c) = self.line[..self.cursor].chars().next_back() {
                    self.cursor -= c.len_utf8();
                    self.line.remove(self.cursor);
                }
            }
            KeyCode::Delete => {
                if self.cursor < self.line.len() {
                    self.line.remove(self.cursor);
                }
            }
            KeyCode::Left => {
                if let Some(c) = self.line[..self.cursor].chars().next_back() {
                    self.cursor -= c.len_utf8();
                }
            }
            KeyCode::Right => {
                if let Some(c) = self.line[self.cursor..].chars().next() {
                    self.cursor += c.len_utf8();
                }
            }
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = self.line.len(),
            _ => return,
        }
        if self.line != before {
            self.listing = None;
            self.error = None;
        }
    }

    /// A paste: its first line goes in at the cursor.
    pub fn paste(&mut self, text: &str) {
        let first = text.lines().next().unwrap_or_default();
        let clean: String = first.chars().filter(|c| !c.is_control()).collect();
        self.line.insert_str(self.cursor, &clean);
        self.cursor += clean.len();
        self.listing = None;
        self.error = None;
    }

    /// Ctrl-W: back to the previous `/` (the one ending the line's directory stays).
    fn delete_component(&mut self) {
        let head = &self.line[..self.cursor];
        let trimmed = head.strip_suffix('/').unwrap_or(head);
        let start = trimmed.rfind('/').map_or(0, |i| i + 1);
        self.line.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// The prompt on one row: ` attach: path▏ ` then the keys, or the error.
    pub fn render(&self, theme: &Theme, frame: &mut Frame<'_>, row: Rect) {
        if row.width == 0 || row.height == 0 {
            return;
        }
        let width = usize::from(row.width);
        let ellipsis = theme.glyph(Glyph::Ellipsis);
        let label = format!(" {}: ", self.label);
        let tail: Vec<Span<'static>> = match &self.error {
            Some(error) => vec![Span::styled(format!("  {error}"), theme.style(Role::Error))],
            None => {
                let listing = self.listing.is_some();
                let tab = if listing { "next" } else { "complete" };
                vec![Span::styled(
                    format!(
                        "  tab {tab} {dot} enter {} {dot} esc cancel",
                        self.verb,
                        dot = theme.glyph(Glyph::Dot)
                    ),
                    theme.style(Role::Dim),
                )]
            }
        };
        // The line gets what the label leaves, at least a third of the row.
        let room = width.saturating_sub(label.width() + 1).max(1);
        let (before, after) = self.line.split_at(self.cursor);
        let before = fit_start(
            before,
            room.saturating_sub(after.width().min(room / 2)),
            ellipsis,
        );
        let after = fit_end(after, room.saturating_sub(before.width()), ellipsis);
        let cursor = Span::styled(
            theme.glyph(Glyph::TextCursor).to_owned(),
            theme.style(Role::Accent),
        );
        let mut spans = vec![
            Span::styled(label, theme.style(Role::Accent)),
            Span::raw(before),
            cursor,
            Span::raw(after),
        ];
        spans.extend(tail);
        frame
            .buffer_mut()
            .set_line(row.x, row.y, &Line::from(spans), row.width);
    }

    /// The listed matches in a small box just above `row`, within `bounds`.
    pub fn render_list(&self, theme: &Theme, frame: &mut Frame<'_>, row: Rect, bounds: Rect) {
        let Some(listing) = &self.listing else {
            return;
        };
        let ellipsis = theme.glyph(Glyph::Ellipsis);
        let shown: Vec<String> = listing.matches.iter().map(Candidate::shown).collect();
        let rows = shown.len().min(LIST_ROWS);
        let height = u16::try_from(rows + 2)
            .unwrap_or(u16::MAX)
            .min(row.y.saturating_sub(bounds.y));
        if height < 3 || bounds.width < 8 {
            return;
        }
        let title = format!(" {} matches ", shown.len());
        let widest = shown.iter().map(|s| s.width()).max().unwrap_or(0);
        let width = u16::try_from(widest.max(title.width()) + 4)
            .unwrap_or(u16::MAX)
            .min(bounds.width);
        let area = Rect {
            x: bounds.x,
            y: row.y - height,
            width,
            height,
        };
        frame.render_widget(Clear, area);
        let block = Block::bordered()
            .border_set(theme.border())
            .border_style(theme.style(Role::Dim))
            .title(Span::styled(title, theme.style(Role::Dim)));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let visible = usize::from(inner.height);
        // The window keeps the selected match in view.
        let first = listing
            .selected
            .map_or(0, |s| s.saturating_sub(visible.saturating_sub(1)));
        let buf = frame.buffer_mut();
        for (dy, (i, name)) in shown
            .iter()
            .enumerate()
            .skip(first)
            .take(visible)
            .enumerate()
        {
            let Ok(dy) = u16::try_from(dy) else { break };
            let style = if listing.selected == Some(i) {
                theme.style(Role::Selected)
            } else if listing.matches[i].is_dir {
                theme.style(Role::Accent)
            } else {
                theme.style(Role::Normal)
            };
            let text = fit_end(&format!(" {name}"), usize::from(inner.width), ellipsis);
            buf.set_line(
                inner.x,
                inner.y + dy,
                &Line::styled(text, style),
                inner.width,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    /// `src/main.rs`, `src/model/`, `src/mod.rs`, `README.md`, `.hidden`, `notes.txt`.
    fn tree() -> Result<tempfile::TempDir, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("src/model"))?;
        std::fs::write(dir.path().join("src/main.rs"), "fn main() {}")?;
        std::fs::write(dir.path().join("src/mod.rs"), "")?;
        std::fs::write(dir.path().join("src/model/user.rs"), "")?;
        std::fs::write(dir.path().join("README.md"), "# hi")?;
        std::fs::write(dir.path().join(".hidden"), "")?;
        std::fs::write(dir.path().join("notes.txt"), "")?;
        Ok(dir)
    }

    fn names(c: &Completion) -> Vec<String> {
        c.matches.iter().map(Candidate::shown).collect()
    }

    #[test]
    fn completion_extends_to_what_the_matches_share() -> TestResult {
        let dir = tree()?;
        let base = dir.path();
        // One match: whole, a directory with its slash.
        assert_eq!(complete("sr", base, None).line, "src/");
        assert_eq!(complete("no", base, None).line, "notes.txt");
        // Several: their common prefix, and all of them listed.
        let m = complete("src/m", base, None);
        assert_eq!(m.line, "src/m");
        assert_eq!(names(&m), ["main.rs", "mod.rs", "model/"]);
        assert_eq!(complete("src/mo", base, None).line, "src/mod");
        assert_eq!(
            names(&complete("src/mod", base, None)),
            ["mod.rs", "model/"]
        );
        // A directory's contents; hidden files only when asked for.
        assert_eq!(names(&complete("src/model/", base, None)), ["user.rs"]);
        assert_eq!(
            names(&complete("", base, None)),
            ["README.md", "notes.txt", "src/"]
        );
        assert_eq!(complete(".h", base, None).line, ".hidden");
        // Nothing matches, or the directory is not there: the line stays.
        let none = complete("zzz", base, None);
        assert_eq!((none.line.as_str(), none.matches.len()), ("zzz", 0));
        assert!(complete("missing/x", base, None).matches.is_empty());
        Ok(())
    }

    #[test]
    fn home_and_absolute_paths() -> TestResult {
        let dir = tree()?;
        let home = dir.path().join("src");
        let base = Path::new("/nonexistent");
        assert_eq!(complete("~", base, Some(&home)).line, "~/");
        assert_eq!(complete("~/ma", base, Some(&home)).line, "~/main.rs");
        assert_eq!(expand("~/main.rs", base, Some(&home)), home.join("main.rs"));
        assert_eq!(expand("rel/x", base, Some(&home)), base.join("rel/x"));
        let abs = format!("{}/READ", dir.path().display());
        assert_eq!(
            complete(&abs, base, None).line,
            format!("{}/README.md", dir.path().display())
        );
        Ok(())
    }

    #[test]
    fn tab_completes_then_lists_then_cycles() -> TestResult {
        let dir = tree()?;
        let mut p = PathPrompt::new("attach", "attach", "src/m", dir.path().into(), None);
        // Nothing more to complete: the second Tab lists.
        p.complete(false);
        assert_eq!(p.listed(), ["main.rs", "mod.rs", "model/"]);
        assert_eq!(p.line(), "src/m");
        p.complete(false);
        assert_eq!(p.line(), "src/main.rs");
        p.complete(false);
        assert_eq!(p.line(), "src/mod.rs");
        p.complete(true);
        assert_eq!(p.line(), "src/main.rs");
        p.complete(true);
        assert_eq!(p.line(), "src/model/");
        // Enter on a directory from the list goes into it.
        assert_eq!(p.submit(), PromptOutcome::Editing);
        assert!(p.listed().is_empty());
        p.complete(false);
        assert_eq!(p.line(), "src/model/user.rs");
        assert_eq!(
            p.submit(),
            PromptOutcome::Submit(dir.path().join("src/model/user.rs"))
        );
        // Typing closes the list; a Tab with no match says so.
        let mut p = PathPrompt::new("attach", "attach", "zz", dir.path().into(), None);
        p.complete(false);
        assert_eq!(p.error(), Some("nothing matches zz"));
        p.edit_key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
        assert_eq!((p.line(), p.error()), ("z", None));
        Ok(())
    }

    #[test]
    fn editing_keys() {
        let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
        let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
        let mut p = PathPrompt::new("attach", "attach", "src/model/us", "/".into(), None);
        p.edit_key(ctrl('w'));
        assert_eq!(p.line(), "src/model/");
        p.edit_key(ctrl('w'));
        assert_eq!(p.line(), "src/");
        p.edit_key(key(KeyCode::Left));
        p.edit_key(key(KeyCode::Char('x')));
        assert_eq!(p.line(), "srcx/");
        p.edit_key(ctrl('u'));
        assert_eq!(p.line(), "/");
        p.edit_key(key(KeyCode::End));
        p.paste("é.txt\nsecond line");
        assert_eq!(p.line(), "/é.txt");
        p.edit_key(key(KeyCode::Backspace));
        p.edit_key(key(KeyCode::Backspace));
        p.edit_key(key(KeyCode::Backspace));
        p.edit_key(key(KeyCode::Backspace));
        p.edit_key(key(KeyCode::Backspace));
        assert_eq!(p.line(), "/");
        let mut empty = PathPrompt::new("attach", "attach", "", "/".into(), None);
        assert_eq!(empty.submit(), PromptOutcome::Editing);
        assert!(empty.error().is_some());
    }
}
