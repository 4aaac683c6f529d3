//! The claude binary's release, checked before it runs a turn: once per binary (its path,
//! size and modification time, so an upgrade in place is checked again), with
//! `claude --version`. A release older than [`MIN_CLAUDE_VERSION`] is refused with a notice
//! that names the minimum and how to upgrade; a binary whose version cannot be read is let run
//! (starting it says what is wrong, if anything is).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use crate::claude_version::{self, MIN_CLAUDE_VERSION, PROBE_TIMEOUT, UPGRADE, Version};

/// Binaries remembered; past this the memory starts afresh (a daemon sees one or two).
const REMEMBERED: usize = 64;

/// Which binary a check was for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    path: PathBuf,
    len: u64,
    modified: Option<SystemTime>,
}

/// The releases of the binaries the runner has started, by binary.
#[derive(Default)]
pub struct Releases {
    seen: Mutex<HashMap<Key, Option<Version>>>,
}

impl Releases {
    /// `Err` with the notice's text when `bin` (a path, or a name on the daemon's `PATH`) is a
    /// release older than the supported minimum.
    pub async fn check(&self, bin: &Path, env: &[(String, String)]) -> Result<(), String> {
        let path_var = std::env::var_os("PATH");
        let Ok(path) = crate::info::resolve(bin, path_var.as_deref()) else {
            // Not there: starting it fails with its own message.
            return Ok(());
        };
        let key = match tokio::fs::metadata(&path).await {
            Ok(m) => Key {
                path: path.clone(),
                len: m.len(),
                modified: m.modified().ok(),
            },
            Err(_) => return Ok(()),
        };
        let known = self.lock().get(&key).copied();
        let version = match known {
            Some(v) => v,
            None => {
                let v = match claude_version::probe(&path, env, PROBE_TIMEOUT).await {
                    Ok(v) => Some(v),
                    Err(e) => {
                        tracing::warn!(
                            "cannot tell which Claude Code release {} is: {e}",
                            path.display()
                        );
                        None
                    }
                };
                if let Some(v) = v {
                    tracing::info!("{} is Claude Code {v}", path.display());
                }
                let mut seen = self.lock();
                if seen.len() >= REMEMBERED {
                    seen.clear();
                }
                seen.insert(key, v);
                v
            }
        };
        match version {
            Some(v) if !v.is_supported() => Err(too_old(&path, v)),
            _ => Ok(()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Option<Version>>> {
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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
        let releases = Releases::default();
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
