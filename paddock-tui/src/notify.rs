//! Desktop notifications through the terminal: when a chat needs the user (the daemon's
//! `attention` events), the TUI and `paddock notify` write an OSC 9 or OSC 777 escape sequence
//! and the bell. The terminal turns them into a desktop notification; they pass through ssh as
//! plain bytes, and through tmux wrapped in its passthrough sequence (tmux needs
//! `set -g allow-passthrough on` to forward it; the bell goes through tmux unwrapped, so a
//! window's bell flag and `bell-action` work without it).
//!
//! `PADDOCK_NOTIFY` picks the sequence: `osc9` (the default: iTerm2, WezTerm, Windows Terminal,
//! ghostty, foot...), `osc777` (rxvt-unicode, Konsole, ghostty...), `bell` (the bell alone) or
//! `off`.

use std::collections::{HashSet, VecDeque};

use paddock_proto::Attention;

/// How notifications are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Osc9,
    Osc777,
    Bell,
    Off,
}

impl Mode {
    /// From `PADDOCK_NOTIFY`'s value; absent or empty: OSC 9.
    pub fn parse(value: Option<&str>) -> Result<Self, String> {
        match value.map(str::trim).unwrap_or("") {
            "" | "osc9" => Ok(Self::Osc9),
            "osc777" => Ok(Self::Osc777),
            "bell" => Ok(Self::Bell),
            "off" | "none" => Ok(Self::Off),
            other => Err(format!(
                "PADDOCK_NOTIFY={other:?} is not a notification mode; use osc9, osc777, bell or off"
            )),
        }
    }

    /// From the environment; a bad value is reported and OSC 9 used.
    pub fn from_env() -> (Self, Option<String>) {
        let value = std::env::var("PADDOCK_NOTIFY").ok();
        match Self::parse(value.as_deref()) {
            Ok(mode) => (mode, None),
            Err(e) => (Self::Osc9, Some(e)),
        }
    }
}

/// Text safe inside an OSC string: what a terminal would act on made visible
/// (`format::visible`: nothing in it can end the sequence), newlines and tabs as spaces, at
/// most `max` characters; `;` becomes `,` where it would split OSC 777's fields.
fn clean(text: &str, max: usize, semicolons: bool) -> String {
    crate::format::visible(text)
        .chars()
        .map(|c| match c {
            '\n' | '\t' | '\r' => ' ',
            ';' if !semicolons => ',',
            c => c,
        })
        .take(max)
        .collect()
}

/// Wraps a sequence in tmux's passthrough (`ESC P tmux; ... ESC \`, inner ESCs doubled).
fn tmux_wrap(seq: &[u8]) -> Vec<u8> {
    let mut out = b"\x1bPtmux;".to_vec();
    for &b in seq {
        if b == 0x1b {
            out.push(0x1b);
        }
        out.push(b);
    }
    out.extend_from_slice(b"\x1b\\");
    out
}

/// The bytes to write for one notification: the OSC sequence (wrapped for tmux when `in_tmux`),
/// then the bell; nothing when off.
pub fn sequence(mode: Mode, title: &str, body: &str, in_tmux: bool) -> Vec<u8> {
    let osc = match mode {
        Mode::Off => return Vec::new(),
        Mode::Bell => None,
        Mode::Osc9 => Some(format!(
            "\x1b]9;{}: {}\x07",
            clean(title, 80, true),
            clean(body, 160, true)
        )),
        Mode::Osc777 => Some(format!(
            "\x1b]777;notify;{};{}\x07",
            clean(title, 80, false),
            clean(body, 160, false)
        )),
    };
    let mut out = match osc {
        Some(osc) if in_tmux => tmux_wrap(osc.as_bytes()),
        Some(osc) => osc.into_bytes(),
        None => Vec::new(),
    };
    out.push(0x07);
    out
}

/// Whether this process runs inside tmux.
pub fn in_tmux() -> bool {
    std::env::var_os("TMUX").is_some_and(|v| !v.is_empty())
}

/// The ids of attention events already shown (a client reconnecting to a restarted daemon may
/// be told again); the oldest are forgotten past [`Seen::CAPACITY`].
#[derive(Debug, Default)]
pub struct Seen {
    order: VecDeque<String>,
    ids: HashSet<String>,
}

impl Seen {
    pub const CAPACITY: usize = 1024;

    /// Whether this event is new (and now remembered).
    pub fn first_time(&mut self, a: &Attention) -> bool {
        if !self.ids.insert(a.id.clone()) {
            return false;
        }
        self.order.push_back(a.id.clone());
        if self.order.len() > Self::CAPACITY
            && let Some(old) = self.order.pop_front()
        {
            self.ids.remove(&old);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_bad_ones_say_what_is_allowed() {
        assert_eq!(Mode::parse(None), Ok(Mode::Osc9));
        assert_eq!(Mode::parse(Some("osc777")), Ok(Mode::Osc777));
        assert_eq!(Mode::parse(Some(" bell ")), Ok(Mode::Bell));
        assert_eq!(Mode::parse(Some("off")), Ok(Mode::Off));
        let Err(err) = Mode::parse(Some("loud")) else {
            panic!("loud is not a mode");
        };
        assert!(err.contains("osc9, osc777, bell or off"), "{err}");
    }

    #[test]
    fn sequences_are_osc_then_bell_and_wrapped_for_tmux() {
        assert_eq!(
            sequence(Mode::Osc9, "Backup", "Scheduled run finished", false),
            b"\x1b]9;Backup: Scheduled run finished\x07\x07".to_vec()
        );
        assert_eq!(
            sequence(Mode::Osc777, "a;b", "x\ny", false),
            b"\x1b]777;notify;a,b;x y\x07\x07".to_vec()
        );
        // Nothing in a title or a body can end the sequence and start another.
        assert_eq!(
            sequence(
                Mode::Osc9,
                "t\x07\x1b]52;c;eA==\x07",
                "b\u{9c}\x1b\\",
                false
            ),
            "\x1b]9;t␇␛]52;c;eA==␇: b\\u{9c}␛\\\x07\x07"
                .as_bytes()
                .to_vec()
        );
        assert_eq!(
            sequence(Mode::Osc9, "T", "B", true),
            b"\x1bPtmux;\x1b\x1b]9;T: B\x07\x1b\\\x07".to_vec()
        );
        assert_eq!(sequence(Mode::Bell, "T", "B", true), b"\x07".to_vec());
        assert!(sequence(Mode::Off, "T", "B", false).is_empty());
    }

    #[test]
    fn each_event_is_shown_once() {
        let a = Attention {
            id: "run:j1".into(),
            kind: paddock_proto::AttentionKind::Failed,
            project_slug: String::new(),
            session_id: "s".into(),
            job_id: None,
            origin: paddock_proto::Origin::Human,
            title: "t".into(),
            body: "b".into(),
            at: "now".into(),
        };
        let mut seen = Seen::default();
        assert!(seen.first_time(&a));
        assert!(!seen.first_time(&a));
    }
}
