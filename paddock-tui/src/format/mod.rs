//! Pure text formatting of the daemon's answers, shared by the commands and the TUI: proto
//! types in, strings out, so every shape can be tested without a terminal or a daemon.

mod actions;
mod blame;
mod chats;
mod git;
mod history;
mod ids;
mod listing;
mod provenance;
mod search;
mod stream;
mod touched;
mod transcript;
mod triggers;
mod usage;
mod visible;
mod worktrees;

pub use actions::{delete_confirmation, deleted_summary, import_summary, update_summary};
pub use blame::blame;
pub use chats::{
    chat_flags, chat_table, context_percent, daemon_status, project_table, stdout_width,
    tree_depths, usage_percent,
};
pub use git::{git_committed, git_pushed, git_status};
pub use history::{
    history_banner, history_table, run_duration, run_origin, run_source, run_status_name,
    short_time, status_name,
};
pub use ids::IdForm;
pub use listing::{entry_name, entry_time, file_listing, file_size};
pub use provenance::provenance;
pub use search::{Highlight, field_name, highlighted, search_notes, search_results};
pub use stream::{Out, StreamPrinter};
pub use touched::touched;
pub use transcript::transcript;
pub use triggers::{
    Saved, hook_event_name, last_fire, next_fire, trigger_kind, trigger_saved, trigger_session,
    trigger_table, trigger_when,
};
pub use usage::{Report as UsageReport, report as usage_report, subtree, tokens, usage_text, usd};
pub use visible::{
    Style, Styled, is_hidden, json_escaped, push_visible, push_visible_char, visible,
};
pub use worktrees::{
    discard_question, worktree_discarded, worktree_list, worktree_merged, worktree_pruned,
    worktree_rebased, worktree_summary,
};

use paddock_proto::{Attribution, NoticeKind, Origin};
use serde_json::Value;

/// The root workspace's slug. It is a real key, compared by value — never "absent".
pub const ROOT_SLUG: &str = "";

/// A project slug for people: the root workspace shows as `(root)` (no slug can contain
/// parentheses, so this cannot collide with a real project).
pub fn project_label(slug: &str) -> std::borrow::Cow<'_, str> {
    // A host's root workspace, on a client of several hosts (`HOST:`).
    if let Some(host) = slug.strip_suffix(':') {
        return format!("{host}:(root)").into();
    }
    if slug == ROOT_SLUG { "(root)" } else { slug }.into()
}

/// A project as a sentence names it: `project web`, `the root workspace`.
pub fn project_phrase(slug: &str) -> String {
    if slug == ROOT_SLUG {
        "the root workspace".to_owned()
    } else {
        format!("project {slug}")
    }
}

/// A chat's origin as `paddock ls` shows it: the wire name, with the hops from its root for a
/// spawned chat more than one hop deep (`spawned·2`), where indentation alone would not say it.
pub fn origin_label(origin: Origin, depth: u32) -> String {
    match origin {
        Origin::Spawned if depth > 1 => format!("spawned·{depth}"),
        other => other.wire_name().to_owned(),
    }
}

/// The line shown above a machine-injected user turn, in the provenance doc's wording.
pub fn attribution_line(attribution: &Attribution) -> String {
    match attribution {
        Attribution::Scheduled { name } => format!("⏰ scheduled by {name}"),
        Attribution::Sent {
            from_session_id,
            from_title,
            ..
        } => {
            // The sender's title when known (cleaned: it is one line), else its session id.
            let who = from_title
                .as_deref()
                .map(clean_title)
                .filter(|t| t != UNTITLED)
                .unwrap_or_else(|| from_session_id.clone());
            format!("↩ sent by {who}")
        }
        Attribution::Hook { name } => format!("⚡ triggered by hook {name}"),
        Attribution::Recovery => "⚠ continued after its last turn was cut short".to_owned(),
    }
}

/// What a blank title shows as.
const UNTITLED: &str = "(untitled)";

/// The most of a title a line shows: a pasted message as the first prompt can be thousands of
/// lines (`--json` has all of it).
pub const TITLE_MAX_CHARS: usize = 120;

/// A chat title fit for one line: whitespace (a pasted newline) becomes one space, other
/// control characters are made [`visible`], a title longer than [`TITLE_MAX_CHARS`] ends in
/// "…", and a blank title says so.
pub fn clean_title(title: &str) -> String {
    let mut out = String::new();
    let words = title.split(char::is_whitespace);
    for word in words.filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        push_visible(&mut out, word);
        if out.chars().count() > TITLE_MAX_CHARS {
            let cut: String = out.chars().take(TITLE_MAX_CHARS).collect();
            return format!("{}…", cut.trim_end());
        }
    }
    if out.is_empty() {
        UNTITLED.to_owned()
    } else {
        out
    }
}

/// "1 chat", "3 chats".
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", plural(n, one, many))
}

pub(crate) fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// A duration for people: the two largest units.
pub(crate) fn duration(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, _) => format!("{m}m {s:02}s"),
        (0, _, _) => format!("{h}h {m:02}m"),
        _ => format!("{d}d {h}h"),
    }
}

/// Cuts `text` to at most `max` terminal columns, marking the cut with `ellipsis` (`…`, or
/// `...` in ASCII).
pub fn fit_width(text: &str, max: usize, ellipsis: &str) -> String {
    use unicode_width::{UnicodeWidthChar as _, UnicodeWidthStr as _};
    if text.width() <= max {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + ellipsis.width() > max {
            break;
        }
        out.push(c);
        used += w;
    }
    if max >= ellipsis.width() {
        out.push_str(ellipsis);
    }
    out
}

/// The first line of `text`, cut to `max` characters; `…` marks anything left out.
pub fn one_line(text: &str, max: usize) -> String {
    let trimmed = text.trim();
    let first = trimmed.lines().next().unwrap_or_default();
    let mut out: String = first.chars().take(max).collect();
    if out.len() < first.len() || first.len() < trimmed.len() {
        out.push('…');
    }
    out
}

/// A tool call in one line: its name and the one argument that says what it does.
pub fn tool_summary(name: &str, input: &Value) -> String {
    let detail = tool_detail(name, input);
    if detail.trim().is_empty() {
        name.to_owned()
    } else {
        format!("{name}: {}", one_line(&detail, 100))
    }
}

/// The one argument of a tool call that says what it does (the Bash command, the file path,
/// the Grep pattern...), whole; the input as JSON for a tool with no telling argument, and
/// empty when there is no input.
pub fn tool_detail(name: &str, input: &Value) -> String {
    let key = match name {
        "Bash" => Some("command"),
        "Read" | "Write" | "Edit" | "MultiEdit" => Some("file_path"),
        "NotebookEdit" => Some("notebook_path"),
        "Grep" | "Glob" => Some("pattern"),
        "WebFetch" => Some("url"),
        "WebSearch" => Some("query"),
        "Task" | "Agent" => Some("description"),
        _ => None,
    };
    match key.and_then(|k| input.get(k)).and_then(Value::as_str) {
        Some(arg) => arg.to_owned(),
        None => match input {
            Value::Null => String::new(),
            Value::Object(map) if map.is_empty() => String::new(),
            other => other.to_string(),
        },
    }
}

/// A compaction's sizes after its marker's words (`: 1200 → 300 tokens`, `: from 1200
/// tokens`), `arrow` between them; empty when the sizes are not known.
pub(crate) fn compaction_sizes(pre: Option<u64>, post: Option<u64>, arrow: &str) -> String {
    match (pre, post) {
        (Some(pre), Some(post)) => format!(": {pre} {arrow} {post} tokens"),
        (Some(pre), None) => format!(": from {pre} tokens"),
        _ => String::new(),
    }
}

/// A background task's status after its summary (` (failed)`), none when it completed.
pub(crate) fn task_status(status: &str) -> String {
    match status {
        "" | "completed" => String::new(),
        other => format!(" ({other})"),
    }
}

/// A notice's kind in a few words (`! API error: ...`).
pub fn notice_label(kind: NoticeKind) -> &'static str {
    match kind {
        NoticeKind::Crashed => "claude stopped",
        NoticeKind::ApiError => "API error",
        NoticeKind::Retrying => "retrying",
        NoticeKind::Interrupted => "interrupted",
        NoticeKind::PermissionDenied => "permission denied",
        NoticeKind::UsageLimit => "usage limit",
        NoticeKind::MaxTurns => "max turns",
        NoticeKind::Info => "note",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn root_is_labelled_by_value() {
        assert_eq!(project_label(""), "(root)");
        assert_eq!(project_label("web"), "web");
        assert_eq!(project_label("devbox:"), "devbox:(root)");
        assert_eq!(project_label("devbox:web"), "devbox:web");
    }

    #[test]
    fn attribution_wording_follows_the_reference() {
        assert_eq!(
            attribution_line(&Attribution::Scheduled {
                name: "nightly".into()
            }),
            "⏰ scheduled by nightly"
        );
        assert_eq!(
            attribution_line(&Attribution::Sent {
                from_session_id: "s1".into(),
                from_project: "".into(),
                from_title: Some("Manager".into()),
            }),
            "↩ sent by Manager"
        );
        // No title known (or a blank one): the sender's session id names it.
        for from_title in [None, Some(" \n".to_owned())] {
            assert_eq!(
                attribution_line(&Attribution::Sent {
                    from_session_id: "s1".into(),
                    from_project: "web".into(),
                    from_title,
                }),
                "↩ sent by s1"
            );
        }
        assert_eq!(
            attribution_line(&Attribution::Sent {
                from_session_id: "s1".into(),
                from_project: "web".into(),
                from_title: Some("Fix\nit".into()),
            }),
            "↩ sent by Fix it"
        );
        assert_eq!(
            attribution_line(&Attribution::Hook { name: "ci".into() }),
            "⚡ triggered by hook ci"
        );
        assert_eq!(
            attribution_line(&Attribution::Recovery),
            "⚠ continued after its last turn was cut short"
        );
    }

    #[test]
    fn origins_show_spawn_depth_beyond_one_hop() {
        assert_eq!(origin_label(Origin::Human, 0), "human");
        assert_eq!(origin_label(Origin::Spawned, 1), "spawned");
        assert_eq!(origin_label(Origin::Spawned, 2), "spawned·2");
        assert_eq!(origin_label(Origin::Adopted, 0), "adopted");
    }

    #[test]
    fn counts_and_durations() {
        assert_eq!(count(1, "chat", "chats"), "1 chat");
        assert_eq!(count(0, "chat", "chats"), "0 chats");
        assert_eq!(duration(42), "42s");
        assert_eq!(duration(312), "5m 12s");
        assert_eq!(duration(3725), "1h 02m");
        assert_eq!(duration(90_061), "1d 1h");
    }

    #[test]
    fn titles_fit_on_one_line() {
        assert_eq!(clean_title("Fix\nthe build\t"), "Fix the build");
        assert_eq!(clean_title("  "), "(untitled)");
        assert_eq!(
            clean_title("a\r\nb\u{1b}]0;pwned\u{7}\u{85}c\u{9b}2J"),
            "a b␛]0;pwned␇ c\\u{9b}2J"
        );
    }

    #[test]
    fn one_line_cuts_and_marks() {
        assert_eq!(one_line("short", 10), "short");
        assert_eq!(one_line("two\nlines", 10), "two…");
        assert_eq!(one_line("abcdefghijkl", 5), "abcde…");
        assert_eq!(one_line("  padded  ", 10), "padded");
    }

    #[test]
    fn tool_summaries_pick_the_telling_argument() {
        assert_eq!(
            tool_summary("Bash", &json!({"command": "ls -la", "timeout": 5})),
            "Bash: ls -la"
        );
        assert_eq!(
            tool_summary("Read", &json!({"file_path": "/src/main.rs"})),
            "Read: /src/main.rs"
        );
        assert_eq!(tool_summary("TodoWrite", &json!({})), "TodoWrite");
        assert_eq!(
            tool_summary(
                "mcp__paddock_manage__list_chats",
                &json!({"project": "web"})
            ),
            "mcp__paddock_manage__list_chats: {\"project\":\"web\"}"
        );
    }
}
