//! The HTTP/1.1 plumbing of the stand-in: request heads and bodies (Content-Length or chunked),
//! JSON replies, and SSE replies sent with chunked transfer encoding so keep-alive works.

use std::io;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{
    AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, BufReader,
};

use crate::text::short_id;

/// Upper bound of a request head, to stop a confused client early.
const MAX_HEAD_BYTES: usize = 1 << 20;

/// Upper bound of a request body.
const MAX_BODY_BYTES: usize = 64 << 20;

/// A request line and its headers (names lower-cased).
pub(super) struct RequestHead {
    pub(super) method: String,
    pub(super) path: String,
    pub(super) headers: Vec<(String, String)>,
}

impl RequestHead {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads a request line and headers; `None` on a clean end of stream before any byte.
pub(super) async fn read_head<R: AsyncRead + Unpin>(
    rd: &mut BufReader<R>,
) -> io::Result<Option<RequestHead>> {
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

pub(super) async fn read_body<R: AsyncRead + Unpin>(
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

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

pub(super) async fn write_json<W: AsyncWrite + Unpin>(
    wr: &mut W,
    status: u16,
    body: &Value,
    head_only: bool,
) -> io::Result<()> {
    write_json_with(wr, status, body, head_only, &[]).await
}

/// [`write_json`] with extra headers; a `Null` body is sent as an empty body.
pub(super) async fn write_json_with<W: AsyncWrite + Unpin>(
    wr: &mut W,
    status: u16,
    body: &Value,
    head_only: bool,
    extra_headers: &[(&str, String)],
) -> io::Result<()> {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let extra: String = extra_headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let mut out = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\nrequest-id: req_mock_{}\r\n{extra}content-length: {}\r\nconnection: keep-alive\r\n\r\n",
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
pub(super) struct Frame {
    pub(super) delay: Duration,
    pub(super) event: &'static str,
    pub(super) data: Value,
}

pub(super) async fn write_sse<W: AsyncWrite + Unpin>(
    wr: &mut W,
    frames: Vec<Frame>,
) -> io::Result<()> {
    write_sse_frames(wr, frames).await?;
    wr.write_all(b"0\r\n\r\n").await?;
    wr.flush().await
}

/// The head and the frames of an SSE reply, without the end of the chunked body: a caller
/// that stops here and drops the connection cuts the stream mid-way.
pub(super) async fn write_sse_frames<W: AsyncWrite + Unpin>(
    wr: &mut W,
    frames: Vec<Frame>,
) -> io::Result<()> {
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
    Ok(())
}
