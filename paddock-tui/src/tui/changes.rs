//! The Changes view (`D`): a project's git status scoped to a chat, the chat and every chat
//! under it (its subtree), or the whole project, with the diff of the file under the cursor
//! below. `s` cycles the scope, `p` (or Enter) opens the file's provenance panel, `c` commits
//! the scope's files after asking for a message on a line at the bottom, `P` pushes the
//! project's branch to its upstream (the status line says `pushing…`, then what it did).
//!
//! The scope's files are those the chats' steps wrote (file provenance); `git:status` counts
//! the other changed files of the project as `hidden`, and the view says so.

use paddock_proto::{GitDiff, GitFile, GitScope, GitStatus};
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::action::Action;
use super::chat_view::clean;
use super::fetch::{Answer, Fetch, taken};
use super::keys::{self, Command, Context};
use super::overlay::{Cx, DrawCx, Layer, News, Overlay, Reaction};
use super::provenance_view::{
    PANEL_HINTS, ProvenanceView, fit, on_panel_command, panel_reply, render_provenance, wrap_lines,
};
use super::theme::{Glyph, Mark, Role, Theme};

/// Which changes the view lists: a chat's, a chat's subtree's, or the project's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Scope {
    Chat(String),
    Subtree(String),
    Project,
}

impl Scope {
    /// The wire form.
    pub fn to_git(&self) -> GitScope {
        match self {
            Scope::Chat(sid) => GitScope::Chat {
                session_id: sid.clone(),
            },
            Scope::Subtree(sid) => GitScope::Subtree {
                session_id: sid.clone(),
            },
            Scope::Project => GitScope::Project,
        }
    }
}

/// What a command did to the view, for the dispatcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangesOutcome {
    /// Nothing to do outside the view; redraw.
    Handled,
    /// Read the status again (the scope changed).
    LoadStatus,
    /// Read the diff of this file.
    LoadDiff(String),
    /// The provenance panel opened for this file: read it.
    LoadProvenance(String),
    /// `P`: push the project's branch (none is under way).
    Push,
    /// The view closed.
    Closed,
    /// Not a Changes command: let the global keys have it.
    Ignored,
}

/// What a key did to the commit message line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitOutcome {
    /// Typed or edited; redraw.
    Editing,
    /// Enter with a message: commit the scope with it.
    Commit(String),
    /// Esc: no commit.
    Cancelled,
}

/// The Changes view's state while it is open.
#[derive(Debug, Clone)]
pub struct ChangesView {
    project_slug: String,
    /// The chat the view was opened on (none: only the project scope exists).
    session_id: Option<String>,
    /// The chat's title, for the heading.
    title: String,
    scope: Scope,
    status: Option<GitStatus>,
    error: Option<String>,
    cursor: usize,
    /// The diff shown, and the file it is of.
    diff: Option<(String, Result<GitDiff, String>)>,
    diff_scroll: u16,
    /// The commit message being typed, when asked for.
    commit_input: Option<String>,
    /// A push asked for and not answered yet (a second `P` waits for it).
    pushing: bool,
    /// The provenance panel, over the view, when open.
    pub provenance: Option<ProvenanceView>,
}

impl ChangesView {
    /// Scoped to the chat `session_id` (when some), else to the project.
    pub fn new(project_slug: String, session_id: Option<String>, title: String) -> Self {
        let scope = session_id.clone().map_or(Scope::Project, Scope::Chat);
        Self {
            project_slug,
            session_id,
            title,
            scope,
            status: None,
            error: None,
            cursor: 0,
            diff: None,
            diff_scroll: 0,
            commit_input: None,
            pushing: false,
            provenance: None,
        }
    }

    pub fn project_slug(&self) -> &str {
        &self.project_slug
    }

    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Whether an answer about (`project_slug`, `scope`) belongs to what is shown now.
    pub fn is_for(&self, project_slug: &str, scope: &Scope) -> bool {
        self.project_slug == project_slug && &self.scope == scope
    }

    /// chat → subtree → project → chat (only the project without a chat).
    pub fn cycle_scope(&mut self) {
        self.scope = match (&self.scope, &self.session_id) {
            (Scope::Chat(sid), _) => Scope::Subtree(sid.clone()),
            (Scope::Subtree(_), _) | (Scope::Project, None) => Scope::Project,
            (Scope::Project, Some(sid)) => Scope::Chat(sid.clone()),
        };
        self.status = None;
        self.error = None;
        self.cursor = 0;
        self.diff = None;
        self.diff_scroll = 0;
    }

    /// The scope in words: `chat "Title"`, `subtree of "Title"`, `project webapp`.
    pub fn scope_label(&self) -> String {
        match &self.scope {
            Scope::Chat(_) => format!("chat \"{}\"", self.title),
            Scope::Subtree(_) => format!("subtree of \"{}\"", self.title),
            Scope::Project => format!(
                "project {}",
                crate::format::project_label(&self.project_slug)
            ),
        }
    }

    /// A status arrived: keep the cursor on the same file when it is still listed.
    pub fn set_status(&mut self, status: GitStatus) {
        let at = self.cursor_path().map(str::to_owned);
        self.status = Some(status);
        self.error = None;
        let files = self.files_len();
        self.cursor = at
            .and_then(|p| self.status.as_ref()?.files.iter().position(|f| f.path == p))
            .unwrap_or(self.cursor)
            .min(files.saturating_sub(1));
        // The diff on screen may be out of date: read it again.
        self.diff = None;
    }

    pub fn set_error(&mut self, reason: String) {
        self.error = Some(reason);
    }

    pub fn status(&self) -> Option<&GitStatus> {
        self.status.as_ref()
    }

    fn files_len(&self) -> usize {
        self.status.as_ref().map_or(0, |s| s.files.len())
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The path of the file under the cursor.
    pub fn cursor_path(&self) -> Option<&str> {
        self.status
            .as_ref()?
            .files
            .get(self.cursor)
            .map(|f| f.path.as_str())
    }

    pub fn move_by(&mut self, delta: isize) {
        let last = self.files_len().saturating_sub(1);
        self.cursor = self.cursor.saturating_add_signed(delta).min(last);
    }

    /// The file whose diff should be read: the cursor's, when its diff is not shown yet.
    pub fn wanted_diff(&self) -> Option<&str> {
        let path = self.cursor_path()?;
        match &self.diff {
            Some((shown, _)) if shown == path => None,
            _ => Some(path),
        }
    }

    pub fn set_diff(&mut self, path: String, diff: Result<GitDiff, String>) {
        if self.diff.as_ref().is_none_or(|(p, _)| *p != path) {
            self.diff_scroll = 0;
        }
        self.diff = Some((path, diff));
    }

    pub fn pushing(&self) -> bool {
        self.pushing
    }

    /// The push was answered (pushed, or refused).
    pub fn push_done(&mut self) {
        self.pushing = false;
    }

    pub fn committing(&self) -> bool {
        self.commit_input.is_some()
    }

    pub fn commit_input(&self) -> Option<&str> {
        self.commit_input.as_deref()
    }

    /// A key while the commit message line is open.
    pub fn on_commit_key(&mut self, key: KeyEvent) -> CommitOutcome {
        let Some(input) = self.commit_input.as_mut() else {
            return CommitOutcome::Cancelled;
        };
        match key.code {
            KeyCode::Esc => {
                self.commit_input = None;
                CommitOutcome::Cancelled
            }
            KeyCode::Enter => {
                let message = input.trim().to_owned();
                if message.is_empty() {
                    return CommitOutcome::Editing;
                }
                self.commit_input = None;
                CommitOutcome::Commit(message)
            }
            KeyCode::Backspace => {
                input.pop();
                CommitOutcome::Editing
            }
            KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                input.clear();
                CommitOutcome::Editing
            }
            KeyCode::Char(c)
                if !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                input.push(c);
                CommitOutcome::Editing
            }
            _ => CommitOutcome::Editing,
        }
    }

    /// Pasted text goes into the commit message (its first line).
    pub fn paste(&mut self, text: &str) {
        if let Some(input) = self.commit_input.as_mut() {
            input.push_str(text.lines().next().unwrap_or_default());
        }
    }

    /// Applies a Changes-context command; `page` is how far a page scrolls the diff.
    pub fn on_command(&mut self, command: Command, page: usize) -> ChangesOutcome {
        let page = u16::try_from(page.max(1)).unwrap_or(u16::MAX);
        match command {
            Command::Down | Command::Up => {
                self.move_by(if command == Command::Down { 1 } else { -1 });
                return match self.wanted_diff() {
                    Some(path) => ChangesOutcome::LoadDiff(path.to_owned()),
                    None => ChangesOutcome::Handled,
                };
            }
            Command::PageDown => self.diff_scroll = self.diff_scroll.saturating_add(page),
            Command::PageUp => self.diff_scroll = self.diff_scroll.saturating_sub(page),
            Command::CycleScope => {
                self.cycle_scope();
                return ChangesOutcome::LoadStatus;
            }
            Command::Provenance => {
                let Some(path) = self.cursor_path().map(str::to_owned) else {
                    return ChangesOutcome::Handled;
                };
                self.provenance =
                    Some(ProvenanceView::new(self.project_slug.clone(), path.clone()));
                return ChangesOutcome::LoadProvenance(path);
            }
            Command::Commit => {
                if self.files_len() > 0 {
                    self.commit_input = Some(String::new());
                }
            }
            Command::Push if !self.pushing => {
                self.pushing = true;
                return ChangesOutcome::Push;
            }
            Command::Push => {}
            Command::Back | Command::Changes => return ChangesOutcome::Closed,
            _ => return ChangesOutcome::Ignored,
        }
        ChangesOutcome::Handled
    }
}

impl ChangesView {
    /// The loop's request for the scope's status.
    fn status_fetch(&self) -> Fetch {
        Fetch::GitStatus {
            project_slug: self.project_slug.clone(),
            scope: self.scope.clone(),
        }
    }

    /// A key while the commit message is typed.
    fn on_message_key(&mut self, key: KeyEvent) -> Reaction {
        match self.on_commit_key(key) {
            CommitOutcome::Commit(message) => Reaction::Ask(Action::Commit {
                project_slug: self.project_slug.clone(),
                scope: self.scope.clone(),
                message,
            }),
            CommitOutcome::Editing | CommitOutcome::Cancelled => Reaction::Handled,
        }
    }
}

impl Overlay for ChangesView {
    fn layer(&self) -> Layer {
        Layer::Changes
    }

    fn context(&self) -> Context {
        if self.provenance.is_some() {
            Context::Provenance
        } else {
            Context::Changes
        }
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Cx<'_>) -> Reaction {
        if self.provenance.is_none() && self.committing() {
            return self.on_message_key(key);
        }
        match keys::command_for(self.context(), &key) {
            Some(command) => Overlay::on_command(self, command, cx),
            None => Reaction::Handled,
        }
    }

    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction {
        if self.provenance.is_some() {
            return on_panel_command(&mut self.provenance, command, cx.page);
        }
        let outcome = ChangesView::on_command(self, command, cx.page);
        // After the command: `s` moves the scope.
        let project_slug = self.project_slug.clone();
        let scope = self.scope.clone();
        match outcome {
            ChangesOutcome::Handled => Reaction::Handled,
            ChangesOutcome::LoadStatus => Reaction::Ask(Action::LoadChanges {
                project_slug,
                scope,
            }),
            ChangesOutcome::LoadDiff(path) => Reaction::Ask(Action::LoadDiff {
                project_slug,
                scope,
                path,
            }),
            ChangesOutcome::LoadProvenance(path) => {
                Reaction::Ask(Action::LoadProvenance { project_slug, path })
            }
            ChangesOutcome::Push => {
                cx.notice.while_(
                    format!("pushing {}…", crate::format::project_label(&project_slug)),
                    crate::tui::notice::State::Request,
                );
                Reaction::Ask(Action::Push { project_slug })
            }
            ChangesOutcome::Closed => Reaction::Close,
            ChangesOutcome::Ignored => Reaction::Global(command),
        }
    }

    fn paste(&mut self, text: &str) -> bool {
        if self.provenance.is_some() || !self.committing() {
            return false;
        }
        ChangesView::paste(self, text);
        true
    }

    fn render(&mut self, frame: &mut Frame<'_>, area: Rect, cx: &DrawCx<'_>) {
        render_changes(self, cx.theme, frame, area);
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        if self.committing() {
            return vec![("enter", "commit"), ("esc", "cancel")];
        }
        if self.provenance.is_some() {
            return PANEL_HINTS.to_vec();
        }
        vec![
            ("j/k", "files"),
            ("p", "provenance"),
            ("s", "scope"),
            ("c", "commit"),
            ("esc", "close"),
            ("?", "keys"),
        ]
    }

    fn on_reply(&mut self, fetch: &Fetch, answer: &Answer, cx: &mut Cx<'_>) -> bool {
        match fetch {
            Fetch::GitStatus {
                project_slug,
                scope,
            } if self.is_for(project_slug, scope) => {
                match match answer {
                    Answer::GitStatus(result) => taken(result, |status| status.clone()),
                    _ => return false,
                } {
                    Ok(status) => self.set_status(status),
                    Err(reason) => self.set_error(reason),
                }
                // The diff of the cursor's file, when it is not shown yet.
                if let Some(path) = self.wanted_diff() {
                    cx.fetch(Fetch::GitDiff {
                        project_slug: project_slug.clone(),
                        scope: scope.clone(),
                        path: path.to_owned(),
                    });
                }
                true
            }
            Fetch::GitDiff {
                project_slug,
                scope,
                path,
            } if self.is_for(project_slug, scope) => {
                let diff = match answer {
                    Answer::GitDiff(result) => taken(result, |diff| diff.clone()),
                    _ => return false,
                };
                self.set_diff(path.clone(), diff);
                true
            }
            _ => panel_reply(&mut self.provenance, fetch, answer),
        }
    }

    fn on_news(&self, news: News<'_>, cx: &mut Cx<'_>) {
        let again = match news {
            News::Reconnected | News::GitChanged => true,
            News::ChatsChanged { project_slug } => project_slug == self.project_slug,
            _ => false,
        };
        if again {
            cx.fetch(self.status_fetch());
        }
    }
}

/// The two letters of a file's status, and their role.
fn letters(index: &str, worktree: &str) -> (String, Role) {
    let role = match (index, worktree) {
        ("?", _) | ("A", _) | (_, "A") => Role::Success,
        ("D", _) | (_, "D") => Role::Error,
        ("U", _) | (_, "U") => Role::Error,
        _ => Role::Warning,
    };
    (format!("{index}{worktree}"), role)
}

/// A diff line's role: added, removed, a hunk header, or the file header.
fn diff_role(line: &str) -> Role {
    if line.starts_with("+++") || line.starts_with("---") {
        Role::Dim
    } else if line.starts_with('+') {
        Role::Success
    } else if line.starts_with('-') {
        Role::Error
    } else if line.starts_with("@@") {
        Role::Accent
    } else if line.starts_with("diff --git") || line.starts_with("index ") {
        Role::Dim
    } else {
        Role::Normal
    }
}

/// Draws the view into `area` (the provenance panel instead, when it is open).
pub fn render_changes(view: &ChangesView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    if let Some(panel) = &view.provenance {
        render_provenance(panel, theme, frame, area);
        return;
    }
    if area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let (title_row, below) = crate::tui::areas::title_and_body(area);
    frame.render_widget(title_line(view, theme, width), title_row);
    let input_height = u16::from(view.committing());
    let [body, input] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(input_height)]).areas(below);
    if let Some(message) = view.commit_input() {
        frame.render_widget(commit_input_line(message, theme), input);
    }
    let Some(status) = view.status() else {
        frame.render_widget(Paragraph::new(no_status_line(view, theme)), body);
        return;
    };
    if !status.is_repo {
        let lines = not_a_repo_lines(theme);
        frame.render_widget(Paragraph::new(wrap_lines(lines, width)), body);
        return;
    }
    let head = status_lines(view, status, theme, width, body.height);
    let top_height = u16::try_from(head.len())
        .unwrap_or(u16::MAX)
        .min(body.height);
    let [top, bottom] =
        Layout::vertical([Constraint::Length(top_height), Constraint::Min(0)]).areas(body);
    frame.render_widget(Paragraph::new(head), top);
    render_diff(view, theme, frame, bottom);
}

/// The top line: the view's name and which changes it lists.
fn title_line(view: &ChangesView, theme: &Theme, width: usize) -> Line<'static> {
    Line::from(vec![
        Span::styled(" Changes ", theme.style(Role::Accent)),
        Span::raw(fit(&view.scope_label(), width.saturating_sub(10), theme)),
    ])
}

/// The bottom line while a commit message is being typed, with a cursor mark at its end.
fn commit_input_line(message: &str, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(" Commit message: ", theme.style(Role::Accent)),
        Span::raw(message.to_owned()),
        Span::styled(theme.glyph(Glyph::TextCursor), theme.style(Role::Dim)),
    ])
}

/// The line shown while there is no status yet: why it could not be read, or that it is loading.
fn no_status_line(view: &ChangesView, theme: &Theme) -> Line<'static> {
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    match &view.error {
        Some(reason) => Line::styled(
            format!("  Cannot read the git status: {reason}"),
            theme.style(Role::Error),
        ),
        None => Line::styled(format!("  Loading{ellipsis}"), theme.style(Role::Dim)),
    }
}

/// The lines saying the project's folder is not in a git repository, and how to make it one.
fn not_a_repo_lines(theme: &Theme) -> Vec<Line<'static>> {
    vec![
        Line::default(),
        Line::styled(
            "  This project's folder is not in a git repository.",
            theme.style(Role::Warning),
        ),
        Line::styled(
            "  `git init` there to see and commit what chats change.",
            theme.style(Role::Dim),
        ),
    ]
}

/// The branch line, the files around the cursor, the hidden count and the notes: the top
/// half of the body at most.
fn status_lines(
    view: &ChangesView,
    status: &GitStatus,
    theme: &Theme,
    width: usize,
    body_height: u16,
) -> Vec<Line<'static>> {
    let mut head: Vec<Line<'static>> = vec![branch_line(status, theme)];
    let hidden = (status.hidden > 0).then(|| hidden_line(status.hidden, width, theme));
    let notes: Vec<Line<'static>> = status
        .notes
        .iter()
        .map(|n| {
            Line::styled(
                format!(" {} {n}", theme.mark(Mark::WARNING)),
                theme.style(Role::Warning),
            )
        })
        .collect();
    let extra = 1 + usize::from(hidden.is_some()) + notes.len();
    let room = usize::from(body_height / 2).saturating_sub(extra).max(1);
    let skip = view.cursor.saturating_sub(room.saturating_sub(1));
    if status.files.is_empty() {
        head.push(Line::styled(
            "  Nothing changed in this scope.",
            theme.style(Role::Dim),
        ));
    }
    for (i, file) in status.files.iter().enumerate().skip(skip).take(room) {
        head.push(file_line(file, i == view.cursor, theme));
    }
    head.extend(hidden);
    head.extend(notes);
    head
}

/// The branch, the commit HEAD points at, and how far the branch is from its upstream.
fn branch_line(status: &GitStatus, theme: &Theme) -> Line<'static> {
    let mut branch = vec![Span::raw(" ")];
    branch.push(Span::styled(
        status
            .branch
            .clone()
            .unwrap_or_else(|| "(detached HEAD)".to_owned()),
        theme.style(Role::Normal),
    ));
    if let Some(headref) = &status.head {
        branch.push(Span::styled(
            format!(" @ {headref}"),
            theme.style(Role::Dim),
        ));
    }
    if let Some(up) = &status.upstream {
        let arrow = theme.glyph(Glyph::Arrow);
        let (ahead, behind) = (status.ahead.unwrap_or(0), status.behind.unwrap_or(0));
        let (up_g, down_g) = (theme.glyph(Glyph::Ahead), theme.glyph(Glyph::Behind));
        branch.push(Span::styled(
            format!(" {arrow} {up} {up_g}{ahead} {down_g}{behind}"),
            theme.style(Role::Dim),
        ));
    }
    Line::from(branch)
}

/// The line counting the changed files outside the scope, shorter when the long one does not fit.
fn hidden_line(hidden: u32, width: usize, theme: &Theme) -> Line<'static> {
    let (files, are) = if hidden == 1 {
        ("file", "is")
    } else {
        ("files", "are")
    };
    let long = format!(" {hidden} changed {files} outside this scope {are} hidden");
    let text = if long.width() < width {
        long
    } else {
        format!(" {hidden} hidden: outside this scope")
    };
    Line::styled(text, theme.style(Role::Dim))
}

/// One changed file's line: its status letters, its path and where it was renamed from.
fn file_line(file: &GitFile, cursor: bool, theme: &Theme) -> Line<'static> {
    let (code, role) = letters(&file.index, &file.worktree);
    let mut spans = vec![
        Span::raw(if cursor {
            theme.mark(Mark::Cursor)
        } else {
            " "
        }),
        Span::raw(" "),
        Span::styled(code, theme.style(role)),
        Span::raw(" "),
        Span::raw(clean(&file.path)),
    ];
    if let Some(orig) = &file.orig_path {
        spans.push(Span::styled(
            format!(" ({} {})", theme.glyph(Glyph::Back), clean(orig)),
            theme.style(Role::Dim),
        ));
    }
    let line = Line::from(spans);
    if cursor {
        line.style(theme.style(Role::Selected))
    } else {
        line
    }
}

/// The diff of the cursor's file, under a rule naming it.
fn render_diff(view: &ChangesView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let Some(path) = view.cursor_path() else {
        return;
    };
    if area.height == 0 {
        return;
    }
    let rule = theme.glyph(Glyph::Rule);
    let label = format!("{rule}{rule} {} ", clean(path));
    let fill = usize::from(area.width).saturating_sub(label.chars().count());
    let mut lines = vec![Line::styled(
        format!("{label}{}", rule.repeat(fill)),
        theme.style(Role::Dim),
    )];
    match &view.diff {
        Some((shown, Ok(diff))) if shown == path => {
            let text: Vec<Line<'static>> = diff
                .diff
                .lines()
                .skip(usize::from(view.diff_scroll))
                .map(|l| Line::styled(clean(l), theme.style(diff_role(l))))
                .collect();
            if diff.diff.is_empty() {
                lines.push(Line::styled(" (no textual diff)", theme.style(Role::Dim)));
            }
            lines.extend(text);
            if diff.truncated {
                lines.push(Line::styled(
                    " (the diff was cut at 2 MB)",
                    theme.style(Role::Warning),
                ));
            }
        }
        Some((shown, Err(reason))) if shown == path => lines.push(Line::styled(
            format!(" Cannot read the diff: {reason}"),
            theme.style(Role::Error),
        )),
        _ => lines.push(Line::styled(
            format!(" Loading{}", theme.glyph(Glyph::Ellipsis)),
            theme.style(Role::Dim),
        )),
    }
    frame.render_widget(Paragraph::new(lines), area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::GitFile;

    fn file(path: &str) -> GitFile {
        GitFile {
            path: path.into(),
            orig_path: None,
            index: ".".into(),
            worktree: "M".into(),
        }
    }

    fn status(paths: &[&str]) -> GitStatus {
        GitStatus {
            project_slug: "web".into(),
            is_repo: true,
            branch: Some("main".into()),
            head: Some("3f9a2c1".into()),
            upstream: None,
            ahead: None,
            behind: None,
            files: paths.iter().map(|p| file(p)).collect(),
            hidden: 0,
            notes: Vec::new(),
            worktrees: Vec::new(),
        }
    }

    fn diff() -> GitDiff {
        GitDiff {
            project_slug: "web".into(),
            is_repo: true,
            diff: "+a\n".into(),
            files: vec!["b.rs".into()],
            truncated: false,
            hidden: 0,
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn the_scope_cycles_chat_subtree_project() {
        let mut v = ChangesView::new("web".into(), Some("s1".into()), "Fix".into());
        assert_eq!(v.scope(), &Scope::Chat("s1".into()));
        assert_eq!(v.scope_label(), "chat \"Fix\"");
        assert_eq!(
            v.on_command(Command::CycleScope, 10),
            ChangesOutcome::LoadStatus
        );
        assert_eq!(v.scope(), &Scope::Subtree("s1".into()));
        v.cycle_scope();
        assert_eq!(v.scope(), &Scope::Project);
        assert_eq!(v.scope_label(), "project web");
        v.cycle_scope();
        assert_eq!(v.scope(), &Scope::Chat("s1".into()));
        assert_eq!(
            v.scope().to_git(),
            GitScope::Chat {
                session_id: "s1".into()
            }
        );
        // Without a chat there is only the project.
        let mut p = ChangesView::new(String::new(), None, String::new());
        p.cycle_scope();
        assert_eq!(p.scope(), &Scope::Project);
        assert_eq!(p.scope_label(), "project (root)");
    }

    #[test]
    fn a_new_scope_forgets_the_old_answer() {
        let mut v = ChangesView::new("web".into(), Some("s1".into()), "Fix".into());
        v.set_status(status(&["a.rs", "b.rs"]));
        v.move_by(1);
        v.cycle_scope();
        assert!(v.status().is_none());
        assert_eq!(v.cursor(), 0);
        assert!(v.is_for("web", &Scope::Subtree("s1".into())));
        assert!(!v.is_for("web", &Scope::Chat("s1".into())));
    }

    #[test]
    fn the_cursor_moves_asks_for_diffs_and_stays_on_its_file() {
        let mut v = ChangesView::new("web".into(), Some("s1".into()), "Fix".into());
        v.set_status(status(&["a.rs", "b.rs", "c.rs"]));
        assert_eq!(v.wanted_diff(), Some("a.rs"));
        assert_eq!(
            v.on_command(Command::Down, 10),
            ChangesOutcome::LoadDiff("b.rs".into())
        );
        v.set_diff("b.rs".into(), Ok(diff()));
        assert_eq!(v.wanted_diff(), None);
        // A reload that drops a.rs keeps the cursor on b.rs (and reads its diff again).
        v.set_status(status(&["b.rs", "c.rs"]));
        assert_eq!(v.cursor_path(), Some("b.rs"));
        assert_eq!(v.wanted_diff(), Some("b.rs"));
        v.move_by(10);
        assert_eq!(v.cursor_path(), Some("c.rs"));
        v.move_by(-10);
        assert_eq!(v.cursor(), 0);
        // The file went away: the cursor stays in the list.
        v.move_by(1);
        v.set_status(status(&["b.rs"]));
        assert_eq!(v.cursor(), 0);
    }

    #[test]
    fn commit_asks_for_a_message_and_esc_cancels() {
        let mut v = ChangesView::new("web".into(), Some("s1".into()), "Fix".into());
        // Nothing to commit: no prompt.
        v.set_status(status(&[]));
        v.on_command(Command::Commit, 10);
        assert!(!v.committing());
        v.set_status(status(&["a.rs"]));
        v.on_command(Command::Commit, 10);
        assert!(v.committing());
        for c in "Fix itx".chars() {
            assert_eq!(
                v.on_commit_key(key(KeyCode::Char(c))),
                CommitOutcome::Editing
            );
        }
        v.on_commit_key(key(KeyCode::Backspace));
        v.paste("!\nsecond line");
        assert_eq!(v.commit_input(), Some("Fix it!"));
        assert_eq!(
            v.on_commit_key(key(KeyCode::Enter)),
            CommitOutcome::Commit("Fix it!".into())
        );
        assert!(!v.committing());
        // An empty message is not sent; Esc drops the line.
        v.on_command(Command::Commit, 10);
        assert_eq!(v.on_commit_key(key(KeyCode::Enter)), CommitOutcome::Editing);
        assert!(v.committing());
        assert_eq!(v.on_commit_key(key(KeyCode::Esc)), CommitOutcome::Cancelled);
        assert!(!v.committing());
    }

    #[test]
    fn provenance_opens_for_the_cursor_file_and_esc_closes() {
        let mut v = ChangesView::new("web".into(), Some("s1".into()), "Fix".into());
        assert_eq!(
            v.on_command(Command::Provenance, 10),
            ChangesOutcome::Handled
        );
        assert!(v.provenance.is_none());
        v.set_status(status(&["a.rs"]));
        assert_eq!(
            v.on_command(Command::Provenance, 10),
            ChangesOutcome::LoadProvenance("a.rs".into())
        );
        assert_eq!(
            v.provenance.as_ref().map(ProvenanceView::path),
            Some("a.rs")
        );
        assert_eq!(v.on_command(Command::Back, 10), ChangesOutcome::Closed);
        assert_eq!(v.on_command(Command::Quit, 10), ChangesOutcome::Ignored);
    }

    #[test]
    fn diff_lines_are_colored_by_kind() {
        assert_eq!(diff_role("+added"), Role::Success);
        assert_eq!(diff_role("-removed"), Role::Error);
        assert_eq!(diff_role("+++ b/x"), Role::Dim);
        assert_eq!(diff_role("--- a/x"), Role::Dim);
        assert_eq!(diff_role("@@ -1 +1 @@"), Role::Accent);
        assert_eq!(diff_role(" context"), Role::Normal);
        assert_eq!(letters("?", "?").1, Role::Success);
        assert_eq!(letters(".", "D").1, Role::Error);
        assert_eq!(letters(".", "M"), (".M".to_owned(), Role::Warning));
    }
}
