//! `paddock notify`: announce the chats that need you to this terminal, for as long as it runs.

use std::io::Write as _;

use anyhow::{anyhow, bail};
use paddock_proto::{Attention, NotificationsSubscribe};

use super::Context;
use super::output::{Failure, eprint};
use crate::cli::NotifyArgs;
use crate::client::Event;
use crate::notify::{Mode, Seen, in_tmux, sequence};

/// The line printed for an announcement: `HH:MM  title — body` (made visible where it is
/// written).
pub fn line(a: &Attention, now: &chrono::DateTime<chrono::Local>) -> String {
    let when = crate::format::short_time(&a.at, now);
    format!(
        "{when}  {} — {}",
        crate::format::one_line(&crate::format::clean_title(&a.title), 80),
        a.body
    )
}

pub async fn run(ctx: &Context, args: NotifyArgs) -> anyhow::Result<()> {
    let (mode, bad) = Mode::from_env();
    if let Some(bad) = bad {
        bail!("{bad}");
    }
    let mut client = ctx.connect().await?;
    let mut events = client
        .take_events()
        .ok_or_else(|| anyhow!("the connection's events were already taken"))?;
    client.call(NotificationsSubscribe).await?;
    eprint("waiting for chats that need you (Ctrl-C ends)\n");
    let tmux = in_tmux();
    let mut seen = Seen::default();
    loop {
        let event = tokio::select! {
            ev = events.recv() => ev,
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        let Some(event) = event else {
            return Err(Failure::new(
                1,
                "lost the connection to paddockd (it stopped or restarted); run `paddock notify` again",
            )
            .into());
        };
        let Event::Attention(a) = event else {
            continue;
        };
        if !seen.first_time(&a) {
            continue;
        }
        let mut out = std::io::stdout().lock();
        let mut bytes = sequence(mode, &crate::format::clean_title(&a.title), &a.body, tmux);
        let said = line(&a, &chrono::Local::now());
        bytes.extend_from_slice(crate::format::visible(&said).as_bytes());
        bytes.push(b'\n');
        // A closed stdout (the pane went away) ends the command.
        if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
            return Ok(());
        }
        if args.once {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone as _;

    #[test]
    fn the_line_names_the_chat_and_why() {
        let now = chrono::Local
            .with_ymd_and_hms(2026, 11, 2, 12, 0, 0)
            .single()
            .unwrap_or_default();
        let a = Attention {
            id: "run:j".into(),
            kind: paddock_proto::AttentionKind::Finished,
            project_slug: "web".into(),
            session_id: "s".into(),
            job_id: None,
            origin: paddock_proto::Origin::Scheduled,
            title: "Nightly backup check".into(),
            body: "Scheduled run finished".into(),
            at: "not a time".into(),
        };
        assert_eq!(
            line(&a, &now),
            "not a time  Nightly backup check — Scheduled run finished"
        );
    }
}
