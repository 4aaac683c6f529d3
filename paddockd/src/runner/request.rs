//! How a [`TurnRequest`] is made: a message for a chat, and what differs from a person's
//! plain turn said with the builder methods.

use paddock_proto::{Attribution, Origin, RequestId};

use super::TurnRequest;
use crate::hub::ClientId;
use crate::projects::Project;
use crate::stores::RunProvenance;

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
            reply_to: None,
        }
    }

    /// A turn that continues a chat claude stopped in mid-turn (`chats::CONTINUE_PROMPT`,
    /// attributed to recovery).
    pub fn continuing(project: Project, session_id: String) -> Self {
        Self::new(project, Some(session_id), crate::chats::CONTINUE_PROMPT)
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

    #[must_use]
    pub fn attribution(self, attribution: Option<Attribution>) -> Self {
        Self {
            attribution,
            ..self
        }
    }
}
