//! Live hub frames applied to the chat, with the replay-overlap rules of the module docs of
//! [`super`].

use paddock_proto::{ChatEvent, HubFrame};
use serde_json::Value;

use super::ChatView;
use super::item::{Item, ToolItem, ToolResult, UserItem};

/// How many jobs' last seqs are remembered for the replay-overlap rule.
const JOBS_REMEMBERED: usize = 16;

impl ChatView {
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
        self.apply_event(&frame.event, &routing.job_id)
    }

    /// Applies one event of job `job_id` (already checked to be new); whether anything on
    /// screen changed.
    fn apply_event(&mut self, event: &ChatEvent, job_id: &str) -> bool {
        match event {
            ChatEvent::User(turn) => {
                self.close_open();
                self.drop_replayed_turn(turn.message_id.as_deref(), &turn.text);
                self.running = true;
                self.cut_short = None;
                self.push(Item::User(UserItem {
                    uuid: turn.message_id.clone(),
                    text: turn.text.clone(),
                    attribution: turn.attribution.clone(),
                    hydrated: false,
                    timestamp: None,
                    job_id: Some(job_id.to_owned()),
                    expanded: false,
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
            ChatEvent::Error(err) => self.push_marker(Item::Error {
                message: err.message.clone(),
            }),
            ChatEvent::Notice(notice) => {
                // The daemon's own failures come as an error and a notice saying the same
                // sentence: the notice (whose kind draws it) stands for both.
                if let Some(at) = self.items.len().checked_sub(1)
                    && matches!(&self.items[at], Item::Error { message } if *message == notice.message)
                {
                    self.truncate(at);
                }
                self.push_marker(Item::Notice {
                    kind: notice.kind,
                    message: notice.message.clone(),
                })
            }
            ChatEvent::Answered(a) => self.answered(a),
            ChatEvent::QueuedFlushed(q) => self.push_marker(Item::QueuedFlushed {
                message: q.message.clone(),
            }),
            // No task: the turn itself was cut short, which the chat row says (with why) and
            // the pane shows under the items ([`ChatView::cut_short`]).
            ChatEvent::KilledTask(k) if k.task_id.is_none() => false,
            ChatEvent::KilledTask(k) => self.push_marker(Item::KilledTask {
                message: k.message.clone(),
            }),
        }
    }

    /// A call that waited for a person was answered: its waiting notice says the answer now
    /// (the last notice saying it waits; a pane that did not see it adds the answer).
    fn answered(&mut self, a: &paddock_proto::Answered) -> bool {
        let kind = if a.decision == paddock_proto::ApprovalDecision::Deny {
            paddock_proto::NoticeKind::PermissionDenied
        } else {
            paddock_proto::NoticeKind::Info
        };
        let answer = Item::Notice {
            kind,
            message: a.message.clone(),
        };
        let waiting = self
            .items
            .iter()
            .rposition(|item| matches!(item, Item::Notice { message, .. } if *message == a.asked));
        match waiting {
            Some(i) if !a.asked.is_empty() => {
                self.items[i] = answer;
                self.cache.invalidate(i);
                true
            }
            _ => self.push_marker(answer),
        }
    }

    /// Ends the open text and thinking and adds a marker item after them (an error, a notice);
    /// the screen changed.
    fn push_marker(&mut self, item: Item) -> bool {
        self.close_open();
        self.push(item);
        true
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
    pub(super) fn drop_replayed_turn(&mut self, message_id: Option<&str>, text: &str) {
        // By the message's uuid; else (no uuid, or a hydrated copy without one: the daemon's
        // record of a first message claude never wrote) the last user item, if it is a
        // hydrated copy of the same text.
        let by_id = message_id.and_then(|id| {
            self.items
                .iter()
                .rposition(|item| matches!(item, Item::User(u) if u.uuid.as_deref() == Some(id)))
        });
        let at = by_id.or_else(|| {
            self.items
                .iter()
                .rposition(|item| matches!(item, Item::User(_)))
                .filter(|&i| {
                    matches!(&self.items[i], Item::User(u)
                        if u.hydrated
                            && u.text == text
                            && (message_id.is_none() || u.uuid.is_none()))
                })
        });
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

    pub(super) fn tool_started(&mut self, id: &str, name: &str, input: &Value) {
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
            full: false,
        }));
        self.tools.insert(id.to_owned(), self.items.len() - 1);
    }

    pub(super) fn tool_finished(
        &mut self,
        id: &str,
        name: Option<&str>,
        input: &Value,
        result: ToolResult,
    ) {
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
            full: false,
        }));
        self.tools.insert(id.to_owned(), self.items.len() - 1);
    }
}
