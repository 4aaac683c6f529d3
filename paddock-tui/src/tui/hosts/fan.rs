//! A read of everything on a client of several hosts: asked of every connected host at once,
//! each within `host_timeout`, its answer qualified with its host, and merged into the one
//! answer the views take (projects and chats in host order, runs by time, search hits by rank,
//! the approvals, triggers and disk warnings of all). The hosts that did not answer are named,
//! so the tree keeps what it last had of them.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;
use paddock_proto::{Approvals, Chats, DaemonStatus, History, Projects, SearchResults, Triggers};

use super::slugs::Slugs;
use crate::client::Client;
use crate::tui::fetch::{Answer, Fetch};

/// Asks every host in `up`, each answer qualified with its host, and merges the answers; the
/// hosts that failed or were too slow come back named. (A client of one host asks its host
/// directly: its reads are routed to it.)
pub async fn read_all(
    fetch: &Fetch,
    up: Vec<(String, Arc<Client>)>,
    timeout: Duration,
) -> (Answer, Vec<String>) {
    let answers = join_all(up.into_iter().map(|(name, client)| async move {
        let answer = match tokio::time::timeout(timeout, fetch.call(&client, None)).await {
            Ok(mut answer) => {
                answer.qualify(&name);
                Some(answer)
            }
            Err(_) => None,
        };
        (name, answer)
    }))
    .await;
    merge(fetch, answers)
}

/// The hosts' answers as one. A host that failed is named (and its reason kept for when none
/// answered); the merge of the others is the answer.
fn merge(fetch: &Fetch, answers: Vec<(String, Option<Answer>)>) -> (Answer, Vec<String>) {
    let mut missing = Vec::new();
    let mut reasons = Vec::new();
    let mut projects = Vec::new();
    let mut chats = Vec::new();
    let mut runs: Vec<(String, History)> = Vec::new();
    let mut approvals = Vec::new();
    let mut statuses: Vec<DaemonStatus> = Vec::new();
    let mut searches: Vec<(String, SearchResults)> = Vec::new();
    let mut triggers = Vec::new();
    let mut answered = 0;
    for (name, answer) in answers {
        let reason = match answer {
            None => Some("no answer in time".to_owned()),
            Some(Answer::Projects(Ok(p))) => {
                projects.extend(p.projects);
                None
            }
            Some(Answer::Chats(Ok(c))) => {
                chats.extend(c.chats);
                None
            }
            Some(Answer::History(Ok(h))) => {
                runs.push((name.clone(), h));
                None
            }
            Some(Answer::Approvals(Ok(a))) => {
                approvals.extend(a.approvals);
                None
            }
            Some(Answer::Status(Ok(s))) => {
                statuses.push(s);
                None
            }
            Some(Answer::Search(Ok(s))) => {
                searches.push((name.clone(), s));
                None
            }
            Some(Answer::Triggers(Ok(t))) => {
                triggers.extend(t.triggers);
                None
            }
            Some(other) => Some(error_of(other)),
        };
        let Some(reason) = reason else {
            answered += 1;
            continue;
        };
        {
            reasons.push(format!("{name}: {reason}"));
            missing.push(name);
        }
    }
    if answered == 0 {
        let reason = match reasons.is_empty() {
            true => "no host is connected".to_owned(),
            false => reasons.join("; "),
        };
        return (fetch.failed(reason), missing);
    }
    let answer = match fetch {
        Fetch::Projects => Answer::Projects(Ok(Projects { projects })),
        Fetch::History => {
            let limit = Some(crate::tui::history::FETCH_LIMIT);
            let merged = History {
                runs: crate::hosts::merge::runs(&runs, limit)
                    .into_iter()
                    .map(|(_, r)| r)
                    .collect(),
                last_seen: runs.iter().filter_map(|(_, h)| h.last_seen.clone()).max(),
                new_unattended: runs.iter().map(|(_, h)| h.new_unattended).sum(),
                waiting: runs.iter().map(|(_, h)| h.waiting).sum(),
            };
            Answer::History(Ok(merged))
        }
        Fetch::Approvals => Answer::Approvals(Ok(Approvals { approvals })),
        Fetch::Status => {
            // The header warns of any host's disk.
            let mut all = statuses.into_iter();
            match all.next() {
                Some(mut status) => {
                    status.low_disk.extend(all.flat_map(|s| s.low_disk));
                    Answer::Status(Ok(status))
                }
                None => fetch.failed("no host answered".to_owned()),
            }
        }
        Fetch::Search(_) => {
            let limit = Some(crate::tui::search_view::LIMIT as usize);
            Answer::Search(Ok(crate::hosts::merge::search(&searches, limit).results))
        }
        Fetch::Triggers(_) => Answer::Triggers(Ok(Triggers { triggers })),
        _ => Answer::Chats(Ok(Chats {
            chats,
            ..Chats::default()
        })),
    };
    (answer, missing)
}

/// Why a host's answer is no answer (an error, or a reply of another kind).
fn error_of(answer: Answer) -> String {
    match answer {
        Answer::Projects(Err(e))
        | Answer::Chats(Err(e))
        | Answer::History(Err(e))
        | Answer::Approvals(Err(e))
        | Answer::Status(Err(e))
        | Answer::Search(Err(e))
        | Answer::Triggers(Err(e)) => e,
        _ => "an answer of another kind".to_owned(),
    }
}
