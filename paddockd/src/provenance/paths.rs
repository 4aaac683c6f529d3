//! Paths as provenance records them: relative to the project's directory when inside it.

use std::path::{Component, Path, PathBuf};

/// A path as recorded: relative to the project's directory (`/`-separated, `.` and `..`
/// resolved lexically) when inside it, else absolute.
pub fn rel_path(agent_dir: &Path, raw: &str) -> String {
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
