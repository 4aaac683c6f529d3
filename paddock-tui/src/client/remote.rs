//! `--remote HOST`: the client runs here and reaches the daemon on HOST through ssh. ssh runs
//! `paddock proxy` on the far side, which bridges its stdin and stdout to the daemon's socket
//! there, so the same JSON lines travel over the ssh child's pipes: no open port, ssh's own
//! authentication.
//!
//! Nothing the user typed passes through a local shell: ssh gets an argument vector. But ssh
//! joins the remote command's words with spaces for the far side's shell, so each word is
//! quoted here for a POSIX shell ([`sh_quote`]).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use super::connection::{Client, ConnectOptions};
use super::error::ClientError;

/// The most of ssh's stderr kept for an error message (its last bytes: the reason is at the end).
const STDERR_KEEP: usize = 8 * 1024;
/// After the transport closed during the handshake, how long ssh gets to exit and finish its
/// stderr, so the error can say why.
const EXIT_GRACE: Duration = Duration::from_secs(3);

/// Where the daemon is under `--remote`, and how to get there.
#[derive(Debug, Clone)]
pub struct RemoteOptions {
    /// The ssh destination: a host, `user@host`, or a `Host` of ~/.ssh/config.
    pub host: String,
    /// The ssh program: `$PADDOCK_SSH`, else `ssh`.
    pub ssh: PathBuf,
    /// The `paddock` to run on the far side (`--remote-paddock`), `paddock` by default.
    pub paddock: OsString,
    /// The far side's socket (`--socket`); its own default when absent.
    pub socket: Option<PathBuf>,
    pub connect: ConnectOptions,
}

impl RemoteOptions {
    /// Checks the host and fills in the defaults: ssh from `$PADDOCK_SSH`, 30 s for ssh to
    /// connect and the far side to start its daemon and answer hello.
    pub fn new(
        host: &str,
        paddock: Option<OsString>,
        socket: Option<PathBuf>,
    ) -> Result<Self, ClientError> {
        check_host(host)?;
        let ssh = std::env::var_os("PADDOCK_SSH")
            .filter(|s| !s.is_empty())
            .map_or_else(|| PathBuf::from("ssh"), PathBuf::from);
        let paddock = paddock
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| OsString::from("paddock"));
        Ok(Self {
            host: host.to_owned(),
            ssh,
            paddock,
            socket,
            connect: ConnectOptions {
                hello_timeout: Duration::from_secs(30),
                ..ConnectOptions::default()
            },
        })
    }

    /// The far side's command line for `paddock [--socket S] WORDS...`, one word per element
    /// (not yet quoted).
    pub fn remote_command(&self, words: &[&OsStr]) -> Vec<OsString> {
        let mut command = vec![self.paddock.clone()];
        if let Some(socket) = &self.socket {
            command.push("--socket".into());
            command.push(socket.as_os_str().to_owned());
        }
        command.extend(words.iter().map(|w| (*w).to_owned()));
        command
    }

    /// ssh's arguments to run `paddock [--socket S] WORDS...` on the host: no terminal, never a
    /// password prompt (stdin is the protocol), and each remote word quoted for the far shell.
    pub fn ssh_args(&self, words: &[&OsStr]) -> Vec<OsString> {
        let mut args: Vec<OsString> = ["-T", "-o", "BatchMode=yes"]
            .into_iter()
            .map(OsString::from)
            .collect();
        args.push(self.host.clone().into());
        args.extend(self.remote_command(words).iter().map(|w| sh_quote(w)));
        args
    }

    /// What to try by hand when the connection fails: `ssh HOST paddock proxy`.
    pub fn by_hand(&self, words: &[&str]) -> String {
        let command: Vec<String> = self
            .remote_command(&words.iter().map(OsStr::new).collect::<Vec<_>>())
            .iter()
            .map(|w| sh_quote(w).to_string_lossy().into_owned())
            .collect();
        format!(
            "{} {} {}",
            self.ssh.display(),
            sh_quote(OsStr::new(&self.host)).to_string_lossy(),
            command.join(" ")
        )
    }

    /// A `Command` for ssh running `paddock ... WORDS` on the host. It is in its own process
    /// group, so the Ctrl-C typed here reaches paddock (which cancels the turn over the
    /// connection) and not ssh (which would drop the connection).
    pub fn command(&self, words: &[&OsStr]) -> Command {
        let mut command = Command::new(&self.ssh);
        command.args(self.ssh_args(words)).process_group(0);
        command
    }

    fn spawn_error(&self, e: &std::io::Error) -> ClientError {
        ClientError::Remote(format!(
            "could not run {} to reach {}: {e}; install OpenSSH's client or set PADDOCK_SSH to an ssh program",
            self.ssh.display(),
            self.host
        ))
    }
}

/// Refuses a host ssh would take for an option, or that cannot be one.
fn check_host(host: &str) -> Result<(), ClientError> {
    let reason = if host.is_empty() {
        Some("is empty")
    } else if host.starts_with('-') {
        Some("starts with '-'")
    } else if host.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("contains a space or a control character")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(ClientError::Remote(format!(
            "--remote {host:?} {reason}; give an ssh destination such as `devbox` or `me@devbox.example.com`"
        ))),
        None => Ok(()),
    }
}

/// One word for a POSIX shell: left alone when it holds only characters no shell treats
/// specially, else in single quotes (a `'` inside as `'\''`). A leading `~/` stays outside the
/// quotes so the far side expands it to its home (`--remote-paddock ~/.cargo/bin/paddock`).
pub fn sh_quote(word: &OsStr) -> OsString {
    let bytes = word.as_bytes();
    let (tilde, rest): (&[u8], &[u8]) = match bytes.strip_prefix(b"~/") {
        Some(rest) => (b"~/", rest),
        None => (b"", bytes),
    };
    let plain = |b: &u8| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(b);
    if rest.iter().all(plain) && !(tilde.is_empty() && rest.is_empty()) {
        return word.to_owned();
    }
    let mut out = tilde.to_vec();
    out.push(b'\'');
    for &b in rest {
        if b == b'\'' {
            out.extend_from_slice(b"'\\''");
        } else {
            out.push(b);
        }
    }
    out.push(b'\'');
    OsString::from_vec(out)
}

/// The tail of ssh's stderr, shared with the task reading it.
#[derive(Debug, Clone, Default)]
struct StderrTail(Arc<Mutex<Vec<u8>>>);

impl StderrTail {
    fn push(&self, chunk: &[u8]) {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.extend_from_slice(chunk);
        if kept.len() > STDERR_KEEP {
            let cut = kept.len() - STDERR_KEEP;
            kept.drain(..cut);
        }
    }

    /// The kept lines, trimmed, joined with "; " (one line for `paddock: ...`).
    fn text(&self) -> String {
        let kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&kept)
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Connects through `ssh HOST paddock proxy` and says hello over the child's stdio.
pub async fn connect_remote(opts: &RemoteOptions) -> Result<Client, ClientError> {
    connect_through(opts, &[OsStr::new("proxy")]).await
}

/// [`connect_remote`] to a daemon that runs already on HOST (`paddock proxy --no-start`).
pub async fn connect_remote_existing(opts: &RemoteOptions) -> Result<Client, ClientError> {
    connect_through(opts, &[OsStr::new("proxy"), OsStr::new("--no-start")]).await
}

async fn connect_through(opts: &RemoteOptions, words: &[&OsStr]) -> Result<Client, ClientError> {
    let mut child = opts
        .command(words)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| opts.spawn_error(&e))?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(ClientError::Remote(format!(
            "{} started without its pipes",
            opts.ssh.display()
        )));
    };
    let tail = StderrTail::default();
    let stderr_task = tokio::spawn(read_stderr(stderr, tail.clone()));
    let mut client = Client::over(
        Box::new(stdout),
        Box::new(stdin),
        opts.socket.clone().unwrap_or_default(),
        Some(opts.host.clone()),
        opts.connect.request_timeout,
    );
    let hello_timeout = opts.connect.hello_timeout;
    let hello = tokio::time::timeout(
        hello_timeout,
        client.hello(opts.connect.client_name.clone()),
    );
    let failure = match hello.await {
        Ok(Ok(())) => {
            client.own(child, vec![stderr_task]);
            return Ok(client);
        }
        Ok(Err(e)) => e,
        Err(_) => {
            drop(client);
            let _ = child.start_kill();
            return Err(ClientError::Remote(format!(
                "no answer through ssh {} within {}s; run `{}` by hand: it should print nothing until it is sent a line (a shell startup file that prints on {} would get in the way)",
                opts.host,
                hello_timeout.as_secs(),
                opts.by_hand(&["proxy"]),
                opts.host
            )));
        }
    };
    drop(client);
    Err(explain(opts, failure, &mut child, stderr_task, &tail).await)
}

async fn read_stderr(mut stderr: tokio::process::ChildStderr, tail: StderrTail) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        tail.push(&buf[..n]);
    }
}

/// Turns a failed hello through ssh into an error naming the host and what ssh (or the far
/// side's paddock) said.
async fn explain(
    opts: &RemoteOptions,
    failure: ClientError,
    child: &mut Child,
    stderr_task: JoinHandle<()>,
    tail: &StderrTail,
) -> ClientError {
    let host = &opts.host;
    match failure {
        ClientError::ConnectionLost { .. } => {}
        ClientError::ProtocolMismatch(d) | ClientError::RestartNeeded(d) => {
            let _ = child.start_kill();
            return ClientError::Remote(format!(
                "paddockd on {host} speaks protocol {} (version {}) but this paddock speaks {}; install the same paddock on both machines (`paddock --remote {host} daemon restart` replaces the daemon there once its {} running turns finish)",
                d.daemon_protocol,
                d.daemon_version,
                paddock_proto::PROTOCOL_VERSION,
                d.running_turns
            ));
        }
        other => {
            let _ = child.start_kill();
            return other;
        }
    }
    // The far end closed before answering: ssh failed, or paddock proxy there did.
    let status = tokio::time::timeout(EXIT_GRACE, child.wait())
        .await
        .ok()
        .and_then(Result::ok);
    if status.is_none() {
        let _ = child.start_kill();
    }
    let _ = tokio::time::timeout(EXIT_GRACE, stderr_task).await;
    ClientError::Remote(failure_message(opts, status, &tail.text()))
}

/// The sentence for a connection through ssh that ended before the daemon answered.
fn failure_message(opts: &RemoteOptions, status: Option<ExitStatus>, said: &str) -> String {
    let host = &opts.host;
    let by_hand = opts.by_hand(&["proxy"]);
    let said = said
        .strip_prefix("paddock: ")
        .unwrap_or(said)
        .trim_end_matches('.');
    let what = match (said.is_empty(), status.and_then(|s| s.code())) {
        (false, _) => format!("ssh {host}: {said}"),
        (true, Some(code)) => {
            format!("ssh {host} exited with status {code} before paddockd answered")
        }
        (true, None) => format!("ssh {host} ended before paddockd answered"),
    };
    let hint = match status.and_then(|s| s.code()) {
        Some(127) => format!(
            "is paddock installed on {host}? give its path there with --remote-paddock (or PADDOCK_REMOTE_PADDOCK); "
        ),
        _ => String::new(),
    };
    format!("{what}; {hint}check that `{by_hand}` works by hand")
}

/// Runs `paddock [--socket S] WORDS...` on the host through ssh with this terminal's stdio (the
/// far side's own commands: `daemon start|stop|status|restart`, `doctor`) and returns its exit
/// status.
pub async fn run_remote(opts: &RemoteOptions, words: &[&OsStr]) -> Result<ExitStatus, ClientError> {
    let mut child = opts
        .command(words)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| opts.spawn_error(&e))?;
    child
        .wait()
        .await
        .map_err(|e| ClientError::Remote(format!("could not wait for ssh {}: {e}", opts.host)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(word: &str) -> String {
        sh_quote(OsStr::new(word)).to_string_lossy().into_owned()
    }

    #[test]
    fn plain_words_are_left_alone() {
        for word in [
            "paddock",
            "proxy",
            "--socket",
            "/run/user/1000/paddock/paddockd.sock",
        ] {
            assert_eq!(q(word), word);
        }
        assert_eq!(q("a-b_c.d:e,f@g%h+i=j"), "a-b_c.d:e,f@g%h+i=j");
    }

    #[test]
    fn anything_a_shell_would_read_is_single_quoted() {
        assert_eq!(q(""), "''");
        assert_eq!(q("my paddock"), "'my paddock'");
        assert_eq!(q("$(rm -rf ~)"), "'$(rm -rf ~)'");
        assert_eq!(q("a;b|c&d>e<f`g`"), "'a;b|c&d>e<f`g`'");
        assert_eq!(q("it's"), "'it'\\''s'");
        assert_eq!(q("'"), "''\\'''");
        assert_eq!(q("*"), "'*'");
        assert_eq!(q("a\nb"), "'a\nb'");
        assert_eq!(q("~"), "'~'");
        assert_eq!(q("~user/bin"), "'~user/bin'");
    }

    #[test]
    fn a_leading_home_stays_for_the_far_side_to_expand() {
        assert_eq!(q("~/.cargo/bin/paddock"), "~/.cargo/bin/paddock");
        assert_eq!(q("~/my bin/paddock"), "~/'my bin/paddock'");
        assert_eq!(q("~/"), "~/");
    }

    #[test]
    fn quoted_words_come_back_whole_from_a_real_shell() -> Result<(), Box<dyn std::error::Error>> {
        let words = [
            "plain",
            "two words",
            "it's",
            "$HOME",
            "`id`",
            "a\"b",
            "back\\slash",
            "semi;colon",
            "*",
            "",
            "new\nline",
            "tab\there",
            "!bang",
        ];
        // What ssh does: the quoted words joined with spaces, read by the far side's shell.
        let line: Vec<String> = words.iter().map(|w| q(w)).collect();
        let script = format!(
            "for w in {}; do printf '%s\\0' \"$w\"; done",
            line.join(" ")
        );
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(script)
            .output()?;
        assert!(out.status.success());
        let got: Vec<String> = out
            .stdout
            .split(|b| *b == 0)
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        // printf ends every word with NUL: the split leaves one empty piece after the last.
        assert_eq!(got[..got.len() - 1], words.map(str::to_owned));
        Ok(())
    }

    #[test]
    fn non_utf8_bytes_are_quoted_as_they_are() {
        let word = OsString::from_vec(vec![b'a', 0xff, b' ']);
        assert_eq!(
            sh_quote(&word).into_vec(),
            vec![b'\'', b'a', 0xff, b' ', b'\'']
        );
    }

    #[test]
    fn ssh_gets_an_argument_vector_with_the_remote_words_quoted() -> Result<(), ClientError> {
        let opts = RemoteOptions::new(
            "me@devbox",
            Some("/opt/my tools/paddock".into()),
            Some(PathBuf::from("/tmp/p d/sock")),
        )?;
        let args: Vec<String> = opts
            .ssh_args(&[OsStr::new("proxy")])
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "-T",
                "-o",
                "BatchMode=yes",
                "me@devbox",
                "'/opt/my tools/paddock'",
                "--socket",
                "'/tmp/p d/sock'",
                "proxy"
            ]
        );
        let opts = RemoteOptions::new("devbox", None, None)?;
        let args = opts.ssh_args(&[OsStr::new("proxy")]);
        assert_eq!(
            args[3..],
            [OsString::from("devbox"), "paddock".into(), "proxy".into()]
        );
        Ok(())
    }

    #[test]
    fn hosts_ssh_would_misread_are_refused() {
        for host in ["", "-oProxyCommand=sh", "dev box", "dev\nbox"] {
            let err = RemoteOptions::new(host, None, None).err();
            assert!(
                matches!(&err, Some(ClientError::Remote(m)) if m.contains("ssh destination")),
                "{host:?}: {err:?}"
            );
        }
    }

    #[test]
    fn failures_name_the_host_and_what_to_try() -> Result<(), ClientError> {
        let opts = RemoteOptions::new("devbox", None, None)?;
        let msg = failure_message(&opts, None, "Permission denied (publickey).");
        assert!(
            msg.starts_with("ssh devbox: Permission denied (publickey); check that `"),
            "{msg}"
        );
        assert!(
            msg.ends_with(" devbox paddock proxy` works by hand"),
            "{msg}"
        );
        let msg = failure_message(&opts, None, "paddock: paddockd did not answer");
        assert!(
            msg.starts_with("ssh devbox: paddockd did not answer;"),
            "{msg}"
        );
        Ok(())
    }
}
