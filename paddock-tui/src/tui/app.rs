//! The TUI's state and how input and daemon news change it. No I/O here: the event loop
//! (`tui::run`) performs what [`Action`]s ask for and feeds results back in.

use std::collections::HashMap;

use paddock_proto::{Active, ChatSummary, HelloReply, ProjectInfo};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::format::tree_depths;

/// Whether the daemon can be talked to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    Connecting,
    Connected(HelloReply),
    Unreachable(String),
}

/// What the event loop should do after a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Reload everything (and reconnect when the daemon was unreachable).
    Refresh,
}

/// One line of the chat list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Row<'a> {
    Project(&'a ProjectInfo),
    /// A chat and its nesting depth under the chats listed before it.
    Chat(&'a ChatSummary, usize),
    /// A project with no chats says so, so it does not look like a loading glitch.
    Empty,
}

/// Identifies the selected row across reloads, which shift indices.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RowKey {
    Project(String),
    Chat(String),
    Other(usize),
}

#[derive(Debug)]
pub struct App {
    pub connection: Connection,
    pub projects: Vec<ProjectInfo>,
    /// Each project's chats in the daemon's tree order, by slug (`""` is the root workspace).
    pub chats: HashMap<String, Vec<ChatSummary>>,
    /// The selected row.
    pub selected: usize,
    /// The first row on screen; kept by [`App::scroll_into_view`].
    pub offset: usize,
    /// A passing message for the status line (a failed reload...).
    pub notice: Option<String>,
    /// Whether the projects were loaded at least once (else the list says "loading").
    pub loaded: bool,
}

impl Default for App {
    fn default() -> Self {
        Self::new()
    }
}

impl App {
    pub fn new() -> Self {
        Self {
            connection: Connection::Connecting,
            projects: Vec::new(),
            chats: HashMap::new(),
            selected: 0,
            offset: 0,
            notice: None,
            loaded: false,
        }
    }

    /// The list's lines: each project, then its chats in tree order.
    pub fn rows(&self) -> Vec<Row<'_>> {
        let mut rows = Vec::new();
        for project in &self.projects {
            rows.push(Row::Project(project));
            match self.chats.get(&project.slug) {
                Some(chats) if !chats.is_empty() => {
                    rows.extend(
                        chats
                            .iter()
                            .zip(tree_depths(chats))
                            .map(|(c, d)| Row::Chat(c, d)),
                    );
                }
                _ => rows.push(Row::Empty),
            }
        }
        rows
    }

    pub fn running_count(&self) -> usize {
        self.chats.values().flatten().filter(|c| c.running).count()
    }

    /// Handles a key press; the loop carries out the returned action.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => Some(Action::Quit),
            KeyCode::Char('c') if ctrl => Some(Action::Quit),
            KeyCode::Char('r') => Some(Action::Refresh),
            KeyCode::Char('j') | KeyCode::Down => self.move_by(1),
            KeyCode::Char('k') | KeyCode::Up => self.move_by(-1),
            KeyCode::PageDown => self.move_by(10),
            KeyCode::PageUp => self.move_by(-10),
            KeyCode::Char('g') | KeyCode::Home => self.move_to(0),
            KeyCode::Char('G') | KeyCode::End => self.move_to(usize::MAX),
            _ => None,
        }
    }

    fn move_by(&mut self, delta: isize) -> Option<Action> {
        let target = self.selected.saturating_add_signed(delta);
        self.move_to(target)
    }

    fn move_to(&mut self, row: usize) -> Option<Action> {
        let last = self.rows().len().saturating_sub(1);
        self.selected = row.min(last);
        None
    }

    /// Keeps the selected row within the `height` rows on screen, scrolling as little as
    /// possible (called before every draw with the list's height).
    pub fn scroll_into_view(&mut self, height: usize) {
        let height = height.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        let rows = self.rows().len();
        self.offset = self.offset.min(rows.saturating_sub(height));
    }

    pub fn set_connected(&mut self, daemon: HelloReply) {
        self.connection = Connection::Connected(daemon);
        self.notice = None;
    }

    pub fn set_unreachable(&mut self, reason: String) {
        self.connection = Connection::Unreachable(reason);
    }

    pub fn set_projects(&mut self, projects: Vec<ProjectInfo>) {
        self.keep_selection(|app| {
            app.projects = projects;
            app.loaded = true;
        });
    }

    /// Replaces every project's chats (a list of all chats, grouped by project here).
    pub fn set_all_chats(&mut self, chats: Vec<ChatSummary>) {
        let mut by_project: HashMap<String, Vec<ChatSummary>> = HashMap::new();
        for chat in chats {
            by_project
                .entry(chat.project_slug.clone())
                .or_default()
                .push(chat);
        }
        self.keep_selection(|app| app.chats = by_project);
    }

    pub fn set_project_chats(&mut self, slug: String, chats: Vec<ChatSummary>) {
        self.keep_selection(|app| {
            app.chats.insert(slug, chats);
        });
    }

    /// Marks a chat running or idle. False when the chat is not listed (the caller reloads
    /// its project).
    pub fn apply_active(&mut self, active: &Active) -> bool {
        let chat = self
            .chats
            .get_mut(&active.project_slug)
            .and_then(|chats| chats.iter_mut().find(|c| c.session_id == active.session_id));
        match chat {
            Some(chat) => {
                chat.running = active.running;
                true
            }
            None => false,
        }
    }

    pub fn knows_project(&self, slug: &str) -> bool {
        self.projects.iter().any(|p| p.slug == slug)
    }

    /// Applies a change to the lists while the same project or chat stays selected.
    fn keep_selection(&mut self, change: impl FnOnce(&mut Self)) {
        let key = self.selected_key();
        change(self);
        let rows = self.rows();
        let found = rows.iter().position(|row| match (row, &key) {
            (Row::Project(p), RowKey::Project(slug)) => p.slug == *slug,
            (Row::Chat(c, _), RowKey::Chat(id)) => c.session_id == *id,
            _ => false,
        });
        let last = rows.len().saturating_sub(1);
        self.selected = match (found, key) {
            (Some(index), _) => index,
            (None, RowKey::Other(index)) => index.min(last),
            (None, _) => self.selected.min(last),
        };
    }

    fn selected_key(&self) -> RowKey {
        match self.rows().get(self.selected) {
            Some(Row::Project(p)) => RowKey::Project(p.slug.clone()),
            Some(Row::Chat(c, _)) => RowKey::Chat(c.session_id.clone()),
            _ => RowKey::Other(self.selected),
        }
    }
}
