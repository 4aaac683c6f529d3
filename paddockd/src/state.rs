//! The daemon's durable chat state, opened once at start: the eleven sidecar stores, the live
//! chat index, and the run log. Each keeps its own files under `<data>/state/` and its own
//! crash-safety rules (see their modules); this only wires them together.

use std::path::PathBuf;

use crate::config::Config;
use crate::index::{ChatIndex, IndexedChat};
use crate::projects::Project;
use crate::run_log::RunLog;
use crate::stores::{RunProvenance, StoreError, Stores};

pub struct ChatState {
    pub stores: Stores,
    /// Per-chat tokens of the agents' MCP bridges.
    pub agents: crate::grants::AgentTokens,
    /// Tool calls waiting for a person.
    pub approvals: crate::approvals::Approvals,
    /// What each chat's latest turn runs at: its depth for the gate, its tree (`lineage.rs`).
    pub lineages: crate::lineage::Lineages,
    /// The per-tree caps' windows (`tree_caps.rs`).
    pub caps: crate::tree_caps::TreeCaps,
    /// Chats parked on a usage limit.
    pub parking: crate::parking::Parking,
    /// Read through [`ChatState::listed`] (complete chat lists) or [`ChatState::live_index`]
    /// (keeping it current), so no reader forgets the start-up indexing.
    index: ChatIndex,
    /// The full-text index of every chat, built once `index` is ready, then kept current.
    pub search: crate::search::SearchIndex,
    pub runs: RunLog,
    claude_home: PathBuf,
    /// True once every project present at start has been indexed.
    ready: tokio::sync::watch::Sender<bool>,
    /// Every turn's end, for hooks, attention, the sweeper and the chats committer: each
    /// follows it from its own cursor and gets every one, in order (`turn_ends.rs`).
    pub turn_ends: crate::turn_ends::TurnEnds,
    /// The file-provenance recorder: steps of every tool call, per chat.
    pub provenance: crate::provenance::Provenance,
    /// Revisions of the chat listings asked for, for `chat:list`'s deltas.
    pub listings: crate::listing::Listings,
    /// What running turns streamed, kept until the transcript has it (`streamed.rs`).
    pub streamed: crate::streamed::Streamed,
    /// The daemon's tracked tasks, where the index and the search run.
    tasks: tokio_util::task::TaskTracker,
    /// Chats being moved to another project: no turn starts in them meanwhile.
    pub moving: Moving,
    /// Held while a git worktree is added (`git/worktree.rs`): `git worktree add` reads every
    /// worktree of the repository and fails on one that another add has half made.
    pub worktree_adds: tokio::sync::Mutex<()>,
    /// The spare worktrees' book beside their store (`git/spare.rs`).
    pub spare_worktrees: SpareWorktrees,
}

/// What `git/spare.rs` keeps in memory of the spare worktrees (`Stores::spare_worktrees`).
#[derive(Default)]
pub struct SpareWorktrees {
    /// Held while a spare is looked at, taken or set aside for removal, so a new chat and
    /// the keeper never take the same one.
    pub turn: tokio::sync::Mutex<()>,
    /// The stamp of the ignored files copied into each (`.worktreeinclude`), by session id:
    /// a spare whose files changed since is not used.
    pub included: std::sync::Mutex<std::collections::HashMap<String, u64>>,
}

impl ChatState {
    /// The state under the data folder; its owner tasks (the index's, the search's) run on
    /// `tasks`.
    pub fn open(cfg: &Config, tasks: &tokio_util::task::TaskTracker) -> Result<Self, StoreError> {
        let dir = cfg.data_dir.join("state");
        Ok(Self {
            stores: Stores::open(&dir)?,
            agents: crate::grants::AgentTokens::default(),
            approvals: crate::approvals::Approvals::default(),
            lineages: crate::lineage::Lineages::default(),
            caps: crate::tree_caps::TreeCaps::default(),
            parking: crate::parking::Parking::default(),
            index: ChatIndex::open(dir.join("chat-index.bin"), tasks),
            search: crate::search::SearchIndex::new(dir.join("search")),
            runs: RunLog::open(dir.join("runs.jsonl")),
            claude_home: cfg.claude_home.clone(),
            ready: tokio::sync::watch::Sender::new(false),
            turn_ends: crate::turn_ends::TurnEnds::default(),
            provenance: crate::provenance::Provenance::start(
                crate::provenance::Limits::default(),
                &cfg.claude_home,
            ),
            listings: crate::listing::Listings::new(),
            streamed: crate::streamed::Streamed::start(dir.join("streamed")),
            tasks: tasks.clone(),
            moving: Moving::default(),
            worktree_adds: tokio::sync::Mutex::new(()),
            spare_worktrees: SpareWorktrees::default(),
        })
    }

    /// Indexes every project present at start, then marks the state ready. Run in the
    /// background, so the daemon answers (status, sends) while a missing index is rebuilt.
    pub async fn attach_all(&self, cfg: &Config, projects: Vec<Project>) {
        let started = std::time::Instant::now();
        // Opened while the chats are indexed: searches are complete once they are.
        self.search.open_early();
        for project in &projects {
            self.attach_project(cfg, project).await;
        }
        // Entries of projects removed while the daemon was down go.
        self.index.forget_unwatched();
        tracing::info!(
            projects = projects.len(),
            elapsed_ms = started.elapsed().as_millis(),
            "chat index ready"
        );
        // In the background, after the chat list is complete (started before chat requests go
        // on, so a search then waits for the index to be opened rather than missing it).
        self.search.start(&self.index, &self.tasks);
        self.ready.send_replace(true);
    }

    /// Waits until the start-up indexing is done: chat lists are complete from then on.
    async fn wait_ready(&self) {
        if *self.ready.borrow() {
            return;
        }
        let mut rx = self.ready.subscribe();
        let _ = rx.wait_for(|ready| *ready).await;
    }

    /// The chat index once the start-up indexing is done: what it lists, finds by id or
    /// resolves by prefix is every chat there is. Every list or lookup of chats reads it so;
    /// while a missing index is rebuilt at start, they wait (status and sends do not).
    pub async fn listed(&self) -> &ChatIndex {
        self.wait_ready().await;
        &self.index
    }

    /// The chat index as it is now, to keep it current (refresh a transcript, watch or drop
    /// a folder, follow its events, save it) or to answer with what is indexed so far (a
    /// search while the index is built). Not for chat lists: [`ChatState::listed`].
    pub fn live_index(&self) -> &ChatIndex {
        &self.index
    }

    /// A chat's title: its custom title (`/rename`, a named fork), else the name it was
    /// created with (`create_chat`'s `name`), else its first prompt (kept until claude writes
    /// it, for a new chat not in the index yet); `None` when blank. Read from `index`: a
    /// list's titles from [`ChatState::listed`], so none is missing while the index is built.
    pub fn title_in(&self, index: &ChatIndex, session_id: &str) -> Option<String> {
        let prov = self.stores.run_provenance.get(session_id);
        let title = match index.get(session_id) {
            Some(chat) => chat_title(&chat, prov.as_ref()).to_owned(),
            // Not written yet (a new chat in its first turn): the name it was created with,
            // else its first message, as its listing row says.
            None => prov
                .and_then(|p| p.title)
                .or_else(|| self.stores.first_message.get(session_id).map(|f| f.message))?,
        };
        Some(title).filter(|t| !t.trim().is_empty())
    }

    /// [`ChatState::title_in`] the index as it is now: for a notice or a label about one
    /// chat, which may say its id instead while the index is built.
    pub fn title_now(&self, session_id: &str) -> Option<String> {
        self.title_in(&self.index, session_id)
    }

    /// A project another one shadows ([`Project::shadowed_by`]) reads from the link of its
    /// own data folder instead, which no other project uses: it never shows, moves or
    /// unlinks the owner's chats.
    pub fn folder_of(&self, project: &Project) -> PathBuf {
        let dir = match project.shadowed_by {
            Some(_) => &project.meta_dir,
            None => project.home_dir(),
        };
        crate::chat_links::link_path(&self.claude_home, dir)
    }

    /// Makes sure a project's `.chats` link is in place and its transcripts are indexed and
    /// watched. Never fails: problems are logged, and the project still works (its chats just
    /// may not be listed until the link is repaired).
    pub async fn attach_project(&self, cfg: &Config, project: &Project) {
        if let Some(problem) = project.shadow_problem() {
            // Linking it would repoint the owner's transcript folder at this project's.
            tracing::warn!(project = %project.slug, "{problem}");
            return;
        }
        let report = crate::chat_links::ensure_project_chats(
            &cfg.claude_home,
            &cfg.host_claude_home,
            cfg.transcripts,
            &project.meta_dir,
            &project.agent_dir,
        );
        for action in &report.actions {
            tracing::info!(project = %project.slug, "{action}");
        }
        for warning in &report.warnings {
            tracing::warn!(project = %project.slug, "{warning}");
        }
        let folder = self.folder_of(project);
        if let Err(e) = self.index.watch_folder(&folder).await {
            tracing::warn!(project = %project.slug, folder = %folder.display(), "cannot index the project's transcripts: {e}");
        }
    }
}

/// The chats being moved to another project (`chat:promote`), each held by one move; and
/// where the chats moved since the daemon started went, for a turn asked before (a queued
/// continue, a recovery, a request resolved while the move ran), which then runs there.
#[derive(Default)]
pub struct Moving {
    held: std::sync::Mutex<std::collections::HashSet<String>>,
    moved: std::sync::Mutex<std::collections::HashMap<String, Project>>,
}

impl Moving {
    fn set(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn moved_map(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, Project>> {
        self.moved
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The chats of `ids` are `to`'s now.
    pub fn moved(&self, ids: &[String], to: &Project) {
        let mut map = self.moved_map();
        for id in ids {
            map.insert(id.clone(), to.clone());
        }
    }

    /// The project chat `id` was last moved to, if it was moved since the daemon started.
    pub fn moved_to(&self, id: &str) -> Option<Project> {
        self.moved_map().get(id).cloned()
    }

    /// Holds every chat of `ids` until the guard is dropped; `None` (holding none) when one
    /// is held by another move already.
    pub fn hold(&self, ids: &[String]) -> Option<MovingGuard<'_>> {
        let mut set = self.set();
        if ids.iter().any(|id| set.contains(id)) {
            return None;
        }
        set.extend(ids.iter().cloned());
        Some(MovingGuard {
            moving: self,
            ids: ids.to_vec(),
        })
    }

    pub fn holds(&self, id: &str) -> bool {
        self.set().contains(id)
    }
}

/// Chats held by one move; let go when it is dropped.
pub struct MovingGuard<'a> {
    moving: &'a Moving,
    ids: Vec<String>,
}

impl Drop for MovingGuard<'_> {
    fn drop(&mut self) {
        let mut set = self.moving.set();
        for id in &self.ids {
            set.remove(id);
        }
    }
}

/// A chat's title as the index has it, with its creation name in between: the custom title,
/// else the name it was created with (`create_chat`'s `name`), else the first prompt.
pub(crate) fn chat_title<'a>(c: &'a IndexedChat, prov: Option<&'a RunProvenance>) -> &'a str {
    title_of(c.custom_title.as_deref(), prov, &c.title)
}

/// [`chat_title`] from its parts: the custom title, the provenance, and the index's title (the
/// custom title, else the first prompt).
pub(crate) fn title_of<'a>(
    custom: Option<&'a str>,
    prov: Option<&'a RunProvenance>,
    title: &'a str,
) -> &'a str {
    custom
        .or(prov.and_then(|p| p.title.as_deref()))
        .unwrap_or(title)
}

/// Epoch milliseconds now.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Epoch milliseconds of an RFC 3339 time, 0 when absent or unparseable.
pub fn ms_of(rfc3339: Option<&str>) -> i64 {
    rfc3339
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map_or(0, |t| t.timestamp_millis())
}
