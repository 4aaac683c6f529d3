//! When schedules fire, and the task that fires them.
//!
//! The armed schedules live in [`Armed`] (shared with `trigger:list` for `nextFire`): each
//! enabled schedule without a problem, with its next fire time. The task sleeps until the
//! nearest one (at most [`RESCAN`], so a hand-edited `project.toml` or a changed clock is
//! picked up), fires every schedule that is due, and arms each again from the time it was
//! due. `trigger:set` / `trigger:remove` re-arm at once (the generation watch wakes the task).
//!
//! Fires missed while the daemon was down: at start, a schedule whose next fire after its
//! last fire (from the run log) is already past missed at least one; `missed = run_once`
//! fires it once now, `skip` lets them go. A schedule that never fired missed nothing.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use paddock_proto::{MissedPolicy, TriggerKind};

use super::Ctx;
use super::spec::When;
use super::{Loaded, Triggers};
pub use crate::trigger_state::{Armed, ArmedSchedule};

/// The longest the scheduler sleeps before it looks at the project files again.
pub const RESCAN: Duration = Duration::from_secs(60);

/// The first fire of `when` strictly after `after`.
pub fn next_after(when: &When, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
    match when {
        When::Cron { cron, tz } => cron
            .find_next_occurrence(&after.with_timezone(tz), false)
            .ok()
            .map(|t| t.with_timezone(&Utc)),
        When::Every(every) => {
            let every = chrono::TimeDelta::from_std(*every).ok()?;
            after.checked_add_signed(every)
        }
    }
}

/// The next fire after `now`, counted from `anchor` (the last fire, or when the schedule
/// was armed): an interval keeps its rhythm from the anchor; a cron just looks ahead.
pub fn upcoming(when: &When, anchor: DateTime<Utc>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    match when {
        When::Cron { .. } => next_after(when, anchor.max(now)),
        When::Every(every) => {
            let first = next_after(when, anchor)?;
            if first > now {
                return Some(first);
            }
            // Skip whole intervals that are already past, keeping the rhythm.
            let step = i64::try_from(every.as_millis()).ok()?.max(1);
            let behind = (now - first).num_milliseconds();
            let steps = behind / step + 1;
            first.checked_add_signed(chrono::TimeDelta::milliseconds(steps.checked_mul(step)?))
        }
    }
}

/// Whether a schedule that last fired at `last` missed a fire before `now`.
pub fn missed_since(when: &When, last: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    next_after(when, last).is_some_and(|t| t <= now)
}

/// The time of a trigger's last fire, from the run log.
pub fn last_fire(d: &Ctx, project: &str, name: &str) -> Option<DateTime<Utc>> {
    let run = d.state.runs.latest_for_trigger(project, name)?;
    DateTime::parse_from_rfc3339(&run.started_at)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Brings the armed set in line with the schedules on disk: new or changed ones are armed
/// from their last fire (or now), removed, disabled or broken ones go; unchanged ones keep
/// their next fire.
pub fn sync(d: &Ctx, triggers: &Triggers, loaded: &[Loaded], now: DateTime<Utc>) {
    let mut armed = triggers.armed();
    let mut keep = std::collections::HashSet::new();
    for l in loaded {
        let Some(when) = l.when.clone() else { continue };
        if l.spec.kind != TriggerKind::Schedule || !l.spec.enabled {
            continue;
        }
        let key = l.key();
        keep.insert(key.clone());
        if armed.get(&key).is_some_and(|a| a.spec == l.spec) {
            continue;
        }
        let anchor = last_fire(d, &l.project.slug, &l.name).unwrap_or(now);
        match upcoming(&when, anchor, now) {
            Some(next) => {
                armed.insert(
                    key,
                    ArmedSchedule {
                        project: l.project.slug.clone(),
                        name: l.name.clone(),
                        spec: l.spec.clone(),
                        when,
                        next,
                    },
                );
            }
            None => {
                tracing::warn!(project = %l.project.slug, trigger = %l.name, "schedule has no next fire time");
                armed.remove(&key);
            }
        }
    }
    armed.retain(|k, _| keep.contains(k));
}

/// The scheduler task: catch-up fires at start, then fire what is due until shutdown.
pub async fn run(d: Arc<Ctx>) {
    let triggers = d.triggers.clone();
    let mut generation = triggers.subscribe();
    // Catch-up for fires missed while the daemon was down (before arming, which would
    // otherwise look ahead past them).
    let now = Utc::now();
    let loaded = super::load_all(&d);
    for l in &loaded {
        let Some(when) = &l.when else { continue };
        if l.spec.kind != TriggerKind::Schedule
            || !l.spec.enabled
            || l.spec.missed != MissedPolicy::RunOnce
        {
            continue;
        }
        let Some(last) = last_fire(&d, &l.project.slug, &l.name) else {
            continue;
        };
        if missed_since(when, last, now) {
            tracing::info!(project = %l.project.slug, trigger = %l.name, %last, "firing a schedule missed while the daemon was down");
            super::fire::fire_logged(&d, &l.project, &l.name, &l.spec, None, None).await;
        }
    }
    sync(&d, &triggers, &loaded, Utc::now());
    loop {
        let now = Utc::now();
        let nearest = triggers.armed().values().map(|a| a.next).min();
        let wait = nearest
            .map(|t| (t - now).to_std().unwrap_or(Duration::ZERO))
            .unwrap_or(RESCAN)
            .min(RESCAN);
        tokio::select! {
            () = d.shutdown.cancelled() => return,
            changed = generation.changed() => {
                if changed.is_err() {
                    return;
                }
                let loaded = super::load_all(&d);
                sync(&d, &triggers, &loaded, Utc::now());
            }
            () = tokio::time::sleep(wait) => {
                fire_due(&d, &triggers).await;
                if nearest.is_none_or(|t| t > Utc::now()) {
                    // A rescan: pick up hand edits and new projects.
                    let loaded = super::load_all(&d);
                    sync(&d, &triggers, &loaded, Utc::now());
                }
            }
        }
    }
}

/// Fires every armed schedule that is due, and arms each again.
async fn fire_due(d: &Ctx, triggers: &Triggers) {
    let now = Utc::now();
    let due: Vec<ArmedSchedule> = {
        let mut armed = triggers.armed();
        let mut due = Vec::new();
        for a in armed.values_mut() {
            if a.next <= now {
                due.push(a.clone());
                match upcoming(&a.when, a.next, now) {
                    Some(next) => a.next = next,
                    // Never again: park it far away; the next rescan drops or re-arms it.
                    None => a.next = now + chrono::TimeDelta::days(3650),
                }
            }
        }
        due
    };
    for a in due {
        let project = match d.projects.get(&a.project).await {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(project = %a.project, trigger = %a.name, "schedule not fired: {e}");
                continue;
            }
        };
        super::fire::fire_logged(d, &project, &a.name, &a.spec, None, None).await;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::super::spec::{parse_cron, parse_zone};
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn cron(expr: &str, zone: &str) -> When {
        When::Cron {
            cron: Box::new(parse_cron(expr).unwrap()),
            tz: parse_zone(Some(zone)).unwrap(),
        }
    }

    #[test]
    fn cron_in_a_zone_follows_its_daylight_saving_time() {
        let nine = cron("0 9 * * *", "Europe/Berlin");
        // Winter: Berlin is UTC+1.
        assert_eq!(
            next_after(&nine, at("2026-03-28T12:00:00Z")),
            Some(at("2026-03-29T07:00:00Z")),
            "the clocks went forward at 01:00Z that morning: 09:00 is UTC+2"
        );
        assert_eq!(
            next_after(&nine, at("2026-03-27T12:00:00Z")),
            Some(at("2026-03-28T08:00:00Z"))
        );
        // Autumn: back to UTC+1 on 25 October 2026.
        assert_eq!(
            next_after(&nine, at("2026-10-24T12:00:00Z")),
            Some(at("2026-10-25T08:00:00Z"))
        );
        // 02:30 does not exist on the spring-forward day: it fires when the clock jumps,
        // at 03:00 local, still that day.
        let half_past_two = cron("30 2 * * *", "Europe/Berlin");
        assert_eq!(
            next_after(&half_past_two, at("2026-03-28T12:00:00Z")),
            Some(at("2026-03-29T01:00:00Z"))
        );
        // 02:30 happens twice on the fall-back day: one fire (the first), not two.
        let first = next_after(&half_past_two, at("2026-10-24T12:00:00Z")).unwrap();
        assert_eq!(first, at("2026-10-25T00:30:00Z"));
        assert_eq!(
            next_after(&half_past_two, first),
            Some(at("2026-10-26T01:30:00Z"))
        );
        // UTC by default; New York is UTC-4 in summer.
        let utc = cron("0 2 * * *", "UTC");
        assert_eq!(
            next_after(&utc, at("2026-06-01T02:00:00Z")),
            Some(at("2026-06-02T02:00:00Z")),
            "strictly after"
        );
        let ny = cron("*/15 * * * 1-5", "America/New_York");
        assert_eq!(
            next_after(&ny, at("2026-06-05T23:59:00Z")),
            Some(at("2026-06-06T00:00:00Z")),
            "Friday 20:00 in New York"
        );
        assert_eq!(
            next_after(&ny, at("2026-06-06T04:00:00Z")),
            Some(at("2026-06-08T04:00:00Z")),
            "Saturday and Sunday in New York are skipped"
        );
    }

    #[test]
    fn intervals_keep_their_rhythm_and_cron_looks_ahead() {
        let every = When::Every(Duration::from_secs(900));
        let anchor = at("2026-06-01T10:00:00Z");
        assert_eq!(
            upcoming(&every, anchor, at("2026-06-01T10:05:00Z")),
            Some(at("2026-06-01T10:15:00Z"))
        );
        // Down for an hour and a bit: the next fire is on the old rhythm, in the future.
        assert_eq!(
            upcoming(&every, anchor, at("2026-06-01T11:20:00Z")),
            Some(at("2026-06-01T11:30:00Z"))
        );
        assert_eq!(
            upcoming(&every, anchor, at("2026-06-01T11:30:00Z")),
            Some(at("2026-06-01T11:45:00Z")),
            "strictly after now"
        );
        let daily = cron("0 2 * * *", "UTC");
        assert_eq!(
            upcoming(
                &daily,
                at("2026-05-01T02:00:00Z"),
                at("2026-06-01T10:00:00Z")
            ),
            Some(at("2026-06-02T02:00:00Z"))
        );
    }

    #[test]
    fn missed_fires() {
        let daily = cron("0 2 * * *", "UTC");
        let last = at("2026-06-01T02:00:00Z");
        assert!(!missed_since(&daily, last, at("2026-06-02T01:59:00Z")));
        assert!(missed_since(&daily, last, at("2026-06-02T02:00:00Z")));
        assert!(missed_since(&daily, last, at("2026-06-05T12:00:00Z")));
        let every = When::Every(Duration::from_secs(3600));
        assert!(!missed_since(&every, last, at("2026-06-01T02:59:59Z")));
        assert!(missed_since(&every, last, at("2026-06-01T03:00:00Z")));
    }
}
