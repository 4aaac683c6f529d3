//! Where the daemon listens, by DESIGN §3: both sides must agree on it without talking.

use std::path::PathBuf;

/// The socket path: `$PADDOCK_SOCKET`, else `$XDG_RUNTIME_DIR/paddock/paddockd.sock`,
/// else `/tmp/paddock-$UID/paddockd.sock`.
pub fn default_socket_path() -> PathBuf {
    if let Some(p) = std::env::var_os("PADDOCK_SOCKET").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    socket_path_for(
        std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from),
        current_uid(),
    )
}

/// The default socket path for a given runtime dir and uid (no `PADDOCK_SOCKET`).
pub fn socket_path_for(runtime_dir: Option<PathBuf>, uid: u32) -> PathBuf {
    match runtime_dir.filter(|d| d.is_absolute()) {
        Some(dir) => dir.join("paddock").join("paddockd.sock"),
        None => PathBuf::from(format!("/tmp/paddock-{uid}")).join("paddockd.sock"),
    }
}

/// The real uid of this process, read from `/proc/self/status` (this crate stays free of
/// platform crates); `u32::MAX` if it cannot be read.
fn current_uid() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|rest| rest.split_whitespace().next().map(str::to_owned))
        })
        .and_then(|uid| uid.parse().ok())
        .unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_dir_wins_over_tmp() {
        assert_eq!(
            socket_path_for(Some("/run/user/7".into()), 7),
            PathBuf::from("/run/user/7/paddock/paddockd.sock")
        );
        assert_eq!(
            socket_path_for(None, 7),
            PathBuf::from("/tmp/paddock-7/paddockd.sock")
        );
        assert_eq!(
            socket_path_for(Some("relative".into()), 7),
            PathBuf::from("/tmp/paddock-7/paddockd.sock")
        );
    }
}
