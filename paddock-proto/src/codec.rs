//! JSON-lines framing: one JSON object per line, with a maximum line length.
//!
//! The framer never holds more than `max` bytes of one line: an oversize line is discarded as
//! it streams in and reported once, when its newline arrives, so a peer that sends garbage can
//! neither exhaust memory nor desynchronise the stream.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{ControlMessage, Outcome, Reply, RequestId, Response, ServerMessage};

/// The longest line the daemon accepts from a client, newline excluded (8 MiB).
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// The longest line a client accepts from the daemon, newline excluded (256 MiB). Larger than
/// [`MAX_LINE_BYTES`] because one reply can carry a whole listing: 10,000 chats whose titles
/// are untruncated first prompts run past 8 MiB. Still a bound, so a broken daemon cannot make
/// a client buffer without limit.
pub const MAX_SERVER_LINE_BYTES: usize = 256 * 1024 * 1024;

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
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
    within_server_limit(&line)?;
    line.push('\n');
    Ok(line)
}

/// Refuses a line longer than [`MAX_SERVER_LINE_BYTES`].
pub(crate) fn within_server_limit(line: &str) -> Result<(), FrameError> {
    if line.len() > MAX_SERVER_LINE_BYTES {
        return Err(FrameError::TooLong {
            len: line.len(),
            max: MAX_SERVER_LINE_BYTES,
        });
    }
    Ok(())
}

/// Parses one line (without its newline) as a message.
pub fn decode<T: DeserializeOwned>(line: &[u8]) -> Result<T, FrameError> {
    serde_json::from_slice(line).map_err(|e| FrameError::Malformed(e.to_string()))
}

/// Decodes a line the daemon wrote: what [`decode`] gives for a [`ServerMessage`], faster for
/// a successful response. The derived decoding of the envelope (untagged, then tagged by
/// `type`, a flattened outcome, a reply tagged by `kind`) copies a response into an
/// intermediate tree at each of those steps; a response's reply is decoded here straight into
/// its payload instead ([`Reply::decode_kind`]). Anything else, and anything the fast path
/// does not take, goes through [`decode`].
pub fn decode_server(line: &[u8]) -> Result<ServerMessage, FrameError> {
    match decode_response(line) {
        Some(message) => Ok(message),
        None => decode(line),
    }
}

/// A successful response, decoded without the intermediate trees; `None` when `line` is not
/// one (or not one this path takes).
fn decode_response(line: &[u8]) -> Option<ServerMessage> {
    use serde::Deserialize;
    use serde_json::value::RawValue;
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Option<&'a str>,
        #[serde(default)]
        id: Option<RequestId>,
        #[serde(borrow, default)]
        ok: Option<&'a RawValue>,
    }
    let head: Head<'_> = serde_json::from_slice(line).ok()?;
    if head.kind != Some("response") {
        return None;
    }
    let (id, ok) = (head.id?, head.ok?.get());
    let reply = Reply::decode_kind(reply_kind(ok)?, ok)?.ok()?;
    Some(ServerMessage::Control(ControlMessage::Response(Response {
        id,
        outcome: Outcome::Ok(reply),
    })))
}

/// The `kind` of a reply object (a response's `ok`); `None` when it has none.
pub fn reply_kind(ok: &str) -> Option<&str> {
    use serde::Deserialize;
    // The encoder writes the tag first; any other order costs one more pass to find it.
    if let Some((kind, _)) = ok
        .strip_prefix("{\"kind\":\"")
        .and_then(|rest| rest.split_once('"'))
        && !kind.contains('\\')
    {
        return Some(kind);
    }
    #[derive(Deserialize)]
    struct Kind<'a> {
        #[serde(borrow)]
        kind: &'a str,
    }
    serde_json::from_str::<Kind<'_>>(ok).ok().map(|k| k.kind)
}

/// Splits a byte stream into lines of at most `max` bytes.
///
/// Linear in the bytes pushed: each byte is scanned for a newline once (the framer remembers
/// where the scan of the unfinished line stopped) and moved at most once (consumed lines are
/// cut off the front only when the next push comes, so a burst of short lines costs one move of
/// what is left, not one per line).
#[derive(Debug)]
pub struct LineFramer {
    buf: Vec<u8>,
    /// Where the unconsumed bytes start: everything before is lines already returned.
    start: usize,
    /// How far past `start` the buffer is known to hold no newline.
    scanned: usize,
    max: usize,
    /// Bytes of the current oversize line seen so far; `Some` while discarding it.
    discarding: Option<usize>,
    /// Bytes examined for a newline, and bytes moved to the buffer's front, in total (the unit
    /// tests prove linearity with them).
    #[cfg(test)]
    examined: usize,
    #[cfg(test)]
    moved: usize,
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
            start: 0,
            scanned: 0,
            max,
            discarding: None,
            #[cfg(test)]
            examined: 0,
            #[cfg(test)]
            moved: 0,
        }
    }

    /// The first newline in the buffer from `from` on, counting the bytes looked at.
    fn find_newline(&mut self, from: usize) -> Option<usize> {
        let hay = &self.buf[from..];
        let found = memchr::memchr(b'\n', hay);
        #[cfg(test)]
        {
            self.examined += found.map_or(hay.len(), |i| i + 1);
        }
        found.map(|i| from + i)
    }

    /// Appends bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        // While the newline that ends the oversize line has not come, the buffer is empty.
        if let Some(seen) = self
            .discarding
            .as_mut()
            .filter(|_| self.buf.len() == self.start)
        {
            // Drop everything up to that newline; from it on the bytes are kept for
            // `next_frame`, and later pushes append after them.
            let found = memchr::memchr(b'\n', bytes);
            #[cfg(test)]
            {
                self.examined += found.map_or(bytes.len(), |i| i + 1);
            }
            match found {
                None => {
                    *seen += bytes.len();
                    return;
                }
                Some(i) => {
                    *seen += i;
                    self.buf.clear();
                    self.buf.extend_from_slice(&bytes[i..]);
                    self.start = 0;
                    // The newline is the first byte: nothing before it to scan again.
                    self.scanned = 0;
                    return;
                }
            }
        }
        if self.start > 0 {
            // Cut off the lines already returned; what is left is one unfinished line at most
            // (or lines not yet asked for), moved once.
            #[cfg(test)]
            {
                self.moved += self.buf.len() - self.start;
            }
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
        if self.find_newline(self.scanned).is_none() {
            self.scanned = self.buf.len();
            if self.buf.len() > self.max {
                self.discarding = Some(self.buf.len());
                self.buf.clear();
                self.scanned = 0;
            }
        }
        // A newline was found: `next_frame` finds it again from `scanned`, which has not
        // moved, so those bytes are examined twice at most.
    }

    /// The next complete line, or an error for an oversize one; `None` when more bytes are needed.
    pub fn next_frame(&mut self) -> Option<Result<Vec<u8>, FrameError>> {
        let Some(pos) = self.find_newline(self.start + self.scanned) else {
            self.scanned = self.buf.len() - self.start;
            return None;
        };
        let mut line = &self.buf[self.start..pos];
        self.start = pos + 1;
        self.scanned = 0;
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        let result = if let Some(seen) = self.discarding.take() {
            Err(FrameError::TooLong {
                len: seen + line.len(),
                max: self.max,
            })
        } else if line.len() > self.max {
            Err(FrameError::TooLong {
                len: line.len(),
                max: self.max,
            })
        } else if self.start == self.buf.len() && line.as_ptr() == self.buf.as_ptr() {
            // The line is all that is buffered: hand the buffer over instead of a copy (a
            // listing's one line can be megabytes).
            let len = line.len();
            let mut whole = std::mem::take(&mut self.buf);
            whole.truncate(len);
            self.start = 0;
            Ok(whole)
        } else {
            Ok(line.to_vec())
        };
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        Some(result)
    }

    /// Bytes buffered for an unfinished line (for end-of-stream diagnostics).
    pub fn pending(&self) -> usize {
        self.buf.len() - self.start + self.discarding.unwrap_or(0)
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

    /// Pushes `line` and its newline in `chunk`-byte pieces, asking for frames after each push
    /// as every reader does; returns the frames and the bytes the framer examined.
    fn feed(f: &mut LineFramer, bytes: &[u8], chunk: usize) -> Vec<Result<Vec<u8>, FrameError>> {
        let mut out = Vec::new();
        for piece in bytes.chunks(chunk) {
            f.push(piece);
            out.extend(frames(f));
        }
        out
    }

    #[test]
    fn a_long_line_in_small_pieces_is_scanned_once() {
        // 4 MiB in 1-byte pushes: rescanning the buffer per push would examine ~8 TiB.
        let len = 4 * 1024 * 1024;
        let mut bytes = vec![b'x'; len];
        bytes.push(b'\n');
        let mut f = LineFramer::new(len);
        let got = feed(&mut f, &bytes, 1);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].as_ref().map(Vec::len), Ok(len));
        assert!(
            f.examined <= 2 * bytes.len(),
            "examined {} bytes for a {}-byte stream",
            f.examined,
            bytes.len()
        );
        assert!(f.moved <= bytes.len(), "moved {}", f.moved);
    }

    #[test]
    fn an_oversize_line_in_small_pieces_is_scanned_once_and_the_stream_recovers() {
        let max = 1024 * 1024;
        let mut bytes = vec![b'y'; 3 * max];
        bytes.extend_from_slice(b"\n{\"ok\":1}\n");
        let mut f = LineFramer::new(max);
        let got = feed(&mut f, &bytes, 7);
        assert_eq!(
            got,
            vec![
                Err(FrameError::TooLong { len: 3 * max, max }),
                Ok(b"{\"ok\":1}".to_vec())
            ]
        );
        assert!(f.examined <= 2 * bytes.len(), "examined {}", f.examined);
        assert_eq!(f.pending(), 0);
    }

    #[test]
    fn many_short_lines_in_one_push_cost_linear_work() {
        // 200,000 lines in one push: each line returned must not move the rest of the buffer.
        let line = b"{\"type\":\"stream_event\"}\n";
        let bytes: Vec<u8> = line
            .iter()
            .copied()
            .cycle()
            .take(line.len() * 200_000)
            .collect();
        let mut f = LineFramer::new(64);
        let got = feed(&mut f, &bytes, bytes.len());
        assert_eq!(got.len(), 200_000);
        assert!(
            got.iter()
                .all(|g| g.as_deref() == Ok(&line[..line.len() - 1]))
        );
        assert!(f.examined <= 2 * bytes.len(), "examined {}", f.examined);
        assert_eq!(f.moved, 0);
        assert_eq!(f.pending(), 0);
    }

    #[test]
    fn a_line_split_across_pushes_after_complete_ones_keeps_its_start() {
        let mut f = LineFramer::new(32);
        f.push(b"one\ntwo\nthr");
        assert_eq!(
            frames(&mut f),
            vec![Ok(b"one".to_vec()), Ok(b"two".to_vec())]
        );
        assert_eq!(f.pending(), 3);
        f.push(b"ee");
        assert!(frames(&mut f).is_empty());
        f.push(b"\nfour\n");
        assert_eq!(
            frames(&mut f),
            vec![Ok(b"three".to_vec()), Ok(b"four".to_vec())]
        );
        assert_eq!(f.pending(), 0);
    }

    #[test]
    fn an_unfinished_tail_past_the_limit_is_discarded_at_the_next_push() {
        let mut f = LineFramer::new(4);
        f.push(b"ok\n0123456789");
        assert_eq!(frames(&mut f), vec![Ok(b"ok".to_vec())]);
        f.push(b"ab");
        assert!(frames(&mut f).is_empty());
        assert_eq!(f.pending(), 12);
        f.push(b"c\nz\n");
        assert_eq!(
            frames(&mut f),
            vec![
                Err(FrameError::TooLong { len: 13, max: 4 }),
                Ok(b"z".to_vec())
            ]
        );
    }

    #[test]
    fn pushes_after_the_end_of_an_oversize_line_are_kept() {
        let mut f = LineFramer::new(4);
        f.push(b"0123456789");
        f.push(b"\n");
        f.push(b"ok\n");
        assert_eq!(
            frames(&mut f),
            vec![
                Err(FrameError::TooLong { len: 10, max: 4 }),
                Ok(b"ok".to_vec())
            ]
        );
        assert_eq!(f.pending(), 0);
    }

    #[test]
    fn any_chunking_gives_the_lines_of_the_whole_stream() {
        // A small deterministic generator: lines of 0..=12 bytes around a limit of 6, cut
        // into pieces of every size from 1 to 9, with frames asked for after some pushes only.
        let mut seed = 0x2545_f491_u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        for _ in 0..200 {
            let mut stream = Vec::new();
            let mut want = Vec::new();
            for _ in 0..next(8) {
                let len = usize::try_from(next(13)).unwrap();
                let line = vec![b'a' + u8::try_from(next(26)).unwrap(); len];
                stream.extend_from_slice(&line);
                stream.push(b'\n');
                want.push(if len > 6 {
                    Err(FrameError::TooLong { len, max: 6 })
                } else {
                    Ok(line)
                });
            }
            let tail = usize::try_from(next(5)).unwrap();
            stream.extend(std::iter::repeat_n(b'z', tail));
            for chunk in 1..=9 {
                let mut f = LineFramer::new(6);
                let mut got = Vec::new();
                for piece in stream.chunks(chunk) {
                    f.push(piece);
                    if next(2) == 0 {
                        got.extend(frames(&mut f));
                    }
                }
                got.extend(frames(&mut f));
                assert_eq!(got, want, "chunks of {chunk}: {stream:?}");
                assert_eq!(f.pending(), tail, "chunks of {chunk}: {stream:?}");
            }
        }
    }

    #[test]
    fn decode_reports_malformed_json() {
        let err = decode::<serde_json::Value>(b"{not json").unwrap_err();
        assert!(matches!(err, FrameError::Malformed(_)));
    }
}
