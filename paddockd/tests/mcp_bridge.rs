//! `paddockd mcp` as Claude Code runs it: the built binary on stdin/stdout pipes, against a fake
//! daemon on a temporary socket.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../src/mcp/fake_daemon.rs"]
mod fake_daemon;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use fake_daemon::{Behaviour, FakeDaemon, TOKEN};
use paddock_proto::Request;
use serde_json::{Value, json};

const DEADLINE: Duration = Duration::from_secs(20);

const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-code","title":"Claude Code","version":"2.1.332","description":"Anthropic's agentic coding tool","websiteUrl":"https://claude.com/claude-code"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"elicitation":{"form":{},"url":{}}}}}}"#;
const INITIALIZE: &str = r#"{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"claude-code","title":"Claude Code","version":"2.1.332","description":"Anthropic's agentic coding tool","websiteUrl":"https://claude.com/claude-code"}},"jsonrpc":"2.0","id":0}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const TOOLS_LIST: &str = r#"{"method":"tools/list","jsonrpc":"2.0","id":1}"#;
const TOOLS_CALL: &str = r#"{"method":"tools/call","params":{"name":"create_chat","arguments":{"prompt":"ping"},"_meta":{"claudecode/toolUseId":"toolu_mock_05b69ec0b953458c","progressToken":2}},"jsonrpc":"2.0","id":2}"#;

/// A running `paddockd mcp` with its stdout lines arriving on a channel.
struct Bridge {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Bridge {
    fn start(socket: Option<&std::path::Path>, token: Option<&str>) -> Self {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_paddockd"));
        cmd.args(["mcp", "--server", "paddock_manage"])
            .env_remove("PADDOCK_SOCKET")
            .env_remove("PADDOCK_AGENT_TOKEN")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(s) = socket {
            cmd.env("PADDOCK_SOCKET", s);
        }
        if let Some(t) = token {
            cmd.env("PADDOCK_AGENT_TOKEN", t);
        }
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            lines: rx,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn answer(&self) -> String {
        self.lines
            .recv_timeout(DEADLINE)
            .expect("no answer line in time")
    }

    fn signal(&self, sig: rustix::process::Signal) {
        rustix::process::kill_process(rustix::process::Pid::from_child(&self.child), sig).unwrap();
    }

    /// Closes stdin (if still open) and waits for the exit; returns the status, whatever else
    /// came on stdout, and stderr.
    fn finish(mut self) -> (ExitStatus, Vec<String>, String) {
        drop(self.stdin.take());
        let mut child = self.child;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let status = child.wait();
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            let _ = tx.send((status, err));
        });
        let (status, stderr) = rx
            .recv_timeout(DEADLINE)
            .expect("paddockd mcp did not exit");
        let rest = self.lines.iter().collect();
        (status.unwrap(), rest, stderr)
    }
}

#[test]
fn mcp_the_handshake_and_a_call_over_stdio_then_a_clean_exit_at_eof() {
    let daemon = FakeDaemon::start(Behaviour {
        push_events: true,
        ..Behaviour::default()
    });
    let mut b = Bridge::start(Some(&daemon.socket), Some(TOKEN));

    b.send(DISCOVER);
    assert_eq!(
        b.answer(),
        r#"{"jsonrpc":"2.0","id":"server-discover-probe-1","error":{"code":-32601,"message":"Method not found: server/discover"}}"#
    );
    b.send(INITIALIZE);
    assert_eq!(
        b.answer(),
        format!(
            r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{"listChanged":false}}}},"serverInfo":{{"name":"paddock_manage","version":"{}"}}}}}}"#,
            env!("CARGO_PKG_VERSION")
        )
    );
    b.send(INITIALIZED);
    b.send(TOOLS_LIST);
    let tools: Value = serde_json::from_str(&b.answer()).unwrap();
    assert_eq!(tools["id"], json!(1));
    assert_eq!(tools["result"]["tools"][0]["name"], json!("create_chat"));
    assert_eq!(
        tools["result"]["tools"][0]["inputSchema"]["required"],
        json!(["prompt"])
    );
    b.send(TOOLS_CALL);
    assert_eq!(
        b.answer(),
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"create_chat ran with {\"prompt\":\"ping\"}"}],"isError":false}}"#
    );
    b.send("not json");
    let bad: Value = serde_json::from_str(&b.answer()).unwrap();
    assert_eq!(bad["id"], Value::Null);
    assert_eq!(bad["error"]["code"], json!(-32700));

    let (status, rest, stderr) = b.finish();
    assert_eq!(status.code(), Some(0));
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(stderr, "");

    let call = daemon
        .requests()
        .into_iter()
        .find_map(|m| match m.request {
            Request::AgentCall(c) => Some(c),
            _ => None,
        })
        .unwrap();
    assert_eq!(call.token, TOKEN);
    assert_eq!(
        call.tool_use_id.as_deref(),
        Some("toolu_mock_05b69ec0b953458c")
    );
}

#[test]
fn mcp_sigint_and_sigterm_end_it_with_status_0_and_no_output() {
    let daemon = FakeDaemon::start(Behaviour::default());
    for sig in [rustix::process::Signal::INT, rustix::process::Signal::TERM] {
        let mut b = Bridge::start(Some(&daemon.socket), Some(TOKEN));
        // An answer means the handlers are in place (they are installed before stdin is read).
        b.send(INITIALIZE);
        let _ = b.answer();
        b.signal(sig);
        let (status, rest, stderr) = b.finish();
        assert_eq!(status.code(), Some(0), "{sig:?}");
        assert!(rest.is_empty(), "{rest:?}");
        assert_eq!(stderr, "");
    }
}

#[test]
fn mcp_a_signal_ends_a_call_stuck_on_a_silent_daemon() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("mute.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let mut b = Bridge::start(Some(&socket), Some(TOKEN));
    b.send(INITIALIZE);
    let _ = b.answer();
    b.send(TOOLS_CALL);
    b.signal(rustix::process::Signal::TERM);
    let (status, rest, stderr) = b.finish();
    assert_eq!(status.code(), Some(0));
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(stderr, "");
}

#[test]
fn mcp_a_missing_token_or_socket_is_one_line_and_status_2() {
    let daemon = FakeDaemon::start(Behaviour::default());
    for (socket, token) in [
        (Some(daemon.socket.as_path()), None),
        (None, Some(TOKEN)),
        (Some(daemon.socket.as_path()), Some("")),
    ] {
        let b = Bridge::start(socket, token);
        let (status, rest, stderr) = b.finish();
        assert_eq!(status.code(), Some(2));
        assert!(rest.is_empty(), "{rest:?}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("paddockd mcp: "), "{stderr}");
    }
    assert_eq!(daemon.connections(), 0);
}

#[test]
fn mcp_help_texts() {
    let out = Command::new(env!("CARGO_BIN_EXE_paddockd"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let main_help = String::from_utf8_lossy(&out.stdout);
    assert!(!main_help.contains("Commands:"), "{main_help}");
    assert!(!main_help.contains("not for people"), "{main_help}");
    let out = Command::new(env!("CARGO_BIN_EXE_paddockd"))
        .args(["mcp", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("The MCP bridge paddockd gives its agents; not for people"),
        "{help}"
    );
    assert!(help.contains("--server"), "{help}");
}
