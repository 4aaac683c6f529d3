//! Replies kept as the daemon wrote them, for a command that passes a reply on without looking
//! into all of it (`paddock ls --json`: 10,000 rows decoded into structs only to be encoded
//! again cost more than the daemon's whole answer).

use std::ops::Range;

use paddock_proto::{ErrorBody, RequestId};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::error::ClientError;

/// A successful reply as the daemon wrote it.
#[derive(Debug)]
pub struct RawReply {
    line: String,
    /// Where the reply (the response's `ok` object) is in `line`.
    ok: Range<usize>,
}

impl RawReply {
    /// The reply's JSON object, `kind` included.
    pub fn json(&self) -> &str {
        self.line.get(self.ok.clone()).unwrap_or("{}")
    }
}

/// The response's prefix as the daemon writes it: `type` then `id` first.
const RESPONSE: &str = "{\"type\":\"response\",\"id\":";

/// The id of `line` when it is a response (`None`: it is something else, or not JSON).
pub(super) fn response_id(line: &[u8]) -> Option<RequestId> {
    // The prefix and the id are ASCII: only the start is looked at (a listing is megabytes).
    let start = line.get(..64).unwrap_or(line);
    let start = match std::str::from_utf8(start) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(start.get(..e.valid_up_to())?).ok()?,
    };
    if let Some((id, _)) = after_id(start) {
        return Some(id);
    }
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(rename = "type", borrow)]
        kind: &'a str,
        id: RequestId,
    }
    let head: Head<'_> = serde_json::from_slice(line).ok()?;
    (head.kind == "response").then_some(head.id)
}

/// The id of a line that begins as the daemon begins a response (`{"type":"response","id":N,`)
/// and what follows its comma.
fn after_id(line: &str) -> Option<(RequestId, &str)> {
    let rest = line.strip_prefix(RESPONSE)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let id = rest.get(..digits)?.parse().ok()?;
    Some((id, rest.get(digits..)?.strip_prefix(',')?))
}

/// The reply of the response `line`, checked to be of `kind`; the daemon's error when it
/// refused the request.
pub(super) fn reply(line: Vec<u8>, kind: &str, request: &str) -> Result<RawReply, ClientError> {
    let line = String::from_utf8(line).map_err(|_| {
        ClientError::Protocol(format!(
            "{request} was answered with bytes that are not UTF-8"
        ))
    })?;
    let ok = match fast_ok(&line) {
        Some(ok) => ok,
        None => slow_ok(&line, request)?,
    };
    let reply = RawReply { line, ok };
    let answered = paddock_proto::reply_kind(reply.json())
        .ok_or_else(|| ClientError::Protocol(format!("{request} was answered without a kind")))?;
    if answered != kind {
        return Err(ClientError::Protocol(format!(
            "{request} was answered with {answered}"
        )));
    }
    Ok(reply)
}

/// Where `ok` is in a line written as the daemon writes a success (`{"type":"response",
/// "id":N,"ok":{…}}`); `None` for any other shape. What is inside is checked by whoever reads
/// the reply.
fn fast_ok(line: &str) -> Option<Range<usize>> {
    let (_, rest) = after_id(line)?;
    let rest = rest.strip_prefix("\"ok\":{")?;
    let start = line.len() - rest.len() - 1;
    let end = line.strip_suffix("}}")?.len() + 1;
    (start < end).then_some(start..end)
}

/// [`fast_ok`] for any shape: the whole line decoded.
fn slow_ok(line: &str, request: &str) -> Result<Range<usize>, ClientError> {
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(borrow, default)]
        ok: Option<&'a RawValue>,
        #[serde(default)]
        error: Option<ErrorBody>,
    }
    let head: Head<'_> = serde_json::from_str(line)
        .map_err(|e| ClientError::Protocol(format!("{request} was answered with bad JSON: {e}")))?;
    match (head.ok, head.error) {
        (Some(ok), _) => {
            let ok = ok.get();
            let start = ok.as_ptr() as usize - line.as_ptr() as usize;
            Ok(start..start + ok.len())
        }
        (None, Some(error)) => Err(ClientError::from_body(error)),
        (None, None) => Err(ClientError::Protocol(format!(
            "{request} was answered with neither a reply nor an error"
        ))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use paddock_proto::{
        ChatSummary, Chats, ControlMessage, ErrorCode, Outcome, Reply, Response, ServerMessage,
        encode,
    };

    fn line(outcome: Outcome) -> Vec<u8> {
        let msg = ServerMessage::Control(ControlMessage::Response(Response { id: 42, outcome }));
        encode(&msg)
            .expect("encodes")
            .trim_end()
            .as_bytes()
            .to_vec()
    }

    fn chats() -> Outcome {
        Outcome::Ok(Reply::Chats(Chats {
            chats: vec![ChatSummary {
                session_id: "s\"}}".into(),
                ..ChatSummary::default()
            }],
            revision: Some(3),
            ..Chats::default()
        }))
    }

    #[test]
    fn the_reply_is_found_in_the_line_as_written_and_in_any_other_order() {
        let written = line(chats());
        assert_eq!(response_id(&written), Some(42));
        let reply = reply(written.clone(), "chats", "chat:list").expect("a reply");
        let want: serde_json::Value = serde_json::from_slice(&written).expect("json");
        let got: serde_json::Value = serde_json::from_str(reply.json()).expect("json");
        assert_eq!(got, want["ok"]);

        let reordered = format!(
            r#"{{ "ok": {}, "id": 42, "type": "response" }}"#,
            reply.json()
        );
        assert_eq!(response_id(reordered.as_bytes()), Some(42));
        let again = super::reply(reordered.into_bytes(), "chats", "chat:list").expect("a reply");
        assert_eq!(again.json(), reply.json());
    }

    #[test]
    fn an_error_or_another_kind_is_an_error() {
        let refused = line(Outcome::Err(ErrorBody::new(
            ErrorCode::NotFound,
            "no such project",
        )));
        match reply(refused, "chats", "chat:list") {
            Err(ClientError::Daemon(body)) => assert_eq!(body.code, ErrorCode::NotFound),
            other => panic!("{other:?}"),
        }
        let other = line(Outcome::Ok(Reply::Pong));
        assert!(matches!(
            reply(other, "chats", "chat:list"),
            Err(ClientError::Protocol(_))
        ));
        assert!(matches!(
            reply(b"{\"type\":\"response\"".to_vec(), "chats", "chat:list"),
            Err(ClientError::Protocol(_))
        ));
        assert_eq!(response_id(b"{\"type\":\"frame\",\"id\":1}"), None);
        assert_eq!(response_id(b"not json"), None);
    }
}
