//! Paths as provenance records them: relative to the project's directory when inside it.

use std::path::{Component, Path, PathBuf};

/// A path as recorded: relative to the project's directory (`/`-separated, `.` and `..`
/// resolved) when it leads inside it, else the absolute path it really leads to: a write
/// through a link `out -> /elsewhere` is recorded as `/elsewhere/x`, never as the project's
/// `out/x` (`confine::locate`). A path that cannot be resolved is recorded by name.
pub fn rel_path(agent_dir: &Path, raw: &str) -> String {
    use crate::confine::{Naming, Place, Private};
    match crate::confine::locate(&Private::default(), agent_dir, raw, Naming::Agent) {
        Ok(Place::Inside(c)) => return c.rel,
        Ok(Place::Outside(path)) => return path.to_string_lossy().into_owned(),
        Err(_) => {}
    }
    let joined = agent_dir.join(raw);
    let clean = normalize(&joined);
    let inside = |dir: &Path| {
        clean
            .strip_prefix(normalize(dir))
            .ok()
            .map(Path::to_path_buf)
    };
    let rel = inside(agent_dir).or_else(|| {
        std::fs::canonicalize(agent_dir)
            .ok()
            .and_then(|canon| inside(&canon))
    });
    match rel {
        Some(rel) => rel
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .collect::<Vec<_>>()
            .join("/"),
        None => clean.to_string_lossy().into_owned(),
    }
}

pub(super) fn abs_path(agent_dir: &Path, recorded: &str) -> PathBuf {
    agent_dir.join(recorded)
}

pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}
