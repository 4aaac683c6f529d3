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

use paddock_proto::{ProjectInfo, TriggerSpec};
use serde::{Deserialize, Deserializer, Serialize};

pub mod edit;

/// The file of a project's settings, in its metadata folder.
pub const PROJECT_FILE: &str = "project.toml";

/// One writer of `project.toml` at a time (across every project: writes are rare and small).
static EDIT_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error(
        "invalid project slug {0:?}: use 1-64 lower-case letters, digits, '-', '_' or '.', starting with a letter or digit"
    )]
    InvalidSlug(String),
    #[error("project {0:?} already exists")]
    Exists(String),
    #[error("no project {0:?}; create it with `paddock project add {0}`")]
    NotFound(String),
    #[error("project directory {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} is not a usable project file: {message}; fix it by hand (paddock never rewrites a file it cannot load)"
    )]
    Corrupt { path: PathBuf, message: String },
    #[error(
        "not changing {path}: the change would make it unusable ({message}); nothing was written"
    )]
    Refused { path: PathBuf, message: String },
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
    /// Tools the agents may use without asking, on top of the instance's `allowed_tools`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// The model for chats that do not choose one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The depth gate for this project's chats (0-8); wins over the instance's setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_spawn_depth: Option<u32>,
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
}

impl Project {
    pub fn info(&self) -> ProjectInfo {
        ProjectInfo {
            slug: self.slug.clone(),
            path: self.agent_dir.to_string_lossy().into_owned(),
            created_at: self.file.created_at.clone(),
            ..Default::default()
        }
    }

    pub fn is_root(&self) -> bool {
        self.slug.is_empty()
    }
}

/// The project store: stateless over the filesystem, so it needs no owner task.
#[derive(Debug, Clone)]
pub struct Projects {
    data_dir: PathBuf,
}

pub fn valid_slug(slug: &str) -> bool {
    let mut chars = slug.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    slug.len() <= 64
        && (first.is_ascii_lowercase() || first.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
}

impl Projects {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            data_dir: data_dir.to_path_buf(),
        }
    }

    fn projects_dir(&self) -> PathBuf {
        self.data_dir.join("projects")
    }

    /// The `project.toml` of a project (which may not exist, or not parse).
    pub fn file_path(&self, slug: &str) -> PathBuf {
        self.meta_dir(slug).join(PROJECT_FILE)
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
        let _one_writer = EDIT_LOCK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The project must exist, and its file must load now.
        self.get(slug)?;
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
        crate::fsutil::write_atomic(&path, edited.as_bytes())
            .map_err(|source| ProjectError::Io { path, source })?;
        Ok(out)
    }

    fn meta_dir(&self, slug: &str) -> PathBuf {
        if slug.is_empty() {
            self.data_dir.join("workspace")
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
        self.get("")
    }

    pub fn get(&self, slug: &str) -> Result<Project, ProjectError> {
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
        let agent_dir = file.path.clone().unwrap_or_else(|| meta_dir.clone());
        // The CLI keys transcripts by the physical path, so resolve symlinks once here.
        let agent_dir = std::fs::canonicalize(&agent_dir).unwrap_or(agent_dir);
        Ok(Project {
            slug: slug.to_owned(),
            meta_dir,
            agent_dir,
            file,
        })
    }

    /// Every project, the root workspace first, then by slug.
    pub fn list(&self) -> Result<Vec<Project>, ProjectError> {
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
            match self.get(&slug) {
                Ok(p) => out.push(p),
                Err(e) => tracing::warn!("skipping project {slug}: {e}"),
            }
        }
        Ok(out)
    }

    /// Creates a project. `path`: where its agents run (created if missing); default: its
    /// metadata folder.
    pub fn create(&self, slug: &str, path: Option<&Path>) -> Result<Project, ProjectError> {
        if !valid_slug(slug) {
            return Err(ProjectError::InvalidSlug(slug.to_owned()));
        }
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ProjectError::Io { path, source }
        };
        std::fs::create_dir_all(self.projects_dir()).map_err(io(&self.projects_dir()))?;
        let meta_dir = self.meta_dir(slug);
        // create_dir (not _all) is the atomic claim on the slug.
        match std::fs::create_dir(&meta_dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(ProjectError::Exists(slug.to_owned()));
            }
            Err(e) => return Err(io(&meta_dir)(e)),
        }
        let mut file = ProjectFile {
            created_at: Some(chrono::Utc::now().to_rfc3339()),
            ..ProjectFile::default()
        };
        if let Some(p) = path {
            let abs = if p.is_absolute() {
                p.to_path_buf()
            } else {
                std::env::current_dir().map_err(io(p))?.join(p)
            };
            if let Err(e) = std::fs::create_dir_all(&abs) {
                let _ = std::fs::remove_dir(&meta_dir);
                return Err(io(&abs)(e));
            }
            file.path = Some(std::fs::canonicalize(&abs).map_err(io(&abs))?);
        }
        let text = toml::to_string(&file).map_err(|e| ProjectError::Corrupt {
            path: meta_dir.join("project.toml"),
            message: e.to_string(),
        })?;
        let file_path = meta_dir.join("project.toml");
        if let Err(e) = crate::fsutil::write_atomic(&file_path, text.as_bytes()) {
            let _ = std::fs::remove_dir_all(&meta_dir);
            return Err(io(&file_path)(e));
        }
        self.get(slug)
    }
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
        assert!(matches!(store.get("nope"), Err(ProjectError::NotFound(_))));
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
        let root = store.get("").unwrap();
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
        let root = store.get("").unwrap();
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
