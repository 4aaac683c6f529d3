//! Chats parked on a usage limit: a turn that ended because the account hit its usage (session)
//! limit parks its chat until the limit resets. The chat row says so (`parked`), and with
//! `usage_limit_resume` the chat is continued at the reset time.
//!
//! The reset time comes from the CLI's own message ("… resets 3pm", "… resets 3:30pm
//! (Europe/Berlin)", "… reset at 17:00"): the next such wall-clock time, in the named zone or
//! the machine's. A message without one parks the chat until a person continues it. Parking
//! lives in memory: after a daemon restart the chat shows the ended turn instead.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, NaiveTime, TimeZone, Utc};

/// Why and until when a chat is parked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parked {
    /// The CLI's message.
    pub message: String,
    /// When the limit resets, if the message said.
    pub reset_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Default)]
pub struct Parking {
    inner: Arc<Mutex<HashMap<String, Parked>>>,
}

impl Parking {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Parked>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Parks a chat on this message; returns what was recorded.
    pub fn park(&self, session_id: &str, message: &str, now: DateTime<Utc>) -> Parked {
        let parked = Parked {
            message: message.to_owned(),
            reset_at: reset_time(message, now),
        };
        self.lock().insert(session_id.to_owned(), parked.clone());
        parked
    }

    /// A turn of the chat completed: it is not parked any more.
    pub fn unpark(&self, session_id: &str) -> bool {
        self.lock().remove(session_id).is_some()
    }

    pub fn get(&self, session_id: &str) -> Option<Parked> {
        self.lock().get(session_id).cloned()
    }

    /// Every parked chat (for listings).
    pub fn all(&self) -> HashMap<String, Parked> {
        self.lock().clone()
    }
}

/// The next wall-clock time named after "reset"/"resets" in `message`, after `now`.
pub fn reset_time(message: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let lower = message.to_lowercase();
    let at = lower.rfind("reset")?;
    let rest = &lower[at..];
    // Skip the word ("reset", "resets", "resets at").
    let rest = rest
        .trim_start_matches("resets")
        .trim_start_matches("reset")
        .trim_start()
        .trim_start_matches("at ")
        .trim_start();
    let (time, _) = split_time(rest)?;
    // A zone in parentheses, e.g. "(Europe/Berlin)".
    let zone = message
        .rfind('(')
        .and_then(|i| message[i + 1..].split(')').next())
        .and_then(|name| name.trim().parse::<chrono_tz::Tz>().ok());
    match zone {
        Some(tz) => next_at(&tz, time, now),
        None => next_at(&chrono::Local, time, now),
    }
}

/// Reads `3pm`, `3:30pm`, `3:30 pm`, `15:00` at the start of `text`; the time and the rest.
fn split_time(text: &str) -> Option<(NaiveTime, &str)> {
    let digits_end = text
        .find(|c: char| !(c.is_ascii_digit() || c == ':'))
        .unwrap_or(text.len());
    let clock = &text[..digits_end];
    if clock.is_empty() {
        return None;
    }
    let mut rest = text[digits_end..].trim_start();
    let (mut hour, minute) = match clock.split_once(':') {
        Some((h, m)) => (h.parse::<u32>().ok()?, m.parse::<u32>().ok()?),
        None => (clock.parse::<u32>().ok()?, 0),
    };
    if let Some(r) = rest.strip_prefix("am") {
        if hour == 12 {
            hour = 0;
        }
        rest = r;
    } else if let Some(r) = rest.strip_prefix("pm") {
        if hour < 12 {
            hour += 12;
        }
        rest = r;
    }
    Some((NaiveTime::from_hms_opt(hour, minute, 0)?, rest))
}

/// The first `time` in `tz` after `now` (today's, else tomorrow's).
fn next_at<Tz: TimeZone>(tz: &Tz, time: NaiveTime, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let local_now = now.with_timezone(tz);
    for days in 0..2 {
        let date = local_now.date_naive() + chrono::Days::new(days);
        if let Some(at) = tz.from_local_datetime(&date.and_time(time)).earliest() {
            let at = at.with_timezone(&Utc);
            if at > now {
                return Some(at);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn reads_the_reset_time_in_its_zone() {
        let now = utc("2026-11-29T10:00:00Z");
        assert_eq!(
            reset_time(
                "You've hit your session limit · resets 3pm (Europe/Berlin)",
                now
            ),
            Some(utc("2026-11-29T14:00:00Z"))
        );
        assert_eq!(
            reset_time("Claude usage limit reached; resets 9:30am (UTC)", now),
            Some(utc("2026-11-30T09:30:00Z")),
            "earlier today: tomorrow"
        );
        assert_eq!(
            reset_time("limit reached, reset at 17:00 (UTC)", now),
            Some(utc("2026-11-29T17:00:00Z"))
        );
        assert_eq!(reset_time("You've hit your limit", now), None);
    }

    #[test]
    fn parks_and_unparks() {
        let p = Parking::default();
        let now = utc("2026-11-29T10:00:00Z");
        let parked = p.park("s", "usage limit · resets 11am (UTC)", now);
        assert_eq!(parked.reset_at, Some(utc("2026-11-29T11:00:00Z")));
        assert!(p.get("s").is_some());
        assert!(p.unpark("s"));
        assert!(p.all().is_empty());
    }
}
