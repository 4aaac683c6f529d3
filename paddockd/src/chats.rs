//! Chat lists, transcripts and chat-list actions, answered from the live index and the sidecar
//! stores — never by re-reading every transcript.
//!
//! A listing joins, per chat: the index's derived fields (title, times, model, counts, usage),
//! run provenance (origin, depth, recorded parent), the flags (archived, starred, detached), the
//! asking user's read state, and the running set from the hub; then lays the rows out as the
//! nested tree (`tree.rs`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use paddock_proto::{
    Attribution, BATCH_SESSIONS_MAX, ChatAction, ChatFork, ChatImport, ChatSummary, ChatUpdate,
    ChatUsage, ErrorBody, ErrorCode, Forked, ImportSkip, Imported, Origin, RowView, Transcript,
    TranscriptEntry, Updated,
};

use crate::config::Config;
use crate::hub::Hub;
use crate::index::{Facts, IndexedChat, display_title};
use crate::projects::{Project, Projects, project_error};
use crate::state::{ChatState, now_ms, title_of};
use crate::stores::{Injection, RunProvenance};
use crate::transcripts;
use crate::tree::{self, ChatRef, Recorded};
use crate::trigger_state::Triggers;

mod actions;
mod inputs;
mod list;
mod rows;
pub mod search;

use inputs::Inputs;
pub use inputs::LastBuilt;
pub use list::{list, list_answer, subtree};
use rows::KeptRow;
pub use rows::KeptRows;

pub(crate) use actions::archive_one;
pub use actions::{delete, fork, fork_as, import, set_queue, update};

/// The chat service: listings, transcripts, search and what is done to chats. Its handles:
/// the configuration, the chat state, the projects, the hub (which chats run, and where
/// changes are announced) and the triggers (told when chats are archived).
#[derive(Clone)]
pub struct ChatService {
    pub cfg: Arc<Config>,
    pub state: Arc<ChatState>,
    pub projects: Projects,
    pub hub: Hub,
    pub triggers: Triggers,
    /// For each listing, the inputs its newest revision was built from.
    pub last_built: LastBuilt,
    /// The rows made for each user's listings, refreshed by the next (`chats/rows.rs`).
    pub kept_rows: KeptRows,
}

impl ChatService {
    /// A project by slug (`""` is the root workspace), as a protocol error if missing.
    pub async fn project(&self, slug: &str) -> Result<Project, ErrorBody> {
        self.projects.get(slug).await.map_err(project_error)
    }
}

/// Everything a listing joins: its inputs, and what the run log says of each chat's newest
/// run.
struct Joined {
    inputs: Arc<Inputs>,
    /// Chats whose newest run was cut short (claude died, or the daemon stopped), and why.
    interrupted: HashMap<String, Option<String>>,
    /// Chats whose newest run failed.
    failed: HashSet<String>,
}

impl Joined {
    /// Chats the index may not know, with their project: those running (a first turn, before
    /// the CLI wrote the transcript) and those whose first message claude never wrote.
    fn unlisted(&self) -> impl Iterator<Item = (&str, &str)> {
        self.inputs
            .running
            .iter()
            .map(|(sid, slug)| (sid.as_str(), slug.as_str()))
            .chain(
                self.inputs
                    .unwritten
                    .iter()
                    .map(|(sid, f)| (sid.as_str(), f.project_slug.as_str())),
            )
    }

    /// `Some(why)` when the chat's newest run was cut short and it is not running again.
    fn interrupted_reason(&self, sid: &str) -> Option<Option<&str>> {
        if self.inputs.running.contains_key(sid) {
            return None;
        }
        self.interrupted.get(sid).map(Option::as_deref)
    }

    /// The chats whose rows may differ between rows joined by `old` and by `self` (see
    /// [`Inputs::changed_since`]); `None` when every row may.
    fn changed_since(&self, old: &Joined) -> Option<HashSet<String>> {
        let mut changed = self.inputs.changed_since(&old.inputs)?;
        inputs::differ(&old.interrupted, &self.interrupted, &mut changed);
        inputs::differ(&old.failed, &self.failed, &mut changed);
        Some(changed)
    }

    fn of(d: &ChatService, inputs: Arc<Inputs>) -> Self {
        let (interrupted, failed) = newest_runs(&d.state.runs);
        Self {
            inputs,
            interrupted,
            failed,
        }
    }

    /// The parent a chat is drawn under (recorded, else inferred), by `tree.rs`'s rules.
    fn parent_of(&self, sid: &str) -> Option<ChatRef> {
        let recorded = self.inputs.provenance.get(sid).map(|p| Recorded {
            origin: p.origin,
            depth: p.depth,
            parent_session_id: p.parent_session_id.as_deref(),
            parent_project: p.parent_project.as_deref(),
        });
        tree::resolve_parent(
            sid,
            self.inputs.detached.contains(sid),
            recorded,
            inferred_parent(self.inputs.injections.get(sid).map(Vec::as_slice)),
        )
    }

    /// The one rule for unread: flagged unread by the user, or active since they last saw it,
    /// except while a turn streams into a client that has the chat open (subscribed): that is
    /// being read as it arrives. (The turn's end is marked read by the client that shows it.)
    fn is_unread(&self, sid: &str, last_activity_ms: i64) -> bool {
        let seen = self.inputs.user_seen.get(sid).copied().unwrap_or(0);
        let streaming_to_a_reader =
            self.inputs.running.contains_key(sid) && self.inputs.watched.contains(sid);
        self.inputs.user_unread.contains(sid) || (last_activity_ms > seen && !streaming_to_a_reader)
    }

    fn row(&self, project_slug: &str, c: &Facts<'_>) -> ChatSummary {
        let g = &c.glance;
        let prov = self.inputs.provenance.get(g.session_id);
        let title = display_title(title_of(g.custom_title, prov, g.title), g.session_id);
        let usage = usage_of(c);
        ChatSummary {
            title,
            ..self.view(project_slug, c, usage.as_ref()).to_summary()
        }
    }

    /// The row kept for a listing ([`KeptRow::titled`]), made without copying its texts.
    fn kept_row(&self, project_slug: &str, c: &Facts<'_>, version: u64) -> Arc<KeptRow> {
        let g = &c.glance;
        let prov = self.inputs.provenance.get(g.session_id);
        let title = title_of(g.custom_title, prov, g.title).trim();
        let usage = usage_of(c);
        let view = self.view(project_slug, c, usage.as_ref());
        if title.is_empty() {
            let fallback = display_title(title, g.session_id);
            KeptRow::titled(view, &fallback, Some(version))
        } else {
            KeptRow::titled(view, title, Some(version))
        }
    }

    /// The row of an indexed chat, borrowed from its facts and the inputs, untitled (its
    /// title is the caller's); `usage` is [`usage_of`] the facts.
    fn view<'a>(
        &'a self,
        project_slug: &'a str,
        c: &'a Facts<'_>,
        usage: Option<&'a ChatUsage>,
    ) -> RowView<'a> {
        let g = &c.glance;
        let sid = g.session_id;
        let prov = self.inputs.provenance.get(sid);
        let interrupted = self.interrupted_reason(sid);
        RowView {
            session_id: sid,
            project_slug,
            title: "",
            title_cut: false,
            origin: prov.map_or(Origin::Human, |p| p.origin),
            depth: prov.map_or(0, |p| p.depth),
            parent_session_id: prov.and_then(|p| p.parent_session_id.as_deref()),
            parent_project: prov.and_then(|p| p.parent_project.as_deref()),
            created_at: created_at(prov, c.created_at),
            updated_at: g.updated_at.as_deref(),
            model: c.model,
            message_count: c.message_count,
            running: self.inputs.running.contains_key(sid),
            unread: self.is_unread(sid, g.last_activity_ms),
            archived: self.inputs.archived.contains(sid),
            starred: self.inputs.starred.contains(sid),
            detached: self.inputs.detached.contains(sid),
            fork: prov.is_some_and(|p| p.fork),
            worktree: self.inputs.worktrees.get(sid).map(|r| &r.worktree),
            overlaps: self
                .inputs
                .overlaps
                .chats
                .get(sid)
                .map_or(&[], |o| o.with.as_slice()),
            trigger: prov.and_then(|p| p.trigger.as_deref()),
            usage,
            queued: self.inputs.queued.get(sid).map(|q| q.message.as_str()),
            interrupted: interrupted.is_some(),
            interrupted_reason: interrupted.flatten(),
            waiting_approval: self.inputs.approvals.contains(sid),
            waiting_process: self.inputs.waiting_process.contains(sid),
            failed: self.failed.contains(sid) && !self.inputs.running.contains_key(sid),
            parked: self.inputs.parked.get(sid).map(|p| p.message.as_str()),
            status: c.last_reply,
        }
    }

    /// A row for a chat whose transcript the CLI has not written yet: running its first turn,
    /// or cut short before claude wrote its first message (kept in `stores::first_message`).
    fn starting_row(&self, project_slug: &str, sid: &str, d: &ChatService) -> ChatSummary {
        let prov = self.inputs.provenance.get(sid);
        let prompt = self
            .inputs
            .unwritten
            .get(sid)
            .map(|f| f.message.clone())
            .or_else(|| {
                d.state
                    .runs
                    .recent()
                    .into_iter()
                    .find(|r| r.session_id == sid)
                    .and_then(|r| r.prompt)
            });
        let interrupted = self.interrupted_reason(sid);
        ChatSummary {
            session_id: sid.to_owned(),
            project_slug: project_slug.to_owned(),
            title: display_title(
                prov.and_then(|p| p.title.as_deref())
                    .or(prompt.as_deref())
                    .unwrap_or(""),
                sid,
            ),
            origin: prov.map_or(Origin::Human, |p| p.origin),
            depth: prov.map_or(0, |p| p.depth),
            parent_session_id: prov.and_then(|p| p.parent_session_id.clone()),
            parent_project: prov.and_then(|p| p.parent_project.clone()),
            created_at: prov.and_then(|p| p.created_at.clone()),
            running: self.inputs.running.contains_key(sid),
            unread: self.inputs.user_unread.contains(sid),
            archived: self.inputs.archived.contains(sid),
            starred: self.inputs.starred.contains(sid),
            detached: self.inputs.detached.contains(sid),
            fork: prov.is_some_and(|p| p.fork),
            worktree: self.inputs.worktrees.get(sid).map(|r| r.worktree.clone()),
            overlaps: self
                .inputs
                .overlaps
                .chats
                .get(sid)
                .map(|o| o.with.clone())
                .unwrap_or_default(),
            trigger: prov.and_then(|p| p.trigger.clone()),
            interrupted: interrupted.is_some(),
            interrupted_reason: interrupted.flatten().map(str::to_owned),
            waiting_approval: self.inputs.approvals.contains(sid),
            waiting_process: self.inputs.waiting_process.contains(sid),
            ..ChatSummary::default()
        }
    }
}

/// When a chat was made, which orders it among its siblings: when the daemon made it (its
/// provenance stamp: a new chat, a fork, a spawned chat), else when its transcript began (a
/// chat the daemon did not make: adopted, whose stamp is only the file's last write, or one
/// with no provenance). A fork's transcript is a copy that begins when its source began.
fn created_at<'a>(
    prov: Option<&'a RunProvenance>,
    transcript_began: Option<&'a str>,
) -> Option<&'a str> {
    let stamped = prov
        .filter(|p| p.origin != Origin::Adopted)
        .and_then(|p| p.created_at.as_deref());
    stamped
        .or(transcript_began)
        .or_else(|| prov.and_then(|p| p.created_at.as_deref()))
}

/// A chat's usage as its row shows it: `None` before it used any tokens.
fn usage_of(c: &Facts<'_>) -> Option<ChatUsage> {
    let u = &c.usage;
    (u.context_tokens > 0 || u.output_tokens > 0).then_some(ChatUsage {
        context_tokens: u.context_tokens,
        context_limit: u.context_limit,
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_read_tokens: u.cache_read_tokens,
        cache_creation_tokens: u.cache_creation_tokens,
        cost_usd: u.cost_usd,
    })
}

/// What the chats' newest runs say: those cut short (with why), and those that failed.
fn newest_runs(
    runs: &crate::run_log::RunLog,
) -> (HashMap<String, Option<String>>, HashSet<String>) {
    use paddock_proto::RunStatus;
    let mut seen = HashSet::new();
    let (mut interrupted, mut failed) = (HashMap::new(), HashSet::new());
    for run in runs.recent() {
        if run.status == RunStatus::Skipped || !seen.insert(run.session_id.clone()) {
            continue;
        }
        match run.status {
            RunStatus::Interrupted => {
                interrupted.insert(run.session_id, run.reason);
            }
            RunStatus::Failed => {
                failed.insert(run.session_id);
            }
            _ => {}
        }
    }
    (interrupted, failed)
}

/// The first chat that sent this chat a message: the inferred parent edge.
fn inferred_parent(injections: Option<&[Injection]>) -> Option<ChatRef> {
    injections?.iter().find_map(|inj| match &inj.source {
        Attribution::Sent {
            from_session_id,
            from_project,
            ..
        } => Some(ChatRef {
            project: from_project.clone(),
            session_id: from_session_id.clone(),
        }),
        _ => None,
    })
}

/// The project chat `sid` belongs to (see [`locate`]), with the chats running now.
pub(crate) async fn project_of(d: &ChatService, sid: &str) -> Result<Project, ErrorBody> {
    let running = d.hub.running().await;
    Ok(locate(d, sid, &running).await?.0)
}

/// The project a chat belongs to and its indexed entry. A chat the index does not know is
/// found only while it runs (its first turn, before the CLI wrote its transcript) or while its
/// first message is kept unwritten (`stores::first_message`): one that ran once and was
/// deleted since is not found, so nothing can flag it again.
pub(crate) async fn locate(
    d: &ChatService,
    sid: &str,
    running: &HashMap<String, String>,
) -> Result<(Project, Option<IndexedChat>), ErrorBody> {
    let not_found = || {
        ErrorBody::new(
            ErrorCode::NotFound,
            format!("no chat {sid}; `paddock ls --all` lists the chats"),
        )
    };
    let projects = d.projects.list().map_err(project_error)?;
    if let Some(chat) = d.state.listed().await.get(sid) {
        let project = projects
            .into_iter()
            .find(|p| d.state.folder_of(p) == chat.folder)
            .ok_or_else(not_found)?;
        return Ok((project, Some(chat)));
    }
    let slug = match running.get(sid) {
        Some(slug) => slug.clone(),
        None => {
            d.state
                .stores
                .first_message
                .get(sid)
                .ok_or_else(not_found)?
                .project_slug
        }
    };
    let project = projects
        .into_iter()
        .find(|p| p.slug == slug)
        .ok_or_else(not_found)?;
    Ok((project, None))
}

/// How many chats a `chat:resolve` prefix lists (a sixth says "more than five").
const RESOLVE_SHOWN: usize = 6;

/// `chat:resolve`: the chats each prefix names, from the index, the running chats and those
/// whose first message claude has not written (a new chat is found before its transcript
/// exists). No transcript is read.
pub async fn resolve(
    d: &ChatService,
    r: paddock_proto::ChatResolve,
) -> Result<paddock_proto::Resolved, ErrorBody> {
    use paddock_proto::{ResolvedChat, ResolvedPrefix};
    if r.prefixes.is_empty() || r.prefixes.len() > 500 {
        return Err(ErrorBody::new(
            ErrorCode::InvalidArgument,
            format!("give 1 to 500 prefixes, not {}", r.prefixes.len()),
        ));
    }
    let projects = d.projects.list().map_err(project_error)?;
    let slug_of: HashMap<std::path::PathBuf, String> = projects
        .iter()
        .map(|p| (d.state.folder_of(p), p.slug.clone()))
        .collect();
    let running = d.hub.running().await;
    let index = d.state.listed().await;
    let prefixes = r
        .prefixes
        .into_iter()
        .map(|prefix| {
            let (indexed, total) = index.starting_with(&prefix, RESOLVE_SHOWN);
            let mut chats: Vec<ResolvedChat> = indexed
                .into_iter()
                .filter_map(|c| {
                    Some(ResolvedChat {
                        project_slug: slug_of.get(&c.folder)?.clone(),
                        title: c.title,
                        session_id: c.session_id,
                    })
                })
                .collect();
            let mut more = total.saturating_sub(chats.len());
            let wanted = prefix.to_ascii_lowercase();
            // Not indexed yet: running (a first turn), or its first message kept unwritten
            // (cut short before claude wrote it, or its worktree's setup failed).
            let unwritten = d.state.stores.first_message.all();
            let unindexed = running.iter().chain(
                unwritten
                    .iter()
                    .filter(|(sid, _)| !running.contains_key(*sid))
                    .map(|(sid, m)| (sid, &m.project_slug)),
            );
            for (sid, slug) in unindexed {
                let named = sid.to_ascii_lowercase().starts_with(&wanted);
                if !named || chats.iter().any(|c| &c.session_id == sid) || index.get(sid).is_some()
                {
                    continue;
                }
                if chats.len() < RESOLVE_SHOWN {
                    chats.push(ResolvedChat {
                        session_id: sid.clone(),
                        project_slug: slug.clone(),
                        title: String::new(),
                    });
                } else {
                    more += 1;
                }
            }
            chats.sort_by(|a, b| a.session_id.cmp(&b.session_id));
            ResolvedPrefix {
                prefix,
                chats,
                more: u32::try_from(more).unwrap_or(u32::MAX),
            }
        })
        .collect();
    Ok(paddock_proto::Resolved { prefixes })
}

/// The full rendering of one chat, with the attribution of machine-injected turns.
pub async fn transcript(d: &ChatService, user: &str, sid: &str) -> Result<Transcript, ErrorBody> {
    let inputs = Inputs::take(d, user, Vec::new()).await;
    let joined = Joined::of(d, Arc::new(inputs));
    let (project, indexed) = locate(d, sid, &joined.inputs.running).await?;
    let Some(indexed) = indexed else {
        let chat = joined.starting_row(&project.slug, sid, d);
        // Cut short before claude wrote anything: the message is all there is of it. (While
        // it runs, the live turn's replay brings the message.)
        let mut entries = joined
            .inputs
            .unwritten
            .get(sid)
            .filter(|_| !chat.running)
            .map(|first| TranscriptEntry::User {
                uuid: None,
                timestamp: Some(first.set_at.clone()),
                text: first.message.clone(),
                attribution: first.attribution.clone(),
            })
            .into_iter()
            .collect::<Vec<_>>();
        if !entries.is_empty() {
            let streamed = d.state.streamed.clone();
            let sid = sid.to_owned();
            let kept = tokio::task::spawn_blocking(move || streamed.kept(&sid))
                .await
                .unwrap_or_default();
            crate::streamed::merge(&mut entries, kept);
        }
        return Ok(Transcript { chat, entries });
    };
    let mut chat = joined.row(&project.slug, &indexed.facts());
    chat.tree_parent = joined.parent_of(sid).map(|p| p.session_id);
    let path = indexed.path.clone();
    let injections = d.state.stores.message_provenance.list(sid);
    let streamed = d.state.streamed.clone();
    let sid = sid.to_owned();
    let entries = tokio::task::spawn_blocking(move || {
        let mut entries = transcripts::render(&path).map_err(|e| {
            ErrorBody::new(
                ErrorCode::Internal,
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        attribute(&mut entries, &injections);
        crate::streamed::merge(&mut entries, streamed.kept(&sid));
        Ok::<_, ErrorBody>(entries)
    })
    .await
    .map_err(|e| {
        ErrorBody::new(
            ErrorCode::Internal,
            format!("reading the transcript failed: {e}"),
        )
    })??;
    Ok(Transcript { chat, entries })
}

/// Labels machine-injected user turns. An injection recorded with the message id the daemon
/// gave the turn matches that transcript row exactly; one without an id matches the next user
/// row with exactly its text, in order. A human-typed turn matches nothing.
pub fn attribute(entries: &mut [TranscriptEntry], injections: &[Injection]) {
    let by_id: HashMap<&str, &Injection> = injections
        .iter()
        .filter_map(|i| i.message_id.as_deref().map(|id| (id, i)))
        .collect();
    let by_text: Vec<&Injection> = injections
        .iter()
        .filter(|i| i.message_id.is_none())
        .collect();
    let mut next = 0;
    for entry in entries.iter_mut() {
        let TranscriptEntry::User {
            uuid,
            text,
            attribution,
            ..
        } = entry
        else {
            continue;
        };
        if let Some(inj) = uuid.as_deref().and_then(|u| by_id.get(u)) {
            *attribution = Some(inj.source.clone());
            continue;
        }
        if let Some(k) = by_text[next..].iter().position(|i| i.text == *text) {
            *attribution = Some(by_text[next + k].source.clone());
            next += k + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn user(uuid: &str, text: &str) -> TranscriptEntry {
        TranscriptEntry::User {
            uuid: Some(uuid.into()),
            timestamp: None,
            text: text.into(),
            attribution: None,
        }
    }

    fn inj(text: &str, id: Option<&str>, source: Attribution) -> Injection {
        Injection {
            text: text.into(),
            source,
            at: "2026-11-29T00:00:00Z".into(),
            message_id: id.map(Into::into),
        }
    }

    fn attributions(entries: &[TranscriptEntry]) -> Vec<Option<Attribution>> {
        entries
            .iter()
            .map(|e| match e {
                TranscriptEntry::User { attribution, .. } => attribution.clone(),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn injected_turns_are_attributed_and_typed_ones_are_not() {
        let nightly = Attribution::Scheduled {
            name: "nightly".into(),
        };
        let sent = Attribution::Sent {
            from_session_id: "m".into(),
            from_project: String::new(),
            from_title: None,
        };
        let mut entries = vec![
            user("u1", "check the backups"),
            user("u2", "check the backups"),
            user("u3", "report: all green"),
            user("u4", "thanks"),
        ];
        let injections = vec![
            // Recorded with its message id: only that row matches, though u1 has the same text.
            inj("check the backups", Some("u2"), nightly.clone()),
            // Recorded before message ids existed: matched by exact text, in order.
            inj("report: all green", None, sent.clone()),
        ];
        attribute(&mut entries, &injections);
        assert_eq!(
            attributions(&entries),
            vec![None, Some(nightly), Some(sent), None]
        );
    }

    #[test]
    fn a_human_message_never_matches() {
        let mut entries = vec![user("u1", "hello"), user("u2", "Hello")];
        let injections = vec![inj("hello there", None, Attribution::Recovery)];
        attribute(&mut entries, &injections);
        assert_eq!(attributions(&entries), vec![None, None]);
    }

    #[test]
    fn titles_fall_back_to_the_id() {
        assert_eq!(
            display_title("  ", "5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90"),
            "Chat 5f0c2d8e"
        );
        assert_eq!(display_title("Fix it", "x"), "Fix it");
    }
}
