//! What the transports hold: the services that answer requests, each built here with only
//! the handles it needs (the chat service, the project service, the triggers' context), and
//! the handles a transport uses itself (the hub for subscriptions, the runner to start turns,
//! the shutdown tokens). The wiring (`daemon.rs`) builds one [`Daemon`] and hands it to the
//! transports; a request handler takes its service, never the `Daemon`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use paddock_proto::{DaemonStatus, ErrorBody, ErrorCode, PROTOCOL_VERSION};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::chats::ChatService;
use crate::config::Config;
use crate::hub::{ClientId, Hub};
use crate::project_ops::ProjectService;
use crate::projects::{Project, Projects, project_error};
use crate::runner::{Refused, Runner};
use crate::state::ChatState;

/// What every connection shares. Each piece of mutable state has its own owner task behind
/// its handle (`hub`, `runner`); the rest is read-only or filesystem-backed.
pub struct Daemon {
    /// Chat lists, transcripts, search, chat actions; git and the file views.
    pub chats: ChatService,
    /// Creating, changing, promoting and deleting projects.
    pub project_ops: ProjectService,
    /// The triggers' requests and tasks.
    pub trigger_ops: Arc<crate::triggers::Ctx>,
    pub cfg: Arc<Config>,
    pub hub: Hub,
    pub runner: Runner,
    pub projects: Projects,
    /// Sidecar stores, the chat index and the run log.
    pub state: Arc<ChatState>,
    /// Schedules and hooks: the armed schedules and the re-arm signal.
    pub triggers: crate::trigger_state::Triggers,
    /// Cancelled to shut the daemon down (signal or `daemon:shutdown`).
    pub shutdown: CancellationToken,
    /// Cancelled last, once turns have ended, to close client connections.
    pub close_clients: CancellationToken,
    /// Tasks that own a piece of state or serve a connection (the hub, the index, a
    /// connection's writer): the shutdown waits for them last.
    pub tasks: TaskTracker,
    started: Instant,
    next_client: AtomicU64,
}

impl Daemon {
    /// What starting a machine turn needs.
    pub fn starter(&self) -> crate::machine_turns::Starter<'_> {
        crate::machine_turns::Starter {
            cfg: &self.cfg,
            state: &self.state,
            runner: &self.runner,
        }
    }

    /// The shared handles, with no client yet and the triggers not armed.
    pub fn new(
        cfg: Arc<Config>,
        hub: Hub,
        runner: Runner,
        projects: Projects,
        state: Arc<ChatState>,
        shutdown: CancellationToken,
        tasks: TaskTracker,
    ) -> Self {
        let triggers = crate::trigger_state::Triggers::new();
        let chats = ChatService {
            cfg: cfg.clone(),
            state: state.clone(),
            projects: projects.clone(),
            hub: hub.clone(),
            triggers: triggers.clone(),
            last_built: crate::chats::LastBuilt::default(),
            kept_rows: crate::chats::KeptRows::default(),
        };
        let trigger_ops = Arc::new(crate::triggers::Ctx {
            cfg: cfg.clone(),
            projects: projects.clone(),
            state: state.clone(),
            triggers: triggers.clone(),
            hub: hub.clone(),
            runner: runner.clone(),
            shutdown: shutdown.clone(),
            tasks: tasks.clone(),
        });
        let project_ops = ProjectService {
            chats: chats.clone(),
            runner: runner.clone(),
            schedules: trigger_ops.clone(),
        };
        Self {
            chats,
            project_ops,
            trigger_ops,
            cfg,
            hub,
            runner,
            projects,
            state,
            triggers,
            shutdown,
            close_clients: CancellationToken::new(),
            tasks,
            started: Instant::now(),
            next_client: AtomicU64::new(1),
        }
    }

    pub fn next_client_id(&self) -> ClientId {
        self.next_client.fetch_add(1, Ordering::Relaxed)
    }

    /// A project by slug (`""` is the root workspace), as a protocol error if missing.
    pub async fn project(&self, slug: &str) -> Result<Project, ErrorBody> {
        self.projects.get(slug).await.map_err(project_error)
    }

    pub async fn status(&self) -> DaemonStatus {
        let snap = self.hub.snapshot().await;
        let pool = self.runner.status().await;
        DaemonStatus {
            daemon_version: env!("CARGO_PKG_VERSION").to_owned(),
            protocol_version: PROTOCOL_VERSION,
            pid: std::process::id(),
            uptime_secs: self.started.elapsed().as_secs(),
            socket: self.cfg.socket.to_string_lossy().into_owned(),
            data_dir: self.cfg.data_dir.to_string_lossy().into_owned(),
            running: snap
                .turns
                .iter()
                .filter(|t| t.running)
                .map(crate::hub::TurnInfo::to_running_turn)
                .collect(),
            live_processes: pool.live_processes,
            max_processes: pool.max_processes,
            queued_turns: pool.queued_turns,
            spares: pool
                .spares
                .into_iter()
                .map(|s| paddock_proto::SpareProcess {
                    project_slug: s.project_slug,
                    ready: s.ready,
                    worktree: s.worktree,
                })
                .collect(),
            clients: snap.clients,
            agent_clients: snap.agent_clients,
            low_disk: crate::disk::low(&self.cfg.written_folders(), self.cfg.disk_floor_bytes),
        }
    }
}

/// A turn the runner would not start, as the wire's error.
impl From<Refused> for ErrorBody {
    fn from(e: Refused) -> Self {
        let code = match &e {
            Refused::Shadowed(_) | Refused::NotASession(_) => ErrorCode::InvalidArgument,
            Refused::NoChat { .. } => ErrorCode::NotFound,
            Refused::FirstUnwritten(_) => ErrorCode::InvalidArgument,
            Refused::Busy(_) | Refused::Moving(_) => ErrorCode::Busy,
            Refused::ShuttingDown => ErrorCode::ShuttingDown,
            Refused::Worktree(_) => ErrorCode::InvalidArgument,
        };
        ErrorBody::new(code, e.to_string())
    }
}
