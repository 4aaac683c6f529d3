//! The title and "unattended only" filters: which chats they keep, and which ancestors show as
//! context.

use paddock_proto::ChatSummary;

use super::TreeState;
use super::order::Chats;
use super::row::is_unattended;

impl Chats {
    /// Which chats a filter shows: `None` without a filter.
    pub(super) fn visibility(&self, filter: &Filter<'_>) -> Option<Vec<Vis>> {
        if !filter.active() {
            return None;
        }
        let mut vis = vec![Vis::Hidden; self.list.len()];
        for (i, chat) in self.list.iter().enumerate() {
            if !filter.matches(chat, &self.title_lower[i]) {
                continue;
            }
            vis[i] = Vis::Match;
            // Parents come before children in the daemon's list, so an ancestor already shown
            // has had its own ancestors shown.
            let mut up = self.parent[i];
            while let Some(a) = up {
                if vis[a] != Vis::Hidden {
                    break;
                }
                vis[a] = Vis::Context;
                up = self.parent[a];
            }
        }
        Some(vis)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Vis {
    Hidden,
    /// An ancestor of a match.
    Context,
    Match,
}

/// The filters in force.
pub(super) struct Filter<'a> {
    title: Option<&'a str>,
    unattended_only: bool,
}

impl Filter<'_> {
    pub(super) fn active(&self) -> bool {
        self.title.is_some() || self.unattended_only
    }

    fn matches(&self, chat: &ChatSummary, title_lower: &str) -> bool {
        self.title.is_none_or(|t| title_lower.contains(t))
            && (!self.unattended_only || is_unattended(chat.origin))
    }
}

impl TreeState {
    pub(super) fn filter_spec(&self) -> Filter<'_> {
        Filter {
            title: self.filter.as_deref(),
            unattended_only: self.unattended_only,
        }
    }

    /// Shows only chats whose title contains `filter` (any case), with their ancestors. `None`
    /// or a blank filter shows everything.
    pub fn set_filter(&mut self, filter: Option<String>) {
        let filter = filter
            .filter(|f| !f.trim().is_empty())
            .map(|f| f.to_lowercase());
        self.change(|s| s.filter = filter);
    }

    pub fn filter(&self) -> Option<&str> {
        self.filter.as_deref()
    }

    /// Shows only scheduled, spawned and hook chats ([`is_unattended`]), with their ancestors.
    pub fn set_unattended_only(&mut self, on: bool) {
        self.change(|s| s.unattended_only = on);
    }

    pub fn unattended_only(&self) -> bool {
        self.unattended_only
    }

    /// Whether a filter hides chats now.
    pub fn filtering(&self) -> bool {
        self.filter_spec().active()
    }
}
