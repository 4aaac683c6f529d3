//! The file browser (`B`): a project's directory, one directory at a time, with a preview of the
//! file under the cursor — any file of the project, touched by a chat or not. Enter (or `l`)
//! opens a directory, `h` / Backspace goes up; `p` (Enter on a file) opens the file's
//! provenance panel over the view, `b` its blame. `.` shows names starting with a dot too.
//!
//! `files:list` answers the listing and `files:read` the preview (its first
//! [`PREVIEW_BYTES`]); an answer for a directory or file the view has moved away from is
//! dropped. From 60 columns the list and the preview sit side by side, below that one above the
//! other.

use paddock_proto::{FileEntry, FileListing, FileText};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::action::Action;
use super::blame_view::open_blame;
use super::chat_view::clean;
use super::fetch::{Answer, Fetch, taken};
use super::files_view::scroll_to;
use super::keys::{Command, Context, moved};
use super::overlay::{Cx, DrawCx, Layer, News, Overlay, Reaction};
use super::provenance_view::{
    PANEL_HINTS, ProvenanceView, fit, on_panel_command, panel_reply, render_provenance, wrap_lines,
};
use super::theme::{Glyph, Mark, Role, Theme};

/// Bytes of a file the preview asks for.
pub const PREVIEW_BYTES: u64 = 64 * 1024;

/// From this width the list and the preview sit side by side.
const SIDE_BY_SIDE: u16 = 60;

/// What a command did to the view, for the dispatcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrowserOutcome {
    Handled,
    /// List this directory (the view moved there, or reloads).
    List(String),
    /// Read this file for the preview.
    Read(String),
    /// The provenance panel opened for this file: read it.
    LoadProvenance(String),
    /// Open the blame of this file.
    Blame(String),
    /// Back to what was under the view.
    Closed,
    /// Not a browser command: let the global keys have it.
    Ignored,
}

/// The preview of one file: asked, then answered.
#[derive(Debug, Clone)]
struct Preview {
    path: String,
    answer: Option<Result<FileText, String>>,
}

/// The file browser's state while it is open.
#[derive(Debug, Clone)]
pub struct BrowserView {
    project_slug: String,
    /// The directory shown (or asked for), relative to the project's directory.
    dir: String,
    /// Names starting with a dot are listed too.
    hidden: bool,
    listing: Option<FileListing>,
    error: Option<String>,
    cursor: usize,
    top: usize,
    /// The entry to put the cursor on when the listing comes (the directory just left).
    select: Option<String>,
    preview: Option<Preview>,
    /// The provenance panel of a file, over the view, when open.
    pub provenance: Option<ProvenanceView>,
}

impl BrowserView {
    pub fn new(project_slug: String) -> Self {
        Self {
            project_slug,
            dir: String::new(),
            hidden: false,
            listing: None,
            error: None,
            cursor: 0,
            top: 0,
            select: None,
            preview: None,
            provenance: None,
        }
    }

    pub fn project_slug(&self) -> &str {
        &self.project_slug
    }

    /// The directory shown, relative to the project's directory (`""`: its top).
    pub fn dir(&self) -> &str {
        &self.dir
    }

    pub fn hidden(&self) -> bool {
        self.hidden
    }

    pub fn listing(&self) -> Option<&FileListing> {
        self.listing.as_ref()
    }

    /// Whether a listing answer for (`project_slug`, `dir`, `hidden`) belongs here.
    pub fn is_for(&self, project_slug: &str, dir: &str, hidden: bool) -> bool {
        self.project_slug == project_slug && self.dir == dir && self.hidden == hidden
    }

    /// The listing came: the cursor goes to the directory just left, else stays in range.
    pub fn set(&mut self, listing: FileListing) {
        if let Some(name) = self.select.take()
            && let Some(i) = listing.entries.iter().position(|e| e.name == name)
        {
            self.cursor = i;
        }
        self.cursor = self.cursor.min(listing.entries.len().saturating_sub(1));
        self.listing = Some(listing);
        self.error = None;
    }

    pub fn set_error(&mut self, reason: String) {
        self.error = Some(reason);
    }

    /// The preview's answer came; dropped when the cursor moved on.
    pub fn set_preview(
        &mut self,
        project_slug: &str,
        path: &str,
        answer: Result<FileText, String>,
    ) {
        if project_slug != self.project_slug {
            return;
        }
        if let Some(p) = self.preview.as_mut().filter(|p| p.path == path) {
            p.answer = Some(answer);
        }
    }

    /// The file under the cursor when its preview is not asked for yet (then it is).
    pub fn want_preview(&mut self) -> Option<String> {
        let path = self.cursor_file()?;
        if self.preview.as_ref().is_some_and(|p| p.path == path) {
            return None;
        }
        self.preview = Some(Preview {
            path: path.clone(),
            answer: None,
        });
        Some(path)
    }

    pub fn cursor_entry(&self) -> Option<&FileEntry> {
        self.listing.as_ref()?.entries.get(self.cursor)
    }

    /// The path of the entry under the cursor, relative to the project's directory.
    fn cursor_path(&self) -> Option<String> {
        self.cursor_entry().map(|e| join(&self.dir, &e.name))
    }

    /// The cursor's file (not a directory, nor a symlink leading out of the project).
    fn cursor_file(&self) -> Option<String> {
        self.cursor_entry()
            .filter(|e| !e.dir && !e.outside)
            .and_then(|_| self.cursor_path())
    }

    fn move_by(&mut self, delta: isize) -> BrowserOutcome {
        let len = self.listing.as_ref().map_or(0, |l| l.entries.len());
        self.cursor = moved(self.cursor, delta, len);
        match self.want_preview() {
            Some(path) => BrowserOutcome::Read(path),
            None => BrowserOutcome::Handled,
        }
    }

    /// Moves to another directory: nothing shown until its listing comes.
    fn go(&mut self, dir: String, select: Option<String>) -> BrowserOutcome {
        self.dir = dir.clone();
        self.listing = None;
        self.error = None;
        self.cursor = 0;
        self.top = 0;
        self.select = select;
        self.preview = None;
        BrowserOutcome::List(dir)
    }

    /// Applies a Browser-context command; `page` is how many rows a page moves.
    pub fn on_command(&mut self, command: Command, page: usize) -> BrowserOutcome {
        if let Some(delta) = command.motion(page) {
            return self.move_by(delta);
        }
        match command {
            Command::Open => match self.cursor_entry() {
                Some(e) if e.dir => {
                    let dir = join(&self.dir, &e.name);
                    self.go(dir, None)
                }
                Some(_) => self.on_command(Command::Provenance, 1),
                None => BrowserOutcome::Handled,
            },
            Command::Fold => {
                if self.dir.is_empty() {
                    return BrowserOutcome::Handled;
                }
                let (parent, name) = match self.dir.rsplit_once('/') {
                    Some((parent, name)) => (parent.to_owned(), name.to_owned()),
                    None => (String::new(), self.dir.clone()),
                };
                self.go(parent, Some(name))
            }
            Command::ToggleHidden => {
                self.hidden = !self.hidden;
                let keep = self.cursor_entry().map(|e| e.name.clone());
                self.go(self.dir.clone(), keep)
            }
            Command::Refresh => {
                let keep = self.cursor_entry().map(|e| e.name.clone());
                self.go(self.dir.clone(), keep)
            }
            Command::Provenance => match self.cursor_file() {
                Some(path) => {
                    self.provenance =
                        Some(ProvenanceView::new(self.project_slug.clone(), path.clone()));
                    BrowserOutcome::LoadProvenance(path)
                }
                None => BrowserOutcome::Handled,
            },
            Command::Blame => match self.cursor_file() {
                Some(path) => BrowserOutcome::Blame(path),
                None => BrowserOutcome::Handled,
            },
            Command::Back | Command::Browse => BrowserOutcome::Closed,
            _ => BrowserOutcome::Ignored,
        }
    }
}

impl Overlay for BrowserView {
    fn layer(&self) -> Layer {
        Layer::Browser
    }

    fn context(&self) -> Context {
        if self.provenance.is_some() {
            Context::Provenance
        } else {
            Context::Browser
        }
    }

    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction {
        if self.provenance.is_some() {
            return on_panel_command(&mut self.provenance, command, cx.page);
        }
        let project_slug = self.project_slug.clone();
        match BrowserView::on_command(self, command, cx.page) {
            BrowserOutcome::Handled => Reaction::Handled,
            BrowserOutcome::List(path) => Reaction::Ask(Action::LoadListing {
                project_slug,
                path,
                hidden: self.hidden,
            }),
            BrowserOutcome::Read(path) => {
                Reaction::Ask(Action::LoadFileText { project_slug, path })
            }
            BrowserOutcome::LoadProvenance(path) => {
                Reaction::Ask(Action::LoadProvenance { project_slug, path })
            }
            BrowserOutcome::Blame(path) => open_blame(project_slug, path),
            BrowserOutcome::Closed => Reaction::Close,
            BrowserOutcome::Ignored => Reaction::Pass(command),
        }
    }

    fn render(&mut self, frame: &mut Frame<'_>, area: Rect, cx: &DrawCx<'_>) {
        render_browser(self, cx.theme, frame, area);
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        if self.provenance.is_some() {
            return PANEL_HINTS.to_vec();
        }
        vec![
            ("enter/h", "in/out"),
            ("p", "provenance"),
            ("b", "blame"),
            (".", "dotfiles"),
            ("esc", "close"),
            ("?", "keys"),
        ]
    }

    fn on_reply(&mut self, fetch: &Fetch, answer: &Answer, cx: &mut Cx<'_>) -> bool {
        match fetch {
            Fetch::Listing {
                project_slug,
                path,
                hidden,
            } => {
                if !self.is_for(project_slug, path, *hidden) {
                    return true;
                }
                match match answer {
                    Answer::Listing(result) => taken(result, |l| l.clone()),
                    _ => return false,
                } {
                    Ok(listing) => self.set(listing),
                    Err(reason) => self.set_error(reason),
                }
                if let Some(path) = self.want_preview() {
                    cx.fetch(Fetch::FileText {
                        project_slug: project_slug.clone(),
                        path,
                    });
                }
                true
            }
            Fetch::FileText { project_slug, path } => {
                let answer = match answer {
                    Answer::FileText(result) => taken(result, |t| t.clone()),
                    _ => return false,
                };
                self.set_preview(project_slug, path, answer);
                true
            }
            _ => panel_reply(&mut self.provenance, fetch, answer),
        }
    }

    fn on_news(&self, news: News<'_>, cx: &mut Cx<'_>) {
        if matches!(news, News::Reconnected) && self.listing().is_none() {
            cx.fetch(Fetch::Listing {
                project_slug: self.project_slug.clone(),
                path: self.dir.clone(),
                hidden: self.hidden,
            });
        }
    }
}

/// `dir/name`, or `name` at the top.
fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// Draws the view into `area` (the provenance panel instead, when it is open). Moves the list's
/// first row so the cursor shows.
pub fn render_browser(view: &mut BrowserView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    if let Some(panel) = &view.provenance {
        render_provenance(panel, theme, frame, area);
        return;
    }
    if area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let place = format!(
        "{}:/{}",
        crate::format::project_label(&view.project_slug),
        view.dir
    );
    let mut title = vec![
        Span::styled(" Browse ", theme.style(Role::Accent)),
        Span::raw(fit(&place, width.saturating_sub(9), theme)),
    ];
    if view.hidden {
        let more = format!(" {} dotfiles shown", theme.glyph(Glyph::Dot));
        let used: usize = title.iter().map(Span::width).sum();
        if used + more.width() <= width {
            title.push(Span::styled(more, theme.style(Role::Dim)));
        }
    }
    let (title_row, body) = crate::tui::areas::title_and_body(area);
    frame.render_widget(Line::from(title), title_row);
    let (list_area, preview_area) = if area.width >= SIDE_BY_SIDE {
        let [l, p] =
            Layout::horizontal([Constraint::Percentage(40), Constraint::Min(0)]).areas(body);
        (l, p)
    } else {
        let [l, p] = Layout::vertical([Constraint::Percentage(50), Constraint::Min(0)]).areas(body);
        (l, p)
    };
    render_list(view, theme, frame, list_area);
    render_preview(view, theme, frame, preview_area);
}

/// Draws the directory's entries that fit into `area`, over a foot for a cut listing or a
/// failed reload.
fn render_list(view: &mut BrowserView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let width = usize::from(area.width);
    let Some(listing) = view.listing.as_ref() else {
        let line = unlisted_line(view, theme);
        frame.render_widget(Paragraph::new(wrap_lines(vec![line], width)), area);
        return;
    };
    let foot = list_foot(view, listing, theme, width);
    let (rows, bottom) = crate::tui::areas::above_foot(area, foot.len());
    frame.render_widget(Paragraph::new(foot), bottom);
    if listing.entries.is_empty() {
        frame.render_widget(Line::styled(" (empty)", theme.style(Role::Dim)), rows);
        return;
    }
    let height = usize::from(rows.height);
    let total = listing.entries.len();
    view.top = scroll_to(
        view.top,
        Some((view.cursor, view.cursor + 1)),
        total,
        height,
    );
    let mut lines = Vec::new();
    for (i, e) in listing
        .entries
        .iter()
        .enumerate()
        .skip(view.top)
        .take(height)
    {
        lines.push(entry_line(e, i == view.cursor, theme, width));
    }
    frame.render_widget(Paragraph::new(lines), rows);
}

/// The line while there is no listing: why it cannot be read, or that it is loading.
fn unlisted_line(view: &BrowserView, theme: &Theme) -> Line<'static> {
    match &view.error {
        Some(reason) => Line::styled(
            format!(" Cannot list it: {reason}"),
            theme.style(Role::Error),
        ),
        None => Line::styled(
            format!(" Loading{}", theme.glyph(Glyph::Ellipsis)),
            theme.style(Role::Dim),
        ),
    }
}

/// The list's foot, wrapped: that only the first entries came, and a failed reload.
fn list_foot(
    view: &BrowserView,
    listing: &FileListing,
    theme: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let mut foot = Vec::new();
    if listing.truncated {
        foot.push(Line::styled(
            format!(
                " {} only the first {} entries",
                theme.mark(Mark::WARNING),
                listing.entries.len()
            ),
            theme.style(Role::Warning),
        ));
    }
    if let Some(reason) = &view.error {
        foot.push(Line::styled(
            format!(" Cannot list it again: {reason}"),
            theme.style(Role::Error),
        ));
    }
    wrap_lines(foot, width)
}

/// One entry's row: its name, its size at the right for a file, styled by kind (or selected).
fn entry_line(e: &FileEntry, at_cursor: bool, theme: &Theme, width: usize) -> Line<'static> {
    let size = if e.dir || e.outside {
        String::new()
    } else {
        crate::format::file_size(e.size)
    };
    let name_room = width.saturating_sub(size.width() + 3);
    let name = fit(&clean(&crate::format::entry_name(e)), name_room, theme);
    let gap = width.saturating_sub(name.width() + size.width() + 2);
    let text = format!(" {name}{}{size} ", " ".repeat(gap));
    let style = if at_cursor {
        theme.style(Role::Selected)
    } else if e.dir {
        theme.style(Role::Accent)
    } else if e.outside {
        theme.style(Role::Dim)
    } else {
        theme.style(Role::Normal)
    };
    Line::styled(text, style)
}

/// Draws the preview of the cursor's entry into `area`, behind a rule on its left when there
/// is room for one.
fn render_preview(view: &BrowserView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    if area.height == 0 || area.width < 4 {
        return;
    }
    let bar = theme.glyph(Glyph::Bar);
    // A left (or top) rule sets the preview apart from the list.
    let (rule, inner) = if area.width >= 20 && area.height > area.width / 4 {
        (
            true,
            Rect {
                x: area.x + 1,
                width: area.width - 1,
                ..area
            },
        )
    } else {
        (false, area)
    };
    if rule {
        let lines: Vec<Line<'static>> = (0..area.height)
            .map(|_| Line::styled(bar.to_owned(), theme.style(Role::Dim)))
            .collect();
        frame.render_widget(Paragraph::new(lines), Rect { width: 1, ..area });
    }
    let lines = preview_lines(view, theme, inner);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// What the preview says of the cursor's entry in `inner`: how to open a directory, that an
/// entry leading out is not shown, the file's first lines, why it cannot be read, or that it
/// is being read.
fn preview_lines(view: &BrowserView, theme: &Theme, inner: Rect) -> Vec<Line<'static>> {
    let width = usize::from(inner.width);
    match (view.cursor_entry(), view.preview.as_ref()) {
        (None, _) => Vec::new(),
        (Some(e), _) if e.dir => vec![Line::styled(
            fit(&format!(" {}/: Enter opens it", e.name), width, theme),
            theme.style(Role::Dim),
        )],
        (Some(e), _) if e.outside => vec![Line::styled(
            fit(
                &format!(" {} leads out of the project: not shown", e.name),
                width,
                theme,
            ),
            theme.style(Role::Dim),
        )],
        (
            Some(_),
            Some(Preview {
                answer: Some(Ok(text)),
                ..
            }),
        ) => file_text_lines(text, theme, width, usize::from(inner.height)),
        (
            Some(_),
            Some(Preview {
                answer: Some(Err(reason)),
                ..
            }),
        ) => wrap_lines(
            vec![Line::styled(
                format!(" Cannot read it: {reason}"),
                theme.style(Role::Error),
            )],
            width,
        ),
        (Some(_), _) => vec![Line::styled(
            format!(" Reading{}", theme.glyph(Glyph::Ellipsis)),
            theme.style(Role::Dim),
        )],
    }
}

/// A file's preview in `height` rows: its size (and how much is shown) with the keys for
/// provenance and blame, then its first lines, or that it is not text.
fn file_text_lines(
    text: &FileText,
    theme: &Theme,
    width: usize,
    height: usize,
) -> Vec<Line<'static>> {
    let mut head = crate::format::file_size(text.size);
    if text.truncated {
        head.push_str(&format!(
            ", the first {} shown",
            crate::format::file_size(text.text.len() as u64)
        ));
    }
    let dot = theme.glyph(Glyph::Dot);
    let mut lines = vec![Line::styled(
        fit(
            &format!(" {head} {dot} p provenance {dot} b blame"),
            width,
            theme,
        ),
        theme.style(Role::Dim),
    )];
    if text.binary {
        lines.push(Line::styled(
            " Not text (binary): no preview.",
            theme.style(Role::Dim),
        ));
    } else {
        let room = height.saturating_sub(1);
        for l in text.text.lines().take(room) {
            let shown = clean(&l.replace('\t', "    "));
            lines.push(Line::raw(fit(&format!(" {shown}"), width, theme)));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, dir: bool) -> FileEntry {
        FileEntry {
            name: name.into(),
            dir,
            symlink: false,
            outside: false,
            size: 3,
            mtime: None,
        }
    }

    fn listing(dir: &str, entries: Vec<FileEntry>) -> FileListing {
        FileListing {
            project_slug: "web".into(),
            path: dir.into(),
            entries,
            truncated: false,
        }
    }

    #[test]
    fn descend_up_and_the_cursor_comes_back() {
        let mut v = BrowserView::new("web".into());
        v.set(listing("", vec![entry("src", true), entry("a.ts", false)]));
        assert_eq!(
            v.on_command(Command::Down, 10),
            BrowserOutcome::Read("a.ts".into())
        );
        // Moving back and forth asks again only for a file not asked yet.
        assert_eq!(v.on_command(Command::Up, 10), BrowserOutcome::Handled);
        assert_eq!(v.on_command(Command::Down, 10), BrowserOutcome::Handled);
        v.on_command(Command::Up, 10);
        assert_eq!(
            v.on_command(Command::Open, 10),
            BrowserOutcome::List("src".into())
        );
        assert!(v.is_for("web", "src", false) && !v.is_for("web", "", false));
        v.set(listing("src", vec![entry("lib", true)]));
        assert_eq!(
            v.on_command(Command::Open, 10),
            BrowserOutcome::List("src/lib".into())
        );
        v.set(listing("src/lib", vec![entry("x.rs", false)]));
        assert_eq!(v.want_preview().as_deref(), Some("src/lib/x.rs"));
        assert_eq!(
            v.on_command(Command::Provenance, 10),
            BrowserOutcome::LoadProvenance("src/lib/x.rs".into())
        );
        v.provenance = None;
        assert_eq!(
            v.on_command(Command::Blame, 10),
            BrowserOutcome::Blame("src/lib/x.rs".into())
        );
        assert_eq!(
            v.on_command(Command::Fold, 10),
            BrowserOutcome::List("src".into())
        );
        v.set(listing("src", vec![entry("a", true), entry("lib", true)]));
        assert_eq!(v.cursor_entry().map(|e| e.name.as_str()), Some("lib"));
        assert_eq!(
            v.on_command(Command::Fold, 10),
            BrowserOutcome::List(String::new())
        );
        assert_eq!(v.on_command(Command::Fold, 10), BrowserOutcome::Handled);
        assert_eq!(v.on_command(Command::Back, 10), BrowserOutcome::Closed);
    }

    #[test]
    fn a_stale_preview_is_dropped() {
        let mut v = BrowserView::new("web".into());
        v.set(listing(
            "",
            vec![entry("a.ts", false), entry("b.ts", false)],
        ));
        assert_eq!(v.want_preview().as_deref(), Some("a.ts"));
        v.on_command(Command::Down, 10);
        let text = FileText {
            project_slug: "web".into(),
            path: "a.ts".into(),
            size: 3,
            mtime: None,
            text: "old".into(),
            binary: false,
            truncated: false,
        };
        v.set_preview("web", "a.ts", Ok(text));
        assert!(v.preview.as_ref().is_some_and(|p| p.answer.is_none()));
    }
}
