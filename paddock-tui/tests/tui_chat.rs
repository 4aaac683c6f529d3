//! The chat pane and the composer as `insta` snapshots on ratatui's `TestBackend`, at 80x24 and
//! at 40 columns, and how the pane scrolls and follows a stream.

use fixtures::chat_screen::draw;
use paddock_proto::{Attribution, ChatEvent, Transcript, UserTurn};
use paddock_tui::tui::chat::{ChatView, Item};
use paddock_tui::tui::chat_view::render_chat;
use paddock_tui::tui::composer::{Composer, Target};
use paddock_tui::tui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

mod fixtures;
use fixtures::chat::*;

#[test]
fn transcript_80x24() -> TestResult {
    let mut view = transcript_view()?;
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 80, 24, None)?);
    Ok(())
}

#[test]
fn transcript_40x24() -> TestResult {
    let mut view = transcript_view()?;
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 40, 24, None)?);
    Ok(())
}

/// The end of the same transcript: the capped output, the edit, the compaction.
#[test]
fn transcript_end_80x24() -> TestResult {
    let mut view = transcript_view()?;
    view.to_end();
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 80, 24, None)?);
    Ok(())
}

#[test]
fn transcript_end_40x24() -> TestResult {
    let mut view = transcript_view()?;
    view.to_end();
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 40, 24, None)?);
    Ok(())
}

#[test]
fn attributions_80x24() -> TestResult {
    let mut view = hydrated(&injected());
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 80, 24, None)?);
    Ok(())
}

#[test]
fn attributions_40x24() -> TestResult {
    let mut view = hydrated(&injected());
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 40, 24, None)?);
    Ok(())
}

#[test]
fn streaming_80x24() -> TestResult {
    let mut view = streaming();
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 80, 24, None)?);
    Ok(())
}

#[test]
fn streaming_40x24() -> TestResult {
    let mut view = streaming();
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 40, 24, None)?);
    Ok(())
}

/// A 2,000-line paste, hydrated and live alike, folds to its first rows with how many more;
/// `o` on it shows it all, and again folds it.
#[test]
fn a_long_paste_folds_to_its_first_lines_and_o_shows_it_all() -> TestResult {
    let paste: String = (1..=2000).map(|i| format!("log line {i}\n")).collect();
    let mut hydrated = ChatView::new("webapp", SESSION);
    hydrated.hydrate(&Transcript {
        chat: summary(false),
        entries: vec![
            user("u1", &paste, None),
            assistant("Line 1999 is the error."),
        ],
    });
    let mut live = ChatView::new("webapp", SESSION);
    apply_all(
        &mut live,
        vec![ChatEvent::User(UserTurn {
            message_id: Some("u1".into()),
            text: paste.clone(),
            attribution: None,
        })],
    );
    for view in [&mut hydrated, &mut live] {
        let screen = draw(view, &Theme::default(), 80, 24, None)?.to_string();
        assert!(screen.contains("log line 8"), "{screen}");
        assert!(!screen.contains("log line 9 "), "{screen}");
        assert!(
            screen.contains("… 1992 more lines · o shows all"),
            "{screen}"
        );
    }
    insta::assert_snapshot!(draw(&mut hydrated, &Theme::default(), 80, 24, None)?);
    hydrated.set_cursor(Some(0));
    assert!(hydrated.toggle_expand());
    hydrated.to_start();
    let screen = draw(&mut hydrated, &Theme::default(), 80, 24, None)?.to_string();
    assert!(screen.contains("log line 20"), "{screen}");
    assert!(!screen.contains("more lines"), "{screen}");
    assert!(hydrated.toggle_expand());
    let screen = draw(&mut hydrated, &Theme::default(), 80, 24, None)?.to_string();
    assert!(screen.contains("1992 more lines"), "{screen}");
    Ok(())
}

/// A tool's long output shows its first and last lines expanded, all of it on the next `o`,
/// then folds again.
#[test]
fn a_long_tool_output_shows_all_of_it_on_the_second_o() -> TestResult {
    let output: String = (1..=500).map(|i| format!("test {i} ok\n")).collect();
    let mut view = ChatView::new("webapp", SESSION);
    view.hydrate(&Transcript {
        chat: summary(false),
        entries: vec![
            user("u1", "Run the tests.", None),
            tool_use("t1", "Bash", json!({"command": "npm test"})),
            tool_result("t1", &output, false),
        ],
    });
    let tool = view
        .items()
        .iter()
        .position(|i| matches!(i, Item::Tool(_)))
        .ok_or("no tool item")?;
    view.set_cursor(Some(tool));
    let shown = |view: &mut ChatView| -> Result<String, Box<dyn std::error::Error>> {
        view.to_start();
        Ok(draw(view, &Theme::default(), 80, 80, None)?.to_string())
    };
    assert!(view.toggle_expand());
    let capped = shown(&mut view)?;
    assert!(capped.contains("460 more lines · o shows all"), "{capped}");
    assert!(!capped.contains("test 20 ok"), "{capped}");
    assert!(view.toggle_expand());
    let all = shown(&mut view)?;
    assert!(
        all.contains("test 20 ok") && !all.contains("more lines"),
        "{all}"
    );
    assert!(view.toggle_expand());
    let folded = shown(&mut view)?;
    assert!(!folded.contains("test 1 ok"), "{folded}");
    Ok(())
}

#[test]
fn cut_short_80x24() -> TestResult {
    let mut view = cut_short();
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 80, 24, None)?);
    Ok(())
}

#[test]
fn cut_short_plain_40x24() -> TestResult {
    let mut view = cut_short();
    insta::assert_snapshot!(draw(&mut view, &Theme::plain(), 40, 24, None)?);
    Ok(())
}

#[test]
fn notices_80x24() -> TestResult {
    let mut view = notices();
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 80, 24, None)?);
    Ok(())
}

#[test]
fn notices_40x24() -> TestResult {
    let mut view = notices();
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 40, 24, None)?);
    Ok(())
}

#[test]
fn plain_80x24() -> TestResult {
    let mut view = transcript_view()?;
    insta::assert_snapshot!(draw(&mut view, &Theme::plain(), 80, 24, None)?);
    Ok(())
}

#[test]
fn plain_attributions_40x24() -> TestResult {
    let mut view = hydrated(&injected());
    insta::assert_snapshot!(draw(&mut view, &Theme::plain(), 40, 24, None)?);
    Ok(())
}

#[test]
fn plain_streaming_40x24() -> TestResult {
    let mut view = streaming();
    insta::assert_snapshot!(draw(&mut view, &Theme::plain(), 40, 24, None)?);
    Ok(())
}

#[test]
fn composer_draft_80x24() -> TestResult {
    let mut view = hydrated(&transcript());
    let mut composer = draft();
    insta::assert_snapshot!(draw(
        &mut view,
        &Theme::default(),
        80,
        24,
        Some(&mut composer)
    )?);
    Ok(())
}

#[test]
fn composer_draft_40x24() -> TestResult {
    let mut view = hydrated(&transcript());
    let mut composer = draft();
    insta::assert_snapshot!(draw(
        &mut view,
        &Theme::default(),
        40,
        24,
        Some(&mut composer)
    )?);
    Ok(())
}

#[test]
fn composer_queued_80x24() -> TestResult {
    let mut view = streaming();
    let mut composer = queued();
    insta::assert_snapshot!(draw(
        &mut view,
        &Theme::default(),
        80,
        24,
        Some(&mut composer)
    )?);
    Ok(())
}

#[test]
fn composer_queued_40x24() -> TestResult {
    let mut view = streaming();
    let mut composer = queued();
    insta::assert_snapshot!(draw(
        &mut view,
        &Theme::default(),
        40,
        24,
        Some(&mut composer)
    )?);
    Ok(())
}

#[test]
fn composer_new_chat_plain_40x24() -> TestResult {
    let mut view = ChatView::new("", "");
    let mut composer = Composer::new();
    composer.set_target(Target::NewChat {
        project_slug: String::new(),
    });
    insta::assert_snapshot!(draw(
        &mut view,
        &Theme::plain(),
        40,
        24,
        Some(&mut composer)
    )?);
    Ok(())
}

/// The screen's rows as strings.
fn rows(backend: &TestBackend) -> Vec<String> {
    let buf = backend.buffer();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_owned())
                .collect::<String>()
                .trim_end()
                .to_owned()
        })
        .collect()
}

#[test]
fn the_view_follows_the_stream_until_scrolled_up() -> TestResult {
    let mut view = ChatView::new("webapp", SESSION);
    let theme = Theme::default();
    for i in 1..=30u64 {
        view.apply(&frame(
            i,
            ChatEvent::User(UserTurn {
                message_id: Some(format!("u{i}")),
                text: format!("message {i}"),
                attribution: None,
            }),
        ));
    }
    view.apply(&frame(31, complete(true, None)));
    let screen = rows(&draw(&mut view, &theme, 40, 10, None)?);
    assert!(screen[9].contains("message 30"), "{screen:#?}");
    assert!(view.following());

    view.scroll_by(-4);
    assert!(!view.following());
    let screen = rows(&draw(&mut view, &theme, 40, 10, None)?);
    assert!(screen[9].contains("message 28"), "{screen:#?}");

    // New content does not move a view that was scrolled up.
    view.apply(&frame(
        32,
        ChatEvent::User(UserTurn {
            message_id: Some("u31".into()),
            text: "message 31".into(),
            attribution: None,
        }),
    ));
    let again = rows(&draw(&mut view, &theme, 40, 10, None)?);
    assert_eq!(again[1..], screen[1..], "rows stay put");

    // Scrolling back down to the end follows again.
    view.page(3);
    let screen = rows(&draw(&mut view, &theme, 40, 10, None)?);
    assert!(view.following());
    // A new turn runs: the working line is last.
    assert!(screen[7].contains("message 31"), "{screen:#?}");
    assert!(screen[9].contains("working"), "{screen:#?}");
    view.apply(&frame(33, text("streaming reply")));
    let screen = rows(&draw(&mut view, &theme, 40, 10, None)?);
    assert!(screen[9].contains("working"), "{screen:#?}");
    assert!(screen[7].contains("streaming reply"), "{screen:#?}");
    Ok(())
}

#[test]
fn moving_the_cursor_brings_its_item_into_view() -> TestResult {
    let mut view = hydrated(&transcript());
    let theme = Theme::default();
    draw(&mut view, &theme, 80, 12, None)?;
    view.to_start();
    draw(&mut view, &theme, 80, 12, None)?;
    // From no cursor, `next` starts at the top of the screen.
    view.select_next_item();
    assert_eq!(view.cursor(), Some(0));
    for _ in 0..20 {
        view.select_next_item();
    }
    let last = view.items().len() - 1;
    assert_eq!(view.cursor(), Some(last));
    let screen = rows(&draw(&mut view, &theme, 80, 12, None)?);
    assert!(
        screen.iter().any(|r| r.contains("passes 50 runs")),
        "{screen:#?}"
    );
    Ok(())
}

#[test]
fn a_resize_rewraps_and_keeps_the_place() -> TestResult {
    let mut view = hydrated(&transcript());
    let theme = Theme::default();
    draw(&mut view, &theme, 80, 24, None)?;
    view.to_start();
    let wide = rows(&draw(&mut view, &theme, 80, 24, None)?);
    let narrow = rows(&draw(&mut view, &theme, 40, 24, None)?);
    assert!(wide[1].starts_with("› The login test"), "{wide:#?}");
    assert!(narrow[1].starts_with("› The login test"), "{narrow:#?}");
    assert!(narrow.iter().all(|r| r.chars().count() <= 40));
    Ok(())
}

/// Thousands of items: a frame draws only the rows on screen, and a delta re-wraps only the
/// item it grew (checked by drawing; the bench measures the time).
#[test]
fn a_long_chat_draws() -> TestResult {
    let mut view = ChatView::new("webapp", SESSION);
    let mut seq = 0;
    for i in 0..3000u64 {
        seq += 1;
        view.apply(&frame(
            seq,
            ChatEvent::User(UserTurn {
                message_id: Some(format!("u{i}")),
                text: format!("question {i}"),
                attribution: None,
            }),
        ));
        seq += 1;
        view.apply(&frame(seq, text(&"word ".repeat(40))));
    }
    let theme = Theme::default();
    draw(&mut view, &theme, 80, 24, None)?;
    seq += 1;
    view.apply(&frame(seq, text("the last word")));
    let screen = rows(&draw(&mut view, &theme, 80, 24, None)?);
    assert!(
        screen.iter().any(|r| r.contains("the last word")),
        "{screen:#?}"
    );
    Ok(())
}

#[test]
fn the_cursor_item_is_highlighted_only_when_focused() -> TestResult {
    use ratatui::style::Modifier;
    let mut view = hydrated(&transcript());
    let read = tool_index(&view, "Read").ok_or("no Read item")?;
    view.set_cursor(Some(read));
    view.to_start();
    let theme = Theme::plain();
    let reversed = |backend: &TestBackend| -> Vec<u16> {
        let buf = backend.buffer();
        (0..buf.area.height)
            .filter(|&y| buf[(0, y)].modifier.contains(Modifier::REVERSED))
            .collect()
    };
    let focused = draw(&mut view, &theme, 80, 24, None)?;
    let rows_lit = reversed(&focused);
    assert_eq!(rows_lit.len(), 1, "one row: the item's head");
    let y = usize::from(rows_lit[0]);
    assert!(rows(&focused)[y].contains("Read"), "{:#?}", rows(&focused));

    let mut terminal = Terminal::new(TestBackend::new(80, 24))?;
    terminal.draw(|frame| render_chat(&mut view, &theme, 0, frame, frame.area(), false))?;
    assert!(reversed(terminal.backend()).is_empty());
    Ok(())
}

#[test]
fn every_size_draws_down_to_1x1() -> TestResult {
    let theme = Theme::default();
    for width in [1u16, 2, 3, 5, 8, 13, 21, 40, 80] {
        for height in [1u16, 2, 3, 4, 6, 10, 24] {
            let mut view = transcript_view()?;
            draw(&mut view, &theme, width, height, None)?;
            let mut view = streaming();
            let mut composer = queued();
            draw(&mut view, &theme, width, height, Some(&mut composer))?;
            let mut view = hydrated(&injected());
            let mut composer = draft();
            draw(
                &mut view,
                &Theme::plain(),
                width,
                height,
                Some(&mut composer),
            )?;
        }
    }
    Ok(())
}

#[test]
fn a_blank_or_multiline_sender_title_reads_on_one_line() -> TestResult {
    let mut t = injected();
    t.entries = vec![
        user(
            "u1",
            "first",
            Some(Attribution::Sent {
                from_session_id: "a3e9b1c4".into(),
                from_project: "webapp".into(),
                from_title: Some("  ".into()),
            }),
        ),
        user(
            "u2",
            "second",
            Some(Attribution::Sent {
                from_session_id: "a3e9b1c4".into(),
                from_project: "webapp".into(),
                from_title: Some("Fix\nthe build".into()),
            }),
        ),
    ];
    let mut view = hydrated(&t);
    let screen = rows(&draw(&mut view, &Theme::default(), 80, 10, None)?);
    assert_eq!(screen[1], "↩ sent by a3e9b1c4", "{screen:#?}");
    assert_eq!(screen[4], "↩ sent by Fix the build", "{screen:#?}");
    Ok(())
}

/// A chat that works in a git worktree of its own says on which branch, in its header (issue
/// 37), in both themes.
#[test]
fn the_header_names_a_worktree_chats_branch() -> TestResult {
    for (theme, mark) in [(Theme::default(), "⎇"), (Theme::plain(), "branch")] {
        let mut view = ChatView::new("webapp", SESSION);
        let mut row = summary(false);
        view.hydrate(&Transcript {
            chat: row.clone(),
            entries: vec![user("u1", "Try the retry approach.", None)],
        });
        let screen = draw(&mut view, &theme, 100, 6, None)?.to_string();
        assert!(!screen.contains("paddock/5f0c2d8e"), "{screen}");
        row.worktree = Some(paddock_proto::ChatWorktree {
            path: "/data/worktrees/webapp/5f0c2d8e".into(),
            branch: "paddock/5f0c2d8e".into(),
            ..Default::default()
        });
        view.take_row(&row);
        let screen = draw(&mut view, &theme, 100, 6, None)?.to_string();
        assert!(
            screen.contains(&format!("{mark} paddock/5f0c2d8e")),
            "{screen}"
        );
        // A long title (a first message that is a whole paragraph) is cut for the branch
        // (from the hand walk: at 140 columns the branch was gone).
        row.title = "Refactor the session store so that every write goes through one place and the cookie refresh race cannot happen again".into();
        view.hydrate(&Transcript {
            chat: row.clone(),
            entries: vec![user("u1", "Try the retry approach.", None)],
        });
        view.take_row(&row);
        let screen = draw(&mut view, &theme, 100, 6, None)?.to_string();
        let header = screen.lines().next().unwrap_or_default();
        assert!(
            header.contains(&format!("{mark} paddock/5f0c2d8e")) && header.contains("Refactor the"),
            "{screen}"
        );
    }
    Ok(())
}

/// A running chat whose tool call waits for a person says so in its header, not "running".
#[test]
fn the_header_says_a_chat_waits_for_your_answer() -> TestResult {
    let mut view = ChatView::new("webapp", SESSION);
    let mut row = summary(true);
    view.hydrate(&Transcript {
        chat: row.clone(),
        entries: vec![user("u1", "Clean the build.", None)],
    });
    let screen = draw(&mut view, &Theme::default(), 80, 6, None)?.to_string();
    assert!(screen.contains("running"), "{screen}");
    row.waiting_approval = true;
    view.take_row(&row);
    let screen = draw(&mut view, &Theme::default(), 80, 6, None)?.to_string();
    assert!(screen.contains("◉ waiting for your answer (I)"), "{screen}");
    assert!(!screen.contains(" running"), "{screen}");
    Ok(())
}

/// A running chat whose turn is queued for a free claude process says it waits for one, in
/// its header and where "working…" would be.
#[test]
fn the_pane_says_a_turn_waits_for_a_free_claude() -> TestResult {
    let mut view = ChatView::new("webapp", SESSION);
    let mut row = summary(true);
    row.waiting_process = true;
    view.hydrate(&Transcript {
        chat: row.clone(),
        entries: vec![user("u1", "Clean the build.", None)],
    });
    view.take_row(&row);
    let screen = draw(&mut view, &Theme::default(), 80, 8, None)?.to_string();
    assert!(screen.contains("⏸ waiting for a free claude"), "{screen}");
    assert!(!screen.contains("working"), "{screen}");
    assert!(!screen.contains(" running"), "{screen}");
    row.waiting_process = false;
    view.take_row(&row);
    let screen = draw(&mut view, &Theme::default(), 80, 8, None)?.to_string();
    assert!(
        screen.contains("running") && screen.contains("working"),
        "{screen}"
    );
    Ok(())
}

/// An answered call stops saying "waiting": `chat:answered` puts its answer where the
/// waiting notice was.
#[test]
fn an_answered_call_shows_its_answer_where_it_said_waiting() -> TestResult {
    let waiting = "Bash is waiting for your approval: `paddock approvals allow f10fb676` (or deny, always; `paddock approvals` lists them), or I in the TUI";
    let mut view = ChatView::new("webapp", SESSION);
    apply_all(
        &mut view,
        vec![
            ChatEvent::User(UserTurn {
                message_id: Some("u1".into()),
                text: "Clean up.".into(),
                attribution: None,
            }),
            ChatEvent::Notice(paddock_proto::Notice {
                kind: paddock_proto::NoticeKind::Info,
                message: waiting.into(),
            }),
            ChatEvent::Answered(paddock_proto::Answered {
                tool: "Bash".into(),
                decision: paddock_proto::ApprovalDecision::Deny,
                asked: waiting.into(),
                message: "Bash: denied (not on main)".into(),
            }),
        ],
    );
    let screen = format!("{:?}", draw(&mut view, &Theme::plain(), 100, 20, None)?);
    assert!(!screen.contains("is waiting for your approval"), "{screen}");
    assert_eq!(
        screen.matches("Bash: denied (not on main)").count(),
        1,
        "{screen}"
    );
    Ok(())
}
