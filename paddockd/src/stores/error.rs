//! What can go wrong with a sidecar store, said so the reader knows what to do.
//!
//! Reading never fails (a missing file is empty, a corrupt one is moved aside), so every
//! error here is about creating the state folder or saving a change. A change that fails
//! to save is not applied: the in-memory state stays as it was.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "cannot create the state folder {}: {source}; check that its parent exists and \
         that the daemon's user may write there",
        path.display()
    )]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "cannot save {}: {source}; the change was not applied. Check free disk space and \
         that the daemon's user may write to that folder, then retry",
        path.display()
    )]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "cannot encode the contents of {} as JSON: {source}; the change was not applied. \
         This is a bug in paddockd, please report it",
        path.display()
    )]
    Encode {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error(
        "saving {} was interrupted ({reason}); the change was not applied. Retry it; if \
         the daemon is shutting down, retry after it restarts",
        path.display()
    )]
    Interrupted { path: PathBuf, reason: String },
}
