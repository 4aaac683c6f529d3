//! The TUI's state and how input and daemon news change it. No I/O here: the event loop
//! (`tui::run`) performs what [`Action`]s ask for and feeds results back in.
//!
//! Keys go through one table ([`keys::command_for`]), in the context of what has the focus:
//! the help overlay, History, the composer, the chat pane or the tree. The tree's state is a
//! [`TreeState`], the open chat a [`ChatView`], the draft a [`Composer`].
//!
//! What the TUI remembers between runs ([`Prefs`]: drafts and models per chat, folds, flat or
//! nested, the last view, the theme) is kept in step here after every key
//! ([`App::sync_prefs`]); the event loop writes it.
//!
//! A message sent is held here until the daemon answers ([`App::send_answered`]): refused (a
//! limit on attachments, say), its text and files go back into that chat's composer. Files
//! attached to a draft stay with its chat when the composer turns to another one.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use paddock_proto::{Active, Attribution, ChatAction, ChatSummary, HelloReply, ProjectInfo};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::attach::{PathPrompt, PromptOutcome};
use super::attachment_view::{AttachmentOutcome, AttachmentView};
use crate::attachments::Picked;

use super::blame_view::{BlameOutcome, BlameView};
use super::browser_view::{BrowserOutcome, BrowserView};
use super::changes::{ChangesOutcome, ChangesView, CommitOutcome, Scope};
use super::chat::ChatView;
use super::composer::{Composer, ComposerOutcome, Target};
use super::files_view::{FilesOutcome, FilesView};
use super::history::{HistoryOutcome, HistoryView};
use super::home_view::{HomeOutcome, HomeView};
use super::keys::{self, Command, Context};
use super::prefs::{self, LastView, OpenChat, Pane, Prefs};
use super::provenance_view::{ProvenanceOutcome, ProvenanceView};
use super::search_view::{Asked, SearchOutcome, SearchView};
use super::theme::{Theme, ThemeChoice};
use super::tree::{RowId, TreeState};
use super::triggers_view::{Act, TriggerId, TriggersOutcome, TriggersView};
use super::usage_view::{UsageOutcome, UsageScope, UsageView};

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

/// What the event loop should do after a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Reload everything (and reconnect when the daemon was unreachable).
    Refresh,
    /// Show this chat: read its transcript, then follow its stream.
    Open {
        project_slug: String,
        session_id: String,
    },
    /// Archive, star, read... these chats.
    Update {
        action: ChatAction,
        session_ids: Vec<String>,
    },
    /// Interrupt the running turns of these chats.
    Stop {
        session_ids: Vec<String>,
    },
    /// Send a message: a new chat (`session_id` None) or a turn, with these files attached
    /// (absolute paths on this machine; the loop sends their bytes under `--remote`).
    Send {
        project_slug: String,
        session_id: Option<String>,
        text: String,
        model: Option<String>,
        attachments: Vec<PathBuf>,
        /// A new chat: the project's overview and changelog go before the message.
        preload: bool,
    },
    /// Re-drive a chat whose last turn was cut short.
    Continue {
        session_id: String,
    },
    /// Set (or clear) the follow-up the daemon sends when the chat's turn ends.
    SetQueue {
        session_id: String,
        message: Option<String>,
    },
    /// Load the History view's runs.
    LoadHistory,
    /// Read the pending approvals (the inbox opened, or they changed).
    LoadApprovals,
    /// Answer pending approvals.
    Answer {
        ids: Vec<String>,
        decision: paddock_proto::ApprovalDecision,
    },
    /// The user has looked at History: advance their watermark.
    HistorySeen,
    /// Read the git status of a project's scope (the Changes view opened, or its scope moved).
    LoadChanges {
        project_slug: String,
        scope: Scope,
    },
    /// Read the diff of one file of the scope.
    LoadDiff {
        project_slug: String,
        scope: Scope,
        path: String,
    },
    /// Commit the scope's changed files with this message.
    Commit {
        project_slug: String,
        scope: Scope,
        message: String,
    },
    /// Push the project's branch to its upstream (`git:push`).
    Push {
        project_slug: String,
    },
    /// Read a file's provenance (the panel opened).
    LoadProvenance {
        project_slug: String,
        path: String,
    },
    /// Read the files a chat read and wrote, per turn (the Files view opened, or reloads).
    LoadTouched {
        project_slug: String,
        session_id: String,
    },
    /// Read a file's blame (the blame view opened).
    LoadBlame {
        project_slug: String,
        path: String,
    },
    /// List a directory of a project for the file browser (`files:list`).
    LoadListing {
        project_slug: String,
        path: String,
        hidden: bool,
    },
    /// Read a file of a project for the browser's preview (`files:read`).
    LoadFileText {
        project_slug: String,
        path: String,
    },
    /// Search every chat (the search view's query ran).
    Search(Asked),
    /// Read the chat list of this scope for the Usage view.
    LoadUsage(UsageScope),
    /// Read the triggers of this project (`None`: every project's) for the Triggers view.
    LoadTriggers(Option<String>),
    /// Read a trigger's recent runs (History of its project).
    LoadTriggerRuns(TriggerId),
    /// Fire or remove a trigger (confirmed in the Triggers view).
    Trigger(Act, TriggerId),
    /// Add or replace a trigger (the Triggers view's form).
    SaveTrigger(Box<paddock_proto::TriggerSet>),
    /// Read a project's overview for the Home view.
    LoadOverview(String),
    /// Read a kept attachment for the viewer (`attachment:get`).
    LoadAttachment(String),
    /// Read these projects' archived chats (their "Archived" group opened).
    LoadArchived(Vec<String>),
    /// Copy a chat into a new one, nested under it (`chat:fork`).
    Fork {
        session_id: String,
    },
    /// Delete these chats (`chat:delete`); only ever after a [`Confirm`] answered `y`.
    Delete {
        session_ids: Vec<String>,
    },
    /// Write an attachment's bytes to a new file (the viewer's save).
    SaveAttachment {
        path: PathBuf,
        bytes: Arc<[u8]>,
    },
}

/// A question on the status line that only `y` answers yes: any other key is a no, and
/// nothing is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    /// What is asked, naming what would be done (the status line adds `? y/N`).
    pub question: String,
    /// Said on `y`, while the daemon does it.
    doing: String,
    /// Said on any other key.
    refused: String,
    action: Action,
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
    /// The help overlay, scrolled this far, when open.
    pub help: Option<u16>,
    /// The filter being typed after `/`.
    pub filter_input: Option<String>,
    /// `S` was pressed: the next tree action applies to whole subtrees.
    pub subtree_pending: bool,
    pub focus: Focus,
    /// Glyphs and colors for this terminal.
    pub theme: Theme,
    /// The animation step of running spinners (the event loop advances it).
    pub tick: u64,
    /// A passing message for the status line (a failed reload...).
    pub notice: Option<String>,
    /// Whether the projects were loaded at least once (else the list says "loading").
    pub loaded: bool,
    /// The last screen width drawn: below [`SPLIT_WIDTH`] one pane shows at a time.
    pub width: u16,
    /// Rows of the pane last drawn, for paging.
    pub page: usize,
    /// Tool calls waiting for a person (from `approvals:changed`).
    pub pending_approvals: u32,
    /// The daemon's disks below its floor (`daemon:status`): replies may not be saved.
    pub low_disk: Vec<paddock_proto::DiskSpace>,
    /// The approvals inbox, when open.
    pub approvals: Option<super::inbox::InboxView>,
    /// The Changes view (and its provenance panel), when open.
    pub changes: Option<ChangesView>,
    /// The Files view of a chat (and its provenance panel), when open.
    pub files: Option<FilesView>,
    /// The blame of a file, over everything but the inbox and the help, when open.
    pub blame: Option<BlameView>,
    /// The search view, over everything but the inbox and the help, when open.
    pub search: Option<SearchView>,
    /// The search view as it was closed: opening it again shows its query and results.
    pub search_closed: Option<SearchView>,
    /// The Usage view, when open.
    pub usage: Option<UsageView>,
    /// The Triggers view, when open.
    pub triggers: Option<TriggersView>,
    /// The Home view of a project, when open.
    pub home: Option<HomeView>,
    /// The file browser of a project (and its provenance panel), when open.
    pub browser: Option<BrowserView>,
    /// The attachment viewer, over everything but the inbox, the search and the help.
    pub attachment: Option<AttachmentView>,
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
            help: None,
            filter_input: None,
            subtree_pending: false,
            focus: Focus::Tree,
            theme,
            tick: 0,
            notice: None,
            loaded: false,
            width: SPLIT_WIDTH,
            page: 10,
            pending_approvals: 0,
            low_disk: Vec::new(),
            approvals: None,
            changes: None,
            files: None,
            blame: None,
            search: None,
            search_closed: None,
            usage: None,
            triggers: None,
            home: None,
            browser: None,
            attachment: None,
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

    /// The composer's draft and model from the client state, for its target.
    fn load_composer(&mut self) {
        let key = draft_key(self.composer.target());
        match self.prefs.draft(&key) {
            Some(text) => self.composer.set_text(text),
            None => self.composer.clear(),
        }
        self.composer.model = self.prefs.model(&key).map(str::to_owned);
        self.composer.preload = self.prefs.preload(&key);
    }

    /// Aims the composer at another chat (or a new one): the draft typed so far stays with
    /// its chat, and the new target's draft and model come back.
    fn aim_composer(&mut self, target: Target) {
        let from = draft_key(self.composer.target());
        let to = draft_key(&target);
        let same = from == to;
        if !same {
            self.sync_composer_prefs();
            let files = self.composer.take_attachments();
            if !files.is_empty() {
                self.parked_attachments.insert(from, files);
            }
        }
        self.composer.set_target(target);
        if !same {
            self.load_composer();
            self.composer
                .set_attachments(self.parked_attachments.remove(&to).unwrap_or_default());
        }
    }

    /// The daemon answered a message sent to `session_id` (`None`: a new chat in
    /// `project_slug`). Refused, the message goes back into that chat's draft with its files,
    /// and the daemon's reason is said; sent, it is forgotten.
    pub fn send_answered(
        &mut self,
        project_slug: &str,
        session_id: Option<&str>,
        result: Result<(), String>,
    ) {
        let key = match session_id {
            Some(sid) => sid.to_owned(),
            None => prefs::new_chat_key(project_slug),
        };
        let Some(at) = self.sending.iter().position(|s| s.key == key) else {
            if let Err(reason) = result {
                self.notice = Some(format!("send failed: {reason}"));
            }
            return;
        };
        let sending = self.sending.remove(at);
        let Err(reason) = result else {
            return;
        };
        if draft_key(self.composer.target()) == key {
            self.composer.put_back(&sending.text, sending.attachments);
        } else {
            let draft = match self.prefs.draft(&key) {
                Some(now) if !now.is_empty() => format!("{}\n{now}", sending.text),
                _ => sending.text.clone(),
            };
            self.prefs.set_draft(&key, &draft, prefs::unix_now());
            let parked = self.parked_attachments.entry(key).or_default();
            let since = std::mem::replace(parked, sending.attachments);
            parked.extend(since);
        }
        self.notice = Some(format!("not sent: {reason} (the draft is kept)"));
    }

    /// Aims the composer back at the open chat (after a new chat's draft, say).
    fn aim_at_open_chat(&mut self) {
        let Some(chat) = self.chat.as_ref() else {
            return;
        };
        let sid = chat.session_id().to_owned();
        if matches!(self.composer.target(), Target::Reply { session_id, .. } if *session_id == sid)
        {
            return;
        }
        let title = chat.title().to_owned();
        let running = chat.running();
        let queued = self.find_chat(&sid).and_then(|c| c.queued.clone());
        self.aim_composer(Target::Reply {
            session_id: sid,
            title,
        });
        self.composer.set_running(running);
        self.composer.set_queued(queued);
    }

    /// A new chat was started and got its session id: the model chosen for it stays with it.
    pub fn new_chat_sent(&mut self, project_slug: &str, session_id: &str) {
        self.prefs.carry_model(
            &prefs::new_chat_key(project_slug),
            session_id,
            prefs::unix_now(),
        );
    }

    pub fn running_count(&self) -> usize {
        self.tree.running_count()
    }

    /// Whether the approvals inbox is open.
    pub fn approvals_open(&self) -> bool {
        self.approvals.is_some()
    }

    /// The pending approvals were read.
    pub fn set_approvals(&mut self, list: Vec<paddock_proto::Approval>) {
        self.pending_approvals = u32::try_from(list.len()).unwrap_or(u32::MAX);
        if let Some(inbox) = self.approvals.as_mut() {
            inbox.set(list);
        }
    }

    /// Whether only one pane fits on the screen.
    pub fn narrow(&self) -> bool {
        self.width < SPLIT_WIDTH
    }

    /// The key context of what has the keyboard now.
    pub fn context(&self) -> Context {
        if self.help.is_some() {
            Context::Help
        } else if self.approvals.is_some() {
            Context::Inbox
        } else if let Some(search) = &self.search {
            if search.editing() {
                Context::SearchQuery
            } else {
                Context::Search
            }
        } else if let Some(view) = &self.attachment {
            if view.save.is_some() {
                Context::PathPrompt
            } else {
                Context::Attachment
            }
        } else if self.blame.is_some() {
            Context::Blame
        } else if self.usage.is_some() {
            Context::Usage
        } else if self.triggers.is_some() {
            Context::Triggers
        } else if self.home.is_some() {
            Context::Home
        } else if let Some(browser) = &self.browser {
            if browser.provenance.is_some() {
                Context::Provenance
            } else {
                Context::Browser
            }
        } else if let Some(changes) = &self.changes {
            if changes.provenance.is_some() {
                Context::Provenance
            } else {
                Context::Changes
            }
        } else if let Some(files) = &self.files {
            if files.provenance.is_some() {
                Context::Provenance
            } else {
                Context::Files
            }
        } else if self.history.is_open() {
            Context::History
        } else {
            match self.focus {
                Focus::Tree => Context::Tree,
                Focus::Chat => Context::Chat,
                Focus::Composer if self.attach_prompt.is_some() => Context::PathPrompt,
                Focus::Composer => Context::Composer,
            }
        }
    }

    /// The path prompt that has the keyboard: the viewer's save, else the composer's attach.
    fn path_prompt(&mut self) -> Option<&mut PathPrompt> {
        match self.attachment.as_mut() {
            Some(view) => view.save.as_mut(),
            None => self.attach_prompt.as_mut(),
        }
    }

    /// A bracketed paste: into the composer when it has the keyboard.
    pub fn on_paste(&mut self, text: &str) {
        self.paste(text);
        self.sync_prefs();
    }

    fn paste(&mut self, text: &str) {
        if self.context() == Context::PathPrompt
            && let Some(prompt) = self.path_prompt()
        {
            prompt.paste(text);
        } else if self.context() == Context::SearchQuery
            && let Some(search) = self.search.as_mut()
        {
            search.paste(text);
        } else if self.context() == Context::Changes
            && let Some(changes) = self.changes.as_mut().filter(|c| c.committing())
        {
            changes.paste(text);
        } else if self.focus == Focus::Composer && self.help.is_none() && !self.history.is_open() {
            self.composer.handle_paste(text);
        } else if let Some(filter) = &mut self.filter_input {
            filter.push_str(text.lines().next().unwrap_or_default());
            self.tree.set_filter(Some(filter.clone()));
        }
    }

    /// Handles a key press; the loop carries out the returned action.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<Action> {
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
        if let Some(confirm) = self.confirm.take() {
            return self.answer(confirm, key);
        }
        if self.filter_input.is_some() {
            return self.on_filter_key(key);
        }
        let context = self.context();
        if context == Context::Composer {
            return self.on_composer_key(key);
        }
        if context == Context::SearchQuery {
            return self.on_search_query_key(key);
        }
        if context == Context::PathPrompt {
            return self.on_path_key(key);
        }
        if context == Context::Changes && self.changes.as_ref().is_some_and(|c| c.committing()) {
            return self.on_commit_key(key);
        }
        if context == Context::Triggers && self.triggers.as_ref().is_some_and(|t| t.editing()) {
            let outcome = self.triggers.as_mut()?.on_form_key(key);
            return self.on_triggers_outcome(outcome, Command::Allow);
        }
        if context == Context::Triggers && self.triggers.as_ref().is_some_and(|t| t.confirming()) {
            let yes = keys::command_for(context, &key) == Some(Command::Allow);
            let outcome = self.triggers.as_mut()?.on_confirm(yes);
            return self.on_triggers_outcome(outcome, Command::Allow);
        }
        let command = keys::command_for(context, &key)?;
        match context {
            Context::Help => {
                self.on_help(command);
                None
            }
            Context::History => self.on_history(command),
            Context::Inbox => self.on_inbox(command),
            Context::Changes => self.on_changes(command),
            Context::Provenance => self.on_provenance(command),
            Context::Files => self.on_files(command),
            Context::Blame => self.on_blame(command),
            Context::Browser => self.on_browser(command),
            Context::Search => self.on_search(command),
            Context::Usage => self.on_usage(command),
            Context::Triggers => self.on_triggers(command),
            Context::Home => self.on_home(command),
            Context::Attachment => self.on_attachment(command),
            Context::Chat => self.on_chat(command),
            _ => self.on_tree(command),
        }
    }

    /// A key while a path prompt has the keyboard: complete, take, cancel, else an edit.
    fn on_path_key(&mut self, key: KeyEvent) -> Option<Action> {
        match keys::command_for(Context::PathPrompt, &key) {
            Some(command @ (Command::Help | Command::Quit)) => self.global(command),
            Some(Command::Complete) => {
                let back = key.code == KeyCode::BackTab;
                self.path_prompt()?.complete(back);
                None
            }
            Some(Command::Back) => {
                match self.attachment.as_mut() {
                    Some(view) => view.save = None,
                    None => self.attach_prompt = None,
                }
                None
            }
            Some(Command::TakePath) => self.take_path(),
            Some(_) => None,
            None => {
                self.path_prompt()?.edit_key(key);
                None
            }
        }
    }

    /// Enter in a path prompt: the viewer saves there; the composer attaches the file (after
    /// checking it is one this process can read), or says why not and keeps the prompt.
    fn take_path(&mut self) -> Option<Action> {
        if let Some(view) = self.attachment.as_mut() {
            return match view.take_path() {
                AttachmentOutcome::Save { path, bytes } => {
                    Some(Action::SaveAttachment { path, bytes })
                }
                _ => None,
            };
        }
        let prompt = self.attach_prompt.as_mut()?;
        let PromptOutcome::Submit(path) = prompt.submit() else {
            return None;
        };
        let picked = match crate::attachments::check(&path) {
            Ok(picked) => picked,
            Err(reason) => {
                prompt.set_error(reason);
                return None;
            }
        };
        let (name, size) = (picked.name.clone(), picked.size);
        match self.composer.attach(picked) {
            Ok(()) => {
                self.attach_prompt = None;
                self.notice = Some(format!(
                    "attached {name} ({}); Alt-t drops it",
                    crate::attachments::human_size(size)
                ));
            }
            Err(reason) => prompt.set_error(reason),
        }
        None
    }

    /// Opens the viewer on the files the chat item under the cursor names.
    fn view_attachments(&mut self) -> Option<Action> {
        let files = self.chat.as_ref()?.cursor_attachments();
        if files.is_empty() {
            self.notice = Some(
                "no file here: put the cursor (j/k) on a message or notice with one".to_owned(),
            );
            return None;
        }
        let view = AttachmentView::new(files);
        let id = view.current_id()?.to_owned();
        self.attachment = Some(view);
        Some(Action::LoadAttachment(id))
    }

    fn on_attachment(&mut self, command: Command) -> Option<Action> {
        let page = self.page;
        let view = self.attachment.as_mut()?;
        match view.on_command(command, page) {
            AttachmentOutcome::Handled => None,
            AttachmentOutcome::Closed => {
                self.attachment = None;
                None
            }
            AttachmentOutcome::Load(id) => Some(Action::LoadAttachment(id)),
            AttachmentOutcome::Save { path, bytes } => Some(Action::SaveAttachment { path, bytes }),
            AttachmentOutcome::Ignored => self.overlay_global(command),
        }
    }

    /// The daemon's answer to `attachment:get`, for the viewer (dropped when it shows
    /// another file now, or is closed).
    pub fn attachment_answered(
        &mut self,
        id: &str,
        result: Result<paddock_proto::Attachment, String>,
    ) {
        if let Some(view) = self.attachment.as_mut() {
            view.answer(id, result);
        }
    }

    /// The viewer's save was written (or not).
    pub fn attachment_saved(&mut self, result: Result<String, String>) {
        match self.attachment.as_mut() {
            Some(view) => view.saved(result),
            None => {
                self.notice = Some(match result {
                    Ok(said) | Err(said) => said,
                });
            }
        }
    }

    fn on_filter_key(&mut self, key: KeyEvent) -> Option<Action> {
        let filter = self.filter_input.get_or_insert_with(String::new);
        match key.code {
            KeyCode::Enter => self.filter_input = None,
            KeyCode::Esc => {
                self.filter_input = None;
                self.tree.set_filter(None);
            }
            KeyCode::Backspace => {
                filter.pop();
                self.tree.set_filter(Some(filter.clone()));
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                filter.push(c);
                self.tree.set_filter(Some(filter.clone()));
            }
            _ => {}
        }
        None
    }

    fn on_help(&mut self, command: Command) {
        let scroll = self.help.unwrap_or(0);
        let page = u16::try_from(self.page).unwrap_or(10);
        self.help = match command {
            Command::Back | Command::Help | Command::Quit => None,
            Command::Down => Some(scroll.saturating_add(1)),
            Command::Up => Some(scroll.saturating_sub(1)),
            Command::PageDown => Some(scroll.saturating_add(page)),
            Command::PageUp => Some(scroll.saturating_sub(page)),
            Command::Top => Some(0),
            Command::Bottom => Some(u16::MAX),
            _ => Some(scroll),
        };
    }

    fn on_history(&mut self, command: Command) -> Option<Action> {
        match self.history.on_command(command, self.page) {
            HistoryOutcome::Handled => None,
            HistoryOutcome::Open {
                project_slug,
                session_id,
            } => {
                let seen = self.history.close();
                let open = self.open(project_slug, session_id);
                if seen {
                    // Opening a run closes History; the watermark advances too.
                    self.notice = None;
                    return open.or(Some(Action::HistorySeen));
                }
                open
            }
            HistoryOutcome::Closed { mark_seen } => mark_seen.then_some(Action::HistorySeen),
            HistoryOutcome::Ignored => self.global(command),
        }
    }

    fn on_inbox(&mut self, command: Command) -> Option<Action> {
        let inbox = self.approvals.as_mut()?;
        let decision = match command {
            Command::Down => {
                inbox.move_by(1);
                return None;
            }
            Command::Up => {
                inbox.move_by(-1);
                return None;
            }
            Command::Mark => {
                inbox.toggle_mark();
                return None;
            }
            Command::Back | Command::Inbox => {
                self.approvals = None;
                return None;
            }
            Command::Open => {
                let (project, sid) = inbox
                    .cursor()
                    .map(|a| (a.project_slug.clone(), a.session_id.clone()))?;
                self.approvals = None;
                self.focus = Focus::Chat;
                return self.open(project, sid);
            }
            Command::Allow => paddock_proto::ApprovalDecision::Allow,
            Command::Deny => paddock_proto::ApprovalDecision::Deny,
            Command::AllowAlways => paddock_proto::ApprovalDecision::Always,
            other => return self.global(other),
        };
        let ids = inbox.targets();
        inbox.clear_marks();
        if decision == paddock_proto::ApprovalDecision::Always {
            // The rules, said on the status line as they are written.
            let notes: Vec<String> = inbox
                .approvals
                .iter()
                .filter(|a| ids.contains(&a.id))
                .map(super::inbox::always_note)
                .collect();
            if !notes.is_empty() {
                self.notice = Some(notes.join("; "));
            }
        }
        (!ids.is_empty()).then_some(Action::Answer { ids, decision })
    }

    fn on_changes(&mut self, command: Command) -> Option<Action> {
        let page = self.page;
        let changes = self.changes.as_mut()?;
        let outcome = changes.on_command(command, page);
        // After the command: `s` moves the scope.
        let project_slug = changes.project_slug().to_owned();
        let scope = changes.scope().clone();
        match outcome {
            ChangesOutcome::Handled => None,
            ChangesOutcome::LoadStatus => Some(Action::LoadChanges {
                project_slug,
                scope,
            }),
            ChangesOutcome::LoadDiff(path) => Some(Action::LoadDiff {
                project_slug,
                scope,
                path,
            }),
            ChangesOutcome::LoadProvenance(path) => {
                Some(Action::LoadProvenance { project_slug, path })
            }
            ChangesOutcome::Push => {
                self.notice = Some(format!(
                    "pushing {}…",
                    crate::format::project_label(&project_slug)
                ));
                Some(Action::Push { project_slug })
            }
            ChangesOutcome::Closed => {
                self.changes = None;
                None
            }
            ChangesOutcome::Ignored => self.global(command),
        }
    }

    /// A push was answered: what it did, or why not, on the status line.
    pub fn push_answered(&mut self, result: Result<&paddock_proto::GitPushed, &str>) {
        if let Some(changes) = self.changes.as_mut() {
            changes.push_done();
        }
        self.notice = Some(match result {
            Ok(pushed) => crate::format::git_pushed(pushed)
                .trim_end()
                .replace('\n', "; "),
            Err(reason) => format!("push failed: {reason}"),
        });
    }

    /// Where the open provenance panel lives: over Changes, else over Files (as
    /// [`App::context`] decides).
    fn provenance_slot(&mut self) -> Option<&mut Option<ProvenanceView>> {
        if let Some(browser) = self.browser.as_mut() {
            return Some(&mut browser.provenance);
        }
        if let Some(changes) = self.changes.as_mut() {
            return Some(&mut changes.provenance);
        }
        self.files.as_mut().map(|f| &mut f.provenance)
    }

    fn on_provenance(&mut self, command: Command) -> Option<Action> {
        let page = self.page;
        let slot = self.provenance_slot()?;
        let panel = slot.as_mut()?;
        let outcome = panel.on_command(command, page);
        let (project_slug, path) = (panel.project_slug().to_owned(), panel.path().to_owned());
        match outcome {
            ProvenanceOutcome::Handled => None,
            ProvenanceOutcome::Closed => {
                *slot = None;
                None
            }
            ProvenanceOutcome::Blame => self.open_blame(project_slug, path),
            ProvenanceOutcome::Ignored => self.global(command),
        }
    }

    /// Opens the blame of a file over what is shown.
    fn open_blame(&mut self, project_slug: String, path: String) -> Option<Action> {
        self.blame = Some(BlameView::new(project_slug.clone(), path.clone()));
        Some(Action::LoadBlame { project_slug, path })
    }

    /// Opens the Files view on the open chat (when the chat pane has the keyboard) or the
    /// tree's cursor chat.
    fn open_files(&mut self) -> Option<Action> {
        let target = match (&self.chat, self.focus) {
            (Some(chat), Focus::Chat | Focus::Composer) => Some((
                chat.project_slug().to_owned(),
                chat.session_id().to_owned(),
                self.find_chat(chat.session_id())
                    .map_or_else(|| chat.title().to_owned(), |r| r.title.clone()),
            )),
            _ => self.tree.cursor_chat().map(|c| {
                (
                    c.project_slug.clone(),
                    c.session_id.clone(),
                    c.title.clone(),
                )
            }),
        };
        let Some((project_slug, session_id, title)) = target else {
            self.notice = Some("put the cursor on a chat".into());
            return None;
        };
        self.files = Some(FilesView::new(
            project_slug.clone(),
            session_id.clone(),
            crate::format::clean_title(&title),
        ));
        Some(Action::LoadTouched {
            project_slug,
            session_id,
        })
    }

    /// The Files view's turns met their prompts in the chat pane (when it shows that chat).
    pub fn match_prompts(&mut self) {
        if let (Some(files), Some(chat)) = (self.files.as_mut(), self.chat.as_ref())
            && chat.session_id() == files.session_id()
        {
            files.set_prompts(chat.items());
        }
    }

    fn on_files(&mut self, command: Command) -> Option<Action> {
        let page = self.page;
        let files = self.files.as_mut()?;
        let project_slug = files.project_slug().to_owned();
        let session_id = files.session_id().to_owned();
        match files.on_command(command, page) {
            FilesOutcome::Handled => None,
            FilesOutcome::Reload => Some(Action::LoadTouched {
                project_slug,
                session_id,
            }),
            FilesOutcome::LoadProvenance(path) => {
                Some(Action::LoadProvenance { project_slug, path })
            }
            FilesOutcome::Blame(path) => self.open_blame(project_slug, path),
            FilesOutcome::Closed => {
                self.files = None;
                None
            }
            FilesOutcome::Ignored => self.overlay_global(command),
        }
    }

    /// The project a project-wide view opens on: the open chat's when the chat pane has the
    /// keyboard, else the tree cursor's.
    fn focused_project(&self) -> Option<String> {
        match self.chat.as_ref().filter(|_| self.focus != Focus::Tree) {
            Some(chat) => Some(chat.project_slug().to_owned()),
            None => self.tree.cursor_project(),
        }
    }

    /// [`App::focused_project`], or a notice saying where to put the cursor.
    fn project_in_view(&mut self) -> Option<String> {
        let project = self.focused_project();
        if project.is_none() {
            self.notice = Some("put the cursor on a project or a chat".into());
        }
        project
    }

    /// `B`: the file browser of the open chat's project (when the chat pane has the keyboard)
    /// or the tree cursor's.
    fn open_browser(&mut self) -> Option<Action> {
        if self.browser.take().is_some() {
            return None;
        }
        let project_slug = self.project_in_view()?;
        self.browser = Some(BrowserView::new(project_slug.clone()));
        Some(Action::LoadListing {
            project_slug,
            path: String::new(),
            hidden: false,
        })
    }

    fn on_browser(&mut self, command: Command) -> Option<Action> {
        let page = self.page;
        let view = self.browser.as_mut()?;
        let project_slug = view.project_slug().to_owned();
        match view.on_command(command, page) {
            BrowserOutcome::Handled => None,
            BrowserOutcome::List(path) => Some(Action::LoadListing {
                project_slug,
                path,
                hidden: view.hidden(),
            }),
            BrowserOutcome::Read(path) => Some(Action::LoadFileText { project_slug, path }),
            BrowserOutcome::LoadProvenance(path) => {
                Some(Action::LoadProvenance { project_slug, path })
            }
            BrowserOutcome::Blame(path) => self.open_blame(project_slug, path),
            BrowserOutcome::Closed => {
                self.browser = None;
                None
            }
            BrowserOutcome::Ignored => self.overlay_global(command),
        }
    }

    fn on_blame(&mut self, command: Command) -> Option<Action> {
        let page = self.page;
        let blame = self.blame.as_mut()?;
        match blame.on_command(command, page) {
            BlameOutcome::Handled => None,
            BlameOutcome::Closed => {
                self.blame = None;
                None
            }
            BlameOutcome::Notice(text) => {
                self.notice = Some(text);
                None
            }
            BlameOutcome::OpenChat { session_id, .. } => self.jump_to_chat(&session_id),
            BlameOutcome::Ignored => self.overlay_global(command),
        }
    }

    /// Opens the search view (as it was last closed, the query line taking the keyboard).
    fn open_search(&mut self) -> Option<Action> {
        let mut view = self.search_closed.take().unwrap_or_default();
        view.edit();
        self.search = Some(view);
        None
    }

    fn close_search(&mut self) {
        self.search_closed = self.search.take();
    }

    /// A key while the search view's query line has the keyboard: its commands, the global
    /// keys that cannot be text, else an edit of the query.
    fn on_search_query_key(&mut self, key: KeyEvent) -> Option<Action> {
        match keys::command_for(Context::SearchQuery, &key) {
            Some(command @ (Command::Help | Command::Quit)) => self.global(command),
            Some(Command::Search) => None,
            Some(command) => {
                let outcome = self.search.as_mut()?.on_query_command(command);
                self.on_search_outcome(outcome, command)
            }
            None => {
                self.search.as_mut()?.edit_key(key);
                None
            }
        }
    }

    fn on_search(&mut self, command: Command) -> Option<Action> {
        let page = self.page;
        let outcome = self.search.as_mut()?.on_command(command, page);
        self.on_search_outcome(outcome, command)
    }

    fn on_search_outcome(&mut self, outcome: SearchOutcome, command: Command) -> Option<Action> {
        match outcome {
            SearchOutcome::Handled => None,
            SearchOutcome::Run(asked) => Some(Action::Search(asked)),
            SearchOutcome::Open {
                project_slug,
                session_id,
                title,
                entry,
            } => self.open_search_hit(project_slug, session_id, &title, entry),
            SearchOutcome::Closed => {
                self.close_search();
                None
            }
            SearchOutcome::Ignored => self.overlay_global(command),
        }
    }

    /// Enter on a search result: closes the views over the panes and opens the chat in the
    /// chat pane (selected in the tree when listed there, archived ones too), at the
    /// transcript entry when the match has one.
    fn open_search_hit(
        &mut self,
        project_slug: String,
        session_id: String,
        title: &str,
        entry: Option<usize>,
    ) -> Option<Action> {
        self.close_search();
        self.blame = None;
        self.usage = None;
        self.triggers = None;
        self.home = None;
        self.browser = None;
        self.files = None;
        self.changes = None;
        let seen = self.history.close();
        self.tree.select(&super::tree::RowId::Chat {
            project: project_slug.clone(),
            session_id: session_id.clone(),
        });
        self.focus = Focus::Chat;
        let open = self.open(project_slug, session_id.clone());
        if let Some(chat) = self.chat.as_mut().filter(|c| c.session_id() == session_id) {
            if chat.title().is_empty() {
                chat.set_title(title);
            }
            if let Some(entry) = entry {
                chat.jump_to_entry(entry);
            }
        }
        if seen {
            return open.or(Some(Action::HistorySeen));
        }
        open
    }

    /// The daemon answered a search: to the view that asked (open, or closed since), with the
    /// badges of the chats the tree knows.
    pub fn search_answered(
        &mut self,
        asked: &Asked,
        result: Result<paddock_proto::SearchResults, String>,
    ) {
        let origins = match &result {
            Ok(results) => results
                .hits
                .iter()
                .filter_map(|hit| {
                    let row = self.find_chat(&hit.session_id)?;
                    Some((hit.session_id.clone(), (row.origin, row.depth)))
                })
                .collect(),
            Err(_) => std::collections::HashMap::new(),
        };
        if let Some(view) = self.search.as_mut().or(self.search_closed.as_mut()) {
            view.answer(asked, result, origins);
        }
    }

    /// The global keys a view over the panes lets through: the ones that do not open another
    /// view under it.
    fn overlay_global(&mut self, command: Command) -> Option<Action> {
        match command {
            Command::Quit | Command::Help | Command::Inbox | Command::Search | Command::Theme => {
                self.global(command)
            }
            _ => None,
        }
    }

    /// Closes the views over the panes and shows the chat in the tree and the chat pane, when
    /// the tree lists it.
    fn jump_to_chat(&mut self, session_id: &str) -> Option<Action> {
        let Some(project_slug) = self.find_chat(session_id).map(|c| c.project_slug.clone()) else {
            self.notice = Some("that chat is not in the tree (archived, or not loaded yet)".into());
            return None;
        };
        self.blame = None;
        self.usage = None;
        self.triggers = None;
        self.home = None;
        self.browser = None;
        self.files = None;
        self.changes = None;
        self.tree.select(&super::tree::RowId::Chat {
            project: project_slug.clone(),
            session_id: session_id.to_owned(),
        });
        self.focus = Focus::Chat;
        self.open(project_slug, session_id.to_owned())
    }

    fn on_usage(&mut self, command: Command) -> Option<Action> {
        let page = self.page;
        let usage = self.usage.as_mut()?;
        match usage.on_command(command, page) {
            UsageOutcome::Handled => None,
            UsageOutcome::Load(scope) => Some(Action::LoadUsage(scope)),
            UsageOutcome::Open {
                project_slug,
                session_id,
                title,
            } => self.open_from_usage(project_slug, session_id, &title),
            UsageOutcome::Closed => {
                self.usage = None;
                None
            }
            UsageOutcome::Ignored => self.overlay_global(command),
        }
    }

    /// Enter on a chat of the Usage view: closes the views over the panes and opens it in the
    /// chat pane (selected in the tree when listed there).
    fn open_from_usage(
        &mut self,
        project_slug: String,
        session_id: String,
        title: &str,
    ) -> Option<Action> {
        self.usage = None;
        self.triggers = None;
        self.home = None;
        self.browser = None;
        self.blame = None;
        self.files = None;
        self.changes = None;
        let seen = self.history.close();
        self.tree.select(&RowId::Chat {
            project: project_slug.clone(),
            session_id: session_id.clone(),
        });
        self.focus = Focus::Chat;
        let open = self.open(project_slug, session_id.clone());
        if let Some(chat) = self.chat.as_mut().filter(|c| c.session_id() == session_id)
            && chat.title().is_empty()
        {
            chat.set_title(title);
        }
        if seen {
            return open.or(Some(Action::HistorySeen));
        }
        open
    }

    fn on_triggers(&mut self, command: Command) -> Option<Action> {
        let page = self.page;
        let outcome = self.triggers.as_mut()?.on_command(command, page);
        self.on_triggers_outcome(outcome, command)
    }

    fn on_triggers_outcome(
        &mut self,
        outcome: TriggersOutcome,
        command: Command,
    ) -> Option<Action> {
        match outcome {
            TriggersOutcome::Handled => None,
            TriggersOutcome::Load(project) => Some(Action::LoadTriggers(project)),
            TriggersOutcome::LoadRuns(id) => Some(Action::LoadTriggerRuns(id)),
            TriggersOutcome::Fire(id) => Some(Action::Trigger(Act::Fire, id)),
            TriggersOutcome::Remove(id) => Some(Action::Trigger(Act::Remove, id)),
            TriggersOutcome::Save(set) => Some(Action::SaveTrigger(set)),
            TriggersOutcome::Open {
                project_slug,
                session_id,
                title,
            } => self.open_from_usage(project_slug, session_id, &title),
            TriggersOutcome::Closed => {
                self.triggers = None;
                None
            }
            TriggersOutcome::Ignored => self.overlay_global(command),
        }
    }

    fn on_home(&mut self, command: Command) -> Option<Action> {
        let page = self.page;
        let view = self.home.as_mut()?;
        let chats = self.tree.project_chats(view.slug());
        match view.on_command(command, page, chats) {
            HomeOutcome::Handled => None,
            HomeOutcome::Load(slug) => Some(Action::LoadOverview(slug)),
            HomeOutcome::Open {
                project_slug,
                session_id,
                title,
            } => self.open_from_usage(project_slug, session_id, &title),
            HomeOutcome::Closed => {
                self.home = None;
                None
            }
            HomeOutcome::Ignored => self.overlay_global(command),
        }
    }

    /// `O`: the Home of the open chat's project (when the chat pane has the keyboard) or the
    /// tree cursor's.
    fn open_home(&mut self) -> Option<Action> {
        if self.home.take().is_some() {
            return None;
        }
        let slug = self.project_in_view()?;
        self.home = Some(HomeView::new(slug.clone()));
        Some(Action::LoadOverview(slug))
    }

    /// `Z`: the Triggers view of the open chat's project (when the chat pane has the keyboard)
    /// or the tree cursor's; every project's when there is none.
    fn open_triggers(&mut self) -> Option<Action> {
        if self.triggers.take().is_some() {
            return None;
        }
        let view = TriggersView::new(self.focused_project());
        let asked = view.asked();
        self.triggers = Some(view);
        Some(Action::LoadTriggers(asked))
    }

    /// The daemon's chat list for the Usage view; dropped when it reads another list now.
    pub fn usage_answered(&mut self, scope: UsageScope, result: Result<Vec<ChatSummary>, String>) {
        if let Some(usage) = self.usage.as_mut() {
            usage.answer(scope, result);
        }
    }

    fn on_commit_key(&mut self, key: KeyEvent) -> Option<Action> {
        let changes = self.changes.as_mut()?;
        match changes.on_commit_key(key) {
            CommitOutcome::Commit(message) => Some(Action::Commit {
                project_slug: changes.project_slug().to_owned(),
                scope: changes.scope().clone(),
                message,
            }),
            CommitOutcome::Editing | CommitOutcome::Cancelled => None,
        }
    }

    /// Opens the Changes view on the open chat (when the chat pane has the keyboard) or the
    /// tree's cursor chat; on a project row, the project's changes.
    fn open_changes(&mut self) -> Option<Action> {
        let from_chat = self
            .chat
            .as_ref()
            .filter(|_| self.focus != Focus::Tree)
            .map(|c| {
                let title = self
                    .find_chat(c.session_id())
                    .map(|r| r.title.clone())
                    .unwrap_or_default();
                (
                    c.project_slug().to_owned(),
                    Some(c.session_id().to_owned()),
                    title,
                )
            });
        let (project_slug, session_id, title) = from_chat
            .or_else(|| {
                self.tree.cursor_chat().map(|c| {
                    (
                        c.project_slug.clone(),
                        Some(c.session_id.clone()),
                        c.title.clone(),
                    )
                })
            })
            .or_else(|| self.tree.cursor_project().map(|p| (p, None, String::new())))?;
        let title = title.lines().next().unwrap_or_default().to_owned();
        let view = ChangesView::new(project_slug.clone(), session_id, title);
        let scope = view.scope().clone();
        self.changes = Some(view);
        Some(Action::LoadChanges {
            project_slug,
            scope,
        })
    }

    /// Keys every context shares.
    fn global(&mut self, command: Command) -> Option<Action> {
        match command {
            Command::Search => self.open_search(),
            Command::Triggers => self.open_triggers(),
            Command::Home => self.open_home(),
            Command::Browse => self.open_browser(),
            Command::Usage => {
                if self.usage.take().is_some() {
                    return None;
                }
                let view = UsageView::new();
                let scope = view.asked();
                self.usage = Some(view);
                Some(Action::LoadUsage(scope))
            }
            Command::Theme => {
                let (theme, choice) = self.theme.toggled();
                self.theme = theme;
                self.prefs.set_theme(Some(choice));
                self.notice = Some(match choice {
                    ThemeChoice::Plain => "plain: ASCII, no colour (T: colours)".to_owned(),
                    ThemeChoice::Colour => "colours (T: plain)".to_owned(),
                });
                None
            }
            Command::Changes => {
                if self.changes.take().is_some() {
                    return None;
                }
                let open = self.open_changes();
                if open.is_none() {
                    self.notice = Some("put the cursor on a chat or a project".into());
                }
                open
            }
            Command::Inbox => {
                if self.approvals.take().is_some() {
                    return None;
                }
                self.approvals = Some(super::inbox::InboxView::default());
                Some(Action::LoadApprovals)
            }
            Command::Quit => Some(Action::Quit),
            Command::Help => {
                self.help = Some(0);
                None
            }
            Command::Refresh => {
                self.tree.reorder_on_next_load();
                Some(Action::Refresh)
            }
            Command::History => {
                if self.history.is_open() {
                    return self.history.close().then_some(Action::HistorySeen);
                }
                self.history.open();
                Some(Action::LoadHistory)
            }
            Command::SwitchPane => {
                self.focus = match self.focus {
                    Focus::Tree if self.chat.is_some() => Focus::Chat,
                    Focus::Tree => Focus::Tree,
                    Focus::Chat | Focus::Composer => Focus::Tree,
                };
                None
            }
            _ => None,
        }
    }

    fn on_tree(&mut self, command: Command) -> Option<Action> {
        let subtree = std::mem::take(&mut self.subtree_pending);
        let tree = &mut self.tree;
        match command {
            Command::Down => tree.move_by(1),
            Command::Up => tree.move_by(-1),
            Command::PageDown => tree.move_by(isize::try_from(self.page).unwrap_or(10)),
            Command::PageUp => tree.move_by(-isize::try_from(self.page).unwrap_or(10)),
            // Going to the top is going to what is new: the daemon's order is adopted.
            Command::Top => {
                tree.reorder();
                tree.to_top();
            }
            Command::Bottom => tree.to_bottom(),
            Command::Fold => tree.fold_or_parent(),
            Command::Unfold => tree.unfold_or_child(),
            Command::Reorder => tree.reorder(),
            Command::FlatList => {
                let flat = !tree.flat();
                tree.set_flat(flat);
            }
            Command::Mark => {
                tree.toggle_mark();
            }
            Command::RangeMark => tree.toggle_range(),
            Command::ClearMarks => {
                tree.clear_marks();
                tree.set_filter(None);
            }
            Command::NextAttention => {
                tree.next_attention();
            }
            Command::UnattendedOnly => {
                let on = !tree.unattended_only();
                tree.set_unattended_only(on);
            }
            Command::Filter => {
                self.filter_input = Some(tree.filter().map(str::to_owned).unwrap_or_default());
            }
            Command::Subtree => self.subtree_pending = true,
            Command::Open => {
                if let Some(chat) = tree.cursor_chat() {
                    let (project, sid) = (chat.project_slug.clone(), chat.session_id.clone());
                    let open = self.open(project, sid);
                    self.focus = Focus::Chat;
                    return open;
                }
                tree.toggle_fold();
            }
            Command::Archive => return self.update(ChatAction::Archive, subtree),
            Command::Unarchive => return self.update(ChatAction::Unarchive, subtree),
            Command::Unread => return self.update(ChatAction::Unread, subtree),
            Command::Read => return self.update(ChatAction::Read, subtree),
            Command::Detach => return self.update(ChatAction::Detach, subtree),
            Command::Star => {
                let all_starred = self
                    .targets(subtree)
                    .iter()
                    .all(|sid| self.find_chat(sid).is_some_and(|c| c.starred));
                let action = if all_starred {
                    ChatAction::Unstar
                } else {
                    ChatAction::Star
                };
                return self.update(action, subtree);
            }
            Command::Stop => {
                let session_ids: Vec<String> = self
                    .targets(subtree)
                    .into_iter()
                    .filter(|sid| self.find_chat(sid).is_some_and(|c| c.running))
                    .collect();
                if session_ids.is_empty() {
                    self.notice = Some("nothing is running there".into());
                    return None;
                }
                return Some(Action::Stop { session_ids });
            }
            Command::Compose => {
                if let Some(chat) = tree.cursor_chat() {
                    let (project, sid) = (chat.project_slug.clone(), chat.session_id.clone());
                    let open = self.open(project, sid);
                    self.focus = Focus::Composer;
                    return open;
                }
                return self.new_chat();
            }
            Command::NewChat => return self.new_chat(),
            Command::Files => return self.open_files(),
            Command::Fork => return self.fork(),
            Command::Delete => {
                self.ask_delete(subtree);
                return None;
            }
            Command::Continue => {
                let chat = tree.cursor_chat()?;
                if !chat.interrupted {
                    self.notice = Some("this chat was not cut short; nothing to continue".into());
                    return None;
                }
                return Some(Action::Continue {
                    session_id: chat.session_id.clone(),
                });
            }
            other => return self.global(other),
        }
        None
    }

    /// The session ids an action applies to: the marked chats, else the cursor's; with
    /// `subtree`, each with all its descendants.
    fn targets(&self, subtree: bool) -> Vec<String> {
        self.tree
            .targets(subtree)
            .into_iter()
            .map(|(_, sid)| sid)
            .collect()
    }

    fn find_chat(&self, sid: &str) -> Option<&ChatSummary> {
        self.tree
            .projects()
            .iter()
            .find_map(|p| {
                self.tree
                    .project_chats(&p.slug)
                    .iter()
                    .find(|c| c.session_id == sid)
            })
            .or_else(|| self.tree.find(sid))
    }

    fn update(&mut self, action: ChatAction, subtree: bool) -> Option<Action> {
        let session_ids = self.targets(subtree);
        if session_ids.is_empty() {
            self.notice = Some("put the cursor on a chat (or mark some with space)".into());
            return None;
        }
        Some(Action::Update {
            action,
            session_ids,
        })
    }

    /// `f`: forks the cursor's chat; the fork is selected once it is listed (under it).
    fn fork(&mut self) -> Option<Action> {
        let Some(chat) = self.tree.cursor_chat() else {
            self.notice = Some("put the cursor on the chat to fork".into());
            return None;
        };
        let session_id = chat.session_id.clone();
        self.notice = Some(format!("forking {}…", self.quoted(&chat.title.clone(), 40)));
        Some(Action::Fork { session_id })
    }

    /// The daemon forked a chat: the cursor goes to the fork when it is listed.
    pub fn forked(&mut self, project_slug: String, session_id: String) {
        self.tree.select_when_listed(RowId::Chat {
            project: project_slug,
            session_id,
        });
        self.notice = Some("forked: the copy is nested under its source".into());
    }

    /// `X`: asks whether to delete the targets (the marked chats, else the cursor's; with
    /// `subtree`, with everything under them), naming them and how many run.
    fn ask_delete(&mut self, subtree: bool) {
        let session_ids = self.targets(subtree);
        if session_ids.is_empty() {
            self.notice = Some("put the cursor on a chat (or mark some with space)".into());
            return;
        }
        let chats: Vec<(String, bool)> = session_ids
            .iter()
            .map(|sid| {
                self.find_chat(sid)
                    .map_or((sid.clone(), false), |c| (c.title.clone(), c.running))
            })
            .collect();
        let running = chats.iter().filter(|(_, r)| *r).count();
        let (question, what) = if let [(title, running)] = chats.as_slice() {
            let running = if *running { " (running)" } else { "" };
            (
                format!("delete {}{running}", self.quoted(title, 50)),
                "1 chat".to_owned(),
            )
        } else {
            let n = chats.len();
            let running = match running {
                0 => String::new(),
                r => format!(" ({r} running)"),
            };
            let mut names: Vec<String> = chats
                .iter()
                .take(3)
                .map(|(title, _)| self.quoted(title, 24))
                .collect();
            if n > 3 {
                names.push(format!("+{} more", n - 3));
            }
            (
                format!("delete {n} chats{running}: {}", names.join(", ")),
                format!("{n} chats"),
            )
        };
        self.confirm = Some(Confirm {
            question,
            doing: format!("deleting {what}…"),
            refused: "nothing deleted (only y deletes)".into(),
            action: Action::Delete { session_ids },
        });
    }

    /// A key while a question waits: `y` does it, anything else does nothing.
    fn answer(&mut self, confirm: Confirm, key: KeyEvent) -> Option<Action> {
        if !keys::Key::char('y').matches(&key) {
            self.notice = Some(confirm.refused);
            return None;
        }
        if let Action::Delete { session_ids } = &confirm.action {
            self.deleting.clone_from(session_ids);
        }
        self.notice = Some(confirm.doing);
        Some(confirm.action)
    }

    /// The daemon deleted chats: said, and the chat pane closed if it showed one of them.
    pub fn deleted(&mut self, changed: u32) {
        let deleting = std::mem::take(&mut self.deleting);
        self.notice = Some(match changed {
            1 => "deleted 1 chat".to_owned(),
            n => format!("deleted {n} chats"),
        });
        if self
            .chat
            .as_ref()
            .is_some_and(|c| deleting.iter().any(|sid| sid == c.session_id()))
        {
            self.chat = None;
            self.focus = Focus::Tree;
        }
    }

    /// A chat's title in quotes, cut to `max` columns.
    fn quoted(&self, title: &str, max: usize) -> String {
        let title = crate::format::clean_title(title);
        let title = super::tree_view::truncate(&title, max, &self.theme);
        let (open, close) = (self.theme.glyph("“", "\""), self.theme.glyph("”", "\""));
        format!("{open}{title}{close}")
    }

    /// A new chat in the cursor row's project: the composer, aimed at it.
    fn new_chat(&mut self) -> Option<Action> {
        let project_slug = self
            .chat
            .as_ref()
            .filter(|_| self.focus != Focus::Tree)
            .map(|c| c.project_slug().to_owned())
            .or_else(|| self.tree.cursor_project())
            .unwrap_or_default();
        self.aim_composer(Target::NewChat { project_slug });
        self.composer.set_running(false);
        self.focus = Focus::Composer;
        None
    }

    /// Opens a chat in the chat pane (the loop reads it and follows its stream).
    pub fn open(&mut self, project_slug: String, session_id: String) -> Option<Action> {
        if self
            .chat
            .as_ref()
            .is_some_and(|c| c.session_id() == session_id)
        {
            self.aim_at_open_chat();
            return None;
        }
        let mut view = ChatView::new(project_slug.clone(), session_id.clone());
        let row = self.find_chat(&session_id).cloned();
        if let Some(row) = &row {
            view.set_title(&row.title);
            view.set_running(row.running);
            view.set_usage(row.usage.clone());
        }
        self.aim_composer(Target::Reply {
            session_id: session_id.clone(),
            title: row.map(|r| r.title).unwrap_or_default(),
        });
        self.composer.set_running(view.running());
        self.composer
            .set_queued(self.find_chat(&session_id).and_then(|c| c.queued.clone()));
        self.chat = Some(view);
        Some(Action::Open {
            project_slug,
            session_id,
        })
    }

    fn on_chat(&mut self, command: Command) -> Option<Action> {
        let page = i32::try_from(self.page).unwrap_or(10);
        let Some(chat) = self.chat.as_mut() else {
            self.focus = Focus::Tree;
            return self.global(command);
        };
        chat.clear_jumped();
        match command {
            Command::Down => {
                if !chat.select_next_item() {
                    chat.scroll_by(1);
                }
            }
            Command::Up => {
                if !chat.select_prev_item() {
                    chat.scroll_by(-1);
                }
            }
            Command::PageDown => chat.scroll_by(page),
            Command::PageUp => chat.scroll_by(-page),
            Command::Top => chat.to_start(),
            Command::Bottom => chat.to_end(),
            Command::ExpandItem => {
                chat.toggle_expand();
            }
            Command::ExpandAll => {
                let on = !chat.tools_expanded();
                chat.expand_all_tools(on);
            }
            Command::JumpToSender => {
                if let Some(Attribution::Sent {
                    from_session_id,
                    from_project,
                    ..
                }) = chat.cursor_attribution().cloned()
                {
                    self.tree.select(&super::tree::RowId::Chat {
                        project: from_project.clone(),
                        session_id: from_session_id.clone(),
                    });
                    return self.open(from_project, from_session_id);
                }
                self.notice = Some("no chat sent the turn under the cursor".into());
            }
            Command::Compose => {
                self.aim_at_open_chat();
                self.focus = Focus::Composer;
            }
            Command::ViewAttachment => return self.view_attachments(),
            Command::NewChat => return self.new_chat(),
            Command::Files => return self.open_files(),
            Command::Continue => {
                if chat.running() {
                    self.notice = Some("this chat is running".into());
                    return None;
                }
                return Some(Action::Continue {
                    session_id: chat.session_id().to_owned(),
                });
            }
            Command::Cancel => {
                if chat.running() {
                    return Some(Action::Stop {
                        session_ids: vec![chat.session_id().to_owned()],
                    });
                }
                self.notice = Some("nothing is running in this chat".into());
            }
            Command::Back => self.focus = Focus::Tree,
            other => return self.global(other),
        }
        None
    }

    fn on_composer_key(&mut self, key: KeyEvent) -> Option<Action> {
        // Tab, Ctrl-L and F1 keep their global meaning; everything else edits the draft.
        if let Some(command @ (Command::SwitchPane | Command::Refresh | Command::Help)) =
            keys::command_for(Context::Composer, &key)
        {
            return self.global(command);
        }
        let running = self.composer_target_running();
        match self.composer.handle_key(key, running) {
            ComposerOutcome::None => None,
            // The queue lives in the daemon (one durable slot per chat, sent when the turn
            // ends), so every client sees it and nothing is sent twice.
            ComposerOutcome::Queued | ComposerOutcome::Unqueued => {
                let Target::Reply { session_id, .. } = self.composer.target().clone() else {
                    return None;
                };
                Some(Action::SetQueue {
                    session_id,
                    message: self.composer.queued().map(str::to_owned),
                })
            }
            ComposerOutcome::Leave => {
                self.focus = if self.chat.is_some() {
                    Focus::Chat
                } else {
                    Focus::Tree
                };
                None
            }
            ComposerOutcome::Cancel => {
                let sid = self.chat.as_ref().filter(|c| c.running())?.session_id();
                Some(Action::Stop {
                    session_ids: vec![sid.to_owned()],
                })
            }
            ComposerOutcome::Attach => {
                self.attach_prompt = Some(PathPrompt::here("attach", "attach", ""));
                None
            }
            ComposerOutcome::Notice(text) => {
                self.notice = Some(text);
                None
            }
            ComposerOutcome::Send(text) => {
                let model = self.composer.model.clone();
                let preload = self.composer.preloads();
                let files = self.composer.take_attachments();
                let attachments = files.iter().map(|f| f.path.clone()).collect();
                self.sending.push(Sending {
                    key: draft_key(self.composer.target()),
                    text: text.clone(),
                    attachments: files,
                });
                match self.composer.target().clone() {
                    Target::NewChat { project_slug } => Some(Action::Send {
                        project_slug,
                        session_id: None,
                        text,
                        model,
                        attachments,
                        preload,
                    }),
                    Target::Reply { session_id, .. } => Some(Action::Send {
                        project_slug: self
                            .chat
                            .as_ref()
                            .map(|c| c.project_slug().to_owned())
                            .unwrap_or_default(),
                        session_id: Some(session_id),
                        text,
                        model,
                        attachments,
                        preload: false,
                    }),
                }
            }
        }
    }

    /// Whether the composer's target chat runs a turn (its message would be queued).
    fn composer_target_running(&self) -> bool {
        match self.composer.target() {
            Target::Reply { session_id, .. } => self
                .chat
                .as_ref()
                .filter(|c| c.session_id() == session_id)
                .is_some_and(ChatView::running),
            Target::NewChat { .. } => false,
        }
    }

    /// Keeps the cursor within the `height` rows on screen (called before every draw with the
    /// list's height).
    pub fn scroll_into_view(&mut self, height: usize) {
        self.page = height.max(1);
        self.tree.scroll_into_view(height);
    }

    pub fn set_connected(&mut self, daemon: HelloReply) {
        self.connection = Connection::Connected(daemon);
        self.notice = None;
    }

    pub fn set_unreachable(&mut self, reason: String) {
        self.connection = Connection::Unreachable(reason);
    }

    pub fn set_stopped(&mut self, message: String) {
        self.connection = Connection::Stopped(message);
    }

    pub fn set_projects(&mut self, projects: Vec<ProjectInfo>) {
        self.tree.set_projects(projects);
        self.loaded = true;
    }

    /// Replaces every project's chats (a list of all chats, grouped by project there).
    pub fn set_all_chats(&mut self, chats: Vec<ChatSummary>) {
        self.prefs.listed(
            chats.iter().map(|c| c.session_id.as_str()),
            prefs::unix_now(),
        );
        self.tree.set_all_chats(chats);
        // Folds waiting for chats the full list does not have are for chats gone.
        self.tree.drop_pending_folds();
        self.refresh_chat_usage();
    }

    pub fn set_project_chats(&mut self, slug: String, chats: Vec<ChatSummary>) {
        self.tree.set_project_chats(slug, chats);
        self.refresh_chat_usage();
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
        if taken {
            self.refresh_chat_usage();
        }
        taken
    }

    /// A project's archived chats (its "Archived" group), or why they could not be listed.
    pub fn set_archived_chats(&mut self, slug: String, answer: Result<Vec<ChatSummary>, String>) {
        if let Err(reason) = &answer {
            self.notice = Some(format!("cannot list the archived chats: {reason}"));
        }
        self.tree.set_archived_chats(slug, answer);
    }

    /// The open chat's tokens, cost and context use, as the chat list has them now.
    fn refresh_chat_usage(&mut self) {
        let Some(sid) = self.chat.as_ref().map(|c| c.session_id().to_owned()) else {
            return;
        };
        let Some(usage) = self.find_chat(&sid).map(|c| c.usage.clone()) else {
            return;
        };
        if let Some(chat) = self.chat.as_mut() {
            chat.set_usage(usage);
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
