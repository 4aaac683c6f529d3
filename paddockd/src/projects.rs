//! Projects: each has a slug, a metadata folder under `<data>/projects/<slug>/` holding
//! `project.toml`, and the directory its agents run in (by default the metadata folder itself).
//!
//! The root workspace's key is the empty string; it always exists, with its metadata and
//! agent directory at `<data>/workspace/`.

use std::path::{Path, PathBuf};

use paddock_proto::ProjectInfo;
use serde::{Deserialize, Serialize};

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
    #[error("{path} is not a usable project file: {message}")]
    Corrupt { path: PathBuf, message: String },
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
        let file_path = meta_dir.join("project.toml");
        let file = match std::fs::read_to_string(&file_path) {
            Ok(text) => toml::from_str(&text).map_err(|e| ProjectError::Corrupt {
                path: file_path.clone(),
                message: e.message().to_owned(),
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
}
