//! The hosts on top of the tree, on a client of several hosts: each one's head row says its
//! name and whether it is up; under a host that is down its last known rows stay, dimmed.

use std::time::SystemTime;

use crate::tui::hosts::slugs::host_of;

/// A host as the tree draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct HostHead {
    pub name: String,
    /// Its root workspace (`NAME:`): what a host's row acts on (`N` starts a chat there).
    pub root: String,
    pub state: HostState,
}

#[derive(Debug, Clone, PartialEq)]
pub enum HostState {
    /// Not connected yet (never was).
    Connecting,
    Up,
    /// Gone: why, and when it last answered.
    Down {
        reason: String,
        last_seen: Option<SystemTime>,
    },
}

impl HostHead {
    pub fn new(name: &str, state: HostState) -> Self {
        Self {
            name: name.to_owned(),
            root: format!("{name}:"),
            state,
        }
    }

    pub fn is_up(&self) -> bool {
        self.state == HostState::Up
    }

    /// Whether a (qualified) project slug is one of this host's.
    pub fn holds(&self, slug: &str) -> bool {
        host_of(slug) == Some(self.name.as_str())
    }
}
