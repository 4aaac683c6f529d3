//! The History view and the help overlay as `insta` snapshots on ratatui's `TestBackend`, at
//! 80x24 and 40x24, with Unicode glyphs and with the plain (ASCII, no color) theme.
//!
//! Times are shown against a pinned clock in UTC, so the screens do not depend on the
//! machine's zone or the day the tests run.

use chrono::DateTime;
use paddock_proto::{History, Origin, RunStatus, RunSummary};
use paddock_tui::tui::help::{help_max_scroll, render_help};
use paddock_tui::tui::history::{HistoryView, render_history};
use paddock_tui::tui::keys::{Command, Context};
use paddock_tui::tui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn run(
    session: &str,
    project: &str,
    title: &str,
    origin: Origin,
    status: RunStatus,
    started: &str,
    finished: Option<&str>,
) -> RunSummary {
    RunSummary {
        job_id: format!("j-{session}"),
        project_slug: project.into(),
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
    }
}

/// Every origin and every status, two of them new, and the "while you were away" banner.
fn canned() -> History {
    let mut race = run(
        "s-race",
        "webapp",
        "Investigate cookie refresh race",
        Origin::Spawned,
        RunStatus::Running,
        "2026-11-03T09:13:55Z",
        None,
    );
    race.depth = 2;
    let mut ci = run(
        "s-ci",
        "webapp",
        "Triage CI failure on main",
        Origin::Hook,
        RunStatus::Failed,
        "2026-11-03T07:41:09Z",
        Some("2026-11-03T07:44:30Z"),
    );
    ci.trigger = Some("ci-failed".into());
    ci.is_new = true;
    let mut backup = run(
        "s-backup",
        "",
        "Nightly backup check",
        Origin::Scheduled,
        RunStatus::Completed,
        "2026-11-02T02:00:01Z",
        Some("2026-11-02T02:01:37Z"),
    );
    backup.trigger = Some("nightly-backup".into());
    backup.is_new = true;
    let mut audit = run(
        "s-audit",
        "infrastructure-platform",
        "Audit the dependency tree for licences",
        Origin::Spawned,
        RunStatus::Completed,
        "2026-11-02T01:00:00Z",
        Some("2026-11-02T01:05:00Z"),
    );
    audit.depth = 1;
    History {
        runs: vec![
            race,
            run(
                "s-login",
                "webapp",
                "Fix the flaky\nlogin test",
                Origin::Human,
                RunStatus::Cancelled,
                "2026-11-03T09:12:40Z",
                Some("2026-11-03T09:13:02Z"),
            ),
            ci,
            backup,
            audit,
            run(
                "s-rate",
                "webapp",
                "Add rate limiting to the API",
                Origin::Adopted,
                RunStatus::Interrupted,
                "2025-10-28T16:20:11Z",
                Some("2025-10-28T17:02:45Z"),
            ),
        ],
        last_seen: Some("2026-11-01T18:30:00Z".into()),
        new_unattended: 2,
    }
}

fn view(history: Option<History>) -> HistoryView {
    let mut view = HistoryView::new();
    // 10:00 UTC on 3 November 2026.
    view.set_clock(DateTime::parse_from_rfc3339("2026-11-03T10:00:00Z").ok());
    view.open();
    if let Some(history) = history {
        view.set(history);
    }
    view
}

fn history_screen(
    view: &HistoryView,
    theme: Theme,
    width: u16,
    height: u16,
) -> Result<TestBackend, Box<dyn std::error::Error>> {
    let mut terminal = Terminal::new(TestBackend::new(width, height))?;
    terminal.draw(|frame| render_history(view, &theme, frame, frame.area()))?;
    Ok(terminal.backend().clone())
}

fn help_screen(
    theme: Theme,
    context: Context,
    width: u16,
    height: u16,
    scroll: u16,
) -> Result<TestBackend, Box<dyn std::error::Error>> {
    let mut terminal = Terminal::new(TestBackend::new(width, height))?;
    terminal.draw(|frame| render_help(&theme, context, frame, frame.area(), scroll))?;
    Ok(terminal.backend().clone())
}

#[test]
fn history_80x24() -> TestResult {
    let mut v = view(Some(canned()));
    v.on_command(Command::Down, 10);
    insta::assert_snapshot!(history_screen(&v, Theme::default(), 80, 24)?);
    Ok(())
}

#[test]
fn history_40x24() -> TestResult {
    let v = view(Some(canned()));
    insta::assert_snapshot!(history_screen(&v, Theme::default(), 40, 24)?);
    Ok(())
}

#[test]
fn history_all_runs_80x24() -> TestResult {
    let mut v = view(Some(canned()));
    v.on_command(Command::UnattendedOnly, 10);
    insta::assert_snapshot!(history_screen(&v, Theme::default(), 80, 24)?);
    Ok(())
}

#[test]
fn history_all_runs_40x24() -> TestResult {
    let mut v = view(Some(canned()));
    v.on_command(Command::UnattendedOnly, 10);
    insta::assert_snapshot!(history_screen(&v, Theme::default(), 40, 24)?);
    Ok(())
}

#[test]
fn history_plain_80x24() -> TestResult {
    let mut v = view(Some(canned()));
    v.on_command(Command::UnattendedOnly, 10);
    insta::assert_snapshot!(history_screen(&v, Theme::plain(), 80, 24)?);
    Ok(())
}

#[test]
fn history_plain_40x24() -> TestResult {
    let mut v = view(Some(canned()));
    v.on_command(Command::UnattendedOnly, 10);
    insta::assert_snapshot!(history_screen(&v, Theme::plain(), 40, 24)?);
    Ok(())
}

#[test]
fn history_empty_80x24() -> TestResult {
    // Only your own runs: nothing ran without you.
    let mut history = canned();
    history.runs.retain(|r| r.origin == Origin::Human);
    history.new_unattended = 0;
    let v = view(Some(history));
    insta::assert_snapshot!(history_screen(&v, Theme::default(), 80, 24)?);
    Ok(())
}

#[test]
fn history_empty_all_runs_40x24() -> TestResult {
    let mut v = view(Some(History {
        runs: Vec::new(),
        last_seen: None,
        new_unattended: 0,
    }));
    v.on_command(Command::UnattendedOnly, 10);
    insta::assert_snapshot!(history_screen(&v, Theme::default(), 40, 24)?);
    Ok(())
}

#[test]
fn history_loading_40x24() -> TestResult {
    let v = view(None);
    insta::assert_snapshot!(history_screen(&v, Theme::default(), 40, 24)?);
    Ok(())
}

#[test]
fn history_scrolls_to_the_cursor() -> TestResult {
    // Forty runs on a short screen: the cursor's row is drawn.
    let mut history = canned();
    let template = history.runs[2].clone();
    history.runs = (0..40)
        .map(|i| {
            let mut r = template.clone();
            r.job_id = format!("j{i}");
            r.title = format!("Run number {i}");
            r
        })
        .collect();
    let mut v = view(Some(history));
    v.on_command(Command::Bottom, 10);
    let screen = history_screen(&v, Theme::default(), 80, 12)?;
    let text = format!("{screen}");
    assert!(text.contains("Run number 39"), "{text}");
    assert!(!text.contains("Run number 0 "), "{text}");
    Ok(())
}

#[test]
fn help_tree_80x24() -> TestResult {
    insta::assert_snapshot!(help_screen(Theme::default(), Context::Tree, 80, 24, 0)?);
    Ok(())
}

#[test]
fn help_tree_40x24() -> TestResult {
    insta::assert_snapshot!(help_screen(Theme::default(), Context::Tree, 40, 24, 0)?);
    Ok(())
}

#[test]
fn help_tree_plain_80x24() -> TestResult {
    insta::assert_snapshot!(help_screen(Theme::plain(), Context::Tree, 80, 24, 0)?);
    Ok(())
}

#[test]
fn help_tree_plain_40x24() -> TestResult {
    insta::assert_snapshot!(help_screen(Theme::plain(), Context::Tree, 40, 24, 0)?);
    Ok(())
}

#[test]
fn help_composer_scrolled_to_the_end_40x24() -> TestResult {
    let theme = Theme::default();
    let max = help_max_scroll(&theme, Context::Composer, Rect::new(0, 0, 40, 24));
    // Scrolling past the end stops at the last page.
    let at_end = help_screen(theme, Context::Composer, 40, 24, max)?;
    let past_end = help_screen(theme, Context::Composer, 40, 24, max.saturating_add(50))?;
    assert_eq!(format!("{at_end}"), format!("{past_end}"));
    insta::assert_snapshot!(at_end);
    Ok(())
}

#[test]
fn history_120x24() -> TestResult {
    // Wide: the status spelled out, the trigger after the title.
    let mut v = view(Some(canned()));
    v.on_command(Command::UnattendedOnly, 10);
    insta::assert_snapshot!(history_screen(&v, Theme::default(), 120, 24)?);
    Ok(())
}

#[test]
fn history_colors_follow_the_theme() -> TestResult {
    use ratatui::style::Color;
    let mut v = view(Some(canned()));
    v.on_command(Command::UnattendedOnly, 10);
    let fg_of = |screen: &TestBackend, symbol: &str| {
        screen
            .buffer()
            .content()
            .iter()
            .find(|c| c.symbol() == symbol)
            .map(|c| c.fg)
    };
    let colored = history_screen(&v, Theme::default(), 80, 24)?;
    assert_eq!(fg_of(&colored, "✗"), Some(Color::Red), "failed");
    assert_eq!(
        fg_of(&colored, "⑂"),
        Some(Color::Rgb(139, 92, 246)),
        "spawned"
    );
    assert_eq!(
        fg_of(&colored, "⏰"),
        Some(Color::Rgb(245, 158, 11)),
        "scheduled"
    );
    assert_eq!(
        fg_of(&colored, "⚡"),
        Some(Color::Rgb(56, 189, 248)),
        "hook"
    );
    assert_eq!(
        fg_of(&colored, "▣"),
        Some(Color::Rgb(16, 185, 129)),
        "imported"
    );
    // NO_COLOR: not one colored cell.
    let plain = history_screen(&v, Theme::plain(), 80, 24)?;
    assert!(
        plain
            .buffer()
            .content()
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset)
    );
    Ok(())
}

#[test]
fn help_has_no_color_without_color() -> TestResult {
    use ratatui::style::Color;
    let plain = help_screen(Theme::plain(), Context::Chat, 80, 24, 0)?;
    assert!(
        plain
            .buffer()
            .content()
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset && c.symbol().is_ascii())
    );
    Ok(())
}

#[test]
fn help_changes_80x24() -> TestResult {
    // From the Changes view: its keys first, then the global ones (D among them).
    insta::assert_snapshot!(help_screen(Theme::default(), Context::Changes, 80, 24, 0)?);
    Ok(())
}

/// Two calls waiting: the cursor's in full, with the rule its "always" would add.
fn inbox() -> paddock_tui::tui::inbox::InboxView {
    let call = |id: &str, tool: &str, input: serde_json::Value, preview: &str, rule: &str| {
        paddock_proto::Approval {
            id: id.into(),
            project_slug: "webapp".into(),
            session_id: "a3e9b1c4-6d2f-4f8a-b7c5-1e0d9f3a2b68".into(),
            job_id: "j".into(),
            title: "Investigate cookie refresh race".into(),
            origin: Origin::Spawned,
            depth: 1,
            tool: tool.into(),
            input,
            preview: Some(preview.into()),
            asked_at: "2026-11-03T09:14:02Z".into(),
            always_rule: Some(rule.into()),
        }
    };
    let mut v = paddock_tui::tui::inbox::InboxView::default();
    v.set(vec![
        call(
            "apr_3f9c1a2b",
            "Bash",
            serde_json::json!({"command": "mkdir -p tmp/cache"}),
            "$ mkdir -p tmp/cache",
            "Bash(mkdir:*)",
        ),
        call(
            "apr_81ab0c3d",
            "Edit",
            serde_json::json!({"file_path": "/home/ana/src/webapp/src/auth.ts"}),
            "/home/ana/src/webapp/src/auth.ts\n- retries = 1\n+ retries = 3",
            "Edit(src/**)",
        ),
    ]);
    v
}

fn inbox_screen(
    theme: Theme,
    width: u16,
    height: u16,
) -> Result<TestBackend, Box<dyn std::error::Error>> {
    let v = inbox();
    let mut terminal = Terminal::new(TestBackend::new(width, height))?;
    terminal
        .draw(|frame| paddock_tui::tui::inbox::render_inbox(&v, &theme, frame, frame.area()))?;
    Ok(terminal.backend().clone())
}

#[test]
fn inbox_shows_the_rule_always_adds_80x24() -> TestResult {
    insta::assert_snapshot!(inbox_screen(Theme::default(), 80, 24)?);
    Ok(())
}

#[test]
fn inbox_shows_the_rule_always_adds_plain_40x24() -> TestResult {
    insta::assert_snapshot!(inbox_screen(Theme::plain(), 40, 24)?);
    Ok(())
}
