//! The queue of pushed events, from the reader task to whoever consumes them.
//!
//! Overflow policy: the reader task never waits on this queue, so a consumer that stops reading
//! can never hold up the responses its own requests are waiting for. When the queue is full the
//! event is dropped and counted; the consumer then gets one [`Event::Lagged`] before anything
//! that was queued after the loss (or as soon as it has drained the queue, if nothing followed).
//! That is the daemon's own rule for slow clients (`chat:resync`) brought to this side of the
//! socket: re-read what you show, re-subscribe with `lastSeq`, drop frames already seen by seq.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use paddock_proto::{Active, ChatsChanged, ErrorBody, HubFrame, Resync};
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::{TryRecvError, TrySendError};

/// How many events may wait for the consumer before the overflow policy applies. A turn's
/// stream is a few hundred frames; this leaves room for a terminal that is slow to scroll.
pub const EVENT_QUEUE_CAPACITY: usize = 4096;

/// Something the daemon pushed, outside any response.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A frame of a chat's stream (this connection is subscribed to that chat).
    Frame(HubFrame),
    /// A chat started or stopped running.
    Active(Active),
    /// The daemon could not deliver frames this client needed; re-read and re-subscribe.
    Resync(Resync),
    /// A project's chat list changed.
    ChatsChanged(ChatsChanged),
    /// The pending approvals changed.
    ApprovalsChanged(paddock_proto::ApprovalsChanged),
    /// A project's triggers or git state changed.
    ProjectChanged(paddock_proto::ProjectChanged),
    /// A chat needs the user (only after `notifications:subscribe`).
    Attention(paddock_proto::Attention),
    /// The daemon is shutting down on purpose; the connection ends next.
    Stopping(paddock_proto::Stopping),
    /// The daemon could not read one of this client's lines.
    DaemonError(ErrorBody),
    /// A line from the daemon that this client could not decode (a newer daemon's event).
    Undecodable(String),
    /// This client's queue overflowed and `dropped` events were lost (see the module docs).
    Lagged { dropped: u64 },
}

/// The reader task's end of the queue.
#[derive(Debug)]
pub(crate) struct EventSink {
    tx: mpsc::Sender<Event>,
    lagged: Arc<AtomicU64>,
}

/// The consumer's end of the queue: pushed events in the order the daemon sent them.
#[derive(Debug)]
pub struct Events {
    rx: mpsc::Receiver<Event>,
    lagged: Arc<AtomicU64>,
}

pub(crate) fn channel(capacity: usize) -> (EventSink, Events) {
    let (tx, rx) = mpsc::channel(capacity);
    let lagged = Arc::new(AtomicU64::new(0));
    (
        EventSink {
            tx,
            lagged: lagged.clone(),
        },
        Events { rx, lagged },
    )
}

impl EventSink {
    /// Queues an event without ever waiting (see the overflow policy above).
    pub(crate) fn push(&self, event: Event) {
        // A loss must be reported before anything queued after it.
        let dropped = self.lagged.swap(0, Ordering::AcqRel);
        if dropped > 0 {
            match self.tx.try_send(Event::Lagged { dropped }) {
                Ok(()) => {}
                Err(TrySendError::Full(_)) => {
                    self.lagged.fetch_add(dropped + 1, Ordering::AcqRel);
                    return;
                }
                Err(TrySendError::Closed(_)) => return,
            }
        }
        match self.tx.try_send(event) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                self.lagged.fetch_add(1, Ordering::AcqRel);
            }
            // Nobody listens for events (a one-shot command): dropping them is the point.
            Err(TrySendError::Closed(_)) => {}
        }
    }
}

impl Events {
    /// The next event; `None` once the connection is gone and everything queued was read.
    pub async fn recv(&mut self) -> Option<Event> {
        if let Some(ev) = self.try_recv_inner() {
            return Some(ev);
        }
        let ev = self.rx.recv().await;
        // The queue was empty while we waited, so nothing was dropped meanwhile except if it
        // filled up and overflowed in one go; report that after this event, in order.
        ev.or_else(|| self.take_lagged())
    }

    /// The next event if one is ready now.
    pub fn try_recv(&mut self) -> Option<Event> {
        self.try_recv_inner()
    }

    fn try_recv_inner(&mut self) -> Option<Event> {
        match self.rx.try_recv() {
            Ok(ev) => Some(ev),
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => self.take_lagged(),
        }
    }

    fn take_lagged(&self) -> Option<Event> {
        match self.lagged.swap(0, Ordering::AcqRel) {
            0 => None,
            dropped => Some(Event::Lagged { dropped }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::ChatsChanged;

    fn changed(n: usize) -> Event {
        Event::ChatsChanged(ChatsChanged {
            project_slug: format!("p{n}"),
            session_id: None,
        })
    }

    #[tokio::test]
    async fn overflow_is_reported_before_later_events() {
        let (sink, mut events) = channel(2);
        for n in 0..5 {
            sink.push(changed(n));
        }
        assert_eq!(events.recv().await, Some(changed(0)));
        assert_eq!(events.recv().await, Some(changed(1)));
        // Room again: the next push first queues the loss marker.
        sink.push(changed(5));
        assert_eq!(events.recv().await, Some(Event::Lagged { dropped: 3 }));
        assert_eq!(events.recv().await, Some(changed(5)));
        assert_eq!(events.try_recv(), None);
    }

    #[tokio::test]
    async fn overflow_with_nothing_after_it_is_still_reported() {
        let (sink, mut events) = channel(1);
        sink.push(changed(0));
        sink.push(changed(1));
        assert_eq!(events.recv().await, Some(changed(0)));
        assert_eq!(events.recv().await, Some(Event::Lagged { dropped: 1 }));
        drop(sink);
        assert_eq!(events.recv().await, None);
    }
}
