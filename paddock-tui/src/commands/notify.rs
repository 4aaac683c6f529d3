//! `paddock notify`: announce the chats that need you to this terminal, for as long as it runs.

use std::io::Write as _;

use anyhow::{anyhow, bail};
use std::time::Duration;

use paddock_proto::{Attention, NotificationsSubscribe};
use tokio::sync::mpsc;

use super::Context;
use super::output::{Failure, eprint};
use crate::cli::NotifyArgs;
use crate::client::Event;
use crate::hosts::{Host, Hosts};
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
    let mut announcer = Announcer::new(mode);
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
        match announcer.announce(None, &a) {
            Announced::Closed => return Ok(()),
            Announced::Said if args.once => return Ok(()),
            _ => {}
        }
    }
}

/// `paddock notify` on a client of several hosts: every host's announcements, each line
/// prefixed with its host. A host that is down or goes away is said on stderr and tried again
/// (backing off up to [`RETRY_MAX`]) while the others go on; it fails only when no host answers
/// at the start.
pub async fn run_hosts(hosts: &Hosts, args: NotifyArgs) -> anyhow::Result<()> {
    let (mode, bad) = Mode::from_env();
    if let Some(bad) = bad {
        bail!("{bad}");
    }
    // Announcements are few; a full queue holds its host's reader back (never drops one).
    let (tx, mut rx) = mpsc::channel::<(String, Attention)>(64);
    let (up_tx, mut up_rx) = mpsc::channel::<bool>(hosts.list.len().max(1));
    for host in &hosts.list {
        tokio::spawn(follow_host(
            host.clone(),
            hosts.timeout,
            tx.clone(),
            up_tx.clone(),
        ));
    }
    drop(up_tx);
    // The first attempt of every host: at least one must answer.
    let mut any = false;
    for _ in &hosts.list {
        any |= up_rx.recv().await.unwrap_or(false);
    }
    if !any {
        return Err(Failure::new(1, format!("no host answered ({})", hosts.names())).into());
    }
    eprint("waiting for chats that need you on every host (Ctrl-C ends)\n");
    let mut announcer = Announcer::new(mode);
    loop {
        let got = tokio::select! {
            got = rx.recv() => got,
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        let Some((host, a)) = got else {
            return Ok(());
        };
        match announcer.announce(Some(&host), &a) {
            Announced::Closed => return Ok(()),
            Announced::Said if args.once => return Ok(()),
            _ => {}
        }
    }
}

/// The first wait before connecting to a host again; doubled per failure, up to [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_millis(250);
const RETRY_MAX: Duration = Duration::from_secs(8);

/// Follows one host's announcements for as long as the command runs; `up` hears whether the
/// first attempt connected.
async fn follow_host(
    host: Host,
    timeout: Duration,
    tx: mpsc::Sender<(String, Attention)>,
    up: mpsc::Sender<bool>,
) {
    let mut up = Some(up);
    let mut backoff = RETRY_FIRST;
    let mut was_down = false;
    loop {
        let connected = tokio::time::timeout(timeout, async {
            let mut client = host.ctx.connect().await?;
            let events = client
                .take_events()
                .ok_or_else(|| anyhow!("the connection's events were already taken"))?;
            client.call(NotificationsSubscribe).await?;
            Ok::<_, anyhow::Error>((client, events))
        })
        .await
        .unwrap_or_else(|_| {
            Err(anyhow!(
                "no answer within {} s (host_timeout)",
                timeout.as_secs_f64()
            ))
        });
        // Said before the first attempt is reported, so it comes before "waiting for…".
        if let Err(e) = &connected
            && !was_down
        {
            let e = crate::format::visible(&format!("{e:#}").replace('\n', " ")).into_owned();
            eprint(&format!("paddock: host {}: {e}; trying again\n", host.name));
        }
        if let Some(up) = up.take() {
            let _ = up.send(connected.is_ok()).await;
        }
        if let Ok((_client, mut events)) = connected {
            if was_down {
                eprint(&format!("paddock: host {} is back\n", host.name));
            }
            backoff = RETRY_FIRST;
            while let Some(event) = events.recv().await {
                if let Event::Attention(a) = event
                    && tx.send((host.name.clone(), a)).await.is_err()
                {
                    return;
                }
            }
            eprint(&format!("paddock: lost host {}; trying again\n", host.name));
        }
        was_down = true;
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(RETRY_MAX);
    }
}

/// What [`Announcer::announce`] did.
enum Announced {
    Said,
    /// Already said (the same announcement again).
    Again,
    /// stdout is closed: the pane went away.
    Closed,
}

/// Writes announcements to this terminal: the notification sequence and a line, once each.
struct Announcer {
    mode: Mode,
    tmux: bool,
    seen: Seen,
}

impl Announcer {
    fn new(mode: Mode) -> Self {
        Self {
            mode,
            tmux: in_tmux(),
            seen: Seen::default(),
        }
    }

    /// Announces `a` (of `host`, on a client of several: the title and the line say it).
    fn announce(&mut self, host: Option<&str>, a: &Attention) -> Announced {
        let mut a = a.clone();
        if let Some(host) = host {
            // Ids are a host's own: two hosts' runs may share one.
            a.id = format!("{host}/{}", a.id);
            a.title = format!("{host}: {}", a.title);
        }
        if !self.seen.first_time(&a) {
            return Announced::Again;
        }
        let mut out = std::io::stdout().lock();
        let title = crate::format::clean_title(&a.title);
        let mut bytes = sequence(self.mode, &title, &a.body, self.tmux);
        let said = line(&a, &chrono::Local::now());
        bytes.extend_from_slice(crate::format::visible(&said).as_bytes());
        bytes.push(b'\n');
        if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
            return Announced::Closed;
        }
        Announced::Said
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
