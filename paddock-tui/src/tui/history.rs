//! The History view: recent runs across projects, newest first, each with its origin chip
//! (You / Scheduled / Spawned / Hook / Imported), status, duration, project and title; the
//! "while you were away" banner; and the Unattended filter, on by default.
//!
//! The filter is an exclusion list, as in the reference: it leaves out `human` and `adopted`
//! by name, so imported history never counts as work done while you were away and any other
//! origin (today scheduled, spawned and hook) is unattended.
//!
//! The view fetches every run ([`HistoryView::request`]) and filters here, so `U` answers at
//! once. Opening and closing: [`HistoryView::open`] when the user presses `H`, then the
//! dispatcher sends the request and hands the reply to [`HistoryView::set`];
//! [`HistoryView::close`] says whether to send `history:seen` (the user has seen the runs).

use chrono::{DateTime, FixedOffset, Local, TimeZone};
use paddock_proto::{Attribution, History, HistoryList, Origin, RunStatus, RunSummary};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, HighlightSpacing, Paragraph, Row, Table, TableState};
use unicode_width::UnicodeWidthStr;

use super::help::{truncate, wrap};
use super::keys::{Command, Context, label_for};
use super::theme::{Glyph, Mark, Role, Theme};
use crate::format::{
    clean_title, history_banner, project_label, run_duration, run_origin, run_source,
    run_status_name, short_time,
};

/// How many runs the view asks for (the daemon's maximum): it filters them itself.
pub const FETCH_LIMIT: u32 = 500;

/// Up to this width (a 60-column terminal included) the view drops the duration and project
/// columns and shows origin and status as glyphs (see `Fit`), so a title keeps its room.
const NARROW: u16 = 60;

/// Whether a run ran without the user. Written as an exclusion list (the reference's
/// `unattended()`): a person's own turn and an imported chat are excluded by name.
pub fn is_unattended(origin: Origin) -> bool {
    !matches!(origin, Origin::Human | Origin::Adopted)
}

/// What a command did to the view, for the dispatcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryOutcome {
    /// Nothing to do outside the view; redraw.
    Handled,
    /// Open this chat (Enter on a run).
    Open {
        project_slug: String,
        session_id: String,
    },
    /// The view closed; send `history:seen` when `mark_seen`.
    Closed { mark_seen: bool },
    /// Not a History command: let the global keys have it.
    Ignored,
}

/// The History view's state.
#[derive(Debug, Clone)]
pub struct HistoryView {
    history: Option<History>,
    error: Option<String>,
    unattended_only: bool,
    /// Indices into `history.runs` of the rows shown, in order.
    visible: Vec<usize>,
    cursor: usize,
    open: bool,
    /// The time to show times against; `None`: the local clock.
    clock: Option<DateTime<FixedOffset>>,
    /// The running spinner's animation step.
    tick: u64,
}

impl Default for HistoryView {
    fn default() -> Self {
        Self::new()
    }
}

impl HistoryView {
    pub fn new() -> Self {
        Self {
            history: None,
            error: None,
            unattended_only: true,
            visible: Vec::new(),
            cursor: 0,
            open: false,
            clock: None,
            tick: 0,
        }
    }

    /// The request that loads the view: every run, every project (the filter is local).
    pub fn request(&self) -> HistoryList {
        HistoryList {
            project_slug: None,
            unattended: false,
            limit: Some(FETCH_LIMIT),
        }
    }

    /// Shows the view (the dispatcher then sends [`HistoryView::request`]).
    pub fn open(&mut self) {
        self.open = true;
        self.error = None;
    }

    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Hides the view; whether to send `history:seen`. When it is true the new marks and
    /// the banner are cleared here too, so reopening before the next reply shows no stale
    /// "while you were away".
    pub fn close(&mut self) -> bool {
        let mark_seen = self.should_mark_seen();
        self.open = false;
        if mark_seen && let Some(history) = &mut self.history {
            history.new_unattended = 0;
            for run in &mut history.runs {
                run.is_new = false;
            }
        }
        mark_seen
    }

    /// Whether closing now should send `history:seen`: the view is open, its runs were
    /// shown, and every new run is among them (a run cut off by the fetch limit was not
    /// seen, so the mark stays, as `paddock history` does).
    pub fn should_mark_seen(&self) -> bool {
        let Some(history) = self.history.as_ref().filter(|_| self.open) else {
            return false;
        };
        let listed = history.runs.iter().filter(|r| r.is_new).count();
        let new = usize::try_from(history.new_unattended).unwrap_or(usize::MAX);
        listed >= new
    }

    /// The daemon's reply. The cursor stays on the run it was on when that run is still
    /// shown.
    pub fn set(&mut self, history: History) {
        let keep = self.cursor_run().map(|r| r.job_id.clone());
        self.history = Some(history);
        self.error = None;
        self.refilter(keep.as_deref());
    }

    /// The request failed: say so in the view.
    pub fn set_error(&mut self, message: String) {
        self.error = Some(message);
    }

    /// The reply shown, once there is one.
    pub fn history(&self) -> Option<&History> {
        self.history.as_ref()
    }

    /// Times are shown against this clock (its zone and its day); `None`, the local one.
    /// Tests pin it.
    pub fn set_clock(&mut self, now: Option<DateTime<FixedOffset>>) {
        self.clock = now;
    }

    /// The running spinner's animation step.
    pub fn set_tick(&mut self, tick: u64) {
        self.tick = tick;
    }

    pub fn unattended_only(&self) -> bool {
        self.unattended_only
    }

    /// `U`: unattended runs only, or every run.
    pub fn toggle_unattended(&mut self) {
        self.set_unattended_only(!self.unattended_only);
    }

    pub fn set_unattended_only(&mut self, on: bool) {
        let keep = self.cursor_run().map(|r| r.job_id.clone());
        self.unattended_only = on;
        self.refilter(keep.as_deref());
    }

    /// The runs shown, newest first.
    pub fn visible_runs(&self) -> impl Iterator<Item = &RunSummary> {
        let runs = self.history.as_ref().map_or(&[][..], |h| &h.runs[..]);
        self.visible.iter().filter_map(|&i| runs.get(i))
    }

    /// How many runs are shown.
    pub fn len(&self) -> usize {
        self.visible.len()
    }

    pub fn is_empty(&self) -> bool {
        self.visible.is_empty()
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The run under the cursor: Enter opens its chat.
    pub fn cursor_run(&self) -> Option<&RunSummary> {
        let i = *self.visible.get(self.cursor)?;
        self.history.as_ref()?.runs.get(i)
    }

    /// Moves the cursor by `delta` rows, within the runs shown.
    pub fn move_by(&mut self, delta: isize) {
        let to = self.cursor.saturating_add_signed(delta);
        self.move_to(to);
    }

    /// Puts the cursor on row `row` (past the end: the last row).
    pub fn move_to(&mut self, row: usize) {
        self.cursor = row.min(self.visible.len().saturating_sub(1));
    }

    /// Applies a History-context command; `page` is how many rows a page moves (see
    /// [`HistoryView::list_height`]).
    pub fn on_command(&mut self, command: Command, page: usize) -> HistoryOutcome {
        if let Some(delta) = command.motion(page) {
            self.move_by(delta);
            return HistoryOutcome::Handled;
        }
        match command {
            Command::UnattendedOnly => self.toggle_unattended(),
            Command::Open => {
                return match self.cursor_run() {
                    Some(run) => HistoryOutcome::Open {
                        project_slug: run.project_slug.clone(),
                        session_id: run.session_id.clone(),
                    },
                    None => HistoryOutcome::Handled,
                };
            }
            Command::Back | Command::History => {
                return HistoryOutcome::Closed {
                    mark_seen: self.close(),
                };
            }
            _ => return HistoryOutcome::Ignored,
        }
        HistoryOutcome::Handled
    }

    /// "while you were away: N unattended runs finished since TIME", when some are new.
    pub fn banner(&self) -> Option<String> {
        let history = self.history.as_ref()?;
        match &self.clock {
            Some(now) => history_banner(history, now),
            None => history_banner(history, &Local::now()),
        }
    }

    /// How many run rows fit when the view is drawn in `area` (for paging and scrolling).
    pub fn list_height(&self, area: Rect) -> usize {
        usize::from(self.areas(area).2.height.saturating_sub(1))
    }

    fn refilter(&mut self, keep_job: Option<&str>) {
        let only = self.unattended_only;
        self.visible = self.history.as_ref().map_or_else(Vec::new, |h| {
            h.runs
                .iter()
                .enumerate()
                .filter(|(_, r)| !only || is_unattended(r.origin))
                .map(|(i, _)| i)
                .collect()
        });
        let kept = keep_job.and_then(|job| self.visible_runs().position(|r| r.job_id == job));
        match kept {
            Some(row) => self.cursor = row,
            None => self.move_to(self.cursor),
        }
    }

    /// The banner wrapped to the view's width (less the column it is indented by).
    fn banner_lines(&self, width: u16) -> Vec<String> {
        self.banner()
            .map(|b| wrap(&b, usize::from(width.saturating_sub(1)).max(1)))
            .unwrap_or_default()
    }

    /// The title line, the banner's lines, and the table (with its header row).
    fn areas(&self, area: Rect) -> (Rect, Rect, Rect) {
        let banner = u16::try_from(self.banner_lines(area.width).len()).unwrap_or(u16::MAX);
        let [title, banner, body] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(banner),
            Constraint::Min(0),
        ])
        .areas(area);
        (title, banner, body)
    }
}

/// Draws the view in `area`: a title line, the banner, one row per run.
pub fn render_history(view: &HistoryView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let (title_area, banner_area, body) = view.areas(area);
    render_title(view, theme, frame, title_area);
    let banner: Vec<Line<'_>> = view
        .banner_lines(area.width)
        .into_iter()
        .map(|l| Line::styled(format!(" {l}"), theme.style(Role::Warning)))
        .collect();
    frame.render_widget(Paragraph::new(banner), banner_area);

    let message = if let Some(error) = &view.error {
        Some((format!("History could not be loaded: {error}"), Role::Error))
    } else if view.history.is_none() {
        Some((
            format!("Loading history{}", theme.glyph(Glyph::Ellipsis)),
            Role::Dim,
        ))
    } else if view.is_empty() && view.unattended_only {
        let key = label_for(Context::History, Command::UnattendedOnly).unwrap_or("U");
        Some((
            format!("No unattended runs yet\n{key} shows all runs"),
            Role::Dim,
        ))
    } else if view.is_empty() {
        Some(("No runs yet".to_owned(), Role::Dim))
    } else {
        None
    };
    if let Some((text, role)) = message {
        render_message(theme, frame, body, &text, role);
        return;
    }
    match &view.clock {
        Some(now) => render_table(view, theme, frame, body, now),
        None => render_table(view, theme, frame, body, &Local::now()),
    }
}

fn render_title(view: &HistoryView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let narrow = area.width < NARROW;
    let what = match (view.unattended_only, narrow) {
        (true, false) => "unattended runs",
        (true, true) => "unattended",
        (false, _) => "all runs",
    };
    let key = label_for(Context::History, Command::UnattendedOnly).unwrap_or("U");
    let other = if view.unattended_only {
        "all runs"
    } else {
        "unattended only"
    };
    let left = Line::from(vec![
        Span::styled(" History", theme.style(Role::Accent)),
        Span::styled(
            format!(" {} {what}", theme.glyph(Glyph::Dot)),
            theme.style(Role::Normal),
        ),
    ]);
    let right = Line::from(vec![
        Span::styled(key.to_owned(), Style::new().add_modifier(Modifier::BOLD)),
        Span::styled(format!(" {other} "), theme.style(Role::Dim)),
    ]);
    if left.width() + right.width() < usize::from(area.width) {
        frame.render_widget(right.right_aligned(), area);
    }
    frame.render_widget(left, area);
}

fn render_message(theme: &Theme, frame: &mut Frame<'_>, area: Rect, text: &str, role: Role) {
    let width = usize::from(area.width.saturating_sub(2)).max(1);
    let lines: Vec<Line<'_>> = text
        .lines()
        .flat_map(|paragraph| wrap(paragraph, width))
        .map(|l| Line::styled(l, theme.style(role)).centered())
        .collect();
    let height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let [_, middle, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(height),
        Constraint::Fill(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(lines), middle);
}

/// How much a width has room for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// Under [`NARROW`] columns: when (short), origin icon, status glyph, title.
    Narrow,
    /// Under [`WIDE`]: the origin chip, the duration and the project too.
    Medium,
    /// The status in words, a wider project column and the trigger after the title.
    Wide,
}

/// From this width the status is spelled out.
const WIDE: u16 = 100;

impl Fit {
    fn of(width: u16) -> Self {
        if width <= NARROW {
            Fit::Narrow
        } else if width < WIDE {
            Fit::Medium
        } else {
            Fit::Wide
        }
    }

    /// The widest a project column gets.
    fn project_max(self) -> u16 {
        if self == Fit::Wide { 16 } else { 12 }
    }
}

/// The cells of one run, as text and role.
struct Cells {
    new: bool,
    when: String,
    origin: (String, Role),
    status: (String, Role),
    duration: String,
    project: String,
    title: String,
    trigger: Option<String>,
}

fn origin_role(origin: Origin) -> Role {
    match origin {
        Origin::Human => Role::Normal,
        Origin::Scheduled => Role::Scheduled,
        Origin::Spawned => Role::Spawned,
        Origin::Hook => Role::Hook,
        Origin::Adopted => Role::Adopted,
    }
}

/// The origin chip: `⏰ Scheduled`, `⑂ Spawned·2`, `You`; narrow, the icon alone (`⑂·2`).
fn origin_chip(theme: &Theme, run: &RunSummary, narrow: bool) -> (String, Role) {
    let role = origin_role(run.origin);
    // A message another chat sent: that chat caused the run (`↩ sent by TITLE`).
    if matches!(run.attribution, Some(Attribution::Sent { .. })) {
        let arrow = theme.mark(Mark::Sent);
        if narrow {
            return (arrow.to_owned(), Role::Spawned);
        }
        let source = run_source(run, 20);
        return (format!("{arrow} {}", theme.words(&source)), Role::Spawned);
    }
    if narrow {
        let icon = theme.badge(run.origin, run.depth, false, true);
        let text = icon.map_or_else(|| "you".to_owned(), |s| s.content.into_owned());
        return (text, role);
    }
    // The word names the origin as History's chips do; its depth mark in the theme's glyph.
    let word = run_origin(run.origin, run.depth).replace('·', theme.glyph(Glyph::Levels));
    let mut chars = word.chars();
    let word: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    // The icon without the depth (the word carries it).
    match theme.badge(run.origin, 1, false, true) {
        Some(icon) => (format!("{} {word}", icon.content), role),
        None => (word, role),
    }
}

/// The status: its glyph (the running spinner at `tick`; a run waiting for you, the warning
/// mark), and its word when `words`.
fn status_cell(theme: &Theme, run: &RunSummary, tick: u64, words: bool) -> (String, Role) {
    let status = run.status;
    let (glyph, role) = match status {
        RunStatus::Running if run.waiting => (theme.mark(Mark::WARNING), Role::Warning),
        RunStatus::Running => (theme.spinner(tick), Role::Running),
        RunStatus::Completed => (theme.mark(Mark::Done), Role::Success),
        RunStatus::Failed => (theme.mark(Mark::Failed), Role::Error),
        RunStatus::Cancelled => (theme.mark(Mark::Cancelled), Role::Dim),
        RunStatus::Interrupted => (theme.mark(Mark::Interrupted), Role::Warning),
        RunStatus::Skipped => (theme.mark(Mark::Skipped), Role::Dim),
    };
    if words {
        (format!("{glyph} {}", run_status_name(run)), role)
    } else {
        (glyph.to_owned(), role)
    }
}

/// When a run started, short; narrow, a run of another day shows only its day (`Nov 02`).
fn when<Tz: TimeZone>(run: &RunSummary, now: &DateTime<Tz>, fit: Fit) -> String
where
    Tz::Offset: std::fmt::Display,
{
    let at = short_time(&run.started_at, now);
    // `short_time` writes another day of this year as `Nov 02 02:00`.
    match at.split_once(' ') {
        Some((month, rest)) if fit == Fit::Narrow && month.len() == 3 => {
            let day = rest.split(' ').next().unwrap_or_default();
            format!("{month} {day}")
        }
        _ => at,
    }
}

fn cells<Tz: TimeZone>(
    view: &HistoryView,
    theme: &Theme,
    run: &RunSummary,
    now: &DateTime<Tz>,
    fit: Fit,
) -> Cells
where
    Tz::Offset: std::fmt::Display,
{
    Cells {
        new: run.is_new,
        when: when(run, now, fit),
        origin: origin_chip(theme, run, fit == Fit::Narrow),
        status: status_cell(theme, run, view.tick, fit == Fit::Wide),
        duration: run_duration(run, now),
        project: project_label(&run.project_slug).into_owned(),
        title: clean_title(&run.title),
        trigger: run
            .trigger
            .as_deref()
            .map(clean_title)
            .filter(|t| !t.is_empty()),
    }
}

/// The widest cell of a column, the header included.
fn column_width<'a>(header: &str, cells: impl Iterator<Item = &'a str>) -> u16 {
    let widest = cells.map(UnicodeWidthStr::width).max().unwrap_or(0);
    u16::try_from(widest.max(header.width())).unwrap_or(u16::MAX)
}

fn render_table<Tz: TimeZone>(
    view: &HistoryView,
    theme: &Theme,
    frame: &mut Frame<'_>,
    area: Rect,
    now: &DateTime<Tz>,
) where
    Tz::Offset: std::fmt::Display,
{
    let fit = Fit::of(area.width);
    let rows: Vec<Cells> = view
        .visible_runs()
        .map(|run| cells(view, theme, run, now, fit))
        .collect();
    // Narrow, the glyphs speak for themselves; medium, the status is a glyph.
    let origin_header = if fit == Fit::Narrow { "" } else { "ORIGIN" };
    let status_header = if fit == Fit::Wide { "STATUS" } else { "" };
    let mut header = vec!["", "WHEN", origin_header, status_header];
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Length(column_width("WHEN", rows.iter().map(|c| c.when.as_str()))),
        Constraint::Length(column_width(
            origin_header,
            rows.iter().map(|c| c.origin.0.as_str()),
        )),
        Constraint::Length(column_width(
            status_header,
            rows.iter().map(|c| c.status.0.as_str()),
        )),
    ];
    let project_w =
        column_width("PROJECT", rows.iter().map(|c| c.project.as_str())).min(fit.project_max());
    if fit != Fit::Narrow {
        let time_w = column_width("TIME", rows.iter().map(|c| c.duration.as_str()));
        widths.extend([Constraint::Length(time_w), Constraint::Length(project_w)]);
        header.extend(["TIME", "PROJECT"]);
    }
    widths.push(Constraint::Fill(1));
    header.push("TITLE");

    // The title column's width (what is left after the cursor mark and the other columns and
    // their gaps), for cutting titles with a visible mark.
    let fixed: u16 = widths
        .iter()
        .map(|c| match c {
            Constraint::Length(n) => n + 1,
            _ => 0,
        })
        .sum();
    let title_w = usize::from(area.width.saturating_sub(fixed + 1));

    let dim = theme.style(Role::Dim);
    let table_rows: Vec<Row<'_>> = rows
        .into_iter()
        .map(|c| table_row(c, theme, fit, title_w, project_w))
        .collect();

    let header = Row::new(header.into_iter().enumerate().map(|(i, h)| {
        // The duration reads best right-aligned, its header too.
        let line = Line::from(h);
        Cell::from(if fit != Fit::Narrow && i == 4 {
            line.right_aligned()
        } else {
            line
        })
    }))
    .style(dim.add_modifier(Modifier::BOLD));
    let table = Table::new(table_rows, widths)
        .header(header)
        .column_spacing(1)
        .highlight_symbol(theme.mark(Mark::Cursor))
        .highlight_spacing(HighlightSpacing::Always)
        .row_highlight_style(theme.style(Role::Selected));
    let mut state = TableState::default().with_selected(Some(view.cursor));
    frame.render_stateful_widget(table, area, &mut state);
}

/// One run's row: the unread mark, its cells for this width, the title cut to `title_w` (with
/// its trigger when wide and there is room).
fn table_row(c: Cells, theme: &Theme, fit: Fit, title_w: usize, project_w: u16) -> Row<'static> {
    let dim = theme.style(Role::Dim);
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    let mark = if c.new {
        Span::styled(theme.mark(Mark::Unread), theme.style(Role::Unread))
    } else {
        Span::raw(" ")
    };
    let title_role = if c.new { Role::Unread } else { Role::Normal };
    let mut title = vec![Span::styled(
        truncate(&c.title, title_w, ellipsis),
        theme.style(title_role),
    )];
    let used = c.title.width();
    if let Some(trigger) = c.trigger.filter(|_| fit == Fit::Wide && used + 4 < title_w) {
        title.push(Span::styled(
            truncate(
                &format!(" {} {trigger}", theme.glyph(Glyph::Dot)),
                title_w - used,
                ellipsis,
            ),
            dim,
        ));
    }
    let mut cells = vec![
        Cell::from(mark),
        Cell::from(Span::styled(c.when, dim)),
        Cell::from(Span::styled(c.origin.0, theme.style(c.origin.1))),
        Cell::from(Span::styled(c.status.0, theme.style(c.status.1))),
    ];
    if fit != Fit::Narrow {
        cells.push(Cell::from(Line::from(c.duration).right_aligned()));
        cells.push(Cell::from(truncate(
            &c.project,
            usize::from(project_w),
            ellipsis,
        )));
    }
    cells.push(Cell::from(Line::from(title)));
    Row::new(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(job: &str, origin: Origin, is_new: bool) -> RunSummary {
        RunSummary {
            job_id: job.into(),
            project_slug: "webapp".into(),
            session_id: format!("s-{job}"),
            title: job.into(),
            origin,
            depth: 0,
            trigger: None,
            status: RunStatus::Completed,
            started_at: "2026-11-03T08:00:00Z".into(),
            finished_at: Some("2026-11-03T08:01:00Z".into()),
            cost_usd: None,
            prompt: None,
            attribution: None,
            is_new,
            waiting: false,
        }
    }

    fn history() -> History {
        History {
            runs: vec![
                run("human", Origin::Human, false),
                run("scheduled", Origin::Scheduled, true),
                run("adopted", Origin::Adopted, false),
                run("spawned", Origin::Spawned, false),
                run("hook", Origin::Hook, true),
            ],
            last_seen: None,
            new_unattended: 2,
            waiting: 0,
        }
    }

    fn shown(view: &HistoryView) -> Vec<&str> {
        view.visible_runs().map(|r| r.job_id.as_str()).collect()
    }

    #[test]
    fn unattended_is_an_exclusion_list() {
        assert!(!is_unattended(Origin::Human));
        assert!(!is_unattended(Origin::Adopted));
        assert!(is_unattended(Origin::Scheduled));
        assert!(is_unattended(Origin::Spawned));
        assert!(is_unattended(Origin::Hook));
    }

    #[test]
    fn the_filter_is_on_by_default_and_toggles() {
        let mut view = HistoryView::new();
        assert!(view.unattended_only());
        view.set(history());
        assert_eq!(shown(&view), ["scheduled", "spawned", "hook"]);
        view.toggle_unattended();
        assert_eq!(
            shown(&view),
            ["human", "scheduled", "adopted", "spawned", "hook"]
        );
        assert!(!view.request().unattended, "the view filters itself");
    }

    #[test]
    fn the_cursor_stays_on_its_run() {
        let mut view = HistoryView::new();
        view.set(history());
        view.move_by(1);
        assert_eq!(
            view.cursor_run().map(|r| r.job_id.as_str()),
            Some("spawned")
        );
        view.toggle_unattended();
        assert_eq!(view.cursor(), 3);
        assert_eq!(
            view.cursor_run().map(|r| r.job_id.as_str()),
            Some("spawned")
        );
        // A new run on top keeps the cursor on the same run.
        let mut h = history();
        h.runs.insert(0, run("newer", Origin::Hook, true));
        view.set(h);
        assert_eq!(
            view.cursor_run().map(|r| r.job_id.as_str()),
            Some("spawned")
        );
        // Back to unattended only: the cursor on a human run falls to a shown row.
        view.move_to(1);
        assert_eq!(view.cursor_run().map(|r| r.job_id.as_str()), Some("human"));
        view.toggle_unattended();
        assert!(view.cursor_run().is_some());
        view.move_by(100);
        assert_eq!(view.cursor(), 3);
        view.move_by(-100);
        assert_eq!(view.cursor(), 0);
    }

    #[test]
    fn enter_opens_the_runs_chat_and_esc_closes() {
        let mut view = HistoryView::new();
        view.open();
        assert_eq!(
            view.on_command(Command::Open, 10),
            HistoryOutcome::Handled,
            "nothing loaded"
        );
        view.set(history());
        view.on_command(Command::Bottom, 10);
        assert_eq!(
            view.on_command(Command::Open, 10),
            HistoryOutcome::Open {
                project_slug: "webapp".into(),
                session_id: "s-hook".into()
            }
        );
        assert_eq!(view.on_command(Command::Star, 10), HistoryOutcome::Ignored);
        assert_eq!(
            view.on_command(Command::Back, 10),
            HistoryOutcome::Closed { mark_seen: true }
        );
        assert!(!view.is_open());
    }

    #[test]
    fn seen_only_after_being_shown() {
        let mut view = HistoryView::new();
        // Never opened: nothing to mark.
        view.set(history());
        assert!(!view.should_mark_seen());
        // Opened, but the reply has not come: not seen.
        let mut view = HistoryView::new();
        view.open();
        assert!(!view.close());
        // Opened and shown: seen, and the banner goes at once.
        view.open();
        view.set(history());
        assert!(view.banner().is_some());
        assert!(view.should_mark_seen());
        assert!(view.close());
        assert_eq!(view.banner(), None);
        assert!(view.visible_runs().all(|r| !r.is_new));
        // Closed twice: once.
        assert!(!view.close());
    }

    #[test]
    fn new_runs_cut_off_by_the_limit_stay_unseen() {
        let mut view = HistoryView::new();
        view.open();
        let mut h = history();
        h.new_unattended = 5;
        view.set(h);
        assert!(!view.should_mark_seen());
    }

    #[test]
    fn the_banner_counts_new_unattended_runs() {
        let mut view = HistoryView::new();
        view.set_clock(DateTime::parse_from_rfc3339("2026-11-03T10:00:00Z").ok());
        assert_eq!(view.banner(), None, "nothing loaded");
        view.set(history());
        assert_eq!(
            view.banner().as_deref(),
            Some("while you were away: 2 unattended runs finished")
        );
        let mut h = history();
        h.new_unattended = 0;
        view.set(h);
        assert_eq!(view.banner(), None);
    }

    #[test]
    fn chips_name_every_origin() {
        let t = Theme::default();
        let chip = |origin, depth| {
            let mut r = run("r", origin, false);
            r.depth = depth;
            origin_chip(&t, &r, false).0
        };
        assert_eq!(chip(Origin::Human, 0), "You");
        assert_eq!(chip(Origin::Scheduled, 0), "⏰ Scheduled");
        assert_eq!(chip(Origin::Spawned, 1), "⑂ Spawned");
        assert_eq!(chip(Origin::Spawned, 2), "⑂ Spawned·2");
        assert_eq!(chip(Origin::Hook, 0), "⚡ Hook");
        assert_eq!(chip(Origin::Adopted, 0), "▣ Imported");
        let plain = Theme::plain();
        let mut r = run("r", Origin::Spawned, false);
        r.depth = 3;
        assert_eq!(origin_chip(&plain, &r, false).0, "Y Spawned:3");
        assert_eq!(origin_chip(&plain, &r, true).0, "Y:3");
    }
}
