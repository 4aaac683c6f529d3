//! The TUI (plain `paddock`): the nested chat tree, the open chat streaming live, a composer,
//! History and the help overlay.
//!
//! [`app::App`] is the state and [`render::render`] draws it; this module is the event loop
//! that feeds the state from the keyboard, the daemon's pushed events and the answers of
//! requests it runs in background tasks. It never draws per event: changes mark the screen
//! dirty, and a dirty screen is drawn at most every [`FRAME`] once pending input is drained.
//!
//! The open chat: its transcript is read, then the chat is subscribed with `wantReplay`, so
//! a running (or just finished) turn is replayed from its `chat:user` frame; the chat view
//! drops the hydrated copy of that turn when the replay starts (matching the message id), so
//! no line shows twice or goes missing. `chat:resync` and a reconnect do the same again.

pub mod app;
pub mod attach;
pub mod attachment_view;
pub mod blame_view;
pub mod browser_view;
pub mod changes;
pub mod chat;
pub mod chat_view;
pub mod composer;
pub mod files_view;
pub mod help;
pub mod history;
pub mod home_view;
pub mod inbox;
pub mod keys;
pub mod prefs;
pub mod provenance_view;
pub mod render;
pub mod search_view;
pub mod theme;
pub mod tree;
pub mod tree_view;
pub mod triggers_view;
pub mod usage_view;

use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context as _, bail};
use futures_util::StreamExt;
use paddock_proto::{
    ChatCancel, ChatEvent, ChatList, ChatScope, ChatSend, ChatSubscribe, ChatUpdate, Reply,
    Request, SessionRef,
};
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, Event as InputEvent, EventStream,
};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::client::{Client, Event, Events};
use crate::commands::Context;
use app::{Action, App};

/// The shortest time between two draws (about 60 frames a second).
const FRAME: Duration = Duration::from_millis(16);
/// How often running spinners move.
const SPINNER: Duration = Duration::from_millis(120);
/// How often the header's low-disk warning is brought up to date.
const DISK_POLL: Duration = Duration::from_secs(60);
/// The first wait before reconnecting after the daemon went away; doubled per failure.
const RETRY_FIRST: Duration = Duration::from_millis(250);
/// The longest wait between two reconnection attempts.
const RETRY_MAX: Duration = Duration::from_secs(8);

pub async fn run(ctx: Context) -> anyhow::Result<()> {
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
    let mut event_loop = EventLoop::new(ctx);
    event_loop.restore_prefs();
    event_loop.notify = notify;
    if bad_notify.is_some() {
        event_loop.app.notice = bad_notify;
    }
    let result = event_loop.run(&mut terminal).await;
    let _ = ratatui::crossterm::execute!(std::io::stdout(), DisableBracketedPaste);
    ratatui::restore();
    result
}

/// A request the list needs answered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Fetch {
    Projects,
    AllChats,
    Chats(String),
    /// A project's archived chats (its "Archived" group in the tree): a plain full list.
    Archived(String),
    /// The open chat's transcript.
    Transcript(String),
    History,
    Approvals,
    /// The daemon's status, for the header's low-disk warning.
    Status,
    /// The Changes view's git status.
    GitStatus {
        project_slug: String,
        scope: changes::Scope,
    },
    /// The diff of one file of the Changes view's scope.
    GitDiff {
        project_slug: String,
        scope: changes::Scope,
        path: String,
    },
    /// The provenance panel's file.
    Provenance {
        project_slug: String,
        path: String,
    },
    /// The Files view's chat: what it read and wrote, per turn.
    Touched {
        project_slug: String,
        session_id: String,
    },
    /// The blame view's file.
    Blame {
        project_slug: String,
        path: String,
    },
    /// The file browser's directory.
    Listing {
        project_slug: String,
        path: String,
        hidden: bool,
    },
    /// The file browser's preview of the cursor's file.
    FileText {
        project_slug: String,
        path: String,
    },
    /// The search view's query.
    Search(search_view::Asked),
    /// The Usage view's chat list.
    Usage(usage_view::UsageScope),
    /// The Triggers view's list: a project's, or every project's.
    Triggers(Option<String>),
    /// A trigger's recent runs, for the Triggers view.
    TriggerRuns(triggers_view::TriggerId),
    /// A project's overview, for the Home view.
    Overview(String),
    /// A kept attachment, for the viewer.
    Attachment(String),
}

impl Fetch {
    fn request(&self) -> Request {
        match self {
            Fetch::Projects => Request::ProjectList,
            Fetch::AllChats => Request::ChatList(ChatList {
                project_slug: None,
                scope: ChatScope::Active,
                since: None,
            }),
            Fetch::Chats(slug) => Request::ChatList(ChatList {
                project_slug: Some(slug.clone()),
                scope: ChatScope::Active,
                since: None,
            }),
            Fetch::Archived(slug) => Request::ChatList(ChatList {
                project_slug: Some(slug.clone()),
                scope: ChatScope::Archived,
                since: None,
            }),
            Fetch::Transcript(sid) => Request::ChatTranscript(SessionRef {
                session_id: sid.clone(),
            }),
            Fetch::Approvals => Request::ApprovalList,
            Fetch::Status => Request::DaemonStatus,
            Fetch::GitStatus {
                project_slug,
                scope,
            } => Request::GitStatus(paddock_proto::GitStatusRequest {
                project_slug: project_slug.clone(),
                scope: scope.to_git(),
            }),
            Fetch::GitDiff {
                project_slug,
                scope,
                path,
            } => Request::GitDiff(paddock_proto::GitDiffRequest {
                project_slug: project_slug.clone(),
                scope: scope.to_git(),
                path: Some(path.clone()),
            }),
            Fetch::Provenance { project_slug, path } => {
                Request::ProvenanceFile(paddock_proto::ProvenanceFile {
                    project_slug: Some(project_slug.clone()),
                    path: path.clone(),
                })
            }
            Fetch::Touched {
                project_slug,
                session_id,
            } => Request::ProvenanceTouched(paddock_proto::ProvenanceTouched {
                project_slug: project_slug.clone(),
                session_id: session_id.clone(),
                job_id: None,
            }),
            Fetch::Blame { project_slug, path } => {
                Request::ProvenanceBlame(paddock_proto::ProvenanceFile {
                    project_slug: Some(project_slug.clone()),
                    path: path.clone(),
                })
            }
            Fetch::Listing {
                project_slug,
                path,
                hidden,
            } => Request::FilesList(paddock_proto::FilesList {
                project_slug: project_slug.clone(),
                path: path.clone(),
                hidden: *hidden,
                limit: None,
            }),
            Fetch::FileText { project_slug, path } => {
                Request::FilesRead(paddock_proto::FilesRead {
                    project_slug: project_slug.clone(),
                    path: path.clone(),
                    max_bytes: Some(browser_view::PREVIEW_BYTES),
                })
            }
            Fetch::Search(asked) => Request::Search(asked.request()),
            Fetch::Usage(scope) => Request::ChatList(usage_view::list_request(*scope)),
            Fetch::Triggers(project_slug) => Request::TriggerList(paddock_proto::TriggerList {
                project_slug: project_slug.clone(),
            }),
            Fetch::TriggerRuns(id) => Request::HistoryList(triggers_view::runs_request(id)),
            Fetch::Overview(slug) => {
                Request::ProjectOverviewRequest(paddock_proto::ProjectRef { slug: slug.clone() })
            }
            Fetch::Attachment(id) => Request::AttachmentGet(paddock_proto::AttachmentRef {
                attachment_id: id.clone(),
            }),
            Fetch::History => Request::HistoryList(paddock_proto::HistoryList {
                project_slug: None,
                unattended: false,
                limit: Some(history::FETCH_LIMIT),
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
        /// The `since` a `chat:list` was asked with.
        since: Option<u64>,
        result: Result<Reply, String>,
    },
    /// The answer to a command the user gave (send, archive, cancel...).
    Done {
        generation: u64,
        what: &'static str,
        result: Result<Reply, String>,
    },
    /// The answer to a message sent: the message is held until it comes (on any
    /// connection: a refused or lost one goes back into its draft).
    SendDone {
        generation: u64,
        project_slug: String,
        session_id: Option<String>,
        result: Result<Reply, String>,
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
        }),
    )
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
    /// Chats this connection follows.
    subscribed: HashSet<String>,
    /// The pid of the daemon last connected to: the same one after a dropped connection
    /// still has the running turn's frames, with the same seqs.
    daemon_pid: Option<u32>,
    /// When to try connecting again, and the wait after that one fails.
    retry: Option<Instant>,
    backoff: Duration,
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
    /// The daemon said it is stopping on purpose (`daemon:stopping`): when its connection
    /// ends, the TUI does not start another one by itself.
    stopping: Option<String>,
}

impl EventLoop {
    fn new(ctx: Context) -> Self {
        // Background tasks are few (one per fetch kind in flight), so this never fills up.
        let (msgs_tx, msgs_rx) = mpsc::channel(64);
        let prefs_key = prefs::target_key(&ctx);
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
            subscribed: HashSet::new(),
            daemon_pid: None,
            retry: None,
            backoff: RETRY_FIRST,
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
            stopping: None,
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
        self.app.notice.clone_from(&loaded.notice);
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
                eprintln!("paddock: {e}");
            }
            return;
        }
        let tx = self.msgs_tx.clone();
        tokio::task::spawn_blocking(move || {
            let result = write();
            let _ = tx.blocking_send(Msg::PrefsSaved(result));
        });
    }

    /// Schedules the next connection attempt, backing off while the daemon stays away.
    fn retry_later(&mut self) {
        self.retry = Some(Instant::now() + self.backoff);
        self.backoff = (self.backoff * 2).min(RETRY_MAX);
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
                        if let Some(action) = self.on_input(&ev) {
                            if action == Action::Quit {
                                return Ok(());
                            }
                            self.perform(action);
                        }
                        // A group opened by a key that also asked for something else.
                        let asked = self.app.tree.take_archive_requests();
                        if !asked.is_empty() {
                            self.perform(Action::LoadArchived(asked));
                        }
                        self.prefs_changed();
                        dirty = true;
                    }
                    Some(Err(e)) => return Err(e).context("cannot read the terminal"),
                    None => return Ok(()),
                },
                Some(msg) = self.msgs_rx.recv() => {
                    self.on_msg(msg);
                    self.prefs_changed();
                    dirty = true;
                }
                () = sleep_until_opt(self.prefs_timer.due().map(Instant::from_std)) => {
                    self.save_prefs(false);
                }
                ev = next_event(&mut self.events) => {
                    dirty |= self.on_event(ev);
                    if !self.ring.is_empty() {
                        let ring = std::mem::take(&mut self.ring);
                        let mut out = std::io::stdout();
                        // A terminal that cannot take it now still gets the redraw.
                        let _ = std::io::Write::write_all(&mut out, &ring)
                            .and_then(|()| std::io::Write::flush(&mut out));
                    }
                }
                _ = disk_poll.tick(), if self.client.is_some() => {
                    self.fetch(Fetch::Status);
                }
                _ = spinner.tick(), if self.animating() => {
                    self.app.tick = self.app.tick.wrapping_add(1);
                    dirty = true;
                }
                () = sleep_until_opt(self.retry) => {
                    self.retry = None;
                    if matches!(self.app.connection, app::Connection::Stopped(_)) {
                        self.watch();
                    } else {
                        self.connect();
                    }
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

    /// Carries out what a key asked for.
    fn perform(&mut self, action: Action) {
        match action {
            Action::Quit => {}
            Action::Refresh => {
                self.app.notice = None;
                if self.client.is_some() {
                    self.fetch(Fetch::Projects);
                    self.fetch(Fetch::AllChats);
                    self.refresh_archives();
                    self.reopen_chat();
                } else {
                    self.connect();
                }
            }
            Action::Open { session_id, .. } => {
                self.unsubscribe_others(&session_id);
                self.reopen_chat();
                self.command(
                    "mark read",
                    Request::ChatUpdate(ChatUpdate {
                        session_ids: vec![session_id],
                        action: paddock_proto::ChatAction::Read,
                    }),
                );
            }
            Action::Update {
                action,
                session_ids,
            } => self.command(
                "update",
                Request::ChatUpdate(ChatUpdate {
                    session_ids,
                    action,
                }),
            ),
            Action::Stop { session_ids } => {
                for session_id in session_ids {
                    self.command(
                        "cancel",
                        Request::ChatCancel(ChatCancel {
                            session_id,
                            job_id: None,
                        }),
                    );
                }
            }
            Action::Send { .. } => self.send(action),
            Action::LoadAttachment(id) => self.fetch(Fetch::Attachment(id)),
            Action::LoadArchived(slugs) => {
                for slug in slugs {
                    self.fetch(Fetch::Archived(slug));
                }
            }
            Action::Fork { session_id } => self.command(
                "fork",
                Request::ChatFork(paddock_proto::ChatFork {
                    session_id,
                    name: None,
                }),
            ),
            Action::Delete { session_ids } => self.command(
                "delete",
                Request::ChatDelete(paddock_proto::SessionIds { session_ids }),
            ),
            Action::SaveAttachment { path, bytes } => {
                let tx = self.msgs_tx.clone();
                tokio::task::spawn_blocking(move || {
                    let result = attachment_view::save(&path, &bytes);
                    let _ = tx.blocking_send(Msg::Saved(result));
                });
            }
            Action::Continue { session_id } => {
                self.command("continue", Request::ChatContinue(SessionRef { session_id }))
            }
            Action::SetQueue {
                session_id,
                message,
            } => self.command(
                "queue the follow-up",
                Request::ChatSetQueue(paddock_proto::ChatSetQueue {
                    session_id,
                    message,
                }),
            ),
            Action::LoadHistory => self.fetch(Fetch::History),
            Action::LoadApprovals => self.fetch(Fetch::Approvals),
            Action::Answer { ids, decision } => self.command(
                "answer",
                Request::ApprovalAnswer(paddock_proto::ApprovalAnswer {
                    ids,
                    decision,
                    message: None,
                }),
            ),
            Action::HistorySeen => self.command("history seen", Request::HistorySeen),
            Action::LoadChanges {
                project_slug,
                scope,
            } => self.fetch(Fetch::GitStatus {
                project_slug,
                scope,
            }),
            Action::LoadDiff {
                project_slug,
                scope,
                path,
            } => self.fetch(Fetch::GitDiff {
                project_slug,
                scope,
                path,
            }),
            Action::LoadProvenance { project_slug, path } => {
                self.fetch(Fetch::Provenance { project_slug, path });
            }
            Action::LoadTouched {
                project_slug,
                session_id,
            } => self.fetch(Fetch::Touched {
                project_slug,
                session_id,
            }),
            Action::LoadBlame { project_slug, path } => {
                self.fetch(Fetch::Blame { project_slug, path });
            }
            Action::LoadListing {
                project_slug,
                path,
                hidden,
            } => self.fetch(Fetch::Listing {
                project_slug,
                path,
                hidden,
            }),
            Action::LoadFileText { project_slug, path } => {
                self.fetch(Fetch::FileText { project_slug, path });
            }
            Action::Search(asked) => self.fetch(Fetch::Search(asked)),
            Action::LoadUsage(scope) => self.fetch(Fetch::Usage(scope)),
            Action::LoadTriggers(project) => self.fetch(Fetch::Triggers(project)),
            Action::LoadTriggerRuns(id) => self.fetch(Fetch::TriggerRuns(id)),
            Action::LoadOverview(slug) => self.fetch(Fetch::Overview(slug)),
            Action::Trigger(act, id) => {
                if let Some(request) = triggers_view::act_request(act, id) {
                    self.command(act.what(), request);
                }
            }
            Action::SaveTrigger(set) => {
                self.command(triggers_view::SAVE, triggers_view::save_request(*set));
            }
            Action::Commit {
                project_slug,
                scope,
                message,
            } => self.command(
                "commit",
                Request::GitCommit(paddock_proto::GitCommitRequest {
                    project_slug,
                    scope: scope.to_git(),
                    message,
                    paths: Vec::new(),
                }),
            ),
            Action::Push { project_slug } => self.push(project_slug),
        }
    }

    /// Sends a message, its files read off the loop (their bytes, under `--remote`); the
    /// answer comes back as [`Msg::SendDone`]. One that cannot go goes back into its draft.
    fn send(&mut self, action: Action) {
        let Action::Send {
            project_slug,
            session_id,
            ..
        } = &action
        else {
            return;
        };
        let (project_slug, session_id) = (project_slug.clone(), session_id.clone());
        let Some(client) = self.client.clone() else {
            self.app.send_answered(
                &project_slug,
                session_id.as_deref(),
                Err("not connected to paddockd".to_owned()),
            );
            return;
        };
        let remote = self.ctx.remote.is_some();
        let tx = self.msgs_tx.clone();
        let generation = self.generation;
        tokio::spawn(async move {
            let built = tokio::task::spawn_blocking(move || chat_send(&action, remote))
                .await
                .map_err(|e| format!("reading the attachments failed: {e}"));
            let result = match built {
                Ok(Some(Ok(send))) => client
                    .request(Request::ChatSend(send))
                    .await
                    .map_err(|e| e.to_string()),
                Ok(Some(Err(reason))) | Err(reason) => Err(reason),
                Ok(None) => return,
            };
            let _ = tx
                .send(Msg::SendDone {
                    generation,
                    project_slug,
                    session_id,
                    result,
                })
                .await;
        });
    }

    /// Reads the archived chats the tree follows again (open groups, and those with a count).
    fn refresh_archives(&mut self) {
        // Whatever was asked before is asked now.
        self.app.tree.take_archive_requests();
        for slug in self.app.tree.followed_archives() {
            self.fetch(Fetch::Archived(slug));
        }
    }

    /// After a reconnect: the viewer's file may have been lost with the connection.
    fn refresh_attachment(&mut self) {
        if let Some(id) = self
            .app
            .attachment
            .as_ref()
            .filter(|v| v.loading())
            .and_then(|v| v.current_id())
            .map(str::to_owned)
        {
            self.fetch(Fetch::Attachment(id));
        }
    }

    /// Reads the Changes view's status again (after a commit, or news about its project).
    fn refresh_changes(&mut self) {
        if let Some(changes) = &self.app.changes {
            let fetch = Fetch::GitStatus {
                project_slug: changes.project_slug().to_owned(),
                scope: changes.scope().clone(),
            };
            self.fetch(fetch);
        }
    }

    /// Reads the Files view's chat again (its turn ended, `r`, a reconnect).
    fn refresh_files(&mut self) {
        if let Some(files) = &self.app.files {
            let fetch = Fetch::Touched {
                project_slug: files.project_slug().to_owned(),
                session_id: files.session_id().to_owned(),
            };
            self.fetch(fetch);
        }
    }

    /// Whether the Files view is about this chat.
    fn files_follow(&self, session_id: &str) -> bool {
        self.app
            .files
            .as_ref()
            .is_some_and(|f| f.session_id() == session_id)
    }

    /// After a reconnect: the blame view's answer may have been lost with the connection.
    fn refresh_blame(&mut self) {
        if let Some(blame) = self.app.blame.as_ref().filter(|b| b.blame().is_none()) {
            let fetch = Fetch::Blame {
                project_slug: blame.project_slug().to_owned(),
                path: blame.path().to_owned(),
            };
            self.fetch(fetch);
        }
    }

    /// Reads the Triggers view's list (and the runs it shows) again: a reconnect, news about
    /// chats (a fire starts or continues one), an act answered.
    fn refresh_triggers(&mut self) {
        let Some(view) = &self.app.triggers else {
            return;
        };
        let (asked, runs) = (view.asked(), view.runs_of().cloned());
        self.fetch(Fetch::Triggers(asked));
        if let Some(id) = runs {
            self.fetch(Fetch::TriggerRuns(id));
        }
    }

    /// Reads the Home view's overview again (a reconnect, news about its project's chats).
    fn refresh_home(&mut self, project_slug: Option<&str>) {
        if let Some(slug) = self
            .app
            .home
            .as_ref()
            .map(|h| h.slug().to_owned())
            .filter(|slug| project_slug.is_none_or(|p| p == slug))
        {
            self.fetch(Fetch::Overview(slug));
        }
    }

    /// Reads the Usage view's list again (after a reconnect, or news about chats).
    fn refresh_usage(&mut self) {
        if let Some(scope) = self.app.usage.as_ref().map(usage_view::UsageView::asked) {
            self.fetch(Fetch::Usage(scope));
        }
    }

    /// After a reconnect: the search view's answer may have been lost with the connection.
    fn refresh_search(&mut self) {
        if let Some(asked) = self.app.search.as_ref().and_then(|s| s.pending()).cloned() {
            self.fetch(Fetch::Search(asked));
        }
    }

    /// An answer for a provenance panel (over Changes or Files), the Files view or the blame
    /// view; dropped when the view moved on.
    fn on_provenance_fetched(&mut self, fetch: Fetch, result: Result<Reply, String>) {
        let unexpected = |other: &Reply| {
            format!(
                "paddockd answered with {}",
                crate::client::reply_kind(other)
            )
        };
        match fetch {
            Fetch::Provenance { project_slug, path } => {
                let panels = [
                    self.app
                        .changes
                        .as_mut()
                        .and_then(|c| c.provenance.as_mut()),
                    self.app.files.as_mut().and_then(|f| f.provenance.as_mut()),
                    self.app
                        .browser
                        .as_mut()
                        .and_then(|b| b.provenance.as_mut()),
                ];
                for panel in panels
                    .into_iter()
                    .flatten()
                    .filter(|p| p.is_for(&project_slug, &path))
                {
                    match &result {
                        Ok(Reply::Provenance(p)) => panel.set(p.clone()),
                        Ok(other) => panel.set_error(unexpected(other)),
                        Err(reason) => panel.set_error(reason.clone()),
                    }
                }
            }
            Fetch::Touched {
                project_slug,
                session_id,
            } => {
                let Some(files) = self
                    .app
                    .files
                    .as_mut()
                    .filter(|f| f.is_for(&project_slug, &session_id))
                else {
                    return;
                };
                match result {
                    Ok(Reply::Touched(touched)) => files.set(touched),
                    Ok(other) => files.set_error(unexpected(&other)),
                    Err(reason) => files.set_error(reason),
                }
                self.app.match_prompts();
            }
            Fetch::Blame { project_slug, path } => {
                let Some(blame) = self
                    .app
                    .blame
                    .as_mut()
                    .filter(|b| b.is_for(&project_slug, &path))
                else {
                    return;
                };
                match result {
                    Ok(Reply::Blame(b)) => blame.set(b),
                    Ok(other) => blame.set_error(unexpected(&other)),
                    Err(reason) => blame.set_error(reason),
                }
            }
            _ => {}
        }
    }

    /// An answer for the file browser; dropped when the view moved on.
    fn on_browser_fetched(&mut self, fetch: Fetch, result: Result<Reply, String>) {
        let Some(view) = self.app.browser.as_mut() else {
            return;
        };
        let unexpected = |other: &Reply| {
            format!(
                "paddockd answered with {}",
                crate::client::reply_kind(other)
            )
        };
        match fetch {
            Fetch::Listing {
                project_slug,
                path,
                hidden,
            } if view.is_for(&project_slug, &path, hidden) => {
                match result {
                    Ok(Reply::FileListing(l)) => view.set(l),
                    Ok(other) => view.set_error(unexpected(&other)),
                    Err(reason) => view.set_error(reason),
                }
                if let Some(path) = view.want_preview() {
                    self.fetch(Fetch::FileText { project_slug, path });
                }
            }
            Fetch::FileText { project_slug, path } => {
                let answer = match result {
                    Ok(Reply::FileText(t)) => Ok(t),
                    Ok(other) => Err(unexpected(&other)),
                    Err(reason) => Err(reason),
                };
                view.set_preview(&project_slug, &path, answer);
            }
            _ => {}
        }
    }

    /// After a reconnect: the browser's listing may have been lost with the connection.
    fn refresh_browser(&mut self) {
        if let Some(view) = self.app.browser.as_ref().filter(|b| b.listing().is_none()) {
            let fetch = Fetch::Listing {
                project_slug: view.project_slug().to_owned(),
                path: view.dir().to_owned(),
                hidden: view.hidden(),
            };
            self.fetch(fetch);
        }
    }

    /// Reads the diff of the Changes view's cursor file when it is not shown yet.
    fn fetch_wanted_diff(&mut self) {
        let wanted = self.app.changes.as_ref().and_then(|c| {
            Some(Fetch::GitDiff {
                project_slug: c.project_slug().to_owned(),
                scope: c.scope().clone(),
                path: c.wanted_diff()?.to_owned(),
            })
        });
        if let Some(fetch) = wanted {
            self.fetch(fetch);
        }
    }

    /// An answer for the Changes view; dropped when the view moved on.
    fn on_changes_fetched(&mut self, fetch: Fetch, result: Result<Reply, String>) {
        let Some(changes) = self.app.changes.as_mut() else {
            return;
        };
        match fetch {
            Fetch::GitStatus {
                project_slug,
                scope,
            } if changes.is_for(&project_slug, &scope) => {
                match result {
                    Ok(Reply::GitStatus(status)) => changes.set_status(status),
                    Ok(other) => changes.set_error(format!(
                        "paddockd answered with {}",
                        crate::client::reply_kind(&other)
                    )),
                    Err(reason) => changes.set_error(reason),
                }
                self.fetch_wanted_diff();
            }
            Fetch::GitDiff {
                project_slug,
                scope,
                path,
            } if changes.is_for(&project_slug, &scope) => {
                let diff = match result {
                    Ok(Reply::GitDiff(diff)) => Ok(diff),
                    Ok(other) => Err(format!(
                        "paddockd answered with {}",
                        crate::client::reply_kind(&other)
                    )),
                    Err(reason) => Err(reason),
                };
                changes.set_diff(path, diff);
            }
            _ => {}
        }
    }

    /// After a reconnect: a running turn on the same daemon continues from the last frame seen
    /// (`wantReplay` with `lastSeq`: nothing read twice); anything else is read again from its
    /// transcript, then followed with replay.
    fn resume_chat(&mut self, same_daemon: bool) {
        let resume = self.app.chat.as_ref().and_then(|c| {
            let seq = c.last_seq()?;
            (same_daemon && c.running()).then(|| (c.session_id().to_owned(), seq))
        });
        match resume {
            Some((session_id, seq)) => {
                self.subscribed.insert(session_id.clone());
                self.command(
                    "follow the chat",
                    Request::ChatSubscribe(ChatSubscribe {
                        session_id,
                        want_replay: true,
                        last_seq: Some(seq),
                    }),
                );
            }
            None => self.reopen_chat(),
        }
    }

    /// Reads the open chat's transcript again; the subscription follows the answer.
    fn reopen_chat(&mut self) {
        if let Some(sid) = self.app.chat.as_ref().map(|c| c.session_id().to_owned()) {
            self.fetch(Fetch::Transcript(sid));
        }
    }

    /// Stops following chats other than `keep` (the daemon keeps streaming them otherwise).
    fn unsubscribe_others(&mut self, keep: &str) {
        let others: Vec<String> = self
            .subscribed
            .iter()
            .filter(|s| s.as_str() != keep)
            .cloned()
            .collect();
        for sid in others {
            self.subscribed.remove(&sid);
            self.command(
                "unsubscribe",
                Request::ChatUnsubscribe(SessionRef { session_id: sid }),
            );
        }
    }

    /// Runs a request in the background; its answer comes back as [`Msg::Done`].
    fn command(&mut self, what: &'static str, request: Request) {
        let Some(client) = self.client.clone() else {
            self.app.notice = Some(format!("cannot {what}: not connected to paddockd"));
            return;
        };
        let tx = self.msgs_tx.clone();
        let generation = self.generation;
        tokio::spawn(async move {
            let result = client.request(request).await.map_err(|e| e.to_string());
            let _ = tx
                .send(Msg::Done {
                    generation,
                    what,
                    result,
                })
                .await;
        });
    }

    /// `git:push`, given as long as the daemon lets git run; answered as a `push` [`Msg::Done`].
    fn push(&mut self, project_slug: String) {
        let Some(client) = self.client.clone() else {
            self.app.push_answered(Err("not connected to paddockd"));
            return;
        };
        let tx = self.msgs_tx.clone();
        let generation = self.generation;
        tokio::spawn(async move {
            let request = Request::GitPush(paddock_proto::GitPushRequest {
                project_slug,
                data_root: false,
            });
            let result = client
                .request_within(request, crate::client::Client::PUSH_TIMEOUT)
                .await
                .map_err(|e| e.to_string());
            let _ = tx
                .send(Msg::Done {
                    generation,
                    what: "push",
                    result,
                })
                .await;
        });
    }

    /// Connects (starting the daemon if needed) in the background; the screen stays live.
    fn connect(&mut self) {
        self.retry = None;
        self.stopping = None;
        self.generation += 1;
        self.client = None;
        self.events = None;
        self.in_flight.clear();
        self.again.clear();
        self.subscribed.clear();
        self.app.connection = app::Connection::Connecting;
        // Under --remote each attempt runs ssh afresh (the last one's child died with its client).
        let ctx = self.ctx.clone();
        let tx = self.msgs_tx.clone();
        let generation = self.generation;
        tokio::spawn(async move {
            let result = ctx.open().await.map_err(|e| e.to_string());
            let _ = tx.send(Msg::Connected { generation, result }).await;
        });
    }

    /// While the daemon is stopped on purpose: looks for one started by someone else (`paddock
    /// daemon start`, the second half of a restart) without ever starting one (under
    /// `--remote`, through `paddock proxy --no-start`).
    fn watch(&mut self) {
        self.retry = None;
        self.generation += 1;
        let ctx = self.ctx.clone();
        let tx = self.msgs_tx.clone();
        let generation = self.generation;
        tokio::spawn(async move {
            let result = ctx.open_existing().await.map_err(|e| e.to_string());
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
        // A project's list is asked for what changed since the revision held.
        let since = match &fetch {
            Fetch::Chats(slug) => self.app.tree.project_revision(slug),
            _ => None,
        };
        let request = match fetch.request() {
            Request::ChatList(list) => Request::ChatList(ChatList { since, ..list }),
            other => other,
        };
        tokio::spawn(async move {
            let result = client.request(request).await.map_err(|e| e.to_string());
            let _ = tx
                .send(Msg::Fetched {
                    generation,
                    fetch,
                    since,
                    result,
                })
                .await;
        });
    }

    fn on_msg(&mut self, msg: Msg) {
        match msg {
            Msg::Connected { generation, .. }
            | Msg::Fetched { generation, .. }
            | Msg::Done { generation, .. }
                if generation != self.generation => {}
            Msg::Done { what, result, .. } => self.on_done(what, result),
            Msg::SendDone {
                generation,
                project_slug,
                session_id,
                result,
            } => {
                let outcome = result.as_ref().map(|_| ()).map_err(Clone::clone);
                self.app
                    .send_answered(&project_slug, session_id.as_deref(), outcome);
                if generation == self.generation
                    && let Ok(reply) = result
                {
                    self.on_done("send", Ok(reply));
                }
            }
            Msg::Saved(result) => self.app.attachment_saved(result),
            Msg::PrefsSaved(result) => {
                self.prefs_failed = result.is_err();
                if let Err(reason) = result {
                    self.app.notice = Some(reason);
                }
            }
            Msg::Connected { result, .. } => match result {
                Ok(mut client) => {
                    self.backoff = RETRY_FIRST;
                    self.events = client.take_events();
                    let pid = client.daemon().pid;
                    let same_daemon = self.daemon_pid.replace(pid) == Some(pid);
                    self.app.set_connected(client.daemon().clone());
                    self.client = Some(Arc::new(client));
                    self.command("ask for notifications", Request::NotificationsSubscribe);
                    self.fetch(Fetch::Projects);
                    self.fetch(Fetch::AllChats);
                    self.fetch(Fetch::Status);
                    self.refresh_archives();
                    self.resume_chat(same_daemon);
                    if self.app.history.is_open() {
                        self.fetch(Fetch::History);
                    }
                    self.refresh_changes();
                    self.refresh_files();
                    self.refresh_blame();
                    self.refresh_browser();
                    self.refresh_search();
                    self.refresh_usage();
                    self.refresh_triggers();
                    self.refresh_home(None);
                    self.refresh_attachment();
                    if let Some(notice) = self.startup_notice.take() {
                        self.app.notice = Some(notice);
                    }
                }
                // Stopped on purpose: nobody started one yet; keep looking, quietly.
                Err(_) if matches!(self.app.connection, app::Connection::Stopped(_)) => {
                    self.retry_later();
                }
                Err(reason) => {
                    self.app.set_unreachable(reason);
                    self.retry_later();
                }
            },
            Msg::Fetched {
                fetch,
                since,
                result,
                ..
            } => {
                self.in_flight.remove(&fetch);
                let again = self.again.remove(&fetch);
                if let Fetch::Chats(slug) = fetch {
                    // Asked again only once the answer is in: the next `since` is its revision.
                    let refused = match result {
                        Ok(Reply::Chats(c)) => {
                            !self.app.set_project_listing(slug.clone(), c, since)
                        }
                        Ok(other) => {
                            self.app.notice = Some(format!(
                                "paddockd answered a list request with {}",
                                crate::client::reply_kind(&other)
                            ));
                            false
                        }
                        Err(reason) => {
                            // A project deleted meanwhile: the project list drops it.
                            self.app.notice = Some(if reason.contains("no project") {
                                format!("project {} is gone", crate::format::project_label(&slug))
                            } else {
                                format!("reload failed: {reason}")
                            });
                            self.fetch(Fetch::Projects);
                            false
                        }
                    };
                    if again || refused {
                        self.fetch(Fetch::Chats(slug));
                    }
                    return;
                }
                if again {
                    self.fetch(fetch.clone());
                }
                if let Fetch::Archived(slug) = fetch {
                    let result = match result {
                        Ok(Reply::Chats(c)) => Ok(c.chats),
                        Ok(other) => Err(format!(
                            "paddockd answered with {}",
                            crate::client::reply_kind(&other)
                        )),
                        Err(reason) => Err(reason),
                    };
                    self.app.set_archived_chats(slug, result);
                    return;
                }
                if matches!(fetch, Fetch::GitStatus { .. } | Fetch::GitDiff { .. }) {
                    self.on_changes_fetched(fetch, result);
                    return;
                }
                if matches!(fetch, Fetch::Listing { .. } | Fetch::FileText { .. }) {
                    self.on_browser_fetched(fetch, result);
                    return;
                }
                if matches!(
                    fetch,
                    Fetch::Provenance { .. } | Fetch::Touched { .. } | Fetch::Blame { .. }
                ) {
                    self.on_provenance_fetched(fetch, result);
                    return;
                }
                if let Fetch::Usage(scope) = &fetch {
                    let result = match result {
                        Ok(Reply::Chats(c)) => Ok(c.chats),
                        Ok(other) => Err(format!(
                            "paddockd answered with {}",
                            crate::client::reply_kind(&other)
                        )),
                        Err(reason) => Err(reason),
                    };
                    self.app.usage_answered(*scope, result);
                    return;
                }
                if let Fetch::Triggers(asked) = &fetch {
                    triggers_view::list_answered(&mut self.app, asked.as_deref(), result);
                    return;
                }
                if let Fetch::TriggerRuns(id) = &fetch {
                    triggers_view::runs_answered(&mut self.app, id, result);
                    return;
                }
                if let Fetch::Overview(slug) = &fetch {
                    let result = match result {
                        Ok(Reply::ProjectOverview(o)) => Ok(o),
                        Ok(other) => Err(format!(
                            "paddockd answered with {}",
                            crate::client::reply_kind(&other)
                        )),
                        Err(reason) => Err(reason),
                    };
                    if let Some(home) = self.app.home.as_mut() {
                        home.answer(slug, result);
                    }
                    return;
                }
                if let Fetch::Attachment(id) = &fetch {
                    let result = match result {
                        Ok(Reply::Attachment(got)) => Ok(got),
                        Ok(other) => Err(format!(
                            "paddockd answered with {}",
                            crate::client::reply_kind(&other)
                        )),
                        Err(reason) => Err(reason),
                    };
                    self.app.attachment_answered(id, result);
                    return;
                }
                if let Fetch::Search(asked) = &fetch {
                    let result = match result {
                        Ok(Reply::SearchResults(results)) => Ok(results),
                        Ok(other) => Err(format!(
                            "paddockd answered with {}",
                            crate::client::reply_kind(&other)
                        )),
                        Err(reason) => Err(reason),
                    };
                    self.app.search_answered(asked, result);
                    return;
                }
                match (fetch, result) {
                    (Fetch::Projects, Ok(Reply::Projects(p))) => self.app.set_projects(p.projects),
                    (Fetch::AllChats, Ok(Reply::Chats(c))) => self.app.set_all_chats(c.chats),
                    (Fetch::Transcript(sid), Ok(Reply::Transcript(t))) => self.hydrate(&sid, &t),
                    (Fetch::History, Ok(Reply::History(h))) => self.app.history.set(h),
                    (Fetch::Approvals, Ok(Reply::Approvals(a))) => {
                        self.app.set_approvals(a.approvals);
                    }
                    (Fetch::Status, Ok(Reply::Status(s))) => self.app.low_disk = s.low_disk,
                    // The header keeps what it knew; nothing to bother the user with.
                    (Fetch::Status, Err(_)) => {}
                    (Fetch::History, Err(reason)) => self.app.history.set_error(reason),
                    (Fetch::Transcript(_), Err(reason)) => {
                        self.app.notice = Some(format!("cannot read the chat: {reason}"));
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

    /// A chat needs the user: the terminal is told (unless that chat is open here) and the
    /// status line says why; each event once.
    fn on_attention(&mut self, a: &paddock_proto::Attention) -> bool {
        if !self.notified.first_time(a) {
            return false;
        }
        let open = self
            .app
            .chat
            .as_ref()
            .is_some_and(|c| c.session_id() == a.session_id);
        if open {
            return false;
        }
        let title = crate::format::clean_title(&a.title);
        self.ring.extend(crate::notify::sequence(
            self.notify,
            &title,
            &a.body,
            crate::notify::in_tmux(),
        ));
        self.app.notice = Some(format!("{title}: {}", a.body));
        if a.kind == paddock_proto::AttentionKind::Approval {
            self.fetch(Fetch::Approvals);
        }
        true
    }

    /// Applies a pushed event; whether the screen changed.
    fn on_event(&mut self, ev: Option<Event>) -> bool {
        match ev {
            None => {
                self.client = None;
                self.events = None;
                self.generation += 1;
                match self.stopping.take() {
                    // Stopped on purpose: starting another would undo `paddock daemon stop`
                    // (and lose the environment the next `daemon start` brings).
                    Some(message) => {
                        self.app.set_stopped(message);
                        self.backoff = RETRY_FIRST;
                    }
                    None => self.app.set_unreachable(
                        "Lost the connection to paddockd (it stopped or restarted); reconnecting."
                            .to_owned(),
                    ),
                }
                self.retry_later();
                true
            }
            Some(Event::Stopping(stopping)) => {
                self.stopping = Some(stopping.message);
                false
            }
            Some(Event::ChatsChanged(changed)) => {
                // A new project, or (no chat named: paddockd announces project changes so) a
                // project renamed, promoted or deleted: the project list is small, read it again.
                if !self.app.knows_project(&changed.project_slug) || changed.session_id.is_none() {
                    self.fetch(Fetch::Projects);
                }
                if self
                    .app
                    .changes
                    .as_ref()
                    .is_some_and(|c| c.project_slug() == changed.project_slug)
                {
                    self.refresh_changes();
                }
                if self.app.tree.follows_archive(&changed.project_slug) {
                    self.fetch(Fetch::Archived(changed.project_slug.clone()));
                }
                self.refresh_home(Some(&changed.project_slug));
                self.fetch(Fetch::Chats(changed.project_slug));
                self.refresh_usage();
                self.refresh_triggers();
                false
            }
            Some(Event::Active(active)) => {
                let open = self
                    .app
                    .chat
                    .as_ref()
                    .is_some_and(|c| c.session_id() == active.session_id);
                let known = self.app.apply_active(&active);
                self.refresh_home(Some(&active.project_slug));
                // A turn of the Files view's chat ended: it may have touched more files.
                if !active.running && self.files_follow(&active.session_id) {
                    self.refresh_files();
                }
                if !known {
                    self.fetch(Fetch::Chats(active.project_slug));
                }
                // A trigger's run started or ended: its last fire and status moved.
                self.refresh_triggers();
                // A turn's writes may have filled the disk (or freed it).
                if !active.running {
                    self.fetch(Fetch::Status);
                }
                known || open
            }
            // Events were lost: what is on screen may be stale.
            Some(Event::Lagged { .. }) => {
                self.fetch(Fetch::Projects);
                self.fetch(Fetch::AllChats);
                self.refresh_archives();
                false
            }
            Some(Event::DaemonError(body)) => {
                self.app.notice = Some(body.message);
                true
            }
            Some(Event::Attention(a)) => self.on_attention(&a),
            Some(Event::Frame(frame)) => {
                let sid = frame.routing.session_id.clone();
                let ended = matches!(frame.event, ChatEvent::Complete(_));
                // The daemon sent the queued follow-up: the composer's copy is gone.
                if matches!(frame.event, ChatEvent::QueuedFlushed(_))
                    && self
                        .app
                        .chat
                        .as_ref()
                        .is_some_and(|c| c.session_id() == sid)
                {
                    self.app.composer.set_queued(None);
                }
                if ended && self.files_follow(&sid) {
                    self.refresh_files();
                }
                let Some(chat) = self.app.chat.as_mut().filter(|c| c.session_id() == sid) else {
                    return false;
                };
                let changed = chat.apply(&frame);
                if ended {
                    chat.set_running(false);
                    self.app.composer.set_running(false);
                    self.command(
                        "mark read",
                        Request::ChatUpdate(ChatUpdate {
                            session_ids: vec![sid],
                            action: paddock_proto::ChatAction::Read,
                        }),
                    );
                }
                changed || ended
            }
            // The frames this view needed are gone: read the transcript, then follow again.
            Some(Event::Resync(resync)) => {
                if self
                    .app
                    .chat
                    .as_ref()
                    .is_some_and(|c| c.session_id() == resync.session_id)
                {
                    self.subscribed.remove(&resync.session_id);
                    self.reopen_chat();
                }
                false
            }
            Some(Event::ApprovalsChanged(changed)) => {
                self.app.pending_approvals = changed.pending;
                if self.app.approvals_open() {
                    self.fetch(Fetch::Approvals);
                }
                true
            }
            Some(Event::Undecodable(_)) => false,
        }
    }
}

impl EventLoop {
    /// The open chat's transcript arrived: show it, then follow the chat (replaying the running
    /// or just-finished turn, which replaces its hydrated copy).
    fn hydrate(&mut self, sid: &str, t: &paddock_proto::Transcript) {
        let Some(chat) = self.app.chat.as_mut().filter(|c| c.session_id() == sid) else {
            return;
        };
        chat.hydrate(t);
        chat.set_title(&t.chat.title);
        if matches!(self.app.composer.target(),
            composer::Target::Reply { session_id, .. } if session_id == sid)
        {
            self.app.composer.set_target(composer::Target::Reply {
                session_id: sid.to_owned(),
                title: t.chat.title.clone(),
            });
        }
        chat.set_running(t.chat.running);
        self.app.composer.set_running(t.chat.running);
        self.app.match_prompts();
        self.subscribed.insert(sid.to_owned());
        self.command(
            "follow the chat",
            Request::ChatSubscribe(ChatSubscribe {
                session_id: sid.to_owned(),
                want_replay: true,
                last_seq: None,
            }),
        );
    }

    fn on_done(&mut self, what: &'static str, result: Result<Reply, String>) {
        if let Some(act) = triggers_view::Act::from_what(what) {
            triggers_view::act_answered(&mut self.app, act, result);
            self.refresh_triggers();
            return;
        }
        match result {
            Err(reason) if what == "push" => self.app.push_answered(Err(&reason)),
            Err(reason) => self.app.notice = Some(format!("{what} failed: {reason}")),
            Ok(Reply::GitPushed(p)) => {
                self.app.push_answered(Ok(&p));
                self.refresh_changes();
            }
            Ok(Reply::Sent(sent)) => {
                let open = self
                    .app
                    .chat
                    .as_ref()
                    .is_some_and(|c| c.session_id() == sent.session_id);
                if !open {
                    if what == "send" {
                        self.app.new_chat_sent(&sent.project_slug, &sent.session_id);
                    }
                    // A new chat: show it; its frames replay once the transcript is read.
                    if let Some(action) = self.app.open(sent.project_slug, sent.session_id) {
                        self.perform(action);
                    }
                    self.app.focus = app::Focus::Chat;
                }
            }
            Ok(Reply::Forked(f)) => self.app.forked(f.project_slug, f.session_id),
            Ok(Reply::Updated(u)) if what == "delete" => self.app.deleted(u.changed),
            Ok(Reply::Updated(u)) if what == "update" => {
                self.app.notice = Some(match u.changed {
                    0 => "nothing changed".to_owned(),
                    1 => "1 chat changed".to_owned(),
                    n => format!("{n} chats changed"),
                });
            }
            Ok(Reply::GitCommitted(c)) => {
                let short = c.commit.get(..7).unwrap_or(&c.commit);
                let files = match c.files.len() {
                    1 => "1 file".to_owned(),
                    n => format!("{n} files"),
                };
                self.app.notice = Some(format!("committed {files} as {short} on {}", c.branch));
                self.refresh_changes();
            }
            Ok(Reply::Cancelled(c)) if !c.was_running => {
                self.app.notice = Some("nothing was running".to_owned());
            }
            Ok(_) => {}
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
