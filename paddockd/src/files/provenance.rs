//! `provenance:file`: a file's status, producers, readers and lineage, read back from the
//! steps files.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use paddock_proto::{ErrorBody, ErrorCode, FileStep, Lineage, LineageNode, ProvenanceFile};

use crate::projects::Project;
use crate::provenance::identity::{Hashed, hash_file};
use crate::provenance::steps::{FileRecord, Line, Role, StepRecord};

use crate::provenance::{env, identity, lineage, rel_path, steps};

pub(super) fn invalid(message: String) -> ErrorBody {
    ErrorBody::new(ErrorCode::InvalidArgument, message)
}

/// `provenance:file`.
pub async fn file(
    d: &crate::chats::ChatService,
    r: ProvenanceFile,
) -> Result<paddock_proto::Provenance, ErrorBody> {
    let (project, file) = resolve_file(d, &r)?;
    let state = d.state.clone();
    let private = d.cfg.private_state();
    blocking(move || report(&state, &private, &project, &file)).await
}

/// Runs a query that reads files and hashes off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorBody> + Send + 'static,
) -> Result<T, ErrorBody> {
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        ErrorBody::new(
            ErrorCode::Internal,
            format!("the provenance query failed: {e}"),
        )
    })?
}

/// The project a file request is about, and the file in it: confined like every path a
/// request names (`confine.rs`): nothing outside the project's directory, symlinks resolved,
/// and never paddockd's own state.
pub(crate) fn resolve_file(
    d: &crate::chats::ChatService,
    r: &ProvenanceFile,
) -> Result<(Project, crate::confine::Confined), ErrorBody> {
    let project = match &r.project_slug {
        Some(slug) => d
            .projects
            .get_blocking(slug)
            .map_err(crate::projects::project_error)?,
        None => project_holding(d, &r.path)?,
    };
    let not_a_file = || {
        invalid(format!(
            "{} is not a file inside project {} ({})",
            r.path,
            label(&project.slug),
            project.agent_dir.display()
        ))
    };
    let confined = crate::confine::in_project(
        &d.cfg.private_state(),
        &project.agent_dir,
        &r.path,
        crate::confine::Naming::Lexical,
    )
    .map_err(|e| match e {
        crate::confine::Refused::Outside { .. } => not_a_file(),
        other => {
            let mut body = ErrorBody::from(other);
            body.message = format!("{} (project {})", body.message, label(&project.slug));
            body
        }
    })?;
    if confined.rel.is_empty() {
        return Err(not_a_file());
    }
    Ok((project, confined))
}

/// A file of the project named as steps record it, hashed when it is confined to the project
/// (`confine.rs`); an outside or private one is not read.
pub(crate) fn hash_in_project(
    private: &crate::confine::Private,
    project: &Project,
    recorded: &str,
    max_bytes: u64,
) -> Hashed {
    match crate::confine::in_project(
        private,
        &project.agent_dir,
        recorded,
        crate::confine::Naming::Lexical,
    ) {
        Ok(c) => hash_file(&c.path, max_bytes),
        Err(e) => Hashed::Unreadable(e.to_string()),
    }
}

/// The project whose directory holds an absolute path (the deepest one).
pub(super) fn project_holding(
    d: &crate::chats::ChatService,
    path: &str,
) -> Result<Project, ErrorBody> {
    let p = Path::new(path);
    if !p.is_absolute() {
        return Err(invalid(format!(
            "{path} is relative: name the project (-p) or give an absolute path"
        )));
    }
    let projects = d.projects.list().map_err(crate::projects::project_error)?;
    projects
        .into_iter()
        .filter(|proj| !rel_path(&proj.agent_dir, path).starts_with('/'))
        .max_by_key(|proj| proj.agent_dir.components().count())
        .ok_or_else(|| invalid(format!("{path} is in no project's directory")))
}

/// Every recorded step of a project, in the order they ended, and the events each session
/// lost (from its gap lines).
pub(crate) struct Records {
    pub steps: Vec<StepRecord>,
    pub gaps: BTreeMap<String, u64>,
}

impl Records {
    pub(crate) fn load(meta_dir: &Path) -> Self {
        let mut gaps: BTreeMap<String, u64> = BTreeMap::new();
        let mut all: Vec<StepRecord> = Vec::new();
        for (session, lines) in steps::read_project(meta_dir) {
            for line in lines {
                match line {
                    Line::Step(s) => all.push(*s),
                    Line::Gap { dropped, .. } => {
                        *gaps.entry(session.clone()).or_default() += dropped;
                    }
                }
            }
        }
        // Time order; ties keep file order.
        all.sort_by(|a, b| a.ended_at.cmp(&b.ended_at));
        Self { steps: all, gaps }
    }
}

/// Chat titles and models for the steps of a reply, looked up once per chat.
pub(crate) struct Names<'a> {
    pub(super) state: &'a crate::state::ChatState,
    pub(super) seen: HashMap<String, (Option<String>, Option<String>)>,
}

impl<'a> Names<'a> {
    pub(crate) fn new(state: &'a crate::state::ChatState) -> Self {
        Self {
            state,
            seen: HashMap::new(),
        }
    }

    pub(super) fn of(&mut self, session: &str) -> &(Option<String>, Option<String>) {
        let state = self.state;
        self.seen.entry(session.to_owned()).or_insert_with(|| {
            state
                .live_index()
                .get(session)
                .map_or((None, None), |c| (Some(c.title), c.model))
        })
    }

    pub(crate) fn title(&mut self, session: &str) -> Option<String> {
        self.of(session).0.clone()
    }

    /// A step's edge on a file, as the wire shows it.
    pub(crate) fn file_step(&mut self, s: &StepRecord, f: &FileRecord) -> FileStep {
        let (title, model) = self.of(&s.session_id).clone();
        FileStep {
            session_id: s.session_id.clone(),
            job_id: s.job_id.clone(),
            step_id: s.step_id.clone(),
            title,
            tool: s.tool.clone(),
            at: s.ended_at.clone(),
            edge: f.edge,
            change: f.change.clone(),
            hash: f.hash.clone(),
            environment: s.environment.clone(),
            model: s
                .specialist
                .as_ref()
                .and_then(|sp| sp.model.clone())
                .or(model),
            specialist: s.specialist.clone(),
        }
    }
}

/// Builds the reply from the project's steps (blocking: reads files and hashes).
pub(super) fn report(
    state: &crate::state::ChatState,
    private: &crate::confine::Private,
    project: &Project,
    file: &crate::confine::Confined,
) -> Result<paddock_proto::Provenance, ErrorBody> {
    let rel = file.rel.as_str();
    let Records { steps: all, gaps } = Records::load(&project.meta_dir);
    let limits = state.provenance.limits();
    let now = hash_file(&file.path, limits.max_hash_bytes);
    let writes = touching(&all, rel, Role::Write);
    let reads = touching(&all, rel, Role::Read);
    if writes.is_empty() && reads.is_empty() && now == Hashed::Missing {
        return Err(unknown_file(rel, &project.slug));
    }
    let mut names = Names::new(state);
    let (status, status_reason) = identity::status(
        writes.first().map(|(s, f)| (*f, s.tool.as_str())),
        writes.first().is_some_and(|(s, _)| s.specialist.is_some()),
        &now,
    );
    let producers: Vec<FileStep> = writes.iter().map(|(s, f)| names.file_step(s, f)).collect();
    let readers: Vec<FileStep> = reads.iter().map(|(s, f)| names.file_step(s, f)).collect();
    let walk = lineage::walk(&all, rel, lineage::BOUNDS);
    let nodes = lineage_nodes(
        private,
        project,
        &all,
        &walk,
        &mut names,
        limits.max_hash_bytes,
    );
    let mut notes = Vec::new();
    if nodes.iter().any(|n| n.changed_since_use) {
        notes.push(
            "Some inputs of this file have changed since it was made from them (marked in the lineage).".into(),
        );
    }
    let involved = writes
        .iter()
        .chain(reads.iter())
        .map(|(s, _)| s.session_id.as_str());
    notes.extend(lost_notes(
        &mut names,
        &gaps,
        involved,
        "its steps are incomplete",
    ));
    notes.extend(unscanned_notes(&all));
    let environments = environments(project, &producers, &readers, &nodes, &mut notes);
    if writes.iter().any(|(s, _)| s.overlapped) {
        notes.push(
            "A step that wrote this file ran alongside other tool calls of the project, so its attribution is inferred from a shared scan.".into(),
        );
    }
    Ok(paddock_proto::Provenance {
        project_slug: project.slug.clone(),
        path: rel.to_owned(),
        status,
        status_reason,
        current_hash: now.hash().map(str::to_owned),
        producers,
        readers,
        lineage: Lineage {
            nodes,
            truncated: walk.truncated,
        },
        notes,
        environments,
    })
}

/// The steps' edges of `role` on the file `rel`, latest first.
fn touching<'a>(
    all: &'a [StepRecord],
    rel: &str,
    role: Role,
) -> Vec<(&'a StepRecord, &'a FileRecord)> {
    all.iter()
        .rev()
        .flat_map(|s| {
            s.files
                .iter()
                .filter(move |f| f.role == role && f.path == rel)
                .map(move |f| (s, f))
        })
        .collect()
}

/// The error for a file that is not on disk and that no step names.
pub(super) fn unknown_file(rel: &str, slug: &str) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::NotFound,
        format!(
            "{rel} does not exist in project {} and no chat's steps name it",
            label(slug)
        ),
    )
}

/// The lineage as the wire shows it, each input marked when it changed since it was used.
fn lineage_nodes(
    private: &crate::confine::Private,
    project: &Project,
    all: &[StepRecord],
    walk: &lineage::Walk<'_>,
    names: &mut Names<'_>,
    max_hash_bytes: u64,
) -> Vec<LineageNode> {
    // Inputs nobody recorded writing are compared with what was read before the file was made.
    let until = walk
        .nodes
        .first()
        .and_then(|n| n.producer)
        .map(|(s, _)| s.ended_at.as_str());
    walk.nodes
        .iter()
        .map(|n| LineageNode {
            path: n.path.clone(),
            hops: n.hops,
            producer: n.producer.map(|(s, f)| names.file_step(s, f)),
            inputs: n.inputs.clone(),
            missing_origin: n.producer.is_none(),
            changed_since_use: n.hops > 0
                && changed_since_use(private, project, all, n, until, max_hash_bytes),
        })
        .collect()
}

/// A note for each chat among `sessions`, or with gap lines, whose tool calls were not all
/// recorded; `effect` says what that means for the reply.
pub(super) fn lost_notes<'a>(
    names: &mut Names<'_>,
    gaps: &'a BTreeMap<String, u64>,
    sessions: impl Iterator<Item = &'a str>,
    effect: &str,
) -> Vec<String> {
    let mut involved: Vec<&str> = sessions.collect();
    involved.sort_unstable();
    involved.dedup();
    for session in gaps.keys() {
        if !involved.contains(&session.as_str()) {
            involved.push(session);
        }
    }
    let mut notes = Vec::new();
    for session in involved {
        if gaps.contains_key(session) || names.state.provenance.lost_events(session) {
            let name = names
                .title(session)
                .map_or_else(String::new, |t| format!(" ({t})"));
            notes.push(format!(
                "Some tool calls of chat {}{name} were not recorded (the recorder fell behind), so {effect}.",
                short(session)
            ));
        }
    }
    notes
}

/// A note for each kind of missing before/after scan among the project's steps, with its count.
fn unscanned_notes(all: &[StepRecord]) -> Vec<String> {
    let unscanned: BTreeMap<&str, usize> =
        all.iter()
            .filter_map(|s| s.scan.as_deref())
            .fold(BTreeMap::new(), |mut m, label| {
                *m.entry(label).or_default() += 1;
                m
            });
    unscanned
        .into_iter()
        .map(|(label, n)| {
            format!(
                "{n} tool call{} of this project had no before/after scan ({label}), so files {} wrote may have no record.",
                if n == 1 { "" } else { "s" },
                if n == 1 { "it" } else { "they" }
            )
        })
        .collect()
}

/// The environment snapshots the reply's steps name, each once; a note for each one missing.
fn environments(
    project: &Project,
    producers: &[FileStep],
    readers: &[FileStep],
    nodes: &[LineageNode],
    notes: &mut Vec<String>,
) -> Vec<paddock_proto::Environment> {
    let mut env_hashes: Vec<&str> = Vec::new();
    let named = producers
        .iter()
        .chain(readers.iter())
        .chain(nodes.iter().filter_map(|n| n.producer.as_ref()))
        .filter_map(|s| s.environment.as_deref());
    for hash in named {
        if !env_hashes.contains(&hash) {
            env_hashes.push(hash);
        }
    }
    let mut environments = Vec::new();
    for hash in env_hashes {
        match env::load(&project.meta_dir, hash) {
            Some(e) => environments.push(e),
            None => notes.push(format!(
                "The environment snapshot {} is missing or unreadable.",
                short(hash)
            )),
        }
    }
    environments
}

/// Whether an input's bytes now differ from the version the lineage used: the hash its
/// producing step recorded or, for a file no step wrote, the hash of its latest read at or
/// before `until` (when the file asked about was written). Unknown (no hash, unreadable,
/// outside the project) is not a change.
pub(super) fn changed_since_use(
    private: &crate::confine::Private,
    project: &Project,
    all: &[StepRecord],
    node: &lineage::Node<'_>,
    until: Option<&str>,
    max_hash_bytes: u64,
) -> bool {
    let recorded = match node.producer {
        Some((_, f)) => f.hash.as_deref(),
        None => all
            .iter()
            .rev()
            .filter(|s| until.is_none_or(|u| s.ended_at.as_str() <= u))
            .flat_map(|s| s.files.iter().rev())
            .find(|f| f.role == Role::Read && f.path == node.path && f.hash.is_some())
            .and_then(|f| f.hash.as_deref()),
    };
    let Some(recorded) = recorded else {
        return false;
    };
    if node.path.starts_with('/') {
        return false;
    }
    match hash_in_project(private, project, &node.path, max_hash_bytes) {
        Hashed::Hash(now) => now != recorded,
        Hashed::Missing => true,
        Hashed::TooLarge | Hashed::Unreadable(_) => false,
    }
}

pub(super) use crate::projects::label;

pub(super) fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}
