//! What a chat needs from the person, most urgent first. One order for every place that asks:
//! the TUI's row mark, where `n` goes next, what a fold rolls up, the header's count of chats
//! that wait for you, and the need flag of `paddock ls`.

use paddock_proto::ChatSummary;

/// What a chat waits for, most urgent first (the order `n` visits them in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Need {
    /// A tool call of its running turn waits for an answer.
    Approval,
    /// Its last run failed.
    Failed,
    /// Its last turn was cut short (`C` continues it).
    Interrupted,
    /// Parked on a usage limit until it resets.
    Parked,
    /// Something happened since you last looked.
    Unread,
}

impl Need {
    /// The most urgent thing `chat` needs, if any. A running chat needs nothing but an
    /// answer to its tool call (or to be read); what its last run did is over.
    pub fn of(chat: &ChatSummary) -> Option<Need> {
        if chat.waiting_approval {
            Some(Need::Approval)
        } else if !chat.running && chat.failed {
            Some(Need::Failed)
        } else if !chat.running && chat.interrupted {
            Some(Need::Interrupted)
        } else if !chat.running && chat.parked.is_some() {
            Some(Need::Parked)
        } else if chat.unread {
            Some(Need::Unread)
        } else {
            None
        }
    }

    /// It waits for the person to act (not merely to read).
    pub fn waits_for_you(self) -> bool {
        self != Need::Unread
    }

    /// Its letter in `paddock ls`'s need flag; none for unread, which has its own flag.
    pub fn letter(self) -> Option<char> {
        match self {
            Need::Approval => Some('W'),
            Need::Failed => Some('F'),
            Need::Interrupted => Some('I'),
            Need::Parked => Some('P'),
            Need::Unread => None,
        }
    }
}

/// Why a chat has no turn to continue: the one rule of the TUI's `C` keys (tree and chat
/// pane) and of `paddock continue`. Only a chat whose last turn was cut short, and that runs
/// nothing now, has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoContinue {
    /// A turn runs in it now.
    Running,
    /// Its last turn ended on its own (or was stopped on purpose): send it a message instead.
    NotCutShort,
}

impl NoContinue {
    /// From what is known of the chat: whether it runs, whether its last turn was cut short.
    pub fn of(running: bool, cut_short: bool) -> Option<NoContinue> {
        if running {
            Some(NoContinue::Running)
        } else if !cut_short {
            Some(NoContinue::NotCutShort)
        } else {
            None
        }
    }

    /// From a chat's row.
    pub fn of_chat(chat: &ChatSummary) -> Option<NoContinue> {
        Self::of(chat.running, chat.interrupted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(tune: impl FnOnce(&mut ChatSummary)) -> ChatSummary {
        let mut c = ChatSummary::default();
        tune(&mut c);
        c
    }

    #[test]
    fn the_most_urgent_need_wins_and_a_running_chat_needs_only_an_answer() {
        assert_eq!(Need::of(&chat(|_| {})), None);
        let all = chat(|c| {
            c.unread = true;
            c.parked = Some("limit".into());
            c.interrupted = true;
            c.failed = true;
        });
        assert_eq!(Need::of(&all), Some(Need::Failed));
        let running = chat(|c| {
            c.running = true;
            c.interrupted = true;
            c.unread = true;
        });
        assert_eq!(Need::of(&running), Some(Need::Unread));
        let asking = chat(|c| {
            c.running = true;
            c.waiting_approval = true;
        });
        assert_eq!(Need::of(&asking), Some(Need::Approval));
        assert!(Need::Approval < Need::Failed && Need::Parked < Need::Unread);
        assert!(!Need::Unread.waits_for_you() && Need::Parked.waits_for_you());
    }
}
