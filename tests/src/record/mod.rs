//! The capture recorder behind `record-cli`: runs a Claude Code binary offline against
//! [`crate::mock_api::MockApi`] through the scenarios of docs/claude-cli.md §14 and writes a
//! fixture folder like `tests/fixtures/claude-cli-2.1.332/`:
//!
//! * `stdout/NAME.jsonl`, `NAME.stderr.txt`, `NAME.rc`, and `NAME.timeline.txt` for the
//!   stdin-driven scenarios (`SECONDS > sent`, `SECONDS < received`, `SECONDS ! event`);
//! * `transcripts/<encoded cwd>/…`: what the CLI wrote under `$CLAUDE_CONFIG_DIR/projects`;
//! * `mcp-stdio.log`: the JSON-RPC lines of the stdio MCP server (`f_mcp`, then
//!   `h_control_interrupt_mcp`);
//! * `SUMMARY.txt`: one line of message kinds per scenario, request paths, MCP log, transcripts.
//!
//! Every path under the private lab folder, the MCP server's path and the stand-in's port are
//! rewritten to the placeholders of [`scrub`], so the output does not depend on the machine.

pub mod scenarios;
pub mod scrub;
pub mod summary;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde_json::{Value, json};

use self::scenarios::{Api, Cwd, Key, MARKER, Mcp, Scenario, Step, Until};
use self::scrub::Scrubber;
use self::summary::{ScenarioSummary, summary_kind};
use crate::mock_api::{INVALID_API_KEY, MockApi};
use crate::process::{CliCommand, CliProcess, Line};
use crate::real_claude::claude_env;

/// Longest wait for one stdout line or condition.
const STEP_TIMEOUT: Duration = Duration::from_secs(90);
/// Longest wait for the process to finish once its script is done.
const EXIT_TIMEOUT: Duration = Duration::from_secs(120);

/// What to record, and where.
#[derive(Debug, Clone)]
pub struct Options {
    pub claude: PathBuf,
    pub fake_mcp: PathBuf,
    pub out: PathBuf,
    /// Only scenarios whose name starts with one of these (all when empty).
    pub only: Vec<String>,
    /// What `claude --version` printed, for the folder's README.
    pub version: String,
}

/// The scenarios of the first (2.1.332) captures that the recorder leaves out, and why.
pub const SKIPPED: &[(&str, &str)] = &[(
    "m_net_enabled",
    "runs without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC and the other \"disable\" variables, \
     so the CLI tries to reach api.anthropic.com and other hosts; offline that only shows failed \
     lookups, and online it would not be a capture of the stand-in alone",
)];

/// The private folder tree a recording runs in; removed on drop.
struct Lab {
    _root: tempfile::TempDir,
    /// The physical path of the lab (shown as `/home/dev/lab`).
    base: PathBuf,
    config: PathBuf,
    tmp: PathBuf,
    mcp_logs: PathBuf,
}

impl Lab {
    fn new() -> anyhow::Result<Self> {
        use std::os::unix::fs::PermissionsExt as _;
        let root = tempfile::Builder::new()
            .prefix("paddock-record-")
            .tempdir()
            .context("creating the lab folder")?;
        let base = root
            .path()
            .canonicalize()
            .context("canonicalizing the lab folder")?
            .join("lab");
        let lab = Self {
            config: base.join("claude-home"),
            tmp: base.join("tmp"),
            mcp_logs: base.join("mcp-logs"),
            base,
            _root: root,
        };
        for cwd in [
            Cwd::Work,
            Cwd::Other,
            Cwd::Emoji,
            Cwd::NonAscii,
            Cwd::LongPath,
        ] {
            let dir = lab.cwd(cwd);
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        for dir in [&lab.config, &lab.tmp, &lab.mcp_logs] {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::set_permissions(&lab.tmp, std::fs::Permissions::from_mode(0o700))
            .context("chmod 0700 of the CLI temp dir")?;
        std::os::unix::fs::symlink(lab.cwd(Cwd::Work), lab.cwd(Cwd::Symlink))
            .context("creating the symlinked cwd")?;
        Ok(lab)
    }

    fn cwd(&self, cwd: Cwd) -> PathBuf {
        match cwd {
            Cwd::Work => self.base.join("work dir_1.x"),
            Cwd::Other => self.base.join("other-cwd"),
            Cwd::Emoji => self.base.join("emoji😀dir"),
            Cwd::NonAscii => self.base.join("wéird dir_name.v2+x~y"),
            Cwd::LongPath => (0..8).fold(self.base.clone(), |p, i| {
                p.join(format!("seg{i:02}_abcdefghijklmnopqrstuvwxyz"))
            }),
            Cwd::Symlink => self.base.join("symlinked-work"),
        }
    }

    /// The physical working directories (what the CLI reports as `cwd`).
    fn physical_cwds(&self) -> Vec<PathBuf> {
        [
            Cwd::Work,
            Cwd::Other,
            Cwd::Emoji,
            Cwd::NonAscii,
            Cwd::LongPath,
        ]
        .into_iter()
        .map(|c| self.cwd(c))
        .collect()
    }
}

/// A scenario while it runs: the process, and everything it printed, with times.
struct Run {
    process: CliProcess,
    start: Instant,
    stdout: Vec<String>,
    kinds: Vec<String>,
    timeline: Vec<String>,
    last_permission_request: Option<Value>,
}

impl Run {
    fn stamp(&self) -> String {
        format!("{:8.3}", self.start.elapsed().as_secs_f64())
    }

    fn note(&mut self, event: &str) {
        let line = format!("{} ! {event}", self.stamp());
        self.timeline.push(line);
    }

    async fn send(&mut self, value: &Value) -> anyhow::Result<()> {
        let text = value.to_string();
        let line = format!("{} > {text}", self.stamp());
        self.timeline.push(line);
        self.process.send_raw(&text).await
    }

    /// Reads one line; `false` at EOF.
    async fn read_one(&mut self, timeout: Duration) -> anyhow::Result<bool> {
        let Some((text, line)) = self.process.next_line_text(timeout).await? else {
            return Ok(false);
        };
        let line_out = format!("{} < {text}", self.stamp());
        self.timeline.push(line_out);
        if let Line::Json(v) = &line {
            if v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool" {
                self.last_permission_request = Some(v.clone());
            }
            self.kinds.push(summary_kind(v));
        } else {
            self.kinds.push("TEXT".to_owned());
        }
        self.stdout.push(text);
        Ok(true)
    }

    fn satisfied(&self, until: &Until) -> bool {
        match until {
            Until::Kind(prefix, n) => {
                self.kinds.iter().filter(|k| k.starts_with(prefix)).count() >= *n
            }
            Until::Response(id) => self.stdout.iter().any(|l| {
                serde_json::from_str::<Value>(l).is_ok_and(|v| {
                    v["type"] == "control_response" && v["response"]["request_id"] == *id
                })
            }),
        }
    }

    async fn wait(&mut self, until: &Until) -> anyhow::Result<()> {
        let deadline = Instant::now() + STEP_TIMEOUT;
        while !self.satisfied(until) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.read_one(left).await {
                Ok(true) => {}
                Ok(false) => bail!("stdout ended while waiting for {until:?}"),
                Err(err) => bail!("{err} while waiting for {until:?}"),
            }
        }
        Ok(())
    }

    /// Reads lines for `duration` (or until EOF) without waiting for anything in particular.
    async fn drain_for(&mut self, duration: Duration) -> anyhow::Result<()> {
        let deadline = Instant::now() + duration;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            match self.read_one(left).await {
                Ok(true) => {}
                Ok(false) => {
                    // EOF: nothing more will come; just let the time pass.
                    tokio::time::sleep(left).await;
                    return Ok(());
                }
                // The time is up with no new line.
                Err(_) => return Ok(()),
            }
        }
    }
}

/// Records every selected scenario into `options.out`.
pub async fn record(options: &Options) -> anyhow::Result<()> {
    let lab = Lab::new()?;
    let out = &options.out;
    let stdout_dir = out.join("stdout");
    std::fs::create_dir_all(&stdout_dir)
        .with_context(|| format!("creating {}", stdout_dir.display()))?;
    let cwds = lab.physical_cwds();
    let cwd_refs: Vec<&Path> = cwds.iter().map(PathBuf::as_path).collect();
    let mut scrubber = Scrubber::new(&lab.base, &cwd_refs, &[options.fake_mcp.as_path()]);

    let mut summaries = Vec::new();
    let mut request_counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut agent_tool = "Agent".to_owned();
    let mut list = scenarios::all(&agent_tool);
    let mut index = 0;
    while index < list.len() {
        let scenario = list[index].clone();
        index += 1;
        let selected = options.only.is_empty()
            || options
                .only
                .iter()
                .any(|p| scenario.name.starts_with(p.as_str()));
        if !selected {
            continue;
        }
        eprintln!("record-cli: {}", scenario.name);
        let api = MockApi::start().await.context("starting the mock API")?;
        scrubber.add_port(api.port());
        let captured = run_scenario(options, &lab, &api, &scenario, &mut scrubber).await?;
        for request in api.requests() {
            *request_counts
                .entry(format!("{} {}", request.method, request.path))
                .or_default() += 1;
        }
        if scenario.name == "a_hello"
            && let Some(tools) = captured.init_tools.as_ref()
        {
            // Older releases call the subagent tool `Task`.
            let name = if tools.iter().any(|t| t == "Agent") {
                "Agent"
            } else {
                "Task"
            };
            if name != agent_tool {
                agent_tool = name.to_owned();
                list = scenarios::all(&agent_tool);
            }
        }
        write_scenario(&stdout_dir, &scenario, &captured, &scrubber)?;
        summaries.push(ScenarioSummary {
            name: scenario.name.to_owned(),
            rc: captured.rc,
            stdout: scrubber.apply(&captured.stdout.join("\n")),
            stderr: scrubber.apply(&captured.stderr),
            notes: captured.notes.clone(),
        });
    }

    copy_transcripts(&lab, out, &scrubber)?;
    let mcp_log = collect_mcp_log(&lab, &scrubber)?;
    if !mcp_log.is_empty() {
        write(&out.join("mcp-stdio.log"), &mcp_log)?;
    }
    let mut text = String::from("# Scenarios\n\n");
    for s in &summaries {
        s.render(&mut text);
    }
    summary::render_requests(&mut text, &request_counts);
    if !mcp_log.is_empty() {
        summary::render_mcp_log(&mut text, &mcp_log);
    }
    let projects = out.join("transcripts");
    if projects.is_dir() {
        summary::render_transcripts(&mut text, &projects).context("summarising the transcripts")?;
    }
    write(&out.join("SUMMARY.txt"), &text)?;
    write(&out.join("README.md"), &readme(options))?;
    Ok(())
}

fn readme(options: &Options) -> String {
    let mut text = format!(
        "# Captures of Claude Code {}\n\n\
         Recorded by `record-cli` (tests/src/record/) against the Messages API stand-in of\n\
         tests/src/mock_api/ and the `fake-mcp` server; docs/claude-cli.md §14 explains the\n\
         scenarios and §15 the differences between releases. To record again:\n\n\
         ```\ncargo build -p paddock-tests --bins\n\
         target/debug/record-cli --claude <path to claude> --out <new folder>\n```\n\n\
         Paths under the recorder's private folder appear as `/home/dev/lab/...`, the MCP server\n\
         as `/home/dev/tools/fake-mcp`, every stand-in port as 41159.\n",
        options
            .version
            .split_whitespace()
            .next()
            .unwrap_or("(unknown version)")
    );
    if options.only.is_empty() {
        text.push_str("\nNot recorded:\n\n");
        for (name, why) in SKIPPED {
            let _ = writeln!(text, "- `{name}`: {why}.");
        }
    } else {
        let _ = writeln!(
            text,
            "\nOnly the scenarios starting with {} were recorded.",
            options.only.join(", ")
        );
    }
    text
}

/// What one scenario produced (before scrubbing).
struct Captured {
    stdout: Vec<String>,
    stderr: String,
    rc: i32,
    timeline: Vec<String>,
    notes: Vec<String>,
    init_tools: Option<Vec<String>>,
}

fn mcp_config(options: &Options, lab: &Lab, api: &MockApi, scenario: &Scenario) -> Value {
    let log = lab.mcp_logs.join(format!("{}.log", scenario.name));
    let stdio = json!({"mcpServers": {"echo": {"type": "stdio",
        "command": options.fake_mcp, "args": [],
        "env": {"FAKE_MCP_LOG": log, "FAKE_MCP_NAME": "mcp-echo"}}}});
    match scenario.mcp {
        Mcp::None => Value::Null,
        Mcp::Stdio | Mcp::StrictInline => stdio,
        Mcp::Http => json!({"mcpServers": {"echo": {"type": "http",
            "url": format!("{}/mcp", api.base_url()),
            "headers": {"Authorization": "Bearer test-token"}}}}),
        Mcp::Broken => json!({"mcpServers": {"broken": {"type": "stdio",
            "command": lab.base.join("no-such-mcp-server"), "args": []}}}),
    }
}

async fn run_scenario(
    options: &Options,
    lab: &Lab,
    api: &MockApi,
    scenario: &Scenario,
    scrubber: &mut Scrubber,
) -> anyhow::Result<Captured> {
    let base_url = match scenario.api {
        Api::Mock => api.base_url(),
        Api::Refused => {
            let port = closed_port()?;
            scrubber.add_port(port);
            format!("http://127.0.0.1:{port}")
        }
    };
    let mut env = claude_env(&base_url, &lab.config, &lab.tmp, scenario.max_retries);
    match scenario.key {
        Key::Dummy => {}
        Key::Invalid => {
            env.retain(|(k, _)| k != "ANTHROPIC_API_KEY");
            env.push(("ANTHROPIC_API_KEY".into(), INVALID_API_KEY.into()));
        }
        Key::Missing => env.retain(|(k, _)| k != "ANTHROPIC_API_KEY"),
    }
    if scenario.sandbox {
        env.push(("IS_SANDBOX".into(), "1".into()));
    }
    let mut args: Vec<OsString> = Vec::new();
    let config = mcp_config(options, lab, api, scenario);
    match scenario.mcp {
        Mcp::None => {}
        Mcp::StrictInline => {
            args.extend(["--strict-mcp-config".into(), "--mcp-config".into()]);
            args.push(config.to_string().into());
        }
        _ => {
            let file = lab.base.join(format!("mcp-{}.json", scenario.name));
            write(&file, &config.to_string())?;
            args.extend(["--mcp-config".into(), file.into_os_string()]);
        }
    }
    // `--mcp-config` takes a list of values: it goes first, so the next flag ends it.
    args.extend(scenario.args.iter().map(OsString::from));
    args.extend(scenario.prompt.iter().map(OsString::from));

    let cwd = lab.cwd(scenario.cwd);
    let mut command = CliCommand::new(&options.claude, &cwd).args(args).envs(env);
    // The recorder's own environment must not change the scenarios (e.g. `IS_SANDBOX`).
    command.scrub_env_prefixes.extend([
        "IS_SANDBOX".to_owned(),
        "DISABLE_".to_owned(),
        "NO_COLOR".to_owned(),
    ]);
    let process = command.spawn()?;
    let mut run = Run {
        process,
        start: Instant::now(),
        stdout: Vec::new(),
        kinds: Vec::new(),
        timeline: Vec::new(),
        last_permission_request: None,
    };
    let mut notes = Vec::new();
    if scenario.steps.is_empty() {
        run.process.close_stdin();
    }
    let marker = cwd.join(MARKER);
    let _ = std::fs::remove_file(&marker);
    for step in &scenario.steps {
        let done = match step {
            Step::Send(value) => run.send(value).await,
            Step::Wait(until) => run.wait(until).await,
            Step::Answer(allow) => match run.last_permission_request.clone() {
                Some(request) => {
                    let request_id = request["request_id"].clone();
                    let response = if *allow {
                        json!({"behavior": "allow", "updatedInput": request["request"]["input"]})
                    } else {
                        json!({"behavior": "deny", "message": "operator said no"})
                    };
                    run.send(&json!({"type": "control_response", "response": {
                        "subtype": "success", "request_id": request_id, "response": response}}))
                        .await
                }
                None => Err(anyhow::anyhow!("no can_use_tool request to answer")),
            },
            Step::PauseMs(ms) => run.drain_for(Duration::from_millis(*ms)).await,
            Step::CloseStdin => {
                run.note("close stdin");
                run.process.close_stdin();
                Ok(())
            }
            Step::Signal(sig) => {
                let signal = match sig {
                    2 => rustix::process::Signal::INT,
                    _ => rustix::process::Signal::TERM,
                };
                run.note(&format!(
                    "signal {}",
                    if *sig == 2 { "SIGINT" } else { "SIGTERM" }
                ));
                run.process.signal(signal)
            }
            Step::MarkerAbsentAfterMs(ms) => {
                let left = Duration::from_millis(*ms).saturating_sub(run.start.elapsed());
                run.drain_for(left).await?;
                if marker.exists() {
                    notes.push("marker PRESENT (bash child not killed)".to_owned());
                } else {
                    notes.push("marker absent (bash child killed)".to_owned());
                }
                Ok(())
            }
        };
        if let Err(err) = done {
            eprintln!(
                "record-cli: {}: {err:#}\n{}",
                scenario.name,
                run.process.report()
            );
            notes.push(format!("recorder: step {step:?} failed: {err}"));
            break;
        }
    }
    // Whatever is left, up to EOF.
    let deadline = Instant::now() + EXIT_TIMEOUT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match run.read_one(left).await {
            Ok(true) => {}
            Ok(false) => break,
            Err(err) => {
                notes.push(format!("recorder: stdout did not end: {err}"));
                run.process.kill().await.ok();
                break;
            }
        }
    }
    let status = run.process.wait_exit(EXIT_TIMEOUT).await?;
    let rc = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(-1);
    run.note(&format!("exit code {rc}"));
    let init_tools = run
        .stdout
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "system" && v["subtype"] == "init")
        .and_then(|v| {
            v["tools"].as_array().map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect()
            })
        });
    Ok(Captured {
        stdout: std::mem::take(&mut run.stdout),
        stderr: run.process.stderr(),
        rc,
        timeline: std::mem::take(&mut run.timeline),
        notes,
        init_tools,
    })
}

/// A local port that nothing listens on (bound, then released).
fn closed_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("binding a port")?;
    Ok(listener.local_addr().context("reading the port")?.port())
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

fn write_scenario(
    dir: &Path,
    scenario: &Scenario,
    captured: &Captured,
    scrubber: &Scrubber,
) -> anyhow::Result<()> {
    let mut stdout = captured.stdout.join("\n");
    if !stdout.is_empty() {
        stdout.push('\n');
    }
    write(
        &dir.join(format!("{}.jsonl", scenario.name)),
        &scrubber.apply(&stdout),
    )?;
    write(
        &dir.join(format!("{}.stderr.txt", scenario.name)),
        &scrubber.apply(&captured.stderr),
    )?;
    write(
        &dir.join(format!("{}.rc", scenario.name)),
        &format!("{}\n", captured.rc),
    )?;
    if scenario.timeline {
        let mut text = String::new();
        for line in &captured.timeline {
            let _ = writeln!(text, "{line}");
        }
        write(
            &dir.join(format!("{}.timeline.txt", scenario.name)),
            &scrubber.apply(&text),
        )?;
    }
    Ok(())
}

/// Copies `$CLAUDE_CONFIG_DIR/projects` to `out/transcripts`: `.jsonl` and `.json` files,
/// names and contents scrubbed.
fn copy_transcripts(lab: &Lab, out: &Path, scrubber: &Scrubber) -> anyhow::Result<()> {
    let projects = lab.config.join("projects");
    if !projects.is_dir() {
        return Ok(());
    }
    let target = out.join("transcripts");
    let mut stack = vec![projects.clone()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
        for entry in entries {
            let path = entry.context("reading a directory entry")?.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let is_record = path
                .extension()
                .is_some_and(|e| e == "jsonl" || e == "json");
            if !is_record {
                continue;
            }
            let Ok(rel) = path.strip_prefix(&projects) else {
                continue;
            };
            let rel = scrubber.apply(&rel.to_string_lossy());
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            write(&target.join(rel), &scrubber.apply(&text))?;
        }
    }
    Ok(())
}

/// The MCP logs of `f_mcp` and `h_control_interrupt_mcp`, scrubbed, in that order.
fn collect_mcp_log(lab: &Lab, scrubber: &Scrubber) -> anyhow::Result<String> {
    let mut text = String::new();
    for name in ["f_mcp", "h_control_interrupt_mcp"] {
        let path = lab.mcp_logs.join(format!("{name}.log"));
        if path.is_file() {
            let log = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            text.push_str(&scrubber.apply(&log));
        }
    }
    Ok(text)
}
