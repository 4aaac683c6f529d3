//! Conflicts seen early: two chats of a project that changed the same files, found when it
//! happens rather than at merge time. A worktree chat's files are its work (`work.rs`, kept
//! in its record); a chat of the shared checkout's are the files its steps wrote (file
//! provenance) that are changed in the checkout now (uncommitted), among the chats that ran in
//! the last [`RECENT`] (at most [`RECENT_CHATS`] of them). Worked out per project after each
//! turn and each `worktree:*` request (`worktrees.rs`); each chat's overlaps are kept
//! (`stores/overlaps.rs`) for its listing row and `worktree ls`, and a pair is said once in an
//! `attention` notification when it first overlaps.

use std::collections::{BTreeMap, BTreeSet};

use paddock_proto::{Attention, AttentionKind, ChatOverlap, ErrorBody, Origin};

use super::Git;
use super::scope::{blocking, short, written_files};
use super::status::changes;
use crate::chats::ChatService;

/// How far back a shared-checkout chat's run counts.
pub const RECENT: chrono::Duration = chrono::Duration::hours(24);
/// The most shared-checkout chats looked at (the most recent).
pub const RECENT_CHATS: usize = 32;

/// Works project `slug`'s overlaps out again, keeps them, and says new pairs.
pub async fn refresh_project(d: &ChatService, slug: &str) {
    let changed = match changed_by_chat(d, slug).await {
        Ok(c) => c,
        Err(e) => {
            tracing::debug!(project = %slug, "overlaps not worked out: {}", e.message);
            return;
        }
    };
    let now = pairs(&changed);
    match d.state.stores.overlaps.set_project(slug, now).await {
        Ok((changed, new)) => {
            for (a, b, files) in new {
                say(d, slug, &a, &b, &files).await;
            }
            if changed {
                d.hub.chats_changed(slug, None).await;
            }
        }
        Err(e) => tracing::warn!(project = %slug, "cannot keep the overlaps: {e}"),
    }
}

/// Each chat's overlaps: the other chats that changed some of its files, and those files.
pub(super) fn pairs(
    changed: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeMap<String, Vec<ChatOverlap>> {
    let mut out: BTreeMap<String, Vec<ChatOverlap>> = BTreeMap::new();
    for (a, fa) in changed {
        for (b, fb) in changed {
            if a == b {
                continue;
            }
            let files: Vec<String> = fa.intersection(fb).cloned().collect();
            if !files.is_empty() {
                out.entry(a.clone()).or_default().push(ChatOverlap {
                    session_id: b.clone(),
                    files,
                });
            }
        }
    }
    out
}

/// The files each chat of the project changed and has not merged (or committed).
async fn changed_by_chat(
    d: &ChatService,
    slug: &str,
) -> Result<BTreeMap<String, BTreeSet<String>>, ErrorBody> {
    let mut out = BTreeMap::new();
    for (sid, rec) in d.state.stores.worktrees.all().iter() {
        if rec.project == slug && !rec.worktree.missing && !rec.worktree.changed_files.is_empty() {
            out.insert(
                sid.clone(),
                rec.worktree.changed_files.iter().cloned().collect(),
            );
        }
    }
    let shared = recent_shared_chats(d, slug);
    if shared.is_empty() {
        return Ok(out);
    }
    let project = d.project(slug).await?;
    let (dir, meta) = (project.agent_dir.clone(), project.meta_dir.clone());
    let found = blocking(move || {
        let git = Git { dir: &dir };
        let Some(prefix) = git.prefix()? else {
            return Ok(Vec::new());
        };
        let dirty: BTreeSet<String> = changes(&git, &prefix, None)?
            .files
            .into_iter()
            .map(|f| f.path)
            .collect();
        let mut found = Vec::new();
        for sid in shared {
            let wrote = written_files(&meta, std::slice::from_ref(&sid), None).paths;
            let files: BTreeSet<String> = wrote.into_iter().filter(|p| dirty.contains(p)).collect();
            if !files.is_empty() {
                found.push((sid, files));
            }
        }
        Ok(found)
    })
    .await?;
    out.extend(found);
    Ok(out)
}

/// The chats of the project's shared checkout that ran lately, newest first.
fn recent_shared_chats(d: &ChatService, slug: &str) -> Vec<String> {
    let since = chrono::Utc::now() - RECENT;
    let worktrees = d.state.stores.worktrees.all();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut runs = d.state.runs.recent();
    runs.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    for run in runs {
        if run.project_slug != slug || worktrees.contains_key(&run.session_id) {
            continue;
        }
        let recent =
            chrono::DateTime::parse_from_rfc3339(&run.started_at).is_ok_and(|t| t >= since);
        if recent && seen.insert(run.session_id.clone()) {
            out.push(run.session_id);
            if out.len() == RECENT_CHATS {
                break;
            }
        }
    }
    out
}

/// One notification for a pair that started to overlap.
async fn say(d: &ChatService, slug: &str, a: &str, b: &str, files: &[String]) {
    let title = |sid: &str| {
        d.state
            .title_now(sid)
            .unwrap_or_else(|| format!("chat {}", short(sid)))
    };
    let origin = d
        .state
        .stores
        .run_provenance
        .get(a)
        .map_or(Origin::Human, |p| p.origin);
    d.hub
        .attention(Attention {
            id: format!("overlap:{a}|{b}"),
            kind: AttentionKind::Overlap,
            project_slug: slug.to_owned(),
            session_id: a.to_owned(),
            job_id: None,
            origin,
            title: title(a),
            body: format!(
                "Changed the same files as chat {} ({}): {}",
                short(b),
                crate::text::cut(&title(b), 40),
                super::merge::some_files(files)
            ),
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        })
        .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_chat_names_the_others_and_the_shared_files() {
        let set = |f: &[&str]| f.iter().map(|s| (*s).to_owned()).collect::<BTreeSet<_>>();
        let changed = BTreeMap::from([
            ("a".to_owned(), set(&["x.rs", "y.rs"])),
            ("b".to_owned(), set(&["y.rs", "z.rs"])),
            ("c".to_owned(), set(&["w.rs"])),
        ]);
        let p = pairs(&changed);
        assert_eq!(
            p["a"],
            [ChatOverlap {
                session_id: "b".into(),
                files: vec!["y.rs".into()]
            }]
        );
        assert_eq!(p["b"][0].session_id, "a");
        assert!(!p.contains_key("c"));
    }
}
