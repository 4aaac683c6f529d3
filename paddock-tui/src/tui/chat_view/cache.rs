//! The wrapped lines of each item, kept for one width and theme (see the module docs of
//! [`super`]).

use ratatui::text::Line;

use crate::tui::theme::Theme;

/// Wrapped lines per item, and where each item starts, for one width and theme.
#[derive(Debug, Default)]
pub struct RenderCache {
    pub(super) width: u16,
    pub(super) theme: Option<Theme>,
    /// `None`: to wrap again.
    pub(super) items: Vec<Option<Rendered>>,
    /// The first row of each item, and the total row count last.
    pub(super) offsets: Vec<usize>,
    pub(super) offsets_valid: bool,
    /// The body height and top row of the last render.
    pub(super) viewport: u16,
    pub(super) top: usize,
}

#[derive(Debug)]
pub(super) struct Rendered {
    /// Blank rows before the item (part of `lines`).
    pub(super) gap: usize,
    pub(super) lines: Vec<Line<'static>>,
}

impl RenderCache {
    pub(in crate::tui) fn invalidate(&mut self, item: usize) {
        if let Some(slot) = self.items.get_mut(item) {
            *slot = None;
        }
        self.offsets_valid = false;
    }

    pub(in crate::tui) fn truncate(&mut self, items: usize) {
        self.items.truncate(items);
        self.offsets_valid = false;
    }

    pub(in crate::tui) fn clear(&mut self) {
        self.items.clear();
        self.offsets_valid = false;
    }

    /// The body height of the last render (a guess before the first).
    pub(in crate::tui) fn viewport(&self) -> u16 {
        if self.viewport == 0 {
            20
        } else {
            self.viewport
        }
    }

    /// The item at the top of the last render.
    pub(in crate::tui) fn first_visible_item(&self) -> Option<usize> {
        self.item_at_row(self.top)
    }

    /// The item at the bottom of the last render.
    pub(in crate::tui) fn last_visible_item(&self) -> Option<usize> {
        let bottom = (self.top + usize::from(self.viewport)).saturating_sub(1);
        self.item_at_row(bottom)
    }

    pub(super) fn item_at_row(&self, row: usize) -> Option<usize> {
        let items = self.offsets.len().checked_sub(1)?;
        if items == 0 {
            return None;
        }
        let after = self.offsets[..items].partition_point(|&start| start <= row);
        Some(after.saturating_sub(1).min(items - 1))
    }

    pub(super) fn total(&self) -> usize {
        self.offsets.last().copied().unwrap_or(0)
    }
}
