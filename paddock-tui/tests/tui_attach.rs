//! Attachments in the TUI: files attached from the composer (Ctrl-T, the path prompt with Tab
//! completion, chips, Alt-t), the `chat:send` built from them (paths here, bytes under
//! `--remote`), a refused send keeping the draft and its files, no queued follow-up with files;
//! a message's `<paddock-attachments>` block and `send_file` snapshots read into chips in the
//! chat pane; the viewer (`a`): text shown, binary saved. Screens as `insta` snapshots at
//! 80x24 and 40x24, and plain.

mod chat_screen;
use chat_screen::draw;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use paddock_proto::{
    Attachment, ChatEvent, ChatSummary, HelloReply, HubFrame, Notice, NoticeKind, ProjectInfo,
    Routing, Transcript, TranscriptEntry, UserTurn,
};
use paddock_tui::attachments::Picked;
use paddock_tui::tui::app::{Action, App, Focus};
use paddock_tui::tui::attach::PathPrompt;
use paddock_tui::tui::attachment_view::{self, AttachmentView};
use paddock_tui::tui::chat::ChatView;
use paddock_tui::tui::composer::{Composer, Target};
use paddock_tui::tui::fetch::{Answer, Fetch};
use paddock_tui::tui::theme::Theme;
use paddock_tui::tui::tree::RowId;
use paddock_tui::tui::{chat_send, render};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const SESSION: &str = "5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90";
const SHOT: &str = "3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c.png";
const LOG: &str = "9d1e0c44-2b7a-4f3e-8a1d-6c5b4a392817.log";
const PLAN: &str = "0b1c5d2e-8f7a-4b6c-9d0e-1f2a3b4c5d6e.md";

/// A message with two files attached, as the daemon records it.
fn with_block(text: &str) -> String {
    format!(
        "<paddock-attachments>\nThe user attached these files. Use the Read tool to view images and PDFs; each line is: id\\tkind\\tfilename\\tabsolute-path.\n{SHOT}\timage\tbroken-layout.png\t/home/ana/.local/share/paddock/attachments/{SHOT}\n{LOG}\ttext\tbuild.log\t/home/ana/.local/share/paddock/attachments/{LOG}\n</paddock-attachments>\n\n{text}"
    )
}

fn summary(running: bool) -> ChatSummary {
    ChatSummary {
        session_id: SESSION.into(),
        project_slug: "webapp".into(),
        title: "The layout breaks on mobile".into(),
        running,
        ..ChatSummary::default()
    }
}

/// A chat whose first message carries files, whose agent showed a file with `send_file`
/// (the tool call from the transcript, and the live notice).
fn transcript() -> Transcript {
    Transcript {
        chat: summary(false),
        entries: vec![
            TranscriptEntry::User {
                uuid: Some("u1".into()),
                timestamp: None,
                text: with_block("The layout breaks like this on a phone; and here is the log."),
                attribution: None,
            },
            TranscriptEntry::Assistant {
                uuid: None,
                timestamp: None,
                text: "The hero image has a fixed width. I wrote up a plan.".into(),
                model: None,
            },
            TranscriptEntry::ToolUse {
                tool_use_id: "t1".into(),
                name: "mcp__paddock__send_file".into(),
                input: json!({"path": "docs/plan.md"}),
            },
            TranscriptEntry::ToolResult {
                tool_use_id: "t1".into(),
                output: format!(r#"{{"shown":"docs/plan.md","bytes":64,"snapshot":"{PLAN}"}}"#),
                is_error: false,
            },
        ],
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

fn chat_view() -> ChatView {
    let mut view = ChatView::new("webapp", SESSION);
    view.hydrate(&transcript());
    view.apply(&frame(
        1,
        ChatEvent::User(UserTurn {
            message_id: Some("u2".into()),
            text: "Show me the plan again.".into(),
            attribution: None,
        }),
    ));
    view.apply(&frame(
        2,
        ChatEvent::Notice(Notice {
            kind: NoticeKind::Info,
            message: format!(
                "file docs/plan.md (64 bytes, snapshot {PLAN}):\n# Plan\n- fluid hero image"
            ),
        }),
    ));
    view.set_running(false);
    view
}

fn picked(name: &str, size: u64) -> Picked {
    Picked {
        path: PathBuf::from(format!("/home/ana/Pictures/{name}")),
        name: name.into(),
        size,
    }
}

fn composer_with_files() -> Result<Composer, Box<dyn std::error::Error>> {
    let mut composer = Composer::new();
    composer.set_target(Target::Reply {
        session_id: SESSION.into(),
        title: "The layout breaks on mobile".into(),
    });
    composer.handle_paste("Same on the tablet; screenshots attached.");
    composer.attach(picked("tablet-portrait.png", 12 * 1024))?;
    composer.attach(picked("tablet-landscape.png", 3_565_158))?;
    composer.attach(picked("console.log", 512))?;
    Ok(composer)
}

// ---------------------------------------------------------------------------------------------
// The chat pane: the block and send_file snapshots as chips
// ---------------------------------------------------------------------------------------------

#[test]
fn chips_in_the_chat_80x24() -> TestResult {
    let mut view = chat_view();
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 80, 24, None)?);
    Ok(())
}

/// A preloaded first message: one dim line for the project's context, then its files.
#[test]
fn a_preloaded_message_shows_its_request_a_context_line_and_its_files_80x24() -> TestResult {
    let mut view = ChatView::new("webapp", SESSION);
    let mut t = transcript();
    if let Some(TranscriptEntry::User { text, .. }) = t.entries.first_mut() {
        *text = format!(
            "<project-context>\n# Overview\nA shop front.\n\n## 2026-11-28\n- the cart\n</project-context>\n\nMy request:\n{text}"
        );
    }
    view.hydrate(&t);
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 80, 24, None)?);
    Ok(())
}

/// A background task's report (claude writes it as a user row) is a notice, not a message.
#[test]
fn a_background_tasks_report_shows_as_a_notice() -> TestResult {
    let mut view = ChatView::new("webapp", SESSION);
    let mut t = transcript();
    t.entries.truncate(2);
    t.entries.push(TranscriptEntry::User {
        uuid: None,
        timestamp: None,
        text: "<task-notification>\n<task-id>a3f7</task-id>\n<status>completed</status>\n<summary>Agent \"Check the logs\" finished</summary>\n<result>The log is clean.</result>\n</task-notification>".into(),
        attribution: None,
    });
    view.hydrate(&t);
    let screen = format!("{:?}", draw(&mut view, &Theme::default(), 80, 24, None)?);
    assert!(
        screen.contains("⚙ background task: Agent \"Check the logs\" finished"),
        "{screen}"
    );
    assert!(screen.contains("The log is clean."), "{screen}");
    assert!(!screen.contains("task-notification"), "{screen}");
    Ok(())
}

#[test]
fn chips_in_the_chat_40x24() -> TestResult {
    let mut view = chat_view();
    insta::assert_snapshot!(draw(&mut view, &Theme::default(), 40, 24, None)?);
    Ok(())
}

#[test]
fn chips_in_the_chat_plain_40x24() -> TestResult {
    let mut view = chat_view();
    insta::assert_snapshot!(draw(&mut view, &Theme::plain(), 40, 24, None)?);
    Ok(())
}

#[test]
fn the_block_is_read_into_chips_and_the_raw_text_is_kept() {
    let view = chat_view();
    let items = view.items();
    let paddock_tui::tui::chat::Item::User(first) = &items[0] else {
        panic!("the first item is the message: {items:?}");
    };
    assert!(
        first.text.starts_with("<paddock-attachments>"),
        "raw text kept"
    );
    assert_eq!(
        first.request(),
        "The layout breaks like this on a phone; and here is the log."
    );
    let files: Vec<(String, String, String)> = items[0]
        .attachments()
        .into_iter()
        .map(|l| (l.id, l.kind, l.filename))
        .collect();
    assert_eq!(
        files,
        [
            (SHOT.into(), "image".into(), "broken-layout.png".into()),
            (LOG.into(), "text".into(), "build.log".into())
        ]
    );
    // The send_file call from the transcript and the live notice name the snapshot.
    let snapshots: Vec<String> = items
        .iter()
        .flat_map(|i| i.attachments())
        .map(|l| l.id)
        .filter(|id| id == PLAN)
        .collect();
    assert_eq!(snapshots.len(), 2, "{items:#?}");
    // A message without a block has none.
    assert!(items[1].attachments().is_empty());
}

// ---------------------------------------------------------------------------------------------
// The composer: chips
// ---------------------------------------------------------------------------------------------

#[test]
fn composer_chips_80x24() -> TestResult {
    let mut view = chat_view();
    let mut composer = composer_with_files()?;
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
fn composer_chips_40x24() -> TestResult {
    let mut view = chat_view();
    let mut composer = composer_with_files()?;
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
fn composer_chips_plain_40x24() -> TestResult {
    let mut view = chat_view();
    let mut composer = composer_with_files()?;
    insta::assert_snapshot!(draw(
        &mut view,
        &Theme::plain(),
        40,
        24,
        Some(&mut composer)
    )?);
    Ok(())
}

#[test]
fn many_chips_are_counted_and_every_size_draws() -> TestResult {
    let mut composer = composer_with_files()?;
    for i in 0..12 {
        composer.attach(picked(&format!("shot-{i}.png"), 1024 * i))?;
    }
    let mut view = chat_view();
    let screen = format!(
        "{}",
        draw(&mut view, &Theme::default(), 40, 24, Some(&mut composer))?
    );
    assert!(screen.contains("more"), "{screen}");
    for width in [1u16, 2, 3, 5, 8, 13, 21, 40, 80] {
        for height in [1u16, 2, 3, 4, 6, 10, 24] {
            let mut view = chat_view();
            draw(
                &mut view,
                &Theme::plain(),
                width,
                height,
                Some(&mut composer),
            )?;
            let mut view = chat_view();
            draw(&mut view, &Theme::default(), width, height, None)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The key flow: attach, send, refused, sent
// ---------------------------------------------------------------------------------------------

fn connected(theme: Theme) -> App {
    let mut app = App::with_theme(theme);
    app.set_connected(HelloReply {
        protocol_version: 1,
        daemon_version: "0.1.0".into(),
        pid: 4242,
        user: "me".into(),
    });
    app.set_projects(vec![ProjectInfo {
        slug: "webapp".into(),
        path: "/home/ana/src/webapp".into(),
        created_at: None,
        ..Default::default()
    }]);
    app.set_all_chats(vec![
        summary(false),
        ChatSummary {
            session_id: "s-other".into(),
            project_slug: "webapp".into(),
            title: "Another chat".into(),
            ..ChatSummary::default()
        },
    ]);
    app
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn alt(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT)
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
}

/// The composer of `session`, from the tree.
fn compose(app: &mut App, session: &str) -> TestResult {
    app.focus = Focus::Tree;
    if !app.tree.select(&RowId::Chat {
        project: "webapp".into(),
        session_id: session.into(),
    }) {
        return Err(format!("{session} is not listed").into());
    }
    app.on_key(key(KeyCode::Char('i')));
    if app.focus != Focus::Composer {
        return Err("the composer does not have the keyboard".into());
    }
    Ok(())
}

/// A folder with `notes.txt` (5 bytes), `notebook.md` and `shots/`.
fn files() -> Result<tempfile::TempDir, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("notes.txt"), "hello")?;
    std::fs::write(dir.path().join("notebook.md"), "# nb")?;
    std::fs::create_dir(dir.path().join("shots"))?;
    Ok(dir)
}

fn names(app: &App) -> Vec<String> {
    app.composer
        .attachments()
        .iter()
        .map(|a| a.name.clone())
        .collect()
}

#[test]
fn attach_complete_send_refused_then_sent() -> TestResult {
    let dir = files()?;
    let base = dir.path().display().to_string();
    let mut app = connected(Theme::default());
    compose(&mut app, SESSION)?;
    typed(&mut app, "What is in these?");

    // Ctrl-T: the prompt; Tab completes `no` to the common `note`, again lists both.
    app.on_key(ctrl('t'));
    assert!(app.attach_prompt.is_some());
    typed(&mut app, &format!("{base}/no"));
    app.on_key(key(KeyCode::Tab));
    let prompt = app.attach_prompt.as_ref().ok_or("no prompt")?;
    assert_eq!(prompt.line(), format!("{base}/note"));
    app.on_key(key(KeyCode::Tab));
    let prompt = app.attach_prompt.as_ref().ok_or("no prompt")?;
    assert_eq!(prompt.listed(), ["notebook.md", "notes.txt"]);
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    let prompt = app.attach_prompt.as_ref().ok_or("no prompt")?;
    assert_eq!(prompt.line(), format!("{base}/notes.txt"));
    app.on_key(key(KeyCode::Enter));
    assert!(app.attach_prompt.is_none(), "attached, the prompt closes");
    assert_eq!(names(&app), ["notes.txt"]);
    assert_eq!(
        app.composer.text(),
        "What is in these?",
        "the draft is untouched"
    );

    // A directory is refused at once, in the prompt, which stays open; so is a second copy.
    app.on_key(ctrl('t'));
    typed(&mut app, &format!("{base}/shots"));
    app.on_key(key(KeyCode::Enter));
    let error = app
        .attach_prompt
        .as_ref()
        .and_then(PathPrompt::error)
        .unwrap_or_default()
        .to_owned();
    assert!(error.contains("is a directory"), "{error}");
    app.on_key(ctrl('u'));
    typed(&mut app, &format!("{base}/notes.txt"));
    app.on_key(key(KeyCode::Enter));
    let error = app
        .attach_prompt
        .as_ref()
        .and_then(PathPrompt::error)
        .unwrap_or_default()
        .to_owned();
    assert!(error.contains("attached already"), "{error}");
    app.on_key(key(KeyCode::Esc));
    assert!(app.attach_prompt.is_none());
    assert_eq!(app.focus, Focus::Composer, "Esc leaves the prompt only");
    app.on_key(ctrl('t'));
    typed(&mut app, &format!("{base}/notebook.md"));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(names(&app), ["notes.txt", "notebook.md"]);
    // Alt-t drops the last one.
    app.on_key(alt('t'));
    assert_eq!(names(&app), ["notes.txt"]);

    // Enter: the message goes with its file, by its absolute path.
    let sent = app.on_key(key(KeyCode::Enter)).ok_or("nothing sent")?;
    let notes = std::fs::canonicalize(dir.path().join("notes.txt"))?;
    assert_eq!(
        sent,
        Action::Send {
            project_slug: "webapp".into(),
            session_id: Some(SESSION.into()),
            text: "What is in these?".into(),
            model: None,
            attachments: vec![notes.clone()],
            preload: false,
        }
    );
    assert!(app.composer.is_empty() && app.composer.attachments().is_empty());
    let local = chat_send(&sent, false).ok_or("not a send")??;
    assert_eq!(local.message, "What is in these?");
    assert_eq!(local.session_id.as_deref(), Some(SESSION));
    assert_eq!(local.attachments.len(), 1);
    assert_eq!(local.attachments[0].name, "notes.txt");
    assert_eq!(
        local.attachments[0].path.as_deref(),
        Some(notes.to_string_lossy().as_ref())
    );
    assert_eq!(local.attachments[0].data, None);
    // Under --remote the daemon cannot read this disk: the bytes go.
    let remote = chat_send(&sent, true).ok_or("not a send")??;
    assert_eq!(remote.attachments[0].path, None);
    let data = remote.attachments[0].data.as_deref().unwrap_or_default();
    assert_eq!(
        base64::engine::general_purpose::STANDARD.decode(data)?,
        b"hello"
    );

    // The daemon refuses (a limit): its sentence is said, the draft and its file come back.
    let refusal = "notes.txt is a text file, which this daemon does not take (attachments_types)";
    app.send_answered("webapp", Some(SESSION), Err(refusal.into()));
    let notice = app.notice.text().unwrap_or_default().to_owned();
    assert!(notice.contains(refusal), "{notice}");
    assert_eq!(app.composer.text(), "What is in these?");
    assert_eq!(names(&app), ["notes.txt"]);

    // Sent again and taken: nothing comes back.
    let again = app.on_key(key(KeyCode::Enter));
    assert!(matches!(&again, Some(Action::Send { attachments, .. }) if attachments.len() == 1));
    app.send_answered("webapp", Some(SESSION), Ok(()));
    assert!(app.composer.is_empty() && app.composer.attachments().is_empty());
    Ok(())
}

#[test]
fn a_running_chat_does_not_queue_files() -> TestResult {
    let dir = files()?;
    let mut app = connected(Theme::default());
    compose(&mut app, SESSION)?;
    app.composer.set_running(true);
    if let Some(chat) = app.chat.as_mut() {
        chat.set_running(true);
    }
    typed(&mut app, "and this one");
    app.on_key(ctrl('t'));
    typed(&mut app, &format!("{}/notes.txt", dir.path().display()));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(names(&app), ["notes.txt"]);
    let action = app.on_key(key(KeyCode::Enter));
    assert_eq!(action, None, "not queued");
    let notice = app.notice.text().unwrap_or_default().to_owned();
    assert!(
        notice.contains("queued follow-up cannot carry files"),
        "{notice}"
    );
    assert_eq!(app.composer.text(), "and this one");
    assert_eq!(app.composer.queued(), None);
    assert_eq!(names(&app), ["notes.txt"]);
    // Without the file, it queues.
    app.on_key(alt('t'));
    let action = app.on_key(key(KeyCode::Enter));
    assert!(
        matches!(action, Some(Action::SetQueue { .. })),
        "{action:?}"
    );
    Ok(())
}

#[test]
fn files_stay_with_their_chat_and_a_refusal_elsewhere_goes_to_its_draft() -> TestResult {
    let dir = files()?;
    let mut app = connected(Theme::default());
    compose(&mut app, SESSION)?;
    app.on_key(ctrl('t'));
    typed(&mut app, &format!("{}/notes.txt", dir.path().display()));
    app.on_key(key(KeyCode::Enter));
    compose(&mut app, "s-other")?;
    assert!(
        app.composer.attachments().is_empty(),
        "another chat's draft"
    );
    typed(&mut app, "over here");
    let sent = app.on_key(key(KeyCode::Enter));
    assert!(matches!(sent, Some(Action::Send { .. })));
    compose(&mut app, SESSION)?;
    assert_eq!(names(&app), ["notes.txt"], "back with its chat");
    // The other chat's send is refused while this composer is open: its draft keeps it.
    app.send_answered("webapp", Some("s-other"), Err("paddockd is busy".into()));
    assert_eq!(app.prefs.draft("s-other"), Some("over here"));
    assert_eq!(names(&app), ["notes.txt"]);
    Ok(())
}

fn screen(
    app: &mut App,
    width: u16,
    height: u16,
) -> Result<TestBackend, Box<dyn std::error::Error>> {
    let mut terminal = Terminal::new(TestBackend::new(width, height))?;
    terminal.draw(|frame| {
        app.scroll_into_view(render::list_height(frame.area()));
        render::render(app, frame);
    })?;
    Ok(terminal.backend().clone())
}

/// The composer's prompt with its matches listed, over a folder of known files.
fn prompting(theme: Theme, dir: &Path) -> Result<App, Box<dyn std::error::Error>> {
    let mut app = connected(theme);
    compose(&mut app, SESSION)?;
    typed(&mut app, "Which of these?");
    app.composer.attach(picked("console.log", 512))?;
    app.attach_prompt = Some(PathPrompt::new(
        "attach",
        "attach",
        "note",
        dir.to_path_buf(),
        None,
    ));
    app.on_key(key(KeyCode::Tab));
    Ok(app)
}

#[test]
fn attach_prompt_80x24() -> TestResult {
    let dir = files()?;
    let mut app = prompting(Theme::default(), dir.path())?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn attach_prompt_plain_40x24() -> TestResult {
    let dir = files()?;
    let mut app = prompting(Theme::plain(), dir.path())?;
    app.on_key(key(KeyCode::Tab));
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The viewer
// ---------------------------------------------------------------------------------------------

fn got(id: &str, bytes: &[u8]) -> Attachment {
    Attachment {
        id: id.into(),
        file_kind: paddock_tui::attachments::kind_of(id).into(),
        size: bytes.len() as u64,
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
    }
}

/// The chat open, the cursor on the first message (with its two files), `a` pressed.
fn viewing(theme: Theme) -> Result<App, Box<dyn std::error::Error>> {
    let mut app = connected(theme);
    compose(&mut app, SESSION)?;
    app.on_key(key(KeyCode::Esc));
    let chat = app.chat.as_mut().ok_or("no chat")?;
    chat.hydrate(&transcript());
    chat.set_cursor(Some(0));
    let action = app.on_key(key(KeyCode::Char('a')));
    assert_eq!(action, Some(Action::LoadAttachment(SHOT.into())));
    Ok(app)
}

fn log_text() -> String {
    (1..=40)
        .map(|i| format!("[{i:02}] building chunk {i} of 40: ok"))
        .chain([
            "error: cannot find module './hero' from 'src/pages/index.tsx'".to_owned(),
            "\tat resolve (node:internal/modules)".to_owned(),
        ])
        .collect::<Vec<_>>()
        .join("\n")
}

/// The message's second file, a log, read.
fn viewing_text(theme: Theme) -> Result<App, Box<dyn std::error::Error>> {
    let mut app = viewing(theme)?;
    let next = app.on_key(key(KeyCode::Char('n')));
    assert_eq!(next, Some(Action::LoadAttachment(LOG.into())));
    attachment_answered(&mut app, LOG, Ok(got(LOG, log_text().as_bytes())));
    app.on_key(key(KeyCode::Char('G')));
    Ok(app)
}

#[test]
fn viewer_text_80x24() -> TestResult {
    let mut app = viewing_text(Theme::default())?;
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn viewer_text_40x24() -> TestResult {
    let mut app = viewing_text(Theme::default())?;
    app.on_key(key(KeyCode::Char('g')));
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn viewer_binary_offers_to_save_plain_80x24() -> TestResult {
    let mut app = viewing(Theme::plain())?;
    attachment_answered(
        &mut app,
        SHOT,
        Ok(got(SHOT, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")),
    );
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    // `s` asks where, `./NAME` first.
    app.on_key(key(KeyCode::Char('s')));
    insta::assert_snapshot!("viewer_save_prompt_plain_80x24", screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn the_binary_is_saved_where_the_prompt_says() -> TestResult {
    let dir = tempfile::tempdir()?;
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    let mut app = viewing(Theme::default())?;
    // An answer for another file is not this one's.
    attachment_answered(&mut app, LOG, Ok(got(LOG, b"other")));
    assert!(app.view::<AttachmentView>().is_some_and(|v| v.loading()));
    attachment_answered(&mut app, SHOT, Ok(got(SHOT, png)));
    app.on_key(key(KeyCode::Char('s')));
    let default = app
        .view::<AttachmentView>()
        .and_then(|v| v.save.as_ref())
        .map(|p| p.line().to_owned());
    assert_eq!(default.as_deref(), Some("./broken-layout.png"));
    app.on_key(ctrl('u'));
    let target = dir.path().join("layout.png");
    typed(&mut app, &target.display().to_string());
    let action = app.on_key(key(KeyCode::Enter)).ok_or("nothing to save")?;
    let Action::SaveAttachment { path, bytes } = action else {
        return Err(format!("not a save: {action:?}").into());
    };
    assert_eq!(path, target);
    assert_eq!(&bytes[..], png);
    // The loop writes it and says so; a second save there is refused, never overwriting.
    app.attachment_saved(attachment_view::save(&path, &bytes));
    assert_eq!(std::fs::read(&target)?, png);
    assert!(
        app.view::<AttachmentView>()
            .is_some_and(|v| v.save.is_none())
    );
    app.on_key(key(KeyCode::Char('s')));
    app.on_key(ctrl('u'));
    typed(&mut app, &target.display().to_string());
    let Some(Action::SaveAttachment { path, bytes }) = app.on_key(key(KeyCode::Enter)) else {
        return Err("Enter saves".into());
    };
    app.attachment_saved(attachment_view::save(&path, &bytes));
    let error = app
        .view::<AttachmentView>()
        .and_then(|v| v.save.as_ref())
        .and_then(PathPrompt::error)
        .unwrap_or_default()
        .to_owned();
    assert!(error.contains("exists"), "{error}");
    // Esc closes the prompt, Esc again the viewer.
    app.on_key(key(KeyCode::Esc));
    assert!(app.view::<AttachmentView>().is_some());
    app.on_key(key(KeyCode::Esc));
    assert!(app.view::<AttachmentView>().is_none());
    Ok(())
}

#[test]
fn viewer_not_found_40x24() -> TestResult {
    let mut app = viewing(Theme::default())?;
    attachment_answered(
        &mut app,
        SHOT,
        Err(format!(
            "no attachment {SHOT}; its id is in the message's attachment block or the send_file notice"
        )),
    );
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn a_message_without_files_says_so() -> TestResult {
    let mut app = connected(Theme::default());
    compose(&mut app, SESSION)?;
    app.on_key(key(KeyCode::Esc));
    let chat = app.chat.as_mut().ok_or("no chat")?;
    chat.hydrate(&transcript());
    chat.set_cursor(Some(1));
    assert_eq!(app.on_key(key(KeyCode::Char('a'))), None);
    assert!(app.view::<AttachmentView>().is_none());
    let notice = app.notice.text().unwrap_or_default().to_owned();
    assert!(notice.contains("no file here"), "{notice}");
    // The send_file call names its snapshot.
    if let Some(chat) = app.chat.as_mut() {
        chat.set_cursor(Some(2));
    }
    assert_eq!(
        app.on_key(key(KeyCode::Char('a'))),
        Some(Action::LoadAttachment(PLAN.into()))
    );
    // No cursor (following the stream): the latest item with a file.
    app.close::<AttachmentView>();
    if let Some(chat) = app.chat.as_mut() {
        chat.set_cursor(None);
    }
    assert_eq!(
        app.on_key(key(KeyCode::Char('a'))),
        Some(Action::LoadAttachment(PLAN.into()))
    );
    Ok(())
}

/// The loop's answer to `attachment:get`, routed as the loop routes it.
fn attachment_answered(app: &mut App, id: &str, result: Result<Attachment, String>) {
    app.on_reply(
        &Fetch::Attachment(id.to_owned()),
        &Answer::Attachment(result),
    );
}
