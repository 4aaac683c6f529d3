//! stdout of `fake-claude`: one JSON object per line, flushed at once, never interleaved.

use std::io::Write as _;

use serde_json::Value;

/// Writes one JSON line to stdout. If stdout is gone (the host closed the pipe) there is no one
/// left to talk to: exit like a CLI killed by SIGPIPE would, quietly, with status 1.
pub fn emit(line: &Value) {
    emit_raw(&line.to_string());
}

/// Writes one raw line (no JSON check) to stdout.
pub fn emit_raw(line: &str) {
    let mut out = std::io::stdout().lock();
    let written = out
        .write_all(line.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    if written.is_err() {
        std::process::exit(1);
    }
}

/// Writes to stderr, ignoring failures.
pub fn emit_stderr(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
    let _ = err.flush();
}

/// `2026-11-29T22:52:10.932Z`, the CLI's timestamp format.
pub fn now_timestamp() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// A fresh v4 uuid as a string.
pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}
