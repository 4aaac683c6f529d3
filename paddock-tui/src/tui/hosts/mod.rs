//! The TUI's hosts (DESIGN §8): one connection per daemon ([`Link`]), each with its own state,
//! backoff and events, so a host that is slow, refusing or gone never holds up the others.
//!
//! A client of one host is a fleet of one: its slugs are the daemon's own and it draws as it
//! always did. On a client of several, every slug the TUI holds is `HOST:SLUG` ([`slugs`]):
//! a request is sent to the host its slugs (or its chat) name, with the host taken out; a read
//! of everything ([`fan`]) goes to every host at once, each within `host_timeout`, and the
//! answers are merged. A host that is down keeps its last tree on screen, dimmed, and refuses
//! what would act on it until it is back ([`Links::ready`]).

pub mod fan;
pub mod slugs;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::app::Connection;
use super::tree::{HostHead, HostState};
use crate::client::{Client, Event, Events};
use crate::commands::Context;
use crate::hosts::Hosts;

/// The first wait before reconnecting after a daemon went away; doubled per failure.
pub const RETRY_FIRST: Duration = Duration::from_millis(250);
/// The longest wait between two reconnection attempts.
pub const RETRY_MAX: Duration = Duration::from_secs(8);
/// Events of every host waiting for the loop. Overflow policy: a host's forwarder waits for
/// room, so its own connection's queue fills and that queue's policy applies (the events are
/// dropped and counted, and the loop gets `Lagged`, then reads everything again).
pub const EVENTS_QUEUE: usize = 1024;

/// An event of one host's connection (`None`: the connection ended).
#[derive(Debug)]
pub struct HostEvent {
    pub host: usize,
    pub generation: u64,
    pub event: Option<Event>,
}

/// One daemon and the TUI's connection to it.
#[derive(Debug)]
pub struct Link {
    pub name: String,
    pub ctx: Context,
    pub client: Option<Arc<Client>>,
    /// Tells the answers and events of a previous connection (or attempt) apart.
    pub generation: u64,
    /// When to try connecting again, and the wait after that one fails.
    pub retry: Option<Instant>,
    pub backoff: Duration,
    /// The pid of the daemon last connected to: the same one after a dropped connection
    /// still has the running turn's frames, with the same seqs.
    pub daemon_pid: Option<u32>,
    /// The daemon said it is stopping on purpose (`daemon:stopping`): when its connection
    /// ends, the TUI does not start another one by itself.
    pub stopping: Option<String>,
    pub state: Connection,
    /// When it last answered: a host that is down says since when.
    pub last_seen: Option<SystemTime>,
    /// Its approvals waiting for a person (`approvals:changed`).
    pub pending_approvals: u32,
    /// Why the last attempt failed (until one succeeds): a host tried again is still down.
    pub last_error: Option<String>,
}

impl Link {
    fn new(name: String, ctx: Context) -> Self {
        Self {
            name,
            ctx,
            client: None,
            generation: 0,
            retry: None,
            backoff: RETRY_FIRST,
            daemon_pid: None,
            stopping: None,
            state: Connection::Connecting,
            last_seen: None,
            pending_approvals: 0,
            last_error: None,
        }
    }

    /// Schedules the next connection attempt, backing off while the daemon stays away.
    pub fn retry_later(&mut self) {
        self.retry = Some(Instant::now() + self.backoff);
        self.backoff = (self.backoff * 2).min(RETRY_MAX);
    }

    pub fn is_up(&self) -> bool {
        self.client.is_some()
    }

    /// It was connected once (its daemon's pid is known): coming back is said.
    pub fn was_up(&self) -> bool {
        self.daemon_pid.is_some()
    }
}

/// Every host of the client.
#[derive(Debug)]
pub struct Links {
    pub list: Vec<Link>,
    /// Several hosts: slugs are `HOST:SLUG` and the tree has hosts on top.
    pub multi: bool,
    /// How long each host gets to answer a read of everything.
    pub timeout: Duration,
}

impl Links {
    pub fn new(hosts: Hosts) -> Self {
        let multi = hosts.several();
        Self {
            list: hosts
                .list
                .into_iter()
                .map(|h| Link::new(h.name, h.ctx))
                .collect(),
            multi,
            timeout: hosts.timeout,
        }
    }

    /// The host a (qualified) slug names; on a client of one host, that host.
    pub fn of_slug(&self, slug: &str) -> Result<usize, String> {
        if !self.multi {
            return Ok(0);
        }
        let Some(name) = slugs::host_of(slug) else {
            return Err(format!("project {slug} names no host"));
        };
        self.list
            .iter()
            .position(|l| l.name == name)
            .ok_or_else(|| format!("no host {name}"))
    }

    /// The host a slug of host `host` carries (`None`: a client of one host, whose slugs are
    /// the daemon's own).
    pub fn qualifier(&self, host: usize) -> Option<String> {
        self.list
            .get(host)
            .filter(|_| self.multi)
            .map(|l| l.name.clone())
    }

    /// Whether `generation` is host `host`'s connection (or attempt) now.
    pub fn is_current(&self, host: usize, generation: u64) -> bool {
        self.list
            .get(host)
            .is_some_and(|l| l.generation == generation)
    }

    /// The connection of host `i`, or why it cannot take a request now.
    pub fn ready(&self, i: usize) -> Result<Arc<Client>, String> {
        let Some(link) = self.list.get(i) else {
            return Err("no such host".to_owned());
        };
        if let Some(client) = &link.client {
            return Ok(Arc::clone(client));
        }
        if !self.multi {
            return Err("not connected to paddockd".to_owned());
        }
        Err(match link.last_seen {
            Some(at) => format!(
                "host {} is down (last seen {}); paddock tries again by itself",
                link.name,
                clock(at)
            ),
            None => format!("host {} is not connected yet", link.name),
        })
    }

    /// The hosts that are connected, with their connections.
    pub fn up(&self) -> Vec<(String, Arc<Client>)> {
        self.list
            .iter()
            .filter_map(|l| l.client.as_ref().map(|c| (l.name.clone(), Arc::clone(c))))
            .collect()
    }

    /// The names of the hosts that are not connected.
    pub fn down(&self) -> Vec<String> {
        self.list
            .iter()
            .filter(|l| !l.is_up())
            .map(|l| l.name.clone())
            .collect()
    }

    pub fn any_up(&self) -> bool {
        self.list.iter().any(Link::is_up)
    }

    /// The soonest reconnection attempt due.
    pub fn next_retry(&self) -> Option<Instant> {
        self.list.iter().filter_map(|l| l.retry).min()
    }

    /// Approvals waiting on every host.
    pub fn pending_approvals(&self) -> u32 {
        self.list.iter().map(|l| l.pending_approvals).sum()
    }

    /// What the header and the screen say of the connection: the one host's state; of
    /// several, connected while any is (the first one's hello), else connecting while any
    /// tries, else each one's reason.
    pub fn summary(&self) -> Connection {
        if !self.multi {
            return self
                .list
                .first()
                .map_or(Connection::Connecting, |l| l.state.clone());
        }
        if let Some(up) = self.list.iter().find_map(|l| match &l.state {
            Connection::Connected(hello) => Some(hello.clone()),
            _ => None,
        }) {
            return Connection::Connected(up);
        }
        if self
            .list
            .iter()
            .any(|l| matches!(l.state, Connection::Connecting))
        {
            return Connection::Connecting;
        }
        if self
            .list
            .iter()
            .all(|l| matches!(l.state, Connection::Stopped(_)))
        {
            return Connection::Stopped("every host's paddockd was stopped".to_owned());
        }
        let reasons: Vec<String> = self
            .list
            .iter()
            .map(|l| match &l.state {
                Connection::Unreachable(why) | Connection::Stopped(why) => {
                    format!("{}: {why}", l.name)
                }
                _ => l.name.clone(),
            })
            .collect();
        Connection::Unreachable(format!("no host answers. {}", reasons.join("; ")))
    }

    /// The hosts as the tree draws them (none on a client of one host: it draws as before).
    pub fn heads(&self) -> Vec<HostHead> {
        if !self.multi {
            return Vec::new();
        }
        self.list
            .iter()
            .map(|l| {
                HostHead::new(
                    &l.name,
                    match &l.state {
                        Connection::Connected(_) => HostState::Up,
                        Connection::Connecting if !l.was_up() && l.last_error.is_none() => {
                            HostState::Connecting
                        }
                        Connection::Connecting => HostState::Down {
                            reason: l
                                .last_error
                                .clone()
                                .unwrap_or_else(|| "reconnecting".to_owned()),
                            last_seen: l.last_seen,
                        },
                        Connection::Unreachable(why) | Connection::Stopped(why) => {
                            HostState::Down {
                                reason: why.clone(),
                                last_seen: l.last_seen,
                            }
                        }
                    },
                )
            })
            .collect()
    }
}

/// Forwards one connection's events, with their host put in their slugs, to the loop's queue
/// until the connection ends (said with a last `None`).
pub fn forward(
    mut events: Events,
    host: usize,
    name: Option<String>,
    generation: u64,
    tx: mpsc::Sender<HostEvent>,
) {
    tokio::spawn(async move {
        loop {
            let mut event = events.recv().await;
            let end = event.is_none();
            if let (Some(ev), Some(name)) = (event.as_mut(), name.as_deref()) {
                slugs::Slugs::qualify(ev, name);
            }
            let sent = tx
                .send(HostEvent {
                    host,
                    generation,
                    event,
                })
                .await;
            if sent.is_err() || end {
                return;
            }
        }
    });
}

/// A moment as the local clock shows it (`14:03`).
pub fn clock(at: SystemTime) -> String {
    chrono::DateTime::<chrono::Local>::from(at)
        .format("%H:%M")
        .to_string()
}
