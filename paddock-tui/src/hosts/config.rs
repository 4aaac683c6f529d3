//! The client's own configuration file, `client.toml`: the hosts a client works with and how
//! long it waits for each. The daemon's `config.toml` is the daemon's; this one is read only by
//! `paddock`, so a laptop with no daemon of its own has one too.
//!
//! ```toml
//! host_timeout = 5          # seconds a host gets to answer before it is shown as down
//!
//! [hosts.laptop]
//! local = true              # this machine's daemon (its socket: --socket / PADDOCK_SOCKET)
//!
//! [hosts.devbox]
//! ssh = "me@devbox.example.com"   # what `ssh` takes; the name is the host's NAME otherwise
//! socket = "/run/user/1000/paddock/paddockd.sock"   # optional: the socket there
//! paddock = "~/.cargo/bin/paddock"                   # optional: the paddock program there
//! ```
//!
//! Absent, the client works as it always did (this machine's daemon, or `--remote`); named
//! with `PADDOCK_CLIENT_CONFIG` and absent, it is an error. An unknown key is an error that
//! names it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// The default for how long a host gets to answer.
pub const DEFAULT_HOST_TIMEOUT: Duration = Duration::from_secs(5);

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientConfig {
    /// Seconds (fractions allowed) a host gets to answer.
    pub host_timeout: Option<f64>,
    #[serde(default)]
    pub hosts: BTreeMap<String, HostEntry>,
}

/// One `[hosts.NAME]` table.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostEntry {
    /// The ssh destination; the table's name when absent.
    pub ssh: Option<String>,
    /// The daemon's socket on that host (its default when absent).
    pub socket: Option<PathBuf>,
    /// The `paddock` program on that host.
    pub paddock: Option<PathBuf>,
    /// This machine's daemon, not one reached through ssh.
    #[serde(default)]
    pub local: bool,
}

/// Where the file is: `$PADDOCK_CLIENT_CONFIG` (then it must exist), else
/// `$XDG_CONFIG_HOME/paddock/client.toml`. The flag says whether it was named.
pub fn location() -> Option<(PathBuf, bool)> {
    if let Some(named) = std::env::var_os("PADDOCK_CLIENT_CONFIG").filter(|p| !p.is_empty()) {
        return Some((PathBuf::from(named), true));
    }
    let dirs = directories::BaseDirs::new()?;
    Some((dirs.config_dir().join("paddock").join("client.toml"), false))
}

/// Reads the file at its [`location`]; an absent file that was not named is the default.
pub fn load() -> Result<ClientConfig, String> {
    match location() {
        Some((path, named)) => load_from(&path, named),
        None => Ok(ClientConfig::default()),
    }
}

pub fn load_from(path: &Path, named: bool) -> Result<ClientConfig, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !named => {
            return Ok(ClientConfig::default());
        }
        Err(e) => {
            return Err(format!(
                "cannot read the client configuration {}: {e}",
                path.display()
            ));
        }
    };
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The file's text, checked: names, timeouts, and what each host says it is.
pub fn parse(text: &str) -> Result<ClientConfig, String> {
    let config: ClientConfig = toml::from_str(text).map_err(|e| {
        // toml's message spans lines (it quotes the file): one line for `paddock: ...`.
        e.to_string()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    })?;
    if let Some(t) = config.host_timeout {
        timeout_of(t, &format!("host_timeout = {t}"))?;
    }
    for (name, entry) in &config.hosts {
        super::check_name(name)?;
        if entry.local && entry.ssh.is_some() {
            return Err(format!(
                "[hosts.{name}] has both `local = true` and `ssh`: a host is this machine's daemon or one reached through ssh"
            ));
        }
    }
    Ok(config)
}

impl ClientConfig {
    pub fn host_timeout(&self) -> Option<Duration> {
        self.host_timeout.map(Duration::from_secs_f64)
    }
}

/// `secs` as a host's deadline: more than 0, at most an hour. `what` names it in the error.
pub fn timeout_of(secs: f64, what: &str) -> Result<Duration, String> {
    if secs.is_finite() && secs > 0.0 && secs <= 3600.0 {
        Ok(Duration::from_secs_f64(secs))
    } else {
        Err(format!(
            "{what} is not a number of seconds between 0 and 3600"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_read_with_their_settings() -> Result<(), String> {
        let c = parse(
            r#"
host_timeout = 2.5
[hosts.laptop]
local = true
[hosts.devbox]
ssh = "me@devbox.example.com"
socket = "/run/p.sock"
"#,
        )?;
        assert_eq!(c.host_timeout(), Some(Duration::from_millis(2500)));
        assert!(c.hosts["laptop"].local);
        assert_eq!(
            c.hosts["devbox"].ssh.as_deref(),
            Some("me@devbox.example.com")
        );
        assert_eq!(
            c.hosts["devbox"].socket.as_deref(),
            Some(Path::new("/run/p.sock"))
        );
        Ok(())
    }

    #[test]
    fn wrong_files_are_refused_with_the_reason() {
        let err = |text: &str| parse(text).err().unwrap_or_default();
        assert!(err("[hosts.a]\nsssh = \"x\"").contains("unknown field `sssh`"));
        assert!(err("host_timeout = 0").contains("host_timeout = 0"));
        assert!(err("[hosts.a]\nlocal = true\nssh = \"b\"").contains("both"));
        assert!(err("[hosts.\"a:b\"]\nssh = \"b\"").contains("a:b"));
        assert!(!err("[hosts.a]\n[").contains('\n'));
    }

    #[test]
    fn an_absent_file_is_the_default_unless_it_was_named() {
        let missing = Path::new("/nonexistent/paddock/client.toml");
        assert!(load_from(missing, false).is_ok_and(|c| c.hosts.is_empty()));
        assert!(
            load_from(missing, true)
                .err()
                .is_some_and(|e| e.contains("/nonexistent/paddock/client.toml"))
        );
    }
}
