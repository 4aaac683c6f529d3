//! Tests of the `fake-claude` test double itself, driven over stdin/stdout like paddockd does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::time::Duration;

use paddock_tests::fake_claude::release::RELEASE_ENV;
use paddock_tests::fake_claude::state::{self, STATE_DIR_ENV};
use paddock_tests::process::{CliCommand, CliProcess, Line, line_kind, user_message};
use paddock_tests::real_claude::{ClaudeHome, SessionArg, headless_command};
use paddock_tests::wait::{pid_alive, wait_until};
use serde_json::{Value, json};

/// Generous: the machine may be busy compiling.
const T: Duration = Duration::from_secs(20);

fn fake_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fake-claude"))
}

fn state_dir(home: &ClaudeHome) -> PathBuf {
    home.root().join("state")
}

fn fake_cmd(home: &ClaudeHome, session: &SessionArg, extra: &[&str]) -> CliCommand {
    headless_command(&fake_bin(), home, "http://127.0.0.1:9", 1, session, extra)
        .env(STATE_DIR_ENV, state_dir(home))
}

fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn spawn(home: &ClaudeHome, session: &SessionArg, extra: &[&str]) -> CliProcess {
    fake_cmd(home, session, extra).spawn().unwrap()
}

fn script(steps: Value) -> String {
    format!("fake:{steps}")
}

/// The kinds of the JSON lines seen since index `from`.
/// Plays `text` slowly, interrupts it after its first delta, and returns the result and the
/// kinds of the lines after the interrupt (text deltas left out).
async fn interrupt_mid_text(p: &mut CliProcess, text: &str) -> (Value, Vec<String>) {
    p.send_user(&script(
        json!([{"text": text, "chunks": 20, "delay_ms": 400}]),
    ))
    .await
    .unwrap();
    p.wait_for("a first delta", T, |v| {
        v["event"]["delta"]["type"] == "text_delta"
    })
    .await
    .unwrap();
    let mark = p.seen().len();
    p.send_control("int-1", json!({"subtype": "interrupt"}))
        .await
        .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    let kinds = kinds_since(p, mark)
        .into_iter()
        .filter(|k| k != "stream_event:content_block_delta:text_delta")
        .collect();
    (result, kinds)
}

fn kinds_since(p: &CliProcess, from: usize) -> Vec<String> {
    p.seen()[from..]
        .iter()
        .map(|l| match l {
            Line::Json(v) => line_kind(v),
            Line::Raw(s) => format!("RAW {s}"),
        })
        .collect()
}

fn read_jsonl(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn default_turn_streams_an_echo_and_writes_the_transcript() {
    let home = ClaudeHome::new().unwrap();
    let sid = new_id();
    let mut p = spawn(
        &home,
        &SessionArg::New(sid.clone()),
        &["--model", "claude-test-1"],
    );
    let pid = p.pid().unwrap();

    // Nothing at all before the first message.
    assert!(
        p.next_line(Duration::from_millis(300)).await.is_err(),
        "{}",
        p.report()
    );

    let prompt_uuid = new_id();
    p.send(&user_message("hello", Some(&prompt_uuid)))
        .await
        .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    assert_eq!(
        kinds_since(&p, 0),
        [
            "command_lifecycle:queued",
            "command_lifecycle:started",
            "system/init",
            "system/status",
            "user(string)[replay]",
            "stream_event:message_start",
            "stream_event:content_block_start:text",
            "stream_event:content_block_delta:text_delta",
            "stream_event:content_block_delta:text_delta",
            "stream_event:content_block_delta:text_delta",
            "assistant(text)",
            "stream_event:content_block_stop",
            "stream_event:message_delta",
            "stream_event:message_stop",
            "result/success",
        ]
    );
    let completed = p.next_line(T).await.unwrap().unwrap();
    let completed = completed.json().unwrap();
    assert_eq!(line_kind(completed), "command_lifecycle:completed");
    assert_eq!(completed["command_uuid"], prompt_uuid.as_str());
    let lines = p.seen_json();
    assert_eq!(lines[0]["command_uuid"], prompt_uuid.as_str());
    assert_eq!(lines[3]["user_message_uuids"], json!([prompt_uuid]));
    let init = &lines[2];
    assert_eq!(init["session_id"], sid.as_str());
    assert_eq!(init["model"], "claude-test-1");
    assert_eq!(init["claude_code_version"], "2.1.332-fake");
    assert_eq!(init["cwd"], home.project_dir().to_str().unwrap());
    assert!(init["tools"].as_array().unwrap().contains(&json!("Bash")));
    assert_eq!(lines[4]["uuid"], prompt_uuid.as_str());
    let deltas: String = lines
        .iter()
        .filter_map(|l| l["event"]["delta"]["text"].as_str())
        .collect();
    assert_eq!(deltas, "echo: hello");
    let assistant = &lines[10];
    assert_eq!(assistant["message"]["content"][0]["text"], "echo: hello");

    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "echo: hello");
    assert_eq!(result["terminal_reason"], "completed");
    assert_eq!(result["stop_reason"], "end_turn");
    assert_eq!(result["num_turns"], 1);
    assert_eq!(result["result_index"], 0);
    assert_eq!(result["total_cost_usd"], 0.001);
    assert_eq!(result["session_id"], sid.as_str());
    assert_eq!(
        result["modelUsage"]["claude-test-1"]["contextWindow"],
        200_000
    );
    for key in [
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ] {
        assert!(result["usage"][key].is_u64(), "usage.{key}: {result}");
    }

    // A second turn: cumulative cost, next result index.
    p.send_user("again").await.unwrap();
    let second = p.wait_for_result(T).await.unwrap();
    assert_eq!(second["result"], "echo: again");
    assert_eq!(second["result_index"], 1);
    assert_eq!(second["total_cost_usd"], 0.002);

    p.close_stdin();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));

    // Transcript: 0600, prompt uuid kept, assistant uuid = stdout uuid, chain, last-prompt.
    let path = home.transcript_path(&sid);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let records = read_jsonl(&path);
    let chain: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "user" || r["type"] == "assistant")
        .collect();
    assert_eq!(chain.len(), 4);
    assert_eq!(chain[0]["uuid"], prompt_uuid.as_str());
    assert_eq!(chain[0]["parentUuid"], Value::Null);
    assert_eq!(chain[0]["message"]["content"], "hello");
    assert_eq!(chain[0]["entrypoint"], "sdk-cli");
    assert_eq!(chain[0]["userType"], "external");
    assert_eq!(chain[0]["promptSource"], "sdk");
    assert_eq!(chain[0]["sessionId"], sid.as_str());
    assert_eq!(chain[0]["cwd"], home.project_dir().to_str().unwrap());
    assert_eq!(chain[1]["uuid"], assistant["uuid"]);
    assert_eq!(chain[1]["parentUuid"], prompt_uuid.as_str());
    assert_eq!(chain[1]["message"]["stop_reason"], "end_turn");
    assert_eq!(chain[1]["message"]["model"], "claude-test-1");
    assert_eq!(chain[2]["parentUuid"], chain[1]["uuid"]);
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "last-prompt" && r["lastPrompt"] == "again")
    );

    // State file and stdin log.
    let st = state::read_state(&state_dir(&home), pid).unwrap();
    assert!(st.has_arg_pair("--session-id", &sid));
    assert!(st.has_arg_pair("--model", "claude-test-1"));
    assert_eq!(
        st.env["CLAUDE_CONFIG_DIR"],
        home.config_dir().to_str().unwrap()
    );
    assert_eq!(st.env["ANTHROPIC_API_KEY"], "dummy");
    assert_eq!(st.cwd, home.project_dir().to_str().unwrap());
    assert_eq!(st.session_id.as_deref(), Some(sid.as_str()));
    let stdin = state::read_stdin_log(&state_dir(&home), st.pid).unwrap();
    assert_eq!(stdin.len(), 2);
    assert!(stdin[0].contains(&prompt_uuid));
}

#[tokio::test]
async fn tool_turn_gives_a_tool_result_then_the_final_text() {
    let home = ClaudeHome::new().unwrap();
    let sid = new_id();
    let mut p = spawn(&home, &SessionArg::New(sid.clone()), &[]);
    let steps = json!([
        {"text": "Running it."},
        {"tool": "Bash", "input": {"command": "echo all-good", "description": "Print all-good"}, "output": "all-good"},
        {"text": "Bash said: all-good", "chunks": 4}
    ]);
    p.send_user(&script(steps)).await.unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    let kinds = kinds_since(&p, 0);
    let tool_use = kinds
        .iter()
        .position(|k| k == "assistant(tool_use)")
        .unwrap();
    assert_eq!(kinds[tool_use + 1], "stream_event:content_block_stop");
    assert_eq!(kinds[tool_use + 2], "stream_event:message_delta");
    assert_eq!(kinds[tool_use + 3], "stream_event:message_stop");
    assert_eq!(kinds[tool_use + 4], "user(tool_result)");
    assert_eq!(kinds[tool_use + 5], "system/status");
    assert_eq!(kinds[tool_use + 6], "stream_event:message_start");

    let lines = p.seen_json();
    let assistant = lines
        .iter()
        .find(|l| line_kind(l) == "assistant(tool_use)")
        .unwrap();
    let block = &assistant["message"]["content"][0];
    assert_eq!(block["name"], "Bash");
    assert_eq!(block["input"]["command"], "echo all-good");
    let partial_json: String = lines
        .iter()
        .filter_map(|l| l["event"]["delta"]["partial_json"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&partial_json).unwrap(),
        block["input"]
    );
    let stop = lines
        .iter()
        .find(|l| l["event"]["delta"]["stop_reason"] == "tool_use");
    assert!(stop.is_some());
    let tool_result = lines
        .iter()
        .find(|l| line_kind(l) == "user(tool_result)")
        .unwrap();
    let content = &tool_result["message"]["content"][0];
    assert_eq!(content["tool_use_id"], block["id"]);
    assert_eq!(content["content"], "all-good");
    assert_eq!(content["is_error"], false);
    assert_eq!(tool_result["tool_use_result"]["stdout"], "all-good");
    // Both assistant lines of the first API message share its id.
    let first = lines
        .iter()
        .find(|l| line_kind(l) == "assistant(text)")
        .unwrap();
    assert_eq!(first["message"]["id"], assistant["message"]["id"]);

    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "Bash said: all-good");
    assert_eq!(result["num_turns"], 2);

    p.close_stdin();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
    let records = read_jsonl(&home.transcript_path(&sid));
    let tool_record = records
        .iter()
        .find(|r| r["type"] == "user" && r["toolUseResult"].is_object())
        .unwrap();
    assert_eq!(tool_record["uuid"], tool_result["uuid"]);
    assert_eq!(tool_record["sourceToolAssistantUUID"], assistant["uuid"]);
}

#[tokio::test]
async fn interrupt_mid_hang_aborts_the_turn_and_the_process_lives_on() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    p.send_user(&script(
        json!([{"text": "thinking out loud", "chunks": 1}, {"hang": true}]),
    ))
    .await
    .unwrap();
    p.wait_for("the end of the text block", T, |v| {
        v["event"]["type"] == "content_block_stop"
    })
    .await
    .unwrap();
    let mark = p.seen().len();
    p.send_control("int-1", json!({"subtype": "interrupt"}))
        .await
        .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    assert_eq!(
        kinds_since(&p, mark),
        [
            "control_response/success",
            "user(text)",
            "stream_event:message_delta",
            "stream_event:message_stop",
            "result/error_during_execution",
        ]
    );
    let lines = p.seen_json();
    let reply = lines
        .iter()
        .find(|l| l["type"] == "control_response")
        .unwrap();
    assert_eq!(reply["response"]["request_id"], "int-1");
    assert_eq!(reply["response"]["response"], json!({"still_queued": []}));
    let marker = lines
        .iter()
        .rev()
        .find(|l| line_kind(l) == "user(text)")
        .unwrap();
    assert_eq!(
        marker["message"]["content"][0]["text"],
        "[Request interrupted by user]"
    );
    let stop = lines
        .iter()
        .rev()
        .find(|l| l["event"]["type"] == "message_stop")
        .unwrap();
    assert_eq!(stop["abandoned_blocks"]["from_block_index"], 1);
    assert_eq!(result["is_error"], true);
    assert_eq!(result["terminal_reason"], "aborted_streaming");
    assert!(result.get("result").is_none());

    // Still alive: the next message runs normally; an idle interrupt only gets its reply.
    p.send_user("after").await.unwrap();
    let after = p.wait_for_result(T).await.unwrap();
    assert_eq!(after["result"], "echo: after");
    assert_eq!(after["result_index"], 1);
    let mark = p.seen().len();
    p.send_control("int-2", json!({"subtype": "interrupt"}))
        .await
        .unwrap();
    p.send_user("third").await.unwrap();
    p.wait_for_result(T).await.unwrap();
    let kinds = kinds_since(&p, mark);
    assert_eq!(kinds[0], "control_response/success");
    assert_eq!(kinds[1], "system/init");
    p.close_stdin();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
}

#[tokio::test]
async fn interrupt_reports_still_queued_prompts_which_then_run() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    let (first, second) = (new_id(), new_id());
    let slow = script(json!([{"text": "working", "chunks": 1}, {"hang": true}]));
    p.send(&user_message(&slow, Some(&first))).await.unwrap();
    p.wait_for("the first turn's text", T, |v| {
        line_kind(v) == "assistant(text)"
    })
    .await
    .unwrap();
    p.send(&user_message("next", Some(&second))).await.unwrap();
    p.wait_for("the second prompt queued", T, |v| {
        line_kind(v) == "command_lifecycle:queued" && v["command_uuid"] == second.as_str()
    })
    .await
    .unwrap();
    p.send_control("int-q", json!({"subtype": "interrupt"}))
        .await
        .unwrap();
    let reply = p
        .wait_for("the interrupt reply", T, |v| {
            v["type"] == "control_response"
        })
        .await
        .unwrap();
    assert_eq!(
        reply["response"]["response"]["still_queued"],
        json!([second])
    );
    let aborted = p.wait_for_result(T).await.unwrap();
    assert_eq!(aborted["terminal_reason"], "aborted_streaming");
    let cancelled = p
        .wait_for("the first prompt cancelled", T, |v| {
            v["type"] == "command_lifecycle"
        })
        .await
        .unwrap();
    assert_eq!(line_kind(&cancelled), "command_lifecycle:cancelled");
    assert_eq!(cancelled["command_uuid"], first.as_str());
    let next = p.wait_for_result(T).await.unwrap();
    assert_eq!(next["result"], "echo: next");
    let done = p
        .wait_for("the second prompt completed", T, |v| {
            v["type"] == "command_lifecycle"
        })
        .await
        .unwrap();
    assert_eq!(line_kind(&done), "command_lifecycle:completed");
    assert_eq!(done["command_uuid"], second.as_str());
    p.close_stdin();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
}

#[tokio::test]
async fn interrupt_mid_stream_keeps_the_partial_text() {
    let home = ClaudeHome::new().unwrap();
    let sid = new_id();
    let mut p = spawn(&home, &SessionArg::New(sid.clone()), &[]);
    let text = "Once upon a time there was a test";
    let (result, kinds) = interrupt_mid_text(&mut p, text).await;
    assert_eq!(
        kinds,
        [
            "control_response/success",
            "assistant(text)",
            "user(text)",
            "stream_event:content_block_stop",
            "stream_event:message_delta",
            "stream_event:message_stop",
            "result/error_during_execution",
        ]
    );
    let lines = p.seen_json();
    let partial = lines
        .iter()
        .find(|l| line_kind(l) == "assistant(text)")
        .unwrap();
    let partial_text = partial["message"]["content"][0]["text"].as_str().unwrap();
    assert!(!partial_text.is_empty() && text.starts_with(partial_text) && partial_text != text);
    assert_eq!(result["terminal_reason"], "aborted_streaming");
    p.close_stdin();
    // The last result was an error: exit 1.
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(1));
    let records = read_jsonl(&home.transcript_path(&sid));
    let aborted = records.iter().find(|r| r["type"] == "assistant").unwrap();
    assert_eq!(aborted["isAbortedMidStream"], true);
    assert_eq!(aborted["message"]["content"][0]["text"], partial_text);
    assert!(records.iter().any(|r| r["type"] == "user"
        && r["message"]["content"][0]["text"] == "[Request interrupted by user]"));
}

#[tokio::test]
async fn interrupt_during_a_tool_is_aborted_tools() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    p.send_user(&script(
        json!([{"tool": "Bash", "input": {"command": "sleep 6"}, "hang": true}]),
    ))
    .await
    .unwrap();
    p.wait_for("the tool use", T, |v| line_kind(v) == "assistant(tool_use)")
        .await
        .unwrap();
    p.wait_for("the message stop", T, |v| {
        v["event"]["type"] == "message_stop"
    })
    .await
    .unwrap();
    let mark = p.seen().len();
    p.send_control("int-9", json!({"subtype": "interrupt"}))
        .await
        .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    assert_eq!(
        kinds_since(&p, mark),
        [
            "control_response/success",
            "user(tool_result)",
            "user(text)",
            "result/error_during_execution",
        ]
    );
    let lines = p.seen_json();
    let tr = lines
        .iter()
        .find(|l| line_kind(l) == "user(tool_result)")
        .unwrap();
    assert_eq!(tr["message"]["content"][0]["is_error"], true);
    assert_eq!(tr["tool_use_result"], "User rejected tool use");
    let marker = lines
        .iter()
        .rev()
        .find(|l| line_kind(l) == "user(text)")
        .unwrap();
    assert_eq!(
        marker["message"]["content"][0]["text"],
        "[Request interrupted by user for tool use]"
    );
    assert_eq!(result["terminal_reason"], "aborted_tools");
    assert_eq!(result["stop_reason"], "tool_use");
    p.kill().await.unwrap();
}

#[tokio::test]
async fn garbage_step_prints_a_raw_line_and_goes_on() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    p.send_user(&script(
        json!([{"garbage": "this is {not json"}, {"stderr": "to stderr"}, {"text": "after"}]),
    ))
    .await
    .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    assert!(p.seen().contains(&Line::Raw("this is {not json".into())));
    assert_eq!(result["result"], "after");
    p.close_stdin();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
    assert!(p.stderr().contains("to stderr"));
}

#[tokio::test]
async fn crash_step_exits_with_its_code_and_no_result() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    p.send_user(&script(json!([{"text": "bye"}, {"crash": 7}])))
        .await
        .unwrap();
    let rest = p.read_to_end(T).await.unwrap();
    assert!(
        rest.iter()
            .all(|l| l.json().is_none_or(|v| v["type"] != "result"))
    );
    assert!(
        p.seen_json()
            .iter()
            .any(|v| line_kind(v) == "assistant(text)")
    );
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(7));
}

#[tokio::test]
async fn resume_appends_to_the_same_transcript() {
    let home = ClaudeHome::new().unwrap();
    let sid = new_id();
    let mut first = spawn(&home, &SessionArg::New(sid.clone()), &[]);
    first.send_user("first message").await.unwrap();
    first.wait_for_result(T).await.unwrap();
    first.close_stdin();
    assert_eq!(first.wait_exit(T).await.unwrap().code(), Some(0));
    let path = home.transcript_path(&sid);
    let before = read_jsonl(&path);
    let last_chain_uuid = before
        .iter()
        .rev()
        .find(|r| r["type"] == "assistant")
        .unwrap()["uuid"]
        .clone();

    // Reusing the id as a new session is refused.
    let mut reuse = spawn(&home, &SessionArg::New(sid.clone()), &[]);
    assert_eq!(reuse.wait_exit(T).await.unwrap().code(), Some(1));
    assert!(reuse.read_to_end(T).await.unwrap().is_empty());
    assert!(
        reuse
            .stderr()
            .contains(&format!("Error: Session ID {sid} is already in use."))
    );

    let mut second = spawn(&home, &SessionArg::Resume(sid.clone()), &[]);
    second.send_user("second message").await.unwrap();
    let result = second.wait_for_result(T).await.unwrap();
    assert_eq!(result["session_id"], sid.as_str());
    assert_eq!(second.seen_json()[0]["session_id"], sid.as_str());
    second.close_stdin();
    assert_eq!(second.wait_exit(T).await.unwrap().code(), Some(0));

    let after = read_jsonl(&path);
    assert_eq!(after[..before.len()], before[..]);
    let resumed_prompt = after[before.len()..]
        .iter()
        .find(|r| r["type"] == "user")
        .unwrap();
    assert_eq!(resumed_prompt["message"]["content"], "second message");
    assert_eq!(resumed_prompt["parentUuid"], last_chain_uuid);
    // Only one transcript file exists.
    let files: Vec<_> = std::fs::read_dir(home.transcript_dir()).unwrap().collect();
    assert_eq!(files.len(), 1);
}

#[tokio::test]
async fn resume_of_an_unknown_session_fails_at_once() {
    let home = ClaudeHome::new().unwrap();
    let sid = new_id();
    let mut p = spawn(&home, &SessionArg::Resume(sid.clone()), &[]);
    let lines = p.read_to_end(T).await.unwrap();
    assert_eq!(lines.len(), 1);
    let result = lines[0].json().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["is_error"], true);
    let message = format!("No conversation found with session ID: {sid}");
    assert_eq!(result["errors"], json!([message]));
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(1));
    assert!(p.stderr().contains(&message));
}

#[tokio::test]
async fn invalid_session_id_is_a_usage_error() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New("not-a-uuid".into()), &[]);
    assert!(p.read_to_end(T).await.unwrap().is_empty());
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(1));
    assert!(
        p.stderr()
            .contains("Error: Invalid session ID. Must be a valid UUID.")
    );
    assert!(!home.transcript_dir().exists());
}

#[tokio::test]
async fn a_non_json_stdin_line_kills_it() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    // Blank lines, unknown types and non-object JSON are ignored.
    p.send_raw("").await.unwrap();
    p.send(&json!({"type": "bogus"})).await.unwrap();
    p.send_raw("[1,2]").await.unwrap();
    p.send_raw("hello there").await.unwrap();
    assert!(p.read_to_end(T).await.unwrap().is_empty());
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(1));
    let stderr = p.stderr();
    assert!(
        stderr.contains("Error parsing streaming input line"),
        "{stderr}"
    );
    assert!(stderr.contains("SyntaxError"), "{stderr}");
}

async fn run_permission_turn(allow: bool) -> (CliProcess, Value, Value) {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    let input = json!({"command": "rm -rf build", "description": "Remove the build dir"});
    p.send_user(&script(json!([
        {"tool": "Bash", "input": input, "output": "removed", "ask": true},
        {"text": "done"}
    ])))
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
    assert_eq!(r["subtype"], "can_use_tool");
    assert_eq!(r["tool_name"], "Bash");
    assert_eq!(r["display_name"], "Bash");
    assert_eq!(r["input"], input);
    assert_eq!(r["description"], "Remove the build dir");
    assert_eq!(r["tool_use_id"], tool_use["message"]["content"][0]["id"]);
    assert!(uuid::Uuid::parse_str(request["request_id"].as_str().unwrap()).is_ok());

    p.answer_permission(&request, allow, "operator said no")
        .await
        .unwrap();
    // --replay-user-messages echoes the answer, like the real CLI.
    let echo = p
        .wait_for("the echoed answer", T, |v| v["type"] == "control_response")
        .await
        .unwrap();
    assert_eq!(echo["response"]["request_id"], request["request_id"]);
    let tool_result = p
        .wait_for("the tool result", T, |v| {
            line_kind(v) == "user(tool_result)"
        })
        .await
        .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "done");
    p.close_stdin();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
    drop(home);
    (p, tool_result, result)
}

#[tokio::test]
async fn can_use_tool_allow_runs_the_tool() {
    let (_p, tool_result, result) = run_permission_turn(true).await;
    let content = &tool_result["message"]["content"][0];
    assert_eq!(content["content"], "removed");
    assert_eq!(content["is_error"], false);
    assert_eq!(result["permission_denials"], json!([]));
}

#[tokio::test]
async fn can_use_tool_deny_gives_an_error_result_and_a_denial() {
    let (_p, tool_result, result) = run_permission_turn(false).await;
    let content = &tool_result["message"]["content"][0];
    assert_eq!(content["content"], "operator said no");
    assert_eq!(content["is_error"], true);
    assert_eq!(tool_result["tool_use_result"], "Error: operator said no");
    assert_eq!(
        tool_result["tool_result_meta"][0]["non_execution_kind"],
        "permission-rule"
    );
    let denials = result["permission_denials"].as_array().unwrap();
    assert_eq!(denials.len(), 1);
    assert_eq!(denials[0]["tool_name"], "Bash");
    assert_eq!(denials[0]["tool_use_id"], content["tool_use_id"]);
    assert_eq!(denials[0]["tool_input"]["command"], "rm -rf build");
}

#[tokio::test]
async fn messages_sent_during_a_turn_are_queued() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    p.send_user(&script(json!([{"sleep_ms": 200}, {"text": "first done"}])))
        .await
        .unwrap();
    p.send_user("queued").await.unwrap();
    // EOF right away: both turns still run, then it exits 0.
    p.close_stdin();
    let first = p.wait_for_result(T).await.unwrap();
    let second = p.wait_for_result(T).await.unwrap();
    assert_eq!(first["result"], "first done");
    assert_eq!(first["result_index"], 0);
    assert_eq!(second["result"], "echo: queued");
    assert_eq!(second["result_index"], 1);
    let inits = p
        .seen_json()
        .iter()
        .filter(|v| line_kind(v) == "system/init")
        .count();
    assert_eq!(inits, 2);
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
}

#[tokio::test]
async fn api_error_ends_the_turn_and_eof_then_exits_1() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    p.send_user(&script(json!([
        {"retry": 529},
        {"api_error": 529, "message": "overloaded"},
        {"text": "never"}
    ])))
    .await
    .unwrap();
    p.close_stdin();
    let result = p.wait_for_result(T).await.unwrap();
    let lines = p.seen_json();
    let retry = lines
        .iter()
        .find(|l| line_kind(l) == "system/api_retry")
        .unwrap();
    assert_eq!(retry["error_status"], 529);
    assert_eq!(retry["attempt"], 1);
    let synthetic = lines.iter().find(|l| l["type"] == "assistant").unwrap();
    assert_eq!(synthetic["message"]["model"], "<synthetic>");
    assert_eq!(synthetic["is_api_error_message"], true);
    assert_eq!(
        synthetic["message"]["content"][0]["text"],
        "API Error: 529 overloaded"
    );
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["terminal_reason"], "api_error");
    assert_eq!(result["api_error_status"], 529);
    assert_eq!(result["result"], "API Error: 529 overloaded");
    assert!(
        !lines
            .iter()
            .any(|l| l["message"]["content"][0]["text"] == "never")
    );
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(1));
}

#[tokio::test]
async fn control_requests_unknown_subtype_and_end_session() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    p.send_control("r-bogus", json!({"subtype": "no_such_thing"}))
        .await
        .unwrap();
    let err = p
        .wait_for("an error reply", T, |v| v["type"] == "control_response")
        .await
        .unwrap();
    assert_eq!(err["response"]["subtype"], "error");
    assert_eq!(err["response"]["request_id"], "r-bogus");
    assert_eq!(
        err["response"]["error"],
        "Unsupported control request subtype: no_such_thing"
    );
    p.send_control("r-end", json!({"subtype": "end_session"}))
        .await
        .unwrap();
    let ok = p
        .wait_for("the end_session reply", T, |v| {
            v["type"] == "control_response"
        })
        .await
        .unwrap();
    assert_eq!(ok["response"]["subtype"], "success");
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
}

#[tokio::test]
async fn sigterm_exits_143_without_more_output() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    p.send_user(&script(
        json!([{"text": "streaming", "chunks": 1}, {"hang": true}]),
    ))
    .await
    .unwrap();
    p.wait_for("the text", T, |v| line_kind(v) == "assistant(text)")
        .await
        .unwrap();
    p.signal(rustix::process::Signal::TERM).unwrap();
    let rest = p.read_to_end(T).await.unwrap();
    assert!(
        rest.iter()
            .all(|l| l.json().is_none_or(|v| v["type"] != "result")),
        "{rest:?}"
    );
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(143));
}

#[tokio::test]
async fn child_step_stays_in_the_process_group_and_is_recorded() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    let pid = p.pid().unwrap();
    p.send_user(&script(
        json!([{"child": "sleep 600"}, {"text": "spawned"}]),
    ))
    .await
    .unwrap();
    p.wait_for_result(T).await.unwrap();
    let st = state::read_state(&state_dir(&home), pid).unwrap();
    assert_eq!(st.children.len(), 1);
    let child = st.children[0];
    assert!(pid_alive(child));
    let pgid_of =
        |pid: u32| rustix::process::getpgid(rustix::process::Pid::from_raw(pid as i32)).unwrap();
    assert_eq!(pgid_of(child), pgid_of(pid));

    // Killing fake-claude alone leaves the child; killing the child cleans up.
    p.kill().await.unwrap();
    assert!(pid_alive(child));
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child as i32).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    wait_until("the child to die", T, || (!pid_alive(child)).then_some(()))
        .await
        .unwrap();
}

#[tokio::test]
async fn sigint_interrupts_the_turn_then_exits_0() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    p.send_user(&script(json!([{"hang": true}]))).await.unwrap();
    p.wait_for("the replay", T, |v| line_kind(v) == "user(string)[replay]")
        .await
        .unwrap();
    p.signal(rustix::process::Signal::INT).unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    assert_eq!(result["terminal_reason"], "aborted_streaming");
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
}

#[tokio::test]
async fn bad_script_is_an_error_result_not_a_crash() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    p.send_user("fake:[{\"nope\":1}]").await.unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    assert_eq!(result["is_error"], true);
    assert!(
        result["errors"][0]
            .as_str()
            .unwrap()
            .contains("unknown step")
    );
    p.send_user("fine").await.unwrap();
    assert_eq!(p.wait_for_result(T).await.unwrap()["result"], "echo: fine");
    p.kill().await.unwrap();
}

#[tokio::test]
async fn stream_json_output_requires_verbose() {
    let home = ClaudeHome::new().unwrap();
    let mut p = CliCommand::new(fake_bin(), home.project_dir())
        .args([
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ])
        .env("CLAUDE_CONFIG_DIR", home.config_dir())
        .spawn()
        .unwrap();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(1));
    assert!(p.stderr().contains("requires --verbose"));
}

#[tokio::test]
async fn ask_is_skipped_for_allowed_tools_and_refused_without_a_prompt_tool() {
    let steps = json!([
        {"tool": "mcp__paddock__status", "input": {}, "output": "fine", "ask": true},
        {"text": "done"}
    ]);

    // Allowed by a prefix pattern: no prompt, the tool runs.
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(
        &home,
        &SessionArg::New(new_id()),
        &["--allowedTools", "mcp__paddock__*"],
    );
    p.send_user(&script(steps.clone())).await.unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    assert!(!p.seen_json().iter().any(|v| v["type"] == "control_request"));
    let tr = p
        .seen_json()
        .into_iter()
        .find(|l| line_kind(l) == "user(tool_result)")
        .unwrap();
    assert_eq!(
        tr["message"]["content"][0]["content"],
        json!([{"type": "text", "text": "fine"}])
    );
    assert_eq!(result["permission_denials"], json!([]));
    p.kill().await.unwrap();

    // No `--permission-prompt-tool stdio`: refused with system/permission_denied.
    let mut p = CliCommand::new(fake_bin(), home.project_dir())
        .args([
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .env("CLAUDE_CONFIG_DIR", home.config_dir())
        .spawn()
        .unwrap();
    p.send_user(&script(steps)).await.unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    let kinds: Vec<String> = p.seen_json().iter().map(line_kind).collect();
    let denied = kinds
        .iter()
        .position(|k| k == "system/permission_denied")
        .unwrap();
    assert_eq!(kinds[denied + 1], "user(tool_result)");
    assert_eq!(result["permission_denials"].as_array().unwrap().len(), 1);
    assert_eq!(result["is_error"], false);
    p.kill().await.unwrap();
}

#[tokio::test]
async fn stdin_closing_during_a_permission_prompt_fails_the_tool_and_ends() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn(&home, &SessionArg::New(new_id()), &[]);
    p.send_user(&script(json!([
        {"tool": "Bash", "input": {"command": "ls"}, "output": "x", "ask": true},
        {"text": "after"}
    ])))
    .await
    .unwrap();
    p.wait_for("can_use_tool", T, |v| v["type"] == "control_request")
        .await
        .unwrap();
    p.close_stdin();
    let tr = p
        .wait_for("the tool result", T, |v| {
            line_kind(v) == "user(tool_result)"
        })
        .await
        .unwrap();
    let content = &tr["message"]["content"][0];
    assert_eq!(content["is_error"], true);
    assert!(
        content["content"]
            .as_str()
            .unwrap()
            .contains("Tool permission stream closed before response received")
    );
    let result = p.wait_for_result(T).await.unwrap();
    assert_eq!(result["result"], "after");
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
}

// ---------------------------------------------------------------------------------------------
// FAKE_CLAUDE_RELEASE=2.1.197: the differences of docs/claude-cli.md §15, as the real 2.1.197
// prints them (tests/fixtures/claude-cli-2.1.197/ and cli_conformance).
// ---------------------------------------------------------------------------------------------

fn spawn_2_1_197(home: &ClaudeHome, session: &SessionArg, extra: &[&str]) -> CliProcess {
    fake_cmd(home, session, extra)
        .env(RELEASE_ENV, "2.1.197")
        .spawn()
        .unwrap()
}

#[tokio::test]
async fn as_2_1_197_a_turn_echoes_late_prints_no_lifecycle_and_writes_each_record_late() {
    let home = ClaudeHome::new().unwrap();
    let sid = new_id();
    let mut p = spawn_2_1_197(&home, &SessionArg::New(sid.clone()), &[]);
    let prompt_uuid = new_id();
    let input = json!({"command": "sleep 100", "description": "Wait"});
    let steps = json!([{"text": "first"}, {"tool": "Bash", "input": input, "hang": true}]);
    p.send(&user_message(&script(steps), Some(&prompt_uuid)))
        .await
        .unwrap();
    p.wait_for("the tool use", T, |v| line_kind(v) == "assistant(tool_use)")
        .await
        .unwrap();
    let first_reply = [
        "system/init",
        "system/status",
        "stream_event:message_start",
        "stream_event:content_block_start:text",
        "stream_event:content_block_delta:text_delta",
        "stream_event:content_block_delta:text_delta",
        "stream_event:content_block_delta:text_delta",
        "user(string)[replay]",
        "assistant(text)",
        "stream_event:content_block_stop",
        "stream_event:content_block_start:tool_use",
        "stream_event:content_block_delta:input_json_delta",
        "stream_event:content_block_delta:input_json_delta",
        "stream_event:content_block_delta:input_json_delta",
        "assistant(tool_use)",
    ];
    assert_eq!(kinds_since(&p, 0), first_reply, "{}", p.report());
    let lines = p.seen_json();
    assert_eq!(lines[0]["claude_code_version"], "2.1.197-fake");
    assert!(lines[0].get("capabilities").is_none());
    assert!(lines[1].get("user_message_uuids").is_none());
    assert_eq!(lines[7]["uuid"], prompt_uuid.as_str());
    let message_id = lines[2]["event"]["message"]["id"].as_str().unwrap();
    assert!(
        lines
            .iter()
            .filter(|l| l["type"] == "stream_event")
            .all(|l| l.get("api_message_id").is_none())
    );
    assert!(lines[8].get("timestamp").is_none());
    assert_eq!(lines[8]["message"]["id"], message_id);

    // The tool hangs, with no result yet: the records made so far reach the disk a little
    // later.
    let path = home.transcript_path(&sid);
    let written = wait_until("the message on disk", T, || {
        let text = std::fs::read_to_string(&path).ok()?;
        text.contains(prompt_uuid.as_str()).then_some(text)
    })
    .await
    .unwrap();
    assert!(
        !written.contains("last-prompt"),
        "the turn's end is not written before it ends: {written}"
    );
    p.send_control("int-1", json!({"subtype": "interrupt"}))
        .await
        .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    let reply = p
        .seen_json()
        .into_iter()
        .find(|l| l["type"] == "control_response")
        .unwrap();
    assert_eq!(reply["response"]["request_id"], "int-1");
    assert!(reply["response"].get("response").is_none(), "{reply}");
    assert_eq!(result["terminal_reason"], "aborted_tools");
    assert!(result.get("result_index").is_none(), "{result}");
    assert!(result.get("queued_turn_count").is_none(), "{result}");
    let tool_result = p
        .seen_json()
        .into_iter()
        .find(|l| line_kind(l) == "user(tool_result)")
        .unwrap();
    assert!(tool_result.get("tool_result_meta").is_none());
    let records = wait_until("the first turn's records", T, || {
        let records: Vec<Value> = std::fs::read_to_string(&path)
            .ok()?
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        records
            .iter()
            .any(|r| r["type"] == "last-prompt")
            .then_some(records)
    })
    .await
    .unwrap();
    assert!(records.iter().any(|r| r["uuid"] == prompt_uuid.as_str()));
    assert!(records.iter().any(|r| r["uuid"] == lines[8]["uuid"]));
    assert!(
        records
            .iter()
            .all(|r| r.get("version").is_none() || r["version"] == "2.1.197-fake")
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // A plain turn: the order the real 2.1.197 prints, nothing after the result; stdin closed
    // right after it, the process still writes the turn before it exits.
    let mark = p.seen().len();
    p.send(&user_message("hello", Some(&new_id())))
        .await
        .unwrap();
    p.wait_for_result(T).await.unwrap();
    p.close_stdin();
    p.read_to_end(T).await.unwrap();
    assert_eq!(
        kinds_since(&p, mark),
        [
            "system/init",
            "system/status",
            "stream_event:message_start",
            "stream_event:content_block_start:text",
            "stream_event:content_block_delta:text_delta",
            "stream_event:content_block_delta:text_delta",
            "stream_event:content_block_delta:text_delta",
            "user(string)[replay]",
            "assistant(text)",
            "stream_event:content_block_stop",
            "stream_event:message_delta",
            "stream_event:message_stop",
            "result/success",
        ],
        "{}",
        p.report()
    );
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(0));
    let records = read_jsonl(&path);
    assert!(
        records.iter().any(
            |r| r["type"] == "assistant" && r["message"]["content"][0]["text"] == "echo: hello"
        )
    );
}

#[tokio::test]
async fn as_2_1_197_an_interrupt_has_no_tail_and_an_api_error_no_marks() {
    let home = ClaudeHome::new().unwrap();
    let mut p = spawn_2_1_197(&home, &SessionArg::New(new_id()), &[]);
    let (result, kinds) = interrupt_mid_text(&mut p, "Once upon a time").await;
    assert_eq!(
        kinds,
        [
            "control_response/success",
            "user(string)[replay]",
            "assistant(text)",
            "user(text)",
            "result/error_during_execution",
        ]
    );
    assert_eq!(result["terminal_reason"], "aborted_streaming");

    let mark = p.seen().len();
    p.send_user(&script(json!([{"api_error": 500, "message": "mock 500"}])))
        .await
        .unwrap();
    let result = p.wait_for_result(T).await.unwrap();
    assert_eq!(
        kinds_since(&p, mark),
        [
            "system/init",
            "system/status",
            "user(string)[replay]",
            "assistant(text)",
            "result/success",
        ]
    );
    let synthetic = p
        .seen_json()
        .into_iter()
        .rfind(|l| l["type"] == "assistant")
        .unwrap();
    assert_eq!(synthetic["message"]["model"], "<synthetic>");
    assert_eq!(synthetic["error"], "server_error");
    assert!(
        synthetic.get("is_api_error_message").is_none(),
        "{synthetic}"
    );
    assert!(synthetic.get("api_error_status").is_none(), "{synthetic}");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["terminal_reason"], "completed");
    assert_eq!(result["api_error_status"], 500);
    p.close_stdin();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(1));
}

#[tokio::test]
async fn an_unknown_fake_release_is_refused() {
    let home = ClaudeHome::new().unwrap();
    let mut p = fake_cmd(&home, &SessionArg::New(new_id()), &[])
        .env(RELEASE_ENV, "2.1.250")
        .spawn()
        .unwrap();
    assert_eq!(p.wait_exit(T).await.unwrap().code(), Some(1));
    assert!(p.stderr().contains("FAKE_CLAUDE_RELEASE"), "{}", p.stderr());
}
