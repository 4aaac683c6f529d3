//! Project slugs across hosts. On a client of several hosts the TUI names every project
//! `HOST:SLUG` (the form `-p` takes; `HOST:` is a host's root workspace), so the tree, the
//! views and their keys work unchanged: a request is routed by the host in its slugs and sent
//! with them stripped ([`Slugs::unqualify`]), and an answer or event gets its host put back in
//! ([`Slugs::qualify`]). Each type that carries slugs lists them once, in [`Slugs::slugs_mut`].

use paddock_proto::{ChatSummary, HubFrame};

use super::super::doing::{Acted, Doing, Done};
use super::super::fetch::{Answer, Fetch};
use crate::client::Event;

/// `HOST:SLUG`.
pub fn qualified(host: &str, slug: &str) -> String {
    format!("{host}:{slug}")
}

/// A qualified slug's host and the slug on that host (`None`: it names no host). The last `:`
/// splits, as `-p HOST:SLUG` does: a slug never holds one, an ssh destination may.
pub fn split(slug: &str) -> Option<(&str, &str)> {
    slug.rsplit_once(':')
}

/// The host of a qualified slug (`None`: the slug names none).
pub fn host_of(slug: &str) -> Option<&str> {
    split(slug).map(|(host, _)| host)
}

/// The slug on its host (a plain slug as it is).
pub fn local_of(slug: &str) -> &str {
    split(slug).map_or(slug, |(_, local)| local)
}

/// Something that names projects: its slugs, to route it and to qualify it.
pub trait Slugs {
    /// Every project slug it holds.
    fn slugs_mut(&mut self) -> Vec<&mut String>;

    /// Puts `host` in front of every slug (an answer or an event of that host).
    fn qualify(&mut self, host: &str) {
        for slug in self.slugs_mut() {
            *slug = qualified(host, slug);
        }
    }

    /// Takes the host out of every slug (a request about to go to it).
    fn unqualify(&mut self) {
        for slug in self.slugs_mut() {
            *slug = local_of(slug).to_owned();
        }
    }
}

fn chat_slugs(chat: &mut ChatSummary) -> impl Iterator<Item = &mut String> {
    std::iter::once(&mut chat.project_slug).chain(chat.parent_project.as_mut())
}

fn rows(chats: &mut [ChatSummary]) -> Vec<&mut String> {
    chats.iter_mut().flat_map(chat_slugs).collect()
}

impl Slugs for Fetch {
    fn slugs_mut(&mut self) -> Vec<&mut String> {
        match self {
            Fetch::Chats(slug) | Fetch::Archived(slug) | Fetch::Overview(slug) => vec![slug],
            Fetch::Triggers(slug) => slug.iter_mut().collect(),
            Fetch::TriggerRuns(id) => vec![&mut id.project_slug],
            Fetch::GitStatus { project_slug, .. }
            | Fetch::GitDiff { project_slug, .. }
            | Fetch::Provenance { project_slug, .. }
            | Fetch::Touched { project_slug, .. }
            | Fetch::Blame { project_slug, .. }
            | Fetch::Listing { project_slug, .. }
            | Fetch::FileText { project_slug, .. } => vec![project_slug],
            Fetch::Projects
            | Fetch::AllChats
            | Fetch::Transcript(_)
            | Fetch::History
            | Fetch::Approvals
            | Fetch::Status
            | Fetch::Search(_)
            | Fetch::Usage(_)
            | Fetch::Attachment(_) => Vec::new(),
        }
    }
}

impl Slugs for Answer {
    fn slugs_mut(&mut self) -> Vec<&mut String> {
        match self {
            Answer::Projects(Ok(p)) => p.projects.iter_mut().map(|p| &mut p.slug).collect(),
            Answer::Chats(Ok(c)) => rows(&mut c.chats),
            Answer::Transcript(Ok(t)) => chat_slugs(&mut t.chat).collect(),
            Answer::History(Ok(h)) => h.runs.iter_mut().map(|r| &mut r.project_slug).collect(),
            Answer::Approvals(Ok(a)) => a
                .approvals
                .iter_mut()
                .map(|a| &mut a.project_slug)
                .collect(),
            Answer::GitStatus(Ok(s)) => vec![&mut s.project_slug],
            Answer::GitDiff(Ok(d)) => vec![&mut d.project_slug],
            Answer::Provenance(Ok(p)) => vec![&mut p.project_slug],
            Answer::Touched(Ok(t)) => std::iter::once(&mut t.project_slug)
                .chain(t.turns.iter_mut().filter_map(|t| t.project_slug.as_mut()))
                .collect(),
            Answer::Blame(Ok(b)) => vec![&mut b.project_slug],
            Answer::Listing(Ok(l)) => vec![&mut l.project_slug],
            Answer::FileText(Ok(f)) => vec![&mut f.project_slug],
            Answer::Search(Ok(s)) => s.hits.iter_mut().map(|h| &mut h.project_slug).collect(),
            Answer::Triggers(Ok(t)) => t.triggers.iter_mut().map(|t| &mut t.project_slug).collect(),
            Answer::Overview(Ok(o)) => vec![&mut o.project.slug],
            _ => Vec::new(),
        }
    }
}

impl Slugs for Doing {
    fn slugs_mut(&mut self) -> Vec<&mut String> {
        match self {
            Doing::Promote(p) => vec![&mut p.to_project],
            Doing::Commit(c) => vec![&mut c.project_slug],
            Doing::Push(p) => vec![&mut p.project_slug],
            Doing::Fire(f) => vec![&mut f.project_slug],
            Doing::Remove(r) => vec![&mut r.0.project_slug],
            Doing::Save(s) => vec![&mut s.project_slug],
            Doing::MarkRead(_)
            | Doing::Update(_)
            | Doing::Cancel(_)
            | Doing::Fork(_)
            | Doing::Delete(_)
            | Doing::Continue(_)
            | Doing::Queue(_)
            | Doing::Answer(_)
            | Doing::HistorySeen
            | Doing::Follow(_)
            | Doing::Unsubscribe(_)
            | Doing::Notifications => Vec::new(),
        }
    }
}

impl Slugs for Done {
    fn slugs_mut(&mut self) -> Vec<&mut String> {
        match self {
            Done::Fork(Ok(f)) => vec![&mut f.project_slug],
            Done::Promote(Ok(p)) => vec![&mut p.from_project, &mut p.to_project],
            Done::Continue(Ok(s)) => vec![&mut s.project_slug],
            Done::Commit(Ok(c)) => vec![&mut c.project_slug],
            Done::Push(Ok(p)) => vec![&mut p.project_slug],
            Done::Trigger(Acted::Saved(Ok(t))) => vec![&mut t.project_slug],
            _ => Vec::new(),
        }
    }
}

impl Slugs for paddock_proto::Sent {
    fn slugs_mut(&mut self) -> Vec<&mut String> {
        vec![&mut self.project_slug]
    }
}

impl Slugs for paddock_proto::ChatSend {
    fn slugs_mut(&mut self) -> Vec<&mut String> {
        vec![&mut self.project_slug]
    }
}

impl Slugs for Event {
    fn slugs_mut(&mut self) -> Vec<&mut String> {
        match self {
            Event::Frame(HubFrame { routing, .. }) => vec![&mut routing.project_slug],
            Event::Active(a) => vec![&mut a.project_slug],
            Event::ChatsChanged(c) => vec![&mut c.project_slug],
            Event::ProjectChanged(c) => vec![&mut c.project_slug],
            Event::Attention(a) => vec![&mut a.project_slug],
            Event::Resync(_)
            | Event::ApprovalsChanged(_)
            | Event::Stopping(_)
            | Event::DaemonError(_)
            | Event::Undecodable(_)
            | Event::Lagged { .. } => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_loses_its_host_and_an_answer_gets_it() {
        let mut fetch = Fetch::Chats("devbox:web".to_owned());
        fetch.unqualify();
        assert_eq!(fetch, Fetch::Chats("web".to_owned()));
        // The root workspace is `HOST:`.
        let mut root = Fetch::Overview("devbox:".to_owned());
        root.unqualify();
        assert_eq!(root, Fetch::Overview(String::new()));
        let chat = ChatSummary {
            project_slug: "web".to_owned(),
            parent_project: Some(String::new()),
            ..ChatSummary::default()
        };
        let mut answer = Answer::Chats(Ok(paddock_proto::Chats {
            chats: vec![chat],
            ..paddock_proto::Chats::default()
        }));
        answer.qualify("gpubox");
        let Answer::Chats(Ok(chats)) = answer else {
            panic!("not chats");
        };
        assert_eq!(chats.chats[0].project_slug, "gpubox:web");
        assert_eq!(chats.chats[0].parent_project.as_deref(), Some("gpubox:"));
        assert_eq!(host_of("gpubox:web"), Some("gpubox"));
        assert_eq!(host_of("web"), None);
        // A host named by an ssh destination with a `:` of its own.
        assert_eq!(split("me@[::1]:web"), Some(("me@[::1]", "web")));
        assert_eq!(local_of("web"), "web");
    }
}
