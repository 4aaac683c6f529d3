//! The Usage view (`$`): tokens, estimated cost and context-window use, in total, per project
//! and per chat (the costliest first), for the active, archived or all chats, or for one chat's
//! subtree. Computed from the chat list (`chat:list`, the daemon's index) as `paddock usage`
//! does ([`crate::format::usage_report`]): no transcript is read.
//!
//! `a` moves the scope (active, archived, all) and reads the list of that scope; `s` narrows to
//! the subtree of the chat under the cursor (the list of every chat is read, since a subtree
//! may reach into archived chats; the scope still filters the chats under the root), `s` again
//! widens back. `j`/`k` move over the chats, Enter opens one, `r` reads again, Esc closes.
//! While open, the view reads the list again when the daemon says chats changed.

use paddock_proto::{ChatList, ChatScope, ChatSummary};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::action::Action;
use super::fetch::{Answer, Fetch, taken};
use super::files_view::scroll_to;
use super::keys::{Command, Context, label_for, moved};
use super::overlay::{Cx, DrawCx, Layer, News, Overlay, Reaction};
use super::provenance_view::{fit, wrap_lines};
use super::theme::{Glyph, Mark, Role, Theme};
use crate::format::{UsageReport, project_label, subtree, tokens, usage_report, usd};

/// From this width the chat lines have the context column.
const CTX_WIDTH: usize = 60;
/// From this width, with chats of several projects, the chat lines name the project.
const PROJECT_WIDTH: usize = 76;
/// The columns of the numbers: chats, tokens, cost, context.
const CHATS: usize = 5;
const TOKENS: usize = 7;
const COST: usize = 8;
const CTX: usize = 4;
/// The project column of the chat lines.
const PROJECT: usize = 12;

/// Which chats are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UsageScope {
    #[default]
    Active,
    Archived,
    All,
}

impl UsageScope {
    /// Active, archived, all, active...
    pub fn next(self) -> Self {
        match self {
            UsageScope::Active => UsageScope::Archived,
            UsageScope::Archived => UsageScope::All,
            UsageScope::All => UsageScope::Active,
        }
    }

    pub fn to_proto(self) -> ChatScope {
        match self {
            UsageScope::Active => ChatScope::Active,
            UsageScope::Archived => ChatScope::Archived,
            UsageScope::All => ChatScope::All,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            UsageScope::Active => "active",
            UsageScope::Archived => "archived",
            UsageScope::All => "all",
        }
    }

    /// Whether a chat (archived or not) is in the scope.
    pub fn keeps(self, archived: bool) -> bool {
        match self {
            UsageScope::Active => !archived,
            UsageScope::Archived => archived,
            UsageScope::All => true,
        }
    }
}

/// The request for the chats of `scope`: every project's.
pub fn list_request(scope: UsageScope) -> ChatList {
    ChatList {
        project_slug: None,
        scope: scope.to_proto(),
        since: None,
        full_titles: false,
    }
}

/// What a command did to the view, for the dispatcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsageOutcome {
    /// Nothing to do outside the view; redraw.
    Handled,
    /// Read the chat list of this scope.
    Load(UsageScope),
    /// Open this chat.
    Open {
        project_slug: String,
        session_id: String,
        title: String,
    },
    /// The view closed.
    Closed,
    /// Not a Usage command: let the global keys have it.
    Ignored,
}

/// The chat whose subtree is counted.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Root {
    session_id: String,
    title: String,
}

/// The Usage view's state while it is open.
#[derive(Debug, Clone)]
pub struct UsageView {
    scope: UsageScope,
    root: Option<Root>,
    /// The list read (the scope's, or every chat for a subtree).
    asked: UsageScope,
    chats: Option<Vec<ChatSummary>>,
    error: Option<String>,
    /// An answer to `asked` is on its way (and nothing is shown yet).
    loading: bool,
    report: Option<UsageReport>,
    /// The cursor, as an index into the report's chats.
    cursor: usize,
    /// The first line drawn (kept by the render so the cursor stays in view).
    top: usize,
}

impl Default for UsageView {
    fn default() -> Self {
        Self::new()
    }
}

impl UsageView {
    /// The active chats, waiting for their list ([`UsageView::asked`]).
    pub fn new() -> Self {
        Self {
            scope: UsageScope::Active,
            root: None,
            asked: UsageScope::Active,
            chats: None,
            error: None,
            loading: true,
            report: None,
            cursor: 0,
            top: 0,
        }
    }

    /// The chats counted: active, archived or all.
    pub fn scope(&self) -> UsageScope {
        self.scope
    }

    /// The list the view reads.
    pub fn asked(&self) -> UsageScope {
        self.asked
    }

    /// The list awaited, if any (to ask again after a reconnect).
    pub fn pending(&self) -> Option<UsageScope> {
        self.loading.then_some(self.asked)
    }

    /// The session id whose subtree is counted.
    pub fn root(&self) -> Option<&str> {
        self.root.as_ref().map(|r| r.session_id.as_str())
    }

    pub fn report(&self) -> Option<&UsageReport> {
        self.report.as_ref()
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The chat under the cursor: its project, session id and title.
    pub fn cursor_chat(&self) -> Option<(&str, &str, &str)> {
        let line = self.report.as_ref()?.chats.get(self.cursor)?;
        Some((&line.project_slug, &line.session_id, &line.title))
    }

    /// The daemon's list for `asked`; dropped (false) when the view reads another since.
    pub fn answer(&mut self, asked: UsageScope, result: Result<Vec<ChatSummary>, String>) -> bool {
        if asked != self.asked {
            return false;
        }
        self.loading = false;
        match result {
            Ok(chats) => {
                let at = self.cursor_chat().map(|(_, sid, _)| sid.to_owned());
                self.chats = Some(chats);
                self.error = None;
                self.recompute(at.as_deref());
            }
            Err(reason) => {
                self.chats = None;
                self.report = None;
                self.error = Some(reason);
                self.cursor = 0;
                self.top = 0;
            }
        }
        true
    }

    /// Reads the list the scope and the subtree need: a new list to read, or the one there
    /// counted again.
    fn ask(&mut self) -> UsageOutcome {
        let want = if self.root.is_some() {
            UsageScope::All
        } else {
            self.scope
        };
        let at = self.cursor_chat().map(|(_, sid, _)| sid.to_owned());
        if want != self.asked || self.chats.is_none() {
            self.asked = want;
            self.chats = None;
            self.report = None;
            self.error = None;
            self.loading = true;
            self.cursor = 0;
            self.top = 0;
            return UsageOutcome::Load(want);
        }
        self.recompute(at.as_deref());
        UsageOutcome::Handled
    }

    /// Counts the chats read, keeping the cursor on the chat `at` when it is still there.
    fn recompute(&mut self, at: Option<&str>) {
        let Some(chats) = &self.chats else {
            self.report = None;
            return;
        };
        let scope = self.scope;
        let report = match &self.root {
            Some(root) => usage_report(
                subtree(chats, &root.session_id)
                    .into_iter()
                    .filter(|c| c.session_id == root.session_id || scope.keeps(c.archived)),
            ),
            None => usage_report(chats.iter().filter(|c| scope.keeps(c.archived))),
        };
        let found = at.and_then(|sid| report.chats.iter().position(|c| c.session_id == sid));
        self.cursor = found
            .unwrap_or(self.cursor)
            .min(report.chats.len().saturating_sub(1));
        self.report = Some(report);
    }

    fn move_by(&mut self, delta: isize) {
        let len = self.report.as_ref().map_or(0, |r| r.chats.len());
        self.cursor = moved(self.cursor, delta, len);
    }

    /// A command while the view has the keyboard; `page` is how many rows a page moves.
    pub fn on_command(&mut self, command: Command, page: usize) -> UsageOutcome {
        if let Some(delta) = command.motion(page) {
            self.move_by(delta);
            return UsageOutcome::Handled;
        }
        match command {
            Command::Open => {
                let Some((project_slug, session_id, title)) = self.cursor_chat() else {
                    return UsageOutcome::Handled;
                };
                UsageOutcome::Open {
                    project_slug: project_slug.to_owned(),
                    session_id: session_id.to_owned(),
                    title: title.to_owned(),
                }
            }
            Command::CycleScope => {
                self.scope = self.scope.next();
                self.ask()
            }
            Command::Subtree => {
                if self.root.take().is_none() {
                    let Some((_, session_id, title)) = self.cursor_chat() else {
                        return UsageOutcome::Handled;
                    };
                    self.root = Some(Root {
                        session_id: session_id.to_owned(),
                        title: title.to_owned(),
                    });
                }
                self.ask()
            }
            Command::Refresh => {
                self.loading = self.chats.is_none();
                self.error = None;
                UsageOutcome::Load(self.asked)
            }
            Command::Back | Command::Usage => UsageOutcome::Closed,
            _ => UsageOutcome::Ignored,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------------

/// Draws the view into `area`: its title, then the totals, the projects and the chats (or
impl Overlay for UsageView {
    fn layer(&self) -> Layer {
        Layer::Usage
    }

    fn context(&self) -> Context {
        Context::Usage
    }

    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction {
        match UsageView::on_command(self, command, cx.page) {
            UsageOutcome::Handled => Reaction::Handled,
            UsageOutcome::Load(scope) => Reaction::Ask(Action::LoadUsage(scope)),
            UsageOutcome::Open {
                project_slug,
                session_id,
                title,
            } => Reaction::show_chat(project_slug, session_id, title),
            UsageOutcome::Closed => Reaction::Close,
            UsageOutcome::Ignored => Reaction::Pass(command),
        }
    }

    fn render(&mut self, frame: &mut Frame<'_>, area: Rect, cx: &DrawCx<'_>) {
        render_usage(self, cx.theme, frame, area);
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("j/k", "chats"),
            ("enter", "open"),
            ("a", "scope"),
            ("s", "subtree"),
            ("esc", "close"),
            ("?", "keys"),
        ]
    }

    fn on_reply(&mut self, fetch: &Fetch, answer: &Answer, _: &mut Cx<'_>) -> bool {
        let Fetch::Usage(scope) = fetch else {
            return false;
        };
        let chats = match answer {
            Answer::Chats(result) => taken(result, |c| c.chats.clone()),
            _ => return false,
        };
        self.answer(*scope, chats);
        true
    }

    fn on_news(&self, news: News<'_>, cx: &mut Cx<'_>) {
        if matches!(news, News::Reconnected | News::ChatsChanged { .. }) {
            cx.fetch(Fetch::Usage(self.asked()));
        }
    }
}

/// what it waits for). Moves the view's first line so the cursor's chat shows.
pub fn render_usage(view: &mut UsageView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let width = usize::from(area.width);
    let (title_row, body) = crate::tui::areas::title_and_body(area);
    render_title(view, theme, frame, title_row);
    if body.height == 0 {
        return;
    }
    let (lines, cursor) = body_lines(view, theme, width);
    let height = usize::from(body.height);
    view.top = scroll_to(view.top, cursor.map(|c| (c, c + 1)), lines.len(), height);
    let shown: Vec<Line<'static>> = lines.into_iter().skip(view.top).take(height).collect();
    frame.render_widget(Paragraph::new(shown), body);
}

/// ` Usage · active chats` (or the subtree's root), and the scope key at the right.
fn render_title(view: &UsageView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let width = usize::from(area.width);
    let dot = theme.glyph(Glyph::Dot);
    let what = match &view.root {
        Some(root) => format!(
            " {dot} subtree of {} ({})",
            clean(&root.title),
            view.scope.word()
        ),
        None => format!(" {dot} {} chats", view.scope.word()),
    };
    let key = label_for(Context::Usage, Command::CycleScope).unwrap_or("a");
    let right = Line::from(vec![
        Span::styled(key.to_owned(), Style::new().add_modifier(Modifier::BOLD)),
        Span::styled(
            format!(" {} ", view.scope.next().word()),
            theme.style(Role::Dim),
        ),
    ]);
    let head = Span::styled(" Usage", theme.style(Role::Accent));
    let room = width.saturating_sub(head.width() + right.width() + 1);
    let show_right = room >= 12;
    let room = if show_right {
        room
    } else {
        width.saturating_sub(head.width())
    };
    let left = Line::from(vec![
        head,
        Span::styled(fit(&what, room, theme), theme.style(Role::Normal)),
    ]);
    if show_right {
        frame.render_widget(right.right_aligned(), area);
    }
    frame.render_widget(left, area);
}

/// A title on one line.
fn clean(title: &str) -> String {
    crate::format::clean_title(title)
}

/// `text` cut to `cols` columns and padded to them.
fn cell(text: &str, cols: usize, theme: &Theme) -> String {
    let text = fit(text, cols, theme);
    let pad = cols.saturating_sub(text.width());
    format!("{text}{}", " ".repeat(pad))
}

/// The lines under the title, and which one the cursor is on.
fn body_lines(
    view: &UsageView,
    theme: &Theme,
    width: usize,
) -> (Vec<Line<'static>>, Option<usize>) {
    if let Some(reason) = &view.error {
        return (wrap_lines(error_lines(reason, theme), width), None);
    }
    let Some(report) = &view.report else {
        let ellipsis = theme.glyph(Glyph::Ellipsis);
        return (
            vec![Line::styled(
                format!(" Reading the chat list{ellipsis}"),
                theme.style(Role::Dim),
            )],
            None,
        );
    };
    let mut head = total_lines(report, theme);
    if report.chats.is_empty() {
        head.extend(no_chats_lines(view, theme));
        return (wrap_lines(head, width), None);
    }
    let mut lines = wrap_lines(head, width);
    lines.push(Line::default());
    lines.extend(project_lines(report, theme, width));
    lines.push(Line::default());
    let first_chat = lines.len() + 1;
    lines.extend(chat_lines(view, report, theme, width));
    (lines, Some(first_chat + view.cursor))
}

/// Why usage could not be read, and the key that tries again.
fn error_lines(reason: &str, theme: &Theme) -> Vec<Line<'static>> {
    let key = label_for(Context::Usage, Command::Refresh).unwrap_or("r");
    vec![
        Line::styled(
            format!(" Usage could not be read: {reason}"),
            theme.style(Role::Error),
        ),
        Line::default(),
        Line::styled(format!(" {key} tries again."), theme.style(Role::Dim)),
    ]
}

/// The totals: chats, tokens and cost, then the tokens by kind.
fn total_lines(report: &UsageReport, theme: &Theme) -> Vec<Line<'static>> {
    let dim = theme.style(Role::Dim);
    let dot = format!(" {} ", theme.glyph(Glyph::Dot));
    let t = &report.total;
    vec![
        Line::from(vec![
            Span::raw(format!(
                " {} chat{} ({} with usage){dot}",
                t.chats,
                if t.chats == 1 { "" } else { "s" },
                t.measured
            )),
            Span::styled(
                format!("{} tokens", tokens(t.tokens())),
                Style::new().add_modifier(Modifier::BOLD),
            ),
            Span::raw(dot.clone()),
            Span::styled(
                format!("about {}", usd(t.cost_usd)),
                Style::new().add_modifier(Modifier::BOLD),
            ),
        ]),
        Line::styled(
            format!(
                " in {}{dot}out {}{dot}cache read {}{dot}cache write {}",
                tokens(t.input_tokens),
                tokens(t.output_tokens),
                tokens(t.cache_read_tokens),
                tokens(t.cache_creation_tokens)
            ),
            dim,
        ),
    ]
}

/// What the view says under the totals when no chat is listed: the subtree's root is gone, or
/// the scope has no chats (and the key that moves it).
fn no_chats_lines(view: &UsageView, theme: &Theme) -> Vec<Line<'static>> {
    if view.root.is_some() {
        return vec![
            Line::default(),
            Line::styled(
                " That chat is not listed any more.",
                theme.style(Role::Warning),
            ),
        ];
    }
    let key = label_for(Context::Usage, Command::CycleScope).unwrap_or("a");
    vec![
        Line::default(),
        Line::styled(
            format!(" No {} chats.", view.scope.word()),
            theme.style(Role::Normal),
        ),
        Line::styled(
            format!(" {key} counts active, archived or all chats."),
            theme.style(Role::Dim),
        ),
    ]
}

/// The projects, the costliest first, under a heading; their numbers in the columns of the
/// chats' (and a blank where the chats have their context use).
fn project_lines(report: &UsageReport, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let heading = Style::new().add_modifier(Modifier::BOLD);
    let tail = if width >= CTX_WIDTH { 1 + CTX } else { 0 };
    // The numbers, a space before each, the context column, and a column of margin.
    let room = width.saturating_sub(2 + CHATS + 1 + TOKENS + 1 + COST + tail + 1);
    let mut lines = vec![Line::styled(
        format!(
            " {} {:>CHATS$} {:>TOKENS$} {:>COST$}",
            cell("PROJECT", room, theme),
            "CHATS",
            "TOKENS",
            "COST"
        ),
        heading,
    )];
    let mut projects: Vec<_> = report.projects.iter().collect();
    projects.sort_by(|a, b| b.1.cost_usd.total_cmp(&a.1.cost_usd).then(a.0.cmp(b.0)));
    for (slug, p) in projects {
        lines.push(Line::raw(format!(
            " {} {:>CHATS$} {:>TOKENS$} {:>COST$}",
            cell(&project_label(slug), room, theme),
            p.chats,
            tokens(p.tokens()),
            usd(p.cost_usd)
        )));
    }
    lines
}

/// The chats, the costliest first, under a heading; the cursor's line marked.
fn chat_lines(
    view: &UsageView,
    report: &UsageReport,
    theme: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let ctx = width >= CTX_WIDTH;
    let project = width >= PROJECT_WIDTH && report.projects.len() > 1;
    let numbers = 1 + TOKENS + 1 + COST + if ctx { 1 + CTX } else { 0 };
    let project_cols = if project { PROJECT + 1 } else { 0 };
    // The cursor column, the numbers, a column of margin.
    let room = width.saturating_sub(1 + project_cols + numbers + 1);
    let mut head = format!(" {}", cell("CHAT", room, theme));
    if project {
        head = format!(
            " {} {}",
            cell("PROJECT", PROJECT, theme),
            cell("CHAT", room, theme)
        );
    }
    head.push_str(&format!(" {:>TOKENS$} {:>COST$}", "TOKENS", "COST"));
    if ctx {
        head.push_str(&format!(" {:>CTX$}", "CTX"));
    }
    let mut lines = vec![Line::styled(
        head,
        Style::new().add_modifier(Modifier::BOLD),
    )];
    let cursor_mark = theme.mark(Mark::Cursor);
    for (i, c) in report.chats.iter().enumerate() {
        let at_cursor = i == view.cursor;
        let mut spans = vec![Span::raw(if at_cursor { cursor_mark } else { " " })];
        if project {
            spans.push(Span::styled(
                format!("{} ", cell(&project_label(&c.project_slug), PROJECT, theme)),
                theme.style(Role::Dim),
            ));
        }
        let title_style = if c.archived {
            theme.style(Role::Dim)
        } else {
            theme.style(Role::Normal)
        };
        if c.fork {
            // The fork's mark before its title, in the title's column.
            let mark = theme.fork_badge(true);
            let inner = room.saturating_sub(mark.content.width() + 1);
            spans.push(mark);
            spans.push(Span::styled(
                format!(" {}", cell(&c.title, inner, theme)),
                title_style,
            ));
        } else {
            spans.push(Span::styled(cell(&c.title, room, theme), title_style));
        }
        spans.push(Span::raw(format!(
            " {:>TOKENS$} {:>COST$}",
            tokens(c.tokens),
            usd(c.cost_usd)
        )));
        if ctx {
            let (text, role) = match c.context_percent {
                None => ("-".to_owned(), Role::Dim),
                Some(p) if p >= 90 => (format!("{p}%"), Role::Error),
                Some(p) if p >= 75 => (format!("{p}%"), Role::Warning),
                Some(p) => (format!("{p}%"), Role::Normal),
            };
            spans.push(Span::styled(format!(" {text:>CTX$}"), theme.style(role)));
        }
        let line = Line::from(spans);
        lines.push(if at_cursor {
            line.style(theme.style(Role::Selected))
        } else {
            line
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::ChatUsage;

    fn chat(id: &str, parent: Option<&str>, archived: bool, cost: f64) -> ChatSummary {
        ChatSummary {
            session_id: id.into(),
            project_slug: "web".into(),
            title: format!("chat {id}"),
            tree_parent: parent.map(str::to_owned),
            archived,
            usage: Some(ChatUsage {
                input_tokens: 1_000,
                cost_usd: cost,
                ..ChatUsage::default()
            }),
            ..ChatSummary::default()
        }
    }

    #[test]
    fn scopes_cycle_and_ask_for_their_list() {
        let mut v = UsageView::new();
        assert_eq!(v.pending(), Some(UsageScope::Active));
        assert_eq!(list_request(v.asked()).scope, ChatScope::Active);
        assert!(v.answer(UsageScope::Active, Ok(vec![chat("a", None, false, 1.0)])));
        assert_eq!(v.pending(), None);
        let asked: Vec<UsageOutcome> = (0..3)
            .map(|_| v.on_command(Command::CycleScope, 10))
            .collect();
        assert_eq!(
            asked,
            [
                UsageOutcome::Load(UsageScope::Archived),
                UsageOutcome::Load(UsageScope::All),
                UsageOutcome::Load(UsageScope::Active),
            ]
        );
        // Answers to a list no longer wanted are dropped.
        assert!(!v.answer(UsageScope::Archived, Ok(Vec::new())));
        assert!(v.answer(UsageScope::Active, Ok(Vec::new())));
        assert_eq!(list_request(UsageScope::All).project_slug, None);
    }

    #[test]
    fn a_subtree_reads_every_chat_and_keeps_the_scope_under_its_root() {
        let mut v = UsageView::new();
        v.answer(
            UsageScope::Active,
            Ok(vec![
                chat("root", None, false, 3.0),
                chat("kid", Some("root"), false, 1.0),
                chat("other", None, false, 0.5),
            ]),
        );
        assert_eq!(
            v.cursor_chat().map(|c| c.1),
            Some("root"),
            "costliest first"
        );
        assert_eq!(
            v.on_command(Command::Subtree, 10),
            UsageOutcome::Load(UsageScope::All)
        );
        assert_eq!(v.root(), Some("root"));
        v.answer(
            UsageScope::All,
            Ok(vec![
                chat("root", None, false, 3.0),
                chat("kid", Some("root"), false, 1.0),
                chat("old", Some("root"), true, 2.0),
                chat("other", None, false, 0.5),
            ]),
        );
        let ids = |v: &UsageView| -> Vec<String> {
            v.report()
                .map(|r| r.chats.iter().map(|c| c.session_id.clone()).collect())
                .unwrap_or_default()
        };
        assert_eq!(ids(&v), ["root", "kid"], "active only under the root");
        // Archived: the root stays, the archived chat under it counts; no new list needed.
        v.on_command(Command::CycleScope, 10);
        assert_eq!(ids(&v), ["root", "old"]);
        assert_eq!(
            v.on_command(Command::Subtree, 10),
            UsageOutcome::Load(UsageScope::Archived),
            "back to the whole scope"
        );
        assert_eq!(v.root(), None);
    }

    #[test]
    fn enter_opens_and_esc_closes() {
        let mut v = UsageView::new();
        v.answer(
            UsageScope::Active,
            Ok(vec![
                chat("a", None, false, 1.0),
                chat("b", None, false, 2.0),
            ]),
        );
        v.on_command(Command::Down, 10);
        assert_eq!(
            v.on_command(Command::Open, 10),
            UsageOutcome::Open {
                project_slug: "web".into(),
                session_id: "a".into(),
                title: "chat a".into(),
            }
        );
        v.on_command(Command::Bottom, 10);
        v.on_command(Command::Down, 10);
        assert_eq!(v.cursor_chat().map(|c| c.1), Some("a"), "stops at the end");
        assert_eq!(v.on_command(Command::Back, 10), UsageOutcome::Closed);
        assert_eq!(v.on_command(Command::Mark, 10), UsageOutcome::Ignored);
        assert_eq!(
            v.on_command(Command::Refresh, 10),
            UsageOutcome::Load(UsageScope::Active)
        );
        assert_eq!(v.pending(), None, "a refresh keeps what is shown");
        v.answer(UsageScope::Active, Err("gone".into()));
        assert_eq!(v.error(), Some("gone"));
    }
}
