//! `paddock --remote HOST` and `paddock proxy`, end to end with the real binaries: the proxy
//! over a pipe, and the client through a stand-in for ssh (a shell script that drops ssh's
//! options and the host, then runs the remote words through `sh -c` as sshd would), so the
//! remote command line and its quoting are what a real ssh would send. No sshd is needed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::bins::bin;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use paddock_proto::{
    ChatEvent, ClientMessage, ControlMessage, Hello, Outcome, Reply, Request, ServerMessage,
};

/// A stand-in for ssh. ssh joins the remote command's words with spaces and hands the line to
/// the far side's shell; so does this, after logging its arguments one per line.
const FAKE_SSH: &str = r#"#!/bin/sh
# Usage as ssh's: [-T] [-o OPTION]... HOST WORD...
if [ -n "$FAKE_SSH_LOG" ]; then
  printf '%s\n' "$@" >> "$FAKE_SSH_LOG"
  printf '%s\n' '--' >> "$FAKE_SSH_LOG"
fi
while [ $# -gt 0 ]; do
  case "$1" in
    -o) shift; [ $# -gt 0 ] && shift ;;
    -*) shift ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "fake ssh: no host or no command" >&2
  exit 255
fi
shift
exec /bin/sh -c "$*"
"#;

/// ssh failing before it gets anywhere, as it does without a usable key.
const FAILING_SSH: &str = r#"#!/bin/sh
echo "me@devbox: Permission denied (publickey)." >&2
exit 255
"#;

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let env = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        env.script("fake-ssh", FAKE_SSH);
        env.script("failing-ssh", FAILING_SSH);
        env
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn script(&self, name: &str, text: &str) {
        let path = self.path(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn socket(&self) -> PathBuf {
        self.path("run").join("paddockd.sock")
    }

    /// The local `paddock`, pointed at this test's daemon.
    fn paddock(&self) -> Command {
        let mut c = Command::new(bin("paddock"));
        c.env("PADDOCK_SOCKET", self.socket())
            .env("PADDOCK_DATA_DIR", self.path("data"))
            .env("PADDOCK_LOG", self.path("paddockd.log"))
            .env("PADDOCK_CLAUDE_BIN", env!("CARGO_BIN_EXE_fake-claude"))
            .env("PADDOCK_DAEMON_BIN", bin("paddockd"))
            .env_remove("PADDOCK_CONFIG")
            .env_remove("PADDOCK_REMOTE")
            .env("PADDOCK_REMOTE_PADDOCK", bin("paddock"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("PADDOCK_SSH", self.path("fake-ssh"))
            .env("FAKE_SSH_LOG", self.path("ssh.log"))
            .stdin(Stdio::null());
        c
    }

    /// `paddock --remote fakehost ...`: the far side is the same machine, reached through the
    /// fake ssh, which passes this environment on (so the far side's paddock finds the test's
    /// daemon, its claude and its data).
    fn remote(&self) -> Command {
        let mut c = self.paddock();
        c.args(["--remote", "fakehost"]);
        c
    }

    fn ok(mut cmd: Command) -> (String, String) {
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success(),
            "{cmd:?} failed ({}): {stderr}\n{stdout}",
            out.status
        );
        (stdout, stderr)
    }

    fn run(&self, args: &[&str]) -> (String, String) {
        let mut c = self.paddock();
        c.args(args);
        Self::ok(c)
    }

    fn run_remote(&self, args: &[&str]) -> (String, String) {
        let mut c = self.remote();
        c.args(args);
        Self::ok(c)
    }

    /// The fake ssh's invocations, each as its argument list.
    fn ssh_calls(&self) -> Vec<Vec<String>> {
        let log = std::fs::read_to_string(self.path("ssh.log")).unwrap_or_default();
        let mut calls = vec![];
        let mut call = vec![];
        for line in log.lines() {
            if line == "--" {
                calls.push(std::mem::take(&mut call));
            } else {
                call.push(line.to_owned());
            }
        }
        calls
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = self.paddock().args(["daemon", "stop"]).output();
    }
}

/// Lines of a child's stdout, read on a thread so a test can wait for them with a deadline.
struct Lines {
    rx: mpsc::Receiver<String>,
}

impl Lines {
    fn of(out: impl Read + Send + 'static) -> Self {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self { rx }
    }

    /// The next line, `None` at the end of the stream; fails after `deadline`.
    fn next(&self, deadline: Instant) -> Option<String> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok(line) => Some(line),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("no line before the deadline"),
        }
    }
}

/// Waits for a child to exit, within `timeout`.
fn wait_exit(child: &mut Child, timeout: Duration) -> ExitStatus {
    paddock_tests::wait::wait_until_blocking("the process to exit", timeout, || {
        child.try_wait().unwrap()
    })
    .unwrap()
}

fn request_line(id: u64, request: Request) -> String {
    paddock_proto::encode(&ClientMessage { id, request }).unwrap()
}

fn hello() -> Request {
    Request::Hello(Hello {
        protocol_version: paddock_proto::PROTOCOL_VERSION,
        client: "remote test".into(),
    })
}

fn frames(json_lines: &str) -> Vec<paddock_proto::HubFrame> {
    json_lines
        .lines()
        .filter_map(|l| serde_json::from_str::<ServerMessage>(l).ok())
        .filter_map(|m| match m {
            ServerMessage::Frame(f) => Some(f),
            ServerMessage::Control(_) => None,
        })
        .collect()
}

#[test]
fn proxy_bridges_a_pipe_to_the_daemon_and_ends_when_stdin_closes() {
    let env = Env::new();
    env.run(&["project", "add", "demo"]);
    let mut proxy = env
        .paddock()
        .arg("proxy")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = proxy.stdin.take().unwrap();
    let lines = Lines::of(proxy.stdout.take().unwrap());
    let mut stderr = proxy.stderr.take().unwrap();
    stdin
        .write_all(request_line(1, hello()).as_bytes())
        .unwrap();
    stdin
        .write_all(request_line(2, Request::ProjectList).as_bytes())
        .unwrap();
    stdin.flush().unwrap();

    let deadline = Instant::now() + Duration::from_secs(30);
    let (mut greeted, mut projects) = (false, None);
    while projects.is_none() {
        let line = lines.next(deadline).expect("the proxy ended early");
        // stdout is the protocol: every line is one of the daemon's messages.
        let msg: ServerMessage = paddock_proto::decode(line.as_bytes())
            .unwrap_or_else(|e| panic!("not a daemon message on stdout: {line:?}: {e}"));
        if let ServerMessage::Control(ControlMessage::Response(r)) = msg {
            match (r.id, r.outcome) {
                (1, Outcome::Ok(Reply::Hello(h))) => {
                    assert_eq!(h.protocol_version, paddock_proto::PROTOCOL_VERSION);
                    greeted = true;
                }
                (2, Outcome::Ok(Reply::Projects(p))) => projects = Some(p.projects),
                other => panic!("unexpected response {other:?}"),
            }
        }
    }
    assert!(greeted, "hello is answered before project:list");
    let projects = projects.unwrap();
    assert!(projects.iter().any(|p| p.slug == "demo"), "{projects:?}");

    // The client closes: the proxy ends, with status 0, having said nothing.
    drop(stdin);
    let status = wait_exit(&mut proxy, Duration::from_secs(20));
    let mut said = String::new();
    stderr.read_to_string(&mut said).unwrap();
    assert!(status.success(), "{status}: {said}");
    assert_eq!(said, "");
    assert_eq!(lines.next(deadline), None, "nothing after the last reply");
}

#[test]
fn proxy_without_a_daemon_fails_with_one_line_and_nothing_on_stdout() {
    let env = Env::new();
    let fails = |mut cmd: Command, says: &str| {
        let out = cmd.arg("proxy").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(out.stdout.is_empty(), "{:?}", out.stdout);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("paddock: "), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
    };
    // A socket under a regular file: nothing can listen there.
    std::fs::write(env.path("not-a-dir"), "").unwrap();
    let mut cmd = env.paddock();
    cmd.arg("--socket")
        .arg(env.path("not-a-dir").join("paddockd.sock"));
    fails(cmd, "cannot connect to paddockd on");
    // A daemon that dies at startup.
    env.script("dead-daemon", "#!/bin/sh\nexit 3\n");
    let mut cmd = env.paddock();
    cmd.env("PADDOCK_DAEMON_BIN", env.path("dead-daemon"));
    fails(cmd, "paddockd exited at startup");
}

#[test]
fn remote_commands_send_list_and_two_clients_watch_one_chat() {
    let env = Env::new();
    // The paddock on the far side is found through a path ssh's shell must be given quoted.
    let odd_dir = env.path("it's a bin");
    std::fs::create_dir(&odd_dir).unwrap();
    std::os::unix::fs::symlink(bin("paddock"), odd_dir.join("paddock")).unwrap();
    let remote_paddock = odd_dir.join("paddock");
    // This machine's socket, as the client sees it: under --remote nothing may start a daemon
    // here. The far side gets the real one by --socket.
    let local_socket = env.path("local").join("paddockd.sock");
    let remote = || {
        let mut c = env.paddock();
        c.env("PADDOCK_SOCKET", &local_socket)
            .arg("--remote")
            .arg("fakehost")
            .arg("--remote-paddock")
            .arg(&remote_paddock)
            .arg("--socket")
            .arg(env.socket());
        c
    };

    let mut add = remote();
    add.args(["project", "add", "demo"]);
    Env::ok(add);
    let mut send = remote();
    send.args(["send", "-p", "demo", "hello over ssh"]);
    let (out, err) = Env::ok(send);
    assert_eq!(out.trim(), "echo: hello over ssh");
    let session = err
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .expect("session id on stderr")
        .trim()
        .to_owned();
    let mut ls = remote();
    ls.args(["ls", "-p", "demo", "--json"]);
    let (ls, _) = Env::ok(ls);
    let chats: serde_json::Value = serde_json::from_str(&ls).unwrap();
    assert_eq!(chats[0]["sessionId"], session.as_str());
    assert!(
        !local_socket.exists() && !local_socket.parent().unwrap().exists(),
        "a daemon was started on this side"
    );
    // ssh got an argument vector: its options, the host, then the remote words, quoted.
    let calls = env.ssh_calls();
    assert!(!calls.is_empty());
    let quoted_paddock = format!(
        "'{}'",
        remote_paddock.display().to_string().replace('\'', "'\\''")
    );
    let expected: Vec<String> = [
        "-T",
        "-o",
        "BatchMode=yes",
        "fakehost",
        &quoted_paddock,
        "--socket",
        &env.socket().display().to_string(),
        "proxy",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    assert_eq!(calls[0], expected);

    // Two clients on one running chat, one through ssh and one local, see the same stream.
    let script = r#"fake:[{"text":"one two three four five six seven eight nine ten","chunks":30,"delay_ms":60}]"#;
    let mut sender = env
        .remote()
        .args(["send", "-p", "demo", "--json", "-c", &session, script])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let sender_err = Lines::of(sender.stderr.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let line = sender_err.next(deadline).expect("send ended early");
        if line.starts_with("session: ") {
            break;
        }
    }
    let tail_remote = env
        .remote()
        .args(["tail", "--json", &session])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tail_local = env
        .paddock()
        .args(["tail", "--json", &session])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let sent = sender.wait_with_output().unwrap();
    assert!(sent.status.success());
    let remote_out = tail_remote.wait_with_output().unwrap();
    let local_out = tail_local.wait_with_output().unwrap();
    assert!(
        remote_out.status.success(),
        "{}",
        String::from_utf8_lossy(&remote_out.stderr)
    );
    assert!(local_out.status.success());
    let sent = frames(&String::from_utf8_lossy(&sent.stdout));
    let through_ssh = frames(&String::from_utf8_lossy(&remote_out.stdout));
    let here = frames(&String::from_utf8_lossy(&local_out.stdout));
    assert!(matches!(sent.last().map(|f| &f.event), Some(ChatEvent::Complete(c)) if c.success));
    assert_eq!(
        through_ssh, sent,
        "the remote tail saw the whole turn, same seqs"
    );
    assert_eq!(here, sent, "the local tail saw the whole turn, same seqs");
    let text: String = through_ssh
        .iter()
        .filter_map(|f| match &f.event {
            ChatEvent::Response(r) => Some(r.text.as_str()),
            _ => None,
        })
        .collect();
    assert!(text.contains("one two three"), "{text}");

    // One read state: what a remote client marks is what the local one sees.
    let unread = |out: &str| {
        let chats: serde_json::Value = serde_json::from_str(out).unwrap();
        chats[0]["unread"].as_bool().unwrap_or(false)
    };
    env.run_remote(&["unread", &session]);
    assert!(unread(&env.run(&["ls", "-p", "demo", "--json"]).0));
    env.run_remote(&["read", &session]);
    assert!(!unread(&env.run(&["ls", "-p", "demo", "--json"]).0));
    assert!(!unread(&env.run_remote(&["ls", "-p", "demo", "--json"]).0));

    // The daemon's lifecycle commands run on the far side.
    let (status, _) = env.run_remote(&["daemon", "status", "--json"]);
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert!(status["pid"].as_u64().is_some(), "{status}");
    env.run_remote(&["daemon", "stop"]);
    paddock_tests::wait::wait_until_blocking("the socket to go", Duration::from_secs(20), || {
        (!env.socket().exists()).then_some(())
    })
    .unwrap();
}

#[test]
fn ssh_failures_name_the_host_and_say_what_to_try() {
    let env = Env::new();
    let out = env
        .paddock()
        .env("PADDOCK_SSH", env.path("failing-ssh"))
        .args(["--remote", "me@devbox", "ls"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("paddock: ssh me@devbox: me@devbox: Permission denied (publickey)"),
        "{stderr}"
    );
    assert!(stderr.contains("` works by hand"), "{stderr}");
    assert!(stderr.contains(" me@devbox "), "{stderr}");
    assert!(out.stdout.is_empty());

    // A far side without paddock on its PATH.
    let out = env
        .remote()
        .args(["--remote-paddock", "/nonexistent/paddock", "ls"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("ssh fakehost: "), "{stderr}");
    assert!(stderr.contains("--remote-paddock"), "{stderr}");

    // No ssh program at all.
    let out = env
        .remote()
        .env("PADDOCK_SSH", env.path("no-such-ssh"))
        .arg("ls")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("PADDOCK_SSH"), "{stderr}");

    // The far side's commands through a failing ssh.
    let out = env
        .paddock()
        .env("PADDOCK_SSH", env.path("failing-ssh"))
        .args(["--remote", "me@devbox", "daemon", "status"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert!(stderr.contains("paddock: ssh me@devbox failed"), "{stderr}");
    assert!(!env.socket().exists(), "no daemon was started");
}

#[test]
fn remote_refuses_what_only_makes_sense_here() {
    let env = Env::new();
    let refused = |args: &[&str], says: &str| {
        let out = env.remote().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    };
    refused(&["provenance", "src/a.rs"], "give an absolute path there");
    refused(&["blame", "src/a.rs"], "-p");
    refused(
        &["project", "add", "web", "--path", "src/web"],
        "fakehost's",
    );
    refused(&["import", "--path", "old"], "absolute path");
    refused(&["daemon", "start", "--foreground"], "ssh -t fakehost");
    refused(&["proxy"], "without --remote");
    let mut bad_host = env.paddock();
    bad_host.args(["--remote=-oProxyCommand=sh", "ls"]);
    let out = bad_host.output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ssh destination"));
    assert!(env.ssh_calls().is_empty(), "ssh was never run");
    assert!(!env.socket().exists(), "no daemon was started");
}

/// The TUI through ssh, and its reconnect loop: a daemon restart drops the ssh connection;
/// the TUI runs ssh again and goes on showing live changes.
#[test]
fn the_tui_works_through_ssh_and_reconnects_after_a_restart() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux is not installed; skipping");
        return;
    }
    let env = Env::new();
    env.run(&["project", "add", "demo"]);
    env.run(&["send", "-p", "demo", "a chat seen from afar"]);
    let server = format!("paddock-remote-{}", std::process::id());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-L", &server, "-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap()
    };
    struct Kill<'a>(&'a dyn Fn(&[&str]) -> std::process::Output);
    impl Drop for Kill<'_> {
        fn drop(&mut self) {
            let _ = (self.0)(&["kill-server"]);
        }
    }
    let _kill = Kill(&tmux);
    let shell = format!("exec {}", paddock_tests::tmux::shell_line(&env.remote()));
    let started = tmux(&[
        "new-session",
        "-d",
        "-s",
        "tui",
        "-x",
        "100",
        "-y",
        "30",
        &shell,
    ]);
    assert!(started.status.success());
    let screen = |what: &str| {
        paddock_tests::wait::wait_until_blocking(what, Duration::from_secs(30), || {
            let out = tmux(&["capture-pane", "-p", "-t", "tui"]);
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.contains(what).then_some(text)
        })
        .unwrap_or_else(|e| {
            let out = tmux(&["capture-pane", "-p", "-t", "tui"]);
            panic!("{e}:\n{}", String::from_utf8_lossy(&out.stdout))
        })
    };
    screen("a chat seen from afar");
    let before = env.ssh_calls().len();
    env.run(&["daemon", "restart"]);
    // A chat made after the restart shows up live: the TUI is connected again, through a new ssh.
    env.run(&["send", "-p", "demo", "made after the restart"]);
    screen("made after the restart");
    assert!(env.ssh_calls().len() > before, "the TUI ran ssh again");
}
