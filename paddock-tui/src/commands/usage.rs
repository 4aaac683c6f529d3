//! `paddock usage`: tokens and estimated cost, summed from the daemon's index.

use anyhow::anyhow;
use paddock_proto::{ChatList, ChatScope};

use super::Context;
use super::output::{print, print_json};
use crate::cli::UsageArgs;
use crate::format;

pub async fn run(ctx: &Context, args: UsageArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let scope = scope(&args);
    let request = ChatList {
        project_slug: args.project.clone(),
        // A subtree may reach into archived chats: filtered below.
        scope: if args.subtree.is_some() {
            ChatScope::All
        } else {
            scope
        },
        since: None,
        full_titles: false,
    };
    let chats = client.call(request).await?.chats;
    let report = match &args.subtree {
        Some(root) => {
            if !chats.iter().any(|c| &c.session_id == root) {
                return Err(anyhow!(
                    "no chat {root}{}; `paddock ls --all` lists the chats",
                    args.project
                        .as_deref()
                        .map_or_else(String::new, |p| format!(
                            " in project {}",
                            format::project_label(p)
                        ))
                ));
            }
            let keep = |archived: bool| match scope {
                ChatScope::All => true,
                ChatScope::Archived => archived,
                ChatScope::Active => !archived,
            };
            format::usage_report(
                format::subtree(&chats, root)
                    .into_iter()
                    .filter(|c| c.session_id == *root || keep(c.archived)),
            )
        }
        None => format::usage_report(&chats),
    };
    print_report(&report, &args)
}

/// The chats `--archived` and `--all` choose.
pub fn scope(args: &UsageArgs) -> ChatScope {
    if args.all {
        ChatScope::All
    } else if args.archived {
        ChatScope::Archived
    } else {
        ChatScope::Active
    }
}

/// The report, as `--json` or as text.
pub fn print_report(report: &format::UsageReport, args: &UsageArgs) -> anyhow::Result<()> {
    if args.json {
        return print_json(report);
    }
    print(&format::usage_text(
        report,
        args.top,
        format::IdForm::for_stdout(),
        format::stdout_width(),
    ))
}
