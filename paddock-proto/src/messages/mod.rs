//! Every message of the protocol. Field names are camelCase on the wire, in the reference's
//! spelling (`sessionId`, `projectSlug`, `jobId`, `seq`, `wantReplay`, `lastSeq`).
//!
//! The root workspace's project slug is the empty string: it is a real key, never "absent".

mod agent;
mod approvals;
mod chat;
mod control;
mod daemon;
mod envelope;
mod errors;
mod events;
mod fields;
mod files;
mod git;
mod history;
mod project;
mod provenance;
mod reply;
mod request;
mod search;
mod transcript;
mod triggers;
mod worktree;

pub use agent::*;
pub use approvals::*;
pub use chat::*;
pub use control::*;
pub use daemon::*;
pub use envelope::*;
pub use errors::*;
pub use events::*;
use fields::*;
pub use files::*;
pub use git::*;
pub use history::*;
pub use project::*;
pub use provenance::*;
pub use reply::*;
pub use request::*;
pub use search::*;
pub use transcript::*;
pub use triggers::*;
pub use worktree::*;

use serde::{Deserialize, Serialize};

/// A request id, chosen by the client, echoed in the one response it gets.
pub type RequestId = u64;

/// One line from a client: an id and a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientMessage {
    pub id: RequestId,
    #[serde(flatten)]
    pub request: Request,
}
