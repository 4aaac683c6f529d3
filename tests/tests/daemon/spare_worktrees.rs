//! Spare worktrees (`git/spare.rs`): a project whose chats work in worktrees keeps one made
//! ahead, with a spare claude started in it, for its next new chat; never a chat's until taken,
//! never served when `HEAD` or the included files moved, gone at the next start.

use std::path::{Path, PathBuf};

use paddock_proto::{Isolation, Reply, Request, SpareProcess};

use crate::git::git;
use crate::harness::*;
use crate::worktrees::commit;
use paddock_tests::wait::wait_until;

/// A repository on `main` with one commit, an ignored `.env` the project's
/// `.worktreeinclude` names, and a file of the user's not committed.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(dir.path().join("README.md"), "hello\n").unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".env\n").unwrap();
    std::fs::write(dir.path().join(".worktreeinclude"), ".env\n").unwrap();
    commit(dir.path(), "first");
    std::fs::write(dir.path().join(".env"), "KEY=one\n").unwrap();
    std::fs::write(dir.path().join("mine.txt"), "the user's, uncommitted\n").unwrap();
    dir
}

/// A daemon with one spare allowed and project `web` (chats in worktrees) on [`repo`], after
/// its first chat, with the spare worktree made then ready.
struct World {
    d: TestDaemon,
    c: RawClient,
    data: tempfile::TempDir,
    repo: tempfile::TempDir,
    first: paddock_proto::Sent,
    spare: String,
    folder: PathBuf,
}

async fn world() -> World {
    let (data, repo) = (tempfile::tempdir().unwrap(), repo());
    let d = TestDaemon::start_with(|c| {
        on_data_dir(data.path())(c);
        c.spare_processes = 1;
    })
    .await;
    let mut c = d.client().await;
    create_project(&mut c, "web", repo.path()).await;
    let set = Request::ProjectUpdate(paddock_proto::ProjectUpdate {
        slug: "web".into(),
        isolation: Some(Some(paddock_proto::ProjectIsolation::Worktree)),
        ..Default::default()
    });
    c.request(set).await.unwrap();
    let first = c.send_turn("web", None, "one").await;
    c.frames_until_complete(&first.session_id).await;
    let (spare, folder) = ready_spare(&mut c, data.path(), &head(repo.path()), &[]).await;
    World {
        d,
        c,
        data,
        repo,
        first,
        spare,
        folder,
    }
}

async fn spares(c: &mut RawClient) -> Vec<SpareProcess> {
    match c.request(Request::DaemonStatus).await.unwrap() {
        Reply::Status(s) => s.spares,
        other => panic!("daemon:status: {other:?}"),
    }
}

/// The spare worktrees on record: session id → (path, branch, base).
fn spare_records(data: &Path) -> Vec<(String, PathBuf, String, String)> {
    let Ok(text) = std::fs::read_to_string(data.join("state/spare-worktrees.json")) else {
        return Vec::new();
    };
    let all: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
    all.into_iter()
        .filter(|(_, r)| r.get("pending").is_none())
        .map(|(sid, r)| {
            (
                sid,
                PathBuf::from(r["path"].as_str().unwrap()),
                r["branch"].as_str().unwrap().to_owned(),
                r["base"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// Waits until a spare worktree other than `not` is on record, at `base`, with its spare
/// claude ready; its session id and folder.
async fn ready_spare(
    c: &mut RawClient,
    data: &Path,
    base: &str,
    not: &[&str],
) -> (String, PathBuf) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let records = spare_records(data);
        let found = records
            .iter()
            .find(|(sid, _, _, b)| b == base && !not.contains(&sid.as_str()));
        let ready = spares(c).await
            == [SpareProcess {
                project_slug: "web".into(),
                ready: true,
                worktree: true,
            }];
        if let (Some((sid, path, _, _)), true) = (found, ready) {
            return (sid.clone(), path.clone());
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no ready spare worktree at {base}: {records:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

fn head(repo: &Path) -> String {
    git(repo, &["rev-parse", "HEAD"]).trim().to_owned()
}

/// The worktrees git knows in `repo`, by folder.
fn git_worktrees(repo: &Path) -> Vec<PathBuf> {
    git(repo, &["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(|p| PathBuf::from(p).canonicalize().unwrap_or_else(|_| p.into()))
        .collect()
}

/// How many processes were started with `session` in their arguments.
fn processes_for(d: &TestDaemon, session: &str) -> usize {
    d.fake_argvs()
        .iter()
        .filter(|argv| argv.iter().any(|a| a == session))
        .count()
}

async fn worktree_list(c: &mut RawClient, orphans: bool) -> Vec<String> {
    let list = Request::WorktreeList(paddock_proto::WorktreeList {
        project_slug: None,
        orphans,
    });
    match c.request(list).await.unwrap() {
        Reply::Worktrees(w) => w.worktrees.into_iter().map(|e| e.session_id).collect(),
        other => panic!("worktree:list: {other:?}"),
    }
}

async fn until_gone(path: &Path) {
    let what = format!("{} to go", path.display());
    wait_until(&what, DEADLINE, || (!path.exists()).then_some(()))
        .await
        .unwrap();
}

/// Whether `repo` has the branch `name`.
fn has_branch(repo: &Path, name: &str) -> bool {
    git(repo, &["branch", "--format=%(refname:short)"])
        .lines()
        .any(|b| b == name)
}

#[tokio::test]
async fn the_next_worktree_chat_takes_the_spare_worktree_and_its_claude() {
    let World {
        d,
        mut c,
        data,
        repo,
        first,
        spare,
        folder,
    } = world().await;

    // Made at its final place, with the included files; no chat's.
    assert!(folder.join("README.md").is_file() && folder.join(".env").is_file());
    assert!(folder.starts_with(data.path().join("worktrees/web")));
    assert_eq!(
        worktree_list(&mut c, false).await,
        std::slice::from_ref(&first.session_id)
    );
    assert!(worktree_list(&mut c, true).await.is_empty());
    assert_eq!(chats_of(&mut c, "web").await.len(), 1);
    assert_eq!(git_worktrees(repo.path()).len(), 3, "checkout, chat, spare");

    // A worktree chat naming its branch takes it: its id, its folder, its process.
    let second = c
        .send_new(
            "web",
            None,
            "two",
            Some(Isolation::Worktree {
                branch: Some("feature/two".into()),
                base: None,
            }),
        )
        .await;
    assert_eq!(second.session_id, spare);
    let frames = c.frames_until_complete(&second.session_id).await;
    assert_eq!(text_of(&frames), "echo: two");
    assert_eq!(processes_for(&d, &spare), 1, "the spare's claude ran it");
    let rows = chats_until(&mut c, "web", "two chats", |rows| rows.len() == 2).await;
    let row = rows.iter().find(|r| r.session_id == spare).unwrap();
    let wt = row.worktree.as_ref().expect("a worktree chat");
    assert_eq!(wt.branch, "feature/two");
    assert_eq!(PathBuf::from(&wt.path), folder);
    assert!(has_branch(repo.path(), "feature/two"));
    assert!(!has_branch(
        repo.path(),
        &format!("paddock/{}", &spare[..8])
    ));
    let mut listed = worktree_list(&mut c, false).await;
    listed.sort();
    let mut want = vec![first.session_id.clone(), spare.clone()];
    want.sort();
    assert_eq!(listed, want);
    // And another spare is made for the chat after.
    let (next, _) = ready_spare(&mut c, data.path(), &head(repo.path()), &[&spare]).await;
    assert_ne!(next, spare);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_moved_head_or_changed_included_files_are_never_served_by_a_stale_spare() {
    let World {
        d,
        mut c,
        data,
        repo,
        spare: stale,
        folder: stale_folder,
        ..
    } = world().await;

    // HEAD moves: the next chat starts from the new HEAD, in a worktree of its own.
    std::fs::write(repo.path().join("README.md"), "hello again\n").unwrap();
    commit(repo.path(), "second");
    let moved = head(repo.path());
    let second = c.send_turn("web", None, "two").await;
    assert_ne!(second.session_id, stale);
    c.frames_until_complete(&second.session_id).await;
    let rows = chats_of(&mut c, "web").await;
    let row = rows.iter().find(|r| r.session_id == second.session_id);
    assert_eq!(
        row.and_then(|r| r.worktree.as_ref())
            .map(|w| w.base.clone()),
        Some(moved.clone()),
        "{rows:#?}"
    );
    // The stale spare is removed, and a new one made at the new HEAD.
    until_gone(&stale_folder).await;
    let (fresh, fresh_folder) = ready_spare(&mut c, data.path(), &moved, &[&stale]).await;
    assert_eq!(
        std::fs::read_to_string(fresh_folder.join("README.md")).unwrap(),
        "hello again\n"
    );
    assert!(!git_worktrees(repo.path()).contains(&stale_folder));

    // An included file changes: not served either; the chat gets the file as it is now.
    std::fs::write(repo.path().join(".env"), "KEY=two, longer\n").unwrap();
    let third = c.send_turn("web", None, "three").await;
    assert_ne!(third.session_id, fresh);
    c.frames_until_complete(&third.session_id).await;
    let rows = chats_of(&mut c, "web").await;
    let path = rows
        .iter()
        .find(|r| r.session_id == third.session_id)
        .and_then(|r| r.worktree.as_ref())
        .map(|w| PathBuf::from(&w.path))
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(path.join(".env")).unwrap(),
        "KEY=two, longer\n"
    );
    until_gone(&fresh_folder).await;
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_spare_worktree_left_by_a_stop_is_removed_at_the_next_start() {
    let World {
        d,
        c,
        data,
        repo,
        first,
        spare,
        folder,
    } = world().await;
    drop(c);
    d.stop().await.unwrap();
    assert!(folder.is_dir(), "a stop leaves the folder");

    let d = TestDaemon::start_with(|c| {
        on_data_dir(data.path())(c);
        c.spare_processes = 0;
    })
    .await;
    until_gone(&folder).await;
    wait_until("the spare off the record", DEADLINE, || {
        spare_records(data.path()).is_empty().then_some(())
    })
    .await
    .unwrap();
    assert!(!has_branch(
        repo.path(),
        &format!("paddock/{}", &spare[..8])
    ));
    assert_eq!(git_worktrees(repo.path()).len(), 2, "checkout and the chat");
    // The chat's worktree is untouched.
    let mut c = d.client().await;
    assert_eq!(worktree_list(&mut c, false).await, [first.session_id]);
    d.stop().await.unwrap();
}

/// A project removed while its spare worktree waits: the spare goes at the next turn's end
/// (its folder, and its branch in the user's repository), and no other is made for it.
#[tokio::test]
async fn a_removed_projects_spare_worktree_goes_with_its_branch() {
    let World {
        d,
        mut c,
        data,
        repo,
        spare,
        folder,
        ..
    } = world().await;
    let gone = Request::ProjectDelete(paddock_proto::ProjectDelete {
        slug: "web".into(),
        force: true,
        files: None,
    });
    c.request(gone).await.unwrap();
    let other = c.send_turn("", None, "elsewhere").await;
    c.frames_until_complete(&other.session_id).await;
    until_gone(&folder).await;
    let branch = format!("paddock/{}", &spare[..8]);
    wait_until("its branch to go", DEADLINE, || {
        (!has_branch(repo.path(), &branch)).then_some(())
    })
    .await
    .unwrap();
    assert!(!git_worktrees(repo.path()).contains(&folder));
    assert!(spare_records(data.path()).is_empty());
    d.stop().await.unwrap();
}

/// A chat of the project kept in its folder (`--no-worktree`) is not given the spare made for
/// a worktree chat: its own session id and process, and the spare still serves the next
/// worktree chat.
#[tokio::test]
async fn a_chat_kept_in_the_projects_folder_does_not_take_the_worktree_spare() {
    // Every part bound: one left to `..` would go at once (its folder with it).
    let World {
        d,
        mut c,
        spare,
        folder,
        data: _data,
        repo: _repo,
        first: _,
    } = world().await;
    let shared = c
        .send_new("web", None, "in the checkout", Some(Isolation::None))
        .await;
    assert_ne!(shared.session_id, spare);
    c.frames_until_complete(&shared.session_id).await;
    let next = c.send_turn("web", None, "in a worktree").await;
    assert_eq!(next.session_id, spare);
    c.frames_until_complete(&next.session_id).await;
    let rows = chats_of(&mut c, "web").await;
    let row = rows.iter().find(|r| r.session_id == spare).unwrap();
    assert_eq!(
        row.worktree.as_ref().map(|w| PathBuf::from(&w.path)),
        Some(folder)
    );
    assert!(
        rows.iter()
            .find(|r| r.session_id == shared.session_id)
            .is_some_and(|r| r.worktree.is_none())
    );
    d.stop().await.unwrap();
}
