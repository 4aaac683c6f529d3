//! What a trigger is: checking a [`TriggerSpec`] (from `trigger:set`, or as found in a
//! hand-edited `project.toml`), parsing `every`, and reading a project's `[triggers]` table
//! entry by entry, so one broken trigger is reported rather than failing the rest.

use std::str::FromStr as _;
use std::time::Duration;

use chrono_tz::Tz;
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};
use paddock_proto::{HookEvent, MissedPolicy, SessionPolicy, TriggerKind, TriggerSpec};

/// The longest debounce a `file_changed` hook may ask for (a day).
const MAX_DEBOUNCE_SECS: u64 = 86_400;
/// The longest `every` (a year): anything longer is surely a typo.
const MAX_EVERY: Duration = Duration::from_secs(366 * 86_400);
/// A `file_changed` hook's quiet time when it names none.
pub const DEFAULT_DEBOUNCE_SECS: u64 = 5;

/// When a schedule fires.
#[derive(Debug, Clone)]
pub enum When {
    /// A five-field cron read in a time zone.
    Cron { cron: Box<Cron>, tz: Tz },
    /// A fixed interval.
    Every(Duration),
}

/// Whether `name` can name a trigger: `[a-z0-9][a-z0-9_-]{0,63}`.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    name.len() <= 64
        && (first.is_ascii_lowercase() || first.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

pub fn name_problem(name: &str) -> String {
    format!(
        "invalid trigger name {name:?}: use 1-64 lower-case letters, digits, '-' or '_', starting with a letter or digit"
    )
}

/// Parses an interval: a whole number and a unit, `30s`, `15m`, `2h`, `1d`.
pub fn parse_every(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let bad = || {
        format!(
            "every {text:?} is not an interval: write a number and a unit, e.g. 30s, 15m, 2h or 1d"
        )
    };
    let split = text.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (digits, unit) = text.split_at(split);
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let unit_secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(bad()),
    };
    let secs = n.checked_mul(unit_secs).ok_or_else(bad)?;
    let every = Duration::from_secs(secs);
    if every > MAX_EVERY {
        return Err(format!("every {text:?} is longer than a year"));
    }
    Ok(every)
}

/// Parses a five-field cron (minute hour day-of-month month day-of-week).
pub fn parse_cron(text: &str) -> Result<Cron, String> {
    let fields = text.split_whitespace().count();
    if fields != 5 {
        return Err(format!(
            "cron {text:?} has {fields} fields; write five: minute hour day-of-month month day-of-week, e.g. \"0 2 * * 1-5\""
        ));
    }
    let parser = CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build();
    let cron = parser
        .parse(text)
        .map_err(|e| format!("cron {text:?} does not parse: {e}"))?;
    // Patterns that can never match (30 February) fail here rather than at every tick.
    let probe = chrono::DateTime::<chrono::Utc>::from_timestamp(0, 0).unwrap_or_default();
    cron.find_next_occurrence(&probe, false)
        .map_err(|e| format!("cron {text:?} never fires: {e}"))?;
    Ok(cron)
}

/// Parses an IANA time zone name (`None`: UTC).
pub fn parse_zone(name: Option<&str>) -> Result<Tz, String> {
    match name {
        None => Ok(Tz::UTC),
        Some(n) => Tz::from_str(n.trim()).map_err(|_| format!("unknown time zone {n:?}")),
    }
}

/// Checks a trigger; for a schedule, returns when it fires. `min_every` is the shortest
/// interval allowed.
pub fn validate(spec: &TriggerSpec, min_every: Duration) -> Result<Option<When>, String> {
    if spec.prompt.trim().is_empty() {
        return Err("the prompt is empty: say what the chat should do".into());
    }
    if spec.model.as_deref().is_some_and(|m| m.trim().is_empty()) {
        return Err("model is empty: leave it out for the project's default".into());
    }
    match spec.kind {
        TriggerKind::Schedule => {
            if spec.on.is_some() || !spec.paths.is_empty() || spec.debounce_secs.is_some() {
                return Err("on, paths and debounce_secs are for hooks, not schedules".into());
            }
            let when = match (&spec.cron, &spec.every) {
                (Some(_), Some(_)) => {
                    return Err("a schedule has either cron or every, not both".into());
                }
                (None, None) => {
                    return Err(
                        "a schedule needs cron (e.g. \"0 2 * * *\") or every (e.g. \"15m\")".into(),
                    );
                }
                (Some(cron), None) => When::Cron {
                    cron: Box::new(parse_cron(cron)?),
                    tz: parse_zone(spec.timezone.as_deref())?,
                },
                (None, Some(every)) => {
                    if spec.timezone.is_some() {
                        return Err("timezone applies to cron, not to every".into());
                    }
                    let every_d = parse_every(every)?;
                    if every_d < min_every {
                        return Err(format!(
                            "every {every:?} is too often: at least {}s",
                            min_every.as_secs().max(1)
                        ));
                    }
                    When::Every(every_d)
                }
            };
            Ok(Some(when))
        }
        TriggerKind::Hook => {
            if spec.cron.is_some() || spec.every.is_some() || spec.timezone.is_some() {
                return Err("cron, every and timezone are for schedules, not hooks".into());
            }
            if spec.missed != MissedPolicy::Skip {
                return Err("missed is for schedules, not hooks".into());
            }
            let Some(on) = spec.on else {
                return Err("a hook needs on: turn_completed, turn_failed, child_finished, file_changed, archived or manual".into());
            };
            if on != HookEvent::FileChanged
                && (!spec.paths.is_empty() || spec.debounce_secs.is_some())
            {
                return Err("paths and debounce_secs are for file_changed hooks".into());
            }
            if let Some(p) = spec.paths.iter().find(|p| p.trim().is_empty()) {
                return Err(format!("path pattern {p:?} is empty"));
            }
            if spec.debounce_secs.is_some_and(|s| s > MAX_DEBOUNCE_SECS) {
                return Err(format!(
                    "debounce_secs is at most {MAX_DEBOUNCE_SECS} (a day)"
                ));
            }
            Ok(None)
        }
    }
}

/// One entry of a project's `[triggers]` table as found on disk.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    /// The trigger; for an entry that does not parse, what could be read of it.
    pub spec: TriggerSpec,
    /// When a schedule without a problem fires.
    pub when: Option<When>,
    /// Why it cannot run, if it cannot.
    pub problem: Option<String>,
}

/// The name `trigger:list` shows for a `project.toml` that does not parse at all.
pub const FILE_PROBLEM_NAME: &str = "project.toml";

/// A placeholder spec for an entry that cannot be read: its kind and prompt if present.
fn placeholder(raw: &toml::Value) -> TriggerSpec {
    let kind = match raw.get("kind").and_then(toml::Value::as_str) {
        Some("schedule") => TriggerKind::Schedule,
        _ => TriggerKind::Hook,
    };
    let text = |k: &str| raw.get(k).and_then(toml::Value::as_str).map(str::to_owned);
    TriggerSpec {
        kind,
        prompt: text("prompt").unwrap_or_default(),
        cron: text("cron"),
        every: text("every"),
        timezone: text("timezone"),
        missed: MissedPolicy::Skip,
        on: None,
        paths: Vec::new(),
        debounce_secs: None,
        session: SessionPolicy::New,
        model: None,
        enabled: raw
            .get("enabled")
            .and_then(toml::Value::as_bool)
            .unwrap_or(true),
        approval_timeout_secs: None,
    }
}

/// The entry that stands for a whole `project.toml` that cannot be read.
pub fn file_problem(message: String) -> Entry {
    Entry {
        name: FILE_PROBLEM_NAME.into(),
        spec: placeholder(&toml::Value::Table(toml::Table::new())),
        when: None,
        problem: Some(message),
    }
}

/// Reads the `[triggers]` of a `project.toml`'s text, each entry checked on its own.
/// `Err`: the file is not TOML (or `triggers` is not a table).
pub fn entries_of(text: &str, min_every: Duration) -> Result<Vec<Entry>, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.message().to_owned())?;
    let Some(raw) = table.get("triggers") else {
        return Ok(Vec::new());
    };
    let toml::Value::Table(triggers) = raw else {
        return Err("triggers is not a table: write each trigger as [triggers.NAME]".into());
    };
    Ok(triggers
        .iter()
        .map(|(name, raw)| match raw.clone().try_into::<TriggerSpec>() {
            Ok(spec) => {
                let checked = if valid_name(name) {
                    validate(&spec, min_every)
                } else {
                    Err(name_problem(name))
                };
                let (when, problem) = match checked {
                    Ok(when) => (when, None),
                    Err(p) => (None, Some(p)),
                };
                Entry {
                    name: name.clone(),
                    spec,
                    when,
                    problem,
                }
            }
            Err(e) => Entry {
                name: name.clone(),
                spec: placeholder(raw),
                when: None,
                problem: Some(format!(
                    "[triggers.{name}] does not parse: {}",
                    e.message().trim()
                )),
            },
        })
        .collect())
}

/// Reads the triggers of the `project.toml` at `path` (a missing file has none).
pub fn read_entries(path: &std::path::Path, min_every: Duration) -> Vec<Entry> {
    match std::fs::read_to_string(path) {
        Ok(text) => entries_of(&text, min_every).unwrap_or_else(|e| {
            vec![file_problem(format!(
                "{} does not parse: {e}",
                path.display()
            ))]
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => vec![file_problem(format!("cannot read {}: {e}", path.display()))],
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn schedule() -> TriggerSpec {
        TriggerSpec {
            kind: TriggerKind::Schedule,
            prompt: "check".into(),
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

    const MIN: Duration = Duration::from_secs(10);

    #[test]
    fn every_parses_units_and_refuses_the_rest() {
        assert_eq!(parse_every("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_every("15m").unwrap(), Duration::from_secs(900));
        assert_eq!(parse_every("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(parse_every(" 1d ").unwrap(), Duration::from_secs(86_400));
        for bad in [
            "",
            "m",
            "15",
            "15 m",
            "1.5h",
            "-1m",
            "15min",
            "1w",
            "99999999999999999999s",
        ] {
            assert!(parse_every(bad).is_err(), "{bad:?} parsed");
        }
        assert!(parse_every("400d").unwrap_err().contains("year"));
    }

    #[test]
    fn schedules_need_exactly_one_of_cron_and_every() {
        let mut s = schedule();
        assert!(validate(&s, MIN).unwrap_err().contains("cron"));
        s.cron = Some("0 2 * * *".into());
        s.every = Some("15m".into());
        assert!(validate(&s, MIN).unwrap_err().contains("not both"));
        s.every = None;
        assert!(matches!(validate(&s, MIN), Ok(Some(When::Cron { .. }))));
        s.timezone = Some("Mars/Olympus".into());
        assert_eq!(
            validate(&s, MIN).unwrap_err(),
            "unknown time zone \"Mars/Olympus\""
        );
        s.timezone = Some("Europe/Berlin".into());
        assert!(validate(&s, MIN).is_ok());
        s.cron = Some("0 2 * *".into());
        assert!(validate(&s, MIN).unwrap_err().contains("4 fields"));
        s.cron = Some("0 0 2 * * *".into());
        assert!(validate(&s, MIN).unwrap_err().contains("6 fields"));
        s.cron = Some("61 2 * * *".into());
        assert!(validate(&s, MIN).unwrap_err().contains("does not parse"));
        s.cron = Some("*/15 * * * *".into());
        assert!(validate(&s, MIN).is_ok());
        s.cron = None;
        s.timezone = None;
        s.every = Some("5s".into());
        assert!(validate(&s, MIN).unwrap_err().contains("at least 10s"));
        assert!(validate(&s, Duration::from_secs(1)).is_ok());
        s.on = Some(HookEvent::Manual);
        assert!(validate(&s, MIN).unwrap_err().contains("hooks"));
    }

    #[test]
    fn hooks_need_on_and_keep_to_their_fields() {
        let mut h = schedule();
        h.kind = TriggerKind::Hook;
        assert!(validate(&h, MIN).unwrap_err().contains("needs on"));
        h.on = Some(HookEvent::TurnCompleted);
        assert!(validate(&h, MIN).unwrap().is_none());
        h.paths = vec!["docs/**".into()];
        assert!(validate(&h, MIN).unwrap_err().contains("file_changed"));
        h.on = Some(HookEvent::FileChanged);
        h.debounce_secs = Some(3);
        assert!(validate(&h, MIN).is_ok());
        h.cron = Some("0 2 * * *".into());
        assert!(validate(&h, MIN).unwrap_err().contains("schedules"));
        h.cron = None;
        h.prompt = "  ".into();
        assert!(validate(&h, MIN).unwrap_err().contains("prompt"));
    }

    #[test]
    fn names() {
        for good in ["a", "nightly-backup", "ci_failed", "0day", &"x".repeat(64)] {
            assert!(valid_name(good), "{good}");
        }
        for bad in ["", "-a", "_a", "A", "a.b", "a b", "ä", &"x".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_hand_broken_file_reports_each_entry() {
        let text = r#"
model = "x"
[triggers.good]
kind = "hook"
prompt = "p"
on = "manual"
[triggers.zone]
kind = "schedule"
prompt = "p"
cron = "*/5 * * * *"
timezone = "Mars/Olympus"
[triggers.typo]
kind = "schedule"
prompt = "p"
evry = "5m"
[triggers.Bad]
kind = "hook"
prompt = "p"
on = "manual"
"#;
        let entries = entries_of(text, MIN).unwrap();
        let by = |n: &str| entries.iter().find(|e| e.name == n).unwrap();
        assert!(by("good").problem.is_none());
        assert_eq!(
            by("zone").problem.as_deref(),
            Some("unknown time zone \"Mars/Olympus\"")
        );
        let typo = by("typo");
        assert!(
            typo.problem.as_deref().unwrap().contains("evry"),
            "{typo:?}"
        );
        assert_eq!(typo.spec.kind, TriggerKind::Schedule);
        assert!(
            by("Bad")
                .problem
                .as_deref()
                .unwrap()
                .contains("invalid trigger name")
        );
        assert!(entries_of("triggers = 3", MIN).is_err());
        assert!(entries_of("[triggers\n", MIN).is_err());
        assert!(entries_of("model = \"x\"", MIN).unwrap().is_empty());
    }
}
