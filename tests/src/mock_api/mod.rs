//! A local stand-in for the Anthropic Messages API that the real Claude Code CLI talks to
//! (docs/claude-cli.md §1). Hand-rolled HTTP/1.1 on tokio, keep-alive, SSE for `/v1/messages`.
//!
//! The reply is chosen from the last `user` message of the request:
//! * it holds a `tool_result` block → text `tool said: <result text>`;
//! * `mock:tool NAME JSON` → a `tool_use` block (streamed as `input_json_delta`), stop `tool_use`
//!   (text after the JSON, such as a hook's event line, is ignored);
//! * `mock:slow N` → N text deltas 200 ms apart;
//! * `mock:error STATUS` → that HTTP status with an Anthropic-style JSON error, every time;
//! * `mock:fail STATUS N [TEXT]` → that status for the first N attempts of this message (429 with
//!   `retry-after: 1`), then TEXT (default `ok after failures`);
//! * `mock:broken` → the first attempt's stream is cut after one delta, a retry gets the text;
//! * `mock:hang N` → waits N seconds before answering;
//! * `mock:text-tool NAME JSON` → a text block `Running it.`, then the tool call;
//! * `mock:thinking` → a thinking block, then text;
//! * `mock:loop-spawn SESSION` → paddock's `create_chat` with the prompt `mock:loop-back SESSION`,
//!   and `mock:loop-back SESSION` → `send_message` to SESSION saying `mock:loop-spawn SESSION`:
//!   a prompt-injected spawn loop (each child messages the root, which spawns again);
//! * anything else → `echo: <text>` in 3 deltas.
//!
//! A request whose `x-api-key` is [`INVALID_API_KEY`] always gets a 401. `POST /mcp` is an MCP
//! server over streamable HTTP (plain JSON replies) with the tools of [`crate::mcp_echo`].
//!
//! The server runs on its own thread with its own runtime, so a test may block its own
//! runtime (or not have one) without stalling the stand-in.

mod http;
mod reply;

use std::collections::HashMap;
use std::io::{self, Write as _};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use self::http::{read_body, read_head, write_json, write_json_with, write_sse, write_sse_frames};
use self::reply::{Reply, attempt_key, choose_reply, error_type, estimate_tokens};

/// The API key the stand-in rejects with 401 (the CLI's "bad key" case).
pub const INVALID_API_KEY: &str = "invalid-key";

/// One request the stand-in received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    /// Path with query, as sent (`/v1/messages?beta=true`).
    pub path: String,
    /// Header names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON; `Null` when empty, a string when it was not JSON.
    pub body: Value,
}

impl RecordedRequest {
    /// The path without its query.
    pub fn route(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A running stand-in. Dropping it (or [`MockApi::shutdown`]) stops the server.
pub struct MockApi {
    port: u16,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MockApi {
    /// Binds `127.0.0.1:0` and starts serving.
    pub async fn start() -> io::Result<Self> {
        Self::start_on(0).await
    }

    /// Binds `127.0.0.1:port` (0 for any) and starts serving.
    pub async fn start_on(port: u16) -> io::Result<Self> {
        Self::start_logging(port, None).await
    }

    /// Like [`MockApi::start_on`], also appending every request as a JSON line
    /// (`{"method","path","headers","body"}`) to `log` when given.
    pub async fn start_logging(port: u16, log: Option<PathBuf>) -> io::Result<Self> {
        let (mut api, ready) = Self::spawn(port, log)?;
        api.port = ready
            .await
            .map_err(|_| io::Error::other("mock API thread ended before binding"))??;
        Ok(api)
    }

    /// Like [`MockApi::start`] for code without a tokio runtime. Do not call it from async code.
    pub fn start_blocking() -> io::Result<Self> {
        let (mut api, ready) = Self::spawn(0, None)?;
        api.port = ready
            .blocking_recv()
            .map_err(|_| io::Error::other("mock API thread ended before binding"))??;
        Ok(api)
    }

    fn spawn(
        port: u16,
        log_path: Option<PathBuf>,
    ) -> io::Result<(Self, oneshot::Receiver<io::Result<u16>>)> {
        let (ready_tx, ready_rx) = oneshot::channel::<io::Result<u16>>();
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = Log {
            requests: Arc::clone(&requests),
            path: log_path.map(Arc::new),
            attempts: Arc::default(),
        };
        let thread = std::thread::Builder::new()
            .name("mock-anthropic".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(err) => {
                        let _ = ready_tx.send(Err(err));
                        return;
                    }
                };
                rt.block_on(async move {
                    let listener = match TcpListener::bind(("127.0.0.1", port)).await {
                        Ok(l) => l,
                        Err(err) => {
                            let _ = ready_tx.send(Err(err));
                            return;
                        }
                    };
                    let port = listener.local_addr().map(|a| a.port());
                    let bound = port.is_ok();
                    let _ = ready_tx.send(port);
                    if bound {
                        tokio::select! {
                            () = accept_loop(listener, log) => {}
                            _ = stop_rx => {}
                        }
                    }
                });
                // Dropping the runtime here cancels every connection task.
            })?;
        Ok((
            Self {
                port: 0,
                requests,
                stop: Some(stop_tx),
                thread: Some(thread),
            },
            ready_rx,
        ))
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:<port>`, for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The `POST /v1/messages` requests so far.
    pub fn message_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "POST" && r.route() == "/v1/messages")
            .collect()
    }

    /// Stops the server and waits for its thread.
    pub fn shutdown(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// Where received requests go.
#[derive(Clone)]
struct Log {
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    path: Option<Arc<PathBuf>>,
    /// How often each [`attempt_key`] was asked for so far.
    attempts: Arc<Mutex<HashMap<String, u32>>>,
}

impl Log {
    /// Counts one attempt of `key`; returns how many came before it.
    fn attempt(&self, key: String) -> u32 {
        let mut attempts = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
        let count = attempts.entry(key).or_insert(0);
        let before = *count;
        *count += 1;
        before
    }
}

impl Log {
    fn record(&self, request: &RecordedRequest) {
        if let Some(path) = &self.path {
            let line = json!({"method": request.method, "path": request.path,
                "headers": request.headers, "body": request.body});
            let appended = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path.as_ref())
                .and_then(|mut f| writeln!(f, "{line}"));
            if let Err(err) = appended {
                eprintln!("mock-anthropic: cannot append to {}: {err}", path.display());
            }
        }
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(request.clone());
    }
}

async fn accept_loop(listener: TcpListener, log: Log) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let log = log.clone();
                tokio::spawn(async move {
                    // A client that goes away mid-stream (an interrupt) is normal.
                    let _ = serve_connection(stream, log).await;
                });
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

async fn serve_connection(stream: TcpStream, log: Log) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let (rd, mut wr) = stream.into_split();
    let mut rd = BufReader::new(rd);
    loop {
        let Some(head) = read_head(&mut rd).await? else {
            return Ok(());
        };
        if head
            .header("expect")
            .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
        {
            wr.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await?;
        }
        let body = read_body(&mut rd, &head).await?;
        let body = if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&body)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()))
        };
        let request = RecordedRequest {
            method: head.method.clone(),
            path: head.path.clone(),
            headers: head.headers.clone(),
            body,
        };
        log.record(&request);
        let close = head
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        if !respond(&mut wr, &request, &log).await? {
            // The reply cut its stream short: drop the connection.
            return Ok(());
        }
        if close {
            return Ok(());
        }
    }
}

/// Answers one request; `false` when the connection must be dropped afterwards.
async fn respond<W: AsyncWrite + Unpin>(
    wr: &mut W,
    req: &RecordedRequest,
    log: &Log,
) -> io::Result<bool> {
    match (req.method.as_str(), req.route()) {
        ("POST", "/v1/messages") => {
            let reply = if req.header("x-api-key") == Some(INVALID_API_KEY) {
                Reply::Error {
                    status: 401,
                    retry_after: None,
                }
            } else {
                let attempt = log.attempt(attempt_key(&req.body));
                choose_reply(&req.body, attempt)
            };
            send_reply(wr, reply).await
        }
        ("POST", "/v1/messages/count_tokens") => {
            let body = json!({"input_tokens": estimate_tokens(&req.body)});
            write_json(wr, 200, &body, false).await.map(|()| true)
        }
        ("POST", "/mcp") => match crate::mcp_echo::handle(&req.body, "mcp-echo") {
            Some(reply) => {
                let session = [("mcp-session-id", "mock-mcp-session".to_owned())];
                write_json_with(wr, 200, &reply.message, false, &session)
                    .await
                    .map(|()| true)
            }
            None => write_json(wr, 202, &Value::Null, false)
                .await
                .map(|()| true),
        },
        ("GET", "/mcp") => write_json(wr, 405, &Value::Null, false)
            .await
            .map(|()| true),
        ("HEAD", _) => write_json(wr, 200, &json!({}), true).await.map(|()| true),
        ("GET", _) => write_json(wr, 200, &json!({}), false).await.map(|()| true),
        (_, route) => {
            let body = json!({"type": "error", "error": {"type": "not_found_error", "message": format!("mock: no route {} {route}", req.method)}});
            write_json(wr, 404, &body, false).await.map(|()| true)
        }
    }
}

async fn send_reply<W: AsyncWrite + Unpin>(wr: &mut W, reply: Reply) -> io::Result<bool> {
    let mut reply = reply;
    while let Reply::Delayed(delay, inner) = reply {
        tokio::time::sleep(delay).await;
        reply = *inner;
    }
    match reply {
        Reply::Error {
            status,
            retry_after,
        } => {
            let body = json!({"type": "error", "error": {"type": error_type(status), "message": format!("mock {status}")}});
            let headers: Vec<(&str, String)> = retry_after
                .map(|s| ("retry-after", s.to_string()))
                .into_iter()
                .collect();
            write_json_with(wr, status, &body, false, &headers)
                .await
                .map(|()| true)
        }
        Reply::Stream(frames) => write_sse(wr, frames).await.map(|()| true),
        Reply::Broken(frames) => write_sse_frames(wr, frames).await.map(|()| false),
        Reply::Delayed(..) => Ok(true),
    }
}
