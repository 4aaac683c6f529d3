//! The TUI (plain `paddock`): projects and their chats in tree order, live.
//!
//! [`app::App`] is the state and [`render::render`] draws it; this module is the event loop
//! that feeds the state from the keyboard, the daemon's pushed events and the answers of
//! requests it runs in background tasks. It never draws per event: changes mark the screen
//! dirty, and a dirty screen is drawn at most every [`FRAME`] once pending input is drained.

pub mod app;
pub mod chat;
pub mod chat_view;
pub mod composer;
pub mod help;
pub mod history;
pub mod keys;
pub mod render;
pub mod theme;
pub mod tree;
pub mod tree_view;

use std::collections::HashSet;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use futures_util::StreamExt;
use paddock_proto::{ChatList, ChatScope, Reply, Request};
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{Event as InputEvent, EventStream};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::client::{Client, Event, Events, connect_or_start};
use crate::commands::Context;
use app::{Action, App};

/// The shortest time between two draws (about 60 frames a second).
const FRAME: Duration = Duration::from_millis(16);
/// The first wait before reconnecting after the daemon went away; doubled per failure.
const RETRY_FIRST: Duration = Duration::from_millis(250);
/// The longest wait between two reconnection attempts.
const RETRY_MAX: Duration = Duration::from_secs(8);

pub async fn run(ctx: Context) -> anyhow::Result<()> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        bail!("the TUI needs a terminal; `paddock --help` lists the commands for scripts");
    }
    // Installs a panic hook that restores the terminal before the panic message prints.
    let mut terminal = match ratatui::try_init() {
        Ok(terminal) => terminal,
        Err(e) => {
            ratatui::restore();
            return Err(e).context("cannot take over the terminal");
        }
    };
    let result = EventLoop::new(ctx).run(&mut terminal).await;
    ratatui::restore();
    result
}

/// A request the list needs answered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Fetch {
    Projects,
    AllChats,
    Chats(String),
}

impl Fetch {
    fn request(&self) -> Request {
        match self {
            Fetch::Projects => Request::ProjectList,
            Fetch::AllChats => Request::ChatList(ChatList {
                project_slug: None,
                scope: ChatScope::Active,
            }),
            Fetch::Chats(slug) => Request::ChatList(ChatList {
                project_slug: Some(slug.clone()),
                scope: ChatScope::Active,
            }),
        }
    }
}

/// Results of background tasks. `generation` tells answers on a previous connection apart.
enum Msg {
    Connected {
        generation: u64,
        result: Result<Client, String>,
    },
    Fetched {
        generation: u64,
        fetch: Fetch,
        result: Result<Reply, String>,
    },
}

struct EventLoop {
    ctx: Context,
    app: App,
    client: Option<Arc<Client>>,
    events: Option<Events>,
    generation: u64,
    msgs_tx: mpsc::Sender<Msg>,
    msgs_rx: mpsc::Receiver<Msg>,
    /// At most one request per [`Fetch`] in flight; news meanwhile marks it to run again once
    /// the answer is in, so a burst of `chats:changed` costs two requests, not one per event.
    in_flight: HashSet<Fetch>,
    again: HashSet<Fetch>,
    /// When to try connecting again, and the wait after that one fails.
    retry: Option<Instant>,
    backoff: Duration,
}

impl EventLoop {
    fn new(ctx: Context) -> Self {
        // Background tasks are few (one per fetch kind in flight), so this never fills up.
        let (msgs_tx, msgs_rx) = mpsc::channel(64);
        Self {
            ctx,
            app: App::new(),
            client: None,
            events: None,
            generation: 0,
            msgs_tx,
            msgs_rx,
            in_flight: HashSet::new(),
            again: HashSet::new(),
            retry: None,
            backoff: RETRY_FIRST,
        }
    }

    /// Schedules the next connection attempt, backing off while the daemon stays away.
    fn retry_later(&mut self) {
        self.retry = Some(Instant::now() + self.backoff);
        self.backoff = (self.backoff * 2).min(RETRY_MAX);
    }

    async fn run(mut self, terminal: &mut DefaultTerminal) -> anyhow::Result<()> {
        let mut input = EventStream::new();
        self.connect();
        let mut dirty = true;
        let mut last_draw: Option<Instant> = None;
        loop {
            let draw_at = last_draw.map_or_else(Instant::now, |at| at + FRAME);
            // `biased`: input and news are drained before a draw is considered.
            tokio::select! {
                biased;
                ev = input.next() => match ev {
                    Some(Ok(ev)) => {
                        if self.on_input(&ev) == Some(Action::Quit) {
                            return Ok(());
                        }
                        dirty = true;
                    }
                    Some(Err(e)) => return Err(e).context("cannot read the terminal"),
                    None => return Ok(()),
                },
                Some(msg) = self.msgs_rx.recv() => {
                    self.on_msg(msg);
                    dirty = true;
                }
                ev = next_event(&mut self.events) => {
                    dirty |= self.on_event(ev);
                }
                () = sleep_until_opt(self.retry) => {
                    self.retry = None;
                    self.connect();
                    dirty = true;
                }
                () = tokio::time::sleep_until(draw_at), if dirty => {
                    let app = &mut self.app;
                    terminal
                        .draw(|frame| {
                            app.scroll_into_view(render::list_height(frame.area()));
                            render::render(app, frame);
                        })
                        .context("cannot draw on the terminal")?;
                    dirty = false;
                    last_draw = Some(Instant::now());
                }
            }
        }
    }

    fn on_input(&mut self, ev: &InputEvent) -> Option<Action> {
        let InputEvent::Key(key) = ev else {
            // Resizes and the rest only need a redraw.
            return None;
        };
        let action = self.app.on_key(*key);
        if action == Some(Action::Refresh) {
            self.app.notice = None;
            if self.client.is_some() {
                self.fetch(Fetch::Projects);
                self.fetch(Fetch::AllChats);
            } else {
                self.connect();
            }
        }
        action
    }

    /// Connects (starting the daemon if needed) in the background; the screen stays live.
    fn connect(&mut self) {
        self.retry = None;
        self.generation += 1;
        self.client = None;
        self.events = None;
        self.in_flight.clear();
        self.again.clear();
        self.app.connection = app::Connection::Connecting;
        let opts = self.ctx.start.clone();
        let tx = self.msgs_tx.clone();
        let generation = self.generation;
        tokio::spawn(async move {
            let result = connect_or_start(&opts).await.map_err(|e| e.to_string());
            let _ = tx.send(Msg::Connected { generation, result }).await;
        });
    }

    fn fetch(&mut self, fetch: Fetch) {
        let Some(client) = self.client.clone() else {
            return;
        };
        if self.in_flight.contains(&fetch) {
            self.again.insert(fetch);
            return;
        }
        self.in_flight.insert(fetch.clone());
        let tx = self.msgs_tx.clone();
        let generation = self.generation;
        tokio::spawn(async move {
            let result = client
                .request(fetch.request())
                .await
                .map_err(|e| e.to_string());
            let _ = tx
                .send(Msg::Fetched {
                    generation,
                    fetch,
                    result,
                })
                .await;
        });
    }

    fn on_msg(&mut self, msg: Msg) {
        match msg {
            Msg::Connected { generation, .. } | Msg::Fetched { generation, .. }
                if generation != self.generation => {}
            Msg::Connected { result, .. } => match result {
                Ok(mut client) => {
                    self.backoff = RETRY_FIRST;
                    self.events = client.take_events();
                    self.app.set_connected(client.daemon().clone());
                    self.client = Some(Arc::new(client));
                    self.fetch(Fetch::Projects);
                    self.fetch(Fetch::AllChats);
                }
                Err(reason) => {
                    self.app.set_unreachable(reason);
                    self.retry_later();
                }
            },
            Msg::Fetched { fetch, result, .. } => {
                self.in_flight.remove(&fetch);
                if self.again.remove(&fetch) {
                    self.fetch(fetch.clone());
                }
                match (fetch, result) {
                    (Fetch::Projects, Ok(Reply::Projects(p))) => self.app.set_projects(p.projects),
                    (Fetch::AllChats, Ok(Reply::Chats(c))) => self.app.set_all_chats(c.chats),
                    (Fetch::Chats(slug), Ok(Reply::Chats(c))) => {
                        self.app.set_project_chats(slug, c.chats);
                    }
                    (_, Ok(other)) => {
                        self.app.notice = Some(format!(
                            "paddockd answered a list request with {}",
                            crate::client::reply_kind(&other)
                        ));
                    }
                    (_, Err(reason)) => self.app.notice = Some(format!("reload failed: {reason}")),
                }
            }
        }
    }

    /// Applies a pushed event; whether the screen changed.
    fn on_event(&mut self, ev: Option<Event>) -> bool {
        match ev {
            None => {
                self.client = None;
                self.events = None;
                self.generation += 1;
                self.app.set_unreachable(
                    "Lost the connection to paddockd (it stopped or restarted); reconnecting."
                        .to_owned(),
                );
                self.retry_later();
                true
            }
            Some(Event::ChatsChanged(changed)) => {
                if !self.app.knows_project(&changed.project_slug) {
                    self.fetch(Fetch::Projects);
                }
                self.fetch(Fetch::Chats(changed.project_slug));
                false
            }
            Some(Event::Active(active)) => {
                if self.app.apply_active(&active) {
                    true
                } else {
                    self.fetch(Fetch::Chats(active.project_slug));
                    false
                }
            }
            // Events were lost: what is on screen may be stale.
            Some(Event::Lagged { .. }) => {
                self.fetch(Fetch::Projects);
                self.fetch(Fetch::AllChats);
                false
            }
            Some(Event::DaemonError(body)) => {
                self.app.notice = Some(body.message);
                true
            }
            // The list view subscribes to no chat stream.
            Some(Event::Frame(_) | Event::Resync(_) | Event::Undecodable(_)) => false,
        }
    }
}

/// Resolves at `at`; never when there is nothing scheduled.
async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The next pushed event; never resolves while there is no connection.
async fn next_event(events: &mut Option<Events>) -> Option<Event> {
    match events {
        Some(events) => events.recv().await,
        None => std::future::pending().await,
    }
}
