//! Running `git`: one command in one directory, with a timeout, and who the daemon's own
//! commits are by.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use paddock_proto::{ErrorBody, ErrorCode};

use super::internal;
pub use crate::config::GitIdentity as Identity;

/// How long one git command may run.
pub const GIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

impl Identity {
    pub(super) fn apply(&self, cmd: &mut Command) {
        if let Some(name) = &self.name {
            cmd.env("GIT_AUTHOR_NAME", name)
                .env("GIT_COMMITTER_NAME", name);
        }
        if let Some(email) = &self.email {
            cmd.env("GIT_AUTHOR_EMAIL", email)
                .env("GIT_COMMITTER_EMAIL", email);
        }
    }
}

/// `git` in one directory.
pub(super) struct Git<'a> {
    pub(super) dir: &'a Path,
}

impl Git<'_> {
    pub(super) fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut c = Command::new("git");
        c.current_dir(self.dir)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("LC_ALL", "C")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .args(["-c", "core.quotepath=off", "--literal-pathspecs"])
            .args(args)
            .stdin(Stdio::null());
        c
    }

    pub(super) fn spawn_error(&self, e: &std::io::Error) -> ErrorBody {
        if e.kind() == std::io::ErrorKind::NotFound && self.dir.is_dir() {
            internal(
                "the `git` program was not found on paddockd's PATH; install git (e.g. `apt-get install git`) and try again",
            )
        } else {
            internal(format!("cannot run git in {}: {e}", self.dir.display()))
        }
    }

    /// Runs git with `input` on stdin (when given); whatever its exit status. A git that does
    /// not finish within [`GIT_TIMEOUT`] (a hook waiting for something, a huge repository) is
    /// stopped and reported.
    pub(super) fn output_with<I, S>(
        &self,
        args: I,
        input: Option<&[u8]>,
    ) -> Result<Output, ErrorBody>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.output_as(args, input, &Identity::default())
    }

    /// As [`Git::output_with`], with `identity` (when it says anything) as the author and
    /// committer of what the command commits.
    pub(super) fn output_as<I, S>(
        &self,
        args: I,
        input: Option<&[u8]>,
        identity: &Identity,
    ) -> Result<Output, ErrorBody>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.output_env(args, input, &[], identity)
    }

    /// As [`Git::output_as`], with `env` added to git's environment (a private index, an
    /// editor that never waits).
    pub(super) fn output_env<I, S>(
        &self,
        args: I,
        input: Option<&[u8]>,
        env: &[(&str, &OsStr)],
        identity: &Identity,
    ) -> Result<Output, ErrorBody>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = self.command(args);
        cmd.envs(env.iter().copied());
        identity.apply(&mut cmd);
        crate::child::output_within(&mut cmd, input, GIT_TIMEOUT).map_err(|e| match e {
            crate::child::RunError::Spawn(e) => self.spawn_error(&e),
            other => internal(format!("git in {}: {other}", self.dir.display())),
        })
    }

    pub(super) fn output<I, S>(&self, args: I) -> Result<Output, ErrorBody>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.output_with(args, None)
    }

    /// Runs git; a non-zero exit is an error quoting its stderr.
    pub(super) fn run<I, S>(&self, args: I) -> Result<Vec<u8>, ErrorBody>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<S> = args.into_iter().collect();
        let out = self.output(&args)?;
        if out.status.success() {
            Ok(out.stdout)
        } else {
            Err(failed(&args, &out))
        }
    }

    /// As [`Git::run`], with `env` added and `identity` as the author of what it commits.
    pub(super) fn run_env<S: AsRef<OsStr>>(
        &self,
        args: &[S],
        env: &[(&str, &OsStr)],
        identity: &Identity,
    ) -> Result<Vec<u8>, ErrorBody> {
        let out = self.output_env(args, None, env, identity)?;
        if out.status.success() {
            Ok(out.stdout)
        } else {
            Err(failed(args, &out))
        }
    }

    /// The full id `rev` names as a commit; `None` when it names none.
    pub(super) fn commit_of(&self, rev: &str) -> Result<Option<String>, ErrorBody> {
        let spec = format!("{rev}^{{commit}}");
        let out = self.output(["rev-parse", "-q", "--verify", spec.as_str()])?;
        Ok(out.status.success().then(|| trimmed(&out.stdout)))
    }

    /// Whether the directory is in a repository: `Some(prefix)`, the directory's path below the
    /// repository's top (`""` at the top, else ending in `/`).
    pub(super) fn prefix(&self) -> Result<Option<String>, ErrorBody> {
        if !self.dir.is_dir() {
            return Err(ErrorBody::new(
                ErrorCode::NotFound,
                format!("the directory {} does not exist", self.dir.display()),
            ));
        }
        let out = self.output(["rev-parse", "--show-prefix"])?;
        if out.status.success() {
            return Ok(Some(trimmed(&out.stdout)));
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("not a git repository") {
            Ok(None)
        } else {
            Err(failed(&["rev-parse", "--show-prefix"], &out))
        }
    }

    /// The full id HEAD points at; `None` before the first commit.
    pub(super) fn head(&self) -> Result<Option<String>, ErrorBody> {
        let out = self.output(["rev-parse", "-q", "--verify", "HEAD^{commit}"])?;
        Ok(out.status.success().then(|| trimmed(&out.stdout)))
    }

    /// The checked-out branch; `None` when HEAD is detached.
    pub(super) fn branch(&self) -> Result<Option<String>, ErrorBody> {
        let out = self.output(["symbolic-ref", "-q", "--short", "HEAD"])?;
        Ok(out.status.success().then(|| trimmed(&out.stdout)))
    }
}

pub(super) fn trimmed(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim().to_owned()
}

pub(super) fn failed<S: AsRef<OsStr>>(args: &[S], out: &Output) -> ErrorBody {
    let words: Vec<String> = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .take(3)
        .collect();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stderr = stderr.trim();
    internal(format!(
        "git {} failed ({}){}",
        words.join(" "),
        out.status,
        if stderr.is_empty() {
            String::new()
        } else {
            format!(": {stderr}")
        }
    ))
}
