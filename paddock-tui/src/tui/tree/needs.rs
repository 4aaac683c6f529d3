//! What a fold hides, counted by what its chats need ([`crate::needs::Need`]).

use paddock_proto::ChatSummary;

use crate::needs::Need;

/// What a fold hides, counted: the chats, those waiting for you, running, failed and unread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hidden {
    pub chats: usize,
    pub waiting: usize,
    pub running: usize,
    pub failed: usize,
    pub unread: usize,
}

impl Hidden {
    /// Counts one more hidden chat.
    pub fn add(&mut self, chat: &ChatSummary) {
        self.chats += 1;
        let need = Need::of(chat);
        if need.is_some_and(|n| n.waits_for_you() && n != Need::Failed) {
            self.waiting += 1;
        }
        if need == Some(Need::Failed) {
            self.failed += 1;
        }
        if chat.running {
            self.running += 1;
        }
        if chat.unread {
            self.unread += 1;
        }
    }
}
