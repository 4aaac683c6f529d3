//! The management endpoint's settings: `mcp_listen`, `[mcp_clients.NAME]` (tokens, `allow`,
//! `projects`, `deny_projects`, `deny`), `mcp_trusted_proxies` and `mcp_instance_id`, as the
//! configuration reads and checks them. `management/` serves them.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde::Deserialize;

use crate::reach::Reach;

/// The shortest token accepted.
pub const MIN_TOKEN_CHARS: usize = 16;
/// How a client's token is given in the config file.
#[derive(Clone, PartialEq, Eq)]
pub enum ClientToken {
    /// `token = "..."`, in the file itself.
    Inline(String),
    /// `token_file = "..."`, read when the daemon starts.
    File(PathBuf),
}

impl std::fmt::Debug for ClientToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // Never printed (`paddockd --check-config` prints the configuration).
            Self::Inline(_) => f.write_str("Inline(<redacted>)"),
            Self::File(p) => f.debug_tuple("File").field(p).finish(),
        }
    }
}

/// `[mcp_clients.NAME]` as written in the file.
#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientFile {
    pub(crate) token: Option<String>,
    pub(crate) token_file: Option<PathBuf>,
    pub(crate) allow: Option<Vec<String>>,
    pub(crate) projects: Option<Vec<String>>,
    pub(crate) deny_projects: Option<Vec<String>>,
    pub(crate) deny: Option<Vec<String>>,
}

impl std::fmt::Debug for ClientFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientFile")
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("token_file", &self.token_file)
            .field("allow", &self.allow)
            .field("projects", &self.projects)
            .field("deny_projects", &self.deny_projects)
            .field("deny", &self.deny)
            .finish()
    }
}

/// The management part of the configuration: `mcp_listen` and `[mcp_clients.NAME]`.
#[derive(Debug, Clone, Default)]
pub struct ManagementConfig {
    /// `mcp_listen`: where to listen; `None` (the default) is off.
    pub listen: Option<SocketAddr>,
    /// The clients by name.
    pub clients: BTreeMap<String, ClientToken>,
    /// `mcp_clients.NAME.allow`: the tools a client may call (names, `*`, or a prefix ending in
    /// `*`). A client not here gets [`DEFAULT_ALLOW`], the read-only tools.
    pub allow: BTreeMap<String, Vec<String>>,
    /// `mcp_clients.NAME.projects`, `.deny_projects` and `.deny`: the projects a client may
    /// reach and the tools refused it whatever `allow` says. A client not here reaches every
    /// project and has no `deny`.
    pub scopes: BTreeMap<String, Scope>,
    /// `mcp_trusted_proxies`: the peers whose `X-Forwarded-Proto` and `X-Forwarded-For` are
    /// believed; `None` (the default) is loopback only.
    pub trusted_proxies: Option<Vec<Cidr>>,
    /// `mcp_instance_id`: this daemon's id; `None` (the default) is the one generated and kept
    /// in `<data>/instance-id` at the first start.
    pub instance_id: Option<String>,
    /// Not a key: where the listener bound, once it has (tests listen on port 0).
    pub bound: Arc<OnceLock<SocketAddr>>,
}

/// Why the management endpoint cannot start (or its configuration cannot be read).
#[derive(Debug, thiserror::Error)]
pub enum ManagementError {
    #[error(
        "mcp_listen = {addr} needs at least one management client, and none is configured; add one to the config file, \
         e.g. `[mcp_clients.laptop]` with `token_file = \"~/.config/paddock/laptop.token\"` naming a file that holds a random \
         token of at least {MIN_TOKEN_CHARS} characters (`head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > ~/.config/paddock/laptop.token`), \
         or unset mcp_listen"
    )]
    NoClients { addr: SocketAddr },
    #[error(
        "mcp_clients.{0:?}: a client's name may hold only letters, digits, '-' and '_' (at most 64); rename the table"
    )]
    BadName(String),
    #[error("mcp_clients.{0}: give the client exactly one of token_file (preferred) or token")]
    OneToken(String),
    #[error(
        "mcp_clients.{client}: the token{from} has {chars} characters; a token needs at least {MIN_TOKEN_CHARS} \
         (make one with `head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n'`)"
    )]
    WeakToken {
        client: String,
        from: String,
        chars: usize,
    },
    #[error(
        "mcp_clients.{0} and mcp_clients.{1} have the same token, so the log could not tell them apart; give each its own"
    )]
    SharedToken(String, String),
    #[error(
        "cannot read the token file {path} of mcp_clients.{client}: {error}; create it (mode 0600) with a random token of at least {MIN_TOKEN_CHARS} characters"
    )]
    TokenIo {
        client: String,
        path: PathBuf,
        // Not `source`: the message says it already, and a chain would say it twice.
        error: std::io::Error,
    },
    #[error(
        "mcp_clients.{client}.{key}: {entry:?} names no management tool; write tool names ({}), `*` for all, or a prefix ending in `*` such as \"list_*\"",
        crate::tool_catalogue::client_tool_names().join(", ")
    )]
    UnknownTool {
        client: String,
        key: &'static str,
        entry: String,
    },
    #[error(
        "mcp_instance_id {0:?}: an instance id holds only letters, digits, '-' and '_' (1 to 64)"
    )]
    BadInstanceId(String),
    #[error(
        "mcp_clients.{client}: the token is bound to instance {bound:?} (it starts with pdk_{bound}_) but this daemon is instance {ours:?}; use a token minted for this instance, or set mcp_instance_id"
    )]
    OtherInstance {
        client: String,
        bound: String,
        ours: String,
    },
    #[error(
        "mcp_trusted_proxies: {0:?} is not an IP address or a CIDR block (such as 10.0.0.5, 10.0.0.0/8 or fd00::/8)"
    )]
    BadProxy(String),
    #[error("cannot read or write the instance id file {path}: {error}")]
    InstanceIdIo {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot listen for management clients on {addr}: {error}; {hint}")]
    Bind {
        addr: SocketAddr,
        error: std::io::Error,
        hint: &'static str,
    },
}

/// Whether `name` may name a client.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `token_file` as written: `~/` is the home folder; a relative path is the config file's
/// folder's.
fn resolve_path(p: &Path, config_dir: Option<&Path>, home: Option<&Path>) -> PathBuf {
    if let (Ok(rest), Some(home)) = (p.strip_prefix("~"), home) {
        return home.join(rest);
    }
    match config_dir {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p.to_path_buf(),
    }
}

/// An address list as written: a TOML array, or one string of comma-separated entries (also
/// the environment variable's form).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Listed {
    List(Vec<String>),
    One(String),
}

impl std::str::FromStr for Listed {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self::One(s.to_owned()))
    }
}

impl Listed {
    fn entries(&self) -> Vec<String> {
        let raw: Vec<&str> = match self {
            Self::List(l) => l.iter().map(String::as_str).collect(),
            Self::One(s) => s.split(',').collect(),
        };
        raw.into_iter()
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

/// An address, or a block of them (`10.0.0.0/8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    net: IpAddr,
    bits: u8,
}

impl std::str::FromStr for Cidr {
    type Err = ManagementError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ManagementError::BadProxy(s.to_owned());
        let (addr, bits) = match s.trim().split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (s.trim(), None),
        };
        let net: IpAddr = addr.parse().map_err(|_| bad())?;
        let net = canonical(net);
        let max = if net.is_ipv4() { 32 } else { 128 };
        let bits = match bits {
            Some(b) => b.parse::<u8>().ok().filter(|b| *b <= max).ok_or_else(bad)?,
            None => max,
        };
        Ok(Self { net, bits })
    }
}

impl Cidr {
    pub fn contains(&self, ip: IpAddr) -> bool {
        fn prefix_eq(a: &[u8], b: &[u8], bits: u8) -> bool {
            let (whole, rest) = (usize::from(bits / 8), bits % 8);
            if a.get(..whole) != b.get(..whole) {
                return false;
            }
            if rest == 0 {
                return true;
            }
            let mask = 0xffu8 << (8 - rest);
            match (a.get(whole), b.get(whole)) {
                (Some(x), Some(y)) => x & mask == y & mask,
                _ => false,
            }
        }
        match (self.net, canonical(ip)) {
            (IpAddr::V4(n), IpAddr::V4(i)) => prefix_eq(&n.octets(), &i.octets(), self.bits),
            (IpAddr::V6(n), IpAddr::V6(i)) => prefix_eq(&n.octets(), &i.octets(), self.bits),
            _ => false,
        }
    }
}

/// An IPv4 address written as IPv6 (`::ffff:10.0.0.1`) as the IPv4 one.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// `mcp_trusted_proxies` as written: each entry an address or a CIDR block.
pub fn trusted_from(listed: &Listed) -> Result<Vec<Cidr>, ManagementError> {
    listed.entries().iter().map(|e| e.parse()).collect()
}

/// The default `mcp_trusted_proxies`: a proxy on this machine.
pub fn default_trusted() -> Vec<Cidr> {
    vec![
        Cidr {
            net: IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 0)),
            bits: 8,
        },
        Cidr {
            net: IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
            bits: 128,
        },
    ]
}

/// What a client may call when its table has no `allow`: the read-only tools, as the
/// reference's default scope (`list_*` and `read_chat`).
pub const DEFAULT_ALLOW: &[&str] = &["list_*", "read_chat"];

/// Whether an `allow` entry matches a tool: the name, `*`, or a prefix ending in `*`.
fn allows(entry: &str, tool: &str) -> bool {
    match entry.strip_suffix('*') {
        Some(prefix) => !prefix.contains('*') && tool.starts_with(prefix),
        None => entry == tool,
    }
}

/// Whether a client with these `allow` entries may call `tool`.
pub fn allowed(allow: &[String], tool: &str) -> bool {
    allow.iter().any(|e| allows(e, tool))
}

/// The `allow` lists of the config file's `[mcp_clients.NAME]` tables that have one; an entry
/// that matches no tool is an error (a typo would otherwise grant nothing, silently).
pub fn allow_from_file(
    tables: &BTreeMap<String, ClientFile>,
) -> Result<BTreeMap<String, Vec<String>>, ManagementError> {
    let mut out = BTreeMap::new();
    for (name, t) in tables {
        let Some(list) = &t.allow else { continue };
        let list: Vec<String> = list.iter().map(|e| e.trim().to_owned()).collect();
        for entry in &list {
            if !crate::tool_catalogue::client_tools().any(|tool| allows(entry, tool.name)) {
                return Err(ManagementError::UnknownTool {
                    client: name.clone(),
                    key: "allow",
                    entry: entry.clone(),
                });
            }
        }
        out.insert(name.clone(), list);
    }
    Ok(out)
}

/// What a client may reach beyond its `allow` list: `mcp_clients.NAME.projects`,
/// `.deny_projects` (its [`Reach`], the rule a chat's project is held to as well) and `.deny`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// The project slugs the client may reach (`projects`; absent or `*`: every project),
    /// less `deny_projects`. `""` is the root workspace, a slug like any other.
    pub reach: Reach,
    /// Tools refused whatever `allow` says (names, `*`, or prefixes ending in `*`).
    pub deny: Vec<String>,
}

impl Scope {
    /// Whether the client may call `tool`, given its `allow` entries: allowed and not denied.
    pub fn may_call(&self, allow: &[String], tool: &str) -> bool {
        allowed(allow, tool) && !allowed(&self.deny, tool)
    }

    /// Whether the client may reach the project `slug`.
    pub fn reaches(&self, slug: &str) -> bool {
        self.reach.reaches(slug)
    }

    /// Whether the client is confined to some projects (a `projects` or `deny_projects`).
    pub fn confined(&self) -> bool {
        self.reach.confined()
    }

    /// Why `client` may not reach `slug` (`None`: it may), naming the key to change.
    pub fn refusal(&self, client: &str, slug: &str) -> Option<String> {
        if self.reaches(slug) {
            return None;
        }
        Some(if self.reach.denies(slug) {
            format!(
                "not allowed: client {client:?} may not reach project {slug:?}: mcp_clients.{client}.deny_projects lists it ({:?}); remove it there in paddockd's config file and restart paddockd",
                self.reach.deny
            )
        } else {
            format!(
                "not allowed: client {client:?} may not reach project {slug:?}; add \"{slug}\" to mcp_clients.{client}.projects in paddockd's config file (now {:?}) and restart paddockd",
                self.reach.projects.as_deref().unwrap_or_default()
            )
        })
    }
}

/// The `projects`, `deny_projects` and `deny` of the config file's `[mcp_clients.NAME]`
/// tables; a `deny` entry that matches no tool is an error, as in `allow`. Slugs are not
/// checked here: a project may be created later (the log names unknown ones at start).
pub fn scopes_from_file(
    tables: &BTreeMap<String, ClientFile>,
) -> Result<BTreeMap<String, Scope>, ManagementError> {
    let trimmed = |list: &Option<Vec<String>>| -> Vec<String> {
        list.iter().flatten().map(|e| e.trim().to_owned()).collect()
    };
    let mut out = BTreeMap::new();
    for (name, t) in tables {
        let deny = trimmed(&t.deny);
        for entry in &deny {
            if !crate::tool_catalogue::client_tools().any(|tool| allows(entry, tool.name)) {
                return Err(ManagementError::UnknownTool {
                    client: name.clone(),
                    key: "deny",
                    entry: entry.clone(),
                });
            }
        }
        let projects = t.projects.as_ref().map(|_| trimmed(&t.projects));
        out.insert(
            name.clone(),
            Scope {
                reach: Reach::listed(projects, trimmed(&t.deny_projects)),
                deny,
            },
        );
    }
    Ok(out)
}

/// Whether `id` may be an instance id.
pub fn valid_instance_id(id: &str) -> bool {
    valid_name(id)
}

/// The clients of the config file's `[mcp_clients.NAME]` tables.
pub fn clients_from_file(
    tables: BTreeMap<String, ClientFile>,
    config_dir: Option<&Path>,
    home: Option<&Path>,
) -> Result<BTreeMap<String, ClientToken>, ManagementError> {
    tables
        .into_iter()
        .map(|(name, t)| {
            if !valid_name(&name) {
                return Err(ManagementError::BadName(name));
            }
            let token = match (t.token, t.token_file) {
                (Some(token), None) => ClientToken::Inline(token),
                (None, Some(path)) => ClientToken::File(resolve_path(&path, config_dir, home)),
                _ => return Err(ManagementError::OneToken(name)),
            };
            Ok((name, token))
        })
        .collect()
}

pub fn check_strength(client: &str, token: &str, from: String) -> Result<(), ManagementError> {
    let chars = token.chars().count();
    if chars < MIN_TOKEN_CHARS {
        return Err(ManagementError::WeakToken {
            client: client.to_owned(),
            from,
            chars,
        });
    }
    Ok(())
}

impl ManagementConfig {
    /// What can be checked without reading token files: a listener needs a client, names
    /// are valid, and inline tokens long enough.
    pub fn check(&self) -> Result<(), ManagementError> {
        if let Some(id) = &self.instance_id
            && !valid_instance_id(id)
        {
            return Err(ManagementError::BadInstanceId(id.clone()));
        }
        for (name, token) in &self.clients {
            if !valid_name(name) {
                return Err(ManagementError::BadName(name.clone()));
            }
            if let ClientToken::Inline(t) = token {
                check_strength(name, t.trim(), String::new())?;
            }
        }
        match self.listen {
            Some(addr) if self.clients.is_empty() => Err(ManagementError::NoClients { addr }),
            _ => Ok(()),
        }
    }
}
