//! The claude binary's release, checked before it runs a turn: once per binary (its path,
//! size and modification time, so an upgrade in place is checked again), with
//! `claude --version`, asked as the daemon starts so the first turn need not wait (a turn waits
//! at most [`TURN_WAIT`] for a binary not seen before). A release older than
//! [`MIN_CLAUDE_VERSION`] is refused with a notice that names the minimum and how to upgrade; a
//! binary whose version cannot be read is let run (starting it says what is wrong, if anything
//! is).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use tokio::sync::watch;
use tokio_util::task::TaskTracker;

use crate::claude_version::{self, MIN_CLAUDE_VERSION, PROBE_TIMEOUT, UPGRADE, Version};

/// Binaries remembered; past this the memory starts afresh (a daemon sees one or two).
const REMEMBERED: usize = 64;

/// The longest a turn waits for a binary's first `--version`: a loaded machine can take many
/// seconds to start a 400 MB binary. Past this the turn runs, and the answer, when it comes,
/// counts for the next turns.
pub const TURN_WAIT: Duration = Duration::from_secs(2);

/// Which binary a check was for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    path: PathBuf,
    len: u64,
    modified: Option<SystemTime>,
}

/// What is known of one binary: `None` until its probe has answered, then its version (or
/// `None` inside when it could not be read).
type Known = watch::Receiver<Option<Option<Version>>>;

/// The releases of the binaries the runner has started, by binary.
pub struct Releases {
    seen: Mutex<HashMap<Key, Known>>,
    /// Where the probes run, so the daemon's shutdown waits for them.
    tasks: TaskTracker,
}

impl Releases {
    pub fn new(tasks: TaskTracker) -> Self {
        Self {
            seen: Mutex::default(),
            tasks,
        }
    }

    /// Starts finding out `bin`'s release now (at the daemon's start), so the first turn need
    /// not wait for it.
    pub async fn warm(&self, bin: &Path, env: &[(String, String)]) {
        let _ = self.known(bin, env).await;
    }

    /// `Err` with the notice's text when `bin` (a path, or a name on the daemon's `PATH`) is a
    /// release older than the supported minimum. Waits at most [`TURN_WAIT`] for a binary not
    /// seen before.
    pub async fn check(&self, bin: &Path, env: &[(String, String)]) -> Result<(), String> {
        let Some((path, mut known)) = self.known(bin, env).await else {
            // Not there: starting it fails with its own message.
            return Ok(());
        };
        let answer = tokio::time::timeout(TURN_WAIT, known.wait_for(Option::is_some)).await;
        let version = match answer {
            Ok(Ok(v)) => v.flatten(),
            Ok(Err(_)) => None,
            Err(_) => {
                tracing::info!(
                    "{} has not said its version within {TURN_WAIT:?}; the turn runs, the next ones are checked",
                    path.display()
                );
                None
            }
        };
        match version {
            Some(v) if !v.is_supported() => Err(too_old(&path, v)),
            _ => Ok(()),
        }
    }

    /// The binary `bin` names and what is known of its release, asking it when it was not
    /// seen before (in the background: the answer arrives on the receiver).
    async fn known(&self, bin: &Path, env: &[(String, String)]) -> Option<(PathBuf, Known)> {
        let path_var = std::env::var_os("PATH");
        let path = crate::info::resolve(bin, path_var.as_deref()).ok()?;
        let m = tokio::fs::metadata(&path).await.ok()?;
        let key = Key {
            path: path.clone(),
            len: m.len(),
            modified: m.modified().ok(),
        };
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(known) = seen.get(&key) {
            return Some((path, known.clone()));
        }
        if seen.len() >= REMEMBERED {
            seen.clear();
        }
        let (tx, rx) = watch::channel(None);
        seen.insert(key, rx.clone());
        drop(seen);
        let (probe_path, env) = (path.clone(), env.to_vec());
        // Bounded by PROBE_TIMEOUT (the child is killed then), so it needs no shutdown signal.
        self.tasks.spawn(async move {
            let v = match claude_version::probe(&probe_path, &env, PROBE_TIMEOUT).await {
                Ok(v) => {
                    tracing::info!("{} is Claude Code {v}", probe_path.display());
                    Some(v)
                }
                Err(e) => {
                    tracing::warn!(
                        "cannot tell which Claude Code release {} is: {e}",
                        probe_path.display()
                    );
                    None
                }
            };
            let _ = tx.send(Some(v));
        });
        Some((path, rx))
    }
}

/// The refusal: the release found, the minimum, and how to get a newer one.
pub fn too_old(path: &Path, v: Version) -> String {
    format!(
        "{} is Claude Code {v}, older than {MIN_CLAUDE_VERSION}, the oldest release paddockd supports; \
         upgrade it (`{UPGRADE}`) or point PADDOCK_CLAUDE_BIN at a newer one, then send again",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn script(dir: &Path, name: &str, version: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\necho '{version} (Claude Code)'\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[tokio::test]
    async fn an_old_release_is_refused_once_checked_and_an_upgrade_in_place_is_checked_again() {
        let dir = tempfile::tempdir().unwrap();
        let releases = Releases::new(TaskTracker::new());
        let old = script(dir.path(), "claude", "2.1.196");
        let refusal = releases.check(&old, &[]).await.unwrap_err();
        assert!(
            refusal.contains("2.1.196") && refusal.contains(MIN_CLAUDE_VERSION),
            "{refusal}"
        );
        assert!(refusal.contains(UPGRADE), "{refusal}");
        // Replaced by a newer release (another size): checked again, and let run.
        script(dir.path(), "claude", "2.1.197-beta");
        assert!(releases.check(&old, &[]).await.is_ok());
        let new = script(dir.path(), "claude-new", "2.1.332");
        assert!(releases.check(&new, &[]).await.is_ok());
        // Unreadable versions and missing binaries are left to the start to report.
        let odd = script(dir.path(), "claude-odd", "no version here");
        assert!(releases.check(&odd, &[]).await.is_ok());
        assert!(releases.check(&dir.path().join("none"), &[]).await.is_ok());
    }
}
