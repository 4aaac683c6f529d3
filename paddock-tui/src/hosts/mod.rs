//! Several devboxes in one client (DESIGN §8): the hosts a client works with, each one daemon
//! reached on its own connection (this machine's socket, or `ssh HOST paddock proxy`). The
//! daemons never talk to each other; the client asks each and merges.
//!
//! Which hosts: `--remote HOST` given once or more (or `PADDOCK_REMOTE=a,b`), each a host of
//! the client's configuration ([`config`]) by name or else an ssh destination; without it, the
//! configuration's hosts; without those, this machine's daemon alone, as before. One host
//! works exactly as a client of one daemon always did.

pub mod config;
pub mod merge;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::Cli;
use crate::client::RemoteOptions;
use crate::commands::Context;

/// The name of this machine's daemon when the configuration gives it none.
pub const LOCAL: &str = "local";

/// One daemon of the client.
#[derive(Debug, Clone)]
pub struct Host {
    /// What the user calls it: in `-p HOST:SLUG`, the `host` of `--json` rows, the TUI's tree.
    pub name: String,
    /// How to reach it.
    pub ctx: Context,
}

impl Host {
    /// Where it is, for `paddock hosts`: `ssh me@devbox`, or this machine's socket.
    pub fn address(&self) -> String {
        match &self.ctx.remote {
            Some(remote) => format!("ssh {}", remote.host),
            None => format!("this machine ({})", self.ctx.socket.display()),
        }
    }
}

/// The hosts of this client, in the order they were named (the configuration's by name).
#[derive(Debug, Clone)]
pub struct Hosts {
    pub list: Vec<Host>,
    /// How long each host gets to answer before it counts as down (`host_timeout`).
    pub timeout: Duration,
}

impl Hosts {
    /// The hosts the command line, the environment and the client's configuration name.
    pub fn from_cli(cli: &Cli) -> Result<Self, String> {
        let mut named: Vec<&str> = Vec::new();
        for r in cli
            .remote
            .iter()
            .map(|r| r.trim())
            .filter(|r| !r.is_empty())
        {
            if !named.contains(&r) {
                named.push(r);
            }
        }
        // This machine's daemon, with nothing of the client's configuration read (a broken
        // one must not fail the `paddock proxy` every `--remote` runs here).
        if named.is_empty() && about_this_machine(cli) {
            return Ok(Self {
                list: vec![Host {
                    name: LOCAL.to_owned(),
                    ctx: Context::new(cli.socket.clone()),
                }],
                timeout: config::DEFAULT_HOST_TIMEOUT,
            });
        }
        let config = config::load()?;
        let timeout = match std::env::var("PADDOCK_HOST_TIMEOUT")
            .ok()
            .filter(|v| !v.is_empty())
        {
            Some(v) => parse_timeout(&v)?,
            None => config
                .host_timeout()
                .unwrap_or(config::DEFAULT_HOST_TIMEOUT),
        };
        let remote_paddock = cli.remote_paddock.clone().map(PathBuf::into_os_string);
        let mut list = Vec::new();
        if named.len() > 1 && cli.socket.is_some() {
            return Err(
                "--socket names one daemon's socket, but several hosts are named; give each host its `socket` in the client's configuration (`paddock hosts --help`)"
                    .to_owned(),
            );
        }
        if !named.is_empty() {
            for name in named {
                let host = match config.hosts.get(name) {
                    Some(entry) => from_entry(name, entry, cli, remote_paddock.clone())?,
                    None => Host {
                        name: name.to_owned(),
                        ctx: Context::remote(
                            RemoteOptions::new(name, remote_paddock.clone(), cli.socket.clone())
                                .map_err(|e| e.to_string())?,
                        ),
                    },
                };
                list.push(host);
            }
        } else if !config.hosts.is_empty() {
            for (name, entry) in &config.hosts {
                list.push(from_entry(name, entry, cli, remote_paddock.clone())?);
            }
        } else {
            list.push(Host {
                name: LOCAL.to_owned(),
                ctx: Context::new(cli.socket.clone()),
            });
        }
        let mut hosts = Self { list, timeout };
        if hosts.several() {
            // Each host gets `host_timeout` to answer hello (one host keeps the 30 s an ssh
            // connection that starts the far side's daemon may need).
            for host in &mut hosts.list {
                host.ctx.set_hello_timeout(timeout);
            }
        }
        Ok(hosts)
    }

    /// Whether this client works with more than one daemon.
    pub fn several(&self) -> bool {
        self.list.len() > 1
    }

    pub fn get(&self, name: &str) -> Option<&Host> {
        self.list.iter().find(|h| h.name == name)
    }

    /// The names, for messages: `a, b and c`.
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.list.iter().map(|h| h.name.as_str()).collect();
        match names.split_last() {
            None => String::new(),
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        }
    }

    /// Only the host `name`.
    pub fn only(&self, name: &str) -> Option<Self> {
        let host = self.get(name)?.clone();
        Some(Self {
            list: vec![host],
            timeout: self.timeout,
        })
    }

    /// `HOST:SLUG` split when HOST is one of these hosts (the last `:` splits: an ssh
    /// destination may hold one); `None` for a plain slug.
    pub fn split_project<'a>(&'a self, arg: &str) -> Option<(&'a Host, String)> {
        let (host, slug) = arg.rsplit_once(':')?;
        let host = self.get(host)?;
        // `HOST:` and `HOST:(root)` are the root workspace there.
        let slug = if slug == "(root)" { "" } else { slug };
        Some((host, slug.to_owned()))
    }
}

/// Commands that are about this machine's daemon unless `--remote` says otherwise: `proxy`
/// (what `--remote` runs on the far side, which may have a client configuration of its own),
/// `daemon` and `doctor`.
fn about_this_machine(cli: &Cli) -> bool {
    matches!(
        cli.command,
        Some(
            crate::cli::Cmd::Proxy { .. }
                | crate::cli::Cmd::Daemon { .. }
                | crate::cli::Cmd::Doctor(_)
        )
    )
}

fn from_entry(
    name: &str,
    entry: &config::HostEntry,
    cli: &Cli,
    remote_paddock: Option<OsString>,
) -> Result<Host, String> {
    let ctx = if entry.local {
        Context::new(entry.socket.clone().or_else(|| cli.socket.clone()))
    } else {
        let ssh = entry.ssh.as_deref().unwrap_or(name);
        let paddock = entry
            .paddock
            .clone()
            .map(PathBuf::into_os_string)
            .or(remote_paddock);
        Context::remote(
            RemoteOptions::new(ssh, paddock, entry.socket.clone())
                .map_err(|e| format!("[hosts.{name}]: {e}"))?,
        )
    };
    Ok(Host {
        name: name.to_owned(),
        ctx,
    })
}

/// A host's name must be one word a command line can carry in `-p HOST:SLUG`.
pub fn check_name(name: &str) -> Result<(), String> {
    let reason = if name.is_empty() {
        Some("is empty")
    } else if name.starts_with('-') {
        Some("starts with '-'")
    } else if name.contains(':') {
        Some("contains ':' (it separates the host from the project in -p HOST:SLUG)")
    } else if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("contains a space or a control character")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(format!("the host name {name:?} {reason}")),
        None => Ok(()),
    }
}

fn parse_timeout(text: &str) -> Result<Duration, String> {
    let what = format!("PADDOCK_HOST_TIMEOUT={text:?}");
    let secs: f64 = text
        .trim()
        .trim_end_matches('s')
        .parse()
        .map_err(|_| format!("{what} is not a number of seconds"))?;
    config::timeout_of(secs, &what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_seconds() {
        assert_eq!(parse_timeout("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_timeout("0.5s"), Ok(Duration::from_millis(500)));
        assert!(parse_timeout("soon").is_err());
        assert!(parse_timeout("0").is_err());
    }

    #[test]
    fn names_are_one_word_without_a_colon() {
        assert!(check_name("devbox").is_ok());
        assert!(check_name("me@devbox.example.com").is_ok());
        assert!(check_name("").is_err());
        assert!(check_name("-oProxyCommand=x").is_err());
        assert!(check_name("a b").is_err());
        assert!(check_name("a:b").is_err());
    }
}
