//! `paddock tail`: attach to a chat and print its running (or just-ended) turn to the end; with
//! nothing to show, say so and exit (`--wait`: wait for the next turn).

use anyhow::anyhow;

use super::Context;
use super::chats::listed_chat;
use super::follow::TurnOutput;
use super::output::eprint;
use crate::cli::TailArgs;
use crate::client::{Client, Follow};
use crate::format::StreamPrinter;

pub async fn run(ctx: &Context, args: TailArgs) -> anyhow::Result<()> {
    let mut client = ctx.connect().await?;
    let mut events = client
        .take_events()
        .ok_or_else(|| anyhow!("the connection's events were already taken"))?;
    let mut follow = Follow::new(&client, &mut events, args.session.clone());
    let subscribed = follow.subscribe().await?;
    // While a turn runs, only its frames count (a lingering earlier turn is not the one asked
    // about); otherwise the replay of the turn that just ended, or the next turn, does.
    let job = subscribed.job_id.filter(|_| subscribed.running);
    if !subscribed.running && subscribed.replayed == 0 {
        // Subscribing does not say whether the chat exists; waiting on a typo would be forever.
        // The listing is a second opinion: a turn it says is running (starting, or queued
        // behind the pool) is on its way, so it is followed rather than reported missing.
        let listed_running = chat_running(&client, &args.session).await?;
        if !args.wait && !listed_running {
            eprint(&format!(
                "nothing is running in {}, and no turn ended recently (--wait waits for the next one)\n",
                args.session
            ));
            return Ok(());
        }
        eprint(&format!(
            "waiting for the next turn of {} (Ctrl-C to stop)\n",
            args.session
        ));
    }
    let mut turn = TurnOutput::new(StreamPrinter::new(true), args.json, job);
    loop {
        let frame = turn.next(&mut follow).await?;
        if let Some(complete) = turn.frame(&frame)? {
            return turn.result(complete, false, &args.session);
        }
    }
}

/// Whether the listing says `session` runs; an error when there is no such chat.
async fn chat_running(client: &Client, session: &str) -> anyhow::Result<bool> {
    match listed_chat(client, session).await? {
        Some(chat) => Ok(chat.running),
        None => Err(anyhow!(
            "no chat {session}; `paddock ls -p SLUG --all` lists a project's chats"
        )),
    }
}
