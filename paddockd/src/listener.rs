//! The Unix socket: a 0700 folder, a 0600 socket, one daemon per socket.
//!
//! Order matters: take the lock first (so two starting daemons cannot both decide a socket
//! is stale), then replace a socket file only if nothing answers on it, then bind.

use std::fs::File;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use interprocess::local_socket::tokio::Listener;
use interprocess::local_socket::{GenericFilePath, ListenerOptions, ToFsName};
use interprocess::os::unix::local_socket::ListenerOptionsExt;

#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    #[error("another paddockd is already serving {0}; stop it with `paddock daemon stop`")]
    AlreadyRunning(PathBuf),
    #[error(
        "socket folder {dir} belongs to uid {owner}, not to you (uid {me}); choose another socket path"
    )]
    ForeignDir { dir: PathBuf, owner: u32, me: u32 },
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The bound socket and the lock that makes it ours. Dropping it removes the socket file.
pub struct Bound {
    pub listener: Listener,
    pub path: PathBuf,
    _lock: File,
}

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> ListenError {
    let path = path.to_path_buf();
    move |source| ListenError::Io { what, path, source }
}

pub fn bind(socket: &Path) -> Result<Bound, ListenError> {
    let dir = socket.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(dir).map_err(io("cannot create socket folder", dir))?;
    let meta = std::fs::metadata(dir).map_err(io("cannot inspect socket folder", dir))?;
    let me = rustix::process::getuid().as_raw();
    if meta.uid() != me {
        return Err(ListenError::ForeignDir {
            dir: dir.to_path_buf(),
            owner: meta.uid(),
            me,
        });
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(io("cannot make socket folder private", dir))?;

    let lock_path = socket.with_extension("lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io("cannot open lock file", &lock_path))?;
    if rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err() {
        return Err(ListenError::AlreadyRunning(socket.to_path_buf()));
    }

    if socket.exists() {
        if std::os::unix::net::UnixStream::connect(socket).is_ok() {
            return Err(ListenError::AlreadyRunning(socket.to_path_buf()));
        }
        tracing::info!("replacing stale socket {}", socket.display());
        std::fs::remove_file(socket).map_err(io("cannot remove stale socket", socket))?;
    }
    let name = socket
        .to_fs_name::<GenericFilePath>()
        .map_err(io("invalid socket path", socket))?;
    let listener = ListenerOptions::new()
        .name(name)
        .mode(0o600)
        .create_tokio()
        .map_err(io("cannot listen on", socket))?;
    Ok(Bound {
        listener,
        path: socket.to_path_buf(),
        _lock: lock,
    })
}
