//! The chat pane and the composer as `insta` snapshots on ratatui's `TestBackend`, at 80x24 and
//! at 40 columns, and how the pane scrolls and follows a stream.

mod chat_screen;
use chat_screen::draw;
use paddock_proto::{
    Attribution, ChatError, ChatEvent, ChatSummary, Complete, HubFrame, KilledTask,
    MessageBoundary, Notice, NoticeKind, QueuedFlushed, Routing, TextDelta, ToolCall, ToolStart,
    Transcript, TranscriptEntry, UserTurn,
};
use paddock_tui::tui::chat::{ChatView, Item};
use paddock_tui::tui::chat_view::render_chat;
use paddock_tui::tui::composer::{Composer, Target};
use paddock_tui::tui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

type TestResult = Result<(), Box<dyn std::error::Error>>;

const SESSION: &str = "5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90";

fn summary(running: bool) -> ChatSummary {
    ChatSummary {
        session_id: SESSION.into(),
        project_slug: "webapp".into(),
        title: "Fix the flaky login test".into(),
        running,
        ..ChatSummary::default()
    }
}

fn user(uuid: &str, text: &str, attribution: Option<Attribution>) -> TranscriptEntry {
    TranscriptEntry::User {
        uuid: Some(uuid.into()),
        timestamp: None,
        text: text.into(),
        attribution,
    }
}

fn assistant(text: &str) -> TranscriptEntry {
    TranscriptEntry::Assistant {
        uuid: None,
        timestamp: None,
        text: text.into(),
        model: Some("claude-sonnet-4-5".into()),
    }
}

fn tool_use(id: &str, name: &str, input: Value) -> TranscriptEntry {
    TranscriptEntry::ToolUse {
        tool_use_id: id.into(),
        name: name.into(),
        input,
    }
}

fn tool_result(id: &str, output: &str, is_error: bool) -> TranscriptEntry {
    TranscriptEntry::ToolResult {
        tool_use_id: id.into(),
        output: output.into(),
        is_error,
    }
}

/// A finished chat: a question, thinking, reads, a failing test run (expanded), an edit, a
/// compaction and the answer.
fn transcript() -> Transcript {
    let test_output = (1..=45)
        .map(|i| format!("  ✓ login attempt {i} ({}ms)", 300 + i))
        .chain(["  ✘ login attempt 46: cookie missing after refresh".to_owned()])
        .collect::<Vec<_>>()
        .join("\n");
    Transcript {
        chat: summary(false),
        entries: vec![
            user(
                "u1",
                "The login test fails about one run in five. Find out why and fix it.",
                None,
            ),
            TranscriptEntry::Thinking {
                text: "A one-in-five failure smells like a race.\nThe session cookie is refreshed on a timer.\nCheck the test's waits first.".into(),
            },
            assistant("Let me look at the test first."),
            tool_use(
                "t1",
                "Read",
                json!({"file_path": "/home/ana/src/webapp/tests/login.spec.ts"}),
            ),
            tool_result(
                "t1",
                "1\timport { test, expect } from '@playwright/test';\n2\t\n3\ttest('login', async ({ page }) => {",
                false,
            ),
            tool_use(
                "t2",
                "Bash",
                json!({"command": "npx playwright test tests/login.spec.ts --repeat-each=50", "description": "Run the login test 50 times"}),
            ),
            tool_result("t2", &format!("Exit code 1\n{test_output}"), true),
            tool_use(
                "t3",
                "Edit",
                json!({
                    "file_path": "/home/ana/src/webapp/src/session/refresh.ts",
                    "old_string": "setCookie(res, token);",
                    "new_string": "await lock.acquire();\nsetCookie(res, token);\nlock.release();",
                }),
            ),
            tool_result("t3", "The file has been updated.", false),
            TranscriptEntry::Compaction {
                pre_tokens: Some(171_408),
                post_tokens: Some(9_215),
            },
            assistant(
                "The refresh handler and the test both write the session cookie. I put the write behind a lock; the test now passes 50 runs in a row.",
            ),
        ],
    }
}

/// Injected turns of every attribution kind, each with a short reply.
fn injected() -> Transcript {
    let kinds = [
        (
            Attribution::Scheduled {
                name: "nightly-backup-check".into(),
            },
            "Summarise last night's backup log and flag anything unusual.",
        ),
        (
            Attribution::Sent {
                from_session_id: "a3e9b1c4-6d2f-4f8a-b7c5-1e0d9f3a2b68".into(),
                from_project: "webapp".into(),
                from_title: Some("Investigate cookie refresh race".into()),
            },
            "Report from the child chat: the race is in the cookie refresh.",
        ),
        (
            Attribution::Hook {
                name: "ci-failure".into(),
            },
            "CI failed on main: job `e2e` (run 4812). Look at the log.",
        ),
        (
            Attribution::Recovery,
            "The background task you were waiting on was terminated. Continue.",
        ),
    ];
    let mut entries = vec![user("u0", "Keep an eye on the nightly jobs.", None)];
    for (i, (attribution, text)) in kinds.into_iter().enumerate() {
        entries.push(user(&format!("u{}", i + 1), text, Some(attribution)));
        entries.push(assistant("Done."));
    }
    Transcript {
        chat: summary(false),
        entries,
    }
}

fn frame(seq: u64, event: ChatEvent) -> HubFrame {
    HubFrame {
        routing: Routing {
            project_slug: "webapp".into(),
            session_id: SESSION.into(),
            job_id: "0193f4c2-7a1e-7c3d-9b2a-5e8f1d0c4a67".into(),
            seq,
        },
        event,
    }
}

fn text(t: &str) -> ChatEvent {
    ChatEvent::Response(TextDelta { text: t.into() })
}

fn complete(success: bool, error: Option<&str>) -> ChatEvent {
    ChatEvent::Complete(Complete {
        success,
        error: error.map(str::to_owned),
        model: None,
        usage: None,
        cost_usd: None,
        duration_ms: None,
        terminal_reason: None,
    })
}

fn apply_all(view: &mut ChatView, events: Vec<ChatEvent>) {
    for (i, event) in events.into_iter().enumerate() {
        view.apply(&frame(i as u64 + 1, event));
    }
}

/// A turn mid-stream: thinking, a reply arriving in deltas, a tool call still running.
fn streaming() -> ChatView {
    let mut view = ChatView::new("webapp", SESSION);
    view.set_title("Fix the flaky login test");
    apply_all(
        &mut view,
        vec![
            ChatEvent::User(UserTurn {
                message_id: Some("u1".into()),
                text: "Run the whole suite and tell me what fails.".into(),
                attribution: None,
            }),
            ChatEvent::Thinking(TextDelta {
                text: "The suite takes a while;".into(),
            }),
            ChatEvent::Thinking(TextDelta {
                text: " run it once\nand read the summary.".into(),
            }),
            text("I'll run the suite "),
            text("and read the summary."),
            ChatEvent::ToolStart(ToolStart {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": "npm test -- --reporter=dot"}),
            }),
            ChatEvent::MessageBoundary(MessageBoundary { message_id: None }),
            ChatEvent::ToolCall(ToolCall {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": "npm test -- --reporter=dot"}),
                output: "....\n412 passing (38s)".into(),
                is_error: false,
                detail: Some(
                    json!({"stdout": "....\n412 passing (38s)", "stderr": "", "interrupted": false}),
                ),
            }),
            text("All 412 tests pass. Now the "),
            ChatEvent::ToolStart(ToolStart {
                tool_use_id: "t2".into(),
                name: "Grep".into(),
                input: json!({"pattern": "test\\.skip", "path": "tests"}),
            }),
        ],
    );
    view
}

/// Every kind of failure and notice inline.
fn notices() -> ChatView {
    let mut view = ChatView::new("webapp", SESSION);
    view.hydrate(&Transcript {
        chat: summary(false),
        entries: vec![
            user("u1", "Deploy the preview.", None),
            TranscriptEntry::Interrupted {
                text: "[Request interrupted by user]".into(),
            },
            TranscriptEntry::ApiError {
                status: Some(529),
                text: "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}".into(),
            },
        ],
    });
    apply_all(
        &mut view,
        vec![
            ChatEvent::User(UserTurn {
                message_id: Some("u2".into()),
                text: "Try again.".into(),
                attribution: None,
            }),
            ChatEvent::Notice(Notice {
                kind: NoticeKind::Retrying,
                message: "The API is overloaded; retrying in 4 s (attempt 2 of 10).".into(),
            }),
            ChatEvent::KilledTask(KilledTask {
                task_id: Some("bash_3".into()),
                message:
                    "Background task `npm run preview` was terminated while the chat waited on it."
                        .into(),
            }),
            ChatEvent::Error(ChatError {
                message: "claude exited with status 1".into(),
            }),
            ChatEvent::Notice(Notice {
                kind: NoticeKind::Crashed,
                message: "Claude Code stopped unexpectedly. Send the message again to resume."
                    .into(),
            }),
            complete(false, Some("claude exited with status 1")),
            ChatEvent::QueuedFlushed(QueuedFlushed {
                message: "Then open the preview URL.".into(),
            }),
            ChatEvent::User(UserTurn {
                message_id: Some("u3".into()),
                text: "Then open the preview URL.".into(),
                attribution: None,
            }),
            ChatEvent::Notice(Notice {
                kind: NoticeKind::Info,
                message: "Waiting for a free claude process (4 of 4 busy).".into(),
            }),
            ChatEvent::Notice(Notice {
                kind: NoticeKind::Interrupted,
                message: "Interrupted. The chat can be resumed with a new message.".into(),
            }),
            complete(false, None),
        ],
    );
    view
}

fn hydrated(t: &Transcript) -> ChatView {
    let mut view = ChatView::new("webapp", SESSION);
    view.hydrate(t);
    view
}

/// The index of the first tool item called `name`.
fn tool_index(view: &ChatView, name: &str) -> Option<usize> {
    view.items()
        .iter()
        .position(|i| matches!(i, Item::Tool(t) if t.name == name))
}

/// The transcript from its start, the failing test run expanded under the cursor.
fn transcript_view() -> Result<ChatView, Box<dyn std::error::Error>> {
    let mut view = hydrated(&transcript());
    let bash = tool_index(&view, "Bash").ok_or("no Bash item")?;
    view.set_cursor(Some(bash));
    view.toggle_expand();
    view.to_start();
    Ok(view)
}

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

/// A turn the daemon's death cut short: what streamed stays, then why it stopped and the key
/// that continues it.
fn cut_short() -> ChatView {
    let mut view = ChatView::new("webapp", SESSION);
    view.hydrate(&Transcript {
        chat: summary(false),
        entries: vec![user("u1", "Why does the login test flake?", None)],
    });
    apply_all(
        &mut view,
        vec![
            ChatEvent::User(UserTurn {
                message_id: Some("u2".into()),
                text: "Fix it.".into(),
                attribution: None,
            }),
            text("Looking at the retry loop in login.spec.ts, the wait"),
        ],
    );
    let mut row = summary(false);
    row.interrupted = true;
    row.interrupted_reason =
        Some("paddockd stopped while it ran (killed, crashed or restarted)".into());
    view.hydrate(&Transcript {
        chat: row,
        entries: vec![
            user("u1", "Why does the login test flake?", None),
            user("u2", "Fix it.", None),
        ],
    });
    view
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

fn draft() -> Composer {
    let mut composer = Composer::new();
    composer.set_target(Target::Reply {
        session_id: SESSION.into(),
        title: "Fix the flaky login test".into(),
    });
    composer.handle_paste(
        "Also check the logout flow:\r\nit uses the same cookie and may race the same way.",
    );
    composer
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

fn queued() -> Composer {
    let mut composer = draft();
    composer.set_running(true);
    composer.submit();
    composer.handle_paste("and the signup form");
    composer.model = Some("opus".into());
    composer
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
