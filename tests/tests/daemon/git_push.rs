//! `git:push` over the socket, with a local bare repository as the remote (no network): a first
//! push that sets the upstream, a push to the upstream, one with nothing to push, a push the
//! remote refuses because another clone pushed first, a repository with no remote, a detached
//! HEAD, and the data directory's own repository.

use std::path::Path;

use paddock_proto::{
    ErrorBody, ErrorCode, GitFailureReason, GitPushRequest, GitPushed, Reply, Request,
};

use crate::harness::*;

/// Runs git in `dir`; its stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn identity(dir: &Path) {
    git(dir, &["config", "user.name", "Ana Test"]);
    git(dir, &["config", "user.email", "ana@example.com"]);
}

/// A repository on `main` with one commit of `base.txt`.
fn init_repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    identity(dir);
    std::fs::write(dir.join("base.txt"), "base\n").unwrap();
    git(dir, &["add", "base.txt"]);
    git(dir, &["commit", "-q", "-m", "base"]);
}

/// An empty bare repository at `dir`.
fn init_bare(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "--bare", "-b", "main"]);
}

/// Commits a change of `file` in `dir`; the new commit's id.
fn commit_change(dir: &Path, file: &str, content: &str) -> String {
    std::fs::write(dir.join(file), content).unwrap();
    git(dir, &["add", file]);
    git(dir, &["commit", "-q", "-m", &format!("change {file}")]);
    git(dir, &["rev-parse", "HEAD"])
}

async fn push(c: &mut RawClient, slug: &str, data_root: bool) -> Result<GitPushed, ErrorBody> {
    c.request(Request::GitPush(GitPushRequest {
        project_slug: slug.into(),
        data_root,
    }))
    .await
    .map(|r| match r {
        Reply::GitPushed(p) => p,
        other => panic!("expected git_pushed, got {other:?}"),
    })
}

#[tokio::test]
async fn a_first_push_sets_the_upstream_then_pushes_to_it_then_is_up_to_date() {
    let d = TestDaemon::start().await;
    let root = d.dir.path();
    let (work, remote) = (root.join("web"), root.join("remote.git"));
    init_repo(&work);
    init_bare(&remote);
    git(
        &work,
        &["remote", "add", "origin", &remote.to_string_lossy()],
    );
    let mut c = d.client().await;
    create_project(&mut c, "web", &work).await;

    // No upstream yet: to origin, which becomes the upstream.
    let head = git(&work, &["rev-parse", "HEAD"]);
    let first = push(&mut c, "web", false).await.unwrap();
    assert_eq!(
        (
            first.branch.as_str(),
            first.remote.as_str(),
            first.remote_branch.as_str()
        ),
        ("main", "origin", "main")
    );
    assert!(first.set_upstream && !first.up_to_date);
    assert_eq!(
        (first.from.as_deref(), first.to.as_str()),
        (None, head.as_str())
    );
    assert_eq!(git(&remote, &["rev-parse", "main"]), head);
    assert_eq!(
        git(&work, &["rev-parse", "--abbrev-ref", "main@{upstream}"]),
        "origin/main"
    );

    // With an upstream: from..to.
    let next = commit_change(&work, "base.txt", "two\n");
    let second = push(&mut c, "web", false).await.unwrap();
    assert!(!second.set_upstream && !second.up_to_date);
    assert_eq!(second.from.as_deref(), Some(head.as_str()));
    assert_eq!(second.to, next);
    assert_eq!(git(&remote, &["rev-parse", "main"]), next);

    // Nothing new: up to date.
    let third = push(&mut c, "web", false).await.unwrap();
    assert!(third.up_to_date);
    assert_eq!(
        (third.from.as_deref(), third.to.as_str()),
        (Some(next.as_str()), next.as_str())
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_push_behind_the_remote_is_refused_with_gits_words() {
    let d = TestDaemon::start().await;
    let root = d.dir.path();
    let (work, remote, other) = (
        root.join("web"),
        root.join("remote.git"),
        root.join("other"),
    );
    init_repo(&work);
    init_bare(&remote);
    let url = remote.to_string_lossy().into_owned();
    git(&work, &["remote", "add", "origin", &url]);
    git(&work, &["push", "-q", "-u", "origin", "main"]);
    // Another clone pushes first.
    git(root, &["clone", "-q", &url, &other.to_string_lossy()]);
    identity(&other);
    let theirs = commit_change(&other, "theirs.txt", "theirs\n");
    git(&other, &["push", "-q", "origin", "main"]);
    commit_change(&work, "ours.txt", "ours\n");

    let mut c = d.client().await;
    create_project(&mut c, "web", &work).await;
    let err = push(&mut c, "web", false).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::GitFailed, "{err:?}");
    let failure = err.git.clone().expect("the error carries git's failure");
    assert_eq!(failure.reason, GitFailureReason::Rejected);
    assert!(err.message.contains("pull"), "{}", err.message);
    assert!(
        failure.stderr.contains("failed to push some refs"),
        "{}",
        failure.stderr
    );
    assert_eq!(failure.stderr, failure.stderr.trim());
    // Nothing was forced over theirs.
    assert_eq!(git(&remote, &["rev-parse", "main"]), theirs);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn no_remote_a_detached_head_and_no_repository_are_refused_with_what_to_do() {
    let d = TestDaemon::start().await;
    let root = d.dir.path();
    let mut c = d.client().await;

    let lone = root.join("lone");
    init_repo(&lone);
    create_project(&mut c, "lone", &lone).await;
    let err = push(&mut c, "lone", false).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");
    assert!(
        err.message.contains("git remote add origin"),
        "{}",
        err.message
    );

    // A remote of another name is named, and how to make it the upstream.
    let remote = root.join("remote.git");
    init_bare(&remote);
    git(
        &lone,
        &["remote", "add", "backup", &remote.to_string_lossy()],
    );
    let err = push(&mut c, "lone", false).await.unwrap_err();
    assert!(
        err.message.contains("backup") && err.message.contains("git push -u"),
        "{}",
        err.message
    );
    git(&lone, &["remote", "rename", "backup", "origin"]);
    git(&lone, &["checkout", "-q", "--detach"]);
    let err = push(&mut c, "lone", false).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");
    assert!(err.message.contains("detached"), "{}", err.message);
    // Nothing reached the remote.
    assert_eq!(git(&remote, &["for-each-ref"]), "");

    let plain = root.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    create_project(&mut c, "plain", &plain).await;
    let err = push(&mut c, "plain", false).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");
    assert!(err.message.contains("git init"), "{}", err.message);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn the_data_directorys_own_repository_is_pushed() {
    let d = TestDaemon::start().await;
    let data = d.cfg.data_dir.clone();
    let mut c = d.client().await;
    // Not a repository yet.
    let err = push(&mut c, "", true).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");

    git(&data, &["init", "-q", "-b", "main"]);
    identity(&data);
    let head = commit_change(&data, "notes.txt", "notes\n");
    let remote = d.dir.path().join("data-remote.git");
    init_bare(&remote);
    git(
        &data,
        &["remote", "add", "origin", &remote.to_string_lossy()],
    );

    let err = push(&mut c, "web", true).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");
    let pushed = push(&mut c, "", true).await.unwrap();
    assert!(pushed.data_root && pushed.set_upstream);
    assert_eq!(pushed.to, head);
    assert_eq!(git(&remote, &["rev-parse", "main"]), head);
    d.stop().await.unwrap();
}
