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

use std::collections::{HashMap, HashSet, VecDeque};

use paddock_proto::{Attribution, ChatEvent, HubFrame, NoticeKind, Transcript, TranscriptEntry};
use serde_json::Value;

use super::chat_view::RenderCache;
use crate::attachments::{self, Listed};
use crate::format::{clean_title, one_line, tool_detail};

/// How many jobs' last seqs are remembered for the replay-overlap rule.
const JOBS_REMEMBERED: usize = 16;

/// One element of the chat, as the pane shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    User(UserItem),
    /// Assistant text; streamed deltas are appended until the message ends.
    Assistant {
        text: String,
    },
    /// Thinking, collapsed to one line unless expanded.
    Thinking {
        text: String,
        expanded: bool,
    },
    Tool(ToolItem),
    Compaction {
        pre_tokens: Option<u64>,
        post_tokens: Option<u64>,
    },
    Interrupted {
        text: String,
    },
    /// An API failure recorded in the transcript.
    ApiError {
        status: Option<u16>,
        text: String,
    },
    /// `chat:error`, or a failed `chat:complete` that came without one.
    Error {
        message: String,
    },
    Notice {
        kind: NoticeKind,
        message: String,
    },
    QueuedFlushed {
        message: String,
    },
    KilledTask {
        message: String,
    },
}

impl Item {
    /// Whether [`ChatView::toggle_expand`] does anything on this item.
    pub fn expandable(&self) -> bool {
        matches!(self, Item::Thinking { .. } | Item::Tool(_))
    }

    /// The kept files this item names: a message's attachments (its `<paddock-attachments>`
    /// block), or the snapshot a `send_file` notice or tool result names.
    pub fn attachments(&self) -> Vec<Listed> {
        match self {
            Item::User(user) => attachments::parse_block(&user.text),
            Item::Notice { message, .. } => attachments::snapshot_in_notice(message)
                .into_iter()
                .collect(),
            Item::Tool(tool) => tool
                .result
                .as_ref()
                .filter(|r| !r.is_error)
                .and_then(|r| attachments::snapshot_in_result(&tool.name, &r.output))
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl UserItem {
    /// What the person wrote: the text without the preloaded context and the attachments
    /// block in front of it (the whole text stays in [`UserItem::text`]).
    pub fn request(&self) -> &str {
        crate::message::request(&self.text)
    }

    /// The project context preloaded in front of the message, if any.
    pub fn context(&self) -> Option<&str> {
        crate::message::split_context(&self.text).0
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct UserItem {
    /// The transcript uuid (the daemon's message id for turns it sent).
    pub uuid: Option<String>,
    pub text: String,
    /// Who injected it; `None` for a turn a person typed.
    pub attribution: Option<Attribution>,
    /// Came from the transcript rather than a live frame.
    pub hydrated: bool,
    /// When it was sent (RFC 3339), as the transcript says; `None` for a live frame.
    pub timestamp: Option<String>,
    /// The daemon's job that ran it, for a live frame; `None` when hydrated.
    pub job_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolItem {
    pub tool_use_id: String,
    pub name: String,
    pub input: Value,
    /// `None` while the tool runs.
    pub result: Option<ToolResult>,
    pub expanded: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub output: String,
    pub is_error: bool,
    /// The CLI's structured result, when the live frame carried it.
    pub detail: Option<Value>,
}

/// A tool call's one-line summary, in parts so the view can style and fit them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSummary {
    pub name: String,
    /// The telling argument (command, file path, pattern...), on one line; may be empty.
    pub arg: String,
    /// The argument is a path: cut it from the left when it does not fit.
    pub arg_is_path: bool,
    pub status: ToolStatus,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolStatus {
    Running,
    /// Finished; what it did in a few words (`exit 0`, `+3 -1`, `42 lines`), maybe empty.
    Done(String),
    /// Failed; why (`exit 1`, the first line of the error).
    Failed(String),
}

impl ToolSummary {
    /// The summary as plain text (`Bash cargo test · exit 1`).
    pub fn to_plain(&self) -> String {
        let mut s = self.name.clone();
        if !self.arg.is_empty() {
            s.push(' ');
            s.push_str(&self.arg);
        }
        match &self.status {
            ToolStatus::Running => s.push_str(" …"),
            ToolStatus::Done(what) if what.is_empty() => {}
            ToolStatus::Done(what) => {
                s.push_str(" · ");
                s.push_str(what);
            }
            ToolStatus::Failed(why) => {
                s.push_str(" · ✗ ");
                s.push_str(why);
            }
        }
        s
    }
}

impl ToolItem {
    pub fn summary(&self) -> ToolSummary {
        let name = if self.name.is_empty() {
            "tool".to_owned()
        } else {
            self.name.clone()
        };
        let arg = first_line(&tool_detail(&self.name, &self.input));
        let arg_is_path = matches!(
            self.name.as_str(),
            "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit"
        );
        let status = match &self.result {
            None => ToolStatus::Running,
            Some(result) => self.status(result),
        };
        ToolSummary {
            name,
            arg,
            arg_is_path,
            status,
        }
    }

    fn status(&self, result: &ToolResult) -> ToolStatus {
        let output = result.output.trim();
        if result.is_error {
            if self.name == "Bash"
                && let Some(code) = exit_code(output)
            {
                return ToolStatus::Failed(format!("exit {code}"));
            }
            return ToolStatus::Failed(if output.is_empty() {
                "failed".to_owned()
            } else {
                one_line(output, 80)
            });
        }
        let input = &self.input;
        let done = match self.name.as_str() {
            "Bash" => {
                let detail = result.detail.as_ref();
                if detail
                    .and_then(|d| d.get("interrupted"))
                    .and_then(Value::as_bool)
                    == Some(true)
                {
                    return ToolStatus::Failed("interrupted".to_owned());
                }
                if input.get("run_in_background").and_then(Value::as_bool) == Some(true) {
                    "in background".to_owned()
                } else {
                    "exit 0".to_owned()
                }
            }
            "Edit" => {
                let old = str_field(input, "old_string");
                let new = str_field(input, "new_string");
                format!("+{} -{}", count_lines(new), count_lines(old))
            }
            "MultiEdit" => {
                let (mut added, mut removed) = (0, 0);
                if let Some(edits) = input.get("edits").and_then(Value::as_array) {
                    for edit in edits {
                        added += count_lines(str_field(edit, "new_string"));
                        removed += count_lines(str_field(edit, "old_string"));
                    }
                }
                format!("+{added} -{removed}")
            }
            "Write" => lines_label(count_lines(str_field(input, "content"))),
            "Read" => {
                let from_detail = result
                    .detail
                    .as_ref()
                    .and_then(|d| d.pointer("/file/numLines"))
                    .and_then(Value::as_u64)
                    .and_then(|n| usize::try_from(n).ok());
                lines_label(from_detail.unwrap_or_else(|| count_lines(output)))
            }
            "Grep" => {
                let first = output.lines().next().unwrap_or_default();
                if first.starts_with("Found ") || first.starts_with("No ") {
                    one_line(first, 60)
                } else {
                    lines_label(count_lines(output))
                }
            }
            "Glob" => {
                if output.is_empty() || output.starts_with("No files") {
                    "no files".to_owned()
                } else {
                    let n = count_lines(output);
                    format!("{n} {}", if n == 1 { "file" } else { "files" })
                }
            }
            _ => String::new(),
        };
        ToolStatus::Done(done)
    }
}

/// `Exit code N` at the start of a failed Bash result (`Error: ` may precede it).
pub(crate) fn exit_code(output: &str) -> Option<i64> {
    let rest = output.strip_prefix("Error: ").unwrap_or(output);
    let rest = rest.strip_prefix("Exit code ")?;
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// Lines of text, the way an editor counts them (a trailing newline does not add one).
pub(crate) fn count_lines(s: &str) -> usize {
    s.lines().count()
}

fn lines_label(n: usize) -> String {
    format!("{n} {}", if n == 1 { "line" } else { "lines" })
}

/// The first line of `s`, with `…` when there was more.
fn first_line(s: &str) -> String {
    let trimmed = s.trim();
    let mut lines = trimmed.lines();
    let first = lines.next().unwrap_or_default().trim_end().to_owned();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first
    }
}

/// The view's scroll position and what the next render must resolve. Scrolling is recorded
/// here and applied at render time, when the wrapped layout for the current width is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Scroll {
    /// At the end, and staying there as content arrives.
    pub(super) follow: bool,
    /// The top row as (item, row within the item): stable across re-wrapping.
    pub(super) anchor: (usize, usize),
    /// Rows to scroll by at the next render.
    pub(super) pending: i64,
    /// `pending` counts from the end (scrolling started while following).
    pub(super) from_end: bool,
    /// Jump to the first row.
    pub(super) to_start: bool,
    /// Bring the cursor item into view.
    pub(super) reveal: bool,
    /// Put this item's first row at the top (a search result jumped to it).
    pub(super) jump: Option<usize>,
}

impl Default for Scroll {
    fn default() -> Self {
        Self {
            follow: true,
            anchor: (0, 0),
            pending: 0,
            from_end: false,
            to_start: false,
            reveal: false,
            jump: None,
        }
    }
}

/// The running turn's items, lifted out while a first transcript is read under them.
struct LiveTurn {
    items: Vec<Item>,
    /// tool_use_id → its item, counted from the turn's first item.
    tools: Vec<(String, usize)>,
    open_text: Option<usize>,
    open_thinking: Option<usize>,
    job_id: String,
    last_seq: Option<u64>,
    job_seqs: VecDeque<(String, u64)>,
}

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

    /// The chat's tokens, cost and context use as the chat list has them.
    pub fn usage(&self) -> Option<&paddock_proto::ChatUsage> {
        self.usage.as_ref()
    }

    pub fn set_usage(&mut self, usage: Option<paddock_proto::ChatUsage>) {
        self.usage = usage;
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

    /// Replaces the history with the transcript's entries (on open, and after `chat:resync`).
    /// Forgets the seqs applied so far: the replay that follows starts the running turn over.
    pub fn hydrate(&mut self, t: &Transcript) {
        // Frames of the running turn that came before the first transcript (the connection
        // that started the chat follows it at once, and its transcript may not be written yet):
        // kept after the transcript's entries, in place of their copy, with the seqs applied,
        // so the replay that follows adds nothing twice and nothing is lost. A later hydration
        // (resync, restart) starts over, since frames may have been missed.
        let live = if self.hydrated {
            None
        } else {
            self.take_live_turn()
        };
        let expanded: HashSet<String> = self
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Tool(tool) if tool.expanded => Some(tool.tool_use_id.clone()),
                _ => None,
            })
            .collect();
        self.items.clear();
        self.tools.clear();
        self.close_open();
        self.job_id = None;
        self.last_seq = None;
        self.job_seqs.clear();
        self.set_title(&t.chat.title);
        self.running = t.chat.running;
        self.entry_items.clear();
        self.jumped = None;
        for entry in &t.entries {
            let before = self.items.len();
            self.push_entry(entry);
            let item = if self.items.len() > before {
                Some(self.items.len() - 1)
            } else {
                match entry {
                    TranscriptEntry::ToolUse { tool_use_id, .. }
                    | TranscriptEntry::ToolResult { tool_use_id, .. } => {
                        self.tools.get(tool_use_id).copied()
                    }
                    _ => None,
                }
            };
            self.entry_items.push(item);
        }
        for item in &mut self.items {
            if let Item::Tool(tool) = item
                && expanded.contains(&tool.tool_use_id)
            {
                tool.expanded = true;
            }
        }
        if let Some(live) = live {
            self.put_back_live_turn(live);
        }
        self.clamp_cursor();
        self.cache.clear();
        self.hydrated = true;
        if let Some(entry) = self.pending_jump.take() {
            self.jump_to_entry(entry);
        }
    }

    /// Takes the running turn's live items (from its `chat:user` on) and where the stream is
    /// in it, if frames of a turn were applied.
    fn take_live_turn(&mut self) -> Option<LiveTurn> {
        let job = self.job_id.clone()?;
        let at = self.items.iter().rposition(|item| {
            matches!(item, Item::User(u) if !u.hydrated && u.job_id.as_deref() == Some(job.as_str()))
        })?;
        let items = self.items.split_off(at);
        let tools = self
            .tools
            .iter()
            .filter(|(_, i)| **i >= at)
            .map(|(id, i)| (id.clone(), i - at))
            .collect();
        self.tools.retain(|_, i| *i < at);
        Some(LiveTurn {
            items,
            tools,
            open_text: self.open_text.and_then(|i| i.checked_sub(at)),
            open_thinking: self.open_thinking.and_then(|i| i.checked_sub(at)),
            job_id: job,
            last_seq: self.last_seq,
            job_seqs: self.job_seqs.clone(),
        })
    }

    /// Puts a live turn back after the hydrated entries, dropping their copy of it.
    fn put_back_live_turn(&mut self, live: LiveTurn) {
        if let Some(Item::User(user)) = live.items.first() {
            let (uuid, text) = (user.uuid.clone(), user.text.clone());
            self.drop_replayed_turn(uuid.as_deref(), &text);
        }
        let base = self.items.len();
        for entry in &mut self.entry_items {
            if entry.is_some_and(|i| i >= base) {
                *entry = None;
            }
        }
        self.items.extend(live.items);
        self.tools
            .extend(live.tools.into_iter().map(|(id, i)| (id, base + i)));
        self.open_text = live.open_text.map(|i| base + i);
        self.open_thinking = live.open_thinking.map(|i| base + i);
        self.job_id = Some(live.job_id);
        self.last_seq = live.last_seq;
        self.job_seqs = live.job_seqs;
    }

    /// The item transcript entry `entry` (its index in `chat:transcript`'s entries) is shown
    /// in, once the transcript is read.
    pub fn entry_item(&self, entry: usize) -> Option<usize> {
        self.entry_items
            .get(entry)
            .copied()
            .flatten()
            .filter(|&i| i < self.items.len())
    }

    /// Shows transcript entry `entry` at the top of the pane, the cursor on it and it marked
    /// until the next key ([`ChatView::clear_jumped`]); a tool call is expanded so its input
    /// and output show. Before the transcript is read, it is done once it is. An entry the
    /// transcript does not have leaves the view as it is; whether the entry was found.
    pub fn jump_to_entry(&mut self, entry: usize) -> bool {
        if !self.hydrated {
            self.pending_jump = Some(entry);
            return false;
        }
        let Some(item) = self.entry_item(entry) else {
            return false;
        };
        if let Some(Item::Tool(tool)) = self.items.get_mut(item)
            && !tool.expanded
        {
            tool.expanded = true;
            self.cache.invalidate(item);
        }
        self.cursor = Some(item);
        self.jumped = Some(item);
        self.scroll = Scroll {
            follow: false,
            jump: Some(item),
            ..Scroll::default()
        };
        true
    }

    /// The item a search result jumped to, while it is marked.
    pub fn jumped(&self) -> Option<usize> {
        self.jumped
    }

    /// Drops the jump's mark (the user moved on).
    pub fn clear_jumped(&mut self) {
        self.jumped = None;
    }

    fn push_entry(&mut self, entry: &TranscriptEntry) {
        match entry {
            TranscriptEntry::User {
                uuid,
                timestamp,
                text,
                attribution,
            } => self.push(Item::User(UserItem {
                uuid: uuid.clone(),
                text: text.clone(),
                attribution: attribution.clone(),
                hydrated: true,
                timestamp: timestamp.clone(),
                job_id: None,
            })),
            TranscriptEntry::Assistant { text, .. } => {
                self.push(Item::Assistant { text: text.clone() });
            }
            TranscriptEntry::Thinking { text } => self.push(Item::Thinking {
                text: text.clone(),
                expanded: false,
            }),
            TranscriptEntry::ToolUse {
                tool_use_id,
                name,
                input,
            } => self.tool_started(tool_use_id, name, input),
            TranscriptEntry::ToolResult {
                tool_use_id,
                output,
                is_error,
            } => self.tool_finished(
                tool_use_id,
                None,
                &Value::Null,
                ToolResult {
                    output: output.clone(),
                    is_error: *is_error,
                    detail: None,
                },
            ),
            TranscriptEntry::Compaction {
                pre_tokens,
                post_tokens,
            } => self.push(Item::Compaction {
                pre_tokens: *pre_tokens,
                post_tokens: *post_tokens,
            }),
            TranscriptEntry::Interrupted { text } => {
                self.push(Item::Interrupted { text: text.clone() });
            }
            TranscriptEntry::ApiError { status, text } => self.push(Item::ApiError {
                status: *status,
                text: text.clone(),
            }),
        }
    }

    /// Applies a live frame; whether anything on screen changed. Frames of another chat, and
    /// frames already applied (seq at or below the last one of their job), change nothing.
    pub fn apply(&mut self, frame: &HubFrame) -> bool {
        let routing = &frame.routing;
        if routing.session_id != self.session_id {
            return false;
        }
        if let Some((_, last)) = self.job_seqs.iter().find(|(job, _)| *job == routing.job_id)
            && routing.seq <= *last
        {
            return false;
        }
        self.note_seq(&routing.job_id, routing.seq);
        match &frame.event {
            ChatEvent::User(turn) => {
                self.close_open();
                self.drop_replayed_turn(turn.message_id.as_deref(), &turn.text);
                self.running = true;
                self.push(Item::User(UserItem {
                    uuid: turn.message_id.clone(),
                    text: turn.text.clone(),
                    attribution: turn.attribution.clone(),
                    hydrated: false,
                    timestamp: None,
                    job_id: Some(routing.job_id.clone()),
                }));
                true
            }
            ChatEvent::Response(delta) => {
                self.running = true;
                self.open_thinking = None;
                self.append_delta(&delta.text, false)
            }
            ChatEvent::Thinking(delta) => {
                self.running = true;
                self.open_text = None;
                self.append_delta(&delta.text, true)
            }
            ChatEvent::ToolStart(tool) => {
                self.running = true;
                self.close_open();
                self.tool_started(&tool.tool_use_id, &tool.name, &tool.input);
                true
            }
            ChatEvent::ToolCall(call) => {
                self.close_open();
                self.tool_finished(
                    &call.tool_use_id,
                    Some(&call.name),
                    &call.input,
                    ToolResult {
                        output: call.output.clone(),
                        is_error: call.is_error,
                        detail: call.detail.clone(),
                    },
                );
                true
            }
            ChatEvent::MessageBoundary(_) => {
                self.close_open();
                false
            }
            ChatEvent::Complete(complete) => {
                self.close_open();
                self.running = false;
                if !complete.success && !self.turn_reported_failure() {
                    let message = complete
                        .error
                        .clone()
                        .or_else(|| complete.terminal_reason.clone())
                        .unwrap_or_else(|| "the turn failed".to_owned());
                    self.push(Item::Error { message });
                }
                true
            }
            ChatEvent::Error(err) => {
                self.close_open();
                self.push(Item::Error {
                    message: err.message.clone(),
                });
                true
            }
            ChatEvent::Notice(notice) => {
                self.close_open();
                self.push(Item::Notice {
                    kind: notice.kind,
                    message: notice.message.clone(),
                });
                true
            }
            ChatEvent::QueuedFlushed(q) => {
                self.close_open();
                self.push(Item::QueuedFlushed {
                    message: q.message.clone(),
                });
                true
            }
            ChatEvent::KilledTask(k) => {
                self.close_open();
                self.push(Item::KilledTask {
                    message: k.message.clone(),
                });
                true
            }
        }
    }

    fn note_seq(&mut self, job: &str, seq: u64) {
        if let Some(entry) = self.job_seqs.iter_mut().find(|(j, _)| j == job) {
            entry.1 = seq;
        } else {
            if self.job_seqs.len() >= JOBS_REMEMBERED {
                self.job_seqs.pop_front();
            }
            self.job_seqs.push_back((job.to_owned(), seq));
        }
        self.job_id = Some(job.to_owned());
        self.last_seq = Some(seq);
    }

    /// The overlap rule: a live `chat:user` whose message is already in the history (hydrated
    /// from a transcript that holds the start of the running turn) replaces it and everything
    /// after it. Without a message id, the last hydrated user entry matches by its text, if it
    /// is the last user entry at all.
    fn drop_replayed_turn(&mut self, message_id: Option<&str>, text: &str) {
        let at = match message_id {
            Some(id) => self
                .items
                .iter()
                .rposition(|item| matches!(item, Item::User(u) if u.uuid.as_deref() == Some(id))),
            None => self
                .items
                .iter()
                .rposition(|item| matches!(item, Item::User(_)))
                .filter(
                    |&i| matches!(&self.items[i], Item::User(u) if u.hydrated && u.text == text),
                ),
        };
        if let Some(at) = at {
            self.truncate(at);
        }
    }

    /// Whether the current turn already shows why it failed.
    fn turn_reported_failure(&self) -> bool {
        self.items
            .iter()
            .rev()
            .take_while(|item| !matches!(item, Item::User(_)))
            .any(|item| {
                matches!(
                    item,
                    Item::Error { .. } | Item::Notice { .. } | Item::ApiError { .. }
                )
            })
    }

    fn append_delta(&mut self, text: &str, thinking: bool) -> bool {
        if text.is_empty() {
            return false;
        }
        let open = if thinking {
            self.open_thinking
        } else {
            self.open_text
        };
        if let Some(i) = open
            && let Some(Item::Assistant { text: t } | Item::Thinking { text: t, .. }) =
                self.items.get_mut(i)
        {
            t.push_str(text);
            self.cache.invalidate(i);
            return true;
        }
        let item = if thinking {
            Item::Thinking {
                text: text.to_owned(),
                expanded: false,
            }
        } else {
            Item::Assistant {
                text: text.to_owned(),
            }
        };
        self.push(item);
        let last = Some(self.items.len() - 1);
        if thinking {
            self.open_thinking = last;
        } else {
            self.open_text = last;
        }
        true
    }

    fn tool_started(&mut self, id: &str, name: &str, input: &Value) {
        if let Some(&i) = self.tools.get(id)
            && let Some(Item::Tool(tool)) = self.items.get_mut(i)
        {
            // Seen already (a replay that starts mid-turn after the transcript had it).
            if !input.is_null() {
                tool.input = input.clone();
            }
            self.cache.invalidate(i);
            return;
        }
        self.push(Item::Tool(ToolItem {
            tool_use_id: id.to_owned(),
            name: name.to_owned(),
            input: input.clone(),
            result: None,
            expanded: self.expand_tools,
        }));
        self.tools.insert(id.to_owned(), self.items.len() - 1);
    }

    fn tool_finished(&mut self, id: &str, name: Option<&str>, input: &Value, result: ToolResult) {
        if let Some(&i) = self.tools.get(id)
            && let Some(Item::Tool(tool)) = self.items.get_mut(i)
        {
            if tool.input.is_null() && !input.is_null() {
                tool.input = input.clone();
            }
            tool.result = Some(result);
            self.cache.invalidate(i);
            return;
        }
        // A result whose call is not in the history (compacted away, or a replay that starts
        // after the call): show it on its own.
        self.push(Item::Tool(ToolItem {
            tool_use_id: id.to_owned(),
            name: name.unwrap_or("tool").to_owned(),
            input: input.clone(),
            result: Some(result),
            expanded: self.expand_tools,
        }));
        self.tools.insert(id.to_owned(), self.items.len() - 1);
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

    // -----------------------------------------------------------------------------------------
    // Cursor and expansion
    // -----------------------------------------------------------------------------------------

    /// The item under the cursor.
    pub fn cursor(&self) -> Option<usize> {
        self.cursor
    }

    pub fn set_cursor(&mut self, cursor: Option<usize>) {
        self.cursor = cursor.filter(|&c| c < self.items.len());
        self.scroll.reveal = self.cursor.is_some();
    }

    /// Moves the cursor to the next item (from none: the first item on screen); whether it moved.
    pub fn select_next_item(&mut self) -> bool {
        let Some(last) = self.items.len().checked_sub(1) else {
            return false;
        };
        let next = match self.cursor {
            Some(c) => (c + 1).min(last),
            None => self.cache.first_visible_item().unwrap_or(0).min(last),
        };
        let moved = self.cursor != Some(next);
        self.cursor = Some(next);
        self.scroll.reveal = true;
        moved
    }

    /// Moves the cursor to the previous item (from none: the last item on screen).
    pub fn select_prev_item(&mut self) -> bool {
        let Some(last) = self.items.len().checked_sub(1) else {
            return false;
        };
        let prev = match self.cursor {
            Some(c) => c.saturating_sub(1),
            None => self.cache.last_visible_item().unwrap_or(last).min(last),
        };
        let moved = self.cursor != Some(prev);
        self.cursor = Some(prev);
        self.scroll.reveal = true;
        moved
    }

    /// Expands or collapses the item under the cursor (a tool call, a thinking block); whether
    /// it could.
    pub fn toggle_expand(&mut self) -> bool {
        let Some(i) = self.cursor else {
            return false;
        };
        let toggled = match self.items.get_mut(i) {
            Some(Item::Tool(tool)) => {
                tool.expanded = !tool.expanded;
                true
            }
            Some(Item::Thinking { expanded, .. }) => {
                *expanded = !*expanded;
                true
            }
            _ => false,
        };
        if toggled {
            self.cache.invalidate(i);
            self.scroll.reveal = true;
        }
        toggled
    }

    /// Expands (or collapses) every tool call, and the ones still to come.
    pub fn expand_all_tools(&mut self, expanded: bool) {
        self.expand_tools = expanded;
        for (i, item) in self.items.iter_mut().enumerate() {
            if let Item::Tool(tool) = item
                && tool.expanded != expanded
            {
                tool.expanded = expanded;
                self.cache.invalidate(i);
            }
        }
    }

    pub fn tools_expanded(&self) -> bool {
        self.expand_tools
    }

    /// The kept files the item under the cursor names (see [`Item::attachments`]); with no
    /// cursor, the latest item's that names any.
    pub fn cursor_attachments(&self) -> Vec<Listed> {
        match self.cursor {
            Some(i) => self.items.get(i).map(Item::attachments).unwrap_or_default(),
            // No cursor (following the stream): the latest item with files.
            None => self
                .items
                .iter()
                .rev()
                .map(Item::attachments)
                .find(|files| !files.is_empty())
                .unwrap_or_default(),
        }
    }

    /// Who injected the turn under the cursor: the lead binds a key that opens the sending
    /// chat (`Attribution::Sent`).
    pub fn cursor_attribution(&self) -> Option<&Attribution> {
        match self.items.get(self.cursor?)? {
            Item::User(user) => user.attribution.as_ref(),
            _ => None,
        }
    }

    // -----------------------------------------------------------------------------------------
    // Scrolling
    // -----------------------------------------------------------------------------------------

    /// Scrolls by `rows` (negative: up). Scrolling up stops following the end; reaching the
    /// end again resumes it.
    pub fn scroll_by(&mut self, rows: i32) {
        if rows == 0 {
            return;
        }
        if self.scroll.follow {
            self.scroll.from_end = true;
        }
        if rows < 0 {
            self.scroll.follow = false;
        }
        self.scroll.pending += i64::from(rows);
        self.scroll.to_start = false;
        self.scroll.reveal = false;
        self.scroll.jump = None;
    }

    /// Scrolls by whole screens (negative: up).
    pub fn page(&mut self, pages: i32) {
        let screen = i32::from(self.cache.viewport().saturating_sub(1).max(1));
        self.scroll_by(pages.saturating_mul(screen));
    }

    /// Jumps to the end and follows new content.
    pub fn to_end(&mut self) {
        self.scroll.follow = true;
        self.scroll.pending = 0;
        self.scroll.from_end = false;
        self.scroll.to_start = false;
        self.scroll.reveal = false;
        self.scroll.jump = None;
    }

    /// Jumps to the first line.
    pub fn to_start(&mut self) {
        self.scroll.follow = false;
        self.scroll.pending = 0;
        self.scroll.from_end = false;
        self.scroll.to_start = true;
        self.scroll.reveal = false;
        self.scroll.jump = None;
    }

    /// The item at the top of the pane as last drawn.
    pub fn top_item(&self) -> Option<usize> {
        self.cache.first_visible_item()
    }

    /// The view stays at the end as content arrives.
    pub fn following(&self) -> bool {
        self.scroll.follow
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::{
        ChatError, ChatSummary, Complete, MessageBoundary, Notice, Routing, TextDelta, ToolCall,
        ToolStart, UserTurn,
    };
    use serde_json::json;

    const SESSION: &str = "s-1";

    fn frame(job: &str, seq: u64, event: ChatEvent) -> HubFrame {
        HubFrame {
            routing: Routing {
                project_slug: "web".into(),
                session_id: SESSION.into(),
                job_id: job.into(),
                seq,
            },
            event,
        }
    }

    fn user(id: &str, text: &str) -> ChatEvent {
        ChatEvent::User(UserTurn {
            message_id: Some(id.into()),
            text: text.into(),
            attribution: None,
        })
    }

    fn text(t: &str) -> ChatEvent {
        ChatEvent::Response(TextDelta { text: t.into() })
    }

    fn boundary() -> ChatEvent {
        ChatEvent::MessageBoundary(MessageBoundary { message_id: None })
    }

    fn complete(success: bool) -> ChatEvent {
        ChatEvent::Complete(Complete {
            success,
            error: None,
            model: None,
            usage: None,
            cost_usd: None,
            duration_ms: None,
            terminal_reason: None,
        })
    }

    fn tool_start(id: &str, name: &str, input: Value) -> ChatEvent {
        ChatEvent::ToolStart(ToolStart {
            tool_use_id: id.into(),
            name: name.into(),
            input,
        })
    }

    fn tool_call(id: &str, name: &str, input: Value, output: &str, is_error: bool) -> ChatEvent {
        ChatEvent::ToolCall(ToolCall {
            tool_use_id: id.into(),
            name: name.into(),
            input,
            output: output.into(),
            is_error,
            detail: None,
        })
    }

    fn transcript(entries: Vec<TranscriptEntry>, running: bool) -> Transcript {
        Transcript {
            chat: ChatSummary {
                session_id: SESSION.into(),
                project_slug: "web".into(),
                title: "Fix the build".into(),
                running,
                ..ChatSummary::default()
            },
            entries,
        }
    }

    fn t_user(uuid: &str, text: &str) -> TranscriptEntry {
        TranscriptEntry::User {
            uuid: Some(uuid.into()),
            timestamp: None,
            text: text.into(),
            attribution: None,
        }
    }

    fn t_assistant(text: &str) -> TranscriptEntry {
        TranscriptEntry::Assistant {
            uuid: None,
            timestamp: None,
            text: text.into(),
            model: None,
        }
    }

    /// The history as short strings, one per item.
    fn lines(view: &ChatView) -> Vec<String> {
        view.items()
            .iter()
            .map(|item| match item {
                Item::User(u) => format!("user: {}", u.text),
                Item::Assistant { text } => format!("assistant: {text}"),
                Item::Thinking { text, .. } => format!("thinking: {text}"),
                Item::Tool(t) => format!("tool: {}", t.summary().to_plain()),
                Item::Compaction { .. } => "compaction".into(),
                Item::Interrupted { text } => format!("interrupted: {text}"),
                Item::ApiError { text, .. } => format!("api error: {text}"),
                Item::Error { message } => format!("error: {message}"),
                Item::Notice { message, .. } => format!("notice: {message}"),
                Item::QueuedFlushed { message } => format!("queued: {message}"),
                Item::KilledTask { message } => format!("killed: {message}"),
            })
            .collect()
    }

    #[test]
    fn hydrate_pairs_tool_results_with_their_calls() {
        let mut view = ChatView::new("web", SESSION);
        view.hydrate(&transcript(
            vec![
                t_user("u1", "build it"),
                TranscriptEntry::Thinking { text: "hmm".into() },
                t_assistant("On it."),
                TranscriptEntry::ToolUse {
                    tool_use_id: "t1".into(),
                    name: "Bash".into(),
                    input: json!({"command": "cargo build"}),
                },
                TranscriptEntry::ToolResult {
                    tool_use_id: "t1".into(),
                    output: "Finished".into(),
                    is_error: false,
                },
                TranscriptEntry::Compaction {
                    pre_tokens: Some(100),
                    post_tokens: Some(10),
                },
            ],
            false,
        ));
        assert_eq!(view.title(), "Fix the build");
        assert_eq!(
            lines(&view),
            [
                "user: build it",
                "thinking: hmm",
                "assistant: On it.",
                "tool: Bash cargo build · exit 0",
                "compaction",
            ]
        );
        assert!(!view.running());
        assert_eq!(view.last_seq(), None);
    }

    #[test]
    fn live_frames_stream_into_items() {
        let mut view = ChatView::new("web", SESSION);
        assert!(view.apply(&frame("j1", 1, user("u1", "hi"))));
        assert!(view.running());
        view.apply(&frame(
            "j1",
            2,
            ChatEvent::Thinking(TextDelta {
                text: "Let me".into(),
            }),
        ));
        view.apply(&frame(
            "j1",
            3,
            ChatEvent::Thinking(TextDelta {
                text: " think.".into(),
            }),
        ));
        view.apply(&frame("j1", 4, text("Hel")));
        view.apply(&frame("j1", 5, text("lo.")));
        view.apply(&frame(
            "j1",
            6,
            tool_start("t1", "Read", json!({"file_path": "src/lib.rs"})),
        ));
        assert_eq!(
            lines(&view).last().map(String::as_str),
            Some("tool: Read src/lib.rs …")
        );
        view.apply(&frame(
            "j1",
            7,
            tool_call(
                "t1",
                "Read",
                json!({"file_path": "src/lib.rs"}),
                "1\ta\n2\tb",
                false,
            ),
        ));
        assert!(!view.apply(&frame("j1", 8, boundary())));
        view.apply(&frame("j1", 9, text("Second message.")));
        view.apply(&frame("j1", 10, complete(true)));
        assert!(!view.running());
        assert_eq!(view.last_seq(), Some(10));
        assert_eq!(view.job_id(), Some("j1"));
        assert_eq!(
            lines(&view),
            [
                "user: hi",
                "thinking: Let me think.",
                "assistant: Hello.",
                "tool: Read src/lib.rs · 2 lines",
                "assistant: Second message.",
            ]
        );
    }

    #[test]
    fn frames_of_another_chat_are_ignored() {
        let mut view = ChatView::new("web", "other");
        assert!(!view.apply(&frame("j1", 1, user("u1", "hi"))));
        assert!(view.items().is_empty());
        assert_eq!(view.last_seq(), None);
    }

    /// The transcript already holds the start of the running turn; the replay starts the turn
    /// over from its chat:user frame. Each line shows once.
    #[test]
    fn a_replayed_running_turn_replaces_its_hydrated_start() {
        let mut view = ChatView::new("web", SESSION);
        view.hydrate(&transcript(
            vec![
                t_user("u0", "earlier question"),
                t_assistant("earlier answer"),
                t_user("u1", "run the tests"),
                t_assistant("Running them."),
                TranscriptEntry::ToolUse {
                    tool_use_id: "t1".into(),
                    name: "Bash".into(),
                    input: json!({"command": "cargo test"}),
                },
            ],
            true,
        ));
        assert!(view.running());
        let replay = [
            user("u1", "run the tests"),
            text("Running them."),
            tool_start("t1", "Bash", json!({"command": "cargo test"})),
            boundary(),
            tool_call("t1", "Bash", json!({"command": "cargo test"}), "ok", false),
            text("All green."),
        ];
        for (i, event) in replay.into_iter().enumerate() {
            view.apply(&frame("j1", 40 + i as u64, event));
        }
        assert_eq!(
            lines(&view),
            [
                "user: earlier question",
                "assistant: earlier answer",
                "user: run the tests",
                "assistant: Running them.",
                "tool: Bash cargo test · exit 0",
                "assistant: All green.",
            ]
        );
        assert!(matches!(&view.items()[2], Item::User(u) if !u.hydrated));
    }

    /// The client that started a chat follows it before its transcript is read: frames that
    /// came first survive the (empty or partial) transcript, and the replay after it adds
    /// nothing twice.
    #[test]
    fn frames_before_the_first_transcript_are_kept() {
        // The transcript was not written yet.
        let mut view = ChatView::new("web", SESSION);
        view.apply(&frame("j1", 1, user("u1", "what is in the file?")));
        view.apply(&frame(
            "j1",
            2,
            tool_start("t1", "Read", json!({"file_path": "a.txt"})),
        ));
        view.apply(&frame("j1", 3, text("It says ")));
        view.hydrate(&transcript(Vec::new(), true));
        assert!(view.apply(&frame("j1", 4, text("hello."))));
        for (seq, event) in [
            (1, user("u1", "what is in the file?")),
            (2, tool_start("t1", "Read", json!({"file_path": "a.txt"}))),
            (3, text("It says ")),
            (4, text("hello.")),
        ] {
            assert!(!view.apply(&frame("j1", seq, event)), "seq {seq} again");
        }
        view.apply(&frame(
            "j1",
            5,
            tool_call("t1", "Read", json!({"file_path": "a.txt"}), "hello.", false),
        ));
        assert_eq!(
            lines(&view),
            [
                "user: what is in the file?",
                "tool: Read a.txt · 1 line",
                "assistant: It says hello.",
            ]
        );
        assert!(
            matches!(&view.items()[1], Item::Tool(t) if t.result.is_some()),
            "the result found its call"
        );

        // The transcript had the turn's start already: its copy gives way to the live one.
        let mut view = ChatView::new("web", SESSION);
        view.apply(&frame("j1", 1, user("u1", "count")));
        view.apply(&frame("j1", 2, text("one ")));
        view.hydrate(&transcript(
            vec![
                t_user("u0", "earlier"),
                t_assistant("before"),
                t_user("u1", "count"),
            ],
            true,
        ));
        view.apply(&frame("j1", 3, text("two")));
        assert_eq!(
            lines(&view),
            [
                "user: earlier",
                "assistant: before",
                "user: count",
                "assistant: one two",
            ]
        );
        assert_eq!(view.entry_item(0), Some(0));
        assert_eq!(view.entry_item(2), None, "its copy is gone");

        // A later hydration (a resync) starts over: the replay brings the turn back.
        view.hydrate(&transcript(vec![t_user("u0", "earlier")], true));
        assert_eq!(lines(&view), ["user: earlier"]);
        assert!(view.apply(&frame("j1", 1, user("u1", "count"))));
    }

    /// A reconnect re-subscribes with lastSeq; a replay that overlaps what was applied (or a
    /// whole replay of the turn) adds nothing twice.
    #[test]
    fn seqs_already_applied_are_dropped_after_a_reconnect() {
        let mut view = ChatView::new("web", SESSION);
        view.apply(&frame("j1", 1, user("u1", "count")));
        view.apply(&frame("j1", 2, text("one ")));
        view.apply(&frame("j1", 3, text("two ")));
        // Reconnected: the hub replays from the start of the turn, then goes on.
        assert!(!view.apply(&frame("j1", 1, user("u1", "count"))));
        assert!(!view.apply(&frame("j1", 2, text("one "))));
        assert!(!view.apply(&frame("j1", 3, text("two "))));
        assert!(view.apply(&frame("j1", 4, text("three"))));
        assert_eq!(lines(&view), ["user: count", "assistant: one two three"]);
        assert_eq!(view.last_seq(), Some(4));
        // A restarted daemon counts from 1 again, with a new job.
        assert!(view.apply(&frame("j2", 1, user("u2", "again"))));
        assert_eq!(view.last_seq(), Some(1));
        assert_eq!(view.job_id(), Some("j2"));
        assert_eq!(lines(&view).len(), 3);
    }

    #[test]
    fn a_replay_without_message_ids_matches_the_last_hydrated_turn_by_text() {
        let mut view = ChatView::new("web", SESSION);
        view.hydrate(&transcript(
            vec![t_user("u1", "go"), t_assistant("Going.")],
            true,
        ));
        view.apply(&frame(
            "j1",
            1,
            ChatEvent::User(UserTurn {
                message_id: None,
                text: "go".into(),
                attribution: None,
            }),
        ));
        view.apply(&frame("j1", 2, text("Going.")));
        assert_eq!(lines(&view), ["user: go", "assistant: Going."]);
    }

    #[test]
    fn tool_summaries_say_what_the_call_did() {
        let bash = |output: &str, is_error: bool| ToolItem {
            tool_use_id: "t".into(),
            name: "Bash".into(),
            input: json!({"command": "cargo test --workspace\n  --quiet", "description": "x"}),
            result: Some(ToolResult {
                output: output.into(),
                is_error,
                detail: None,
            }),
            expanded: false,
        };
        assert_eq!(
            bash("test result: ok", false).summary().to_plain(),
            "Bash cargo test --workspace … · exit 0"
        );
        let failed = bash("Exit code 101\nerror: test failed", true).summary();
        assert_eq!(failed.status, ToolStatus::Failed("exit 101".into()));
        let rejected = bash("User rejected tool use", true).summary();
        assert_eq!(
            rejected.status,
            ToolStatus::Failed("User rejected tool use".into())
        );

        let edit = ToolItem {
            tool_use_id: "t".into(),
            name: "Edit".into(),
            input: json!({
                "file_path": "/src/web/login.ts",
                "old_string": "a\nb",
                "new_string": "a\nb\nc\nd\n",
            }),
            result: Some(ToolResult {
                output: "The file has been updated.".into(),
                is_error: false,
                detail: None,
            }),
            expanded: false,
        };
        let summary = edit.summary();
        assert!(summary.arg_is_path);
        assert_eq!(summary.to_plain(), "Edit /src/web/login.ts · +4 -2");

        let write = ToolItem {
            name: "Write".into(),
            input: json!({"file_path": "notes.md", "content": "one\ntwo\nthree"}),
            ..edit.clone()
        };
        assert_eq!(write.summary().to_plain(), "Write notes.md · 3 lines");

        let read = ToolItem {
            name: "Read".into(),
            input: json!({"file_path": "a.rs"}),
            result: Some(ToolResult {
                output: "partial".into(),
                is_error: false,
                detail: Some(json!({"file": {"numLines": 42}})),
            }),
            ..edit.clone()
        };
        assert_eq!(read.summary().to_plain(), "Read a.rs · 42 lines");

        let grep = ToolItem {
            name: "Grep".into(),
            input: json!({"pattern": "fn main"}),
            result: Some(ToolResult {
                output: "Found 3 files\na\nb\nc".into(),
                is_error: false,
                detail: None,
            }),
            ..edit.clone()
        };
        assert_eq!(grep.summary().to_plain(), "Grep fn main · Found 3 files");

        let running = ToolItem {
            result: None,
            ..edit
        };
        assert_eq!(running.summary().status, ToolStatus::Running);
    }

    #[test]
    fn thinking_starts_collapsed_and_toggles() {
        let mut view = ChatView::new("web", SESSION);
        view.apply(&frame(
            "j1",
            1,
            ChatEvent::Thinking(TextDelta {
                text: "a\nb".into(),
            }),
        ));
        assert!(matches!(
            &view.items()[0],
            Item::Thinking {
                expanded: false,
                ..
            }
        ));
        assert!(!view.toggle_expand(), "no cursor yet");
        assert!(view.select_prev_item());
        assert!(view.toggle_expand());
        assert!(matches!(
            &view.items()[0],
            Item::Thinking { expanded: true, .. }
        ));
    }

    #[test]
    fn injected_turns_keep_their_attribution() {
        let mut view = ChatView::new("web", SESSION);
        let sent = Attribution::Sent {
            from_session_id: "s-child".into(),
            from_project: "web".into(),
            from_title: Some("Child".into()),
        };
        view.apply(&frame(
            "j1",
            1,
            ChatEvent::User(UserTurn {
                message_id: Some("u1".into()),
                text: "report".into(),
                attribution: Some(sent.clone()),
            }),
        ));
        view.apply(&frame("j1", 2, text("Thanks.")));
        view.select_prev_item();
        assert_eq!(view.cursor(), Some(1));
        assert_eq!(view.cursor_attribution(), None);
        view.select_prev_item();
        assert_eq!(view.cursor_attribution(), Some(&sent));
        view.select_prev_item();
        assert_eq!(view.cursor(), Some(0), "stays on the first item");
    }

    #[test]
    fn failures_and_notices_show_inline_once() {
        let mut view = ChatView::new("web", SESSION);
        view.apply(&frame("j1", 1, user("u1", "hi")));
        view.apply(&frame(
            "j1",
            2,
            ChatEvent::Error(ChatError {
                message: "API Error: 529".into(),
            }),
        ));
        view.apply(&frame(
            "j1",
            3,
            ChatEvent::Notice(Notice {
                kind: NoticeKind::ApiError,
                message: "Overloaded.".into(),
            }),
        ));
        view.apply(&frame("j1", 4, complete(false)));
        assert_eq!(
            lines(&view),
            ["user: hi", "error: API Error: 529", "notice: Overloaded."]
        );
        // A failed turn with no error frame still says it failed.
        view.apply(&frame("j2", 5, user("u2", "again")));
        view.apply(&frame("j2", 6, complete(false)));
        assert_eq!(
            lines(&view).last().map(String::as_str),
            Some("error: the turn failed")
        );
    }

    #[test]
    fn expand_all_applies_to_tools_to_come() {
        let mut view = ChatView::new("web", SESSION);
        view.apply(&frame("j1", 1, tool_start("t1", "Bash", json!({}))));
        view.expand_all_tools(true);
        view.apply(&frame("j1", 2, tool_start("t2", "Bash", json!({}))));
        assert!(
            view.items()
                .iter()
                .all(|i| matches!(i, Item::Tool(t) if t.expanded))
        );
        view.expand_all_tools(false);
        assert!(
            view.items()
                .iter()
                .all(|i| matches!(i, Item::Tool(t) if !t.expanded))
        );
    }

    #[test]
    fn rehydrating_keeps_expanded_tools() {
        let entries = vec![
            TranscriptEntry::ToolUse {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": "ls"}),
            },
            TranscriptEntry::ToolResult {
                tool_use_id: "t1".into(),
                output: "a".into(),
                is_error: false,
            },
        ];
        let mut view = ChatView::new("web", SESSION);
        view.hydrate(&transcript(entries.clone(), false));
        view.select_next_item();
        view.toggle_expand();
        view.hydrate(&transcript(entries, false));
        assert!(matches!(&view.items()[0], Item::Tool(t) if t.expanded));
    }

    #[test]
    fn transcript_entries_map_to_items_and_a_jump_waits_for_them() {
        let entries = vec![
            t_user("u1", "find the race"),
            TranscriptEntry::ToolUse {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": "rg cookie"}),
            },
            TranscriptEntry::ToolResult {
                tool_use_id: "t1".into(),
                output: "cookie.ts".into(),
                is_error: false,
            },
            t_assistant("found it"),
            TranscriptEntry::ToolResult {
                tool_use_id: "gone".into(),
                output: "orphan".into(),
                is_error: false,
            },
        ];
        let mut view = ChatView::new("web", SESSION);
        // Asked before the transcript is read: done once it is.
        assert!(!view.jump_to_entry(2));
        assert_eq!(view.jumped(), None);
        view.hydrate(&transcript(entries.clone(), false));
        assert_eq!(view.entry_item(0), Some(0));
        assert_eq!(view.entry_item(1), Some(1));
        assert_eq!(view.entry_item(2), Some(1), "a result shows in its call");
        assert_eq!(view.entry_item(3), Some(2));
        assert_eq!(view.entry_item(4), Some(3), "an orphan result is an item");
        assert_eq!(view.entry_item(5), None);
        assert_eq!(view.jumped(), Some(1));
        assert_eq!(view.cursor(), Some(1));
        assert!(matches!(&view.items()[1], Item::Tool(t) if t.expanded));
        assert!(!view.following());
        // An entry the transcript does not have changes nothing; moving drops the mark.
        assert!(!view.jump_to_entry(9));
        assert_eq!(view.jumped(), Some(1));
        assert!(view.jump_to_entry(3));
        assert_eq!(view.jumped(), Some(2));
        view.clear_jumped();
        assert_eq!(view.jumped(), None);
        // Reading the transcript again does not jump again.
        view.hydrate(&transcript(entries, false));
        assert_eq!(view.jumped(), None);
    }

    #[test]
    fn scrolling_up_stops_following_and_to_end_resumes() {
        let mut view = ChatView::new("web", SESSION);
        assert!(view.following());
        view.scroll_by(-3);
        assert!(!view.following());
        view.to_end();
        assert!(view.following());
        view.to_start();
        assert!(!view.following());
    }
}
