//! `chat:list`: a listing's rows, kept where their inputs did not change and made anew where
//! they did (`rows.rs`), laid out as the nested tree, and the answer on the wire, its rows
//! written from their kept encodings (`paddock_proto::EncodedRow`).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use paddock_proto::{
    ChatList, ChatScope, ChatSummary, ErrorBody, ErrorCode, FrameError, Place, RequestId,
};

use super::inputs::{Inputs, ListingKey};
use super::rows::{Kept, KeptRow};
use super::{ChatService, Joined};
use crate::index::display_title;
use crate::projects::{Project, project_error};
use crate::state::now_ms;
use crate::tree;

fn projects_of(d: &ChatService, project_slug: Option<&str>) -> Result<Vec<Project>, ErrorBody> {
    match project_slug {
        Some(slug) => Ok(vec![d.projects.get_blocking(slug).map_err(project_error)?]),
        None => d.projects.list().map_err(project_error),
    }
}

/// Chat `sid` and every chat under it in `project`'s tree, parents before their children
/// (a child in another project is not in its listing, so not here).
pub async fn subtree(
    d: &ChatService,
    user: &str,
    project: &str,
    sid: &str,
) -> Result<Vec<String>, ErrorBody> {
    let rows = list(d, user, Some(project), ChatScope::All).await?;
    let mut ids = vec![sid.to_owned()];
    let mut i = 0;
    while let Some(cur) = ids.get(i).cloned() {
        if let Some(row) = rows.iter().find(|r| r.session_id == cur) {
            for child in &row.children {
                if !ids.contains(child) {
                    ids.push(child.clone());
                }
            }
        }
        i += 1;
    }
    Ok(ids)
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
    listed
        .iter()
        .map(|l| l.summary(Some(&whole)))
        .collect::<Result<_, _>>()
        .map_err(unencodable)
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
        let sid = k.session_id.as_str();
        match (&k.whole_title, folder_of.get(k.project_slug.as_str())) {
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
    id: RequestId,
    list: ChatList,
) -> Result<String, ErrorBody> {
    let ChatList {
        project_slug,
        scope,
        since,
        full_titles,
    } = list;
    let project_slug = project_slug.as_deref();
    let projects = projects_of(d, project_slug)?;
    // Someone waits for it: the search index build steps aside meanwhile.
    let _serving = d.state.search.serving();
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
        return paddock_proto::encode_chats(id, nothing, 0, |_, _| Ok(())).map_err(unencodable);
    }
    let started = std::time::Instant::now();
    let listed = build(d, user, inputs.clone(), scope).await;
    let built = started.elapsed();
    let prints: Vec<(&str, u64)> = listed
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let before = i
                .checked_sub(1)
                .and_then(|b| listed.get(b))
                .map(|b| b.kept.session_id.as_str());
            (l.kept.session_id.as_str(), l.print(before))
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
    let line = answer
        .encode(id, &listed, |l, out| l.write(whole.as_ref(), out))
        .map_err(unencodable);
    tracing::debug!(
        rows = listed.len(),
        build_us = built.as_micros(),
        answer_us = (started.elapsed() - built).as_micros(),
        "chat list made"
    );
    line
}

/// The error answering a listing that could not be encoded.
fn unencodable(e: paddock_proto::FrameError) -> ErrorBody {
    tracing::error!("cannot encode a listing: {e}");
    ErrorBody::new(
        ErrorCode::Internal,
        format!("the listing could not be sent: {e}"),
    )
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

    /// Where the listing places the row.
    fn place(&self) -> Place<'_> {
        Place {
            tree_parent: self.tree_parent.as_deref(),
            level: self.level,
            children: &self.children,
        }
    }

    /// Appends the row as it goes on the wire, from the encoding kept with it, its title
    /// whole if `whole` has it ([`whole_titles`]).
    fn write(
        &self,
        whole: Option<&HashMap<String, String>>,
        out: &mut String,
    ) -> Result<(), FrameError> {
        match whole.and_then(|w| w.get(&self.kept.session_id)) {
            None => {
                self.kept.encoded.write_placed(self.place(), out);
                Ok(())
            }
            Some(_) => paddock_proto::write_row(&self.summary(whole)?, out),
        }
    }

    /// The row on the wire, decoded, its title cut to [`paddock_proto::TITLE_CHARS`] unless
    /// `whole` titles are given ([`whole_titles`]).
    fn summary(&self, whole: Option<&HashMap<String, String>>) -> Result<ChatSummary, FrameError> {
        let mut row = self.kept.decoded(self.place())?;
        if let Some(title) = whole.and_then(|w| w.get(&self.kept.session_id)) {
            row.title = title.clone();
        }
        Ok(row)
    }
}

/// The rows of a listing built from `inputs`, in tree order: the rows kept for `user` where
/// their inputs did not change, made anew where they did (`rows.rs`).
async fn build(d: &ChatService, user: &str, inputs: Arc<Inputs>, scope: ChatScope) -> Vec<Listed> {
    let joined = Joined::of(d, inputs);
    let index = d.state.listed().await;
    let started = std::time::Instant::now();
    let mut made = 0usize;
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
    let mut listed: HashSet<&str, foldhash::fast::RandomState> =
        HashSet::with_capacity_and_hasher(kept.len(), foldhash::fast::RandomState::default());
    for ((project, folder), versions) in joined.inputs.projects.iter().zip(&versions) {
        // Places in `rows` to fill with rows made anew, and the chats to make them of.
        let mut stale: Vec<(usize, &str)> = Vec::new();
        let mut slots: Vec<Option<Arc<KeptRow>>> = Vec::with_capacity(versions.len());
        for (sid, version) in versions {
            if !listed.insert(sid) {
                continue;
            }
            match kept.get(sid) {
                Some(k) if k.version == Some(*version) && k.project_slug == project.slug => {
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
        let rows_made = index.facts_in(&wanted, |chat, version| {
            joined.kept_row(&project.slug, &chat, version)
        });
        for ((slot, _), made_row) in stale.iter().zip(rows_made) {
            // `None`: gone since its version was read; it is not listed.
            if let (Some(row), Some(place)) = (made_row, slots.get_mut(*slot)) {
                kept.insert(row.session_id.clone(), row.clone());
                *place = Some(row);
                made += 1;
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
            listed.contains(sid.as_str()) || !slugs.contains(k.project_slug.as_str())
        });
    }
    for (sid, slug) in joined.unlisted() {
        if slugs.contains(slug) && listed.insert(sid) {
            rows.push(KeptRow::new(&joined.starting_row(slug, sid, d), None));
        }
    }
    let made_in = started.elapsed();
    let listed = lay_out(rows, &joined, scope);
    d.kept_rows.put(user, Kept { joined, rows: kept });
    tracing::debug!(
        made,
        made_us = made_in.as_micros(),
        laid_out_us = (started.elapsed() - made_in).as_micros(),
        "chat list rows"
    );
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
        .map(|k| (folder, k.session_id.as_str()))
        .collect();
    let fresh = index.facts_in(&wanted, |chat, version| {
        (joined.kept_row(&project.slug, &chat, version), version)
    });
    for (k, now) in rows.iter().zip(fresh) {
        if let Some((fresh, version)) = now
            && k.version == Some(version)
        {
            assert_eq!(
                k.encoded, fresh.encoded,
                "a kept row is not the row its inputs make"
            );
            assert_eq!(
                k.print, fresh.print,
                "a kept row's print is not its inputs'"
            );
        }
    }
}

/// Orders rows as the nested tree and gives each its `treeParent`, `level` and `children`.
/// One order for every scope: the whole tree's ([`tree::build`]), of which a scope keeps its
/// part, nested again ([`tree::nest`]).
fn lay_out(rows: Vec<Arc<KeptRow>>, joined: &Joined, scope: ChatScope) -> Vec<Listed> {
    let now = now_ms();
    let nodes: Vec<tree::Node> = rows
        .iter()
        .map(|k| tree::Node {
            id: k.session_id.clone(),
            parent: joined.parent_of(&k.session_id).map(|p| p.session_id),
            starred: k.starred,
            activity: k.updated_ms.max(if k.running { now } else { 0 }),
            created: k.created_ms,
        })
        .collect();
    let (rows, placed) = if scope == ChatScope::All {
        let placed = tree::build(&nodes);
        (rows, placed)
    } else {
        let archived = scope == ChatScope::Archived;
        let order = tree::order(&nodes);
        let mut nodes: Vec<Option<tree::Node>> = nodes.into_iter().map(Some).collect();
        let (mut part, mut part_nodes) = (Vec::new(), Vec::new());
        for i in order {
            if let (Some(k), Some(node)) = (rows.get(i), nodes.get_mut(i))
                && k.archived == archived
                && let Some(node) = node.take()
            {
                part.push(k.clone());
                part_nodes.push(node);
            }
        }
        let placed = tree::nest(&part_nodes);
        (part, placed)
    };
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
