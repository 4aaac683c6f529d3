//! Writing to stdout and stderr from commands, and failures that carry their own exit status.

use std::fmt;
use std::io::{ErrorKind, Write};

use serde::Serialize;

/// A failure with a chosen exit status. `main` prints `paddock: <message>` (nothing when there
/// is no message) and exits with `code`.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: Option<String>,
}

impl Failure {
    pub fn new(code: u8, message: impl Into<String>) -> Self {
        Self {
            code,
            message: Some(message.into()),
        }
    }

    /// The reader of our stdout went away (`paddock ls | head -1`): exit as a process killed by
    /// SIGPIPE would, without a word.
    fn broken_pipe() -> Self {
        Self {
            code: 141,
            message: None,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message.as_deref().unwrap_or(""))
    }
}

impl std::error::Error for Failure {}

/// Writes to stdout and flushes at once, so streamed text shows as it arrives.
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Err(Failure::broken_pipe().into()),
        Err(e) => Err(anyhow::Error::new(e).context("could not write to stdout")),
    }
}

/// Writes to stderr; if even that fails there is nobody left to tell.
pub fn eprint(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

/// One JSON document (an array or an object) on stdout, in the proto types' serde shape.
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    print(&text)
}

/// Rows as the daemon wrote them, on stdout as [`print_json`] prints the decoded rows (which
/// it would cost more to decode than to write): `ls --json`. Written as they are laid out, a
/// few hundred kilobytes at a time.
pub fn print_json_rows(rows: &[&serde_json::value::RawValue]) -> anyhow::Result<()> {
    const CHUNK: usize = 256 * 1024;
    let mut stdout = std::io::stdout().lock();
    let mut text = String::with_capacity(CHUNK + 64 * 1024);
    let mut written = Ok(());
    super::indent::array(rows, &mut text, |text| {
        if written.is_ok() && text.len() >= CHUNK {
            written = stdout.write_all(text.as_bytes());
            text.clear();
        }
    });
    match written
        .and_then(|()| stdout.write_all(text.as_bytes()))
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Err(Failure::broken_pipe().into()),
        Err(e) => Err(anyhow::Error::new(e).context("could not write to stdout")),
    }
}

/// One JSON value on one line (a stream of frames).
pub fn print_json_line<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut text = serde_json::to_string(value)?;
    text.push('\n');
    print(&text)
}
