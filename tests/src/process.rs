//! A child process that speaks JSON lines on stdin/stdout (the real `claude` CLI or `fake-claude`),
//! driven with deadline-bounded reads.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, anyhow, bail};
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, AsyncWriteExt as _, BufReader,
};
use tokio::process::{Child, ChildStdin, Command};

/// One line of a child's stdout.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// A line that parsed as JSON.
    Json(Value),
    /// A line that did not (kept verbatim, without the newline).
    Raw(String),
}

impl Line {
    /// The JSON value, if this line was JSON.
    pub fn json(&self) -> Option<&Value> {
        match self {
            Line::Json(v) => Some(v),
            Line::Raw(_) => None,
        }
    }
}

/// Reads newline-terminated lines with a deadline per read. Cancel-safe: a read that times out
/// keeps its partial line for the next call.
pub struct LineReader<R> {
    inner: BufReader<R>,
    partial: Vec<u8>,
    eof: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(inner: R) -> Self {
        Self {
            inner: BufReader::new(inner),
            partial: Vec::new(),
            eof: false,
        }
    }

    /// The next line, `Ok(None)` at end of stream, or an error once `timeout` has passed.
    pub async fn next_line(&mut self, timeout: Duration) -> anyhow::Result<Option<Line>> {
        Ok(self.next_text(timeout).await?.map(|text| parse_line(&text)))
    }

    /// Like [`LineReader::next_line`], but the line's text as it came (without the newline).
    pub async fn next_text(&mut self, timeout: Duration) -> anyhow::Result<Option<String>> {
        if self.eof {
            return Ok(None);
        }
        // `read_until` appends to `partial` as bytes arrive, so a timeout loses nothing.
        let read = tokio::time::timeout(timeout, self.inner.read_until(b'\n', &mut self.partial))
            .await
            .map_err(|_| anyhow!("no complete line within {timeout:?}"))?
            .context("reading a line")?;
        if read == 0 && self.partial.is_empty() {
            self.eof = true;
            return Ok(None);
        }
        if !self.partial.ends_with(b"\n") {
            // End of stream in the middle of a line: hand out what there is.
            self.eof = true;
        }
        let bytes = std::mem::take(&mut self.partial);
        let text = String::from_utf8_lossy(&bytes);
        Ok(Some(text.trim_end_matches(['\n', '\r']).to_owned()))
    }
}

/// A line parsed as JSON, else kept raw.
fn parse_line(text: &str) -> Line {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Line::Json(v),
        Err(_) => Line::Raw(text.to_owned()),
    }
}

/// A spawned JSON-lines CLI with piped stdio. Everything read from stdout is kept in
/// [`CliProcess::seen`]; stderr is collected in the background.
pub struct CliProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: LineReader<tokio::process::ChildStdout>,
    stderr: Arc<Mutex<String>>,
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    seen: Vec<Line>,
    program: PathBuf,
}

/// How to start a [`CliProcess`].
#[derive(Debug, Clone)]
pub struct CliCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    /// Variables to set on top of the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// Inherited variables whose names start with one of these are removed first, so a
    /// developer's own `ANTHROPIC_*`/`CLAUDE_*` settings cannot leak into a test.
    pub scrub_env_prefixes: Vec<String>,
}

impl CliCommand {
    pub fn new(program: impl Into<PathBuf>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            cwd: cwd.into(),
            env: Vec::new(),
            scrub_env_prefixes: vec!["ANTHROPIC_".into(), "CLAUDE".into()],
        }
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        let key = key.into();
        self.env.retain(|(k, _)| *k != key);
        self.env.push((key, value.into()));
        self
    }

    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        for (k, v) in vars {
            self = self.env(k, v);
        }
        self
    }

    pub fn spawn(&self) -> anyhow::Result<CliProcess> {
        CliProcess::spawn(self)
    }
}

impl CliProcess {
    pub fn spawn(cmd: &CliCommand) -> anyhow::Result<Self> {
        let mut command = Command::new(&cmd.program);
        command
            .args(&cmd.args)
            .current_dir(&cmd.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (key, _) in std::env::vars_os() {
            let name = key.to_string_lossy();
            if cmd
                .scrub_env_prefixes
                .iter()
                .any(|p| name.starts_with(p.as_str()))
            {
                command.env_remove(&key);
            }
        }
        command.envs(cmd.env.iter().map(|(k, v)| (k, v)));
        let mut child = command
            .spawn()
            .with_context(|| format!("spawning {}", cmd.program.display()))?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("child has no stdout pipe"))?;
        let stderr_buf = Arc::new(Mutex::new(String::new()));
        let mut stderr_task = None;
        if let Some(mut stderr) = child.stderr.take() {
            let buf = Arc::clone(&stderr_buf);
            stderr_task = Some(tokio::spawn(async move {
                let mut chunk = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut chunk).await {
                    if n == 0 {
                        break;
                    }
                    let text = String::from_utf8_lossy(&chunk[..n]).into_owned();
                    buf.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push_str(&text);
                }
            }));
        }
        Ok(Self {
            child,
            stdin,
            stdout: LineReader::new(stdout),
            stderr: stderr_buf,
            stderr_task,
            seen: Vec::new(),
            program: cmd.program.clone(),
        })
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    /// Writes one raw line (a newline is added).
    pub async fn send_raw(&mut self, line: &str) -> anyhow::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| anyhow!("stdin already closed"))?;
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        stdin.write_all(&bytes).await.context("writing to stdin")?;
        stdin.flush().await.context("flushing stdin")?;
        Ok(())
    }

    /// Writes one JSON value as a line.
    pub async fn send(&mut self, value: &Value) -> anyhow::Result<()> {
        self.send_raw(&value.to_string()).await
    }

    /// Sends a stream-json user message with string content.
    pub async fn send_user(&mut self, text: &str) -> anyhow::Result<()> {
        self.send(&user_message(text, None)).await
    }

    /// Sends a control request and returns its request id.
    pub async fn send_control(&mut self, request_id: &str, request: Value) -> anyhow::Result<()> {
        self.send(&json!({"type": "control_request", "request_id": request_id, "request": request}))
            .await
    }

    /// Answers a `can_use_tool` request.
    pub async fn answer_permission(
        &mut self,
        request: &Value,
        allow: bool,
        deny_message: &str,
    ) -> anyhow::Result<()> {
        let request_id = request["request_id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let response = if allow {
            json!({"behavior": "allow", "updatedInput": request["request"]["input"].clone()})
        } else {
            json!({"behavior": "deny", "message": deny_message})
        };
        self.send(&json!({"type": "control_response", "response": {
            "subtype": "success", "request_id": request_id, "response": response}}))
            .await
    }

    /// Closes stdin (EOF for the child).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next stdout line, `None` at EOF. Fails after `timeout`.
    pub async fn next_line(&mut self, timeout: Duration) -> anyhow::Result<Option<Line>> {
        let line = self.stdout.next_line(timeout).await?;
        if let Some(l) = &line {
            self.seen.push(l.clone());
        }
        Ok(line)
    }

    /// The next stdout line with its text as the CLI wrote it (key order kept), `None` at EOF.
    pub async fn next_line_text(
        &mut self,
        timeout: Duration,
    ) -> anyhow::Result<Option<(String, Line)>> {
        let Some(text) = self.stdout.next_text(timeout).await? else {
            return Ok(None);
        };
        let line = parse_line(&text);
        self.seen.push(line.clone());
        Ok(Some((text, line)))
    }

    /// Reads lines until one is JSON and satisfies `pred`; fails at EOF or after `timeout`,
    /// with the lines seen and stderr in the message.
    pub async fn wait_for(
        &mut self,
        what: &str,
        timeout: Duration,
        mut pred: impl FnMut(&Value) -> bool,
    ) -> anyhow::Result<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left).await {
                Ok(Some(Line::Json(v))) if pred(&v) => return Ok(v),
                Ok(Some(_)) => {}
                Ok(None) => bail!("stdout ended while waiting for {what}\n{}", self.report()),
                Err(err) => bail!("{err} while waiting for {what}\n{}", self.report()),
            }
        }
    }

    /// Waits for the next `result` line.
    pub async fn wait_for_result(&mut self, timeout: Duration) -> anyhow::Result<Value> {
        self.wait_for("a result line", timeout, |v| v["type"] == "result")
            .await
    }

    /// Reads stdout to EOF (bounded by `timeout`) and returns what came.
    pub async fn read_to_end(&mut self, timeout: Duration) -> anyhow::Result<Vec<Line>> {
        let deadline = Instant::now() + timeout;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left).await {
                Ok(Some(line)) => lines.push(line),
                Ok(None) => return Ok(lines),
                Err(err) => bail!("{err} while reading to EOF\n{}", self.report()),
            }
        }
    }

    /// Waits for the process to exit, then (briefly) for its stderr to be fully collected.
    pub async fn wait_exit(&mut self, timeout: Duration) -> anyhow::Result<ExitStatus> {
        let status = match tokio::time::timeout(timeout, self.child.wait()).await {
            Ok(status) => status.context("waiting for the child")?,
            Err(_) => bail!("process did not exit within {timeout:?}\n{}", self.report()),
        };
        // A grandchild may still hold the stderr pipe open: do not wait for it long.
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
        }
        Ok(status)
    }

    /// Sends a signal to the process.
    pub fn signal(&self, signal: rustix::process::Signal) -> anyhow::Result<()> {
        let pid = self
            .pid()
            .ok_or_else(|| anyhow!("process already reaped"))?;
        let pid = rustix::process::Pid::from_raw(i32::try_from(pid)?)
            .ok_or_else(|| anyhow!("bad pid"))?;
        rustix::process::kill_process(pid, signal).context("kill")?;
        Ok(())
    }

    /// Kills the process (SIGKILL) and reaps it.
    pub async fn kill(&mut self) -> anyhow::Result<()> {
        self.child.kill().await.context("killing the child")
    }

    /// Everything the child wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Every stdout line read so far.
    pub fn seen(&self) -> &[Line] {
        &self.seen
    }

    /// The JSON stdout lines read so far (cloned).
    pub fn seen_json(&self) -> Vec<Value> {
        self.seen.iter().filter_map(Line::json).cloned().collect()
    }

    /// A diagnostic dump for failure messages: the last lines seen and stderr.
    pub fn report(&self) -> String {
        let mut out = format!(
            "--- {} stdout (last 40 lines) ---\n",
            self.program.display()
        );
        let skip = self.seen.len().saturating_sub(40);
        for line in &self.seen[skip..] {
            let text = match line {
                Line::Json(v) => v.to_string(),
                Line::Raw(s) => format!("RAW {s}"),
            };
            let cut: String = text.chars().take(400).collect();
            out.push_str(&cut);
            out.push('\n');
        }
        out.push_str("--- stderr ---\n");
        out.push_str(&self.stderr());
        out
    }
}

/// A stream-json user message; `uuid` is optional.
pub fn user_message(text: &str, uuid: Option<&str>) -> Value {
    let mut msg = json!({"type": "user", "message": {"role": "user", "content": text}, "parent_tool_use_id": null, "session_id": ""});
    if let Some(uuid) = uuid {
        msg["uuid"] = json!(uuid);
    }
    msg
}

/// A compact "shape" of one stdout line, for comparing sequences between the real CLI and the
/// fake: `type[/subtype][:event type][:delta or block type]`.
pub fn line_kind(line: &Value) -> String {
    let mut kind = line["type"].as_str().unwrap_or("?").to_owned();
    if let Some(sub) = line["subtype"].as_str() {
        kind.push('/');
        kind.push_str(sub);
    }
    if let Some(state) = line["state"].as_str() {
        kind.push(':');
        kind.push_str(state);
    }
    if let Some(sub) = line["response"]["subtype"].as_str() {
        kind.push('/');
        kind.push_str(sub);
    }
    if let Some(sub) = line["request"]["subtype"].as_str() {
        kind.push('/');
        kind.push_str(sub);
    }
    let event = &line["event"];
    if let Some(ev) = event["type"].as_str() {
        kind.push(':');
        kind.push_str(ev);
        if let Some(d) = event["delta"]["type"].as_str() {
            kind.push(':');
            kind.push_str(d);
        }
        if let Some(b) = event["content_block"]["type"].as_str() {
            kind.push(':');
            kind.push_str(b);
        }
    }
    if line["type"] == "assistant" || line["type"] == "user" {
        if let Some(blocks) = line["message"]["content"].as_array() {
            let types: Vec<&str> = blocks.iter().filter_map(|b| b["type"].as_str()).collect();
            kind.push('(');
            kind.push_str(&types.join(","));
            kind.push(')');
        } else if line["message"]["content"].is_string() {
            kind.push_str("(string)");
        }
        if line["isReplay"] == true {
            kind.push_str("[replay]");
        }
    }
    kind
}
