//! Which Claude Code CLI releases paddockd drives: reading a version out of `claude --version`,
//! asking a binary for it (within a time limit), and the oldest supported release.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

/// The oldest Claude Code release paddockd supports (up to the latest): the stream-json
/// behaviour `docs/claude-cli.md` records is there from this one on.
pub const MIN_CLAUDE_VERSION: &str = "2.1.197";

/// [`MIN_CLAUDE_VERSION`], parsed (a unit test keeps the two equal).
pub const MINIMUM: Version = Version {
    major: 2,
    minor: 1,
    patch: 197,
};

/// How to get a supported release.
pub const UPGRADE: &str = "npm install -g @anthropic-ai/claude-code";

/// How long `claude --version` may take (a first run of an npm shim can be slow).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

/// A release number, `major.minor.patch`; a pre-release or build suffix is ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    /// At least [`MINIMUM`].
    pub fn is_supported(self) -> bool {
        self >= MINIMUM
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The first `X.Y.Z` word of `text` (`2.1.332 (Claude Code)`, `v2.1.332`, `2.1.332-beta.1`).
pub fn parse(text: &str) -> Option<Version> {
    text.split_whitespace().find_map(|word| {
        let word = word.strip_prefix('v').unwrap_or(word);
        let mut parts = word.splitn(3, '.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let rest = parts.next()?;
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let patch = rest.get(..digits)?.parse().ok()?;
        Some(Version {
            major,
            minor,
            patch,
        })
    })
}

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("cannot run {}: {source}", bin.display())]
    Spawn {
        bin: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} --version did not answer within {}s", bin.display(), after.as_secs())]
    Timeout { bin: PathBuf, after: Duration },
    #[error("{} --version failed ({status}){}", bin.display(), said(stderr))]
    Failed {
        bin: PathBuf,
        status: ExitStatus,
        stderr: String,
    },
    #[error("{} --version printed no version ({output:?})", bin.display())]
    NoVersion { bin: PathBuf, output: String },
}

fn said(stderr: &str) -> String {
    match stderr.lines().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) => format!(": {line}"),
        None => String::new(),
    }
}

/// Runs `bin --version` with `env` added to this process's environment, and reads its
/// version. The child is killed if it does not answer within `timeout`.
pub async fn probe(
    bin: &Path,
    env: &[(String, String)],
    timeout: Duration,
) -> Result<Version, ProbeError> {
    let run = tokio::process::Command::new(bin)
        .arg("--version")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("DISABLE_AUTOUPDATER", "1")
        .env_remove("CLAUDECODE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .output();
    let out = match tokio::time::timeout(timeout, run).await {
        Err(_) => {
            return Err(ProbeError::Timeout {
                bin: bin.to_path_buf(),
                after: timeout,
            });
        }
        Ok(Err(source)) => {
            return Err(ProbeError::Spawn {
                bin: bin.to_path_buf(),
                source,
            });
        }
        Ok(Ok(out)) => out,
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(ProbeError::Failed {
            bin: bin.to_path_buf(),
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    parse(&stdout).ok_or_else(|| ProbeError::NoVersion {
        bin: bin.to_path_buf(),
        output: stdout.trim().chars().take(200).collect(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn reads_the_versions_the_cli_prints() {
        let v = |a, b, c| Version {
            major: a,
            minor: b,
            patch: c,
        };
        assert_eq!(parse("2.1.332 (Claude Code)"), Some(v(2, 1, 332)));
        assert_eq!(parse("v2.1.197\n"), Some(v(2, 1, 197)));
        assert_eq!(parse("2.1.332-fake (Claude Code)"), Some(v(2, 1, 332)));
        assert_eq!(parse("Claude Code 10.0.1"), Some(v(10, 0, 1)));
        assert_eq!(parse("claude: command not found"), None);
        assert_eq!(parse("2.1"), None);
        assert_eq!(parse(MIN_CLAUDE_VERSION), Some(MINIMUM));
    }

    #[test]
    fn the_floor_is_inclusive_and_numeric() {
        assert!(parse("2.1.197").unwrap().is_supported());
        assert!(parse("2.1.1000").unwrap().is_supported());
        assert!(parse("3.0.0").unwrap().is_supported());
        assert!(!parse("2.1.196").unwrap().is_supported());
        assert!(!parse("2.0.999").unwrap().is_supported());
        assert!(!parse("1.9.999").unwrap().is_supported());
    }

    fn script(dir: &Path, body: &str) -> PathBuf {
        let path = dir.join("claude");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[tokio::test]
    async fn probe_asks_the_binary_and_says_why_it_could_not() {
        let dir = tempfile::tempdir().unwrap();
        let ok = script(dir.path(), "echo \"$WANT (Claude Code)\"");
        let env = [("WANT".to_owned(), "2.1.250".to_owned())];
        let v = probe(&ok, &env, PROBE_TIMEOUT).await.unwrap();
        assert_eq!(v.to_string(), "2.1.250");

        let err = probe(Path::new("/nonexistent/claude"), &[], PROBE_TIMEOUT)
            .await
            .unwrap_err();
        assert!(matches!(err, ProbeError::Spawn { .. }), "{err}");
        assert!(err.to_string().contains("/nonexistent/claude"), "{err}");

        let failing = script(dir.path(), "echo 'no login' >&2; exit 3");
        let err = probe(&failing, &[], PROBE_TIMEOUT).await.unwrap_err();
        assert!(err.to_string().contains("no login"), "{err}");

        let chatty = script(dir.path(), "echo hello");
        let err = probe(&chatty, &[], PROBE_TIMEOUT).await.unwrap_err();
        assert!(matches!(err, ProbeError::NoVersion { .. }), "{err}");

        let slow = script(dir.path(), "exec sleep 30");
        let err = probe(&slow, &[], Duration::from_millis(200))
            .await
            .unwrap_err();
        assert!(matches!(err, ProbeError::Timeout { .. }), "{err}");
    }
}
