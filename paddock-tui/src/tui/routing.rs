//! Which host a request goes to, on a client of several hosts: the host its slugs name, else
//! the host of its chat (the open one, or the tree's), else of its approvals; a read of
//! everything goes to every host. On a client of one host everything goes to it.

use std::collections::BTreeMap;

use paddock_proto::{ChatDelete, ChatUpdate, SessionIds};

use super::EventLoop;
use super::doing::Doing;
use super::fetch::Fetch;
use super::hosts::slugs::Slugs;

/// Where a read goes.
pub(super) enum Route {
    /// Every host at once, merged.
    Every,
    One(usize),
}

impl EventLoop {
    /// The host a chat is on.
    pub(super) fn host_of_session(&self, session_id: &str) -> Result<usize, String> {
        if !self.links.multi {
            return Ok(0);
        }
        match self.app.project_of_chat(session_id) {
            Some(slug) => self.links.of_slug(&slug),
            None => Err(format!(
                "cannot tell which host chat {} is on; press ctrl-l to read the chats again",
                session_id.get(..8).unwrap_or(session_id)
            )),
        }
    }

    /// The host of a pending approval.
    fn host_of_approval(&self, id: &str) -> Result<usize, String> {
        match self.app.project_of_approval(id) {
            Some(slug) => self.links.of_slug(&slug),
            None => Err(format!("approval {id} is no longer listed")),
        }
    }

    /// Where a read goes (why it cannot, when its host is not known).
    pub(super) fn route_fetch(&self, fetch: &Fetch) -> Result<Route, String> {
        if !self.links.multi {
            return Ok(Route::One(0));
        }
        if fetch.of_everything() {
            return Ok(Route::Every);
        }
        let mut fetch = fetch.clone();
        if let Some(slug) = fetch.slugs_mut().first() {
            return self.links.of_slug(slug).map(Route::One);
        }
        match &fetch {
            Fetch::Transcript(session_id) => self.host_of_session(session_id).map(Route::One),
            // An attachment is the open chat's.
            _ => match &self.app.chat {
                Some(chat) => self.links.of_slug(chat.project_slug()).map(Route::One),
                None => Err("no chat is open".to_owned()),
            },
        }
    }

    /// The command for each host it goes to (a command on chats of several hosts is split);
    /// its slugs still qualified.
    pub(super) fn route_doing(&self, doing: Doing) -> Result<Vec<(usize, Doing)>, String> {
        if !self.links.multi {
            return Ok(vec![(0, doing)]);
        }
        let one = |host: Result<usize, String>, doing: Doing| host.map(|h| vec![(h, doing)]);
        match doing {
            Doing::MarkRead(update) => self.split_update(update, Doing::MarkRead),
            Doing::Update(update) => self.split_update(update, Doing::Update),
            Doing::Delete(delete) => Ok(self
                .by_host(&delete.0.session_ids)?
                .into_iter()
                .map(|(h, session_ids)| (h, Doing::Delete(ChatDelete(SessionIds { session_ids }))))
                .collect()),
            Doing::Answer(answer) => {
                let mut hosts: BTreeMap<usize, Vec<String>> = BTreeMap::new();
                for id in &answer.ids {
                    hosts
                        .entry(self.host_of_approval(id)?)
                        .or_default()
                        .push(id.clone());
                }
                Ok(hosts
                    .into_iter()
                    .map(|(h, ids)| {
                        let mut answer = answer.clone();
                        answer.ids = ids;
                        (h, Doing::Answer(answer))
                    })
                    .collect())
            }
            Doing::HistorySeen | Doing::Notifications => Ok((0..self.links.list.len())
                .filter(|&h| self.links.list[h].is_up())
                .map(|h| (h, doing.clone()))
                .collect()),
            Doing::Promote(promote) => {
                let from = self.host_of_session(&promote.session_id)?;
                let to = self.links.of_slug(&promote.to_project)?;
                if from != to {
                    return Err(format!(
                        "a chat moves only to a project of its own host ({})",
                        self.links.list[from].name
                    ));
                }
                Ok(vec![(from, Doing::Promote(promote))])
            }
            Doing::Cancel(ref c) => one(self.host_of_session(&c.session_id), doing),
            Doing::Fork(ref f) => one(self.host_of_session(&f.session_id), doing),
            Doing::Continue(ref c) => one(self.host_of_session(&c.0.session_id), doing),
            Doing::Queue(ref q) => one(self.host_of_session(&q.session_id), doing),
            Doing::Follow(ref s) => one(self.host_of_session(&s.session_id), doing),
            Doing::Unsubscribe(ref u) => one(self.host_of_session(&u.0.session_id), doing),
            Doing::Commit(_)
            | Doing::Push(_)
            | Doing::Fire(_)
            | Doing::Remove(_)
            | Doing::Save(_) => {
                let mut doing = doing;
                let host = match doing.slugs_mut().first() {
                    Some(slug) => self.links.of_slug(slug),
                    None => Err("it names no project".to_owned()),
                };
                one(host, doing)
            }
        }
    }

    /// A `chat:update` of chats on several hosts as one per host.
    fn split_update(
        &self,
        update: ChatUpdate,
        doing: fn(ChatUpdate) -> Doing,
    ) -> Result<Vec<(usize, Doing)>, String> {
        Ok(self
            .by_host(&update.session_ids)?
            .into_iter()
            .map(|(h, session_ids)| {
                let update = ChatUpdate {
                    session_ids,
                    action: update.action,
                };
                (h, doing(update))
            })
            .collect())
    }

    /// Chats grouped by their host.
    fn by_host(&self, session_ids: &[String]) -> Result<BTreeMap<usize, Vec<String>>, String> {
        let mut hosts: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for session_id in session_ids {
            hosts
                .entry(self.host_of_session(session_id)?)
                .or_default()
                .push(session_id.clone());
        }
        Ok(hosts)
    }
}

#[cfg(test)]
mod tests {
    use paddock_proto::{ChatAction, ChatPromote, ChatSummary, ProjectInfo};

    use super::*;
    use crate::commands::Context;
    use crate::hosts::{Host, Hosts};
    use crate::tui::hosts::Links;

    /// A loop over hosts a and b, whose tree holds a1 (a's root) and b1 (b:web).
    fn two_hosts() -> EventLoop {
        let host = |name: &str| Host {
            name: name.to_owned(),
            ctx: Context::new(None),
        };
        let hosts = Hosts {
            list: vec![host("a"), host("b")],
            timeout: std::time::Duration::from_secs(5),
        };
        let mut event_loop = EventLoop::new(Links::new(hosts));
        let project = |slug: &str| ProjectInfo {
            slug: slug.to_owned(),
            ..ProjectInfo::default()
        };
        let chat = |slug: &str, id: &str| ChatSummary {
            session_id: id.to_owned(),
            project_slug: slug.to_owned(),
            ..ChatSummary::default()
        };
        event_loop
            .app
            .set_projects(vec![project("a:"), project("b:web")]);
        event_loop
            .app
            .set_all_chats(vec![chat("a:", "a1"), chat("b:web", "b1")]);
        event_loop
    }

    #[test]
    fn a_request_goes_to_the_host_of_its_project_or_chat_and_a_listing_to_every_host() {
        let event_loop = two_hosts();
        assert!(matches!(
            event_loop.route_fetch(&Fetch::Chats("b:web".into())),
            Ok(Route::One(1))
        ));
        assert!(matches!(
            event_loop.route_fetch(&Fetch::Transcript("a1".into())),
            Ok(Route::One(0))
        ));
        assert!(matches!(
            event_loop.route_fetch(&Fetch::History),
            Ok(Route::Every)
        ));
        // A chat nobody listed: said, not guessed.
        let unknown = event_loop.route_fetch(&Fetch::Transcript("zz".into()));
        assert!(unknown.is_err_and(|e| e.contains("which host")));
    }

    #[test]
    fn a_command_on_chats_of_two_hosts_is_one_per_host_and_a_move_stays_on_its_host() {
        let event_loop = two_hosts();
        let update = Doing::Update(ChatUpdate {
            session_ids: vec!["b1".into(), "a1".into()],
            action: ChatAction::Archive,
        });
        let routed = event_loop.route_doing(update).unwrap_or_default();
        let ids: Vec<(usize, Vec<String>)> = routed
            .into_iter()
            .filter_map(|(h, d)| match d {
                Doing::Update(u) => Some((h, u.session_ids)),
                _ => None,
            })
            .collect();
        assert_eq!(
            ids,
            [(0, vec!["a1".to_owned()]), (1, vec!["b1".to_owned()])]
        );
        let across = Doing::Promote(ChatPromote {
            session_id: "a1".into(),
            to_project: "b:web".into(),
        });
        let refused = event_loop.route_doing(across);
        assert!(refused.is_err_and(|e| e.contains("its own host (a)")));
    }
}
