//! `paddock worktree ls|merge|rebase|discard|prune`: the chats that work in a git worktree of
//! their own.

use std::io::IsTerminal as _;

use paddock_proto::{WorktreeDiscard, WorktreeList, WorktreeMerge, WorktreePrune, WorktreeRebase};

use super::output::{eprint, print, print_json};
use super::{Context, Failure};
use crate::cli::{
    WorktreeChatArgs, WorktreeCmd, WorktreeDiscardArgs, WorktreeLsArgs, WorktreeMergeArgs,
    WorktreePruneArgs,
};
use crate::client::Client;
use crate::format;

pub async fn run(ctx: &Context, cmd: WorktreeCmd) -> anyhow::Result<()> {
    if let WorktreeCmd::Discard(args) = &cmd
        && !args.yes
        && !std::io::stdin().is_terminal()
    {
        // Refused before anything else: a script cannot answer.
        return Err(Failure::new(
            1,
            "not discarding without confirmation: stdin is not a terminal; add --yes to discard anyway",
        )
        .into());
    }
    let client = ctx.connect().await?;
    match cmd {
        WorktreeCmd::Ls(args) => ls(&client, args).await,
        WorktreeCmd::Merge(args) => merge(&client, args).await,
        WorktreeCmd::Rebase(args) => rebase(&client, args).await,
        WorktreeCmd::Discard(args) => discard(&client, args).await,
        WorktreeCmd::Prune(args) => prune(&client, args).await,
    }
}

async fn ls(client: &Client, args: WorktreeLsArgs) -> anyhow::Result<()> {
    let listed = client
        .call(WorktreeList {
            project_slug: args.project,
            orphans: args.orphans,
        })
        .await?;
    if args.json {
        return print_json(&listed);
    }
    print(&format::worktree_list(&listed.worktrees, args.orphans))
}

async fn merge(client: &Client, args: WorktreeMergeArgs) -> anyhow::Result<()> {
    let merged = client
        .call(WorktreeMerge {
            session_id: args.session,
            squash: args.squash,
            message: args.message,
        })
        .await?;
    if args.json {
        return print_json(&merged);
    }
    print(&format::worktree_merged(&merged))
}

async fn rebase(client: &Client, args: WorktreeChatArgs) -> anyhow::Result<()> {
    let rebased = client
        .call(WorktreeRebase {
            session_id: args.session,
        })
        .await?;
    if args.json {
        return print_json(&rebased);
    }
    print(&format::worktree_rebased(&rebased))
}

async fn discard(client: &Client, args: WorktreeDiscardArgs) -> anyhow::Result<()> {
    let ask = |dry_run: bool| WorktreeDiscard {
        session_id: args.session.clone(),
        force: args.force,
        dry_run,
    };
    if !args.yes {
        // Refused before asking: a question answered "y" must not then be refused.
        client.call(ask(true)).await?;
        let all = client.call(WorktreeList::default()).await?;
        if let Some(entry) = all
            .worktrees
            .iter()
            .find(|e| e.session_id.starts_with(&args.session))
        {
            eprint(&format::discard_question(entry));
            if !super::batch::confirmed().await? {
                return Err(Failure::new(1, "not confirmed; nothing was removed").into());
            }
        }
    }
    let discarded = client.call(ask(false)).await?;
    if args.json {
        return print_json(&discarded);
    }
    print(&format::worktree_discarded(&discarded))
}

async fn prune(client: &Client, args: WorktreePruneArgs) -> anyhow::Result<()> {
    let pruned = client
        .call(WorktreePrune {
            project_slug: args.project,
        })
        .await?;
    if args.json {
        return print_json(&pruned);
    }
    print(&format::worktree_pruned(&pruned))
}
