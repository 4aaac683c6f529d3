//! The bridge against a fake daemon: the real CLI's handshake line by line, bad input, a daemon
//! that is away, a refused token, reconnection.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Cursor;
use std::path::PathBuf;

use paddock_proto::{AgentAuth, AgentCall, ClientMessage, Hello, PROTOCOL_VERSION, Request};
use serde_json::{Value, json};

use super::fake_daemon::{self, Behaviour, FakeDaemon, TOKEN};
use super::*;
use crate::cli::McpArgs;

/// The lines Claude Code 2.1.332 sends (claude-cli.md §7, from the fixture
/// `mcp-stdio.log`), with the fixture's `echo` call aimed at `create_chat`.
const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-code","title":"Claude Code","version":"2.1.332","description":"Anthropic's agentic coding tool","websiteUrl":"https://claude.com/claude-code"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"elicitation":{"form":{},"url":{}}}}}}"#;
const INITIALIZE: &str = r#"{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"claude-code","title":"Claude Code","version":"2.1.332","description":"Anthropic's agentic coding tool","websiteUrl":"https://claude.com/claude-code"}},"jsonrpc":"2.0","id":0}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const TOOLS_LIST: &str = r#"{"method":"tools/list","jsonrpc":"2.0","id":1}"#;
const TOOLS_CALL: &str = r#"{"method":"tools/call","params":{"name":"create_chat","arguments":{"prompt":"ping"},"_meta":{"claudecode/toolUseId":"toolu_mock_05b69ec0b953458c","progressToken":2}},"jsonrpc":"2.0","id":2}"#;
const CANCELLED: &str = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"AbortError: remote-cancel"}}"#;

const DISCOVER_ANSWER: &str = r#"{"jsonrpc":"2.0","id":"server-discover-probe-1","error":{"code":-32601,"message":"Method not found: server/discover"}}"#;

fn initialize_answer(server: &str, version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"{version}","capabilities":{{"tools":{{"listChanged":false}}}},"serverInfo":{{"name":"{server}","version":"{}"}}}}}}"#,
        env!("CARGO_PKG_VERSION")
    )
}

fn tools_answer(id: &str) -> String {
    let tool = &fake_daemon::tools()[0];
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"create_chat","description":"{}","inputSchema":{}}}]}}}}"#,
        tool.description,
        serde_json::to_string(&tool.input_schema).unwrap()
    )
}

fn call_answer(id: &str, text: &str, is_error: bool) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":{}}}],"isError":{is_error}}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

fn bridge(server: &str, socket: PathBuf, token: &str) -> Bridge {
    Bridge::new(Options {
        server: server.into(),
        socket,
        token: token.into(),
    })
}

fn handle(bridge: &mut Bridge, line: &str) -> Option<String> {
    bridge.handle_line(line.as_bytes())
}

fn hello() -> Request {
    Request::Hello(Hello {
        protocol_version: PROTOCOL_VERSION,
        client: "paddockd mcp".into(),
    })
}

#[test]
fn the_real_handshake_line_by_line() {
    let daemon = FakeDaemon::start(Behaviour::default());
    let mut b = bridge("paddock_manage", daemon.socket.clone(), TOKEN);

    assert_eq!(handle(&mut b, DISCOVER).as_deref(), Some(DISCOVER_ANSWER));
    assert_eq!(
        handle(&mut b, INITIALIZE),
        Some(initialize_answer("paddock_manage", "2025-11-25"))
    );
    assert_eq!(handle(&mut b, INITIALIZED), None);
    // Nothing so far needed the daemon: the connection is lazy.
    assert_eq!(daemon.connections(), 0);
    assert!(daemon.requests().is_empty());

    assert_eq!(handle(&mut b, TOOLS_LIST), Some(tools_answer("1")));
    assert_eq!(
        handle(&mut b, TOOLS_CALL),
        Some(call_answer(
            "2",
            r#"create_chat ran with {"prompt":"ping"}"#,
            false
        ))
    );
    assert_eq!(handle(&mut b, CANCELLED), None);

    assert_eq!(daemon.connections(), 1);
    assert_eq!(
        daemon.requests(),
        vec![
            ClientMessage {
                id: 1,
                request: hello()
            },
            ClientMessage {
                id: 2,
                request: Request::AgentTools(AgentAuth {
                    token: TOKEN.into(),
                    server: "paddock_manage".into(),
                }),
            },
            ClientMessage {
                id: 3,
                request: Request::AgentCall(AgentCall {
                    token: TOKEN.into(),
                    server: "paddock_manage".into(),
                    tool: "create_chat".into(),
                    arguments: json!({"prompt": "ping"}),
                    tool_use_id: Some("toolu_mock_05b69ec0b953458c".into()),
                }),
            },
        ]
    );
}

#[test]
fn serve_drives_the_handshake_from_a_reader_to_a_writer() {
    let daemon = FakeDaemon::start(Behaviour::default());
    let mut b = bridge("paddock", daemon.socket.clone(), TOKEN);
    let input = [
        DISCOVER,
        INITIALIZE,
        INITIALIZED,
        "",
        TOOLS_LIST,
        TOOLS_CALL,
        CANCELLED,
    ]
    .join("\r\n");
    let mut out = Vec::new();
    serve(&mut b, Cursor::new(input), &mut out).unwrap();
    let expected = [
        DISCOVER_ANSWER.to_owned(),
        initialize_answer("paddock", "2025-11-25"),
        tools_answer("1"),
        call_answer("2", r#"create_chat ran with {"prompt":"ping"}"#, false),
    ]
    .map(|l| l + "\n")
    .concat();
    assert_eq!(String::from_utf8(out).unwrap(), expected);
}

#[test]
fn ids_come_back_as_given() {
    let mut b = bridge("paddock", "/nonexistent/paddockd.sock".into(), TOKEN);
    for id in [
        "\"abc\"",
        "7",
        "-3",
        "0",
        "1.5",
        "\"\"",
        "18446744073709551615",
    ] {
        assert_eq!(
            handle(
                &mut b,
                &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)
            ),
            Some(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)),
            "id {id}"
        );
    }
}

#[test]
fn initialize_agrees_on_a_version_it_knows_or_offers_the_newest() {
    let mut b = bridge("paddock_manage", "/nonexistent/paddockd.sock".into(), TOKEN);
    for (asked, agreed) in [
        ("\"2025-06-18\"", "2025-06-18"),
        ("\"2025-03-26\"", "2025-03-26"),
        ("\"2024-11-05\"", "2024-11-05"),
        ("\"2026-07-28\"", "2025-11-25"),
        ("7", "2025-11-25"),
    ] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":{asked}}}}}"#
        );
        assert_eq!(
            handle(&mut b, &line),
            Some(initialize_answer("paddock_manage", agreed))
        );
    }
    assert_eq!(
        handle(&mut b, r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#),
        Some(initialize_answer("paddock_manage", "2025-11-25"))
    );
}

#[test]
fn bad_lines_get_json_rpc_errors_and_the_bridge_carries_on() {
    let daemon = FakeDaemon::start(Behaviour::default());
    let mut b = bridge("paddock_manage", daemon.socket.clone(), TOKEN);
    let cases: &[(&[u8], Option<&str>)] = &[
        (
            b"this is not json",
            Some(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"#),
        ),
        (
            b"\xff\xfe{",
            Some(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"#),
        ),
        (
            br#"{"jsonrpc":"2.0","id":3"#,
            Some(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"#),
        ),
        (
            b"[]",
            Some(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"#),
        ),
        (
            b"42",
            Some(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"#),
        ),
        (
            br#"{"jsonrpc":"2.0","id":3}"#,
            Some(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"#),
        ),
        (
            br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            Some(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"#),
        ),
        (
            br#"{"jsonrpc":"2.0","id":"x","method":"resources/list"}"#,
            Some(
                r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found: resources/list"}}"#,
            ),
        ),
        (
            br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{}}}"#,
            Some(
                r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: tools/call needs `name`, the tool to call"}}"#,
            ),
        ),
        (
            br#"{"jsonrpc":"2.0","id":6,"method":"tools/call"}"#,
            Some(r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"#),
        ),
        (
            br#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
            None,
        ),
        (b"   ", None),
        (b"", None),
    ];
    for (line, want) in cases {
        let got = b.handle_line(line);
        match (want, &got) {
            (None, None) => {}
            (Some(prefix), Some(got)) => {
                assert!(
                    got.starts_with(prefix),
                    "{:?}: {got}",
                    String::from_utf8_lossy(line)
                );
                let v: Value = serde_json::from_str(got).unwrap();
                assert!(
                    v["error"]["message"]
                        .as_str()
                        .is_some_and(|m| !m.is_empty())
                );
            }
            _ => panic!("{:?}: {got:?}", String::from_utf8_lossy(line)),
        }
    }
    // None of that reached the daemon, and the bridge still works.
    assert!(daemon.requests().is_empty());
    assert_eq!(handle(&mut b, TOOLS_LIST), Some(tools_answer("1")));
}

#[test]
fn an_oversize_line_is_refused_and_the_next_one_served() {
    let mut b = bridge("paddock", "/nonexistent/paddockd.sock".into(), TOKEN);
    let input = format!(
        "{}\n{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}}\n",
        "x".repeat(100)
    );
    let mut out = Vec::new();
    serve_bounded(&mut b, Cursor::new(input), &mut out, 64).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        concat!(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a line of 100 bytes exceeds the 64-byte limit"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
            "\n"
        )
    );
}

#[test]
fn a_last_line_without_newline_is_served() {
    let mut b = bridge("paddock", "/nonexistent/paddockd.sock".into(), TOKEN);
    let mut out = Vec::new();
    serve(
        &mut b,
        Cursor::new(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
        &mut out,
    )
    .unwrap();
    assert_eq!(out, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
}

#[test]
fn a_daemon_that_is_away_gives_an_error_result_and_no_tools() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = bridge("paddock_manage", dir.path().join("none.sock"), TOKEN);
    assert_eq!(
        handle(&mut b, TOOLS_LIST).as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#)
    );
    let got: Value = serde_json::from_str(&handle(&mut b, TOOLS_CALL).unwrap()).unwrap();
    assert_eq!(got["id"], json!(2));
    assert_eq!(got["result"]["isError"], json!(true));
    let text = got["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("paddockd is not reachable: "), "{text}");
    assert!(!text.contains('\n'));
    // The lifecycle still works without a daemon.
    assert_eq!(handle(&mut b, DISCOVER).as_deref(), Some(DISCOVER_ANSWER));
}

#[test]
fn a_refused_token_reads_as_such() {
    let daemon = FakeDaemon::start(Behaviour::default());
    let mut b = bridge("paddock_manage", daemon.socket.clone(), "pdk_someone_else");
    assert_eq!(
        handle(&mut b, TOOLS_LIST).as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#)
    );
    assert_eq!(
        handle(&mut b, TOOLS_CALL),
        Some(call_answer("2", TOKEN_REFUSED, true))
    );
}

#[test]
fn a_reply_of_the_wrong_kind_is_an_error_naming_both() {
    let daemon = FakeDaemon::start(Behaviour {
        wrong_kind: true,
        ..Behaviour::default()
    });
    let mut client = DaemonClient::new(daemon.socket.clone(), Timeouts::default());
    let auth = AgentAuth {
        token: TOKEN.into(),
        server: "paddock_manage".into(),
    };
    let e = client.tools(&auth).unwrap_err();
    assert_eq!(
        e.to_string(),
        "paddockd answered `agent:tools` with an unexpected `pong` reply"
    );
    let call = AgentCall {
        token: TOKEN.into(),
        server: "paddock_manage".into(),
        tool: "create_chat".into(),
        arguments: json!({}),
        tool_use_id: None,
    };
    let e = client.call(call).unwrap_err();
    assert_eq!(
        e.to_string(),
        "paddockd answered `agent:call` with an unexpected `pong` reply"
    );
}

#[test]
fn tool_errors_and_daemon_errors_are_error_results() {
    let daemon = FakeDaemon::start(Behaviour::default());
    let mut b = bridge("paddock_manage", daemon.socket.clone(), TOKEN);
    assert_eq!(
        handle(
            &mut b,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"failing","arguments":null}}"#
        ),
        Some(call_answer("\"a\"", "failing ran with {}", true))
    );
    assert_eq!(
        handle(
            &mut b,
            r#"{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"missing_chat"}}"#
        ),
        Some(call_answer(
            "\"b\"",
            "paddockd refused `missing_chat`: No chat with session id 123.",
            true
        ))
    );
    // No `_meta`: no toolUseId; arguments default to {}.
    let Some(ClientMessage {
        request: Request::AgentCall(call),
        ..
    }) = daemon.requests().pop()
    else {
        panic!("no call")
    };
    assert_eq!(call.tool_use_id, None);
    assert_eq!(call.arguments, json!({}));
}

#[test]
fn pushed_events_are_skipped_while_waiting() {
    let daemon = FakeDaemon::start(Behaviour {
        push_events: true,
        ..Behaviour::default()
    });
    let mut b = bridge("paddock_manage", daemon.socket.clone(), TOKEN);
    assert_eq!(handle(&mut b, TOOLS_LIST), Some(tools_answer("1")));
    assert_eq!(
        handle(&mut b, TOOLS_CALL),
        Some(call_answer(
            "2",
            r#"create_chat ran with {"prompt":"ping"}"#,
            false
        ))
    );
    assert_eq!(daemon.connections(), 1);
}

#[test]
fn a_lost_connection_is_replaced_once() {
    let daemon = FakeDaemon::start(Behaviour {
        close_after_answer: true,
        ..Behaviour::default()
    });
    let mut b = bridge("paddock_manage", daemon.socket.clone(), TOKEN);
    assert_eq!(handle(&mut b, TOOLS_LIST), Some(tools_answer("1")));
    daemon.wait_closed(1);
    assert_eq!(
        handle(&mut b, TOOLS_CALL),
        Some(call_answer(
            "2",
            r#"create_chat ran with {"prompt":"ping"}"#,
            false
        ))
    );
    daemon.wait_closed(2);
    assert_eq!(handle(&mut b, TOOLS_LIST), Some(tools_answer("1")));
    assert_eq!(daemon.connections(), 3);
    let hellos = daemon
        .requests()
        .iter()
        .filter(|m| matches!(m.request, Request::Hello(_)))
        .count();
    assert_eq!(hellos, 3);
}

#[test]
fn a_call_cut_off_mid_way_is_not_sent_twice() {
    let daemon = FakeDaemon::start(Behaviour {
        close_without_answer: true,
        ..Behaviour::default()
    });
    let mut b = bridge("paddock_manage", daemon.socket.clone(), TOKEN);
    let got: Value = serde_json::from_str(&handle(&mut b, TOOLS_CALL).unwrap()).unwrap();
    assert_eq!(got["result"]["isError"], json!(true));
    assert_eq!(
        got["result"]["content"][0]["text"],
        json!(
            "the connection to paddockd was lost while the call ran; it may or may not have taken effect"
        )
    );
    let calls = |d: &FakeDaemon| {
        d.requests()
            .iter()
            .filter(|m| matches!(m.request, Request::AgentCall(_)))
            .count()
    };
    assert_eq!(calls(&daemon), 1);
    // tools/list is harmless to repeat: tried on a second connection, then given up.
    assert_eq!(
        handle(&mut b, TOOLS_LIST).as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#)
    );
    let lists = daemon
        .requests()
        .iter()
        .filter(|m| matches!(m.request, Request::AgentTools(_)))
        .count();
    assert_eq!(lists, 2);
}

#[test]
fn a_silent_daemon_times_out_on_hello() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("mute.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let mut b = Bridge::with_timeouts(
        Options {
            server: "paddock".into(),
            socket,
            token: TOKEN.into(),
        },
        Timeouts {
            hello: Some(std::time::Duration::from_millis(100)),
            ..Timeouts::default()
        },
    );
    let got: Value = serde_json::from_str(&handle(&mut b, TOOLS_CALL).unwrap()).unwrap();
    assert_eq!(got["result"]["isError"], json!(true));
    assert_eq!(
        got["result"]["content"][0]["text"],
        json!("paddockd did not answer `hello` within 0.1 s")
    );
}

#[test]
fn options_come_from_the_environment_and_the_command_line() {
    let args = |socket: Option<&str>| McpArgs {
        server: "paddock_manage".into(),
        socket: socket.map(PathBuf::from),
    };
    let env = |token: Option<&'static str>, socket: Option<&'static str>| {
        move |k: &str| match k {
            TOKEN_ENV => token.map(Into::into),
            SOCKET_ENV => socket.map(Into::into),
            _ => None,
        }
    };
    assert_eq!(
        Options::resolve(&args(None), env(Some("tok"), Some("/run/p.sock"))),
        Ok(Options {
            server: "paddock_manage".into(),
            socket: "/run/p.sock".into(),
            token: "tok".into(),
        })
    );
    assert_eq!(
        Options::resolve(
            &args(Some("/x.sock")),
            env(Some("tok"), Some("/run/p.sock"))
        )
        .map(|o| o.socket),
        Ok(PathBuf::from("/x.sock"))
    );
    assert_eq!(
        Options::resolve(&args(None), env(None, Some("/run/p.sock"))),
        Err(McpError::MissingToken)
    );
    assert_eq!(
        Options::resolve(&args(None), env(Some(""), Some("/run/p.sock"))),
        Err(McpError::MissingToken)
    );
    assert_eq!(
        Options::resolve(&args(None), env(Some("tok"), Some(""))),
        Err(McpError::MissingSocket)
    );
    assert_eq!(
        Options::resolve(&args(None), env(Some("tok"), None)),
        Err(McpError::MissingSocket)
    );
    let mut blank = args(None);
    blank.server = " ".into();
    assert_eq!(
        Options::resolve(&blank, env(Some("tok"), Some("/s"))),
        Err(McpError::MissingServer)
    );
}

#[test]
fn the_subcommand_parses_and_stays_out_of_the_main_help() {
    use clap::Parser;
    let args = crate::cli::Args::try_parse_from([
        "paddockd", "mcp", "--server", "paddock", "--socket", "/s.sock",
    ])
    .unwrap();
    let Some(crate::cli::Command::Mcp(mcp)) = args.command else {
        panic!("not mcp")
    };
    assert_eq!(mcp.server, "paddock");
    assert_eq!(mcp.socket, Some(PathBuf::from("/s.sock")));
    assert!(crate::cli::Args::try_parse_from(["paddockd", "mcp"]).is_err());
    let help = crate::cli::command().render_long_help().to_string();
    assert!(!help.contains("MCP bridge"), "{help}");
    let mut cmd = crate::cli::command();
    let sub = cmd.find_subcommand_mut("mcp").unwrap();
    assert!(
        sub.render_long_help()
            .to_string()
            .contains("the MCP bridge paddockd gives its agents; not for people")
            || sub
                .render_long_help()
                .to_string()
                .contains("The MCP bridge paddockd gives its agents; not for people")
    );
}
