//! The views over the panes (the inbox, Changes, Files, blame, search, Usage, Triggers, Home,
//! the browser, the attachment viewer, the help) as one stack: each is an [`Overlay`], and
//! [`App`](super::app::App) holds them in an [`Overlays`] stack. The top of the stack has the
//! keyboard, decides the key context and its footer; render draws it over the panes; closing
//! pops it. Precedence is the stack: a view's [`Layer`] says where it goes in, so which view
//! wins when two are open is the same whatever order they were opened in (the help over the
//! inbox over the search over the viewer over the blame over Usage, Triggers, Home, the
//! browser, Changes and Files).
//!
//! A view never touches the [`App`](super::app::App): it is handed a [`Cx`] (the rows of a
//! page, the tree to read, the status line, the requests to make) and answers a key with a
//! [`Reaction`] that the app carries out (a request for the loop, close, open another view, show
//! a chat). The requests it makes are [`Fetch`]es: typed, so their answers come back to
//! [`Overlay::on_reply`] of the view that asked, and news from the daemon ([`News`]) to
//! [`Overlay::on_news`].
//!
//! **Adding a view**: write its file (its state, and `impl Overlay` for it: its layer, context,
//! keys, render, footer, and the answers it takes), add its place to [`Layer`], and open it from
//! a key (`App::global`, with `self.overlays.push(Box::new(view))`).

use std::any::Any;

use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;

use super::app::Action;
use super::doing::Done;
use super::fetch::{Answer, Fetch};
use super::keys::{self, Command, Context};
use super::notice::Notice;
use super::theme::Theme;
use super::tree::TreeState;

/// Where a view sits in the stack: a higher layer is drawn over a lower one and has the
/// keyboard before it. At most one view per layer is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    Files,
    Changes,
    Browser,
    Home,
    Triggers,
    Usage,
    Blame,
    Attachment,
    Search,
    Inbox,
    Help,
}

/// What a view hands back for a key; the app carries it out.
#[derive(Debug)]
pub enum Reaction {
    /// Done inside the view.
    Handled,
    /// The view closes.
    Close,
    /// The loop does this.
    Ask(Action),
    /// Not the view's: a global key, if it is one a view over the panes lets through.
    Pass(Command),
    /// Not the view's: any global key.
    Global(Command),
    /// Another view opens over this one, and the loop does this for it.
    Open(Box<dyn Overlay>, Option<Action>),
    /// The views over the panes close and this chat shows in the chat pane (selected in the
    /// tree), at the transcript entry when given.
    ShowChat {
        project_slug: String,
        session_id: String,
        title: String,
        entry: Option<usize>,
    },
    /// Like [`Reaction::ShowChat`], for a chat known only by its session id (the tree says its
    /// project); History stays as it is.
    JumpToChat(String),
    /// This view closes and the chat opens in the chat pane under whatever else is open.
    CloseAndOpen {
        project_slug: String,
        session_id: String,
    },
}

impl Reaction {
    /// Shows this chat from the view (no transcript entry to go to).
    pub fn show_chat(project_slug: String, session_id: String, title: String) -> Self {
        Reaction::ShowChat {
            project_slug,
            session_id,
            title,
            entry: None,
        }
    }
}

/// What a view gets to work with: the screen's page, the tree to read, the status line, and
/// the requests to make.
pub struct Cx<'a> {
    /// Rows of the pane last drawn, for paging.
    pub page: usize,
    /// Projects and chats, as the tree has them.
    pub tree: &'a TreeState,
    /// The status line's message.
    pub notice: &'a mut Notice,
    /// Requests to make (answered to [`Overlay::on_reply`]).
    pub fetches: Vec<Fetch>,
}

impl<'a> Cx<'a> {
    pub fn new(page: usize, tree: &'a TreeState, notice: &'a mut Notice) -> Self {
        Self {
            page,
            tree,
            notice,
            fetches: Vec::new(),
        }
    }

    /// Says this on the status line, as information.
    pub fn say(&mut self, text: impl Into<String>) {
        self.notice.info(text);
    }

    /// Asks the daemon for this.
    pub fn fetch(&mut self, fetch: Fetch) {
        self.fetches.push(fetch);
    }
}

/// What a view needs to draw itself.
pub struct DrawCx<'a> {
    pub theme: &'a Theme,
    /// The animation step of running spinners.
    pub tick: u64,
    pub tree: &'a TreeState,
    /// The key context under this view (the help lists it first).
    pub below: Context,
    /// The whole screen (the body area is what [`Overlay::render`] gets).
    pub screen: Rect,
}

/// News from the daemon a view may want to read again on.
#[derive(Debug, Clone, Copy)]
pub enum News<'a> {
    /// The connection is new: answers in flight were lost.
    Reconnected,
    /// A project's chats changed.
    ChatsChanged { project_slug: &'a str },
    /// A chat's turn started or ended.
    Active {
        project_slug: &'a str,
        session_id: &'a str,
        running: bool,
    },
    /// A chat's turn completed (its stream said so).
    TurnEnded { session_id: &'a str },
    /// The pending approvals changed.
    ApprovalsChanged,
    /// A commit or a push was done (here, or through another client).
    GitChanged,
    /// A project's triggers changed (here, through another client, or by an agent).
    TriggersChanged { project_slug: &'a str },
    /// What a project's chats read and wrote was recorded (a turn's steps, after it ended).
    FilesRecorded { project_slug: &'a str },
}

/// A view over the panes. See the module docs.
pub trait Overlay: Any + std::fmt::Debug {
    /// Where it goes in the stack.
    fn layer(&self) -> Layer;

    /// The key context while it has the keyboard.
    fn context(&self) -> Context;

    /// A key while it has the keyboard. By default: the key's command in
    /// [`Overlay::context`], to [`Overlay::on_command`].
    fn on_key(&mut self, key: KeyEvent, cx: &mut Cx<'_>) -> Reaction {
        match keys::command_for(self.context(), &key) {
            Some(command) => self.on_command(command, cx),
            None => Reaction::Handled,
        }
    }

    /// A command while it has the keyboard.
    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction;

    /// A bracketed paste while it has the keyboard: whether it took it.
    fn paste(&mut self, _text: &str) -> bool {
        false
    }

    /// Draws it over `area` (the body between the header and the status line).
    fn render(&mut self, frame: &mut Frame<'_>, area: Rect, cx: &DrawCx<'_>);

    /// Whether it is drawn over the whole screen, the status line included, after it.
    fn over_screen(&self) -> bool {
        false
    }

    /// The status line's key hints while it has the keyboard.
    fn hints(&self) -> Vec<(&'static str, &'static str)>;

    /// Whether it closes when a chat is shown from a view (Enter on a search hit...).
    fn over_panes(&self) -> bool {
        true
    }

    /// Whether it is kept when closed, to come back as it was when opened again.
    fn kept_when_closed(&self) -> bool {
        false
    }

    /// An answer from the daemon: whether it was for this view (asked with `fetch`).
    fn on_reply(&mut self, _fetch: &Fetch, _answer: &Answer, _cx: &mut Cx<'_>) -> bool {
        false
    }

    /// The typed answer to a command: whether this view asked for it.
    fn on_done(&mut self, _done: &Done, _cx: &mut Cx<'_>) -> bool {
        false
    }

    /// News: what to read again (through `cx`).
    fn on_news(&self, _news: News<'_>, _cx: &mut Cx<'_>) {}
}

/// The open views, lowest layer first.
#[derive(Debug, Default)]
pub struct Overlays {
    views: Vec<Box<dyn Overlay>>,
    /// Views closed that come back as they were ([`Overlay::kept_when_closed`]).
    kept: Vec<Box<dyn Overlay>>,
}

impl Overlays {
    /// Opens a view at its layer (replacing the one open there).
    pub fn push(&mut self, view: Box<dyn Overlay>) {
        let layer = view.layer();
        self.views.retain(|v| v.layer() != layer);
        let at = self.views.partition_point(|v| v.layer() < layer);
        self.views.insert(at, view);
    }

    pub fn is_empty(&self) -> bool {
        self.views.is_empty()
    }

    /// The view with the keyboard.
    pub fn top(&self) -> Option<&dyn Overlay> {
        self.views.last().map(AsRef::as_ref)
    }

    pub fn top_mut(&mut self) -> Option<&mut (dyn Overlay + 'static)> {
        self.views.last_mut().map(AsMut::as_mut)
    }

    /// The view under the top one.
    pub fn below_top(&self) -> Option<&dyn Overlay> {
        self.views.iter().rev().nth(1).map(AsRef::as_ref)
    }

    /// The topmost view drawn in the body (not over the whole screen).
    pub fn body_mut(&mut self) -> Option<&mut (dyn Overlay + 'static)> {
        self.views
            .iter_mut()
            .rev()
            .find(|v| !v.over_screen())
            .map(AsMut::as_mut)
    }

    /// Every open view, lowest first.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Overlay> {
        self.views.iter().map(AsRef::as_ref)
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut (dyn Overlay + 'static)> {
        self.views.iter_mut().map(AsMut::as_mut)
    }

    /// The open views and the kept closed ones, topmost first (answers go to the first that
    /// takes them).
    pub fn all_mut(&mut self) -> impl Iterator<Item = &mut (dyn Overlay + 'static)> {
        self.views
            .iter_mut()
            .rev()
            .chain(self.kept.iter_mut())
            .map(AsMut::as_mut)
    }

    /// The open view of this type.
    pub fn get<T: Overlay>(&self) -> Option<&T> {
        self.views
            .iter()
            .find_map(|v| (v.as_ref() as &dyn Any).downcast_ref::<T>())
    }

    pub fn get_mut<T: Overlay>(&mut self) -> Option<&mut T> {
        self.views
            .iter_mut()
            .find_map(|v| (v.as_mut() as &mut dyn Any).downcast_mut::<T>())
    }

    /// Whether a view of this type is open.
    pub fn has<T: Overlay>(&self) -> bool {
        self.get::<T>().is_some()
    }

    /// Closes the view of this type; whether one was open.
    pub fn close<T: Overlay>(&mut self) -> bool {
        let Some(at) = self
            .views
            .iter()
            .position(|v| (v.as_ref() as &dyn Any).is::<T>())
        else {
            return false;
        };
        let view = self.views.remove(at);
        self.keep(view);
        true
    }

    /// Closes the top view.
    pub fn pop(&mut self) {
        if let Some(view) = self.views.pop() {
            self.keep(view);
        }
    }

    /// Closes the views over the panes (a chat is shown from a view).
    pub fn close_over_panes(&mut self) {
        let (closed, open) = std::mem::take(&mut self.views)
            .into_iter()
            .partition(|v| v.over_panes());
        self.views = open;
        for view in closed {
            self.keep(view);
        }
    }

    fn keep(&mut self, view: Box<dyn Overlay>) {
        if view.kept_when_closed() {
            let layer = view.layer();
            self.kept.retain(|v| v.layer() != layer);
            self.kept.push(view);
        }
    }

    /// The closed view of this type kept to come back, taken out.
    pub fn take_kept<T: Overlay>(&mut self) -> Option<T> {
        let at = self
            .kept
            .iter()
            .position(|v| (v.as_ref() as &dyn Any).is::<T>())?;
        let view: Box<dyn Any> = self.kept.remove(at);
        view.downcast::<T>().ok().map(|view| *view)
    }

    /// The kept closed view of this type.
    pub fn kept<T: Overlay>(&self) -> Option<&T> {
        self.kept
            .iter()
            .find_map(|v| (v.as_ref() as &dyn Any).downcast_ref::<T>())
    }
}
