//! The listings of a client of several hosts: each host asked at once ([`super::fleet::each`]),
//! the answers merged (history by time, search by the daemons' own rank, usage as one report)
//! and each row labelled with its host: `host` first in every `--json` row, and each project
//! shown as `HOST:SLUG` in text (the form `-p` takes).

use anyhow::anyhow;
use paddock_proto::{
    Approval, Call, ChatList, ChatScope, ChatSummary, ErrorCode, History, HistoryList, ProjectList,
    SearchRequest, SearchResults,
};

use super::Failure;
use super::fleet::{answered, each};
use super::output::{eprint, print, print_json, print_json_array, print_styled};
use crate::cli::{
    ApprovalsArgs, Cmd, HistoryArgs, LsArgs, ProjectCmd, SearchArgs, StatusArgs, TriggerCmd,
    TriggerLsArgs, UsageArgs,
};
use crate::client::ClientError;
use crate::format::{self, ROOT_SLUG};
use crate::hosts::{Hosts, merge};

/// `request` asked of every host at once: the answers of those that have what it asks about
/// (a host without the project asked about is left out), by host.
async fn where_present<R: Call + Clone>(
    hosts: &Hosts,
    request: R,
) -> anyhow::Result<Vec<(String, R::Reply)>> {
    let answers = each(hosts, |host| {
        let request = request.clone();
        async move { unless_absent(host.ctx.connect().await?.call(request).await) }
    })
    .await;
    Ok(answered(hosts, answers)?
        .into_iter()
        .filter_map(|(h, reply)| reply.map(|r| (h, r)))
        .collect())
}

/// A host's answer, or `None` when the daemon says it has no such thing (the project asked
/// about is on other hosts: this one is not down for that).
fn unless_absent<T>(result: Result<T, ClientError>) -> anyhow::Result<Option<T>> {
    match result {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.code() == Some(ErrorCode::NotFound) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// `HOST:SLUG` as the merged listings show a project (`HOST:(root)` for the root workspace).
pub fn label(host: &str, slug: &str) -> String {
    format!("{host}:{}", format::project_label(slug))
}

/// A JSON row with `host` first.
fn with_host<T: serde::Serialize>(host: &str, row: &T) -> anyhow::Result<serde_json::Value> {
    let mut value = serde_json::to_value(row)?;
    if let serde_json::Value::Object(map) = &mut value {
        let mut out = serde_json::Map::with_capacity(map.len() + 1);
        out.insert("host".into(), host.into());
        out.append(map);
        *map = out;
    }
    Ok(value)
}

/// Runs a listing routed to several hosts.
pub async fn listing(hosts: &Hosts, command: Cmd) -> anyhow::Result<()> {
    match command {
        Cmd::Ls(args) => ls(hosts, args).await,
        Cmd::Project {
            action: ProjectCmd::Ls { json },
        } => projects(hosts, json).await,
        Cmd::History(args) => history(hosts, args).await,
        Cmd::Search(args) => search(hosts, args).await,
        Cmd::Usage(args) => usage(hosts, args).await,
        Cmd::Status(args) => status(hosts, args).await,
        Cmd::Approvals(args) => approvals(hosts, args).await,
        Cmd::Notify(args) => super::notify::run_hosts(hosts, args).await,
        Cmd::Trigger {
            action: TriggerCmd::Ls(args),
        } => triggers(hosts, args).await,
        _ => Err(anyhow!("this command is not a listing")),
    }
}

/// Asks every host for `request`'s list; a host without the project asked about is left out.
async fn chat_lists(
    hosts: &Hosts,
    request: ChatList,
) -> anyhow::Result<Vec<(String, Vec<ChatSummary>)>> {
    let lists: Vec<(String, Vec<ChatSummary>)> = where_present(hosts, request.clone())
        .await?
        .into_iter()
        .map(|(host, list)| (host, list.chats))
        .collect();
    if lists.is_empty()
        && let Some(slug) = &request.project_slug
    {
        return Err(Failure::new(
            1,
            format!(
                "no project {} {}; `paddock project ls` lists them",
                format::project_label(slug),
                match hosts.list.as_slice() {
                    [one] => format!("on {}", one.name),
                    _ => "on any host".to_owned(),
                }
            ),
        )
        .into());
    }
    Ok(lists)
}

async fn ls(hosts: &Hosts, args: LsArgs) -> anyhow::Result<()> {
    let scope = match (args.archived, args.all) {
        (true, _) => ChatScope::Archived,
        (false, true) => ChatScope::All,
        (false, false) => ChatScope::Active,
    };
    let project = if args.all_projects {
        None
    } else {
        Some(args.project.clone().unwrap_or_else(|| ROOT_SLUG.to_owned()))
    };
    let request = ChatList {
        project_slug: project,
        scope,
        since: None,
        full_titles: args.full_titles,
    };
    if args.json {
        let answers = each(hosts, |host| {
            let request = request.clone();
            async move { unless_absent(host.ctx.connect().await?.call_raw(request).await) }
        })
        .await;
        // One array of every host's rows, each `{"host":"…",` then the row as its daemon wrote
        // it, laid out in one pass as `ls --json` lays out one daemon's (no row is decoded
        // but for its project, to keep each project's rows together).
        let replies = answered(hosts, answers)?;
        let room = replies
            .iter()
            // Each row gains `"host":"…",` (rows are hundreds of bytes).
            .filter_map(|(_, r)| r.as_ref().map(|r| r.json().len() + r.json().len() / 8))
            .sum::<usize>();
        let mut array = String::with_capacity(room + 2);
        array.push('[');
        for (host, reply) in replies {
            let Some(reply) = reply else { continue };
            let host_json = serde_json::to_string(&host)?;
            for row in super::chats::grouped_rows(&reply)? {
                let text = row.get();
                let inner = text.strip_prefix('{').unwrap_or(text);
                if array.len() > 1 {
                    array.push(',');
                }
                array.push_str("{\"host\":");
                array.push_str(&host_json);
                if !inner.trim_start().starts_with('}') {
                    array.push(',');
                }
                array.push_str(inner);
            }
        }
        array.push(']');
        print_json_array(&array)?;
        return Ok(());
    }
    let lists = chat_lists(hosts, request).await?;
    let mut out = String::new();
    for (host, chats) in &lists {
        let mut by_project: std::collections::BTreeMap<&str, Vec<ChatSummary>> =
            std::collections::BTreeMap::new();
        for chat in chats {
            by_project
                .entry(&chat.project_slug)
                .or_default()
                .push(chat.clone());
        }
        for (slug, chats) in by_project {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("{}\n", label(host, slug)));
            out.push_str(&format::chat_table(
                &chats,
                format::IdForm::for_stdout(),
                super::chats::fit_to(args.full_titles),
            ));
        }
    }
    if out.is_empty() {
        eprint("no chats on any host that answered\n");
        return Ok(());
    }
    print(&out)
}

async fn projects(hosts: &Hosts, json: bool) -> anyhow::Result<()> {
    let answers = each(hosts, |host| async move {
        Ok(host.ctx.connect().await?.call(ProjectList).await?.projects)
    })
    .await;
    let lists = answered(hosts, answers)?;
    if json {
        let mut rows = Vec::new();
        for (host, projects) in &lists {
            for p in projects {
                rows.push(with_host(host, p)?);
            }
        }
        return print_json(&rows);
    }
    let mut all = Vec::new();
    for (host, projects) in lists {
        for mut p in projects {
            p.slug = label(&host, &p.slug);
            all.push(p);
        }
    }
    print(&format::project_table(&all))
}

async fn history(hosts: &Hosts, args: HistoryArgs) -> anyhow::Result<()> {
    let request = HistoryList {
        project_slug: args.project.clone(),
        unattended: args.unattended,
        limit: args.limit,
    };
    let lists: Vec<(String, History)> = where_present(hosts, request).await?;
    // Newest first over every host, cut to the limit each host was given.
    let runs = merge::runs(&lists, args.limit);
    let new_unattended = lists.iter().map(|(_, l)| l.new_unattended).sum();
    let waiting = lists.iter().map(|(_, l)| l.waiting).sum();
    if args.json {
        let rows = runs
            .iter()
            .map(|(h, r)| with_host(h, r))
            .collect::<anyhow::Result<Vec<_>>>()?;
        return print_json(&serde_json::json!({
            "runs": rows,
            "newUnattended": new_unattended,
            "waiting": waiting,
        }));
    }
    let merged = History {
        runs: runs
            .into_iter()
            .map(|(h, mut r)| {
                r.project_slug = label(&h, &r.project_slug);
                r
            })
            .collect(),
        last_seen: None,
        new_unattended,
        waiting,
    };
    if merged.runs.is_empty() {
        eprint(if args.unattended {
            "no unattended runs on any host that answered\n"
        } else {
            "no runs on any host that answered\n"
        });
        return Ok(());
    }
    print(&format::history_table(&merged, &chrono::Local::now()))
}

async fn search(hosts: &Hosts, args: SearchArgs) -> anyhow::Result<()> {
    let request = SearchRequest {
        query: args.query.join(" "),
        project_slug: args.project.clone(),
        limit: args.limit,
        archived: args.archived,
    };
    let lists: Vec<(String, SearchResults)> = where_present(hosts, request).await?;
    let merged = merge::search(&lists, args.limit.map(|l| l as usize));
    if args.json {
        let mut value = serde_json::to_value(&merged.results)?;
        if let Some(hits) = value.get_mut("hits") {
            *hits = serde_json::Value::Array(
                merged
                    .results
                    .hits
                    .iter()
                    .zip(&merged.hosts)
                    .map(|(hit, host)| with_host(host, hit))
                    .collect::<anyhow::Result<_>>()?,
            );
        }
        return print_json(&value);
    }
    let mut shown = merged.results.clone();
    for (hit, host) in shown.hits.iter_mut().zip(&merged.hosts) {
        hit.project_slug = label(host, &hit.project_slug);
    }
    let style = format::Highlight::for_stdout(
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
        std::env::var_os("NO_COLOR").as_deref(),
    );
    if !shown.hits.is_empty() {
        print_styled(&format::search_results(
            &shown,
            &chrono::Local::now(),
            style,
            format::IdForm::for_stdout(),
        ))?;
    }
    eprint(&format::search_notes(&shown));
    Ok(())
}

async fn usage(hosts: &Hosts, args: UsageArgs) -> anyhow::Result<()> {
    let scope = super::usage::scope(&args);
    if args.subtree.is_some() {
        return Err(Failure::new(
            2,
            format!(
                "--subtree is one chat's tree, on one host: name it with --remote HOST (hosts: {})",
                hosts.names()
            ),
        )
        .into());
    }
    let request = ChatList {
        project_slug: args.project.clone(),
        scope,
        since: None,
        full_titles: false,
    };
    let lists = chat_lists(hosts, request).await?;
    // One report over every host's chats, each project as HOST:SLUG.
    let chats: Vec<ChatSummary> = lists
        .into_iter()
        .flat_map(|(host, chats)| {
            chats.into_iter().map(move |mut c| {
                c.project_slug = label(&host, &c.project_slug);
                c
            })
        })
        .collect();
    super::usage::print_report(&format::usage_report(&chats), &args)
}

async fn status(hosts: &Hosts, args: StatusArgs) -> anyhow::Result<()> {
    let answers = each(hosts, |host| async move {
        super::status::gather(&host.ctx.connect().await?).await
    })
    .await;
    let (lists, down) = super::fleet::answered_and_down(hosts, answers)?;
    let mut counts = super::status::Counts::default();
    let mut low_disk = Vec::new();
    let mut approvals = Vec::new();
    for (host, (status, waiting, chats)) in &lists {
        counts.running += status.running.len();
        counts.waiting += waiting.len();
        counts.unread += chats.iter().filter(|c| c.unread).count();
        for d in &status.low_disk {
            let mut d = d.clone();
            d.path = format!("{host}:{}", d.path);
            low_disk.push(d);
        }
        for a in waiting {
            approvals.push(with_host(host, a)?);
        }
    }
    super::status::print_status(counts, &approvals, &low_disk, &down, &args)
}

async fn approvals(hosts: &Hosts, args: ApprovalsArgs) -> anyhow::Result<()> {
    let lists = super::fleet::approval_lists(hosts).await?;
    if args.json {
        let mut rows = Vec::new();
        for (host, list) in &lists {
            for a in list {
                rows.push(with_host(host, a)?);
            }
        }
        return print_json(&rows);
    }
    let mut all: Vec<Approval> = Vec::new();
    for (host, list) in lists {
        for mut a in list {
            a.project_slug = label(&host, &a.project_slug);
            all.push(a);
        }
    }
    all.sort_by(|a, b| a.asked_at.cmp(&b.asked_at));
    print(&super::approvals::table(
        &all,
        chrono::Utc::now(),
        format::IdForm::for_stdout(),
    ))
}

async fn triggers(hosts: &Hosts, args: TriggerLsArgs) -> anyhow::Result<()> {
    let request = paddock_proto::TriggerList {
        project_slug: args.project.clone(),
    };
    let lists: Vec<(String, paddock_proto::Triggers)> = where_present(hosts, request).await?;
    if args.json {
        let mut rows = Vec::new();
        for (host, list) in &lists {
            for t in &list.triggers {
                rows.push(with_host(host, t)?);
            }
        }
        return print_json(&serde_json::json!({ "triggers": rows }));
    }
    let mut all = Vec::new();
    for (host, list) in lists {
        for mut t in list.triggers {
            t.project_slug = label(&host, &t.project_slug);
            all.push(t);
        }
    }
    if all.is_empty() {
        eprint(
            "no triggers on any host that answered; `paddock trigger add --help` says how to add one\n",
        );
        return Ok(());
    }
    print(&format::trigger_table(&all, &chrono::Local::now()))
}
