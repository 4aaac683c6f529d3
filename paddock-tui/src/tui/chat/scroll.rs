//! Scrolling the chat pane: recorded here, resolved at render time (see [`Scroll`]).

use super::ChatView;

/// The view's scroll position and what the next render must resolve. Scrolling is recorded
/// here and applied at render time, when the wrapped layout for the current width is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::tui) struct Scroll {
    /// At the end, and staying there as content arrives.
    pub(in crate::tui) follow: bool,
    /// The top row as (item, row within the item): stable across re-wrapping.
    pub(in crate::tui) anchor: (usize, usize),
    /// Rows to scroll by at the next render.
    pub(in crate::tui) pending: i64,
    /// `pending` counts from the end (scrolling started while following).
    pub(in crate::tui) from_end: bool,
    /// Jump to the first row.
    pub(in crate::tui) to_start: bool,
    /// Bring the cursor item into view.
    pub(in crate::tui) reveal: bool,
    /// Put this item's first row at the top (a search result jumped to it).
    pub(in crate::tui) jump: Option<usize>,
}

impl Default for Scroll {
    fn default() -> Self {
        Self {
            follow: true,
            anchor: (0, 0),
            pending: 0,
            from_end: false,
            to_start: false,
            reveal: false,
            jump: None,
        }
    }
}

impl ChatView {
    /// Scrolls by `rows` (negative: up). Scrolling up stops following the end; reaching the
    /// end again resumes it.
    pub fn scroll_by(&mut self, rows: i32) {
        if rows == 0 {
            return;
        }
        if self.scroll.follow {
            self.scroll.from_end = true;
        }
        if rows < 0 {
            self.scroll.follow = false;
        }
        self.scroll.pending += i64::from(rows);
        self.scroll.to_start = false;
        self.scroll.reveal = false;
        self.scroll.jump = None;
    }

    /// Scrolls by whole screens (negative: up).
    pub fn page(&mut self, pages: i32) {
        let screen = i32::from(self.cache.viewport().saturating_sub(1).max(1));
        self.scroll_by(pages.saturating_mul(screen));
    }

    /// Jumps to the end and follows new content.
    pub fn to_end(&mut self) {
        self.go_to_an_end(true);
    }

    /// Jumps to the first line.
    pub fn to_start(&mut self) {
        self.go_to_an_end(false);
    }

    /// Drops what scrolling had pending and goes to the end (following) or to the start; the
    /// anchor stays until the next render resolves it.
    fn go_to_an_end(&mut self, end: bool) {
        self.scroll = Scroll {
            follow: end,
            to_start: !end,
            anchor: self.scroll.anchor,
            ..Scroll::default()
        };
    }

    /// The item at the top of the pane as last drawn.
    pub fn top_item(&self) -> Option<usize> {
        self.cache.first_visible_item()
    }

    /// The view stays at the end as content arrives.
    pub fn following(&self) -> bool {
        self.scroll.follow
    }
}
