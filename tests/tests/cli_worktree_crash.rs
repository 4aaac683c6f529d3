//! A daemon killed (SIGKILL) at each step of making, merging and discarding a worktree chat,
//! and of moving a chat to another project (issue 37.10): the repository stays consistent (`git fsck` clean, no `index.lock`, no half
//! merge) and the chat's record true, and the next start finishes or undoes what was half
//! done. The daemon is stopped at each step by `PADDOCK_FAILPOINT` (it says so in a mark
//! file and waits), then killed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use paddock_tests::cli_env::CliEnv;
use paddock_tests::git::git;
use paddock_tests::wait::wait_until_blocking;

const DEADLINE: Duration = Duration::from_secs(60);

/// The file chat `sid`'s work writes.
fn work_file(sid: &str) -> String {
    format!("work-{}.txt", &sid[..8])
}

/// A world with a project `web` on a repository with one commit and a file of the user's.
struct World {
    env: CliEnv,
    repo: PathBuf,
}

impl World {
    fn new() -> Self {
        let env = CliEnv::new();
        let repo = env.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        git(&repo, &["config", "user.name", "Ana"]);
        git(&repo, &["config", "user.email", "ana@example.com"]);
        std::fs::write(repo.join("README.md"), "hello\n").unwrap();
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-qm", "first"]);
        std::fs::write(repo.join("mine.txt"), "the user's\n").unwrap();
        env.run(&["project", "add", "web", "--path", repo.to_str().unwrap()]);
        Self { env, repo }
    }

    fn mark(&self) -> PathBuf {
        self.env.path().join("failpoint-mark")
    }

    /// `paddock ARGS` with a fresh daemon that stops dead at `point`; returns once it is
    /// there, the command still waiting for its answer.
    fn stop_at(&self, point: &str, args: &[&str]) -> Child {
        self.env.run(&["daemon", "stop"]);
        let _ = std::fs::remove_file(self.mark());
        let child = self
            .env
            .paddock()
            .args(args)
            .env("PADDOCK_FAILPOINT", point)
            .env("PADDOCK_FAILPOINT_MARK", self.mark())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_until_blocking(&format!("the daemon at {point}"), DEADLINE, || {
            std::fs::read_to_string(self.mark())
                .ok()
                .filter(|m| m == point)
        })
        .unwrap();
        child
    }

    /// SIGKILLs the daemon; the command that waited on it ends.
    fn kill_daemon(&self, mut waiting: Child) {
        let status: serde_json::Value =
            serde_json::from_str(&self.env.run(&["daemon", "status", "--json"])).unwrap();
        let pid = status["pid"]
            .as_u64()
            .expect("the daemon's pid")
            .to_string();
        assert!(
            std::process::Command::new("kill")
                .args(["-9", &pid])
                .status()
                .unwrap()
                .success()
        );
        let _ = waiting.wait();
        // Gone for good before anything asks again (a dying daemon's socket may still take
        // a connection and drop it).
        wait_until_blocking("the daemon gone", DEADLINE, || {
            (!Path::new(&format!("/proc/{pid}")).exists()).then_some(())
        })
        .unwrap();
    }

    /// The worktree chats, as a fresh daemon lists them.
    fn worktrees(&self) -> Vec<serde_json::Value> {
        let out: serde_json::Value =
            serde_json::from_str(&self.env.run(&["worktree", "ls", "--json"])).unwrap();
        out["worktrees"].as_array().unwrap().clone()
    }

    /// A new chat of `web` (`send` with `more` flags), once it is listed and idle: its id and
    /// its row.
    fn idle_chat(&self, more: &[&str]) -> (String, serde_json::Value) {
        let args = [&["send", "-p", "web", "--detach", "--json"], more, &["hi"]].concat();
        let out = self.env.run(&args);
        let sid = serde_json::from_str::<serde_json::Value>(&out).unwrap()["sessionId"]
            .as_str()
            .unwrap()
            .to_owned();
        let row = wait_until_blocking("the chat listed and idle", DEADLINE, || {
            self.row("web", &sid).filter(|row| row["running"] == false)
        })
        .unwrap();
        (sid, row)
    }

    /// Chat `sid`'s row in `project`'s listing, if it is there.
    fn row(&self, project: &str, sid: &str) -> Option<serde_json::Value> {
        let rows: serde_json::Value =
            serde_json::from_str(&self.env.run(&["ls", "-p", project, "--json"])).ok()?;
        rows.as_array()?
            .iter()
            .find(|r| r["sessionId"] == sid)
            .cloned()
    }

    /// A worktree chat, made and idle, with a file of its work: its id and folder.
    fn worktree_chat(&self) -> (String, PathBuf) {
        let (sid, row) = self.idle_chat(&["--worktree"]);
        let path = PathBuf::from(row["worktree"]["path"].as_str().expect("a worktree"));
        std::fs::write(path.join(work_file(&sid)), format!("work of {sid}\n")).unwrap();
        (sid, path)
    }

    /// What must hold after every crash: git finds nothing wrong, no lock is left, no merge
    /// is half made, and the user's file is as it was.
    fn consistent(&self) {
        let fsck = git(&self.repo, &["fsck", "--no-dangling", "--no-progress"]);
        assert_eq!(fsck, "", "git fsck: {fsck}");
        let gitdir = self.repo.join(".git");
        assert!(!gitdir.join("index.lock").exists(), "an index.lock is left");
        assert!(!gitdir.join("MERGE_HEAD").exists(), "a merge is half made");
        for wt in std::fs::read_dir(gitdir.join("worktrees"))
            .into_iter()
            .flatten()
        {
            let wt = wt.unwrap().path();
            assert!(
                !wt.join("index.lock").exists(),
                "an index.lock is left in {wt:?}"
            );
        }
        assert_eq!(
            std::fs::read_to_string(self.repo.join("mine.txt")).unwrap(),
            "the user's\n"
        );
    }

    /// The branches of the repository that paddockd names.
    fn paddock_branches(&self) -> Vec<String> {
        git(
            &self.repo,
            &["branch", "--list", "paddock/*", "--format=%(refname:short)"],
        )
        .lines()
        .map(str::to_owned)
        .collect()
    }
}

#[test]
fn a_worktree_cut_short_while_it_was_made_is_undone_at_the_next_start() {
    for point in ["worktree.create.recorded", "worktree.create.added"] {
        let w = World::new();
        let waiting = w.stop_at(
            point,
            &["send", "-p", "web", "--worktree", "--detach", "hi"],
        );
        w.kill_daemon(waiting);
        // The next start undoes it: no record, no folder, no branch.
        wait_until_blocking(&format!("{point} undone"), DEADLINE, || {
            let gone = w.worktrees().is_empty()
                && w.paddock_branches().is_empty()
                && git(&w.repo, &["worktree", "list"]).lines().count() == 1;
            gone.then_some(())
        })
        .unwrap();
        w.consistent();
        // And the next worktree chat is made as if nothing happened.
        let (sid, path) = w.worktree_chat();
        assert!(path.is_dir(), "{sid}");
    }
}

#[test]
fn a_merge_cut_short_is_recorded_when_it_landed_and_forgotten_when_not() {
    let w = World::new();
    // Cut short before the target moved: nothing moved, and merging again works.
    let (sid, _) = w.worktree_chat();
    let head = git(&w.repo, &["rev-parse", "HEAD"]);
    let waiting = w.stop_at("worktree.merge.prepared", &["worktree", "merge", &sid]);
    w.kill_daemon(waiting);
    assert!(w.worktrees()[0]["worktree"].get("merged").is_none());
    assert_eq!(git(&w.repo, &["rev-parse", "HEAD"]), head);
    assert!(!w.repo.join(work_file(&sid)).exists());
    w.consistent();
    w.env.run(&["worktree", "merge", &sid]);
    assert!(w.repo.join(work_file(&sid)).is_file());

    // Cut short after the target moved: the next start records the merge.
    let (sid, _) = w.worktree_chat();
    let waiting = w.stop_at("worktree.merge.applied", &["worktree", "merge", &sid]);
    w.kill_daemon(waiting);
    let head = git(&w.repo, &["rev-parse", "HEAD"]).trim().to_owned();
    wait_until_blocking("the landed merge recorded", DEADLINE, || {
        w.worktrees()
            .iter()
            .any(|e| {
                e["sessionId"] == sid.as_str() && e["worktree"]["merged"]["commit"] == head.as_str()
            })
            .then_some(())
    })
    .unwrap();
    w.consistent();
}

#[test]
fn a_discard_cut_short_is_finished_at_the_next_start() {
    for point in ["worktree.discard.marked", "worktree.discard.removed"] {
        let w = World::new();
        let (sid, path) = w.worktree_chat();
        let waiting = w.stop_at(point, &["worktree", "discard", &sid, "--force", "--yes"]);
        w.kill_daemon(waiting);
        wait_until_blocking(&format!("{point} finished"), DEADLINE, || {
            (w.worktrees().is_empty() && !path.exists() && w.paddock_branches().is_empty())
                .then_some(())
        })
        .unwrap();
        w.consistent();
    }
}

#[test]
fn a_move_cut_short_is_finished_at_the_next_start() {
    for point in [
        "promote.journal",
        "promote.first_renamed",
        "promote.renamed",
    ] {
        let w = World::new();
        let (sid, _) = w.idle_chat(&[]);
        let waiting = w.stop_at(point, &["promote", &sid, "--to", "docs"]);
        w.kill_daemon(waiting);
        // The next start finishes the move: listed in docs only, its journal gone.
        let row = wait_until_blocking(&format!("{point} finished"), DEADLINE, || {
            w.row("docs", &sid)
        })
        .unwrap();
        assert_eq!(row["messageCount"], 2, "{row}");
        assert!(w.row("web", &sid).is_none(), "{point}: still in web");
        let journals = w.env.data().join("state").join("promotions");
        let left: Vec<_> = std::fs::read_dir(&journals).into_iter().flatten().collect();
        assert!(left.is_empty(), "{point}: {left:?}");
        // It resumes there, and moves back as any chat does.
        let out = w.env.run(&["send", "-c", &sid, "again"]);
        assert!(out.contains("echo: again"), "{out}");
        let out = w.env.run(&["promote", &sid[..8], "--to", "web"]);
        assert_eq!(
            out,
            format!("moved chat {sid} from project docs to project web\n")
        );
        if point == "promote.journal" {
            // A slug no project has: made, and said how to take it back.
            let out = w.env.run(&["promote", &sid, "--to", "fresh"]);
            assert!(
                out.starts_with(&format!("made project fresh (no project had that slug; to take it back: `paddock promote {sid} --to 'web'`, then `paddock project rm fresh --delete-files`)\n")),
                "{out}"
            );
        }
        w.consistent();
    }
}
