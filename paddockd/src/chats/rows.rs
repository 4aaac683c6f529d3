//! The rows kept between listings, so a listing makes only the rows whose inputs changed.
//!
//! A row is made from two kinds of input: the chat's index entry, which carries a version
//! that changes each time the index puts a new entry in place ([`crate::index::ChatIndex::
//! versions_in`]), and the stores' snapshots and live sets, which a listing takes whole
//! (`inputs.rs`). Kept with the rows are the inputs (and the run log's verdicts) they were
//! made from; the next listing compares its own with those, which names the chats whose rows
//! may differ (`Inputs::changed_since`: nothing is looked into that is the same snapshot),
//! and makes again those and the ones whose version or project changed. Every other row is
//! the one kept.
//!
//! One set of rows is kept per user (a row shows the user's read state), shared by all of
//! that user's listings: a listing refreshes the rows of its projects, and drops the kept rows
//! the changed inputs name, listed now or not, so a row kept is never older than the inputs
//! kept with it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use paddock_proto::{ChatSummary, EncodedRow, FrameError, Place, RowView};

use super::Joined;
use crate::state::ms_of;

/// A row as made from the index and the stores, before it is placed in a listing (no
/// `treeParent`, `level` or `children`), kept as it goes on the wire ([`EncodedRow`]) with
/// the few fields a listing lays rows out by. Its title is cut as a listing shows it
/// ([`paddock_proto::TITLE_CHARS`]); the whole title is not kept (with 10,000 chats whose
/// titles are long first prompts it was 6.6 MB): a listing that asks for whole titles reads
/// them from the index (`list.rs`, `whole_titles`). Nor is the row itself: 10,000 rows held
/// both ways were 7 MB more, and making them the first time cost a page fault every few rows.
#[derive(Debug)]
pub(super) struct KeptRow {
    pub session_id: String,
    pub project_slug: String,
    pub archived: bool,
    pub starred: bool,
    pub running: bool,
    /// The row on the wire, its place left open.
    pub encoded: EncodedRow,
    /// The title was cut.
    pub cut: bool,
    /// The whole title of a row that was cut and is not in the index (a chat starting): the
    /// index cannot give it back.
    pub whole_title: Option<String>,
    /// The index entry's version it was made from; `None` for a chat not indexed yet (made
    /// anew each time, never kept).
    pub version: Option<u64>,
    /// [`crate::listing::row_print`] of the row (its whole title included).
    pub print: u64,
    /// `updatedAt` and `createdAt` in epoch ms, which order the tree.
    pub updated_ms: i64,
    pub created_ms: i64,
}

impl KeptRow {
    /// The row kept for `row`, its title cut as a listing shows it.
    pub fn new(row: &ChatSummary, version: Option<u64>) -> Arc<Self> {
        Self::titled(RowView::of(row), &row.title, version)
    }

    /// The row `view` stands for, titled `whole` (the view's own title is ignored): the
    /// title cut from it without a copy of it whole (10,000 first prompts copied to be cut
    /// left the heap full of holes).
    pub fn titled(view: RowView<'_>, whole: &str, version: Option<u64>) -> Arc<Self> {
        // Fingerprinted whole, so a change past the cut is still a change.
        let print = crate::listing::row_print(&view, whole);
        let cut_at = crate::text::cut_at(whole, paddock_proto::TITLE_CHARS);
        let cut = cut_at.is_some();
        let view = RowView {
            title: cut_at.and_then(|at| whole.get(..at)).unwrap_or(whole),
            title_cut: cut,
            ..view
        };
        Arc::new(Self {
            encoded: EncodedRow::of(&view),
            print,
            updated_ms: ms_of(view.updated_at),
            created_ms: ms_of(view.created_at),
            cut,
            whole_title: (cut && version.is_none()).then(|| whole.to_owned()),
            archived: view.archived,
            starred: view.starred,
            running: view.running,
            session_id: view.session_id.to_owned(),
            project_slug: view.project_slug.to_owned(),
            version,
        })
    }

    /// The row placed at `place`, decoded: for what needs it whole (the daemon's own list,
    /// whole titles).
    pub fn decoded(&self, place: Place<'_>) -> Result<ChatSummary, FrameError> {
        let mut json = String::new();
        self.encoded.write_placed(place, &mut json);
        paddock_proto::decode(json.as_bytes())
    }
}

/// Session id → its kept row. Hashed with foldhash: a listing looks up and inserts every row,
/// and SipHash's rounds on 36-byte ids were most of that.
pub(super) type RowMap = HashMap<String, Arc<KeptRow>, foldhash::fast::RandomState>;

/// One user's kept rows, and what they were made from.
pub(super) struct Kept {
    pub joined: Joined,
    /// Session id → its row.
    pub rows: RowMap,
}

impl Kept {
    /// The kept rows that are still what `now` would make: those `now` does not name as
    /// changed since the rows were made. `None`: none are (the listed projects changed).
    pub fn still_valid(self, now: &Joined) -> RowMap {
        let Some(changed) = now.changed_since(&self.joined) else {
            return RowMap::default();
        };
        let mut rows = self.rows;
        if changed.len() * 2 > rows.len() {
            rows.retain(|sid, _| !changed.contains(sid));
        } else {
            for sid in &changed {
                rows.remove(sid);
            }
        }
        rows
    }
}

/// Users whose rows are kept. Overflow: every user's rows are dropped, and each one's next
/// listing makes its rows once.
const MAX_USERS: usize = 8;

/// The kept rows of each user (see the module docs). Cheap to clone (one cache).
#[derive(Clone, Default)]
pub struct KeptRows {
    inner: Arc<Mutex<HashMap<String, Kept>>>,
}

impl KeptRows {
    /// Takes `user`'s kept rows out, to be refreshed and put back ([`KeptRows::put`]). A
    /// listing made meanwhile for the same user finds none and makes every row.
    pub(super) fn take(&self, user: &str) -> Option<Kept> {
        self.lock().remove(user)
    }

    /// Keeps `kept` as `user`'s rows.
    pub(super) fn put(&self, user: &str, kept: Kept) {
        let mut users = self.lock();
        if users.len() >= MAX_USERS && !users.contains_key(user) {
            users.clear();
        }
        users.insert(user.to_owned(), kept);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Kept>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
