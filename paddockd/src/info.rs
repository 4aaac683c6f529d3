//! `daemon:info` and `paddockd info`: the world the daemon's agents run in, as `paddock
//! doctor` reports it. The claude binary is resolved the way the runner starts it (a bare name
//! on the daemon's own `PATH`), and asked its version; credentials are reported by name only.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use paddock_proto::{ClaudeInfo, DaemonInfo};

use crate::claude_version::{self, MIN_CLAUDE_VERSION};
use crate::config::{Config, Sources};

/// The variables whose presence means the agents can authenticate. Only their names are ever
/// reported.
const CREDENTIAL_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
];

/// What `cfg`'s agents run with; `pid` is the running daemon's (none from `paddockd info`).
pub async fn gather(cfg: &Config, pid: Option<u32>) -> DaemonInfo {
    gather_with(cfg, pid, &|k| std::env::var_os(k)).await
}

/// [`gather`], reading this process's environment through `env` (tests pass a map).
pub async fn gather_with(
    cfg: &Config,
    pid: Option<u32>,
    env: &(dyn Fn(&str) -> Option<OsString> + Sync),
) -> DaemonInfo {
    // The agents' environment: the daemon's, with `claude_env` on top.
    let var = |k: &str| -> Option<OsString> {
        cfg.claude_env
            .iter()
            .rev()
            .find(|(name, _)| name == k)
            .map(|(_, v)| OsString::from(v))
            .or_else(|| env(k))
            .filter(|v| !v.is_empty())
    };
    let credentials = CREDENTIAL_VARS
        .iter()
        .filter(|k| var(k).is_some())
        .map(|k| (*k).to_owned())
        .collect();
    let login = cfg.claude_home.join(".credentials.json");
    DaemonInfo {
        daemon_version: env!("CARGO_PKG_VERSION").to_owned(),
        pid,
        socket: lossy(&cfg.socket),
        data_dir: lossy(&cfg.data_dir),
        log: lossy(&cfg.log),
        claude_home: lossy(&cfg.claude_home),
        claude: claude(cfg, var("PATH")).await,
        credentials,
        login: login.is_file().then(|| lossy(&login)),
        disks: crate::disk::all(&cfg.written_folders(), cfg.disk_floor_bytes),
    }
}

async fn claude(cfg: &Config, path_var: Option<OsString>) -> ClaudeInfo {
    let mut info = ClaudeInfo {
        configured: lossy(&cfg.claude_bin),
        path: None,
        version: None,
        error: None,
        min_version: MIN_CLAUDE_VERSION.to_owned(),
        supported: None,
    };
    let found = match resolve(&cfg.claude_bin, path_var.as_deref()) {
        Ok(found) => found,
        Err(why) => {
            info.error = Some(why);
            return info;
        }
    };
    info.path = Some(lossy(&found));
    match claude_version::probe(&found, &cfg.claude_env, claude_version::PROBE_TIMEOUT).await {
        Ok(version) => {
            info.version = Some(version.to_string());
            info.supported = Some(version.is_supported());
        }
        Err(e) => info.error = Some(e.to_string()),
    }
    info
}

/// The file `bin` names, as starting it would find it: a path as it is, a bare name on `PATH`.
pub fn resolve(bin: &Path, path_var: Option<&std::ffi::OsStr>) -> Result<PathBuf, String> {
    if bin.components().count() > 1 || bin.is_absolute() {
        return if bin.is_file() {
            Ok(bin.to_path_buf())
        } else {
            Err(format!("{} does not exist", bin.display()))
        };
    }
    let Some(path_var) = path_var else {
        return Err(format!(
            "no {} found: the daemon has no PATH",
            bin.display()
        ));
    };
    std::env::split_paths(path_var)
        .map(|dir| dir.join(bin))
        .find(|p| is_executable(p))
        .ok_or_else(|| {
            format!(
                "no {} on the daemon's PATH ({})",
                bin.display(),
                path_var.to_string_lossy()
            )
        })
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn lossy(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// `paddockd info`: loads the configuration as a start would, and prints what a daemon started
/// now would see as one JSON line. A configuration it would refuse is the error, on stderr.
pub fn main(sources: &Sources) -> std::process::ExitCode {
    let cfg = match Config::load(sources) {
        Ok(cfg) => cfg,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "paddockd: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "paddockd: cannot start a runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let info = runtime.block_on(gather(&cfg, None));
    match serde_json::to_string(&info) {
        Ok(line) => {
            let _ = writeln!(std::io::stdout(), "{line}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "paddockd: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::collections::HashMap;
    use std::os::unix::fs::PermissionsExt;

    #[tokio::test]
    async fn reports_the_daemons_claude_and_credential_names_only() {
        let dir = tempfile::tempdir().unwrap();
        let bin_dir = dir.path().join("bin");
        std::fs::create_dir_all(&bin_dir).unwrap();
        let claude = bin_dir.join("claude");
        std::fs::write(&claude, "#!/bin/sh\necho '2.1.100 (Claude Code)'\n").unwrap();
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut cfg = Config::for_data_dir(&dir.path().join("data"), &dir.path().join("s"));
        let vars: HashMap<&str, OsString> = HashMap::from([
            ("PATH", bin_dir.clone().into_os_string()),
            ("ANTHROPIC_API_KEY", OsString::from("sk-secret")),
            ("ANTHROPIC_AUTH_TOKEN", OsString::new()),
        ]);
        let env = |k: &str| vars.get(k).cloned();
        let info = gather_with(&cfg, Some(7), &env).await;
        assert_eq!(info.claude.path.as_deref(), Some(claude.to_str().unwrap()));
        assert_eq!(info.claude.version.as_deref(), Some("2.1.100"));
        assert_eq!(info.claude.supported, Some(false));
        assert_eq!(info.credentials, ["ANTHROPIC_API_KEY"]);
        assert!(!serde_json::to_string(&info).unwrap().contains("sk-secret"));
        assert_eq!(info.login, None);

        cfg.claude_bin = PathBuf::from("/nonexistent/claude");
        let info = gather_with(&cfg, None, &env).await;
        assert_eq!(info.claude.path, None);
        assert!(
            info.claude
                .error
                .as_deref()
                .is_some_and(|e| e.contains("/nonexistent/claude")),
            "{info:?}"
        );
        // A bare name that is not on the daemon's PATH says which PATH was searched.
        cfg.claude_bin = PathBuf::from("claude-missing");
        let info = gather_with(&cfg, None, &env).await;
        let error = info.claude.error.unwrap_or_default();
        assert!(
            error.contains("claude-missing") && error.contains("PATH"),
            "{error}"
        );
    }
}
