//! The git view of a project: status, diff and commit, whole or limited to the files a turn, a
//! chat or a subtree of chats wrote (from file provenance, `provenance/steps.rs`), and push; and
//! the automatic commit of the sweeper's files when the data directory is a repository.
//!
//! Everything runs the `git` binary in the project's directory: arguments as a vector (never a
//! shell), `GIT_TERMINAL_PROMPT=0`, `core.quotepath=off`, literal pathspecs, and porcelain v1
//! `-z` output. Only changes inside the project's directory are shown (also when the
//! repository's top is above it), with paths relative to that directory. A directory outside
//! any repository is `isRepo: false`, not an error.

use std::collections::{BTreeSet, HashSet};
use std::ffi::OsStr;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use paddock_proto::{
    ChatScope, ErrorBody, ErrorCode, GitCommitRequest, GitCommitted, GitDiff, GitDiffRequest,
    GitFailure, GitFailureReason, GitFile, GitPushRequest, GitPushed, GitScope, GitStatus,
    GitStatusRequest,
};

use crate::config::GitIdentity as Identity;
use crate::handles::Daemon;
use crate::projects::Project;
use crate::provenance::steps::{self, Line, Role};

/// The most diff text one reply carries.
pub const DIFF_MAX_BYTES: usize = 2 * 1024 * 1024;

fn invalid(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorCode::InvalidArgument, message)
}

fn internal(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorCode::Internal, message)
}

/// A slug for people: the root workspace is `(root)`.
fn label(slug: &str) -> &str {
    if slug.is_empty() { "(root)" } else { slug }
}

// ---------------------------------------------------------------------------------------------
// Running git
// ---------------------------------------------------------------------------------------------

/// How long one git command may run.
pub const GIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

impl Identity {
    fn apply(&self, cmd: &mut Command) {
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
struct Git<'a> {
    dir: &'a Path,
}

impl Git<'_> {
    fn command<I, S>(&self, args: I) -> Command
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

    fn spawn_error(&self, e: &std::io::Error) -> ErrorBody {
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
    fn output_with<I, S>(&self, args: I, input: Option<&[u8]>) -> Result<Output, ErrorBody>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.output_as(args, input, &Identity::default())
    }

    /// As [`Git::output_with`], with `identity` (when it says anything) as the author and
    /// committer of what the command commits.
    fn output_as<I, S>(
        &self,
        args: I,
        input: Option<&[u8]>,
        identity: &Identity,
    ) -> Result<Output, ErrorBody>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = self.command(args);
        identity.apply(&mut cmd);
        crate::child::output_within(&mut cmd, input, GIT_TIMEOUT).map_err(|e| match e {
            crate::child::RunError::Spawn(e) => self.spawn_error(&e),
            other => internal(format!("git in {}: {other}", self.dir.display())),
        })
    }

    fn output<I, S>(&self, args: I) -> Result<Output, ErrorBody>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.output_with(args, None)
    }

    /// Runs git; a non-zero exit is an error quoting its stderr.
    fn run<I, S>(&self, args: I) -> Result<Vec<u8>, ErrorBody>
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

    /// Whether the directory is in a repository: `Some(prefix)`, the directory's path below the
    /// repository's top (`""` at the top, else ending in `/`).
    fn prefix(&self) -> Result<Option<String>, ErrorBody> {
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
    fn head(&self) -> Result<Option<String>, ErrorBody> {
        let out = self.output(["rev-parse", "-q", "--verify", "HEAD^{commit}"])?;
        Ok(out.status.success().then(|| trimmed(&out.stdout)))
    }

    /// The checked-out branch; `None` when HEAD is detached.
    fn branch(&self) -> Result<Option<String>, ErrorBody> {
        let out = self.output(["symbolic-ref", "-q", "--short", "HEAD"])?;
        Ok(out.status.success().then(|| trimmed(&out.stdout)))
    }
}

fn trimmed(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim().to_owned()
}

fn failed<S: AsRef<OsStr>>(args: &[S], out: &Output) -> ErrorBody {
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

// ---------------------------------------------------------------------------------------------
// Status
// ---------------------------------------------------------------------------------------------

/// The branch line of `git status --branch`.
#[derive(Debug, Default, PartialEq, Eq)]
struct BranchLine {
    branch: Option<String>,
    upstream: Option<String>,
    ahead: Option<u32>,
    behind: Option<u32>,
}

fn parse_branch(line: &str) -> BranchLine {
    let mut out = BranchLine::default();
    if let Some(rest) = line
        .strip_prefix("No commits yet on ")
        .or_else(|| line.strip_prefix("Initial commit on "))
    {
        out.branch = Some(rest.to_owned());
        return out;
    }
    if line.starts_with("HEAD (no branch)") {
        return out;
    }
    let (branch, rest) = match line.split_once("...") {
        Some((b, rest)) => (b, Some(rest)),
        None => (line.split(' ').next().unwrap_or(line), None),
    };
    out.branch = Some(branch.to_owned());
    if let Some(rest) = rest {
        let (upstream, counts) = rest.split_once(' ').unwrap_or((rest, ""));
        out.upstream = Some(upstream.to_owned());
        if !counts.contains("[gone]") {
            out.ahead = Some(0);
            out.behind = Some(0);
            let counts = counts.trim_start_matches('[').trim_end_matches(']');
            for part in counts.split(", ") {
                if let Some(n) = part.strip_prefix("ahead ") {
                    out.ahead = n.parse().ok();
                } else if let Some(n) = part.strip_prefix("behind ") {
                    out.behind = n.parse().ok();
                }
            }
        }
    }
    out
}

/// Parses `git status --porcelain=v1 -z --branch`; paths made relative to `prefix`.
fn parse_status(raw: &[u8], prefix: &str) -> (BranchLine, Vec<GitFile>) {
    let mut branch = BranchLine::default();
    let mut files = Vec::new();
    let mut fields = raw
        .split(|b| *b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned());
    let rel = |p: &str| p.strip_prefix(prefix).unwrap_or(p).to_owned();
    let letter = |c: char| {
        if c == ' ' {
            ".".to_owned()
        } else {
            c.to_string()
        }
    };
    while let Some(entry) = fields.next() {
        if let Some(line) = entry.strip_prefix("## ") {
            branch = parse_branch(line);
            continue;
        }
        let mut chars = entry.chars();
        let (Some(x), Some(y), Some(' ')) = (chars.next(), chars.next(), chars.next()) else {
            continue;
        };
        let path = chars.as_str();
        let orig_path = if matches!(x, 'R' | 'C') {
            fields.next().map(|p| rel(&p))
        } else {
            None
        };
        files.push(GitFile {
            path: rel(path),
            orig_path,
            index: letter(x),
            worktree: letter(y),
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    (branch, files)
}

/// The files of a scope: `None` for the whole project.
#[derive(Debug, Default)]
pub struct ScopeFiles {
    paths: HashSet<String>,
    notes: Vec<String>,
}

impl ScopeFiles {
    fn keeps(&self, f: &GitFile) -> bool {
        self.paths.contains(&f.path) || f.orig_path.as_ref().is_some_and(|p| self.paths.contains(p))
    }
}

struct Changes {
    branch: BranchLine,
    files: Vec<GitFile>,
    hidden: u32,
}

/// The changed files under the directory, those of the scope only.
fn changes(git: &Git<'_>, prefix: &str, scope: Option<&ScopeFiles>) -> Result<Changes, ErrorBody> {
    let raw = git.run([
        "status",
        "--porcelain=v1",
        "-z",
        "--branch",
        "--untracked-files=all",
        "--no-renames",
        "--",
        ".",
    ])?;
    let (branch, mut files) = parse_status(&raw, prefix);
    let before = files.len();
    if let Some(scope) = scope {
        files.retain(|f| scope.keeps(f));
    }
    let hidden = u32::try_from(before - files.len()).unwrap_or(u32::MAX);
    Ok(Changes {
        branch,
        files,
        hidden,
    })
}

fn status_blocking(
    slug: &str,
    dir: &Path,
    scope: Option<&ScopeFiles>,
) -> Result<GitStatus, ErrorBody> {
    let git = Git { dir };
    let mut status = GitStatus {
        project_slug: slug.to_owned(),
        is_repo: false,
        branch: None,
        head: None,
        upstream: None,
        ahead: None,
        behind: None,
        files: Vec::new(),
        hidden: 0,
        notes: Vec::new(),
    };
    let Some(prefix) = git.prefix()? else {
        return Ok(status);
    };
    let changes = changes(&git, &prefix, scope)?;
    status.is_repo = true;
    status.head = git
        .head()?
        .map(|h| h.get(..7).map_or(h.clone(), str::to_owned));
    status.branch = changes.branch.branch;
    status.upstream = changes.branch.upstream;
    status.ahead = changes.branch.ahead;
    status.behind = changes.branch.behind;
    status.files = changes.files;
    status.hidden = changes.hidden;
    status.notes = scope.map(|s| s.notes.clone()).unwrap_or_default();
    Ok(status)
}

// ---------------------------------------------------------------------------------------------
// Diff
// ---------------------------------------------------------------------------------------------

/// Appends git's stdout to `out` until it holds `cap` bytes; `true` when it had more.
fn append_capped<I, S>(
    git: &Git<'_>,
    args: I,
    out: &mut Vec<u8>,
    cap: usize,
) -> Result<bool, ErrorBody>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = git.command(args);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| git.spawn_error(&e))?;
    let stderr = child.stderr.take().map(|e| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = e.take(64 * 1024).read_to_end(&mut s);
            s
        })
    });
    let room = cap.saturating_sub(out.len());
    let mut got = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        stdout
            .take(u64::try_from(room).unwrap_or(u64::MAX).saturating_add(1))
            .read_to_end(&mut got)
            .map_err(|e| internal(format!("reading git diff: {e}")))?;
    }
    let cut = got.len() > room;
    if cut {
        let _ = child.kill();
        // Keep whole lines.
        got.truncate(room);
        let end = got.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        got.truncate(end);
    }
    let status = child
        .wait()
        .map_err(|e| internal(format!("git diff: {e}")))?;
    let err = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    // `diff` exits 1 when there are differences (with --no-index, or --exit-code).
    if !cut && !matches!(status.code(), Some(0 | 1)) {
        return Err(internal(format!(
            "git diff failed ({status}): {}",
            String::from_utf8_lossy(&err).trim()
        )));
    }
    out.extend_from_slice(&got);
    Ok(cut)
}

fn diff_blocking(
    slug: &str,
    dir: &Path,
    scope: Option<&ScopeFiles>,
    path: Option<&str>,
) -> Result<GitDiff, ErrorBody> {
    let git = Git { dir };
    let mut reply = GitDiff {
        project_slug: slug.to_owned(),
        is_repo: false,
        diff: String::new(),
        files: Vec::new(),
        truncated: false,
        hidden: 0,
    };
    let Some(prefix) = git.prefix()? else {
        return Ok(reply);
    };
    reply.is_repo = true;
    let changes = changes(&git, &prefix, scope)?;
    reply.hidden = changes.hidden;
    let mut files = changes.files;
    if let Some(path) = path {
        let path = crate::provenance::rel_path(dir, path);
        if let Some(scope) = scope
            && !scope.paths.contains(&path)
        {
            return Err(invalid(format!(
                "{path} is not among the files this scope's steps wrote"
            )));
        }
        files.retain(|f| f.path == path || f.orig_path.as_deref() == Some(path.as_str()));
    }
    let (untracked, tracked): (Vec<&GitFile>, Vec<&GitFile>) =
        files.iter().partition(|f| f.index == "?");
    let mut out = Vec::new();
    if !tracked.is_empty() {
        let base = match git.head()? {
            Some(head) => head,
            None => trimmed(&git.run(["hash-object", "-t", "tree", "/dev/null"])?),
        };
        let mut args: Vec<String> = [
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--relative",
            base.as_str(),
            "--",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        for f in &tracked {
            args.push(f.path.clone());
            if let Some(orig) = &f.orig_path {
                args.push(orig.clone());
            }
        }
        reply.truncated = append_capped(&git, &args, &mut out, DIFF_MAX_BYTES)?;
    }
    for f in untracked {
        if reply.truncated {
            break;
        }
        let args = [
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-index",
            "--",
            "/dev/null",
            f.path.as_str(),
        ];
        reply.truncated = append_capped(&git, args, &mut out, DIFF_MAX_BYTES)?;
    }
    reply.files = files.into_iter().map(|f| f.path).collect();
    reply.diff = String::from_utf8_lossy(&out).into_owned();
    Ok(reply)
}

// ---------------------------------------------------------------------------------------------
// Commit
// ---------------------------------------------------------------------------------------------

fn identity_help(dir: &Path) -> String {
    format!(
        "git has no identity to commit as; set yours with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com` (or without --global, inside {})",
        dir.display()
    )
}

fn is_identity_error(stderr: &str) -> bool {
    stderr.contains("Please tell me who you are")
        || stderr.contains("auto-detection is disabled")
        || stderr.contains("empty ident name")
        || stderr.contains("unable to auto-detect email")
}

/// Refuses a detached HEAD or a merge / rebase in progress; the branch otherwise.
fn committable_branch(git: &Git<'_>) -> Result<String, ErrorBody> {
    let Some(branch) = git.branch()? else {
        return Err(invalid(format!(
            "HEAD is detached in {}; check out a branch before committing",
            git.dir.display()
        )));
    };
    let merging = git
        .output(["rev-parse", "-q", "--verify", "MERGE_HEAD"])?
        .status
        .success();
    let rebasing = ["rebase-merge", "rebase-apply"].iter().any(|name| {
        git.run(["rev-parse", "--git-path", name])
            .is_ok_and(|p| git.dir.join(trimmed(&p)).exists())
    });
    if merging || rebasing {
        return Err(invalid(format!(
            "a {} is in progress in {}; finish or abort it before committing",
            if merging { "merge" } else { "rebase" },
            git.dir.display()
        )));
    }
    Ok(branch)
}

/// Stages `paths` (relative to the git directory) and commits exactly them.
fn commit_paths(
    git: &Git<'_>,
    message: &str,
    paths: &[String],
    identity: &Identity,
) -> Result<String, ErrorBody> {
    let mut list = Vec::new();
    for p in paths {
        list.extend_from_slice(p.as_bytes());
        list.push(0);
    }
    let add = ["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"];
    let out = git.output_with(add, Some(&list))?;
    if !out.status.success() {
        return Err(failed(&add, &out));
    }
    let commit = [
        "-c",
        "user.useConfigOnly=true",
        "commit",
        "--only",
        "--quiet",
        "-m",
        message,
        "--pathspec-from-file=-",
        "--pathspec-file-nul",
    ];
    let out = git.output_as(commit, Some(&list), identity)?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        if is_identity_error(&stderr) {
            return Err(invalid(identity_help(git.dir)));
        }
        return Err(failed(&["commit"], &out));
    }
    git.head()?
        .ok_or_else(|| internal("git commit succeeded but HEAD names no commit"))
}

fn commit_blocking(
    slug: &str,
    dir: &Path,
    scope: Option<&ScopeFiles>,
    message: &str,
    wanted: &[String],
    identity: &Identity,
) -> Result<GitCommitted, ErrorBody> {
    let git = Git { dir };
    let Some(prefix) = git.prefix()? else {
        return Err(invalid(format!(
            "{} is not in a git repository; run `git init` there first",
            dir.display()
        )));
    };
    let branch = committable_branch(&git)?;
    let changes = changes(&git, &prefix, scope)?;
    let changed: BTreeSet<String> = changes
        .files
        .iter()
        .flat_map(|f| std::iter::once(f.path.clone()).chain(f.orig_path.clone()))
        .collect();
    let paths: Vec<String> = if wanted.is_empty() {
        changed.into_iter().collect()
    } else {
        let mut out = Vec::new();
        for w in wanted {
            let p = crate::provenance::rel_path(dir, w);
            if !changed.contains(&p) {
                return Err(invalid(format!(
                    "{p} is not one of the {} changed files; `paddock git status` lists them",
                    if scope.is_some() {
                        "scope's"
                    } else {
                        "project's"
                    }
                )));
            }
            out.push(p);
        }
        out
    };
    if paths.is_empty() {
        return Err(invalid(if changes.hidden > 0 {
            format!(
                "nothing to commit in this scope ({} other changed file{} of project {} belong to no step of it)",
                changes.hidden,
                if changes.hidden == 1 { "" } else { "s" },
                label(slug)
            )
        } else {
            format!("nothing to commit in project {}", label(slug))
        }));
    }
    let commit = commit_paths(&git, message, &paths, identity)?;
    Ok(GitCommitted {
        project_slug: slug.to_owned(),
        commit,
        branch,
        files: paths,
    })
}

// ---------------------------------------------------------------------------------------------
// Push
// ---------------------------------------------------------------------------------------------

/// A `git_failed` error: `message` for a person, git's own words in `stderr`.
fn git_failed(reason: GitFailureReason, message: String, stderr: &str) -> ErrorBody {
    let mut e = ErrorBody::new(ErrorCode::GitFailed, message);
    e.git = Some(GitFailure {
        reason,
        stderr: stderr.trim().to_owned(),
    });
    e
}

/// What git says when it could not get or use credentials (it may not prompt).
fn is_auth_error(stderr: &str) -> bool {
    let s = stderr.to_ascii_lowercase();
    [
        "could not read username",
        "could not read password",
        "terminal prompts disabled",
        "authentication failed",
        "permission denied (publickey",
        "permission denied, please try again",
        "host key verification failed",
        "invalid username or password",
        "the requested url returned error: 401",
        "the requested url returned error: 403",
    ]
    .iter()
    .any(|needle| s.contains(needle))
}

/// The ssh command git should use for a push: the user's own (from the environment or
/// `core.sshCommand`) or plain `ssh`, in batch mode, so it never asks for a passphrase or a
/// host key confirmation. `None`: leave `GIT_SSH` (a program, not a command line) alone.
fn batch_ssh_command(git: &Git<'_>) -> Option<String> {
    let from_env = std::env::var("GIT_SSH_COMMAND")
        .ok()
        .filter(|c| !c.trim().is_empty());
    let configured = || {
        git.output(["config", "--get", "core.sshCommand"])
            .ok()
            .filter(|o| o.status.success())
            .map(|o| trimmed(&o.stdout))
            .filter(|c| !c.is_empty())
    };
    let base = match from_env.or_else(configured) {
        Some(c) => c,
        None if std::env::var_os("GIT_SSH").is_some() => return None,
        None => "ssh".to_owned(),
    };
    Some(format!("{base} -o BatchMode=yes"))
}

/// The branch's upstream: its remote and the branch there (`refs/heads/...`).
fn upstream_of(git: &Git<'_>, branch: &str) -> Result<Option<(String, String)>, ErrorBody> {
    let get = |key: String| -> Result<Option<String>, ErrorBody> {
        let out = git.output(["config", "--get", key.as_str()])?;
        Ok(out
            .status
            .success()
            .then(|| trimmed(&out.stdout))
            .filter(|v| !v.is_empty()))
    };
    let remote = get(format!("branch.{branch}.remote"))?;
    let merge = get(format!("branch.{branch}.merge"))?;
    Ok(remote.zip(merge))
}

/// One line of `git push --porcelain`: `<flag>\t<from>:<to>\t<summary>`.
#[derive(Debug, PartialEq, Eq)]
struct PushLine {
    flag: char,
    summary: String,
}

fn parse_push(stdout: &str) -> Option<PushLine> {
    stdout.lines().find_map(|line| {
        let mut parts = line.split('\t');
        let flag = parts.next()?.chars().next()?;
        let refs = parts.next()?;
        let summary = parts.next()?;
        refs.contains(':').then(|| PushLine {
            flag,
            summary: summary.to_owned(),
        })
    })
}

fn push_blocking(slug: &str, dir: &Path, data_root: bool) -> Result<GitPushed, ErrorBody> {
    let git = Git { dir };
    match git.prefix()? {
        None => {
            return Err(invalid(format!(
                "{} is not in a git repository; run `git init` there first",
                dir.display()
            )));
        }
        Some(prefix) if data_root && !prefix.is_empty() => {
            return Err(invalid(format!(
                "the data directory {} is not the top of a git repository of its own; run `git init` there to keep it in one",
                dir.display()
            )));
        }
        Some(_) => {}
    }
    let Some(branch) = git.branch()? else {
        return Err(invalid(format!(
            "HEAD is detached in {}; check out a branch before pushing",
            dir.display()
        )));
    };
    let local_ref = format!("refs/heads/{branch}");
    let Some(head) = git.head()? else {
        return Err(invalid(format!(
            "branch {branch} has no commits yet in {}; commit first, then push",
            dir.display()
        )));
    };
    let (remote, merge, set_upstream) = match upstream_of(&git, &branch)? {
        Some((remote, merge)) => (remote, merge, false),
        None => {
            let remotes = trimmed(&git.run(["remote"])?);
            let remotes: Vec<&str> = remotes.lines().map(str::trim).collect();
            if !remotes.contains(&"origin") {
                let others = if remotes.is_empty() {
                    "the repository has no remote".to_owned()
                } else {
                    format!(
                        "the repository has no remote `origin` (its remotes: {}; make one the upstream with `git push -u REMOTE {branch}` once)",
                        remotes.join(", ")
                    )
                };
                return Err(invalid(format!(
                    "branch {branch} has no upstream and {others}; add one with `git remote add origin URL` in {}, then push again",
                    dir.display()
                )));
            }
            ("origin".to_owned(), local_ref.clone(), true)
        }
    };
    let remote_branch = merge
        .strip_prefix("refs/heads/")
        .unwrap_or(&merge)
        .to_owned();
    let refspec = format!("{local_ref}:{merge}");
    let mut args: Vec<&str> = vec!["push", "--porcelain"];
    if set_upstream {
        args.push("--set-upstream");
    }
    args.extend(["--", remote.as_str(), refspec.as_str()]);
    let mut cmd = git.command(&args);
    cmd.env("GIT_ASKPASS", "")
        .env("SSH_ASKPASS", "")
        .env("SSH_ASKPASS_REQUIRE", "never")
        .env("GCM_INTERACTIVE", "never");
    if let Some(ssh) = batch_ssh_command(&git) {
        cmd.env("GIT_SSH_COMMAND", ssh);
    }
    let out = match crate::child::output_within(&mut cmd, None, GIT_TIMEOUT) {
        Ok(out) => out,
        Err(crate::child::RunError::Spawn(e)) => return Err(git.spawn_error(&e)),
        Err(crate::child::RunError::TimedOut(limit)) => {
            return Err(git_failed(
                GitFailureReason::Timeout,
                format!(
                    "git push to {remote} did not finish within {} s and was stopped; check that the remote is reachable, then push again",
                    limit.as_secs()
                ),
                "",
            ));
        }
        Err(other) => return Err(internal(format!("git push in {}: {other}", dir.display()))),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = parse_push(&stdout);
    if !out.status.success() || line.as_ref().is_some_and(|l| l.flag == '!') {
        let summary = line.map(|l| l.summary).unwrap_or_default();
        if let Some(why) = summary.strip_prefix("[rejected]") {
            let why = why.trim().trim_start_matches('(').trim_end_matches(')');
            return Err(git_failed(
                GitFailureReason::Rejected,
                format!(
                    "{remote} has commits that {branch} does not ({why}): pull (or rebase) first, then push again; nothing was pushed"
                ),
                &stderr,
            ));
        }
        let said = stderr
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("hint:"))
            .map(str::to_owned)
            .unwrap_or_else(|| summary.clone());
        if is_auth_error(&stderr) {
            return Err(git_failed(
                GitFailureReason::Auth,
                format!(
                    "git could not authenticate to {remote} without asking ({said}); set up a credential helper or an ssh key that needs no passphrase prompt, then push again"
                ),
                &stderr,
            ));
        }
        return Err(git_failed(
            GitFailureReason::Other,
            format!(
                "git push to {remote} failed: {}",
                if said.is_empty() {
                    out.status.to_string()
                } else {
                    said
                }
            ),
            &stderr,
        ));
    }
    let summary = line.map(|l| l.summary).unwrap_or_default();
    let full = |abbrev: &str| -> String {
        git.output([
            "rev-parse",
            "-q",
            "--verify",
            &format!("{abbrev}^{{commit}}"),
        ])
        .ok()
        .filter(|o| o.status.success())
        .map(|o| trimmed(&o.stdout))
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| abbrev.to_owned())
    };
    let (from, to, up_to_date) = if summary.starts_with("[up to date]") {
        (Some(head.clone()), head, true)
    } else if let Some((old, new)) = summary.split_once("..") {
        (Some(full(old)), full(new.trim_start_matches('.')), false)
    } else {
        // `[new branch]`
        (None, head, false)
    };
    Ok(GitPushed {
        project_slug: slug.to_owned(),
        data_root,
        branch,
        remote,
        remote_branch,
        from,
        to,
        up_to_date,
        set_upstream,
    })
}

// ---------------------------------------------------------------------------------------------
// Scopes
// ---------------------------------------------------------------------------------------------

/// The chats a scope covers, after checking they are the project's.
async fn scope_sessions(
    d: &Daemon,
    user: &str,
    project: &Project,
    scope: &GitScope,
) -> Result<Option<(Vec<String>, Option<String>)>, ErrorBody> {
    let (sid, job) = match scope {
        GitScope::Project => return Ok(None),
        GitScope::Chat { session_id } | GitScope::Subtree { session_id } => (session_id, None),
        GitScope::Turn { session_id, job_id } => (session_id, Some(job_id.clone())),
    };
    d.state.wait_ready().await;
    let running = crate::chats::running_sessions(d).await;
    let (owner, _) = crate::chats::locate(d, sid, &running)?;
    if owner.slug != project.slug {
        return Err(invalid(format!(
            "chat {sid} belongs to project {}, not {}",
            label(&owner.slug),
            label(&project.slug)
        )));
    }
    let mut sessions = vec![sid.clone()];
    if matches!(scope, GitScope::Subtree { .. }) {
        let rows = crate::chats::list(d, user, Some(&project.slug), ChatScope::All).await?;
        let mut i = 0;
        while let Some(cur) = sessions.get(i).cloned() {
            if let Some(row) = rows.iter().find(|r| r.session_id == cur) {
                for child in &row.children {
                    if !sessions.contains(child) {
                        sessions.push(child.clone());
                    }
                }
            }
            i += 1;
        }
    }
    Ok(Some((sessions, job)))
}

/// The files the steps of `sessions` (of one turn, when `job` is given) wrote inside the
/// project's directory (blocking: reads the steps files).
fn written_files(meta_dir: &Path, sessions: &[String], job: Option<&str>) -> ScopeFiles {
    let mut out = ScopeFiles::default();
    for sid in sessions {
        let lines = match steps::read(&steps::steps_path(meta_dir, sid)) {
            Ok(lines) => lines,
            Err(e) => {
                out.notes.push(format!(
                    "The steps of chat {} could not be read ({e}), so its files are missing here.",
                    short(sid)
                ));
                continue;
            }
        };
        let mut gap = false;
        let mut unscanned = 0;
        for line in lines {
            match line {
                Line::Gap { .. } => gap = true,
                Line::Step(step) => {
                    if job.is_some_and(|j| j != step.job_id) {
                        continue;
                    }
                    if step.scan.is_some() {
                        unscanned += 1;
                    }
                    for f in &step.files {
                        if f.role == Role::Write && !f.path.starts_with('/') && !f.path.is_empty() {
                            out.paths.insert(f.path.clone());
                        }
                    }
                }
            }
        }
        if gap {
            out.notes.push(format!(
                "Some tool calls of chat {} were not recorded (the recorder fell behind), so files it wrote may be missing here.",
                short(sid)
            ));
        }
        if unscanned > 0 {
            out.notes.push(format!(
                "{unscanned} tool call{} of chat {} had no before/after scan, so files {} wrote may be missing here.",
                if unscanned == 1 { "" } else { "s" },
                short(sid),
                if unscanned == 1 { "it" } else { "they" }
            ));
        }
    }
    out
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// The project and the scope's files (`None`: the whole project).
async fn resolve(
    d: &Daemon,
    user: &str,
    slug: &str,
    scope: &GitScope,
) -> Result<(Project, Option<ScopeFiles>), ErrorBody> {
    let project = d.project(slug)?;
    let Some((sessions, job)) = scope_sessions(d, user, &project, scope).await? else {
        return Ok((project, None));
    };
    let meta = project.meta_dir.clone();
    let files = blocking(move || Ok(written_files(&meta, &sessions, job.as_deref()))).await?;
    Ok((project, Some(files)))
}

async fn blocking<T: Send + 'static>(
    job: impl FnOnce() -> Result<T, ErrorBody> + Send + 'static,
) -> Result<T, ErrorBody> {
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| internal(format!("the git request failed: {e}")))?
}

// ---------------------------------------------------------------------------------------------
// The requests
// ---------------------------------------------------------------------------------------------

/// `git:status`.
pub async fn status(d: &Daemon, user: &str, r: GitStatusRequest) -> Result<GitStatus, ErrorBody> {
    let (project, scope) = resolve(d, user, &r.project_slug, &r.scope).await?;
    blocking(move || status_blocking(&project.slug, &project.agent_dir, scope.as_ref())).await
}

/// `git:diff`.
pub async fn diff(d: &Daemon, user: &str, r: GitDiffRequest) -> Result<GitDiff, ErrorBody> {
    let (project, scope) = resolve(d, user, &r.project_slug, &r.scope).await?;
    blocking(move || {
        diff_blocking(
            &project.slug,
            &project.agent_dir,
            scope.as_ref(),
            r.path.as_deref(),
        )
    })
    .await
}

/// `git:commit`.
pub async fn commit(
    d: &Daemon,
    user: &str,
    r: GitCommitRequest,
) -> Result<GitCommitted, ErrorBody> {
    if r.message.trim().is_empty() {
        return Err(invalid("a commit needs a message"));
    }
    let (project, scope) = resolve(d, user, &r.project_slug, &r.scope).await?;
    let identity = d.cfg.git_identity.clone();
    blocking(move || {
        commit_blocking(
            &project.slug,
            &project.agent_dir,
            scope.as_ref(),
            &r.message,
            &r.paths,
            &identity,
        )
    })
    .await
}

/// `git:push`: a project's repository, or (`dataRoot`) the data directory's own.
pub async fn push(d: &Daemon, r: GitPushRequest) -> Result<GitPushed, ErrorBody> {
    if r.data_root {
        if !r.project_slug.is_empty() {
            return Err(invalid(
                "with dataRoot the project slug must be empty: the data directory's repository is pushed",
            ));
        }
        let dir = d.cfg.data_dir.clone();
        return blocking(move || push_blocking("", &dir, true)).await;
    }
    let project = d.project(&r.project_slug)?;
    blocking(move || push_blocking(&project.slug, &project.agent_dir, false)).await
}

// ---------------------------------------------------------------------------------------------
// Generated files
// ---------------------------------------------------------------------------------------------

/// After a sweep wrote `wrote` (file names in the project's metadata folder): when the data
/// directory is the top of a git repository, commits OVERVIEW.md and CHANGELOG.md there, those
/// paths only. Never fails the sweep: problems are logged.
pub async fn commit_generated(
    data_dir: &Path,
    identity: &Identity,
    project: &Project,
    wrote: &[&str],
) {
    let files: Vec<PathBuf> = wrote
        .iter()
        .filter(|f| {
            [
                crate::config::curation::OVERVIEW_FILE,
                crate::config::curation::CHANGELOG_FILE,
            ]
            .contains(f)
        })
        .map(|f| project.meta_dir.join(f))
        .collect();
    let message = format!("paddock: curate {}", label(&project.slug));
    let files = MetaFiles {
        files,
        message,
        what: "the curated files",
    };
    commit_meta_files(data_dir, identity, &project.slug, files).await;
}

/// Commits a project's `.chats` (its transcripts: the folder in own mode, the link in host
/// mode) in the data directory's repository, if it is one of its own and they changed.
pub async fn commit_chats(data_dir: &Path, identity: &Identity, project: &Project) {
    let files = MetaFiles {
        files: vec![project.meta_dir.join(".chats")],
        message: format!("paddock: save the chats of {}", label(&project.slug)),
        what: "the chats",
    };
    commit_meta_files(data_dir, identity, &project.slug, files).await;
}

/// Generated files of a project to commit, with the commit's message; `what` names them for
/// the log.
struct MetaFiles {
    files: Vec<PathBuf>,
    message: String,
    what: &'static str,
}

/// Commits generated files of a project in the data directory's repository; failures are
/// logged, never returned.
async fn commit_meta_files(data_dir: &Path, identity: &Identity, slug: &str, job: MetaFiles) {
    let (data_dir, slug, identity) = (data_dir.to_path_buf(), slug.to_owned(), identity.clone());
    let MetaFiles {
        files,
        message,
        what,
    } = job;
    let done = tokio::task::spawn_blocking(move || {
        let result = commit_generated_blocking(&data_dir, &files, &message, &identity);
        (slug, result)
    })
    .await;
    match done {
        Ok((slug, Ok(Some(commit)))) => {
            tracing::info!(project = %slug, %commit, "committed {what} in the data directory's repository");
        }
        Ok((_, Ok(None))) => {}
        Ok((slug, Err(e))) => {
            tracing::warn!(project = %slug, "cannot commit {what} in the data directory's repository: {}", e.message);
        }
        Err(e) => tracing::warn!("the commit of {what} failed: {e}"),
    }
}

fn commit_generated_blocking(
    data_dir: &Path,
    files: &[PathBuf],
    message: &str,
    identity: &Identity,
) -> Result<Option<String>, ErrorBody> {
    let git = Git { dir: data_dir };
    // Only a repository of its own: not one the data directory happens to sit in.
    if git.prefix()?.as_deref() != Some("") {
        return Ok(None);
    }
    let canon = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    let paths: Vec<String> = files
        .iter()
        .filter_map(|f| {
            // The folder resolved, not the file: a symlink (`.chats` in host mode) is
            // committed as the link it is.
            let f = match (f.parent(), f.file_name()) {
                (Some(dir), Some(name)) => std::fs::canonicalize(dir)
                    .map(|d| d.join(name))
                    .unwrap_or_else(|_| f.clone()),
                _ => f.clone(),
            };
            f.strip_prefix(&canon)
                .ok()
                .map(|p| p.to_string_lossy().into_owned())
        })
        .collect();
    if paths.is_empty() {
        return Ok(None);
    }
    committable_branch(&git)?;
    let mut args: Vec<&str> = vec!["status", "--porcelain=v1", "-z", "--"];
    args.extend(paths.iter().map(String::as_str));
    if git.run(&args)?.is_empty() {
        return Ok(None);
    }
    commit_paths(&git, message, &paths, identity).map(Some)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn branch_lines_parse() {
        assert_eq!(
            parse_branch("main...origin/main [ahead 2, behind 1]"),
            BranchLine {
                branch: Some("main".into()),
                upstream: Some("origin/main".into()),
                ahead: Some(2),
                behind: Some(1),
            }
        );
        assert_eq!(
            parse_branch("main...origin/main"),
            BranchLine {
                branch: Some("main".into()),
                upstream: Some("origin/main".into()),
                ahead: Some(0),
                behind: Some(0),
            }
        );
        assert_eq!(parse_branch("dev...origin/dev [gone]").ahead, None);
        assert_eq!(parse_branch("HEAD (no branch)"), BranchLine::default());
        assert_eq!(
            parse_branch("No commits yet on main").branch.as_deref(),
            Some("main")
        );
        assert_eq!(parse_branch("topic").branch.as_deref(), Some("topic"));
    }

    #[test]
    fn porcelain_entries_parse_relative_to_the_directory() {
        let raw = b"## main\0 M sub/a.txt\0?? sub/new dir/b c.txt\0R  sub/to.txt\0sub/from.txt\0";
        let (branch, files) = parse_status(raw, "sub/");
        assert_eq!(branch.branch.as_deref(), Some("main"));
        let got: Vec<(&str, &str, &str, Option<&str>)> = files
            .iter()
            .map(|f| {
                (
                    f.path.as_str(),
                    f.index.as_str(),
                    f.worktree.as_str(),
                    f.orig_path.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("a.txt", ".", "M", None),
                ("new dir/b c.txt", "?", "?", None),
                ("to.txt", "R", ".", Some("from.txt")),
            ]
        );
    }

    #[test]
    fn push_porcelain_lines_parse() {
        let out = "To ../remote.git\n \trefs/heads/main:refs/heads/main\te02b76d..5782b7d\nDone\n";
        assert_eq!(
            parse_push(out),
            Some(PushLine {
                flag: ' ',
                summary: "e02b76d..5782b7d".into(),
            })
        );
        let out = "To ../remote.git\n!\trefs/heads/main:refs/heads/main\t[rejected] (non-fast-forward)\nDone\n";
        let line = parse_push(out).unwrap();
        assert_eq!(line.flag, '!');
        assert_eq!(line.summary, "[rejected] (non-fast-forward)");
        let out = "*\trefs/heads/main:refs/heads/main\t[new branch]\n";
        assert_eq!(parse_push(out).unwrap().flag, '*');
        assert_eq!(parse_push("Done\n"), None);
    }

    #[test]
    fn credential_failures_are_recognised() {
        assert!(is_auth_error(
            "fatal: could not read Username for 'https://github.com': terminal prompts disabled"
        ));
        assert!(is_auth_error(
            "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository."
        ));
        assert!(is_auth_error("Host key verification failed."));
        assert!(!is_auth_error(
            "fatal: '../nowhere' does not appear to be a git repository"
        ));
    }

    #[test]
    fn ssh_runs_in_batch_mode() {
        let dir = repo();
        let git = Git { dir: dir.path() };
        if std::env::var_os("GIT_SSH_COMMAND").is_none() && std::env::var_os("GIT_SSH").is_none() {
            assert_eq!(
                batch_ssh_command(&git).as_deref(),
                Some("ssh -o BatchMode=yes")
            );
            git_in(dir.path(), &["config", "core.sshCommand", "ssh -i /k"]);
            assert_eq!(
                batch_ssh_command(&git).as_deref(),
                Some("ssh -i /k -o BatchMode=yes")
            );
        }
    }

    fn git_in(dir: &Path, args: &[&str]) {
        let out = Git { dir }.run(args);
        assert!(out.is_ok(), "git {args:?}: {out:?}");
    }

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        git_in(dir.path(), &["init", "-q", "-b", "main"]);
        git_in(dir.path(), &["config", "user.name", "Ana Test"]);
        git_in(dir.path(), &["config", "user.email", "ana@example.com"]);
        dir
    }

    #[test]
    fn a_plain_directory_is_not_a_repository() {
        let dir = tempfile::tempdir().unwrap();
        let s = status_blocking("p", dir.path(), None).unwrap();
        assert!(!s.is_repo && s.files.is_empty());
    }

    #[test]
    fn status_diff_and_commit_of_a_scope() {
        let dir = repo();
        let root = dir.path();
        std::fs::write(root.join("base.txt"), "one\n").unwrap();
        git_in(root, &["add", "base.txt"]);
        git_in(root, &["commit", "-q", "-m", "base"]);
        std::fs::write(root.join("base.txt"), "two\n").unwrap();
        std::fs::write(root.join("new.txt"), "fresh\n").unwrap();
        std::fs::write(root.join("other.txt"), "by hand\n").unwrap();
        let scope = ScopeFiles {
            paths: ["base.txt", "new.txt"].map(str::to_owned).into(),
            notes: vec![],
        };
        let s = status_blocking("p", root, Some(&scope)).unwrap();
        assert_eq!(s.branch.as_deref(), Some("main"));
        let paths: Vec<&str> = s.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["base.txt", "new.txt"]);
        assert_eq!(s.hidden, 1);
        let d = diff_blocking("p", root, Some(&scope), None).unwrap();
        assert!(d.diff.contains("-one\n+two"), "{}", d.diff);
        assert!(d.diff.contains("+fresh"), "{}", d.diff);
        assert!(!d.diff.contains("by hand"));
        let err = diff_blocking("p", root, Some(&scope), Some("other.txt")).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        let c =
            commit_blocking("p", root, Some(&scope), "scoped", &[], &Identity::default()).unwrap();
        assert_eq!(c.files, ["base.txt", "new.txt"]);
        let after = status_blocking("p", root, None).unwrap();
        let left: Vec<&str> = after.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(left, ["other.txt"]);
        let err = commit_blocking("p", root, Some(&scope), "again", &[], &Identity::default())
            .unwrap_err();
        assert!(err.message.contains("nothing to commit"), "{}", err.message);
    }

    #[test]
    fn a_diff_is_cut_at_its_bound() {
        let dir = repo();
        let root = dir.path();
        std::fs::write(root.join("big.txt"), "line\n".repeat(1000)).unwrap();
        let git = Git { dir: root };
        let mut out = Vec::new();
        let cut = append_capped(
            &git,
            ["diff", "--no-index", "--", "/dev/null", "big.txt"],
            &mut out,
            1000,
        )
        .unwrap();
        assert!(cut);
        assert!(out.len() <= 1000 && out.ends_with(b"\n"));
    }

    #[test]
    fn generated_files_are_committed_alone_in_a_data_root_repository() {
        let dir = repo();
        let root = dir.path();
        let meta = root.join("projects").join("web");
        std::fs::create_dir_all(&meta).unwrap();
        std::fs::write(root.join("staged.txt"), "staged\n").unwrap();
        git_in(root, &["add", "staged.txt"]);
        std::fs::write(meta.join("OVERVIEW.md"), "# Web\n").unwrap();
        let id = commit_generated_blocking(
            root,
            &[meta.join("OVERVIEW.md")],
            "paddock: curate web",
            &Identity::default(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(id.len(), 40);
        let shown = Git { dir: root }
            .run(["show", "--name-only", "--format=%s", "HEAD"])
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&shown).trim(),
            "paddock: curate web\n\nprojects/web/OVERVIEW.md"
        );
        // The other staged change is still staged, and a second run has nothing to do.
        let s = status_blocking("", root, None).unwrap();
        assert_eq!(s.files[0].path, "staged.txt");
        assert_eq!(s.files[0].index, "A");
        assert!(
            commit_generated_blocking(
                root,
                &[meta.join("OVERVIEW.md")],
                "paddock: curate web",
                &Identity::default(),
            )
            .unwrap()
            .is_none()
        );
    }
}
