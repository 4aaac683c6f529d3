//! What the TUI tells the daemon to do, typed: a [`Doing`] is a command the user gave (or the
//! loop gives for them) carrying the request it sends, and its answer comes back as a [`Done`]
//! of the reply type that request pairs with. The loop and the views say what it came to by
//! matching that, never a string; a reply of another kind never reaches them (the client
//! refuses it as a protocol error).

use paddock_proto::{
    Ack, ApprovalAnswer, Cancelled, ChatAction, ChatCancel, ChatContinue, ChatDelete, ChatFork,
    ChatPromote, ChatSetQueue, ChatSubscribe, ChatUnsubscribe, ChatUpdate, Fired, Forked,
    GitCommitRequest, GitCommitted, GitPushRequest, GitPushed, HistorySeen, NotificationsSubscribe,
    Promoted, Sent, Subscribed, TriggerFire, TriggerInfo, TriggerRemove, TriggerSet, Updated,
};

use super::fetch::call;
use super::triggers_view::Act;
use crate::client::Client;

/// A command, by what it does, with its request.
#[derive(Debug, Clone, PartialEq)]
pub enum Doing {
    /// The chat just opened (or updated while open) is marked read.
    MarkRead(ChatUpdate),
    Update(ChatUpdate),
    Cancel(ChatCancel),
    Fork(ChatFork),
    Promote(ChatPromote),
    Delete(ChatDelete),
    Continue(ChatContinue),
    Queue(ChatSetQueue),
    Answer(ApprovalAnswer),
    HistorySeen,
    Commit(GitCommitRequest),
    Push(GitPushRequest),
    /// The open chat's stream.
    Follow(ChatSubscribe),
    Unsubscribe(ChatUnsubscribe),
    Notifications,
    /// The Triggers view's acts: a fire, a remove, the form's save.
    Fire(TriggerFire),
    Remove(TriggerRemove),
    Save(Box<TriggerSet>),
}

/// The typed answer to a [`Doing`] (one variant each), or why there is none.
#[derive(Debug, Clone)]
pub enum Done {
    MarkRead(Result<Updated, String>),
    /// What was asked (the action, of how many chats), and the answer.
    Update(ChatAction, usize, Result<Updated, String>),
    Cancel(Result<Cancelled, String>),
    Fork(Result<Forked, String>),
    Promote(Result<Promoted, String>),
    Delete(Result<Updated, String>),
    Continue(Result<Sent, String>),
    Queue(Result<Ack, String>),
    Answer(Result<Updated, String>),
    HistorySeen(Result<Ack, String>),
    Commit(Result<GitCommitted, String>),
    Push(Result<GitPushed, String>),
    Follow(Result<Subscribed, String>),
    Unsubscribe(Result<Ack, String>),
    Notifications(Result<Ack, String>),
    /// A trigger's fire, remove or save: the Triggers view's, or the status line's when that
    /// view is gone.
    Trigger(Acted),
}

/// What a trigger's act came to.
#[derive(Debug, Clone)]
pub enum Acted {
    Fired(Result<Fired, String>),
    Removed(Result<Ack, String>),
    Saved(Result<Box<TriggerInfo>, String>),
}

impl Acted {
    /// The act it answers.
    pub fn act(&self) -> Act {
        match self {
            Acted::Fired(_) => Act::Fire,
            Acted::Removed(_) => Act::Remove,
            Acted::Saved(_) => Act::Save,
        }
    }

    /// Why the act was refused (or not carried out), if it was.
    pub fn refusal(&self) -> Option<&str> {
        match self {
            Acted::Fired(Err(reason)) | Acted::Removed(Err(reason)) | Acted::Saved(Err(reason)) => {
                Some(reason)
            }
            Acted::Fired(Ok(_)) | Acted::Removed(Ok(_)) | Acted::Saved(Ok(_)) => None,
        }
    }
}

impl Doing {
    /// What it does, for "cannot …" and "… failed".
    pub fn what(&self) -> &'static str {
        match self {
            Doing::MarkRead(_) => "mark read",
            Doing::Update(_) => "update",
            Doing::Cancel(_) => "cancel",
            Doing::Fork(_) => "fork",
            Doing::Promote(_) => "move",
            Doing::Delete(_) => "delete",
            Doing::Continue(_) => "continue",
            Doing::Queue(_) => "queue the follow-up",
            Doing::Answer(_) => "answer",
            Doing::HistorySeen => "history seen",
            Doing::Commit(_) => "commit",
            Doing::Push(_) => "push",
            Doing::Follow(_) => "follow the chat",
            Doing::Unsubscribe(_) => "unsubscribe",
            Doing::Notifications => "ask for notifications",
            Doing::Fire(_) => Act::Fire.what(),
            Doing::Remove(_) => Act::Remove.what(),
            Doing::Save(_) => Act::Save.what(),
        }
    }

    /// Sends the typed request and gives back the typed answer.
    pub async fn call(self, client: &Client) -> Done {
        match self {
            Doing::MarkRead(update) => Done::MarkRead(call(client, update).await),
            Doing::Update(update) => {
                let (action, asked) = (update.action, update.session_ids.len());
                Done::Update(action, asked, call(client, update).await)
            }
            Doing::Cancel(cancel) => Done::Cancel(call(client, cancel).await),
            Doing::Fork(fork) => Done::Fork(call(client, fork).await),
            Doing::Promote(promote) => Done::Promote(call(client, promote).await),
            Doing::Delete(delete) => Done::Delete(call(client, delete).await),
            Doing::Continue(chat) => Done::Continue(call(client, chat).await),
            Doing::Queue(queue) => Done::Queue(call(client, queue).await),
            Doing::Answer(answer) => Done::Answer(call(client, answer).await),
            Doing::HistorySeen => Done::HistorySeen(call(client, HistorySeen).await),
            Doing::Commit(commit) => Done::Commit(call(client, commit).await),
            Doing::Push(push) => Done::Push(
                client
                    .call_within(push, Client::PUSH_TIMEOUT)
                    .await
                    .map_err(|e| e.to_string()),
            ),
            Doing::Follow(subscribe) => Done::Follow(call(client, subscribe).await),
            Doing::Unsubscribe(chat) => Done::Unsubscribe(call(client, chat).await),
            Doing::Notifications => Done::Notifications(call(client, NotificationsSubscribe).await),
            Doing::Fire(fire) => Done::Trigger(Acted::Fired(call(client, fire).await)),
            Doing::Remove(remove) => Done::Trigger(Acted::Removed(call(client, remove).await)),
            Doing::Save(set) => Done::Trigger(Acted::Saved(call(client, *set).await)),
        }
    }
}
