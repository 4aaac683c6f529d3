//! The management endpoint: raw HTTP over TCP against the in-process daemon (auth, the
//! transport's statuses and bounds, the MCP lifecycle, the tools and the chats they make), and
//! the real Claude Code CLI using it as an HTTP MCP server.

use std::net::SocketAddr;
use std::time::Duration;

use paddock_proto::{ChatEvent, Origin, Reply, Request, TranscriptEntry};
use paddock_tests::mock_api::MockApi;
use paddockd::management::ClientToken;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::harness::*;

const TOKEN: &str = "laptop-token-0123456789";
const OTHER_TOKEN: &str = "script-token-0123456789";

/// The laptop may call every tool; the script has no `allow`, so only the read-only ones.
fn with_clients(c: &mut paddockd::Config, listen: SocketAddr) {
    c.management.listen = Some(listen);
    c.management
        .clients
        .insert("laptop".into(), ClientToken::Inline(TOKEN.into()));
    c.management.allow.insert("laptop".into(), vec!["*".into()]);
    c.management
        .clients
        .insert("script".into(), ClientToken::Inline(OTHER_TOKEN.into()));
}

async fn mgmt_daemon() -> TestDaemon {
    TestDaemon::start_with(|c| with_clients(c, "127.0.0.1:0".parse().unwrap())).await
}

/// Where the endpoint bound (it listens on port 0).
async fn addr(d: &TestDaemon) -> SocketAddr {
    let bound = d.cfg.management.bound.clone();
    paddock_tests::wait::wait_until("the management listener", DEADLINE, || bound.get().copied())
        .await
        .unwrap()
}

/// One HTTP answer.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// Reads one response off `stream` (its head, then `Content-Length` bytes).
async fn read_answer(stream: &mut TcpStream) -> Answer {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = tokio::time::timeout(DEADLINE, stream.read(&mut chunk))
            .await
            .expect("an answer before the deadline")
            .unwrap();
        assert!(
            n > 0,
            "closed before an answer: {:?}",
            String::from_utf8_lossy(&buf)
        );
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8(buf[..head_end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .map(|l| {
            let (n, v) = l.split_once(':').unwrap();
            (n.trim().to_owned(), v.trim().to_owned())
        })
        .collect();
    let len: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .map(|(_, v)| v.parse().unwrap())
        .expect("a Content-Length");
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = tokio::time::timeout(DEADLINE, stream.read(&mut chunk))
            .await
            .expect("the body before the deadline")
            .unwrap();
        assert!(n > 0, "closed inside the body");
        body.extend_from_slice(&chunk[..n]);
    }
    Answer {
        status,
        headers,
        body: String::from_utf8(body).unwrap(),
    }
}

fn request_bytes(method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (n, v) in headers {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    req.push_str(body);
    req.into_bytes()
}

/// One request on a fresh connection.
async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(&request_bytes(method, path, headers, body))
        .await
        .unwrap();
    read_answer(&mut stream).await
}

/// POSTs a JSON-RPC body with `token`.
async fn post(addr: SocketAddr, token: &str, body: &Value) -> Answer {
    let auth = format!("Bearer {token}");
    http(
        addr,
        "POST",
        "/mcp",
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        &body.to_string(),
    )
    .await
}

/// Calls a tool as the laptop; the result's text and whether it is an error.
async fn call(addr: SocketAddr, tool: &str, arguments: Value) -> (String, bool) {
    call_as(addr, TOKEN, tool, arguments).await
}

/// Calls a tool as the client of `token`; the result's text and whether it is an error.
async fn call_as(addr: SocketAddr, token: &str, tool: &str, arguments: Value) -> (String, bool) {
    let a = post(
        addr,
        token,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}),
    )
    .await;
    assert_eq!(a.status, 200, "{a:?}");
    let v = a.json();
    let result = &v["result"];
    assert_eq!(result["content"][0]["type"], "text", "{v}");
    (
        result["content"][0]["text"].as_str().unwrap().to_owned(),
        result["isError"].as_bool().unwrap(),
    )
}

/// A tool result that is JSON.
async fn call_json(addr: SocketAddr, tool: &str, arguments: Value) -> Value {
    let (text, is_error) = call(addr, tool, arguments).await;
    assert!(!is_error, "{tool}: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool} gave no JSON ({e}): {text}"))
}

/// Polls `check` (async) until it gives `Some`, failing after the deadline.
async fn poll<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn transcript(c: &mut RawClient, sid: &str) -> paddock_proto::Transcript {
    match c
        .request(Request::ChatTranscript(paddock_proto::SessionRef {
            session_id: sid.into(),
        }))
        .await
        .unwrap()
    {
        Reply::Transcript(t) => *t,
        other => panic!("{other:?}"),
    }
}

fn users_and_replies(t: &paddock_proto::Transcript) -> (Vec<String>, Vec<String>) {
    let mut users = Vec::new();
    let mut replies = Vec::new();
    for e in &t.entries {
        match e {
            TranscriptEntry::User {
                text, attribution, ..
            } => {
                assert_eq!(
                    *attribution, None,
                    "a client's turn is not labelled as injected"
                );
                users.push(text.clone());
            }
            TranscriptEntry::Assistant { text, .. } => replies.push(text.clone()),
            _ => {}
        }
    }
    (users, replies)
}

#[tokio::test]
async fn management_refuses_without_the_right_token_and_serves_only_post_mcp() {
    let d = mgmt_daemon().await;
    let addr = addr(&d).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();

    let none = http(addr, "POST", "/mcp", &[], &ping).await;
    assert_eq!(none.status, 401, "{none:?}");
    assert!(
        none.header("WWW-Authenticate")
            .unwrap()
            .starts_with("Bearer")
    );
    assert!(none.body.contains("Authorization: Bearer"), "{}", none.body);
    let wrong = post(
        addr,
        "laptop-token-0123456780",
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    )
    .await;
    assert_eq!(wrong.status, 401, "{wrong:?}");
    assert!(wrong.header("WWW-Authenticate").is_some());
    let basic = http(
        addr,
        "POST",
        "/mcp",
        &[("Authorization", "Basic bGFwdG9wOng=")],
        &ping,
    )
    .await;
    assert_eq!(basic.status, 401);

    // Each configured client gets in with its own token.
    for token in [TOKEN, OTHER_TOKEN] {
        let ok = post(
            addr,
            token,
            &json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
        )
        .await;
        assert_eq!(ok.status, 200, "{ok:?}");
        assert_eq!(ok.header("Content-Type"), Some("application/json"));
        assert_eq!(ok.json(), json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
    }

    let auth = format!("Bearer {TOKEN}");
    let get = http(
        addr,
        "GET",
        "/mcp",
        &[("Authorization", &auth), ("Accept", "text/event-stream")],
        "",
    )
    .await;
    assert_eq!(get.status, 405, "{get:?}");
    assert_eq!(get.header("Allow"), Some("POST"));
    let delete = http(addr, "DELETE", "/mcp", &[("Authorization", &auth)], "").await;
    assert_eq!(delete.status, 405, "{delete:?}");
    let elsewhere = http(addr, "POST", "/api", &[("Authorization", &auth)], &ping).await;
    assert_eq!(elsewhere.status, 404, "{elsewhere:?}");
    assert!(elsewhere.body.contains("POST /mcp"), "{}", elsewhere.body);
    // A browser page of another site is refused even with a token.
    let cross = http(
        addr,
        "POST",
        "/mcp",
        &[("Authorization", &auth), ("Origin", "http://evil.example")],
        &ping,
    )
    .await;
    assert_eq!(cross.status, 403, "{cross:?}");
    let not_json = http(
        addr,
        "POST",
        "/mcp",
        &[("Authorization", &auth), ("Content-Type", "text/plain")],
        &ping,
    )
    .await;
    assert_eq!(not_json.status, 415, "{not_json:?}");
    let version = http(
        addr,
        "POST",
        "/mcp",
        &[
            ("Authorization", &auth),
            ("MCP-Protocol-Version", "1999-01-01"),
        ],
        &ping,
    )
    .await;
    assert_eq!(version.status, 400, "{version:?}");
    let garbage = post(addr, TOKEN, &json!("not a request")).await;
    assert_eq!(garbage.status, 400, "{garbage:?}");
    assert_eq!(garbage.json()["error"]["code"], -32600);

    // A body over the limit is refused before it is read, and the connection closed.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let big = paddockd::management::MAX_BODY_BYTES + 1;
    stream
        .write_all(
            format!(
                "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\nContent-Length: {big}\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    stream.write_all(&vec![b' '; 64 * 1024]).await.unwrap();
    let too_big = read_answer(&mut stream).await;
    assert_eq!(too_big.status, 413, "{too_big:?}");
    assert_eq!(too_big.header("Connection"), Some("close"));

    // Keep-alive: several requests, one connection, answers in order.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    for id in 1..=3 {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
        stream
            .write_all(&request_bytes(
                "POST",
                "/mcp",
                &[("Authorization", &auth)],
                &body,
            ))
            .await
            .unwrap();
        let a = read_answer(&mut stream).await;
        assert_eq!((a.status, a.json()["id"].clone()), (200, json!(id)));
        assert_eq!(a.header("Connection"), None);
    }
    d.stop().await.unwrap();
}

/// The token is checked from the head, before any body is read: a caller with a wrong token
/// announcing a large body that never comes is refused at once (it used to be held until the
/// body's deadline), and the connection is closed.
#[tokio::test]
async fn management_checks_the_token_before_reading_the_body() {
    let d = mgmt_daemon().await;
    let addr = addr(&d).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer pdk_wrong_wrongwrongwrongwrongwrongwrong\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    let a = read_answer(&mut stream).await;
    assert_eq!(a.status, 401, "{a:?}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn management_idle_connections_do_not_hold_up_a_request() {
    let d = mgmt_daemon().await;
    let addr = addr(&d).await;
    // More connections that never send a request than any fixed number of slots, from 20
    // addresses (5 each, under the per-address limit), all held open.
    let idle = idle_connections(addr, 100, 20).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let a = post(addr, TOKEN, &ping).await;
    assert_eq!(a.status, 200, "{a:?}");
    // Served while every idle connection is still open, not after they were timed out.
    let closed = idle.iter().filter(|s| closed_by_server(s)).count();
    assert_eq!(closed, 0, "{closed} idle connections were closed first");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn management_closes_idle_connections_at_the_header_deadline_and_past_the_per_peer_limit() {
    let d = TestDaemon::start_with(|c| {
        with_clients(c, "127.0.0.1:0".parse().unwrap());
        c.net.header_timeout = Duration::from_millis(300);
        c.net.per_peer = 4;
    })
    .await;
    let addr = addr(&d).await;
    // No request head within the deadline: closed, without an answer.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    closed_without_a_word(&mut idle).await;
    // A head begun but not finished is told so.
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
    let a = read_answer(&mut slow).await;
    assert_eq!(a.status, 408, "{a:?}");
    // Ten from one address: the oldest six make room for the newest four, and that address's
    // real request is still served.
    let d2 = TestDaemon::start_with(|c| {
        with_clients(c, "127.0.0.1:0".parse().unwrap());
        c.net.per_peer = 4;
    })
    .await;
    let addr = self::addr(&d2).await;
    let mut idle = idle_connections(addr, 10, 1).await;
    for s in &mut idle[..6] {
        closed_without_a_word(s).await;
    }
    assert!(idle[6..].iter().all(|s| !closed_by_server(s)));
    let mut me = connect_from([127, 0, 0, 2], addr).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let auth = format!("Bearer {TOKEN}");
    me.write_all(&request_bytes(
        "POST",
        "/mcp",
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        &ping,
    ))
    .await
    .unwrap();
    assert_eq!(read_answer(&mut me).await.status, 200);
    d2.stop().await.unwrap();
    d.stop().await.unwrap();
}

#[tokio::test]
async fn management_initialize_and_tools_list() {
    let d = mgmt_daemon().await;
    let addr = addr(&d).await;
    let init = post(
        addr,
        TOKEN,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "daemon-tests", "version": "1"}}}),
    )
    .await;
    assert_eq!(init.status, 200, "{init:?}");
    let v = init.json();
    assert_eq!(v["id"], 0);
    assert_eq!(v["result"]["protocolVersion"], "2025-06-18");
    assert!(v["result"]["capabilities"]["tools"].is_object(), "{v}");
    assert_eq!(v["result"]["serverInfo"]["name"], "paddockd");
    let instance = v["result"]["serverInfo"]["instanceId"].as_str().unwrap();
    let stored = std::fs::read_to_string(d.cfg.data_dir.join("instance-id")).unwrap();
    assert_eq!(
        instance,
        stored.trim(),
        "the generated id, kept in the data dir"
    );
    assert_eq!(init.header("Mcp-Session-Id"), None, "stateless: no session");

    let initialized = post(
        addr,
        TOKEN,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(initialized.status, 202, "{initialized:?}");
    assert!(initialized.body.is_empty());

    let list = post(
        addr,
        TOKEN,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await;
    assert_eq!(list.status, 200);
    let v = list.json();
    let tools = v["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "list_projects",
            "list_chats",
            "create_chat",
            "send_message",
            "read_chat",
            "fork_chat",
            "archive_chat",
            "unarchive_chat",
            "create_project",
            "list_triggers",
            "set_trigger",
            "remove_trigger",
            "run_trigger",
        ]
    );
    let create = tools.iter().find(|t| t["name"] == "create_chat").unwrap();
    assert_eq!(
        create["inputSchema"]["required"],
        json!(["project", "prompt"])
    );

    // A batch: one answer per request, in order; the notification gets none.
    let batch = post(
        addr,
        TOKEN,
        &json!([
            {"jsonrpc": "2.0", "id": "a", "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": "b", "method": "tools/call", "params": {"name": "list_projects"}},
        ]),
    )
    .await;
    assert_eq!(batch.status, 200, "{batch:?}");
    let v = batch.json();
    let answers = v.as_array().unwrap();
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0]["id"], "a");
    let projects: Value =
        serde_json::from_str(answers[1]["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(projects[0]["slug"], "");

    // Unknown tools and methods are protocol errors; a tool's own failure is a result.
    let unknown = post(
        addr,
        TOKEN,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "delete_everything"}}),
    )
    .await;
    assert_eq!(unknown.json()["error"]["code"], -32602);
    let (text, is_error) = call(addr, "read_chat", json!({"sessionId": "no-such-chat"})).await;
    assert!(is_error, "{text}");
    assert!(text.contains("no chat no-such-chat"), "{text}");
    let (text, is_error) = call(
        addr,
        "create_chat",
        json!({"project": "nope", "prompt": "x"}),
    )
    .await;
    assert!(is_error, "{text}");
    assert!(text.contains("nope"), "{text}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn management_create_chat_is_a_root_that_runs_and_takes_messages() {
    let d = mgmt_daemon().await;
    let addr = addr(&d).await;
    // A first turn long enough to be seen running (40 deltas, 50 ms apart).
    let reply = "working on it; ".repeat(3);
    let prompt = slow_text(&reply, 40, 50);
    let created = call_json(
        addr,
        "create_chat",
        json!({"project": "", "prompt": prompt}),
    )
    .await;
    let sid = created["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(created["project"], "");
    let (daemon, session) = (&d, sid.as_str());

    // list_chats shows it running, a root: no parent.
    let row = poll("the chat listed as running", || async move {
        let list = call_json(addr, "list_chats", json!({"project": ""})).await;
        list["chats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["sessionId"] == session && r["running"] == true)
            .cloned()
    })
    .await;
    assert_eq!(row["parent"], Value::Null, "{row}");
    assert_eq!(row["depth"], 0, "{row}");
    assert_eq!(row["origin"], "human", "{row}");

    // A message while it runs waits for the turn to end.
    let sent = call_json(
        addr,
        "send_message",
        json!({"sessionId": sid, "message": "and then this"}),
    )
    .await;
    assert_eq!(sent, json!({"sessionId": sid, "queued": true}));

    // Both turns run, in order, through the fake claude.
    let t = poll("both turns in the transcript", || async move {
        let t = transcript(&mut daemon.client().await, session).await;
        (users_and_replies(&t).1.len() >= 2 && !t.chat.running).then_some(t)
    })
    .await;
    let (users, replies) = users_and_replies(&t);
    assert_eq!(
        users,
        [prompt.as_str(), "and then this"],
        "the prompt, verbatim, first"
    );
    assert_eq!(replies, [reply.as_str(), "echo: and then this"]);

    // Over the socket too: a root, human, depth 0, no recorded or drawn parent.
    let mut c = d.client().await;
    let Reply::Chats(list) = c
        .request(Request::ChatList(paddock_proto::ChatList {
            project_slug: Some(String::new()),
            scope: Default::default(),
            since: None,
            full_titles: false,
        }))
        .await
        .unwrap()
    else {
        panic!()
    };
    let chat = list.chats.iter().find(|r| r.session_id == sid).unwrap();
    assert_eq!(chat.origin, Origin::Human);
    assert_eq!(chat.depth, 0);
    assert_eq!(chat.parent_session_id, None);
    assert_eq!(chat.parent_project, None);
    assert_eq!(chat.tree_parent, None);
    assert_eq!(chat.level, 0);

    // An idle chat takes a message at once.
    let sent = call_json(
        addr,
        "send_message",
        json!({"sessionId": sid, "message": "third"}),
    )
    .await;
    assert_eq!(sent["queued"], false);
    let text = poll("the third reply in read_chat", || async move {
        let (text, is_error) =
            call(addr, "read_chat", json!({"sessionId": session, "last": 2})).await;
        assert!(!is_error, "{text}");
        text.contains("assistant: echo: third").then_some(text)
    })
    .await;
    assert!(text.contains("user: third"), "{text}");
    assert!(
        !text.contains("and then this"),
        "only the last 2 entries: {text}"
    );
    let (text, is_error) = call(addr, "read_chat", json!({"sessionId": sid, "last": 0})).await;
    assert!(is_error && text.contains("1 to 200"), "{text}");

    // Scope and limit.
    let list = call_json(addr, "list_chats", json!({"limit": 1, "scope": "all"})).await;
    assert_eq!(list["chats"].as_array().unwrap().len(), 1);
    assert_eq!(list["total"], 1);
    let archived = call_json(addr, "list_chats", json!({"scope": "archived"})).await;
    assert_eq!(archived["total"], 0);
    let (text, is_error) = call(addr, "list_chats", json!({"scope": "some"})).await;
    assert!(is_error, "{text}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn management_create_chat_preloads_the_project_context_when_asked() {
    let d = mgmt_daemon().await;
    let addr = addr(&d).await;
    let mut c = d.client().await;
    let Reply::Project(p) = c
        .request(Request::ProjectCreate(paddock_proto::ProjectCreate {
            slug: "web".into(),
            path: None,
            ..Default::default()
        }))
        .await
        .unwrap()
    else {
        panic!()
    };
    let _ = &p;
    let overview = d.cfg.data_dir.join("projects/web/OVERVIEW.md");
    std::fs::write(&overview, "# Web\nThe shop's front end.\n").unwrap();
    let created = call_json(
        addr,
        "create_chat",
        json!({"project": "web", "prompt": "fix the cart", "preloadContext": true}),
    )
    .await;
    let (daemon, session) = (&d, created["sessionId"].as_str().unwrap());
    let t = poll("the preloaded turn", || async move {
        let t = transcript(&mut daemon.client().await, session).await;
        (!users_and_replies(&t).1.is_empty()).then_some(t)
    })
    .await;
    let (users, _) = users_and_replies(&t);
    assert!(users[0].contains("The shop's front end."), "{users:?}");
    assert!(users[0].ends_with("fix the cart"), "{users:?}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn management_listen_without_clients_or_with_a_weak_token_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = paddockd::Config::for_data_dir(
        &dir.path().join("data"),
        &dir.path().join("run").join("paddockd.sock"),
    );
    cfg.claude_bin = fake_claude();
    cfg.management.listen = Some("0.0.0.0:0".parse().unwrap());
    let err = paddockd::run(cfg.clone(), async {}).await.unwrap_err();
    let err = format!("{err:#}");
    for want in ["mcp_listen", "[mcp_clients.laptop]", "token_file"] {
        assert!(err.contains(want), "{want} missing from: {err}");
    }
    // A token file that is too short: refused, naming the file, never the token.
    let file = dir.path().join("laptop.token");
    std::fs::write(&file, "tiny-secret\n").unwrap();
    cfg.management
        .clients
        .insert("laptop".into(), ClientToken::File(file.clone()));
    let err = format!(
        "{:#}",
        paddockd::run(cfg.clone(), async {}).await.unwrap_err()
    );
    assert!(
        err.contains("laptop.token") && err.contains("at least 16"),
        "{err}"
    );
    assert!(!err.contains("tiny-secret"), "{err}");
    // A missing one: refused, naming it.
    cfg.management.clients.insert(
        "laptop".into(),
        ClientToken::File(dir.path().join("gone.token")),
    );
    let err = format!(
        "{:#}",
        paddockd::run(cfg.clone(), async {}).await.unwrap_err()
    );
    assert!(err.contains("gone.token"), "{err}");
    // A port already taken: a clear start-up error.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std::fs::write(&file, "a-token-long-enough\n").unwrap();
    cfg.management
        .clients
        .insert("laptop".into(), ClientToken::File(file));
    cfg.management.listen = Some(taken.local_addr().unwrap());
    let err = format!("{:#}", paddockd::run(cfg, async {}).await.unwrap_err());
    assert!(err.contains("another program uses that port"), "{err}");
}

/// A port nothing listens on now (the real CLI's configuration names it before the daemon
/// binds it).
fn free_port() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

/// The real Claude Code CLI, given the endpoint as an HTTP MCP server with the laptop's token,
/// calls `list_chats` and reads the chats in the tool's result.
#[tokio::test]
async fn real_cli_lists_chats_through_the_management_endpoint() {
    let api = MockApi::start().await.unwrap();
    let listen = free_port();
    let user_config = json!({"mcpServers": {"mgmt": {
        "type": "http",
        "url": format!("http://{listen}/mcp"),
        "headers": {"Authorization": format!("Bearer {TOKEN}")},
    }}});
    let d = crate::real_cli::real_daemon(&api, move |c| {
        with_clients(c, listen);
        c.user_mcp = paddockd::user_mcp::UserMcp::from_value(&user_config);
    })
    .await;
    assert_eq!(addr(&d).await, listen);
    // A chat made over the endpoint first (and finished), so the list has another chat in it.
    let other = call_json(
        listen,
        "create_chat",
        json!({"project": "", "prompt": "hello from the endpoint"}),
    )
    .await;
    let other = other["sessionId"].as_str().unwrap().to_owned();
    let session = other.as_str();
    poll("the first chat listed, finished", || async move {
        let list = call_json(listen, "list_chats", json!({"project": ""})).await;
        list["chats"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["sessionId"] == session && r["running"] == false)
            .then_some(())
    })
    .await;
    let mut c = d.client().await;
    let sent = c
        .send_turn(
            "",
            None,
            r#"mock:tool mcp__mgmt__list_chats {"project":""}"#,
        )
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success, "{frames:#?}");
    let call = frames
        .iter()
        .find_map(|f| match &f.event {
            ChatEvent::ToolCall(t) => Some(t.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no tool call: {frames:#?}"));
    assert_eq!(call.name, "mcp__mgmt__list_chats");
    assert!(!call.is_error, "{call:#?}");
    assert!(call.output.contains(&other), "{call:#?}");
    assert!(
        call.output.contains(&sent.session_id),
        "the calling chat is listed, running: {call:#?}"
    );
    assert!(text_of(&frames).contains("tool said:"), "{frames:#?}");
    d.stop().await.unwrap();
}

/// tools/list as `token`: the names.
async fn tool_names(addr: SocketAddr, token: &str) -> Vec<String> {
    let list = post(
        addr,
        token,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await;
    assert_eq!(list.status, 200, "{list:?}");
    list.json()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn management_allow_lists_filter_tools_and_refuse_the_rest() {
    let d = TestDaemon::start_with(|c| {
        with_clients(c, "127.0.0.1:0".parse().unwrap());
        c.management.clients.insert(
            "narrow".into(),
            ClientToken::Inline("narrow-token-0123456789".into()),
        );
        c.management
            .allow
            .insert("narrow".into(), vec!["create_chat".into(), "read_*".into()]);
    })
    .await;
    let addr = addr(&d).await;
    // No allow: the reference's default, the read-only tools.
    assert_eq!(
        tool_names(addr, OTHER_TOKEN).await,
        ["list_projects", "list_chats", "read_chat", "list_triggers"]
    );
    assert_eq!(
        tool_names(addr, "narrow-token-0123456789").await,
        ["create_chat", "read_chat"]
    );
    assert_eq!(tool_names(addr, TOKEN).await.len(), 13);

    // A call outside the list is refused, naming the tool and the key; nothing is created.
    let refused = post(
        addr,
        OTHER_TOKEN,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "create_chat", "arguments": {"project": "", "prompt": "hi"}}}),
    )
    .await;
    assert_eq!(refused.status, 200, "{refused:?}");
    let v = refused.json();
    assert_eq!(v["result"]["isError"], true, "{v}");
    let text = v["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("create_chat"), "{text}");
    assert!(text.contains("mcp_clients.script.allow"), "{text}");
    let list = call_json(addr, "list_chats", json!({"scope": "all"})).await;
    assert_eq!(list["total"], 0, "{list}");
    // What is allowed works.
    let ok = post(
        addr,
        OTHER_TOKEN,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "list_projects"}}),
    )
    .await;
    assert_eq!(ok.json()["result"]["isError"], false, "{ok:?}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn management_fork_archive_projects_and_triggers() {
    let d = mgmt_daemon().await;
    let addr = addr(&d).await;
    let created = call_json(
        addr,
        "create_chat",
        json!({"project": "", "prompt": "first"}),
    )
    .await;
    let source = created["sessionId"].as_str().unwrap().to_owned();
    let (daemon, session) = (&d, source.as_str());
    poll("the first reply", || async move {
        let t = transcript(&mut daemon.client().await, session).await;
        (!users_and_replies(&t).1.is_empty() && !t.chat.running).then_some(())
    })
    .await;

    // A fork is drawn under its source, and its prompt starts a turn.
    let forked = call_json(
        addr,
        "fork_chat",
        json!({"sessionId": source, "name": "the fork", "prompt": "go on"}),
    )
    .await;
    let fork = forked["sessionId"].as_str().unwrap().to_owned();
    assert_ne!(fork, source);
    assert_eq!(forked["parent"], source.as_str());
    let fork_ref = fork.as_str();
    let row = poll("the fork's reply", || async move {
        let list = call_json(addr, "list_chats", json!({"project": ""})).await;
        let row = list["chats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["sessionId"] == fork_ref)
            .cloned()?;
        let t = transcript(&mut daemon.client().await, fork_ref).await;
        users_and_replies(&t)
            .1
            .iter()
            .any(|r| r == "echo: go on")
            .then_some(row)
    })
    .await;
    assert_eq!(row["parent"], source.as_str(), "{row}");
    assert_eq!(row["depth"], 1, "{row}");
    let (text, is_error) = call(addr, "fork_chat", json!({})).await;
    assert!(is_error && text.contains("sessionId"), "{text}");

    // Archive and unarchive.
    let archived = call_json(addr, "archive_chat", json!({"sessionId": fork})).await;
    assert_eq!(archived, json!({"sessionId": fork, "archived": true}));
    let list = call_json(addr, "list_chats", json!({"scope": "archived"})).await;
    assert_eq!(list["chats"][0]["sessionId"], fork.as_str(), "{list}");
    let back = call_json(addr, "unarchive_chat", json!({"sessionId": fork})).await;
    assert_eq!(back["archived"], false);
    let list = call_json(addr, "list_chats", json!({"scope": "archived"})).await;
    assert_eq!(list["total"], 0, "{list}");
    let (text, is_error) = call(addr, "archive_chat", json!({"sessionId": "nope"})).await;
    assert!(is_error, "{text}");

    // A project, and a trigger in it: set, list, fire, remove.
    let project = call_json(addr, "create_project", json!({"name": "Web"})).await;
    assert_eq!(project["slug"], "web", "{project}");
    let projects = call_json(addr, "list_projects", json!({})).await;
    assert!(
        projects
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["slug"] == "web"),
        "{projects}"
    );
    let set = call_json(
        addr,
        "set_trigger",
        json!({"project": "web", "name": "poke", "kind": "hook", "on": "manual", "prompt": "poked"}),
    )
    .await;
    assert_eq!(set["name"], "poke", "{set}");
    let triggers = call_json(addr, "list_triggers", json!({"project": "web"})).await;
    assert_eq!(triggers[0]["name"], "poke", "{triggers}");
    let fired = call_json(
        addr,
        "run_trigger",
        json!({"project": "web", "name": "poke"}),
    )
    .await;
    let started = fired["sessionId"].as_str().unwrap().to_owned();
    let started_ref = started.as_str();
    poll("the trigger's chat", || async move {
        let t = transcript(&mut daemon.client().await, started_ref).await;
        // The trigger's own chat: its prompt is labelled with the hook.
        t.entries
            .iter()
            .any(|e| matches!(e, TranscriptEntry::User { text, .. } if text == "poked"))
            .then_some(())
    })
    .await;
    let removed = call_json(
        addr,
        "remove_trigger",
        json!({"project": "web", "name": "poke"}),
    )
    .await;
    assert_eq!(removed, json!({"removed": "poke"}));
    let triggers = call_json(addr, "list_triggers", json!({"project": "web"})).await;
    assert_eq!(triggers, json!([]));
    let (text, is_error) = call(addr, "list_triggers", json!({})).await;
    assert!(is_error && text.contains("project"), "{text}");
    d.stop().await.unwrap();
}

#[tokio::test]
async fn management_instance_id_is_stable_across_restarts_and_binds_tokens() {
    let data = tempfile::tempdir().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}});
    let mut ids = Vec::new();
    for _ in 0..2 {
        let d = TestDaemon::start_with(|c| {
            on_data_dir(data.path())(c);
            with_clients(c, "127.0.0.1:0".parse().unwrap());
        })
        .await;
        let a = post(addr(&d).await, TOKEN, &init).await;
        let id = a.json()["result"]["serverInfo"]["instanceId"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(!id.is_empty());
        ids.push(id);
        d.stop().await.unwrap();
    }
    assert_eq!(ids[0], ids[1], "the same id after a restart");

    // Configured: that id; a token bound to it works, one bound to another instance is
    // refused at start.
    let bound = "pdk_shop_0123456789abcdef";
    let d = TestDaemon::start_with(|c| {
        on_data_dir(data.path())(c);
        with_clients(c, "127.0.0.1:0".parse().unwrap());
        c.management.instance_id = Some("shop".into());
        c.management
            .clients
            .insert("bound".into(), ClientToken::Inline(bound.into()));
    })
    .await;
    let addr_now = addr(&d).await;
    let a = post(addr_now, bound, &init).await;
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(a.json()["result"]["serverInfo"]["instanceId"], "shop");
    let other = post(addr_now, "pdk_elsewhere_0123456789abcdef", &init).await;
    assert_eq!(other.status, 401);
    d.stop().await.unwrap();

    let mut cfg = paddockd::Config::for_data_dir(&data.path().join("x"), &data.path().join("s"));
    cfg.management.listen = Some("127.0.0.1:0".parse().unwrap());
    cfg.management.instance_id = Some("shop".into());
    cfg.management.clients.insert(
        "stale".into(),
        ClientToken::Inline("pdk_old_0123456789abcdef".into()),
    );
    let err = paddockd::management::bind(&cfg)
        .await
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("mcp_clients.stale") && err.contains("\"old\""),
        "{err}"
    );
}

#[tokio::test]
async fn management_project_scopes_filter_and_refuse_and_deny_removes_tools() {
    const SCOPED: &str = "scoped-token-0123456789";
    const ROOTED: &str = "rooted-token-0123456789";
    let d = TestDaemon::start_with(|c| {
        with_clients(c, "127.0.0.1:0".parse().unwrap());
        c.management
            .clients
            .insert("scoped".into(), ClientToken::Inline(SCOPED.into()));
        c.management.allow.insert("scoped".into(), vec!["*".into()]);
        c.management.scopes.insert(
            "scoped".into(),
            paddockd::management::Scope {
                reach: paddockd::reach::Reach::listed(
                    Some(vec!["web".into(), "not-yet".into()]),
                    Vec::new(),
                ),
                deny: vec!["archive_*".into()],
            },
        );
        c.management
            .clients
            .insert("rooted".into(), ClientToken::Inline(ROOTED.into()));
        c.management.allow.insert("rooted".into(), vec!["*".into()]);
        c.management.scopes.insert(
            "rooted".into(),
            paddockd::management::Scope {
                reach: paddockd::reach::Reach::listed(
                    Some(vec!["".into(), "web".into()]),
                    vec!["web".into()],
                ),
                deny: Vec::new(),
            },
        );
    })
    .await;
    let addr = addr(&d).await;
    // deny wins over allow = ["*"], and takes the tools out of tools/list.
    let names = tool_names(addr, SCOPED).await;
    // (A prefix is a prefix: `archive_*` is not `unarchive_chat`.)
    assert_eq!(names.len(), 12, "{names:?}");
    assert!(names.iter().any(|n| n == "unarchive_chat"), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("archive_")),
        "{names:?}"
    );

    // The laptop (every project) makes a project and a chat in it and one at the root.
    let project = call_json(addr, "create_project", json!({"name": "Web"})).await;
    assert_eq!(project["slug"], "web", "{project}");
    let root = call_json(
        addr,
        "create_chat",
        json!({"project": "", "prompt": "root"}),
    )
    .await;
    let root = root["sessionId"].as_str().unwrap().to_owned();
    let web = call_json(
        addr,
        "create_chat",
        json!({"project": "web", "prompt": "web"}),
    )
    .await;
    let web = web["sessionId"].as_str().unwrap().to_owned();
    poll("both chats listed", || async move {
        let list = call_json(addr, "list_chats", json!({"scope": "all"})).await;
        (list["total"] == 2).then_some(())
    })
    .await;

    // Enumerating filters.
    let json_as = |token: &'static str, tool: &'static str, args: Value| async move {
        let (text, is_error) = call_as(addr, token, tool, args).await;
        assert!(!is_error, "{tool}: {text}");
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let slugs = |v: Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| p["slug"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        slugs(json_as(SCOPED, "list_projects", json!({})).await),
        ["web"]
    );
    // "" is the root workspace, a slug like any other; deny_projects beats projects.
    assert_eq!(
        slugs(json_as(ROOTED, "list_projects", json!({})).await),
        [""]
    );
    let list = json_as(SCOPED, "list_chats", json!({"scope": "all"})).await;
    assert_eq!(list["total"], 1, "{list}");
    assert_eq!(list["chats"][0]["sessionId"], web.as_str(), "{list}");
    let list = json_as(ROOTED, "list_chats", json!({})).await;
    assert_eq!(list["total"], 1, "{list}");
    assert_eq!(list["chats"][0]["sessionId"], root.as_str(), "{list}");

    // Addressing refuses, naming the client and the key.
    for (tool, args) in [
        ("read_chat", json!({"sessionId": root})),
        ("send_message", json!({"sessionId": root, "message": "hi"})),
        ("fork_chat", json!({"sessionId": root})),
        ("create_chat", json!({"project": "", "prompt": "hi"})),
        ("list_chats", json!({"project": ""})),
        ("list_triggers", json!({"project": ""})),
        ("create_project", json!({"name": "Api"})),
    ] {
        let (text, is_error) = call_as(addr, SCOPED, tool, args).await;
        assert!(is_error, "{tool}: {text}");
        assert!(
            text.contains("\"scoped\"") && text.contains("mcp_clients.scoped.projects"),
            "{tool}: {text}"
        );
    }
    let (text, is_error) = call_as(addr, ROOTED, "read_chat", json!({"sessionId": web})).await;
    assert!(
        is_error && text.contains("mcp_clients.rooted.deny_projects"),
        "{text}"
    );
    // A blank slug is no slug: the project would be named after `name`, which is not reached.
    let (text, is_error) = call_as(
        addr,
        ROOTED,
        "create_project",
        json!({"name": "Api", "slug": " "}),
    )
    .await;
    assert!(
        is_error && text.contains("give create_project a `slug`"),
        "{text}"
    );
    let (text, is_error) = call_as(
        addr,
        SCOPED,
        "create_project",
        json!({"name": "Api", "slug": "api"}),
    )
    .await;
    assert!(is_error && text.contains("\"api\""), "{text}");
    let (text, is_error) = call_as(addr, SCOPED, "archive_chat", json!({"sessionId": web})).await;
    assert!(
        is_error && text.contains("mcp_clients.scoped.deny"),
        "{text}"
    );
    // Its own project's chat it may read.
    let (text, is_error) = call_as(addr, SCOPED, "read_chat", json!({"sessionId": web})).await;
    assert!(!is_error, "{text}");
    let list = call_json(addr, "list_chats", json!({"scope": "all"})).await;
    assert_eq!(
        list["total"], 2,
        "nothing was created by a refused call: {list}"
    );
    let projects = call_json(addr, "list_projects", json!({})).await;
    assert_eq!(projects.as_array().map(Vec::len), Some(2), "{projects}");
    d.stop().await.unwrap();
}
