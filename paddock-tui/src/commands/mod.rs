//! One module per group of `paddock` subcommands; each turns parsed arguments into requests
//! and prints the answers with [`crate::format`].

mod approvals;
mod batch;
mod chats;
mod continue_chat;
mod daemon;
mod doctor;
mod fleet;
mod follow;
mod git;
mod history;
mod hosts;
mod ids;
mod import;
mod indent;
mod ls_files;
mod merged;
mod notify;
mod output;
mod project;
mod provenance;
mod proxy;
mod search;
mod send;
mod status;
mod tail;
mod trigger;
mod usage;
mod worktree;

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use paddock_proto::{ChatAction, ChatUpdate};

use crate::cli::{Cli, Cmd};
use crate::client::{
    Client, ClientError, RemoteOptions, StartOptions, connect_or_start, connect_remote,
    connect_remote_existing,
};

pub use output::Failure;

/// What every command needs: where the daemon is and how to start it, or, under `--remote`,
/// how to reach it through ssh.
#[derive(Debug, Clone)]
pub struct Context {
    /// This machine's socket (unused under `--remote`: the far side's is in `remote`).
    pub socket: PathBuf,
    pub start: StartOptions,
    pub remote: Option<RemoteOptions>,
}

impl Context {
    pub fn new(socket: Option<PathBuf>) -> Self {
        let socket = socket.unwrap_or_else(paddock_proto::paths::default_socket_path);
        Self {
            start: StartOptions::new(socket.clone()),
            socket,
            remote: None,
        }
    }

    /// The context of a daemon reached through ssh.
    pub fn remote(remote: RemoteOptions) -> Self {
        Self {
            remote: Some(remote),
            ..Self::new(None)
        }
    }

    /// How long the daemon gets to answer hello (a host of several: `host_timeout`).
    pub fn set_hello_timeout(&mut self, timeout: std::time::Duration) {
        match &mut self.remote {
            Some(remote) => remote.connect.hello_timeout = timeout,
            None => self.start.connect.hello_timeout = timeout,
        }
    }

    /// A connection: through ssh under `--remote` (the far side starts its daemon if none
    /// answers), else to this machine's socket, starting the daemon if none answers (DESIGN §6).
    pub async fn open(&self) -> Result<Client, ClientError> {
        match &self.remote {
            Some(remote) => connect_remote(remote).await,
            None => connect_or_start(&self.start).await,
        }
    }

    /// A connection to a daemon that runs already, never starting one: locally the socket, under
    /// `--remote` `paddock proxy --no-start` on HOST.
    pub async fn open_existing(&self) -> Result<Client, ClientError> {
        match &self.remote {
            Some(remote) => connect_remote_existing(remote).await,
            None => Client::connect_with(&self.socket, self.start.connect.clone()).await,
        }
    }

    /// [`Context::open`], for commands.
    pub async fn connect(&self) -> anyhow::Result<Client> {
        Ok(self.open().await?)
    }

    /// A path from the command line as the daemon should get it: made absolute against this
    /// shell's directory, or, under `--remote` (where that directory means nothing to the
    /// daemon), required to be absolute already. `what` names the argument in the error.
    pub fn daemon_path(
        &self,
        path: &Path,
        what: &str,
        relative_hint: &str,
    ) -> anyhow::Result<PathBuf> {
        if path.is_absolute() {
            return Ok(path.to_path_buf());
        }
        if let Some(remote) = &self.remote {
            return Err(Failure::new(
                2,
                format!(
                    "{what} {} is relative, but with --remote paths are {}'s: give an absolute path there{relative_hint}",
                    path.display(),
                    remote.host
                ),
            )
            .into());
        }
        std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))
    }
}

/// Runs the parsed command line; `None` is the TUI.
pub async fn run(mut cli: Cli) -> anyhow::Result<()> {
    let hosts = crate::hosts::Hosts::from_cli(&cli).map_err(|e| Failure::new(2, e))?;
    if let Some(Cmd::Hosts(args)) = &cli.command {
        return hosts::run(&hosts, args).await;
    }
    if cli.command.is_none() {
        return crate::tui::run(hosts).await;
    }
    batch::precheck(cli.command.as_ref())?;
    let ctx = match cli.command.as_mut() {
        Some(cmd) if hosts.several() => match fleet::route(&hosts, cmd).await? {
            fleet::Route::One(ctx) => *ctx,
            fleet::Route::Merged(hosts) => match cli.command {
                Some(command) => return merged::listing(&hosts, command).await,
                None => return Ok(()),
            },
        },
        _ => {
            if let Some(cmd) = cli.command.as_mut() {
                fleet::named_host(&hosts, cmd);
            }
            let ctx = hosts.list.into_iter().next().map(|h| h.ctx);
            let ctx = ctx.ok_or_else(|| anyhow::anyhow!("no host to work with"))?;
            ids::resolve(&ctx, &mut cli.command).await?;
            ctx
        }
    };
    match cli.command {
        None => Ok(()),
        Some(Cmd::Daemon { action }) => daemon::run(&ctx, action).await,
        Some(Cmd::Project { action }) => project::run(&ctx, action).await,
        Some(Cmd::Ls(args)) => chats::ls(&ctx, args).await,
        Some(Cmd::Send(args)) => follow::after_loss(&ctx, send::run(&ctx, args).await).await,
        Some(Cmd::Tail(args)) => follow::after_loss(&ctx, tail::run(&ctx, args).await).await,
        Some(Cmd::Cancel(args)) => chats::cancel(&ctx, args).await,
        Some(Cmd::Continue(args)) => {
            follow::after_loss(&ctx, continue_chat::run(&ctx, args).await).await
        }
        Some(Cmd::Show(args)) => chats::show(&ctx, args).await,
        Some(Cmd::Status(args)) => status::run(&ctx, args).await,
        Some(Cmd::Approvals(args)) => approvals::run(&ctx, args).await,
        Some(Cmd::Notify(args)) => notify::run(&ctx, args).await,
        Some(Cmd::Usage(args)) => usage::run(&ctx, args).await,
        Some(Cmd::Attachment(args)) => send::attachment(&ctx, args).await,
        Some(Cmd::Doctor(args)) => doctor::run(&ctx, args).await,
        Some(Cmd::Archive(args)) => batch::update(&ctx, ChatAction::Archive, args).await,
        Some(Cmd::Unarchive(args)) => batch::update(&ctx, ChatAction::Unarchive, args).await,
        Some(Cmd::Star(args)) => batch::update(&ctx, ChatAction::Star, args).await,
        Some(Cmd::Unstar(args)) => batch::update(&ctx, ChatAction::Unstar, args).await,
        Some(Cmd::Read(args)) => batch::update(&ctx, ChatAction::Read, args).await,
        Some(Cmd::Unread(args)) => batch::update(&ctx, ChatAction::Unread, args).await,
        Some(Cmd::Detach(args)) => batch::update(&ctx, ChatAction::Detach, args).await,
        Some(Cmd::Attach(args)) => batch::update(&ctx, ChatAction::Attach, args).await,
        Some(Cmd::Delete(args)) => batch::delete(&ctx, args).await,
        Some(Cmd::Fork(args)) => chats::fork(&ctx, args).await,
        Some(Cmd::Promote(args)) => chats::promote(&ctx, args).await,
        Some(Cmd::History(args)) => history::run(&ctx, args).await,
        Some(Cmd::Search(args)) => search::run(&ctx, args).await,
        Some(Cmd::Trigger { action }) => trigger::run(&ctx, action).await,
        Some(Cmd::Import(args)) => import::run(&ctx, args).await,
        Some(Cmd::Provenance(args)) => provenance::run(&ctx, args).await,
        Some(Cmd::Blame(args)) => provenance::blame(&ctx, args).await,
        Some(Cmd::Files(args)) => provenance::files(&ctx, args).await,
        Some(Cmd::LsFiles(args)) => ls_files::run(&ctx, args).await,
        Some(Cmd::Git { action }) => git::run(&ctx, action).await,
        Some(Cmd::Worktree { action }) => worktree::run(&ctx, action).await,
        Some(Cmd::Proxy { no_start }) => proxy::run(&ctx, no_start).await,
        Some(Cmd::Hosts(_)) => Ok(()),
    }
}

/// Runs `paddock [--socket S] WORDS...` on the `--remote` host through ssh, with this terminal's
/// stdio, and exits as it does (its own `paddock: ...` line already said why when it failed).
async fn on_far_side(remote: &RemoteOptions, words: &[&str]) -> anyhow::Result<()> {
    let words: Vec<&std::ffi::OsStr> = words.iter().map(std::ffi::OsStr::new).collect();
    let status = crate::client::run_remote(remote, &words).await?;
    match status.code() {
        Some(0) => Ok(()),
        // ssh's own failure (it has said what on stderr).
        Some(255) => Err(Failure::new(
            255,
            format!(
                "ssh {} failed; check that `{}` works by hand",
                remote.host,
                remote.by_hand(&["proxy"])
            ),
        )
        .into()),
        Some(code) => Err(Failure {
            code: u8::try_from(code).unwrap_or(1),
            message: None,
        }
        .into()),
        None => Err(Failure::new(1, format!("ssh {} was killed by a signal", remote.host)).into()),
    }
}

/// Marks a chat read for this user after showing it to them. Best effort: what they asked for
/// is done and printed, so a daemon that cannot mark it (an older one, a chat deleted meanwhile)
/// is no reason to fail; the chat just stays unread.
async fn mark_read(client: &Client, session_id: &str) {
    let request = ChatUpdate {
        session_ids: vec![session_id.to_owned()],
        action: ChatAction::Read,
    };
    let _ = client.call(request).await;
}

/// Reads all of stdin as the message of `paddock send`.
fn read_stdin() -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
        .context("could not read the message from stdin")?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_made_absolute_here_and_refused_under_remote() -> anyhow::Result<()> {
        let local = Context::new(Some(PathBuf::from("/tmp/p.sock")));
        let here = local.daemon_path(Path::new("src/a.rs"), "FILE", "")?;
        assert!(here.is_absolute() && here.ends_with("src/a.rs"));
        assert_eq!(
            local.daemon_path(Path::new("/x/a.rs"), "FILE", "")?,
            PathBuf::from("/x/a.rs")
        );

        let remote = Context {
            remote: Some(RemoteOptions::new("devbox", None, None)?),
            ..local
        };
        assert_eq!(
            remote.daemon_path(Path::new("/x/a.rs"), "FILE", "")?,
            PathBuf::from("/x/a.rs")
        );
        let err = remote
            .daemon_path(Path::new("src/a.rs"), "FILE", ", or use -p")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "FILE src/a.rs is relative, but with --remote paths are devbox's: give an absolute path there, or use -p"
            )
        );
        Ok(())
    }
}
