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
