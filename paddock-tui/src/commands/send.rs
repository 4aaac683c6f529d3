//! `paddock send`: one turn, streamed to its end (or, with --detach, just started); the
//! following of an accepted turn, which `paddock continue` shares.

use std::io::IsTerminal;

use anyhow::{Context as _, anyhow};
use paddock_proto::{
    AttachmentUpload, ChatCancel, ChatEvent, ChatSend, ChatSetQueue, ErrorCode, Isolation, Sent,
};
use tokio::signal::unix::{SignalKind, signal};

use super::chats::listed_chat;
use super::follow::{TurnOutput, next_frame};
use super::output::{Failure, eprint, print, print_json_line};
use super::{Context, mark_read, read_stdin};
use crate::cli::SendArgs;
use crate::client::{Client, Events, Follow};
use crate::format::{ROOT_SLUG, StreamPrinter};

pub async fn run(ctx: &Context, args: SendArgs) -> anyhow::Result<()> {
    let message = message_from(&args.text)?;
    let mut client = ctx.connect().await?;
    let mut events = client
        .take_events()
        .ok_or_else(|| anyhow!("the connection's events were already taken"))?;
    let project_slug = match (&args.project, &args.session) {
        (Some(project), _) => project.clone(),
        (None, Some(session)) => project_of(&client, session).await?,
        (None, None) => ROOT_SLUG.to_owned(),
    };
    let request = ChatSend {
        project_slug,
        session_id: args.session.clone(),
        message: message.clone(),
        model: args.model.clone(),
        preload_context: args.preload,
        attachments: uploads(ctx, &args.attach)?,
        isolation: if args.worktree || args.branch.is_some() || args.base.is_some() {
            Some(Isolation::Worktree {
                branch: args.branch.clone(),
                base: args.base.clone(),
            })
        } else if args.no_worktree {
            Some(Isolation::None)
        } else {
            None
        },
    };
    let sent = match client.call(request).await {
        Err(e) if args.queue && e.code() == Some(ErrorCode::Busy) => {
            let session = args.session.as_deref().unwrap_or_default();
            return queue_then_follow(&client, &mut events, session, message, args.json).await;
        }
        sent => sent?,
    };
    follow_accepted(&client, &mut events, &sent, args.detach, args.json).await
}

/// `send -c S --queue` while S runs a turn: the message joins S's queued follow-up (sent when
/// the running turn ends well), and the follow-up's turn is followed to its end as a sent one
/// is. The chat's other clients show the queued message (it is on the chat's row).
async fn queue_then_follow(
    client: &Client,
    events: &mut Events,
    session: &str,
    message: String,
    json: bool,
) -> anyhow::Result<()> {
    let chat = listed_chat(client, session)
        .await?
        .ok_or_else(|| anyhow!("no chat {session}; `paddock ls -A` lists the chats"))?;
    let session = chat.session_id.as_str();
    let queued = match chat.queued.filter(|q| !q.trim().is_empty()) {
        Some(before) => format!("{before}\n\n{message}"),
        None => message,
    };
    // Subscribed before queuing, so the flush cannot pass unseen.
    let mut follow = Follow::new(client, events, session.to_owned());
    let running = follow.subscribe().await?.job_id;
    client
        .call(ChatSetQueue {
            session_id: session.to_owned(),
            message: Some(queued),
        })
        .await?;
    eprint(&format!(
        "session: {session}\npaddock: queued: sent when the running turn ends (Ctrl-C stops waiting; it stays queued)\n"
    ));
    // The running turn is not this command's: its end sends the follow-up, or, when it did
    // not end well, leaves it queued.
    loop {
        let frame = next_frame(&mut follow).await?;
        if Some(&frame.routing.job_id) != running.as_ref() {
            break follow_next_turn(client, follow, frame, session, json).await;
        }
        if let ChatEvent::Complete(c) = &frame.event
            && !c.success
        {
            return Err(Failure::new(
                1,
                format!(
                    "the running turn did not finish, so your message stays queued: `paddock send -c {session}` sends it now (the TUI shows it in the chat's composer)"
                ),
            )
            .into());
        }
    }
}

/// Prints the turn `first` (a frame of it) begins, to its end.
async fn follow_next_turn(
    client: &Client,
    mut follow: Follow<'_>,
    first: paddock_proto::HubFrame,
    session: &str,
    json: bool,
) -> anyhow::Result<()> {
    let mut turn = TurnOutput::new(
        StreamPrinter::new(false),
        json,
        Some(first.routing.job_id.clone()),
    );
    let mut frame = first;
    loop {
        if let Some(complete) = turn.frame(&frame)? {
            if !json {
                mark_read(client, session).await;
            }
            return turn.result(complete, false, session);
        }
        frame = turn.next(&mut follow).await?;
    }
}

/// What `send` and `continue` do once the daemon accepted a turn: the session id to stderr,
/// then what started (--detach), or the turn's frames to its end.
pub(super) async fn follow_accepted(
    client: &Client,
    events: &mut Events,
    sent: &Sent,
    detach: bool,
    json: bool,
) -> anyhow::Result<()> {
    eprint(&format!("session: {}\n", sent.session_id));
    if detach {
        return if json {
            print_json_line(sent)
        } else {
            print(&format!("{}\n", sent.session_id))
        };
    }
    if sent.queued {
        eprint("paddock: queued until a claude process is free\n");
    }
    // The asking connection is subscribed already: the turn's frames follow the reply.
    let follow = Follow::new(client, events, sent.session_id.clone());
    stream_turn(client, follow, sent, json).await
}

async fn stream_turn(
    client: &Client,
    mut follow: Follow<'_>,
    sent: &Sent,
    json: bool,
) -> anyhow::Result<()> {
    // From here on Ctrl-C cancels the turn instead of killing paddock mid-stream.
    let mut interrupts = signal(SignalKind::interrupt()).context("cannot listen for Ctrl-C")?;
    let mut turn = TurnOutput::new(StreamPrinter::new(false), json, Some(sent.job_id.clone()));
    let mut cancelled = false;
    loop {
        let frame = tokio::select! {
            frame = next_frame(&mut follow) => match frame {
                Ok(frame) => frame,
                Err(e) => {
                    // What is said next starts a line of its own.
                    if !json {
                        turn.flush()?;
                    }
                    return Err(e);
                }
            },
            _ = interrupts.recv() => {
                if cancelled {
                    return Err(Failure::new(130, format!(
                        "stopped waiting; the turn may still be running: `paddock tail {}`",
                        sent.session_id
                    )).into());
                }
                cancelled = true;
                turn.flush()?;
                eprint("paddock: cancelling the turn (Ctrl-C again to stop waiting)\n");
                client.call(ChatCancel {
                    session_id: sent.session_id.clone(),
                    job_id: Some(sent.job_id.clone()),
                }).await?;
                continue;
            }
        };
        // Frames of an earlier turn still running in this chat are not this command's.
        if let Some(complete) = turn.frame(&frame)? {
            if !json {
                // The user watched the reply arrive: the chat is read.
                mark_read(client, &sent.session_id).await;
            }
            return turn.result(complete, cancelled, &sent.session_id);
        }
    }
}

/// The message: TEXT words joined, or stdin for `-` (or no TEXT with stdin not a terminal).
fn message_from(text: &[String]) -> anyhow::Result<String> {
    let message = match text {
        [dash] if dash == "-" => read_stdin()?,
        [] if std::io::stdin().is_terminal() => {
            return Err(anyhow!(
                "nothing to send: give the message as TEXT, or pipe it in with `-`"
            ));
        }
        [] => read_stdin()?,
        words => words.join(" "),
    };
    if message.trim().is_empty() {
        return Err(anyhow!("the message is empty; nothing was sent"));
    }
    Ok(message)
}

/// The project a chat lives in, for `send -c` without `-p`: the daemon wants both.
async fn project_of(client: &Client, session: &str) -> anyhow::Result<String> {
    listed_chat(client, session)
        .await?
        .map(|chat| chat.project_slug)
        .ok_or_else(|| {
            anyhow!("no chat {session}; `paddock ls -p SLUG --all` lists a project's chats")
        })
}

/// The attachments of a message: by absolute path for a daemon on this machine, by content
/// (base64) for one reached with --remote (its disk is not ours).
fn uploads(ctx: &Context, files: &[std::path::PathBuf]) -> anyhow::Result<Vec<AttachmentUpload>> {
    crate::attachments::uploads(ctx.remote.is_some(), files).map_err(anyhow::Error::msg)
}

/// `paddock attachment ID`: a kept attachment's bytes, to stdout or a file.
pub async fn attachment(ctx: &Context, args: crate::cli::AttachmentArgs) -> anyhow::Result<()> {
    use base64::Engine as _;
    use std::io::Write as _;
    let client = ctx.connect().await?;
    let got = client
        .call(paddock_proto::AttachmentRef {
            attachment_id: args.id.clone(),
        })
        .await?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(got.data.as_bytes())
        .map_err(|e| anyhow!("paddockd sent attachment {} in bad base64: {e}", args.id))?;
    match args.output {
        Some(path) => std::fs::write(&path, &bytes)
            .with_context(|| format!("cannot write {}", path.display())),
        // On a terminal, a file's bytes are content like any other: shown, not obeyed.
        None if std::io::stdout().is_terminal() => print(&String::from_utf8_lossy(&bytes)),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .context("cannot write the attachment to stdout")
        }
    }
}
