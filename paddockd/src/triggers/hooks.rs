//! Hooks: the lifecycle dispatcher and the file watcher.
//!
//! The dispatcher follows `state.turn_ends` (every turn's end, each one, in order). `turn_completed` and
//! `turn_failed` fire for turns of chats in the hook's project; `child_finished` for a
//! turn (completed or failed) of a chat whose recorded parent is in the project. Hooks
//! cannot loop: a turn a trigger started never fires a hook, nor does any turn of a chat
//! the same hook started (or of one of that chat's descendants). A hook a chat's turn set off
//! counts against that turn's spawn tree's cap and runs at its depth (`capped.rs`), so a loop
//! through a chat the hook's chat messages stops at the cap.
//!
//! `archived` fires when a person (`chat:update`) or an agent (`archive_chat`) archives a chat
//! of the hook's project, with the chat as context ([`on_archived`]). The same guard holds: an
//! archive by a trigger's chat (or a chat it spawned) fires nothing, and a hook never fires for
//! a chat it started (or one descending from it).
//!
//! The file watcher keeps one recursive `notify` watch per project directory that has an
//! enabled `file_changed` hook. Changes under `.chats` and `.git` (and the project's own
//! `project.toml`) are ignored, the rest filtered by the hook's `paths` globs and collected
//! per hook until `debounce_secs` (default 5) pass without another: then the hook fires
//! once, its message listing the changed paths. Changes made while the hook's own run is
//! going are its own work and are dropped.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, MetadataKind, ModifyKind};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use paddock_proto::{HookEvent, RunStatus, TriggerKind};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::Ctx;
use super::Loaded;

use super::capped::SetOff;
use crate::turn_ends::{Follower, Next, TurnEnded};

/// Changed paths a `file_changed` message names before "and N more".
const LIST_PATHS: usize = 10;
/// Raw file events queued between the notify thread and the watcher task.
const FILE_QUEUE: usize = 1024;
/// How far up a chat's recorded parents the loop guard looks.
const ANCESTRY: usize = 16;
/// Entries of a newly created directory looked at for files made before its watch.
const NEW_DIR_ENTRIES: usize = 1000;

/// The lifecycle dispatcher: fires hooks on turn ends until shutdown.
pub async fn lifecycle(d: Arc<Ctx>, mut ends: Follower) {
    loop {
        let next = tokio::select! {
            () = d.shutdown.cancelled() => return,
            next = ends.next() => next,
        };
        match next {
            Next::Ended(ev) => on_turn_end(&d, &ev).await,
            Next::Missed(missed) => {
                tracing::error!(
                    missed,
                    "hooks were stuck so long that {missed} turn ends were dropped unfired"
                );
            }
        }
    }
}

/// Fires the `archived` hooks of each archive as it is told ([`crate::trigger_state::Archived`]),
/// one at a time, until the daemon stops.
pub async fn archives(
    d: Arc<Ctx>,
    mut archived: tokio::sync::mpsc::Receiver<crate::trigger_state::Archived>,
) {
    loop {
        let next = tokio::select! {
            () = d.shutdown.cancelled() => return,
            next = archived.recv() => next,
        };
        let Some(a) = next else { return };
        on_archived(&d, &[(a.session_id, a.project_slug)], a.by.as_deref()).await;
    }
}

fn title_of(d: &Ctx, sid: &str) -> String {
    d.state
        .title_now(sid)
        .and_then(|t| t.lines().next().map(|l| l.chars().take(80).collect()))
        .unwrap_or_default()
}

/// Whether chat `sid` of `project` is one the hook `name` of `hook_project` started, or
/// descends from one.
fn started_by(d: &Ctx, sid: &str, project: &str, hook_project: &str, name: &str) -> bool {
    let (mut sid, mut project) = (sid.to_owned(), project.to_owned());
    for _ in 0..ANCESTRY {
        let Some(p) = d.state.stores.run_provenance.get(&sid) else {
            return false;
        };
        if p.trigger.as_deref() == Some(name) && project == hook_project {
            return true;
        }
        match (p.parent_session_id, p.parent_project) {
            (Some(parent), Some(parent_project)) => {
                sid = parent;
                project = parent_project;
            }
            _ => return false,
        }
    }
    false
}

/// Whether chat `sid` is a trigger's chat or descends from one.
fn from_trigger(d: &Ctx, sid: &str) -> bool {
    let mut sid = sid.to_owned();
    for _ in 0..ANCESTRY {
        let Some(p) = d.state.stores.run_provenance.get(&sid) else {
            return false;
        };
        if p.trigger.is_some() {
            return true;
        }
        match p.parent_session_id {
            Some(parent) => sid = parent,
            None => return false,
        }
    }
    false
}

/// Fires the `archived` hooks for chats just archived: `chats` are (session, project slug)
/// pairs that were not archived before; `by` is the chat whose agent archived them
/// (`archive_chat`), `None` for a person.
async fn on_archived(d: &Arc<Ctx>, chats: &[(String, String)], by: Option<&str>) {
    // An archive a trigger's own run made never fires a hook: no hook can set off another.
    if by.is_some_and(|by| from_trigger(d, by)) {
        return;
    }
    // An agent's archive is its turn's work: the hook counts against that turn's tree.
    let set_off = by.map(|by| SetOff {
        session_id: by.to_owned(),
        lineage: d.state.lineages.current(&d.state.stores.run_provenance, by),
    });
    let who = match by {
        Some(by) => format!("by the agent of chat {by} \"{}\"", title_of(d, by)),
        None => "by a person".to_owned(),
    };
    for (sid, slug) in chats {
        let Ok(project) = d.projects.get(slug).await else {
            continue;
        };
        let hooks: Vec<Loaded> = super::load_project(d, &project)
            .into_iter()
            .filter(|h| {
                h.spec.kind == TriggerKind::Hook
                    && h.spec.enabled
                    && h.spec.on == Some(HookEvent::Archived)
            })
            .collect();
        if hooks.is_empty() {
            continue;
        }
        let title = title_of(d, sid);
        for hook in hooks {
            if started_by(d, sid, slug, slug, &hook.name) {
                continue;
            }
            let message = format!(
                "{}\n\nEvent: chat {sid} \"{title}\" was archived ({who}).",
                hook.spec.prompt
            );
            super::capped::fire_hook(d, &hook, message, set_off.clone()).await;
        }
    }
}

async fn on_turn_end(d: &Arc<Ctx>, ev: &TurnEnded) {
    // A trigger's own turns never fire hooks: no hook can set off another, or itself.
    if ev.trigger.is_some() {
        return;
    }
    let (event, status) = match ev.status {
        RunStatus::Completed => (HookEvent::TurnCompleted, "completed"),
        RunStatus::Failed => (HookEvent::TurnFailed, "failed"),
        _ => return,
    };
    let title = title_of(d, &ev.session_id);
    let mut wanted: Vec<(String, HookEvent, String)> = vec![(
        ev.project_slug.clone(),
        event,
        format!(
            "Event: a turn {status} in chat {} \"{title}\".",
            ev.session_id
        ),
    )];
    if let Some((parent_project, parent)) = &ev.parent {
        wanted.push((
            parent_project.clone(),
            HookEvent::ChildFinished,
            format!(
                "Event: child chat {} \"{title}\" of chat {parent} finished a turn ({status}).",
                ev.session_id
            ),
        ));
    }
    for (slug, event, context) in wanted {
        let Ok(project) = d.projects.get(&slug).await else {
            continue;
        };
        for hook in super::load_project(d, &project) {
            if hook.spec.kind != TriggerKind::Hook
                || !hook.spec.enabled
                || hook.spec.on != Some(event)
            {
                continue;
            }
            if started_by(d, &ev.session_id, &ev.project_slug, &slug, &hook.name) {
                continue;
            }
            let message = format!("{}\n\n{context}", hook.spec.prompt);
            // The ended turn set it off: it counts against that turn's tree.
            let set_off = ev.lineage.clone().map(|lineage| SetOff {
                session_id: ev.session_id.clone(),
                lineage,
            });
            super::capped::fire_hook(d, &hook, message, set_off).await;
        }
    }
}

/// A `file_changed` hook being watched.
struct FileHook {
    hook: Loaded,
    /// The project's directory, where the paths are relative to.
    root: PathBuf,
    /// The project's directory is its metadata folder (`project.toml` lives in it).
    meta_is_root: bool,
    debounce: Duration,
}

/// Changes collected for a hook, until its quiet time passes.
#[derive(Default)]
struct Pending {
    due: Option<Instant>,
    paths: BTreeSet<String>,
    /// Some changes were lost (the queue overflowed): they cannot be listed.
    unlisted: bool,
}

/// Whether a change at `rel` (relative to the project's directory) is never a hook's
/// business: the transcripts, git's own files, the daemon's writes of `project.toml`.
fn ignored(rel: &Path, meta_is_root: bool) -> bool {
    if rel
        .components()
        .any(|c| c.as_os_str() == ".chats" || c.as_os_str() == ".git")
    {
        return true;
    }
    if meta_is_root && rel.components().count() == 1 {
        let name = rel.to_string_lossy();
        let file = crate::projects::PROJECT_FILE;
        return name == file || name.starts_with(&crate::fsutil::temp_prefix(file));
    }
    false
}

/// Whether a notify event is a change (not an open or a read).
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Any | EventKind::Other => false,
    }
}

/// The message of a `file_changed` fire: the prompt and what changed.
fn changed_message(prompt: &str, p: &Pending) -> String {
    let listed: Vec<&str> = p
        .paths
        .iter()
        .take(LIST_PATHS)
        .map(String::as_str)
        .collect();
    let more = p.paths.len().saturating_sub(LIST_PATHS);
    if listed.is_empty() {
        return format!("{prompt}\n\nChanged: files in the project (not itemized).");
    }
    let mut text = listed.join(", ");
    if more > 0 {
        text = format!("{text} and {more} more");
    }
    if p.unlisted {
        text.push_str(" (and changes that could not be itemized)");
    }
    format!("{prompt}\n\nChanged: {text}.")
}

/// The file watcher: `file_changed` hooks, debounced, until shutdown.
pub async fn files(d: Arc<Ctx>) {
    let (tx, mut rx) = mpsc::channel::<notify::Event>(FILE_QUEUE);
    let overflow = Arc::new(AtomicBool::new(false));
    let mut generation = d.triggers.subscribe();
    let mut hooks: Vec<FileHook> = Vec::new();
    let mut watchers: HashMap<PathBuf, RecommendedWatcher> = HashMap::new();
    let mut pending: HashMap<String, Pending> = HashMap::new();
    let mut rescan = tokio::time::interval(super::schedule::RESCAN);
    rescan.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let next_due = pending.values().filter_map(|p| p.due).min();
        tokio::select! {
            () = d.shutdown.cancelled() => return,
            changed = generation.changed() => {
                if changed.is_err() {
                    return;
                }
                reload(&d, &mut hooks, &mut watchers, &mut pending, &tx, &overflow).await;
            }
            _ = rescan.tick() => {
                reload(&d, &mut hooks, &mut watchers, &mut pending, &tx, &overflow).await;
            }
            Some(ev) = rx.recv() => {
                if overflow.swap(false, Ordering::SeqCst) {
                    tracing::warn!("file events came faster than hooks could take them; some were not itemized");
                    for h in &hooks {
                        let p = pending.entry(h.hook.key()).or_default();
                        p.unlisted = true;
                        p.due = Some(Instant::now() + h.debounce);
                    }
                }
                take_event(&d, &hooks, &mut pending, &ev);
            }
            () = sleep_until(next_due), if next_due.is_some() => {
                fire_due(&d, &hooks, &mut pending).await;
            }
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Whether hook `h`'s own run is going (its changes are its own).
fn own_run_going(d: &Ctx, h: &FileHook) -> bool {
    d.state
        .runs
        .latest_for_trigger(&h.hook.project.slug, &h.hook.name)
        .is_some_and(|r| r.status == RunStatus::Running)
}

/// The files under a directory that was just created: they may have been written before
/// the watch on it was in place, so their own events never come.
fn files_in_new_dir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0;
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > NEW_DIR_ENTRIES {
                return out;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => out.push(e.path()),
                _ => {}
            }
        }
    }
    out
}

fn take_event(
    d: &Ctx,
    hooks: &[FileHook],
    pending: &mut HashMap<String, Pending>,
    ev: &notify::Event,
) {
    if !is_change(&ev.kind) {
        return;
    }
    let mut paths = ev.paths.clone();
    if matches!(ev.kind, EventKind::Create(_)) {
        for p in &ev.paths {
            if p.is_dir() {
                paths.extend(files_in_new_dir(p));
            }
        }
    }
    for h in hooks {
        let mut hit = Vec::new();
        for path in &paths {
            let Ok(rel) = path.strip_prefix(&h.root) else {
                continue;
            };
            if rel.as_os_str().is_empty() || ignored(rel, h.meta_is_root) {
                continue;
            }
            let rel = rel.to_string_lossy().into_owned();
            if h.hook.spec.paths.is_empty()
                || h.hook
                    .spec
                    .paths
                    .iter()
                    .any(|p| crate::glob::matches(p, &rel))
            {
                hit.push(rel);
            }
        }
        if hit.is_empty() || own_run_going(d, h) {
            continue;
        }
        let p = pending.entry(h.hook.key()).or_default();
        p.paths.extend(hit);
        p.due = Some(Instant::now() + h.debounce);
    }
}

async fn fire_due(d: &Ctx, hooks: &[FileHook], pending: &mut HashMap<String, Pending>) {
    let now = Instant::now();
    let due: Vec<String> = pending
        .iter()
        .filter(|(_, p)| p.due.is_some_and(|t| t <= now))
        .map(|(k, _)| k.clone())
        .collect();
    for key in due {
        let Some(p) = pending.remove(&key) else {
            continue;
        };
        let Some(h) = hooks.iter().find(|h| h.hook.key() == key) else {
            continue;
        };
        let message = changed_message(&h.hook.spec.prompt, &p);
        super::fire::fire_logged(
            d,
            &h.hook.project,
            &h.hook.name,
            &h.hook.spec,
            Some(message),
            None,
        )
        .await;
    }
}

/// Re-reads the `file_changed` hooks and watches exactly their projects' directories.
async fn reload(
    d: &Ctx,
    hooks: &mut Vec<FileHook>,
    watchers: &mut HashMap<PathBuf, RecommendedWatcher>,
    pending: &mut HashMap<String, Pending>,
    tx: &mpsc::Sender<notify::Event>,
    overflow: &Arc<AtomicBool>,
) {
    *hooks = super::load_all(d)
        .into_iter()
        .filter(|h| {
            h.spec.kind == TriggerKind::Hook
                && h.spec.enabled
                && h.spec.on == Some(HookEvent::FileChanged)
        })
        .map(|hook| FileHook {
            root: hook.project.agent_dir.clone(),
            meta_is_root: hook.project.meta_dir == hook.project.agent_dir
                || std::fs::canonicalize(&hook.project.meta_dir)
                    .is_ok_and(|m| m == hook.project.agent_dir),
            debounce: Duration::from_secs(
                hook.spec
                    .debounce_secs
                    .unwrap_or(super::spec::DEFAULT_DEBOUNCE_SECS),
            ),
            hook,
        })
        .collect();
    let keys: HashSet<String> = hooks.iter().map(|h| h.hook.key()).collect();
    pending.retain(|k, _| keys.contains(k));
    let dirs: HashSet<PathBuf> = hooks.iter().map(|h| h.root.clone()).collect();
    watchers.retain(|dir, _| dirs.contains(dir));
    for dir in dirs {
        if watchers.contains_key(&dir) {
            continue;
        }
        let (tx, overflow) = (tx.clone(), overflow.clone());
        let watch_dir = dir.clone();
        // Watching a large tree walks it: off the async threads.
        let made = tokio::task::spawn_blocking(move || {
            let handler = move |res: notify::Result<notify::Event>| match res {
                Ok(ev) => {
                    if tx.try_send(ev).is_err() {
                        overflow.store(true, Ordering::SeqCst);
                    }
                }
                Err(e) => tracing::debug!("file watch error: {e}"),
            };
            let mut w = RecommendedWatcher::new(
                handler,
                notify::Config::default().with_follow_symlinks(false),
            )?;
            w.watch(&watch_dir, RecursiveMode::Recursive)?;
            Ok::<_, notify::Error>(w)
        })
        .await;
        match made {
            Ok(Ok(w)) => {
                tracing::info!(dir = %dir.display(), "watching for file_changed hooks");
                watchers.insert(dir, w);
            }
            Ok(Err(e)) => {
                tracing::warn!(dir = %dir.display(), "cannot watch the project's files, so its file_changed hooks will not fire: {e}")
            }
            Err(e) => tracing::warn!(dir = %dir.display(), "cannot watch the project's files: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcripts_git_and_the_project_file_are_ignored() {
        assert!(ignored(Path::new(".chats/x.jsonl"), true));
        assert!(ignored(Path::new("sub/.git/index"), false));
        assert!(ignored(Path::new("project.toml"), true));
        assert!(ignored(Path::new(".project.toml.tmp-1-2"), true));
        assert!(!ignored(Path::new("project.toml"), false));
        assert!(!ignored(Path::new("docs/project.toml"), true));
        assert!(!ignored(Path::new("docs/a.md"), true));
    }

    #[test]
    fn the_message_lists_a_few_paths_then_counts() {
        let mut p = Pending {
            paths: (0..13).map(|i| format!("f{i:02}.md")).collect(),
            ..Pending::default()
        };
        let m = changed_message("Check.", &p);
        assert!(m.starts_with("Check.\n\nChanged: f00.md, f01.md"), "{m}");
        assert!(m.ends_with("f09.md and 3 more."), "{m}");
        p.paths = ["a.md".to_owned()].into();
        assert_eq!(changed_message("Check.", &p), "Check.\n\nChanged: a.md.");
    }
}
