//! The TUI (plain `paddock`): the nested chat tree, the open chat streaming live, a composer,
//! History and the help overlay.
//!
//! [`app::App`] is the state and [`render::render`] draws it; this module is the event loop
//! that feeds the state from the keyboard, the daemon's pushed events (`news.rs`) and the
//! answers (`replies.rs`) of requests it runs in background tasks (`requests.rs`). It never
//! draws per event: changes mark the screen dirty, and a dirty screen is drawn at most every
//! [`FRAME`] once pending input is drained; a chat starting or stopping, and a turn's end, are
//! drawn as soon as input is drained (the pacing is for streamed text).
//!
//! The open chat: its transcript is read, then the chat is subscribed with `wantReplay`, so
//! a running (or just finished) turn is replayed from its `chat:user` frame; the chat view
//! drops the hydrated copy of that turn when the replay starts (matching the message id), so
//! no line shows twice or goes missing. `chat:resync` and a reconnect do the same again.

pub mod action;
pub mod app;
pub mod areas;
pub mod attach;
pub mod attachment_view;
pub mod blame_view;
pub mod browser_view;
pub mod changes;
pub mod chat;
pub mod chat_view;
pub mod composer;
pub mod doing;
pub mod fetch;
pub mod files_view;
pub mod help;
pub mod help_view;
pub mod history;
pub mod home_view;
pub mod hosts;
pub mod inbox;
pub mod keys;
mod news;
pub mod notice;
pub mod overlay;
pub mod prefs;
pub mod provenance_view;
pub mod render;
mod replies;
mod requests;
mod routing;
pub mod search_view;
mod status;
pub mod theme;
pub mod tree;
pub mod tree_view;
pub mod triggers_view;
pub mod typeahead;
pub mod usage_view;

use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context as _, bail};
use futures_util::StreamExt;
use paddock_proto::{ChatEvent, ChatSend, HubFrame, Sent};
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, Event as InputEvent, EventStream,
};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::client::{Client, Event};
use app::{Action, App};
use fetch::Fetch;
use hosts::{HostEvent, Links};

/// The shortest time between two draws (about 60 frames a second).
const FRAME: Duration = Duration::from_millis(16);
/// How often running spinners move.
const SPINNER: Duration = Duration::from_millis(120);
/// How often the header's low-disk warning is brought up to date.
const DISK_POLL: Duration = Duration::from_secs(60);

/// The TUI over these hosts (one: as a client of one daemon always was).
pub async fn run(hosts: crate::hosts::Hosts) -> anyhow::Result<()> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        bail!("the TUI needs a terminal; `paddock --help` lists the commands for scripts");
    }
    let (notify, bad_notify) = crate::notify::Mode::from_env();
    // Installs a panic hook that restores the terminal before the panic message prints.
    let mut terminal = match ratatui::try_init() {
        Ok(terminal) => terminal,
        Err(e) => {
            ratatui::restore();
            return Err(e).context("cannot take over the terminal");
        }
    };
    let _ = ratatui::crossterm::execute!(std::io::stdout(), EnableBracketedPaste);
    let mut event_loop = EventLoop::new(Links::new(hosts));
    event_loop.restore_prefs();
    event_loop.notify = notify;
    if let Some(bad) = bad_notify {
        event_loop.app.notice.error(bad);
    }
    let result = event_loop.run(&mut terminal).await;
    let _ = ratatui::crossterm::execute!(std::io::stdout(), DisableBracketedPaste);
    ratatui::restore();
    result
}

/// Results of background tasks. `generation` tells answers on a previous connection apart:
/// the host's own (`Connected`, `Done`, `SendDone`: its connection's), or the loop's for a
/// read (which any new connection moves on: everything is read again then).
enum Msg {
    Connected {
        host: usize,
        generation: u64,
        result: Result<Client, String>,
    },
    Fetched {
        generation: u64,
        fetch: Fetch,
        /// The `since` a `chat:list` was asked with.
        since: Option<u64>,
        answer: fetch::Answer,
        /// A read of everything: the hosts that did not answer (what the tree holds of them
        /// is kept).
        missing: Vec<String>,
    },
    /// The answer to a command the user gave (archive, cancel...); `what` it does, for
    /// "… failed".
    Done {
        host: usize,
        generation: u64,
        what: &'static str,
        done: doing::Done,
    },
    /// The answer to a message sent: the message is held until it comes (on any
    /// connection: a refused or lost one goes back into its draft).
    SendDone {
        host: usize,
        generation: u64,
        project_slug: String,
        session_id: Option<String>,
        result: Result<Sent, String>,
    },
    /// The viewer's attachment was saved to a file (what was done), or not.
    Saved(Result<String, String>),
    /// The client state was written (or not).
    PrefsSaved(Result<(), String>),
}

/// The `chat:send` a [`Action::Send`] asks for: its files by absolute path for a daemon on
/// this machine, by their bytes (base64) for one reached with `--remote`. A file that cannot
/// be read now is said (and nothing is sent). `None` for any other action.
pub fn chat_send(action: &Action, remote: bool) -> Option<Result<ChatSend, String>> {
    let Action::Send {
        project_slug,
        session_id,
        text,
        model,
        attachments,
        preload,
        worktree,
    } = action
    else {
        return None;
    };
    Some(
        crate::attachments::uploads(remote, attachments).map(|attachments| ChatSend {
            project_slug: project_slug.clone(),
            session_id: session_id.clone(),
            message: text.clone(),
            model: model.clone(),
            preload_context: *preload,
            attachments,
            isolation: worktree.map(|on| {
                if on {
                    paddock_proto::Isolation::Worktree {
                        branch: None,
                        base: None,
                    }
                } else {
                    paddock_proto::Isolation::None
                }
            }),
        }),
    )
}

struct EventLoop {
    app: App,
    /// Every host, each with its connection and its state.
    links: Links,
    /// Every connection's events (see [`hosts::EVENTS_QUEUE`] for the overflow policy).
    events_tx: mpsc::Sender<HostEvent>,
    events_rx: mpsc::Receiver<HostEvent>,
    /// Moves on at each new connection: answers asked before it are dropped (everything is
    /// read again).
    generation: u64,
    msgs_tx: mpsc::Sender<Msg>,
    msgs_rx: mpsc::Receiver<Msg>,
    /// At most one request per [`Fetch`] in flight; news meanwhile marks it to run again once
    /// the answer is in, so a burst of `chats:changed` costs two requests, not one per event.
    in_flight: HashSet<Fetch>,
    again: HashSet<Fetch>,
    /// Chats the connections follow.
    subscribed: HashSet<String>,
    /// How chats that need the user are announced to the terminal (`PADDOCK_NOTIFY`).
    notify: crate::notify::Mode,
    notified: crate::notify::Seen,
    /// Notification bytes to write to the terminal between two draws.
    ring: Vec<u8>,
    /// The client state file (`None`: no home to keep it in) and this daemon's key in it.
    prefs_path: Option<PathBuf>,
    prefs_key: String,
    /// When the next write of the client state is due.
    prefs_timer: prefs::SaveTimer,
    /// The revision of the client state last handed to a write.
    prefs_saved: u64,
    /// The last background write failed: quitting tries again.
    prefs_failed: bool,
    /// The revision last on disk: writes run in the background, an older one never lands
    /// after a newer one.
    prefs_written: Arc<Mutex<u64>>,
    /// Said once the daemon answers (connecting clears the status line): a state file that
    /// could not be read.
    startup_notice: Option<String>,
}

impl EventLoop {
    fn new(links: Links) -> Self {
        // Background tasks are few (one per fetch kind in flight), so this never fills up.
        let (msgs_tx, msgs_rx) = mpsc::channel(64);
        let (events_tx, events_rx) = mpsc::channel(hosts::EVENTS_QUEUE);
        let prefs_key = links
            .list
            .iter()
            .map(|l| prefs::target_key(&l.ctx))
            .collect::<Vec<_>>()
            .join(" + ");
        Self {
            app: App::new(),
            links,
            events_tx,
            events_rx,
            generation: 0,
            msgs_tx,
            msgs_rx,
            in_flight: HashSet::new(),
            again: HashSet::new(),
            subscribed: HashSet::new(),
            notify: crate::notify::Mode::Osc9,
            notified: crate::notify::Seen::default(),
            ring: Vec::new(),
            prefs_path: None,
            prefs_key,
            prefs_timer: prefs::SaveTimer::default(),
            prefs_saved: 0,
            prefs_failed: false,
            prefs_written: Arc::new(Mutex::new(0)),
            startup_notice: None,
        }
    }

    /// Reads the client state ([`prefs`]) and takes it up: the theme, folds, drafts, the last
    /// view. A file that cannot be read is said once connected, never fatal.
    fn restore_prefs(&mut self) {
        self.prefs_path = prefs::default_path();
        let Some(path) = &self.prefs_path else {
            return;
        };
        let loaded = prefs::load(path);
        let target = prefs::target_of(&loaded.file, &self.prefs_key);
        self.app.theme = theme::Theme::detect_with(loaded.file.theme);
        self.app
            .restore(prefs::Prefs::new(target, loaded.file.theme));
        self.prefs_saved = self.app.prefs.revision();
        // Shown now (the screen says it while connecting) and again once connected, which
        // clears the status line.
        if let Some(notice) = &loaded.notice {
            self.app.notice.error(notice.clone());
        }
        self.startup_notice = loaded.notice;
    }

    /// After input or news: a change to the client state schedules a write.
    fn prefs_changed(&mut self) {
        self.app.sync_prefs();
        if self.app.prefs.revision() != self.prefs_saved {
            self.prefs_timer.changed(Instant::now().into_std());
        }
    }

    /// Writes the client state: in the background while running, at once (`wait`) on quit.
    fn save_prefs(&mut self, wait: bool) {
        self.prefs_timer.clear();
        let Some(path) = self.prefs_path.clone() else {
            return;
        };
        let revision = self.app.prefs.revision();
        self.prefs_saved = revision;
        let key = self.prefs_key.clone();
        let target = self.app.prefs.to_write(prefs::unix_now());
        let theme = self.app.prefs.chosen_theme();
        let written = Arc::clone(&self.prefs_written);
        let write = move || -> Result<(), String> {
            let mut last = written.lock().map_err(|_| "a write failed".to_owned())?;
            if *last > revision {
                return Ok(());
            }
            prefs::save(&path, &key, &target, theme)
                .map_err(|e| format!("cannot save the TUI state {}: {e}", path.display()))?;
            *last = revision;
            Ok(())
        };
        if wait {
            if let Err(e) = write() {
                eprintln!("paddock: {}", crate::format::visible(&e));
            }
            return;
        }
        let tx = self.msgs_tx.clone();
        tokio::task::spawn_blocking(move || {
            let result = write();
            let _ = tx.blocking_send(Msg::PrefsSaved(result));
        });
    }

    async fn run(mut self, terminal: &mut DefaultTerminal) -> anyhow::Result<()> {
        let result = self.run_loop(terminal).await;
        // Whatever ended the loop, the drafts typed last are kept.
        self.app.sync_prefs();
        if self.app.prefs.revision() != self.prefs_saved || self.prefs_failed {
            self.save_prefs(true);
        }
        result
    }

    async fn run_loop(&mut self, terminal: &mut DefaultTerminal) -> anyhow::Result<()> {
        let mut input = EventStream::new();
        let mut spinner = tokio::time::interval(SPINNER);
        spinner.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        // Free space changes without any event: the header's disk warning is checked now and then.
        let mut disk_poll = tokio::time::interval(DISK_POLL);
        disk_poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        self.connect_all();
        let mut dirty = true;
        let mut last_draw: Option<Instant> = None;
        loop {
            let draw_at = last_draw.map_or_else(Instant::now, |at| at + FRAME);
            // `biased`: input and news are drained before a draw is considered.
            tokio::select! {
                biased;
                ev = input.next() => match ev {
                    Some(Ok(ev)) => {
                        if self.on_terminal_input(&ev) {
                            return Ok(());
                        }
                        dirty = true;
                    }
                    Some(Err(e)) => return Err(e).context("cannot read the terminal"),
                    None => return Ok(()),
                },
                Some(msg) = self.msgs_rx.recv() => {
                    dirty |= self.on_msg(msg);
                    if self.replay_typed_ahead() {
                        return Ok(());
                    }
                    self.prefs_changed();
                }
                () = sleep_until_opt(self.prefs_timer.due().map(Instant::from_std)) => {
                    self.save_prefs(false);
                }
                Some(ev) = self.events_rx.recv() => {
                    // A chat that starts or stops running, or a turn's end, is drawn at once:
                    // the frame's pacing is for streamed text.
                    let at_once = matches!(
                        &ev.event,
                        Some(Event::Active(_))
                            | Some(Event::Frame(HubFrame { event: ChatEvent::Complete(_), .. }))
                    );
                    let changed = self.on_host_event(ev);
                    dirty |= changed;
                    if changed && at_once {
                        last_draw = None;
                    }
                    self.write_notifications();
                }
                _ = disk_poll.tick(), if self.links.any_up() => {
                    self.fetch(Fetch::Status);
                }
                _ = spinner.tick(), if self.animating() => {
                    self.app.tick = self.app.tick.wrapping_add(1);
                    dirty = true;
                }
                () = sleep_until_opt(self.links.next_retry()) => {
                    self.retry_due();
                    dirty = true;
                }
                // Information on the status line goes by itself after a while.
                () = sleep_until_opt(self.app.notice.expires_at().map(Instant::from_std)) => {
                    self.app.notice.expire(std::time::Instant::now());
                    dirty = true;
                }
                () = tokio::time::sleep_until(draw_at), if dirty => {
                    self.draw(terminal)?;
                    dirty = false;
                    last_draw = Some(Instant::now());
                }
            }
        }
    }

    /// Acts on the keys typed before the screen could take them, once it can; true when one
    /// quits.
    fn replay_typed_ahead(&mut self) -> bool {
        for key in self.app.typed_ahead() {
            if self.on_terminal_input(&InputEvent::Key(key)) {
                return true;
            }
        }
        false
    }

    /// Acts on a key, a paste or a resize, and on the archived groups it opened; true when it
    /// quits.
    fn on_terminal_input(&mut self, ev: &InputEvent) -> bool {
        if let Some(action) = self.on_input(ev) {
            if action == Action::Quit {
                return true;
            }
            self.perform(action);
        }
        // A group opened by a key that also asked for something else.
        let asked = self.app.tree.take_archive_requests();
        if !asked.is_empty() {
            self.perform(Action::LoadArchived(asked));
        }
        self.prefs_changed();
        false
    }

    /// Writes the notification bytes gathered since the last time to the terminal.
    fn write_notifications(&mut self) {
        if !self.ring.is_empty() {
            let ring = std::mem::take(&mut self.ring);
            let mut out = std::io::stdout();
            // A terminal that cannot take it now still gets the redraw.
            let _ = std::io::Write::write_all(&mut out, &ring)
                .and_then(|()| std::io::Write::flush(&mut out));
        }
    }

    /// The scheduled attempts that are due: each host watched for again if its daemon was
    /// stopped, else connected.
    fn retry_due(&mut self) {
        let now = Instant::now();
        for host in 0..self.links.list.len() {
            let link = &mut self.links.list[host];
            if link.retry.is_none_or(|at| at > now) {
                continue;
            }
            link.retry = None;
            if matches!(link.state, app::Connection::Stopped(_)) {
                self.watch(host);
            } else {
                self.connect(host);
            }
        }
    }

    /// Draws a frame, the list scrolled first so its cursor is on screen.
    fn draw(&mut self, terminal: &mut DefaultTerminal) -> anyhow::Result<()> {
        let app = &mut self.app;
        terminal
            .draw(|frame| {
                app.scroll_into_view(render::list_height(frame.area()));
                render::render(app, frame);
            })
            .context("cannot draw on the terminal")?;
        Ok(())
    }

    fn on_input(&mut self, ev: &InputEvent) -> Option<Action> {
        match ev {
            InputEvent::Key(key) => self.app.on_key(*key),
            InputEvent::Paste(text) => {
                self.app.on_paste(text);
                None
            }
            // Resizes and the rest only need a redraw.
            _ => None,
        }
    }

    /// Whether something on screen animates (a spinner).
    fn animating(&self) -> bool {
        self.app.running_count() > 0 || self.app.chat.as_ref().is_some_and(|c| c.running())
    }
}

/// Resolves at `at`; never when there is nothing scheduled.
async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
