//! `paddock hosts`: the hosts this client works with, and whether each answers.

use std::fmt::Write as _;

use super::Failure;
use super::fleet::each;
use super::output::{print, print_json};
use crate::cli::HostsArgs;
use crate::hosts::Hosts;

/// One host's state, as `--json` prints it.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct HostState {
    host: String,
    address: String,
    /// `connected` or `down`.
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

pub async fn run(hosts: &Hosts, args: &HostsArgs) -> anyhow::Result<()> {
    let answers = each(hosts, |host| async move {
        let client = host.ctx.connect().await?;
        Ok(client.daemon().daemon_version.clone())
    })
    .await;
    let states: Vec<HostState> = answers
        .into_iter()
        .map(|(host, result)| {
            let (state, version, reason) = match result {
                Ok(version) => ("connected", Some(version), None),
                Err(e) => (
                    "down",
                    None,
                    Some(crate::format::visible(&format!("{e:#}").replace('\n', " ")).into_owned()),
                ),
            };
            HostState {
                host: host.name.clone(),
                address: host.address(),
                state,
                version,
                reason,
            }
        })
        .collect();
    let none = states.iter().all(|s| s.state != "connected");
    if args.json {
        print_json(&states)?;
    } else {
        print(&table(&states))?;
    }
    if none {
        return Err(Failure {
            code: 1,
            message: None,
        }
        .into());
    }
    Ok(())
}

fn table(states: &[HostState]) -> String {
    let width = states
        .iter()
        .map(|s| s.host.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = String::new();
    for s in states {
        let what = match (&s.version, &s.reason) {
            (Some(v), _) => format!("connected  paddock {v}, {}", s.address),
            (None, Some(reason)) => format!("down       {}: {reason}", s.address),
            (None, None) => format!("down       {}", s.address),
        };
        let _ = writeln!(out, "{:<width$}  {what}", s.host);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_host_is_one_line_saying_its_state() {
        let states = [
            HostState {
                host: "laptop".into(),
                address: "this machine (/run/p.sock)".into(),
                state: "connected",
                version: Some("0.1.0".into()),
                reason: None,
            },
            HostState {
                host: "gpu".into(),
                address: "ssh gpu".into(),
                state: "down",
                version: None,
                reason: Some("no answer within 5 s (host_timeout)".into()),
            },
        ];
        assert_eq!(
            table(&states),
            "laptop  connected  paddock 0.1.0, this machine (/run/p.sock)\n\
             gpu     down       ssh gpu: no answer within 5 s (host_timeout)\n"
        );
    }
}
