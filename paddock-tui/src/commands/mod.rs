//! One module per group of `paddock` subcommands; each turns parsed arguments into requests
//! and prints the answers with [`crate::format`].

mod batch;
mod chats;
mod daemon;
mod doctor;
mod follow;
mod git;
mod history;
mod import;
mod output;
mod project;
mod provenance;
mod send;
mod status;
mod tail;
mod trigger;

use std::path::PathBuf;

use anyhow::{Context as _, anyhow};
use paddock_proto::{ChatAction, ChatUpdate, Reply, Request};

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
        Some(Cmd::Status(args)) => status::run(&ctx, args).await,
        Some(Cmd::Doctor) => doctor::run(&ctx).await,
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
        Some(Cmd::History(args)) => history::run(&ctx, args).await,
        Some(Cmd::Trigger { action }) => trigger::run(&ctx, action).await,
        Some(Cmd::Import(args)) => import::run(&ctx, args).await,
        Some(Cmd::Provenance(args)) => provenance::run(&ctx, args).await,
        Some(Cmd::Blame(args)) => provenance::blame(&ctx, args).await,
        Some(Cmd::Files(args)) => provenance::files(&ctx, args).await,
        Some(Cmd::Git { action }) => git::run(&ctx, action).await,
    }
}

/// Marks a chat read for this user after showing it to them. Best effort: what they asked for
/// is done and printed, so a daemon that cannot mark it (an older one, a chat deleted meanwhile)
/// is no reason to fail; the chat just stays unread.
async fn mark_read(client: &Client, session_id: &str) {
    let request = Request::ChatUpdate(ChatUpdate {
        session_ids: vec![session_id.to_owned()],
        action: ChatAction::Read,
    });
    let _ = client.request(request).await;
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
