//! The event loop's answers: each [`Msg`] a background task sends back, to whoever it is for
//! (the tree, the chat pane, History, the views over the panes, the status line).

use paddock_proto::{ChatSubscribe, ChatUnsubscribe, SessionRef};

use super::doing::{Doing, Done};
use super::fetch::{Answer, Fetch};
use super::hosts::RETRY_FIRST;
use super::overlay::News;
use super::{EventLoop, Msg, app, composer};

impl EventLoop {
    /// Takes an answer in; whether the screen may have changed (a redraw is a write to the
    /// terminal even when no cell changed, so an answer that changes nothing draws nothing).
    pub(super) fn on_msg(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::Connected {
                host, generation, ..
            } if !self.links.is_current(host, generation) => {
                return false;
            }
            // Asked before the last connection: what it read is read again since.
            Msg::Fetched { generation, .. } if generation != self.generation => {
                return false;
            }
            // Done on a connection of its host that is gone.
            Msg::Done {
                host, generation, ..
            } if !self.links.is_current(host, generation) => {
                return false;
            }
            Msg::Done { what, done, .. } => self.on_done(what, done),
            Msg::SendDone {
                host,
                generation,
                project_slug,
                session_id,
                result,
            } => {
                let outcome = result.as_ref().map(|_| ()).map_err(Clone::clone);
                self.app
                    .send_answered(&project_slug, session_id.as_deref(), outcome);
                if self.links.is_current(host, generation)
                    && let Ok(sent) = result
                {
                    self.on_sent(sent, true);
                }
            }
            Msg::Saved(result) => self.app.attachment_saved(result),
            Msg::PrefsSaved(result) => {
                self.prefs_failed = result.is_err();
                match result {
                    Err(reason) => self.app.notice.error(reason),
                    Ok(()) => return false,
                }
            }
            Msg::Connected { host, result, .. } => match result {
                Ok(client) => self.on_connected(host, client),
                Err(reason) => {
                    let link = &mut self.links.list[host];
                    // Stopped on purpose: nobody started one yet; keep looking, quietly.
                    if !matches!(link.state, app::Connection::Stopped(_)) {
                        link.last_error = Some(reason.clone());
                        link.state = app::Connection::Unreachable(reason);
                    }
                    link.retry_later();
                    self.sync_hosts();
                }
            },
            Msg::Fetched {
                fetch,
                since,
                answer,
                missing,
                ..
            } => return self.on_fetched(fetch, since, answer, &missing),
        }
        true
    }

    /// A host connected: everything on screen is read again (the chat followed from where it
    /// was, on the same daemon), the views' answers lost with the connection too.
    fn on_connected(&mut self, host: usize, mut client: crate::client::Client) {
        let multi = self.links.multi;
        let link = &mut self.links.list[host];
        link.backoff = RETRY_FIRST;
        link.last_error = None;
        let came_back = link.was_up();
        link.pending_approvals = 0;
        link.last_seen = Some(std::time::SystemTime::now());
        if let Some(events) = client.take_events() {
            let name = multi.then(|| link.name.clone());
            super::hosts::forward(events, host, name, link.generation, self.events_tx.clone());
        }
        let pid = client.daemon().pid;
        let same_daemon = link.daemon_pid.replace(pid) == Some(pid);
        link.state = app::Connection::Connected(client.daemon().clone());
        let name = link.name.clone();
        if multi {
            self.sync_hosts();
            self.app.pending_approvals = self.links.pending_approvals();
            if came_back {
                self.app.notice.info(format!("host {name} is back"));
            }
        } else {
            self.app.set_connected(client.daemon().clone());
        }
        self.links.list[host].client = Some(std::sync::Arc::new(client));
        // Answers asked before are dropped: everything is read again now (on a client of
        // several hosts, what was being read of the others too).
        self.generation += 1;
        let dropped = std::mem::take(&mut self.in_flight);
        self.again.clear();
        let lost: Vec<String> = self
            .subscribed
            .iter()
            .filter(|sid| !multi || self.host_of_session(sid).ok().is_none_or(|h| h == host))
            .cloned()
            .collect();
        for sid in lost {
            self.subscribed.remove(&sid);
        }
        self.command_on(host, Doing::Notifications);
        self.fetch(Fetch::Projects);
        self.fetch(Fetch::AllChats);
        self.fetch(Fetch::Status);
        self.refresh_archives();
        let open_here = self.app.chat.as_ref().is_some_and(|c| {
            !multi
                || self
                    .links
                    .of_slug(c.project_slug())
                    .is_ok_and(|h| h == host)
        });
        // The open chat of another host goes on as it was.
        if open_here {
            self.resume_chat(same_daemon);
        }
        if multi {
            for fetch in dropped {
                self.fetch(fetch);
            }
        }
        if self.app.history.is_open() {
            self.fetch(Fetch::History);
        }
        self.news(News::Reconnected);
        if let Some(notice) = self.startup_notice.take() {
            self.app.notice.error(notice);
        }
    }

    /// An answer to a [`Fetch`]: asked again when news came meanwhile, then to whoever it is
    /// for.
    /// Whether the screen may have changed.
    fn on_fetched(
        &mut self,
        fetch: Fetch,
        since: Option<u64>,
        answer: Answer,
        missing: &[String],
    ) -> bool {
        self.in_flight.remove(&fetch);
        let again = self.again.remove(&fetch);
        if again && !matches!(fetch, Fetch::Chats(_)) {
            self.fetch(fetch.clone());
        }
        match (fetch, answer) {
            (Fetch::Chats(slug), Answer::Chats(result)) => {
                self.on_chats_listed(slug, since, again, result);
            }
            (Fetch::Archived(slug), Answer::Chats(result)) => {
                self.app.set_archived_chats(slug, result.map(|c| c.chats));
            }
            // A host that did not answer keeps what the tree holds of it.
            (Fetch::AllChats, Answer::Chats(result)) => match result {
                Ok(mut c) => {
                    c.chats.extend(self.app.tree.held_of(missing).1);
                    self.app.set_all_chats(c.chats);
                }
                Err(reason) => self.reload_failed(&reason),
            },
            (Fetch::Projects, Answer::Projects(result)) => match result {
                Ok(mut p) => {
                    p.projects.extend(self.app.tree.held_of(missing).0);
                    self.app.set_projects(p.projects);
                }
                Err(reason) => self.reload_failed(&reason),
            },
            (Fetch::Approvals, Answer::Approvals(result)) => match result {
                Ok(a) => self.app.set_approvals(a.approvals),
                Err(reason) => self.reload_failed(&reason),
            },
            (Fetch::Transcript(sid), Answer::Transcript(result)) => match result {
                Ok(t) => self.hydrate(&sid, &t),
                Err(reason) => {
                    self.app
                        .notice
                        .error(format!("cannot read the chat: {reason}"));
                    self.app.stop_settling();
                }
            },
            (Fetch::History, Answer::History(result)) => match result {
                Ok(h) => self.app.history.set(h),
                Err(reason) => self.app.history.set_error(reason),
            },
            // The header keeps what it knew when it fails; nothing to bother the user with.
            (Fetch::Status, Answer::Status(result)) => {
                return match result {
                    Ok(s) if s.low_disk != self.app.low_disk => {
                        self.app.low_disk = s.low_disk;
                        true
                    }
                    _ => false,
                };
            }
            // The rest is the views' (dropped when none asked for it).
            (fetch, answer) => {
                for next in self.app.on_reply(&fetch, &answer) {
                    self.fetch(next);
                }
            }
        }
        true
    }

    /// A list the app keeps could not be read: said on the status line.
    fn reload_failed(&mut self, reason: &str) {
        self.app.notice.error(format!("reload failed: {reason}"));
        self.app.stop_settling();
    }

    /// A project's `chat:list`: asked again only once the answer is in (the next `since` is
    /// its revision), and in full when a delta did not fit.
    fn on_chats_listed(
        &mut self,
        slug: String,
        since: Option<u64>,
        again: bool,
        result: Result<paddock_proto::Chats, String>,
    ) {
        let refused = match result {
            Ok(c) => !self.app.set_project_listing(slug.clone(), c, since),
            Err(reason) => {
                // A project deleted meanwhile: the project list drops it.
                if reason.contains("no project") {
                    let gone = format!("project {} is gone", crate::format::project_label(&slug));
                    self.app.notice.info(gone);
                } else {
                    self.app.notice.error(format!("reload failed: {reason}"));
                }
                self.fetch(Fetch::Projects);
                false
            }
        };
        if again || refused {
            self.fetch(Fetch::Chats(slug));
        }
    }

    /// The open chat's transcript arrived: show it, then follow the chat (replaying the running
    /// or just-finished turn, which replaces its hydrated copy).
    pub(super) fn hydrate(&mut self, sid: &str, t: &paddock_proto::Transcript) {
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
        self.app.reopened();
        self.subscribed.insert(sid.to_owned());
        self.command(Doing::Follow(ChatSubscribe {
            session_id: sid.to_owned(),
            want_replay: true,
            last_seq: None,
        }));
    }

    /// The answer to a command, by what it did (`what`: said when it failed).
    fn on_done(&mut self, what: &str, done: Done) {
        match done {
            Done::Trigger(_) => {
                for fetch in self.app.on_done(&done) {
                    self.fetch(fetch);
                }
            }
            Done::Push(result) => {
                self.app
                    .push_answered(result.as_ref().map_err(String::as_str));
                if result.is_ok() {
                    self.news(News::GitChanged);
                }
            }
            Done::Continue(result) => match result {
                Ok(sent) => self.on_sent(sent, false),
                Err(reason) => self.failed(what, &reason),
            },
            Done::Fork(result) => match result {
                Ok(f) => self.app.forked(f.project_slug, f.session_id),
                Err(reason) => self.failed(what, &reason),
            },
            Done::Promote(result) => match result {
                Ok(p) => self.app.promoted(p),
                Err(reason) => self.app.promote_failed(&reason),
            },
            Done::Delete(result) => match result {
                Ok(u) => self.app.deleted(u.changed),
                Err(reason) => self.failed(what, &reason),
            },
            Done::Update(action, asked, result) => match result {
                Ok(u) => {
                    let said = crate::format::update_summary(action, asked, u.changed);
                    self.app.notice.info(said);
                }
                Err(reason) => self.failed(what, &reason),
            },
            Done::Commit(result) => match result {
                Ok(c) => {
                    let short = c.commit.get(..7).unwrap_or(&c.commit);
                    let files = match c.files.len() {
                        1 => "1 file".to_owned(),
                        n => format!("{n} files"),
                    };
                    self.app
                        .notice
                        .info(format!("committed {files} as {short} on {}", c.branch));
                    self.news(News::GitChanged);
                }
                Err(reason) => self.failed(what, &reason),
            },
            Done::Cancel(result) => match result {
                Ok(c) if !c.was_running => {
                    self.app.notice.info("nothing was running");
                }
                Ok(_) => {}
                Err(reason) => self.failed(what, &reason),
            },
            // Nothing to say when they are carried out.
            Done::MarkRead(result) | Done::Answer(result) => self.if_failed(what, result),
            Done::Follow(result) => self.if_failed(what, result),
            Done::Queue(result)
            | Done::HistorySeen(result)
            | Done::Unsubscribe(result)
            | Done::Notifications(result) => self.if_failed(what, result),
        }
    }

    /// A command failed: said on the status line.
    fn failed(&mut self, what: &str, reason: &str) {
        self.app.notice.error(format!("{what} failed: {reason}"));
    }

    /// A command with nothing to say when carried out: said only when it failed.
    fn if_failed<T>(&mut self, what: &str, result: Result<T, String>) {
        if let Err(reason) = result {
            self.failed(what, &reason);
        }
    }

    /// A message was sent (`sent_message`), or a chat continued: a new chat shows in the chat
    /// pane.
    fn on_sent(&mut self, sent: paddock_proto::Sent, sent_message: bool) {
        let open = self
            .app
            .chat
            .as_ref()
            .is_some_and(|c| c.session_id() == sent.session_id);
        if open {
            return;
        }
        if sent_message {
            self.app.new_chat_sent(&sent.project_slug, &sent.session_id);
        }
        // A new chat: show it (the tree's cursor goes to it); its frames replay once the
        // transcript is read.
        if let Some(action) = self.app.open(sent.project_slug, sent.session_id) {
            self.perform(action);
        }
        // A message typed in the composer keeps the keyboard there, now aimed at the new
        // chat (as after a reply): the next words typed are text, never commands.
        if !sent_message {
            self.app.focus = app::Focus::Chat;
        }
    }

    /// Reads the archived chats the tree follows again (open groups, and those with a count).
    pub(super) fn refresh_archives(&mut self) {
        // Whatever was asked before is asked now.
        self.app.tree.take_archive_requests();
        for slug in self.app.tree.followed_archives() {
            self.fetch(Fetch::Archived(slug));
        }
    }

    /// After a reconnect: a running turn on the same daemon continues from the last frame seen
    /// (`wantReplay` with `lastSeq`: nothing read twice); anything else is read again from its
    /// transcript, then followed with replay.
    pub(super) fn resume_chat(&mut self, same_daemon: bool) {
        let resume = self.app.chat.as_ref().and_then(|c| {
            let seq = c.last_seq()?;
            (same_daemon && c.running()).then(|| (c.session_id().to_owned(), seq))
        });
        match resume {
            Some((session_id, seq)) => {
                self.subscribed.insert(session_id.clone());
                self.command(Doing::Follow(ChatSubscribe {
                    session_id,
                    want_replay: true,
                    last_seq: Some(seq),
                }));
            }
            None => self.reopen_chat(),
        }
    }

    /// Reads the open chat's transcript again; the subscription follows the answer.
    pub(super) fn reopen_chat(&mut self) {
        if let Some(sid) = self.app.chat.as_ref().map(|c| c.session_id().to_owned()) {
            self.fetch(Fetch::Transcript(sid));
        }
    }

    /// Stops following chats other than `keep` (the daemon keeps streaming them otherwise).
    pub(super) fn unsubscribe_others(&mut self, keep: &str) {
        let others: Vec<String> = self
            .subscribed
            .iter()
            .filter(|s| s.as_str() != keep)
            .cloned()
            .collect();
        for sid in others {
            self.subscribed.remove(&sid);
            self.command(Doing::Unsubscribe(ChatUnsubscribe(SessionRef {
                session_id: sid,
            })));
        }
    }
}

impl EventLoop {
    /// The screen's idea of the connections brought up to date with the hosts': the header's
    /// state, and the tree's host heads (a client of several hosts).
    pub(super) fn sync_hosts(&mut self) {
        let summary = self.links.summary();
        if self.links.multi || !matches!(summary, app::Connection::Connected(_)) {
            self.app.connection = summary;
        }
        if self.links.multi {
            self.app.tree.set_hosts(self.links.heads());
        }
    }
}
