//! The command line over several hosts (DESIGN §8): which host a command acts on, and the
//! listings that ask every host at once and merge what they answer.
//!
//! [`route`] decides before anything runs (the merged listings are in [`super::merged`]). A command on a chat goes to the host that has it
//! (found by its session id: ids are UUIDs, unique across hosts); `-p HOST:SLUG` names a host
//! (and the slug there); a listing goes to every host (or the one `-p HOST:SLUG` named); a
//! command that creates something needs its host named and says so. Once routed to one host,
//! a command runs exactly as it does on a client of one daemon.
//!
//! [`each`] asks every host at once, each within `host_timeout`: a host that is slow, refusing
//! or hanging costs at most that, and never holds up the others. The hosts that did not answer
//! are named on stderr ([`answered`]); the command fails only when none did.

use std::future::Future;

use anyhow::anyhow;
use futures_util::future::join_all;
use paddock_proto::{Approval, ApprovalList, ChatResolve, ResolvedPrefix};

use super::output::eprint;
use super::{Context, Failure, ids};
use crate::cli::{ApprovalsArgs, ApprovalsCmd, Cmd, ProjectCmd};
use crate::format;
use crate::hosts::{Host, Hosts};

/// Where a command goes on a client of several hosts.
pub enum Route {
    /// To this host alone, as on a client of one daemon.
    One(Box<Context>),
    /// To these hosts at once, merged.
    Merged(Hosts),
}

/// Routes `command` (rewriting `HOST:SLUG` to the slug and session prefixes to whole ids).
pub async fn route(hosts: &Hosts, cmd: &mut Cmd) -> anyhow::Result<Route> {
    if let Some(host) = ids::resolve_across(hosts, cmd).await? {
        return Ok(Route::One(Box::new(host.ctx.clone())));
    }
    if let Some(host) = approval_host(hosts, cmd).await? {
        return Ok(Route::One(Box::new(host.ctx.clone())));
    }
    let named = named_host(hosts, cmd);
    if is_listing(cmd) {
        return Ok(Route::Merged(match &named {
            Some(name) => hosts.only(name).unwrap_or_else(|| hosts.clone()),
            None => hosts.clone(),
        }));
    }
    if let Some(host) = named.as_deref().and_then(|n| hosts.get(n)) {
        return Ok(Route::One(Box::new(host.ctx.clone())));
    }
    let first = &hosts.list[0].name;
    let message = match creates(cmd) {
        Some((what, form)) => format!(
            "this client has several hosts ({}): say on which `paddock {what}` works with {form} (e.g. {first}:web, or {first}: for its root workspace), or pick one with --remote HOST",
            hosts.names()
        ),
        None => format!(
            "this command acts on one host and this client has several ({}): name it with -p HOST:SLUG where the command takes a project, or pick one with --remote HOST",
            hosts.names()
        ),
    };
    Err(Failure::new(2, message).into())
}

/// The host a `HOST:SLUG` project argument names, the argument made the slug alone (on a
/// client of one host too: `-p devbox:web` there is `-p web`).
pub fn named_host(hosts: &Hosts, cmd: &mut Cmd) -> Option<String> {
    let arg = project_arg(cmd)?;
    let (host, slug) = hosts.split_project(arg)?;
    *arg = slug;
    Some(host.name.clone())
}

/// The project argument of a command that takes one (`-p SLUG`, or `project show SLUG`...).
fn project_arg(cmd: &mut Cmd) -> Option<&mut String> {
    match cmd {
        Cmd::Ls(a) => a.project.as_mut(),
        Cmd::Send(a) => a.project.as_mut(),
        Cmd::History(a) => a.project.as_mut(),
        Cmd::Search(a) => a.project.as_mut(),
        Cmd::Usage(a) => a.project.as_mut(),
        Cmd::Import(a) => a.project.as_mut(),
        Cmd::Project { action } => match action {
            ProjectCmd::Add { slug, .. }
            | ProjectCmd::Show { slug, .. }
            | ProjectCmd::Set { slug, .. }
            | ProjectCmd::Rm { slug, .. }
            | ProjectCmd::Promote { slug, .. } => Some(slug),
            ProjectCmd::Ls { .. } => None,
        },
        Cmd::Trigger { action } => match action {
            crate::cli::TriggerCmd::Ls(a) => a.project.as_mut(),
            crate::cli::TriggerCmd::Add(a) => a.project.as_mut(),
            crate::cli::TriggerCmd::Rm(a) => a.project.as_mut(),
            crate::cli::TriggerCmd::Fire(a) => a.project.as_mut(),
        },
        _ => None,
    }
}

/// The commands that list (or watch) every host, merged.
fn is_listing(cmd: &Cmd) -> bool {
    matches!(
        cmd,
        Cmd::Ls(_)
            | Cmd::Notify(_)
            | Cmd::Trigger {
                action: crate::cli::TriggerCmd::Ls(_)
            }
            | Cmd::History(_)
            | Cmd::Search(_)
            | Cmd::Usage(_)
            | Cmd::Status(_)
            | Cmd::Project {
                action: ProjectCmd::Ls { .. }
            }
            | Cmd::Approvals(ApprovalsArgs { action: None, .. })
    )
}

/// The commands that make something new on a host: the words typed, and how the host is
/// named there.
fn creates(cmd: &Cmd) -> Option<(&'static str, &'static str)> {
    match cmd {
        Cmd::Send(_) => Some(("send", "-p HOST:SLUG")),
        Cmd::Project {
            action: ProjectCmd::Add { .. },
        } => Some(("project add", "project add HOST:SLUG")),
        Cmd::Trigger {
            action: crate::cli::TriggerCmd::Add(_),
        } => Some(("trigger add", "-p HOST:SLUG")),
        Cmd::Import(_) => Some(("import", "-p HOST:SLUG")),
        _ => None,
    }
}

/// `approvals allow|deny|always ID...`: the host whose inbox holds the ids.
async fn approval_host<'a>(hosts: &'a Hosts, cmd: &Cmd) -> anyhow::Result<Option<&'a Host>> {
    let Cmd::Approvals(ApprovalsArgs {
        action: Some(action),
        ..
    }) = cmd
    else {
        return Ok(None);
    };
    let ids = match action {
        ApprovalsCmd::Allow(a) | ApprovalsCmd::Always(a) => &a.ids,
        ApprovalsCmd::Deny { ids, .. } => &ids.ids,
    };
    let answers = approval_lists(hosts).await?;
    let mut found: Option<&Host> = None;
    for id in ids {
        let bare = id.strip_prefix("apr_").unwrap_or(id);
        let on: Vec<&str> = answers
            .iter()
            .filter(|(_, list)| {
                list.iter()
                    .any(|a| a.id.strip_prefix("apr_").unwrap_or(&a.id).starts_with(bare))
            })
            .map(|(name, _)| name.as_str())
            .collect();
        let host = match on.as_slice() {
            [] => {
                return Err(Failure::new(
                    1,
                    format!("no approval {id} waits on any host that answered; `paddock approvals` lists the pending ones"),
                )
                .into());
            }
            [one] => hosts.get(one),
            many => {
                return Err(Failure::new(
                    1,
                    format!(
                        "{id} names approvals on {}; give more of the id",
                        many.join(" and ")
                    ),
                )
                .into());
            }
        };
        if let (Some(before), Some(now)) = (found, host)
            && before.name != now.name
        {
            return Err(Failure::new(
                1,
                format!(
                    "the approvals are on different hosts ({} and {}); answer each host's in its own command",
                    before.name, now.name
                ),
            )
            .into());
        }
        found = found.or(host);
    }
    Ok(found)
}

/// Runs `job` on every host at once, each within the hosts' `host_timeout`; what each answered,
/// in the hosts' order.
pub async fn each<'a, T, F, Fut>(hosts: &'a Hosts, job: F) -> Vec<(&'a Host, anyhow::Result<T>)>
where
    F: Fn(&'a Host) -> Fut,
    Fut: Future<Output = anyhow::Result<T>> + 'a,
{
    let timeout = hosts.timeout;
    let jobs = hosts.list.iter().map(|host| {
        let job = job(host);
        async move {
            let result = match tokio::time::timeout(timeout, job).await {
                Ok(result) => result,
                Err(_) => Err(anyhow!(
                    "no answer within {} s (host_timeout)",
                    timeout.as_secs_f64()
                )),
            };
            (host, result)
        }
    });
    join_all(jobs).await
}

/// The answers of the hosts that answered, by host name; the others are named on stderr, and
/// when none answered that is the command's failure.
pub fn answered<T>(
    hosts: &Hosts,
    answers: Vec<(&Host, anyhow::Result<T>)>,
) -> anyhow::Result<Vec<(String, T)>> {
    answered_and_down(hosts, answers).map(|(ok, _)| ok)
}

/// What the hosts that answered said, by host name, and the names of those that did not.
pub type Answers<T> = (Vec<(String, T)>, Vec<String>);

/// [`answered`], and the names of the hosts that did not answer.
pub fn answered_and_down<T>(
    hosts: &Hosts,
    answers: Vec<(&Host, anyhow::Result<T>)>,
) -> anyhow::Result<Answers<T>> {
    let mut ok = Vec::new();
    let mut down = Vec::new();
    for (host, result) in answers {
        match result {
            Ok(t) => ok.push((host.name.clone(), t)),
            Err(e) => down.push((host.name.clone(), one_line(&e))),
        }
    }
    let said: Vec<String> = down.iter().map(|(h, why)| format!("{h}: {why}")).collect();
    if ok.is_empty() && !down.is_empty() {
        return Err(Failure::new(
            1,
            format!("no host answered ({}): {}", hosts.names(), said.join("; ")),
        )
        .into());
    }
    for d in &said {
        eprint(&format!("paddock: host {d}\n"));
    }
    Ok((ok, down.into_iter().map(|(h, _)| h).collect()))
}

fn one_line(e: &anyhow::Error) -> String {
    format::visible(&format!("{e:#}").replace('\n', " ")).into_owned()
}

/// Every host's inbox (`approval:list`), by host.
pub async fn approval_lists(hosts: &Hosts) -> anyhow::Result<Vec<(String, Vec<Approval>)>> {
    let answers = each(hosts, |host| async move {
        Ok(host
            .ctx
            .connect()
            .await?
            .call(ApprovalList)
            .await?
            .approvals)
    })
    .await;
    answered(hosts, answers)
}

/// What `chat:resolve` answered on each host that answered, for [`ids::resolve_across`].
pub async fn resolve_on_each(
    hosts: &Hosts,
    prefixes: Vec<String>,
) -> anyhow::Result<Vec<(String, Vec<ResolvedPrefix>)>> {
    let answers = each(hosts, |host| {
        let prefixes = prefixes.clone();
        async move {
            Ok(host
                .ctx
                .connect()
                .await?
                .call(ChatResolve { prefixes })
                .await?
                .prefixes)
        }
    })
    .await;
    answered(hosts, answers)
}
