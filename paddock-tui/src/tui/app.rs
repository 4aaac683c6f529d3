//! The TUI's state and how input and daemon news change it. No I/O here: the event loop
//! (`tui::run`) performs what [`Action`]s ask for and feeds results back in.
//!
//! Keys go through one table ([`keys::command_for`]), in the context of what has the focus:
//! the top of the [`Overlays`] stack (the views over the panes: the help, the inbox, the
//! search, Changes... see [`super::overlay`]), else History, the composer, the chat pane or
//! the tree. The tree's state is a [`TreeState`], the open chat a [`ChatView`], the draft a
//! [`Composer`]. The app's side of each is a file of `app/`: `compose` (drafts, sending,
//! attaching), `tree_keys` (the tree's keys, the filter, a delete's question), `chat_keys`
//! (opening a chat, its keys, History), `views` (the global keys and the views they open,
//! answers and news routed to the views).
//!
//! What the TUI remembers between runs ([`Prefs`]: drafts and models per chat, folds, flat or
//! nested, the last view, the theme) is kept in step here after every key
//! ([`App::sync_prefs`]); the event loop writes it.
//!
//! A message sent is held here until the daemon answers ([`App::send_answered`]): refused (a
//! limit on attachments, say), its text and files go back into that chat's composer. Files
//! attached to a draft stay with its chat when the composer turns to another one.

use std::collections::HashMap;

use paddock_proto::{Active, ChatSummary, HelloReply, ProjectInfo};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::attach::PathPrompt;
use super::chat::ChatView;
use super::composer::{Composer, Target};
use super::help_view::HelpView;
use super::history::HistoryView;
use super::inbox::InboxView;
use super::keys::{self, Context};
use super::notice::{Notice, State};
use super::overlay::{Cx, Overlay, Overlays, Reaction};
use super::prefs::{self, LastView, OpenChat, Pane, Prefs};
use super::theme::Theme;
use super::tree::{RowId, TreeState};
use super::typeahead::Typeahead;
use crate::attachments::Picked;

pub use super::action::Action;
pub use move_prompt::MovePrompt;
pub use tree_keys::{Confirm, find_chat};

mod chat_keys;
mod compose;
mod move_prompt;
mod tree_keys;
mod views;

/// Whether the daemon can be talked to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    Connecting,
    Connected(HelloReply),
    Unreachable(String),
    /// The daemon was stopped on purpose (it said so): it is not started again until asked.
    Stopped(String),
}

/// Which pane has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Tree,
    Chat,
    Composer,
}

/// A message handed to the loop to send, kept until the daemon answers.
#[derive(Debug, Clone)]
struct Sending {
    /// The draft key of the chat it went to.
    key: String,
    text: String,
    attachments: Vec<Picked>,
}

#[derive(Debug)]
pub struct App {
    pub connection: Connection,
    /// Projects and their chats, the cursor, folds, marks, filters.
    pub tree: TreeState,
    /// The chat shown in the chat pane.
    pub chat: Option<ChatView>,
    pub composer: Composer,
    pub history: HistoryView,
    /// The filter being typed after `/`.
    pub filter_input: Option<String>,
    /// The project a root chat is moved to, being typed after `M`.
    pub move_prompt: Option<MovePrompt>,
    /// The move asked for, until the daemon answers (its prompt opens again on a refusal).
    move_sent: Option<MovePrompt>,
    /// The filter line's text is selected (just opened again): typing replaces it.
    pub filter_selected: bool,
    /// The row the cursor was on when the filter line opened: Esc puts it back there.
    filter_from: Option<RowId>,
    /// `S` was pressed: the next tree action applies to whole subtrees.
    pub subtree_pending: bool,
    pub focus: Focus,
    /// Glyphs and colors for this terminal.
    pub theme: Theme,
    /// The animation step of running spinners (the event loop advances it).
    pub tick: u64,
    /// The status line's message, with its kind and lifetime (`notice.rs`).
    pub notice: Notice,
    /// Whether the projects were loaded at least once (else the list says "loading").
    pub loaded: bool,
    /// Whether the chats were listed at least once.
    listed: bool,
    /// The chat the client state reopened is not read yet.
    reopening: bool,
    /// A listing or the reopened chat could not be read: keys are not held for it.
    settle_given_up: bool,
    /// Keys typed before the screen could take them, replayed once it can (`typeahead.rs`).
    typeahead: Typeahead,
    /// The last screen width drawn: below [`SPLIT_WIDTH`] one pane shows at a time.
    pub width: u16,
    /// Rows of the pane last drawn, for paging.
    pub page: usize,
    /// Tool calls waiting for a person (from `approvals:changed`).
    pub pending_approvals: u32,
    /// The daemon's disks below its floor (`daemon:status`): replies may not be saved.
    pub low_disk: Vec<paddock_proto::DiskSpace>,
    /// The views over the panes (the inbox, Changes, search, the help...): the top one has
    /// the keyboard.
    pub overlays: Overlays,
    /// The composer's path prompt (Ctrl-T), while a file to attach is being picked.
    pub attach_prompt: Option<PathPrompt>,
    /// Files attached to the drafts of chats the composer is not aimed at now.
    parked_attachments: HashMap<String, Vec<Picked>>,
    /// Messages sent, until the daemon answers.
    sending: Vec<Sending>,
    /// What the TUI remembers between runs (the event loop writes it when it changes).
    pub prefs: Prefs,
    /// A question waiting for `y` (delete chats), on the status line.
    pub confirm: Option<Confirm>,
    /// The chats a confirmed delete asked for, until the daemon answers.
    deleting: Vec<String>,
}

/// From this width on, the tree and the chat show side by side.
pub const SPLIT_WIDTH: u16 = 80;

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
            chat: None,
            composer: Composer::new(),
            history: HistoryView::new(),
            filter_input: None,
            move_prompt: None,
            move_sent: None,
            filter_selected: false,
            filter_from: None,
            subtree_pending: false,
            focus: Focus::Tree,
            theme,
            tick: 0,
            notice: Notice::default(),
            loaded: false,
            listed: false,
            reopening: false,
            settle_given_up: false,
            typeahead: Typeahead::default(),
            width: SPLIT_WIDTH,
            page: 10,
            pending_approvals: 0,
            low_disk: Vec::new(),
            overlays: Overlays::default(),
            attach_prompt: None,
            parked_attachments: HashMap::new(),
            sending: Vec::new(),
            prefs: Prefs::default(),
            confirm: None,
            deleting: Vec::new(),
        }
    }

    /// Takes up what the client state remembers: flat or nested, folds, the composer's draft,
    /// the open chat and the pane (the loop reads the chat once connected). The theme is the
    /// caller's ([`Theme::detect_with`]).
    pub fn restore(&mut self, prefs: Prefs) {
        let target = prefs.target().clone();
        self.prefs = prefs;
        self.tree.set_flat(target.flat);
        self.tree
            .restore_folds(target.folded_projects, target.folded_chats);
        self.tree.restore_open_archives(target.open_archives);
        self.load_composer();
        if let Some(LastView {
            pane,
            chat: Some(open),
        }) = target.view
        {
            self.tree.select_when_listed(RowId::Chat {
                project: open.project_slug.clone(),
                session_id: open.session_id.clone(),
            });
            // Read and followed by the loop once connected.
            let _ = self.open(open.project_slug, open.session_id);
            self.reopening = true;
            self.focus = match pane {
                Pane::Chat => Focus::Chat,
                Pane::Tree => Focus::Tree,
            };
        }
    }

    /// Keeps the client state in step with the screen: the composer's draft and model, the
    /// folds, flat or nested, the view. Cheap when nothing changed (the revision stays).
    pub fn sync_prefs(&mut self) {
        self.sync_composer_prefs();
        let (projects, chats) = self.tree.folds();
        self.prefs.set_folds(projects, chats);
        self.prefs.set_open_archives(self.tree.open_archives());
        self.prefs.set_flat(self.tree.flat());
        let view = LastView {
            pane: if self.focus == Focus::Tree || self.chat.is_none() {
                Pane::Tree
            } else {
                Pane::Chat
            },
            chat: self.chat.as_ref().map(|c| OpenChat {
                project_slug: c.project_slug().to_owned(),
                session_id: c.session_id().to_owned(),
            }),
        };
        self.prefs.set_view(Some(view));
    }

    /// The composer's draft and model, under its target's key.
    fn sync_composer_prefs(&mut self) {
        let key = draft_key(self.composer.target());
        let now = prefs::unix_now();
        self.prefs.set_draft(&key, &self.composer.text(), now);
        self.prefs
            .set_model(&key, self.composer.model.as_deref(), now);
        if matches!(self.composer.target(), Target::NewChat { .. }) {
            self.prefs.set_preload(&key, self.composer.preload, now);
        }
    }

    pub fn running_count(&self) -> usize {
        self.tree.running_count()
    }

    /// The open view of this type (the inbox, Changes, the search...).
    pub fn view<T: Overlay>(&self) -> Option<&T> {
        self.overlays.get::<T>()
    }

    pub fn view_mut<T: Overlay>(&mut self) -> Option<&mut T> {
        self.overlays.get_mut::<T>()
    }

    /// Opens a view over the panes, at its layer.
    pub fn show(&mut self, view: impl Overlay) {
        self.overlays.push(Box::new(view));
    }

    /// Closes the view of this type; whether one was open.
    pub fn close<T: Overlay>(&mut self) -> bool {
        self.overlays.close::<T>()
    }

    /// Whether the approvals inbox is open.
    pub fn approvals_open(&self) -> bool {
        self.overlays.has::<InboxView>()
    }

    /// The pending approvals were read.
    pub fn set_approvals(&mut self, list: Vec<paddock_proto::Approval>) {
        self.pending_approvals = u32::try_from(list.len()).unwrap_or(u32::MAX);
        // A chat said to wait for a person no longer does once none of its calls is listed.
        self.notice.over(|state| {
            matches!(state, State::Approval { session_id }
                if !list.iter().any(|a| &a.session_id == session_id))
        });
        if let Some(inbox) = self.view_mut::<InboxView>() {
            inbox.set(list);
        }
    }

    /// Whether only one pane fits on the screen.
    pub fn narrow(&self) -> bool {
        self.width < SPLIT_WIDTH
    }

    /// The key context of what has the keyboard now: the top view's, else History's, else
    /// the focused pane's.
    pub fn context(&self) -> Context {
        match self.overlays.top() {
            Some(view) => view.context(),
            None => self.panes_context(),
        }
    }

    /// The key context under the top view (what the help lists first).
    pub fn context_under_top(&self) -> Context {
        match self.overlays.below_top() {
            Some(view) => view.context(),
            None => self.panes_context(),
        }
    }

    /// The key context when no view is over the panes.
    fn panes_context(&self) -> Context {
        if self.history.is_open() {
            return Context::History;
        }
        match self.focus {
            Focus::Tree => Context::Tree,
            Focus::Chat => Context::Chat,
            Focus::Composer if self.attach_prompt.is_some() => Context::PathPrompt,
            Focus::Composer => Context::Composer,
        }
    }

    /// A bracketed paste: into the composer when it has the keyboard.
    pub fn on_paste(&mut self, text: &str) {
        self.paste(text);
        self.sync_prefs();
    }

    fn paste(&mut self, text: &str) {
        if let Some(view) = self.overlays.top_mut()
            && view.paste(text)
        {
            return;
        }
        if self.overlays.is_empty()
            && self.context() == Context::PathPrompt
            && let Some(prompt) = self.attach_prompt.as_mut()
        {
            prompt.paste(text);
        } else if self.focus == Focus::Composer
            && !self.overlays.has::<HelpView>()
            && !self.history.is_open()
        {
            self.composer.handle_paste(text);
        } else if self.move_prompt.is_some() {
            self.paste_move(text);
        } else if let Some(filter) = &mut self.filter_input {
            filter.push_str(text.lines().next().unwrap_or_default());
            self.tree.set_filter(Some(filter.clone()));
        }
    }

    /// Handles a key press; the loop carries out the returned action.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<Action> {
        if self.settling() && self.typeahead.hold(key) {
            return None;
        }
        let action = self.key(key).or_else(|| {
            // An "Archived" group opened: its chats are read.
            let asked = self.tree.take_archive_requests();
            (!asked.is_empty()).then_some(Action::LoadArchived(asked))
        });
        self.sync_prefs();
        action
    }

    fn key(&mut self, key: KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        // Without a daemon the screen offers r / R (start it, or try again) whatever pane had
        // the keyboard: nothing else on it can be used then.
        if matches!(
            self.connection,
            Connection::Stopped(_) | Connection::Unreachable(_)
        ) && key.modifiers.difference(KeyModifiers::SHIFT).is_empty()
            && matches!(key.code, KeyCode::Char('r' | 'R'))
        {
            return Some(Action::Refresh);
        }
        // Information goes at the next key; Esc dismisses an error, and only that.
        if self.confirm.is_none() && self.notice.on_key(key.code == KeyCode::Esc) {
            return None;
        }
        if let Some(confirm) = self.confirm.take() {
            return self.answer(confirm, key);
        }
        if self.filter_input.is_some() {
            return self.on_filter_key(key);
        }
        if self.move_prompt.is_some() {
            return self.on_move_key(key);
        }
        if let Some(view) = self.overlays.top_mut() {
            let mut cx = Cx::new(self.page, &self.tree, &mut self.notice);
            let reaction = view.on_key(key, &mut cx);
            return self.react(reaction);
        }
        let context = self.context();
        match context {
            Context::Composer => return self.on_composer_key(key),
            Context::PathPrompt => return self.on_path_key(key),
            _ => {}
        }
        let command = keys::command_for(context, &key)?;
        match context {
            Context::History => self.on_history(command),
            Context::Chat => self.on_chat(command),
            _ => self.on_tree(command),
        }
    }

    /// Carries out what the top view answered a key with.
    fn react(&mut self, reaction: Reaction) -> Option<Action> {
        match reaction {
            Reaction::Handled => None,
            Reaction::Close => {
                self.overlays.pop();
                None
            }
            Reaction::Ask(action) => Some(action),
            Reaction::Pass(command) => self.overlay_global(command),
            Reaction::Global(command) => self.global(command),
            Reaction::Open(view, action) => {
                self.overlays.push(view);
                action
            }
            Reaction::ShowChat {
                project_slug,
                session_id,
                title,
                entry,
            } => self.show_chat(project_slug, session_id, &title, entry),
            Reaction::JumpToChat(session_id) => self.jump_to_chat(&session_id),
            Reaction::CloseAndOpen {
                project_slug,
                session_id,
            } => {
                self.overlays.pop();
                self.focus = Focus::Chat;
                self.open(project_slug, session_id)
            }
        }
    }

    /// Whether the screen cannot take keys yet: connecting or connected, and the projects or
    /// the chats not listed yet, or the chat reopened from the client state not read yet.
    fn settling(&self) -> bool {
        !self.settle_given_up
            && matches!(
                self.connection,
                Connection::Connecting | Connection::Connected(_)
            )
            && (!self.loaded || !self.listed || self.reopening)
    }

    /// What the screen waited for could not be read (said on the status line): keys go on
    /// at once, and those held are replayed.
    pub fn stop_settling(&mut self) {
        self.settle_given_up = true;
    }

    /// The chat reopened from the client state was read.
    pub fn reopened(&mut self) {
        self.reopening = false;
    }

    /// The keys typed before the screen could take them, once it can (none before; the
    /// held keys are dropped when the daemon cannot be reached: its screen takes other keys).
    /// Says on the status line when some were dropped past the bound.
    pub fn typed_ahead(&mut self) -> Vec<KeyEvent> {
        if self.typeahead.is_empty() || self.settling() {
            return Vec::new();
        }
        let (keys, dropped) = self.typeahead.take();
        if !matches!(self.connection, Connection::Connected(_)) {
            return Vec::new();
        }
        if dropped > 0 {
            self.notice.info(format!(
                "{dropped} keys typed while paddock started were dropped (it keeps {})",
                super::typeahead::KEPT
            ));
        }
        keys
    }

    /// Keeps the cursor within the `height` rows on screen (called before every draw with the
    /// list's height).
    pub fn scroll_into_view(&mut self, height: usize) {
        self.page = height.max(1);
        self.tree.scroll_into_view(height);
    }

    pub fn set_connected(&mut self, daemon: HelloReply) {
        self.connection = Connection::Connected(daemon);
        self.notice.clear();
        // A new daemon (or connection) says `approvals:changed` only when some wait: none
        // until it does, whatever the last one had.
        self.pending_approvals = 0;
    }

    /// The project of a chat the TUI knows of (the open one, or one in the tree).
    pub fn project_of_chat(&self, session_id: &str) -> Option<String> {
        if let Some(chat) = self.chat.as_ref().filter(|c| c.session_id() == session_id) {
            return Some(chat.project_slug().to_owned());
        }
        self.find_chat(session_id).map(|c| c.project_slug.clone())
    }

    /// The project of a pending approval the inbox lists.
    pub fn project_of_approval(&self, id: &str) -> Option<String> {
        let inbox = self.view::<InboxView>()?;
        let approval = inbox.approvals.iter().find(|a| a.id == id)?;
        Some(approval.project_slug.clone())
    }

    pub fn set_unreachable(&mut self, reason: String) {
        self.connection = Connection::Unreachable(reason);
    }

    pub fn set_stopped(&mut self, message: String) {
        self.connection = Connection::Stopped(message);
    }

    pub fn set_projects(&mut self, projects: Vec<ProjectInfo>) {
        // At the first listing, with no row chosen yet, the cursor starts on the project
        // `paddock` was started in (the deepest whose folder holds the working directory).
        let here = (!self.loaded && self.tree.cursor_id().is_none())
            .then(|| std::env::current_dir().ok())
            .flatten()
            .and_then(|cwd| project_holding(&projects, &cwd));
        self.tree.set_projects(projects);
        if let Some(slug) = here {
            self.tree.select(&RowId::Project(slug));
        }
        self.loaded = true;
    }

    /// Replaces every project's chats (a list of all chats, grouped by project there).
    pub fn set_all_chats(&mut self, chats: Vec<ChatSummary>) {
        self.prefs.listed(
            chats.iter().map(|c| c.session_id.as_str()),
            prefs::unix_now(),
        );
        self.tree.set_all_chats(chats);
        self.listed = true;
        // Folds waiting for chats the full list does not have are for chats gone.
        self.tree.drop_pending_folds();
        self.refresh_open_chat_row();
    }

    pub fn set_project_chats(&mut self, slug: String, chats: Vec<ChatSummary>) {
        self.tree.set_project_chats(slug, chats);
        self.listed = true;
        self.refresh_open_chat_row();
    }

    /// One project's `chat:list` answer, asked with `since` (see
    /// [`TreeState::set_project_listing`]); false when it was a delta that did not fit.
    pub fn set_project_listing(
        &mut self,
        slug: String,
        answer: paddock_proto::Chats,
        since: Option<u64>,
    ) -> bool {
        let taken = self.tree.set_project_listing(slug, answer, since);
        self.listed = true;
        if taken {
            self.refresh_open_chat_row();
        }
        taken
    }

    /// A project's archived chats (its "Archived" group), or why they could not be listed.
    pub fn set_archived_chats(&mut self, slug: String, answer: Result<Vec<ChatSummary>, String>) {
        if let Err(reason) = &answer {
            self.notice
                .error(format!("cannot list the archived chats: {reason}"));
        }
        self.tree.set_archived_chats(slug, answer);
    }

    /// What the open chat's pane takes from its row, as the chat list has it now: tokens,
    /// cost and context use, and whether (and why) its last turn was cut short; and the
    /// composer, the follow-up queued for it (by this client or another: `paddock send
    /// --queue`, a second TUI).
    fn refresh_open_chat_row(&mut self) {
        let Some(sid) = self.chat.as_ref().map(|c| c.session_id().to_owned()) else {
            return;
        };
        let Some(row) = self.find_chat(&sid).cloned() else {
            return;
        };
        if let Some(chat) = self.chat.as_mut() {
            chat.take_row(&row);
        }
        let aimed = matches!(self.composer.target(),
            Target::Reply { session_id, .. } if *session_id == sid);
        if aimed && self.composer.queued() != row.queued.as_deref() {
            self.composer.set_queued(row.queued.clone());
        }
    }

    /// Marks a chat running or idle. False when the chat is not listed (the caller reloads
    /// its project).
    pub fn apply_active(&mut self, active: &Active) -> bool {
        if let Some(chat) = self
            .chat
            .as_mut()
            .filter(|c| c.session_id() == active.session_id)
        {
            chat.set_running(active.running);
            self.composer.set_running(active.running);
        }
        self.tree.apply_active(active)
    }

    pub fn knows_project(&self, slug: &str) -> bool {
        self.tree.knows_project(slug)
    }
}

/// The client-state key of a composer target: the chat's session id, or `new:SLUG`.
fn draft_key(target: &Target) -> String {
    match target {
        Target::Reply { session_id, .. } => session_id.clone(),
        Target::NewChat { project_slug } => prefs::new_chat_key(project_slug),
    }
}

/// The project whose folder holds `dir` (the deepest, when folders nest), by real paths.
fn project_holding(projects: &[ProjectInfo], dir: &std::path::Path) -> Option<String> {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    projects
        .iter()
        .filter_map(|p| {
            let path = std::path::Path::new(&p.path);
            let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            dir.starts_with(&path)
                .then(|| (path.components().count(), p.slug.clone()))
        })
        .max()
        .map(|(_, slug)| slug)
}
