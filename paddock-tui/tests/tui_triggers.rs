//! The Triggers view (`Z`) as `insta` snapshots on ratatui's `TestBackend` at 80x24 and 40x24
//! (colours, and the plain ASCII, no-colour theme), built from constructed `trigger:list` and
//! `history:list` answers (no daemon), and its key flows: `Z` reading the project's triggers,
//! `a` every project's, `f` and `d` asking first (naming the trigger) and sending only after
//! `y`, Enter opening the chat a resume trigger owns or listing a trigger's runs, answers to a
//! list no longer shown dropped, failures shown in the view.
//!
//! Times are shown against a pinned clock in UTC+01:00, so the screens do not depend on the
//! machine's zone or the day the tests run.

use paddock_proto::{Fired, History, Reply};
use paddock_proto::{Request, TriggerFire, TriggerRemove, TriggerSet};
use paddock_tui::tui::app::{Action, App, Focus};
use paddock_tui::tui::doing::{Acted, Doing, Done};
use paddock_tui::tui::keys::Context;
use paddock_tui::tui::theme::Theme;
use paddock_tui::tui::triggers_view::{Act, TriggerId, TriggersView, act_doing, runs_request};
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Color;

mod fixtures;
use fixtures::triggers::*;

#[test]
fn triggers_80x24() -> TestResult {
    let mut app = triggers_app(Theme::default())?;
    app.on_key(ch('j'));
    app.on_key(ch('j'));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn triggers_40x24() -> TestResult {
    let mut app = triggers_app(Theme::default())?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn triggers_plain_80x24() -> TestResult {
    let mut app = triggers_app(Theme::plain())?;
    app.on_key(ch('j'));
    app.on_key(ch('j'));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn triggers_plain_40x24() -> TestResult {
    let mut app = triggers_app(Theme::plain())?;
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn triggers_every_project_80x24() -> TestResult {
    let mut app = triggers_app(Theme::default())?;
    assert_eq!(app.on_key(ch('a')), Some(Action::LoadTriggers(None)));
    list_answered(&mut app, None, list(every()));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn triggers_confirm_fire_80x24() -> TestResult {
    let mut app = triggers_app(Theme::default())?;
    app.on_key(ch('j'));
    app.on_key(ch('j'));
    assert_eq!(app.on_key(ch('f')), None, "f only asks");
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn triggers_confirm_remove_40x24() -> TestResult {
    let mut app = triggers_app(Theme::default())?;
    app.on_key(ch('G'));
    assert_eq!(app.on_key(ch('d')), None, "d only asks");
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn triggers_runs_80x24() -> TestResult {
    let mut app = triggers_app(Theme::default())?;
    app.on_key(ch('j'));
    app.on_key(ch('j'));
    let asked = app.on_key(key(KeyCode::Enter));
    assert_eq!(
        asked,
        Some(Action::LoadTriggerRuns(id("webapp", "ci-failed")))
    );
    let reading = text(&mut app, 80, 24)?;
    assert!(reading.contains("Reading History…"), "{reading}");
    runs_answered(
        &mut app,
        &id("webapp", "ci-failed"),
        Ok(Reply::History(History {
            runs: ci_runs(),
            last_seen: None,
            new_unattended: 0,
            waiting: 0,
        })),
    );
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn triggers_runs_plain_40x24() -> TestResult {
    let mut app = triggers_app(Theme::plain())?;
    app.on_key(ch('j'));
    app.on_key(ch('j'));
    app.on_key(key(KeyCode::Enter));
    runs_answered(
        &mut app,
        &id("webapp", "ci-failed"),
        Ok(Reply::History(History {
            runs: ci_runs(),
            last_seen: None,
            new_unattended: 0,
            waiting: 0,
        })),
    );
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn triggers_failed_40x24() -> TestResult {
    let mut app = app(Theme::default());
    app.on_key(ch('Z'));
    let reading = text(&mut app, 40, 24)?;
    assert!(reading.contains("Reading the triggers…"), "{reading}");
    list_answered(
        &mut app,
        Some("webapp"),
        Err("project.toml line 12: expected `=`; fix it by hand".into()),
    );
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn fire_asks_first_and_any_other_key_says_no() -> TestResult {
    let mut app = triggers_app(Theme::default())?;
    assert_eq!(app.context(), Context::Triggers);
    app.on_key(ch('j'));
    app.on_key(ch('j'));
    assert_eq!(app.on_key(ch('f')), None);
    let asking = text(&mut app, 80, 24)?;
    assert!(
        asking.contains("Fire ci-failed in webapp now? y fires it."),
        "{asking}"
    );
    // n (or any key but y) says no, and moves nothing.
    assert_eq!(app.on_key(ch('n')), None);
    assert_eq!(view(&mut app)?.said(), Some("ci-failed was not fired."));
    assert_eq!(
        view(&mut app)?.cursor_trigger().map(|t| t.name.as_str()),
        Some("ci-failed")
    );
    app.on_key(ch('f'));
    assert_eq!(app.on_key(ch('j')), None, "j answers the question");
    assert!(!view(&mut app)?.confirming());
    // y fires.
    app.on_key(ch('f'));
    assert_eq!(
        app.on_key(ch('y')),
        Some(Action::Trigger(Act::Fire, id("webapp", "ci-failed")))
    );
    assert_eq!(view(&mut app)?.said(), Some("firing ci-failed…"));
    assert_eq!(
        act_wire(Act::Fire, id("webapp", "ci-failed"))?,
        serde_json::json!({"type": "trigger:fire", "projectSlug": "webapp", "name": "ci-failed"})
    );
    act_answered(
        &mut app,
        Act::Fire,
        Ok(Reply::Fired(Fired {
            session_id: Some("4b8e2f1a-7c3d-4e9b-a6f0-8d2c1e5b9a73".into()),
            skipped: None,
        })),
    );
    let fired = text(&mut app, 80, 24)?;
    assert!(
        fired.contains("Fired ci-failed: it runs in chat 4b8e2f1a."),
        "{fired}"
    );
    // A skip is said as such.
    app.on_key(ch('f'));
    app.on_key(ch('y'));
    act_answered(
        &mut app,
        Act::Fire,
        Ok(Reply::Fired(Fired {
            session_id: None,
            skipped: Some("its previous run is still going".into()),
        })),
    );
    assert_eq!(
        view(&mut app)?.said(),
        Some("ci-failed was not fired: its previous run is still going")
    );
    Ok(())
}

#[test]
fn remove_names_the_trigger_and_a_refusal_is_shown() -> TestResult {
    let mut app = triggers_app(Theme::default())?;
    app.on_key(ch('G'));
    assert_eq!(app.on_key(ch('d')), None);
    assert_eq!(
        view(&mut app)?.question().as_deref(),
        Some("Remove docs-check from webapp's project.toml? y removes it.")
    );
    assert_eq!(
        app.on_key(ch('y')),
        Some(Action::Trigger(Act::Remove, id("webapp", "docs-check")))
    );
    assert_eq!(
        act_wire(Act::Remove, id("webapp", "docs-check"))?,
        serde_json::json!({"type": "trigger:remove", "projectSlug": "webapp", "name": "docs-check"})
    );
    act_answered(
        &mut app,
        Act::Remove,
        Err("project.toml does not load (line 3): fix it by hand".into()),
    );
    let refused = text(&mut app, 80, 24)?;
    assert!(
        refused.contains("Could not remove docs-check: project.toml does not load (line 3)"),
        "{refused}"
    );
    app.on_key(ch('d'));
    app.on_key(ch('y'));
    act_answered(&mut app, Act::Remove, Ok(Reply::Ack));
    assert_eq!(
        view(&mut app)?.said(),
        Some("Removed docs-check from webapp.")
    );
    // The view closed meanwhile: the answer goes to the status line.
    app.on_key(ch('d'));
    app.on_key(ch('y'));
    app.on_key(key(KeyCode::Esc));
    assert!(app.view::<TriggersView>().is_none());
    act_answered(&mut app, Act::Remove, Err("not_found".into()));
    assert_eq!(
        app.notice.text(),
        Some("remove the trigger failed: not_found")
    );
    Ok(())
}

#[test]
fn a_stale_answer_is_dropped() -> TestResult {
    let mut app = triggers_app(Theme::default())?;
    assert_eq!(app.on_key(ch('a')), Some(Action::LoadTriggers(None)));
    // webapp's list, asked before `a`, comes late: dropped.
    list_answered(&mut app, Some("webapp"), list(webapp()));
    assert!(view(&mut app)?.triggers().is_none());
    let reading = text(&mut app, 80, 24)?;
    assert!(reading.contains("Reading the triggers…"), "{reading}");
    list_answered(&mut app, None, list(every()));
    assert_eq!(view(&mut app)?.triggers().map(<[_]>::len), Some(6));
    // The runs of a trigger the view no longer shows are dropped too.
    app.on_key(key(KeyCode::Enter));
    assert_eq!(view(&mut app)?.runs_of(), Some(&id("", "nightly-backup")));
    runs_answered(
        &mut app,
        &id("webapp", "ci-failed"),
        Ok(Reply::History(History {
            runs: ci_runs(),
            last_seen: None,
            new_unattended: 0,
            waiting: 0,
        })),
    );
    let still = text(&mut app, 80, 24)?;
    assert!(still.contains("Reading History…"), "{still}");
    assert_eq!(
        runs_request(&id("", "nightly-backup"))
            .project_slug
            .as_deref(),
        Some("")
    );
    // An answer of the wrong kind is an error in the view (the client's protocol error).
    app.on_key(key(KeyCode::Esc));
    list_answered(&mut app, None, Ok(Reply::Ack));
    assert_eq!(
        view(&mut app)?.error(),
        Some(
            "paddockd sent something this paddock cannot read (trigger:list was answered with \
             ack); are both from the same build?"
        )
    );
    Ok(())
}

#[test]
fn enter_opens_the_chat_a_resume_trigger_owns() -> TestResult {
    let mut app = triggers_app(Theme::default())?;
    let action = app.on_key(key(KeyCode::Enter));
    assert_eq!(
        action,
        Some(Action::Open {
            project_slug: "webapp".into(),
            session_id: "c71d4e2a-9f08-4b36-8e1c-5a2f7d9b3e04".into(),
        })
    );
    assert!(app.view::<TriggersView>().is_none());
    assert_eq!(app.focus, Focus::Chat);
    // Z from the chat pane: the open chat's project.
    assert_eq!(
        app.on_key(ch('Z')),
        Some(Action::LoadTriggers(Some("webapp".into())))
    );
    // r reads again, Z closes.
    assert_eq!(
        app.on_key(ch('r')),
        Some(Action::LoadTriggers(Some("webapp".into())))
    );
    assert_eq!(app.on_key(ch('Z')), None);
    assert!(app.view::<TriggersView>().is_none());
    Ok(())
}

#[test]
fn a_run_opens_its_chat() -> TestResult {
    let mut app = triggers_app(Theme::default())?;
    app.on_key(ch('j'));
    app.on_key(ch('j'));
    app.on_key(key(KeyCode::Enter));
    runs_answered(
        &mut app,
        &id("webapp", "ci-failed"),
        Ok(Reply::History(History {
            runs: ci_runs(),
            last_seen: None,
            new_unattended: 0,
            waiting: 0,
        })),
    );
    // Only ci-failed's runs: the docs run is not listed.
    let runs = text(&mut app, 80, 24)?;
    assert!(!runs.contains("06:00"), "{runs}");
    app.on_key(ch('j'));
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Some(Action::Open {
            project_slug: "webapp".into(),
            session_id: "s-ci-1".into(),
        })
    );
    assert!(app.view::<TriggersView>().is_none());
    Ok(())
}

#[test]
fn plain_triggers_have_no_colour_and_only_ascii() -> TestResult {
    for (width, height) in [(80, 24), (40, 24)] {
        let mut app = triggers_app(Theme::plain())?;
        let plain = screen(&mut app, width, height)?;
        assert!(
            plain
                .buffer()
                .content()
                .iter()
                .all(|c| c.fg == Color::Reset && c.bg == Color::Reset && c.symbol().is_ascii())
        );
    }
    Ok(())
}

#[test]
fn triggers_form_80x24() -> TestResult {
    let mut app = form_app(Theme::default())?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn triggers_form_plain_40x24() -> TestResult {
    let mut app = triggers_app(Theme::plain())?;
    app.on_key(ch('n'));
    for c in "inbox".chars() {
        app.on_key(ch(c));
    }
    app.on_key(key(KeyCode::Tab));
    for c in "every".chars() {
        app.on_key(ch(c));
    }
    app.on_key(key(KeyCode::Enter));
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn the_form_saves_a_trigger_and_says_so() -> TestResult {
    let mut app = form_app(Theme::default())?;
    // Keys type into the form: q, ?, f are text there.
    let action = app.on_key(key(KeyCode::Enter));
    let Some(Action::SaveTrigger(set)) = action else {
        return Err(format!("Enter asked {action:?}").into());
    };
    assert_eq!(
        serde_json::to_value(Request::from(*set))?,
        serde_json::json!({
            "type": "trigger:set",
            "projectSlug": "webapp",
            "name": "nightly-backup",
            "spec": {
                "kind": "schedule",
                "prompt": "Check last night's backup.",
                "cron": "0 2 * * *",
                "timezone": "Europe/Berlin",
                "session": "resume"
            }
        })
    );
    // The daemon refuses: the form stays, with its words.
    act_answered(
        &mut app,
        Act::Save,
        Err("invalid_argument: unknown time zone \"Europe/Berlin\"".into()),
    );
    assert!(view(&mut app)?.editing());
    let refused = text(&mut app, 80, 24)?;
    assert!(
        refused.contains("✗ invalid_argument: unknown time zone"),
        "{refused}"
    );
    // Saved: the form closes and says what was saved.
    app.on_key(key(KeyCode::Enter));
    let mut saved = webapp().remove(0);
    saved.name = "nightly-backup".into();
    saved.spec.every = None;
    saved.spec.cron = Some("0 2 * * *".into());
    saved.spec.timezone = Some("Europe/Berlin".into());
    act_answered(&mut app, Act::Save, Ok(Reply::Trigger(Box::new(saved))));
    assert!(!view(&mut app)?.editing());
    assert_eq!(
        view(&mut app)?.said(),
        Some("Saved nightly-backup in webapp: 0 2 * * * Europe/Berlin.")
    );
    // Esc cancels a form, and q typed in it is text, not quit.
    app.on_key(ch('n'));
    assert_eq!(app.on_key(ch('q')), None);
    assert_eq!(
        view(&mut app)?.form_fields().map(|(t, _)| t[0].clone()),
        Some("q".to_owned())
    );
    app.on_key(key(KeyCode::Esc));
    assert!(!view(&mut app)?.editing());
    assert!(
        app.view::<TriggersView>().is_some(),
        "Esc left the form, not the view"
    );
    Ok(())
}

/// The loop's answer to a fire, remove or save, typed as `Client::call` hands it over and
/// routed as the loop routes it.
fn act_answered(app: &mut App, act: Act, result: Result<Reply, String>) {
    let acted = match act {
        Act::Fire => Acted::Fired(typed::<TriggerFire>(result)),
        Act::Remove => Acted::Removed(typed::<TriggerRemove>(result)),
        Act::Save => Acted::Saved(typed::<TriggerSet>(result)),
    };
    app.on_done(&Done::Trigger(acted));
}

/// What a fire or a remove sends, as it goes on the wire.
fn act_wire(act: Act, id: TriggerId) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let request = match act_doing(act, id) {
        Some(Doing::Fire(fire)) => Request::from(fire),
        Some(Doing::Remove(remove)) => Request::from(remove),
        other => return Err(format!("{act:?} asked {other:?}").into()),
    };
    Ok(serde_json::to_value(request)?)
}
