#![allow(clippy::unwrap_used, clippy::expect_used)]

use paddock_proto::*;

#[test]
fn hub_frame_and_response_round_trip_through_server_message() {
    let f = ServerMessage::Frame(HubFrame {
        routing: Routing {
            project_slug: "".into(),
            session_id: "s".into(),
            job_id: "j".into(),
            seq: 3,
        },
        event: ChatEvent::Response(TextDelta { text: "hi".into() }),
    });
    let line = encode(&f).unwrap();
    assert_eq!(
        line,
        "{\"projectSlug\":\"\",\"sessionId\":\"s\",\"jobId\":\"j\",\"seq\":3,\"type\":\"chat:response\",\"text\":\"hi\"}\n"
    );
    let back: ServerMessage = decode(line.trim_end().as_bytes()).unwrap();
    assert_eq!(back, f);
    let r = ServerMessage::Control(ControlMessage::Response(Response {
        id: 4,
        outcome: Outcome::Ok(Reply::Pong),
    }));
    let line = encode(&r).unwrap();
    assert_eq!(
        line,
        "{\"type\":\"response\",\"id\":4,\"ok\":{\"kind\":\"pong\"}}\n"
    );
    assert_eq!(
        decode::<ServerMessage>(line.trim_end().as_bytes()).unwrap(),
        r
    );
    let a = ServerMessage::Control(ControlMessage::Active(Active {
        project_slug: "p".into(),
        session_id: "s".into(),
        job_id: "j".into(),
        running: true,
    }));
    let line = encode(&a).unwrap();
    assert_eq!(
        decode::<ServerMessage>(line.trim_end().as_bytes()).unwrap(),
        a
    );
    let c = ClientMessage {
        id: 1,
        request: Request::Ping,
    };
    let line = encode(&c).unwrap();
    assert_eq!(line, "{\"id\":1,\"type\":\"ping\"}\n");
    assert_eq!(
        decode::<ClientMessage>(line.trim_end().as_bytes()).unwrap(),
        c
    );
}
