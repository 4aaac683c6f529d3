//! The blame of a file (`b` in the Files view or the provenance panel): the file's lines as they
//! are now, with a gutter naming, on the first line of each region (and on the top line when a
//! region starts above the screen), who last wrote it: a chat's step (the chat's title cut to
//! fit, its short session id, the tool), `commit <sha7> <author>` for lines no recorded step
//! changed since that commit, or `(not recorded)` for changes paddockd did not see (your own
//! edits). Each chat and each commit has its own colour; without colour, steps are bold,
//! commits plain and unrecorded lines dim. Below 60 columns the gutter shrinks to 14.
//!
//! `provenance:blame` answers it. Enter on a line a chat wrote opens that chat.

use paddock_proto::{Blame, BlameRegion, BlameSource};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::action::Action;
use super::chat_view::clean;
use super::fetch::{Answer, Fetch, taken};
use super::files_view::{scroll_to, short_id};
use super::keys::{Command, Context, moved};
use super::overlay::{Cx, DrawCx, Layer, News, Overlay, Reaction};
use super::provenance_view::{fit, wrap_lines};
use super::theme::{Glyph, Mark, Role, Theme};

/// The colours sources take, in order of first appearance.
const PALETTE: [Color; 6] = [
    Color::Cyan,
    Color::Green,
    Color::Magenta,
    Color::Yellow,
    Color::LightBlue,
    Color::LightRed,
];

/// What a command did to the view, for the dispatcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlameOutcome {
    Handled,
    /// Back to what was under the view.
    Closed,
    /// Enter on a line a chat's step wrote: open that chat.
    OpenChat {
        project_slug: String,
        session_id: String,
    },
    /// Enter on a line no chat wrote: say so.
    Notice(String),
    /// Not a blame command: let the global keys have it.
    Ignored,
}

/// The blame view's state while it is open.
#[derive(Debug, Clone)]
pub struct BlameView {
    project_slug: String,
    path: String,
    blame: Option<Box<Blame>>,
    error: Option<String>,
    /// Per region: its source's place in the palette (`None`: not recorded).
    colors: Vec<Option<usize>>,
    /// The line under the cursor (0-based).
    cursor: usize,
    /// The first line drawn (kept by the render so the cursor stays in view).
    top: usize,
}

impl BlameView {
    pub fn new(project_slug: String, path: String) -> Self {
        Self {
            project_slug,
            path,
            blame: None,
            error: None,
            colors: Vec::new(),
            cursor: 0,
            top: 0,
        }
    }

    pub fn project_slug(&self) -> &str {
        &self.project_slug
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// Whether an answer for (`project_slug`, `path`) belongs here.
    pub fn is_for(&self, project_slug: &str, path: &str) -> bool {
        self.project_slug == project_slug && self.path == path
    }

    pub fn set(&mut self, blame: Box<Blame>) {
        self.colors = source_colors(&blame.regions);
        self.cursor = self.cursor.min(blame.lines.len().saturating_sub(1));
        self.blame = Some(blame);
        self.error = None;
    }

    pub fn set_error(&mut self, reason: String) {
        self.error = Some(reason);
    }

    pub fn blame(&self) -> Option<&Blame> {
        self.blame.as_deref()
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    fn line_count(&self) -> usize {
        self.blame.as_ref().map_or(0, |b| b.lines.len())
    }

    /// The region of line `index` (0-based) and its place among the regions.
    pub fn region_of(&self, index: usize) -> Option<(usize, &BlameRegion)> {
        let n = u32::try_from(index + 1).ok()?;
        self.blame
            .as_ref()?
            .regions
            .iter()
            .enumerate()
            .find(|(_, r)| r.start <= n && n <= r.end)
    }

    fn move_by(&mut self, delta: isize) {
        self.cursor = moved(self.cursor, delta, self.line_count());
    }

    /// Applies a Blame-context command; `page` is how many lines a page moves.
    pub fn on_command(&mut self, command: Command, page: usize) -> BlameOutcome {
        if let Some(delta) = command.motion(page) {
            self.move_by(delta);
            return BlameOutcome::Handled;
        }
        match command {
            Command::Open => self.open(),
            Command::Back => BlameOutcome::Closed,
            _ => BlameOutcome::Ignored,
        }
    }

    /// What Enter on the cursor's line does.
    fn open(&self) -> BlameOutcome {
        let Some((_, region)) = self.region_of(self.cursor) else {
            return BlameOutcome::Handled;
        };
        match &region.by {
            BlameSource::Step(step) => BlameOutcome::OpenChat {
                project_slug: self.project_slug.clone(),
                session_id: step.session_id.clone(),
            },
            BlameSource::Commit(commit) => BlameOutcome::Notice(format!(
                "no chat wrote this line since commit {} ({}, by {})",
                commit.sha.get(..7).unwrap_or(&commit.sha),
                commit.summary.lines().next().unwrap_or_default(),
                commit.author
            )),
            BlameSource::Unknown => BlameOutcome::Notice(
                "no recorded chat wrote this line (your own edit, or a write paddockd did not see)"
                    .to_owned(),
            ),
        }
    }
}

/// Each region's palette place: one per chat and per commit, in order of first appearance;
/// `None` for lines not recorded.
fn source_colors(regions: &[BlameRegion]) -> Vec<Option<usize>> {
    let mut seen: Vec<String> = Vec::new();
    regions
        .iter()
        .map(|r| {
            let key = match &r.by {
                BlameSource::Step(step) => format!("chat {}", step.session_id),
                BlameSource::Commit(commit) => format!("commit {}", commit.sha),
                BlameSource::Unknown => return None,
            };
            Some(seen.iter().position(|k| *k == key).unwrap_or_else(|| {
                seen.push(key);
                seen.len() - 1
            }))
        })
        .collect()
}

/// A source's style: its palette colour, or without colour bold (a chat), plain (a commit),
/// dim (not recorded).
fn source_style(theme: &Theme, by: &BlameSource, color: Option<usize>) -> Style {
    if !theme.color {
        return match by {
            BlameSource::Step(_) => Style::new().add_modifier(Modifier::BOLD),
            BlameSource::Commit(_) => Style::new(),
            BlameSource::Unknown => Style::new().add_modifier(Modifier::DIM),
        };
    }
    match color {
        Some(i) => Style::new().fg(PALETTE[i % PALETTE.len()]),
        None => theme.style(Role::Dim),
    }
}

/// The gutter's width for a view `width` columns wide: 14 below 60 columns, else three
/// Opens the blame of a file over the view that asked, and reads it.
pub fn open_blame(project_slug: String, path: String) -> Reaction {
    let view = BlameView::new(project_slug.clone(), path.clone());
    Reaction::Open(
        Box::new(view),
        Some(Action::LoadBlame { project_slug, path }),
    )
}

impl Overlay for BlameView {
    fn layer(&self) -> Layer {
        Layer::Blame
    }

    fn context(&self) -> Context {
        Context::Blame
    }

    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction {
        match BlameView::on_command(self, command, cx.page) {
            BlameOutcome::Handled => Reaction::Handled,
            BlameOutcome::Closed => Reaction::Close,
            BlameOutcome::Notice(text) => {
                cx.say(text);
                Reaction::Handled
            }
            BlameOutcome::OpenChat { session_id, .. } => Reaction::JumpToChat(session_id),
            BlameOutcome::Ignored => Reaction::Pass(command),
        }
    }

    fn render(&mut self, frame: &mut Frame<'_>, area: Rect, cx: &DrawCx<'_>) {
        render_blame(self, cx.theme, frame, area);
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("j/k", "lines"),
            ("enter", "open the chat"),
            ("esc", "back"),
            ("?", "keys"),
        ]
    }

    fn on_reply(&mut self, fetch: &Fetch, answer: &Answer, _: &mut Cx<'_>) -> bool {
        let Fetch::Blame { project_slug, path } = fetch else {
            return false;
        };
        if !self.is_for(project_slug, path) {
            return false;
        }
        match match answer {
            Answer::Blame(result) => taken(result, |b| b.clone()),
            _ => return false,
        } {
            Ok(blame) => self.set(blame),
            Err(reason) => self.set_error(reason),
        }
        true
    }

    fn on_news(&self, news: News<'_>, cx: &mut Cx<'_>) {
        if matches!(news, News::Reconnected) && self.blame().is_none() {
            cx.fetch(Fetch::Blame {
                project_slug: self.project_slug().to_owned(),
                path: self.path().to_owned(),
            });
        }
    }
}

/// eighths of the width up to 32.
pub fn gutter_width(width: usize) -> usize {
    if width < 60 {
        14
    } else {
        (width * 3 / 8).min(32)
    }
}

/// Who wrote a region, in `width` columns: `Title a3e9b1c4 Edit` (the title cut first, then
/// the id left out), `commit 3f9a2c1 Ana Lima` (without `commit` when narrow), or
/// `(not recorded)`.
pub fn gutter_label(by: &BlameSource, width: usize, theme: &Theme) -> String {
    match by {
        BlameSource::Step(step) => {
            let sid = short_id(&step.session_id);
            let tool = step.tool.as_str();
            let title = step
                .title
                .as_deref()
                .and_then(|t| t.lines().map(str::trim).find(|l| !l.is_empty()));
            let Some(title) = title else {
                return fit(&format!("chat {sid} {tool}"), width, theme);
            };
            let with_id = sid.width() + tool.width() + 2;
            let without_id = tool.width() + 1;
            if width >= with_id + 6 {
                format!("{} {sid} {tool}", fit(title, width - with_id, theme))
            } else if width >= without_id + 4 {
                format!("{} {tool}", fit(title, width - without_id, theme))
            } else {
                fit(&format!("{sid} {tool}"), width, theme)
            }
        }
        BlameSource::Commit(commit) => {
            let sha = commit.sha.get(..7).unwrap_or(&commit.sha);
            let label = if width >= 20 {
                format!("commit {sha} {}", commit.author)
            } else {
                format!("{sha} {}", commit.author)
            };
            fit(&label, width, theme)
        }
        BlameSource::Unknown => fit("(not recorded)", width, theme),
    }
}

/// Draws the view into `area`: a title line, the file's lines with their gutter, the notes.
/// Moves the view's first line so the cursor shows.
pub fn render_blame(view: &mut BlameView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    if area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let title = Line::from(vec![
        Span::styled(" Blame ", theme.style(Role::Accent)),
        Span::raw(fit(&view.path, width.saturating_sub(8), theme)),
    ]);
    let (title_row, body) = crate::tui::areas::title_and_body(area);
    frame.render_widget(title, title_row);
    let Some(blame) = view.blame.as_ref() else {
        let line = no_blame_line(view, theme);
        frame.render_widget(Paragraph::new(wrap_lines(vec![line], width)), body);
        return;
    };
    let foot = foot_lines(view, blame, theme, width);
    let (list, bottom) = crate::tui::areas::above_foot(body, foot.len());
    frame.render_widget(Paragraph::new(foot), bottom);
    if blame.lines.is_empty() {
        frame.render_widget(
            Line::styled(" The file is empty.", theme.style(Role::Dim)),
            list,
        );
        return;
    }
    let height = usize::from(list.height);
    view.top = scroll_to(
        view.top,
        Some((view.cursor, view.cursor + 1)),
        blame.lines.len(),
        height,
    );
    let lines = blamed_lines(view, blame, theme, width, height);
    frame.render_widget(Paragraph::new(lines), list);
}

/// The line shown while there is no blame yet: why the file cannot be blamed, or that it is
/// loading.
fn no_blame_line(view: &BlameView, theme: &Theme) -> Line<'static> {
    match &view.error {
        Some(reason) => Line::styled(
            format!(" Cannot blame {}: {reason}", view.path),
            theme.style(Role::Error),
        ),
        None => Line::styled(
            format!(" Loading{}", theme.glyph(Glyph::Ellipsis)),
            theme.style(Role::Dim),
        ),
    }
}

/// The lines at the bottom, wrapped: the blame's notes, and why blaming it again failed.
fn foot_lines(view: &BlameView, blame: &Blame, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let bang = theme.mark(Mark::WARNING);
    let mut foot: Vec<Line<'static>> = blame
        .notes
        .iter()
        .map(|n| Line::styled(format!(" {bang} {n}"), theme.style(Role::Warning)))
        .collect();
    if let Some(reason) = &view.error {
        foot.push(Line::styled(
            format!(" Cannot blame it again: {reason}"),
            theme.style(Role::Error),
        ));
    }
    wrap_lines(foot, width)
}

/// The file's lines from the view's first one, `height` of them, each after its gutter and
/// its number; the cursor's line marked.
fn blamed_lines(
    view: &BlameView,
    blame: &Blame,
    theme: &Theme,
    width: usize,
    height: usize,
) -> Vec<Line<'static>> {
    let gutter = gutter_width(width);
    let number_width = blame.lines.len().to_string().len();
    let mut lines = Vec::new();
    for (i, text) in blame.lines.iter().enumerate().skip(view.top).take(height) {
        let (label, style) = gutter_cell(view, i, gutter, theme);
        let pad = gutter.saturating_sub(label.width());
        let cursor = i == view.cursor;
        let line = Line::from(vec![
            Span::raw(if cursor {
                theme.mark(Mark::Cursor)
            } else {
                " "
            }),
            Span::styled(format!("{label}{}", " ".repeat(pad)), style),
            Span::styled(
                format!(" {:>number_width$} ", i + 1),
                theme.style(Role::Dim),
            ),
            Span::raw(clean(text)),
        ]);
        lines.push(if cursor {
            line.style(theme.style(Role::Selected))
        } else {
            line
        });
    }
    lines
}

/// The gutter of line `i` and its style: who wrote its region on the region's first line (or
/// the first line shown), a bar on the others, nothing outside every region.
fn gutter_cell(view: &BlameView, i: usize, gutter: usize, theme: &Theme) -> (String, Style) {
    match view.region_of(i) {
        Some((r, region)) => {
            let style = source_style(theme, &region.by, view.colors.get(r).copied().flatten());
            let first = usize::try_from(region.start).is_ok_and(|s| s == i + 1) || i == view.top;
            let label = if first {
                gutter_label(&region.by, gutter, theme)
            } else {
                theme.glyph(Glyph::Bar).to_owned()
            };
            (label, style)
        }
        None => (String::new(), Style::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::{BlameCommit, FileEdge, FileStep};

    fn step(session: &str, title: Option<&str>) -> BlameSource {
        BlameSource::Step(Box::new(FileStep {
            session_id: session.into(),
            job_id: "j".into(),
            step_id: "j:1".into(),
            title: title.map(Into::into),
            tool: "Edit".into(),
            at: "2026-11-03T09:14:31Z".into(),
            edge: FileEdge::Observed,
            change: "wrote".into(),
            hash: None,
            environment: None,
            model: None,
            specialist: None,
        }))
    }

    fn commit(sha: &str) -> BlameSource {
        BlameSource::Commit(BlameCommit {
            sha: sha.into(),
            summary: "Add cookie refresh\n\nlong body".into(),
            author: "Ana Lima".into(),
            at: "2026-10-28T16:02:11Z".into(),
        })
    }

    fn region(start: u32, end: u32, by: BlameSource) -> BlameRegion {
        BlameRegion { start, end, by }
    }

    fn blame() -> Box<Blame> {
        Box::new(Blame {
            project_slug: "web".into(),
            path: "a.ts".into(),
            lines: (1..=6).map(|i| format!("line {i}")).collect(),
            regions: vec![
                region(1, 2, commit("3f9a2c1d8e7b")),
                region(3, 3, step("a3e9b1c4-6d2f", Some("Fix the race"))),
                region(4, 4, BlameSource::Unknown),
                region(5, 5, step("c71d4e2a-9f08", None)),
                region(6, 6, step("a3e9b1c4-6d2f", Some("Fix the race"))),
            ],
            notes: Vec::new(),
        })
    }

    #[test]
    fn each_source_keeps_one_colour() {
        assert_eq!(
            source_colors(&blame().regions),
            [Some(0), Some(1), None, Some(2), Some(1)]
        );
        let plain = Theme::plain();
        assert_eq!(
            source_style(&plain, &BlameSource::Unknown, None),
            Style::new().add_modifier(Modifier::DIM)
        );
        let colored = Theme::default();
        assert_eq!(
            source_style(&colored, &commit("x"), Some(7)),
            Style::new().fg(Color::Green)
        );
    }

    #[test]
    fn gutter_labels_fit_their_width() {
        let t = Theme::plain();
        let fix = step("a3e9b1c4-6d2f", Some("Investigate cookie refresh race"));
        assert_eq!(gutter_label(&fix, 30, &t), "Investigate c... a3e9b1c4 Edit");
        assert_eq!(gutter_label(&fix, 14, &t), "Invest... Edit");
        assert_eq!(gutter_label(&fix, 8, &t), "a3e9b...");
        let anonymous = step("c71d4e2a-9f08", Some("  \n "));
        assert_eq!(gutter_label(&anonymous, 30, &t), "chat c71d4e2a Edit");
        let c = commit("3f9a2c1d8e7b6a5f");
        assert_eq!(gutter_label(&c, 30, &t), "commit 3f9a2c1 Ana Lima");
        assert_eq!(gutter_label(&c, 14, &t), "3f9a2c1 Ana...");
        assert_eq!(
            gutter_label(&BlameSource::Unknown, 14, &t),
            "(not recorded)"
        );
        assert_eq!(gutter_width(80), 30);
        assert_eq!(gutter_width(200), 32);
        assert_eq!(gutter_width(40), 14);
    }

    #[test]
    fn the_cursor_moves_and_enter_says_who_wrote_the_line() {
        let mut v = BlameView::new("web".into(), "a.ts".into());
        assert_eq!(v.on_command(Command::Open, 10), BlameOutcome::Handled);
        v.set(blame());
        assert_eq!(v.region_of(0).map(|(i, _)| i), Some(0));
        assert_eq!(v.region_of(5).map(|(i, _)| i), Some(4));
        assert!(v.region_of(6).is_none());
        let BlameOutcome::Notice(commit) = v.on_command(Command::Open, 10) else {
            panic!("a commit line is not a chat's");
        };
        assert_eq!(
            commit,
            "no chat wrote this line since commit 3f9a2c1 (Add cookie refresh, by Ana Lima)"
        );
        v.on_command(Command::Down, 10);
        v.on_command(Command::Down, 10);
        assert_eq!(v.cursor(), 2);
        assert_eq!(
            v.on_command(Command::Open, 10),
            BlameOutcome::OpenChat {
                project_slug: "web".into(),
                session_id: "a3e9b1c4-6d2f".into(),
            }
        );
        v.on_command(Command::Down, 10);
        assert!(matches!(
            v.on_command(Command::Open, 10),
            BlameOutcome::Notice(_)
        ));
        v.on_command(Command::PageDown, 10);
        assert_eq!(v.cursor(), 5);
        v.on_command(Command::PageUp, 4);
        assert_eq!(v.cursor(), 1);
        v.on_command(Command::Bottom, 10);
        assert_eq!(v.cursor(), 5);
        v.on_command(Command::Top, 10);
        assert_eq!(v.cursor(), 0);
        assert_eq!(v.on_command(Command::Back, 10), BlameOutcome::Closed);
        assert_eq!(v.on_command(Command::Quit, 10), BlameOutcome::Ignored);
        // A shorter file after a reload: the cursor stays on a line.
        v.on_command(Command::Bottom, 10);
        let mut short = blame();
        short.lines.truncate(2);
        v.set(short);
        assert_eq!(v.cursor(), 1);
        assert!(v.is_for("web", "a.ts"));
        assert!(!v.is_for("web", "b.ts"));
    }
}
