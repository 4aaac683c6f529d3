//! Attachments in the TUI: files attached from the composer (Ctrl-T, the path prompt with Tab
//! completion, chips, Alt-t), the `chat:send` built from them (paths here, bytes under
//! `--remote`), a refused send keeping the draft and its files, no queued follow-up with files;
//! a message's `<paddock-attachments>` block and `send_file` snapshots read into chips in the
//! chat pane; the viewer (`a`): text shown, binary saved. Screens as `insta` snapshots at
//! 80x24 and 40x24, and plain.

use fixtures::chat_screen::draw;

use base64::Engine as _;
use paddock_proto::TranscriptEntry;
use paddock_tui::tui::app::{Action, Focus};
use paddock_tui::tui::attach::PathPrompt;
use paddock_tui::tui::attachment_view::{self, AttachmentView};
use paddock_tui::tui::chat::ChatView;
use paddock_tui::tui::chat_send;
use paddock_tui::tui::theme::Theme;
use ratatui::crossterm::event::KeyCode;

mod fixtures;
use fixtures::attach::*;

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
            worktree: None,
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
