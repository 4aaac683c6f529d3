//! `paddockd mcp`: the MCP bridge paddockd gives its agents.
//!
//! Claude Code starts the MCP servers named in `--mcp-config` itself, as child processes that
//! speak JSON-RPC on their stdin and stdout; it cannot be pointed at an existing socket of the
//! daemon. So for every `claude` it runs, the daemon names this subcommand
//! (`paddockd mcp --server paddock_manage`, and `--server paddock` for `send_file`) with two
//! variables in the server's environment: `PADDOCK_SOCKET`, where the daemon listens, and
//! `PADDOCK_AGENT_TOKEN`, a secret the daemon made for that one chat. The bridge answers the
//! MCP lifecycle itself (`server/discover`, `initialize`, `ping`) and turns `tools/list` into
//! `agent:tools` and `tools/call` into `agent:call` on the daemon's socket, each carrying the
//! token. The token is what binds every call to the chat that made it: the daemon resolves it
//! to that chat, so a tool call is attributed to its real caller and gated by its spawn depth,
//! and no chat can act as another. It is never put on a command line, where `ps` would show it.
//!
//! The handshake the real CLI performs (reference `claude-cli.md` §7): a `server/discover`
//! probe answered with -32601, `initialize`, `notifications/initialized`, `tools/list`, then
//! `tools/call` with `_meta["claudecode/toolUseId"]`, `notifications/cancelled` on an
//! interrupt, and SIGINT then SIGTERM when the CLI exits.
//!
//! Layout: [`jsonrpc`] reads and writes the lines, [`bridge`] answers them, [`daemon`] is the
//! blocking socket client; this file is the process around them (arguments, stdio, signals).
//! stdout carries only JSON-RPC lines; the few diagnostics go to stderr.

pub mod bridge;
pub mod daemon;
pub mod jsonrpc;

#[cfg(test)]
mod fake_daemon;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

pub use bridge::{Bridge, SUPPORTED_PROTOCOL_VERSIONS, TOKEN_REFUSED};
pub use daemon::{DaemonClient, DaemonError, Timeouts};

use crate::cli::McpArgs;

/// The environment variable holding the chat's token.
pub const TOKEN_ENV: &str = "PADDOCK_AGENT_TOKEN";
/// The environment variable holding the daemon's socket (`--socket` wins).
pub const SOCKET_ENV: &str = "PADDOCK_SOCKET";
/// The longest input line served (the daemon's own request limit: a longer call could not
/// reach it anyway).
pub const MAX_INPUT_LINE_BYTES: usize = paddock_proto::MAX_LINE_BYTES;

/// Who the bridge speaks for and where the daemon is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// `paddock_manage` or `paddock`; also the `serverInfo.name` of `initialize`.
    pub server: String,
    pub socket: PathBuf,
    pub token: String,
}

/// What keeps the bridge from starting.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum McpError {
    #[error(
        "{TOKEN_ENV} is not set; paddockd starts this bridge for its agents with their chat's token (not for people)"
    )]
    MissingToken,
    #[error("no daemon socket: set {SOCKET_ENV} or pass --socket")]
    MissingSocket,
    #[error("--server needs a name: paddock_manage or paddock")]
    MissingServer,
}

impl Options {
    /// The options from the command line and the environment (`env` reads one variable);
    /// empty values count as missing.
    pub fn resolve(
        args: &McpArgs,
        env: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Self, McpError> {
        let server = args.server.trim();
        if server.is_empty() {
            return Err(McpError::MissingServer);
        }
        let token = env(TOKEN_ENV)
            .and_then(|t| t.into_string().ok())
            .filter(|t| !t.trim().is_empty())
            .ok_or(McpError::MissingToken)?;
        let socket = args
            .socket
            .clone()
            .filter(|s| !s.as_os_str().is_empty())
            .or_else(|| env(SOCKET_ENV).filter(|s| !s.is_empty()).map(PathBuf::from))
            .ok_or(McpError::MissingSocket)?;
        Ok(Self {
            server: server.to_owned(),
            socket,
            token,
        })
    }
}

/// `paddockd mcp`: serves stdin/stdout until stdin ends or SIGINT/SIGTERM arrives (exit 0).
/// Missing token or socket: one line on stderr, exit 2.
pub fn main(args: &McpArgs) -> ExitCode {
    let options = match Options::resolve(args, |k| std::env::var_os(k)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("paddockd mcp: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = exit_on_signals() {
        eprintln!("paddockd mcp: cannot install the signal handlers: {e}");
        return ExitCode::FAILURE;
    }
    let mut bridge = Bridge::new(options);
    match serve(&mut bridge, io::stdin().lock(), io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("paddockd mcp: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Answers every line of `input` on `output`, one line each, flushed at once; returns at the
/// end of `input`, or when `output` is closed (the CLI went away).
pub fn serve<R: BufRead, W: Write>(bridge: &mut Bridge, input: R, output: W) -> io::Result<()> {
    serve_bounded(bridge, input, output, MAX_INPUT_LINE_BYTES)
}

fn serve_bounded<R: BufRead, W: Write>(
    bridge: &mut Bridge,
    mut input: R,
    mut output: W,
    max: usize,
) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        let answer = match read_line(&mut input, &mut line, max)? {
            LineRead::Eof => return Ok(()),
            LineRead::TooLong(len) => Some(jsonrpc::error_line(
                &jsonrpc::Id::null(),
                jsonrpc::INVALID_REQUEST,
                &format!("Invalid Request: a line of {len} bytes exceeds the {max}-byte limit"),
            )),
            LineRead::Line => bridge.handle_line(&line),
        };
        if let Some(mut answer) = answer {
            answer.push('\n');
            let written = output
                .write_all(answer.as_bytes())
                .and_then(|()| output.flush());
            match written {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum LineRead {
    /// `line` holds the next line, without its newline.
    Line,
    /// The line was longer than the limit and was skipped; its length.
    TooLong(usize),
    Eof,
}

/// Reads one line into `line`, never holding more than `max` bytes of it: the rest of an
/// oversize line is read and dropped. A last line without a newline still counts.
fn read_line<R: BufRead>(input: &mut R, line: &mut Vec<u8>, max: usize) -> io::Result<LineRead> {
    line.clear();
    let mut len = 0usize;
    let mut started = false;
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (started, len > max) {
                (false, _) => LineRead::Eof,
                (true, false) => LineRead::Line,
                (true, true) => LineRead::TooLong(len),
            });
        }
        started = true;
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        len += chunk.len();
        if len <= max {
            line.extend_from_slice(chunk);
        } else {
            line.clear();
        }
        input.consume(used);
        if done {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(if len > max {
                LineRead::TooLong(len)
            } else {
                LineRead::Line
            });
        }
    }
}

/// SIGINT and SIGTERM (how the CLI stops its MCP servers) end the process with status 0 and
/// no output. A thread waits for them on a small runtime of its own; the handlers are in place
/// before this returns.
fn exit_on_signals() -> io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (mut interrupt, mut terminate) = {
        let _guard = runtime.enter();
        (
            signal(SignalKind::interrupt())?,
            signal(SignalKind::terminate())?,
        )
    };
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            runtime.block_on(async {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            });
            std::process::exit(0);
        })?;
    Ok(())
}
