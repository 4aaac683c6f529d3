//! `paddock files`: the files a chat read and wrote, turn by turn, each write with whether the
//! file still is what the turn left.

use std::fmt::Write as _;

use chrono::{DateTime, TimeZone};
use paddock_proto::{FileEdge, FileRole, FileStatus, Touched, TouchedFile};

use super::short_time;

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// How many of the files every turn touched are `which`.
fn count_files(t: &Touched, which: impl Fn(&TouchedFile) -> bool) -> usize {
    t.turns
        .iter()
        .flat_map(|turn| &turn.files)
        .filter(|f| which(f))
        .count()
}

fn status_word(file: &TouchedFile) -> &'static str {
    match file.status {
        Some(FileStatus::Current) => "current",
        Some(FileStatus::Stale) => "stale",
        Some(FileStatus::Unverified) => "unverified",
        None => "",
    }
}

/// `Edit`, `Bash, inferred`, `Write, subagent general-purpose`.
fn how(file: &TouchedFile) -> String {
    let mut out = file.tool.clone();
    if file.edge == FileEdge::Inferred {
        out.push_str(", inferred");
    }
    if let Some(sp) = &file.specialist {
        let _ = write!(out, ", subagent {}", sp.name);
    }
    out
}

/// One block per turn, oldest first:
///
/// ```text
/// turn 0193f4c2  09:14
///   current     wrote     src/auth/cookie.ts   Edit
///   stale       created   build.log            Bash, inferred
///               read      tests/login.spec.ts  Read
/// ```
pub fn touched<Tz: TimeZone>(t: &Touched, now: &DateTime<Tz>) -> String
where
    Tz::Offset: std::fmt::Display,
{
    let mut out = String::new();
    if t.turns.iter().all(|turn| turn.files.is_empty()) {
        let _ = writeln!(
            out,
            "No recorded tool call of chat {} touched a file.",
            short(&t.session_id)
        );
    }
    for turn in t.turns.iter().filter(|turn| !turn.files.is_empty()) {
        let prompt = turn
            .prompt
            .as_deref()
            .map(|p| format!("  {}", super::one_line(&super::clean_title(p), 60)))
            .unwrap_or_default();
        // A turn from before the chat moved: its paths are that project's.
        let place = turn
            .project_slug
            .as_deref()
            .map(|s| format!("  (in project {})", super::project_label(s)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "turn {}  {}{place}{prompt}",
            short(&turn.job_id),
            short_time(&turn.started_at, now)
        );
        let width = turn
            .files
            .iter()
            .map(|f| f.path.chars().count())
            .max()
            .unwrap_or(0)
            .min(60);
        for file in &turn.files {
            let _ = writeln!(
                out,
                "  {:<10}  {:<8}  {:<width$}  {}",
                status_word(file),
                file.change,
                file.path,
                how(file)
            );
        }
    }
    let reads = count_files(t, |f| f.role == FileRole::Read);
    let writes = count_files(t, |f| f.role == FileRole::Write);
    if reads + writes > 0 {
        let stale = count_files(t, |f| f.status == Some(FileStatus::Stale));
        let _ = writeln!(
            out,
            "{writes} write{}, {reads} read{}{}",
            if writes == 1 { "" } else { "s" },
            if reads == 1 { "" } else { "s" },
            if stale > 0 {
                format!(
                    "; {stale} written file{} changed since",
                    if stale == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            }
        );
    }
    for note in &t.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use paddock_proto::{Specialist, TouchedTurn};

    fn file(path: &str, role: FileRole, change: &str, tool: &str) -> TouchedFile {
        TouchedFile {
            path: path.into(),
            role,
            edge: FileEdge::Observed,
            change: change.into(),
            tool: tool.into(),
            status: None,
            specialist: None,
        }
    }

    #[test]
    fn turns_list_their_files_with_status_change_and_how() {
        let now = Utc.with_ymd_and_hms(2026, 11, 3, 12, 0, 0).unwrap();
        let mut edit = file("src/auth/cookie.ts", FileRole::Write, "wrote", "Edit");
        edit.status = Some(FileStatus::Current);
        let mut log = file("build.log", FileRole::Write, "created", "Bash");
        log.edge = FileEdge::Inferred;
        log.status = Some(FileStatus::Stale);
        let mut sub = file("notes.md", FileRole::Write, "wrote", "Write");
        sub.status = Some(FileStatus::Unverified);
        sub.specialist = Some(Specialist {
            agent_id: "a1".into(),
            name: "general-purpose".into(),
            description: None,
            model: None,
        });
        let t = Touched {
            project_slug: "web".into(),
            session_id: "5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90".into(),
            turns: vec![
                TouchedTurn {
                    project_slug: None,
                    prompt: Some("Fix the cookie refresh".into()),
                    job_id: "0193f4c2-7a1e".into(),
                    started_at: "2026-11-03T09:14:02Z".into(),
                    files: vec![
                        edit,
                        log,
                        sub,
                        file("tests/login.ts", FileRole::Read, "read", "Read"),
                    ],
                },
                TouchedTurn {
                    project_slug: None,
                    prompt: None,
                    job_id: "0193f4c3-0000".into(),
                    started_at: "2026-11-03T10:00:00Z".into(),
                    files: vec![],
                },
            ],
            notes: vec!["Some tool calls were not recorded.".into()],
        };
        assert_eq!(
            touched(&t, &now),
            "turn 0193f4c2  09:14  Fix the cookie refresh\n\
             \x20 current     wrote     src/auth/cookie.ts  Edit\n\
             \x20 stale       created   build.log           Bash, inferred\n\
             \x20 unverified  wrote     notes.md            Write, subagent general-purpose\n\
             \x20             read      tests/login.ts      Read\n\
             3 writes, 1 read; 1 written file changed since\n\
             note: Some tool calls were not recorded.\n"
        );
    }

    /// A turn from before the chat moved names the project its files are in.
    #[test]
    fn a_turn_from_before_a_move_names_its_project() {
        let now = Utc.with_ymd_and_hms(2026, 11, 3, 12, 0, 0).unwrap();
        let mut wrote = file("notes.txt", FileRole::Write, "wrote", "Write");
        wrote.status = Some(FileStatus::Current);
        let t = Touched {
            project_slug: "beta".into(),
            session_id: "5f0c2d8e-3b7a".into(),
            turns: vec![TouchedTurn {
                project_slug: Some("alpha".into()),
                prompt: None,
                job_id: "0193f4c2-7a1e".into(),
                started_at: "2026-11-03T09:14:02Z".into(),
                files: vec![wrote],
            }],
            notes: vec![],
        };
        assert_eq!(
            touched(&t, &now),
            "turn 0193f4c2  09:14  (in project alpha)\n\
             \x20 current     wrote     notes.txt  Write\n\
             1 write, 0 reads\n"
        );
    }

    #[test]
    fn a_chat_that_touched_nothing_says_so() {
        let now = Utc.with_ymd_and_hms(2026, 11, 3, 12, 0, 0).unwrap();
        let t = Touched {
            project_slug: String::new(),
            session_id: "5f0c2d8e-3b7a".into(),
            turns: vec![],
            notes: vec![],
        };
        assert_eq!(
            touched(&t, &now),
            "No recorded tool call of chat 5f0c2d8e touched a file.\n"
        );
    }
}
