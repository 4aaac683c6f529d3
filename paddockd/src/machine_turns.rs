//! The one path of machine-started turns (a spawned child's kickoff, a message from another
//! chat, a schedule or a hook firing, a management client's turn): [`start_turn`] stamps run
//! provenance (origin, depth, the recorded parent) and message provenance, and the turn
//! streams through the hub like a person's.

use paddock_proto::{Attribution, ErrorBody, Origin};

use crate::config::Config;
use crate::projects::Project;
use crate::runner::{Runner, TurnRequest};
use crate::state::ChatState;
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

/// What starting a machine turn needs: the runner, and where a new chat's worktree is made.
#[derive(Clone, Copy)]
pub struct Starter<'a> {
    pub cfg: &'a Config,
    pub state: &'a ChatState,
    pub runner: &'a Runner,
}

/// The one path for machine-started turns. A chat that is running queues the turn; it runs
/// when the current one ends. A new chat works where a person's would (`git/worktree.rs`): a
/// child of a worktree chat in a worktree from its parent's branch, any other as its project's
/// `isolation` says. Returns the session id.
pub async fn start_turn(s: Starter<'_>, turn: MachineTurn) -> Result<String, ErrorBody> {
    let (mut session_id, mut fresh) = (turn.session_id, false);
    if session_id.is_none() {
        let parent = turn
            .provenance
            .as_ref()
            .and_then(|p| p.parent_session_id.clone());
        session_id =
            crate::git::new_chat_worktree(s.cfg, s.state, &turn.project, None, parent.as_deref())
                .await?;
        fresh = session_id.is_some();
    }
    let kept = turn.project.clone();
    let mut req = TurnRequest::new(turn.project, session_id.clone(), turn.message)
        .model(turn.model)
        .attribution(turn.attribution)
        .origin(turn.origin)
        .provenance(turn.provenance)
        .trigger(turn.trigger)
        .cause(turn.cause);
    req.fresh_session = fresh;
    match s.runner.send(req).await {
        Ok(sid) => Ok(sid),
        Err(refused) => {
            if let (true, Some(sid)) = (fresh, &session_id) {
                crate::git::undo_new_worktree(s.cfg, s.state, &kept, sid).await;
            }
            Err(ErrorBody::from(refused))
        }
    }
}
