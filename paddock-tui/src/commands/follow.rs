//! Following one chat's stream to the end of a turn (`send`, `tail`): frames in seq order, each
//! once, across resyncs and lagging.

use anyhow::anyhow;
use paddock_proto::{
    ChatEvent, ChatSubscribe, Complete, HubFrame, Reply, Request, ResyncReason, Subscribed,
};

use super::output::{Failure, eprint, print};
use super::unexpected;
use crate::client::{Client, Event, Events};
use crate::format::{Out, one_line};

/// How many resyncs in a row, with no new frame between them, before giving up.
const MAX_RESYNCS: u32 = 5;

pub struct Follow<'a> {
    client: &'a Client,
    events: &'a mut Events,
    session_id: String,
    /// The last seq delivered: frames at or below it are repeats from a re-subscription.
    last_seq: Option<u64>,
    resyncs_in_a_row: u32,
}

impl<'a> Follow<'a> {
    pub fn new(client: &'a Client, events: &'a mut Events, session_id: String) -> Self {
        Self {
            client,
            events,
            session_id,
            last_seq: None,
            resyncs_in_a_row: 0,
        }
    }

    /// Subscribes with replay from the last frame seen (from the start of what the daemon still
    /// buffers, before any).
    pub async fn subscribe(&mut self) -> anyhow::Result<Subscribed> {
        let request = Request::ChatSubscribe(ChatSubscribe {
            session_id: self.session_id.clone(),
            want_replay: true,
            last_seq: self.last_seq,
        });
        match self.client.request(request).await? {
            Reply::Subscribed(s) => Ok(s),
            other => Err(unexpected("chat:subscribe", &other)),
        }
    }

    /// The next frame of this chat not delivered before.
    pub async fn next_frame(&mut self) -> anyhow::Result<HubFrame> {
        loop {
            let Some(event) = self.events.recv().await else {
                return Err(anyhow!(
                    "lost the connection to paddockd; the turn may still be running: `paddock tail {}`",
                    self.session_id
                ));
            };
            match event {
                Event::Frame(frame) if frame.routing.session_id == self.session_id => {
                    if self.last_seq.is_some_and(|last| frame.routing.seq <= last) {
                        continue;
                    }
                    self.last_seq = Some(frame.routing.seq);
                    self.resyncs_in_a_row = 0;
                    return Ok(frame);
                }
                Event::Resync(resync) if resync.session_id == self.session_id => {
                    self.resync(Some(resync.reason)).await?;
                }
                Event::Lagged { .. } => self.resync(None).await?,
                Event::DaemonError(body) => {
                    return Err(anyhow!("paddockd reported an error: {body}"));
                }
                Event::Undecodable(what) => {
                    eprint(&format!(
                        "paddock: skipped a message from paddockd: {what}\n"
                    ));
                }
                Event::Frame(_) | Event::Resync(_) | Event::Active(_) | Event::ChatsChanged(_) => {}
            }
        }
    }

    /// Re-subscribes after frames were lost. `reason` is the daemon's; `None` is our own queue
    /// overflowing.
    async fn resync(&mut self, reason: Option<ResyncReason>) -> anyhow::Result<()> {
        self.resyncs_in_a_row += 1;
        if self.resyncs_in_a_row > MAX_RESYNCS {
            return Err(anyhow!(
                "paddockd keeps losing frames of {}; `paddock show {}` has the transcript",
                self.session_id,
                self.session_id
            ));
        }
        match reason {
            Some(ResyncReason::AgedOut) => {
                eprint(&format!(
                    "paddock: part of this turn is no longer buffered; `paddock show {}` has it all\n",
                    self.session_id
                ));
                // Replay what is left; frames already seen are skipped by seq.
                let seen = self.last_seq.take();
                let result = self.subscribe().await;
                self.last_seq = seen;
                result?;
            }
            // The daemon restarted: its seqs start again, so nothing seen before compares.
            Some(ResyncReason::UnknownSeq) => {
                self.last_seq = None;
                self.subscribe().await?;
            }
            Some(ResyncReason::SlowClient) | None => {
                self.subscribe().await?;
            }
        }
        Ok(())
    }
}

/// Prints a printer's output where it belongs.
pub fn emit(outs: Vec<Out>) -> anyhow::Result<()> {
    for out in outs {
        match out {
            Out::Stdout(text) => print(&text)?,
            Out::Stderr(text) => eprint(&text),
        }
    }
    Ok(())
}

/// Remembers why a turn went wrong, for the one-line reason when it completes unsuccessfully.
#[derive(Debug, Default)]
pub struct TurnReasons {
    last: Option<String>,
}

impl TurnReasons {
    pub fn observe(&mut self, event: &ChatEvent) {
        match event {
            ChatEvent::Error(e) => self.last = Some(e.message.clone()),
            ChatEvent::Notice(n) => self.last = Some(n.message.clone()),
            _ => {}
        }
    }

    /// The command's result for a completed turn.
    pub fn result(
        &self,
        complete: &Complete,
        cancelled: bool,
        session_id: &str,
    ) -> anyhow::Result<()> {
        if complete.success {
            return Ok(());
        }
        if cancelled {
            return Err(Failure::new(
                130,
                format!(
                    "the turn was cancelled; the chat stays resumable: `paddock send -c {session_id} ...`"
                ),
            )
            .into());
        }
        let reason = complete
            .error
            .clone()
            .or_else(|| self.last.clone())
            .or_else(|| complete.terminal_reason.clone())
            .unwrap_or_else(|| "no reason given".to_owned());
        Err(Failure::new(1, format!("the turn failed: {}", one_line(&reason, 300))).into())
    }
}
