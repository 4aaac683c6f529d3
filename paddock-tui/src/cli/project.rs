//! `paddock project`: creating, listing, changing and removing projects.

use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};

#[derive(Debug, Subcommand)]
pub enum ProjectCmd {
    /// Add a project: a folder in the data directory, a directory of yours (--path), or a clone
    /// of a repository (--repo)
    #[command(
        long_about = "\
Add a project. Without --path its files live in a new folder in paddock's data directory (a \
notebook). --path DIR makes DIR (created if missing; its parent must exist) the directory its \
agents run in. A directory belongs to one project: a --path another project runs in is refused, \
naming that project.

--repo URL makes it repo-backed: the repository (an https://, ssh://, git:// or file:// URL, \
git@host:owner/repo, or a path on the daemon's machine) is cloned, by the daemon, into --path \
(which must then be new or empty) or into a folder named after the repository inside the \
project's data folder, and its agents run in the clone. git never prompts (a URL needing \
credentials you have not set up fails with git's message), and a clone taking more than 10 \
minutes is stopped. A clone that fails leaves nothing behind.

--name, --summary, --area and --status describe the project (`paddock project show`, the \
TUI); `paddock project set` changes them later.",
        after_help = "\
Examples:
  paddock project add notes
  paddock project add web --path ~/src/web
  paddock project add api --repo git@github.com:ana/api.git --summary 'The public API'"
    )]
    Add {
        /// The project's name in commands and lists (e.g. `web`): lower-case letters, digits,
        /// `-`, `_` and `.`
        slug: String,
        /// The directory its agents run in [default: a new folder in the data directory]
        #[arg(long, value_name = "DIR")]
        path: Option<PathBuf>,
        /// A repository to clone; the project's agents then run in the clone
        #[arg(long, value_name = "URL")]
        repo: Option<String>,
        /// A display name
        #[arg(long, value_name = "TEXT")]
        name: Option<String>,
        /// One line saying what the project is
        #[arg(long, value_name = "TEXT")]
        summary: Option<String>,
        /// The area (group) the project is filed under
        #[arg(long, value_name = "TEXT")]
        area: Option<String>,
        /// Its status
        #[arg(long, value_enum)]
        status: Option<ProjectStatusArg>,
    },
    /// List projects: slug and directory; the root workspace shows as `(root)`
    #[command(visible_alias = "list")]
    Ls {
        /// Print one JSON array of {slug, path, createdAt, and the settings that are set: name,
        /// summary, area, status, repo, model, driveMode, maxSpawnDepth, allowedTools, reach} (the root workspace's
        /// slug is "")
        #[arg(long)]
        json: bool,
    },
    /// Show a project: its settings, chat counts, and the OVERVIEW.md and CHANGELOG.md the
    /// sweeper keeps
    #[command(
        long_about = "\
Show a project: its directory, repository and settings; how many chats it has (not archived), \
how many run now and how many you have not read; then OVERVIEW.md and CHANGELOG.md as the \
sweeper last wrote them (after your turns). OVERVIEW.md is cut at 64 KiB, CHANGELOG.md (newest \
entries first) to its newest 32 KiB; a cut is said.

--json prints one object: {project: <as in `paddock project ls --json`>, overview, \
overviewTruncated, changelog, changelogTruncated, chats, running, unread, sweptAt, sweepError}; \
overview and changelog are left out before the sweeper wrote them; sweepError says why the last \
sweep failed (then sweptAt is when it did, and the text says \"sweep failed\").",
        after_help = "\
Examples:
  paddock project show web
  paddock project show              the root workspace
  paddock project show web --json | jq -r .overview"
    )]
    Show {
        /// The project [default: the root workspace]
        #[arg(default_value = "")]
        slug: String,
        /// Print one JSON object (see above)
        #[arg(long)]
        json: bool,
    },
    /// Change a project's settings (kept in its project.toml, comments and all)
    #[command(
        long_about = "\
Change a project's settings. They are written into its project.toml as edits: your comments, \
order and other keys stay. --model, --drive-mode and --max-spawn-depth win over the daemon's \
own settings for this project's chats from their next turn. --isolation worktree starts each \
new chat in a git worktree of its own (as `paddock send --worktree`; `--no-worktree` overrides it \
for one chat); none, the default, runs them in the project's directory. --unset KEY clears a \
setting (the daemon's default applies again); KEY is one of name, summary, area, status, model, \
drive-mode, max-spawn-depth, isolation. --allow RULE and --disallow RULE add and remove the project's tool rules \
(allowed_tools; see `paddock approvals --help` for their syntax).

--reach SLUG and --unreach SLUG add and remove the other projects this project's chats may act \
on with their paddock tools (reach): start chats there (which then run under that project's \
rules), message, read, fork and archive its chats, manage its triggers. Without it a chat's \
tools act only on its own project, and a call naming another is refused, saying which command \
would allow it. '' is the root workspace, '*' every project. Prints the project as it is now.",
        after_help = "\
Examples:
  paddock project set web --summary 'The customer-facing web app' --status active
  paddock project set web --drive-mode batch --max-spawn-depth 2
  paddock project set web --isolation worktree     each new chat in a worktree of its own
  paddock project set web --unset model
  paddock project set web --disallow 'Bash(mkdir:*)'      a rule an \"always\" added
  paddock project set ops --reach web --reach api     ops's chats may start chats in web and api
  paddock project set '' --summary 'Everything else'     the root workspace"
    )]
    Set {
        /// The project (`''` for the root workspace)
        slug: String,
        #[arg(long, value_name = "TEXT")]
        name: Option<String>,
        #[arg(long, value_name = "TEXT")]
        summary: Option<String>,
        #[arg(long, value_name = "TEXT")]
        area: Option<String>,
        #[arg(long, value_enum)]
        status: Option<ProjectStatusArg>,
        /// The model for chats that do not choose one
        #[arg(long, value_name = "MODEL")]
        model: Option<String>,
        /// session: one `claude` kept per chat between turns; batch: one per turn
        #[arg(long, value_enum)]
        drive_mode: Option<DriveModeArg>,
        /// How deep chats may spawn chats that get the agent tools (0-8)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=8))]
        max_spawn_depth: Option<u32>,
        /// Where new chats work: worktree (each in a git worktree of its own) or none (the
        /// project's directory)
        #[arg(long, value_enum)]
        isolation: Option<IsolationArg>,
        /// Clear a setting (repeatable)
        #[arg(long, value_enum, value_name = "KEY")]
        unset: Vec<ProjectKey>,
        /// Add a tool rule to allowed_tools: `Read`, `Bash(npm test:*)`, `Edit(src/**)`
        /// (repeatable; the syntax is in `paddock approvals --help`)
        #[arg(long, value_name = "RULE")]
        allow: Vec<String>,
        /// Remove a tool rule from allowed_tools, as `project show` lists it (repeatable)
        #[arg(long, value_name = "RULE")]
        disallow: Vec<String>,
        /// Let this project's chats act on project SLUG with their paddock tools ('' the root
        /// workspace, '*' every project; repeatable)
        #[arg(long, value_name = "SLUG")]
        reach: Vec<String>,
        /// Take project SLUG out of reach, as `project show` lists it (repeatable)
        #[arg(long, value_name = "SLUG")]
        unreach: Vec<String>,
    },
    /// Remove a project; refused while its turns run unless --force
    #[command(
        visible_alias = "delete",
        long_about = "\
Remove a project from paddock. Refused while one of its chats runs a turn, unless --force, which \
interrupts those turns first.

A directory of yours (given with `project add --path`) is never moved or deleted: the project is \
unregistered, and its data folder (project.toml with its triggers, OVERVIEW.md, CHANGELOG.md, \
and .chats with the chats' transcripts) is moved to the trash, `<data>/trash/SLUG-<time>/` \
(restorable: move it back to `<data>/projects/SLUG` and restart paddockd), or deleted with \
--delete-files.

A project whose files live in the data folder (a notebook, or a clone made by --repo) needs the \
choice said: --trash moves its folder to the trash, --delete-files deletes it.

Prints what was done. --json prints one object: {slug, path, pathKept, movedTo, chats, \
triggers, cancelledTurns, done}.",
        after_help = "\
Examples:
  paddock project rm web                  unregister; ~/src/web stays as it is
  paddock project rm notes --trash
  paddock project rm scratch --delete-files --force"
    )]
    Rm {
        slug: String,
        /// Interrupt the project's running turns instead of refusing
        #[arg(long)]
        force: bool,
        /// Delete the project's data folder instead of moving it to the trash
        #[arg(long, conflicts_with = "trash")]
        delete_files: bool,
        /// Move the project's data folder to the trash (the default for a directory of yours)
        #[arg(long)]
        trash: bool,
        /// Print one JSON object (see above)
        #[arg(long)]
        json: bool,
    },
    /// Make a notebook project repo-backed: clone a repository into it and work there
    #[command(
        long_about = "\
Promote a notebook project (its files in paddock's data folder) to a repo-backed one, in place: \
the daemon clones --repo into a folder named after the repository inside the project's folder, \
and the project's agents run there from their next start. Its chats stay listed and resumable, \
OVERVIEW.md and CHANGELOG.md stay, and its CLAUDE.md is renamed CLAUDE.notebook.md (the \
repository has its own). A clone that fails leaves the project as it was. Refused for the root \
workspace, a project with a directory of yours, and one that is repo-backed already.",
        after_help = "\
Examples:
  paddock project promote notes --repo git@github.com:ana/notes.git"
    )]
    Promote {
        slug: String,
        /// The repository to clone (as for `project add --repo`)
        #[arg(long, value_name = "URL")]
        repo: String,
    },
}

/// A project's status, as `--status` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProjectStatusArg {
    Idea,
    Active,
    Paused,
    Blocked,
    Done,
    Abandoned,
}

impl From<ProjectStatusArg> for paddock_proto::ProjectStatus {
    fn from(s: ProjectStatusArg) -> Self {
        match s {
            ProjectStatusArg::Idea => Self::Idea,
            ProjectStatusArg::Active => Self::Active,
            ProjectStatusArg::Paused => Self::Paused,
            ProjectStatusArg::Blocked => Self::Blocked,
            ProjectStatusArg::Done => Self::Done,
            ProjectStatusArg::Abandoned => Self::Abandoned,
        }
    }
}

/// How a project's chats run `claude`, as `--drive-mode` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DriveModeArg {
    Session,
    Batch,
}

/// Where a project's new chats work, as `--isolation` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IsolationArg {
    Worktree,
    None,
}

/// A setting `project set --unset` clears.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProjectKey {
    Name,
    Summary,
    Area,
    Status,
    Model,
    DriveMode,
    MaxSpawnDepth,
    Isolation,
}
