//! A call past its tree's cap (`tree_caps.rs`), paused in the approvals inbox until a person
//! answers: the `cap` approval, the notice in the chat, the attention item, and what the
//! answer does.

use std::time::Duration;

use paddock_proto::{
    Approval, ApprovalDecision, ApprovalKind, ChatEvent, Notice, NoticeKind, Origin,
};
use serde_json::Value;
use tokio::time::Instant;

use crate::approvals::{Approvals, Decided};
use crate::hub::Hub;
use crate::tree_caps::{Counted, Limits, TreeCaps};

/// What a pause needs of the daemon.
#[derive(Clone, Copy)]
pub struct Pauser<'a> {
    pub caps: &'a TreeCaps,
    pub approvals: &'a Approvals,
    pub hub: &'a Hub,
    /// An unattended call's wait for a person (`approval_timeout_secs`): past it, denied.
    pub wait: Option<Duration>,
}

/// A call a cap counts, and the chat it is made in, as the inbox shows it.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    /// The tree's root chat.
    pub tree: &'a str,
    pub counted: &'a [Counted],
    pub limits: Limits,
    pub project_slug: String,
    pub session_id: String,
    /// The turn that made the call: its end drops the approval.
    pub job_id: String,
    pub title: String,
    pub origin: Origin,
    pub depth: u32,
    /// The tool (`mcp__paddock_manage__create_chat`).
    pub tool: String,
    pub input: Value,
}

/// `Ok` when the call may run: within the caps (and then counted), or a person allowed it
/// (and then the tree's windows start again). Else what the agent is told: the cap and
/// who stopped it.
pub async fn admit(p: Pauser<'_>, call: Call<'_>) -> Result<(), String> {
    let Err(over) = p
        .caps
        .admit(call.tree, call.counted, call.limits, Instant::now())
    else {
        return Ok(());
    };
    let reason = over.reason();
    tracing::warn!(tree = %call.tree, session = %call.session_id, tool = %call.tool, "{reason}; waiting for a person");
    let approval = Approval {
        id: Approvals::new_id(),
        project_slug: call.project_slug.clone(),
        session_id: call.session_id.clone(),
        job_id: call.job_id.clone(),
        title: call.title.clone(),
        origin: call.origin,
        depth: call.depth,
        tool: call.tool.clone(),
        input: call.input.clone(),
        preview: Some(reason.clone()),
        asked_at: chrono::Utc::now().to_rfc3339(),
        always_rules: Vec::new(),
        always_why_not: Some("a cap is lifted for this call, not by a rule".into()),
        kind: ApprovalKind::Cap,
    };
    let id = approval.id.clone();
    let short: String = id.trim_start_matches("apr_").chars().take(8).collect();
    let (mut answer, pending) = p.approvals.ask_call(approval.clone());
    p.hub
        .emit(
            &call.session_id,
            ChatEvent::Notice(Notice {
                kind: NoticeKind::Info,
                message: format!(
                    "{} is {reason}: `paddock approvals allow {short}` lifts the cap and runs it (or deny; `paddock approvals` lists them), or I in the TUI",
                    call.tool
                ),
            }),
        )
        .await;
    p.hub
        .approvals_changed_for(pending, std::slice::from_ref(&approval))
        .await;
    p.hub.attention(crate::attention::approval(&approval)).await;
    let decided = match p.wait {
        None => (&mut answer).await,
        Some(wait) => tokio::select! {
            got = &mut answer => got,
            () = tokio::time::sleep(wait) => {
                let note = format!("no one answered within {}s, so paddockd denied it", wait.as_secs());
                let done = p.approvals.answer(std::slice::from_ref(&id), ApprovalDecision::Deny, Some(&note));
                p.hub.approvals_changed_for(p.approvals.count(), &done).await;
                answer.await
            }
        },
    };
    match decided {
        Ok(Decided {
            decision: ApprovalDecision::Allow | ApprovalDecision::Always,
            ..
        }) => {
            tracing::info!(tree = %call.tree, "a person lifted the tree's cap");
            p.caps.lift(call.tree, call.counted, Instant::now());
            Ok(())
        }
        Ok(Decided { message, .. }) => Err(format!(
            "{reason}, and a person denied this call{}. Nothing was done; stop starting chats and messages, and tell the user.",
            message.map(|m| format!(": {m}")).unwrap_or_default()
        )),
        Err(_) => Err(format!(
            "{reason}; the turn that made the call ended before a person answered. Nothing was done."
        )),
    }
}
