//! Each project's archived chats: the "Archived" group, read when opened (see the module
//! docs of [`super`]).

use paddock_proto::ChatSummary;

use super::TreeState;
use super::order::Chats;

impl TreeState {
    /// Takes a project's `chat:list` answer for scope `archived` (or why it failed). A failure
    /// keeps the list held, if any.
    pub fn set_archived_chats(&mut self, slug: String, answer: Result<Vec<ChatSummary>, String>) {
        match answer {
            Ok(list) => {
                self.archive_errors.remove(&slug);
                let adopt = self.reorder_next;
                self.change(|s| {
                    let previous = if adopt { None } else { s.archived.get(&slug) };
                    let built = Chats::build(list, previous);
                    s.archived.insert(slug, built);
                });
            }
            Err(reason) => {
                self.archive_errors.insert(slug, reason);
            }
        }
    }

    /// Opens a project's "Archived" group and asks for its chats.
    pub fn open_archive(&mut self, slug: &str) {
        self.archive_open.insert(slug.to_owned());
        if !self.archive_requests.iter().any(|s| s == slug) {
            self.archive_requests.push(slug.to_owned());
        }
        self.fix_cursor();
    }

    /// Folds a project's "Archived" group (its list is kept, and its count shown).
    pub fn close_archive(&mut self, slug: &str) {
        self.archive_open.remove(slug);
        self.fix_cursor();
    }

    pub fn archive_is_open(&self, slug: &str) -> bool {
        self.archive_open.contains(slug)
    }

    /// The projects whose archived chats were asked for since the last call (a group opened).
    pub fn take_archive_requests(&mut self) -> Vec<String> {
        std::mem::take(&mut self.archive_requests)
    }

    /// Whether a project's archived chats are followed: its group is open, or was read (the
    /// count shown): read again on `chats:changed`, a reconnect, a refresh.
    pub fn follows_archive(&self, slug: &str) -> bool {
        self.archive_open.contains(slug) || self.archived.contains_key(slug)
    }

    /// Every project whose archived chats are followed (see [`TreeState::follows_archive`]).
    pub fn followed_archives(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .archive_open
            .iter()
            .chain(self.archived.keys())
            .cloned()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The projects whose "Archived" group is open, for the client state.
    pub fn open_archives(&self) -> Vec<String> {
        let mut out: Vec<String> = self.archive_open.iter().cloned().collect();
        out.sort_unstable();
        out
    }

    /// Opens the groups the client state remembers open (the loop reads them once connected,
    /// see [`TreeState::followed_archives`]).
    pub fn restore_open_archives(&mut self, slugs: Vec<String>) {
        self.change(|s| s.archive_open.extend(slugs));
    }
}
