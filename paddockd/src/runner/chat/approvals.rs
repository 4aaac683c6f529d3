//! Tool calls claude asks permission for: an allowed tool is answered at once; any other
//! waits for a person in the approvals inbox while a turn runs (denied at once between
//! turns), and their answer goes back to claude.

use std::ops::ControlFlow;

use paddock_proto::{ChatEvent, Notice, NoticeKind, Origin};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::ChatTask;
use super::read::{Reading, Step};
use crate::claude_format::stdout::{Control, ControlRequest};
use crate::permissions;

/// What to do with a control request from the CLI.
enum Permission {
    /// Answer it now (an allowed tool, or a request paddockd does not handle).
    Answer(Value),
    /// Ask a person (the approvals inbox); the turn waits.
    Ask {
        request_id: String,
        tool: String,
        input: Value,
    },
}

impl ChatTask {
    /// A permission request while no turn runs (a background subagent's tool call): an allowed
    /// tool is allowed; any other is denied at once, since the approvals inbox asks for a
    /// running turn and the subagent would otherwise wait until its process is stopped.
    pub(super) async fn idle_permission(&mut self, v: &ControlRequest) {
        let Some(project) = self.last.as_ref().map(|l| l.project.clone()) else {
            return;
        };
        let allowed = self.allowed_tools(&project);
        let attachments_dir = crate::attachments::dir(&self.ctx.cfg.data_dir);
        let private = self.ctx.cfg.private_state();
        let answer = match permission_request(
            v,
            &allowed,
            &project.agent_dir,
            Some(&attachments_dir),
            &private,
        ) {
            Some(Permission::Answer(answer)) => answer,
            Some(Permission::Ask {
                request_id,
                tool,
                input,
            }) => {
                tracing::warn!(session = %self.session_id, tool, "denied a background task's tool call: no turn runs to ask in");
                let message = format!(
                    "{tool} needs approval, and paddockd asks only while a turn runs; a background task may use only the allowed tools (allowed_tools in the config or project.toml)"
                );
                permissions::answer(&request_id, &input, Some(&message))
            }
            None => return,
        };
        if let Some(live) = self.live.as_mut()
            && let Err(e) = live.proc.send(&answer)
        {
            tracing::warn!(session = %self.session_id, "cannot answer a permission request: {e}");
        }
    }

    /// A permission request during a turn: answered now, or asked in the inbox.
    pub(super) async fn on_permission_request(
        &mut self,
        r: &mut Reading,
        project: &crate::projects::Project,
        job_id: &str,
        request: &ControlRequest,
    ) -> Step {
        let decision = permission_request(
            request,
            &r.allowed,
            &project.agent_dir,
            Some(&r.attachments_dir),
            &r.private,
        );
        match decision {
            Some(Permission::Answer(answer)) => {
                if let Some(live) = self.live.as_mut()
                    && let Err(e) = live.proc.send(&answer)
                {
                    return ControlFlow::Break(Err(self.lost_process(e.to_string()).await));
                }
            }
            // Not allowed by a rule: a person decides, in the inbox.
            Some(Permission::Ask {
                request_id,
                tool,
                input,
            }) => {
                r.waiting_approvals += 1;
                let always = permissions::always(&tool, &input, &r.allowed, &project.agent_dir);
                let asked = self
                    .ask_person(project, job_id, request_id.clone(), (tool, input), always)
                    .await;
                r.asked.insert(request_id, asked);
            }
            None => {}
        }
        ControlFlow::Continue(())
    }

    /// Puts a tool call in the approvals inbox and tells the chat's clients and the attention
    /// followers; an unattended turn's call is denied after its wait.
    async fn ask_person(
        &self,
        project: &crate::projects::Project,
        job_id: &str,
        request_id: String,
        (tool, input): (String, Value),
        always: permissions::Always,
    ) -> String {
        let (state, hub) = (&self.ctx.state, &self.ctx.hub);
        let prov = state.stores.run_provenance.get(&self.session_id);
        let approval = paddock_proto::Approval {
            id: crate::approvals::Approvals::new_id(),
            project_slug: project.slug.clone(),
            session_id: self.session_id.clone(),
            job_id: job_id.to_owned(),
            title: self.title(),
            origin: prov.as_ref().map_or(Origin::Human, |p| p.origin),
            depth: prov.as_ref().map_or(0, |p| p.depth),
            preview: crate::approvals::preview(&tool, &input, &project.agent_dir),
            always_rules: always.rules,
            always_why_not: always.why_not,
            kind: paddock_proto::ApprovalKind::Tool,
            tool: tool.clone(),
            input,
            asked_at: chrono::Utc::now().to_rfc3339(),
        };
        let approval_id = approval.id.clone();
        let attention = crate::attention::approval(&approval);
        let asked = [approval.clone()];
        let pending = state
            .approvals
            .ask(approval, request_id, self.answers_tx.clone());
        let short_id: String = approval_id
            .trim_start_matches("apr_")
            .chars()
            .take(8)
            .collect();
        self.deny_unanswered(approval_id);
        let waiting = format!(
            "{tool} is waiting for your approval: `paddock approvals allow {short_id}` (or deny, always; `paddock approvals` lists them), or I in the TUI"
        );
        self.emit(ChatEvent::Notice(Notice {
            kind: NoticeKind::Info,
            message: waiting.clone(),
        }))
        .await;
        hub.approvals_changed_for(pending, &asked).await;
        hub.attention(attention).await;
        waiting
    }

    /// Nobody may be watching an unattended run: its approval is denied after the configured
    /// wait (none: it waits for a person).
    fn deny_unanswered(&self, approval_id: String) {
        let Some(wait) = self.approval_wait else {
            return;
        };
        let (approvals, hub) = (self.ctx.state.approvals.clone(), self.ctx.hub.clone());
        let shutdown = self.ctx.shutdown.clone();
        self.ctx.tracker.spawn(async move {
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = shutdown.cancelled() => return,
            }
            let done = approvals.answer(
                &[approval_id],
                paddock_proto::ApprovalDecision::Deny,
                Some(&format!(
                    "no one answered within {}s, so paddockd denied it",
                    wait.as_secs()
                )),
            );
            if !done.is_empty() {
                hub.approvals_changed_for(approvals.count(), &done).await;
            }
        });
    }

    /// A person's answer from the inbox goes to claude; a denial is said in the chat.
    pub(super) async fn on_answer(
        &mut self,
        r: &mut Reading,
        answer: crate::approvals::Answer,
    ) -> Step {
        r.waiting_approvals = r.waiting_approvals.saturating_sub(1);
        r.last_output = Instant::now();
        let deny = match answer.decision {
            paddock_proto::ApprovalDecision::Deny => {
                Some(answer.message.clone().unwrap_or_else(|| {
                    format!(
                        "the user denied {} in paddock's approvals inbox",
                        answer.tool
                    )
                }))
            }
            _ => None,
        };
        // The waiting notice now says the answer.
        let said = match answer.decision {
            paddock_proto::ApprovalDecision::Allow => format!("{}: allowed", answer.tool),
            paddock_proto::ApprovalDecision::Always => {
                format!("{}: allowed, and from now on without asking", answer.tool)
            }
            paddock_proto::ApprovalDecision::Deny => format!(
                "{}: denied ({})",
                answer.tool,
                deny.as_deref().unwrap_or_default()
            ),
        };
        self.emit(ChatEvent::Answered(paddock_proto::Answered {
            tool: answer.tool.clone(),
            decision: answer.decision,
            asked: r.asked.remove(&answer.request_id).unwrap_or_default(),
            message: said,
        }))
        .await;
        let reply = permissions::answer(&answer.request_id, &answer.input, deny.as_deref());
        if let Some(live) = self.live.as_mut()
            && let Err(e) = live.proc.send(&reply)
        {
            return ControlFlow::Break(Err(self.lost_process(e.to_string()).await));
        }
        ControlFlow::Continue(())
    }
}

/// Reads a control request: an allowed tool is answered at once; any other tool is asked.
/// `None` for a request with no id (nothing to answer).
/// `attachments`: the attachments folder, whose files are read without asking; a file of
/// paddockd's own state (`private`) is denied at once.
fn permission_request(
    req: &ControlRequest,
    allowed: &[String],
    project_dir: &std::path::Path,
    attachments: Option<&std::path::Path>,
    private: &crate::confine::Private,
) -> Option<Permission> {
    let request_id = req.request_id.as_deref()?;
    let (tool, input) = match &req.request {
        Control::CanUseTool { tool_name, input } => (tool_name.as_str(), input),
        // Nothing else is expected from the CLI; say so rather than leave it waiting.
        Control::Other(subtype) => {
            return Some(Permission::Answer(json!({"type": "control_response",
                "response": {"subtype": "error", "request_id": request_id,
                    "error": format!("paddockd does not handle {subtype}")}})));
        }
    };
    let attachment =
        attachments.is_some_and(|dir| crate::attachments::reads_an_attachment(tool, input, dir));
    if let Some(why) = (!attachment)
        .then(|| permissions::never(tool, input, project_dir, private))
        .flatten()
    {
        return Some(Permission::Answer(permissions::answer(
            request_id,
            input,
            Some(&why),
        )));
    }
    if attachment || permissions::allowed(tool, input, allowed, project_dir) {
        Some(Permission::Answer(permissions::answer(
            request_id, input, None,
        )))
    } else {
        Some(Permission::Ask {
            request_id: request_id.to_owned(),
            tool: tool.to_owned(),
            input: input.clone(),
        })
    }
}
