//! `paddock history`: recent runs by origin, and the "while you were away" line.
//!
//! Times are shown in the zone of `now` (the local zone in the command; a fixed one in tests).

use std::fmt::Write as _;

use chrono::{DateTime, Datelike as _, TimeZone};
use paddock_proto::{Attribution, History, Origin, RunStatus, RunSummary};

use super::{clean_title, count, duration, project_label};

/// Who started a run, as History's chips say it: a person's own turn is "you", and an imported
/// chat is "imported" (you ran it, just not here — the provenance doc's distinction).
pub fn run_origin(origin: Origin, depth: u32) -> String {
    match origin {
        Origin::Human => "you".to_owned(),
        Origin::Scheduled => "scheduled".to_owned(),
        Origin::Spawned if depth > 1 => format!("spawned·{depth}"),
        Origin::Spawned => "spawned".to_owned(),
        Origin::Hook => "hook".to_owned(),
        Origin::Adopted => "imported".to_owned(),
    }
}

/// Who caused a run, as History shows it: the chat that sent its message (`sent by TITLE`,
/// the title cut to `width` characters), else [`run_origin`]. A report a child sends its parent
/// is the child's doing, not a run of the parent's own origin and depth.
pub fn run_source(run: &RunSummary, width: usize) -> String {
    match &run.attribution {
        Some(Attribution::Sent {
            from_session_id,
            from_title,
            ..
        }) => {
            let who = from_title
                .as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map_or_else(
                    || {
                        format!(
                            "chat {}",
                            from_session_id.get(..8).unwrap_or(from_session_id)
                        )
                    },
                    clean_title,
                );
            let mut chars = who.chars();
            let head: String = chars.by_ref().take(width).collect();
            let who = if chars.next().is_some() {
                format!("{head}…")
            } else {
                head
            };
            format!("sent by {who}")
        }
        _ => run_origin(run.origin, run.depth),
    }
}

/// A run's status word, as the history shows it: a running run whose call is in the inbox
/// waits for you.
pub fn run_status_name(run: &RunSummary) -> &'static str {
    if run.waiting {
        "waiting for you"
    } else {
        status_name(run.status)
    }
}

/// A run status's word, as the table shows it.
pub fn status_name(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Running => "running",
        RunStatus::Completed => "completed",
        RunStatus::Failed => "failed",
        RunStatus::Cancelled => "cancelled",
        RunStatus::Interrupted => "interrupted",
        RunStatus::Skipped => "skipped",
    }
}

/// An RFC 3339 time, short, in `now`'s zone: the time alone today, the day and time this year,
/// the date before that. A time that does not parse is shown as it came.
pub fn short_time<Tz: TimeZone>(rfc3339: &str, now: &DateTime<Tz>) -> String
where
    Tz::Offset: std::fmt::Display,
{
    let Ok(at) = DateTime::parse_from_rfc3339(rfc3339) else {
        return rfc3339.to_owned();
    };
    let at = at.with_timezone(&now.timezone());
    let format = if at.date_naive() == now.date_naive() {
        "%H:%M"
    } else if at.year() == now.year() {
        "%b %d %H:%M"
    } else {
        "%Y-%m-%d"
    };
    at.format(format).to_string()
}

/// How long a run took (a running one: so far). Blank when the times do not say.
pub fn run_duration<Tz: TimeZone>(run: &RunSummary, now: &DateTime<Tz>) -> String {
    let Ok(started) = DateTime::parse_from_rfc3339(&run.started_at) else {
        return String::new();
    };
    let ended = match (&run.finished_at, run.status) {
        (Some(finished), _) => match DateTime::parse_from_rfc3339(finished) {
            Ok(finished) => finished.timestamp(),
            Err(_) => return String::new(),
        },
        (None, RunStatus::Running) => now.timestamp(),
        (None, _) => return String::new(),
    };
    u64::try_from(ended - started.timestamp())
        .map(duration)
        .unwrap_or_default()
}

/// "while you were away: N unattended runs finished since TIME, M wait for you", when there
/// are any.
pub fn history_banner<Tz: TimeZone>(history: &History, now: &DateTime<Tz>) -> Option<String>
where
    Tz::Offset: std::fmt::Display,
{
    let waiting = usize::try_from(history.waiting).unwrap_or(usize::MAX);
    let waits = (waiting > 0).then(|| {
        let verb = if waiting == 1 { "waits" } else { "wait" };
        format!("{waiting} {verb} for you (approvals: I, or `paddock approvals`)")
    });
    if history.new_unattended == 0 {
        return waits.map(|w| format!("while you were away: {w}"));
    }
    let runs = count(
        usize::try_from(history.new_unattended).unwrap_or(usize::MAX),
        "unattended run",
        "unattended runs",
    );
    let finished = match &history.last_seen {
        Some(seen) => format!("{runs} finished since {}", short_time(seen, now)),
        None => format!("{runs} finished"),
    };
    Some(match waits {
        Some(w) => format!("while you were away: {finished}; {w}"),
        None => format!("while you were away: {finished}"),
    })
}

/// How much of a sending chat's title the table's ORIGIN column shows.
const SENDER_CHARS: usize = 24;

/// The runs as a table, newest first as the daemon sent them; new ones marked `*`. The banner,
/// when there is one, comes first.
pub fn history_table<Tz: TimeZone>(history: &History, now: &DateTime<Tz>) -> String
where
    Tz::Offset: std::fmt::Display,
{
    let rows: Vec<[String; 5]> = history
        .runs
        .iter()
        .map(|run| {
            [
                short_time(&run.started_at, now),
                run_source(run, SENDER_CHARS),
                run_status_name(run).to_owned(),
                run_duration(run, now),
                project_label(&run.project_slug).into_owned(),
            ]
        })
        .collect();
    let headers = ["WHEN", "ORIGIN", "STATUS", "TIME", "PROJECT"];
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, header)| {
            rows.iter()
                .map(|row| row[i].chars().count())
                .chain([header.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    if let Some(banner) = history_banner(history, now) {
        let _ = writeln!(out, "{banner}\n");
    }
    let line = |out: &mut String, mark: &str, cells: [&str; 5], title: &str| {
        let _ = write!(out, "{mark} ");
        for (i, (cell, width)) in cells.iter().zip(&widths).enumerate() {
            // The duration reads best right-aligned.
            if i == 3 {
                let _ = write!(out, "{cell:>width$}  ");
            } else {
                let _ = write!(out, "{cell:width$}  ");
            }
        }
        let _ = writeln!(out, "{title}");
    };
    line(&mut out, " ", headers, "TITLE");
    for (run, row) in history.runs.iter().zip(&rows) {
        let cells = [&*row[0], &*row[1], &*row[2], &*row[3], &*row[4]];
        let mark = if run.is_new { "*" } else { " " };
        line(&mut out, mark, cells, &clean_title(&run.title));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;

    fn now() -> DateTime<FixedOffset> {
        // 10:00 on 3 November 2026 in UTC+01:00.
        DateTime::parse_from_rfc3339("2026-11-03T10:00:00+01:00").unwrap_or_default()
    }

    fn run(
        session: &str,
        title: &str,
        origin: Origin,
        status: RunStatus,
        started: &str,
        finished: Option<&str>,
    ) -> RunSummary {
        RunSummary {
            job_id: format!("j-{session}"),
            project_slug: "webapp".into(),
            session_id: session.into(),
            title: title.into(),
            origin,
            depth: 0,
            trigger: None,
            status,
            started_at: started.into(),
            finished_at: finished.map(Into::into),
            cost_usd: None,
            prompt: None,
            attribution: None,
            is_new: false,
            waiting: false,
        }
    }

    fn canned() -> History {
        let mut spawned = run(
            "s-race",
            "Investigate cookie refresh race",
            Origin::Spawned,
            RunStatus::Running,
            "2026-11-03T08:13:55Z",
            None,
        );
        spawned.depth = 2;
        let mut hook = run(
            "s-ci",
            "Triage CI failure on main",
            Origin::Hook,
            RunStatus::Failed,
            "2026-11-03T06:41:09Z",
            Some("2026-11-03T06:44:30Z"),
        );
        hook.is_new = true;
        let mut nightly = run(
            "s-backup",
            "Nightly backup check",
            Origin::Scheduled,
            RunStatus::Completed,
            "2026-11-02T02:00:01Z",
            Some("2026-11-02T02:01:37Z"),
        );
        nightly.project_slug = String::new();
        nightly.is_new = true;
        History {
            runs: vec![
                spawned,
                run(
                    "s-login",
                    "Fix the flaky\nlogin test",
                    Origin::Human,
                    RunStatus::Cancelled,
                    "2026-11-03T08:12:40Z",
                    Some("2026-11-03T08:13:02Z"),
                ),
                hook,
                nightly,
                run(
                    "s-rate",
                    "Add rate limiting to the API",
                    Origin::Adopted,
                    RunStatus::Interrupted,
                    "2025-10-28T16:20:11Z",
                    Some("2025-10-28T17:02:45Z"),
                ),
            ],
            last_seen: Some("2026-11-01T18:30:00Z".into()),
            new_unattended: 2,
            waiting: 0,
        }
    }

    #[test]
    fn history_reads_as_a_table_with_the_away_banner() {
        insta::assert_snapshot!(history_table(&canned(), &now()), @r"
        while you were away: 2 unattended runs finished since Nov 01 19:30

          WHEN          ORIGIN     STATUS          TIME  PROJECT  TITLE
          09:13         spawned·2  running      46m 05s  webapp   Investigate cookie refresh race
          09:12         you        cancelled        22s  webapp   Fix the flaky login test
        * 07:41         hook       failed        3m 21s  webapp   Triage CI failure on main
        * Nov 02 03:00  scheduled  completed     1m 36s  (root)   Nightly backup check
          2025-10-28    imported   interrupted  42m 34s  webapp   Add rate limiting to the API
        ");
    }

    #[test]
    fn no_banner_when_nothing_is_new() {
        let mut history = canned();
        history.new_unattended = 0;
        assert_eq!(history_banner(&history, &now()), None);
        assert!(history_table(&history, &now()).starts_with("  WHEN "));
        history.runs.clear();
        assert_eq!(
            history_table(&history, &now()),
            "  WHEN  ORIGIN  STATUS  TIME  PROJECT  TITLE\n"
        );
    }

    #[test]
    fn the_banner_without_a_last_look_and_for_one_run() {
        let mut history = canned();
        history.last_seen = None;
        history.new_unattended = 1;
        assert_eq!(
            history_banner(&history, &now()).as_deref(),
            Some("while you were away: 1 unattended run finished")
        );
    }

    #[test]
    fn a_run_another_chat_sent_names_the_sender() {
        let mut report = run(
            "s-login",
            "Fix the flaky login test",
            Origin::Spawned,
            RunStatus::Completed,
            "2026-11-03T08:16:10Z",
            Some("2026-11-03T08:16:52Z"),
        );
        report.attribution = Some(Attribution::Sent {
            from_session_id: "a3e9b1c4-6d2f".into(),
            from_project: "webapp".into(),
            from_title: Some("Investigate cookie refresh race".into()),
        });
        assert_eq!(run_source(&report, 24), "sent by Investigate cookie refre…");
        let history = History {
            runs: vec![report.clone()],
            last_seen: None,
            new_unattended: 0,
            waiting: 0,
        };
        let table = history_table(&history, &now());
        assert!(table.contains("sent by Investigate"), "{table}");
        assert!(!table.contains("spawned"), "{table}");
        report.attribution = Some(Attribution::Sent {
            from_session_id: "a3e9b1c4-6d2f".into(),
            from_project: "webapp".into(),
            from_title: None,
        });
        assert_eq!(run_source(&report, 24), "sent by chat a3e9b1c4");
    }

    #[test]
    fn origin_chips() {
        assert_eq!(run_origin(Origin::Human, 0), "you");
        assert_eq!(run_origin(Origin::Adopted, 0), "imported");
        assert_eq!(run_origin(Origin::Spawned, 1), "spawned");
        assert_eq!(run_origin(Origin::Spawned, 3), "spawned·3");
        assert_eq!(run_origin(Origin::Scheduled, 0), "scheduled");
        assert_eq!(run_origin(Origin::Hook, 0), "hook");
    }

    #[test]
    fn times_are_short_and_odd_ones_kept() {
        let now = now();
        assert_eq!(short_time("2026-11-03T08:05:00Z", &now), "09:05");
        // Late on the 2nd in UTC is already the 3rd here.
        assert_eq!(short_time("2026-11-02T23:30:00Z", &now), "00:30");
        assert_eq!(short_time("2026-01-15T12:00:00Z", &now), "Jan 15 13:00");
        assert_eq!(short_time("2024-12-31T12:00:00Z", &now), "2024-12-31");
        assert_eq!(short_time("yesterday", &now), "yesterday");
    }

    #[test]
    fn durations_of_odd_runs_are_blank() {
        let now = now();
        let mut r = run(
            "s",
            "t",
            Origin::Human,
            RunStatus::Failed,
            "2026-11-03T08:00:00Z",
            None,
        );
        assert_eq!(run_duration(&r, &now), "");
        r.finished_at = Some("2026-11-03T07:00:00Z".into());
        assert_eq!(run_duration(&r, &now), "");
        r.finished_at = Some("garbage".into());
        assert_eq!(run_duration(&r, &now), "");
    }
}
