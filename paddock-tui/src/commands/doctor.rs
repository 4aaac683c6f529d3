//! `paddock doctor`: what is missing to run chats, and how to fix it. It diagnoses without
//! changing anything: it does not start the daemon.

use std::path::{Path, PathBuf};
use std::time::Duration;

use paddock_proto::{Reply, Request};
use serde_json::{Value, json};

use super::Context;
use super::output::{Failure, print, print_json};
use crate::cli::DoctorArgs;
use crate::client::Client;

/// One finding: whether it is fine, what was seen, and what to do when it is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    /// Required for chats to run (a failing required check makes the exit status 1).
    pub required: bool,
    pub detail: String,
    pub fix: Option<String>,
}

/// The lines `doctor` prints.
pub fn report(checks: &[Check], unicode: bool) -> String {
    let mut out = String::new();
    for c in checks {
        let mark = match (c.ok, c.required, unicode) {
            (true, _, true) => "✓",
            (true, _, false) => "ok",
            (false, true, true) => "✗",
            (false, true, false) => "XX",
            (false, false, true) => "!",
            (false, false, false) => "!!",
        };
        out.push_str(&format!("{mark} {:<10} {}\n", c.name, c.detail));
        if let Some(fix) = c.fix.as_ref().filter(|_| !c.ok) {
            out.push_str(&format!("  {:<10} {fix}\n", ""));
        }
    }
    out
}

/// The report as `--json` prints it: `{"ok", "checks": [{"name", "ok", "required", "detail",
/// "fix"}]}` (`fix` null for a passing check). A stable shape: fields are only ever added.
pub fn report_json(checks: &[Check]) -> Value {
    let rows: Vec<Value> = checks
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "ok": c.ok,
                "required": c.required,
                "detail": c.detail,
                "fix": c.fix.as_deref().filter(|_| !c.ok),
            })
        })
        .collect();
    json!({"ok": !failed(checks), "checks": rows})
}

/// Whether a required check failed.
fn failed(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.required && !c.ok)
}

/// Finds `name` on PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Runs `bin --version` with a deadline; its first line.
async fn version_of(bin: &Path) -> Result<String, String> {
    let run = tokio::process::Command::new(bin)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    match tokio::time::timeout(Duration::from_secs(15), run).await {
        Err(_) => Err("did not answer --version within 15 s".into()),
        Ok(Err(e)) => Err(e.to_string()),
        Ok(Ok(out)) if out.status.success() => Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_owned()),
        Ok(Ok(out)) => Err(format!("exited with {}", out.status)),
    }
}

fn claude_check(found: Option<PathBuf>, version: Option<Result<String, String>>) -> Check {
    let fix = Some(
        "install Claude Code (npm install -g @anthropic-ai/claude-code) or set claude_bin / PADDOCK_CLAUDE_BIN"
            .to_owned(),
    );
    match (found, version) {
        (Some(bin), Some(Ok(v))) => Check {
            name: "claude",
            ok: true,
            required: true,
            detail: format!("{} ({v})", bin.display()),
            fix,
        },
        (Some(bin), Some(Err(e))) => Check {
            name: "claude",
            ok: false,
            required: true,
            detail: format!("{} does not run: {e}", bin.display()),
            fix,
        },
        _ => Check {
            name: "claude",
            ok: false,
            required: true,
            detail: "no claude binary (PADDOCK_CLAUDE_BIN unset, none on PATH)".into(),
            fix,
        },
    }
}

fn login_check(data_dir: Option<&Path>) -> Check {
    let env_key = [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
    ]
    .into_iter()
    .find(|k| std::env::var_os(k).is_some_and(|v| !v.is_empty()));
    let credentials = data_dir
        .map(|d| d.join("claude-home").join(".credentials.json"))
        .filter(|p| p.is_file());
    let (ok, detail) = match (env_key, &credentials) {
        (Some(k), _) => (true, format!("{k} is set (the agents get it)")),
        (None, Some(p)) => (true, format!("logged in ({})", p.display())),
        (None, None) => (
            false,
            "no API key in the environment and no login in paddockd's Claude home".to_owned(),
        ),
    };
    Check {
        name: "login",
        ok,
        required: true,
        detail,
        fix: Some(format!(
            "export ANTHROPIC_API_KEY before starting paddockd, or log in once: CLAUDE_CONFIG_DIR={} claude /login",
            data_dir.map_or_else(
                || "<data>/claude-home".to_owned(),
                |d| d.join("claude-home").display().to_string()
            )
        )),
    }
}

pub async fn run(ctx: &Context, args: DoctorArgs) -> anyhow::Result<()> {
    // What matters is the daemon's machine: under --remote, ask the paddock there.
    if let Some(remote) = &ctx.remote {
        let words: &[&str] = if args.json {
            &["doctor", "--json"]
        } else {
            &["doctor"]
        };
        return super::on_far_side(remote, words).await;
    }
    let mut checks = Vec::new();
    // The daemon: reachable? It knows its data directory.
    let mut data_dir: Option<PathBuf> = None;
    match Client::connect(&ctx.socket).await {
        Ok(client) => match client.request(Request::DaemonStatus).await {
            Ok(Reply::Status(s)) => {
                data_dir = Some(PathBuf::from(&s.data_dir));
                checks.push(Check {
                    name: "daemon",
                    ok: true,
                    required: false,
                    detail: format!(
                        "paddockd {} (pid {}) on {}",
                        s.daemon_version, s.pid, s.socket
                    ),
                    fix: None,
                });
            }
            other => checks.push(Check {
                name: "daemon",
                ok: false,
                required: false,
                detail: format!("answers, but not as expected: {other:?}"),
                fix: Some("paddock daemon restart".into()),
            }),
        },
        Err(e) => checks.push(Check {
            name: "daemon",
            ok: false,
            required: false,
            detail: format!("not running on {} ({e})", ctx.socket.display()),
            fix: Some(
                "fine: any paddock command starts it; `paddock daemon start --foreground` shows why it would not".into(),
            ),
        }),
    }
    let data_dir = data_dir.or_else(|| {
        std::env::var_os("PADDOCK_DATA_DIR")
            .map(PathBuf::from)
            .or_else(|| directories::BaseDirs::new().map(|d| d.data_dir().join("paddock")))
    });
    let claude = std::env::var_os("PADDOCK_CLAUDE_BIN")
        .map(PathBuf::from)
        .or_else(|| on_path("claude"));
    let version = match &claude {
        Some(bin) => Some(version_of(bin).await),
        None => None,
    };
    checks.push(claude_check(claude, version));
    checks.push(login_check(data_dir.as_deref()));
    if let Some(dir) = &data_dir {
        let writable = std::fs::create_dir_all(dir).is_ok() && tempfile_in(dir).is_ok();
        checks.push(Check {
            name: "data",
            ok: writable,
            required: true,
            detail: format!(
                "{}{}",
                dir.display(),
                if writable { "" } else { " is not writable" }
            ),
            fix: Some(
                "set PADDOCK_DATA_DIR to a folder you can write, or fix its permissions".into(),
            ),
        });
    }
    for (tool, why) in [("git", "the git view"), ("tmux", "the tmux status segment")] {
        let found = on_path(tool);
        checks.push(Check {
            name: if tool == "git" { "git" } else { "tmux" },
            ok: found.is_some(),
            required: false,
            detail: match &found {
                Some(p) => p.display().to_string(),
                None => format!("not found (only {why} needs it)"),
            },
            fix: Some(format!("install {tool} for {why}")),
        });
    }
    if args.json {
        print_json(&report_json(&checks))?;
        if failed(&checks) {
            return Err(Failure::new(1, "something paddock needs is missing").into());
        }
        return Ok(());
    }
    let unicode = crate::tui::theme::Theme::detect().unicode;
    print(&report(&checks, unicode))?;
    if failed(&checks) {
        anyhow::bail!("something paddock needs is missing (see above)");
    }
    Ok(())
}

/// Creates and removes a file in `dir`: can the daemon write there?
fn tempfile_in(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".paddock-doctor-{}", std::process::id()));
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(&probe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_says_what_is_wrong_and_how_to_fix_it() {
        let checks = vec![
            claude_check(None, None),
            Check {
                name: "daemon",
                ok: true,
                required: false,
                detail: "paddockd 0.1.0 (pid 7)".into(),
                fix: Some("never shown".into()),
            },
        ];
        let text = report(&checks, false);
        assert!(text.contains("XX claude"), "{text}");
        assert!(
            text.contains("npm install -g @anthropic-ai/claude-code"),
            "{text}"
        );
        assert!(text.contains("ok daemon"), "{text}");
        assert!(!text.contains("never shown"), "{text}");
    }

    #[test]
    fn the_json_report_has_a_stable_shape() {
        let checks = vec![
            claude_check(None, None),
            Check {
                name: "git",
                ok: true,
                required: false,
                detail: "/usr/bin/git".into(),
                fix: Some("never shown".into()),
            },
        ];
        let v = report_json(&checks);
        assert_eq!(v["ok"], json!(false), "claude is required: {v}");
        assert_eq!(v["checks"][0]["name"], "claude");
        assert_eq!(v["checks"][0]["ok"], json!(false));
        assert_eq!(v["checks"][0]["required"], json!(true));
        assert!(
            v["checks"][0]["fix"]
                .as_str()
                .is_some_and(|f| f.contains("npm install")),
            "{v}"
        );
        assert_eq!(
            v["checks"][1],
            json!({"name": "git", "ok": true, "required": false, "detail": "/usr/bin/git", "fix": null})
        );
        let fine = report_json(&checks[1..]);
        assert_eq!(fine["ok"], json!(true));
    }
}
