//! Every turn of a chat that works in its own git worktree (made with the chat,
//! `git/worktree.rs`) placed there: the turn runs with the project seen from the worktree
//! ([`Project::in_worktree`]), so claude's working directory, the confinement of its tools,
//! its CLAUDE.md and its approvals are the worktree's, for a follow-up, a resume after the
//! process was reaped or the daemon restarted, `continue`, a queued message and a trigger
//! alike. Its transcripts stay the project's: claude keys them by working directory, so the
//! worktree's transcripts folder is a link to the project's
//! ([`crate::chat_links::link_worktree`]), made (again, if need be) before each turn.

use crate::config::Config;
use crate::projects::Project;
use crate::state::ChatState;

use super::{Refused, TurnRequest};

/// `req` placed where its chat works: in its worktree when it has one, else as it was.
pub(super) fn place(
    cfg: &Config,
    state: &ChatState,
    mut req: TurnRequest,
) -> Result<TurnRequest, Refused> {
    let Some(sid) = &req.session_id else {
        return Ok(req);
    };
    let Some(record) = state.stores.worktrees.get(sid) else {
        return Ok(req);
    };
    let dir = crate::stores::workdir(sid, &record).map_err(Refused::Worktree)?;
    link(cfg, state, &req.project, &dir)?;
    req.project = req.project.in_worktree(&dir);
    Ok(req)
}

/// Links the worktree's transcripts folder to the project's.
fn link(
    cfg: &Config,
    state: &ChatState,
    project: &Project,
    dir: &std::path::Path,
) -> Result<(), Refused> {
    crate::chat_links::link_worktree(&cfg.claude_home, &state.folder_of(project), dir).map_err(
        |e| {
            Refused::Worktree(format!(
                "cannot link the worktree's transcripts to the project's: {e}"
            ))
        },
    )
}

/// How long a project's `worktree_setup` may run before it is stopped (as a failure).
pub const SETUP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);
/// The most of the setup's output a notice shows: its end.
const SHOWN_OUTPUT: usize = 4096;

/// Runs the project's `worktree_setup` in chat `sid`'s worktree when it has yet to run there
/// (`project` is the project seen from the worktree): `Ok(None)` when there is nothing to do,
/// `Ok(Some(words))` for the notice that says it ran, `Err(words)` when it failed, with the end
/// of its output (the turn must not start; the next one runs it again).
pub(super) async fn setup(
    state: &ChatState,
    sid: &str,
    project: &Project,
) -> Result<Option<String>, String> {
    if !state
        .stores
        .worktrees
        .get(sid)
        .is_some_and(|r| r.setup_pending)
    {
        return Ok(None);
    }
    let Some(command) = project.file.worktree_setup.clone() else {
        return Ok(None);
    };
    let shown = command.shown();
    let argv = command
        .argv()
        .map_err(|e| format!("worktree_setup in project.toml: {e}"))?;
    let dir = project.agent_dir.clone();
    let started = std::time::Instant::now();
    let ran = tokio::task::spawn_blocking(move || {
        let mut cmd = std::process::Command::new(&argv[0]);
        cmd.args(&argv[1..]).current_dir(&dir);
        crate::child::output_within(&mut cmd, None, SETUP_TIMEOUT)
    })
    .await
    .map_err(|e| format!("worktree setup `{shown}` could not run: {e}"))?;
    let took = started.elapsed().as_secs_f32();
    let out = match ran {
        Ok(out) => out,
        Err(e) => {
            return Err(format!(
                "worktree setup `{shown}` failed: {e}; the turn did not start (fix worktree_setup in project.toml, then send again)"
            ));
        }
    };
    let tail = output_tail(&out.stdout, &out.stderr);
    if !out.status.success() {
        return Err(format!(
            "worktree setup `{shown}` failed ({}) after {took:.1} s, so claude was not asked; fix worktree_setup in project.toml (or what it runs), then continue the chat (paddock continue, C in the TUI){}{tail}",
            out.status,
            if tail.is_empty() { "" } else { ":\n" }
        ));
    }
    if let Err(e) = state.stores.worktrees.set_up(sid).await {
        tracing::warn!(session = %sid, "cannot record that the worktree setup ran: {e}");
    }
    Ok(Some(format!(
        "worktree setup `{shown}` ran in {took:.1} s{}{tail}",
        if tail.is_empty() { "" } else { ":\n" }
    )))
}

/// The end of a command's output (stdout, then stderr), at most [`SHOWN_OUTPUT`] bytes.
fn output_tail(stdout: &[u8], stderr: &[u8]) -> String {
    let mut all = String::from_utf8_lossy(stdout).into_owned();
    all.push_str(&String::from_utf8_lossy(stderr));
    let all = all.trim_end();
    if all.len() <= SHOWN_OUTPUT {
        return all.to_owned();
    }
    let mut start = all.len() - SHOWN_OUTPUT;
    while !all.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &all[start..])
}
