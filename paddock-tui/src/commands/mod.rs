//! One module per group of `paddock` subcommands; each turns parsed arguments into requests
//! and prints the answers with [`crate::format`].

mod chats;
mod daemon;
mod follow;
mod output;
mod project;
mod send;
mod tail;

use std::path::PathBuf;

use anyhow::{Context as _, anyhow};
use paddock_proto::Reply;

use crate::cli::{Cli, Cmd};
use crate::client::{Client, ClientError, StartOptions, connect_or_start};

pub use output::Failure;

/// What every command needs: where the daemon is and how to start it.
#[derive(Debug, Clone)]
pub struct Context {
    pub socket: PathBuf,
    pub start: StartOptions,
}

impl Context {
    pub fn new(socket: Option<PathBuf>) -> Self {
        let socket = socket.unwrap_or_else(paddock_proto::paths::default_socket_path);
        Self {
            start: StartOptions::new(socket.clone()),
            socket,
        }
    }

    /// A connection, starting the daemon if none answers (DESIGN §6).
    pub async fn connect(&self) -> anyhow::Result<Client> {
        Ok(connect_or_start(&self.start).await?)
    }
}

/// Runs the parsed command line; `None` is the TUI.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let ctx = Context::new(cli.socket);
    match cli.command {
        None => crate::tui::run(ctx).await,
        Some(Cmd::Daemon { action }) => daemon::run(&ctx, action).await,
        Some(Cmd::Project { action }) => project::run(&ctx, action).await,
        Some(Cmd::Ls(args)) => chats::ls(&ctx, args).await,
        Some(Cmd::Send(args)) => send::run(&ctx, args).await,
        Some(Cmd::Tail(args)) => tail::run(&ctx, args).await,
        Some(Cmd::Cancel(args)) => chats::cancel(&ctx, args).await,
        Some(Cmd::Show(args)) => chats::show(&ctx, args).await,
    }
}

/// An error for a reply of the wrong kind (the daemon and this client disagree).
fn unexpected(request: &str, reply: &Reply) -> anyhow::Error {
    anyhow!(ClientError::Protocol(format!(
        "{request} was answered with {}",
        crate::client::reply_kind(reply)
    )))
}

/// Reads all of stdin as the message of `paddock send`.
fn read_stdin() -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
        .context("could not read the message from stdin")?;
    Ok(text)
}
