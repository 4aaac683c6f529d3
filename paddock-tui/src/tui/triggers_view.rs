//! The Triggers view (`Z`): the schedules and hooks of the open project (or, with `a`, of
//! every project), from `trigger:list` — each with what fires it (a cron and its zone, an
//! interval, a hook event), the next fire, the last fire and how its run went, the session
//! mode, and for a trigger that cannot run, why.
//!
//! `f` fires the cursor's trigger now and `d` removes it, each after a question naming the
//! trigger and its project (`y` says yes, any other key no); what came of it is said at the
//! bottom of the view (the chat it started, the reason it was skipped, the daemon's refusal).
//! Enter opens the chat a `resume` trigger owns; for any other trigger it lists the trigger's
//! recent runs (from `history:list`), where Enter opens a run's chat and Esc goes back. `r`
//! reads again; the loop also reads again when chats change or start and stop running (a fire
//! makes both happen), since there is no event for the triggers themselves. Adding a trigger is
//! the command line's: the view's last line gives the syntax.
//!
//! An answer to a list the view no longer shows (another scope, another trigger's runs) is
//! dropped; a failed one is shown in the view.

use chrono::{DateTime, FixedOffset, Local};
use paddock_proto::{RunStatus, RunSummary, SessionPolicy, TriggerInfo, TriggerKind, TriggerSet};
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::action::Action;
use super::doing::{Acted, Doing, Done};
use super::fetch::{Answer, Fetch, taken};
use super::files_view::scroll_to;
use super::keys::{self, Command, Context, label_for, moved};
use super::overlay::{Cx, DrawCx, Layer, News, Overlay, Reaction};
use super::provenance_view::{fit, wrap_lines};
use super::theme::{Role, Theme};
use crate::format::{
    clean_title, next_fire, one_line, project_label, run_duration, short_time, status_name,
    trigger_when,
};

/// How many runs `history:list` is asked for (its maximum); the trigger's are picked here.
pub const RUNS_LIMIT: u32 = 500;

/// The most lines the view's last part (a question, what an action came to, the `add` syntax)
/// takes.
const FOOTER_MAX: usize = 3;
/// The most lines the add form takes.
const FORM_MAX: usize = 8;

/// A trigger: its project and its name (unique in the project).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TriggerId {
    pub project_slug: String,
    pub name: String,
}

impl TriggerId {
    fn of(t: &TriggerInfo) -> Self {
        Self {
            project_slug: t.project_slug.clone(),
            name: t.name.clone(),
        }
    }

    fn is(&self, t: &TriggerInfo) -> bool {
        self.project_slug == t.project_slug && self.name == t.name
    }
}

/// The request for a trigger's runs: the unattended runs of its project, which the view filters
/// by the trigger's name.
pub fn runs_request(id: &TriggerId) -> paddock_proto::HistoryList {
    paddock_proto::HistoryList {
        project_slug: Some(id.project_slug.clone()),
        unattended: true,
        limit: Some(RUNS_LIMIT),
    }
}

/// The command a fire or a remove sends (`None` for a save: the form's
/// [`Action::SaveTrigger`](super::app::Action::SaveTrigger) carries its request).
pub fn act_doing(act: Act, id: TriggerId) -> Option<Doing> {
    match act {
        Act::Save => None,
        Act::Fire => Some(Doing::Fire(paddock_proto::TriggerFire {
            project_slug: id.project_slug,
            name: id.name,
            message: None,
        })),
        Act::Remove => Some(Doing::Remove(paddock_proto::TriggerRemove(
            paddock_proto::TriggerRef {
                project_slug: id.project_slug,
                name: id.name,
            },
        ))),
    }
}

/// What `f` and `d` do, once confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    Fire,
    Remove,
    /// The form's `trigger:set`.
    Save,
}

impl Act {
    fn verb(self) -> &'static str {
        match self {
            Act::Fire => "fire",
            Act::Remove => "remove",
            Act::Save => "save",
        }
    }

    /// What it does, for "… failed".
    pub fn what(self) -> &'static str {
        match self {
            Act::Fire => "fire the trigger",
            Act::Remove => "remove the trigger",
            Act::Save => "save the trigger",
        }
    }
}

/// What a command did to the view, for the dispatcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TriggersOutcome {
    /// Nothing to do outside the view; redraw.
    Handled,
    /// Read the triggers of this project (`None`: every project's).
    Load(Option<String>),
    /// Read a trigger's recent runs.
    LoadRuns(TriggerId),
    /// Fire this trigger now (confirmed).
    Fire(TriggerId),
    /// Remove this trigger (confirmed).
    Remove(TriggerId),
    /// Add (or replace) a trigger: the form's.
    Save(Box<TriggerSet>),
    /// Open this chat.
    Open {
        project_slug: String,
        session_id: String,
        title: String,
    },
    /// The view closed.
    Closed,
    /// Not a Triggers command: let the global keys have it.
    Ignored,
}

/// A question waiting for `y`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Confirm {
    /// Fire it (`f`), else remove it (`d`).
    fire: bool,
    trigger: TriggerId,
}

/// The last thing an action came to, shown at the bottom of the view.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Said {
    text: String,
    role: Role,
}

/// A trigger's recent runs, over the list.
#[derive(Debug, Clone)]
struct Runs {
    trigger: TriggerId,
    runs: Option<Vec<RunSummary>>,
    error: Option<String>,
    cursor: usize,
    top: usize,
}

/// The Triggers view's state while it is open.
#[derive(Debug, Clone)]
pub struct TriggersView {
    /// The project it opened on; `None`: none was at hand, so every project's.
    project: Option<String>,
    /// Every project's triggers, not only `project`'s.
    every: bool,
    triggers: Option<Vec<TriggerInfo>>,
    error: Option<String>,
    /// An answer is awaited (and nothing is shown yet).
    loading: bool,
    cursor: usize,
    top: usize,
    confirm: Option<Confirm>,
    form: Option<Form>,
    /// Acts sent, until their answers come.
    pending: Vec<(Act, TriggerId)>,
    said: Option<Said>,
    runs: Option<Runs>,
    /// The time to show times against; `None`: the local clock. Tests pin it.
    clock: Option<DateTime<FixedOffset>>,
}

impl TriggersView {
    /// The triggers of `project` (every project's when `None`), waiting for their list
    /// ([`TriggersView::asked`]).
    pub fn new(project: Option<String>) -> Self {
        Self {
            every: project.is_none(),
            project,
            triggers: None,
            error: None,
            loading: true,
            cursor: 0,
            top: 0,
            confirm: None,
            form: None,
            pending: Vec::new(),
            said: None,
            runs: None,
            clock: None,
        }
    }

    /// The project whose triggers the list holds; `None`: every project's.
    pub fn asked(&self) -> Option<String> {
        if self.every {
            None
        } else {
            self.project.clone()
        }
    }

    /// The trigger whose runs are shown, if any.
    pub fn runs_of(&self) -> Option<&TriggerId> {
        self.runs.as_ref().map(|r| &r.trigger)
    }

    /// Times are shown against this clock (its zone and its day); `None`, the local one.
    pub fn set_clock(&mut self, now: Option<DateTime<FixedOffset>>) {
        self.clock = now;
    }

    fn now(&self) -> DateTime<FixedOffset> {
        self.clock.unwrap_or_else(|| Local::now().fixed_offset())
    }

    pub fn triggers(&self) -> Option<&[TriggerInfo]> {
        self.triggers.as_deref()
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// What the last action came to, as shown.
    pub fn said(&self) -> Option<&str> {
        self.said.as_ref().map(|s| s.text.as_str())
    }

    /// The question waiting for `y`, as shown.
    pub fn question(&self) -> Option<String> {
        self.confirm.as_ref().map(question)
    }

    /// Whether a question waits for `y` (every other key says no).
    pub fn confirming(&self) -> bool {
        self.confirm.is_some()
    }

    /// Whether the add form has the keyboard.
    pub fn editing(&self) -> bool {
        self.form.is_some()
    }

    /// What the form's fields hold (name, when, prompt), and whether it resumes one chat.
    pub fn form_fields(&self) -> Option<(&[String; 3], bool)> {
        self.form.as_ref().map(|f| (&f.text, f.resume))
    }

    /// A key while the form is open: typing edits the field (`space` toggles the session
    /// field), Tab and ↓ go to the next field, Shift-Tab and ↑ to the previous, Enter saves,
    /// Esc cancels, Ctrl-U clears the field.
    pub fn on_form_key(&mut self, key: KeyEvent) -> TriggersOutcome {
        let Some(form) = self.form.as_mut() else {
            return TriggersOutcome::Handled;
        };
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match key.code {
            KeyCode::Esc => self.form = None,
            _ if form.sending => {}
            KeyCode::Tab | KeyCode::Down => form.focus = (form.focus + 1) % FIELDS,
            KeyCode::BackTab | KeyCode::Up => form.focus = (form.focus + FIELDS - 1) % FIELDS,
            KeyCode::Enter => match form.trigger() {
                Ok(set) => {
                    form.error = None;
                    form.sending = true;
                    let id = TriggerId {
                        project_slug: set.project_slug.clone(),
                        name: set.name.clone(),
                    };
                    self.pending.push((Act::Save, id));
                    return TriggersOutcome::Save(Box::new(set));
                }
                Err(reason) => form.error = Some(reason),
            },
            KeyCode::Char(' ') if form.focus == SESSION => form.resume = !form.resume,
            KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                if let Some(text) = form.text.get_mut(form.focus) {
                    text.clear();
                }
            }
            KeyCode::Backspace => {
                if let Some(text) = form.text.get_mut(form.focus) {
                    text.pop();
                }
            }
            KeyCode::Char(c) if plain => {
                if let Some(text) = form.text.get_mut(form.focus) {
                    text.push(c);
                }
            }
            _ => {}
        }
        TriggersOutcome::Handled
    }

    /// The trigger under the cursor.
    pub fn cursor_trigger(&self) -> Option<&TriggerInfo> {
        self.triggers.as_ref()?.get(self.cursor)
    }

    /// The daemon's triggers for `asked`; dropped (false) when the view shows another scope now.
    pub fn answer(
        &mut self,
        asked: Option<&str>,
        result: Result<Vec<TriggerInfo>, String>,
    ) -> bool {
        if asked != self.asked().as_deref() {
            return false;
        }
        self.loading = false;
        match result {
            Ok(triggers) => {
                let at = self.cursor_trigger().map(TriggerId::of);
                let found = at.and_then(|id| triggers.iter().position(|t| id.is(t)));
                self.cursor = found
                    .unwrap_or(self.cursor)
                    .min(triggers.len().saturating_sub(1));
                self.triggers = Some(triggers);
                self.error = None;
            }
            Err(reason) => {
                self.triggers = None;
                self.error = Some(reason);
                self.cursor = 0;
                self.top = 0;
            }
        }
        true
    }

    /// The unattended runs of a trigger's project; dropped (false) unless the view shows that
    /// trigger's runs. Only the trigger's own runs are kept, newest first as they came.
    pub fn runs_answered(
        &mut self,
        id: &TriggerId,
        result: Result<Vec<RunSummary>, String>,
    ) -> bool {
        let Some(panel) = self.runs.as_mut().filter(|r| &r.trigger == id) else {
            return false;
        };
        match result {
            Ok(runs) => {
                let mine: Vec<RunSummary> = runs
                    .into_iter()
                    .filter(|r| {
                        r.project_slug == id.project_slug
                            && r.trigger.as_deref() == Some(id.name.as_str())
                    })
                    .collect();
                panel.cursor = panel.cursor.min(mine.len().saturating_sub(1));
                panel.runs = Some(mine);
                panel.error = None;
            }
            Err(reason) => {
                panel.runs = None;
                panel.error = Some(reason);
            }
        }
        true
    }

    /// The answer to an act the view asked for: what it came to is said at the bottom of the
    /// view. Whether the view asked for it (and the list should be read again).
    pub fn act_answered(&mut self, acted: &Acted) -> bool {
        let act = acted.act();
        let Some(at) = self.pending.iter().position(|(a, _)| *a == act) else {
            return false;
        };
        let (_, id) = self.pending.remove(at);
        if act == Act::Save
            && let Some(form) = self.form.as_mut()
        {
            form.sending = false;
            if let Some(reason) = acted.refusal() {
                form.error = Some(reason.to_owned());
                return true;
            }
            self.form = None;
        }
        self.said = Some(act_said(&id, acted));
        true
    }

    fn len(&self) -> usize {
        self.triggers.as_ref().map_or(0, Vec::len)
    }

    fn move_by(&mut self, delta: isize) {
        if let Some(runs) = self.runs.as_mut() {
            let len = runs.runs.as_ref().map_or(0, Vec::len);
            runs.cursor = moved(runs.cursor, delta, len);
            return;
        }
        self.cursor = moved(self.cursor, delta, self.len());
    }

    /// A key while a question waits: `yes` (the key table's [`Command::Allow`], `y`) does it,
    /// anything else drops it.
    pub fn on_confirm(&mut self, yes: bool) -> TriggersOutcome {
        let Some(confirm) = self.confirm.take() else {
            return TriggersOutcome::Handled;
        };
        if !yes {
            self.said = Some(Said {
                text: format!(
                    "{} was not {}.",
                    confirm.trigger.name,
                    if confirm.fire { "fired" } else { "removed" }
                ),
                role: Role::Dim,
            });
            return TriggersOutcome::Handled;
        }
        let id = confirm.trigger;
        let ellipsis = "…";
        self.said = Some(Said {
            text: if confirm.fire {
                format!("firing {}{ellipsis}", id.name)
            } else {
                format!("removing {}{ellipsis}", id.name)
            },
            role: Role::Dim,
        });
        if confirm.fire {
            self.pending.push((Act::Fire, id.clone()));
            TriggersOutcome::Fire(id)
        } else {
            self.pending.push((Act::Remove, id.clone()));
            TriggersOutcome::Remove(id)
        }
    }

    /// A command while the view has the keyboard; `page` is how many rows a page moves.
    pub fn on_command(&mut self, command: Command, page: usize) -> TriggersOutcome {
        if self.confirm.is_some() {
            return self.on_confirm(command == Command::Allow);
        }
        if let Some(delta) = command.motion(page) {
            self.move_by(delta);
            return TriggersOutcome::Handled;
        }
        match command {
            Command::Open => return self.open(),
            Command::FireTrigger | Command::RemoveTrigger if self.runs.is_none() => {
                let Some(trigger) = self.cursor_trigger().map(TriggerId::of) else {
                    let verb = if command == Command::FireTrigger {
                        "fire"
                    } else {
                        "remove"
                    };
                    self.said = Some(Said {
                        text: format!("No trigger here to {verb}."),
                        role: Role::Dim,
                    });
                    return TriggersOutcome::Handled;
                };
                self.confirm = Some(Confirm {
                    fire: command == Command::FireTrigger,
                    trigger,
                });
            }
            Command::NewChat if self.runs.is_none() => {
                let project = self.project.clone().unwrap_or_default();
                self.said = None;
                self.form = Some(Form::new(project));
            }
            Command::CycleScope if self.runs.is_none() => {
                if self.project.is_none() {
                    self.said = Some(Said {
                        text: "No project is open: these are every project's triggers.".into(),
                        role: Role::Dim,
                    });
                    return TriggersOutcome::Handled;
                }
                self.every = !self.every;
                self.triggers = None;
                self.error = None;
                self.loading = true;
                self.cursor = 0;
                self.top = 0;
                return TriggersOutcome::Load(self.asked());
            }
            Command::Refresh => {
                if let Some(runs) = self.runs.as_mut() {
                    runs.error = None;
                    return TriggersOutcome::LoadRuns(runs.trigger.clone());
                }
                self.error = None;
                self.loading = self.triggers.is_none();
                return TriggersOutcome::Load(self.asked());
            }
            Command::Back | Command::Triggers => {
                if self.runs.take().is_some() {
                    return TriggersOutcome::Handled;
                }
                return TriggersOutcome::Closed;
            }
            _ => return TriggersOutcome::Ignored,
        }
        TriggersOutcome::Handled
    }

    /// Enter: a run's chat; the chat a `resume` trigger owns; else the trigger's runs.
    fn open(&mut self) -> TriggersOutcome {
        if let Some(runs) = &self.runs {
            let Some(run) = runs.runs.as_ref().and_then(|r| r.get(runs.cursor)) else {
                return TriggersOutcome::Handled;
            };
            return TriggersOutcome::Open {
                project_slug: run.project_slug.clone(),
                session_id: run.session_id.clone(),
                title: run.title.clone(),
            };
        }
        let Some(t) = self.cursor_trigger() else {
            return TriggersOutcome::Handled;
        };
        if let (SessionPolicy::Resume, Some(session_id)) = (t.spec.session, &t.session_id) {
            return TriggersOutcome::Open {
                project_slug: t.project_slug.clone(),
                session_id: session_id.clone(),
                title: String::new(),
            };
        }
        let id = TriggerId::of(t);
        self.runs = Some(Runs {
            trigger: id.clone(),
            runs: None,
            error: None,
            cursor: 0,
            top: 0,
        });
        TriggersOutcome::LoadRuns(id)
    }

    /// The status line's key hints for what the view shows now.
    pub fn hints(&self) -> Vec<(&'static str, &'static str)> {
        if self.form.is_some() {
            return vec![
                ("tab", "next field"),
                ("space", "resume (session)"),
                ("enter", "save"),
                ("esc", "cancel"),
            ];
        }
        if self.confirm.is_some() {
            return vec![("y", "yes"), ("any other key", "no")];
        }
        if self.runs.is_some() {
            return vec![
                ("j/k", "runs"),
                ("enter", "open"),
                ("r", "reload"),
                ("esc", "back"),
                ("?", "keys"),
            ];
        }
        vec![
            ("j/k", "triggers"),
            ("enter", "chat/runs"),
            ("f", "fire"),
            ("d", "remove"),
            ("n", "new"),
            ("a", "scope"),
            ("esc", "close"),
        ]
    }
}

impl TriggersView {
    /// What the app does for an outcome of a command (`command`: the one that led to it).
    fn reaction(outcome: TriggersOutcome, command: Command) -> Reaction {
        match outcome {
            TriggersOutcome::Handled => Reaction::Handled,
            TriggersOutcome::Load(project) => Reaction::Ask(Action::LoadTriggers(project)),
            TriggersOutcome::LoadRuns(id) => Reaction::Ask(Action::LoadTriggerRuns(id)),
            TriggersOutcome::Fire(id) => Reaction::Ask(Action::Trigger(Act::Fire, id)),
            TriggersOutcome::Remove(id) => Reaction::Ask(Action::Trigger(Act::Remove, id)),
            TriggersOutcome::Save(set) => Reaction::Ask(Action::SaveTrigger(set)),
            TriggersOutcome::Open {
                project_slug,
                session_id,
                title,
            } => Reaction::show_chat(project_slug, session_id, title),
            TriggersOutcome::Closed => Reaction::Close,
            TriggersOutcome::Ignored => Reaction::Pass(command),
        }
    }

    /// The list (and the runs shown) read again.
    fn refresh(&self, cx: &mut Cx<'_>) {
        cx.fetch(Fetch::Triggers(self.asked()));
        if let Some(id) = self.runs_of() {
            cx.fetch(Fetch::TriggerRuns(id.clone()));
        }
    }
}

impl Overlay for TriggersView {
    fn layer(&self) -> Layer {
        Layer::Triggers
    }

    fn context(&self) -> Context {
        Context::Triggers
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Cx<'_>) -> Reaction {
        if self.editing() {
            return Self::reaction(self.on_form_key(key), Command::Allow);
        }
        let command = keys::command_for(Context::Triggers, &key);
        if self.confirming() {
            let yes = command == Some(Command::Allow);
            return Self::reaction(self.on_confirm(yes), Command::Allow);
        }
        match command {
            Some(command) => Overlay::on_command(self, command, cx),
            None => Reaction::Handled,
        }
    }

    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction {
        Self::reaction(TriggersView::on_command(self, command, cx.page), command)
    }

    fn render(&mut self, frame: &mut Frame<'_>, area: Rect, cx: &DrawCx<'_>) {
        render_triggers(self, cx.theme, frame, area);
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        TriggersView::hints(self)
    }

    fn on_reply(&mut self, fetch: &Fetch, answer: &Answer, _: &mut Cx<'_>) -> bool {
        match fetch {
            Fetch::Triggers(asked) => {
                let triggers = match answer {
                    Answer::Triggers(result) => taken(result, |t| t.triggers.clone()),
                    _ => return false,
                };
                self.answer(asked.as_deref(), triggers);
                true
            }
            Fetch::TriggerRuns(id) => {
                let runs = match answer {
                    Answer::History(result) => taken(result, |h| h.runs.clone()),
                    _ => return false,
                };
                self.runs_answered(id, runs);
                true
            }
            _ => false,
        }
    }

    /// A fire, remove or save answered: said in the view when it asked for it; the list is
    /// read again either way.
    fn on_done(&mut self, done: &Done, cx: &mut Cx<'_>) -> bool {
        let Done::Trigger(acted) = done else {
            return false;
        };
        let taken = self.act_answered(acted);
        self.refresh(cx);
        taken
    }

    /// There is no event for the triggers themselves: a fire starts or continues a chat.
    fn on_news(&self, news: News<'_>, cx: &mut Cx<'_>) {
        if matches!(
            news,
            News::Reconnected
                | News::ChatsChanged { .. }
                | News::Active { .. }
                | News::TriggersChanged { .. }
        ) {
            self.refresh(cx);
        }
    }
}

mod form;
mod render;
mod said;
pub use form::parse_when;
use form::{FIELDS, Form, SESSION};
pub use render::render_triggers;
pub use said::act_notice;
use said::{act_said, question};

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::Fired;
    use paddock_proto::{HookEvent, MissedPolicy, Origin, TriggerSpec};

    fn trigger(
        project: &str,
        name: &str,
        session: SessionPolicy,
        sid: Option<&str>,
    ) -> TriggerInfo {
        TriggerInfo {
            project_slug: project.into(),
            name: name.into(),
            spec: TriggerSpec {
                kind: TriggerKind::Hook,
                prompt: "Look.".into(),
                cron: None,
                every: None,
                timezone: None,
                missed: MissedPolicy::Skip,
                on: Some(HookEvent::Manual),
                paths: Vec::new(),
                debounce_secs: None,
                session,
                model: None,
                enabled: true,
                approval_timeout_secs: None,
            },
            next_fire: None,
            last_fire: None,
            last_status: None,
            session_id: sid.map(str::to_owned),
            problem: None,
        }
    }

    fn run(project: &str, trigger: Option<&str>, sid: &str) -> RunSummary {
        RunSummary {
            job_id: format!("j-{sid}"),
            project_slug: project.into(),
            session_id: sid.into(),
            title: format!("chat {sid}"),
            origin: Origin::Hook,
            depth: 0,
            trigger: trigger.map(str::to_owned),
            status: RunStatus::Completed,
            started_at: "2026-11-03T07:41:09Z".into(),
            finished_at: None,
            cost_usd: None,
            prompt: None,
            attribution: None,
            is_new: false,
            waiting: false,
        }
    }

    fn loaded() -> TriggersView {
        let mut v = TriggersView::new(Some("web".into()));
        assert!(v.answer(
            Some("web"),
            Ok(vec![
                trigger("web", "owned", SessionPolicy::Resume, Some("s-owned")),
                trigger("web", "fresh", SessionPolicy::New, None),
            ])
        ));
        v
    }

    #[test]
    fn the_scope_moves_and_stale_lists_are_dropped() {
        let mut v = loaded();
        assert_eq!(v.asked().as_deref(), Some("web"));
        assert_eq!(
            v.on_command(Command::CycleScope, 5),
            TriggersOutcome::Load(None)
        );
        assert!(
            !v.answer(Some("web"), Ok(Vec::new())),
            "web's list is stale"
        );
        assert!(v.triggers().is_none());
        assert!(v.answer(None, Err("gone".into())));
        assert_eq!(v.error(), Some("gone"));
        assert_eq!(
            v.on_command(Command::CycleScope, 5),
            TriggersOutcome::Load(Some("web".into()))
        );
        // With no project at hand, every project's, and `a` says so.
        let mut every = TriggersView::new(None);
        assert_eq!(every.asked(), None);
        assert_eq!(
            every.on_command(Command::CycleScope, 5),
            TriggersOutcome::Handled
        );
    }

    #[test]
    fn fire_and_remove_with_no_trigger_say_so() {
        let mut v = TriggersView::new(Some("web".into()));
        assert!(v.answer(Some("web"), Ok(Vec::new())));
        assert_eq!(
            v.on_command(Command::FireTrigger, 5),
            TriggersOutcome::Handled
        );
        assert!(!v.confirming());
        assert_eq!(v.said(), Some("No trigger here to fire."));
        v.on_command(Command::RemoveTrigger, 5);
        assert_eq!(v.said(), Some("No trigger here to remove."));
    }

    #[test]
    fn fire_and_remove_ask_first() {
        let mut v = loaded();
        assert_eq!(
            v.on_command(Command::FireTrigger, 5),
            TriggersOutcome::Handled
        );
        assert!(v.confirming());
        assert_eq!(
            v.question().as_deref(),
            Some("Fire owned in web now? y fires it.")
        );
        // Any other key says no.
        assert_eq!(v.on_command(Command::Down, 5), TriggersOutcome::Handled);
        assert!(!v.confirming());
        assert_eq!(v.said(), Some("owned was not fired."));
        v.on_command(Command::Down, 5);
        v.on_command(Command::RemoveTrigger, 5);
        assert_eq!(
            v.question().as_deref(),
            Some("Remove fresh from web's project.toml? y removes it.")
        );
        let id = TriggerId {
            project_slug: "web".into(),
            name: "fresh".into(),
        };
        assert_eq!(
            v.on_command(Command::Allow, 5),
            TriggersOutcome::Remove(id.clone())
        );
        assert!(
            !v.act_answered(&Acted::Fired(Ok(Fired {
                session_id: None,
                skipped: None
            }))),
            "no fire was asked"
        );
        assert!(v.act_answered(&Acted::Removed(Err("not_found: no such trigger".into()))));
        assert_eq!(
            v.said(),
            Some("Could not remove fresh: not_found: no such trigger")
        );
    }

    #[test]
    fn what_a_fire_came_to() {
        let id = TriggerId {
            project_slug: "".into(),
            name: "nightly".into(),
        };
        let said = |fired| act_said(&id, &Acted::Fired(Ok(fired))).text;
        assert_eq!(
            said(Fired {
                session_id: Some("c71d4e2a-9f08".into()),
                skipped: None
            }),
            "Fired nightly: it runs in chat c71d4e2a."
        );
        assert_eq!(
            said(Fired {
                session_id: None,
                skipped: Some("the previous run is still going".into())
            }),
            "nightly was not fired: the previous run is still going"
        );
        let neither = Fired {
            session_id: None,
            skipped: None,
        };
        assert!(said(neither).starts_with("Could not fire nightly: paddockd answered"));
        assert_eq!(
            act_said(&id, &Acted::Removed(Ok(paddock_proto::Ack))).text,
            "Removed nightly from (root)."
        );
    }

    #[test]
    fn an_act_whose_view_closed_is_said_on_the_status_line() {
        let saved = trigger("web", "nightly", SessionPolicy::New, None);
        assert_eq!(
            act_notice(&Acted::Saved(Ok(Box::new(saved)))),
            "the trigger was saved"
        );
        assert_eq!(
            act_notice(&Acted::Fired(Err("not_found".into()))),
            "fire the trigger failed: not_found"
        );
    }

    #[test]
    fn when_reads_a_cron_an_interval_or_an_event() {
        let spec = parse_when("0 2 * * * Europe/Berlin").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spec.cron.as_deref(), Some("0 2 * * *"));
        assert_eq!(spec.timezone.as_deref(), Some("Europe/Berlin"));
        assert_eq!(spec.kind, TriggerKind::Schedule);
        let spec = parse_when(" every  15m ").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spec.every.as_deref(), Some("15m"));
        let spec =
            parse_when("on file_changed docs/** README.md").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spec.kind, TriggerKind::Hook);
        assert_eq!(spec.on, Some(HookEvent::FileChanged));
        assert_eq!(spec.paths, ["docs/**", "README.md"]);
        assert_eq!(
            parse_when("manual").map(|s| s.on),
            Ok(Some(HookEvent::Manual))
        );
        assert!(parse_when("on lunch").is_err_and(|e| e.starts_with("no event lunch")));
        assert!(parse_when("on turn_failed x").is_err());
        assert!(parse_when("0 2 *").is_err_and(|e| e.contains("five fields")));
        assert!(parse_when("").is_err());
    }

    #[test]
    fn the_form_saves_what_it_holds() {
        let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
        let mut v = loaded();
        v.on_command(Command::NewChat, 5);
        assert!(v.editing());
        for c in "nightly".chars() {
            v.on_form_key(key(KeyCode::Char(c)));
        }
        // Enter with no "when" says what is missing.
        assert_eq!(v.on_form_key(key(KeyCode::Enter)), TriggersOutcome::Handled);
        v.on_form_key(key(KeyCode::Tab));
        for c in "every 1h".chars() {
            v.on_form_key(key(KeyCode::Char(c)));
        }
        v.on_form_key(key(KeyCode::Tab));
        for c in "Sum up.".chars() {
            v.on_form_key(key(KeyCode::Char(c)));
        }
        v.on_form_key(key(KeyCode::Tab));
        v.on_form_key(key(KeyCode::Char(' ')));
        let TriggersOutcome::Save(set) = v.on_form_key(key(KeyCode::Enter)) else {
            panic!("Enter did not save");
        };
        assert_eq!(set.project_slug, "web");
        assert_eq!(set.name, "nightly");
        assert_eq!(set.spec.every.as_deref(), Some("1h"));
        assert_eq!(set.spec.prompt, "Sum up.");
        assert_eq!(set.spec.session, SessionPolicy::Resume);
        // A refusal keeps the form, with the daemon's words.
        assert!(v.act_answered(&Acted::Saved(Err("invalid_argument: bad interval".into()))));
        assert!(v.editing());
        assert_eq!(v.on_form_key(key(KeyCode::Esc)), TriggersOutcome::Handled);
        assert!(!v.editing());
    }

    #[test]
    fn enter_opens_the_owned_chat_or_lists_the_runs() {
        let mut v = loaded();
        assert_eq!(
            v.on_command(Command::Open, 5),
            TriggersOutcome::Open {
                project_slug: "web".into(),
                session_id: "s-owned".into(),
                title: String::new(),
            }
        );
        v.on_command(Command::Down, 5);
        let id = TriggerId {
            project_slug: "web".into(),
            name: "fresh".into(),
        };
        assert_eq!(
            v.on_command(Command::Open, 5),
            TriggersOutcome::LoadRuns(id.clone())
        );
        assert_eq!(runs_request(&id).project_slug.as_deref(), Some("web"));
        let other = TriggerId {
            project_slug: "web".into(),
            name: "owned".into(),
        };
        assert!(
            !v.runs_answered(&other, Ok(Vec::new())),
            "another trigger's runs"
        );
        assert!(v.runs_answered(
            &id,
            Ok(vec![
                run("web", Some("owned"), "a"),
                run("web", Some("fresh"), "b"),
                run("web", None, "c"),
            ])
        ));
        assert_eq!(
            v.on_command(Command::Open, 5),
            TriggersOutcome::Open {
                project_slug: "web".into(),
                session_id: "b".into(),
                title: "chat b".into(),
            }
        );
        assert_eq!(
            v.on_command(Command::FireTrigger, 5),
            TriggersOutcome::Ignored
        );
        assert_eq!(v.on_command(Command::Back, 5), TriggersOutcome::Handled);
        assert!(v.runs_of().is_none());
        assert_eq!(v.on_command(Command::Back, 5), TriggersOutcome::Closed);
    }
}
