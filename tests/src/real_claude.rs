//! Running the real Claude Code CLI offline against [`crate::mock_api::MockApi`]
//! (docs/claude-cli.md §1 and §13).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::cwd_encoding::encode_cwd;
use crate::process::CliCommand;

/// Environment variable that points at the CLI binary to test.
pub const CLAUDE_BIN_ENV: &str = "PADDOCK_TEST_CLAUDE_BIN";

/// What to tell a developer when no CLI is installed.
pub const INSTALL_HINT: &str = "the real Claude Code CLI was not found: run `bash .ci/install-claude.sh` \
     (installs it under $HOME/.cache/paddock-tools/claude-2.1.332), or set PADDOCK_TEST_CLAUDE_BIN to a `claude` binary";

/// The release `.ci/install-claude.sh` installs by default.
pub const DEFAULT_CLAUDE_VERSION: &str = "2.1.332";

/// Finds the CLI: `$PADDOCK_TEST_CLAUDE_BIN`, else `claude-2.1.332/node_modules/.bin/claude`
/// (or the older `node_modules/.bin/claude`) under `$PADDOCK_TOOLS_DIR` or
/// `$HOME/.cache/paddock-tools` (where `.ci/install-claude.sh` puts it), else `claude` on
/// `PATH`. The error carries [`INSTALL_HINT`].
///
/// The first call prints the binary and its `--version` on stderr, so a failing test's output
/// says which release it ran against.
pub fn find_claude_bin() -> anyhow::Result<PathBuf> {
    let path = locate_claude_bin()?;
    static ANNOUNCED: std::sync::Once = std::sync::Once::new();
    ANNOUNCED.call_once(|| {
        eprintln!(
            "real claude: {} (version {})",
            path.display(),
            claude_version(&path)
        );
    });
    Ok(path)
}

/// What `<bin> --version` prints (trimmed), or why it printed nothing.
pub fn claude_version(bin: &Path) -> String {
    match std::process::Command::new(bin)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        Ok(out) => format!("unknown: `--version` exited with {}", out.status),
        Err(err) => format!("unknown: `--version` did not run: {err}"),
    }
}

/// A `major.minor.patch` version, as `claude --version` prints it (`2.1.197 (Claude Code)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32, pub u32);

impl Version {
    /// The first word of `text` as `major.minor.patch`.
    pub fn parse(text: &str) -> Option<Self> {
        let word = text.split_whitespace().next()?;
        let mut parts = word.split('.').map(|p| p.parse::<u32>().ok());
        let version = Self(parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(version)
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// The older supported release (what `npm install` gives on Node < 22).
pub const OLDER_CLAUDE_VERSION: Version = Version(2, 1, 197);

/// The release of a CLI binary, and what it does where the supported releases differ
/// (docs/claude-cli.md §15). Only the two recorded releases are known: a binary at or below
/// 2.1.197 behaves like 2.1.197, one at or above 2.1.332 like 2.1.332; [`claude_release`]
/// refuses anything in between, where nobody looked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    pub version: Version,
}

impl Release {
    /// Whether this release shows the shapes of 2.1.332 (rather than 2.1.197's).
    fn newer(self) -> bool {
        self.version > OLDER_CLAUDE_VERSION
    }

    /// The `FAKE_CLAUDE_RELEASE` value that makes `fake-claude` imitate this release.
    pub fn fake_mode(self) -> &'static str {
        if self.newer() { "2.1.332" } else { "2.1.197" }
    }

    /// §15 "stdout: line types and order", row `command_lifecycle` lines: a prompt sent with a
    /// `uuid` gets `queued` and `started` before `system/init` and `completed` after `result`
    /// (2.1.332); 2.1.197 prints none.
    pub fn has_command_lifecycle(self) -> bool {
        self.newer()
    }

    /// §15 "stdout: line types and order", row `user_message_uuid` / `user_message_uuids`:
    /// present on that turn's `system/status` (and more) in 2.1.332, absent in 2.1.197.
    pub fn has_user_message_uuids(self) -> bool {
        self.newer()
    }

    /// §15 "stdout: line types and order", row the `user` echo of `--replay-user-messages`:
    /// with partial messages 2.1.332 echoes the prompt before `message_start`; 2.1.197 after
    /// the reply's deltas, just before the first `assistant` line.
    pub fn echoes_prompt_before_message_start(self) -> bool {
        self.newer()
    }

    /// §15 "stdout: line types and order", row `result` fields: `result_index` (and
    /// `queued_turn_count`, …) only in 2.1.332.
    pub fn has_result_index(self) -> bool {
        self.newer()
    }

    /// §15 "stdout: line types and order", row `tool_result_meta` on `user` tool results:
    /// only in 2.1.332.
    pub fn has_tool_result_meta(self) -> bool {
        self.newer()
    }

    /// §15 "Ids on stream_event lines", row `api_message_id` on every `stream_event`: only in
    /// 2.1.332; 2.1.197 has the id only in `message_start`'s `event.message.id`.
    pub fn has_api_message_id_on_stream_events(self) -> bool {
        self.newer()
    }

    /// §15 "Interrupts", row `interrupt` while streaming: 2.1.332 prints the stream tail
    /// (`content_block_stop`, `message_delta`, `message_stop` with `abandoned_blocks`) before
    /// `result`; 2.1.197 goes from the interrupt marker directly to `result`.
    pub fn has_stream_tail_after_interrupt(self) -> bool {
        self.newer()
    }

    /// §15 "API errors and retries", row synthetic `assistant` line: 2.1.332 marks it with
    /// `is_api_error_message: true` and `api_error_status`; 2.1.197 only with `error`.
    pub fn marks_api_error_messages(self) -> bool {
        self.newer()
    }

    /// §15 "API errors and retries", row `result.terminal_reason` of an API error:
    /// `"api_error"` in 2.1.332, `"completed"` in 2.1.197.
    pub fn api_error_terminal_reason(self) -> &'static str {
        if self.newer() {
            "api_error"
        } else {
            "completed"
        }
    }

    /// §15 "Permission prompts", row where `can_use_tool` is printed (with partial messages):
    /// 2.1.332 between the tool-use message's `message_delta` and `message_stop`; 2.1.197 right
    /// after the `assistant(tool_use)` line, before its `content_block_stop`.
    pub fn asks_before_content_block_stop(self) -> bool {
        !self.newer()
    }

    /// §15 "Control requests and responses", row `interrupt`: 2.1.332 answers with
    /// `"response":{"still_queued":[]}`, 2.1.197 without a `response` object.
    pub fn interrupt_reply_has_response(self) -> bool {
        self.newer()
    }
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.version.fmt(f)
    }
}

/// The release of `bin`, from `<bin> --version`. Fails when the output has no version or names
/// a release between 2.1.197 and 2.1.332 (docs/claude-cli.md §15 covers only those two).
pub fn claude_release(bin: &Path) -> anyhow::Result<Release> {
    let printed = claude_version(bin);
    let version = Version::parse(&printed).with_context(|| {
        format!(
            "`{} --version` printed no version: {printed}",
            bin.display()
        )
    })?;
    release_of(version)
}

/// [`Release`] for a parsed version (see [`claude_release`]).
pub fn release_of(version: Version) -> anyhow::Result<Release> {
    let newest_known =
        Version::parse(DEFAULT_CLAUDE_VERSION).context("DEFAULT_CLAUDE_VERSION is a version")?;
    anyhow::ensure!(
        version <= OLDER_CLAUDE_VERSION || version >= newest_known,
        "Claude Code {version} is neither 2.1.197 (or older) nor {newest_known} (or newer); \
         docs/claude-cli.md §15 records only those two releases"
    );
    Ok(Release { version })
}

fn locate_claude_bin() -> anyhow::Result<PathBuf> {
    if let Some(path) = std::env::var_os(CLAUDE_BIN_ENV).filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        anyhow::ensure!(
            is_executable(&path),
            "{CLAUDE_BIN_ENV}={} is not an executable file; {INSTALL_HINT}",
            path.display()
        );
        return Ok(path);
    }
    let tools_dirs = [
        std::env::var_os("PADDOCK_TOOLS_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from),
        std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache/paddock-tools")),
    ];
    for dir in tools_dirs.into_iter().flatten() {
        for path in [
            dir.join(format!(
                "claude-{DEFAULT_CLAUDE_VERSION}/node_modules/.bin/claude"
            )),
            dir.join("node_modules/.bin/claude"),
        ] {
            if is_executable(&path) {
                return Ok(path);
            }
        }
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let path = dir.join("claude");
            if is_executable(&path) {
                return Ok(path);
            }
        }
    }
    anyhow::bail!("{INSTALL_HINT}")
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Private directories for one CLI run: a config dir (`CLAUDE_CONFIG_DIR`), a 0700 temp dir
/// (`CLAUDE_CODE_TMPDIR`) and a project dir to use as cwd. Removed on drop.
pub struct ClaudeHome {
    root: tempfile::TempDir,
    config_dir: PathBuf,
    tmp_dir: PathBuf,
    project_dir: PathBuf,
}

impl ClaudeHome {
    /// Creates the directories. The project dir is a plain folder named `project dir.x`
    /// (a space and a dot, so the cwd encoding matters).
    pub fn new() -> anyhow::Result<Self> {
        Self::with_project_name("project dir.x")
    }

    pub fn with_project_name(name: &str) -> anyhow::Result<Self> {
        use std::os::unix::fs::PermissionsExt as _;
        let root = tempfile::Builder::new()
            .prefix("paddock-claude-")
            .tempdir()
            .context("creating a temp dir")?;
        // The physical path: the CLI keys transcripts by it.
        let base = root
            .path()
            .canonicalize()
            .context("canonicalizing the temp dir")?;
        let config_dir = base.join("config");
        let tmp_dir = base.join("tmp");
        let project_dir = base.join(name);
        for dir in [&config_dir, &tmp_dir, &project_dir] {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::set_permissions(&tmp_dir, std::fs::Permissions::from_mode(0o700))
            .context("chmod 0700 of the CLI temp dir")?;
        Ok(Self {
            root,
            config_dir,
            tmp_dir,
            project_dir,
        })
    }

    pub fn root(&self) -> &Path {
        self.root.path()
    }

    pub fn config_dir(&self) -> &Path {
        &self.config_dir
    }

    pub fn tmp_dir(&self) -> &Path {
        &self.tmp_dir
    }

    pub fn project_dir(&self) -> &Path {
        &self.project_dir
    }

    /// `$CLAUDE_CONFIG_DIR/projects/<encoded project dir>/`.
    pub fn transcript_dir(&self) -> PathBuf {
        transcript_dir(&self.config_dir, &self.project_dir)
    }

    /// `$CLAUDE_CONFIG_DIR/projects/<encoded project dir>/<session_id>.jsonl`.
    pub fn transcript_path(&self, session_id: &str) -> PathBuf {
        self.transcript_dir().join(format!("{session_id}.jsonl"))
    }

    /// The environment of doc §1 for this home, talking to `base_url`.
    pub fn env(&self, base_url: &str, max_retries: u32) -> Vec<(OsString, OsString)> {
        claude_env(base_url, &self.config_dir, &self.tmp_dir, max_retries)
    }
}

/// `<config_dir>/projects/<encoded cwd>/`.
pub fn transcript_dir(config_dir: &Path, cwd: &Path) -> PathBuf {
    config_dir
        .join("projects")
        .join(encode_cwd(&cwd.to_string_lossy()))
}

/// The environment that runs the CLI offline against a local Messages API stand-in (doc §1).
pub fn claude_env(
    base_url: &str,
    config_dir: &Path,
    tmp_dir: &Path,
    max_retries: u32,
) -> Vec<(OsString, OsString)> {
    let pairs: [(&str, OsString); 10] = [
        ("ANTHROPIC_BASE_URL", base_url.into()),
        ("ANTHROPIC_API_KEY", "dummy".into()),
        ("CLAUDE_CONFIG_DIR", config_dir.into()),
        ("CLAUDE_CODE_TMPDIR", tmp_dir.into()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ("DISABLE_TELEMETRY", "1".into()),
        ("DISABLE_AUTOUPDATER", "1".into()),
        ("DISABLE_ERROR_REPORTING", "1".into()),
        ("CLAUDE_CODE_MAX_RETRIES", max_retries.to_string().into()),
        // Keep Bash tool output plain.
        ("NO_COLOR", "1".into()),
    ];
    pairs.into_iter().map(|(k, v)| (k.into(), v)).collect()
}

/// Which session a headless process works on.
#[derive(Debug, Clone)]
pub enum SessionArg {
    /// `--session-id <uuid>`: a new session with a preset id.
    New(String),
    /// `--resume <id>`: continue an existing session.
    Resume(String),
}

/// The flags paddockd uses for a persistent headless session (doc §13.1).
pub fn headless_args(session: &SessionArg) -> Vec<String> {
    let mut args: Vec<String> = [
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
        "--replay-user-messages",
        "--permission-prompt-tool",
        "stdio",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    match session {
        SessionArg::New(id) => args.extend(["--session-id".to_owned(), id.clone()]),
        SessionArg::Resume(id) => args.extend(["--resume".to_owned(), id.clone()]),
    }
    args
}

/// A ready-to-spawn command for `program` (the real CLI or `fake-claude`) in `home`'s project
/// dir, with the headless flags, the offline env and any `extra_args` after them.
pub fn headless_command(
    program: &Path,
    home: &ClaudeHome,
    base_url: &str,
    max_retries: u32,
    session: &SessionArg,
    extra_args: &[&str],
) -> CliCommand {
    CliCommand::new(program, home.project_dir())
        .args(headless_args(session))
        .args(extra_args.iter().copied())
        .envs(home.env(base_url, max_retries))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn versions_parse_from_what_claude_prints() {
        assert_eq!(
            Version::parse("2.1.197 (Claude Code)"),
            Some(Version(2, 1, 197))
        );
        assert_eq!(Version::parse("2.1.332\n"), Some(Version(2, 1, 332)));
        assert_eq!(Version::parse("unknown: `--version` exited with 1"), None);
        assert_eq!(Version::parse("2.1"), None);
        assert_eq!(Version::parse("2.1.3.4"), None);
    }

    #[test]
    fn only_the_recorded_releases_are_known() {
        let old = release_of(Version(2, 1, 197)).unwrap();
        assert!(!old.has_command_lifecycle() && old.asks_before_content_block_stop());
        assert_eq!(old.api_error_terminal_reason(), "completed");
        assert_eq!(old.fake_mode(), "2.1.197");
        let new = release_of(Version(2, 1, 332)).unwrap();
        assert!(new.has_command_lifecycle() && new.has_stream_tail_after_interrupt());
        assert_eq!(new.fake_mode(), "2.1.332");
        assert!(release_of(Version(2, 1, 400)).unwrap().has_result_index());
        assert!(release_of(Version(2, 1, 250)).is_err());
    }
}
