//! JSON-lines framing: one JSON object per line, with a maximum line length.
//!
//! The framer never holds more than `max` bytes of one line: an oversize line is discarded as
//! it streams in and reported once, when its newline arrives, so a peer that sends garbage can
//! neither exhaust memory nor desynchronise the stream.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The longest line the daemon accepts from a client, newline excluded (8 MiB).
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// The longest line a client accepts from the daemon, newline excluded (256 MiB). Larger than
/// [`MAX_LINE_BYTES`] because one reply can carry a whole listing: 10,000 chats whose titles
/// are untruncated first prompts run past 8 MiB. Still a bound, so a broken daemon cannot make
/// a client buffer without limit.
pub const MAX_SERVER_LINE_BYTES: usize = 256 * 1024 * 1024;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FrameError {
    #[error("line of {len} bytes exceeds the {max}-byte limit")]
    TooLong { len: usize, max: usize },
    #[error("malformed message: {0}")]
    Malformed(String),
    #[error("message could not be encoded: {0}")]
    Encode(String),
}

/// Serialises a message as one line, newline included. Refuses a line longer than
/// [`MAX_SERVER_LINE_BYTES`]; a request longer than [`MAX_LINE_BYTES`] encodes, and the daemon
/// answers it with `frame_too_large`.
pub fn encode<T: Serialize>(msg: &T) -> Result<String, FrameError> {
    let mut line = serde_json::to_string(msg).map_err(|e| FrameError::Encode(e.to_string()))?;
    if line.len() > MAX_SERVER_LINE_BYTES {
        return Err(FrameError::TooLong {
            len: line.len(),
            max: MAX_SERVER_LINE_BYTES,
        });
    }
    line.push('\n');
    Ok(line)
}

/// Parses one line (without its newline) as a message.
pub fn decode<T: DeserializeOwned>(line: &[u8]) -> Result<T, FrameError> {
    serde_json::from_slice(line).map_err(|e| FrameError::Malformed(e.to_string()))
}

/// Splits a byte stream into lines of at most `max` bytes.
#[derive(Debug)]
pub struct LineFramer {
    buf: Vec<u8>,
    max: usize,
    /// Bytes of the current oversize line seen so far; `Some` while discarding it.
    discarding: Option<usize>,
}

impl Default for LineFramer {
    fn default() -> Self {
        Self::new(MAX_LINE_BYTES)
    }
}

impl LineFramer {
    pub fn new(max: usize) -> Self {
        Self {
            buf: Vec::new(),
            max,
            discarding: None,
        }
    }

    /// Appends bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        if self.discarding.is_none() && !self.buf.contains(&b'\n') && self.buf.len() > self.max {
            self.discarding = Some(self.buf.len());
            self.buf.clear();
        } else if let Some(seen) = self.discarding.as_mut() {
            // Drop everything up to the newline that ends the oversize line.
            match self.buf.iter().position(|&b| b == b'\n') {
                Some(_) => {}
                None => {
                    *seen += self.buf.len();
                    self.buf.clear();
                }
            }
        }
    }

    /// The next complete line, or an error for an oversize one; `None` when more bytes are needed.
    pub fn next_frame(&mut self) -> Option<Result<Vec<u8>, FrameError>> {
        let pos = self.buf.iter().position(|&b| b == b'\n')?;
        let mut line: Vec<u8> = self.buf.drain(..=pos).collect();
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if let Some(seen) = self.discarding.take() {
            return Some(Err(FrameError::TooLong {
                len: seen + line.len(),
                max: self.max,
            }));
        }
        if line.len() > self.max {
            return Some(Err(FrameError::TooLong {
                len: line.len(),
                max: self.max,
            }));
        }
        Some(Ok(line))
    }

    /// Bytes buffered for an unfinished line (for end-of-stream diagnostics).
    pub fn pending(&self) -> usize {
        self.buf.len() + self.discarding.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn frames(framer: &mut LineFramer) -> Vec<Result<Vec<u8>, FrameError>> {
        std::iter::from_fn(|| framer.next_frame()).collect()
    }

    #[test]
    fn splits_lines_across_pushes() {
        let mut f = LineFramer::new(16);
        f.push(b"{\"a\":1}\n{\"b\"");
        assert_eq!(frames(&mut f), vec![Ok(b"{\"a\":1}".to_vec())]);
        f.push(b":2}\r\n");
        assert_eq!(frames(&mut f), vec![Ok(b"{\"b\":2}".to_vec())]);
        assert_eq!(f.pending(), 0);
    }

    #[test]
    fn oversize_line_is_reported_once_and_the_stream_recovers() {
        let mut f = LineFramer::new(8);
        f.push(b"0123456789");
        assert!(frames(&mut f).is_empty());
        f.push(b"abcdef");
        assert!(frames(&mut f).is_empty());
        assert!(f.pending() <= 16 + 8);
        f.push(b"xyz\nok\n");
        assert_eq!(
            frames(&mut f),
            vec![
                Err(FrameError::TooLong { len: 19, max: 8 }),
                Ok(b"ok".to_vec())
            ]
        );
    }

    #[test]
    fn oversize_complete_line_in_one_push() {
        let mut f = LineFramer::new(4);
        f.push(b"123456\nab\n");
        assert_eq!(
            frames(&mut f),
            vec![
                Err(FrameError::TooLong { len: 6, max: 4 }),
                Ok(b"ab".to_vec())
            ]
        );
    }

    #[test]
    fn decode_reports_malformed_json() {
        let err = decode::<serde_json::Value>(b"{not json").unwrap_err();
        assert!(matches!(err, FrameError::Malformed(_)));
    }
}
