//! `M` on a root chat in the tree: the project to move it to, with the chats under it, typed
//! on the status line. Tab goes through the projects whose slugs start with what was typed
//! (Shift-Tab backwards); a slug no project has makes a new project. Enter moves it
//! (`chat:promote`), Esc leaves it where it is. Only a root chat moves: one under another
//! chat is moved with its root, or detached (`d`) first.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Action, App};
use crate::format::{ROOT_SLUG, project_label};
use crate::tui::notice::State;
use crate::tui::tree::RowId;

/// The prompt while it is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovePrompt {
    pub session_id: String,
    /// The chat's title, quoted and cut, as the question names it.
    pub title: String,
    /// How many chats are under it (they go with it).
    pub under: usize,
    /// The project it is in.
    pub from: String,
    /// What the line holds.
    pub input: String,
    /// What was typed before Tab went through the matches, and which match is shown.
    typed: String,
    at: Option<usize>,
    /// Said in the prompt after an Enter it could not take.
    pub error: Option<String>,
}

impl MovePrompt {
    /// The question the status line asks.
    pub fn question(&self) -> String {
        let with = match self.under {
            0 => String::new(),
            1 => " and the chat under it".to_owned(),
            n => format!(" and the {n} chats under it"),
        };
        format!("move {}{with} to project: ", self.title)
    }
}

/// The slug a line names: the root workspace's label is its empty slug.
fn slug_of(line: &str) -> &str {
    match line.trim() {
        l if l == project_label(ROOT_SLUG) => ROOT_SLUG,
        l => l,
    }
}

/// How many chats are under `sid` in the listed tree of `project`.
fn count_under(app: &App, project: &str, sid: &str) -> usize {
    let chats = app.tree.project_chats(project);
    let mut stack = vec![sid.to_owned()];
    let mut seen = 0;
    while let Some(cur) = stack.pop() {
        if let Some(c) = chats.iter().find(|c| c.session_id == cur) {
            seen += c.children.len();
            stack.extend(c.children.iter().cloned());
        }
    }
    seen
}

impl App {
    /// `M`: opens the prompt for the cursor's chat, when it is a root.
    pub(super) fn start_move(&mut self) {
        let Some(chat) = self.tree.cursor_chat() else {
            self.notice.info("put the cursor on the chat to move");
            return;
        };
        if let Some(parent) = &chat.tree_parent {
            let parent = self
                .tree
                .chat(&chat.project_slug, parent)
                .map_or_else(|| parent.clone(), |p| p.title.clone());
            let parent = self.quoted(&parent, 40);
            self.notice.info(format!(
                "only a root chat moves, with the chats under it: this one is under {parent} (d detaches it)"
            ));
            return;
        }
        let (sid, project, title) = (
            chat.session_id.clone(),
            chat.project_slug.clone(),
            chat.title.clone(),
        );
        self.move_prompt = Some(MovePrompt {
            under: count_under(self, &project, &sid),
            session_id: sid,
            title: self.quoted(&title, 40),
            from: project,
            input: String::new(),
            typed: String::new(),
            at: None,
            error: None,
        });
    }

    /// A key while the prompt is open.
    pub(super) fn on_move_key(&mut self, key: KeyEvent) -> Option<Action> {
        let slugs: Vec<String> = self
            .tree
            .projects()
            .iter()
            .map(|p| project_label(&p.slug).to_owned())
            .collect();
        let prompt = self.move_prompt.as_mut()?;
        match key.code {
            KeyCode::Esc => {
                self.move_prompt = None;
                self.notice.info("nothing was moved");
            }
            KeyCode::Enter => return self.take_move(),
            KeyCode::Tab | KeyCode::BackTab => {
                let matches: Vec<&String> = slugs
                    .iter()
                    .filter(|s| s.starts_with(&prompt.typed) && **s != project_label(&prompt.from))
                    .collect();
                if matches.is_empty() {
                    prompt.error = Some(format!("no project starts with {:?}", prompt.typed));
                    return None;
                }
                let n = matches.len();
                let at = match (prompt.at, key.code) {
                    (None, KeyCode::BackTab) => n - 1,
                    (None, _) => 0,
                    (Some(i), KeyCode::BackTab) => (i + n - 1) % n,
                    (Some(i), _) => (i + 1) % n,
                };
                prompt.at = Some(at);
                prompt.input = matches[at].clone();
                prompt.error = None;
            }
            KeyCode::Backspace => {
                prompt.input.pop();
                prompt.typed = prompt.input.clone();
                (prompt.at, prompt.error) = (None, None);
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                prompt.input.push(c);
                prompt.typed = prompt.input.clone();
                (prompt.at, prompt.error) = (None, None);
            }
            _ => {}
        }
        None
    }

    /// Text pasted into the prompt: its first line.
    pub(super) fn paste_move(&mut self, text: &str) {
        if let Some(prompt) = self.move_prompt.as_mut() {
            prompt
                .input
                .push_str(text.lines().next().unwrap_or_default());
            prompt.typed = prompt.input.clone();
            prompt.at = None;
        }
    }

    /// Enter: the move, unless the line names nothing or the chat's own project.
    fn take_move(&mut self) -> Option<Action> {
        let prompt = self.move_prompt.as_mut()?;
        let to = slug_of(&prompt.input).to_owned();
        if prompt.input.trim().is_empty() {
            prompt.error = Some("type a project's slug (Tab goes through them)".to_owned());
            return None;
        }
        if to == prompt.from {
            prompt.error = Some(format!("it is in {} already", project_label(&to)));
            return None;
        }
        let prompt = self.move_prompt.take()?;
        let title = prompt.title.clone();
        self.notice.while_(
            format!("moving {title} to {}…", project_label(&to)),
            State::Request,
        );
        Some(Action::Promote {
            session_id: prompt.session_id,
            to_project: to,
        })
    }

    /// The daemon moved the chats: the cursor follows the chat to its new project.
    pub fn promoted(&mut self, p: paddock_proto::Promoted) {
        let Some(first) = p.session_ids.first().cloned() else {
            return;
        };
        self.tree.select_when_listed(RowId::Chat {
            project: p.to_project.clone(),
            session_id: first,
        });
        let made = if p.created_project {
            " (a new project)"
        } else {
            ""
        };
        let with = match p.session_ids.len() {
            1 => String::new(),
            2 => " with the chat under it".to_owned(),
            n => format!(" with the {} chats under it", n - 1),
        };
        self.notice.info(format!(
            "moved{with} to {}{made}",
            project_label(&p.to_project)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_workspace_is_named_by_its_label() {
        assert_eq!(slug_of(" (root) "), "");
        assert_eq!(slug_of("web"), "web");
    }
}
