//! Carrying out one request: a table from each request to the code that answers it. A
//! request that starts a turn is answered through the hub (its `Sent` travels ahead of the
//! turn's frames), so it has no answer here unless it is refused.

use std::path::Path;

use paddock_proto::{
    Attachment, Cancelled, ChatCommand, ChatSend, ErrorBody, ErrorCode, Outcome, Projects, Reply,
    Request, SessionRef,
};

use super::Connection;
use crate::runner::TurnRequest;

/// The answer to a request that starts a turn: none when it started (the hub answers), the
/// refusal when it did not.
fn refusal(started: Result<(), ErrorBody>) -> Option<Outcome> {
    started.err().map(Outcome::Err)
}

impl Connection {
    /// Carries out a request. `None` when the response travels through the hub instead
    /// (so it is ordered with the frames that follow it).
    pub(super) async fn dispatch(&mut self, id: u64, request: Request) -> Option<Outcome> {
        let d = self.d.clone();
        let result: Result<Reply, ErrorBody> = match request {
            Request::Hello(hello) => {
                self.hello(id, hello).await;
                return None;
            }
            Request::Ping => Ok(Reply::Pong),
            Request::ChatSend(send) => return refusal(self.send_turn(id, send).await),
            Request::ChatCommand(cmd) => return refusal(self.run_command(id, cmd).await),
            Request::ChatCancel(c) => {
                let was_running = d.runner.cancel(c.session_id, c.job_id).await;
                Ok(Reply::Cancelled(Cancelled { was_running }))
            }
            Request::ChatSubscribe(s) => {
                d.hub
                    .subscribe(self.id, s.session_id, s.want_replay, s.last_seq, Some(id))
                    .await;
                return None;
            }
            Request::ChatUnsubscribe(s) => {
                d.hub.unsubscribe(self.id, s.session_id).await;
                Ok(Reply::Ack)
            }
            Request::ChatSetQueue(q) => crate::chats::set_queue(&d.chats, q)
                .await
                .map(|()| Reply::Ack),
            Request::ChatContinue(c) => return refusal(self.continue_turn(id, c).await),
            Request::ChatList(list) => {
                // Its rows are kept encoded: the answer is written as a whole line here.
                match crate::chats::list_answer(&d.chats, &self.user, id, list).await {
                    Ok(line) => {
                        self.send_line(line).await;
                        return None;
                    }
                    Err(e) => Err(e),
                }
            }
            Request::ChatResolve(r) => crate::chats::resolve(&d.chats, r)
                .await
                .map(Reply::Resolved),
            Request::ChatTranscript(s) => {
                crate::chats::transcript(&d.chats, &self.user, &s.session_id)
                    .await
                    .map(|t| Reply::Transcript(Box::new(t)))
            }
            Request::ChatUpdate(u) => {
                let archived =
                    (u.action == paddock_proto::ChatAction::Archive).then(|| u.session_ids.clone());
                match crate::chats::update(&d.chats, &self.user, u).await {
                    Ok(mut updated) => {
                        if let Some(ids) = archived {
                            updated.notes = crate::git::tidy_worktrees(&d.chats, &ids, false).await;
                        }
                        Ok(Reply::Updated(updated))
                    }
                    Err(e) => Err(e),
                }
            }
            Request::ChatDelete(ids) => {
                let sids = ids.session_ids.clone();
                match crate::chats::delete(&d.chats, ids.session_ids).await {
                    Ok(mut updated) => {
                        updated.notes = crate::git::tidy_worktrees(&d.chats, &sids, true).await;
                        Ok(Reply::Updated(updated))
                    }
                    Err(e) => Err(e),
                }
            }
            Request::ChatFork(f) => {
                crate::git::fork_chat(&d.chats, f, paddock_proto::Origin::Human, 0)
                    .await
                    .map(Reply::Forked)
            }
            Request::ChatPromote(r) => crate::promotion::promote(&d.project_ops, &self.user, r)
                .await
                .map(Reply::Promoted),
            Request::ChatImport(i) => crate::chats::import(&d.chats, &self.user, i)
                .await
                .map(Reply::Imported),
            Request::HistoryList(h) => crate::history::list(&d.state, &d.projects, &self.user, h)
                .await
                .map(Reply::History),
            Request::TriggerList(r) => crate::triggers::list(&d.trigger_ops, r)
                .await
                .map(Reply::Triggers),
            Request::TriggerSet(r) => crate::triggers::set(&d.trigger_ops, *r)
                .await
                .map(|t| Reply::Trigger(Box::new(t))),
            Request::TriggerRemove(r) => crate::triggers::remove(&d.trigger_ops, r)
                .await
                .map(|()| Reply::Ack),
            Request::TriggerFire(r) => crate::triggers::fire(&d.trigger_ops, r, None)
                .await
                .map(Reply::Fired),
            Request::AttachmentGet(r) => attachment(&d.cfg.data_dir, r.attachment_id)
                .await
                .map(Reply::Attachment),
            Request::Search(r) => crate::chats::search::search(&d.chats, r)
                .await
                .map(Reply::SearchResults),
            Request::NotificationsSubscribe => {
                d.hub.notify(self.id).await;
                Ok(Reply::Ack)
            }
            Request::ApprovalList => Ok(Reply::Approvals(paddock_proto::Approvals {
                approvals: d.state.approvals.list(),
            })),
            Request::ApprovalAnswer(a) => {
                crate::approvals::answer_request(&d.state.approvals, &d.projects, &d.hub, a)
                    .await
                    .map(Reply::Updated)
            }
            Request::AgentTools(a) => crate::agent::list_tools(&d, &a).map(Reply::AgentTools),
            Request::AgentCall(c) => crate::agent::call(&d, c).await.map(Reply::AgentResult),
            Request::ProvenanceFile(r) => crate::files::provenance::file(&d.chats, r)
                .await
                .map(|p| Reply::Provenance(Box::new(p))),
            Request::ProvenanceTouched(r) => crate::files::touched::touched(&d.chats, r)
                .await
                .map(Reply::Touched),
            Request::ProvenanceBlame(r) => crate::files::blame::blame(&d.chats, r)
                .await
                .map(|b| Reply::Blame(Box::new(b))),
            Request::GitStatus(r) => crate::git::status(&d.chats, &self.user, r)
                .await
                .map(Reply::GitStatus),
            Request::GitDiff(r) => crate::git::diff(&d.chats, &self.user, r)
                .await
                .map(Reply::GitDiff),
            Request::GitCommit(r) => crate::git::commit(&d.chats, &self.user, r)
                .await
                .map(Reply::GitCommitted),
            Request::GitPush(r) => crate::git::push(&d.chats, r).await.map(Reply::GitPushed),
            Request::WorktreeList(r) => crate::git::worktree_list(&d.chats, r)
                .await
                .map(Reply::Worktrees),
            Request::WorktreeMerge(r) => crate::git::worktree_merge(&d.chats, r)
                .await
                .map(Reply::WorktreeMerged),
            Request::WorktreeRebase(r) => crate::git::worktree_rebase(&d.chats, r)
                .await
                .map(Reply::WorktreeRebased),
            Request::WorktreeDiscard(r) => crate::git::worktree_discard(&d.chats, r)
                .await
                .map(Reply::WorktreeDiscarded),
            Request::WorktreePrune(r) => crate::git::worktree_prune(&d.chats, r)
                .await
                .map(Reply::WorktreePruned),
            Request::FilesList(r) => crate::files::list(&d.chats, r)
                .await
                .map(Reply::FileListing),
            Request::FilesRead(r) => crate::files::read(&d.chats, r).await.map(Reply::FileText),
            Request::HistorySeen => crate::history::seen(&d.state, &self.user)
                .await
                .map(|()| Reply::Ack),
            Request::ProjectList => project_list(&d.projects).map(Reply::Projects),
            Request::ProjectCreate(p) => crate::project_ops::create(&d.project_ops, p)
                .await
                .map(Reply::Project),
            Request::ProjectUpdate(u) => crate::project_ops::update(&d.project_ops, u)
                .await
                .map(Reply::Project),
            Request::ProjectDelete(r) => crate::project_ops::delete(&d.project_ops, r)
                .await
                .map(Reply::ProjectDeleted),
            Request::ProjectPromote(r) => crate::project_ops::promote(&d.project_ops, r)
                .await
                .map(Reply::Project),
            Request::ProjectOverviewRequest(r) => {
                crate::project_ops::overview(&d.project_ops, &self.user, r)
                    .await
                    .map(|o| Reply::ProjectOverview(Box::new(o)))
            }
            Request::DaemonStatus => Ok(Reply::Status(d.status().await)),
            Request::DaemonInfo => Ok(Reply::Info(Box::new(
                crate::info::gather(&d.cfg, Some(std::process::id())).await,
            ))),
            Request::DaemonShutdown => {
                tracing::info!(client = self.id, user = %self.user, "shutdown requested");
                d.shutdown.cancel();
                Ok(Reply::Ack)
            }
        };
        Some(match result {
            Ok(r) => Outcome::Ok(r),
            Err(e) => Outcome::Err(e),
        })
    }

    /// `chat:send`: the project, the attachments kept and listed in front of the message, the
    /// curated context a new chat may start from, then the turn.
    async fn send_turn(&self, id: u64, send: ChatSend) -> Result<(), ErrorBody> {
        let d = &self.d;
        let project = d.project(&send.project_slug).await?;
        let message = if send.attachments.is_empty() {
            send.message
        } else {
            let (data_dir, limits) = (d.cfg.data_dir.clone(), d.cfg.attachments.clone());
            let private = d.cfg.private_state();
            let uploads = send.attachments;
            let stored = tokio::task::spawn_blocking(move || {
                crate::attachments::store(&data_dir, &limits, &private, &uploads)
            })
            .await
            .map_err(|e| internal("keeping the attachments", &e))??;
            crate::attachments::wrap(&stored, &send.message)
        };
        let message = if send.preload_context && send.session_id.is_none() {
            crate::preload::compose(&project.meta_dir, &message)
        } else {
            message
        };
        let (session_id, fresh) = match send.session_id {
            Some(sid) => (Some(sid), false),
            None => {
                let made =
                    crate::git::new_chat_worktree(&d.cfg, &d.state, &project, send.isolation, None)
                        .await?;
                (made.clone(), made.is_some())
            }
        };
        let kept = project.clone();
        let mut turn = TurnRequest::new(project, session_id.clone(), message)
            .model(send.model)
            .asked_by(self.id, id);
        turn.fresh_session = fresh;
        if let Err(refused) = d.runner.send(turn).await {
            // A worktree made for a chat that did not start is not left behind.
            if let (true, Some(sid)) = (fresh, &session_id) {
                crate::git::undo_new_worktree(&d.cfg, &d.state, &kept, sid).await;
            }
            return Err(refused.into());
        }
        Ok(())
    }

    /// `chat:command`: a slash command, as a turn of the chat.
    async fn run_command(&self, id: u64, cmd: ChatCommand) -> Result<(), ErrorBody> {
        let project = self.d.project(&cmd.project_slug).await?;
        let turn =
            TurnRequest::new(project, Some(cmd.session_id), cmd.command).asked_by(self.id, id);
        self.d.runner.send(turn).await?;
        Ok(())
    }

    /// `chat:continue`: the recovery prompt for an interrupted turn, when the daemon offers it.
    async fn continue_turn(&self, id: u64, c: SessionRef) -> Result<(), ErrorBody> {
        let d = &self.d;
        if !d.cfg.recovery_surface {
            return Err(ErrorBody::new(
                ErrorCode::InvalidArgument,
                "chat:continue is turned off on this daemon (recovery_surface = false, PADDOCK_RECOVERY_SURFACE); send the chat a message instead",
            ));
        }
        let project = crate::chats::project_of(&d.chats, &c.session_id).await?;
        // Cut short before claude wrote its first message: ask that again.
        let unwritten = (d.state.listed().await.get(&c.session_id).is_none())
            .then(|| d.state.stores.first_message.get(&c.session_id))
            .flatten();
        let turn = match unwritten {
            Some(first) => TurnRequest::first_again(project, c.session_id, first),
            None => TurnRequest::continuing(project, c.session_id),
        }
        .asked_by(self.id, id);
        d.runner.send(turn).await?;
        Ok(())
    }
}

/// `attachment:get`, read on the blocking pool.
async fn attachment(data_dir: &Path, attachment_id: String) -> Result<Attachment, ErrorBody> {
    let data_dir = data_dir.to_owned();
    tokio::task::spawn_blocking(move || crate::attachments::get(&data_dir, &attachment_id))
        .await
        .map_err(|e| internal("reading the attachment", &e))?
}

/// `project:list`: every project, the root workspace first.
fn project_list(projects: &crate::projects::Projects) -> Result<Projects, ErrorBody> {
    let projects = projects.list().map_err(crate::projects::project_error)?;
    Ok(Projects {
        projects: projects
            .iter()
            .map(crate::projects::Project::info)
            .collect(),
    })
}

/// A blocking job that did not finish (it panicked or was cancelled at shutdown).
fn internal(what: &str, e: &tokio::task::JoinError) -> ErrorBody {
    ErrorBody::new(ErrorCode::Internal, format!("{what} failed: {e}"))
}
