//! Every key the TUI has, in one table: the dispatcher asks [`command_for`] what a key press
//! means, and the help overlay lists [`bindings`], so the two can never disagree.
//!
//! Keys follow vim and lazygit habits. A key means something in one [`Context`] (the pane or
//! view that has the focus); [`Context::Global`] keys work everywhere a context does not bind
//! the same key itself. The composer is a text field: there, a global key that types a
//! character (`q`, `?`, `H`) types it, and only the keys that cannot be text (`Tab`, `Ctrl-L`,
//! `F1`) keep their global meaning.
//!
//! **Subtrees.** `S` is a prefix in the tree: it makes the next action apply to the cursor
//! row's whole subtree (the chat and every chat nested under it) instead of the row or the
//! selection. `S x` stops every running turn in the subtree, `S a` archives it, `S s` stars it,
//! `S X` deletes it (after a y), and so on for the commands whose [`Command::takes_subtree`]
//! is true. Any other key after `S`
//! drops the prefix (and does what it normally does). The dispatcher keeps the pending prefix;
//! this table only says that `S` is [`Command::Subtree`].
//!
//! **Targets.** In the tree, an action (`a`, `s`, `u`, `r`, `d`, `x`, ...) applies to the
//! selection made with `space` / `v` when there is one, else to the cursor row.

use std::fmt::Write as _;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Where the focus is: which part of the table answers first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Context {
    /// Keys that work in every context (unless the context binds the key itself).
    Global,
    /// The tree pane: projects and their chats.
    Tree,
    /// The chat pane: a transcript and its live stream.
    Chat,
    /// The composer under the chat pane (a text field).
    Composer,
    /// The History view.
    History,
    /// The approvals inbox.
    Inbox,
    /// The Changes view: a scope's git status and diffs.
    Changes,
    /// The provenance panel of a file (over the Changes or the Files view).
    Provenance,
    /// The Files view: what a chat read and wrote, turn by turn.
    Files,
    /// The blame of a file: which chat (or commit) last wrote each line.
    Blame,
    /// The file browser: a project's directory, with a preview of the cursor's file.
    Browser,
    /// The search view's query (a text field).
    SearchQuery,
    /// The search view's results: chats and where they matched.
    Search,
    /// The Usage view: tokens, cost and context use per project and chat.
    Usage,
    /// The Triggers view: a project's schedules and hooks.
    Triggers,
    /// The Home view: a project's overview, changelog, running and unread chats.
    Home,
    /// A path being typed (a file to attach, where to save one): a text field.
    PathPrompt,
    /// The attachment viewer: a file attached to a message, or a `send_file` snapshot.
    Attachment,
    /// The help overlay.
    Help,
}

impl Context {
    /// Every context, in the order the help overlay lists them after the current one.
    pub const ALL: [Context; 19] = [
        Context::Global,
        Context::Tree,
        Context::Chat,
        Context::Composer,
        Context::History,
        Context::Inbox,
        Context::Changes,
        Context::Provenance,
        Context::Files,
        Context::Blame,
        Context::Browser,
        Context::SearchQuery,
        Context::Search,
        Context::Usage,
        Context::Triggers,
        Context::Home,
        Context::PathPrompt,
        Context::Attachment,
        Context::Help,
    ];

    /// The heading the help overlay shows for this context's keys.
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Everywhere",
            Context::Tree => "Tree",
            Context::Chat => "Chat",
            Context::Composer => "Composer",
            Context::History => "History",
            Context::Inbox => "Approvals inbox",
            Context::Changes => "Changes",
            Context::Provenance => "Provenance",
            Context::Files => "Files",
            Context::Blame => "Blame",
            Context::Browser => "Browse files",
            Context::SearchQuery => "Search: the query",
            Context::Search => "Search: the results",
            Context::Usage => "Usage",
            Context::Triggers => "Triggers",
            Context::Home => "Home",
            Context::PathPrompt => "A path (attach a file, save one)",
            Context::Attachment => "Attachment",
            Context::Help => "Help",
        }
    }

    /// Whether keys that type text go to a text field here (then only global keys that
    /// cannot be text fall through).
    pub fn is_text_entry(self) -> bool {
        matches!(
            self,
            Context::Composer | Context::SearchQuery | Context::PathPrompt
        )
    }
}

/// What a key asks for. The dispatcher decides what it does in its context; the help text in
/// [`bindings`] says what the user is promised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    Quit,
    /// Open (or close) the help overlay.
    Help,
    /// Move the focus to the other pane (one pane at a time when narrow: show the other).
    SwitchPane,
    Up,
    Down,
    Top,
    Bottom,
    PageUp,
    PageDown,
    /// Fold the cursor row (or move to its parent when it is folded already).
    Fold,
    /// Unfold the cursor row.
    Unfold,
    /// Open the chat under the cursor (in History: the run's chat).
    Open,
    /// Start typing a filter for the tree.
    Filter,
    /// Move to the next chat that is unread or needs attention (failed, waiting).
    NextAttention,
    /// Toggle the selection mark on the cursor row.
    Mark,
    /// Mark every row from the last mark to the cursor.
    RangeMark,
    /// Drop the selection (and the filter).
    ClearMarks,
    Archive,
    Unarchive,
    /// Star or unstar.
    Star,
    /// Mark unread.
    Unread,
    /// Mark read.
    Read,
    /// Detach from the parent: the chat becomes a root of the tree.
    Detach,
    /// Stop the running turn of the cursor row, the selection, or (after `S`) the subtree.
    Stop,
    /// A prefix: the next action applies to the cursor row's whole subtree.
    Subtree,
    /// Open (or close) the History view.
    History,
    /// Toggle "unattended only" (History: the runs shown; tree: the chats shown).
    UnattendedOnly,
    /// Put the tree back in the daemon's order (rows otherwise keep their place while you read).
    Reorder,
    /// Reload everything from the daemon (reconnect when it is away).
    Refresh,
    /// Focus the composer of the chat under the cursor.
    Compose,
    /// Continue a chat whose last turn was cut short (its claude died, the daemon stopped).
    Continue,
    /// Open (or close) the approvals inbox.
    Inbox,
    /// Inbox: allow the tool call (the cursor's, or the marked ones).
    Allow,
    /// Inbox: deny it.
    Deny,
    /// Inbox: allow it and add a rule so it is not asked again.
    AllowAlways,
    /// Start a new chat in the cursor row's project.
    NewChat,
    /// Expand or collapse the tool call (or thinking block) under the cursor.
    ExpandItem,
    /// Expand or collapse every tool call in the chat.
    ExpandAll,
    /// Jump to the chat that sent the attributed turn under the cursor.
    JumpToSender,
    /// Cancel this chat's running turn.
    Cancel,
    /// Leave the current view or field (close the overlay, back to the tree).
    Back,
    /// Send the draft (queued as a follow-up while a turn runs).
    Send,
    /// Insert a line break in the draft.
    Newline,
    /// Choose the model for the next turn.
    Model,
    /// Take the queued follow-up back into the composer to edit it.
    EditQueued,
    /// Drop the queued follow-up.
    DropQueued,
    /// Open (or close) the Changes view of the chat under the cursor (or the open chat).
    Changes,
    /// Changes: open the provenance panel of the file under the cursor.
    Provenance,
    /// Changes: commit the scope's files (asks for a message).
    Commit,
    /// Changes: push the project's branch to its upstream.
    Push,
    /// Changes: the next scope (chat, subtree, project).
    CycleScope,
    /// Open (or close) the Files view: what the chat read and wrote, turn by turn.
    Files,
    /// Files, provenance: the blame of the file (which chat wrote each line).
    Blame,
    /// Files: only the cursor's turn, or every turn.
    ToggleTurn,
    /// Open (or close) the file browser: the project's directory, any file in it.
    Browse,
    /// Browser: names starting with a dot too, or not.
    ToggleHidden,
    /// Open the search view: words in every chat's title, messages and tool calls.
    Search,
    /// Search: run the query (again: refresh the results).
    RunSearch,
    /// Search results: back to editing the query.
    EditQuery,
    /// Search results: archived chats too, or not (searches again).
    ToggleArchived,
    /// Open (or close) the Usage view: tokens, cost and context use.
    Usage,
    /// Open (or close) the Triggers view: the project's schedules and hooks.
    Triggers,
    /// Triggers: fire the cursor's trigger now (asks first).
    FireTrigger,
    /// Triggers: remove the cursor's trigger from its project (asks first).
    RemoveTrigger,
    /// Open (or close) the Home view: the project's overview and changelog, running and unread
    /// chats.
    Home,
    /// Composer: attach a file (asks for its path).
    Attach,
    /// Composer: drop the last file attached.
    DropAttachment,
    /// Composer: a new chat starts with the project's overview and changelog, or not.
    Preload,
    /// A path: complete it (again: list the matches, then move through them).
    Complete,
    /// A path: take it (attach the file, or save to it).
    TakePath,
    /// Chat: view the attachments of the message (or `send_file` snapshot) under the cursor.
    ViewAttachment,
    /// Attachment: the message's next attachment.
    NextAttachment,
    /// Attachment: save it to a file.
    Save,
    /// Tree: list the chats flat, by last activity, or nested.
    FlatList,
    /// Colours, or plain (ASCII, no colour); remembered.
    Theme,
    /// Tree: fork the chat under the cursor (a copy, nested under it).
    Fork,
    /// Tree: delete the chat, the selection or (after `S`) the subtree, once confirmed.
    Delete,
}

impl Command {
    /// Every command (each has at least one binding; a unit test checks it).
    pub const ALL: [Command; 77] = [
        Command::Quit,
        Command::Help,
        Command::SwitchPane,
        Command::Up,
        Command::Down,
        Command::Top,
        Command::Bottom,
        Command::PageUp,
        Command::PageDown,
        Command::Fold,
        Command::Unfold,
        Command::Open,
        Command::Filter,
        Command::NextAttention,
        Command::Mark,
        Command::RangeMark,
        Command::ClearMarks,
        Command::Archive,
        Command::Unarchive,
        Command::Star,
        Command::Unread,
        Command::Read,
        Command::Detach,
        Command::Stop,
        Command::Subtree,
        Command::History,
        Command::UnattendedOnly,
        Command::Reorder,
        Command::Refresh,
        Command::Compose,
        Command::Continue,
        Command::Inbox,
        Command::Allow,
        Command::Deny,
        Command::AllowAlways,
        Command::NewChat,
        Command::ExpandItem,
        Command::ExpandAll,
        Command::JumpToSender,
        Command::Cancel,
        Command::Back,
        Command::Send,
        Command::Newline,
        Command::Model,
        Command::EditQueued,
        Command::DropQueued,
        Command::Changes,
        Command::Provenance,
        Command::Commit,
        Command::Push,
        Command::CycleScope,
        Command::Files,
        Command::Blame,
        Command::ToggleTurn,
        Command::Browse,
        Command::ToggleHidden,
        Command::Search,
        Command::RunSearch,
        Command::EditQuery,
        Command::ToggleArchived,
        Command::Usage,
        Command::Triggers,
        Command::FireTrigger,
        Command::RemoveTrigger,
        Command::Home,
        Command::Attach,
        Command::DropAttachment,
        Command::Preload,
        Command::Complete,
        Command::TakePath,
        Command::ViewAttachment,
        Command::NextAttachment,
        Command::Save,
        Command::FlatList,
        Command::Theme,
        Command::Fork,
        Command::Delete,
    ];

    /// Whether the `S` prefix can widen this command to the cursor row's subtree.
    pub fn takes_subtree(self) -> bool {
        matches!(
            self,
            Command::Archive
                | Command::Unarchive
                | Command::Star
                | Command::Unread
                | Command::Read
                | Command::Detach
                | Command::Stop
                | Command::Mark
                | Command::Delete
        )
    }
}

/// One key: a code and its modifiers. For a character, Shift is part of the character (`G`,
/// `?`), so [`Key::matches`] ignores the Shift flag terminals may or may not report with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

impl Key {
    pub const fn new(code: KeyCode, modifiers: KeyModifiers) -> Self {
        Self { code, modifiers }
    }

    /// A key pressed on its own.
    pub const fn plain(code: KeyCode) -> Self {
        Self::new(code, KeyModifiers::NONE)
    }

    /// A character key (with whatever Shift it takes to type it).
    pub const fn char(c: char) -> Self {
        Self::plain(KeyCode::Char(c))
    }

    /// Ctrl and a letter (give it lower case).
    pub const fn ctrl(c: char) -> Self {
        Self::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    /// Alt and a key.
    pub const fn alt(code: KeyCode) -> Self {
        Self::new(code, KeyModifiers::ALT)
    }

    /// The key and modifiers of a terminal event, normalised: no Shift on characters (it is
    /// in the character already) or on `BackTab`, and Ctrl letters in lower case.
    pub fn from_event(ev: &KeyEvent) -> Self {
        let mut modifiers =
            ev.modifiers & (KeyModifiers::SHIFT | KeyModifiers::CONTROL | KeyModifiers::ALT);
        let mut code = ev.code;
        match code {
            KeyCode::Char(c) => {
                modifiers.remove(KeyModifiers::SHIFT);
                if modifiers.contains(KeyModifiers::CONTROL) {
                    code = KeyCode::Char(c.to_ascii_lowercase());
                }
            }
            KeyCode::BackTab => modifiers.remove(KeyModifiers::SHIFT),
            _ => {}
        }
        Self { code, modifiers }
    }

    /// Whether a terminal key event is this key.
    pub fn matches(&self, ev: &KeyEvent) -> bool {
        Self::from_event(ev) == *self
    }

    /// Whether the key types a character (so a text field takes it).
    pub fn is_text(&self) -> bool {
        matches!(self.code, KeyCode::Char(_))
            && !self
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
    }

    /// How the key is written in the help: `j`, `space`, `Ctrl-C`, `Alt-Enter`, `↓`.
    pub fn name(&self) -> String {
        let mut out = String::new();
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            out.push_str("Ctrl-");
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            out.push_str("Alt-");
        }
        if self.modifiers.contains(KeyModifiers::SHIFT) {
            out.push_str("Shift-");
        }
        let ctrl = self.modifiers.contains(KeyModifiers::CONTROL);
        match self.code {
            KeyCode::Char(' ') => out.push_str("space"),
            KeyCode::Char(c) if ctrl => out.push(c.to_ascii_uppercase()),
            KeyCode::Char(c) => out.push(c),
            KeyCode::Enter => out.push_str("Enter"),
            KeyCode::Esc => out.push_str("Esc"),
            KeyCode::Tab => out.push_str("Tab"),
            KeyCode::BackTab => out.push_str("Shift-Tab"),
            KeyCode::Backspace => out.push_str("Backspace"),
            KeyCode::Up => out.push('↑'),
            KeyCode::Down => out.push('↓'),
            KeyCode::Left => out.push('←'),
            KeyCode::Right => out.push('→'),
            KeyCode::Home => out.push_str("Home"),
            KeyCode::End => out.push_str("End"),
            KeyCode::PageUp => out.push_str("PgUp"),
            KeyCode::PageDown => out.push_str("PgDn"),
            KeyCode::F(n) => {
                let _ = write!(out, "F{n}");
            }
            other => {
                let _ = write!(out, "{other:?}");
            }
        }
        out
    }
}

/// One line of the key table: the keys that do `command` in `context`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    pub keys: &'static [Key],
    pub context: Context,
    pub command: Command,
    /// The keys as the help shows them, e.g. `j/↓` (the key names joined by `/`; a unit test
    /// keeps it in step with `keys`).
    pub label: &'static str,
    /// What the keys do, in a few words.
    pub help: &'static str,
}

impl Binding {
    /// The label for a terminal that may not show arrows: `↓` becomes `Down` and so on.
    pub fn label_for(&self, unicode: bool) -> String {
        if unicode {
            return self.label.to_owned();
        }
        self.label
            .replace('↑', "Up")
            .replace('↓', "Down")
            .replace('←', "Left")
            .replace('→', "Right")
    }

    /// Whether one of its keys is this terminal event.
    pub fn matches(&self, ev: &KeyEvent) -> bool {
        self.keys.iter().any(|k| k.matches(ev))
    }
}

use Command as C;
use Context as X;
use KeyCode as K;

const fn b(
    context: Context,
    keys: &'static [Key],
    label: &'static str,
    command: Command,
    help: &'static str,
) -> Binding {
    Binding {
        keys,
        context,
        command,
        label,
        help,
    }
}

const ENTER: Key = Key::plain(K::Enter);
const ESC: Key = Key::plain(K::Esc);
const UP: Key = Key::plain(K::Up);
const DOWN: Key = Key::plain(K::Down);
const HOME: Key = Key::plain(K::Home);
const END: Key = Key::plain(K::End);
const PGUP: Key = Key::plain(K::PageUp);
const PGDN: Key = Key::plain(K::PageDown);

/// The table. Within a context, listed in the order the help shows them.
#[rustfmt::skip]
static BINDINGS: &[Binding] = &[
    // Everywhere.
    b(X::Global, &[Key::char('?'), Key::plain(K::F(1))], "?/F1", C::Help, "this help"),
    b(X::Global, &[Key::plain(K::Tab), Key::plain(K::BackTab)], "Tab/Shift-Tab", C::SwitchPane, "switch pane"),
    b(X::Global, &[Key::char('H')], "H", C::History, "History: recent runs"),
    b(X::Global, &[Key::char('I')], "I", C::Inbox, "the approvals inbox: tool calls waiting for you"),
    b(X::Global, &[Key::char('D')], "D", C::Changes, "Changes: the files the chat changed, diffs, commit"),
    b(X::Global, &[Key::ctrl('f')], "Ctrl-F", C::Search, "Search every chat: titles, messages, tool calls"),
    b(X::Global, &[Key::char('$')], "$", C::Usage, "Usage: tokens, cost, context per chat and project"),
    b(X::Global, &[Key::char('Z')], "Z", C::Triggers, "Triggers: the project's schedules and hooks"),
    b(X::Global, &[Key::char('O')], "O", C::Home, "Home: the project's overview, changes, running and unread chats"),
    b(X::Global, &[Key::char('B')], "B", C::Browse, "Browse the project's files: any file's preview, provenance, blame"),
    b(X::Global, &[Key::char('T')], "T", C::Theme, "theme: colours, or plain (ASCII, no colour)"),
    b(X::Global, &[Key::ctrl('l')], "Ctrl-L", C::Refresh, "reload from paddockd"),
    b(X::Global, &[Key::char('q'), Key::ctrl('c')], "q/Ctrl-C", C::Quit, "quit"),
    // The tree.
    b(X::Tree, &[Key::char('j'), DOWN], "j/↓", C::Down, "down"),
    b(X::Tree, &[Key::char('k'), UP], "k/↑", C::Up, "up"),
    b(X::Tree, &[Key::char('g'), HOME], "g/Home", C::Top, "first row"),
    b(X::Tree, &[Key::char('G'), END], "G/End", C::Bottom, "last row"),
    b(X::Tree, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::Tree, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "page down"),
    b(X::Tree, &[Key::char('h'), Key::plain(K::Left)], "h/←", C::Fold, "fold (again: go to the parent)"),
    b(X::Tree, &[Key::char('l'), Key::plain(K::Right)], "l/→", C::Unfold, "unfold"),
    b(X::Tree, &[ENTER], "Enter", C::Open, "open the chat"),
    b(X::Tree, &[Key::char('/')], "/", C::Filter, "filter by title"),
    b(X::Tree, &[Key::char('n')], "n", C::NextAttention, "next unread or needing attention"),
    b(X::Tree, &[Key::char(' ')], "space", C::Mark, "select the row"),
    b(X::Tree, &[Key::char('v')], "v", C::RangeMark, "select from the last selected row to here"),
    b(X::Tree, &[ESC], "Esc", C::ClearMarks, "clear the selection and the filter"),
    b(X::Tree, &[Key::char('x')], "x", C::Stop, "stop the running turn (row or selection)"),
    b(X::Tree, &[Key::char('a')], "a", C::Archive, "archive"),
    b(X::Tree, &[Key::char('A')], "A", C::Unarchive, "unarchive (in a project's Archived group)"),
    b(X::Tree, &[Key::char('s')], "s", C::Star, "star or unstar"),
    b(X::Tree, &[Key::char('u')], "u", C::Unread, "mark unread"),
    b(X::Tree, &[Key::char('r')], "r", C::Read, "mark read"),
    b(X::Tree, &[Key::char('d')], "d", C::Detach, "detach from its parent"),
    b(X::Tree, &[Key::char('S')], "S", C::Subtree, "then x/a/A/s/u/r/d/X/space: the whole subtree"),
    b(X::Tree, &[Key::char('U')], "U", C::UnattendedOnly, "only chats that ran without you"),
    b(X::Tree, &[Key::char('R')], "R", C::Reorder, "reorder as paddockd sorts"),
    b(X::Tree, &[Key::char('t')], "t", C::FlatList, "flat list by last activity, or nested"),
    b(X::Tree, &[Key::char('i'), Key::char('c')], "i/c", C::Compose, "write to the chat"),
    b(X::Tree, &[Key::char('C')], "C", C::Continue, "continue a chat that was cut short (!)"),
    b(X::Tree, &[Key::char('N')], "N", C::NewChat, "new chat in the project"),
    b(X::Tree, &[Key::char('F')], "F", C::Files, "Files: what the chat read and wrote, per turn"),
    b(X::Tree, &[Key::char('f')], "f", C::Fork, "fork: a copy of the chat, nested under it"),
    b(X::Tree, &[Key::char('X')], "X", C::Delete, "delete (row or selection), after a y"),
    // The chat pane.
    b(X::Chat, &[Key::char('j'), DOWN], "j/↓", C::Down, "next item"),
    b(X::Chat, &[Key::char('k'), UP], "k/↑", C::Up, "previous item"),
    b(X::Chat, &[Key::char('g'), HOME], "g/Home", C::Top, "start of the chat"),
    b(X::Chat, &[Key::char('G'), END], "G/End", C::Bottom, "end (follows the stream)"),
    b(X::Chat, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::Chat, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "page down"),
    b(X::Chat, &[Key::char('o'), ENTER], "o/Enter", C::ExpandItem, "expand or collapse the tool call"),
    b(X::Chat, &[Key::char('E')], "E", C::ExpandAll, "expand or collapse every tool call"),
    b(X::Chat, &[Key::char('J')], "J", C::JumpToSender, "jump to the chat that sent this turn"),
    b(X::Chat, &[Key::char('i'), Key::char('c')], "i/c", C::Compose, "write to this chat"),
    b(X::Chat, &[Key::char('C')], "C", C::Continue, "continue this chat after it was cut short"),
    b(X::Chat, &[Key::char('N')], "N", C::NewChat, "new chat in this project"),
    b(X::Chat, &[Key::char('x'), Key::ctrl('c')], "x/Ctrl-C", C::Cancel, "cancel the running turn"),
    b(X::Chat, &[Key::char('F')], "F", C::Files, "Files: what this chat read and wrote, per turn"),
    b(X::Chat, &[Key::char('/')], "/", C::Search, "Search every chat (as Ctrl-F)"),
    b(X::Chat, &[Key::char('a')], "a", C::ViewAttachment, "view the files attached to the message, or the file a notice showed"),
    b(X::Chat, &[ESC], "Esc", C::Back, "back to the tree"),
    // The composer.
    b(X::Composer, &[ENTER], "Enter", C::Send, "send (queued while a turn runs)"),
    b(X::Composer, &[Key::alt(K::Enter), Key::ctrl('j')], "Alt-Enter/Ctrl-J", C::Newline, "new line"),
    b(X::Composer, &[Key::ctrl('o')], "Ctrl-O", C::Model, "choose the model"),
    b(X::Composer, &[Key::alt(K::Up)], "Alt-↑", C::EditQueued, "edit the queued follow-up"),
    b(X::Composer, &[Key::alt(K::Char('x'))], "Alt-x", C::DropQueued, "drop the queued follow-up"),
    b(X::Composer, &[Key::ctrl('t')], "Ctrl-T", C::Attach, "attach a file (asks for its path; Tab completes)"),
    b(X::Composer, &[Key::alt(K::Char('t'))], "Alt-t", C::DropAttachment, "drop the last file attached"),
    b(X::Composer, &[Key::alt(K::Char('p'))], "Alt-p", C::Preload, "new chat: preload the project's overview and changelog"),
    b(X::Composer, &[Key::ctrl('c')], "Ctrl-C", C::Cancel, "cancel the running turn"),
    b(X::Composer, &[ESC], "Esc", C::Back, "leave the composer (keeps the draft)"),
    // History.
    b(X::History, &[Key::char('j'), DOWN], "j/↓", C::Down, "down"),
    b(X::History, &[Key::char('k'), UP], "k/↑", C::Up, "up"),
    b(X::History, &[Key::char('g'), HOME], "g/Home", C::Top, "newest run"),
    b(X::History, &[Key::char('G'), END], "G/End", C::Bottom, "oldest run"),
    b(X::History, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::History, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "page down"),
    b(X::History, &[ENTER], "Enter", C::Open, "open the run's chat"),
    b(X::History, &[Key::char('U')], "U", C::UnattendedOnly, "unattended runs only, or all runs"),
    b(X::History, &[ESC, Key::char('H')], "Esc/H", C::Back, "close History"),
    // The approvals inbox.
    b(X::Inbox, &[Key::char('j'), DOWN], "j/↓", C::Down, "down"),
    b(X::Inbox, &[Key::char('k'), UP], "k/↑", C::Up, "up"),
    b(X::Inbox, &[Key::char('y')], "y", C::Allow, "allow (the row, or the selection)"),
    b(X::Inbox, &[Key::char('n')], "n", C::Deny, "deny"),
    b(X::Inbox, &[Key::char('a')], "a", C::AllowAlways, "always: allow and add a rule"),
    b(X::Inbox, &[Key::char(' ')], "space", C::Mark, "select the row"),
    b(X::Inbox, &[ENTER], "Enter", C::Open, "open the chat that asks"),
    b(X::Inbox, &[ESC, Key::char('I')], "Esc/I", C::Back, "close the inbox"),
    // The Changes view.
    b(X::Changes, &[Key::char('j'), DOWN], "j/↓", C::Down, "next file"),
    b(X::Changes, &[Key::char('k'), UP], "k/↑", C::Up, "previous file"),
    b(X::Changes, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "scroll the diff up"),
    b(X::Changes, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "scroll the diff down"),
    b(X::Changes, &[ENTER, Key::char('p')], "Enter/p", C::Provenance, "the file's provenance: who wrote it, from what"),
    b(X::Changes, &[Key::char('s')], "s", C::CycleScope, "scope: the chat, its subtree, the project"),
    b(X::Changes, &[Key::char('c')], "c", C::Commit, "commit the scope's files (Enter commits, Esc cancels)"),
    b(X::Changes, &[Key::char('P')], "P", C::Push, "push the branch to its upstream (never forced)"),
    b(X::Changes, &[ESC, Key::char('D')], "Esc/D", C::Back, "close Changes"),
    // The provenance panel.
    b(X::Provenance, &[Key::char('j'), DOWN], "j/↓", C::Down, "scroll down"),
    b(X::Provenance, &[Key::char('k'), UP], "k/↑", C::Up, "scroll up"),
    b(X::Provenance, &[Key::char('g'), HOME], "g/Home", C::Top, "top"),
    b(X::Provenance, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::Provenance, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "page down"),
    b(X::Provenance, &[Key::char('b')], "b", C::Blame, "blame: which chat wrote each line"),
    b(X::Provenance, &[ESC], "Esc", C::Back, "back to Changes, Files or the browser"),
    // The Files view (newest turn first).
    b(X::Files, &[Key::char('j'), DOWN], "j/↓", C::Down, "next file"),
    b(X::Files, &[Key::char('k'), UP], "k/↑", C::Up, "previous file"),
    b(X::Files, &[Key::char('g'), HOME], "g/Home", C::Top, "newest turn (turns are newest first)"),
    b(X::Files, &[Key::char('G'), END], "G/End", C::Bottom, "oldest turn"),
    b(X::Files, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::Files, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "page down"),
    b(X::Files, &[ENTER, Key::char('p')], "Enter/p", C::Provenance, "the file's provenance: who wrote it, from what"),
    b(X::Files, &[Key::char('b')], "b", C::Blame, "blame: which chat wrote each line"),
    b(X::Files, &[Key::char('t')], "t", C::ToggleTurn, "only the cursor's turn, or every turn"),
    b(X::Files, &[Key::char('r')], "r", C::Refresh, "read the files again"),
    b(X::Files, &[ESC, Key::char('F')], "Esc/F", C::Back, "close Files"),
    // The blame of a file.
    b(X::Blame, &[Key::char('j'), DOWN], "j/↓", C::Down, "next line"),
    b(X::Blame, &[Key::char('k'), UP], "k/↑", C::Up, "previous line"),
    b(X::Blame, &[Key::char('g'), HOME], "g/Home", C::Top, "first line"),
    b(X::Blame, &[Key::char('G'), END], "G/End", C::Bottom, "last line"),
    b(X::Blame, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::Blame, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "page down"),
    b(X::Blame, &[ENTER], "Enter", C::Open, "open the chat that wrote the line"),
    b(X::Blame, &[ESC], "Esc", C::Back, "back"),
    // The file browser.
    b(X::Browser, &[Key::char('j'), DOWN], "j/↓", C::Down, "next entry"),
    b(X::Browser, &[Key::char('k'), UP], "k/↑", C::Up, "previous entry"),
    b(X::Browser, &[Key::char('g'), HOME], "g/Home", C::Top, "first entry"),
    b(X::Browser, &[Key::char('G'), END], "G/End", C::Bottom, "last entry"),
    b(X::Browser, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::Browser, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "page down"),
    b(X::Browser, &[ENTER, Key::char('l'), Key::plain(K::Right)], "Enter/l/→", C::Open, "open the directory (a file: its provenance)"),
    b(X::Browser, &[Key::char('h'), Key::plain(K::Backspace), Key::plain(K::Left)], "h/Backspace/←", C::Fold, "up to the parent directory"),
    b(X::Browser, &[Key::char('p')], "p", C::Provenance, "the file's provenance: who wrote it, from what"),
    b(X::Browser, &[Key::char('b')], "b", C::Blame, "blame: which chat wrote each line"),
    b(X::Browser, &[Key::char('.')], ".", C::ToggleHidden, "names starting with a dot too, or not"),
    b(X::Browser, &[Key::char('r')], "r", C::Refresh, "list the directory again"),
    b(X::Browser, &[ESC, Key::char('B')], "Esc/B", C::Back, "close the browser"),
    // The search view's query (the usual editing keys edit it).
    b(X::SearchQuery, &[ENTER], "Enter", C::RunSearch, "search (the same query again: refresh)"),
    b(X::SearchQuery, &[Key::plain(K::Tab), DOWN], "Tab/↓", C::SwitchPane, "to the results, as they are"),
    b(X::SearchQuery, &[ESC], "Esc", C::Back, "close the search"),
    // The search view's results.
    b(X::Search, &[Key::char('j'), DOWN], "j/↓", C::Down, "next match"),
    b(X::Search, &[Key::char('k'), UP], "k/↑", C::Up, "previous match"),
    b(X::Search, &[Key::char('g'), HOME], "g/Home", C::Top, "first match"),
    b(X::Search, &[Key::char('G'), END], "G/End", C::Bottom, "last match"),
    b(X::Search, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::Search, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "page down"),
    b(X::Search, &[ENTER], "Enter", C::Open, "open the chat at the match"),
    b(X::Search, &[Key::char('/')], "/", C::EditQuery, "edit the query"),
    b(X::Search, &[Key::plain(K::Tab)], "Tab", C::SwitchPane, "back to the query"),
    b(X::Search, &[Key::char('a')], "a", C::ToggleArchived, "archived chats too, or not (searches again)"),
    b(X::Search, &[Key::char('r')], "r", C::Refresh, "search again"),
    b(X::Search, &[ESC], "Esc", C::Back, "close the search"),
    // The Usage view.
    b(X::Usage, &[Key::char('j'), DOWN], "j/↓", C::Down, "next chat"),
    b(X::Usage, &[Key::char('k'), UP], "k/↑", C::Up, "previous chat"),
    b(X::Usage, &[Key::char('g'), HOME], "g/Home", C::Top, "the costliest chat"),
    b(X::Usage, &[Key::char('G'), END], "G/End", C::Bottom, "the cheapest chat"),
    b(X::Usage, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::Usage, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "page down"),
    b(X::Usage, &[ENTER], "Enter", C::Open, "open the chat"),
    b(X::Usage, &[Key::char('a')], "a", C::CycleScope, "scope: active, archived or all chats"),
    b(X::Usage, &[Key::char('s')], "s", C::Subtree, "the subtree of the chat under the cursor, or everything"),
    b(X::Usage, &[Key::char('r')], "r", C::Refresh, "read the chat list again"),
    b(X::Usage, &[ESC, Key::char('$')], "Esc/$", C::Back, "close Usage"),
    // The Triggers view.
    b(X::Triggers, &[Key::char('j'), DOWN], "j/↓", C::Down, "next trigger (or run)"),
    b(X::Triggers, &[Key::char('k'), UP], "k/↑", C::Up, "previous trigger (or run)"),
    b(X::Triggers, &[Key::char('g'), HOME], "g/Home", C::Top, "first"),
    b(X::Triggers, &[Key::char('G'), END], "G/End", C::Bottom, "last"),
    b(X::Triggers, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::Triggers, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "page down"),
    b(X::Triggers, &[ENTER], "Enter", C::Open, "the chat a resume trigger owns, else its recent runs (a run: its chat)"),
    b(X::Triggers, &[Key::char('f')], "f", C::FireTrigger, "fire it now (asks first)"),
    b(X::Triggers, &[Key::char('d')], "d", C::RemoveTrigger, "remove it from project.toml (asks first)"),
    b(X::Triggers, &[Key::char('n')], "n", C::NewChat, "add a trigger: a small form (Tab: next field, Enter saves, Esc cancels)"),
    b(X::Triggers, &[Key::char('y')], "y", C::Allow, "yes, when asked to fire or remove (any other key: no)"),
    b(X::Triggers, &[Key::char('a')], "a", C::CycleScope, "scope: this project or every project"),
    b(X::Triggers, &[Key::char('r')], "r", C::Refresh, "read the triggers (or runs) again"),
    b(X::Triggers, &[ESC, Key::char('Z')], "Esc/Z", C::Back, "back from the runs; close Triggers"),
    // The Home view.
    b(X::Home, &[Key::char('j'), DOWN], "j/↓", C::Down, "next running or unread chat (none listed: scroll)"),
    b(X::Home, &[Key::char('k'), UP], "k/↑", C::Up, "previous running or unread chat"),
    b(X::Home, &[Key::char('g'), HOME], "g/Home", C::Top, "top"),
    b(X::Home, &[Key::char('G'), END], "G/End", C::Bottom, "bottom"),
    b(X::Home, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "scroll up"),
    b(X::Home, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "scroll down"),
    b(X::Home, &[ENTER], "Enter", C::Open, "open the chat"),
    b(X::Home, &[Key::char('r')], "r", C::Refresh, "read the overview again"),
    b(X::Home, &[ESC, Key::char('O')], "Esc/O", C::Back, "close Home"),
    // A path being typed (the usual editing keys edit it).
    b(X::PathPrompt, &[Key::plain(K::Tab), Key::plain(K::BackTab)], "Tab/Shift-Tab", C::Complete, "complete (again: list the matches, then the next / previous)"),
    b(X::PathPrompt, &[ENTER], "Enter", C::TakePath, "attach the file, or save to the path"),
    b(X::PathPrompt, &[ESC], "Esc", C::Back, "cancel"),
    // The attachment viewer.
    b(X::Attachment, &[Key::char('j'), DOWN], "j/↓", C::Down, "scroll down"),
    b(X::Attachment, &[Key::char('k'), UP], "k/↑", C::Up, "scroll up"),
    b(X::Attachment, &[Key::char('g'), HOME], "g/Home", C::Top, "top"),
    b(X::Attachment, &[Key::char('G'), END], "G/End", C::Bottom, "bottom"),
    b(X::Attachment, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::Attachment, &[Key::ctrl('d'), PGDN], "Ctrl-D/PgDn", C::PageDown, "page down"),
    b(X::Attachment, &[Key::char('s')], "s", C::Save, "save it to a file (asks where; ./NAME by default)"),
    b(X::Attachment, &[Key::char('n')], "n", C::NextAttachment, "the message's next attachment"),
    b(X::Attachment, &[ESC], "Esc", C::Back, "close the viewer"),
    // The help overlay.
    b(X::Help, &[Key::char('j'), DOWN], "j/↓", C::Down, "scroll down"),
    b(X::Help, &[Key::char('k'), UP], "k/↑", C::Up, "scroll up"),
    b(X::Help, &[Key::char('g'), HOME], "g/Home", C::Top, "top"),
    b(X::Help, &[Key::char('G'), END], "G/End", C::Bottom, "bottom"),
    b(X::Help, &[Key::ctrl('u'), PGUP], "Ctrl-U/PgUp", C::PageUp, "page up"),
    b(X::Help, &[Key::ctrl('d'), PGDN, Key::char(' ')], "Ctrl-D/PgDn/space", C::PageDown, "page down"),
    b(X::Help, &[ESC, Key::char('q'), Key::char('?')], "Esc/q/?", C::Back, "close the help"),
];

/// Every binding, grouped by context (global first) in the order the help lists them.
pub fn bindings() -> &'static [Binding] {
    BINDINGS
}

/// The bindings of one context, in table order.
pub fn bindings_in(context: Context) -> impl Iterator<Item = &'static Binding> {
    BINDINGS.iter().filter(move |b| b.context == context)
}

/// What a key press means in `context`: the context's own bindings first, then the global
/// ones (in a text field only those that cannot type text). Key releases mean nothing.
pub fn command_for(context: Context, ev: &KeyEvent) -> Option<Command> {
    if ev.kind == KeyEventKind::Release {
        return None;
    }
    let key = Key::from_event(ev);
    let own = bindings_in(context).find(|b| b.keys.contains(&key));
    let global = || {
        if context.is_text_entry() && key.is_text() {
            return None;
        }
        bindings_in(Context::Global).find(|b| b.keys.contains(&key))
    };
    own.or_else(global).map(|b| b.command)
}

/// The label of the keys that do `command` in `context` (falling back to the global ones),
/// for status-line hints that stay in step with the table.
pub fn label_for(context: Context, command: Command) -> Option<&'static str> {
    bindings_in(context)
        .chain(bindings_in(Context::Global))
        .find(|b| b.command == command)
        .map(|b| b.label)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn ev(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    fn ch(c: char) -> KeyEvent {
        ev(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn no_two_bindings_in_a_context_share_a_key() {
        let mut seen: HashMap<(Context, Key), Command> = HashMap::new();
        for b in bindings() {
            assert!(!b.keys.is_empty(), "{:?} has no key", b.command);
            for key in b.keys {
                if let Some(other) = seen.insert((b.context, *key), b.command) {
                    panic!(
                        "{} is bound twice in {:?}: {other:?} and {:?}",
                        key.name(),
                        b.context,
                        b.command
                    );
                }
            }
        }
    }

    #[test]
    fn a_command_is_bound_once_per_context() {
        let mut seen = HashMap::new();
        for b in bindings() {
            assert!(
                seen.insert((b.context, b.command), b.label).is_none(),
                "{:?} has two lines in {:?}",
                b.command,
                b.context
            );
        }
    }

    #[test]
    fn every_command_has_a_key() {
        for (i, c) in Command::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i, "Command::ALL is in declaration order");
            assert!(
                bindings().iter().any(|b| b.command == *c),
                "{c:?} has no binding"
            );
        }
        assert_eq!(Command::ALL.len(), Command::Delete as usize + 1);
    }

    #[test]
    fn labels_name_the_keys() {
        for b in bindings() {
            let names: Vec<String> = b.keys.iter().map(Key::name).collect();
            assert_eq!(
                b.label,
                names.join("/"),
                "{:?} in {:?}",
                b.command,
                b.context
            );
            assert!(!b.help.is_empty());
        }
    }

    #[test]
    fn the_global_keys_a_context_overrides_are_deliberate() {
        // A context key that shadows a global one must mean the global command or something
        // the context needs instead; list the shadowed pairs so a new one is a decision.
        let mut shadowed = Vec::new();
        for b in bindings().iter().filter(|b| b.context != Context::Global) {
            for key in b.keys {
                for g in bindings_in(Context::Global) {
                    if g.keys.contains(key) && g.command != b.command {
                        shadowed.push(format!("{:?} {} {:?}", b.context, key.name(), b.command));
                    }
                }
            }
        }
        assert_eq!(
            shadowed,
            [
                "Chat Ctrl-C Cancel",
                "Composer Ctrl-C Cancel",
                "History H Back",
                "Inbox I Back",
                "Changes D Back",
                "Browser B Back",
                "Usage $ Back",
                "Triggers Z Back",
                "Home O Back",
                "PathPrompt Tab Complete",
                "PathPrompt Shift-Tab Complete",
                "Help q Back",
                "Help ? Back",
            ]
        );
    }

    #[test]
    fn keys_mean_what_the_issue_says() {
        let t = Context::Tree;
        let none = KeyModifiers::NONE;
        let cases = [
            (ch('j'), C::Down),
            (ev(KeyCode::Down, none), C::Down),
            (ch('k'), C::Up),
            (ch('g'), C::Top),
            (ch('G'), C::Bottom),
            (ch('h'), C::Fold),
            (ch('l'), C::Unfold),
            (ev(KeyCode::Enter, none), C::Open),
            (ev(KeyCode::Tab, none), C::SwitchPane),
            (ch('/'), C::Filter),
            (ch('n'), C::NextAttention),
            (ch(' '), C::Mark),
            (ch('v'), C::RangeMark),
            (ch('a'), C::Archive),
            (ch('s'), C::Star),
            (ch('u'), C::Unread),
            (ch('r'), C::Read),
            (ch('d'), C::Detach),
            (ch('x'), C::Stop),
            (ch('S'), C::Subtree),
            (ch('H'), C::History),
            (ch('U'), C::UnattendedOnly),
            (ch('?'), C::Help),
            (ch('q'), C::Quit),
            (ch('R'), C::Reorder),
            (ch('N'), C::NewChat),
            (ev(KeyCode::Char('l'), KeyModifiers::CONTROL), C::Refresh),
        ];
        for (key, want) in cases {
            assert_eq!(command_for(t, &key), Some(want), "{key:?}");
        }
        assert_eq!(command_for(t, &ch('z')), None);
    }

    #[test]
    fn shift_is_in_the_character() {
        // Terminals report `G` with or without the Shift flag; both are `G`.
        let shifted = ev(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(command_for(Context::Tree, &shifted), Some(C::Bottom));
        let back = ev(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(command_for(Context::Tree, &back), Some(C::SwitchPane));
        // Ctrl with Shift held still means Ctrl-L.
        let ctrl = ev(
            KeyCode::Char('L'),
            KeyModifiers::CONTROL | KeyModifiers::SHIFT,
        );
        assert_eq!(command_for(Context::Chat, &ctrl), Some(C::Refresh));
    }

    #[test]
    fn context_keys_come_before_global_ones() {
        let ctrl_c = ev(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(command_for(Context::Tree, &ctrl_c), Some(C::Quit));
        assert_eq!(command_for(Context::Chat, &ctrl_c), Some(C::Cancel));
        assert_eq!(command_for(Context::Help, &ch('q')), Some(C::Back));
        assert_eq!(command_for(Context::History, &ch('H')), Some(C::Back));
        assert_eq!(command_for(Context::Chat, &ch('J')), Some(C::JumpToSender));
        assert_eq!(command_for(Context::Chat, &ch('o')), Some(C::ExpandItem));
        assert_eq!(command_for(Context::Tree, &ch('D')), Some(C::Changes));
        assert_eq!(command_for(Context::Chat, &ch('D')), Some(C::Changes));
        assert_eq!(command_for(Context::Changes, &ch('D')), Some(C::Back));
        assert_eq!(command_for(Context::Changes, &ch('p')), Some(C::Provenance));
        assert_eq!(command_for(Context::Changes, &ch('s')), Some(C::CycleScope));
        assert_eq!(command_for(Context::Changes, &ch('c')), Some(C::Commit));
        assert_eq!(command_for(Context::Changes, &ch('P')), Some(C::Push));
        assert_eq!(command_for(Context::Provenance, &ch('j')), Some(C::Down));
        assert_eq!(command_for(Context::Provenance, &ch('b')), Some(C::Blame));
        assert_eq!(command_for(Context::Tree, &ch('F')), Some(C::Files));
        assert_eq!(command_for(Context::Chat, &ch('F')), Some(C::Files));
        assert_eq!(command_for(Context::Files, &ch('F')), Some(C::Back));
        assert_eq!(command_for(Context::Files, &ch('b')), Some(C::Blame));
        assert_eq!(command_for(Context::Files, &ch('t')), Some(C::ToggleTurn));
        assert_eq!(command_for(Context::Files, &ch('r')), Some(C::Refresh));
        assert_eq!(
            command_for(Context::Files, &ev(KeyCode::Enter, KeyModifiers::NONE)),
            Some(C::Provenance)
        );
        assert_eq!(
            command_for(Context::Blame, &ev(KeyCode::Enter, KeyModifiers::NONE)),
            Some(C::Open)
        );
        assert_eq!(command_for(Context::Blame, &ch('q')), Some(C::Quit));
        // Tree keys are not chat keys.
        assert_eq!(command_for(Context::Chat, &ch('s')), None);
        assert_eq!(
            command_for(Context::Chat, &ch('a')),
            Some(C::ViewAttachment)
        );
    }

    #[test]
    fn attachments_have_their_keys() {
        let none = KeyModifiers::NONE;
        let c = Context::Composer;
        assert_eq!(
            command_for(c, &ev(KeyCode::Char('t'), KeyModifiers::CONTROL)),
            Some(C::Attach)
        );
        assert_eq!(
            command_for(c, &ev(KeyCode::Char('t'), KeyModifiers::ALT)),
            Some(C::DropAttachment)
        );
        assert_eq!(
            command_for(c, &ev(KeyCode::Char('p'), KeyModifiers::ALT)),
            Some(C::Preload)
        );
        // The path prompt is a text field: Tab completes, Enter takes, Esc cancels.
        let p = Context::PathPrompt;
        assert!(p.is_text_entry());
        for typed in ['q', '?', 's', '/', '~', '.'] {
            assert_eq!(command_for(p, &ch(typed)), None, "{typed}");
        }
        assert_eq!(command_for(p, &ev(KeyCode::Tab, none)), Some(C::Complete));
        assert_eq!(
            command_for(p, &ev(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(C::Complete)
        );
        assert_eq!(command_for(p, &ev(KeyCode::Enter, none)), Some(C::TakePath));
        assert_eq!(command_for(p, &ev(KeyCode::Esc, none)), Some(C::Back));
        assert_eq!(command_for(p, &ev(KeyCode::F(1), none)), Some(C::Help));
        // The viewer.
        let v = Context::Attachment;
        assert_eq!(command_for(v, &ch('j')), Some(C::Down));
        assert_eq!(command_for(v, &ch('G')), Some(C::Bottom));
        assert_eq!(command_for(v, &ch('s')), Some(C::Save));
        assert_eq!(command_for(v, &ch('n')), Some(C::NextAttachment));
        assert_eq!(command_for(v, &ev(KeyCode::Esc, none)), Some(C::Back));
        assert_eq!(command_for(v, &ch('q')), Some(C::Quit));
    }

    #[test]
    fn search_opens_everywhere_but_the_tree_keeps_its_filter() {
        let none = KeyModifiers::NONE;
        let ctrl_f = ev(KeyCode::Char('f'), KeyModifiers::CONTROL);
        for context in [
            Context::Tree,
            Context::Chat,
            Context::History,
            Context::Changes,
        ] {
            assert_eq!(
                command_for(context, &ctrl_f),
                Some(C::Search),
                "{context:?}"
            );
        }
        assert_eq!(command_for(Context::Tree, &ch('/')), Some(C::Filter));
        assert_eq!(command_for(Context::Chat, &ch('/')), Some(C::Search));
        // The query line is a text field: letters type, Enter searches, Tab and ↓ go to the
        // results, Esc closes.
        let q = Context::SearchQuery;
        assert!(q.is_text_entry());
        for typed in ['q', '?', 'j', 'a', '/', ' '] {
            assert_eq!(command_for(q, &ch(typed)), None, "{typed}");
        }
        assert_eq!(
            command_for(q, &ev(KeyCode::Enter, none)),
            Some(C::RunSearch)
        );
        assert_eq!(command_for(q, &ev(KeyCode::Tab, none)), Some(C::SwitchPane));
        assert_eq!(
            command_for(q, &ev(KeyCode::Down, none)),
            Some(C::SwitchPane)
        );
        assert_eq!(command_for(q, &ev(KeyCode::Esc, none)), Some(C::Back));
        assert_eq!(command_for(q, &ev(KeyCode::Left, none)), None);
        assert_eq!(
            command_for(q, &ev(KeyCode::Char('u'), KeyModifiers::CONTROL)),
            None,
            "Ctrl-U edits the query"
        );
        // The results.
        let r = Context::Search;
        assert_eq!(command_for(r, &ch('j')), Some(C::Down));
        assert_eq!(command_for(r, &ch('k')), Some(C::Up));
        assert_eq!(command_for(r, &ev(KeyCode::Enter, none)), Some(C::Open));
        assert_eq!(command_for(r, &ch('/')), Some(C::EditQuery));
        assert_eq!(command_for(r, &ev(KeyCode::Tab, none)), Some(C::SwitchPane));
        assert_eq!(command_for(r, &ch('a')), Some(C::ToggleArchived));
        assert_eq!(command_for(r, &ch('r')), Some(C::Refresh));
        assert_eq!(command_for(r, &ev(KeyCode::Esc, none)), Some(C::Back));
        assert_eq!(label_for(Context::Tree, C::Search), Some("Ctrl-F"));
    }

    #[test]
    fn the_composer_types_text() {
        let c = Context::Composer;
        for typed in ['q', '?', 'H', 'j', 'x', ' '] {
            assert_eq!(command_for(c, &ch(typed)), None, "{typed}");
        }
        let none = KeyModifiers::NONE;
        assert_eq!(command_for(c, &ev(KeyCode::Enter, none)), Some(C::Send));
        assert_eq!(
            command_for(c, &ev(KeyCode::Enter, KeyModifiers::ALT)),
            Some(C::Newline)
        );
        assert_eq!(
            command_for(c, &ev(KeyCode::Char('j'), KeyModifiers::CONTROL)),
            Some(C::Newline)
        );
        assert_eq!(command_for(c, &ev(KeyCode::Esc, none)), Some(C::Back));
        assert_eq!(command_for(c, &ev(KeyCode::Tab, none)), Some(C::SwitchPane));
        assert_eq!(command_for(c, &ev(KeyCode::F(1), none)), Some(C::Help));
        assert_eq!(
            command_for(c, &ev(KeyCode::Char('l'), KeyModifiers::CONTROL)),
            Some(C::Refresh)
        );
    }

    #[test]
    fn releases_are_not_presses() {
        let mut release = ch('q');
        release.kind = KeyEventKind::Release;
        assert_eq!(command_for(Context::Tree, &release), None);
    }

    #[test]
    fn labels_for_hints_and_ascii() {
        assert_eq!(label_for(Context::Tree, C::Down), Some("j/↓"));
        assert_eq!(label_for(Context::Chat, C::Quit), Some("q/Ctrl-C"));
        assert_eq!(label_for(Context::Tree, C::Send), None);
        let down = bindings_in(Context::Tree)
            .find(|b| b.command == C::Down)
            .map(|b| b.label_for(false));
        assert_eq!(down.as_deref(), Some("j/Down"));
    }

    #[test]
    fn subtree_prefix_widens_actions_only() {
        assert!(C::Stop.takes_subtree());
        assert!(C::Archive.takes_subtree());
        assert!(!C::Open.takes_subtree());
        assert!(!C::Down.takes_subtree());
        // Every command `S` widens is a tree key.
        for c in Command::ALL.into_iter().filter(|c| c.takes_subtree()) {
            assert!(bindings_in(Context::Tree).any(|b| b.command == c), "{c:?}");
        }
    }
}
