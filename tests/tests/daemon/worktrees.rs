//! Worktree chats (issue 37), with the real CLI against the Messages API stand-in and real
//! git: a chat that asks for a worktree works in one of its own, on its own branch, outside
//! the user's checkout, and every later turn of it runs there too.

use std::path::Path;
use std::process::Command;

use paddock_proto::{ErrorCode, Isolation, Reply, Request};
use paddock_tests::mock_api::MockApi;

use crate::harness::*;
use crate::real_cli::real_daemon;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A repository with one commit and a file of the user's not committed.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(dir.path().join("README.md"), "hello\n").unwrap();
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-qm", "first"]);
    std::fs::write(dir.path().join("mine.txt"), "the user's, uncommitted\n").unwrap();
    dir
}

fn worktree() -> Option<Isolation> {
    Some(Isolation::Worktree {
        branch: None,
        base: None,
    })
}

fn write(file: &str, content: &str) -> String {
    format!(r#"mock:tool Write {{"file_path":"{file}","content":"{content}"}}"#)
}

/// The worktrees of the repository, as git lists them: (path, branch).
fn worktrees(repo: &Path) -> Vec<(String, String)> {
    let listed = git(repo, &["worktree", "list", "--porcelain"]);
    let mut out = Vec::new();
    let mut path = String::new();
    for line in listed.lines() {
        if let Some(p) = line.strip_prefix("worktree ") {
            path = p.to_owned();
        } else if let Some(b) = line.strip_prefix("branch refs/heads/") {
            out.push((path.clone(), b.to_owned()));
        }
    }
    out
}

#[tokio::test]
async fn real_cli_two_worktree_chats_write_apart_from_each_other_and_the_checkout() {
    let api = MockApi::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let tune = |c: &mut paddockd::Config| {
        on_data_dir(data.path())(c);
        c.allowed_tools = vec!["Write(**)".into()];
    };
    let d = real_daemon(&api, tune).await;
    let mut c = d.client().await;
    let repo = repo();
    let checkout = std::fs::canonicalize(repo.path()).unwrap();
    create_project(&mut c, "web", &checkout).await;

    let mut chats = Vec::new();
    for (file, content) in [("one.txt", "first chat"), ("two.txt", "second chat")] {
        let sent = c
            .send_new("web", None, &write(file, content), worktree())
            .await;
        let frames = c.frames_until_complete(&sent.session_id).await;
        assert!(complete_of(&frames).success, "{frames:#?}");
        chats.push(sent.session_id);
    }

    // The checkout has neither file, and the user's own file is as it was.
    assert!(!checkout.join("one.txt").exists());
    assert!(!checkout.join("two.txt").exists());
    assert_eq!(
        std::fs::read_to_string(checkout.join("mine.txt")).unwrap(),
        "the user's, uncommitted\n"
    );
    // Each chat in a worktree of its own, on its own branch, outside the checkout, holding
    // its own file and not the other's.
    let listed = worktrees(&checkout);
    for (sid, (mine, other)) in chats
        .iter()
        .zip([("one.txt", "two.txt"), ("two.txt", "one.txt")])
    {
        let branch = format!("paddock/{}", &sid[..8]);
        let (path, _) = listed
            .iter()
            .find(|(_, b)| *b == branch)
            .unwrap_or_else(|| panic!("no worktree on {branch}: {listed:?}"));
        let path = Path::new(path);
        assert!(
            !path.starts_with(&checkout),
            "{path:?} is inside the checkout"
        );
        assert!(path.join(mine).is_file(), "{mine} not in {path:?}");
        assert!(!path.join(other).exists(), "{other} in {path:?}");
        assert!(
            !path.join("mine.txt").exists(),
            "the user's file came along"
        );
    }

    // Both are listed in the project, with their transcripts.
    let Reply::Chats(rows) = c
        .request(Request::ChatList(paddock_proto::ChatList {
            project_slug: Some("web".into()),
            ..Default::default()
        }))
        .await
        .unwrap()
    else {
        panic!("not chats")
    };
    for sid in &chats {
        assert!(
            rows.chats
                .iter()
                .any(|r| &r.session_id == sid && r.message_count >= 2),
            "{sid} not listed: {rows:#?}"
        );
    }

    // A follow-up runs in the same worktree.
    let first = &chats[0];
    let sent = c
        .send_turn("web", Some(first), &write("three.txt", "follow-up"))
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    let (path, _) = listed
        .iter()
        .find(|(_, b)| *b == format!("paddock/{}", &first[..8]))
        .unwrap();
    assert!(Path::new(path).join("three.txt").is_file());
    assert!(!checkout.join("three.txt").exists());

    // After a restart, the chat resumes in its worktree.
    drop(c);
    d.stop().await.unwrap();
    let d = real_daemon(&api, tune).await;
    let mut c = d.client().await;
    let sent = c
        .send_turn("web", Some(first), &write("four.txt", "after a restart"))
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    assert!(Path::new(path).join("four.txt").is_file());
    assert!(!checkout.join("four.txt").exists());
    d.stop().await.unwrap();
}

/// A project that is no repository refuses a worktree chat, saying why, and makes nothing.
#[tokio::test]
async fn a_worktree_chat_needs_a_repository() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let plain = tempfile::tempdir().unwrap();
    create_project(&mut c, "notes", plain.path()).await;
    let refused = c
        .request(Request::ChatSend(paddock_proto::ChatSend {
            project_slug: "notes".into(),
            session_id: None,
            message: "hello".into(),
            model: None,
            preload_context: false,
            attachments: Vec::new(),
            isolation: worktree(),
        }))
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidArgument);
    assert!(
        refused.message.contains("not in a git repository"),
        "{}",
        refused.message
    );
    d.stop().await.unwrap();
}
