//! The chat pane's side of the app: opening a chat (the composer follows it), its keys, a
//! new chat, History's runs, and the viewer of the files a message names.

use paddock_proto::Attribution;

use super::{Action, App, Focus};
use crate::needs::NoContinue;
use crate::tui::attachment_view::AttachmentView;
use crate::tui::chat::ChatView;
use crate::tui::composer::Target;
use crate::tui::history::HistoryOutcome;
use crate::tui::keys::Command;
use crate::tui::tree::RowId;

impl App {
    /// A new chat in the cursor row's project: the composer, aimed at it.
    pub(super) fn new_chat(&mut self) -> Option<Action> {
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

    /// Opens a chat in the chat pane (the loop reads it and follows its stream). The tree's
    /// cursor goes to it (now, or once the tree lists it): what the keys act on outside the
    /// tree and under the cursor is the same chat.
    pub fn open(&mut self, project_slug: String, session_id: String) -> Option<Action> {
        self.tree.select_when_listed(RowId::Chat {
            project: project_slug.clone(),
            session_id: session_id.clone(),
        });
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
            view.take_row(row);
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

    /// A command while the chat pane has the keyboard.
    pub(super) fn on_chat(&mut self, command: Command) -> Option<Action> {
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
            // The start of the chat, with the cursor on its first item (so `o`, `a`, `J` act on it).
            Command::Top => {
                chat.to_start();
                chat.set_cursor(Some(0));
            }
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
                }) = chat.sender_in_view().cloned()
                {
                    self.tree.select(&RowId::Chat {
                        project: from_project.clone(),
                        session_id: from_session_id.clone(),
                    });
                    return self.open(from_project, from_session_id);
                }
                self.notice.info("no chat sent a turn of this chat");
            }
            Command::Compose => {
                self.aim_at_open_chat();
                self.focus = Focus::Composer;
            }
            Command::ViewAttachment => return self.view_attachments(),
            Command::NewChat => return self.new_chat(),
            Command::NextAttention => {
                // From the chat the pane shows, wherever the tree's cursor was left.
                self.tree.select(&RowId::Chat {
                    project: chat.project_slug().to_owned(),
                    session_id: chat.session_id().to_owned(),
                });
                if self.next_attention_anywhere()
                    && let Some(next) = self.tree.cursor_chat()
                {
                    let (project, session_id) =
                        (next.project_slug.clone(), next.session_id.clone());
                    return self.open(project, session_id);
                }
                self.notice.info("no other chat needs you");
            }
            Command::Files => return self.open_files(),
            Command::Continue => {
                let why = NoContinue::of(chat.running(), chat.cut_short().is_some());
                let session_id = chat.session_id().to_owned();
                return self.continue_or_say(session_id, why);
            }
            Command::Cancel => {
                if chat.running() {
                    return Some(Action::Stop {
                        session_ids: vec![chat.session_id().to_owned()],
                    });
                }
                self.notice.info("nothing is running in this chat");
            }
            Command::Back => self.focus = Focus::Tree,
            other => return self.global(other),
        }
        None
    }

    /// A command while History has the keyboard.
    pub(super) fn on_history(&mut self, command: Command) -> Option<Action> {
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
                    self.notice.clear();
                    return open.or(Some(Action::HistorySeen));
                }
                open
            }
            HistoryOutcome::Closed { mark_seen } => mark_seen.then_some(Action::HistorySeen),
            HistoryOutcome::Ignored => self.global(command),
        }
    }

    /// Opens the viewer on the files the chat item under the cursor names.
    fn view_attachments(&mut self) -> Option<Action> {
        let files = self.chat.as_ref()?.cursor_attachments();
        if files.is_empty() {
            self.notice
                .info("no file here: put the cursor (j/k) on a message or notice with one");
            return None;
        }
        let view = AttachmentView::new(files);
        let id = view.current_id()?.to_owned();
        self.show(view);
        Some(Action::LoadAttachment(id))
    }
}
