//! The History view and the help overlay as `insta` snapshots on ratatui's `TestBackend`, at
//! 80x24 and 40x24, with Unicode glyphs and with the plain (ASCII, no color) theme.
//!
//! Times are shown against a pinned clock in UTC, so the screens do not depend on the
//! machine's zone or the day the tests run.

use paddock_proto::{History, Origin};
use paddock_tui::tui::help::help_max_scroll;
use paddock_tui::tui::keys::{Command, Context};
use paddock_tui::tui::theme::Theme;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

mod fixtures;
use fixtures::views::*;

#[test]
fn history_80x24() -> TestResult {
    let mut v = view(Some(canned()));
    v.on_command(Command::Down, 10);
    insta::assert_snapshot!(history_screen(&v, Theme::default(), 80, 24)?);
    Ok(())
}

/// At 60 columns a run another chat sent shows the icon alone, and its title keeps its room
/// (the whole "↩ sent by chat …" chip left titles 11 characters).
#[test]
fn history_at_60_columns_shows_the_sent_icon_alone() -> TestResult {
    let mut history = canned();
    let mut run = history.runs[0].clone();
    run.attribution = Some(paddock_proto::Attribution::Sent {
        from_session_id: "73c72aa0-1111-4222-8333-944445555666".into(),
        from_project: String::new(),
        from_title: None,
    });
    run.title = "Fix the flaky login test for good".into();
    history.runs.insert(0, run);
    let v = view(Some(history));
    let screen = format!("{:?}", history_screen(&v, Theme::default(), 60, 24)?);
    assert!(!screen.contains("sent by"), "{screen}");
    assert!(screen.contains("Fix the flaky login test"), "{screen}");
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
        waiting: 0,
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

#[test]
fn the_help_ends_with_a_legend_of_every_mark_in_its_theme() -> TestResult {
    use paddock_tui::tui::help::help_lines;
    use paddock_tui::tui::theme::Mark;
    for theme in [Theme::default(), Theme::plain()] {
        let text: Vec<String> = help_lines(&theme, Context::Tree, 68)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        let start = text
            .iter()
            .position(|l| l == "Marks")
            .ok_or("no Marks heading")?;
        let legend = &text[start + 1..];
        for mark in Mark::ALL {
            let glyph = theme.mark(mark);
            let first_words: String = mark.meaning().chars().take(12).collect();
            assert!(
                legend
                    .iter()
                    .any(|l| l.starts_with(&format!("{glyph} ")) && l.contains(&first_words)),
                "{mark:?} ({glyph}) is not in the legend:\n{}",
                legend.join("\n")
            );
        }
    }
    Ok(())
}
