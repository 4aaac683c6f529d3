//! Logging to a private file (0600), or to stderr.

use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use anyhow::Context;
use tracing_subscriber::EnvFilter;

pub fn init(log: &Path, to_stderr: bool) -> anyhow::Result<()> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    if to_stderr {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
        return Ok(());
    }
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create log folder {}", dir.display()))?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(log)
        .with_context(|| format!("cannot open log file {}", log.display()))?;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .init();
    Ok(())
}

/// Points this process's stderr at the log file (appending), once start-up is over: what the
/// starting client reads from it ends there, and a panic's message is kept in the log. A log
/// that cannot be opened leaves stderr as it is.
pub fn stderr_to(log: &Path) {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(log);
    match file.map(|f| rustix::stdio::dup2_stderr(&f)) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!("could not point stderr at the log: {e}"),
        Err(e) => tracing::warn!("could not open the log for stderr: {e}"),
    }
}

/// Appends why the daemon did not start to its log, in the log's own line format, whether or
/// not logging was set up (the configuration that names the log may be what was refused).
/// Best effort: a log that cannot be written leaves the message on stderr alone.
pub fn record_failure(log: &Path, reason: &str) {
    if let Some(dir) = log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(log)
    else {
        return;
    };
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let _ = std::io::Write::write_all(
        &mut file,
        format!("{now} ERROR paddockd: could not start: {reason}\n").as_bytes(),
    );
}
