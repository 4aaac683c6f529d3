//! The approvals inbox: tool calls waiting for a person, across every chat.
//!
//! A `can_use_tool` request for a tool the project does not allow is not denied: it becomes a
//! pending approval here, visible to every client (`approval:list`, `approvals:changed`), and
//! the chat's turn waits for the answer (unattended runs too). The answer goes back to the
//! chat's task through that chat's bounded channel ([`ANSWER_QUEUE`]; a full channel means
//! the chat is gone, and the answer is dropped with a warning). Pending approvals live in
//! memory: they belong to a running `claude`, which does not outlive the daemon, and a turn
//! that ends (cancelled, crashed) takes its approvals with it.
//!
//! A `send_file` of a file outside the project is read by paddockd itself, after `claude`
//! was told yes, so an allowed one also leaves a grant here ([`Approvals::take_grant`]): the
//! tool reads that file for that chat once, while the turn runs. At most [`GRANTS`] wait at
//! once; past that the oldest is dropped (its call is then refused, and asked again).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use paddock_proto::{Approval, ApprovalDecision};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// Answers a chat task can have waiting; more than this many at once means it is stuck.
pub const ANSWER_QUEUE: usize = 64;

/// Grants of allowed `send_file` calls kept at once; the oldest is dropped past this.
pub const GRANTS: usize = 64;

/// An allowed `send_file` of a file outside the project, not yet read.
#[derive(Debug, Clone)]
struct Grant {
    session_id: String,
    job_id: String,
    input: Value,
}

/// An answer on its way to the chat task that asked.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The CLI's control request id.
    pub request_id: String,
    pub tool: String,
    pub input: Value,
    pub decision: ApprovalDecision,
    pub message: Option<String>,
}

struct Waiting {
    /// The order it was asked in.
    seq: u64,
    approval: Approval,
    to: Asker,
}

/// Who waits for an approval's answer.
enum Asker {
    /// A chat's `can_use_tool`: the CLI's control request id, and the chat task's channel.
    Chat {
        request_id: String,
        chat: mpsc::Sender<Answer>,
    },
    /// A call paused by a tree's cap (`tree_caps.rs`), waiting on its own answer.
    Call(oneshot::Sender<Decided>),
}

/// A person's answer to a paused call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided {
    pub decision: ApprovalDecision,
    pub message: Option<String>,
}

/// The pending approvals; cheap to clone.
#[derive(Clone, Default)]
pub struct Approvals {
    /// By id.
    pending: Arc<Mutex<BTreeMap<String, Waiting>>>,
    /// The next `Waiting::seq`.
    next: Arc<std::sync::atomic::AtomicU64>,
    /// Allowed `send_file` calls, oldest first (at most [`GRANTS`]).
    grants: Arc<Mutex<std::collections::VecDeque<Grant>>>,
}

impl std::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Approvals({} pending)", self.count())
    }
}

impl Approvals {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Waiting>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new id: random, so that its first few characters already name it (a person types a
    /// prefix, as of a session id: `paddock approvals allow 3f9c`).
    pub fn new_id() -> String {
        format!("apr_{}", uuid::Uuid::new_v4().simple())
    }

    /// Files a request; its answer will go to `chat`. Returns how many are pending.
    pub fn ask(&self, approval: Approval, request_id: String, chat: mpsc::Sender<Answer>) -> u32 {
        self.file(approval, Asker::Chat { request_id, chat })
    }

    /// Files a paused call (`tree_caps.rs`); its answer comes on the receiver, which errs
    /// when the approval is dropped unanswered (the turn that made the call ended). Returns
    /// it and how many are pending.
    pub fn ask_call(&self, approval: Approval) -> (oneshot::Receiver<Decided>, u32) {
        let (tx, rx) = oneshot::channel();
        (rx, self.file(approval, Asker::Call(tx)))
    }

    fn file(&self, approval: Approval, to: Asker) -> u32 {
        let seq = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut pending = self.lock();
        pending.insert(approval.id.clone(), Waiting { seq, approval, to });
        u32::try_from(pending.len()).unwrap_or(u32::MAX)
    }

    /// Every pending approval, oldest first.
    pub fn list(&self) -> Vec<Approval> {
        let pending = self.lock();
        let mut waiting: Vec<&Waiting> = pending.values().collect();
        waiting.sort_by_key(|w| w.seq);
        waiting.into_iter().map(|w| w.approval.clone()).collect()
    }

    pub fn count(&self) -> u32 {
        u32::try_from(self.lock().len()).unwrap_or(u32::MAX)
    }

    /// Whether every id is pending (all-or-nothing validation).
    pub fn unknown<'a>(&self, ids: &'a [String]) -> Option<&'a str> {
        let pending = self.lock();
        ids.iter()
            .find(|id| !pending.contains_key(id.as_str()))
            .map(String::as_str)
    }

    /// Answers these approvals; returns the ones answered (each with its project).
    pub fn answer(
        &self,
        ids: &[String],
        decision: ApprovalDecision,
        message: Option<&str>,
    ) -> Vec<Approval> {
        let mut done = Vec::new();
        let mut pending = self.lock();
        for id in ids {
            let Some(w) = pending.remove(id) else {
                continue;
            };
            if decision != ApprovalDecision::Deny
                && w.approval.tool == crate::permissions::SEND_FILE
            {
                self.grant(&w.approval);
            }
            match w.to {
                Asker::Chat { request_id, chat } => {
                    let answer = Answer {
                        request_id,
                        tool: w.approval.tool.clone(),
                        input: w.approval.input.clone(),
                        decision,
                        message: message.map(str::to_owned),
                    };
                    if let Err(e) = chat.try_send(answer) {
                        tracing::warn!(approval = %id, "the chat that asked is gone; its answer is dropped: {e}");
                    }
                }
                Asker::Call(to) => {
                    let decided = Decided {
                        decision,
                        message: message.map(str::to_owned),
                    };
                    if to.send(decided).is_err() {
                        tracing::warn!(approval = %id, "the paused call is gone; its answer is dropped");
                    }
                }
            }
            done.push(w.approval);
        }
        done
    }

    fn grants(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<Grant>> {
        self.grants.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps the grant of an allowed `send_file` (before its answer reaches the chat, so the
    /// call that follows finds it).
    fn grant(&self, approval: &Approval) {
        let mut grants = self.grants();
        if grants.len() >= GRANTS
            && let Some(old) = grants.pop_front()
        {
            tracing::warn!(session = %old.session_id, "more than {GRANTS} allowed send_file calls unread; the oldest is dropped");
        }
        grants.push_back(Grant {
            session_id: approval.session_id.clone(),
            job_id: approval.job_id.clone(),
            input: approval.input.clone(),
        });
    }

    /// Takes a grant of `session` whose call's input `covers` says is the call being made;
    /// whether there was one.
    pub fn take_grant(&self, session: &str, covers: impl Fn(&Value) -> bool) -> bool {
        let mut grants = self.grants();
        match grants
            .iter()
            .position(|g| g.session_id == session && covers(&g.input))
        {
            Some(at) => grants.remove(at).is_some(),
            None => false,
        }
    }

    /// Drops the approvals of a turn that ended (and its unused grants); whether any
    /// approvals were dropped.
    pub fn drop_job(&self, job_id: &str) -> bool {
        self.grants().retain(|g| g.job_id != job_id);
        let mut pending = self.lock();
        let before = pending.len();
        pending.retain(|_, w| w.approval.job_id != job_id);
        pending.len() != before
    }
}

/// `approval:answer`: validates all ids first (1 to 500, all pending), then answers them; an
/// `always` also adds each approval's `always_rules` (what makes the call allowed next time and
/// nothing wider: `Bash(mkdir:*)`, never the whole of Bash; `permissions/always.rs`) to its
/// project's `allowed_tools`, exactly as they were shown. Every client hears of it.
pub async fn answer_request(
    approvals: &Approvals,
    projects: &crate::projects::Projects,
    hub: &crate::hub::Hub,
    a: paddock_proto::ApprovalAnswer,
) -> Result<paddock_proto::Updated, paddock_proto::ErrorBody> {
    use paddock_proto::{ErrorBody, ErrorCode};
    if a.ids.is_empty() || a.ids.len() > paddock_proto::BATCH_SESSIONS_MAX {
        return Err(ErrorBody::new(
            ErrorCode::InvalidArgument,
            format!(
                "answer 1 to {} approvals at once (got {}); nothing was answered",
                paddock_proto::BATCH_SESSIONS_MAX,
                a.ids.len()
            ),
        ));
    }
    if let Some(id) = approvals.unknown(&a.ids) {
        return Err(ErrorBody::new(
            ErrorCode::NotFound,
            format!(
                "no pending approval {id} (answered already, or its turn ended); nothing was answered"
            ),
        ));
    }
    let done = approvals.answer(&a.ids, a.decision, a.message.as_deref());
    if a.decision == ApprovalDecision::Always {
        for approval in &done {
            if approval.always_rules.is_empty() {
                tracing::info!(project = %approval.project_slug, tool = %approval.tool, why = ?approval.always_why_not, "always: no rule can cover this call; it was allowed once");
                continue;
            }
            let (slug, rules) = (approval.project_slug.clone(), approval.always_rules.clone());
            let added = projects
                .blocking(move |projects| {
                    projects.edit_file(&slug, |file| {
                        let mut any = false;
                        for rule in &rules {
                            any |= crate::projects::edit::allow_tool(file, rule);
                        }
                        any
                    })
                })
                .await;
            if let Err(e) = added {
                tracing::warn!(project = %approval.project_slug, rules = ?approval.always_rules, "cannot add the rules: {e}");
            }
        }
    }
    hub.approvals_changed_for(approvals.count(), &done).await;
    Ok(paddock_proto::Updated {
        changed: u32::try_from(done.len()).unwrap_or(u32::MAX),
        notes: Vec::new(),
    })
}

/// A short preview of a tool call for the inbox: the command, the file and a diff of an edit,
/// the start of a written file; `None` for anything else. A path is shown as where it really
/// leads (`permissions::shown_path`): `/elsewhere/x (outside the project; named out/x)`; a
/// command is followed by a line for each path it names outside the project.
pub fn preview(tool: &str, input: &Value, project_dir: &std::path::Path) -> Option<String> {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let cut = |text: &str, lines: usize| -> String {
        let mut out: Vec<&str> = text.lines().take(lines).collect();
        if text.lines().count() > lines {
            out.push("…");
        }
        out.join("\n")
    };
    let path = || crate::permissions::shown_path(tool, input, project_dir);
    match tool {
        "Bash" => s("command").map(|c| {
            let mut text = format!("$ {}", cut(c, 8));
            for line in crate::permissions::shown_outside(c, project_dir) {
                text.push('\n');
                text.push_str(&line);
            }
            text
        }),
        "Edit" => {
            let path = path()?;
            let old = s("old_string").unwrap_or_default();
            let new = s("new_string").unwrap_or_default();
            let minus: Vec<String> = old.lines().take(12).map(|l| format!("- {l}")).collect();
            let plus: Vec<String> = new.lines().take(12).map(|l| format!("+ {l}")).collect();
            Some(format!("{path}\n{}\n{}", minus.join("\n"), plus.join("\n")))
        }
        "Write" => {
            let path = path()?;
            Some(format!(
                "{path}\n{}",
                cut(s("content").unwrap_or_default(), 12)
            ))
        }
        "Glob" | "Grep" => {
            let pattern = s("pattern").unwrap_or_default();
            Some(match path() {
                Some(path) if s("path").is_some() => format!("{pattern} in {path}"),
                _ => pattern.to_owned(),
            })
        }
        "NotebookEdit" | "Read" | crate::permissions::SEND_FILE => path(),
        "WebFetch" => s("url").map(str::to_owned),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use paddock_proto::Origin;
    use serde_json::json;

    fn approval(id: &str, job: &str) -> Approval {
        Approval {
            id: id.into(),
            project_slug: String::new(),
            session_id: "s".into(),
            job_id: job.into(),
            title: "t".into(),
            origin: Origin::Human,
            depth: 0,
            tool: "Bash".into(),
            input: json!({"command": "ls"}),
            preview: None,
            asked_at: "2026-01-01T00:00:00Z".into(),
            always_rules: vec!["Bash(ls:*)".into()],
            always_why_not: None,
            kind: paddock_proto::ApprovalKind::Tool,
        }
    }

    #[tokio::test]
    async fn answers_reach_the_chat_that_asked_and_leave_the_inbox() {
        let a = Approvals::default();
        let (tx, mut rx) = mpsc::channel(ANSWER_QUEUE);
        assert_eq!(a.ask(approval("apr_1", "j1"), "r1".into(), tx.clone()), 1);
        assert_eq!(a.ask(approval("apr_2", "j1"), "r2".into(), tx), 2);
        assert_eq!(a.unknown(&["apr_1".into(), "nope".into()]), Some("nope"));
        let done = a.answer(&["apr_2".into()], ApprovalDecision::Deny, Some("no"));
        assert_eq!(done.len(), 1);
        let got = rx.recv().await.unwrap();
        assert_eq!(
            (
                got.request_id.as_str(),
                got.decision,
                got.message.as_deref()
            ),
            ("r2", ApprovalDecision::Deny, Some("no"))
        );
        assert_eq!(a.count(), 1);
        let (tx, _rx) = mpsc::channel(ANSWER_QUEUE);
        a.ask(approval("apr_0", "j2"), "r0".into(), tx);
        let order: Vec<String> = a.list().into_iter().map(|x| x.id).collect();
        assert_eq!(order, ["apr_1", "apr_0"], "oldest first, whatever the ids");
        assert!(a.drop_job("j2"));
        assert!(a.drop_job("j1"));
        assert_eq!(a.count(), 0);
        assert!(!a.drop_job("j1"));
    }

    #[tokio::test]
    async fn an_allowed_send_file_leaves_one_grant_for_its_chat_until_its_turn_ends() {
        let a = Approvals::default();
        let (tx, _rx) = mpsc::channel(ANSWER_QUEUE);
        let send = |id: &str, job: &str| Approval {
            tool: crate::permissions::SEND_FILE.into(),
            input: json!({"file_path": "/etc/hosts"}),
            ..approval(id, job)
        };
        let is_hosts = |input: &Value| input["file_path"] == "/etc/hosts";
        a.ask(send("apr_1", "j1"), "r1".into(), tx.clone());
        a.ask(send("apr_2", "j1"), "r2".into(), tx.clone());
        a.ask(approval("apr_3", "j1"), "r3".into(), tx.clone());
        assert!(!a.take_grant("s", is_hosts), "nothing allowed yet");
        a.answer(&["apr_1".into()], ApprovalDecision::Deny, None);
        a.answer(&["apr_3".into()], ApprovalDecision::Allow, None);
        assert!(
            !a.take_grant("s", is_hosts),
            "a deny, and a Bash call, grant nothing"
        );
        a.answer(&["apr_2".into()], ApprovalDecision::Allow, None);
        assert!(!a.take_grant("other", is_hosts), "another chat's");
        assert!(!a.take_grant("s", |_| false), "another file");
        assert!(a.take_grant("s", is_hosts));
        assert!(!a.take_grant("s", is_hosts), "used once");
        a.ask(send("apr_4", "j2"), "r4".into(), tx);
        a.answer(&["apr_4".into()], ApprovalDecision::Always, None);
        a.drop_job("j2");
        assert!(!a.take_grant("s", is_hosts), "its turn ended");
    }

    #[test]
    fn previews_show_commands_and_edits() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let dir = base.join("web");
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(&base, dir.join("out")).unwrap();
        assert_eq!(
            preview("Bash", &json!({"command": "cargo test"}), &dir).as_deref(),
            Some("$ cargo test")
        );
        let edit = preview(
            "Edit",
            &json!({"file_path": "x.rs", "old_string": "a\nb", "new_string": "c"}),
            &dir,
        )
        .unwrap();
        assert_eq!(edit, "x.rs\n- a\n- b\n+ c");
        // Where a path really leads, marked.
        let write = preview(
            "Write",
            &json!({"file_path": "out/pwned.txt", "content": "x"}),
            &dir,
        )
        .unwrap();
        assert_eq!(
            write,
            format!(
                "{}/pwned.txt (outside the project; named out/pwned.txt)\nx",
                base.display()
            )
        );
        let bash = preview("Bash", &json!({"command": "cat out/secret > copy"}), &dir).unwrap();
        assert_eq!(
            bash,
            format!(
                "$ cat out/secret > copy\n⚠ {}/secret (outside the project; named out/secret)",
                base.display()
            )
        );
        assert_eq!(preview("mcp__x__y", &json!({}), &dir), None);
        assert_ne!(
            Approvals::new_id().get(..8),
            Approvals::new_id().get(..8),
            "ids differ in their first characters"
        );
    }
}
