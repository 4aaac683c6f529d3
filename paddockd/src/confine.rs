//! Where a path a request or a tool names leads, decided once for every request and tool that
//! takes one (`files:list` / `files:read`, `provenance:file` / `provenance:blame` and the
//! files their answers hash, the agents' `send_file`, a message's attachments, and the
//! curated files paddockd itself reads in a project's folder).
//!
//! [`locate`] resolves the path the way the kernel would open it (symlinks followed; for a
//! path that does not exist, its deepest existing folder resolved and the rest as named) and
//! says whether the result lies inside the project's directory (itself resolved). Two things
//! are refused whatever the caller allows:
//!
//! - paddockd's own state ([`Private`]): the data directory (all but `projects/` and
//!   `workspace/`, where projects live: tokens of the agents' MCP servers, stores, the
//!   daemon's own Claude home, attachments, the trash), the socket and its lock, the log,
//!   the configuration file and every token file it names. No request or tool reads these, not
//!   even with a person's approval;
//! - a symlink whose target does not exist (opening it later could lead anywhere).
//!
//! [`in_project`] is the confinement of a request: anything outside the project is refused.
//! `send_file` uses [`locate`] and sends a file outside the project only when a person
//! approved that call (`agent/tools.rs`). A person's attachment, which may come from anywhere,
//! goes through [`readable`]: only paddockd's own state is refused.
//!
//! What is checked is the path resolved a moment before it is opened, so a file (or a folder
//! on the way) swapped for a symlink in between would be followed: readers open what
//! [`locate`] resolved with [`open`], which checks (on Linux, through `/proc/self/fd`) that
//! the file opened is that path, and refuses it otherwise.

use std::path::{Component, Path, PathBuf};

use paddock_proto::{ErrorBody, ErrorCode};

/// How a request may name its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// Relative to the project's directory, without `..` (`files:*`).
    Relative,
    /// Relative or absolute, `.` and `..` resolved by name (`provenance:*`: the command line
    /// sends a path made absolute from the shell's folder, `..` and all).
    Lexical,
    /// Relative to the project's directory or absolute, resolved by the kernel (`send_file`:
    /// what an agent names is what its tools would open).
    Agent,
}

/// A path inside a project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confined {
    /// The project's directory, symlinks resolved.
    pub root: PathBuf,
    /// What the path leads to, symlinks resolved; it may not exist.
    pub path: PathBuf,
    /// The path as named, relative to the project's directory, `/`-separated; `""` is the
    /// directory itself. (A symlink inside keeps its own name here: records name it so.)
    pub rel: String,
}

/// Where a path leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Inside(Confined),
    /// Outside the project's directory (and not paddockd's state): the resolved path.
    Outside(PathBuf),
}

/// Why a path is refused.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("{0}: `..` is not allowed; paths are relative to the project's directory")]
    ParentDir(String),
    #[error("{0} is absolute; paths are relative to the project's directory")]
    Absolute(String),
    #[error(
        "{path} is outside the project's directory {}; name a file inside it",
        dir.display()
    )]
    Outside { path: String, dir: PathBuf },
    #[error(
        "{path} leads out of the project's directory {} (a symlink); name a file inside it",
        dir.display()
    )]
    Escapes { path: String, dir: PathBuf },
    #[error("{0} is relative; give an absolute path")]
    Relative(String),
    #[error("{0} is a symlink whose target does not exist")]
    Dangling(String),
    #[error(
        "{0} is paddockd's own state (its data, tokens or configuration); no request or tool reads it, not even with approval"
    )]
    Private(String),
    #[error("the project's directory {} cannot be read: {source}", dir.display())]
    Root {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} cannot be resolved: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

impl From<Refused> for ErrorBody {
    fn from(r: Refused) -> Self {
        let code = match &r {
            Refused::Root { .. } => ErrorCode::NotFound,
            Refused::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                ErrorCode::NotFound
            }
            _ => ErrorCode::InvalidArgument,
        };
        ErrorBody::new(code, r.to_string())
    }
}

/// paddockd's own state: the folders and files no request or tool reads.
#[derive(Debug, Clone, Default)]
pub struct Private {
    /// Everything under these is private (each as given and resolved)...
    roots: Vec<PathBuf>,
    /// ...but what is under these...
    open: Vec<PathBuf>,
    /// ...and, in each project's metadata folder, its agents' folder: in a folder whose every
    /// child is a metadata folder (`<data>/projects`), or in a metadata folder itself
    /// (`<data>/workspace`), a directory at the top whose name does not start with `.` (a
    /// notebook's `work/`, a repository's checkout). The rest of a metadata folder
    /// (`project.toml`, `.chats/`, `.paddock/`, the curated files, anything added later) is
    /// paddockd's.
    meta_parents: Vec<PathBuf>,
    meta_dirs: Vec<PathBuf>,
}

impl Private {
    /// Everything under `roots` is private but what is under `open` (each as given and
    /// resolved). The daemon's comes from [`crate::Config::private_state`].
    pub fn new(roots: Vec<PathBuf>, open: Vec<PathBuf>) -> Self {
        Self {
            roots: given_and_resolved(roots),
            open: given_and_resolved(open),
            meta_parents: Vec::new(),
            meta_dirs: Vec::new(),
        }
    }

    /// Opens the agents' folder of each metadata folder in `parents` (each child a project's)
    /// and of each of `dirs` (see the fields).
    pub fn with_agent_folders(mut self, parents: Vec<PathBuf>, dirs: Vec<PathBuf>) -> Self {
        self.meta_parents = given_and_resolved(parents);
        self.meta_dirs = given_and_resolved(dirs);
        self
    }

    /// Whether a resolved path is paddockd's own state.
    pub fn holds(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| path.starts_with(r))
            && !self.open.iter().any(|o| path.starts_with(o))
            && !self.in_agents_folder(path)
    }

    /// Whether `path` is in (or is) the agents' folder of a metadata folder.
    fn in_agents_folder(&self, path: &Path) -> bool {
        let agents = |meta: &Path, rest: &Path| {
            let Some(Component::Normal(name)) = rest.components().next() else {
                return false;
            };
            !name.as_encoded_bytes().starts_with(b".")
                && std::fs::symlink_metadata(meta.join(name)).is_ok_and(|m| m.is_dir())
        };
        self.meta_dirs
            .iter()
            .any(|m| path.strip_prefix(m).is_ok_and(|rest| agents(m, rest)))
            || self.meta_parents.iter().any(|p| {
                path.strip_prefix(p).is_ok_and(|rest| {
                    let mut parts = rest.components();
                    match parts.next() {
                        Some(Component::Normal(slug)) => agents(&p.join(slug), parts.as_path()),
                        _ => false,
                    }
                })
            })
    }
}

/// Each path normalized, and also resolved where that differs.
fn given_and_resolved(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        let p = normalize(&p);
        if let Ok(real) = std::fs::canonicalize(&p)
            && real != p
        {
            out.push(real);
        }
        out.push(p);
    }
    out
}

/// The confinement of a request: `raw`, named as `naming` says, inside the project's
/// directory `root`, or refused.
pub fn in_project(
    private: &Private,
    root: &Path,
    raw: &str,
    naming: Naming,
) -> Result<Confined, Refused> {
    match locate(private, root, raw, naming)? {
        Place::Inside(c) => Ok(c),
        Place::Outside(_) => Err(Refused::Escapes {
            path: raw.to_owned(),
            dir: root.to_path_buf(),
        }),
    }
}

/// Where `raw` leads from the project's directory `root`: inside it, outside it, or refused
/// (a form `naming` does not take, paddockd's own state, a dangling symlink).
pub fn locate(private: &Private, root: &Path, raw: &str, naming: Naming) -> Result<Place, Refused> {
    let real_root = std::fs::canonicalize(root).map_err(|source| Refused::Root {
        dir: root.to_path_buf(),
        source,
    })?;
    let given = Path::new(raw);
    // The path as named (absolute), and its part inside the project by name, if any.
    let named = match naming {
        Naming::Relative => {
            for c in given.components() {
                match c {
                    Component::ParentDir => return Err(Refused::ParentDir(raw.to_owned())),
                    Component::RootDir | Component::Prefix(_) => {
                        return Err(Refused::Absolute(raw.to_owned()));
                    }
                    Component::Normal(_) | Component::CurDir => {}
                }
            }
            normalize(&real_root.join(given))
        }
        Naming::Lexical => normalize(&root.join(given)),
        Naming::Agent => root.join(given),
    };
    let rel = [root, real_root.as_path()].iter().find_map(|r| {
        normalize(&named)
            .strip_prefix(normalize(r))
            .ok()
            .map(slashed)
    });
    if naming == Naming::Lexical && rel.is_none() {
        // By name it is elsewhere; refused before anything is resolved.
        return Err(Refused::Outside {
            path: raw.to_owned(),
            dir: root.to_path_buf(),
        });
    }
    let path = not_private(private, &named, raw)?;
    if !path.starts_with(&real_root) {
        return Ok(Place::Outside(path));
    }
    let rel = match rel {
        Some(rel) => rel,
        // Named from outside (`send_file` of `../demo/x`, an absolute path through a
        // symlinked folder) but it lands inside: its name is where it lands.
        None => path
            .strip_prefix(&real_root)
            .map(slashed)
            .unwrap_or_default(),
    };
    Ok(Place::Inside(Confined {
        root: real_root,
        path,
        rel,
    }))
}

/// Opens `path`, a path [`locate`] resolved, and makes sure the file opened is the one at
/// that path: a symlink swapped in after the check is refused, never followed.
pub fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::File::open(path)?;
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd as _;
        let opened = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
        if opened != path {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "{} changed while it was opened (it led to {}); nothing was read",
                    path.display(),
                    opened.display()
                ),
            ));
        }
    }
    Ok(file)
}

/// Opens one of paddockd's own files in a project's metadata folder (`OVERVIEW.md`,
/// `CHANGELOG.md`: the preload, `project:overview`), never through a symlink that leads out
/// of that folder (a notebook's agents run in it and could plant one).
pub fn open_own(path: &Path) -> std::io::Result<std::fs::File> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::ErrorKind::NotFound.into());
    };
    match in_project(
        &Private::default(),
        dir,
        &name.to_string_lossy(),
        Naming::Relative,
    ) {
        Ok(c) => open(&c.path),
        Err(Refused::Io { source, .. } | Refused::Root { source, .. }) => Err(source),
        Err(e) => Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            e.to_string(),
        )),
    }
}

/// A file a person names by an absolute path, with no project to confine it to (an
/// attachment): resolved, and refused when it is paddockd's own state.
pub fn readable(private: &Private, raw: &str) -> Result<PathBuf, Refused> {
    let given = Path::new(raw);
    if !given.is_absolute() {
        return Err(Refused::Relative(raw.to_owned()));
    }
    not_private(private, given, raw)
}

/// `named` resolved, unless it (as named or resolved) is paddockd's own state.
fn not_private(private: &Private, named: &Path, raw: &str) -> Result<PathBuf, Refused> {
    let path = resolve(named, raw)?;
    if private.holds(&path) || private.holds(&normalize(named)) {
        return Err(Refused::Private(raw.to_owned()));
    }
    Ok(path)
}

/// `path` with its symlinks resolved; for a path that does not exist, its deepest existing
/// ancestor resolved and the rest appended (none of which may be a dangling symlink).
fn resolve(path: &Path, raw: &str) -> Result<PathBuf, Refused> {
    let io = |source| Refused::Io {
        path: raw.to_owned(),
        source,
    };
    match std::fs::canonicalize(path) {
        Ok(real) => return Ok(real),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    let mut missing = Vec::new();
    let mut at = path.to_path_buf();
    loop {
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Refused::Dangling(raw.to_owned()));
        }
        let Some(name) = at.file_name().map(ToOwned::to_owned) else {
            return Err(io(std::io::ErrorKind::NotFound.into()));
        };
        missing.push(name);
        if !at.pop() {
            return Err(io(std::io::ErrorKind::NotFound.into()));
        }
        match std::fs::canonicalize(&at) {
            Ok(mut real) => {
                real.extend(missing.iter().rev());
                return Ok(normalize(&real));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(e)),
        }
    }
}

/// `path` with `.` and `..` resolved by name.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A relative path as `a/b/c`.
fn slashed(rel: &Path) -> String {
    rel.components()
        .filter_map(|c| c.as_os_str().to_str())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    struct Fixture {
        _tmp: tempfile::TempDir,
        root: PathBuf,
        outside: PathBuf,
        private: Private,
    }

    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("proj");
        let outside = base.join("outside");
        let data = base.join("data");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(data.join("state")).unwrap();
        std::fs::create_dir_all(data.join("projects/nb")).unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::write(outside.join("s.txt"), "s").unwrap();
        std::fs::write(data.join("state/t.json"), "t").unwrap();
        std::os::unix::fs::symlink(outside.join("s.txt"), root.join("out")).unwrap();
        std::os::unix::fs::symlink("a.txt", root.join("in")).unwrap();
        std::os::unix::fs::symlink(root.join("nowhere"), root.join("dangling")).unwrap();
        std::os::unix::fs::symlink(data.join("state"), root.join("state")).unwrap();
        let private = Private::new(vec![data.clone()], vec![data.join("projects")]);
        Fixture {
            _tmp: tmp,
            root,
            outside,
            private,
        }
    }

    #[test]
    fn requests_stay_inside_whatever_the_path_says() {
        let f = fixture();
        let ok = |raw: &str, naming| in_project(&f.private, &f.root, raw, naming);
        for naming in [Naming::Relative, Naming::Lexical, Naming::Agent] {
            assert_eq!(ok("a.txt", naming).unwrap().rel, "a.txt");
            let inside = ok("in", naming).unwrap();
            assert_eq!(
                (inside.rel.as_str(), inside.path.clone()),
                ("in", f.root.join("a.txt"))
            );
            // A file that does not exist (yet, or any more) is still placed.
            assert_eq!(
                ok("sub/gone.txt", naming).unwrap().path,
                f.root.join("sub/gone.txt")
            );
            assert!(matches!(ok("out", naming), Err(Refused::Escapes { .. })));
            assert!(matches!(ok("dangling", naming), Err(Refused::Dangling(_))));
            assert!(matches!(
                ok("state/t.json", naming),
                Err(Refused::Private(_))
            ));
        }
        assert!(matches!(
            ok("sub/../a.txt", Naming::Relative),
            Err(Refused::ParentDir(_))
        ));
        assert!(matches!(
            ok("/etc/passwd", Naming::Relative),
            Err(Refused::Absolute(_))
        ));
        assert_eq!(ok("sub/../a.txt", Naming::Lexical).unwrap().rel, "a.txt");
        let abs = f.root.join("a.txt").to_string_lossy().into_owned();
        assert_eq!(ok(&abs, Naming::Lexical).unwrap().rel, "a.txt");
        assert!(matches!(
            ok("../outside/s.txt", Naming::Lexical),
            Err(Refused::Outside { .. })
        ));
        assert!(matches!(
            ok("../outside/s.txt", Naming::Agent),
            Err(Refused::Escapes { .. })
        ));
    }

    #[test]
    fn open_refuses_a_path_swapped_for_a_symlink_after_the_check() {
        let f = fixture();
        let checked = in_project(&f.private, &f.root, "a.txt", Naming::Relative).unwrap();
        assert!(open(&checked.path).is_ok());
        std::fs::remove_file(&checked.path).unwrap();
        std::os::unix::fs::symlink(f.outside.join("s.txt"), &checked.path).unwrap();
        let e = open(&checked.path).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied, "{e}");
    }

    #[test]
    fn an_agent_may_name_a_file_outside_but_never_paddockds_state() {
        let f = fixture();
        let at = |raw: &str| locate(&f.private, &f.root, raw, Naming::Agent);
        assert_eq!(
            at("../outside/s.txt").unwrap(),
            Place::Outside(f.outside.join("s.txt"))
        );
        assert_eq!(at("out").unwrap(), Place::Outside(f.outside.join("s.txt")));
        let data = f.root.parent().unwrap().join("data");
        let token = data.join("state/t.json").to_string_lossy().into_owned();
        assert!(matches!(at(&token), Err(Refused::Private(_))));
        assert!(matches!(
            at("../data/state/t.json"),
            Err(Refused::Private(_))
        ));
        // A project inside the data directory is not private.
        let nb = data.join("projects/nb");
        std::fs::write(nb.join("n.md"), "n").unwrap();
        let inside = in_project(&f.private, &nb, "n.md", Naming::Relative).unwrap();
        assert_eq!(inside.rel, "n.md");
    }
}
