//! The tree's side of the app: what its keys do to the chats they target (the marked ones,
//! else the cursor's; with `S`, whole subtrees), the filter typed after `/`, and the question
//! a delete asks first.

use paddock_proto::{ChatAction, ChatSummary};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Action, App, Focus};
use crate::needs::NoContinue;
use crate::tui::keys::{self, Command};
use crate::tui::notice::State;
use crate::tui::theme::Glyph;
use crate::tui::tree::{RowId, TreeState};

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

impl App {
    /// A key while the tree's filter is typed after `/`.
    pub(super) fn on_filter_key(&mut self, key: KeyEvent) -> Option<Action> {
        let filter = self.filter_input.get_or_insert_with(String::new);
        // A selected filter: typing replaces it, Backspace clears it.
        if std::mem::take(&mut self.filter_selected) {
            match key.code {
                KeyCode::Char(_) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    filter.clear();
                }
                KeyCode::Backspace => {
                    filter.clear();
                    self.tree.set_filter(None);
                    return None;
                }
                _ => {}
            }
        }
        match key.code {
            KeyCode::Enter => {
                self.filter_input = None;
                self.filter_from = None;
            }
            KeyCode::Esc => {
                self.filter_input = None;
                self.tree.set_filter(None);
                // Cancelled: the cursor goes back where it was, as if nothing was typed.
                if let Some(from) = self.filter_from.take() {
                    self.tree.select(&from);
                }
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

    /// A command while the tree has the keyboard.
    pub(super) fn on_tree(&mut self, command: Command) -> Option<Action> {
        let subtree = std::mem::take(&mut self.subtree_pending);
        if self.on_tree_view(command, subtree) {
            return None;
        }
        match command {
            Command::Open => self.open_or_fold(),
            Command::Archive => self.update(ChatAction::Archive, subtree),
            Command::Unarchive => self.update(ChatAction::Unarchive, subtree),
            Command::Unread => self.update(ChatAction::Unread, subtree),
            Command::Read => self.update(ChatAction::Read, subtree),
            Command::Detach => self.detach_or_attach(subtree),
            Command::Star => self.star_or_unstar(subtree),
            Command::Stop => self.stop(subtree),
            Command::Compose => self.compose(),
            Command::NewChat => self.new_chat(),
            Command::Files => self.open_files(),
            Command::Fork => self.fork(),
            Command::Move => {
                self.start_move();
                None
            }
            Command::Continue => self.continue_chat(),
            other => self.global(other),
        }
    }

    /// Does a command that moves the tree's cursor, changes what the tree shows, or only asks
    /// something first (a delete); false when the command is none of these.
    fn on_tree_view(&mut self, command: Command, subtree: bool) -> bool {
        let tree = &mut self.tree;
        match command {
            Command::Down => tree.move_by(1),
            Command::Up => tree.move_by(-1),
            Command::PageDown => tree.move_by(isize::try_from(self.page).unwrap_or(10)),
            Command::PageUp => tree.move_by(-isize::try_from(self.page).unwrap_or(10)),
            Command::Top => self.go_to_newest(),
            Command::Bottom => tree.to_bottom(),
            Command::Fold => tree.fold_or_parent(),
            Command::Unfold => tree.unfold_or_child(),
            Command::Reorder => tree.reorder(),
            Command::FlatList => tree.set_flat(!tree.flat()),
            Command::Mark => _ = tree.toggle_mark(),
            Command::RangeMark => tree.toggle_range(),
            Command::ClearMarks => self.clear_marks_and_filter(),
            Command::NextAttention => {
                if !self.next_attention_anywhere() {
                    self.notice.info("no other chat needs you");
                }
            }
            Command::UnattendedOnly => tree.set_unattended_only(!tree.unattended_only()),
            Command::Filter => self.start_filter(),
            Command::Subtree => self.subtree_pending = true,
            Command::Delete => self.ask_delete(subtree),
            _ => return false,
        }
        true
    }

    /// Goes to the top of the tree, which is going to what is new: the daemon's order is
    /// adopted.
    fn go_to_newest(&mut self) {
        self.tree.reorder();
        self.tree.to_top();
    }

    /// Unmarks every chat and drops the filter.
    fn clear_marks_and_filter(&mut self) {
        self.tree.clear_marks();
        self.tree.set_filter(None);
    }

    /// `n`: moves the tree's cursor to the next chat that needs you; whether there was one.
    /// A chat the filter (or "unattended only") hides is found too: the filter is cleared,
    /// and that is said, so the header's count and `n` never disagree.
    pub(super) fn next_attention_anywhere(&mut self) -> bool {
        let filter = self.tree.filter().map(str::to_owned);
        let unattended = self.tree.unattended_only();
        if filter.is_none() && !unattended {
            return self.tree.next_attention();
        }
        // Walked over every chat, hidden or not, in the order `n` takes them: a chat the
        // filter hides comes in its turn, not only once no shown one needs you.
        self.tree.set_filter(None);
        self.tree.set_unattended_only(false);
        let found = self.tree.next_attention();
        let target = self.tree.cursor_id().cloned();
        self.tree.set_filter(filter);
        self.tree.set_unattended_only(unattended);
        let Some(target) = target.filter(|_| found) else {
            return false;
        };
        if self.tree.select(&target) {
            return true;
        }
        self.tree.set_filter(None);
        self.tree.set_unattended_only(false);
        self.tree.select(&target);
        self.filter_input = None;
        self.notice
            .info("the filter hid the chat that needs you, so it was cleared");
        true
    }

    /// Opens the filter line after `/`, holding the filter the tree has now, selected: typing
    /// starts a new one.
    fn start_filter(&mut self) {
        let now = self.tree.filter().map(str::to_owned).unwrap_or_default();
        self.filter_selected = !now.is_empty();
        self.filter_input = Some(now);
        self.filter_from = self.tree.cursor_id().cloned();
    }

    /// Opens the cursor's chat in the chat pane, or folds or unfolds the cursor's row when it
    /// is not a chat.
    fn open_or_fold(&mut self) -> Option<Action> {
        if let Some(chat) = self.tree.cursor_chat() {
            let (project, sid) = (chat.project_slug.clone(), chat.session_id.clone());
            let open = self.open(project, sid);
            self.focus = Focus::Chat;
            return open;
        }
        self.tree.toggle_fold();
        None
    }

    /// Opens the cursor's chat with the keyboard in its composer, or starts a new chat when the
    /// cursor is not on a chat.
    fn compose(&mut self) -> Option<Action> {
        if let Some(chat) = self.tree.cursor_chat() {
            let (project, sid) = (chat.project_slug.clone(), chat.session_id.clone());
            let open = self.open(project, sid);
            self.focus = Focus::Composer;
            return open;
        }
        self.new_chat()
    }

    /// Unstars the targets when all of them are starred, else stars them.
    fn star_or_unstar(&mut self, subtree: bool) -> Option<Action> {
        let all_starred = self
            .targets(subtree)
            .iter()
            .all(|sid| self.find_chat(sid).is_some_and(|c| c.starred));
        let action = if all_starred {
            ChatAction::Unstar
        } else {
            ChatAction::Star
        };
        self.update(action, subtree)
    }

    /// Attaches the targets again when all of them are detached, else detaches them: `d`
    /// undoes itself.
    fn detach_or_attach(&mut self, subtree: bool) -> Option<Action> {
        let all_detached = self
            .targets(subtree)
            .iter()
            .all(|sid| self.find_chat(sid).is_some_and(|c| c.detached));
        let action = if all_detached {
            ChatAction::Attach
        } else {
            ChatAction::Detach
        };
        self.update(action, subtree)
    }

    /// Stops the targets that are running, or says nothing is running there.
    fn stop(&mut self, subtree: bool) -> Option<Action> {
        let session_ids: Vec<String> = self
            .targets(subtree)
            .into_iter()
            .filter(|sid| self.find_chat(sid).is_some_and(|c| c.running))
            .collect();
        if session_ids.is_empty() {
            self.notice.info("nothing is running there");
            return None;
        }
        Some(Action::Stop { session_ids })
    }

    /// Continues the cursor's chat when it was cut short, or says there is nothing to continue.
    fn continue_chat(&mut self) -> Option<Action> {
        let chat = self.tree.cursor_chat()?;
        let (session_id, why) = (chat.session_id.clone(), NoContinue::of_chat(chat));
        self.continue_or_say(session_id, why)
    }

    /// `C`, in the tree or the chat pane: continues the chat, or says why there is nothing to
    /// continue ([`NoContinue`], the rule `paddock continue` follows too).
    pub(super) fn continue_or_say(
        &mut self,
        session_id: String,
        why: Option<NoContinue>,
    ) -> Option<Action> {
        match why {
            None => Some(Action::Continue { session_id }),
            Some(NoContinue::Running) => {
                self.notice
                    .info("this chat is running; nothing to continue until its turn ends");
                None
            }
            Some(NoContinue::NotCutShort) => {
                self.notice.info(
                    "this chat was not cut short; nothing to continue (i writes to it instead)",
                );
                None
            }
        }
    }

    /// The session ids an action applies to: the marked chats, else the cursor's; with
    /// `subtree`, each with all its descendants.
    pub(super) fn targets(&self, subtree: bool) -> Vec<String> {
        self.tree
            .targets(subtree)
            .into_iter()
            .map(|(_, sid)| sid)
            .collect()
    }

    pub(super) fn find_chat(&self, sid: &str) -> Option<&ChatSummary> {
        find_chat(&self.tree, sid)
    }

    fn update(&mut self, action: ChatAction, subtree: bool) -> Option<Action> {
        let session_ids = self.targets(subtree);
        if session_ids.is_empty() {
            self.notice
                .info("put the cursor on a chat (or mark some with space)");
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
            self.notice.info("put the cursor on the chat to fork");
            return None;
        };
        let session_id = chat.session_id.clone();
        let forking = format!("forking {}…", self.quoted(&chat.title.clone(), 40));
        self.notice.while_(forking, State::Request);
        Some(Action::Fork { session_id })
    }

    /// The daemon forked a chat: the cursor goes to the fork when it is listed.
    pub fn forked(&mut self, project_slug: String, session_id: String) {
        self.tree.select_when_listed(RowId::Chat {
            project: project_slug,
            session_id,
        });
        self.notice
            .info("forked: the copy is nested under its source");
    }

    /// `X`: asks whether to delete the targets (the marked chats, else the cursor's; with
    /// `subtree`, with everything under them), naming them and how many run.
    fn ask_delete(&mut self, subtree: bool) {
        let session_ids = self.targets(subtree);
        if session_ids.is_empty() {
            self.notice
                .info("put the cursor on a chat (or mark some with space)");
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
    pub(super) fn answer(&mut self, confirm: Confirm, key: KeyEvent) -> Option<Action> {
        if !keys::Key::char('y').matches(&key) {
            self.notice.error(confirm.refused);
            return None;
        }
        if let Action::Delete { session_ids } = &confirm.action {
            self.deleting.clone_from(session_ids);
        }
        self.notice.while_(confirm.doing, State::Request);
        Some(confirm.action)
    }

    /// The daemon deleted chats: said, and the chat pane closed if it showed one of them.
    pub fn deleted(&mut self, changed: u32) {
        let deleting = std::mem::take(&mut self.deleting);
        self.notice.info(match changed {
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
    pub(super) fn quoted(&self, title: &str, max: usize) -> String {
        let title = crate::format::clean_title(title);
        let title = crate::tui::tree_view::truncate(&title, max, &self.theme);
        let (open, close) = (
            self.theme.glyph(Glyph::OpenQuote),
            self.theme.glyph(Glyph::CloseQuote),
        );
        format!("{open}{title}{close}")
    }
}

/// A chat the tree lists (archived ones too), by its session id.
pub fn find_chat<'a>(tree: &'a TreeState, sid: &str) -> Option<&'a ChatSummary> {
    tree.projects()
        .iter()
        .find_map(|p| {
            tree.project_chats(&p.slug)
                .iter()
                .find(|c| c.session_id == sid)
        })
        .or_else(|| tree.find(sid))
}
