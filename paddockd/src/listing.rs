//! Revisions of chat listings, so `chat:list` can answer with what changed (`since`).
//!
//! A listing is what one `chat:list` shows: one user's view (read state is per user) of one
//! project (or of all) in one scope. For each listing asked for, [`Listings`] keeps every row's
//! fingerprint and the revision at which it last changed, and the ids that left the listing
//! (tombstones). A listing's rows are the user's kept rows, made again only where their inputs
//! changed (`chats/rows.rs`), laid out as the tree; nothing is looked at when nothing they are
//! made from changed since the revision asked for (`chats/inputs.rs`, then
//! [`Listings::unchanged`]). The fingerprints decide which of the rows go on the wire, and
//! only those are copied out ([`Answer`]). A fingerprint covers every field of the placed row
//! (so a change of `level`, `children` or `treeParent` caused by another chat counts) and the
//! id of the row listed just before it, so a row that moved is in the delta too, and a client
//! can put every row back in its place (docs/PROTOCOL.md, `chats`); the part that is the row's
//! own ([`row_print`]) is kept with the row.
//!
//! Revisions come from one counter per daemon that starts at the wall clock in microseconds,
//! so a revision of an earlier run is never mistaken for one of this run; on top of that, a
//! listing answers a `since` only if it issued that revision itself (another listing's or
//! another run's revision gets the full list).

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, PoisonError};

use paddock_proto::{ChatScope, ChatSummary, ChatUsage, Chats, RowView};

/// Listings kept. Overflow: the least recently asked listing is dropped; its next `since`
/// gets the full list.
const MAX_LISTINGS: usize = 32;
/// Removed ids kept per listing. Overflow: the oldest tombstone is dropped and the listing
/// stops answering a `since` older than it (the full list instead).
const MAX_TOMBSTONES: usize = 4096;
/// Revisions a listing remembers having issued. Overflow: the oldest is forgotten, and a
/// `since` equal to it gets the full list.
const MAX_ISSUED: usize = 256;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    user: String,
    project: Option<String>,
    scope: u8,
}

impl Key {
    fn new(user: &str, project: Option<&str>, scope: ChatScope) -> Self {
        Self {
            user: user.to_owned(),
            project: project.map(str::to_owned),
            scope: match scope {
                ChatScope::Active => 0,
                ChatScope::Archived => 1,
                ChatScope::All => 2,
            },
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Row {
    fingerprint: u64,
    /// The revision at which this row last changed (or entered the listing).
    changed: u64,
}

#[derive(Debug)]
struct Listing {
    revision: u64,
    rows: HashMap<String, Row>,
    /// Ids that left the listing, with the revision they left at, oldest first.
    tombstones: VecDeque<(u64, String)>,
    /// The oldest `since` this listing can still answer with a delta.
    floor: u64,
    /// Revisions this listing answered with, oldest first.
    issued: VecDeque<u64>,
    /// When it was last asked for (a tick of [`Inner::tick`]), for the LRU.
    used: u64,
}

#[derive(Debug)]
struct Inner {
    listings: HashMap<Key, Listing>,
    /// The next revision to issue.
    next: u64,
    tick: u64,
}

/// The listings' revisions (see the module docs). One per daemon.
#[derive(Debug)]
pub struct Listings {
    inner: Mutex<Inner>,
}

impl Default for Listings {
    fn default() -> Self {
        Self::new()
    }
}

impl Listings {
    pub fn new() -> Self {
        let epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX / 2));
        Self::starting_at(epoch.max(1))
    }

    /// Revisions start at `first` (tests).
    pub fn starting_at(first: u64) -> Self {
        Self {
            inner: Mutex::new(Inner {
                listings: HashMap::new(),
                next: first,
                tick: 0,
            }),
        }
    }

    /// The answer "nothing changed since `since`", when `since` is the listing's newest
    /// revision; `None` when it is not (the rows must be built and answered).
    pub fn unchanged(
        &self,
        user: &str,
        project: Option<&str>,
        scope: ChatScope,
        since: u64,
    ) -> Option<Chats> {
        let key = Key::new(user, project, scope);
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let Inner { listings, tick, .. } = &mut *guard;
        let listing = listings.get_mut(&key)?;
        if listing.revision != since || !listing.answers(since) {
            return None;
        }
        *tick += 1;
        listing.used = *tick;
        Some(Chats {
            revision: Some(since),
            delta: true,
            ..Chats::default()
        })
    }

    /// The answer to a `chat:list` whose full list (in tree order) is `rows`: records the
    /// listing's new state, then answers with the full list, or with what changed since
    /// `since` when this listing issued that revision and still knows what left it since.
    #[cfg(test)]
    pub fn answer(
        &self,
        user: &str,
        project: Option<&str>,
        scope: ChatScope,
        since: Option<u64>,
        rows: Vec<ChatSummary>,
    ) -> Chats {
        let prints: Vec<(&str, u64)> = rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let before = i
                    .checked_sub(1)
                    .and_then(|b| rows.get(b))
                    .map(|r| r.session_id.as_str());
                (row.session_id.as_str(), fingerprint(row, before))
            })
            .collect();
        let answer = self.answer_rows(user, project, scope, since, &prints);
        answer.chats(|i| rows.get(i).cloned())
    }

    /// [`Listings::answer`] for a listing whose rows (in tree order) are given as each one's
    /// id and fingerprint ([`fingerprint`], of the row as placed): the answer names the rows to
    /// send, so only those are made.
    pub fn answer_rows(
        &self,
        user: &str,
        project: Option<&str>,
        scope: ChatScope,
        since: Option<u64>,
        rows: &[(&str, u64)],
    ) -> Answer {
        let key = Key::new(user, project, scope);
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let Inner {
            listings,
            next,
            tick,
        } = &mut *guard;
        *tick += 1;
        if !listings.contains_key(&key) && listings.len() >= MAX_LISTINGS {
            let oldest = listings
                .iter()
                .min_by_key(|(_, l)| l.used)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                listings.remove(&oldest);
            }
        }
        let listing = listings.entry(key).or_insert_with(|| Listing {
            revision: 0,
            rows: HashMap::new(),
            tombstones: VecDeque::new(),
            floor: *next,
            issued: VecDeque::new(),
            used: 0,
        });
        listing.used = *tick;
        if listing.update(rows, *next) {
            *next += 1;
        }
        match since {
            Some(since) if listing.answers(since) => listing.delta(since, rows),
            _ => Answer {
                revision: Some(listing.revision),
                delta: false,
                rows: (0..rows.len()).collect(),
                after: Vec::new(),
                removed: Vec::new(),
            },
        }
    }
}

/// What to answer a `chat:list` with ([`Listings::answer_rows`]), by the rows' places in the
/// listing.
#[derive(Debug)]
pub struct Answer {
    pub revision: Option<u64>,
    /// Only what changed since the `since` asked for (else the full list).
    pub delta: bool,
    /// The rows to send, in order.
    pub rows: Vec<usize>,
    /// For a delta, the id listed before each row sent (`None`: it is first).
    pub after: Vec<Option<String>>,
    /// For a delta, the ids that left the listing.
    pub removed: Vec<String>,
}

impl Answer {
    /// The answer's line on the wire, the response to request `id`: each row written by
    /// `write` from its entry of `listed` (a place `listed` has no entry for is left out; a
    /// row that cannot be written fails the answer).
    pub fn encode<T>(
        self,
        id: paddock_proto::RequestId,
        listed: &[T],
        write: impl Fn(&T, &mut String) -> Result<(), paddock_proto::FrameError>,
    ) -> Result<String, paddock_proto::FrameError> {
        let (sent, head) = self.rows_with(|i| listed.get(i));
        paddock_proto::encode_chats(id, head, sent.len(), |k, out| match sent.get(k) {
            Some(row) => write(row, out),
            None => Ok(()),
        })
    }

    /// The answer on the wire, each row made by `row` from its place (a place it has no row
    /// for is left out).
    #[cfg(test)]
    pub fn chats(self, row: impl Fn(usize) -> Option<ChatSummary>) -> Chats {
        let (chats, head) = self.rows_with(row);
        Chats { chats, ..head }
    }

    /// The rows to send, each made by `row` from its place (a place it has no row for is
    /// left out, with its `after`), and the rest of the answer.
    fn rows_with<T>(self, row: impl Fn(usize) -> Option<T>) -> (Vec<T>, Chats) {
        let Answer {
            revision,
            delta,
            rows,
            after,
            removed,
        } = self;
        let mut sent = Vec::with_capacity(rows.len());
        let mut afters = Vec::with_capacity(after.len());
        let mut after = after.into_iter();
        for i in rows {
            let before = after.next();
            let Some(r) = row(i) else { continue };
            if let Some(before) = before {
                afters.push(before);
            }
            sent.push(r);
        }
        let head = Chats {
            chats: Vec::new(),
            revision,
            delta,
            removed,
            after: afters,
        };
        (sent, head)
    }
}

impl Listing {
    /// Records the listing's rows now; a change of anything takes the revision `candidate`.
    /// True when it did.
    fn update(&mut self, rows: &[(&str, u64)], candidate: u64) -> bool {
        let mut changed = false;
        let mut present: HashSet<&str> = HashSet::with_capacity(rows.len());
        for &(sid, fingerprint) in rows {
            present.insert(sid);
            match self.rows.get_mut(sid) {
                Some(known) if known.fingerprint == fingerprint => {}
                Some(known) => {
                    *known = Row {
                        fingerprint,
                        changed: candidate,
                    };
                    changed = true;
                }
                None => {
                    self.rows.insert(
                        sid.to_owned(),
                        Row {
                            fingerprint,
                            changed: candidate,
                        },
                    );
                    changed = true;
                }
            }
        }
        if self.rows.len() > present.len() {
            let gone: Vec<String> = self
                .rows
                .keys()
                .filter(|sid| !present.contains(sid.as_str()))
                .cloned()
                .collect();
            for sid in gone {
                self.rows.remove(&sid);
                self.tombstones.push_back((candidate, sid));
                changed = true;
            }
            while self.tombstones.len() > MAX_TOMBSTONES {
                if let Some((at, _)) = self.tombstones.pop_front() {
                    self.floor = self.floor.max(at);
                }
            }
        }
        if changed || self.issued.is_empty() {
            self.revision = candidate;
            self.issued.push_back(candidate);
            while self.issued.len() > MAX_ISSUED {
                self.issued.pop_front();
            }
            return true;
        }
        false
    }

    /// Whether a delta since `since` can be given.
    fn answers(&self, since: u64) -> bool {
        since >= self.floor && self.issued.contains(&since)
    }

    /// The rows changed after `since`, each with the id listed before it, and the ids that
    /// left after `since`.
    fn delta(&self, since: u64, rows: &[(&str, u64)]) -> Answer {
        let mut after = Vec::new();
        let mut send = Vec::new();
        let mut before: Option<&str> = None;
        for (i, &(sid, _)) in rows.iter().enumerate() {
            if self.rows.get(sid).is_none_or(|r| r.changed > since) {
                after.push(before.map(str::to_owned));
                send.push(i);
            }
            before = Some(sid);
        }
        let mut seen = HashSet::new();
        let removed = self
            .tombstones
            .iter()
            .rev()
            .take_while(|(at, _)| *at > since)
            .filter(|(_, sid)| !self.rows.contains_key(sid) && seen.insert(sid.as_str()))
            .map(|(_, sid)| sid.clone())
            .collect();
        Answer {
            revision: Some(self.revision),
            delta: true,
            rows: send,
            after,
            removed,
        }
    }
}

/// A hash of every field of the row and of the id listed before it.
pub fn fingerprint(row: &ChatSummary, before: Option<&str>) -> u64 {
    placed_print(
        row_print(&RowView::of(row), &row.title),
        row.tree_parent.as_deref(),
        row.level,
        &row.children,
        before,
    )
}

/// The hasher of fingerprints: foldhash's, seeded the same in every process (fingerprints
/// are compared within one daemon run only). SipHash took a sixth of making 10,000 rows, most
/// of it on titles that are long first prompts.
fn print_hasher() -> impl Hasher {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0x7061_6464_6f63_6b21).build_hasher()
}

/// [`fingerprint`] of a row placed in a listing, from its [`row_print`] and its place: the
/// parent it is drawn under, its level, its children and the id listed before it.
pub fn placed_print(
    row_print: u64,
    tree_parent: Option<&str>,
    level: u32,
    children: &[String],
    before: Option<&str>,
) -> u64 {
    let mut h = print_hasher();
    row_print.hash(&mut h);
    before.hash(&mut h);
    tree_parent.hash(&mut h);
    level.hash(&mut h);
    children.hash(&mut h);
    h.finish()
}

/// A hash of every field of the row but those of its place in the tree (`treeParent`,
/// `level`, `children`: [`placed_print`]), its title being `title` (a kept row's is cut, and
/// is fingerprinted whole). The destructuring names every field, so a field added to the row
/// must be added here (it does not compile otherwise).
pub fn row_print(row: &RowView<'_>, title: &str) -> u64 {
    let RowView {
        session_id,
        project_slug,
        title: _,
        title_cut: _,
        origin,
        depth,
        parent_session_id,
        parent_project,
        created_at,
        updated_at,
        model,
        message_count,
        running,
        unread,
        archived,
        starred,
        detached,
        fork,
        worktree,
        overlaps,
        trigger,
        usage,
        queued,
        interrupted,
        interrupted_reason,
        waiting_approval,
        waiting_process,
        failed,
        parked,
        status,
    } = *row;
    let mut h = print_hasher();
    session_id.hash(&mut h);
    project_slug.hash(&mut h);
    title.hash(&mut h);
    std::mem::discriminant(&origin).hash(&mut h);
    depth.hash(&mut h);
    parent_session_id.hash(&mut h);
    parent_project.hash(&mut h);
    created_at.hash(&mut h);
    updated_at.hash(&mut h);
    model.hash(&mut h);
    message_count.hash(&mut h);
    (
        running,
        unread,
        archived,
        starred,
        detached,
        fork,
        interrupted,
    )
        .hash(&mut h);
    interrupted_reason.hash(&mut h);
    (waiting_approval, waiting_process, failed).hash(&mut h);
    trigger.hash(&mut h);
    worktree.hash(&mut h);
    overlaps.hash(&mut h);
    match usage {
        None => 0u8.hash(&mut h),
        Some(ChatUsage {
            context_tokens,
            context_limit,
            input_tokens,
            output_tokens,
            cache_read_tokens,
            cache_creation_tokens,
            cost_usd,
        }) => {
            1u8.hash(&mut h);
            (
                context_tokens,
                context_limit,
                input_tokens,
                output_tokens,
                cache_read_tokens,
                cache_creation_tokens,
                cost_usd.to_bits(),
            )
                .hash(&mut h);
        }
    }
    queued.hash(&mut h);
    parked.hash(&mut h);
    status.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn row(sid: &str, title: &str) -> ChatSummary {
        ChatSummary {
            session_id: sid.into(),
            title: title.into(),
            ..ChatSummary::default()
        }
    }

    fn ask(l: &Listings, since: Option<u64>, rows: &[ChatSummary]) -> Chats {
        l.answer("u", Some("p"), ChatScope::Active, since, rows.to_vec())
    }

    #[test]
    fn an_unchanged_listing_keeps_its_revision_and_answers_an_empty_delta() {
        let l = Listings::starting_at(100);
        let rows = [row("a", "A"), row("b", "B")];
        let first = ask(&l, None, &rows);
        assert!(!first.delta);
        assert_eq!(first.revision, Some(100));
        let again = ask(&l, first.revision, &rows);
        assert!(again.delta);
        assert_eq!(again.revision, Some(100));
        assert!(again.chats.is_empty() && again.removed.is_empty());
    }

    #[test]
    fn a_delta_holds_the_changed_and_moved_rows_and_the_removed_ids() {
        let l = Listings::starting_at(100);
        let before = [row("a", "A"), row("b", "B"), row("c", "C"), row("d", "D")];
        let r0 = ask(&l, None, &before).revision;
        // c renamed and moved to the top; b removed.
        let now = [row("c", "C2"), row("a", "A"), row("d", "D")];
        let d = ask(&l, r0, &now);
        assert!(d.delta);
        assert_eq!(d.revision, Some(101));
        let ids: Vec<&str> = d.chats.iter().map(|c| c.session_id.as_str()).collect();
        assert_eq!(ids, ["c", "a", "d"]);
        assert_eq!(d.after, [None, Some("c".into()), Some("a".into())]);
        assert_eq!(d.removed, ["b"]);
        assert_eq!(d.clone().apply_to(&before).unwrap(), now);
    }

    #[test]
    fn an_unknown_or_foreign_since_gets_the_full_list() {
        let l = Listings::starting_at(100);
        let rows = [row("a", "A")];
        let r = ask(&l, None, &rows).revision;
        assert!(!ask(&l, Some(7), &rows).delta);
        assert!(!ask(&l, r.map(|r| r + 1), &rows).delta);
        // Another listing's revision.
        let other = l.answer("u", Some("q"), ChatScope::Active, None, vec![row("x", "X")]);
        assert_ne!(other.revision, r);
        assert!(!ask(&l, other.revision, &rows).delta);
        // Another user's view of the same project is another listing.
        let theirs = l.answer("v", Some("p"), ChatScope::Active, r, rows.to_vec());
        assert!(!theirs.delta);
    }

    #[test]
    fn revisions_of_two_daemon_runs_do_not_meet() {
        let a = Listings::new();
        let rows = [row("a", "A")];
        let r = ask(&a, None, &rows).revision;
        let b = Listings::new();
        let fresh = ask(&b, r, &rows);
        assert!(!fresh.delta);
        assert!(fresh.revision >= r, "{fresh:?} {r:?}");
    }

    #[test]
    fn too_many_tombstones_make_old_revisions_unanswerable() {
        let l = Listings::starting_at(1);
        let many: Vec<ChatSummary> = (0..MAX_TOMBSTONES + 10)
            .map(|i| row(&format!("c{i}"), "x"))
            .collect();
        let r0 = ask(&l, None, &many).revision;
        let r1 = ask(&l, None, &many[..5]).revision;
        let r2 = ask(&l, None, &many[..4]).revision;
        assert!(!ask(&l, r0, &many[..4]).delta, "r0 lost its tombstones");
        // r1's removals (after it: one) are all still kept.
        let d = ask(&l, r1, &many[..4]);
        assert!(d.delta);
        assert_eq!(d.removed, ["c4"]);
        assert!(ask(&l, r2, &many[..4]).delta);
    }

    #[test]
    fn the_least_recently_asked_listing_is_dropped() {
        let l = Listings::starting_at(1);
        let rows = [row("a", "A")];
        let first = l.answer("u", Some("p0"), ChatScope::Active, None, rows.to_vec());
        for i in 1..=MAX_LISTINGS {
            l.answer(
                "u",
                Some(&format!("p{i}")),
                ChatScope::Active,
                None,
                rows.to_vec(),
            );
        }
        let again = l.answer(
            "u",
            Some("p0"),
            ChatScope::Active,
            first.revision,
            rows.to_vec(),
        );
        assert!(!again.delta);
    }

    #[test]
    fn every_field_counts() {
        let base = row("a", "A");
        let f = |r: &ChatSummary| fingerprint(r, None);
        let variants = [
            ChatSummary {
                level: 1,
                ..base.clone()
            },
            ChatSummary {
                children: vec!["b".into()],
                ..base.clone()
            },
            ChatSummary {
                tree_parent: Some("b".into()),
                ..base.clone()
            },
            ChatSummary {
                running: true,
                ..base.clone()
            },
            ChatSummary {
                unread: true,
                ..base.clone()
            },
            ChatSummary {
                status: Some("s".into()),
                ..base.clone()
            },
            ChatSummary {
                usage: Some(ChatUsage::default()),
                ..base.clone()
            },
            ChatSummary {
                usage: Some(ChatUsage {
                    cost_usd: 0.5,
                    ..ChatUsage::default()
                }),
                ..base.clone()
            },
        ];
        let mut seen = HashSet::new();
        seen.insert(f(&base));
        for v in &variants {
            assert!(seen.insert(f(v)), "{v:?}");
        }
        assert_ne!(fingerprint(&base, Some("x")), f(&base));
    }
}
