//! A private tmux server for the TUI's end-to-end tests: one window named `tui`, read with
//! `capture-pane` and driven with `send-keys`; the server is killed when the value drops.

use std::process::Command;
use std::time::{Duration, Instant};

/// How long a screen may take to show what a test waits for.
const DEADLINE: Duration = Duration::from_secs(30);
/// How often the screen is read again.
const POLL: Duration = Duration::from_millis(50);

/// `cmd` as a shell line for a tmux window: `env`, the variables it removes (`-u`) and sets,
/// then its program and arguments, each in single quotes (test paths hold none).
pub fn shell_line(cmd: &std::process::Command) -> String {
    let quoted = |s: &std::ffi::OsStr| format!("'{}'", s.to_string_lossy());
    let mut line = String::from("env");
    // `env` takes its options before the first variable it sets.
    for (k, _) in cmd.get_envs().filter(|(_, v)| v.is_none()) {
        line.push_str(&format!(" -u {}", k.to_string_lossy()));
    }
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            line.push_str(&format!(" {}={}", k.to_string_lossy(), quoted(v)));
        }
    }
    line.push(' ');
    line.push_str(&quoted(cmd.get_program()));
    for arg in cmd.get_args() {
        line.push(' ');
        line.push_str(&quoted(arg));
    }
    line
}

pub struct Tmux {
    /// The `-L` socket name: one server per test.
    pub server: String,
}

#[allow(clippy::expect_used, clippy::panic)]
impl Tmux {
    pub fn cmd(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.server, "-f", "/dev/null"]);
        c
    }

    /// Starts the `tui` window, 100x30, running `shell`.
    pub fn start(&self, shell: &str) {
        self.start_sized(shell, 100, 30);
    }

    /// Starts the `tui` window, `width`x`height`, running `shell`.
    pub fn start_sized(&self, shell: &str, width: u16, height: u16) {
        let (width, height) = (width.to_string(), height.to_string());
        let started = self
            .cmd()
            .args([
                "new-session",
                "-d",
                "-s",
                "tui",
                "-x",
                &width,
                "-y",
                &height,
                shell,
            ])
            .status()
            .expect("tmux is installed (.ci/run installs it)");
        assert!(started.success(), "tmux new-session failed");
    }

    /// The screen's status line (its last line with text).
    pub fn status_line(screen: &str) -> &str {
        screen
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or_default()
    }

    /// The tree pane's rows: each line's text left of the panes' separator.
    pub fn tree_rows(screen: &str) -> impl Iterator<Item = &str> {
        screen
            .lines()
            .filter_map(|l| l.split_once(['│', '|']).map(|(tree, _)| tree))
    }

    /// The `tui` window's screen as text.
    pub fn capture(&self) -> String {
        let out = self
            .cmd()
            .args(["capture-pane", "-p", "-t", "tui"])
            .output()
            .expect("tmux is installed (.ci/run installs it)");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen holds `what`; the screen then.
    pub fn wait_for(&self, what: &str) -> String {
        self.wait_until(what, |screen| screen.contains(what))
    }

    /// Waits until the screen holds `what` and nothing is loading any more.
    pub fn wait_loaded(&self, what: &str) -> String {
        self.wait_until(what, |screen| {
            screen.contains(what) && !screen.contains("Loading")
        })
    }

    /// Waits until the screen no longer holds `what`; the screen then.
    pub fn wait_until_gone(&self, what: &str) -> String {
        self.wait_until(&format!("{what} to go away"), |screen| {
            !screen.contains(what)
        })
    }

    /// Waits until `done` holds for the screen (`what` names it in the failure); the screen
    /// then.
    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let screen = self.capture();
            if done(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "screen never showed {what:?}:\n{screen}"
            );
            std::thread::sleep(POLL);
        }
    }

    /// Sends Escape and waits until the screen shows it was read: an Escape and the key
    /// after it read together are one Alt+key (as a terminal sends them), so a test that
    /// presses Escape then a key must let the TUI read the Escape first. The screen before
    /// must be the one the Escape changes: wait for it first.
    pub fn escape(&self) -> String {
        let before = self.capture();
        self.keys(&["Escape"]);
        self.wait_until("the screen after Escape", |s| s != before)
    }

    /// Sends keys to the `tui` window (tmux key names: `Enter`, `Escape`, `C-t`...).
    pub fn keys(&self, keys: &[&str]) {
        let status = self
            .cmd()
            .args(["send-keys", "-t", "tui"])
            .args(keys)
            .status()
            .expect("tmux send-keys runs");
        assert!(status.success(), "tmux send-keys {keys:?} failed");
    }
}

#[allow(clippy::expect_used, clippy::panic)]
impl Tmux {
    /// Pastes `text` into the `tui` window as a terminal paste (bracketed, as a terminal sends
    /// a clipboard paste), through a tmux buffer.
    pub fn paste(&self, text: &str) {
        use std::io::Write as _;
        let mut load = self
            .cmd()
            .args(["load-buffer", "-b", "paste", "-"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("tmux load-buffer runs");
        if let Some(stdin) = load.stdin.as_mut() {
            stdin
                .write_all(text.as_bytes())
                .expect("the text goes to tmux");
        }
        assert!(load.wait().expect("tmux load-buffer ends").success());
        let status = self
            .cmd()
            .args(["paste-buffer", "-p", "-d", "-b", "paste", "-t", "tui"])
            .status()
            .expect("tmux paste-buffer runs");
        assert!(status.success(), "tmux paste-buffer failed");
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").output();
    }
}
