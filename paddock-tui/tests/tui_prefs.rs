//! The client state (`tui/prefs.rs`) as the user meets it: a draft stays with its chat and
//! comes back when that chat's composer opens (also after a restart, through the file), the
//! model chosen with Ctrl-O is that chat's next sends', a sent message clears its draft; the
//! flat list (`t`) against the nested tree as `insta` snapshots; folds and the last view
//! coming back before the chats are listed; the theme key.

use paddock_proto::{ChatSummary, HelloReply, Origin, ProjectInfo};
use paddock_tui::tui::app::{Action, App, Focus};
use paddock_tui::tui::prefs::{self, Prefs};
use paddock_tui::tui::render;
use paddock_tui::tui::theme::{Theme, ThemeChoice};
use paddock_tui::tui::tree::RowId;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn project(slug: &str, path: &str) -> ProjectInfo {
    ProjectInfo {
        slug: slug.into(),
        path: path.into(),
        created_at: None,
        ..Default::default()
    }
}

fn chat(project: &str, id: &str, title: &str, origin: Origin, at: &str) -> ChatSummary {
    ChatSummary {
        session_id: id.into(),
        project_slug: project.into(),
        title: title.into(),
        origin,
        message_count: 4,
        updated_at: Some(at.into()),
        ..ChatSummary::default()
    }
}

fn under(mut c: ChatSummary, parent: &str, level: u32) -> ChatSummary {
    c.tree_parent = Some(parent.into());
    c.parent_session_id = Some(parent.into());
    c.level = level;
    c.depth = level;
    c
}

/// The daemon's tree order: roots by activity, children under their parent. Flat, the bisect
/// (the newest) comes first.
fn chats() -> Vec<ChatSummary> {
    vec![
        chat(
            "webapp",
            "s-manager",
            "Fix the flaky login test",
            Origin::Human,
            "2026-11-03T09:10:00Z",
        ),
        under(
            chat(
                "webapp",
                "s-logs",
                "Investigate CI logs",
                Origin::Spawned,
                "2026-11-03T08:00:00Z",
            ),
            "s-manager",
            1,
        ),
        under(
            chat(
                "webapp",
                "s-bisect",
                "Bisect the failing commit",
                Origin::Spawned,
                "2026-11-03T09:55:00Z",
            ),
            "s-logs",
            2,
        ),
        chat(
            "webapp",
            "s-landing",
            "Redesign the landing page",
            Origin::Human,
            "2026-11-02T17:00:00Z",
        ),
        chat(
            "webapp",
            "s-nightly",
            "Nightly dependency audit",
            Origin::Scheduled,
            "2026-11-03T02:00:00Z",
        ),
        chat(
            "infra",
            "s-plan",
            "Terraform plan for staging",
            Origin::Human,
            "2026-11-01T12:00:00Z",
        ),
    ]
}

fn connected(theme: Theme) -> App {
    let mut app = App::with_theme(theme);
    app.set_connected(HelloReply {
        protocol_version: 1,
        daemon_version: "0.1.0".into(),
        pid: 4242,
        user: "me".into(),
    });
    app
}

fn listed(app: &mut App) {
    app.set_projects(vec![
        project("webapp", "/home/me/src/webapp"),
        project("infra", "/home/me/src/infra"),
    ]);
    app.set_all_chats(chats());
}

fn canned(theme: Theme) -> App {
    let mut app = connected(theme);
    listed(&mut app);
    app
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
}

fn id(project: &str, session: &str) -> RowId {
    RowId::Chat {
        project: project.into(),
        session_id: session.into(),
    }
}

/// From the tree: the cursor on the chat, then `i` (its composer).
fn compose(app: &mut App, session: &str) -> TestResult {
    app.focus = Focus::Tree;
    if !app.tree.select(&id("webapp", session)) {
        return Err(format!("{session} is not on screen").into());
    }
    app.on_key(key(KeyCode::Char('i')));
    if app.focus != Focus::Composer {
        return Err("the composer does not have the keyboard".into());
    }
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

#[test]
fn a_draft_stays_with_its_chat_and_comes_back_with_its_composer() -> TestResult {
    let mut app = canned(Theme::default());
    compose(&mut app, "s-manager")?;
    typed(&mut app, "half a thought");
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.prefs.draft("s-manager"), Some("half a thought"));

    // Another chat's composer starts empty and keeps its own draft.
    compose(&mut app, "s-landing")?;
    assert_eq!(app.composer.text(), "");
    typed(&mut app, "bigger hero");
    app.on_key(key(KeyCode::Esc));

    compose(&mut app, "s-manager")?;
    assert_eq!(app.composer.text(), "half a thought");
    compose(&mut app, "s-landing")?;
    assert_eq!(app.composer.text(), "bigger hero");

    // Sent: the draft is gone (here and in the state).
    let sent = app.on_key(key(KeyCode::Enter));
    assert_eq!(
        sent,
        Some(Action::Send {
            project_slug: "webapp".into(),
            session_id: Some("s-landing".into()),
            text: "bigger hero".into(),
            model: None,
            attachments: Vec::new(),
            preload: false,
            worktree: None,
        })
    );
    assert_eq!(app.prefs.draft("s-landing"), None);
    compose(&mut app, "s-manager")?;
    compose(&mut app, "s-landing")?;
    assert_eq!(app.composer.text(), "");
    Ok(())
}

#[test]
fn a_new_chat_keeps_its_draft_per_project() -> TestResult {
    let mut app = canned(Theme::default());
    app.tree.select(&RowId::Project("infra".into()));
    app.on_key(key(KeyCode::Char('N')));
    typed(&mut app, "plan prod too");
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.prefs.draft("new:infra"), Some("plan prod too"));
    app.focus = Focus::Tree;
    app.tree.select(&RowId::Project("webapp".into()));
    app.on_key(key(KeyCode::Char('N')));
    assert_eq!(app.composer.text(), "", "another project's new chat");
    app.on_key(key(KeyCode::Esc));
    app.focus = Focus::Tree;
    app.tree.select(&RowId::Project("infra".into()));
    app.on_key(key(KeyCode::Char('N')));
    assert_eq!(app.composer.text(), "plan prod too");
    Ok(())
}

fn alt(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT)
}

#[test]
fn a_new_chat_preloads_the_projects_context_when_asked_and_the_project_remembers() -> TestResult {
    let mut app = canned(Theme::default());
    app.tree.select(&RowId::Project("webapp".into()));
    app.on_key(key(KeyCode::Char('N')));
    app.on_key(alt('p'));
    assert!(app.composer.preload);
    assert!(
        app.notice.text().is_some_and(|n| n.contains("OVERVIEW.md")),
        "{:?}",
        app.notice
    );
    insta::assert_snapshot!("preload_new_chat_80x24", screen(&mut app, 80, 24)?);
    typed(&mut app, "what next?");
    let sent = app.on_key(key(KeyCode::Enter)).ok_or("nothing sent")?;
    assert!(
        matches!(
            &sent,
            Action::Send {
                session_id: None,
                preload: true,
                ..
            }
        ),
        "{sent:?}"
    );
    let send = paddock_tui::tui::chat_send(&sent, false).ok_or("not a send")??;
    assert!(send.preload_context, "the daemon is asked to preload");
    assert_eq!(send.message, "what next?");

    // The project keeps the choice for its next new chat; another project does not share it.
    app.on_key(key(KeyCode::Esc));
    app.focus = Focus::Tree;
    app.tree.select(&RowId::Project("infra".into()));
    app.on_key(key(KeyCode::Char('N')));
    assert!(!app.composer.preload, "infra never asked");
    app.on_key(key(KeyCode::Esc));
    app.focus = Focus::Tree;
    app.tree.select(&RowId::Project("webapp".into()));
    app.on_key(key(KeyCode::Char('N')));
    assert!(app.composer.preload, "webapp remembers");
    assert!(app.prefs.preload("new:webapp"));
    app.on_key(alt('p'));
    assert!(!app.composer.preload);
    app.on_key(key(KeyCode::Esc));
    assert!(!app.prefs.preload("new:webapp"), "off is forgotten");

    // A reply cannot preload: it says so, and its send does not ask.
    compose(&mut app, "s-manager")?;
    app.on_key(alt('p'));
    assert!(
        app.notice.text().is_some_and(|n| n.contains("new chat")),
        "{:?}",
        app.notice
    );
    typed(&mut app, "go on");
    let sent = app.on_key(key(KeyCode::Enter)).ok_or("nothing sent")?;
    assert!(
        matches!(&sent, Action::Send { preload: false, .. }),
        "{sent:?}"
    );
    Ok(())
}

#[test]
fn the_model_chosen_for_a_chat_is_its_next_sends() -> TestResult {
    let mut app = canned(Theme::default());
    compose(&mut app, "s-manager")?;
    app.on_key(ctrl('o'));
    app.on_key(ctrl('o'));
    assert_eq!(app.composer.model.as_deref(), Some("opus"));
    assert_eq!(app.prefs.model("s-manager"), Some("opus"));
    // Another chat: the daemon's default.
    compose(&mut app, "s-landing")?;
    assert_eq!(app.composer.model, None);
    compose(&mut app, "s-manager")?;
    typed(&mut app, "go");
    let sent = app.on_key(key(KeyCode::Enter));
    assert!(
        matches!(&sent, Some(Action::Send { model: Some(m), .. }) if m == "opus"),
        "{sent:?}"
    );
    assert_eq!(
        app.prefs.model("s-manager"),
        Some("opus"),
        "kept after sending"
    );
    // A new chat's model goes with it once it has its session id.
    app.prefs.set_model("new:webapp", Some("haiku"), 1);
    app.new_chat_sent("webapp", "s-fresh");
    assert_eq!(app.prefs.model("s-fresh"), Some("haiku"));
    Ok(())
}

#[test]
fn drafts_models_folds_and_the_view_survive_a_restart() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("paddock/tui.json");
    let target = "local:/run/user/1000/paddock/paddockd.sock";

    let mut before = canned(Theme::default());
    compose(&mut before, "s-manager")?;
    typed(&mut before, "unsent, then the terminal closed");
    before.on_key(ctrl('o'));
    before.focus = Focus::Tree;
    before.tree.select(&id("webapp", "s-logs"));
    before.on_key(key_char('h'));
    before.on_key(key(KeyCode::Tab));
    assert_eq!(before.focus, Focus::Chat);
    before.sync_prefs();
    prefs::save(
        &path,
        target,
        &before.prefs.to_write(prefs::unix_now()),
        before.prefs.chosen_theme(),
    )?;

    // A new TUI: the state is read before the daemon answers.
    let loaded = prefs::load(&path);
    assert_eq!(loaded.notice, None);
    let mut after = connected(Theme::detect_with(loaded.file.theme));
    after.restore(Prefs::new(
        prefs::target_of(&loaded.file, target),
        loaded.file.theme,
    ));
    let open = after.chat.as_ref().map(|c| c.session_id().to_owned());
    assert_eq!(open.as_deref(), Some("s-manager"), "the open chat");
    assert_eq!(after.focus, Focus::Chat);
    listed(&mut after);
    assert!(after.tree.is_folded(&id("webapp", "s-logs")), "a fold");
    assert_eq!(
        after.tree.cursor_chat().map(|c| c.session_id.as_str()),
        Some("s-manager"),
        "the cursor on the open chat"
    );
    // Typed before the reopened chat is read: held, then replayed once it is.
    after.on_key(key_char('i'));
    assert_eq!(after.focus, Focus::Chat, "held while the chat is read");
    after.reopened();
    for key in after.typed_ahead() {
        after.on_key(key);
    }
    assert_eq!(after.focus, Focus::Composer);
    assert_eq!(after.composer.text(), "unsent, then the terminal closed");
    assert_eq!(after.composer.model.as_deref(), Some("sonnet"));
    Ok(())
}

fn key_char(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

#[test]
fn a_fold_waits_for_its_chat_and_is_dropped_when_the_full_list_lacks_it() {
    let mut app = connected(Theme::default());
    let target = prefs::TargetPrefs {
        folded_chats: vec!["s-logs".into(), "s-gone".into()],
        ..prefs::TargetPrefs::default()
    };
    app.restore(Prefs::new(target, None));
    app.sync_prefs();
    assert_eq!(
        app.prefs.target().folded_chats,
        ["s-gone", "s-logs"],
        "kept while nothing is listed"
    );
    listed(&mut app);
    app.sync_prefs();
    assert!(app.tree.is_folded(&id("webapp", "s-logs")));
    assert_eq!(app.prefs.target().folded_chats, ["s-logs"]);
}

#[test]
fn nested_80x24() -> TestResult {
    let mut app = canned(Theme::default());
    app.tree.select(&id("webapp", "s-logs"));
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn flat_80x24() -> TestResult {
    let mut app = canned(Theme::default());
    app.tree.select(&id("webapp", "s-logs"));
    app.on_key(key_char('t'));
    assert!(app.tree.flat());
    assert!(app.prefs.target().flat, "remembered");
    insta::assert_snapshot!(screen(&mut app, 80, 24)?);
    Ok(())
}

#[test]
fn flat_40x24() -> TestResult {
    let mut app = canned(Theme::default());
    app.on_key(key_char('t'));
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn flat_plain_40x24() -> TestResult {
    let mut app = canned(Theme::plain());
    app.on_key(key_char('t'));
    insta::assert_snapshot!(screen(&mut app, 40, 24)?);
    Ok(())
}

#[test]
fn flat_keeps_its_order_while_you_read_and_t_goes_back() -> TestResult {
    let mut app = canned(Theme::default());
    app.on_key(key_char('t'));
    let order = |app: &App| -> Vec<String> {
        app.tree
            .rows()
            .iter()
            .filter_map(|r| r.chat().map(|c| c.session_id.clone()))
            .collect()
    };
    let first = order(&app);
    assert_eq!(
        first,
        [
            "s-bisect",
            "s-manager",
            "s-logs",
            "s-nightly",
            "s-landing",
            "s-plan"
        ]
    );
    // The landing page gets a message: it stays in place until g.
    let mut news = chats();
    news[3].updated_at = Some("2026-11-03T10:00:00Z".into());
    app.set_project_chats("webapp".into(), news.into_iter().take(5).collect());
    assert_eq!(order(&app), first);
    app.on_key(key_char('g'));
    assert_eq!(order(&app)[0], "s-landing");
    app.on_key(key_char('t'));
    assert!(!app.tree.flat());
    assert!(!app.prefs.target().flat);
    Ok(())
}

#[test]
fn t_then_shift_t_switch_the_theme_and_remember_it() {
    let mut app = canned(Theme::default());
    app.on_key(key_char('T'));
    assert_eq!(app.theme, Theme::plain());
    assert_eq!(app.prefs.theme(), Some(ThemeChoice::Plain));
    assert_eq!(app.prefs.chosen_theme(), Some(Some(ThemeChoice::Plain)));
    app.on_key(key_char('T'));
    assert!(app.theme.color);
    assert_eq!(app.prefs.theme(), Some(ThemeChoice::Colour));
}

#[test]
fn an_open_archived_group_is_remembered_and_read_again_after_a_restart() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("paddock/tui.json");
    let target = "local:/run/user/1000/paddock/paddockd.sock";

    let mut before = canned(Theme::default());
    assert!(before.tree.select(&RowId::Archived("infra".into())));
    assert_eq!(
        before.on_key(key_char('l')),
        Some(Action::LoadArchived(vec!["infra".into()]))
    );
    assert_eq!(before.prefs.target().open_archives, ["infra"]);
    prefs::save(
        &path,
        target,
        &before.prefs.to_write(prefs::unix_now()),
        before.prefs.chosen_theme(),
    )?;

    // A new TUI: the group is open before anything is listed; the loop reads it once
    // connected (the groups the tree follows).
    let loaded = prefs::load(&path);
    let mut after = connected(Theme::default());
    after.restore(Prefs::new(
        prefs::target_of(&loaded.file, target),
        loaded.file.theme,
    ));
    assert!(after.tree.archive_is_open("infra"));
    assert_eq!(after.tree.followed_archives(), ["infra"]);
    listed(&mut after);
    assert!(!after.tree.is_folded(&RowId::Archived("infra".into())));
    // Folded again, it is forgotten.
    assert!(after.tree.select(&RowId::Archived("infra".into())));
    assert_eq!(after.on_key(key_char('h')), None);
    assert!(after.prefs.target().open_archives.is_empty());
    Ok(())
}
