//! A local stand-in for the Anthropic Messages API that the real Claude Code CLI talks to
//! (docs/claude-cli.md §1). Hand-rolled HTTP/1.1 on tokio, keep-alive, SSE for `/v1/messages`.
//!
//! The reply is chosen from the last `user` message of the request:
//! * it holds a `tool_result` block → text `tool said: <result text>`;
//! * `mock:tool NAME JSON` → a `tool_use` block (streamed as `input_json_delta`), stop `tool_use`;
//! * `mock:slow N` → N text deltas 200 ms apart;
//! * `mock:error STATUS` → that HTTP status with an Anthropic-style JSON error, every time;
//! * `mock:thinking` → a thinking block, then text;
//! * anything else → `echo: <text>` in 3 deltas.
//!
//! The server runs on its own thread with its own runtime, so a test may block its own
//! runtime (or not have one) without stalling the stand-in.

use std::io::{self, Write as _};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, BufReader,
};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::text::{short_id, split_chunks};

/// Upper bound of a request head, to stop a confused client early.
const MAX_HEAD_BYTES: usize = 1 << 20;
/// Upper bound of a request body.
const MAX_BODY_BYTES: usize = 64 << 20;
/// Spacing of `mock:slow` deltas.
const SLOW_DELTA_SPACING: Duration = Duration::from_millis(200);

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

struct RequestHead {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
}

impl RequestHead {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
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
        respond(&mut wr, &request).await?;
        if close {
            return Ok(());
        }
    }
}

/// Reads a request line and headers; `None` on a clean end of stream before any byte.
async fn read_head<R: AsyncRead + Unpin>(rd: &mut BufReader<R>) -> io::Result<Option<RequestHead>> {
    let mut total = 0usize;
    let mut request_line = String::new();
    // Tolerate stray blank lines between requests.
    loop {
        request_line.clear();
        let n = rd.read_line(&mut request_line).await?;
        if n == 0 {
            return Ok(None);
        }
        total += n;
        if !request_line.trim().is_empty() {
            break;
        }
        if total > MAX_HEAD_BYTES {
            return Err(io::Error::other("request head too large"));
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or("/").to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        let n = rd.read_line(&mut line).await?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "end of stream in the headers",
            ));
        }
        total += n;
        if total > MAX_HEAD_BYTES {
            return Err(io::Error::other("request head too large"));
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    Ok(Some(RequestHead {
        method,
        path,
        headers,
    }))
}

async fn read_body<R: AsyncRead + Unpin>(
    rd: &mut BufReader<R>,
    head: &RequestHead,
) -> io::Result<Vec<u8>> {
    let chunked = head
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        let mut body = Vec::new();
        loop {
            let mut size_line = String::new();
            if rd.read_line(&mut size_line).await? == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "end of stream in a chunked body",
                ));
            }
            let size_hex = size_line
                .trim()
                .split(';')
                .next()
                .unwrap_or_default()
                .trim();
            let size = usize::from_str_radix(size_hex, 16)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad chunk size"))?;
            if size == 0 {
                // Trailers, up to the blank line.
                loop {
                    let mut trailer = String::new();
                    if rd.read_line(&mut trailer).await? == 0 || trailer.trim().is_empty() {
                        return Ok(body);
                    }
                }
            }
            if body.len() + size > MAX_BODY_BYTES {
                return Err(io::Error::other("request body too large"));
            }
            let start = body.len();
            body.resize(start + size, 0);
            rd.read_exact(&mut body[start..]).await?;
            let mut crlf = String::new();
            rd.read_line(&mut crlf).await?;
        }
    }
    let len: usize = head
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if len > MAX_BODY_BYTES {
        return Err(io::Error::other("request body too large"));
    }
    let mut body = vec![0u8; len];
    rd.read_exact(&mut body).await?;
    Ok(body)
}

async fn respond<W: AsyncWrite + Unpin>(wr: &mut W, req: &RecordedRequest) -> io::Result<()> {
    match (req.method.as_str(), req.route()) {
        ("POST", "/v1/messages") => match choose_reply(&req.body) {
            Reply::Error(status) => {
                let body = json!({"type": "error", "error": {"type": error_type(status), "message": format!("mock {status}")}});
                write_json(wr, status, &body, false).await
            }
            Reply::Stream(frames) => write_sse(wr, frames).await,
        },
        ("POST", "/v1/messages/count_tokens") => {
            let body = json!({"input_tokens": estimate_tokens(&req.body)});
            write_json(wr, 200, &body, false).await
        }
        ("HEAD", _) => write_json(wr, 200, &json!({}), true).await,
        ("GET", _) => write_json(wr, 200, &json!({}), false).await,
        (_, route) => {
            let body = json!({"type": "error", "error": {"type": "not_found_error", "message": format!("mock: no route {} {route}", req.method)}});
            write_json(wr, 404, &body, false).await
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// The Anthropic error `type` for an HTTP status.
fn error_type(status: u16) -> &'static str {
    match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    }
}

async fn write_json<W: AsyncWrite + Unpin>(
    wr: &mut W,
    status: u16,
    body: &Value,
    head_only: bool,
) -> io::Result<()> {
    let body = body.to_string();
    let mut out = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\nrequest-id: req_mock_{}\r\ncontent-length: {}\r\nconnection: keep-alive\r\n\r\n",
        reason(status),
        short_id(),
        body.len()
    );
    if !head_only {
        out.push_str(&body);
    }
    wr.write_all(out.as_bytes()).await?;
    wr.flush().await
}

/// One SSE event, sent after `delay`.
struct Frame {
    delay: Duration,
    event: &'static str,
    data: Value,
}

enum Reply {
    Stream(Vec<Frame>),
    Error(u16),
}

async fn write_sse<W: AsyncWrite + Unpin>(wr: &mut W, frames: Vec<Frame>) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nrequest-id: req_mock_{}\r\ntransfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n",
        short_id()
    );
    wr.write_all(head.as_bytes()).await?;
    wr.flush().await?;
    for frame in frames {
        if !frame.delay.is_zero() {
            tokio::time::sleep(frame.delay).await;
        }
        let payload = format!("event: {}\ndata: {}\n\n", frame.event, frame.data);
        let chunk = format!("{:x}\r\n{payload}\r\n", payload.len());
        wr.write_all(chunk.as_bytes()).await?;
        wr.flush().await?;
    }
    wr.write_all(b"0\r\n\r\n").await?;
    wr.flush().await
}

/// A rough token count: a quarter of the body's JSON length.
fn estimate_tokens(body: &Value) -> u64 {
    (body.to_string().len() as u64 / 4).max(1)
}

/// What the last user message asks for.
#[derive(Debug, PartialEq)]
enum Directive {
    Echo(String),
    ToolSaid(String),
    Tool { name: String, input: Value },
    Slow(u32),
    Error(u16),
    Thinking,
}

/// Picks the reply from the last `user` message of a Messages API request body.
fn directive_for(body: &Value) -> Directive {
    let last_user = body["messages"]
        .as_array()
        .and_then(|msgs| msgs.iter().rev().find(|m| m["role"] == "user"));
    let Some(last_user) = last_user else {
        return Directive::Echo(String::new());
    };
    let content = &last_user["content"];
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            let results: Vec<String> = blocks
                .iter()
                .filter(|b| b["type"] == "tool_result")
                .map(|b| tool_result_text(&b["content"]))
                .collect();
            if !results.is_empty() {
                return Directive::ToolSaid(results.join("\n"));
            }
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect();
            texts
                .iter()
                .rev()
                .find(|t| !t.trim_start().starts_with("<system-reminder>"))
                .or(texts.last())
                .map(|t| (*t).to_owned())
                .unwrap_or_default()
        }
        _ => String::new(),
    };
    parse_directive(&text)
}

fn tool_result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn parse_directive(text: &str) -> Directive {
    let trimmed = text.trim();
    let Some(rest) = trimmed.strip_prefix("mock:") else {
        return Directive::Echo(text.to_owned());
    };
    let rest = rest.trim_start();
    let (cmd, args) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(c, a)| (c, a.trim()));
    match cmd {
        "tool" => {
            let (name, input) = args
                .split_once(char::is_whitespace)
                .map_or((args, ""), |(n, i)| (n, i.trim()));
            let input = if input.is_empty() {
                Ok(json!({}))
            } else {
                serde_json::from_str::<Value>(input)
            };
            match input {
                Ok(input) if !name.is_empty() => Directive::Tool {
                    name: name.to_owned(),
                    input,
                },
                _ => Directive::Echo(format!("mock: bad tool directive: {args}")),
            }
        }
        "slow" => Directive::Slow(args.parse().unwrap_or(10)),
        "error" => Directive::Error(args.parse().unwrap_or(500)),
        "thinking" => Directive::Thinking,
        _ => Directive::Echo(text.to_owned()),
    }
}

/// Builds the SSE frames (or error) for a request body.
fn choose_reply(body: &Value) -> Reply {
    let model = body["model"]
        .as_str()
        .unwrap_or("claude-opus-5-5")
        .to_owned();
    let mut msg = SseMessage::new(&model, estimate_tokens(body));
    match directive_for(body) {
        Directive::Error(status) => return Reply::Error(status),
        Directive::Echo(text) => msg.text(&format!("echo: {text}"), 3, Duration::ZERO),
        Directive::ToolSaid(text) => msg.text(&format!("tool said: {text}"), 3, Duration::ZERO),
        Directive::Slow(n) => {
            let n = n.max(1);
            let text: String = (1..=n).map(|i| format!("tick{i} ")).collect();
            msg.text(&text, n as usize, SLOW_DELTA_SPACING);
        }
        Directive::Thinking => {
            msg.thinking("Let me think about this. The answer is simple.");
            msg.text("thought about it", 3, Duration::ZERO);
        }
        Directive::Tool { name, input } => {
            msg.tool_use(&name, &input);
            return Reply::Stream(msg.finish("tool_use"));
        }
    }
    Reply::Stream(msg.finish("end_turn"))
}

/// Accumulates the SSE frames of one streamed message.
struct SseMessage {
    frames: Vec<Frame>,
    index: usize,
    output_tokens: u64,
}

impl SseMessage {
    fn new(model: &str, input_tokens: u64) -> Self {
        let start = json!({"type": "message_start", "message": {
            "id": format!("msg_mock_{}", short_id()), "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "service_tier": "standard"}}});
        let frames = vec![
            frame("message_start", start),
            frame("ping", json!({"type": "ping"})),
        ];
        Self {
            frames,
            index: 0,
            output_tokens: 1,
        }
    }

    fn block(&mut self, start: Value, deltas: Vec<(Duration, Value)>) {
        let index = self.index;
        self.frames.push(frame(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for (delay, delta) in deltas {
            self.output_tokens += 1;
            self.frames.push(Frame {
                delay,
                event: "content_block_delta",
                data: json!({"type": "content_block_delta", "index": index, "delta": delta}),
            });
        }
        self.frames.push(frame(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        self.index += 1;
    }

    fn text(&mut self, text: &str, pieces: usize, spacing: Duration) {
        let deltas = split_chunks(text, pieces)
            .into_iter()
            .map(|t| (spacing, json!({"type": "text_delta", "text": t})))
            .collect();
        self.block(json!({"type": "text", "text": ""}), deltas);
    }

    fn thinking(&mut self, thinking: &str) {
        let mut deltas: Vec<(Duration, Value)> = split_chunks(thinking, 2)
            .into_iter()
            .map(|t| {
                (
                    Duration::ZERO,
                    json!({"type": "thinking_delta", "thinking": t}),
                )
            })
            .collect();
        deltas.push((
            Duration::ZERO,
            json!({"type": "signature_delta", "signature": format!("mocksig{}", short_id())}),
        ));
        self.block(
            json!({"type": "thinking", "thinking": "", "signature": ""}),
            deltas,
        );
    }

    fn tool_use(&mut self, name: &str, input: &Value) {
        let deltas = split_chunks(&input.to_string(), 3)
            .into_iter()
            .map(|p| {
                (
                    Duration::ZERO,
                    json!({"type": "input_json_delta", "partial_json": p}),
                )
            })
            .collect();
        self.block(
            json!({"type": "tool_use", "id": format!("toolu_mock_{}", short_id()), "name": name, "input": {}}),
            deltas,
        );
    }

    fn finish(mut self, stop_reason: &str) -> Vec<Frame> {
        self.frames.push(frame(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                   "usage": {"output_tokens": self.output_tokens}}),
        ));
        self.frames
            .push(frame("message_stop", json!({"type": "message_stop"})));
        self.frames
    }
}

fn frame(event: &'static str, data: Value) -> Frame {
    Frame {
        delay: Duration::ZERO,
        event,
        data,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn body_with(content: Value) -> Value {
        json!({"model": "m", "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
            {"role": "system", "content": "env block"},
            {"role": "user", "content": content}]})
    }

    #[test]
    fn directives_come_from_the_last_user_message() {
        assert_eq!(
            directive_for(&body_with(json!("hello"))),
            Directive::Echo("hello".into())
        );
        assert_eq!(
            directive_for(&body_with(json!([
                {"type": "text", "text": "real text"},
                {"type": "text", "text": "<system-reminder>\nnoise\n</system-reminder>"}]))),
            Directive::Echo("real text".into())
        );
        assert_eq!(
            directive_for(&body_with(
                json!([{"type": "tool_result", "tool_use_id": "t", "content": "all-good"}])
            )),
            Directive::ToolSaid("all-good".into())
        );
        assert_eq!(
            directive_for(&body_with(
                json!([{"type": "tool_result", "tool_use_id": "t",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
            )),
            Directive::ToolSaid("a\nb".into())
        );
    }

    #[test]
    fn directive_parser_is_tolerant() {
        assert_eq!(parse_directive("  mock:slow 7 \n"), Directive::Slow(7));
        assert_eq!(parse_directive("mock: error 529"), Directive::Error(529));
        assert_eq!(parse_directive("mock:thinking"), Directive::Thinking);
        assert_eq!(
            parse_directive("mock:tool Bash {\"command\": \"echo all-good\"}"),
            Directive::Tool {
                name: "Bash".into(),
                input: json!({"command": "echo all-good"})
            }
        );
        assert!(matches!(
            parse_directive("mock:tool Bash {oops"),
            Directive::Echo(_)
        ));
    }
}
