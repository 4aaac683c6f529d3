//! Background Agent calls (`run_in_background: true`, docs/claude-cli.md §12): the call and its
//! async result inside the turn, then, once the subagent "finished", the task lines and the
//! turn the CLI runs by itself to report it, with no user message. Line shapes follow the real
//! CLI's capture `l_subagent_bg`.

use std::time::Duration;

use serde_json::{Value, json};

use super::tool::ToolResult;
use super::{BlockKind, Turn};
use crate::fake_claude::emit::{emit, emit_stderr, new_uuid, now_timestamp};
use crate::fake_claude::script::{BackgroundStep, Step};
use crate::text::{short_id, split_chunks};

/// `type` of the internal message that plays a finished background task's turn.
pub(super) const DONE: &str = "fake_background_done";

impl Turn<'_> {
    /// The Agent call: `tool_use`, `background_tasks_changed`, `task_started`, the async
    /// `tool_result`; the task's notification is scheduled `delay_ms` from now.
    pub(super) fn background(&mut self, bg: BackgroundStep) {
        let tool_use_id = bg
            .id
            .clone()
            .unwrap_or_else(|| format!("toolu_fake_{}", short_id()));
        let mut task_id = format!("a{}", short_id());
        task_id.truncate(17);
        let run_id = format!("run-{}", short_id());
        let input = json!({"description": bg.description, "prompt": bg.prompt,
            "subagent_type": "general-purpose", "run_in_background": true});
        self.ensure_message();
        self.start_block(
            BlockKind::ToolUse,
            json!({"type": "tool_use", "id": tool_use_id, "name": "Agent", "input": {}}),
        );
        for piece in split_chunks(&input.to_string(), 3) {
            self.delta(
                json!({"type": "input_json_delta", "partial_json": piece}),
                "",
            );
        }
        let assistant_uuid = self.complete_block(
            json!({"type": "tool_use", "id": tool_use_id, "name": "Agent", "input": input}),
        );
        self.close_message("tool_use");

        let task = json!({"task_id": task_id, "run_id": run_id, "task_type": "local_agent",
            "subagent_type": "general-purpose", "description": bg.description});
        self.session.background.push(task);
        self.tasks_changed();
        emit(
            &json!({"type": "system", "subtype": "task_started", "task_id": task_id,
            "run_id": run_id, "tool_use_id": tool_use_id, "description": bg.description,
            "subagent_type": "general-purpose", "is_backgrounded": true, "spawn_depth": 1,
            "task_type": "local_agent", "prompt": bg.prompt, "uuid": new_uuid(),
            "session_id": self.sid()}),
        );
        let output_file = self.output_file(&task_id);
        let text = format!(
            "Async agent launched successfully.\nagentId: {task_id} (internal ID - do not mention to user.)\nThe agent is working in the background. You will be notified automatically when it completes.\noutput_file: {output_file}"
        );
        self.tool_result(ToolResult {
            tool_use_id: &tool_use_id,
            assistant_uuid: &assistant_uuid,
            content: json!([{"type": "text", "text": text}]),
            is_error: false,
            tool_use_result: json!({"isAsync": true, "status": "async_launched",
                "agentId": task_id, "description": bg.description, "resolvedModel": self.model,
                "prompt": bg.prompt, "outputFile": output_file, "canReadOutputFile": true,
                "canContinueAgent": true}),
            meta: json!({"id": tool_use_id,
                "permission_decision": {"decision": "accept", "source": "config"}}),
        });

        let done = json!({"type": DONE, "task_id": task_id, "run_id": run_id,
            "tool_use_id": tool_use_id, "description": bg.description, "reply": bg.reply,
            "reply_delay_ms": bg.reply_delay_ms, "output_file": output_file, "ask": bg.ask});
        self.session.background_owed += 1;
        let tx = self.session.background_tx.clone();
        let delay = Duration::from_millis(bg.delay_ms);
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let _ = tx.send(done);
        });
    }

    /// A background task finished: its task lines, then the turn that reports it.
    pub(super) async fn background_done(&mut self, done: Value) {
        self.session.background_owed = self.session.background_owed.saturating_sub(1);
        let task_id = done["task_id"].as_str().unwrap_or_default().to_owned();
        let description = done["description"].as_str().unwrap_or_default().to_owned();
        let mut reply = done["reply"].as_str().unwrap_or_default().to_owned();
        if let Some(tool) = done["ask"].as_str() {
            let verdict = self.subagent_asks(tool, &task_id).await;
            reply = format!("{reply} [{tool}: {verdict}]");
        }
        let end_time = chrono::Utc::now().timestamp_millis();
        emit(
            &json!({"type": "system", "subtype": "task_updated", "task_id": task_id,
            "run_id": done["run_id"], "patch": {"status": "completed", "end_time": end_time},
            "uuid": new_uuid(), "session_id": self.sid()}),
        );
        emit(
            &json!({"type": "system", "subtype": "task_notification", "task_id": task_id,
            "run_id": done["run_id"], "tool_use_id": done["tool_use_id"], "status": "completed",
            "output_file": done["output_file"], "summary": reply, "summary_is_report": true,
            "usage": {"total_tokens": 100, "tool_uses": 0, "duration_ms": 1},
            "uuid": new_uuid(), "session_id": self.sid()}),
        );
        self.session
            .background
            .retain(|t| t["task_id"].as_str() != Some(task_id.as_str()));
        self.tasks_changed();

        // The turn: the notification is its prompt (in the transcript only, as the real CLI
        // does), the reply streams, and a second `result` ends it.
        let notification = format!(
            "<task-notification>\n<task-id>{task_id}</task-id>\n<tool-use-id>{}</tool-use-id>\n<status>completed</status>\n<summary>Agent \"{description}\" finished</summary>\n<result>{reply}</result>\n</task-notification>",
            done["tool_use_id"].as_str().unwrap_or_default()
        );
        self.prompt_tokens = 100 + notification.chars().count() as u64;
        if let Err(err) = self.session.transcript.open() {
            emit_stderr(&format!(
                "fake-claude: cannot create transcript {}: {err}",
                self.session.transcript.path().display()
            ));
        }
        self.session
            .transcript
            .plain(json!({"type": "queue-operation",
            "operation": "enqueue", "timestamp": now_timestamp(), "content": notification}));
        self.session
            .transcript
            .plain(json!({"type": "queue-operation",
            "operation": "dequeue", "timestamp": now_timestamp()}));
        self.emit_init();
        if self.partial() {
            self.emit_status();
            self.status_sent = true;
        }
        let uuid = new_uuid();
        self.session.transcript.chained(
            "user",
            json!({"promptId": self.prompt_id, "message": {"role": "user", "content": notification},
                "origin": {"kind": "task-notification", "producer": "session-task",
                    "runId": done["run_id"]},
                "promptSource": "system", "turnOrigin": "task_notification"}),
            Some(&uuid),
        );
        let steps = vec![Step::Text {
            text: reply,
            chunks: 3,
            delay_ms: done["reply_delay_ms"].as_u64().unwrap_or(0),
        }];
        self.run_steps(steps, &notification).await;
    }

    /// The subagent's `can_use_tool` for `tool`, while no turn runs; the host's behaviour.
    async fn subagent_asks(&self, tool: &str, task_id: &str) -> String {
        let request_id = new_uuid();
        let Some(answer) = self.shared.wait_permission(&request_id) else {
            return "stream closed".to_owned();
        };
        emit(
            &json!({"type": "control_request", "request_id": request_id, "request": {
            "subtype": "can_use_tool", "tool_name": tool, "display_name": tool, "input": {},
            "description": format!("Use {tool}"), "tool_use_id": format!("toolu_sub_{}", short_id()),
            "agent_id": task_id}}),
        );
        match answer.await {
            Ok(response) if response["subtype"] == "error" => "error".to_owned(),
            Ok(response) => response["response"]["behavior"]
                .as_str()
                .unwrap_or("?")
                .to_owned(),
            Err(_) => "stream closed".to_owned(),
        }
    }

    /// `system/background_tasks_changed` with the tasks still running.
    fn tasks_changed(&self) {
        emit(
            &json!({"type": "system", "subtype": "background_tasks_changed",
            "tasks": self.session.background, "uuid": new_uuid(), "session_id": self.sid()}),
        );
    }

    /// Where the real CLI puts a task's output (`$CLAUDE_CODE_TMPDIR/claude-<uid>/...`).
    fn output_file(&self, task_id: &str) -> String {
        let tmp = std::env::var("CLAUDE_CODE_TMPDIR").unwrap_or_else(|_| "/tmp".to_owned());
        format!(
            "{tmp}/claude-fake/{}/{}/tasks/{task_id}.output",
            crate::cwd_encoding::encode_cwd(&self.session.cwd),
            self.session.session_id
        )
    }
}
