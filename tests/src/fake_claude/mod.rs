//! `fake-claude`: a fast, deterministic stand-in for the Claude Code CLI in headless
//! stream-json mode (docs/claude-cli.md §3-§6, §9, §10). paddockd spawns it exactly like the
//! real CLI; what each turn does is scripted by the user message (see [`script`]). A one-shot
//! `-p` run that is not stream-json (the sweeper's) may be answered from a file instead, and
//! records its prompt (see [`batch`]).
//!
//! Structure: a stdin task parses lines and answers control requests at once (so an
//! `interrupt` reply always comes first); user messages go through a queue to the runner, which
//! plays one turn at a time and owns the session (transcript, counters). The running turn
//! listens on a watch channel for interrupts.
//!
//! `FAKE_CLAUDE_RELEASE=2.1.197` makes it imitate Claude Code 2.1.197 instead of 2.1.332 (the
//! default): the differences of docs/claude-cli.md §15 that the daemon can observe, listed on
//! [`release::Release::V2_1_197`] (no `command_lifecycle` lines, the prompt echo after the
//! reply's deltas, no `api_message_id` on stream events, the transcript written after
//! `result`, …). `FAKE_CLAUDE_DISK_FULL=1` makes every transcript write fail with ENOSPC.

pub mod args;
pub mod batch;
pub mod emit;
pub mod release;
pub mod script;
pub mod state;
pub mod transcript;
mod turn;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, BufReader};
use tokio::sync::{mpsc, oneshot, watch};

use self::args::{Options, is_canonical_uuid};
use self::emit::{emit, emit_stderr, new_uuid};
use self::release::Release;
use self::state::{FakeState, STATE_DIR_ENV};
use self::transcript::Transcript;

/// `claude_code_version` the fake reports imitating 2.1.332 (see [`Release::version`]).
pub const VERSION: &str = "2.1.332-fake";

/// Model used without `--model`.
pub const DEFAULT_MODEL: &str = "claude-opus-5-5";

/// Runs `fake-claude` with the process's arguments and returns the exit code.
pub fn main() -> i32 {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            emit_stderr(&format!("fake-claude: cannot start a runtime: {err}"));
            return 1;
        }
    };
    let code = runtime.block_on(run(std::env::args().skip(1).collect()));
    // The stdin reader sits in a blocking read that only EOF ends: do not wait for it.
    runtime.shutdown_background();
    code
}

/// State shared between the stdin task, signal handlers and the runner. Plain mutexes: nothing
/// awaits while holding one.
pub(crate) struct Shared {
    /// Interrupt switch of the running turn; `None` when idle.
    current: Mutex<Option<watch::Sender<bool>>>,
    /// `can_use_tool` requests waiting for the host's `control_response`, by request id.
    pending: Mutex<HashMap<String, oneshot::Sender<Value>>>,
    /// uuids of received prompts that have not started yet (prompts sent with a `uuid`), for
    /// the interrupt reply's `still_queued`.
    queued: Mutex<VecDeque<String>>,
    /// The session id, for lines printed outside a turn.
    session_id: Mutex<String>,
    stdin_closed: AtomicBool,
    sigint: AtomicBool,
    model: Mutex<String>,
    permission_mode: Mutex<String>,
    state: Mutex<Option<(PathBuf, FakeState)>>,
    /// The release imitated (`FAKE_CLAUDE_RELEASE`).
    pub(crate) release: Release,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// Triggers the running turn's interrupt; false when idle.
    fn interrupt_current(&self) -> bool {
        match lock(&self.current).as_ref() {
            Some(tx) => {
                let _ = tx.send(true);
                true
            }
            None => false,
        }
    }

    pub(crate) fn model(&self) -> String {
        lock(&self.model).clone()
    }

    pub(crate) fn permission_mode(&self) -> String {
        lock(&self.permission_mode).clone()
    }

    /// Registers a permission wait. `None` if stdin is closed already (no answer can come).
    pub(crate) fn wait_permission(&self, request_id: &str) -> Option<oneshot::Receiver<Value>> {
        let (tx, rx) = oneshot::channel();
        let mut pending = lock(&self.pending);
        if self.stdin_closed.load(Ordering::SeqCst) {
            return None;
        }
        pending.insert(request_id.to_owned(), tx);
        Some(rx)
    }

    /// Takes a prompt off the `still_queued` list when its turn starts.
    pub(crate) fn dequeue(&self, uuid: &str) {
        lock(&self.queued).retain(|u| u != uuid);
    }

    /// A `command_lifecycle` line: what the real CLI prints for prompts sent with a `uuid`
    /// (`queued` on receipt, `started`, then `completed` or `cancelled` after the result).
    /// 2.1.197 prints none.
    pub(crate) fn lifecycle(&self, command_uuid: &str, state: &str) {
        if self.release.is_2_1_197() {
            return;
        }
        emit(
            &json!({"type": "command_lifecycle", "command_uuid": command_uuid, "state": state,
            "uuid": new_uuid(), "session_id": *lock(&self.session_id)}),
        );
    }

    /// Records a spawned child pid in the state file.
    pub(crate) fn add_child(&self, pid: u32) {
        let mut state = lock(&self.state);
        if let Some((dir, st)) = state.as_mut() {
            st.children.push(pid);
            if let Err(err) = state::write_state(dir, st) {
                emit_stderr(&format!("fake-claude: cannot write state: {err}"));
            }
        }
    }

    fn log_stdin(&self, line: &str) {
        if let Some((dir, st)) = lock(&self.state).as_ref()
            && let Err(err) = state::append_stdin(dir, st.pid, line)
        {
            emit_stderr(&format!("fake-claude: cannot log stdin: {err}"));
        }
    }
}

/// What the runner owns for the whole process.
pub(crate) struct Session {
    pub opts: Options,
    pub session_id: String,
    pub cwd: String,
    pub transcript: Transcript,
    /// Results printed so far (`result_index` of the next one).
    pub results: u32,
    /// Per model: input tokens, output tokens, turns (cost is 0.001 per turn).
    pub model_usage: BTreeMap<String, (u64, u64, u32)>,
    /// Turns so far: `total_cost_usd` is 0.001 per turn.
    pub turns: u32,
    pub last_is_error: Option<bool>,
    /// Processes started by `child` steps; kept so they are not reaped or killed.
    pub children: Vec<std::process::Child>,
    /// Queued prompts, for `queued_turn_count`.
    pub queue_len: usize,
    /// Running background tasks (`background` steps), as `background_tasks_changed` lists them.
    pub background: Vec<Value>,
    /// Background tasks whose notification turn has not run yet: the process waits for them.
    pub background_owed: usize,
    /// Where a finished background task's notification goes: it runs as a turn of its own.
    pub background_tx: mpsc::UnboundedSender<Value>,
}

fn usage_error(message: &str) -> i32 {
    emit_stderr(message);
    1
}

async fn run(argv: Vec<String>) -> i32 {
    // As the real CLI prints it (`paddock doctor` asks the daemon's claude for it).
    if argv.iter().any(|a| a == "--version" || a == "-v") {
        println!("{VERSION} (Claude Code)");
        return 0;
    }
    let opts = Options::parse(argv);
    let release = match Release::from_env() {
        Ok(release) => release,
        Err(err) => return usage_error(&err),
    };
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "/".to_owned());

    let shared = Arc::new(Shared {
        current: Mutex::new(None),
        pending: Mutex::new(HashMap::new()),
        queued: Mutex::new(VecDeque::new()),
        session_id: Mutex::new(String::new()),
        stdin_closed: AtomicBool::new(false),
        sigint: AtomicBool::new(false),
        model: Mutex::new(
            opts.model
                .clone()
                .unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
        ),
        permission_mode: Mutex::new(
            opts.permission_mode
                .clone()
                .unwrap_or_else(|| "default".to_owned()),
        ),
        state: Mutex::new(None),
        release,
    });

    // The state file first, so even a failing start is recorded.
    if let Some(dir) = std::env::var_os(STATE_DIR_ENV).filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        let st = FakeState::current(None);
        let written = std::fs::create_dir_all(&dir).and_then(|()| state::write_state(&dir, &st));
        if let Err(err) = written {
            emit_stderr(&format!(
                "fake-claude: cannot write state in {}: {err}",
                dir.display()
            ));
        }
        *lock(&shared.state) = Some((dir, st));
    }

    if opts.output_format.as_deref() == Some("stream-json") && !opts.verbose {
        return usage_error(
            "Error: When using --print, --output-format=stream-json requires --verbose",
        );
    }
    if opts.stream_input() && opts.output_format.as_deref() != Some("stream-json") {
        return usage_error(
            "Error: --input-format=stream-json requires output-format=stream-json.",
        );
    }

    let config = transcript::config_dir();
    let (session_id, path) = match resolve_session(&opts, &config, &cwd) {
        Ok(found) => found,
        Err(code) => return code,
    };
    *lock(&shared.session_id) = session_id.clone();
    {
        let mut state = lock(&shared.state);
        if let Some((dir, st)) = state.as_mut() {
            st.session_id = Some(session_id.clone());
            let _ = state::write_state(dir, st);
        }
    }

    let transcript = Transcript::new(
        path,
        &session_id,
        &cwd,
        !opts.no_session_persistence,
        release,
    );
    let (background_tx, mut background_rx) = mpsc::unbounded_channel::<Value>();
    let mut session = Session {
        opts,
        session_id,
        cwd,
        transcript,
        results: 0,
        model_usage: BTreeMap::new(),
        turns: 0,
        last_is_error: None,
        children: Vec::new(),
        queue_len: 0,
        background: Vec::new(),
        background_owed: 0,
        background_tx,
    };

    spawn_signal_handlers(&shared);

    let (tx, mut rx) = mpsc::unbounded_channel::<Value>();
    if session.opts.stream_input() {
        let replay = session.opts.replay_user_messages;
        tokio::spawn(read_stdin(Arc::clone(&shared), tx, replay));
    } else {
        // `-p "prompt"` (or the prompt on stdin): one turn, then exit.
        let prompt = match session.opts.positional.first() {
            Some(p) => p.clone(),
            None => {
                let mut text = String::new();
                let _ = tokio::io::stdin().read_to_string(&mut text).await;
                text
            }
        };
        shared.stdin_closed.store(true, Ordering::SeqCst);
        // A one-shot run may be answered from a file (the sweeper's runs): see `batch`.
        let state_dir = lock(&shared.state).as_ref().map(|(dir, _)| dir.clone());
        let prompt = batch::message_for(prompt, state_dir.as_deref());
        let _ = tx.send(json!({"type": "user", "message": {"role": "user", "content": prompt}}));
        drop(tx);
    }

    // Prompts, and the notifications of finished background tasks: each runs as a turn. Like
    // the real CLI, the process does not end while a background task's turn is owed.
    let mut stdin_open = true;
    loop {
        if !stdin_open && session.background_owed == 0 {
            break;
        }
        let message = tokio::select! {
            Some(done) = background_rx.recv() => done,
            m = rx.recv(), if stdin_open => match m {
                Some(m) => m,
                None => {
                    stdin_open = false;
                    continue;
                }
            },
            else => break,
        };
        session.queue_len = rx.len();
        let (itx, irx) = watch::channel(false);
        *lock(&shared.current) = Some(itx);
        turn::run_turn(&mut session, &shared, message, irx).await;
        *lock(&shared.current) = None;
        if shared.sigint.load(Ordering::SeqCst) {
            return 0;
        }
    }
    i32::from(session.last_is_error == Some(true))
}

/// Works out the session id and transcript path, or prints the CLI's error and gives the
/// exit code.
fn resolve_session(
    opts: &Options,
    config: &std::path::Path,
    cwd: &str,
) -> Result<(String, PathBuf), i32> {
    if let Some(preset) = &opts.session_id
        && !is_canonical_uuid(preset)
    {
        return Err(usage_error(
            "Error: Invalid session ID. Must be a valid UUID.",
        ));
    }
    if let Some(resume) = &opts.resume {
        let Some(found) = transcript::find_transcript(config, resume) else {
            let message = format!("No conversation found with session ID: {resume}");
            emit(&json!({
                "type": "result", "subtype": "error_during_execution", "duration_ms": 0,
                "duration_api_ms": 0, "is_error": true, "num_turns": 0, "stop_reason": null,
                "session_id": resume, "total_cost_usd": 0,
                "usage": {"input_tokens": 0, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": 0, "output_tokens": 0},
                "modelUsage": {}, "permission_denials": [], "uuid": new_uuid(),
                "errors": [message], "result_index": 0,
            }));
            emit_stderr(&message);
            return Err(1);
        };
        if !opts.fork_session {
            // Resuming from another cwd leaves the file where it is; the real CLI still
            // creates an (empty) project folder for the new cwd.
            let _ = std::fs::create_dir_all(
                config
                    .join("projects")
                    .join(crate::cwd_encoding::encode_cwd(cwd)),
            );
            return Ok((resume.clone(), found));
        }
        let id = opts.session_id.clone().unwrap_or_else(new_uuid);
        let path = transcript::transcript_path(config, cwd, &id);
        if let Err(err) = transcript::fork_copy(&found, &path, &id) {
            return Err(usage_error(&format!(
                "Error: cannot fork session {resume}: {err}"
            )));
        }
        return Ok((id, path));
    }
    let id = opts.session_id.clone().unwrap_or_else(new_uuid);
    let path = transcript::transcript_path(config, cwd, &id);
    if opts.session_id.is_some() && path.exists() {
        return Err(usage_error(&format!(
            "Error: Session ID {id} is already in use."
        )));
    }
    Ok((id, path))
}

fn spawn_signal_handlers(shared: &Arc<Shared>) {
    use tokio::signal::unix::{SignalKind, signal};
    // SIGTERM: stop at once, no more output, status 143 (what the real CLI does).
    if let Ok(mut term) = signal(SignalKind::terminate()) {
        tokio::spawn(async move {
            if term.recv().await.is_some() {
                std::process::exit(143);
            }
        });
    }
    // SIGINT: interrupt the running turn; the runner exits 0 after its result. Idle: exit 0.
    if let Ok(mut int) = signal(SignalKind::interrupt()) {
        let shared = Arc::clone(shared);
        tokio::spawn(async move {
            while int.recv().await.is_some() {
                shared.sigint.store(true, Ordering::SeqCst);
                if !shared.interrupt_current() {
                    std::process::exit(0);
                }
            }
        });
    }
}

/// Reads stdin lines: control requests are answered here, user messages are queued for the
/// runner, `control_response`s go to the waiting permission prompt.
async fn read_stdin(shared: Arc<Shared>, tx: mpsc::UnboundedSender<Value>, replay: bool) {
    let mut reader = BufReader::new(tokio::io::stdin());
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches(['\n', '\r']);
        shared.log_stdin(line);
        if line.trim().is_empty() {
            continue;
        }
        let value = match serde_json::from_str::<Value>(line) {
            Ok(v) => v,
            Err(_) => {
                emit_stderr(&format!(
                    "Error parsing streaming input line (type=unknown, {} chars): SyntaxError",
                    line.chars().count()
                ));
                std::process::exit(1);
            }
        };
        match value["type"].as_str() {
            Some("user") => {
                if let Some(uuid) = value["uuid"].as_str() {
                    lock(&shared.queued).push_back(uuid.to_owned());
                    shared.lifecycle(uuid, "queued");
                }
                let _ = tx.send(value);
            }
            Some("control_request") => handle_control(&shared, &value),
            Some("control_response") => {
                // With --replay-user-messages the real CLI echoes the host's answer on stdout.
                if replay {
                    emit(&value);
                }
                let request_id = value["response"]["request_id"].as_str().unwrap_or_default();
                if let Some(waiter) = lock(&shared.pending).remove(request_id) {
                    let _ = waiter.send(value["response"].clone());
                }
            }
            // Unknown types (and non-object JSON) are ignored, like the real CLI does.
            _ => {}
        }
    }
    shared.stdin_closed.store(true, Ordering::SeqCst);
    // Dropping the senders tells waiting permission prompts that no answer will come.
    lock(&shared.pending).clear();
}

fn control_success(request_id: &str, response: Value) -> Value {
    json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": request_id, "response": response}})
}

fn handle_control(shared: &Shared, value: &Value) {
    let request_id = value["request_id"].as_str().unwrap_or_default();
    let request = &value["request"];
    let subtype = request["subtype"].as_str().unwrap_or_default();
    match subtype {
        "interrupt" => {
            // The reply comes first; the turn then prints its abort sequence. 2.1.197's reply
            // has no `response` object.
            if shared.release.is_2_1_197() {
                emit(&json!({"type": "control_response", "response": {
                    "subtype": "success", "request_id": request_id}}));
            } else {
                let still_queued: Vec<String> = lock(&shared.queued).iter().cloned().collect();
                emit(&control_success(
                    request_id,
                    json!({"still_queued": still_queued}),
                ));
            }
            shared.interrupt_current();
        }
        "end_session" => {
            emit(&control_success(request_id, json!({})));
            std::process::exit(0);
        }
        "initialize" => {
            let busy = lock(&shared.current).is_some();
            emit(&control_success(
                request_id,
                json!({
                    "commands": [], "agents": [], "output_style": "default",
                    "available_output_styles": ["default"], "models": [],
                    "account": {"apiKeySource": api_key_source()},
                    "pid": std::process::id(),
                    "claude_code_version": shared.release.version(),
                    "current_permission_mode": shared.permission_mode(),
                    "session_state": if busy { "running" } else { "idle" },
                    "capabilities": ["interrupt_receipt_v1"],
                }),
            ));
        }
        "set_model" => {
            let model = request["model"]
                .as_str()
                .unwrap_or(DEFAULT_MODEL)
                .to_owned();
            *lock(&shared.model) = model.clone();
            emit(&control_success(request_id, json!({"model": model})));
        }
        "set_permission_mode" => {
            let mode = request["mode"].as_str().unwrap_or("default").to_owned();
            *lock(&shared.permission_mode) = mode.clone();
            emit(&control_success(request_id, json!({"mode": mode})));
        }
        "mcp_status" => emit(&control_success(request_id, json!({"mcpServers": []}))),
        "rename_session" => {
            emit(&control_success(request_id, json!({})));
            if shared.release.is_2_1_197() {
                return;
            }
            let title = request["title"].as_str().unwrap_or_default();
            emit(
                &json!({"type": "system", "subtype": "session_title_changed", "title": title,
                         "uuid": new_uuid()}),
            );
        }
        other => emit(&json!({"type": "control_response", "response": {
            "subtype": "error", "request_id": request_id,
            "error": format!("Unsupported control request subtype: {other}"),
            "error_code": "unsupported_request"}})),
    }
}

/// `apiKeySource` as the real `system/init` reports it.
pub(crate) fn api_key_source() -> &'static str {
    if std::env::var_os("ANTHROPIC_API_KEY").is_some_and(|k| !k.is_empty()) {
        "ANTHROPIC_API_KEY"
    } else {
        "none"
    }
}
