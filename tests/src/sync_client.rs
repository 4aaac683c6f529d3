//! A blocking protocol client for tests that drive the real daemon binary from plain threads
//! (SIGKILL and restart tests): connect once the socket answers, hello, then requests and the
//! responses to them, pushed events skipped. A daemon that does not answer fails the test, by
//! a panic that says so.
#![allow(clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use paddock_proto::{
    ClientMessage, ControlMessage, Hello, Outcome, PROTOCOL_VERSION, Reply, Request, ServerMessage,
};

use crate::wait::wait_until_blocking;

/// How long the socket may take to answer, and a read to arrive.
const DEADLINE: Duration = Duration::from_secs(30);

pub struct Conn {
    writer: UnixStream,
    reader: BufReader<UnixStream>,
    next_id: u64,
}

impl Conn {
    /// Connects (waiting for the socket) and says hello as `client`.
    ///
    /// # Panics
    /// When the socket does not answer within the deadline, or hello is refused.
    pub fn open(socket: &Path, client: &str) -> Self {
        let stream = wait_until_blocking("the daemon's socket", DEADLINE, || {
            UnixStream::connect(socket).ok()
        })
        .expect("the daemon's socket answers");
        stream
            .set_read_timeout(Some(DEADLINE))
            .expect("a read timeout");
        let reader = BufReader::new(stream.try_clone().expect("a second handle"));
        let mut c = Self {
            writer: stream,
            reader,
            next_id: 1,
        };
        c.request(Request::Hello(Hello {
            protocol_version: PROTOCOL_VERSION,
            client: client.into(),
        }));
        c
    }

    /// Sends a request; its id.
    ///
    /// # Panics
    /// When the daemon cannot be written to.
    pub fn send(&mut self, request: Request) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let line = paddock_proto::encode(&ClientMessage { id, request }).expect("encodable");
        self.writer
            .write_all(line.as_bytes())
            .expect("the daemon takes the request");
        id
    }

    /// The next response (pushed events skipped); `None` once the connection ended (or a
    /// read timed out).
    pub fn next_response(&mut self) -> Option<(u64, Outcome)> {
        loop {
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            if let Ok(ServerMessage::Control(ControlMessage::Response(r))) =
                paddock_proto::decode::<ServerMessage>(line.trim_end().as_bytes())
            {
                return Some((r.id, r.outcome));
            }
        }
    }

    /// The response to `id`, which must be the next one.
    ///
    /// # Panics
    /// When another response (or none) comes next.
    pub fn reply(&mut self, id: u64) -> Result<Reply, String> {
        match self.next_response() {
            Some((got, Outcome::Ok(r))) if got == id => Ok(r),
            Some((got, Outcome::Err(e))) if got == id => Err(e.message),
            other => panic!("expected the response to {id}, got {other:?}"),
        }
    }

    /// Sends a request and returns its reply.
    ///
    /// # Panics
    /// When the request is refused or no response comes.
    pub fn request(&mut self, request: Request) -> Reply {
        let id = self.send(request);
        self.reply(id)
            .unwrap_or_else(|e| panic!("request {id} refused: {e}"))
    }
}
