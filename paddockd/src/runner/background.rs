//! Background work of a live `claude`: Agent calls with `run_in_background`, and the turn the
//! CLI runs by itself when one finishes (docs/claude-cli.md §12).
//!
//! The CLI reports its background tasks on stdout, in or between turns:
//! `system/background_tasks_changed {tasks: [...]}` (the whole list), `system/task_started
//! {is_backgrounded: true}`, then `task_updated` / `task_notification` when one ends. After a
//! background task's notification the CLI runs ONE MORE TURN on its own (no user message): a
//! `system/init`, the reply, a second `result`. [`Background`] keeps that bookkeeping so the
//! chat task can keep the process alive (no idle reaping, no batch stop) while tasks run or a
//! notification's turn is still owed, and [`starts_turn`] says which idle line opens such an
//! unprompted turn.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use tokio::time::Instant;

use crate::claude_format::stdout::{Kind, Line, System, User};

/// How long running background tasks keep an otherwise idle process alive (no idle timeout, no
/// batch stop, no reaping for the pool), counted from when the first of them started. A task
/// still running after this is given up: the process is treated as idle again.
pub const MAX_WAIT: Duration = Duration::from_secs(60 * 60);

/// How long a finished task's notification keeps the process alive waiting for the CLI to run
/// (and end) the turn that reports it; the CLI starts that turn at once, so this only bounds a
/// CLI that never does.
pub const NOTIFY_GRACE: Duration = Duration::from_secs(60);

/// How long after a finished task's notification a new message waits before it is written: the
/// CLI starts the turn reporting the task right away, and a message written just before that
/// would be answered after it (its output then read as the reply to the message).
pub const DEFER_MESSAGES: Duration = Duration::from_secs(5);

/// Task ids remembered as background ones (a process rarely starts more; the oldest go first).
const KNOWN_MAX: usize = 256;

/// The background tasks of one process.
#[derive(Debug, Default)]
pub struct Background {
    /// Running background tasks, by id, with their description.
    running: BTreeMap<String, String>,
    /// Ids ever reported as background tasks, so a late `task_notification` (after the list
    /// emptied) is still recognised. Bounded by [`KNOWN_MAX`].
    known: BTreeSet<String>,
    /// When the oldest running task was first seen.
    busy_since: Option<Instant>,
    /// When the last task's notification arrived whose turn has not ended yet.
    owed_since: Option<Instant>,
    /// The description of the task that finished last.
    finished: Option<String>,
}

impl Background {
    /// Takes what a stdout line says about background tasks.
    pub fn track(&mut self, line: &Line) {
        let now = Instant::now();
        let system = match &line.kind {
            Kind::System(system) => system,
            Kind::User(User {
                launched: Some(task),
                ..
            }) if !line.subagent => {
                if let Some(id) = &task.id
                    && !self.known.contains(id)
                {
                    let description = task.description.clone().unwrap_or_default();
                    self.running.insert(id.clone(), description);
                    self.remember(id);
                    self.busy_since.get_or_insert(now);
                }
                return;
            }
            _ => return,
        };
        match system {
            System::BackgroundTasksChanged { tasks } => {
                let mut running = BTreeMap::new();
                for t in tasks {
                    if let Some(id) = &t.id {
                        let description = t.description.clone().unwrap_or_default();
                        running.insert(id.clone(), description);
                        self.remember(id);
                    }
                }
                self.running = running;
            }
            System::TaskStarted {
                task,
                is_backgrounded: true,
            } => {
                if let Some(id) = &task.id {
                    let description = task.description.clone().unwrap_or_default();
                    self.running.insert(id.clone(), description);
                    self.remember(id);
                }
            }
            System::TaskNotification { task_id, summary } => {
                let Some(id) = task_id else {
                    return;
                };
                if !self.known.contains(id) {
                    // A foreground subagent's: its result is part of the running turn.
                    return;
                }
                let description = self.running.remove(id);
                self.finished = description
                    .filter(|d| !d.is_empty())
                    .or_else(|| summary.clone())
                    .or_else(|| self.finished.take());
                self.owed_since = Some(now);
            }
            _ => return,
        }
        if self.running.is_empty() {
            self.busy_since = None;
        } else if self.busy_since.is_none() {
            self.busy_since = Some(now);
        }
    }

    fn remember(&mut self, id: &str) {
        if self.known.len() >= KNOWN_MAX
            && let Some(oldest) = self.known.iter().next().cloned()
        {
            self.known.remove(&oldest);
        }
        self.known.insert(id.to_owned());
    }

    /// Until when the process must be kept alive for its background work; `None` when nothing
    /// holds it (no task runs, no notification's turn is owed, or the bounds ran out).
    pub fn hold_until(&self, now: Instant) -> Option<Instant> {
        let busy = self.busy_since.map(|t| t + MAX_WAIT);
        let owed = self.owed_since.map(|t| t + NOTIFY_GRACE);
        busy.into_iter().chain(owed).filter(|t| *t > now).max()
    }

    /// Until when a new message should wait for the turn the CLI owes for a task that just
    /// finished to start ([`DEFER_MESSAGES`]); `None`: write it now.
    pub fn defer_until(&self, now: Instant) -> Option<Instant> {
        self.owed_since
            .map(|t| t + DEFER_MESSAGES)
            .filter(|t| *t > now)
    }

    /// Whether a task is still running (for the log).
    pub fn running(&self) -> usize {
        self.running.len()
    }

    /// The mark of an unprompted turn's start: what it owes (see [`Background::turn_ended`]).
    pub fn turn_started(&self) -> Option<Instant> {
        self.owed_since
    }

    /// An unprompted turn ended: the notification it reported is paid, unless another one
    /// arrived after the turn began (that one gets a turn of its own).
    pub fn turn_ended(&mut self, owed_at_start: Option<Instant>) {
        if self.owed_since == owed_at_start {
            self.owed_since = None;
        }
    }

    /// What an unprompted turn's stream says before its reply.
    pub fn notice(&self) -> String {
        match &self.finished {
            Some(d) => {
                let d: String = d.chars().take(120).collect();
                format!("a background task finished ({d}); claude continues on its own")
            }
            None => "claude continues on its own".to_owned(),
        }
    }

    /// What to call an unprompted turn in the history.
    pub fn label(&self) -> String {
        match &self.finished {
            Some(d) => {
                let d: String = d.chars().take(120).collect();
                format!("(background task finished: {d})")
            }
            None => "(claude continued on its own)".to_owned(),
        }
    }
}

/// Whether a line that arrives while no turn runs opens a turn the CLI started by itself (a
/// background task's notification, a scheduled wake-up): `system/init`, which begins every turn
/// of a stream-json process, or a turn's own lines should that be missed (`assistant`,
/// `stream_event`, `result`) from the main conversation. Task bookkeeping, control responses,
/// `system/status`, title changes, a local command's `user` echo (`set_model` prints one) and a
/// subagent's traffic (`parent_tool_use_id` set) do not: none of them is followed by a `result`.
pub fn starts_turn(line: &Line) -> bool {
    if line.subagent {
        return false;
    }
    matches!(
        &line.kind,
        Kind::Assistant(_)
            | Kind::StreamEvent(_)
            | Kind::Result(_)
            | Kind::System(System::Init { .. })
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn l(v: serde_json::Value) -> Line {
        Line::decode(&v)
    }

    /// The lines of a real CLI's capture of a background Agent call, in order: 2.1.332's
    /// `l_subagent_bg`, and 2.1.197's `l_subagent_bg_plain` (it has no
    /// `--forward-subagent-text`, so no `l_subagent_bg` of its own).
    fn capture(release: &str, name: &str) -> Vec<serde_json::Value> {
        let path = format!(
            "{}/../tests/fixtures/claude-cli-{release}/stdout/{name}.jsonl",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(path).unwrap();
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    #[test]
    fn the_capture_holds_until_the_notification_turn_ends() {
        for (release, name) in [
            ("2.1.332", "l_subagent_bg"),
            ("2.1.197", "l_subagent_bg_plain"),
        ] {
            let lines = capture(release, name);
            let mut bg = Background::default();
            let mut results = 0;
            let mut mark = None;
            let mut launched = false;
            let mut notified = false;
            for v in &lines {
                bg.track(&Line::decode(v));
                if v["type"] == "user" && v["tool_use_result"]["isAsync"] == true {
                    launched = true;
                    assert!(
                        bg.hold_until(Instant::now()).is_some(),
                        "{release}: a task runs"
                    );
                    assert_eq!(bg.running(), 1, "{release}");
                }
                if v["type"] == "system" && v["subtype"] == "task_notification" {
                    notified = true;
                }
                // The turn reporting the task starts with the first init after its
                // notification (2.1.197 prints the first turn's result only after it).
                if v["type"] == "system" && v["subtype"] == "init" && notified && mark.is_none() {
                    mark = bg.turn_started();
                }
                if v["type"] == "result" {
                    results += 1;
                    if results == 1 {
                        // The task finished during the first turn: its notification turn is owed.
                        assert!(bg.hold_until(Instant::now()).is_some(), "{release}");
                    } else {
                        bg.turn_ended(mark);
                    }
                }
            }
            assert!(
                launched,
                "{release}: the capture launches a background task"
            );
            assert_eq!(results, 2, "{release}");
            assert_eq!(bg.running(), 0, "{release}");
            assert!(bg.hold_until(Instant::now()).is_none(), "{release}");
            assert_eq!(
                bg.label(),
                "(background task finished: Echo task bg)",
                "{release}"
            );
        }
    }

    #[test]
    fn a_message_waits_briefly_for_the_turn_a_notification_owes() {
        let mut bg = Background::default();
        let now = Instant::now();
        assert!(bg.defer_until(now).is_none());
        bg.track(&l(
            json!({"type":"system","subtype":"task_started","task_id":"a",
            "is_backgrounded":true,"description":"A"}),
        ));
        assert!(
            bg.defer_until(now).is_none(),
            "a running task defers nothing"
        );
        bg.track(&l(
            json!({"type":"system","subtype":"task_notification","task_id":"a"}),
        ));
        let until = bg.defer_until(Instant::now()).unwrap();
        assert!(bg.defer_until(until).is_none(), "bounded");
        let mark = bg.turn_started();
        bg.turn_ended(mark);
        assert!(bg.defer_until(Instant::now()).is_none());
    }

    #[test]
    fn a_foreground_notification_owes_nothing() {
        let mut bg = Background::default();
        bg.track(&l(
            json!({"type":"system","subtype":"task_started","task_id":"a",
            "is_backgrounded":false}),
        ));
        bg.track(&l(
            json!({"type":"system","subtype":"task_notification","task_id":"a"}),
        ));
        assert!(bg.hold_until(Instant::now()).is_none());
    }

    #[test]
    fn a_notification_during_the_turn_is_owed_again() {
        let mut bg = Background::default();
        bg.track(&l(
            json!({"type":"system","subtype":"background_tasks_changed",
            "tasks":[{"task_id":"a","description":"A"},{"task_id":"b","description":"B"}]}),
        ));
        bg.track(&l(
            json!({"type":"system","subtype":"task_notification","task_id":"a"}),
        ));
        let mark = bg.turn_started();
        bg.track(&l(
            json!({"type":"system","subtype":"task_notification","task_id":"b"}),
        ));
        bg.turn_ended(mark);
        assert!(bg.hold_until(Instant::now()).is_some(), "b's turn is owed");
        let mark = bg.turn_started();
        bg.turn_ended(mark);
        assert!(bg.hold_until(Instant::now()).is_none());
    }

    #[test]
    fn which_idle_lines_open_a_turn() {
        assert!(starts_turn(&l(json!({"type":"system","subtype":"init"}))));
        assert!(starts_turn(&l(
            json!({"type":"assistant","parent_tool_use_id":null})
        )));
        assert!(!starts_turn(&l(
            json!({"type":"assistant","parent_tool_use_id":"toolu_1"})
        )));
        assert!(!starts_turn(&l(
            json!({"type":"system","subtype":"task_notification"})
        )));
        assert!(!starts_turn(&l(json!({"type":"control_response"}))));
        assert!(!starts_turn(&l(json!({"type":"command_lifecycle"}))));
        assert!(!starts_turn(&l(
            json!({"type":"system","subtype":"status","status":null})
        )));
        assert!(!starts_turn(&l(
            json!({"type":"user","message":{"role":"user",
            "content":"<local-command-stdout>Set model</local-command-stdout>"}})
        )));
    }
}
