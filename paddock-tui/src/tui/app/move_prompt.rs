//! `M` on a root chat in the tree: the project to move it to, with the chats under it, typed
//! on the status line. Tab goes through the projects whose slugs start with what was typed
//! (Shift-Tab backwards); a slug no project has makes a new project, which the prompt says
//! before Enter. Enter moves it (`chat:promote`), Esc leaves it where it is; a line that is
//! no slug, or a move the daemon refuses, keeps (or opens again) the prompt with the reason.
//! Only a root chat moves: one under another chat is moved with its root, or detached (`d`)
//! first; a chat that cannot move now (it runs, or works in a worktree) is refused at `M`.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Action, App};
use crate::format::{ROOT_SLUG, project_label, project_phrase};
use crate::tui::hosts::slugs::{host_of, local_of, qualified};
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
    /// The line names no project: Enter makes one.
    pub new_project: bool,
    /// The line is no project's and no slug a project could have.
    pub not_a_slug: bool,
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

/// The slug a line names: the root workspace's label is its empty slug (`HOST:(root)` is
/// `HOST:`). On a client of several hosts (`from` is `HOST:SLUG`) a slug without a host is one
/// of the chat's own host: a chat moves within its host.
fn slug_of(line: &str, from: &str) -> String {
    let line = line.trim();
    let slug = match line.strip_suffix(":(root)") {
        Some(host) => format!("{host}:"),
        None if line == project_label(ROOT_SLUG) => ROOT_SLUG.to_owned(),
        None => line.to_owned(),
    };
    match (host_of(from), host_of(&slug)) {
        (Some(host), None) => qualified(host, &slug),
        _ => slug,
    }
}

/// Whether `slug` can name a project to move the chat of `from` to: the daemon's rule, for the
/// part after the host when the chat's own slug has one (a client of several hosts).
fn valid_target(slug: &str, from: &str) -> bool {
    let local = match host_of(from) {
        Some(_) => local_of(slug),
        None => slug,
    };
    local.is_empty() || paddock_proto::valid_slug(local)
}

/// The chats under `sid` in the listed tree of `project`.
fn under<'a>(app: &'a App, project: &str, sid: &str) -> Vec<&'a paddock_proto::ChatSummary> {
    let mut out = Vec::new();
    let mut stack: Vec<&str> = vec![sid];
    while let Some(cur) = stack.pop() {
        for child in app
            .tree
            .chat(project, cur)
            .map_or(&[][..], |c| &c.children[..])
        {
            if let Some(c) = app.tree.chat(project, child) {
                out.push(c);
                stack.push(&c.session_id);
            }
        }
    }
    out
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
        // What the daemon would refuse, said now, in the TUI's keys.
        let below = under(self, &chat.project_slug, &chat.session_id);
        if chat.running || below.iter().any(|c| c.running) {
            let who = if chat.running {
                "it is"
            } else {
                "a chat under it is"
            };
            self.notice.info(format!(
                "{who} running a turn: move it once it is idle (x stops a turn)"
            ));
            return;
        }
        if chat.worktree.is_some() || below.iter().any(|c| c.worktree.is_some()) {
            let who = if chat.worktree.is_some() {
                "it works"
            } else {
                "a chat under it works"
            };
            self.notice.info(format!(
                "{who} in a worktree of its own: merge or discard it first (paddock worktree merge|discard)"
            ));
            return;
        }
        let under = below.len();
        let (sid, project, title) = (
            chat.session_id.clone(),
            chat.project_slug.clone(),
            chat.title.clone(),
        );
        self.move_prompt = Some(MovePrompt {
            under,
            session_id: sid,
            title: self.quoted(&title, 40),
            from: project,
            input: String::new(),
            typed: String::new(),
            at: None,
            error: None,
            new_project: false,
            not_a_slug: false,
        });
    }

    /// A key while the prompt is open.
    pub(super) fn on_move_key(&mut self, key: KeyEvent) -> Option<Action> {
        match key.code {
            KeyCode::Esc => {
                self.move_prompt = None;
                self.notice.info("nothing was moved");
                return None;
            }
            KeyCode::Enter => return self.take_move(),
            _ => {}
        }
        let slugs: Vec<String> = self
            .tree
            .projects()
            .iter()
            .map(|p| project_label(&p.slug).into_owned())
            .collect();
        let prompt = self.move_prompt.as_mut()?;
        prompt.on_key(key, &slugs);
        let line = prompt.input.trim();
        let new = !line.is_empty() && !slugs.iter().any(|s| s == line);
        let valid = valid_target(&slug_of(line, &prompt.from), &prompt.from);
        (prompt.new_project, prompt.not_a_slug) = (new && valid, new && !valid);
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

    /// Enter: the move, unless the line names nothing, no slug, or the chat's own project.
    /// The prompt is kept until the daemon answers, to open again if it refuses.
    fn take_move(&mut self) -> Option<Action> {
        let prompt = self.move_prompt.as_mut()?;
        let to = slug_of(&prompt.input, &prompt.from);
        let refusal = if prompt.input.trim().is_empty() {
            Some("type a project's slug (Tab goes through them)".to_owned())
        } else if to == prompt.from {
            Some(format!("it is in {} already", project_label(&to)))
        } else if !valid_target(&to, &prompt.from) {
            Some(format!("a slug is {}", paddock_proto::SLUG_RULE))
        } else {
            None
        };
        if let Some(why) = refusal {
            prompt.error = Some(why);
            return None;
        }
        let prompt = self.move_prompt.take()?;
        self.notice.while_(
            format!("moving {} to {}…", prompt.title, project_phrase(&to)),
            State::Request,
        );
        let action = Action::Promote {
            session_id: prompt.session_id.clone(),
            to_project: to,
        };
        self.move_sent = Some(prompt);
        Some(action)
    }

    /// The daemon moved the chats: the cursor follows the chat to its new project.
    pub fn promoted(&mut self, p: paddock_proto::Promoted) {
        let asked = self.move_sent.take();
        let Some(first) = p.session_ids.first().cloned() else {
            return;
        };
        self.tree.select_when_listed(RowId::Chat {
            project: p.to_project.clone(),
            session_id: first,
        });
        let title = asked.map_or_else(|| "the chat".to_owned(), |a| a.title);
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
            "moved {title}{with} to {}{made}",
            project_phrase(&p.to_project)
        ));
    }

    /// The daemon refused the move: the prompt opens again with its reason (Esc leaves it).
    pub fn promote_failed(&mut self, reason: &str) {
        match self.move_sent.take() {
            Some(mut prompt) => {
                self.notice.clear();
                prompt.error = Some(reason.to_owned());
                self.move_prompt = Some(prompt);
            }
            None => self.notice.error(format!("move failed: {reason}")),
        }
    }
}

impl MovePrompt {
    /// A key that edits the line or goes through the projects (`slugs`, as labels).
    fn on_key(&mut self, key: KeyEvent, slugs: &[String]) {
        match key.code {
            KeyCode::Tab | KeyCode::BackTab => {
                let own = project_label(&self.from);
                let matches: Vec<&String> = slugs
                    .iter()
                    .filter(|s| s.starts_with(&self.typed) && s.as_str() != own)
                    .collect();
                if matches.is_empty() {
                    self.error = Some(format!("no project starts with {:?}", self.typed));
                    return;
                }
                let n = matches.len();
                let at = match (self.at, key.code) {
                    (None, KeyCode::BackTab) => n - 1,
                    (None, _) => 0,
                    (Some(i), KeyCode::BackTab) => (i + n - 1) % n,
                    (Some(i), _) => (i + 1) % n,
                };
                self.at = Some(at);
                self.input = matches[at].clone();
                self.error = None;
            }
            KeyCode::Backspace => {
                self.input.pop();
                self.typed = self.input.clone();
                (self.at, self.error) = (None, None);
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.input.push(c);
                self.typed = self.input.clone();
                (self.at, self.error) = (None, None);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_workspace_is_named_by_its_label() {
        assert_eq!(slug_of(" (root) ", "web"), "");
        assert_eq!(slug_of("web", ""), "web");
    }

    #[test]
    fn on_several_hosts_a_chat_moves_within_its_host() {
        // A slug alone is one of the chat's host; a host's root by its label or `HOST:`.
        assert_eq!(slug_of("api", "devbox:web"), "devbox:api");
        assert_eq!(slug_of("(root)", "devbox:web"), "devbox:");
        assert_eq!(slug_of("devbox:(root)", "devbox:web"), "devbox:");
        assert_eq!(slug_of("gpubox:train", "devbox:web"), "gpubox:train");
        assert!(valid_target("devbox:api", "devbox:web") && valid_target("devbox:", "devbox:web"));
        assert!(!valid_target("devbox:Not A Slug", "devbox:web"));
        // On a client of one host a `:` is no host: the daemon's rule as ever.
        assert!(!valid_target("a:b", "web"));
    }
}
