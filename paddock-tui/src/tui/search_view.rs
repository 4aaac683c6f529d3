//! The search view (`Ctrl-F`, or `/` in the chat pane): words found in every chat's title,
//! messages and tool calls, from the daemon's index (`search`).
//!
//! The view is a query line over the results. While the query has the keyboard, keys edit it
//! (the usual line-editing keys: arrows, Home/End, Ctrl-A/E, Backspace/Delete, Ctrl-W/U/K) and
//! Enter asks the daemon; the same query again refreshes. The results list one row per chat
//! (its origin badge when the tree knows the chat, its title, project and last activity), then
//! its matches: the field (`title`, `user`, `claude`, `tool`, `output`) and the snippet with the
//! matched words highlighted (`[bracketed]` and bold without color), and `+N more` for the
//! matches not listed. The header counts the chats and says how far the index is while it is
//! being built. `j`/`k` move over the matches; Enter opens the chat at the match's transcript
//! entry (a title match just opens the chat); `/` or Tab edit the query again; `a` searches
//! archived chats too (or not again); Esc closes the view.

use std::collections::HashMap;

use chrono::{DateTime, Datelike, FixedOffset, Local};
use paddock_proto::{Origin, SearchField, SearchHit, SearchMatch, SearchRequest, SearchResults};
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::action::Action;
use super::fetch::{Answer, Fetch, taken};
use super::files_view::scroll_to;
use super::keys::{self, Command, Context, label_for, moved};
use super::overlay::{Cx, DrawCx, Layer, News, Overlay, Reaction};
use super::provenance_view::{fit, wrap_lines};
use super::theme::{Role, Theme};
use crate::format::{clean_title, project_label};

/// How many chats a search asks for.
pub const LIMIT: u32 = 100;

/// Below this width a hit's row leaves the project out when the title needs the room.
const NARROW: usize = 60;
/// The columns of a match's field word.
const FIELD: usize = 6;

/// A search as asked: what the daemon's answer is matched against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Asked {
    pub query: String,
    /// Archived chats too.
    pub archived: bool,
}

impl Asked {
    /// The request: every project, the first [`LIMIT`] chats.
    pub fn request(&self) -> SearchRequest {
        SearchRequest {
            query: self.query.clone(),
            project_slug: None,
            limit: Some(LIMIT),
            archived: self.archived,
        }
    }
}

/// What a key did to the view, for the dispatcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchOutcome {
    /// Nothing to do outside the view; redraw.
    Handled,
    /// Ask the daemon.
    Run(Asked),
    /// Open this chat, at this transcript entry when known.
    Open {
        project_slug: String,
        session_id: String,
        title: String,
        entry: Option<usize>,
    },
    /// The view closed.
    Closed,
    /// Not a search command: let the global keys have it.
    Ignored,
}

/// The search view's state while it is open (and kept while closed, to reopen as it was).
#[derive(Debug, Clone, Default)]
pub struct SearchView {
    /// The query being edited.
    query: Vec<char>,
    /// The caret, as a char index into `query`.
    caret: usize,
    /// The whole query is selected (just opened again): typing replaces it, a deletion
    /// clears it, a move keeps it.
    pub(super) selected: bool,
    /// The query line has the keyboard (else the results).
    editing: bool,
    /// The next search takes archived chats too.
    archived: bool,
    /// The search last asked for, whose answer the view shows or waits for.
    asked: Option<Asked>,
    results: Option<SearchResults>,
    error: Option<String>,
    /// An answer to `asked` is on its way.
    loading: bool,
    /// Session id to origin and depth, for the chats the tree knows.
    origins: HashMap<String, (Origin, u32)>,
    /// The cursor, as an index into [`SearchView::targets`].
    cursor: usize,
    /// The first list line drawn (kept by the render so the cursor stays in view).
    top: usize,
    /// Times are shown against this clock; `None`: the local one.
    clock: Option<DateTime<FixedOffset>>,
}

impl SearchView {
    /// A fresh view, its query line taking the keyboard.
    pub fn new() -> Self {
        Self {
            editing: true,
            selected: false,
            ..Self::default()
        }
    }

    /// The query line takes the keyboard (opening the view again, `/`, Tab).
    /// Gives the query line the keyboard, its text selected: a new query replaces it.
    pub fn edit(&mut self) {
        self.editing = true;
        self.caret = self.query.len();
        self.selected = !self.query.is_empty();
    }

    /// Whether the query line has the keyboard.
    pub fn editing(&self) -> bool {
        self.editing
    }

    /// The query as typed.
    pub fn query(&self) -> String {
        self.query.iter().collect()
    }

    /// The caret's place in the query, in characters.
    pub fn caret(&self) -> usize {
        self.caret
    }

    /// Whether the next search takes archived chats too.
    pub fn archived(&self) -> bool {
        self.archived
    }

    /// The search last asked for.
    pub fn asked(&self) -> Option<&Asked> {
        self.asked.as_ref()
    }

    /// The search whose answer is awaited, if any (to ask again after a reconnect).
    pub fn pending(&self) -> Option<&Asked> {
        self.asked.as_ref().filter(|_| self.loading)
    }

    pub fn results(&self) -> Option<&SearchResults> {
        self.results.as_ref()
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Show times against this clock (its zone and its day); `None`, the local one.
    pub fn set_clock(&mut self, now: Option<DateTime<FixedOffset>>) {
        self.clock = now;
    }

    fn now(&self) -> DateTime<FixedOffset> {
        self.clock.unwrap_or_else(|| Local::now().fixed_offset())
    }

    // -----------------------------------------------------------------------------------------
    // The query line
    // -----------------------------------------------------------------------------------------

    /// A key the query line takes as editing (the dispatcher has taken the commands).
    pub fn edit_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        // A selected query: typing replaces it, a deletion clears it, anything else keeps it.
        if std::mem::take(&mut self.selected) && !ctrl && !alt {
            match key.code {
                KeyCode::Char(_) => self.clear_query(),
                KeyCode::Backspace | KeyCode::Delete => return self.clear_query(),
                _ => {}
            }
        }
        let len = self.query.len();
        match key.code {
            KeyCode::Char(c) if !ctrl && !alt => {
                self.query.insert(self.caret, c);
                self.caret += 1;
            }
            KeyCode::Char('a') if ctrl => self.caret = 0,
            KeyCode::Char('e') if ctrl => self.caret = len,
            KeyCode::Char('b') if ctrl => self.caret = self.caret.saturating_sub(1),
            KeyCode::Char('u') if ctrl => {
                self.query.drain(..self.caret);
                self.caret = 0;
            }
            KeyCode::Char('k') if ctrl => self.query.truncate(self.caret),
            KeyCode::Char('w') if ctrl => self.delete_word(),
            KeyCode::Char('h') if ctrl => self.backspace(),
            KeyCode::Char('d') if ctrl => self.delete(),
            KeyCode::Backspace if ctrl || alt => self.delete_word(),
            KeyCode::Backspace => self.backspace(),
            KeyCode::Delete => self.delete(),
            KeyCode::Left if ctrl || alt => self.caret = self.word_start(),
            KeyCode::Left => self.caret = self.caret.saturating_sub(1),
            KeyCode::Right if ctrl || alt => self.caret = self.word_end(),
            KeyCode::Right => self.caret = (self.caret + 1).min(len),
            KeyCode::Home => self.caret = 0,
            KeyCode::End => self.caret = len,
            _ => {}
        }
    }

    fn clear_query(&mut self) {
        self.query.clear();
        self.caret = 0;
    }

    /// A bracketed paste: its first line, at the caret (in place of a selected query).
    pub fn paste(&mut self, text: &str) {
        if std::mem::take(&mut self.selected) {
            self.clear_query();
        }
        let line = text.lines().next().unwrap_or_default();
        for c in line.chars().filter(|c| !c.is_control()) {
            self.query.insert(self.caret, c);
            self.caret += 1;
        }
    }

    fn backspace(&mut self) {
        if self.caret > 0 {
            self.caret -= 1;
            self.query.remove(self.caret);
        }
    }

    fn delete(&mut self) {
        if self.caret < self.query.len() {
            self.query.remove(self.caret);
        }
    }

    /// Where the word before the caret starts (spaces before it skipped).
    fn word_start(&self) -> usize {
        let mut at = self.caret;
        while at > 0 && self.query[at - 1].is_whitespace() {
            at -= 1;
        }
        while at > 0 && !self.query[at - 1].is_whitespace() {
            at -= 1;
        }
        at
    }

    /// Where the word after the caret ends.
    fn word_end(&self) -> usize {
        let len = self.query.len();
        let mut at = self.caret;
        while at < len && self.query[at].is_whitespace() {
            at += 1;
        }
        while at < len && !self.query[at].is_whitespace() {
            at += 1;
        }
        at
    }

    fn delete_word(&mut self) {
        let start = self.word_start();
        self.query.drain(start..self.caret);
        self.caret = start;
    }

    /// Runs the query as typed; the same search again refreshes its results (the cursor stays
    /// on its match), another starts over. Nothing for an empty query.
    fn run(&mut self) -> SearchOutcome {
        let query = self.query().trim().to_owned();
        if query.is_empty() {
            self.editing = true;
            return SearchOutcome::Handled;
        }
        let asked = Asked {
            query,
            archived: self.archived,
        };
        if self.asked.as_ref() != Some(&asked) {
            self.results = None;
            self.cursor = 0;
            self.top = 0;
        }
        self.asked = Some(asked.clone());
        self.error = None;
        self.loading = true;
        self.editing = false;
        SearchOutcome::Run(asked)
    }

    /// A command while the query line has the keyboard.
    pub fn on_query_command(&mut self, command: Command) -> SearchOutcome {
        match command {
            Command::RunSearch => self.run(),
            // To the results as they are, when there is something to show.
            Command::SwitchPane => {
                if self.asked.is_some() {
                    self.editing = false;
                }
                SearchOutcome::Handled
            }
            Command::Back => SearchOutcome::Closed,
            _ => SearchOutcome::Ignored,
        }
    }

    // -----------------------------------------------------------------------------------------
    // The results
    // -----------------------------------------------------------------------------------------

    /// The daemon's answer to `asked`; dropped when the view asked something else since.
    /// `origins` gives the badges of the chats the tree knows.
    pub fn answer(
        &mut self,
        asked: &Asked,
        result: Result<SearchResults, String>,
        origins: HashMap<String, (Origin, u32)>,
    ) -> bool {
        if self.asked.as_ref() != Some(asked) {
            return false;
        }
        self.loading = false;
        match result {
            Ok(results) => {
                let at = self.cursor_key();
                self.results = Some(results);
                self.origins = origins;
                self.error = None;
                self.reposition(at);
            }
            Err(reason) => {
                self.results = None;
                self.error = Some(reason);
                self.cursor = 0;
                self.top = 0;
            }
        }
        true
    }

    /// What the cursor can stand on: each match of each chat, and a chat without matches
    /// itself (hit index, match index).
    fn targets(&self) -> Vec<(usize, Option<usize>)> {
        let Some(results) = &self.results else {
            return Vec::new();
        };
        results
            .hits
            .iter()
            .enumerate()
            .flat_map(|(h, hit)| {
                let matches: Vec<_> = if hit.matches.is_empty() {
                    vec![(h, None)]
                } else {
                    (0..hit.matches.len()).map(|m| (h, Some(m))).collect()
                };
                matches
            })
            .collect()
    }

    /// The chat and the match under the cursor.
    pub fn cursor_target(&self) -> Option<(&SearchHit, Option<&SearchMatch>)> {
        let (h, m) = *self.targets().get(self.cursor)?;
        let hit = self.results.as_ref()?.hits.get(h)?;
        Some((hit, m.and_then(|m| hit.matches.get(m))))
    }

    /// The cursor's place, recognised across a refresh: the chat and the match's index.
    fn cursor_key(&self) -> Option<(String, Option<usize>)> {
        let (h, m) = *self.targets().get(self.cursor)?;
        let hit = self.results.as_ref()?.hits.get(h)?;
        Some((hit.session_id.clone(), m))
    }

    fn reposition(&mut self, key: Option<(String, Option<usize>)>) {
        let targets = self.targets();
        let found = key.and_then(|(sid, m)| {
            let hits = &self.results.as_ref()?.hits;
            let same_chat = |h: usize| hits.get(h).is_some_and(|hit| hit.session_id == sid);
            targets
                .iter()
                .position(|&(h, tm)| same_chat(h) && tm == m)
                .or_else(|| targets.iter().position(|&(h, _)| same_chat(h)))
        });
        self.cursor = found
            .unwrap_or(self.cursor)
            .min(targets.len().saturating_sub(1));
    }

    pub fn move_by(&mut self, delta: isize) {
        self.cursor = moved(self.cursor, delta, self.targets().len());
    }

    /// A command while the results have the keyboard; `page` is how many rows a page moves.
    pub fn on_command(&mut self, command: Command, page: usize) -> SearchOutcome {
        if let Some(delta) = command.motion(page) {
            self.move_by(delta);
            return SearchOutcome::Handled;
        }
        match command {
            Command::Open => {
                let Some((hit, m)) = self.cursor_target() else {
                    return SearchOutcome::Handled;
                };
                return SearchOutcome::Open {
                    project_slug: hit.project_slug.clone(),
                    session_id: hit.session_id.clone(),
                    title: hit.title.clone(),
                    entry: m
                        .and_then(|m| m.entry)
                        .and_then(|e| usize::try_from(e).ok()),
                };
            }
            Command::EditQuery | Command::SwitchPane | Command::Search => self.edit(),
            Command::ToggleArchived => {
                self.archived = !self.archived;
                return self.run();
            }
            Command::Refresh => return self.run(),
            Command::Back => return SearchOutcome::Closed,
            _ => return SearchOutcome::Ignored,
        }
        SearchOutcome::Handled
    }
}

impl SearchView {
    /// What the app does for an outcome of a command.
    fn reaction(outcome: SearchOutcome, command: Command) -> Reaction {
        match outcome {
            SearchOutcome::Handled => Reaction::Handled,
            SearchOutcome::Run(asked) => Reaction::Ask(Action::Search(asked)),
            SearchOutcome::Open {
                project_slug,
                session_id,
                title,
                entry,
            } => Reaction::ShowChat {
                project_slug,
                session_id,
                title,
                entry,
            },
            SearchOutcome::Closed => Reaction::Close,
            SearchOutcome::Ignored => Reaction::Pass(command),
        }
    }

    /// A key while the query line has the keyboard: its commands, the global keys that cannot
    /// be text, else an edit of the query.
    fn on_query_key(&mut self, key: KeyEvent) -> Reaction {
        match keys::command_for(Context::SearchQuery, &key) {
            Some(command @ (Command::Help | Command::Quit)) => Reaction::Global(command),
            Some(Command::Search) => Reaction::Handled,
            Some(command) => Self::reaction(self.on_query_command(command), command),
            None => {
                self.edit_key(key);
                Reaction::Handled
            }
        }
    }
}

impl Overlay for SearchView {
    fn layer(&self) -> Layer {
        Layer::Search
    }

    fn context(&self) -> Context {
        if self.editing() {
            Context::SearchQuery
        } else {
            Context::Search
        }
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Cx<'_>) -> Reaction {
        if self.editing() {
            return self.on_query_key(key);
        }
        match keys::command_for(Context::Search, &key) {
            Some(command) => Overlay::on_command(self, command, cx),
            None => Reaction::Handled,
        }
    }

    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction {
        Self::reaction(SearchView::on_command(self, command, cx.page), command)
    }

    fn paste(&mut self, text: &str) -> bool {
        if !self.editing() {
            return false;
        }
        SearchView::paste(self, text);
        true
    }

    fn render(&mut self, frame: &mut Frame<'_>, area: Rect, cx: &DrawCx<'_>) {
        render_search(self, cx.theme, frame, area);
    }

    fn kept_when_closed(&self) -> bool {
        true
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        if self.editing() {
            return vec![("enter", "search"), ("tab", "results"), ("esc", "close")];
        }
        vec![
            ("j/k", "matches"),
            ("enter", "open"),
            ("/", "edit"),
            ("a", "archived"),
            ("esc", "close"),
            ("?", "keys"),
        ]
    }

    /// The answer goes to the view that asked (open, or closed since), with the badges of the
    /// chats the tree knows.
    fn on_reply(&mut self, fetch: &Fetch, answer: &Answer, cx: &mut Cx<'_>) -> bool {
        let Fetch::Search(asked) = fetch else {
            return false;
        };
        let results = match answer {
            Answer::Search(result) => taken(result, |results| results.clone()),
            _ => return false,
        };
        let origins = match &results {
            Ok(results) => results
                .hits
                .iter()
                .filter_map(|hit| {
                    let row = super::app::find_chat(cx.tree, &hit.session_id)?;
                    Some((hit.session_id.clone(), (row.origin, row.depth)))
                })
                .collect(),
            Err(_) => HashMap::new(),
        };
        self.answer(asked, results, origins);
        true
    }

    fn on_news(&self, news: News<'_>, cx: &mut Cx<'_>) {
        if matches!(news, News::Reconnected)
            && let Some(asked) = self.pending()
        {
            cx.fetch(Fetch::Search(asked.clone()));
        }
    }
}

mod render;
pub use render::{ago, field_word, render_search, snippet_spans, thousands};
#[cfg(test)]
use render::{header_lines, query_line};

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::SearchProgress;

    fn press(view: &mut SearchView, code: KeyCode) {
        view.edit_key(KeyEvent::new(code, KeyModifiers::NONE));
    }

    fn ctrl(view: &mut SearchView, c: char) {
        view.edit_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
    }

    fn typed(view: &mut SearchView, text: &str) {
        for c in text.chars() {
            press(view, KeyCode::Char(c));
        }
    }

    fn m(field: SearchField, entry: Option<u32>, snippet: &str, hl: &[[u32; 2]]) -> SearchMatch {
        SearchMatch {
            field,
            entry,
            uuid: None,
            snippet: snippet.into(),
            highlights: hl.to_vec(),
        }
    }

    fn hit(sid: &str, matches: Vec<SearchMatch>) -> SearchHit {
        SearchHit {
            project_slug: "webapp".into(),
            session_id: sid.into(),
            title: format!("chat {sid}"),
            updated_at: "2026-11-03T09:00:00Z".into(),
            archived: false,
            matches,
            more: 0,
        }
    }

    fn results(hits: Vec<SearchHit>) -> SearchResults {
        SearchResults {
            query: "cookie".into(),
            total: u32::try_from(hits.len()).unwrap_or(0),
            hits,
            indexing: None,
        }
    }

    fn text(spans: &[Span<'_>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn the_query_line_edits_like_a_shell() {
        let mut v = SearchView::new();
        typed(&mut v, "cookie race");
        assert_eq!((v.query().as_str(), v.caret()), ("cookie race", 11));
        press(&mut v, KeyCode::Left);
        press(&mut v, KeyCode::Left);
        press(&mut v, KeyCode::Backspace);
        assert_eq!(v.query(), "cookie rce");
        press(&mut v, KeyCode::Home);
        press(&mut v, KeyCode::Delete);
        assert_eq!(v.query(), "ookie rce");
        ctrl(&mut v, 'e');
        ctrl(&mut v, 'w');
        assert_eq!(v.query(), "ookie ");
        ctrl(&mut v, 'a');
        typed(&mut v, "c");
        ctrl(&mut v, 'k');
        assert_eq!(v.query(), "c");
        typed(&mut v, "ookie refresh");
        v.edit_key(KeyEvent::new(KeyCode::Left, KeyModifiers::ALT));
        assert_eq!(v.caret(), 7);
        ctrl(&mut v, 'u');
        assert_eq!((v.query().as_str(), v.caret()), ("refresh", 0));
        v.edit_key(KeyEvent::new(KeyCode::Right, KeyModifiers::CONTROL));
        assert_eq!(v.caret(), 7);
        v.paste(" \"race\nignored");
        assert_eq!(v.query(), "refresh \"race");
        // Ctrl with a letter that edits nothing types nothing.
        ctrl(&mut v, 'x');
        assert_eq!(v.query(), "refresh \"race");
    }

    #[test]
    fn enter_asks_the_same_query_again_to_refresh() {
        let mut v = SearchView::new();
        assert_eq!(
            v.on_query_command(Command::RunSearch),
            SearchOutcome::Handled,
            "an empty query asks nothing"
        );
        assert!(v.editing());
        typed(&mut v, "  cookie  ");
        let asked = Asked {
            query: "cookie".into(),
            archived: false,
        };
        assert_eq!(
            v.on_query_command(Command::RunSearch),
            SearchOutcome::Run(asked.clone())
        );
        assert!(!v.editing());
        assert_eq!(v.pending(), Some(&asked));
        let two = results(vec![
            hit("s1", vec![m(SearchField::Title, None, "chat s1", &[])]),
            hit(
                "s2",
                vec![
                    m(SearchField::User, Some(0), "a", &[]),
                    m(SearchField::Assistant, Some(3), "b", &[]),
                ],
            ),
        ]);
        assert!(v.answer(&asked, Ok(two.clone()), HashMap::new()));
        assert_eq!(v.pending(), None);
        v.on_command(Command::Bottom, 10);
        // Refreshing keeps the results and the cursor on its match.
        assert_eq!(
            v.on_command(Command::Refresh, 10),
            SearchOutcome::Run(asked.clone())
        );
        assert!(v.results().is_some());
        let mut more = two.clone();
        more.hits.insert(0, hit("s0", vec![]));
        v.answer(&asked, Ok(more), HashMap::new());
        let at = v
            .cursor_target()
            .map(|(h, m)| (h.session_id.clone(), m.and_then(|m| m.entry)));
        assert_eq!(at, Some(("s2".into(), Some(3))));
        // Another query starts over; the old one's answer is dropped. Editing again selects
        // the query (typing would replace it); a move keeps it, to add to it.
        v.edit();
        v.edit_key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE));
        typed(&mut v, " race");
        let other = Asked {
            query: "cookie   race".into(),
            archived: false,
        };
        assert_eq!(
            v.on_query_command(Command::RunSearch),
            SearchOutcome::Run(other)
        );
        assert!(v.results().is_none());
        assert!(!v.answer(&asked, Ok(two), HashMap::new()));
        assert!(v.results().is_none());
    }

    #[test]
    fn results_keys_move_open_toggle_archived_and_close() {
        let mut v = SearchView::new();
        typed(&mut v, "cookie");
        let SearchOutcome::Run(asked) = v.on_query_command(Command::RunSearch) else {
            panic!("no search asked");
        };
        let mut with_more = hit(
            "s2",
            vec![
                m(SearchField::ToolResult, Some(9), "x", &[]),
                m(SearchField::User, Some(2), "y", &[]),
            ],
        );
        with_more.more = 4;
        v.answer(
            &asked,
            Ok(results(vec![
                hit("s1", vec![m(SearchField::Title, None, "chat s1", &[])]),
                with_more,
                hit("s3", vec![]),
            ])),
            HashMap::new(),
        );
        // A title match opens the chat without an entry.
        let open = |v: &mut SearchView| v.on_command(Command::Open, 10);
        assert!(
            matches!(open(&mut v), SearchOutcome::Open { entry: None, ref session_id, .. } if session_id == "s1")
        );
        v.on_command(Command::Down, 10);
        assert!(matches!(
            open(&mut v),
            SearchOutcome::Open { entry: Some(9), .. }
        ));
        v.on_command(Command::Down, 10);
        assert!(matches!(
            open(&mut v),
            SearchOutcome::Open { entry: Some(2), .. }
        ));
        // A chat without matches is a target of its own.
        v.on_command(Command::Down, 10);
        assert!(
            matches!(open(&mut v), SearchOutcome::Open { entry: None, ref session_id, .. } if session_id == "s3")
        );
        v.on_command(Command::Down, 10);
        assert!(
            matches!(open(&mut v), SearchOutcome::Open { ref session_id, .. } if session_id == "s3")
        );
        v.on_command(Command::Up, 10);
        v.on_command(Command::Top, 10);
        assert!(
            matches!(open(&mut v), SearchOutcome::Open { ref session_id, .. } if session_id == "s1")
        );
        // a: archived too, at once.
        assert_eq!(
            v.on_command(Command::ToggleArchived, 10),
            SearchOutcome::Run(Asked {
                query: "cookie".into(),
                archived: true
            })
        );
        assert!(v.archived());
        v.on_command(Command::EditQuery, 10);
        assert!(v.editing());
        assert_eq!(
            v.on_query_command(Command::SwitchPane),
            SearchOutcome::Handled
        );
        assert!(!v.editing());
        assert_eq!(v.on_command(Command::Star, 10), SearchOutcome::Ignored);
        assert_eq!(v.on_command(Command::Back, 10), SearchOutcome::Closed);
        assert_eq!(v.on_query_command(Command::Back), SearchOutcome::Closed);
    }

    #[test]
    fn a_failed_search_says_why_and_tab_needs_a_search() {
        let mut v = SearchView::new();
        v.on_query_command(Command::SwitchPane);
        assert!(v.editing(), "nothing to go to yet");
        typed(&mut v, "x");
        let SearchOutcome::Run(asked) = v.on_query_command(Command::RunSearch) else {
            panic!("no search asked");
        };
        v.answer(&asked, Err("the index is not ready".into()), HashMap::new());
        assert_eq!(v.error(), Some("the index is not ready"));
        assert_eq!(v.pending(), None);
    }

    #[test]
    fn times_are_relative_then_days() {
        let now = DateTime::parse_from_rfc3339("2026-11-03T10:00:00Z").ok();
        let Some(now) = now else {
            panic!("bad clock");
        };
        assert_eq!(ago("2026-11-03T09:59:30Z", &now), "now");
        assert_eq!(ago("2026-11-03T09:15:00Z", &now), "45m ago");
        assert_eq!(ago("2026-11-03T07:00:00Z", &now), "3h ago");
        assert_eq!(ago("2026-11-01T07:00:00Z", &now), "2d ago");
        assert_eq!(ago("2026-10-02T07:00:00Z", &now), "Oct 02");
        assert_eq!(ago("2025-10-28T07:00:00Z", &now), "2025-10-28");
        assert_eq!(ago("2026-11-04T07:00:00Z", &now), "Nov 04");
        assert_eq!(ago("yesterday", &now), "");
        assert_eq!(thousands(2_400), "2,400");
        assert_eq!(thousands(10_000), "10,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn snippets_highlight_and_keep_the_first_match_in_view() {
        let color = Theme::default();
        let plain = Theme::plain();
        let s = "the cookie refresh race";
        let spans = snippet_spans(s, &[[4, 10], [11, 18]], 80, &color);
        assert_eq!(text(&spans), s);
        let lit: Vec<&str> = spans
            .iter()
            .filter(|s| s.style == color.style(Role::Match))
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(lit, ["cookie", "refresh"]);
        // Without color: brackets.
        assert_eq!(
            text(&snippet_spans(s, &[[4, 10], [11, 18]], 80, &plain)),
            "the [cookie] [refresh] race"
        );
        assert_eq!(text(&snippet_spans("end", &[[0, 3]], 80, &plain)), "[end]");
        // Too long: cut at the end when the match shows.
        assert_eq!(
            text(&snippet_spans(s, &[[4, 10]], 12, &color)),
            "the cookie …"
        );
        // A match far in: cut before it too.
        let long = format!("{} needle and more text after it", "x".repeat(60));
        let spans = snippet_spans(&long, &[[61, 67]], 24, &color);
        let shown = text(&spans);
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert!(shown.contains("needle"), "{shown}");
        assert!(shown.width() <= 24, "{shown}");
        let plain_cut = text(&snippet_spans(&long, &[[61, 67]], 24, &plain));
        assert!(plain_cut.contains("[needle]"), "{plain_cut}");
        assert!(plain_cut.width() <= 24, "{plain_cut}");
        // Offsets past the end or backwards do nothing.
        assert_eq!(
            text(&snippet_spans("abc", &[[2, 99], [5, 1]], 80, &plain)),
            "ab[c]"
        );
        assert_eq!(text(&snippet_spans("a\tb", &[], 80, &plain)), "a b");
    }

    #[test]
    fn a_long_query_scrolls_to_keep_the_caret_in_view() {
        let mut v = SearchView::new();
        typed(&mut v, "cookie refresh race between two tabs");
        let theme = Theme::plain();
        let line = query_line(&v, &theme, 30).to_string();
        assert_eq!(line, " Search  ... between two tabs ");
        assert!(line.width() <= 30);
        press(&mut v, KeyCode::Home);
        let line = query_line(&v, &theme, 30).to_string();
        assert_eq!(line, " Search  cookie refresh race b", "cut at the edge");
        // An empty query shows what to type; archived shows at the right.
        let mut v = SearchView::new();
        v.archived = true;
        let line = query_line(&v, &theme, 50).to_string();
        assert_eq!(line, " Search   words, or \"a phrase\"       archived too ");
    }

    #[test]
    fn the_header_counts_and_says_how_far_the_index_is() {
        let mut v = SearchView::new();
        typed(&mut v, "postgres");
        let SearchOutcome::Run(asked) = v.on_query_command(Command::RunSearch) else {
            panic!("no search asked");
        };
        let theme = Theme::plain();
        let lines = |v: &SearchView| -> Vec<String> {
            header_lines(v, &theme)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert_eq!(lines(&v), [" Searching..."]);
        let mut r = results(vec![hit("s1", vec![])]);
        r.total = 312;
        r.indexing = Some(SearchProgress {
            done: 2_400,
            total: 10_000,
        });
        v.answer(&asked, Ok(r), HashMap::new());
        assert_eq!(
            lines(&v),
            [
                " the first 1 of 312 chats",
                " indexing 2,400/10,000 chats -- results so far"
            ]
        );
    }
}
