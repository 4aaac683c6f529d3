//! The WebSocket listener's settings (`ws_listen`, `ws_auth`, `ws_token_file`,
//! `ws_trusted_header`): what the configuration reads; `websocket.rs` checks and serves them.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use serde::Deserialize;

/// The environment variable that turns the bind-safety refusal into a warning.
pub const ALLOW_OPEN_ENV: &str = "PADDOCK_DANGEROUSLY_ALLOW_OPEN";

/// The name of the generated token file in the data folder.
pub const TOKEN_FILE: &str = "ws-token";

/// How clients of the WebSocket prove who they are: the `ws_auth` config key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WsAuth {
    /// A bearer token (header or `?token=`).
    #[default]
    Token,
    /// A header set by an authenticating reverse proxy names the user.
    TrustedHeader,
    /// No authentication at all.
    None,
}

impl WsAuth {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Token => "token",
            Self::TrustedHeader => "trusted-header",
            Self::None => "none",
        }
    }
}

impl std::fmt::Display for WsAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for WsAuth {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "token" => Ok(Self::Token),
            "trusted-header" => Ok(Self::TrustedHeader),
            "none" => Ok(Self::None),
            _ => Err(format!(
                "expected `token`, `trusted-header` or `none`, not {s:?}"
            )),
        }
    }
}

/// The WebSocket part of the configuration.
#[derive(Debug, Clone)]
pub struct WsConfig {
    /// `ws_listen`: where to listen; `None` (the default) is off.
    pub listen: Option<SocketAddr>,
    /// `ws_auth`.
    pub auth: WsAuth,
    /// `ws_token_file`: the token's file; `None`: `<data_dir>/ws-token`, made if missing.
    pub token_file: Option<PathBuf>,
    /// `ws_trusted_header`: the header naming the user in `trusted-header` mode.
    pub trusted_header: String,
    /// `PADDOCK_DANGEROUSLY_ALLOW_OPEN` (environment only): an unsafe bind is a warning, not a
    /// refusal.
    pub dangerously_allow_open: bool,
    /// Not a key: where the listener bound, once it has (embedding: tests listen on port 0).
    pub bound: Arc<OnceLock<SocketAddr>>,
}

impl Default for WsConfig {
    fn default() -> Self {
        Self {
            listen: None,
            auth: WsAuth::Token,
            token_file: None,
            trusted_header: "X-Forwarded-User".into(),
            dangerously_allow_open: false,
            bound: Arc::default(),
        }
    }
}
