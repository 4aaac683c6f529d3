//! One project's chats as the tree shows them: the daemon's list, laid out in the stable
//! display order (nested and flat) the module docs of [`super`] describe.

use std::collections::HashMap;

use paddock_proto::ChatSummary;

use crate::format::tree_depths;

/// One project's chats: the daemon's list, and the order and nesting they are shown in.
#[derive(Debug, Default)]
pub(super) struct Chats {
    /// In the daemon's order.
    pub(super) list: Vec<ChatSummary>,
    /// Display order: indices into `list`, depth-first.
    pub(super) order: Vec<usize>,
    /// The flat display order: indices into `list`, by last activity (newest first).
    pub(super) flat: Vec<usize>,
    /// Per index into `list`: nesting level, parent, children (in display order).
    pub(super) level: Vec<usize>,
    pub(super) parent: Vec<Option<usize>>,
    pub(super) children: Vec<Vec<usize>>,
    /// Session id → index into `list`.
    pub(super) by_id: HashMap<String, usize>,
    /// Lowercased titles, for the filter.
    pub(super) title_lower: Vec<String>,
}

impl Chats {
    /// Lays out `list` (the daemon's tree order), keeping the display order of `previous` for
    /// the chats it showed (see the module docs); `None` adopts the daemon's order.
    pub(super) fn build(list: Vec<ChatSummary>, previous: Option<&Chats>) -> Self {
        let n = list.len();
        // The daemon's nesting, made consistent (a row is never more than one level below the
        // row above it); each row's parent is the nearest row above it one level up.
        let depths = tree_depths(&list);
        let mut parent = vec![None; n];
        let mut stack: Vec<usize> = Vec::new();
        for (i, &depth) in depths.iter().enumerate() {
            stack.truncate(depth);
            parent[i] = stack.last().copied();
            stack.push(i);
        }
        let mut roots = Vec::new();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, p) in parent.iter().enumerate() {
            match p {
                Some(p) => children[*p].push(i),
                None => roots.push(i),
            }
        }
        let rank = previous
            .map(|prev| prev.positions(&prev.order))
            .unwrap_or_default();
        if !rank.is_empty() {
            roots = merge_order(&roots, &list, &rank);
            for group in &mut children {
                if group.len() > 1 {
                    *group = merge_order(group, &list, &rank);
                }
            }
        }
        let flat = flat_order(&list, previous);
        let mut order = Vec::with_capacity(n);
        let mut level = vec![0; n];
        let mut todo: Vec<(usize, usize)> = roots.iter().rev().map(|&i| (i, 0)).collect();
        while let Some((i, l)) = todo.pop() {
            order.push(i);
            level[i] = l;
            todo.extend(children[i].iter().rev().map(|&c| (c, l + 1)));
        }
        let by_id = list
            .iter()
            .enumerate()
            .map(|(i, c)| (c.session_id.clone(), i))
            .collect();
        let title_lower = list.iter().map(|c| c.title.to_lowercase()).collect();
        Self {
            list,
            order,
            flat,
            level,
            parent,
            children,
            by_id,
            title_lower,
        }
    }

    /// Each chat's position in `order` (one of this list's display orders), by session id.
    fn positions<'a>(&'a self, order: &[usize]) -> HashMap<&'a str, usize> {
        order
            .iter()
            .enumerate()
            .map(|(pos, &i)| (self.list[i].session_id.as_str(), pos))
            .collect()
    }

    pub(super) fn get(&self, session_id: &str) -> Option<&ChatSummary> {
        self.by_id.get(session_id).and_then(|&i| self.list.get(i))
    }
}

/// The chats by last activity, the newest first (the daemon's order among equals, a chat
/// without a time last); the chats `previous` showed flat keep that order (see
/// [`merge_order`]).
fn flat_order(list: &[ChatSummary], previous: Option<&Chats>) -> Vec<usize> {
    let at = |c: &ChatSummary| {
        c.updated_at
            .as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.timestamp_millis())
    };
    let times: Vec<Option<i64>> = list.iter().map(at).collect();
    let mut by_time: Vec<usize> = (0..list.len()).collect();
    // Newest first; `None` sorts below every time.
    by_time.sort_by(|&a, &b| times[b].cmp(&times[a]).then(a.cmp(&b)));
    let rank = previous
        .map(|prev| prev.positions(&prev.flat))
        .unwrap_or_default();
    if rank.is_empty() {
        by_time
    } else {
        merge_order(&by_time, list, &rank)
    }
}

/// Orders one group of siblings: those in `rank` (shown before) by it, each new one right after
/// the nearest sibling the daemon lists before it that was shown before, or at the top.
fn merge_order(group: &[usize], list: &[ChatSummary], rank: &HashMap<&str, usize>) -> Vec<usize> {
    let rank_of = |i: usize| rank.get(list[i].session_id.as_str()).copied();
    let mut known: Vec<(usize, usize)> = group
        .iter()
        .filter_map(|&i| rank_of(i).map(|r| (r, i)))
        .collect();
    known.sort_unstable();
    // New chats by the known sibling they follow (`None`: the top).
    let mut after: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    let mut anchor = None;
    for &i in group {
        if rank_of(i).is_some() {
            anchor = Some(i);
        } else {
            after.entry(anchor).or_default().push(i);
        }
    }
    let mut out = Vec::with_capacity(group.len());
    out.extend(after.remove(&None).unwrap_or_default());
    for (_, i) in known {
        out.push(i);
        out.extend(after.remove(&Some(i)).unwrap_or_default());
    }
    out
}
