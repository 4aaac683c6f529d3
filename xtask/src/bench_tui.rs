//! `cargo xtask bench`, part three: the TUI with 100,000 chats in the tree.
//!
//! Runs the real `App` and renderer in-process on ratatui's `TestBackend` (the same drawing
//! code a terminal gets, minus the terminal's own write): the time to load 100,000 chat rows
//! and draw the first frame, the time to draw a frame, the time from a key press to the next
//! frame, and the memory the rows take.

use std::time::Instant;

use anyhow::{Context, Result};
use paddock_proto::{ChatSummary, ChatUsage, HelloReply, Origin, ProjectInfo};
use paddock_tui::tui::app::App;
use paddock_tui::tui::render;
use paddock_tui::tui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::report::Report;

const CHATS: usize = 100_000;
const PROJECTS: usize = 10;

pub fn run(report: &mut Report) -> Result<()> {
    println!();
    println!("the TUI with {CHATS} chats in the tree (in-process, TestBackend 120x40)");
    let rss_before = rss_kib();
    let (projects, chats) = corpus();
    let started = Instant::now();
    let mut app = App::with_theme(Theme::default());
    app.set_connected(HelloReply {
        protocol_version: paddock_proto::PROTOCOL_VERSION,
        daemon_version: env!("CARGO_PKG_VERSION").into(),
        pid: std::process::id(),
        user: "bench".into(),
    });
    app.set_projects(projects);
    app.set_all_chats(chats);
    let loaded = started.elapsed();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).context("test terminal")?;
    draw(&mut terminal, &mut app)?;
    let first = started.elapsed();
    report.goal(
        format!("TUI: load {CHATS} rows + first frame"),
        first.as_secs_f64() * 1e3,
        "ms",
        100.0,
    );
    println!(
        "  load {CHATS} rows + first frame                 {:>8.1} ms  (load alone {:.1} ms)",
        first.as_secs_f64() * 1e3,
        loaded.as_secs_f64() * 1e3
    );

    let mut frames = Vec::with_capacity(200);
    for _ in 0..200 {
        app.tick += 1;
        let t = Instant::now();
        draw(&mut terminal, &mut app)?;
        frames.push(t.elapsed().as_secs_f64() * 1e6);
    }
    println!("  {}", stats("frame render", &mut frames));

    let mut keys = Vec::with_capacity(1000);
    for i in 0..1000 {
        let code = if i % 200 < 100 {
            KeyCode::Char('j')
        } else {
            KeyCode::Char('k')
        };
        let t = Instant::now();
        let _ = app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
        draw(&mut terminal, &mut app)?;
        keys.push(t.elapsed().as_secs_f64() * 1e6);
    }
    println!("  {}", stats("key press → frame (j/k)", &mut keys));
    report.goal(
        format!("TUI: key → frame p99 (j/k), {CHATS} chats"),
        p99(&keys),
        "ms",
        2.0,
    );

    // Folding a project with a thousand chats, and unfolding it again.
    let mut folds = Vec::with_capacity(100);
    for _ in 0..50 {
        for code in [KeyCode::Char('h'), KeyCode::Char('l')] {
            let t = Instant::now();
            let _ = app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
            draw(&mut terminal, &mut app)?;
            folds.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    println!("  {}", stats("key press → frame (h/l fold)", &mut folds));
    report.goal(
        format!("TUI: key → frame p99 (h/l fold), {CHATS} chats"),
        p99(&folds),
        "ms",
        2.0,
    );
    // The chat pane: paging through 50 lines and through 50,000 (the goal: the same time).
    for lines in [50, 50_000] {
        let mut view = long_chat(lines);
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).context("test terminal")?;
        let mut pages = Vec::with_capacity(400);
        for i in 0..400 {
            view.page(if i % 100 < 50 { 1 } else { -1 });
            let t = Instant::now();
            terminal
                .draw(|frame| {
                    let area = frame.area();
                    paddock_tui::tui::chat_view::render_chat(
                        &mut view,
                        &Theme::default(),
                        0,
                        frame,
                        area,
                        true,
                    );
                })
                .context("drawing")?;
            pages.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let name = format!("chat pane page → frame ({lines} lines)");
        println!("  {}", stats(&name, &mut pages));
    }
    if let (Some(before), Some(after)) = (rss_before, rss_kib()) {
        println!(
            "  RSS: {:.1} MB for the process, {:.1} MB more than before the rows were made",
            after as f64 / 1024.0,
            after.saturating_sub(before) as f64 / 1024.0
        );
        report.goal(
            format!("TUI: memory for {CHATS} rows"),
            after.saturating_sub(before) as f64 / 1024.0,
            "MB",
            60.0,
        );
    }
    Ok(())
}

/// A chat of about `lines` rows: turns of a question and a ten-line reply, the last a long
/// expanded paste, so both many items and one long item are paged through.
fn long_chat(lines: usize) -> paddock_tui::tui::chat::ChatView {
    use paddock_proto::{Transcript, TranscriptEntry};
    let turns = (lines / 24).max(1);
    let mut entries = Vec::with_capacity(turns * 2 + 1);
    for i in 0..turns {
        entries.push(TranscriptEntry::User {
            uuid: Some(format!("u{i}")),
            timestamp: None,
            text: format!("question {i}"),
            attribution: None,
        });
        entries.push(TranscriptEntry::Assistant {
            uuid: None,
            timestamp: None,
            text: (0..10).map(|l| format!("answer {i} line {l}\n")).collect(),
            model: None,
        });
    }
    entries.push(TranscriptEntry::User {
        uuid: Some("paste".into()),
        timestamp: None,
        text: (0..lines / 2)
            .map(|l| format!("pasted line {l}\n"))
            .collect(),
        attribution: None,
    });
    let mut view = paddock_tui::tui::chat::ChatView::new("bench", "s-bench");
    view.hydrate(&Transcript {
        chat: ChatSummary::default(),
        entries,
    });
    let last = view.items().len().saturating_sub(1);
    view.set_cursor(Some(last));
    view.toggle_expand();
    view.to_start();
    view
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &mut App) -> Result<()> {
    terminal
        .draw(|frame| {
            app.scroll_into_view(render::list_height(frame.area()));
            render::render(app, frame);
        })
        .context("drawing")?;
    Ok(())
}

/// The 99th percentile of samples in µs, as ms.
fn p99(samples: &[f64]) -> f64 {
    crate::bench::Stats(samples.to_vec()).percentile(0.99) / 1000.0
}

fn stats(name: &str, samples: &mut [f64]) -> String {
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    let mean = samples.iter().sum::<f64>() / n.max(1) as f64;
    let pct = |p: f64| samples[((n as f64 - 1.0) * p).round() as usize];
    format!(
        "{name:<40} mean {mean:>8.1} µs   p50 {:>8.1} µs   p99 {:>8.1} µs",
        pct(0.5),
        pct(0.99)
    )
}

fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Ten projects of a thousand chats: 200 roots each with four children, one of them with a
/// child of its own; every origin; some running, unread, starred.
fn corpus() -> (Vec<ProjectInfo>, Vec<ChatSummary>) {
    let projects: Vec<ProjectInfo> = (0..PROJECTS)
        .map(|p| ProjectInfo {
            slug: if p == 0 {
                String::new()
            } else {
                format!("project-{p}")
            },
            path: format!("/home/bench/src/project-{p}"),
            created_at: None,
            ..Default::default()
        })
        .collect();
    let mut chats = Vec::with_capacity(CHATS);
    let origins = [
        Origin::Human,
        Origin::Scheduled,
        Origin::Hook,
        Origin::Adopted,
    ];
    for (p, project) in projects.iter().enumerate() {
        for r in 0..200 {
            let root = format!("{p:04}-{r:04}-0000");
            let mut row = chat(&project.slug, &root, origins[r % 4], 0, None, r);
            row.children = (0..4).map(|c| format!("{p:04}-{r:04}-{c:04}c")).collect();
            chats.push(row);
            for c in 0..4 {
                let id = format!("{p:04}-{r:04}-{c:04}c");
                let mut child = chat(&project.slug, &id, Origin::Spawned, 1, Some(&root), r + c);
                if c == 0 {
                    let grandchild = format!("{p:04}-{r:04}-{c:04}g");
                    child.children = vec![grandchild.clone()];
                    chats.push(child);
                    chats.push(chat(
                        &project.slug,
                        &grandchild,
                        Origin::Spawned,
                        2,
                        Some(&id),
                        r,
                    ));
                } else {
                    chats.push(child);
                }
            }
        }
    }
    chats.truncate(CHATS);
    (projects, chats)
}

fn chat(
    project: &str,
    id: &str,
    origin: Origin,
    depth: u32,
    parent: Option<&str>,
    n: usize,
) -> ChatSummary {
    ChatSummary {
        session_id: id.into(),
        project_slug: project.into(),
        title: format!("Chat {id}: look into the failing job and report back ({n})"),
        origin,
        depth,
        parent_session_id: parent.map(Into::into),
        parent_project: parent.map(|_| project.into()),
        tree_parent: parent.map(Into::into),
        level: depth,
        message_count: 12,
        running: n.is_multiple_of(97),
        unread: n.is_multiple_of(5),
        starred: n.is_multiple_of(41),
        usage: Some(ChatUsage {
            context_tokens: 40_000 + (n as u64 % 100) * 1000,
            context_limit: 200_000,
            ..ChatUsage::default()
        }),
        ..ChatSummary::default()
    }
}
