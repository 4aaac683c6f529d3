//! A tiny fake paddockd for the client tests: a Unix listener on a temp socket that the test
//! drives line by line, speaking the real wire types.

use std::path::PathBuf;
use std::time::Duration;

use paddock_proto::{
    ClientMessage, ControlMessage, ErrorBody, HelloReply, HubFrame, Outcome, PROTOCOL_VERSION,
    Reply, Request, RequestId, Response, ServerMessage, decode, encode,
};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{UnixListener, UnixStream};

pub type TestResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// A guard against hangs: every wait in these tests ends by this deadline.
pub const DEADLINE: Duration = Duration::from_secs(10);

pub struct FakeDaemon {
    pub socket: PathBuf,
    pub listener: UnixListener,
    _dir: tempfile::TempDir,
}

impl FakeDaemon {
    pub fn bind() -> TestResult<Self> {
        let dir = tempfile::tempdir()?;
        let socket = dir.path().join("paddockd.sock");
        let listener = UnixListener::bind(&socket)?;
        Ok(Self {
            socket,
            listener,
            _dir: dir,
        })
    }

    pub async fn accept(&self) -> TestResult<FakeConn> {
        let (stream, _) = tokio::time::timeout(DEADLINE, self.listener.accept()).await??;
        Ok(FakeConn::new(stream))
    }

    /// Accepts a connection and answers its hello as a daemon of this protocol.
    pub async fn accept_hello(&self) -> TestResult<FakeConn> {
        let mut conn = self.accept().await?;
        let hello = conn.recv().await?;
        assert!(
            matches!(&hello.request, Request::Hello(h) if h.protocol_version == PROTOCOL_VERSION),
            "expected hello, got {hello:?}"
        );
        conn.reply(hello.id, Reply::Hello(hello_reply())).await?;
        Ok(conn)
    }
}

pub fn hello_reply() -> HelloReply {
    HelloReply {
        protocol_version: PROTOCOL_VERSION,
        daemon_version: "9.9.9-fake".into(),
        pid: 4242,
        user: "tester".into(),
    }
}

pub struct FakeConn {
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

impl FakeConn {
    fn new(stream: UnixStream) -> Self {
        let (read, write) = stream.into_split();
        Self {
            lines: BufReader::new(read).lines(),
            write,
        }
    }

    pub async fn recv(&mut self) -> TestResult<ClientMessage> {
        let line = tokio::time::timeout(DEADLINE, self.lines.next_line())
            .await??
            .ok_or("the client closed the connection")?;
        Ok(decode(line.as_bytes())?)
    }

    pub async fn send(&mut self, msg: &ServerMessage) -> TestResult {
        self.send_raw(&encode(msg)?).await
    }

    pub async fn send_raw(&mut self, line: &str) -> TestResult {
        self.write.write_all(line.as_bytes()).await?;
        Ok(())
    }

    pub async fn reply(&mut self, id: RequestId, reply: Reply) -> TestResult {
        self.respond(id, Outcome::Ok(reply)).await
    }

    pub async fn refuse(&mut self, id: RequestId, error: ErrorBody) -> TestResult {
        self.respond(id, Outcome::Err(error)).await
    }

    async fn respond(&mut self, id: RequestId, outcome: Outcome) -> TestResult {
        self.send(&ServerMessage::Control(ControlMessage::Response(
            Response { id, outcome },
        )))
        .await
    }

    pub async fn push_frame(&mut self, frame: HubFrame) -> TestResult {
        self.send(&ServerMessage::Frame(frame)).await
    }
}
