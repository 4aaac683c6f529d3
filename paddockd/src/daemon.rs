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
        // Which folder is whose: the kept listing (this runs at every burst of transcript
        // changes, and must not read every project's file each time).
        let Ok(list) = projects.list_kept() else {
            continue;
        };
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
            hub.chats_changed(&slug, None).await;
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

/// Every notebook's agents' files in its `work/` folder, away from paddockd's own
/// (`projects/layout.rs`): a move an older release's folder needs, or one a kill cut short,
/// finished before any claude runs in them, and the transcript links made to follow.
fn move_notebooks(cfg: &Config, projects: &Projects) {
    for (project, moved) in projects.ensure_layouts() {
        let slug = &project.slug;
        match moved {
            Ok(m) => {
                if m.finished {
                    tracing::info!(project = %slug, moved = ?m.moved, "the agents' files are in {} now, apart from paddockd's", project.agent_dir.display());
                    let report = crate::chat_links::agent_dir_moved(
                        &cfg.claude_home,
                        &cfg.host_claude_home,
                        cfg.transcripts,
                        &project.meta_dir,
                        &project.agent_dir,
                    );
                    for action in &report.actions {
                        tracing::info!(project = %slug, "{action}");
                    }
                    for warning in &report.warnings {
                        tracing::warn!(project = %slug, "{warning}");
                    }
                }
                if !m.left.is_empty() {
                    tracing::warn!(project = %slug, left = ?m.left, "these stay in {}: the same names are in {} already; move them by hand", project.meta_dir.display(), project.agent_dir.display());
                }
            }
            Err(e) => {
                tracing::error!(project = %slug, "cannot move the agents' files of {} into its work/ folder: {e}; its chats may not start until it is fixed", project.meta_dir.display())
            }
        }
    }
}

/// Runs the daemon until `shutdown` resolves or a client asks it to stop: bind, clear what an
/// earlier daemon left, build the parts, serve, shut down in order.
pub async fn run(cfg: Config, shutdown: impl Future<Output = ()>) -> anyhow::Result<()> {
    cfg.validate()?;
    prepare(&cfg)?;
    let listeners = Listeners::bind(&cfg).await?;
    let projects = Projects::new(&cfg.data_dir);
    projects
        .ensure_root()
        .context("cannot create the root workspace")?;
    stop_survivors(&cfg).await;
    move_notebooks(&cfg, &projects);

    let cfg = Arc::new(cfg);
    let token = CancellationToken::new();
    let tasks = Tasks::default();
    let (daemon, state) = build(&cfg, projects, &token, &tasks)?;
    // A move of chats a killed daemon left half done, finished before any turn.
    crate::promotion::finish_left(&cfg.data_dir, &state).await;
    start_services(&daemon, &state, &token, &tasks.background);
    tracing::info!(socket = %listeners.socket.path.display(), pid = std::process::id(), "paddockd listening");
    if cfg.stderr_to_log {
        crate::logging::stderr_to(&cfg.log);
    }
    let why = serve(
        &listeners.socket,
        listeners.ws,
        listeners.management,
        &daemon,
        &token,
        &tasks,
        shutdown,
    )
    .await;
    shut_down(why, daemon, state, &token, tasks, listeners.socket).await;
    tracing::info!("paddockd stopped");
    Ok(())
}

/// Where clients come in: the socket always; the WebSocket and the management endpoint when
/// configured (refused at bind when unsafe, without clients, or when the port is taken).
struct Listeners {
    socket: crate::listener::Bound,
    ws: Option<crate::websocket::WsListener>,
    management: Option<crate::management::ManagementListener>,
}

impl Listeners {
    async fn bind(cfg: &Config) -> anyhow::Result<Self> {
        Ok(Self {
            socket: crate::listener::bind(&cfg.socket)?,
            ws: crate::websocket::bind(cfg).await?,
            management: crate::management::bind(cfg).await?,
        })
    }
}

/// A claude an earlier daemon left running (killed with it, its tools were not; or started by
/// a release without the parent-death signal) is stopped before any chat can run again.
async fn stop_survivors(cfg: &Config) {
    let stopped = crate::runner::survivors::Records::new(&cfg.data_dir)
        .stop_survivors(&cfg.claude_home)
        .await;
    if !stopped.is_empty() {
        tracing::warn!(sessions = ?stopped, "stopped the claude processes an earlier paddockd left running");
    }
}

/// The daemon's tasks, by when the shutdown waits for them.
#[derive(Default)]
struct Tasks {
    /// Each chat's task: interrupted first, within the shutdown grace.
    chats: TaskTracker,
    /// The services (triggers, sweeper, autocommit, attention, the extra listeners): they stop
    /// on the token.
    background: TaskTracker,
    /// One per client connection: closed once the turns have ended.
    connections: TaskTracker,
    /// The owners of state (the hub, the index, the search) and each connection's writer:
    /// they end when their handles are dropped, after everything else.
    owners: TaskTracker,
}

/// The state, the hub and the runner, and the handles every request shares.
fn build(
    cfg: &Arc<Config>,
    projects: Projects,
    token: &CancellationToken,
    tasks: &Tasks,
) -> anyhow::Result<(Arc<Daemon>, Arc<ChatState>)> {
    let hub = Hub::spawn(
        HubLimits {
            buffer_frames: cfg.hub_buffer_frames,
            linger: cfg.hub_linger,
        },
        &tasks.owners,
    );
    let state =
        Arc::new(ChatState::open(cfg, &tasks.owners).context("cannot open the state folder")?);
    let startup_projects = projects.list().context("cannot list the projects")?;
    projects.remove_stale_temps(&startup_projects);
    let runner = Runner::spawn(
        cfg.clone(),
        hub.clone(),
        state.clone(),
        token.clone(),
        tasks.chats.clone(),
    );
    {
        let (state, cfg) = (state.clone(), cfg.clone());
        tasks
            .background
            .spawn(async move { state.attach_all(&cfg, startup_projects).await });
    }
    tasks.background.spawn(announce_index_changes(
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
        tasks.owners.clone(),
    ));
    Ok((daemon, state))
}

/// The services that follow the daemon's events; each stops on `token`.
fn start_services(
    daemon: &Arc<Daemon>,
    state: &Arc<ChatState>,
    token: &CancellationToken,
    background: &TaskTracker,
) {
    // The scheduler, the hook dispatcher and the file watcher.
    crate::triggers::spawn(daemon.trigger_ops.clone(), background);
    // The sweeper (when configured on), following turn ends.
    let sweeper = crate::sweeper::Ctx::new(
        daemon.cfg.clone(),
        state.clone(),
        daemon.projects.clone(),
        daemon.shutdown.clone(),
    );
    crate::sweeper::spawn(sweeper, background);
    // The committer of projects' `.chats` (when the data directory is a repository).
    let committer = crate::autocommit::Committer {
        cfg: daemon.cfg.clone(),
        projects: daemon.projects.clone(),
        shutdown: daemon.shutdown.clone(),
    };
    crate::autocommit::spawn(committer, &state.turn_ends, background);
    // Each worktree chat's work (ahead, behind, changed files), read at start and after its
    // turns.
    crate::git::spawn_worktree_refresher(
        daemon.chats.clone(),
        &state.turn_ends,
        token.clone(),
        background,
    );
    // A spare worktree, with a spare claude in it, for the next new chat of the projects
    // whose chats work in worktrees (`git/spare.rs`).
    crate::git::spawn_spare_worktree_keeper(
        daemon.chats.clone(),
        daemon.runner.clone(),
        token.clone(),
        background,
    );
    // Turn ends that need the user, as `attention` events for the clients that asked.
    crate::attention::spawn(daemon.hub.clone(), state.clone(), token.clone(), background);
    // A turn's steps recorded: the clients' views of what a chat read and wrote read again.
    announce_recorded_files(daemon, state, token, background);
}

/// Tells every client a project's files were recorded (`project:changed`, `files`), each time
/// the provenance recorder has caught up with a turn's end.
fn announce_recorded_files(
    daemon: &Arc<Daemon>,
    state: &Arc<ChatState>,
    token: &CancellationToken,
    background: &TaskTracker,
) {
    let (hub, mut recorded) = (daemon.hub.clone(), state.provenance.recorded());
    let shutdown = token.clone();
    background.spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            let slug = tokio::select! {
                () = shutdown.cancelled() => return,
                next = recorded.recv() => match next {
                    Ok(slug) => slug,
                    // The next recording tells the views again.
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return,
                },
            };
            hub.project_changed(&slug, paddock_proto::ProjectPart::Files)
                .await;
        }
    });
}

/// Serves clients until `shutdown` resolves (a signal) or the token is cancelled (a client's
/// `daemon:shutdown`); which of them it was.
async fn serve(
    socket: &crate::listener::Bound,
    ws: Option<crate::websocket::WsListener>,
    management: Option<crate::management::ManagementListener>,
    daemon: &Arc<Daemon>,
    token: &CancellationToken,
    tasks: &Tasks,
    shutdown: impl Future<Output = ()>,
) -> StopReason {
    if let Some(ws) = ws {
        // Stops accepting at `token`, like the socket's loop below.
        tasks.background.spawn(crate::websocket::serve(
            ws,
            daemon.clone(),
            tasks.connections.clone(),
        ));
    }
    if let Some(m) = management {
        tasks.background.spawn(crate::management::serve(
            m,
            daemon.clone(),
            tasks.connections.clone(),
        ));
    }
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break StopReason::Signal,
            () = token.cancelled() => break StopReason::Requested,
            conn = socket.listener.accept() => match conn {
                Ok(stream) => {
                    tasks.connections.spawn(crate::connection::serve(stream, daemon.clone()));
                }
                Err(e) => {
                    // Out of descriptors or similar: back off instead of spinning.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
}

/// The shutdown, in order: tell every client, interrupt the turns (within the grace), stop the
/// services, write what the turns streamed, save the index, close the connections (each delivers what it has queued), then
/// let the owners of state end with their last handles.
async fn shut_down(
    why: StopReason,
    daemon: Arc<Daemon>,
    state: Arc<ChatState>,
    token: &CancellationToken,
    tasks: Tasks,
    socket: crate::listener::Bound,
) {
    // Tell everyone first: a client told the stop was on purpose does not start a new daemon.
    daemon
        .hub
        .broadcast(ControlMessage::Stopping(stopping(why)))
        .await;
    tracing::info!("shutting down: interrupting running turns");
    token.cancel();
    tasks.chats.close();
    let budget = daemon.cfg.shutdown_grace + Duration::from_secs(5);
    if tokio::time::timeout(budget, tasks.chats.wait())
        .await
        .is_err()
    {
        tracing::warn!("some chats did not stop within {budget:?}");
    }
    tasks.background.close();
    tasks.background.wait().await;
    // What the interrupted turns streamed is on disk before the daemon goes.
    let streamed = state.streamed.clone();
    if !tokio::task::spawn_blocking(move || streamed.sync(Duration::from_secs(2)))
        .await
        .unwrap_or(false)
    {
        tracing::warn!("the text the last turns streamed may not all be kept");
    }
    if let Err(e) = state.live_index().flush().await {
        tracing::warn!("could not save the chat index (it is rebuilt at the next start): {e}");
    }
    // Let the final frames reach the clients, then close the connections.
    let _ = daemon.hub.snapshot().await;
    daemon.close_clients.cancel();
    tasks.connections.close();
    let _ = tokio::time::timeout(Duration::from_secs(2), tasks.connections.wait()).await;
    drop(socket);
    // The owners end with their last handles.
    drop((daemon, state));
    tasks.owners.close();
    if tokio::time::timeout(Duration::from_secs(2), tasks.owners.wait())
        .await
        .is_err()
    {
        tracing::warn!("the hub, index or search task did not end within 2 s of the shutdown");
    }
}
