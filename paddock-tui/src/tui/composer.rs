//! The composer: a multi-line message box (`ratatui-textarea`) under the chat pane. Enter
//! sends; Alt-Enter or Ctrl-J adds a line; a paste goes in as it is (newlines included, none of
//! them sending). Its title says where the message goes and with which model.
//!
//! While the target chat runs a turn, Enter queues the message as the chat's follow-up
//! instead: it shows above the box, can be taken back into the box to edit (Alt-↑), or
//! dropped (Alt-x), and the lead sends it ([`Composer::take_queued`]) when the turn completes.
//!
//! Files go with the message as attachments: Ctrl-T asks for a path (the lead opens the
//! prompt, [`super::attach`]), each file picked shows as a chip above the box (`📎 name (12 KB)`,
//! `[+] ...` in ASCII), Alt-t drops the last one. They go with the next send and come back with
//! the draft when the daemon refuses it ([`Composer::put_back`]). A queued follow-up is text
//! only, so Enter with files attached while the chat runs says so and keeps everything.
//!
//! A new chat can start with its project's context preloaded (Alt-p, reference §4 step 4):
//! the daemon prepends the project's OVERVIEW.md and the tail of its CHANGELOG.md to the first
//! message. The title says so; the choice is the project's (the lead keeps it in the client
//! state) and means nothing for a reply, which says so.
//!
//! A new chat works in a git worktree of its own or in the project's checkout: its project's
//! `isolation` chooses, Alt-w turns it the other way for this chat, and the title says which
//! (`⎇ worktree`, or `checkout` in a project whose chats take worktrees). A reply works where
//! its chat began, which Alt-w says.
//!
//! The keys are those of `keys.rs` (the composer context): [`Composer::handle_key`] does all
//! of them, and each also has its own method for a dispatcher that goes through that table.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Padding};
use ratatui_textarea::{CursorMove, TextArea, WrapMode};
use unicode_width::UnicodeWidthStr;

use super::chat_view::{clean, fit_end, wrap};
use super::theme::{Glyph, Mark, Role, Theme};
use crate::attachments::{Picked, human_size};
use crate::format::{clean_title, project_label};

/// The models Ctrl-O cycles through; `None` is the daemon's default.
pub const MODELS: [Option<&str>; 4] = [None, Some("sonnet"), Some("opus"), Some("haiku")];

/// At most this many rows of text before the box scrolls.
const MAX_TEXT_ROWS: u16 = 8;
/// At most this many rows of a queued follow-up are shown.
const QUEUED_ROWS: usize = 3;
/// At most this many rows of attachment chips are shown (the rest are counted).
const CHIP_ROWS: usize = 2;

/// Where the message goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A new chat in this project (`""`: the root workspace).
    NewChat { project_slug: String },
    /// A turn in this chat.
    Reply { session_id: String, title: String },
}

/// What a key did, for the lead to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerOutcome {
    /// Handled inside the composer (typing, moving, a model change) or nothing to do.
    None,
    /// Send this message now.
    Send(String),
    /// The chat runs: the message became (or joined) the queued follow-up.
    Queued,
    /// The queued follow-up left the queue: dropped, or taken back into the box to edit.
    Unqueued,
    /// Cancel the target chat's running turn (Ctrl-C).
    Cancel,
    /// Leave the composer; the draft stays.
    Leave,
    /// Ask for a file to attach (Ctrl-T).
    Attach,
    /// Something to say on the status line (a file dropped, a send refused here).
    Notice(String),
}

#[derive(Debug)]
pub struct Composer {
    textarea: TextArea<'static>,
    target: Target,
    /// The model for the next message; `None`: the daemon's default. The lead may set it.
    pub model: Option<String>,
    /// A new chat starts with the project's overview and changelog preloaded. The lead may
    /// set it; a reply ignores it.
    pub preload: bool,
    /// A new chat works in a git worktree of its own (else the project's checkout). The lead
    /// sets it from the project's `isolation`; Alt-w turns it.
    pub worktree: bool,
    /// What the project's `isolation` says (the title names the place when it is a worktree
    /// or not the project's way).
    pub worktree_default: bool,
    queued: Option<String>,
    /// The target chat runs a turn (Enter queues).
    running: bool,
    /// Files that go with the next message.
    attachments: Vec<Picked>,
}

impl Default for Composer {
    fn default() -> Self {
        Self::new()
    }
}

impl Composer {
    pub fn new() -> Self {
        Self {
            textarea: textarea(Vec::new()),
            target: Target::NewChat {
                project_slug: String::new(),
            },
            model: None,
            preload: false,
            worktree: false,
            worktree_default: false,
            queued: None,
            running: false,
            attachments: Vec::new(),
        }
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    pub fn set_target(&mut self, target: Target) {
        self.target = target;
    }

    /// Whether the target chat runs a turn (Enter then queues); [`Composer::handle_key`] also
    /// records it.
    pub fn set_running(&mut self, running: bool) {
        self.running = running;
    }

    /// The draft as it stands.
    pub fn text(&self) -> String {
        self.textarea.lines().join("\n")
    }

    pub fn is_empty(&self) -> bool {
        self.textarea.is_empty()
    }

    /// Replaces the draft, the cursor at its end.
    pub fn set_text(&mut self, text: &str) {
        self.textarea = textarea(text.split('\n').map(str::to_owned).collect());
        self.textarea.move_cursor(CursorMove::Bottom);
        self.textarea.move_cursor(CursorMove::End);
    }

    pub fn clear(&mut self) {
        self.textarea = textarea(Vec::new());
    }

    /// The queued follow-up, if any.
    pub fn queued(&self) -> Option<&str> {
        self.queued.as_deref()
    }

    /// Takes the queued follow-up, to send when the running turn completes.
    pub fn take_queued(&mut self) -> Option<String> {
        self.queued.take()
    }

    pub fn set_queued(&mut self, message: Option<String>) {
        self.queued = message;
    }

    /// The files that go with the next message.
    pub fn attachments(&self) -> &[Picked] {
        &self.attachments
    }

    /// Adds a file to the next message; the same file twice is refused.
    pub fn attach(&mut self, picked: Picked) -> Result<(), String> {
        if self.attachments.iter().any(|a| a.path == picked.path) {
            return Err(format!("{} is attached already", picked.name));
        }
        self.attachments.push(picked);
        Ok(())
    }

    /// Drops the last file attached.
    pub fn drop_attachment(&mut self) -> Option<Picked> {
        self.attachments.pop()
    }

    /// Takes the files attached (they go with a send, or stay with another chat's draft).
    pub fn take_attachments(&mut self) -> Vec<Picked> {
        std::mem::take(&mut self.attachments)
    }

    pub fn set_attachments(&mut self, attachments: Vec<Picked>) {
        self.attachments = attachments;
    }

    /// A message the daemon refused comes back: its text above what was typed since, its
    /// files before the ones attached since.
    pub fn put_back(&mut self, text: &str, attachments: Vec<Picked>) {
        if self.is_empty() {
            self.set_text(text);
        } else {
            let now = self.text();
            self.set_text(&format!("{text}\n{now}"));
        }
        let since = std::mem::replace(&mut self.attachments, attachments);
        for picked in since {
            let _ = self.attach(picked);
        }
    }

    /// Moves to the next of [`MODELS`]; a model set by name elsewhere moves to the default.
    pub fn cycle_model(&mut self) {
        let at = MODELS
            .iter()
            .position(|m| *m == self.model.as_deref())
            .map_or(0, |i| (i + 1) % MODELS.len());
        self.model = MODELS[at].map(str::to_owned);
    }

    /// Turns preloading on or off for a new chat; a reply cannot preload, and says why.
    pub fn toggle_preload(&mut self) -> ComposerOutcome {
        if !matches!(self.target, Target::NewChat { .. }) {
            return ComposerOutcome::Notice(
                "preload is for a new chat's first message (N starts one)".to_owned(),
            );
        }
        self.preload = !self.preload;
        ComposerOutcome::Notice(if self.preload {
            "preload on: OVERVIEW.md and the end of CHANGELOG.md go first".to_owned()
        } else {
            "preload off".to_owned()
        })
    }

    /// Turns a new chat's worktree on or off; a reply works where its chat began, and says so.
    pub fn toggle_worktree(&mut self) -> ComposerOutcome {
        if !matches!(self.target, Target::NewChat { .. }) {
            return ComposerOutcome::Notice(
                "a chat works where it began; the worktree choice is for a new chat (N starts one)"
                    .to_owned(),
            );
        }
        self.worktree = !self.worktree;
        ComposerOutcome::Notice(if self.worktree {
            "worktree on: the new chat works in a git worktree of its own, on its own branch"
                .to_owned()
        } else {
            "worktree off: the new chat works in the project's checkout".to_owned()
        })
    }

    /// Whether the next send starts a new chat with its context preloaded.
    pub fn preloads(&self) -> bool {
        self.preload && matches!(self.target, Target::NewChat { .. })
    }

    /// Handles a key while the composer has the focus. `running`: the target chat runs a turn.
    pub fn handle_key(&mut self, key: KeyEvent, running: bool) -> ComposerOutcome {
        self.running = running;
        if key.kind == KeyEventKind::Release {
            return ComposerOutcome::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let queue_changed = |changed: bool| {
            if changed {
                ComposerOutcome::Unqueued
            } else {
                ComposerOutcome::None
            }
        };
        match key.code {
            KeyCode::Enter if alt || shift => {
                self.insert_newline();
                ComposerOutcome::None
            }
            KeyCode::Char('j') if ctrl => {
                self.insert_newline();
                ComposerOutcome::None
            }
            KeyCode::Enter => self.submit(),
            KeyCode::Esc => ComposerOutcome::Leave,
            KeyCode::Char('c') if ctrl => ComposerOutcome::Cancel,
            KeyCode::Char('o') if ctrl => {
                self.cycle_model();
                ComposerOutcome::None
            }
            KeyCode::Up if alt => queue_changed(self.edit_queued()),
            KeyCode::Char('x') if alt => queue_changed(self.drop_queued()),
            KeyCode::Char('t') if ctrl => ComposerOutcome::Attach,
            KeyCode::Char('p') if alt => self.toggle_preload(),
            KeyCode::Char('w') if alt => self.toggle_worktree(),
            KeyCode::Char('t') if alt => ComposerOutcome::Notice(match self.drop_attachment() {
                Some(dropped) => format!("{} is no longer attached", dropped.name),
                None => "no file is attached".to_owned(),
            }),
            _ => {
                self.input(key);
                ComposerOutcome::None
            }
        }
    }

    /// A key for the text itself (typing, moving, deleting, undo...).
    pub fn input(&mut self, key: KeyEvent) {
        self.textarea.input(key);
    }

    pub fn insert_newline(&mut self) {
        self.textarea.insert_newline();
    }

    /// A bracketed paste: the text goes in as it is (its newlines are lines, not sends).
    pub fn handle_paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.textarea.insert_str(text);
    }

    /// Enter: the draft to send, or to queue while the chat runs (see [`Composer::set_running`]);
    /// nothing for a blank draft. The files attached stay here for the lead to take
    /// ([`Composer::take_attachments`]); a follow-up with files cannot be queued.
    pub fn submit(&mut self) -> ComposerOutcome {
        let text = self.text();
        let text = text.trim_start_matches('\n').trim_end();
        if text.trim().is_empty() {
            if self.attachments.is_empty() {
                return ComposerOutcome::None;
            }
            return ComposerOutcome::Notice(
                "write the message that goes with the files attached".to_owned(),
            );
        }
        if self.running && !self.attachments.is_empty() {
            return ComposerOutcome::Notice(
                "a queued follow-up cannot carry files: send it when the turn ends, or drop them (Alt-t)"
                    .to_owned(),
            );
        }
        let text = text.to_owned();
        self.clear();
        if !self.running {
            return ComposerOutcome::Send(text);
        }
        self.queued = Some(match self.queued.take() {
            Some(queued) => format!("{queued}\n\n{text}"),
            None => text,
        });
        ComposerOutcome::Queued
    }

    /// Takes the queued follow-up back into the box, above what was typed since; whether
    /// there was one.
    pub fn edit_queued(&mut self) -> bool {
        let Some(queued) = self.queued.take() else {
            return false;
        };
        let text = if self.is_empty() {
            queued
        } else {
            format!("{queued}\n{}", self.text())
        };
        self.set_text(&text);
        true
    }

    /// Drops the queued follow-up; whether there was one.
    pub fn drop_queued(&mut self) -> bool {
        self.queued.take().is_some()
    }

    /// The rows the composer wants at this width: the box grows with its text up to a cap, and
    /// a queued follow-up shows above it.
    pub fn height(&self, width: u16) -> u16 {
        // Borders, and a column of padding on the left.
        let inner = usize::from(width.saturating_sub(3)).max(1);
        let rows: usize = self
            .textarea
            .lines()
            .iter()
            .map(|line| wrap(line, inner).len())
            .sum();
        let rows = u16::try_from(rows)
            .unwrap_or(u16::MAX)
            .clamp(1, MAX_TEXT_ROWS);
        rows + 2 + self.queued_rows(width) + self.chip_rows(width)
    }

    /// Rows of attachment chips at this width.
    fn chip_rows(&self, width: u16) -> u16 {
        u16::try_from(self.chip_layout(width).0.len()).unwrap_or(0)
    }

    /// Which chips go on which row, and how many did not fit. Laid out with the ASCII glyph,
    /// the wider one, so the height is the same in either theme.
    fn chip_layout(&self, width: u16) -> (Vec<Vec<usize>>, usize) {
        let width = usize::from(width).max(1);
        let widths: Vec<usize> = self
            .attachments
            .iter()
            .map(|a| chip_width(a, "[+]").min(width.saturating_sub(1)))
            .collect();
        let mut rows: Vec<Vec<usize>> = Vec::new();
        let mut row: Vec<usize> = Vec::new();
        let mut used = 0;
        for (i, &w) in widths.iter().enumerate() {
            if !row.is_empty() && used + 2 + w > width {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            if rows.len() == CHIP_ROWS {
                break;
            }
            used += if row.is_empty() { 1 } else { 2 } + w;
            row.push(i);
        }
        if !row.is_empty() {
            rows.push(row);
        }
        // The last row makes room for `+N more` when some did not fit (one chip stays).
        let shown = |rows: &[Vec<usize>]| rows.iter().map(Vec::len).sum::<usize>();
        while shown(&rows) < self.attachments.len() {
            let hidden = self.attachments.len() - shown(&rows);
            let Some(last) = rows.last_mut() else {
                break;
            };
            let used: usize = 1 + last.iter().map(|&i| widths[i] + 2).sum::<usize>() - 2;
            if last.len() < 2 || used + more_label(hidden).len() <= width {
                break;
            }
            last.pop();
        }
        let hidden = self.attachments.len() - shown(&rows);
        (rows, hidden)
    }

    fn queued_rows(&self, width: u16) -> u16 {
        match &self.queued {
            None => 0,
            Some(text) => {
                let rows = wrap(text.trim(), usize::from(width.saturating_sub(2)).max(1)).len();
                u16::try_from(rows.min(QUEUED_ROWS) + 1).unwrap_or(1)
            }
        }
    }

    pub fn render(&mut self, theme: &Theme, frame: &mut Frame<'_>, area: Rect, focused: bool) {
        if area.width < 4 || area.height == 0 {
            return;
        }
        let queued_rows = self
            .queued_rows(area.width)
            .min(area.height.saturating_sub(3));
        let (top, area) = split_top(area, queued_rows);
        if queued_rows > 0 {
            self.render_queued(theme, frame, top);
        }
        let chip_rows = self
            .chip_rows(area.width)
            .min(area.height.saturating_sub(3));
        let (top, area) = split_top(area, chip_rows);
        if chip_rows > 0 {
            self.render_chips(theme, frame, top);
        }
        let width = usize::from(area.width);
        let ellipsis = theme.glyph(Glyph::Ellipsis);
        let border = if focused {
            theme.style(Role::Accent)
        } else {
            theme.style(Role::Dim)
        };
        let model = self.model.as_deref().unwrap_or("default");
        let model = if width >= 60 {
            format!(" model: {model} ")
        } else {
            format!(" {model} ")
        };
        let title = match &self.target {
            Target::NewChat { project_slug } => {
                let dot = theme.glyph(Glyph::Dot);
                let mut title = format!("new chat in {}", project_label(project_slug));
                if self.worktree {
                    title.push_str(&format!(" {dot} {} worktree", theme.mark(Mark::Worktree)));
                } else if self.worktree_default {
                    title.push_str(&format!(" {dot} checkout"));
                }
                if self.preload {
                    title.push_str(&format!(" {dot} preload"));
                }
                title
            }
            Target::Reply { title, .. } => format!("reply to {}", clean_title(title)),
        };
        // Corners and a space either side of each title.
        let room = width.saturating_sub(model.width() + 5);
        let title = format!(" {} ", fit_end(&title, room, ellipsis));
        let dot = theme.glyph(Glyph::Dot);
        let verb = if self.running { "queues" } else { "send" };
        let hint = match (focused, width >= 60) {
            (false, _) => None,
            (true, true) => Some(format!(
                " enter {verb} {dot} alt-enter new line {dot} ctrl-o model "
            )),
            (true, false) => Some(format!(" enter {verb} ")),
        };
        let mut block = Block::bordered()
            .border_set(theme.border())
            .padding(Padding::left(1))
            .border_style(border)
            .title_top(Line::from(Span::styled(title, border)))
            .title_top(Line::from(Span::styled(model, theme.style(Role::Dim))).right_aligned());
        if let Some(hint) = hint {
            block = block.title_bottom(
                Line::from(Span::styled(hint, theme.style(Role::Dim))).right_aligned(),
            );
        }
        let inner = block.inner(area);
        frame.render_widget(block, area);
        if focused {
            self.textarea.set_cursor_style(theme.style(Role::Selected));
        } else {
            self.textarea.set_cursor_style(Style::new());
        }
        self.textarea.set_placeholder_style(theme.style(Role::Dim));
        frame.render_widget(&self.textarea, inner);
    }

    /// The files attached, as chips: `📎 name (12 KB)`.
    fn render_chips(&self, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
        let (rows, hidden) = self.chip_layout(area.width);
        let width = usize::from(area.width);
        let ellipsis = theme.glyph(Glyph::Ellipsis);
        let clip = theme.mark(Mark::Attached);
        let buf = frame.buffer_mut();
        let last = rows.len().saturating_sub(1);
        for (dy, row) in rows.iter().enumerate() {
            let Ok(dy) = u16::try_from(dy) else { break };
            if dy >= area.height {
                break;
            }
            let mut spans = vec![Span::raw(" ")];
            for (n, &i) in row.iter().enumerate() {
                let Some(a) = self.attachments.get(i) else {
                    continue;
                };
                if n > 0 {
                    spans.push(Span::raw("  "));
                }
                spans.extend(chip_spans(
                    a,
                    clip,
                    width.saturating_sub(1),
                    ellipsis,
                    theme,
                ));
            }
            let line = if dy == u16::try_from(last).unwrap_or(0) && hidden > 0 {
                // The count of the rest always shows; the chips give way.
                let more = more_label(hidden);
                let room = width.saturating_sub(more.width());
                let mut line = super::chat_view::fit_spans(spans, room, ellipsis);
                line.spans.push(Span::styled(more, theme.style(Role::Dim)));
                line
            } else {
                super::chat_view::fit_spans(spans, width, ellipsis)
            };
            buf.set_line(area.x, area.y + dy, &line, area.width);
        }
    }

    fn render_queued(&self, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
        let Some(text) = &self.queued else {
            return;
        };
        let width = usize::from(area.width);
        let ellipsis = theme.glyph(Glyph::Ellipsis);
        let head = vec![
            Span::styled(
                format!(
                    "{} {}",
                    theme.mark(Mark::Waiting),
                    if width >= 50 {
                        "queued follow-up"
                    } else {
                        "queued"
                    }
                ),
                theme.style(Role::Warning),
            ),
            Span::styled(
                format!(
                    " {dot} alt-{} edit {dot} alt-x drop",
                    theme.glyph(Glyph::UpKey),
                    dot = theme.glyph(Glyph::Dot)
                ),
                theme.style(Role::Dim),
            ),
        ];
        let mut lines = vec![Line::from(head)];
        let rows = wrap(text.trim(), width.saturating_sub(2).max(1));
        let shown = usize::from(area.height.saturating_sub(1)).min(QUEUED_ROWS);
        for (i, row) in rows.iter().take(shown).enumerate() {
            let row = if i + 1 == shown && rows.len() > shown {
                fit_end(&format!("{row}{ellipsis}"), width - 2, ellipsis)
            } else {
                row.clone()
            };
            lines.push(Line::from(vec![
                Span::raw("  "),
                Span::styled(row, theme.style(Role::Dim)),
            ]));
        }
        let buf = frame.buffer_mut();
        for (dy, line) in lines.iter().enumerate() {
            let Ok(dy) = u16::try_from(dy) else { break };
            if dy >= area.height {
                break;
            }
            buf.set_line(area.x, area.y + dy, line, area.width);
        }
    }
}

/// What follows the chips that did not fit.
/// `area` cut in two: its first `rows` rows, and the rest below them.
fn split_top(area: Rect, rows: u16) -> (Rect, Rect) {
    let top = Rect {
        height: rows,
        ..area
    };
    let rest = Rect {
        y: area.y + rows,
        height: area.height - rows,
        ..area
    };
    (top, rest)
}

fn more_label(hidden: usize) -> String {
    format!("  +{hidden} more")
}

/// A chip's columns: the glyph, the name, the size.
fn chip_width(a: &Picked, clip: &str) -> usize {
    clip.width() + 1 + clean(&a.name).width() + human_size(a.size).len() + 3
}

/// One chip, `📎 name (12 KB)`, its name cut to fit `max` columns.
fn chip_spans(
    a: &Picked,
    clip: &str,
    max: usize,
    ellipsis: &str,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let size = format!(" ({})", human_size(a.size));
    let room = max.saturating_sub(clip.width() + 1 + size.width());
    vec![
        Span::styled(
            format!("{clip} {}", fit_end(&clean(&a.name), room, ellipsis)),
            theme.style(Role::Accent),
        ),
        Span::styled(size, theme.style(Role::Dim)),
    ]
}

/// A message box with the composer's settings.
fn textarea(lines: Vec<String>) -> TextArea<'static> {
    let mut textarea = if lines.is_empty() {
        TextArea::default()
    } else {
        TextArea::new(lines)
    };
    textarea.set_wrap_mode(WrapMode::WordOrGlyph);
    textarea.set_cursor_line_style(Style::new());
    textarea.set_placeholder_text("Write a message");
    textarea
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn typed(composer: &mut Composer, text: &str) {
        for c in text.chars() {
            composer.handle_key(key(KeyCode::Char(c)), false);
        }
    }

    #[test]
    fn enter_sends_and_clears() {
        let mut c = Composer::new();
        typed(&mut c, "hello");
        assert_eq!(
            c.handle_key(key(KeyCode::Enter), false),
            ComposerOutcome::Send("hello".into())
        );
        assert!(c.is_empty());
        assert_eq!(
            c.handle_key(key(KeyCode::Enter), false),
            ComposerOutcome::None,
            "nothing to send"
        );
    }

    #[test]
    fn alt_enter_and_ctrl_j_add_lines() {
        let mut c = Composer::new();
        typed(&mut c, "a");
        c.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT), false);
        typed(&mut c, "b");
        c.handle_key(ctrl('j'), false);
        typed(&mut c, "c");
        assert_eq!(c.text(), "a\nb\nc");
        assert_eq!(
            c.handle_key(key(KeyCode::Enter), false),
            ComposerOutcome::Send("a\nb\nc".into())
        );
    }

    #[test]
    fn a_paste_goes_in_as_it_is() {
        let mut c = Composer::new();
        c.handle_paste("line one\r\nline two\rline three");
        assert_eq!(c.text(), "line one\nline two\nline three");
    }

    #[test]
    fn esc_leaves_and_ctrl_c_cancels_the_turn_and_both_keep_the_draft() {
        let mut c = Composer::new();
        typed(&mut c, "draft");
        assert_eq!(
            c.handle_key(key(KeyCode::Esc), false),
            ComposerOutcome::Leave
        );
        assert_eq!(c.handle_key(ctrl('c'), true), ComposerOutcome::Cancel);
        assert_eq!(c.text(), "draft");
    }

    #[test]
    fn ctrl_o_cycles_models() {
        let mut c = Composer::new();
        let mut seen = vec![c.model.clone()];
        for _ in 0..4 {
            c.handle_key(ctrl('o'), false);
            seen.push(c.model.clone());
        }
        assert_eq!(
            seen,
            [
                None,
                Some("sonnet".into()),
                Some("opus".into()),
                Some("haiku".into()),
                None
            ]
        );
        c.model = Some("claude-opus-4-1".into());
        c.cycle_model();
        assert_eq!(c.model, None);
    }

    #[test]
    fn while_running_enter_queues_and_the_queue_can_be_edited_or_dropped() {
        let mut c = Composer::new();
        typed(&mut c, "then run the tests");
        assert_eq!(
            c.handle_key(key(KeyCode::Enter), true),
            ComposerOutcome::Queued
        );
        assert!(c.is_empty());
        assert_eq!(c.queued(), Some("then run the tests"));
        // A second message joins the first.
        typed(&mut c, "and lint");
        c.handle_key(key(KeyCode::Enter), true);
        assert_eq!(c.queued(), Some("then run the tests\n\nand lint"));
        // Alt-Up takes it back to edit.
        assert_eq!(
            c.handle_key(KeyEvent::new(KeyCode::Up, KeyModifiers::ALT), true),
            ComposerOutcome::Unqueued
        );
        assert_eq!(c.queued(), None);
        assert_eq!(c.text(), "then run the tests\n\nand lint");
        c.handle_key(key(KeyCode::Enter), true);
        let alt_x = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::ALT);
        assert_eq!(c.handle_key(alt_x, true), ComposerOutcome::Unqueued);
        assert_eq!(c.queued(), None, "dropped");
        assert_eq!(c.handle_key(alt_x, true), ComposerOutcome::None);
        typed(&mut c, "x");
        c.handle_key(key(KeyCode::Enter), true);
        assert_eq!(c.take_queued().as_deref(), Some("x"));
    }

    #[test]
    fn the_box_grows_with_its_text_up_to_a_cap() {
        let mut c = Composer::new();
        assert_eq!(c.height(40), 3);
        c.set_text("one\ntwo\nthree");
        assert_eq!(c.height(40), 5);
        c.set_text(&"word ".repeat(200));
        assert_eq!(c.height(40), MAX_TEXT_ROWS + 2);
        c.clear();
        c.set_queued(Some("queued".into()));
        assert_eq!(c.height(40), 3 + 2);
    }
}
