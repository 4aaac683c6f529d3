//! The status line's message, and the one policy for how long it stays there.
//!
//! Every message has a kind, and the kind decides its lifetime:
//!
//! - **Information** ("archived 3 chats", "committed 1 file as c4ab2fc"): said once, gone after
//!   [`INFO_FOR`] or at the next key, whichever comes first, so it never hides the key hints
//!   for long.
//! - **An error** ("send failed: …"): stays until Esc dismisses it (the Esc does what it does
//!   besides: close a view, leave a pane) or another message replaces it; it is never missed for
//!   having been said while the person looked away.
//! - **A state** ("forking …", "Write needs your approval"): stays while it lasts, and clears
//!   when what it says is over ([`Notice::over`]): a request's answer came, the chat's tool
//!   calls were answered; Esc puts the key hints back meanwhile.
//!
//! What is in force in the tree (marks, the filter, unattended only, flat) is not a message: the
//! status line draws it in its own place, before any message (`status.rs`).

use std::time::{Duration, Instant};

/// How long information stays when no key comes first.
pub const INFO_FOR: Duration = Duration::from_secs(4);

/// What kind of message it is, which decides how long it stays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Info,
    Error,
    /// Lasts until [`Notice::over`] says this is over.
    While(State),
}

/// A state a message reports, until it is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// A request is under way (forking, pushing, deleting): over when its answer comes.
    Request,
    /// A chat's tool call waits for a person: over once that chat has none waiting.
    Approval { session_id: String },
}

#[derive(Debug, Clone)]
struct Said {
    text: String,
    kind: Kind,
    at: Instant,
}

/// The status line's message, if any.
#[derive(Debug, Clone, Default)]
pub struct Notice {
    said: Option<Said>,
}

impl Notice {
    /// Information: gone after [`INFO_FOR`] or at the next key.
    pub fn info(&mut self, text: impl Into<String>) {
        self.say(text, Kind::Info);
    }

    /// An error: stays until dismissed (Esc) or replaced.
    pub fn error(&mut self, text: impl Into<String>) {
        self.say(text, Kind::Error);
    }

    /// A state: stays until [`Notice::over`] ends it (or another message replaces it).
    pub fn while_(&mut self, text: impl Into<String>, state: State) {
        self.say(text, Kind::While(state));
    }

    /// Information or an error, as `result` is.
    pub fn result(&mut self, result: Result<String, String>) {
        match result {
            Ok(text) => self.info(text),
            Err(text) => self.error(text),
        }
    }

    /// Says `text` (which may quote a title, a path or a daemon's message: what a terminal
    /// would act on in it is made visible).
    pub fn say(&mut self, text: impl Into<String>, kind: Kind) {
        let text = text.into();
        self.said = Some(Said {
            text: crate::format::visible(&text).into_owned(),
            kind,
            at: Instant::now(),
        });
    }

    pub fn clear(&mut self) {
        self.said = None;
    }

    /// A key was pressed: information goes, and Esc dismisses an error or a state (the state
    /// goes on; the status line's key hints come back). Whether the key was spent dismissing
    /// an error: an Esc that does so does nothing else, so the filter or the pane under the
    /// message stays.
    pub fn on_key(&mut self, esc: bool) -> bool {
        let kind = self.said.as_ref().map(|s| &s.kind);
        let error = matches!(kind, Some(Kind::Error));
        if matches!(kind, Some(Kind::Info)) || esc {
            self.said = None;
        }
        esc && error
    }

    /// The states `ended` picks are over: a message reporting one goes.
    pub fn over(&mut self, ended: impl Fn(&State) -> bool) {
        if self.reports(ended) {
            self.said = None;
        }
    }

    /// Whether the message reports a state that `pick` picks (and so waits to be told it is
    /// over).
    pub fn reports(&self, pick: impl Fn(&State) -> bool) -> bool {
        matches!(&self.said, Some(Said { kind: Kind::While(state), .. }) if pick(state))
    }

    /// What the status line shows at `now`: information past its time is not shown.
    pub fn shown(&self, now: Instant) -> Option<(&str, &Kind)> {
        let said = self.said.as_ref()?;
        if said.kind == Kind::Info && now.duration_since(said.at) >= INFO_FOR {
            return None;
        }
        Some((said.text.as_str(), &said.kind))
    }

    /// The message, whatever its age (for tests and for what reads it back).
    pub fn text(&self) -> Option<&str> {
        self.said.as_ref().map(|s| s.text.as_str())
    }

    /// When the screen must be drawn again for the message to go (information only).
    pub fn expires_at(&self) -> Option<Instant> {
        self.said
            .as_ref()
            .filter(|s| s.kind == Kind::Info)
            .map(|s| s.at + INFO_FOR)
    }

    /// Forgets information past its time (so that nothing reads it back later).
    pub fn expire(&mut self, now: Instant) {
        if self.said.is_some() && self.shown(now).is_none() {
            self.said = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn information_goes_after_a_while_or_at_the_next_key() {
        let mut n = Notice::default();
        n.info("nothing changed");
        let now = Instant::now();
        assert_eq!(n.shown(now).map(|s| s.0), Some("nothing changed"));
        assert_eq!(n.shown(now + INFO_FOR), None, "gone after INFO_FOR");
        assert_eq!(n.expires_at().map(|at| at >= now), Some(true));
        n.on_key(false);
        assert_eq!(n.text(), None, "gone at the next key");
    }

    #[test]
    fn an_error_stays_until_esc_or_another_message() {
        let mut n = Notice::default();
        n.error("send failed: the daemon went away");
        let later = Instant::now() + INFO_FOR * 100;
        assert!(n.shown(later).is_some(), "an error does not time out");
        assert_eq!(n.expires_at(), None);
        n.on_key(false);
        assert!(n.text().is_some(), "other keys leave it");
        n.on_key(true);
        assert_eq!(n.text(), None, "Esc dismisses it");
        n.error("first");
        n.info("second");
        assert_eq!(n.text(), Some("second"), "replaced");
    }

    #[test]
    fn a_state_stays_while_it_lasts() {
        let mut n = Notice::default();
        let waiting = State::Approval {
            session_id: "s1".into(),
        };
        n.while_("Write needs your approval", waiting);
        n.on_key(false);
        assert!(n.text().is_some(), "keys leave it");
        assert!(n.shown(Instant::now() + INFO_FOR * 100).is_some());
        n.over(|s| *s == State::Request);
        assert!(n.text().is_some(), "another state's end leaves it");
        n.over(|s| matches!(s, State::Approval { session_id } if session_id == "s1"));
        assert_eq!(n.text(), None, "over with its state");
        n.while_("forking …", State::Request);
        n.on_key(true);
        assert_eq!(n.text(), None, "Esc puts the hints back");
    }
}
