//! Reading a transcript into the chat (hydration), and jumping to one of its entries; the
//! running turn's live items survive a first hydration (see the module docs of [`super`]).

use std::collections::{HashSet, VecDeque};

use paddock_proto::{Transcript, TranscriptEntry};
use serde_json::Value;

use super::ChatView;
use super::item::{Item, ToolResult, UserItem};
use super::scroll::Scroll;

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

impl ChatView {
    /// Replaces the history with the transcript's entries (on open, and after `chat:resync`).
    /// Forgets the seqs applied so far: the replay that follows starts the running turn over.
    pub fn hydrate(&mut self, t: &Transcript) {
        // Frames of the running turn that came before the first transcript (the connection
        // that started the chat follows it at once, and its transcript may not be written yet):
        // kept after the transcript's entries, in place of their copy, with the seqs applied,
        // so the replay that follows adds nothing twice and nothing is lost. A later hydration
        // (resync, restart) starts over, since frames may have been missed.
        // Then again, a turn that is over and that the transcript holds nothing of beyond its
        // message (claude or the daemon died mid-stream, before the CLI wrote its reply) keeps
        // what had streamed: it is all there is of it.
        let first = !self.hydrated;
        let live = self.take_live_turn();
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
        if let Some(live) = live
            && (first || (!t.chat.running && self.lacks_reply_to(&live)))
        {
            self.put_back_live_turn(live);
            if !self.running {
                self.close_open();
            }
        }
        self.take_row(&t.chat);
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

    /// Whether the hydrated history has nothing of `live`'s turn after its message: the
    /// message is missing, or is the last user entry with only markers after it.
    fn lacks_reply_to(&self, live: &LiveTurn) -> bool {
        let Some(Item::User(user)) = live.items.first() else {
            return false;
        };
        let at = self.items.iter().rposition(|item| match item {
            Item::User(u) => match (&user.uuid, &u.uuid) {
                (Some(a), Some(b)) => a == b,
                _ => u.text == user.text,
            },
            _ => false,
        });
        let Some(at) = at else {
            return true;
        };
        self.items[at + 1..].iter().all(|item| {
            !matches!(
                item,
                Item::User(_) | Item::Assistant { .. } | Item::Thinking { .. } | Item::Tool(_)
            )
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
                expanded: false,
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
}
