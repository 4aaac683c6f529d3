//! Worktree chats (issue 37), with the real CLI against the Messages API stand-in and real
//! git: a chat that asks for a worktree works in one of its own, on its own branch, outside
//! the user's checkout, and every later turn of it runs there too.

use std::path::Path;

use paddock_proto::{ErrorCode, Isolation, Reply, Request};
use paddock_tests::mock_api::MockApi;

use crate::git::git;
use crate::harness::*;
use crate::real_cli::{paddockd_bin, real_daemon};

/// A commit of everything in `dir`, by a test identity.
pub(crate) fn commit(dir: &Path, message: &str) {
    git(dir, &["add", "."]);
    git(
        dir,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            message,
        ],
    );
}

/// A repository with one commit and a file of the user's not committed.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["config", "user.name", "Ana Test"]);
    git(dir.path(), &["config", "user.email", "ana@example.com"]);
    std::fs::write(dir.path().join("README.md"), "hello\n").unwrap();
    commit(dir.path(), "first");
    std::fs::write(dir.path().join("mine.txt"), "the user's, uncommitted\n").unwrap();
    dir
}

/// A daemon on the real CLI whose agents may write files (`tune` says more), a client, and
/// project `web` on a fresh repository ([`repo`]); each part kept while the world lives (bind
/// it, then take parts out of it: a temporary's other parts would go at once).
struct RealWorld {
    d: TestDaemon,
    c: RawClient,
    checkout: std::path::PathBuf,
    _repo: tempfile::TempDir,
    _data: tempfile::TempDir,
    _api: MockApi,
}

async fn real_world(tune: impl FnOnce(&mut paddockd::Config)) -> RealWorld {
    let api = MockApi::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_path_buf();
    let d = real_daemon(&api, move |c| {
        on_data_dir(&dir)(c);
        c.allowed_tools = vec!["Write(**)".into()];
        tune(c);
    })
    .await;
    let mut c = d.client().await;
    let repo = repo();
    let checkout = std::fs::canonicalize(repo.path()).unwrap();
    create_project(&mut c, "web", &checkout).await;
    RealWorld {
        d,
        c,
        checkout,
        _repo: repo,
        _data: data,
        _api: api,
    }
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

/// `git:diff` of project `web` in `scope`.
async fn git_diff(c: &mut RawClient, scope: paddock_proto::GitScope) -> paddock_proto::GitDiff {
    let reply = c
        .request(Request::GitDiff(paddock_proto::GitDiffRequest {
            project_slug: "web".into(),
            scope,
            path: None,
        }))
        .await
        .unwrap();
    let Reply::GitDiff(diff) = reply else {
        panic!("not a diff: {reply:?}")
    };
    diff
}

/// `project`'s chats as the daemon lists them.
async fn rows_of(c: &mut RawClient, project: &str) -> paddock_proto::Chats {
    let Reply::Chats(rows) = c
        .request(Request::ChatList(paddock_proto::ChatList {
            project_slug: Some(project.into()),
            ..Default::default()
        }))
        .await
        .unwrap()
    else {
        panic!("not chats")
    };
    rows
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

    // Each chat's diff is its own work, and the project's is the checkout's (the user's file).
    for (sid, mine) in chats.iter().zip(["one.txt", "two.txt"]) {
        let diff = git_diff(
            &mut c,
            paddock_proto::GitScope::Chat {
                session_id: sid.clone(),
            },
        )
        .await;
        assert_eq!(diff.files, [mine], "{diff:#?}");
        assert!(
            diff.diff.contains(&format!("+++ b/{mine}")),
            "{}",
            diff.diff
        );
    }
    let whole = git_diff(&mut c, paddock_proto::GitScope::Project).await;
    assert_eq!(whole.files, ["mine.txt"], "{whole:#?}");

    // Both are listed in the project, with their transcripts.
    let rows = rows_of(&mut c, "web").await;
    // Each row carries its worktree: where, on which branch, from which commit, for which
    // branch.
    let head = git(&checkout, &["rev-parse", "HEAD"]).trim().to_owned();
    for sid in &chats {
        let row = rows
            .chats
            .iter()
            .find(|r| &r.session_id == sid && r.message_count >= 2)
            .unwrap_or_else(|| panic!("{sid} not listed: {rows:#?}"));
        let wt = row.worktree.as_ref().expect("the row's worktree");
        assert_eq!(wt.branch, format!("paddock/{}", &sid[..8]));
        assert_eq!(
            (wt.base.as_str(), wt.target.as_str()),
            (head.as_str(), "main")
        );
        assert!(
            listed.iter().any(|(p, _)| *p == wt.path),
            "{wt:?} {listed:?}"
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

/// A project whose `isolation` is `worktree` starts each new chat a person sends in a worktree
/// of its own; `isolation: none` on one chat keeps it in the project's directory (`paddock
/// send --no-worktree`).
#[tokio::test]
async fn a_projects_isolation_is_its_new_chats_default() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let repo = repo();
    create_project(&mut c, "web", repo.path()).await;
    let set = c
        .request(Request::ProjectUpdate(paddock_proto::ProjectUpdate {
            slug: "web".into(),
            isolation: Some(Some(paddock_proto::ProjectIsolation::Worktree)),
            ..Default::default()
        }))
        .await
        .unwrap();
    let Reply::Project(info) = set else {
        panic!("not a project: {set:?}")
    };
    assert_eq!(
        info.isolation,
        Some(paddock_proto::ProjectIsolation::Worktree)
    );
    let file = std::fs::read_to_string(d.cfg.data_dir.join("projects/web/project.toml")).unwrap();
    assert!(file.contains("isolation = \"worktree\""), "{file}");

    let isolated = c.send_turn("web", None, "in a worktree").await;
    c.frames_until_complete(&isolated.session_id).await;
    let shared = c
        .send_new("web", None, "in the checkout", Some(Isolation::None))
        .await;
    c.frames_until_complete(&shared.session_id).await;
    let rows = rows_of(&mut c, "web").await;
    let row = |sid: &str| rows.chats.iter().find(|r| r.session_id == sid).cloned();
    assert!(
        row(&isolated.session_id).is_some_and(|r| r.worktree.is_some()),
        "{rows:#?}"
    );
    assert!(
        row(&shared.session_id).is_some_and(|r| r.worktree.is_none()),
        "{rows:#?}"
    );
    d.stop().await.unwrap();
}

/// A project in a folder below its repository's top works in that same folder of its
/// worktrees (from the hand walk: a chat of `repo/sub` ran at the worktree's top).
#[tokio::test]
async fn a_project_below_its_repositorys_top_works_in_that_folder_of_the_worktree() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let repo = repo();
    let sub = repo.path().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("keep.txt"), "x").unwrap();
    commit(repo.path(), "sub");
    create_project(&mut c, "sub", &sub).await;
    let sent = c.send_new("sub", None, "where am I", worktree()).await;
    c.frames_until_complete(&sent.session_id).await;
    let rows = rows_of(&mut c, "sub").await;
    let wt = rows.chats[0].worktree.clone().expect("a worktree");
    // The fake claude records the folder it ran in.
    let ran_in = d.fake_cwds().into_iter().last().expect("claude ran");
    assert_eq!(
        std::fs::canonicalize(&ran_in).unwrap(),
        std::fs::canonicalize(Path::new(&wt.path).join("sub")).unwrap()
    );
    d.stop().await.unwrap();
}

/// `request`'s reply, or the refusal.
async fn ask(c: &mut RawClient, request: Request) -> Result<Reply, paddock_proto::ErrorBody> {
    c.request(request).await
}

/// Asks until `found` finds something in `project`'s rows (a record is read again a moment
/// after a turn ends, overlaps once the recorder has caught up); `what` names it in the
/// failure.
async fn rows_until<T>(
    c: &mut RawClient,
    project: &str,
    what: &str,
    found: impl Fn(&paddock_proto::Chats) -> Option<T>,
) -> T {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let rows = rows_of(c, project).await;
        if let Some(hit) = found(&rows) {
            return hit;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never listed {what}: {rows:#?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

/// Chat `sid`'s worktree once its row lists the changed files as `want`.
async fn changed_files_until(
    c: &mut RawClient,
    project: &str,
    sid: &str,
    want: &[&str],
) -> paddock_proto::ChatWorktree {
    rows_until(c, project, &format!("{sid} changing {want:?}"), |rows| {
        rows.chats
            .iter()
            .find(|r| r.session_id == sid)
            .and_then(|r| r.worktree.clone())
            .filter(|w| w.changed_files == want)
    })
    .await
}

/// Every file of `dir` but `.git`, with its bytes, and git's HEAD and status there: what must
/// not change when a merge is refused.
fn checkout_state(dir: &Path) -> (Vec<(String, Vec<u8>)>, String, String) {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_name() == ".git" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    (
        files,
        git(dir, &["rev-parse", "HEAD"]),
        git(dir, &["status", "--porcelain"]),
    )
}

/// Two worktree chats edit the same file: each row names its files; the first merge brings its
/// work into the checkout and keeps the user's uncommitted file; the second is refused with the
/// file named and the checkout byte for byte as it was; a discard of unmerged work needs force
/// and then removes the folder and the branch; a merged chat's discard needs none.
#[tokio::test]
async fn real_cli_a_merge_is_tried_first_and_never_loses_the_users_work() {
    let world = real_world(|_| {}).await;
    let RealWorld {
        d, mut c, checkout, ..
    } = world;
    let mut told = d.client().await;
    assert_eq!(
        told.request(Request::NotificationsSubscribe).await.unwrap(),
        Reply::Ack
    );

    let mut chats = Vec::new();
    for who in ["A", "B"] {
        let sent = c
            .send_new(
                "web",
                None,
                &write("shared.txt", &format!("from {who}")),
                worktree(),
            )
            .await;
        let frames = c.frames_until_complete(&sent.session_id).await;
        assert!(complete_of(&frames).success, "{frames:#?}");
        chats.push(sent.session_id);
    }
    let (a, b) = (chats[0].clone(), chats[1].clone());
    for sid in &chats {
        let wt = changed_files_until(&mut c, "web", sid, &["shared.txt"]).await;
        assert_eq!((wt.ahead, wt.behind), (0, 0), "{wt:?}");
    }
    // Seen before any merge: each row names the other chat and the file, and one
    // notification says so.
    let rows = overlaps_until(&mut c, &a, &b).await;
    let row_b = rows.chats.iter().find(|r| r.session_id == b).unwrap();
    assert_eq!(row_b.overlaps[0].session_id, a);
    assert_eq!(row_b.overlaps[0].files, ["shared.txt"]);
    let said = next_overlap(&mut told).await;
    assert!(said.body.contains("shared.txt"), "{said:?}");
    assert!([&a, &b].contains(&&said.session_id), "{said:?}");

    let merged = ask(
        &mut c,
        Request::WorktreeMerge(paddock_proto::WorktreeMerge {
            session_id: a.clone(),
            squash: false,
            message: None,
        }),
    )
    .await
    .unwrap();
    let Reply::WorktreeMerged(merged) = merged else {
        panic!("not merged: {merged:?}")
    };
    assert_eq!(merged.into, "main");
    assert_eq!(merged.files, ["shared.txt"]);
    assert!(merged.committed.is_some(), "{merged:?}");
    assert_eq!(
        std::fs::read_to_string(checkout.join("shared.txt")).unwrap(),
        "from A"
    );
    assert_eq!(git(&checkout, &["rev-parse", "HEAD"]).trim(), merged.commit);
    // The user's uncommitted file is as it was, and still theirs (untracked).
    assert_eq!(
        std::fs::read_to_string(checkout.join("mine.txt")).unwrap(),
        "the user's, uncommitted\n"
    );
    assert_eq!(git(&checkout, &["status", "--porcelain"]), "?? mine.txt\n");
    // The merge is recorded with the chat, and B, whose target moved, is behind it at once.
    let rows = rows_of(&mut c, "web").await;
    let row_b = rows.chats.iter().find(|r| r.session_id == b).unwrap();
    // (A's uncommitted work, committed on its branch, and the merge's commit.)
    assert_eq!(
        row_b.worktree.as_ref().map(|w| w.behind),
        Some(2),
        "{row_b:?}"
    );
    let row = rows.chats.iter().find(|r| r.session_id == a).unwrap();
    let mark = row.worktree.as_ref().and_then(|w| w.merged.clone());
    assert_eq!(mark.map(|m| m.commit), Some(merged.commit.clone()));

    // B changed the same file: refused, the file named, nothing changed.
    let before = checkout_state(&checkout);
    let refused = ask(
        &mut c,
        Request::WorktreeMerge(paddock_proto::WorktreeMerge {
            session_id: b.clone(),
            squash: false,
            message: None,
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Conflict, "{refused:?}");
    assert_eq!(refused.files, ["shared.txt"]);
    assert!(
        refused.message.contains("shared.txt"),
        "{}",
        refused.message
    );
    assert_eq!(checkout_state(&checkout), before);

    // B's work is not in main: discarding it needs force, then removes folder and branch.
    let b_path = changed_files_until(&mut c, "web", &b, &["shared.txt"])
        .await
        .path;
    let kept = ask(
        &mut c,
        Request::WorktreeDiscard(paddock_proto::WorktreeDiscard {
            session_id: b.clone(),
            force: false,
            dry_run: false,
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(kept.code, ErrorCode::Conflict, "{kept:?}");
    assert!(Path::new(&b_path).is_dir());
    ask(
        &mut c,
        Request::WorktreeDiscard(paddock_proto::WorktreeDiscard {
            session_id: b.clone(),
            force: true,
            dry_run: false,
        }),
    )
    .await
    .unwrap();
    assert!(!Path::new(&b_path).exists());
    let b_branch = format!("paddock/{}", &b[..8]);
    assert_eq!(git(&checkout, &["branch", "--list", &b_branch]), "");
    // A was merged: its discard needs no force.
    ask(
        &mut c,
        Request::WorktreeDiscard(paddock_proto::WorktreeDiscard {
            session_id: a.clone(),
            force: false,
            dry_run: false,
        }),
    )
    .await
    .unwrap();
    assert!(
        worktrees(&checkout).len() == 1,
        "{:?}",
        worktrees(&checkout)
    );
    assert_eq!(
        git(&checkout, &["fsck", "--no-dangling", "--no-progress"]),
        ""
    );
    d.stop().await.unwrap();
}

/// Archiving a worktree chat that did nothing removes its worktree and branch; deleting one
/// with work keeps it as an orphan, which prune keeps and a forced discard removes.
#[tokio::test]
async fn archiving_or_deleting_a_chat_tidies_a_worktree_without_work() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let repo = repo();
    let checkout = std::fs::canonicalize(repo.path()).unwrap();
    create_project(&mut c, "web", &checkout).await;
    let idle = c.send_new("web", None, "just talk", worktree()).await;
    c.frames_until_complete(&idle.session_id).await;
    let busy = c.send_new("web", None, "work", worktree()).await;
    c.frames_until_complete(&busy.session_id).await;
    assert_eq!(worktrees(&checkout).len(), 3);
    let rows = rows_of(&mut c, "web").await;
    let path_of = |sid: &str| {
        rows.chats
            .iter()
            .find(|r| r.session_id == sid)
            .and_then(|r| r.worktree.clone())
            .unwrap()
            .path
    };
    let (idle_path, busy_path) = (path_of(&idle.session_id), path_of(&busy.session_id));
    std::fs::write(Path::new(&busy_path).join("work.txt"), "work\n").unwrap();

    let archived = ask(
        &mut c,
        Request::ChatUpdate(paddock_proto::ChatUpdate {
            session_ids: vec![idle.session_id.clone()],
            action: paddock_proto::ChatAction::Archive,
        }),
    )
    .await
    .unwrap();
    let Reply::Updated(archived) = archived else {
        panic!("{archived:?}")
    };
    assert!(archived.notes.is_empty(), "{archived:?}");
    assert!(!Path::new(&idle_path).exists());
    assert_eq!(worktrees(&checkout).len(), 2);

    let deleted = ask(
        &mut c,
        Request::ChatDelete(paddock_proto::SessionIds {
            session_ids: vec![busy.session_id.clone()],
        }),
    )
    .await
    .unwrap();
    let Reply::Updated(deleted) = deleted else {
        panic!("{deleted:?}")
    };
    assert!(
        deleted.notes.iter().any(|n| n.contains("work.txt")),
        "{deleted:?}"
    );
    assert!(Path::new(&busy_path).is_dir());
    let Reply::Worktrees(orphans) = ask(
        &mut c,
        Request::WorktreeList(paddock_proto::WorktreeList {
            project_slug: None,
            orphans: true,
        }),
    )
    .await
    .unwrap() else {
        panic!("not worktrees")
    };
    assert_eq!(orphans.worktrees.len(), 1, "{orphans:#?}");
    assert!(orphans.worktrees[0].orphan);
    let Reply::WorktreePruned(pruned) = ask(
        &mut c,
        Request::WorktreePrune(paddock_proto::WorktreePrune { project_slug: None }),
    )
    .await
    .unwrap() else {
        panic!("not pruned")
    };
    assert!(pruned.removed.is_empty(), "{pruned:#?}");
    assert!(pruned.kept[0].reason.contains("work.txt"), "{pruned:#?}");
    assert!(Path::new(&busy_path).is_dir());
    ask(
        &mut c,
        Request::WorktreeDiscard(paddock_proto::WorktreeDiscard {
            session_id: busy.session_id[..8].to_owned(),
            force: true,
            dry_run: false,
        }),
    )
    .await
    .unwrap();
    assert!(!Path::new(&busy_path).exists());
    assert_eq!(worktrees(&checkout).len(), 1);
    d.stop().await.unwrap();
}

/// The row `sid_of` picks in `web` once it is idle, with a worktree whose changed files are
/// `want`.
async fn worktree_row(
    c: &mut RawClient,
    sid_of: impl Fn(&paddock_proto::ChatSummary) -> bool,
    want: &[&str],
) -> paddock_proto::ChatSummary {
    rows_until(
        c,
        "web",
        &format!("an idle worktree chat changing {want:?}"),
        |rows| {
            rows.chats
                .iter()
                .find(|r| sid_of(r))
                .filter(|r| {
                    !r.running && r.worktree.as_ref().is_some_and(|w| w.changed_files == want)
                })
                .cloned()
        },
    )
    .await
}

/// A worktree chat's child (`create_chat`) works in a worktree of its own from its parent's
/// branch (with the parent's work, committed there first), its work measured against it, and
/// merges back into the parent's worktree, not the checkout; a fork of the parent gets a
/// worktree of the parent as it is, uncommitted work included.
#[tokio::test]
async fn real_cli_a_worktree_chats_child_branches_from_it_and_merges_back_into_it() {
    let world = real_world(|c| c.mcp_bin = Some(paddockd_bin())).await;
    let RealWorld {
        d, mut c, checkout, ..
    } = world;

    let parent = c
        .send_new(
            "web",
            None,
            &write("parent.txt", "from the parent"),
            worktree(),
        )
        .await
        .session_id;
    c.frames_until_complete(&parent).await;
    let create = format!(
        "mock:tool mcp__paddock_manage__create_chat {}",
        serde_json::json!({ "prompt": write("child.txt", "from the child") })
    );
    let t = c.send_turn("web", Some(&parent), &create).await;
    let frames = c.frames_until_complete(&t.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");

    let child = worktree_row(
        &mut c,
        |r| r.parent_session_id.as_deref() == Some(&parent),
        &["child.txt"],
    )
    .await;
    let parent_row = worktree_row(&mut c, |r| r.session_id == parent, &["parent.txt"]).await;
    let (cw, pw) = (
        child.worktree.clone().unwrap(),
        parent_row.worktree.clone().unwrap(),
    );
    assert_eq!(cw.target_chat.as_deref(), Some(parent.as_str()));
    assert_eq!(cw.target, pw.branch);
    // It built on the parent's work, which was committed on the parent's branch first.
    assert!(Path::new(&cw.path).join("parent.txt").is_file());
    assert_eq!(pw.ahead, 1, "{pw:?}");

    // Its diff is its own work only.
    let diff = git_diff(
        &mut c,
        paddock_proto::GitScope::Chat {
            session_id: child.session_id.clone(),
        },
    )
    .await;
    assert_eq!(diff.files, ["child.txt"], "{diff:#?}");
    // The parent's subtree: its work and its child's, each read from its own worktree.
    let diff = git_diff(
        &mut c,
        paddock_proto::GitScope::Subtree {
            session_id: parent.clone(),
        },
    )
    .await;
    let mut files = diff.files.clone();
    files.sort();
    assert_eq!(files, ["child.txt", "parent.txt"], "{diff:#?}");
    assert!(diff.diff.contains("+from the child"), "{}", diff.diff);
    assert!(diff.diff.contains("+from the parent"), "{}", diff.diff);
    let Reply::GitStatus(status) = ask(
        &mut c,
        Request::GitStatus(paddock_proto::GitStatusRequest {
            project_slug: "web".into(),
            scope: paddock_proto::GitScope::Subtree {
                session_id: parent.clone(),
            },
        }),
    )
    .await
    .unwrap() else {
        panic!("not a status")
    };
    let mut listed: Vec<&str> = status
        .worktrees
        .iter()
        .map(|w| w.session_id.as_str())
        .collect();
    listed.sort_unstable();
    let mut want = vec![parent.as_str(), child.session_id.as_str()];
    want.sort_unstable();
    assert_eq!(listed, want, "{status:#?}");

    // Merged: into the parent's worktree, not the checkout.
    let Reply::WorktreeMerged(merged) = ask(
        &mut c,
        Request::WorktreeMerge(paddock_proto::WorktreeMerge {
            session_id: child.session_id.clone(),
            squash: false,
            message: None,
        }),
    )
    .await
    .unwrap() else {
        panic!("not merged")
    };
    assert_eq!(merged.into, pw.branch);
    assert_eq!(
        merged.checkout.map(|p| std::fs::canonicalize(p).unwrap()),
        Some(std::fs::canonicalize(&pw.path).unwrap())
    );
    assert_eq!(
        std::fs::read_to_string(Path::new(&pw.path).join("child.txt")).unwrap(),
        "from the child"
    );
    assert!(!checkout.join("child.txt").exists());
    assert!(!checkout.join("parent.txt").exists());

    // A fork of the parent: the parent's worktree as it is, uncommitted work included.
    std::fs::write(Path::new(&pw.path).join("draft.txt"), "not committed\n").unwrap();
    let Reply::Forked(forked) = ask(
        &mut c,
        Request::ChatFork(paddock_proto::ChatFork {
            session_id: parent.clone(),
            name: None,
        }),
    )
    .await
    .unwrap() else {
        panic!("not forked")
    };
    let fork = worktree_row(
        &mut c,
        |r| r.session_id == forked.session_id,
        &["child.txt", "draft.txt", "parent.txt"],
    )
    .await;
    let fw = fork.worktree.unwrap();
    assert_ne!(fw.branch, pw.branch);
    assert_eq!(
        (fw.target.as_str(), fw.target_chat.as_deref()),
        ("main", None)
    );
    assert!(Path::new(&fw.path).join("draft.txt").is_file());
    // The parent's own worktree and branch are as they were.
    assert_eq!(
        git(Path::new(&pw.path), &["status", "--porcelain"]),
        "?? draft.txt\n"
    );
    d.stop().await.unwrap();
}

/// A schedule fired in a project whose isolation is `worktree` starts its chat in a worktree
/// of its own, as a person's new chat would.
#[tokio::test]
async fn a_schedule_run_follows_the_projects_isolation() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let repo = repo();
    create_project(&mut c, "web", repo.path()).await;
    c.request(Request::ProjectUpdate(paddock_proto::ProjectUpdate {
        slug: "web".into(),
        isolation: Some(Some(paddock_proto::ProjectIsolation::Worktree)),
        ..Default::default()
    }))
    .await
    .unwrap();
    let spec: paddock_proto::TriggerSpec = serde_json::from_value(serde_json::json!({
        "kind": "schedule", "prompt": "Check the build.", "cron": "0 2 * * *"
    }))
    .unwrap();
    c.request(Request::TriggerSet(Box::new(paddock_proto::TriggerSet {
        project_slug: "web".into(),
        name: "nightly".into(),
        spec,
    })))
    .await
    .unwrap();
    let Reply::Fired(fired) = c
        .request(Request::TriggerFire(paddock_proto::TriggerFire {
            project_slug: "web".into(),
            name: "nightly".into(),
            message: None,
        }))
        .await
        .unwrap()
    else {
        panic!("not fired")
    };
    let sid = fired.session_id.expect("a chat");
    let row = worktree_row(&mut c, |r| r.session_id == sid, &[]).await;
    let wt = row.worktree.as_ref().expect("in a worktree");
    assert_eq!(wt.branch, format!("paddock/{}", &sid[..8]));
    let ran_in = d.fake_cwds().into_iter().last().expect("claude ran");
    assert_eq!(
        std::fs::canonicalize(&ran_in).unwrap(),
        std::fs::canonicalize(&wt.path).unwrap()
    );
    d.stop().await.unwrap();
}

/// The notices of `frames`.
fn notices(frames: &[paddock_proto::HubFrame]) -> Vec<String> {
    frames
        .iter()
        .filter_map(|f| match &f.event {
            paddock_proto::ChatEvent::Notice(n) => Some(n.message.clone()),
            _ => None,
        })
        .collect()
}

/// A new worktree gets the ignored files the project names in `.worktreeinclude`, and the
/// project's `worktree_setup` runs there before the first turn, said in the chat; a setup that
/// fails is the turn's failure (claude is not asked), and the next message runs it again.
#[tokio::test]
async fn a_new_worktree_gets_the_included_files_and_its_setup_runs_first() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let repo = repo();
    std::fs::write(repo.path().join(".gitignore"), ".env\n").unwrap();
    std::fs::write(repo.path().join(".worktreeinclude"), ".env\n").unwrap();
    commit(repo.path(), "ignore .env");
    std::fs::write(repo.path().join(".env"), "TOKEN=local\n").unwrap();
    create_project(&mut c, "web", repo.path()).await;
    let toml = d.cfg.data_dir.join("projects/web/project.toml");
    let mut file = std::fs::read_to_string(&toml).unwrap();
    file.push_str("worktree_setup = [\"touch\", \"set-up\"]\n");
    std::fs::write(&toml, &file).unwrap();

    let sent = c.send_new("web", None, "hello", worktree()).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    assert!(
        notices(&frames)
            .iter()
            .any(|n| n.starts_with("worktree setup `touch set-up` ran in")),
        "{frames:#?}"
    );
    let rows = rows_of(&mut c, "web").await;
    let wt = rows.chats[0].worktree.clone().expect("a worktree");
    let path = Path::new(&wt.path);
    assert_eq!(
        std::fs::read_to_string(path.join(".env")).unwrap(),
        "TOKEN=local\n"
    );
    assert!(path.join("set-up").is_file());
    // Once: a follow-up does not run it again.
    let again = c.send_turn("web", Some(&sent.session_id), "more").await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert!(
        notices(&frames)
            .iter()
            .all(|n| !n.contains("worktree setup")),
        "{frames:#?}"
    );

    // A setup that fails: the turn fails, claude never runs, and it is tried again.
    std::fs::write(&toml, file.replace("[\"touch\", \"set-up\"]", "\"false\"")).unwrap();
    let ran = d.fake_cwds().len();
    let failing = c.send_new("web", None, "hello", worktree()).await;
    let frames = c.frames_until_complete(&failing.session_id).await;
    let end = complete_of(&frames);
    assert!(!end.success, "{frames:#?}");
    // Cut short, to continue once fixed; said once, by the turn's end.
    assert_eq!(end.ended, Some(paddock_proto::Ended::Cut));
    assert!(
        notices(&frames)
            .iter()
            .all(|n| !n.contains("worktree setup")),
        "{frames:#?}"
    );
    assert!(
        end.error
            .as_deref()
            .is_some_and(|e| e.contains("worktree setup `false` failed")),
        "{end:?}"
    );
    assert_eq!(d.fake_cwds().len(), ran, "claude ran after a failed setup");
    // The command line finds it by a prefix of its id, though claude wrote nothing of it.
    let Reply::Resolved(found) = c
        .request(Request::ChatResolve(paddock_proto::ChatResolve {
            prefixes: vec![failing.session_id[..8].to_owned()],
        }))
        .await
        .unwrap()
    else {
        panic!("not resolved")
    };
    assert_eq!(found.prefixes[0].chats.len(), 1, "{found:?}");
    // Its first message never reached claude: continuing the chat sends it again, after the
    // setup, which fails again.
    c.request(Request::ChatContinue(paddock_proto::SessionRef {
        session_id: failing.session_id.clone(),
    }))
    .await
    .unwrap();
    let frames = c.frames_until_complete(&failing.session_id).await;
    let end = complete_of(&frames);
    assert!(
        end.error
            .as_deref()
            .is_some_and(|e| e.contains("worktree setup `false` failed")),
        "{end:?}"
    );
    assert_eq!(d.fake_cwds().len(), ran);
    d.stop().await.unwrap();
}

/// The next `attention` of kind `overlap` on `c` (others are dropped).
async fn next_overlap(c: &mut RawClient) -> paddock_proto::Attention {
    loop {
        if let paddock_proto::ServerMessage::Control(paddock_proto::ControlMessage::Attention(a)) =
            c.next().await
            && a.kind == paddock_proto::AttentionKind::Overlap
        {
            return a;
        }
    }
}

/// The rows of `web` once chat `a` is listed as overlapping with `b` on shared.txt.
async fn overlaps_until(c: &mut RawClient, a: &str, b: &str) -> paddock_proto::Chats {
    rows_until(c, "web", &format!("{a} overlapping {b}"), |rows| {
        rows.chats
            .iter()
            .any(|r| {
                r.session_id == a
                    && r.overlaps
                        .iter()
                        .any(|o| o.session_id == b && o.files == ["shared.txt"])
            })
            .then(|| rows.clone())
    })
    .await
}

/// Two chats of the shared checkout (no worktrees) that wrote the same file, uncommitted, are
/// marked as overlapping, where it matters most.
#[tokio::test]
async fn real_cli_chats_of_the_shared_checkout_that_wrote_one_file_overlap() {
    let world = real_world(|_| {}).await;
    let RealWorld {
        d, mut c, checkout, ..
    } = world;
    let a = c
        .send_new("web", None, &write("shared.txt", "from A"), None)
        .await
        .session_id;
    c.frames_until_complete(&a).await;
    // B reads the file first: 2.1.197 refuses to write over a file the chat has not read.
    let b = c
        .send_new(
            "web",
            None,
            r#"mock:tool Read {"file_path":"shared.txt"}"#,
            None,
        )
        .await
        .session_id;
    c.frames_until_complete(&b).await;
    let sent = c
        .send_turn("web", Some(&b), &write("shared.txt", "from B"))
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    assert_eq!(
        std::fs::read_to_string(checkout.join("shared.txt")).unwrap(),
        "from B"
    );
    let chats = [a, b];
    let rows = overlaps_until(&mut c, &chats[0], &chats[1]).await;
    assert!(rows.chats.iter().all(|r| r.worktree.is_none()));
    // Committed: no longer anyone's unmerged work, so no longer an overlap.
    commit(&checkout, "take it");
    let again = c.send_new("web", None, "hello", None).await;
    c.frames_until_complete(&again.session_id).await;
    rows_until(&mut c, "web", "no overlaps", |rows| {
        rows.chats
            .iter()
            .all(|r| r.overlaps.is_empty())
            .then_some(())
    })
    .await;
    d.stop().await.unwrap();
}

/// From the hand walk of issue 37: a chat whose worktree was discarded between two turns ran
/// its next turn in its old claude, still in the removed folder (whose writes then went into a
/// folder no git knows); its next turn now runs in a claude started in the project's folder.
/// And a discard can be tried first (dry run), removing nothing.
#[tokio::test]
async fn after_its_worktree_is_discarded_a_chat_works_in_the_project_from_its_next_turn() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let repo = repo();
    let checkout = std::fs::canonicalize(repo.path()).unwrap();
    create_project(&mut c, "web", &checkout).await;
    let sent = c.send_new("web", None, "first", worktree()).await;
    c.frames_until_complete(&sent.session_id).await;
    let sid = sent.session_id;
    let path = worktree_row(&mut c, |r| r.session_id == sid, &[])
        .await
        .worktree
        .expect("a worktree")
        .path;
    let discard = |dry_run: bool| {
        Request::WorktreeDiscard(paddock_proto::WorktreeDiscard {
            session_id: sid.clone(),
            force: true,
            dry_run,
        })
    };
    c.request(discard(true)).await.unwrap();
    assert!(Path::new(&path).is_dir(), "a dry run removed it");
    c.request(discard(false)).await.unwrap();
    assert!(!Path::new(&path).exists());
    let again = c.send_turn("web", Some(&sid), "second").await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    // A claude was started in the project's folder (the records of the fake claudes come in
    // no order; the first one's folder is gone).
    let cwds = d.fake_cwds();
    assert!(
        cwds.iter()
            .any(|c| std::fs::canonicalize(c).is_ok_and(|c| c == checkout)),
        "{cwds:?}"
    );
    d.stop().await.unwrap();
}

/// From the hand walk: archiving a chat mid-turn removed its worktree under it; a running
/// chat's worktree is kept (and said), whatever it holds.
#[tokio::test]
async fn archiving_a_running_worktree_chat_keeps_its_worktree() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let repo = repo();
    create_project(&mut c, "web", repo.path()).await;
    let hang = r#"fake:[{"text":"working","chunks":1},{"hang":true}]"#;
    let sent = c.send_new("web", None, hang, worktree()).await;
    let sid = sent.session_id;
    let path = rows_until(&mut c, "web", "the chat running in its worktree", |rows| {
        rows.chats
            .iter()
            .find(|r| r.session_id == sid && r.running)
            .and_then(|r| r.worktree.as_ref())
            .map(|w| w.path.clone())
    })
    .await;
    let Reply::Updated(archived) = c
        .request(Request::ChatUpdate(paddock_proto::ChatUpdate {
            session_ids: vec![sid.clone()],
            action: paddock_proto::ChatAction::Archive,
        }))
        .await
        .unwrap()
    else {
        panic!("not updated")
    };
    assert!(
        archived.notes.iter().any(|n| n.contains("running a turn")),
        "{archived:?}"
    );
    assert!(Path::new(&path).is_dir());
    d.stop().await.unwrap();
}

/// Worktree chats started at once in one repository are all made (from CI: a `git worktree
/// add` reads every worktree's files, and failed on one another add had half made:
/// "failed to read .git/worktrees/…/commondir").
#[tokio::test]
async fn worktree_chats_started_at_once_in_one_repository_are_all_made() {
    const AT_ONCE: usize = 8;
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let repo = repo();
    create_project(&mut c, "web", repo.path()).await;
    let mut clients = Vec::new();
    for _ in 0..AT_ONCE {
        clients.push(d.client().await);
    }
    let sends = clients.iter_mut().enumerate().map(|(n, c)| async move {
        let send = Request::ChatSend(paddock_proto::ChatSend {
            project_slug: "web".into(),
            session_id: None,
            message: format!("chat {n}"),
            model: None,
            preload_context: false,
            attachments: Vec::new(),
            isolation: Some(Isolation::Worktree {
                branch: None,
                base: None,
            }),
        });
        c.request(send).await
    });
    let replies = futures_util::future::join_all(sends).await;
    let failed: Vec<String> = replies
        .iter()
        .filter_map(|r| r.as_ref().err().map(|e| e.message.clone()))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    d.stop().await.unwrap();
}
