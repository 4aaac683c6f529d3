//! `paddock continue`: a new turn in a chat whose last turn was cut short (`chat:continue`),
//! followed to its end as `paddock send` follows its own (or, with --detach, just started).

use anyhow::anyhow;
use paddock_proto::{ChatContinue, ChatSummary, SessionRef};

use super::Context;
use super::chats::listed_chat;
use super::ids::EVERY_CHAT;
use super::send::follow_accepted;
use crate::cli::ContinueArgs;
use crate::needs::NoContinue;

pub async fn run(ctx: &Context, args: ContinueArgs) -> anyhow::Result<()> {
    let mut client = ctx.connect().await?;
    let mut events = client
        .take_events()
        .ok_or_else(|| anyhow!("the connection's events were already taken"))?;
    // The daemon continues whatever it is asked to; whether there is anything to continue
    // is the listing's word, by the TUI's rule (`NoContinue`).
    let chat = listed_chat(&client, &args.session)
        .await?
        .ok_or_else(|| anyhow!("no chat {} in any project; {EVERY_CHAT}", args.session))?;
    if let Some(why) = nothing_to_continue(&chat) {
        return Err(anyhow!(why));
    }
    let request = ChatContinue(SessionRef {
        session_id: chat.session_id,
    });
    // A refusal (recovery_surface off, a turn started meanwhile) is the daemon's own sentence.
    let sent = client.call(request).await?;
    follow_accepted(&client, &mut events, &sent, args.detach, args.json).await
}

/// Why there is no turn to continue in `chat`, and what to do instead; `None` when its last
/// turn was cut short and nothing runs in it now.
fn nothing_to_continue(chat: &ChatSummary) -> Option<String> {
    let id = &chat.session_id;
    NoContinue::of_chat(chat).map(|why| match why {
        NoContinue::Running => format!(
            "{id} is running; nothing to continue until its turn ends (`paddock tail {id}` follows it)"
        ),
        NoContinue::NotCutShort => format!(
            "the last turn of {id} was not cut short, so there is nothing to continue; send it a message instead: `paddock send -c {id} ...`"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_chat_cut_short_and_not_running_has_something_to_continue() {
        let chat = |running, interrupted| ChatSummary {
            session_id: "0198c3e1".into(),
            running,
            interrupted,
            ..ChatSummary::default()
        };
        assert_eq!(nothing_to_continue(&chat(false, true)), None);
        let done = nothing_to_continue(&chat(false, false)).unwrap_or_default();
        assert!(done.contains("nothing to continue"), "{done}");
        assert!(done.ends_with("`paddock send -c 0198c3e1 ...`"), "{done}");
        let running = nothing_to_continue(&chat(true, false)).unwrap_or_default();
        assert!(running.contains("`paddock tail 0198c3e1`"), "{running}");
    }
}
