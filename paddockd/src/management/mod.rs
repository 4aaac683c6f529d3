//! The management endpoint: an MCP server over HTTP for external clients (another Claude Code,
//! a script) to list projects and chats, create chats and send messages, and more, each client
//! only the tools its `allow` list grants (read-only by default). Off unless
//! `mcp_listen` is set. Reference §7, exemption 3: it has its own per-client tokens,
//! independent of the WebSocket's auth (`ws_auth` and its token play no part here).
//!
//! Transport: MCP's Streamable HTTP, the minimal correct part of it. `POST /mcp` carries one
//! JSON-RPC message or a batch and is answered `application/json` (200), or 202 with no body
//! when it held only notifications; there is no event stream (`GET /mcp` is 405) and no
//! session (`DELETE /mcp` is 405 too; `Mcp-Session-Id` is neither issued nor needed). Any
//! other path is 404.
//!
//! Auth: every request needs `Authorization: Bearer TOKEN` with the token of one of the
//! clients in the config file (`[mcp_clients.NAME]`, `token_file` or `token`, at least
//! [`MIN_TOKEN_CHARS`] characters). Tokens are kept as SHA-256 digests and compared in constant
//! time against every client's, and never logged; a miss is 401 with `WWW-Authenticate:
//! Bearer`. The client's name is what the log records for each call. Since no request gets in
//! without a token, any address may be bound (a non-loopback one should sit behind TLS); but
//! `mcp_listen` with no client configured refuses to start, saying how to add one. A request
//! with an `Origin` (a browser) must come from the origin it is sent to (DNS rebinding).
//!
//! Bounds: every connection is accepted at once and served by its own task. Until its request
//! shows a client's token it holds a waiting place ([`crate::admission`]: `net_waiting_per_peer`
//! per address, 256 in all, a newer connection closing the oldest waiting one); a new
//! connection's first head must arrive within `net_header_timeout_ms` (10 s), a kept-alive
//! one's next head and each body within [`READ_TIMEOUT`] (an idle keep-alive connection is
//! closed then). At most [`MAX_CONNECTIONS`] authenticated requests are served at once (the
//! next waits for a slot). Heads are at most 16 KiB; bodies at most [`MAX_BODY_BYTES`] (413
//! beyond, and the connection is closed); a batch at most [`rpc::MAX_BATCH`] messages.

mod http;
pub mod rpc;
mod tools;

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tokio_util::task::TaskTracker;

pub use crate::config::management::{
    Cidr, ClientFile, ClientToken, DEFAULT_ALLOW, Listed, MIN_TOKEN_CHARS, ManagementConfig,
    ManagementError, Scope, allowed,
};
use crate::config::management::{canonical, check_strength, default_trusted, valid_instance_id};
use crate::handles::Daemon;
use http::{BodyLength, Conn, Head, Response, Status};

/// The path of the endpoint.
pub const PATH: &str = "/mcp";

/// The largest request body read; larger is refused with 413.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// Authenticated requests served at once.
pub const MAX_CONNECTIONS: usize = 32;

/// How long a request (head and body) may take to arrive, counted from the end of the last
/// response; an idle connection is closed after it.
pub const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a connection closed after an error keeps draining what the client still sends.
const LINGER: Duration = Duration::from_secs(2);

/// How a request reached the endpoint: from where, and whether its token crossed a network in
/// the clear.
#[derive(Debug, PartialEq, Eq)]
enum Transport {
    /// Safe: over loopback, or through a trusted proxy that says it took HTTPS. `client` is the
    /// address the log names (the forwarded one, from a trusted proxy).
    Secure { client: IpAddr },
    /// Plaintext from another machine (or a forwarded scheme from a peer not trusted).
    Plaintext { spoofed: bool },
}

/// The reference's plaintext guard: a request from another machine must come through a
/// trusted proxy that terminated TLS (`X-Forwarded-Proto: https`); a loopback peer never left
/// this machine. `X-Forwarded-For` is believed only from a trusted proxy: its rightmost entry
/// that is not itself a trusted proxy is the client.
fn transport(peer: IpAddr, head: &Head, trusted: &[Cidr]) -> Transport {
    let peer = canonical(peer);
    let is_trusted = |ip: IpAddr| trusted.iter().any(|c| c.contains(ip));
    let https = head
        .header("x-forwarded-proto")
        .and_then(|v| v.split(',').next())
        .is_some_and(|p| p.trim().eq_ignore_ascii_case("https"));
    if is_trusted(peer) {
        let forwarded = head.header("x-forwarded-for").and_then(|v| {
            v.split(',')
                .rev()
                .filter_map(|e| e.trim().parse::<IpAddr>().ok().map(canonical))
                .find(|ip| !is_trusted(*ip))
        });
        if https || peer.is_loopback() {
            return Transport::Secure {
                client: forwarded.unwrap_or(peer),
            };
        }
        return Transport::Plaintext { spoofed: false };
    }
    if peer.is_loopback() {
        return Transport::Secure { client: peer };
    }
    Transport::Plaintext { spoofed: https }
}

/// The instance id a `pdk_<instance>_<secret>` token is bound to, if it has that shape.
fn bound_instance(token: &str) -> Option<&str> {
    let rest = token.strip_prefix("pdk_")?;
    let (id, secret) = rest.split_once('_')?;
    (!id.is_empty() && !secret.is_empty()).then_some(id)
}

/// This daemon's instance id: `mcp_instance_id`, else the one in `<data>/instance-id`, made
/// (a random UUID) and written there the first time.
pub fn instance_id(cfg: &crate::Config) -> Result<String, ManagementError> {
    if let Some(id) = &cfg.management.instance_id {
        return Ok(id.clone());
    }
    let path = cfg.data_dir.join("instance-id");
    let io = |error| ManagementError::InstanceIdIo {
        path: path.clone(),
        error,
    };
    match std::fs::read_to_string(&path) {
        Ok(text) if valid_instance_id(text.trim()) => return Ok(text.trim().to_owned()),
        Ok(_) => {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "it does not hold an instance id (letters, digits, '-' and '_'); delete it to make a new one, or set mcp_instance_id",
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    let id = uuid::Uuid::new_v4().to_string();
    std::fs::create_dir_all(&cfg.data_dir).map_err(io)?;
    let tmp = cfg.data_dir.join("instance-id.tmp");
    std::fs::write(&tmp, format!("{id}\n")).map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)?;
    tracing::info!(instance = %id, "made this daemon's instance id in {}", path.display());
    Ok(id)
}

impl ManagementConfig {
    /// Every client's name and token digest (token files read now).
    fn digests(&self, instance: &str) -> Result<Vec<(String, [u8; 32])>, ManagementError> {
        let mut out: Vec<(String, [u8; 32])> = Vec::new();
        for (name, token) in &self.clients {
            let text = match token {
                ClientToken::Inline(t) => t.clone(),
                ClientToken::File(path) => {
                    let text = std::fs::read_to_string(path).map_err(|error| {
                        ManagementError::TokenIo {
                            client: name.clone(),
                            path: path.clone(),
                            error,
                        }
                    })?;
                    warn_if_readable(name, path);
                    text
                }
            };
            let from = match token {
                ClientToken::Inline(_) => String::new(),
                ClientToken::File(p) => format!(" in {}", p.display()),
            };
            let token = text.trim();
            check_strength(name, token, from)?;
            if let Some(bound) = bound_instance(token)
                && bound != instance
            {
                return Err(ManagementError::OtherInstance {
                    client: name.clone(),
                    bound: bound.to_owned(),
                    ours: instance.to_owned(),
                });
            }
            let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
            if let Some((other, _)) = out.iter().find(|(_, d)| digest_eq(d, &digest)) {
                return Err(ManagementError::SharedToken(other.clone(), name.clone()));
            }
            out.push((name.clone(), digest));
        }
        Ok(out)
    }
}

#[cfg(unix)]
fn warn_if_readable(client: &str, path: &Path) {
    use std::os::unix::fs::MetadataExt;
    if let Ok(meta) = std::fs::metadata(path)
        && meta.mode() & 0o077 != 0
    {
        tracing::warn!(
            "the token file {} of management client {client} can be read by other users; `chmod 600` it",
            path.display()
        );
    }
}

/// Compares two digests in time independent of where they differ.
fn digest_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The scope of a client the gate has none for (it has one for each).
static NO_SCOPE: Scope = Scope {
    reach: crate::reach::Reach {
        projects: Some(Vec::new()),
        deny: Vec::new(),
    },
    deny: Vec::new(),
};

/// Who may call, by token digest.
struct Gate {
    clients: Vec<(String, [u8; 32])>,
    /// Each client's `allow` entries (the default's for a client without).
    allow: BTreeMap<String, Vec<String>>,
    /// Each client's projects and `deny` (every project, nothing denied, for a client without).
    scopes: BTreeMap<String, Scope>,
    instance_id: String,
    trusted: Vec<Cidr>,
}

impl Gate {
    /// The client whose token `presented` is. Every client's digest is compared, in constant
    /// time, whatever matches. A token bound to another instance (`pdk_OTHER_...`) is no
    /// client's, whatever its secret.
    fn client(&self, presented: &str) -> Option<&str> {
        if bound_instance(presented).is_some_and(|b| b != self.instance_id) {
            return None;
        }
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        let mut found = None;
        for (name, want) in &self.clients {
            if digest_eq(&digest, want) {
                found = Some(name.as_str());
            }
        }
        found
    }
}

/// A bound listener with its gate, ready for [`serve`].
pub struct ManagementListener {
    listener: TcpListener,
    gate: Arc<Gate>,
}

/// Binds `mcp_listen` (if set) after reading every client's token.
pub async fn bind(cfg: &crate::Config) -> Result<Option<ManagementListener>, ManagementError> {
    let m = &cfg.management;
    m.check()?;
    let Some(addr) = m.listen else {
        return Ok(None);
    };
    let instance_id = instance_id(cfg)?;
    let clients = m.digests(&instance_id)?;
    let allow: BTreeMap<String, Vec<String>> = clients
        .iter()
        .map(|(name, _)| {
            let list = m
                .allow
                .get(name)
                .cloned()
                .unwrap_or_else(|| DEFAULT_ALLOW.iter().map(|e| (*e).to_owned()).collect());
            (name.clone(), list)
        })
        .collect();
    let scopes: BTreeMap<String, Scope> = clients
        .iter()
        .map(|(name, _)| {
            (
                name.clone(),
                m.scopes.get(name).cloned().unwrap_or_default(),
            )
        })
        .collect();
    for (name, list) in &allow {
        let scope = scopes.get(name).cloned().unwrap_or_default();
        let risky: Vec<&str> = tools::RISKY
            .iter()
            .copied()
            .filter(|t| scope.may_call(list, t))
            .collect();
        if !risky.is_empty() {
            tracing::warn!(
                client = %name,
                "management client {name} may call {}: it can start agents that run tools (code) on this machine, or clone repositories; keep its token secret",
                risky.join(", ")
            );
        }
    }
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|error| ManagementError::Bind {
            addr,
            hint: match error.kind() {
                std::io::ErrorKind::AddrInUse => {
                    "another program uses that port: choose another mcp_listen or stop that program"
                }
                std::io::ErrorKind::AddrNotAvailable => {
                    "that address is not one of this machine's: choose another mcp_listen"
                }
                std::io::ErrorKind::PermissionDenied => {
                    "ports below 1024 need privileges: choose a port above 1024"
                }
                _ => "check mcp_listen",
            },
            error,
        })?;
    let local = listener.local_addr().unwrap_or(addr);
    let _ = m.bound.set(local);
    let names: Vec<&str> = clients.iter().map(|(n, _)| n.as_str()).collect();
    tracing::info!(addr = %local, clients = ?names, instance = %instance_id, "paddockd listening for management clients on http://{local}{PATH}");
    Ok(Some(ManagementListener {
        listener,
        gate: Arc::new(Gate {
            clients,
            allow,
            scopes,
            instance_id,
            trusted: m.trusted_proxies.clone().unwrap_or_else(default_trusted),
        }),
    }))
}

/// Accepts management clients until the daemon shuts down; each connection is a task in
/// `connections` from the moment it is accepted, so no connection waits for another. Until its
/// request shows a client's token it holds a waiting place ([`crate::admission`]); an
/// authenticated request then waits only for one of the [`MAX_CONNECTIONS`] serving slots,
/// which only authenticated requests hold.
pub async fn serve(m: ManagementListener, d: Arc<Daemon>, connections: TaskTracker) {
    warn_unknown_projects(&m.gate, &d);
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let admission = crate::admission::Admission::new(d.cfg.net);
    loop {
        let (tcp, peer) = tokio::select! {
            () = d.shutdown.cancelled() => break,
            conn = m.listener.accept() => match conn {
                Ok(c) => c,
                Err(e) => {
                    // Out of descriptors or similar: back off instead of spinning.
                    tracing::warn!("management accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let (d, gate, slots) = (d.clone(), m.gate.clone(), slots.clone());
        let waiting = admission.wait(peer.ip());
        let admission = admission.clone();
        connections.spawn(async move {
            serve_connection(tcp, peer, waiting, &admission, &gate, &d, &slots).await;
        });
    }
    tracing::debug!("management listener stopped");
}

async fn serve_connection(
    tcp: TcpStream,
    peer: SocketAddr,
    waiting: crate::admission::Waiting,
    admission: &Arc<crate::admission::Admission>,
    gate: &Gate,
    d: &Daemon,
    slots: &Arc<Semaphore>,
) {
    let _ = tcp.set_nodelay(true);
    let mut conn = Conn::new(tcp);
    let mut waiting = Some(waiting);
    // The first head within the header deadline; a kept-alive connection's next one within
    // READ_TIMEOUT of the last response.
    let mut head_timeout = d.cfg.net.header_timeout;
    loop {
        // A kept-alive connection waits for its next request like a new one.
        let mut place = Some(waiting.take().unwrap_or_else(|| admission.wait(peer.ip())));
        let deadline = Instant::now() + head_timeout;
        head_timeout = READ_TIMEOUT;
        let head = tokio::select! {
            () = d.shutdown.cancelled() => return,
            () = evicted(&place) => {
                tracing::debug!(%peer, "management connection closed: newer connections needed its place");
                return;
            }
            head = conn.read_head(deadline) => head,
        };
        let head = match head {
            Ok(h) => h,
            Err(e) => {
                if let Some(status) = e.status() {
                    tracing::debug!(%peer, "management request refused: {e}");
                    let _ = conn
                        .write(&Response::text(status, format!("{e}\n")), false)
                        .await;
                    linger(conn, d).await;
                }
                return;
            }
        };
        let (response, keep_alive) =
            respond(&mut conn, &head, deadline, peer, &mut place, gate, d, slots).await;
        let keep_alive = keep_alive && head.keep_alive && !d.shutdown.is_cancelled();
        if conn.write(&response, keep_alive).await.is_err() {
            return;
        }
        if !keep_alive {
            linger(conn, d).await;
            return;
        }
    }
}

/// Closes a connection after its last response ([`Conn::close`]), for at most [`LINGER`] and
/// not past the daemon's shutdown.
async fn linger(conn: Conn<TcpStream>, d: &Daemon) {
    tokio::select! {
        () = d.shutdown.cancelled() => {}
        () = conn.close(Instant::now() + LINGER) => {}
    }
}

/// Resolves when the connection's waiting place was taken by a newer connection; never when
/// it holds none (its request was authenticated).
async fn evicted(place: &Option<crate::admission::Waiting>) {
    match place {
        Some(w) => w.evicted().await,
        None => std::future::pending().await,
    }
}

/// The answer to one request, and whether the connection may serve another (its body was
/// read in full). The token is checked first, from the head alone; the request keeps its
/// waiting `place` until then, then waits for a serving slot.
#[allow(clippy::too_many_arguments)]
async fn respond<S>(
    conn: &mut Conn<S>,
    head: &Head,
    deadline: Instant,
    peer: SocketAddr,
    place: &mut Option<crate::admission::Waiting>,
    gate: &Gate,
    d: &Daemon,
    slots: &Semaphore,
) -> (Response, bool)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let len = match body_length(head) {
        Ok(len) => len,
        Err(refused) => return (refused, false),
    };
    // The token is checked before a byte of the body is read: a caller without one costs
    // no more than its head. Refused, the connection closes (its body is never read).
    let (client, from) = match authenticate(head, peer, gate) {
        Ok(who) => who,
        Err(refused) => return (refused, len.is_none()),
    };
    let body = tokio::select! {
        () = evicted(place) => {
            return (
                Response::text(
                    Status::REQUEST_TIMEOUT,
                    "the body came too slowly while newer connections waited; send it at once\n",
                ),
                false,
            );
        }
        body = conn.read_body(len.unwrap_or(0), deadline) => body,
    };
    let body = match body {
        Ok(b) => b,
        Err(e) => {
            let status = e.status().unwrap_or(Status::BAD_REQUEST);
            return (Response::text(status, format!("{e}\n")), false);
        }
    };
    if let Err(refused) = check_call(head, len) {
        return (refused, true);
    }
    // Authenticated: no longer one of the waiting, and served once a slot is free.
    drop(place.take());
    let Ok(_slot) = slots.acquire().await else {
        return (
            Response::text(Status::SERVICE_UNAVAILABLE, "paddockd is shutting down\n"),
            false,
        );
    };
    let host = tools::Host {
        d,
        client,
        allow: gate.allow.get(client).map_or(&[][..], Vec::as_slice),
        scope: gate.scopes.get(client).unwrap_or(&NO_SCOPE),
        instance_id: &gate.instance_id,
        from,
    };
    match rpc::answer(&body, &host).await {
        rpc::Answer::Accepted => (Response::empty(Status::ACCEPTED), true),
        rpc::Answer::Json { bad_request, body } => {
            let status = if bad_request {
                Status::BAD_REQUEST
            } else {
                Status::OK
            };
            (Response::json(status, body), true)
        }
    }
}

/// How long the body is (`None`: there is none), or why it will not be read: a body without
/// a Content-Length, a malformed one, or one over [`MAX_BODY_BYTES`].
fn body_length(head: &Head) -> Result<Option<usize>, Response> {
    let len = match head.body() {
        Ok(BodyLength::Exactly(n)) => Some(n),
        Ok(BodyLength::None) => None,
        Err(status) => {
            let why = if status == Status::NOT_IMPLEMENTED {
                "Transfer-Encoding is not supported: send the body with a Content-Length\n"
            } else {
                "a malformed Content-Length\n"
            };
            return Err(Response::text(status, why));
        }
    };
    if len.is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err(Response::text(
            Status::PAYLOAD_TOO_LARGE,
            format!("a request body may be at most {MAX_BODY_BYTES} bytes\n"),
        ));
    }
    Ok(len)
}

/// Which client asks, and from where, or why it is refused: another path, plaintext from
/// another machine, a page of another origin, a missing or unknown token.
fn authenticate<'g>(
    head: &Head,
    peer: SocketAddr,
    gate: &'g Gate,
) -> Result<(&'g str, IpAddr), Response> {
    if head.path != PATH {
        return Err(Response::text(
            Status::NOT_FOUND,
            format!("not found: the management endpoint is POST {PATH}\n"),
        ));
    }
    let from = match transport(peer.ip(), head, &gate.trusted) {
        Transport::Secure { client } => client,
        Transport::Plaintext { spoofed } => {
            tracing::warn!(%peer, "management request refused: plaintext from another machine (a token would cross the network in the clear)");
            let why = if spoofed {
                format!(
                    "HTTPS required: X-Forwarded-Proto was ignored because {} is not a trusted proxy; if it is your TLS-terminating proxy, add it to mcp_trusted_proxies in paddockd's config file\n",
                    peer.ip()
                )
            } else {
                "HTTPS required: from another machine, reach this endpoint through a TLS-terminating proxy listed in mcp_trusted_proxies (which sends X-Forwarded-Proto: https), or over loopback (an ssh tunnel)\n".to_owned()
            };
            return Err(Response::text(Status::FORBIDDEN, why));
        }
    };
    if !same_origin(head) {
        tracing::warn!(%from, "management request refused: a browser page from another origin");
        return Err(Response::text(
            Status::FORBIDDEN,
            "a browser page may call this endpoint only from the origin it is served on\n",
        ));
    }
    let Some(client) = bearer(head).and_then(|t| gate.client(t)) else {
        let why = if bearer(head).is_some() {
            tracing::warn!(%from, "management request refused: a token no client has");
            "wrong token: use the token of one of the [mcp_clients.NAME] in paddockd's config file\n"
        } else {
            "a token is needed: send `Authorization: Bearer TOKEN` with a token of one of the [mcp_clients.NAME] in paddockd's config file\n"
        };
        return Err(Response::text(Status::UNAUTHORIZED, why)
            .with_header("WWW-Authenticate", "Bearer realm=\"paddockd\""));
    };
    Ok((client, from))
}

/// Why an authenticated request is not a JSON-RPC call this endpoint serves: not a POST, no
/// Content-Length, not JSON, or an MCP protocol version it does not speak.
fn check_call(head: &Head, len: Option<usize>) -> Result<(), Response> {
    if head.method != "POST" {
        return Err(Response::text(
            Status::METHOD_NOT_ALLOWED,
            format!(
                "{} is not served: POST JSON-RPC to {PATH} (no event stream, no sessions)\n",
                head.method
            ),
        )
        .with_header("Allow", "POST"));
    }
    if len.is_none() {
        return Err(Response::text(
            Status::LENGTH_REQUIRED,
            "send the JSON-RPC body with a Content-Length\n",
        ));
    }
    if let Some(ct) = head.header("content-type")
        && !ct
            .split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    {
        return Err(Response::text(
            Status::UNSUPPORTED_MEDIA_TYPE,
            "the body must be JSON (Content-Type: application/json)\n",
        ));
    }
    if let Some(v) = head.header("mcp-protocol-version")
        && !rpc::supported_version(v)
    {
        return Err(Response::text(
            Status::BAD_REQUEST,
            format!(
                "MCP-Protocol-Version {:?} is not supported; this server speaks {}\n",
                v.trim(),
                crate::mcp::SUPPORTED_PROTOCOL_VERSIONS.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Logs the slugs in a client's `projects` or `deny_projects` that name no project (yet): not
/// an error, since a project may be created later, but likely a typo.
fn warn_unknown_projects(gate: &Gate, d: &Daemon) {
    let Ok(projects) = d.projects.list() else {
        return;
    };
    for (name, scope) in &gate.scopes {
        let unknown: Vec<&str> = scope
            .reach
            .projects
            .iter()
            .flatten()
            .chain(&scope.reach.deny)
            .map(String::as_str)
            .filter(|s| *s != "*" && !projects.iter().any(|p| p.slug == *s))
            .collect();
        if !unknown.is_empty() {
            tracing::warn!(client = %name, "mcp_clients.{name}: no project has the slug {unknown:?} (yet); the client reaches it once one does");
        }
    }
}

/// The token of an `Authorization: Bearer TOKEN` header.
fn bearer(head: &Head) -> Option<&str> {
    let (scheme, token) = head.header("authorization")?.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// A browser's `Origin` must name the host it sends to; other clients send none and pass.
fn same_origin(head: &Head) -> bool {
    let Some(origin) = head.header("origin") else {
        return true;
    };
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => return false,
    };
    let Some(host) = head.header("host") else {
        return false;
    };
    let norm = |s: &str| {
        let s = s.trim().trim_end_matches('/').to_ascii_lowercase();
        s.strip_suffix(default_port).map(str::to_owned).unwrap_or(s)
    };
    norm(authority) == norm(host)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::config::management::*;

    fn file(token: Option<&str>, token_file: Option<&str>) -> ClientFile {
        ClientFile {
            token: token.map(str::to_owned),
            token_file: token_file.map(std::path::PathBuf::from),
            allow: None,
            ..ClientFile::default()
        }
    }

    #[test]
    fn management_scopes_confine_projects_and_deny_tools() {
        let list = |l: &[&str]| l.iter().map(|e| (*e).to_owned()).collect::<Vec<_>>();
        let mut t = file(Some("0123456789abcdef"), None);
        t.projects = Some(list(&["web", " "]));
        t.deny = Some(list(&["create_*", "archive_chat"]));
        let mut open = file(Some("0123456789abcdef"), None);
        open.projects = Some(list(&["*"]));
        open.deny_projects = Some(list(&[""]));
        let mut none = file(Some("0123456789abcdef"), None);
        none.projects = Some(Vec::new());
        let tables = BTreeMap::from([
            ("a".to_owned(), t),
            ("b".to_owned(), open),
            ("c".to_owned(), none),
            ("d".to_owned(), file(None, Some("x"))),
        ]);
        let scopes = scopes_from_file(&tables).unwrap();
        let a = &scopes["a"];
        assert!(
            a.reaches("web") && a.reaches(""),
            "a blank entry is the root workspace"
        );
        assert!(!a.reaches("api"));
        let why = a.refusal("a", "api").unwrap();
        assert!(
            why.contains("mcp_clients.a.projects") && why.contains("\"api\""),
            "{why}"
        );
        assert!(a.may_call(&list(&["*"]), "list_chats"));
        assert!(
            !a.may_call(&list(&["*"]), "create_chat"),
            "deny wins over allow"
        );
        assert!(!a.may_call(&list(&["*"]), "archive_chat"));
        let b = &scopes["b"];
        assert!(b.reaches("api") && !b.reaches(""));
        assert!(
            b.refusal("b", "")
                .unwrap()
                .contains("mcp_clients.b.deny_projects")
        );
        assert!(!scopes["c"].reaches("web"), "an empty list reaches nothing");
        assert!(scopes["d"].reaches("web") && !scopes["d"].confined());
        let mut bad = file(Some("0123456789abcdef"), None);
        bad.deny = Some(list(&["drop_tables"]));
        let err = scopes_from_file(&BTreeMap::from([("e".to_owned(), bad)]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("mcp_clients.e.deny") && err.contains("drop_tables"),
            "{err}"
        );
    }

    fn head_with(headers: &[(&str, &str)]) -> Head {
        let mut raw = String::from("POST /mcp HTTP/1.1\r\nHost: a\r\n");
        for (n, v) in headers {
            raw.push_str(&format!("{n}: {v}\r\n"));
        }
        raw.push_str("\r\n");
        http::parse_head(raw.as_bytes()).unwrap().unwrap().0
    }

    #[test]
    fn management_transport_believes_only_trusted_proxies() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let proxies: Vec<Cidr> = trusted_from(&Listed::One("10.0.0.0/8, fd00::1".into())).unwrap();
        let fwd = head_with(&[
            ("X-Forwarded-Proto", "https"),
            ("X-Forwarded-For", "203.0.113.9, 10.1.1.1"),
        ]);
        let plain = head_with(&[]);
        // A trusted proxy that took HTTPS: the client is the rightmost untrusted entry.
        assert_eq!(
            transport(ip("10.2.3.4"), &fwd, &proxies),
            Transport::Secure {
                client: ip("203.0.113.9")
            }
        );
        assert_eq!(
            transport(ip("::ffff:10.2.3.4"), &fwd, &proxies),
            Transport::Secure {
                client: ip("203.0.113.9")
            }
        );
        // Plaintext through a trusted proxy, or from anyone else: refused.
        assert_eq!(
            transport(ip("10.2.3.4"), &plain, &proxies),
            Transport::Plaintext { spoofed: false }
        );
        assert_eq!(
            transport(ip("192.168.1.5"), &fwd, &proxies),
            Transport::Plaintext { spoofed: true }
        );
        assert_eq!(
            transport(ip("192.168.1.5"), &plain, &proxies),
            Transport::Plaintext { spoofed: false }
        );
        // Loopback never left the machine; its X-Forwarded-For is believed only when trusted.
        assert_eq!(
            transport(ip("127.0.0.1"), &fwd, &proxies),
            Transport::Secure {
                client: ip("127.0.0.1")
            }
        );
        assert_eq!(
            transport(ip("127.0.0.1"), &fwd, &default_trusted()),
            Transport::Secure {
                client: ip("10.1.1.1")
            }
        );
        assert!(trusted_from(&Listed::One("10.0.0.0/33".into())).is_err());
        assert!(trusted_from(&Listed::List(vec!["proxy.local".into()])).is_err());
        let c: Cidr = "192.168.0.0/23".parse().unwrap();
        assert!(c.contains(ip("192.168.1.200")) && !c.contains(ip("192.168.2.1")));
    }

    #[test]
    fn management_allow_lists_match_names_stars_and_prefixes() {
        let list = |l: &[&str]| l.iter().map(|e| (*e).to_owned()).collect::<Vec<String>>();
        let default = list(DEFAULT_ALLOW);
        let granted: Vec<&str> = crate::tool_catalogue::client_tool_names()
            .into_iter()
            .filter(|t| allowed(&default, t))
            .collect();
        assert_eq!(
            granted,
            ["list_projects", "list_chats", "read_chat", "list_triggers"]
        );
        assert!(crate::tool_catalogue::client_tools().all(|t| allowed(&list(&["*"]), t.name)));
        assert!(!allowed(&list(&["create_*x"]), "create_chat"));
        assert!(!allowed(&[], "list_chats"));

        let mut tables: BTreeMap<String, ClientFile> = BTreeMap::new();
        let mut t = file(Some("0123456789abcdef"), None);
        t.allow = Some(list(&["create_chat", " read_* "]));
        tables.insert("a".into(), t);
        tables.insert("b".into(), file(Some("0123456789abcdeX"), None));
        let allow = allow_from_file(&tables).unwrap();
        assert_eq!(allow.get("a"), Some(&list(&["create_chat", "read_*"])));
        assert_eq!(
            allow.get("b"),
            None,
            "no allow: the default, decided at bind"
        );
        let mut bad = file(Some("0123456789abcdef"), None);
        bad.allow = Some(list(&["delete_everything"]));
        tables.insert("c".into(), bad);
        let err = allow_from_file(&tables).unwrap_err().to_string();
        assert!(
            err.contains("mcp_clients.c.allow") && err.contains("delete_everything"),
            "{err}"
        );
        assert_eq!(bound_instance("pdk_shop_secret"), Some("shop"));
        assert_eq!(bound_instance("pdk__secret"), None);
        assert_eq!(bound_instance("plain-token-0123456789"), None);
    }

    #[test]
    fn management_clients_from_the_file() {
        let home = Path::new("/home/ana");
        let conf = Path::new("/home/ana/.config/paddock");
        let tables: BTreeMap<String, ClientFile> = [
            (
                "laptop".to_owned(),
                file(None, Some("~/.config/paddock/laptop.token")),
            ),
            ("script".to_owned(), file(None, Some("script.token"))),
            ("ci".to_owned(), file(Some("0123456789abcdef"), None)),
        ]
        .into();
        let clients = clients_from_file(tables, Some(conf), Some(home)).unwrap();
        assert_eq!(
            clients["laptop"],
            ClientToken::File("/home/ana/.config/paddock/laptop.token".into())
        );
        assert_eq!(
            clients["script"],
            ClientToken::File("/home/ana/.config/paddock/script.token".into())
        );
        assert_eq!(
            clients["ci"],
            ClientToken::Inline("0123456789abcdef".into())
        );
        // The token never shows in the configuration's debug output.
        assert!(!format!("{clients:?}").contains("0123456789abcdef"));
        assert!(!format!("{:?}", file(Some("0123456789abcdef"), None)).contains("0123"));

        let both = [("x".to_owned(), file(Some("0123456789abcdef"), Some("f")))].into();
        let err = clients_from_file(both, None, None).unwrap_err().to_string();
        assert!(err.contains("exactly one of token_file"), "{err}");
        let neither = [("x".to_owned(), file(None, None))].into();
        assert!(clients_from_file(neither, None, None).is_err());
        let bad = [("my laptop".to_owned(), file(Some("0123456789abcdef"), None))].into();
        let err = clients_from_file(bad, None, None).unwrap_err().to_string();
        assert!(err.contains("letters, digits"), "{err}");
    }

    #[test]
    fn management_check_needs_a_client_and_strong_tokens() {
        let mut m = ManagementConfig {
            listen: Some("127.0.0.1:7778".parse().unwrap()),
            ..Default::default()
        };
        let err = m.check().unwrap_err().to_string();
        for want in [
            "mcp_listen = 127.0.0.1:7778",
            "[mcp_clients.laptop]",
            "token_file",
        ] {
            assert!(err.contains(want), "{want} missing from: {err}");
        }
        m.clients
            .insert("ci".into(), ClientToken::Inline("short-secret".into()));
        let err = m.check().unwrap_err().to_string();
        assert!(
            err.contains("mcp_clients.ci") && err.contains("16"),
            "{err}"
        );
        assert!(!err.contains("short-secret"), "never the token: {err}");
        m.clients.insert(
            "ci".into(),
            ClientToken::Inline("a-long-enough-secret".into()),
        );
        m.check().unwrap();
        // No listener: nothing needed.
        assert!(ManagementConfig::default().check().is_ok());
    }

    #[test]
    fn management_token_files_are_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.token");
        std::fs::write(&good, "a-long-enough-secret\n").unwrap();
        let weak = dir.path().join("weak.token");
        std::fs::write(&weak, "short\n").unwrap();
        let mut m = ManagementConfig::default();
        m.clients
            .insert("laptop".into(), ClientToken::File(good.clone()));
        let digests = m.digests("i").unwrap();
        let gate = Gate {
            clients: digests,
            allow: BTreeMap::new(),
            scopes: BTreeMap::new(),
            instance_id: "i".into(),
            trusted: default_trusted(),
        };
        assert_eq!(gate.client("a-long-enough-secret"), Some("laptop"));
        assert_eq!(gate.client("a-long-enough-secreT"), None);
        assert_eq!(gate.client(""), None);

        m.clients
            .insert("weak".into(), ClientToken::File(weak.clone()));
        let err = m.digests("i").unwrap_err().to_string();
        assert!(
            err.contains("weak.token") && err.contains("5 characters"),
            "{err}"
        );
        m.clients.remove("weak");
        m.clients.insert(
            "twin".into(),
            ClientToken::Inline("a-long-enough-secret".into()),
        );
        let err = m.digests("i").unwrap_err().to_string();
        assert!(err.contains("same token"), "{err}");
        m.clients.remove("twin");
        m.clients
            .insert("gone".into(), ClientToken::File(dir.path().join("none")));
        let err = m.digests("i").unwrap_err().to_string();
        assert!(err.contains("cannot read the token file"), "{err}");
    }

    #[test]
    fn management_bearer_and_origin() {
        let head = |headers: &[(&str, &str)]| Head {
            method: "POST".into(),
            path: PATH.into(),
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            keep_alive: true,
        };
        assert_eq!(
            bearer(&head(&[("authorization", "Bearer abc ")])),
            Some("abc")
        );
        assert_eq!(
            bearer(&head(&[("authorization", "bearer abc")])),
            Some("abc")
        );
        assert_eq!(bearer(&head(&[("authorization", "Basic abc")])), None);
        assert_eq!(bearer(&head(&[("authorization", "Bearer ")])), None);
        assert_eq!(bearer(&head(&[])), None);
        assert!(same_origin(&head(&[("host", "127.0.0.1:7778")])));
        assert!(same_origin(&head(&[
            ("host", "127.0.0.1:7778"),
            ("origin", "http://127.0.0.1:7778")
        ])));
        assert!(same_origin(&head(&[
            ("host", "paddock.example"),
            ("origin", "https://paddock.example:443")
        ])));
        assert!(!same_origin(&head(&[
            ("host", "127.0.0.1:7778"),
            ("origin", "http://evil.example")
        ])));
        assert!(!same_origin(&head(&[("origin", "http://127.0.0.1:7778")])));
    }
}
