//! Projects: each has a slug, a metadata folder under `<data>/projects/<slug>/` holding
//! `project.toml`, and the directory its agents run in (by default the metadata folder itself).
//!
//! The root workspace's key is the empty string; it always exists, with its metadata and
//! agent directory at `<data>/workspace/`.
//!
//! `project.toml` is written by the daemon ([`Projects::edit_file`]: read, change, check,
//! write atomically, one writer at a time) and may be edited by hand: the daemon's changes
//! are edits of the document ([`edit`]), so the user's comments, layout, order and keys
//! survive them, and a file that does not load is never rewritten. A hand-broken trigger
//! (`[triggers.NAME]`) does not make the project unusable: it is left out of
//! [`ProjectFile::triggers`] and reported by `trigger:list` (see `triggers/spec.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use paddock_proto::{ProjectInfo, ProjectStatus, TriggerSpec};
use serde::{Deserialize, Deserializer, Serialize};

use crate::config::{projects_dir, workspace_dir};

mod command_line;
mod create;
pub mod edit;
pub mod error;
pub mod layout;
pub mod repo;
mod shadow;

pub use command_line::CommandLine;
pub use create::NewProject;
pub use error::{ProjectError, project_error};

/// The file of a project's settings, in its metadata folder.
pub const PROJECT_FILE: &str = "project.toml";

/// Whether `rule` reads as a tool rule: a name, a `prefix*`, or `Tool(scope)`.
fn valid_rule(rule: &str) -> bool {
    let rule = rule.trim();
    let name = match rule.split_once('(') {
        Some((name, scope)) => {
            if !scope.ends_with(')') || scope.len() < 2 {
                return false;
            }
            name
        }
        None => rule.strip_suffix('*').unwrap_or(rule),
    };
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
}

/// A parse error of `text` with where it is: `line 3, column 7: ...`.
fn parse_problem(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim();
    match e.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message.to_owned(),
    }
}

/// `project.toml`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectFile {
    /// Where the agents run, when not the metadata folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// A display name (the slug when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// One line saying what the project is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The area (group) the project is filed under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ProjectStatus>,
    /// The repository a repo-backed project was cloned from. Without `path`, its agents run
    /// in the checkout `<meta>/<repo::checkout_name(repo)>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// Tools the agents may use without asking, on top of the instance's `allowed_tools`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// The other projects this project's chats' tools may act on (create chats in, message,
    /// read, ...): slugs, `""` the root workspace, `"*"` every project. Empty: only this one
    /// (`reach.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reach: Vec<String>,
    /// The model for chats that do not choose one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Where new chats work by default: `"worktree"` (each in a git worktree of its own) or
    /// `"none"` (the project's directory, the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<paddock_proto::ProjectIsolation>,
    /// A command run in each new worktree of the project's chats before its first turn
    /// (`npm ci`), without a shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree_setup: Option<CommandLine>,
    /// The depth gate for this project's chats (0-8); wins over the instance's setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_spawn_depth: Option<u32>,
    /// The per-tree caps for calls made in this project's chats (`tree_caps.rs`); each wins
    /// over the instance's `tree_chats_per_minute` / `tree_turns_per_minute`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_chats_per_minute: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_turns_per_minute: Option<u32>,
    /// How this project's chats run `claude` (`session` or `batch`); wins over the instance's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_mode: Option<crate::config::DriveMode>,
    /// The sweeper's budgets for this project, in tokens; each wins over the instance's
    /// `curation_*_max_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curation_overview_max_tokens: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curation_changelog_max_tokens: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curation_claudemd_max_tokens: Option<usize>,
    /// Schedules and hooks, `[triggers.NAME]`. Entries that do not parse are left out here
    /// (the project still loads); `trigger:list` reports them with the reason.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "lenient_triggers"
    )]
    pub triggers: BTreeMap<String, TriggerSpec>,
}

/// The `[triggers]` table, keeping only the entries that parse.
fn lenient_triggers<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, TriggerSpec>, D::Error> {
    let raw = toml::Value::deserialize(d)?;
    let toml::Value::Table(table) = raw else {
        return Ok(BTreeMap::new());
    };
    Ok(table
        .into_iter()
        .filter_map(|(name, v)| v.try_into::<TriggerSpec>().ok().map(|spec| (name, spec)))
        .collect())
}

#[derive(Debug, Clone)]
pub struct Project {
    pub slug: String,
    /// The metadata folder (`project.toml`, OVERVIEW.md, ...).
    pub meta_dir: PathBuf,
    /// The physical directory the agents run in.
    pub agent_dir: PathBuf,
    pub file: ProjectFile,
    /// Set when another project (named here; `""` the root workspace) owns the directory
    /// this one runs in: two projects on one directory would share one transcript folder, so
    /// the later one is kept apart — no chats, no turns, no links — until its `path` changes.
    /// `project:create` refuses such a path; this covers projects made before it did, or a
    /// `project.toml` edited by hand.
    pub shadowed_by: Option<String>,
    /// Seen from a chat's git worktree ([`Project::in_worktree`]): the project's own directory,
    /// where its transcripts are keyed (`agent_dir` is then the worktree).
    pub worktree_of: Option<PathBuf>,
}

impl Project {
    /// The project as a chat working in its own worktree at `dir` sees it: its agents run,
    /// and are confined, there; its transcripts stay the project's.
    pub fn in_worktree(&self, dir: &Path) -> Self {
        Self {
            agent_dir: dir.to_path_buf(),
            worktree_of: Some(self.home_dir().to_path_buf()),
            ..self.clone()
        }
    }

    /// The project seen from its own directory (itself, unless it is a worktree's view).
    pub fn at_home(&self) -> Self {
        Self {
            agent_dir: self.home_dir().to_path_buf(),
            worktree_of: None,
            ..self.clone()
        }
    }

    /// The project's own directory: `agent_dir`, or the checkout a worktree view came from.
    pub fn home_dir(&self) -> &Path {
        self.worktree_of.as_deref().unwrap_or(&self.agent_dir)
    }
    pub fn info(&self) -> ProjectInfo {
        let f = &self.file;
        ProjectInfo {
            slug: self.slug.clone(),
            path: self.agent_dir.to_string_lossy().into_owned(),
            created_at: f.created_at.clone(),
            name: f.name.clone(),
            summary: f.summary.clone(),
            area: f.area.clone(),
            status: f.status,
            repo: f.repo.clone(),
            model: f.model.clone(),
            drive_mode: f.drive_mode.map(|m| match m {
                crate::config::DriveMode::Session => paddock_proto::ProjectDriveMode::Session,
                crate::config::DriveMode::Batch => paddock_proto::ProjectDriveMode::Batch,
            }),
            isolation: f.isolation,
            max_spawn_depth: f.max_spawn_depth,
            allowed_tools: f.allowed_tools.clone(),
            reach: f.reach.clone(),
            shadowed_by: self.shadowed_by.clone(),
        }
    }

    /// Whether it is a notebook: its files in paddock's data folder (`work/` of its metadata
    /// folder, `layout.rs`), neither a directory of the user's own nor a repository's checkout.
    pub fn is_notebook(&self) -> bool {
        self.file.path.is_none() && self.file.repo.is_none()
    }

    /// Whether its agents run in a directory of the user's own (`path`), not in its data
    /// folder (a notebook) or a checkout inside it (repo-backed).
    pub fn has_own_dir(&self) -> bool {
        self.file.path.is_some()
    }

    pub fn is_root(&self) -> bool {
        self.slug.is_empty()
    }
}

/// The project store: over the filesystem, with its two locks and the last whole listing
/// kept (`shadow.rs`), so it needs no owner task. Clones share them; each
/// daemon has its own.
#[derive(Debug, Clone)]
pub struct Projects {
    data_dir: PathBuf,
    locks: std::sync::Arc<Locks>,
    kept: std::sync::Arc<shadow::KeptListing>,
}

#[derive(Debug, Default)]
struct Locks {
    /// One writer of `project.toml` at a time (across every project: writes are rare and small).
    edit: std::sync::Mutex<()>,
    /// One project lifecycle change (create, promote, delete) at a time (`project_ops.rs`).
    lifecycle: tokio::sync::Mutex<()>,
}

/// Whether `entry` may be listed in a project's `reach`: a slug, `""` (the root workspace) or
/// `"*"` (every project).
fn reachable_slug(entry: &str) -> bool {
    entry.is_empty() || entry == crate::reach::EVERY || valid_slug(entry)
}

/// Whether `project:update`'s `reach` adds only what may be listed, and its `unreach` removes
/// only what is (`now`).
fn check_reach(u: &paddock_proto::ProjectUpdate, now: &[String]) -> Result<(), ProjectError> {
    if let Some(slug) = u.reach.iter().find(|s| !reachable_slug(s.trim())) {
        return Err(ProjectError::Invalid(format!(
            "{slug:?} is not a project to reach: give a project's slug, '' for the root workspace, or '*' for every project"
        )));
    }
    if let Some(slug) = u.unreach.iter().find(|s| !now.contains(s)) {
        let name = if u.slug.is_empty() { "(root)" } else { &u.slug };
        return Err(ProjectError::Invalid(format!(
            "project {name} does not list {slug:?} in its reach (now {now:?}); nothing was changed"
        )));
    }
    Ok(())
}

pub use paddock_proto::valid_slug;

/// A slug for people: the root workspace is `(root)`.
pub fn label(slug: &str) -> &str {
    if slug.is_empty() { "(root)" } else { slug }
}

impl Projects {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            data_dir: data_dir.to_path_buf(),
            locks: std::sync::Arc::default(),
            kept: std::sync::Arc::default(),
        }
    }

    /// Waits for the other lifecycle changes (create, promote, delete) to finish; the change
    /// holds the guard while it works on the project's folders.
    pub(crate) async fn one_lifecycle_change(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.locks.lifecycle.lock().await
    }

    fn projects_dir(&self) -> PathBuf {
        projects_dir(&self.data_dir)
    }

    /// The `project.toml` of a project (which may not exist, or not parse).
    pub fn file_path(&self, slug: &str) -> PathBuf {
        self.meta_dir(slug).join(PROJECT_FILE)
    }

    /// Removes the temp files a crashed write left beside the files paddockd writes in
    /// projects: `project.toml`, the curated OVERVIEW.md and CHANGELOG.md in the metadata
    /// folder, and CLAUDE.md in the agent directory (see [`crate::fsutil::remove_stale_temps`]).
    pub fn remove_stale_temps(&self, projects: &[Project]) {
        use crate::config::curation::{CHANGELOG_FILE, CLAUDE_FILE, OVERVIEW_FILE};
        // Every folder, also one whose project.toml does not parse (a torn edit may be why).
        let Ok(slugs) = self.slugs() else { return };
        for slug in &slugs {
            crate::fsutil::remove_stale_temps(
                &self.meta_dir(slug),
                &[PROJECT_FILE, OVERVIEW_FILE, CHANGELOG_FILE, CLAUDE_FILE],
            );
        }
        for project in projects {
            if project.agent_dir != project.meta_dir {
                crate::fsutil::remove_stale_temps(&project.agent_dir, &[CLAUDE_FILE]);
            }
        }
    }

    /// The slugs of every project folder, the root workspace (`""`) first, then sorted;
    /// unlike [`Projects::list`], also those whose `project.toml` does not parse.
    pub fn slugs(&self) -> Result<Vec<String>, ProjectError> {
        let mut out = vec![String::new()];
        let dir = self.projects_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(source) => return Err(ProjectError::Io { path: dir, source }),
        };
        let mut slugs: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .filter(|s| valid_slug(s))
            .collect();
        slugs.sort();
        out.extend(slugs);
        Ok(out)
    }

    /// Changes a project's `project.toml` as a document ([`edit`]): what `change` does not
    /// touch stays as the user wrote it, comments and layout included. Written back
    /// atomically (0600) only when it changed, and only when the result is still a valid
    /// project file ([`ProjectError::Refused`] otherwise). A file that does not load now is
    /// not touched at all ([`ProjectError::Corrupt`], saying where it breaks). One edit at a
    /// time.
    pub fn edit_file<T>(
        &self,
        slug: &str,
        change: impl FnOnce(&mut toml_edit::DocumentMut) -> T,
    ) -> Result<T, ProjectError> {
        let _one_writer = self
            .locks
            .edit
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The project must exist, and its file must load now.
        self.get_blocking(slug)?;
        let path = self.file_path(slug);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(ProjectError::Io { path, source }),
        };
        // Checked again on the text being edited: a hand edit may have come in between.
        let corrupt = |message: String| ProjectError::Corrupt {
            path: path.clone(),
            message,
        };
        toml::from_str::<ProjectFile>(&text).map_err(|e| corrupt(parse_problem(&text, &e)))?;
        let mut doc: toml_edit::DocumentMut = text
            .parse()
            .map_err(|e: toml_edit::TomlError| corrupt(e.message().trim().to_owned()))?;
        let out = change(&mut doc);
        let edited = doc.to_string();
        if edited == text {
            return Ok(out);
        }
        if let Err(e) = toml::from_str::<ProjectFile>(&edited) {
            return Err(ProjectError::Refused {
                path,
                message: parse_problem(&edited, &e),
            });
        }
        let written = crate::fsutil::write_atomic(&path, edited.as_bytes());
        self.forget_kept();
        written.map_err(|source| ProjectError::Io { path, source })?;
        Ok(out)
    }

    fn meta_dir(&self, slug: &str) -> PathBuf {
        if slug.is_empty() {
            workspace_dir(&self.data_dir)
        } else {
            self.projects_dir().join(slug)
        }
    }

    /// Makes sure the root workspace exists.
    pub fn ensure_root(&self) -> Result<Project, ProjectError> {
        let dir = self.meta_dir("");
        std::fs::create_dir_all(&dir).map_err(|source| ProjectError::Io {
            path: dir.clone(),
            source,
        })?;
        layout::ensure(&dir).map_err(|source| ProjectError::Io { path: dir, source })?;
        self.get_blocking("")
    }

    /// Brings every notebook's folder (the root workspace's too) to the layout of `layout.rs`,
    /// finishing a move a kill cut short: run at start, before anything runs in them. Each
    /// notebook whose move finished now, with what was moved (or why it could not be).
    pub fn ensure_layouts(&self) -> Vec<(Project, std::io::Result<layout::Moved>)> {
        // Agents' folders move here.
        self.forget_kept();
        let mut out = Vec::new();
        for slug in self.slugs().unwrap_or_default() {
            let Ok(project) = self.load(&slug) else {
                continue;
            };
            if !project.is_notebook() {
                continue;
            }
            match layout::ensure(&project.meta_dir) {
                Ok(moved) if !moved.finished && moved.left.is_empty() => {}
                result => {
                    // Loaded again: its agents' folder exists now, and resolves.
                    let project = self.load(&slug).unwrap_or(project);
                    out.push((project, result));
                }
            }
        }
        out
    }

    /// [`Projects::get_blocking`] on the blocking pool: what async code calls.
    pub async fn get(&self, slug: &str) -> Result<Project, ProjectError> {
        let slug = slug.to_owned();
        self.blocking(move |projects| projects.get_blocking(&slug))
            .await
    }

    /// Runs `job` on the blocking pool: the registry reads and writes files (every project's
    /// file, to tell who owns a shared directory), which must not stall the async threads.
    pub async fn blocking<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Projects) -> Result<T, ProjectError> + Send + 'static,
    ) -> Result<T, ProjectError> {
        let projects = self.clone();
        let root = self.data_dir.clone();
        tokio::task::spawn_blocking(move || job(&projects))
            .await
            .unwrap_or_else(|e| {
                Err(ProjectError::Io {
                    path: root,
                    source: std::io::Error::other(format!("the project job failed: {e}")),
                })
            })
    }

    /// A project by slug, with who owns its directory when another project shares it.
    /// Blocking: reads its file (and, once after a change, every project's: `shadow.rs`).
    pub fn get_blocking(&self, slug: &str) -> Result<Project, ProjectError> {
        let mut project = self.load(slug)?;
        if project.has_own_dir() {
            let all = self.list_kept().unwrap_or_default();
            project.shadowed_by = shadow::owner_among(&project, &all);
        }
        Ok(project)
    }

    /// A project as its `project.toml` says, without asking who owns its directory.
    fn load(&self, slug: &str) -> Result<Project, ProjectError> {
        if !slug.is_empty() && !valid_slug(slug) {
            return Err(ProjectError::InvalidSlug(slug.to_owned()));
        }
        let meta_dir = self.meta_dir(slug);
        if !meta_dir.is_dir() {
            return Err(ProjectError::NotFound(slug.to_owned()));
        }
        let file_path = meta_dir.join(PROJECT_FILE);
        let file = match std::fs::read_to_string(&file_path) {
            Ok(text) => toml::from_str(&text).map_err(|e| ProjectError::Corrupt {
                path: file_path.clone(),
                message: parse_problem(&text, &e),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => ProjectFile::default(),
            Err(source) => {
                return Err(ProjectError::Io {
                    path: file_path,
                    source,
                });
            }
        };
        let agent_dir = match (&file.path, &file.repo) {
            (Some(path), _) => path.clone(),
            (None, Some(repo)) => meta_dir.join(repo::checkout_name(repo)),
            (None, None) => meta_dir.join(layout::WORK_DIR),
        };
        // The CLI keys transcripts by the physical path, so resolve symlinks once here.
        let agent_dir = std::fs::canonicalize(&agent_dir).unwrap_or(agent_dir);
        Ok(Project {
            slug: slug.to_owned(),
            meta_dir,
            agent_dir,
            file,
            shadowed_by: None,
            worktree_of: None,
        })
    }

    /// Every project, the root workspace first, then by slug.
    pub fn list(&self) -> Result<Vec<Project>, ProjectError> {
        let generation = self.kept_generation();
        let mut out = vec![self.ensure_root()?];
        let dir = self.projects_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(source) => return Err(ProjectError::Io { path: dir, source }),
        };
        let mut slugs: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .filter(|s| valid_slug(s))
            .collect();
        slugs.sort();
        for slug in slugs {
            match self.load(&slug) {
                Ok(p) => out.push(p),
                Err(e) => tracing::warn!("skipping project {slug}: {e}"),
            }
        }
        // Who owns each directory, from the projects read once.
        let owners: Vec<Option<String>> = out
            .iter()
            .map(|p| {
                p.has_own_dir()
                    .then(|| shadow::owner_among(p, &out))
                    .flatten()
            })
            .collect();
        for (p, owner) in out.iter_mut().zip(owners) {
            p.shadowed_by = owner;
        }
        self.keep_listing(generation, &out);
        Ok(out)
    }

    /// Changes a project's settings (`project:update`) as an edit of its `project.toml`.
    pub fn update(&self, u: &paddock_proto::ProjectUpdate) -> Result<Project, ProjectError> {
        use toml_edit::value;
        let text = |v: &Option<Option<String>>,
                    what: &str,
                    max: usize|
         -> Result<Option<Option<String>>, ProjectError> {
            match v {
                None => Ok(None),
                Some(None) => Ok(Some(None)),
                Some(Some(s)) if s.trim().is_empty() => Ok(Some(None)),
                Some(Some(s)) => {
                    check_text(s.trim(), what, max).map(|()| Some(Some(s.trim().to_owned())))
                }
            }
        };
        let name = text(&u.name, "name", NAME_MAX)?;
        let summary = text(&u.summary, "summary", SUMMARY_MAX)?;
        let area = text(&u.area, "area", NAME_MAX)?;
        let model = text(&u.model, "model", NAME_MAX)?;
        if let Some(Some(m)) = &model
            && m.chars().any(char::is_whitespace)
        {
            return Err(ProjectError::Invalid(format!("{m:?} is not a model name")));
        }
        if let Some(Some(depth)) = u.max_spawn_depth
            && depth > 8
        {
            return Err(ProjectError::Invalid(format!(
                "maxSpawnDepth {depth} is out of range: 0 to 8"
            )));
        }
        if let Some(rule) = u.allow.iter().find(|r| !valid_rule(r)) {
            return Err(ProjectError::Invalid(format!(
                "{rule:?} is not a tool rule: give a tool name (Read), a prefix (mcp__github__*) or a scoped rule (Bash(mkdir:*), Edit(src/**))"
            )));
        }
        let file = self.get_blocking(&u.slug)?.file;
        check_reach(u, &file.reach)?;
        let rules = file.allowed_tools;
        if let Some(rule) = u.disallow.iter().find(|r| !rules.contains(r)) {
            let (name, show) = if u.slug.is_empty() {
                ("(root)".to_owned(), "paddock project show".to_owned())
            } else {
                (u.slug.clone(), format!("paddock project show {}", u.slug))
            };
            return Err(ProjectError::Invalid(format!(
                "project {name} has no rule {rule:?}; `{show}` lists its rules (one from the config file's allowed_tools is removed there); nothing was changed"
            )));
        }
        self.edit_file(&u.slug, |doc| {
            for rule in &u.allow {
                edit::allow_tool(doc, rule.trim());
            }
            for rule in &u.disallow {
                edit::disallow_tool(doc, rule);
            }
            for slug in &u.reach {
                edit::add_to_list(doc, "reach", slug.trim());
            }
            for slug in &u.unreach {
                edit::remove_from_list(doc, "reach", slug);
            }
            edit::set_key(doc, "name", name.map(|v| v.map(value)));
            edit::set_key(doc, "summary", summary.map(|v| v.map(value)));
            edit::set_key(doc, "area", area.map(|v| v.map(value)));
            edit::set_key(
                doc,
                "status",
                u.status.map(|v| v.map(|s| value(s.as_str()))),
            );
            edit::set_key(doc, "model", model.map(|v| v.map(value)));
            edit::set_key(doc, "drive_mode", words(u.drive_mode, drive_mode_word));
            edit::set_key(
                doc,
                "max_spawn_depth",
                u.max_spawn_depth.map(|v| v.map(|n| value(i64::from(n)))),
            );
            edit::set_key(doc, "isolation", words(u.isolation, isolation_word));
        })?;
        self.get_blocking(&u.slug)
    }

    /// Makes a notebook project repo-backed (`project:promote`): clones `url` into
    /// `<meta>/<checkout name>` first (a failure removes just that), then records `repo` in
    /// `project.toml` (a failure removes the clone again). Blocking: run it off the async
    /// threads. The notebook's files stay in its `work/` folder.
    pub fn promote(
        &self,
        slug: &str,
        url: &str,
        limit: std::time::Duration,
    ) -> Result<Project, ProjectError> {
        if slug.is_empty() {
            return Err(ProjectError::Invalid(
                "the root workspace cannot be repo-backed; create a project with the repository instead (`paddock project add SLUG --repo URL`)".into(),
            ));
        }
        let project = self.get_blocking(slug)?;
        if let Some(path) = &project.file.path {
            return Err(ProjectError::Invalid(format!(
                "project {slug:?} runs in a directory of your own ({}); only a notebook project (its files in paddock's data) can be promoted",
                path.display()
            )));
        }
        if let Some(repo) = &project.file.repo {
            return Err(ProjectError::Invalid(format!(
                "project {slug:?} is repo-backed already ({repo})"
            )));
        }
        let url = repo::check_url(url)?;
        let name = repo::checkout_name(&url);
        let dest = project.meta_dir.join(&name);
        if dest.exists() || dest.is_symlink() {
            return Err(ProjectError::Invalid(format!(
                "{} exists already in project {slug:?}; move it away first (paddock never clones over files)",
                dest.display()
            )));
        }
        repo::clone(&url, &dest, limit).inspect_err(|_| repo::undo_clone(&dest, false))?;
        if let Err(e) = self.edit_file(slug, |doc| {
            edit::set_key(doc, "repo", Some(Some(toml_edit::value(url.as_str()))));
        }) {
            repo::undo_clone(&dest, false);
            return Err(e);
        }
        self.get_blocking(slug)
    }

    /// The trash folder (`<data>/trash`), where deleted projects' data folders are moved.
    pub fn trash_dir(&self) -> PathBuf {
        self.data_dir.join("trash")
    }

    /// Moves a project's data folder to the trash (`<data>/trash/SLUG-<UTC time>`), or deletes
    /// it. Symlinks inside (a `host`-mode `.chats`) are removed, never followed. Blocking.
    pub fn remove_folder(
        &self,
        project: &Project,
        files: paddock_proto::ProjectFiles,
    ) -> Result<Option<PathBuf>, ProjectError> {
        if project.is_root() {
            return Err(ProjectError::Invalid(
                "the root workspace cannot be deleted".into(),
            ));
        }
        let meta = &project.meta_dir;
        // Whatever happens below, this project's claim may be gone.
        self.forget_kept();
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ProjectError::Io { path, source }
        };
        match files {
            paddock_proto::ProjectFiles::Trash => {
                let trash = self.trash_dir();
                crate::fsutil::create_private_dir(&trash).map_err(io(&trash))?;
                let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
                let mut dest = trash.join(format!("{}-{stamp}", project.slug));
                let mut n = 1;
                while dest.exists() {
                    n += 1;
                    dest = trash.join(format!("{}-{stamp}-{n}", project.slug));
                }
                std::fs::rename(meta, &dest).map_err(io(meta))?;
                Ok(Some(dest))
            }
            paddock_proto::ProjectFiles::Delete => {
                std::fs::remove_dir_all(meta).map_err(io(meta))?;
                Ok(None)
            }
        }
    }
}

/// A `project:update` field of words (set, clear, or leave) as `edit::set_key` takes it.
fn words<T>(
    field: Option<Option<T>>,
    word: fn(T) -> &'static str,
) -> Option<Option<toml_edit::Item>> {
    field.map(|v| v.map(|x| toml_edit::value(word(x))))
}

/// `drive_mode` as project.toml spells it.
fn drive_mode_word(m: paddock_proto::ProjectDriveMode) -> &'static str {
    match m {
        paddock_proto::ProjectDriveMode::Session => "session",
        paddock_proto::ProjectDriveMode::Batch => "batch",
    }
}

/// `isolation` as project.toml spells it.
fn isolation_word(i: paddock_proto::ProjectIsolation) -> &'static str {
    match i {
        paddock_proto::ProjectIsolation::Worktree => "worktree",
        paddock_proto::ProjectIsolation::None => "none",
    }
}

/// The most characters a name, area or model may have.
const NAME_MAX: usize = 200;
/// The most characters a summary may have.
const SUMMARY_MAX: usize = 2000;

fn check_text(v: &str, what: &str, max: usize) -> Result<(), ProjectError> {
    if v.chars().count() > max {
        return Err(ProjectError::Invalid(format!(
            "the {what} is longer than {max} characters"
        )));
    }
    let multiline = what == "summary";
    if v.chars()
        .any(|c| c.is_control() && !(multiline && (c == '\n' || c == '\t')))
    {
        return Err(ProjectError::Invalid(format!(
            "the {what} holds control characters"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn root_always_exists_and_projects_list_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Projects::new(dir.path());
        let external = dir.path().join("elsewhere");
        store.create("demo", None).unwrap();
        store.create("ext", Some(&external)).unwrap();
        let list = store.list().unwrap();
        let slugs: Vec<&str> = list.iter().map(|p| p.slug.as_str()).collect();
        assert_eq!(slugs, vec!["", "demo", "ext"]);
        assert!(list[0].is_root());
        assert_eq!(list[2].agent_dir, std::fs::canonicalize(&external).unwrap());
        assert!(matches!(
            store.create("demo", None),
            Err(ProjectError::Exists(_))
        ));
        assert!(matches!(
            store.create("../x", None),
            Err(ProjectError::InvalidSlug(_))
        ));
        assert!(matches!(
            store.get_blocking("nope"),
            Err(ProjectError::NotFound(_))
        ));
    }

    #[test]
    fn edits_keep_other_keys_and_a_broken_trigger_does_not_break_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let store = Projects::new(dir.path());
        store.ensure_root().unwrap();
        let path = store.file_path("");
        std::fs::write(
            &path,
            "model = \"m\"\n[triggers.bad]\nkind = \"hook\"\nprompt = \"p\"\non = \"sometimes\"\n",
        )
        .unwrap();
        let root = store.get_blocking("").unwrap();
        assert_eq!(root.file.model.as_deref(), Some("m"));
        assert!(
            root.file.triggers.is_empty(),
            "the broken entry is left out"
        );
        store
            .edit_file("", |t| {
                let mut good = toml_edit::Table::new();
                good.insert("kind", toml_edit::value("hook"));
                good.insert("prompt", toml_edit::value("p"));
                good.insert("on", toml_edit::value("manual"));
                if let Some(triggers) = t.get_mut("triggers").and_then(|t| t.as_table_mut()) {
                    triggers.insert("good", toml_edit::Item::Table(good));
                }
            })
            .unwrap();
        let root = store.get_blocking("").unwrap();
        assert_eq!(root.file.model.as_deref(), Some("m"));
        assert_eq!(root.file.triggers.keys().collect::<Vec<_>>(), ["good"]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("sometimes"),
            "the hand-broken entry is kept: {text}"
        );
        // An edit that would break the file is not written.
        let err = store
            .edit_file("", |t| {
                t.insert("no_such_key", toml_edit::value(1));
            })
            .unwrap_err();
        assert!(matches!(err, ProjectError::Refused { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        // A missing project, and one whose file does not parse, are refused.
        assert!(matches!(
            store.edit_file("nope", |_| ()),
            Err(ProjectError::NotFound(_))
        ));
        // A file that does not parse is never rewritten; the error says where to fix it.
        let broken = "# mine\nmodel = \"m\"\n[triggers.x\nkind = \"hook\"\n";
        std::fs::write(&path, broken).unwrap();
        let err = store
            .edit_file("", |d| edit::allow_tool(d, "Bash"))
            .unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, ProjectError::Corrupt { .. }), "{message}");
        assert!(message.contains("line 3, column"), "{message}");
        assert!(message.contains("fix it by hand"), "{message}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
        // Nor is one that parses but does not load (a key this version does not know).
        std::fs::write(&path, "# mine\nmodle = \"m\"\n").unwrap();
        let err = store
            .edit_file("", |d| edit::allow_tool(d, "Bash"))
            .unwrap_err();
        assert!(err.to_string().contains("modle"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "# mine\nmodle = \"m\"\n"
        );
        std::fs::write(&path, "model = [").unwrap();
        assert!(store.edit_file("", |_| ()).is_err());
        assert_eq!(store.slugs().unwrap(), [""]);
    }
}
