//! The one path of machine-started turns (a spawned child's kickoff, a message from another
//! chat, a schedule or a hook firing, a management client's turn): [`start_turn`] stamps run
//! provenance (origin, depth, the recorded parent) and message provenance, and the turn
//! streams through the hub like a person's.

use paddock_proto::{Attribution, ErrorBody, Origin};

use crate::projects::Project;
use crate::runner::{Runner, TurnRequest};
use crate::stores::RunProvenance;

/// A turn a machine starts: a spawned child's kickoff, a message from another chat, a
/// schedule or a hook firing.
#[derive(Debug, Clone)]
pub struct MachineTurn {
    pub project: Project,
    /// `None` starts a new chat.
    pub session_id: Option<String>,
    pub message: String,
    pub model: Option<String>,
    /// Who this run is, for History.
    pub origin: Origin,
    /// The new chat's provenance (ignored for an existing chat: stamped once).
    pub provenance: Option<RunProvenance>,
    /// Who injected the message (shown above it, and matched in the transcript).
    pub attribution: Option<Attribution>,
    pub trigger: Option<String>,
    /// The turn that started it: the sender's, or the one that set off the hook. The turn
    /// runs at that turn's depth for the gate, in its tree (`lineage.rs`).
    pub cause: Option<crate::lineage::Lineage>,
}

/// The one path for machine-started turns. A chat that is running queues the turn; it runs
/// when the current one ends. Returns the session id.
pub async fn start_turn(runner: &Runner, turn: MachineTurn) -> Result<String, ErrorBody> {
    runner
        .send(
            TurnRequest::new(turn.project, turn.session_id, turn.message)
                .model(turn.model)
                .attribution(turn.attribution)
                .origin(turn.origin)
                .provenance(turn.provenance)
                .trigger(turn.trigger)
                .cause(turn.cause),
        )
        .await
        .map_err(ErrorBody::from)
}
