//! The core every sidecar shares: one JSON file, held in memory as an immutable snapshot,
//! replaced as a whole on every change.
//!
//! - **Reads** clone an `Arc` under a `std::sync::RwLock` held for a pointer copy: they
//!   never wait for IO and a snapshot of 10,000 entries costs one refcount increment.
//! - **Mutations** are serialized by an async writer lock. Under it, the closure edits a
//!   [`Draft`] (copy on first write), the new state is encoded and written with
//!   [`write_atomic`] on a blocking thread, and only then swapped in. So a change is
//!   acknowledged only once it is on disk, and a failed write leaves memory as it was.
//! - The commit (write + swap + unlock) runs to completion on the blocking thread even if
//!   the caller stops waiting, so a cancelled caller cannot leave a write half-owned or let
//!   the next writer start before the file settled.
//! - **Loading** never fails: a missing file is empty; a file that cannot be read or is
//!   not the expected JSON is moved aside as `NAME.corrupt-<UTC time>` (bytes intact) with
//!   a warning, and the store starts empty. It is never silently overwritten.

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::StoreError;
use crate::fsutil::write_atomic;

/// What a sidecar's in-memory state must be able to do.
pub(crate) trait State:
    Serialize + DeserializeOwned + Default + Clone + Send + Sync + 'static
{
}
impl<T> State for T where T: Serialize + DeserializeOwned + Default + Clone + Send + Sync + 'static {}

/// One JSON sidecar file and its in-memory snapshot. Cheap to clone (a handle).
pub(crate) struct JsonStore<T> {
    inner: Arc<Inner<T>>,
    /// Serializes mutations. Owned guards let the blocking commit hold it to the end.
    writer: Arc<tokio::sync::Mutex<()>>,
}

struct Inner<T> {
    path: PathBuf,
    state: RwLock<Arc<T>>,
}

/// A store state keyed by session id.
pub(crate) trait Keyed {
    fn has(&self, key: &str) -> bool;
    fn take(&mut self, key: &str) -> bool;
}

impl<V> Keyed for std::collections::HashMap<String, V> {
    fn has(&self, key: &str) -> bool {
        self.contains_key(key)
    }
    fn take(&mut self, key: &str) -> bool {
        self.remove(key).is_some()
    }
}

impl<V> Keyed for std::collections::BTreeMap<String, V> {
    fn has(&self, key: &str) -> bool {
        self.contains_key(key)
    }
    fn take(&mut self, key: &str) -> bool {
        self.remove(key).is_some()
    }
}

impl<T: State + Keyed> JsonStore<T> {
    /// Removes `keys` from a store keyed by session id (what `forget` means for most stores).
    /// Writes nothing when none is present. Returns how many went.
    pub(crate) async fn remove_keys(&self, keys: &[String]) -> Result<usize, StoreError> {
        self.update(|d| {
            if !keys.iter().any(|k| d.get().has(k)) {
                return 0;
            }
            let all = d.edit();
            keys.iter().filter(|k| all.take(k)).count()
        })
        .await
    }
}

impl<T> Clone for JsonStore<T> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            writer: Arc::clone(&self.writer),
        }
    }
}

impl<T> std::fmt::Debug for JsonStore<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonStore")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

/// A mutation's working copy. Reading is free; the first [`Draft::edit`] copies the state
/// (copy on write), and a draft never edited writes nothing.
pub(crate) struct Draft<T> {
    state: Arc<T>,
    edited: bool,
}

impl<T: Clone> Draft<T> {
    /// The state as it is now (with this mutation's edits so far).
    pub(crate) fn get(&self) -> &T {
        &self.state
    }

    /// The state to change. Call it only when something really changes: an edited draft
    /// is written to disk even if the edit put back what was there.
    pub(crate) fn edit(&mut self) -> &mut T {
        self.edited = true;
        Arc::make_mut(&mut self.state)
    }
}

impl<T: State> JsonStore<T> {
    /// Loads `path`; see the module docs for what happens to a missing or corrupt file.
    pub(crate) fn open(path: PathBuf) -> Self {
        remove_stale_temp_files(&path);
        let state = load::<T>(&path);
        Self {
            inner: Arc::new(Inner {
                path,
                state: RwLock::new(Arc::new(state)),
            }),
            writer: Arc::new(tokio::sync::Mutex::new(())),
        }
    }

    /// The current state. Never waits for IO.
    pub(crate) fn snapshot(&self) -> Arc<T> {
        Arc::clone(
            &self
                .inner
                .state
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// Applies `f` under the writer lock and, if it edited the draft, makes the new state
    /// durable before publishing it. Returns `f`'s result once the change is on disk. On
    /// error memory is unchanged and the file holds the old state (or, if only the final
    /// folder fsync failed, maybe the new one: never acknowledged, like a crash just
    /// before the reply).
    pub(crate) async fn update<R>(
        &self,
        f: impl FnOnce(&mut Draft<T>) -> R,
    ) -> Result<R, StoreError> {
        let guard = Arc::clone(&self.writer).lock_owned().await;
        let mut draft = Draft {
            state: self.snapshot(),
            edited: false,
        };
        let out = f(&mut draft);
        if !draft.edited {
            return Ok(out);
        }
        let next = draft.state;
        let inner = Arc::clone(&self.inner);
        let committed = tokio::task::spawn_blocking(move || {
            let _writer = guard;
            let bytes = encode(&inner.path, &*next)?;
            write_atomic(&inner.path, &bytes).map_err(|source| StoreError::Write {
                path: inner.path.clone(),
                source,
            })?;
            *inner.state.write().unwrap_or_else(PoisonError::into_inner) = next;
            Ok(())
        })
        .await;
        match committed {
            Ok(Ok(())) => Ok(out),
            Ok(Err(e)) => Err(e),
            Err(join) => Err(StoreError::Interrupted {
                path: self.inner.path.clone(),
                reason: join.to_string(),
            }),
        }
    }
}

fn encode<T: Serialize>(path: &Path, state: &T) -> Result<Vec<u8>, StoreError> {
    let mut bytes = serde_json::to_vec_pretty(state).map_err(|source| StoreError::Encode {
        path: path.to_path_buf(),
        source,
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Reads and parses `path`, moving it aside when it cannot be used.
fn load<T: State>(path: &Path) -> T {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return T::default(),
        Err(e) => {
            let aside = describe(move_aside(path, None));
            tracing::warn!(
                file = %path.display(),
                %aside,
                "cannot read a state file ({e}); the store starts empty",
            );
            return T::default();
        }
    };
    match serde_json::from_slice::<T>(&bytes) {
        Ok(state) => state,
        Err(e) => {
            let aside = describe(move_aside(path, Some(&bytes)));
            tracing::warn!(
                file = %path.display(),
                %aside,
                "a state file is corrupt ({e}); it was moved aside and the store starts empty",
            );
            T::default()
        }
    }
}

fn describe(aside: Option<PathBuf>) -> String {
    aside.map_or_else(|| "(not moved)".to_owned(), |p| p.display().to_string())
}

/// Moves `path` to a fresh `NAME.corrupt-<UTC time>` beside it and returns that name.
///
/// If the rename fails and we hold the bytes, they are copied there instead, so the next
/// write (which replaces `path`) cannot destroy the only copy. `None` when both failed.
fn move_aside(path: &Path, bytes: Option<&[u8]>) -> Option<PathBuf> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let base = format!("{name}.corrupt-{stamp}");
    // Two corruptions within one second must not overwrite each other's copy. One daemon
    // owns the folder (its lock file), so checking before renaming is race free.
    let aside = (0..1000)
        .map(|n| match n {
            0 => path.with_file_name(&base),
            n => path.with_file_name(format!("{base}-{n}")),
        })
        .find(
            |p| matches!(p.symlink_metadata(), Err(e) if e.kind() == std::io::ErrorKind::NotFound),
        )?;
    match std::fs::rename(path, &aside) {
        Ok(()) => Some(aside),
        Err(rename_err) => {
            let copied = bytes.map(|b| write_atomic(&aside, b));
            match copied {
                Some(Ok(())) => Some(aside),
                Some(Err(e)) => {
                    tracing::warn!(
                        file = %path.display(),
                        "cannot move a corrupt state file aside ({rename_err}) nor copy it ({e}); \
                         the next change will replace it"
                    );
                    None
                }
                None => {
                    tracing::warn!(
                        file = %path.display(),
                        "cannot move an unreadable state file aside ({rename_err})"
                    );
                    None
                }
            }
        }
    }
}

/// Removes temp files a killed daemon left beside `path` ([`crate::fsutil::remove_stale_temps`]).
/// They never hold acknowledged state: the rename that would have published them did not happen.
fn remove_stale_temp_files(path: &Path) {
    if let (Some(dir), Some(name)) = (path.parent(), path.file_name()) {
        crate::fsutil::remove_stale_temps(dir, &[&name.to_string_lossy()]);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::collections::BTreeMap;

    use super::*;
    use crate::fsutil::temp_prefix;
    use crate::stores::testutil::{asides, assert_clean_dir};

    type Map = BTreeMap<String, u32>;

    #[tokio::test]
    async fn a_missing_file_is_empty_and_an_unedited_draft_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        let store = JsonStore::<Map>::open(path.clone());
        assert!(store.snapshot().is_empty());
        let n = store.update(|d| d.get().len()).await.unwrap();
        assert_eq!(n, 0);
        assert!(!path.exists(), "a no-op must not create the file");
    }

    #[tokio::test]
    async fn a_failed_write_leaves_memory_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let state_dir = dir.path().join("state");
        std::fs::create_dir(&state_dir).unwrap();
        let store = JsonStore::<Map>::open(state_dir.join("m.json"));
        store
            .update(|d| d.edit().insert("a".into(), 1))
            .await
            .unwrap();
        // Works as root too: a file where the folder was makes every write fail.
        std::fs::remove_dir_all(&state_dir).unwrap();
        std::fs::write(&state_dir, b"not a folder").unwrap();
        let err = store
            .update(|d| d.edit().insert("b".into(), 2))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Write { .. }), "{err}");
        assert!(err.to_string().contains("m.json"), "{err}");
        let now = store.snapshot();
        assert_eq!(now.len(), 1);
        assert_eq!(now.get("a"), Some(&1));
    }

    #[tokio::test]
    async fn a_caller_that_stops_waiting_does_not_tear_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        let store = JsonStore::<Map>::open(path.clone());
        {
            // Poll the update once (it hands the commit to a blocking thread, which is
            // still writing when the poll returns), then drop it. Had the write already
            // finished, what follows must hold all the same.
            let mut abandoned = std::pin::pin!(store.update(|d| d.edit().insert("a".into(), 1)));
            std::future::poll_fn(|cx| {
                let _ = abandoned.as_mut().poll(cx);
                std::task::Poll::Ready(())
            })
            .await;
        }
        // The next writer waits for that commit to settle and builds on it.
        store
            .update(|d| d.edit().insert("b".into(), 2))
            .await
            .unwrap();
        assert_eq!(store.snapshot().len(), 2);
        assert_eq!(JsonStore::<Map>::open(path).snapshot().len(), 2);
        assert_clean_dir(dir.path());
    }

    #[tokio::test]
    async fn snapshots_taken_before_a_change_do_not_see_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = JsonStore::<Map>::open(dir.path().join("m.json"));
        let before = store.snapshot();
        store
            .update(|d| d.edit().insert("a".into(), 1))
            .await
            .unwrap();
        assert!(before.is_empty());
        assert_eq!(store.snapshot().len(), 1);
    }

    #[tokio::test]
    async fn an_unreadable_file_is_moved_aside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        // A folder where the file should be: reading fails with something else than
        // "not found".
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("inside"), b"x").unwrap();
        let store = JsonStore::<Map>::open(path.clone());
        assert!(store.snapshot().is_empty());
        let moved = asides(dir.path(), "m.json");
        assert_eq!(moved.len(), 1);
        assert!(moved[0].join("inside").exists());
        store
            .update(|d| d.edit().insert("a".into(), 1))
            .await
            .unwrap();
        assert!(path.is_file());
    }

    #[tokio::test]
    async fn two_corruptions_in_one_second_keep_both_copies() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        std::fs::write(&path, b"{\"half").unwrap();
        JsonStore::<Map>::open(path.clone());
        std::fs::write(&path, b"[1, 2]").unwrap();
        JsonStore::<Map>::open(path.clone());
        let mut contents: Vec<_> = asides(dir.path(), "m.json")
            .iter()
            .map(|p| std::fs::read(p).unwrap())
            .collect();
        contents.sort();
        assert_eq!(contents, vec![b"[1, 2]".to_vec(), b"{\"half".to_vec()]);
    }

    #[tokio::test]
    async fn stale_temp_files_are_removed_at_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        // Left by a writer that is gone (a child that has exited).
        let mut dead = std::process::Command::new("true").spawn().unwrap();
        let dead_pid = dead.id();
        dead.wait().unwrap();
        let stale = dir
            .path()
            .join(format!("{}{dead_pid}-0", temp_prefix("m.json")));
        std::fs::write(&stale, b"{\"torn").unwrap();
        let other = dir.path().join(format!("{}1-0", temp_prefix("other.json")));
        std::fs::write(&other, b"{}").unwrap();
        JsonStore::<Map>::open(path);
        assert!(!stale.exists());
        assert!(other.exists(), "only our own leftovers are ours to remove");
        std::fs::remove_file(other).unwrap();
        assert_clean_dir(dir.path());
    }
}
