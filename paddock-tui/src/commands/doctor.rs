//! `paddock doctor`: what is missing to run chats, and how to fix it, as the daemon sees it:
//! the running daemon's `daemon:info` (its claude, its credentials, its folders), or, when none
//! runs, what a daemon started now would see (`paddockd info`, which loads the configuration
//! as a start would). It diagnoses without changing anything: it does not start the daemon.

use std::path::{Path, PathBuf};
use std::time::Duration;

use paddock_proto::{DaemonInfo, DaemonInfoRequest};
use serde_json::{Value, json};

use super::Context;
use super::output::{Failure, print, print_json};
use crate::cli::DoctorArgs;
use crate::client::{Client, ClientError};

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

/// How to get a supported Claude Code.
const INSTALL: &str = "npm install -g @anthropic-ai/claude-code";

/// The claude binary the daemon starts, as it resolved it.
fn claude_check(info: &DaemonInfo, running: bool) -> Check {
    let c = &info.claude;
    let then = restart_hint(running);
    let fix = Some(format!(
        "install Claude Code ({INSTALL}) or set claude_bin / PADDOCK_CLAUDE_BIN for paddockd{then}"
    ));
    match (&c.path, &c.version, &c.error) {
        (Some(path), Some(version), _) => Check {
            name: "claude",
            ok: true,
            required: true,
            detail: format!("{path} ({version})"),
            fix,
        },
        (_, _, error) => Check {
            name: "claude",
            ok: false,
            required: true,
            detail: error
                .clone()
                .unwrap_or_else(|| format!("{} does not run", c.configured)),
            fix,
        },
    }
}

/// Whether that claude's version is one the daemon drives.
fn supported_check(info: &DaemonInfo, running: bool) -> Check {
    let c = &info.claude;
    let range = format!("{} up to the latest", c.min_version);
    let (ok, required, detail) = match (&c.version, c.supported) {
        (Some(v), Some(true)) => (true, true, format!("claude {v} (supported: {range})")),
        (Some(v), _) => (
            false,
            true,
            format!(
                "claude {v} is older than {} (supported: {range})",
                c.min_version
            ),
        ),
        (None, _) => (
            false,
            false,
            format!("no claude version to check (supported: {range})"),
        ),
    };
    Check {
        name: "supported",
        ok,
        required,
        detail,
        fix: Some(format!("upgrade: {INSTALL}{}", restart_hint(running))),
    }
}

/// Credentials in the daemon's environment (names only), or a login in its Claude home.
/// Free space where the daemon's data and transcripts go: below the floor, a turn's reply may
/// be streamed but not saved.
fn disk_check(disk: &paddock_proto::DiskSpace) -> Check {
    let free = crate::attachments::human_size(disk.free_bytes);
    let ok = disk.free_bytes >= disk.floor_bytes;
    Check {
        name: "disk",
        ok,
        required: true,
        detail: if ok {
            format!("{free} free for {}", disk.path)
        } else {
            format!(
                "only {free} free for {} (below {}): replies may not be saved",
                disk.path,
                crate::attachments::human_size(disk.floor_bytes)
            )
        },
        fix: Some(format!(
            "free some space on that disk (`df -h {}`), or lower disk_floor_mb",
            disk.path
        )),
    }
}

fn login_check(info: &DaemonInfo, running: bool) -> Check {
    let whose = if running {
        "paddockd's environment"
    } else {
        "the environment a daemon started now gets (this shell's)"
    };
    let (ok, detail) = match (info.credentials.first(), &info.login) {
        (Some(_), _) => (
            true,
            format!(
                "{} set in {whose} (the agents get it)",
                info.credentials.join(", ")
            ),
        ),
        (None, Some(login)) => (true, format!("logged in ({login})")),
        (None, None) => (
            false,
            format!(
                "no ANTHROPIC_API_KEY (or other credential) in {whose} and no login in its Claude home"
            ),
        ),
    };
    let export = if running {
        "export ANTHROPIC_API_KEY in a shell and run `paddock daemon restart` from it"
    } else {
        "export ANTHROPIC_API_KEY before any paddock command starts the daemon"
    };
    Check {
        name: "login",
        ok,
        required: true,
        detail,
        fix: Some(format!(
            "{export}, or log in once: CLAUDE_CONFIG_DIR={} claude /login",
            info.claude_home
        )),
    }
}

/// `; then paddock daemon restart` when a running daemon has to pick up the change.
fn restart_hint(running: bool) -> &'static str {
    if running {
        "; then `paddock daemon restart`"
    } else {
        ""
    }
}

/// What `paddockd info` says a daemon started now would see, or why it would not start.
async fn offline_info(ctx: &Context) -> Result<DaemonInfo, Check> {
    let bin = &ctx.start.daemon_bin;
    let run = tokio::process::Command::new(bin)
        .arg("info")
        .arg("--socket")
        .arg(&ctx.socket)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = match tokio::time::timeout(Duration::from_secs(30), run).await {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => {
            return Err(Check {
                name: "paddockd",
                ok: false,
                required: true,
                detail: format!("cannot run {}: {e}", bin.display()),
                fix: Some(
                    "set PADDOCK_DAEMON_BIN to the paddockd binary or put paddockd on PATH".into(),
                ),
            });
        }
        Err(_) => {
            return Err(Check {
                name: "paddockd",
                ok: false,
                required: true,
                detail: format!("`{} info` did not answer within 30 s", bin.display()),
                fix: None,
            });
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let said = stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map(|l| l.strip_prefix("paddockd: ").unwrap_or(l).to_owned());
    if !out.status.success() {
        return Err(Check {
            name: "config",
            ok: false,
            required: true,
            detail: said.unwrap_or_else(|| format!("`{} info` failed ({})", bin.display(), out.status)),
            fix: Some("fix that value (in the environment or the config file); `paddockd --help` lists every key".into()),
        });
    }
    serde_json::from_slice(&out.stdout).map_err(|e| Check {
        name: "paddockd",
        ok: false,
        required: true,
        detail: format!(
            "`{} info` printed something this paddock cannot read ({e}); are both from the same build?",
            bin.display()
        ),
        fix: None,
    })
}

/// The daemon's world: the running one's (`daemon:info`), else what one started now would see.
async fn daemon_info(ctx: &Context, checks: &mut Vec<Check>) -> Option<(DaemonInfo, bool)> {
    let not_running = |why: String| {
        Check {
        name: "daemon",
        ok: false,
        required: false,
        detail: why,
        fix: Some(
            "fine: any paddock command starts it (doctor does not; it looks without changing anything)".into(),
        ),
    }
    };
    match Client::connect(&ctx.socket).await {
        Ok(client) => match client.call(DaemonInfoRequest).await {
            Ok(info) => {
                checks.push(Check {
                    name: "daemon",
                    ok: true,
                    required: false,
                    detail: format!(
                        "paddockd {} (pid {}) on {}",
                        info.daemon_version,
                        info.pid.unwrap_or(client.daemon().pid),
                        info.socket
                    ),
                    fix: None,
                });
                return Some((*info, true));
            }
            Err(e) => {
                let what = e.to_string();
                checks.push(Check {
                    name: "daemon",
                    ok: false,
                    required: false,
                    detail: format!(
                        "paddockd {} (pid {}) cannot say what its agents run with ({what}); below is what a daemon started now would see",
                        client.daemon().daemon_version,
                        client.daemon().pid
                    ),
                    fix: Some("`paddock daemon restart` runs this paddock's paddockd".into()),
                });
            }
        },
        Err(ClientError::NotRunning { .. }) => checks.push(not_running(format!(
            "not running on {}; below is what a daemon started now would see",
            ctx.socket.display()
        ))),
        Err(e) => checks.push(not_running(format!(
            "does not answer on {} ({e}); below is what a daemon started now would see",
            ctx.socket.display()
        ))),
    }
    match offline_info(ctx).await {
        Ok(info) => Some((info, false)),
        Err(check) => {
            checks.push(check);
            None
        }
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
    let info = daemon_info(ctx, &mut checks).await;
    if let Some((info, running)) = &info {
        checks.extend(info_checks(info, *running));
    }
    checks.push(git_check(on_path("git").map(|p| (git_version(&p), p))));
    checks.push(tool_check("tmux", "the tmux status segment"));
    if args.json {
        return print_json_report(&checks, info.as_ref().map(|(i, _)| i));
    }
    let unicode = crate::tui::theme::Theme::detect().unicode;
    print(&report(&checks, unicode))?;
    if failed(&checks) {
        anyhow::bail!("something paddock needs is missing (see above)");
    }
    Ok(())
}

/// The checks of what the daemon runs with: claude, its login, the data folder, the disks,
/// the socket and the log.
fn info_checks(info: &DaemonInfo, running: bool) -> Vec<Check> {
    let mut checks = vec![
        claude_check(info, running),
        supported_check(info, running),
        login_check(info, running),
        data_check(info),
    ];
    for disk in &info.disks {
        checks.push(disk_check(disk));
    }
    checks.push(Check {
        name: "socket",
        ok: true,
        required: false,
        detail: info.socket.clone(),
        fix: None,
    });
    checks.push(log_check(info));
    checks
}

/// Whether the data folder can be written.
fn data_check(info: &DaemonInfo) -> Check {
    let dir = PathBuf::from(&info.data_dir);
    let writable = std::fs::create_dir_all(&dir).is_ok() && tempfile_in(&dir).is_ok();
    Check {
        name: "data",
        ok: writable,
        required: true,
        detail: format!(
            "{}{}",
            dir.display(),
            if writable { "" } else { " is not writable" }
        ),
        fix: Some("set PADDOCK_DATA_DIR to a folder you can write, or fix its permissions".into()),
    }
}

/// Where the log is, and whether it was written yet.
fn log_check(info: &DaemonInfo) -> Check {
    let log_exists = Path::new(&info.log).is_file();
    Check {
        name: "log",
        ok: true,
        required: false,
        detail: if log_exists {
            info.log.clone()
        } else {
            format!("{} (not written yet)", info.log)
        },
        fix: None,
    }
}

/// The oldest git worktree chats work with: a merge tried without touching a checkout
/// (`git merge-tree --write-tree --name-only`, 2.38), `worktree list -z` (2.36), `rev-parse
/// --path-format` (2.31), `worktree add -b` and `worktree remove`.
const GIT_FOR_WORKTREES: (u32, u32) = (2, 38);

/// A git release: major, minor, patch.
type GitVersion = (u32, u32, u32);

/// What `<git> --version` says, as `major.minor.patch` (`None`: it did not say).
fn git_version(git: &Path) -> Option<GitVersion> {
    let out = std::process::Command::new(git)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    parse_git_version(&String::from_utf8_lossy(&out.stdout))
}

/// `git version 2.43.0` (or `2.39.5 (Apple Git-154)`) as numbers.
fn parse_git_version(text: &str) -> Option<GitVersion> {
    let word = text
        .trim()
        .strip_prefix("git version ")?
        .split_whitespace()
        .next()?;
    let mut parts = word.split('.').map(|p| p.parse::<u32>().ok());
    Some((
        parts.next()??,
        parts.next()??,
        parts.next().flatten().unwrap_or(0),
    ))
}

/// git on the PATH (with its version), what needs it, and whether it is new enough for
/// worktree chats.
fn git_check(found: Option<(Option<GitVersion>, PathBuf)>) -> Check {
    let (min_major, min_minor) = GIT_FOR_WORKTREES;
    let fix = Some(format!(
        "install git {min_major}.{min_minor} or newer (e.g. `apt-get install git`) for the git view and worktree chats"
    ));
    let Some((version, path)) = found else {
        return Check {
            name: "git",
            ok: false,
            required: false,
            detail: "not found (the git view and worktree chats need it)".into(),
            fix,
        };
    };
    let (detail, ok) = match version {
        Some((major, minor, patch)) => {
            let new_enough = (major, minor) >= GIT_FOR_WORKTREES;
            (
                format!(
                    "{} {major}.{minor}.{patch}{}",
                    path.display(),
                    if new_enough {
                        String::new()
                    } else {
                        format!(" (worktree chats need {min_major}.{min_minor} or newer)")
                    }
                ),
                new_enough,
            )
        }
        None => (
            format!("{} (its version could not be read)", path.display()),
            false,
        ),
    };
    Check {
        name: "git",
        ok,
        required: false,
        detail,
        fix,
    }
}

/// Where an optional tool is on the PATH, and what needs it.
fn tool_check(tool: &str, why: &str) -> Check {
    let found = on_path(tool);
    Check {
        name: "tmux",
        ok: found.is_some(),
        required: false,
        detail: match &found {
            Some(p) => p.display().to_string(),
            None => format!("not found (only {why} needs it)"),
        },
        fix: Some(format!("install {tool} for {why}")),
    }
}

/// Prints the report and the daemon's info as JSON; exit status 1 if a required check failed.
fn print_json_report(checks: &[Check], info: Option<&DaemonInfo>) -> anyhow::Result<()> {
    let mut report = report_json(checks);
    report["info"] = info
        .and_then(|i| serde_json::to_value(i).ok())
        .unwrap_or(Value::Null);
    print_json(&report)?;
    if failed(checks) {
        return Err(Failure::new(1, "something paddock needs is missing").into());
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
    use paddock_proto::ClaudeInfo;

    fn info(claude: ClaudeInfo) -> DaemonInfo {
        DaemonInfo {
            daemon_version: "0.1.0".into(),
            pid: Some(7),
            socket: "/run/paddockd.sock".into(),
            data_dir: "/d".into(),
            log: "/l/paddockd.log".into(),
            claude_home: "/d/claude-home".into(),
            claude,
            credentials: vec![],
            login: None,
            disks: vec![],
        }
    }

    #[test]
    fn git_is_checked_for_what_worktree_chats_need() {
        assert_eq!(parse_git_version("git version 2.43.0\n"), Some((2, 43, 0)));
        assert_eq!(
            parse_git_version("git version 2.39.5 (Apple Git-154)"),
            Some((2, 39, 5))
        );
        assert_eq!(parse_git_version("git version 2.17"), Some((2, 17, 0)));
        assert_eq!(parse_git_version("nonsense"), None);
        let at = PathBuf::from("/usr/bin/git");
        assert!(git_check(Some((Some((2, 43, 0)), at.clone()))).ok);
        let old = git_check(Some((Some((2, 37, 1)), at.clone())));
        assert!(!old.ok && !old.required);
        assert!(
            old.detail.contains("worktree chats need 2.38"),
            "{}",
            old.detail
        );
        let missing = git_check(None);
        assert!(!missing.ok && missing.detail.contains("worktree chats"));
        assert!(!git_check(Some((None, at))).ok);
    }

    #[test]
    fn a_disk_below_the_floor_fails_and_says_what_is_at_stake() {
        let disk = |free_bytes| paddock_proto::DiskSpace {
            path: "/d".into(),
            free_bytes,
            floor_bytes: 256 << 20,
        };
        let full = disk_check(&disk(0));
        assert!(!full.ok && full.required);
        assert_eq!(
            full.detail,
            "only 0 B free for /d (below 256 MB): replies may not be saved"
        );
        let fine = disk_check(&disk(40 << 30));
        assert!(fine.ok);
        assert_eq!(fine.detail, "40.0 GB free for /d");
    }

    fn no_claude() -> DaemonInfo {
        info(ClaudeInfo {
            configured: "/nonexistent/claude".into(),
            path: None,
            version: None,
            error: Some("/nonexistent/claude does not exist".into()),
            min_version: "2.1.197".into(),
            supported: None,
        })
    }

    fn claude_at(version: &str, supported: bool) -> DaemonInfo {
        info(ClaudeInfo {
            configured: "claude".into(),
            path: Some("/usr/bin/claude".into()),
            version: Some(version.into()),
            error: None,
            min_version: "2.1.197".into(),
            supported: Some(supported),
        })
    }

    #[test]
    fn claude_version_and_login_are_the_daemons() {
        let missing = no_claude();
        let c = claude_check(&missing, true);
        assert!(!c.ok && c.detail.contains("/nonexistent/claude"), "{c:?}");
        assert!(
            c.fix
                .as_deref()
                .is_some_and(|f| f.contains("paddock daemon restart"))
        );
        let s = supported_check(&missing, true);
        assert!(!s.ok && !s.required, "{s:?}");
        let old = claude_at("2.0.5", false);
        let s = supported_check(&old, false);
        assert!(!s.ok && s.required && s.detail.contains("2.1.197"), "{s:?}");
        assert!(s.fix.as_deref().is_some_and(|f| f.contains(INSTALL)));
        assert!(supported_check(&claude_at("2.1.332", true), true).ok);
        let mut with_key = claude_at("2.1.332", true);
        assert!(!login_check(&with_key, true).ok);
        with_key.credentials = vec!["ANTHROPIC_API_KEY".into()];
        let l = login_check(&with_key, true);
        assert!(l.ok && l.detail.contains("ANTHROPIC_API_KEY"), "{l:?}");
    }

    #[test]
    fn the_report_says_what_is_wrong_and_how_to_fix_it() {
        let checks = vec![
            claude_check(&no_claude(), true),
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
            claude_check(&no_claude(), true),
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
