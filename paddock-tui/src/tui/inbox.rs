//! The approvals inbox: every tool call waiting for a person, across all chats, with the
//! chat's origin badge and a preview (the command, or a diff of an edit). `y` allows, `n`
//! denies, `a` allows and adds a rule, on the cursor's row or the marked ones.

use std::collections::BTreeSet;

use paddock_proto::Approval;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::action::Action;
use super::fetch::Fetch;
use super::keys::{Command, Context};
use super::overlay::{Cx, DrawCx, Layer, News, Overlay, Reaction};
use super::theme::{Glyph, Mark, Role, Theme};

/// The inbox's state while it is open.
#[derive(Debug, Clone, Default)]
pub struct InboxView {
    pub approvals: Vec<Approval>,
    /// Whether the list was read at least once since the inbox opened.
    pub loaded: bool,
    cursor: usize,
    marked: BTreeSet<String>,
}

impl InboxView {
    /// Replaces the list, keeping the cursor on the same approval when it is still there.
    pub fn set(&mut self, approvals: Vec<Approval>) {
        let at = self.approvals.get(self.cursor).map(|a| a.id.clone());
        self.approvals = approvals;
        self.loaded = true;
        self.marked
            .retain(|id| self.approvals.iter().any(|a| &a.id == id));
        self.cursor = at
            .and_then(|id| self.approvals.iter().position(|a| a.id == id))
            .unwrap_or(self.cursor)
            .min(self.approvals.len().saturating_sub(1));
    }

    pub fn move_by(&mut self, delta: isize) {
        let last = self.approvals.len().saturating_sub(1);
        self.cursor = self.cursor.saturating_add_signed(delta).min(last);
    }

    pub fn cursor(&self) -> Option<&Approval> {
        self.approvals.get(self.cursor)
    }

    pub fn toggle_mark(&mut self) {
        if let Some(id) = self.cursor().map(|a| a.id.clone())
            && !self.marked.remove(&id)
        {
            self.marked.insert(id);
        }
    }

    /// The ids an answer applies to: the marked ones, else the cursor's.
    pub fn targets(&self) -> Vec<String> {
        if self.marked.is_empty() {
            self.cursor()
                .map(|a| vec![a.id.clone()])
                .unwrap_or_default()
        } else {
            self.marked.iter().cloned().collect()
        }
    }

    pub fn clear_marks(&mut self) {
        self.marked.clear();
    }
}

impl Overlay for InboxView {
    fn layer(&self) -> Layer {
        Layer::Inbox
    }

    fn context(&self) -> Context {
        Context::Inbox
    }

    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction {
        let decision = match command {
            Command::Down => {
                self.move_by(1);
                return Reaction::Handled;
            }
            Command::Up => {
                self.move_by(-1);
                return Reaction::Handled;
            }
            Command::Mark => {
                self.toggle_mark();
                return Reaction::Handled;
            }
            Command::Back | Command::Inbox => return Reaction::Close,
            Command::Open => {
                return match self.cursor() {
                    Some(a) => Reaction::CloseAndOpen {
                        project_slug: a.project_slug.clone(),
                        session_id: a.session_id.clone(),
                    },
                    None => Reaction::Handled,
                };
            }
            Command::Allow => paddock_proto::ApprovalDecision::Allow,
            Command::Deny => paddock_proto::ApprovalDecision::Deny,
            Command::AllowAlways => paddock_proto::ApprovalDecision::Always,
            other => return Reaction::Global(other),
        };
        let ids = self.targets();
        self.clear_marks();
        if decision == paddock_proto::ApprovalDecision::Always {
            // The rules, said on the status line as they are written.
            let notes: Vec<String> = self
                .approvals
                .iter()
                .filter(|a| ids.contains(&a.id))
                .map(always_note)
                .collect();
            if !notes.is_empty() {
                cx.say(notes.join("; "));
            }
        }
        if ids.is_empty() {
            return Reaction::Handled;
        }
        Reaction::Ask(Action::Answer { ids, decision })
    }

    fn render(&mut self, frame: &mut Frame<'_>, area: Rect, cx: &DrawCx<'_>) {
        render_inbox(self, cx.theme, frame, area);
    }

    fn over_panes(&self) -> bool {
        false
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("y", "allow"),
            ("n", "deny"),
            ("a", "always"),
            ("space", "select"),
            ("esc", "close"),
        ]
    }

    fn on_news(&self, news: News<'_>, cx: &mut Cx<'_>) {
        if matches!(news, News::ApprovalsChanged) {
            cx.fetch(Fetch::Approvals);
        }
    }
}

/// Draws the inbox into `area`: the list, then the cursor's call in full.
pub fn render_inbox(view: &InboxView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    if area.height == 0 {
        return;
    }
    let title = Line::from(vec![
        Span::styled(" Approvals ", theme.style(Role::Accent)),
        Span::styled(
            {
                let dot = theme.glyph(Glyph::Dot);
                format!(
                    "{} waiting  y allow {dot} n deny {dot} a always {dot} space select {dot} Esc close",
                    view.approvals.len()
                )
            },
            theme.style(Role::Dim),
        ),
    ]);
    let (title_row, body) = crate::tui::areas::title_and_body(area);
    frame.render_widget(title, title_row);
    if view.approvals.is_empty() {
        let text = if view.loaded {
            "Nothing waits for you.".to_owned()
        } else {
            format!("Loading{}", theme.glyph(Glyph::Ellipsis))
        };
        frame.render_widget(
            Line::styled(format!("  {text}"), theme.style(Role::Dim)),
            body,
        );
        return;
    }
    let list_height = u16::try_from(view.approvals.len())
        .unwrap_or(u16::MAX)
        .min(body.height / 2)
        .max(1);
    let [list, detail] =
        Layout::vertical([Constraint::Length(list_height), Constraint::Min(0)]).areas(body);
    let width = usize::from(area.width);
    let skip = view
        .cursor
        .saturating_sub(usize::from(list_height).saturating_sub(1));
    let lines: Vec<Line<'_>> = view
        .approvals
        .iter()
        .enumerate()
        .skip(skip)
        .take(usize::from(list_height))
        .map(|(i, a)| row(view, theme, a, i == view.cursor, width))
        .collect();
    frame.render_widget(Paragraph::new(lines), list);
    if let Some(a) = view.cursor() {
        let mut text = vec![Line::styled(
            format!(" {} in {}", a.tool, chat_name(a)),
            theme.style(Role::Accent),
        )];
        let preview = a.preview.clone().unwrap_or_else(|| a.input.to_string());
        text.extend(preview.lines().map(|l| {
            let role = if l.starts_with("+ ") {
                Role::Success
            } else if l.starts_with("- ") {
                Role::Error
            } else {
                Role::Normal
            };
            Line::styled(format!(" {l}"), theme.style(role))
        }));
        // What `a` would write, before it is written.
        text.push(Line::styled(
            format!(" a: {}", always_note(a)),
            theme.style(Role::Dim),
        ));
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), detail);
    }
}

/// What "always" does for this call: the rules it adds to which project, or why no rule can
/// cover it (then it allows the call once).
pub fn always_note(a: &Approval) -> String {
    if a.kind == paddock_proto::ApprovalKind::Cap {
        return "y or a lifts the tree's cap (its count starts again) and runs it; n denies it"
            .to_owned();
    }
    if a.always_rules.is_empty() {
        return match &a.always_why_not {
            Some(why) => format!("always: no rule can cover this call ({why}); allows it once"),
            None => "always: no rule can cover this call; allows it once".to_owned(),
        };
    }
    format!(
        "always adds {} to project {}",
        a.always_rules.join(", "),
        crate::format::project_label(&a.project_slug)
    )
}

/// Where the asking chat is: its project, then its title (or short id).
fn chat_name(a: &Approval) -> String {
    let title = a.title.lines().next().unwrap_or_default();
    let chat = if title.trim().is_empty() {
        format!("chat {}", a.session_id.get(..8).unwrap_or(&a.session_id))
    } else {
        title.to_owned()
    };
    format!("{} / {chat}", crate::format::project_label(&a.project_slug))
}

fn row<'a>(
    view: &InboxView,
    theme: &Theme,
    a: &'a Approval,
    cursor: bool,
    width: usize,
) -> Line<'a> {
    let mark = if view.marked.contains(&a.id) {
        theme.mark(Mark::Selected)
    } else {
        " "
    };
    let badge = theme.badge(a.origin, a.depth, false, true);
    let first = a
        .preview
        .as_deref()
        .and_then(|p| p.lines().next())
        .unwrap_or_default();
    let mut spans = vec![
        Span::raw(if cursor {
            theme.mark(Mark::Cursor)
        } else {
            " "
        }),
        Span::raw(mark),
        Span::raw(" "),
    ];
    if let Some(b) = badge {
        spans.push(b);
        spans.push(Span::raw(" "));
    }
    spans.push(Span::styled(a.tool.clone(), theme.style(Role::Tool)));
    spans.push(Span::raw(" "));
    let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
    let room = width.saturating_sub(used + 1);
    let rest = format!("{first}  ({})", chat_name(a));
    let rest: String = rest.chars().take(room).collect();
    spans.push(Span::raw(rest));
    let line = Line::from(spans);
    if cursor {
        line.style(theme.style(Role::Selected))
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::Origin;

    fn approval(id: &str) -> Approval {
        Approval {
            id: id.into(),
            project_slug: String::new(),
            session_id: "5f0c2d8e-3b7a".into(),
            job_id: "j".into(),
            title: "Nightly backup check".into(),
            origin: Origin::Scheduled,
            depth: 0,
            tool: "Bash".into(),
            input: serde_json::json!({"command": "rm -rf /tmp/x"}),
            preview: Some("$ rm -rf /tmp/x".into()),
            asked_at: "2026-01-01T00:00:00Z".into(),
            always_rules: vec!["Bash(rm:*)".into()],
            always_why_not: None,
            kind: paddock_proto::ApprovalKind::Tool,
        }
    }

    #[test]
    fn targets_are_the_marks_else_the_cursor_and_survive_reloads() {
        let mut v = InboxView::default();
        v.set(vec![approval("a"), approval("b"), approval("c")]);
        assert_eq!(v.targets(), ["a"]);
        v.move_by(2);
        v.toggle_mark();
        v.move_by(-1);
        v.toggle_mark();
        assert_eq!(v.targets(), ["b", "c"]);
        // "b" was answered elsewhere: the cursor stays on its neighbour, the marks follow.
        v.set(vec![approval("a"), approval("c")]);
        assert_eq!(v.targets(), ["c"]);
        v.clear_marks();
        assert_eq!(v.cursor().map(|a| a.id.as_str()), Some("c"));
    }

    #[test]
    fn renders_the_list_and_the_preview() -> Result<(), Box<dyn std::error::Error>> {
        let mut v = InboxView::default();
        v.set(vec![approval("a")]);
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(60, 10))?;
        term.draw(|f| render_inbox(&v, &Theme::plain(), f, f.area()))?;
        let text = format!("{:?}", term.backend());
        assert!(
            text.contains("Bash $ rm -rf /tmp/x  ((root) / Nightly backup check)"),
            "{text}"
        );
        assert!(text.contains("@"), "the scheduled badge, in ASCII: {text}");
        assert!(
            text.contains("a: always adds Bash(rm:*) to project (root)"),
            "the rule, before it is written: {text}"
        );
        Ok(())
    }

    #[test]
    fn a_cap_says_what_answering_it_does() -> Result<(), Box<dyn std::error::Error>> {
        let mut v = InboxView::default();
        v.set(vec![Approval {
            tool: "mcp__paddock_manage__create_chat".into(),
            preview: Some(
                "paused: the tree hit its cap (20 chats created in the last minute, limit 20)"
                    .into(),
            ),
            always_rules: Vec::new(),
            kind: paddock_proto::ApprovalKind::Cap,
            ..approval("a")
        }]);
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 10))?;
        term.draw(|f| render_inbox(&v, &Theme::plain(), f, f.area()))?;
        let text = format!("{:?}", term.backend());
        assert!(
            text.contains("paused: the tree hit its cap (20 chats"),
            "{text}"
        );
        assert!(
            text.contains("y or a lifts the tree's cap (its count starts again) and runs it"),
            "{text}"
        );
        Ok(())
    }
}
