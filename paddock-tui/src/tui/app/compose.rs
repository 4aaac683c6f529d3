//! The composer's side of the app: drafts kept per chat as the composer turns from one to
//! another, a message held until the daemon answers (refused, it goes back into its draft),
//! the path prompt that attaches a file.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::{Action, App, Focus, Sending, draft_key};
use crate::tui::attach::{PathPrompt, PromptOutcome};
use crate::tui::chat::ChatView;
use crate::tui::composer::{ComposerOutcome, Target};
use crate::tui::keys::{self, Command, Context};
use crate::tui::prefs;
use crate::tui::tree::RowId;

impl App {
    /// The composer's draft and model from the client state, for its target.
    pub(super) fn load_composer(&mut self) {
        let key = draft_key(self.composer.target());
        match self.prefs.draft(&key) {
            Some(text) => self.composer.set_text(text),
            None => self.composer.clear(),
        }
        self.composer.model = self.prefs.model(&key).map(str::to_owned);
        self.composer.preload = self.prefs.preload(&key);
        // A new chat works where its project's chats do, until Alt-w says otherwise.
        if let Target::NewChat { project_slug } = self.composer.target() {
            let by_default = self.tree.projects().iter().any(|p| {
                p.slug == *project_slug
                    && p.isolation == Some(paddock_proto::ProjectIsolation::Worktree)
            });
            self.composer.worktree = by_default;
            self.composer.worktree_default = by_default;
        }
    }

    /// Aims the composer at another chat (or a new one): the draft typed so far stays with
    /// its chat, and the new target's draft and model come back.
    pub(super) fn aim_composer(&mut self, target: Target) {
        let from = draft_key(self.composer.target());
        let to = draft_key(&target);
        let same = from == to;
        if !same {
            self.sync_composer_prefs();
            let files = self.composer.take_attachments();
            if !files.is_empty() {
                self.parked_attachments.insert(from, files);
            }
        }
        self.composer.set_target(target);
        if !same {
            self.load_composer();
            self.composer
                .set_attachments(self.parked_attachments.remove(&to).unwrap_or_default());
        }
    }

    /// The daemon answered a message sent to `session_id` (`None`: a new chat in
    /// `project_slug`). Refused, the message goes back into that chat's draft with its files,
    /// and the daemon's reason is said; sent, it is forgotten.
    pub fn send_answered(
        &mut self,
        project_slug: &str,
        session_id: Option<&str>,
        result: Result<(), String>,
    ) {
        let key = match session_id {
            Some(sid) => sid.to_owned(),
            None => prefs::new_chat_key(project_slug),
        };
        let Some(at) = self.sending.iter().position(|s| s.key == key) else {
            if let Err(reason) = result {
                self.notice.error(format!("send failed: {reason}"));
            }
            return;
        };
        let sending = self.sending.remove(at);
        let Err(reason) = result else {
            return;
        };
        if draft_key(self.composer.target()) == key {
            self.composer.put_back(&sending.text, sending.attachments);
        } else {
            let draft = match self.prefs.draft(&key) {
                Some(now) if !now.is_empty() => format!("{}\n{now}", sending.text),
                _ => sending.text.clone(),
            };
            self.prefs.set_draft(&key, &draft, prefs::unix_now());
            let parked = self.parked_attachments.entry(key).or_default();
            let since = std::mem::replace(parked, sending.attachments);
            parked.extend(since);
        }
        self.notice
            .error(format!("not sent: {reason} (the draft is kept)"));
    }

    /// Aims the composer back at the open chat (after a new chat's draft, say).
    pub(super) fn aim_at_open_chat(&mut self) {
        let Some(chat) = self.chat.as_ref() else {
            return;
        };
        let sid = chat.session_id().to_owned();
        if matches!(self.composer.target(), Target::Reply { session_id, .. } if *session_id == sid)
        {
            return;
        }
        let title = chat.title().to_owned();
        let running = chat.running();
        let queued = self.find_chat(&sid).and_then(|c| c.queued.clone());
        self.aim_composer(Target::Reply {
            session_id: sid,
            title,
        });
        self.composer.set_running(running);
        self.composer.set_queued(queued);
    }

    /// Puts the tree's cursor on the chat the pane shows (once the tree lists it).
    pub(super) fn aim_tree_at_open_chat(&mut self) {
        if let Some(chat) = &self.chat {
            self.tree.select_when_listed(RowId::Chat {
                project: chat.project_slug().to_owned(),
                session_id: chat.session_id().to_owned(),
            });
        }
    }

    /// A new chat was started and got its session id: the model chosen for it stays with it.
    /// Words typed while the daemon answered belong to the new chat too: a composer still
    /// aimed at that project's new chat is aimed at the chat, its text kept.
    pub fn new_chat_sent(&mut self, project_slug: &str, session_id: &str) {
        let now = prefs::unix_now();
        let key = prefs::new_chat_key(project_slug);
        self.prefs.carry_model(&key, session_id, now);
        if matches!(self.composer.target(), Target::NewChat { project_slug: p } if p == project_slug)
        {
            self.composer.set_target(Target::Reply {
                session_id: session_id.to_owned(),
                title: String::new(),
            });
            self.prefs.set_draft(&key, "", now);
        }
    }

    /// A key while the composer's path prompt has the keyboard: complete, take, cancel,
    /// else an edit.
    pub(super) fn on_path_key(&mut self, key: KeyEvent) -> Option<Action> {
        match keys::command_for(Context::PathPrompt, &key) {
            Some(command @ (Command::Help | Command::Quit)) => self.global(command),
            Some(Command::Complete) => {
                let back = key.code == KeyCode::BackTab;
                self.attach_prompt.as_mut()?.complete(back);
                None
            }
            Some(Command::Back) => {
                self.attach_prompt = None;
                None
            }
            Some(Command::TakePath) => self.take_path(),
            Some(_) => None,
            None => {
                self.attach_prompt.as_mut()?.edit_key(key);
                None
            }
        }
    }

    /// Enter in the composer's path prompt: attaches the file (after checking it is one this
    /// process can read), or says why not and keeps the prompt.
    fn take_path(&mut self) -> Option<Action> {
        let prompt = self.attach_prompt.as_mut()?;
        let PromptOutcome::Submit(path) = prompt.submit() else {
            return None;
        };
        let picked = match crate::attachments::check(&path) {
            Ok(picked) => picked,
            Err(reason) => {
                prompt.set_error(reason);
                return None;
            }
        };
        let (name, size) = (picked.name.clone(), picked.size);
        match self.composer.attach(picked) {
            Ok(()) => {
                self.attach_prompt = None;
                self.notice.info(format!(
                    "attached {name} ({}); Alt-t drops it",
                    crate::attachments::human_size(size)
                ));
            }
            Err(reason) => prompt.set_error(reason),
        }
        None
    }

    /// A key while the composer has the keyboard: the keys that cannot be text keep their
    /// global meaning, everything else edits the draft.
    pub(super) fn on_composer_key(&mut self, key: KeyEvent) -> Option<Action> {
        // Tab, Ctrl-L and F1 keep their global meaning; everything else edits the draft.
        if let Some(command @ (Command::SwitchPane | Command::Refresh | Command::Help)) =
            keys::command_for(Context::Composer, &key)
        {
            return self.global(command);
        }
        let running = self.composer_target_running();
        match self.composer.handle_key(key, running) {
            ComposerOutcome::None => None,
            // The queue lives in the daemon (one durable slot per chat, sent when the turn
            // ends), so every client sees it and nothing is sent twice.
            ComposerOutcome::Queued | ComposerOutcome::Unqueued => {
                let Target::Reply { session_id, .. } = self.composer.target().clone() else {
                    return None;
                };
                Some(Action::SetQueue {
                    session_id,
                    message: self.composer.queued().map(str::to_owned),
                })
            }
            ComposerOutcome::Leave => {
                self.focus = if self.chat.is_some() {
                    Focus::Chat
                } else {
                    Focus::Tree
                };
                None
            }
            ComposerOutcome::Cancel => {
                let sid = self.chat.as_ref().filter(|c| c.running())?.session_id();
                Some(Action::Stop {
                    session_ids: vec![sid.to_owned()],
                })
            }
            ComposerOutcome::Attach => {
                self.attach_prompt = Some(PathPrompt::here("attach", "attach", ""));
                None
            }
            ComposerOutcome::Notice(text) => {
                self.notice.info(text);
                None
            }
            ComposerOutcome::Send(text) => {
                let model = self.composer.model.clone();
                let preload = self.composer.preloads();
                let worktree = self.composer.worktree;
                let files = self.composer.take_attachments();
                let attachments = files.iter().map(|f| f.path.clone()).collect();
                self.sending.push(Sending {
                    key: draft_key(self.composer.target()),
                    text: text.clone(),
                    attachments: files,
                });
                match self.composer.target().clone() {
                    Target::NewChat { project_slug } => Some(Action::Send {
                        project_slug,
                        session_id: None,
                        text,
                        model,
                        attachments,
                        preload,
                        worktree: Some(worktree),
                    }),
                    Target::Reply { session_id, .. } => Some(Action::Send {
                        project_slug: self
                            .chat
                            .as_ref()
                            .map(|c| c.project_slug().to_owned())
                            .unwrap_or_default(),
                        session_id: Some(session_id),
                        text,
                        model,
                        attachments,
                        preload: false,
                        worktree: None,
                    }),
                }
            }
        }
    }

    /// Whether the composer's target chat runs a turn (its message would be queued).
    pub(super) fn composer_target_running(&self) -> bool {
        match self.composer.target() {
            Target::Reply { session_id, .. } => self
                .chat
                .as_ref()
                .filter(|c| c.session_id() == session_id)
                .is_some_and(ChatView::running),
            Target::NewChat { .. } => false,
        }
    }
}
