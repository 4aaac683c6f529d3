//! File provenance with the fake `claude`: the steps the daemon derives from a turn's tool
//! calls (a `run` in the script puts the tool's effect on disk for real), the statuses against
//! the bytes on disk, inferred writes from Bash, and the lineage of a read-then-write chain.

use std::path::Path;
use std::time::Duration;

use paddock_proto::{
    ChatEvent, ErrorBody, ErrorCode, FileEdge, FileStatus, Provenance, ProvenanceFile, Reply,
    Request,
};

use crate::harness::*;

async fn provenance(
    c: &mut RawClient,
    slug: Option<&str>,
    path: &str,
) -> Result<Provenance, ErrorBody> {
    c.request(Request::ProvenanceFile(ProvenanceFile {
        project_slug: slug.map(str::to_owned),
        path: path.into(),
    }))
    .await
    .map(|r| match r {
        Reply::Provenance(p) => *p,
        other => panic!("expected provenance, got {other:?}"),
    })
}

/// Asks until `done` holds: the recorder writes steps a moment after the frames.
async fn provenance_until(
    c: &mut RawClient,
    slug: &str,
    path: &str,
    done: impl Fn(&Provenance) -> bool,
) -> Provenance {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let last = provenance(c, Some(slug), path).await;
        if let Ok(p) = &last
            && done(p)
        {
            return p.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "provenance of {path} never as expected: {last:#?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Runs one scripted turn (in a new chat, or `session`'s) to its end; returns the session.
async fn turn(c: &mut RawClient, slug: &str, session: Option<&str>, script: &str) -> String {
    let sent = c.send_turn(slug, session, script).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "turn failed: {frames:#?}");
    assert!(
        frames
            .iter()
            .any(|f| matches!(f.event, ChatEvent::ToolCall(_))),
        "no tool call in {frames:#?}"
    );
    sent.session_id
}

fn write_step(file: &Path, content: &str) -> String {
    serde_json::json!({
        "tool": "Write",
        "input": {"file_path": file, "content": content},
        "output": "File created successfully",
        "run": format!("printf %s '{content}' > '{}'", file.display()),
    })
    .to_string()
}

/// A Bash step that runs `command` for real, late enough for the recorder's baseline scan.
fn bash_step(command: &str) -> String {
    serde_json::json!({
        "tool": "Bash",
        "input": {"command": command},
        "output": "",
        "delay_ms": 400,
        "run": command,
    })
    .to_string()
}

fn read_step(file: &Path) -> String {
    serde_json::json!({
        "tool": "Read",
        "input": {"file_path": file},
        "output": "1\tcontents",
    })
    .to_string()
}

/// Project `web` in a folder of its own, where a chat's turn wrote `notes.txt`: the folder,
/// the file and the chat.
async fn wrote_notes(
    d: &TestDaemon,
    c: &mut RawClient,
) -> (std::path::PathBuf, std::path::PathBuf, String) {
    let dir = d.dir.path().join("src-web");
    std::fs::create_dir_all(&dir).unwrap();
    create_project(c, "web", &dir).await;
    let file = dir.join("notes.txt");
    let script = format!(
        "fake:[{},{{\"text\":\"written\"}}]",
        write_step(&file, "hello")
    );
    let session = turn(c, "web", None, &script).await;
    (dir, file, session)
}

#[tokio::test]
async fn a_write_is_observed_and_current_then_stale_once_the_file_changes() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let (dir, file, session) = wrote_notes(&d, &mut c).await;

    let p = provenance_until(&mut c, "web", "notes.txt", |p| {
        p.producers.first().is_some_and(|s| s.title.is_some())
    })
    .await;
    assert_eq!(p.project_slug, "web");
    assert_eq!(p.path, "notes.txt");
    assert_eq!(p.status, FileStatus::Current, "{p:#?}");
    assert_eq!(p.producers.len(), 1);
    let w = &p.producers[0];
    assert_eq!(w.session_id, session);
    assert_eq!((w.tool.as_str(), w.edge), ("Write", FileEdge::Observed));
    assert_eq!(w.hash, p.current_hash);
    assert!(w.step_id.ends_with(":1"), "{}", w.step_id);
    // The reply names the chat by its whole title (a chat row cuts a long one).
    let Reply::Chats(chats) = c
        .request(Request::ChatList(paddock_proto::ChatList {
            project_slug: Some("web".into()),
            scope: Default::default(),
            since: None,
            full_titles: true,
        }))
        .await
        .unwrap()
    else {
        panic!("not chats")
    };
    let title = &chats
        .chats
        .iter()
        .find(|r| r.session_id == session)
        .unwrap()
        .title;
    assert_eq!(w.title.as_deref(), Some(title.as_str()));
    // The steps file is where the document says.
    let steps = d
        .cfg
        .data_dir
        .join("projects/web/.paddock/provenance")
        .join(&session)
        .join("steps.jsonl");
    let steps_file = if steps.exists() {
        steps
    } else {
        dir.join(".paddock/provenance")
            .join(&session)
            .join("steps.jsonl")
    };
    assert!(
        steps_file.exists(),
        "no steps file at {}",
        steps_file.display()
    );

    // Someone changes the file: its bytes no longer are what the chat wrote.
    std::fs::write(&file, "changed by hand").unwrap();
    let p = provenance(&mut c, Some("web"), "notes.txt").await.unwrap();
    assert_eq!(p.status, FileStatus::Stale, "{p:#?}");
    assert_ne!(p.current_hash, p.producers[0].hash);
    // An absolute path finds its project by itself.
    let p = provenance(&mut c, None, &file.to_string_lossy())
        .await
        .unwrap();
    assert_eq!(
        (p.project_slug.as_str(), p.path.as_str()),
        ("web", "notes.txt")
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_bash_write_is_inferred_and_a_read_then_write_chain_has_a_lineage() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let dir = d.dir.path().join("src-data");
    std::fs::create_dir_all(&dir).unwrap();
    create_project(&mut c, "data", &dir).await;
    // A file the user made: no step produced it.
    std::fs::write(dir.join("input.csv"), "b\na\n").unwrap();
    let script = format!(
        "fake:[{},{},{},{{\"text\":\"done\"}}]",
        read_step(&dir.join("input.csv")),
        bash_step("sort input.csv > sorted.csv"),
        write_step(&dir.join("summary.md"), "two rows"),
    );
    let session = turn(&mut c, "data", None, &script).await;

    // Bash: an inferred write, found by the before/after scan, hashed; its command line's
    // existing file is an inferred input.
    let sorted = provenance_until(&mut c, "data", "sorted.csv", |p| !p.producers.is_empty()).await;
    let w = &sorted.producers[0];
    assert_eq!(
        (w.tool.as_str(), w.edge, w.change.as_str()),
        ("Bash", FileEdge::Inferred, "created")
    );
    assert_eq!(w.session_id, session);
    assert_eq!(sorted.status, FileStatus::Current, "{sorted:#?}");
    assert!(
        sorted.lineage.nodes[0]
            .inputs
            .contains(&"input.csv".to_owned())
    );

    // The chat read input.csv, then wrote summary.md: the lineage goes back to it, and stops
    // there, since the user made it.
    let summary = provenance_until(&mut c, "data", "summary.md", |p| !p.producers.is_empty()).await;
    assert_eq!(summary.status, FileStatus::Current);
    let nodes = &summary.lineage.nodes;
    assert_eq!(nodes[0].path, "summary.md");
    assert_eq!(nodes[0].producer.as_ref().unwrap().tool, "Write");
    assert!(
        nodes[0].inputs.contains(&"input.csv".to_owned()),
        "{nodes:#?}"
    );
    let input = nodes.iter().find(|n| n.path == "input.csv").unwrap();
    assert!(input.missing_origin);
    assert_eq!(input.hops, 1);
    assert!(!input.changed_since_use, "{input:#?}");
    assert!(!summary.lineage.truncated);

    // The user edits the input afterwards: summary.md was made from something no longer there.
    std::fs::write(
        dir.join("input.csv"),
        "c
b
a
",
    )
    .unwrap();
    let again = provenance(&mut c, Some("data"), "summary.md")
        .await
        .unwrap();
    let input = again
        .lineage
        .nodes
        .iter()
        .find(|n| n.path == "input.csv")
        .unwrap();
    assert!(input.changed_since_use, "{again:#?}");
    assert_eq!(
        again.status,
        FileStatus::Current,
        "summary.md itself did not change"
    );
    assert!(
        again.notes.iter().any(|n| n.contains("changed since")),
        "{:?}",
        again.notes
    );

    // input.csv itself: read, never written.
    let p = provenance(&mut c, Some("data"), "input.csv").await.unwrap();
    assert_eq!(p.status, FileStatus::Unverified);
    assert!(p.producers.is_empty());
    assert!(
        p.readers
            .iter()
            .any(|r| r.tool == "Read" && r.edge == FileEdge::Observed)
    );
    d.stop().await.unwrap();
}

#[tokio::test]
async fn unknown_files_and_paths_outside_the_project_are_refused() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let dir = d.dir.path().join("src-x");
    std::fs::create_dir_all(&dir).unwrap();
    create_project(&mut c, "x", &dir).await;
    let err = provenance(&mut c, Some("x"), "nope.txt").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let err = provenance(&mut c, Some("x"), "/etc/hostname")
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    let err = provenance(&mut c, None, "relative.txt").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    // A file the user made, with no record: unverified, a missing origin.
    std::fs::write(dir.join("mine.txt"), "by hand").unwrap();
    let p = provenance(&mut c, Some("x"), "mine.txt").await.unwrap();
    assert_eq!(p.status, FileStatus::Unverified);
    assert!(p.lineage.nodes[0].missing_origin);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn a_tree_over_twenty_thousand_files_is_too_large_to_scan_and_the_reply_says_so() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let dir = d.dir.path().join("src-big");
    for i in 0..=20_000 {
        let sub = dir.join(format!("d{}", i / 1000));
        if i % 1000 == 0 {
            std::fs::create_dir_all(&sub).unwrap();
        }
        std::fs::File::create(sub.join(format!("f{i}"))).unwrap();
    }
    create_project(&mut c, "big", &dir).await;
    turn(
        &mut c,
        "big",
        None,
        &format!("fake:[{}]", bash_step("echo made > made.txt")),
    )
    .await;
    let p = provenance_until(&mut c, "big", "made.txt", |p| !p.notes.is_empty()).await;
    assert!(
        p.producers.is_empty(),
        "no attribution without a scan: {p:#?}"
    );
    assert_eq!(p.status, FileStatus::Unverified);
    assert!(
        p.notes.iter().any(|n| n.contains("sandbox-too-large")),
        "{:?}",
        p.notes
    );
    d.stop().await.unwrap();
}

/// The real Claude Code CLI against the Messages API stand-in: its Write really writes, its
/// Bash really runs (each allowed in the approvals inbox), and the steps say so.
#[tokio::test]
async fn real_cli_writes_are_recorded_observed_and_bash_inferred() {
    use paddock_tests::mock_api::MockApi;
    let api = MockApi::start().await.unwrap();
    let bin = paddock_tests::real_claude::find_claude_bin().unwrap_or_else(|e| panic!("{e}"));
    let base = api.base_url();
    let d = TestDaemon::start_with(move |c| {
        c.claude_bin = bin;
        c.claude_max_retries = 1;
        c.claude_env = [
            ("ANTHROPIC_BASE_URL", base.as_str()),
            ("ANTHROPIC_API_KEY", "dummy"),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("DISABLE_TELEMETRY", "1"),
            ("DISABLE_ERROR_REPORTING", "1"),
            ("NO_COLOR", "1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        c.interrupt_grace = Duration::from_secs(15);
    })
    .await;
    let mut c = d.client().await;
    let workspace = d.cfg.data_dir.join("workspace/work");
    let notes = workspace.join("notes.md");
    let write = format!(
        "mock:tool Write {}",
        serde_json::json!({"file_path": notes, "content": "# Notes\n"})
    );
    let bash = r#"mock:tool Bash {"command":"echo built > build.log","description":"build"}"#;
    for script in [write.as_str(), bash] {
        let sent = c.send_turn("", None, script).await;
        let approval = tokio::time::timeout(Duration::from_secs(60), async {
            loop {
                let Reply::Approvals(a) = c.request(Request::ApprovalList).await.unwrap() else {
                    panic!("not approvals")
                };
                if let Some(first) = a.approvals.into_iter().next() {
                    return first;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await
        .expect("the real CLI's can_use_tool waits in the inbox");
        c.request(Request::ApprovalAnswer(paddock_proto::ApprovalAnswer {
            ids: vec![approval.id],
            decision: paddock_proto::ApprovalDecision::Allow,
            message: None,
        }))
        .await
        .unwrap();
        let frames = c.frames_until_complete(&sent.session_id).await;
        assert!(complete_of(&frames).success, "{frames:#?}");
    }
    assert!(notes.exists(), "the real Write wrote");
    let p = provenance_until(&mut c, "", "notes.md", |p| !p.producers.is_empty()).await;
    assert_eq!(p.status, FileStatus::Current, "{p:#?}");
    assert_eq!(
        (p.producers[0].tool.as_str(), p.producers[0].edge),
        ("Write", FileEdge::Observed)
    );
    let p = provenance_until(&mut c, "", "build.log", |p| !p.producers.is_empty()).await;
    assert_eq!(
        (p.producers[0].tool.as_str(), p.producers[0].edge),
        ("Bash", FileEdge::Inferred)
    );
    assert_eq!(p.status, FileStatus::Current);
    std::fs::write(&notes, "edited by hand").unwrap();
    let p = provenance(&mut c, Some(""), "notes.md").await.unwrap();
    assert_eq!(p.status, FileStatus::Stale);
    d.stop().await.unwrap();
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=Paddock Test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn sha256_of(path: &Path) -> String {
    paddockd::provenance::identity::hash_file(path, u64::MAX)
        .hash()
        .expect("hashed")
        .to_owned()
}

#[tokio::test]
async fn steps_name_their_environment_and_an_install_recaptures_it() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let dir = d.dir.path().join("src-rs");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Cargo.lock"), "version = 4\n").unwrap();
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "Cargo.lock"]);
    git(&dir, &["commit", "-q", "-m", "init"]);
    let head = git(&dir, &["rev-parse", "HEAD"]);
    let lock_before = sha256_of(&dir.join("Cargo.lock"));
    create_project(&mut c, "rs", &dir).await;

    // Write, then an install-shaped Bash step (its `run` changes the lockfile), then Write.
    let install = serde_json::json!({
        "tool": "Bash",
        "input": {"command": "cargo add serde"},
        "output": "",
        "delay_ms": 400,
        "run": "printf '[[package]]\\n' >> Cargo.lock",
    })
    .to_string();
    turn(
        &mut c,
        "rs",
        None,
        &format!(
            "fake:[{},{install},{},{{\"text\":\"done\"}}]",
            write_step(&dir.join("before.txt"), "one"),
            write_step(&dir.join("after.txt"), "two"),
        ),
    )
    .await;
    let lock_after = sha256_of(&dir.join("Cargo.lock"));
    assert_ne!(lock_before, lock_after);

    let before = provenance_until(&mut c, "rs", "before.txt", |p| {
        p.producers.first().is_some_and(|s| s.environment.is_some())
    })
    .await;
    let env_hash = before.producers[0].environment.clone().unwrap();
    assert_eq!(before.environments.len(), 1, "{before:#?}");
    let env = &before.environments[0];
    assert_eq!(env.hash, env_hash);
    assert_eq!(env.git_head.as_deref(), Some(head.as_str()));
    assert_eq!(
        env.lockfiles.get("Cargo.lock").map(String::as_str),
        Some(lock_before.as_str())
    );
    assert!(!env.os.is_empty());
    // Stored content-addressed under the project's metadata folder.
    let stored = [
        d.cfg.data_dir.join("projects/rs/.paddock/environments"),
        dir.join(".paddock/environments"),
    ]
    .into_iter()
    .map(|p| p.join(format!("{env_hash}.json")))
    .find(|p| p.exists())
    .expect("the environment file exists");
    let text = std::fs::read_to_string(&stored).unwrap();
    assert!(
        text.contains(&lock_before) && text.contains(&head),
        "{text}"
    );

    // The step after the install runs in a new environment, with the new lockfile.
    // (The recorder may also blame the Bash step for after.txt: its after-scan can run once
    // the next Write is on disk. The Write's own step is the one that matters here.)
    let after = provenance_until(&mut c, "rs", "after.txt", |p| {
        p.producers.first().is_some_and(|s| s.tool == "Write")
    })
    .await;
    let new_hash = after.producers[0].environment.clone().unwrap();
    let steps_text = std::fs::read_dir(
        stored
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .join("provenance"),
    )
    .unwrap()
    .flatten()
    .map(|e| std::fs::read_to_string(e.path().join("steps.jsonl")).unwrap_or_default())
    .collect::<String>();
    assert_ne!(new_hash, env_hash, "{steps_text}");
    let new_env = after
        .environments
        .iter()
        .find(|e| e.hash == new_hash)
        .expect("the new environment is in the reply");
    assert_eq!(
        new_env.lockfiles.get("Cargo.lock").map(String::as_str),
        Some(lock_after.as_str())
    );
    assert_eq!(new_env.git_head.as_deref(), Some(head.as_str()));
}

/// The folder of a session's transcript (where its `subagents/` folder goes).
fn transcript_folder(claude_home: &Path, session: &str) -> std::path::PathBuf {
    let name = format!("{session}.jsonl");
    std::fs::read_dir(claude_home.join("projects"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join(&name).is_file())
        .unwrap_or_else(|| panic!("no transcript of {session} under {}", claude_home.display()))
}

#[tokio::test]
async fn a_finished_subagents_writes_are_harvested_with_its_name_and_model() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let dir = d.dir.path().join("src-agents");
    std::fs::create_dir_all(&dir).unwrap();
    create_project(&mut c, "agents", &dir).await;
    std::fs::write(dir.join("README.md"), "read me").unwrap();
    let session = turn(
        &mut c,
        "agents",
        None,
        &format!(
            "fake:[{},{{\"text\":\"read\"}}]",
            read_step(&dir.join("README.md"))
        ),
    )
    .await;

    // What the CLI leaves behind when an Agent call's subagent finishes (docs/claude-cli.md §6,
    // §12): its transcript and meta file in the session's subagents folder. It wrote
    // report.md; the Agent step below really creates that file, so the lead's scan sees it.
    // The files are staged aside and appear while the Agent call runs, as with the CLI: put
    // there before, the first turn's end (recorded a moment later) could harvest them.
    let subagents = transcript_folder(&d.cfg.claude_home, &session)
        .join(&session)
        .join("subagents");
    let staged = d.dir.path().join("staged-subagents");
    std::fs::create_dir_all(&staged).unwrap();
    let report = dir.join("report.md");
    std::fs::write(
        staged.join("agent-a77.meta.json"),
        serde_json::json!({"agentType": "general-purpose", "description": "Write the report",
            "toolUseId": "toolu_agent", "spawnDepth": 1, "model": "claude-haiku-4-5",
            "finished": true})
        .to_string(),
    )
    .unwrap();
    let lines = [
        serde_json::json!({"type": "user", "isSidechain": true, "agentId": "a77",
            "timestamp": "2026-11-29T10:00:00.000Z",
            "message": {"role": "user", "content": "Write the report"}}),
        serde_json::json!({"type": "assistant", "isSidechain": true, "agentId": "a77",
            "timestamp": "2026-11-29T10:00:01.000Z",
            "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_sub1",
                "name": "Write", "input": {"file_path": report, "content": "the report"}}]}}),
        serde_json::json!({"type": "user", "isSidechain": true, "agentId": "a77",
            "timestamp": "2026-11-29T10:00:02.000Z",
            "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": "toolu_sub1", "content": "File created successfully"}]}}),
        // Its closing reply: what says the transcript is whole.
        serde_json::json!({"type": "assistant", "isSidechain": true, "agentId": "a77",
            "timestamp": "2026-11-29T10:00:03.000Z",
            "message": {"role": "assistant", "model": "claude-haiku-4-5", "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "Wrote report.md."}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(staged.join("agent-a77.jsonl"), text).unwrap();

    let agent_step = serde_json::json!({
        "tool": "Agent",
        "id": "toolu_agent",
        "input": {"description": "Write the report", "prompt": "Write report.md",
                  "subagent_type": "general-purpose"},
        "output": "[Subagent hand-back] wrote report.md",
        "delay_ms": 400,
        "run": format!(
            "mkdir -p '{sub}' && cp '{staged}'/* '{sub}/' && printf %s 'the report' > '{report}'",
            sub = subagents.display(),
            staged = staged.display(),
            report = report.display()
        ),
    });
    let again = turn(
        &mut c,
        "agents",
        Some(&session),
        &format!("fake:[{agent_step},{{\"text\":\"delegated\"}}]"),
    )
    .await;
    assert_eq!(again, session);

    let p = provenance_until(&mut c, "agents", "report.md", |p| p.producers.len() >= 2).await;
    // The lead's scan around the Agent call is the stronger evidence: current.
    assert_eq!(p.status, FileStatus::Current, "{p:#?}");
    let lead = p
        .producers
        .iter()
        .find(|s| s.tool == "Agent")
        .expect("lead step");
    assert_eq!(lead.edge, FileEdge::Inferred);
    assert!(lead.specialist.is_none());
    let sub = p
        .producers
        .iter()
        .find(|s| s.specialist.is_some())
        .expect("harvested step");
    let sp = sub.specialist.as_ref().unwrap();
    assert_eq!(
        (sp.agent_id.as_str(), sp.name.as_str()),
        ("a77", "general-purpose")
    );
    assert_eq!(sp.description.as_deref(), Some("Write the report"));
    assert_eq!(sub.model.as_deref(), Some("claude-haiku-4-5"));
    assert_eq!((sub.tool.as_str(), sub.change.as_str()), ("Write", "wrote"));
    assert_eq!(sub.edge, FileEdge::Observed);
    assert_eq!(sub.session_id, session);
    assert_eq!(
        sub.job_id, lead.job_id,
        "harvested into the turn that ran the Agent call"
    );

    // The turn's file list names the subagent's write too, and the earlier turn's read.
    let Reply::Touched(t) = c
        .request(Request::ProvenanceTouched(
            paddock_proto::ProvenanceTouched {
                project_slug: "agents".into(),
                session_id: session.clone(),
                job_id: None,
            },
        ))
        .await
        .unwrap()
    else {
        panic!("not touched")
    };
    assert_eq!(t.turns.len(), 2, "{t:#?}");
    // Each turn says what it was asked, from the run log (the Files view opened from the
    // tree has no transcript loaded to read it from).
    assert!(
        t.turns.iter().all(|turn| turn
            .prompt
            .as_deref()
            .is_some_and(|p| p.starts_with("fake:["))),
        "{t:#?}"
    );
    assert_eq!(t.turns[0].files[0].path, "README.md", "{t:#?}");
    assert_eq!(t.turns[0].files[0].role, paddock_proto::FileRole::Read);
    let wrote = &t.turns[1].files;
    assert!(
        wrote
            .iter()
            .any(|f| f.path == "report.md" && f.status == Some(FileStatus::Current)),
        "{wrote:#?}"
    );
    // Harvested once: a third turn does not record the subagent again.
    turn(
        &mut c,
        "agents",
        Some(&session),
        &format!("fake:[{},{{\"text\":\"again\"}}]", read_step(&report)),
    )
    .await;
    let p = provenance_until(&mut c, "agents", "report.md", |p| !p.readers.is_empty()).await;
    assert_eq!(
        p.producers
            .iter()
            .filter(|s| s.specialist.is_some())
            .count(),
        1
    );

    // Another project's chat is refused; an unknown chat is not found.
    let err = c
        .request(Request::ProvenanceTouched(
            paddock_proto::ProvenanceTouched {
                project_slug: String::new(),
                session_id: session.clone(),
                job_id: None,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");
    let err = c
        .request(Request::ProvenanceTouched(
            paddock_proto::ProvenanceTouched {
                project_slug: "agents".into(),
                session_id: "00000000-0000-4000-8000-000000000000".into(),
                job_id: None,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err:?}");
    d.stop().await.unwrap();
}

/// A chat moved to another project (`chat:promote`) leaves the files it wrote, and their
/// provenance, in the project it left: they still name it there, as current.
#[tokio::test]
async fn a_moved_chats_writes_keep_their_provenance_where_the_files_are() {
    let d = TestDaemon::start().await;
    let mut c = d.client().await;
    let (_, _, session) = wrote_notes(&d, &mut c).await;
    provenance_until(&mut c, "web", "notes.txt", |p| {
        p.producers.first().is_some_and(|s| s.title.is_some())
    })
    .await;
    let moved = c
        .request(Request::ChatPromote(paddock_proto::ChatPromote {
            session_id: session.clone(),
            to_project: "elsewhere".into(),
        }))
        .await;
    assert!(matches!(moved, Ok(Reply::Promoted(_))), "{moved:?}");
    let p = provenance(&mut c, Some("web"), "notes.txt").await.unwrap();
    assert_eq!(p.status, FileStatus::Current, "{p:#?}");
    assert_eq!(
        p.producers.first().map(|s| s.session_id.as_str()),
        Some(session.as_str())
    );
    // The chat's own list of files still has the write, named by the project it is in.
    let touched = c
        .request(Request::ProvenanceTouched(
            paddock_proto::ProvenanceTouched {
                project_slug: "elsewhere".into(),
                session_id: session.clone(),
                job_id: None,
            },
        ))
        .await;
    let Ok(Reply::Touched(t)) = touched else {
        panic!("{touched:?}")
    };
    let turn = t.turns.first().expect("the turn that wrote");
    assert_eq!(turn.project_slug.as_deref(), Some("web"), "{t:#?}");
    let file = &turn.files[0];
    assert_eq!(
        (file.path.as_str(), file.status),
        ("notes.txt", Some(FileStatus::Current)),
        "{t:#?}"
    );
}
