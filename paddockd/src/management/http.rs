//! Just enough HTTP/1.1 for the management endpoint: request heads parsed with `httparse`,
//! bodies framed by `Content-Length` only, responses with a `Content-Length` of their own.
//!
//! Every read is bounded: a head by [`MAX_HEAD_BYTES`] and [`MAX_HEADERS`], a body by the
//! caller's limit, and all of one request by a deadline. Bytes read past one request (a
//! pipelined next one) stay in the buffer for the next [`Conn::read_head`].

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::Instant;

/// The longest request head (request line and headers) accepted; longer is 431.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// The most headers a request may have; more is 431.
pub const MAX_HEADERS: usize = 64;
/// How much is read from the socket at once.
const READ_CHUNK: usize = 8 * 1024;

/// One request's head, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub method: String,
    /// The target without its query string.
    pub path: String,
    /// Names in lower case, values as sent (invalid UTF-8 replaced).
    pub headers: Vec<(String, String)>,
    /// HTTP/1.1 without `Connection: close`.
    pub keep_alive: bool,
}

impl Head {
    /// The first header called `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// How the body is framed.
    pub fn body(&self) -> Result<BodyLength, Status> {
        if self.header("transfer-encoding").is_some() {
            return Err(Status::NOT_IMPLEMENTED);
        }
        let mut lengths = self
            .headers
            .iter()
            .filter(|(n, _)| n == "content-length")
            .map(|(_, v)| v.trim());
        let Some(first) = lengths.next() else {
            return Ok(BodyLength::None);
        };
        if lengths.any(|other| other != first) {
            return Err(Status::BAD_REQUEST);
        }
        if first.is_empty() || !first.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Status::BAD_REQUEST);
        }
        // All digits: too many of them to fit is too large in any case.
        Ok(BodyLength::Exactly(first.parse().unwrap_or(usize::MAX)))
    }
}

/// A body's framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyLength {
    /// No `Content-Length` (and no `Transfer-Encoding`): no body.
    None,
    Exactly(usize),
}

/// An HTTP status with its reason phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status(pub u16, pub &'static str);

impl Status {
    pub const OK: Self = Self(200, "OK");
    pub const ACCEPTED: Self = Self(202, "Accepted");
    pub const BAD_REQUEST: Self = Self(400, "Bad Request");
    pub const UNAUTHORIZED: Self = Self(401, "Unauthorized");
    pub const FORBIDDEN: Self = Self(403, "Forbidden");
    pub const NOT_FOUND: Self = Self(404, "Not Found");
    pub const METHOD_NOT_ALLOWED: Self = Self(405, "Method Not Allowed");
    pub const REQUEST_TIMEOUT: Self = Self(408, "Request Timeout");
    pub const LENGTH_REQUIRED: Self = Self(411, "Length Required");
    pub const PAYLOAD_TOO_LARGE: Self = Self(413, "Payload Too Large");
    pub const UNSUPPORTED_MEDIA_TYPE: Self = Self(415, "Unsupported Media Type");
    pub const HEADERS_TOO_LARGE: Self = Self(431, "Request Header Fields Too Large");
    pub const NOT_IMPLEMENTED: Self = Self(501, "Not Implemented");
    pub const SERVICE_UNAVAILABLE: Self = Self(503, "Service Unavailable");
}

/// Why no request could be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The peer closed the connection between requests: nothing to answer.
    #[error("connection closed")]
    Closed,
    /// The deadline passed; `started` when part of a request had arrived.
    #[error("timed out")]
    TimedOut { started: bool },
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The head cannot be parsed, or the connection ended inside a request.
    #[error("malformed request: {0}")]
    Malformed(String),
    #[error("request head over {MAX_HEAD_BYTES} bytes or {MAX_HEADERS} headers")]
    HeadTooLarge,
}

impl ReadError {
    /// The status to answer with before closing, if any.
    pub fn status(&self) -> Option<Status> {
        match self {
            Self::Closed | Self::Io(_) => None,
            Self::TimedOut { started } => started.then_some(Status::REQUEST_TIMEOUT),
            Self::Malformed(_) => Some(Status::BAD_REQUEST),
            Self::HeadTooLarge => Some(Status::HEADERS_TOO_LARGE),
        }
    }
}

/// A response; `Content-Length` and `Connection` are added when it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: Status,
    pub headers: Vec<(&'static str, String)>,
    pub content_type: Option<&'static str>,
    pub body: Vec<u8>,
}

impl Response {
    /// A status with a short text body (a sentence saying what to do).
    pub fn text(status: Status, body: impl Into<String>) -> Self {
        Self {
            status,
            headers: Vec::new(),
            content_type: Some("text/plain; charset=utf-8"),
            body: body.into().into_bytes(),
        }
    }

    pub fn json(status: Status, body: String) -> Self {
        Self {
            status,
            headers: Vec::new(),
            content_type: Some("application/json"),
            body: body.into_bytes(),
        }
    }

    pub fn empty(status: Status) -> Self {
        Self {
            status,
            headers: Vec::new(),
            content_type: None,
            body: Vec::new(),
        }
    }

    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// The bytes on the wire.
    pub fn encode(&self, keep_alive: bool) -> Vec<u8> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status.0, self.status.1);
        if let Some(ct) = self.content_type {
            head.push_str(&format!("Content-Type: {ct}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n", self.body.len()));
        head.push_str("Cache-Control: no-store\r\n");
        if !keep_alive {
            head.push_str("Connection: close\r\n");
        }
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let mut out = head.into_bytes();
        out.extend_from_slice(&self.body);
        out
    }
}

/// One connection: the stream and what was read past the last request.
pub struct Conn<S> {
    stream: S,
    buf: Vec<u8>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Conn<S> {
    pub fn new(stream: S) -> Self {
        Self {
            stream,
            buf: Vec::new(),
        }
    }

    /// Reads more into the buffer before `deadline`; `Ok(0)` at the end of the stream.
    async fn fill(&mut self, deadline: Instant) -> Result<usize, ReadError> {
        let started = !self.buf.is_empty();
        let mut chunk = [0u8; READ_CHUNK];
        let n = tokio::time::timeout_at(deadline, self.stream.read(&mut chunk))
            .await
            .map_err(|_| ReadError::TimedOut { started })??;
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(n)
    }

    /// The next request's head, which must be complete before `deadline`.
    pub async fn read_head(&mut self, deadline: Instant) -> Result<Head, ReadError> {
        loop {
            if !self.buf.is_empty()
                && let Some((head, used)) = parse_head(&self.buf)?
            {
                self.buf.drain(..used);
                return Ok(head);
            }
            if self.buf.len() > MAX_HEAD_BYTES {
                return Err(ReadError::HeadTooLarge);
            }
            if self.fill(deadline).await? == 0 {
                return Err(if self.buf.iter().all(u8::is_ascii_whitespace) {
                    ReadError::Closed
                } else {
                    ReadError::Malformed("the connection ended inside a request head".into())
                });
            }
        }
    }

    /// The body of `len` bytes (the caller has bounded `len`), before `deadline`.
    pub async fn read_body(&mut self, len: usize, deadline: Instant) -> Result<Vec<u8>, ReadError> {
        while self.buf.len() < len {
            if self.fill(deadline).await? == 0 {
                return Err(ReadError::Malformed(
                    "the connection ended inside a request body".into(),
                ));
            }
        }
        Ok(self.buf.drain(..len).collect())
    }

    pub async fn write(&mut self, resp: &Response, keep_alive: bool) -> io::Result<()> {
        self.stream.write_all(&resp.encode(keep_alive)).await?;
        self.stream.flush().await
    }

    /// Ends the connection after a last response: shuts the write side, then reads and drops
    /// what the client still sends until it closes or `deadline`, so unread input does not
    /// make the kernel reset the connection under the response.
    pub async fn close(mut self, deadline: Instant) {
        let _ = self.stream.shutdown().await;
        let mut chunk = [0u8; READ_CHUNK];
        while let Ok(Ok(n)) = tokio::time::timeout_at(deadline, self.stream.read(&mut chunk)).await
        {
            if n == 0 {
                break;
            }
        }
    }
}

/// Parses a head from the front of `buf`: `None` while incomplete.
pub(super) fn parse_head(buf: &[u8]) -> Result<Option<(Head, usize)>, ReadError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    let used = match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => return Err(ReadError::HeadTooLarge),
        Err(e) => return Err(ReadError::Malformed(e.to_string())),
    };
    if used > MAX_HEAD_BYTES {
        return Err(ReadError::HeadTooLarge);
    }
    let (Some(method), Some(target), Some(version)) = (req.method, req.path, req.version) else {
        return Err(ReadError::Malformed("no request line".into()));
    };
    let headers: Vec<(String, String)> = req
        .headers
        .iter()
        .map(|h| {
            (
                h.name.to_ascii_lowercase(),
                String::from_utf8_lossy(h.value).into_owned(),
            )
        })
        .collect();
    let close = headers
        .iter()
        .filter(|(n, _)| n == "connection")
        .flat_map(|(_, v)| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case("close"));
    let path = target.split(['?', '#']).next().unwrap_or("").to_owned();
    Ok(Some((
        Head {
            method: method.to_owned(),
            path,
            headers,
            keep_alive: version == 1 && !close,
        },
        used,
    )))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::time::Duration;

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[tokio::test]
    async fn management_http_reads_pipelined_requests_and_their_bodies() {
        let (mut client, server) = tokio::io::duplex(64 * 1024);
        client
            .write_all(
                b"POST /mcp?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nAuthorization: Bearer t\r\n\r\nhello\
                  GET /other HTTP/1.1\r\nConnection: close\r\n\r\n",
            )
            .await
            .unwrap();
        let mut conn = Conn::new(server);
        let head = conn.read_head(soon()).await.unwrap();
        assert_eq!(head.method, "POST");
        assert_eq!(head.path, "/mcp");
        assert!(head.keep_alive);
        assert_eq!(head.header("authorization"), Some("Bearer t"));
        assert_eq!(head.body().unwrap(), BodyLength::Exactly(5));
        assert_eq!(conn.read_body(5, soon()).await.unwrap(), b"hello");
        let next = conn.read_head(soon()).await.unwrap();
        assert_eq!(
            (next.method.as_str(), next.path.as_str()),
            ("GET", "/other")
        );
        assert!(!next.keep_alive);
        assert_eq!(next.body().unwrap(), BodyLength::None);
        drop(client);
        assert!(matches!(
            conn.read_head(soon()).await,
            Err(ReadError::Closed)
        ));
    }

    #[tokio::test]
    async fn management_http_bounds_heads_and_times_out() {
        let (mut client, server) = tokio::io::duplex(64 * 1024);
        let mut long = b"GET / HTTP/1.1\r\nX: ".to_vec();
        long.extend(std::iter::repeat_n(b'a', MAX_HEAD_BYTES + 10));
        client.write_all(&long).await.unwrap();
        let mut conn = Conn::new(server);
        let err = conn.read_head(soon()).await.unwrap_err();
        assert_eq!(err.status(), Some(Status::HEADERS_TOO_LARGE));

        let (mut client, server) = tokio::io::duplex(1024);
        client.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
        let mut conn = Conn::new(server);
        let err = conn
            .read_head(Instant::now() + Duration::from_millis(50))
            .await
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::REQUEST_TIMEOUT));
        // An idle connection that never started a request is closed without an answer.
        let (_client, server) = tokio::io::duplex(1024);
        let mut conn = Conn::new(server);
        let err = conn
            .read_head(Instant::now() + Duration::from_millis(50))
            .await
            .unwrap_err();
        assert_eq!(err.status(), None);

        let (mut client, server) = tokio::io::duplex(1024);
        client.write_all(b"NOT HTTP\r\n\r\n").await.unwrap();
        let mut conn = Conn::new(server);
        let err = conn.read_head(soon()).await.unwrap_err();
        assert_eq!(err.status(), Some(Status::BAD_REQUEST));
    }

    #[test]
    fn management_http_body_framing() {
        let head = |headers: &[(&str, &str)]| Head {
            method: "POST".into(),
            path: "/mcp".into(),
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            keep_alive: true,
        };
        assert_eq!(
            head(&[("transfer-encoding", "chunked")]).body(),
            Err(Status::NOT_IMPLEMENTED)
        );
        assert_eq!(
            head(&[("content-length", "3"), ("content-length", "4")]).body(),
            Err(Status::BAD_REQUEST)
        );
        assert_eq!(
            head(&[("content-length", "-1")]).body(),
            Err(Status::BAD_REQUEST)
        );
        assert_eq!(
            head(&[("content-length", "99999999999999999999999")]).body(),
            Ok(BodyLength::Exactly(usize::MAX))
        );
    }

    #[test]
    fn management_http_responses_carry_their_length() {
        let r = Response::text(Status::UNAUTHORIZED, "no\n")
            .with_header("WWW-Authenticate", "Bearer realm=\"paddockd\"");
        let wire = String::from_utf8(r.encode(false)).unwrap();
        assert!(wire.starts_with("HTTP/1.1 401 Unauthorized\r\n"), "{wire}");
        assert!(wire.contains("Content-Length: 3\r\n"), "{wire}");
        assert!(wire.contains("Connection: close\r\n"), "{wire}");
        assert!(wire.contains("WWW-Authenticate: Bearer"), "{wire}");
        assert!(wire.ends_with("\r\n\r\nno\n"), "{wire}");
        let wire = String::from_utf8(Response::empty(Status::ACCEPTED).encode(true)).unwrap();
        assert!(!wire.contains("Connection"), "{wire}");
        assert!(wire.contains("Content-Length: 0\r\n"), "{wire}");
    }
}
