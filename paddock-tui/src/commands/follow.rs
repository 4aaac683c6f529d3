//! What `send` and `tail` share: following a chat's frames to the end of a turn and printing
//! them.

use paddock_proto::{ChatEvent, Complete, Ended, HubFrame};

use super::output::{Failure, eprint, print, print_json_line};
use crate::client::{ClientError, Follow, Followed};
use crate::format::{Out, StreamPrinter, one_line};

/// `send`'s and `tail`'s exit status for a turn that failed (`send --help` lists them all).
pub const EXIT_FAILED: u8 = 1;
/// ... that was cut short: paddockd stopped, or its claude died or hung (`paddock continue`).
pub const EXIT_CUT: u8 = 75;
/// ... that was cancelled (by Ctrl-C, another terminal or the TUI).
pub const EXIT_CANCELLED: u8 = 130;

/// The connection to paddockd closed while a turn was followed ([`after_loss`] says what
/// that means).
#[derive(Debug, thiserror::Error)]
#[error("{lost}; the turn may still be running: `paddock tail {session_id}`")]
pub struct LostMidTurn {
    lost: ClientError,
    session_id: String,
}

/// The next frame of the followed chat; notices go to stderr on the way.
pub async fn next_frame(follow: &mut Follow<'_>) -> anyhow::Result<HubFrame> {
    loop {
        match follow.next().await {
            Ok(Followed::Frame(frame)) => return Ok(frame),
            Ok(Followed::Notice(notice)) => eprint(&format!("paddock: {notice}\n")),
            Err(lost @ ClientError::ConnectionLost { .. }) => {
                return Err(LostMidTurn {
                    lost,
                    session_id: follow.session_id().to_owned(),
                }
                .into());
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// What a following command's end says when its connection closed mid-turn: paddockd died
/// (killed, crashed; its claude went with it), so the turn was cut short and `paddock continue`
/// picks it up (exit status [`EXIT_CUT`]); or paddockd still answers (the link to it broke),
/// and the turn may run on: `paddock tail` follows it. Any other end as it was.
pub async fn after_loss(ctx: &super::Context, result: anyhow::Result<()>) -> anyhow::Result<()> {
    let Err(err) = result else {
        return Ok(());
    };
    let Some(lost) = err.downcast_ref::<LostMidTurn>() else {
        return Err(err);
    };
    if ctx.open_existing().await.is_ok() {
        return Err(err);
    }
    let session = &lost.session_id;
    Err(Failure::new(
        EXIT_CUT,
        format!(
            "paddockd stopped while the turn ran (its connection closed), so the turn was cut short; the chat stays resumable: `paddock continue {session}` (which starts paddockd again)"
        ),
    )
    .into())
}

/// One turn of a chat, printed as its frames come (or as JSON lines), remembering why it
/// failed if it does; frames of any other turn are passed over.
pub struct TurnOutput {
    printer: StreamPrinter,
    reasons: TurnReasons,
    json: bool,
    /// The turn followed; `None`: whichever turn the frames are of.
    job_id: Option<String>,
}

impl TurnOutput {
    pub fn new(printer: StreamPrinter, json: bool, job_id: Option<String>) -> Self {
        Self {
            printer,
            reasons: TurnReasons::default(),
            json,
            job_id,
        }
    }

    /// Prints `frame` if it is of the turn followed; its `complete` when it ends the turn.
    pub fn frame<'f>(&mut self, frame: &'f HubFrame) -> anyhow::Result<Option<&'f Complete>> {
        if self
            .job_id
            .as_ref()
            .is_some_and(|job| *job != frame.routing.job_id)
        {
            return Ok(None);
        }
        self.reasons.observe(&frame.event);
        if self.json {
            print_json_line(frame)?;
        } else {
            emit(self.printer.frame(&frame.event))?;
        }
        Ok(match &frame.event {
            ChatEvent::Complete(complete) => Some(complete),
            _ => None,
        })
    }

    /// Prints what the printer still holds (a line cut short), before saying something else.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        emit(self.printer.finish())
    }

    /// The next frame of the followed chat ([`next_frame`]); when there is none (the
    /// connection closed), the line being printed is ended first, so what is said next starts
    /// a line of its own.
    pub async fn next(&mut self, follow: &mut Follow<'_>) -> anyhow::Result<HubFrame> {
        let next = next_frame(follow).await;
        if next.is_err() && !self.json {
            self.flush()?;
        }
        next
    }

    /// The command's result for the turn `complete` ended.
    pub fn result(
        &self,
        complete: &Complete,
        cancelled: bool,
        session_id: &str,
    ) -> anyhow::Result<()> {
        self.reasons.result(complete, cancelled, session_id)
    }
}

/// Prints a printer's output where it belongs.
fn emit(outs: Vec<Out>) -> anyhow::Result<()> {
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
struct TurnReasons {
    last: Option<String>,
}

impl TurnReasons {
    fn observe(&mut self, event: &ChatEvent) {
        match event {
            ChatEvent::Error(e) => self.last = Some(e.message.clone()),
            ChatEvent::Notice(n) => self.last = Some(n.message.clone()),
            _ => {}
        }
    }

    /// The command's result for a completed turn: how it ended, in words, with its exit
    /// status ([`EXIT_FAILED`], [`EXIT_CUT`], [`EXIT_CANCELLED`]). `cancelled`: this command
    /// cancelled it (Ctrl-C).
    fn result(&self, complete: &Complete, cancelled: bool, session_id: &str) -> anyhow::Result<()> {
        let ended = match complete.ended {
            _ if cancelled => Ended::Cancelled,
            Some(ended) => ended,
            // A daemon that does not say: its success is all there is.
            None if complete.success => Ended::Done,
            None => Ended::Failed,
        };
        let reason = complete
            .error
            .clone()
            .or_else(|| self.last.clone())
            .or_else(|| complete.terminal_reason.clone())
            .unwrap_or_else(|| "no reason given".to_owned());
        let reason = one_line(&reason, 300);
        let failure = match ended {
            Ended::Done => return Ok(()),
            Ended::Cancelled => Failure::new(
                EXIT_CANCELLED,
                format!(
                    "the turn was cancelled; the chat stays resumable: `paddock send -c {session_id} ...`"
                ),
            ),
            Ended::Cut => Failure::new(
                EXIT_CUT,
                format!("{reason}; the chat stays resumable: `paddock continue {session_id}`"),
            ),
            Ended::Failed => Failure::new(EXIT_FAILED, format!("the turn failed: {reason}")),
        };
        Err(failure.into())
    }
}
