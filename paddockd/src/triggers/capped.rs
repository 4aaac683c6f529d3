//! A hook a chat's turn set off (the turn ended, or its agent archived a chat) is a
//! machine-started turn of that turn's tree: it counts against the tree's cap on turns
//! (`tree_caps.rs`) and runs at the turn's depth, in its tree (`lineage.rs`). A loop through
//! a hook (a hook's chat messages a person's chat, whose turn's end fires the hook again,
//! which starts a new chat each time) therefore stops at the cap, as one through
//! `send_message` does.
//!
//! Within the cap the hook fires at once, in the dispatcher's order. Past it the fire waits
//! in the approvals inbox as a `cap` approval on the chat whose turn set it off, in a task
//! of its own (so the dispatcher and every other hook go on): a person's allow lifts the cap
//! and fires it; a deny, or no answer within `approval_timeout_secs`, records the fire as
//! skipped with the reason. A hook nothing of a chat set off (a file change) is not counted.

use std::sync::Arc;

use paddock_proto::Origin;
use serde_json::json;
use tokio::time::Instant;

use super::{Ctx, Loaded};
use crate::lineage::Lineage;
use crate::paused_calls::{Call, Pauser};
use crate::tree_caps::{Counted, Limits};

/// What the run log says of a fire its tree's cap held and no one lifted.
pub const NOT_LIFTED: &str = "its tree hit its cap on machine-started turns, and no one lifted it (denied, or no answer in time)";

/// The turn that set a hook off.
#[derive(Debug, Clone)]
pub struct SetOff {
    pub session_id: String,
    pub lineage: Lineage,
}

/// Fires `hook` with `message`: counted against the tree of the turn that set it off, if
/// one did (see the module).
pub async fn fire_hook(d: &Arc<Ctx>, hook: &Loaded, message: String, by: Option<SetOff>) {
    let Some(by) = by else {
        return fire_now(d, hook, message, None).await;
    };
    let limits = Limits::of(&d.cfg, &hook.project);
    // A fire that will be skipped (its previous run is still going) starts no turn: it is
    // recorded as skipped, and not counted.
    let skipped = super::fire::going(d, &hook.project.slug, &hook.name, &hook.spec)
        .await
        .is_some();
    if skipped
        || d.state
            .caps
            .admit(&by.lineage.tree, &[Counted::Turns], limits, Instant::now())
            .is_ok()
    {
        return fire_now(d, hook, message, Some(&by.lineage)).await;
    }
    let (d, hook) = (Arc::clone(d), hook.clone());
    let tasks = d.tasks.clone();
    tasks.spawn(async move { paused(&d, &hook, message, &by, limits).await });
}

/// Fires `hook` now, its turn at `cause`.
async fn fire_now(d: &Ctx, hook: &Loaded, message: String, cause: Option<&Lineage>) {
    super::fire::fire_logged(
        d,
        &hook.project,
        &hook.name,
        &hook.spec,
        Some(message),
        cause,
    )
    .await;
}

/// Waits for a person on a fire past its tree's cap, then fires it or records it skipped.
async fn paused(d: &Ctx, hook: &Loaded, message: String, by: &SetOff, limits: Limits) {
    let pauser = Pauser {
        caps: &d.state.caps,
        approvals: &d.state.approvals,
        hub: &d.hub,
        wait: d.cfg.approval_timeout,
    };
    let call = Call {
        tree: &by.lineage.tree,
        counted: &[Counted::Turns],
        limits,
        project_slug: hook.project.slug.clone(),
        session_id: by.session_id.clone(),
        // The turn that set it off has ended: nothing drops this approval but an answer.
        job_id: String::new(),
        title: d.state.title_now(&by.session_id).unwrap_or_default(),
        origin: Origin::Hook,
        depth: by.lineage.depth,
        tool: format!("hook {}", hook.name),
        input: json!({
            "hook": hook.name,
            "project": hook.project.slug,
            "message": message,
        }),
    };
    let shutdown = d.shutdown.clone();
    let admitted = tokio::select! {
        () = shutdown.cancelled() => return,
        admitted = crate::paused_calls::admit(pauser, call) => admitted,
    };
    match admitted {
        Ok(()) => fire_now(d, hook, message, Some(&by.lineage)).await,
        Err(_) => {
            tracing::info!(project = %hook.project.slug, trigger = %hook.name, "hook not fired: {NOT_LIFTED}");
            super::fire::record_skipped(
                d,
                &hook.project.slug,
                &hook.name,
                hook.spec.kind,
                by.session_id.clone(),
                message,
                Some(NOT_LIFTED.to_owned()),
            )
            .await;
        }
    }
}
