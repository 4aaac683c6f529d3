//! How a [`TurnRequest`] is made: a message for a chat, and what differs from a person's
//! plain turn said with the builder methods.

use paddock_proto::{Attribution, Origin, RequestId};

use super::TurnRequest;
use crate::hub::ClientId;
use crate::projects::Project;
use crate::stores::{FirstMessage, RunProvenance};

impl TurnRequest {
    /// A person's turn in `session_id` (`None`: a new chat): nothing injected, no trigger,
    /// no one to send the `Sent` reply to, the chat's model.
    pub fn new(project: Project, session_id: Option<String>, message: impl Into<String>) -> Self {
        Self {
            project,
            session_id,
            message: message.into(),
            model: None,
            attribution: None,
            origin: Origin::Human,
            provenance: None,
            trigger: None,
            cause: None,
            reply_to: None,
            fresh_session: false,
        }
    }

    /// A chat's first turn asked again, as it was first asked: claude never wrote it (the
    /// daemon died before it could), so there is no session to resume.
    pub fn first_again(project: Project, session_id: String, first: FirstMessage) -> Self {
        Self {
            model: first.model,
            attribution: first.attribution,
            origin: first.origin,
            trigger: first.trigger,
            fresh_session: true,
            ..Self::new(project, Some(session_id), first.message)
        }
    }

    /// A turn that continues a chat claude stopped in mid-turn ([`CONTINUE_PROMPT`],
    /// attributed to recovery).
    pub fn continuing(project: Project, session_id: String) -> Self {
        Self::new(project, Some(session_id), CONTINUE_PROMPT)
            .attribution(Some(Attribution::Recovery))
    }

    /// The connection and request that asked: it is subscribed and gets the `Sent` reply.
    #[must_use]
    pub fn asked_by(self, client: ClientId, request: RequestId) -> Self {
        Self {
            reply_to: Some((client, request)),
            ..self
        }
    }

    #[must_use]
    pub fn model(self, model: Option<String>) -> Self {
        Self { model, ..self }
    }

    #[must_use]
    pub fn origin(self, origin: Origin) -> Self {
        Self { origin, ..self }
    }

    /// What to stamp as a new chat's run provenance.
    #[must_use]
    pub fn provenance(self, provenance: Option<RunProvenance>) -> Self {
        Self { provenance, ..self }
    }

    #[must_use]
    pub fn trigger(self, trigger: Option<String>) -> Self {
        Self { trigger, ..self }
    }

    /// The turn that started this one (`lineage.rs`).
    #[must_use]
    pub fn cause(self, cause: Option<crate::lineage::Lineage>) -> Self {
        Self { cause, ..self }
    }

    #[must_use]
    pub fn attribution(self, attribution: Option<Attribution>) -> Self {
        Self {
            attribution,
            ..self
        }
    }
}

/// What a recovered chat is told: its last turn was cut short.
pub const CONTINUE_PROMPT: &str = "Your previous turn was cut short before it finished (the process running it stopped). Continue from where you left off.";
/// The message `chat:continue` sends after the person stopped the turn themselves.
pub const CONTINUE_AFTER_CANCEL_PROMPT: &str =
    "I stopped your previous turn before it finished. Continue from where you left off.";

/// A recovery turn (`chat:continue`, autodrive, a usage-limit resume) as it runs: after claude
/// died or the daemon stopped, the recovery prompt with its attribution (⚠ continued after its
/// last turn was cut short); after the person cancelled the last turn, nothing was
/// killed, so it is their own turn, unlabelled, saying they stopped it. Decided by the chat's
/// task when the turn starts, once the turn before it has ended and its run is recorded.
pub(crate) fn recovery_as_run(
    runs: &crate::run_log::RunLog,
    session_id: &str,
    mut req: TurnRequest,
) -> TurnRequest {
    if req.attribution != Some(Attribution::Recovery) || req.fresh_session {
        return req;
    }
    let last = runs
        .recent()
        .into_iter()
        .find(|r| r.session_id == session_id && r.status != paddock_proto::RunStatus::Skipped);
    if last.is_some_and(|r| r.status == paddock_proto::RunStatus::Cancelled) {
        req.attribution = None;
        CONTINUE_AFTER_CANCEL_PROMPT.clone_into(&mut req.message);
    }
    req
}
