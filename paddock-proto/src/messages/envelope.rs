//! The envelope of what the daemon writes: a hub frame or a control message, a response
//! and its outcome.

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
    /// A project's triggers or git state changed (by any client, or an agent's tool). Sent to
    /// every client.
    #[serde(rename = "project:changed")]
    ProjectChanged(ProjectChanged),
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
