//! Keys typed before the screen is ready to take them (the first listing not in yet, the chat
//! the client state reopens not read yet): kept in order and replayed once it is, so `j j
//! Enter` typed while `paddock` starts lands where it was aimed instead of moving a cursor over
//! an empty list, or being undone by the cursor the client state restores.
//!
//! Bounded: at most [`KEPT`] keys; past that the newest are dropped and counted (the caller
//! says so). Ctrl-C always acts at once, and so does `q` while nothing is held (held keys
//! before it may be text for a field, where a `q` is a letter).

use std::collections::VecDeque;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// The most keys held.
pub const KEPT: usize = 64;

/// The keys held while the screen is not ready.
#[derive(Debug, Default)]
pub struct Typeahead {
    keys: VecDeque<KeyEvent>,
    /// Keys dropped since the last [`Typeahead::take`]: typed past [`KEPT`].
    dropped: usize,
}

impl Typeahead {
    /// Holds `key` unless it must act now (Ctrl-C; `q` with nothing held; a release). True
    /// when it was taken (held, or dropped past [`KEPT`]).
    pub fn hold(&mut self, key: KeyEvent) -> bool {
        if key.kind == KeyEventKind::Release || acts_now(&key, self.keys.is_empty()) {
            return false;
        }
        if self.keys.len() < KEPT {
            self.keys.push_back(key);
        } else {
            self.dropped += 1;
        }
        true
    }

    /// The held keys, oldest first, and how many were dropped; both forgotten.
    pub fn take(&mut self) -> (Vec<KeyEvent>, usize) {
        let dropped = std::mem::take(&mut self.dropped);
        (self.keys.drain(..).collect(), dropped)
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.dropped == 0
    }
}

/// Whether a key acts at once rather than wait its turn: Ctrl-C (quit), and `q` (quit) when
/// no key before it waits.
fn acts_now(key: &KeyEvent, nothing_held: bool) -> bool {
    let ctrl_c = key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
    let quit = nothing_held && key.modifiers.is_empty() && key.code == KeyCode::Char('q');
    ctrl_c || quit
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn keys_are_held_in_order_and_taken_once() {
        let mut t = Typeahead::default();
        assert!(t.hold(ch('j')));
        assert!(t.hold(ch('j')));
        assert!(t.hold(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)));
        let (keys, dropped) = t.take();
        assert_eq!(
            keys.iter().map(|k| k.code).collect::<Vec<_>>(),
            [KeyCode::Char('j'), KeyCode::Char('j'), KeyCode::Enter]
        );
        assert_eq!(dropped, 0);
        assert!(t.is_empty());
    }

    #[test]
    fn quit_acts_at_once_unless_keys_wait_before_it() {
        let mut t = Typeahead::default();
        assert!(!t.hold(ch('q')), "q quits at once");
        assert!(!t.hold(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)));
        assert!(t.hold(ch('/')));
        assert!(t.hold(ch('q')), "after `/`, q is text");
        assert!(!t.hold(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)));
    }

    #[test]
    fn past_the_bound_the_newest_are_dropped_and_counted() {
        let mut t = Typeahead::default();
        for _ in 0..KEPT + 3 {
            assert!(t.hold(ch('j')));
        }
        let (keys, dropped) = t.take();
        assert_eq!((keys.len(), dropped), (KEPT, 3));
    }
}
