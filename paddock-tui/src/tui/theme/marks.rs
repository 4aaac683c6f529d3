//! The TUI's one vocabulary of glyphs: every mark and every piece of punctuation it draws,
//! each with its Unicode and its ASCII form, so the ASCII theme draws nothing else.
//!
//! A [`Mark`] says something about a row or an item (running, unread, starred, folded, who
//! started it, how a run ended...). Marks are distinct from one another in each mode, so a
//! glyph never means two things, and the help's legend lists them with what they mean. A
//! [`Glyph`] is punctuation and lines (an ellipsis, a separator, an arrow, a box's border):
//! it means nothing by itself.

use ratatui::symbols::border;

use super::Role;
use ratatui::widgets::BorderType;

/// A glyph that means something: the tree's row marks, origin badges, run and file statuses,
/// a chat pane item's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    /// The cursor's row.
    Cursor,
    /// A row selected with space or `v`.
    Selected,
    /// A turn running; drawn as a spinner ([`RUNNING`] and [`RUNNING_ASCII`]), its first
    /// frame in the legend.
    Running,
    /// Waiting: a turn queued for a free claude process, a chat parked on a usage limit, a
    /// follow-up queued behind the running turn.
    Waiting,
    /// A tool call waits for your answer; on a fold: its chats that wait for you.
    Approval,
    /// Cut short (a chat, a run, a task), or a warning.
    Interrupted,
    Unread,
    Star,
    /// A fold that hides rows.
    Folded,
    Unfolded,
    /// The branch before a row nested under the one above.
    Nested,
    /// Origins: started by a schedule, by another chat, by a hook; adopted from the terminal.
    Scheduled,
    Spawned,
    Hook,
    Adopted,
    /// A fork: a copy of the chat it is drawn under (or names).
    Fork,
    /// A chat that works in a git worktree of its own (before its branch).
    Worktree,
    /// A chat that changed some of the files another chat of its project changed.
    Overlap,
    /// A turn another chat's message started.
    Sent,
    /// A run completed; a file still what the chat wrote.
    Done,
    /// A run, a tool call or a request failed; a file changed since the chat wrote it.
    Failed,
    Cancelled,
    /// A trigger's fire that was skipped.
    Skipped,
    /// A file whose state could not be checked.
    Unverified,
    /// A file change inferred (not seen being made).
    Inferred,
    /// A notice in the chat pane.
    Info,
    /// A background task's report.
    Task,
    /// A file attached to a message.
    Attached,
    /// A queued follow-up that was sent.
    Flushed,
}

/// The running spinner's frames.
pub const RUNNING: [&str; 8] = ["⠋", "⠙", "⠸", "⠴", "⠦", "⠇", "⠏", "⠹"];
/// The running spinner's frames in ASCII (none of them another mark).
pub const RUNNING_ASCII: [&str; 4] = ["o", "O", "o", "."];

impl Mark {
    /// Every mark, in the order the help's legend lists them.
    pub const ALL: [Mark; 29] = [
        Mark::Cursor,
        Mark::Selected,
        Mark::Running,
        Mark::Approval,
        Mark::Waiting,
        Mark::Interrupted,
        Mark::Unread,
        Mark::Star,
        Mark::Folded,
        Mark::Unfolded,
        Mark::Nested,
        Mark::Scheduled,
        Mark::Spawned,
        Mark::Hook,
        Mark::Adopted,
        Mark::Fork,
        Mark::Worktree,
        Mark::Overlap,
        Mark::Sent,
        Mark::Done,
        Mark::Failed,
        Mark::Cancelled,
        Mark::Skipped,
        Mark::Unverified,
        Mark::Inferred,
        Mark::Info,
        Mark::Task,
        Mark::Attached,
        Mark::Flushed,
    ];

    /// The warning of a view (a note, a listing cut short): the same glyph as
    /// [`Mark::Interrupted`], which it is for a chat.
    pub const WARNING: Mark = Mark::Interrupted;

    /// Its Unicode and its ASCII glyph.
    pub const fn glyphs(self) -> (&'static str, &'static str) {
        match self {
            Mark::Cursor => ("›", ">"),
            Mark::Selected => ("◆", "#"),
            Mark::Running => (RUNNING[0], RUNNING_ASCII[0]),
            Mark::Waiting => ("⏸", "="),
            Mark::Approval => ("◉", "?"),
            Mark::Interrupted => ("⚠", "!"),
            Mark::Unread => ("•", "*"),
            Mark::Star => ("★", "^"),
            Mark::Folded => ("▸", "+"),
            Mark::Unfolded => ("▾", "-"),
            Mark::Nested => ("└", "`-"),
            Mark::Scheduled => ("⏰", "@"),
            Mark::Spawned => ("⑂", "Y"),
            Mark::Hook => ("⚡", "%"),
            Mark::Adopted => ("▣", ">_"),
            Mark::Fork => ("⋔", "-<"),
            Mark::Worktree => ("⎇", "branch"),
            Mark::Overlap => ("⇄", "<>"),
            Mark::Sent => ("↩", "<-"),
            Mark::Done => ("✓", "v"),
            Mark::Failed => ("✗", "x"),
            Mark::Cancelled => ("⊘", "/"),
            Mark::Skipped => ("⏭", ">>"),
            Mark::Unverified => ("?", "??"),
            Mark::Inferred => ("~", "~"),
            Mark::Info => ("ℹ", "i"),
            Mark::Task => ("⚙", "&"),
            Mark::Attached => ("📎", "[+]"),
            Mark::Flushed => ("↪", "->"),
        }
    }

    /// The glyph in this mode.
    pub const fn glyph(self, unicode: bool) -> &'static str {
        let (u, a) = self.glyphs();
        if unicode { u } else { a }
    }

    /// The role it is drawn in.
    pub const fn role(self) -> Role {
        match self {
            Mark::Cursor | Mark::Nested | Mark::Folded | Mark::Unfolded => Role::Normal,
            Mark::Selected => Role::Marked,
            Mark::Running => Role::Running,
            Mark::Approval
            | Mark::Waiting
            | Mark::Interrupted
            | Mark::Unverified
            | Mark::Inferred
            | Mark::Overlap => Role::Warning,
            Mark::Unread => Role::Unread,
            Mark::Star => Role::Star,
            Mark::Scheduled => Role::Scheduled,
            Mark::Spawned | Mark::Sent | Mark::Fork => Role::Spawned,
            Mark::Worktree => Role::Dim,
            Mark::Hook => Role::Hook,
            Mark::Adopted => Role::Adopted,
            Mark::Done => Role::Success,
            Mark::Failed => Role::Error,
            Mark::Cancelled
            | Mark::Skipped
            | Mark::Info
            | Mark::Task
            | Mark::Attached
            | Mark::Flushed => Role::Dim,
        }
    }

    /// What it means, for the help's legend.
    pub const fn meaning(self) -> &'static str {
        match self {
            Mark::Cursor => "the cursor's row",
            Mark::Selected => "selected (space, v): keys act on every selected chat",
            Mark::Running => "running (it turns)",
            Mark::Approval => {
                "a tool call waits for your answer (I); on a fold: chats that wait for you"
            }
            Mark::Waiting => {
                "waiting: for a free claude (max_processes), on a usage limit, or a follow-up queued"
            }
            Mark::Interrupted => "cut short (C continues it), or a warning",
            Mark::Unread => "unread",
            Mark::Star => "starred (listed first)",
            Mark::Folded => "folded (+N: the chats it hides)",
            Mark::Unfolded => "unfolded",
            Mark::Nested => "nested under the chat above",
            Mark::Scheduled => "started by a schedule",
            Mark::Spawned => "started by another chat (:N levels down)",
            Mark::Hook => "started by a hook",
            Mark::Adopted => "adopted from the terminal's claude",
            Mark::Fork => "a fork: a copy of the chat it is drawn under",
            Mark::Worktree => {
                "works in a git worktree of its own, on this branch (the chat's header)"
            }
            Mark::Overlap => {
                "changed files another chat changed too (paddock worktree ls names them)"
            }
            Mark::Sent => "started by another chat's message",
            Mark::Done => "completed (a run); as the chat wrote it (a file)",
            Mark::Failed => "failed (a chat's last run, a tool call); changed since (a file)",
            Mark::Cancelled => "cancelled",
            Mark::Skipped => "skipped (a trigger's fire)",
            Mark::Unverified => "not checked (a file)",
            Mark::Inferred => "an inferred change (a file)",
            Mark::Info => "a notice",
            Mark::Task => "a background task",
            Mark::Attached => "a file attached",
            Mark::Flushed => "a queued follow-up, sent",
        }
    }
}

/// Punctuation and lines: they mean nothing by themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Glyph {
    /// Where text was cut.
    Ellipsis,
    /// Where text was cut in one column (the tree's titles).
    Cut,
    /// Between the parts of a line (`paddockd 0.1.0 · 2 running`).
    Dot,
    /// Before an aside (a chat's status after its title).
    Dash,
    /// A horizontal line.
    Rule,
    /// A vertical line (between the panes, a gutter).
    Bar,
    /// From, to (`120k → 40k`).
    Arrow,
    /// Came from (a renamed file's old name, a file's producer).
    Back,
    /// Commits ahead of, behind the upstream; `Behind` also: lines below.
    Ahead,
    Behind,
    /// The up-arrow key, in a hint.
    UpKey,
    OpenQuote,
    CloseQuote,
    /// Where typing goes in a one-line field.
    TextCursor,
    /// Between a spawned badge and its depth (`⑂·2`).
    Levels,
    /// Before a message the person wrote.
    Prompt,
}

impl Glyph {
    pub const ALL: [Glyph; 16] = [
        Glyph::Ellipsis,
        Glyph::Cut,
        Glyph::Dot,
        Glyph::Dash,
        Glyph::Rule,
        Glyph::Bar,
        Glyph::Arrow,
        Glyph::Back,
        Glyph::Ahead,
        Glyph::Behind,
        Glyph::UpKey,
        Glyph::OpenQuote,
        Glyph::CloseQuote,
        Glyph::TextCursor,
        Glyph::Levels,
        Glyph::Prompt,
    ];

    /// Its Unicode and its ASCII form.
    pub const fn glyphs(self) -> (&'static str, &'static str) {
        match self {
            Glyph::Ellipsis => ("…", "..."),
            Glyph::Cut => ("…", "~"),
            Glyph::Dot => ("·", "-"),
            Glyph::Dash => ("—", "--"),
            Glyph::Rule => ("─", "-"),
            Glyph::Bar => ("│", "|"),
            Glyph::Arrow => ("→", "->"),
            Glyph::Back => ("←", "<-"),
            Glyph::Ahead => ("↑", "+"),
            Glyph::Behind => ("↓", "-"),
            Glyph::UpKey => ("↑", "up"),
            Glyph::OpenQuote => ("“", "\""),
            Glyph::CloseQuote => ("”", "\""),
            Glyph::TextCursor => ("▏", "_"),
            Glyph::Levels => ("·", ":"),
            Glyph::Prompt => ("›", ">"),
        }
    }

    /// The glyph in this mode.
    pub const fn glyph(self, unicode: bool) -> &'static str {
        let (u, a) = self.glyphs();
        if unicode { u } else { a }
    }
}

/// The ASCII form of a character that is one of the vocabulary's Unicode glyphs (punctuation
/// first: `·` is a separator before it is a depth), and of the other box lines.
pub fn ascii_of(c: char) -> Option<&'static str> {
    let mut buf = [0; 4];
    let s: &str = c.encode_utf8(&mut buf);
    let glyph = Glyph::ALL
        .into_iter()
        .map(Glyph::glyphs)
        .chain(Mark::ALL.into_iter().map(Mark::glyphs))
        .find(|(u, _)| *u == s)
        .map(|(_, a)| a);
    glyph.or(match c {
        '┌' | '┐' | '┘' | '╭' | '╮' | '╰' | '╯' | '├' | '┤' | '┼' => Some("+"),
        '━' => Some("-"),
        '┃' => Some("|"),
        '✘' => Some("x"),
        '‘' | '’' => Some("'"),
        '–' => Some("-"),
        _ => None,
    })
}

/// A box's lines in ASCII.
const ASCII_BORDER: border::Set<'static> = border::Set {
    top_left: "+",
    top_right: "+",
    bottom_left: "+",
    bottom_right: "+",
    vertical_left: "|",
    vertical_right: "|",
    horizontal_top: "-",
    horizontal_bottom: "-",
};

/// A box's lines: rounded, or ASCII.
pub fn border(unicode: bool) -> border::Set<'static> {
    if unicode {
        BorderType::Rounded.to_border_set()
    } else {
        ASCII_BORDER
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn marks_are_pairwise_distinct_in_each_mode() {
        for unicode in [true, false] {
            let mut seen: HashMap<&str, String> = HashMap::new();
            let mut add = |glyph: &'static str, whose: String| {
                if let Some(other) = seen.insert(glyph, whose.clone()) {
                    assert_eq!(
                        other, whose,
                        "{glyph:?} is both {other} and {whose} (unicode: {unicode})"
                    );
                }
            };
            for mark in Mark::ALL {
                add(mark.glyph(unicode), format!("{mark:?}"));
            }
            // Every frame of the spinner is the running mark and nothing else.
            let frames: &[&str] = if unicode { &RUNNING } else { &RUNNING_ASCII };
            for frame in frames {
                add(frame, "Running".to_owned());
            }
        }
    }

    #[test]
    fn ascii_is_ascii() {
        for mark in Mark::ALL {
            assert!(mark.glyph(false).is_ascii(), "{mark:?}");
            assert!(!mark.meaning().is_empty(), "{mark:?}");
        }
        for glyph in Glyph::ALL {
            assert!(glyph.glyph(false).is_ascii(), "{glyph:?}");
        }
        assert!(RUNNING_ASCII.iter().all(|f| f.is_ascii()));
        let b = border(false);
        for part in [
            b.top_left,
            b.top_right,
            b.bottom_left,
            b.bottom_right,
            b.vertical_left,
            b.vertical_right,
            b.horizontal_top,
            b.horizontal_bottom,
        ] {
            assert!(part.is_ascii(), "{part:?}");
        }
    }
}
