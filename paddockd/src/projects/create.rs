//! Creating a project: its folder, its `project.toml`, and the checks before anything is
//! made (a valid slug, texts within their limits, a directory no other project runs in).

use super::*;

impl Projects {
    /// Creates a project. `path`: where its agents run (created if missing); default: `work/`
    /// in its metadata folder (a notebook, `layout.rs`).
    pub fn create(&self, slug: &str, path: Option<&Path>) -> Result<Project, ProjectError> {
        self.create_with(
            slug,
            &NewProject {
                path: path.map(Path::to_path_buf),
                ..NewProject::default()
            },
        )
    }

    /// Creates a project: claims `<data>/projects/SLUG` (atomically), clones `new.repo` when
    /// there is one (blocking: run it off the async threads), then writes `project.toml`.
    /// Whatever fails, what this call made is removed again; a directory that was there before
    /// (an empty `path` to clone into) is left, emptied of what the clone wrote.
    pub fn create_with(&self, slug: &str, new: &NewProject) -> Result<Project, ProjectError> {
        if !valid_slug(slug) {
            return Err(ProjectError::InvalidSlug(slug.to_owned()));
        }
        let repo_url = match &new.repo {
            Some(r) => Some(repo::check_url(r)?),
            None => None,
        };
        let texts = checked_texts(new)?;
        let own_dir = self.checked_own_dir(new.path.as_deref(), repo_url.is_some())?;
        let meta_dir = self.claim(slug)?;
        let mut file = ProjectFile {
            created_at: Some(chrono::Utc::now().to_rfc3339()),
            status: new.status,
            repo: repo_url.clone(),
            ..texts
        };
        let limit = new.clone_limit.unwrap_or(repo::CLONE_LIMIT);
        let made = make_agent_dir(&meta_dir, repo_url.as_deref(), own_dir.as_deref(), limit)
            .and_then(|cloned| {
                write_project_file(&meta_dir, &mut file, own_dir.as_deref()).inspect_err(|_| {
                    undo(&meta_dir, cloned.as_ref().map(|(d, e)| (d.as_path(), *e)));
                })
            });
        // Read in between, the folder claimed what its file did not say yet.
        self.forget_kept();
        made?;
        self.get_blocking(slug)
    }

    /// Where a path of the user's own would be: absolute, checked before anything is made
    /// (empty when a repository is to be cloned into it, and no other project's directory).
    fn checked_own_dir(
        &self,
        path: Option<&Path>,
        cloning: bool,
    ) -> Result<Option<PathBuf>, ProjectError> {
        let own_dir = match path {
            Some(p) if p.is_absolute() => Some(p.to_path_buf()),
            Some(p) => Some(std::env::current_dir().map_err(io_error(p))?.join(p)),
            None => None,
        };
        if let Some(dir) = &own_dir
            && cloning
            && !repo::is_missing_or_empty(dir)
        {
            return Err(ProjectError::Invalid(format!(
                "{} is not empty; a repository is cloned only into a new or empty directory",
                dir.display()
            )));
        }
        if let Some(dir) = &own_dir {
            self.check_own_dir(dir)?;
        }
        Ok(own_dir)
    }

    /// Claims the slug: makes its metadata folder, which must not exist yet.
    fn claim(&self, slug: &str) -> Result<PathBuf, ProjectError> {
        std::fs::create_dir_all(self.projects_dir()).map_err(io_error(&self.projects_dir()))?;
        let meta_dir = self.meta_dir(slug);
        // create_dir (not _all) is the atomic claim on the slug.
        match std::fs::create_dir(&meta_dir) {
            Ok(()) => Ok(meta_dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                Err(ProjectError::Exists(slug.to_owned()))
            }
            Err(e) => Err(io_error(&meta_dir)(e)),
        }
    }

    /// A directory of the user's own for a new project: its parent must exist, and no other
    /// project may run in it (two projects on one directory share one transcript folder, so
    /// deleting either would take the other's chats).
    fn check_own_dir(&self, dir: &Path) -> Result<(), ProjectError> {
        if dir.exists() && !dir.is_dir() {
            return Err(ProjectError::Invalid(format!(
                "{} is a file, not a folder: --path takes the project's folder (made when missing)",
                dir.display()
            )));
        }
        let resolved = match std::fs::canonicalize(dir) {
            Ok(d) => d,
            Err(_) => {
                let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
                match parent.map(std::fs::canonicalize) {
                    Some(Ok(p)) => p.join(dir.file_name().unwrap_or_default()),
                    _ => {
                        return Err(ProjectError::Invalid(format!(
                            "{} cannot be made: its parent folder does not exist; create it first or give another --path",
                            dir.display()
                        )));
                    }
                }
            }
        };
        if let Some(other) = self.list()?.into_iter().find(|p| p.agent_dir == resolved) {
            let name = if other.slug.is_empty() {
                "the root workspace".to_owned()
            } else {
                format!("project {}", other.slug)
            };
            return Err(ProjectError::Invalid(format!(
                "{} is already {name}'s directory, and a directory belongs to one project; use that project (`paddock send -p {}`), or give another --path",
                resolved.display(),
                other.slug
            )));
        }
        Ok(())
    }
}

/// Builds the error for an I/O failure on `path`.
fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ProjectError {
    let path = path.to_path_buf();
    move |source| ProjectError::Io { path, source }
}

/// A project file with only the new project's name, summary and area, trimmed and within
/// their limits (blank: none).
fn checked_texts(new: &NewProject) -> Result<ProjectFile, ProjectError> {
    let text =
        |s: &Option<String>, what: &str, max: usize| -> Result<Option<String>, ProjectError> {
            match s.as_deref().map(str::trim) {
                None | Some("") => Ok(None),
                Some(v) => check_text(v, what, max).map(|()| Some(v.to_owned())),
            }
        };
    Ok(ProjectFile {
        name: text(&new.name, "name", NAME_MAX)?,
        summary: text(&new.summary, "summary", SUMMARY_MAX)?,
        area: text(&new.area, "area", NAME_MAX)?,
        ..ProjectFile::default()
    })
}

/// Removes what a failed create made: the clone (a directory that was there before is only
/// emptied) and the slug's metadata folder.
fn undo(meta_dir: &Path, clone_into: Option<(&Path, bool)>) {
    if let Some((dir, existed)) = clone_into {
        repo::undo_clone(dir, existed);
    }
    let _ = std::fs::remove_dir_all(meta_dir);
}

/// Where the agents will run: clones the repository (into the user's directory, or a checkout
/// in the metadata folder), or makes the user's own directory. Returns the clone's directory
/// and whether it was there before; on failure, what was made is undone.
fn make_agent_dir(
    meta_dir: &Path,
    repo_url: Option<&str>,
    own_dir: Option<&Path>,
    limit: std::time::Duration,
) -> Result<Option<(PathBuf, bool)>, ProjectError> {
    if let Some(url) = repo_url {
        let (dest, existed) = match own_dir {
            Some(dir) => (dir.to_path_buf(), dir.exists()),
            None => (meta_dir.join(repo::checkout_name(url)), false),
        };
        if let Err(e) = repo::clone(url, &dest, limit) {
            undo(meta_dir, Some((&dest, existed)));
            return Err(e);
        }
        return Ok(Some((dest, existed)));
    }
    if let Some(dir) = own_dir
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        undo(meta_dir, None);
        return Err(io_error(dir)(e));
    }
    if own_dir.is_none()
        && let Err(e) = super::layout::create(meta_dir)
    {
        undo(meta_dir, None);
        return Err(io_error(meta_dir)(e));
    }
    Ok(None)
}

/// Writes `project.toml`, naming the user's own directory (resolved) when there is one.
fn write_project_file(
    meta_dir: &Path,
    file: &mut ProjectFile,
    own_dir: Option<&Path>,
) -> Result<(), ProjectError> {
    if let Some(dir) = own_dir {
        file.path = Some(std::fs::canonicalize(dir).map_err(io_error(dir))?);
    }
    let file_path = meta_dir.join(PROJECT_FILE);
    toml::to_string(file)
        .map_err(|e| ProjectError::Corrupt {
            path: file_path.clone(),
            message: e.to_string(),
        })
        .and_then(|text| {
            crate::fsutil::write_atomic(&file_path, text.as_bytes()).map_err(io_error(&file_path))
        })
}

/// What a new project is made with (`project:create`).
#[derive(Debug, Clone, Default)]
pub struct NewProject {
    /// Where its agents run; default: its data folder (or a checkout inside it).
    pub path: Option<PathBuf>,
    /// A repository to clone.
    pub repo: Option<String>,
    pub name: Option<String>,
    pub summary: Option<String>,
    pub area: Option<String>,
    pub status: Option<ProjectStatus>,
    /// How long the clone may take ([`repo::CLONE_LIMIT`] when absent).
    pub clone_limit: Option<std::time::Duration>,
}
