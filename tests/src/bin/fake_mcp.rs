//! A minimal MCP server over stdio for tests: the user's own server in the conformance tests,
//! and the echo server of the capture recorder. The logic (tools `ping`, `echo`, `add`, `slow`)
//! is in `paddock_tests::mcp_echo`; it ends at EOF.
//!
//! With `FAKE_MCP_LOG=<file>`, every line in and out is appended to that file as
//! `{"dir":"start"|"in"|"out"|"eof","t":<unix seconds>,"pid":…,"msg":…}`.
//! `FAKE_MCP_NAME` sets the `serverInfo.name` (default `fake-mcp`).

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use paddock_tests::mcp_echo;
use serde_json::{Value, json};

struct Log(Option<std::fs::File>);

impl Log {
    fn open() -> Self {
        let file = std::env::var_os("FAKE_MCP_LOG").and_then(|path| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .ok()
        });
        Self(file)
    }

    fn write(&mut self, dir: &str, msg: &Value) {
        if let Some(file) = &mut self.0 {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or_default();
            let line = json!({"dir": dir, "t": t, "pid": std::process::id(), "msg": msg});
            // A log that cannot be written is not worth failing the server for.
            let _ = writeln!(file, "{line}");
        }
    }
}

fn main() {
    let name = std::env::var("FAKE_MCP_NAME").unwrap_or_else(|_| "fake-mcp".to_owned());
    let log = Arc::new(Mutex::new(Log::open()));
    let argv: Vec<String> = std::env::args().collect();
    lock(&log).write("start", &json!({"argv": argv}));
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        lock(&log).write("in", &msg);
        let Some(reply) = mcp_echo::handle(&msg, &name) else {
            continue;
        };
        if reply.delay.is_zero() {
            if !send(&out, &log, &reply.message) {
                break;
            }
        } else {
            // A slow call answers later, so the lines sent meanwhile (a cancellation) are
            // read and logged as they come.
            let (out, log) = (Arc::clone(&out), Arc::clone(&log));
            std::thread::spawn(move || {
                std::thread::sleep(reply.delay);
                send(&out, &log, &reply.message);
            });
        }
    }
    lock(&log).write("eof", &Value::Null);
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes one reply line; `false` once stdout is gone.
fn send(out: &Mutex<std::io::Stdout>, log: &Mutex<Log>, message: &Value) -> bool {
    lock(log).write("out", message);
    let mut out = lock(out);
    writeln!(out, "{message}")
        .and_then(|()| out.flush())
        .is_ok()
}
