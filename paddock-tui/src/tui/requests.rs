//! The event loop's requests: what a key asked for ([`Action`]) carried out as typed requests
//! to the daemon in background tasks, each answered back to the loop as a [`Msg`]: a [`Fetch`]
//! (at most one of each in flight), a command ([`Doing`]), a message sent.

use paddock_proto::{ChatCancel, ChatContinue, ChatDelete, ChatUpdate, SessionRef};

use super::doing::Doing;
use super::fetch::Fetch;
use super::hosts::fan;
use super::hosts::slugs::Slugs;
use super::routing::Route;
use super::{EventLoop, Msg, app, attachment_view, chat_send, triggers_view};
use crate::tui::app::Action;

impl EventLoop {
    /// Carries out what a key asked for: a read, a command, or one of the few that do more.
    pub(super) fn perform(&mut self, action: Action) {
        let action = match fetch_for(action) {
            Ok(fetch) => return self.fetch(fetch),
            Err(action) => action,
        };
        let action = match command_for(action) {
            Ok(doing) => return self.command(doing),
            Err(action) => action,
        };
        match action {
            Action::Refresh => {
                self.app.notice.clear();
                if self.links.any_up() {
                    self.fetch(Fetch::Projects);
                    self.fetch(Fetch::AllChats);
                    self.refresh_archives();
                    self.reopen_chat();
                }
                // A host that is away is tried now, not at its next scheduled attempt.
                for host in 0..self.links.list.len() {
                    if !self.links.list[host].is_up() {
                        self.connect(host);
                    }
                }
            }
            Action::Open { session_id, .. } => {
                self.unsubscribe_others(&session_id);
                self.reopen_chat();
                self.command(mark_read(session_id));
            }
            Action::Stop { session_ids } => {
                for session_id in session_ids {
                    let cancel = ChatCancel {
                        session_id,
                        job_id: None,
                    };
                    self.command(Doing::Cancel(cancel));
                }
            }
            Action::Send { .. } => self.send(action),
            Action::LoadArchived(slugs) => {
                for slug in slugs {
                    self.fetch(Fetch::Archived(slug));
                }
            }
            Action::SaveAttachment { path, bytes } => {
                let tx = self.msgs_tx.clone();
                tokio::task::spawn_blocking(move || {
                    let result = attachment_view::save(&path, &bytes);
                    let _ = tx.blocking_send(Msg::Saved(result));
                });
            }
            Action::Trigger(act, id) => {
                if let Some(doing) = triggers_view::act_doing(act, id) {
                    self.command(doing);
                }
            }
            Action::Push { project_slug } => self.push(project_slug),
            // Quitting is the loop's; the rest was read or commanded above.
            _ => {}
        }
    }

    /// Sends a message, its files read off the loop (their bytes, under `--remote`), to its
    /// chat's host (a new chat: its project's); the answer comes back as [`Msg::SendDone`].
    /// One that cannot go goes back into its draft.
    pub(super) fn send(&mut self, action: Action) {
        let Action::Send {
            project_slug,
            session_id,
            ..
        } = &action
        else {
            return;
        };
        let (project_slug, session_id) = (project_slug.clone(), session_id.clone());
        let host = match &session_id {
            Some(sid) => self.host_of_session(sid),
            None => self.links.of_slug(&project_slug),
        };
        let ready = host.and_then(|h| self.links.ready(h).map(|client| (h, client)));
        let (host, client) = match ready {
            Ok(ready) => ready,
            Err(reason) => {
                self.app
                    .send_answered(&project_slug, session_id.as_deref(), Err(reason));
                return;
            }
        };
        let link = &self.links.list[host];
        let remote = link.ctx.remote.is_some();
        let name = self.links.qualifier(host);
        let tx = self.msgs_tx.clone();
        let generation = link.generation;
        tokio::spawn(async move {
            let built = tokio::task::spawn_blocking(move || chat_send(&action, remote))
                .await
                .map_err(|e| format!("reading the attachments failed: {e}"));
            let result = match built {
                Ok(Some(Ok(mut send))) => {
                    if name.is_some() {
                        send.unqualify();
                    }
                    client.call(send).await.map_err(|e| e.to_string())
                }
                Ok(Some(Err(reason))) | Err(reason) => Err(reason),
                Ok(None) => return,
            };
            let result = result.map(|mut sent| {
                if let Some(name) = &name {
                    sent.qualify(name);
                }
                sent
            });
            let _ = tx
                .send(Msg::SendDone {
                    host,
                    generation,
                    project_slug,
                    session_id,
                    result,
                })
                .await;
        });
    }

    /// Runs a command in the background on its host (each of its hosts); its typed answer
    /// comes back as [`Msg::Done`].
    pub(super) fn command(&mut self, doing: Doing) {
        let what = doing.what();
        match self.route_doing(doing) {
            Ok(routed) => {
                for (host, doing) in routed {
                    self.command_on(host, doing);
                }
            }
            Err(reason) => self.app.notice.error(format!("cannot {what}: {reason}")),
        }
    }

    /// Runs a command on this host.
    pub(super) fn command_on(&mut self, host: usize, mut doing: Doing) {
        let what = doing.what();
        let client = match self.links.ready(host) {
            Ok(client) => client,
            Err(reason) => {
                self.app.notice.error(format!("cannot {what}: {reason}"));
                return;
            }
        };
        let name = self.links.qualifier(host);
        if name.is_some() {
            doing.unqualify();
        }
        let tx = self.msgs_tx.clone();
        let generation = self.links.list[host].generation;
        tokio::spawn(async move {
            let mut done = doing.call(&client).await;
            if let Some(name) = &name {
                done.qualify(name);
            }
            let _ = tx
                .send(Msg::Done {
                    host,
                    generation,
                    what,
                    done,
                })
                .await;
        });
    }

    /// `git:push`, given as long as the daemon lets git run (the call's own time limit);
    /// answered as a push's [`Msg::Done`].
    pub(super) fn push(&mut self, project_slug: String) {
        if let Err(reason) = self
            .links
            .of_slug(&project_slug)
            .and_then(|h| self.links.ready(h))
        {
            self.app.push_answered(Err(&reason));
            return;
        }
        self.command(Doing::Push(paddock_proto::GitPushRequest {
            project_slug,
            data_root: false,
        }));
    }

    /// Connects every host.
    pub(super) fn connect_all(&mut self) {
        for host in 0..self.links.list.len() {
            self.connect(host);
        }
    }

    /// Connects to a host (starting its daemon if needed) in the background; the screen stays
    /// live.
    pub(super) fn connect(&mut self, host: usize) {
        if let Some(link) = self.links.list.get_mut(host) {
            link.stopping = None;
            link.client = None;
            link.state = app::Connection::Connecting;
        }
        self.sync_hosts();
        self.attempt(host, false);
    }

    /// While a host's daemon is stopped on purpose: looks for one started by someone else
    /// (`paddock daemon start`, the second half of a restart) without ever starting one (under
    /// `--remote`, through `paddock proxy --no-start`).
    pub(super) fn watch(&mut self, host: usize) {
        self.attempt(host, true);
    }

    /// One connection attempt to a host, answered as [`Msg::Connected`]; `existing`: to a
    /// daemon that runs already, never starting one.
    fn attempt(&mut self, host: usize, existing: bool) {
        let Some(link) = self.links.list.get_mut(host) else {
            return;
        };
        link.retry = None;
        link.generation += 1;
        // Under --remote each attempt runs ssh afresh (the last one's child died with its client).
        let ctx = link.ctx.clone();
        let generation = link.generation;
        let tx = self.msgs_tx.clone();
        tokio::spawn(async move {
            let result = if existing {
                ctx.open_existing().await
            } else {
                ctx.open().await
            };
            let result = result.map_err(|e| e.to_string());
            let _ = tx
                .send(Msg::Connected {
                    host,
                    generation,
                    result,
                })
                .await;
        });
    }

    /// Reads something in the background: from its host, or (a read of everything) from
    /// every host, merged. Answered as [`Msg::Fetched`]; at most one of each in flight.
    pub(super) fn fetch(&mut self, fetch: Fetch) {
        if !self.links.any_up() {
            return;
        }
        if self.in_flight.contains(&fetch) {
            self.again.insert(fetch);
            return;
        }
        let route = self.route_fetch(&fetch);
        let tx = self.msgs_tx.clone();
        let generation = self.generation;
        // A project's list is asked for what changed since the revision held.
        let since = match &fetch {
            Fetch::Chats(slug) => self.app.tree.project_revision(slug),
            _ => None,
        };
        // The host it goes to and its connection (`None`: every host), or why it cannot go.
        let target = route.and_then(|route| match route {
            Route::Every => Ok(None),
            Route::One(host) => self.links.ready(host).map(|client| Some((host, client))),
        });
        let task: std::pin::Pin<Box<dyn std::future::Future<Output = _> + Send>> = match target {
            Ok(None) => {
                let up = self.links.up();
                let down = self.links.down();
                let timeout = self.links.timeout;
                let asked = fetch.clone();
                Box::pin(async move {
                    let (answer, mut missing) = fan::read_all(&asked, up, timeout).await;
                    missing.extend(down);
                    (answer, missing)
                })
            }
            Ok(Some((host, client))) => {
                let name = self.links.qualifier(host);
                let mut local = fetch.clone();
                if name.is_some() {
                    local.unqualify();
                }
                Box::pin(async move {
                    let mut answer = local.call(&client, since).await;
                    if let Some(name) = &name {
                        answer.qualify(name);
                    }
                    (answer, Vec::new())
                })
            }
            // A client of one host that is not connected: nothing to read yet.
            Err(_) if !self.links.multi => return,
            Err(reason) => {
                let answer = fetch.failed(reason);
                Box::pin(async move { (answer, Vec::new()) })
            }
        };
        self.in_flight.insert(fetch.clone());
        tokio::spawn(async move {
            let (answer, missing) = task.await;
            let _ = tx
                .send(Msg::Fetched {
                    generation,
                    fetch,
                    since,
                    answer,
                    missing,
                })
                .await;
        });
    }
}

/// `chat:update` marking a chat read.
pub(super) fn mark_read(session_id: String) -> Doing {
    Doing::MarkRead(ChatUpdate {
        session_ids: vec![session_id],
        action: paddock_proto::ChatAction::Read,
    })
}

/// The read an action asks for, if it is one (else the action back).
fn fetch_for(action: Action) -> Result<Fetch, Action> {
    Ok(match action {
        Action::LoadHistory => Fetch::History,
        Action::LoadApprovals => Fetch::Approvals,
        Action::LoadAttachment(id) => Fetch::Attachment(id),
        Action::LoadChanges {
            project_slug,
            scope,
        } => Fetch::GitStatus {
            project_slug,
            scope,
        },
        Action::LoadDiff {
            project_slug,
            scope,
            path,
        } => Fetch::GitDiff {
            project_slug,
            scope,
            path,
        },
        Action::LoadProvenance { project_slug, path } => Fetch::Provenance { project_slug, path },
        Action::LoadTouched {
            project_slug,
            session_id,
        } => Fetch::Touched {
            project_slug,
            session_id,
        },
        Action::LoadBlame { project_slug, path } => Fetch::Blame { project_slug, path },
        Action::LoadListing {
            project_slug,
            path,
            hidden,
        } => Fetch::Listing {
            project_slug,
            path,
            hidden,
        },
        Action::LoadFileText { project_slug, path } => Fetch::FileText { project_slug, path },
        Action::Search(asked) => Fetch::Search(asked),
        Action::LoadUsage(scope) => Fetch::Usage(scope),
        Action::LoadTriggers(project) => Fetch::Triggers(project),
        Action::LoadTriggerRuns(id) => Fetch::TriggerRuns(id),
        Action::LoadOverview(slug) => Fetch::Overview(slug),
        other => return Err(other),
    })
}

/// The one command an action asks for, if it is one (else the action back).
fn command_for(action: Action) -> Result<Doing, Action> {
    Ok(match action {
        Action::Update {
            action,
            session_ids,
        } => Doing::Update(ChatUpdate {
            session_ids,
            action,
        }),
        Action::Fork { session_id } => Doing::Fork(paddock_proto::ChatFork {
            session_id,
            name: None,
        }),
        Action::Promote {
            session_id,
            to_project,
        } => Doing::Promote(paddock_proto::ChatPromote {
            session_id,
            to_project,
        }),
        Action::Delete { session_ids } => {
            Doing::Delete(ChatDelete(paddock_proto::SessionIds { session_ids }))
        }
        Action::Continue { session_id } => Doing::Continue(ChatContinue(SessionRef { session_id })),
        Action::SetQueue {
            session_id,
            message,
        } => Doing::Queue(paddock_proto::ChatSetQueue {
            session_id,
            message,
        }),
        Action::Answer { ids, decision } => Doing::Answer(paddock_proto::ApprovalAnswer {
            ids,
            decision,
            message: None,
        }),
        Action::HistorySeen => Doing::HistorySeen,
        Action::SaveTrigger(set) => Doing::Save(set),
        Action::Commit {
            project_slug,
            scope,
            message,
        } => Doing::Commit(paddock_proto::GitCommitRequest {
            project_slug,
            scope: scope.to_git(),
            message,
            paths: Vec::new(),
        }),
        other => return Err(other),
    })
}
