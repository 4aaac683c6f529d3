//! The provenance panel: for one file of a project (opened from the Changes or the Files
//! view), whether it still is what its latest recorded write left (Current / Stale /
//! Unverified), the steps that wrote it and read it (newest first: the chat, the tool, observed
//! or inferred, when), the lineage as an indented tree, and the notes saying where the records
//! may be incomplete.
//! `provenance:file` answers it; `b` opens the file's blame, `Esc` goes back.

use std::collections::HashSet;

use paddock_proto::{FileEdge, FileStatus, FileStep, Lineage, Provenance};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::blame_view::open_blame;
use super::fetch::{Answer, Fetch, taken};
use super::keys::Command;
use super::overlay::Reaction;
use super::theme::{Glyph, Mark, Role, Theme};

/// What a command did to the panel, for the dispatcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProvenanceOutcome {
    Handled,
    /// Back to the Changes (or Files) view.
    Closed,
    /// Open the blame of the panel's file.
    Blame,
    /// Not a panel command: let the global keys have it.
    Ignored,
}

/// The panel's state while it is open.
#[derive(Debug, Clone)]
pub struct ProvenanceView {
    project_slug: String,
    path: String,
    provenance: Option<Box<Provenance>>,
    error: Option<String>,
    scroll: u16,
}

impl ProvenanceView {
    pub fn new(project_slug: String, path: String) -> Self {
        Self {
            project_slug,
            path,
            provenance: None,
            error: None,
            scroll: 0,
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

    pub fn set(&mut self, provenance: Box<Provenance>) {
        self.provenance = Some(provenance);
        self.error = None;
    }

    pub fn set_error(&mut self, reason: String) {
        self.error = Some(reason);
    }

    pub fn provenance(&self) -> Option<&Provenance> {
        self.provenance.as_deref()
    }

    pub fn scroll(&self) -> u16 {
        self.scroll
    }

    pub fn on_command(&mut self, command: Command, page: usize) -> ProvenanceOutcome {
        let page = u16::try_from(page.max(1)).unwrap_or(u16::MAX);
        match command {
            Command::Down => self.scroll = self.scroll.saturating_add(1),
            Command::Up => self.scroll = self.scroll.saturating_sub(1),
            Command::PageDown => self.scroll = self.scroll.saturating_add(page),
            Command::PageUp => self.scroll = self.scroll.saturating_sub(page),
            Command::Top => self.scroll = 0,
            Command::Back => return ProvenanceOutcome::Closed,
            Command::Blame => return ProvenanceOutcome::Blame,
            _ => return ProvenanceOutcome::Ignored,
        }
        ProvenanceOutcome::Handled
    }
}

/// The footer while a view's provenance panel has the keyboard.
pub const PANEL_HINTS: [(&str, &str); 4] = [
    ("j/k", "scroll"),
    ("b", "blame"),
    ("esc", "back"),
    ("?", "keys"),
];

/// A command while the provenance panel in `slot` (over Changes, Files or the browser) has
/// the keyboard.
pub fn on_panel_command(
    slot: &mut Option<ProvenanceView>,
    command: Command,
    page: usize,
) -> Reaction {
    let Some(panel) = slot.as_mut() else {
        return Reaction::Handled;
    };
    match panel.on_command(command, page) {
        ProvenanceOutcome::Handled => Reaction::Handled,
        ProvenanceOutcome::Closed => {
            *slot = None;
            Reaction::Handled
        }
        ProvenanceOutcome::Blame => {
            open_blame(panel.project_slug().to_owned(), panel.path().to_owned())
        }
        ProvenanceOutcome::Ignored => Reaction::Global(command),
    }
}

/// An answer for the provenance panel in `slot`: whether it was its file's.
pub fn panel_reply(slot: &mut Option<ProvenanceView>, fetch: &Fetch, answer: &Answer) -> bool {
    let Fetch::Provenance { project_slug, path } = fetch else {
        return false;
    };
    let Some(panel) = slot.as_mut().filter(|p| p.is_for(project_slug, path)) else {
        return false;
    };
    match match answer {
        Answer::Provenance(result) => taken(result, |p| p.clone()),
        _ => return false,
    } {
        Ok(provenance) => panel.set(provenance),
        Err(reason) => panel.set_error(reason),
    }
    true
}

/// The status's word and role.
pub fn status_label(status: FileStatus) -> (&'static str, Role) {
    match status {
        FileStatus::Current => ("Current", Role::Success),
        FileStatus::Stale => ("Stale", Role::Error),
        FileStatus::Unverified => ("Unverified", Role::Warning),
    }
}

/// `2026-11-03 09:14` (UTC) from an RFC 3339 time; the text itself when it is not one.
fn short_time(at: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(at)
        .map(|t| {
            t.with_timezone(&chrono::Utc)
                .format("%Y-%m-%d %H:%M")
                .to_string()
        })
        .unwrap_or_else(|_| at.to_owned())
}

/// The chat's title, else its short id.
fn chat_name(step: &FileStep) -> String {
    match step.title.as_deref().and_then(|t| t.lines().next()) {
        Some(title) if !title.trim().is_empty() => crate::format::clean_title(title),
        _ => format!(
            "chat {}",
            step.session_id.get(..8).unwrap_or(&step.session_id)
        ),
    }
}

fn edge_word(edge: FileEdge) -> &'static str {
    match edge {
        FileEdge::Observed => "observed",
        FileEdge::Inferred => "inferred",
    }
}

/// One step: the chat, then the tool, the edge and the change, and when.
fn step_line(step: &FileStep, theme: &Theme) -> Line<'static> {
    let dot = theme.glyph(Glyph::Dot);
    let edge_role = match step.edge {
        FileEdge::Observed => Role::Normal,
        FileEdge::Inferred => Role::Warning,
    };
    let mut spans = vec![
        Span::raw("   "),
        Span::styled(chat_name(step), theme.style(Role::Normal)),
        Span::styled(format!(" {dot} "), theme.style(Role::Dim)),
        Span::styled(step.tool.clone(), theme.style(Role::Tool)),
        Span::raw(" "),
        Span::styled(edge_word(step.edge), theme.style(edge_role)),
        Span::raw(format!(" {}", step.change)),
        Span::styled(
            format!(" {dot} {}", short_time(&step.at)),
            theme.style(Role::Dim),
        ),
    ];
    if let Some(sp) = &step.specialist {
        spans.push(Span::styled(
            format!(" [subagent {}]", sp.name),
            theme.style(Role::Dim),
        ));
    }
    Line::from(spans)
}

fn heading(text: &str, theme: &Theme) -> Line<'static> {
    Line::styled(format!(" {text}"), theme.style(Role::Accent))
}

/// The lineage as a tree: each node under the node whose inputs name it, indented by depth.
/// A path reached twice is drawn once (the walk keeps one version per path).
fn lineage_lines(lineage: &Lineage, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    if let Some(first) = lineage.nodes.first() {
        lineage_node(lineage, first.path.as_str(), 0, theme, &mut seen, &mut out);
    }
    // Nodes no input reaches (should not happen; never hide one).
    for node in &lineage.nodes {
        if !seen.contains(node.path.as_str()) {
            lineage_node(lineage, node.path.as_str(), 0, theme, &mut seen, &mut out);
        }
    }
    if lineage.truncated {
        out.push(Line::styled(
            "   the walk stopped at its bounds (60 files, 12 hops): more inputs exist",
            theme.style(Role::Warning),
        ));
    }
    out
}

fn lineage_node<'a>(
    lineage: &'a Lineage,
    path: &'a str,
    depth: usize,
    theme: &Theme,
    seen: &mut HashSet<&'a str>,
    out: &mut Vec<Line<'static>>,
) {
    let indent = "  ".repeat(depth);
    let branch = if depth == 0 {
        String::new()
    } else {
        theme.branch()
    };
    let Some(node) = lineage.nodes.iter().find(|n| n.path == path) else {
        // An input the walk did not reach (it stopped).
        out.push(Line::from(vec![
            Span::raw(format!("   {indent}{branch}{path}")),
            Span::styled("  (not followed)", theme.style(Role::Dim)),
        ]));
        return;
    };
    if !seen.insert(node.path.as_str()) {
        out.push(Line::from(vec![
            Span::raw(format!("   {indent}{branch}{path}")),
            Span::styled("  (shown above)", theme.style(Role::Dim)),
        ]));
        return;
    }
    let mut spans = vec![Span::raw(format!("   {indent}{branch}{}", node.path))];
    if let Some(step) = &node.producer {
        let arrow = theme.glyph(Glyph::Back);
        spans.push(Span::styled(
            format!("  {arrow} {} in {}", step.tool, chat_name(step)),
            theme.style(Role::Dim),
        ));
    } else if node.missing_origin {
        spans.push(Span::styled(
            "  no recorded origin (made by you, or there before)",
            theme.style(Role::Warning),
        ));
    }
    if node.changed_since_use {
        spans.push(Span::styled(
            "  changed since use",
            theme.style(Role::Warning),
        ));
    }
    out.push(Line::from(spans));
    for input in &node.inputs {
        lineage_node(lineage, input.as_str(), depth + 1, theme, seen, out);
    }
}

/// The panel's lines at any width (the paragraph wraps them).
pub fn provenance_lines(view: &ProvenanceView, theme: &Theme) -> Vec<Line<'static>> {
    let Some(p) = view.provenance() else {
        let text = match &view.error {
            Some(reason) => {
                return vec![Line::styled(
                    format!(" Cannot read the provenance: {reason}"),
                    theme.style(Role::Error),
                )];
            }
            None => format!(" Loading{}", theme.glyph(Glyph::Ellipsis)),
        };
        return vec![Line::styled(text, theme.style(Role::Dim))];
    };
    let (word, role) = status_label(p.status);
    let mut lines = vec![Line::from(vec![
        Span::raw(" "),
        Span::styled(
            word,
            theme
                .style(role)
                .add_modifier(ratatui::style::Modifier::BOLD),
        ),
        Span::raw(format!("  {}", p.status_reason)),
    ])];
    if let Some(hash) = &p.current_hash {
        let short: String = hash.chars().take(19).collect();
        lines.push(Line::styled(
            format!(" on disk: {short}"),
            theme.style(Role::Dim),
        ));
    }
    lines.push(Line::default());
    lines.push(heading("Written by (newest first)", theme));
    if p.producers.is_empty() {
        lines.push(Line::styled("   no recorded write", theme.style(Role::Dim)));
    }
    lines.extend(p.producers.iter().map(|s| step_line(s, theme)));
    lines.push(heading("Read by", theme));
    if p.readers.is_empty() {
        lines.push(Line::styled("   no recorded read", theme.style(Role::Dim)));
    }
    lines.extend(p.readers.iter().map(|s| step_line(s, theme)));
    lines.push(heading("Lineage", theme));
    lines.extend(lineage_lines(&p.lineage, theme));
    if !p.notes.is_empty() {
        lines.push(heading("Notes", theme));
        let bang = theme.mark(Mark::WARNING);
        lines.extend(
            p.notes
                .iter()
                .map(|n| Line::styled(format!("   {bang} {n}"), theme.style(Role::Warning))),
        );
    }
    lines
}

/// Draws the panel into `area`: a title line, then the lines, wrapped and scrolled.
pub fn render_provenance(view: &ProvenanceView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    if area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let label = fit(&view.path, width.saturating_sub(12), theme);
    let title = Line::from(vec![
        Span::styled(" Provenance ", theme.style(Role::Accent)),
        Span::raw(label),
    ]);
    let (title_row, body) = crate::tui::areas::title_and_body(area);
    frame.render_widget(title, title_row);
    let lines = wrap_lines(provenance_lines(view, theme), width);
    let max = lines.len().saturating_sub(usize::from(body.height));
    let skip = usize::from(view.scroll).min(max);
    frame.render_widget(
        Paragraph::new(lines.into_iter().skip(skip).collect::<Vec<_>>()),
        body,
    );
}

/// Cuts `text` to `max` columns, marking the cut with the theme's ellipsis.
pub(crate) fn fit(text: &str, max: usize, theme: &Theme) -> String {
    if text.width() <= max {
        return text.to_owned();
    }
    let ellipsis = theme.glyph(Glyph::Ellipsis);
    let room = max.saturating_sub(ellipsis.width());
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push_str(ellipsis);
    out
}

/// Wraps styled lines at `width` columns, word by word; a continuation is indented two
/// columns past its line's own indentation, so nested items stay readable when narrow.
pub(crate) fn wrap_lines(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(8);
    let mut out = Vec::new();
    for line in lines {
        if line.width() <= width {
            out.push(line);
            continue;
        }
        let style = line.style;
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        let lead = text.len() - text.trim_start_matches(' ').len();
        let indent = (lead + 2).min(width / 2);
        let mut current: Vec<Span<'static>> = Vec::new();
        let mut used = 0;
        let mut fresh = true;
        for span in line.spans {
            for piece in span.content.split_inclusive(' ') {
                let mut piece = piece.to_owned();
                let room = width.saturating_sub(used);
                if !fresh && piece.trim_end().width() > room {
                    out.push(Line::from(std::mem::take(&mut current)).style(style));
                    current.push(Span::raw(" ".repeat(indent)));
                    used = indent;
                    fresh = true;
                    if piece.trim().is_empty() {
                        continue;
                    }
                }
                // A word longer than a whole line is cut across lines.
                while piece.trim_end().width() > width.saturating_sub(used) {
                    let room = width.saturating_sub(used).max(1);
                    let head: String = piece.chars().take(room).collect();
                    piece = piece.chars().skip(room).collect();
                    current.push(Span::styled(head, span.style));
                    out.push(Line::from(std::mem::take(&mut current)).style(style));
                    current.push(Span::raw(" ".repeat(indent)));
                    used = indent;
                }
                used += piece.width();
                if !piece.trim().is_empty() {
                    fresh = false;
                }
                current.push(Span::styled(piece, span.style));
            }
        }
        if !current.is_empty() {
            out.push(Line::from(current).style(style));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::LineageNode;

    fn step(tool: &str, title: Option<&str>) -> FileStep {
        FileStep {
            session_id: "a3e9b1c4-6d2f".into(),
            job_id: "j".into(),
            step_id: "j:1".into(),
            title: title.map(Into::into),
            tool: tool.into(),
            at: "2026-11-03T09:14:31Z".into(),
            edge: FileEdge::Observed,
            change: "wrote".into(),
            hash: None,
            environment: None,
            model: None,
            specialist: None,
        }
    }

    fn node(path: &str, hops: u32, inputs: &[&str]) -> LineageNode {
        LineageNode {
            path: path.into(),
            hops,
            producer: Some(step("Edit", Some("Fix it"))),
            inputs: inputs.iter().map(|s| (*s).to_owned()).collect(),
            missing_origin: false,
            changed_since_use: false,
        }
    }

    #[test]
    fn wrapping_indents_continuations() {
        let lines = vec![Line::from(vec![
            Span::raw("   "),
            Span::raw("alpha beta gamma"),
            Span::raw(" delta"),
        ])];
        let wrapped = text(&wrap_lines(lines, 12));
        assert_eq!(
            wrapped,
            ["   alpha ", "     beta ", "     gamma ", "     delta"]
        );
        let long = text(&wrap_lines(vec![Line::raw("x abcdefghijklmnop")], 8));
        assert_eq!(long, ["x ", "  abcdef", "  ghijkl", "  mnop"]);
        assert_eq!(fit("abcdef", 4, &Theme::plain()), "a...");
        assert_eq!(fit("abc", 4, &Theme::plain()), "abc");
    }

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn scrolls_and_goes_back() {
        let mut v = ProvenanceView::new("web".into(), "a.rs".into());
        assert_eq!(v.on_command(Command::Down, 10), ProvenanceOutcome::Handled);
        assert_eq!(
            v.on_command(Command::PageDown, 10),
            ProvenanceOutcome::Handled
        );
        assert_eq!(v.scroll(), 11);
        v.on_command(Command::Top, 10);
        v.on_command(Command::Up, 10);
        assert_eq!(v.scroll(), 0);
        assert_eq!(v.on_command(Command::Back, 10), ProvenanceOutcome::Closed);
        assert_eq!(v.on_command(Command::Blame, 10), ProvenanceOutcome::Blame);
        assert_eq!(v.on_command(Command::Quit, 10), ProvenanceOutcome::Ignored);
        assert!(v.is_for("web", "a.rs"));
        assert!(!v.is_for("web", "b.rs"));
    }

    #[test]
    fn the_lineage_is_a_tree_and_shared_inputs_show_once() {
        let lineage = Lineage {
            nodes: vec![
                node("out.csv", 0, &["a.py", "b.py"]),
                node("a.py", 1, &["lib.py"]),
                node("b.py", 1, &["lib.py"]),
                LineageNode {
                    path: "lib.py".into(),
                    hops: 2,
                    producer: None,
                    inputs: Vec::new(),
                    missing_origin: true,
                    changed_since_use: false,
                },
            ],
            truncated: true,
        };
        let lines = text(&lineage_lines(&lineage, &Theme::plain()));
        assert_eq!(lines[0], "   out.csv  <- Edit in Fix it");
        assert_eq!(lines[1], "     `-a.py  <- Edit in Fix it");
        assert!(
            lines[2].starts_with("       `-lib.py  no recorded origin"),
            "{lines:?}"
        );
        assert_eq!(lines[3], "     `-b.py  <- Edit in Fix it");
        assert_eq!(lines[4], "       `-lib.py  (shown above)");
        assert!(lines[5].contains("stopped at its bounds"));
    }

    #[test]
    fn steps_name_the_chat_or_its_short_id() {
        let theme = Theme::plain();
        let named = step_line(&step("Edit", Some("Fix it")), &theme).to_string();
        assert_eq!(named, "   Fix it - Edit observed wrote - 2026-11-03 09:14");
        let anonymous = step_line(&step("Bash", None), &theme).to_string();
        assert!(
            anonymous.starts_with("   chat a3e9b1c4 - Bash"),
            "{anonymous}"
        );
        let mut sub = step("Write", Some("Fix it"));
        sub.specialist = Some(paddock_proto::Specialist {
            agent_id: "a77".into(),
            name: "general-purpose".into(),
            description: None,
            model: None,
        });
        let harvested = step_line(&sub, &theme).to_string();
        assert!(
            harvested.ends_with(" [subagent general-purpose]"),
            "{harvested}"
        );
    }

    #[test]
    fn an_input_changed_since_use_is_marked() {
        let mut changed = node("spec.md", 1, &[]);
        changed.changed_since_use = true;
        let lineage = Lineage {
            nodes: vec![node("out.md", 0, &["spec.md"]), changed],
            truncated: false,
        };
        let lines = text(&lineage_lines(&lineage, &Theme::plain()));
        assert_eq!(
            lines[1], "     `-spec.md  <- Edit in Fix it  changed since use",
            "{lines:?}"
        );
    }
}
