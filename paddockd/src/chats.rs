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
    Attribution, BATCH_SESSIONS_MAX, ChatAction, ChatFork, ChatImport, ChatScope, ChatSummary,
    ChatUpdate, ChatUsage, ErrorBody, ErrorCode, Forked, ImportSkip, Imported, Origin, Transcript,
    TranscriptEntry, Updated,
};

use crate::config::Config;
use crate::hub::Hub;
use crate::index::{IndexedChat, display_title};
use crate::projects::{Project, Projects, project_error};
use crate::state::{ChatState, now_ms};
use crate::stores::{Injection, RunProvenance};
use crate::transcripts;
use crate::tree::{self, ChatRef, Recorded};
use crate::trigger_state::Triggers;

mod actions;
mod inputs;
mod rows;
pub mod search;

pub use inputs::LastBuilt;
use inputs::{Inputs, ListingKey};
pub use rows::KeptRows;
use rows::{Kept, KeptRow};

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
    fn interrupted_reason(&self, sid: &str) -> Option<Option<String>> {
        if self.inputs.running.contains_key(sid) {
            return None;
        }
        self.interrupted.get(sid).cloned()
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

    fn row(&self, project_slug: &str, c: &IndexedChat) -> ChatSummary {
        let sid = c.session_id.as_str();
        let prov = self.inputs.provenance.get(sid);
        let usage =
            (c.usage.context_tokens > 0 || c.usage.output_tokens > 0).then_some(ChatUsage {
                context_tokens: c.usage.context_tokens,
                context_limit: c.usage.context_limit,
                input_tokens: c.usage.input_tokens,
                output_tokens: c.usage.output_tokens,
                cache_read_tokens: c.usage.cache_read_tokens,
                cache_creation_tokens: c.usage.cache_creation_tokens,
                cost_usd: c.usage.cost_usd,
            });
        ChatSummary {
            session_id: c.session_id.clone(),
            project_slug: project_slug.to_owned(),
            title: display_title(crate::state::chat_title(c, prov), sid),
            origin: prov.map_or(Origin::Human, |p| p.origin),
            depth: prov.map_or(0, |p| p.depth),
            parent_session_id: prov.and_then(|p| p.parent_session_id.clone()),
            parent_project: prov.and_then(|p| p.parent_project.clone()),
            created_at: created_at(prov, c.created_at.as_deref()),
            updated_at: c.updated_at.clone(),
            model: c.model.clone(),
            message_count: c.message_count,
            running: self.inputs.running.contains_key(sid),
            unread: self.is_unread(sid, c.last_activity_ms),
            archived: self.inputs.archived.contains(sid),
            starred: self.inputs.starred.contains(sid),
            detached: self.inputs.detached.contains(sid),
            trigger: prov.and_then(|p| p.trigger.clone()),
            tree_parent: None,
            level: 0,
            children: Vec::new(),
            usage,
            queued: self.inputs.queued.get(sid).map(|q| q.message.clone()),
            interrupted: self.interrupted_reason(sid).is_some(),
            interrupted_reason: self.interrupted_reason(sid).flatten(),
            waiting_approval: self.inputs.approvals.contains(sid),
            waiting_process: self.inputs.waiting_process.contains(sid),
            failed: self.failed.contains(sid) && !self.inputs.running.contains_key(sid),
            parked: self.inputs.parked.get(sid).map(|p| p.message.clone()),
            status: c.last_reply.clone(),
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
            trigger: prov.and_then(|p| p.trigger.clone()),
            interrupted: interrupted.is_some(),
            interrupted_reason: interrupted.flatten(),
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
fn created_at(prov: Option<&RunProvenance>, transcript_began: Option<&str>) -> Option<String> {
    let stamped = prov
        .filter(|p| p.origin != Origin::Adopted)
        .and_then(|p| p.created_at.as_deref());
    stamped
        .or(transcript_began)
        .or_else(|| prov.and_then(|p| p.created_at.as_deref()))
        .map(str::to_owned)
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

fn projects_of(d: &ChatService, project_slug: Option<&str>) -> Result<Vec<Project>, ErrorBody> {
    match project_slug {
        Some(slug) => Ok(vec![d.projects.get_blocking(slug).map_err(project_error)?]),
        None => d.projects.list().map_err(project_error),
    }
}

/// The chats of one project (`Some(slug)`, `""` being the root workspace) or of all, in tree
/// order.
pub async fn list(
    d: &ChatService,
    user: &str,
    project_slug: Option<&str>,
    scope: ChatScope,
) -> Result<Vec<ChatSummary>, ErrorBody> {
    let projects = projects_of(d, project_slug)?;
    let inputs = Inputs::take(d, user, projects).await;
    let inputs = Arc::new(inputs);
    let listed = build(d, user, inputs.clone(), scope).await;
    let whole = whole_titles(d, &inputs, &listed);
    Ok(listed.iter().map(|l| l.summary(Some(&whole))).collect())
}

/// The whole titles of the listed rows whose titles were cut, by session id: from the index
/// under one lock, each title borrowed (the kept rows hold them cut), or, for a chat not
/// indexed yet, from its row.
fn whole_titles(d: &ChatService, inputs: &Inputs, listed: &[Listed]) -> HashMap<String, String> {
    let folder_of: HashMap<&str, &Path> = inputs
        .projects
        .iter()
        .map(|(p, folder)| (p.slug.as_str(), folder.as_path()))
        .collect();
    let cut: Vec<&KeptRow> = listed.iter().map(|l| &*l.kept).filter(|k| k.cut).collect();
    let mut whole: HashMap<String, String> = HashMap::with_capacity(cut.len());
    let mut wanted: Vec<(&Path, &str)> = Vec::with_capacity(cut.len());
    for k in &cut {
        let sid = k.row.session_id.as_str();
        match (&k.whole_title, folder_of.get(k.row.project_slug.as_str())) {
            (Some(t), _) => {
                whole.insert(sid.to_owned(), t.clone());
            }
            (None, Some(folder)) => wanted.push((folder, sid)),
            (None, None) => {}
        }
    }
    let titles = d.state.live_index().glance_in(&wanted, |g| {
        let prov = inputs.provenance.get(g.session_id);
        let title = crate::state::title_of(g.custom_title, prov, g.title);
        (g.session_id.to_owned(), display_title(title, g.session_id))
    });
    whole.extend(titles.into_iter().flatten());
    whole
}

/// `chat:list`: the rows, or what changed since the revision `since` the client has. When
/// that revision was built from the inputs as they are now, nothing changed, and no row is
/// looked at (`inputs.rs`); otherwise only the rows whose inputs changed are made again
/// (`rows.rs`), and only the rows that changed are put on the wire.
pub async fn list_answer(
    d: &ChatService,
    user: &str,
    project_slug: Option<&str>,
    scope: ChatScope,
    since: Option<u64>,
    full_titles: bool,
) -> Result<paddock_proto::Chats, ErrorBody> {
    let projects = projects_of(d, project_slug)?;
    let inputs = Arc::new(Inputs::take(d, user, projects).await);
    let key = ListingKey {
        user: user.to_owned(),
        project: project_slug.map(str::to_owned),
        scope,
    };
    if let Some(since) = since
        && d.last_built.unchanged(&key, &inputs, since)
        && let Some(nothing) = d.state.listings.unchanged(user, project_slug, scope, since)
    {
        return Ok(nothing);
    }
    let listed = build(d, user, inputs.clone(), scope).await;
    let prints: Vec<(&str, u64)> = listed
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let before = i
                .checked_sub(1)
                .and_then(|b| listed.get(b))
                .map(|b| b.kept.row.session_id.as_str());
            (l.kept.row.session_id.as_str(), l.print(before))
        })
        .collect();
    let answer = d
        .state
        .listings
        .answer_rows(user, project_slug, scope, since, &prints);
    if let Some(revision) = answer.revision {
        d.last_built.record(key, inputs.clone(), revision);
    }
    // Rows are fingerprinted whole, so a change past the cut is still a change.
    let whole = full_titles.then(|| whole_titles(d, &inputs, &listed));
    Ok(answer.chats(|i| listed.get(i).map(|l| l.summary(whole.as_ref()))))
}

/// A row placed in a listing.
struct Listed {
    kept: Arc<KeptRow>,
    tree_parent: Option<String>,
    level: u32,
    children: Vec<String>,
}

impl Listed {
    /// [`crate::listing::fingerprint`] of the row as placed, `before` listed before it.
    fn print(&self, before: Option<&str>) -> u64 {
        crate::listing::placed_print(
            self.kept.print,
            self.tree_parent.as_deref(),
            self.level,
            &self.children,
            before,
        )
    }

    /// The row on the wire, its title cut to [`paddock_proto::TITLE_CHARS`] unless `whole`
    /// titles are given ([`whole_titles`]).
    fn summary(&self, whole: Option<&HashMap<String, String>>) -> ChatSummary {
        let row = &self.kept.row;
        ChatSummary {
            title: whole
                .and_then(|w| w.get(&row.session_id))
                .unwrap_or(&row.title)
                .clone(),
            tree_parent: self.tree_parent.clone(),
            level: self.level,
            children: self.children.clone(),
            ..row.clone()
        }
    }
}

/// The rows of a listing built from `inputs`, in tree order: the rows kept for `user` where
/// their inputs did not change, made anew where they did (`rows.rs`).
async fn build(d: &ChatService, user: &str, inputs: Arc<Inputs>, scope: ChatScope) -> Vec<Listed> {
    let joined = Joined::of(d, inputs);
    let index = d.state.listed().await;
    let mut kept = d
        .kept_rows
        .take(user)
        .map(|k| k.still_valid(&joined))
        .unwrap_or_default();
    let mut rows: Vec<Arc<KeptRow>> = Vec::new();
    let versions: Vec<Vec<(String, u64)>> = joined
        .inputs
        .projects
        .iter()
        .map(|(_, folder)| index.versions_in(folder))
        .collect();
    let mut listed: HashSet<&str> = HashSet::with_capacity(kept.len());
    for ((project, folder), versions) in joined.inputs.projects.iter().zip(&versions) {
        // Places in `rows` to fill with rows made anew, and the chats to make them of.
        let mut stale: Vec<(usize, &str)> = Vec::new();
        let mut slots: Vec<Option<Arc<KeptRow>>> = Vec::with_capacity(versions.len());
        for (sid, version) in versions {
            if !listed.insert(sid) {
                continue;
            }
            match kept.get(sid) {
                Some(k) if k.version == Some(*version) && k.row.project_slug == project.slug => {
                    slots.push(Some(k.clone()));
                }
                _ => {
                    stale.push((slots.len(), sid));
                    slots.push(None);
                }
            }
        }
        let wanted: Vec<(&Path, &str)> = stale
            .iter()
            .map(|&(_, sid)| (folder.as_path(), sid))
            .collect();
        for ((slot, _), chat) in stale.iter().zip(index.versioned_in(&wanted)) {
            // `None`: gone since its version was read; it is not listed.
            if let (Some((chat, version)), Some(place)) = (chat, slots.get_mut(*slot)) {
                let made = KeptRow::new(joined.row(&project.slug, &chat), Some(version));
                kept.insert(chat.session_id.clone(), made.clone());
                *place = Some(made);
            }
        }
        #[cfg(debug_assertions)]
        check_kept(&joined, index, project, folder, &slots);
        rows.extend(slots.into_iter().flatten());
    }
    // Kept rows of the listed projects that are no longer listed: their chats are gone.
    let slugs: HashSet<&str> = joined
        .inputs
        .projects
        .iter()
        .map(|(p, _)| p.slug.as_str())
        .collect();
    if kept.len() > listed.len() {
        kept.retain(|sid, k| {
            listed.contains(sid.as_str()) || !slugs.contains(k.row.project_slug.as_str())
        });
    }
    for (sid, slug) in joined.unlisted() {
        if slugs.contains(slug) && listed.insert(sid) {
            rows.push(KeptRow::new(joined.starting_row(slug, sid, d), None));
        }
    }
    // One order for every scope: the whole tree's, of which a scope keeps its part.
    let mut listed = lay_out(rows, &joined, tree::build);
    if scope != ChatScope::All {
        listed.retain(|l| l.kept.row.archived == (scope == ChatScope::Archived));
        let rows = listed.into_iter().map(|l| l.kept).collect();
        listed = lay_out(rows, &joined, tree::nest);
    }
    d.kept_rows.put(user, Kept { joined, rows: kept });
    listed
}

/// Debug builds (the tests) check every kept row a listing uses against the row made anew
/// from the same index entry: a change `Inputs::changed_since` misses fails there.
#[cfg(debug_assertions)]
fn check_kept(
    joined: &Joined,
    index: &crate::index::ChatIndex,
    project: &Project,
    folder: &Path,
    rows: &[Option<Arc<KeptRow>>],
) {
    let rows: Vec<&Arc<KeptRow>> = rows.iter().flatten().collect();
    let wanted: Vec<(&Path, &str)> = rows
        .iter()
        .map(|k| (folder, k.row.session_id.as_str()))
        .collect();
    for (k, now) in rows.iter().zip(index.versioned_in(&wanted)) {
        if let Some((chat, version)) = now
            && k.version == Some(version)
        {
            let fresh = KeptRow::new(joined.row(&project.slug, &chat), Some(version));
            assert_eq!(
                k.row, fresh.row,
                "a kept row is not the row its inputs make"
            );
            assert_eq!(
                k.print, fresh.print,
                "a kept row's print is not its inputs'"
            );
        }
    }
}

/// Orders rows as the nested tree (`place`: [`tree::build`], or [`tree::nest`] for rows in
/// that order already) and gives each its `treeParent`, `level` and `children`.
fn lay_out(
    rows: Vec<Arc<KeptRow>>,
    joined: &Joined,
    place: fn(&[tree::Node]) -> Vec<tree::Placed>,
) -> Vec<Listed> {
    let now = now_ms();
    let nodes: Vec<tree::Node> = rows
        .iter()
        .map(|k| tree::Node {
            id: k.row.session_id.clone(),
            parent: joined.parent_of(&k.row.session_id).map(|p| p.session_id),
            starred: k.row.starred,
            activity: k.updated_ms.max(if k.row.running { now } else { 0 }),
            created: k.created_ms,
        })
        .collect();
    let placed = place(&nodes);
    placed
        .into_iter()
        .filter_map(|p| {
            Some(Listed {
                kept: rows.get(p.index)?.clone(),
                tree_parent: p.tree_parent,
                level: p.level,
                children: p.children,
            })
        })
        .collect()
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

/// `chat:resolve`: the chats each prefix names, from the index and the running chats (a new
/// chat is found before its transcript exists). No transcript is read.
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
            for (sid, slug) in &running {
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
    let mut chat = joined.row(&project.slug, &indexed);
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
