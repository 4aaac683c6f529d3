//! `git push` of the current branch to its upstream, never prompting for credentials.

use std::path::Path;

use paddock_proto::{ErrorBody, ErrorCode, GitFailure, GitFailureReason, GitPushed};

use super::{GIT_TIMEOUT, Git, internal, invalid, trimmed};

/// A `git_failed` error: `message` for a person, git's own words in `stderr`.
pub(super) fn git_failed(reason: GitFailureReason, message: String, stderr: &str) -> ErrorBody {
    let mut e = ErrorBody::new(ErrorCode::GitFailed, message);
    e.git = Some(GitFailure {
        reason,
        stderr: stderr.trim().to_owned(),
    });
    e
}

/// What git says when it could not get or use credentials (it may not prompt).
pub(super) fn is_auth_error(stderr: &str) -> bool {
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
pub(super) fn batch_ssh_command(git: &Git<'_>) -> Option<String> {
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
pub(super) fn upstream_of(
    git: &Git<'_>,
    branch: &str,
) -> Result<Option<(String, String)>, ErrorBody> {
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
pub(super) struct PushLine {
    pub(super) flag: char,
    pub(super) summary: String,
}

pub(super) fn parse_push(stdout: &str) -> Option<PushLine> {
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

pub(super) fn push_blocking(
    slug: &str,
    dir: &Path,
    data_root: bool,
) -> Result<GitPushed, ErrorBody> {
    let git = Git { dir };
    check_repository(&git, data_root)?;
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
    let (remote, merge, set_upstream) = push_target(&git, &branch, &local_ref)?;
    let remote_branch = merge
        .strip_prefix("refs/heads/")
        .unwrap_or(&merge)
        .to_owned();
    let out = run_push(&git, &remote, &format!("{local_ref}:{merge}"), set_upstream)?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = parse_push(&stdout);
    if !out.status.success() || line.as_ref().is_some_and(|l| l.flag == '!') {
        let summary = line.map(|l| l.summary).unwrap_or_default();
        return Err(push_failure(
            &remote, &branch, &summary, &stderr, out.status,
        ));
    }
    let summary = line.map(|l| l.summary).unwrap_or_default();
    let (from, to, up_to_date) = pushed_range(&git, &summary, head);
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

/// The directory is in a git repository (for the data directory: at its top).
fn check_repository(git: &Git<'_>, data_root: bool) -> Result<(), ErrorBody> {
    match git.prefix()? {
        None => Err(invalid(format!(
            "{} is not in a git repository; run `git init` there first",
            git.dir.display()
        ))),
        Some(prefix) if data_root && !prefix.is_empty() => Err(invalid(format!(
            "the data directory {} is not the top of a git repository of its own; run `git init` there to keep it in one",
            git.dir.display()
        ))),
        Some(_) => Ok(()),
    }
}

/// Where `branch` goes: its upstream (remote, merge ref), or `origin` with the same name, set
/// as the upstream by this push (`true`). A branch with neither says how to add one.
fn push_target(
    git: &Git<'_>,
    branch: &str,
    local_ref: &str,
) -> Result<(String, String, bool), ErrorBody> {
    if let Some((remote, merge)) = upstream_of(git, branch)? {
        return Ok((remote, merge, false));
    }
    let remotes = trimmed(&git.run(["remote"])?);
    let remotes: Vec<&str> = remotes.lines().map(str::trim).collect();
    if remotes.contains(&"origin") {
        return Ok(("origin".to_owned(), local_ref.to_owned(), true));
    }
    let others = if remotes.is_empty() {
        "the repository has no remote".to_owned()
    } else {
        format!(
            "the repository has no remote `origin` (its remotes: {}; make one the upstream with `git push -u REMOTE {branch}` once)",
            remotes.join(", ")
        )
    };
    Err(invalid(format!(
        "branch {branch} has no upstream and {others}; add one with `git remote add origin URL` in {}, then push again",
        git.dir.display()
    )))
}

/// `git push --porcelain` of `refspec` to `remote`, never asking for a credential, within
/// [`GIT_TIMEOUT`].
fn run_push(
    git: &Git<'_>,
    remote: &str,
    refspec: &str,
    set_upstream: bool,
) -> Result<std::process::Output, ErrorBody> {
    let mut args: Vec<&str> = vec!["push", "--porcelain"];
    if set_upstream {
        args.push("--set-upstream");
    }
    args.extend(["--", remote, refspec]);
    let mut cmd = git.command(&args);
    cmd.env("GIT_ASKPASS", "")
        .env("SSH_ASKPASS", "")
        .env("SSH_ASKPASS_REQUIRE", "never")
        .env("GCM_INTERACTIVE", "never");
    if let Some(ssh) = batch_ssh_command(git) {
        cmd.env("GIT_SSH_COMMAND", ssh);
    }
    match crate::child::output_within(&mut cmd, None, GIT_TIMEOUT) {
        Ok(out) => Ok(out),
        Err(crate::child::RunError::Spawn(e)) => Err(git.spawn_error(&e)),
        Err(crate::child::RunError::TimedOut(limit)) => Err(git_failed(
            GitFailureReason::Timeout,
            format!(
                "git push to {remote} did not finish within {} s and was stopped; check that the remote is reachable, then push again",
                limit.as_secs()
            ),
            "",
        )),
        Err(other) => Err(internal(format!(
            "git push in {}: {other}",
            git.dir.display()
        ))),
    }
}

/// Why a push failed, in the words of what to do: rejected (pull first), no credential that
/// needs no prompt, or git's own first line.
fn push_failure(
    remote: &str,
    branch: &str,
    summary: &str,
    stderr: &str,
    status: std::process::ExitStatus,
) -> ErrorBody {
    if let Some(why) = summary.strip_prefix("[rejected]") {
        let why = why.trim().trim_start_matches('(').trim_end_matches(')');
        return git_failed(
            GitFailureReason::Rejected,
            format!(
                "{remote} has commits that {branch} does not ({why}): pull (or rebase) first, then push again; nothing was pushed"
            ),
            stderr,
        );
    }
    let said = stderr
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("hint:"))
        .map_or_else(|| summary.to_owned(), str::to_owned);
    if is_auth_error(stderr) {
        return git_failed(
            GitFailureReason::Auth,
            format!(
                "git could not authenticate to {remote} without asking ({said}); set up a credential helper or an ssh key that needs no passphrase prompt, then push again"
            ),
            stderr,
        );
    }
    git_failed(
        GitFailureReason::Other,
        format!(
            "git push to {remote} failed: {}",
            if said.is_empty() {
                status.to_string()
            } else {
                said
            }
        ),
        stderr,
    )
}

/// What the push moved, from its porcelain summary: (from, to, up to date); full commit ids.
fn pushed_range(git: &Git<'_>, summary: &str, head: String) -> (Option<String>, String, bool) {
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
    if summary.starts_with("[up to date]") {
        (Some(head.clone()), head, true)
    } else if let Some((old, new)) = summary.split_once("..") {
        (Some(full(old)), full(new.trim_start_matches('.')), false)
    } else {
        // `[new branch]`
        (None, head, false)
    }
}
