//! Under the ASCII theme (`Theme::plain()`, what `PADDOCK_ASCII=1 NO_COLOR=1` gives) not one
//! cell of any view is anything but ASCII: every view of `src/tui/` (the tree and its states,
//! the header and the status line, the chat pane and the composer, the help of every context
//! page by page, History, the inbox, Changes and the provenance panel, Files, blame, the
//! browser, Home, Search, Triggers and its form, Usage, the attachment prompt and viewer, the
//! connection screens) drawn on a `TestBackend` from the screen tests' fixtures at a wide, a
//! usual and a narrow size, and every cell checked.
//!
//! The fixtures' words are ASCII, so whatever else a cell holds is the TUI's own drawing.

mod fixtures;

use fixtures::{
    attach, browser, changes, chat, chat_screen, files, home, search, tree, triggers, usage, views,
};
use paddock_tui::tui::app::App;
use paddock_tui::tui::changes::ChangesView;
use paddock_tui::tui::chat::ChatView;
use paddock_tui::tui::composer::{Composer, Target};
use paddock_tui::tui::help::help_max_scroll;
use paddock_tui::tui::keys::{Command, Context};
use paddock_tui::tui::theme::Theme;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;

type Error = Box<dyn std::error::Error>;

/// Wide, usual, narrow.
const SIZES: [(u16, u16); 3] = [(120, 35), (80, 24), (40, 24)];

const PLAIN: Theme = Theme {
    unicode: false,
    color: false,
};

/// The cells of `screen` that are not ASCII, named by `what`, where they are and what they
/// hold (with the row, to see whose drawing it is).
fn not_ascii(what: &str, screen: &TestBackend) -> Vec<String> {
    let buf = screen.buffer();
    let mut found = Vec::new();
    for y in 0..buf.area.height {
        let row: String = (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_owned())
            .collect();
        for x in 0..buf.area.width {
            let symbol = buf[(x, y)].symbol();
            if !symbol.is_ascii() {
                found.push(format!(
                    "{what} {}x{} at ({x}, {y}): {symbol:?} in {:?}",
                    buf.area.width,
                    buf.area.height,
                    row.trim_end()
                ));
            }
        }
    }
    found
}

/// A whole screen of the app at every size; `make` builds the app afresh for each.
fn app_screens(
    what: &str,
    make: impl Fn() -> Result<App, Error>,
    out: &mut Vec<String>,
) -> Result<(), Error> {
    for (w, h) in SIZES {
        let mut app = make()?;
        out.extend(not_ascii(what, &tree::screen(&mut app, w, h)?));
    }
    Ok(())
}

/// The chat pane (with `composer` under it, when given) at every size.
fn pane_screens(
    what: &str,
    view: impl Fn() -> Result<ChatView, Error>,
    composer: impl Fn() -> Result<Option<Composer>, Error>,
    out: &mut Vec<String>,
) -> Result<(), Error> {
    for (w, h) in SIZES {
        let mut v = view()?;
        let mut c = composer()?;
        out.extend(not_ascii(
            what,
            &chat_screen::draw(&mut v, &PLAIN, w, h, c.as_mut())?,
        ));
    }
    Ok(())
}

/// The chat fixture's transcript, its words made ASCII (its tool output ticks its lines off
/// with `✓` and `✘`: a program's words, not the TUI's).
fn transcript() -> Result<paddock_proto::Transcript, Error> {
    let json = serde_json::to_string(&chat::transcript())?;
    let ascii: String = json
        .chars()
        .map(|c| if c.is_ascii() { c } else { '?' })
        .collect();
    Ok(serde_json::from_str(&ascii)?)
}

/// The transcript with its Bash call expanded, from the start.
fn transcript_view() -> Result<ChatView, Error> {
    let mut view = chat::hydrated(&transcript()?);
    let bash = chat::tool_index(&view, "Bash").ok_or("no Bash item")?;
    view.set_cursor(Some(bash));
    view.toggle_expand();
    view.to_start();
    Ok(view)
}

fn no_composer() -> Result<Option<Composer>, Error> {
    Ok(None)
}

/// The tree's workspace (every origin, running, unread, starred, nested), with a chat parked,
/// one cut short, one with a status line, and one detached.
fn tree_app() -> Result<App, Error> {
    let mut app = tree::canned_with(PLAIN);
    let mut chats = app.tree.project_chats("").to_vec();
    for c in &mut chats {
        match c.session_id.as_str() {
            "s-tests" => c.parked = Some("2026-11-03T12:00:00Z".into()),
            "s-adopted" => c.interrupted = true,
            "s-nightly" => c.status = Some("All 212 dependencies are up to date".into()),
            _ => {}
        }
    }
    app.set_project_chats(String::new(), chats);
    tree::on_logs(&mut app)?;
    Ok(app)
}

fn tree_views(out: &mut Vec<String>) -> Result<(), Error> {
    app_screens("the tree", tree_app, out)?;
    app_screens(
        "the tree, folded",
        || {
            let mut app = tree_app()?;
            tree::press(&mut app, "h");
            app.tree
                .fold(&paddock_tui::tui::tree::RowId::Project("web".into()));
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "the tree, marked",
        || {
            let mut app = tree_app()?;
            tree::press(&mut app, " jjjv");
            tree::press(&mut app, "jjv");
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "the tree's filter being typed",
        || {
            let mut app = tree_app()?;
            tree::press(&mut app, "/TE");
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "the tree, no chat matching the filter",
        || {
            let mut app = tree_app()?;
            app.tree.set_filter(Some("nothing like it".into()));
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "the tree, flat",
        || {
            let mut app = tree_app()?;
            tree::press(&mut app, "t");
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "the tree, unattended only",
        || {
            let mut app = tree_app()?;
            tree::press(&mut app, "U");
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "the tree, an Archived group open",
        || tree::archive_open(PLAIN),
        out,
    )?;
    app_screens(
        "the tree, an Archived group loading",
        || {
            let mut app = tree_app()?;
            if app.tree.select(&tree::archive_of("")) {
                tree::press(&mut app, "l");
            }
            Ok(app)
        },
        out,
    )?;
    app_screens("the delete question", || tree::confirming(PLAIN), out)?;
    app_screens(
        "a fork asked",
        || {
            let mut app = tree_app()?;
            tree::press(&mut app, "f");
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "the header's counts and warnings",
        || {
            let mut app = tree_app()?;
            app.pending_approvals = 2;
            app.low_disk = vec![paddock_proto::DiskSpace {
                path: "/home/me/.local/share/paddock".into(),
                free_bytes: 3 << 20,
                floor_bytes: 256 << 20,
            }];
            Ok(app)
        },
        out,
    )?;
    Ok(())
}

fn connection_views(out: &mut Vec<String>) -> Result<(), Error> {
    app_screens("connecting", || Ok(App::with_theme(PLAIN)), out)?;
    app_screens(
        "loading",
        || {
            let mut app = App::with_theme(PLAIN);
            app.set_connected(paddock_proto::HelloReply {
                protocol_version: 1,
                daemon_version: "0.1.0".into(),
                pid: 4242,
                user: "me".into(),
            });
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "unreachable",
        || {
            let mut app = App::with_theme(PLAIN);
            app.set_unreachable("connection refused (os error 111)".into());
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "stopped on purpose",
        || {
            let mut app = tree_app()?;
            app.set_stopped("paddockd was stopped (paddock daemon stop)".into());
            Ok(app)
        },
        out,
    )?;
    Ok(())
}

fn chat_views(out: &mut Vec<String>) -> Result<(), Error> {
    pane_screens("a transcript", transcript_view, no_composer, out)?;
    pane_screens(
        "a transcript's end",
        || {
            let mut view = transcript_view()?;
            view.to_end();
            Ok(view)
        },
        no_composer,
        out,
    )?;
    pane_screens(
        "injected turns",
        || Ok(chat::hydrated(&chat::injected())),
        no_composer,
        out,
    )?;
    pane_screens(
        "a streaming turn",
        || Ok(chat::streaming()),
        no_composer,
        out,
    )?;
    pane_screens("notices", || Ok(chat::notices()), no_composer, out)?;
    pane_screens(
        "a turn cut short",
        || Ok(chat::cut_short()),
        no_composer,
        out,
    )?;
    pane_screens(
        "attachment chips",
        || Ok(attach::chat_view()),
        no_composer,
        out,
    )?;
    pane_screens(
        "the composer's draft",
        || Ok(chat::hydrated(&transcript()?)),
        || Ok(Some(chat::draft())),
        out,
    )?;
    pane_screens(
        "a queued follow-up",
        || Ok(chat::streaming()),
        || Ok(Some(chat::queued())),
        out,
    )?;
    pane_screens(
        "the composer's files",
        || Ok(chat::hydrated(&transcript()?)),
        || attach::composer_with_files().map(Some),
        out,
    )?;
    pane_screens(
        "a new chat's composer",
        || Ok(ChatView::new("", "")),
        || {
            let mut composer = Composer::new();
            composer.set_target(Target::NewChat {
                project_slug: "web".into(),
            });
            composer.preload = true;
            Ok(Some(composer))
        },
        out,
    )?;
    // The panes side by side, the chat's header over the pane.
    app_screens(
        "the tree and an open chat",
        || {
            let mut app = tree_app()?;
            app.on_key(tree::key(KeyCode::Enter));
            if let Some(view) = app.chat.as_mut() {
                view.hydrate(&transcript()?);
            }
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "the composer from the tree",
        || {
            let mut app = tree_app()?;
            tree::press(&mut app, "i");
            Ok(app)
        },
        out,
    )?;
    let dir = attach::files()?;
    app_screens(
        "the attach prompt",
        || attach::prompting(PLAIN, dir.path()),
        out,
    )?;
    app_screens("the attachment viewer", || attach::viewing_text(PLAIN), out)?;
    app_screens("an attachment loading", || attach::viewing(PLAIN), out)?;
    Ok(())
}

fn help_views(out: &mut Vec<String>) -> Result<(), Error> {
    for (w, h) in SIZES {
        for context in Context::ALL {
            let last = help_max_scroll(&PLAIN, context, Rect::new(0, 0, w, h));
            let page = h.saturating_sub(4).max(1);
            let mut scroll = 0;
            loop {
                let what = format!("the help of {context:?} at line {scroll}");
                out.extend(not_ascii(
                    &what,
                    &views::help_screen(PLAIN, context, w, h, scroll)?,
                ));
                if scroll >= last {
                    break;
                }
                scroll = scroll.saturating_add(page).min(last);
            }
        }
    }
    Ok(())
}

fn history_views(out: &mut Vec<String>) -> Result<(), Error> {
    for (w, h) in SIZES {
        let mut all = views::view(Some(views::canned()));
        out.extend(not_ascii(
            "History",
            &views::history_screen(&all, PLAIN, w, h)?,
        ));
        all.on_command(Command::UnattendedOnly, 10);
        out.extend(not_ascii(
            "History, every run",
            &views::history_screen(&all, PLAIN, w, h)?,
        ));
        out.extend(not_ascii(
            "History, loading",
            &views::history_screen(&views::view(None), PLAIN, w, h)?,
        ));
        out.extend(not_ascii("the inbox", &views::inbox_screen(PLAIN, w, h)?));
    }
    app_screens(
        "History over the tree",
        || {
            let mut app = tree_app()?;
            tree::press(&mut app, "H");
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "the inbox over the tree",
        || {
            let mut app = tree_app()?;
            tree::press(&mut app, "I");
            Ok(app)
        },
        out,
    )?;
    Ok(())
}

fn project_views(out: &mut Vec<String>) -> Result<(), Error> {
    app_screens("Changes", || Ok(changes::changes_app(PLAIN)), out)?;
    app_screens(
        "Changes, a commit message",
        || {
            let mut app = changes::changes_app(PLAIN);
            app.on_key(changes::ch('c'));
            for c in "Fix the cookie refresh race".chars() {
                app.on_key(changes::ch(c));
            }
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "Changes, not a repository",
        || {
            let mut app = changes::app(PLAIN);
            let mut view = ChangesView::new("webapp".into(), None, "webapp".into());
            view.set_status(changes::not_a_repo());
            app.show(view);
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "the provenance panel",
        || Ok(changes::with_provenance(PLAIN)),
        out,
    )?;
    app_screens("Files", || files::files_app(PLAIN), out)?;
    app_screens("blame", || files::blame_app(PLAIN), out)?;
    app_screens("the browser", || browser::browser_app(PLAIN), out)?;
    app_screens("Home", || home::home_app(PLAIN), out)?;
    app_screens("Usage", || usage::usage_app(PLAIN), out)?;
    app_screens("Triggers", || triggers::triggers_app(PLAIN), out)?;
    app_screens(
        "Triggers, a fire asked",
        || {
            let mut app = triggers::triggers_app(PLAIN)?;
            for c in ['j', 'j', 'f'] {
                app.on_key(triggers::ch(c));
            }
            Ok(app)
        },
        out,
    )?;
    app_screens(
        "Triggers, a hook's runs",
        || {
            let mut app = triggers::triggers_app(PLAIN)?;
            for c in ['j', 'j'] {
                app.on_key(triggers::ch(c));
            }
            app.on_key(triggers::key(KeyCode::Enter));
            triggers::runs_answered(
                &mut app,
                &triggers::id("webapp", "ci-failed"),
                Ok(paddock_proto::Reply::History(paddock_proto::History {
                    runs: triggers::ci_runs(),
                    last_seen: None,
                    new_unattended: 0,
                    waiting: 0,
                })),
            );
            Ok(app)
        },
        out,
    )?;
    app_screens("the trigger form", || triggers::form_app(PLAIN), out)?;
    app_screens("Search", || Ok(search::prompt_app(PLAIN)), out)?;
    app_screens("Search's results", || search::results_app(PLAIN), out)?;
    app_screens(
        "Search, indexing",
        || search::answered(PLAIN, Ok(search::indexing())),
        out,
    )?;
    app_screens(
        "Search, nothing found",
        || search::answered(PLAIN, Ok(search::empty())),
        out,
    )?;
    app_screens(
        "Search, refused",
        || search::answered(PLAIN, Err("paddockd: search is not available yet".into())),
        out,
    )?;
    Ok(())
}

#[test]
fn under_ascii_every_view_draws_only_ascii() -> Result<(), Error> {
    assert_eq!(PLAIN, Theme::plain());
    let mut found = Vec::new();
    tree_views(&mut found)?;
    connection_views(&mut found)?;
    chat_views(&mut found)?;
    help_views(&mut found)?;
    history_views(&mut found)?;
    project_views(&mut found)?;
    assert!(
        found.is_empty(),
        "{} cells are not ASCII:\n{}",
        found.len(),
        found.join("\n")
    );
    Ok(())
}
