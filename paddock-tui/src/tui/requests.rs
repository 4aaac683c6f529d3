//! The event loop's requests: what a key asked for ([`Action`]) carried out as typed requests
//! to the daemon in background tasks, each answered back to the loop as a [`Msg`]: a [`Fetch`]
//! (at most one of each in flight), a command ([`Doing`]), a message sent.

use paddock_proto::{ChatCancel, ChatContinue, ChatDelete, ChatUpdate, SessionRef};

use super::doing::Doing;
use super::fetch::Fetch;
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

    /// Sends a message, its files read off the loop (their bytes, under `--remote`); the
    /// answer comes back as [`Msg::SendDone`]. One that cannot go goes back into its draft.
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
                Ok(Some(Ok(send))) => client.call(send).await.map_err(|e| e.to_string()),
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

    /// Runs a command in the background; its typed answer comes back as [`Msg::Done`].
    pub(super) fn command(&mut self, doing: Doing) {
        let what = doing.what();
        let Some(client) = self.client.clone() else {
            self.app
                .notice
                .error(format!("cannot {what}: not connected to paddockd"));
            return;
        };
        let tx = self.msgs_tx.clone();
        let generation = self.generation;
        tokio::spawn(async move {
            let done = doing.call(&client).await;
            let _ = tx
                .send(Msg::Done {
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
        if self.client.is_none() {
            self.app.push_answered(Err("not connected to paddockd"));
            return;
        }
        self.command(Doing::Push(paddock_proto::GitPushRequest {
            project_slug,
            data_root: false,
        }));
    }

    /// Connects (starting the daemon if needed) in the background; the screen stays live.
    pub(super) fn connect(&mut self) {
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
    pub(super) fn watch(&mut self) {
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

    pub(super) fn fetch(&mut self, fetch: Fetch) {
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
        tokio::spawn(async move {
            let answer = fetch.call(&client, since).await;
            let _ = tx
                .send(Msg::Fetched {
                    generation,
                    fetch,
                    since,
                    answer,
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
