//! Requests someone is waiting on, which the index build steps aside for.
//!
//! The build runs at a lower priority, but on two cores with one malloc arena (`main.rs`) its
//! allocations still contend with a request's: the first chat list after a restart, made while
//! the build reads every transcript, took 120 ms of rows instead of 46 ms. So a request whose
//! answer someone waits for marks itself ([`Foreground::enter`]) for as long as it works, and
//! the build waits until no request does ([`Foreground::wait_clear`]) before it starts and
//! between two chats — at most [`MAX_WAIT`] at a time, so a stream of requests slows the build
//! down but never stops it.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

/// The longest the build waits for requests at one time.
pub(crate) const MAX_WAIT: Duration = Duration::from_millis(250);

/// How many requests are at work now (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Foreground {
    busy: Mutex<usize>,
    clear: Condvar,
}

/// A request at work; the build may go on once it is dropped.
#[derive(Debug)]
pub struct Serving {
    foreground: Arc<Foreground>,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let mut busy = self.foreground.lock();
        *busy = busy.saturating_sub(1);
        if *busy == 0 {
            self.foreground.clear.notify_all();
        }
    }
}

impl Foreground {
    fn lock(&self) -> std::sync::MutexGuard<'_, usize> {
        self.busy.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Marks a request at work until the guard is dropped.
    pub(crate) fn enter(self: &Arc<Self>) -> Serving {
        *self.lock() += 1;
        Serving {
            foreground: self.clone(),
        }
    }

    /// Blocks while a request is at work, up to `most`; true when it waited at all.
    pub(crate) fn wait_clear(&self, most: Duration) -> bool {
        let busy = self.lock();
        if *busy == 0 {
            return false;
        }
        let _ = self
            .clear
            .wait_timeout_while(busy, most, |busy| *busy > 0)
            .unwrap_or_else(PoisonError::into_inner);
        true
    }

    #[cfg(test)]
    fn busy(&self) -> usize {
        *self.lock()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_waits_while_a_request_works_and_goes_on_when_it_ends() {
        let fg = Arc::new(Foreground::default());
        assert!(
            !fg.wait_clear(Duration::from_secs(60)),
            "nothing to wait for"
        );
        let serving = fg.enter();
        let twice = fg.enter();
        assert_eq!(fg.busy(), 2);
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = {
            let fg = fg.clone();
            std::thread::spawn(move || {
                // Far longer than the test: it returns because the requests ended.
                let waited = fg.wait_clear(Duration::from_secs(600));
                let _ = tx.send(fg.busy());
                waited
            })
        };
        drop(serving);
        assert!(
            rx.recv_timeout(Duration::from_millis(50)).is_err(),
            "one request still works"
        );
        drop(twice);
        assert_eq!(rx.recv().ok(), Some(0));
        assert_eq!(waiter.join().ok(), Some(true));
    }

    #[test]
    fn the_wait_is_bounded() {
        let fg = Arc::new(Foreground::default());
        let _forever = fg.enter();
        assert!(fg.wait_clear(Duration::from_millis(1)));
        assert_eq!(fg.busy(), 1);
    }
}
