//! The Home view (`O`): a project at a glance, from `project:overview` — its counts of chats,
//! running and unread ones, then its chats that run now or are unread (from the tree, so they
//! follow the daemon's news), then OVERVIEW.md and CHANGELOG.md (newest entries first) as the
//! sweeper last curated them, and when it did.
//!
//! `j`/`k` move over the running and unread chats (Enter opens one); `Ctrl-D`/`Ctrl-U` (and
//! `PgDn`/`PgUp`) scroll the page, `g`/`G` go to its top and bottom; with no chat listed `j`/`k`
//! scroll a line. `r` reads again; the loop also reads again when the project's chats change.
//! An answer for another project than the one shown is dropped; a failed one is shown in the
//! view (the chats listed from the tree still show).

use paddock_proto::{ChatSummary, ProjectOverview};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::action::Action;
use super::fetch::{Answer, Fetch, taken};
use super::files_view::scroll_to;
use super::keys::{Command, Context, label_for};
use super::overlay::{Cx, DrawCx, Layer, News, Overlay, Reaction};
use super::provenance_view::{fit, wrap_lines};
use super::theme::{Glyph, Mark, Role, Theme};
use crate::format::{clean_title, project_label, short_time};

/// What a command did to the view, for the dispatcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HomeOutcome {
    /// Nothing to do outside the view; redraw.
    Handled,
    /// Read the project's overview (again).
    Load(String),
    /// Open this chat.
    Open {
        project_slug: String,
        session_id: String,
        title: String,
    },
    /// The view closed.
    Closed,
    /// Not a Home command: let the global keys have it.
    Ignored,
}

/// The project's chats listed on top: running first, then unread, each in the tree's order.
pub fn listed(chats: &[ChatSummary]) -> Vec<&ChatSummary> {
    let running = chats.iter().filter(|c| c.running && !c.archived);
    let unread = chats
        .iter()
        .filter(|c| !c.running && c.unread && !c.archived);
    running.chain(unread).collect()
}

/// The Home view's state while it is open.
#[derive(Debug, Clone)]
pub struct HomeView {
    slug: String,
    overview: Option<Box<ProjectOverview>>,
    error: Option<String>,
    /// An answer is awaited.
    loading: bool,
    /// The cursor, as an index into [`listed`].
    cursor: usize,
    /// The first line drawn.
    top: usize,
    /// Whether the drawing keeps the cursor's chat in view (not after the page was scrolled).
    follow: bool,
    /// The time to show times against; `None`: the local clock. Tests pin it.
    clock: Option<chrono::DateTime<chrono::FixedOffset>>,
}

impl HomeView {
    /// The Home of `slug`, waiting for its overview.
    pub fn new(slug: String) -> Self {
        Self {
            slug,
            overview: None,
            error: None,
            loading: true,
            cursor: 0,
            top: 0,
            follow: true,
            clock: None,
        }
    }

    /// The project shown.
    pub fn slug(&self) -> &str {
        &self.slug
    }

    pub fn overview(&self) -> Option<&ProjectOverview> {
        self.overview.as_deref()
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The first line drawn.
    pub fn top(&self) -> usize {
        self.top
    }

    pub fn set_clock(&mut self, now: Option<chrono::DateTime<chrono::FixedOffset>>) {
        self.clock = now;
    }

    /// The daemon's overview of `slug`; dropped (false) when the view shows another project.
    pub fn answer(&mut self, slug: &str, result: Result<Box<ProjectOverview>, String>) -> bool {
        if slug != self.slug {
            return false;
        }
        self.loading = false;
        match result {
            Ok(overview) => {
                self.overview = Some(overview);
                self.error = None;
            }
            Err(reason) => self.error = Some(reason),
        }
        true
    }

    fn scroll(&mut self, delta: isize) {
        self.follow = false;
        // The drawing keeps it within the page.
        self.top = self.top.saturating_add_signed(delta);
    }

    /// A command while the view has the keyboard; `chats` is the project's chats in the tree,
    /// `page` how many rows a page scrolls.
    pub fn on_command(
        &mut self,
        command: Command,
        page: usize,
        chats: &[ChatSummary],
    ) -> HomeOutcome {
        let listed = listed(chats);
        let page = isize::try_from(page.max(1)).unwrap_or(isize::MAX);
        let last = listed.len().saturating_sub(1);
        match command {
            Command::Down | Command::Up if listed.is_empty() => {
                self.scroll(if command == Command::Down { 1 } else { -1 });
            }
            Command::Down => {
                self.follow = true;
                self.cursor = (self.cursor + 1).min(last);
            }
            Command::Up => {
                self.follow = true;
                self.cursor = self.cursor.min(last).saturating_sub(1);
            }
            Command::PageDown => self.scroll(page),
            Command::PageUp => self.scroll(-page),
            Command::Top => {
                self.follow = false;
                self.top = 0;
            }
            Command::Bottom => self.scroll(isize::MAX),
            Command::Open => {
                let Some(chat) = listed.get(self.cursor.min(last)) else {
                    return HomeOutcome::Handled;
                };
                return HomeOutcome::Open {
                    project_slug: chat.project_slug.clone(),
                    session_id: chat.session_id.clone(),
                    title: chat.title.clone(),
                };
            }
            Command::Refresh => {
                self.error = None;
                self.loading = self.overview.is_none();
                return HomeOutcome::Load(self.slug.clone());
            }
            Command::Back | Command::Home => return HomeOutcome::Closed,
            _ => return HomeOutcome::Ignored,
        }
        HomeOutcome::Handled
    }
}

impl Overlay for HomeView {
    fn layer(&self) -> Layer {
        Layer::Home
    }

    fn context(&self) -> Context {
        Context::Home
    }

    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction {
        let chats = cx.tree.project_chats(&self.slug);
        match HomeView::on_command(self, command, cx.page, chats) {
            HomeOutcome::Handled => Reaction::Handled,
            HomeOutcome::Load(slug) => Reaction::Ask(Action::LoadOverview(slug)),
            HomeOutcome::Open {
                project_slug,
                session_id,
                title,
            } => Reaction::show_chat(project_slug, session_id, title),
            HomeOutcome::Closed => Reaction::Close,
            HomeOutcome::Ignored => Reaction::Pass(command),
        }
    }

    fn render(&mut self, frame: &mut Frame<'_>, area: Rect, cx: &DrawCx<'_>) {
        let chats = cx.tree.project_chats(&self.slug);
        render_home(self, chats, cx.theme, cx.tick, frame, area);
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("j/k", "chats"),
            ("enter", "open"),
            ("ctrl-d/u", "scroll"),
            ("r", "reload"),
            ("esc", "close"),
            ("?", "keys"),
        ]
    }

    fn on_reply(&mut self, fetch: &Fetch, answer: &Answer, _: &mut Cx<'_>) -> bool {
        let Fetch::Overview(slug) = fetch else {
            return false;
        };
        let overview = match answer {
            Answer::Overview(result) => taken(result, |o| o.clone()),
            _ => return false,
        };
        self.answer(slug, overview);
        true
    }

    fn on_news(&self, news: News<'_>, cx: &mut Cx<'_>) {
        let again = match news {
            News::Reconnected => true,
            News::ChatsChanged { project_slug } | News::Active { project_slug, .. } => {
                project_slug == self.slug
            }
            _ => false,
        };
        if again {
            cx.fetch(Fetch::Overview(self.slug.clone()));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------------

/// Draws the view into `area`: its title, then the page (counts, chats, overview, changelog).
/// `chats` is the project's chats in the tree; `tick` steps the running spinner.
pub fn render_home(
    view: &mut HomeView,
    chats: &[ChatSummary],
    theme: &Theme,
    tick: u64,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let width = usize::from(area.width);
    let (title_row, body) = crate::tui::areas::title_and_body(area);
    render_title(view, theme, frame, title_row);
    if body.height == 0 {
        return;
    }
    let (lines, cursor) = page_lines(view, chats, theme, tick, width);
    let height = usize::from(body.height);
    let cursor = cursor.filter(|_| view.follow).map(|c| (c, c + 1));
    view.top = scroll_to(view.top, cursor, lines.len(), height);
    let shown: Vec<Line<'static>> = lines.into_iter().skip(view.top).take(height).collect();
    frame.render_widget(Paragraph::new(shown), body);
}

/// ` Home · webapp`, and when the sweeper last curated it at the right.
fn render_title(view: &HomeView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let width = usize::from(area.width);
    let dot = theme.glyph(Glyph::Dot);
    let head = Span::styled(" Home", theme.style(Role::Accent));
    let right = view.overview.as_ref().and_then(|o| {
        let at = o.swept_at.as_deref()?;
        let now = view
            .clock
            .unwrap_or_else(|| chrono::Local::now().fixed_offset());
        // A failed sweep is not a curation: say so (the reason is in the body).
        Some(if o.sweep_error.is_some() {
            Line::styled(
                format!("sweep failed {} ", short_time(at, &now)),
                theme.style(Role::Error),
            )
        } else {
            Line::styled(
                format!("swept {} ", short_time(at, &now)),
                theme.style(Role::Dim),
            )
        })
    });
    let what = format!(" {dot} {}", project_title(view));
    let right_width = right.as_ref().map_or(0, Line::width);
    let room = width.saturating_sub(5 + right_width + 1);
    let show_right = right.is_some() && room >= 12;
    let room = if show_right {
        room
    } else {
        width.saturating_sub(5)
    };
    if let Some(right) = right.filter(|_| show_right) {
        frame.render_widget(right.right_aligned(), area);
    }
    frame.render_widget(
        Line::from(vec![
            head,
            Span::styled(fit(&what, room, theme), theme.style(Role::Normal)),
        ]),
        area,
    );
}

/// The project's name when it has one, its slug otherwise.
fn project_title(view: &HomeView) -> String {
    match view
        .overview
        .as_ref()
        .and_then(|o| o.project.name.as_deref())
    {
        Some(name) if !name.trim().is_empty() => clean_title(name),
        _ => project_label(&view.slug).into_owned(),
    }
}

fn heading(text: &str, theme: &Theme) -> Line<'static> {
    Line::styled(
        format!(" {text}"),
        theme.style(Role::Accent).add_modifier(Modifier::BOLD),
    )
}

/// A curated file's lines: Markdown headings bold, the rest as written.
fn file_lines(text: &str, theme: &Theme) -> Vec<Line<'static>> {
    text.trim_end()
        .lines()
        .map(|line| {
            let line = line.replace('\t', "    ");
            if line.starts_with('#') {
                Line::styled(
                    format!(" {line}"),
                    Style::new().add_modifier(Modifier::BOLD),
                )
            } else {
                Line::styled(format!(" {line}"), theme.style(Role::Normal))
            }
        })
        .collect()
}

/// The page under the title, and the line of the cursor's chat.
fn page_lines(
    view: &HomeView,
    chats: &[ChatSummary],
    theme: &Theme,
    tick: u64,
    width: usize,
) -> (Vec<Line<'static>>, Option<usize>) {
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    let mut lines = Vec::new();
    match &view.overview {
        Some(o) => lines.extend(count_lines(o, theme)),
        None if view.error.is_none() => lines.push(Line::styled(
            format!(" Reading the project's overview{ellipsis}"),
            theme.style(Role::Dim),
        )),
        None => {}
    }
    if let Some(reason) = &view.error {
        let key = label_for(Context::Home, Command::Refresh).unwrap_or("r");
        lines.push(Line::styled(
            format!(" The overview could not be read: {reason} ({key} tries again)"),
            theme.style(Role::Error),
        ));
    }
    // The chats that run now or are unread.
    let listed = listed(chats);
    let mut cursor = None;
    if !listed.is_empty() {
        lines.push(Line::default());
        lines.push(heading("Running and unread", theme));
        let at = view.cursor.min(listed.len() - 1);
        for (i, chat) in listed.iter().enumerate() {
            if i == at {
                cursor = Some(lines.len());
            }
            lines.push(chat_line(chat, i == at, theme, tick, width));
        }
    }
    let Some(o) = &view.overview else {
        return (wrap_lines(lines, width), cursor);
    };
    lines.extend(file_section(
        "Overview",
        o.overview.as_deref(),
        o.overview_truncated
            .then_some("(cut: OVERVIEW.md is longer)"),
        " No OVERVIEW.md yet: the sweeper writes it after a chat's turn.",
        theme,
    ));
    lines.extend(file_section(
        "Recent changes",
        o.changelog.as_deref(),
        o.changelog_truncated
            .then_some("(older entries are in CHANGELOG.md)"),
        " No CHANGELOG.md yet.",
        theme,
    ));
    // Wrapping moves the cursor's line down by the wrapped lines above it.
    let (lines, cursor) = wrap_keeping(lines, cursor, width);
    (lines, cursor)
}

/// The project's summary, its counts of chats, running and unread ones, and a failed sweep.
fn count_lines(o: &ProjectOverview, theme: &Theme) -> Vec<Line<'static>> {
    let dot = format!(" {} ", theme.glyph(Glyph::Dot));
    let mut lines = Vec::new();
    if let Some(summary) = o
        .project
        .summary
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        lines.push(Line::styled(
            format!(" {}", summary.trim()),
            theme.style(Role::Normal),
        ));
    }
    lines.push(Line::styled(
        format!(
            " {} chat{}{dot}{} running{dot}{} unread",
            o.chats,
            if o.chats == 1 { "" } else { "s" },
            o.running,
            o.unread
        ),
        theme.style(Role::Normal),
    ));
    if let Some(why) = &o.sweep_error {
        lines.push(Line::styled(
            format!(" {} The last sweep failed: {why}", theme.mark(Mark::Failed)),
            theme.style(Role::Error),
        ));
    }
    lines
}

/// One running or unread chat's line: its spinner or unread mark and its title, marked when
/// it is under the cursor.
fn chat_line(
    chat: &ChatSummary,
    at_cursor: bool,
    theme: &Theme,
    tick: u64,
    width: usize,
) -> Line<'static> {
    let (glyph, role) = if chat.running {
        (theme.spinner(tick), Role::Running)
    } else {
        (theme.mark(Mark::Unread), Role::Unread)
    };
    let title = fit(&clean_title(&chat.title), width.saturating_sub(5), theme);
    let title_style = if chat.unread {
        Style::new().add_modifier(Modifier::BOLD)
    } else {
        theme.style(Role::Normal)
    };
    let mark = theme.mark(Mark::Cursor);
    let line = Line::from(vec![
        Span::raw(if at_cursor { mark } else { " " }),
        Span::styled(glyph, theme.style(role)),
        Span::raw(" "),
        Span::styled(title, title_style),
    ]);
    if at_cursor {
        line.style(theme.style(Role::Selected))
    } else {
        line
    }
}

/// A blank line and a heading over a curated file's lines, with a note when the file was cut,
/// or the `missing` line when there is no text.
fn file_section(
    title: &str,
    text: Option<&str>,
    cut_note: Option<&str>,
    missing: &'static str,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let dim = theme.style(Role::Dim);
    let mut lines = vec![Line::default(), heading(title, theme)];
    match text {
        Some(text) if !text.trim().is_empty() => {
            lines.extend(file_lines(text, theme));
            if let Some(note) = cut_note {
                let ellipsis = theme.glyph(Glyph::Ellipsis);
                lines.push(Line::styled(format!(" {ellipsis} {note}"), dim));
            }
        }
        _ => lines.push(Line::styled(missing, dim)),
    }
    lines
}

/// Wraps `lines` at `width`, and says where line `at` went.
fn wrap_keeping(
    lines: Vec<Line<'static>>,
    at: Option<usize>,
    width: usize,
) -> (Vec<Line<'static>>, Option<usize>) {
    let mut out = Vec::new();
    let mut moved = None;
    for (i, line) in lines.into_iter().enumerate() {
        if Some(i) == at {
            moved = Some(out.len());
        }
        out.extend(wrap_lines(vec![line], width));
    }
    (out, moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(id: &str, running: bool, unread: bool) -> ChatSummary {
        ChatSummary {
            session_id: id.into(),
            project_slug: "web".into(),
            title: format!("chat {id}"),
            running,
            unread,
            ..ChatSummary::default()
        }
    }

    #[test]
    fn running_then_unread_and_enter_opens() {
        let chats = vec![
            chat("a", false, true),
            chat("b", false, false),
            chat("c", true, false),
        ];
        let ids: Vec<&str> = listed(&chats)
            .iter()
            .map(|c| c.session_id.as_str())
            .collect();
        assert_eq!(ids, ["c", "a"]);
        let mut v = HomeView::new("web".into());
        v.on_command(Command::Down, 10, &chats);
        v.on_command(Command::Down, 10, &chats);
        assert_eq!(
            v.on_command(Command::Open, 10, &chats),
            HomeOutcome::Open {
                project_slug: "web".into(),
                session_id: "a".into(),
                title: "chat a".into(),
            }
        );
        assert_eq!(v.on_command(Command::Back, 10, &chats), HomeOutcome::Closed);
        assert_eq!(
            v.on_command(Command::Refresh, 10, &chats),
            HomeOutcome::Load("web".into())
        );
        assert_eq!(
            v.on_command(Command::Mark, 10, &chats),
            HomeOutcome::Ignored
        );
    }

    #[test]
    fn another_projects_answer_is_dropped() {
        let mut v = HomeView::new("web".into());
        assert!(!v.answer("infra", Err("no".into())));
        assert!(v.error().is_none());
        assert!(v.answer("web", Err("not implemented yet".into())));
        assert_eq!(v.error(), Some("not implemented yet"));
        assert!(v.answer("web", Ok(Box::default())));
        assert!(v.error().is_none());
    }

    #[test]
    fn without_chats_j_and_k_scroll() {
        let mut v = HomeView::new("web".into());
        v.on_command(Command::Down, 10, &[]);
        v.on_command(Command::Down, 10, &[]);
        assert_eq!(v.top(), 2);
        v.on_command(Command::Up, 10, &[]);
        assert_eq!(v.top(), 1);
        v.on_command(Command::Top, 10, &[]);
        assert_eq!(v.top(), 0);
    }
}
