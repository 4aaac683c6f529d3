//! The item cursor, expanding and collapsing items, and what the cursor's item names.

use paddock_proto::Attribution;

use super::ChatView;
use super::item::Item;
use crate::attachments::Listed;

impl ChatView {
    /// The item under the cursor.
    pub fn cursor(&self) -> Option<usize> {
        self.cursor
    }

    pub fn set_cursor(&mut self, cursor: Option<usize>) {
        self.cursor = cursor.filter(|&c| c < self.items.len());
        self.scroll.reveal = self.cursor.is_some();
    }

    /// Moves the cursor to the next item (from none: the first item on screen); whether it moved.
    pub fn select_next_item(&mut self) -> bool {
        let Some(last) = self.items.len().checked_sub(1) else {
            return false;
        };
        let next = match self.cursor {
            Some(c) => (c + 1).min(last),
            None => self.cache.first_visible_item().unwrap_or(0).min(last),
        };
        let moved = self.cursor != Some(next);
        self.cursor = Some(next);
        self.scroll.reveal = true;
        moved
    }

    /// Moves the cursor to the previous item (from none: the last item on screen).
    pub fn select_prev_item(&mut self) -> bool {
        let Some(last) = self.items.len().checked_sub(1) else {
            return false;
        };
        let prev = match self.cursor {
            Some(c) => c.saturating_sub(1),
            None => self.cache.last_visible_item().unwrap_or(last).min(last),
        };
        let moved = self.cursor != Some(prev);
        self.cursor = Some(prev);
        self.scroll.reveal = true;
        moved
    }

    /// Expands or collapses the item under the cursor (a tool call, a thinking block, a long
    /// message); whether it could. A tool call's output longer than [`OUTPUT_CAP`] lines shows
    /// its first and last lines when expanded, and all of it the next time.
    pub fn toggle_expand(&mut self) -> bool {
        let Some(i) = self.cursor else {
            return false;
        };
        let toggled = match self.items.get_mut(i) {
            Some(Item::Tool(tool)) => {
                if !tool.expanded {
                    tool.expanded = true;
                } else if !tool.full && tool.output_capped() {
                    tool.full = true;
                } else {
                    tool.expanded = false;
                    tool.full = false;
                }
                true
            }
            Some(Item::User(user)) => {
                user.expanded = !user.expanded;
                true
            }
            Some(Item::Thinking { expanded, .. }) => {
                *expanded = !*expanded;
                true
            }
            _ => false,
        };
        if toggled {
            self.cache.invalidate(i);
            self.scroll.reveal = true;
        }
        toggled
    }

    /// Expands (or collapses) every tool call, and the ones still to come.
    pub fn expand_all_tools(&mut self, expanded: bool) {
        self.expand_tools = expanded;
        for (i, item) in self.items.iter_mut().enumerate() {
            if let Item::Tool(tool) = item
                && tool.expanded != expanded
            {
                tool.expanded = expanded;
                tool.full = false;
                self.cache.invalidate(i);
            }
        }
    }

    pub fn tools_expanded(&self) -> bool {
        self.expand_tools
    }

    /// The kept files the item under the cursor names (see [`Item::attachments`]); with no
    /// cursor, the latest item's that names any.
    pub fn cursor_attachments(&self) -> Vec<Listed> {
        match self.cursor {
            Some(i) => self.items.get(i).map(Item::attachments).unwrap_or_default(),
            // No cursor (following the stream): the latest item with files.
            None => self
                .items
                .iter()
                .rev()
                .map(Item::attachments)
                .find(|files| !files.is_empty())
                .unwrap_or_default(),
        }
    }

    /// Who injected the turn under the cursor: the lead binds a key that opens the sending
    /// chat (`Attribution::Sent`).
    pub fn cursor_attribution(&self) -> Option<&Attribution> {
        match self.items.get(self.cursor?)? {
            Item::User(user) => user.attribution.as_ref(),
            _ => None,
        }
    }

    /// The chat that sent a turn, as the pane shows it: the turn under the item cursor when
    /// there is one, else the latest turn another chat sent (the `↩ sent by …` line in view).
    pub fn sender_in_view(&self) -> Option<&Attribution> {
        if self.cursor.is_some() {
            return self
                .cursor_attribution()
                .filter(|a| matches!(a, Attribution::Sent { .. }));
        }
        self.items.iter().rev().find_map(|item| match item {
            Item::User(user) => user
                .attribution
                .as_ref()
                .filter(|a| matches!(a, Attribution::Sent { .. })),
            _ => None,
        })
    }
}
