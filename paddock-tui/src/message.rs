//! What paddockd puts in front of a person's message before `claude` sees it, read back for
//! display. A preloaded chat's first message starts with the project's context,
//!
//! ```text
//! <project-context>
//! …OVERVIEW.md, the end of CHANGELOG.md…
//! </project-context>
//!
//! My request:
//! …
//! ```
//!
//! and a message with files carries the `<paddock-attachments>` block ([`crate::attachments`])
//! in front of the request. The transcript keeps the whole text; the TUI and `paddock show`
//! show the request, one line saying the context was preloaded, and the files as chips.

use crate::attachments;

/// Where the context block starts, as the daemon writes it.
pub const CONTEXT_OPEN: &str = "<project-context>";
/// Between the context block and the request.
pub const REQUEST_MARKER: &str = "</project-context>\n\nMy request:\n";

/// The preloaded context of a message (`None` when it has none) and the rest of it.
pub fn split_context(text: &str) -> (Option<&str>, &str) {
    if !text.starts_with(CONTEXT_OPEN) {
        return (None, text);
    }
    match text.find(REQUEST_MARKER) {
        Some(i) => (
            Some(text[CONTEXT_OPEN.len()..i].trim_matches('\n')),
            &text[i + REQUEST_MARKER.len()..],
        ),
        None => (None, text),
    }
}

/// What the person typed: the message without the context and the attachments block.
pub fn request(text: &str) -> &str {
    attachments::strip_block(split_context(text).1)
}

/// What `claude` writes as a user row when a background task it started finishes (it then
/// runs a turn by itself): `<task-notification>` with the task's summary, status and result.
/// Nobody typed it, so it is shown as a notice, not as the person's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskNotification {
    /// "Agent \"Echo task\" finished".
    pub summary: String,
    /// `completed`, `failed`, ...
    pub status: String,
    /// The task's result (may be long).
    pub result: String,
}

/// The background task a user row reports, if it is a `<task-notification>`.
pub fn task_notification(text: &str) -> Option<TaskNotification> {
    let body = text.trim_start().strip_prefix("<task-notification>")?;
    let field = |name: &str| -> String {
        let open = format!("<{name}>");
        let close = format!("</{name}>");
        body.find(&open)
            .and_then(|at| {
                let rest = &body[at + open.len()..];
                rest.find(&close).map(|end| rest[..end].trim().to_owned())
            })
            .unwrap_or_default()
    };
    let summary = field("summary");
    Some(TaskNotification {
        summary: if summary.is_empty() {
            "a background task finished".to_owned()
        } else {
            summary
        },
        status: field("status"),
        result: field("result"),
    })
}

/// The line that stands for a preloaded context: how much of it there was.
pub fn context_note(context: &str) -> String {
    match context.lines().count() {
        1 => "project context preloaded (1 line)".to_owned(),
        n => format!("project context preloaded ({n} lines)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_and_the_files_give_way_to_the_request() {
        let plain = "just this";
        assert_eq!(split_context(plain), (None, plain));
        assert_eq!(request(plain), plain);

        let files = "<paddock-attachments>\nThe user attached these files.\n\
                     a1b2c3d4-0000-4000-8000-000000000000.txt\ttext\tnotes.txt\t/d/a.txt\n\
                     </paddock-attachments>\n\nwhat is in it?";
        let wrapped = format!(
            "<project-context>\n# Overview\nIt is a web app.\n\n## 2026-11-29\n- fixed it\n{REQUEST_MARKER}{files}"
        );
        let (context, rest) = split_context(&wrapped);
        assert_eq!(
            context,
            Some("# Overview\nIt is a web app.\n\n## 2026-11-29\n- fixed it")
        );
        assert_eq!(rest, files);
        assert_eq!(request(&wrapped), "what is in it?");
        assert_eq!(attachments::parse_block(&wrapped).len(), 1);
        assert_eq!(
            context_note(context.unwrap_or_default()),
            "project context preloaded (5 lines)"
        );
        // A background task's report.
        let note = task_notification(
            "<task-notification>\n<task-id>a3f7</task-id>\n<status>completed</status>\n\
             <summary>Agent \"Echo task bg\" finished</summary>\n<result>hi from background</result>\n\
             </task-notification>",
        );
        assert_eq!(
            note,
            Some(TaskNotification {
                summary: "Agent \"Echo task bg\" finished".into(),
                status: "completed".into(),
                result: "hi from background".into(),
            })
        );
        assert_eq!(task_notification(plain), None);
        // A message that only looks like one is left alone.
        let odd = "<project-context> but no end";
        assert_eq!(split_context(odd), (None, odd));
    }
}
