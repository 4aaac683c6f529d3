//! `paddock history`: recent runs, "while you were away", and marking them seen.

use paddock_proto::{History, HistoryList, HistorySeen};

use super::Context;
use super::output::{eprint, print, print_json};
use crate::cli::HistoryArgs;
use crate::format::{self, project_label};

pub async fn run(ctx: &Context, args: HistoryArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let request = HistoryList {
        // No -p means every project here (unlike `ls`): history is where unattended work
        // anywhere shows up.
        project_slug: args.project.clone(),
        unattended: args.unattended,
        limit: args.limit,
    };
    let history = client.call(request).await?;
    if args.json {
        // A script reading the history has not shown it to anyone: nothing is marked seen.
        return print_json(&history);
    }
    if history.runs.is_empty() {
        if let Some(banner) = format::history_banner(&history, &chrono::Local::now()) {
            print(&format!("{banner}\n"))?;
        }
        let what = if args.unattended {
            "no unattended runs"
        } else {
            "no runs"
        };
        match &args.project {
            Some(slug) => eprint(&format!("{what} in {}\n", project_label(slug))),
            None => eprint(&format!("{what} yet\n")),
        }
    } else {
        print(&format::history_table(&history, &chrono::Local::now()))?;
    }
    if args.keep_unseen {
        return Ok(());
    }
    match seen_decision(&history, args.project.is_some()) {
        Seen::Mark => {
            // The user has seen every new run; "while you were away" starts afresh next time.
            client.call(HistorySeen).await?;
            Ok(())
        }
        Seen::OneProject => Ok(()),
        Seen::LeftOut(n) => {
            eprint(&format!(
                "{n} new {} not listed (--limit), so the runs stay marked new\n",
                if n == 1 { "run was" } else { "runs were" }
            ));
            Ok(())
        }
    }
}

/// Whether listing the history may advance the "last seen" mark.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Mark,
    /// The mark covers every project: seeing one project's runs is not seeing all of them.
    OneProject,
    /// Some new runs were cut off by the limit, so the user has not seen them.
    LeftOut(usize),
}

fn seen_decision(history: &History, one_project: bool) -> Seen {
    if one_project {
        return Seen::OneProject;
    }
    let listed = history.runs.iter().filter(|r| r.is_new).count();
    let new = usize::try_from(history.new_unattended).unwrap_or(usize::MAX);
    match new.checked_sub(listed) {
        Some(left_out) if left_out > 0 => Seen::LeftOut(left_out),
        _ => Seen::Mark,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::{Origin, RunStatus, RunSummary};

    fn history(new_listed: usize, new_unattended: u32) -> History {
        let run = RunSummary {
            job_id: "j".into(),
            project_slug: String::new(),
            session_id: "s".into(),
            title: "t".into(),
            origin: Origin::Scheduled,
            depth: 0,
            trigger: None,
            status: RunStatus::Completed,
            started_at: "2026-11-03T08:00:00Z".into(),
            finished_at: None,
            cost_usd: None,
            prompt: None,
            attribution: None,
            is_new: true,
            waiting: false,
        };
        History {
            runs: vec![run; new_listed],
            last_seen: None,
            new_unattended,
            waiting: 0,
        }
    }

    #[test]
    fn runs_are_marked_seen_only_when_every_new_one_was_listed() {
        assert_eq!(seen_decision(&history(0, 0), false), Seen::Mark);
        assert_eq!(seen_decision(&history(2, 2), false), Seen::Mark);
        assert_eq!(seen_decision(&history(2, 5), false), Seen::LeftOut(3));
        assert_eq!(seen_decision(&history(2, 2), true), Seen::OneProject);
    }
}
