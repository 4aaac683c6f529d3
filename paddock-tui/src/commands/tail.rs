//! `paddock tail`: attach to a chat and print its turn to the end.

use anyhow::anyhow;
use paddock_proto::ChatEvent;

use super::Context;
use super::follow::{Follow, TurnReasons, emit};
use super::output::{eprint, print_json_line};
use crate::cli::TailArgs;
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
        if args.no_wait {
            eprint(&format!("nothing is running in {}\n", args.session));
            return Ok(());
        }
        eprint(&format!(
            "waiting for the next turn of {} (Ctrl-C to stop)\n",
            args.session
        ));
    }
    let mut printer = StreamPrinter::new(true);
    let mut reasons = TurnReasons::default();
    loop {
        let frame = follow.next_frame().await?;
        if job.as_ref().is_some_and(|job| *job != frame.routing.job_id) {
            continue;
        }
        reasons.observe(&frame.event);
        if args.json {
            print_json_line(&frame)?;
        } else {
            emit(printer.frame(&frame.event))?;
        }
        if let ChatEvent::Complete(complete) = &frame.event {
            return reasons.result(complete, false, &args.session);
        }
    }
}
