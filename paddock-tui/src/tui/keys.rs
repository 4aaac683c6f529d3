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
    /// Composer: a new chat works in a git worktree of its own, or in the project's checkout.
    Worktree,
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
    /// Tree: move a root chat, with the chats under it, to another project (asks which).
    Move,
}

impl Command {
    /// Every command (each has at least one binding; a unit test checks it).
    pub const ALL: [Command; 79] = [
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
        Command::Worktree,
        Command::Complete,
        Command::TakePath,
        Command::ViewAttachment,
        Command::NextAttachment,
        Command::Save,
        Command::FlatList,
        Command::Theme,
        Command::Fork,
        Command::Delete,
        Command::Move,
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

mod table;
use table::BINDINGS;

/// Every binding, grouped by context (global first) in the order the help lists them.
impl Command {
    /// How far a list's cursor moves for this command: a row, a page of `page` rows, or to
    /// either end (`isize::MIN` / `isize::MAX`, which [`moved`] clamps). `None` for a command
    /// that is not a motion. Every list view moves its cursor by this one rule.
    pub fn motion(self, page: usize) -> Option<isize> {
        let page = isize::try_from(page.max(1)).unwrap_or(isize::MAX);
        match self {
            Command::Down => Some(1),
            Command::Up => Some(-1),
            Command::PageDown => Some(page),
            Command::PageUp => Some(-page),
            Command::Top => Some(isize::MIN),
            Command::Bottom => Some(isize::MAX),
            _ => None,
        }
    }
}

/// A list cursor at `cursor` moved by `delta` among `len` rows, kept on a row (0 when empty).
pub fn moved(cursor: usize, delta: isize, len: usize) -> usize {
    cursor
        .saturating_add_signed(delta)
        .min(len.saturating_sub(1))
}

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
    use Command as C;
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
        assert_eq!(Command::ALL.len(), Command::Move as usize + 1);
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
