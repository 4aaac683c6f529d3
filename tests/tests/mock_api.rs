//! Tests of the Messages API stand-in over raw HTTP/1.1 (no client library), and of the
//! `mock-anthropic` bin.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use paddock_tests::mock_api::MockApi;
use paddock_tests::process::{CliCommand, Line};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;

const T: Duration = Duration::from_secs(20);

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// `(event name, data)` pairs of an SSE body.
    fn events(&self) -> Vec<(String, Value)> {
        let text = String::from_utf8(self.body.clone()).unwrap();
        text.split("\n\n")
            .filter(|frame| !frame.trim().is_empty())
            .map(|frame| {
                let mut event = String::new();
                let mut data = Value::Null;
                for line in frame.lines() {
                    if let Some(e) = line.strip_prefix("event: ") {
                        event = e.to_owned();
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        data = serde_json::from_str(d).unwrap();
                    }
                }
                (event, data)
            })
            .collect()
    }

    fn text(&self) -> String {
        self.events()
            .iter()
            .filter_map(|(_, d)| d["delta"]["text"].as_str().map(str::to_owned))
            .collect()
    }
}

/// One keep-alive connection.
struct Conn(BufReader<TcpStream>);

impl Conn {
    async fn open(api: &MockApi) -> Self {
        Self(BufReader::new(
            TcpStream::connect(("127.0.0.1", api.port())).await.unwrap(),
        ))
    }

    async fn raw(&mut self, request: &[u8], head_only: bool) -> Response {
        self.0.get_mut().write_all(request).await.unwrap();
        tokio::time::timeout(T, self.read_response(head_only))
            .await
            .unwrap()
    }

    async fn request(&mut self, method: &str, path: &str, body: Option<&Value>) -> Response {
        let body = body.map(Value::to_string).unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-api-key: dummy\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        self.raw(request.as_bytes(), method == "HEAD").await
    }

    async fn read_response(&mut self, head_only: bool) -> Response {
        let mut line = String::new();
        self.0.read_line(&mut line).await.unwrap();
        let status: u16 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            self.0.read_line(&mut h).await.unwrap();
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let (k, v) = h.split_once(':').unwrap();
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
        let mut resp = Response {
            status,
            headers,
            body: Vec::new(),
        };
        if head_only {
            return resp;
        }
        if resp.header("transfer-encoding") == Some("chunked") {
            loop {
                let mut size = String::new();
                self.0.read_line(&mut size).await.unwrap();
                let size = usize::from_str_radix(size.trim(), 16).unwrap();
                let mut chunk = vec![0; size + 2];
                self.0.read_exact(&mut chunk).await.unwrap();
                if size == 0 {
                    break;
                }
                resp.body.extend_from_slice(&chunk[..size]);
            }
        } else {
            let len: usize = resp.header("content-length").unwrap().parse().unwrap();
            resp.body = vec![0; len];
            self.0.read_exact(&mut resp.body).await.unwrap();
        }
        resp
    }
}

fn messages_body(last_user: Value) -> Value {
    json!({"model": "claude-test", "stream": true, "max_tokens": 100, "messages": [
        {"role": "user", "content": "earlier"},
        {"role": "assistant", "content": [{"type": "text", "text": "echo: earlier"}]},
        {"role": "system", "content": "# Environment"},
        {"role": "user", "content": last_user},
    ]})
}

#[tokio::test]
async fn keep_alive_connection_serves_every_route() {
    let api = MockApi::start().await.unwrap();
    let mut c = Conn::open(&api).await;

    let body = messages_body(json!([
        {"type": "text", "text": "<system-reminder>\nnoise\n</system-reminder>"},
        {"type": "text", "text": "  hello there  "},
    ]));
    let r = c
        .request("POST", "/v1/messages?beta=true", Some(&body))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert!(r.header("request-id").unwrap().starts_with("req_"));
    let names: Vec<String> = r.events().into_iter().map(|(e, _)| e).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    let events = r.events();
    for (name, data) in &events {
        assert_eq!(data["type"], name.as_str());
    }
    let start = &events[0].1["message"];
    assert_eq!(start["model"], "claude-test");
    assert!(start["usage"]["input_tokens"].as_u64().unwrap() > 0);
    assert_eq!(events[7].1["delta"]["stop_reason"], "end_turn");
    assert!(events[7].1["usage"]["output_tokens"].as_u64().unwrap() > 0);
    assert_eq!(r.text(), "echo:   hello there  ");

    let r = c
        .request("POST", "/v1/messages/count_tokens?beta=true", Some(&body))
        .await;
    assert_eq!(r.status, 200);
    assert!(r.json()["input_tokens"].as_u64().unwrap() > 0);

    let r = c.request("HEAD", "/api/hello", None).await;
    assert_eq!(r.status, 200);
    let r = c.request("GET", "/v1/models", None).await;
    assert_eq!((r.status, r.json()), (200, json!({})));
    let r = c.request("POST", "/v1/nope", Some(&json!({}))).await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["type"], "error");

    let requests = api.requests();
    let seen: Vec<(&str, &str)> = requests
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            ("POST", "/v1/messages?beta=true"),
            ("POST", "/v1/messages/count_tokens?beta=true"),
            ("HEAD", "/api/hello"),
            ("GET", "/v1/models"),
            ("POST", "/v1/nope"),
        ]
    );
    assert_eq!(requests[0].body, body);
    assert_eq!(requests[0].route(), "/v1/messages");
    assert_eq!(requests[0].header("X-Api-Key"), Some("dummy"));
    assert_eq!(api.message_requests().len(), 1);
}

#[tokio::test]
async fn chunked_request_bodies_are_read() {
    let api = MockApi::start().await.unwrap();
    let mut c = Conn::open(&api).await;
    let body = messages_body(json!("chunked hello")).to_string();
    let (a, b) = body.split_at(body.len() / 2);
    let request = format!(
        "POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x};ext=1\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    );
    let r = c.raw(request.as_bytes(), false).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), "echo: chunked hello");
    assert_eq!(
        api.requests()[0].body["messages"][3]["content"],
        "chunked hello"
    );
}

#[tokio::test]
async fn tool_directive_and_tool_result_reply() {
    let api = MockApi::start().await.unwrap();
    let mut c = Conn::open(&api).await;
    let body = messages_body(json!(
        " mock:tool Bash {\"command\": \"echo all-good\", \"description\": \"d\"} "
    ));
    let r = c.request("POST", "/v1/messages", Some(&body)).await;
    let events = r.events();
    let start = events
        .iter()
        .find(|(e, _)| e == "content_block_start")
        .unwrap();
    assert_eq!(start.1["content_block"]["type"], "tool_use");
    assert_eq!(start.1["content_block"]["name"], "Bash");
    assert!(
        start.1["content_block"]["id"]
            .as_str()
            .unwrap()
            .starts_with("toolu_")
    );
    let json_text: String = events
        .iter()
        .filter_map(|(_, d)| d["delta"]["partial_json"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&json_text).unwrap(),
        json!({"command": "echo all-good", "description": "d"})
    );
    let delta = events.iter().find(|(e, _)| e == "message_delta").unwrap();
    assert_eq!(delta.1["delta"]["stop_reason"], "tool_use");

    let body = messages_body(json!([
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "all-good", "is_error": false},
        {"type": "text", "text": "<system-reminder>x</system-reminder>"}
    ]));
    let r = c.request("POST", "/v1/messages", Some(&body)).await;
    assert_eq!(r.text(), "tool said: all-good");
}

#[tokio::test]
async fn error_directive_fails_every_time() {
    let api = MockApi::start().await.unwrap();
    let mut c = Conn::open(&api).await;
    for _ in 0..2 {
        let r = c
            .request(
                "POST",
                "/v1/messages",
                Some(&messages_body(json!("mock:error 500"))),
            )
            .await;
        assert_eq!(r.status, 500);
        assert_eq!(
            r.json(),
            json!({"type": "error", "error": {"type": "api_error", "message": "mock 500"}})
        );
    }
    let r = c
        .request(
            "POST",
            "/v1/messages",
            Some(&messages_body(json!("mock:error 529"))),
        )
        .await;
    assert_eq!(r.status, 529);
    assert_eq!(r.json()["error"]["type"], "overloaded_error");
}

#[tokio::test]
async fn slow_and_thinking_directives() {
    let api = MockApi::start().await.unwrap();
    let mut c = Conn::open(&api).await;
    let started = std::time::Instant::now();
    let r = c
        .request(
            "POST",
            "/v1/messages",
            Some(&messages_body(json!("mock:slow 3"))),
        )
        .await;
    assert_eq!(r.text(), "tick1 tick2 tick3 ");
    assert!(started.elapsed() >= Duration::from_millis(600));

    let r = c
        .request(
            "POST",
            "/v1/messages",
            Some(&messages_body(json!("mock:thinking"))),
        )
        .await;
    let kinds: Vec<String> = r
        .events()
        .iter()
        .filter_map(|(_, d)| {
            d["content_block"]["type"]
                .as_str()
                .or(d["delta"]["type"].as_str())
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(kinds[0], "thinking");
    assert!(kinds.contains(&"thinking_delta".to_owned()));
    assert!(kinds.contains(&"signature_delta".to_owned()));
    assert!(kinds.contains(&"text".to_owned()));
    assert_eq!(r.text(), "thought about it");
}

#[tokio::test]
async fn shutdown_stops_the_listener() {
    let api = MockApi::start().await.unwrap();
    let port = api.port();
    api.shutdown();
    assert!(TcpStream::connect(("127.0.0.1", port)).await.is_err());
}

#[tokio::test]
async fn the_bin_prints_its_port_and_serves() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.jsonl");
    let mut p = CliCommand::new(env!("CARGO_BIN_EXE_mock-anthropic"), dir.path())
        .arg("--log")
        .arg(&log)
        .spawn()
        .unwrap();
    let Some(Line::Raw(first)) = p.next_line(T).await.unwrap() else {
        panic!("no LISTENING line\n{}", p.report());
    };
    let port: u16 = first.strip_prefix("LISTENING ").unwrap().parse().unwrap();
    let mut stream = BufReader::new(TcpStream::connect(("127.0.0.1", port)).await.unwrap());
    stream
        .get_mut()
        .write_all(b"GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut response = String::new();
    tokio::time::timeout(T, stream.read_to_string(&mut response))
        .await
        .unwrap()
        .unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.ends_with("{}"), "{response}");
    let logged: Value =
        serde_json::from_str(std::fs::read_to_string(&log).unwrap().trim()).unwrap();
    assert_eq!(logged["path"], "/health");
    p.kill().await.unwrap();
}
