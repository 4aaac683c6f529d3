//! Wiring: start-up checks, the accept loop, and structured shutdown ("tell everyone, then
//! wait for everyone").

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use interprocess::local_socket::traits::tokio::Listener as _;
use paddock_proto::{ControlMessage, StopReason, Stopping};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::handles::Daemon;
use crate::hub::{Hub, HubLimits};
use crate::projects::Projects;
use crate::runner::Runner;
use crate::state::ChatState;

/// Prepares the data folders, refusing a Claude home that is the user's own.
fn prepare(cfg: &Config) -> anyhow::Result<()> {
    if crate::runner::process::is_users_claude_home(&cfg.claude_home) {
        anyhow::bail!(
            "claude_home {} is your own ~/.claude; paddockd needs a Claude home of its own (unset claude_home / CLAUDE_CONFIG_DIR-style overrides, or point it elsewhere)",
            cfg.claude_home.display()
        );
    }
    for dir in [
        cfg.data_dir.clone(),
        cfg.claude_home.clone(),
        cfg.data_dir.join("tmp"),
        cfg.data_dir.join("state"),
    ] {
        crate::fsutil::create_private_dir(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
    }
    // MCP configurations of the last run hold tokens that died with it.
    let _ = std::fs::remove_dir_all(cfg.data_dir.join("tmp").join("mcp"));
    Ok(())
}

/// Turns index changes (a transcript appended by a running `claude`, or by the user's own
/// terminal `claude` in host mode) into `chats:changed` for every client: at most one per
/// project per 250 ms, so a burst of appends is one event.
async fn announce_index_changes(
    state: Arc<ChatState>,
    hub: Hub,
    projects: Projects,
    shutdown: CancellationToken,
) {
    use std::collections::{HashMap, HashSet};
    use tokio::sync::broadcast::error::RecvError;
    let mut rx = state.live_index().subscribe();
    loop {
        let first = tokio::select! {
            () = shutdown.cancelled() => return,
            ev = rx.recv() => ev,
        };
        let mut folders: HashSet<std::path::PathBuf> = HashSet::new();
        let mut everything = false;
        let mut take = |ev: Result<crate::index::IndexEvent, RecvError>| match ev {
            Ok(crate::index::IndexEvent::Changed { folder, .. })
            | Ok(crate::index::IndexEvent::Removed { folder, .. }) => {
                folders.insert(folder);
                true
            }
            Err(RecvError::Lagged(_)) => {
                everything = true;
                true
            }
            Err(RecvError::Closed) => false,
        };
        if !take(first) {
            return;
        }
        let window = tokio::time::sleep(Duration::from_millis(250));
        tokio::pin!(window);
        loop {
            tokio::select! {
                () = &mut window => break,
                ev = rx.recv() => if !take(ev) { break },
            }
        }
        let Ok(list) = projects.list() else { continue };
        let by_folder: HashMap<std::path::PathBuf, String> = list
            .iter()
            .map(|p| (state.folder_of(p), p.slug.clone()))
            .collect();
        let slugs: HashSet<String> = if everything {
            by_folder.into_values().collect()
        } else {
            folders
                .iter()
                .filter_map(|f| by_folder.get(f).cloned())
                .collect()
        };
        for slug in slugs {
            hub.broadcast(paddock_proto::ControlMessage::ChatsChanged(
                paddock_proto::ChatsChanged {
                    project_slug: slug,
                    session_id: None,
                },
            ))
            .await;
        }
    }
}

/// What clients are told when the daemon stops on purpose.
fn stopping(why: StopReason) -> Stopping {
    let message = match why {
        StopReason::Requested => "paddockd was stopped (paddock daemon stop)",
        StopReason::Signal => "paddockd was stopped by a signal (SIGTERM or SIGINT)",
    };
    Stopping {
        reason: why,
        message: message.to_owned(),
    }
}

/// Runs the daemon until `shutdown` resolves or a client asks it to stop.
pub async fn run(cfg: Config, shutdown: impl Future<Output = ()>) -> anyhow::Result<()> {
    cfg.validate()?;
    prepare(&cfg)?;
    let bound = crate::listener::bind(&cfg.socket)?;
    // Off unless `ws_listen` is set; refused here when unsafe or when the port is taken.
    let ws = crate::websocket::bind(&cfg).await?;
    // Off unless `mcp_listen` is set; refused here without clients, with an unreadable or
    // weak token, or when the port is taken.
    let management = crate::management::bind(&cfg).await?;
    let projects = Projects::new(&cfg.data_dir);
    projects
        .ensure_root()
        .context("cannot create the root workspace")?;

    // A claude an earlier daemon left running (killed with it, its tools were not; or started
    // by a release without the parent-death signal) is stopped before any chat can run again.
    let stopped = crate::runner::survivors::Records::new(&cfg.data_dir)
        .stop_survivors(&cfg.claude_home)
        .await;
    if !stopped.is_empty() {
        tracing::warn!(sessions = ?stopped, "stopped the claude processes an earlier paddockd left running");
    }

    let cfg = Arc::new(cfg);
    let token = CancellationToken::new();
    let chat_tasks = TaskTracker::new();
    // The owners of state (the hub, the index, the search) and each connection's writer: they
    // end when their handles are dropped, after everything else.
    let owners = TaskTracker::new();
    let hub = Hub::spawn(
        HubLimits {
            buffer_frames: cfg.hub_buffer_frames,
            linger: cfg.hub_linger,
        },
        &owners,
    );
    let state = Arc::new(ChatState::open(&cfg, &owners).context("cannot open the state folder")?);
    let startup_projects = projects.list().context("cannot list the projects")?;
    projects.remove_stale_temps(&startup_projects);
    let runner = Runner::spawn(
        cfg.clone(),
        hub.clone(),
        state.clone(),
        token.clone(),
        chat_tasks.clone(),
    );
    let background = TaskTracker::new();
    {
        let (state, cfg) = (state.clone(), cfg.clone());
        background.spawn(async move { state.attach_all(&cfg, startup_projects).await });
    }
    background.spawn(announce_index_changes(
        state.clone(),
        hub.clone(),
        projects.clone(),
        token.clone(),
    ));
    let daemon = Arc::new(Daemon::new(
        cfg.clone(),
        hub,
        runner,
        projects,
        state.clone(),
        token.clone(),
        owners.clone(),
    ));
    // The scheduler, the hook dispatcher and the file watcher; they stop on `token`.
    crate::triggers::spawn(&daemon, &background);
    // The sweeper (when configured on), following turn ends; it stops on `token` too.
    crate::sweeper::spawn(&daemon, &background);
    // The committer of projects' `.chats` (when the data directory is a repository).
    crate::autocommit::spawn(&daemon, &background);
    // Turn ends that need the user, as `attention` events for the clients that asked.
    crate::attention::spawn(
        daemon.hub.clone(),
        state.clone(),
        token.clone(),
        &background,
    );
    tracing::info!(socket = %bound.path.display(), pid = std::process::id(), "paddockd listening");
    if cfg.stderr_to_log {
        crate::logging::stderr_to(&cfg.log);
    }

    let connections = TaskTracker::new();
    if let Some(ws) = ws {
        // Stops accepting at `token`, like the socket's loop below.
        background.spawn(crate::websocket::serve(
            ws,
            daemon.clone(),
            connections.clone(),
        ));
    }
    if let Some(m) = management {
        background.spawn(crate::management::serve(
            m,
            daemon.clone(),
            connections.clone(),
        ));
    }
    tokio::pin!(shutdown);
    let why = loop {
        tokio::select! {
            () = &mut shutdown => break StopReason::Signal,
            () = token.cancelled() => break StopReason::Requested,
            conn = bound.listener.accept() => match conn {
                Ok(stream) => {
                    connections.spawn(crate::connection::serve(stream, daemon.clone()));
                }
                Err(e) => {
                    // Out of descriptors or similar: back off instead of spinning.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    };

    // Tell everyone first: a client told the stop was on purpose does not start a new daemon.
    daemon
        .hub
        .broadcast(ControlMessage::Stopping(stopping(why)))
        .await;
    tracing::info!("shutting down: interrupting running turns");
    token.cancel();
    chat_tasks.close();
    let budget = cfg.shutdown_grace + Duration::from_secs(5);
    if tokio::time::timeout(budget, chat_tasks.wait())
        .await
        .is_err()
    {
        tracing::warn!("some chats did not stop within {budget:?}");
    }
    background.close();
    background.wait().await;
    if let Err(e) = state.live_index().flush().await {
        tracing::warn!("could not save the chat index (it is rebuilt at the next start): {e}");
    }
    // Let the final frames reach the clients, then close the connections.
    let _ = daemon.hub.snapshot().await;
    daemon.close_clients.cancel();
    connections.close();
    let _ = tokio::time::timeout(Duration::from_secs(2), connections.wait()).await;
    drop(bound);
    // The owners end with their last handles.
    drop((daemon, state));
    owners.close();
    if tokio::time::timeout(Duration::from_secs(2), owners.wait())
        .await
        .is_err()
    {
        tracing::warn!("the hub, index or search task did not end within 2 s of the shutdown");
    }
    tracing::info!("paddockd stopped");
    Ok(())
}
