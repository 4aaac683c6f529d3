//! `paddock approvals` end to end: the real binaries, a daemon the client starts itself, the
//! fake `claude` asking `can_use_tool` (`"ask": true`), so a tool call waits in the inbox until
//! another `paddock` process answers it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paddock_tests::cli_env::CliEnv;
use paddock_tests::wait::wait_until_blocking;
use std::io::Read;
use std::process::{Child, Stdio};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(30);

/// The test's world (`paddock_tests::cli_env`), with this file's helpers.
struct Env(CliEnv);

impl std::ops::Deref for Env {
    type Target = CliEnv;
    fn deref(&self) -> &CliEnv {
        &self.0
    }
}

impl Env {
    fn new() -> Self {
        Self(CliEnv::new())
    }

    /// `paddock send -p demo SCRIPT` in the background.
    fn send(&self, script: &str) -> Child {
        self.paddock()
            .args(["send", "-p", "demo", script])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// `paddock approvals --json`.
    fn pending(&self) -> Vec<serde_json::Value> {
        let out = self.run(&["approvals", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v.as_array().cloned().unwrap_or_default()
    }

    /// Waits until `n` approvals are pending; them.
    fn wait_pending(&self, n: usize) -> Vec<serde_json::Value> {
        wait_until_blocking(&format!("{n} pending approvals"), DEADLINE, || {
            let list = self.pending();
            (list.len() == n).then_some(list)
        })
        .unwrap()
    }

    fn project_toml(&self) -> String {
        std::fs::read_to_string(self.data().join("projects/demo/project.toml")).unwrap()
    }
}

/// A send's end: its stdout, after it exited successfully.
fn finished(mut send: Child) -> String {
    let status =
        wait_until_blocking("paddock send to end", DEADLINE, || send.try_wait().unwrap()).unwrap();
    let mut out = String::new();
    send.stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut err = String::new();
    send.stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "send failed: {err}\n{out}");
    out
}

fn bash(command: &str) -> String {
    serde_json::json!([
        {"tool": "Bash", "input": {"command": command}, "output": "ok", "ask": true},
        {"text": "done"}
    ])
    .to_string()
}

fn script(command: &str) -> String {
    format!("fake:{}", bash(command))
}

/// The hex part of an approval id, `apr_` left out: what a person types.
fn short(id: &str) -> String {
    id.trim_start_matches("apr_").chars().take(8).collect()
}

#[test]
fn a_waiting_send_is_answered_by_paddock_approvals_allow_from_another_process() {
    let env = Env::new();
    env.run(&["project", "add", "demo"]);
    let send = env.send(&script("mkdir -p made"));
    let list = env.wait_pending(1);
    let a = &list[0];
    assert_eq!(a["projectSlug"], "demo", "{a:#}");
    assert_eq!(a["tool"], "Bash", "{a:#}");
    assert_eq!(a["origin"], "human", "{a:#}");
    assert_eq!(a["preview"], "$ mkdir -p made", "{a:#}");
    assert_eq!(
        a["alwaysRules"],
        serde_json::json!(["Bash(mkdir:*)"]),
        "{a:#}"
    );
    assert!(a["sessionId"].as_str().is_some_and(|s| s.len() == 36));
    let id = a["id"].as_str().unwrap().to_owned();

    // The listing for a person: id, project, chat, tool, preview, origin, age.
    let text = env.run(&["approvals"]);
    assert!(text.contains(&short(&id)), "{text}");
    assert!(text.contains("demo"), "{text}");
    assert!(text.contains("$ mkdir -p made"), "{text}");
    assert!(text.contains("human"), "{text}");
    let session = a["sessionId"].as_str().unwrap();
    assert!(text.contains(&session[..8]), "{text}");

    // A prefix names it; the send waiting in the other process goes on.
    let answered = env.run(&["approvals", "allow", &short(&id)]);
    assert!(answered.contains("allowed"), "{answered}");
    assert!(finished(send).contains("done"));
    assert!(env.pending().is_empty());
    // Allowing once adds no rule.
    assert!(!env.project_toml().contains("allowed_tools"));

    // An id nobody waits on: exit 1, and where to look.
    let out = env.output(&["approvals", "deny", "ffffffff"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no pending approval ffffffff"), "{err}");
    assert!(err.contains("paddock approvals"), "{err}");
}

#[test]
fn always_on_a_mkdir_call_adds_a_command_prefix_rule_that_the_daemon_matches() {
    let env = Env::new();
    env.run(&["project", "add", "demo"]);
    let send = env.send(&script("mkdir -p made"));
    let id = env.wait_pending(1)[0]["id"].as_str().unwrap().to_owned();
    let said = env.run(&["approvals", "always", &short(&id)]);
    assert!(
        said.contains("always: adds Bash(mkdir:*) to project demo"),
        "{said}"
    );
    finished(send);
    let toml = env.project_toml();
    assert!(toml.contains("\"Bash(mkdir:*)\""), "{toml}");
    assert!(!toml.contains("\"Bash\""), "never the whole tool: {toml}");

    // Another mkdir runs unasked.
    let out = finished(env.send(&script("mkdir other")));
    assert!(out.contains("done"), "{out}");
    assert!(env.pending().is_empty());

    // An rm waits; so does an mkdir chained with an rm.
    for command in ["rm -rf made", "mkdir x && rm -rf made"] {
        let send = env.send(&script(command));
        let list = env.wait_pending(1);
        assert_eq!(list[0]["preview"], format!("$ {command}"));
        env.run(&["approvals", "deny", list[0]["id"].as_str().unwrap()]);
        finished(send);
    }

    // project show lists the rule; project set --disallow removes it.
    let shown = env.run(&["project", "show", "demo"]);
    assert!(shown.contains("Bash(mkdir:*)"), "{shown}");
    let json: serde_json::Value =
        serde_json::from_str(&env.run(&["project", "show", "demo", "--json"])).unwrap();
    assert_eq!(
        json["project"]["allowedTools"],
        serde_json::json!(["Bash(mkdir:*)"]),
        "{json:#}"
    );
    env.run(&["project", "set", "demo", "--disallow", "Bash(mkdir:*)"]);
    assert!(
        !env.project_toml().contains("mkdir"),
        "{}",
        env.project_toml()
    );
    let shown = env.run(&["project", "show", "demo"]);
    assert!(!shown.contains("Bash(mkdir:*)"), "{shown}");
    let out = env.output(&["project", "set", "demo", "--disallow", "Bash(mkdir:*)"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Bash(mkdir:*)"), "{err}");

    // --allow adds one by hand; a rule that does not read as one is refused.
    env.run(&["project", "set", "demo", "--allow", "Bash(npm test:*)"]);
    assert!(env.project_toml().contains("\"Bash(npm test:*)\""));
    let out = env.output(&["project", "set", "demo", "--allow", "Bash(npm"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a tool rule"));

    // Without the rule, mkdir asks again.
    let send = env.send(&script("mkdir again"));
    let list = env.wait_pending(1);
    env.run(&["approvals", "allow", list[0]["id"].as_str().unwrap()]);
    finished(send);
}
