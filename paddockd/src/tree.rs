//! The nested chat tree: which chat each chat hangs under, and the order rows are drawn in.
//!
//! Parent resolution follows the reference (`makeParentResolver`), three checks in order:
//!
//! 0. **An explicit detach** makes the chat a root, full stop. Detach is a positive flag in its
//!    own store because most edges are inferred and would simply be re-derived if cleared.
//! 1. **The recorded edge**: `parentSessionId` + `parentProject` on the chat's run provenance,
//!    written when a fork or a spawned chat was created. Authoritative.
//! 2. **The root-marker guard**: a chat whose provenance says it is a root (depth 0, or any
//!    origin but `spawned`) has no parent. It is not missing an edge; it has none. Without this
//!    guard the report-back workflow re-parents a manager under its own child: the child
//!    `send_message`s its report home, so the manager carries a chat-injected turn and tier 3
//!    would name the child as the manager's parent.
//! 3. **The inferred edge**: the chat that injected this chat's first chat-sent turn (a spawned
//!    chat's kickoff prompt is injected by whoever spawned it). A best guess that recovers the
//!    lineage of chats created before edges were recorded.
//!
//! On top, [`build`] applies a cycle guard: a chat that would be its own ancestor is drawn as a
//! root (deterministically the earliest-created member of the cycle), and a parent that is not
//! in the listing (another project, archived, filtered out) leaves its child at the top level.

use std::cmp::Reverse;
use std::collections::HashMap;

use paddock_proto::Origin;

/// A chat named across projects.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChatRef {
    /// `""` is the root workspace.
    pub project: String,
    pub session_id: String,
}

/// What run provenance recorded about a chat, as the resolver needs it.
#[derive(Debug, Clone, Copy)]
pub struct Recorded<'a> {
    pub origin: Origin,
    pub depth: u32,
    pub parent_session_id: Option<&'a str>,
    pub parent_project: Option<&'a str>,
}

/// Whether provenance marks the chat as a root of its tree: human, scheduled, hook and adopted
/// chats are roots by origin; a spawned chat at depth 0 is one too.
pub fn is_recorded_root(r: &Recorded<'_>) -> bool {
    r.depth == 0 || r.origin != Origin::Spawned
}

/// The parent a chat is drawn under, by the rules in the module docs.
pub fn resolve_parent(
    session_id: &str,
    detached: bool,
    recorded: Option<Recorded<'_>>,
    inferred: Option<ChatRef>,
) -> Option<ChatRef> {
    if detached {
        return None;
    }
    if let Some(r) = recorded {
        // The root workspace's key is "": test for presence, never for emptiness.
        if let (Some(sid), Some(proj)) = (r.parent_session_id, r.parent_project) {
            return Some(ChatRef {
                project: proj.to_owned(),
                session_id: sid.to_owned(),
            });
        }
        if is_recorded_root(&r) {
            return None;
        }
    }
    // The inferred edge always names its project (the sender's); "" is the root workspace.
    inferred.filter(|p| p.session_id != session_id)
}

/// One chat as the tree builder sees it.
#[derive(Debug, Clone)]
pub struct Node {
    pub id: String,
    /// The resolved parent's session id, if any (present in the listing or not).
    pub parent: Option<String>,
    pub starred: bool,
    /// Last activity, epoch ms: roots are ordered newest first.
    pub activity: i64,
    /// Creation, epoch ms: children are ordered oldest first; breaks cycles.
    pub created: i64,
}

/// Where a node lands in the listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// Index into the `nodes` given to [`build`].
    pub index: usize,
    pub level: u32,
    /// The parent it is drawn under (always a node of the listing).
    pub tree_parent: Option<String>,
    /// Direct children, in order.
    pub children: Vec<String>,
}

/// Lays `nodes` out in tree order: roots (starred first, then newest activity first, then
/// oldest first), each followed depth-first by its children (oldest first). Every node appears
/// exactly once. This is the one order of chats: a listing of some of them (the archived ones,
/// say) is [`nest`]ed in this order, not sorted anew.
pub fn build(nodes: &[Node]) -> Vec<Placed> {
    place(nodes, true)
}

/// Lays `nodes` out as [`build`] nests them, keeping siblings in the order they come: `nodes`
/// are a part of a [`build`] order (one scope of a listing), and a chat whose parent is not
/// among them stays where it was among the roots.
pub fn nest(nodes: &[Node]) -> Vec<Placed> {
    place(nodes, false)
}

/// The places of [`build`]'s order, as indices into `nodes`, with nothing else made: for a
/// listing that keeps a part of that order and nests it again ([`nest`]).
pub fn order(nodes: &[Node]) -> Vec<usize> {
    let (_, children, roots) = shape(nodes, true);
    let mut out = Vec::with_capacity(nodes.len());
    depth_first(&children, &roots, |i, _| out.push(i));
    out
}

fn place(nodes: &[Node], sort: bool) -> Vec<Placed> {
    let (parent, children, roots) = shape(nodes, sort);
    let mut out = Vec::with_capacity(nodes.len());
    depth_first(&children, &roots, |i, level| {
        out.push(Placed {
            index: i,
            level,
            tree_parent: parent[i].map(|p| nodes[p].id.clone()),
            children: children[i].iter().map(|&c| nodes[c].id.clone()).collect(),
        })
    });
    out
}

/// Visits the tree from `roots` depth first, each node with its level.
fn depth_first(children: &[Vec<usize>], roots: &[usize], mut visit: impl FnMut(usize, u32)) {
    let mut stack: Vec<(usize, u32)> = roots.iter().rev().map(|&r| (r, 0)).collect();
    while let Some((i, level)) = stack.pop() {
        visit(i, level);
        if let Some(kids) = children.get(i) {
            stack.extend(kids.iter().rev().map(|&c| (c, level + 1)));
        }
    }
}

/// Each node's parent in the listing, each one's children and the roots, as indices into
/// `nodes`; siblings sorted when `sort` (else in the order they come).
type Shape = (Vec<Option<usize>>, Vec<Vec<usize>>, Vec<usize>);

fn shape(nodes: &[Node], sort: bool) -> Shape {
    let index: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    // Parents that are in the listing and are not the node itself.
    let mut parent: Vec<Option<usize>> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            n.parent
                .as_deref()
                .and_then(|p| index.get(p).copied())
                .filter(|&p| p != i)
        })
        .collect();
    break_cycles(nodes, &mut parent);

    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    for (i, p) in parent.iter().enumerate() {
        match p {
            Some(p) => children[*p].push(i),
            None => roots.push(i),
        }
    }
    if sort {
        roots.sort_by_key(|&i| {
            let n = &nodes[i];
            (
                Reverse(n.starred),
                Reverse(n.activity),
                n.created,
                n.id.as_str(),
            )
        });
        for list in &mut children {
            list.sort_by_key(|&i| (nodes[i].created, nodes[i].id.as_str()));
        }
    }

    (parent, children, roots)
}

/// Cuts every parent cycle by making its earliest-created member a root. Linear: each node is
/// walked once.
fn break_cycles(nodes: &[Node], parent: &mut [Option<usize>]) {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let mut mark = vec![Mark::New; nodes.len()];
    let mut path = Vec::new();
    for start in 0..nodes.len() {
        let mut at = Some(start);
        while let Some(i) = at {
            match mark[i] {
                Mark::Done => break,
                Mark::OnPath => {
                    // `path` from `i` onwards is a cycle.
                    let from = path.iter().position(|&p| p == i).unwrap_or(0);
                    if let Some(&root) = path[from..]
                        .iter()
                        .min_by_key(|&&p: &&usize| (nodes[p].created, nodes[p].id.as_str()))
                    {
                        parent[root] = None;
                    }
                    break;
                }
                Mark::New => {
                    mark[i] = Mark::OnPath;
                    path.push(i);
                    at = parent[i];
                }
            }
        }
        for p in path.drain(..) {
            mark[p] = Mark::Done;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn spawned<'a>(depth: u32, parent: Option<(&'a str, &'a str)>) -> Recorded<'a> {
        Recorded {
            origin: Origin::Spawned,
            depth,
            parent_session_id: parent.map(|p| p.1),
            parent_project: parent.map(|p| p.0),
        }
    }

    fn human() -> Recorded<'static> {
        Recorded {
            origin: Origin::Human,
            depth: 0,
            parent_session_id: None,
            parent_project: None,
        }
    }

    fn chat(project: &str, id: &str) -> ChatRef {
        ChatRef {
            project: project.into(),
            session_id: id.into(),
        }
    }

    #[test]
    fn detach_wins_over_every_edge() {
        let rec = spawned(1, Some(("web", "manager")));
        let got = resolve_parent("child", true, Some(rec), Some(chat("web", "other")));
        assert_eq!(got, None);
    }

    #[test]
    fn the_recorded_edge_wins_over_inference() {
        let rec = spawned(1, Some(("web", "manager")));
        let got = resolve_parent("child", false, Some(rec), Some(chat("web", "other")));
        assert_eq!(got, Some(chat("web", "manager")));
    }

    #[test]
    fn a_recorded_edge_into_the_root_workspace_is_kept() {
        // The root workspace's key is "": an edge naming it is present, not absent.
        let rec = spawned(1, Some(("", "manager")));
        let got = resolve_parent("child", false, Some(rec), None);
        assert_eq!(got, Some(chat("", "manager")));
    }

    #[test]
    fn forks_record_their_parent_even_as_human_origin() {
        let rec = Recorded {
            origin: Origin::Human,
            depth: 1,
            parent_session_id: Some("source"),
            parent_project: Some("web"),
        };
        assert_eq!(
            resolve_parent("fork", false, Some(rec), None),
            Some(chat("web", "source"))
        );
    }

    #[test]
    fn the_inferred_edge_is_used_without_a_recorded_one() {
        assert_eq!(
            resolve_parent("child", false, None, Some(chat("web", "manager"))),
            Some(chat("web", "manager"))
        );
        // A spawned chat with a depth but no recorded edge (created before edges were
        // recorded) falls through to inference too.
        assert_eq!(
            resolve_parent(
                "child",
                false,
                Some(spawned(1, None)),
                Some(chat("api", "manager"))
            ),
            Some(chat("api", "manager"))
        );
    }

    #[test]
    fn an_inferred_edge_into_the_root_workspace_stays_there() {
        assert_eq!(
            resolve_parent("child", false, None, Some(chat("", "manager"))),
            Some(chat("", "manager"))
        );
    }

    #[test]
    fn the_report_back_trap_does_not_reparent_the_manager() {
        // The manager spawned `child`; `child` then sent its report home, so the manager's
        // message provenance names `child` as the first chat that injected a turn into it.
        let manager = resolve_parent("manager", false, Some(human()), Some(chat("web", "child")));
        assert_eq!(
            manager, None,
            "a recorded root never takes an inferred parent"
        );
        let child = resolve_parent(
            "child",
            false,
            Some(spawned(1, Some(("web", "manager")))),
            None,
        );
        assert_eq!(child, Some(chat("web", "manager")));
    }

    #[test]
    fn roots_by_origin_take_no_inferred_parent() {
        for origin in [
            Origin::Human,
            Origin::Scheduled,
            Origin::Hook,
            Origin::Adopted,
        ] {
            let rec = Recorded {
                origin,
                depth: 0,
                parent_session_id: None,
                parent_project: None,
            };
            assert_eq!(
                resolve_parent("x", false, Some(rec), Some(chat("web", "y"))),
                None,
                "{origin:?}"
            );
        }
        // A spawned chat recorded at depth 0 is a root as well.
        assert_eq!(
            resolve_parent("x", false, Some(spawned(0, None)), Some(chat("web", "y"))),
            None
        );
    }

    #[test]
    fn a_chat_never_infers_itself_as_parent() {
        assert_eq!(
            resolve_parent("x", false, None, Some(chat("web", "x"))),
            None
        );
    }

    fn node(id: &str, parent: Option<&str>, activity: i64, created: i64) -> Node {
        Node {
            id: id.into(),
            parent: parent.map(Into::into),
            starred: false,
            activity,
            created,
        }
    }

    fn order(nodes: &[Node]) -> Vec<(String, u32)> {
        build(nodes)
            .into_iter()
            .map(|p| (nodes[p.index].id.clone(), p.level))
            .collect()
    }

    #[test]
    fn nests_children_under_parents_in_order() {
        let nodes = vec![
            node("old-root", None, 10, 1),
            node("new-root", None, 50, 2),
            node("child-b", Some("new-root"), 60, 4),
            node("child-a", Some("new-root"), 70, 3),
            node("grandchild", Some("child-a"), 80, 5),
        ];
        assert_eq!(
            order(&nodes),
            vec![
                ("new-root".into(), 0),
                ("child-a".into(), 1),
                ("grandchild".into(), 2),
                ("child-b".into(), 1),
                ("old-root".into(), 0),
            ]
        );
        let placed = build(&nodes);
        assert_eq!(placed[0].children, vec!["child-a", "child-b"]);
        assert_eq!(placed[1].tree_parent.as_deref(), Some("new-root"));
    }

    #[test]
    fn starred_roots_come_first() {
        let mut nodes = vec![node("a", None, 100, 1), node("b", None, 1, 2)];
        nodes[1].starred = true;
        assert_eq!(order(&nodes)[0].0, "b");
    }

    #[test]
    fn a_missing_parent_leaves_the_child_at_the_top() {
        let nodes = vec![node("child", Some("archived-parent"), 1, 1)];
        let placed = build(&nodes);
        assert_eq!(placed[0].level, 0);
        assert_eq!(placed[0].tree_parent, None);
    }

    #[test]
    fn the_cycle_guard_promotes_the_earliest_member() {
        // a → b → c → a, plus d hanging under c.
        let nodes = vec![
            node("a", Some("c"), 1, 30),
            node("b", Some("a"), 1, 10),
            node("c", Some("b"), 1, 20),
            node("d", Some("c"), 1, 40),
        ];
        let got = order(&nodes);
        let indices: Vec<usize> = build(&nodes).iter().map(|p| p.index).collect();
        assert_eq!(super::order(&nodes), indices);
        assert_eq!(got.len(), 4, "every node appears once: {got:?}");
        assert_eq!(got[0], ("b".into(), 0), "b was created first");
        assert_eq!(
            got,
            vec![
                ("b".into(), 0),
                ("c".into(), 1),
                ("a".into(), 2),
                ("d".into(), 2),
            ]
        );
        // Two chats pointing at each other (the report-back trap without the guard).
        let pair = vec![node("m", Some("k"), 1, 1), node("k", Some("m"), 1, 2)];
        assert_eq!(order(&pair), vec![("m".into(), 0), ("k".into(), 1)]);
    }

    #[test]
    fn builds_ten_thousand_chats() {
        // 1,000 roots, each with a chain of 3 and 6 leaves: 10,000 chats.
        let mut nodes = Vec::with_capacity(10_000);
        for r in 0..1000 {
            let root = format!("r{r}");
            nodes.push(node(&root, None, r, r));
            let mut up = root.clone();
            for c in 0..3 {
                let id = format!("r{r}-c{c}");
                nodes.push(node(&id, Some(&up), r, r * 10 + c));
                up = id;
            }
            for l in 0..6 {
                nodes.push(node(&format!("r{r}-l{l}"), Some(&root), r, r * 10 + 5 + l));
            }
        }
        assert_eq!(nodes.len(), 10_000);
        let placed = build(&nodes);
        assert_eq!(placed.len(), 10_000);
        let mut seen = std::collections::HashSet::new();
        for p in &placed {
            assert!(seen.insert(p.index), "node placed twice");
        }
        assert_eq!(nodes[placed[0].index].id, "r999");
        assert_eq!(placed.iter().map(|p| p.level).max(), Some(3));
        assert_eq!(placed.iter().filter(|p| p.level == 0).count(), 1000);
        // The order alone is the placed one.
        let indices: Vec<usize> = placed.iter().map(|p| p.index).collect();
        assert_eq!(super::order(&nodes), indices);
    }
}
