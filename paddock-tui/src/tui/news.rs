//! The daemon's pushed events, applied: the tree and the chat pane follow them, the views
//! over the panes read again what they show ([`News`]), a chat that needs the user is
//! announced to the terminal.

use paddock_proto::{ChatEvent, HubFrame};

use super::EventLoop;
use super::fetch::Fetch;
use super::hosts::{HostEvent, RETRY_FIRST};
use super::notice::State;
use super::overlay::News;
use crate::client::Event;

impl EventLoop {
    /// News for the views over the panes: they read again what they want.
    pub(super) fn news(&mut self, news: News<'_>) {
        // History lists runs: one started or ended.
        if matches!(news, News::Active { .. }) && self.app.history.is_open() {
            self.fetch(Fetch::History);
        }
        for fetch in self.app.on_news(news) {
            self.fetch(fetch);
        }
    }

    /// A chat needs the user: the terminal is told (unless that chat is open here) and the
    /// status line says why; each event once.
    pub(super) fn on_attention(&mut self, a: &paddock_proto::Attention) -> bool {
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
        let mut title = crate::format::clean_title(&a.title);
        // On a client of several hosts, which one it is on.
        if let Some(host) = self
            .links
            .multi
            .then(|| super::hosts::slugs::host_of(&a.project_slug))
            .flatten()
        {
            title = format!("{host}: {title}");
        }
        self.ring.extend(crate::notify::sequence(
            self.notify,
            &title,
            &a.body,
            crate::notify::in_tmux(),
        ));
        let text = format!("{title}: {}", a.body);
        if a.kind == paddock_proto::AttentionKind::Approval {
            // Said until the chat's calls are answered (here, in another client, or by a
            // timeout): the approvals are read, and read again as they change.
            let waiting = State::Approval {
                session_id: a.session_id.clone(),
            };
            self.app.notice.while_(text, waiting);
            self.fetch(Fetch::Approvals);
        } else {
            self.app.notice.info(text);
        }
        true
    }

    /// Applies an event of one host's connection (its slugs qualified already); whether the
    /// screen changed. Events of a connection that is gone are dropped.
    pub(super) fn on_host_event(&mut self, ev: HostEvent) -> bool {
        let Some(link) = self.links.list.get_mut(ev.host) else {
            return false;
        };
        if link.generation != ev.generation {
            return false;
        }
        link.last_seen = Some(std::time::SystemTime::now());
        self.on_event(ev.host, ev.event)
    }

    /// Applies a pushed event of a host; whether the screen changed.
    fn on_event(&mut self, host: usize, ev: Option<Event>) -> bool {
        match ev {
            None => {
                self.on_disconnected(host);
                true
            }
            Some(Event::Stopping(stopping)) => {
                self.links.list[host].stopping = Some(stopping.message);
                false
            }
            Some(Event::ChatsChanged(changed)) => {
                self.on_chats_changed(changed);
                false
            }
            Some(Event::Active(active)) => self.on_active(active),
            // Events were lost: what is on screen may be stale.
            Some(Event::Lagged { .. }) => {
                self.fetch(Fetch::Projects);
                self.fetch(Fetch::AllChats);
                self.refresh_archives();
                false
            }
            Some(Event::DaemonError(body)) => {
                self.app.notice.error(body.message);
                true
            }
            Some(Event::Attention(a)) => self.on_attention(&a),
            Some(Event::Frame(frame)) => self.on_frame(&frame),
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
                self.links.list[host].pending_approvals = changed.pending;
                self.app.pending_approvals = self.links.pending_approvals();
                let said = |s: &State| matches!(s, State::Approval { .. });
                if self.app.pending_approvals == 0 {
                    self.app.notice.over(said);
                } else if self.app.notice.reports(said)
                    && self.app.view::<super::inbox::InboxView>().is_none()
                {
                    // Whether the chat said to wait still does (the inbox reads them itself
                    // when open).
                    self.fetch(Fetch::Approvals);
                }
                self.news(News::ApprovalsChanged);
                true
            }
            Some(Event::ProjectChanged(changed)) => {
                match changed.what {
                    paddock_proto::ProjectPart::Triggers => self.news(News::TriggersChanged {
                        project_slug: &changed.project_slug,
                    }),
                    paddock_proto::ProjectPart::Git => self.news(News::GitChanged),
                    paddock_proto::ProjectPart::Files => self.news(News::FilesRecorded {
                        project_slug: &changed.project_slug,
                    }),
                }
                false
            }
            Some(Event::Undecodable(_)) => false,
        }
    }

    /// A host's connection ended: reconnect later, unless its daemon was stopped on purpose.
    /// Its rows stay on screen (dimmed, on a client of several hosts) until it is back.
    fn on_disconnected(&mut self, host: usize) {
        let multi = self.links.multi;
        let link = &mut self.links.list[host];
        link.client = None;
        link.generation += 1;
        link.pending_approvals = 0;
        link.state = match link.stopping.take() {
            // Stopped on purpose: starting another would undo `paddock daemon stop`
            // (and lose the environment the next `daemon start` brings).
            Some(message) => {
                link.backoff = RETRY_FIRST;
                super::app::Connection::Stopped(message)
            }
            None => super::app::Connection::Unreachable(if multi {
                "the connection was lost; reconnecting".to_owned()
            } else {
                "Lost the connection to paddockd (it stopped or restarted); reconnecting."
                    .to_owned()
            }),
        };
        link.retry_later();
        if multi {
            let name = link.name.clone();
            self.app
                .notice
                .error(format!("lost host {name}; trying again by itself"));
        } else {
            // Answers still coming on the lost connection are dropped.
            self.generation += 1;
        }
        self.sync_hosts();
    }

    /// A project's chats changed: its list (and what the views show of it) is read again.
    fn on_chats_changed(&mut self, changed: paddock_proto::ChatsChanged) {
        // A new project, or (no chat named: paddockd announces project changes so) a
        // project renamed, promoted or deleted: the project list is small, read it again.
        if !self.app.knows_project(&changed.project_slug) || changed.session_id.is_none() {
            self.fetch(Fetch::Projects);
        }
        if self.app.tree.follows_archive(&changed.project_slug) {
            self.fetch(Fetch::Archived(changed.project_slug.clone()));
        }
        self.news(News::ChatsChanged {
            project_slug: &changed.project_slug,
        });
        self.fetch(Fetch::Chats(changed.project_slug));
    }

    /// A chat's turn started or ended; whether the screen changed.
    fn on_active(&mut self, active: paddock_proto::Active) -> bool {
        let open = self
            .app
            .chat
            .as_ref()
            .is_some_and(|c| c.session_id() == active.session_id);
        let known = self.app.apply_active(&active);
        self.news(News::Active {
            project_slug: &active.project_slug,
            session_id: &active.session_id,
            running: active.running,
        });
        if !known {
            self.fetch(Fetch::Chats(active.project_slug));
        }
        // A turn's writes may have filled the disk (or freed it).
        if !active.running {
            self.fetch(Fetch::Status);
        }
        known || open
    }

    /// A frame of a followed chat's stream; whether the screen changed.
    fn on_frame(&mut self, frame: &HubFrame) -> bool {
        let sid = frame.routing.session_id.clone();
        let ended = matches!(frame.event, ChatEvent::Complete(_));
        let open = self
            .app
            .chat
            .as_ref()
            .is_some_and(|c| c.session_id() == sid);
        // The daemon sent the queued follow-up: the composer's copy is gone.
        if matches!(frame.event, ChatEvent::QueuedFlushed(_)) && open {
            self.app.composer.set_queued(None);
        }
        if ended {
            self.news(News::TurnEnded { session_id: &sid });
        }
        let Some(chat) = self.app.chat.as_mut().filter(|c| c.session_id() == sid) else {
            return false;
        };
        let changed = chat.apply(frame);
        if ended {
            chat.set_running(false);
            self.app.composer.set_running(false);
            self.command(super::requests::mark_read(sid));
        }
        changed || ended
    }
}
