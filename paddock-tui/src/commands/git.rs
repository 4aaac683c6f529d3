//! `paddock git status|diff|commit|push`: a project's changes, whole or those of a chat, a
//! subtree of chats or a turn; and pushing its branch.

use anyhow::anyhow;
use paddock_proto::{
    GitCommitRequest, GitDiffRequest, GitPushRequest, GitPushed, GitScope, GitStatusRequest,
};

use super::chats::listed_chat;
use super::output::{eprint, print, print_json};
use super::{Context, Failure};
use crate::cli::{GitCmd, GitCommitArgs, GitDiffArgs, GitPushArgs, GitScopeArgs, GitStatusArgs};
use crate::client::{Client, ClientError};
use crate::format;

pub async fn run(ctx: &Context, cmd: GitCmd) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    match cmd {
        GitCmd::Status(args) => status(&client, args).await,
        GitCmd::Diff(args) => diff(&client, args).await,
        GitCmd::Commit(args) => commit(&client, args).await,
        GitCmd::Push(args) => push_branch(&client, args).await,
    }
}

/// `git status`: the branch and the changed files of the scope.
async fn status(client: &Client, args: GitStatusArgs) -> anyhow::Result<()> {
    let (project_slug, scope) = scope_of(client, &args.scope).await?;
    let scoped = !scope.is_project();
    let request = GitStatusRequest {
        project_slug,
        scope,
    };
    let status = client.call(request).await?;
    if args.json {
        return print_json(&status);
    }
    print(&format::git_status(&status, scoped))
}

/// `git diff`: the scope's diff, or that the project is not in a repository; a note on stderr
/// when the diff was cut.
async fn diff(client: &Client, args: GitDiffArgs) -> anyhow::Result<()> {
    let (project_slug, scope) = scope_of(client, &args.scope).await?;
    let request = GitDiffRequest {
        project_slug: project_slug.clone(),
        scope,
        path: args.path,
    };
    let diff = client.call(request).await?;
    if args.json {
        return print_json(&diff);
    }
    if !diff.is_repo {
        return Err(Failure::new(
            1,
            format!(
                "project {} is not in a git repository",
                format::project_label(&project_slug)
            ),
        )
        .into());
    }
    print(&diff.diff)?;
    if diff.truncated {
        eprint(
            "paddock: the diff was cut at 2 MB; name a file (paddock git diff ... PATH) to see the rest of it\n",
        );
    }
    Ok(())
}

/// `git commit`: commits the scope's changes, then pushes with --push.
async fn commit(client: &Client, args: GitCommitArgs) -> anyhow::Result<()> {
    let (project_slug, scope) = scope_of(client, &args.scope).await?;
    let request = GitCommitRequest {
        project_slug: project_slug.clone(),
        scope,
        message: args.message,
        paths: args.paths,
    };
    let committed = client.call(request).await?;
    if !args.push {
        if args.json {
            return print_json(&committed);
        }
        return print(&format::git_committed(&committed));
    }
    if !args.json {
        print(&format::git_committed(&committed))?;
    }
    let pushed = push(client, project_slug, false).await;
    if args.json {
        // The commit is made whatever the push did: say so before any push error.
        let pushed = pushed.as_ref().ok();
        print_json(&serde_json::json!({ "committed": committed, "pushed": pushed }))?;
    }
    let pushed = pushed?;
    if args.json {
        return Ok(());
    }
    print(&format::git_pushed(&pushed))
}

/// `git push`: pushes the project's branch (or the data root's).
async fn push_branch(client: &Client, args: GitPushArgs) -> anyhow::Result<()> {
    let project_slug = args.project.unwrap_or_else(|| format::ROOT_SLUG.to_owned());
    let pushed = push(client, project_slug, args.data_root).await?;
    if args.json {
        return print_json(&pushed);
    }
    print(&format::git_pushed(&pushed))
}

/// `git:push`, waiting as long as the daemon lets git run. When git fails, its own words go to
/// stderr before the daemon's sentence (the error).
async fn push(client: &Client, project_slug: String, data_root: bool) -> anyhow::Result<GitPushed> {
    let request = GitPushRequest {
        project_slug,
        data_root,
    };
    match client.call_within(request, Client::PUSH_TIMEOUT).await {
        Ok(pushed) => Ok(pushed),
        Err(ClientError::Daemon(body)) => {
            if let Some(failure) = body.git.as_ref().filter(|g| !g.stderr.is_empty()) {
                let mut said = String::from("git said:\n");
                for line in failure.stderr.lines() {
                    said.push_str("  ");
                    said.push_str(line);
                    said.push('\n');
                }
                eprint(&said);
            }
            Err(ClientError::Daemon(body).into())
        }
        Err(e) => Err(e.into()),
    }
}

/// The project and the scope the flags name. With a chat and no -p, the chat's project.
async fn scope_of(client: &Client, args: &GitScopeArgs) -> anyhow::Result<(String, GitScope)> {
    let scope = match (&args.chat, &args.turn) {
        (Some(session_id), _) if args.subtree => GitScope::Subtree {
            session_id: session_id.clone(),
        },
        (Some(session_id), _) => GitScope::Chat {
            session_id: session_id.clone(),
        },
        (None, Some(turn)) => {
            let Some((session_id, job_id)) = turn.split_once(':') else {
                return Err(anyhow!(
                    "--turn takes SESSION:JOB (the chat's session id and the turn's job id), got {turn:?}"
                ));
            };
            GitScope::Turn {
                session_id: session_id.to_owned(),
                job_id: job_id.to_owned(),
            }
        }
        (None, None) => GitScope::Project,
    };
    if let Some(project) = &args.project {
        return Ok((project.clone(), scope));
    }
    let session = match &scope {
        GitScope::Project => return Ok((format::ROOT_SLUG.to_owned(), scope)),
        GitScope::Chat { session_id }
        | GitScope::Subtree { session_id }
        | GitScope::Turn { session_id, .. } => session_id.clone(),
    };
    Ok((chat_project(client, &session).await?, scope))
}

/// The project a chat belongs to.
pub(super) async fn chat_project(client: &Client, session: &str) -> anyhow::Result<String> {
    listed_chat(client, session)
        .await?
        .map(|c| c.project_slug)
        .ok_or_else(|| anyhow!("no chat {session}; `paddock ls --all` lists the chats"))
}
