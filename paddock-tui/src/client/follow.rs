//! Following one chat's stream: its frames in seq order, each once, across the daemon's
//! resyncs and this client's own lagging (see [`super::Events`]).

use paddock_proto::{ChatSubscribe, HubFrame, ResyncReason, Subscribed};

use super::connection::Client;
use super::error::ClientError;
use super::events::{Event, Events};

/// How many resyncs in a row, with no new frame between them, before giving up.
const MAX_RESYNCS: u32 = 5;

/// What following a chat yields.
// Frames are nearly every item; boxing them to shrink the rare notice would cost per frame.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Followed {
    /// The next frame of the chat, never one delivered before.
    Frame(HubFrame),
    /// Something worth telling the user that is not a frame: part of the stream is gone for
    /// good, or the daemon sent something this client could not read.
    Notice(String),
}

/// A chat's stream on a connection whose events this follower consumes.
pub struct Follow<'a> {
    client: &'a Client,
    events: &'a mut Events,
    session_id: String,
    /// The last seq delivered: frames at or below it are repeats from a re-subscription.
    last_seq: Option<u64>,
    resyncs_in_a_row: u32,
    /// What the daemon said when it announced it was stopping (`daemon:stopping`).
    stopping: Option<String>,
}

impl<'a> Follow<'a> {
    /// Follows `session_id`. The connection must be subscribed to it already (as `chat:send`
    /// does) or get subscribed with [`Follow::subscribe`].
    pub fn new(client: &'a Client, events: &'a mut Events, session_id: String) -> Self {
        Self {
            client,
            events,
            session_id,
            last_seq: None,
            resyncs_in_a_row: 0,
            stopping: None,
        }
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Subscribes with replay: after the last frame delivered, or everything the daemon still
    /// buffers before any was.
    pub async fn subscribe(&mut self) -> Result<Subscribed, ClientError> {
        let request = ChatSubscribe {
            session_id: self.session_id.clone(),
            want_replay: true,
            last_seq: self.last_seq,
        };
        self.client.call(request).await
    }

    /// The next frame of this chat not delivered before, or a notice.
    pub async fn next(&mut self) -> Result<Followed, ClientError> {
        loop {
            let Some(event) = self.events.recv().await else {
                return Err(self.client_lost());
            };
            match event {
                Event::Frame(frame) if frame.routing.session_id == self.session_id => {
                    if self.last_seq.is_some_and(|last| frame.routing.seq <= last) {
                        continue;
                    }
                    self.last_seq = Some(frame.routing.seq);
                    self.resyncs_in_a_row = 0;
                    return Ok(Followed::Frame(frame));
                }
                Event::Resync(resync) if resync.session_id == self.session_id => {
                    if let Some(notice) = self.resync(Some(resync.reason)).await? {
                        return Ok(Followed::Notice(notice));
                    }
                }
                Event::Lagged { .. } => {
                    self.resync(None).await?;
                }
                Event::DaemonError(body) => return Err(ClientError::Daemon(Box::new(body))),
                Event::Undecodable(what) => {
                    return Ok(Followed::Notice(format!(
                        "skipped a message from paddockd that this paddock cannot read: {what}"
                    )));
                }
                Event::Stopping(stopping) => self.stopping = Some(stopping.message),
                Event::Frame(_)
                | Event::Resync(_)
                | Event::Active(_)
                | Event::ChatsChanged(_)
                | Event::ApprovalsChanged(_)
                | Event::ProjectChanged(_)
                | Event::Attention(_) => {}
            }
        }
    }

    fn client_lost(&self) -> ClientError {
        ClientError::ConnectionLost {
            reason: self
                .stopping
                .clone()
                .unwrap_or_else(|| "paddockd closed the connection".to_owned()),
        }
    }

    /// Re-subscribes after frames were lost; `reason` is the daemon's, `None` our own queue
    /// overflowing. A notice when some frames cannot be had any more.
    async fn resync(
        &mut self,
        reason: Option<ResyncReason>,
    ) -> Result<Option<String>, ClientError> {
        self.resyncs_in_a_row += 1;
        if self.resyncs_in_a_row > MAX_RESYNCS {
            return Err(ClientError::StreamLost {
                session_id: self.session_id.clone(),
            });
        }
        match reason {
            Some(ResyncReason::AgedOut) => {
                // Replay what is left; frames already delivered are skipped by seq.
                let seen = self.last_seq.take();
                let result = self.subscribe().await;
                self.last_seq = seen;
                result?;
                Ok(Some(format!(
                    "part of this turn is no longer buffered by paddockd; `paddock show {}` has it all",
                    self.session_id
                )))
            }
            // The daemon restarted: its seqs start again, so nothing seen before compares.
            Some(ResyncReason::UnknownSeq) => {
                self.last_seq = None;
                self.subscribe().await?;
                Ok(None)
            }
            Some(ResyncReason::SlowClient) | None => {
                self.subscribe().await?;
                Ok(None)
            }
        }
    }
}
