//! Conformance of the real Claude Code CLI (run offline against `paddock_tests::mock_api`) with
//! what docs/claude-cli.md records and what `fake-claude` imitates. No daemon involved.
//!
//! Needs the CLI: `$PADDOCK_TEST_CLAUDE_BIN`, `$HOME/.cache/paddock-tools/node_modules/.bin/claude`
//! or `claude` on PATH. Without it these tests fail and say to run `bash .ci/install-claude.sh`.
//!
//! Both supported releases pass (CI runs them with 2.1.332 and 2.1.197): where the releases
//! differ (docs/claude-cli.md §15) a test asks [`Release`] which shape to expect and checks that
//! shape exactly, and `fake-claude` runs in the mode of the real binary's release
//! (`FAKE_CLAUDE_RELEASE`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use paddock_tests::fake_claude::release::RELEASE_ENV;
use paddock_tests::mock_api::MockApi;
use paddock_tests::process::{CliProcess, line_kind, user_message};
use paddock_tests::real_claude::{
    ClaudeHome, Release, SessionArg, claude_release, find_claude_bin, headless_command,
};
use serde_json::{Value, json};

/// The CLI starts in about a second; the machine may be busy compiling.
const T: Duration = Duration::from_secs(90);

fn claude_bin() -> PathBuf {
    match find_claude_bin() {
        Ok(path) => path,
        Err(err) => panic!("{err}"),
    }
}

/// The release of the binary under test, read once from `claude --version`.
fn release() -> Release {
    static RELEASE: OnceLock<Release> = OnceLock::new();
    *RELEASE.get_or_init(|| match claude_release(&claude_bin()) {
        Ok(release) => release,
        Err(err) => panic!("{err:#}"),
    })
}

fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn start(
    program: &std::path::Path,
    home: &ClaudeHome,
    api: &MockApi,
    session: &SessionArg,
    max_retries: u32,
    extra: &[&str],
) -> CliProcess {
    // fake-claude imitates the release of the real binary under test; the CLI ignores this.
    headless_command(program, home, &api.base_url(), max_retries, session, extra)
        .env(RELEASE_ENV, release().fake_mode())
        .spawn()
        .unwrap()
}

fn lifecycle_lines(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["type"] == "command_lifecycle")
        .map(line_kind)
        .collect()
}

fn kinds(lines: &[Value]) -> Vec<String> {
    lines.iter().map(line_kind).collect()
}

fn read_jsonl(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn text_deltas(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["event"]["delta"]["type"] == "text_delta")
        .map(|l| l["event"]["delta"]["text"].as_str().unwrap().to_owned())
        .collect()
}

/// Runs one prompt (sent with a uuid) on a fresh session, closes stdin after the result and
/// returns every stdout line up to EOF.
async fn one_turn(program: &std::path::Path, prompt: &str, extra: &[&str]) -> Vec<Value> {
    let api = MockApi::start().await.unwrap();
    let home = ClaudeHome::new().unwrap();
    let mut p = start(program, &home, &api, &SessionArg::New(new_id()), 1, extra);
    p.send(&user_message(prompt, Some(&new_id())))
        .await
        .unwrap();
    p.wait_for_result(T).await.unwrap();
    close_after_result(&mut p).await;
    let status = p.wait_exit(T).await.unwrap();
    assert_eq!(status.code(), Some(0), "{}", p.report());
    p.seen_json()
}

/// After a turn's `result` (of a prompt sent with a uuid): waits for `command_lifecycle
/// completed` where the release prints it, closes stdin and reads stdout to EOF. Checks the
/// lifecycle lines: `queued`, `started`, `completed` (2.1.332) or none at all (2.1.197).
async fn close_after_result(p: &mut CliProcess) {
    if release().has_command_lifecycle() {
        p.wait_for("command_lifecycle completed", T, |v| {
            v["type"] == "command_lifecycle" && v["state"] == "completed"
        })
        .await
        .unwrap();
    }
    p.close_stdin();
    p.read_to_end(T).await.unwrap();
    let expected: &[&str] = if release().has_command_lifecycle() {
        &[
            "command_lifecycle:queued",
            "command_lifecycle:started",
            "command_lifecycle:completed",
        ]
    } else {
        &[]
    };
    assert_eq!(lifecycle_lines(&p.seen_json()), expected, "{}", p.report());
}

#[tokio::test]
async fn streamed_turn_delivers_text_deltas_and_a_successful_result() {
    let api = MockApi::start().await.unwrap();
    let home = ClaudeHome::new().unwrap();
    let sid = new_id();
    let mut p = start(
        &claude_bin(),
        &home,
        &api,
        &SessionArg::New(sid.clone()),
        1,
        &[],
    );
    let prompt_uuid = new_id();
    p.send(&paddock_tests::process::user_message(
        "hello there",
        Some(&prompt_uuid),
    ))
    .await
    .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    let lines = p.seen_json();
    let rel = release();

    // A prompt sent with a uuid gets `command_lifecycle` lines in 2.1.332: queued and started
    // before system/init, completed after the result. 2.1.197 prints none (checked to EOF
    // below).
    let first_own = if rel.has_command_lifecycle() {
        assert_eq!(
            line_kind(&lines[0]),
            "command_lifecycle:queued",
            "{}",
            p.report()
        );
        assert_eq!(line_kind(&lines[1]), "command_lifecycle:started");
        assert_eq!(lines[0]["command_uuid"], prompt_uuid.as_str());
        assert_eq!(lines[1]["command_uuid"], prompt_uuid.as_str());
        2
    } else {
        0
    };
    let init = &lines[first_own];
    assert_eq!(line_kind(init), "system/init", "{}", p.report());
    let status = &lines[first_own + 1];
    assert_eq!(line_kind(status), "system/status", "{}", p.report());
    if rel.has_user_message_uuids() {
        assert_eq!(status["user_message_uuids"], json!([prompt_uuid]));
    } else {
        assert!(status.get("user_message_uuids").is_none(), "{status}");
    }
    assert_eq!(init["session_id"], sid.as_str());
    assert_eq!(init["cwd"], home.project_dir().to_str().unwrap());
    let replays: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i]["isReplay"] == true)
        .collect();
    assert_eq!(replays.len(), 1, "one replayed prompt\n{}", p.report());
    let replay = &lines[replays[0]];
    assert_eq!(replay["uuid"], prompt_uuid.as_str());
    assert_eq!(replay["message"]["content"], "hello there");
    // Where the echo sits: before `message_start` (2.1.332), or after the reply's deltas, just
    // before its `assistant` line (2.1.197).
    let after_echo = line_kind(&lines[replays[0] + 1]);
    let before_echo = line_kind(&lines[replays[0] - 1]);
    if rel.echoes_prompt_before_message_start() {
        assert_eq!(before_echo, "system/status", "{}", p.report());
        assert_eq!(after_echo, "stream_event:message_start", "{}", p.report());
    } else {
        assert_eq!(
            before_echo,
            "stream_event:content_block_delta:text_delta",
            "{}",
            p.report()
        );
        assert_eq!(after_echo, "assistant(text)", "{}", p.report());
    }
    // The API message id: on every stream_event (2.1.332), or only in message_start's
    // `event.message.id` (2.1.197).
    let start = lines
        .iter()
        .find(|l| line_kind(l) == "stream_event:message_start")
        .unwrap();
    let message_id = start["event"]["message"]["id"].as_str().unwrap();
    for event in lines.iter().filter(|l| l["type"] == "stream_event") {
        if rel.has_api_message_id_on_stream_events() {
            assert_eq!(event["api_message_id"], message_id, "{event}");
        } else {
            assert!(event.get("api_message_id").is_none(), "{event}");
        }
    }
    let deltas = text_deltas(&lines);
    assert!(deltas.len() >= 2, "deltas: {deltas:?}");
    assert_eq!(deltas.concat(), "echo: hello there");
    let assistant = lines
        .iter()
        .find(|l| line_kind(l) == "assistant(text)")
        .unwrap();
    assert_eq!(
        assistant["message"]["content"][0]["text"],
        "echo: hello there"
    );
    assert_eq!(assistant["message"]["id"], message_id);

    assert_eq!(result["is_error"], false, "{result}");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["terminal_reason"], "completed");
    assert_eq!(result["result"], "echo: hello there");
    assert_eq!(result["session_id"], sid.as_str());
    if rel.has_result_index() {
        assert_eq!(result["result_index"], 0);
    } else {
        assert!(result.get("result_index").is_none(), "{result}");
    }

    let requests = api.message_requests();
    assert!(!requests.is_empty());
    assert_eq!(requests[0].body["stream"], true);
    assert_eq!(requests[0].header("x-api-key"), Some("dummy"));
    assert_eq!(
        requests[0].header("x-claude-code-session-id"),
        Some(sid.as_str())
    );

    close_after_result(&mut p).await;
    if rel.has_command_lifecycle() {
        let completed = p.seen_json().pop().unwrap();
        assert_eq!(line_kind(&completed), "command_lifecycle:completed");
        assert_eq!(completed["command_uuid"], prompt_uuid.as_str());
    } else {
        assert_eq!(
            line_kind(p.seen_json().last().unwrap()),
            "result/success",
            "nothing after the result\n{}",
            p.report()
        );
    }
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));

    // The transcript sits where `encode_cwd` says, mode 0600, with our prompt uuid.
    let path = home.transcript_path(&sid);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let records = read_jsonl(&path);
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "user" && r["uuid"] == prompt_uuid.as_str())
    );
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "assistant" && r["uuid"] == assistant["uuid"])
    );
}

#[tokio::test]
async fn allowed_bash_tool_call_returns_its_output_then_the_final_text() {
    let api = MockApi::start().await.unwrap();
    let home = ClaudeHome::new().unwrap();
    let mut p = start(
        &claude_bin(),
        &home,
        &api,
        &SessionArg::New(new_id()),
        1,
        &["--allowedTools", "Bash"],
    );
    p.send_user(r#"mock:tool Bash {"command": "echo all-good", "description": "Print all-good"}"#)
        .await
        .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    let lines = p.seen_json();
    let tool_use = lines
        .iter()
        .find(|l| line_kind(l) == "assistant(tool_use)")
        .unwrap_or_else(|| panic!("no tool use\n{}", p.report()));
    assert_eq!(tool_use["message"]["content"][0]["name"], "Bash");
    let tool_result = lines
        .iter()
        .find(|l| line_kind(l) == "user(tool_result)")
        .unwrap_or_else(|| panic!("no tool result\n{}", p.report()));
    let block = &tool_result["message"]["content"][0];
    assert_eq!(
        block["tool_use_id"],
        tool_use["message"]["content"][0]["id"]
    );
    assert_eq!(block["is_error"], false);
    assert_eq!(block["content"], "all-good");
    assert_eq!(tool_result["tool_use_result"]["stdout"], "all-good");
    assert!(
        !lines.iter().any(|l| l["type"] == "control_request"),
        "an allowed tool must not ask"
    );

    assert_eq!(result["is_error"], false, "{result}");
    assert_eq!(result["result"], "tool said: all-good");
    assert_eq!(result["permission_denials"], json!([]));
    let requests = api.message_requests();
    assert_eq!(requests.len(), 2, "one call for the tool, one after it");
    p.close_stdin();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
}

#[tokio::test]
async fn resume_appends_to_the_same_transcript_and_sends_the_history() {
    let api = MockApi::start().await.unwrap();
    let home = ClaudeHome::new().unwrap();
    let sid = new_id();
    let claude = claude_bin();

    let mut first = start(&claude, &home, &api, &SessionArg::New(sid.clone()), 1, &[]);
    first.send_user("first message").await.unwrap();
    let r1 = first.wait_for_result(T).await.unwrap();
    assert_eq!(r1["is_error"], false, "{r1}");
    first.close_stdin();
    assert_eq!(first.wait_exit(T).await.unwrap().code(), Some(0));
    let path = home.transcript_path(&sid);
    let before = std::fs::read_to_string(&path).unwrap();
    let first_requests = api.message_requests().len();

    let mut second = start(
        &claude,
        &home,
        &api,
        &SessionArg::Resume(sid.clone()),
        1,
        &[],
    );
    second.send_user("second message").await.unwrap();
    let r2 = second.wait_for_result(T).await.unwrap();
    assert_eq!(r2["is_error"], false, "{r2}");
    assert_eq!(r2["session_id"], sid.as_str());
    assert_eq!(r2["result"], "echo: second message");
    assert_eq!(second.seen_json()[0]["session_id"], sid.as_str());
    second.close_stdin();
    assert_eq!(second.wait_exit(T).await.unwrap().code(), Some(0));

    // Same file, old content kept as a prefix, new prompt appended.
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.len() > before.len());
    assert!(after.starts_with(&before));
    let appended: Vec<Value> = after[before.len()..]
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        appended
            .iter()
            .any(|r| r["type"] == "user" && r["message"]["content"] == "second message")
    );
    let files: Vec<_> = std::fs::read_dir(home.transcript_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");

    // The resumed request carried the earlier exchange.
    let requests = api.message_requests();
    assert!(requests.len() > first_requests);
    let history = requests.last().unwrap().body["messages"].to_string();
    assert!(history.contains("first message"), "{history}");
    assert!(history.contains("echo: first message"), "{history}");
}

/// What follows an `interrupt` mid-stream with 2.1.332 (text deltas left out). fake-claude's
/// own tests expect the same sequence.
const INTERRUPT_TAIL: &[&str] = &[
    "control_response/success",
    "assistant(text)",
    "user(text)",
    "stream_event:content_block_stop",
    "stream_event:message_delta",
    "stream_event:message_stop",
    "result/error_during_execution",
];

/// The same with 2.1.197: no stream tail, and the prompt's echo (held back until the reply's
/// first `assistant` line) right before the partial `assistant` line.
const INTERRUPT_TAIL_2_1_197: &[&str] = &[
    "control_response/success",
    "user(string)[replay]",
    "assistant(text)",
    "user(text)",
    "result/error_during_execution",
];

#[tokio::test]
async fn interrupt_mid_stream_gives_aborted_streaming_and_the_session_lives_on() {
    let api = MockApi::start().await.unwrap();
    let home = ClaudeHome::new().unwrap();
    let mut p = start(
        &claude_bin(),
        &home,
        &api,
        &SessionArg::New(new_id()),
        1,
        &[],
    );
    p.send_user("mock:slow 100").await.unwrap();
    p.wait_for("a first text delta", T, |v| {
        v["event"]["delta"]["type"] == "text_delta"
    })
    .await
    .unwrap();
    let mark = p.seen().len();
    p.send_control("int-1", json!({"subtype": "interrupt"}))
        .await
        .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    let lines = p.seen_json();
    let tail: Vec<String> = kinds(&lines[mark..])
        .into_iter()
        .filter(|k| k != "stream_event:content_block_delta:text_delta")
        .collect();
    let rel = release();
    let expected = if rel.has_stream_tail_after_interrupt() {
        INTERRUPT_TAIL
    } else {
        INTERRUPT_TAIL_2_1_197
    };
    assert_eq!(tail, expected, "{}", p.report());
    if rel.has_stream_tail_after_interrupt() {
        let stop = lines[mark..]
            .iter()
            .find(|l| line_kind(l) == "stream_event:message_stop")
            .unwrap();
        assert!(stop["abandoned_blocks"].is_object(), "{stop}");
    }
    let reply = &lines[mark..]
        .iter()
        .find(|l| l["type"] == "control_response")
        .unwrap()["response"];
    assert_eq!(reply["request_id"], "int-1");
    if rel.interrupt_reply_has_response() {
        assert_eq!(reply["response"]["still_queued"], json!([]), "{reply}");
    } else {
        assert!(reply.get("response").is_none(), "{reply}");
    }
    let marker = lines[mark..]
        .iter()
        .find(|l| line_kind(l) == "user(text)")
        .unwrap();
    assert_eq!(
        marker["message"]["content"][0]["text"],
        "[Request interrupted by user]"
    );
    let partial = lines[mark..]
        .iter()
        .find(|l| line_kind(l) == "assistant(text)")
        .unwrap();
    let partial = partial["message"]["content"][0]["text"].as_str().unwrap();
    assert!(partial.starts_with("tick1 "), "{partial}");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["terminal_reason"], "aborted_streaming");

    // The process takes the next message.
    p.send_user("after the interrupt").await.unwrap();
    let next = p.wait_for_result(T).await.unwrap();
    assert_eq!(next["is_error"], false, "{next}");
    assert_eq!(next["result"], "echo: after the interrupt");
    if rel.has_result_index() {
        assert_eq!(next["result_index"], 1);
    } else {
        assert!(next.get("result_index").is_none(), "{next}");
    }
    p.close_stdin();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
}

#[tokio::test]
async fn api_error_is_reported_with_is_error_true() {
    let api = MockApi::start().await.unwrap();
    let home = ClaudeHome::new().unwrap();
    let mut p = start(
        &claude_bin(),
        &home,
        &api,
        &SessionArg::New(new_id()),
        0,
        &[],
    );
    p.send_user("mock:error 500").await.unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    let lines = p.seen_json();
    let synthetic = lines
        .iter()
        .find(|l| l["type"] == "assistant")
        .unwrap_or_else(|| panic!("no synthetic assistant\n{}", p.report()));
    let rel = release();
    // Both releases name the error; only 2.1.332 marks the line as an API error message.
    assert_eq!(synthetic["error"], "server_error", "{synthetic}");
    if rel.marks_api_error_messages() {
        assert_eq!(synthetic["is_api_error_message"], true);
        assert_eq!(synthetic["api_error_status"], 500);
    } else {
        assert!(
            synthetic.get("is_api_error_message").is_none(),
            "{synthetic}"
        );
        assert!(synthetic.get("api_error_status").is_none(), "{synthetic}");
    }
    assert_eq!(synthetic["message"]["model"], "<synthetic>");
    let text = synthetic["message"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("API Error: 500"), "{text}");
    assert_eq!(result["is_error"], true, "{result}");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["terminal_reason"], rel.api_error_terminal_reason());
    assert_eq!(result["api_error_status"], 500);
    assert_eq!(
        api.message_requests().len(),
        1,
        "no retries with CLAUDE_CODE_MAX_RETRIES=0"
    );
    p.close_stdin();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(1));
}

/// The fake must produce the same line sequence as the real CLI for the same exchange.
#[tokio::test]
async fn fake_claude_matches_the_real_cli_line_by_line() {
    let real = claude_bin();
    let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-claude"));

    // A plain turn: the stand-in echoes in 3 deltas, the fake does the same by default.
    let real_lines = one_turn(&real, "hello", &[]).await;
    let fake_lines = one_turn(&fake, "hello", &[]).await;
    assert_eq!(kinds(&fake_lines), kinds(&real_lines));
    assert_eq!(text_deltas(&fake_lines), text_deltas(&real_lines));
    let result_of = |lines: &[Value]| {
        let result = lines.iter().rev().find(|l| l["type"] == "result").unwrap();
        result["result"].clone()
    };
    assert_eq!(result_of(&fake_lines), result_of(&real_lines));

    // A tool call.
    let input = json!({"command": "echo all-good", "description": "Print all-good"});
    let real_lines = one_turn(
        &real,
        &format!("mock:tool Bash {input}"),
        &["--allowedTools", "Bash"],
    )
    .await;
    let script = json!([
        {"tool": "Bash", "input": input, "output": "all-good"},
        {"text": "tool said: all-good"}
    ]);
    let fake_lines = one_turn(
        &fake,
        &format!("fake:{script}"),
        &["--allowedTools", "Bash"],
    )
    .await;
    assert_eq!(kinds(&fake_lines), kinds(&real_lines));
    assert_eq!(result_of(&fake_lines), result_of(&real_lines));

    // The keys paddockd reads exist on both sides; those of one release only are absent with
    // the other.
    let rel = release();
    for lines in [&real_lines, &fake_lines] {
        let result = lines.iter().rev().find(|l| l["type"] == "result").unwrap();
        for key in [
            "subtype",
            "is_error",
            "num_turns",
            "result",
            "stop_reason",
            "terminal_reason",
            "session_id",
            "duration_ms",
            "duration_api_ms",
            "total_cost_usd",
            "usage",
            "modelUsage",
            "permission_denials",
            "uuid",
        ] {
            assert!(result.get(key).is_some(), "result lacks {key}: {result}");
        }
        assert_eq!(
            result.get("result_index").is_some(),
            rel.has_result_index(),
            "{result}"
        );
        let tool_result = lines
            .iter()
            .find(|l| line_kind(l) == "user(tool_result)")
            .unwrap();
        for key in ["tool_use_result", "uuid", "session_id"] {
            assert!(tool_result.get(key).is_some(), "tool result lacks {key}");
        }
        assert_eq!(
            tool_result.get("tool_result_meta").is_some(),
            rel.has_tool_result_meta(),
            "{tool_result}"
        );
        for event in lines.iter().filter(|l| l["type"] == "stream_event") {
            assert_eq!(
                event.get("api_message_id").is_some(),
                rel.has_api_message_id_on_stream_events(),
                "{event}"
            );
        }
    }
}

/// Runs one Bash call that needs permission, answers `can_use_tool` with a deny, and returns
/// every stdout line up to EOF (stdin closed after the result).
async fn denied_tool_turn(program: &std::path::Path, prompt: &str, input: &Value) -> Vec<Value> {
    let api = MockApi::start().await.unwrap();
    let home = ClaudeHome::new().unwrap();
    let mut p = start(program, &home, &api, &SessionArg::New(new_id()), 1, &[]);
    p.send(&user_message(prompt, Some(&new_id())))
        .await
        .unwrap();
    let tool_use = p
        .wait_for("the tool use", T, |v| line_kind(v) == "assistant(tool_use)")
        .await
        .unwrap();
    let request = p
        .wait_for("can_use_tool", T, |v| v["type"] == "control_request")
        .await
        .unwrap();
    let r = &request["request"];
    assert_eq!(r["subtype"], "can_use_tool", "{request}");
    assert_eq!(r["tool_name"], "Bash");
    assert_eq!(r["display_name"], "Bash");
    assert_eq!(&r["input"], input);
    assert_eq!(r["description"], input["description"]);
    assert_eq!(r["tool_use_id"], tool_use["message"]["content"][0]["id"]);
    assert!(r["permission_suggestions"].is_array());
    assert!(uuid::Uuid::parse_str(request["request_id"].as_str().unwrap()).is_ok());
    p.answer_permission(&request, false, "operator said no")
        .await
        .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    close_after_result(&mut p).await;
    let lines = p.seen_json();
    // Where the request sits: right after the `assistant(tool_use)` line (2.1.197), or between
    // the message's `message_delta` and `message_stop` (2.1.332).
    let at = lines
        .iter()
        .position(|l| l["type"] == "control_request")
        .unwrap();
    let around = (line_kind(&lines[at - 1]), line_kind(&lines[at + 1]));
    if release().asks_before_content_block_stop() {
        assert_eq!(
            around,
            (
                "assistant(tool_use)".to_owned(),
                "stream_event:content_block_stop".to_owned()
            ),
            "{}",
            p.report()
        );
    } else {
        assert_eq!(
            around,
            (
                "stream_event:message_delta".to_owned(),
                "stream_event:message_stop".to_owned()
            ),
            "{}",
            p.report()
        );
    }
    let tool_result = lines
        .iter()
        .find(|l| line_kind(l) == "user(tool_result)")
        .unwrap();
    let block = &tool_result["message"]["content"][0];
    assert_eq!(block["content"], "operator said no");
    assert_eq!(block["is_error"], true);
    assert_eq!(tool_result["tool_use_result"], "Error: operator said no");
    if release().has_tool_result_meta() {
        assert_eq!(
            tool_result["tool_result_meta"][0]["non_execution_kind"],
            "permission-rule"
        );
    } else {
        assert!(
            tool_result.get("tool_result_meta").is_none(),
            "{tool_result}"
        );
    }
    assert_eq!(result["is_error"], false, "{result}");
    let denials = result["permission_denials"].as_array().unwrap();
    assert_eq!(denials.len(), 1, "{result}");
    assert_eq!(denials[0]["tool_name"], "Bash");
    assert_eq!(denials[0]["tool_use_id"], block["tool_use_id"]);
    assert_eq!(&denials[0]["tool_input"], input);
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
    assert!(
        !home.project_dir().join("made-by-tool").exists(),
        "a denied command must not run"
    );
    lines
}

#[tokio::test]
async fn permission_prompt_deny_real_and_fake_agree() {
    let input = json!({"command": "touch made-by-tool", "description": "Make a file"});
    let real_lines =
        denied_tool_turn(&claude_bin(), &format!("mock:tool Bash {input}"), &input).await;
    let script = json!([
        {"tool": "Bash", "input": input, "output": "unused", "ask": true},
        {"text": "tool said: operator said no"}
    ]);
    let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-claude"));
    let fake_lines = denied_tool_turn(&fake, &format!("fake:{script}"), &input).await;
    assert_eq!(kinds(&fake_lines), kinds(&real_lines));
}

/// The transcript's records of `kind`, whatever else it holds (none when it does not exist).
fn records_of(path: &std::path::Path, kind: &str) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == kind)
        .collect()
}

/// What a daemon killed mid-turn finds (docs/claude-cli.md §15, "Transcripts"): the message is on
/// disk as soon as the reply streams, in both releases; the reply is written only whole, so a
/// claude killed mid-reply leaves no `assistant` record. The fake agrees in the release's mode.
#[tokio::test]
async fn the_message_is_on_disk_while_the_reply_streams_and_a_killed_reply_is_not() {
    let api = MockApi::start().await.unwrap();
    let fake = paddock_tests::bins::bin("fake-claude");
    for (program, prompt) in [
        (claude_bin(), "mock:slow 100"),
        (
            fake,
            r#"fake:[{"text":"tick tick tick tick","chunks":40,"delay_ms":200}]"#,
        ),
    ] {
        let home = ClaudeHome::new().unwrap();
        let sid = new_id();
        let mut p = start(&program, &home, &api, &SessionArg::New(sid.clone()), 1, &[]);
        p.send_user(prompt).await.unwrap();
        p.wait_for("a first text delta", T, |v| {
            v["event"]["delta"]["type"] == "text_delta"
        })
        .await
        .unwrap();
        // Reading stdout meanwhile (20 ms at a time), so a `result` would be seen.
        let path = home.transcript_path(&sid);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while records_of(&path, "user").is_empty() {
            assert!(
                std::time::Instant::now() < deadline,
                "{}: the message never reached {}",
                program.display(),
                path.display()
            );
            let _ = p.next_line(Duration::from_millis(20)).await;
            assert!(
                !p.seen_json().iter().any(|l| l["type"] == "result"),
                "{}: the message was written only after the reply ended\n{}",
                program.display(),
                p.report()
            );
        }
        let user = &records_of(&path, "user")[0];
        assert_eq!(user["message"]["content"], prompt, "{user}");
        p.signal(rustix::process::Signal::KILL).unwrap();
        p.wait_exit(T).await.unwrap();
        assert!(
            records_of(&path, "assistant").is_empty(),
            "{}: a reply cut short is not written",
            program.display()
        );
    }
}

/// A spare (docs/claude-cli.md §15, "A process waiting for its first message"): started with
/// `--session-id` and stream-json input, the CLI prints nothing and writes no transcript before
/// the first message, answers `initialize` meanwhile, and then runs that message as the
/// session's first turn. With `CLAUDE_CODE_EAGER_FLUSH=1` (which paddockd sets), the reply's
/// `assistant` record is on disk when `result` is printed, in both releases (2.1.197 writes it
/// about 100 ms after `result` without it).
#[tokio::test]
async fn a_waiting_process_writes_nothing_and_an_eager_flush_has_the_reply_on_disk_at_result() {
    let api = MockApi::start().await.unwrap();
    let home = ClaudeHome::new().unwrap();
    let sid = new_id();
    let mut p = headless_command(
        &claude_bin(),
        &home,
        &api.base_url(),
        1,
        &SessionArg::New(sid.clone()),
        &[],
    )
    .env("CLAUDE_CODE_EAGER_FLUSH", "1")
    .spawn()
    .unwrap();
    p.send_control("spare-initialize", json!({"subtype": "initialize"}))
        .await
        .unwrap();
    let answer = p
        .wait_for("the initialize answer", T, |v| {
            v["type"] == "control_response"
        })
        .await
        .unwrap();
    assert_eq!(
        answer["response"]["request_id"], "spare-initialize",
        "{answer}"
    );
    assert_eq!(
        p.seen_json().len(),
        1,
        "nothing but the answer before the first message\n{}",
        p.report()
    );
    let path = home.transcript_path(&sid);
    assert!(
        !path.exists(),
        "no transcript before the first message: {}",
        path.display()
    );
    for prompt in ["first", "second"] {
        p.send(&user_message(prompt, Some(&new_id())))
            .await
            .unwrap();
        let result = p.wait_for_result(T).await.unwrap();
        assert_eq!(result["session_id"], sid.as_str(), "{result}");
        let reply = p
            .seen_json()
            .into_iter()
            .rev()
            .find(|l| l["type"] == "assistant")
            .unwrap();
        let uuid = reply["uuid"].as_str().unwrap().to_owned();
        assert!(
            records_of(&path, "assistant")
                .iter()
                .any(|r| r["uuid"] == uuid.as_str()),
            "{}: the reply {uuid} is on disk when `result` is printed",
            prompt
        );
    }
    p.kill().await.unwrap();
}
