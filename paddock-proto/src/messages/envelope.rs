//! The envelope of what the daemon writes: a hub frame or a control message, a response
//! and its outcome, and the successful `Reply` to a request.

use serde::{Deserialize, Serialize};

use super::*;

/// Anything the daemon writes: a hub frame, or a control message (responses included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ServerMessage {
    Frame(HubFrame),
    Control(ControlMessage),
}

/// Messages that are not hub frames: responses, and events with no seq.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ControlMessage {
    #[serde(rename = "response")]
    Response(Response),
    /// A connection-level error not tied to a request (a malformed or oversize line).
    #[serde(rename = "error")]
    Error(ConnectionError),
    /// A chat started or stopped running. Sent to every client, and at connect for every
    /// running chat.
    #[serde(rename = "chat:active")]
    Active(Active),
    /// The frames this client needed are gone (aged out of the buffer, or dropped because
    /// the client read too slowly): re-read the transcript, then subscribe again.
    #[serde(rename = "chat:resync")]
    Resync(Resync),
    /// The chat list of a project changed (a chat was created, renamed, archived...).
    #[serde(rename = "chats:changed")]
    ChatsChanged(ChatsChanged),
    /// The pending approvals changed (one was asked, answered, or dropped with its turn).
    /// Sent to every client, and at connect when any is pending.
    #[serde(rename = "approvals:changed")]
    ApprovalsChanged(ApprovalsChanged),
    /// A chat needs the user: an unattended run finished or failed, a run failed, or a tool call
    /// waits for approval. Sent once per event, only to clients that asked
    /// (`notifications:subscribe`), and not at all while some client is subscribed to the chat.
    #[serde(rename = "attention")]
    Attention(Attention),
    /// The daemon is shutting down on purpose (`daemon:shutdown`, or SIGTERM/SIGINT), sent to
    /// every client before it interrupts turns and closes connections. A client that got it
    /// does not start a new daemon by itself; a connection lost without it was a crash.
    #[serde(rename = "daemon:stopping")]
    Stopping(Stopping),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    pub id: RequestId,
    #[serde(flatten)]
    pub outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Outcome {
    #[serde(rename = "ok")]
    Ok(Reply),
    #[serde(rename = "error")]
    Err(ErrorBody),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionError {
    pub error: ErrorBody,
}

/// The successful answer to a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reply {
    Hello(HelloReply),
    Pong,
    /// The request was carried out; nothing more to say.
    Ack,
    /// A turn was accepted (`queued` when it waits for a free `claude` slot).
    Sent(Sent),
    Cancelled(Cancelled),
    Subscribed(Subscribed),
    Chats(Chats),
    Transcript(Box<Transcript>),
    Projects(Projects),
    Project(ProjectInfo),
    /// `project:delete`: what was done.
    ProjectDeleted(ProjectDeleted),
    /// `project:overview`.
    ProjectOverview(Box<ProjectOverview>),
    Status(DaemonStatus),
    /// `daemon:info`.
    Info(Box<DaemonInfo>),
    /// `chat:resolve`.
    Resolved(Resolved),
    /// `chat:update` / `chat:delete`: how many chats changed.
    Updated(Updated),
    /// `chat:fork`: the new chat.
    Forked(Forked),
    History(History),
    Imported(Imported),
    Triggers(Triggers),
    Trigger(Box<TriggerInfo>),
    /// `trigger:fire`: the chat it started or resumed, or why it did not.
    Fired(Fired),
    Approvals(Approvals),
    /// `agent:tools`: what the MCP bridge lists in `tools/list`.
    AgentTools(AgentTools),
    /// `agent:call`: the tool's answer, as the MCP bridge returns it.
    AgentResult(AgentResult),
    /// `provenance:file`: a file's status, producers, readers and lineage.
    Provenance(Box<Provenance>),
    /// `provenance:touched`: a chat's files, turn by turn.
    Touched(Touched),
    /// `search`: the chats that match, best first.
    SearchResults(SearchResults),
    /// `attachment:get`: a kept attachment's bytes.
    Attachment(Attachment),
    /// `provenance:blame`: a file's lines and who last wrote each region.
    Blame(Box<Blame>),
    /// `files:list`: one directory's entries.
    FileListing(FileListing),
    /// `files:read`: a file's text.
    FileText(FileText),
    /// `git:status`.
    GitStatus(GitStatus),
    /// `git:diff`.
    GitDiff(GitDiff),
    /// `git:commit`: the new commit.
    GitCommitted(GitCommitted),
    /// `git:push`: what was pushed, or that the remote was up to date.
    GitPushed(GitPushed),
}
