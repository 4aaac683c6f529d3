//! The TUI's state and how input and daemon news change it. No I/O here: the event loop
//! (`tui::run`) performs what [`Action`]s ask for and feeds results back in. The tree pane's
//! state is a [`TreeState`].

use paddock_proto::{Active, ChatSummary, HelloReply, ProjectInfo};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::theme::Theme;
use super::tree::TreeState;

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

#[derive(Debug)]
pub struct App {
    pub connection: Connection,
    /// Projects and their chats, the cursor, folds, marks, filters.
    pub tree: TreeState,
    /// Glyphs and colors for this terminal.
    pub theme: Theme,
    /// The animation step of running spinners (the event loop advances it).
    pub tick: u64,
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
    /// With the terminal's theme ([`Theme::detect`]).
    pub fn new() -> Self {
        Self::with_theme(Theme::detect())
    }

    pub fn with_theme(theme: Theme) -> Self {
        Self {
            connection: Connection::Connecting,
            tree: TreeState::new(),
            theme,
            tick: 0,
            notice: None,
            loaded: false,
        }
    }

    pub fn running_count(&self) -> usize {
        self.tree.running_count()
    }

    /// Handles a key press in the tree pane; the loop carries out the returned action.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let tree = &mut self.tree;
        match key.code {
            KeyCode::Char('c') if ctrl => return Some(Action::Quit),
            _ if ctrl => {}
            KeyCode::Char('q') => return Some(Action::Quit),
            KeyCode::Char('r') => {
                tree.reorder_on_next_load();
                return Some(Action::Refresh);
            }
            KeyCode::Char('j') | KeyCode::Down => tree.move_by(1),
            KeyCode::Char('k') | KeyCode::Up => tree.move_by(-1),
            KeyCode::PageDown => tree.move_by(10),
            KeyCode::PageUp => tree.move_by(-10),
            // Going to the top is going to what is new: the daemon's order is adopted.
            KeyCode::Char('g') | KeyCode::Home => {
                tree.reorder();
                tree.to_top();
            }
            KeyCode::Char('G') | KeyCode::End => tree.to_bottom(),
            KeyCode::Char('h') | KeyCode::Left => tree.fold_or_parent(),
            KeyCode::Char('l') | KeyCode::Right => tree.unfold_or_child(),
            KeyCode::Char(' ') => {
                tree.toggle_mark();
            }
            KeyCode::Char('v') => tree.toggle_range(),
            KeyCode::Esc => tree.clear_marks(),
            KeyCode::Char('n') => {
                tree.next_attention();
            }
            KeyCode::Char('U') => {
                let on = !tree.unattended_only();
                tree.set_unattended_only(on);
            }
            _ => {}
        }
        None
    }

    /// Keeps the cursor within the `height` rows on screen (called before every draw with the
    /// list's height).
    pub fn scroll_into_view(&mut self, height: usize) {
        self.tree.scroll_into_view(height);
    }

    pub fn set_connected(&mut self, daemon: HelloReply) {
        self.connection = Connection::Connected(daemon);
        self.notice = None;
    }

    pub fn set_unreachable(&mut self, reason: String) {
        self.connection = Connection::Unreachable(reason);
    }

    pub fn set_projects(&mut self, projects: Vec<ProjectInfo>) {
        self.tree.set_projects(projects);
        self.loaded = true;
    }

    /// Replaces every project's chats (a list of all chats, grouped by project there).
    pub fn set_all_chats(&mut self, chats: Vec<ChatSummary>) {
        self.tree.set_all_chats(chats);
    }

    pub fn set_project_chats(&mut self, slug: String, chats: Vec<ChatSummary>) {
        self.tree.set_project_chats(slug, chats);
    }

    /// Marks a chat running or idle. False when the chat is not listed (the caller reloads
    /// its project).
    pub fn apply_active(&mut self, active: &Active) -> bool {
        self.tree.apply_active(active)
    }

    pub fn knows_project(&self, slug: &str) -> bool {
        self.tree.knows_project(slug)
    }
}
