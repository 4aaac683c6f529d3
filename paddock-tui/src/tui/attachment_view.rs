//! The attachment viewer (`a` on a message or notice in the chat pane): a kept file — one
//! attached to a message, or the snapshot a `send_file` call showed — read with
//! `attachment:get`, over the panes.
//!
//! Text (the text, markdown, code and html kinds, or any file that is UTF-8) shows wrapped and
//! scrolls (`j`/`k`, `PgUp`/`PgDn`, `g`/`G`). A terminal cannot show an image, a PDF or other
//! bytes, so for those the viewer says what it is and that `s` saves it; `s` saves any of them,
//! asking where (the path prompt, `./NAME` by default; an existing file is never overwritten).
//! `n` goes to the message's next file. An answer for a file the viewer no longer shows is
//! dropped; a failed one (not found) is shown in the viewer.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Clear;

use super::action::Action;
use super::attach::{PathPrompt, PromptOutcome};
use super::chat_view::{clean, fit_end, wrap};
use super::fetch::{Answer, Fetch, taken};
use super::keys::{self, Command, Context};
use super::overlay::{Cx, DrawCx, Layer, News, Overlay, Reaction};
use super::theme::{Glyph, Mark, Role, Theme};
use crate::attachments::{Listed, human_size};

/// What a command did, for the lead to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachmentOutcome {
    Handled,
    Closed,
    /// Read this attachment (`attachment:get`).
    Load(String),
    /// Save these bytes to this path (the loop writes them, then [`AttachmentView::saved`]).
    Save {
        path: PathBuf,
        bytes: Arc<[u8]>,
    },
    /// Not the viewer's command.
    Ignored,
}

/// What the viewer holds of the file shown.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Body {
    Loading,
    Failed(String),
    Text {
        bytes: Arc<[u8]>,
        lines: Vec<String>,
    },
    Binary {
        bytes: Arc<[u8]>,
    },
}

#[derive(Debug)]
pub struct AttachmentView {
    /// The files of the message (or the notice's one snapshot).
    files: Vec<Listed>,
    current: usize,
    body: Body,
    /// The top row shown.
    scroll: usize,
    /// The text wrapped at a width, kept while the width holds.
    rows: Option<(u16, Vec<String>)>,
    /// The save prompt, while it is open.
    pub save: Option<PathPrompt>,
    /// What the last save did: a sentence, and whether it failed.
    said: Option<(String, bool)>,
}

impl AttachmentView {
    /// A viewer on `files`, the first one shown (the lead reads it: [`AttachmentView::current_id`]).
    pub fn new(files: Vec<Listed>) -> Self {
        Self {
            files,
            current: 0,
            body: Body::Loading,
            scroll: 0,
            rows: None,
            save: None,
            said: None,
        }
    }

    fn current(&self) -> Option<&Listed> {
        self.files.get(self.current)
    }

    /// The id of the file shown.
    pub fn current_id(&self) -> Option<&str> {
        self.current().map(|f| f.id.as_str())
    }

    /// Whether the file shown is still being read.
    pub fn loading(&self) -> bool {
        self.body == Body::Loading
    }

    /// Whether the file shown is text (else binary, still loading, or failed).
    pub fn is_text(&self) -> bool {
        matches!(self.body, Body::Text { .. })
    }

    /// Whether the file shown is read (so `s` can save it).
    pub fn can_save(&self) -> bool {
        matches!(self.body, Body::Text { .. } | Body::Binary { .. })
    }

    /// The message's other files: whether `n` does anything.
    pub fn has_more(&self) -> bool {
        self.files.len() > 1
    }

    /// The daemon's answer for attachment `id`: dropped unless it is the one shown.
    pub fn answer(&mut self, id: &str, result: Result<paddock_proto::Attachment, String>) {
        let Some(file) = self.current().filter(|f| f.id == id) else {
            return;
        };
        let kind = file.kind.clone();
        self.rows = None;
        self.scroll = 0;
        self.body = match result {
            Err(reason) => Body::Failed(reason),
            Ok(got) => {
                match base64::engine::general_purpose::STANDARD.decode(got.data.as_bytes()) {
                    Err(e) => {
                        Body::Failed(format!("paddockd sent attachment {id} in bad base64: {e}"))
                    }
                    Ok(bytes) => body_of(&kind, bytes),
                }
            }
        };
    }

    /// The loop wrote (or could not write) the file the save prompt named.
    pub fn saved(&mut self, result: Result<String, String>) {
        match result {
            Ok(said) => {
                self.save = None;
                self.said = Some((said, false));
            }
            Err(reason) => match self.save.as_mut() {
                Some(prompt) => prompt.set_error(reason),
                None => self.said = Some((reason, true)),
            },
        }
    }

    /// A key of the viewer's context (`page`: rows of a page).
    pub fn on_command(&mut self, command: Command, page: usize) -> AttachmentOutcome {
        let page = page.max(1);
        match command {
            Command::Down => self.scroll = self.scroll.saturating_add(1),
            Command::Up => self.scroll = self.scroll.saturating_sub(1),
            Command::PageDown => self.scroll = self.scroll.saturating_add(page),
            Command::PageUp => self.scroll = self.scroll.saturating_sub(page),
            Command::Top => self.scroll = 0,
            Command::Bottom => self.scroll = usize::MAX,
            Command::NextAttachment => {
                if self.files.len() < 2 {
                    return AttachmentOutcome::Handled;
                }
                self.current = (self.current + 1) % self.files.len();
                self.body = Body::Loading;
                self.rows = None;
                self.scroll = 0;
                self.said = None;
                return self.current_id().map_or(AttachmentOutcome::Handled, |id| {
                    AttachmentOutcome::Load(id.to_owned())
                });
            }
            Command::Save => match &self.body {
                Body::Text { .. } | Body::Binary { .. } => {
                    let name = self.current().map(save_name).unwrap_or_default();
                    self.save = Some(PathPrompt::here("save as", "save", &format!("./{name}")));
                    self.said = None;
                }
                Body::Loading => self.said = Some(("still reading it".to_owned(), true)),
                Body::Failed(_) => self.said = Some(("there is nothing to save".to_owned(), true)),
            },
            Command::Back => return AttachmentOutcome::Closed,
            _ => return AttachmentOutcome::Ignored,
        }
        AttachmentOutcome::Handled
    }

    /// Enter in the save prompt: the bytes to write where it says.
    pub fn take_path(&mut self) -> AttachmentOutcome {
        let bytes = match &self.body {
            Body::Text { bytes, .. } | Body::Binary { bytes } => Arc::clone(bytes),
            _ => return AttachmentOutcome::Handled,
        };
        let Some(prompt) = self.save.as_mut() else {
            return AttachmentOutcome::Handled;
        };
        match prompt.submit() {
            PromptOutcome::Submit(path) => AttachmentOutcome::Save { path, bytes },
            PromptOutcome::Editing | PromptOutcome::Cancelled => AttachmentOutcome::Handled,
        }
    }
}

impl AttachmentView {
    /// A key while the save prompt has the keyboard: complete, take, cancel, else an edit.
    fn on_save_key(&mut self, key: ratatui::crossterm::event::KeyEvent) -> Reaction {
        let Some(prompt) = self.save.as_mut() else {
            return Reaction::Handled;
        };
        match keys::command_for(Context::PathPrompt, &key) {
            Some(command @ (Command::Help | Command::Quit)) => Reaction::Global(command),
            Some(Command::Complete) => {
                prompt.complete(key.code == ratatui::crossterm::event::KeyCode::BackTab);
                Reaction::Handled
            }
            Some(Command::Back) => {
                self.save = None;
                Reaction::Handled
            }
            Some(Command::TakePath) => Self::reaction(self.take_path(), Command::TakePath),
            Some(_) => Reaction::Handled,
            None => {
                prompt.edit_key(key);
                Reaction::Handled
            }
        }
    }

    fn reaction(outcome: AttachmentOutcome, command: Command) -> Reaction {
        match outcome {
            AttachmentOutcome::Handled => Reaction::Handled,
            AttachmentOutcome::Closed => Reaction::Close,
            AttachmentOutcome::Load(id) => Reaction::Ask(Action::LoadAttachment(id)),
            AttachmentOutcome::Save { path, bytes } => {
                Reaction::Ask(Action::SaveAttachment { path, bytes })
            }
            AttachmentOutcome::Ignored => Reaction::Pass(command),
        }
    }
}

impl Overlay for AttachmentView {
    fn layer(&self) -> Layer {
        Layer::Attachment
    }

    fn context(&self) -> Context {
        if self.save.is_some() {
            Context::PathPrompt
        } else {
            Context::Attachment
        }
    }

    fn on_key(&mut self, key: ratatui::crossterm::event::KeyEvent, cx: &mut Cx<'_>) -> Reaction {
        if self.save.is_some() {
            return self.on_save_key(key);
        }
        match keys::command_for(Context::Attachment, &key) {
            Some(command) => Overlay::on_command(self, command, cx),
            None => Reaction::Handled,
        }
    }

    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction {
        let outcome = AttachmentView::on_command(self, command, cx.page);
        Self::reaction(outcome, command)
    }

    fn paste(&mut self, text: &str) -> bool {
        let Some(prompt) = self.save.as_mut() else {
            return false;
        };
        prompt.paste(text);
        true
    }

    fn render(&mut self, frame: &mut Frame<'_>, area: Rect, cx: &DrawCx<'_>) {
        render_attachment(self, cx.theme, frame, area);
    }

    fn over_panes(&self) -> bool {
        false
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        if self.save.is_some() {
            return vec![("f1", "keys")];
        }
        let mut keys = vec![("j/k", "scroll")];
        if self.can_save() {
            keys.push(("s", "save"));
        }
        if self.has_more() {
            keys.push(("n", "next file"));
        }
        keys.extend([("esc", "close"), ("?", "keys")]);
        keys
    }

    fn on_reply(&mut self, fetch: &Fetch, answer: &Answer, _: &mut Cx<'_>) -> bool {
        let Fetch::Attachment(id) = fetch else {
            return false;
        };
        let got = match answer {
            Answer::Attachment(result) => taken(result, |got| got.clone()),
            _ => return false,
        };
        self.answer(id, got);
        true
    }

    fn on_news(&self, news: News<'_>, cx: &mut Cx<'_>) {
        if matches!(news, News::Reconnected)
            && self.loading()
            && let Some(id) = self.current_id()
        {
            cx.fetch(Fetch::Attachment(id.to_owned()));
        }
    }
}

/// What the bytes are shown as: text when the kind is text, or the file is UTF-8 (an image
/// or a PDF never is shown as text).
fn body_of(kind: &str, bytes: Vec<u8>) -> Body {
    let binary_kind = matches!(kind, "image" | "pdf");
    let text = (!binary_kind)
        .then(|| std::str::from_utf8(&bytes).ok())
        .flatten()
        .filter(|t| !t.contains('\0'))
        .map(|t| clean(t).lines().map(str::to_owned).collect::<Vec<_>>());
    match text {
        Some(lines) => Body::Text {
            bytes: bytes.into(),
            lines,
        },
        None => Body::Binary {
            bytes: bytes.into(),
        },
    }
}

/// The name a file is saved as by default: its own name's last part, on one line.
fn save_name(file: &Listed) -> String {
    let name: String = file.filename.chars().filter(|c| !c.is_control()).collect();
    Path::new(&name)
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| !n.trim().is_empty())
        .map_or_else(|| file.id.clone(), str::to_owned)
}

/// Writes `bytes` to a new file at `path` (an existing one is never overwritten); what was
/// done, as a sentence.
pub fn save(path: &Path, bytes: &[u8]) -> Result<String, String> {
    use std::io::Write as _;
    let shown = path.display();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => {
                format!("{shown} exists; give another name")
            }
            _ => format!("cannot save to {shown}: {e}"),
        })?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot save to {shown}: {e}"))?;
    Ok(format!(
        "saved {} to {shown}",
        human_size(u64::try_from(bytes.len()).unwrap_or(u64::MAX))
    ))
}

/// Draws the viewer over `area`: a header naming the file, its text or what to do with it,
/// and the save prompt or what the last save did at the bottom.
pub fn render_attachment(
    view: &mut AttachmentView,
    theme: &Theme,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    frame.render_widget(Clear, area);
    let width = usize::from(area.width);
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    frame.buffer_mut().set_line(
        area.x,
        area.y,
        &super::chat_view::fit_spans(header_spans(view, theme), width, ellipsis),
        area.width,
    );

    // The bottom row: the save prompt, or what the last save did.
    let footer = view.save.is_some() || view.said.is_some();
    let body_height = usize::from(area.height.saturating_sub(1 + u16::from(footer)));
    let body = Rect {
        y: area.y + 1,
        height: u16::try_from(body_height).unwrap_or(0),
        ..area
    };

    let rows = body_rows(view, theme, area.width, body_height);
    let buf = frame.buffer_mut();
    for (dy, line) in rows.iter().take(body_height).enumerate() {
        let Ok(dy) = u16::try_from(dy) else { break };
        buf.set_line(body.x, body.y + dy, line, body.width);
    }

    if footer {
        let row = Rect {
            y: area.y + area.height - 1,
            height: 1,
            ..area
        };
        render_footer(view, theme, frame, row, body);
    }
}

/// The header: the file, its kind and size, which of the message's files.
fn header_spans(view: &AttachmentView, theme: &Theme) -> Vec<Span<'static>> {
    let dot = theme.glyph(Glyph::Dot);
    let mut head = vec![Span::styled(
        format!(
            "{} {}",
            theme.mark(Mark::Attached),
            view.current()
                .map(|f| clean(&f.filename))
                .unwrap_or_default()
        ),
        theme.style(Role::Accent),
    )];
    let facts = header_facts(view);
    if !facts.is_empty() {
        head.push(Span::styled(
            format!(" {dot} {}", facts.join(&format!(" {dot} "))),
            theme.style(Role::Dim),
        ));
    }
    head
}

/// What the header says about the file: its kind, its size, its count of lines, and which of
/// the message's files it is.
fn header_facts(view: &AttachmentView) -> Vec<String> {
    let mut facts = Vec::new();
    if let Some(f) = view.current() {
        facts.push(f.kind.clone());
    }
    match &view.body {
        Body::Text { bytes, lines } => {
            facts.push(human_size(u64::try_from(bytes.len()).unwrap_or(u64::MAX)));
            let n = lines.len();
            facts.push(format!("{n} {}", if n == 1 { "line" } else { "lines" }));
        }
        Body::Binary { bytes } => {
            facts.push(human_size(u64::try_from(bytes.len()).unwrap_or(u64::MAX)));
        }
        _ => {}
    }
    if view.files.len() > 1 {
        facts.push(format!("{} of {}", view.current + 1, view.files.len()));
    }
    facts
}

/// The rows under the header: a loading line, why the file could not be read, what to do with
/// a binary file, or the scrolled text wrapped at `area_width`.
fn body_rows(
    view: &mut AttachmentView,
    theme: &Theme,
    area_width: u16,
    body_height: usize,
) -> Vec<Line<'static>> {
    let width = usize::from(area_width);
    match &view.body {
        Body::Loading => vec![Line::styled(
            format!("reading{}", theme.glyph(Glyph::Ellipsis)),
            theme.style(Role::Dim),
        )],
        Body::Failed(reason) => wrap(&clean(reason), width)
            .into_iter()
            .map(|r| Line::styled(r, theme.style(Role::Error)))
            .collect(),
        Body::Binary { .. } => binary_rows(view, theme, width),
        Body::Text { .. } => text_rows(view, area_width, body_height),
    }
}

/// The rows saying a terminal cannot show this file, and how to save it to open it elsewhere.
fn binary_rows(view: &AttachmentView, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let kind = view.current().map_or("file", |f| f.kind.as_str());
    let what = match kind {
        "image" => "an image",
        "pdf" => "a PDF",
        _ => "binary data",
    };
    let name = view.current().map(save_name).unwrap_or_default();
    let text = format!(
        "This is {what}, which a terminal cannot show.\n\ns saves it (to ./{name} unless you say where); open it with your viewer from there."
    );
    wrap(&text, width)
        .into_iter()
        .map(|r| Line::styled(r, theme.style(Role::Normal)))
        .collect()
}

/// The text's rows shown from the scroll position, wrapped again only when the width changed
/// (the scroll is kept inside the text).
fn text_rows(view: &mut AttachmentView, area_width: u16, body_height: usize) -> Vec<Line<'static>> {
    let Body::Text { lines, .. } = &view.body else {
        return Vec::new();
    };
    let fresh = view.rows.as_ref().is_none_or(|(w, _)| *w != area_width);
    if fresh {
        let width = usize::from(area_width);
        let wrapped: Vec<String> = lines.iter().flat_map(|l| wrap(l, width)).collect();
        view.rows = Some((area_width, wrapped));
    }
    let all = view.rows.as_ref().map_or(&[][..], |(_, r)| r.as_slice());
    let max = all.len().saturating_sub(body_height);
    view.scroll = view.scroll.min(max);
    all.iter()
        .skip(view.scroll)
        .take(body_height)
        .map(|r| Line::raw(r.clone()))
        .collect()
}

/// Draws the bottom row: the save prompt (and its list above it), or what the last save did.
fn render_footer(
    view: &AttachmentView,
    theme: &Theme,
    frame: &mut Frame<'_>,
    row: Rect,
    body: Rect,
) {
    if let Some(prompt) = &view.save {
        prompt.render(theme, frame, row);
        prompt.render_list(theme, frame, row, body);
    } else if let Some((said, failed)) = &view.said {
        let role = if *failed { Role::Error } else { Role::Success };
        let line = Line::styled(
            fit_end(
                &format!(" {said}"),
                usize::from(row.width),
                theme.glyph(Glyph::Ellipsis),
            ),
            theme.style(role),
        );
        frame.buffer_mut().set_line(row.x, row.y, &line, row.width);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(id: &str, name: &str) -> Listed {
        Listed {
            id: id.into(),
            kind: crate::attachments::kind_of(id).into(),
            filename: name.into(),
            path: String::new(),
        }
    }

    fn got(id: &str, bytes: &[u8]) -> paddock_proto::Attachment {
        paddock_proto::Attachment {
            id: id.into(),
            file_kind: crate::attachments::kind_of(id).into(),
            size: bytes.len() as u64,
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    }

    #[test]
    fn text_shows_and_binary_offers_to_save() {
        let mut v = AttachmentView::new(vec![
            listed("a.log", "build.log"),
            listed("b.png", "shot.png"),
        ]);
        assert_eq!(v.current_id(), Some("a.log"));
        // Another file's answer is not this one's.
        v.answer("b.png", Ok(got("b.png", b"\x89PNG")));
        assert!(v.loading());
        v.answer("a.log", Ok(got("a.log", b"error: x\n")));
        assert!(v.is_text());
        assert_eq!(
            v.on_command(Command::NextAttachment, 10),
            AttachmentOutcome::Load("b.png".into())
        );
        v.answer("b.png", Ok(got("b.png", b"\x89PNG\0")));
        assert!(!v.is_text() && !v.loading());
        assert_eq!(v.on_command(Command::Save, 10), AttachmentOutcome::Handled);
        assert_eq!(v.save.as_ref().map(PathPrompt::line), Some("./shot.png"));
        let AttachmentOutcome::Save { path, bytes } = v.take_path() else {
            panic!("Enter saves");
        };
        assert!(path.ends_with("shot.png"));
        assert_eq!(&bytes[..], b"\x89PNG\0");
        v.saved(Err("shot.png exists; give another name".into()));
        assert_eq!(
            v.save.as_ref().and_then(PathPrompt::error),
            Some("shot.png exists; give another name")
        );
        v.saved(Ok("saved 5 B to ./shot.png".into()));
        assert!(v.save.is_none());
        // Not found, and bad base64, are said in the viewer.
        let mut v = AttachmentView::new(vec![listed("gone.txt", "gone.txt")]);
        v.answer("gone.txt", Err("no attachment gone.txt".into()));
        assert_eq!(v.body, Body::Failed("no attachment gone.txt".into()));
        assert_eq!(v.on_command(Command::Back, 10), AttachmentOutcome::Closed);
    }

    #[test]
    fn a_save_never_overwrites() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("shot.png");
        assert_eq!(
            save(&path, b"1234")?,
            format!("saved 4 B to {}", path.display())
        );
        assert_eq!(std::fs::read(&path)?, b"1234");
        let err = save(&path, b"other").err().unwrap_or_default();
        assert!(err.contains("exists"), "{err}");
        assert_eq!(std::fs::read(&path)?, b"1234");
        Ok(())
    }

    #[test]
    fn save_names_are_one_plain_name() {
        assert_eq!(save_name(&listed("x.md", "notes/plan.md")), "plan.md");
        assert_eq!(save_name(&listed("x.md", "")), "x.md");
        assert_eq!(save_name(&listed("x.md", "a\tb.md")), "ab.md");
    }
}
