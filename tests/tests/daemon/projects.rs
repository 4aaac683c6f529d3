//! `project:update`, `project:delete`, `project:promote`, `project:overview` and repo-backed
//! `project:create`, over the socket. Repositories are local bare ones (`git clone --bare`),
//! so nothing goes over the network.

use std::path::{Path, PathBuf};
use std::process::Command;

use paddock_proto::{
    ChatEvent, ChatList, ChatScope, ChatSummary, ErrorBody, ErrorCode, ProjectCreate,
    ProjectDelete, ProjectDeleted, ProjectDriveMode, ProjectFiles, ProjectInfo, ProjectOverview,
    ProjectPromote, ProjectRef, ProjectStatus, ProjectUpdate, Reply, Request, ServerMessage,
};

use crate::harness::*;

// Boxed, as in chats.rs: the harness's futures are large.
async fn req(c: &mut RawClient, request: Request) -> Result<Reply, ErrorBody> {
    Box::pin(c.request(request)).await
}

async fn create(c: &mut RawClient, p: ProjectCreate) -> Result<ProjectInfo, ErrorBody> {
    req(c, Request::ProjectCreate(p)).await.map(|r| match r {
        Reply::Project(p) => p,
        other => panic!("expected project, got {other:?}"),
    })
}

async fn update(c: &mut RawClient, u: ProjectUpdate) -> Result<ProjectInfo, ErrorBody> {
    req(c, Request::ProjectUpdate(u)).await.map(|r| match r {
        Reply::Project(p) => p,
        other => panic!("expected project, got {other:?}"),
    })
}

async fn delete(c: &mut RawClient, r: ProjectDelete) -> Result<ProjectDeleted, ErrorBody> {
    req(c, Request::ProjectDelete(r)).await.map(|r| match r {
        Reply::ProjectDeleted(p) => p,
        other => panic!("expected project_deleted, got {other:?}"),
    })
}

async fn promote(c: &mut RawClient, slug: &str, repo: &str) -> Result<ProjectInfo, ErrorBody> {
    req(
        c,
        Request::ProjectPromote(ProjectPromote {
            slug: slug.into(),
            repo: repo.into(),
        }),
    )
    .await
    .map(|r| match r {
        Reply::Project(p) => p,
        other => panic!("expected project, got {other:?}"),
    })
}

async fn overview(c: &mut RawClient, slug: &str) -> ProjectOverview {
    match req(
        c,
        Request::ProjectOverviewRequest(ProjectRef { slug: slug.into() }),
    )
    .await
    .expect("project:overview")
    {
        Reply::ProjectOverview(o) => *o,
        other => panic!("expected project_overview, got {other:?}"),
    }
}

async fn projects(c: &mut RawClient) -> Vec<ProjectInfo> {
    match req(c, Request::ProjectList).await.expect("project:list") {
        Reply::Projects(p) => p.projects,
        other => panic!("expected projects, got {other:?}"),
    }
}

async fn chats(c: &mut RawClient, project: &str) -> Vec<ChatSummary> {
    match req(
        c,
        Request::ChatList(ChatList {
            project_slug: Some(project.into()),
            scope: ChatScope::All,
            since: None,
            full_titles: false,
        }),
    )
    .await
    .expect("chat:list")
    {
        Reply::Chats(c) => c.chats,
        other => panic!("expected chats, got {other:?}"),
    }
}

fn named(slug: &str) -> ProjectCreate {
    ProjectCreate {
        slug: slug.into(),
        ..Default::default()
    }
}

/// Runs a turn to its end, then waits until the chat is listed in `project`.
async fn turn(c: &mut RawClient, project: &str, session: Option<&str>, text: &str) -> String {
    let sent = Box::pin(c.send_turn(project, session, text)).await;
    let frames = Box::pin(c.frames_until_complete(&sent.session_id)).await;
    assert!(complete_of(&frames).success, "turn failed: {frames:#?}");
    let sid = sent.session_id;
    until(c, "the chat to be listed", |c| {
        let sid = sid.clone();
        let project = project.to_owned();
        Box::pin(async move {
            chats(c, &project)
                .await
                .iter()
                .any(|r| r.session_id == sid && !r.running)
        })
    })
    .await;
    sid
}

/// Asks again (after each message the daemon sends, or every 50 ms) until `done`, within the
/// deadline.
async fn until(
    c: &mut RawClient,
    what: &str,
    done: impl for<'a> Fn(
        &'a mut RawClient,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = bool> + 'a>>,
) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        if done(c).await {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        let _ = Box::pin(c.try_next(std::time::Duration::from_millis(50))).await;
    }
}

/// Starts a turn that runs until interrupted, and waits until it is under way.
async fn start_hanging_turn(c: &mut RawClient, project: &str) -> String {
    let script = r#"fake:[{"text":"working","chunks":1},{"hang":true}]"#;
    let sent = Box::pin(c.send_turn(project, None, script)).await;
    let mut kept = Vec::new();
    loop {
        match Box::pin(c.next()).await {
            ServerMessage::Frame(f)
                if f.routing.session_id == sent.session_id
                    && matches!(f.event, ChatEvent::Response(_)) =>
            {
                break;
            }
            other => kept.push(other),
        }
    }
    kept.extend(c.pending.drain(..));
    c.pending = kept.into();
    sent.session_id
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A local bare repository `<dir>/web.git` with one commit holding README.md.
fn bare_repo(dir: &Path) -> PathBuf {
    let work = dir.join("web-src");
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "-q", "-b", "main"]);
    std::fs::write(work.join("README.md"), "# web\n").unwrap();
    git(&work, &["add", "README.md"]);
    git(&work, &["commit", "-q", "-m", "first"]);
    let bare = dir.join("web.git");
    git(
        dir,
        &[
            "clone",
            "-q",
            "--bare",
            &work.to_string_lossy(),
            &bare.to_string_lossy(),
        ],
    );
    bare
}

fn meta_dir(d: &TestDaemon, slug: &str) -> PathBuf {
    d.cfg.data_dir.join("projects").join(slug)
}

fn transcripts_link(d: &TestDaemon, agent_dir: &str) -> PathBuf {
    d.cfg
        .claude_home
        .join("projects")
        .join(paddock_tests::cwd_encoding::encode_cwd(agent_dir))
}

#[tokio::test]
async fn update_edits_project_toml_keeping_what_the_user_wrote() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    create(&mut c, named("demo")).await.unwrap();
    let file = meta_dir(&d, "demo").join("project.toml");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.insert_str(0, "# my notes on demo\n");
    text.push_str("model = \"claude-sonnet-4-5\" # the fast one\n");
    std::fs::write(&file, &text).unwrap();

    let p = update(
        &mut c,
        ProjectUpdate {
            slug: "demo".into(),
            name: Some(Some("Demo".into())),
            summary: Some(Some("A demo project".into())),
            status: Some(Some(ProjectStatus::Paused)),
            model: Some(Some("claude-opus-4-1".into())),
            drive_mode: Some(Some(ProjectDriveMode::Batch)),
            max_spawn_depth: Some(Some(3)),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(p.name.as_deref(), Some("Demo"));
    assert_eq!(p.summary.as_deref(), Some("A demo project"));
    assert_eq!(p.status, Some(ProjectStatus::Paused));
    assert_eq!(p.model.as_deref(), Some("claude-opus-4-1"));
    assert_eq!(p.drive_mode, Some(ProjectDriveMode::Batch));
    assert_eq!(p.max_spawn_depth, Some(3));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("# my notes on demo\n"), "{text}");
    assert!(
        text.contains("model = \"claude-opus-4-1\" # the fast one"),
        "{text}"
    );
    let listed = projects(&mut c).await;
    let demo = listed.iter().find(|p| p.slug == "demo").unwrap();
    assert_eq!(demo.summary.as_deref(), Some("A demo project"));

    // null clears; absent leaves.
    let p = update(
        &mut c,
        ProjectUpdate {
            slug: "demo".into(),
            max_spawn_depth: Some(None),
            drive_mode: Some(None),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(p.max_spawn_depth, None);
    assert_eq!(p.drive_mode, None);
    assert_eq!(p.status, Some(ProjectStatus::Paused));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("max_spawn_depth"), "{text}");

    // Refusals change nothing.
    let err = update(
        &mut c,
        ProjectUpdate {
            slug: "demo".into(),
            max_spawn_depth: Some(Some(9)),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{}", err.message);
    let err = update(
        &mut c,
        ProjectUpdate {
            slug: "nope".into(),
            summary: Some(Some("x".into())),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    // The root workspace has settings too.
    let root = update(
        &mut c,
        ProjectUpdate {
            slug: String::new(),
            summary: Some(Some("Everything else".into())),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(root.summary.as_deref(), Some("Everything else"));
    d.stop().await.unwrap();
}

#[tokio::test]
async fn overview_carries_the_curated_files_and_the_chat_counts() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    create(&mut c, named("demo")).await.unwrap();
    let o = overview(&mut c, "demo").await;
    assert_eq!(o.project.slug, "demo");
    assert_eq!((o.overview, o.changelog), (None, None));
    assert_eq!((o.chats, o.running, o.unread), (0, 0, 0));

    let meta = meta_dir(&d, "demo");
    std::fs::write(meta.join("OVERVIEW.md"), "# Demo\n\nWhat it is.\n").unwrap();
    // Newest first, well over the 32 KiB carried.
    let mut log = String::new();
    for day in (1..=28).rev() {
        log.push_str(&format!("## 2026-11-{day:02}\n\n"));
        for _ in 0..40 {
            log.push_str("- a change of that day, described at some length to take room\n");
        }
        log.push('\n');
    }
    assert!(log.len() > paddock_proto::CHANGELOG_MAX_BYTES);
    std::fs::write(meta.join("CHANGELOG.md"), &log).unwrap();
    let sid = turn(&mut c, "demo", None, "hello").await;

    let o = overview(&mut c, "demo").await;
    assert_eq!(o.overview.as_deref(), Some("# Demo\n\nWhat it is.\n"));
    assert!(!o.overview_truncated);
    let changelog = o.changelog.unwrap();
    assert!(o.changelog_truncated);
    assert!(changelog.len() <= paddock_proto::CHANGELOG_MAX_BYTES);
    assert!(
        changelog.starts_with("## 2026-11-28\n"),
        "the newest entries are kept"
    );
    assert_eq!((o.chats, o.running), (1, 0));

    // A running turn is counted while it runs.
    let hanging = start_hanging_turn(&mut c, "demo").await;
    until(&mut c, "the running count", |c| {
        Box::pin(async move { overview(c, "demo").await.running == 1 })
    })
    .await;
    req(
        &mut c,
        Request::ChatCancel(paddock_proto::ChatCancel {
            session_id: hanging.clone(),
            job_id: None,
        }),
    )
    .await
    .unwrap();
    Box::pin(c.frames_until_complete(&hanging)).await;
    assert!(!sid.is_empty());
    let err = req(
        &mut c,
        Request::ProjectOverviewRequest(ProjectRef {
            slug: "nope".into(),
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn delete_refuses_running_turns_unless_forced_and_never_touches_your_directory() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let own = d.dir.path().join("my-code");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(own.join("main.rs"), "fn main() {}\n").unwrap();
    let p = create(
        &mut c,
        ProjectCreate {
            path: Some(own.to_string_lossy().into_owned()),
            ..named("code")
        },
    )
    .await
    .unwrap();
    turn(&mut c, "code", None, "hello").await;
    let link = transcripts_link(&d, &p.path);
    assert!(link.is_symlink());
    let hanging = start_hanging_turn(&mut c, "code").await;

    let err = delete(
        &mut c,
        ProjectDelete {
            slug: "code".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Busy, "{}", err.message);
    assert!(meta_dir(&d, "code").is_dir(), "nothing was changed");

    let gone = delete(
        &mut c,
        ProjectDelete {
            slug: "code".into(),
            force: true,
            files: None,
        },
    )
    .await
    .unwrap();
    assert_eq!(gone.cancelled_turns, 1);
    assert!(gone.chats >= 1, "{gone:?}");
    assert!(gone.path_kept);
    let moved = PathBuf::from(gone.moved_to.clone().expect("moved to the trash"));
    assert!(moved.starts_with(d.cfg.data_dir.join("trash")), "{moved:?}");
    assert!(moved.join("project.toml").is_file());
    assert!(
        moved.join(".chats").is_dir(),
        "the transcripts went with it"
    );
    assert!(
        gone.done.iter().any(|l| l.contains("your own directory")),
        "{:?}",
        gone.done
    );
    assert_eq!(
        std::fs::read_to_string(own.join("main.rs")).unwrap(),
        "fn main() {}\n"
    );
    assert!(!meta_dir(&d, "code").exists());
    assert!(!link.exists() && !link.is_symlink(), "the link went");
    assert!(!projects(&mut c).await.iter().any(|p| p.slug == "code"));
    let err = req(
        &mut c,
        Request::ChatList(ChatList {
            project_slug: Some("code".into()),
            scope: ChatScope::All,
            since: None,
            full_titles: false,
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    // The interrupted turn ended with chat:complete.
    let frames = Box::pin(c.frames_until_complete(&hanging)).await;
    assert!(!complete_of(&frames).success);
    // The slug is free again.
    create(&mut c, named("code")).await.unwrap();
    d.stop().await.unwrap();
}

#[tokio::test]
async fn deleting_a_project_whose_files_live_in_the_data_folder_needs_a_choice() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    create(&mut c, named("notes")).await.unwrap();
    std::fs::write(meta_dir(&d, "notes").join("ideas.md"), "- one\n").unwrap();
    let err = delete(
        &mut c,
        ProjectDelete {
            slug: "notes".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(
        err.message.contains("--trash") && err.message.contains("--delete-files"),
        "{}",
        err.message
    );
    assert!(meta_dir(&d, "notes").join("ideas.md").is_file());

    let gone = delete(
        &mut c,
        ProjectDelete {
            slug: "notes".into(),
            force: false,
            files: Some(ProjectFiles::Delete),
        },
    )
    .await
    .unwrap();
    assert_eq!(gone.moved_to, None);
    assert!(!gone.path_kept);
    assert!(!meta_dir(&d, "notes").exists());
    assert!(!projects(&mut c).await.iter().any(|p| p.slug == "notes"));

    for (slug, code) in [
        ("", ErrorCode::InvalidArgument),
        ("nope", ErrorCode::NotFound),
    ] {
        let err = delete(
            &mut c,
            ProjectDelete {
                slug: slug.into(),
                force: true,
                files: Some(ProjectFiles::Delete),
            },
        )
        .await
        .unwrap_err();
        assert_eq!(err.code, code, "{slug:?}: {}", err.message);
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_repo_backed_project_is_cloned_and_a_failed_clone_leaves_nothing() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let bare = bare_repo(d.dir.path());
    let p = create(
        &mut c,
        ProjectCreate {
            repo: Some(bare.to_string_lossy().into_owned()),
            summary: Some("The web app".into()),
            status: Some(ProjectStatus::Active),
            ..named("web")
        },
    )
    .await
    .unwrap();
    let checkout = std::fs::canonicalize(meta_dir(&d, "web").join("web")).unwrap();
    assert_eq!(PathBuf::from(&p.path), checkout);
    assert_eq!(p.repo.as_deref(), Some(&*bare.to_string_lossy()));
    assert_eq!(p.summary.as_deref(), Some("The web app"));
    assert!(checkout.join("README.md").is_file());
    assert!(transcripts_link(&d, &p.path).is_symlink());
    turn(&mut c, "web", None, "hello").await;

    // Into a path of the user's own, which must be new or empty (in a folder that exists).
    std::fs::create_dir_all(d.dir.path().join("checkouts")).unwrap();
    let into = d.dir.path().join("checkouts").join("web2");
    let p2 = create(
        &mut c,
        ProjectCreate {
            repo: Some(format!("file://{}", bare.display())),
            path: Some(into.to_string_lossy().into_owned()),
            ..named("web2")
        },
    )
    .await
    .unwrap();
    assert!(into.join("README.md").is_file());
    assert_eq!(
        PathBuf::from(&p2.path),
        std::fs::canonicalize(&into).unwrap()
    );
    let err = create(
        &mut c,
        ProjectCreate {
            repo: Some(bare.to_string_lossy().into_owned()),
            path: Some(into.to_string_lossy().into_owned()),
            ..named("web3")
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(err.message.contains("not empty"), "{}", err.message);
    assert!(!meta_dir(&d, "web3").exists());

    // A clone that fails: nothing is left, the slug stays free.
    let missing = d.dir.path().join("no-such.git");
    let target = d.dir.path().join("checkouts").join("broken");
    for path in [None, Some(target.clone())] {
        let err = create(
            &mut c,
            ProjectCreate {
                repo: Some(missing.to_string_lossy().into_owned()),
                path: path.as_ref().map(|p| p.to_string_lossy().into_owned()),
                ..named("broken")
            },
        )
        .await
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        assert!(err.message.contains("git clone"), "{}", err.message);
        assert!(
            !meta_dir(&d, "broken").exists(),
            "the project folder was removed"
        );
        assert!(!target.exists(), "the clone's folder was removed");
    }
    // An empty directory to clone into stays, empty, after a failure.
    std::fs::create_dir_all(&target).unwrap();
    create(
        &mut c,
        ProjectCreate {
            repo: Some(missing.to_string_lossy().into_owned()),
            path: Some(target.to_string_lossy().into_owned()),
            ..named("broken")
        },
    )
    .await
    .unwrap_err();
    assert!(target.is_dir());
    assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0);
    // Addresses that are not repositories never reach git.
    for bad in ["--upload-pack=touch /tmp/x", "ext::sh -c id", "webapp"] {
        let err = create(
            &mut c,
            ProjectCreate {
                repo: Some(bad.into()),
                ..named("bad")
            },
        )
        .await
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument, "{bad}");
    }
    assert!(
        !projects(&mut c)
            .await
            .iter()
            .any(|p| p.slug == "broken" || p.slug == "bad")
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn promote_clones_into_a_notebook_and_keeps_its_chats() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let bare = bare_repo(d.dir.path());
    let notebook = create(&mut c, named("notes")).await.unwrap();
    let meta = meta_dir(&d, "notes");
    std::fs::write(meta.join("work/CLAUDE.md"), "notebook instructions\n").unwrap();
    let sid = turn(&mut c, "notes", None, "hello").await;
    let before = std::fs::read_to_string(meta.join("project.toml")).unwrap();

    // A failed clone leaves the notebook as it was.
    let err = promote(
        &mut c,
        "notes",
        &d.dir.path().join("nope.git").to_string_lossy(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(err.message.contains("git clone"), "{}", err.message);
    assert!(!meta.join("nope").exists());
    assert_eq!(
        std::fs::read_to_string(meta.join("project.toml")).unwrap(),
        before
    );
    assert!(meta.join("work/CLAUDE.md").is_file());

    let p = promote(&mut c, "notes", &bare.to_string_lossy())
        .await
        .unwrap();
    let checkout = std::fs::canonicalize(meta.join("web")).unwrap();
    assert_eq!(PathBuf::from(&p.path), checkout);
    assert!(checkout.join("README.md").is_file());
    assert_eq!(p.repo.as_deref(), Some(&*bare.to_string_lossy()));
    // The notebook's files, its CLAUDE.md among them, stay in its work/ folder: not in the
    // checkout nor a folder above it.
    assert!(meta.join("work/CLAUDE.md").is_file());
    assert!(!meta.join("CLAUDE.md").exists() && !checkout.join("CLAUDE.md").exists());
    assert!(transcripts_link(&d, &p.path).is_symlink());
    // The old link stays (a live `claude` of the notebook's time may still write through it),
    // leading to the same `.chats`.
    assert_eq!(
        std::fs::canonicalize(transcripts_link(&d, &notebook.path)).unwrap(),
        std::fs::canonicalize(transcripts_link(&d, &p.path)).unwrap()
    );
    // The chat is still listed, and goes on in the checkout.
    assert!(
        chats(&mut c, "notes")
            .await
            .iter()
            .any(|r| r.session_id == sid)
    );
    turn(&mut c, "notes", Some(&sid), "again").await;
    let rows = chats(&mut c, "notes").await;
    assert_eq!(rows.len(), 1, "{rows:#?}");

    // Refusals.
    let repo = bare.to_string_lossy().into_owned();
    let err = promote(&mut c, "notes", &repo).await.unwrap_err();
    assert!(
        err.message.contains("repo-backed already"),
        "{}",
        err.message
    );
    let err = promote(&mut c, "", &repo).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    let own = d.dir.path().join("own");
    create(
        &mut c,
        ProjectCreate {
            path: Some(own.to_string_lossy().into_owned()),
            ..named("own")
        },
    )
    .await
    .unwrap();
    let err = promote(&mut c, "own", &repo).await.unwrap_err();
    assert!(
        err.message.contains("directory of your own"),
        "{}",
        err.message
    );
    let err = promote(&mut c, "nope", &repo).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    d.stop().await.unwrap();
}

/// Plays the MCP bridge: calls a `paddock_manage` tool with the chat's token.
async fn call_tool(
    c: &mut RawClient,
    token: &str,
    tool: &str,
    arguments: serde_json::Value,
) -> (String, bool) {
    match req(
        c,
        Request::AgentCall(paddock_proto::AgentCall {
            token: token.into(),
            server: "paddock_manage".into(),
            tool: tool.into(),
            arguments,
            tool_use_id: None,
        }),
    )
    .await
    {
        Ok(Reply::AgentResult(r)) => (r.text, r.is_error),
        other => panic!("agent:call {tool}: {other:?}"),
    }
}

/// The agent token the daemon gave `session`'s `claude` (in its `--mcp-config` file).
fn token_for(d: &TestDaemon, session: &str) -> String {
    let config = d
        .fake_argvs()
        .into_iter()
        .rev()
        .find_map(|argv| {
            if !argv.iter().any(|a| a == session) {
                return None;
            }
            let at = argv.iter().position(|a| a == "--mcp-config")?;
            let text = std::fs::read_to_string(argv.get(at + 1)?).ok()?;
            serde_json::from_str::<serde_json::Value>(&text).ok()
        })
        .expect("an --mcp-config");
    config["mcpServers"]["paddock"]["env"]["PADDOCK_AGENT_TOKEN"]
        .as_str()
        .expect("a token")
        .to_owned()
}

#[tokio::test]
async fn the_agents_create_project_and_promote_project_tools() {
    let d = TestDaemon::start_with(|c| {
        c.mcp_bin = Some("/opt/paddock/bin/paddockd".into());
        c.self_mcp_projects = true;
    })
    .await;
    let mut c = d.client().await;
    let bare = bare_repo(d.dir.path());
    let repo = bare.to_string_lossy().into_owned();
    let sid = turn(&mut c, "", None, "hello").await;
    let token = token_for(&d, &sid);
    // A chat creates and promotes only projects its own may reach: here, every one.
    update(
        &mut c,
        ProjectUpdate {
            slug: String::new(),
            reach: vec!["*".into()],
            ..Default::default()
        },
    )
    .await
    .unwrap();

    // The reference's arguments: name (the slug derived from it), repo, summary, area, status.
    let (text, is_error) = call_tool(
        &mut c,
        &token,
        "create_project",
        serde_json::json!({"name": "Web App", "repo": repo, "summary": "The web app", "area": "Work", "status": "active"}),
    )
    .await;
    assert!(!is_error, "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["created"], true);
    assert_eq!(v["slug"], "web-app");
    assert_eq!(v["status"], "active");
    let listed = projects(&mut c).await;
    let p = listed.iter().find(|p| p.slug == "web-app").expect("listed");
    assert_eq!(p.name.as_deref(), Some("Web App"));
    assert_eq!(p.area.as_deref(), Some("Work"));
    assert!(PathBuf::from(&p.path).join("README.md").is_file(), "cloned");
    let (text, is_error) = call_tool(&mut c, &token, "list_projects", serde_json::json!({})).await;
    assert!(!is_error, "{text}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let row = rows
        .iter()
        .find(|r| r["slug"] == "web-app")
        .expect("listed");
    assert_eq!(row["summary"], "The web app");
    assert_eq!(row["repo"], repo.as_str());
    // `slug` (and `path`) keep working without a name.
    let (text, is_error) = call_tool(
        &mut c,
        &token,
        "create_project",
        serde_json::json!({"slug": "by-slug"}),
    )
    .await;
    assert!(!is_error, "{text}");
    for (args, says) in [
        (serde_json::json!({}), "`name` is required"),
        (
            serde_json::json!({"name": "x", "status": "someday"}),
            "unknown status",
        ),
        (
            serde_json::json!({"name": "Broken", "repo": d.dir.path().join("nope.git")}),
            "git clone",
        ),
    ] {
        let (text, is_error) = call_tool(&mut c, &token, "create_project", args).await;
        assert!(is_error && text.contains(says), "{text}");
    }
    assert!(!meta_dir(&d, "broken").exists());

    create(&mut c, named("notes")).await.unwrap();
    let (text, is_error) = call_tool(
        &mut c,
        &token,
        "promote_project",
        serde_json::json!({"project": "notes", "repo": repo}),
    )
    .await;
    assert!(!is_error, "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["promoted"], true);
    assert!(meta_dir(&d, "notes").join("web/README.md").is_file());
    // Without `project`, the chat's own: here the root workspace, which is refused.
    let (text, is_error) = call_tool(
        &mut c,
        &token,
        "promote_project",
        serde_json::json!({"repo": repo}),
    )
    .await;
    assert!(is_error && text.contains("root workspace"), "{text}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn in_host_mode_deleting_a_project_leaves_your_terminal_history() {
    let d = TestDaemon::start_with(|c| {
        c.transcripts = paddockd::chat_links::TranscriptMode::Host;
    })
    .await;
    let mut c = d.client().await;
    let own = d.dir.path().join("host-code");
    std::fs::create_dir_all(&own).unwrap();
    let p = create(
        &mut c,
        ProjectCreate {
            path: Some(own.to_string_lossy().into_owned()),
            ..named("code")
        },
    )
    .await
    .unwrap();
    let sid = turn(&mut c, "code", None, "hello").await;
    // The transcript is in the user's own history folder, reached through the links.
    let history = d
        .cfg
        .host_claude_home
        .join("projects")
        .join(paddock_tests::cwd_encoding::encode_cwd(&p.path));
    let transcript = history.join(format!("{sid}.jsonl"));
    assert!(transcript.is_file(), "{}", transcript.display());
    // Promoting would leave that history behind: refused.
    let err = promote(&mut c, "code", "/srv/git/x.git").await.unwrap_err();
    assert!(err.message.contains("host mode"), "{}", err.message);

    let gone = delete(
        &mut c,
        ProjectDelete {
            slug: "code".into(),
            force: false,
            files: Some(ProjectFiles::Delete),
        },
    )
    .await
    .unwrap();
    assert!(
        gone.done.iter().any(|l| l.contains("host mode")),
        "{:?}",
        gone.done
    );
    assert!(!meta_dir(&d, "code").exists());
    assert!(
        !transcripts_link(&d, &p.path).is_symlink(),
        "paddock's link went"
    );
    assert!(transcript.is_file(), "the user's own history is left alone");
    assert!(own.is_dir());
    d.stop().await.unwrap();
}

/// One project per directory: a second project on a directory another uses is refused, naming
/// it (also when the path reaches it through a symlink), and nothing of the first project
/// changes; a --path whose parent does not exist is an error.
#[tokio::test]
async fn a_directory_belongs_to_one_project() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let own = d.dir.path().join("src-web");
    std::fs::create_dir_all(&own).unwrap();
    let mut web = named("web");
    web.path = Some(own.to_string_lossy().into_owned());
    create(&mut c, web).await.unwrap();
    let sid = turn(&mut c, "web", None, "hello web").await;

    let link = d.dir.path().join("web-link");
    std::os::unix::fs::symlink(&own, &link).unwrap();
    for path in [own.clone(), link] {
        let mut web2 = named("web2");
        web2.path = Some(path.to_string_lossy().into_owned());
        let e = create(&mut c, web2).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument, "{e:?}");
        assert!(e.message.contains("project web"), "{}", e.message);
    }
    assert!(
        projects(&mut c).await.iter().all(|p| p.slug != "web2"),
        "nothing was made"
    );
    assert!(
        chats(&mut c, "web")
            .await
            .iter()
            .any(|x| x.session_id == sid),
        "web keeps its chats"
    );

    let mut lost = named("lost");
    lost.path = Some(
        d.dir
            .path()
            .join("no/such/parent/x")
            .to_string_lossy()
            .into_owned(),
    );
    let e = create(&mut c, lost).await.unwrap_err();
    assert!(
        e.message.contains("parent folder does not exist"),
        "{}",
        e.message
    );
    assert!(!d.dir.path().join("no").exists(), "nothing was made for it");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn temp_files_a_crash_left_in_a_project_folder_are_removed_at_start() {
    let data = tempfile::tempdir().unwrap();
    let d = TestDaemon::start_with(on_data_dir(data.path())).await;
    let mut c = d.client().await;
    create(&mut c, named("demo")).await.unwrap();
    drop(c);
    d.stop().await.unwrap();

    // A writer that died (a child that has exited) and one still alive (init).
    let mut dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    let folder = data.path().join("projects").join("demo");
    let stale = [
        folder.join(format!(".project.toml.tmp-{dead_pid}-0")),
        folder.join(format!(".OVERVIEW.md.tmp-{dead_pid}-3")),
    ];
    let live = folder.join(".project.toml.tmp-1-0");
    let users = folder.join(".notes.md.tmp-x");
    for f in stale.iter().chain([&live, &users]) {
        std::fs::write(f, "partial").unwrap();
    }

    let d = TestDaemon::start_with(on_data_dir(data.path())).await;
    let mut c = d.client().await;
    let _ = projects(&mut c).await;
    paddock_tests::wait::wait_until("the stale temp files are removed", DEADLINE, || {
        stale.iter().all(|f| !f.exists()).then_some(())
    })
    .await
    .unwrap();
    assert!(live.exists(), "a live writer's temp file stays");
    assert!(
        users.exists(),
        "a file that is not a temp file of ours stays"
    );
    d.stop().await.unwrap();
}

/// A daemon on `data` with project `web` on a directory of the user's own, `<home>/src-web`
/// (outside paddockd's data folder), and a client.
async fn daemon_with_web_on_own_dir(data: &Path, home: &Path) -> (TestDaemon, RawClient) {
    let own = home.join("src-web");
    std::fs::create_dir_all(&own).unwrap();
    let d = TestDaemon::start_with(on_data_dir(data)).await;
    let mut c = d.client().await;
    let mut web = named("web");
    web.path = Some(own.to_string_lossy().into_owned());
    create(&mut c, web).await.unwrap();
    (d, c)
}

/// Two projects on one directory from before `project:create` refused it (or a
/// project.toml edited by hand): the later one is kept apart, and removing it leaves the
/// first one's chats where they are.
#[tokio::test]
async fn a_second_project_on_a_directory_never_takes_the_first_ones_chats() {
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (d, mut c) = daemon_with_web_on_own_dir(data.path(), home.path()).await;
    let own = home.path().join("src-web");
    let first = turn(&mut c, "web", None, "hello web").await;
    drop(c);
    d.stop().await.unwrap();

    // web2, on the same directory, made later.
    let web2 = data.path().join("projects").join("web2");
    std::fs::create_dir_all(&web2).unwrap();
    std::fs::write(
        web2.join("project.toml"),
        format!(
            "path = {:?}\ncreated_at = \"2999-01-01T00:00:00+00:00\"\n",
            own.to_string_lossy()
        ),
    )
    .unwrap();

    let d = TestDaemon::start_with(on_data_dir(data.path())).await;
    let mut c = d.client().await;
    let listed = |cs: Vec<ChatSummary>| cs.into_iter().map(|x| x.session_id).collect::<Vec<_>>();
    assert_eq!(listed(chats(&mut c, "web").await), vec![first.clone()]);
    assert!(
        chats(&mut c, "web2").await.is_empty(),
        "web2 shows none of web's chats"
    );
    let listed_web2 = projects(&mut c)
        .await
        .into_iter()
        .find(|p| p.slug == "web2");
    assert_eq!(
        listed_web2.and_then(|p| p.shadowed_by).as_deref(),
        Some("web")
    );
    let refused = c
        .request(Request::ChatSend(paddock_proto::ChatSend {
            project_slug: "web2".into(),
            session_id: None,
            message: "hello web2".into(),
            model: None,
            preload_context: false,
            attachments: Vec::new(),
            isolation: None,
        }))
        .await
        .unwrap_err();
    assert!(
        refused.message.contains("project web's directory"),
        "{}",
        refused.message
    );

    delete(
        &mut c,
        ProjectDelete {
            slug: "web2".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(listed(chats(&mut c, "web").await), vec![first.clone()]);
    let second = turn(&mut c, "web", None, "hello again").await;
    let mut now = listed(chats(&mut c, "web").await);
    now.sort();
    let mut want = vec![first.clone(), second.clone()];
    want.sort();
    assert_eq!(now, want, "web's new chats are listed at once");
    drop(c);
    d.stop().await.unwrap();

    let d = TestDaemon::start_with(on_data_dir(data.path())).await;
    let mut c = d.client().await;
    let mut after = listed(chats(&mut c, "web").await);
    after.sort();
    assert_eq!(after, want, "and after a restart");
    d.stop().await.unwrap();
}
