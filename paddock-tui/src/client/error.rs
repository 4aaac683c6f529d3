//! What can go wrong talking to paddockd, typed so callers can act on it (restart a daemon of
//! another protocol, report a lost connection, show the daemon's own sentence).

use std::path::PathBuf;
use std::time::Duration;

use paddock_proto::{ErrorBody, ErrorCode, FrameError, PROTOCOL_VERSION, ProtocolMismatch};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Nothing listens on the socket (no file there, or a stale one nobody accepts on).
    #[error("paddockd is not running on {}", socket.display())]
    NotRunning {
        socket: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The socket exists but could not be connected to for another reason (permissions...).
    #[error("cannot connect to paddockd on {}: {source}", socket.display())]
    Connect {
        socket: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The daemon refused the request; its message is a sentence for the user.
    #[error("{0}")]
    Daemon(Box<ErrorBody>),
    /// The daemon speaks another protocol version; the details say whether it is safe to
    /// restart it.
    #[error(
        "paddockd (protocol {}, version {}, pid {}) does not speak protocol {PROTOCOL_VERSION} like this paddock",
        .0.daemon_protocol, .0.daemon_version, .0.pid
    )]
    ProtocolMismatch(ProtocolMismatch),
    /// A daemon of another protocol is busy, so it was not restarted under the user's feet.
    #[error(
        "paddockd (protocol {}, version {}, pid {}) is running {} turns; run `paddock daemon restart` when they finish",
        .0.daemon_protocol, .0.daemon_version, .0.pid, .0.running_turns
    )]
    RestartNeeded(ProtocolMismatch),
    /// The daemon kept dropping this client's frames of a chat; following it was given up.
    #[error(
        "paddockd keeps losing frames of {session_id}; `paddock show {session_id}` has the transcript"
    )]
    StreamLost { session_id: String },
    #[error("lost the connection to paddockd: {reason}")]
    ConnectionLost { reason: String },
    #[error("paddockd did not answer {request} within {}s", after.as_secs_f32())]
    Timeout {
        request: &'static str,
        after: Duration,
    },
    /// The daemon wrote something this client cannot read, or answered with the wrong reply.
    #[error(
        "paddockd sent something this paddock cannot read ({0}); are both from the same build?"
    )]
    Protocol(String),
    #[error("could not encode the request: {0}")]
    Encode(FrameError),
    /// Starting or stopping the daemon failed; the message says where to look.
    #[error("{0}")]
    Lifecycle(String),
    /// Reaching the daemon through ssh (`--remote`) failed; the message names the host, says
    /// what ssh or the far side's paddock said, and what to try by hand.
    #[error("{0}")]
    Remote(String),
}

impl ClientError {
    /// A daemon error body as a typed error (a mismatch carries its details).
    pub(crate) fn from_body(body: ErrorBody) -> Self {
        match (&body.code, body.mismatch) {
            (ErrorCode::ProtocolMismatch, Some(details)) => ClientError::ProtocolMismatch(*details),
            (_, mismatch) => ClientError::Daemon(Box::new(ErrorBody { mismatch, ..body })),
        }
    }

    /// The daemon's error code, when the daemon refused the request.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            ClientError::Daemon(body) => Some(body.code),
            ClientError::ProtocolMismatch(_) | ClientError::RestartNeeded(_) => {
                Some(ErrorCode::ProtocolMismatch)
            }
            _ => None,
        }
    }
}
