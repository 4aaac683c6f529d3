//! A minimal MCP server over stdio for tests: the user's own server in the conformance tests,
//! and the echo server of the capture recorder. The logic (tools `ping`, `echo`, `add`, `slow`)
//! is in `paddock_tests::mcp_echo`; it ends at EOF.
//!
//! With `FAKE_MCP_LOG=<file>`, every line in and out is appended to that file as
//! `{"dir":"start"|"in"|"out"|"eof","t":<unix seconds>,"pid":…,"msg":…}`.
//! `FAKE_MCP_NAME` sets the `serverInfo.name` (default `fake-mcp`).

use std::io::{BufRead, Write};

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
    let mut log = Log::open();
    let argv: Vec<String> = std::env::args().collect();
    log.write("start", &json!({"argv": argv}));
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        log.write("in", &msg);
        let Some(reply) = mcp_echo::handle(&msg, &name) else {
            continue;
        };
        if !reply.delay.is_zero() {
            std::thread::sleep(reply.delay);
        }
        log.write("out", &reply.message);
        if writeln!(out, "{}", reply.message)
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
    log.write("eof", &Value::Null);
}
