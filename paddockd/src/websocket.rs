//! The WebSocket listener: the Unix socket's protocol over TCP, for clients that cannot reach
//! the socket (a browser page, another machine through a reverse proxy). Off unless
//! `ws_listen` is set.
//!
//! The auth boundary (ARCHITECTURE.md, "The WebSocket"; reference §7): every connection is
//! authenticated in the HTTP upgrade, before any protocol message is read:
//!
//! - `token` (the default): `Authorization: Bearer TOKEN`, or `?token=TOKEN` for browsers,
//!   which cannot set headers on a WebSocket. The token is the content of `ws_token_file`, or
//!   one generated at the first start into `<data_dir>/ws-token` (0600). It is compared in
//!   constant time and never logged. The connection's user is the daemon's own.
//! - `trusted-header`: the request's `ws_trusted_header` (`X-Forwarded-User`) names the user.
//!   Only an authenticating reverse proxy in front of a loopback listener makes this safe.
//! - `none`: everyone who reaches the port is let in as the daemon's user.
//!
//! Bind safety: a non-loopback `ws_listen` with `none` or `trusted-header` refuses to start
//! unless `PADDOCK_DANGEROUSLY_ALLOW_OPEN=1`, which turns the refusal into a loud warning.
//!
//! Modes whose credential a browser sends by itself (`none`; `trusted-header`, where the
//! proxy's login cookie rides along) also check `Origin`: a browser page may connect only
//! from the origin it connects to, so another site cannot drive the daemon through the
//! user's browser. `none` on a loopback address also requires a loopback `Host`, which
//! defeats DNS rebinding. A token is never sent by a browser on its own, so token mode lets
//! any origin in that presents it.
//!
//! After the upgrade, each text message is one protocol message: the JSON line the socket
//! carries, without its newline, in both directions. The connection is then served by
//! `connection::serve_client`, with the socket's bounded queues and slow-client policy.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use paddock_proto::{FrameError, MAX_LINE_BYTES};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::error::{CapacityError, Error as WsError};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue, StatusCode, header};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Message, WebSocketConfig};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::ws::{ALLOW_OPEN_ENV, TOKEN_FILE, WsAuth, WsConfig};
use crate::connection::{FrameSink, FrameSource};
use crate::handles::Daemon;

/// The shortest token accepted from `ws_token_file`.
const MIN_TOKEN_CHARS: usize = 16;

/// The longest user name a trusted header may carry.
const MAX_USER_CHARS: usize = 128;

/// Why the WebSocket listener cannot start.
#[derive(Debug, thiserror::Error)]
pub enum WsStartError {
    #[error(
        "ws_listen = {addr} with ws_auth = none would let anyone who can reach {addr} run agents on this machine; \
         keep ws_auth = token (the default), listen on a loopback address such as 127.0.0.1:{port}, \
         or set {ALLOW_OPEN_ENV}=1 if something else guards that port"
    )]
    OpenWithoutAuth { addr: SocketAddr, port: u16 },
    #[error(
        "ws_listen = {addr} with ws_auth = trusted-header believes a {header} header that anyone who can reach {addr} can send; \
         listen on a loopback address such as 127.0.0.1:{port} that only your authenticating reverse proxy reaches, \
         use ws_auth = token, or set {ALLOW_OPEN_ENV}=1 if only the proxy can reach that port"
    )]
    OpenTrustedHeader {
        addr: SocketAddr,
        port: u16,
        header: String,
    },
    #[error("ws_trusted_header {0:?} is not an HTTP header name; use one such as X-Forwarded-User")]
    BadHeader(String),
    #[error("cannot listen for WebSockets on {addr}: {source}; {hint}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
        hint: &'static str,
    },
    #[error("cannot {what} the WebSocket token file {path}: {source}; {hint}")]
    TokenIo {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
        hint: &'static str,
    },
    #[error(
        "the WebSocket token file {path} holds {chars} characters; a token needs at least {MIN_TOKEN_CHARS} \
         (make one with `head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > {path}`)"
    )]
    WeakToken { path: PathBuf, chars: usize },
}

impl WsConfig {
    /// Bind safety (architecture: nothing listens on a network interface without
    /// authentication). `Ok(Some(warning))` when the refusal was overridden by
    /// [`ALLOW_OPEN_ENV`].
    pub fn check(&self) -> Result<Option<String>, WsStartError> {
        if HeaderName::from_bytes(self.trusted_header.as_bytes()).is_err() {
            return Err(WsStartError::BadHeader(self.trusted_header.clone()));
        }
        let Some(addr) = self.listen else {
            return Ok(None);
        };
        if addr.ip().is_loopback() {
            return Ok(None);
        }
        let refusal = match self.auth {
            WsAuth::Token => return Ok(None),
            WsAuth::None => WsStartError::OpenWithoutAuth {
                addr,
                port: addr.port(),
            },
            WsAuth::TrustedHeader => WsStartError::OpenTrustedHeader {
                addr,
                port: addr.port(),
                header: self.trusted_header.clone(),
            },
        };
        if self.dangerously_allow_open {
            Ok(Some(format!(
                "DANGER: {ALLOW_OPEN_ENV} is set, so paddockd starts anyway. {refusal}"
            )))
        } else {
            Err(refusal)
        }
    }
}

/// A bound listener with its gate, ready for [`serve`].
pub struct WsListener {
    listener: TcpListener,
    gate: Arc<Gate>,
}

impl WsListener {
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.listener.local_addr().ok()
    }
}

/// Binds `ws_listen` (if set) after the bind-safety check, and loads or makes the token.
pub async fn bind(cfg: &crate::Config) -> Result<Option<WsListener>, WsStartError> {
    let ws = &cfg.ws;
    let warning = ws.check()?;
    let Some(addr) = ws.listen else {
        return Ok(None);
    };
    if let Some(warning) = warning {
        tracing::warn!("{warning}");
        tracing::warn!(
            "DANGER: the WebSocket on {addr} is open to anyone who can reach it (ws_auth = {})",
            ws.auth
        );
    }
    let token = match ws.auth {
        WsAuth::Token => {
            let (digest, path) = load_token(ws.token_file.as_deref(), &cfg.data_dir)?;
            tracing::info!(
                "WebSocket clients authenticate with the token in {}",
                path.display()
            );
            Some(digest)
        }
        WsAuth::TrustedHeader | WsAuth::None => None,
    };
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| WsStartError::Bind {
            addr,
            hint: match source.kind() {
                std::io::ErrorKind::AddrInUse => {
                    "another program uses that port: choose another ws_listen or stop that program"
                }
                std::io::ErrorKind::AddrNotAvailable => {
                    "that address is not one of this machine's: choose another ws_listen"
                }
                std::io::ErrorKind::PermissionDenied => {
                    "ports below 1024 need privileges: choose a port above 1024"
                }
                _ => "check ws_listen",
            },
            source,
        })?;
    let local = listener.local_addr().unwrap_or(addr);
    let _ = ws.bound.set(local);
    let header = HeaderName::from_bytes(ws.trusted_header.as_bytes())
        .map_err(|_| WsStartError::BadHeader(ws.trusted_header.clone()))?;
    let gate = Gate {
        auth: ws.auth,
        token,
        header,
        loopback_host_only: ws.auth == WsAuth::None && addr.ip().is_loopback(),
        daemon_user: crate::users::name_of(rustix::process::geteuid().as_raw()),
    };
    tracing::info!(addr = %local, auth = %ws.auth, "paddockd listening for WebSockets");
    Ok(Some(WsListener {
        listener,
        gate: Arc::new(gate),
    }))
}

/// Reads the token (or makes `<data_dir>/ws-token`), returning its SHA-256 and its file.
fn load_token(
    configured: Option<&Path>,
    data_dir: &Path,
) -> Result<([u8; 32], PathBuf), WsStartError> {
    let path = configured
        .map(Path::to_path_buf)
        .unwrap_or_else(|| data_dir.join(TOKEN_FILE));
    let io = |what: &'static str, hint: &'static str| {
        let path = path.clone();
        move |source| WsStartError::TokenIo {
            what,
            path,
            source,
            hint,
        }
    };
    if configured.is_none() && !path.exists() {
        make_token(&path).map_err(io(
            "create",
            "check that the data folder is writable, or name a token file with ws_token_file",
        ))?;
        tracing::info!("generated a WebSocket token in {}", path.display());
    }
    let text = std::fs::read_to_string(&path).map_err(io(
        "read",
        "create it (0600) with a long random token, or unset ws_token_file to have one made",
    ))?;
    let token = text.trim();
    if token.chars().count() < MIN_TOKEN_CHARS {
        return Err(WsStartError::WeakToken {
            chars: token.chars().count(),
            path,
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(meta) = std::fs::metadata(&path)
            && meta.mode() & 0o077 != 0
        {
            tracing::warn!(
                "the WebSocket token file {} can be read by other users; `chmod 600` it",
                path.display()
            );
        }
    }
    Ok((Sha256::digest(token.as_bytes()).into(), path))
}

/// Writes 32 random bytes as hex into a new 0600 file (an existing one is kept).
fn make_token(path: &Path) -> std::io::Result<()> {
    use std::io::{Read, Write};
    use std::os::unix::fs::OpenOptionsExt;
    let mut raw = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut raw)?;
    let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let mut file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(f) => f,
        // Made meanwhile by someone else: theirs stands.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(()),
        Err(e) => return Err(e),
    };
    file.write_all(format!("{hex}\n").as_bytes())?;
    file.sync_all()
}

/// Who may upgrade, and as whom.
struct Gate {
    auth: WsAuth,
    /// SHA-256 of the token (token mode).
    token: Option<[u8; 32]>,
    header: HeaderName,
    /// `none` on a loopback address: the `Host` must be loopback too (DNS rebinding).
    loopback_host_only: bool,
    daemon_user: String,
}

/// A refused upgrade: the HTTP status and a short body saying what to do.
#[derive(Debug, Clone, Copy)]
struct Refusal(StatusCode, &'static str);

impl Gate {
    /// The user this request connects as, or why it may not.
    fn admit(&self, req: &Request) -> Result<String, Refusal> {
        match self.auth {
            WsAuth::Token => {
                let presented = bearer(req).or_else(|| query_token(req));
                match (presented, &self.token) {
                    (Some(t), Some(want))
                        if digest_eq(&Sha256::digest(t.as_bytes()).into(), want) =>
                    {
                        Ok(self.daemon_user.clone())
                    }
                    (Some(_), _) => Err(Refusal(
                        StatusCode::UNAUTHORIZED,
                        "wrong token: use the one in paddockd's ws-token file (or ws_token_file)\n",
                    )),
                    (None, _) => Err(Refusal(
                        StatusCode::UNAUTHORIZED,
                        "a token is needed: send `Authorization: Bearer TOKEN` or add ?token=TOKEN to the URL\n",
                    )),
                }
            }
            WsAuth::TrustedHeader => {
                self.same_origin(req, true)?;
                let user = req
                    .headers()
                    .get(&self.header)
                    .and_then(|v| v.to_str().ok())
                    .map(str::trim)
                    .filter(|u| !u.is_empty());
                match user {
                    Some(u)
                        if u.chars().count() <= MAX_USER_CHARS
                            && !u.chars().any(char::is_control) =>
                    {
                        Ok(u.to_owned())
                    }
                    Some(_) => Err(Refusal(
                        StatusCode::UNAUTHORIZED,
                        "the user header names no usable user (too long, or control characters)\n",
                    )),
                    None => Err(Refusal(
                        StatusCode::UNAUTHORIZED,
                        "no user header: connect through the authenticating proxy\n",
                    )),
                }
            }
            WsAuth::None => {
                if self.loopback_host_only && !host_is_loopback(req) {
                    return Err(Refusal(
                        StatusCode::FORBIDDEN,
                        "this WebSocket answers only to a loopback Host (localhost, 127.0.0.1, [::1])\n",
                    ));
                }
                self.same_origin(req, false)?;
                Ok(self.daemon_user.clone())
            }
        }
    }

    /// A browser's `Origin` must name the host it connects to (behind a proxy, the one the
    /// proxy forwards as `X-Forwarded-Host`, else `Host`). Clients that are not browsers send
    /// no `Origin` and pass.
    fn same_origin(&self, req: &Request, proxied: bool) -> Result<(), Refusal> {
        let Some(origin) = req.headers().get(header::ORIGIN) else {
            return Ok(());
        };
        let refused = Refusal(
            StatusCode::FORBIDDEN,
            "a browser page may connect only from the origin it connects to\n",
        );
        let origin = origin.to_str().map_err(|_| refused)?;
        let (scheme, authority) = origin.split_once("://").ok_or(refused)?;
        let default_port = match scheme.to_ascii_lowercase().as_str() {
            "http" | "ws" => ":80",
            "https" | "wss" => ":443",
            _ => return Err(refused),
        };
        let forwarded = proxied
            .then(|| req.headers().get("x-forwarded-host"))
            .flatten();
        let Some(host) = forwarded
            .or_else(|| req.headers().get(header::HOST))
            .and_then(|h| h.to_str().ok())
        else {
            return Err(refused);
        };
        let norm = |s: &str| {
            let s = s.trim().to_ascii_lowercase();
            s.strip_suffix(default_port).map(str::to_owned).unwrap_or(s)
        };
        if norm(authority) == norm(host) {
            Ok(())
        } else {
            Err(refused)
        }
    }
}

/// The token of an `Authorization: Bearer TOKEN` header.
fn bearer(req: &Request) -> Option<String> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_owned())
}

/// The `token` query parameter, percent-decoded.
fn query_token(req: &Request) -> Option<String> {
    req.uri()
        .query()?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
        .and_then(percent_decode)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Compares two digests in time independent of where they differ.
fn digest_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether the request's `Host` names a loopback address (`localhost` included).
fn host_is_loopback(req: &Request) -> bool {
    let Some(host) = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
    else {
        return false;
    };
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':')
            .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
            .map_or(host, |(name, _)| name)
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn refusal_response(r: Refusal, auth: WsAuth) -> ErrorResponse {
    let mut resp = ErrorResponse::new(Some(r.1.to_owned()));
    *resp.status_mut() = r.0;
    let headers = resp.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(r.1.len()));
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    if r.0 == StatusCode::UNAUTHORIZED && auth == WsAuth::Token {
        headers.insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"paddockd\""),
        );
    }
    resp
}

/// Accepts WebSocket clients until the daemon shuts down; each connection is a task in
/// `connections` from the moment it is accepted (closed with the others at shutdown), so no
/// upgrade waits for another. Until its upgrade is let in, a connection holds a waiting place
/// ([`crate::admission`]: a newer connection may close the oldest waiting one) and must
/// complete the upgrade within `net_header_timeout_ms`.
pub async fn serve(ws: WsListener, d: Arc<Daemon>, connections: TaskTracker) {
    let admission = crate::admission::Admission::new(d.cfg.net);
    loop {
        let (tcp, peer) = tokio::select! {
            () = d.shutdown.cancelled() => break,
            conn = ws.listener.accept() => match conn {
                Ok(c) => c,
                Err(e) => {
                    // Out of descriptors or similar: back off instead of spinning.
                    tracing::warn!("WebSocket accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let (d, gate) = (d.clone(), ws.gate.clone());
        let waiting = admission.wait(peer.ip());
        connections.spawn(async move {
            let timeout = d.cfg.net.header_timeout;
            let socket = tokio::select! {
                () = waiting.evicted() => {
                    tracing::debug!(%peer, "WebSocket upgrade dropped: newer connections needed its place");
                    return;
                }
                up = upgrade(tcp, peer, &gate, timeout) => up,
            };
            drop(waiting);
            let Some(socket) = socket else {
                return;
            };
            serve_socket(socket, d).await;
        });
    }
    tracing::debug!("WebSocket listener stopped");
}

struct Upgraded {
    ws: WebSocketStream<TcpStream>,
    peer: SocketAddr,
    user: String,
}

/// The HTTP upgrade, with the gate's verdict; `None` when refused or failed (logged).
async fn upgrade(
    tcp: TcpStream,
    peer: SocketAddr,
    gate: &Gate,
    timeout: Duration,
) -> Option<Upgraded> {
    let _ = tcp.set_nodelay(true);
    let mut admitted: Option<String> = None;
    let mut refused: Option<&'static str> = None;
    // The library's callback type: its error is the whole refusal response.
    #[allow(clippy::result_large_err)]
    let callback = |req: &Request, resp: Response| match gate.admit(req) {
        Ok(user) => {
            admitted = Some(user);
            Ok(resp)
        }
        Err(r) => {
            refused = Some(r.1);
            Err(refusal_response(r, gate.auth))
        }
    };
    let config = WebSocketConfig::default()
        .read_buffer_size(64 * 1024)
        .write_buffer_size(64 * 1024)
        .max_message_size(Some(MAX_LINE_BYTES))
        .max_frame_size(Some(MAX_LINE_BYTES));
    let result = tokio::time::timeout(
        timeout,
        tokio_tungstenite::accept_hdr_async_with_config(tcp, callback, Some(config)),
    )
    .await;
    match (result, admitted) {
        (Ok(Ok(ws)), Some(user)) => Some(Upgraded { ws, peer, user }),
        (Ok(Ok(_)), None) => None,
        (Ok(Err(e)), _) => {
            match refused {
                Some(why) => tracing::warn!(%peer, "WebSocket refused: {}", why.trim_end()),
                None => tracing::debug!(%peer, "WebSocket upgrade failed: {e}"),
            }
            None
        }
        (Err(_), _) => {
            tracing::debug!(%peer, "WebSocket upgrade timed out");
            None
        }
    }
}

/// How long a connection closed for an oversize message keeps reading (and discarding) what
/// the client still sends, so that closing does not reset the connection under the
/// explanation: unread input at close makes the kernel send a reset, and the client would lose
/// the error and the close frame.
const LINGER: Duration = Duration::from_secs(2);

type Reader = SplitStream<WebSocketStream<TcpStream>>;

async fn serve_socket(up: Upgraded, d: Arc<Daemon>) {
    let id = d.next_client_id();
    tracing::info!(client = id, peer = %up.peer, user = %up.user, "WebSocket client connected");
    let (sink, stream) = up.ws.split();
    let (too_big_tx, too_big_rx) = oneshot::channel();
    let source = WsSource {
        stream: Some(stream),
        too_big: Some(too_big_tx),
    };
    let sink = WsSink {
        sink,
        too_big: too_big_rx,
        shutdown: d.shutdown.clone(),
    };
    crate::connection::serve_client(d, id, up.user, source, sink).await;
}

/// Messages in: each text message is one protocol message.
struct WsSource {
    /// `None` once it cannot go on (an oversize message left it mid-frame).
    stream: Option<Reader>,
    /// Hands the reader to the sink after an oversize message, for a lingering close.
    too_big: Option<oneshot::Sender<Reader>>,
}

impl FrameSource for WsSource {
    async fn next_frame(&mut self) -> Option<Result<Vec<u8>, FrameError>> {
        loop {
            let stream = self.stream.as_mut()?;
            match stream.next().await? {
                Ok(Message::Text(text)) => return Some(Ok(text.as_bytes().to_vec())),
                Ok(Message::Binary(_)) => {
                    return Some(Err(FrameError::Malformed(
                        "binary WebSocket messages are not accepted; send each protocol message as one text message".into(),
                    )));
                }
                // Pings are answered by the library; after a close, the next read sends the
                // reply and ends the stream.
                Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_) | Message::Close(_)) => {
                }
                Err(WsError::Capacity(CapacityError::MessageTooLong { size, max_size })) => {
                    // The rest of the message is still on the wire: this stream cannot be
                    // read further, unlike a socket line that is skipped up to its newline.
                    // The sink closes it with 1009 once the error has gone out.
                    if let (Some(stream), Some(tx)) = (self.stream.take(), self.too_big.take()) {
                        let _ = tx.send(stream);
                    }
                    return Some(Err(FrameError::TooLong {
                        len: size,
                        max: max_size,
                    }));
                }
                Err(e) => {
                    tracing::debug!("WebSocket read ended: {e}");
                    return None;
                }
            }
        }
    }
}

/// Lines out: each one a text message, without its newline.
struct WsSink {
    sink: SplitSink<WebSocketStream<TcpStream>, Message>,
    /// The reader, when the source gave up on an oversize message.
    too_big: oneshot::Receiver<Reader>,
    shutdown: CancellationToken,
}

fn io_err(e: WsError) -> std::io::Error {
    match e {
        WsError::Io(e) => e,
        other => std::io::Error::other(other),
    }
}

impl FrameSink for WsSink {
    async fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        let text = line.strip_suffix('\n').unwrap_or(line);
        // `feed` waits while the previous message is still stuck in the socket, so at most
        // one message waits beyond the write buffer: the queue in front stays the bound.
        self.sink.feed(Message::text(text)).await.map_err(io_err)
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        self.sink.flush().await.map_err(io_err)
    }

    async fn finish(mut self, killed: bool) {
        let too_big = self.too_big.try_recv().ok();
        let (code, reason) = if too_big.is_some() {
            (CloseCode::Size, "message too big")
        } else if self.shutdown.is_cancelled() {
            (CloseCode::Away, "paddockd is shutting down")
        } else if killed {
            (
                CloseCode::Policy,
                "the client did not keep up with its messages",
            )
        } else {
            (CloseCode::Normal, "")
        };
        let frame = CloseFrame {
            code,
            reason: reason.into(),
        };
        // A client that is gone already makes this fail, which is fine.
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            let _ = self.sink.send(Message::Close(Some(frame))).await;
        })
        .await;
        if let Some(reader) = too_big
            && let Ok(ws) = reader.reunite(self.sink)
        {
            linger(ws.into_inner()).await;
        }
    }
}

/// Ends our side of `tcp`, then reads and drops what the client still sends, for at most
/// [`LINGER`], before the connection is closed.
async fn linger(mut tcp: TcpStream) {
    let _ = tcp.shutdown().await;
    let mut buf = vec![0u8; 64 * 1024];
    let _ = tokio::time::timeout(LINGER, async {
        while let Ok(n) = tcp.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn req(headers: &[(&str, &str)], uri: &str) -> Request {
        let mut b = Request::builder().uri(uri);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(()).unwrap()
    }

    fn gate(auth: WsAuth, loopback_host_only: bool) -> Gate {
        Gate {
            auth,
            token: Some(Sha256::digest(b"sixteen-chars-token").into()),
            header: HeaderName::from_static("x-forwarded-user"),
            loopback_host_only,
            daemon_user: "me".into(),
        }
    }

    #[test]
    fn token_by_header_or_query_and_nothing_else() {
        let g = gate(WsAuth::Token, false);
        let ok = |r: Result<String, Refusal>| r.map_err(|e| e.0);
        assert_eq!(
            ok(g.admit(&req(
                &[("Authorization", "Bearer sixteen-chars-token")],
                "/"
            ))),
            Ok("me".into())
        );
        assert_eq!(
            ok(g.admit(&req(
                &[("authorization", "bearer  sixteen-chars-token ")],
                "/"
            ))),
            Ok("me".into())
        );
        assert_eq!(
            ok(g.admit(&req(&[], "/ws?a=1&token=sixteen%2Dchars-token"))),
            Ok("me".into())
        );
        // Any origin may present the token: it is not ambient.
        assert_eq!(
            ok(g.admit(&req(
                &[("Origin", "https://elsewhere.example")],
                "/?token=sixteen-chars-token"
            ))),
            Ok("me".into())
        );
        for bad in [
            req(&[], "/"),
            req(&[("Authorization", "Bearer wrong")], "/"),
            req(&[("Authorization", "Basic sixteen-chars-token")], "/"),
            req(&[], "/?token=sixteen-chars-toke"),
            req(&[], "/?tok=sixteen-chars-token"),
        ] {
            assert_eq!(ok(g.admit(&bad)), Err(StatusCode::UNAUTHORIZED));
        }
    }

    #[test]
    fn trusted_header_names_the_user_and_checks_the_origin() {
        let g = gate(WsAuth::TrustedHeader, false);
        let ok = |r: Result<String, Refusal>| r.map_err(|e| e.0);
        assert_eq!(
            ok(g.admit(&req(&[("X-Forwarded-User", "alice")], "/"))),
            Ok("alice".into())
        );
        assert_eq!(ok(g.admit(&req(&[], "/"))), Err(StatusCode::UNAUTHORIZED));
        assert_eq!(
            ok(g.admit(&req(&[("X-Forwarded-User", "  ")], "/"))),
            Err(StatusCode::UNAUTHORIZED)
        );
        let same = req(
            &[
                ("X-Forwarded-User", "bob"),
                ("Origin", "https://paddock.example"),
                ("Host", "127.0.0.1:7777"),
                ("X-Forwarded-Host", "paddock.example"),
            ],
            "/",
        );
        assert_eq!(ok(g.admit(&same)), Ok("bob".into()));
        let cross = req(
            &[
                ("X-Forwarded-User", "bob"),
                ("Origin", "https://evil.example"),
                ("Host", "paddock.example"),
            ],
            "/",
        );
        assert_eq!(ok(g.admit(&cross)), Err(StatusCode::FORBIDDEN));
    }

    #[test]
    fn open_mode_on_loopback_wants_a_loopback_host_and_the_same_origin() {
        let g = gate(WsAuth::None, true);
        let ok = |r: Result<String, Refusal>| r.map_err(|e| e.0);
        for host in [
            "127.0.0.1:7777",
            "localhost:7777",
            "[::1]:7777",
            "LOCALHOST",
        ] {
            assert_eq!(
                ok(g.admit(&req(&[("Host", host)], "/"))),
                Ok("me".into()),
                "{host}"
            );
        }
        // DNS rebinding: a page at evil.example resolved to 127.0.0.1.
        let rebound = req(
            &[
                ("Host", "evil.example:7777"),
                ("Origin", "http://evil.example:7777"),
            ],
            "/",
        );
        assert_eq!(ok(g.admit(&rebound)), Err(StatusCode::FORBIDDEN));
        let other_page = req(
            &[
                ("Host", "localhost:7777"),
                ("Origin", "http://localhost:3000"),
            ],
            "/",
        );
        assert_eq!(ok(g.admit(&other_page)), Err(StatusCode::FORBIDDEN));
        let same = req(
            &[
                ("Host", "localhost:7777"),
                ("Origin", "http://LOCALHOST:7777"),
            ],
            "/",
        );
        assert_eq!(ok(g.admit(&same)), Ok("me".into()));
    }

    #[test]
    fn bind_safety() {
        let mut ws = WsConfig {
            listen: Some("0.0.0.0:7777".parse().unwrap()),
            auth: WsAuth::None,
            ..WsConfig::default()
        };
        let err = ws.check().unwrap_err().to_string();
        assert!(
            err.contains(ALLOW_OPEN_ENV) && err.contains("127.0.0.1:7777"),
            "{err}"
        );
        ws.auth = WsAuth::TrustedHeader;
        let err = ws.check().unwrap_err().to_string();
        assert!(err.contains("X-Forwarded-User"), "{err}");
        ws.dangerously_allow_open = true;
        assert!(ws.check().unwrap().unwrap().starts_with("DANGER"));
        ws.dangerously_allow_open = false;
        ws.auth = WsAuth::Token;
        assert!(ws.check().unwrap().is_none());
        ws.auth = WsAuth::None;
        ws.listen = Some("[::1]:7777".parse().unwrap());
        assert!(ws.check().unwrap().is_none());
        ws.trusted_header = "not a header".into();
        assert!(matches!(ws.check(), Err(WsStartError::BadHeader(_))));
    }

    #[test]
    fn generated_token_is_private_and_reused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (first, path) = load_token(None, dir.path()).unwrap();
        assert_eq!(path, dir.path().join(TOKEN_FILE));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::read_to_string(&path).unwrap().trim().len(), 64);
        let (again, _) = load_token(None, dir.path()).unwrap();
        assert_eq!(first, again);
        // A named file must exist and hold a long enough token.
        let named = dir.path().join("mine");
        assert!(matches!(
            load_token(Some(&named), dir.path()),
            Err(WsStartError::TokenIo { .. })
        ));
        std::fs::write(&named, "short\n").unwrap();
        assert!(matches!(
            load_token(Some(&named), dir.path()),
            Err(WsStartError::WeakToken { chars: 5, .. })
        ));
    }
}
