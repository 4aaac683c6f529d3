//! The git view with the fake `claude`: status, diff and commit of a project, scoped to a turn,
//! a chat or a subtree of chats by the files their steps wrote (a `run` in the script puts each
//! write on disk for real); a directory outside any repository; and the automatic commit of the
//! sweeper's files when the data directory is a repository.

use std::path::Path;
use std::time::Duration;

use paddock_proto::{
    ChatEvent, ChatFork, ErrorBody, ErrorCode, GitCommitRequest, GitCommitted, GitDiff,
    GitDiffRequest, GitScope, GitStatus, GitStatusRequest, ProjectCreate, Reply, Request,
};

use crate::harness::*;

/// Runs git in `dir`; its stdout.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
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
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A repository with a configured user and one commit of `base.txt`.
fn init_repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Ana Test"]);
    git(dir, &["config", "user.email", "ana@example.com"]);
    std::fs::write(dir.join("base.txt"), "base\n").unwrap();
    git(dir, &["add", "base.txt"]);
    git(dir, &["commit", "-q", "-m", "base"]);
}

async fn status(c: &mut RawClient, slug: &str, scope: GitScope) -> Result<GitStatus, ErrorBody> {
    c.request(Request::GitStatus(GitStatusRequest {
        project_slug: slug.into(),
        scope,
    }))
    .await
    .map(|r| match r {
        Reply::GitStatus(s) => s,
        other => panic!("expected git_status, got {other:?}"),
    })
}

async fn diff(
    c: &mut RawClient,
    slug: &str,
    scope: GitScope,
    path: Option<&str>,
) -> Result<GitDiff, ErrorBody> {
    c.request(Request::GitDiff(GitDiffRequest {
        project_slug: slug.into(),
        scope,
        path: path.map(str::to_owned),
    }))
    .await
    .map(|r| match r {
        Reply::GitDiff(d) => d,
        other => panic!("expected git_diff, got {other:?}"),
    })
}

async fn commit(
    c: &mut RawClient,
    slug: &str,
    scope: GitScope,
    message: &str,
    paths: &[&str],
) -> Result<GitCommitted, ErrorBody> {
    c.request(Request::GitCommit(GitCommitRequest {
        project_slug: slug.into(),
        scope,
        message: message.into(),
        paths: paths.iter().map(|p| (*p).to_owned()).collect(),
    }))
    .await
    .map(|r| match r {
        Reply::GitCommitted(c) => c,
        other => panic!("expected git_committed, got {other:?}"),
    })
}

fn paths(s: &GitStatus) -> Vec<&str> {
    s.files.iter().map(|f| f.path.as_str()).collect()
}

/// Asks until the scope's status lists exactly `want`: the recorder writes steps a moment after
/// the frames, and the index learns of a fork a moment after it is made.
async fn status_until(c: &mut RawClient, slug: &str, scope: &GitScope, want: &[&str]) -> GitStatus {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let last = status(c, slug, scope.clone()).await;
        if let Ok(s) = &last
            && paths(s) == want
        {
            return s.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the status of {scope:?} never listed {want:?}: {last:#?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// A turn whose one tool call writes `file` (relative to `dir`) for real; (session, job).
async fn write_turn(
    c: &mut RawClient,
    slug: &str,
    session: Option<&str>,
    dir: &Path,
    file: &str,
    content: &str,
) -> (String, String) {
    let path = dir.join(file);
    let step = serde_json::json!({
        "tool": "Write",
        "input": {"file_path": path, "content": content},
        "output": "File created successfully",
        "run": format!("printf '%s\\n' '{content}' > '{}'", path.display()),
    });
    let sent = c
        .send_turn(
            slug,
            session,
            &format!("fake:[{step},{{\"text\":\"done\"}}]"),
        )
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "turn failed: {frames:#?}");
    assert!(
        frames
            .iter()
            .any(|f| matches!(f.event, ChatEvent::ToolCall(_))),
        "no tool call in {frames:#?}"
    );
    (sent.session_id, sent.job_id)
}

#[tokio::test]
async fn a_directory_outside_any_repository_has_no_status() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let dir = d.dir.path().join("plain");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.txt"), "a").unwrap();
    create_project(&mut c, "plain", &dir).await;
    let s = status(&mut c, "plain", GitScope::Project).await.unwrap();
    assert!(!s.is_repo, "{s:#?}");
    assert!(s.files.is_empty() && s.branch.is_none());
    let diff = diff(&mut c, "plain", GitScope::Project, None)
        .await
        .unwrap();
    assert!(!diff.is_repo && diff.diff.is_empty());
    let err = commit(&mut c, "plain", GitScope::Project, "x", &[])
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(err.message.contains("not in a git repository"), "{err:?}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn status_diff_and_commit_scoped_to_a_turn_a_chat_and_a_subtree() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let dir = d.dir.path().join("web");
    init_repo(&dir);
    create_project(&mut c, "web", &dir).await;

    // Chat A writes a.txt in one turn and c.txt in another; someone edits base.txt by hand.
    let (chat, job1) = write_turn(&mut c, "web", None, &dir, "a.txt", "from chat a").await;
    let (_, job2) = write_turn(&mut c, "web", Some(&chat), &dir, "c.txt", "second turn").await;
    std::fs::write(dir.join("base.txt"), "edited by hand\n").unwrap();

    let whole = status(&mut c, "web", GitScope::Project).await.unwrap();
    assert!(whole.is_repo);
    assert_eq!(whole.branch.as_deref(), Some("main"));
    assert_eq!(whole.head.as_ref().map(String::len), Some(7));
    assert_eq!(paths(&whole), ["a.txt", "base.txt", "c.txt"]);
    assert_eq!(whole.hidden, 0);
    let base = &whole.files[1];
    assert_eq!((base.index.as_str(), base.worktree.as_str()), (".", "M"));
    assert_eq!(whole.files[0].index, "?");

    let chat_scope = GitScope::Chat {
        session_id: chat.clone(),
    };
    let s = status_until(&mut c, "web", &chat_scope, &["a.txt", "c.txt"]).await;
    assert_eq!(s.hidden, 1, "base.txt is no step's: {s:#?}");
    let turn1 = GitScope::Turn {
        session_id: chat.clone(),
        job_id: job1.clone(),
    };
    let s = status(&mut c, "web", turn1.clone()).await.unwrap();
    assert_eq!((paths(&s), s.hidden), (vec!["a.txt"], 2));
    let turn2 = GitScope::Turn {
        session_id: chat.clone(),
        job_id: job2,
    };
    assert_eq!(
        paths(&status(&mut c, "web", turn2).await.unwrap()),
        ["c.txt"]
    );

    // Diffs: the project's has the hand edit, the chat's only its own files (new ones as added).
    let all = diff(&mut c, "web", GitScope::Project, None).await.unwrap();
    assert!(all.diff.contains("-base\n+edited by hand"), "{}", all.diff);
    assert!(all.diff.contains("+from chat a"), "{}", all.diff);
    let mine = diff(&mut c, "web", chat_scope.clone(), None).await.unwrap();
    assert_eq!(mine.files, ["a.txt", "c.txt"]);
    assert_eq!(mine.hidden, 1);
    assert!(mine.diff.contains("+++ b/a.txt") && mine.diff.contains("+second turn"));
    assert!(!mine.diff.contains("edited by hand"), "{}", mine.diff);
    assert!(!mine.truncated);
    let one = diff(&mut c, "web", turn1, Some("a.txt")).await.unwrap();
    assert_eq!(one.files, ["a.txt"]);
    let err = diff(&mut c, "web", chat_scope.clone(), Some("base.txt"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");

    // A fork of chat A is a child in the tree; what it writes is in A's subtree, not in A's.
    let Reply::Forked(fork) = c
        .request(Request::ChatFork(ChatFork {
            session_id: chat.clone(),
            name: Some("the fork".into()),
        }))
        .await
        .unwrap()
    else {
        panic!("not forked")
    };
    write_turn(
        &mut c,
        "web",
        Some(&fork.session_id),
        &dir,
        "f.txt",
        "from the fork",
    )
    .await;
    let subtree = GitScope::Subtree {
        session_id: chat.clone(),
    };
    let s = status_until(&mut c, "web", &subtree, &["a.txt", "c.txt", "f.txt"]).await;
    assert_eq!(s.hidden, 1);
    let s = status(&mut c, "web", chat_scope.clone()).await.unwrap();
    assert_eq!((paths(&s), s.hidden), (vec!["a.txt", "c.txt"], 2));
    let s = status(
        &mut c,
        "web",
        GitScope::Subtree {
            session_id: fork.session_id.clone(),
        },
    )
    .await
    .unwrap();
    assert_eq!(paths(&s), ["f.txt"]);

    // Unknown chats and chats of another project are refused.
    let err = status(
        &mut c,
        "web",
        GitScope::Chat {
            session_id: "00000000-0000-0000-0000-000000000000".into(),
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let other = d.dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    create_project(&mut c, "other", &other).await;
    let err = status(&mut c, "other", chat_scope.clone())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");

    // Commit chat A's files: exactly those; a hand-staged change stays staged, the rest as is.
    let err = commit(&mut c, "web", chat_scope.clone(), "  ", &[])
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    let err = commit(&mut c, "web", chat_scope.clone(), "x", &["base.txt"])
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");
    std::fs::write(dir.join("staged.txt"), "staged by hand\n").unwrap();
    git(&dir, &["add", "staged.txt"]);
    let done = commit(&mut c, "web", chat_scope.clone(), "Chat A's work", &[])
        .await
        .unwrap();
    assert_eq!(done.files, ["a.txt", "c.txt"]);
    assert_eq!(done.branch, "main");
    assert_eq!(git(&dir, &["rev-parse", "HEAD"]).trim(), done.commit);
    assert_eq!(
        git(&dir, &["show", "--name-only", "--format=%s%n%an", "HEAD"]).trim(),
        "Chat A's work\nAna Test\n\na.txt\nc.txt"
    );
    let after = status(&mut c, "web", GitScope::Project).await.unwrap();
    let left: Vec<(&str, &str, &str)> = after
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.index.as_str(), f.worktree.as_str()))
        .collect();
    assert_eq!(
        left,
        [
            ("base.txt", ".", "M"),
            ("f.txt", "?", "?"),
            ("staged.txt", "A", ".")
        ]
    );
    let err = commit(&mut c, "web", chat_scope, "again", &[])
        .await
        .unwrap_err();
    assert!(err.message.contains("nothing to commit"), "{err:?}");

    // One named file of a subtree.
    let done = commit(&mut c, "web", subtree, "The fork's file", &["f.txt"])
        .await
        .unwrap();
    assert_eq!(done.files, ["f.txt"]);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_detached_head_is_refused() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let dir = d.dir.path().join("detached");
    init_repo(&dir);
    git(&dir, &["checkout", "-q", "--detach"]);
    std::fs::write(dir.join("base.txt"), "changed\n").unwrap();
    create_project(&mut c, "det", &dir).await;
    let s = status(&mut c, "det", GitScope::Project).await.unwrap();
    assert!(s.branch.is_none() && s.head.is_some(), "{s:#?}");
    let err = commit(&mut c, "det", GitScope::Project, "x", &[])
        .await
        .unwrap_err();
    assert!(err.message.contains("detached"), "{err:?}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn the_sweepers_files_are_committed_when_the_data_root_is_a_repository() {
    let d = TestDaemon::start_with(|c| {
        c.sweeper = true;
        c.sweeper_min_interval = Duration::from_secs(300);
        let reply = c.data_dir.parent().unwrap().join("sweep-reply.txt");
        c.claude_env.push((
            "FAKE_CLAUDE_SWEEP_REPLY".into(),
            reply.to_string_lossy().into_owned(),
        ));
    })
    .await;
    std::fs::write(
        d.dir.path().join("sweep-reply.txt"),
        "<<<OVERVIEW>>>\n# Demo\n<<<CHANGELOG>>>\n# Changelog\n- Chose Postgres.\n<<<CLAUDE>>>\nNOCHANGE\n<<<END>>>\n",
    )
    .unwrap();
    let data = d.cfg.data_dir.clone();
    git(&data, &["init", "-q", "-b", "main"]);
    git(&data, &["config", "user.name", "Ana Test"]);
    git(&data, &["config", "user.email", "ana@example.com"]);
    std::fs::write(data.join("notes.txt"), "staged by hand\n").unwrap();
    git(&data, &["add", "notes.txt"]);

    let mut c = d.client().await;
    c.request(Request::ProjectCreate(ProjectCreate {
        slug: "demo".into(),
        path: None,
        ..Default::default()
    }))
    .await
    .unwrap();
    let sent = c.send_turn("demo", None, "We chose Postgres.").await;
    assert!(complete_of(&c.frames_until_complete(&sent.session_id).await).success);

    let log = paddock_tests::wait::wait_until("the curated files' commit", DEADLINE, || {
        let out = std::process::Command::new("git")
            .current_dir(&data)
            .args(["log", "-1", "--name-only", "--format=%s"])
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    })
    .await
    .unwrap();
    assert_eq!(
        log,
        "paddock: curate demo\n\nprojects/demo/CHANGELOG.md\nprojects/demo/OVERVIEW.md"
    );
    // The hand-staged file is still staged, not committed.
    assert_eq!(
        git(&data, &["diff", "--cached", "--name-only"]).trim(),
        "notes.txt"
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_projects_chats_are_committed_after_its_turns_when_the_data_root_is_a_repository() {
    let d = TestDaemon::start_with(|c| c.commit_chats = true).await;
    let data = d.cfg.data_dir.clone();
    git(&data, &["init", "-q", "-b", "main"]);
    git(&data, &["config", "user.name", "Ana Test"]);
    git(&data, &["config", "user.email", "ana@example.com"]);
    std::fs::write(data.join("notes.txt"), "staged by hand\n").unwrap();
    git(&data, &["add", "notes.txt"]);

    let mut c = d.client().await;
    c.request(Request::ProjectCreate(ProjectCreate {
        slug: "demo".into(),
        path: None,
        ..Default::default()
    }))
    .await
    .unwrap();
    let sent = c.send_turn("demo", None, "hello").await;
    assert!(complete_of(&c.frames_until_complete(&sent.session_id).await).success);

    let log = paddock_tests::wait::wait_until("the chats' commit", DEADLINE, || {
        let out = std::process::Command::new("git")
            .current_dir(&data)
            .args(["log", "-1", "--name-only", "--format=%s"])
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        (out.status.success() && text.starts_with("paddock: save the chats of demo"))
            .then_some(text)
    })
    .await
    .unwrap();
    assert!(
        log.lines()
            .skip(1)
            .any(|l| l.starts_with("projects/demo/.chats")),
        "{log}"
    );
    assert!(
        log.lines()
            .skip(2)
            .all(|l| l.starts_with("projects/demo/.chats")),
        "only the chats: {log}"
    );
    // The hand-staged file is still staged, not committed.
    assert_eq!(
        git(&data, &["diff", "--cached", "--name-only"]).trim(),
        "notes.txt"
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn the_daemons_commits_carry_the_configured_identity() {
    let d = TestDaemon::start_with(|c| {
        c.commit_chats = true;
        c.sweeper = true;
        c.sweeper_min_interval = Duration::from_secs(300);
        c.git_identity = paddockd::config::GitIdentity {
            name: Some("Paddock Bot".into()),
            email: Some("bot@example.com".into()),
        };
        let reply = c.data_dir.parent().unwrap().join("sweep-reply.txt");
        c.claude_env.push((
            "FAKE_CLAUDE_SWEEP_REPLY".into(),
            reply.to_string_lossy().into_owned(),
        ));
    })
    .await;
    std::fs::write(
        d.dir.path().join("sweep-reply.txt"),
        "<<<OVERVIEW>>>\n# Demo\n<<<CHANGELOG>>>\n# Changelog\n- Chose Postgres.\n<<<CLAUDE>>>\nNOCHANGE\n<<<END>>>\n",
    )
    .unwrap();
    // The data root is a repository with no identity of its own configured.
    let data = d.cfg.data_dir.clone();
    git(&data, &["init", "-q", "-b", "main"]);
    // A project repository: its first commit by someone else.
    let dir = d.dir.path().join("web");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("base.txt"), "base\n").unwrap();
    git(&dir, &["add", "base.txt"]);
    git(
        &dir,
        &[
            "-c",
            "user.name=Ana Test",
            "-c",
            "user.email=ana@example.com",
            "commit",
            "-q",
            "-m",
            "base",
        ],
    );

    let mut c = d.client().await;
    c.request(Request::ProjectCreate(ProjectCreate {
        slug: "demo".into(),
        path: None,
        ..Default::default()
    }))
    .await
    .unwrap();
    create_project(&mut c, "web", &dir).await;

    // git:commit in the project's repository.
    std::fs::write(dir.join("notes.txt"), "by hand\n").unwrap();
    commit(&mut c, "web", GitScope::Project, "Add notes", &[])
        .await
        .unwrap();
    let who = |repo: &Path, rev: &str| git(repo, &["log", "-1", "--format=%an%ae|%cn%ce", rev]);
    assert_eq!(
        who(&dir, "HEAD").trim(),
        "Paddock Botbot@example.com|Paddock Botbot@example.com"
    );
    assert_eq!(
        who(&dir, "HEAD~1").trim(),
        "Ana Testana@example.com|Ana Testana@example.com",
        "the rest is left alone"
    );

    // The sweeper's curated files and the chats, in the data root's repository.
    let sent = c.send_turn("demo", None, "We chose Postgres.").await;
    assert!(complete_of(&c.frames_until_complete(&sent.session_id).await).success);
    let log = paddock_tests::wait::wait_until("both commits", DEADLINE, || {
        let out = std::process::Command::new("git")
            .current_dir(&data)
            .args(["log", "--format=%s|%an%ae|%cn%ce"])
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (text.contains("paddock: curate demo") && text.contains("paddock: save the chats of demo"))
            .then_some(text)
    })
    .await
    .unwrap();
    for line in log.lines() {
        assert!(
            line.ends_with("|Paddock Botbot@example.com|Paddock Botbot@example.com"),
            "{log}"
        );
    }
    d.stop().await.unwrap();
}
