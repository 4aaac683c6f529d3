//! Projects: creating, updating, deleting, promoting, listing, and their overview.

use serde::{Deserialize, Serialize};

use super::*;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectCreate {
    pub slug: String,
    /// Where the project's agents run. `None`: a new folder in the data directory (with
    /// `repo`: the checkout inside it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A git URL (`https://`, `ssh://`, `git://`, `file://`, `git@host:owner/repo`) or an
    /// absolute path of a repository to clone: the project is then repo-backed, its agents
    /// running in the clone (in `path`, which must not exist or be empty, else in a folder
    /// named after the repository inside the project's data folder). A failed clone leaves
    /// nothing behind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
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
}

/// Where a project's new chats work by default (`isolation` in its `project.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectIsolation {
    /// Each new chat in a git worktree of its own (`chat:send`'s `isolation` says otherwise
    /// for one chat).
    Worktree,
    /// The project's directory, shared by its chats.
    None,
}

/// A project's lifecycle status, as the reference's `project.yaml` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectStatus {
    Idea,
    Active,
    Paused,
    Blocked,
    Done,
    Abandoned,
}

impl ProjectStatus {
    pub const ALL: [ProjectStatus; 6] = [
        ProjectStatus::Idea,
        ProjectStatus::Active,
        ProjectStatus::Paused,
        ProjectStatus::Blocked,
        ProjectStatus::Done,
        ProjectStatus::Abandoned,
    ];

    /// The wire (and `project.toml`) spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ProjectStatus::Idea => "idea",
            ProjectStatus::Active => "active",
            ProjectStatus::Paused => "paused",
            ProjectStatus::Blocked => "blocked",
            ProjectStatus::Done => "done",
            ProjectStatus::Abandoned => "abandoned",
        }
    }
}

impl std::str::FromStr for ProjectStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProjectStatus::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| {
                let all: Vec<&str> = ProjectStatus::ALL.iter().map(|s| s.as_str()).collect();
                format!("unknown status {s:?}; one of {}", all.join(", "))
            })
    }
}

/// How a project's chats run `claude`: one process kept per chat, or one per turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectDriveMode {
    Session,
    Batch,
}

/// A present field that may be `null`: absent leaves the setting as it is (`None`), `null`
/// clears it back to its default (`Some(None)`), a value sets it.
fn set_or_clear<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// `project:update`: each field absent is left as it is, `null` clears the setting (the
/// instance's default applies again), a value sets it. Written into `project.toml` as an
/// edit: comments, order and other keys stay as they were.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectUpdate {
    pub slug: String,
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub name: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub summary: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub area: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub status: Option<Option<ProjectStatus>>,
    /// The model for chats that do not choose one.
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub model: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub drive_mode: Option<Option<ProjectDriveMode>>,
    /// Where its new chats work by default (clear: its directory).
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub isolation: Option<Option<ProjectIsolation>>,
    /// The depth gate for the project's chats, 0-8.
    #[serde(
        default,
        deserialize_with = "set_or_clear",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_spawn_depth: Option<Option<u32>>,
    /// Rules to add to the project's `allowedTools` (a rule already there is kept once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Rules to remove from the project's `allowedTools`, exactly as listed; one that is not
    /// there fails the update (nothing is changed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disallow: Vec<String>,
    /// Project slugs to add to the project's `reach` (`""` the root workspace, `"*"` every
    /// project); one already there is kept once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reach: Vec<String>,
    /// Slugs to remove from the project's `reach`, exactly as listed; one that is not there
    /// fails the update (nothing is changed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreach: Vec<String>,
}

/// What `project:delete` does with the project's folder in the data directory (its
/// `project.toml`, OVERVIEW.md, CHANGELOG.md, `.chats` and, for a notebook project, its
/// files). A directory of the user's own (`path`) is never moved or deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectFiles {
    /// Moved aside to `<data>/trash/<slug>-<time>/`, whole: restorable by moving it back
    /// (and restarting paddockd).
    Trash,
    /// Deleted.
    Delete,
}

/// `project:delete`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectDelete {
    pub slug: String,
    /// Interrupt the project's running turns (and wait for them to end) instead of refusing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub force: bool,
    /// Absent: a project whose agents run in a directory of the user's own is unregistered
    /// (its data folder moved to the trash); one whose files live in the data directory is
    /// refused, naming the two choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<ProjectFiles>,
}

/// `project:promote`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectPromote {
    /// The notebook project (not the root workspace, not one with a directory of its own).
    pub slug: String,
    /// The repository to clone (as for `project:create`).
    pub repo: String,
}

/// One project, by slug (`""`: the root workspace).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRef {
    pub slug: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Projects {
    pub projects: Vec<ProjectInfo>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectInfo {
    /// `""` is the root workspace.
    pub slug: String,
    /// The directory its agents run in.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// The settings `project:update` changes, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ProjectStatus>,
    /// The repository a repo-backed project was cloned from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_mode: Option<ProjectDriveMode>,
    /// Where its new chats work by default (absent: its directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<ProjectIsolation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_spawn_depth: Option<u32>,
    /// The project's own tool rules (`allowed_tools` in its `project.toml`), on top of the
    /// instance's: calls they match run without asking.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// The other projects its chats' tools may act on (`reach` in its `project.toml`; `""` the
    /// root workspace, `"*"` every project); empty: only this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reach: Vec<String>,
    /// Set when another project (this slug; `""` the root workspace) owns `path`: this one
    /// shows no chats and runs no turns until its `path` changes (a directory belongs to one
    /// project).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<String>,
}

/// What `project:delete` did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectDeleted {
    pub slug: String,
    /// The directory its agents ran in, and whether it is still there (a directory of the
    /// user's own always is).
    pub path: String,
    pub path_kept: bool,
    /// Where its data folder went: the trash folder, or absent when it was deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
    /// Its chats (their transcripts went with the data folder; in `host` mode they stay in
    /// `~/.claude`).
    pub chats: u32,
    /// Its triggers, which no longer fire.
    pub triggers: u32,
    /// Running turns interrupted (with `force`).
    pub cancelled_turns: u32,
    /// What was done, one sentence each, for a person.
    pub done: Vec<String>,
}

/// `project:overview`: the project, its curated files and its chat counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectOverview {
    pub project: ProjectInfo,
    /// OVERVIEW.md; absent before the first sweep wrote it. Cut at [`OVERVIEW_MAX_BYTES`]
    /// (at a line's end, `overviewTruncated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overview: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub overview_truncated: bool,
    /// CHANGELOG.md (newest entries first); absent before the first sweep wrote it. Over
    /// [`CHANGELOG_MAX_BYTES`], the newest whole entries that fit are kept
    /// (`changelogTruncated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub changelog_truncated: bool,
    /// The project's chats that are not archived, those running a turn now, and those
    /// unread by this user.
    pub chats: u32,
    pub running: u32,
    pub unread: u32,
    /// When the sweeper last ran (RFC 3339); with `sweepError`, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swept_at: Option<String>,
    /// Why the last sweep failed (the files are as an earlier sweep left them); absent when it
    /// succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep_error: Option<String>,
}

/// The most of OVERVIEW.md `project:overview` carries.
pub const OVERVIEW_MAX_BYTES: usize = 64 * 1024;
/// The most of CHANGELOG.md `project:overview` carries.
pub const CHANGELOG_MAX_BYTES: usize = 32 * 1024;

/// The rule a project's slug keeps (the root workspace's `""` aside), in words.
pub const SLUG_RULE: &str =
    "1-64 lower-case letters, digits, '-', '_' or '.', starting with a letter or digit";

/// Whether `slug` keeps [`SLUG_RULE`]: what the daemon takes as a new project's slug, and
/// what a client can check before it asks.
pub fn valid_slug(slug: &str) -> bool {
    let mut chars = slug.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    slug.len() <= 64
        && (first.is_ascii_lowercase() || first.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
}
