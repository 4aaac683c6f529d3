//! `paddock trigger`: the table of schedules and hooks, and what `trigger add` says it saved.
//!
//! Times are shown in the zone of `now` (the local zone in the command; a fixed one in tests).

use std::fmt::Write as _;

use chrono::{DateTime, TimeZone};
use paddock_proto::{
    HookEvent, MissedPolicy, SessionPolicy, TriggerInfo, TriggerKind, TriggerSpec,
};

use super::{duration, one_line, project_label, short_time, status_name};

/// What an empty cell shows.
const NONE: &str = "-";

/// The time zone a cron without one runs in (PROTOCOL `trigger:set`).
const DEFAULT_ZONE: &str = "UTC";

/// How much of a session id the table shows: enough to tell chats apart, and to find the chat
/// in `paddock ls`.
const SHORT_ID: usize = 8;

/// `schedule` or `hook`.
pub fn trigger_kind(kind: TriggerKind) -> &'static str {
    match kind {
        TriggerKind::Schedule => "schedule",
        TriggerKind::Hook => "hook",
    }
}

/// A hook event's wire name, as `--on` takes it.
pub fn hook_event_name(event: HookEvent) -> &'static str {
    match event {
        HookEvent::TurnCompleted => "turn_completed",
        HookEvent::TurnFailed => "turn_failed",
        HookEvent::ChildFinished => "child_finished",
        HookEvent::FileChanged => "file_changed",
        HookEvent::Manual => "manual",
        HookEvent::Archived => "archived",
    }
}

/// When a trigger fires, in a few words: `0 2 * * * Europe/Berlin`, `every 15m`,
/// `on turn_completed`, `on file_changed docs/** src/**`, `manual`. `-` when the spec does not
/// say (a trigger that cannot run; its problem says why).
pub fn trigger_when(spec: &TriggerSpec) -> String {
    match spec.kind {
        TriggerKind::Schedule => match (&spec.cron, &spec.every) {
            (Some(cron), _) => format!(
                "{} {}",
                cron.trim(),
                spec.timezone.as_deref().unwrap_or(DEFAULT_ZONE)
            ),
            (None, Some(every)) => format!("every {}", every.trim()),
            (None, None) => NONE.to_owned(),
        },
        TriggerKind::Hook => match spec.on {
            None => NONE.to_owned(),
            Some(HookEvent::Manual) => "manual".to_owned(),
            Some(event) => {
                let mut when = format!("on {}", hook_event_name(event));
                for path in &spec.paths {
                    let _ = write!(when, " {path}");
                }
                when
            }
        },
    }
}

/// How far `at` is from `now`, for a time to come: `in 3h 12m`; `due` once it has passed (the
/// daemon is about to fire it).
fn time_to<Tz: TimeZone>(at: &DateTime<chrono::FixedOffset>, now: &DateTime<Tz>) -> String {
    match u64::try_from(at.timestamp() - now.timestamp()) {
        Ok(secs) if secs > 0 => format!("in {}", duration(secs)),
        _ => "due".to_owned(),
    }
}

/// A trigger's next fire: the local time and how far away, `Nov 04 02:00 (in 15h 12m)`; `-`
/// for a hook, a disabled trigger, or one the daemon gave no next fire.
pub fn next_fire<Tz: TimeZone>(trigger: &TriggerInfo, now: &DateTime<Tz>) -> String
where
    Tz::Offset: std::fmt::Display,
{
    if !trigger.spec.enabled {
        return NONE.to_owned();
    }
    let Some(next) = &trigger.next_fire else {
        return NONE.to_owned();
    };
    match DateTime::parse_from_rfc3339(next) {
        Ok(at) => format!("{} ({})", short_time(next, now), time_to(&at, now)),
        // Shown as it came, whatever it is.
        Err(_) => next.clone(),
    }
}

/// A trigger's last fire and how its run went: `Nov 03 02:00 completed`; `-` when it has not
/// fired.
pub fn last_fire<Tz: TimeZone>(trigger: &TriggerInfo, now: &DateTime<Tz>) -> String
where
    Tz::Offset: std::fmt::Display,
{
    let at = trigger.last_fire.as_deref().map(|t| short_time(t, now));
    let status = trigger.last_status.map(status_name);
    match (at, status) {
        (Some(at), Some(status)) => format!("{at} {status}"),
        (Some(at), None) => at,
        (None, Some(status)) => status.to_owned(),
        (None, None) => NONE.to_owned(),
    }
}

/// `new`, or `resume` with the start of the owned chat's session id once it has one.
pub fn trigger_session(trigger: &TriggerInfo) -> String {
    match (trigger.spec.session, &trigger.session_id) {
        (SessionPolicy::New, _) => "new".to_owned(),
        (SessionPolicy::Resume, Some(id)) => {
            format!("resume {}", id.chars().take(SHORT_ID).collect::<String>())
        }
        (SessionPolicy::Resume, None) => "resume".to_owned(),
    }
}

fn yes_no(on: bool) -> &'static str {
    if on { "yes" } else { "no" }
}

/// `paddock trigger ls`: a header and a row per trigger, in the daemon's order; a trigger that
/// cannot run has a line under it saying why.
pub fn trigger_table<Tz: TimeZone>(triggers: &[TriggerInfo], now: &DateTime<Tz>) -> String
where
    Tz::Offset: std::fmt::Display,
{
    const HEADERS: [&str; 8] = [
        "PROJECT", "NAME", "KIND", "WHEN", "NEXT", "LAST", "SESSION", "ENABLED",
    ];
    let rows: Vec<[String; 8]> = triggers
        .iter()
        .map(|t| {
            [
                project_label(&t.project_slug).into_owned(),
                t.name.clone(),
                trigger_kind(t.spec.kind).to_owned(),
                trigger_when(&t.spec),
                next_fire(t, now),
                last_fire(t, now),
                trigger_session(t),
                yes_no(t.spec.enabled).to_owned(),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..HEADERS.len())
        .map(|i| {
            rows.iter()
                .map(|row| row[i].chars().count())
                .chain([HEADERS[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |out: &mut String, cells: [&str; 8]| {
        let last = cells.len() - 1;
        for (i, (cell, width)) in cells.iter().zip(&widths).enumerate() {
            if i == last {
                let _ = writeln!(out, "{cell}");
            } else {
                let _ = write!(out, "{cell:width$}  ");
            }
        }
    };
    let mut out = String::new();
    line(&mut out, HEADERS);
    for (trigger, row) in triggers.iter().zip(&rows) {
        line(&mut out, std::array::from_fn(|i| row[i].as_str()));
        if let Some(problem) = &trigger.problem {
            // Under the name, so the project column stays a clean list.
            let _ = writeln!(
                out,
                "{:width$}  ! cannot run: {}",
                "",
                one_line(problem, 200),
                width = widths[0]
            );
        }
    }
    out
}

/// Whether `trigger add` replaced a trigger of that name, as far as the client could tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Saved {
    Added,
    Replaced,
    /// The daemon's list was not available to tell.
    Unknown,
}

/// What `paddock trigger add` prints: what happened, then the trigger as the daemon saved it.
pub fn trigger_saved<Tz: TimeZone>(
    trigger: &TriggerInfo,
    saved: Saved,
    now: &DateTime<Tz>,
) -> String
where
    Tz::Offset: std::fmt::Display,
{
    let verb = match saved {
        Saved::Added => "added",
        Saved::Replaced => "replaced",
        Saved::Unknown => "saved",
    };
    let spec = &trigger.spec;
    let mut out = format!(
        "{verb} {} {} in {}\n",
        trigger_kind(spec.kind),
        trigger.name,
        project_label(&trigger.project_slug)
    );
    let mut field = |key: &str, value: &str| {
        let _ = writeln!(out, "  {key:<9} {value}");
    };
    field("when", &trigger_when(spec));
    if let (Some(HookEvent::FileChanged), Some(secs)) = (spec.on, spec.debounce_secs) {
        field("debounce", &format!("{secs}s without changes"));
    }
    match (spec.kind, spec.enabled) {
        (_, false) => field(
            "next",
            "never by itself: disabled (`paddock trigger fire` fires it)",
        ),
        (TriggerKind::Schedule, true) => field("next", &next_fire(trigger, now)),
        (TriggerKind::Hook, true) => {}
    }
    if spec.kind == TriggerKind::Schedule {
        field(
            "missed",
            match spec.missed {
                MissedPolicy::Skip => "skipped",
                MissedPolicy::RunOnce => "run once when paddockd starts",
            },
        );
    }
    field(
        "session",
        &match spec.session {
            SessionPolicy::New => "a new chat every fire".to_owned(),
            SessionPolicy::Resume => match &trigger.session_id {
                Some(id) => format!("every fire continues chat {id}"),
                None => "every fire continues one chat".to_owned(),
            },
        },
    );
    if let Some(model) = &spec.model {
        field("model", model);
    }
    field("prompt", &one_line(&spec.prompt, 100));
    if let Some(problem) = &trigger.problem {
        let _ = writeln!(out, "! cannot run: {}", one_line(problem, 200));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;
    use paddock_proto::RunStatus;

    fn now() -> DateTime<FixedOffset> {
        // 10:48 on 3 November 2026 in UTC+01:00 (09:48 UTC).
        DateTime::parse_from_rfc3339("2026-11-03T10:48:00+01:00").unwrap_or_default()
    }

    fn spec(kind: TriggerKind, prompt: &str) -> TriggerSpec {
        TriggerSpec {
            kind,
            prompt: prompt.into(),
            cron: None,
            every: None,
            timezone: None,
            missed: MissedPolicy::Skip,
            on: None,
            paths: Vec::new(),
            debounce_secs: None,
            session: SessionPolicy::New,
            model: None,
            enabled: true,
            approval_timeout_secs: None,
        }
    }

    fn info(project: &str, name: &str, spec: TriggerSpec) -> TriggerInfo {
        TriggerInfo {
            project_slug: project.into(),
            name: name.into(),
            spec,
            next_fire: None,
            last_fire: None,
            last_status: None,
            session_id: None,
            problem: None,
        }
    }

    fn hook(name: &str, on: HookEvent) -> TriggerInfo {
        let mut hook = info("webapp", name, spec(TriggerKind::Hook, "Look."));
        hook.spec.on = Some(on);
        hook
    }

    /// The golden `reply.triggers` of PROTOCOL.md, and a few more.
    fn canned() -> Vec<TriggerInfo> {
        let mut nightly = info(
            "",
            "nightly-backup",
            spec(
                TriggerKind::Schedule,
                "Check last night's backup and report anything odd.",
            ),
        );
        nightly.spec.cron = Some("0 2 * * *".into());
        nightly.spec.timezone = Some("Europe/Berlin".into());
        nightly.spec.missed = MissedPolicy::RunOnce;
        nightly.spec.session = SessionPolicy::Resume;
        nightly.next_fire = Some("2026-11-04T01:00:00Z".into());
        nightly.last_fire = Some("2026-11-03T01:00:00Z".into());
        nightly.last_status = Some(RunStatus::Completed);
        nightly.session_id = Some("c71d4e2a-9f08-4b36-8e1c-5a2f7d9b3e04".into());

        let mut inbox = info("webapp", "inbox", spec(TriggerKind::Schedule, "Inbox."));
        inbox.spec.every = Some("15m".into());
        inbox.next_fire = Some("2026-11-03T09:51:30Z".into());
        inbox.last_fire = Some("2026-11-03T09:36:30Z".into());
        inbox.last_status = Some(RunStatus::Running);

        let mut paused = info("webapp", "weekly", spec(TriggerKind::Schedule, "Sum up."));
        paused.spec.cron = Some("0 9 * * 1".into());
        paused.spec.enabled = false;
        paused.next_fire = Some("2026-11-09T09:00:00Z".into());

        let mut retry = hook("retry", HookEvent::TurnFailed);
        retry.last_fire = Some("2026-11-03T07:41:09Z".into());
        retry.last_status = Some(RunStatus::Skipped);

        let mut docs = hook("docs", HookEvent::FileChanged);
        docs.spec.paths = vec!["docs/**/*.md".into(), "README.md".into()];
        docs.spec.debounce_secs = Some(10);
        docs.spec.session = SessionPolicy::Resume;

        let mut broken = info("webapp", "docs-check", spec(TriggerKind::Schedule, "Docs."));
        broken.spec.cron = Some("*/5 * * * *".into());
        broken.spec.timezone = Some("Mars/Olympus".into());
        broken.problem = Some("unknown time zone \"Mars/Olympus\"".into());

        vec![
            nightly,
            inbox,
            paused,
            hook("ci-failed", HookEvent::Manual),
            hook("review", HookEvent::TurnCompleted),
            retry,
            hook("children", HookEvent::ChildFinished),
            docs,
            broken,
        ]
    }

    #[test]
    fn triggers_read_as_a_table_with_next_fires_and_problems() {
        insta::assert_snapshot!(trigger_table(&canned(), &now()), @r#"
        PROJECT  NAME            KIND      WHEN                                    NEXT                       LAST             SESSION          ENABLED
        (root)   nightly-backup  schedule  0 2 * * * Europe/Berlin                 Nov 04 02:00 (in 15h 12m)  02:00 completed  resume c71d4e2a  yes
        webapp   inbox           schedule  every 15m                               10:51 (in 3m 30s)          10:36 running    new              yes
        webapp   weekly          schedule  0 9 * * 1 UTC                           -                          -                new              no
        webapp   ci-failed       hook      manual                                  -                          -                new              yes
        webapp   review          hook      on turn_completed                       -                          -                new              yes
        webapp   retry           hook      on turn_failed                          -                          08:41 skipped    new              yes
        webapp   children        hook      on child_finished                       -                          -                new              yes
        webapp   docs            hook      on file_changed docs/**/*.md README.md  -                          -                resume           yes
        webapp   docs-check      schedule  */5 * * * * Mars/Olympus                -                          -                new              yes
                 ! cannot run: unknown time zone "Mars/Olympus"
        "#);
    }

    #[test]
    fn an_empty_list_is_just_the_header() {
        assert_eq!(
            trigger_table(&[], &now()),
            "PROJECT  NAME  KIND  WHEN  NEXT  LAST  SESSION  ENABLED\n"
        );
    }

    #[test]
    fn when_says_cron_zone_interval_or_event() {
        let triggers = canned();
        let whens: Vec<String> = triggers.iter().map(|t| trigger_when(&t.spec)).collect();
        assert_eq!(whens[0], "0 2 * * * Europe/Berlin");
        // No zone given: the daemon's default, said out loud.
        assert_eq!(whens[2], "0 9 * * 1 UTC");
        assert_eq!(whens[1], "every 15m");
        assert_eq!(whens[3], "manual");
        assert_eq!(whens[4], "on turn_completed");
        assert_eq!(whens[7], "on file_changed docs/**/*.md README.md");
        assert_eq!(
            trigger_when(&spec(TriggerKind::Schedule, "neither cron nor every")),
            "-"
        );
        assert_eq!(trigger_when(&spec(TriggerKind::Hook, "no event")), "-");
    }

    #[test]
    fn next_fire_is_local_and_relative() {
        let now = now();
        let mut t = canned().remove(0);
        assert_eq!(next_fire(&t, &now), "Nov 04 02:00 (in 15h 12m)");
        t.next_fire = Some("2026-11-03T09:48:42Z".into());
        assert_eq!(next_fire(&t, &now), "10:48 (in 42s)");
        // Passed already (the daemon is about to fire it, or the clocks disagree).
        t.next_fire = Some("2026-11-03T09:47:00Z".into());
        assert_eq!(next_fire(&t, &now), "10:47 (due)");
        t.next_fire = Some("2026-11-03T09:48:00Z".into());
        assert_eq!(next_fire(&t, &now), "10:48 (due)");
        t.next_fire = Some("tomorrow-ish".into());
        assert_eq!(next_fire(&t, &now), "tomorrow-ish");
        t.next_fire = None;
        assert_eq!(next_fire(&t, &now), "-");
    }

    #[test]
    fn last_fire_and_session_cells() {
        let now = now();
        let mut t = canned().remove(0);
        assert_eq!(last_fire(&t, &now), "02:00 completed");
        t.last_fire = None;
        assert_eq!(last_fire(&t, &now), "completed");
        t.last_status = None;
        assert_eq!(last_fire(&t, &now), "-");
        t.last_fire = Some("2026-11-02T01:00:00Z".into());
        assert_eq!(last_fire(&t, &now), "Nov 02 02:00");

        assert_eq!(trigger_session(&t), "resume c71d4e2a");
        t.session_id = None;
        assert_eq!(trigger_session(&t), "resume");
        // A `new` trigger owns no chat, whatever the daemon says.
        t.spec.session = SessionPolicy::New;
        t.session_id = Some("c71d4e2a-9f08".into());
        assert_eq!(trigger_session(&t), "new");
    }

    #[test]
    fn a_saved_schedule_shows_its_next_fire() {
        let nightly = canned().remove(0);
        insta::assert_snapshot!(trigger_saved(&nightly, Saved::Added, &now()), @r"
        added schedule nightly-backup in (root)
          when      0 2 * * * Europe/Berlin
          next      Nov 04 02:00 (in 15h 12m)
          missed    run once when paddockd starts
          session   every fire continues chat c71d4e2a-9f08-4b36-8e1c-5a2f7d9b3e04
          prompt    Check last night's backup and report anything odd.
        ");
    }

    #[test]
    fn a_saved_hook_shows_its_event_and_no_next_fire() {
        let mut docs = canned().remove(7);
        docs.spec.model = Some("claude-haiku-4-5".into());
        docs.spec.prompt = "The docs changed:\ncheck the links.".into();
        insta::assert_snapshot!(trigger_saved(&docs, Saved::Replaced, &now()), @r"
        replaced hook docs in webapp
          when      on file_changed docs/**/*.md README.md
          debounce  10s without changes
          session   every fire continues one chat
          model     claude-haiku-4-5
          prompt    The docs changed:…
        ");
    }

    #[test]
    fn a_saved_disabled_or_broken_trigger_says_so() {
        let mut triggers = canned();
        let broken = triggers.remove(8);
        let weekly = triggers.remove(2);
        insta::assert_snapshot!(trigger_saved(&weekly, Saved::Unknown, &now()), @r"
        saved schedule weekly in webapp
          when      0 9 * * 1 UTC
          next      never by itself: disabled (`paddock trigger fire` fires it)
          missed    skipped
          session   a new chat every fire
          prompt    Sum up.
        ");
        let saved = trigger_saved(&broken, Saved::Added, &now());
        assert!(
            saved.ends_with("\n! cannot run: unknown time zone \"Mars/Olympus\"\n"),
            "{saved}"
        );
    }

    #[test]
    fn names_of_kinds_and_events() {
        assert_eq!(trigger_kind(TriggerKind::Schedule), "schedule");
        assert_eq!(trigger_kind(TriggerKind::Hook), "hook");
        for (event, name) in [
            (HookEvent::TurnCompleted, "turn_completed"),
            (HookEvent::TurnFailed, "turn_failed"),
            (HookEvent::ChildFinished, "child_finished"),
            (HookEvent::FileChanged, "file_changed"),
            (HookEvent::Manual, "manual"),
            (HookEvent::Archived, "archived"),
        ] {
            assert_eq!(hook_event_name(event), name);
            // The same word the wire uses.
            assert_eq!(
                serde_json::to_value(event).ok(),
                Some(serde_json::Value::from(name))
            );
        }
    }
}
