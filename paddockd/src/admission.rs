//! Bounds on network connections that have not yet shown a credential: the WebSocket's upgrade
//! and a management request's head. Anyone who reaches the port can open such a connection, so
//! none of them may hold up an authenticated one.
//!
//! Each connection is its own task from the moment it is accepted (the listeners never wait
//! for a slot before accepting). While it waits for its head it holds a [`Waiting`] place, and
//! must complete the head within `net_header_timeout_ms`. The places are bounded, with this
//! overflow policy: a peer may hold [`Limits::per_peer`] (`net_waiting_per_peer`) places, all
//! peers together [`MAX_WAITING`]; a connection that would go past either bound takes the place
//! of the oldest waiting one (that peer's, or anyone's), which is closed. A client that sends its
//! request as soon as it connects is so always read, however many idle connections were opened
//! before it; an attacker can only push out connections as fast as it opens new ones.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// Waiting places of all peers together.
pub const MAX_WAITING: usize = 256;

/// The configured bounds (`net_header_timeout_ms`, `net_waiting_per_peer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How long a new connection has to send its request head (the WebSocket upgrade, a
    /// management request) before it is closed.
    pub header_timeout: Duration,
    /// Waiting places one peer (an IPv4 address, an IPv6 /64) may hold.
    pub per_peer: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(10),
            per_peer: 16,
        }
    }
}

/// The waiting places of one listener.
#[derive(Debug)]
pub struct Admission {
    per_peer: usize,
    max: usize,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    next: u64,
    /// By age: the smallest id waits longest.
    waiting: BTreeMap<u64, (Peer, CancellationToken)>,
    per_peer: HashMap<Peer, usize>,
}

/// Who a limit counts: an IPv4 address, or the /64 of an IPv6 one (a host gets a whole /64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Peer {
    V4([u8; 4]),
    V6([u8; 8]),
}

impl Peer {
    fn of(ip: IpAddr) -> Self {
        match ip {
            IpAddr::V4(v4) => Self::V4(v4.octets()),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self::V4(v4.octets()),
                None => {
                    let o = v6.octets();
                    Self::V6([o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]])
                }
            },
        }
    }
}

/// A connection's waiting place; dropping it (the credential was shown, or the connection
/// ended) frees it.
#[derive(Debug)]
pub struct Waiting {
    id: u64,
    admission: Arc<Admission>,
    evicted: CancellationToken,
}

impl Waiting {
    /// Resolves when a newer connection took this place: the connection is to be closed.
    pub async fn evicted(&self) {
        self.evicted.cancelled().await;
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let mut state = self.admission.lock();
        state.remove(self.id);
    }
}

impl State {
    fn remove(&mut self, id: u64) -> Option<CancellationToken> {
        let (peer, token) = self.waiting.remove(&id)?;
        if let Some(n) = self.per_peer.get_mut(&peer) {
            *n -= 1;
            if *n == 0 {
                self.per_peer.remove(&peer);
            }
        }
        Some(token)
    }
}

impl Admission {
    pub fn new(limits: Limits) -> Arc<Self> {
        Self::with_max(limits, MAX_WAITING)
    }

    fn with_max(limits: Limits, max: usize) -> Arc<Self> {
        Arc::new(Self {
            per_peer: limits.per_peer.max(1),
            max: max.max(1),
            state: Mutex::default(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // Nothing panics while holding it; a poisoned lock still holds consistent counts.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A waiting place for a connection from `ip`, closing the oldest waiting connection of
    /// that peer, or of all, when a bound is reached.
    pub fn wait(self: &Arc<Self>, ip: IpAddr) -> Waiting {
        let peer = Peer::of(ip);
        let mut state = self.lock();
        if state.per_peer.get(&peer).copied().unwrap_or(0) >= self.per_peer {
            let oldest = state
                .waiting
                .iter()
                .find(|(_, (p, _))| *p == peer)
                .map(|(id, _)| *id);
            if let Some(token) = oldest.and_then(|id| state.remove(id)) {
                tracing::debug!(%ip, "a peer's waiting connections are at the limit; closing its oldest");
                token.cancel();
            }
        }
        if state.waiting.len() >= self.max {
            let oldest = state.waiting.keys().next().copied();
            if let Some(token) = oldest.and_then(|id| state.remove(id)) {
                tracing::debug!("waiting connections are at the limit; closing the oldest");
                token.cancel();
            }
        }
        let id = state.next;
        state.next += 1;
        let evicted = CancellationToken::new();
        state.waiting.insert(id, (peer, evicted.clone()));
        *state.per_peer.entry(peer).or_default() += 1;
        drop(state);
        Waiting {
            id,
            admission: self.clone(),
            evicted,
        }
    }

    /// Connections waiting now.
    pub fn waiting(&self) -> usize {
        self.lock().waiting.len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn limits(per_peer: usize) -> Limits {
        Limits {
            header_timeout: Duration::from_secs(1),
            per_peer,
        }
    }

    #[test]
    fn a_peer_over_its_limit_pushes_out_its_own_oldest() {
        let a = Admission::with_max(limits(2), 10);
        let first = a.wait(ip("127.0.0.1"));
        let other = a.wait(ip("127.0.0.2"));
        let second = a.wait(ip("127.0.0.1"));
        assert!(!first.evicted.is_cancelled());
        let third = a.wait(ip("127.0.0.1"));
        assert!(first.evicted.is_cancelled());
        assert!(!second.evicted.is_cancelled() && !third.evicted.is_cancelled());
        assert!(!other.evicted.is_cancelled());
        assert_eq!(a.waiting(), 3);
        drop((first, second, third, other));
        assert_eq!(a.waiting(), 0);
        assert!(a.lock().per_peer.is_empty());
    }

    #[test]
    fn the_pool_over_its_bound_pushes_out_the_oldest_of_all() {
        let a = Admission::with_max(limits(4), 3);
        let w: Vec<Waiting> = (1..=3)
            .map(|i| a.wait(ip(&format!("10.0.0.{i}"))))
            .collect();
        let newest = a.wait(ip("10.0.0.9"));
        assert!(w[0].evicted.is_cancelled());
        assert!(!w[1].evicted.is_cancelled() && !w[2].evicted.is_cancelled());
        assert!(!newest.evicted.is_cancelled());
        assert_eq!(a.waiting(), 3);
    }

    #[test]
    fn a_place_given_up_is_free_again() {
        let a = Admission::with_max(limits(1), 10);
        let first = a.wait(ip("::1"));
        drop(first);
        let second = a.wait(ip("::1"));
        assert!(!second.evicted.is_cancelled());
        // One IPv6 /64 is one peer; a v4-mapped address counts as its IPv4 one.
        let a = Admission::with_max(limits(1), 10);
        let x = a.wait(ip("2001:db8::1"));
        let _y = a.wait(ip("2001:db8::2"));
        assert!(x.evicted.is_cancelled());
        let v4 = a.wait(ip("192.0.2.1"));
        let _mapped = a.wait(ip("::ffff:192.0.2.1"));
        assert!(v4.evicted.is_cancelled());
    }
}
