//! The chat pane's state: one chat's history as a list of items (user turns, assistant text,
//! thinking, tool calls, markers), hydrated from the transcript and kept live from hub frames.
//! Pure state, no I/O; [`super::chat_view`] draws it.
//!
//! **No duplicated or missing line.** A running chat is hydrated from its transcript and then
//! subscribed with `wantReplay`, so the hub replays the running turn from its `chat:user` frame
//! while the transcript may already hold the start of that turn. The `chat:user` frame carries
//! the message uuid the CLI keeps as the transcript uuid: when it names a user entry already in
//! the history, that entry and everything after it are dropped before the live turn is
//! appended. Frames with a `seq` at or below the last one applied for their job (a replay that
//! overlaps after a reconnect) are ignored.

mod cursor;
mod hydrate;
mod item;
mod live;
mod scroll;
mod tool_summary;

use std::collections::{HashMap, VecDeque};

use super::chat_view::RenderCache;
use crate::format::clean_title;
use scroll::Scroll;

pub use item::{Item, MESSAGE_FOLD, MESSAGE_HEAD, OUTPUT_CAP, ToolItem, ToolResult, UserItem};
pub use tool_summary::{ToolStatus, ToolSummary};
pub(crate) use tool_summary::{count_lines, exit_code};

/// One chat as the chat pane shows it.
#[derive(Debug)]
pub struct ChatView {
    project_slug: String,
    session_id: String,
    title: String,
    pub(super) items: Vec<Item>,
    /// tool_use_id → its item, to pair results with their calls.
    tools: HashMap<String, usize>,
    /// The assistant text / thinking item that deltas are appended to.
    open_text: Option<usize>,
    open_thinking: Option<usize>,
    job_id: Option<String>,
    last_seq: Option<u64>,
    /// The last seq applied per job, most recent job last.
    job_seqs: VecDeque<(String, u64)>,
    running: bool,
    /// New tool items start expanded.
    expand_tools: bool,
    pub(super) cursor: Option<usize>,
    pub(super) scroll: Scroll,
    pub(super) cache: RenderCache,
    /// The item each transcript entry went into, from the last hydration (a tool result goes
    /// into its call's item).
    entry_items: Vec<Option<usize>>,
    /// The transcript was read (entries map to items).
    hydrated: bool,
    /// A transcript entry to show once the transcript is read.
    pending_jump: Option<usize>,
    /// The item a jump landed on, marked until the next key in the pane.
    pub(super) jumped: Option<usize>,
    /// Tokens, cost and context use, from the chat list (the header shows them).
    usage: Option<paddock_proto::ChatUsage>,
    /// Why the last turn was cut short, from the chat list: said under the items, with the
    /// key that continues it, until a turn runs again.
    cut_short: Option<String>,
    /// A tool call of the running turn waits for a person, as the chat list says.
    waiting_approval: bool,
    /// The running turn is queued for a free claude process, as the chat list says.
    waiting_process: bool,
    /// The branch of the git worktree the chat works in, as the chat list says.
    worktree_branch: Option<String>,
}

impl ChatView {
    pub fn new(project_slug: impl Into<String>, session_id: impl Into<String>) -> Self {
        Self {
            project_slug: project_slug.into(),
            session_id: session_id.into(),
            title: String::new(),
            items: Vec::new(),
            tools: HashMap::new(),
            open_text: None,
            open_thinking: None,
            job_id: None,
            last_seq: None,
            job_seqs: VecDeque::new(),
            running: false,
            expand_tools: false,
            cursor: None,
            scroll: Scroll::default(),
            cache: RenderCache::default(),
            entry_items: Vec::new(),
            hydrated: false,
            pending_jump: None,
            jumped: None,
            usage: None,
            cut_short: None,
            waiting_approval: false,
            waiting_process: false,
            worktree_branch: None,
        }
    }

    pub fn project_slug(&self) -> &str {
        &self.project_slug
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The chat's title as the header shows it (empty until known).
    pub fn title(&self) -> &str {
        &self.title
    }

    pub fn set_title(&mut self, title: &str) {
        self.title = clean_title(title);
    }

    /// The branch of the chat's own git worktree, when it works in one (the header shows it).
    pub fn worktree_branch(&self) -> Option<&str> {
        self.worktree_branch.as_deref()
    }

    /// The chat's tokens, cost and context use as the chat list has them.
    pub fn usage(&self) -> Option<&paddock_proto::ChatUsage> {
        self.usage.as_ref()
    }

    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// The job of the last frame applied.
    pub fn job_id(&self) -> Option<&str> {
        self.job_id.as_deref()
    }

    /// The seq of the last frame applied: `lastSeq` for a re-subscribe after a reconnect.
    pub fn last_seq(&self) -> Option<u64> {
        self.last_seq
    }

    /// A turn is running: from its `chat:user` to its `chat:complete` (or as the transcript's
    /// chat row or `chat:active` said, through [`ChatView::set_running`]).
    pub fn running(&self) -> bool {
        self.running
    }

    pub fn set_running(&mut self, running: bool) {
        self.running = running;
    }

    /// Why the last turn was cut short, while the chat is not running again.
    pub fn cut_short(&self) -> Option<&str> {
        self.cut_short.as_deref().filter(|_| !self.running)
    }

    /// A tool call of the running turn waits for a person.
    pub fn waiting_approval(&self) -> bool {
        self.waiting_approval && self.running
    }

    /// Whether the running turn waits for a free claude process (every one is busy).
    pub fn waiting_process(&self) -> bool {
        self.waiting_process && self.running
    }

    /// Takes what the pane shows of the chat's row: its project (where what it sends goes),
    /// tokens, cost and context use; whether its
    /// last turn was cut short, with the reason (a row from a daemon that gives none says only
    /// that it was); whether it waits for an answer or for a free claude process.
    pub fn take_row(&mut self, row: &paddock_proto::ChatSummary) {
        // A chat moved to another project (`chat:promote`) is that project's now: what the
        // pane sends goes there.
        self.project_slug.clone_from(&row.project_slug);
        self.usage.clone_from(&row.usage);
        self.worktree_branch = row.worktree.as_ref().map(|w| w.branch.clone());
        self.waiting_approval = row.waiting_approval;
        self.waiting_process = row.waiting_process;
        self.cut_short = row.interrupted.then(|| {
            row.interrupted_reason
                .clone()
                .unwrap_or_else(|| "the turn did not finish".to_owned())
        });
    }

    fn push(&mut self, item: Item) {
        self.items.push(item);
    }

    fn close_open(&mut self) {
        self.open_text = None;
        self.open_thinking = None;
    }

    /// Drops item `at` and everything after it.
    fn truncate(&mut self, at: usize) {
        self.items.truncate(at);
        self.tools.retain(|_, i| *i < at);
        self.close_open();
        self.clamp_cursor();
        self.cache.truncate(at);
    }

    fn clamp_cursor(&mut self) {
        if self.cursor.is_some_and(|c| c >= self.items.len()) {
            self.cursor = None;
        }
        if self.jumped.is_some_and(|j| j >= self.items.len()) {
            self.jumped = None;
        }
    }
}

#[cfg(test)]
mod tests;
