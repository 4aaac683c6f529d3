//! Crash points for the crash-safety tests: `PADDOCK_FAILPOINT=NAME` makes the daemon stop
//! dead where [`reached`] is called with that name — it writes `PADDOCK_FAILPOINT_MARK` (a
//! path) to say it is there and then waits forever — so a test can SIGKILL it at exactly
//! that step and check that the next start finishes or undoes what was half done. Unset (as
//! always outside those tests), a point costs one environment read.

/// Stops here, forever, when `PADDOCK_FAILPOINT` names this point.
pub async fn reached(name: &str) {
    if stops_at(name) {
        std::future::pending::<()>().await;
    }
}

/// [`reached`], in blocking code (the thread sleeps forever).
pub fn reached_blocking(name: &str) {
    if stops_at(name) {
        loop {
            std::thread::park();
        }
    }
}

/// Whether this is the point to stop at; then says so (the log, the mark file).
fn stops_at(name: &str) -> bool {
    if std::env::var_os("PADDOCK_FAILPOINT").is_none_or(|want| want != name) {
        return false;
    }
    tracing::warn!(
        point = name,
        "stopping at a crash point (PADDOCK_FAILPOINT)"
    );
    if let Some(mark) = std::env::var_os("PADDOCK_FAILPOINT_MARK") {
        let _ = std::fs::write(mark, name);
    }
    true
}
