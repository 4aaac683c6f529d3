//! The capture scenarios (docs/claude-cli.md §14): what each one runs and what it writes to
//! stdin. They run in this order; the `d_` ones resume the session `e_session_id` made.

use serde_json::{Value, json};

use crate::process::user_message;

/// The id `e_session_id` presets and the `d_` scenarios resume.
pub const PRESET_ID: &str = "11111111-2222-4333-8444-555555555555";
/// The id `d_fork_preset` gives its fork.
pub const FORK_PRESET_ID: &str = "22222222-3333-4444-8555-666666666666";
/// The preset id of `c_headless`.
pub const HEADLESS_ID: &str = "33333333-4444-4555-8666-777777777777";
/// An id no session has.
pub const MISSING_ID: &str = "99999999-2222-4333-8444-555555555555";

/// The Bash command of the `g_` scenarios: output on both streams and a non-zero exit.
const GREETING: &str = r#"{"command":"echo hi-from-bash; echo to-stderr >&2; exit 3","description":"Print a greeting"}"#;
/// The Bash command of the interrupt scenarios: the marker must never appear.
pub const SLEEPER: &str = r#"{"command":"sleep 6; touch SLEEP_MARKER; echo done","description":"Sleep then touch a marker"}"#;
/// The marker file [`SLEEPER`] would create in the cwd.
pub const MARKER: &str = "SLEEP_MARKER";

/// Which working directory a scenario runs in (all under the lab folder).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cwd {
    Work,
    Other,
    Emoji,
    NonAscii,
    LongPath,
    Symlink,
}

/// Which `--mcp-config` a scenario gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mcp {
    None,
    /// The stdio echo server, from a config file.
    Stdio,
    /// The same server, as an inline JSON string with `--strict-mcp-config`.
    StrictInline,
    /// The stand-in's `POST /mcp` endpoint.
    Http,
    /// A server whose command does not exist.
    Broken,
}

/// Where the CLI is told the Messages API is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Mock,
    /// A port nothing listens on.
    Refused,
}

/// Which API key the CLI gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Dummy,
    /// The key the stand-in rejects with 401.
    Invalid,
    /// No `ANTHROPIC_API_KEY` at all.
    Missing,
}

/// A count of stdout lines of some kind, to wait for.
#[derive(Debug, Clone, PartialEq)]
pub enum Until {
    /// `n` lines whose summary kind starts with this prefix have been seen (in total).
    Kind(&'static str, usize),
    /// The `control_response` to this request id.
    Response(&'static str),
}

/// One thing the recorder does while a scenario runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Send(Value),
    Wait(Until),
    /// Answers the last `can_use_tool` request: allow, or deny with "operator said no".
    Answer(bool),
    /// Lets time pass (to interrupt in the middle of a tool call).
    PauseMs(u64),
    CloseStdin,
    Signal(i32),
    /// Checks, this long after the scenario started, that [`MARKER`] was never created.
    MarkerAbsentAfterMs(u64),
}

/// One captured run of the CLI.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: &'static str,
    /// Flags after the binary (`--mcp-config` goes before them, from `mcp`). Flags with list
    /// values (`--allowedTools`) come first, so `-p` ends their list.
    pub args: Vec<String>,
    /// The prompt argument, last on the command line.
    pub prompt: Option<String>,
    pub cwd: Cwd,
    pub mcp: Mcp,
    pub api: Api,
    pub key: Key,
    pub max_retries: u32,
    /// `IS_SANDBOX=1` (root may then skip permissions, §1).
    pub sandbox: bool,
    /// What happens on stdin. Empty: stdin is closed at once and stdout read to the end.
    pub steps: Vec<Step>,
    /// Whether `NAME.timeline.txt` is written (the stdin-driven scenarios).
    pub timeline: bool,
}

impl Scenario {
    fn new(name: &'static str, args: &[&str]) -> Self {
        Self {
            name,
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            prompt: None,
            cwd: Cwd::Work,
            mcp: Mcp::None,
            api: Api::Mock,
            key: Key::Dummy,
            max_retries: 2,
            sandbox: false,
            steps: Vec::new(),
            timeline: false,
        }
    }

    fn steps(mut self, steps: Vec<Step>) -> Self {
        self.steps = steps;
        self.timeline = true;
        self
    }

    fn mcp(mut self, mcp: Mcp) -> Self {
        self.mcp = mcp;
        self
    }

    fn cwd(mut self, cwd: Cwd) -> Self {
        self.cwd = cwd;
        self
    }

    fn retries(mut self, n: u32) -> Self {
        self.max_retries = n;
        self
    }
}

fn user(text: &str) -> Step {
    Step::Send(user_message(text, None))
}

fn control(id: &'static str, request: Value) -> Step {
    Step::Send(json!({"type": "control_request", "request_id": id, "request": request}))
}

fn results(n: usize) -> Step {
    Step::Wait(Until::Kind("result", n))
}

fn kind(prefix: &'static str, n: usize) -> Step {
    Step::Wait(Until::Kind(prefix, n))
}

fn response(id: &'static str) -> Step {
    Step::Wait(Until::Response(id))
}

/// A print-mode scenario: `more` flags, then `base`, then the prompt.
fn print(name: &'static str, more: &[&str], base: &[&str], prompt: &str) -> Scenario {
    let mut s = Scenario::new(name, &[]);
    s.args = with(more, base);
    s.prompt = Some(prompt.to_owned());
    s
}

const SJ: &[&str] = &["-p", "--output-format", "stream-json", "--verbose"];
const SJ_PARTIAL: &[&str] = &[
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
];
const SJ_IN: &[&str] = &[
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
];

fn with(first: &[&str], then: &[&str]) -> Vec<String> {
    first.iter().chain(then).map(|a| (*a).to_owned()).collect()
}

fn sj(name: &'static str, more: &[&str], prompt: &str) -> Scenario {
    print(name, more, SJ, prompt)
}

fn sj_in(name: &'static str, more: &[&str], steps: Vec<Step>) -> Scenario {
    let mut s = Scenario::new(name, &[]).steps(steps);
    s.args = with(more, SJ_IN);
    s
}

const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

/// Every scenario, in recording order. `agent_tool` is the name of the subagent tool in this
/// release (`Agent`, or `Task` in older ones), read from `a_hello`'s `system/init`.
pub fn all(agent_tool: &str) -> Vec<Scenario> {
    let slow = "mock:slow 29";
    let story_deltas = || kind("stream_event/text_delta", 3);
    let agent = |prompt: &str, description: &str, background: bool| {
        format!(
            "mock:tool {agent_tool} {}",
            json!({"description": description, "prompt": prompt,
                   "subagent_type": "general-purpose", "run_in_background": background})
        )
    };
    let mut list = vec![
        // a: a plain turn in the three output formats.
        sj("a_hello", &[], "hello"),
        print(
            "a_hello_json",
            &[],
            &["-p", "--output-format", "json"],
            "hello json",
        ),
        print("a_hello_text", &[], &["-p"], "hello text"),
        // b: partial messages.
        print("b_partial", &[], SJ_PARTIAL, "mock:slow 5"),
        print("b_partial_thinking", &[], SJ_PARTIAL, "mock:thinking"),
        print(
            "b_partial_tool",
            &["--allowedTools", "Bash"],
            SJ_PARTIAL,
            r#"mock:tool Bash {"command":"echo all-good","description":"Print all-good"}"#,
        ),
        // c: persistent stream-json sessions.
        sj_in(
            "c_blocks_replay",
            &["--replay-user-messages"],
            vec![
                Step::Send(
                    json!({"type": "user", "message": {"role": "user", "content": [
                    {"type": "text", "text": "block one"}, {"type": "text", "text": "block two"}]},
                    "parent_tool_use_id": null, "session_id": ""}),
                ),
                results(1),
                Step::CloseStdin,
            ],
        ),
        sj_in(
            "c_compact",
            &["--replay-user-messages"],
            vec![
                user("first message"),
                results(1),
                user("/compact"),
                results(2),
                user("after compact"),
                results(3),
                Step::CloseStdin,
            ],
        ),
        // 2.1.197 refuses to compact one exchange ("Not enough messages to compact.").
        sj_in(
            "c_compact_long",
            &["--replay-user-messages"],
            vec![
                user("first message"),
                results(1),
                user("second message"),
                results(2),
                user("third message"),
                results(3),
                user("/compact"),
                results(4),
                user("after compact"),
                results(5),
                Step::CloseStdin,
            ],
        ),
        sj_in(
            "c_controls",
            &[],
            vec![
                user("hello"),
                results(1),
                control("r-mcp", json!({"subtype": "mcp_status"})),
                response("r-mcp"),
                control(
                    "r-perm",
                    json!({"subtype": "set_permission_mode", "mode": "acceptEdits"}),
                ),
                response("r-perm"),
                control(
                    "r-model",
                    json!({"subtype": "set_model", "model": "sonnet"}),
                ),
                response("r-model"),
                control("r-ctx", json!({"subtype": "get_context_usage"})),
                response("r-ctx"),
                control(
                    "r-ren",
                    json!({"subtype": "rename_session", "title": "my chat"}),
                ),
                response("r-ren"),
                control("r-bogus", json!({"subtype": "no_such_thing"})),
                response("r-bogus"),
                user("after model switch"),
                results(2),
                control("r-end", json!({"subtype": "end_session"})),
                response("r-end"),
            ],
        )
        .mcp(Mcp::Stdio),
        // Exactly the flags paddockd runs the CLI with (docs/claude-cli.md §13.1).
        sj_in(
            "c_headless",
            &[
                "--include-partial-messages",
                "--replay-user-messages",
                "--permission-prompt-tool",
                "stdio",
                "--session-id",
                HEADLESS_ID,
            ],
            vec![
                Step::Send(user_message(
                    "mock:slow 5",
                    Some("0e9f8c1a-7b6d-4e5f-8a9b-0c1d2e3f4a5b"),
                )),
                results(1),
                Step::CloseStdin,
            ],
        ),
        sj_in(
            "c_initialize",
            &[],
            vec![
                control("init-1", json!({"subtype": "initialize"})),
                response("init-1"),
                user("hi after initialize"),
                results(1),
                Step::CloseStdin,
            ],
        ),
        sj_in(
            "c_persistent",
            &[],
            vec![
                user("first message"),
                results(1),
                user("second message"),
                results(2),
                Step::CloseStdin,
            ],
        ),
        sj_in(
            "c_queued",
            &["--include-partial-messages", "--replay-user-messages"],
            vec![
                user(slow),
                kind("stream_event/text_delta", 1),
                user("queued follow-up"),
                results(2),
                Step::CloseStdin,
            ],
        ),
        // e: preset session ids (before d, which resumes PRESET_ID).
        sj("e_no_persist", &["--no-session-persistence"], "not saved"),
        sj(
            "e_session_id",
            &["--session-id", PRESET_ID],
            "preset id turn",
        ),
        sj(
            "e_session_id_invalid",
            &["--session-id", "not-a-uuid"],
            "bad id",
        ),
        sj(
            "e_session_id_reuse",
            &["--session-id", PRESET_ID],
            "same id again",
        ),
        // d: resume, fork, continue.
        sj("d_resume", &["--resume", PRESET_ID], "resumed turn"),
        sj(
            "d_fork",
            &["--resume", PRESET_ID, "--fork-session"],
            "forked turn",
        ),
        sj(
            "d_fork_preset",
            &[
                "--resume",
                PRESET_ID,
                "--fork-session",
                "--session-id",
                FORK_PRESET_ID,
            ],
            "forked with preset id",
        ),
        sj("d_continue", &["--continue"], "continued turn"),
        sj(
            "d_resume_missing",
            &["--resume", MISSING_ID],
            "nothing here",
        ),
        sj(
            "d_resume_other_cwd",
            &["--resume", PRESET_ID],
            "resumed from another cwd",
        )
        .cwd(Cwd::Other),
        sj_in(
            "d_resume_streamjson",
            &["--resume", PRESET_ID],
            vec![
                user("resumed via stream-json"),
                results(1),
                Step::CloseStdin,
            ],
        ),
        // f: MCP.
        sj(
            "f_mcp",
            &["--allowedTools", "mcp__echo__echo"],
            r#"mock:tool mcp__echo__echo {"text":"ping"}"#,
        )
        .mcp(Mcp::Stdio),
        sj("f_mcp_broken", &[], "hello broken mcp").mcp(Mcp::Broken),
        sj(
            "f_mcp_http",
            &["--allowedTools", "mcp__echo__echo"],
            r#"mock:tool mcp__echo__echo {"text":"ping"}"#,
        )
        .mcp(Mcp::Http),
        sj(
            "f_mcp_not_allowed",
            &[],
            r#"mock:tool mcp__echo__echo {"text":"ping"}"#,
        )
        .mcp(Mcp::Stdio),
        sj_in(
            "f_mcp_permission_prompt",
            &["--permission-prompt-tool", "stdio"],
            vec![
                user(r#"mock:tool mcp__echo__echo {"text":"ping"}"#),
                kind("control_request/can_use_tool", 1),
                Step::Answer(true),
                results(1),
                Step::CloseStdin,
            ],
        )
        .mcp(Mcp::Stdio),
        sj(
            "f_mcp_strict_inline",
            &["--allowedTools", "mcp__echo__echo"],
            r#"mock:tool mcp__echo__echo {"text":"ping"}"#,
        )
        .mcp(Mcp::StrictInline),
        // g: Bash and permissions.
        sj(
            "g_bash",
            &["--allowedTools", "Bash"],
            &format!("mock:text-tool Bash {GREETING}"),
        ),
        {
            let mut s = sj(
                "g_bash_bypass",
                &["--dangerously-skip-permissions"],
                &format!("mock:text-tool Bash {GREETING}"),
            );
            s.sandbox = true;
            s
        },
        sj(
            "g_bash_bypass_root",
            &["--dangerously-skip-permissions"],
            &format!("mock:text-tool Bash {GREETING}"),
        ),
        sj(
            "g_bash_denied",
            &[],
            &format!("mock:text-tool Bash {GREETING}"),
        ),
        sj_in(
            "g_bash_prompt_allow",
            &["--permission-prompt-tool", "stdio"],
            vec![
                user(&format!("mock:text-tool Bash {GREETING}")),
                kind("control_request/can_use_tool", 1),
                Step::Answer(true),
                results(1),
                Step::CloseStdin,
            ],
        ),
        sj_in(
            "g_bash_prompt_deny",
            &["--permission-prompt-tool", "stdio"],
            vec![
                user(&format!("mock:text-tool Bash {GREETING}")),
                kind("control_request/can_use_tool", 1),
                Step::Answer(false),
                results(1),
                Step::CloseStdin,
            ],
        ),
        // h: interrupts.
        sj_in(
            "h_close_stdin_midturn",
            &["--include-partial-messages"],
            vec![
                user(slow),
                kind("stream_event/text_delta", 1),
                Step::CloseStdin,
            ],
        ),
        sj_in(
            "h_control_interrupt",
            &["--include-partial-messages"],
            vec![
                user(slow),
                story_deltas(),
                control("req-int-1", json!({"subtype": "interrupt"})),
                results(1),
                user("after interrupt, hello again"),
                results(2),
                Step::CloseStdin,
            ],
        ),
        sj_in(
            "h_control_interrupt_idle",
            &[],
            vec![
                user("hello"),
                results(1),
                control("req-int-5", json!({"subtype": "interrupt"})),
                response("req-int-5"),
                Step::CloseStdin,
            ],
        ),
        sj_in(
            "h_control_interrupt_mcp",
            &["--allowedTools", "mcp__echo__slow"],
            vec![
                user(r#"mock:tool mcp__echo__slow {"seconds":6}"#),
                kind("assistant(tool_use)", 1),
                Step::PauseMs(1500),
                control("req-int-4", json!({"subtype": "interrupt"})),
                results(1),
                Step::CloseStdin,
            ],
        )
        .mcp(Mcp::Stdio),
        sj_in(
            "h_control_interrupt_tool",
            &["--allowedTools", "Bash"],
            vec![
                user(&format!("mock:tool Bash {SLEEPER}")),
                kind("assistant(tool_use)", 1),
                Step::PauseMs(1500),
                control("req-int-2", json!({"subtype": "interrupt"})),
                results(1),
                Step::MarkerAbsentAfterMs(10_000),
                Step::CloseStdin,
            ],
        ),
        sj_in(
            "h_control_interrupt_waiting",
            &["--include-partial-messages"],
            vec![
                user("mock:hang 30"),
                kind("system/status", 1),
                Step::PauseMs(1000),
                control("req-int-3", json!({"subtype": "interrupt"})),
                results(1),
                Step::CloseStdin,
            ],
        ),
        print("h_sigint_stream", &[], SJ_PARTIAL, slow).steps(vec![
            Step::CloseStdin,
            story_deltas(),
            Step::Signal(SIGINT),
        ]),
        sj_in(
            "h_sigint_streamjson",
            &["--include-partial-messages"],
            vec![user(slow), story_deltas(), Step::Signal(SIGINT)],
        ),
        sj(
            "h_sigint_tool",
            &["--allowedTools", "Bash"],
            &format!("mock:tool Bash {SLEEPER}"),
        )
        .steps(vec![
            Step::CloseStdin,
            kind("assistant(tool_use)", 1),
            Step::PauseMs(1500),
            Step::Signal(SIGINT),
            Step::MarkerAbsentAfterMs(10_000),
        ]),
        print("h_sigterm_stream", &[], SJ_PARTIAL, slow).steps(vec![
            Step::CloseStdin,
            story_deltas(),
            Step::Signal(SIGTERM),
        ]),
        // i: API errors and retries.
        sj("i_400", &[], "mock:error 400"),
        sj("i_429_then_ok", &[], "mock:fail 429 1 ok after 429").retries(3),
        sj("i_500", &[], "mock:error 500"),
        sj("i_529", &[], "mock:error 529"),
        print(
            "i_529_json",
            &[],
            &["-p", "--output-format", "json"],
            "mock:error 529",
        ),
        print("i_529_text", &[], &["-p"], "mock:error 529"),
        sj(
            "i_529_then_ok",
            &[],
            "mock:fail 529 2 recovered after overload",
        )
        .retries(3),
        print(
            "i_bad_flag",
            &[],
            &["-p", "--output-format", "nope"],
            "hello",
        ),
        {
            let mut s = sj("i_bad_key", &[], "hello").retries(1);
            s.key = Key::Invalid;
            s
        },
        print("i_broken_stream", &[], SJ_PARTIAL, "mock:broken").retries(3),
        {
            let mut s = sj("i_conn_refused", &[], "hello").retries(1);
            s.api = Api::Refused;
            s
        },
        {
            let mut s = sj("i_no_key", &[], "hello");
            s.key = Key::Missing;
            s
        },
        // j: a slow plain turn (transcript written while it streams).
        sj("j_live", &[], "mock:slow 10"),
        // k: cwd encoding.
        sj("k_emoji", &[], "enc test emoji").cwd(Cwd::Emoji),
        sj("k_longpath", &[], "enc test long").cwd(Cwd::LongPath),
        sj("k_nonascii", &[], "enc test").cwd(Cwd::NonAscii),
        sj("k_symlink", &[], "enc test symlink").cwd(Cwd::Symlink),
    ];
    // l: subagents.
    list.push(sj(
        "l_subagent",
        &["--forward-subagent-text"],
        &agent("subagent task: say hi", "Echo task", false),
    ));
    // The background subagent streams for 2 s, so the main turn ends first.
    list.push(sj(
        "l_subagent_bg",
        &["--forward-subagent-text"],
        &agent("mock:slow 10", "Echo task bg", true),
    ));
    list.push(sj(
        "l_subagent_plain",
        &[],
        &agent("subagent task: say hi", "Echo task", false),
    ));
    // Without --forward-subagent-text, which releases before 2.1.332 do not know.
    list.push(sj(
        "l_subagent_bg_plain",
        &[],
        &agent("mock:slow 10", "Echo task bg", true),
    ));
    // m: the offline environment (m_net_enabled needs the network; see the fixture README).
    list.push(sj("m_net_disabled", &[], "hello"));
    list
}
