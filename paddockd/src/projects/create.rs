//! Creating a project: its folder, its `project.toml`, and the checks before anything is
//! made (a valid slug, texts within their limits, a directory no other project runs in).

use super::*;

impl Projects {
    /// Creates a project. `path`: where its agents run (created if missing); default: its
    /// metadata folder.
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
        let text =
            |s: &Option<String>, what: &str, max: usize| -> Result<Option<String>, ProjectError> {
                match s.as_deref().map(str::trim) {
                    None | Some("") => Ok(None),
                    Some(v) => check_text(v, what, max).map(|()| Some(v.to_owned())),
                }
            };
        let name = text(&new.name, "name", NAME_MAX)?;
        let summary = text(&new.summary, "summary", SUMMARY_MAX)?;
        let area = text(&new.area, "area", NAME_MAX)?;
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ProjectError::Io { path, source }
        };
        // Where a path of the user's own would be: absolute, checked before anything is made.
        let own_dir = match &new.path {
            Some(p) if p.is_absolute() => Some(p.clone()),
            Some(p) => Some(std::env::current_dir().map_err(io(p))?.join(p)),
            None => None,
        };
        if let (Some(dir), Some(_)) = (&own_dir, &repo_url)
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
        let undo = |clone_into: Option<(&Path, bool)>| {
            if let Some((dir, existed)) = clone_into {
                repo::undo_clone(dir, existed);
            }
            let _ = std::fs::remove_dir_all(&meta_dir);
        };
        let mut file = ProjectFile {
            created_at: Some(chrono::Utc::now().to_rfc3339()),
            name,
            summary,
            area,
            status: new.status,
            repo: repo_url.clone(),
            ..ProjectFile::default()
        };
        let mut cloned: Option<(PathBuf, bool)> = None;
        if let Some(url) = &repo_url {
            let (dest, existed) = match &own_dir {
                Some(dir) => (dir.clone(), dir.exists()),
                None => (meta_dir.join(repo::checkout_name(url)), false),
            };
            if let Err(e) = repo::clone(url, &dest, new.clone_limit.unwrap_or(repo::CLONE_LIMIT)) {
                undo(Some((&dest, existed)));
                return Err(e);
            }
            cloned = Some((dest, existed));
        } else if let Some(dir) = &own_dir
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            undo(None);
            return Err(io(dir)(e));
        }
        let undo_all = || undo(cloned.as_ref().map(|(d, e)| (d.as_path(), *e)));
        if let Some(dir) = &own_dir {
            match std::fs::canonicalize(dir) {
                Ok(dir) => file.path = Some(dir),
                Err(e) => {
                    undo_all();
                    return Err(io(dir)(e));
                }
            }
        }
        let file_path = meta_dir.join(PROJECT_FILE);
        let written = toml::to_string(&file)
            .map_err(|e| ProjectError::Corrupt {
                path: file_path.clone(),
                message: e.to_string(),
            })
            .and_then(|text| {
                crate::fsutil::write_atomic(&file_path, text.as_bytes()).map_err(io(&file_path))
            });
        if let Err(e) = written {
            undo_all();
            return Err(e);
        }
        self.get_blocking(slug)
    }

    /// A directory of the user's own for a new project: its parent must exist, and no other
    /// project may run in it (two projects on one directory share one transcript folder, so
    /// deleting either would take the other's chats).
    fn check_own_dir(&self, dir: &Path) -> Result<(), ProjectError> {
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
