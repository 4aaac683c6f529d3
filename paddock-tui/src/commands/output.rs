//! Writing to stdout and stderr from commands, and failures that carry their own exit status.
//!
//! The one way a command writes: [`print`] and [`eprint`] make every character a terminal would
//! act on visible (`format::visible`), whatever the text holds (a reply, a tool's output, a
//! file's name, a title, a daemon's message quoting any of them), so nothing printed can write
//! the clipboard, set the title or clear the screen. JSON goes out as serde writes it (its
//! strings escape C0 controls) with DEL, the C1 and the bidi controls escaped too
//! (`format::json_escaped`: the same value, harmless when `--json` reaches a terminal), and the
//! program's own styling as a [`Styled`] text through [`print_styled`].

use std::fmt;
use std::io::{ErrorKind, Write};

use serde::Serialize;

use crate::format::{Styled, json_escaped, visible};

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

/// Writes `text` to stdout, every character a terminal would act on made visible, and flushes
/// at once, so streamed text shows as it arrives.
pub fn print(text: &str) -> anyhow::Result<()> {
    write_stdout(&visible(text))
}

/// Writes content and the program's own styling to stdout, as they are.
pub fn print_styled(text: &Styled) -> anyhow::Result<()> {
    write_stdout(text.as_str())
}

/// Writes `text` to stdout as it is and flushes.
fn write_stdout(text: &str) -> anyhow::Result<()> {
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

/// Writes to stderr, every character a terminal would act on made visible; if even that fails
/// there is nobody left to tell.
pub fn eprint(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(visible(text).as_bytes());
    let _ = stderr.flush();
}

/// One JSON document (an array or an object) on stdout, in the proto types' serde shape.
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    write_stdout(&json_escaped(&text))
}

/// Rows as the daemon wrote them, on stdout as [`print_json`] prints the decoded rows (which
/// it would cost more to decode than to write): `ls -A --json`. Written as they are laid out,
/// a few hundred kilobytes at a time.
pub fn print_json_rows(rows: &[&serde_json::value::RawValue]) -> anyhow::Result<()> {
    let mut stdout = Chunked::new();
    let mut text = String::with_capacity(Chunked::CHUNK + 64 * 1024);
    super::indent::array(rows, &mut text, |text| stdout.write_if_full(text));
    stdout.finish(&text)
}

/// A JSON array as the daemon wrote it (`array` begins with it), on stdout as
/// [`print_json_rows`] prints its elements: `ls --json`, straight from the reply. Returns how
/// long the array is in `array`; an error when it does not end (what came is written).
pub fn print_json_array(array: &str) -> anyhow::Result<usize> {
    let mut stdout = Chunked::new();
    let mut text = String::with_capacity(Chunked::CHUNK + 64 * 1024);
    let end = super::indent::array_text(array, &mut text, |text| stdout.write_if_full(text));
    stdout.finish(&text)?;
    end.ok_or_else(|| anyhow::anyhow!("paddockd's list of chats ends in the middle of a row"))
}

/// Stdout written a chunk at a time as JSON text is laid out (escaped as [`print_json`]'s).
struct Chunked {
    stdout: std::io::StdoutLock<'static>,
    written: std::io::Result<()>,
}

impl Chunked {
    const CHUNK: usize = 256 * 1024;

    fn new() -> Self {
        Self {
            stdout: std::io::stdout().lock(),
            written: Ok(()),
        }
    }

    /// Writes `text` out and empties it once it holds a chunk (after a failed write, only
    /// empties it).
    fn write_if_full(&mut self, text: &mut String) {
        if text.len() >= Self::CHUNK {
            if self.written.is_ok() {
                self.written = self.stdout.write_all(json_escaped(text).as_bytes());
            }
            text.clear();
        }
    }

    /// Writes the rest and flushes; the first failure, if any.
    fn finish(mut self, rest: &str) -> anyhow::Result<()> {
        match std::mem::replace(&mut self.written, Ok(()))
            .and_then(|()| self.stdout.write_all(json_escaped(rest).as_bytes()))
            .and_then(|()| self.stdout.flush())
        {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::BrokenPipe => Err(Failure::broken_pipe().into()),
            Err(e) => Err(anyhow::Error::new(e).context("could not write to stdout")),
        }
    }
}

/// One JSON value on one line (a stream of frames).
pub fn print_json_line<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut text = serde_json::to_string(value)?;
    text.push('\n');
    write_stdout(&json_escaped(&text))
}
