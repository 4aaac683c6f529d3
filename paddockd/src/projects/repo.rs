//! Repo-backed projects: which repository addresses are accepted, the checkout's folder name,
//! and the clone itself (`git clone` with an argument vector, no shell, no prompt, within a
//! time limit, through [`crate::child`]), undone when it fails.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::ProjectError;

/// How long a clone may take before it is stopped (with git's whole process group).
pub const CLONE_LIMIT: Duration = Duration::from_secs(600);

/// The longest repository address accepted.
const URL_MAX: usize = 1024;

/// How much of git's own message an error carries (its end).
const STDERR_TAIL: usize = 2000;

/// Files of a project's data folder that a checkout's name must not take.
const RESERVED: &[&str] = &[
    "project.toml",
    "OVERVIEW.md",
    "CHANGELOG.md",
    "CLAUDE.md",
    "CLAUDE.notebook.md",
    super::layout::WORK_DIR,
];

/// Checks a repository address and returns it trimmed: `https://`, `http://`, `ssh://`,
/// `git://`, `file://` URLs, `git@host:owner/repo`, or an absolute path on this machine.
pub fn check_url(url: &str) -> Result<String, ProjectError> {
    let u = url.trim();
    let bad = |why: &str| {
        ProjectError::Invalid(format!(
            "{u:?} is not a repository address ({why}): use an https://, ssh://, git:// or file:// URL, git@host:owner/repo, or an absolute path"
        ))
    };
    if u.is_empty() {
        return Err(bad("it is empty"));
    }
    if u.len() > URL_MAX {
        return Err(bad("it is too long"));
    }
    if u.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(bad("it holds spaces or control characters"));
    }
    let schemes = ["https://", "http://", "ssh://", "git://", "file://"];
    let lower = u.to_ascii_lowercase();
    let scheme_ok = schemes
        .iter()
        .any(|s| lower.starts_with(s) && u.len() > s.len());
    let scp_ok = u
        .strip_prefix("git@")
        .and_then(|rest| rest.split_once(':'))
        .is_some_and(|(host, path)| !host.is_empty() && !host.contains('/') && !path.is_empty());
    let path_ok = u.starts_with('/');
    if scheme_ok || scp_ok || path_ok {
        Ok(u.to_owned())
    } else {
        Err(bad("unknown form"))
    }
}

/// The folder a repository is checked out in inside a project's data folder: the
/// repository's own name without `.git`, made safe (`[A-Za-z0-9._-]`, no leading dot or
/// dash); `repo` when nothing is left.
pub fn checkout_name(url: &str) -> String {
    let trimmed = url.trim().trim_end_matches('/');
    let trimmed = trimmed
        .strip_suffix(".git")
        .or_else(|| trimmed.strip_suffix(".GIT"))
        .unwrap_or(trimmed)
        .trim_end_matches('/');
    let base = trimmed.rsplit(['/', ':']).next().unwrap_or("");
    let safe: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let safe = safe
        .trim_start_matches(['.', '-'])
        .trim_end_matches(['.', '-']);
    if safe.is_empty() {
        "repo".to_owned()
    } else if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(safe)) {
        format!("{safe}-repo")
    } else {
        safe.to_owned()
    }
}

/// Whether `dir` does not exist, or is an empty directory.
pub fn is_missing_or_empty(dir: &Path) -> bool {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_none(),
        Err(e) => e.kind() == std::io::ErrorKind::NotFound && !dir.is_symlink(),
    }
}

/// `url` with any password in it (`https://user:secret@host/...`) masked, for logs and
/// messages.
pub fn shown(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let host_end = rest.find('/').unwrap_or(rest.len());
    match rest[..host_end].rfind('@') {
        Some(at) if rest[..at].contains(':') => {
            let user = rest[..at].split(':').next().unwrap_or("");
            format!("{scheme}://{user}:***@{}", &rest[at + 1..])
        }
        _ => url.to_owned(),
    }
}

/// Clones `url` into `dest` (which must not exist, or be empty). Blocking.
pub fn clone(url: &str, dest: &Path, limit: Duration) -> Result<(), ProjectError> {
    let shown_url = shown(url);
    let mut cmd = Command::new("git");
    cmd.args(["clone", "--quiet", "--", url])
        .arg(dest)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    // ssh must not ask either (a passphrase, an unknown host key): it fails instead.
    if std::env::var_os("GIT_SSH_COMMAND").is_none() && std::env::var_os("GIT_SSH").is_none() {
        cmd.env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
    }
    tracing::info!(repo = %shown_url, into = %dest.display(), "cloning");
    let started = std::time::Instant::now();
    let out = crate::child::output_within(&mut cmd, None, limit).map_err(|e| match e {
        crate::child::RunError::Spawn(e) if e.kind() == std::io::ErrorKind::NotFound => {
            ProjectError::Clone("cannot clone: git is not installed (or not on PATH)".into())
        }
        other => ProjectError::Clone(format!("git clone of {shown_url} failed: {other}")),
    })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stderr = stderr.trim();
        let tail = match stderr.char_indices().rev().nth(STDERR_TAIL) {
            Some((at, _)) => &stderr[at..],
            None => stderr,
        };
        tracing::warn!(repo = %shown_url, "clone failed: {tail}");
        return Err(ProjectError::Clone(format!(
            "git clone of {shown_url} failed: {}",
            if tail.is_empty() {
                "git said nothing"
            } else {
                tail
            }
        )));
    }
    tracing::info!(repo = %shown_url, elapsed_ms = started.elapsed().as_millis(), "cloned");
    Ok(())
}

/// Undoes a clone into `dest`: removes it, or, when it existed before (empty), what is in it
/// now. Symlinks are removed, never followed. Failures are logged.
pub fn undo_clone(dest: &Path, existed: bool) {
    let result = if existed {
        std::fs::read_dir(dest).and_then(|entries| {
            for entry in entries.flatten() {
                let path = entry.path();
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if is_dir {
                    std::fs::remove_dir_all(&path)?;
                } else {
                    std::fs::remove_file(&path)?;
                }
            }
            Ok(())
        })
    } else {
        match std::fs::remove_dir_all(dest) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    };
    if let Err(e) = result {
        tracing::warn!(path = %dest.display(), "cannot undo a failed clone: {e}");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn addresses_are_checked_and_named() {
        for ok in [
            "https://github.com/ana/webapp.git",
            "ssh://git@host/x/y",
            "git@github.com:ana/notes.git",
            "file:///srv/git/a.git",
            "/srv/git/a.git",
        ] {
            assert!(check_url(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "--upload-pack=evil",
            "ext::sh -c x",
            "webapp",
            "https://",
            "git@:x",
            "a b",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
        assert_eq!(checkout_name("https://github.com/ana/webapp.git"), "webapp");
        assert_eq!(checkout_name("git@github.com:ana/notes.git/"), "notes");
        assert_eq!(checkout_name("/srv/git/.hidden.git"), "hidden");
        assert_eq!(checkout_name("https://x/"), "x");
        assert_eq!(checkout_name("/srv/project.toml"), "project.toml-repo");
        assert_eq!(checkout_name("/"), "repo");
        assert_eq!(
            shown("https://ana:s3cret@github.com/ana/x.git"),
            "https://ana:***@github.com/ana/x.git"
        );
        assert_eq!(
            shown("https://ana@github.com/ana/x.git"),
            "https://ana@github.com/ana/x.git"
        );
        assert_eq!(
            shown("git@github.com:ana/x.git"),
            "git@github.com:ana/x.git"
        );
    }
}
