//! The Files view (`F` on a chat): the files the chat read and wrote, turn by turn, the newest
//! turn first. Each turn is a heading (when it started, in local time, its short job id, and the
//! first words of its prompt when the chat pane has that chat loaded), then one line per file:
//! for a write, whether the file still is what the turn left (`✓` current, `✗` stale, `?`
//! unverified), the change, `~` when the change was inferred (a before/after scan or the command
//! line, not the tool naming the file), the path, the tool, and the subagent when one did it.
//!
//! `provenance:touched` answers it. Enter opens the file's provenance panel (over this view),
//! `b` its blame, `t` narrows the list to the cursor's turn and back, `r` reads it again (the
//! event loop also does when the chat's turn ends).

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, FixedOffset, Local};
use paddock_proto::{FileEdge, FileRole, FileStatus, Touched, TouchedFile, TouchedTurn};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::action::Action;
use super::blame_view::open_blame;
use super::chat::Item;
use super::chat_view::{clean, fit_start};
use super::fetch::{Answer, Fetch, taken};
use super::keys::{Command, Context, label_for, moved};
use super::overlay::{Cx, DrawCx, Layer, News, Overlay, Reaction};
use super::provenance_view::{
    PANEL_HINTS, ProvenanceView, fit, on_panel_command, panel_reply, render_provenance, wrap_lines,
};
use super::theme::{Glyph, Mark, Role, Theme};

/// The columns before a file's path: cursor, status mark, edge mark and change.
const PREFIX: usize = 15;
/// The change column (`modified` is the longest word).
const CHANGE: usize = 8;

/// What a command did to the view, for the dispatcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilesOutcome {
    /// Nothing to do outside the view; redraw.
    Handled,
    /// Read the chat's files again.
    Reload,
    /// The provenance panel opened for this file: read it.
    LoadProvenance(String),
    /// Open the blame of this file.
    Blame(String),
    /// The view closed.
    Closed,
    /// Not a Files command: let the global keys have it.
    Ignored,
}

/// One row of the list: a turn's heading or one of its files (indexes into the reply).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    Turn(usize),
    File(usize, usize),
}

/// A file row, recognised across reloads.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileKey {
    job_id: String,
    path: String,
    role: FileRole,
}

/// The Files view's state while it is open.
#[derive(Debug, Clone)]
pub struct FilesView {
    project_slug: String,
    session_id: String,
    /// The chat's title, for the heading.
    title: String,
    touched: Option<Touched>,
    error: Option<String>,
    /// Job id to the first words of the turn's prompt, when the chat pane could tell.
    prompts: HashMap<String, String>,
    /// Only this turn is listed (`t`).
    only_turn: Option<String>,
    /// The cursor, as an index among the listed files.
    cursor: usize,
    /// The first line drawn (kept by the render so the cursor stays in view).
    top: usize,
    /// Times are shown in this clock's zone and against its day; `None`: the local clock.
    clock: Option<DateTime<FixedOffset>>,
    /// The provenance panel of a file, over the view, when open.
    pub provenance: Option<ProvenanceView>,
}

impl FilesView {
    pub fn new(project_slug: String, session_id: String, title: String) -> Self {
        Self {
            project_slug,
            session_id,
            title,
            touched: None,
            error: None,
            prompts: HashMap::new(),
            only_turn: None,
            cursor: 0,
            top: 0,
            clock: None,
            provenance: None,
        }
    }

    pub fn project_slug(&self) -> &str {
        &self.project_slug
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Whether an answer about (`project_slug`, `session_id`) belongs here.
    pub fn is_for(&self, project_slug: &str, session_id: &str) -> bool {
        self.project_slug == project_slug && self.session_id == session_id
    }

    /// Show times against this clock (its zone and its day); `None`, the local one.
    pub fn set_clock(&mut self, now: Option<DateTime<FixedOffset>>) {
        self.clock = now;
    }

    pub fn touched(&self) -> Option<&Touched> {
        self.touched.as_ref()
    }

    /// The job id of the one turn listed, when `t` narrowed the list.
    pub fn only_turn(&self) -> Option<&str> {
        self.only_turn.as_deref()
    }

    /// The files arrived: keep the cursor on the same file when it is still listed.
    pub fn set(&mut self, touched: Touched) {
        let at = self.cursor_key();
        if let Some(job) = &self.only_turn
            && !touched.turns.iter().any(|t| t.job_id == *job)
        {
            self.only_turn = None;
        }
        self.touched = Some(touched);
        self.error = None;
        self.reposition(at);
    }

    /// Reading the files failed (the list read before, if any, stays).
    pub fn set_error(&mut self, reason: String) {
        self.error = Some(reason);
    }

    /// Matches the turns with their prompts among the chat pane's items (that chat's).
    pub fn set_prompts(&mut self, items: &[Item]) {
        if let Some(touched) = &self.touched {
            self.prompts = turn_prompts(&touched.turns, items);
        }
    }

    /// The first words of a turn's prompt, when known.
    pub fn prompt(&self, job_id: &str) -> Option<&str> {
        self.prompts.get(job_id).map(String::as_str)
    }

    /// The listed turns' indexes, newest first.
    fn turns_listed(&self) -> Vec<usize> {
        let Some(touched) = &self.touched else {
            return Vec::new();
        };
        (0..touched.turns.len())
            .rev()
            .filter(|&i| {
                self.only_turn
                    .as_ref()
                    .is_none_or(|job| touched.turns[i].job_id == *job)
            })
            .collect()
    }

    fn rows(&self) -> Vec<Row> {
        let Some(touched) = &self.touched else {
            return Vec::new();
        };
        let mut rows = Vec::new();
        for t in self.turns_listed() {
            rows.push(Row::Turn(t));
            let files = touched.turns.get(t).map_or(0, |turn| turn.files.len());
            rows.extend((0..files).map(|f| Row::File(t, f)));
        }
        rows
    }

    fn file_rows(&self) -> Vec<(usize, usize)> {
        self.rows()
            .into_iter()
            .filter_map(|r| match r {
                Row::File(t, f) => Some((t, f)),
                Row::Turn(_) => None,
            })
            .collect()
    }

    fn cursor_at(&self) -> Option<(usize, usize)> {
        self.file_rows().get(self.cursor).copied()
    }

    /// The turn and the file under the cursor.
    pub fn cursor_entry(&self) -> Option<(&TouchedTurn, &TouchedFile)> {
        let (t, f) = self.cursor_at()?;
        let turn = self.touched.as_ref()?.turns.get(t)?;
        Some((turn, turn.files.get(f)?))
    }

    pub fn cursor_file(&self) -> Option<&TouchedFile> {
        self.cursor_entry().map(|(_, f)| f)
    }

    /// The project whose file the cursor's row names: the chat's, or, for a turn it ran before
    /// it was moved, the project it ran in.
    fn cursor_project(&self) -> String {
        self.cursor_entry()
            .and_then(|(turn, _)| turn.project_slug.clone())
            .unwrap_or_else(|| self.project_slug.clone())
    }

    fn cursor_key(&self) -> Option<FileKey> {
        let (turn, file) = self.cursor_entry()?;
        Some(FileKey {
            job_id: turn.job_id.clone(),
            path: file.path.clone(),
            role: file.role,
        })
    }

    /// Puts the cursor on `key`'s file when it is listed, else keeps it in the list.
    fn reposition(&mut self, key: Option<FileKey>) {
        let rows = self.file_rows();
        let found = key.and_then(|key| {
            let touched = self.touched.as_ref()?;
            rows.iter().position(|&(t, f)| {
                touched.turns.get(t).is_some_and(|turn| {
                    turn.job_id == key.job_id
                        && turn
                            .files
                            .get(f)
                            .is_some_and(|file| file.path == key.path && file.role == key.role)
                })
            })
        });
        self.cursor = found
            .unwrap_or(self.cursor)
            .min(rows.len().saturating_sub(1));
    }

    pub fn move_by(&mut self, delta: isize) {
        self.cursor = moved(self.cursor, delta, self.file_rows().len());
    }

    /// Only the cursor's turn, or every turn again; the cursor stays on its file.
    pub fn toggle_turn(&mut self) {
        let at = self.cursor_key();
        self.only_turn = match (&self.only_turn, &at) {
            (Some(_), _) => None,
            (None, Some(key)) => Some(key.job_id.clone()),
            (None, None) => None,
        };
        self.top = 0;
        self.reposition(at);
    }

    /// Applies a Files-context command; `page` is how many rows a page moves.
    pub fn on_command(&mut self, command: Command, page: usize) -> FilesOutcome {
        if let Some(delta) = command.motion(page) {
            self.move_by(delta);
            return FilesOutcome::Handled;
        }
        match command {
            Command::ToggleTurn => self.toggle_turn(),
            Command::Refresh => return FilesOutcome::Reload,
            Command::Provenance => {
                let Some(path) = self.cursor_file().map(|f| f.path.clone()) else {
                    return FilesOutcome::Handled;
                };
                self.provenance = Some(ProvenanceView::new(self.cursor_project(), path.clone()));
                return FilesOutcome::LoadProvenance(path);
            }
            Command::Blame => {
                return match self.cursor_file() {
                    Some(file) => FilesOutcome::Blame(file.path.clone()),
                    None => FilesOutcome::Handled,
                };
            }
            Command::Back | Command::Files => return FilesOutcome::Closed,
            _ => return FilesOutcome::Ignored,
        }
        FilesOutcome::Handled
    }

    fn now(&self) -> DateTime<FixedOffset> {
        self.clock.unwrap_or_else(|| Local::now().fixed_offset())
    }
}

impl FilesView {
    /// The loop's request for the chat's files.
    fn touched_fetch(&self) -> Fetch {
        Fetch::Touched {
            project_slug: self.project_slug.clone(),
            session_id: self.session_id.clone(),
        }
    }
}

impl Overlay for FilesView {
    fn layer(&self) -> Layer {
        Layer::Files
    }

    fn context(&self) -> Context {
        if self.provenance.is_some() {
            Context::Provenance
        } else {
            Context::Files
        }
    }

    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction {
        if self.provenance.is_some() {
            return on_panel_command(&mut self.provenance, command, cx.page);
        }
        // A file's own project (a turn from before the chat moved names another).
        let file_project = self.cursor_project();
        match FilesView::on_command(self, command, cx.page) {
            FilesOutcome::Handled => Reaction::Handled,
            FilesOutcome::Reload => Reaction::Ask(Action::LoadTouched {
                project_slug: self.project_slug.clone(),
                session_id: self.session_id.clone(),
            }),
            FilesOutcome::LoadProvenance(path) => Reaction::Ask(Action::LoadProvenance {
                project_slug: file_project,
                path,
            }),
            FilesOutcome::Blame(path) => open_blame(file_project, path),
            FilesOutcome::Closed => Reaction::Close,
            FilesOutcome::Ignored => Reaction::Pass(command),
        }
    }

    fn render(&mut self, frame: &mut Frame<'_>, area: Rect, cx: &DrawCx<'_>) {
        render_files(self, cx.theme, frame, area);
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        if self.provenance.is_some() {
            return PANEL_HINTS.to_vec();
        }
        vec![
            ("j/k", "files"),
            ("enter", "provenance"),
            ("b", "blame"),
            ("t", "turn/all"),
            ("esc", "close"),
            ("?", "keys"),
        ]
    }

    fn on_reply(&mut self, fetch: &Fetch, answer: &Answer, _: &mut Cx<'_>) -> bool {
        let Fetch::Touched {
            project_slug,
            session_id,
        } = fetch
        else {
            return panel_reply(&mut self.provenance, fetch, answer);
        };
        if !self.is_for(project_slug, session_id) {
            return false;
        }
        match match answer {
            Answer::Touched(result) => taken(result, |touched| touched.clone()),
            _ => return false,
        } {
            Ok(touched) => self.set(touched),
            Err(reason) => self.set_error(reason),
        }
        true
    }

    fn on_news(&self, news: News<'_>, cx: &mut Cx<'_>) {
        // A turn of its chat ended: it may have touched more files.
        let again = match news {
            News::Reconnected => true,
            News::Active {
                session_id,
                running: false,
                ..
            }
            | News::TurnEnded { session_id } => session_id == self.session_id,
            // Its project's steps were recorded (the recorder catches up after a turn ends).
            News::FilesRecorded { project_slug } => project_slug == self.project_slug,
            _ => false,
        };
        if again {
            cx.fetch(self.touched_fetch());
        }
    }
}

/// Each turn's prompt among a chat's items: the user item the live stream tagged with the
/// turn's job, else the last one sent at or before the turn's first step (a prompt goes to one
/// turn only: a turn with none of its own, such as a recovery, gets none). The first words
/// only: the first line that has text.
pub fn turn_prompts(turns: &[TouchedTurn], items: &[Item]) -> HashMap<String, String> {
    let users: Vec<_> = items
        .iter()
        .filter_map(|item| match item {
            Item::User(u) => Some((
                u.job_id.as_deref(),
                u.timestamp
                    .as_deref()
                    .and_then(|t| DateTime::parse_from_rfc3339(t).ok()),
                u.request(),
            )),
            _ => None,
        })
        .collect();
    let mut used = HashSet::new();
    let mut out = HashMap::new();
    for turn in turns {
        let by_job = users
            .iter()
            .position(|(job, _, _)| *job == Some(turn.job_id.as_str()));
        let by_time = || {
            let start = DateTime::parse_from_rfc3339(&turn.started_at).ok()?;
            users
                .iter()
                .rposition(|(_, at, _)| at.is_some_and(|at| at <= start))
        };
        let Some(i) = by_job.or_else(by_time) else {
            continue;
        };
        if !used.insert(i) {
            continue;
        }
        if let Some(words) = users.get(i).and_then(|(_, _, text)| prompt_words(text)) {
            out.insert(turn.job_id.clone(), words);
        }
    }
    out
}

/// The first line of `text` that has something on it, on one line (tabs as spaces, anything
/// else a terminal would act on made visible).
fn prompt_words(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(crate::format::visible(&line.replace('\t', " ")).into_owned())
}

/// A write's status as a one-column mark, and its role.
pub fn status_mark(status: FileStatus, theme: &Theme) -> (&'static str, Role) {
    match status {
        FileStatus::Current => (theme.mark(Mark::Done), Role::Success),
        FileStatus::Stale => (theme.mark(Mark::Failed), Role::Error),
        FileStatus::Unverified => (theme.mark(Mark::Unverified), Role::Warning),
    }
}

/// The mark of an inferred change (`~`); blank for an observed one.
pub fn edge_mark(edge: FileEdge, theme: &Theme) -> &'static str {
    match edge {
        FileEdge::Observed => " ",
        FileEdge::Inferred => theme.mark(Mark::Inferred),
    }
}

/// A turn's short job id: its first eight characters.
pub fn short_id(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// `[subagent general-purpose]`.
pub fn specialist_label(name: &str) -> String {
    format!("[subagent {name}]")
}

/// A turn's heading: when it started, its short job id, the first words of its prompt.
fn turn_heading(
    turn: &TouchedTurn,
    prompt: Option<&str>,
    now: &DateTime<FixedOffset>,
    theme: &Theme,
    width: usize,
) -> Line<'static> {
    let dot = theme.glyph(Glyph::Dot);
    let time = crate::format::short_time(&turn.started_at, now);
    let mut spans = vec![
        Span::raw(" "),
        Span::styled(time, theme.style(Role::Accent)),
        Span::styled(
            format!(" {dot} {}", short_id(&turn.job_id)),
            theme.style(Role::Dim),
        ),
    ];
    // A turn from before the chat moved: its files are that project's.
    if let Some(slug) = &turn.project_slug {
        spans.push(Span::styled(
            format!(" {dot} in {}", crate::format::project_label(slug)),
            theme.style(Role::Warning),
        ));
    }
    let used: usize = spans.iter().map(Span::width).sum();
    let room = width.saturating_sub(used + 3);
    if let Some(prompt) = prompt.filter(|_| room >= 6) {
        spans.push(Span::styled(format!(" {dot} "), theme.style(Role::Dim)));
        spans.push(Span::styled(
            fit(prompt, room, theme),
            theme.style(Role::Normal),
        ));
    }
    Line::from(spans)
}

/// A file's line (two when its subagent does not fit beside it): the cursor, the status mark,
/// the edge mark, the change, the path (cut from the left to `path_col`), the tool.
fn file_lines(
    file: &TouchedFile,
    theme: &Theme,
    width: usize,
    path_col: usize,
    cursor: bool,
) -> Vec<Line<'static>> {
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    let (mark, mark_role) = file
        .status
        .filter(|_| file.role == FileRole::Write)
        .map_or((" ", Role::Normal), |s| status_mark(s, theme));
    let change = fit(&file.change, CHANGE, theme);
    let pad = CHANGE.saturating_sub(change.width());
    let path = fit_start(&clean(&file.path), path_col, ellipsis);
    let path_pad = path_col.saturating_sub(path.width());
    let mut spans = vec![
        Span::raw(format!(
            " {} ",
            if cursor {
                theme.mark(Mark::Cursor)
            } else {
                " "
            }
        )),
        Span::styled(mark, theme.style(mark_role)),
        Span::raw(" "),
        Span::styled(edge_mark(file.edge, theme), theme.style(Role::Warning)),
        Span::raw(format!("{change}{} ", " ".repeat(pad))),
        Span::raw(format!("{path}{}", " ".repeat(path_pad))),
        Span::raw("  "),
        Span::styled(file.tool.clone(), theme.style(Role::Tool)),
    ];
    let mut below = None;
    if let Some(specialist) = &file.specialist {
        let label = specialist_label(&specialist.name);
        let used: usize = spans.iter().map(Span::width).sum();
        if used + 1 + label.width() <= width {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(label, theme.style(Role::Spawned)));
        } else {
            // Under the path when it fits there, else as far right as it fits.
            let indent = PREFIX.min(width.saturating_sub(label.width())).max(3);
            let room = width.saturating_sub(indent);
            below = Some(Line::from(vec![
                Span::raw(" ".repeat(indent)),
                Span::styled(fit(&label, room, theme), theme.style(Role::Spawned)),
            ]));
        }
    }
    let selected = |line: Line<'static>| {
        if cursor {
            line.style(theme.style(Role::Selected))
        } else {
            line
        }
    };
    let mut lines = vec![selected(Line::from(spans))];
    lines.extend(below.map(selected));
    lines
}

/// The marks explained, as wide as fits.
fn legend(theme: &Theme, width: usize) -> Option<Line<'static>> {
    let dim = theme.style(Role::Dim);
    let entries = [
        (status_mark(FileStatus::Current, theme), "current"),
        (status_mark(FileStatus::Stale, theme), "stale"),
        (status_mark(FileStatus::Unverified, theme), "unverified"),
        (
            (edge_mark(FileEdge::Inferred, theme), Role::Warning),
            "inferred",
        ),
    ];
    for (count, gap) in [(4, "  "), (4, " "), (3, " ")] {
        let mut spans = Vec::new();
        for ((mark, role), word) in entries.iter().take(count) {
            spans.push(Span::raw(gap.to_owned()));
            spans.push(Span::styled(*mark, theme.style(*role)));
            spans.push(Span::styled(format!(" {word}"), dim));
        }
        let line = Line::from(spans);
        if line.width() <= width.saturating_sub(1) {
            return Some(line);
        }
    }
    None
}

/// The list's lines, and the lines the cursor's file takes (with its turn's heading when it
/// is the turn's first file).
fn list_lines(
    view: &FilesView,
    touched: &Touched,
    theme: &Theme,
    width: usize,
) -> (Vec<Line<'static>>, Option<(usize, usize)>) {
    let rows = view.rows();
    let files = || {
        rows.iter().filter_map(|r| match *r {
            Row::File(t, f) => touched.turns.get(t)?.files.get(f),
            Row::Turn(_) => None,
        })
    };
    let widest_path = files().map(|f| f.path.width()).max().unwrap_or(0);
    let widest_tool = files().map(|f| f.tool.width()).max().unwrap_or(0);
    let path_col = widest_path
        .min(width.saturating_sub(PREFIX + 2 + widest_tool))
        .max(8);
    let now = view.now();
    let mut lines = Vec::new();
    let mut cursor_range = None;
    let mut file_index = 0;
    let mut heading_at = 0;
    for row in rows {
        match row {
            Row::Turn(t) => {
                let Some(turn) = touched.turns.get(t) else {
                    continue;
                };
                heading_at = lines.len();
                lines.push(turn_heading(
                    turn,
                    view.prompt(&turn.job_id).or(turn.prompt.as_deref()),
                    &now,
                    theme,
                    width,
                ));
                if turn.files.is_empty() {
                    lines.push(Line::styled(
                        "     (no file recorded)",
                        theme.style(Role::Dim),
                    ));
                }
            }
            Row::File(t, f) => {
                let Some(file) = touched.turns.get(t).and_then(|turn| turn.files.get(f)) else {
                    continue;
                };
                let cursor = file_index == view.cursor;
                let start = lines.len();
                lines.extend(file_lines(file, theme, width, path_col, cursor));
                if cursor {
                    let from = if f == 0 { heading_at } else { start };
                    cursor_range = Some((from, lines.len()));
                }
                file_index += 1;
            }
        }
    }
    (lines, cursor_range)
}

/// Draws the view into `area` (the provenance panel instead, when it is open). Moves the view's
/// first line so the cursor's file shows.
pub fn render_files(view: &mut FilesView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    if let Some(panel) = &view.provenance {
        render_provenance(panel, theme, frame, area);
        return;
    }
    if area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let title = title_line(view, theme, width);
    let (title_row, body) = crate::tui::areas::title_and_body(area);
    frame.render_widget(title, title_row);
    let Some(touched) = view.touched.as_ref() else {
        let line = unread_line(view, theme);
        frame.render_widget(Paragraph::new(wrap_lines(vec![line], width)), body);
        return;
    };
    let foot = foot_lines(view, touched, theme, width);
    let (list, bottom) = crate::tui::areas::above_foot(body, foot.len());
    frame.render_widget(Paragraph::new(foot), bottom);
    if touched.turns.is_empty() {
        let line = Line::styled(
            "  No recorded step of this chat read or wrote a file.",
            theme.style(Role::Dim),
        );
        frame.render_widget(Paragraph::new(wrap_lines(vec![line], width)), list);
        return;
    }
    let (lines, cursor) = list_lines(view, touched, theme, width);
    let height = usize::from(list.height);
    view.top = scroll_to(view.top, cursor, lines.len(), height);
    let shown: Vec<Line<'static>> = lines.into_iter().skip(view.top).take(height).collect();
    frame.render_widget(Paragraph::new(shown), list);
}

/// ` Files "title"`, and that it shows one turn (with the key for all) where that fits.
fn title_line(view: &FilesView, theme: &Theme, width: usize) -> Line<'static> {
    let mut title = vec![
        Span::styled(" Files ", theme.style(Role::Accent)),
        Span::raw(fit(
            &format!("\"{}\"", crate::format::clean_title(&view.title)),
            width.saturating_sub(7),
            theme,
        )),
    ];
    if view.only_turn.is_some() {
        let key = label_for(Context::Files, Command::ToggleTurn).unwrap_or("t");
        let long = format!(" {} one turn ({key}: all)", theme.glyph(Glyph::Dot));
        let used: usize = title.iter().map(Span::width).sum();
        if used + long.width() <= width {
            title.push(Span::styled(long, theme.style(Role::Warning)));
        }
    }
    Line::from(title)
}

/// The line while the files are not read: why they cannot be, or that they are loading.
fn unread_line(view: &FilesView, theme: &Theme) -> Line<'static> {
    match &view.error {
        Some(reason) => Line::styled(
            format!(" Cannot read the chat's files: {reason}"),
            theme.style(Role::Error),
        ),
        None => Line::styled(
            format!(" Loading{}", theme.glyph(Glyph::Ellipsis)),
            theme.style(Role::Dim),
        ),
    }
}

/// The foot, wrapped: the legend, the notes, a failed reload.
fn foot_lines(
    view: &FilesView,
    touched: &Touched,
    theme: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let mut foot = Vec::new();
    if !touched.turns.is_empty() {
        foot.extend(legend(theme, width));
    }
    let bang = theme.mark(Mark::WARNING);
    foot.extend(
        touched
            .notes
            .iter()
            .map(|n| Line::styled(format!(" {bang} {n}"), theme.style(Role::Warning))),
    );
    if let Some(reason) = &view.error {
        foot.push(Line::styled(
            format!(" Cannot read the files again: {reason}"),
            theme.style(Role::Error),
        ));
    }
    wrap_lines(foot, width)
}

/// The first line to draw so that `cursor` (a range of lines) shows, moving `top` as little as
/// possible and never past the last page.
pub(crate) fn scroll_to(
    top: usize,
    cursor: Option<(usize, usize)>,
    total: usize,
    height: usize,
) -> usize {
    let mut top = top;
    if let Some((start, end)) = cursor {
        if end > top + height {
            top = end.saturating_sub(height);
        }
        if start < top {
            top = start;
        }
    }
    top.min(total.saturating_sub(height))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::chat::UserItem;
    use paddock_proto::Specialist;

    fn file(path: &str, role: FileRole, status: Option<FileStatus>) -> TouchedFile {
        TouchedFile {
            path: path.into(),
            role,
            edge: FileEdge::Observed,
            change: if role == FileRole::Read {
                "read".into()
            } else {
                "wrote".into()
            },
            tool: if role == FileRole::Read {
                "Read".into()
            } else {
                "Edit".into()
            },
            status,
            specialist: None,
        }
    }

    fn turn(job: &str, at: &str, files: Vec<TouchedFile>) -> TouchedTurn {
        TouchedTurn {
            project_slug: None,
            prompt: None,
            job_id: job.into(),
            started_at: at.into(),
            files,
        }
    }

    fn touched(turns: Vec<TouchedTurn>) -> Touched {
        Touched {
            project_slug: "web".into(),
            session_id: "s1".into(),
            turns,
            notes: Vec::new(),
        }
    }

    fn two_turns() -> Touched {
        touched(vec![
            turn(
                "job-old-1",
                "2026-11-03T08:00:00Z",
                vec![
                    file("a.rs", FileRole::Write, Some(FileStatus::Stale)),
                    file("b.rs", FileRole::Read, None),
                ],
            ),
            turn(
                "job-new-2",
                "2026-11-03T09:00:00Z",
                vec![
                    file("a.rs", FileRole::Write, Some(FileStatus::Current)),
                    file("c.rs", FileRole::Write, Some(FileStatus::Unverified)),
                ],
            ),
        ])
    }

    fn user(text: &str, at: Option<&str>, job: Option<&str>) -> Item {
        Item::User(UserItem {
            uuid: None,
            text: text.into(),
            attribution: None,
            hydrated: job.is_none(),
            timestamp: at.map(Into::into),
            job_id: job.map(Into::into),
            expanded: false,
        })
    }

    fn cursor(v: &FilesView) -> Option<(String, String)> {
        v.cursor_entry()
            .map(|(t, f)| (t.job_id.clone(), f.path.clone()))
    }

    #[test]
    fn the_newest_turn_comes_first_and_the_cursor_walks_the_files() {
        let mut v = FilesView::new("web".into(), "s1".into(), "Fix".into());
        assert_eq!(v.on_command(Command::Down, 10), FilesOutcome::Handled);
        assert!(v.cursor_file().is_none());
        v.set(two_turns());
        assert_eq!(cursor(&v), Some(("job-new-2".into(), "a.rs".into())));
        v.on_command(Command::Down, 10);
        v.on_command(Command::Down, 10);
        assert_eq!(cursor(&v), Some(("job-old-1".into(), "a.rs".into())));
        v.on_command(Command::Bottom, 10);
        assert_eq!(cursor(&v), Some(("job-old-1".into(), "b.rs".into())));
        v.on_command(Command::Top, 10);
        assert_eq!(cursor(&v), Some(("job-new-2".into(), "a.rs".into())));
        v.on_command(Command::PageDown, 10);
        assert_eq!(cursor(&v), Some(("job-old-1".into(), "b.rs".into())));
    }

    #[test]
    fn a_reload_keeps_the_cursor_on_its_file() {
        let mut v = FilesView::new("web".into(), "s1".into(), "Fix".into());
        v.set(two_turns());
        v.move_by(2);
        // A new turn arrives on top: the cursor stays on the old turn's a.rs.
        let mut more = two_turns();
        more.turns.push(turn(
            "job-newer-3",
            "2026-11-03T10:00:00Z",
            vec![file("d.rs", FileRole::Write, None)],
        ));
        v.set(more);
        assert_eq!(cursor(&v), Some(("job-old-1".into(), "a.rs".into())));
        // The file went away: the cursor stays in the list.
        v.set(touched(vec![turn("job-x", "2026-11-03T10:00:00Z", vec![])]));
        assert!(v.cursor_file().is_none());
        v.set_error("gone".into());
        assert!(v.touched().is_some());
    }

    #[test]
    fn t_narrows_to_the_cursors_turn_and_back() {
        let mut v = FilesView::new("web".into(), "s1".into(), "Fix".into());
        v.set(two_turns());
        v.move_by(3);
        assert_eq!(v.on_command(Command::ToggleTurn, 10), FilesOutcome::Handled);
        assert_eq!(v.only_turn(), Some("job-old-1"));
        assert_eq!(cursor(&v), Some(("job-old-1".into(), "b.rs".into())));
        v.on_command(Command::Top, 10);
        assert_eq!(cursor(&v), Some(("job-old-1".into(), "a.rs".into())));
        v.on_command(Command::Down, 10);
        v.on_command(Command::Down, 10);
        assert_eq!(cursor(&v), Some(("job-old-1".into(), "b.rs".into())));
        v.toggle_turn();
        assert_eq!(v.only_turn(), None);
        assert_eq!(cursor(&v), Some(("job-old-1".into(), "b.rs".into())));
        // A reload without that turn lists every turn again.
        v.toggle_turn();
        v.set(touched(vec![turn(
            "job-new-2",
            "2026-11-03T09:00:00Z",
            vec![file("a.rs", FileRole::Write, None)],
        )]));
        assert_eq!(v.only_turn(), None);
    }

    #[test]
    fn enter_b_r_and_esc_say_what_to_do() {
        let mut v = FilesView::new("web".into(), "s1".into(), "Fix".into());
        assert_eq!(v.on_command(Command::Blame, 10), FilesOutcome::Handled);
        assert_eq!(v.on_command(Command::Provenance, 10), FilesOutcome::Handled);
        v.set(two_turns());
        v.move_by(1);
        assert_eq!(
            v.on_command(Command::Blame, 10),
            FilesOutcome::Blame("c.rs".into())
        );
        assert_eq!(
            v.on_command(Command::Provenance, 10),
            FilesOutcome::LoadProvenance("c.rs".into())
        );
        assert!(
            v.provenance
                .as_ref()
                .is_some_and(|p| p.is_for("web", "c.rs"))
        );
        assert_eq!(v.on_command(Command::Refresh, 10), FilesOutcome::Reload);
        assert_eq!(v.on_command(Command::Back, 10), FilesOutcome::Closed);
        assert_eq!(v.on_command(Command::Files, 10), FilesOutcome::Closed);
        assert_eq!(v.on_command(Command::Quit, 10), FilesOutcome::Ignored);
        assert!(v.is_for("web", "s1"));
        assert!(!v.is_for("web", "s2"));
    }

    #[test]
    fn prompts_match_by_job_then_by_time_and_once_each() {
        let turns = vec![
            turn("j1", "2026-11-03T08:00:05Z", vec![]),
            // A recovery turn: no prompt of its own.
            turn("j2", "2026-11-03T08:30:00Z", vec![]),
            turn("j3", "2026-11-03T09:00:05Z", vec![]),
            turn("j4", "not a time", vec![]),
        ];
        let items = vec![
            user(
                "\n  Fix the race\nin the cookie refresh",
                Some("2026-11-03T08:00:00Z"),
                None,
            ),
            Item::Assistant { text: "ok".into() },
            user("Now the tests", None, Some("j3")),
            user("Later", Some("2026-11-03T12:00:00Z"), None),
        ];
        let prompts = turn_prompts(&turns, &items);
        assert_eq!(prompts.get("j1").map(String::as_str), Some("Fix the race"));
        assert_eq!(prompts.get("j2"), None);
        assert_eq!(prompts.get("j3").map(String::as_str), Some("Now the tests"));
        assert_eq!(prompts.get("j4"), None);
        let mut v = FilesView::new("web".into(), "s1".into(), "Fix".into());
        v.set_prompts(&items);
        assert_eq!(v.prompt("j1"), None, "nothing to match before the reply");
        v.set(touched(turns));
        v.set_prompts(&items);
        assert_eq!(v.prompt("j1"), Some("Fix the race"));
    }

    #[test]
    fn marks_have_ascii_fallbacks() {
        let (t, p) = (Theme::default(), Theme::plain());
        assert_eq!(status_mark(FileStatus::Current, &t), ("✓", Role::Success));
        assert_eq!(status_mark(FileStatus::Stale, &t), ("✗", Role::Error));
        assert_eq!(status_mark(FileStatus::Unverified, &t).0, "?");
        assert_eq!(status_mark(FileStatus::Current, &p).0, "v");
        assert_eq!(status_mark(FileStatus::Stale, &p).0, "x");
        assert_eq!(edge_mark(FileEdge::Inferred, &p), "~");
        assert_eq!(edge_mark(FileEdge::Observed, &t), " ");
        assert_eq!(short_id("0193f4c2-7a1e"), "0193f4c2");
        assert_eq!(short_id("j1"), "j1");
        assert_eq!(specialist_label("Explore"), "[subagent Explore]");
        assert_eq!(
            prompt_words("  \n\t\n  hi\tthere \n"),
            Some("hi there".into())
        );
        assert_eq!(prompt_words(" \n "), None);
    }

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn file_lines_align_and_move_the_subagent_below_when_narrow() {
        let theme = Theme::plain();
        let mut f = file(
            "tests/cookie.spec.ts",
            FileRole::Write,
            Some(FileStatus::Stale),
        );
        f.edge = FileEdge::Inferred;
        f.change = "modified".into();
        f.tool = "Bash".into();
        assert_eq!(
            text(&file_lines(&f, &theme, 80, 22, true)),
            [" > x ~modified tests/cookie.spec.ts    Bash"]
        );
        f.specialist = Some(Specialist {
            agent_id: "a1".into(),
            name: "general-purpose".into(),
            description: None,
            model: None,
        });
        let wide = text(&file_lines(&f, &theme, 80, 20, false));
        assert_eq!(
            wide,
            ["   x ~modified tests/cookie.spec.ts  Bash [subagent general-purpose]"]
        );
        let narrow = text(&file_lines(&f, &theme, 40, 12, false));
        assert_eq!(
            narrow,
            [
                "   x ~modified ...e.spec.ts  Bash",
                "              [subagent general-purpose]"
            ]
        );
        let read = file("b.rs", FileRole::Read, Some(FileStatus::Current));
        assert_eq!(
            text(&file_lines(&read, &theme, 80, 4, false)),
            ["      read     b.rs  Read"]
        );
    }

    #[test]
    fn the_legend_shrinks_to_fit() {
        let t = Theme::default();
        let wide = legend(&t, 80).map(|l| l.to_string());
        assert_eq!(
            wide.as_deref(),
            Some("  ✓ current  ✗ stale  ? unverified  ~ inferred")
        );
        let narrow = legend(&t, 40).map(|l| l.to_string());
        assert_eq!(narrow.as_deref(), Some(" ✓ current ✗ stale ? unverified"));
        assert!(legend(&t, 20).is_none());
    }

    #[test]
    fn scrolling_keeps_the_cursor_in_view() {
        assert_eq!(scroll_to(0, Some((30, 31)), 50, 10), 21);
        assert_eq!(scroll_to(21, Some((5, 6)), 50, 10), 5);
        assert_eq!(scroll_to(5, Some((8, 9)), 50, 10), 5);
        assert_eq!(scroll_to(45, None, 50, 10), 40);
        assert_eq!(scroll_to(3, Some((0, 1)), 5, 10), 0);
    }
}
