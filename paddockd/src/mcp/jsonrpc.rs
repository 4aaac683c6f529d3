//! Newline-delimited JSON-RPC 2.0, as much of it as an MCP stdio server needs: reading one line
//! into a request, a notification or an error to answer, and writing one answer line.
//!
//! Answers are built from typed structs, so their keys come out in a fixed order
//! (`jsonrpc`, `id`, then `result` or `error`), whatever features `serde_json` is built with.

use serde::Serialize;
use serde_json::Value;

/// The line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// The line is JSON but not a request: not an object, no `method`, a bad `id`.
pub const INVALID_REQUEST: i64 = -32600;
/// No such method (also the answer to the CLI's `server/discover` probe).
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The method exists but its params are unusable.
pub const INVALID_PARAMS: i64 = -32602;
/// An answer could not be encoded (never expected).
pub const INTERNAL_ERROR: i64 = -32603;

/// A request id exactly as the client sent it (a string or a number), echoed back unchanged;
/// `null` in the answer to a line whose id could not be read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Id(Value);

impl Id {
    /// The id of an answer to a line whose id could not be read.
    pub fn null() -> Self {
        Self(Value::Null)
    }

    /// A valid request id: a JSON string or number, nothing else.
    pub fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::String(_) | Value::Number(_) => Some(Self(value.clone())),
            _ => None,
        }
    }

    pub fn as_value(&self) -> &Value {
        &self.0
    }
}

/// What one input line is.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A method call that wants exactly one answer.
    Request {
        id: Id,
        method: String,
        params: Value,
    },
    /// A method call without an id: never answered.
    Notification { method: String, params: Value },
    /// A line that is not a usable request: answer it with this error.
    Invalid { id: Id, code: i64, message: String },
    /// An empty or whitespace-only line: ignored.
    Blank,
}

/// Reads one line (without its newline).
pub fn parse(line: &[u8]) -> Incoming {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Incoming::Blank;
    }
    match serde_json::from_slice(line) {
        Ok(value) => from_value(value),
        Err(e) => Incoming::Invalid {
            id: Id::null(),
            code: PARSE_ERROR,
            message: format!("Parse error: {e}"),
        },
    }
}

/// Reads one message already parsed as JSON (an element of a batch, an HTTP body).
pub fn from_value(value: Value) -> Incoming {
    let Value::Object(mut obj) = value else {
        return invalid(Id::null(), "a message must be a JSON object");
    };
    let id = match obj.get("id") {
        None => None,
        Some(v) => match Id::from_value(v) {
            Some(id) => Some(id),
            None => return invalid(Id::null(), "`id` must be a string or a number"),
        },
    };
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => return invalid(id.unwrap_or_else(Id::null), "`method` must be a string"),
        None => return invalid(id.unwrap_or_else(Id::null), "no `method`"),
    };
    let params = obj.remove("params").unwrap_or(Value::Null);
    match id {
        Some(id) => Incoming::Request { id, method, params },
        None => Incoming::Notification { method, params },
    }
}

fn invalid(id: Id, why: &str) -> Incoming {
    Incoming::Invalid {
        id,
        code: INVALID_REQUEST,
        message: format!("Invalid Request: {why}"),
    }
}

#[derive(Serialize)]
struct ResultLine<'a, T: Serialize> {
    jsonrpc: &'static str,
    id: &'a Id,
    result: &'a T,
}

#[derive(Serialize)]
struct ErrorLine<'a> {
    jsonrpc: &'static str,
    id: &'a Id,
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: i64,
    message: &'a str,
}

/// The success answer to `id`, as one line without its newline.
pub fn result_line<T: Serialize>(id: &Id, result: &T) -> String {
    let line = ResultLine {
        jsonrpc: "2.0",
        id,
        result,
    };
    match serde_json::to_string(&line) {
        Ok(s) => s,
        Err(e) => error_line(
            id,
            INTERNAL_ERROR,
            &format!("Internal error: the answer could not be encoded: {e}"),
        ),
    }
}

/// The error answer to `id`, as one line without its newline.
pub fn error_line(id: &Id, code: i64, message: &str) -> String {
    let line = ErrorLine {
        jsonrpc: "2.0",
        id,
        error: ErrorObject { code, message },
    };
    // Only strings and numbers: encoding cannot fail, but never panic over it.
    serde_json::to_string(&line).unwrap_or_else(|_| {
        format!(
            r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":{INTERNAL_ERROR},"message":"Internal error"}}}}"#
        )
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_and_notifications() {
        assert_eq!(
            parse(br#"{"method":"tools/list","jsonrpc":"2.0","id":1}"#),
            Incoming::Request {
                id: Id(json!(1)),
                method: "tools/list".into(),
                params: Value::Null,
            }
        );
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Incoming::Notification {
                method: "notifications/initialized".into(),
                params: Value::Null,
            }
        );
        assert_eq!(parse(b"  \r"), Incoming::Blank);
    }

    #[test]
    fn bad_lines() {
        let Incoming::Invalid { id, code, .. } = parse(b"{not json") else {
            panic!("not invalid")
        };
        assert_eq!((id, code), (Id::null(), PARSE_ERROR));
        let Incoming::Invalid { id, code, .. } = parse(b"\xff\xfe") else {
            panic!("not invalid")
        };
        assert_eq!((id, code), (Id::null(), PARSE_ERROR));
        let Incoming::Invalid { id, code, .. } = parse(b"[1,2]") else {
            panic!("not invalid")
        };
        assert_eq!((id, code), (Id::null(), INVALID_REQUEST));
        let Incoming::Invalid { id, code, .. } = parse(br#"{"id":"a","result":{}}"#) else {
            panic!("not invalid")
        };
        assert_eq!((id, code), (Id(json!("a")), INVALID_REQUEST));
        let Incoming::Invalid { id, code, .. } = parse(br#"{"id":[1],"method":"ping"}"#) else {
            panic!("not invalid")
        };
        assert_eq!((id, code), (Id::null(), INVALID_REQUEST));
        let Incoming::Invalid { id, code, .. } = parse(br#"{"id":null,"method":"ping"}"#) else {
            panic!("not invalid")
        };
        assert_eq!((id, code), (Id::null(), INVALID_REQUEST));
        let Incoming::Invalid { id, code, .. } = parse(br#"{"id":4,"method":7}"#) else {
            panic!("not invalid")
        };
        assert_eq!((id, code), (Id(json!(4)), INVALID_REQUEST));
    }

    #[test]
    fn answer_lines_keep_their_key_order_and_the_id_as_given() {
        assert_eq!(
            error_line(
                &Id(json!("server-discover-probe-1")),
                METHOD_NOT_FOUND,
                "Method not found: server/discover"
            ),
            r#"{"jsonrpc":"2.0","id":"server-discover-probe-1","error":{"code":-32601,"message":"Method not found: server/discover"}}"#
        );
        assert_eq!(
            result_line(&Id(json!(18446744073709551615u64)), &json!({})),
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}"#
        );
        assert_eq!(
            result_line(&Id(json!(-2.5)), &json!({})),
            r#"{"jsonrpc":"2.0","id":-2.5,"result":{}}"#
        );
    }
}
