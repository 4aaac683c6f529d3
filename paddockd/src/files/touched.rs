//! `provenance:touched`: the files a chat's turns read and wrote, turn by turn, and whether
//! each written file still is what the turn left.

use std::collections::HashMap;

use paddock_proto::{
    ErrorBody, ErrorCode, FileRole, ProvenanceTouched, Touched, TouchedFile, TouchedTurn,
};

use super::provenance::{blocking, label, short};
use crate::provenance::identity;
use crate::provenance::steps::{self, FileRecord, Line, Role, StepRecord};

/// `provenance:touched`.
pub async fn touched(
    d: &crate::chats::ChatService,
    r: ProvenanceTouched,
) -> Result<Touched, ErrorBody> {
    let project = d.project(&r.project_slug).await?;
    let owner = crate::chats::project_of(d, &r.session_id).await?;
    if owner.slug != project.slug {
        return Err(ErrorBody::new(
            ErrorCode::InvalidArgument,
            format!(
                "chat {} belongs to project {}, not {}",
                r.session_id,
                label(&owner.slug),
                label(&project.slug)
            ),
        ));
    }
    let lost = d.state.provenance.lost_events(&r.session_id);
    // Each turn's prompt, first line, from the run log: what a turn is, for a person.
    let prompts: HashMap<String, String> = d
        .state
        .runs
        .recent()
        .into_iter()
        .filter(|run| run.session_id == r.session_id)
        .filter_map(|run| Some((run.job_id, first_words(run.prompt.as_deref()?)?)))
        .collect();
    let max_hash_bytes = d.state.provenance.limits().max_hash_bytes;
    let private = d.cfg.private_state();
    // A chat moved from another project (`chat:promote`) left the steps of its turns there,
    // with the files they touched: those turns are listed too, named by that project.
    let others: Vec<crate::projects::Project> = d
        .projects
        .list()
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.slug != project.slug)
        .collect();
    blocking(move || {
        let mut gaps = 0u64;
        let mut records = Vec::new();
        let mut turns = Vec::new();
        for p in std::iter::once(&project).chain(&others) {
            let path = steps::steps_path(&p.meta_dir, &r.session_id);
            if p.slug != project.slug && !path.is_file() {
                continue;
            }
            let mut mine = Vec::new();
            for line in steps::read(&path).unwrap_or_default() {
                match line {
                    Line::Step(s) => mine.push(*s),
                    Line::Gap { dropped, .. } => gaps += dropped,
                }
            }
            mine.sort_by(|a, b| a.ended_at.cmp(&b.ended_at));
            let mut these = by_turn(&mine, r.job_id.as_deref(), |path| {
                super::provenance::hash_in_project(&private, p, path, max_hash_bytes)
            });
            if p.slug != project.slug {
                for t in &mut these {
                    t.project_slug = Some(p.slug.clone());
                }
            }
            turns.extend(these);
            records.extend(mine);
        }
        turns.sort_by(|a, b| a.started_at.cmp(&b.started_at));
        for turn in &mut turns {
            turn.prompt = prompts.get(&turn.job_id).cloned();
        }
        let mut notes = Vec::new();
        if gaps > 0 || lost {
            notes.push(format!(
                "Some tool calls of chat {} were not recorded (the recorder fell behind), so this list may be incomplete.",
                short(&r.session_id)
            ));
        }
        let unscanned = records
            .iter()
            .filter(|s| r.job_id.as_ref().is_none_or(|j| *j == s.job_id))
            .filter(|s| s.scan.is_some())
            .count();
        if unscanned > 0 {
            notes.push(format!(
                "{unscanned} tool call{} had no before/after scan, so files {} wrote may be missing here.",
                if unscanned == 1 { "" } else { "s" },
                if unscanned == 1 { "it" } else { "they" }
            ));
        }
        Ok(Touched {
            project_slug: project.slug.clone(),
            session_id: r.session_id,
            turns,
            notes,
        })
    })
    .await
}

/// A prompt's first non-blank line, cut to 80 characters (`…` where it was cut).
fn first_words(prompt: &str) -> Option<String> {
    let line = prompt.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(crate::text::cut(line, 80))
}

/// Groups a chat's steps (in time order) into turns, oldest first: each path once per role,
/// with the turn's last step on it. A write's status compares the turn's last hash of the file
/// with `now(path)`; paths outside the project are not checked.
fn by_turn(
    records: &[StepRecord],
    only: Option<&str>,
    mut now: impl FnMut(&str) -> identity::Hashed,
) -> Vec<TouchedTurn> {
    let mut turns: Vec<TouchedTurn> = Vec::new();
    // (turn index, path, role) → index in that turn's files, and the record behind it.
    let mut slots: HashMap<(usize, String, Role), usize> = HashMap::new();
    let mut last: Vec<Vec<(&StepRecord, &FileRecord)>> = Vec::new();
    let mut lead_seen: Vec<bool> = Vec::new();
    for s in records {
        if only.is_some_and(|j| j != s.job_id) {
            continue;
        }
        let t = match turns.iter().position(|t| t.job_id == s.job_id) {
            Some(t) => t,
            None => {
                turns.push(TouchedTurn {
                    project_slug: None,
                    job_id: s.job_id.clone(),
                    started_at: s.started_at.clone(),
                    files: Vec::new(),
                    prompt: None,
                });
                last.push(Vec::new());
                lead_seen.push(false);
                turns.len() - 1
            }
        };
        // A turn starts with its own first step; harvested subagent steps carry the times of
        // the subagent's transcript and only count when the turn has nothing else.
        let lead = s.specialist.is_none();
        let earlier = s.started_at < turns[t].started_at;
        if (lead && (!lead_seen[t] || earlier)) || (!lead_seen[t] && earlier) {
            turns[t].started_at.clone_from(&s.started_at);
        }
        lead_seen[t] |= lead;
        for f in &s.files {
            let file = TouchedFile {
                path: f.path.clone(),
                role: match f.role {
                    Role::Read => FileRole::Read,
                    Role::Write => FileRole::Write,
                },
                edge: f.edge,
                change: f.change.clone(),
                tool: s.tool.clone(),
                status: None,
                specialist: s.specialist.clone(),
            };
            match slots.entry((t, f.path.clone(), f.role)) {
                std::collections::hash_map::Entry::Occupied(slot) => {
                    turns[t].files[*slot.get()] = file;
                    last[t][*slot.get()] = (s, f);
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(turns[t].files.len());
                    turns[t].files.push(file);
                    last[t].push((s, f));
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..turns.len()).collect();
    order.sort_by(|&a, &b| turns[a].started_at.cmp(&turns[b].started_at));
    for (turn, records) in turns.iter_mut().zip(&last) {
        for (file, (s, f)) in turn.files.iter_mut().zip(records) {
            if file.role == FileRole::Write && !file.path.starts_with('/') {
                let (status, _) = identity::status(
                    Some((f, s.tool.as_str())),
                    s.specialist.is_some(),
                    &now(&file.path),
                );
                file.status = Some(status);
            }
        }
        turn.files.sort_by(|a, b| {
            (a.role == FileRole::Read, &a.path).cmp(&(b.role == FileRole::Read, &b.path))
        });
    }
    let mut slots: Vec<Option<TouchedTurn>> = turns.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use identity::Hashed;
    use paddock_proto::{FileEdge, FileStatus};

    fn record(job: &str, at: &str, tool: &str, files: Vec<FileRecord>) -> StepRecord {
        let mut s = steps::tests::step(1);
        s.job_id = job.into();
        s.started_at = at.into();
        s.ended_at = at.into();
        s.tool = tool.into();
        s.files = files;
        s
    }

    fn wrote(path: &str, hash: &str) -> FileRecord {
        FileRecord {
            path: path.into(),
            role: Role::Write,
            edge: FileEdge::Observed,
            change: "wrote".into(),
            hash: Some(hash.into()),
            unhashed: false,
        }
    }

    fn read(path: &str) -> FileRecord {
        FileRecord {
            path: path.into(),
            role: Role::Read,
            edge: FileEdge::Observed,
            change: "read".into(),
            hash: None,
            unhashed: false,
        }
    }

    #[test]
    fn files_group_by_turn_once_per_role_with_the_last_writes_status() {
        let records = vec![
            record("j1", "2026-01-01T00:00:01.000Z", "Read", vec![read("a.rs")]),
            record(
                "j1",
                "2026-01-01T00:00:02.000Z",
                "Write",
                vec![wrote("a.rs", "sha256:1")],
            ),
            record(
                "j1",
                "2026-01-01T00:00:03.000Z",
                "Edit",
                vec![wrote("a.rs", "sha256:2")],
            ),
            record(
                "j2",
                "2026-01-01T00:01:00.000Z",
                "Write",
                vec![wrote("b.rs", "sha256:9")],
            ),
        ];
        let disk = |p: &str| match p {
            "a.rs" => Hashed::Hash("sha256:2".into()),
            _ => Hashed::Hash("sha256:changed".into()),
        };
        let turns = by_turn(&records, None, disk);
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].job_id, "j1");
        assert_eq!(turns[0].started_at, "2026-01-01T00:00:01.000Z");
        let files: Vec<(&str, FileRole, &str, Option<FileStatus>)> = turns[0]
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.role, f.tool.as_str(), f.status))
            .collect();
        assert_eq!(
            files,
            vec![
                ("a.rs", FileRole::Write, "Edit", Some(FileStatus::Current)),
                ("a.rs", FileRole::Read, "Read", None),
            ]
        );
        assert_eq!(turns[1].files[0].status, Some(FileStatus::Stale));

        let only = by_turn(&records, Some("j2"), disk);
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].job_id, "j2");
    }
}
