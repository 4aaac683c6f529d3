//! Conformance: paddockd driving the real Claude Code CLI against the Messages API stand-in.

use std::time::Duration;

use paddock_proto::{ChatEvent, NoticeKind, Reply, Request};
use paddock_tests::mock_api::MockApi;
use paddock_tests::real_claude::find_claude_bin;

use crate::harness::*;

pub(crate) async fn real_daemon(
    api: &MockApi,
    tune: impl FnOnce(&mut paddockd::Config),
) -> TestDaemon {
    let bin = find_claude_bin().unwrap_or_else(|e| panic!("{e}"));
    let base = api.base_url();
    TestDaemon::start_with(move |c| {
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
        tune(c);
    })
    .await
}

#[tokio::test]
async fn real_cli_streams_a_turn_and_resumes_the_chat_after_its_process_was_reaped() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| c.idle_timeout = Duration::from_millis(200)).await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, "hello").await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert_eq!(text_of(&frames), "echo: hello");
    let deltas = frames
        .iter()
        .filter(|f| matches!(f.event, ChatEvent::Response(_)))
        .count();
    assert!(deltas >= 2, "the reply streamed in pieces ({deltas})");
    let done = complete_of(&frames);
    assert!(done.success);
    assert!(done.usage.as_ref().is_some_and(|u| u.output_tokens > 0));
    assert!(done.model.is_some());

    // Once the idle process is reaped, the next turn resumes the chat with its history.
    let transcript = paddockd::transcripts::find_session_file(&d.cfg.claude_home, &sent.session_id)
        .expect("the CLI wrote the transcript under the daemon's Claude home");
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let Reply::Status(s) = c.request(Request::DaemonStatus).await.unwrap() else {
            panic!()
        };
        if s.live_processes == 0 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "idle process never reaped"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let again = c.send_turn("", Some(&sent.session_id), "second").await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert_eq!(text_of(&frames), "echo: second");
    let last = api.message_requests().pop().expect("a request");
    assert!(
        last.body.to_string().contains("echo: hello"),
        "the resumed request carries the earlier turn"
    );
    let text = std::fs::read_to_string(&transcript).unwrap();
    assert!(text.contains("echo: second"), "same transcript file");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn real_cli_tool_call_is_streamed_as_start_and_result() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| c.allowed_tools = vec!["Bash".into()]).await;
    let mut c = d.client().await;
    let sent = c
        .send_turn(
            "",
            None,
            r#"mock:tool Bash {"command":"echo all-good","description":"Print all-good"}"#,
        )
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    let names: Vec<&str> = frames.iter().map(|f| f.event.name()).collect();
    let start = names
        .iter()
        .position(|n| *n == "chat:tool_start")
        .expect("tool_start");
    let call = names
        .iter()
        .position(|n| *n == "chat:tool_call")
        .expect("tool_call");
    assert!(start < call);
    let ChatEvent::ToolCall(t) = &frames[call].event else {
        unreachable!()
    };
    assert_eq!(t.name, "Bash");
    assert!(t.output.contains("all-good"), "{}", t.output);
    assert!(!t.is_error);
    assert!(text_of(&frames).contains("all-good"));
    assert!(complete_of(&frames).success);
    d.stop().await.unwrap();
}

#[tokio::test]
async fn real_cli_interrupt_ends_the_turn_and_keeps_the_chat() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, "mock:slow 40").await;
    loop {
        if let paddock_proto::ServerMessage::Frame(f) = c.next().await
            && matches!(f.event, ChatEvent::Response(_))
        {
            break;
        }
    }
    let reply = c
        .request(Request::ChatCancel(paddock_proto::ChatCancel {
            session_id: sent.session_id.clone(),
            job_id: None,
        }))
        .await
        .unwrap();
    assert_eq!(
        reply,
        Reply::Cancelled(paddock_proto::Cancelled { was_running: true })
    );
    let frames = c.frames_until_complete(&sent.session_id).await;
    let done = complete_of(&frames);
    assert!(!done.success);
    assert_eq!(done.terminal_reason.as_deref(), Some("aborted_streaming"));
    let again = c.send_turn("", Some(&sent.session_id), "after").await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert_eq!(text_of(&frames), "echo: after");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn real_cli_api_error_surfaces_as_a_notice() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| c.claude_max_retries = 0).await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, "mock:error 500").await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(
        frames
            .iter()
            .any(|f| matches!(&f.event, ChatEvent::Notice(n) if n.kind == NoticeKind::ApiError && n.message.contains("500"))),
        "{frames:#?}"
    );
    let done = complete_of(&frames);
    assert!(!done.success);
    assert!(done.error.as_deref().is_some_and(|e| e.contains("500")));
    d.stop().await.unwrap();
}

/// The chat list and the transcript are derived from what the real CLI wrote: the index reads
/// its transcript (through the project's `.chats` link), the title is the prompt, the model and
/// usage come from its assistant records, and `show` renders both turns with the uuid the daemon
/// sent the user message with.
#[tokio::test]
async fn real_cli_chats_are_indexed_and_rendered_from_its_transcript() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    let prompt = "index me\nwith a second line";
    let sent = c.send_turn("", None, prompt).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success);
    let user_id = frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::User(u) => u.message_id.clone(),
            _ => None,
        })
        .expect("chat:user carries the message id");

    // Read your writes: once `chat:complete` has been delivered, the list has the whole turn
    // (no waiting for the watcher; 2.1.197 writes the reply only after its `result`).
    let Reply::Chats(list) = c
        .request(Request::ChatList(paddock_proto::ChatList {
            project_slug: Some(String::new()),
            scope: paddock_proto::ChatScope::All,
            since: None,
            full_titles: false,
        }))
        .await
        .unwrap()
    else {
        panic!("not chats")
    };
    let chat = list
        .chats
        .into_iter()
        .find(|x| x.session_id == sent.session_id)
        .expect("the chat is listed as soon as its turn completed");
    assert!(
        chat.message_count >= 2,
        "the whole turn is indexed: {chat:?}"
    );
    assert_eq!(chat.title, prompt, "the untruncated first prompt");
    assert_eq!(chat.origin, paddock_proto::Origin::Human);
    assert!(chat.model.as_deref().is_some_and(|m| !m.is_empty()));
    let usage = chat.usage.expect("usage from the assistant record");
    assert!(usage.output_tokens > 0 && usage.context_limit > 0);

    let Reply::Transcript(t) = c
        .request(Request::ChatTranscript(paddock_proto::SessionRef {
            session_id: sent.session_id.clone(),
        }))
        .await
        .unwrap()
    else {
        panic!("not a transcript")
    };
    let user = t
        .entries
        .iter()
        .find_map(|e| match e {
            paddock_proto::TranscriptEntry::User { uuid, text, .. } => Some((uuid, text)),
            _ => None,
        })
        .expect("the user turn");
    assert_eq!(user.1, prompt);
    assert_eq!(
        user.0.as_deref(),
        Some(user_id.as_str()),
        "the CLI keeps the uuid the daemon sent, so injections can be matched exactly"
    );
    assert!(t.entries.iter().any(|e| matches!(
        e,
        paddock_proto::TranscriptEntry::Assistant { text, .. } if text.contains("echo: index me")
    )));
    d.stop().await.unwrap();
}

/// `target/<profile>/paddockd`, beside this test's executable (built by `cargo xtask test`).
pub(crate) fn paddockd_bin() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .and_then(std::path::Path::parent)
        .unwrap()
        .join("paddockd");
    assert!(
        path.exists(),
        "{} is not built; run the tests with `cargo xtask test`",
        path.display()
    );
    path
}

/// The issue's conformance scenario, all through the real CLI and the real MCP bridge: a
/// scripted model reply calls `create_chat`; the child appears spawned, depth 1, nested under
/// its parent; the child's own scripted reply calls `send_message`, whose report lands in the
/// parent with "sent by" attribution and streams live to an attached client.
#[tokio::test]
async fn real_cli_spawns_a_child_through_mcp_and_the_report_back_streams_live() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| c.mcp_bin = Some(paddockd_bin())).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "hello").await;
    let parent = first.session_id.clone();
    assert!(complete_of(&c.frames_until_complete(&parent).await).success);

    let mut watcher = d.client().await;
    watcher
        .request(Request::ChatSubscribe(paddock_proto::ChatSubscribe {
            session_id: parent.clone(),
            want_replay: false,
            last_seq: None,
        }))
        .await
        .unwrap();

    let report = serde_json::json!({"sessionId": parent, "message": "report: child done"});
    let child_prompt = format!("mock:tool mcp__paddock_manage__send_message {report}");
    let spawn = serde_json::json!({"prompt": child_prompt});
    let turn = c
        .send_turn(
            "",
            Some(&parent),
            &format!("mock:tool mcp__paddock_manage__create_chat {spawn}"),
        )
        .await;
    let frames = c.frames_until_complete(&turn.session_id).await;
    let result = frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::ToolCall(t) => Some(t.clone()),
            _ => None,
        })
        .expect("the create_chat call completed");
    assert!(!result.is_error, "create_chat failed: {result:?}");

    // The report arrives in the parent, attributed to the child, live.
    let injected = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if let paddock_proto::ServerMessage::Frame(f) = watcher.next().await
                && let ChatEvent::User(u) = f.event
                && u.text == "report: child done"
            {
                return u;
            }
        }
    })
    .await
    .expect("the child's report streams into the parent");
    let Some(paddock_proto::Attribution::Sent {
        from_session_id: child,
        ..
    }) = injected.attribution
    else {
        panic!("no sent-by attribution: {injected:?}")
    };

    // The child: spawned, depth 1, drawn under its parent.
    let row = tokio::time::timeout(DEADLINE, async {
        loop {
            let Reply::Chats(list) = c
                .request(Request::ChatList(paddock_proto::ChatList {
                    project_slug: Some(String::new()),
                    scope: paddock_proto::ChatScope::All,
                    since: None,
                    full_titles: false,
                }))
                .await
                .unwrap()
            else {
                panic!("not chats")
            };
            if let Some(row) = list.chats.into_iter().find(|x| x.session_id == child) {
                return row;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the child is listed");
    assert_eq!(row.origin, paddock_proto::Origin::Spawned);
    assert_eq!(row.depth, 1);
    assert_eq!(row.tree_parent.as_deref(), Some(parent.as_str()));
    assert_eq!(row.level, 1);
    d.stop().await.unwrap();
}

/// The pid of the `claude` process running `session` (its argv names the session).
fn claude_pid_for(session: &str) -> Option<i32> {
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: i32 = e.file_name().to_str()?.parse().ok()?;
        let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let names_session = args.contains(&session.as_bytes());
        let is_claude = args.contains(&b"stream-json".as_slice());
        (names_session && is_claude).then_some(pid)
    })
}

/// SIGKILL of the real `claude` mid-turn: the turn ends interrupted with `chat:killed_task`,
/// the chat row says so, and `chat:continue` resumes it with the real CLI.
#[tokio::test]
async fn real_cli_killed_mid_turn_is_interrupted_and_continues() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "hello").await;
    let sid = first.session_id.clone();
    c.frames_until_complete(&sid).await;

    c.send_turn("", Some(&sid), "mock:slow 40").await;
    // The first delta: the turn is under way.
    tokio::time::timeout(DEADLINE, async {
        loop {
            if let paddock_proto::ServerMessage::Frame(f) = c.next().await
                && matches!(f.event, ChatEvent::Response(_))
            {
                return;
            }
        }
    })
    .await
    .expect("the slow reply starts");
    let pid = claude_pid_for(&sid).expect("the claude process of the chat");
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid).expect("a pid"),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    let frames = c.frames_until_complete(&sid).await;
    assert!(!complete_of(&frames).success);
    tokio::time::timeout(DEADLINE, async {
        loop {
            if let paddock_proto::ServerMessage::Frame(f) = c.next().await
                && matches!(f.event, ChatEvent::KilledTask(_))
            {
                return;
            }
        }
    })
    .await
    .expect("chat:killed_task");

    let id = c
        .send(Request::ChatContinue(paddock_proto::SessionRef {
            session_id: sid.clone(),
        }))
        .await;
    assert!(matches!(c.response(id).await, Ok(Reply::Sent(_))));
    let frames = c.frames_until_complete(&sid).await;
    assert!(
        complete_of(&frames).success,
        "the chat resumed and answered"
    );
    assert!(
        text_of(&frames).starts_with("echo: "),
        "{}",
        text_of(&frames)
    );
    d.stop().await.unwrap();
}

/// The real CLI's `can_use_tool`, through the approvals inbox: a Bash call no rule allows
/// waits; allowed, it runs; denied, the model reads the denial.
#[tokio::test]
async fn real_cli_tool_calls_wait_in_the_inbox_for_allow_and_deny() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    for (decision, ran) in [
        (paddock_proto::ApprovalDecision::Allow, true),
        (paddock_proto::ApprovalDecision::Deny, false),
    ] {
        let sent = c
            .send_turn(
                "",
                None,
                // Not read-only (read-only commands run without asking).
                r#"mock:tool Bash {"command":"touch approved-run.flag","description":"mark it"}"#,
            )
            .await;
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
        assert_eq!(approval.tool, "Bash");
        assert_eq!(
            approval.preview.as_deref(),
            Some("$ touch approved-run.flag")
        );
        c.request(Request::ApprovalAnswer(paddock_proto::ApprovalAnswer {
            ids: vec![approval.id],
            decision,
            message: Some("denied by the test".into()),
        }))
        .await
        .unwrap();
        let frames = c.frames_until_complete(&sent.session_id).await;
        let call = frames
            .iter()
            .find_map(|f| match &f.event {
                ChatEvent::ToolCall(t) => Some(t.clone()),
                _ => None,
            })
            .expect("the tool call completed");
        let flag = d.cfg.data_dir.join("workspace/work/approved-run.flag");
        if ran {
            assert!(!call.is_error, "{call:?}");
            assert!(flag.exists(), "the allowed command ran");
            std::fs::remove_file(&flag).unwrap();
        } else {
            assert!(!flag.exists(), "the denied command did not run");
            assert!(call.is_error, "{call:?}");
            assert!(call.output.contains("denied by the test"), "{call:?}");
        }
        assert!(complete_of(&frames).success);
    }
    d.stop().await.unwrap();
}

/// Asks for a file's provenance until one of its producers is a harvested subagent step.
async fn harvested_provenance(c: &mut RawClient, path: &str) -> paddock_proto::Provenance {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let reply = c
            .request(Request::ProvenanceFile(paddock_proto::ProvenanceFile {
                project_slug: Some(String::new()),
                path: path.into(),
            }))
            .await;
        if let Ok(Reply::Provenance(p)) = &reply
            && p.producers.iter().any(|s| s.specialist.is_some())
        {
            return (**p).clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the subagent's write to {path} was never harvested: {reply:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The real CLI's Agent tool: the subagent's Write never reaches the chat's stream, so the
/// daemon harvests it from the subagent's transcript — when the Agent call returns for a
/// foreground subagent, and by its periodic pass for a background one (the CLI's default),
/// which finishes after the turn's result.
#[tokio::test]
async fn real_cli_subagent_writes_are_harvested_with_the_subagents_name_and_model() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| {
        c.allowed_tools = vec!["Agent".into(), "Write".into()];
    })
    .await;
    let mut c = d.client().await;
    let workspace = d.cfg.data_dir.join("workspace/work");
    let delegate = |file: &std::path::Path, background: bool| {
        let sub_prompt = format!(
            "mock:tool Write {}",
            serde_json::json!({"file_path": file, "content": "from the subagent\n"})
        );
        format!(
            "mock:tool Agent {}",
            serde_json::json!({"description": "Write the notes", "prompt": sub_prompt,
                               "subagent_type": "general-purpose",
                               "run_in_background": background})
        )
    };

    // Foreground: the lead's scan around the Agent call sees the file appear.
    let fore = workspace.join("foreground.md");
    let sent = c.send_turn("", None, &delegate(&fore, false)).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    assert!(fore.exists(), "the subagent's Write wrote: {frames:#?}");
    let p = harvested_provenance(&mut c, "foreground.md").await;
    let sub = p.producers.iter().find(|s| s.specialist.is_some()).unwrap();
    let sp = sub.specialist.as_ref().unwrap();
    assert_eq!(sp.name, "general-purpose", "{p:#?}");
    assert_eq!(sp.description.as_deref(), Some("Write the notes"));
    assert!(sp.model.is_some(), "the meta file names the model: {p:#?}");
    assert_eq!((sub.tool.as_str(), sub.change.as_str()), ("Write", "wrote"));
    assert_eq!(sub.session_id, sent.session_id);
    let lead = p
        .producers
        .iter()
        .find(|s| s.tool == "Agent" && s.specialist.is_none())
        .unwrap_or_else(|| panic!("the lead's scan: {p:#?}"));
    assert_eq!(sub.job_id, lead.job_id);
    assert_eq!(p.status, paddock_proto::FileStatus::Current, "{p:#?}");

    // Background: the turn ends at once; the subagent finishes later and is harvested into
    // the turn that launched it.
    let back = workspace.join("background.md");
    let sent2 = c
        .send_turn("", Some(&sent.session_id), &delegate(&back, true))
        .await;
    let frames = c.frames_until_complete(&sent2.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    let p = harvested_provenance(&mut c, "background.md").await;
    let sub = p.producers.iter().find(|s| s.specialist.is_some()).unwrap();
    assert_eq!(sub.job_id, sent2.job_id, "{p:#?}");
    assert_eq!(sub.edge, paddock_proto::FileEdge::Observed);
    d.stop().await.unwrap();
}

/// Batch mode with the real CLI: the process ends with its turn; the next turn is a new
/// process that resumes the session by id and sends the history.
#[tokio::test]
async fn real_cli_batch_mode_runs_a_process_per_turn_and_resumes() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| c.drive_mode = paddockd::config::DriveMode::Batch).await;
    let mut c = d.client().await;
    let sent = c.send_turn("", None, "hello").await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert_eq!(text_of(&frames), "echo: hello");
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let Reply::Status(s) = c.request(Request::DaemonStatus).await.unwrap() else {
            panic!("not a status")
        };
        if s.live_processes == 0 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the batch process outlived its turn"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let again = c.send_turn("", Some(&sent.session_id), "second").await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert_eq!(text_of(&frames), "echo: second");
    let last = api.message_requests().pop().expect("a request");
    assert!(
        last.body.to_string().contains("echo: hello"),
        "the resumed request carries the earlier turn"
    );
    d.stop().await.unwrap();
}

/// The user's own MCP server (from their Claude configuration) reaches the real CLI of a
/// project's chat, and its tool is allowed without asking.
#[tokio::test]
async fn real_cli_gets_the_users_own_mcp_server_and_may_use_its_tool() {
    let api = MockApi::start().await.unwrap();
    let user_config = serde_json::json!({
        "mcpServers": {"echo": {"type": "stdio", "command": env!("CARGO_BIN_EXE_fake-mcp")}},
    });
    let d = real_daemon(&api, move |c| {
        c.user_mcp = paddockd::user_mcp::UserMcp::from_value(&user_config);
    })
    .await;
    let mut c = d.client().await;
    let sent = c
        .send_turn("", None, r#"mock:tool mcp__echo__ping {"text":"hi"}"#)
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    let call = frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::ToolCall(t) => Some(t.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no tool call: {frames:#?}"));
    assert_eq!(call.name, "mcp__echo__ping");
    assert!(!call.is_error, "{call:#?}");
    assert!(call.output.contains("pong: hi"), "{call:#?}");
    assert!(
        text_of(&frames).contains("tool said: pong: hi"),
        "{frames:#?}"
    );
    let Reply::Approvals(a) = c.request(Request::ApprovalList).await.unwrap() else {
        panic!("not approvals")
    };
    assert!(a.approvals.is_empty(), "allowed, never asked: {a:#?}");
    d.stop().await.unwrap();
}

/// An attached image reaches the model as an image block (base64), the way the Messages API
/// takes it; the message text carries the attachment block.
#[tokio::test]
async fn real_cli_sends_an_attached_image_as_an_image_block() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    // A real 1x1 PNG: the CLI may look at what it sends.
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
    let reply = c
        .request(Request::ChatSend(paddock_proto::ChatSend {
            project_slug: String::new(),
            session_id: None,
            message: "What is in the picture?".into(),
            model: None,
            preload_context: false,
            attachments: vec![paddock_proto::AttachmentUpload {
                name: "dot.png".into(),
                path: None,
                data: Some(PNG.into()),
            }],
            isolation: None,
        }))
        .await
        .unwrap();
    let Reply::Sent(sent) = reply else {
        panic!("not sent: {reply:?}")
    };
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    let request = api.message_requests().pop().expect("a request to the API");
    let body = request.body.to_string();
    assert!(
        body.contains("\"type\":\"image\""),
        "no image block: {body:.2000}"
    );
    assert!(body.contains("image/png"), "{body:.2000}");
    assert!(body.contains("<paddock-attachments>"), "{body:.2000}");
    assert!(body.contains("What is in the picture?"), "{body:.2000}");
    d.stop().await.unwrap();
}

/// A chat started with preloaded context: the real CLI sends the wrapped prompt to the model,
/// and the chat's title (read from the CLI's transcript) is the request alone.
#[tokio::test]
async fn real_cli_preloaded_context_reaches_the_model_and_the_title_is_the_request() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    c.request(Request::ProjectCreate(paddock_proto::ProjectCreate {
        slug: "web".into(),
        path: None,
        ..Default::default()
    }))
    .await
    .unwrap();
    let meta = d.cfg.data_dir.join("projects/web");
    std::fs::write(meta.join("OVERVIEW.md"), "# Web\nPostgres, not SQLite.\n").unwrap();
    std::fs::write(
        meta.join("CHANGELOG.md"),
        "# Changelog\n- Moved to Postgres.\n",
    )
    .unwrap();
    let reply = c
        .request(Request::ChatSend(paddock_proto::ChatSend {
            project_slug: "web".into(),
            session_id: None,
            message: "Add an index on users.email".into(),
            model: None,
            preload_context: true,
            attachments: Vec::new(),
            isolation: None,
        }))
        .await
        .unwrap();
    let Reply::Sent(sent) = reply else {
        panic!("not sent: {reply:?}")
    };
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    let body = api
        .message_requests()
        .pop()
        .expect("a request")
        .body
        .to_string();
    assert!(
        body.contains("<project-context>\\n# Web\\nPostgres, not SQLite.\\n\\n# Changelog\\n- Moved to Postgres.\\n</project-context>\\n\\nMy request:\\nAdd an index on users.email"),
        "{body:.3000}"
    );
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let Reply::Chats(chats) = c
            .request(Request::ChatList(paddock_proto::ChatList {
                project_slug: Some("web".into()),
                scope: Default::default(),
                since: None,
                full_titles: false,
            }))
            .await
            .unwrap()
        else {
            panic!("not chats")
        };
        if chats
            .chats
            .iter()
            .any(|r| r.session_id == sent.session_id && r.title == "Add an index on users.email")
        {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{:#?}", chats.chats);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    d.stop().await.unwrap();
}

/// `daemon status` counts people's clients and agents' tool bridges apart: a chat's claude
/// connects its paddock tools' bridge, which is not a person (17 "clients" with one TUI open).
#[tokio::test]
async fn real_cli_status_counts_agents_tool_bridges_apart_from_clients() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| c.mcp_bin = Some(paddockd_bin())).await;
    let mut c = d.client().await;
    let first = c.send_turn("", None, "hello").await;
    c.frames_until_complete(&first.session_id).await;
    let deadline = tokio::time::Instant::now() + DEADLINE;
    let status = loop {
        let Reply::Status(s) = c.request(Request::DaemonStatus).await.unwrap() else {
            panic!("not a status")
        };
        if s.agent_clients > 0 {
            break s;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no tool bridge was counted: {s:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status.clients, 1, "this test's client alone: {status:?}");
    d.stop().await.unwrap();
}
