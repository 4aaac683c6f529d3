//! `paddock project add --repo|show|set|rm|promote` end to end: the real binaries, a daemon
//! the client starts itself, the fake `claude`, local bare repositories (no network).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::cli_env::CliEnv;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The test's world (`paddock_tests::cli_env`), with this file's helpers.
struct Env(CliEnv);

impl std::ops::Deref for Env {
    type Target = CliEnv;
    fn deref(&self) -> &CliEnv {
        &self.0
    }
}

impl Env {
    fn new() -> Self {
        Self(CliEnv::new())
    }
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
}

/// `<dir>/api.git`, a bare repository with one commit holding README.md.
fn bare_repo(dir: &Path) -> PathBuf {
    let work = dir.join("api-src");
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "-q", "-b", "main"]);
    std::fs::write(work.join("README.md"), "# api\n").unwrap();
    git(&work, &["add", "README.md"]);
    git(&work, &["commit", "-q", "-m", "first"]);
    git(dir, &["clone", "-q", "--bare", "api-src", "api.git"]);
    dir.join("api.git")
}

#[test]
fn project_add_with_a_repo_then_show_set_promote_and_rm() {
    let env = Env::new();
    let bare = bare_repo(env.dir.path());

    // A relative repository path is this shell's; the clone is the project's directory.
    let out = env.run(&[
        "project",
        "add",
        "api",
        "--repo",
        "api.git",
        "--summary",
        "The public API",
        "--status",
        "active",
    ]);
    let checkout = env.data().join("projects/api/api");
    assert!(out.contains("cloned from"), "{out}");
    assert!(checkout.join("README.md").is_file());
    let ls: serde_json::Value =
        serde_json::from_str(&env.run(&["project", "ls", "--json"])).unwrap();
    let api = ls
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["slug"] == "api")
        .unwrap();
    assert_eq!(api["repo"], bare.to_string_lossy().as_ref());
    assert_eq!(api["status"], "active");

    // A clone that fails: a one-line reason, nothing left.
    let err = env.fail(&["project", "add", "broken", "--repo", "/nowhere/x.git"]);
    assert!(err.contains("git clone"), "{err}");
    assert!(!env.data().join("projects/broken").exists());

    // show: the settings, the counts, the curated files.
    std::fs::write(
        env.data().join("projects/api/OVERVIEW.md"),
        "# API\n\nServes the app.\n",
    )
    .unwrap();
    let out = env.run(&["project", "show", "api"]);
    assert!(out.contains("The public API"), "{out}");
    assert!(out.contains("0 (0 running, 0 unread)"), "{out}");
    assert!(out.contains("Serves the app."), "{out}");
    assert!(out.contains("(none yet"), "no CHANGELOG.md yet: {out}");
    let shown: serde_json::Value =
        serde_json::from_str(&env.run(&["project", "show", "api", "--json"])).unwrap();
    assert_eq!(shown["overview"], "# API\n\nServes the app.\n");
    assert_eq!(shown["project"]["slug"], "api");
    assert!(shown.get("changelog").is_none());

    // set, and --unset.
    let out = env.run(&[
        "project",
        "set",
        "api",
        "--drive-mode",
        "batch",
        "--max-spawn-depth",
        "2",
        "--unset",
        "status",
    ]);
    assert!(
        out.contains("batch") && out.contains("max spawn depth"),
        "{out}"
    );
    assert!(!out.contains("status"), "{out}");
    let toml = std::fs::read_to_string(env.data().join("projects/api/project.toml")).unwrap();
    assert!(toml.contains("drive_mode = \"batch\""), "{toml}");
    let err = env.fail(&["project", "set", "api"]);
    assert!(err.contains("nothing to change"), "{err}");
    let err = env.fail(&["project", "set", "api", "--max-spawn-depth", "9"]);
    assert!(!err.is_empty());

    // reach: the other projects its chats' tools may act on, '' the root workspace.
    let out = env.run(&[
        "project", "set", "api", "--reach", "web", "--reach", "", "--reach", "web",
    ]);
    assert!(
        out.contains("reaches") && out.contains("web, '' (root)"),
        "{out}"
    );
    let toml = std::fs::read_to_string(env.data().join("projects/api/project.toml")).unwrap();
    assert!(toml.contains(r#"reach = ["web", ""]"#), "{toml}");
    let out = env.run(&["project", "show", "api"]);
    assert!(out.contains("web, '' (root)"), "{out}");
    let err = env.fail(&["project", "set", "api", "--reach", "Not A Slug"]);
    assert!(err.contains("not a project to reach"), "{err}");
    let err = env.fail(&["project", "set", "api", "--unreach", "ops"]);
    assert!(err.contains("does not list \"ops\""), "{err}");
    let out = env.run(&["project", "set", "api", "--unreach", "web", "--unreach", ""]);
    assert!(!out.contains("reaches"), "{out}");

    // promote a notebook.
    env.run(&["project", "add", "notes"]);
    let url = format!("file://{}", bare.display());
    let out = env.run(&["project", "promote", "notes", "--repo", &url]);
    assert!(out.contains("repo-backed"), "{out}");
    assert!(env.data().join("projects/notes/api/README.md").is_file());
    let err = env.fail(&["project", "promote", "notes", "--repo", &url]);
    assert!(err.contains("already"), "{err}");

    // rm: a data-folder project needs the choice; --trash keeps it restorable.
    let err = env.fail(&["project", "rm", "notes"]);
    assert!(err.contains("--delete-files"), "{err}");
    let out = env.run(&["project", "rm", "notes", "--trash"]);
    assert!(out.contains("trash"), "{out}");
    assert!(!env.data().join("projects/notes").exists());
    let trashed: Vec<_> = std::fs::read_dir(env.data().join("trash"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(trashed.len(), 1);
    // A directory of your own stays.
    let mine = env.dir.path().join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("keep.txt"), "keep").unwrap();
    env.run(&["project", "add", "mine", "--path", "mine"]);
    let deleted: serde_json::Value =
        serde_json::from_str(&env.run(&["project", "rm", "mine", "--delete-files", "--json"]))
            .unwrap();
    assert_eq!(deleted["pathKept"], true);
    assert!(deleted.get("movedTo").is_none());
    assert_eq!(
        std::fs::read_to_string(mine.join("keep.txt")).unwrap(),
        "keep"
    );
    let out = env.run(&["project", "ls"]);
    assert!(!out.contains("mine") && !out.contains("notes"), "{out}");
}

/// A project whose folder was removed behind paddock's back: a turn says the folder is gone
/// and how to go on, not that Claude Code is missing.
#[test]
fn a_turn_in_a_project_whose_folder_is_gone_says_so() {
    let env = Env::new();
    let dir = env.dir.path().join("gone");
    env.run(&["project", "add", "gone", "--path", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    let out = env.output(&["send", "-p", "gone", "hello"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("is gone"), "{said}");
    assert!(
        said.contains(&format!("mkdir -p {}", dir.display())),
        "{said}"
    );
    assert!(!said.contains("install Claude Code"), "{said}");
    // Said once, as the command's own failure: a claude that cannot start is a failed turn,
    // not a notice and then the same sentence again.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let streamed = stderr.lines().filter(|l| l.starts_with("! ")).count();
    assert_eq!(streamed, 0, "{stderr}");
    assert_eq!(stderr.matches("is gone").count(), 1, "{stderr}");
}
