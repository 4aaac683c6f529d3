//! `paddock approvals [--json]` and `paddock approvals allow|deny|always ID...`: the inbox of
//! tool calls waiting for a person, for scripts and for a terminal without the TUI. An ID is
//! an approval id or a unique prefix of one (at least [`MIN_PREFIX`] characters; `apr_` may be
//! left out), found in one `approval:list` with the same rules as a SESSION.

use std::fmt::Write as _;

use paddock_proto::{Approval, ApprovalAnswer, ApprovalDecision, ApprovalList};

use super::ids::MIN_PREFIX;
use super::output::{print, print_json};
use super::{Context, Failure};
use crate::cli::{ApprovalsArgs, ApprovalsCmd};
use crate::format::{self, project_label};

/// The id's prefix the listing shows (after `apr_`), as `paddock ls` shows 8 of a session id.
const SHOWN_ID: usize = 8;
const ID_PREFIX: &str = "apr_";
const LIST_HINT: &str = "`paddock approvals` lists the pending ones";

pub async fn run(ctx: &Context, args: ApprovalsArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let approvals = client.call(ApprovalList).await?.approvals;
    let (decision, ids, message) = match args.action {
        None if args.json => return print_json(&approvals),
        None => {
            return print(&table(
                &approvals,
                chrono::Utc::now(),
                format::IdForm::for_stdout(),
            ));
        }
        Some(ApprovalsCmd::Allow(a)) => (ApprovalDecision::Allow, a.ids, None),
        Some(ApprovalsCmd::Deny { ids, message }) => (ApprovalDecision::Deny, ids.ids, message),
        Some(ApprovalsCmd::Always(a)) => (ApprovalDecision::Always, a.ids, None),
    };
    let chosen = ids
        .iter()
        .map(|id| pick(id, &approvals))
        .collect::<anyhow::Result<Vec<&Approval>>>()?;
    let mut chosen_ids: Vec<String> = chosen.iter().map(|a| a.id.clone()).collect();
    chosen_ids.dedup();
    let mut said = String::new();
    for a in &chosen {
        let _ = writeln!(said, "{}", answer_line(a, decision));
    }
    // The rules are said before they are written.
    print(&said)?;
    let request = ApprovalAnswer {
        ids: chosen_ids,
        decision,
        message,
    };
    client.call(request).await?;
    Ok(())
}

/// What answering `a` does, for a person: `allowed Bash in demo / mkdir it`,
/// `always: adds Bash(mkdir:*) to project demo`.
fn answer_line(a: &Approval, decision: ApprovalDecision) -> String {
    let call = format!("{} in {}", a.tool, chat_label(a));
    let project = project_label(&a.project_slug);
    if a.kind == paddock_proto::ApprovalKind::Cap {
        return match decision {
            ApprovalDecision::Deny => format!("denied {call}; the tree's cap stays"),
            _ => format!("lifted the tree's cap: {call} runs, and the tree's count starts again"),
        };
    }
    match decision {
        ApprovalDecision::Allow => format!("allowed {call}"),
        ApprovalDecision::Deny => format!("denied {call}"),
        ApprovalDecision::Always if a.always_rules.is_empty() => format!(
            "always: no rule can cover this {} call{}, so none is added; allowed {call} once",
            a.tool,
            a.always_why_not
                .as_deref()
                .map(|why| format!(" ({why})"))
                .unwrap_or_default()
        ),
        ApprovalDecision::Always => format!(
            "always: adds {} to project {project} (allowed {call})",
            a.always_rules.join(", ")
        ),
    }
}

/// The pending approval `id` names: the whole id, or a unique prefix of it (`apr_` optional).
fn pick<'a>(id: &str, approvals: &'a [Approval]) -> anyhow::Result<&'a Approval> {
    let wanted = id
        .strip_prefix(ID_PREFIX)
        .unwrap_or(id)
        .to_ascii_lowercase();
    if wanted.chars().count() < MIN_PREFIX {
        return Err(Failure::new(
            1,
            format!(
                "{id:?} is too short for an approval id: give at least {MIN_PREFIX} characters of it; {LIST_HINT}"
            ),
        )
        .into());
    }
    let bare = |a: &Approval| {
        a.id.strip_prefix(ID_PREFIX)
            .unwrap_or(&a.id)
            .to_ascii_lowercase()
    };
    if let Some(exact) = approvals.iter().find(|a| bare(a) == wanted) {
        return Ok(exact);
    }
    let found: Vec<&Approval> = approvals
        .iter()
        .filter(|a| bare(a).starts_with(&wanted))
        .collect();
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(Failure::new(
            1,
            format!("no pending approval {id} (answered already, or its turn ended); {LIST_HINT}"),
        )
        .into()),
        many => {
            let mut message = format!("{id} names {} approvals; give more of the id:", many.len());
            for a in many {
                let _ = write!(message, "\n  {} {} in {}", a.id, a.tool, chat_label(a));
            }
            Err(Failure::new(1, message).into())
        }
    }
}

/// The chat that asked: its project, its short id and title.
fn chat_label(a: &Approval) -> String {
    format!(
        "{} / {} {}",
        project_label(&a.project_slug),
        a.session_id.get(..8).unwrap_or(&a.session_id),
        format::one_line(&format::clean_title(&a.title), 40)
    )
}

/// `paddock approvals`: one row per waiting call, oldest first.
pub(super) fn table(
    approvals: &[Approval],
    now: chrono::DateTime<chrono::Utc>,
    ids: format::IdForm,
) -> String {
    if approvals.is_empty() {
        return "nothing waits for a person\n".to_owned();
    }
    let sessions: Vec<&str> = approvals.iter().map(|a| a.session_id.as_str()).collect();
    let rows: Vec<[String; 7]> = approvals
        .iter()
        .zip(ids.show(&sessions))
        .map(|(a, session)| {
            let id = a.id.strip_prefix(ID_PREFIX).unwrap_or(&a.id);
            let age = chrono::DateTime::parse_from_rfc3339(&a.asked_at)
                .ok()
                .and_then(|t| {
                    u64::try_from((now - t.with_timezone(&chrono::Utc)).num_seconds()).ok()
                })
                .map_or_else(|| "?".to_owned(), format::duration);
            let preview = a
                .preview
                .as_deref()
                .and_then(|p| p.lines().next())
                .map_or_else(
                    || format::one_line(&a.input.to_string(), 60),
                    |p| format::one_line(p, 60),
                );
            [
                id.chars().take(SHOWN_ID).collect(),
                project_label(&a.project_slug).into_owned(),
                format!(
                    "{session} {}",
                    format::one_line(&format::clean_title(&a.title), 30)
                ),
                a.tool.clone(),
                preview,
                format::origin_label(a.origin, a.depth),
                age,
            ]
        })
        .collect();
    let header = ["ID", "PROJECT", "CHAT", "TOOL", "CALL", "ORIGIN", "AGE"];
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut l = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i + 1 == cells.len() {
                l.push_str(cell);
            } else {
                let pad = w.saturating_sub(cell.chars().count());
                let _ = write!(l, "{cell}{}  ", " ".repeat(pad));
            }
        }
        let _ = writeln!(out, "{}", l.trim_end());
    };
    line(&header);
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        line(&cells);
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use paddock_proto::Origin;

    fn approval(id: &str, command: &str) -> Approval {
        Approval {
            id: id.into(),
            project_slug: "demo".into(),
            session_id: "5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90".into(),
            job_id: "j".into(),
            title: "Make the dirs".into(),
            origin: Origin::Scheduled,
            depth: 0,
            tool: "Bash".into(),
            input: serde_json::json!({ "command": command }),
            preview: Some(format!("$ {command}")),
            asked_at: "2026-01-01T00:00:00Z".into(),
            always_rules: vec!["Bash(mkdir:*)".into()],
            always_why_not: None,
            kind: paddock_proto::ApprovalKind::Tool,
        }
    }

    #[test]
    fn the_table_shows_id_project_chat_tool_call_origin_and_age() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:02:05Z")
            .map(|t| t.with_timezone(&chrono::Utc))
            .unwrap_or_default();
        let text = table(
            &[approval("apr_3f9c1a2b77", "mkdir -p x")],
            now,
            format::IdForm::Short,
        );
        assert_eq!(
            text,
            "ID        PROJECT  CHAT                    TOOL  CALL          ORIGIN     AGE\n\
             3f9c1a2b  demo     5f0c2d8e Make the dirs  Bash  $ mkdir -p x  scheduled  2m 05s\n"
        );
        assert_eq!(
            table(&[], now, format::IdForm::Short),
            "nothing waits for a person\n"
        );
    }

    #[test]
    fn ids_are_unique_prefixes_with_or_without_apr() {
        let list = [approval("apr_3f9c1a", "a"), approval("apr_3f9d00", "b")];
        let id = |arg: &str| {
            pick(arg, &list)
                .map(|a| a.id.clone())
                .map_err(|e| e.to_string())
        };
        assert_eq!(id("3f9c").as_deref(), Ok("apr_3f9c1a"));
        assert_eq!(id("apr_3f9d").as_deref(), Ok("apr_3f9d00"));
        assert_eq!(id("apr_3f9c1a").as_deref(), Ok("apr_3f9c1a"));
        let e = id("3f9").unwrap_err();
        assert!(e.contains("too short"), "{e}");
        let e = id("apr_3f9").unwrap_err();
        assert!(e.contains("too short"), "{e}");
        let e = id("ffff").unwrap_err();
        assert!(e.starts_with("no pending approval ffff"), "{e}");
        assert!(e.ends_with(LIST_HINT), "{e}");
        let list = [approval("apr_3f9c1a", "a"), approval("apr_3f9c2b", "b")];
        let e = pick("3f9c", &list).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("names 2 approvals"), "{e}");
    }

    #[test]
    fn always_says_the_rule_it_adds() {
        let a = approval("apr_1", "mkdir -p x");
        assert_eq!(
            answer_line(&a, ApprovalDecision::Always),
            "always: adds Bash(mkdir:*) to project demo (allowed Bash in demo / 5f0c2d8e Make the dirs)"
        );
        let none = Approval {
            always_rules: Vec::new(),
            always_why_not: Some("it runs a command substitution".into()),
            kind: paddock_proto::ApprovalKind::Tool,
            ..a
        };
        let line = answer_line(&none, ApprovalDecision::Always);
        assert!(line.contains("none is added"), "{line}");
        assert!(line.contains("(it runs a command substitution)"), "{line}");
    }

    #[test]
    fn answering_a_cap_says_the_cap_is_lifted_or_stays() {
        let cap = Approval {
            tool: "hook nudge".into(),
            always_rules: Vec::new(),
            always_why_not: Some("a cap is lifted for this call, not by a rule".into()),
            kind: paddock_proto::ApprovalKind::Cap,
            ..approval("apr_1", "x")
        };
        for decision in [ApprovalDecision::Allow, ApprovalDecision::Always] {
            assert_eq!(
                answer_line(&cap, decision),
                "lifted the tree's cap: hook nudge in demo / 5f0c2d8e Make the dirs runs, and the tree's count starts again"
            );
        }
        assert_eq!(
            answer_line(&cap, ApprovalDecision::Deny),
            "denied hook nudge in demo / 5f0c2d8e Make the dirs; the tree's cap stays"
        );
    }
}
