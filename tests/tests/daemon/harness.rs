//! An in-process paddockd on a temp socket with the fake `claude`, and a raw protocol client
//! that gives tests full control (reading slowly, not at all, sending garbage).

use std::path::{Path, PathBuf};
use std::time::Duration;

use paddock_proto::{
    ChatEvent, ClientMessage, ControlMessage, HubFrame, LineFramer, Outcome, PROTOCOL_VERSION,
    Reply, Request, ServerMessage,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub const DEADLINE: Duration = Duration::from_secs(20);

pub fn fake_claude() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fake-claude"))
}

pub struct TestDaemon {
    pub dir: tempfile::TempDir,
    pub socket: PathBuf,
    pub state_dir: PathBuf,
    pub cfg: paddockd::Config,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<anyhow::Result<()>>>,
}

impl TestDaemon {
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(tune: impl FnOnce(&mut paddockd::Config)) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let socket = dir.path().join("run").join("paddockd.sock");
        let state_dir = dir.path().join("fake-state");
        std::fs::create_dir_all(&state_dir).expect("state dir");
        let mut cfg = paddockd::Config::for_data_dir(&dir.path().join("data"), &socket);
        cfg.claude_bin = fake_claude();
        // Tests count the processes a turn starts: spares (`runner/spare.rs`) are turned on
        // where they are tested (`spares.rs`); the command-line tests run with the default.
        cfg.spare_processes = 0;
        cfg.interrupt_grace = Duration::from_secs(3);
        cfg.shutdown_grace = Duration::from_secs(3);
        cfg.claude_env = vec![(
            "FAKE_CLAUDE_STATE_DIR".into(),
            state_dir.to_string_lossy().into_owned(),
        )];
        tune(&mut cfg);
        let (tx, rx) = oneshot::channel::<()>();
        let run_cfg = cfg.clone();
        let task = tokio::spawn(async move {
            paddockd::run(run_cfg, async {
                let _ = rx.await;
            })
            .await
        });
        let d = Self {
            dir,
            socket,
            state_dir,
            cfg,
            stop: Some(tx),
            task: Some(task),
        };
        wait_for_socket(&d.socket).await;
        d
    }

    pub async fn client(&self) -> RawClient {
        let mut c = RawClient::connect(&self.socket).await;
        c.hello().await;
        c
    }

    /// Stops the daemon as SIGTERM would, and returns what `run` returned.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        match self.task.take() {
            Some(t) => tokio::time::timeout(DEADLINE, t)
                .await
                .map_err(|_| anyhow::anyhow!("daemon did not stop"))?
                .map_err(|e| anyhow::anyhow!("daemon task: {e}"))?,
            None => Ok(()),
        }
    }

    /// Pids of every fake-claude process this daemon started, with their children.
    pub fn fake_pids(&self) -> Vec<u32> {
        let mut pids = Vec::new();
        for e in std::fs::read_dir(&self.state_dir)
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json") {
                let Ok(v) = std::fs::read_to_string(&p)
                    .map_err(|_| ())
                    .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).map_err(|_| ()))
                else {
                    continue;
                };
                if let Some(pid) = v["pid"].as_u64() {
                    pids.push(pid as u32);
                }
                for c in v["children"].as_array().into_iter().flatten() {
                    if let Some(pid) = c.as_u64() {
                        pids.push(pid as u32);
                    }
                }
            }
        }
        pids
    }

    /// The pid of the fake-claude process started for `session`.
    pub fn fake_pid_for(&self, session: &str) -> Option<u32> {
        std::fs::read_dir(&self.state_dir)
            .into_iter()
            .flatten()
            .flatten()
            .find_map(|e| {
                let t = std::fs::read_to_string(e.path()).ok()?;
                let v: serde_json::Value = serde_json::from_str(&t).ok()?;
                let argv = v["argv"].as_array()?;
                argv.iter()
                    .any(|a| a.as_str() == Some(session))
                    .then(|| v["pid"].as_u64().map(|p| p as u32))
                    .flatten()
            })
    }

    /// The folder each fake-claude process this daemon started ran in.
    pub fn fake_cwds(&self) -> Vec<String> {
        std::fs::read_dir(&self.state_dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| {
                let t = std::fs::read_to_string(e.path()).ok()?;
                let v: serde_json::Value = serde_json::from_str(&t).ok()?;
                v["cwd"].as_str().map(str::to_owned)
            })
            .collect()
    }

    pub fn fake_argvs(&self) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(&self.state_dir)
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json")
                && let Ok(t) = std::fs::read_to_string(&p)
                && let Ok(v) = serde_json::from_str::<serde_json::Value>(&t)
            {
                out.push(
                    v["argv"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|a| a.as_str().map(str::to_owned))
                        .collect(),
                );
            }
        }
        out
    }
}

impl Drop for TestDaemon {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

pub async fn wait_for_socket(socket: &Path) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        if UnixStream::connect(socket).await.is_ok() {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "daemon never listened on {}",
            socket.display()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Whether a process is gone (or a zombie nobody reaped yet).
pub fn process_gone(pid: u32) -> bool {
    !paddock_tests::wait::pid_alive(pid)
}

pub async fn wait_gone(pid: u32) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while !process_gone(pid) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "process {pid} still running"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub struct RawClient {
    stream: UnixStream,
    framer: LineFramer,
    next_id: u64,
    pub pending: std::collections::VecDeque<ServerMessage>,
}

impl RawClient {
    pub async fn connect(socket: &Path) -> Self {
        let stream = UnixStream::connect(socket).await.expect("connect");
        Self {
            stream,
            framer: LineFramer::default(),
            next_id: 1,
            pending: Default::default(),
        }
    }

    pub async fn write_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("write");
    }

    pub async fn send(&mut self, request: Request) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let line = paddock_proto::encode(&ClientMessage { id, request }).expect("encode");
        self.write_raw(line.as_bytes()).await;
        id
    }

    pub async fn hello(&mut self) -> Reply {
        let id = self
            .send(Request::Hello(paddock_proto::Hello {
                protocol_version: PROTOCOL_VERSION,
                client: "daemon-tests".into(),
            }))
            .await;
        self.response(id).await.expect("hello accepted")
    }

    /// The next message, within the deadline.
    pub async fn next(&mut self) -> ServerMessage {
        self.try_next(DEADLINE)
            .await
            .expect("a message before the deadline")
    }

    pub async fn try_next(&mut self, within: Duration) -> Option<ServerMessage> {
        if let Some(m) = self.pending.pop_front() {
            return Some(m);
        }
        let deadline = tokio::time::Instant::now() + within;
        let mut buf = vec![0u8; 65536];
        loop {
            if let Some(frame) = self.framer.next_frame() {
                let line = frame.expect("line within limits");
                return Some(paddock_proto::decode(&line).expect("a valid server message"));
            }
            let n = tokio::time::timeout_at(deadline, self.stream.read(&mut buf))
                .await
                .ok()?
                .expect("read");
            if n == 0 {
                return None;
            }
            self.framer.push(&buf[..n]);
        }
    }

    /// Waits for the response to `id`, keeping other messages for later.
    pub async fn response(&mut self, id: u64) -> Result<Reply, paddock_proto::ErrorBody> {
        let mut kept = Vec::new();
        let result = loop {
            let m = self.next_unpending().await;
            match m {
                ServerMessage::Control(ControlMessage::Response(r)) if r.id == id => {
                    break match r.outcome {
                        Outcome::Ok(reply) => Ok(reply),
                        Outcome::Err(e) => Err(e),
                    };
                }
                other => kept.push(other),
            }
        };
        kept.extend(self.pending.drain(..));
        self.pending = kept.into();
        result
    }

    async fn next_unpending(&mut self) -> ServerMessage {
        if let Some(m) = self.pending.pop_front() {
            return m;
        }
        self.next().await
    }

    pub async fn request(&mut self, request: Request) -> Result<Reply, paddock_proto::ErrorBody> {
        let id = self.send(request).await;
        self.response(id).await
    }

    /// Hub frames of `session` until (and including) its `chat:complete`; everything else
    /// that arrives meanwhile is kept for later reads.
    pub async fn frames_until_complete(&mut self, session: &str) -> Vec<HubFrame> {
        let mut out = Vec::new();
        let mut kept = Vec::new();
        let mut queued: std::collections::VecDeque<ServerMessage> =
            self.pending.drain(..).collect();
        loop {
            let m = match queued.pop_front() {
                Some(m) => m,
                None => self.next().await,
            };
            match m {
                // Dropped from the stream (too slow, or aged out): its chat:complete will
                // never come, so say so now instead of at the deadline.
                ServerMessage::Control(ControlMessage::Resync(r)) if r.session_id == session => {
                    panic!(
                        "this client was dropped from {session}'s stream ({:?}) after {} of its frames",
                        r.reason,
                        out.len()
                    );
                }
                ServerMessage::Frame(f) if f.routing.session_id == session => {
                    let done = matches!(f.event, ChatEvent::Complete(_));
                    out.push(f);
                    if done {
                        kept.extend(queued);
                        kept.extend(self.pending.drain(..));
                        self.pending = kept.into();
                        return out;
                    }
                }
                other => kept.push(other),
            }
        }
    }

    /// Starts a turn; returns the `Sent` reply.
    pub async fn send_turn(
        &mut self,
        project: &str,
        session: Option<&str>,
        message: &str,
    ) -> paddock_proto::Sent {
        self.send_new(project, session, message, None).await
    }

    /// Starts a turn, a new chat working where `isolation` says; returns the `Sent` reply.
    pub async fn send_new(
        &mut self,
        project: &str,
        session: Option<&str>,
        message: &str,
        isolation: Option<paddock_proto::Isolation>,
    ) -> paddock_proto::Sent {
        let reply = self
            .request(Request::ChatSend(paddock_proto::ChatSend {
                project_slug: project.into(),
                session_id: session.map(str::to_owned),
                message: message.into(),
                model: None,
                preload_context: false,
                attachments: Vec::new(),
                isolation,
            }))
            .await
            .expect("turn accepted");
        match reply {
            Reply::Sent(s) => s,
            other => panic!("expected Sent, got {other:?}"),
        }
    }
}

impl RawClient {
    /// Starts a new chat whose turn runs until it is cancelled (its reply begins with `text`),
    /// and waits until the turn is visibly under way (its first reply frame).
    pub async fn send_hanging_turn(&mut self, project: &str, text: &str) -> paddock_proto::Sent {
        let script = format!(r#"fake:[{{"text":"{text}","chunks":1}},{{"hang":true}}]"#);
        let sent = self.send_turn(project, None, &script).await;
        loop {
            if let ServerMessage::Frame(f) = self.next().await
                && f.routing.session_id == sent.session_id
                && matches!(f.event, ChatEvent::Response(_))
            {
                return sent;
            }
        }
    }
}

pub fn text_of(frames: &[HubFrame]) -> String {
    frames
        .iter()
        .filter_map(|f| match &f.event {
            ChatEvent::Response(d) => Some(d.text.as_str()),
            _ => None,
        })
        .collect()
}

pub fn complete_of(frames: &[HubFrame]) -> &paddock_proto::Complete {
    match frames.last().map(|f| &f.event) {
        Some(ChatEvent::Complete(c)) => c,
        other => panic!("turn did not end with chat:complete: {other:?}"),
    }
}

/// A fake-claude script: text streamed in `chunks` pieces, `delay_ms` apart.
pub fn slow_text(text: &str, chunks: usize, delay_ms: u64) -> String {
    format!(
        "fake:{}",
        serde_json::json!([{"text": text, "chunks": chunks, "delay_ms": delay_ms}])
    )
}

/// A config change that puts every daemon folder in `data` (kept by the test across daemons).
pub fn on_data_dir(data: &Path) -> impl FnOnce(&mut paddockd::Config) {
    let data = data.to_path_buf();
    move |cfg| {
        cfg.log = data.join("paddockd.log");
        cfg.claude_home = data.join("claude-home");
        cfg.host_claude_home = data.join("host-claude");
        cfg.data_dir = data;
    }
}

/// `n` TCP connections to `addr` that send nothing, from the loopback addresses 127.0.0.2 …
/// 127.0.0.(`peers` + 1) in turn, so that no one address holds many; kept open by the caller.
pub async fn idle_connections(
    addr: std::net::SocketAddr,
    n: usize,
    peers: u8,
) -> Vec<tokio::net::TcpStream> {
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let last = u8::try_from(i % usize::from(peers.max(1))).unwrap() + 2;
        out.push(connect_from([127, 0, 0, last], addr).await);
    }
    out
}

/// A TCP connection to `addr` from the loopback address `from`.
pub async fn connect_from(from: [u8; 4], addr: std::net::SocketAddr) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().expect("a TCP socket");
    socket
        .bind((std::net::Ipv4Addr::from(from), 0).into())
        .expect("bind a loopback address");
    tokio::time::timeout(DEADLINE, socket.connect(addr))
        .await
        .expect("connected before the deadline")
        .expect("connect")
}

/// Whether the server has closed `s` (end of stream or reset); `false` while it is open with
/// nothing to read.
pub fn closed_by_server(s: &tokio::net::TcpStream) -> bool {
    match s.try_read(&mut [0u8; 1]) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
    }
}

/// Waits (within the deadline) for the server to close `s` without sending anything.
pub async fn closed_without_a_word(s: &mut tokio::net::TcpStream) {
    let mut buf = [0u8; 64];
    let n = tokio::time::timeout(DEADLINE, s.read(&mut buf))
        .await
        .expect("closed by the server before the deadline")
        .unwrap_or(0);
    assert_eq!(n, 0, "{:?}", String::from_utf8_lossy(&buf[..n]));
}

/// Creates project `slug` running in `path` (a directory of the user's own).
pub async fn create_project(c: &mut RawClient, slug: &str, path: &Path) {
    c.request(Request::ProjectCreate(paddock_proto::ProjectCreate {
        slug: slug.into(),
        path: Some(path.to_string_lossy().into_owned()),
        ..Default::default()
    }))
    .await
    .expect("project created");
}

/// Project `project`'s chats, archived ones too, in tree order.
pub async fn chats_of(c: &mut RawClient, project: &str) -> Vec<paddock_proto::ChatSummary> {
    let list = Request::ChatList(paddock_proto::ChatList {
        project_slug: Some(project.into()),
        scope: paddock_proto::ChatScope::All,
        since: None,
        full_titles: false,
    });
    match Box::pin(c.request(list)).await {
        Ok(Reply::Chats(chats)) => chats.chats,
        other => panic!("chat:list: {other:?}"),
    }
}

/// Lists `project` until `done` holds, polling within the deadline.
pub async fn chats_until(
    c: &mut RawClient,
    project: &str,
    what: &str,
    done: impl Fn(&[paddock_proto::ChatSummary]) -> bool,
) -> Vec<paddock_proto::ChatSummary> {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let now = chats_of(c, project).await;
        if done(&now) {
            return now;
        }
        assert!(tokio::time::Instant::now() < deadline, "{what}: {now:#?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}
