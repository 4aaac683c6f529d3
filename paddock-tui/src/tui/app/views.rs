//! The keys every context shares ([`App::global`]), and the views over the panes they open: a
//! key that opens a view closes it when it is open already. A chat shown from a view closes
//! the views over the panes ([`App::show_chat`]).

use super::{Action, App, Focus};
use crate::tui::browser_view::BrowserView;
use crate::tui::changes::ChangesView;
use crate::tui::doing::Done;
use crate::tui::fetch::{Answer, Fetch};
use crate::tui::files_view::FilesView;
use crate::tui::help_view::HelpView;
use crate::tui::home_view::HomeView;
use crate::tui::inbox::InboxView;
use crate::tui::keys::Command;
use crate::tui::overlay::{Cx, News};
use crate::tui::search_view::SearchView;
use crate::tui::theme::ThemeChoice;
use crate::tui::tree::RowId;
use crate::tui::triggers_view::{TriggersView, act_notice};
use crate::tui::usage_view::UsageView;

impl App {
    /// Keys every context shares.
    pub(super) fn global(&mut self, command: Command) -> Option<Action> {
        match command {
            Command::Search => self.open_search(),
            Command::Triggers => self.open_triggers(),
            Command::Home => self.open_home(),
            Command::Browse => self.open_browser(),
            Command::Usage => self.open_usage(),
            Command::Theme => {
                let (theme, choice) = self.theme.toggled();
                self.theme = theme;
                self.prefs.set_theme(Some(choice));
                self.notice.info(match choice {
                    ThemeChoice::Plain => "plain: ASCII, no colour (T: colours)".to_owned(),
                    ThemeChoice::Colour => "colours (T: plain)".to_owned(),
                });
                None
            }
            Command::Changes => {
                if self.close::<ChangesView>() {
                    return None;
                }
                let open = self.open_changes();
                if open.is_none() {
                    self.notice.info("put the cursor on a chat or a project");
                }
                open
            }
            Command::Inbox => {
                if self.close::<InboxView>() {
                    return None;
                }
                self.show(InboxView::default());
                Some(Action::LoadApprovals)
            }
            Command::Quit => Some(Action::Quit),
            Command::Help => {
                self.show(HelpView::default());
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
                    Focus::Chat | Focus::Composer => {
                        // Back in the tree, the cursor is on the chat the pane shows.
                        self.aim_tree_at_open_chat();
                        Focus::Tree
                    }
                };
                None
            }
            _ => None,
        }
    }

    /// The global keys a view over the panes lets through: the ones that do not open another
    /// view under it.
    pub(super) fn overlay_global(&mut self, command: Command) -> Option<Action> {
        match command {
            Command::Quit | Command::Help | Command::Inbox | Command::Search | Command::Theme => {
                self.global(command)
            }
            _ => None,
        }
    }

    /// Closes the views over the panes and shows the chat in the tree and the chat pane, when
    /// the tree lists it.
    pub(super) fn jump_to_chat(&mut self, session_id: &str) -> Option<Action> {
        let Some(project_slug) = self.find_chat(session_id).map(|c| c.project_slug.clone()) else {
            self.notice
                .info("that chat is not in the tree (archived, or not loaded yet)");
            return None;
        };
        self.overlays.close_over_panes();
        self.select_and_open(project_slug, session_id.to_owned())
    }

    /// Selects the chat in the tree and opens it in the chat pane, which gets the keyboard.
    fn select_and_open(&mut self, project_slug: String, session_id: String) -> Option<Action> {
        self.tree.select(&RowId::Chat {
            project: project_slug.clone(),
            session_id: session_id.clone(),
        });
        self.focus = Focus::Chat;
        self.open(project_slug, session_id)
    }

    /// Enter on a chat of a view (a search result, a chat of Usage, Home or Triggers): closes
    /// the views over the panes and History, and opens it in the chat pane (selected in the
    /// tree when listed there, archived ones too), at the transcript entry when given.
    pub(super) fn show_chat(
        &mut self,
        project_slug: String,
        session_id: String,
        title: &str,
        entry: Option<usize>,
    ) -> Option<Action> {
        self.overlays.close_over_panes();
        let seen = self.history.close();
        let open = self.select_and_open(project_slug, session_id.clone());
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

    /// Opens the Files view on the open chat (when the chat pane has the keyboard) or the
    /// tree's cursor chat.
    pub(super) fn open_files(&mut self) -> Option<Action> {
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
            self.notice.info("put the cursor on a chat");
            return None;
        };
        self.show(FilesView::new(
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
        if let (Some(files), Some(chat)) = (self.overlays.get_mut::<FilesView>(), &self.chat)
            && chat.session_id() == files.session_id()
        {
            files.set_prompts(chat.items());
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
            self.notice.info("put the cursor on a project or a chat");
        }
        project
    }

    /// `B`: the file browser of the open chat's project (when the chat pane has the keyboard)
    /// or the tree cursor's.
    fn open_browser(&mut self) -> Option<Action> {
        if self.close::<BrowserView>() {
            return None;
        }
        let project_slug = self.project_in_view()?;
        self.show(BrowserView::new(project_slug.clone()));
        Some(Action::LoadListing {
            project_slug,
            path: String::new(),
            hidden: false,
        })
    }

    /// Opens the search view (as it was last closed, the query line taking the keyboard).
    fn open_search(&mut self) -> Option<Action> {
        let mut view = self.overlays.take_kept::<SearchView>().unwrap_or_default();
        view.edit();
        self.show(view);
        None
    }

    /// `U`: the Usage view.
    fn open_usage(&mut self) -> Option<Action> {
        if self.close::<UsageView>() {
            return None;
        }
        let view = UsageView::new();
        let scope = view.asked();
        self.show(view);
        Some(Action::LoadUsage(scope))
    }

    /// `O`: the Home of the open chat's project (when the chat pane has the keyboard) or the
    /// tree cursor's.
    fn open_home(&mut self) -> Option<Action> {
        if self.close::<HomeView>() {
            return None;
        }
        let slug = self.project_in_view()?;
        self.show(HomeView::new(slug.clone()));
        Some(Action::LoadOverview(slug))
    }

    /// `Z`: the Triggers view of the open chat's project (when the chat pane has the keyboard)
    /// or the tree cursor's; every project's when there is none.
    fn open_triggers(&mut self) -> Option<Action> {
        if self.close::<TriggersView>() {
            return None;
        }
        let view = TriggersView::new(self.focused_project());
        let asked = view.asked();
        self.show(view);
        Some(Action::LoadTriggers(asked))
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
        self.show(view);
        Some(Action::LoadChanges {
            project_slug,
            scope,
        })
    }

    /// A push was answered: what it did, or why not, on the status line.
    pub fn push_answered(&mut self, result: Result<&paddock_proto::GitPushed, &str>) {
        if let Some(changes) = self.view_mut::<ChangesView>() {
            changes.push_done();
        }
        self.notice.result(match result {
            Ok(pushed) => Ok(crate::format::git_pushed(pushed)
                .trim_end()
                .replace('\n', "; ")),
            Err(reason) => Err(format!("push failed: {reason}")),
        });
    }

    /// The viewer's save was written (or not).
    pub fn attachment_saved(&mut self, result: Result<String, String>) {
        match self.view_mut::<crate::tui::attachment_view::AttachmentView>() {
            Some(view) => view.saved(result),
            None => {
                self.notice.result(result);
            }
        }
    }

    /// An answer for the views (open, or kept closed): to the first that asked for it. What
    /// they ask for next is returned, for the loop to read.
    pub fn on_reply(&mut self, fetch: &Fetch, answer: &Answer) -> Vec<Fetch> {
        let mut cx = Cx::new(self.page, &self.tree, &mut self.notice);
        for view in self.overlays.all_mut() {
            if view.on_reply(fetch, answer, &mut cx) {
                break;
            }
        }
        let fetches = cx.fetches;
        if matches!(fetch, Fetch::Touched { .. }) {
            self.match_prompts();
        }
        fetches
    }

    /// News from the daemon: what the open views want to read again.
    pub fn on_news(&mut self, news: News<'_>) -> Vec<Fetch> {
        let mut cx = Cx::new(self.page, &self.tree, &mut self.notice);
        for view in self.overlays.iter() {
            view.on_news(news, &mut cx);
        }
        cx.fetches
    }

    /// The answer to a command the views may have asked for (a trigger's fire...): to the
    /// first that did; what they read next is returned. An act no view asked for is said on
    /// the status line.
    pub fn on_done(&mut self, done: &Done) -> Vec<Fetch> {
        let mut cx = Cx::new(self.page, &self.tree, &mut self.notice);
        let mut taken = false;
        for view in self.overlays.iter_mut() {
            if view.on_done(done, &mut cx) {
                taken = true;
                break;
            }
        }
        let fetches = cx.fetches;
        if !taken && let Done::Trigger(acted) = done {
            self.notice.info(act_notice(acted));
        }
        fetches
    }
}
